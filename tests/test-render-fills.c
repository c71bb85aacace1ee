/* test-render-fills.c: the painter's direct fills (src/render/fill.c,
 * docs/rendering.md "Fills") against cairo.
 *
 * Properties:
 *   - random batches of rectangles (sub-pixel corners and sizes, ties on
 *     half pixels, zero sizes, far outside the surface), filled by
 *     weft_fill_boxes straight into an image surface over random pixels,
 *     equal cairo_rectangle + cairo_fill with antialiasing off, byte for
 *     byte: ARGB32 and RGB24, device scales 1, 2 and 3, integer and
 *     fractional translations, the painter's clip; where the direct path
 *     must not apply (a negative size, a translucent colour, a rotation, a
 *     clip that is not one pixel-aligned rectangle, a recording surface)
 *     cairo fills them and the pixels are still cairo's;
 *   - the whole painter, on the shared traces through the real loader
 *     (observed and solved times, the full view, 1/20 with the CPU threads
 *     expanded and a fractional scroll, the dark palette, device scale 2 as
 *     the window's body surface on a HiDPI screen, RGB24 as the PNG export),
 *     paints the same pixels with the direct fills (boxes, the step
 *     markers' dashed lines) as with every fill sent through cairo
 *     (weft_render_set_plain_fills), and the direct path ran;
 *   - the memory rows' step curve, one line_to per change of level
 *     (weft_render_step_path), paints what a line_to to both ends of every
 *     column paints (random levels in runs, clamped, scales 1 and 2);
 *   - repaints of the same view copy the memory rows from their pixel
 *     memo (from the third paint on), the same pixels; a layout kept across random solver edits,
 *     painted with the direct path and the memo, paints what a fresh
 *     layout painting through cairo paints. */
#include "config.h"

#include <math.h>
#include <string.h>

#include <cairo.h>

#include "render/render-private.h"
#include "testutil.h"
#include "weft/weft-render.h"
#include "weft/weft.h"

static double
coord (GRand *rng)
{
  switch (g_rand_int_range (rng, 0, 5))
    {
    case 0: /* whole 1/256 steps: cairo's fixed point exactly */
      return g_rand_int_range (rng, -4 * 256, 70 * 256) / 256.0;
    case 1: /* half and quarter pixels, just off them */
      return g_rand_int_range (rng, -8, 280) / 4.0 + g_rand_int_range (rng, -1, 2) * 1e-9;
    case 2: /* 1/512: ties of the rounding to 1/256 */
      return g_rand_int_range (rng, -8 * 512, 70 * 512) / 512.0;
    case 3: /* whole pixels */
      return g_rand_int_range (rng, -4, 70);
    default:
      return g_rand_double_range (rng, -4.0, 70.0);
    }
}

static double
size (GRand *rng)
{
  switch (g_rand_int_range (rng, 0, 5))
    {
    case 0:
      return 0.0;
    case 1:
      return g_rand_int_range (rng, 0, 12 * 512) / 512.0;
    case 2:
      return g_rand_int_range (rng, 0, 48) / 4.0;
    case 3:
      return 10.0; /* a lane row's box */
    default:
      return g_rand_double_range (rng, 0.0, 8.0);
    }
}

static cairo_surface_t *
noisy_surface (GRand *rng, cairo_format_t format, int w, int h, int scale)
{
  cairo_surface_t *s = cairo_image_surface_create (format, w * scale, h * scale);
  guint32 *px = (guint32 *) (void *) cairo_image_surface_get_data (s);
  int stride = cairo_image_surface_get_stride (s) / 4;

  for (int y = 0; y < h * scale; y++)
    for (int x = 0; x < w * scale; x++)
      {
        guint32 a = g_rand_int_range (rng, 0, 256), v = g_rand_int (rng);
        guint32 r = ((v >> 0) & 0xff) * a / 255, g = ((v >> 8) & 0xff) * a / 255, b = ((v >> 16) & 0xff) * a / 255;
        px[y * stride + x] = format == CAIRO_FORMAT_ARGB32 ? a << 24 | r << 16 | g << 8 | b : v & 0xffffff;
      }
  cairo_surface_mark_dirty (s);
  cairo_surface_set_device_scale (s, scale, scale);
  return s;
}

