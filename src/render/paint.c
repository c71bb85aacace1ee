/* paint.c: the timeline body. Passes, as Perfetto draws: geometry (with
 * level-of-detail folding, cost growing with boxes drawn, not events held),
 * fills batched by colour with antialiasing off, text, overlays. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "render-private.h"

typedef WeftFillRect Rect;

typedef struct
{
  double  x, y, w;
  guint   rank_index;
  guint32 name;
  guint32 pp;         /* its pipeline action (packed), 0: none */
  gboolean light_text;
} Label;

typedef struct
{
  cairo_t               *cr;
  WeftTrace             *trace;
  const WeftView        *view;
  const WeftLayout      *layout;
  const WeftRenderTimes *times;
  WeftRenderStats        stats;
  GArray                *rects[WEFT_KEY_N];
  GArray                *band_rects[WEFT_OVERLAP_N_STATES];
  GArray                *labels;
  GArray                *jobs;      /* WeftFoldJob: the folds of the rows in pending */
  GArray                *pending;   /* PendingRow: rows met, not yet drawn (flush) */
  GHashTable            *claimed;   /* the box caches of the rows in pending */
  GArray                *band_jobs; /* BandJob: the samplers of the bands in bands */
  GArray                *bands;     /* PendingBand: bands met, not yet pushed (flush) */
  GArray                *mem_jobs;  /* MemJob: the column folds of the memory rows met */
  WeftFoldView           fv;
  double                 scale;     /* px per ns */
  gint64                 t0, t1;
  gint64                 ns_per_min_box;
} Paint;

static inline void
push_rect (GArray **arr, double x, double y, double w, double h)
{
  Rect r = { x, y, w, h };
  if (*arr == NULL)
    *arr = g_array_sized_new (FALSE, FALSE, sizeof (Rect), 256);
  g_array_append_val (*arr, r);
}

static inline double
luminance (WeftRgba c)
{
  return 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b;
}

static inline double
clamp_x (const Paint *p, double x)
{
  return CLAMP (x, -2.0, p->view->width + 2.0);
}

/* A box into the frame's fills, counted; a wide one is a label candidate. */
static void
emit_box (Paint *p, const WeftRankTimes *rt, const WeftDepthRow *dr, const WeftCachedBox *bx, double y, double h,
          gboolean labels, const guint32 *pp)
{
  push_rect (&p->rects[bx->key], bx->x, y, bx->w, h);
  p->stats.boxes++;
  if (bx->count > 1)
    {
      p->stats.folded_boxes++;
      p->stats.events_folded += bx->count;
    }
  if (bx->count == 0 && labels && bx->w >= WEFT_RENDER_MIN_LABEL_PX + 12.0)
    {
      guint key = bx->key;
      WeftRgba c = weft_render_key_color (key, p->view->dark);
      Label l = { MAX (bx->x, 0.0), y, MIN (bx->x1, p->view->width) - MAX (bx->x, 0.0) - 1.0, rt->rank_index,
                  rt->events[dr->idx[bx->start]].name,
                  pp != NULL && key != WEFT_KEY_DELETED && (key < WEFT_KEY_COLL_BASE || key >= WEFT_KEY_MB_BASE)
                    ? pp[dr->idx[bx->start]] : 0,
                  luminance (c) < 0.5 };
      if (l.w >= WEFT_RENDER_MIN_LABEL_PX + 12.0)
        g_array_append_val (p->labels, l);
    }
}

/* The first index in [a, n) of the sorted positions pos whose value is
 * >= x (or_equal) or > x; n when there is none. */
static guint
pos_bound (const guint32 *pos, guint a, guint n, guint32 x, gboolean or_equal)
{
  while (a < n)
    {
      guint mid = a + (n - a) / 2;
      if (or_equal ? pos[mid] < x : pos[mid] <= x)
        a = mid + 1;
      else
        n = mid;
    }
  return a;
}

static inline gboolean
row_cache_fits (const WeftRowCache *c, const Paint *p, const WeftDepthRow *dr, gconstpointer owner, gboolean labels)
{
  return c != NULL && c->t0 == p->t0 && c->t1 == p->t1 && c->width == p->view->width &&
         c->mb == p->view->color_by_microbatch && c->labels == labels && c->owner == owner &&
         c->ls == dr->sstart && c->le == dr->send && c->n == dr->n;
}

/* A depth row of the frame waiting for its boxes (paint_events): drawn
 * in the order the rows were met, once the frame's folds are made
 * (flush). job: its fold in Paint.jobs, -1 none (its cached boxes
 * as they are); slot: where its boxes are kept with the keys below, NULL
 * not kept (the job's array is freed once drawn). */
typedef struct
{
  WeftRankTimes  rt;
  WeftDepthRow   dr;
  double         y, h;
  gboolean       labels;
  gint           job;
  WeftRowCache **slot;
  gconstpointer  owner;
  guint64        epoch;
  guint32        first;
} PendingRow;

static WeftFoldJob *
add_job (Paint *p, const WeftRankTimes *rt, const WeftDepthRow *dr, guint i, guint mr, GArray *out)
{
  WeftFoldJob j = { &p->fv, *rt, *dr, i, mr, NULL, 0, 0, 0, 0, out, 0 };
  g_array_append_val (p->jobs, j);
  return &g_array_index (p->jobs, WeftFoldJob, p->jobs->len - 1);
}

/* Each waiting row's boxes, its fold made (flush), kept and drawn in
 * order: the same boxes, rects and labels in the same order as folding
 * and drawing each row where it was met. */
static void
emit_rows (Paint *p)
{
  for (guint k = 0; k < p->pending->len; k++)
    {
      PendingRow *pr = &g_array_index (p->pending, PendingRow, k);
      const guint32 *pp = pr->rt.rank_index < p->layout->n_ranks ? p->layout->ranks[pr->rt.rank_index].pp : NULL;
      GArray *out;
      if (pr->job < 0)
        out = (*pr->slot)->boxes;
      else
        {
          WeftFoldJob *j = &g_array_index (p->jobs, WeftFoldJob, pr->job);
          p->stats.events_visited += j->visited;
          out = j->out;
          if (pr->slot != NULL)
            {
              WeftRowCache *c = *pr->slot;
              if (c == NULL)
                c = *pr->slot = g_new0 (WeftRowCache, 1);
              if (c->boxes != NULL)
                g_array_free (c->boxes, TRUE);
              c->boxes = out;
              c->t0 = p->t0;
              c->t1 = p->t1;
              c->width = p->view->width;
              c->mb = p->view->color_by_microbatch;
              c->labels = pr->labels;
              c->owner = pr->owner;
              c->ls = pr->dr.sstart;
              c->le = pr->dr.send;
              c->n = pr->dr.n;
              c->epoch = pr->epoch;
              c->first = pr->first;
            }
        }
      for (guint b = 0; b < out->len; b++)
        emit_box (p, &pr->rt, &pr->dr, &g_array_index (out, WeftCachedBox, b), pr->y, pr->h, pr->labels, pp);
      if (pr->job >= 0 && pr->slot == NULL)
        g_array_free (out, TRUE);
    }
  g_array_set_size (p->jobs, 0);
  g_array_set_size (p->pending, 0);
  g_hash_table_remove_all (p->claimed);
}

