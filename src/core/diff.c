/* diff.c: comparing two traces (weft-diff.h): ranks paired by number, the
 * ops of the step matched between the sides, the figures of both (the
 * solver's metrics and breakdown, never recomputed here) and the summary
 * sentence. Definitions in docs/solver.md, "Comparing two traces". */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "weft/weft-diff.h"

/* peer[] of an op: its counterpart's event, or one of these */
#define PEER_NOT_COMPARED WEFT_NONE
#define PEER_UNMATCHED    (WEFT_NONE - 1)

typedef struct
{
  WeftSolver *solver;
  WeftTrace  *trace;
  int         step;
  gboolean    has_whole;
  WeftMetrics whole;
  GPtrArray  *peer;       /* per rank index: GArray of guint32 per event (PEER_* or the other side's event) */
  GArray     *pair_of;    /* per rank index: guint index into ranks, G_MAXUINT none */
  gint64      first_coll; /* start of the first compared collective, G_MAXINT64 none */
  gint64      origin;     /* the step's start (whole.begin), 0 without one */
} Side;

struct _WeftDiff
{
  Side    side[2];
  GArray *ranks;          /* WeftDiffRank, by rank number */
  GArray *matches;        /* WeftDiffMatch */
  GArray *kernel_rows;    /* WeftDiffRow */
  GArray *coll_rows;
  WeftDiffCounts counts;
};

/* One op of a side being matched. */
typedef struct
{
  guint32     event;
  const char *name;
  gint64      start;
  gint64      seq;
  char       *key;        /* collectives: type and process group (owned) */
} Op;

const char *
weft_diff_align_to_string (WeftDiffAlign align)
{
  switch (align)
    {
    case WEFT_DIFF_ALIGN_FIRST_COLLECTIVE: return "first-collective";
    case WEFT_DIFF_ALIGN_ABSOLUTE: return "absolute";
    case WEFT_DIFF_ALIGN_STEP:
    default: return "step";
    }
}

gboolean
weft_diff_align_from_string (const char *text, WeftDiffAlign *out)
{
  g_return_val_if_fail (out != NULL, FALSE);
  if (text == NULL)
    return FALSE;
  if (strcmp (text, "step") == 0 || strcmp (text, "step-start") == 0)
    *out = WEFT_DIFF_ALIGN_STEP;
  else if (strcmp (text, "first-collective") == 0 || strcmp (text, "collective") == 0)
    *out = WEFT_DIFF_ALIGN_FIRST_COLLECTIVE;
  else if (strcmp (text, "absolute") == 0)
    *out = WEFT_DIFF_ALIGN_ABSOLUTE;
  else
    return FALSE;
  return TRUE;
}

const char *
weft_diff_match_kind_to_string (WeftDiffMatchKind kind)
{
  switch (kind)
    {
    case WEFT_DIFF_MATCH_RANK: return "rank";
    case WEFT_DIFF_MATCH_COLLECTIVE: return "collective";
    case WEFT_DIFF_MATCH_STREAM:
    default: return "stream";
    }
}

/* ---- the ops of a rank ------------------------------------------------------- */

static void
op_clear (gpointer data)
{
  g_free (((Op *) data)->key);
}

static GArray *
ops_new (void)
{
  GArray *a = g_array_new (FALSE, FALSE, sizeof (Op));
  g_array_set_clear_func (a, op_clear);
  return a;
}

static gboolean
is_collective (WeftRank *rank, const WeftEvent *ev)
{
  return weft_event_coll (rank, ev) != WEFT_NONE && weft_event_coll (rank, ev) < rank->collectives->len;
}

/* The process group a collective is known by: its description (the
 * same across runs, e.g. "mesh_dp_shard"), else its name. */
static const char *
coll_group (WeftRank *rank, const WeftCollective *c)
{
  const char *desc = c->pg_desc ? weft_rank_string (rank, c->pg_desc) : "";
  if (desc[0] != '\0' && strcmp (desc, "undefined") != 0)
    return desc;
  return c->pg_name ? weft_rank_string (rank, c->pg_name) : "";
}

/* Marks the compared ops of rank index r of a side (PEER_UNMATCHED) and
 * returns the collectives among them. */