static cairo_surface_t *
copy_surface (cairo_surface_t *s)
{
  cairo_format_t f = cairo_image_surface_get_format (s);
  int w = cairo_image_surface_get_width (s), h = cairo_image_surface_get_height (s);
  cairo_surface_t *c = cairo_image_surface_create (f, w, h);
  double sx, sy;

  cairo_surface_flush (s);
  memcpy (cairo_image_surface_get_data (c), cairo_image_surface_get_data (s),
          (gsize) cairo_image_surface_get_stride (s) * h);
  cairo_surface_mark_dirty (c);
  cairo_surface_get_device_scale (s, &sx, &sy);
  cairo_surface_set_device_scale (c, sx, sy);
  return c;
}

static void
assert_same_pixels (cairo_surface_t *a, cairo_surface_t *b)
{
  cairo_surface_flush (a);
  cairo_surface_flush (b);
  g_assert_cmpint (cairo_image_surface_get_stride (a), ==, cairo_image_surface_get_stride (b));
  g_assert_cmpmem (cairo_image_surface_get_data (a),
                   cairo_image_surface_get_stride (a) * cairo_image_surface_get_height (a),
                   cairo_image_surface_get_data (b),
                   cairo_image_surface_get_stride (b) * cairo_image_surface_get_height (b));
}

typedef enum
{
  SETUP_PLAIN,     /* the painter's own setup: translation, pixel-aligned clip */
  SETUP_FRAC_CLIP, /* a clip on quarter pixels */
  SETUP_TWO_CLIPS, /* a clip of two rectangles */
  SETUP_ROTATED,   /* a rotation of a quarter turn */
  SETUP_N
} Setup;

static void
setup (cairo_t *cr, Setup su, double tx, double ty)
{
  cairo_translate (cr, tx, ty);
  switch (su)
    {
    case SETUP_FRAC_CLIP:
      cairo_rectangle (cr, 2.25, 1.0, 40.5, 50.0);
      break;
    case SETUP_TWO_CLIPS:
      cairo_rectangle (cr, 2.0, 1.0, 20.0, 50.0);
      cairo_rectangle (cr, 30.0, 1.0, 20.0, 50.0);
      break;
    case SETUP_ROTATED:
      cairo_translate (cr, 60.0, 0.0);
      cairo_rotate (cr, G_PI / 2);
      cairo_rectangle (cr, 1.0, 1.0, 60.0, 50.0);
      break;
    default:
      cairo_rectangle (cr, 1.0, 2.0, 55.0, 48.0);
      break;
    }
  cairo_clip (cr);
  cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);
}

/* One batch, direct and through cairo, onto copies of one noisy surface. */
static gboolean
batch (GRand *rng, cairo_format_t format, int scale, double tx, double ty, Setup su, gboolean negative,
       gboolean translucent)
{
  const int w = 64, h = 56;
  cairo_surface_t *a = noisy_surface (rng, format, w, h, scale), *b = copy_surface (a);
  guint n = g_rand_int_range (rng, 1, 40);
  WeftFillRect *r = g_new (WeftFillRect, n);
  double red = g_rand_double (rng), green = g_rand_double (rng), blue = g_rand_double (rng);
  double alpha = translucent ? 0.45 : 1.0;
  WeftFillTarget t;
  gboolean direct;
  cairo_t *ca = cairo_create (a), *cb = cairo_create (b);

  for (guint i = 0; i < n; i++)
    {
      r[i].x = coord (rng);
      r[i].y = coord (rng);
      r[i].w = size (rng);
      r[i].h = size (rng);
      if (g_rand_int_range (rng, 0, 50) == 0)
        r[i].x += 5000.0; /* far right of the surface */
    }
  if (negative)
    r[g_rand_int_range (rng, 0, n)].w = -3.5;
  setup (ca, su, tx, ty);
  setup (cb, su, tx, ty);
  weft_fill_target_init (&t, ca);
  direct = weft_fill_boxes (ca, &t, r, n, red, green, blue, alpha);
  cairo_set_source_rgba (cb, red, green, blue, alpha);
  for (guint i = 0; i < n; i++)
    cairo_rectangle (cb, r[i].x, r[i].y, r[i].w, r[i].h);
  cairo_fill (cb);
  cairo_destroy (ca);
  cairo_destroy (cb);
  assert_same_pixels (a, b);
  cairo_surface_destroy (a);
  cairo_surface_destroy (b);
  g_free (r);
  return direct;
}

