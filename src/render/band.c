/* band.c: the overlap band of a rank (compute, communication, both, idle
 * over time): from the edge sort of its GPU ops, from the solver's lane
 * arrays (no sort), and patched over a span of time where those changed.
 * docs/rendering.md "Overlap band". */
#include "config.h"

#include <string.h>

#include "render-private.h"

/* ---- overlap band -------------------------------------------------------------- */

typedef struct
{
  gint64 t;
  gint8  d_compute;
  gint8  d_comm;
} Edge;

static int
edge_cmp (const void *a, const void *b)
{
  const Edge *ea = a, *eb = b;
  return (ea->t > eb->t) - (ea->t < eb->t);
}

static WeftOverlapState
state_of (gint64 compute, gint64 comm)
{
  if (compute > 0 && comm > 0)
    return WEFT_OVERLAP_OVERLAPPED;
  if (compute > 0)
    return WEFT_OVERLAP_COMPUTE_ONLY;
  if (comm > 0)
    return WEFT_OVERLAP_COMM_ONLY;
  return WEFT_OVERLAP_IDLE;
}

/* Appends [b, e) in state st to band, extending its last segment when it
 * has the same state. */
static void
band_push (GArray *band, gint64 b, gint64 e, WeftOverlapState st)
{
  if (band->len > 0 && g_array_index (band, WeftOverlapSegment, band->len - 1).state == st)
    g_array_index (band, WeftOverlapSegment, band->len - 1).end = e;
  else
    {
      WeftOverlapSegment seg = { b, e, st };
      g_array_append_val (band, seg);
    }
}

/* The band from the per-lane arrays of solved times (WeftRenderTimes.lane_func),
 * in O(events) with no sort: each GPU lane is sorted by start, so one pass
 * over it gives the union of its compute ops and the union of its comm ops
 * as a sorted stream of disjoint spans (touching spans merged); the lanes'
 * streams merge (the smallest start next, O(events x GPU lanes)) into one
 * union of compute and one of comm; the band is the runs of (in compute, in comm)
 * over the points where either changes. The state at any time is the same
 * as the edge sort's (an event count > 0 is being in the union), and both
 * keep maximal runs between the first start and the last end, so the
 * segments are identical (/lane-times/band-same). NULL where a lane has no
 * array or is out of order (the caller sorts). */
typedef struct
{
  gint64 b, e;
} Span;

/* Adds [b, e) (b >= the last span's start) to the maximal sorted list
 * out[0 .. *k - 1] (room for one more); FALSE when b is before the last
 * span's start (the list is not sorted by start). */
static inline gboolean
span_push (Span *out, guint *k, gint64 b, gint64 e)
{
  if (*k > 0 && b <= out[*k - 1].e)
    {
      if (b < out[*k - 1].b)
        return FALSE;
      if (e > out[*k - 1].e)
        out[*k - 1].e = e;
      return TRUE;
    }
  out[*k].b = b;
  out[*k].e = e;
  (*k)++;
  return TRUE;
}

/* The union of two maximal sorted lists (both freed), maximal and sorted. */
static GArray *
span_union (GArray *x, GArray *y)
{
  GArray *out = g_array_sized_new (FALSE, FALSE, sizeof (Span), x->len + y->len + 1);
  const Span *a = (const Span *) (void *) x->data, *b = (const Span *) (void *) y->data;
  Span *o = (Span *) (void *) out->data;
  guint i = 0, j = 0, k = 0, na = x->len, nb = y->len;
  while (i < na && j < nb)
    {
      const Span *sp = a[i].b <= b[j].b ? &a[i++] : &b[j++];
      span_push (o, &k, sp->b, sp->e); /* never out of order: the smaller start first */
    }
  for (; i < na; i++)
    span_push (o, &k, a[i].b, a[i].e);
  for (; j < nb; j++)
    span_push (o, &k, b[j].b, b[j].e);
  out->len = k;
  g_array_free (x, TRUE);
  g_array_free (y, TRUE);
  return out;
}

