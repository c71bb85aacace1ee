/* solver-breakdown.c: the step's GPU time per kernel class and per
 * collective type (count, total, exposed), over the same ops and solved
 * times as the step metrics (solver-metrics.c: an op belongs to step N when
 * its launch lies in ProfilerStep#N). What `weft-cli diff` and the compare
 * view sort by contribution. Definitions in docs/solver.md, "Breakdown". */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "solver-private.h"

int
weft_solver_op_step (WeftSolver *self, guint rank_index, guint32 event)
{
  guint32 v;
  g_return_val_if_fail (self != NULL, WEFT_SOLVER_ALL_STEPS);
  v = _weft_solver_node (self, rank_index, event);
  return v == WEFT_NONE ? WEFT_SOLVER_ALL_STEPS : self->nodes[v].step;
}

/* what an op is in the metrics: compute, communication or memcpy/memset */
enum
{
  KIND_COMPUTE = 0,
  KIND_COMM,
  KIND_MEM,
  N_KINDS
};

typedef struct
{
  gint64 s, e;
} Span;

typedef struct
{
  guint32 node;
  guint8  kind;
  guint8  kclass;
  guint8  coll;   /* WeftCollType; WEFT_COLL_NONE for a kernel that is not a collective */
} OpRec;

static gint
span_cmp (gconstpointer a, gconstpointer b)
{
  const Span *x = a, *y = b;
  return (x->s > y->s) - (x->s < y->s);
}

/* Union length of spans (sorted in place). */
static gint64
union_of (GArray *spans)
{
  gint64 total = 0, cs = 0, ce = G_MININT64;
  g_array_sort (spans, span_cmp);
  for (guint i = 0; i < spans->len; i++)
    {
      const Span *x = &g_array_index (spans, Span, i);
      if (x->e <= x->s)
        continue;
      if (ce == G_MININT64 || x->s > ce)
        {
          if (ce != G_MININT64)
            total += ce - cs;
          cs = x->s;
          ce = x->e;
        }
      else if (x->e > ce)
        ce = x->e;
    }
  if (ce != G_MININT64)
    total += ce - cs;
  return total;
}

/* The spans of what covers an op of kind k (what it overlaps with without
 * being exposed): compute is covered by communication, communication by
 * compute, memcpy/memset by either. */
static void
add_cover (GArray *dst, GArray *const kind_spans[N_KINDS], guint k)
{
  for (guint j = 0; j < N_KINDS; j++)
    {
      gboolean covers = (k == KIND_COMPUTE && j == KIND_COMM) || (k == KIND_COMM && j == KIND_COMPUTE) ||
                        (k == KIND_MEM && j != KIND_MEM);
      if (covers)
        g_array_append_vals (dst, kind_spans[j]->data, kind_spans[j]->len);
    }
}

/* Exposed time of the ops of recs matching (field, value): per kind, the
 * union of them and their cover minus the union of the cover. */
static gint64
exposed_of (WeftSolver *self, GArray *recs, gboolean by_class, guint value, GArray *const kind_spans[N_KINDS],
            const gint64 cover_len[N_KINDS], GArray *tmp)
{
  gint64 total = 0;
  for (guint k = 0; k < N_KINDS; k++)
    {
      gboolean any = FALSE;
      g_array_set_size (tmp, 0);
      for (guint i = 0; i < recs->len; i++)
        {
          const OpRec *o = &g_array_index (recs, OpRec, i);
          Span x;
          if (o->kind != k || (by_class ? o->kclass : o->coll) != value)
            continue;
          x.s = self->nodes[o->node].start;
          x.e = self->nodes[o->node].end;
          g_array_append_val (tmp, x);
          any = TRUE;
        }
      if (!any)
        continue;
      add_cover (tmp, kind_spans, k);
      total += union_of (tmp) - cover_len[k];
    }
  return total;
}

