/* test-solver.c: the dependency solver on small traces written here as Kineto
 * JSON text and loaded with the real loader (the shared traces: test-solver-shared.c).
 * No part of Weft is mocked. */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include <json-c/json.h>

#include "core/solver-private.h"
#include "testutil.h"
#include "weft/weft.h"

/* ---- helpers ----------------------------------------------------------------- */

static guint32
find_named (WeftTrace *trace, guint ri, const char *name, guint nth)
{
  WeftRank *rank = weft_trace_rank (trace, ri);
  for (guint i = 0; i < rank->events->len; i++)
    {
      WeftEvent *ev = weft_rank_event (rank, i);
      if ((ev->flags & WEFT_EVENT_GPU_OP) && strcmp (weft_rank_string (rank, ev->name), name) == 0 && nth-- == 0)
        return i;
    }
  return WEFT_NONE;
}

/* ---- traces written here ---------------------------------------------------------- */

typedef struct
{
  int         stream;
  const char *name;
  double      ts_us;
  double      dur_us;
  double      launch_us;  /* < 0: no launch */
  gboolean    allreduce;  /* an NCCL all-reduce with collective args */
  int         seq;
} GenOp;

#define GEMM "ampere_sgemm_128x64_nn"
#define ELEM "void at::native::vectorized_elementwise_kernel<4>(int)"
#define AR "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"

/* The end of the ProfilerStep#1 annotation gen_rank_json writes (us); < 0:
 * 10 us after the last op. */
static double gen_step_end_us = -1;

/* One rank's Kineto JSON: kernels on pid 0, their cudaLaunchKernel on the
 * main thread (pid/tid 100) linked by correlation, a ProfilerStep#1 span. */
static char *
gen_rank_json (int rank, int world, const GenOp *ops, guint n, const char *extra)
{
  GString *s = g_string_new (NULL);
  double end = 0;
  g_string_append_printf (s,
                          "{\"schemaVersion\": 1, \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, "
                          "\"world_size\": %d}, \"baseTimeNanoseconds\": 1700000000000000000, \"traceEvents\": [\n",
                          rank, world);
  for (guint i = 0; i < n; i++)
    end = MAX (end, ops[i].ts_us + ops[i].dur_us);
  g_string_append_printf (s,
                          "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 100, "
                          "\"tid\": 100, \"ts\": 0.000, \"dur\": %.3f, \"args\": {\"External id\": 1}}",
                          gen_step_end_us >= 0 ? gen_step_end_us : end + 10);
  for (guint i = 0; i < n; i++)
    {
      int corr = 1000 + (int) i;
      g_string_append_printf (s,
                              ",\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": %d, "
                              "\"ts\": %.3f, \"dur\": %.3f, \"args\": {\"device\": 0, \"stream\": %d, "
                              "\"correlation\": %d, \"External id\": %d",
                              ops[i].name, ops[i].stream, ops[i].ts_us, ops[i].dur_us, ops[i].stream, corr, corr);
      if (ops[i].allreduce)
        {
          g_string_append_printf (s,
                                  ", \"Collective name\": \"allreduce\", \"In msg nelems\": 1048576, "
                                  "\"Out msg nelems\": 1048576, \"Group size\": %d, \"dtype\": \"Float\", "
                                  "\"Process Group Name\": \"0\", \"Process Group Description\": \"default_pg\", "
                                  "\"Process Group Ranks\": \"[",
                                  world);
          for (int r = 0; r < world; r++)
            g_string_append_printf (s, "%s%d", r ? ", " : "", r);
          g_string_append_printf (s, "]\", \"Seq\": %d", ops[i].seq);
        }
      g_string_append (s, "}}");
      if (ops[i].launch_us >= 0)
        g_string_append_printf (s,
                                ",\n{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
                                "\"pid\": 100, \"tid\": 100, \"ts\": %.3f, \"dur\": 2.000, \"args\": {\"cbid\": 211, "
                                "\"correlation\": %d, \"External id\": %d}}",
                                ops[i].launch_us, corr, corr);
    }
  if (extra != NULL)
    g_string_append_printf (s, ",\n%s", extra);
  g_string_append (s, "\n]}\n");
  return g_string_free (s, FALSE);
}

/* Writes the ranks into tmpdir/name/rank<R>_trace.json and loads the folder. */
static WeftTrace *
gen_trace_extra (const char *name, int world, const GenOp * const *ops, const guint *n_ops, const char * const *extra)
{
  g_autofree char *dir = g_build_filename (weft_test_tmpdir (), name, NULL);
  g_mkdir_with_parents (dir, 0755);
  for (int r = 0; r < world; r++)
    {
      g_autofree char *json = gen_rank_json (r, world, ops[r], n_ops[r], extra ? extra[r] : NULL);
      g_autofree char *file = g_strdup_printf ("%s/rank%d_trace.json", name, r);
      g_autofree char *path = weft_test_write_file (file, json, -1);
      (void) path;
    }
  return weft_test_load (dir);
}

static WeftTrace *
gen_trace (const char *name, int world, const GenOp * const *ops, const guint *n_ops)
{
  return gen_trace_extra (name, world, ops, n_ops, NULL);
}

#define US 1000

/* One rank: K1 -> K2 -> K3 queued on stream 7 (all launched at 0..4 us), and
 * an independent kernel X on stream 8 at 20..70 us. Step 10..410 us. */
static const GenOp chain_ops[] = {
  { 7, GEMM, 10, 100, 0, FALSE, 0 },
  { 7, GEMM, 110, 200, 2, FALSE, 0 },
  { 7, GEMM, 310, 100, 4, FALSE, 0 },
  { 8, ELEM, 20, 50, 6, FALSE, 0 },
};

static void
test_critical_kernel_lengthens_step (void)
{
  const GenOp *ops[] = { chain_ops };
  guint n[] = { G_N_ELEMENTS (chain_ops) };
  g_autoptr (WeftTrace) trace = gen_trace ("chain1", 1, ops, n);
  g_autoptr (WeftSolver) solver = weft_test_solver_new (trace);
  g_autoptr (GError) error = NULL;
  guint32 k2 = find_named (trace, 0, GEMM, 1), k3 = find_named (trace, 0, GEMM, 2);
  gint64 before = weft_test_step_time (solver), k3_start = weft_solver_start (solver, 0, k3);
  const gint64 d = 37 * US;

  g_assert_cmpint (before, ==, 400 * US);
  g_assert_true (weft_solver_is_critical (solver, 0, k2));
  g_assert_cmpint (weft_solver_slack (solver, 0, k2), ==, 0);
  g_assert_true (weft_solver_set_duration (solver, 0, k2, 200 * US + d, &error));
  g_assert_no_error (error);
  g_assert_cmpint (weft_test_step_time (solver), ==, before + d);
  g_assert_cmpint (weft_solver_start (solver, 0, k3), ==, k3_start + d);

  /* shortening the first kernel moves the queued ones earlier (they are not
   * pinned to their observed start: the launch edge keeps only the typical
   * launch latency) */
  g_assert_true (weft_solver_set_duration (solver, 0, find_named (trace, 0, GEMM, 0), 50 * US, &error));
  g_assert_cmpint (weft_test_step_time (solver), ==, before + d - 50 * US);
}

static void
test_off_path_kernel_within_slack (void)
{
  const GenOp *ops[] = { chain_ops };
  guint n[] = { G_N_ELEMENTS (chain_ops) };
  g_autoptr (WeftTrace) trace = gen_trace ("chain2", 1, ops, n);
  g_autoptr (WeftSolver) solver = weft_test_solver_new (trace);
  g_autoptr (GError) error = NULL;
  guint32 x = find_named (trace, 0, ELEM, 0);
  gint64 before = weft_test_step_time (solver), slack;
  gint64 starts[3];

  /* X ends at 70 us, nothing waits for it, the schedule ends at 410 us */
  slack = weft_solver_slack (solver, 0, x);
  g_assert_cmpint (slack, ==, 340 * US);
  g_assert_false (weft_solver_is_critical (solver, 0, x));
  for (guint i = 0; i < 3; i++)
    starts[i] = weft_solver_start (solver, 0, find_named (trace, 0, GEMM, i));
  g_assert_true (weft_solver_set_duration (solver, 0, x, 50 * US + slack - 1, &error));
  g_assert_cmpint (weft_test_step_time (solver), ==, before);
  for (guint i = 0; i < 3; i++)
    g_assert_cmpint (weft_solver_start (solver, 0, find_named (trace, 0, GEMM, i)), ==, starts[i]);
  /* beyond the slack it does move the end, and X becomes critical */
  g_assert_true (weft_solver_set_duration (solver, 0, x, 50 * US + slack + 5 * US, &error));
  g_assert_cmpint (weft_test_step_time (solver), ==, before + 5 * US);
  g_assert_cmpint (weft_solver_slack (solver, 0, x), ==, 0);
  g_assert_true (weft_solver_is_critical (solver, 0, x));
  g_assert_false (weft_solver_is_critical (solver, 0, find_named (trace, 0, GEMM, 2)));
}

/* Two ranks: compute then an all-reduce on stream 7. Rank 1 arrives 50 us
 * later; the all-reduce ends at 250 us on both (transfer 90 us). */
