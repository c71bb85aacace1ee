/* solver-metrics.c: step metrics (interval-union sweep over each rank's GPU
 * streams), the critical path across ranks, slack, per-instance arrival and
 * waiting. Definitions in docs/solver.md. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "solver-private.h"
#include "util-private.h"

/* ---- steps ------------------------------------------------------------------- */

GArray *
weft_solver_steps (WeftSolver *self)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (int));
  for (guint r = 0; r < self->n_ranks; r++)
    {
      WeftRank *rank = weft_trace_rank (self->trace, r);
      for (guint k = 0; k < rank->steps->len; k++)
        {
          int number = g_array_index (rank->steps, WeftStep, k).number;
          gboolean seen = FALSE;
          for (guint j = 0; j < out->len && !seen; j++)
            seen = g_array_index (out, int, j) == number;
          if (!seen)
            g_array_append_val (out, number);
        }
    }
  g_array_sort (out, _weft_int_cmp);
  return out;
}

static inline gboolean
op_in (WeftSolver *self, const Node *n, guint rank, int step)
{
  if (n->kind != NODE_OP || (n->flags & NODE_DELETED))
    return FALSE;
  if (rank != WEFT_SOLVER_ALL_RANKS && n->rank != rank)
    return FALSE;
  if (step != WEFT_SOLVER_ALL_STEPS && n->step != step)
    return FALSE;
  return TRUE;
}

/* ---- critical path ----------------------------------------------------------- */

static void
seg_add (GArray *segs, const Node *n, WeftPathKind kind, WeftDepKind via, gint64 begin, gint64 end)
{
  WeftPathSegment s;
  s.rank_index = n->rank;
  s.event = n->event;
  s.kind = kind;
  s.via = via;
  s.begin = begin;
  s.end = end;
  s.pred_rank_index = WEFT_NONE;
  s.pred_event = WEFT_NONE;
  g_array_append_val (segs, s);
}

/* seg_add for the gap before an op that an inferred edge from x explains */
static void
seg_add_inferred (WeftSolver *self, GArray *segs, const Node *n, WeftPathKind kind, guint32 x, gint64 begin, gint64 end)
{
  WeftPathSegment *s;
  seg_add (segs, n, kind, WEFT_DEP_INFERRED, begin, end);
  s = &g_array_index (segs, WeftPathSegment, segs->len - 1);
  if (x != WEFT_NONE)
    {
      s->pred_rank_index = self->nodes[x].rank;
      s->pred_event = self->nodes[x].event;
    }
}

static gboolean
is_member_node (WeftSolver *self, const Node *n)
{
  return n->kind == NODE_OP && n->inst != WEFT_NONE && _weft_solver_node_is_live (self, n->inst);
}

/* The inferred cause of live node b's start t, when no recorded edge
 * explains it (docs/solver.md, "Critical path and slack"): of the rank's GPU ops
 * that ended by t, the one that ended last (what the op most likely waited
 * for: an event the trace does not record, a wait issued on another
 * thread). Each stream is searched from its last op starting before t back
 * over a few ops (ends on a stream are monotonic but for observed
 * overlaps). WEFT_NONE when no op of the rank ended by then. */
#define INFER_SCAN 8
#define TOL_WAKE_NS 1000 /* a GPU op ending this soon after a thread woke may have woken it */
#define WAKE_NS 50000    /* what ended more than this before a start or a wake did not cause it */

/* The first position of lane order o whose op starts at or after t (its
 * solved start; starts on a stream are monotonic but for observed
 * overlaps). */