/* One rank's figures, added into out (sums; the caller divides). */
static gboolean
rank_breakdown (WeftSolver *self, guint r, int step, WeftSolverBreakdown *out)
{
  WeftRank *rank = weft_trace_rank (self->trace, r);
  GArray *recs = g_array_new (FALSE, FALSE, sizeof (OpRec));
  GArray *kind_spans[N_KINDS];
  GArray *tmp = g_array_new (FALSE, FALSE, sizeof (Span));
  gint64 cover_len[N_KINDS];
  gboolean seen_class[WEFT_KCLASS_N_CLASSES] = { FALSE }, seen_coll[WEFT_COLL_N_TYPES] = { FALSE };
  gboolean any;

  for (guint k = 0; k < N_KINDS; k++)
    kind_spans[k] = g_array_new (FALSE, FALSE, sizeof (Span));
  for (guint li = 0; li < self->ranks[r].lanes->len; li++)
    {
      GArray *o = g_ptr_array_index (self->ranks[r].lanes, li);
      for (guint j = 0; o != NULL && j < o->len; j++)
        {
          guint32 v = g_array_index (o, guint32, j);
          const Node *n = &self->nodes[v];
          const WeftEvent *ev;
          OpRec rec;
          Span x;
          if (n->kind != NODE_OP || (n->flags & NODE_DELETED) ||
              (step != WEFT_SOLVER_ALL_STEPS && n->step != step) || n->event >= rank->events->len)
            continue;
          ev = weft_rank_event (rank, n->event);
          rec.node = v;
          rec.kind = (n->flags & NODE_COMM) ? KIND_COMM : (n->flags & NODE_MEM) ? KIND_MEM : KIND_COMPUTE;
          rec.kclass = ev->kclass < WEFT_KCLASS_N_CLASSES ? ev->kclass : WEFT_KCLASS_OTHER;
          rec.coll = WEFT_COLL_NONE;
          if (rec.kind == KIND_COMM)
            rec.coll = weft_event_coll (rank, ev) != WEFT_NONE && weft_event_coll (rank, ev) < rank->collectives->len
                         ? g_array_index (rank->collectives, WeftCollective, weft_event_coll (rank, ev)).type
                         : WEFT_COLL_UNKNOWN;
          if (rec.coll >= WEFT_COLL_N_TYPES)
            rec.coll = WEFT_COLL_UNKNOWN;
          g_array_append_val (recs, rec);
          x.s = n->start;
          x.e = n->end;
          g_array_append_val (kind_spans[rec.kind], x);
          out->kclass[rec.kclass].count++;
          out->kclass[rec.kclass].total += n->end - n->start;
          seen_class[rec.kclass] = TRUE;
          if (rec.coll != WEFT_COLL_NONE)
            {
              out->coll[rec.coll].count++;
              out->coll[rec.coll].total += n->end - n->start;
              seen_coll[rec.coll] = TRUE;
            }
        }
    }
  any = recs->len > 0;
  for (guint k = 0; k < N_KINDS; k++)
    {
      g_array_set_size (tmp, 0);
      add_cover (tmp, kind_spans, k);
      cover_len[k] = union_of (tmp);
    }
  for (guint c = 0; c < WEFT_KCLASS_N_CLASSES; c++)
    if (seen_class[c])
      out->kclass[c].exposed += exposed_of (self, recs, TRUE, c, kind_spans, cover_len, tmp);
  for (guint c = 0; c < WEFT_COLL_N_TYPES; c++)
    if (seen_coll[c])
      out->coll[c].exposed += exposed_of (self, recs, FALSE, c, kind_spans, cover_len, tmp);
  for (guint k = 0; k < N_KINDS; k++)
    g_array_free (kind_spans[k], TRUE);
  g_array_free (tmp, TRUE);
  g_array_free (recs, TRUE);
  return any;
}

gboolean
weft_solver_breakdown (WeftSolver *self, guint rank_index, int step, WeftSolverBreakdown *out)
{
  guint n_ranks = 0;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);
  memset (out, 0, sizeof *out);
  _weft_solver_sync (self);
  if (rank_index != WEFT_SOLVER_ALL_RANKS && rank_index >= self->n_ranks)
    return FALSE;
  for (guint r = 0; r < self->n_ranks; r++)
    {
      WeftMetrics m;
      if (rank_index != WEFT_SOLVER_ALL_RANKS && r != rank_index)
        continue;
      /* the ranks the metrics count (a rank with only a ProfilerStep and no
       * GPU op is one of them) */
      if (!weft_solver_metrics (self, r, step, &m))
        continue;
      rank_breakdown (self, r, step, out);
      n_ranks++;
    }
  out->n_ranks = n_ranks;
  if (n_ranks == 0)
    return FALSE;
  /* times: mean over ranks, as the metrics' (counts stay totals) */
  for (guint c = 0; c < WEFT_KCLASS_N_CLASSES; c++)
    {
      out->kclass[c].total /= n_ranks;
      out->kclass[c].exposed /= n_ranks;
    }
  for (guint c = 0; c < WEFT_COLL_N_TYPES; c++)
    {
      out->coll[c].total /= n_ranks;
      out->coll[c].exposed /= n_ranks;
    }
  return TRUE;
}
