/* test-tables.c: the tables of a solved trace (weft-tables.h) and the
 * explanations (weft_solver_succs, weft_solver_path_reason), on real
 * traces: the 8-rank DLRM job and the simulated FSDP2 step. Properties:
 * the tables agree with the solver's own figures (instance info, times),
 * partition what they group, the dependents mirror the dependencies, and
 * each critical-path segment's reason names what the graph says. */
#include "config.h"

#include <string.h>

#include "testutil.h"

#define DLRM "param/et_replay/tests/inputs/dlrm_kineto"
#define FSDP "synthetic/fsdp8/profiling/traces/iteration_10"

static WeftTrace *
load (const char *path)
{
  g_autoptr (GError) error = NULL;
  WeftTrace *trace = weft_trace_load (path, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (trace);
  return trace;
}

static WeftSolver *
solver_for (WeftTrace *trace)
{
  g_autoptr (GError) error = NULL;
  WeftSolver *solver = weft_solver_new (trace, &error);
  g_assert_no_error (error);
  return solver;
}

/* Every live instance is one row; each row is the solver's instance info,
 * its last event is the straggler's kernel arriving last. */
static void
check_collective_rows (WeftSolver *solver, WeftTrace *trace)
{
  g_autoptr (GArray) rows = weft_solver_collective_rows (solver, WEFT_SOLVER_ALL_STEPS);
  guint live = 0;

  for (guint32 i = 0; i < trace->instances->len; i++)
    {
      WeftSolverInstanceInfo info;
      live += weft_solver_instance_info (solver, i, &info, NULL, 0);
    }
  g_assert_cmpuint (rows->len, ==, live);
  g_assert_cmpuint (rows->len, >, 0);
  for (guint i = 0; i < rows->len; i++)
    {
      const WeftCollectiveRow *row = &g_array_index (rows, WeftCollectiveRow, i);
      WeftSolverInstanceInfo info;
      g_assert_true (weft_solver_instance_info (solver, row->instance, &info, NULL, 0));
      g_assert_cmpint (row->type, ==, info.type);
      g_assert_cmpint (row->max_wait, ==, info.max_wait);
      g_assert_cmpint (row->transfer, ==, info.transfer);
      g_assert_cmpuint (row->last_rank_index, ==, info.last_rank_index);
      g_assert_cmpuint (row->n_members, ==, info.n_members);
      g_assert_nonnull (row->group);
      g_assert_nonnull (row->group_desc);
      g_assert_cmpuint (row->last_event, !=, WEFT_NONE);
      g_assert_cmpint (weft_solver_ready (solver, row->last_rank_index, row->last_event), ==, info.last_arrival);
      if (i > 0)
        g_assert_cmpint (g_array_index (rows, WeftCollectiveRow, i - 1).end, <=, row->end);
    }
}

/* The kernel rows partition the GPU ops: counts and totals add up to the
 * ops' and their durations; longest total first; share = total / (span x ranks). */
static void
check_kernel_rows (WeftSolver *solver, WeftTrace *trace)
{
  g_autoptr (GArray) rows = weft_solver_kernel_rows (solver, WEFT_SOLVER_ALL_STEPS);
  guint n_ops = 0, n_rows = 0;
  gint64 total = 0, sum = 0;
  WeftTimeSpan span = weft_solver_span (solver);
  g_autoptr (GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);
      for (guint32 e = 0; e < rank->events->len; e++)
        if (weft_solver_is_node (solver, r, e))
          {
            n_ops++;
            total += weft_solver_end (solver, r, e) - weft_solver_start (solver, r, e);
            g_hash_table_add (names, (gpointer) weft_rank_string (rank, weft_rank_event (rank, e)->name));
          }
    }
  for (guint i = 0; i < rows->len; i++)
    {
      const WeftKernelRow *row = &g_array_index (rows, WeftKernelRow, i);
      n_rows += row->count;
      sum += row->total;
      g_assert_cmpint (row->mean, ==, row->total / row->count);
      g_assert_cmpint (row->max, <=, row->total);
      g_assert_cmpfloat_with_epsilon (row->share, (double) row->total / ((double) (span.end - span.begin) * trace->ranks->len), 1e-9);
      g_assert_cmpstr (weft_rank_string (weft_trace_rank (trace, row->first_rank_index),
                                         weft_rank_event (weft_trace_rank (trace, row->first_rank_index), row->first_event)->name),
                       ==, row->name);
      if (i > 0)
        g_assert_cmpint (g_array_index (rows, WeftKernelRow, i - 1).total, >=, row->total);
    }
  g_assert_cmpuint (n_rows, ==, n_ops);
  g_assert_cmpint (sum, ==, total);
  g_assert_cmpuint (rows->len, ==, g_hash_table_size (names));
}

