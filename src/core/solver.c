/* solver.c: the solver's lifecycle, the evaluation of a node, the re-solve
 * (node by node in topological order, or over the plan: solver-plan.c), the
 * calibration that makes an unmodified trace replay exactly, the times and
 * the public getters. The graph is built in solver-build.c, kept in
 * topological order by solver-order.c and edited by solver-edit.c; the
 * model, its edge kinds and the classes of traces that break it are
 * described in docs/solver.md. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "solver-private.h"

const char *
weft_dep_kind_to_string (WeftDepKind kind)
{
  static const char *names[] = { "none", "stream", "launch", "cross-stream", "rendezvous", "sync", "user", "explicit", "inferred" };
  return kind < G_N_ELEMENTS (names) ? names[kind] : "none";
}

/* ---- nodes ----------------------------------------------------------------- */

guint32
_weft_solver_add_node (WeftSolver *self, NodeKind kind, guint rank, guint32 event)
{
  Node *n;
  if (self->n_nodes == self->cap_nodes)
    {
      self->cap_nodes = MAX (64, self->cap_nodes * 2);
      self->nodes = g_renew (Node, self->nodes, self->cap_nodes);
    }
  _weft_solver_plan_invalidate (self);
  n = &self->nodes[self->n_nodes];
  memset (n, 0, sizeof *n);
  n->kind = kind;
  n->rank = rank;
  n->event = event;
  n->lane = WEFT_NONE;
  n->lane_pos = 0;
  n->inst = WEFT_NONE;
  n->bind_pred = WEFT_NONE;
  n->launch = WEFT_NONE;
  n->step = WEFT_SOLVER_ALL_STEPS;
  n->release = G_MININT64;
  n->min_start = G_MININT64;
  n->launch_time = G_MININT64;
  n->removed_lane = WEFT_NONE;
  return self->n_nodes++;
}

void
_weft_solver_node_add_in (WeftSolver *self, guint32 v, guint32 src, WeftDepKind kind, gint64 w)
{
  Node *n = &self->nodes[v];
  Node *s;
  _weft_solver_plan_invalidate (self);
  if (n->n_in == n->cap_in)
    {
      n->cap_in = MAX (2, n->cap_in * 2);
      n->in = g_renew (InEdge, n->in, n->cap_in);
    }
  n->in[n->n_in].src = src;
  n->in[n->n_in].kind = (guint8) kind;
  n->in[n->n_in].w = w;
  n->in[n->n_in].automatic = FALSE;
  n->n_in++;
  s = &self->nodes[src];
  if (s->n_out == s->cap_out)
    {
      s->cap_out = MAX (2, s->cap_out * 2);
      s->out = g_renew (guint32, s->out, s->cap_out);
    }
  s->out[s->n_out++] = v;
}

void
_weft_solver_node_remove_in (WeftSolver *self, guint32 v, guint idx)
{
  Node *n = &self->nodes[v];
  guint32 src = n->in[idx].src;
  Node *s = &self->nodes[src];
  _weft_solver_plan_invalidate (self);
  memmove (&n->in[idx], &n->in[idx + 1], (n->n_in - idx - 1) * sizeof (InEdge));
  n->n_in--;
  for (guint i = 0; i < s->n_out; i++)
    if (s->out[i] == v)
      {
        memmove (&s->out[i], &s->out[i + 1], (s->n_out - i - 1) * sizeof (guint32));
        s->n_out--;
        break;
      }
}

static inline gboolean
live (WeftSolver *self, guint32 n)
{
  return _weft_solver_live (self, n);
}

gboolean
_weft_solver_node_is_live (WeftSolver *self, guint32 n)
{
  return n < self->n_nodes && live (self, n);
}

GArray *
_weft_solver_lane_order (WeftSolver *self, guint rank, guint32 lane)
{
  GPtrArray *lanes = self->ranks[rank].lanes;
  if (lane >= lanes->len)
    return NULL;
  return g_ptr_array_index (lanes, lane);
}

guint32
_weft_solver_stream_prev (WeftSolver *self, guint32 v)
{
  Node *n = &self->nodes[v];
  GArray *order;
  if (n->kind != NODE_OP || n->lane_pos == 0 || (n->flags & NODE_DELETED))
    return WEFT_NONE;
  order = _weft_solver_lane_order (self, n->rank, n->lane);
  return g_array_index (order, guint32, n->lane_pos - 1);
}

guint32
_weft_solver_stream_next (WeftSolver *self, guint32 v)
{
  Node *n = &self->nodes[v];
  GArray *order;
  if (n->kind != NODE_OP || (n->flags & NODE_DELETED))
    return WEFT_NONE;
  order = _weft_solver_lane_order (self, n->rank, n->lane);
  if (n->lane_pos + 1 >= order->len)
    return WEFT_NONE;
  return g_array_index (order, guint32, n->lane_pos + 1);
}

guint32
_weft_solver_node (WeftSolver *self, guint rank, guint32 event)
{
  GArray *map;
  guint32 n;
  if (self == NULL || rank >= self->n_ranks)
    return WEFT_NONE;
  map = self->ranks[rank].ev_node;
  if (event >= map->len)
    return WEFT_NONE;
  n = g_array_index (map, guint32, event);
  return live (self, n) && self->nodes[n].kind == NODE_OP ? n : WEFT_NONE;
}

void
_weft_solver_set_ev_node (WeftSolver *self, guint rank, guint32 event, guint32 node)
{
  GArray *map = self->ranks[rank].ev_node;
  if (event >= map->len)
    {
      guint old = map->len;
      g_array_set_size (map, event + 1);
      for (guint i = old; i < map->len; i++)
        g_array_index (map, guint32, i) = WEFT_NONE;
    }
  g_array_index (map, guint32, event) = node;
}

/* ---- evaluation ------------------------------------------------------------- */

/* The stream neighbours of a live OP node n (inlined: the evaluation's hot
 * path). */
