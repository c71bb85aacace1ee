/* weft-timeline-view.c: the timeline widget.
 *
 * One widget with three regions: the lane-header column on the left, the
 * time ruler on top and the body. All three are painted by weft-render. The
 * dense body is painted once into a cairo image surface and kept as a
 * texture until the view changes (range, size, scroll, flags, model), so
 * hover and selection only repaint the cheap highlight node on top:
 *
 *   snapshot = [ruler cairo node] [headers cairo node]
 *              [body texture (cached)] [highlights cairo node]
 *
 * The view is a GtkScrollable: put it in a GtkScrolledWindow for the
 * vertical scrollbar (the lanes scroll, the ruler stays). The horizontal
 * adjustment is not used: time is navigated with W/A/S/D and the wheel.
 *
 * Every user operation is a GAction installed on the class ("timeline.*")
 * with its key bindings; update_actions() is the one place that enables
 * and disables them. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "weft-timeline-view-private.h"

G_DEFINE_FINAL_TYPE_WITH_CODE (WeftTimelineView, weft_timeline_view, GTK_TYPE_WIDGET,
                               G_IMPLEMENT_INTERFACE (GTK_TYPE_SCROLLABLE, NULL))

enum
{
  PROP_0,
  PROP_HADJUSTMENT,
  PROP_VADJUSTMENT,
  PROP_HSCROLL_POLICY,
  PROP_VSCROLL_POLICY,
};

guint _weft_timeline_view_signals[N_SIGNALS];

static WeftTimeSpan content_span (WeftTimelineView *self);

/* ---- geometry -------------------------------------------------------------- */

double
_weft_timeline_view_header_width (WeftTimelineView *self)
{
  int w = gtk_widget_get_width (GTK_WIDGET (self));
  double base = MIN (WEFT_RENDER_HEADER_WIDTH, MAX (80.0, w * 0.3));

  /* wide enough for the longest label ("GPU 0 stream 17 · fsdp
   * reduce-scatter"), within 360 px and 40 % of the view; beyond, labels
   * are ellipsized and the header's tooltip gives the whole label */
  return MAX (base, MIN (self->label_width, MIN (360.0, w * 0.4)));
}

void
_weft_timeline_view_body_rect (WeftTimelineView *self, graphene_rect_t *rect)
{
  double hw = _weft_timeline_view_header_width (self);
  double w = gtk_widget_get_width (GTK_WIDGET (self)) - hw;
  double h = gtk_widget_get_height (GTK_WIDGET (self)) - WEFT_RENDER_RULER_HEIGHT;

  graphene_rect_init (rect, hw, WEFT_RENDER_RULER_HEIGHT, MAX (1.0, w), MAX (1.0, h));
}

gboolean
_weft_timeline_view_in_body (WeftTimelineView *self, double x, double y)
{
  graphene_rect_t r;
  _weft_timeline_view_body_rect (self, &r);
  return x >= r.origin.x && x < r.origin.x + r.size.width && y >= r.origin.y && y < r.origin.y + r.size.height;
}

gboolean
_weft_timeline_view_in_ruler (WeftTimelineView *self, double x, double y)
{
  graphene_rect_t r;
  _weft_timeline_view_body_rect (self, &r);
  return y < WEFT_RENDER_RULER_HEIGHT && x >= r.origin.x && x < r.origin.x + r.size.width;
}

gboolean
_weft_timeline_view_in_headers (WeftTimelineView *self, double x, double y)
{
  return y >= WEFT_RENDER_RULER_HEIGHT && x < _weft_timeline_view_header_width (self);
}

/* Keeps view.width/height in step with the allocation. */
void
_weft_timeline_view_sync_view_size (WeftTimelineView *self)
{
  graphene_rect_t r;
  _weft_timeline_view_body_rect (self, &r);
  self->view.width = r.size.width;
  self->view.height = r.size.height;
}

/* ---- state changes ------------------------------------------------------------ */