static void flush (Paint *p);

/* One depth row of events at screen y (box top) with height h, its fold
 * queued for flush. A row drawn from the lane arrays keeps its boxes
 * in the layout (lane, depth); the next paint of the same view replays
 * them when none of the row's entries changed since, or folds again only
 * from the first box that read a changed entry to where the fold meets
 * the kept boxes again (the same boxes as folding the whole row: see
 * fold.c). A row whose kept boxes a queued row will replace (the same
 * lane and depth met twice) first has the queue flushed. */
static void
paint_events (Paint *p, const WeftRankTimes *rt, const WeftDepthRow *dr, guint32 lane, guint depth, double y,
              double h, gboolean labels)
{
  const WeftRenderTimes *tm = rt->times;
  PendingRow pr = { *rt, *dr, y, h, labels, -1, NULL, NULL, 0, 0 };
  WeftRowCache *c = NULL;

  if (dr->n == 0)
    return;
  if (dr->from_lanes && tm != NULL && tm->lane_changed != NULL && rt->rank_index < p->layout->n_ranks &&
      lane < p->layout->ranks[rt->rank_index].n_lanes && depth < WEFT_RENDER_MAX_DEPTH)
    {
      pr.slot = &p->layout->ranks[rt->rank_index].lanes[lane].boxes[depth]; /* a cache: logically const */
      if (g_hash_table_contains (p->claimed, pr.slot))
        flush (p);
      g_hash_table_add (p->claimed, pr.slot);
      c = *pr.slot;
      pr.owner = tm->user_data;
    }
  if (pr.slot == NULL)
    {
      pr.job = (gint) p->jobs->len;
      add_job (p, rt, dr, weft_fold_row_first_end_after (rt, dr, p->t0), 0,
               g_array_new (FALSE, FALSE, sizeof (WeftCachedBox)));
    }
  else
    {
      guint lo = 1, hi = 0;
      gboolean known = row_cache_fits (c, p, dr, pr.owner, labels) &&
                       tm->lane_changed (tm->user_data, rt->rank_index, lane, c->epoch, &pr.epoch, &lo, &hi);
      guint32 cmin = G_MAXUINT32, cmax = 0;
      GArray *out;
      if (!known && !row_cache_fits (c, p, dr, pr.owner, labels))
        tm->lane_changed (tm->user_data, rt->rank_index, lane, 0, &pr.epoch, &lo, &hi); /* the epoch now */
      if (known && lo <= hi)
        {
          /* the row's indices whose lane positions lie in [lo, hi] */
          if (dr->spos != NULL)
            {
              guint a;
              cmin = pos_bound (dr->spos, 0, dr->n, lo, TRUE);
              a = pos_bound (dr->spos, cmin, dr->n, hi, FALSE);
              if (a > cmin)
                cmax = a - 1;
              else
                cmin = G_MAXUINT32;
            }
          else if (lo < dr->n)
            {
              cmin = lo;
              cmax = MIN (hi, dr->n - 1);
            }
        }
      if (known && cmin == G_MAXUINT32)
        {
          /* nothing of this row changed: its boxes as they were */
          c->epoch = pr.epoch;
          p->stats.rows_replayed++;
          g_array_append_val (p->pending, pr);
          return;
        }
      out = g_array_sized_new (FALSE, FALSE, sizeof (WeftCachedBox), c != NULL ? c->boxes->len + 16 : 64);
      pr.first = weft_fold_row_first_end_after (rt, dr, p->t0);
      pr.job = (gint) p->jobs->len;
      if (known && pr.first == c->first)
        {
          const WeftCachedBox *old = (const WeftCachedBox *) (void *) c->boxes->data;
          guint n_old = c->boxes->len, q = 0;
          WeftFoldJob *j;
          while (q < n_old && old[q].maxread < cmin)
            q++;
          g_array_append_vals (out, old, q);
          j = add_job (p, rt, dr, q == 0 ? c->first : old[q - 1].next, q == 0 ? 0 : old[q - 1].maxread, out);
          j->old = old;
          j->n_old = n_old;
          j->q = q;
          j->old_first = c->first;
          j->cmax = cmax;
          p->stats.rows_patched++;
        }
      else
        add_job (p, rt, dr, pr.first, 0, out);
    }
  g_array_append_val (p->pending, pr);
}

