/* solver.c: the dependency graph over every rank's GPU ops, the solver and
 * the edits. The model, its edge kinds, the calibration that makes an
 * unmodified trace replay exactly and the classes of traces that break the
 * model are described in docs/solver.md. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "solver-private.h"

#define TOL_NS 1000 /* 1 us: slack for inferred edges against observed times */
#define UNEXPLAINED_NS 50000 /* 50 us: an op starting this much later than any constraint explains */

const char *
weft_dep_kind_to_string (WeftDepKind kind)
{
  static const char *names[] = { "none", "stream", "launch", "cross-stream", "rendezvous", "sync", "user", "explicit", "inferred" };
  return kind < G_N_ELEMENTS (names) ? names[kind] : "none";
}

/* ---- nodes ----------------------------------------------------------------- */

static guint32
add_node (WeftSolver *self, NodeKind kind, guint rank, guint32 event)
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

static void
node_add_in (WeftSolver *self, guint32 v, guint32 src, WeftDepKind kind, gint64 w)
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

static void
node_remove_in (WeftSolver *self, guint32 v, guint idx)
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

static GArray *
lane_order (WeftSolver *self, guint rank, guint32 lane)
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
  order = lane_order (self, n->rank, n->lane);
  return g_array_index (order, guint32, n->lane_pos - 1);
}

