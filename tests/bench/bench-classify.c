/* bench-classify.c: time of classification (kernel classes + collectives,
 * per rank) and of matching + clock offsets (across ranks) on the shared
 * traces. Not a test: run by hand, figures in docs/benchmarks.md.
 *
 *   build/tests/bench/bench-classify [PATH...]
 *
 * Without arguments it uses the shared traces found through WEFT_TRACES_DIR
 * (or ../shared/traces next to the source tree). Each figure is the best of
 * 5 runs on an already loaded trace. */
#include "config.h"

#include <stdio.h>

#include "weft/weft-classify.h"
#include "weft/weft-load.h"

static const char *default_traces[] = {
  "HolisticTraceAnalysis/df_index_resolver/df_index_resolver.json.gz",
  "HolisticTraceAnalysis/negative_queue_length_values_check/rank0.json.gz",
  "param/et_replay/tests/inputs/dlrm_kineto",
  "synthetic/fsdp8/profiling/traces/iteration_10",
  "TraceLens/b200/eager_trace.json.gz",
};

static void
bench_one (const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftTrace) trace = weft_trace_load (path, NULL, NULL, &error);
  gint64 best_classify = G_MAXINT64, best_match = G_MAXINT64;
  guint64 n_events = 0, n_colls = 0;

  if (trace == NULL)
    {
      fprintf (stderr, "%s: %s\n", path, error->message);
      return;
    }
  for (guint i = 0; i < trace->ranks->len; i++)
    n_events += weft_trace_rank (trace, i)->events->len;
  for (int rep = 0; rep < 5; rep++)
    {
      gint64 t0 = g_get_monotonic_time (), t1, t2;
      for (guint i = 0; i < trace->ranks->len; i++)
        weft_rank_classify (weft_trace_rank (trace, i));
      t1 = g_get_monotonic_time ();
      weft_trace_match_collectives (trace);
      weft_trace_estimate_clock_offsets (trace);
      t2 = g_get_monotonic_time ();
      best_classify = MIN (best_classify, t1 - t0);
      best_match = MIN (best_match, t2 - t1);
    }
  for (guint i = 0; i < trace->ranks->len; i++)
    n_colls += weft_trace_rank (trace, i)->collectives->len;
  printf ("%s\n  %u ranks, %" G_GUINT64_FORMAT " events, %" G_GUINT64_FORMAT " collectives, %u instances\n"
          "  classify %.2f ms (%.1f M events/s), match + offsets %.3f ms\n",
          path, trace->ranks->len, n_events, n_colls, trace->instances->len, best_classify / 1000.0,
          best_classify > 0 ? (double) n_events / (double) best_classify : 0.0, best_match / 1000.0);
}

int
main (int argc, char **argv)
{
  if (argc > 1)
    {
      for (int i = 1; i < argc; i++)
        bench_one (argv[i]);
      return 0;
    }
  {
    const char *env = g_getenv ("WEFT_TRACES_DIR");
    g_autofree char *dir = env != NULL ? g_strdup (env) : g_build_filename (WEFT_SOURCE_DIR, "..", "shared", "traces", NULL);
    for (guint i = 0; i < G_N_ELEMENTS (default_traces); i++)
      {
        g_autofree char *path = g_build_filename (dir, default_traces[i], NULL);
        if (g_file_test (path, G_FILE_TEST_EXISTS))
          bench_one (path);
        else
          fprintf (stderr, "%s: not found, skipped\n", path);
      }
  }
  return 0;
}
