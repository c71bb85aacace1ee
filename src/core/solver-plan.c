/* solver-plan.c: the solve plan, the dependency graph flattened in
 * topological order for the re-solve of a large front.
 *
 * Dragging an early collective moves every later op of every rank: the
 * re-solve then evaluates most of the ~200k nodes. Evaluated node by node
 * from the graph (solver.c eval_node), each evaluation chases pointers
 * into a 168-byte node, its lane's order, its edge arrays and the nodes it
 * reads: with the caches a frame's repaint leaves cold that came to ~60 ns
 * a node (12.5 ms a motion). The plan lays the same equations out as
 * arrays indexed by topological position (a CSR of in edges whose sources
 * are positions), so the re-solve is one pass over contiguous memory that
 * reads each source's end from an array of 8-byte values. It writes the
 * times into the plan's copy only: writing them into the nodes (one cache
 * line each, scattered over ~35 MB) cost more than the sweep itself, so
 * that waits until something reads the nodes (_weft_solver_sync); while
 * dragging, the painter reads single times from the copy.
 *
 * The plan is exact: the same candidates in the same order as eval_ready
 * and eval_node (release, min_start, stream predecessor, in edges; ties
 * keep the first), so the times and bindings equal the node-by-node
 * solve's. WEFT_SOLVER_VERIFY=1 (set by the test suite) re-solves the
 * whole graph node by node after every large re-solve and aborts on any
 * difference. See docs/solver.md "The plan". */
#include "solver-private.h"

#include <string.h>

void
_weft_solver_plan_free (WeftSolver *self)
{
  Plan *p = &self->plan;
  _weft_solver_sync (self);
  g_free (p->node);
  g_free (p->kind);
  g_free (p->base_kind);
  g_free (p->base);
  g_free (p->dur);
  g_free (p->in_off);
  g_free (p->start);
  g_free (p->end);
  g_free (p->bind_pred);
  g_free (p->bind_kind);
  g_free (p->e_src);
  g_free (p->e_w);
  g_free (p->e_node);
  g_free (p->e_kind);
  g_free (p->last_reader);
  memset (p, 0, sizeof *p);
  p->stale_lo = G_MAXUINT;
}

void
_weft_solver_sync_nodes (WeftSolver *self)
{
  Plan *p = &self->plan;
  for (guint q = p->stale_lo; q < p->n; q++)
    {
      Node *nd = &self->nodes[p->node[q]];
      nd->start = p->start[q];
      nd->end = p->end[q];
      nd->bind_pred = p->bind_pred[q];
      nd->bind_kind = p->bind_kind[q];
    }
  p->stale_lo = G_MAXUINT;
  self->stats.n_plan_syncs++;
}

/* The constant part of a node's ready time, as eval_ready starts it: the
 * release, then a later min_start; with neither and no edge to read, the
 * observed start. */
static void
plan_base (const Node *n, guint n_edges, gint64 *base, guint8 *kind)
{
  *base = G_MININT64;
  *kind = WEFT_DEP_NONE;
  if (n->kind == NODE_INST)
    return;   /* an instance reads its members only */
  _weft_solver_node_release (n, base, kind);
  if (*base == G_MININT64 && n_edges == 0)
    *base = n->obs_start;
}

static void
plan_add_edge (Plan *p, guint *cap, guint32 src_pos, gint64 w, guint32 src_node, guint8 kind)
{
  if (p->n_edges == *cap)
    {
      *cap = MAX (1024, *cap * 2);
      p->e_src = g_renew (guint32, p->e_src, *cap);
      p->e_w = g_renew (gint64, p->e_w, *cap);
      p->e_node = g_renew (guint32, p->e_node, *cap);
      p->e_kind = g_renew (guint8, p->e_kind, *cap);
    }
  p->e_src[p->n_edges] = src_pos;
  p->e_w[p->n_edges] = w;
  p->e_node[p->n_edges] = src_node;
  p->e_kind[p->n_edges] = kind;
  p->n_edges++;
}

void
_weft_solver_plan_build (WeftSolver *self)
{
  Plan *p = &self->plan;
  guint n = self->n_order;
  guint cap = 0;

  _weft_solver_plan_free (self);   /* syncs */
  p->n = n;
  p->node = g_new (guint32, MAX (1, n));
  p->kind = g_new (guint8, MAX (1, n));
  p->base_kind = g_new (guint8, MAX (1, n));
  p->base = g_new (gint64, MAX (1, n));
  p->dur = g_new (gint64, MAX (1, n));
  p->in_off = g_new (guint32, n + 1);
  p->start = g_new (gint64, MAX (1, n));
  p->end = g_new (gint64, MAX (1, n));
  p->bind_pred = g_new (guint32, MAX (1, n));
  p->bind_kind = g_new (guint8, MAX (1, n));

  for (guint q = 0; q < n; q++)
    {
      guint32 v = self->order[q];
      const Node *nd = &self->nodes[v];
      guint first = p->n_edges;

      p->node[q] = v;
      p->in_off[q] = first;
      p->dur[q] = nd->dur;
      if (nd->kind == NODE_INST)
        {
          p->kind[q] = PLAN_INST;
          for (guint i = 0; i < nd->n_members; i++)
            {
              guint32 m = nd->members[i];
              if (!(self->nodes[m].flags & NODE_DELETED))
                plan_add_edge (p, &cap, self->pos[m], self->nodes[m].end_off, m, WEFT_DEP_RENDEZVOUS);
            }
        }
      else
        {
          if (nd->kind == NODE_SYNC)
            p->kind[q] = PLAN_SYNC;
          else if (_weft_solver_is_member (self, v))
            p->kind[q] = PLAN_MEMBER;
          else
            p->kind[q] = PLAN_OP;
          if (nd->kind == NODE_OP && nd->lane_pos > 0)
            {
              const GArray *order = g_ptr_array_index (self->ranks[nd->rank].lanes, nd->lane);
              guint32 prev = g_array_index (order, guint32, nd->lane_pos - 1);
              plan_add_edge (p, &cap, self->pos[prev], nd->w_stream, prev, WEFT_DEP_STREAM);
            }
          for (guint i = 0; i < nd->n_in; i++)
            if (_weft_solver_live (self, nd->in[i].src))
              plan_add_edge (p, &cap, self->pos[nd->in[i].src], nd->in[i].w, nd->in[i].src, nd->in[i].kind);
        }
      plan_base (nd, p->n_edges - first, &p->base[q], &p->base_kind[q]);
      p->start[q] = nd->start;
      p->end[q] = nd->end;
      p->bind_pred[q] = nd->bind_pred;
      p->bind_kind[q] = nd->bind_kind;
    }
  p->in_off[n] = p->n_edges;
  p->last_reader = g_new0 (guint32, MAX (1, n));
  for (guint q = 0; q < n; q++)
    for (guint32 e = p->in_off[q]; e < p->in_off[q + 1]; e++)
      p->last_reader[p->e_src[e]] = q; /* q grows: the last one stays */
  p->ok = TRUE;
  self->stats.n_plan_builds++;
}