static GArray *
spans_merge_all (GPtrArray *lists)
{
  while (lists->len > 1)
    {
      guint k = 0;
      for (guint i = 0; i + 1 < lists->len; i += 2)
        lists->pdata[k++] = span_union (lists->pdata[i], lists->pdata[i + 1]);
      if (lists->len % 2 == 1)
        lists->pdata[k++] = lists->pdata[lists->len - 1];
      lists->len = k; /* the rest were merged (and freed) or moved */
    }
  return lists->len == 1 ? g_ptr_array_index (lists, 0) : g_array_new (FALSE, FALSE, sizeof (Span));
}

static void
spans_free_all (GPtrArray *lists)
{
  for (guint i = 0; i < lists->len; i++)
    g_array_free (g_ptr_array_index (lists, i), TRUE);
  g_ptr_array_free (lists, TRUE);
}

/* The band of a compute union and a comm union (maximal sorted lists),
 * into reuse when given (emptied first: its pages are already there; a
 * band of tens of millions of events grown from nothing spent most of its
 * time in page faults and reallocation copies), else a new array with room
 * for size_hint segments. */
static GArray *
band_of_spans (GArray *cu, GArray *mu, GArray *reuse, guint size_hint)
{
  GArray *band = reuse != NULL ? g_array_set_size (reuse, 0)
                               : g_array_sized_new (FALSE, FALSE, sizeof (WeftOverlapSegment), size_hint);
  const Span *c = (const Span *) (void *) cu->data, *m = (const Span *) (void *) mu->data;
  guint nc = cu->len, nm = mu->len, ci = 0, mi = 0;
  gint64 x;

  if (nc == 0 && nm == 0)
    return band;
  x = nc == 0 ? m[0].b : nm == 0 ? c[0].b : MIN (c[0].b, m[0].b);
  for (;;)
    {
      gboolean in_c = ci < nc && c[ci].b <= x, in_m = mi < nm && m[mi].b <= x;
      gint64 next = G_MAXINT64;
      WeftOverlapState st;
      if (ci < nc)
        next = MIN (next, in_c ? c[ci].e : c[ci].b);
      if (mi < nm)
        next = MIN (next, in_m ? m[mi].e : m[mi].b);
      if (next == G_MAXINT64)
        break;
      st = state_of (in_c, in_m);
      band_push (band, x, next, st);
      x = next;
      while (ci < nc && c[ci].e <= x)
        ci++;
      while (mi < nm && m[mi].e <= x)
        mi++;
    }
  return band;
}

enum
{
  BAND_NONE = 0,
  BAND_COMPUTE = 1,
  BAND_COMM = 2
};

static inline guint8
band_class (const WeftRank *rank, const WeftEvent *ev)
{
  if (!(ev->flags & WEFT_EVENT_GPU_OP) || (ev->flags & WEFT_EVENT_DELETED))
    return BAND_NONE;
  return weft_render_event_is_comm (rank, ev) ? BAND_COMM : BAND_COMPUTE;
}

/* The class of each event of lane l for the band, cached in rl (NULL: no
 * cache, the caller reads the records). The cache holds while the lane
 * holds the same events in the same order (checked: 4 bytes an event read
 * in order): a GPU op's class changes only when it is deleted or restored,
 * and both take it out of or put it back into its lane. */