guint32
_weft_solver_stream_next (WeftSolver *self, guint32 v)
{
  Node *n = &self->nodes[v];
  GArray *order;
  if (n->kind != NODE_OP || (n->flags & NODE_DELETED))
    return WEFT_NONE;
  order = lane_order (self, n->rank, n->lane);
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

static void
set_ev_node (WeftSolver *self, guint rank, guint32 event, guint32 node)
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

static void
renumber_lane (WeftSolver *self, GArray *order, guint from)
{
  _weft_solver_plan_invalidate (self);
  for (guint i = from; i < order->len; i++)
    self->nodes[g_array_index (order, guint32, i)].lane_pos = i;
}

/* ---- topological order ------------------------------------------------------ */

static inline guint32
remap (WeftSolver *self, guint32 u)
{
  Node *n = &self->nodes[u];
  return (n->kind == NODE_OP && n->inst != WEFT_NONE && live (self, n->inst)) ? n->inst : u;
}

static inline gboolean
is_member (WeftSolver *self, guint32 u)
{
  return _weft_solver_is_member (self, u);
}

/* Successors in the topological sense (what must come after x). */
typedef void (*SuccFunc) (WeftSolver *self, guint32 succ, gpointer data);

static void
foreach_end_succ (WeftSolver *self, guint32 x, SuccFunc fn, gpointer data)
{
  /* Nodes that depend on x's END (stream next and out edges). */
  Node *n = &self->nodes[x];
  guint32 nx = _weft_solver_stream_next (self, x);
  if (nx != WEFT_NONE)
    fn (self, nx, data);
  for (guint i = 0; i < n->n_out; i++)
    if (live (self, n->out[i]))
      fn (self, n->out[i], data);
}

static void
foreach_topo_succ (WeftSolver *self, guint32 x, SuccFunc fn, gpointer data)
{
  Node *n = &self->nodes[x];
  if (n->kind == NODE_INST)
    {
      for (guint i = 0; i < n->n_members; i++)
        if (live (self, n->members[i]))
          foreach_end_succ (self, n->members[i], fn, data);
    }
  else if (is_member (self, x))
    fn (self, n->inst, data);
  else
    foreach_end_succ (self, x, fn, data);
}

static guint
topo_indegree (WeftSolver *self, guint32 v)
{
  Node *n = &self->nodes[v];
  guint d = 0;
  if (n->kind == NODE_INST)
    {
      for (guint i = 0; i < n->n_members; i++)
        if (live (self, n->members[i]))
          d++;
      return d;
    }
  if (n->kind == NODE_OP && _weft_solver_stream_prev (self, v) != WEFT_NONE)
    d++;
  for (guint i = 0; i < n->n_in; i++)
    if (live (self, n->in[i].src))
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
static void
foreach_topo_pred (WeftSolver *self, guint32 v, SuccFunc fn, gpointer data)
{
  Node *n = &self->nodes[v];
  if (n->kind == NODE_INST)
    {
      for (guint i = 0; i < n->n_members; i++)
        if (live (self, n->members[i]))
          fn (self, n->members[i], data);
      return;
    }
  if (n->kind == NODE_OP)
    {
      guint32 p = _weft_solver_stream_prev (self, v);
      if (p != WEFT_NONE)
        fn (self, remap (self, p), data);
    }
  for (guint i = 0; i < n->n_in; i++)
    if (live (self, n->in[i].src))
      fn (self, remap (self, n->in[i].src), data);
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
static gboolean
compute_topo (WeftSolver *self, GArray *cycle)
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
      if (!live (self, v))
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
              foreach_topo_pred (self, x, pending_pred_cb, &pp);
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

static void
order_remove (WeftSolver *self, guint32 v)
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
  foreach_topo_pred (self, v, max_pred_pos_cb, &q);
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
      foreach_topo_pred (self, x, pk_bwd_cb, &w);
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
static gboolean
pk_repair (WeftSolver *self, const guint32 *touched, guint n_touched, GArray *cycle)
{
  GArray *pending = g_array_new (FALSE, FALSE, sizeof (TopoEdge));
  GArray *journal = g_array_new (FALSE, FALSE, sizeof (TopoEdge));
  gboolean ok = TRUE;
  for (guint i = 0; i < n_touched; i++)
    {
      CollectData cd = { touched[i], pending };
      if (touched[i] != WEFT_NONE && live (self, touched[i]))
        foreach_topo_pred (self, touched[i], collect_violation_cb, &cd);
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

static void
set_cycle_error (WeftSolver *self, GArray *cycle, GError **error)
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
static gboolean
order_add_nodes (WeftSolver *self, const guint32 *nodes, guint n, GError **error)
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
  ok = pk_repair (self, (const guint32 *) (void *) succ->data, succ->len, cycle);
  if (!ok)
    {
      set_cycle_error (self, cycle, error);
      for (guint i = n; i > 0; i--)
        order_remove (self, nodes[i - 1]);
    }
  else
    self->generation++;
  return ok;
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
  return ((const guint32 *) order->data)[n->lane_pos - 1];
}

static inline guint32
op_stream_next (WeftSolver *self, const Node *n)
{
  const GArray *order = g_ptr_array_index (self->ranks[n->rank].lanes, n->lane);
  return n->lane_pos + 1 < order->len ? ((const guint32 *) order->data)[n->lane_pos + 1] : WEFT_NONE;
}

static inline void heap_push (WeftSolver *self, guint32 v);

/* Pushes what depends on the END of live node x (its stream successor and
 * the holders of its out edges): foreach_end_succ with heap_push, inlined. */
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
      if (is_member (self, v))
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
 * still change (structural edits) before the solve. solve_pending orders
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

/* A solve over the plan: every position from the first pending one on
 * (a dense pass: cheaper than following the changes one by one once they
 * reach most of the graph, and at most ~1-2 ms on 200k nodes when they do
 * not). */
static gboolean
plan_solve (WeftSolver *self)
{
  gboolean changed;
  guint q0 = G_MAXUINT;
  for (guint i = 0; i < self->n_heap; i++)
    {
      guint32 v = self->heap[i];
      self->nodes[v].flags &= ~NODE_IN_HEAP;
      if (live (self, v) && self->pos[v] < q0)
        q0 = self->pos[v];
    }
  self->n_heap = 0;
  changed = q0 < self->n_order && _weft_solver_plan_sweep (self, q0);
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

static void
solve_pending (WeftSolver *self)
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
  _weft_solver_sync (self);
  for (guint i = 0; i < self->n_order; i++)
    eval_node (self, self->order[i], FALSE);
  self->n_heap = 0;
  for (guint32 v = 0; v < self->n_nodes; v++)
    self->nodes[v].flags &= ~NODE_IN_HEAP;
  self->generation++;
}

static void
maybe_solve (WeftSolver *self)
{
  if (self->batch > 0)
    {
      self->pending = TRUE;
      return;
    }
  solve_pending (self);
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

/* ---- building the graph ----------------------------------------------------- */

static gint
gint64_cmp (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return (x > y) - (x < y);
}

static gint64
median_or (GArray *values, gint64 fallback)
{
  if (values->len == 0)
    return fallback;
  g_array_sort (values, gint64_cmp);
  return g_array_index (values, gint64, values->len / 2);
}

typedef struct
{
  gint64  t;       /* launch start (common timeline) */
  guint32 node;
} LaunchRec;

static gint
launch_rec_cmp (gconstpointer a, gconstpointer b)
{
  const LaunchRec *x = a, *y = b;
  return (x->t > y->t) - (x->t < y->t);
}

/* Per rank scratch of build_rank, shared by its phases (in their order:
 * each phase fills what the later ones read). */
typedef struct
{
  WeftRank   *rank;
  RankState  *rs;
  guint       r;
  guint32     first_node; /* the rank's first node */
  gboolean    weft_saved; /* saved by Weft: "weft held" ops keep their start */
  gboolean    has_wait_sync, has_cpu_sync; /* cuda_sync events recorded, of each kind */
  GHashTable *launches;   /* CPU lane + 1 -> GArray of LaunchRec sorted */
  GHashTable *runtime_by_corr; /* correlation -> event + 1 (cuda_runtime/driver) */
  GHashTable *stream_lane;/* (device << 32 | stream) -> model lane + 1 */
  GArray     *pmax;       /* per node: running max of launch time along its lane */
  GHashTable *records;    /* External id -> GArray of RecordRec (cudaEventRecord calls) */
  GArray     *typ_cand;   /* (op, stream predecessor or WEFT_NONE): samples of the typical figures */
  GArray     *specs;      /* SyncSpec: the SYNC nodes to make */
} Scratch;

static gint64
op_launch_key (WeftSolver *self, guint32 v)
{
  Node *n = &self->nodes[v];
  return n->launch_time != G_MININT64 ? n->launch_time : n->obs_start;
}

/* Last op of a lane launched at or before t (by launch time), WEFT_NONE. */
static guint32
lane_last_launched_before (WeftSolver *self, Scratch *sc, GArray *order, gint64 t)
{
  guint lo = 0, hi = order->len;
  const gint64 *pmax = (const gint64 *) (void *) sc->pmax->data;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (pmax[g_array_index (order, guint32, mid)] <= t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo == 0 ? WEFT_NONE : g_array_index (order, guint32, lo - 1);
}

/* What a blocking sync called at t and returning at t_end waited for on a
 * lane: the last op launched by t, or a later op with no launch in the
 * trace (queued before the profile began) that ended by t_end. */
static guint32
lane_sync_target (WeftSolver *self, Scratch *sc, GArray *order, gint64 t, gint64 t_end)
{
  guint32 g = lane_last_launched_before (self, sc, order, t);
  for (guint j = g != WEFT_NONE ? self->nodes[g].lane_pos + 1 : 0; j < order->len; j++)
    {
      const Node *n = &self->nodes[g_array_index (order, guint32, j)];
      if (n->launch_time != G_MININT64 || n->obs_end > t_end + TOL_NS)
        break;
      g = g_array_index (order, guint32, j);
    }
  return g;
}

/* First op of a lane launched at or after t. */
static guint32
lane_first_launched_after (WeftSolver *self, Scratch *sc, GArray *order, gint64 t)
{
  guint lo = 0, hi = order->len;
  const gint64 *pmax = (const gint64 *) (void *) sc->pmax->data;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (pmax[g_array_index (order, guint32, mid)] < t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo >= order->len ? WEFT_NONE : g_array_index (order, guint32, lo);
}

static gboolean
has_in_from (WeftSolver *self, guint32 v, guint32 src)
{
  Node *n = &self->nodes[v];
  for (guint i = 0; i < n->n_in; i++)
    if (n->in[i].src == src)
      return TRUE;
  return FALSE;
}

/* An inferred cross-stream edge, kept only when the observed schedule obeys it. */
static gboolean
add_cross (WeftSolver *self, guint32 from, guint32 to)
{
  Node *f, *t;
  if (from == WEFT_NONE || to == WEFT_NONE || from == to)
    return FALSE;
  f = &self->nodes[from];
  t = &self->nodes[to];
  if (f->lane == t->lane)
    return FALSE;
  if (t->obs_start + TOL_NS < f->obs_end)
    {
      self->stats.n_inferred_dropped++; /* the observed schedule contradicts it */
      return FALSE;
    }
  if (has_in_from (self, to, from))
    return FALSE;
  node_add_in (self, to, from, WEFT_DEP_CROSS_STREAM, 0);
  self->stats.n_cross_stream++;
  return TRUE;
}

static GArray *
thread_launches (Scratch *sc, guint32 cpu_lane)
{
  return g_hash_table_lookup (sc->launches, GUINT_TO_POINTER (cpu_lane + 1));
}

/* Index of the first launch at or after t in l (sorted by time), l->len: none. */
static guint
launches_lower_bound (GArray *l, gint64 t)
{
  guint lo = 0, hi = l->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (g_array_index (l, LaunchRec, mid).t < t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* Last op launched from the thread before t on a lane other than not_lane
 * (and not a communication op when skip_comm). */
static guint32
thread_last_launch_before (WeftSolver *self, Scratch *sc, guint32 cpu_lane, gint64 t, guint32 not_lane,
                           gboolean skip_comm)
{
  GArray *l = thread_launches (sc, cpu_lane);
  guint lo;
  if (l == NULL)
    return WEFT_NONE;
  lo = launches_lower_bound (l, t);
  for (guint k = lo, steps = 0; k > 0 && steps < 512; k--, steps++)
    {
      guint32 v = g_array_index (l, LaunchRec, k - 1).node;
      if (self->nodes[v].lane != not_lane && !(skip_comm && (self->nodes[v].flags & NODE_COMM)))
        return v;
    }
  return WEFT_NONE;
}

/* A collective's producer is the compute that made its input, never another
 * collective: the collective launched last before the record is usually
 * unrelated (an all-gather prefetched just before a reduce-scatter). Except
 * when the observed schedule says otherwise: the collective launched last
 * before the wait (on another stream) ends right before the waiter starts
 * (within UNEXPLAINED_NS), and the compute producer ended long before it
 * (more than UNEXPLAINED_NS), so that nothing launched on the thread
 * explains the start but that collective: HSDP's all-reduce of the shard
 * that the reduce-scatter just produced. */
static guint32
comm_producer (WeftSolver *self, Scratch *sc, guint32 cpu_lane, gint64 t, guint32 compute, guint32 waiter)
{
  guint32 c = thread_last_launch_before (self, sc, cpu_lane, t, self->nodes[waiter].lane, FALSE);
  const Node *w = &self->nodes[waiter];
  if (c == WEFT_NONE || c == compute || !(self->nodes[c].flags & NODE_COMM))
    return compute;
  if (w->obs_start + TOL_NS < self->nodes[c].obs_end || w->obs_start > self->nodes[c].obs_end + UNEXPLAINED_NS)
    return compute;
  if (compute != WEFT_NONE && w->obs_start <= self->nodes[compute].obs_end + UNEXPLAINED_NS)
    return compute;
  return c;
}

typedef struct
{
  gint64  ts;
  guint32 lane;
} RecordRec;      /* a cudaEventRecord call: its start (file clock) and CPU lane */

/* The producer a cudaStreamWaitEvent makes waiter wait for: the last op
 * launched on the thread (on another stream than the waiter's) before the
 * cudaEventRecord with the wait's External id, else before the wait. A
 * collective waits for the compute that produced its input, never for
 * another collective (that one is its own stream's), but see
 * comm_producer. Several records of one CPU op share its External id
 * (FSDP's post-backward records the compute stream, then with HSDP the
 * reduce-scatter stream), so a later one can stand for an earlier handle:
 * the latest record whose producer the observed schedule obeys, else the
 * latest. */
static guint32
wait_producer (WeftSolver *self, Scratch *sc, GHashTable *records, const WeftEvent *ev, guint32 waiter)
{
  gint64 offset = self->ranks[self->nodes[waiter].rank].offset;
  gboolean skip_comm = (self->nodes[waiter].flags & NODE_COMM) != 0;
  guint32 lane = self->nodes[waiter].lane;
  guint32 producer = thread_last_launch_before (self, sc, ev->lane, ev->ts + offset, lane, skip_comm);
  GArray *recs = ev->external_id >= 0 ? g_hash_table_lookup (records, &ev->external_id) : NULL;
  gint64 tried = G_MAXINT64;
  guint32 first = WEFT_NONE;

  for (guint round = 0; recs != NULL && round < 8; round++)
    {
      gint64 best = G_MININT64;
      guint32 p;
      for (guint k = 0; k < recs->len; k++)
        {
          const RecordRec *rr = &g_array_index (recs, RecordRec, k);
          if (rr->lane == ev->lane && rr->ts <= ev->ts && rr->ts < tried && rr->ts > best)
            best = rr->ts;
        }
      if (best == G_MININT64)
        break;
      tried = best;
      p = thread_last_launch_before (self, sc, ev->lane, best + offset, lane, skip_comm);
      if (round == 0)
        first = p;
      if (p != WEFT_NONE && self->nodes[waiter].obs_start + TOL_NS >= self->nodes[p].obs_end)
        {
          first = p;
          break;
        }
    }
  if (tried != G_MAXINT64)
    producer = first;
  if (skip_comm)
    producer = comm_producer (self, sc, ev->lane, ev->ts + offset, producer, waiter);
  return producer;
}

static GArray *
stream_order (WeftSolver *self, Scratch *sc, guint rank, gint64 device, gint64 stream)
{
  guint64 key = ((guint64) (device & 0xffff) << 48) ^ (guint64) stream;
  gpointer p = g_hash_table_lookup (sc->stream_lane, &key);
  if (p == NULL)
    return NULL;
  return lane_order (self, rank, GPOINTER_TO_UINT (p) - 1);
}

typedef struct
{
  guint32  cpu_event;
  guint32  cpu_lane;
  GArray  *targets;   /* guint32 op nodes */
} SyncSpec;

static void
add_sync_spec (GArray *specs, guint32 cpu_event, guint32 cpu_lane, const guint32 *targets, guint n)
{
  SyncSpec s;
  guint k = 0;
  for (guint i = 0; i < n; i++)
    if (targets[i] != WEFT_NONE)
      k++;
  if (k == 0 || cpu_lane == WEFT_NONE)
    return;
  s.cpu_event = cpu_event;
  s.cpu_lane = cpu_lane;
  s.targets = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (guint i = 0; i < n; i++)
    if (targets[i] != WEFT_NONE)
      g_array_append_val (s.targets, targets[i]);
  g_array_append_val (specs, s);
}

static gint64
json_get_int (json_object *args, const char *key, gint64 fallback)
{
  json_object *v;
  if (args == NULL || !json_object_object_get_ex (args, key, &v))
    return fallback;
  if (json_object_is_type (v, json_type_int))
    return json_object_get_int64 (v);
  if (json_object_is_type (v, json_type_double))
    return (gint64) json_object_get_double (v);
  if (json_object_is_type (v, json_type_string))
    {
      const char *s = json_object_get_string (v);
      char *end = NULL;
      gint64 x = g_ascii_strtoll (s, &end, 10);
      return end != s ? x : fallback;
    }
  return fallback;
}

static gboolean
is_d2h_pageable (const char *name)
{
  return (strstr (name, "DtoH") != NULL || strstr (name, "Device -> Pageable") != NULL) &&
         strstr (name, "Pageable") != NULL;
}

/* Runtime calls that give edges, by name: CUDA runtime, CUDA driver and
 * HIP (ROCm) spell the same calls differently (docs/solver.md). */
typedef enum
{
  RT_OTHER = 0,
  RT_EVENT_RECORD,
  RT_STREAM_WAIT,
  RT_DEVICE_SYNC,
  RT_STREAM_SYNC,
  RT_MEMCPY,
} RuntimeCall;

static const char * const event_record_names[] = {
  "cudaEventRecord", "cudaEventRecordWithFlags", "cuEventRecord", "cuEventRecordWithFlags",
  "hipEventRecord", "hipEventRecordWithFlags",
};

static RuntimeCall
runtime_call (const char *name)
{
  static const struct { const char *name; RuntimeCall call; } exact[] = {
    { "cudaStreamWaitEvent", RT_STREAM_WAIT },   { "cuStreamWaitEvent", RT_STREAM_WAIT },
    { "hipStreamWaitEvent", RT_STREAM_WAIT },    { "cudaDeviceSynchronize", RT_DEVICE_SYNC },
    { "cuCtxSynchronize", RT_DEVICE_SYNC },      { "hipDeviceSynchronize", RT_DEVICE_SYNC },
    { "cudaStreamSynchronize", RT_STREAM_SYNC }, { "cuStreamSynchronize", RT_STREAM_SYNC },
    { "hipStreamSynchronize", RT_STREAM_SYNC },
  };
  if (name[0] != 'c' && name[0] != 'h')
    return RT_OTHER;
  for (guint i = 0; i < G_N_ELEMENTS (exact); i++)
    if (strcmp (name, exact[i].name) == 0)
      return exact[i].call;
  for (guint i = 0; i < G_N_ELEMENTS (event_record_names); i++)
    if (strcmp (name, event_record_names[i]) == 0)
      return RT_EVENT_RECORD;
  if (g_str_has_prefix (name, "cudaMemcpy") || g_str_has_prefix (name, "hipMemcpy") || g_str_has_prefix (name, "cuMemcpy"))
    return RT_MEMCPY;
  return RT_OTHER;
}

static gint
cpu_orig_cmp (gconstpointer a, gconstpointer b)
{
  guint32 x = ((const CpuOrig *) a)->event, y = ((const CpuOrig *) b)->event;
  return (x > y) - (x < y);
}

static void
lane_order_free (gpointer data)
{
  if (data != NULL)
    g_array_unref (data);
}

/* gpu_user_annotation slices of the rank's GPU lanes and the ops each
 * covered as loaded: the ops of its stream whose observed span lies inside
 * its own (Kineto writes it from the first to the last kernel it covers). */
static void
build_annots (WeftSolver *self, guint r)
{
  WeftRank *rank = weft_trace_rank (self->trace, r);
  RankState *rs = &self->ranks[r];
  for (guint li = 0; li < rank->lanes->len && li < rs->lanes->len; li++)
    {
      WeftLane *lane = weft_rank_lane (rank, li);
      GArray *o = g_ptr_array_index (rs->lanes, li);
      if (lane->kind != WEFT_LANE_GPU || o == NULL)
        continue;
      for (guint j = 0; j < lane->events->len; j++)
        {
          guint32 ei = g_array_index (lane->events, guint32, j);
          const WeftEvent *ev = weft_rank_event (rank, ei);
          gint64 a0, a1;
          guint lo = 0, hi = o->len;
          AnnotRec rec;
          if (ev->category != WEFT_CAT_GPU_USER_ANNOTATION || ev->ph != WEFT_PH_X || (ev->flags & WEFT_EVENT_DELETED))
            continue;
          a0 = ev->ts + rs->offset;
          a1 = weft_event_end (ev) + rs->offset;
          while (lo < hi) /* first op starting at or after a0 */
            {
              guint mid = lo + (hi - lo) / 2;
              if (self->nodes[g_array_index (o, guint32, mid)].obs_start < a0)
                lo = mid + 1;
              else
                hi = mid;
            }
          if (rs->annots == NULL)
            {
              rs->annots = g_array_new (FALSE, FALSE, sizeof (AnnotRec));
              rs->annot_nodes = g_array_new (FALSE, FALSE, sizeof (guint32));
              rs->annot_of = g_hash_table_new (g_direct_hash, g_direct_equal);
            }
          rec.event = ei;
          rec.lane = li;
          rec.first = rs->annot_nodes->len;
          for (guint k = lo; k < o->len && self->nodes[g_array_index (o, guint32, k)].obs_start <= a1; k++)
            if (self->nodes[g_array_index (o, guint32, k)].obs_end <= a1)
              g_array_append_val (rs->annot_nodes, g_array_index (o, guint32, k));
          rec.n = rs->annot_nodes->len - rec.first;
          if (rec.n == 0)
            continue; /* covers no op: stays as it is */
          {
            gint64 o0 = G_MAXINT64, o1 = G_MININT64;
            for (guint k = 0; k < rec.n; k++)
              {
                const Node *cn = &self->nodes[g_array_index (rs->annot_nodes, guint32, rec.first + k)];
                o0 = MIN (o0, cn->obs_start);
                o1 = MAX (o1, cn->obs_end);
              }
            /* kept, so that it nests with its ops as it did (Perfetto nests
             * a slice of the same span as another in the earlier one) */
            rec.lead = o0 - a0;
            rec.trail = a1 - o1;
          }
          g_array_append_val (rs->annots, rec);
          g_hash_table_insert (rs->annot_of, GUINT_TO_POINTER (ei + 1), GUINT_TO_POINTER (rs->annots->len));
        }
    }
}

/* Where annotation rec belongs now: over the live ops it covered that are
 * still on its lane (else on the lane of the first live one), from the
 * first start to the last end. FALSE when none of its ops is left. */
static gboolean
annot_span (WeftSolver *self, guint r, const AnnotRec *rec, gint64 *start, gint64 *end, guint32 *lane)
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

static void
build_begin (WeftSolver *self, Scratch *sc, guint r)
{
  WeftRank *rank = weft_trace_rank (self->trace, r);
  RankState *rs = &self->ranks[r];

  sc->rank = rank;
  sc->rs = rs;
  sc->r = r;
  sc->first_node = self->n_nodes;
  sc->typ_cand = g_array_new (FALSE, FALSE, sizeof (guint32) * 2);
  sc->specs = g_array_new (FALSE, FALSE, sizeof (SyncSpec));
  sc->has_wait_sync = sc->has_cpu_sync = sc->weft_saved = FALSE;
  sc->records = NULL;

  rs->offset = weft_trace_rank_offset (self->trace, rank);
  rs->ev_node = g_array_new (FALSE, FALSE, sizeof (guint32));
  set_ev_node (self, r, rank->events->len ? rank->events->len - 1 : 0, WEFT_NONE);
  for (guint i = 0; i < rs->ev_node->len; i++)
    g_array_index (rs->ev_node, guint32, i) = WEFT_NONE;
  rs->lanes = g_ptr_array_new_with_free_func (lane_order_free);
  rs->threads = g_hash_table_new (g_direct_hash, g_direct_equal);

  for (guint k = 0; k < rank->top_keys->len && !sc->weft_saved; k++)
    sc->weft_saved = strcmp (weft_rank_string (rank, g_array_index (rank->top_keys, WeftTopKey, k).key), "weft") == 0;

  sc->launches = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, (GDestroyNotify) g_array_unref);
  sc->runtime_by_corr = g_hash_table_new (g_int64_hash, g_int64_equal);
  sc->stream_lane = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
}

static void
build_end (Scratch *sc)
{
  g_array_free (sc->typ_cand, TRUE);
  g_array_free (sc->specs, TRUE);
  g_array_free (sc->pmax, TRUE);
  g_hash_table_destroy (sc->launches);
  g_hash_table_destroy (sc->runtime_by_corr);
  g_hash_table_destroy (sc->stream_lane);
  g_hash_table_destroy (sc->records);
}

/* The OP node of GPU op ei of lane li, appended to the lane's order. */
static void
build_op (WeftSolver *self, Scratch *sc, guint32 li, guint32 ei, GArray *order)
{
  WeftRank *rank = sc->rank;
  RankState *rs = sc->rs;
  WeftEvent *ev = weft_rank_event (rank, ei);
  guint32 v;
  Node *n;
  if (!(ev->flags & WEFT_EVENT_GPU_OP) || (ev->flags & WEFT_EVENT_DELETED) || ev->ph != WEFT_PH_X)
    return;
  v = add_node (self, NODE_OP, sc->r, ei);
  n = &self->nodes[v];
  n->lane = li;
  n->lane_pos = order->len;
  n->obs_start = ev->ts + rs->offset;
  n->obs_end = weft_event_end (ev) + rs->offset;
  n->dur = ev->dur;
  if (ev->kclass == WEFT_KCLASS_COMM)
    n->flags |= NODE_COMM;
  else if (ev->category == WEFT_CAT_GPU_MEMCPY || ev->category == WEFT_CAT_GPU_MEMSET)
    n->flags |= NODE_MEM;
  if (ev->link != WEFT_NONE && ev->link < rank->events->len)
    {
      WeftEvent *l = weft_rank_event (rank, ev->link);
      if (l->lane != WEFT_NONE && weft_rank_lane (rank, l->lane)->kind == WEFT_LANE_CPU)
        {
          n->launch = ev->link;
          n->launch_time = l->ts + rs->offset;
          n->release_kind = WEFT_DEP_LAUNCH;
        }
    }
  /* saved by Weft as held by a user minimum start: so it is */
  if (sc->weft_saved && ev->text != NULL && ev->text_len > 0 &&
      g_strstr_len (ev->text, (gssize) ev->text_len, "\"weft held\"") != NULL)
    {
      ev->flags |= WEFT_EVENT_HELD;
      n->min_start = n->obs_start;
    }
  set_ev_node (self, sc->r, ei, v);
  g_array_append_val (order, v);
}

/* Phase 1: OP nodes per GPU lane, in the lane's (start) order. */
static void
build_ops (WeftSolver *self, Scratch *sc)
{
  WeftRank *rank = sc->rank;
  RankState *rs = sc->rs;

  for (guint li = 0; li < rank->lanes->len; li++)
    {
      WeftLane *lane = weft_rank_lane (rank, li);
      GArray *order = NULL;
      if (lane->kind == WEFT_LANE_GPU)
        {
          guint64 *key = g_new (guint64, 1);
          *key = ((guint64) ((gint64) lane->device & 0xffff) << 48) ^ (guint64) lane->tid;
          g_hash_table_insert (sc->stream_lane, key, GUINT_TO_POINTER (li + 1));
          order = g_array_new (FALSE, FALSE, sizeof (guint32));
          for (guint j = 0; j < lane->events->len; j++)
            build_op (self, sc, li, g_array_index (lane->events, guint32, j), order);
          /* ops that start together run shortest first (a stream runs one
           * op at a time: a zero-length op at t came before the op that
           * starts at t), while the lane lists the longer first (for
           * nesting) */
          for (guint j = 1; j < order->len; j++)
            for (guint k = j; k > 0; k--)
              {
                guint32 *o = (guint32 *) (void *) order->data;
                const Node *a = &self->nodes[o[k - 1]], *b = &self->nodes[o[k]];
                guint32 t;
                if (a->obs_start != b->obs_start || a->obs_end <= b->obs_end)
                  break;
                t = o[k - 1];
                o[k - 1] = o[k];
                o[k] = t;
                self->nodes[o[k - 1]].lane_pos = k - 1;
                self->nodes[o[k]].lane_pos = k;
              }
        }
      g_ptr_array_add (rs->lanes, order);
    }
}

/* Phase 2: running max of launch time per lane; launches per CPU thread;
 * the candidates for the typical figures. */
static void
build_launch_index (WeftSolver *self, Scratch *sc)
{
  RankState *rs = sc->rs;

  sc->pmax = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_array_set_size (sc->pmax, self->n_nodes);
  for (guint li = 0; li < rs->lanes->len; li++)
    {
      GArray *order = g_ptr_array_index (rs->lanes, li);
      gint64 m = G_MININT64;
      if (order == NULL)
        continue;
      for (guint j = 0; j < order->len; j++)
        {
          guint32 v = g_array_index (order, guint32, j);
          Node *n = &self->nodes[v];
          m = MAX (m, op_launch_key (self, v));
          g_array_index (sc->pmax, gint64, v) = m;
          if (n->launch != WEFT_NONE)
            {
              guint32 cl = weft_rank_event (sc->rank, n->launch)->lane;
              GArray *l = thread_launches (sc, cl);
              LaunchRec rec = { n->launch_time, v };
              if (l == NULL)
                {
                  l = g_array_new (FALSE, FALSE, sizeof (LaunchRec));
                  g_hash_table_insert (sc->launches, GUINT_TO_POINTER (cl + 1), l);
                }
              g_array_append_val (l, rec);
              /* typical figures: sampled once the cross-stream edges are known */
              {
                guint32 cand[2] = { v, j > 0 ? g_array_index (order, guint32, j - 1) : WEFT_NONE };
                g_array_append_val (sc->typ_cand, cand);
              }
            }
        }
    }
  {
    GHashTableIter it;
    gpointer value;
    g_hash_table_iter_init (&it, sc->launches);
    while (g_hash_table_iter_next (&it, NULL, &value))
      g_array_sort (value, launch_rec_cmp);
  }
}

/* Phase 3: runtime calls by correlation; cuda_sync presence. */
static void
build_runtime_index (WeftSolver *self, Scratch *sc)
{
  WeftRank *rank = sc->rank;

  for (guint i = 0; i < rank->events->len; i++)
    {
      WeftEvent *ev = weft_rank_event (rank, i);
      if (ev->ph != WEFT_PH_X || (ev->flags & WEFT_EVENT_DELETED))
        continue;
      if ((ev->category == WEFT_CAT_CUDA_RUNTIME || ev->category == WEFT_CAT_CUDA_DRIVER) && ev->correlation >= 0)
        g_hash_table_insert (sc->runtime_by_corr, &ev->correlation, GUINT_TO_POINTER (i + 1));
      else if (ev->category == WEFT_CAT_CUDA_SYNC)
        {
          /* with sync events recorded, they replace the inference of the same kind */
          const char *sn = weft_rank_string (rank, ev->name);
          if (strcmp (sn, "Stream Wait Event") == 0)
            sc->has_wait_sync = TRUE;
          else
            sc->has_cpu_sync = TRUE;
        }
    }
}

/* Phase 4: cudaEventRecord (hipEventRecord, ...) calls by (thread, External
 * id), sorted by time. */
static void
build_record_index (WeftSolver *self, Scratch *sc)
{
  WeftRank *rank = sc->rank;
  guint32 record_names[G_N_ELEMENTS (event_record_names)];
  guint n_record_names = 0;

  sc->records = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, (GDestroyNotify) g_array_unref);
  for (guint k = 0; k < G_N_ELEMENTS (event_record_names); k++)
    {
      guint32 id = weft_strings_lookup (rank->strings, event_record_names[k], -1);
      if (id != WEFT_NONE)
        record_names[n_record_names++] = id;
    }
  for (guint i = 0; n_record_names > 0 && i < rank->events->len; i++)
    {
      WeftEvent *ev = weft_rank_event (rank, i);
      GArray *recs;
      RecordRec rr;
      gboolean is_record = FALSE;
      for (guint k = 0; k < n_record_names && !is_record; k++)
        is_record = ev->name == record_names[k];
      if (!is_record || (ev->category != WEFT_CAT_CUDA_RUNTIME && ev->category != WEFT_CAT_CUDA_DRIVER) ||
          ev->external_id < 0 || ev->lane == WEFT_NONE || ev->ph != WEFT_PH_X)
        continue;
      recs = g_hash_table_lookup (sc->records, &ev->external_id);
      if (recs == NULL)
        {
          recs = g_array_new (FALSE, FALSE, sizeof (RecordRec));
          g_hash_table_insert (sc->records, &ev->external_id, recs); /* key lives in the event */
        }
      rr.ts = ev->ts;
      rr.lane = ev->lane;
      g_array_append_val (recs, rr);
    }
}

/* Phase 5a: a recorded cuda_sync event (Stream Wait Event, Event Sync,
 * Stream Sync, Context Sync): a cross-stream edge or a sync spec. */
static void
infer_from_sync_event (WeftSolver *self, Scratch *sc, WeftEvent *ev)
{
  WeftRank *rank = sc->rank;
  RankState *rs = sc->rs;
  json_object *args = weft_event_parse_args (rank, ev);
  gint64 ws = json_get_int (args, "wait_on_stream", -1);
  gint64 rec_corr = json_get_int (args, "wait_on_cuda_event_record_corr_id", -1);
  gint64 stream = json_get_int (args, "stream", -1);
  gint64 device = ev->lane != WEFT_NONE ? weft_rank_lane (rank, ev->lane)->pid : 0;
  gpointer rt = ev->correlation >= 0 ? g_hash_table_lookup (sc->runtime_by_corr, &ev->correlation) : NULL;
  WeftEvent *call = rt ? weft_rank_event (rank, GPOINTER_TO_UINT (rt) - 1) : NULL;
  guint32 call_idx = rt ? GPOINTER_TO_UINT (rt) - 1 : WEFT_NONE;
  gint64 call_t = (call ? call->ts : ev->ts) + rs->offset;
  guint32 producer = WEFT_NONE;
  const char *name;

  name = weft_rank_string (rank, ev->name);
  if (args != NULL)
    json_object_put (args);
  if (ws >= 0 && rec_corr >= 0)
    {
      gpointer rp = g_hash_table_lookup (sc->runtime_by_corr, &rec_corr);
      GArray *po = stream_order (self, sc, sc->r, device, ws);
      if (rp != NULL && po != NULL)
        {
          WeftEvent *record = weft_rank_event (rank, GPOINTER_TO_UINT (rp) - 1);
          producer = lane_last_launched_before (self, sc, po, record->ts + rs->offset);
        }
    }
  if (strcmp (name, "Stream Wait Event") == 0)
    {
      GArray *wo;
      if (stream < 0 && ev->lane != WEFT_NONE)
        {
          stream = weft_rank_lane (rank, ev->lane)->tid;
          if (stream >= 1000000)
            stream -= 1000000;
        }
      wo = stream_order (self, sc, sc->r, device, stream);
      if (wo != NULL && producer != WEFT_NONE)
        add_cross (self, producer, lane_first_launched_after (self, sc, wo, call_t));
    }
  else if (call != NULL && call->lane != WEFT_NONE)
    {
      const char *cname = weft_rank_string (rank, call->name);
      gboolean blocking = strstr (cname, "Synchronize") != NULL;
      if (!blocking)
        return; /* cudaEventQuery & co. poll, they do not block */
      if (strcmp (name, "Event Sync") == 0 && producer != WEFT_NONE)
        add_sync_spec (sc->specs, call_idx, call->lane, &producer, 1);
      else if (strcmp (name, "Stream Sync") == 0 || strcmp (name, "Context Sync") == 0)
        {
          GArray *t = g_array_new (FALSE, FALSE, sizeof (guint32));
          for (guint li = 0; li < rs->lanes->len; li++)
            {
              GArray *o = g_ptr_array_index (rs->lanes, li);
              WeftLane *lane = weft_rank_lane (rank, li);
              guint32 g;
              if (o == NULL || lane->pid != device)
                continue;
              if (strcmp (name, "Stream Sync") == 0 && lane->tid != stream)
                continue;
              g = lane_sync_target (self, sc, o, call_t, weft_event_end (call) + rs->offset);
              if (g != WEFT_NONE)
                g_array_append_val (t, g);
            }
          add_sync_spec (sc->specs, call_idx, call->lane, (guint32 *) (void *) t->data, t->len);
          g_array_free (t, TRUE);
        }
    }
}

/* Phase 5b: a cudaStreamWaitEvent call without recorded sync events. */
static void
infer_stream_wait (WeftSolver *self, Scratch *sc, WeftEvent *ev)
{
  /* ProcessGroupNCCL pattern: the stream of the next launch waits
   * for the last op launched before the cudaEventRecord sharing the
   * External id (else before the wait) on another stream: the
   * "current" stream's producer. The runtime calls carry no stream:
   * when the next launch starts before that producer ends, it went
   * to another stream (a stream that waits cannot start earlier),
   * and the wait is for the next launch on yet another stream (FSDP
   * + TP: the TP all-reduce's work.wait() on the compute stream,
   * then the next unit's all-gather copy-in launched first). */
  guint32 rejected[4];
  guint n_rejected = 0, first_w = WEFT_NONE, first_p = WEFT_NONE;
  gboolean done = FALSE;
  GArray *l = thread_launches (sc, ev->lane);
  guint k = l != NULL ? launches_lower_bound (l, ev->ts + sc->rs->offset) : 0;
  for (; l != NULL && k < l->len && n_rejected < G_N_ELEMENTS (rejected) && !done; k++)
    {
      guint32 w = g_array_index (l, LaunchRec, k).node, p;
      gboolean seen = FALSE;
      for (guint j = 0; j < n_rejected; j++)
        seen |= self->nodes[rejected[j]].lane == self->nodes[w].lane;
      if (seen)
        continue;
      p = wait_producer (self, sc, sc->records, ev, w);
      if (first_w == WEFT_NONE)
        first_w = w, first_p = p;
      if (p == WEFT_NONE || self->nodes[w].obs_start + TOL_NS >= self->nodes[p].obs_end)
        {
          add_cross (self, p, w);
          done = TRUE;
        }
      else
        rejected[n_rejected++] = w;
    }
  if (!done && first_w != WEFT_NONE)
    add_cross (self, first_p, first_w); /* contradicted: counted and dropped */
}

/* Phase 5c: a blocking device or stream synchronize call without recorded
 * sync events: a sync spec over what it waited for. */
static void
infer_cpu_sync (WeftSolver *self, Scratch *sc, guint32 i, WeftEvent *ev, RuntimeCall call_kind)
{
  RankState *rs = sc->rs;
  gint64 t = ev->ts + rs->offset;
  GArray *tg = g_array_new (FALSE, FALSE, sizeof (guint32));
  if (call_kind == RT_DEVICE_SYNC)
    {
      for (guint li = 0; li < rs->lanes->len; li++)
        {
          GArray *o = g_ptr_array_index (rs->lanes, li);
          guint32 g = o ? lane_sync_target (self, sc, o, t, weft_event_end (ev) + rs->offset) : WEFT_NONE;
          if (g != WEFT_NONE)
            g_array_append_val (tg, g);
        }
    }
  else
    {
      /* the stream: that of the last op launched from this thread */
      guint32 last = thread_last_launch_before (self, sc, ev->lane, t, WEFT_NONE, FALSE);
      if (last != WEFT_NONE)
        {
          GArray *o = lane_order (self, sc->r, self->nodes[last].lane);
          guint32 g = lane_sync_target (self, sc, o, t, weft_event_end (ev) + rs->offset);
          if (g != WEFT_NONE)
            g_array_append_val (tg, g);
        }
    }
  add_sync_spec (sc->specs, i, ev->lane, (guint32 *) (void *) tg->data, tg->len);
  g_array_free (tg, TRUE);
}

/* Phase 5: cross-stream waits and GPU-to-CPU syncs, from the recorded sync
 * events, else from the runtime calls. */
static void
build_waits_and_syncs (WeftSolver *self, Scratch *sc)
{
  WeftRank *rank = sc->rank;

  for (guint i = 0; i < rank->events->len; i++)
    {
      WeftEvent *ev = weft_rank_event (rank, i);
      const char *name;
      RuntimeCall call_kind;
      if (ev->ph != WEFT_PH_X || (ev->flags & WEFT_EVENT_DELETED))
        continue;
      if (ev->category == WEFT_CAT_CUDA_SYNC)
        {
          infer_from_sync_event (self, sc, ev);
          continue;
        }
      if ((ev->category != WEFT_CAT_CUDA_RUNTIME && ev->category != WEFT_CAT_CUDA_DRIVER) || ev->lane == WEFT_NONE)
        continue;
      name = weft_rank_string (rank, ev->name);
      call_kind = runtime_call (name);
      if (call_kind == RT_OTHER)
        continue;
      if (call_kind == RT_STREAM_WAIT && !sc->has_wait_sync)
        infer_stream_wait (self, sc, ev);
      else if (!sc->has_cpu_sync && (call_kind == RT_DEVICE_SYNC || call_kind == RT_STREAM_SYNC))
        infer_cpu_sync (self, sc, i, ev, call_kind);
      else if ((ev->flags & WEFT_EVENT_LAUNCH) && ev->link != WEFT_NONE && call_kind == RT_MEMCPY)
        {
          guint32 g = _weft_solver_node (self, sc->r, ev->link);
          /* a copy to pageable host memory blocks the thread, and so does
           * every synchronous copy call (cudaMemcpy, hipMemcpy,
           * hipMemcpyWithStream: no "Async" in the name) */
          if (g != WEFT_NONE && (is_d2h_pageable (weft_rank_string (rank, weft_rank_event (rank, ev->link)->name)) ||
                                 strstr (name, "Async") == NULL))
            add_sync_spec (sc->specs, i, ev->lane, &g, 1);
        }
    }
}

/* Phase 6: SYNC nodes from the specs, gathered per CPU thread. */
static void
build_sync_nodes (WeftSolver *self, Scratch *sc)
{
  WeftRank *rank = sc->rank;
  RankState *rs = sc->rs;
  GArray *specs = sc->specs;

  for (guint i = 0; i < specs->len; i++)
    {
      SyncSpec *s = &g_array_index (specs, SyncSpec, i);
      WeftEvent *ev = weft_rank_event (rank, s->cpu_event);
      gint64 s_end = weft_event_end (ev) + rs->offset;
      gboolean any = FALSE;
      guint32 v;
      ThreadSyncs *ts;

      /* keep only the GPU ops the call really waited on or could have */
      for (guint k = 0; k < s->targets->len; k++)
        if (self->nodes[g_array_index (s->targets, guint32, k)].obs_end <= s_end + TOL_NS)
          any = TRUE;
      if (!any)
        {
          g_array_free (s->targets, TRUE);
          continue;
        }
      if (g_array_index (rs->ev_node, guint32, s->cpu_event) != WEFT_NONE)
        {
          /* the same call found twice (cuda_sync + runtime): keep the first */
          g_array_free (s->targets, TRUE);
          continue;
        }
      v = add_node (self, NODE_SYNC, sc->r, s->cpu_event);
      self->nodes[v].lane = s->cpu_lane;
      self->nodes[v].obs_start = ev->ts + rs->offset;
      self->nodes[v].obs_end = s_end;
      set_ev_node (self, sc->r, s->cpu_event, v);
      for (guint k = 0; k < s->targets->len; k++)
        {
          guint32 g = g_array_index (s->targets, guint32, k);
          if (self->nodes[g].obs_end <= s_end + TOL_NS && !has_in_from (self, v, g))
            {
              node_add_in (self, v, g, WEFT_DEP_SYNC, 0);
              self->stats.n_sync_edges++;
            }
        }
      g_array_free (s->targets, TRUE);
      ts = g_hash_table_lookup (rs->threads, GUINT_TO_POINTER (s->cpu_lane + 1));
      if (ts == NULL)
        {
          ts = g_new0 (ThreadSyncs, 1);
          ts->lane = s->cpu_lane;
          ts->syncs = g_array_new (FALSE, FALSE, sizeof (guint32));
          g_hash_table_insert (rs->threads, GUINT_TO_POINTER (s->cpu_lane + 1), ts);
        }
      g_array_append_val (ts->syncs, v);
    }
}

/* Phase 7: orders the syncs of each thread by observed end and chains
 * them; the thread's CPU originals (for the shift). */
static void
build_thread_syncs (WeftSolver *self, Scratch *sc)
{
  WeftRank *rank = sc->rank;
  RankState *rs = sc->rs;
  GHashTableIter it;
  gpointer value;

  g_hash_table_iter_init (&it, rs->threads);
  while (g_hash_table_iter_next (&it, NULL, &value))
    {
      ThreadSyncs *ts = value;
      guint32 *s = (guint32 *) (void *) ts->syncs->data;
      WeftLane *lane = weft_rank_lane (rank, ts->lane);
      for (guint a = 1; a < ts->syncs->len; a++)
        for (guint b = a; b > 0 && self->nodes[s[b - 1]].obs_end > self->nodes[s[b]].obs_end; b--)
          {
            guint32 t = s[b];
            s[b] = s[b - 1];
            s[b - 1] = t;
          }
      for (guint a = 0; a < ts->syncs->len; a++)
        {
          Node *n = &self->nodes[s[a]];
          n->release_kind = WEFT_DEP_LAUNCH;
          if (a > 0)
            node_add_in (self, s[a], s[a - 1], WEFT_DEP_LAUNCH, 0);
          else
            n->release = n->obs_start; /* calibrated below */
        }
      ts->orig = g_array_new (FALSE, FALSE, sizeof (CpuOrig));
      for (guint j = 0; j < lane->events->len; j++)
        {
          guint32 ei = g_array_index (lane->events, guint32, j);
          WeftEvent *ev = weft_rank_event (rank, ei);
          CpuOrig o = { ei, ev->ts, weft_event_end (ev) };
          g_array_append_val (ts->orig, o);
        }
      g_array_sort (ts->orig, cpu_orig_cmp);
      ts->obs_end = g_new (gint64, MAX (1, ts->syncs->len));
      for (guint a = 0; a < ts->syncs->len; a++)
        ts->obs_end[a] = self->nodes[s[a]].obs_end;
    }
  rs->n_thread_lanes = rank->lanes->len;
  rs->thread_by_lane = g_new0 (ThreadSyncs *, MAX (1, rs->n_thread_lanes));
  g_hash_table_iter_init (&it, rs->threads);
  while (g_hash_table_iter_next (&it, NULL, &value))
    {
      ThreadSyncs *ts = value;
      if (ts->lane < rs->n_thread_lanes)
        rs->thread_by_lane[ts->lane] = ts;
    }
}

/* Phase 8: launch edges, from the last sync of the thread that ended
 * before the launch. */
static void
build_launch_edges (WeftSolver *self, Scratch *sc)
{
  for (guint32 v = sc->first_node; v < self->n_nodes; v++)
    {
      Node *n = &self->nodes[v];
      ThreadSyncs *ts;
      guint lo = 0, hi;
      if (n->kind != NODE_OP || n->launch == WEFT_NONE)
        continue;
      ts = g_hash_table_lookup (sc->rs->threads, GUINT_TO_POINTER (weft_rank_event (sc->rank, n->launch)->lane + 1));
      if (ts == NULL)
        continue;
      hi = ts->syncs->len;
      while (lo < hi)
        {
          guint mid = lo + (hi - lo) / 2;
          if (self->nodes[g_array_index (ts->syncs, guint32, mid)].obs_end <= n->launch_time)
            lo = mid + 1;
          else
            hi = mid;
        }
      if (lo > 0)
        {
          guint32 s = g_array_index (ts->syncs, guint32, lo - 1);
          n = &self->nodes[v];
          n->release_kind = WEFT_DEP_NONE;
          node_add_in (self, v, s, WEFT_DEP_LAUNCH, 0);
        }
    }
}

/* Phase 9: typical launch latency (ops launched onto an idle stream) and
 * gap between queued ops. An op held by an in-edge whose source ended after
 * its launch (or after its stream predecessor, when queued) started when
 * that wait ended: its start says nothing about launch latency or queue
 * gaps (the first all-reduce on the NCCL stream, waiting ~10 ms for its
 * producer, would otherwise make "launch latency" 10 ms and let every
 * launch tie with its stream predecessor). */
static void
build_typical (WeftSolver *self, Scratch *sc)
{
  GArray *lat = g_array_new (FALSE, FALSE, sizeof (gint64));
  GArray *gaps = g_array_new (FALSE, FALSE, sizeof (gint64));

  for (guint k = 0; k < sc->typ_cand->len; k++)
    {
      const guint32 *cand = &g_array_index (sc->typ_cand, guint32, 2 * k);
      Node *n = &self->nodes[cand[0]];
      Node *p = cand[1] != WEFT_NONE ? &self->nodes[cand[1]] : NULL;
      gboolean idle = p == NULL || p->obs_end <= n->launch_time;
      gint64 ready = idle ? n->launch_time : p->obs_end;
      gint64 x = n->obs_start - ready;
      gboolean held = n->min_start != G_MININT64; /* a "weft held" op: its launch is Weft's */
      for (guint e = 0; e < n->n_in && !held; e++)
        if (self->nodes[n->in[e].src].obs_end > ready)
          held = TRUE;
      if (held || x < 0)
        continue;
      g_array_append_val (idle ? lat : gaps, x);
    }
  sc->rs->typ_launch = median_or (lat, 5000);
  sc->rs->typ_gap = median_or (gaps, 0);
  g_array_free (lat, TRUE);
  g_array_free (gaps, TRUE);
}

/* Phase 10: steps, by the launch (else the op itself) inside
 * ProfilerStep#N. */
static void
build_steps (WeftSolver *self, Scratch *sc)
{
  WeftRank *rank = sc->rank;

  if (rank->steps->len == 0)
    return;
  for (guint32 v = sc->first_node; v < self->n_nodes; v++)
    {
      Node *n = &self->nodes[v];
      gint64 t;
      if (n->kind != NODE_OP)
        continue;
      t = (n->launch_time != G_MININT64 ? n->launch_time : n->obs_start) - sc->rs->offset;
      for (guint k = rank->steps->len; k > 0; k--)
        {
          const WeftStep *st = &g_array_index (rank->steps, WeftStep, k - 1);
          if (st->begin <= t)
            {
              if (t < st->end || n->launch_time == G_MININT64)
                n->step = st->number;
              break;
            }
        }
    }
}

/* The graph of rank r: its nodes and the edges inside it (docs/solver.md,
 * "Graph"), phase by phase over one scratch. */
static void
build_rank (WeftSolver *self, guint r)
{
  Scratch sc;

  build_begin (self, &sc, r);
  build_ops (self, &sc);
  build_launch_index (self, &sc);
  build_runtime_index (self, &sc);
  build_record_index (self, &sc);
  build_waits_and_syncs (self, &sc);
  build_sync_nodes (self, &sc);
  build_thread_syncs (self, &sc);
  build_launch_edges (self, &sc);
  build_typical (self, &sc);
  build_steps (self, &sc);
  build_annots (self, r);
  build_end (&sc);
}

static void
build_instances (WeftSolver *self)
{
  WeftTrace *trace = self->trace;
  self->inst_node = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (guint i = 0; i < trace->instances->len; i++)
    {
      const WeftCollInstance *inst = &g_array_index (trace->instances, WeftCollInstance, i);
      guint32 members[256];
      guint nm = 0;
      guint32 none = WEFT_NONE;
      for (guint k = 0; inst->members != NULL && k < inst->members->len && nm < G_N_ELEMENTS (members); k++)
        {
          const WeftInstanceMember *m = &g_array_index (inst->members, WeftInstanceMember, k);
          WeftRank *rank;
          const WeftCollective *c;
          guint32 v;
          if (m->rank_index >= self->n_ranks)
            continue;
          rank = weft_trace_rank (trace, m->rank_index);
          if (m->coll >= rank->collectives->len)
            continue;
          c = &g_array_index (rank->collectives, WeftCollective, m->coll);
          v = _weft_solver_node (self, m->rank_index, c->event);
          if (v != WEFT_NONE && self->nodes[v].inst == WEFT_NONE)
            members[nm++] = v;
        }
      if (nm == 0)
        {
          g_array_append_val (self->inst_node, none);
          continue;
        }
      {
        guint32 iv = add_node (self, NODE_INST, self->nodes[members[0]].rank, i);
        Node *in = &self->nodes[iv];
        in->members = g_new (guint32, nm);
        memcpy (in->members, members, nm * sizeof (guint32));
        in->n_members = nm;
        _weft_solver_plan_invalidate (self);
        for (guint k = 0; k < nm; k++)
          self->nodes[members[k]].inst = iv;
        g_array_append_val (self->inst_node, iv);
      }
    }
}

static void
dissolve_instance (WeftSolver *self, guint32 iv)
{
  Node *in = &self->nodes[iv];
  for (guint k = 0; k < in->n_members; k++)
    {
      Node *m = &self->nodes[in->members[k]];
      _weft_solver_plan_invalidate (self);
      m->inst = WEFT_NONE;
      m->dur = m->obs_end - m->obs_start;
    }
  _weft_solver_plan_invalidate (self);
  in->flags |= NODE_DELETED;
  g_array_index (self->inst_node, guint32, in->event) = WEFT_NONE;
}

/* The observed trace is acyclic; an inferred edge or a mismatched instance
 * can make a cycle. Drop inferred edges of the cycle, else dissolve the
 * instance in it (docs/solver.md, "model-breaking traces"). */
static void
break_build_cycles (WeftSolver *self)
{
  GArray *cycle = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (guint round = 0; round < 10000 && !compute_topo (self, cycle); round++)
    {
      gboolean fixed = FALSE;
      for (guint i = 0; i < cycle->len && !fixed; i++)
        {
          guint32 v = g_array_index (cycle, guint32, i);
          Node *n = &self->nodes[v];
          for (guint e = 0; e < n->n_in; e++)
            {
              guint8 k = n->in[e].kind;
              guint32 src = remap (self, n->in[e].src);
              gboolean in_cycle = FALSE;
              if (k != WEFT_DEP_CROSS_STREAM && k != WEFT_DEP_SYNC)
                continue;
              for (guint j = 0; j < cycle->len; j++)
                if (g_array_index (cycle, guint32, j) == src)
                  in_cycle = TRUE;
              if (in_cycle)
                {
                  node_remove_in (self, v, e);
                  self->stats.n_build_cycle_edges++;
                  fixed = TRUE;
                  break;
                }
            }
        }
      for (guint i = 0; i < cycle->len && !fixed; i++)
        {
          guint32 v = g_array_index (cycle, guint32, i);
          if (self->nodes[v].kind == NODE_INST)
            {
              dissolve_instance (self, v);
              self->stats.n_instances_dissolved++;
              fixed = TRUE;
            }
        }
      if (!fixed || cycle->len == 0)
        {
          /* cannot happen with stream order alone; give up on the edges of the first node */
          guint32 v = cycle->len ? g_array_index (cycle, guint32, 0) : 0;
          while (self->nodes[v].n_in > 0)
            node_remove_in (self, v, 0);
          if (cycle->len == 0)
            break;
        }
    }
  g_array_free (cycle, TRUE);
}

WeftSolver *
weft_solver_new (WeftTrace *trace, GError **error)
{
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
  for (guint r = 0; r < self->n_ranks; r++)
    build_rank (self, r);
  build_instances (self);
  break_build_cycles (self);
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
      foreach_topo_pred (self, v, check_pred_cb, &c);
      if (!c.ok)
        return FALSE;
    }
  return n_live == self->n_order;
}

void
weft_solver_stats (WeftSolver *self, WeftSolverStats *out)
{
  *out = self->stats;
}

guint64
weft_solver_generation (WeftSolver *self)
{
  return self->generation;
}

/* ---- times ------------------------------------------------------------------- */

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

static gboolean
cpu_orig (WeftSolver *self, guint rank, guint32 event, gint64 *ts_out, gint64 *end_out, guint32 *lane_out)
{
  WeftRank *rk = weft_trace_rank (self->trace, rank);
  WeftEvent *ev;
  ThreadSyncs *ts;
  if (event >= rk->events->len)
    return FALSE;
  ev = weft_rank_event (rk, event);
  *lane_out = ev->lane;
  *ts_out = ev->ts;
  *end_out = weft_event_end (ev);
  if (ev->lane == WEFT_NONE || self->n_edits_applied == 0)
    return TRUE;   /* only weft_solver_apply_to_model changes a CPU event's times */
  ts = thread_syncs (self, rank, ev->lane);
  if (ts != NULL && ts->orig != NULL)
    {
      CpuOrig key = { event, 0, 0 };
      CpuOrig *found;
      found = bsearch (&key, ts->orig->data, ts->orig->len, sizeof (CpuOrig), cpu_orig_cmp);
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
      if (rec != NULL && annot_span (self, rank_index, rec, start, end, &lane))
        return;
    }
  if (rank_index >= self->n_ranks || !cpu_orig (self, rank_index, event, &ts, &te, &lane))
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
  if (is_member (self, v))
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
  if (is_member (self, v))
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
  GArray *o = rank_index < self->n_ranks ? lane_order (self, rank_index, lane) : NULL;
  return o ? o->len : 0;
}

guint32
weft_solver_lane_op (WeftSolver *self, guint rank_index, guint32 lane, guint position)
{
  GArray *o = rank_index < self->n_ranks ? lane_order (self, rank_index, lane) : NULL;
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

/* ---- edits ------------------------------------------------------------------- */

void
weft_solver_begin_batch (WeftSolver *self)
{
  self->batch++;
}

void
weft_solver_end_batch (WeftSolver *self)
{
  if (self->batch > 0)
    self->batch--;
  if (self->batch == 0)
    solve_pending (self);
}

static guint32
require_node (WeftSolver *self, guint rank_index, guint32 event, GError **error)
{
  guint32 v = _weft_solver_node (self, rank_index, event);
  if (v == WEFT_NONE)
    g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "solver: rank index %u event %u is not a GPU op", rank_index,
                 event);
  return v;
}

gboolean
weft_solver_set_duration (WeftSolver *self, guint rank_index, guint32 event, gint64 dur, GError **error)
{
  guint32 v = require_node (self, rank_index, event, error);
  if (v == WEFT_NONE)
    return FALSE;
  if (dur < 0)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "solver: negative duration %" G_GINT64_FORMAT " ns", dur);
      return FALSE;
    }
  if (is_member (self, v))
    {
      guint32 iv = self->nodes[v].inst;
      self->nodes[iv].dur = dur;
      _weft_solver_plan_refresh (self, iv);
      heap_push (self, iv);
    }
  else
    {
      self->nodes[v].dur = dur;
      _weft_solver_plan_refresh (self, v);
      heap_push (self, v);
    }
  maybe_solve (self);
  return TRUE;
}

gboolean
weft_solver_set_min_start (WeftSolver *self, guint rank_index, guint32 event, gint64 t, GError **error)
{
  guint32 v = require_node (self, rank_index, event, error);
  if (v == WEFT_NONE)
    return FALSE;
  self->nodes[v].min_start = t < 0 ? G_MININT64 : t;
  _weft_solver_plan_refresh (self, v);
  heap_push (self, v);
  maybe_solve (self);
  return TRUE;
}

static void
scale_node (WeftSolver *self, guint32 v, double factor)
{
  Node *n = &self->nodes[v];
  n->dur = (gint64) (n->dur * factor + 0.5);
  _weft_solver_plan_refresh (self, v);
  heap_push (self, v);
}

void
weft_solver_scale_class (WeftSolver *self, WeftKernelClass kclass, double factor)
{
  if (factor < 0)
    return;
  for (guint32 v = 0; v < self->n_nodes; v++)
    {
      Node *n = &self->nodes[v];
      if (n->flags & NODE_DELETED)
        continue;
      if (kclass == WEFT_KCLASS_COMM && n->kind == NODE_INST)
        scale_node (self, v, factor);
      else if (n->kind == NODE_OP && !is_member (self, v))
        {
          WeftRank *rank = weft_trace_rank (self->trace, n->rank);
          if (weft_rank_event (rank, n->event)->kclass == kclass)
            scale_node (self, v, factor);
        }
    }
  maybe_solve (self);
}

void
weft_solver_scale_collective (WeftSolver *self, WeftCollType type, double factor)
{
  if (factor < 0)
    return;
  for (guint32 v = 0; v < self->n_nodes; v++)
    {
      Node *n = &self->nodes[v];
      if (n->kind != NODE_INST || (n->flags & NODE_DELETED))
        continue;
      if (g_array_index (self->trace->instances, WeftCollInstance, n->event).type == type)
        scale_node (self, v, factor);
    }
  maybe_solve (self);
}

/* -- model structure helpers -- */

static void
model_lane_remove (WeftRank *rank, guint32 lane, guint32 event)
{
  WeftLane *l;
  if (lane == WEFT_NONE || lane >= rank->lanes->len)
    return;
  l = weft_rank_lane (rank, lane);
  for (guint i = 0; i < l->events->len; i++)
    if (g_array_index (l->events, guint32, i) == event)
      {
        g_array_remove_index (l->events, i);
        return;
      }
}

static void
model_lane_insert (WeftRank *rank, guint32 lane, guint32 event)
{
  WeftLane *l = weft_rank_lane (rank, lane);
  gint64 ts = weft_rank_event (rank, event)->ts;
  guint lo = 0, hi = l->events->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (weft_rank_event (rank, g_array_index (l->events, guint32, mid))->ts <= ts)
        lo = mid + 1;
      else
        hi = mid;
    }
  g_array_insert_val (l->events, lo, event);
}

static GArray *
ensure_lane_order (WeftSolver *self, guint rank, guint32 lane)
{
  GPtrArray *lanes = self->ranks[rank].lanes;
  while (lanes->len <= lane)
    g_ptr_array_add (lanes, NULL);
  if (g_ptr_array_index (lanes, lane) == NULL)
    g_ptr_array_index (lanes, lane) = g_array_new (FALSE, FALSE, sizeof (guint32));
  return g_ptr_array_index (lanes, lane);
}

static gboolean
check_gpu_lane (WeftSolver *self, guint rank_index, guint32 lane, GError **error)
{
  WeftRank *rank;
  if (rank_index >= self->n_ranks)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "solver: no rank index %u", rank_index);
      return FALSE;
    }
  rank = weft_trace_rank (self->trace, rank_index);
  if (lane >= rank->lanes->len || weft_rank_lane (rank, lane)->kind != WEFT_LANE_GPU)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "solver: rank %d: lane %u is not a GPU stream", rank->rank,
                   lane);
      return FALSE;
    }
  return TRUE;
}