/* First segment in [lo, n) with end > t, galloping from lo. */
static guint
seg_end_after (const WeftOverlapSegment *seg, guint lo, guint n, gint64 t)
{
  guint hi = n, step = 1;
  while (lo < n)
    {
      guint probe = lo + step - 1;
      if (probe >= n)
        break;
      if (seg[probe].end > t)
        {
          hi = probe;
          break;
        }
      lo = probe + 1;
      step *= 2;
    }
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

/* Adds a band rectangle, merged with the previous one of that state when adjacent. */
static void
push_band (Paint *p, WeftOverlapState state, double x, double y, double w, double h)
{
  GArray *arr = p->band_rects[state];
  if (state == WEFT_OVERLAP_IDLE || w <= 0)
    return;
  if (arr != NULL && arr->len > 0)
    {
      Rect *last = &g_array_index (arr, Rect, arr->len - 1);
      if (last->y == y && fabs (last->x + last->w - x) < 0.01)
        {
          last->w = x + w - last->x;
          return;
        }
    }
  push_rect (&p->band_rects[state], x, y, w, h);
}

/* A step of the band's sampler, recorded into items (what is pushed once
 * the frame's samplers are done, and the band's cache). */
static inline void
band_step (GArray *items, WeftOverlapState state, double x, double w, gint64 treach, gint64 tstate,
           double xmin_after)
{
  WeftBandItem it = { x, w, xmin_after, treach, tstate, (guint8) state };
  g_array_append_val (items, it);
}

/* The sampler of a band from segment i on (x_min: where the next box may
 * start), its steps appended to items; with old (the steps of the band's
 * last paint before its patch over [plo, phi]), once it is about to read
 * a segment beginning after phi at a state an old step q.. also went on
 * from, those old steps are appended and it stops. Reads only the
 * segments and the view (a task of weft_render_run_tasks). */
typedef struct
{
  const Paint              *p;
  const WeftOverlapSegment *seg;
  guint                     n, i, q;
  double                    x_min;
  const GArray             *old;
  gint64                    phi;
  GArray                   *items;
} BandJob;

static void
band_sample (BandJob *j)
{
  const Paint *p = j->p;
  const WeftOverlapSegment *seg = j->seg;
  guint n = j->n, i = j->i, q = j->q;
  double x_min = j->x_min;
  GArray *items = j->items;
  const GArray *old = j->old;

  while (i < n && seg[i].begin < p->t1)
    {
      double xb, xe;
      if (old != NULL && seg[i].begin > j->phi)
        {
          /* past the span: the old steps from the same state on */
          const WeftBandItem *it = (const WeftBandItem *) (void *) old->data;
          while (q < old->len && it[q].tstate < seg[i].begin)
            q++;
          if (q < old->len && it[q].tstate == seg[i].begin && it[q].xmin_after == x_min)
            {
              g_array_append_vals (items, it + q + 1, old->len - q - 1);
              break;
            }
        }
      xb = MAX ((double) (seg[i].begin - p->t0) * p->scale, x_min);
      xe = (double) (seg[i].end - p->t0) * p->scale;
      if (xe - xb >= 1.0)
        {
          x_min = xe;
          band_step (items, seg[i].state, clamp_x (p, xb), clamp_x (p, xe) - clamp_x (p, xb), seg[i].end,
                     i + 1 < n ? seg[i + 1].begin : G_MAXINT64, x_min);
          i++;
        }
      else
        {
          /* Dense: one pixel column, the state at its centre (the band is a
           * partition of time, so this is a sample, not a merge). */
          double col = floor (xb);
          gint64 tmid = p->t0 + (gint64) ((col + 0.5) / p->scale);
          gint64 tnext = p->t0 + (gint64) ((col + 1.0) / p->scale);
          guint jj = MIN (seg_end_after (seg, i, n, tmid), n - 1);
          WeftOverlapState st = seg[jj].state;
          gint64 reach;
          x_min = col + 1.0;
          /* next: the first segment still running at the next column */
          i = MAX (seg_end_after (seg, jj, n, tnext), i + 1);
          reach = i < n ? MAX (seg[jj].end, seg[i].end) : G_MAXINT64;
          band_step (items, st, col, 1.0, reach, i < n ? seg[i].begin : G_MAXINT64, x_min);
        }
    }
}

/* The band of a rank header at y, height h. bc (NULL: none): the rank's
 * cache of the sampler's steps, replayed when the band (array and version)
 * and the view are those it was made for; when the band was patched once
 * since over [plo, phi] (patched TRUE), the steps that read only segments
 * ending before plo are kept, the sampler runs from the state after them,
 * and once it is about to read a segment beginning after phi at a state
 * that an old step also went on from, the old steps from there on are
 * kept: the same steps as sampling the whole band (outside the span the
 * band is the same partition, and a step reads nothing before its state). */
/* A band of the frame waiting to be pushed (flush): its steps items, made
 * by band_jobs[job] (-1: its cache's, as they were); old: the steps its
 * patch replaced, freed then; owned: items is not a cache's. */
typedef struct
{
  double  y, h;
  gint    job;
  GArray *items;
  GArray *old;
  gboolean owned;
} PendingBand;

static void
paint_band (Paint *p, GArray *band, WeftBandCache *bc, guint64 version, gboolean patched, gint64 plo, gint64 phi,
            double y, double h)
{
  PendingBand pb = { y, h, -1, NULL, NULL, FALSE };
  BandJob j = { p, NULL, 0, 0, 0, -2.0, NULL, phi, NULL };

  if (band == NULL || band->len == 0)
    return;
  j.seg = (const WeftOverlapSegment *) (void *) band->data;
  j.n = band->len;
  j.i = seg_end_after (j.seg, 0, j.n, p->t0);
  if (bc != NULL)
    {
      gboolean view_same = bc->t0 == p->t0 && bc->t1 == p->t1 && bc->width == p->view->width && bc->items != NULL;
      if (bc->band == band && bc->version == version && view_same)
        {
          pb.items = bc->items;
          g_array_append_val (p->bands, pb);
          p->stats.bands_replayed++;
          return;
        }
      if (bc->band == band && patched && bc->version + 1 == version && view_same && plo <= phi)
        {
          /* keep the steps before the patched span */
          const WeftBandItem *it = (const WeftBandItem *) (void *) bc->items->data;
          guint q = 0;
          j.old = pb.old = bc->items;
          while (q < j.old->len && it[q].treach < plo && it[q].tstate < plo)
            q++;
          j.items = g_array_sized_new (FALSE, FALSE, sizeof (WeftBandItem), j.old->len + 16);
          g_array_append_vals (j.items, it, q);
          if (q > 0)
            {
              j.i = seg_end_after (j.seg, 0, j.n, it[q - 1].tstate);
              j.x_min = it[q - 1].xmin_after;
            }
          j.q = q;
          bc->items = j.items;
          p->stats.bands_patched++;
        }
      else
        {
          if (bc->items == NULL)
            bc->items = g_array_new (FALSE, FALSE, sizeof (WeftBandItem));
          g_array_set_size (bc->items, 0);
          j.items = bc->items;
        }
      bc->band = band;
      bc->version = version;
      bc->t0 = p->t0;
      bc->t1 = p->t1;
      bc->width = p->view->width;
    }
  else
    {
      j.items = g_array_new (FALSE, FALSE, sizeof (WeftBandItem));
      pb.owned = TRUE;
    }
  pb.items = j.items;
  pb.job = (gint) p->band_jobs->len;
  g_array_append_val (p->band_jobs, j);
  g_array_append_val (p->bands, pb);
}

/* The column fold of a memory row (memory.c), into its rank's cache, for
 * the row's paint after the flush: at a wide view the folds of 8 ranks'
 * curves were a quarter of a zoom frame's samples, all on the caller's
 * thread (perf, bench-scale on the 8-rank set). */
typedef struct
{
  WeftMemoryCache    *mc;
  WeftMemoryTimeline *memory;
  guint64             serial;
  const gint64       *t, *a, *r;
  guint               n;
  WeftRenderStats     stats;
} MemJob;

/* A memory row met in pass 1: its fold joins the next flush's tasks (one
 * per rank's cache; a curve the row's paint would not fold is left to
 * it). */
static void
add_memory_job (Paint *p, WeftMemoryTimeline *memory, const WeftLayoutRow *row)
{
  MemJob j = { 0 };
  WeftMemoryTimelinePeak all, peak;

  /* the curves weft_render_paint_memory_row folds */
  if (row->rank_index >= p->layout->n_ranks ||
      !weft_render_memory_row_curve (memory, row->rank_index, &j.t, &j.a, &j.r, &j.n, &all, &peak))
    return;
  j.mc = &p->layout->ranks[row->rank_index].mem_cache; /* the layout's cache: logically const */
  for (guint k = 0; k < p->mem_jobs->len; k++)
    if (g_array_index (p->mem_jobs, MemJob, k).mc == j.mc)
      return;
  j.memory = memory;
  j.serial = weft_memory_timeline_get_serial (memory);
  g_array_append_val (p->mem_jobs, j);
}

/* Task k of a frame's flush: a memory row's fold (k < those), a row's
 * fold (k < those after them), else a band's sampler. */
static void
frame_task (gpointer data, guint k)
{
  Paint *p = data;
  guint nm = p->mem_jobs->len;
  if (k < nm)
    {
      MemJob *j = &g_array_index (p->mem_jobs, MemJob, k);
      weft_render_memory_columns (j->mc, j->memory, j->serial, j->t, j->a, j->r, j->n, p->view, &j->stats);
    }
  else if (k - nm < p->jobs->len)
    weft_fold_job_run (&g_array_index (p->jobs, WeftFoldJob, k - nm));
  else
    band_sample (&g_array_index (p->band_jobs, BandJob, k - nm - p->jobs->len));
}

/* The folds and band samplers of the rows and bands met so far, shared
 * with the painter's threads where they read only arrays (pool.c), then
 * their boxes and steps pushed in the order they were met. */
static void
flush (Paint *p)
{
  guint nm = p->mem_jobs->len, nf = p->jobs->len, nb = p->band_jobs->len, n = 0;
  guint *order = g_new (guint, nm + nf + nb + 1);

  /* the memory rows' folds first: the longest tasks */
  for (guint k = 0; k < nm; k++)
    order[n++] = k;
  for (guint k = 0; k < nf; k++)
    if (weft_fold_job_reads_arrays (&g_array_index (p->jobs, WeftFoldJob, k)))
      order[n++] = nm + k;
  for (guint k = 0; k < nb; k++)
    order[n++] = nm + nf + k;
  if (weft_render_run_tasks (frame_task, p, order, n) > 0)
    p->stats.rows_folded_shared += n - nb - nm;
  for (guint k = 0; k < nf; k++)
    if (!weft_fold_job_reads_arrays (&g_array_index (p->jobs, WeftFoldJob, k)))
      weft_fold_job_run (&g_array_index (p->jobs, WeftFoldJob, k));
  g_free (order);
  for (guint k = 0; k < nm; k++)
    p->stats.memory_points += g_array_index (p->mem_jobs, MemJob, k).stats.memory_points;
  g_array_set_size (p->mem_jobs, 0);
  for (guint k = 0; k < p->bands->len; k++)
    {
      PendingBand *pb = &g_array_index (p->bands, PendingBand, k);
      for (guint i = 0; i < pb->items->len; i++)
        {
          const WeftBandItem *it = &g_array_index (pb->items, WeftBandItem, i);
          push_band (p, (WeftOverlapState) it->state, it->x, pb->y, it->w, pb->h);
        }
      if (pb->old != NULL)
        g_array_free (pb->old, TRUE);
      if (pb->owned)
        g_array_free (pb->items, TRUE);
    }
  g_array_set_size (p->band_jobs, 0);
  g_array_set_size (p->bands, 0);
  emit_rows (p);
}

static void
set_source (cairo_t *cr, WeftRgba c, double alpha)
{
  cairo_set_source_rgba (cr, c.r, c.g, c.b, c.a * alpha);
}

/* A colour's boxes in one fill (fill.c: straight into an image surface's
 * pixels where that gives cairo's pixels). */
static void
fill_rects (Paint *p, const WeftFillTarget *ft, GArray *rects, WeftRgba c, double alpha)
{
  if (rects == NULL || rects->len == 0)
    return;
  if (weft_fill_boxes (p->cr, ft, (const Rect *) (const void *) rects->data, rects->len, c.r, c.g, c.b,
                       c.a * alpha))
    p->stats.fills_direct++;
}

static void
paint_steps (Paint *p, const WeftFillTarget *ft, WeftRank *rank, gint64 offset, double y0, double y1)
{
  cairo_t *cr = p->cr;
  WeftRgba tc = weft_render_text_color (p->view->dark);
  double dash[] = { 3.0, 3.0 };
  GArray *xs;

  if (rank->steps->len == 0)
    return;
  xs = g_array_sized_new (FALSE, FALSE, sizeof (double), 2 * rank->steps->len);
  for (guint s = 0; s < rank->steps->len; s++)
    {
      const WeftStep *st = &g_array_index (rank->steps, WeftStep, s);
      gint64 ts[2] = { st->begin + offset, st->end + offset };
      for (int k = 0; k < 2; k++)
        {
          double x;
          if (ts[k] < p->t0 || ts[k] > p->t1)
            continue;
          x = floor ((double) (ts[k] - p->t0) * p->scale) + 0.5;
          g_array_append_val (xs, x);
        }
    }
  /* straight into the pixels where that paints what the stroke paints
   * (fill.c), else one dashed stroke of a subpath per line */
  if (xs->len > 0 && !weft_fill_dashed_vlines (cr, ft, (const double *) (const void *) xs->data, xs->len, y0, y1, dash,
                                                2, tc.r, tc.g, tc.b, tc.a * 0.45))
    {
      cairo_save (cr);
      set_source (cr, tc, 0.45);
      cairo_set_line_width (cr, 1.0);
      cairo_set_dash (cr, dash, 2, 0);
      for (guint i = 0; i < xs->len; i++)
        {
          cairo_move_to (cr, g_array_index (xs, double, i), y0);
          cairo_line_to (cr, g_array_index (xs, double, i), y1);
        }
      cairo_stroke (cr);
      cairo_restore (cr);
    }
  g_array_free (xs, TRUE);
}

static void
flush_glyphs (cairo_t *cr, cairo_scaled_font_t *font, GArray *glyphs)
{
  if (font != NULL && glyphs->len > 0)
    {
      cairo_set_scaled_font (cr, font);
      cairo_show_glyphs (cr, (const cairo_glyph_t *) (void *) glyphs->data, (int) glyphs->len);
    }
  g_array_set_size (glyphs, 0);
}

/* Labels in two passes (dark text, light text); glyphs of one font are
 * gathered and shown with a single cairo_show_glyphs per pass. */
static void
paint_labels (Paint *p)
{
  cairo_t *cr = p->cr;
  WeftRgba dark_text = { 0.08, 0.08, 0.1, 1 }, light_text = { 1, 1, 1, 1 };
  GArray *glyphs = g_array_sized_new (FALSE, FALSE, sizeof (cairo_glyph_t), 1024);

  for (int pass = 0; pass < 2; pass++)
    {
      gboolean light = pass == 1;
      cairo_scaled_font_t *current = NULL;
      set_source (cr, light ? light_text : dark_text, 0.95);
      for (guint i = 0; i < p->labels->len; i++)
        {
          const Label *l = &g_array_index (p->labels, Label, i);
          const WeftLabelGlyphs *g;
          if (l->light_text != light)
            continue;
          g = weft_layout_label_glyphs (p->layout, l->rank_index, l->name, l->pp);
          if (g->font != NULL)
            {
              /* the glyphs that fit, shifted to the box */
              double avail = l->w - 4.0;
              int n = 0;
              if (g->font != current)
                {
                  flush_glyphs (cr, current, glyphs);
                  current = g->font;
                }
              while (n < g->n && g->right[n] <= avail)
                {
                  cairo_glyph_t cg = { g->glyphs[n].index, g->glyphs[n].x + l->x + 2.0, g->glyphs[n].y + l->y + 1.5 };
                  g_array_append_val (glyphs, cg);
                  n++;
                }
              if (n == 0)
                continue;
            }
          else
            {
              int tw;
              PangoLayout *pl = weft_layout_label_pp (p->layout, l->rank_index, l->name, l->pp, &tw);
              if (tw <= 0)
                continue;
              cairo_save (cr);
              cairo_rectangle (cr, l->x + 1.0, l->y, l->w - 2.0, WEFT_RENDER_LANE_ROW);
              cairo_clip (cr);
              cairo_move_to (cr, l->x + 2.0, l->y + 1.5);
              pango_cairo_show_layout (cr, pl);
              cairo_restore (cr);
            }
          p->stats.labels++;
        }
      flush_glyphs (cr, current, glyphs);
    }
  g_array_free (glyphs, TRUE);
}

gboolean
weft_render_event_rect (WeftTrace *trace, const WeftView *view, const WeftLayout *layout,
                        const WeftRenderTimes *times, guint rank_index, guint32 event, double *x, double *y,
                        double *w, double *h)
{
  WeftRank *rank;
  const WeftEvent *ev;
  const WeftLayoutRow *row;
  WeftRankTimes rt;
  gint64 b, e;
  int r;

  if (rank_index >= trace->ranks->len || rank_index >= layout->n_ranks)
    return FALSE;
  rank = weft_trace_rank (trace, rank_index);
  if (event >= rank->events->len)
    return FALSE;
  ev = weft_rank_event (rank, event);
  if (ev->lane == WEFT_NONE)
    return FALSE;
  r = weft_layout_find_lane (layout, rank_index, ev->lane);
  if (r < 0)
    return FALSE;
  row = weft_layout_get_row (layout, (guint) r);
  weft_rank_times_init (&rt, trace, times, rank_index);
  weft_rank_times_get (&rt, event, &b, &e);
  *x = weft_render_time_to_x (view, b);
  *w = MAX (weft_render_time_to_x (view, e) - *x, 1.0);
  if (row->kind == WEFT_ROW_LANE)
    {
      *y = weft_row_depth_y (row, weft_layout_event_depth (layout, rank_index, event)) - view->scroll_y;
      *h = WEFT_RENDER_LANE_ROW - 2.0;
    }
  else if (row->kind == WEFT_ROW_CPU_SUMMARY)
    {
      *y = weft_row_depth_y (row, 0) - view->scroll_y;
      *h = WEFT_RENDER_LANE_ROW - 2.0;
    }
  else
    {
      *y = row->y + 4.0 - view->scroll_y;
      *h = row->height - 8.0;
    }
  return TRUE;
}

static void
paint_critical_path (Paint *p, const WeftRenderOverlay *overlay)
{
  cairo_t *cr = p->cr;
  WeftRgba cp = p->view->dark ? (WeftRgba) { 1.0, 0.35, 0.95, 1 } : (WeftRgba) { 0.85, 0.0, 0.75, 1 };
  double px = 0, py = 0;
  gboolean have_prev = FALSE;

  cairo_save (cr);
  cairo_set_antialias (cr, CAIRO_ANTIALIAS_DEFAULT);
  set_source (cr, cp, 1.0);
  cairo_set_line_width (cr, 2.0);
  for (guint i = 0; i < overlay->n_critical_path; i++)
    {
      const WeftEventRef *ref = &overlay->critical_path[i];
      double x, y, w, h;
      if (!weft_render_event_rect (p->trace, p->view, p->layout, p->times, ref->rank_index, ref->event, &x, &y,
                                   &w, &h))
        {
          have_prev = FALSE;
          continue;
        }
      if (x + w >= -50 && x <= p->view->width + 50 && y + h >= -50 && y <= p->view->height + 50)
        {
          cairo_rectangle (cr, x + 0.5, y + 0.5, MAX (w - 1.0, 1.0), h - 1.0);
          cairo_stroke (cr);
        }
      if (have_prev && !((px < 0 && x < 0) || (px > p->view->width && x > p->view->width)))
        {
          /* connectors: thin and dashed, the ops carry the emphasis */
          double dash[] = { 4.0, 3.0 };
          cairo_save (cr);
          cairo_set_line_width (cr, 1.0);
          cairo_set_dash (cr, dash, 2, 0);
          set_source (cr, cp, 0.7);
          cairo_move_to (cr, px, py);
          cairo_line_to (cr, x, y + h / 2);
          cairo_stroke (cr);
          cairo_restore (cr);
        }
      px = x + w;
      py = y + h / 2;
      have_prev = TRUE;
    }
  cairo_restore (cr);
}

/* A memory row, or the pixels its last paint left when it would paint
 * them again: the same curve (timeline and serial), view and place, over
 * the same pixels (fill.c, pixel memo; the rows it paints reach 3 px
 * above its own, the peak's marker from the row's top + 4 - 7). */
static void
paint_memory_row (Paint *p, const WeftFillTarget *ft, WeftMemoryTimeline *memory, const WeftLayoutRow *row, double y)
{
  WeftRankLayout *rl = row->rank_index < p->layout->n_ranks ? &p->layout->ranks[row->rank_index] : NULL;
  WeftPixelMemo *m = rl != NULL ? &rl->mem_pixels : NULL; /* the layout's cache: logically const */
  WeftPixelMemoKey key;
  WeftRenderStats st = { 0 };
  double y0 = y - 4.0, y1 = y + row->height + 1.0;
  gboolean memo;

  memset (&key, 0, sizeof key);
  key.memory = memory;
  key.serial = memory != NULL ? weft_memory_timeline_get_serial (memory) : 0;
  {
    const gint64 *t = NULL, *a = NULL, *r = NULL;
    guint n = 0;
    int device = 0;
    if (memory != NULL && weft_memory_timeline_curve (memory, row->rank_index, &device, &t, &a, &r, &n))
      {
        key.curve = t;
        key.n_curve = n;
      }
  }
  key.rank_index = row->rank_index;
  key.dark = p->view->dark;
  key.t0 = p->view->span.begin;
  key.t1 = p->view->span.end;
  key.width = p->view->width;
  key.y = y;
  key.height = row->height;
  if (m != NULL && weft_pixel_memo_replay (m, ft, &key, y0, y1))
    {
      p->stats.memory_rows++;
      p->stats.memory_fills += m->fills;
      p->stats.memory_peak = MAX (p->stats.memory_peak, m->peak);
      p->stats.memory_rows_replayed++;
      return;
    }
  memo = m != NULL && weft_pixel_memo_begin (m, ft, &key, y0, y1);
  weft_render_paint_memory_row (p->cr, p->view, p->layout, memory, row, y, &st);
  p->stats.memory_rows += st.memory_rows;
  p->stats.memory_points += st.memory_points;
  p->stats.memory_fills += st.memory_fills;
  p->stats.memory_peak = MAX (p->stats.memory_peak, st.memory_peak);
  if (memo)
    {
      weft_pixel_memo_end (m, ft);
      m->fills = st.memory_fills;
      m->peak = st.memory_peak;
    }
}

void
weft_render_paint_body (cairo_t *cr, WeftTrace *trace, const WeftView *view, const WeftLayout *layout,
                        const WeftRenderTimes *times, const WeftRenderOverlay *overlay, WeftRenderStats *stats)
{
  Paint p;
  WeftRgba bg, tc;
  WeftFillTarget ft;
  int first;
  gboolean dark;

  g_return_if_fail (cr != NULL && trace != NULL && view != NULL && layout != NULL);
  memset (&p, 0, sizeof p);
  p.cr = cr;
  p.trace = trace;
  p.view = view;
  p.layout = layout;
  p.times = times;
  p.t0 = view->span.begin;
  p.t1 = view->span.end;
  p.labels = g_array_new (FALSE, FALSE, sizeof (Label));
  p.jobs = g_array_new (FALSE, FALSE, sizeof (WeftFoldJob));
  p.pending = g_array_new (FALSE, FALSE, sizeof (PendingRow));
  p.claimed = g_hash_table_new (NULL, NULL);
  p.band_jobs = g_array_new (FALSE, FALSE, sizeof (BandJob));
  p.bands = g_array_new (FALSE, FALSE, sizeof (PendingBand));
  p.mem_jobs = g_array_new (FALSE, FALSE, sizeof (MemJob));
  dark = view->dark;
  bg = weft_render_background_color (dark);
  tc = weft_render_text_color (dark);

  cairo_save (cr);
  cairo_rectangle (cr, 0, 0, view->width, view->height);
  cairo_clip (cr);
  cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);
  weft_fill_target_init (&ft, cr);
  /* the background: in stripes on the painter's threads where it goes
   * straight into the pixels */
  weft_fill_clip (cr, &ft, bg.r, bg.g, bg.b, bg.a);
  if (p.t1 <= p.t0 || view->width <= 0 || layout->rows->len == 0)
    goto out;
  p.scale = view->width / (double) (p.t1 - p.t0);
  p.fv.view = view;
  p.fv.layout = layout;
  p.fv.t0 = p.t0;
  p.fv.t1 = p.t1;
  p.fv.scale = p.scale;

  weft_layout_begin_frame (layout);
  first = weft_layout_row_at_y (layout, MAX (view->scroll_y, 0.0));
  if (first < 0)
    first = view->scroll_y < 0 ? 0 : (int) layout->rows->len;

  /* Pass 1: row backgrounds and geometry. */
  {
    GArray *header_bg = NULL, *sep = NULL, *memory_rows = NULL;
    for (guint ri = (guint) first; ri < layout->rows->len; ri++)
      {
        const WeftLayoutRow *row = &g_array_index (layout->rows, WeftLayoutRow, ri);
        double y = row->y - view->scroll_y;
        const WeftRankLayout *rl = &layout->ranks[row->rank_index];
        WeftRankTimes rt;

        if (y >= view->height)
          break;
        p.stats.rows_drawn++;
        weft_rank_times_init (&rt, trace, times, row->rank_index);
        push_rect (&sep, 0, floor (y + row->height) - 1.0, view->width, 1.0);
        switch (row->kind)
          {
          case WEFT_ROW_RANK_HEADER:
            push_rect (&header_bg, 0, y, view->width, row->height);
            if (view->show_overlap_band)
              {
                GArray *band = weft_layout_band (layout, &rt);
                WeftRankLayout *brl = &layout->ranks[row->rank_index]; /* its cache: logically const */
                WeftBandCache *bc = &brl->band_cache;
                if (overlay != NULL && overlay->bands != NULL && row->rank_index < overlay->n_bands &&
                    overlay->bands[row->rank_index] != NULL)
                  band = overlay->bands[row->rank_index], bc = NULL; /* the caller's: may change in place */
                paint_band (&p, band, bc, band == brl->sband ? brl->sband_version : 0,
                            band == brl->sband && brl->sband_patch_version == brl->sband_version,
                            brl->sband_patch_lo - 1, brl->sband_patch_hi + 1, y + 5.0, row->height - 10.0);
              }
            break;
          case WEFT_ROW_LANE:
            for (guint d = 0; d < row->n_depth; d++)
              {
                WeftDepthRow dr = weft_layout_depth_row_times (layout, row->lane, d, &rt);
                double dy = weft_row_depth_y (row, d) - view->scroll_y;
                if (dy + WEFT_RENDER_LANE_ROW < 0 || dy >= view->height)
                  continue;
                paint_events (&p, &rt, &dr, row->lane, d, dy, WEFT_RENDER_LANE_ROW - 2.0, TRUE);
              }
            break;
          case WEFT_ROW_CPU_SUMMARY:
            /* every thread, every depth, deeper on top: where the CPU is busy
             * and with what (ops, launches, syncs) */
            for (guint d = 0; d < WEFT_RENDER_MAX_DEPTH; d++)
              for (guint k = 0; k < rl->summary_lanes->len; k++)
                {
                  guint32 lane = g_array_index (rl->summary_lanes, guint32, k);
                  WeftDepthRow dr = weft_layout_depth_row_times (layout, lane, d, &rt);
                  paint_events (&p, &rt, &dr, lane, d, weft_row_depth_y (row, 0) - view->scroll_y,
                                WEFT_RENDER_LANE_ROW - 2.0, FALSE);
                }
            break;
          case WEFT_ROW_MEMORY:
            if (memory_rows == NULL)
              memory_rows = g_array_new (FALSE, FALSE, sizeof (guint));
            g_array_append_val (memory_rows, ri);
            add_memory_job (&p, weft_layout_memory (layout, overlay), row);
            break;
          default:
            break;
          }
      }

    /* the rows' folds, and their boxes into the fills */
    flush (&p);

    /* Pass 2: fills, batched by colour. */
    fill_rects (&p, &ft, header_bg, tc, dark ? 0.06 : 0.045);
    for (int s = 0; s < WEFT_OVERLAP_N_STATES; s++)
      fill_rects (&p, &ft, p.band_rects[s], weft_render_overlap_color ((WeftOverlapState) s, dark), 1.0);
    fill_rects (&p, &ft, sep, tc, dark ? 0.12 : 0.08);
    {
      /* the boxes, every colour in one call: in stripes of rows on the
       * painter's threads where they go straight into the pixels */
      WeftFillBatch kb[WEFT_KEY_N];
      for (guint k = 0; k < WEFT_KEY_N; k++)
        {
          WeftRgba c = weft_render_key_color (k, dark);
          kb[k] = (WeftFillBatch) { p.rects[k] != NULL ? (const Rect *) (const void *) p.rects[k]->data : NULL,
                                    p.rects[k] != NULL ? p.rects[k]->len : 0, c.r, c.g, c.b, c.a };
        }
      p.stats.fills_direct += weft_fill_boxes_batches (cr, &ft, kb, WEFT_KEY_N, &p.stats.fills_striped);
    }
    /* the memory rows: a path per curve (memory.c) */
    for (guint k = 0; memory_rows != NULL && k < memory_rows->len; k++)
      {
        const WeftLayoutRow *row = &g_array_index (layout->rows, WeftLayoutRow, g_array_index (memory_rows, guint, k));
        paint_memory_row (&p, &ft, weft_layout_memory (layout, overlay), row, row->y - view->scroll_y);
      }
    /* the pixel memos of memory rows out of view are dropped: what is kept
     * is bounded by the rows on screen, not by the ranks */
    for (guint r = 0; r < layout->n_ranks; r++)
      {
        WeftPixelMemo *m = &layout->ranks[r].mem_pixels; /* the layout's cache: logically const */
        gboolean shown = FALSE;
        if (m->before == NULL)
          continue;
        for (guint k = 0; memory_rows != NULL && k < memory_rows->len && !shown; k++)
          shown = g_array_index (layout->rows, WeftLayoutRow, g_array_index (memory_rows, guint, k)).rank_index == r;
        if (!shown)
          weft_pixel_memo_clear (m);
      }
    if (memory_rows != NULL)
      g_array_free (memory_rows, TRUE);
    if (header_bg != NULL)
      g_array_free (header_bg, TRUE);
    if (sep != NULL)
      g_array_free (sep, TRUE);
  }

  /* Pass 3: step markers over each visible rank group. */
  if (view->show_steps)
    for (guint r = 0; r < layout->n_ranks; r++)
      {
        const WeftRankLayout *rl = &layout->ranks[r];
        const WeftLayoutRow *h, *last;
        double y0, y1;
        if (rl->header_row < 0)
          continue;
        h = &g_array_index (layout->rows, WeftLayoutRow, rl->header_row);
        last = &g_array_index (layout->rows, WeftLayoutRow, rl->last_row);
        y0 = h->y - view->scroll_y;
        y1 = last->y + last->height - view->scroll_y;
        if (y1 < 0 || y0 > view->height)
          continue;
        paint_steps (&p, &ft, weft_trace_rank (trace, r), weft_trace_rank_offset (trace, weft_trace_rank (trace, r)),
                     y0, y1);
      }

  /* Pass 4: text. */
  cairo_set_antialias (cr, CAIRO_ANTIALIAS_DEFAULT);
  paint_labels (&p);

  /* Pass 5: the critical path over everything. */
  if (view->show_critical_path && overlay != NULL && overlay->n_critical_path > 0)
    paint_critical_path (&p, overlay);

out:
  cairo_restore (cr);
  for (guint k = 0; k < WEFT_KEY_N; k++)
    if (p.rects[k] != NULL)
      g_array_free (p.rects[k], TRUE);
  for (int s = 0; s < WEFT_OVERLAP_N_STATES; s++)
    if (p.band_rects[s] != NULL)
      g_array_free (p.band_rects[s], TRUE);
  g_array_free (p.labels, TRUE);
  g_array_free (p.jobs, TRUE);
  g_array_free (p.pending, TRUE);
  g_hash_table_destroy (p.claimed);
  g_array_free (p.band_jobs, TRUE);
  g_array_free (p.bands, TRUE);
  g_array_free (p.mem_jobs, TRUE);
  if (stats != NULL)
    *stats = p.stats;
}