static guint
lane_first_starting_at (WeftSolver *self, GArray *o, gint64 t)
{
  const guint32 *ord = (const guint32 *) (void *) o->data;
  guint lo = 0, hi = o->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (self->nodes[ord[mid]].start < t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

static guint32
infer_pred (WeftSolver *self, guint32 b, gint64 t)
{
  const Node *bn = &self->nodes[b];
  GPtrArray *lanes = self->ranks[bn->rank].lanes;
  guint32 best = WEFT_NONE;
  gint64 best_end = G_MININT64;

  for (guint li = 0; li < lanes->len; li++)
    {
      GArray *o = g_ptr_array_index (lanes, li);
      const guint32 *ord;
      guint lo;
      if (o == NULL || o->len == 0)
        continue;
      ord = (const guint32 *) (void *) o->data;
      lo = lane_first_starting_at (self, o, t);
      for (guint j = lo, k = 0; j > 0 && k < INFER_SCAN; j--, k++)
        {
          guint32 v = ord[j - 1];
          const Node *n = &self->nodes[v];
          if (v == b || (n->flags & NODE_DELETED) || n->end > t || n->start >= t)
            continue;
          if (n->end > best_end)
            {
              best_end = n->end;
              best = v;
            }
          break; /* the latest end on this stream before t */
        }
    }
  return best;
}

/* Where the path of a window ending at t begins (walking back): of the GPU
 * ops of the ranks concerned (any step: the GPU may still run the previous
 * step's work) that started before t, the one whose end, cut at t, is
 * latest; the later start on a tie. WEFT_NONE when none started before t. */
static guint32
anchor_at (WeftSolver *self, guint rank, gint64 t)
{
  guint32 best = WEFT_NONE;
  gint64 best_end = G_MININT64;
  for (guint r = 0; r < self->n_ranks; r++)
    {
      GPtrArray *lanes = self->ranks[r].lanes;
      if (rank != WEFT_SOLVER_ALL_RANKS && r != rank)
        continue;
      for (guint li = 0; li < lanes->len; li++)
        {
          GArray *o = g_ptr_array_index (lanes, li);
          const guint32 *ord;
          guint lo;
          if (o == NULL || o->len == 0)
            continue;
          ord = (const guint32 *) (void *) o->data;
          lo = lane_first_starting_at (self, o, t);
          for (guint j = lo, k = 0; j > 0 && k < INFER_SCAN; j--, k++)
            {
              const Node *n = &self->nodes[ord[j - 1]];
              gint64 e = MIN (n->end, t);
              if (n->flags & NODE_DELETED)
                continue;
              if (e > best_end || (e == best_end && best != WEFT_NONE && n->start > self->nodes[best].start))
                {
                  best_end = e;
                  best = ord[j - 1];
                }
            }
        }
    }
  return best;
}

/* When the CPU thread that launched an op at t began the busy run that
 * led to the launch: going back from t over the thread's CPU ops and
 * runtime calls (annotations and Python frames span whole steps: they say
 * nothing about the thread being busy), the start of the run with no idle
 * gap of IDLE_NS or more. G_MININT64 when the run goes back to before
 * floor (the thread was busy throughout: CPU-bound) or the scan limit. */
#define IDLE_NS 100000
#define RUN_SCAN 20000

static gint64
thread_run_start (WeftSolver *self, guint r, guint32 launch_event, gint64 t, gint64 floor)
{
  WeftRank *rank = weft_trace_rank (self->trace, r);
  gint64 off = self->ranks[r].offset;
  const WeftEvent *le;
  WeftLane *lane;
  const guint32 *ev;
  guint lo = 0, hi, scanned = 0;
  gint64 run_lo = t;

  if (launch_event == WEFT_NONE || launch_event >= rank->events->len)
    return G_MININT64;
  le = weft_rank_event (rank, launch_event);
  if (le->lane == WEFT_NONE)
    return G_MININT64;
  lane = weft_rank_lane (rank, le->lane);
  ev = (const guint32 *) (void *) lane->events->data;
  hi = lane->events->len;
  while (lo < hi) /* first event starting after t */
    {
      guint mid = lo + (hi - lo) / 2;
      if (weft_rank_event (rank, ev[mid])->ts + off <= t)
        lo = mid + 1;
      else
        hi = mid;
    }
  for (guint j = lo; j > 0 && scanned < RUN_SCAN; j--, scanned++)
    {
      const WeftEvent *e = weft_rank_event (rank, ev[j - 1]);
      gint64 s = e->ts + off;
      if (e->ph != WEFT_PH_X || (e->flags & WEFT_EVENT_DELETED) ||
          (e->category != WEFT_CAT_CPU_OP && e->category != WEFT_CAT_CUDA_RUNTIME &&
           e->category != WEFT_CAT_CUDA_DRIVER))
        continue;
      if (s + weft_event_dur (rank, e) >= run_lo - IDLE_NS)
        {
          run_lo = MIN (run_lo, s);
          if (run_lo <= floor)
            return G_MININT64;
        }
      else if (s < run_lo - 8 * IDLE_NS && scanned > 64)
        break; /* far enough back that no earlier op reaches the run */
    }
  return scanned >= RUN_SCAN ? G_MININT64 : run_lo;
}

/* The op with the latest end among the ops of (rank, step), over the streams
 * of the ranks concerned only (the node array is large); WEFT_NONE when there
 * is none. window_begin: NULL, or lowered to the earliest start of these
 * ops. */
static guint32
critical_last_op (WeftSolver *self, guint rank, int step, gint64 *window_begin)
{
  guint32 last = WEFT_NONE;

  for (guint r = 0; r < self->n_ranks; r++)
    {
      GPtrArray *lanes = self->ranks[r].lanes;
      if (rank != WEFT_SOLVER_ALL_RANKS && r != rank)
        continue;
      for (guint li = 0; li < lanes->len; li++)
        {
          GArray *o = g_ptr_array_index (lanes, li);
          for (guint j = 0; o != NULL && j < o->len; j++)
            {
              guint32 v = g_array_index (o, guint32, j);
              if (!op_in (self, &self->nodes[v], rank, step))
                continue;
              if (window_begin != NULL)
                *window_begin = MIN (*window_begin, self->nodes[v].start);
              if (last == WEFT_NONE || self->nodes[v].end > self->nodes[last].end)
                last = v;
            }
        }
    }
  return last;
}

/* The gap before the start of b (the node whose start binding the walk
 * follows from cur) when no binding predecessor holds it: its segments,
 * and the node the path goes on from (WEFT_NONE: the path starts here). */
static guint32
critical_unbound_gap (WeftSolver *self, GArray *segs, guint32 cur, Node *b, gint64 window_begin)
{
  guint32 x;

  if (b->kind == NODE_OP && b->bind_kind == WEFT_DEP_LAUNCH && b->launch_time != G_MININT64)
    {
      /* CPU-bound since the launching thread's busy run began; a
       * thread that was idle before it was woken by something: the
       * rank's GPU op that ended last before (a completion it
       * waited for the trace does not record) */
      gint64 run = thread_run_start (self, b->rank, b->launch, b->launch_time, window_begin);
      seg_add (segs, b, WEFT_PATH_LAUNCH, WEFT_DEP_LAUNCH, b->launch_time, b->start);
      if (run == G_MININT64 || (x = infer_pred (self, cur, run + TOL_WAKE_NS)) == WEFT_NONE ||
          run - self->nodes[x].end > WAKE_NS)
        return WEFT_NONE;
      seg_add (segs, b, WEFT_PATH_LAUNCH, WEFT_DEP_LAUNCH, run, b->launch_time);
      if (self->nodes[x].end < run)
        seg_add_inferred (self, segs, b, WEFT_PATH_INFERRED, x, self->nodes[x].end, run);
      return x;
    }
  if (b->kind == NODE_SYNC)
    {
      seg_add (segs, b, WEFT_PATH_LAUNCH, WEFT_DEP_LAUNCH, b->obs_start, b->end);
      return WEFT_NONE;
    }
  if (b->kind == NODE_OP && b->bind_kind == WEFT_DEP_USER)
    {
      /* held by a user minimum start (or, reopened, by its "weft
       * held" mark): what the saved file keeps of it decides, so
       * that session and reopened trace agree: its launch (where
       * its thread puts it; for an op an edit created, where
       * weft_solver_apply_to_model writes it). An op of the rank
       * that ended after that launch and just before the start is
       * the likelier cause (a dependency the file does not
       * record); else it waited, since its launch. */
      gint64 run;
      if (b->launch_time != G_MININT64)
        {
          WeftRank *rk = weft_trace_rank (self->trace, b->rank);
          guint32 ll = b->launch < rk->events->len ? weft_rank_event (rk, b->launch)->lane : WEFT_NONE;
          run = b->launch_time + (ll != WEFT_NONE ? _weft_solver_shift (self, b->rank, ll, b->launch_time) : 0);
        }
      else
        {
          run = _weft_solver_created_launch_time (self, (guint32) (b - self->nodes));
          if (run == G_MININT64)
            run = b->start - _weft_solver_created_launch_lead (self, b->rank);
        }
      x = infer_pred (self, cur, b->start);
      if (x != WEFT_NONE && self->nodes[x].end > run && b->start - self->nodes[x].end <= WAKE_NS)
        {
          seg_add_inferred (self, segs, b, WEFT_PATH_INFERRED, x, self->nodes[x].end, b->start);
          return x;
        }
      seg_add (segs, b, WEFT_PATH_WAIT, WEFT_DEP_USER, MIN (run, b->start), b->start);
      return WEFT_NONE;
    }
  if (b->kind != NODE_OP)
    return WEFT_NONE;
  /* released at its observed time: nothing recorded explains it */
  if (b->kind == NODE_OP && b->launch == WEFT_NONE)
    {
      /* an op without a launch that an edit gave a new stream
       * predecessor: the saved file reads it back as held after that
       * predecessor by the gap (the weight calibration gives it), so
       * the path reads it so here too */
      guint32 pv = _weft_solver_stream_prev (self, (guint32) (b - self->nodes));
      if (pv != WEFT_NONE && self->nodes[pv].end <= b->start)
        {
          Node *p = &self->nodes[pv];
          seg_add (segs, b,
                   b->start - p->end > self->ranks[b->rank].typ_gap + 1000 ? WEFT_PATH_LAUNCH : WEFT_PATH_WAIT,
                   WEFT_DEP_STREAM, p->end, b->start);
          return pv;
        }
    }
  x = infer_pred (self, cur, b->start);
  if (b->launch_time != G_MININT64 && (x == WEFT_NONE || b->launch_time >= self->nodes[x].end))
    {
      /* launched after anything it could wait for ended: it waited
       * for the CPU (a late launch held by something unseen) */
      seg_add_inferred (self, segs, b, WEFT_PATH_INFERRED, WEFT_NONE, b->launch_time, b->start);
      return WEFT_NONE;
    }
  if (x == WEFT_NONE)
    return WEFT_NONE;
  /* soon after x ended: it waited for x; long after: it waited (for
   * nothing that ran on the rank's GPU) */
  seg_add_inferred (self, segs, b, b->start - self->nodes[x].end <= WAKE_NS ? WEFT_PATH_INFERRED : WEFT_PATH_WAIT,
                    x, self->nodes[x].end, b->start);
  return x;
}

/* The kind of the gap between b's binding predecessor p's end and b's
 * start. */
static WeftPathKind
critical_bound_kind (WeftSolver *self, const Node *b, const Node *p)
{
  WeftPathKind k;
  switch (b->bind_kind)
    {
    case WEFT_DEP_LAUNCH:
    case WEFT_DEP_SYNC:
      k = WEFT_PATH_LAUNCH;
      break;
    default:
      k = WEFT_PATH_WAIT;
      break;
    }
  if (p->kind == NODE_SYNC || b->kind == NODE_SYNC)
    k = WEFT_PATH_LAUNCH;
  /* an op whose launch is not in the trace, held after its stream
   * predecessor for longer than the rank's usual gap: an unseen CPU
   * launch released it */
  if (b->kind == NODE_OP && b->bind_kind == WEFT_DEP_STREAM && b->launch == WEFT_NONE &&
      b->start - p->end > self->ranks[b->rank].typ_gap + 1000)
    k = WEFT_PATH_LAUNCH;
  return k;
}

/* One step of the walk back from cur (last: where the walk began): cur's
 * segment and the gap before it; the next node, WEFT_NONE at the path's
 * start. */
static guint32
critical_step_back (WeftSolver *self, GArray *segs, guint32 cur, guint32 last, gint64 window_begin, gboolean mark)
{
  Node *n = &self->nodes[cur];
  Node *b;        /* the node whose start binding we follow next */
  gint64 b_start;

  if (n->end <= window_begin && cur != last)
    return WEFT_NONE; /* before the window: nothing of it is on this step's path */
  if (mark)
    n->flags |= NODE_CRIT;
  if (n->kind == NODE_OP && is_member_node (self, n))
    {
      Node *in = &self->nodes[n->inst];
      guint32 bv;
      seg_add (segs, n, WEFT_PATH_COMM, WEFT_DEP_RENDEZVOUS, in->start, n->end);
      bv = in->bind_pred;
      if (bv == WEFT_NONE)
        return WEFT_NONE;
      b = &self->nodes[bv];
      cur = bv;
      if (mark)
        b->flags |= NODE_CRIT;
    }
  else if (n->kind == NODE_OP)
    {
      seg_add (segs, n, (n->flags & NODE_COMM) ? WEFT_PATH_COMM : WEFT_PATH_COMPUTE, n->bind_kind, n->start, n->end);
      b = n;
    }
  else
    b = n; /* a sync node: the CPU thread went on at n->end */
  b_start = b->kind == NODE_SYNC ? b->end : b->start;
  if (b_start <= window_begin)
    return WEFT_NONE;

  /* the gap before b's start */
  if (b->bind_pred == WEFT_NONE)
    return critical_unbound_gap (self, segs, cur, b, window_begin);
  seg_add (segs, b, critical_bound_kind (self, b, &self->nodes[b->bind_pred]), b->bind_kind,
           self->nodes[b->bind_pred].end, b_start);
  return b->bind_pred;
}

/* The path starts at a constant release. Before it, the CPU thread that
 * launched the head op was busy (its CPU work is fixed: no sync held it),
 * or, for an op released at its observed time or a user minimum start, it
 * waited: that time, back to the window's first op, completes the path so
 * that its length is the step time. */
static void
critical_add_release (GArray *segs, gint64 window_begin)
{
  if (segs->len > 0)
    {
      const WeftPathSegment *head = &g_array_index (segs, WeftPathSegment, segs->len - 1);
      if (head->begin > window_begin)
        {
          gboolean cpu = head->kind == WEFT_PATH_LAUNCH || head->kind == WEFT_PATH_INFERRED;
          WeftPathSegment pre = *head;
          pre.kind = cpu ? WEFT_PATH_LAUNCH : WEFT_PATH_WAIT;
          pre.via = WEFT_DEP_NONE;
          pre.pred_rank_index = WEFT_NONE;
          pre.pred_event = WEFT_NONE;
          pre.begin = window_begin;
          pre.end = head->begin;
          g_array_append_val (segs, pre);
        }
    }
}

/* segs (walked back from the end) in time order, clipped to the window and
 * so that segments do not overlap; frees segs. */
static GArray *
critical_clip (GArray *segs, gint64 window_begin, gint64 window_end)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (WeftPathSegment));
  gint64 t = window_begin;
  for (guint i = segs->len; i > 0; i--)
    {
      WeftPathSegment s = g_array_index (segs, WeftPathSegment, i - 1);
      gboolean is_op = s.kind == WEFT_PATH_COMPUTE || s.kind == WEFT_PATH_COMM;
      if (s.end < window_begin || s.begin > window_end)
        continue;
      if (s.begin < t)
        s.begin = t;
      if (s.end > window_end)
        s.end = window_end;
      if (s.end < s.begin)
        s.end = s.begin;
      if (s.end == s.begin && !is_op)
        continue;
      g_array_append_val (out, s);
      t = s.end;
    }
  g_array_free (segs, TRUE);
  return out;
}