static GArray *
side_mark_rank (Side *s, guint r)
{
  WeftRank *rank = weft_trace_rank (s->trace, r);
  GArray *peer = g_ptr_array_index (s->peer, r);
  GArray *colls = ops_new ();

  for (guint32 li = 0; li < rank->lanes->len; li++)
    {
      guint n;
      if (weft_rank_lane (rank, li)->kind != WEFT_LANE_GPU)
        continue;
      n = weft_solver_lane_n_ops (s->solver, r, li);
      for (guint p = 0; p < n; p++)
        {
          guint32 e = weft_solver_lane_op (s->solver, r, li, p);
          const WeftEvent *ev;
          if (e == WEFT_NONE || e >= rank->events->len)
            continue;
          ev = weft_rank_event (rank, e);
          if (ev->flags & WEFT_EVENT_DELETED)
            continue;
          if (s->step != WEFT_SOLVER_ALL_STEPS && weft_solver_op_step (s->solver, r, e) != s->step)
            continue;
          g_array_index (peer, guint32, e) = PEER_UNMATCHED;
          if (is_collective (rank, ev))
            {
              const WeftCollective *c = &g_array_index (rank->collectives, WeftCollective, weft_event_coll (rank, ev));
              Op op;
              op.event = e;
              op.name = weft_rank_string (rank, ev->name);
              op.start = weft_solver_start (s->solver, r, e);
              op.seq = c->seq;
              op.key = g_strdup_printf ("%d\x1f%s", (int) c->type, coll_group (rank, c));
              g_array_append_val (colls, op);
              s->first_coll = MIN (s->first_coll, op.start);
            }
        }
    }
  return colls;
}

/* The unmatched kernels of lane li (WEFT_NONE: of the whole rank, by start)
 * of rank index r. */
static GArray *
side_kernels (Side *s, guint r, guint32 li)
{
  WeftRank *rank = weft_trace_rank (s->trace, r);
  GArray *peer = g_ptr_array_index (s->peer, r);
  GArray *ops = ops_new ();

  for (guint32 l = 0; l < rank->lanes->len; l++)
    {
      guint n;
      if ((li != WEFT_NONE && l != li) || weft_rank_lane (rank, l)->kind != WEFT_LANE_GPU)
        continue;
      n = weft_solver_lane_n_ops (s->solver, r, l);
      for (guint p = 0; p < n; p++)
        {
          guint32 e = weft_solver_lane_op (s->solver, r, l, p);
          Op op;
          if (e == WEFT_NONE || e >= rank->events->len || g_array_index (peer, guint32, e) != PEER_UNMATCHED ||
              is_collective (rank, weft_rank_event (rank, e)))
            continue;
          op.event = e;
          op.name = weft_rank_string (rank, weft_rank_event (rank, e)->name);
          op.start = weft_solver_start (s->solver, r, e);
          op.seq = -1;
          op.key = NULL;
          g_array_append_val (ops, op);
        }
    }
  return ops;
}

static gint
op_start_cmp (gconstpointer a, gconstpointer b)
{
  const Op *x = a, *y = b;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return (x->event > y->event) - (x->event < y->event);
}

/* ---- matching ------------------------------------------------------------------ */

static void
add_match (WeftDiff *self, WeftDiffMatchKind kind, guint ra, guint32 ea, guint rb, guint32 eb)
{
  WeftDiffMatch m = { kind, ra, ea, rb, eb };
  if (kind == WEFT_DIFF_MATCH_RANK)
    {
      /* the rank pass also pairs ops that stayed on their stream (their
       * stream had more or fewer of that name on one side) */
      WeftRank *x = weft_trace_rank (self->side[0].trace, ra), *y = weft_trace_rank (self->side[1].trace, rb);
      guint32 lx = weft_rank_event (x, ea)->lane, ly = weft_rank_event (y, eb)->lane;
      if (lx != WEFT_NONE && ly != WEFT_NONE && weft_rank_lane (x, lx)->pid == weft_rank_lane (y, ly)->pid &&
          weft_rank_lane (x, lx)->tid == weft_rank_lane (y, ly)->tid)
        m.kind = WEFT_DIFF_MATCH_STREAM;
    }
  g_array_index ((GArray *) g_ptr_array_index (self->side[0].peer, ra), guint32, ea) = eb;
  g_array_index ((GArray *) g_ptr_array_index (self->side[1].peer, rb), guint32, eb) = ea;
  g_array_append_val (self->matches, m);
}

/* The ops of one name (key) on both sides, in order. */
typedef struct
{
  GArray *a; /* Op* */
  GArray *b;
} Group;

static void
group_free (gpointer data)
{
  Group *g = data;
  g_array_unref (g->a);
  g_array_unref (g->b);
  g_free (g);
}