/* ---- highlights ---------------------------------------------------------------------- */

static guint32
instance_of (WeftTrace *trace, guint rank_index, guint32 event)
{
  WeftRank *rank;
  const WeftEvent *ev;
  if (rank_index >= trace->ranks->len)
    return WEFT_NONE;
  rank = weft_trace_rank (trace, rank_index);
  if (event >= rank->events->len)
    return WEFT_NONE;
  ev = weft_rank_event (rank, event);
  if (weft_event_coll (rank, ev) == WEFT_NONE || weft_event_coll (rank, ev) >= rank->collectives->len)
    return WEFT_NONE;
  return g_array_index (rank->collectives, WeftCollective, weft_event_coll (rank, ev)).instance;
}

static void
outline_event (cairo_t *cr, WeftTrace *trace, const WeftView *view, const WeftLayout *layout,
               const WeftRenderTimes *times, guint rank_index, guint32 event, double lw)
{
  double x, y, w, h;
  if (!weft_render_event_rect (trace, view, layout, times, rank_index, event, &x, &y, &w, &h))
    return;
  cairo_set_line_width (cr, lw);
  cairo_rectangle (cr, x - lw / 2, y - lw / 2, w + lw, h + lw);
  cairo_stroke (cr);
}

static void
arrow (cairo_t *cr, double x0, double y0, double x1, double y1)
{
  /* an S-curve that ends vertically, so the head points straight at the op */
  double my = (y0 + y1) / 2;
  double a = y1 >= y0 ? G_PI / 2 : -G_PI / 2;
  cairo_move_to (cr, x0, y0);
  cairo_curve_to (cr, x0, my, x1, my, x1, y1);
  cairo_stroke (cr);
  cairo_move_to (cr, x1, y1);
  cairo_line_to (cr, x1 - 6 * cos (a - 0.45), y1 - 6 * sin (a - 0.45));
  cairo_line_to (cr, x1 - 6 * cos (a + 0.45), y1 - 6 * sin (a + 0.45));
  cairo_close_path (cr);
  cairo_fill (cr);
}