/* The slices of a range overlap it and are of the kind asked; the whole
 * span holds every slice; the kinds GPU and CPU do not share a slice;
 * a limit keeps the first ones and says how many there are. */
static void
check_range_slices (WeftSolver *solver, WeftTrace *trace)
{
  WeftTimeSpan span = weft_solver_span (solver), all = { G_MININT64 / 4, G_MAXINT64 / 4 }, mid;
  guint n_all = 0, n_total = 0;
  g_autoptr (GArray) every = weft_solver_range_slices (solver, all, WEFT_SLICE_KIND_ALL, 0, &n_total);
  g_autoptr (GArray) gpu = NULL;
  g_autoptr (GArray) cpu = NULL;
  g_autoptr (GArray) coll = NULL;
  g_autoptr (GArray) first = NULL;

  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);
      for (guint32 e = 0; e < rank->events->len; e++)
        n_all += weft_event_is_kind (rank, weft_rank_event (rank, e), WEFT_SLICE_KIND_ALL);
    }
  g_assert_cmpuint (every->len, ==, n_all);
  g_assert_cmpuint (n_total, ==, n_all);

  mid.begin = span.begin + (span.end - span.begin) / 3;
  mid.end = span.begin + (span.end - span.begin) / 2;
  gpu = weft_solver_range_slices (solver, mid, WEFT_SLICE_KIND_GPU, 0, NULL);
  cpu = weft_solver_range_slices (solver, mid, WEFT_SLICE_KIND_CPU, 0, NULL);
  coll = weft_solver_range_slices (solver, all, WEFT_SLICE_KIND_COLLECTIVE, 0, NULL);
  g_assert_cmpuint (gpu->len, >, 0);
  for (guint i = 0; i < gpu->len; i++)
    {
      const WeftSliceRow *s = &g_array_index (gpu, WeftSliceRow, i);
      WeftRank *rank = weft_trace_rank (trace, s->rank_index);
      g_assert_true (s->end >= mid.begin && s->start < mid.end);
      g_assert_true (weft_rank_event (rank, s->event)->flags & WEFT_EVENT_GPU_OP);
      g_assert_false (weft_event_is_kind (rank, weft_rank_event (rank, s->event), WEFT_SLICE_KIND_CPU));
      g_assert_cmpint (s->start, ==, weft_solver_start (solver, s->rank_index, s->event));
      if (i > 0)
        g_assert_cmpint (g_array_index (gpu, WeftSliceRow, i - 1).start, <=, s->start);
    }
  for (guint i = 0; i < cpu->len; i++)
    {
      const WeftSliceRow *s = &g_array_index (cpu, WeftSliceRow, i);
      WeftRank *rank = weft_trace_rank (trace, s->rank_index);
      g_assert_cmpint (weft_rank_lane (rank, weft_rank_event (rank, s->event)->lane)->kind, ==, WEFT_LANE_CPU);
    }
  /* every collective kernel is a collective slice */
  {
    guint n_coll = 0;
    for (guint r = 0; r < trace->ranks->len; r++)
      n_coll += weft_trace_rank (trace, r)->collectives->len;
    g_assert_cmpuint (coll->len, >=, n_coll);
  }
  first = weft_solver_range_slices (solver, mid, WEFT_SLICE_KIND_GPU, 3, &n_total);
  g_assert_cmpuint (first->len, ==, MIN (3u, gpu->len));
  g_assert_cmpuint (n_total, ==, gpu->len);
  for (guint i = 0; i < first->len; i++)
    g_assert_cmpint (memcmp (&g_array_index (first, WeftSliceRow, i), &g_array_index (gpu, WeftSliceRow, i),
                             sizeof (WeftSliceRow)), ==, 0);
}

