/* test-solver-shared.c: the dependency solver on the real traces of
 * ../shared/traces (loaded with the real loader; each test skips with a
 * message where they are absent), and weft-cli analyze on them. No part of
 * Weft is mocked. */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include <json-c/json.h>

#include "core/solver-private.h"
#include "testutil.h"
#include "weft/weft.h"

#define US 1000

/* ---- DLRM: 8 ranks ------------------------------------------------------------ */

static void
test_dlrm_rendezvous (void)
{
  g_autofree char *dir = weft_test_require_trace ("param/et_replay/tests/inputs/dlrm_kineto");
  g_autoptr (WeftTrace) trace = NULL;
  g_autoptr (WeftSolver) solver = NULL;
  guint n_ar = 0, n_a2a = 0;
  if (dir == NULL)
    return;
  trace = weft_test_load (dir);
  solver = weft_test_solver_new (trace);
  g_assert_cmpuint (trace->ranks->len, ==, 8);
  for (guint i = 0; i < trace->instances->len; i++)
    {
      WeftSolverInstanceInfo info;
      WeftSolverArrival arr[8];
      gint64 latest = G_MININT64;
      guint latest_rank = G_MAXUINT;
      g_assert_true (weft_solver_instance_info (solver, i, &info, arr, 8));
      g_assert_cmpuint (info.n_members, ==, 8);
      if (info.type == WEFT_COLL_ALL_REDUCE)
        n_ar++;
      else if (info.type == WEFT_COLL_ALL_TO_ALL || info.type == WEFT_COLL_SEND_RECV)
        n_a2a++;
      for (guint k = 0; k < 8; k++)
        {
          /* each rank ends at its own observed end (the ranks' ends of
           * one instance differ by a few us after clock alignment: the
           * calibrated end offsets replay them exactly), within 10 us of the
           * instance's end; the straggler is the latest arrival */
          {
            WeftRank *rk = weft_trace_rank (trace, arr[k].rank_index);
            const WeftEvent *ev = weft_rank_event (rk, arr[k].event);
            g_assert_cmpint (arr[k].end, ==, weft_event_end (rk, ev) + weft_trace_rank_offset (trace, rk));
          }
          g_assert_cmpint (ABS (arr[k].end - info.end), <=, 10000);
          g_assert_cmpint (arr[k].end, ==, weft_solver_end (solver, arr[k].rank_index, arr[k].event));
          g_assert_cmpint (arr[k].wait, ==, info.last_arrival - arr[k].arrival);
          if (arr[k].arrival > latest)
            {
              latest = arr[k].arrival;
              latest_rank = arr[k].rank_index;
            }
        }
      g_assert_cmpuint (info.last_rank_index, ==, latest_rank);
      g_assert_cmpint (info.end - info.last_arrival, ==, info.transfer);
      g_test_message ("instance %u %s: last rank %d, max wait %.1f us, transfer %.1f us", i,
                      weft_coll_type_to_string (info.type), weft_trace_rank (trace, info.last_rank_index)->rank,
                      info.max_wait / 1e3, info.transfer / 1e3);
    }
  /* 3 all-reduces and 5 all-to-alls on stream 84 (../shared/traces/README.md) */
  g_assert_cmpuint (n_ar, ==, 3);
  g_assert_cmpuint (n_a2a, ==, 5);
}

/* synthetic/fsdp8 has no cuda_sync events: its cross-stream dependencies are
 * only the ProcessGroupNCCL pattern (README: cudaEventRecord ->
 * cudaStreamWaitEvent -> NCCL launch -> cudaEventRecord -> later
 * cudaStreamWaitEvent, sharing the External id). Every NCCL kernel must then
 * wait for an op of the compute stream 7 (its producer), and every
 * all-gather must be waited for by an op of stream 7 (the copy-out). */