static inline guint32
op_stream_prev (WeftSolver *self, const Node *n)
{
  const GArray *order;
  if (n->lane_pos == 0)
    return WEFT_NONE;
  order = g_ptr_array_index (self->ranks[n->rank].lanes, n->lane);
  return g_array_index (order, guint32, n->lane_pos - 1);
}

static inline guint32
op_stream_next (WeftSolver *self, const Node *n)
{
  const GArray *order = g_ptr_array_index (self->ranks[n->rank].lanes, n->lane);
  return n->lane_pos + 1 < order->len ? g_array_index (order, guint32, n->lane_pos + 1) : WEFT_NONE;
}

static inline void heap_push (WeftSolver *self, guint32 v);

/* Pushes what depends on the END of live node x (its stream successor and
 * the holders of its out edges): _weft_solver_foreach_end_succ with heap_push, inlined. */
static inline void
push_end_succ (WeftSolver *self, guint32 x)
{
  const Node *n = &self->nodes[x];
  if (n->kind == NODE_OP)
    {
      guint32 nx = op_stream_next (self, n);
      if (nx != WEFT_NONE)
        heap_push (self, nx);
    }
  for (guint i = 0; i < n->n_out; i++)
    heap_push (self, n->out[i]);
}

static void
eval_ready (WeftSolver *self, guint32 v, gint64 *ready, guint8 *bk, guint32 *bp)
{
  Node *n = &self->nodes[v];
  gint64 best;
  guint8 kind;
  guint32 pred = WEFT_NONE;

  _weft_solver_node_release (n, &best, &kind);
  if (n->kind == NODE_OP)
    {
      guint32 p = op_stream_prev (self, n);
      if (p != WEFT_NONE)
        {
          gint64 t = self->nodes[p].end + n->w_stream;
          if (t > best || best == G_MININT64)
            {
              best = t;
              kind = WEFT_DEP_STREAM;
              pred = p;
            }
        }
    }
  for (guint i = 0; i < n->n_in; i++)
    {
      guint32 s = n->in[i].src;
      gint64 t;
      if (!live (self, s))
        continue;
      t = self->nodes[s].end + n->in[i].w;
      if (t > best || best == G_MININT64)
        {
          best = t;
          kind = n->in[i].kind;
          pred = s;
        }
    }
  if (best == G_MININT64)
    best = n->obs_start;
  *ready = best;
  *bk = kind;
  *bp = pred;
}


/* Recomputes v from its predecessors; pushes what depends on a change when
 * propagate. Returns TRUE when a time changed. */
static gboolean
eval_node_graph (WeftSolver *self, guint32 v, gboolean propagate)
{
  Node *n = &self->nodes[v];
  gboolean changed = FALSE;

  if (n->kind == NODE_INST)
    {
      gint64 best = G_MININT64, end;
      guint32 strag = WEFT_NONE;
      for (guint i = 0; i < n->n_members; i++)
        {
          Node *m = &self->nodes[n->members[i]];
          if (m->flags & NODE_DELETED)
            continue;
          if (strag == WEFT_NONE || m->start > best)
            {
              best = m->start;
              strag = n->members[i];
            }
        }
      if (strag == WEFT_NONE)
        return FALSE;
      end = best + n->dur;
      changed = n->start != best || n->end != end;
      n->start = best;
      n->end = end;
      n->bind_kind = WEFT_DEP_RENDEZVOUS;
      n->bind_pred = strag;
      for (guint i = 0; i < n->n_members; i++)
        {
          guint32 mi = n->members[i];
          Node *m = &self->nodes[mi];
          gint64 me = MAX (m->start, end + m->end_off);
          if ((m->flags & NODE_DELETED) || m->end == me)
            continue;
          m->end = me;
          changed = TRUE;
          if (propagate)
            push_end_succ (self, mi);
        }
      return changed;
    }
  else
    {
      gint64 ready, end;
      guint8 bk;
      guint32 bp;
      eval_ready (self, v, &ready, &bk, &bp);
      n->bind_kind = bk;
      n->bind_pred = bp;
      if (n->kind == NODE_SYNC)
        {
          changed = n->start != ready || n->end != ready;
          n->start = n->end = ready;
          if (changed && propagate)
            push_end_succ (self, v);
          return changed;
        }
      if (_weft_solver_is_member (self, v))
        {
          changed = n->start != ready;
          n->start = ready;
          if (changed && propagate)
            heap_push (self, n->inst);
          return changed;
        }
      end = ready + n->dur;
      changed = n->start != ready || n->end != end;
      if (n->end != end)
        {
          n->start = ready;
          n->end = end;
          if (propagate)
            push_end_succ (self, v);
        }
      n->start = ready;
      return changed;
    }
}

/* eval_node_graph, keeping the plan's mirror of the node (and of the
 * members, whose ends an instance sets) current. */
static gboolean
eval_node (WeftSolver *self, guint32 v, gboolean propagate)
{
  gboolean changed = eval_node_graph (self, v, propagate);
  if (changed && self->lt.built)
    {
      const Node *n = &self->nodes[v];
      _weft_solver_lane_times_note (self, v);
      if (n->kind == NODE_INST)
        for (guint i = 0; i < n->n_members; i++)
          _weft_solver_lane_times_note (self, n->members[i]);
    }
  if (self->plan.ok)
    {
      const Node *n = &self->nodes[v];
      _weft_solver_plan_mirror (self, v);
      if (n->kind == NODE_INST)
        for (guint i = 0; i < n->n_members; i++)
          _weft_solver_plan_mirror (self, n->members[i]);
    }
  return changed;
}

/* ---- pending nodes and the re-solve in topological order -------------------- */

/* Outside a solve, the nodes to re-evaluate are kept unordered in
 * self->heap (NODE_IN_HEAP: at most once); their topological positions may
 * still change (structural edits) before the solve. _weft_solver_solve_pending orders
 * them into a binary heap keyed by topological position and pops them in
 * order; each re-evaluated node that changed pushes its dependents. That is
 * cheap while few nodes are pending at once and the change stays local (an
 * edit whose effect stays on a stream or two). When the pending front grows
 * past HEAP_MAX or the solve has evaluated 1/8 of the nodes (a change that
 * moves most of the schedule, such as dragging an early collective of every
 * rank), the rest of the solve switches to a bitmap indexed by topological
 * position, swept upwards a 64-bit word at a time (empty stretches cost one
 * load per 64 positions): every push is a successor, at a later position,
 * so one pass evaluates each pending node once, in order, with no heap. */