static gboolean
has_dep (const WeftSolverDep *deps, guint n, WeftDepKind kind, guint r, guint32 e)
{
  for (guint i = 0; i < n; i++)
    if (deps[i].kind == kind && deps[i].rank_index == r && deps[i].event == e)
      return TRUE;
  return FALSE;
}

/* Every GPU-to-GPU dependency of an op is a dependent of the other op, and
 * the other way round. */
static void
check_succs_mirror_preds (WeftSolver *solver, WeftTrace *trace)
{
  WeftSolverDep a[256], b[256];
  guint n_edges = 0, n_cross = 0;

  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);
      for (guint32 e = 0; e < rank->events->len; e++)
        {
          guint np, ns;
          if (!weft_solver_is_node (solver, r, e))
            continue;
          np = MIN (weft_solver_preds (solver, r, e, a, 256), 256u);
          for (guint i = 0; i < np; i++)
            {
              if (a[i].kind == WEFT_DEP_LAUNCH || a[i].kind == WEFT_DEP_SYNC ||
                  !weft_solver_is_node (solver, a[i].rank_index, a[i].event))
                continue;
              ns = MIN (weft_solver_succs (solver, a[i].rank_index, a[i].event, b, 256), 256u);
              g_assert_true (has_dep (b, ns, a[i].kind, r, e));
              n_edges++;
              n_cross += a[i].kind == WEFT_DEP_CROSS_STREAM;
            }
          ns = MIN (weft_solver_succs (solver, r, e, b, 256), 256u);
          for (guint i = 0; i < ns; i++)
            {
              if (!weft_solver_is_node (solver, b[i].rank_index, b[i].event))
                continue; /* a sync node: its CPU event */
              np = MIN (weft_solver_preds (solver, b[i].rank_index, b[i].event, a, 256), 256u);
              g_assert_true (has_dep (a, np, b[i].kind, r, e));
            }
        }
    }
  g_assert_cmpuint (n_edges, >, 0);
  g_test_message ("%u GPU-to-GPU dependencies (%u cross-stream) mirrored", n_edges, n_cross);
}

/* Each segment's reason: a collective's names the last-arriving rank, its
 * type and how late it was (as the instance info says); an op's names the
 * rank and the op. */
static void
check_path_reasons (WeftSolver *solver, WeftTrace *trace, guint *n_comm_out)
{
  g_autoptr (GArray) cp = weft_solver_critical_path (solver, WEFT_SOLVER_ALL_STEPS);
  guint n_comm = 0;

  g_assert_cmpuint (cp->len, >, 0);
  for (guint i = 0; i < cp->len; i++)
    {
      const WeftPathSegment *s = &g_array_index (cp, WeftPathSegment, i);
      g_autofree char *why = weft_solver_path_reason (solver, s);
      WeftRank *rank = weft_trace_rank (trace, s->rank_index);
      const WeftEvent *ev = weft_rank_event (rank, s->event);
      g_autofree char *rank_text = g_strdup_printf ("rank %d", rank->rank);

      g_assert_nonnull (why);
      g_assert_cmpuint (strlen (why), >, 10);
      if (s->kind == WEFT_PATH_COMM && weft_event_coll (rank, ev) != WEFT_NONE &&
          g_array_index (rank->collectives, WeftCollective, weft_event_coll (rank, ev)).instance != WEFT_NONE)
        {
          guint32 inst = g_array_index (rank->collectives, WeftCollective, weft_event_coll (rank, ev)).instance;
          WeftSolverInstanceInfo info;
          g_autofree char *expect = NULL;
          g_assert_true (weft_solver_instance_info (solver, inst, &info, NULL, 0));
          if (info.max_wait > 0)
            expect = g_strdup_printf ("rank %d arrives last at this %s, ",
                                      weft_trace_rank (trace, info.last_rank_index)->rank,
                                      weft_coll_type_to_string (info.type));
          else
            expect = g_strdup_printf ("transfers this %s", weft_coll_type_to_string (info.type));
          if (strstr (why, expect) == NULL)
            g_error ("segment %u: \"%s\" does not contain \"%s\"", i, why, expect);
          n_comm++;
        }
      else
        g_assert_nonnull (strstr (why, rank_text));
      if (i < 3 || s->kind == WEFT_PATH_COMM)
        g_test_message ("%s", why);
    }
  *n_comm_out = n_comm;
}

