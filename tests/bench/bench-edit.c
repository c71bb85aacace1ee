/* bench-edit.c: the editing core while a collective is dragged.
 *
 *   bench-edit [--ops-per-rank N] [--motions N] [--out DIR]
 *
 * Input: a generated 8-rank step written here as Kineto JSON (N compute
 * kernels per rank, default 25,600: 204,800 compute ops plus an all-reduce
 * every 64 kernels on an NCCL stream, framed by the ProcessGroupNCCL
 * cudaEventRecord/cudaStreamWaitEvent pattern, launched from one CPU
 * thread), loaded with the real loader into a WeftEditSession.
 *
 * Measured per pointer motion, as the window does it (the part of the
 * motion-to-frame latency that is not drawing): inside one gesture,
 * weft_edit_session_move_time of an all-reduce instance on all 8 ranks (history
 * merge + solver incremental re-solve of everything after it on every
 * rank), then weft_edit_session_metrics (the metric chips). Also a drag of
 * the same collective across streams (weft_edit_session_move_to_stream, every rank),
 * the undo and redo of the finished gesture, and a whole-class retime.
 * Medians and p90 over --motions motions (default 201) for a collective in
 * the middle of the step and one near its end. Figures in
 * docs/benchmarks.md (## Editing). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>

#include "../testutil.h"
#include "weft/weft.h"
#include "weft/weft-edit.h"

/* One rank of the generated step (testutil.c; Hopper kernel names). */
static void
write_rank (const char *path, int rank, int world, guint n_ops)
{
  weft_test_write_step_rank (path, rank, world, n_ops, 2000 + rank,
                             "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64",
                             "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16> >");
}

/* The k-th all-reduce member on rank index 0. */
static WeftEventRef
nth_collective (WeftEditSession *s, guint k)
{
  WeftRank *rank = weft_trace_rank (weft_edit_session_get_trace (s), 0);
  WeftCollective *c;
  g_assert_cmpuint (k, <, rank->collectives->len);
  c = &g_array_index (rank->collectives, WeftCollective, k);
  return (WeftEventRef) { 0, c->event };
}

static void
drag_case (WeftEditSession *s, const char *label, WeftEventRef op, guint motions)
{
  WeftSolver *solver = weft_edit_session_get_solver (s);
  g_autoptr (GArray) t_move = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr (GArray) t_frame = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr (GArray) t_stream = g_array_new (FALSE, FALSE, sizeof (gint64));
  gint64 start0 = weft_solver_start (solver, op.rank_index, op.event);
  gint64 t0, t1, t2, t_undo, t_redo, t_sundo, t_sredo;
  WeftMetrics m;

  /* a drag in time: 10 us to 500 us later than where it was, a new
   * position at every motion (later: everything after it moves) */
  weft_edit_session_begin_gesture (s);
  for (guint k = 0; k < motions; k++)
    {
      gint64 at = start0 + (gint64) ((k % 50) + 1) * 10000;
      t0 = weft_test_now_ns ();
      if (!weft_edit_session_move_time (s, op, MAX (at, 0), TRUE, NULL))
        g_error ("move refused");
      t1 = weft_test_now_ns ();
      weft_edit_session_metrics (s, &m, NULL);
      t2 = weft_test_now_ns ();
      g_array_append_val (t_move, (gint64) { t1 - t0 });
      g_array_append_val (t_frame, (gint64) { t2 - t0 });
    }
  weft_edit_session_end_gesture (s);
  t0 = weft_test_now_ns ();
  weft_edit_session_undo (s, NULL);
  t_undo = weft_test_now_ns () - t0;
  t0 = weft_test_now_ns ();
  weft_edit_session_redo (s, NULL);
  t_redo = weft_test_now_ns () - t0;
  weft_edit_session_undo (s, NULL);

  /* a drag across streams, every rank's member (20 <-> 21) */
  weft_edit_session_begin_gesture (s);
  for (guint k = 0; k < MIN (motions, 41u); k++)
    {
      t0 = weft_test_now_ns ();
      if (!weft_edit_session_move_to_stream (s, op, k % 2 ? 20 : 21, -1, TRUE, NULL))
        g_error ("stream move refused");
      t1 = weft_test_now_ns ();
      g_array_append_val (t_stream, (gint64) { t1 - t0 });
    }
  weft_edit_session_end_gesture (s);
  t0 = weft_test_now_ns ();
  weft_edit_session_undo (s, NULL);
  t_sundo = weft_test_now_ns () - t0;
  t0 = weft_test_now_ns ();
  weft_edit_session_redo (s, NULL);
  t_sredo = weft_test_now_ns () - t0;
  weft_edit_session_undo (s, NULL);

  printf ("| %s | %.3f ms (p90 %.3f) | %.3f ms (p90 %.3f) | %.2f / %.2f ms | %.3f ms (p90 %.3f) | %.2f / %.2f ms |\n",
          label, weft_test_pct_ms (t_move, 0.5), weft_test_pct_ms (t_move, 0.9), weft_test_pct_ms (t_frame, 0.5), weft_test_pct_ms (t_frame, 0.9),
          t_undo / 1e6, t_redo / 1e6, weft_test_pct_ms (t_stream, 0.5), weft_test_pct_ms (t_stream, 0.9), t_sundo / 1e6, t_sredo / 1e6);
  fflush (stdout);
}