#define ALIGN_MAX_CELLS (4u << 20) /* larger groups of unequal counts pair by order */
#define GAP_COST        ((gint64) 1 << 40) /* 1100 s: more than any difference of starts (capped at a quarter) */

/* Pairs n = min(|a|, |b|) ops of a group keeping their order, choosing
 * which ops of the longer side go unmatched so that the starts (from each
 * side's origin) are closest: a dynamic programme over (i, j) with a gap
 * cost larger than any time difference (as many pairs as possible first). */
static void
match_aligned (WeftDiff *self, WeftDiffMatchKind kind, guint ra, const Group *g, guint rb)
{
  guint n = g->a->len, m = g->b->len;
  gint64 oa = self->side[0].origin, ob = self->side[1].origin;
  gint64 *cost = g_new (gint64, (gsize) (n + 1) * (m + 1));
  guint8 *how = g_new (guint8, (gsize) (n + 1) * (m + 1)); /* 0 pair, 1 skip a, 2 skip b */
  guint i, j;
#define C(x, y) cost[(gsize) (x) * (m + 1) + (y)]
#define H(x, y) how[(gsize) (x) * (m + 1) + (y)]
  for (i = 0; i <= n; i++)
    for (j = 0; j <= m; j++)
      {
        gint64 best = G_MAXINT64;
        guint8 h = 0;
        if (i == 0 && j == 0)
          best = 0;
        if (i > 0 && j > 0)
          {
            const Op *x = g_array_index (g->a, const Op *, i - 1), *y = g_array_index (g->b, const Op *, j - 1);
            gint64 d = (x->start - oa) - (y->start - ob);
            best = C (i - 1, j - 1) + MIN (d < 0 ? -d : d, GAP_COST / 4);
          }
        if (i > 0 && C (i - 1, j) + GAP_COST < best)
          best = C (i - 1, j) + GAP_COST, h = 1;
        if (j > 0 && C (i, j - 1) + GAP_COST < best)
          best = C (i, j - 1) + GAP_COST, h = 2;
        C (i, j) = best;
        H (i, j) = h;
      }
  for (i = n, j = m; i > 0 || j > 0;)
    {
      guint8 h = H (i, j);
      if (h == 0 && i > 0 && j > 0)
        {
          add_match (self, kind, ra, g_array_index (g->a, const Op *, i - 1)->event, rb,
                     g_array_index (g->b, const Op *, j - 1)->event);
          i--, j--;
        }
      else if (h == 1 || j == 0)
        i--;
      else
        j--;
    }
#undef C
#undef H
  g_free (cost);
  g_free (how);
}

/* Pairs the ops of each name (key for collectives) of a with those of that
 * name in b, both in their order: the k-th with the k-th where the counts
 * agree; where they do not, only when align (match_aligned), else the
 * group is left for a later pass. */
static void
match_in_order (WeftDiff *self, WeftDiffMatchKind kind, guint ra, GArray *a, guint rb, GArray *b, gboolean align)
{
  GHashTable *groups = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, group_free);
  GPtrArray *order = g_ptr_array_new ();

  for (guint side = 0; side < 2; side++)
    {
      GArray *ops = side ? b : a;
      for (guint i = 0; i < ops->len; i++)
        {
          const Op *o = &g_array_index (ops, Op, i);
          const char *k = o->key ? o->key : o->name;
          Group *g = g_hash_table_lookup (groups, k);
          if (g == NULL)
            {
              g = g_new0 (Group, 1);
              g->a = g_array_new (FALSE, FALSE, sizeof (const Op *));
              g->b = g_array_new (FALSE, FALSE, sizeof (const Op *));
              g_hash_table_insert (groups, (gpointer) k, g);
              g_ptr_array_add (order, g);
            }
          g_array_append_val (side ? g->b : g->a, o);
        }
    }
  for (guint gi = 0; gi < order->len; gi++)
    {
      const Group *g = g_ptr_array_index (order, gi);
      guint n = MIN (g->a->len, g->b->len);
      if (n == 0)
        continue;
      if (g->a->len != g->b->len && align && (guint64) (g->a->len + 1) * (g->b->len + 1) <= ALIGN_MAX_CELLS)
        match_aligned (self, kind, ra, g, rb);
      else if (g->a->len == g->b->len || align)
        for (guint i = 0; i < n; i++)
          add_match (self, kind, ra, g_array_index (g->a, const Op *, i)->event, rb,
                     g_array_index (g->b, const Op *, i)->event);
    }
  g_ptr_array_unref (order);
  g_hash_table_unref (groups);
}