static void
test_fsdp8_nccl_pattern (void)
{
  g_autofree char *dir = weft_test_require_trace ("synthetic/fsdp8");
  g_autoptr (WeftTrace) trace = NULL;
  g_autoptr (WeftSolver) solver = NULL;
  guint n_nccl = 0, n_ag = 0;
  if (dir == NULL)
    return;
  trace = weft_test_load (dir);
  solver = weft_test_solver_new (trace);
  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);
      g_autoptr (GHashTable) waited = g_hash_table_new (g_direct_hash, g_direct_equal);
      for (guint i = 0; i < rank->events->len; i++)
        {
          WeftEvent *ev = weft_rank_event (rank, i);
          WeftSolverDep deps[16];
          guint nd;
          if (!weft_solver_is_node (solver, r, i) || weft_rank_lane (rank, ev->lane)->tid != 7)
            continue;
          nd = weft_solver_preds (solver, r, i, deps, G_N_ELEMENTS (deps));
          for (guint k = 0; k < MIN (nd, G_N_ELEMENTS (deps)); k++)
            if (deps[k].kind == WEFT_DEP_CROSS_STREAM)
              g_hash_table_add (waited, GUINT_TO_POINTER (deps[k].event + 1));
        }
      for (guint i = 0; i < rank->events->len; i++)
        {
          WeftEvent *ev = weft_rank_event (rank, i);
          const char *name = weft_rank_string (rank, ev->name);
          WeftSolverDep deps[16];
          guint nd;
          gboolean producer = FALSE;
          if (!weft_solver_is_node (solver, r, i) || !g_str_has_prefix (name, "ncclDevKernel_"))
            continue;
          n_nccl++;
          nd = weft_solver_preds (solver, r, i, deps, G_N_ELEMENTS (deps));
          for (guint k = 0; k < MIN (nd, G_N_ELEMENTS (deps)); k++)
            if (deps[k].kind == WEFT_DEP_CROSS_STREAM)
              {
                WeftEvent *p = weft_rank_event (rank, deps[k].event);
                producer = producer || weft_rank_lane (rank, p->lane)->tid == 7;
              }
          g_assert_true (producer);
          if (g_str_has_prefix (name, "ncclDevKernel_AllGather"))
            {
              n_ag++;
              g_assert_true (g_hash_table_contains (waited, GUINT_TO_POINTER (i + 1)));
            }
        }
    }
  g_assert_cmpuint (n_ag, >, 0);
  g_test_message ("fsdp8: %u NCCL kernels each wait for a compute-stream producer; %u all-gathers each have a "
                  "compute-stream consumer",
                  n_nccl, n_ag);
}

/* ---- HTA critical_path traces -------------------------------------------------- */

/* cuda_event_sync_multi_stream (one GPU, streams 20, 24, 28), read by hand:
 * - sgemm (correlation 27) runs on stream 20 at 348700 us (+123 us);
 * - cudaEventRecord (correlation 1385) at 367666 us, then "Stream Wait Event"
 *   on stream 24 with wait_on_stream 20, wait_on_cuda_event_record_corr_id
 *   1385: stream 24 waits for the last op launched on stream 20 before that
 *   record, the sgemm 27; the next op launched on stream 24 after the wait is
 *   the memset (correlation 1411, 368034 us);
 * - the last op to finish is the sgemm on stream 24 (correlation 1413,
 *   368050 + 123 us): the critical path ends there. Its launch
 *   (cudaLaunchKernel) starts at 368035 us, when stream 24 is already idle
 *   (the memset ended at 368035 us), and no blocking sync precedes that
 *   launch on the thread (the Event Syncs are cudaEventQuery polls; the
 *   cudaDeviceSynchronize comes after): the CPU launch binds, so the path is
 *   the 15 us launch segment then the 123 us sgemm. Before that launch the
 *   CPU thread ran freely (no sync held it) since the first GPU op of the
 *   trace (the memset at 348667 us): CPU time on the path. The path is the
 *   whole span, 368173 - 348667 = 19506 us, of which 123 us compute;
 * - sgemm 27 has nothing else after it on stream 20, so its slack is the
 *   distance to the memset's start: 368034 - 348823 = 19211 us. */
