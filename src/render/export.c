/* export.c: pictures of a view (PNG, SVG, PDF): ruler + lane headers + body + legend. */
#include "config.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <string.h>

#include "render-private.h"

#define LEGEND_HEIGHT 24.0
#define MAX_AUTO_HEIGHT 16000

typedef enum
{
  FMT_PNG,
  FMT_SVG,
  FMT_PDF,
} Format;

static void
legend_item (cairo_t *cr, double *x, double y, WeftRgba c, const char *text, gboolean dark)
{
  PangoLayout *pl = pango_cairo_create_layout (cr);
  PangoFontDescription *fd = pango_font_description_from_string ("Sans 8");
  WeftRgba tc = weft_render_text_color (dark);
  int tw, th;

  pango_layout_set_font_description (pl, fd);
  pango_font_description_free (fd);
  pango_layout_set_text (pl, text, -1);
  pango_layout_get_pixel_size (pl, &tw, &th);
  cairo_set_source_rgba (cr, c.r, c.g, c.b, 1.0);
  cairo_rectangle (cr, *x, y + 7, 12, 10);
  cairo_fill (cr);
  cairo_set_source_rgba (cr, tc.r, tc.g, tc.b, 0.9);
  cairo_move_to (cr, *x + 16, y + 12 - th / 2.0);
  pango_cairo_show_layout (cr, pl);
  g_object_unref (pl);
  *x += 16 + tw + 14;
}

static void
paint_legend (cairo_t *cr, WeftTrace *trace, const WeftView *view, double width, double y)
{
  gboolean seen[WEFT_KEY_N] = { FALSE };
  double x = 10;
  static const char *state_names[] = { "idle", "compute only", "overlapped", "comm only" };

  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);
      if (weft_view_get_rank_flags (view, r) & WEFT_RANK_VIEW_HIDDEN)
        continue;
      for (guint i = 0; i < rank->events->len; i++)
        {
          const WeftEvent *ev = weft_rank_event (rank, i);
          if (ev->flags & WEFT_EVENT_GPU_OP)
            seen[weft_render_event_key (rank, ev)] = TRUE;
        }
    }
  for (guint k = 0; k < WEFT_KEY_CPU_BASE && x < width - 100; k++)
    {
      char text[64];
      if (!seen[k])
        continue;
      if (k < WEFT_KEY_COLL_BASE)
        g_strlcpy (text, weft_kernel_class_to_string ((WeftKernelClass) k), sizeof text);
      else if (k == WEFT_KEY_COLL_BASE + WEFT_COLL_NONE)
        g_strlcpy (text, "communication", sizeof text);
      else
        g_strlcpy (text, weft_coll_type_to_string ((WeftCollType) (k - WEFT_KEY_COLL_BASE)), sizeof text);
      for (char *c = text; *c; c++)
        if (*c == '_')
          *c = '-';
      legend_item (cr, &x, y, weft_render_key_color (k, view->dark), text, view->dark);
    }
  x += 20;
  for (int s = WEFT_OVERLAP_COMPUTE_ONLY; s < WEFT_OVERLAP_N_STATES && x < width - 100; s++)
    {
      g_autofree char *text = g_strdup_printf ("band: %s", state_names[s]);
      legend_item (cr, &x, y, weft_render_overlap_color ((WeftOverlapState) s, view->dark), text, view->dark);
    }
}