/* Walks binding predecessors back from the op with the latest end among the
 * ops of (rank, step) (given as hint_last when the caller has it, else
 * WEFT_NONE); marks the nodes when mark. [hint_begin, hint_end] is the step
 * window (WeftMetrics begin / end; G_MAXINT64 / G_MININT64 when unknown: the
 * span of the ops). The path is the window's: it never leaves the window
 * (segments are clipped to it), so it is never longer than the step; inside
 * it, it goes through whatever held the step's work back, ops of the
 * previous step still running included. Where no recorded edge explains a
 * start, it goes on through an inferred one. */
static GArray *
critical_segments_from (WeftSolver *self, guint rank, int step, gboolean mark, guint32 hint_last, gint64 hint_begin,
                        gint64 hint_end)
{
  GArray *segs = g_array_new (FALSE, FALSE, sizeof (WeftPathSegment));
  guint32 last = hint_last;
  guint32 cur;
  guint guard = 0;
  gint64 window_begin = hint_begin, window_end = hint_end;
  gboolean begin_known = hint_begin != G_MAXINT64;

  if (hint_last == WEFT_NONE)
    last = critical_last_op (self, rank, step, begin_known ? NULL : &window_begin);
  if (last == WEFT_NONE)
    return segs;
  if (window_end == G_MININT64)
    window_end = self->nodes[last].end;
  else
    {
      /* the window ends at a time of its own (the ProfilerStep's end): the
       * path ends with what ran on the GPU then, and after the GPU's last
       * op, the CPU still running the step */
      guint32 a = anchor_at (self, rank, window_end);
      if (a == WEFT_NONE)
        return segs;
      last = a;
      if (self->nodes[last].end < window_end)
        seg_add (segs, &self->nodes[last], WEFT_PATH_LAUNCH, WEFT_DEP_NONE, self->nodes[last].end, window_end);
    }

  cur = last;
  while (cur != WEFT_NONE && guard++ < 4 * self->n_nodes + 16)
    cur = critical_step_back (self, segs, cur, last, window_begin, mark);

  critical_add_release (segs, window_begin);
  return critical_clip (segs, window_begin, window_end);
}

