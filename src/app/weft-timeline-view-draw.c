/* weft-timeline-view-draw.c: measuring and painting. The dense body is
 * painted once into a cairo image surface and kept as a texture until the
 * view changes; hover, selection and the drag ghost are a small cairo node
 * on top. The first frame of a trace and the drag latency (pointer motion
 * to the end of the frame that shows it) are measured here. Export:
 * PNG/SVG/PDF through the same painter. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "weft-timeline-view-private.h"

/* ---- drawing ------------------------------------------------------------------------------ */

/* The one call that paints the dense body (everything but the highlights). */
static void
paint_body (WeftTimelineView *self, cairo_t *cr)
{
  _weft_timeline_view_memory_sync (self);
  weft_render_paint_body (cr, self->trace, &self->view, self->layout, self->times, &self->overlay, &self->body_stats);
}

static void
free_surface (gpointer data)
{
  cairo_surface_destroy (data);
}

static cairo_surface_t *
render_body_surface (WeftTimelineView *self, int w, int h, int scale)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, w * scale, h * scale);
  cairo_t *cr;

  cairo_surface_set_device_scale (surface, scale, scale);
  cr = cairo_create (surface);
  paint_body (self, cr);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  return surface;
}

/* A texture of the body surface (shares its pixels: a new surface is
 * painted for every repaint, this one is never written again). */
static GdkTexture *
body_texture_from_surface (cairo_surface_t *surface)
{
  int w = cairo_image_surface_get_width (surface);
  int h = cairo_image_surface_get_height (surface);
  int stride = cairo_image_surface_get_stride (surface);
  g_autoptr (GBytes) bytes = NULL;

  bytes = g_bytes_new_with_free_func (cairo_image_surface_get_data (surface), (gsize) stride * h, free_surface,
                                      cairo_surface_reference (surface));
  return gdk_memory_texture_new (w, h, GDK_MEMORY_DEFAULT, bytes, stride);
}

static gboolean
first_frame_idle (gpointer data)
{
  WeftTimelineView *self = data;

  self->first_frame_idle = 0;
  g_signal_emit (self, _weft_timeline_view_signals[SIGNAL_FIRST_FRAME], 0);
  return G_SOURCE_REMOVE;
}