static void
lane_detach (WeftSolver *self, guint32 v)
{
  Node *n = &self->nodes[v];
  GArray *o = lane_order (self, n->rank, n->lane);
  guint p = n->lane_pos;
  g_array_remove_index (o, p);
  renumber_lane (self, o, p);
}

static void
lane_attach (WeftSolver *self, guint32 v, guint32 lane, guint position)
{
  Node *n = &self->nodes[v];
  GArray *o = ensure_lane_order (self, n->rank, lane);
  if (position > o->len)
    position = o->len;
  g_array_insert_val (o, position, v);
  n->lane = lane;
  renumber_lane (self, o, position);
}

/* Marks the nodes whose predecessors changed around v's lane position. */
static void
dirty_around (WeftSolver *self, guint32 v)
{
  guint32 nx = _weft_solver_stream_next (self, v);
  heap_push (self, v);
  if (nx != WEFT_NONE)
    heap_push (self, nx);
}

/* The pending nodes are unordered until a solve reads their positions:
 * nothing to do when positions change. */
static inline void
heap_rekey (WeftSolver *self)
{
  (void) self;
}

typedef struct
{
  guint32 v;
  guint32 old_lane, old_pos, old_next;
  gboolean producer_edge;
} MoveUndo;

/* The structural part of a move, no topological check. Unless exact, an
 * op that changes stream keeps waiting for the op it followed. */