/* The GPU lane of rank b with lane la's device and stream, WEFT_NONE. */
static guint32
lane_like (WeftRank *a, guint32 la, WeftRank *b)
{
  const WeftLane *x = weft_rank_lane (a, la);
  for (guint32 l = 0; l < b->lanes->len; l++)
    {
      const WeftLane *y = weft_rank_lane (b, l);
      if (y->kind == WEFT_LANE_GPU && y->pid == x->pid && y->tid == x->tid)
        return l;
    }
  return WEFT_NONE;
}

static gint
op_seq_cmp (gconstpointer a, gconstpointer b)
{
  const Op *x = a, *y = b;
  int c = strcmp (x->key, y->key);
  if (c != 0)
    return c;
  if (x->seq != y->seq)
    return x->seq < y->seq ? -1 : 1;
  return op_start_cmp (a, b);
}

/* Orders collectives for matching: by (key, Seq) when every one has a
 * Seq, else by start (then grouped by key in match_in_order). */
static void
sort_collectives (GArray *c)
{
  gboolean all_seq = TRUE;
  for (guint i = 0; i < c->len && all_seq; i++)
    all_seq = g_array_index (c, Op, i).seq >= 0;
  g_array_sort (c, all_seq ? op_seq_cmp : op_start_cmp);
}

static void
match_rank_pair (WeftDiff *self, guint ra, guint rb)
{
  Side *sa = &self->side[0], *sb = &self->side[1];
  WeftRank *rank_a = weft_trace_rank (sa->trace, ra), *rank_b = weft_trace_rank (sb->trace, rb);
  GArray *ca = side_mark_rank (sa, ra), *cb = side_mark_rank (sb, rb);
  GArray *ka, *kb;

  /* collectives: type, process group, order */
  sort_collectives (ca);
  sort_collectives (cb);
  match_in_order (self, WEFT_DIFF_MATCH_COLLECTIVE, ra, ca, rb, cb, TRUE);
  g_array_unref (ca);
  g_array_unref (cb);

  /* kernels: name and order on the same stream, where the stream has as
   * many of that name on both sides */
  for (guint32 la = 0; la < rank_a->lanes->len; la++)
    {
      guint32 lb;
      if (weft_rank_lane (rank_a, la)->kind != WEFT_LANE_GPU || (lb = lane_like (rank_a, la, rank_b)) == WEFT_NONE)
        continue;
      ka = side_kernels (sa, ra, la);
      kb = side_kernels (sb, rb, lb);
      match_in_order (self, WEFT_DIFF_MATCH_STREAM, ra, ka, rb, kb, FALSE);
      g_array_unref (ka);
      g_array_unref (kb);
    }
  /* what is left: name and order (of start) on the rank: moved to another
   * stream, or some added or removed */
  ka = side_kernels (sa, ra, WEFT_NONE);
  kb = side_kernels (sb, rb, WEFT_NONE);
  g_array_sort (ka, op_start_cmp);
  g_array_sort (kb, op_start_cmp);
  match_in_order (self, WEFT_DIFF_MATCH_RANK, ra, ka, rb, kb, TRUE);
  g_array_unref (ka);
  g_array_unref (kb);
}

/* The compared ops left without a counterpart on one side. */
static void
count_unmatched (WeftDiff *self, guint side)
{
  Side *s = &self->side[side];
  for (guint r = 0; r < s->trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (s->trace, r);
      GArray *peer = g_ptr_array_index (s->peer, r);
      for (guint32 e = 0; e < peer->len; e++)
        {
          gboolean coll;
          if (g_array_index (peer, guint32, e) != PEER_UNMATCHED)
            continue;
          coll = is_collective (rank, weft_rank_event (rank, e));
          if (side == 0)
            (*(coll ? &self->counts.collectives_a_only : &self->counts.kernels_a_only))++;
          else
            (*(coll ? &self->counts.collectives_b_only : &self->counts.kernels_b_only))++;
        }
    }
}

/* ---- figures ----------------------------------------------------------------------- */

static gint64
abs64 (gint64 v)
{
  return v < 0 ? -v : v;
}