static void
paint_flow (cairo_t *cr, WeftTrace *trace, const WeftView *view, const WeftLayout *layout,
            const WeftRenderTimes *times, guint rank_index, guint32 event)
{
  WeftRank *rank;
  const WeftEvent *ev;
  guint32 launch, op;
  double lx, ly, lw, lh, ox, oy, ow, oh;

  if (rank_index >= trace->ranks->len)
    return;
  rank = weft_trace_rank (trace, rank_index);
  if (event >= rank->events->len)
    return;
  ev = weft_rank_event (rank, event);
  if (weft_event_link (ev) == WEFT_NONE || weft_event_link (ev) >= rank->events->len)
    return;
  if (ev->flags & WEFT_EVENT_GPU_OP)
    launch = weft_event_link (ev), op = event;
  else
    launch = event, op = weft_event_link (ev);
  if (!weft_render_event_rect (trace, view, layout, times, rank_index, launch, &lx, &ly, &lw, &lh) ||
      !weft_render_event_rect (trace, view, layout, times, rank_index, op, &ox, &oy, &ow, &oh))
    return;
  /* from the launch call's start down (or up) to the op's start */
  arrow (cr, lx, oy > ly ? ly + lh : ly, ox, oy > ly ? oy : oy + oh);
}

void
weft_render_paint_highlights (cairo_t *cr, WeftTrace *trace, const WeftView *view, const WeftLayout *layout,
                              const WeftRenderTimes *times)
{
  WeftRgba tc;
  guint32 inst;

  g_return_if_fail (cr != NULL && trace != NULL && view != NULL && layout != NULL);
  tc = weft_render_text_color (view->dark);
  cairo_save (cr);
  cairo_rectangle (cr, 0, 0, view->width, view->height);
  cairo_clip (cr);
  cairo_set_antialias (cr, CAIRO_ANTIALIAS_DEFAULT);

  if (view->range.end > view->range.begin)
    {
      double x0 = weft_render_time_to_x (view, view->range.begin);
      double x1 = weft_render_time_to_x (view, view->range.end);
      cairo_set_source_rgba (cr, 0.3, 0.5, 0.95, 0.15);
      cairo_rectangle (cr, x0, 0, x1 - x0, view->height);
      cairo_fill (cr);
    }

  /* the collective instance on every rank */
  inst = view->highlight_instance;
  if (inst == WEFT_NONE && view->hover_event != WEFT_NONE)
    inst = instance_of (trace, view->hover_rank, view->hover_event);
  if (inst == WEFT_NONE && view->sel_event != WEFT_NONE)
    inst = instance_of (trace, view->sel_rank, view->sel_event);
  if (view->show_instance_links && inst != WEFT_NONE && inst < trace->instances->len)
    {
      const WeftCollInstance *ci = &g_array_index (trace->instances, WeftCollInstance, inst);
      WeftRgba lc = weft_render_coll_color (ci->type, view->dark);
      double px = 0, py = 0;
      gboolean have = FALSE;
      double dash[] = { 4.0, 2.0 };
      for (guint m = 0; m < ci->members->len; m++)
        {
          const WeftInstanceMember *mem = &g_array_index (ci->members, WeftInstanceMember, m);
          WeftRank *rank;
          guint32 e;
          double x, y, w, h;
          if (mem->rank_index >= trace->ranks->len)
            continue;
          rank = weft_trace_rank (trace, mem->rank_index);
          if (mem->coll >= rank->collectives->len)
            continue;
          e = g_array_index (rank->collectives, WeftCollective, mem->coll).event;
          if (!weft_render_event_rect (trace, view, layout, times, mem->rank_index, e, &x, &y, &w, &h))
            continue;
          set_source (cr, tc, 0.9);
          cairo_set_line_width (cr, 1.5);
          cairo_set_dash (cr, NULL, 0, 0);
          cairo_rectangle (cr, x - 1, y - 1, w + 2, h + 2);
          cairo_stroke (cr);
          if (have)
            {
              /* link the ends: the synchronisation point of a collective */
              set_source (cr, lc, 0.95);
              cairo_set_line_width (cr, 1.5);
              cairo_set_dash (cr, dash, 2, 0);
              cairo_move_to (cr, px, py);
              cairo_line_to (cr, x + w, y);
              cairo_stroke (cr);
            }
          px = x + w;
          py = y + h;
          have = TRUE;
        }
      cairo_set_dash (cr, NULL, 0, 0);
    }

  if (view->show_flows)
    {
      weft_render_paint_p2p_arrows (cr, trace, view, layout, times);
      set_source (cr, tc, 0.85);
      cairo_set_line_width (cr, 1.25);
      if (view->sel_event != WEFT_NONE)
        paint_flow (cr, trace, view, layout, times, view->sel_rank, view->sel_event);
      if (view->hover_event != WEFT_NONE &&
          (view->hover_event != view->sel_event || view->hover_rank != view->sel_rank))
        paint_flow (cr, trace, view, layout, times, view->hover_rank, view->hover_event);
    }

  if (view->hover_event != WEFT_NONE)
    {
      set_source (cr, tc, 0.6);
      outline_event (cr, trace, view, layout, times, view->hover_rank, view->hover_event, 1.0);
    }
  if (view->sel_event != WEFT_NONE)
    {
      cairo_set_source_rgba (cr, 0.1, 0.45, 1.0, 1.0);
      outline_event (cr, trace, view, layout, times, view->sel_rank, view->sel_event, 2.0);
    }
  cairo_restore (cr);
}

