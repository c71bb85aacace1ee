/* solver-order.c: the topological order of the live nodes (an instance
 * stands for its members): Kahn over the whole graph, the local changes of
 * an insert or a removal, and the incremental order of Pearce & Kelly that
 * an added dependency repairs (docs/solver.md, "Solving"). Reads the graph,
 * writes only the order (order, pos, cap_order) and its DFS marks. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "solver-private.h"

/* ---- topological order ------------------------------------------------------ */

static inline gboolean
is_member (WeftSolver *self, guint32 u)
{
  return _weft_solver_is_member (self, u);
}

void
_weft_solver_foreach_end_succ (WeftSolver *self, guint32 x, SuccFunc fn, gpointer data)
{
  /* Nodes that depend on x's END (stream next and out edges). */
  Node *n = &self->nodes[x];
  guint32 nx = _weft_solver_stream_next (self, x);
  if (nx != WEFT_NONE)
    fn (self, nx, data);
  for (guint i = 0; i < n->n_out; i++)
    if (_weft_solver_live (self, n->out[i]))
      fn (self, n->out[i], data);
}

static void
foreach_topo_succ (WeftSolver *self, guint32 x, SuccFunc fn, gpointer data)
{
  Node *n = &self->nodes[x];
  if (n->kind == NODE_INST)
    {
      for (guint i = 0; i < n->n_members; i++)
        if (_weft_solver_live (self, n->members[i]))
          _weft_solver_foreach_end_succ (self, n->members[i], fn, data);
    }
  else if (is_member (self, x))
    fn (self, n->inst, data);
  else
    _weft_solver_foreach_end_succ (self, x, fn, data);
}

static guint
topo_indegree (WeftSolver *self, guint32 v)
{
  Node *n = &self->nodes[v];
  guint d = 0;
  if (n->kind == NODE_INST)
    {
      for (guint i = 0; i < n->n_members; i++)
        if (_weft_solver_live (self, n->members[i]))
          d++;
      return d;
    }
  if (n->kind == NODE_OP && _weft_solver_stream_prev (self, v) != WEFT_NONE)
    d++;
  for (guint i = 0; i < n->n_in; i++)
    if (_weft_solver_live (self, n->in[i].src))
      d++;
  return d;
}

typedef struct
{
  guint32 *indeg;
  guint32 *queue;
  guint    tail;
} KahnData;

static void
kahn_visit (WeftSolver *self, guint32 s, gpointer data)
{
  KahnData *k = data;
  if (--k->indeg[s] == 0)
    k->queue[k->tail++] = s;
}

/* Topological predecessors of v. */
void
_weft_solver_foreach_topo_pred (WeftSolver *self, guint32 v, SuccFunc fn, gpointer data)
{
  Node *n = &self->nodes[v];
  if (n->kind == NODE_INST)
    {
      for (guint i = 0; i < n->n_members; i++)
        if (_weft_solver_live (self, n->members[i]))
          fn (self, n->members[i], data);
      return;
    }
  if (n->kind == NODE_OP)
    {
      guint32 p = _weft_solver_stream_prev (self, v);
      if (p != WEFT_NONE)
        fn (self, _weft_solver_remap (self, p), data);
    }
  for (guint i = 0; i < n->n_in; i++)
    if (_weft_solver_live (self, n->in[i].src))
      fn (self, _weft_solver_remap (self, n->in[i].src), data);
}

typedef struct
{
  const guint32 *indeg;
  guint32        found;
} PendingPred;

static void
pending_pred_cb (WeftSolver *self, guint32 p, gpointer data)
{
  PendingPred *pp = data;
  if (pp->found == WEFT_NONE && pp->indeg[p] != G_MAXUINT32 && pp->indeg[p] > 0)
    pp->found = p;
}