#define HEAP_MAX 64
#define PREFETCH_AHEAD 8

static inline void
dirty_set (WeftSolver *self, guint32 v)
{
  guint q = self->pos[v];
  guint w;
  if (q >= self->n_order)
    return;
  w = q >> 6;
  self->dirty[w] |= G_GUINT64_CONSTANT (1) << (q & 63);
  if (w > self->sweep_hi)
    self->sweep_hi = w;
  if (w < self->sweep_cur)
    self->sweep_cur = w;   /* only after an invalid order: go back */
}

static inline void
heap_push (WeftSolver *self, guint32 v)
{
  guint i;

  if (self->sweeping)
    {
      /* liveness is checked when the sweep reaches it (a node out of the
       * order has no position and is skipped here) */
      if (v != WEFT_NONE)
        {
          /* it is evaluated later in this sweep: start loading it now */
          __builtin_prefetch (&self->nodes[v]);
          dirty_set (self, v);
        }
      return;
    }
  if (!live (self, v))
    return;
  if (self->nodes[v].flags & NODE_IN_HEAP)
    return;
  self->nodes[v].flags |= NODE_IN_HEAP;
  if (self->n_heap == self->cap_heap)
    {
      self->cap_heap = MAX (64, self->cap_heap * 2);
      self->heap = g_renew (guint32, self->heap, self->cap_heap);
    }
  i = self->n_heap++;
  if (self->heap_ordered)
    while (i > 0)
      {
        guint parent = (i - 1) / 2;
        if (self->pos[self->heap[parent]] <= self->pos[v])
          break;
        self->heap[i] = self->heap[parent];
        i = parent;
      }
  self->heap[i] = v;
}

/* heap_push for the edits (solver-edit.c): the solve keeps the inlined one. */
void
_weft_solver_heap_push (WeftSolver *self, guint32 v)
{
  heap_push (self, v);
}

static guint32
heap_pop (WeftSolver *self)
{
  guint32 top = self->heap[0];
  guint32 last = self->heap[--self->n_heap];
  guint i = 0;
  while (TRUE)
    {
      guint c = 2 * i + 1;
      if (c >= self->n_heap)
        break;
      if (c + 1 < self->n_heap && self->pos[self->heap[c + 1]] < self->pos[self->heap[c]])
        c++;
      if (self->pos[last] <= self->pos[self->heap[c]])
        break;
      self->heap[i] = self->heap[c];
      i = c;
    }
  if (self->n_heap > 0)
    self->heap[i] = last;
  self->nodes[top].flags &= ~NODE_IN_HEAP;
  return top;
}

/* The rest of a solve with the bitmap: the heap's nodes become bits. */
static gboolean
sweep_pending (WeftSolver *self)
{
  gboolean changed = FALSE;
  guint n_words = (self->n_order + 63) / 64;
  guint w, q;

  if (self->n_dirty < n_words)
    {
      g_free (self->dirty);
      self->n_dirty = MAX (n_words, self->n_dirty * 2);
      self->dirty = g_new0 (guint64, self->n_dirty);
    }
  self->sweeping = TRUE;
  self->sweep_cur = G_MAXUINT;
  self->sweep_hi = 0;
  for (guint i = 0; i < self->n_heap; i++)
    {
      guint32 v = self->heap[i];
      self->nodes[v].flags &= ~NODE_IN_HEAP;
      if (live (self, v))
        dirty_set (self, v);
    }
  self->n_heap = 0;
  w = self->sweep_cur;
  while (w <= self->sweep_hi)
    {
      guint64 bits = self->dirty[w];
      guint32 v;
      if (bits == 0)
        {
          w++;
          continue;
        }
      self->dirty[w] = bits & (bits - 1);
      q = (w << 6) + (guint) __builtin_ctzll (bits);
      v = self->order[q];
      if (q + 2 * PREFETCH_AHEAD < self->n_order)
        {
          /* a long sweep evaluates most positions: fetch the node further
           * ahead and the edge arrays of a nearer one (whose node line was
           * fetched before), when they are already known to be pending */
          guint qa = q + 2 * PREFETCH_AHEAD, qn = q + PREFETCH_AHEAD;
          if (self->dirty[qa >> 6] & (G_GUINT64_CONSTANT (1) << (qa & 63)))
            {
              const Node *ahead = &self->nodes[self->order[qa]];
              __builtin_prefetch (ahead);
              __builtin_prefetch ((const char *) ahead + 64);
            }
          if (self->dirty[qn >> 6] & (G_GUINT64_CONSTANT (1) << (qn & 63)))
            {
              const Node *near = &self->nodes[self->order[qn]];
              if (near->in != NULL)
                __builtin_prefetch (near->in);
              if (near->out != NULL)
                __builtin_prefetch (near->out);
            }
        }
      self->sweep_cur = w;
      if (live (self, v) && eval_node (self, v, TRUE))
        changed = TRUE;
      if (self->sweep_cur < w)
        w = self->sweep_cur;
    }
  self->sweeping = FALSE;
  return changed;
}

/* A solve over the plan: the positions from the first pending one on, up
 * to the last one that reads a changed time or is pending (a dense pass:
 * cheaper than following the changes one by one once they reach most of
 * the graph, and at most ~1-2 ms on 200k nodes when they do not). */
