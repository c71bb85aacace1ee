/* weft-timeline-view-edit.c: editing in the timeline: dragging a GPU op in
 * time or to another stream, or its right edge (its duration), with the
 * solver re-timing what depends on it at every motion and a ghost where it
 * started; Delete / Ctrl+D; palette items dropped on a GPU lane. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "weft-timeline-view-private.h"

/* ---- editing ------------------------------------------------------------------------------ */

WeftSolver *
_weft_timeline_view_view_solver (WeftTimelineView *self)
{
  return self->session != NULL ? weft_edit_session_get_solver (self->session) : NULL;
}

static void
edit_error (WeftTimelineView *self, const char *what, const GError *error)
{
  g_signal_emit (self, _weft_timeline_view_signals[SIGNAL_EDIT_ERROR], 0, what,
                 error != NULL ? error->message : "unknown error");
}

/* The GPU lane under a body y (screen), or -1 when it is no GPU lane row. */
static int
gpu_row_at (WeftTimelineView *self, double body_y)
{
  int row_idx = weft_layout_row_at_y (self->layout, body_y + self->view.scroll_y);
  const WeftLayoutRow *row;

  if (row_idx < 0)
    return -1;
  row = weft_layout_get_row (self->layout, row_idx);
  if (row->kind != WEFT_ROW_LANE || row->lane == WEFT_NONE ||
      weft_rank_lane (weft_trace_rank (self->trace, row->rank_index), row->lane)->kind != WEFT_LANE_GPU ||
      weft_rank_lane (weft_trace_rank (self->trace, row->rank_index), row->lane)->role == WEFT_LANE_ROLE_SYNC)
    return -1;
  return row_idx;
}

void
_weft_timeline_view_drag_edit_reset (WeftTimelineView *self)
{
  g_clear_pointer (&self->drag_error, g_free);
  self->drag_target_row = -1;
  self->drag_gesture_open = FALSE;
  self->drag_time_moved = FALSE;
}

/* Escape while dragging an op: undo what the gesture did. */
gboolean
_weft_timeline_view_cancel_edit_drag (WeftTimelineView *self)
{
  g_autoptr (GError) error = NULL;

  if (!self->drag_gesture_open)
    return FALSE;
  if (!weft_edit_session_cancel_gesture (self->session, &error))
    edit_error (self, "Could not cancel the drag", error);
  self->drag_mode = DRAG_NONE;
  _weft_timeline_view_drag_edit_reset (self);
  gtk_event_controller_reset (GTK_EVENT_CONTROLLER (self->drag_gesture));
  _weft_timeline_view_rebuild_layout (self);
  return TRUE;
}

void
_weft_timeline_view_drag_edit_update (WeftTimelineView *self, double ox, double oy, const graphene_rect_t *r)
{
  gint64 d = self->view.span.end - self->view.span.begin;
  gint64 dt = (gint64) (ox * (double) d / r->size.width);
  GdkModifierType mods = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (self->drag_gesture));
  gboolean whole = (mods & GDK_SHIFT_MASK) == 0;
  g_autoptr (GError) error = NULL;
  gboolean ok;

  if (self->drag_mode == DRAG_RESIZE)
    {
      gint64 dur = MAX ((gint64) 0, self->drag_orig_end - self->drag_orig_start + dt);
      ok = weft_edit_session_set_duration (self->session, self->drag_op, dur, &error);
    }
  else
    {
      const WeftLayoutRow *target;
      guint32 want_lane = self->drag_orig_lane;
      gboolean want_time = fabs (ox) >= 2 * DRAG_THRESHOLD;

      self->drag_target_row = gpu_row_at (self, self->drag_y + oy - r->origin.y);
      target = self->drag_target_row >= 0 ? weft_layout_get_row (self->layout, self->drag_target_row) : NULL;
      if (target != NULL && target->rank_index == self->drag_op.rank_index)
        want_lane = target->lane;
      ok = TRUE;
      /* Straight up or down: a stream change only. Take back any move in
       * time this gesture made, so the op keeps no minimum start and goes
       * as early as its dependencies allow on the new stream. Another
       * stream of the rank: the move is made now (the chips and the
       * timeline show its effect while dragging), and taken back when the
       * pointer leaves that stream. */
      if (want_lane != self->drag_live_lane || (!want_time && self->drag_time_moved))
        {
          if (self->drag_time_moved || self->drag_live_lane != self->drag_orig_lane)
            {
              ok = weft_edit_session_cancel_gesture (self->session, &error);
              weft_edit_session_begin_gesture (self->session);
              self->drag_time_moved = FALSE;
              self->drag_live_lane = self->drag_orig_lane;
            }
          if (ok && want_lane != self->drag_orig_lane)
            {
              ok = weft_edit_session_move_to_lane (self->session, self->drag_op, want_lane,
                                                   weft_solver_start (_weft_timeline_view_view_solver (self),
                                                                      self->drag_op.rank_index, self->drag_op.event),
                                                   whole, &error);
              if (ok)
                self->drag_live_lane = want_lane;
            }
        }
      if (ok && want_time)
        {
          gint64 t0 = g_get_monotonic_time ();
          ok = weft_edit_session_move_time (self->session, self->drag_op, self->drag_orig_start + dt, whole, &error);
          if (self->debug_timing)
            g_printerr ("move_time %.1f ms\n", (g_get_monotonic_time () - t0) / 1000.0);
          self->drag_time_moved = TRUE;
          self->drag_time_to = self->drag_orig_start + dt;
        }
    }
  g_clear_pointer (&self->drag_error, g_free);
  if (!ok)
    self->drag_error = g_strdup (error != NULL ? error->message : "refused");
  _weft_timeline_view_invalidate_body (self);
}