static void
move_apply (WeftSolver *self, guint32 v, guint32 lane, guint position, gboolean exact, MoveUndo *u)
{
  Node *n = &self->nodes[v];
  guint32 old_prev = _weft_solver_stream_prev (self, v);
  u->v = v;
  u->old_lane = n->lane;
  u->old_pos = n->lane_pos;
  u->old_next = _weft_solver_stream_next (self, v);
  u->producer_edge = FALSE;
  lane_detach (self, v);
  lane_attach (self, v, lane, position);
  if (!exact && lane != u->old_lane && old_prev != WEFT_NONE && !has_in_from (self, v, old_prev))
    {
      /* keep waiting for the producer it used to follow on its old stream */
      node_add_in (self, v, old_prev, WEFT_DEP_CROSS_STREAM, 0);
      self->nodes[v].in[self->nodes[v].n_in - 1].automatic = TRUE;
      u->producer_edge = TRUE;
    }
}

static void
move_revert (WeftSolver *self, const MoveUndo *u)
{
  if (u->producer_edge)
    node_remove_in (self, u->v, self->nodes[u->v].n_in - 1);
  lane_detach (self, u->v);
  lane_attach (self, u->v, u->old_lane, u->old_pos);
}

static void
move_finish (WeftSolver *self, const MoveUndo *u)
{
  Node *n = &self->nodes[u->v];
  self->generation++;
  guint32 lane = n->lane;
  if (lane != u->old_lane)
    {
      WeftRank *rank = weft_trace_rank (self->trace, n->rank);
      guint32 event = n->event;
      /* producer edges a former move added, now on this very stream: the
       * stream order covers them */
      for (guint i = n->n_in; i > 0; i--)
        if (n->in[i - 1].automatic && live (self, n->in[i - 1].src) && self->nodes[n->in[i - 1].src].lane == lane)
          {
            node_remove_in (self, u->v, i - 1);
            n = &self->nodes[u->v];
          }
      model_lane_remove (rank, u->old_lane, event);
      weft_rank_event (rank, event)->lane = lane;
      weft_rank_event (rank, event)->flags |= WEFT_EVENT_EDITED;
      model_lane_insert (rank, lane, event);
    }
  if (u->old_next != WEFT_NONE)
    heap_push (self, u->old_next);
  dirty_around (self, u->v);
}