static void
test_hta_multi_stream (void)
{
  g_autofree char *dir = weft_test_require_trace ("HolisticTraceAnalysis/critical_path/cuda_event_sync_multi_stream");
  g_autoptr (WeftTrace) trace = NULL;
  g_autoptr (WeftSolver) solver = NULL;
  guint32 sgemm20, memset24, sgemm24;
  WeftSolverDep deps[16];
  guint nd;
  gboolean found = FALSE;
  g_autoptr (GArray) cp = NULL;
  const WeftPathSegment *lastseg;
  gboolean memset_on_path = FALSE;

  if (dir == NULL)
    return;
  trace = weft_test_load (dir);
  solver = weft_test_solver_new (trace);
  sgemm20 = weft_test_find_x (trace, 0, "kernel", 27);
  memset24 = weft_test_find_x (trace, 0, "gpu_memset", 1411);
  sgemm24 = weft_test_find_x (trace, 0, "kernel", 1413);
  g_assert_cmpuint (sgemm20, !=, WEFT_NONE);
  g_assert_cmpuint (memset24, !=, WEFT_NONE);
  nd = weft_solver_preds (solver, 0, memset24, deps, G_N_ELEMENTS (deps));
  for (guint i = 0; i < MIN (nd, G_N_ELEMENTS (deps)); i++)
    if (deps[i].kind == WEFT_DEP_CROSS_STREAM && deps[i].event == sgemm20)
      found = TRUE;
  g_assert_true (found);

  cp = weft_solver_critical_path (solver, WEFT_SOLVER_ALL_STEPS);
  g_assert_cmpuint (cp->len, >, 0);
  lastseg = &g_array_index (cp, WeftPathSegment, cp->len - 1);
  g_assert_cmpuint (lastseg->event, ==, sgemm24);
  g_assert_cmpint (lastseg->kind, ==, WEFT_PATH_COMPUTE);
  g_assert_cmpint (lastseg->end - lastseg->begin, ==, 123 * US);
  g_assert_cmpuint (cp->len, ==, 3);
  g_assert_cmpint (g_array_index (cp, WeftPathSegment, 1).kind, ==, WEFT_PATH_LAUNCH);
  g_assert_cmpint (g_array_index (cp, WeftPathSegment, 1).end - g_array_index (cp, WeftPathSegment, 1).begin, ==, 15 * US);
  g_assert_cmpint (g_array_index (cp, WeftPathSegment, 0).kind, ==, WEFT_PATH_LAUNCH);
  {
    WeftMetrics m;
    g_assert_true (weft_solver_metrics (solver, WEFT_SOLVER_ALL_RANKS, WEFT_SOLVER_ALL_STEPS, &m));
    g_assert_cmpint (m.cp_length, ==, 19506 * US);
    g_assert_cmpint (m.step_time, ==, 19506 * US);
    g_assert_cmpint (m.cp_compute, ==, 123 * US);
    g_assert_cmpint (m.cp_launch, ==, (19506 - 123) * US);
  }
  for (guint i = 0; i < cp->len; i++)
    if (g_array_index (cp, WeftPathSegment, i).event == memset24)
      memset_on_path = TRUE;
  g_assert_false (memset_on_path);
  g_assert_true (weft_solver_is_critical (solver, 0, sgemm24));
  g_assert_false (weft_solver_is_critical (solver, 0, sgemm20));
  g_assert_cmpint (weft_solver_slack (solver, 0, sgemm20), ==, 19211 * US);
}

/* alexnet (streams 7 and 20), read by hand for the second iteration:
 * - "Stream Wait Event" (correlation 5194) on stream 7 with wait_on_stream
 *   20 and record correlation 5193 (cudaEventRecord at ...5756531 us): the
 *   last op launched on stream 20 before it is fft2d_c2r (correlation 5190)
 *   and the next op launched on stream 7 after the wait (...5756536 us) is
 *   elementwise_kernel (correlation 5213): that edge is in the graph;
 * - in the next iteration the same pattern: fft2d_c2r on stream 20
 *   (correlation 5606) ends at ...5860633 and elementwise_kernel on stream 7
 *   (correlation 5629), launched at ...5860193, starts at ...5860634 while
 *   its stream predecessor (fft2d_r2c, correlation 5594) ended at ...5860129:
 *   only the cross-stream edge explains its start, so it binds, and
 *   lengthening that c2r by 100 us starts the elementwise kernel 100 us
 *   later. */
