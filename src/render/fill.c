/* fill.c: the painter's batched box fills. Where the target is a cairo
 * image surface (the window's body surface, bench-render, PNG export) and
 * nothing between the painter and its pixels can change what cairo would
 * write, the opaque boxes of a colour are written straight into the pixels
 * by cairo's own rule for non-antialiased rectangles, which gives the very
 * pixels cairo_fill gives (docs/rendering.md "Level of detail", fills);
 * elsewhere (SVG, PDF, recording surfaces, translucent colours, any other
 * transform or clip) the boxes go through cairo_rectangle / cairo_fill as
 * before. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "render-private.h"

static gboolean plain_fills_forced;

void
weft_render_set_plain_fills (gboolean plain)
{
  plain_fills_forced = plain;
}

/* cairo's fixed point (24.8): _cairo_fixed_from_double rounds to the
 * nearest 1/256, ties to even, as rint does in the default rounding mode. */
#define FIXED_LIMIT 4194304.0 /* 2^22 px: far inside cairo's 24 integer bits */

static inline gint32
to_fixed (double d)
{
  return (gint32) lrint (d * 256.0);
}

/* With CAIRO_ANTIALIAS_NONE cairo rounds each edge of a rectilinear box
 * to whole pixels, halves down (_cairo_fixed_round_down), and fills the
 * pixels between. */
static inline int
round_down (gint32 f)
{
  return (f + 127) >> 8;
}

void
weft_fill_target_init (WeftFillTarget *t, cairo_t *cr)
{
  cairo_surface_t *s;
  cairo_matrix_t m;
  cairo_rectangle_list_t *clip;
  double sx, sy, dx, dy;
  int w, h;

  memset (t, 0, sizeof *t);
  if (plain_fills_forced || cairo_status (cr) != CAIRO_STATUS_SUCCESS)
    return;
  s = cairo_get_group_target (cr);
  if (s == NULL || cairo_surface_status (s) != CAIRO_STATUS_SUCCESS ||
      cairo_surface_get_type (s) != CAIRO_SURFACE_TYPE_IMAGE)
    return;
  t->format = cairo_image_surface_get_format (s);
  if (t->format != CAIRO_FORMAT_ARGB32 && t->format != CAIRO_FORMAT_RGB24)
    return;
  cairo_surface_get_device_offset (s, &dx, &dy);
  cairo_surface_get_device_scale (s, &sx, &sy);
  if (dx != 0.0 || dy != 0.0 || sx != sy || sx < 1.0 || sx > 8.0 || sx != floor (sx))
    return;
  cairo_get_matrix (cr, &m);
  if (m.xx != 1.0 || m.yy != 1.0 || m.xy != 0.0 || m.yx != 0.0 || !isfinite (m.x0) || !isfinite (m.y0) ||
      fabs (m.x0) > FIXED_LIMIT / 16 || fabs (m.y0) > FIXED_LIMIT / 16)
    return;
  if (cairo_get_operator (cr) != CAIRO_OPERATOR_OVER || cairo_get_fill_rule (cr) != CAIRO_FILL_RULE_WINDING ||
      cairo_get_antialias (cr) != CAIRO_ANTIALIAS_NONE)
    return;
  w = cairo_image_surface_get_width (s);
  h = cairo_image_surface_get_height (s);
  t->scale = sx;
  t->tx = m.x0;
  t->ty = m.y0;
  /* the clip: one pixel-aligned rectangle (the painter's own view clip,
   * within whatever the caller set), or nothing drawn at all */
  clip = cairo_copy_clip_rectangle_list (cr);
  if (clip->status != CAIRO_STATUS_SUCCESS || clip->num_rectangles > 1)
    {
      cairo_rectangle_list_destroy (clip);
      return;
    }
  if (clip->num_rectangles == 1)
    {
      const cairo_rectangle_t *r = &clip->rectangles[0];
      double x0 = t->scale * (r->x + t->tx), y0 = t->scale * (r->y + t->ty);
      double x1 = x0 + t->scale * r->width, y1 = y0 + t->scale * r->height;
      if (x0 != floor (x0) || y0 != floor (y0) || x1 != floor (x1) || y1 != floor (y1) || fabs (x0) > FIXED_LIMIT ||
          fabs (y0) > FIXED_LIMIT || fabs (x1) > FIXED_LIMIT || fabs (y1) > FIXED_LIMIT)
        {
          cairo_rectangle_list_destroy (clip);
          return;
        }
      t->cx0 = MAX ((int) x0, 0);
      t->cy0 = MAX ((int) y0, 0);
      t->cx1 = MIN ((int) x1, w);
      t->cy1 = MIN ((int) y1, h);
    }
  cairo_rectangle_list_destroy (clip);
  if (t->cx1 < t->cx0)
    t->cx1 = t->cx0;
  if (t->cy1 < t->cy0)
    t->cy1 = t->cy0;
  t->surface = s;
  t->stride = cairo_image_surface_get_stride (s) / 4;
  t->ok = TRUE;
}