static void
describe_node (WeftSolver *self, guint32 v, GString *s)
{
  Node *n = &self->nodes[v];
  WeftRank *rank = weft_trace_rank (self->trace, n->rank);
  if (n->kind == NODE_INST)
    {
      const WeftCollInstance *inst = &g_array_index (self->trace->instances, WeftCollInstance, n->event);
      g_string_append_printf (s, "collective %s #%u (seq %" G_GINT64_FORMAT ")", weft_coll_type_to_string (inst->type),
                              n->event, inst->seq);
      return;
    }
  {
    const WeftEvent *ev = weft_rank_event (rank, n->event);
    const char *name = weft_rank_string (rank, ev->name);
    const char *paren = strchr (name, '(');
    char *shortname = g_strndup (name, MIN (paren && paren > name ? (gsize) (paren - name) : strlen (name), 80));
    if (n->kind == NODE_OP)
      {
        WeftLane *lane = weft_rank_lane (rank, n->lane);
        g_string_append_printf (s, "rank %d '%s' (event %u, stream %" G_GINT64_FORMAT ")", rank->rank, shortname, n->event,
                                lane->tid);
      }
    else
      g_string_append_printf (s, "rank %d CPU sync '%s' (event %u)", rank->rank, shortname, n->event);
    g_free (shortname);
  }
}

/* Kahn over the live nodes. On success replaces self->order/pos and returns
 * TRUE. On a cycle returns FALSE and fills cycle (nodes in dependency
 * order) when not NULL. */
gboolean
_weft_solver_compute_topo (WeftSolver *self, GArray *cycle)
{
  guint n = self->n_nodes;
  KahnData k;
  guint head = 0, n_live = 0;
  guint32 *pos;

  k.indeg = g_new (guint32, n);
  k.queue = g_new (guint32, n);
  k.tail = 0;
  for (guint32 v = 0; v < n; v++)
    {
      if (!_weft_solver_live (self, v))
        {
          k.indeg[v] = G_MAXUINT32;
          continue;
        }
      n_live++;
      k.indeg[v] = topo_indegree (self, v);
      if (k.indeg[v] == 0)
        k.queue[k.tail++] = v;
    }
  while (head < k.tail)
    foreach_topo_succ (self, k.queue[head++], kahn_visit, &k);

  if (k.tail < n_live)
    {
      if (cycle != NULL)
        {
          /* Walk back through unprocessed predecessors until a node repeats. */
          guint32 *seen = g_new (guint32, n);
          GArray *walk = g_array_new (FALSE, FALSE, sizeof (guint32));
          guint32 x = WEFT_NONE;
          for (guint32 v = 0; v < n; v++)
            {
              seen[v] = G_MAXUINT32;
              if (x == WEFT_NONE && k.indeg[v] != G_MAXUINT32 && k.indeg[v] > 0)
                x = v;
            }
          while (x != WEFT_NONE && seen[x] == G_MAXUINT32)
            {
              PendingPred pp = { k.indeg, WEFT_NONE };
              seen[x] = walk->len;
              g_array_append_val (walk, x);
              _weft_solver_foreach_topo_pred (self, x, pending_pred_cb, &pp);
              x = pp.found;
            }
          g_array_set_size (cycle, 0);
          if (x != WEFT_NONE)
            for (guint i = walk->len; i > seen[x]; i--)
              g_array_append_val (cycle, g_array_index (walk, guint32, i - 1));
          g_array_free (walk, TRUE);
          g_free (seen);
        }
      g_free (k.indeg);
      g_free (k.queue);
      return FALSE;
    }

  pos = g_new (guint32, MAX (n, 1));
  for (guint32 v = 0; v < n; v++)
    pos[v] = G_MAXUINT32;
  for (guint i = 0; i < k.tail; i++)
    pos[k.queue[i]] = i;
  _weft_solver_plan_invalidate (self);
  g_free (self->order);
  g_free (self->pos);
  self->order = k.queue;
  self->n_order = k.tail;
  self->pos = pos;
  self->cap_order = MAX (n, 1);
  g_free (k.indeg);
  return TRUE;
}

/* ---- local changes of the order (insert, remove) ------------------------------ */

static void
order_reserve (WeftSolver *self)
{
  if (self->cap_order < self->n_nodes + 1)
    {
      guint old = self->cap_order;
      self->cap_order = MAX (self->n_nodes + 1, self->cap_order * 2);
      self->order = g_renew (guint32, self->order, self->cap_order);
      self->pos = g_renew (guint32, self->pos, self->cap_order);
      for (guint i = old; i < self->cap_order; i++)
        self->pos[i] = G_MAXUINT32;
    }
}