int
main (int argc, char **argv)
{
  int ops_per_rank = 25600, motions = 201;
  g_autofree char *out_dir = NULL;
  GOptionEntry entries[] = {
    { "ops-per-rank", 0, 0, G_OPTION_ARG_INT, &ops_per_rank, "compute kernels per rank of the generated step", "N" },
    { "motions", 0, 0, G_OPTION_ARG_INT, &motions, "pointer motions per drag", "N" },
    { "out", 0, 0, G_OPTION_ARG_FILENAME, &out_dir, "write the generated step into DIR (kept)", "DIR" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("- editing core benchmark");
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = NULL;
  WeftTrace *trace;
  g_autoptr (WeftEditSession) s = NULL;
  guint n_ops = 0, n_coll;
  gint64 t0, t_load, t_session, t_scale;

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    g_error ("%s", error->message);
  ops_per_rank = CLAMP (ops_per_rank, 128, 10000000);
  motions = CLAMP (motions, 3, 100000);

  dir = out_dir ? g_strdup (out_dir) : g_build_filename (weft_test_tmpdir (), "bench-edit", NULL);
  g_mkdir_with_parents (dir, 0755);
  for (int r = 0; r < 8; r++)
    {
      g_autofree char *name = g_strdup_printf ("rank%d_trace.json", r);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      write_rank (path, r, 8, (guint) ops_per_rank);
    }
  t0 = weft_test_now_ns ();
  trace = weft_trace_load (dir, NULL, NULL, &error);
  t_load = weft_test_now_ns () - t0;
  if (trace == NULL)
    g_error ("%s", error->message);
  t0 = weft_test_now_ns ();
  s = weft_edit_session_new (trace, dir, &error);
  t_session = weft_test_now_ns () - t0;
  if (s == NULL)
    g_error ("%s", error->message);
  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);
      for (guint32 e = 0; e < rank->events->len; e++)
        if (weft_solver_is_node (weft_edit_session_get_solver (s), r, e))
          n_ops++;
    }
  n_coll = weft_trace_rank (trace, 0)->collectives->len;
  printf ("generated 8 ranks x %d kernels: %u GPU ops, %u all-reduce instances; load %.0f ms, session (solver) %.0f ms\n\n",
          ops_per_rank, n_ops, trace->instances->len, t_load / 1e6, t_session / 1e6);
  printf ("| dragged op | move in time (edit + re-solve) | move + metrics (per motion) | undo / redo the drag | move to stream | undo / redo the stream drag |\n");
  printf ("|---|---|---|---|---|---|\n");
  drag_case (s, "middle of the step", nth_collective (s, n_coll / 2), (guint) motions);
  drag_case (s, "near the end", nth_collective (s, n_coll - 2), (guint) motions);
  {
    /* the worst case: a compute kernel early in rank 0's step drags everything after it, and
     * through the all-reduces every other rank too */
    WeftRank *rank0 = weft_trace_rank (trace, 0);
    WeftEventRef k = { 0, WEFT_NONE };
    guint seen = 0;
    for (guint32 e = 0; e < rank0->events->len && k.event == WEFT_NONE; e++)
      if (weft_solver_is_node (weft_edit_session_get_solver (s), 0, e) && weft_rank_event_coll (rank0, e) == WEFT_NONE &&
          ++seen == (guint) ops_per_rank / 10)
        k.event = e;
    g_assert_cmpuint (k.event, !=, WEFT_NONE);
    drag_case (s, "(a compute kernel at 10% of rank 0's step)", k, (guint) motions);
  }

  t0 = weft_test_now_ns ();
  weft_edit_session_scale_class (s, WEFT_KCLASS_GEMM, 0.8, NULL, NULL);
  t_scale = weft_test_now_ns () - t0;
  t0 = weft_test_now_ns ();
  weft_edit_session_undo (s, NULL);
  printf ("\nscale every GEMM x0.8 (%u ops): %.1f ms, undo %.1f ms\n", n_ops * 2 / 3, t_scale / 1e6,
          (weft_test_now_ns () - t0) / 1e6);
  return 0;
}
