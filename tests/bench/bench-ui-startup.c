/* bench-ui-startup: time from launching `weft PATH` to its first frame.
 *
 * Runs the real binary (WEFT_BUILD_DIR/weft, else ./weft) with
 * WEFT_BENCH_STARTUP=1: the window prints the time from main() to the end
 * of the first frame of the loaded trace (loading, solving and drawing in
 * between) and quits. This program also measures the wall time from spawn
 * to exit, which adds exec, dynamic linking and teardown. Median of N runs
 * (default 5, WEFT_BENCH_RUNS) per trace.
 *
 * Needs an X display: run it under xvfb-run (see docs/benchmarks.md). */
#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../testutil.h"

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : (x > y ? 1 : 0);
}

static gboolean
run_once (const char *weft, const char *path, double *first_frame_ms, double *load_ms, double *solve_ms,
          double *wall_ms)
{
  g_autoptr (GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                                                        G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  g_autoptr (GSubprocess) proc = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *out = NULL;
  g_autofree char *tmp = g_dir_make_tmp ("weft-bench-XXXXXX", NULL);
  const char *line;
  gint64 t0;

  g_subprocess_launcher_setenv (launcher, "WEFT_BENCH_STARTUP", "1", TRUE);
  g_subprocess_launcher_setenv (launcher, "GSETTINGS_BACKEND", "memory", TRUE);
  g_subprocess_launcher_setenv (launcher, "GTK_A11Y", "none", TRUE);
  g_subprocess_launcher_setenv (launcher, "NO_AT_BRIDGE", "1", TRUE);
  if (g_getenv ("GSK_RENDERER") == NULL)
    g_subprocess_launcher_setenv (launcher, "GSK_RENDERER", "cairo", TRUE);
  if (tmp != NULL)
    g_subprocess_launcher_setenv (launcher, "XDG_DATA_HOME", tmp, TRUE); /* keep the user's recent files clean */
  t0 = g_get_monotonic_time ();
  /* its own process: not a window of a Weft already running in the session */
  proc = g_subprocess_launcher_spawn (launcher, &error, weft, "--new-instance", path, NULL);
  if (proc == NULL || !g_subprocess_communicate_utf8 (proc, NULL, NULL, &out, NULL, &error))
    {
      fprintf (stderr, "bench-ui-startup: %s\n", error->message);
      return FALSE;
    }
  *wall_ms = (g_get_monotonic_time () - t0) / 1000.0;
  if (tmp != NULL)
    {
      g_autofree char *recent = g_build_filename (tmp, "recently-used.xbel", NULL);
      g_remove (recent);
      g_rmdir (tmp);
    }
  line = out != NULL ? strstr (out, "first frame ") : NULL;
  if (line == NULL ||
      sscanf (line, "first frame %lf ms after start (load %lf ms, solve %lf ms)", first_frame_ms, load_ms, solve_ms) != 3)
    {
      fprintf (stderr, "bench-ui-startup: %s %s: no first frame reported (exit %d)\n", weft, path,
               g_subprocess_get_exit_status (proc));
      return FALSE;
    }
  return TRUE;
}

int
main (int argc, char **argv)
{
  const char *traces[] = {
    "param/et_replay/tests/inputs/dlrm_kineto",
    "HolisticTraceAnalysis/df_index_resolver/df_index_resolver.json.gz",
  };
  int runs = g_getenv ("WEFT_BENCH_RUNS") ? atoi (g_getenv ("WEFT_BENCH_RUNS")) : 5;
  g_autofree char *weft = NULL;

  if (g_getenv ("DISPLAY") == NULL && g_getenv ("WAYLAND_DISPLAY") == NULL)
    {
      fprintf (stderr, "bench-ui-startup: no display; run under xvfb-run\n");
      return 77;
    }
  weft = weft_test_build_path ("weft");
  if (weft == NULL || !g_file_test (weft, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_free (weft);
      weft = g_strdup ("./weft");
    }
  runs = CLAMP (runs, 1, 100);
  printf ("| trace | first frame (main -> frame) | of which load | of which solve | wall (spawn -> exit) |\n");
  printf ("|---|---|---|---|---|\n");
  for (guint t = 0; t < G_N_ELEMENTS (traces); t++)
    {
      g_autofree char *path = weft_test_trace_path (traces[t]);
      g_autofree double *ff = g_new0 (double, runs);
      g_autofree double *ld = g_new0 (double, runs);
      g_autofree double *sv = g_new0 (double, runs);
      g_autofree double *wl = g_new0 (double, runs);
      int ok = 0;

      if (path == NULL)
        {
          printf ("| %s | (not found) | | | |\n", traces[t]);
          continue;
        }
      for (int i = 0; i < runs; i++)
        if (run_once (weft, path, &ff[ok], &ld[ok], &sv[ok], &wl[ok]))
          ok++;
      if (ok == 0)
        return 1;
      qsort (ff, ok, sizeof (double), cmp_double);
      qsort (ld, ok, sizeof (double), cmp_double);
      qsort (sv, ok, sizeof (double), cmp_double);
      qsort (wl, ok, sizeof (double), cmp_double);
      printf ("| %s | %.0f ms | %.0f ms | %.0f ms | %.0f ms |\n", strrchr (traces[t], '/') + 1, ff[ok / 2], ld[ok / 2],
              sv[ok / 2], wl[ok / 2]);
      fflush (stdout);
    }
  /* A 64-rank Llama-3-70B-like FSDP+TP step from the composer (issue 6). */
  {
    g_autofree char *cli = weft_test_build_path ("weft-cli");
    g_autofree char *tmp = g_dir_make_tmp ("weft-bench-c64-XXXXXX", NULL);
    g_autoptr (GError) error = NULL;
    int status = 0;

    if (cli != NULL && tmp != NULL && g_file_test (cli, G_FILE_TEST_IS_EXECUTABLE))
      {
        const char *argv_c[] = { cli, "compose", "-s", "fsdp,tp", "--dp", "8", "--tp", "8", "-p", "llama3-70b",
                                 "-o", tmp, "-q", NULL };
        if (g_spawn_sync (NULL, (char **) argv_c, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL, &status, &error) &&
            status == 0)
          {
            g_autofree double *ff = g_new0 (double, runs);
            g_autofree double *ld = g_new0 (double, runs);
            g_autofree double *sv = g_new0 (double, runs);
            g_autofree double *wl = g_new0 (double, runs);
            int ok = 0;
            for (int i = 0; i < runs; i++)
              if (run_once (weft, tmp, &ff[ok], &ld[ok], &sv[ok], &wl[ok]))
                ok++;
            if (ok > 0)
              {
                qsort (ff, ok, sizeof (double), cmp_double);
                qsort (ld, ok, sizeof (double), cmp_double);
                qsort (sv, ok, sizeof (double), cmp_double);
                qsort (wl, ok, sizeof (double), cmp_double);
                printf ("| composed fsdp+tp llama3-70b, 64 ranks | %.0f ms | %.0f ms | %.0f ms | %.0f ms |\n",
                        ff[ok / 2], ld[ok / 2], sv[ok / 2], wl[ok / 2]);
              }
          }
        {
          g_autofree char *rm = g_strdup_printf ("rm -rf '%s'", tmp);
          if (g_str_has_prefix (tmp, g_get_tmp_dir ()) && strstr (tmp, "weft-bench-c64-") != NULL)
            (void) system (rm);
        }
      }
  }
  printf ("(median of %d runs each)\n", runs);
  return 0;
}