static const GenOp ar_rank0[] = {
  { 7, GEMM, 10, 100, 0, FALSE, 0 },
  { 7, AR, 110, 140, 2, TRUE, 0 },
};
static const GenOp ar_rank1[] = {
  { 7, GEMM, 10, 150, 0, FALSE, 0 },
  { 7, AR, 160, 90, 2, TRUE, 0 },
};

static void
test_late_arrival_delays_all_ranks (void)
{
  const GenOp *ops[] = { ar_rank0, ar_rank1 };
  guint n[] = { 2, 2 };
  g_autoptr (WeftTrace) trace = gen_trace ("late", 2, ops, n);
  g_autoptr (WeftSolver) solver = weft_test_solver_new (trace);
  g_autoptr (GError) error = NULL;
  guint32 ar0 = find_named (trace, 0, AR, 0), ar1 = find_named (trace, 1, AR, 0);
  guint32 k1 = find_named (trace, 1, GEMM, 0), k0 = find_named (trace, 0, GEMM, 0);
  WeftRank *r0 = weft_trace_rank (trace, 0);
  guint32 inst;
  WeftSolverInstanceInfo info;
  WeftSolverArrival arr[2];
  gint64 end0;

  g_assert_cmpuint (trace->instances->len, ==, 1);
  inst = g_array_index (r0->collectives, WeftCollective, weft_rank_event_coll (r0, ar0)).instance;
  g_assert_cmpuint (inst, ==, 0);
  g_assert_true (weft_solver_instance_info (solver, inst, &info, arr, 2));
  g_assert_cmpuint (info.n_members, ==, 2);
  g_assert_cmpuint (info.last_rank_index, ==, 1);
  g_assert_cmpint (info.transfer, ==, 90 * US);
  g_assert_cmpint (info.max_wait, ==, 50 * US);
  end0 = weft_solver_end (solver, 0, ar0);
  g_assert_cmpint (end0, ==, weft_solver_end (solver, 1, ar1));

  /* rank 1 arrives 30 us later: both ends move by 30 us */
  g_assert_true (weft_solver_set_duration (solver, 1, k1, 180 * US, &error));
  g_assert_no_error (error);
  g_assert_cmpint (weft_solver_end (solver, 0, ar0), ==, end0 + 30 * US);
  g_assert_cmpint (weft_solver_end (solver, 1, ar1), ==, end0 + 30 * US);
  g_assert_true (weft_solver_instance_info (solver, inst, &info, arr, 2));
  g_assert_cmpint (info.max_wait, ==, 80 * US);

  /* rank 0 arriving later but still before rank 1 changes nothing */
  g_assert_true (weft_solver_set_duration (solver, 0, k0, 120 * US, &error));
  g_assert_cmpint (weft_solver_end (solver, 1, ar1), ==, end0 + 30 * US);
}

/* Each rank: K1, all-reduce, K2 queued on stream 7; K2 does not need the
 * all-reduce (as DDP's backward kernels do not). */
static const GenOp move_ops[] = {
  { 7, GEMM, 10, 100, 0, FALSE, 0 },
  { 7, AR, 110, 100, 2, TRUE, 0 },
  { 7, GEMM, 210, 100, 4, FALSE, 0 },
};

static void
test_move_allreduce_to_own_stream (void)
{
  const GenOp *ops[] = { move_ops, move_ops };
  guint n[] = { 3, 3 };
  g_autoptr (WeftTrace) trace = gen_trace ("move", 2, ops, n);
  g_autoptr (WeftSolver) solver = weft_test_solver_new (trace);
  g_autoptr (GError) error = NULL;
  WeftMetrics before, after, base;
  g_autofree char *out = g_build_filename (weft_test_tmpdir (), "move-saved", NULL);

  g_assert_true (weft_solver_metrics (solver, WEFT_SOLVER_ALL_RANKS, WEFT_SOLVER_ALL_STEPS, &before));
  g_assert_cmpint (before.step_time, ==, 300 * US);
  g_assert_cmpint (before.overlapped, ==, 0);

  weft_solver_begin_batch (solver);
  for (guint r = 0; r < 2; r++)
    {
      guint32 lane = weft_solver_ensure_stream (solver, r, 0, 20);
      guint32 ar = find_named (trace, r, AR, 0);
      g_assert_cmpuint (lane, !=, WEFT_NONE);
      g_assert_true (weft_solver_move_to_lane (solver, r, ar, lane, 110 * US, &error));
      g_assert_no_error (error);
    }
  weft_solver_end_batch (solver);

  g_assert_true (weft_solver_metrics (solver, WEFT_SOLVER_ALL_RANKS, WEFT_SOLVER_ALL_STEPS, &after));
  g_assert_cmpint (after.step_time, ==, 200 * US);
  g_assert_cmpint (after.overlapped, ==, 100 * US);
  g_assert_cmpfloat (after.overlap_pct, ==, 100.0);
  g_assert_cmpint (after.exposed_comm, ==, 0);
  g_assert_true (weft_solver_baseline_metrics (solver, WEFT_SOLVER_ALL_RANKS, WEFT_SOLVER_ALL_STEPS, &base));
  g_assert_cmpint (base.step_time, ==, 300 * US);
  /* the all-reduce still waits for its producer K1 */
  for (guint r = 0; r < 2; r++)
    g_assert_cmpint (weft_solver_start (solver, r, find_named (trace, r, AR, 0)), ==,
                     weft_solver_end (solver, r, find_named (trace, r, GEMM, 0)));

  /* written back into the model, saved, loaded again: the edited schedule replays */
  weft_solver_apply_to_model (solver);
  g_assert_true (weft_trace_save_dir (trace, out, WEFT_FORMAT_JSON, NULL, &error));
  g_assert_no_error (error);
  {
    g_autoptr (WeftTrace) again = weft_test_load (out);
    g_autoptr (WeftSolver) s2 = weft_test_solver_new (again);
    g_assert_cmpint (weft_test_step_time (s2), ==, 200 * US);
    for (guint r = 0; r < 2; r++)
      {
        guint32 ar = find_named (again, r, AR, 0);
        WeftRank *rank = weft_trace_rank (again, r);
        g_assert_cmpint (weft_rank_lane (rank, weft_rank_event (rank, ar)->lane)->tid, ==, 20);
      }
  }
}

/* Two all-reduces in the same order on both ranks; reversing them on rank 1
 * only is a deadlock. */
static const GenOp two_ar[] = {
  { 7, AR, 10, 50, 0, TRUE, 0 },
  { 7, AR, 60, 50, 2, TRUE, 1 },
};

static void
test_reversed_collectives_refused (void)
{
  const GenOp *ops[] = { two_ar, two_ar };
  guint n[] = { 2, 2 };
  g_autoptr (WeftTrace) trace = gen_trace ("cycle", 2, ops, n);
  g_autoptr (WeftSolver) solver = weft_test_solver_new (trace);
  g_autoptr (GError) error = NULL;
  guint32 a = find_named (trace, 1, AR, 0), b = find_named (trace, 1, AR, 1);
  guint32 lane = weft_solver_op_lane (solver, 1, b);
  gint64 sa = weft_solver_start (solver, 1, a), sb = weft_solver_start (solver, 1, b);
  guint64 gen = weft_solver_generation (solver);

  g_assert_cmpuint (trace->instances->len, ==, 2);
  g_assert_false (weft_solver_move_to_position (solver, 1, b, lane, 0, &error));
  g_assert_error (error, WEFT_ERROR, WEFT_ERROR_CYCLE);
  g_test_message ("refused: %s", error->message);
  g_assert_nonnull (strstr (error->message, "rank 0"));
  g_assert_nonnull (strstr (error->message, "rank 1"));
  g_assert_nonnull (strstr (error->message, "ncclDevKernel_AllReduce"));
  /* nothing changed */
  g_assert_cmpuint (weft_solver_op_position (solver, 1, a), ==, 0);
  g_assert_cmpuint (weft_solver_op_position (solver, 1, b), ==, 1);
  g_assert_cmpint (weft_solver_start (solver, 1, a), ==, sa);
  g_assert_cmpint (weft_solver_start (solver, 1, b), ==, sb);
  g_assert_cmpuint (weft_solver_generation (solver), ==, gen);
  /* reversing on both ranks at once is fine */
  g_clear_error (&error);
  {
    WeftSolverMove moves[] = { { 0, find_named (trace, 0, AR, 1), lane, 0, 0 }, { 1, b, lane, 0, 0 } };
    g_assert_true (weft_solver_move_many (solver, moves, 2, &error));
    g_assert_no_error (error);
    g_assert_cmpuint (weft_solver_op_position (solver, 1, b), ==, 0);
    g_assert_cmpint (weft_solver_end (solver, 0, find_named (trace, 0, AR, 1)), ==, weft_solver_end (solver, 1, b));
  }
}

/* K1 on stream 7 (10..110 us); the CPU waits in cudaStreamSynchronize
 * (5..111 us) and then launches K2 (launch 115 us, start 125 us). */
static const GenOp sync_ops[] = {
  { 7, GEMM, 10, 100, 0, FALSE, 0 },
  { 7, ELEM, 125, 50, 115, FALSE, 0 },
};
static const char sync_extra[] =
  "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaStreamSynchronize\", \"pid\": 100, \"tid\": 100, "
  "\"ts\": 5.000, \"dur\": 106.000, \"args\": {\"cbid\": 131, \"correlation\": 3000}}";

