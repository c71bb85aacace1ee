/* weft-timeline-view-input.c: pointer input: hover, the wheel (scroll,
 * Ctrl: zoom, Shift: pan), the primary-button drag (a range on the ruler,
 * panning the body, clicking the headers, editing a GPU op) and tooltips. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "weft-timeline-view-private.h"

/* ---- input ------------------------------------------------------------------------------- */

static void
update_hover (WeftTimelineView *self)
{
  guint rank = WEFT_NONE;
  guint32 event = WEFT_NONE;
  graphene_rect_t r;

  if (self->layout != NULL && self->pointer_in && self->drag_mode == DRAG_NONE &&
      _weft_timeline_view_in_body (self, self->pointer_x, self->pointer_y))
    {
      WeftHit hit;
      _weft_timeline_view_body_rect (self, &r);
      _weft_timeline_view_sync_view_size (self);
      if (weft_render_hit_test (self->trace, &self->view, self->layout, self->times, self->pointer_x - r.origin.x,
                                self->pointer_y - r.origin.y, &hit))
        {
          rank = hit.rank_index;
          event = hit.event;
        }
    }
  if (rank != self->view.hover_rank || event != self->view.hover_event)
    {
      self->view.hover_rank = rank;
      self->view.hover_event = event;
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
}

static void
motion_cb (GtkEventControllerMotion *motion, double x, double y, WeftTimelineView *self)
{
  self->pointer_in = TRUE;
  self->pointer_x = x;
  self->pointer_y = y;
  update_hover (self);
}

static void
leave_cb (GtkEventControllerMotion *motion, WeftTimelineView *self)
{
  self->pointer_in = FALSE;
  update_hover (self);
}

static gboolean
scroll_cb (GtkEventControllerScroll *controller, double dx, double dy, WeftTimelineView *self)
{
  GdkModifierType mods = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (controller));
  gboolean wheel = gtk_event_controller_scroll_get_unit (controller) == GDK_SCROLL_UNIT_WHEEL;
  double unit = wheel ? WHEEL_LINE_PX : 1.0;

  if (self->layout == NULL)
    return FALSE;
  _weft_timeline_view_sync_view_size (self);
  if (mods & GDK_CONTROL_MASK)
    {
      double factor = pow (wheel ? 1.25 : 1.01, dy);
      _weft_timeline_view_zoom (self, factor, _weft_timeline_view_zoom_anchor (self));
    }
  else if (mods & GDK_SHIFT_MASK)
    _weft_timeline_view_pan_px (self, (dy + dx) * unit);
  else
    {
      if (dx != 0)
        _weft_timeline_view_pan_px (self, dx * unit);
      if (dy != 0)
        _weft_timeline_view_set_scroll (self, self->view.scroll_y + dy * unit);
    }
  return TRUE;
}

void
_weft_timeline_view_vadj_changed_cb (GtkAdjustment *adj, WeftTimelineView *self)
{
  double v = gtk_adjustment_get_value (adj);
  if (v != self->view.scroll_y)
    {
      self->view.scroll_y = v;
      _weft_timeline_view_view_changed (self);
    }
}

static void
header_click (WeftTimelineView *self, double x, double y)
{
  int row_idx = weft_layout_row_at_y (self->layout, y - WEFT_RENDER_RULER_HEIGHT + self->view.scroll_y);
  const WeftLayoutRow *row;
  guint8 flags;

  if (row_idx < 0)
    return;
  row = weft_layout_get_row (self->layout, row_idx);
  flags = weft_view_get_rank_flags (&self->view, row->rank_index);
  if (row->kind == WEFT_ROW_RANK_HEADER)
    flags ^= WEFT_RANK_VIEW_COLLAPSED;
  else if (row->kind == WEFT_ROW_CPU_SUMMARY)
    flags |= WEFT_RANK_VIEW_CPU_EXPANDED;
  else if (row->lane != WEFT_NONE &&
           weft_rank_lane (weft_trace_rank (self->trace, row->rank_index), row->lane)->kind != WEFT_LANE_GPU)
    flags &= ~WEFT_RANK_VIEW_CPU_EXPANDED;
  else
    return;
  weft_view_set_rank_flags (&self->view, row->rank_index, flags);
  _weft_timeline_view_rebuild_layout (self);
  g_signal_emit (self, _weft_timeline_view_signals[SIGNAL_VIEW_CHANGED], 0);
}