gboolean
weft_solver_move_to_position (WeftSolver *self, guint rank_index, guint32 event, guint32 lane, guint position,
                              GError **error)
{
  WeftSolverMove m = { rank_index, event, lane, position, 0 };
  return weft_solver_move_many (self, &m, 1, error);
}

static guint position_for_time (WeftSolver *self, guint rank_index, guint32 lane, gint64 at_time, guint32 exclude);

gboolean
weft_solver_move_many (WeftSolver *self, const WeftSolverMove *moves, guint n_moves, GError **error)
{
  MoveUndo *undo;
  guint32 *nodes;
  gboolean ok;

  _weft_solver_sync (self);
  nodes = g_new (guint32, MAX (1, n_moves));
  for (guint i = 0; i < n_moves; i++)
    {
      nodes[i] = require_node (self, moves[i].rank_index, moves[i].event, error);
      if (nodes[i] == WEFT_NONE || !check_gpu_lane (self, moves[i].rank_index, moves[i].lane, error))
        {
          g_free (nodes);
          return FALSE;
        }
      for (guint j = 0; j < i; j++)
        if (nodes[j] == nodes[i])
          {
            g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "solver: rank index %u event %u moved twice",
                         moves[i].rank_index, moves[i].event);
            g_free (nodes);
            return FALSE;
          }
    }
  undo = g_new (MoveUndo, MAX (1, n_moves));
  for (guint i = 0; i < n_moves; i++)
    {
      guint position = moves[i].position;
      if (position == G_MAXUINT)
        position = position_for_time (self, moves[i].rank_index, moves[i].lane, moves[i].at_time, nodes[i]);
      move_apply (self, nodes[i], moves[i].lane, position, moves[i].exact, &undo[i]);
    }
  {
    /* only the incoming dependencies of these changed: repair the order locally */
    g_autoptr (GArray) cycle = g_array_new (FALSE, FALSE, sizeof (guint32));
    guint32 *touched = g_new (guint32, 3 * MAX (1, n_moves));
    for (guint i = 0; i < n_moves; i++)
      {
        touched[3 * i] = undo[i].v;
        touched[3 * i + 1] = _weft_solver_stream_next (self, undo[i].v);
        touched[3 * i + 2] = undo[i].old_next;
      }
    ok = pk_repair (self, touched, 3 * n_moves, cycle);
    g_free (touched);
    if (!ok)
      set_cycle_error (self, cycle, error);
  }
  if (!ok)
    {
      for (guint i = n_moves; i > 0; i--)
        move_revert (self, &undo[i - 1]);
    }
  else
    {
      heap_rekey (self);
      for (guint i = 0; i < n_moves; i++)
        move_finish (self, &undo[i]);
      maybe_solve (self);
    }
  g_free (undo);
  g_free (nodes);
  return ok;
}