void
_weft_timeline_view_drag_edit_end (WeftTimelineView *self)
{
  WeftSolver *solver = _weft_timeline_view_view_solver (self);
  GdkModifierType mods = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (self->drag_gesture));
  gboolean whole = (mods & GDK_SHIFT_MASK) == 0;
  g_autoptr (GError) error = NULL;
  WeftEventRef op = self->drag_op;

  if (self->drag_mode == DRAG_MOVE && self->drag_live_lane != self->drag_orig_lane && self->drag_time_moved)
    {
      /* moved to a stream and in time: redo it as time then stream, so
       * that the op takes its place in the new stream's order at its new
       * time (what the live stream move, made first, could not know) */
      gboolean ok = weft_edit_session_cancel_gesture (self->session, &error);
      weft_edit_session_begin_gesture (self->session);
      if (ok)
        ok = weft_edit_session_move_time (self->session, op, self->drag_time_to, whole, &error);
      if (!ok)
        edit_error (self, "The move was refused", error);
      g_clear_error (&error);
    }
  if (self->drag_mode == DRAG_MOVE && self->drag_target_row >= 0)
    {
      const WeftLayoutRow *row = weft_layout_get_row (self->layout, self->drag_target_row);
      guint32 cur_lane = weft_solver_op_lane (solver, op.rank_index, op.event);
      gint64 at = weft_solver_start (solver, op.rank_index, op.event);

      if (row->rank_index == op.rank_index && row->lane != cur_lane)
        {
          if (!weft_edit_session_move_to_lane (self->session, op, row->lane, at, whole, &error))
            edit_error (self, "The op cannot move to that stream", error);
        }
      else if (row->rank_index != op.rank_index)
        {
          WeftEventRef moved = { WEFT_NONE, WEFT_NONE };
          if (!weft_edit_session_move_to_rank (self->session, op, row->rank_index, row->lane, at, &moved, &error))
            edit_error (self, "The op cannot move to that rank", error);
          else if (moved.rank_index != WEFT_NONE)
            {
              self->view.sel_rank = moved.rank_index;
              self->view.sel_event = moved.event;
            }
        }
    }
  else if (self->drag_error != NULL)
    {
      GError e = { WEFT_ERROR, WEFT_ERROR_CYCLE, self->drag_error };
      edit_error (self, "The move was refused", &e);
    }
  weft_edit_session_end_gesture (self->session);
  _weft_timeline_view_drag_edit_reset (self);
  _weft_timeline_view_rebuild_layout (self);
  _weft_timeline_view_selection_changed (self);
}

