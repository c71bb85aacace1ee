/* test-diff.c: the comparison of two traces (weft-diff.h) and the solver's
 * breakdown (weft_solver_breakdown) on real files: the bundled composed
 * samples (data/samples) through the real loader, and the shared traces.
 *
 * Properties: a trace against itself (two loads) matches every op with its
 * own index, with equal figures; the breakdown agrees with the metrics
 * (communication exposed = exposed communication, counts = the step's ops);
 * an edited session against its trace as loaded pairs the moved op with its
 * origin (on another stream: a rank match), reports the session's metrics,
 * and after undoing everything matches the loaded trace again. */
#include "config.h"

#include <string.h>

#include "testutil.h"

static WeftTrace *
load (const char *path)
{
  g_autoptr (GError) error = NULL;
  WeftTrace *t = weft_trace_load (path, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (t);
  return t;
}

static char *
sample_path (const char *name)
{
  return g_build_filename (WEFT_SOURCE_DIR, "data", "samples", name, NULL);
}

static WeftSolver *
solver_of (WeftTrace *t)
{
  g_autoptr (GError) error = NULL;
  WeftSolver *s = weft_solver_new (t, &error);
  g_assert_no_error (error);
  g_assert_nonnull (s);
  return s;
}

static void
assert_metrics_equal (const WeftMetrics *a, const WeftMetrics *b)
{
  g_assert_cmpint (a->step_time, ==, b->step_time);
  g_assert_cmpint (a->begin, ==, b->begin);
  g_assert_cmpint (a->gpu_span, ==, b->gpu_span);
  g_assert_cmpint (a->compute, ==, b->compute);
  g_assert_cmpint (a->comm, ==, b->comm);
  g_assert_cmpint (a->exposed_comm, ==, b->exposed_comm);
  g_assert_cmpint (a->idle, ==, b->idle);
  g_assert_cmpint (a->cp_length, ==, b->cp_length);
  g_assert_cmpfloat (a->overlap_pct, ==, b->overlap_pct);
}

/* A trace against a second load of itself, for one step. */
static void
check_self (const char *path, int step)
{
  g_autoptr (WeftTrace) ta = load (path);
  g_autoptr (WeftTrace) tb = load (path);
  g_autoptr (WeftSolver) sa = solver_of (ta);
  g_autoptr (WeftSolver) sb = solver_of (tb);
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftDiff) d = weft_diff_new (sa, step, sb, step, &error);
  g_autofree char *summary = NULL;
  WeftDiffCounts c;
  WeftMetrics ma, mb;
  guint n, compared = 0;
  const WeftDiffRow *rows;

  g_assert_no_error (error);
  g_assert_nonnull (d);
  weft_diff_counts (d, &c);
  g_assert_cmpuint (c.kernels_a_only + c.kernels_b_only + c.collectives_a_only + c.collectives_b_only, ==, 0);
  g_assert_cmpuint (c.kernels_other_stream, ==, 0);
  g_assert_cmpuint (weft_diff_n_matches (d), ==, c.kernels_matched + c.collectives_matched);
  g_assert_cmpuint (weft_diff_n_matches (d), >, 0);
  /* every compared op is matched with its own index, on the same rank */
  for (guint r = 0; r < ta->ranks->len; r++)
    for (guint32 e = 0; e < weft_trace_rank (ta, r)->events->len; e++)
      {
        guint orank = G_MAXUINT;
        guint32 oev = WEFT_NONE;
        WeftDiffMatchKind kind;
        gboolean in_step;
        if (!weft_solver_is_node (sa, r, e))
          {
            g_assert_false (weft_diff_is_compared (d, WEFT_DIFF_A, r, e));
            continue;
          }
        in_step = step == WEFT_SOLVER_ALL_STEPS || weft_solver_op_step (sa, r, e) == step;
        g_assert_cmpint (weft_diff_is_compared (d, WEFT_DIFF_A, r, e), ==, in_step);
        if (!in_step)
          continue;
        compared++;
        g_assert_true (weft_diff_counterpart (d, WEFT_DIFF_A, r, e, &orank, &oev, &kind));
        g_assert_cmpuint (orank, ==, r);
        g_assert_cmpuint (oev, ==, e);
        g_assert_true (kind == WEFT_DIFF_MATCH_STREAM || kind == WEFT_DIFF_MATCH_COLLECTIVE);
        g_assert_true (weft_diff_counterpart (d, WEFT_DIFF_B, r, e, &orank, &oev, NULL));
        g_assert_cmpuint (oev, ==, e);
      }
  g_assert_cmpuint (compared, ==, weft_diff_n_matches (d));
  g_assert_true (weft_diff_whole (d, WEFT_DIFF_A, &ma));
  g_assert_true (weft_diff_whole (d, WEFT_DIFF_B, &mb));
  assert_metrics_equal (&ma, &mb);
  g_assert_cmpint (weft_diff_origin (d, WEFT_DIFF_A, WEFT_DIFF_ALIGN_STEP), ==, ma.begin);
  for (guint i = 0; i < weft_diff_n_ranks (d); i++)
    {
      const WeftDiffRank *dr = weft_diff_rank (d, i);
      g_assert_cmpuint (dr->rank_index_a, ==, dr->rank_index_b);
      g_assert_true (dr->has_a == dr->has_b);
      if (dr->has_a)
        assert_metrics_equal (&dr->a, &dr->b);
      g_assert_true (weft_diff_rank_of (d, WEFT_DIFF_A, dr->rank_index_a) == dr);
    }
  for (int coll = 0; coll < 2; coll++)
    {
      rows = weft_diff_rows (d, coll, &n);
      for (guint i = 0; i < n; i++)
        {
          g_assert_cmpuint (rows[i].a.count, ==, rows[i].b.count);
          g_assert_cmpint (rows[i].a.total, ==, rows[i].b.total);
          g_assert_cmpint (weft_diff_row_contribution (&rows[i]), ==, 0);
        }
    }
  summary = weft_diff_summary (d);
  g_test_message ("%s step %d: %s", path, step, summary);
  g_assert_nonnull (strstr (summary, "same step time"));
  g_assert_nonnull (strstr (summary, "every op matched"));
}