static guint
position_for_time (WeftSolver *self, guint rank_index, guint32 lane, gint64 at_time, guint32 exclude)
{
  GArray *o = lane_order (self, rank_index, lane);
  guint pos = 0;
  if (o == NULL)
    return 0;
  /* first op (other than exclude) whose solved start is later than at_time */
  for (guint i = 0; i < o->len; i++)
    {
      guint32 u = g_array_index (o, guint32, i);
      if (u == exclude)
        continue;
      if (self->nodes[u].start > at_time)
        break;
      pos++;
    }
  return pos;
}

gboolean
weft_solver_move_to_lane (WeftSolver *self, guint rank_index, guint32 event, guint32 lane, gint64 at_time,
                          GError **error)
{
  guint32 v = require_node (self, rank_index, event, error);
  _weft_solver_sync (self);
  if (v == WEFT_NONE || !check_gpu_lane (self, rank_index, lane, error))
    return FALSE;
  return weft_solver_move_to_position (self, rank_index, event, lane,
                                       position_for_time (self, rank_index, lane, at_time, v), error);
}

guint32
weft_solver_ensure_stream (WeftSolver *self, guint rank_index, int device, gint64 stream)
{
  WeftRank *rank;
  char pid[32], tid[32];
  guint32 lane;
  WeftLane *l;
  if (rank_index >= self->n_ranks)
    return WEFT_NONE;
  rank = weft_trace_rank (self->trace, rank_index);
  g_snprintf (pid, sizeof pid, "%d", device);
  g_snprintf (tid, sizeof tid, "%" G_GINT64_FORMAT, stream);
  lane = weft_rank_ensure_lane (rank, pid, strlen (pid), tid, strlen (tid));
  l = weft_rank_lane (rank, lane);
  l->kind = WEFT_LANE_GPU;
  l->device = device;
  ensure_lane_order (self, rank_index, lane);
  return lane;
}

static guint32
model_new_event (WeftSolver *self, guint rank_index, guint32 lane, gint64 at_time, const WeftSolverOpSpec *spec)
{
  WeftRank *rank = weft_trace_rank (self->trace, rank_index);
  WeftEvent ev;
  guint32 idx = rank->events->len;
  const char *cat;
  memset (&ev, 0, sizeof ev);
  if (spec->like_event != WEFT_NONE && spec->like_event < rank->events->len)
    {
      ev = *weft_rank_event (rank, spec->like_event);
      if (spec->dur > 0)
        ev.dur = spec->dur;
    }
  else
    {
      WeftCategory category = spec->category ? spec->category : WEFT_CAT_KERNEL;
      cat = category == WEFT_CAT_GPU_MEMCPY ? "gpu_memcpy" : category == WEFT_CAT_GPU_MEMSET ? "gpu_memset" : "kernel";
      ev.name = weft_strings_intern (rank->strings, spec->name ? spec->name : "kernel", -1);
      ev.cat = weft_strings_intern (rank->strings, cat, -1);
      ev.category = (guint8) category;
      ev.kclass = (guint8) spec->kclass;
      ev.dur = MAX (0, spec->dur);
      ev.text = NULL;
      ev.text_len = 0;
    }
  ev.ts = at_time - self->ranks[rank_index].offset;
  ev.lane = lane;
  ev.ph = WEFT_PH_X;
  ev.flags = WEFT_EVENT_CREATED | WEFT_EVENT_EDITED | WEFT_EVENT_GPU_OP | WEFT_EVENT_HAS_DUR;
  ev.correlation = -1;
  ev.external_id = -1;
  ev.flow_id = -1;
  ev.link = WEFT_NONE;
  ev.coll = WEFT_NONE;
  g_array_append_val (rank->events, ev);
  return idx;
}

static guint32
new_op_node (WeftSolver *self, guint rank_index, guint32 lane, gint64 at_time, guint32 event, int step_like)
{
  WeftRank *rank = weft_trace_rank (self->trace, rank_index);
  WeftEvent *ev = weft_rank_event (rank, event);
  guint32 v = add_node (self, NODE_OP, rank_index, event);
  Node *n = &self->nodes[v];
  n->obs_start = at_time;
  n->obs_end = at_time + ev->dur;
  n->dur = ev->dur;
  n->release = at_time;
  n->release_kind = WEFT_DEP_USER;
  n->w_stream = self->ranks[rank_index].typ_gap;
  n->step = step_like;
  /* provisional times until solved (inside a batch); the caller pushes
   * what follows it so the first evaluation propagates */
  n->start = at_time;
  n->end = at_time + ev->dur;
  if (ev->kclass == WEFT_KCLASS_COMM)
    n->flags |= NODE_COMM;
  else if (ev->category == WEFT_CAT_GPU_MEMCPY || ev->category == WEFT_CAT_GPU_MEMSET)
    n->flags |= NODE_MEM;
  set_ev_node (self, rank_index, event, v);
  return v;
}

static int
step_near (WeftSolver *self, guint rank_index, guint32 lane, guint position)
{
  GArray *o = lane_order (self, rank_index, lane);
  if (o != NULL && o->len > 0)
    {
      guint p = MIN (position, o->len - 1);
      if (position > 0 && position <= o->len)
        p = position - 1;
      return self->nodes[g_array_index (o, guint32, p)].step;
    }
  return WEFT_SOLVER_ALL_STEPS;
}

guint32
weft_solver_insert_op (WeftSolver *self, guint rank_index, guint32 lane, gint64 at_time, const WeftSolverOpSpec *spec,
                       GError **error)
{
  WeftRank *rank;
  guint32 ev, v;
  guint position;
  _weft_solver_sync (self);
  if (spec == NULL)
    {
      g_set_error_literal (error, WEFT_ERROR, WEFT_ERROR_INVALID, "solver: insert without an op spec");
      return WEFT_NONE;
    }
  if (!check_gpu_lane (self, rank_index, lane, error))
    return WEFT_NONE;
  rank = weft_trace_rank (self->trace, rank_index);
  position = position_for_time (self, rank_index, lane, at_time, WEFT_NONE);
  ev = model_new_event (self, rank_index, lane, at_time, spec);
  v = new_op_node (self, rank_index, lane, at_time, ev, step_near (self, rank_index, lane, position));
  lane_attach (self, v, lane, position);
  if (!order_add_nodes (self, &v, 1, error))
    {
      /* cannot happen: a new op only splits a stream edge */
      lane_detach (self, v);
      _weft_solver_plan_invalidate (self);
      self->nodes[v].flags |= NODE_DELETED;
      weft_rank_event (rank, ev)->flags |= WEFT_EVENT_DELETED;
      return WEFT_NONE;
    }
  heap_rekey (self);
  model_lane_insert (rank, lane, ev);
  dirty_around (self, v);
  maybe_solve (self);
  return ev;
}

static const char *
default_coll_kernel (WeftCollType type)
{
  switch (type)
    {
    case WEFT_COLL_ALL_REDUCE: return "ncclDevKernel_AllReduce_Sum_bf16_RING_LL";
    case WEFT_COLL_ALL_GATHER: return "ncclDevKernel_AllGather_RING_LL";
    case WEFT_COLL_REDUCE_SCATTER: return "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL";
    case WEFT_COLL_BROADCAST: return "ncclDevKernel_Broadcast_RING_LL";
    case WEFT_COLL_REDUCE: return "ncclDevKernel_Reduce_Sum_bf16_RING_LL";
    default: return "ncclDevKernel_SendRecv";
    }
}

guint32
weft_solver_insert_collective (WeftSolver *self, const WeftSolverCollSpec *spec, const WeftSolverPlace *places,
                               guint n_places, guint32 *events_out, GError **error)
{
  WeftTrace *trace = self->trace;
  guint n_nodes0 = self->n_nodes;
  guint32 inst_idx = trace->instances->len;
  guint32 iv;
  guint *ev_len0, *coll_len0;
  int *rank_numbers;
  WeftCollInstance inst;
  gboolean ok;

  _weft_solver_sync (self);
  if (spec == NULL || places == NULL || n_places == 0)
    {
      g_set_error_literal (error, WEFT_ERROR, WEFT_ERROR_INVALID, "solver: collective without places");
      return WEFT_NONE;
    }
  for (guint i = 0; i < n_places; i++)
    {
      if (!check_gpu_lane (self, places[i].rank_index, places[i].lane, error))
        return WEFT_NONE;
      for (guint j = 0; j < i; j++)
        if (places[j].rank_index == places[i].rank_index)
          {
            g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "solver: collective placed twice on rank index %u",
                         places[i].rank_index);
            return WEFT_NONE;
          }
    }
  ev_len0 = g_new (guint, self->n_ranks);
  coll_len0 = g_new (guint, self->n_ranks);
  for (guint r = 0; r < self->n_ranks; r++)
    {
      ev_len0[r] = weft_trace_rank (trace, r)->events->len;
      coll_len0[r] = weft_trace_rank (trace, r)->collectives->len;
    }
  rank_numbers = g_new (int, n_places);
  for (guint i = 0; i < n_places; i++)
    rank_numbers[i] = weft_trace_rank (trace, places[i].rank_index)->rank;

  memset (&inst, 0, sizeof inst);
  inst.type = spec->type;
  inst.seq = -1;
  inst.method = WEFT_MATCH_PG_ORDINAL;
  inst.members = g_array_new (FALSE, FALSE, sizeof (WeftInstanceMember));
  iv = add_node (self, NODE_INST, places[0].rank_index, inst_idx);
  self->nodes[iv].members = g_new (guint32, n_places);
  self->nodes[iv].dur = MAX (0, spec->transfer_ns);
  for (guint i = 0; i < n_places; i++)
    {
      guint r = places[i].rank_index;
      WeftRank *rank = weft_trace_rank (trace, r);
      WeftSolverOpSpec os = { spec->kernel_name ? spec->kernel_name : default_coll_kernel (spec->type),
                              WEFT_CAT_KERNEL, WEFT_KCLASS_COMM, MAX (0, spec->transfer_ns), WEFT_NONE };
      guint position = position_for_time (self, r, places[i].lane, places[i].at_time, WEFT_NONE);
      guint32 ev = model_new_event (self, r, places[i].lane, places[i].at_time, &os);
      guint32 v = new_op_node (self, r, places[i].lane, places[i].at_time, ev,
                               step_near (self, r, places[i].lane, position));
      WeftCollective c;
      WeftInstanceMember m = { r, rank->collectives->len };
      memset (&c, 0, sizeof c);
      c.event = ev;
      c.cpu_event = WEFT_NONE;
      c.type = spec->type;
      c.source = WEFT_COLL_SOURCE_KERNEL_ARGS;
      c.in_nelems = c.out_nelems = -1;
      c.bytes = spec->bytes;
      c.dtype = spec->dtype ? weft_strings_intern (rank->strings, spec->dtype, -1) : 0;
      c.group_size = (int) n_places;
      c.pg_name = weft_strings_intern (rank->strings, spec->pg_name ? spec->pg_name : "weft", -1);
      c.pg_desc = spec->pg_desc ? weft_strings_intern (rank->strings, spec->pg_desc, -1) : 0;
      c.pg_ranks = g_memdup2 (rank_numbers, n_places * sizeof (int));
      c.n_pg_ranks = n_places;
      c.seq = -1;
      c.src_rank = c.dst_rank = -1;
      c.instance = inst_idx;
      g_array_append_val (rank->collectives, c);
      weft_rank_event (rank, ev)->coll = m.coll;
      g_array_append_val (inst.members, m);
      _weft_solver_plan_invalidate (self);
      self->nodes[v].inst = iv;
      self->nodes[iv].members[self->nodes[iv].n_members++] = v;
      lane_attach (self, v, places[i].lane, position);
      if (events_out)
        events_out[i] = ev;
    }
  inst.pg_name_rank0 = g_array_index (weft_trace_rank (trace, places[0].rank_index)->collectives, WeftCollective,
                                      coll_len0[places[0].rank_index]).pg_name;
  g_array_append_val (trace->instances, inst);
  g_array_append_val (self->inst_node, iv);

  {
    /* the members, then their instance */
    guint32 *added = g_new (guint32, self->n_nodes - n_nodes0);
    guint k = 0;
    for (guint32 v = n_nodes0; v < self->n_nodes; v++)
      if (self->nodes[v].kind == NODE_OP)
        added[k++] = v;
    added[k++] = iv;
    ok = order_add_nodes (self, added, k, error);
    g_free (added);
  }
  if (!ok)
    {
      /* roll everything back: nodes, model events, collectives, instance */
      for (guint32 v = n_nodes0; v < self->n_nodes; v++)
        if (self->nodes[v].kind == NODE_OP)
          {
            lane_detach (self, v);
            set_ev_node (self, self->nodes[v].rank, self->nodes[v].event, WEFT_NONE);
          }
      for (guint32 v = n_nodes0; v < self->n_nodes; v++)
        {
          g_free (self->nodes[v].in);
          g_free (self->nodes[v].out);
          g_free (self->nodes[v].members);
        }
      self->n_nodes = n_nodes0;
      for (guint r = 0; r < self->n_ranks; r++)
        {
          WeftRank *rank = weft_trace_rank (trace, r);
          g_array_set_size (rank->events, ev_len0[r]);
          g_array_set_size (rank->collectives, coll_len0[r]);
        }
      g_array_set_size (trace->instances, inst_idx);
      g_array_set_size (self->inst_node, inst_idx);
      g_free (ev_len0);
      g_free (coll_len0);
      g_free (rank_numbers);
      /* the order is as it was */
      return WEFT_NONE;
    }
  heap_rekey (self);
  for (guint i = 0; i < n_places; i++)
    {
      WeftRank *rank = weft_trace_rank (trace, places[i].rank_index);
      guint32 ev = rank->events->len - 1;
      model_lane_insert (rank, places[i].lane, ev);
    }
  for (guint32 v = n_nodes0; v < self->n_nodes; v++)
    if (self->nodes[v].kind == NODE_OP)
      dirty_around (self, v);
  heap_push (self, iv);
  g_free (ev_len0);
  g_free (coll_len0);
  g_free (rank_numbers);
  maybe_solve (self);
  return inst_idx;
}