const guint8 *
_weft_band_lane_classes (WeftRankLayout *rl, const WeftRank *rank, const WeftEvent *events, guint l, const WeftLane *lane,
                   gboolean trust)
{
  const guint32 *idx = (const guint32 *) (void *) lane->events->data;
  guint n = lane->events->len;
  if (rl == NULL || l >= rl->n_lanes)
    return NULL;
  if (rl->band_n == NULL)
    {
      rl->band_n = g_new0 (guint, rl->n_lanes);
      rl->band_idx = g_new0 (guint32 *, rl->n_lanes);
      rl->band_cls = g_new0 (guint8 *, rl->n_lanes);
    }
  /* trust: a patch of a band made from this cache, the lane arrays not
   * rebuilt since (a change of a lane's events is structural for the
   * solver: it rebuilds them, and the patch is refused) */
  if (rl->band_cls[l] != NULL && rl->band_n[l] == n &&
      (trust || memcmp (rl->band_idx[l], idx, (gsize) n * sizeof (guint32)) == 0))
    return rl->band_cls[l];
  g_free (rl->band_idx[l]);
  g_free (rl->band_cls[l]);
  rl->band_n[l] = n;
  rl->band_idx[l] = g_memdup2 (idx, (gsize) n * sizeof (guint32));
  rl->band_cls[l] = g_new (guint8, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    rl->band_cls[l][i] = band_class (rank, &events[idx[i]]);
  return rl->band_cls[l];
}

/* The band of a span of time from the lane arrays, streamed (for a patch,
 * band_patch): per GPU lane and class a cursor that yields the lane's
 * maximal spans of that class in order (span_push over its ops, clipped to
 * the span), per class a union of the lanes' cursors (the smallest start
 * next, span_push again), and the band made from the two unions as
 * band_of_spans does; nothing but the band is written. The segments are
 * the ones band_from_lanes gives over the span (a maximal sorted list of a
 * union is unique). Over a whole band it was ~1.2x slower than the
 * pairwise merge (the per-span choice among the lanes), so that one stays. */
typedef struct
{
  const gint64 *s, *e;
  const guint8 *cls;      /* NULL: read the records */
  const guint32 *idx;
  guint         i, n;     /* the ops left: [i, n) */
  guint         lane;
  gint64        maxdur;   /* the longest op seen */
  Span          head;     /* the next span, valid when have */
  gboolean      have;
} LaneCursor;

typedef struct
{
  const WeftRank  *rank;
  const WeftEvent *events;
  LaneCursor      *lanes;
  guint            n_lanes;
  guint8           want;  /* BAND_COMPUTE or BAND_COMM */
  gboolean         bad;   /* a lane out of order */
  gint64           lo, hi; /* spans clipped to [lo, hi) */
  Span             head;  /* the union's next span, valid when have */
  gboolean         have;
} UnionCursor;

/* The next maximal span of lane cursor c's ops of class want. */
static void
lane_next (UnionCursor *u, LaneCursor *c)
{
  guint k = 0;
  Span sp;
  c->have = FALSE;
  for (; c->i < c->n; c->i++)
    {
      guint i = c->i;
      guint8 cl = c->cls != NULL ? c->cls[i] : band_class (u->rank, &u->events[c->idx[i]]);
      gint64 b, e;
      if (cl != u->want || c->e[i] <= c->s[i])
        continue;
      c->maxdur = MAX (c->maxdur, c->e[i] - c->s[i]);
      b = MAX (c->s[i], u->lo);
      e = MIN (c->e[i], u->hi);
      if (e <= b)
        continue;
      if (k > 0 && b > sp.e)
        break; /* the span is complete */
      if (!span_push (&sp, &k, b, e))
        {
          u->bad = TRUE;
          return;
        }
    }
  if (k > 0)
    {
      c->head = sp;
      c->have = TRUE;
    }
}

/* The next span of the union of the lanes. */
static void
union_next (UnionCursor *u)
{
  guint k = 0;
  Span sp;
  u->have = FALSE;
  for (;;)
    {
      LaneCursor *best = NULL;
      for (guint l = 0; l < u->n_lanes; l++)
        if (u->lanes[l].have && (best == NULL || u->lanes[l].head.b < best->head.b))
          best = &u->lanes[l];
      if (best == NULL || (k > 0 && best->head.b > sp.e))
        break;
      span_push (&sp, &k, best->head.b, best->head.e); /* never out of order: the smallest start first */
      lane_next (u, best);
      if (u->bad)
        return;
    }
  if (k > 0)
    {
      u->head = sp;
      u->have = TRUE;
    }
}

/* The band over [lo, hi) (every time: G_MININT64, G_MAXINT64): with rl and
 * a span, only the ops that may reach into it are read (those starting in
 * [lo - the lane's longest op, hi)), through the class cache made for rl's
 * band (trust), and the lanes' longest ops are widened in rl; over
 * everything they are recorded there. */
static GArray *
band_from_lanes_range (const WeftRankTimes *rt, WeftRankLayout *rl, gint64 lo, gint64 hi)
{
  const WeftRenderTimes *times = rt->times;
  WeftRank *rank = rt->rank;
  gboolean whole = lo == G_MININT64 && hi == G_MAXINT64;
  LaneCursor *lc = g_new0 (LaneCursor, MAX (rank->lanes->len, 1) * 2);
  UnionCursor cu = { rank, rt->events, lc, 0, BAND_COMPUTE, FALSE, lo, hi, { 0, 0 }, FALSE };
  UnionCursor mu = { rank, rt->events, lc + rank->lanes->len, 0, BAND_COMM, FALSE, lo, hi, { 0, 0 }, FALSE };
  GArray *band = NULL;
  gint64 x;

  if (!whole && (rl == NULL || rl->band_maxdur == NULL || rl->band_n == NULL))
    goto out;
  for (guint l = 0; l < rank->lanes->len; l++)
    {
      WeftLane *lane = weft_rank_lane (rank, l);
      const gint64 *s = NULL, *e = NULL;
      guint n;
      LaneCursor c;
      if (lane->kind != WEFT_LANE_GPU || lane->events->len == 0)
        continue;
      n = times->lane_func (times->user_data, rt->rank_index, l, &s, &e);
      if (n != lane->events->len || s == NULL || e == NULL)
        goto out;
      memset (&c, 0, sizeof c);
      c.s = s;
      c.e = e;
      c.lane = l;
      c.cls = _weft_band_lane_classes (rl, rank, rt->events, l, lane, !whole);
      c.idx = (const guint32 *) (void *) lane->events->data;
      c.n = n;
      if (!whole)
        {
          gint64 from = lo - MAX (rl->band_maxdur[l], 0);
          if (c.cls == NULL)
            goto out;
          c.i = weft_render_lower_bound_ts (s, 0, n, from > lo ? G_MININT64 : from);
          c.n = weft_render_lower_bound_ts (s, 0, n, hi);
          c.maxdur = rl->band_maxdur[l];
        }
      cu.lanes[cu.n_lanes++] = c;
      mu.lanes[mu.n_lanes++] = c;
    }
  for (guint l = 0; l < cu.n_lanes; l++)
    lane_next (&cu, &cu.lanes[l]);
  for (guint l = 0; l < mu.n_lanes; l++)
    lane_next (&mu, &mu.lanes[l]);
  if (cu.bad || mu.bad)
    goto out;
  union_next (&cu);
  union_next (&mu);
  band = g_array_new (FALSE, FALSE, sizeof (WeftOverlapSegment));
  if (!cu.have && !mu.have)
    goto out;
  x = !cu.have ? mu.head.b : !mu.have ? cu.head.b : MIN (cu.head.b, mu.head.b);
  for (;;)
    {
      gboolean in_c, in_m;
      gint64 next = G_MAXINT64;
      WeftOverlapState st;
      if (cu.bad || mu.bad)
        {
          g_array_free (band, TRUE);
          band = NULL;
          goto out;
        }
      in_c = cu.have && cu.head.b <= x;
      in_m = mu.have && mu.head.b <= x;
      if (cu.have)
        next = MIN (next, in_c ? cu.head.e : cu.head.b);
      if (mu.have)
        next = MIN (next, in_m ? mu.head.e : mu.head.b);
      if (next == G_MAXINT64)
        break;
      st = state_of (in_c, in_m);
      band_push (band, x, next, st);
      x = next;
      while (cu.have && cu.head.e <= x)
        union_next (&cu);
      while (mu.have && mu.head.e <= x)
        union_next (&mu);
    }
out:
  if (band != NULL && rl != NULL)
    {
      /* the lanes' longest ops (the two cursors of a lane saw its two classes) */
      if (rl->band_maxdur == NULL)
        rl->band_maxdur = g_new0 (gint64, MAX (rl->n_lanes, 1));
      for (guint k = 0; k < cu.n_lanes; k++)
        if (cu.lanes[k].lane < rl->n_lanes)
          {
            gint64 m = MAX (cu.lanes[k].maxdur, mu.lanes[k].maxdur);
            rl->band_maxdur[cu.lanes[k].lane] = whole ? m : MAX (rl->band_maxdur[cu.lanes[k].lane], m);
          }
    }
  g_free (lc);
  return band;
}

/* The whole band (the lanes' lists merged pairwise: faster than the
 * streamed merge over every op), the lanes' longest ops recorded in rl;
 * made in reuse when given (see band_of_spans; left as it was on failure). */
GArray *
_weft_band_from_lanes_into (const WeftRankTimes *rt, WeftRankLayout *rl, GArray *reuse)
{
  const WeftRenderTimes *times = rt->times;
  WeftRank *rank = rt->rank;
  GPtrArray *cl = g_ptr_array_new (), *ml = g_ptr_array_new ();
  GArray *cu, *mu, *band;

  for (guint l = 0; l < rank->lanes->len; l++)
    {
      WeftLane *lane = weft_rank_lane (rank, l);
      const guint32 *idx = (const guint32 *) (void *) lane->events->data;
      const gint64 *s = NULL, *e = NULL;
      const guint8 *cls;
      guint n;
      gint64 maxdur = 0;
      GArray *c, *m;
      if (lane->kind != WEFT_LANE_GPU || lane->events->len == 0)
        continue;
      n = times->lane_func (times->user_data, rt->rank_index, l, &s, &e);
      if (n != lane->events->len || s == NULL || e == NULL)
        goto fail;
      cls = _weft_band_lane_classes (rl, rank, rt->events, l, lane, FALSE);
      {
        guint n_c = 0, n_m = 0, kc = 0, km = 0;
        Span *pc, *pm;
        for (guint i = 0; i < n; i++)
          {
            guint8 k = cls != NULL ? cls[i] : band_class (rank, &rt->events[idx[i]]);
            n_c += k == BAND_COMPUTE;
            n_m += k == BAND_COMM;
          }
        c = g_array_sized_new (FALSE, FALSE, sizeof (Span), n_c + 1);
        m = g_array_sized_new (FALSE, FALSE, sizeof (Span), n_m + 1);
        g_ptr_array_add (cl, c);
        g_ptr_array_add (ml, m);
        pc = (Span *) (void *) c->data;
        pm = (Span *) (void *) m->data;
        for (guint i = 0; i < n; i++)
          {
            guint8 k = cls != NULL ? cls[i] : band_class (rank, &rt->events[idx[i]]);
            gboolean ok;
            if (k == BAND_NONE || e[i] <= s[i])
              continue;
            maxdur = MAX (maxdur, e[i] - s[i]);
            ok = k == BAND_COMM ? span_push (pm, &km, s[i], e[i]) : span_push (pc, &kc, s[i], e[i]);
            if (!ok)
              goto fail;
          }
        c->len = kc;
        m->len = km;
        if (rl != NULL && l < rl->n_lanes)
          {
            if (rl->band_maxdur == NULL)
              rl->band_maxdur = g_new0 (gint64, MAX (rl->n_lanes, 1));
            rl->band_maxdur[l] = maxdur;
          }
      }
    }
  cu = spans_merge_all (cl);
  mu = spans_merge_all (ml);
  /* as many segments as the observed band, about */
  band = band_of_spans (cu, mu, reuse, rl != NULL && rl->band != NULL ? rl->band->len + rl->band->len / 8 + 16 : 16);
  g_array_free (cu, TRUE);
  g_array_free (mu, TRUE);
  g_ptr_array_free (cl, TRUE);
  g_ptr_array_free (ml, TRUE);
  return band;

fail:
  spans_free_all (cl);
  spans_free_all (ml);
  return NULL;
}

static GArray *
band_from_lanes (const WeftRankTimes *rt, WeftRankLayout *rl)
{
  return _weft_band_from_lanes_into (rt, rl, NULL);
}


/* Appends seg to a band being made: the gap since the last one is idle
 * (the band is a partition of its span), equal neighbours merge. */
static void
band_append (GArray *out, WeftOverlapSegment seg)
{
  if (seg.end <= seg.begin)
    return;
  if (out->len > 0)
    {
      WeftOverlapSegment *last = &g_array_index (out, WeftOverlapSegment, out->len - 1);
      if (last->end < seg.begin)
        {
          if (last->state == WEFT_OVERLAP_IDLE)
            last->end = seg.begin;
          else
            {
              WeftOverlapSegment idle = { last->end, seg.begin, WEFT_OVERLAP_IDLE };
              g_array_append_val (out, idle);
            }
          last = &g_array_index (out, WeftOverlapSegment, out->len - 1);
        }
      if (last->state == seg.state && last->end == seg.begin)
        {
          last->end = seg.end;
          return;
        }
    }
  g_array_append_val (out, seg);
}

/* First segment with end > t. */
static guint
band_seg_end_after (const WeftOverlapSegment *seg, guint n, gint64 t)
{
  guint lo = 0, hi = n;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (seg[mid].end <= t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* The band, patched in place where the times changed ([lo, hi): outside
 * it they did not): the segments before lo and from hi on are kept (the
 * ones across either end cut there), the span's are made from the ops that
 * reach into it, and the pieces joined as the whole band would have them
 * (idle between, equal neighbours merged). The same segments as remaking
 * it (/lane-times/band-patch). FALSE: not possible (remake it). */
gboolean
_weft_band_patch (const WeftRankTimes *rt, WeftRankLayout *rl, GArray *band, gint64 lo, gint64 hi)
{
  GArray *w, *rep;
  WeftOverlapSegment *seg = (WeftOverlapSegment *) (void *) band->data;
  guint n = band->len, i0, i1, a, b;

  if (lo > hi)
    return TRUE; /* nothing changed */
  if (hi == lo)
    hi = lo + 1;
  w = band_from_lanes_range (rt, rl, lo, hi);
  if (w == NULL)
    return FALSE;
  i0 = band_seg_end_after (seg, n, lo);  /* the first that reaches past lo */
  i1 = i0;
  while (i1 < n && seg[i1].begin < hi)   /* the ones that start before hi */
    i1++;
  /* replace [a, b): one neighbour each side, so that the joins merge */
  a = i0 > 0 ? i0 - 1 : 0;
  b = MIN (i1 + 1, n);
  rep = g_array_sized_new (FALSE, FALSE, sizeof (WeftOverlapSegment), w->len + 6);
  for (guint k = a; k < i0; k++)
    band_append (rep, seg[k]);
  if (i0 < n && seg[i0].begin < lo)
    band_append (rep, (WeftOverlapSegment) { seg[i0].begin, lo, seg[i0].state });
  for (guint k = 0; k < w->len; k++)
    band_append (rep, g_array_index (w, WeftOverlapSegment, k));
  if (i1 > i0 && seg[i1 - 1].end > hi)
    band_append (rep, (WeftOverlapSegment) { hi, seg[i1 - 1].end, seg[i1 - 1].state });
  for (guint k = i1; k < b; k++)
    band_append (rep, seg[k]);
  g_array_free (w, TRUE);
  /* splice: one move of the tail */
  if (rep->len != b - a)
    {
      guint tail = n - b, nn = n - (b - a) + rep->len;
      if (nn > n)
        g_array_set_size (band, nn);
      seg = (WeftOverlapSegment *) (void *) band->data;
      memmove (&seg[a + rep->len], &seg[b], (gsize) tail * sizeof (WeftOverlapSegment));
      if (nn < n)
        g_array_set_size (band, nn);
      seg = (WeftOverlapSegment *) (void *) band->data;
    }
  memcpy (&seg[a], rep->data, (gsize) rep->len * sizeof (WeftOverlapSegment));
  g_array_free (rep, TRUE);
  return TRUE;
}

GArray *
weft_render_overlap_band (WeftTrace *trace, const WeftRenderTimes *times, guint rank_index)
{
  GArray *band;
  WeftRankTimes rt;
  WeftRank *rank;
  GArray *edges;
  gint64 compute = 0, comm = 0;

  g_return_val_if_fail (trace != NULL && rank_index < trace->ranks->len,
                        g_array_new (FALSE, FALSE, sizeof (WeftOverlapSegment)));
  weft_rank_times_init (&rt, trace, times, rank_index);
  if (rt.times != NULL && rt.times->func != NULL && rt.times->lane_func != NULL &&
      (band = band_from_lanes (&rt, NULL)) != NULL)
    return band;
  band = g_array_new (FALSE, FALSE, sizeof (WeftOverlapSegment));
  rank = rt.rank;
  edges = g_array_new (FALSE, FALSE, sizeof (Edge));
  for (guint l = 0; l < rank->lanes->len; l++)
    {
      WeftLane *lane = weft_rank_lane (rank, l);
      const guint32 *idx = (const guint32 *) (void *) lane->events->data;
      if (lane->kind != WEFT_LANE_GPU)
        continue;
      for (guint i = 0; i < lane->events->len; i++)
        {
          const WeftEvent *ev = &rt.events[idx[i]];
          gint64 b, e;
          gboolean is_comm;
          Edge eb, ee;
          if (!(ev->flags & WEFT_EVENT_GPU_OP) || (ev->flags & WEFT_EVENT_DELETED))
            continue;
          weft_rank_times_get (&rt, idx[i], &b, &e);
          if (e <= b)
            continue;
          is_comm = weft_render_event_is_comm (rank, ev);
          eb.t = b;
          eb.d_compute = is_comm ? 0 : 1;
          eb.d_comm = is_comm ? 1 : 0;
          ee.t = e;
          ee.d_compute = (gint8) -eb.d_compute;
          ee.d_comm = (gint8) -eb.d_comm;
          g_array_append_val (edges, eb);
          g_array_append_val (edges, ee);
        }
    }
  if (edges->len > 1) /* qsort (NULL, 0) is undefined: a trace without GPU ops */
    qsort (edges->data, edges->len, sizeof (Edge), edge_cmp);
  for (guint i = 0; i < edges->len;)
    {
      gint64 t = g_array_index (edges, Edge, i).t;
      WeftOverlapState st;
      while (i < edges->len && g_array_index (edges, Edge, i).t == t)
        {
          compute += g_array_index (edges, Edge, i).d_compute;
          comm += g_array_index (edges, Edge, i).d_comm;
          i++;
        }
      if (i >= edges->len)
        {
          if (band->len > 0)
            g_array_index (band, WeftOverlapSegment, band->len - 1).end = t;
          break;
        }
      st = state_of (compute, comm);
      if (band->len > 0)
        {
          WeftOverlapSegment *last = &g_array_index (band, WeftOverlapSegment, band->len - 1);
          last->end = t;
          if (last->state == st)
            continue;
        }
      {
        WeftOverlapSegment seg = { t, t, st };
        g_array_append_val (band, seg);
      }
    }
  g_array_free (edges, TRUE);
  return band;
}