static void
test_self_samples (void)
{
  static const char *samples[] = { "fsdp-llama3-8b", "tp-llama3-8b", "ep-moe" };
  for (guint i = 0; i < G_N_ELEMENTS (samples); i++)
    {
      g_autofree char *path = sample_path (samples[i]);
      g_autoptr (WeftTrace) t = load (path);
      g_autoptr (WeftSolver) s = solver_of (t);
      g_autoptr (GArray) steps = weft_solver_steps (s);
      check_self (path, WEFT_SOLVER_ALL_STEPS);
      if (steps->len > 0)
        check_self (path, g_array_index (steps, int, 0));
    }
}

static void
test_self_shared (void)
{
  static const char *traces[] = { "synthetic/fsdp8", "HolisticTraceAnalysis/nccl_parser_config/nccl_data.json.gz" };
  for (guint i = 0; i < G_N_ELEMENTS (traces); i++)
    {
      g_autofree char *path = weft_test_trace_path (traces[i]);
      if (path == NULL)
        {
          g_test_message ("SKIP: %s absent", traces[i]);
          continue;
        }
      check_self (path, WEFT_SOLVER_ALL_STEPS);
    }
}

/* The breakdown agrees with the metrics, rank by rank. */
static void
test_breakdown_metrics (void)
{
  static const char *samples[] = { "fsdp-llama3-8b", "ddp-llama3-8b", "cp-ring-llama3-8b", "ep-moe" };
  for (guint i = 0; i < G_N_ELEMENTS (samples); i++)
    {
      g_autofree char *path = sample_path (samples[i]);
      g_autoptr (WeftTrace) t = load (path);
      g_autoptr (WeftSolver) s = solver_of (t);
      g_autoptr (GArray) steps = weft_solver_steps (s);
      int step = steps->len ? g_array_index (steps, int, 0) : WEFT_SOLVER_ALL_STEPS;
      for (guint r = 0; r < t->ranks->len; r++)
        {
          WeftMetrics m;
          WeftSolverBreakdown b;
          guint n_ops = 0, n_class = 0, n_coll = 0;
          gint64 comm_exposed = 0;
          WeftRank *rank = weft_trace_rank (t, r);
          g_assert_true (weft_solver_metrics (s, r, step, &m));
          g_assert_true (weft_solver_breakdown (s, r, step, &b));
          g_assert_cmpuint (b.n_ranks, ==, 1);
          /* communication's exposed time is the metrics' exposed communication */
          g_assert_cmpint (b.kclass[WEFT_KCLASS_COMM].exposed, ==, m.exposed_comm);
          for (guint c = 0; c < WEFT_KCLASS_N_CLASSES; c++)
            {
              n_class += b.kclass[c].count;
              g_assert_cmpint (b.kclass[c].exposed, <=, b.kclass[c].total);
              g_assert_cmpint (b.kclass[c].exposed, >=, 0);
            }
          for (guint c = 0; c < WEFT_COLL_N_TYPES; c++)
            {
              n_coll += b.coll[c].count;
              comm_exposed += b.coll[c].exposed;
            }
          g_assert_cmpuint (n_coll, ==, b.kclass[WEFT_KCLASS_COMM].count);
          /* types overlapping each other count their common time in each */
          g_assert_cmpint (comm_exposed, >=, m.exposed_comm);
          for (guint32 e = 0; e < rank->events->len; e++)
            if (weft_solver_is_node (s, r, e) && weft_solver_op_step (s, r, e) == step)
              n_ops++;
          g_assert_cmpuint (n_class, ==, n_ops);
        }
      {
        WeftMetrics m;
        WeftSolverBreakdown b;
        g_assert_true (weft_solver_metrics (s, WEFT_SOLVER_ALL_RANKS, step, &m));
        g_assert_true (weft_solver_breakdown (s, WEFT_SOLVER_ALL_RANKS, step, &b));
        g_assert_cmpuint (b.n_ranks, ==, m.n_ranks);
        /* the mean over ranks, rounded per figure as the metrics' */
        g_assert_cmpint (ABS (b.kclass[WEFT_KCLASS_COMM].exposed - m.exposed_comm), <=, 1);
      }
    }
}