static void
drag_begin_cb (GtkGestureDrag *gesture, double x, double y, WeftTimelineView *self)
{
  gtk_widget_grab_focus (GTK_WIDGET (self));
  self->drag_x = x;
  self->drag_y = y;
  self->drag_moved = FALSE;
  self->drag_span = self->view.span;
  self->drag_scroll = self->view.scroll_y;
  if (self->layout == NULL)
    self->drag_mode = DRAG_NONE;
  else if (_weft_timeline_view_in_ruler (self, x, y))
    self->drag_mode = DRAG_RANGE;
  else if (_weft_timeline_view_in_body (self, x, y))
    {
      WeftHit hit;
      graphene_rect_t r;
      WeftSolver *solver = _weft_timeline_view_view_solver (self);

      self->drag_mode = DRAG_PAN;
      _weft_timeline_view_body_rect (self, &r);
      _weft_timeline_view_sync_view_size (self);
      if (solver != NULL &&
          weft_render_hit_test (self->trace, &self->view, self->layout, self->times, x - r.origin.x, y - r.origin.y,
                                &hit) &&
          weft_solver_is_node (solver, hit.rank_index, hit.event))
        {
          double ex1;
          self->drag_op.rank_index = hit.rank_index;
          self->drag_op.event = hit.event;
          self->drag_orig_start = weft_solver_start (solver, hit.rank_index, hit.event);
          self->drag_orig_end = weft_solver_end (solver, hit.rank_index, hit.event);
          self->drag_orig_lane = self->drag_live_lane = weft_solver_op_lane (solver, hit.rank_index, hit.event);
          ex1 = weft_render_time_to_x (&self->view, self->drag_orig_end);
          self->drag_mode = (fabs ((x - r.origin.x) - ex1) <= 4 &&
                             ex1 - weft_render_time_to_x (&self->view, self->drag_orig_start) >= 12)
                              ? DRAG_RESIZE
                              : DRAG_MOVE;
          _weft_timeline_view_drag_edit_reset (self);
          /* the solve plan, so that the first motion re-solves fast too */
          weft_solver_prepare (solver);
        }
    }
  else if (_weft_timeline_view_in_headers (self, x, y))
    self->drag_mode = DRAG_HEADER;
  else
    self->drag_mode = DRAG_NONE;
  if (self->drag_mode == DRAG_NONE)
    gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_DENIED);
  else
    gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
}