/* The pixel cairo writes for an opaque colour on this format: filled once
 * by cairo itself into a 1x1 surface. */
static guint32
colour_pixel (const WeftFillTarget *t, double r, double g, double b)
{
  cairo_surface_t *s = cairo_image_surface_create (t->format, 1, 1);
  cairo_t *cr = cairo_create (s);
  guint32 px;

  cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);
  cairo_set_source_rgba (cr, r, g, b, 1.0);
  cairo_rectangle (cr, 0, 0, 1, 1);
  cairo_fill (cr);
  cairo_destroy (cr);
  cairo_surface_flush (s);
  px = *(const guint32 *) (const void *) cairo_image_surface_get_data (s);
  cairo_surface_destroy (s);
  return px;
}

/* Whether the direct path gives cairo's pixels for these boxes: sizes not
 * negative (a reversed rectangle winds the other way and cancels where it
 * overlaps another, which the direct writes would not), coordinates
 * finite and far inside cairo's fixed point. */
static gboolean
boxes_direct_ok (const WeftFillTarget *t, const WeftFillRect *r, guint n)
{
  const double lim = FIXED_LIMIT / t->scale;
  for (guint i = 0; i < n; i++)
    {
      double x = r[i].x + t->tx, y = r[i].y + t->ty;
      /* negated comparisons: NaN fails them */
      if (!(r[i].w >= 0.0 && r[i].h >= 0.0 && fabs (x) < lim && fabs (y) < lim && r[i].w < lim && r[i].h < lim))
        return FALSE;
    }
  return TRUE;
}

/* Device rows of a box as cairo_rectangle puts it: the corner to device
 * space and fixed point, the sizes as distances in fixed point added to
 * it, each edge rounded as cairo rounds a non-antialiased box. */
static inline void
box_rows (const WeftFillTarget *t, const WeftFillRect *r, int *y0, int *y1)
{
  gint32 fy0 = to_fixed (t->scale * (r->y + t->ty));
  *y0 = round_down (fy0);
  *y1 = round_down (fy0 + to_fixed (t->scale * r->h));
}

/* The pixels of boxes r[0..n) in device rows [ylo, yhi) (within the clip). */
static void
fill_rows (const WeftFillTarget *t, guint32 *data, const WeftFillRect *r, guint n, guint32 px, int ylo, int yhi)
{
  const double s = t->scale;
  for (guint i = 0; i < n; i++)
    {
      gint32 fx0 = to_fixed (s * (r[i].x + t->tx)), fx1 = fx0 + to_fixed (s * r[i].w);
      int x0 = MAX (round_down (fx0), t->cx0), x1 = MIN (round_down (fx1), t->cx1);
      int y0, y1;
      box_rows (t, &r[i], &y0, &y1);
      y0 = MAX (y0, ylo);
      y1 = MIN (y1, yhi);
      if (x1 <= x0 || y1 <= y0)
        continue;
      for (int y = y0; y < y1; y++)
        {
          guint32 *row = data + (gsize) y * t->stride;
          for (int x = x0; x < x1; x++)
            row[x] = px;
        }
    }
}

gboolean
weft_fill_boxes (cairo_t *cr, const WeftFillTarget *t, const WeftFillRect *r, guint n, double red, double green,
                 double blue, double alpha)
{
  guint32 px;

  if (n == 0)
    return FALSE;
  cairo_set_source_rgba (cr, red, green, blue, alpha);
  if (!t->ok || alpha != 1.0 || !boxes_direct_ok (t, r, n))
    {
      for (guint i = 0; i < n; i++)
        cairo_rectangle (cr, r[i].x, r[i].y, r[i].w, r[i].h);
      cairo_fill (cr);
      return FALSE;
    }
  px = colour_pixel (t, red, green, blue);
  cairo_surface_flush (t->surface);
  fill_rows (t, (guint32 *) (void *) cairo_image_surface_get_data (t->surface), r, n, px, t->cy0, t->cy1);
  cairo_surface_mark_dirty (t->surface);
  return TRUE;
}