/* The first compute kernel of rank index 0 in step that is not a collective,
 * after skip such kernels. */
static WeftEventRef
compute_op (WeftSolver *s, WeftTrace *t, int step, guint skip)
{
  WeftRank *rank = weft_trace_rank (t, 0);
  for (guint32 e = 0; e < rank->events->len; e++)
    {
      const WeftEvent *ev = weft_rank_event (rank, e);
      if (!weft_solver_is_node (s, 0, e) || weft_event_coll (rank, ev) != WEFT_NONE || ev->kclass != WEFT_KCLASS_GEMM ||
          (step != WEFT_SOLVER_ALL_STEPS && weft_solver_op_step (s, 0, e) != step))
        continue;
      if (skip-- == 0)
        return (WeftEventRef) { 0, e };
    }
  g_assert_not_reached ();
  return (WeftEventRef) { 0, WEFT_NONE };
}

/* An edited session against its trace as loaded (a second load). */
static void
test_edited_session (void)
{
  g_autofree char *path = sample_path ("fsdp-llama3-8b");
  g_autoptr (WeftTrace) ta = load (path);
  g_autoptr (WeftSolver) sa = solver_of (ta);
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftEditSession) session = weft_edit_session_new (load (path), path, &error);
  WeftSolver *sb;
  g_autoptr (GArray) steps = NULL;
  WeftEventRef moved, shifted;
  guint orank;
  guint32 oev;
  WeftDiffMatchKind kind;
  WeftMetrics m, ms;
  WeftDiffCounts c;
  gint64 ref_start;
  int step;

  g_assert_no_error (error);
  sb = weft_edit_session_get_solver (session);
  steps = weft_solver_steps (sa);
  step = steps->len ? g_array_index (steps, int, 0) : WEFT_SOLVER_ALL_STEPS;
  moved = compute_op (sb, weft_edit_session_get_trace (session), step, 0);
  shifted = compute_op (sb, weft_edit_session_get_trace (session), step, 5);
  ref_start = weft_solver_start (sb, shifted.rank_index, shifted.event);
  g_assert_true (weft_edit_session_move_to_stream (session, moved, 4242, -1, FALSE, &error));
  g_assert_no_error (error);
  g_assert_true (weft_edit_session_move_time (session, shifted, ref_start + 2000000, FALSE, &error));
  g_assert_no_error (error);

  {
    g_autoptr (WeftDiff) d = weft_diff_new (sa, step, sb, step, &error);
    g_autofree char *summary = NULL;
    g_assert_no_error (error);
    weft_diff_counts (d, &c);
    g_assert_cmpuint (c.kernels_a_only + c.kernels_b_only + c.collectives_a_only + c.collectives_b_only, ==, 0);
    g_assert_cmpuint (c.kernels_other_stream, ==, 1);
    /* the moved op: its origin, on another stream */
    g_assert_true (weft_diff_counterpart (d, WEFT_DIFF_B, moved.rank_index, moved.event, &orank, &oev, &kind));
    g_assert_cmpuint (oev, ==, moved.event);
    g_assert_cmpint (kind, ==, WEFT_DIFF_MATCH_RANK);
    g_assert_true (weft_diff_counterpart (d, WEFT_DIFF_A, moved.rank_index, moved.event, &orank, &oev, &kind));
    g_assert_cmpint (kind, ==, WEFT_DIFF_MATCH_RANK);
    /* the shifted op: its origin, 2 ms later against the same step start */
    g_assert_true (weft_diff_counterpart (d, WEFT_DIFF_B, shifted.rank_index, shifted.event, &orank, &oev, &kind));
    g_assert_cmpuint (oev, ==, shifted.event);
    g_assert_cmpint (kind, ==, WEFT_DIFF_MATCH_STREAM);
    g_assert_cmpint (weft_diff_origin (d, WEFT_DIFF_A, WEFT_DIFF_ALIGN_STEP), ==,
                     weft_diff_origin (d, WEFT_DIFF_B, WEFT_DIFF_ALIGN_STEP));
    g_assert_cmpint (weft_solver_start (sb, shifted.rank_index, shifted.event) -
                         weft_solver_start (sa, shifted.rank_index, shifted.event), >=, 2000000);
    /* B's figures are the session's */
    g_assert_true (weft_diff_whole (d, WEFT_DIFF_B, &m));
    g_assert_true (weft_solver_metrics (sb, WEFT_SOLVER_ALL_RANKS, step, &ms));
    assert_metrics_equal (&m, &ms);
    g_assert_true (weft_diff_whole (d, WEFT_DIFF_A, &m));
    g_assert_cmpint (ms.step_time, >, m.step_time);
    summary = weft_diff_summary (d);
    g_test_message ("edited: %s", summary);
    g_assert_true (g_str_has_prefix (summary, "B is "));
    g_assert_nonnull (strstr (summary, "slower"));
  }

  /* undo of everything: the trace as loaded again */
  while (weft_edit_session_can_undo (session))
    {
      g_assert_true (weft_edit_session_undo (session, &error));
      g_assert_no_error (error);
    }
  {
    g_autoptr (WeftDiff) d = weft_diff_new (sa, step, sb, step, &error);
    g_assert_no_error (error);
    weft_diff_counts (d, &c);
    g_assert_cmpuint (c.kernels_a_only + c.kernels_b_only + c.collectives_a_only + c.collectives_b_only, ==, 0);
    g_assert_cmpuint (c.kernels_other_stream, ==, 0);
    g_assert_true (weft_diff_whole (d, WEFT_DIFF_A, &m));
    g_assert_true (weft_diff_whole (d, WEFT_DIFF_B, &ms));
    assert_metrics_equal (&m, &ms);
  }
}

