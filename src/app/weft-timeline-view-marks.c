/* weft-timeline-view-marks.c: marks and bookmarks, as in Perfetto.
 *
 * M marks the span of the selection (the selected range, else the selected
 * event): a shaded band over the lanes and the ruler with its duration
 * written in it; M again on the same span (or Escape twice) clears it.
 * Alt+1..9 stores a bookmark (the visible range, the vertical scroll and
 * the selection) in that slot; 1..9 goes back to it. */
#include "config.h"

#include "weft-timeline-view-private.h"

static void
action_mark (GtkWidget *widget, const char *name, GVariant *param)
{
  WeftTimelineView *self = WEFT_TIMELINE_VIEW (widget);
  WeftTimeSpan span;

  if (self->trace == NULL)
    return;
  if (self->view.range.end > self->view.range.begin)
    span = self->view.range;
  else if (self->view.sel_event != WEFT_NONE)
    span = _weft_timeline_view_selected_span (self);
  else
    {
      self->has_mark = FALSE;
      _weft_timeline_view_selection_changed (self);
      return;
    }
  if (self->has_mark && self->mark.begin == span.begin && self->mark.end == span.end)
    self->has_mark = FALSE;
  else
    {
      self->mark = span;
      self->has_mark = TRUE;
    }
  _weft_timeline_view_selection_changed (self);
}

static void
action_bookmark_set (GtkWidget *widget, const char *name, GVariant *param)
{
  WeftTimelineView *self = WEFT_TIMELINE_VIEW (widget);
  int slot = g_variant_get_int32 (param);
  WeftBookmark *b;

  if (self->trace == NULL || slot < 1 || slot > WEFT_N_BOOKMARKS)
    return;
  b = &self->bookmarks[slot - 1];
  b->set = TRUE;
  b->span = self->view.span;
  b->scroll_y = self->view.scroll_y;
  b->sel_rank = self->view.sel_rank;
  b->sel_event = self->view.sel_event;
  _weft_timeline_view_selection_changed (self);
}

static void
action_bookmark_go (GtkWidget *widget, const char *name, GVariant *param)
{
  WeftTimelineView *self = WEFT_TIMELINE_VIEW (widget);
  int slot = g_variant_get_int32 (param);
  const WeftBookmark *b;

  if (self->trace == NULL || slot < 1 || slot > WEFT_N_BOOKMARKS || !self->bookmarks[slot - 1].set)
    return;
  b = &self->bookmarks[slot - 1];
  if (b->sel_rank < self->trace->ranks->len && b->sel_event != WEFT_NONE &&
      b->sel_event < weft_trace_rank (self->trace, b->sel_rank)->events->len)
    {
      self->view.sel_rank = b->sel_rank;
      self->view.sel_event = b->sel_event;
    }
  else
    {
      self->view.sel_rank = WEFT_NONE;
      self->view.sel_event = WEFT_NONE;
    }
  _weft_timeline_view_set_span (self, b->span.begin, b->span.end);
  _weft_timeline_view_set_scroll (self, b->scroll_y);
  _weft_timeline_view_selection_changed (self);
}

void
_weft_timeline_view_class_marks_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "timeline.mark", NULL, action_mark);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_m, 0, "timeline.mark", NULL);
  gtk_widget_class_install_action (widget_class, "timeline.bookmark-set", "i", action_bookmark_set);
  gtk_widget_class_install_action (widget_class, "timeline.bookmark-go", "i", action_bookmark_go);
  for (int i = 1; i <= WEFT_N_BOOKMARKS; i++)
    {
      gtk_widget_class_add_binding_action (widget_class, GDK_KEY_0 + i, GDK_ALT_MASK, "timeline.bookmark-set", "i", i);
      gtk_widget_class_add_binding_action (widget_class, GDK_KEY_0 + i, 0, "timeline.bookmark-go", "i", i);
      gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_0 + i, 0, "timeline.bookmark-go", "i", i);
    }
}

/* The mark's band over the body and the ruler, with its duration. */
void
_weft_timeline_view_paint_mark (WeftTimelineView *self, GtkSnapshot *snapshot, const graphene_rect_t *body)
{
  double x0, x1;
  graphene_rect_t rect;
  cairo_t *cr;
  g_autofree char *len = NULL;
  PangoLayout *pl;
  int tw, th;

  if (!self->has_mark)
    return;
  x0 = CLAMP (weft_render_time_to_x (&self->view, self->mark.begin), 0, body->size.width);
  x1 = CLAMP (weft_render_time_to_x (&self->view, self->mark.end), 0, body->size.width);
  if (x1 <= x0 && (x0 <= 0 || x0 >= body->size.width))
    return;
  x1 = MAX (x1, x0 + 1);
  graphene_rect_init (&rect, body->origin.x + x0, 0, x1 - x0, body->origin.y + body->size.height);
  gtk_snapshot_append_color (snapshot, &(GdkRGBA) { 0.98, 0.66, 0.15, 0.16 }, &rect);
  graphene_rect_init (&rect, body->origin.x + x0, 0, 1, body->origin.y + body->size.height);
  gtk_snapshot_append_color (snapshot, &(GdkRGBA) { 0.90, 0.50, 0.05, 0.9 }, &rect);
  graphene_rect_init (&rect, body->origin.x + x1 - 1, 0, 1, body->origin.y + body->size.height);
  gtk_snapshot_append_color (snapshot, &(GdkRGBA) { 0.90, 0.50, 0.05, 0.9 }, &rect);
  len = weft_render_format_time (self->mark.end - self->mark.begin, 3);
  pl = gtk_widget_create_pango_layout (GTK_WIDGET (self), len);
  pango_layout_get_pixel_size (pl, &tw, &th);
  graphene_rect_init (&rect, body->origin.x + (x0 + x1) / 2 - tw / 2.0 - 4, body->origin.y + 2, tw + 8, th + 2);
  cr = gtk_snapshot_append_cairo (snapshot, &rect);
  cairo_set_source_rgba (cr, 0.90, 0.50, 0.05, 0.95);
  cairo_rectangle (cr, rect.origin.x, rect.origin.y, rect.size.width, rect.size.height);
  cairo_fill (cr);
  cairo_set_source_rgb (cr, 0, 0, 0); /* black on orange: contrast ratio above 8 */
  cairo_move_to (cr, rect.origin.x + 4, rect.origin.y + 1);
  pango_cairo_show_layout (cr, pl);
  cairo_destroy (cr);
  g_object_unref (pl);
}

gboolean
weft_timeline_view_get_mark (WeftTimelineView *self, WeftTimeSpan *span)
{
  g_return_val_if_fail (WEFT_IS_TIMELINE_VIEW (self), FALSE);
  if (self->has_mark && span != NULL)
    *span = self->mark;
  return self->has_mark;
}

gboolean
weft_timeline_view_get_bookmark (WeftTimelineView *self, int slot, WeftTimeSpan *span)
{
  g_return_val_if_fail (WEFT_IS_TIMELINE_VIEW (self), FALSE);
  if (slot < 1 || slot > WEFT_N_BOOKMARKS || !self->bookmarks[slot - 1].set)
    return FALSE;
  if (span != NULL)
    *span = self->bookmarks[slot - 1].span;
  return TRUE;
}
