/* cli-json.c: the JSON vocabulary shared by every command's --json output
 * (docs/cli.md, "JSON output"): a schema_version on every document, one
 * metrics object, durations as *_us (microseconds, fractional to the
 * nanosecond), points in time as *_ns (integer nanoseconds). */
#include "config.h"

#include <stdio.h>

#include "commands.h"
#include "weft/weft.h"

static double
us (gint64 ns)
{
  return (double) ns / 1000.0;
}

json_object *
weft_cli_json_new (void)
{
  json_object *doc = json_object_new_object ();
  json_object_object_add (doc, "schema_version", json_object_new_int (WEFT_CLI_SCHEMA_VERSION));
  json_object_object_add (doc, "weft_version", json_object_new_string (WEFT_VERSION_STRING));
  return doc;
}

gboolean
weft_cli_json_print (json_object *doc)
{
  int rc = printf ("%s\n", json_object_to_json_string_ext (doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
                                                                   JSON_C_TO_STRING_NOSLASHESCAPE));
  json_object_put (doc);
  return rc >= 0 && fflush (stdout) == 0;
}

json_object *
weft_cli_metrics_json (const WeftMetrics *m, const WeftMetrics *base)
{
  json_object *o = json_object_new_object ();
  json_object_object_add (o, "ranks", json_object_new_int ((int) m->n_ranks));
  json_object_object_add (o, "begin_ns", json_object_new_int64 (m->begin));
  json_object_object_add (o, "end_ns", json_object_new_int64 (m->end));
  json_object_object_add (o, "step_time_us", json_object_new_double (us (m->step_time)));
  json_object_object_add (o, "step_time_source",
                          json_object_new_string (weft_step_time_source_to_string (m->step_source)));
  json_object_object_add (o, "gpu_begin_ns", json_object_new_int64 (m->gpu_begin));
  json_object_object_add (o, "gpu_end_ns", json_object_new_int64 (m->gpu_end));
  json_object_object_add (o, "gpu_span_us", json_object_new_double (us (m->gpu_span)));
  json_object_object_add (o, "compute_us", json_object_new_double (us (m->compute)));
  json_object_object_add (o, "communication_us", json_object_new_double (us (m->comm)));
  json_object_object_add (o, "compute_only_us", json_object_new_double (us (m->compute_only)));
  json_object_object_add (o, "overlapped_us", json_object_new_double (us (m->overlapped)));
  json_object_object_add (o, "communication_only_us", json_object_new_double (us (m->comm_only)));
  json_object_object_add (o, "memcpy_memset_us", json_object_new_double (us (m->memcpy_memset)));
  json_object_object_add (o, "idle_us", json_object_new_double (us (m->idle)));
  json_object_object_add (o, "overlap_pct", json_object_new_double (m->overlap_pct));
  json_object_object_add (o, "exposed_communication_us", json_object_new_double (us (m->exposed_comm)));
  json_object_object_add (o, "critical_path_us", json_object_new_double (us (m->cp_length)));
  json_object_object_add (o, "critical_path_compute_us", json_object_new_double (us (m->cp_compute)));
  json_object_object_add (o, "critical_path_communication_us", json_object_new_double (us (m->cp_comm)));
  json_object_object_add (o, "critical_path_launch_us", json_object_new_double (us (m->cp_launch)));
  json_object_object_add (o, "critical_path_waiting_us", json_object_new_double (us (m->cp_wait)));
  json_object_object_add (o, "critical_path_inferred_us", json_object_new_double (us (m->cp_inferred)));
  if (base != NULL)
    {
      json_object_object_add (o, "step_time_delta_us", json_object_new_double (us (m->step_time - base->step_time)));
      json_object_object_add (o, "gpu_span_delta_us", json_object_new_double (us (m->gpu_span - base->gpu_span)));
      json_object_object_add (o, "overlap_pct_delta", json_object_new_double (m->overlap_pct - base->overlap_pct));
      json_object_object_add (o, "exposed_communication_delta_us",
                              json_object_new_double (us (m->exposed_comm - base->exposed_comm)));
    }
  return o;
}
