/* bench-solver.c: the dependency solver's speed.
 *
 *   bench-solver [--ops-per-rank N] [--repeat N] [--out DIR]
 *
 * Inputs: the largest real trace (df_index_resolver.json.gz, through
 * WEFT_TRACES_DIR) and a generated 8-rank step written here as Kineto JSON
 * (N kernels per rank, default 25,600 = 204,800 GPU ops: a compute stream,
 * an NCCL stream with an all-reduce every 64 kernels framed by the
 * ProcessGroupNCCL cudaEventRecord/cudaStreamWaitEvent pattern, all
 * launched from one CPU thread) and loaded with the real loader.
 *
 * Per input: graph build (weft_solver_new: graph, calibration, first solve,
 * baseline metrics), full solve (weft_solver_solve_all: every node in
 * topological order), and incremental re-solves as a drag makes them: a
 * random op's duration + 1 us (weft_solver_set_duration, which re-solves what
 * depends on it) then back; and a random op's minimum start pushed 5 us
 * later; structural edits: an op swapped with its stream successor (cycle
 * check and local repair of the topological order, then the re-solve) and a
 * 10 us kernel inserted before a random op (then deleted, not timed). Medians over --repeat runs (default 201); metrics (interval sweep +
 * critical path) median of 5. Figures in docs/benchmarks.md (## Solver). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <glib/gstdio.h>

#include "../testutil.h"
#include "weft/weft.h"

static double
median_ms (GArray *ns)
{
  g_array_sort (ns, weft_test_cmp_i64);
  return ns->len ? g_array_index (ns, gint64, ns->len / 2) / 1e6 : 0;
}

static gint64
now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (gint64) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void
bench_trace (const char *label, WeftTrace *trace, guint repeat)
{
  g_autoptr (GError) error = NULL;
  WeftSolver *solver;
  GArray *ops = g_array_new (FALSE, FALSE, sizeof (guint64));
  GArray *t_full = g_array_new (FALSE, FALSE, sizeof (gint64));
  GArray *t_dur = g_array_new (FALSE, FALSE, sizeof (gint64));
  GArray *t_min = g_array_new (FALSE, FALSE, sizeof (gint64));
  GArray *t_move = g_array_new (FALSE, FALSE, sizeof (gint64));
  GArray *t_ins = g_array_new (FALSE, FALSE, sizeof (gint64));
  GRand *rand = g_rand_new_with_seed (42);
  gint64 t0, t1, t_build, t_metrics;
  WeftMetrics m;
  guint64 n_events = 0;

  t0 = now_ns ();
  solver = weft_solver_new (trace, &error);
  t1 = now_ns ();
  g_assert_no_error (error);
  t_build = t1 - t0;

  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);
      n_events += rank->events->len;
      for (guint32 i = 0; i < rank->events->len; i++)
        if (weft_solver_is_node (solver, r, i))
          {
            guint64 key = ((guint64) r << 32) | i;
            g_array_append_val (ops, key);
          }
    }

  for (guint k = 0; k < MAX (5u, repeat / 7); k++)
    {
      t0 = now_ns ();
      weft_solver_solve_all (solver);
      t1 = now_ns ();
      g_array_append_val (t_full, (gint64) { t1 - t0 });
    }
  for (guint k = 0; k < repeat; k++)
    {
      guint64 key = g_array_index (ops, guint64, g_rand_int_range (rand, 0, (gint32) ops->len));
      guint r = (guint) (key >> 32);
      guint32 ev = (guint32) key;
      gint64 d = weft_solver_duration (solver, r, ev), s;
      t0 = now_ns ();
      weft_solver_set_duration (solver, r, ev, d + 1000, NULL);
      t1 = now_ns ();
      g_array_append_val (t_dur, (gint64) { t1 - t0 });
      weft_solver_set_duration (solver, r, ev, d, NULL);

      key = g_array_index (ops, guint64, g_rand_int_range (rand, 0, (gint32) ops->len));
      r = (guint) (key >> 32);
      ev = (guint32) key;
      s = weft_solver_start (solver, r, ev);
      t0 = now_ns ();
      weft_solver_set_min_start (solver, r, ev, s + 5000, NULL);
      t1 = now_ns ();
      g_array_append_val (t_min, (gint64) { t1 - t0 });
      weft_solver_set_min_start (solver, r, ev, -1, NULL);
    }
  /* structural: swap a random op with its stream successor (cycle check =
   * a new topological order), then back */
  for (guint k = 0; k < MAX (5u, repeat / 10); k++)
    {
      guint64 key = g_array_index (ops, guint64, g_rand_int_range (rand, 0, (gint32) ops->len));
      guint r = (guint) (key >> 32);
      guint32 ev = (guint32) key;
      guint32 lane = weft_solver_op_lane (solver, r, ev);
      guint pos = weft_solver_op_position (solver, r, ev);
      if (pos + 1 >= weft_solver_lane_n_ops (solver, r, lane))
        continue;
      t0 = now_ns ();
      weft_solver_move_to_position (solver, r, ev, lane, pos + 1, NULL);
      t1 = now_ns ();
      g_array_append_val (t_move, (gint64) { t1 - t0 });
      weft_solver_move_to_position (solver, r, ev, lane, pos, NULL);
    }
  /* insert a 10 us kernel before a random op, then delete it again */
  for (guint k = 0; k < MAX (5u, repeat / 10); k++)
    {
      guint64 key = g_array_index (ops, guint64, g_rand_int_range (rand, 0, (gint32) ops->len));
      guint r = (guint) (key >> 32);
      guint32 ev = (guint32) key;
      WeftSolverOpSpec spec = { "bench_kernel", WEFT_CAT_KERNEL, WEFT_KCLASS_OTHER, 10000, WEFT_NONE };
      guint32 ins;
      t0 = now_ns ();
      ins = weft_solver_insert_op (solver, r, weft_solver_op_lane (solver, r, ev), weft_solver_start (solver, r, ev) - 1,
                                   &spec, NULL);
      t1 = now_ns ();
      g_array_append_val (t_ins, (gint64) { t1 - t0 });
      if (ins != WEFT_NONE)
        weft_solver_remove_op (solver, r, ins, NULL);
    }
  {
    GArray *t_m = g_array_new (FALSE, FALSE, sizeof (gint64));
    guint64 key0 = g_array_index (ops, guint64, 0);
    for (guint k = 0; k < 5; k++)
      {
        /* a change first: metrics are cached per generation */
        guint r0 = (guint) (key0 >> 32);
        guint32 e0 = (guint32) key0;
        weft_solver_set_duration (solver, r0, e0, weft_solver_duration (solver, r0, e0) + (k % 2 ? -1000 : 1000), NULL);
        t0 = now_ns ();
        weft_solver_metrics (solver, WEFT_SOLVER_ALL_RANKS, WEFT_SOLVER_ALL_STEPS, &m);
        t1 = now_ns ();
        g_array_append_val (t_m, (gint64) { t1 - t0 });
      }
    t_metrics = (gint64) (median_ms (t_m) * 1e6);
    g_array_free (t_m, TRUE);
  }

  printf ("| %s | %u | %" G_GUINT64_FORMAT " | %u | %.1f ms | %.2f ms (best %.2f) | %.1f us (p90 %.1f) | %.1f us (p90 %.1f) | %.2f ms | %.2f ms | %.1f ms |\n",
          label, trace->ranks->len, n_events, ops->len, t_build / 1e6, median_ms (t_full), weft_test_pct_ms (t_full, 0.0), median_ms (t_dur) * 1e3,
          weft_test_pct_ms (t_dur, 0.9) * 1e3, median_ms (t_min) * 1e3, weft_test_pct_ms (t_min, 0.9) * 1e3, median_ms (t_move), median_ms (t_ins), t_metrics / 1e6);
  fflush (stdout);
  weft_solver_free (solver);
  g_array_free (ops, TRUE);
  g_array_free (t_full, TRUE);
  g_array_free (t_dur, TRUE);
  g_array_free (t_min, TRUE);
  g_array_free (t_move, TRUE);
  g_array_free (t_ins, TRUE);
  g_rand_free (rand);
}