/* A deleted op is of A only; the others keep their counterparts. */
static void
test_deleted_op (void)
{
  g_autofree char *path = sample_path ("fsdp-llama3-8b");
  g_autoptr (WeftTrace) ta = load (path);
  g_autoptr (WeftSolver) sa = solver_of (ta);
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftEditSession) session = weft_edit_session_new (load (path), path, &error);
  WeftSolver *sb = weft_edit_session_get_solver (session);
  WeftEventRef gone = compute_op (sb, weft_edit_session_get_trace (session), WEFT_SOLVER_ALL_STEPS, 3);
  g_autoptr (WeftDiff) d = NULL;
  WeftDiffCounts c;
  guint32 oev;

  g_assert_true (weft_edit_session_delete (session, &gone, 1, &error));
  g_assert_no_error (error);
  d = weft_diff_new (sa, WEFT_SOLVER_ALL_STEPS, sb, WEFT_SOLVER_ALL_STEPS, &error);
  g_assert_no_error (error);
  weft_diff_counts (d, &c);
  g_assert_cmpuint (c.kernels_a_only, ==, 1);
  g_assert_cmpuint (c.kernels_b_only + c.collectives_a_only + c.collectives_b_only, ==, 0);
  g_assert_true (weft_diff_is_compared (d, WEFT_DIFF_A, gone.rank_index, gone.event));
  g_assert_false (weft_diff_counterpart (d, WEFT_DIFF_A, gone.rank_index, gone.event, NULL, NULL, NULL));
  /* the kernels of the same name around it still pair with themselves */
  for (guint32 e = 0; e < weft_trace_rank (ta, 0)->events->len; e++)
    if (e != gone.event && weft_diff_is_compared (d, WEFT_DIFF_A, 0, e))
      {
        g_assert_true (weft_diff_counterpart (d, WEFT_DIFF_A, 0, e, NULL, &oev, NULL));
        g_assert_cmpuint (oev, ==, e);
      }
}

static void
test_bad_step (void)
{
  g_autofree char *path = sample_path ("ddp-llama3-8b");
  g_autoptr (WeftTrace) t = load (path);
  g_autoptr (WeftSolver) s = solver_of (t);
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftDiff) d = weft_diff_new (s, 987654, s, 987654, &error);
  WeftDiffAlign al;
  g_assert_null (d);
  g_assert_error (error, WEFT_ERROR, WEFT_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "ProfilerStep#987654"));
  g_assert_true (weft_diff_align_from_string ("first-collective", &al));
  g_assert_cmpint (al, ==, WEFT_DIFF_ALIGN_FIRST_COLLECTIVE);
  g_assert_cmpstr (weft_diff_align_to_string (al), ==, "first-collective");
  g_assert_false (weft_diff_align_from_string ("sideways", &al));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/diff/self-samples", test_self_samples);
  g_test_add_func ("/diff/self-shared", test_self_shared);
  g_test_add_func ("/diff/breakdown-metrics", test_breakdown_metrics);
  g_test_add_func ("/diff/edited-session", test_edited_session);
  g_test_add_func ("/diff/deleted-op", test_deleted_op);
  g_test_add_func ("/diff/bad-step", test_bad_step);
  return g_test_run ();
}