void
weft_timeline_view_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  WeftTimelineView *self = WEFT_TIMELINE_VIEW (widget);
  graphene_rect_t body, rect;
  int w = gtk_widget_get_width (widget);
  int h = gtk_widget_get_height (widget);
  double hw = _weft_timeline_view_header_width (self);
  int scale = gtk_widget_get_scale_factor (widget);
  cairo_t *cr;
  WeftRgba bg;

  if (self->trace == NULL || self->layout == NULL || w <= 1 || h <= 1)
    return;
  if (self->debug_timing)
    self->t_snapshot = self->t_body = g_get_monotonic_time ();
  _weft_timeline_view_sync_view_size (self);
  _weft_timeline_view_body_rect (self, &body);
  bg = weft_render_background_color (self->view.dark);

  /* corner above the headers */
  graphene_rect_init (&rect, 0, 0, hw, WEFT_RENDER_RULER_HEIGHT);
  gtk_snapshot_append_color (snapshot, &(GdkRGBA) { bg.r, bg.g, bg.b, 1 }, &rect);

  /* ruler */
  graphene_rect_init (&rect, body.origin.x, 0, body.size.width, WEFT_RENDER_RULER_HEIGHT);
  cr = gtk_snapshot_append_cairo (snapshot, &rect);
  cairo_translate (cr, body.origin.x, 0);
  cairo_rectangle (cr, 0, 0, body.size.width, WEFT_RENDER_RULER_HEIGHT);
  cairo_clip (cr);
  weft_render_paint_ruler (cr, self->trace, &self->view);
  cairo_destroy (cr);

  /* lane headers */
  graphene_rect_init (&rect, 0, body.origin.y, hw, body.size.height);
  cr = gtk_snapshot_append_cairo (snapshot, &rect);
  cairo_translate (cr, 0, body.origin.y);
  cairo_rectangle (cr, 0, 0, hw, body.size.height);
  cairo_clip (cr);
  weft_render_paint_lane_headers (cr, self->trace, &self->view, self->layout, hw);
  cairo_destroy (cr);

  /* body: cached texture */
  if (!self->body_valid || self->body_surface == NULL || self->body_w != (int) body.size.width ||
      self->body_h != (int) body.size.height || self->body_scale != scale)
    {
      g_clear_object (&self->body_texture);
      g_clear_pointer (&self->body_surface, cairo_surface_destroy);
      self->body_w = (int) body.size.width;
      self->body_h = (int) body.size.height;
      self->body_scale = scale;
      gint64 t0 = g_get_monotonic_time ();
      self->body_surface = render_body_surface (self, self->body_w, self->body_h, scale);
      if (self->debug_timing)
        {
          self->t_body = g_get_monotonic_time ();
          g_printerr ("paint body %.1f ms\n", (self->t_body - t0) / 1000.0);
        }
      self->body_valid = TRUE;
    }
  graphene_rect_init (&rect, body.origin.x, body.origin.y, self->body_w, self->body_h);
  if (GSK_IS_CAIRO_RENDERER (gtk_native_get_renderer (gtk_widget_get_native (widget))))
    {
      /* The cairo renderer draws a texture by first converting all its
       * pixels into a new surface (GTK 4.8: ~2 ms per frame for a full-HD
       * body, on every drag motion); a cairo node paints our surface
       * straight onto the window. */
      cr = gtk_snapshot_append_cairo (snapshot, &rect);
      cairo_set_source_surface (cr, self->body_surface, body.origin.x, body.origin.y);
      cairo_rectangle (cr, rect.origin.x, rect.origin.y, rect.size.width, rect.size.height);
      cairo_fill (cr);
      cairo_destroy (cr);
    }
  else
    {
      if (self->body_texture == NULL)
        self->body_texture = body_texture_from_surface (self->body_surface);
      gtk_snapshot_append_texture (snapshot, self->body_texture, &rect);
    }

  /* highlights: selection, hover, instance links, flows, range */
  gtk_snapshot_push_clip (snapshot, &body);
  cr = gtk_snapshot_append_cairo (snapshot, &body);
  cairo_translate (cr, body.origin.x, body.origin.y);
  weft_render_paint_highlights (cr, self->trace, &self->view, self->layout, self->times);
  if (self->drag_gesture_open && self->drag_mode == DRAG_MOVE)
    _weft_timeline_view_paint_drag_ghost (self, cr);
  cairo_destroy (cr);
  gtk_snapshot_pop (snapshot);

  /* range shading on the ruler too */
  if (self->view.range.end > self->view.range.begin)
    {
      double x0 = weft_render_time_to_x (&self->view, self->view.range.begin);
      double x1 = weft_render_time_to_x (&self->view, self->view.range.end);
      x0 = CLAMP (x0, 0, body.size.width);
      x1 = CLAMP (x1, 0, body.size.width);
      graphene_rect_init (&rect, body.origin.x + x0, 0, MAX (1.0, x1 - x0), WEFT_RENDER_RULER_HEIGHT);
      gtk_snapshot_append_color (snapshot, &(GdkRGBA) { 0.26, 0.52, 0.96, 0.35 }, &rect);
    }

  _weft_timeline_view_paint_mark (self, snapshot, &body);

  if (self->debug_timing)
    self->t_snapshot_end = g_get_monotonic_time ();
  self->frames++;
  if (self->first_frame_pending && self->first_frame_idle == 0)
    {
      self->first_frame_pending = FALSE;
      self->first_frame_idle = g_idle_add (first_frame_idle, self);
    }
}

void
weft_timeline_view_measure (GtkWidget *widget, GtkOrientation orientation, int for_size, int *minimum, int *natural,
                            int *minimum_baseline, int *natural_baseline)
{
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = 320;
      *natural = 1000;
    }
  else
    {
      *minimum = 200;
      *natural = 700;
    }
}

void
weft_timeline_view_size_allocate (GtkWidget *widget, int width, int height, int baseline)
{
  WeftTimelineView *self = WEFT_TIMELINE_VIEW (widget);
  _weft_timeline_view_sync_view_size (self);
  _weft_timeline_view_update_adjustment (self);
  _weft_timeline_view_invalidate_body (self);
}