static guint32
find_cpu (WeftTrace *trace, guint ri, const char *name)
{
  WeftRank *rank = weft_trace_rank (trace, ri);
  for (guint i = 0; i < rank->events->len; i++)
    if (strcmp (weft_rank_string (rank, weft_rank_event (rank, i)->name), name) == 0)
      return i;
  return WEFT_NONE;
}

static void
test_sync_shifts_cpu (void)
{
  const GenOp *ops[] = { sync_ops };
  guint n[] = { 2 };
  const char *extra[] = { sync_extra };
  g_autoptr (WeftTrace) trace = gen_trace_extra ("sync", 1, ops, n, extra);
  g_autoptr (WeftSolver) solver = weft_test_solver_new (trace);
  g_autoptr (GError) error = NULL;
  guint32 k1 = find_named (trace, 0, GEMM, 0), k2 = find_named (trace, 0, ELEM, 0);
  guint32 sync = find_cpu (trace, 0, "cudaStreamSynchronize");
  guint32 launch2 = weft_event_link (weft_rank_event (weft_trace_rank (trace, 0), k2));
  WeftRank *rank = weft_trace_rank (trace, 0);
  gint64 k2_start = weft_solver_start (solver, 0, k2), l2 = weft_solver_start (solver, 0, launch2);
  guint pr;
  guint32 pe;
  g_autoptr (GArray) cp = NULL;

  g_assert_cmpuint (launch2, !=, WEFT_NONE);
  g_assert_cmpint (weft_solver_binding (solver, 0, k2, &pr, &pe), ==, WEFT_DEP_LAUNCH);
  /* the GPU finishing later holds the CPU in the sync: the next launch and kernel move with it */
  g_assert_true (weft_solver_set_duration (solver, 0, k1, 140 * US, &error));
  g_assert_cmpint (weft_solver_start (solver, 0, k2), ==, k2_start + 40 * US);
  g_assert_cmpint (weft_solver_start (solver, 0, launch2), ==, l2 + 40 * US);
  g_assert_cmpint (weft_solver_end (solver, 0, sync), ==, weft_event_end (rank, weft_rank_event (rank, sync)) +
                                                             weft_trace_rank_offset (trace, rank) + 40 * US);
  /* the critical path runs K1 -> sync -> launch -> K2 */
  cp = weft_solver_critical_path (solver, WEFT_SOLVER_ALL_STEPS);
  g_assert_cmpuint (g_array_index (cp, WeftPathSegment, 0).event, ==, k1);
  g_assert_cmpuint (g_array_index (cp, WeftPathSegment, cp->len - 1).event, ==, k2);
  {
    WeftMetrics m;
    g_assert_true (weft_solver_metrics (solver, WEFT_SOLVER_ALL_RANKS, WEFT_SOLVER_ALL_STEPS, &m));
    g_assert_cmpint (m.cp_compute, ==, 190 * US);
    /* 1 us sync return + 4 us CPU + 10 us launch latency before K2; K1's
     * own launch latency (0 -> 10 us) comes before the step's first GPU op
     * and so outside the step's window: the path is the step's, never
     * longer (issue 10) */
    g_assert_cmpint (m.cp_launch, ==, 15 * US);
    g_assert_cmpint (m.cp_length, ==, m.step_time);
  }
  /* and earlier when the GPU finishes earlier */
  g_assert_true (weft_solver_set_duration (solver, 0, k1, 50 * US, &error));
  g_assert_cmpint (weft_solver_start (solver, 0, k2), ==, k2_start - 50 * US);

  /* written back: the CPU events of the thread shift too */
  weft_solver_apply_to_model (solver);
  g_assert_cmpint (weft_rank_event (rank, k2)->ts + weft_trace_rank_offset (trace, rank), ==, k2_start - 50 * US);
  g_assert_true (weft_rank_event (rank, launch2)->flags & WEFT_EVENT_EDITED);
  g_assert_cmpint (weft_rank_event (rank, launch2)->ts + weft_trace_rank_offset (trace, rank), ==, l2 - 50 * US);
}

/* Two syncs on the thread: K1, sync (5..111), K2 launched at 115 (125..135),
 * sync (120..136) waiting for K2, K3 launched at 140 (150..200). When K1
 * is 50 us shorter, both syncs return 50 us earlier and so does K3: the
 * second sync's CPU floor moves with the first (it is not pinned at its
 * observed call time). */
static const GenOp sync2_ops[] = {
  { 7, GEMM, 10, 100, 0, FALSE, 0 },
  { 7, ELEM, 125, 10, 115, FALSE, 0 },
  { 7, GEMM, 150, 50, 140, FALSE, 0 },
};
static const char sync2_extra[] =
  "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaStreamSynchronize\", \"pid\": 100, \"tid\": 100, "
  "\"ts\": 5.000, \"dur\": 106.000, \"args\": {\"cbid\": 131, \"correlation\": 3000}},\n"
  "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaStreamSynchronize\", \"pid\": 100, \"tid\": 100, "
  "\"ts\": 120.000, \"dur\": 16.000, \"args\": {\"cbid\": 131, \"correlation\": 3001}}";

static void
test_two_syncs_shift (void)
{
  const GenOp *ops[] = { sync2_ops };
  guint n[] = { 3 };
  const char *extra[] = { sync2_extra };
  g_autoptr (WeftTrace) trace = gen_trace_extra ("sync2", 1, ops, n, extra);
  g_autoptr (WeftSolver) solver = weft_test_solver_new (trace);
  g_autoptr (GError) error = NULL;
  guint32 k1 = find_named (trace, 0, GEMM, 0), k3 = find_named (trace, 0, GEMM, 1);
  gint64 k3_start = weft_solver_start (solver, 0, k3);
  WeftSolverStats st;

  weft_solver_stats (solver, &st);
  g_assert_cmpuint (st.n_syncs, ==, 2);
  g_assert_true (weft_solver_set_duration (solver, 0, k1, 50 * US, &error));
  g_assert_cmpint (weft_solver_start (solver, 0, k3), ==, k3_start - 50 * US);
  g_assert_true (weft_solver_set_duration (solver, 0, k1, 130 * US, &error));
  g_assert_cmpint (weft_solver_start (solver, 0, k3), ==, k3_start + 30 * US);
}

static void
test_insert_remove_restore (void)
{
  const GenOp *ops[] = { chain_ops };
  guint n[] = { G_N_ELEMENTS (chain_ops) };
  g_autoptr (WeftTrace) trace = gen_trace ("insert", 1, ops, n);
  g_autoptr (WeftSolver) solver = weft_test_solver_new (trace);
  g_autoptr (GError) error = NULL;
  WeftRank *rank = weft_trace_rank (trace, 0);
  guint32 k1 = find_named (trace, 0, GEMM, 0), k2 = find_named (trace, 0, GEMM, 1);
  guint32 lane = weft_solver_op_lane (solver, 0, k1);
  WeftSolverOpSpec spec = { "inserted_kernel", WEFT_CAT_KERNEL, WEFT_KCLASS_GEMM, 30 * US, WEFT_NONE };
  gint64 before = weft_test_step_time (solver);
  gint64 k1_end = weft_solver_end (solver, 0, k1);
  guint32 ins;

  ins = weft_solver_insert_op (solver, 0, lane, k1_end - 1 * US, &spec, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ins, !=, WEFT_NONE);
  g_assert_true (weft_rank_event (rank, ins)->flags & WEFT_EVENT_CREATED);
  g_assert_cmpuint (weft_solver_op_position (solver, 0, ins), ==, 1);
  g_assert_cmpint (weft_test_step_time (solver), ==, before + 30 * US);
  g_assert_true (weft_solver_remove_op (solver, 0, ins, &error));
  g_assert_false (weft_solver_is_node (solver, 0, ins));
  g_assert_true (weft_rank_event (rank, ins)->flags & WEFT_EVENT_DELETED);
  g_assert_cmpint (weft_test_step_time (solver), ==, before);
  g_assert_true (weft_solver_restore_op (solver, 0, ins, &error));
  g_assert_cmpint (weft_test_step_time (solver), ==, before + 30 * US);
  g_assert_true (weft_solver_remove_op (solver, 0, ins, &error));

  /* removing K2 (200 us) pulls K3 in after K1 */
  g_assert_true (weft_solver_remove_op (solver, 0, k2, &error));
  g_assert_cmpint (weft_test_step_time (solver), ==, before - 200 * US);

  /* an explicit dependency that closes a loop is refused */
  g_assert_false (weft_solver_add_dependency (solver, 0, find_named (trace, 0, GEMM, 2), 0, k1, 0, &error));
  g_assert_error (error, WEFT_ERROR, WEFT_ERROR_CYCLE);
}