/* ---- several colours' boxes, in stripes of rows on the painter's threads ------------------ */

/* Below this many boxes in all the colours go one after the other. */
#define STRIPED_MIN_BOXES 2048

typedef struct
{
  const WeftFillTarget *t;
  const WeftFillBatch  *b;
  guint                 n_batches;
  const guint32        *px;
  const int            *hmax;   /* per batch: the most device rows one of its boxes spans */
  guint32              *data;
  int                   rows;   /* per stripe */
} Striped;

/* First box of r[0..n) (sorted by their first device row) whose first row is >= y. */
static guint
first_box_from (const WeftFillTarget *t, const WeftFillRect *r, guint n, int y)
{
  guint lo = 0, hi = n;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      int y0, y1;
      box_rows (t, &r[mid], &y0, &y1);
      if (y0 < y)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* Runs task over `stripes` stripes of the clip's rows on the painter's
 * threads, straight on the target's pixels: *rows gets the rows a stripe,
 * *data the pixels (flushed before, marked dirty after). */
static void
run_stripes (const WeftFillTarget *t, WeftRenderTask task, gpointer job, guint stripes, int *rows, guint32 **data)
{
  guint *order = g_new (guint, stripes);
  for (guint k = 0; k < stripes; k++)
    order[k] = k;
  *rows = (t->cy1 - t->cy0 + (int) stripes - 1) / (int) stripes;
  cairo_surface_flush (t->surface);
  *data = (guint32 *) (void *) cairo_image_surface_get_data (t->surface);
  weft_render_run_tasks (task, job, order, stripes);
  cairo_surface_mark_dirty (t->surface);
  g_free (order);
}

/* Stripe k: every colour in order, only its rows; a colour's boxes are
 * sorted by first row, so only those that can reach the stripe are read. */
static void
striped_task (gpointer data, guint k)
{
  const Striped *j = data;
  const WeftFillTarget *t = j->t;
  int ylo = t->cy0 + (int) k * j->rows, yhi = MIN (ylo + j->rows, t->cy1);

  for (guint c = 0; c < j->n_batches; c++)
    {
      const WeftFillBatch *b = &j->b[c];
      guint i0, i1;
      if (b->n == 0)
        continue;
      i0 = first_box_from (t, b->r, b->n, ylo - j->hmax[c]);
      i1 = first_box_from (t, b->r, b->n, yhi);
      if (i1 > i0)
        fill_rows (t, j->data, b->r + i0, i1 - i0, j->px[c], ylo, yhi);
    }
}

guint
weft_fill_boxes_batches (cairo_t *cr, const WeftFillTarget *t, const WeftFillBatch *b, guint n_batches,
                         guint *n_striped)
{
  guint total = 0, direct = 0, threads = weft_render_threads (), last = n_batches, stripes;
  gboolean striped = t->ok && threads > 1 && t->cy1 - t->cy0 >= 64;
  guint32 *px;
  int *hmax;
  Striped job;

  for (guint c = 0; c < n_batches && striped; c++)
    total += b[c].n;
  striped = striped && total >= STRIPED_MIN_BOXES;
  /* every colour direct, each sorted by first row (as the painter pushes
   * them, row after row), or all one after the other as before */
  hmax = g_new0 (int, MAX (n_batches, 1));
  for (guint c = 0; c < n_batches && striped; c++)
    {
      int prev = G_MININT;
      if (b[c].n == 0)
        continue;
      if (b[c].alpha != 1.0 || !boxes_direct_ok (t, b[c].r, b[c].n))
        striped = FALSE;
      for (guint i = 0; i < b[c].n && striped; i++)
        {
          int y0, y1;
          box_rows (t, &b[c].r[i], &y0, &y1);
          if (y0 < prev)
            striped = FALSE;
          prev = y0;
          hmax[c] = MAX (hmax[c], y1 - y0);
        }
      last = c;
    }
  if (!striped)
    {
      g_free (hmax);
      for (guint c = 0; c < n_batches; c++)
        direct += weft_fill_boxes (cr, t, b[c].r, b[c].n, b[c].red, b[c].green, b[c].blue, b[c].alpha);
      return direct;
    }
  px = g_new0 (guint32, n_batches);
  for (guint c = 0; c < n_batches; c++)
    if (b[c].n > 0)
      {
        px[c] = colour_pixel (t, b[c].red, b[c].green, b[c].blue);
        direct++;
      }
  /* the source the last colour's fill leaves, as one after the other */
  if (last < n_batches)
    cairo_set_source_rgba (cr, b[last].red, b[last].green, b[last].blue, b[last].alpha);
  stripes = MIN (threads * 4, (guint) (t->cy1 - t->cy0) / 16);
  job.t = t;
  job.b = b;
  job.n_batches = n_batches;
  job.px = px;
  job.hmax = hmax;
  run_stripes (t, striped_task, &job, stripes, &job.rows, &job.data);
  g_free (px);
  g_free (hmax);
  *n_striped += direct;
  return direct;
}

/* The clip's pixels set to an opaque colour, in stripes of rows on the
 * painter's threads (what cairo_paint of the colour writes there). */
typedef struct
{
  const WeftFillTarget *t;
  guint32              *data;
  guint32               px;
  int                   rows;
} Clear;

static void
clear_task (gpointer data, guint k)
{
  const Clear *j = data;
  const WeftFillTarget *t = j->t;
  int ylo = t->cy0 + (int) k * j->rows, yhi = MIN (ylo + j->rows, t->cy1);
  gsize bytes = (gsize) (t->cx1 - t->cx0) * sizeof (guint32);
  guint32 *first;
  if (ylo >= yhi || bytes == 0)
    return;
  first = j->data + (gsize) ylo * t->stride + t->cx0;
  /* the stripe's first row, then copies of it (memcpy is wide; a loop of
   * 32-bit stores is not) */
  for (int x = 0; x < t->cx1 - t->cx0; x++)
    first[x] = j->px;
  for (int y = ylo + 1; y < yhi; y++)
    memcpy (j->data + (gsize) y * t->stride + t->cx0, first, bytes);
}

gboolean
weft_fill_clip (cairo_t *cr, const WeftFillTarget *t, double red, double green, double blue, double alpha)
{
  guint stripes;
  Clear job;

  cairo_set_source_rgba (cr, red, green, blue, alpha);
  if (!t->ok || alpha != 1.0)
    {
      cairo_paint (cr);
      return FALSE;
    }
  stripes = CLAMP ((guint) (t->cy1 - t->cy0) / 64, 1, weft_render_threads () * 2);
  job.t = t;
  job.px = colour_pixel (t, red, green, blue);
  run_stripes (t, clear_task, &job, stripes, &job.rows, &job.data);
  return TRUE;
}

/* Column c of the mask: the rows a dashed stroke of width 1 from (0.5, y0)
 * to (0.5, y1) covers, rasterised by cairo itself with the target's scale
 * and vertical translation; one byte a device row (0 or 255). */
static guint8 *
dash_mask (const WeftFillTarget *t, double y0, double y1, const double *dash, int n_dash, int *rows)
{
  int h = cairo_image_surface_get_height (t->surface);
  int sw = (int) t->scale;
  cairo_surface_t *m = cairo_image_surface_create (CAIRO_FORMAT_A8, 2 * sw, h);
  cairo_t *cr;
  guint8 *mask = g_malloc0 (MAX (h, 1)), *data;
  int stride;

  cairo_surface_set_device_scale (m, t->scale, t->scale);
  cr = cairo_create (m);
  cairo_translate (cr, 0.0, t->ty);
  cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);
  cairo_set_source_rgba (cr, 1.0, 1.0, 1.0, 1.0);
  cairo_set_line_width (cr, 1.0);
  cairo_set_dash (cr, dash, n_dash, 0);
  cairo_move_to (cr, 0.5, y0);
  cairo_line_to (cr, 0.5, y1);
  cairo_stroke (cr);
  cairo_destroy (cr);
  cairo_surface_flush (m);
  data = cairo_image_surface_get_data (m);
  stride = cairo_image_surface_get_stride (m);
  for (int y = 0; y < h; y++)
    {
      /* the stroke must cover whole device columns [0, scale) or nothing */
      for (int x = 0; x < 2 * sw; x++)
        if (data[y * stride + x] != ((x < sw) ? data[y * stride] : 0) || (data[y * stride] != 0 && data[y * stride] != 255))
          {
            cairo_surface_destroy (m);
            g_free (mask);
            return NULL;
          }
      mask[y] = data[y * stride];
    }
  cairo_surface_destroy (m);
  *rows = h;
  return mask;
}

