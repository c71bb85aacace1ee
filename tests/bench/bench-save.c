/* bench-save.c: saving throughput (MB/s of JSON written) for .json,
 * .json.gz and .json.zst, untouched (verbatim copy of every event) and with
 * every GPU op marked edited (re-serialised through json-c), best of N runs.
 *
 *   WEFT_TRACES_DIR=../shared/traces build/tests/bench/bench-save [FILE...] [--runs N]
 *
 * Default files: df_index_resolver.json.gz and nccl_data.json.gz. Output is
 * written to a temporary folder and removed. */
#include "config.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../testutil.h"
#include "weft/weft.h"

static double
file_mb (const char *path)
{
  GStatBuf st;
  return g_stat (path, &st) == 0 ? (double) st.st_size / 1e6 : 0.0;
}

static void
bench_file (const char *path, int runs)
{
  static const char *exts[] = { ".json", ".json.gz", ".json.zst" };
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftRank) rank = weft_rank_load_file (path, NULL, NULL, &error);
  g_autofree char *dir = g_dir_make_tmp ("weft-bench-save-XXXXXX", NULL);
  double json_mb;
  guint n_gpu = 0;

  if (rank == NULL)
    {
      fprintf (stderr, "%s: %s\n", path, error->message);
      return;
    }
  json_mb = (double) rank->json_bytes / 1e6;
  printf ("%s: %u events, %.1f MB of JSON\n", path, rank->events->len, json_mb);

  for (int edited = 0; edited < 2; edited++)
    {
      if (edited)
        for (guint i = 0; i < rank->events->len; i++)
          {
            WeftEvent *ev = weft_rank_event (rank, i);
            if (ev->category == WEFT_CAT_KERNEL || ev->category == WEFT_CAT_GPU_MEMCPY ||
                ev->category == WEFT_CAT_GPU_MEMSET)
              {
                ev->flags |= WEFT_EVENT_EDITED;
                n_gpu++;
              }
          }
      for (guint e = 0; e < G_N_ELEMENTS (exts); e++)
        {
          g_autofree char *out = g_strdup_printf ("%s/out%s", dir, exts[e]);
          double best = 1e30;
          for (int r = 0; r < runs; r++)
            {
              gint64 t0 = g_get_monotonic_time ();
              if (!weft_rank_save (rank, out, NULL, &error))
                {
                  fprintf (stderr, "%s\n", error->message);
                  return;
                }
              best = MIN (best, (double) (g_get_monotonic_time () - t0) / 1e6);
            }
          printf ("  %-9s %-8s %8.1f ms  %7.1f MB/s of JSON  file %.1f MB\n", exts[e],
                  edited ? "edited" : "as read", best * 1e3, json_mb / best, file_mb (out));
          g_unlink (out);
        }
      if (edited)
        printf ("  (edited: %u GPU ops re-serialised)\n", n_gpu);
    }
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  int runs = 3;
  GPtrArray *files = g_ptr_array_new_with_free_func (g_free);

  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--runs") == 0 && i + 1 < argc)
        {
          runs = atoi (argv[++i]); /* not inside MAX (): it evaluates twice */
          if (runs < 1)
            runs = 1;
        }
      else
        g_ptr_array_add (files, g_strdup (argv[i]));
    }
  if (files->len == 0)
    {
      char *a = weft_test_trace_path ("HolisticTraceAnalysis/df_index_resolver/df_index_resolver.json.gz");
      char *b = weft_test_trace_path ("HolisticTraceAnalysis/nccl_parser_config/nccl_data.json.gz");
      if (a != NULL)
        g_ptr_array_add (files, a);
      if (b != NULL)
        g_ptr_array_add (files, b);
    }
  if (files->len == 0)
    {
      fprintf (stderr, "no input: give files or set WEFT_TRACES_DIR\n");
      return 77;
    }
  for (guint i = 0; i < files->len; i++)
    bench_file (g_ptr_array_index (files, i), runs);
  g_ptr_array_free (files, TRUE);
  return 0;
}