static gint
row_cmp (gconstpointer a, gconstpointer b)
{
  const WeftDiffRow *x = a, *y = b;
  gint64 cx = abs64 (weft_diff_row_contribution (x)), cy = abs64 (weft_diff_row_contribution (y));
  gint64 tx = abs64 (x->b.total - x->a.total) + abs64 (x->b.exposed - x->a.exposed);
  gint64 ty = abs64 (y->b.total - y->a.total) + abs64 (y->b.exposed - y->a.exposed);
  if (cx != cy)
    return cx > cy ? -1 : 1;
  if (tx != ty)
    return tx > ty ? -1 : 1;
  if (x->kclass != y->kclass)
    return x->kclass < y->kclass ? -1 : 1;
  return (x->type > y->type) - (x->type < y->type);
}

static void
build_rows (WeftDiff *self)
{
  WeftSolverBreakdown ba, bb;

  weft_solver_breakdown (self->side[0].solver, WEFT_SOLVER_ALL_RANKS, self->side[0].step, &ba);
  weft_solver_breakdown (self->side[1].solver, WEFT_SOLVER_ALL_RANKS, self->side[1].step, &bb);
  for (guint c = WEFT_KCLASS_NONE + 1; c < WEFT_KCLASS_N_CLASSES; c++)
    {
      WeftDiffRow row = { (WeftKernelClass) c, WEFT_COLL_NONE, ba.kclass[c], bb.kclass[c] };
      if (c == WEFT_KCLASS_COMM || (row.a.count == 0 && row.b.count == 0))
        continue;
      g_array_append_val (self->kernel_rows, row);
    }
  for (guint t = WEFT_COLL_NONE + 1; t < WEFT_COLL_N_TYPES; t++)
    {
      WeftDiffRow row = { WEFT_KCLASS_NONE, (WeftCollType) t, ba.coll[t], bb.coll[t] };
      if (row.a.count == 0 && row.b.count == 0)
        continue;
      g_array_append_val (self->coll_rows, row);
    }
  g_array_sort (self->kernel_rows, row_cmp);
  g_array_sort (self->coll_rows, row_cmp);
}

static gint
rank_number_cmp (gconstpointer a, gconstpointer b)
{
  const WeftDiffRank *x = a, *y = b;
  return (x->rank > y->rank) - (x->rank < y->rank);
}

/* The rank pairs by number and their figures. */
static void
build_ranks (WeftDiff *self)
{
  for (guint side = 0; side < 2; side++)
    {
      Side *s = &self->side[side];
      for (guint r = 0; r < s->trace->ranks->len; r++)
        {
          int number = weft_trace_rank (s->trace, r)->rank;
          WeftDiffRank *dr = NULL;
          for (guint i = 0; i < self->ranks->len && dr == NULL; i++)
            if (g_array_index (self->ranks, WeftDiffRank, i).rank == number)
              dr = &g_array_index (self->ranks, WeftDiffRank, i);
          if (dr == NULL)
            {
              WeftDiffRank fresh;
              memset (&fresh, 0, sizeof fresh);
              fresh.rank = number;
              fresh.rank_index_a = fresh.rank_index_b = G_MAXUINT;
              g_array_append_val (self->ranks, fresh);
              dr = &g_array_index (self->ranks, WeftDiffRank, self->ranks->len - 1);
            }
          if (side == 0)
            {
              dr->rank_index_a = r;
              dr->has_a = weft_solver_metrics (s->solver, r, s->step, &dr->a);
              weft_solver_breakdown (s->solver, r, s->step, &dr->breakdown_a);
            }
          else
            {
              dr->rank_index_b = r;
              dr->has_b = weft_solver_metrics (s->solver, r, s->step, &dr->b);
              weft_solver_breakdown (s->solver, r, s->step, &dr->breakdown_b);
            }
        }
    }
  g_array_sort (self->ranks, rank_number_cmp);
  for (guint i = 0; i < self->ranks->len; i++)
    {
      const WeftDiffRank *dr = &g_array_index (self->ranks, WeftDiffRank, i);
      if (dr->rank_index_a != G_MAXUINT)
        g_array_index (self->side[0].pair_of, guint, dr->rank_index_a) = i;
      if (dr->rank_index_b != G_MAXUINT)
        g_array_index (self->side[1].pair_of, guint, dr->rank_index_b) = i;
    }
}