static void
order_insert_at (WeftSolver *self, guint32 v, guint q)
{
  order_reserve (self);
  _weft_solver_plan_invalidate (self);
  if (q > self->n_order)
    q = self->n_order;
  memmove (&self->order[q + 1], &self->order[q], (self->n_order - q) * sizeof (guint32));
  self->order[q] = v;
  self->n_order++;
  for (guint i = q; i < self->n_order; i++)
    self->pos[self->order[i]] = i;
}

void
_weft_solver_order_remove (WeftSolver *self, guint32 v)
{
  guint q = self->pos[v];
  if (q >= self->n_order || self->order[q] != v)
    return;
  _weft_solver_plan_invalidate (self);
  memmove (&self->order[q], &self->order[q + 1], (self->n_order - q - 1) * sizeof (guint32));
  self->n_order--;
  for (guint i = q; i < self->n_order; i++)
    self->pos[self->order[i]] = i;
  self->pos[v] = G_MAXUINT32;
}

static void
max_pred_pos_cb (WeftSolver *self, guint32 p, gpointer data)
{
  guint *q = data;
  if (self->pos[p] != G_MAXUINT32 && self->pos[p] + 1 > *q)
    *q = self->pos[p] + 1;
}

/* Puts a node that is not in the order right after its last predecessor. */
static void
order_place (WeftSolver *self, guint32 v)
{
  guint q = 0;
  order_reserve (self);
  _weft_solver_foreach_topo_pred (self, v, max_pred_pos_cb, &q);
  order_insert_at (self, v, q);
}

static void
collect_succ_cb (WeftSolver *self, guint32 s, gpointer data)
{
  g_array_append_val ((GArray *) data, s);
}

/* ---- incremental topological order (Pearce & Kelly) ------------------------------ */

/* A dependency between topological nodes: a before b. */
typedef struct
{
  guint32 a, b;
} TopoEdge;

typedef struct
{
  GArray       *stack;
  GArray       *visited;
  const GArray *pending;   /* edges not processed yet: not traversed */
  guint32       bound;
  guint32       stamp;
  guint32       target;
  guint32       from;
  gboolean      hit;
} PkWalk;

static gboolean
pending_has (const GArray *pending, guint32 a, guint32 b)
{
  for (guint i = 0; i < pending->len; i++)
    {
      const TopoEdge *e = &g_array_index (pending, TopoEdge, i);
      if (e->a == a && e->b == b)
        return TRUE;
    }
  return FALSE;
}

static void
pk_fwd_cb (WeftSolver *self, guint32 s, gpointer data)
{
  PkWalk *w = data;
  if (w->hit || pending_has (w->pending, w->from, s))
    return;
  if (s == w->target)
    {
      w->hit = TRUE;
      return;
    }
  if (self->mark[s] == w->stamp || self->pos[s] >= w->bound)
    return;
  self->mark[s] = w->stamp;
  self->parent[s] = w->from;
  g_array_append_val (w->stack, s);
}

static void
pk_bwd_cb (WeftSolver *self, guint32 p, gpointer data)
{
  PkWalk *w = data;
  if (pending_has (w->pending, p, w->from))
    return;
  if (self->mark[p] == w->stamp || self->pos[p] <= w->bound)
    return;
  self->mark[p] = w->stamp;
  g_array_append_val (w->stack, p);
}

static gint
pos_plain_cmp (gconstpointer a, gconstpointer b)
{
  guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;
  return (x > y) - (x < y);
}

static gint
pos_cmp (gconstpointer a, gconstpointer b, gpointer data)
{
  const guint32 *pos = data;
  guint32 x = pos[*(const guint32 *) a], y = pos[*(const guint32 *) b];
  return (x > y) - (x < y);
}

static void
pk_ensure (WeftSolver *self)
{
  if (self->n_mark < self->n_nodes)
    {
      guint old = self->n_mark;
      self->n_mark = MAX (self->n_nodes, 64);
      self->mark = g_renew (guint32, self->mark, self->n_mark);
      self->parent = g_renew (guint32, self->parent, self->n_mark);
      for (guint i = old; i < self->n_mark; i++)
        self->mark[i] = 0;
    }
}

