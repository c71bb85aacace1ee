/* solver-bubble.c: the pipeline bubble of a rank (docs/solver.md,
 * "Pipeline bubble"): the time in a step that the rank's compute stream is
 * idle waiting for another pipeline stage. Built on the solver's public
 * queries only (solved times, bindings, lane orders). */
#include "config.h"

#include <string.h>

#include "weft/weft-solver.h"

/* Ranks linked by a matched send/recv instance: P2P peers (row-major
 * n x n). */
static gboolean *
p2p_peers (WeftTrace *trace, guint n)
{
  gboolean *peer = g_new0 (gboolean, (gsize) n * n);

  for (guint k = 0; k < trace->instances->len; k++)
    {
      const WeftCollInstance *inst = &g_array_index (trace->instances, WeftCollInstance, k);
      if ((inst->type != WEFT_COLL_SEND && inst->type != WEFT_COLL_RECV && inst->type != WEFT_COLL_SEND_RECV)
          || inst->members == NULL)
        continue;
      for (guint a = 0; a < inst->members->len; a++)
        for (guint b = 0; b < inst->members->len; b++)
          {
            guint ra = g_array_index (inst->members, WeftInstanceMember, a).rank_index;
            guint rb = g_array_index (inst->members, WeftInstanceMember, b).rank_index;
            if (ra < n && rb < n && ra != rb)
              peer[(gsize) ra * n + rb] = TRUE;
          }
    }
  return peer;
}

/* Is op (rank r, event e) pipeline communication: a P2P transfer, or a
 * collective whose members include two P2P peers (it spans stages: the
 * gradient norm's all-reduce over pp, a world all-reduce)? */
static gboolean
is_pipeline_comm (WeftTrace *trace, const gboolean *peer, guint n, guint r, guint32 e)
{
  WeftRank *rank = weft_trace_rank (trace, r);
  const WeftEvent *ev = weft_rank_event (rank, e);
  const WeftCollective *c;
  const WeftCollInstance *inst;

  if (weft_event_coll (rank, ev) == WEFT_NONE || weft_event_coll (rank, ev) >= rank->collectives->len)
    return FALSE;
  c = &g_array_index (rank->collectives, WeftCollective, weft_event_coll (rank, ev));
  if (c->type == WEFT_COLL_SEND || c->type == WEFT_COLL_RECV || c->type == WEFT_COLL_SEND_RECV)
    return TRUE;
  if (c->instance == WEFT_NONE || c->instance >= trace->instances->len)
    return FALSE;
  inst = &g_array_index (trace->instances, WeftCollInstance, c->instance);
  for (guint a = 0; inst->members != NULL && a < inst->members->len; a++)
    for (guint b = a + 1; b < inst->members->len; b++)
      {
        guint ra = g_array_index (inst->members, WeftInstanceMember, a).rank_index;
        guint rb = g_array_index (inst->members, WeftInstanceMember, b).rank_index;
        if (ra < n && rb < n && peer[(gsize) ra * n + rb])
          return TRUE;
      }
  return FALSE;
}

/* The compute stream: the GPU lane with the most non-communication kernel
 * time. */
static guint32
compute_lane (WeftSolver *solver, WeftRank *rank, guint r)
{
  guint32 best = WEFT_NONE;
  gint64 best_t = 0;

  for (guint li = 0; li < rank->lanes->len; li++)
    {
      const WeftLane *lane = g_ptr_array_index (rank->lanes, li);
      guint n_ops;
      gint64 t = 0;
      if (lane->kind != WEFT_LANE_GPU)
        continue;
      n_ops = weft_solver_lane_n_ops (solver, r, li);
      for (guint k = 0; k < n_ops; k++)
        {
          guint32 e = weft_solver_lane_op (solver, r, li, k);
          const WeftEvent *ev = weft_rank_event (rank, e);
          if (weft_event_coll (rank, ev) == WEFT_NONE && ev->category == WEFT_CAT_KERNEL && !(ev->flags & WEFT_EVENT_DELETED))
            t += weft_solver_end (solver, r, e) - weft_solver_start (solver, r, e);
        }
      if (t > best_t)
        {
          best_t = t;
          best = li;
        }
    }
  return best;
}

/* Why op (r, e) started when it did: its binding chain (through ops of
 * the same rank on other streams, at most 8 hops) reaches pipeline
 * communication. */
static gboolean
waits_for_pipeline (WeftSolver *solver, WeftTrace *trace, const gboolean *peer, guint n, guint r, guint32 e)
{
  for (int hop = 0; hop < 8; hop++)
    {
      guint pr = WEFT_NONE;
      guint32 pe = WEFT_NONE;
      WeftDepKind kind = weft_solver_binding (solver, r, e, &pr, &pe);

      if (kind != WEFT_DEP_CROSS_STREAM && kind != WEFT_DEP_RENDEZVOUS && kind != WEFT_DEP_STREAM)
        return FALSE;
      if (pr == WEFT_NONE || pe == WEFT_NONE || pr >= n)
        return FALSE;
      if (is_pipeline_comm (trace, peer, n, pr, pe))
        return TRUE;
      if (pr != r)
        return FALSE;
      r = pr;
      e = pe;
    }
  return FALSE;
}

gboolean
weft_solver_pipeline_bubble (WeftSolver *self, guint rank_index, int step, WeftBubble *out)
{
  WeftTrace *trace;
  WeftRank *rank;
  WeftMetrics m;
  g_autofree gboolean *peer = NULL;
  gboolean linked = FALSE;
  guint n, n_ops;
  guint32 lane;
  gint64 prev_end;

  g_return_val_if_fail (self != NULL && out != NULL, FALSE);
  memset (out, 0, sizeof *out);
  trace = weft_solver_get_trace (self);
  n = trace->ranks->len;
  if (rank_index >= n)
    return FALSE;
  /* no P2P peer: not a pipeline rank (and no per-rank metrics computed) */
  peer = p2p_peers (trace, n);
  for (guint k = 0; k < n && !linked; k++)
    linked = peer[(gsize) rank_index * n + k];
  if (!linked || !weft_solver_metrics (self, rank_index, step, &m))
    return FALSE;
  out->step_time = m.step_time;
  rank = weft_trace_rank (trace, rank_index);
  lane = compute_lane (self, rank, rank_index);
  if (lane == WEFT_NONE)
    return FALSE;
  out->pipeline = TRUE;
  out->lane = lane;
  n_ops = weft_solver_lane_n_ops (self, rank_index, lane);
  prev_end = m.begin;
  for (guint k = 0; k < n_ops; k++)
    {
      guint32 e = weft_solver_lane_op (self, rank_index, lane, k);
      gint64 s = weft_solver_start (self, rank_index, e);
      gint64 t = weft_solver_end (self, rank_index, e);
      gint64 lo = MAX (prev_end, m.begin), hi = MIN (s, m.end);

      if (weft_rank_event (rank, e)->flags & WEFT_EVENT_DELETED)
        continue;
      if (hi > lo && waits_for_pipeline (self, trace, peer, n, rank_index, e))
        out->bubble += hi - lo;
      prev_end = MAX (prev_end, t);
      if (s >= m.end)
        break;
    }
  out->bubble_pct = m.step_time > 0 ? 100.0 * (double) out->bubble / (double) m.step_time : 0.0;
  return TRUE;
}