void
weft_render_paint (cairo_t *cr, WeftTrace *trace, const WeftView *view, const WeftLayout *layout,
                   const WeftRenderTimes *times, const WeftRenderOverlay *overlay, WeftRenderStats *stats)
{
  weft_render_paint_body (cr, trace, view, layout, times, overlay, stats);
  weft_render_paint_highlights (cr, trace, view, layout, times);
}

/* ---- event spans / hit testing --------------------------------------------------------- */

WeftTimeSpan
weft_render_event_span (WeftTrace *trace, const WeftRenderTimes *times, guint rank_index, guint32 event)
{
  WeftRankTimes rt;
  WeftTimeSpan s = { 0, 0 };

  g_return_val_if_fail (trace != NULL && rank_index < trace->ranks->len, s);
  weft_rank_times_init (&rt, trace, times, rank_index);
  g_return_val_if_fail (event < rt.rank->events->len, s);
  weft_rank_times_get (&rt, event, &s.begin, &s.end);
  return s;
}

/* Event of a depth row under time t, within +-slack ns; WEFT_NONE if none. */
static guint32
pick (const WeftRankTimes *rt, const guint32 *idx, guint n, gint64 t, gint64 slack)
{
  guint i = weft_fold_first_end_after (rt, idx, n, t - slack);
  guint32 best = WEFT_NONE;
  gint64 best_dist = G_MAXINT64;

  for (guint k = 0; i < n && k < 64; i++, k++)
    {
      gint64 b, e, dist;
      if (rt->events[idx[i]].flags & WEFT_EVENT_DELETED)
        continue;
      weft_rank_times_get (rt, idx[i], &b, &e);
      if (b > t + slack)
        break;
      dist = t < b ? b - t : t >= MAX (e, b + 1) ? t - MAX (e, b + 1) + 1 : 0;
      if (dist < best_dist)
        {
          best_dist = dist;
          best = idx[i];
        }
      if (dist == 0)
        break;
    }
  return best;
}