static guint32
pk_stamp (WeftSolver *self)
{
  if (++self->stamp == 0)
    {
      memset (self->mark, 0, self->n_mark * sizeof (guint32));
      self->stamp = 1;
    }
  return self->stamp;
}

/* Makes the order respect a -> b (both live and positioned), reordering only
 * the nodes between them. FALSE with the cycle (dependency order) when b
 * already reaches a. journal gets (node, old position) pairs. */
static gboolean
pk_insert (WeftSolver *self, guint32 a, guint32 b, const GArray *pending, GArray *journal, GArray *cycle)
{
  guint32 lb, ub;
  PkWalk w;
  GArray *F, *B, *pool;

  if (a == b)
    {
      g_array_set_size (cycle, 0);
      g_array_append_val (cycle, a);
      return FALSE;
    }
  lb = self->pos[b];
  ub = self->pos[a];
  if (ub < lb)
    return TRUE;
  pk_ensure (self);
  F = g_array_new (FALSE, FALSE, sizeof (guint32));
  B = g_array_new (FALSE, FALSE, sizeof (guint32));
  memset (&w, 0, sizeof w);
  w.stack = g_array_new (FALSE, FALSE, sizeof (guint32));
  w.pending = pending;

  /* forward from b among positions < pos[a]: reaching a is a cycle */
  w.stamp = pk_stamp (self);
  w.bound = ub;
  w.target = a;
  self->mark[b] = w.stamp;
  self->parent[b] = WEFT_NONE;
  g_array_append_val (w.stack, b);
  while (w.stack->len > 0 && !w.hit)
    {
      guint32 x = g_array_index (w.stack, guint32, w.stack->len - 1);
      g_array_set_size (w.stack, w.stack->len - 1);
      g_array_append_val (F, x);
      w.from = x;
      foreach_topo_succ (self, x, pk_fwd_cb, &w);
    }
  if (w.hit)
    {
      guint32 y = w.from;
      GArray *path = g_array_new (FALSE, FALSE, sizeof (guint32));
      while (y != WEFT_NONE)
        {
          g_array_append_val (path, y);
          y = self->parent[y];
        }
      g_array_set_size (cycle, 0);
      g_array_append_val (cycle, a);
      for (guint i = path->len; i > 0; i--)
        g_array_append_val (cycle, g_array_index (path, guint32, i - 1));
      g_array_free (path, TRUE);
      g_array_free (F, TRUE);
      g_array_free (B, TRUE);
      g_array_free (w.stack, TRUE);
      return FALSE;
    }

  /* backward from a among positions > pos[b] */
  w.stamp = pk_stamp (self);
  w.bound = lb;
  self->mark[a] = w.stamp;
  g_array_set_size (w.stack, 0);
  g_array_append_val (w.stack, a);
  while (w.stack->len > 0)
    {
      guint32 x = g_array_index (w.stack, guint32, w.stack->len - 1);
      g_array_set_size (w.stack, w.stack->len - 1);
      g_array_append_val (B, x);
      w.from = x;
      _weft_solver_foreach_topo_pred (self, x, pk_bwd_cb, &w);
    }

  /* B (what leads to a) then F (what follows b) take their pooled positions */
  g_array_sort_with_data (F, pos_cmp, self->pos);
  g_array_sort_with_data (B, pos_cmp, self->pos);
  pool = g_array_sized_new (FALSE, FALSE, sizeof (guint32), F->len + B->len);
  for (guint i = 0; i < B->len; i++)
    g_array_append_val (pool, self->pos[g_array_index (B, guint32, i)]);
  for (guint i = 0; i < F->len; i++)
    g_array_append_val (pool, self->pos[g_array_index (F, guint32, i)]);
  g_array_sort (pool, pos_plain_cmp);
  for (guint i = 0; i < B->len + F->len; i++)
    {
      guint32 v = i < B->len ? g_array_index (B, guint32, i) : g_array_index (F, guint32, i - B->len);
      guint32 np = g_array_index (pool, guint32, i);
      if (self->pos[v] != np)
        {
          TopoEdge j = { v, self->pos[v] };
          _weft_solver_plan_invalidate (self);
          g_array_append_val (journal, j);
          self->pos[v] = np;
          self->order[np] = v;
        }
    }
  g_array_free (pool, TRUE);
  g_array_free (F, TRUE);
  g_array_free (B, TRUE);
  g_array_free (w.stack, TRUE);
  return TRUE;
}

