/* cmd-edit.c: `weft-cli edit PATH --script EDITS.json --out DIR`: applies an
 * edit script (docs/editing.md) to a trace headlessly through the same edit
 * session the window uses, prints the metrics before and after, and saves
 * the edited trace with the edit log under the top-level "weft" key. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "weft/weft.h"
#include "weft/weft-edit.h"

static void
print_ms (FILE *f, const char *label, gint64 before, gint64 after)
{
  fprintf (f, "  %-22s %12.3f ms  -> %12.3f ms  (%+.3f ms)\n", label, before / 1e6, after / 1e6,
           (after - before) / 1e6);
}

static void
print_metrics (FILE *f, const WeftMetrics *b, const WeftMetrics *a)
{
  fprintf (f, "metrics (whole trace, all ranks; overlap %% = overlapped / communication, as HTA):\n");
  print_ms (f, "step time", b->step_time, a->step_time);
  fprintf (f, "  %-22s %12.2f %%   -> %12.2f %%   (%+.2f points)\n", "overlap", b->overlap_pct, a->overlap_pct,
           a->overlap_pct - b->overlap_pct);
  print_ms (f, "exposed communication", b->exposed_comm, a->exposed_comm);
  print_ms (f, "compute", b->compute, a->compute);
  print_ms (f, "communication", b->comm, a->comm);
  print_ms (f, "idle", b->idle, a->idle);
  print_ms (f, "critical path", b->cp_length, a->cp_length);
}

int
weft_cmd_edit (int argc, char **argv)
{
  gint64 max_bytes = 0;
  g_autofree char *script = NULL;
  g_autofree char *out = NULL;
  g_autofree char *format = NULL;
  gboolean as_json = FALSE;
  const char *ext = NULL;
  GOptionEntry entries[] = {
    { "script", 's', 0, G_OPTION_ARG_FILENAME, &script,
      "Edit script to apply (JSON, see docs/editing.md; - reads standard input)", "EDITS.json" },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out,
      "Folder to write the edited trace into (rank<R>_trace<ext>), or - for standard output (one rank; the report "
      "goes to standard error)", "DIR" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format, "json (default), json.gz or json.zst", "FORMAT" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &as_json, "Print the metrics before/after and the edit log as JSON", NULL },
    { "max-json-bytes", 0, 0, G_OPTION_ARG_INT64, &max_bytes,
      "Cap on the decompressed JSON bytes per input file (default 16 GiB; env WEFT_MAX_JSON_BYTES)", "BYTES" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("PATH - apply an edit script and save the edited trace");
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftEditSession) session = NULL;
  g_autoptr (WeftMemoryTimeline) memory = NULL;
  WeftMemoryTimelinePeak mem_before = { 0 }, mem_after = { 0 };
  gboolean has_memory = FALSE;
  WeftTrace *trace;
  WeftMetrics before = { 0 }, after = { 0 };
  guint n_applied = 0;
  const char *path;
  gboolean to_stdout;
  FILE *report = stdout;

  g_option_context_add_main_entries (ctx, entries, NULL);
  weft_cli_add_progress_option (ctx);
  g_option_context_set_description (
    ctx, "Applies the operations of EDITS.json (scale, set_duration, shift, move_time, move_stream,\n"
         "reorder, delete, duplicate, insert_kernel, insert_collective, move_to_rank; see\n"
         "docs/editing.md) through the dependency solver, prints step time, overlap % and\n"
         "exposed communication before and after, and writes the edited trace to DIR with the\n"
         "applied operations under the top-level \"weft\" key.\n\n"
         "Exit status: 0 success, 1 failure writing, 2 bad input (unreadable trace, bad script,\n"
         "an edit refused as a dependency cycle) or bad usage.");
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return weft_cli_fail ("edit: %s", error->message);
  if (argc != 2)
    return weft_cli_fail ("edit: expected one PATH (see weft-cli edit --help)");
  if (script == NULL)
    return weft_cli_fail ("edit: --script is required");
  if (out == NULL)
    return weft_cli_fail ("edit: --out is required");
  if (max_bytes < 0)
    return weft_cli_fail ("edit: --max-json-bytes must be positive");
  if (!weft_cli_parse_format (format, &ext))
    return weft_cli_fail ("edit: unknown --format '%s' (json, json.gz or json.zst)", format);
  path = argv[1];
  to_stdout = strcmp (out, "-") == 0;
  if (to_stdout && as_json)
    return weft_cli_fail ("edit: --out - writes the trace to standard output: --json cannot share it");
  if (to_stdout && strcmp (ext, ".json") != 0 && isatty (STDOUT_FILENO))
    return weft_cli_fail ("edit: standard output is a terminal: not writing compressed data there");
  if (strcmp (path, "-") == 0 && strcmp (script, "-") == 0)
    return weft_cli_fail ("edit: the trace and --script cannot both be standard input");

  trace = weft_cli_load_trace (path, (guint64) max_bytes, &error);
  if (trace == NULL)
    return weft_cli_fail ("%s", error->message);
  session = weft_edit_session_new (trace, path, &error);
  if (session == NULL)
    {
      weft_trace_free (trace);
      return weft_cli_fail ("%s: %s", path, error->message);
    }
  /* the [memory] events anchored to their ops as loaded, re-timed after
   * the edits (docs/solver.md, "Memory under edits") */
  memory = weft_memory_timeline_new (trace);
  has_memory = weft_memory_timeline_peak (memory, WEFT_SOLVER_ALL_RANKS, &mem_before);
  if (strcmp (script, "-") == 0)
    {
      g_autoptr (GBytes) text = weft_cli_read_stdin ("--script -", &error);
      gsize len = 0;
      const char *data = text != NULL ? g_bytes_get_data (text, &len) : NULL;
      if (text == NULL ||
          !weft_edit_session_apply_script_data (session, "(standard input)", data, len, &n_applied, &error))
        return weft_cli_fail ("%s", error->message);
    }
  else if (!weft_edit_session_apply_script_file (session, script, &n_applied, &error))
    return weft_cli_fail ("%s", error->message);
  weft_edit_session_metrics (session, &after, &before);
  if (has_memory)
    {
      weft_memory_timeline_update (memory, weft_edit_session_get_solver (session));
      weft_memory_timeline_peak (memory, WEFT_SOLVER_ALL_RANKS, &mem_after);
    }

  if (to_stdout)
    {
      WeftFileFormat f = WEFT_FORMAT_JSON;
      weft_file_format_from_path (ext, &f);
      if (!weft_edit_session_write_fd (session, STDOUT_FILENO, f, &error))
        {
          fprintf (stderr, "weft-cli: %s\n", error->message);
          return g_error_matches (error, WEFT_ERROR, WEFT_ERROR_INVALID) ? WEFT_EXIT_BAD_INPUT : WEFT_EXIT_FAILURE;
        }
      report = stderr;
    }
  else if (!weft_edit_session_save (session, out, ext, &error))
    {
      fprintf (stderr, "weft-cli: %s\n", error->message);
      /* refused (a folder holding other traces): bad usage, nothing written */
      return g_error_matches (error, WEFT_ERROR, WEFT_ERROR_INVALID) ? WEFT_EXIT_BAD_INPUT : WEFT_EXIT_FAILURE;
    }

  if (as_json)
    {
      json_object *o = weft_cli_json_new ();
      json_object_object_add (o, "path", json_object_new_string (path));
      json_object_object_add (o, "applied", json_object_new_int ((int) n_applied));
      json_object *b = weft_cli_metrics_json (&before, NULL), *a = weft_cli_metrics_json (&after, &before);
      if (has_memory)
        {
          json_object_object_add (b, "peak_memory_gib", json_object_new_double (mem_before.peak_reserved / 1073741824.0));
          json_object_object_add (a, "peak_memory_gib", json_object_new_double (mem_after.peak_reserved / 1073741824.0));
        }
      json_object_object_add (o, "before", b);
      json_object_object_add (o, "after", a);
      json_object_object_add (o, "edits", weft_edit_session_log (session));
      json_object_object_add (o, "out", json_object_new_string (out));
      if (!weft_cli_json_print (o))
        return WEFT_EXIT_FAILURE;
    }
  else
    {
      json_object *log = weft_edit_session_log (session);
      fprintf (report, "%s: applied %u operation%s of %s (%zu primitive edits)\n", path, n_applied,
               n_applied == 1 ? "" : "s", script, json_object_array_length (log));
      json_object_put (log);
      print_metrics (report, &before, &after);
      if (has_memory)
        fprintf (report, "  %-22s %12.3f GiB -> %12.3f GiB (%+.3f GiB; the largest over ranks)\n", "peak memory",
                 mem_before.peak_reserved / 1073741824.0, mem_after.peak_reserved / 1073741824.0,
                 (mem_after.peak_reserved - mem_before.peak_reserved) / 1073741824.0);
      fprintf (report, "wrote %s\n", to_stdout ? "standard output" : out);
    }
  return WEFT_EXIT_OK;
}
