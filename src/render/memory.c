/* memory.c: the memory counter row of a rank: the GPU's allocated total as
 * a filled step curve, the reserved total as a line over it, the peak
 * marked. Level of detail as the event rows: one pass over the samples in
 * view folds them into pixel columns (the largest total each column saw),
 * and each curve is one cairo path, filled or stroked once, whatever the
 * number of samples. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "render-private.h"

#define GIB(b) ((double) (b) / (1024.0 * 1024.0 * 1024.0))

typedef struct
{
  double  x0;        /* first column drawn (px) */
  guint   n;         /* columns */
  gint64 *alloc;     /* per column: the largest allocated total in it */
  gint64 *res;
} Columns;

/* First point with t > x. */
static guint
upper_bound (const gint64 *t, guint n, gint64 x)
{
  guint lo = 0, hi = n;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (t[mid] <= x)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* ---- block maxima ------------------------------------------------------------------------- */

void
weft_memory_lod_clear (WeftMemoryLod *lod)
{
  for (guint k = 0; k < WEFT_MEMORY_LOD_LEVELS; k++)
    g_clear_pointer (&lod->block[k], g_free);
  memset (lod, 0, sizeof *lod);
}

void
weft_memory_lod_make (WeftMemoryLod *lod, const gint64 *t, const gint64 *a, const gint64 *r, guint n)
{
  weft_memory_lod_clear (lod);
  lod->t = t;
  lod->n = n;
  lod->n_levels = 1;
  /* a level while the one below has more than 16 entries */
  for (guint k = 1, below = n; k < WEFT_MEMORY_LOD_LEVELS && below > 16; k++)
    {
      guint nb = (below + 15) / 16;
      WeftMemoryBlock *b = g_new (WeftMemoryBlock, nb);
      const WeftMemoryBlock *lo = lod->block[k - 1];
      for (guint i = 0; i < nb; i++)
        {
          guint c0 = i * 16, c1 = MIN (below, c0 + 16);
          WeftMemoryBlock m = k == 1 ? (WeftMemoryBlock) { t[c0], a[c0], r[c0] } : lo[c0];
          for (guint c = c0 + 1; c < c1; c++)
            {
              m.a = MAX (m.a, k == 1 ? a[c] : lo[c].a);
              m.r = MAX (m.r, k == 1 ? r[c] : lo[c].r);
            }
          b[i] = m;
        }
      lod->block[k] = b;
      lod->n_block[k] = nb;
      lod->n_levels = k + 1;
      below = nb;
    }
}

/* The first time of the run of 16^k points at i (i a multiple of 16^k). */
static inline gint64
lod_time (const WeftMemoryLod *lod, const gint64 *t, guint k, guint i)
{
  return k == 0 ? t[i] : lod->block[k][i >> (4 * k)].t;
}

/* Raises *ma, *mr to the largest totals of the run of 16^k points at i. */
static inline void
lod_take (const WeftMemoryLod *lod, const gint64 *a, const gint64 *r, guint k, guint i, gint64 *ma, gint64 *mr)
{
  if (k == 0)
    {
      *ma = MAX (*ma, a[i]);
      *mr = MAX (*mr, r[i]);
    }
  else
    {
      const WeftMemoryBlock *b = &lod->block[k][i >> (4 * k)];
      *ma = MAX (*ma, b->a);
      *mr = MAX (*mr, b->r);
    }
}

/* Whole runs are taken while the next run's first point is still before
 * e: up the levels from *pi (to a multiple of the next run's size), then
 * down them; the point it stops at is the last before e. */
void
weft_memory_lod_consume (const WeftMemoryLod *lod, const gint64 *t, const gint64 *a, const gint64 *r, guint n,
                         guint *pi, gint64 e, gint64 *ma, gint64 *mr, gint64 *ca, gint64 *cr, guint *points)
{
  guint pos = *pi, k = 0, near;
  guint levels = lod != NULL && lod->n_levels > 0 && lod->t == t && lod->n == n ? lod->n_levels : 1;

  if (pos >= n || t[pos] >= e)
    return;
  /* a column of a few points: one by one (cheaper than the climb) */
  for (near = n - pos > 48 ? pos + 48 : n; pos + 1 < near && t[pos + 1] < e; pos++)
    {
      *ma = MAX (*ma, a[pos]);
      *mr = MAX (*mr, r[pos]);
    }
  if (pos + 1 < near || pos + 1 >= n)
    levels = 1; /* at its last point (or the curve's) */
  /* t[pos] < e from here on: each run taken ends at a point still before e */
  for (; k + 1 < levels; k++)
    {
      guint step = 1u << (4 * k);
      while ((pos & (16 * step - 1)) != 0)
        {
          guint next = pos + step;
          if (next >= n || lod_time (lod, t, k, next) >= e)
            goto down;
          lod_take (lod, a, r, k, pos, ma, mr);
          pos = next;
        }
    }
down:
  for (;;)
    {
      guint step = 1u << (4 * k);
      for (;;)
        {
          guint next = pos + step;
          if (next >= n || lod_time (lod, t, k, next) >= e)
            break;
          lod_take (lod, a, r, k, pos, ma, mr);
          pos = next;
        }
      if (k == 0)
        break;
      k--;
    }
  lod_take (lod, a, r, 0, pos, ma, mr);
  *ca = a[pos];
  *cr = r[pos];
  *points += pos + 1 - *pi;
  *pi = pos + 1;
}

/* Folds the points in view into columns: a column holds the totals in
 * force when it starts and every total reached inside it (lod: the
 * curve's block maxima, or NULL). */
static gboolean
fold_columns (const WeftView *view, const gint64 *t, const gint64 *a, const gint64 *r, guint n,
              const WeftMemoryLod *lod, Columns *c, WeftRenderStats *stats)
{
  double scale = view->width / (double) (view->span.end - view->span.begin);
  guint i = upper_bound (t, n, view->span.begin);
  guint first_col, last_col;
  gint64 cur_a, cur_r;

  if (n == 0 || t[0] >= view->span.end)
    return FALSE;
  /* nothing is known before the first point */
  first_col = i == 0 ? (guint) floor ((double) (t[0] - view->span.begin) * scale) : 0;
  last_col = (guint) ceil (view->width);
  if (first_col >= last_col)
    return FALSE;
  c->x0 = first_col;
  c->n = last_col - first_col;
  c->alloc = g_new (gint64, c->n);
  c->res = g_new (gint64, c->n);
  cur_a = i > 0 ? a[i - 1] : a[0];
  cur_r = i > 0 ? r[i - 1] : r[0];
  for (guint col = 0; col < c->n; col++)
    {
      gint64 col_end = view->span.begin + (gint64) ((first_col + col + 1) / scale);
      gint64 ma = cur_a, mr = cur_r;
      /* a column of a few points is walked one by one, more climb the levels */
      weft_memory_lod_consume (lod, t, a, r, n, &i, col_end, &ma, &mr, &cur_a, &cur_r, &stats->memory_points);
      c->alloc[col] = ma;
      c->res[col] = mr;
    }
  return TRUE;
}

void
weft_render_step_path (cairo_t *cr, double x0, guint n, const gint64 *v, double base, double top, double per_byte,
                       gboolean close)
{
  double x = x0, py = 0.0;
  if (close)
    cairo_move_to (cr, x, base);
  for (guint col = 0; col < n; col++, x += 1.0)
    {
      double y = base - (double) v[col] * per_byte;
      y = CLAMP (y, top, base);
      if (col == 0)
        {
          if (close)
            cairo_line_to (cr, x, y);
          else
            cairo_move_to (cr, x, y);
        }
      else if (y != py)
        {
          cairo_line_to (cr, x, py);
          cairo_line_to (cr, x, y);
        }
      py = y;
    }
  if (n > 0)
    cairo_line_to (cr, x, py);
  if (close)
    {
      cairo_line_to (cr, x, base);
      cairo_close_path (cr);
    }
}

/* A label of the row: its pango layout kept in mc (NULL: made for this
 * paint only) while its text is the same, updated to cr when reused. */
static void
paint_label (cairo_t *cr, WeftMemoryCache *mc, const char *text, double x, double y, WeftRgba fg, WeftRgba bg,
             double max_x)
{
  PangoLayout *pl = mc != NULL && mc->label != NULL && strcmp (mc->label_text, text) == 0 ? mc->label : NULL;
  int tw, th;

  if (pl != NULL)
    pango_cairo_update_layout (cr, pl);
  else
    {
      PangoFontDescription *fd = pango_font_description_from_string ("Sans Bold 7.5");
      pl = pango_cairo_create_layout (cr);
      pango_layout_set_font_description (pl, fd);
      pango_font_description_free (fd);
      pango_layout_set_text (pl, text, -1);
      if (mc != NULL)
        {
          g_clear_object (&mc->label);
          g_free (mc->label_text);
          mc->label = pl;
          mc->label_text = g_strdup (text);
        }
    }
  pango_layout_get_pixel_size (pl, &tw, &th);
  x = CLAMP (x, 2.0, MAX (2.0, max_x - tw - 4.0));
  cairo_set_source_rgba (cr, bg.r, bg.g, bg.b, 0.8);
  cairo_rectangle (cr, x - 2, y, tw + 4, th);
  cairo_fill (cr);
  cairo_set_source_rgba (cr, fg.r, fg.g, fg.b, 1.0);
  cairo_move_to (cr, x, y);
  pango_cairo_show_layout (cr, pl);
  if (mc == NULL)
    g_object_unref (pl);
}

gboolean
weft_render_memory_row_curve (WeftMemoryTimeline *memory, guint rank_index, const gint64 **t, const gint64 **a,
                              const gint64 **r, guint *n, WeftMemoryTimelinePeak *all, WeftMemoryTimelinePeak *peak)
{
  return memory != NULL && weft_memory_timeline_curve (memory, rank_index, NULL, t, a, r, n) &&
         weft_memory_timeline_peak (memory, WEFT_SOLVER_ALL_RANKS, all) &&
         weft_memory_timeline_peak (memory, rank_index, peak) && all->peak_reserved > 0;
}

void
weft_render_memory_columns (WeftMemoryCache *mc, gconstpointer memory, guint64 serial, const gint64 *t,
                            const gint64 *a, const gint64 *r, guint n, const WeftView *view, WeftRenderStats *stats)
{
  const WeftMemoryLod *lod = NULL;
  Columns c = { 0 };
  gboolean have;

  if (mc->memory == memory && mc->serial == serial && mc->t == t && mc->n == n && mc->t0 == view->span.begin &&
      mc->t1 == view->span.end && mc->width == view->width)
    return; /* the columns of the last fold: the same curve and view */
  /* the block maxima from the second fold of a curve on (another view of
   * the same curve: a zoom or pan); a curve that changes every frame
   * (re-timed during a drag) is walked as it is */
  if (mc->lod.memory == memory && mc->lod.serial == serial && mc->lod.t == t && mc->lod.n == n)
    lod = &mc->lod;
  else if (mc->seen_memory == memory && mc->seen_serial == serial && mc->seen_t == t && mc->seen_n == n)
    {
      weft_memory_lod_make (&mc->lod, t, a, r, n);
      mc->lod.memory = memory;
      mc->lod.serial = serial;
      lod = &mc->lod;
    }
  else
    {
      mc->seen_memory = memory;
      mc->seen_serial = serial;
      mc->seen_t = t;
      mc->seen_n = n;
    }
  have = fold_columns (view, t, a, r, n, lod, &c, stats);
  g_free (mc->alloc);
  g_free (mc->res);
  mc->memory = memory;
  mc->serial = serial;
  mc->t = t;
  mc->n = n;
  mc->t0 = view->span.begin;
  mc->t1 = view->span.end;
  mc->width = view->width;
  mc->ok = have;
  mc->x0 = c.x0;
  mc->ncol = c.n;
  mc->alloc = have ? c.alloc : NULL;
  mc->res = have ? c.res : NULL;
}

void
weft_render_paint_memory_row (cairo_t *cr, const WeftView *view, const WeftLayout *layout,
                              WeftMemoryTimeline *memory, const WeftLayoutRow *row, double y,
                              WeftRenderStats *stats)
{
  const gint64 *t, *a, *r;
  guint n;
  WeftMemoryTimelinePeak all, peak;
  Columns c = { 0 };
  gboolean have = FALSE, owned = FALSE;
  double top = y + 4.0, base = y + row->height - 3.0, per_byte;
  WeftRgba fill = view->dark ? (WeftRgba) { 0.30, 0.75, 0.70, 1 } : (WeftRgba) { 0.16, 0.60, 0.56, 1 };
  WeftRgba line = view->dark ? (WeftRgba) { 0.95, 0.70, 0.30, 1 } : (WeftRgba) { 0.80, 0.45, 0.05, 1 };
  WeftRgba tc = weft_render_text_color (view->dark), bg = weft_render_background_color (view->dark);
  /* the layout's cache of this rank's row (logically const) */
  WeftMemoryCache *mc = row->rank_index < layout->n_ranks ? &layout->ranks[row->rank_index].mem_cache : NULL;

  stats->memory_rows++;
  if (!weft_render_memory_row_curve (memory, row->rank_index, &t, &a, &r, &n, &all, &peak))
    {
      paint_label (cr, mc, "no GPU [memory] events", 4, y + 4, tc, bg, view->width);
      return;
    }
  /* one scale for every rank: their rows compare */
  per_byte = (base - top) / (double) all.peak_reserved;
  cairo_save (cr);
  if (mc != NULL)
    {
      /* the rank's cache: folded now, or by the painter's threads before */
      weft_render_memory_columns (mc, memory, weft_memory_timeline_get_serial (memory), t, a, r, n, view, stats);
      c.x0 = mc->x0;
      c.n = mc->ncol;
      c.alloc = mc->alloc;
      c.res = mc->res;
      have = mc->ok;
    }
  else
    {
      have = fold_columns (view, t, a, r, n, NULL, &c, stats);
      owned = TRUE;
    }
  if (have)
    {
      cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);
      weft_render_step_path (cr, c.x0, c.n, c.alloc, base, top, per_byte, TRUE);
      cairo_set_source_rgba (cr, fill.r, fill.g, fill.b, 0.55);
      cairo_fill (cr);
      cairo_set_antialias (cr, CAIRO_ANTIALIAS_DEFAULT);
      weft_render_step_path (cr, c.x0, c.n, c.res, base, top, per_byte, FALSE);
      cairo_set_source_rgba (cr, line.r, line.g, line.b, 0.95);
      cairo_set_line_width (cr, 1.25);
      cairo_stroke (cr);
      stats->memory_fills += 2;
      if (owned)
        {
          g_free (c.alloc);
          g_free (c.res);
        }
    }
  /* the peak: a marker where it is, its value beside it (at the edge when
   * it is out of view) */
  {
    double px = weft_render_time_to_x (view, peak.peak_time);
    double py = CLAMP (base - (double) peak.peak_reserved * per_byte, top, base);
    g_autofree char *text = g_strdup_printf ("peak %.1f GiB", GIB (peak.peak_reserved));
    if (px >= 0 && px <= view->width)
      {
        cairo_set_source_rgba (cr, line.r, line.g, line.b, 1.0);
        cairo_move_to (cr, px, py - 1);
        cairo_line_to (cr, px - 4, py - 7);
        cairo_line_to (cr, px + 4, py - 7);
        cairo_close_path (cr);
        cairo_fill (cr);
        cairo_set_source_rgba (cr, line.r, line.g, line.b, 0.6);
        cairo_set_line_width (cr, 1.0);
        cairo_move_to (cr, floor (px) + 0.5, py);
        cairo_line_to (cr, floor (px) + 0.5, base);
        cairo_stroke (cr);
      }
    else
      px = px < 0 ? 0 : view->width;
    paint_label (cr, mc, text, px + 6, y + 1, tc, bg, view->width);
    stats->memory_peak = MAX (stats->memory_peak, peak.peak_reserved);
  }
  cairo_restore (cr);
}