void
_weft_timeline_view_invalidate_body (WeftTimelineView *self)
{
  self->body_valid = FALSE;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
_weft_timeline_view_update_actions (WeftTimelineView *self)
{
  GtkWidget *w = GTK_WIDGET (self);
  gboolean has_trace = self->trace != NULL && self->layout != NULL;
  gboolean has_sel = has_trace && self->view.sel_rank != WEFT_NONE && self->view.sel_event != WEFT_NONE;
  gboolean has_range = has_trace && self->view.range.end > self->view.range.begin;
  gboolean has_matches = has_trace && self->matches != NULL && self->matches->len > 0;
  static const char *const nav[] = {
    "timeline.zoom-in", "timeline.zoom-out", "timeline.pan-left", "timeline.pan-right", "timeline.fit",
    "timeline.scroll-up", "timeline.scroll-down", "timeline.page-up", "timeline.page-down",
    "timeline.search", "timeline.toggle-critical-path", "timeline.toggle-overlap-band",
    "timeline.toggle-flows", "timeline.collapse-all", "timeline.expand-all", "timeline.toggle-cpu",
    "timeline.toggle-memory",
  };

  for (guint i = 0; i < G_N_ELEMENTS (nav); i++)
    gtk_widget_action_set_enabled (w, nav[i], has_trace);
  gtk_widget_action_set_enabled (w, "timeline.focus", has_sel || has_range);
  gtk_widget_action_set_enabled (w, "timeline.clear", has_sel || has_range);
  gtk_widget_action_set_enabled (w, "timeline.search-next", has_matches);
  gtk_widget_action_set_enabled (w, "timeline.search-previous", has_matches);
  gtk_widget_action_set_enabled (w, "timeline.select-next", has_sel);
  gtk_widget_action_set_enabled (w, "timeline.select-previous", has_sel);
  {
    gboolean editable = has_sel && self->session != NULL &&
                        weft_solver_is_node (weft_edit_session_get_solver (self->session), self->view.sel_rank,
                                             self->view.sel_event);
    gtk_widget_action_set_enabled (w, "timeline.delete", editable);
    gtk_widget_action_set_enabled (w, "timeline.duplicate", editable);
  }
}

void
_weft_timeline_view_update_adjustment (WeftTimelineView *self)
{
  double content = self->layout != NULL ? weft_layout_get_height (self->layout) : 0;
  double page = self->view.height;
  double value = self->view.scroll_y;

  if (value > content - page)
    value = MAX (0.0, content - page);
  self->view.scroll_y = value;
  gtk_adjustment_configure (self->vadj, value, 0, MAX (content, page), WEFT_RENDER_LANE_ROW * 3, page * 0.9, page);
}

void
_weft_timeline_view_view_changed (WeftTimelineView *self)
{
  _weft_timeline_view_invalidate_body (self);
  g_signal_emit (self, _weft_timeline_view_signals[SIGNAL_VIEW_CHANGED], 0);
}

void
_weft_timeline_view_set_span (WeftTimelineView *self, gint64 begin, gint64 end)
{
  if (end <= begin)
    end = begin + 100;
  if (self->view.span.begin == begin && self->view.span.end == end)
    return;
  self->view.span.begin = begin;
  self->view.span.end = end;
  _weft_timeline_view_view_changed (self);
}

void
_weft_timeline_view_set_scroll (WeftTimelineView *self, double y)
{
  double content = self->layout != NULL ? weft_layout_get_height (self->layout) : 0;
  double max = MAX (0.0, content - self->view.height);

  y = CLAMP (y, 0.0, max);
  if (y == self->view.scroll_y)
    return;
  self->view.scroll_y = y;
  gtk_adjustment_set_value (self->vadj, y);
  _weft_timeline_view_view_changed (self);
}

void
_weft_timeline_view_rebuild_layout (WeftTimelineView *self)
{
  g_clear_pointer (&self->layout, weft_layout_free);
  if (self->trace != NULL)
    self->layout = weft_layout_new (self->trace, &self->view);
  self->label_width = self->layout != NULL ? weft_layout_label_width (self->layout) : 0;
  _weft_timeline_view_update_adjustment (self);
  _weft_timeline_view_update_actions (self);
  _weft_timeline_view_invalidate_body (self);
  g_signal_emit (self, _weft_timeline_view_signals[SIGNAL_LAYOUT_CHANGED], 0);
}

void
_weft_timeline_view_selection_changed (WeftTimelineView *self)
{
  _weft_timeline_view_update_actions (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_signal_emit (self, _weft_timeline_view_signals[SIGNAL_SELECTION_CHANGED], 0);
}

/* ---- navigation ------------------------------------------------------------------ */

double
_weft_timeline_view_zoom_anchor (WeftTimelineView *self)
{
  graphene_rect_t r;

  _weft_timeline_view_body_rect (self, &r);
  if (self->pointer_in && _weft_timeline_view_in_body (self, self->pointer_x, self->pointer_y))
    return self->pointer_x - r.origin.x;
  if (self->pointer_in && _weft_timeline_view_in_ruler (self, self->pointer_x, self->pointer_y))
    return self->pointer_x - r.origin.x;
  return r.size.width / 2;
}

void
_weft_timeline_view_zoom (WeftTimelineView *self, double factor, double x)
{
  WeftTimeSpan before = self->view.span;

  _weft_timeline_view_sync_view_size (self);
  weft_view_zoom (&self->view, factor, x);
  if (before.begin != self->view.span.begin || before.end != self->view.span.end)
    _weft_timeline_view_view_changed (self);
}

void
_weft_timeline_view_pan_px (WeftTimelineView *self, double dx)
{
  WeftTimeSpan before = self->view.span;
  WeftTimeSpan all;
  gint64 w;

  _weft_timeline_view_sync_view_size (self);
  weft_view_pan (&self->view, dx);
  /* never past the trace: at least a tenth of the view stays on it */
  all = content_span (self);
  w = self->view.span.end - self->view.span.begin;
  if (all.end > all.begin && w > 0)
    {
      gint64 d = 0;
      if (self->view.span.begin > all.end - w / 10)
        d = all.end - w / 10 - self->view.span.begin;
      else if (self->view.span.end < all.begin + w / 10)
        d = all.begin + w / 10 - self->view.span.end;
      self->view.span.begin += d;
      self->view.span.end += d;
    }
  if (before.begin != self->view.span.begin || before.end != self->view.span.end)
    _weft_timeline_view_view_changed (self);
}

/* What the trace spans now: as loaded, and where the edits put its GPU ops
 * (the solver's schedule; cached per solver generation). */
static WeftTimeSpan
content_span (WeftTimelineView *self)
{
  WeftSolver *solver = _weft_timeline_view_view_solver (self);
  WeftTimeSpan span = self->trace_span;
  if (solver != NULL)
    {
      guint64 gen = weft_solver_generation (solver);
      if (!self->content_valid || self->content_gen != gen)
        {
          WeftTimeSpan s = weft_solver_span (solver);
          self->content = self->trace_span;
          if (s.end > s.begin)
            {
              self->content.begin = MIN (self->content.begin, s.begin);
              self->content.end = MAX (self->content.end, s.end);
            }
          self->content_gen = gen;
          self->content_valid = TRUE;
        }
      span = self->content;
    }
  return span;
}

void
_weft_timeline_view_fit_all (WeftTimelineView *self)
{
  WeftTimeSpan before = self->view.span;

  if (self->trace == NULL)
    return;
  _weft_timeline_view_sync_view_size (self);
  weft_view_fit_span (&self->view, content_span (self));
  if (before.begin != self->view.span.begin || before.end != self->view.span.end)
    _weft_timeline_view_view_changed (self);
}

WeftTimeSpan
_weft_timeline_view_selected_span (WeftTimelineView *self)
{
  return weft_render_event_span (self->trace, self->times, self->view.sel_rank, self->view.sel_event);
}

/* Makes the rank group (and CPU threads where needed) of an event visible
 * and scrolls its row into view. */
void
_weft_timeline_view_reveal_event (WeftTimelineView *self, guint rank_index, guint32 event)
{
  WeftRank *rank = weft_trace_rank (self->trace, rank_index);
  const WeftEvent *ev = weft_rank_event (rank, event);
  guint8 flags = weft_view_get_rank_flags (&self->view, rank_index);
  guint8 want = flags & ~(WEFT_RANK_VIEW_COLLAPSED | WEFT_RANK_VIEW_HIDDEN);
  int row;

  if (ev->lane != WEFT_NONE && weft_rank_lane (rank, ev->lane)->kind != WEFT_LANE_GPU)
    want |= WEFT_RANK_VIEW_CPU_EXPANDED;
  if (want != flags)
    {
      weft_view_set_rank_flags (&self->view, rank_index, want);
      _weft_timeline_view_rebuild_layout (self);
    }
  row = ev->lane != WEFT_NONE ? weft_layout_find_lane (self->layout, rank_index, ev->lane) : -1;
  if (row >= 0)
    {
      const WeftLayoutRow *r = weft_layout_get_row (self->layout, row);
      double y
          = r->y + MIN (weft_layout_event_depth (self->layout, rank_index, event), r->n_depth) * WEFT_RENDER_LANE_ROW;
      if (y < self->view.scroll_y || y + WEFT_RENDER_LANE_ROW > self->view.scroll_y + self->view.height)
        _weft_timeline_view_set_scroll (self, y - self->view.height / 3);
    }
}

/* Centres the visible range on t when it lies outside, keeping the zoom. */
static void
reveal_time (WeftTimelineView *self, WeftTimeSpan span)
{
  gint64 width = self->view.span.end - self->view.span.begin;

  if (span.begin >= self->view.span.begin && span.end <= self->view.span.end)
    return;
  if (span.end - span.begin > width)
    {
      gint64 pad = (span.end - span.begin) / 10 + 1;
      _weft_timeline_view_set_span (self, span.begin - pad, span.end + pad);
    }
  else
    {
      gint64 mid = span.begin + (span.end - span.begin) / 2;
      _weft_timeline_view_set_span (self, mid - width / 2, mid - width / 2 + width);
    }
}

void
_weft_timeline_view_select_event (WeftTimelineView *self, guint rank_index, guint32 event, gboolean reveal)
{
  if (self->view.sel_rank == rank_index && self->view.sel_event == event)
    return;
  self->view.sel_rank = rank_index;
  self->view.sel_event = event;
  if (reveal && event != WEFT_NONE)
    {
      _weft_timeline_view_reveal_event (self, rank_index, event);
      reveal_time (self, _weft_timeline_view_selected_span (self));
    }
  _weft_timeline_view_selection_changed (self);
}

/* ---- lifecycle ---------------------------------------------------------------------------- */

static void
weft_timeline_view_realize (GtkWidget *widget)
{
  WeftTimelineView *self = WEFT_TIMELINE_VIEW (widget);

  GTK_WIDGET_CLASS (weft_timeline_view_parent_class)->realize (widget);
  self->frame_clock = g_object_ref (gtk_widget_get_frame_clock (widget));
  self->after_paint_id
      = g_signal_connect (self->frame_clock, "after-paint", G_CALLBACK (_weft_timeline_view_after_paint_cb), self);
}

static void
weft_timeline_view_unrealize (GtkWidget *widget)
{
  WeftTimelineView *self = WEFT_TIMELINE_VIEW (widget);

  if (self->frame_clock != NULL)
    {
      g_clear_signal_handler (&self->after_paint_id, self->frame_clock);
      g_clear_object (&self->frame_clock);
    }
  GTK_WIDGET_CLASS (weft_timeline_view_parent_class)->unrealize (widget);
}

static void
weft_timeline_view_dispose (GObject *object)
{
  WeftTimelineView *self = WEFT_TIMELINE_VIEW (object);

  g_clear_handle_id (&self->first_frame_idle, g_source_remove);
  g_clear_object (&self->body_texture);
  g_clear_pointer (&self->body_surface, cairo_surface_destroy);
  g_clear_pointer (&self->layout, weft_layout_free);
  _weft_timeline_view_memory_clear (self);
  _weft_timeline_view_clear_search (self);
  weft_view_clear (&self->view);
  g_clear_pointer (&self->drag_error, g_free);
  self->trace = NULL;
  self->session = NULL;
  G_OBJECT_CLASS (weft_timeline_view_parent_class)->dispose (object);
}

static void
weft_timeline_view_finalize (GObject *object)
{
  WeftTimelineView *self = WEFT_TIMELINE_VIEW (object);

  if (self->vadj != NULL)
    g_signal_handlers_disconnect_by_data (self->vadj, self);
  g_clear_object (&self->vadj);
  g_clear_object (&self->hadj);
  g_clear_pointer (&self->latencies, g_array_unref);
  G_OBJECT_CLASS (weft_timeline_view_parent_class)->finalize (object);
}

static void
set_vadjustment (WeftTimelineView *self, GtkAdjustment *adj)
{
  if (adj == NULL)
    adj = gtk_adjustment_new (0, 0, 1, 1, 1, 1);
  if (adj == self->vadj)
    return;
  if (self->vadj != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->vadj, self);
      g_object_unref (self->vadj);
    }
  self->vadj = g_object_ref_sink (adj);
  g_signal_connect (self->vadj, "value-changed", G_CALLBACK (_weft_timeline_view_vadj_changed_cb), self);
  _weft_timeline_view_update_adjustment (self);
}

static void
weft_timeline_view_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  WeftTimelineView *self = WEFT_TIMELINE_VIEW (object);

  switch (prop_id)
    {
    case PROP_HADJUSTMENT:
      g_value_set_object (value, self->hadj);
      break;
    case PROP_VADJUSTMENT:
      g_value_set_object (value, self->vadj);
      break;
    case PROP_HSCROLL_POLICY:
      g_value_set_enum (value, self->hscroll_policy);
      break;
    case PROP_VSCROLL_POLICY:
      g_value_set_enum (value, self->vscroll_policy);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
weft_timeline_view_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  WeftTimelineView *self = WEFT_TIMELINE_VIEW (object);

  switch (prop_id)
    {
    case PROP_HADJUSTMENT:
      /* time is not scrolled with an adjustment; keep it inert */
      g_clear_object (&self->hadj);
      if (g_value_get_object (value) != NULL)
        {
          self->hadj = g_object_ref_sink (g_value_get_object (value));
          gtk_adjustment_configure (self->hadj, 0, 0, 1, 1, 1, 1);
        }
      break;
    case PROP_VADJUSTMENT:
      set_vadjustment (self, g_value_get_object (value));
      break;
    case PROP_HSCROLL_POLICY:
      self->hscroll_policy = g_value_get_enum (value);
      break;
    case PROP_VSCROLL_POLICY:
      self->vscroll_policy = g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
weft_timeline_view_class_init (WeftTimelineViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  guint *signals = _weft_timeline_view_signals;

  object_class->dispose = weft_timeline_view_dispose;
  object_class->finalize = weft_timeline_view_finalize;
  object_class->get_property = weft_timeline_view_get_property;
  object_class->set_property = weft_timeline_view_set_property;
  widget_class->snapshot = weft_timeline_view_snapshot;
  widget_class->measure = weft_timeline_view_measure;
  widget_class->size_allocate = weft_timeline_view_size_allocate;
  widget_class->query_tooltip = _weft_timeline_view_query_tooltip;
  widget_class->realize = weft_timeline_view_realize;
  widget_class->unrealize = weft_timeline_view_unrealize;

  signals[SIGNAL_EDIT_ERROR] = g_signal_new ("edit-error", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                             NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
  signals[SIGNAL_PALETTE_DROP] = g_signal_new ("palette-drop", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                               NULL, NULL, G_TYPE_NONE, 4, G_TYPE_STRING, G_TYPE_UINT, G_TYPE_UINT,
                                               G_TYPE_INT64);
  signals[SIGNAL_VIEW_CHANGED] = g_signal_new ("view-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                               NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_SELECTION_CHANGED] = g_signal_new ("selection-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                                    0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_LAYOUT_CHANGED] = g_signal_new ("layout-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                                 NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_SEARCH_REQUESTED] = g_signal_new ("search-requested", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                                   0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_FIRST_FRAME] = g_signal_new ("first-frame", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                              NULL, NULL, G_TYPE_NONE, 0);

  g_object_class_override_property (object_class, PROP_HADJUSTMENT, "hadjustment");
  g_object_class_override_property (object_class, PROP_VADJUSTMENT, "vadjustment");
  g_object_class_override_property (object_class, PROP_HSCROLL_POLICY, "hscroll-policy");
  g_object_class_override_property (object_class, PROP_VSCROLL_POLICY, "vscroll-policy");

  _weft_timeline_view_class_actions_init (widget_class);
  _weft_timeline_view_memory_class_init (widget_class);

  gtk_widget_class_set_css_name (widget_class, "weft-timeline");
  /* a drawn, focusable picture of the trace (as GtkDrawingArea's role) */
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
weft_timeline_view_init (WeftTimelineView *self)
{
  GtkWidget *widget = GTK_WIDGET (self);

  self->debug_timing = g_getenv ("WEFT_DEBUG_TIMING") != NULL;
  memset (&self->view, 0, sizeof self->view);
  self->view.sel_rank = self->view.hover_rank = WEFT_NONE;
  self->view.sel_event = self->view.hover_event = WEFT_NONE;
  self->match_pos = -1;
  self->latencies = g_array_new (FALSE, FALSE, sizeof (gint64));

  gtk_widget_set_focusable (widget, TRUE);
  gtk_widget_set_focus_on_click (widget, TRUE);
  gtk_widget_set_has_tooltip (widget, TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_PROPERTY_LABEL, "Timeline",
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  "Each rank's CPU threads and GPU streams over time. W and S zoom, A and D pan, "
                                  "a click selects an event, Ctrl+F searches, Ctrl+? lists every key",
                                  -1);
  gtk_widget_set_overflow (widget, GTK_OVERFLOW_HIDDEN);
  gtk_widget_set_hexpand (widget, TRUE);
  gtk_widget_set_vexpand (widget, TRUE);

  set_vadjustment (self, NULL);

  _weft_timeline_view_input_init (self);

  _weft_timeline_view_update_actions (self);
}

/* ---- public API ----------------------------------------------------------------------------- */

GtkWidget *
weft_timeline_view_new (void)
{
  return g_object_new (WEFT_TYPE_TIMELINE_VIEW, NULL);
}

void
weft_timeline_view_set_trace (WeftTimelineView *self, WeftTrace *trace)
{
  gboolean dark, color_mb;

  g_return_if_fail (WEFT_IS_TIMELINE_VIEW (self));

  dark = self->view.dark;
  color_mb = self->view.color_by_microbatch;
  _weft_timeline_view_clear_search (self);
  g_clear_pointer (&self->layout, weft_layout_free);
  _weft_timeline_view_memory_clear (self);
  weft_view_clear (&self->view);
  self->times = NULL;
  memset (&self->overlay, 0, sizeof self->overlay);
  self->trace = trace;
  if (trace != NULL)
    {
      weft_view_init (&self->view, trace);
      self->view.dark = dark;
      self->view.color_by_microbatch = color_mb;
      _weft_timeline_view_sync_view_size (self);
      weft_view_fit_all (&self->view, trace);
      self->trace_span = weft_trace_time_span (trace);
      self->content_valid = FALSE;
      self->layout = weft_layout_new (trace, &self->view);
      self->label_width = weft_layout_label_width (self->layout);
      self->first_frame_pending = TRUE;
    }
  else
    {
      memset (&self->view, 0, sizeof self->view);
      self->view.dark = dark;
      self->view.color_by_microbatch = color_mb;
      self->view.sel_rank = self->view.hover_rank = WEFT_NONE;
      self->view.sel_event = self->view.hover_event = WEFT_NONE;
      self->trace_span.begin = self->trace_span.end = 0;
      self->content_valid = FALSE;
    }
  self->view.scroll_y = 0;
  _weft_timeline_view_update_adjustment (self);
  _weft_timeline_view_update_actions (self);
  _weft_timeline_view_invalidate_body (self);
  g_signal_emit (self, _weft_timeline_view_signals[SIGNAL_LAYOUT_CHANGED], 0);
  g_signal_emit (self, _weft_timeline_view_signals[SIGNAL_VIEW_CHANGED], 0);
  g_signal_emit (self, _weft_timeline_view_signals[SIGNAL_SELECTION_CHANGED], 0);
}

WeftTrace *
weft_timeline_view_get_trace (WeftTimelineView *self)
{
  g_return_val_if_fail (WEFT_IS_TIMELINE_VIEW (self), NULL);
  return self->trace;
}

void
weft_timeline_view_trace_changed (WeftTimelineView *self)
{
  g_return_if_fail (WEFT_IS_TIMELINE_VIEW (self));
  if (self->trace == NULL)
    return;
  _weft_timeline_view_clear_search (self);
  _weft_timeline_view_rebuild_layout (self);
}

void
weft_timeline_view_set_times (WeftTimelineView *self, const WeftRenderTimes *times, const WeftRenderOverlay *overlay)
{
  g_return_if_fail (WEFT_IS_TIMELINE_VIEW (self));
  self->times = times;
  if (overlay != NULL)
    self->overlay = *overlay;
  else
    memset (&self->overlay, 0, sizeof self->overlay);
  _weft_timeline_view_invalidate_body (self);
}

void
weft_timeline_view_set_session (WeftTimelineView *self, WeftEditSession *session)
{
  g_return_if_fail (WEFT_IS_TIMELINE_VIEW (self));
  self->session = session;
  self->content_valid = FALSE;
  _weft_timeline_view_update_actions (self);
}

void
weft_timeline_view_model_changed (WeftTimelineView *self)
{
  g_return_if_fail (WEFT_IS_TIMELINE_VIEW (self));
  if (self->trace == NULL)
    return;
  /* While an op is dragged only times change: repaint. Otherwise lanes may
   * have changed (stream moves, inserts, deletes, undo): new layout. */
  if (self->drag_gesture_open)
    _weft_timeline_view_invalidate_body (self);
  else
    {
      _weft_timeline_view_clear_search (self);
      if (self->view.sel_event != WEFT_NONE &&
          (weft_rank_event (weft_trace_rank (self->trace, self->view.sel_rank), self->view.sel_event)->flags &
           WEFT_EVENT_DELETED))
        {
          self->view.sel_rank = WEFT_NONE;
          self->view.sel_event = WEFT_NONE;
          _weft_timeline_view_selection_changed (self);
        }
      if (self->view.hover_event != WEFT_NONE)
        self->view.hover_rank = WEFT_NONE, self->view.hover_event = WEFT_NONE;
      _weft_timeline_view_rebuild_layout (self);
    }
}

gboolean
weft_timeline_view_is_dragging (WeftTimelineView *self)
{
  return self->drag_gesture_open;
}

void
weft_timeline_view_set_dark (WeftTimelineView *self, gboolean dark)
{
  g_return_if_fail (WEFT_IS_TIMELINE_VIEW (self));
  if (self->view.dark == dark)
    return;
  self->view.dark = dark;
  _weft_timeline_view_invalidate_body (self);
}

void
weft_timeline_view_set_color_by_microbatch (WeftTimelineView *self, gboolean on)
{
  g_return_if_fail (WEFT_IS_TIMELINE_VIEW (self));
  if (self->view.color_by_microbatch == on)
    return;
  self->view.color_by_microbatch = on;
  _weft_timeline_view_invalidate_body (self);
}

gboolean
weft_timeline_view_has_pp_actions (WeftTimelineView *self)
{
  g_return_val_if_fail (WEFT_IS_TIMELINE_VIEW (self), FALSE);
  return self->layout != NULL && weft_layout_has_pp_actions (self->layout);
}

void
weft_timeline_view_set_origin (WeftTimelineView *self, gint64 origin)
{
  g_return_if_fail (WEFT_IS_TIMELINE_VIEW (self));
  if (self->trace == NULL || self->view.origin == origin)
    return;
  self->view.origin = origin;
  _weft_timeline_view_invalidate_body (self);
}

WeftTimeSpan
weft_timeline_view_get_visible (WeftTimelineView *self)
{
  return self->view.span;
}

void
weft_timeline_view_set_visible (WeftTimelineView *self, WeftTimeSpan span)
{
  g_return_if_fail (WEFT_IS_TIMELINE_VIEW (self));
  _weft_timeline_view_set_span (self, span.begin, span.end);
}

WeftTimeSpan
weft_timeline_view_get_trace_span (WeftTimelineView *self)
{
  return content_span (self);
}

double
weft_timeline_view_get_scroll_y (WeftTimelineView *self)
{
  return self->view.scroll_y;
}

gboolean
weft_timeline_view_get_selection (WeftTimelineView *self, guint *rank_index, guint32 *event)
{
  g_return_val_if_fail (WEFT_IS_TIMELINE_VIEW (self), FALSE);
  if (self->trace == NULL || self->view.sel_event == WEFT_NONE)
    return FALSE;
  if (rank_index != NULL)
    *rank_index = self->view.sel_rank;
  if (event != NULL)
    *event = self->view.sel_event;
  return TRUE;
}

double
weft_timeline_view_get_header_width (WeftTimelineView *self)
{
  g_return_val_if_fail (WEFT_IS_TIMELINE_VIEW (self), 0);
  return _weft_timeline_view_header_width (self);
}

double
weft_timeline_view_get_label_width (WeftTimelineView *self)
{
  g_return_val_if_fail (WEFT_IS_TIMELINE_VIEW (self), 0);
  return self->label_width;
}

void
weft_timeline_view_select (WeftTimelineView *self, guint rank_index, guint32 event)
{
  g_return_if_fail (WEFT_IS_TIMELINE_VIEW (self));
  g_return_if_fail (self->trace != NULL);
  g_return_if_fail (rank_index < self->trace->ranks->len);
  _weft_timeline_view_select_event (self, rank_index, event, TRUE);
}

gboolean
weft_timeline_view_get_range (WeftTimelineView *self, WeftTimeSpan *range)
{
  g_return_val_if_fail (WEFT_IS_TIMELINE_VIEW (self), FALSE);
  if (self->trace == NULL || self->view.range.end <= self->view.range.begin)
    return FALSE;
  if (range != NULL)
    *range = self->view.range;
  return TRUE;
}

guint
weft_timeline_view_get_n_groups (WeftTimelineView *self)
{
  guint n = 0;

  if (self->layout == NULL)
    return 0;
  for (guint i = 0; i < weft_layout_get_n_rows (self->layout); i++)
    if (weft_layout_get_row (self->layout, i)->kind == WEFT_ROW_RANK_HEADER)
      n++;
  return n;
}

void
weft_timeline_view_get_group (WeftTimelineView *self, guint group, int *rank_number, guint *n_lanes,
                              guint *n_gpu_lanes, gboolean *collapsed)
{
  guint g = 0;
  gboolean found = FALSE;
  guint lanes = 0, gpu = 0, rank_index = 0;

  g_return_if_fail (self->layout != NULL);
  for (guint i = 0; i < weft_layout_get_n_rows (self->layout); i++)
    {
      const WeftLayoutRow *row = weft_layout_get_row (self->layout, i);
      if (row->kind == WEFT_ROW_RANK_HEADER)
        {
          if (found)
            break;
          if (g++ == group)
            {
              found = TRUE;
              rank_index = row->rank_index;
            }
          continue;
        }
      if (!found)
        continue;
      lanes++;
      if (row->kind == WEFT_ROW_LANE && row->lane != WEFT_NONE &&
          weft_rank_lane (weft_trace_rank (self->trace, row->rank_index), row->lane)->kind == WEFT_LANE_GPU)
        gpu++;
    }
  if (rank_number != NULL)
    *rank_number = found ? weft_trace_rank (self->trace, rank_index)->rank : -1;
  if (n_lanes != NULL)
    *n_lanes = lanes;
  if (n_gpu_lanes != NULL)
    *n_gpu_lanes = gpu;
  if (collapsed != NULL)
    *collapsed = found && (weft_view_get_rank_flags (&self->view, rank_index) & WEFT_RANK_VIEW_COLLAPSED) != 0;
}

void
weft_timeline_view_get_body_rect (WeftTimelineView *self, graphene_rect_t *rect)
{
  g_return_if_fail (WEFT_IS_TIMELINE_VIEW (self));
  _weft_timeline_view_body_rect (self, rect);
}

const GArray *
weft_timeline_view_get_drag_latencies (WeftTimelineView *self)
{
  g_return_val_if_fail (WEFT_IS_TIMELINE_VIEW (self), NULL);
  return self->latencies;
}

guint
weft_timeline_view_get_frames (WeftTimelineView *self)
{
  return self->frames;
}

const WeftView *
weft_timeline_view_get_view (WeftTimelineView *self)
{
  return &self->view;
}

const WeftLayout *
weft_timeline_view_get_layout (WeftTimelineView *self)
{
  return self->layout;
}