static void
test_random_batches (void)
{
  GRand *rng = g_rand_new_with_seed (18);
  const double shifts[] = { 0.0, 3.0, -7.0, 0.25, 0.5, 1.0 / 3.0, -2.75 };
  guint direct = 0, plain = 0;

  for (int f = 0; f < 2; f++)
    for (int scale = 1; scale <= 3; scale++)
      for (guint k = 0; k < G_N_ELEMENTS (shifts); k++)
        for (int it = 0; it < 40; it++)
          {
            cairo_format_t format = f == 0 ? CAIRO_FORMAT_ARGB32 : CAIRO_FORMAT_RGB24;
            double tx = shifts[k], ty = shifts[(k + it) % G_N_ELEMENTS (shifts)];
            gboolean d = batch (rng, format, scale, tx, ty, SETUP_PLAIN, FALSE, FALSE);
            /* a translation that leaves the clip (1, 2, 55, 48) off whole
             * device pixels: cairo; otherwise the direct path */
            double cx = scale * (1.0 + tx), cy = scale * (2.0 + ty);
            gboolean aligned = cx == floor (cx) && cy == floor (cy);
            /* (a third of a pixel does not come back exactly from cairo's
             * clip in user space: cairo may fill those too) */
            if (tx != 1.0 / 3.0 && ty != 1.0 / 3.0)
              g_assert_cmpint (d, ==, aligned);
            else
              g_assert_true (!d || aligned);
            direct += d;
            /* where it must not apply, cairo fills */
            g_assert_false (batch (rng, format, scale, tx, ty, SETUP_PLAIN, TRUE, FALSE));
            g_assert_false (batch (rng, format, scale, tx, ty, SETUP_PLAIN, FALSE, TRUE));
            /* (whole-pixel translations: cairo 1.16 asserts on a clip of
             * boxes off the pixel grid, get_clip_surface) */
            g_assert_false (batch (rng, format, scale, floor (tx), floor (ty), (Setup) (1 + it % (SETUP_N - 1)),
                                   FALSE, FALSE));
            plain += 3;
          }
  g_assert_cmpuint (direct, >, 300);
  g_assert_cmpuint (plain, >, 1000);
  g_rand_free (rng);
}

/* The step markers' dashed lines: direct against one cairo_stroke of a
 * subpath per line, over random pixels (random y ends on sub-pixels, the
 * same column twice, columns outside the clip, lines ending off the
 * surface), translucent colours. */
static void
stroke_lines (cairo_t *cr, const double *xs, guint n, double y0, double y1, const double *dash, double red,
              double green, double blue, double alpha)
{
  cairo_set_source_rgba (cr, red, green, blue, alpha);
  cairo_set_line_width (cr, 1.0);
  cairo_set_dash (cr, dash, 2, 0);
  for (guint i = 0; i < n; i++)
    {
      cairo_move_to (cr, xs[i], y0);
      cairo_line_to (cr, xs[i], y1);
    }
  cairo_stroke (cr);
}

static void
test_dashed_lines (void)
{
  GRand *rng = g_rand_new_with_seed (36);
  const double dash[] = { 3.0, 3.0 };
  guint direct = 0;

  for (int f = 0; f < 2; f++)
    for (int scale = 1; scale <= 2; scale++)
      for (int it = 0; it < 120; it++)
        {
          cairo_format_t format = f == 0 ? CAIRO_FORMAT_ARGB32 : CAIRO_FORMAT_RGB24;
          cairo_surface_t *a = noisy_surface (rng, format, 64, 56, scale), *b = copy_surface (a);
          double ty = (it % 3 == 0) ? 0.0 : (it % 3 == 1 ? -3.0 : 0.5 * (it % 5));
          double y0 = coord (rng), y1 = y0 + g_rand_double_range (rng, 0.0, 80.0);
          double red = g_rand_double (rng), green = g_rand_double (rng), blue = g_rand_double (rng);
          double alpha = it % 4 == 0 ? 1.0 : g_rand_double_range (rng, 0.05, 0.95);
          guint n = g_rand_int_range (rng, 1, 30);
          double *xs = g_new (double, n);
          cairo_t *ca = cairo_create (a), *cb = cairo_create (b);
          WeftFillTarget t;

          for (guint i = 0; i < n; i++)
            xs[i] = (i > 0 && g_rand_int_range (rng, 0, 4) == 0) ? xs[i - 1] : g_rand_int_range (rng, -3, 68) + 0.5;
          setup (ca, SETUP_PLAIN, 2.0, ty);
          setup (cb, SETUP_PLAIN, 2.0, ty);
          weft_fill_target_init (&t, ca);
          if (weft_fill_dashed_vlines (ca, &t, xs, n, y0, y1, dash, 2, red, green, blue, alpha))
            direct++;
          else
            stroke_lines (ca, xs, n, y0, y1, dash, red, green, blue, alpha);
          stroke_lines (cb, xs, n, y0, y1, dash, red, green, blue, alpha);
          cairo_destroy (ca);
          cairo_destroy (cb);
          assert_same_pixels (a, b);
          cairo_surface_destroy (a);
          cairo_surface_destroy (b);
          g_free (xs);
        }
  /* (ty = 0.5 leaves the clip off the pixel grid under scale 1: cairo) */
  g_assert_cmpuint (direct, >, 300);
  g_rand_free (rng);
}

