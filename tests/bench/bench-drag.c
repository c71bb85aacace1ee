/* bench-drag.c: the editing core of the window's collective drag on the
 * trace of tests/bench/bench-ui-drag.sh, without the window.
 *
 *   bench-drag [--dir DIR] [--motions N] [--step-us US] [--which first|middle|last] [--rank R]
 *              [--cold MB] [--out DIR]
 *
 * Input: the 8-rank FSDP step of bench-ui-drag.sh (what `weft-cli compose -s
 * fsdp --dp 8 --layers 64 --steps 9` writes: llama3-8b shapes, ~205k GPU
 * ops), composed here into --out (default a temporary folder, removed) and
 * loaded with the real loader; or an existing trace (folder or file) with
 * --dir (its all-gathers, or its collectives where it has none).
 *
 * At the press, weft_solver_prepare (timed: it builds the solve plan), as
 * the window's drag_begin_cb does. Per pointer motion, the call sequence
 * of the window's drag (weft-timeline-view.c drag_update_cb /
 * drag_edit_update): inside one
 * gesture (weft_edit_session_begin_gesture once), weft_edit_session_move_time of the
 * grabbed all-gather with whole_instance TRUE (every rank's member moves)
 * to its start at the press + the total pointer offset. The all-gather is
 * the first one of rank 0 in time order (the one Ctrl+F finds first, as in
 * bench-ui-drag.sh), or the one in the middle / at the end. --step-us is
 * the offset added per motion (default 20 us: 3 px at the script's zoom).
 * --rank grabs the member of another rank; --cold writes MB of other
 * memory between motions, as the window's repaint does (the solver then
 * starts each motion with cold caches).
 * Prints median, p90 and max of the motion times, then the undo/redo of
 * the gesture. Figures in docs/benchmarks.md (## Editing). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>

#include "../testutil.h"
#include "weft/weft.h"
#include "weft/weft-compose.h"
#include "weft/weft-edit.h"

typedef struct
{
  gint64   start;
  WeftEventRef op;
} Cand;

static gint
cmp_cand (gconstpointer a, gconstpointer b)
{
  return weft_test_cmp_i64 (&((const Cand *) a)->start, &((const Cand *) b)->start);
}

static void
rm_rf (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  if (d == NULL)
    return;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *p = g_build_filename (dir, name, NULL);
      if (g_file_test (p, G_FILE_TEST_IS_DIR))
        rm_rf (p);
      else
        g_unlink (p);
    }
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_autofree char *dir_opt = NULL, *out_opt = NULL, *which = NULL, *tmp = NULL, *written = NULL;
  int motions = 120, rank_opt = 0, cold_mb = 0;
  double step_us = 20.0;
  GOptionEntry entries[] = {
    { "dir", 0, 0, G_OPTION_ARG_FILENAME, &dir_opt, "Trace folder to load (default: compose it)", "DIR" },
    { "out", 0, 0, G_OPTION_ARG_FILENAME, &out_opt, "Compose into DIR and keep it", "DIR" },
    { "motions", 0, 0, G_OPTION_ARG_INT, &motions, "Pointer motions (default 120)", "N" },
    { "step-us", 0, 0, G_OPTION_ARG_DOUBLE, &step_us, "Offset per motion in us (default 20)", "US" },
    { "which", 0, 0, G_OPTION_ARG_STRING, &which, "first, middle or last all-gather of the rank", "WHICH" },
    { "rank", 0, 0, G_OPTION_ARG_INT, &rank_opt, "Rank index of the grabbed member (default 0)", "R" },
    { "cold", 0, 0, G_OPTION_ARG_INT, &cold_mb, "Write MB of other memory between motions (the window repaints there)", "MB" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("- the window's collective drag, without the window");
  g_autoptr (GError) error = NULL;
  WeftTrace *trace;   /* the session owns it */
  g_autofree volatile char *cold = NULL;
  g_autoptr (GArray) cands = g_array_new (FALSE, FALSE, sizeof (Cand));
  g_autoptr (GArray) times = g_array_new (FALSE, FALSE, sizeof (gint64));
  WeftEditSession *s;
  WeftSolver *solver;
  WeftRank *rank0;
  const char *dir;
  gint64 t0, t_load, t_session, orig;
  guint64 n_ops = 0;
  Cand c;

  setvbuf (stdout, NULL, _IOLBF, 0);
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || motions < 1)
    {
      fprintf (stderr, "bench-drag: %s\n", error != NULL ? error->message : "--motions must be >= 1");
      return 2;
    }

  if (dir_opt != NULL)
    dir = dir_opt;
  else
    {
      WeftComposeParams p;
      const char *out = out_opt;
      weft_compose_params_init (&p);
      if (!weft_compose_parse_strategies ("fsdp", &p.strategies, &error))
        g_error ("%s", error->message);
      p.dp = 8;
      p.tp = p.cp = p.ep = p.dp_replicate = 1;
      p.model.layers = 64;
      p.steps = 9;
      if (p.iteration < p.steps)
        p.iteration = p.steps;
      if (out == NULL)
        out = tmp = g_dir_make_tmp ("bench-drag-XXXXXX", &error);
      if (out == NULL)
        g_error ("%s", error->message);
      t0 = weft_test_now_ns ();
      if (!weft_compose_write (&p, out, ".json", &written, &error))
        g_error ("compose: %s", error->message);
      printf ("composed %s in %.2f s\n", written, (weft_test_now_ns () - t0) / 1e9);
      dir = written;
    }

  t0 = weft_test_now_ns ();
  trace = weft_trace_load (dir, NULL, NULL, &error);
  if (trace == NULL)
    g_error ("%s", error->message);
  t_load = weft_test_now_ns () - t0;
  t0 = weft_test_now_ns ();
  s = weft_edit_session_new (trace, dir, &error);
  if (s == NULL)
    g_error ("%s", error->message);
  t_session = weft_test_now_ns () - t0;
  solver = weft_edit_session_get_solver (s);
  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);
      for (guint e = 0; e < rank->events->len; e++)
        n_ops += weft_solver_is_node (solver, r, e);
    }

  if (rank_opt < 0 || (guint) rank_opt >= trace->ranks->len)
    g_error ("--rank %d: the trace has %u ranks", rank_opt, trace->ranks->len);
  rank0 = weft_trace_rank (trace, rank_opt);
  /* the rank's all-gathers; on a trace without any, its collectives */
  for (int any = 0; any < 2 && cands->len == 0; any++)
  for (guint e = 0; e < rank0->events->len; e++)
    {
      WeftEvent *ev = weft_rank_event (rank0, e);
      if (!weft_solver_is_node (solver, rank_opt, e) || weft_event_coll (rank0, ev) == WEFT_NONE ||
          (!any && strstr (weft_rank_string (rank0, ev->name), "AllGather") == NULL))
        continue;
      c.op.rank_index = rank_opt;
      c.op.event = e;
      c.start = weft_solver_start (solver, rank_opt, e);
      g_array_append_val (cands, c);
    }
  if (cands->len == 0)
    g_error ("no collective on rank index %d", rank_opt);
  g_array_sort (cands, cmp_cand);
  if (which != NULL && g_str_equal (which, "middle"))
    c = g_array_index (cands, Cand, cands->len / 2);
  else if (which != NULL && g_str_equal (which, "last"))
    c = g_array_index (cands, Cand, cands->len - 1);
  else
    c = g_array_index (cands, Cand, 0);
  printf ("trace: %u ranks, %" G_GUINT64_FORMAT " GPU ops, %u instances; load %.2f s, session %.0f ms\n",
          trace->ranks->len, n_ops, trace->instances->len, t_load / 1e9, t_session / 1e6);
  printf ("dragging '%.50s' (rank index %d event %u, %s of %u candidates) at %.3f ms, %d motions of %.1f us%s\n",
          weft_rank_string (rank0, weft_rank_event (rank0, c.op.event)->name), rank_opt, c.op.event,
          which != NULL ? which : "first", cands->len, c.start / 1e6, motions, step_us,
          cold_mb > 0 ? ", caches flushed between motions" : "");
  if (cold_mb > 0)
    cold = g_malloc0 ((gsize) cold_mb << 20);

  orig = c.start;
  /* the window prepares the solver when the button goes down on the op */
  t0 = weft_test_now_ns ();
  weft_solver_prepare (solver);
  printf ("  prepare (solve plan) %.3f ms\n", (weft_test_now_ns () - t0) / 1e6);
  weft_edit_session_begin_gesture (s);
  for (int i = 1; i <= motions; i++)
    {
      gint64 at = orig + (gint64) (i * step_us * 1000);
      if (cold != NULL)
        for (gsize k = 0; k < ((gsize) cold_mb << 20); k += 64)
          cold[k]++;
      t0 = weft_test_now_ns ();
      if (!weft_edit_session_move_time (s, c.op, at, TRUE, &error))
        g_error ("motion %d: %s", i, error->message);
      g_array_append_val (times, (gint64) { weft_test_now_ns () - t0 });
    }
  weft_edit_session_end_gesture (s);
  printf ("  move_time per motion: median %.3f ms, p90 %.3f ms, max %.3f ms (n %u); op now at %.3f ms\n",
          weft_test_pct_ms (times, 0.5), weft_test_pct_ms (times, 0.9), weft_test_pct_ms (times, 1.0), times->len,
          weft_solver_start (solver, rank_opt, c.op.event) / 1e6);

  t0 = weft_test_now_ns ();
  if (!weft_edit_session_undo (s, &error))
    g_error ("undo: %s", error->message);
  t_load = weft_test_now_ns () - t0;
  t0 = weft_test_now_ns ();
  if (!weft_edit_session_redo (s, &error))
    g_error ("redo: %s", error->message);
  printf ("  undo %.3f ms, redo %.3f ms\n", t_load / 1e6, (weft_test_now_ns () - t0) / 1e6);

  weft_edit_session_free (s);
  if (tmp != NULL)
    rm_rf (tmp);
  return 0;
}