static void
pk_rollback (WeftSolver *self, GArray *journal)
{
  for (guint i = journal->len; i > 0; i--)
    {
      const TopoEdge *j = &g_array_index (journal, TopoEdge, i - 1);
      _weft_solver_plan_invalidate (self);
      self->pos[j->a] = j->b;
      self->order[j->b] = j->a;
    }
  g_array_set_size (journal, 0);
}

typedef struct
{
  guint32 t;
  GArray *pending;
} CollectData;

static void
collect_violation_cb (WeftSolver *self, guint32 p, gpointer data)
{
  CollectData *cd = data;
  TopoEdge e = { p, cd->t };
  if (self->pos[p] >= self->pos[cd->t] && !pending_has (cd->pending, p, cd->t))
    g_array_append_val (cd->pending, e);
}

/* After structural changes that only touched the incoming dependencies of
 * the nodes in touched (and kept every node live and positioned): repairs
 * the order. FALSE with the cycle; the order is then as before. */
gboolean
_weft_solver_pk_repair (WeftSolver *self, const guint32 *touched, guint n_touched, GArray *cycle)
{
  GArray *pending = g_array_new (FALSE, FALSE, sizeof (TopoEdge));
  GArray *journal = g_array_new (FALSE, FALSE, sizeof (TopoEdge));
  gboolean ok = TRUE;
  for (guint i = 0; i < n_touched; i++)
    {
      CollectData cd = { touched[i], pending };
      if (touched[i] != WEFT_NONE && _weft_solver_live (self, touched[i]))
        _weft_solver_foreach_topo_pred (self, touched[i], collect_violation_cb, &cd);
    }
  while (pending->len > 0 && ok)
    {
      TopoEdge e = g_array_index (pending, TopoEdge, pending->len - 1);
      g_array_set_size (pending, pending->len - 1);
      if (self->pos[e.a] < self->pos[e.b])
        continue;
      ok = pk_insert (self, e.a, e.b, pending, journal, cycle);
    }
  if (!ok)
    pk_rollback (self, journal);
  g_array_free (pending, TRUE);
  g_array_free (journal, TRUE);
  return ok;
}

void
_weft_solver_set_cycle_error (WeftSolver *self, GArray *cycle, GError **error)
{
  GString *s = g_string_new ("dependency cycle (a deadlock): ");
  for (guint i = 0; i < cycle->len && i < 12; i++)
    {
      if (i > 0)
        g_string_append (s, " waits for ");
      describe_node (self, g_array_index (cycle, guint32, cycle->len - 1 - i), s);
    }
  if (cycle->len > 12)
    g_string_append_printf (s, " ... (%u in all)", cycle->len);
  if (cycle->len > 0)
    {
      g_string_append (s, " waits for ");
      describe_node (self, g_array_index (cycle, guint32, cycle->len - 1), s);
    }
  g_set_error_literal (error, WEFT_ERROR, WEFT_ERROR_CYCLE, s->str);
  g_string_free (s, TRUE);
}

/* Adds nodes that are live but not in the order (new or restored; a
 * member before its instance), then repairs what follows them. FALSE with
 * the cycle in error: the nodes are out of the order again. */
gboolean
_weft_solver_order_add_nodes (WeftSolver *self, const guint32 *nodes, guint n, GError **error)
{
  g_autoptr (GArray) succ = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr (GArray) cycle = g_array_new (FALSE, FALSE, sizeof (guint32));
  gboolean ok;
  for (guint i = 0; i < n; i++)
    order_place (self, nodes[i]);
  for (guint i = 0; i < n; i++)
    {
      g_array_append_val (succ, nodes[i]);
      foreach_topo_succ (self, nodes[i], collect_succ_cb, succ);
    }
  ok = _weft_solver_pk_repair (self, (const guint32 *) (void *) succ->data, succ->len, cycle);
  if (!ok)
    {
      _weft_solver_set_cycle_error (self, cycle, error);
      for (guint i = n; i > 0; i--)
        _weft_solver_order_remove (self, nodes[i - 1]);
    }
  else
    self->generation++;
  return ok;
}