static gboolean
side_init (Side *s, WeftSolver *solver, int step, const char *label, GError **error)
{
  s->solver = solver;
  s->trace = weft_solver_get_trace (solver);
  s->step = step;
  s->first_coll = G_MAXINT64;
  s->has_whole = weft_solver_metrics (solver, WEFT_SOLVER_ALL_RANKS, step, &s->whole);
  s->origin = s->has_whole ? s->whole.begin : 0;
  if (!s->has_whole && step != WEFT_SOLVER_ALL_STEPS)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "%s has no ProfilerStep#%d", label, step);
      return FALSE;
    }
  s->peer = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  s->pair_of = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint r = 0; r < s->trace->ranks->len; r++)
    {
      guint n = weft_trace_rank (s->trace, r)->events->len;
      GArray *p = g_array_sized_new (FALSE, FALSE, sizeof (guint32), n);
      guint none = G_MAXUINT;
      g_array_set_size (p, n);
      memset (p->data, 0xff, (gsize) n * sizeof (guint32)); /* PEER_NOT_COMPARED */
      g_ptr_array_add (s->peer, p);
      g_array_append_val (s->pair_of, none);
    }
  return TRUE;
}

WeftDiff *
weft_diff_new (WeftSolver *a, int step_a, WeftSolver *b, int step_b, GError **error)
{
  WeftDiff *self;

  g_return_val_if_fail (a != NULL && b != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  self = g_new0 (WeftDiff, 1);
  self->ranks = g_array_new (FALSE, FALSE, sizeof (WeftDiffRank));
  self->matches = g_array_new (FALSE, FALSE, sizeof (WeftDiffMatch));
  self->kernel_rows = g_array_new (FALSE, FALSE, sizeof (WeftDiffRow));
  self->coll_rows = g_array_new (FALSE, FALSE, sizeof (WeftDiffRow));
  if (!side_init (&self->side[0], a, step_a, "A", error) || !side_init (&self->side[1], b, step_b, "B", error))
    {
      weft_diff_free (self);
      return NULL;
    }
  build_ranks (self);
  for (guint i = 0; i < self->ranks->len; i++)
    {
      const WeftDiffRank *dr = &g_array_index (self->ranks, WeftDiffRank, i);
      if (dr->rank_index_a != G_MAXUINT && dr->rank_index_b != G_MAXUINT)
        match_rank_pair (self, dr->rank_index_a, dr->rank_index_b);
      else if (dr->rank_index_a != G_MAXUINT)
        g_array_unref (side_mark_rank (&self->side[0], dr->rank_index_a));
      else
        g_array_unref (side_mark_rank (&self->side[1], dr->rank_index_b));
    }
  for (guint i = 0; i < self->matches->len; i++)
    {
      const WeftDiffMatch *m = &g_array_index (self->matches, WeftDiffMatch, i);
      if (m->kind == WEFT_DIFF_MATCH_COLLECTIVE)
        self->counts.collectives_matched++;
      else
        self->counts.kernels_matched++;
      if (m->kind == WEFT_DIFF_MATCH_RANK)
        self->counts.kernels_other_stream++;
    }
  count_unmatched (self, 0);
  count_unmatched (self, 1);
  build_rows (self);
  return self;
}

void
weft_diff_free (WeftDiff *self)
{
  if (self == NULL)
    return;
  for (guint i = 0; i < 2; i++)
    {
      g_clear_pointer (&self->side[i].peer, g_ptr_array_unref);
      g_clear_pointer (&self->side[i].pair_of, g_array_unref);
    }
  g_array_unref (self->ranks);
  g_array_unref (self->matches);
  g_array_unref (self->kernel_rows);
  g_array_unref (self->coll_rows);
  g_free (self);
}

/* ---- getters -------------------------------------------------------------------------- */

WeftSolver *
weft_diff_get_solver (WeftDiff *self, WeftDiffSide side)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->side[side == WEFT_DIFF_B].solver;
}

int
weft_diff_get_step (WeftDiff *self, WeftDiffSide side)
{
  g_return_val_if_fail (self != NULL, WEFT_SOLVER_ALL_STEPS);
  return self->side[side == WEFT_DIFF_B].step;
}

gboolean
weft_diff_whole (WeftDiff *self, WeftDiffSide side, WeftMetrics *out)
{
  const Side *s;
  g_return_val_if_fail (self != NULL && out != NULL, FALSE);
  s = &self->side[side == WEFT_DIFF_B];
  *out = s->whole;
  return s->has_whole;
}

guint
weft_diff_n_ranks (WeftDiff *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->ranks->len;
}

const WeftDiffRank *
weft_diff_rank (WeftDiff *self, guint i)
{
  g_return_val_if_fail (self != NULL && i < self->ranks->len, NULL);
  return &g_array_index (self->ranks, WeftDiffRank, i);
}