static void
test_hta_alexnet (void)
{
  g_autofree char *dir = weft_test_require_trace ("HolisticTraceAnalysis/critical_path/alexnet");
  g_autoptr (WeftTrace) trace = NULL;
  g_autoptr (WeftSolver) solver = NULL;
  g_autoptr (GError) error = NULL;
  guint32 c2r, elem, c2r2, elem2, pred_event;
  guint pred_rank;
  WeftSolverDep deps[16];
  guint nd;
  gboolean found = FALSE;
  gint64 s0;

  if (dir == NULL)
    return;
  trace = weft_test_load (dir);
  solver = weft_test_solver_new (trace);
  c2r = weft_test_find_x (trace, 0, "kernel", 5190);
  elem = weft_test_find_x (trace, 0, "kernel", 5213);
  c2r2 = weft_test_find_x (trace, 0, "kernel", 5606);
  elem2 = weft_test_find_x (trace, 0, "kernel", 5629);
  g_assert_cmpuint (elem, !=, WEFT_NONE);
  g_assert_cmpuint (elem2, !=, WEFT_NONE);
  nd = weft_solver_preds (solver, 0, elem, deps, G_N_ELEMENTS (deps));
  for (guint i = 0; i < MIN (nd, G_N_ELEMENTS (deps)); i++)
    if (deps[i].kind == WEFT_DEP_CROSS_STREAM && deps[i].event == c2r)
      found = TRUE;
  g_assert_true (found);
  g_assert_cmpint (weft_solver_binding (solver, 0, elem2, &pred_rank, &pred_event), ==, WEFT_DEP_CROSS_STREAM);
  g_assert_cmpuint (pred_event, ==, c2r2);
  s0 = weft_solver_start (solver, 0, elem2);
  g_assert_true (weft_solver_set_duration (solver, 0, c2r2, weft_solver_duration (solver, 0, c2r2) + 100 * US, &error));
  g_assert_cmpint (weft_solver_start (solver, 0, elem2), ==, s0 + 100 * US);
}

/* ---- weft-cli analyze --------------------------------------------------------------- */

static char *
run_cli (const char * const *args, int *status)
{
  g_autofree char *cli = weft_test_build_path ("weft-cli");
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  char *out = NULL;
  g_ptr_array_add (argv, cli);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL,
                               status, &error));
  g_assert_no_error (error);
  return out;
}

/* analyze names each DLRM instance's last-arriving rank: the rank whose
 * kernel starts last in the solved schedule (read here from the loaded model
 * with the clock offsets, independently of the solver). */
static void
test_analyze_dlrm (void)
{
  g_autofree char *dir = weft_test_require_trace ("param/et_replay/tests/inputs/dlrm_kineto");
  g_autoptr (WeftTrace) trace = NULL;
  g_autofree char *out = NULL, *text = NULL;
  json_object *doc, *colls;
  int status = -1;
  if (dir == NULL)
    return;
  {
    const char *args[] = { "analyze", "--json", "--top", "3", dir, NULL };
    out = run_cli (args, &status);
  }
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  doc = json_tokener_parse (out);
  g_assert_nonnull (doc);
  trace = weft_test_load (dir);
  g_assert_true (json_object_object_get_ex (doc, "collectives", &colls));
  g_assert_cmpuint (json_object_array_length (colls), ==, trace->instances->len);
  for (guint i = 0; i < json_object_array_length (colls); i++)
    {
      json_object *c = json_object_array_get_idx (colls, i), *v;
      const WeftCollInstance *inst;
      gint64 latest = G_MININT64;
      int latest_rank = -1;
      g_assert_true (json_object_object_get_ex (c, "instance", &v));
      inst = &g_array_index (trace->instances, WeftCollInstance, json_object_get_int (v));
      for (guint k = 0; k < inst->members->len; k++)
        {
          const WeftInstanceMember *m = &g_array_index (inst->members, WeftInstanceMember, k);
          WeftRank *rk = weft_trace_rank (trace, m->rank_index);
          const WeftCollective *cc = &g_array_index (rk->collectives, WeftCollective, m->coll);
          gint64 start = weft_rank_event (rk, cc->event)->ts + weft_trace_rank_offset (trace, rk);
          if (start > latest)
            {
              latest = start;
              latest_rank = rk->rank;
            }
        }
      g_assert_true (json_object_object_get_ex (c, "last_arriving_rank", &v));
      g_assert_cmpint (json_object_get_int (v), ==, latest_rank);
      g_assert_true (json_object_object_get_ex (c, "arrivals", &v));
      g_assert_cmpuint (json_object_array_length (v), ==, 8);
    }
  json_object_put (doc);

  {
    const char *args[] = { "analyze", dir, NULL };
    text = run_cli (args, &status);
  }
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_nonnull (strstr (text, "overlap % = overlapped / communication time (HTA's definition)"));
  g_assert_nonnull (strstr (text, "last-arriving rank"));
  g_assert_nonnull (strstr (text, "Critical path"));
}