static GArray *
critical_segments (WeftSolver *self, guint rank, int step, gboolean mark)
{
  return critical_segments_from (self, rank, step, mark, WEFT_NONE, G_MAXINT64, G_MININT64);
}

GArray *
weft_solver_critical_path (WeftSolver *self, int step)
{
  WeftMetrics m;
  _weft_solver_sync (self);
  /* the path of a step covers its window, as in its metrics */
  if (step != WEFT_SOLVER_ALL_STEPS && weft_solver_metrics (self, WEFT_SOLVER_ALL_RANKS, step, &m))
    return critical_segments_from (self, WEFT_SOLVER_ALL_RANKS, step, FALSE, WEFT_NONE, m.begin, m.end);
  return critical_segments (self, WEFT_SOLVER_ALL_RANKS, step, FALSE);
}

static void
update_crit (WeftSolver *self)
{
  GArray *segs;
  if (self->crit_generation == self->generation + 1)
    return;
  for (guint32 v = 0; v < self->n_nodes; v++)
    self->nodes[v].flags &= ~NODE_CRIT;
  segs = critical_segments (self, WEFT_SOLVER_ALL_RANKS, WEFT_SOLVER_ALL_STEPS, TRUE);
  g_array_free (segs, TRUE);
  self->crit_generation = self->generation + 1;
}

WeftDepKind
weft_solver_inferred_cause (WeftSolver *self, guint rank_index, guint32 event, guint *pred_rank_index,
                            guint32 *pred_event)
{
  guint32 v = _weft_solver_node (self, rank_index, event), x;
  const Node *n;
  _weft_solver_sync (self);
  if (v == WEFT_NONE)
    return WEFT_DEP_NONE;
  n = &self->nodes[v];
  if (n->kind != NODE_OP || n->bind_pred != WEFT_NONE || n->bind_kind != WEFT_DEP_NONE)
    return WEFT_DEP_NONE;
  x = infer_pred (self, v, n->start);
  if (x == WEFT_NONE || n->start - self->nodes[x].end > WAKE_NS)
    return WEFT_DEP_NONE;
  if (pred_rank_index != NULL)
    *pred_rank_index = self->nodes[x].rank;
  if (pred_event != NULL)
    *pred_event = self->nodes[x].event;
  return WEFT_DEP_INFERRED;
}

gboolean
weft_solver_is_critical (WeftSolver *self, guint rank_index, guint32 event)
{
  guint32 v = _weft_solver_node (self, rank_index, event);
  _weft_solver_sync (self);
  if (v == WEFT_NONE)
    return FALSE;
  update_crit (self);
  return (self->nodes[v].flags & NODE_CRIT) != 0;
}

/* ---- slack: latest starts by a reverse pass over the topological order ------- */