const WeftDiffRank *
weft_diff_rank_of (WeftDiff *self, WeftDiffSide side, guint rank_index)
{
  const Side *s;
  guint i;
  g_return_val_if_fail (self != NULL, NULL);
  s = &self->side[side == WEFT_DIFF_B];
  if (rank_index >= s->pair_of->len || (i = g_array_index (s->pair_of, guint, rank_index)) == G_MAXUINT)
    return NULL;
  return &g_array_index (self->ranks, WeftDiffRank, i);
}

const WeftDiffRow *
weft_diff_rows (WeftDiff *self, gboolean collectives, guint *n_rows)
{
  GArray *rows;
  g_return_val_if_fail (self != NULL && n_rows != NULL, NULL);
  rows = collectives ? self->coll_rows : self->kernel_rows;
  *n_rows = rows->len;
  return (const WeftDiffRow *) (void *) rows->data;
}

gint64
weft_diff_row_contribution (const WeftDiffRow *row)
{
  g_return_val_if_fail (row != NULL, 0);
  /* communication adds to the step only where it is exposed; kernels
   * (serial on their streams, what the step is made of) by their time */
  if (row->type != WEFT_COLL_NONE)
    return row->b.exposed - row->a.exposed;
  return row->b.total - row->a.total;
}

const char *
weft_diff_row_name (const WeftDiffRow *row)
{
  g_return_val_if_fail (row != NULL, "");
  return row->type != WEFT_COLL_NONE ? weft_coll_type_to_string (row->type) : weft_kernel_class_to_string (row->kclass);
}

void
weft_diff_counts (WeftDiff *self, WeftDiffCounts *out)
{
  g_return_if_fail (self != NULL && out != NULL);
  *out = self->counts;
}

guint
weft_diff_n_matches (WeftDiff *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->matches->len;
}

const WeftDiffMatch *
weft_diff_match (WeftDiff *self, guint i)
{
  g_return_val_if_fail (self != NULL && i < self->matches->len, NULL);
  return &g_array_index (self->matches, WeftDiffMatch, i);
}

static guint32
peer_of (const Side *s, guint rank_index, guint32 event)
{
  GArray *p;
  if (rank_index >= s->peer->len)
    return PEER_NOT_COMPARED;
  p = g_ptr_array_index (s->peer, rank_index);
  return event < p->len ? g_array_index (p, guint32, event) : PEER_NOT_COMPARED;
}

gboolean
weft_diff_is_compared (WeftDiff *self, WeftDiffSide side, guint rank_index, guint32 event)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return peer_of (&self->side[side == WEFT_DIFF_B], rank_index, event) != PEER_NOT_COMPARED;
}

gboolean
weft_diff_counterpart (WeftDiff *self, WeftDiffSide side, guint rank_index, guint32 event, guint *other_rank_index,
                       guint32 *other_event, WeftDiffMatchKind *kind)
{
  guint b = side == WEFT_DIFF_B;
  guint32 e;
  const WeftDiffRank *dr;

  g_return_val_if_fail (self != NULL, FALSE);
  e = peer_of (&self->side[b], rank_index, event);
  if (e == PEER_NOT_COMPARED || e == PEER_UNMATCHED || (dr = weft_diff_rank_of (self, side, rank_index)) == NULL)
    return FALSE;
  if (other_rank_index != NULL)
    *other_rank_index = b ? dr->rank_index_a : dr->rank_index_b;
  if (other_event != NULL)
    *other_event = e;
  if (kind != NULL)
    {
      WeftRank *rank = weft_trace_rank (self->side[b].trace, rank_index);
      if (is_collective (rank, weft_rank_event (rank, event)))
        *kind = WEFT_DIFF_MATCH_COLLECTIVE;
      else
        {
          WeftRank *other = weft_trace_rank (self->side[!b].trace, b ? dr->rank_index_a : dr->rank_index_b);
          const WeftEvent *x = weft_rank_event (rank, event), *y = weft_rank_event (other, e);
          gboolean same = x->lane != WEFT_NONE && y->lane != WEFT_NONE &&
                          weft_rank_lane (rank, x->lane)->pid == weft_rank_lane (other, y->lane)->pid &&
                          weft_rank_lane (rank, x->lane)->tid == weft_rank_lane (other, y->lane)->tid;
          *kind = same ? WEFT_DIFF_MATCH_STREAM : WEFT_DIFF_MATCH_RANK;
        }
    }
  return TRUE;
}