gboolean
weft_render_hit_test (WeftTrace *trace, const WeftView *view, const WeftLayout *layout,
                      const WeftRenderTimes *times, double x, double y, WeftHit *hit)
{
  WeftHit h = { -1, WEFT_NONE, WEFT_NONE, 0 };
  const WeftLayoutRow *row;
  WeftRankTimes rt;
  gint64 t, slack;
  int r;

  g_return_val_if_fail (trace != NULL && view != NULL && layout != NULL, FALSE);
  r = weft_layout_row_at_y (layout, y + view->scroll_y);
  if (r < 0 || x < 0 || x >= view->width || view->span.end <= view->span.begin)
    goto done;
  row = weft_layout_get_row (layout, (guint) r);
  h.row = r;
  h.rank_index = row->rank_index;
  t = weft_render_x_to_time (view, x);
  slack = (gint64) (2.0 * (double) (view->span.end - view->span.begin) / view->width);
  weft_rank_times_init (&rt, trace, times, row->rank_index);
  if (row->kind == WEFT_ROW_LANE)
    {
      double dy = y + view->scroll_y - weft_row_depth_y (row, 0);
      guint d = dy < 0 ? 0 : (guint) (dy / WEFT_RENDER_LANE_ROW);
      WeftDepthRow dr;
      d = MIN (d, row->n_depth - 1);
      dr = weft_layout_depth_row (layout, row->rank_index, row->lane, d);
      h.depth = d;
      h.event = pick (&rt, dr.idx, dr.n, t, slack);
    }
  else if (row->kind == WEFT_ROW_CPU_SUMMARY)
    {
      const WeftRankLayout *rl = &layout->ranks[row->rank_index];
      /* the deepest event under the point (drawn on top) */
      for (guint d = WEFT_RENDER_MAX_DEPTH; d > 0 && h.event == WEFT_NONE; d--)
        for (guint k = 0; k < rl->summary_lanes->len && h.event == WEFT_NONE; k++)
          {
            WeftDepthRow dr = weft_layout_depth_row (layout, row->rank_index,
                                                     g_array_index (rl->summary_lanes, guint32, k), d - 1);
            h.event = pick (&rt, dr.idx, dr.n, t, 0);
          }
      if (h.event == WEFT_NONE)
        for (guint k = 0; k < rl->summary_lanes->len && h.event == WEFT_NONE; k++)
          {
            WeftDepthRow dr = weft_layout_depth_row (layout, row->rank_index,
                                                     g_array_index (rl->summary_lanes, guint32, k), 0);
            h.event = pick (&rt, dr.idx, dr.n, t, slack);
          }
    }
done:
  if (hit != NULL)
    *hit = h;
  return h.event != WEFT_NONE;
}