/* A recording surface (SVG / PDF go the same way): cairo fills. */
/* The memory rows' step curve (weft_render_step_path, one line_to per
 * change of level) against a line_to to both ends of every column (the
 * path it stands for): random levels in runs, above the top and below the
 * base (clamped), whole and fractional starts and rows, device scales 1
 * and 2, filled without antialiasing and stroked with it as memory.c
 * does: the same pixels. */
static void
reference_step_path (cairo_t *cr, double x0, guint n, const gint64 *v, double base, double top, double per_byte,
                     gboolean close)
{
  double x = x0;
  if (close)
    cairo_move_to (cr, x, base);
  for (guint col = 0; col < n; col++, x += 1.0)
    {
      double y = CLAMP (base - (double) v[col] * per_byte, top, base);
      if (col == 0 && !close)
        cairo_move_to (cr, x, y);
      else
        cairo_line_to (cr, x, y);
      cairo_line_to (cr, x + 1.0, y);
    }
  if (close)
    {
      cairo_line_to (cr, x, base);
      cairo_close_path (cr);
    }
}

static void
test_step_path (void)
{
  GRand *rng = g_rand_new_with_seed (g_test_rand_int ());

  for (guint round = 0; round < 300; round++)
    {
      guint n = (guint) g_rand_int_range (rng, 0, 240);
      gint64 *v = g_new (gint64, MAX (n, 1));
      int scale = g_rand_boolean (rng) ? 1 : 2;
      double x0 = g_rand_boolean (rng) ? g_rand_int_range (rng, -3, 40) : g_rand_double_range (rng, -3.0, 40.0);
      double top = g_rand_int_range (rng, 0, 20) + (g_rand_boolean (rng) ? 0.0 : g_rand_int_range (rng, 0, 8) / 8.0);
      double base = top + g_rand_double_range (rng, 5.0, 45.0);
      double per_byte = (base - top) / (double) g_rand_int_range (rng, 1000, 1 << 30);
      cairo_surface_t *a, *b;
      for (guint i = 0; i < n;)
        {
          guint run = (guint) g_rand_int_range (rng, 1, 30);
          gint64 level = g_rand_int_range (rng, 0, 8) == 0 ? -(gint64) g_rand_int_range (rng, 1, 1000)
                                                           : (gint64) ((base - top) / per_byte * g_rand_double_range (rng, 0.0, 1.2));
          for (; run > 0 && i < n; run--, i++)
            v[i] = level;
        }
      a = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 300 * scale, 80 * scale);
      b = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 300 * scale, 80 * scale);
      for (int k = 0; k < 2; k++)
        {
          cairo_t *cr = cairo_create (k == 0 ? a : b);
          void (*path) (cairo_t *, double, guint, const gint64 *, double, double, double, gboolean) =
            k == 0 ? reference_step_path : weft_render_step_path;
          cairo_scale (cr, scale, scale);
          cairo_set_source_rgb (cr, 0.97, 0.96, 0.95);
          cairo_paint (cr);
          cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);
          path (cr, x0, n, v, base, top, per_byte, TRUE);
          cairo_set_source_rgba (cr, 0.16, 0.60, 0.56, 0.55);
          cairo_fill (cr);
          cairo_set_antialias (cr, CAIRO_ANTIALIAS_DEFAULT);
          path (cr, x0, n, v, base, top, per_byte, FALSE);
          cairo_set_source_rgba (cr, 0.80, 0.45, 0.05, 0.95);
          cairo_set_line_width (cr, 1.25);
          cairo_stroke (cr);
          cairo_destroy (cr);
        }
      assert_same_pixels (a, b);
      cairo_surface_destroy (a);
      cairo_surface_destroy (b);
      g_free (v);
    }
  g_rand_free (rng);
}