static void
test_analyze_bad_step (void)
{
  g_autofree char *dir = weft_test_require_trace ("synthetic/fsdp8");
  g_autofree char *out = NULL;
  int status = 0;
  GError *error = NULL;
  if (dir == NULL)
    return;
  {
    const char *args[] = { "analyze", "--step", "3", dir, NULL };
    out = run_cli (args, &status);
  }
  g_assert_false (g_spawn_check_wait_status (status, &error));
  g_assert_error (error, G_SPAWN_EXIT_ERROR, 2);
  g_clear_error (&error);
  {
    const char *args[] = { "analyze", "--step", "9", dir, NULL };
    g_free (out);
    out = run_cli (args, &status);
  }
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_nonnull (strstr (out, "ProfilerStep#9"));
}

/* ---- replay of every shared trace ---------------------------------------------- */

/* The critical path of a step is the step's: never longer than the step,
 * on the whole trace and on every rank, its segments in time order without
 * overlap inside the step's window, and its composition adds up. */
static void
check_path_within_step (const char *relative, WeftSolver *solver, WeftTrace *trace, int step)
{
  for (guint r = 0; r <= trace->ranks->len; r++)
    {
      guint ri = r == trace->ranks->len ? WEFT_SOLVER_ALL_RANKS : r;
      WeftMetrics m;
      if (!weft_solver_metrics (solver, ri, step, &m))
        continue;
      if (m.cp_length > m.step_time)
        g_error ("%s: step %d rank %d: critical path %" G_GINT64_FORMAT " ns longer than the step %" G_GINT64_FORMAT
                 " ns",
                 relative, step, (int) r, m.cp_length, m.step_time);
      g_assert_cmpint (m.cp_compute + m.cp_comm + m.cp_launch + m.cp_wait + m.cp_inferred, ==, m.cp_length);
    }
  {
    g_autoptr (GArray) cp = weft_solver_critical_path (solver, step);
    WeftMetrics m;
    g_assert_true (weft_solver_metrics (solver, WEFT_SOLVER_ALL_RANKS, step, &m));
    for (guint i = 0; i < cp->len; i++)
      {
        const WeftPathSegment *sg = &g_array_index (cp, WeftPathSegment, i);
        g_assert_cmpint (sg->begin, <=, sg->end);
        g_assert_cmpint (sg->begin, >=, m.begin);
        g_assert_cmpint (sg->end, <=, m.end);
        if (i > 0)
          g_assert_cmpint (sg->begin, >=, g_array_index (cp, WeftPathSegment, i - 1).end);
      }
  }
}

/* Every GPU op of an unmodified trace at its observed start and end, to the
 * ns. Classes of traces that break the model (named in the report):
 * - "stream overlap": an op starts before its stream predecessor ends
 *   (profiler artefact). The stream edge keeps the observed (negative) gap
 *   as an "observed overlap allowance", so replay is exact.
 * - "rendezvous end skew": the ranks' ends of one collective instance differ
 *   after clock alignment; each member keeps its observed end as an offset
 *   from the instance's end, so replay is exact too. */