static gboolean
plan_solve (WeftSolver *self)
{
  gboolean changed;
  guint q0 = G_MAXUINT, q1 = 0;
  for (guint i = 0; i < self->n_heap; i++)
    {
      guint32 v = self->heap[i];
      self->nodes[v].flags &= ~NODE_IN_HEAP;
      if (live (self, v))
        {
          q0 = MIN (q0, self->pos[v]);
          q1 = MAX (q1, self->pos[v]);
        }
    }
  self->n_heap = 0;
  changed = q0 < self->n_order && _weft_solver_plan_sweep (self, q0, q1);
  if (self->verify)
    _weft_solver_plan_verify (self, "plan sweep");
  return changed;
}

/* The rest of a solve whose front grew large, without a valid plan: the
 * plan is built when the graph's structure has not changed since the
 * previous large solve (a drag in time re-solves after each motion: the
 * first motion runs node by node, the second builds the plan, the next
 * ones only sweep it); else the rest runs node by node. The plan is built
 * only then so that edits that change the structure every time (a drag
 * across streams) do not pay for a plan used once. */
static gboolean
large_solve (WeftSolver *self)
{
  gboolean changed;
  if (self->structure == self->sweep_structure)
    {
      _weft_solver_plan_build (self);
      return plan_solve (self);
    }
  self->sweep_structure = self->structure;
  changed = sweep_pending (self);
  self->stats.n_graph_sweeps++;
  if (self->verify)
    _weft_solver_plan_verify (self, "graph sweep");
  return changed;
}

/* Test mode (WEFT_SOLVER_VERIFY): re-solves every node from the graph in
 * topological order and aborts when a time, a binding or the plan's mirror
 * differs from what the incremental solve left. */
void
_weft_solver_plan_verify (WeftSolver *self, const char *what)
{
  guint n = self->n_nodes;
  gint64 *st = g_new (gint64, MAX (1, n)), *en = g_new (gint64, MAX (1, n));
  guint32 *bp = g_new (guint32, MAX (1, n));
  guint8 *bk = g_new (guint8, MAX (1, n));
  gboolean plan_ok;

  _weft_solver_sync (self);
  plan_ok = self->plan.ok;

  for (guint32 v = 0; v < n; v++)
    {
      st[v] = self->nodes[v].start;
      en[v] = self->nodes[v].end;
      bp[v] = self->nodes[v].bind_pred;
      bk[v] = self->nodes[v].bind_kind;
    }
  if (plan_ok)
    for (guint q = 0; q < self->plan.n; q++)
      {
        guint32 v = self->plan.node[q];
        if (v != self->order[q] || self->plan.start[q] != st[v] || self->plan.end[q] != en[v] ||
            self->plan.bind_pred[q] != bp[v] || self->plan.bind_kind[q] != bk[v])
          g_error ("solver verify (%s): the plan's mirror of node %u (position %u) differs from the node", what, v, q);
      }
  self->plan.ok = FALSE;   /* evaluate from the graph alone */
  for (guint i = 0; i < self->n_order; i++)
    eval_node_graph (self, self->order[i], FALSE);
  self->plan.ok = plan_ok;
  for (guint i = 0; i < self->n_order; i++)
    {
      guint32 v = self->order[i];
      Node *nd = &self->nodes[v];
      if (nd->start != st[v] || nd->end != en[v] || nd->bind_pred != bp[v] || nd->bind_kind != bk[v])
        g_error ("solver verify (%s): node %u (position %u) solved to start %" G_GINT64_FORMAT " end %" G_GINT64_FORMAT
                 " bind %u/%u, the graph gives start %" G_GINT64_FORMAT " end %" G_GINT64_FORMAT " bind %u/%u",
                 what, v, i, st[v], en[v], bp[v], bk[v], nd->start, nd->end, nd->bind_pred, nd->bind_kind);
    }
  g_free (st);
  g_free (en);
  g_free (bp);
  g_free (bk);
}

void
_weft_solver_solve_pending (WeftSolver *self)
{
  gboolean changed = FALSE;
  guint n = self->n_heap, n_evals = 0;

  self->pending = FALSE;
  if (n == 0)
    return;
  if (self->plan.ok)
    {
      if (plan_solve (self))
        self->generation++;
      return;
    }
  /* order the pending nodes by their positions now */
  self->heap_ordered = TRUE;
  self->n_heap = 0;
  for (guint i = 0; i < n; i++)
    {
      guint32 v = self->heap[i];   /* read before the push may overwrite slot i */
      self->nodes[v].flags &= ~NODE_IN_HEAP;
      heap_push (self, v);
    }
  while (self->n_heap > 0 && self->n_heap <= HEAP_MAX && n_evals <= self->n_order / 8)
    {
      guint32 v = heap_pop (self);
      n_evals++;
      if (live (self, v) && eval_node (self, v, TRUE))
        changed = TRUE;
    }
  self->heap_ordered = FALSE;
  if (self->n_heap > 0 && large_solve (self))
    changed = TRUE;
  if (changed)
    self->generation++;
}

void
weft_solver_prepare (WeftSolver *self)
{
  g_return_if_fail (self != NULL);
  if (self->plan.ok || self->n_heap > 0 || self->pending)
    return;   /* built already, or a batch is open: the solve decides */
  _weft_solver_plan_build (self);
  self->sweep_structure = self->structure;
}

void
weft_solver_solve_all (WeftSolver *self)
{
  g_return_if_fail (self != NULL);

  _weft_solver_sync (self);
  for (guint i = 0; i < self->n_order; i++)
    eval_node (self, self->order[i], FALSE);
  self->n_heap = 0;
  for (guint32 v = 0; v < self->n_nodes; v++)
    self->nodes[v].flags &= ~NODE_IN_HEAP;
  self->generation++;
}

void
_weft_solver_maybe_solve (WeftSolver *self)
{
  if (self->batch > 0)
    {
      self->pending = TRUE;
      return;
    }
  _weft_solver_solve_pending (self);
}

/* ---- calibration: weights that replay the observed schedule exactly -------- */

/* Among a node's constraints (source time s, exact weight = observed - s,
 * typical weight), the one with the latest s + min(exact, typical) binds and
 * gets its exact weight; the others get min(exact, typical). The observed
 * start is reproduced exactly and an op can still move earlier when what
 * held it back shrinks. */