static void
test_scale_and_min_start (void)
{
  const GenOp *ops[] = { chain_ops };
  guint n[] = { G_N_ELEMENTS (chain_ops) };
  g_autoptr (WeftTrace) trace = gen_trace ("scale", 1, ops, n);
  g_autoptr (WeftSolver) solver = weft_test_solver_new (trace);
  g_autoptr (GError) error = NULL;
  guint32 k2 = find_named (trace, 0, GEMM, 1);
  gint64 before = weft_test_step_time (solver);

  /* all GEMMs twice as fast: the queued chain halves */
  weft_solver_scale_class (solver, WEFT_KCLASS_GEMM, 0.5);
  g_assert_cmpint (weft_test_step_time (solver), ==, before / 2);
  weft_solver_scale_class (solver, WEFT_KCLASS_GEMM, 2.0);
  g_assert_cmpint (weft_test_step_time (solver), ==, before);

  /* a drag: K2 no earlier than 200 us after the start */
  weft_solver_begin_batch (solver);
  g_assert_true (weft_solver_set_min_start (solver, 0, k2, weft_solver_start (solver, 0, k2) + 90 * US, &error));
  g_assert_cmpint (weft_test_step_time (solver), ==, before); /* not solved inside the batch */
  weft_solver_end_batch (solver);
  g_assert_cmpint (weft_test_step_time (solver), ==, before + 90 * US);
  g_assert_cmpint (weft_solver_binding (solver, 0, k2, NULL, NULL), ==, WEFT_DEP_USER);
  g_assert_true (weft_solver_set_min_start (solver, 0, k2, -1, &error));
  g_assert_cmpint (weft_test_step_time (solver), ==, before);
}