static void
test_not_image (void)
{
  cairo_surface_t *rec = cairo_recording_surface_create (CAIRO_CONTENT_COLOR_ALPHA, NULL);
  cairo_t *cr = cairo_create (rec);
  WeftFillTarget t;
  WeftFillRect r = { 1.5, 2.5, 10.0, 4.0 };

  cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);
  weft_fill_target_init (&t, cr);
  g_assert_false (t.ok);
  g_assert_false (weft_fill_boxes (cr, &t, &r, 1, 0.2, 0.3, 0.4, 1.0));
  cairo_destroy (cr);
  cairo_surface_destroy (rec);
}

/* ---- the painter on the shared traces --------------------------------------------------- */

typedef struct
{
  double          zoom;     /* fraction of the trace in view */
  double          scroll_y;
  gboolean        cpu, dark, solver;
  int             scale;
  cairo_format_t  format;
} Case;

static cairo_surface_t *
paint (WeftTrace *trace, const WeftView *view, WeftLayout *layout, const WeftRenderTimes *times, const Case *c,
       gboolean plain, WeftRenderStats *stats)
{
  cairo_surface_t *s = cairo_image_surface_create (c->format, (int) view->width * c->scale,
                                                   (int) view->height * c->scale);
  cairo_t *cr;

  cairo_surface_set_device_scale (s, c->scale, c->scale);
  cr = cairo_create (s);
  weft_render_set_plain_fills (plain);
  weft_render_paint (cr, trace, view, layout, times, NULL, stats);
  weft_render_set_plain_fills (FALSE);
  cairo_destroy (cr);
  return s;
}

static void
paint_case (WeftTrace *trace, WeftSolver *solver, const Case *c)
{
  WeftView view;
  WeftLayout *layout;
  WeftRenderTimes lanes;
  WeftRenderStats sd = { 0 }, sp = { 0 };
  cairo_surface_t *d, *p;

  weft_view_init (&view, trace);
  view.width = 900;
  view.height = 700;
  view.dark = c->dark;
  view.scroll_y = c->scroll_y;
  for (guint r = 0; c->cpu && r < trace->ranks->len; r++)
    weft_view_set_rank_flags (&view, r, WEFT_RANK_VIEW_CPU_EXPANDED);
  if (c->zoom < 1.0)
    {
      gint64 span = view.span.end - view.span.begin;
      view.span.begin += (gint64) (span * 0.37);
      view.span.end = view.span.begin + MAX ((gint64) (span * c->zoom), 1);
    }
  layout = weft_layout_new (trace, &view);
  if (solver != NULL)
    weft_render_times_init_solver (&lanes, trace, solver);
  /* plain first, then direct: the layout's caches are the same for both */
  p = paint (trace, &view, layout, solver != NULL ? &lanes : NULL, c, TRUE, &sp);
  d = paint (trace, &view, layout, solver != NULL ? &lanes : NULL, c, FALSE, &sd);
  g_assert_cmpuint (sp.fills_direct, ==, 0);
  g_assert_cmpuint (sd.fills_direct, >, 0);
  g_assert_cmpuint (sd.boxes, ==, sp.boxes);
  g_assert_cmpuint (sd.boxes, >, 0);
  assert_same_pixels (d, p);
  /* again, twice (repaints of the view, as the window's): the second
   * records the memory rows' pixels, the third copies them from the memo,
   * the same pixels */
  for (int k = 0; k < 2; k++)
    {
      WeftRenderStats sr = { 0 };
      cairo_surface_t *again = paint (trace, &view, layout, solver != NULL ? &lanes : NULL, c, FALSE, &sr);
      assert_same_pixels (again, p);
      g_assert_cmpuint (sr.memory_rows, ==, sp.memory_rows);
      g_assert_cmpuint (sr.memory_rows_replayed, ==, k == 0 ? 0 : sr.memory_rows);
      cairo_surface_destroy (again);
    }
  g_assert_cmpuint (sp.memory_rows_replayed, ==, 0);
  g_assert_cmpuint (sd.memory_rows_replayed, ==, 0);
  cairo_surface_destroy (d);
  cairo_surface_destroy (p);
  weft_layout_free (layout);
  weft_view_clear (&view);
}