typedef struct
{
  gint64 s;
  gint64 typ;
  int    which;   /* -1 release, -2 stream, >= 0 in edge */
} Cand;

/* Gives constraint c of node n the weight w. */
static inline void
cand_set_weight (Node *n, const Cand *c, gint64 w)
{
  if (c->which == -1)
    n->release = c->s + w;
  else if (c->which == -2)
    n->w_stream = w;
  else
    n->in[c->which].w = w;
}

static void
calibrate_node (WeftSolver *self, guint32 v)
{
  Node *n = &self->nodes[v];
  RankState *rs = &self->ranks[n->rank];
  Cand stack_c[8];
  Cand *c = n->n_in + 2 <= G_N_ELEMENTS (stack_c) ? stack_c : g_new (Cand, n->n_in + 2);
  guint nc = 0;
  int best = -1;
  gint64 best_t = G_MININT64;
  gint64 obs = n->obs_start;

  if (n->kind == NODE_INST)
    {
      /* transfer = median observed end - latest (solved) arrival */
      GArray *ends = g_array_new (FALSE, FALSE, sizeof (gint64));
      gint64 last = G_MININT64, med;
      for (guint i = 0; i < n->n_members; i++)
        {
          Node *m = &self->nodes[n->members[i]];
          if (m->flags & NODE_DELETED)
            continue;
          g_array_append_val (ends, m->obs_end);
          last = MAX (last, m->start);
        }
      if (ends->len > 0)
        {
          gint64 *e = (gint64 *) (void *) ends->data;
          /* insertion sort: instances are small */
          for (guint i = 1; i < ends->len; i++)
            for (guint j = i; j > 0 && e[j - 1] > e[j]; j--)
              {
                gint64 t = e[j];
                e[j] = e[j - 1];
                e[j - 1] = t;
              }
          med = e[(ends->len - 1) / 2];
          n->dur = MAX (0, med - last);
          /* each member's own observed end, as an offset from the
           * instance's end (the ranks' ends of one collective differ by
           * microseconds after clock alignment); a member that arrived
           * after the others had ended (a mismatched instance, counted in
           * n_instances_late) ends them all at its arrival */
          for (guint i = 0; i < n->n_members; i++)
            {
              Node *m = &self->nodes[n->members[i]];
              if (!(m->flags & NODE_DELETED))
                m->end_off = med >= last ? m->obs_end - (last + n->dur) : 0;
            }
        }
      g_array_free (ends, TRUE);
      if (c != stack_c)
        g_free (c);
      return;
    }

  if (n->release_kind == WEFT_DEP_LAUNCH && n->kind == NODE_OP && n->launch_time != G_MININT64)
    c[nc++] = (Cand) { n->launch_time, rs->typ_launch, -1 };
  else if (n->release_kind == WEFT_DEP_LAUNCH && n->kind == NODE_SYNC && n->release != G_MININT64)
    c[nc++] = (Cand) { n->obs_start, 0, -1 }; /* the thread's first sync: its CPU floor is fixed */
  if (n->kind == NODE_OP)
    {
      guint32 p = _weft_solver_stream_prev (self, v);
      if (p != WEFT_NONE)
        c[nc++] = (Cand) { self->nodes[p].end, rs->typ_gap, -2 };
    }
  for (guint i = 0; i < n->n_in; i++)
    {
      InEdge *e = &n->in[i];
      Node *s = &self->nodes[e->src];
      gint64 typ = 0;
      if (!live (self, e->src))
        continue;
      if (e->kind == WEFT_DEP_LAUNCH && n->kind == NODE_OP)
        {
          /* CPU time after the sync + latency; saturating near the int64 limits */
          if (__builtin_sub_overflow (n->launch_time, s->obs_end, &typ) ||
              __builtin_add_overflow (typ, rs->typ_launch, &typ))
            typ = n->launch_time > s->obs_end ? G_MAXINT64 : G_MININT64;
        }
      else if (e->kind == WEFT_DEP_LAUNCH && n->kind == NODE_SYNC)
        typ = n->obs_start - s->obs_end;                      /* CPU time between two syncs */
      c[nc++] = (Cand) { s->end, typ, (int) i };
    }
  if (n->kind == NODE_SYNC)
    obs = n->obs_end;

  for (guint i = 0; i < nc; i++)
    {
      gint64 exact = obs - c[i].s;
      gint64 t = c[i].s + MIN (exact, c[i].typ);
      if (best < 0 || t > best_t)
        {
          best = (int) i;
          best_t = t;
        }
    }
  /* Nothing explains the observed start (every constraint with its usual
   * gap leaves it far later): it waited for something the trace does not
   * show. Release it at its observed time rather than stretching one edge. */
  if (n->kind == NODE_OP && nc > 0 && obs - best_t > UNEXPLAINED_NS)
    best = -1;
  /* held by a user minimum start at its observed start (a trace Weft saved
   * after an edit, "weft held"): that explains it, as it did in the
   * session; every other constraint keeps its typical weight, and stays
   * short of the start so that the minimum start binds */
  if (n->kind == NODE_OP && n->min_start == obs)
    {
      for (guint i = 0; i < nc; i++)
        cand_set_weight (n, &c[i], MIN (obs - c[i].s - 1, c[i].typ));
      if (c != stack_c)
        g_free (c);
      return;
    }
  for (guint i = 0; i < nc; i++)
    {
      gint64 exact = obs - c[i].s;
      cand_set_weight (n, &c[i], (int) i == best ? exact : MIN (exact, c[i].typ));
    }
  if (nc == 0 || best < 0)
    {
      n->release = obs;
      n->release_kind = WEFT_DEP_NONE;
      if (nc > 0)
        self->stats.n_unexplained++;
    }
  if (c != stack_c)
    g_free (c);
}

static void
calibrate (WeftSolver *self)
{
  for (guint i = 0; i < self->n_order; i++)
    {
      guint32 v = self->order[i];
      calibrate_node (self, v);
      eval_node (self, v, FALSE);
    }
  self->generation++;
}