gboolean
weft_render_to_file (WeftTrace *trace, const WeftRenderFileOptions *options, const char *path, GError **error)
{
  WeftRenderFileOptions defaults = { { 0, 0 }, NULL, 0, 0, 0, FALSE, FALSE, NULL, NULL };
  const WeftRenderFileOptions *o = options != NULL ? options : &defaults;
  g_autofree char *lower = NULL;
  Format fmt;
  WeftView view;
  WeftLayout *layout;
  double header_w, body_h, total_w, total_h;
  cairo_surface_t *surface;
  cairo_t *cr;
  cairo_status_t status;
  gboolean any_rank = FALSE;

  g_return_val_if_fail (trace != NULL && path != NULL, FALSE);
  lower = g_ascii_strdown (path, -1);
  if (g_str_has_suffix (lower, ".png"))
    fmt = FMT_PNG;
  else if (g_str_has_suffix (lower, ".svg"))
    fmt = FMT_SVG;
  else if (g_str_has_suffix (lower, ".pdf"))
    fmt = FMT_PDF;
  else
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "%s: unknown picture type (use .png, .svg or .pdf)", path);
      return FALSE;
    }
  if (o->width < 0 || o->height < 0 || (o->width > 0 && o->width < 200) || o->width > 32000 || o->height > 32000)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "%s: picture size %dx%d out of range (width 200..32000)",
                   path, o->width, o->height);
      return FALSE;
    }

  weft_view_init (&view, trace);
  if (o->span.end > o->span.begin)
    view.span = o->span;
  view.dark = o->dark;
  for (guint r = 0; r < trace->ranks->len; r++)
    {
      guint8 flags = o->cpu_expanded ? WEFT_RANK_VIEW_CPU_EXPANDED : 0;
      if (o->ranks != NULL)
        {
          gboolean keep = FALSE;
          for (guint k = 0; k < o->n_ranks; k++)
            keep |= o->ranks[k] == weft_trace_rank (trace, r)->rank;
          if (!keep)
            flags |= WEFT_RANK_VIEW_HIDDEN;
        }
      any_rank |= !(flags & WEFT_RANK_VIEW_HIDDEN);
      weft_view_set_rank_flags (&view, r, flags);
    }
  if (!any_rank)
    {
      if (trace->ranks->len == 0)
        g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "%s: the trace has no ranks to draw", path);
      else
        g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "%s: none of the requested ranks is in the trace", path);
      weft_view_clear (&view);
      return FALSE;
    }

  total_w = o->width > 0 ? o->width : 1600;
  header_w = MIN (WEFT_RENDER_HEADER_WIDTH, total_w / 4);
  view.width = total_w - header_w;
  layout = weft_layout_new (trace, &view);
  if (o->height > 0)
    {
      total_h = MAX (o->height, WEFT_RENDER_RULER_HEIGHT + LEGEND_HEIGHT + 20);
      body_h = total_h - WEFT_RENDER_RULER_HEIGHT - LEGEND_HEIGHT;
    }
  else
    {
      body_h = MIN (weft_layout_get_height (layout), MAX_AUTO_HEIGHT);
      total_h = body_h + WEFT_RENDER_RULER_HEIGHT + LEGEND_HEIGHT;
    }
  view.height = body_h;
  if (fmt == FMT_PNG && total_w * total_h > 100e6)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
                   "%s: a %.0fx%.0f picture is over 100 megapixels; use a smaller --width / --height, fewer "
                   "--ranks, or SVG/PDF",
                   path, total_w, total_h);
      weft_layout_free (layout);
      weft_view_clear (&view);
      return FALSE;
    }

  switch (fmt)
    {
    case FMT_SVG:
      surface = cairo_svg_surface_create (path, total_w, total_h);
      break;
    case FMT_PDF:
      surface = cairo_pdf_surface_create (path, total_w, total_h);
      break;
    case FMT_PNG:
    default:
      surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, (int) total_w, (int) total_h);
      break;
    }
  status = cairo_surface_status (surface);
  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_IO, "%s: cannot create the picture: %s", path,
                   cairo_status_to_string (status));
      cairo_surface_destroy (surface);
      weft_layout_free (layout);
      weft_view_clear (&view);
      return FALSE;
    }
  cr = cairo_create (surface);
  {
    WeftRgba bg = weft_render_background_color (view.dark);
    WeftRgba tc = weft_render_text_color (view.dark);
    PangoLayout *pl;
    PangoFontDescription *fd;
    g_autofree char *title = NULL;
    WeftTimeSpan all = weft_trace_time_span (trace);
    g_autofree char *dur = weft_render_format_time (all.end - all.begin, (all.end - all.begin) / 100 + 1);

    cairo_set_source_rgb (cr, bg.r, bg.g, bg.b);
    cairo_paint (cr);

    /* title in the corner above the headers */
    title = g_strdup_printf ("%u rank%s \u00b7 %s", trace->ranks->len, trace->ranks->len == 1 ? "" : "s", dur);
    pl = pango_cairo_create_layout (cr);
    fd = pango_font_description_from_string ("Sans Bold 8.5");
    pango_layout_set_font_description (pl, fd);
    pango_font_description_free (fd);
    pango_layout_set_text (pl, title, -1);
    cairo_set_source_rgba (cr, tc.r, tc.g, tc.b, 0.9);
    cairo_move_to (cr, 8, 7);
    pango_cairo_show_layout (cr, pl);
    g_object_unref (pl);

    cairo_save (cr);
    cairo_translate (cr, header_w, 0);
    weft_render_paint_ruler (cr, trace, &view);
    cairo_restore (cr);

    cairo_save (cr);
    cairo_translate (cr, 0, WEFT_RENDER_RULER_HEIGHT);
    weft_render_paint_lane_headers (cr, trace, &view, layout, header_w);
    cairo_restore (cr);

    cairo_save (cr);
    cairo_translate (cr, header_w, WEFT_RENDER_RULER_HEIGHT);
    weft_render_paint (cr, trace, &view, layout, o->times, o->overlay, NULL);
    cairo_restore (cr);

    cairo_set_source_rgba (cr, tc.r, tc.g, tc.b, 0.25);
    cairo_rectangle (cr, 0, total_h - LEGEND_HEIGHT, total_w, 1);
    cairo_fill (cr);
    paint_legend (cr, trace, &view, total_w, total_h - LEGEND_HEIGHT);
  }
  cairo_destroy (cr);
  if (fmt == FMT_PNG)
    status = cairo_surface_write_to_png (surface, path);
  else
    {
      cairo_surface_finish (surface);
      status = cairo_surface_status (surface);
    }
  cairo_surface_destroy (surface);
  weft_layout_free (layout);
  weft_view_clear (&view);
  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_IO, "%s: cannot write the picture: %s", path,
                   cairo_status_to_string (status));
      return FALSE;
    }
  return TRUE;
}
