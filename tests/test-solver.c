/* test-solver.c: the dependency solver on the real traces of ../shared/traces
 * (loaded with the real loader) and on small traces written here as Kineto
 * JSON text and loaded the same way. No part of Weft is mocked. */
#include "config.h"

#include <string.h>

#include "testutil.h"
#include "weft/weft.h"

/* ---- helpers ----------------------------------------------------------------- */

static WeftTrace *
load (const char *path)
{
  g_autoptr (GError) error = NULL;
  WeftTrace *trace = weft_trace_load (path, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (trace);
  return trace;
}

G_GNUC_UNUSED static guint32
find_event (WeftTrace *trace, guint ri, const char *cat, gint64 correlation)
{
  WeftRank *rank = weft_trace_rank (trace, ri);
  for (guint i = 0; i < rank->events->len; i++)
    {
      WeftEvent *ev = weft_rank_event (rank, i);
      if (ev->correlation == correlation && ev->ph == WEFT_PH_X &&
          strcmp (weft_rank_string (rank, ev->cat), cat) == 0)
        return i;
    }
  return WEFT_NONE;
}

G_GNUC_UNUSED static guint32
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

/* ---- replay of every shared trace ---------------------------------------------- */

/* Classes of traces that break the model (named in the report):
 * - "stream overlap": an op starts before its stream predecessor ends
 *   (profiler artefact). The stream edge keeps the observed (negative) gap
 *   as an "observed overlap allowance", so replay is exact.
 * - "rendezvous end skew": the ranks' ends of one collective instance differ
 *   after clock alignment; the solver ends every member at one time (the
 *   median observed end), so a member's end differs from its own observed end
 *   by at most the instance's spread. Checked against that spread. */
static void
replay_one (const char *relative)
{
  g_autofree char *path = weft_test_trace_path (relative);
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftTrace) trace = NULL;
  g_autoptr (WeftSolver) solver = NULL;
  guint n_ops = 0, n_overlap = 0, n_skew = 0;
  gint64 worst = 0;
  WeftMetrics m;

  if (path == NULL)
    {
      g_test_message ("%s absent: skipped", relative);
      return;
    }
  trace = load (path);
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
              gint64 s, e, spread = 0;
              if (!(ev->flags & WEFT_EVENT_GPU_OP) || ev->ph != WEFT_PH_X)
                continue;
              g_assert_true (weft_solver_is_node (solver, r, ei));
              n_ops++;
              if (prev_end != G_MININT64 && ev->ts < prev_end)
                n_overlap++;
              prev_end = MAX (prev_end, weft_event_end (ev));
              s = weft_solver_start (solver, r, ei);
              e = weft_solver_end (solver, r, ei);
              if (ABS (s - (ev->ts + off)) > 1000)
                g_error ("%s: rank %d event %u '%s': solved start %" G_GINT64_FORMAT " vs observed %" G_GINT64_FORMAT,
                         relative, rank->rank, ei, weft_rank_string (rank, ev->name), s, ev->ts + off);
              if (ev->coll != WEFT_NONE)
                {
                  const WeftCollective *c = &g_array_index (rank->collectives, WeftCollective, ev->coll);
                  if (c->instance != WEFT_NONE)
                    {
                      const WeftCollInstance *inst = &g_array_index (trace->instances, WeftCollInstance, c->instance);
                      gint64 lo = G_MAXINT64, hi = G_MININT64;
                      for (guint k = 0; k < inst->members->len; k++)
                        {
                          const WeftInstanceMember *mm = &g_array_index (inst->members, WeftInstanceMember, k);
                          WeftRank *rk = weft_trace_rank (trace, mm->rank_index);
                          const WeftCollective *cc = &g_array_index (rk->collectives, WeftCollective, mm->coll);
                          gint64 end = weft_event_end (weft_rank_event (rk, cc->event)) + weft_trace_rank_offset (trace, rk);
                          lo = MIN (lo, end);
                          hi = MAX (hi, end);
                        }
                      spread = hi - lo;
                    }
                }
              if (ABS (e - weft_event_end (ev) - off) > 1000)
                {
                  if (ABS (e - weft_event_end (ev) - off) > MAX (1000, spread))
                    g_error ("%s: rank %d event %u '%s': solved end %" G_GINT64_FORMAT " vs observed %" G_GINT64_FORMAT
                             " (instance spread %" G_GINT64_FORMAT ")",
                             relative, rank->rank, ei, weft_rank_string (rank, ev->name), e, weft_event_end (ev) + off,
                             spread);
                  n_skew++;
                }
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
              hi = MAX (hi, weft_event_end (ev) + off);
            }
        }
      g_assert_true (weft_solver_metrics (solver, WEFT_SOLVER_ALL_RANKS, WEFT_SOLVER_ALL_STEPS, &m));
      g_assert_cmpfloat (ABS ((double) (m.step_time - (hi - lo))), <=, 0.005 * (double) (hi - lo));
      /* per ProfilerStep */
      {
        g_autoptr (GArray) steps = weft_solver_steps (solver);
        for (guint k = 0; k < steps->len; k++)
          {
            int step = g_array_index (steps, int, k);
            WeftMetrics base;
            if (!weft_solver_metrics (solver, WEFT_SOLVER_ALL_RANKS, step, &m))
              continue;
            g_assert_true (weft_solver_baseline_metrics (solver, WEFT_SOLVER_ALL_RANKS, step, &base));
            g_assert_cmpint (m.step_time, ==, base.step_time);
          }
      }
    }
  g_test_message ("%s: %u ranks, %u GPU ops replayed (worst start error %" G_GINT64_FORMAT
                  " ns); stream overlap: %u ops; rendezvous end skew > 1 us: %u ops",
                  relative, trace->ranks->len, n_ops, worst, n_overlap, n_skew);
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
  return g_test_run ();
}