/* ---- lifecycle -------------------------------------------------------------- */

WeftSolver *
weft_solver_new (WeftTrace *trace, GError **error)
{
  g_return_val_if_fail (trace != NULL, NULL);

  WeftSolver *self;

  if (trace == NULL)
    {
      g_set_error_literal (error, WEFT_ERROR, WEFT_ERROR_INVALID, "solver: no trace");
      return NULL;
    }
  self = g_new0 (WeftSolver, 1);
  self->trace = trace;
  self->verify = g_strcmp0 (g_getenv ("WEFT_SOLVER_VERIFY"), "1") == 0;
  self->plan.stale_lo = G_MAXUINT;
  self->sweep_structure = G_MAXUINT64;
  self->n_ranks = trace->ranks->len;
  self->ranks = g_new0 (RankState, MAX (1, self->n_ranks));
  _weft_solver_build (self);
  calibrate (self);
  for (guint32 v = 0; v < self->n_nodes; v++)
    {
      Node *n = &self->nodes[v];
      if (n->flags & NODE_DELETED)
        continue;
      if (n->kind == NODE_OP)
        {
          self->stats.n_ops++;
          if (n->launch != WEFT_NONE)
            self->stats.n_launch++;
          if (n->w_stream < 0 && _weft_solver_stream_prev (self, v) != WEFT_NONE)
            self->stats.n_stream_overlaps++;
        }
      else if (n->kind == NODE_SYNC)
        self->stats.n_syncs++;
      else
        {
          self->stats.n_instances++;
          if (n->dur == 0)
            self->stats.n_instances_late++;
        }
    }
  _weft_solver_compute_baseline (self);
  return self;
}

static void
thread_syncs_free (gpointer data)
{
  ThreadSyncs *ts = data;
  g_array_free (ts->syncs, TRUE);
  if (ts->orig)
    g_array_free (ts->orig, TRUE);
  g_free (ts->obs_end);
  g_free (ts);
}

void
weft_solver_free (WeftSolver *self)
{
  if (self == NULL)
    return;
  /* the plan first, and without writing a pending sweep back into the
   * nodes (they are freed below; the write-back went to freed memory) */
  self->plan.stale_lo = G_MAXUINT;
  _weft_solver_plan_free (self);
  _weft_solver_lane_times_free (self);
  for (guint32 v = 0; v < self->n_nodes; v++)
    {
      g_free (self->nodes[v].in);
      g_free (self->nodes[v].out);
      g_free (self->nodes[v].members);
    }
  g_free (self->nodes);
  for (guint r = 0; r < self->n_ranks; r++)
    {
      RankState *rs = &self->ranks[r];
      GHashTableIter it;
      gpointer value;
      g_array_free (rs->ev_node, TRUE);
      g_ptr_array_free (rs->lanes, TRUE);
      g_hash_table_iter_init (&it, rs->threads);
      while (g_hash_table_iter_next (&it, NULL, &value))
        thread_syncs_free (value);
      g_hash_table_destroy (rs->threads);
      g_free (rs->thread_by_lane);
      if (rs->annots != NULL)
        {
          g_array_free (rs->annots, TRUE);
          g_array_free (rs->annot_nodes, TRUE);
          g_hash_table_destroy (rs->annot_of);
        }
    }
  g_free (self->ranks);
  if (self->inst_node)
    g_array_free (self->inst_node, TRUE);
  g_free (self->order);
  g_free (self->pos);
  g_free (self->heap);
  g_free (self->dirty);
  g_free (self->latest);
  g_free (self->mark);
  g_free (self->parent);
  _weft_solver_plan_free (self);
  _weft_solver_metrics_free (self);
  g_free (self);
}

WeftTrace *
weft_solver_get_trace (WeftSolver *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->trace;
}

typedef struct
{
  guint32  v;
  gboolean ok;
} CheckData;

static void
check_pred_cb (WeftSolver *self, guint32 p, gpointer data)
{
  CheckData *c = data;
  if (self->pos[p] >= self->pos[c->v])
    c->ok = FALSE;
}

gboolean
_weft_solver_check (WeftSolver *self)
{
  guint n_live = 0;
  for (guint32 v = 0; v < self->n_nodes; v++)
    {
      CheckData c = { v, TRUE };
      if (!live (self, v))
        continue;
      n_live++;
      if (self->pos[v] >= self->n_order || self->order[self->pos[v]] != v)
        return FALSE;
      _weft_solver_foreach_topo_pred (self, v, check_pred_cb, &c);
      if (!c.ok)
        return FALSE;
    }
  return n_live == self->n_order;
}

void
weft_solver_stats (WeftSolver *self, WeftSolverStats *out)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (out != NULL);

  *out = self->stats;
}

guint64
weft_solver_generation (WeftSolver *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->generation;
}

/* ---- annotations ------------------------------------------------------------ */

/* Where annotation rec belongs now: over the live ops it covered that are
 * still on its lane (else on the lane of the first live one), from the
 * first start to the last end. FALSE when none of its ops is left. */