gint64
weft_diff_origin (WeftDiff *self, WeftDiffSide side, WeftDiffAlign align)
{
  const Side *s;
  g_return_val_if_fail (self != NULL, 0);
  s = &self->side[side == WEFT_DIFF_B];
  switch (align)
    {
    case WEFT_DIFF_ALIGN_ABSOLUTE:
      return 0;
    case WEFT_DIFF_ALIGN_FIRST_COLLECTIVE:
      if (s->first_coll != G_MAXINT64)
        return s->first_coll;
      return s->has_whole ? s->whole.begin : 0;
    case WEFT_DIFF_ALIGN_STEP:
    default:
      return s->has_whole ? s->whole.begin : 0;
    }
}

/* ---- the sentence ----------------------------------------------------------------------- */

static void
append_time (GString *out, gint64 ns, gboolean sign)
{
  gint64 a = abs64 (ns);
  const char *pm = !sign ? (ns < 0 ? "-" : "") : ns < 0 ? "-" : "+";
  if (a >= 1000000)
    g_string_append_printf (out, "%s%.1f ms", pm, (double) a / 1e6);
  else if (a >= 1000)
    g_string_append_printf (out, "%s%.1f us", pm, (double) a / 1e3);
  else
    g_string_append_printf (out, "%s%" G_GINT64_FORMAT " ns", pm, a);
}

static gint
row_ptr_cmp (gconstpointer a, gconstpointer b)
{
  return row_cmp (*(const WeftDiffRow *const *) a, *(const WeftDiffRow *const *) b);
}

/* "+4.2 ms exposed all_gather, +3.1 ms gemm": the three
 * largest contributions of the step delta's sign (any sign when equal). */
static void
append_contributions (WeftDiff *self, GString *out, gint64 dstep)
{
  GPtrArray *rows = g_ptr_array_new ();
  guint listed = 0;

  for (guint i = 0; i < self->coll_rows->len; i++)
    g_ptr_array_add (rows, &g_array_index (self->coll_rows, WeftDiffRow, i));
  for (guint i = 0; i < self->kernel_rows->len; i++)
    g_ptr_array_add (rows, &g_array_index (self->kernel_rows, WeftDiffRow, i));
  g_ptr_array_sort (rows, row_ptr_cmp);
  for (guint i = 0; i < rows->len && listed < 3; i++)
    {
      const WeftDiffRow *row = g_ptr_array_index (rows, i);
      gint64 c = weft_diff_row_contribution (row);
      if (c == 0 || (dstep > 0 && c < 0) || (dstep < 0 && c > 0))
        continue;
      g_string_append (out, listed ? ", " : ": ");
      append_time (out, c, TRUE);
      g_string_append_printf (out, " %s%s", row->type != WEFT_COLL_NONE ? "exposed " : "", weft_diff_row_name (row));
      listed++;
    }
  g_ptr_array_unref (rows);
}

char *
weft_diff_summary (WeftDiff *self)
{
  GString *out;
  const WeftMetrics *a, *b;
  gint64 d;
  guint only_a, only_b;

  g_return_val_if_fail (self != NULL, NULL);
  out = g_string_new (NULL);
  a = &self->side[0].whole;
  b = &self->side[1].whole;
  d = b->step_time - a->step_time;
  if (!self->side[0].has_whole || !self->side[1].has_whole)
    g_string_append_printf (out, "%s has no GPU op to compare", self->side[0].has_whole ? "B" : "A");
  else if (d == 0)
    {
      g_string_append (out, "A and B take the same step time (");
      append_time (out, a->step_time, FALSE);
      g_string_append (out, ")");
    }
  else
    {
      g_string_append (out, "B is ");
      append_time (out, abs64 (d), FALSE);
      g_string_append_printf (out, " %s than A (", d > 0 ? "slower" : "faster");
      append_time (out, b->step_time, FALSE);
      g_string_append (out, " against ");
      append_time (out, a->step_time, FALSE);
      g_string_append (out, ")");
    }
  append_contributions (self, out, d);
  only_a = self->counts.kernels_a_only + self->counts.collectives_a_only;
  only_b = self->counts.kernels_b_only + self->counts.collectives_b_only;
  if (only_a == 0 && only_b == 0)
    g_string_append (out, "; every op matched");
  else
    g_string_append_printf (out, "; %u op%s only in A, %u only in B", only_a, only_a == 1 ? "" : "s", only_b);
  g_string_append_c (out, '.');
  return g_string_free (out, FALSE);
}