static void
drag_update_cb (GtkGestureDrag *gesture, double ox, double oy, WeftTimelineView *self)
{
  graphene_rect_t r;

  if (!self->drag_moved && hypot (ox, oy) < DRAG_THRESHOLD)
    return;
  self->drag_moved = TRUE;
  _weft_timeline_view_body_rect (self, &r);
  _weft_timeline_view_sync_view_size (self);
  if (self->drag_mode == DRAG_RANGE)
    {
      double x0 = CLAMP (self->drag_x - r.origin.x, 0, r.size.width);
      double x1 = CLAMP (self->drag_x + ox - r.origin.x, 0, r.size.width);
      gint64 t0 = weft_render_x_to_time (&self->view, MIN (x0, x1));
      gint64 t1 = weft_render_x_to_time (&self->view, MAX (x0, x1));
      self->view.range.begin = t0;
      self->view.range.end = t1;
      _weft_timeline_view_update_actions (self);
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
  else if (self->drag_mode == DRAG_MOVE || self->drag_mode == DRAG_RESIZE)
    {
      if (!self->drag_gesture_open)
        {
          weft_edit_session_begin_gesture (self->session);
          self->drag_gesture_open = TRUE;
          _weft_timeline_view_select_event (self, self->drag_op.rank_index, self->drag_op.event, FALSE);
        }
      if (self->motion_time == 0)
        self->motion_time = g_get_monotonic_time ();
      _weft_timeline_view_drag_edit_update (self, ox, oy, &r);
      self->t_edited = g_get_monotonic_time ();
    }
  else if (self->drag_mode == DRAG_PAN)
    {
      gint64 d = self->drag_span.end - self->drag_span.begin;
      gint64 shift = (gint64) (-ox * (double) d / r.size.width);
      _weft_timeline_view_set_span (self, self->drag_span.begin + shift, self->drag_span.end + shift);
      _weft_timeline_view_set_scroll (self, self->drag_scroll - oy);
    }
}

static void
drag_end_cb (GtkGestureDrag *gesture, double ox, double oy, WeftTimelineView *self)
{
  DragMode mode = self->drag_mode;
  graphene_rect_t r;

  self->drag_mode = DRAG_NONE;
  _weft_timeline_view_body_rect (self, &r);
  _weft_timeline_view_sync_view_size (self);
  if (mode == DRAG_RANGE)
    {
      if (!self->drag_moved)
        self->view.range.begin = self->view.range.end = 0;
      _weft_timeline_view_selection_changed (self);
    }
  else if ((mode == DRAG_MOVE || mode == DRAG_RESIZE) && self->drag_gesture_open)
    {
      self->drag_mode = mode;
      _weft_timeline_view_drag_edit_end (self);
      self->drag_mode = DRAG_NONE;
    }
  else if ((mode == DRAG_PAN || mode == DRAG_MOVE || mode == DRAG_RESIZE) && !self->drag_moved)
    {
      WeftHit hit;
      if (weft_render_hit_test (self->trace, &self->view, self->layout, self->times, self->drag_x - r.origin.x,
                                self->drag_y - r.origin.y, &hit))
        _weft_timeline_view_select_event (self, hit.rank_index, hit.event, FALSE);
      else if (self->view.sel_event != WEFT_NONE)
        {
          self->view.sel_rank = WEFT_NONE;
          self->view.sel_event = WEFT_NONE;
          _weft_timeline_view_selection_changed (self);
        }
    }
  else if (mode == DRAG_HEADER && !self->drag_moved)
    header_click (self, self->drag_x, self->drag_y);
  update_hover (self);
}

gboolean
_weft_timeline_view_query_tooltip (GtkWidget *widget, int x, int y, gboolean keyboard, GtkTooltip *tooltip)
{
  WeftTimelineView *self = WEFT_TIMELINE_VIEW (widget);
  graphene_rect_t r;
  WeftHit hit;
  WeftRank *rank;
  const WeftEvent *ev;
  WeftTimeSpan span;
  g_autofree char *dur = NULL;
  g_autofree char *markup = NULL;
  g_autofree char *name = NULL;

  if (self->layout != NULL && self->drag_mode == DRAG_NONE && _weft_timeline_view_in_headers (self, x, y))
    {
      /* a lane header: its whole label (a long one is ellipsized) */
      int row_idx;
      _weft_timeline_view_body_rect (self, &r);
      row_idx = weft_layout_row_at_y (self->layout, y - r.origin.y + self->view.scroll_y);
      if (row_idx < 0)
        return FALSE;
      name = weft_render_row_label (self->trace, weft_layout_get_row (self->layout, row_idx));
      gtk_tooltip_set_text (tooltip, name);
      return name != NULL;
    }
  if (self->layout == NULL || !_weft_timeline_view_in_body (self, x, y) || self->drag_mode != DRAG_NONE)
    return FALSE;
  _weft_timeline_view_body_rect (self, &r);
  _weft_timeline_view_sync_view_size (self);
  if (!weft_render_hit_test (self->trace, &self->view, self->layout, self->times, x - r.origin.x, y - r.origin.y, &hit))
    return _weft_timeline_view_memory_tooltip (self, &hit, x - r.origin.x, tooltip);
  rank = weft_trace_rank (self->trace, hit.rank_index);
  ev = weft_rank_event (rank, hit.event);
  span = weft_render_event_span (self->trace, self->times, hit.rank_index, hit.event);
  dur = weft_render_format_time (span.end - span.begin, 1);
  name
      = g_markup_escape_text (weft_rank_string (rank, ev->name), MIN (200, strlen (weft_rank_string (rank, ev->name))));
  markup = g_strdup_printf ("<b>%s</b>\n%s · rank %d · %s", name, dur, rank->rank,
                            ev->kclass != WEFT_KCLASS_NONE ? weft_kernel_class_to_string (ev->kclass)
                                                           : weft_rank_string (rank, ev->cat));
  gtk_tooltip_set_markup (tooltip, markup);
  return TRUE;
}

/* The pointer: motion (hover), wheel, drops from the palette and the
 * primary-button drag gesture. */
void
_weft_timeline_view_input_init (WeftTimelineView *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  GtkEventController *motion, *scroll;
  GtkGesture *drag;

  motion = gtk_event_controller_motion_new ();
  g_signal_connect (motion, "motion", G_CALLBACK (motion_cb), self);
  g_signal_connect (motion, "leave", G_CALLBACK (leave_cb), self);
  gtk_widget_add_controller (widget, motion);

  scroll = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
  g_signal_connect (scroll, "scroll", G_CALLBACK (scroll_cb), self);
  gtk_widget_add_controller (widget, scroll);

  {
    GtkDropTarget *drop = gtk_drop_target_new (G_TYPE_STRING, GDK_ACTION_COPY);
    g_signal_connect (drop, "drop", G_CALLBACK (_weft_timeline_view_drop_cb), self);
    gtk_widget_add_controller (widget, GTK_EVENT_CONTROLLER (drop));
  }
  drag = gtk_gesture_drag_new ();
  self->drag_gesture = drag;
  self->drag_target_row = -1;
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (drag), GDK_BUTTON_PRIMARY);
  g_signal_connect (drag, "drag-begin", G_CALLBACK (drag_begin_cb), self);
  g_signal_connect (drag, "drag-update", G_CALLBACK (drag_update_cb), self);
  g_signal_connect (drag, "drag-end", G_CALLBACK (drag_end_cb), self);
  gtk_widget_add_controller (widget, GTK_EVENT_CONTROLLER (drag));
}