/* What cairo's OVER of a colour does to each byte of a pixel of the
 * target's format: one fill by cairo over a row of the 256 values. */
static void
over_table (const WeftFillTarget *t, double red, double green, double blue, double alpha, guint8 lut[4][256])
{
  cairo_surface_t *s = cairo_image_surface_create (t->format, 256, 1);
  guint32 *px = (guint32 *) (void *) cairo_image_surface_get_data (s);
  cairo_t *cr;

  for (guint32 i = 0; i < 256; i++)
    px[i] = i << 24 | i << 16 | i << 8 | i;
  cairo_surface_mark_dirty (s);
  cr = cairo_create (s);
  cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);
  cairo_set_source_rgba (cr, red, green, blue, alpha);
  cairo_rectangle (cr, 0, 0, 256, 1);
  cairo_fill (cr);
  cairo_destroy (cr);
  cairo_surface_flush (s);
  for (guint i = 0; i < 256; i++)
    for (int k = 0; k < 4; k++)
      lut[k][i] = (guint8) (px[i] >> (8 * k));
  cairo_surface_destroy (s);
}

static int
cmp_int (gconstpointer a, gconstpointer b)
{
  int x = *(const int *) a, y = *(const int *) b;
  return (x > y) - (x < y);
}

gboolean
weft_fill_dashed_vlines (cairo_t *cr, const WeftFillTarget *t, const double *xs, guint n, double y0, double y1,
                         const double *dash, int n_dash, double red, double green, double blue, double alpha)
{
  const double s = t->scale;
  guint8 lut[4][256], *mask;
  int rows = 0, *cols, n_cols = 0, ya, yb;
  guint32 *data;

  if (!t->ok || n == 0 || s * t->tx != floor (s * t->tx) || !isfinite (y0) || !isfinite (y1) ||
      fabs (y0 + t->ty) > FIXED_LIMIT / s || fabs (y1 + t->ty) > FIXED_LIMIT / s)
    return FALSE;
  for (guint i = 0; i < n; i++)
    if (!(xs[i] - 0.5 == floor (xs[i]) && fabs (xs[i] + t->tx) < FIXED_LIMIT / s))
      return FALSE;
  mask = dash_mask (t, y0, y1, dash, n_dash, &rows);
  if (mask == NULL)
    return FALSE;
  /* the rows the stroke covers at all (a rank's group, not the whole
   * surface): the columns are walked over those only */
  ya = MAX (t->cy0, 0);
  yb = MIN (t->cy1, rows);
  while (ya < yb && mask[ya] == 0)
    ya++;
  while (yb > ya && mask[yb - 1] == 0)
    yb--;
  /* every subpath is its own dashed line at the same rows; where two fall
   * on one column the stroke covers it once */
  cols = g_new (int, n);
  for (guint i = 0; i < n; i++)
    {
      int c = (int) (s * (floor (xs[i]) + t->tx));
      if (c + (int) s > t->cx0 && c < t->cx1)
        cols[n_cols++] = c;
    }
  qsort (cols, n_cols, sizeof (int), cmp_int);
  over_table (t, red, green, blue, alpha, lut);
  cairo_surface_flush (t->surface);
  data = (guint32 *) (void *) cairo_image_surface_get_data (t->surface);
  for (int k = 0; k < n_cols; k++)
    {
      if (k > 0 && cols[k] == cols[k - 1])
        continue;
      for (int y = ya; y < yb; y++)
        {
          guint32 *row;
          if (mask[y] == 0)
            continue;
          row = data + (gsize) y * t->stride;
          for (int x = MAX (cols[k], t->cx0); x < MIN (cols[k] + (int) s, t->cx1); x++)
            {
              guint32 v = row[x];
              row[x] = (guint32) lut[0][v & 0xff] | (guint32) lut[1][(v >> 8) & 0xff] << 8 |
                       (guint32) lut[2][(v >> 16) & 0xff] << 16 | (guint32) lut[3][v >> 24] << 24;
            }
        }
    }
  cairo_surface_mark_dirty (t->surface);
  g_free (cols);
  g_free (mask);
  return TRUE;
}