static void
test_insert_collective (void)
{
  const GenOp *ops[] = { move_ops, move_ops };
  guint n[] = { 3, 3 };
  g_autoptr (WeftTrace) trace = gen_trace ("inscoll", 2, ops, n);
  g_autoptr (WeftSolver) solver = weft_test_solver_new (trace);
  g_autoptr (GError) error = NULL;
  WeftSolverCollSpec spec = { WEFT_COLL_ALL_REDUCE, NULL, 1 << 20, "BFloat16", NULL, NULL, 50 * US };
  WeftSolverPlace places[2];
  guint32 evs[2], inst;
  gint64 before = weft_test_step_time (solver);
  WeftSolverInstanceInfo info;

  for (guint r = 0; r < 2; r++)
    {
      guint32 k2 = find_named (trace, r, GEMM, 1);
      places[r].rank_index = r;
      places[r].lane = weft_solver_op_lane (solver, r, k2);
      places[r].at_time = weft_solver_end (solver, r, k2) + (r ? 3 * US : 0);
    }
  inst = weft_solver_insert_collective (solver, &spec, places, 2, evs, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (inst, ==, trace->instances->len - 1);
  g_assert_true (weft_solver_instance_info (solver, inst, &info, NULL, 0));
  g_assert_cmpuint (info.n_members, ==, 2);
  g_assert_cmpint (weft_solver_end (solver, 0, evs[0]), ==, weft_solver_end (solver, 1, evs[1]));
  g_assert_cmpint (weft_test_step_time (solver), ==, before + 3 * US + 50 * US);
  {
    /* the inserted collective is not part of the trace as loaded */
    WeftMetrics base;
    g_assert_true (weft_solver_baseline_metrics (solver, WEFT_SOLVER_ALL_RANKS, WEFT_SOLVER_ALL_STEPS, &base));
    g_assert_cmpint (base.step_time, ==, before);
    g_assert_cmpint (base.comm, ==, 100 * US);
    g_assert_cmpint (weft_test_step_time (solver), ==, before + 3 * US + 50 * US);
  }
  /* deleting one member deletes the collective on every rank */
  g_assert_true (weft_solver_remove_op (solver, 1, evs[1], &error));
  g_assert_false (weft_solver_is_node (solver, 0, evs[0]));
  g_assert_cmpint (weft_test_step_time (solver), ==, before);
  g_assert_true (weft_solver_restore_op (solver, 0, evs[0], &error));
  g_assert_true (weft_solver_is_node (solver, 1, evs[1]));
  g_assert_cmpint (weft_test_step_time (solver), ==, before + 3 * US + 50 * US);
}

/* Random edits on a 2-rank trace: after each accepted edit the incremental
 * re-solve equals a full re-solve and the topological order is valid; a
 * refused edit (a cycle) changes nothing. */
static const GenOp rnd_ops[] = {
  { 7, GEMM, 10, 30, 0, FALSE, 0 },  { 7, AR, 40, 20, 1, TRUE, 0 },   { 7, GEMM, 60, 30, 2, FALSE, 0 },
  { 7, ELEM, 90, 10, 3, FALSE, 0 },  { 7, AR, 100, 20, 4, TRUE, 1 },  { 7, GEMM, 120, 30, 5, FALSE, 0 },
  { 7, GEMM, 150, 30, 6, FALSE, 0 }, { 7, AR, 180, 20, 7, TRUE, 2 },  { 7, ELEM, 200, 10, 8, FALSE, 0 },
  { 8, ELEM, 20, 15, 9, FALSE, 0 },  { 8, GEMM, 50, 40, 10, FALSE, 0 }, { 8, ELEM, 130, 15, 11, FALSE, 0 },
};

static void
snapshot (WeftTrace *trace, WeftSolver *solver, GArray *out)
{
  g_array_set_size (out, 0);
  for (guint r = 0; r < trace->ranks->len; r++)
    for (guint32 i = 0; i < weft_trace_rank (trace, r)->events->len; i++)
      if (weft_solver_is_node (solver, r, i))
        {
          gint64 se[2] = { weft_solver_start (solver, r, i), weft_solver_end (solver, r, i) };
          g_array_append_vals (out, se, 2);
        }
}

/* 400 random edits on a 2-rank trace (streams 7 and 8); after each one
 * the order is valid and the incremental re-solve equals a full one. */
static void
random_edits (WeftTrace *trace, gint64 span_us)
{
  g_autoptr (WeftSolver) solver = weft_test_solver_new (trace);
  g_autoptr (GArray) a = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr (GArray) b = g_array_new (FALSE, FALSE, sizeof (gint64));
  guint n_refused = 0, n_moved = 0, n_inserted = 0, n_restored = 0;
  g_autoptr (GArray) removed = g_array_new (FALSE, FALSE, sizeof (guint64));
  WeftMetrics loaded[3];

  g_assert_true (_weft_solver_check (solver));
  for (guint r = 0; r < 3; r++)
    g_assert_true (weft_solver_metrics (solver, r == 2 ? WEFT_SOLVER_ALL_RANKS : r, WEFT_SOLVER_ALL_STEPS, &loaded[r]));
  for (guint step = 0; step < 400; step++)
    {
      guint r = (guint) g_test_rand_int_range (0, 2);
      WeftRank *rank = weft_trace_rank (trace, r);
      g_autoptr (GArray) live_ops = g_array_new (FALSE, FALSE, sizeof (guint32));
      guint32 ev, lane;
      g_autoptr (GError) error = NULL;
      int what = g_test_rand_int_range (0, 8);
      for (guint32 i = 0; i < rank->events->len; i++)
        if (weft_solver_is_node (solver, r, i))
          g_array_append_val (live_ops, i);
      ev = g_array_index (live_ops, guint32, g_test_rand_int_range (0, (gint32) live_ops->len));
      if (what == 0)
        g_assert_true (weft_solver_set_duration (solver, r, ev, g_test_rand_int_range (0, 60) * US, &error));
      else if (what == 1)
        g_assert_true (weft_solver_set_min_start (solver, r, ev,
                                                  g_test_rand_bit () ? -1
                                                                     : weft_solver_start (solver, r, ev) +
                                                                         g_test_rand_int_range (-20, 40) * US,
                                                  &error));
      else if (what == 4)
        {
          WeftSolverOpSpec spec = { "inserted", WEFT_CAT_KERNEL, WEFT_KCLASS_GEMM, 12 * US, WEFT_NONE };
          lane = weft_solver_ensure_stream (solver, r, 0, g_test_rand_bit () ? 7 : 8);
          g_assert_cmpuint (weft_solver_insert_op (solver, r, lane, weft_solver_start (solver, r, ev), &spec, &error), !=,
                            WEFT_NONE);
          n_inserted++;
        }
      else if (what == 5)
        {
          guint64 key = ((guint64) r << 32) | ev;
          g_assert_true (weft_solver_remove_op (solver, r, ev, &error));
          g_array_append_val (removed, key);
        }
      else if (what == 6 && removed->len > 0)
        {
          guint k = (guint) g_test_rand_int_range (0, (gint32) removed->len);
          guint64 key = g_array_index (removed, guint64, k);
          g_array_remove_index (removed, k);
          if (!weft_solver_is_node (solver, (guint) (key >> 32), (guint32) key))
            {
              snapshot (trace, solver, a);
              if (!weft_solver_restore_op (solver, (guint) (key >> 32), (guint32) key, &error))
                {
                  /* putting it back would close a cycle: refused, nothing changed */
                  g_assert_error (error, WEFT_ERROR, WEFT_ERROR_CYCLE);
                  snapshot (trace, solver, b);
                  g_assert_cmpmem (a->data, a->len * sizeof (gint64), b->data, b->len * sizeof (gint64));
                  n_refused++;
                }
              else
                n_restored++;
            }
        }
      else if (what == 7)
        {
          WeftSolverCollSpec cs = { WEFT_COLL_ALL_REDUCE, NULL, 1 << 20, NULL, NULL, NULL, 15 * US };
          WeftSolverPlace places[2];
          for (guint q = 0; q < 2; q++)
            {
              places[q].rank_index = q;
              places[q].lane = weft_solver_ensure_stream (solver, q, 0, g_test_rand_bit () ? 7 : 8);
              places[q].at_time = weft_solver_span (solver).begin + g_test_rand_int_range (0, (gint32) span_us) * US;
            }
          snapshot (trace, solver, a);
          if (weft_solver_insert_collective (solver, &cs, places, 2, NULL, &error) == WEFT_NONE)
            {
              g_assert_error (error, WEFT_ERROR, WEFT_ERROR_CYCLE);
              snapshot (trace, solver, b);
              g_assert_cmpmem (a->data, a->len * sizeof (gint64), b->data, b->len * sizeof (gint64));
              n_refused++;
            }
          else
            n_inserted++;
        }
      else
        {
          guint32 lanes[2];
          guint pos;
          snapshot (trace, solver, a);
          lanes[0] = weft_solver_ensure_stream (solver, r, 0, 7);
          lanes[1] = weft_solver_ensure_stream (solver, r, 0, 8);
          lane = lanes[g_test_rand_int_range (0, 2)];
          pos = (guint) g_test_rand_int_range (0, (gint32) weft_solver_lane_n_ops (solver, r, lane) + 1);
          if (!weft_solver_move_to_position (solver, r, ev, lane, pos, &error))
            {
              g_assert_error (error, WEFT_ERROR, WEFT_ERROR_CYCLE);
              snapshot (trace, solver, b);
              g_assert_cmpmem (a->data, a->len * sizeof (gint64), b->data, b->len * sizeof (gint64));
              n_refused++;
            }
          else
            n_moved++;
        }
      if (step % 37 == 0)
        {
          /* the baseline (computed on demand by swapping the loaded schedule
           * in and out) is the schedule as loaded, and leaves this one intact */
          guint which = step % 3;
          WeftMetrics base;
          snapshot (trace, solver, a);
          g_assert_true (weft_solver_baseline_metrics (solver, which == 2 ? WEFT_SOLVER_ALL_RANKS : which,
                                                       WEFT_SOLVER_ALL_STEPS, &base));
          g_assert_cmpmem (&base, sizeof base, &loaded[which], sizeof loaded[which]);
          snapshot (trace, solver, b);
          g_assert_cmpmem (a->data, a->len * sizeof (gint64), b->data, b->len * sizeof (gint64));
        }
      g_assert_true (_weft_solver_check (solver));
      snapshot (trace, solver, a);
      weft_solver_solve_all (solver);
      snapshot (trace, solver, b);
      g_assert_cmpmem (a->data, a->len * sizeof (gint64), b->data, b->len * sizeof (gint64));
    }
  g_test_message ("random edits: %u moves, %u inserts, %u restores accepted, %u refused as cycles", n_moved,
                  n_inserted, n_restored, n_refused);
  g_assert_cmpuint (n_moved, >, 0);
  g_assert_cmpuint (n_refused, >, 0);
}

static void
test_random_edits_consistent (void)
{
  const GenOp *ops[] = { rnd_ops, rnd_ops };
  guint n[] = { G_N_ELEMENTS (rnd_ops), G_N_ELEMENTS (rnd_ops) };
  g_autoptr (WeftTrace) trace = gen_trace ("random", 2, ops, n);

  random_edits (trace, 250);
}

/* The same on ~330 nodes: the re-solve sweeps a bitmap of topological
 * positions 64 at a time, so changes must cross several words (an edit
 * early in a queued stream moves everything after it on both ranks). */
static WeftTrace *
large_trace (const char *name, gint64 *span_us)
{
  enum { N = 160 };
  g_autofree GenOp *big = g_new0 (GenOp, N);
  const GenOp *ops[2];
  guint n[] = { N, N };
  g_autoptr (WeftTrace) trace = NULL;
  double t = 10, comm = 0;
  int seq = 0;

  for (guint i = 0; i < N; i++)
    {
      GenOp *o = &big[i];
      if (i % 8 == 7)
        {
          /* an all-reduce on stream 8, after the compute that produced it */
          o->stream = 8;
          o->name = AR;
          o->ts_us = MAX (t, comm);
          o->dur_us = 20;
          o->allreduce = TRUE;
          o->seq = seq++;
          comm = o->ts_us + o->dur_us;
        }
      else
        {
          o->stream = 7;
          o->name = i % 3 ? GEMM : ELEM;
          o->ts_us = t;
          o->dur_us = i % 3 ? 30 : 10;
          t += o->dur_us + (i % 5 == 0 ? 8 : 1);
        }
      o->launch_us = MAX (0, o->ts_us - 5 - (i % 4) * 20);
    }
  ops[0] = ops[1] = big;
  trace = gen_trace (name, 2, ops, n);
  if (span_us != NULL)
    *span_us = (gint64) t;
  return g_steal_pointer (&trace);
}

static void
test_random_edits_consistent_large (void)
{
  gint64 span_us;
  g_autoptr (WeftTrace) trace = large_trace ("random-large", &span_us);
  random_edits (trace, span_us);
}

/* A drag in time of an early op: every motion re-solves most of the graph.
 * From the second motion on the re-solve runs over the solve plan (the
 * graph flattened in topological order), which a duration change keeps
 * and a structural edit (a move across streams) throws away; every result
 * equals a node-by-node solve of the whole graph (and, as the test suite
 * sets WEFT_SOLVER_VERIFY=1, the solver checks that itself). */
static void
test_drag_plan (void)
{
  g_autoptr (WeftTrace) trace = large_trace ("drag-plan", NULL);
  g_autoptr (WeftSolver) solver = weft_test_solver_new (trace);
  g_autoptr (GArray) a = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr (GArray) b = g_array_new (FALSE, FALSE, sizeof (gint64));
  WeftSolverStats st0, st;
  guint32 ev = 1;   /* the second compute kernel of rank 0 */
  gint64 t0;
  guint32 lane;

  g_assert_true (weft_solver_is_node (solver, 0, ev));
  t0 = weft_solver_start (solver, 0, ev);
  weft_solver_stats (solver, &st0);
  for (int motion = 1; motion <= 40; motion++)
    {
      g_autoptr (GError) error = NULL;
      gint64 start0 = weft_solver_end (solver, 1, weft_trace_rank (trace, 1)->events->len - 1);
      if (motion == 20)
        {
          /* a structural edit in the middle: the plan is rebuilt after it */
          lane = weft_solver_ensure_stream (solver, 1, 0, 8);
          g_assert_true (weft_solver_move_to_position (solver, 1, 3, lane, 0, &error));
        }
      else if (motion % 7 == 0)
        g_assert_true (weft_solver_set_duration (solver, 0, ev, (10 + motion) * US, &error));
      g_assert_true (weft_solver_set_min_start (solver, 0, ev, t0 + motion * 3 * US, &error));
      g_assert_no_error (error);
      g_assert_cmpint (weft_solver_start (solver, 0, ev), ==, t0 + motion * 3 * US);
      /* the whole schedule after it moved too (through the all-reduces, rank 1) */
      g_assert_cmpint (weft_solver_end (solver, 1, weft_trace_rank (trace, 1)->events->len - 1), >=, start0);
      g_assert_true (_weft_solver_check (solver));
      snapshot (trace, solver, a);
      weft_solver_solve_all (solver);
      snapshot (trace, solver, b);
      g_assert_cmpmem (a->data, a->len * sizeof (gint64), b->data, b->len * sizeof (gint64));
    }
  weft_solver_stats (solver, &st);
  g_test_message ("drag: %u plan builds, %u plan sweeps, %u graph sweeps", st.n_plan_builds - st0.n_plan_builds,
                  st.n_plan_sweeps - st0.n_plan_sweeps, st.n_graph_sweeps - st0.n_graph_sweeps);
  /* built on the second large re-solve and again after the move; only the
   * first one and the first after the move ran node by node (a motion
   * whose change the slack absorbs early stays small, without either) */
  g_assert_cmpuint (st.n_plan_builds - st0.n_plan_builds, ==, 2);
  g_assert_cmpuint (st.n_graph_sweeps - st0.n_graph_sweeps, ==, 2);
  g_assert_cmpuint (st.n_plan_sweeps - st0.n_plan_sweeps, >=, 20);

  /* weft_solver_prepare at the press (as the window does): after another
   * structural edit, every motion of the next drag runs over the plan */
  {
    g_autoptr (GError) error = NULL;
    g_assert_true (weft_solver_remove_op (solver, 1, 5, &error));
    g_assert_no_error (error);
  }
  weft_solver_stats (solver, &st0);
  weft_solver_prepare (solver);
  for (int motion = 1; motion <= 10; motion++)
    {
      g_autoptr (GError) error = NULL;
      g_assert_true (weft_solver_set_min_start (solver, 0, ev, t0 + motion * 5 * US, &error));
      g_assert_cmpint (weft_solver_start (solver, 0, ev), ==, t0 + motion * 5 * US);
    }
  snapshot (trace, solver, a);
  weft_solver_solve_all (solver);
  snapshot (trace, solver, b);
  g_assert_cmpmem (a->data, a->len * sizeof (gint64), b->data, b->len * sizeof (gint64));
  weft_solver_stats (solver, &st);
  g_assert_cmpuint (st.n_plan_builds - st0.n_plan_builds, ==, 1);
  g_assert_cmpuint (st.n_graph_sweeps - st0.n_graph_sweeps, ==, 0);
  g_assert_cmpuint (st.n_plan_sweeps - st0.n_plan_sweeps, ==, 10);
}

/* Odd but loadable input: zero and negative durations, ops nested or
 * overlapping on one stream, identical timestamps, an op that starts before
 * its launch, ops without a launch, an all-reduce whose other member starts
 * after this one ends. The solver builds, replays every start exactly and
 * edits without crashing. */
static const GenOp odd0[] = {
  { 7, GEMM, 10, 100, 0, FALSE, 0 },  { 7, ELEM, 20, 10, 1, FALSE, 0 },  { 7, ELEM, 20, 0, -1, FALSE, 0 },
  { 7, GEMM, 50, -5, 2, FALSE, 0 },   { 7, ELEM, 105, 10, 300, FALSE, 0 }, { 7, AR, 120, 10, 3, TRUE, 0 },
  { 9, ELEM, 5, 1, -1, FALSE, 0 },
};
static const GenOp odd1[] = {
  { 7, GEMM, 10, 100, 0, FALSE, 0 },
  { 7, AR, 200, 10, 3, TRUE, 0 },
};

static void
test_odd_input (void)
{
  const GenOp *ops[] = { odd0, odd1 };
  guint n[] = { G_N_ELEMENTS (odd0), G_N_ELEMENTS (odd1) };
  g_autoptr (WeftTrace) trace = gen_trace ("odd", 2, ops, n);
  g_autoptr (WeftSolver) solver = weft_test_solver_new (trace);
  g_autoptr (GArray) cp = NULL;
  WeftSolverStats st;
  WeftMetrics m;

  for (guint pass = 0; pass < 2; pass++)
    for (guint r = 0; r < 2; r++)
      {
        WeftRank *rank = weft_trace_rank (trace, r);
        for (guint32 i = 0; i < rank->events->len; i++)
          {
            WeftEvent *ev = weft_rank_event (rank, i);
            if (!(ev->flags & WEFT_EVENT_GPU_OP))
              continue;
            g_assert_true (weft_solver_is_node (solver, r, i));
            if (pass == 0)
              g_assert_cmpint (weft_solver_start (solver, r, i), ==, ev->ts + weft_trace_rank_offset (trace, rank));
            else
              g_assert_true (weft_solver_set_duration (solver, r, i, 7 * US, NULL));
          }
      }
  g_assert_true (_weft_solver_check (solver));
  weft_solver_stats (solver, &st);
  g_assert_cmpuint (st.n_stream_overlaps, >, 0);
  g_assert_true (weft_solver_metrics (solver, WEFT_SOLVER_ALL_RANKS, WEFT_SOLVER_ALL_STEPS, &m));
  cp = weft_solver_critical_path (solver, WEFT_SOLVER_ALL_STEPS);
  g_assert_cmpuint (cp->len, >, 0);
  for (guint i = 1; i < cp->len; i++)
    g_assert_cmpint (g_array_index (cp, WeftPathSegment, i).begin, >=, g_array_index (cp, WeftPathSegment, i - 1).end);
  weft_solver_apply_to_model (solver);
}

/* Without clock alignment, rank 1's all-reduce (200..210 us) starts after
 * rank 0's (120..130 us) has ended: a mismatched instance. Its transfer
 * time is clamped to 0 (counted in the stats) and both end at rank 1's
 * arrival. */
static void
test_late_member (void)
{
  const GenOp *ops[] = { odd0, odd1 };
  guint n[] = { G_N_ELEMENTS (odd0), G_N_ELEMENTS (odd1) };
  g_autoptr (WeftTrace) trace = gen_trace ("late-member", 2, ops, n);
  g_autoptr (WeftSolver) solver = NULL;
  WeftSolverStats st;
  WeftSolverInstanceInfo info;
  guint32 ar0 = find_named (trace, 0, AR, 0), ar1 = find_named (trace, 1, AR, 0);

  trace->apply_clock_offsets = FALSE;
  solver = weft_test_solver_new (trace);
  weft_solver_stats (solver, &st);
  g_assert_cmpuint (st.n_instances_late, ==, 1);
  g_assert_true (weft_solver_instance_info (solver, 0, &info, NULL, 0));
  g_assert_cmpint (info.transfer, ==, 0);
  g_assert_cmpuint (info.last_rank_index, ==, 1);
  g_assert_cmpint (weft_solver_end (solver, 0, ar0), ==, weft_solver_start (solver, 1, ar1));
  g_assert_cmpint (weft_solver_end (solver, 1, ar1), ==, weft_solver_start (solver, 1, ar1));
}

/* ---- the same step on CUDA and on ROCm -------------------------------------------- */

/* One step in the style of each runtime (names as the CUDA runtime and HIP
 * write them; ROCm's GPU pid is 2): K1 on stream 7 (10..110 us); an event
 * recorded after it and waited on (External id 77) before K2 on stream 20
 * (launched at 12 us, starts at 110 us when K1 ends); a device sync
 * (20..131 us) that returns after K2 (110..130 us); K3 launched at 135 us
 * on stream 7 (145..165 us). The edges must not depend on the spelling. */
static char *
runtime_style_json (gboolean hip)
{
  const char *launch = hip ? "hipLaunchKernel" : "cudaLaunchKernel";
  const char *launch2 = hip ? "hipExtModuleLaunchKernel" : "cuLaunchKernel";
  const char *cat2 = hip ? "cuda_runtime" : "cuda_driver";
  const char *rec = hip ? "hipEventRecord" : "cudaEventRecord";
  const char *wait = hip ? "hipStreamWaitEvent" : "cudaStreamWaitEvent";
  const char *sync = hip ? "hipDeviceSynchronize" : "cudaDeviceSynchronize";
  int gpu = hip ? 2 : 0;
  return g_strdup_printf (
    "{\"schemaVersion\": 1, \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, \"world_size\": 1}, "
    "\"baseTimeNanoseconds\": 1700000000000000000, \"traceEvents\": [\n"
    "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 100, \"tid\": 100, "
    "\"ts\": 0.000, \"dur\": 170.000, \"args\": {\"External id\": 1}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_SUM0\", \"pid\": %d, \"tid\": 7, "
    "\"ts\": 10.000, \"dur\": 100.000, \"args\": {\"device\": %d, \"stream\": 7, \"correlation\": 11, \"External id\": 11}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"%s\", \"pid\": 100, \"tid\": 100, \"ts\": 1.000, "
    "\"dur\": 2.000, \"args\": {\"correlation\": 11, \"External id\": 11}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"%s\", \"pid\": 100, \"tid\": 100, \"ts\": 5.000, "
    "\"dur\": 1.000, \"args\": {\"correlation\": 12, \"External id\": 77}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"%s\", \"pid\": 100, \"tid\": 100, \"ts\": 8.000, "
    "\"dur\": 1.000, \"args\": {\"correlation\": 13, \"External id\": 77}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void at::native::vectorized_elementwise_kernel<4>(int)\", "
    "\"pid\": %d, \"tid\": 20, \"ts\": 110.000, \"dur\": 20.000, \"args\": {\"device\": %d, \"stream\": 20, "
    "\"correlation\": 14, \"External id\": 77}},\n"
    "{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": 100, \"tid\": 100, \"ts\": 12.000, "
    "\"dur\": 2.000, \"args\": {\"correlation\": 14, \"External id\": 77}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"%s\", \"pid\": 100, \"tid\": 100, \"ts\": 20.000, "
    "\"dur\": 111.000, \"args\": {\"correlation\": 15}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void at::native::vectorized_elementwise_kernel<8>(int)\", "
    "\"pid\": %d, \"tid\": 7, \"ts\": 145.000, \"dur\": 20.000, \"args\": {\"device\": %d, \"stream\": 7, "
    "\"correlation\": 16, \"External id\": 16}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"%s\", \"pid\": 100, \"tid\": 100, \"ts\": 135.000, "
    "\"dur\": 2.000, \"args\": {\"correlation\": 16, \"External id\": 16}}\n"
    "]}\n",
    gpu, gpu, launch, rec, wait, gpu, gpu, cat2, launch2, sync, gpu, gpu, launch);
}

static void
test_runtime_styles (void)
{
  WeftSolverStats st[2];
  for (int hip = 0; hip < 2; hip++)
    {
      g_autofree char *json = runtime_style_json (hip);
      g_autofree char *path = weft_test_write_file (hip ? "rocm-style.json" : "cuda-style.json", json, -1);
      g_autoptr (WeftTrace) trace = weft_test_load (path);
      g_autoptr (WeftSolver) solver = weft_test_solver_new (trace);
      g_autoptr (GError) error = NULL;
      WeftRank *rank = weft_trace_rank (trace, 0);
      guint32 k1 = weft_test_find_x (trace, 0, "kernel", 11), k2 = weft_test_find_x (trace, 0, "kernel", 14);
      guint32 k3 = weft_test_find_x (trace, 0, "kernel", 16);
      gint64 s2 = weft_solver_start (solver, 0, k2), s3 = weft_solver_start (solver, 0, k3);
      guint pr;
      guint32 pe;
      WeftMetrics m;

      g_assert_cmpuint (k1, !=, WEFT_NONE);
      g_assert_cmpuint (k2, !=, WEFT_NONE);
      g_assert_cmpuint (k3, !=, WEFT_NONE);
      weft_solver_stats (solver, &st[hip]);
      g_assert_cmpuint (st[hip].n_ops, ==, 3);
      g_assert_cmpuint (st[hip].n_launch, ==, 3);
      g_assert_cmpuint (st[hip].n_cross_stream, ==, 1);
      g_assert_cmpuint (st[hip].n_syncs, ==, 1);
      g_assert_cmpuint (st[hip].n_sync_edges, >=, 1);
      /* the Tensile GEMM is a GEMM on either */
      g_assert_cmpint (weft_rank_event (rank, k1)->kclass, ==, WEFT_KCLASS_GEMM);
      g_assert_cmpint (weft_solver_binding (solver, 0, k2, &pr, &pe), ==, WEFT_DEP_CROSS_STREAM);
      g_assert_cmpuint (pe, ==, k1);
      g_assert_cmpint (weft_solver_binding (solver, 0, k3, &pr, &pe), ==, WEFT_DEP_LAUNCH);
      /* K1 50 us longer: K2 waits for it, the sync returns later, K3 follows */
      g_assert_true (weft_solver_set_duration (solver, 0, k1, 150 * US, &error));
      g_assert_cmpint (weft_solver_start (solver, 0, k2), ==, s2 + 50 * US);
      g_assert_cmpint (weft_solver_start (solver, 0, k3), ==, s3 + 50 * US);
      g_assert_true (weft_solver_metrics (solver, WEFT_SOLVER_ALL_RANKS, WEFT_SOLVER_ALL_STEPS, &m));
      g_assert_cmpint (m.cp_length, <=, m.step_time);
      g_assert_cmpint (m.cp_wait, ==, 0);
    }
  g_assert_cmpuint (st[0].n_sync_edges, ==, st[1].n_sync_edges);
}

/* ---- inferred edges --------------------------------------------------------------- */

/* An EP step as DeepEP runs it: K1 on the compute stream 7 (10..110 us,
 * launched at 1 us by the main thread; two short kernels on stream 8 set
 * the usual launch latency, 8-9 us); the dispatch kernel on its own
 * stream 30, launched at 4 us by another thread (the autograd thread: tid
 * 200), starts at 112 us. The wait that held it (a cudaStreamWaitEvent on
 * the main thread, no cudaEventRecord in the trace) gives no edge: nothing
 * recorded explains its start, 108 us after its launch. The path goes on
 * through an inferred edge from K1 (the op of the rank that ended last
 * before it, 2 us before): compute 100 + inferred 2 + dispatch 38 = the
 * step, no waiting (it was 102 us of waiting). */
static const char ep_json[] =
  "{\"schemaVersion\": 1, \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, \"world_size\": 1}, "
  "\"baseTimeNanoseconds\": 1700000000000000000, \"traceEvents\": [\n"
  "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn\", \"pid\": 0, "
  "\"tid\": 7, \"ts\": 10.000, \"dur\": 100.000, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 11}},\n"
  "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 100, \"tid\": 100, "
  "\"ts\": 1.000, \"dur\": 2.000, \"args\": {\"correlation\": 11}},\n"
  "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void at::native::vectorized_elementwise_kernel<4>(int)\", "
  "\"pid\": 0, \"tid\": 8, \"ts\": 10.000, \"dur\": 1.000, \"args\": {\"device\": 0, \"stream\": 8, \"correlation\": 21}},\n"
  "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 100, \"tid\": 100, "
  "\"ts\": 2.000, \"dur\": 0.500, \"args\": {\"correlation\": 21}},\n"
  "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void at::native::vectorized_elementwise_kernel<4>(int)\", "
  "\"pid\": 0, \"tid\": 8, \"ts\": 11.000, \"dur\": 1.000, \"args\": {\"device\": 0, \"stream\": 8, \"correlation\": 22}},\n"
  "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 100, \"tid\": 100, "
  "\"ts\": 2.600, \"dur\": 0.300, \"args\": {\"correlation\": 22}},\n"
  "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaStreamWaitEvent\", \"pid\": 100, \"tid\": 100, "
  "\"ts\": 3.000, \"dur\": 1.000, \"args\": {\"correlation\": 12}},\n"
  "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void deep_ep::intranode::dispatch<8, 768, 8192>(int)\", \"pid\": 0, "
  "\"tid\": 30, \"ts\": 112.000, \"dur\": 38.000, \"args\": {\"device\": 0, \"stream\": 30, \"correlation\": 13}},\n"
  "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 100, \"tid\": 200, "
  "\"ts\": 4.000, \"dur\": 2.000, \"args\": {\"correlation\": 13}}\n"
  "]}\n";

static void
test_inferred_edge (void)
{
  g_autofree char *path = weft_test_write_file ("ep-inferred.json", ep_json, -1);
  g_autoptr (WeftTrace) trace = weft_test_load (path);
  g_autoptr (WeftSolver) solver = weft_test_solver_new (trace);
  g_autoptr (GArray) cp = NULL;
  guint32 k1 = weft_test_find_x (trace, 0, "kernel", 11), disp = weft_test_find_x (trace, 0, "kernel", 13);
  guint pr = G_MAXUINT;
  guint32 pe = WEFT_NONE;
  gboolean seen = FALSE;
  WeftMetrics m;

  g_assert_cmpint (weft_solver_binding (solver, 0, disp, NULL, NULL), ==, WEFT_DEP_NONE);
  g_assert_cmpint (weft_solver_inferred_cause (solver, 0, disp, &pr, &pe), ==, WEFT_DEP_INFERRED);
  g_assert_cmpuint (pr, ==, 0);
  g_assert_cmpuint (pe, ==, k1);
  /* an op with a recorded binding has no inferred cause */
  g_assert_cmpint (weft_solver_inferred_cause (solver, 0, k1, NULL, NULL), ==, WEFT_DEP_NONE);

  g_assert_true (weft_solver_metrics (solver, WEFT_SOLVER_ALL_RANKS, WEFT_SOLVER_ALL_STEPS, &m));
  g_assert_cmpint (m.step_time, ==, 140 * US);
  g_assert_cmpint (m.cp_length, ==, 140 * US);
  g_assert_cmpint (m.cp_inferred, ==, 2 * US);
  g_assert_cmpint (m.cp_wait, ==, 0);
  g_assert_cmpint (m.cp_launch, ==, 0);
  g_assert_cmpint (m.cp_compute + m.cp_comm, ==, 138 * US);
  cp = weft_solver_critical_path (solver, WEFT_SOLVER_ALL_STEPS);
  for (guint i = 0; i < cp->len; i++)
    {
      const WeftPathSegment *sg = &g_array_index (cp, WeftPathSegment, i);
      if (sg->via != WEFT_DEP_INFERRED)
        continue;
      seen = TRUE;
      g_assert_cmpint (sg->kind, ==, WEFT_PATH_INFERRED);
      g_assert_cmpuint (sg->event, ==, disp);
      g_assert_cmpuint (sg->pred_event, ==, k1);
    }
  g_assert_true (seen);
  g_assert_true (weft_solver_is_critical (solver, 0, k1));
}
/* ---- step time and overlap as users define them (docs/solver.md, "Metrics") ---- */

static void
step_metrics (WeftSolver *solver, WeftMetrics *m)
{
  g_assert_true (weft_solver_metrics (solver, WEFT_SOLVER_ALL_RANKS, 1, m));
  g_assert_cmpint (m->step_source, ==, WEFT_STEP_TIME_PROFILER_STEP);
  g_assert_cmpint (m->end - m->begin, ==, m->step_time);
}

/* HTA's overlap: communication kernels overlapped by compute kernels; a
 * memcpy is neither. An all-reduce on stream 20 (100..300 us), a pageable
 * H2D memcpy on stream 8 (150..250 us, inside the all-reduce) and a GEMM on
 * stream 7 (250..350 us, its last 50 us under the all-reduce). The step
 * (ProfilerStep#1) is 0..360 us. */
static const GenOp memcpy_ops[] = {
  { 20, AR, 100, 200, 90, FALSE, 0 },
  { 7, GEMM, 250, 100, 5, FALSE, 0 },
};
static const char memcpy_extra[] =
  "{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD (Pageable -> Device)\", \"pid\": 0, "
  "\"tid\": 8, \"ts\": 150.000, \"dur\": 100.000, \"args\": {\"device\": 0, \"stream\": 8, \"correlation\": 4000, "
  "\"bytes\": 1048576, \"memory bandwidth (GB/s)\": 10.5}}";

static void
test_overlap_excludes_memcpy (void)
{
  const GenOp *ops[] = { memcpy_ops };
  guint n[] = { G_N_ELEMENTS (memcpy_ops) };
  const char *extra[] = { memcpy_extra };
  g_autoptr (WeftTrace) trace = gen_trace_extra ("memcpy-overlap", 1, ops, n, extra);
  g_autoptr (WeftSolver) solver = weft_test_solver_new (trace);
  g_autoptr (GError) error = NULL;
  guint32 gemm = find_named (trace, 0, GEMM, 0);
  WeftMetrics m;

  step_metrics (solver, &m);
  g_assert_cmpint (m.step_time, ==, 360 * US);
  g_assert_cmpint (m.gpu_span, ==, 250 * US);
  g_assert_cmpint (m.gpu_begin - m.begin, ==, 100 * US);
  g_assert_cmpint (m.comm, ==, 200 * US);
  g_assert_cmpint (m.compute, ==, 100 * US);           /* the GEMM; not the memcpy */
  g_assert_cmpint (m.memcpy_memset, ==, 100 * US);
  g_assert_cmpint (m.overlapped, ==, 50 * US);         /* 250..300: the GEMM under the all-reduce */
  g_assert_cmpint (m.comm_only, ==, 150 * US);         /* 100..250, the memcpy does not hide it */
  g_assert_cmpfloat_with_epsilon (m.overlap_pct, 25.0, 1e-9);
  g_assert_cmpint (m.idle, ==, 110 * US);              /* 0..100 and 350..360: no GPU op at all */

  /* the GEMM moved off the all-reduce: only the memcpy overlaps it, overlap 0 */
  g_assert_true (weft_solver_set_min_start (solver, 0, gemm, weft_solver_start (solver, 0, gemm) + 50 * US, &error));
  g_assert_true (weft_solver_metrics (solver, WEFT_SOLVER_ALL_RANKS, 1, &m));
  g_assert_cmpint (m.overlapped, ==, 0);
  g_assert_cmpfloat (m.overlap_pct, ==, 0.0);
  g_assert_cmpint (m.comm_only, ==, 200 * US);
  /* the GEMM now ends at 400 us, 40 us past the step's end: the step grows by that */
  g_assert_cmpint (m.step_time, ==, 400 * US);
  g_assert_cmpint (m.gpu_span, ==, 300 * US);
}

/* K1 (10..110 us) and K2 (110..210 us) queued on stream 7, launched at 0
 * and 2 us; the CPU waits for K2 in cudaStreamSynchronize (6..212 us, a
 * loss.item()) and the step's annotation ends at 220 us. */
static const GenOp step_ops[] = {
  { 7, GEMM, 10, 100, 0, FALSE, 0 },
  { 7, ELEM, 110, 100, 2, FALSE, 0 },
};
static const char step_sync_extra[] =
  "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaStreamSynchronize\", \"pid\": 100, \"tid\": 100, "
  "\"ts\": 6.000, \"dur\": 206.000, \"args\": {\"cbid\": 131, \"correlation\": 3000}}";

static void
test_step_time_sync (void)
{
  const GenOp *ops[] = { step_ops };
  guint n[] = { 2 };
  const char *extra[] = { step_sync_extra };
  g_autoptr (WeftTrace) trace = gen_trace_extra ("step-sync", 1, ops, n, extra);
  g_autoptr (WeftSolver) solver = weft_test_solver_new (trace);
  g_autoptr (GError) error = NULL;
  guint32 k1 = find_named (trace, 0, GEMM, 0);
  WeftMetrics m, base;

  step_metrics (solver, &base);
  g_assert_cmpint (base.step_time, ==, 220 * US);
  g_assert_cmpint (base.gpu_span, ==, 200 * US);
  /* K1 30 us longer: K2 and the sync end 30 us later, and so does the step */
  g_assert_true (weft_solver_set_duration (solver, 0, k1, 130 * US, &error));
  step_metrics (solver, &m);
  g_assert_cmpint (m.step_time, ==, base.step_time + 30 * US);
  g_assert_cmpint (m.begin, ==, base.begin);
  g_assert_cmpint (m.gpu_span, ==, base.gpu_span + 30 * US);
  /* 50 us shorter: the sync returns earlier, the step is 50 us shorter */
  g_assert_true (weft_solver_set_duration (solver, 0, k1, 50 * US, &error));
  step_metrics (solver, &m);
  g_assert_cmpint (m.step_time, ==, base.step_time - 50 * US);
  g_assert_true (weft_solver_baseline_metrics (solver, WEFT_SOLVER_ALL_RANKS, 1, &m));
  g_assert_cmpint (m.step_time, ==, base.step_time);
  /* the critical path covers the step window (it begins at the step's begin) */
  {
    g_autoptr (GArray) cp = weft_solver_critical_path (solver, 1);
    step_metrics (solver, &m);
    g_assert_cmpuint (cp->len, >, 0);
    g_assert_cmpint (g_array_index (cp, WeftPathSegment, 0).begin, ==, m.begin);
  }
}

/* Without a sync the CPU's annotation does not wait for the GPU. The step
 * end is the annotation's end, pushed by GPU work of the step only where an
 * edit moves it past that end by more than it ran past it as loaded:
 * (a) the GPU ends before the annotation (210 vs 220 us): K1 30 us longer
 *     ends the GPU at 240 us, so the step grows by 20 us; shorter, no change;
 * (b) the GPU ran 60 us past the annotation as loaded (step 0..150 us): K1
 *     30 us longer lengthens the step by 30 us; shorter, no change. */
static void
test_step_time_no_sync (void)
{
  const GenOp *ops[] = { step_ops };
  guint n[] = { 2 };
  for (int lag = 0; lag < 2; lag++)
    {
      g_autoptr (WeftTrace) trace = NULL;
      g_autoptr (WeftSolver) solver = NULL;
      g_autoptr (GError) error = NULL;
      guint32 k1;
      WeftMetrics m, base;

      gen_step_end_us = lag ? 150 : -1;
      trace = gen_trace (lag ? "step-lag" : "step-nosync", 1, ops, n);
      gen_step_end_us = -1;
      solver = weft_test_solver_new (trace);
      k1 = find_named (trace, 0, GEMM, 0);
      step_metrics (solver, &base);
      g_assert_cmpint (base.step_time, ==, lag ? 150 * US : 220 * US);
      g_assert_cmpint (base.gpu_span, ==, 200 * US);
      g_assert_true (weft_solver_set_duration (solver, 0, k1, 130 * US, &error));
      step_metrics (solver, &m);
      g_assert_cmpint (m.step_time, ==, base.step_time + (lag ? 30 : 20) * US);
      g_assert_cmpint (m.gpu_span, ==, base.gpu_span + 30 * US);
      g_assert_true (weft_solver_set_duration (solver, 0, k1, 50 * US, &error));
      step_metrics (solver, &m);
      g_assert_cmpint (m.step_time, ==, base.step_time);
      g_assert_cmpint (m.gpu_span, ==, base.gpu_span - 50 * US);
    }
}

/* A NULL solver is a programmer error: refused with a critical, no crash. */
static void
test_null_solver (void)
{
  GError *error = NULL;
  g_test_expect_message (G_LOG_DOMAIN, G_LOG_LEVEL_CRITICAL, "*self != NULL*");
  g_assert_false (weft_solver_set_duration (NULL, 0, 0, 1000, &error));
  g_test_assert_expected_messages ();
  g_test_expect_message (G_LOG_DOMAIN, G_LOG_LEVEL_CRITICAL, "*self != NULL*");
  g_assert_cmpuint (weft_solver_ensure_stream (NULL, 0, 0, 7), ==, WEFT_NONE);
  g_test_assert_expected_messages ();
  g_test_expect_message (G_LOG_DOMAIN, G_LOG_LEVEL_CRITICAL, "*trace != NULL*");
  g_assert_null (weft_solver_new (NULL, &error));
  g_test_assert_expected_messages ();
  g_assert_null (error);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/solver/overlap-excludes-memcpy", test_overlap_excludes_memcpy);
  g_test_add_func ("/solver/step-time-sync", test_step_time_sync);
  g_test_add_func ("/solver/step-time-no-sync", test_step_time_no_sync);
  g_test_add_func ("/solver/critical-kernel-lengthens-step", test_critical_kernel_lengthens_step);
  g_test_add_func ("/solver/off-path-kernel-within-slack", test_off_path_kernel_within_slack);
  g_test_add_func ("/solver/late-arrival-delays-all-ranks", test_late_arrival_delays_all_ranks);
  g_test_add_func ("/solver/move-allreduce-to-own-stream", test_move_allreduce_to_own_stream);
  g_test_add_func ("/solver/reversed-collectives-refused", test_reversed_collectives_refused);
  g_test_add_func ("/solver/sync-shifts-cpu", test_sync_shifts_cpu);
  g_test_add_func ("/solver/two-syncs-shift", test_two_syncs_shift);
  g_test_add_func ("/solver/insert-remove-restore", test_insert_remove_restore);
  g_test_add_func ("/solver/scale-and-min-start", test_scale_and_min_start);
  g_test_add_func ("/solver/insert-collective", test_insert_collective);
  g_test_add_func ("/solver/random-edits-consistent", test_random_edits_consistent);
  g_test_add_func ("/solver/random-edits-consistent-large", test_random_edits_consistent_large);
  g_test_add_func ("/solver/drag-plan", test_drag_plan);
  g_test_add_func ("/solver/odd-input", test_odd_input);
  g_test_add_func ("/solver/late-member", test_late_member);
  g_test_add_func ("/solver/runtime-styles", test_runtime_styles);
  g_test_add_func ("/solver/inferred-edge", test_inferred_edge);
  g_test_add_func ("/solver/null-solver", test_null_solver);
  return g_test_run ();
}