void
_weft_solver_update_slack (WeftSolver *self)
{
  gint64 deadline = G_MININT64;
  gint64 *L;
  _weft_solver_sync (self);
  if (self->slack_generation == self->generation && self->latest != NULL && self->n_latest == self->n_nodes)
    return;
  g_free (self->latest);
  self->latest = L = g_new (gint64, MAX (1, self->n_nodes));
  self->n_latest = self->n_nodes;
  for (guint32 v = 0; v < self->n_nodes; v++)
    {
      Node *n = &self->nodes[v];
      if (n->kind == NODE_OP && !(n->flags & NODE_DELETED))
        deadline = MAX (deadline, n->end);
      L[v] = G_MAXINT64;
    }
  for (guint i = self->n_order; i > 0; i--)
    {
      guint32 v = self->order[i - 1];
      Node *n = &self->nodes[v];
      if (n->kind == NODE_INST)
        {
          /* latest end over the members' dependents */
          gint64 le = deadline;
          for (guint k = 0; k < n->n_members; k++)
            {
              guint32 m = n->members[k];
              Node *mn = &self->nodes[m];
              guint32 nx;
              if (mn->flags & NODE_DELETED)
                continue;
              nx = _weft_solver_stream_next (self, m);
              if (nx != WEFT_NONE && L[nx] != G_MAXINT64)
                le = MIN (le, L[nx] - self->nodes[nx].w_stream);
              for (guint o = 0; o < mn->n_out; o++)
                {
                  Node *s = &self->nodes[mn->out[o]];
                  if (s->flags & NODE_DELETED)
                    continue;
                  for (guint e = 0; e < s->n_in; e++)
                    if (s->in[e].src == m && L[mn->out[o]] != G_MAXINT64)
                      le = MIN (le, L[mn->out[o]] - s->in[e].w);
                }
            }
          L[v] = le - n->dur;
          for (guint k = 0; k < n->n_members; k++)
            L[n->members[k]] = L[v];
          continue;
        }
      if (n->kind == NODE_OP && n->inst != WEFT_NONE && _weft_solver_node_is_live (self, n->inst))
        continue; /* set by its instance, which comes later in the order */
      {
        gint64 le = deadline;
        guint32 nx = _weft_solver_stream_next (self, v);
        if (n->kind == NODE_SYNC)
          le = G_MAXINT64;
        if (nx != WEFT_NONE && L[nx] != G_MAXINT64)
          le = MIN (le, L[nx] - self->nodes[nx].w_stream);
        for (guint o = 0; o < n->n_out; o++)
          {
            Node *s = &self->nodes[n->out[o]];
            if (s->flags & NODE_DELETED)
              continue;
            for (guint e = 0; e < s->n_in; e++)
              if (s->in[e].src == v && L[n->out[o]] != G_MAXINT64)
                le = MIN (le, L[n->out[o]] - s->in[e].w);
          }
        if (n->kind == NODE_SYNC)
          L[v] = le;
        else
          L[v] = le == G_MAXINT64 ? le : le - n->dur;
      }
    }
  self->slack_generation = self->generation;
}

gint64
weft_solver_slack (WeftSolver *self, guint rank_index, guint32 event)
{
  guint32 v = _weft_solver_node (self, rank_index, event);
  gint64 l;
  _weft_solver_sync (self);
  if (v == WEFT_NONE)
    return -1;
  _weft_solver_update_slack (self);
  l = self->latest[v];
  if (l == G_MAXINT64)
    return G_MAXINT64;
  return MAX (0, l - self->nodes[v].start);
}

/* ---- metrics ----------------------------------------------------------------- */

/* interval classes of the sweep */
enum
{
  IV_COMPUTE = 0,  /* a kernel that is not communication */
  IV_COMM,         /* communication */
  IV_MEM,          /* memcpy / memset: neither (HTA) */
  IV_OTHER_STEP,   /* an op of another step inside the window: only for idle */
};

#define IV_MASK(c) (1u << (c))
#define IV_ALL     (IV_MASK (IV_COMPUTE) | IV_MASK (IV_COMM) | IV_MASK (IV_MEM) | IV_MASK (IV_OTHER_STEP))

typedef struct
{
  gint64 s, e;
  guint  cls;
} Ival;

static gint
ival_cmp (gconstpointer a, gconstpointer b)
{
  const Ival *x = a, *y = b;
  return (x->s > y->s) - (x->s < y->s);
}

/* Sorts iv (sorted runs starting at the offsets in runs) by merging
 * adjacent runs pairwise: O(n log k) for k streams. */
static void
merge_runs (GArray *iv, GArray *runs, GArray *tmp)
{
  guint n = iv->len;
  while (runs->len > 1)
    {
      GArray *next = g_array_new (FALSE, FALSE, sizeof (guint));
      Ival *a = (Ival *) (void *) iv->data;
      Ival *t;
      g_array_set_size (tmp, n);
      t = (Ival *) (void *) tmp->data;
      for (guint k = 0; k < runs->len; k += 2)
        {
          guint lo = g_array_index (runs, guint, k);
          guint mid = k + 1 < runs->len ? g_array_index (runs, guint, k + 1) : n;
          guint hi = k + 2 < runs->len ? g_array_index (runs, guint, k + 2) : n;
          guint i = lo, j = mid, o = lo;
          while (i < mid && j < hi)
            t[o++] = a[j].s < a[i].s ? a[j++] : a[i++];
          while (i < mid)
            t[o++] = a[i++];
          while (j < hi)
            t[o++] = a[j++];
          g_array_append_val (next, lo);
        }
      memcpy (a, t, n * sizeof (Ival));
      g_array_set_size (runs, 0);
      g_array_append_vals (runs, next->data, next->len);
      g_array_free (next, TRUE);
    }
}

/* Union length of the intervals (sorted by start) of the classes in mask,
 * each clipped to [lo, hi]. */
static gint64
union_len (const Ival *iv, guint n, guint mask, gint64 lo, gint64 hi)
{
  gint64 total = 0, cs = 0, ce = G_MININT64;
  for (guint i = 0; i < n; i++)
    {
      gint64 s = MAX (iv[i].s, lo), e = MIN (iv[i].e, hi);
      if (!(mask & IV_MASK (iv[i].cls)))
        continue;
      if (e <= s)
        continue;
      if (ce == G_MININT64 || s > ce)
        {
          if (ce != G_MININT64)
            total += ce - cs;
          cs = s;
          ce = e;
        }
      else if (e > ce)
        ce = e;
    }
  if (ce != G_MININT64)
    total += ce - cs;
  return total;
}

const char *
weft_step_time_source_to_string (WeftStepTimeSource source)
{
  return source == WEFT_STEP_TIME_PROFILER_STEP ? "profiler_step" : "gpu_span";
}

static const StepWin *
step_win (WeftSolver *self, guint rank, int step)
{
  if (self->step_wins == NULL || step == WEFT_SOLVER_ALL_STEPS || rank >= self->n_ranks)
    return NULL;
  for (guint i = self->step_win_first[rank]; i < self->step_win_first[rank + 1]; i++)
    {
      const StepWin *w = &g_array_index (self->step_wins, StepWin, i);
      if (w->number == step)
        return w;
    }
  return NULL;
}

/* The ProfilerStep#N annotations of every rank, with the end of their GPU
 * ops in the first solve (the nodes hold it when this runs). */