static void
replay_one (const char *relative)
{
  g_autofree char *path = weft_test_trace_path (relative);
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftTrace) trace = NULL;
  g_autoptr (WeftSolver) solver = NULL;
  guint n_ops = 0, n_overlap = 0;
  gint64 worst = 0;
  WeftMetrics m;

  if (path == NULL)
    {
      g_test_message ("%s absent: skipped", relative);
      return;
    }
  trace = weft_test_load (path);
  solver = weft_solver_new (trace, &error);
  g_assert_no_error (error);

  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);
      gint64 off = weft_trace_rank_offset (trace, rank);
      for (guint li = 0; li < rank->lanes->len; li++)
        {
          WeftLane *lane = weft_rank_lane (rank, li);
          gint64 prev_end = G_MININT64;
          for (guint j = 0; j < lane->events->len; j++)
            {
              guint32 ei = g_array_index (lane->events, guint32, j);
              WeftEvent *ev = weft_rank_event (rank, ei);
              gint64 s, e;
              if (!(ev->flags & WEFT_EVENT_GPU_OP) || ev->ph != WEFT_PH_X)
                continue;
              g_assert_true (weft_solver_is_node (solver, r, ei));
              n_ops++;
              if (prev_end != G_MININT64 && ev->ts < prev_end)
                n_overlap++;
              prev_end = MAX (prev_end, weft_event_end (rank, ev));
              s = weft_solver_start (solver, r, ei);
              e = weft_solver_end (solver, r, ei);
              if (s != ev->ts + off)
                g_error ("%s: rank %d event %u '%s': solved start %" G_GINT64_FORMAT " vs observed %" G_GINT64_FORMAT,
                         relative, rank->rank, ei, weft_rank_string (rank, ev->name), s, ev->ts + off);
              if (e != weft_event_end (rank, ev) + off)
                g_error ("%s: rank %d event %u '%s': solved end %" G_GINT64_FORMAT " vs observed %" G_GINT64_FORMAT,
                         relative, rank->rank, ei, weft_rank_string (rank, ev->name), e, weft_event_end (rank, ev) + off);
              worst = MAX (worst, ABS (s - (ev->ts + off)));
            }
        }
    }

  /* step time: observed span of the GPU ops (offsets applied) vs solved */
  if (n_ops > 0)
    {
      gint64 lo = G_MAXINT64, hi = G_MININT64;
      for (guint r = 0; r < trace->ranks->len; r++)
        {
          WeftRank *rank = weft_trace_rank (trace, r);
          gint64 off = weft_trace_rank_offset (trace, rank);
          for (guint i = 0; i < rank->events->len; i++)
            {
              WeftEvent *ev = weft_rank_event (rank, i);
              if (!(ev->flags & WEFT_EVENT_GPU_OP) || ev->ph != WEFT_PH_X || (ev->flags & WEFT_EVENT_DELETED))
                continue;
              lo = MIN (lo, ev->ts + off);
              hi = MAX (hi, weft_event_end (rank, ev) + off);
            }
        }
      g_assert_true (weft_solver_metrics (solver, WEFT_SOLVER_ALL_RANKS, WEFT_SOLVER_ALL_STEPS, &m));
      g_assert_cmpint (m.step_source, ==, WEFT_STEP_TIME_GPU_SPAN);
      g_assert_cmpint (m.step_time, ==, m.gpu_span);
      g_assert_cmpfloat (ABS ((double) (m.step_time - (hi - lo))), <=, 0.005 * (double) (hi - lo));
      /* per ProfilerStep: the observed span of the ops of the step (an op
       * belongs to ProfilerStep#N when its launch starts inside the step's
       * annotation on its rank; an op without a launch, when it starts after
       * the latest step start before it), read from the model here */
      {
        g_autoptr (GArray) steps = weft_solver_steps (solver);
        for (guint k = 0; k < steps->len; k++)
          {
            int step = g_array_index (steps, int, k);
            gint64 slo = G_MAXINT64, shi = G_MININT64;
            for (guint r = 0; r < trace->ranks->len; r++)
              {
                WeftRank *rank = weft_trace_rank (trace, r);
                gint64 off = weft_trace_rank_offset (trace, rank);
                for (guint i = 0; i < rank->events->len; i++)
                  {
                    WeftEvent *ev = weft_rank_event (rank, i);
                    gint64 t;
                    int in_step = G_MININT;
                    if (!(ev->flags & WEFT_EVENT_GPU_OP) || ev->ph != WEFT_PH_X)
                      continue;
                    t = weft_event_link (ev) != WEFT_NONE ? weft_rank_event (rank, weft_event_link (ev))->ts : ev->ts;
                    for (guint q = 0; q < rank->steps->len; q++)
                      {
                        const WeftStep *st = &g_array_index (rank->steps, WeftStep, q);
                        if (st->begin <= t && (t < st->end || weft_event_link (ev) == WEFT_NONE))
                          in_step = st->number; /* steps sorted by begin: the last one wins */
                      }
                    if (in_step != step)
                      continue;
                    slo = MIN (slo, ev->ts + off);
                    shi = MAX (shi, weft_event_end (rank, ev) + off);
                  }
              }
            /* the step time is the ProfilerStep#N span (the longest over
             * the ranks), exactly, on the trace as loaded; the GPU span of
             * the step's ops is its own figure */
            {
              gint64 ps = -1;
              for (guint r = 0; r < trace->ranks->len; r++)
                {
                  WeftRank *rank = weft_trace_rank (trace, r);
                  gint64 plo = G_MAXINT64, phi = G_MININT64;
                  for (guint q = 0; q < rank->steps->len; q++)
                    {
                      const WeftStep *st = &g_array_index (rank->steps, WeftStep, q);
                      if (st->number != step)
                        continue;
                      plo = MIN (plo, st->begin);
                      phi = MAX (phi, st->end);
                    }
                  if (phi != G_MININT64)
                    ps = MAX (ps, phi - plo);
                }
              g_assert_cmpint (ps, >=, 0);
              g_assert_true (weft_solver_metrics (solver, WEFT_SOLVER_ALL_RANKS, step, &m));
              g_assert_cmpint (m.step_source, ==, WEFT_STEP_TIME_PROFILER_STEP);
              g_assert_cmpint (ABS (m.step_time - ps), <=, 1);
              g_assert_cmpint (m.end - m.begin, ==, m.step_time);
              check_path_within_step (relative, solver, trace, step);
              if (slo > shi)
                {
                  g_assert_cmpint (m.gpu_span, ==, 0);
                  g_test_message ("%s: ProfilerStep#%d: step time %.1f us, no GPU op", relative, step,
                                  m.step_time / 1e3);
                  continue;
                }
              g_assert_cmpfloat (ABS ((double) (m.gpu_span - (shi - slo))), <=, 0.005 * (double) (shi - slo));
              g_test_message ("%s: ProfilerStep#%d: step time %.1f us (ProfilerStep %.1f us), GPU span %.1f us "
                              "(observed %.1f us)",
                              relative, step, m.step_time / 1e3, ps / 1e3, m.gpu_span / 1e3, (shi - slo) / 1e3);
            }
          }
      }
    }
  {
    WeftSolverStats st;
    weft_solver_stats (solver, &st);
    g_assert_cmpuint (st.n_ops, ==, n_ops);
    g_test_message ("%s: %u ranks, %u GPU ops replayed (worst start error %" G_GINT64_FORMAT
                    " ns); stream overlap: %u ops; graph: %u syncs, %u "
                    "instances, %u cross-stream edges, %u inferred edges contradicted, %u cycle edges dropped, %u "
                    "instances dissolved, %u with a late member, %u unexplained starts",
                    relative, trace->ranks->len, n_ops, worst, n_overlap, st.n_syncs, st.n_instances,
                    st.n_cross_stream, st.n_inferred_dropped, st.n_build_cycle_edges, st.n_instances_dissolved,
                    st.n_instances_late, st.n_unexplained);
  }
}