/* ---- pixel memo ---------------------------------------------------------------------------- */

void
weft_pixel_memo_clear (WeftPixelMemo *m)
{
  g_free (m->before);
  g_free (m->after);
  memset (m, 0, sizeof *m);
}

/* The device rows of [y0, y1) (user space) within the clip, all the clip's
 * columns; FALSE when empty. */
static gboolean
memo_rect (const WeftFillTarget *t, double y0, double y1, int *r0, int *r1)
{
  double a = floor (t->scale * (y0 + t->ty)), b = ceil (t->scale * (y1 + t->ty));
  if (!t->ok || !isfinite (a) || !isfinite (b) || t->cx1 <= t->cx0)
    return FALSE;
  *r0 = (int) CLAMP (a, t->cy0, t->cy1);
  *r1 = (int) CLAMP (b, t->cy0, t->cy1);
  return *r1 > *r0;
}

static void
memo_copy_out (const WeftFillTarget *t, int r0, int r1, guint32 *dst)
{
  const guint32 *data = (const guint32 *) (const void *) cairo_image_surface_get_data (t->surface);
  int w = t->cx1 - t->cx0;
  for (int y = r0; y < r1; y++)
    memcpy (dst + (gsize) (y - r0) * w, data + (gsize) y * t->stride + t->cx0, (gsize) w * 4);
}