static void
build_step_wins (WeftSolver *self)
{
  self->step_wins = g_array_new (FALSE, FALSE, sizeof (StepWin));
  self->step_win_first = g_new0 (guint, self->n_ranks + 1);
  for (guint r = 0; r < self->n_ranks; r++)
    {
      WeftRank *rank = weft_trace_rank (self->trace, r);
      gint64 off = self->ranks[r].offset;
      guint first = self->step_wins->len;
      self->step_win_first[r] = first;
      for (guint k = 0; k < rank->steps->len; k++)
        {
          const WeftStep *st = &g_array_index (rank->steps, WeftStep, k);
          StepWin w, *dup = NULL;
          for (guint j = first; j < self->step_wins->len && dup == NULL; j++)
            if (g_array_index (self->step_wins, StepWin, j).number == st->number)
              dup = &g_array_index (self->step_wins, StepWin, j);
          if (dup != NULL)
            {
              /* the same step twice on a rank (a cpu_op and a
               * user_annotation): its extent, timed on the first's thread */
              dup->begin = MIN (dup->begin, st->begin + off);
              dup->end = MAX (dup->end, st->end + off);
              continue;
            }
          w.rank = r;
          w.number = st->number;
          w.event = st->event;
          w.lane = st->event < rank->events->len ? weft_rank_event (rank, st->event)->lane : WEFT_NONE;
          w.begin = st->begin + off;
          w.end = st->end + off;
          w.gpu_end0 = G_MININT64;
          g_array_append_val (self->step_wins, w);
        }
    }
  self->step_win_first[self->n_ranks] = self->step_wins->len;
  for (guint32 v = 0; v < self->n_nodes; v++)
    {
      const Node *n = &self->nodes[v];
      if (n->kind != NODE_OP || (n->flags & NODE_DELETED) || n->step == WEFT_SOLVER_ALL_STEPS)
        continue;
      for (guint i = self->step_win_first[n->rank]; i < self->step_win_first[n->rank + 1]; i++)
        {
          StepWin *w = &g_array_index (self->step_wins, StepWin, i);
          if (w->number == n->step)
            {
              w->gpu_end0 = MAX (w->gpu_end0, n->end);
              break;
            }
        }
    }
}

/* The step window of rank r for a step with a ProfilerStep annotation: its
 * begin and end shifted with the CPU thread (a sync that now ends later or
 * earlier moves what follows on the thread), and the end pushed by the
 * step's GPU work (gpu_end, now) where it runs past the annotation's end by
 * more than it did as loaded (docs/solver.md, "Metrics"). An unedited
 * trace: exactly the annotation. */
static void
profiler_step_window (WeftSolver *self, const StepWin *w, gint64 gpu_end, gint64 *begin, gint64 *end)
{
  gint64 b = w->begin + _weft_solver_shift (self, w->rank, w->lane, w->begin);
  gint64 e = w->end + _weft_solver_shift (self, w->rank, w->lane, w->end);
  if (gpu_end != G_MININT64)
    {
      gint64 lag = w->gpu_end0 != G_MININT64 ? MAX (0, w->gpu_end0 - w->end) : 0;
      e = MAX (e, gpu_end - lag);
    }
  *begin = b;
  *end = MAX (b, e);
}

/* Appends the ops of lane order o of (rank r, step) to iv as one sorted run
 * (cls by kind); other-step ops only when other_lo < other_hi, clipped to
 * that window (for idle). Returns FALSE when nothing was added. */
static gboolean
sweep_lane (WeftSolver *self, GArray *o, guint r, int step, GArray *iv, GArray *runs, gint64 other_lo, gint64 other_hi,
            gint64 *rb, gint64 *re, guint32 *last)
{
  guint run_start = iv->len;
  gboolean sorted = TRUE;
  for (guint j = 0; o != NULL && j < o->len; j++)
    {
      guint32 v = g_array_index (o, guint32, j);
      const Node *n = &self->nodes[v];
      Ival x;
      if (other_lo < other_hi)
        {
          /* the second pass: ops of other steps inside the window */
          if (n->kind != NODE_OP || (n->flags & NODE_DELETED) || n->step == step || n->end <= other_lo ||
              n->start >= other_hi)
            continue;
          x.cls = IV_OTHER_STEP;
        }
      else
        {
          if (!op_in (self, n, r, step))
            continue;
          x.cls = (n->flags & NODE_COMM) ? IV_COMM : (n->flags & NODE_MEM) ? IV_MEM : IV_COMPUTE;
          *rb = MIN (*rb, n->start);
          *re = MAX (*re, n->end);
          if (*last == WEFT_NONE || n->end > self->nodes[*last].end)
            *last = v;
        }
      x.s = n->start;
      x.e = n->end;
      if (iv->len > run_start && g_array_index (iv, Ival, iv->len - 1).s > x.s)
        sorted = FALSE;
      g_array_append_val (iv, x);
    }
  if (iv->len == run_start)
    return FALSE;
  if (!sorted) /* negative gaps (observed overlap): sort this run */
    qsort (&g_array_index (iv, Ival, run_start), iv->len - run_start, sizeof (Ival), ival_cmp);
  g_array_append_val (runs, run_start);
  return TRUE;
}