gboolean
_weft_solver_annot_span (WeftSolver *self, guint r, const AnnotRec *rec, gint64 *start, gint64 *end, guint32 *lane)
{
  RankState *rs = &self->ranks[r];
  const guint32 *nodes = &g_array_index (rs->annot_nodes, guint32, rec->first);
  guint32 at = WEFT_NONE;
  gint64 s = G_MAXINT64, e = G_MININT64;
  for (guint k = 0; k < rec->n; k++)
    if (live (self, nodes[k]))
      {
        if (self->nodes[nodes[k]].lane == rec->lane || at == WEFT_NONE)
          at = self->nodes[nodes[k]].lane;
        if (at == rec->lane)
          break;
      }
  if (at == WEFT_NONE)
    return FALSE;
  guint32 first = WEFT_NONE, last = WEFT_NONE;
  gint64 lead = rec->lead, trail = rec->trail;
  for (guint k = 0; k < rec->n; k++)
    {
      gint64 ns, ne;
      if (!live (self, nodes[k]) || self->nodes[nodes[k]].lane != at)
        continue;
      _weft_solver_node_times (self, nodes[k], &ns, &ne);
      if (ns < s)
        s = ns, first = nodes[k];
      if (ne > e)
        e = ne, last = nodes[k];
    }
  /* its margins as loaded, but never over the ops beside it on the stream
   * (a partial overlap would push it onto another track when saved) */
  if (first != WEFT_NONE && (lead > 0))
    {
      guint32 p = _weft_solver_stream_prev (self, first);
      if (p != WEFT_NONE)
        {
          gint64 pe;
          _weft_solver_node_times (self, p, NULL, &pe);
          lead = MAX (0, MIN (lead, s - pe));
        }
    }
  if (last != WEFT_NONE && trail > 0)
    {
      guint32 nx = _weft_solver_stream_next (self, last);
      if (nx != WEFT_NONE)
        {
          gint64 ns;
          _weft_solver_node_times (self, nx, &ns, NULL);
          trail = MAX (0, MIN (trail, ns - MAX (s, e)));
        }
    }
  *start = s - MAX (0, lead);
  *end = MAX (s, e) + MAX (0, trail);
  *lane = at;
  return TRUE;
}

static const AnnotRec *
annot_of (WeftSolver *self, guint r, guint32 event)
{
  RankState *rs = &self->ranks[r];
  guint k;
  if (rs->annot_of == NULL)
    return NULL;
  k = GPOINTER_TO_UINT (g_hash_table_lookup (rs->annot_of, GUINT_TO_POINTER (event + 1)));
  return k == 0 ? NULL : &g_array_index (rs->annots, AnnotRec, k - 1);
}

/* ---- times ------------------------------------------------------------------- */

/* CpuOrig by event (ThreadSyncs.orig: sorted by solver-build.c, searched
 * by cpu_orig). */
gint
_weft_solver_cpu_orig_cmp (gconstpointer a, gconstpointer b)
{
  guint32 x = ((const CpuOrig *) a)->event, y = ((const CpuOrig *) b)->event;
  return (x > y) - (x < y);
}

static inline ThreadSyncs *
thread_syncs (WeftSolver *self, guint rank, guint32 lane)
{
  const RankState *rs = &self->ranks[rank];
  return lane < rs->n_thread_lanes ? rs->thread_by_lane[lane] : NULL;
}

/* Shift of a CPU thread at original (common timeline) time t. */
gint64
_weft_solver_shift (WeftSolver *self, guint rank, guint32 lane, gint64 t)
{
  ThreadSyncs *ts = thread_syncs (self, rank, lane);
  guint lo = 0, hi;
  gint64 end;
  if (ts == NULL)
    return 0;
  hi = ts->syncs->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (ts->obs_end[mid] <= t)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == 0)
    return 0;
  _weft_solver_node_times (self, g_array_index (ts->syncs, guint32, lo - 1), NULL, &end);
  return end - ts->obs_end[lo - 1];
}

gboolean
_weft_solver_cpu_orig (WeftSolver *self, guint rank, guint32 event, gint64 *ts_out, gint64 *end_out, guint32 *lane_out)
{
  WeftRank *rk = weft_trace_rank (self->trace, rank);
  WeftEvent *ev;
  ThreadSyncs *ts;
  if (event >= rk->events->len)
    return FALSE;
  ev = weft_rank_event (rk, event);
  *lane_out = ev->lane;
  *ts_out = ev->ts;
  *end_out = weft_event_end (rk, ev);
  if (ev->lane == WEFT_NONE || self->n_edits_applied == 0)
    return TRUE;   /* only weft_solver_apply_to_model changes a CPU event's times */
  ts = thread_syncs (self, rank, ev->lane);
  if (ts != NULL && ts->orig != NULL)
    {
      CpuOrig key = { event, 0, 0 };
      CpuOrig *found;
      found = bsearch (&key, ts->orig->data, ts->orig->len, sizeof (CpuOrig), _weft_solver_cpu_orig_cmp);
      if (found != NULL)
        {
          *ts_out = found->ts;
          *end_out = found->end;
        }
    }
  return TRUE;
}

gboolean
weft_solver_is_node (WeftSolver *self, guint rank_index, guint32 event)
{
  return _weft_solver_node (self, rank_index, event) != WEFT_NONE;
}

static void
event_times (WeftSolver *self, guint rank_index, guint32 event, gint64 *start, gint64 *end)
{
  guint32 v = _weft_solver_node (self, rank_index, event);
  gint64 ts, te, off;
  guint32 lane;
  if (v != WEFT_NONE)
    {
      _weft_solver_node_times (self, v, start, end);
      return;
    }
  if (rank_index < self->n_ranks && self->ranks[rank_index].annot_of != NULL)
    {
      const AnnotRec *rec = annot_of (self, rank_index, event);
      if (rec != NULL && _weft_solver_annot_span (self, rank_index, rec, start, end, &lane))
        return;
    }
  if (rank_index >= self->n_ranks || !_weft_solver_cpu_orig (self, rank_index, event, &ts, &te, &lane))
    {
      *start = *end = 0;
      return;
    }
  off = self->ranks[rank_index].offset;
  if (lane == WEFT_NONE)
    {
      *start = ts + off;
      *end = te + off;
      return;
    }
  *start = ts + off + _weft_solver_shift (self, rank_index, lane, ts + off);
  *end = te + off + _weft_solver_shift (self, rank_index, lane, te + off);
  if (*end < *start)
    *end = *start;
}

void
weft_solver_times (WeftSolver *self, guint rank_index, guint32 event, gint64 *start, gint64 *end)
{
  event_times (self, rank_index, event, start, end);
}

void
_weft_solver_event_times (WeftSolver *self, guint rank_index, guint32 event, gint64 *start, gint64 *end)
{
  event_times (self, rank_index, event, start, end);
}

gint64
weft_solver_start (WeftSolver *self, guint rank_index, guint32 event)
{
  gint64 s, e;
  event_times (self, rank_index, event, &s, &e);
  return s;
}