static void
remove_one (WeftSolver *self, guint32 v)
{
  Node *n = &self->nodes[v];
  WeftRank *rank = weft_trace_rank (self->trace, n->rank);
  guint32 nx = _weft_solver_stream_next (self, v);
  n->removed_lane = n->lane;
  n->removed_pos = n->lane_pos;
  lane_detach (self, v);
  _weft_solver_plan_invalidate (self);
  self->nodes[v].flags |= NODE_DELETED;
  weft_rank_event (rank, n->event)->flags |= WEFT_EVENT_DELETED | WEFT_EVENT_EDITED;
  model_lane_remove (rank, n->lane, n->event);
  if (nx != WEFT_NONE)
    heap_push (self, nx);
  for (guint i = 0; i < n->n_out; i++)
    heap_push (self, n->out[i]);
}

gboolean
weft_solver_remove_op (WeftSolver *self, guint rank_index, guint32 event, GError **error)
{
  guint32 v = require_node (self, rank_index, event, error);
  _weft_solver_sync (self);
  if (v == WEFT_NONE)
    return FALSE;
  if (is_member (self, v))
    {
      guint32 iv = self->nodes[v].inst;
      Node *in = &self->nodes[iv];
      for (guint i = 0; i < in->n_members; i++)
        if (live (self, in->members[i]))
          {
            remove_one (self, in->members[i]);
            order_remove (self, in->members[i]);
          }
      _weft_solver_plan_invalidate (self);
      self->nodes[iv].flags |= NODE_DELETED;
      order_remove (self, iv);
    }
  else
    {
      remove_one (self, v);
      order_remove (self, v);
    }
  /* removing cannot create a cycle: the order stays valid */
  heap_rekey (self);
  self->generation++;
  maybe_solve (self);
  return TRUE;
}

static void
restore_one (WeftSolver *self, guint32 v)
{
  Node *n = &self->nodes[v];
  WeftRank *rank = weft_trace_rank (self->trace, n->rank);
  _weft_solver_plan_invalidate (self);
  n->flags &= ~NODE_DELETED;
  lane_attach (self, v, n->removed_lane, n->removed_pos);
  weft_rank_event (rank, n->event)->flags &= ~WEFT_EVENT_DELETED;
  model_lane_insert (rank, n->removed_lane, n->event);
  dirty_around (self, v);
  for (guint i = 0; i < self->nodes[v].n_out; i++)
    heap_push (self, self->nodes[v].out[i]);
}

gboolean
weft_solver_restore_op (WeftSolver *self, guint rank_index, guint32 event, GError **error)
{
  GArray *map;
  guint32 v, iv;
  _weft_solver_sync (self);
  if (rank_index >= self->n_ranks)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "solver: no rank index %u", rank_index);
      return FALSE;
    }
  map = self->ranks[rank_index].ev_node;
  v = event < map->len ? g_array_index (map, guint32, event) : WEFT_NONE;
  if (v == WEFT_NONE || self->nodes[v].kind != NODE_OP || !(self->nodes[v].flags & NODE_DELETED) ||
      self->nodes[v].removed_lane == WEFT_NONE)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "solver: rank index %u event %u is not a removed GPU op",
                   rank_index, event);
      return FALSE;
    }
  iv = self->nodes[v].inst;
  {
    g_autoptr (GArray) added = g_array_new (FALSE, FALSE, sizeof (guint32));
    if (iv != WEFT_NONE)
      {
        Node *in = &self->nodes[iv];
        _weft_solver_plan_invalidate (self);
        in->flags &= ~NODE_DELETED;
        for (guint i = 0; i < in->n_members; i++)
          if (self->nodes[in->members[i]].flags & NODE_DELETED)
            {
              guint32 m = self->nodes[iv].members[i];
              restore_one (self, m);
              g_array_append_val (added, m);
            }
        g_array_append_val (added, iv);
        heap_push (self, iv);
      }
    else
      {
        restore_one (self, v);
        g_array_append_val (added, v);
      }
    if (!order_add_nodes (self, (const guint32 *) (void *) added->data, added->len, error))
      {
        /* put it back out */
        for (guint i = 0; i < added->len; i++)
          {
            guint32 a = g_array_index (added, guint32, i);
            _weft_solver_plan_invalidate (self);
            if (self->nodes[a].kind == NODE_INST)
              self->nodes[a].flags |= NODE_DELETED;
            else
              remove_one (self, a);
          }
        heap_rekey (self);
        return FALSE;
      }
  }
  heap_rekey (self);
  maybe_solve (self);
  return TRUE;
}

gboolean
weft_solver_add_dependency (WeftSolver *self, guint from_rank, guint32 from_event, guint to_rank, guint32 to_event,
                            gint64 gap, GError **error)
{
  guint32 f = require_node (self, from_rank, from_event, error);
  guint32 t = f == WEFT_NONE ? WEFT_NONE : require_node (self, to_rank, to_event, error);
  _weft_solver_sync (self);
  if (t == WEFT_NONE)
    return FALSE;
  if (f == t)
    {
      g_set_error_literal (error, WEFT_ERROR, WEFT_ERROR_CYCLE, "dependency cycle: an op cannot wait for itself");
      return FALSE;
    }
  node_add_in (self, t, f, WEFT_DEP_EXPLICIT, gap);
  {
    g_autoptr (GArray) cycle = g_array_new (FALSE, FALSE, sizeof (guint32));
    if (!pk_repair (self, &t, 1, cycle))
      {
        set_cycle_error (self, cycle, error);
        node_remove_in (self, t, self->nodes[t].n_in - 1);
        return FALSE;
      }
  }
  heap_rekey (self);
  self->generation++;
  heap_push (self, t);
  maybe_solve (self);
  return TRUE;
}

gboolean
weft_solver_remove_dependency (WeftSolver *self, guint from_rank, guint32 from_event, guint to_rank, guint32 to_event)
{
  guint32 f = _weft_solver_node (self, from_rank, from_event);
  guint32 t = _weft_solver_node (self, to_rank, to_event);
  gboolean removed = FALSE;
  _weft_solver_sync (self);
  if (f == WEFT_NONE || t == WEFT_NONE)
    return FALSE;
  for (guint i = self->nodes[t].n_in; i > 0; i--)
    if (self->nodes[t].in[i - 1].src == f && self->nodes[t].in[i - 1].kind != WEFT_DEP_LAUNCH)
      {
        node_remove_in (self, t, i - 1);
        removed = TRUE;
      }
  if (removed)
    {
      /* fewer dependencies: the order stays valid */
      self->generation++;
      heap_push (self, t);
      maybe_solve (self);
    }
  return removed;
}

/* ---- apply to model ------------------------------------------------------------ */

/* Launches for the ops an edit created (an insert, a duplicate), as
 * Kineto records a launch: a cudaLaunchKernel runtime event on the rank's
 * launching thread, sharing a fresh correlation and External id with the
 * op, and the ac2g flow between them; re-timed with the op on each apply,
 * removed with it. It is placed earlier than the usual launch latency by
 * more than the 50 us after which a start counts as unexplained, so that
 * reopened the launch does not decide the op's start: what held it in the
 * session does (its stream predecessor, or the minimum start its
 * "weft held" mark gives back). */

/* Where the launches of the ops an edit created go (common timeline), as
 * (node, time) pairs sorted by node: the lead before the op, but before
 * the launch of the next op of its stream that has a launch of its own (a
 * stream runs its ops in launch order: reopened, a sync on that stream
 * reads the same target), and at least WEFT_CREATED_LAUNCH_SPACING_NS
 * apart on their thread (their slices, the record_param_comms and
 * nccl:* annotation of a collective's, never partly overlap, and each
 * flow binds to its own launch). */
#define WEFT_CREATED_LAUNCH_SPACING_NS 7000
typedef struct
{
  guint32 node;
  gint64  t;
} CreatedLaunch;

static int
created_launch_by_time (gconstpointer a, gconstpointer b)
{
  const CreatedLaunch *x = a, *y = b;
  if (x->t != y->t)
    return x->t < y->t ? -1 : 1;
  return x->node < y->node ? -1 : x->node > y->node;
}

static int
created_launch_by_node (gconstpointer a, gconstpointer b)
{
  const CreatedLaunch *x = a, *y = b;
  return x->node < y->node ? -1 : x->node > y->node;
}

static GArray *
created_launch_times (WeftSolver *self, guint r)
{
  WeftRank *rank = weft_trace_rank (self->trace, r);
  RankState *rs = &self->ranks[r];
  gint64 lat = _weft_solver_created_launch_lead (self, r);
  GArray *out = g_array_new (FALSE, FALSE, sizeof (CreatedLaunch));

  for (guint li = 0; li < rs->lanes->len; li++)
    {
      GArray *o = g_ptr_array_index (rs->lanes, li);
      gint64 next = G_MAXINT64; /* the next launch of the stream, as written */
      for (guint j = o != NULL ? o->len : 0; j > 0; j--)
        {
          guint32 v = g_array_index (o, guint32, j - 1);
          const Node *n = &self->nodes[v];
          const WeftEvent *ev = weft_rank_event (rank, n->event);
          if ((ev->flags & WEFT_EVENT_CREATED) && (ev->flags & WEFT_EVENT_GPU_OP))
            {
              CreatedLaunch c = { v, MIN (n->start - lat, next == G_MAXINT64 ? G_MAXINT64 : next - 1000) };
              g_array_append_val (out, c);
              next = MIN (next, c.t);
            }
          else if (n->launch_time != G_MININT64 && n->launch < rank->events->len)
            {
              guint32 ll = weft_rank_event (rank, n->launch)->lane;
              next = MIN (next, n->launch_time + (ll != WEFT_NONE ? _weft_solver_shift (self, r, ll, n->launch_time) : 0));
            }
        }
    }
  g_array_sort (out, created_launch_by_time);
  for (guint k = out->len; k > 1; k--)
    {
      CreatedLaunch *a = &g_array_index (out, CreatedLaunch, k - 2), *b = &g_array_index (out, CreatedLaunch, k - 1);
      a->t = MIN (a->t, b->t - WEFT_CREATED_LAUNCH_SPACING_NS);
    }
  g_array_sort (out, created_launch_by_node);
  return out;
}

static gint64
created_launch_lookup (GArray *times, guint32 v)
{
  CreatedLaunch key = { v, 0 }, *hit;
  hit = bsearch (&key, times->data, times->len, sizeof (CreatedLaunch), created_launch_by_node);
  return hit != NULL ? hit->t : G_MININT64;
}

gint64
_weft_solver_created_launch_time (WeftSolver *self, guint32 v)
{
  GArray *times = created_launch_times (self, self->nodes[v].rank);
  gint64 t = created_launch_lookup (times, v);
  g_array_free (times, TRUE);
  return t;
}