gboolean
weft_pixel_memo_replay (WeftPixelMemo *m, const WeftFillTarget *t, const WeftPixelMemoKey *key, double y0, double y1)
{
  guint32 *data;
  int r0, r1, w;

  if (m->after == NULL || memcmp (&m->key, key, sizeof *key) != 0 || !memo_rect (t, y0, y1, &r0, &r1) ||
      r0 != m->r0 || r1 != m->r1 || t->cx0 != m->c0 || t->cx1 != m->c1 || t->format != m->format ||
      t->scale != m->scale || t->tx != m->tx || t->ty != m->ty)
    return FALSE;
  cairo_surface_flush (t->surface);
  data = (guint32 *) (void *) cairo_image_surface_get_data (t->surface);
  w = t->cx1 - t->cx0;
  /* only over the very pixels the memo was made on */
  for (int y = r0; y < r1; y++)
    if (memcmp (data + (gsize) y * t->stride + t->cx0, m->before + (gsize) (y - r0) * w, (gsize) w * 4) != 0)
      return FALSE;
  for (int y = r0; y < r1; y++)
    memcpy (data + (gsize) y * t->stride + t->cx0, m->after + (gsize) (y - r0) * w, (gsize) w * 4);
  cairo_surface_mark_dirty (t->surface);
  return TRUE;
}

gboolean
weft_pixel_memo_begin (WeftPixelMemo *m, const WeftFillTarget *t, const WeftPixelMemoKey *key, double y0, double y1)
{
  WeftPixelMemoKey seen = m->seen;
  int r0, r1;
  gsize n;

  if (!t->ok)
    return FALSE;
  weft_pixel_memo_clear (m);
  m->seen = *key;
  if (!memo_rect (t, y0, y1, &r0, &r1) || memcmp (&seen, key, sizeof *key) != 0)
    return FALSE;
  n = (gsize) (t->cx1 - t->cx0) * (gsize) (r1 - r0);
  m->key = *key;
  m->r0 = r0;
  m->r1 = r1;
  m->c0 = t->cx0;
  m->c1 = t->cx1;
  m->format = t->format;
  m->scale = t->scale;
  m->tx = t->tx;
  m->ty = t->ty;
  m->before = g_new (guint32, n);
  cairo_surface_flush (t->surface);
  memo_copy_out (t, r0, r1, m->before);
  return TRUE;
}

void
weft_pixel_memo_end (WeftPixelMemo *m, const WeftFillTarget *t)
{
  if (m->before == NULL)
    return;
  m->after = g_new (guint32, (gsize) (m->c1 - m->c0) * (gsize) (m->r1 - m->r0));
  cairo_surface_flush (t->surface);
  memo_copy_out (t, m->r0, m->r1, m->after);
}