static void
test_dlrm (void)
{
  g_autofree char *dir = weft_test_require_trace (DLRM);
  g_autoptr (WeftTrace) trace = NULL;
  g_autoptr (WeftSolver) solver = NULL;
  guint n_comm = 0;

  if (dir == NULL)
    return;
  trace = load (dir);
  solver = solver_for (trace);
  check_collective_rows (solver, trace);
  check_kernel_rows (solver, trace);
  check_range_slices (solver, trace);
  check_succs_mirror_preds (solver, trace);
  check_path_reasons (solver, trace, &n_comm);
  /* DLRM's path runs through its all-to-alls (ranks wait up to 7.6 ms) */
  g_assert_cmpuint (n_comm, >, 0);
}

static void
test_fsdp (void)
{
  g_autofree char *dir = weft_test_require_trace (FSDP);
  g_autoptr (WeftTrace) trace = NULL;
  g_autoptr (WeftSolver) solver = NULL;
  g_autoptr (GArray) rows = NULL;
  guint n_comm = 0, n_ag = 0;

  if (dir == NULL)
    return;
  trace = load (dir);
  solver = solver_for (trace);
  check_collective_rows (solver, trace);
  check_kernel_rows (solver, trace);
  check_range_slices (solver, trace);
  check_succs_mirror_preds (solver, trace);
  check_path_reasons (solver, trace, &n_comm);
  /* the FSDP group names come from the kernels' args */
  rows = weft_solver_collective_rows (solver, WEFT_SOLVER_ALL_STEPS);
  for (guint i = 0; i < rows->len; i++)
    {
      const WeftCollectiveRow *row = &g_array_index (rows, WeftCollectiveRow, i);
      g_assert_cmpstr (row->group, !=, "");
      g_assert_cmpint (row->bytes, >, 0);
      n_ag += row->type == WEFT_COLL_ALL_GATHER;
    }
  g_assert_cmpuint (n_ag, >, 0);
}

/* A CROSS_STREAM edge on the FSDP trace is followed both ways: the
 * all-gather's consumer on the compute stream lists it as a dependency,
 * the all-gather lists the consumer as a dependent. */
static void
test_fsdp_cross_stream_both_ways (void)
{
  g_autofree char *dir = weft_test_require_trace (FSDP);
  g_autoptr (WeftTrace) trace = NULL;
  g_autoptr (WeftSolver) solver = NULL;
  WeftSolverDep d[64];
  guint found = 0;

  if (dir == NULL)
    return;
  trace = load (dir);
  solver = solver_for (trace);
  for (guint32 e = 0; e < weft_trace_rank (trace, 0)->events->len && found == 0; e++)
    {
      WeftRank *rank = weft_trace_rank (trace, 0);
      const WeftEvent *ev = weft_rank_event (rank, e);
      guint n;
      if (weft_event_coll (rank, ev) == WEFT_NONE || !weft_solver_is_node (solver, 0, e))
        continue;
      n = MIN (weft_solver_succs (solver, 0, e, d, 64), 64u);
      for (guint i = 0; i < n; i++)
        if (d[i].kind == WEFT_DEP_CROSS_STREAM)
          {
            WeftSolverDep p[64];
            guint np = MIN (weft_solver_preds (solver, d[i].rank_index, d[i].event, p, 64), 64u);
            g_assert_true (has_dep (p, np, WEFT_DEP_CROSS_STREAM, 0, e));
            found++;
          }
    }
  g_assert_cmpuint (found, >, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/tables/dlrm", test_dlrm);
  g_test_add_func ("/tables/fsdp", test_fsdp);
  g_test_add_func ("/tables/fsdp-cross-stream-both-ways", test_fsdp_cross_stream_both_ways);
  return g_test_run ();
}