static void
apply_created_launches (WeftSolver *self, guint r, gboolean *dirty)
{
  GArray *times = created_launch_times (self, r);
  WeftRank *rank = weft_trace_rank (self->trace, r);
  RankState *rs = &self->ranks[r];
  gint64 next_id = G_MININT64;
  guint32 cpu = WEFT_NONE;

  for (guint li = 0; li < rs->lanes->len; li++)
    {
      GArray *o = g_ptr_array_index (rs->lanes, li);
      for (guint j = 0; o != NULL && j < o->len; j++)
        {
          Node *n = &self->nodes[g_array_index (o, guint32, j)];
          WeftEvent *ev = weft_rank_event (rank, n->event), *call;
          guint32 ci, si, fi, op_lane, op_coll;
          gint64 op_ts, call_ts;
          WeftFlow flow;
          if (!(ev->flags & WEFT_EVENT_CREATED) || !(ev->flags & WEFT_EVENT_GPU_OP))
            continue;
          if (ev->link != WEFT_NONE)
            {
              /* made by an earlier apply: follows the op */
              call = weft_rank_event (rank, ev->link);
              gint64 at = created_launch_lookup (times, g_array_index (o, guint32, j)) - rs->offset;
              if ((call->flags & WEFT_EVENT_CREATED) && call->ts != at)
                {
                  gint64 d = at - call->ts;
                  call->ts += d;
                  if (call->lane < rank->lanes->len)
                    dirty[call->lane] = TRUE;
                  /* its record_param_comms and nccl:* annotation */
                  for (guint32 k = ev->link + 3; k < ev->link + 5 && k < rank->events->len; k++)
                    {
                      WeftEvent *p = weft_rank_event (rank, k);
                      if ((p->flags & WEFT_EVENT_CREATED) && p->link == n->event &&
                          (p->category == WEFT_CAT_CPU_OP || p->category == WEFT_CAT_USER_ANNOTATION))
                        p->ts += d;
                    }
                }
              continue;
            }
          if (cpu == WEFT_NONE)
            {
              /* the thread that launched the most ops */
              g_autofree guint *count = g_new0 (guint, MAX (1, rank->lanes->len));
              guint best = 0;
              for (guint i = 0; i < rank->events->len; i++)
                {
                  const WeftEvent *e = weft_rank_event (rank, i);
                  if ((e->flags & WEFT_EVENT_LAUNCH) && e->lane < rank->lanes->len && ++count[e->lane] > best)
                    best = count[e->lane], cpu = e->lane;
                  next_id = MAX (next_id, MAX (e->correlation, e->external_id));
                }
              if (cpu == WEFT_NONE)
                {
                  g_array_free (times, TRUE);
                  return; /* no CPU thread launches anything: a GPU-only trace */
                }
              next_id = MAX (next_id, 0) + 1;
              /* a thread of its own, next to that one: launches on the
               * launching thread itself would change which stream its
               * syncs are inferred to wait for when the trace is reopened */
              {
                const WeftLane *main_lane = weft_rank_lane (rank, cpu);
                const char *pid = weft_rank_string (rank, main_lane->pid_text);
                gint64 tid = 0;
                char tid_text[32];
                WeftLane *l;
                for (guint k = 0; k < rank->lanes->len; k++)
                  {
                    const WeftLane *other = weft_rank_lane (rank, k);
                    if (other->pid_text == main_lane->pid_text && other->tid != G_MININT64)
                      tid = MAX (tid, other->tid);
                  }
                g_snprintf (tid_text, sizeof tid_text, "%" G_GINT64_FORMAT, tid + 1);
                cpu = weft_rank_ensure_lane (rank, pid, strlen (pid), tid_text, strlen (tid_text));
                l = weft_rank_lane (rank, cpu);
                l->kind = WEFT_LANE_CPU;
                l->device = -1;
              }
            }
          ci = rank->events->len;
          op_ts = ev->ts;
          call_ts = created_launch_lookup (times, g_array_index (o, guint32, j)) - rs->offset;
          op_lane = ev->lane;
          op_coll = ev->coll != WEFT_NONE && ev->coll < rank->collectives->len &&
                            g_array_index (rank->collectives, WeftCollective, ev->coll).event == n->event
                        ? ev->coll
                        : WEFT_NONE;
          {
            /* appending may move the array: ev is read back after */
            WeftEvent c = { 0 };
            c.ts = call_ts;
            c.dur = 2000;
            c.name = weft_strings_intern (rank->strings, "cudaLaunchKernel", -1);
            c.cat = weft_strings_intern (rank->strings, "cuda_runtime", -1);
            c.category = WEFT_CAT_CUDA_RUNTIME;
            c.ph = WEFT_PH_X;
            c.lane = cpu;
            c.flags = WEFT_EVENT_CREATED | WEFT_EVENT_EDITED | WEFT_EVENT_LAUNCH | WEFT_EVENT_HAS_DUR;
            c.correlation = next_id;
            c.external_id = next_id;
            c.flow_id = -1;
            c.link = n->event;
            c.coll = WEFT_NONE;
            g_array_append_val (rank->events, c);
            c.ph = WEFT_PH_S;
            c.dur = 0;
            c.name = c.cat = weft_strings_intern (rank->strings, "ac2g", -1);
            c.category = WEFT_CAT_AC2G;
            c.flags = WEFT_EVENT_CREATED | WEFT_EVENT_EDITED;
            c.correlation = c.external_id = -1;
            c.flow_id = next_id;
            c.link = WEFT_NONE;
            g_array_append_val (rank->events, c);
            c.ts = op_ts;
            c.ph = WEFT_PH_F;
            c.lane = op_lane;
            c.flags = WEFT_EVENT_CREATED | WEFT_EVENT_EDITED | WEFT_EVENT_BP_E;
            g_array_append_val (rank->events, c);
            if (op_coll != WEFT_NONE)
              {
                /* a collective: ProcessGroupNCCL's record_param_comms
                 * (with the collective's args, written by the saver) and
                 * the nccl:<name> annotation around the launch */
                const WeftCollective *col = &g_array_index (rank->collectives, WeftCollective, op_coll);
                g_autofree char *annot = g_strdup_printf ("nccl:%s", weft_coll_type_to_string (col->type));
                c.ts = call_ts - 1000;
                c.dur = 4000;
                c.lane = cpu;
                c.ph = WEFT_PH_X;
                c.name = weft_strings_intern (rank->strings, "record_param_comms", -1);
                c.cat = weft_strings_intern (rank->strings, "cpu_op", -1);
                c.category = WEFT_CAT_CPU_OP;
                c.flags = WEFT_EVENT_CREATED | WEFT_EVENT_EDITED | WEFT_EVENT_HAS_DUR;
                c.flow_id = -1;
                c.external_id = next_id;
                c.link = n->event;
                c.coll = op_coll;
                g_array_append_val (rank->events, c);
                c.ts = call_ts - 2000;
                c.dur = 6000;
                c.name = weft_strings_intern (rank->strings, annot, -1);
                c.cat = weft_strings_intern (rank->strings, "user_annotation", -1);
                c.category = WEFT_CAT_USER_ANNOTATION;
                c.coll = WEFT_NONE;
                g_array_append_val (rank->events, c);
              }
          }
          si = ci + 1;
          fi = ci + 2;
          ev = weft_rank_event (rank, n->event); /* the array may have moved */
          ev->correlation = next_id;
          ev->external_id = next_id;
          ev->link = ci;
          next_id++;
          model_lane_insert (rank, cpu, ci);
          model_lane_insert (rank, cpu, si);
          model_lane_insert (rank, op_lane, fi);
          for (guint32 k = fi + 1; k < rank->events->len; k++)
            model_lane_insert (rank, cpu, k); /* record_param_comms, nccl:* */
          flow.category = WEFT_CAT_AC2G;
          flow.id = ev->correlation;
          flow.start = si;
          flow.end = fi;
          flow.from = ci;
          flow.to = n->event;
          g_array_append_val (rank->flows, flow);
          if (rs->ev_node->len < rank->events->len)
            set_ev_node (self, r, rank->events->len - 1, WEFT_NONE);
          dirty[cpu] = TRUE;
          dirty[ev->lane] = TRUE;
        }
    }
  g_array_free (times, TRUE);
}

void
weft_solver_apply_to_model (WeftSolver *self)
{
  _weft_solver_sync (self);
  for (guint r = 0; r < self->n_ranks; r++)
    {
      WeftRank *rank = weft_trace_rank (self->trace, r);
      RankState *rs = &self->ranks[r];
      /* one more: apply_created_launches may add the lane of their launches */
      gboolean *dirty = g_new0 (gboolean, rank->lanes->len + 1);
      GHashTableIter it;
      gpointer value;

      for (guint li = 0; li < rs->lanes->len; li++)
        {
          GArray *o = g_ptr_array_index (rs->lanes, li);
          if (o == NULL)
            continue;
          for (guint j = 0; j < o->len; j++)
            {
              Node *n = &self->nodes[g_array_index (o, guint32, j)];
              WeftEvent *ev = weft_rank_event (rank, n->event);
              gint64 ts = n->start - rs->offset, dur = n->end - n->start;
              /* a zero-length op an edit created (a stream wait) that the
               * next op of its stream starts with is written 1 ns before
               * it: in the same nanosecond Perfetto would nest it in that
               * op and bind the op's launch flow to it */
              if (dur == 0 && (ev->flags & WEFT_EVENT_CREATED) && j + 1 < o->len &&
                  self->nodes[g_array_index (o, guint32, j + 1)].start == n->start)
                ts--;
              if (ev->ts != ts || ev->dur != dur)
                {
                  ev->ts = ts;
                  ev->dur = dur;
                  ev->flags |= WEFT_EVENT_EDITED | WEFT_EVENT_HAS_DUR;
                  if (li < rank->lanes->len)
                    dirty[li] = TRUE;
                }
            }
        }
      /* CPU threads that wait on syncs shift with them */
      g_hash_table_iter_init (&it, rs->threads);
      while (g_hash_table_iter_next (&it, NULL, &value))
        {
          ThreadSyncs *ts = value;
          for (guint j = 0; ts->orig && j < ts->orig->len; j++)
            {
              const CpuOrig *o = &g_array_index (ts->orig, CpuOrig, j);
              WeftEvent *ev = weft_rank_event (rank, o->event);
              gint64 a = o->ts + _weft_solver_shift (self, r, ts->lane, o->ts + rs->offset);
              gint64 b = o->end + _weft_solver_shift (self, r, ts->lane, o->end + rs->offset);
              if (b < a)
                b = a;
              if (ev->ts != a || weft_event_end (ev) != b)
                {
                  ev->ts = a;
                  ev->dur = b - a;
                  ev->flags |= WEFT_EVENT_EDITED;
                  dirty[ts->lane] = TRUE;
                }
            }
        }
      /* An op held back by a user minimum start (a drag, a shift) starts
       * where nothing in the trace explains: it is marked, and saved with
       * args "weft held" (save.c), which the graph of the reopened trace
       * reads as the same minimum start (build_rank). */
      for (guint li = 0; li < rs->lanes->len; li++)
        {
          GArray *o = g_ptr_array_index (rs->lanes, li);
          for (guint j = 0; o != NULL && j < o->len; j++)
            {
              Node *n = &self->nodes[g_array_index (o, guint32, j)];
              WeftEvent *ev = weft_rank_event (rank, n->event);
              /* also a dependency an edit added (weft_solver_add_dependency;
               * the wait a stream move keeps, how Apply a Strategy builds
               * its waits): the file has no event for it */
              gboolean held = n->bind_kind == WEFT_DEP_USER || n->bind_kind == WEFT_DEP_EXPLICIT;
              for (guint e = 0; !held && n->bind_pred != WEFT_NONE && e < n->n_in; e++)
                held = n->in[e].automatic && n->in[e].src == n->bind_pred && n->in[e].kind == n->bind_kind;
              if (held == ((ev->flags & WEFT_EVENT_HELD) != 0))
                continue;
              if (held)
                ev->flags |= WEFT_EVENT_HELD | WEFT_EVENT_EDITED;
              else
                ev->flags = (guint8) ((ev->flags & ~WEFT_EVENT_HELD) | WEFT_EVENT_EDITED);
            }
        }
      apply_created_launches (self, r, dirty);
      /* the ProfilerStep annotations span the step as the session times it
       * (moved with their thread, their end pushed by the step's GPU
       * work): reopened, the step time is the same */
      for (guint k = 0; k < rank->steps->len; k++)
        {
          WeftStep *st = &g_array_index (rank->steps, WeftStep, k);
          WeftMetrics m;
          WeftEvent *ev;
          if (st->event >= rank->events->len || !weft_solver_metrics (self, r, st->number, &m) ||
              m.step_source != WEFT_STEP_TIME_PROFILER_STEP)
            continue;
          ev = weft_rank_event (rank, st->event);
          if (ev->ts == m.begin - rs->offset && ev->dur == m.end - m.begin)
            continue;
          ev->ts = m.begin - rs->offset;
          ev->dur = m.end - m.begin;
          ev->flags |= WEFT_EVENT_EDITED | WEFT_EVENT_HAS_DUR;
          st->begin = ev->ts;
          st->end = weft_event_end (ev);
          if (ev->lane != WEFT_NONE && ev->lane < rank->lanes->len)
            dirty[ev->lane] = TRUE;
        }
      /* annotations cover their ops where they are now */
      for (guint k = 0; rs->annots != NULL && k < rs->annots->len; k++)
        {
          const AnnotRec *rec = &g_array_index (rs->annots, AnnotRec, k);
          WeftEvent *ev = weft_rank_event (rank, rec->event);
          gint64 s, e;
          guint32 lane;
          if (!annot_span (self, r, rec, &s, &e, &lane))
            {
              /* every op it covered is gone: so is it */
              if (!(ev->flags & WEFT_EVENT_DELETED))
                {
                  ev->flags |= WEFT_EVENT_DELETED | WEFT_EVENT_EDITED;
                  if (ev->lane < rank->lanes->len)
                    dirty[ev->lane] = TRUE;
                }
              continue;
            }
          if (ev->flags & WEFT_EVENT_DELETED)
            ev->flags &= ~WEFT_EVENT_DELETED; /* an op of it came back (undo) */
          s -= rs->offset;
          e -= rs->offset;
          if (ev->ts == s && ev->dur == e - s && ev->lane == lane)
            continue;
          if (ev->lane != lane)
            {
              model_lane_remove (rank, ev->lane, rec->event);
              if (ev->lane < rank->lanes->len)
                dirty[ev->lane] = TRUE;
              ev->lane = lane;
              model_lane_insert (rank, lane, rec->event);
            }
          ev->ts = s;
          ev->dur = e - s;
          ev->flags |= WEFT_EVENT_EDITED | WEFT_EVENT_HAS_DUR;
          dirty[lane] = TRUE;
        }
      for (guint li = 0; li < rank->lanes->len; li++)
        if (dirty[li])
          weft_lane_sort (rank, weft_rank_lane (rank, li));
      g_free (dirty);
    }
  self->n_edits_applied++;
}