void
_weft_solver_plan_refresh (WeftSolver *self, guint32 v)
{
  Plan *p = &self->plan;
  guint q;
  if (!p->ok || v >= self->n_nodes)
    return;
  q = self->pos[v];
  if (q >= p->n)
    return;
  p->dur[q] = self->nodes[v].dur;
  plan_base (&self->nodes[v], p->in_off[q + 1] - p->in_off[q], &p->base[q], &p->base_kind[q]);
}

/* Evaluates the positions from q0 on, in order, from the plan, into the
 * plan's copy of the times (the nodes are brought up to date later, by
 * _weft_solver_sync). Every position before q0 must be solved, and every
 * position is consistent with its inputs but the pending ones, the last of
 * which is q1. The pass stops past the last position that reads a time
 * that changed (last_reader) or is pending: what follows reads only
 * unchanged times, so it would evaluate to what it holds. Returns TRUE
 * when a time changed. */
gboolean
_weft_solver_plan_sweep (WeftSolver *self, guint q0, guint q1)
{
  Plan *p = &self->plan;
  const guint32 *in_off = p->in_off, *e_src = p->e_src;
  const gint64 *e_w = p->e_w;
  gint64 *pstart = p->start, *pend = p->end;
  gboolean changed = FALSE;
  guint lo = G_MAXUINT;   /* first position written */
  guint hi = 0;           /* last position written */
  const guint32 *last_reader = p->last_reader;
  guint reach = q1;       /* the last position whose inputs may have changed */

  g_return_val_if_fail (p->ok && p->n == self->n_order, FALSE);

  for (guint q = q0; q < p->n && q <= reach; q++)
    {
      guint32 e0 = in_off[q], e1 = in_off[q + 1];
      guint8 kind = p->kind[q];
      gint64 best, start, end;
      guint32 win = G_MAXUINT32;
      guint8 bk;
      guint32 bp;

      if (kind == PLAN_INST)
        {
          if (e0 == e1)
            continue;   /* no live member: eval_node leaves it */
          best = G_MININT64;
          for (guint32 e = e0; e < e1; e++)
            {
              gint64 t = pstart[e_src[e]];
              if (win == G_MAXUINT32 || t > best)
                {
                  best = t;
                  win = e;
                }
            }
          start = best;
          end = best + p->dur[q];
          bk = WEFT_DEP_RENDEZVOUS;
          bp = p->e_node[win];
          for (guint32 e = e0; e < e1; e++)
            {
              guint32 mq = e_src[e];
              gint64 me = MAX (pstart[mq], end + e_w[e]);
              if (pend[mq] != me)
                {
                  pend[mq] = me;
                  lo = MIN (lo, mq);
                  hi = MAX (hi, mq);
                  reach = MAX (reach, last_reader[mq]);
                  changed = TRUE;
                }
            }
        }
      else
        {
          best = p->base[q];
          for (guint32 e = e0; e < e1; e++)
            {
              gint64 t = pend[e_src[e]] + e_w[e];
              if (t > best || best == G_MININT64)
                {
                  best = t;
                  win = e;
                }
            }
          if (win == G_MAXUINT32)
            {
              bk = p->base_kind[q];
              bp = WEFT_NONE;
            }
          else
            {
              bk = p->e_kind[win];
              bp = p->e_node[win];
            }
          start = best;
          end = kind == PLAN_OP ? best + p->dur[q] : kind == PLAN_SYNC ? best : pend[q];
        }

      if (start != pstart[q] || end != pend[q] || bp != p->bind_pred[q] || bk != p->bind_kind[q])
        {
          if (start != pstart[q] || end != pend[q])
            {
              changed = TRUE;
              reach = MAX (reach, last_reader[q]);
            }
          pstart[q] = start;
          pend[q] = end;
          p->bind_pred[q] = bp;
          p->bind_kind[q] = bk;
          lo = MIN (lo, q);
          hi = q;
        }
    }
  p->stale_lo = MIN (p->stale_lo, lo);
  if (lo != G_MAXUINT)
    _weft_solver_lane_times_note_sweep (self, lo, hi);
  self->stats.n_plan_sweeps++;
  return changed;
}