/* One rank of the generated step (testutil.c; Ampere kernel names). */
static void
write_rank (const char *path, int rank, int world, guint n_ops)
{
  weft_test_write_step_rank (path, rank, world, n_ops, 1000 + rank, "ampere_sgemm_128x64_nn",
                             "void at::native::vectorized_elementwise_kernel<4>()");
}

int
main (int argc, char **argv)
{
  int ops_per_rank = 25600, repeat = 201;
  char *out_dir = NULL;
  GOptionEntry entries[] = {
    { "ops-per-rank", 0, 0, G_OPTION_ARG_INT, &ops_per_rank, "compute kernels per rank of the generated step", "N" },
    { "repeat", 0, 0, G_OPTION_ARG_INT, &repeat, "incremental re-solves measured per input", "N" },
    { "out", 0, 0, G_OPTION_ARG_FILENAME, &out_dir, "write the generated step into DIR (kept) instead of a temporary folder", "DIR" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("- solver benchmark");
  g_autoptr (GError) error = NULL;
  g_autofree char *df = NULL;
  g_autofree char *dir = NULL;

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      fprintf (stderr, "%s\n", error->message);
      return 2;
    }
  printf ("| input | ranks | events | GPU ops | build | full solve | incremental: duration (median) | incremental: "
          "min start (median) | reorder (median) | insert (median) | metrics |\n|---|---|---|---|---|---|---|---|---|---|---|\n");

  df = weft_test_trace_path ("HolisticTraceAnalysis/df_index_resolver/df_index_resolver.json.gz");
  if (df != NULL)
    {
      WeftTrace *trace = weft_trace_load (df, NULL, NULL, &error);
      g_assert_no_error (error);
      bench_trace ("df_index_resolver", trace, (guint) repeat);
      weft_trace_free (trace);
    }
  else
    fprintf (stderr, "df_index_resolver not found (WEFT_TRACES_DIR): skipped\n");

  dir = out_dir ? g_strdup (out_dir) : g_build_filename (weft_test_tmpdir (), "gen8", NULL);
  g_free (out_dir);
  g_mkdir_with_parents (dir, 0755);
  for (int r = 0; r < 8; r++)
    {
      g_autofree char *name = g_strdup_printf ("rank%d_trace.json", r);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      write_rank (path, r, 8, (guint) ops_per_rank);
    }
  {
    WeftTrace *trace = weft_trace_load (dir, NULL, NULL, &error);
    g_autofree char *label = g_strdup_printf ("generated 8 ranks x %d kernels", ops_per_rank);
    g_assert_no_error (error);
    bench_trace (label, trace, (guint) repeat);
    weft_trace_free (trace);
  }
  return 0;
}