static gboolean
compute_metrics (WeftSolver *self, guint rank, int step, WeftMetrics *m)
{
  GArray *iv = g_array_new (FALSE, FALSE, sizeof (Ival));
  GArray *runs = g_array_new (FALSE, FALSE, sizeof (guint));
  GArray *tmp = g_array_new (FALSE, FALSE, sizeof (Ival));
  gint64 sum_compute = 0, sum_comm = 0, sum_ov = 0, sum_mem = 0, sum_idle = 0;
  guint n_ranks = 0;
  gint64 gpu_begin = G_MAXINT64, gpu_end = G_MININT64;
  guint32 last = WEFT_NONE;

  memset (m, 0, sizeof *m);
  m->step = step;
  m->step_time = -1;
  for (guint r = 0; r < self->n_ranks; r++)
    {
      gint64 rb = G_MAXINT64, re = G_MININT64, wb, we, c, k, u;
      const StepWin *w;
      WeftStepTimeSource source;
      if (rank != WEFT_SOLVER_ALL_RANKS && r != rank)
        continue;
      g_array_set_size (iv, 0);
      g_array_set_size (runs, 0);
      for (guint li = 0; li < self->ranks[r].lanes->len; li++)
        sweep_lane (self, g_ptr_array_index (self->ranks[r].lanes, li), r, step, iv, runs, 0, 0, &rb, &re, &last);
      w = step_win (self, r, step);
      if (iv->len == 0 && w == NULL)
        continue;
      if (w != NULL)
        {
          profiler_step_window (self, w, re, &wb, &we);
          source = WEFT_STEP_TIME_PROFILER_STEP;
          /* GPU work of the other steps in the window keeps the GPU busy */
          for (guint li = 0; li < self->ranks[r].lanes->len && we > wb; li++)
            sweep_lane (self, g_ptr_array_index (self->ranks[r].lanes, li), r, step, iv, runs, wb, we, &rb, &re, &last);
        }
      else
        {
          wb = rb;
          we = re;
          source = WEFT_STEP_TIME_GPU_SPAN;
        }
      merge_runs (iv, runs, tmp);
      c = union_len ((Ival *) (void *) iv->data, iv->len, IV_MASK (IV_COMPUTE), G_MININT64, G_MAXINT64);
      k = union_len ((Ival *) (void *) iv->data, iv->len, IV_MASK (IV_COMM), G_MININT64, G_MAXINT64);
      u = union_len ((Ival *) (void *) iv->data, iv->len, IV_MASK (IV_COMPUTE) | IV_MASK (IV_COMM), G_MININT64,
                     G_MAXINT64);
      sum_compute += c;
      sum_comm += k;
      sum_ov += c + k - u;
      sum_mem += union_len ((Ival *) (void *) iv->data, iv->len, IV_MASK (IV_MEM), G_MININT64, G_MAXINT64);
      sum_idle += MAX (0, (we - wb) - union_len ((Ival *) (void *) iv->data, iv->len, IV_ALL, wb, we));
      n_ranks++;
      if (re != G_MININT64)
        {
          gpu_begin = MIN (gpu_begin, rb);
          gpu_end = MAX (gpu_end, re);
        }
      /* whole trace: the rank with the longest step (ranks step together;
       * each rank's span is free of clock offsets); a ProfilerStep window
       * before a GPU span */
      if (m->step_time < 0 ||
          (source == m->step_source ? we - wb > m->step_time : source == WEFT_STEP_TIME_PROFILER_STEP))
        {
          m->begin = wb;
          m->end = we;
          m->step_time = we - wb;
          m->step_source = source;
        }
    }
  g_array_free (iv, TRUE);
  g_array_free (runs, TRUE);
  g_array_free (tmp, TRUE);
  if (n_ranks == 0)
    {
      memset (m, 0, sizeof *m);
      m->step = step;
      return FALSE;
    }
  m->n_ranks = n_ranks;
  if (gpu_end != G_MININT64)
    {
      m->gpu_begin = gpu_begin;
      m->gpu_end = gpu_end;
      m->gpu_span = gpu_end - gpu_begin;
    }
  if (m->step_source == WEFT_STEP_TIME_GPU_SPAN)
    {
      /* no ProfilerStep: the GPU span over all ranks (one common timeline) */
      m->begin = m->gpu_begin;
      m->end = m->gpu_end;
      m->step_time = m->gpu_span;
    }
  m->compute = sum_compute / n_ranks;
  m->comm = sum_comm / n_ranks;
  m->overlapped = sum_ov / n_ranks;
  m->compute_only = m->compute - m->overlapped;
  m->comm_only = m->comm - m->overlapped;
  m->exposed_comm = m->comm_only;
  m->memcpy_memset = sum_mem / n_ranks;
  m->idle = sum_idle / n_ranks;
  m->overlap_pct = sum_comm > 0 ? 100.0 * (double) sum_ov / (double) sum_comm : 0.0;

  if (last != WEFT_NONE)
    {
      GArray *segs = critical_segments_from (self, rank, step, FALSE, last, m->begin, m->end);
      for (guint i = 0; i < segs->len; i++)
        {
          const WeftPathSegment *s = &g_array_index (segs, WeftPathSegment, i);
          gint64 d = s->end - s->begin;
          switch (s->kind)
            {
            case WEFT_PATH_COMPUTE: m->cp_compute += d; m->cp_n_ops++; break;
            case WEFT_PATH_COMM: m->cp_comm += d; m->cp_n_ops++; break;
            case WEFT_PATH_LAUNCH: m->cp_launch += d; break;
            case WEFT_PATH_WAIT: m->cp_wait += d; break;
            case WEFT_PATH_INFERRED: m->cp_inferred += d; break;
            }
          m->cp_length += d;
        }
      g_array_free (segs, TRUE);
    }
  return TRUE;
}

gboolean
weft_solver_metrics (WeftSolver *self, guint rank_index, int step, WeftMetrics *out)
{
  MetricsEntry e;
  _weft_solver_sync (self);
  g_return_val_if_fail (out != NULL, FALSE);
  if (rank_index != WEFT_SOLVER_ALL_RANKS && rank_index >= self->n_ranks)
    return FALSE;
  /* cached until the schedule changes (weft_solver_generation) */
  if (self->metrics_cache == NULL || self->metrics_generation != self->generation)
    {
      if (self->metrics_cache == NULL)
        self->metrics_cache = g_array_new (FALSE, FALSE, sizeof (MetricsEntry));
      g_array_set_size (self->metrics_cache, 0);
      self->metrics_generation = self->generation;
    }
  for (guint i = 0; i < self->metrics_cache->len; i++)
    {
      const MetricsEntry *c = &g_array_index (self->metrics_cache, MetricsEntry, i);
      if (c->rank == rank_index && c->step == step)
        {
          *out = c->m;
          return c->ok;
        }
    }
  e.rank = rank_index;
  e.step = step;
  e.ok = compute_metrics (self, rank_index, step, &e.m);
  g_array_append_val (self->metrics_cache, e);
  *out = e.m;
  return e.ok;
}

static void
lane_copy_free (gpointer data)
{
  if (data != NULL)
    g_array_unref (data);
}