static void
test_replay_shared (void)
{
  static const char *traces[] = {
    "param/et_replay/tests/inputs/dlrm_kineto",
    "synthetic/fsdp8",
    "HolisticTraceAnalysis/critical_path/alexnet",
    "HolisticTraceAnalysis/critical_path/cuda_event_sync",
    "HolisticTraceAnalysis/critical_path/cuda_event_sync_multi_stream",
    "HolisticTraceAnalysis/nccl_parser_config/nccl_data.json.gz",
    "HolisticTraceAnalysis/negative_queue_length_values_check/rank0.json.gz",
    "HolisticTraceAnalysis/trace_diff/control/control.json.gz",
    "HolisticTraceAnalysis/trace_filter",
    "HolisticTraceAnalysis/cpu_only",
    "HolisticTraceAnalysis/distributed_info_unavailable",
    "TraceLens/b200/eager_trace.json.gz",
    "HolisticTraceAnalysis/df_index_resolver/df_index_resolver.json.gz",
    "TraceLens/h100",
    "TraceLens/mi300",
    "TraceLens/mi210/gpu_only_trace",
    "TraceLens/torch_compile_triton",
  };
  g_autofree char *dir = weft_test_require_trace ("");
  if (dir == NULL)
    return;
  for (guint i = 0; i < G_N_ELEMENTS (traces); i++)
    replay_one (traces[i]);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/solver/replay-shared", test_replay_shared);
  g_test_add_func ("/solver/dlrm-rendezvous", test_dlrm_rendezvous);
  g_test_add_func ("/solver/analyze-dlrm", test_analyze_dlrm);
  g_test_add_func ("/solver/analyze-bad-step", test_analyze_bad_step);
  g_test_add_func ("/solver/fsdp8-nccl-pattern", test_fsdp8_nccl_pattern);
  g_test_add_func ("/solver/hta-multi-stream", test_hta_multi_stream);
  g_test_add_func ("/solver/hta-alexnet", test_hta_alexnet);
  return g_test_run ();
}