gint64
weft_solver_end (WeftSolver *self, guint rank_index, guint32 event)
{
  gint64 s, e;
  event_times (self, rank_index, event, &s, &e);
  return e;
}

gint64
weft_solver_ready (WeftSolver *self, guint rank_index, guint32 event)
{
  return weft_solver_start (self, rank_index, event);
}

gint64
weft_solver_duration (WeftSolver *self, guint rank_index, guint32 event)
{
  guint32 v = _weft_solver_node (self, rank_index, event);
  if (v == WEFT_NONE)
    return weft_solver_end (self, rank_index, event) - weft_solver_start (self, rank_index, event);
  if (_weft_solver_is_member (self, v))
    return self->nodes[self->nodes[v].inst].dur;
  return self->nodes[v].dur;
}

gint64
weft_solver_min_start (WeftSolver *self, guint rank_index, guint32 event)
{
  guint32 v = _weft_solver_node (self, rank_index, event);
  if (v == WEFT_NONE || self->nodes[v].min_start == G_MININT64)
    return -1;
  return self->nodes[v].min_start;
}

WeftDepKind
weft_solver_binding (WeftSolver *self, guint rank_index, guint32 event, guint *pred_rank_index, guint32 *pred_event)
{
  guint32 v = _weft_solver_node (self, rank_index, event);
  Node *n, *p;
  _weft_solver_sync (self);
  if (v == WEFT_NONE)
    return WEFT_DEP_NONE;
  n = &self->nodes[v];
  if (n->bind_pred == WEFT_NONE)
    {
      if (pred_rank_index)
        *pred_rank_index = G_MAXUINT;
      if (pred_event)
        *pred_event = WEFT_NONE;
      return n->bind_kind;
    }
  p = &self->nodes[n->bind_pred];
  if (pred_rank_index)
    *pred_rank_index = p->rank;
  if (pred_event)
    *pred_event = p->kind == NODE_INST ? WEFT_NONE : p->event;
  return n->bind_kind;
}

WeftTimeSpan
weft_solver_span (WeftSolver *self)
{
  WeftTimeSpan span = { G_MAXINT64, G_MININT64 };
  WeftTimeSpan none = { 0, 0 };

  g_return_val_if_fail (self != NULL, none);
  _weft_solver_sync (self);
  for (guint32 v = 0; v < self->n_nodes; v++)
    {
      Node *n = &self->nodes[v];
      if (n->kind != NODE_OP || (n->flags & NODE_DELETED))
        continue;
      span.begin = MIN (span.begin, n->start);
      span.end = MAX (span.end, n->end);
    }
  if (span.begin > span.end)
    span.begin = span.end = 0;
  return span;
}

guint
weft_solver_preds (WeftSolver *self, guint rank_index, guint32 event, WeftSolverDep *out, guint max)
{
  g_return_val_if_fail (self != NULL, 0);
  g_return_val_if_fail (out != NULL, 0);

  guint32 v = _weft_solver_node (self, rank_index, event);
  guint k = 0;
  Node *n;
  guint32 p;
  _weft_solver_sync (self);
  if (v == WEFT_NONE)
    return 0;
  n = &self->nodes[v];
  p = _weft_solver_stream_prev (self, v);
  if (p != WEFT_NONE)
    {
      if (k < max)
        out[k] = (WeftSolverDep) { WEFT_DEP_STREAM, self->nodes[p].rank, self->nodes[p].event, n->w_stream };
      k++;
    }
  if (n->release_kind == WEFT_DEP_LAUNCH && n->launch != WEFT_NONE && n->release != G_MININT64)
    {
      if (k < max)
        out[k] = (WeftSolverDep) { WEFT_DEP_LAUNCH, n->rank, n->launch, n->release - n->launch_time };
      k++;
    }
  for (guint i = 0; i < n->n_in; i++)
    {
      Node *s = &self->nodes[n->in[i].src];
      if (s->flags & NODE_DELETED)
        continue;
      if (k < max)
        {
          out[k].kind = n->in[i].kind;
          out[k].rank_index = s->rank;
          out[k].event = s->event;
          out[k].gap = n->in[i].w;
          if (n->in[i].kind == WEFT_DEP_LAUNCH && n->launch != WEFT_NONE)
            out[k].event = n->launch; /* launched after that sync: name the launch */
        }
      k++;
    }
  if (_weft_solver_is_member (self, v))
    {
      Node *in = &self->nodes[n->inst];
      for (guint i = 0; i < in->n_members; i++)
        {
          Node *m = &self->nodes[in->members[i]];
          if (in->members[i] == v || (m->flags & NODE_DELETED))
            continue;
          if (k < max)
            out[k] = (WeftSolverDep) { WEFT_DEP_RENDEZVOUS, m->rank, m->event, in->dur };
          k++;
        }
    }
  return k;
}

guint
weft_solver_lane_n_ops (WeftSolver *self, guint rank_index, guint32 lane)
{
  GArray *o = rank_index < self->n_ranks ? _weft_solver_lane_order (self, rank_index, lane) : NULL;
  return o ? o->len : 0;
}

guint32
weft_solver_lane_op (WeftSolver *self, guint rank_index, guint32 lane, guint position)
{
  GArray *o = rank_index < self->n_ranks ? _weft_solver_lane_order (self, rank_index, lane) : NULL;
  if (o == NULL || position >= o->len)
    return WEFT_NONE;
  return self->nodes[g_array_index (o, guint32, position)].event;
}

guint32
weft_solver_op_lane (WeftSolver *self, guint rank_index, guint32 event)
{
  guint32 v = _weft_solver_node (self, rank_index, event);
  return v == WEFT_NONE ? WEFT_NONE : self->nodes[v].lane;
}

guint
weft_solver_op_position (WeftSolver *self, guint rank_index, guint32 event)
{
  guint32 v = _weft_solver_node (self, rank_index, event);
  return v == WEFT_NONE ? G_MAXUINT : self->nodes[v].lane_pos;
}