void
_weft_timeline_view_paint_drag_ghost (WeftTimelineView *self, cairo_t *cr)
{
  double x0 = weft_render_time_to_x (&self->view, self->drag_orig_start);
  double x1 = weft_render_time_to_x (&self->view, self->drag_orig_end);
  WeftSolver *solver = _weft_timeline_view_view_solver (self);
  int row_idx;

  /* where it was */
  row_idx = weft_layout_find_lane (self->layout, self->drag_op.rank_index, self->drag_orig_lane);
  cairo_set_line_width (cr, 1.0);
  if (row_idx >= 0)
    {
      const WeftLayoutRow *row = weft_layout_get_row (self->layout, row_idx);
      double dash[] = { 3, 3 };
      cairo_save (cr);
      cairo_set_dash (cr, dash, 2, 0);
      cairo_set_source_rgba (cr, 0.5, 0.5, 0.5, 0.9);
      cairo_rectangle (cr, x0 + 0.5, row->y - self->view.scroll_y + 1.5, MAX (1.0, x1 - x0 - 1),
                       WEFT_RENDER_LANE_ROW - 3);
      cairo_stroke (cr);
      cairo_restore (cr);
    }
  /* where it goes: another stream */
  if (self->drag_target_row >= 0)
    {
      const WeftLayoutRow *row = weft_layout_get_row (self->layout, self->drag_target_row);
      gint64 s = weft_solver_start (solver, self->drag_op.rank_index, self->drag_op.event);
      gint64 e = weft_solver_end (solver, self->drag_op.rank_index, self->drag_op.event);
      double gx0 = weft_render_time_to_x (&self->view, s), gx1 = weft_render_time_to_x (&self->view, e);
      if (row->lane != weft_solver_op_lane (solver, self->drag_op.rank_index, self->drag_op.event) ||
          row->rank_index != self->drag_op.rank_index)
        {
          cairo_set_source_rgba (cr, 0.26, 0.52, 0.96, 0.35);
          cairo_rectangle (cr, gx0, row->y - self->view.scroll_y + 1, MAX (2.0, gx1 - gx0), WEFT_RENDER_LANE_ROW - 2);
          cairo_fill_preserve (cr);
          cairo_set_source_rgba (cr, 0.26, 0.52, 0.96, 1.0);
          cairo_set_line_width (cr, 2.0);
          cairo_stroke (cr);
        }
    }
  if (self->drag_error != NULL)
    {
      PangoLayout *layout = pango_cairo_create_layout (cr);
      PangoFontDescription *font = pango_font_description_from_string ("Sans Bold 9");
      int tw, th;
      double px = self->pointer_x - _weft_timeline_view_header_width (self) + 12,
             py = self->pointer_y - WEFT_RENDER_RULER_HEIGHT + 12;
      pango_layout_set_font_description (layout, font);
      pango_layout_set_width (layout, 420 * PANGO_SCALE);
      pango_layout_set_wrap (layout, PANGO_WRAP_WORD_CHAR);
      pango_layout_set_text (layout, self->drag_error, -1);
      pango_layout_get_pixel_size (layout, &tw, &th);
      cairo_set_source_rgba (cr, 0.75, 0.1, 0.1, 0.92);
      cairo_rectangle (cr, px - 4, py - 3, tw + 8, th + 6);
      cairo_fill (cr);
      cairo_set_source_rgb (cr, 1, 1, 1);
      cairo_move_to (cr, px, py);
      pango_cairo_show_layout (cr, layout);
      pango_font_description_free (font);
      g_object_unref (layout);
    }
}

void
_weft_timeline_view_action_delete (GtkWidget *widget, const char *name, GVariant *param)
{
  WeftTimelineView *self = WEFT_TIMELINE_VIEW (widget);
  WeftEventRef op = { self->view.sel_rank, self->view.sel_event };
  g_autoptr (GError) error = NULL;

  if (self->session == NULL || op.event == WEFT_NONE)
    return;
  if (strcmp (name, "timeline.delete") == 0)
    {
      if (!weft_edit_session_delete (self->session, &op, 1, &error))
        edit_error (self, "Could not delete the op", error);
      else
        {
          self->view.sel_rank = WEFT_NONE;
          self->view.sel_event = WEFT_NONE;
        }
    }
  else
    {
      g_autoptr (GArray) created = g_array_new (FALSE, FALSE, sizeof (WeftEventRef));
      if (!weft_edit_session_duplicate (self->session, &op, 1, created, &error))
        edit_error (self, "Could not duplicate the op", error);
      else if (created->len > 0)
        {
          WeftEventRef *n = &g_array_index (created, WeftEventRef, 0);
          self->view.sel_rank = n->rank_index;
          self->view.sel_event = n->event;
        }
    }
  _weft_timeline_view_rebuild_layout (self);
  _weft_timeline_view_selection_changed (self);
}

/* A palette item (a string payload) dropped on the body: on a GPU lane it
 * becomes an insert at the time under the pointer. */
gboolean
_weft_timeline_view_drop_cb (GtkDropTarget *target, const GValue *value, double x, double y, WeftTimelineView *self)
{
  const char *payload;
  graphene_rect_t r;
  int row_idx;
  const WeftLayoutRow *row;

  if (!G_VALUE_HOLDS_STRING (value) || self->layout == NULL || self->session == NULL
      || !_weft_timeline_view_in_body (self, x, y))
    return FALSE;
  payload = g_value_get_string (value);
  if (payload == NULL || !g_str_has_prefix (payload, "weft-palette:"))
    return FALSE;
  _weft_timeline_view_body_rect (self, &r);
  _weft_timeline_view_sync_view_size (self);
  row_idx = gpu_row_at (self, y - r.origin.y);
  if (row_idx < 0)
    {
      GError e = { WEFT_ERROR, WEFT_ERROR_INVALID, (char *) "Drop it on a GPU stream lane." };
      edit_error (self, "Nothing was inserted", &e);
      return FALSE;
    }
  row = weft_layout_get_row (self->layout, row_idx);
  g_signal_emit (self, _weft_timeline_view_signals[SIGNAL_PALETTE_DROP], 0, payload, row->rank_index, row->lane,
                 weft_render_x_to_time (&self->view, x - r.origin.x));
  return TRUE;
}