/* Keeps the schedule as loaded (after the first solve) for the baseline. */
void
_weft_solver_compute_baseline (WeftSolver *self)
{
  Snapshot *sn = &self->snap;
  guint n = self->n_nodes;
  _weft_solver_sync (self);
  sn->n_nodes = n;
  sn->start = g_new (gint64, MAX (1, n));
  sn->end = g_new (gint64, MAX (1, n));
  sn->bind_pred = g_new (guint32, MAX (1, n));
  sn->bind_kind = g_new (guint8, MAX (1, n));
  sn->flags = g_new (guint8, MAX (1, n));
  for (guint32 v = 0; v < n; v++)
    {
      const Node *nd = &self->nodes[v];
      sn->start[v] = nd->start;
      sn->end[v] = nd->end;
      sn->bind_pred[v] = nd->bind_pred;
      sn->bind_kind[v] = nd->bind_kind;
      sn->flags[v] = nd->flags;
    }
  sn->lanes = g_new0 (GPtrArray *, MAX (1, self->n_ranks));
  for (guint r = 0; r < self->n_ranks; r++)
    {
      GPtrArray *src = self->ranks[r].lanes;
      sn->lanes[r] = g_ptr_array_new_with_free_func (lane_copy_free);
      for (guint li = 0; li < src->len; li++)
        {
          GArray *o = g_ptr_array_index (src, li);
          GArray *c = NULL;
          if (o != NULL)
            {
              c = g_array_sized_new (FALSE, FALSE, sizeof (guint32), o->len);
              g_array_append_vals (c, o->data, o->len);
            }
          g_ptr_array_add (sn->lanes[r], c);
        }
    }
  self->steps = weft_solver_steps (self);
  build_step_wins (self);
  self->baseline = g_array_new (FALSE, FALSE, sizeof (MetricsEntry));
}

/* Exchanges the current schedule with the snapshot (twice = identity).
 * Nodes created since are hidden (deleted) while the snapshot is in. */
static void
snapshot_swap (WeftSolver *self, gboolean in)
{
  Snapshot *sn = &self->snap;
  for (guint32 v = 0; v < sn->n_nodes; v++)
    {
      Node *nd = &self->nodes[v];
      gint64 t;
      guint32 p;
      guint8 k;
      t = nd->start, nd->start = sn->start[v], sn->start[v] = t;
      t = nd->end, nd->end = sn->end[v], sn->end[v] = t;
      p = nd->bind_pred, nd->bind_pred = sn->bind_pred[v], sn->bind_pred[v] = p;
      k = nd->bind_kind, nd->bind_kind = sn->bind_kind[v], sn->bind_kind[v] = k;
      k = nd->flags, nd->flags = sn->flags[v], sn->flags[v] = k;
    }
  for (guint32 v = sn->n_nodes; v < self->n_nodes; v++)
    {
      Node *nd = &self->nodes[v];
      if (in)
        {
          if (!(nd->flags & NODE_DELETED))
            nd->flags |= NODE_DELETED | NODE_HIDDEN;
        }
      else if (nd->flags & NODE_HIDDEN)
        nd->flags &= ~(NODE_DELETED | NODE_HIDDEN);
    }
  for (guint r = 0; r < self->n_ranks; r++)
    {
      GPtrArray *t = self->ranks[r].lanes;
      self->ranks[r].lanes = sn->lanes[r];
      sn->lanes[r] = t;
    }
}

void
_weft_solver_metrics_free (WeftSolver *self)
{
  Snapshot *sn = &self->snap;
  if (self->baseline)
    g_array_free (self->baseline, TRUE);
  if (self->steps)
    g_array_free (self->steps, TRUE);
  if (self->metrics_cache)
    g_array_free (self->metrics_cache, TRUE);
  g_clear_pointer (&self->created_launches, g_ptr_array_unref);
  if (self->step_wins)
    g_array_free (self->step_wins, TRUE);
  g_free (self->step_win_first);
  g_free (sn->start);
  g_free (sn->end);
  g_free (sn->bind_pred);
  g_free (sn->bind_kind);
  g_free (sn->flags);
  for (guint r = 0; sn->lanes != NULL && r < self->n_ranks; r++)
    g_ptr_array_free (sn->lanes[r], TRUE);
  g_free (sn->lanes);
}

gboolean
weft_solver_baseline_metrics (WeftSolver *self, guint rank_index, int step, WeftMetrics *out)
{
  MetricsEntry e;
  _weft_solver_sync (self);
  g_return_val_if_fail (out != NULL, FALSE);
  if (rank_index != WEFT_SOLVER_ALL_RANKS && rank_index >= self->n_ranks)
    return FALSE;
  for (guint i = 0; self->baseline && i < self->baseline->len; i++)
    {
      const MetricsEntry *c = &g_array_index (self->baseline, MetricsEntry, i);
      if (c->rank == rank_index && c->step == step)
        {
          *out = c->m;
          return c->ok;
        }
    }
  e.rank = rank_index;
  e.step = step;
  snapshot_swap (self, TRUE);
  e.ok = compute_metrics (self, rank_index, step, &e.m);
  snapshot_swap (self, FALSE);
  g_array_append_val (self->baseline, e);
  *out = e.m;
  return e.ok;
}

/* ---- collective instances ------------------------------------------------------ */

gboolean
weft_solver_instance_info (WeftSolver *self, guint32 instance, WeftSolverInstanceInfo *info,
                           WeftSolverArrival *arrivals, guint max_arrivals)
{
  guint32 iv;
  Node *in;
  guint k = 0;
  WeftSolverInstanceInfo dummy;

  _weft_solver_sync (self);
  if (info == NULL)
    info = &dummy;
  memset (info, 0, sizeof *info);
  if (self->inst_node == NULL || instance >= self->inst_node->len)
    return FALSE;
  iv = g_array_index (self->inst_node, guint32, instance);
  if (!_weft_solver_node_is_live (self, iv))
    return FALSE;
  in = &self->nodes[iv];
  info->type = g_array_index (self->trace->instances, WeftCollInstance, instance).type;
  info->transfer = in->dur;
  info->last_arrival = in->start;
  info->end = in->end;
  info->last_rank_index = in->bind_pred != WEFT_NONE ? self->nodes[in->bind_pred].rank : G_MAXUINT;
  for (guint i = 0; i < in->n_members; i++)
    {
      Node *m = &self->nodes[in->members[i]];
      gint64 wait;
      if (m->flags & NODE_DELETED)
        continue;
      wait = in->start - m->start;
      info->total_wait += wait;
      info->max_wait = MAX (info->max_wait, wait);
      if (arrivals != NULL && k < max_arrivals)
        {
          arrivals[k].rank_index = m->rank;
          arrivals[k].event = m->event;
          arrivals[k].arrival = m->start;
          arrivals[k].wait = wait;
          arrivals[k].end = m->end;
        }
      k++;
    }
  info->n_members = k;
  return k > 0;
}