void
_weft_timeline_view_after_paint_cb (GdkFrameClock *clock, WeftTimelineView *self)
{
  gint64 t;

  if (self->motion_time == 0)
    return;
  t = g_get_monotonic_time () - self->motion_time;
  if (self->debug_timing && self->t_snapshot >= self->t_edited && self->t_edited >= self->motion_time)
    g_printerr ("motion -> frame %.1f ms: edit %.1f, wait %.1f, body %.1f, rest of snapshot %.1f, render %.1f\n",
                t / 1000.0, (self->t_edited - self->motion_time) / 1000.0, (self->t_snapshot - self->t_edited) / 1000.0,
                (self->t_body - self->t_snapshot) / 1000.0, (self->t_snapshot_end - self->t_body) / 1000.0,
                (g_get_monotonic_time () - self->t_snapshot_end) / 1000.0);
  self->motion_time = 0;
  if (self->latencies->len < 100000)
    g_array_append_val (self->latencies, t);
}

gboolean
weft_timeline_view_export (WeftTimelineView *self, const char *path, WeftExportFormat format, int width,
                           GError **error)
{
  WeftRenderFileOptions options = { 0 };
  g_autoptr (GArray) ranks = NULL;
  gboolean any_cpu = FALSE;

  g_return_val_if_fail (WEFT_IS_TIMELINE_VIEW (self), FALSE);
  if (self->trace == NULL)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "No trace is open");
      return FALSE;
    }
  ranks = g_array_new (FALSE, FALSE, sizeof (int));
  for (guint r = 0; r < self->trace->ranks->len; r++)
    {
      guint8 f = weft_view_get_rank_flags (&self->view, r);
      if (!(f & WEFT_RANK_VIEW_HIDDEN))
        g_array_append_val (ranks, weft_trace_rank (self->trace, r)->rank);
      any_cpu |= (f & WEFT_RANK_VIEW_CPU_EXPANDED) != 0;
    }
  options.span = self->view.span;
  options.ranks = (const int *) (void *) ranks->data;
  options.n_ranks = ranks->len;
  options.width = width > 0 ? width : gtk_widget_get_width (GTK_WIDGET (self));
  options.cpu_expanded = any_cpu;
  options.dark = self->view.dark;
  options.times = self->times;
  _weft_timeline_view_memory_sync (self);
  options.overlay = &self->overlay;
  (void) format; /* the painter picks the format from the extension */
  return weft_render_to_file (self->trace, &options, path, error);
}

gboolean
weft_timeline_view_get_selection_rect (WeftTimelineView *self, graphene_rect_t *rect)
{
  WeftRank *rank;
  const WeftEvent *ev;
  WeftTimeSpan span;
  graphene_rect_t body;
  const WeftLayoutRow *row;
  int row_idx;
  double x0, x1, y;

  g_return_val_if_fail (WEFT_IS_TIMELINE_VIEW (self), FALSE);
  if (self->layout == NULL || self->view.sel_event == WEFT_NONE)
    return FALSE;
  rank = weft_trace_rank (self->trace, self->view.sel_rank);
  ev = weft_rank_event (rank, self->view.sel_event);
  if (ev->lane == WEFT_NONE)
    return FALSE;
  row_idx = weft_layout_find_lane (self->layout, self->view.sel_rank, ev->lane);
  if (row_idx < 0)
    return FALSE;
  row = weft_layout_get_row (self->layout, row_idx);
  if (row->kind != WEFT_ROW_LANE)
    return FALSE;
  _weft_timeline_view_body_rect (self, &body);
  _weft_timeline_view_sync_view_size (self);
  span = _weft_timeline_view_selected_span (self);
  x0 = CLAMP (weft_render_time_to_x (&self->view, span.begin), 0, body.size.width);
  x1 = CLAMP (weft_render_time_to_x (&self->view, span.end), 0, body.size.width);
  y = row->y + MIN (weft_layout_event_depth (self->layout, self->view.sel_rank, self->view.sel_event),
                    row->n_depth > 0 ? row->n_depth - 1 : 0) * WEFT_RENDER_LANE_ROW - self->view.scroll_y;
  if (x1 <= 0 || x0 >= body.size.width || y + WEFT_RENDER_LANE_ROW <= 0 || y >= body.size.height)
    return FALSE;
  graphene_rect_init (rect, body.origin.x + x0, body.origin.y + y, MAX (1.0, x1 - x0), WEFT_RENDER_LANE_ROW);
  return TRUE;
}