/* A layout kept across random edits of the solver, painted with the direct
 * fills and the memory rows' pixel memo (replayed only where the pixels
 * under them are those they were made on), against a fresh layout folding
 * everything with every fill through cairo. */
static void
edits_case (WeftTrace *trace, WeftSolver *solver)
{
  WeftView view;
  WeftLayout *layout;
  WeftRenderTimes lanes;
  const Case c = { 1.0, 0.0, FALSE, FALSE, TRUE, 1, CAIRO_FORMAT_ARGB32 };
  guint replayed = 0, edits = 0, memory_rows = 0;

  weft_view_init (&view, trace);
  view.width = 900;
  view.height = 700;
  layout = weft_layout_new (trace, &view);
  weft_render_times_init_solver (&lanes, trace, solver);
  for (guint step = 0; step < 8; step++)
    {
      WeftRenderStats sk = { 0 }, sf = { 0 };
      WeftLayout *fresh = weft_layout_new (trace, &view);
      WeftRenderTimes rebuilt = lanes;
      cairo_surface_t *kept, *plain;
      rebuilt.lane_changed = NULL;
      kept = paint (trace, &view, layout, &lanes, &c, FALSE, &sk);
      plain = paint (trace, &view, fresh, &rebuilt, &c, TRUE, &sf);
      assert_same_pixels (kept, plain);
      g_assert_cmpuint (sk.boxes, ==, sf.boxes);
      replayed += sk.memory_rows_replayed;
      memory_rows += sk.memory_rows;
      cairo_surface_destroy (kept);
      cairo_surface_destroy (plain);
      weft_layout_free (fresh);
      /* every other step repaints the same times (the memo's replay);
       * the others move an op */
      if (step % 2 == 1 && weft_test_set_random_duration (trace, solver, 50000 + step * 20000))
        {
          weft_render_times_update (&lanes);
          edits++;
        }
    }
  g_assert_cmpuint (edits, >, 0);
  if (memory_rows > 0)
    g_assert_cmpuint (replayed, >, 0);
  weft_layout_free (layout);
  weft_view_clear (&view);
}

static void
test_shared (gconstpointer data)
{
  g_autofree char *path = weft_test_require_trace (data);
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftTrace) trace = NULL;
  g_autoptr (WeftSolver) solver = NULL;
  const Case cases[] = {
    { 1.0, 0.0, FALSE, FALSE, TRUE, 1, CAIRO_FORMAT_ARGB32 },
    { 1.0, 0.0, FALSE, FALSE, FALSE, 1, CAIRO_FORMAT_ARGB32 },
    { 0.05, 13.37, TRUE, FALSE, TRUE, 1, CAIRO_FORMAT_ARGB32 },
    { 0.0005, 40.5, TRUE, TRUE, TRUE, 1, CAIRO_FORMAT_ARGB32 },
    { 1.0, 7.25, FALSE, TRUE, TRUE, 2, CAIRO_FORMAT_ARGB32 },
    { 0.05, 0.0, TRUE, FALSE, FALSE, 1, CAIRO_FORMAT_RGB24 },
  };

  if (path == NULL)
    return;
  trace = weft_trace_load (path, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (trace);
  solver = weft_solver_new (trace, &error);
  g_assert_no_error (error);
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    paint_case (trace, cases[k].solver ? solver : NULL, &cases[k]);
  edits_case (trace, solver);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/render-fills/random-batches", test_random_batches);
  g_test_add_func ("/render-fills/dashed-lines", test_dashed_lines);
  g_test_add_func ("/render-fills/not-image", test_not_image);
  g_test_add_func ("/render-fills/step-path", test_step_path);
  g_test_add_data_func ("/render-fills/dlrm", "param/et_replay/tests/inputs/dlrm_kineto", test_shared);
  g_test_add_data_func ("/render-fills/fsdp8", "synthetic/fsdp8/profiling/traces/iteration_10", test_shared);
  g_test_add_data_func ("/render-fills/nccl-data", "HolisticTraceAnalysis/nccl_parser_config/nccl_data.json.gz",
                        test_shared);
  g_test_add_data_func ("/render-fills/h100-qwen", "TraceLens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
                        test_shared);
  g_test_add_data_func ("/render-fills/df-index-resolver",
                        "HolisticTraceAnalysis/df_index_resolver/df_index_resolver.json.gz", test_shared);
  return g_test_run ();
}
