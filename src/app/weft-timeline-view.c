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

#include "weft/weft-edit.h"
#include "weft/weft-render.h"
#include "weft-timeline-view.h"

#define ZOOM_STEP       0.8    /* W: visible range x0.8 */
#define PAN_FRACTION    0.15   /* A/D: 15% of the visible range */
#define WHEEL_LINE_PX   54.0   /* one wheel notch scrolls three lane rows */
#define DRAG_THRESHOLD  4.0

typedef enum
{
  DRAG_NONE = 0,
  DRAG_RANGE,   /* on the ruler: select a time range */
  DRAG_PAN,     /* on the body: grab and pan */
  DRAG_HEADER,  /* on the lane headers (click only) */
  DRAG_MOVE,    /* on a GPU op: move it in time / to another stream (edit) */
  DRAG_RESIZE,  /* on a GPU op's right edge: change its duration (edit) */
} DragMode;

typedef struct
{
  gint64  ts;
  guint   rank_index;
  guint32 event;
} SearchMatch;

struct _WeftTimelineView
{
  GtkWidget parent_instance;

  WeftTrace  *trace;        /* borrowed */
  WeftView    view;
  WeftLayout *layout;
  WeftTimeSpan trace_span;
  WeftTimeSpan content;            /* trace_span and the solver's span (content_span) */
  guint64      content_gen;
  gboolean     content_valid;

  const WeftRenderTimes   *times;   /* borrowed, may be NULL */
  WeftRenderOverlay        overlay; /* borrowed arrays */

  GtkAdjustment *vadj;
  GtkAdjustment *hadj;
  guint          hscroll_policy;
  guint          vscroll_policy;

  /* body cache */
  GdkTexture *body_texture;      /* made from body_surface when the renderer wants one */
  cairo_surface_t *body_surface; /* the painted body (image surface) */
  gboolean    body_valid;
  int         body_w, body_h, body_scale;

  /* pointer */
  gboolean pointer_in;
  double   pointer_x, pointer_y;   /* widget coordinates */

  /* drag */
  DragMode drag_mode;
  double   drag_x, drag_y;         /* start, widget coordinates */
  gboolean drag_moved;
  WeftTimeSpan drag_span;          /* view span at drag start */
  double   drag_scroll;
  /* editing drag */
  WeftOpRef drag_op;
  gint64    drag_orig_start;
  gint64    drag_orig_end;
  gint64    drag_orig_offset;       /* view clock offset at the press, for the ghost */
  int       drag_target_row;        /* layout row under the pointer, -1 none */
  char     *drag_error;             /* the solver refused the move (cycle) */
  gboolean  drag_gesture_open;
  gboolean  drag_time_moved;        /* the gesture moved the op in time */

  WeftEditSession *session;         /* borrowed, may be NULL: read-only */
  /* drag latency: pointer motion (drag-update) to the end of the frame
   * that shows it, for the benchmark */
  gint64           motion_time;     /* 0: no motion waiting for a frame */
  /* with WEFT_DEBUG_TIMING: the phases of that frame (monotonic us) */
  gboolean         debug_timing;
  gint64           t_edited, t_snapshot, t_body, t_snapshot_end;
  GArray          *latencies;       /* gint64 us */
  gulong           after_paint_id;
  GdkFrameClock   *frame_clock;
  GtkGesture      *drag_gesture;

  /* search */
  char    *search_pattern;
  gboolean search_regex;
  GArray  *matches;                /* SearchMatch sorted by (ts, rank, event) */
  int      match_pos;

  guint    frames;
  guint    first_frame_idle;
  gboolean first_frame_pending;
};

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

enum
{
  SIGNAL_EDIT_ERROR,         /* an edit was refused: (what, message) */
  SIGNAL_PALETTE_DROP,       /* a palette item dropped on a GPU lane: (payload, rank_index, lane, time) */
  SIGNAL_VIEW_CHANGED,       /* visible range or vertical scroll */
  SIGNAL_SELECTION_CHANGED,  /* selected event or range */
  SIGNAL_LAYOUT_CHANGED,     /* groups collapsed / expanded */
  SIGNAL_SEARCH_REQUESTED,   /* Ctrl+F */
  SIGNAL_FIRST_FRAME,        /* first frame drawn after set_trace */
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* ---- geometry -------------------------------------------------------------- */

static double
header_width (WeftTimelineView *self)
{
  int w = gtk_widget_get_width (GTK_WIDGET (self));
  return MIN (WEFT_RENDER_HEADER_WIDTH, MAX (80.0, w * 0.3));
}

static void
body_rect (WeftTimelineView *self, graphene_rect_t *rect)
{
  double hw = header_width (self);
  double w = gtk_widget_get_width (GTK_WIDGET (self)) - hw;
  double h = gtk_widget_get_height (GTK_WIDGET (self)) - WEFT_RENDER_RULER_HEIGHT;

  graphene_rect_init (rect, hw, WEFT_RENDER_RULER_HEIGHT, MAX (1.0, w), MAX (1.0, h));
}

static gboolean
in_body (WeftTimelineView *self, double x, double y)
{
  graphene_rect_t r;
  body_rect (self, &r);
  return x >= r.origin.x && x < r.origin.x + r.size.width && y >= r.origin.y && y < r.origin.y + r.size.height;
}

static gboolean
in_ruler (WeftTimelineView *self, double x, double y)
{
  graphene_rect_t r;
  body_rect (self, &r);
  return y < WEFT_RENDER_RULER_HEIGHT && x >= r.origin.x && x < r.origin.x + r.size.width;
}

static gboolean
in_headers (WeftTimelineView *self, double x, double y)
{
  return y >= WEFT_RENDER_RULER_HEIGHT && x < header_width (self);
}

/* Keeps view.width/height in step with the allocation. */
static void
sync_view_size (WeftTimelineView *self)
{
  graphene_rect_t r;
  body_rect (self, &r);
  self->view.width = r.size.width;
  self->view.height = r.size.height;
}

/* ---- state changes ------------------------------------------------------------ */

static void
invalidate_body (WeftTimelineView *self)
{
  self->body_valid = FALSE;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static gboolean cancel_edit_drag (WeftTimelineView *self);

static void
update_actions (WeftTimelineView *self)
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

static void
update_adjustment (WeftTimelineView *self)
{
  double content = self->layout != NULL ? weft_layout_get_height (self->layout) : 0;
  double page = self->view.height;
  double value = self->view.scroll_y;

  if (value > content - page)
    value = MAX (0.0, content - page);
  self->view.scroll_y = value;
  gtk_adjustment_configure (self->vadj, value, 0, MAX (content, page), WEFT_RENDER_LANE_ROW * 3, page * 0.9, page);
}

static void
view_changed (WeftTimelineView *self)
{
  invalidate_body (self);
  g_signal_emit (self, signals[SIGNAL_VIEW_CHANGED], 0);
}

static void
set_span (WeftTimelineView *self, gint64 begin, gint64 end)
{
  if (end <= begin)
    end = begin + 100;
  if (self->view.span.begin == begin && self->view.span.end == end)
    return;
  self->view.span.begin = begin;
  self->view.span.end = end;
  view_changed (self);
}

static void
set_scroll (WeftTimelineView *self, double y)
{
  double content = self->layout != NULL ? weft_layout_get_height (self->layout) : 0;
  double max = MAX (0.0, content - self->view.height);

  y = CLAMP (y, 0.0, max);
  if (y == self->view.scroll_y)
    return;
  self->view.scroll_y = y;
  gtk_adjustment_set_value (self->vadj, y);
  view_changed (self);
}

static void
rebuild_layout (WeftTimelineView *self)
{
  g_clear_pointer (&self->layout, weft_layout_free);
  if (self->trace != NULL)
    self->layout = weft_layout_new (self->trace, &self->view);
  update_adjustment (self);
  update_actions (self);
  invalidate_body (self);
  g_signal_emit (self, signals[SIGNAL_LAYOUT_CHANGED], 0);
}

static void
selection_changed (WeftTimelineView *self)
{
  update_actions (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_signal_emit (self, signals[SIGNAL_SELECTION_CHANGED], 0);
}

/* ---- navigation ------------------------------------------------------------------ */

static double
zoom_anchor (WeftTimelineView *self)
{
  graphene_rect_t r;

  body_rect (self, &r);
  if (self->pointer_in && in_body (self, self->pointer_x, self->pointer_y))
    return self->pointer_x - r.origin.x;
  if (self->pointer_in && in_ruler (self, self->pointer_x, self->pointer_y))
    return self->pointer_x - r.origin.x;
  return r.size.width / 2;
}

static void
zoom (WeftTimelineView *self, double factor, double x)
{
  WeftTimeSpan before = self->view.span;

  sync_view_size (self);
  weft_view_zoom (&self->view, factor, x);
  if (before.begin != self->view.span.begin || before.end != self->view.span.end)
    view_changed (self);
}

static WeftSolver *view_solver (WeftTimelineView *self);
static WeftTimeSpan content_span (WeftTimelineView *self);

static void
pan_px (WeftTimelineView *self, double dx)
{
  WeftTimeSpan before = self->view.span;
  WeftTimeSpan all;
  gint64 w;

  sync_view_size (self);
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
    view_changed (self);
}

/* What the trace spans now: as loaded, and where the edits put its GPU ops
 * (the solver's schedule; cached per solver generation). */
static WeftTimeSpan
content_span (WeftTimelineView *self)
{
  WeftSolver *solver = view_solver (self);
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

static void
fit_all (WeftTimelineView *self)
{
  WeftTimeSpan before = self->view.span;

  if (self->trace == NULL)
    return;
  sync_view_size (self);
  weft_view_fit_span (&self->view, content_span (self));
  if (before.begin != self->view.span.begin || before.end != self->view.span.end)
    view_changed (self);
}

static WeftTimeSpan
selected_span (WeftTimelineView *self)
{
  return weft_render_event_span (self->trace, self->times, self->view.sel_rank, self->view.sel_event);
}

/* Makes the rank group (and CPU threads where needed) of an event visible
 * and scrolls its row into view. */
static void
reveal_event (WeftTimelineView *self, guint rank_index, guint32 event)
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
      rebuild_layout (self);
    }
  row = ev->lane != WEFT_NONE ? weft_layout_find_lane (self->layout, rank_index, ev->lane) : -1;
  if (row >= 0)
    {
      const WeftLayoutRow *r = weft_layout_get_row (self->layout, row);
      double y = r->y + MIN (weft_layout_event_depth (self->layout, rank_index, event), r->n_depth) * WEFT_RENDER_LANE_ROW;
      if (y < self->view.scroll_y || y + WEFT_RENDER_LANE_ROW > self->view.scroll_y + self->view.height)
        set_scroll (self, y - self->view.height / 3);
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
      set_span (self, span.begin - pad, span.end + pad);
    }
  else
    {
      gint64 mid = span.begin + (span.end - span.begin) / 2;
      set_span (self, mid - width / 2, mid - width / 2 + width);
    }
}

static void
select_event (WeftTimelineView *self, guint rank_index, guint32 event, gboolean reveal)
{
  if (self->view.sel_rank == rank_index && self->view.sel_event == event)
    return;
  self->view.sel_rank = rank_index;
  self->view.sel_event = event;
  if (reveal && event != WEFT_NONE)
    {
      reveal_event (self, rank_index, event);
      reveal_time (self, selected_span (self));
    }
  selection_changed (self);
}

/* ---- search -------------------------------------------------------------------------- */

static int
match_cmp (gconstpointer a, gconstpointer b)
{
  const SearchMatch *x = a, *y = b;

  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  if (x->rank_index != y->rank_index)
    return x->rank_index < y->rank_index ? -1 : 1;
  return x->event < y->event ? -1 : (x->event > y->event ? 1 : 0);
}

static void
clear_search (WeftTimelineView *self)
{
  g_clear_pointer (&self->search_pattern, g_free);
  g_clear_pointer (&self->matches, g_array_unref);
  self->match_pos = -1;
}

static gboolean
build_matches (WeftTimelineView *self, const char *pattern, gboolean regex, GError **error)
{
  g_autoptr (GRegex) re = NULL;
  g_autofree char *escaped = NULL;

  if (self->matches != NULL && g_strcmp0 (self->search_pattern, pattern) == 0 && self->search_regex == regex)
    return TRUE;
  clear_search (self);
  if (!regex)
    escaped = g_regex_escape_string (pattern, -1);
  re = g_regex_new (regex ? pattern : escaped, G_REGEX_CASELESS | G_REGEX_OPTIMIZE, 0, error);
  if (re == NULL)
    return FALSE;
  self->search_pattern = g_strdup (pattern);
  self->search_regex = regex;
  self->matches = g_array_new (FALSE, FALSE, sizeof (SearchMatch));
  self->match_pos = -1;

  for (guint r = 0; r < self->trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (self->trace, r);
      guint n_strings = weft_strings_count (rank->strings);
      g_autofree guint8 *hit = g_new0 (guint8, n_strings);
      gint64 off = weft_trace_rank_offset (self->trace, rank);

      /* Match each distinct name once, then walk the events. */
      for (guint s = 1; s < n_strings; s++)
        hit[s] = g_regex_match (re, weft_strings_get (rank->strings, s), 0, NULL);
      for (guint32 e = 0; e < rank->events->len; e++)
        {
          const WeftEvent *ev = weft_rank_event (rank, e);
          SearchMatch m;
          if (ev->lane == WEFT_NONE || (ev->flags & WEFT_EVENT_DELETED) || (ev->ph != WEFT_PH_X && ev->ph != WEFT_PH_I))
            continue;
          if (ev->name >= n_strings || !hit[ev->name])
            continue;
          m.ts = self->times != NULL ? weft_render_event_span (self->trace, self->times, r, e).begin : ev->ts + off;
          m.rank_index = r;
          m.event = e;
          g_array_append_val (self->matches, m);
        }
    }
  g_array_sort (self->matches, match_cmp);
  return TRUE;
}

/* ---- actions ---------------------------------------------------------------------------- */

static void
action_zoom (GtkWidget *widget, const char *name, GVariant *param)
{
  WeftTimelineView *self = WEFT_TIMELINE_VIEW (widget);
  zoom (self, strcmp (name, "timeline.zoom-in") == 0 ? ZOOM_STEP : 1.0 / ZOOM_STEP, zoom_anchor (self));
}

static void
action_pan (GtkWidget *widget, const char *name, GVariant *param)
{
  WeftTimelineView *self = WEFT_TIMELINE_VIEW (widget);
  sync_view_size (self);
  pan_px (self, (strcmp (name, "timeline.pan-left") == 0 ? -1 : 1) * self->view.width * PAN_FRACTION);
}

static void
action_fit (GtkWidget *widget, const char *name, GVariant *param)
{
  fit_all (WEFT_TIMELINE_VIEW (widget));
}

static void
action_focus (GtkWidget *widget, const char *name, GVariant *param)
{
  WeftTimelineView *self = WEFT_TIMELINE_VIEW (widget);
  WeftTimeSpan span;
  gint64 pad;

  if (self->view.range.end > self->view.range.begin)
    span = self->view.range;
  else if (self->view.sel_event != WEFT_NONE)
    {
      span = selected_span (self);
      reveal_event (self, self->view.sel_rank, self->view.sel_event);
    }
  else
    return;
  pad = MAX ((span.end - span.begin) / 8, (gint64) 500);
  set_span (self, span.begin - pad, span.end + pad);
}

static void
action_clear (GtkWidget *widget, const char *name, GVariant *param)
{
  WeftTimelineView *self = WEFT_TIMELINE_VIEW (widget);

  if (cancel_edit_drag (self))
    return;
  self->view.sel_rank = WEFT_NONE;
  self->view.sel_event = WEFT_NONE;
  self->view.range.begin = self->view.range.end = 0;
  selection_changed (self);
}

static void
action_scroll (GtkWidget *widget, const char *name, GVariant *param)
{
  WeftTimelineView *self = WEFT_TIMELINE_VIEW (widget);
  double step = WEFT_RENDER_LANE_ROW * 3;

  if (g_str_has_prefix (name, "timeline.page"))
    step = self->view.height * 0.9;
  if (g_str_has_suffix (name, "-up"))
    step = -step;
  set_scroll (self, self->view.scroll_y + step);
}

static void
action_search (GtkWidget *widget, const char *name, GVariant *param)
{
  g_signal_emit (widget, signals[SIGNAL_SEARCH_REQUESTED], 0);
}

static void
action_search_step (GtkWidget *widget, const char *name, GVariant *param)
{
  WeftTimelineView *self = WEFT_TIMELINE_VIEW (widget);

  if (self->search_pattern == NULL)
    return;
  weft_timeline_view_search (self, self->search_pattern, self->search_regex,
                             strcmp (name, "timeline.search-next") == 0 ? 1 : -1, NULL);
}

static void
action_toggle (GtkWidget *widget, const char *name, GVariant *param)
{
  WeftTimelineView *self = WEFT_TIMELINE_VIEW (widget);

  if (strcmp (name, "timeline.toggle-critical-path") == 0)
    self->view.show_critical_path = !self->view.show_critical_path;
  else if (strcmp (name, "timeline.toggle-overlap-band") == 0)
    self->view.show_overlap_band = !self->view.show_overlap_band;
  else if (strcmp (name, "timeline.toggle-flows") == 0)
    {
      self->view.show_flows = !self->view.show_flows;
      self->view.show_instance_links = self->view.show_flows;
    }
  invalidate_body (self);
}

static void
action_groups (GtkWidget *widget, const char *name, GVariant *param)
{
  WeftTimelineView *self = WEFT_TIMELINE_VIEW (widget);
  gboolean collapse = strcmp (name, "timeline.collapse-all") == 0;
  gboolean cpu = strcmp (name, "timeline.toggle-cpu") == 0;
  gboolean any_cpu_expanded = FALSE;

  if (self->trace == NULL)
    return;
  for (guint r = 0; r < self->trace->ranks->len; r++)
    any_cpu_expanded |= (weft_view_get_rank_flags (&self->view, r) & WEFT_RANK_VIEW_CPU_EXPANDED) != 0;
  for (guint r = 0; r < self->trace->ranks->len; r++)
    {
      guint8 f = weft_view_get_rank_flags (&self->view, r);
      if (cpu)
        f = any_cpu_expanded ? (f & ~WEFT_RANK_VIEW_CPU_EXPANDED) : (f | WEFT_RANK_VIEW_CPU_EXPANDED);
      else if (collapse)
        f |= WEFT_RANK_VIEW_COLLAPSED;
      else
        f &= ~WEFT_RANK_VIEW_COLLAPSED;
      weft_view_set_rank_flags (&self->view, r, f);
    }
  rebuild_layout (self);
  g_signal_emit (self, signals[SIGNAL_VIEW_CHANGED], 0);
}

/* Left / Right: the previous / next event on the selected event's lane. */
static void
action_select_step (GtkWidget *widget, const char *name, GVariant *param)
{
  WeftTimelineView *self = WEFT_TIMELINE_VIEW (widget);
  WeftRank *rank;
  WeftLane *lane;
  const WeftEvent *ev;
  int dir = strcmp (name, "timeline.select-next") == 0 ? 1 : -1;
  guint pos = G_MAXUINT;

  if (self->view.sel_event == WEFT_NONE)
    return;
  rank = weft_trace_rank (self->trace, self->view.sel_rank);
  ev = weft_rank_event (rank, self->view.sel_event);
  if (ev->lane == WEFT_NONE)
    return;
  lane = weft_rank_lane (rank, ev->lane);
  for (guint i = weft_lane_lower_bound (rank, lane, ev->ts); i < lane->events->len; i++)
    if (g_array_index (lane->events, guint32, i) == self->view.sel_event)
      {
        pos = i;
        break;
      }
  if (pos == G_MAXUINT)
    return;
  for (int i = (int) pos + dir; i >= 0 && i < (int) lane->events->len; i += dir)
    {
      guint32 e = g_array_index (lane->events, guint32, i);
      const WeftEvent *cand = weft_rank_event (rank, e);
      if ((cand->flags & WEFT_EVENT_DELETED) ||
          weft_layout_event_depth (self->layout, self->view.sel_rank, e) !=
            weft_layout_event_depth (self->layout, self->view.sel_rank, self->view.sel_event))
        continue;
      select_event (self, self->view.sel_rank, e, TRUE);
      return;
    }
}

/* ---- editing ------------------------------------------------------------------------------ */

static WeftSolver *
view_solver (WeftTimelineView *self)
{
  return self->session != NULL ? weft_edit_session_get_solver (self->session) : NULL;
}

static void
edit_error (WeftTimelineView *self, const char *what, const GError *error)
{
  g_signal_emit (self, signals[SIGNAL_EDIT_ERROR], 0, what, error != NULL ? error->message : "unknown error");
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

static void
drag_edit_reset (WeftTimelineView *self)
{
  g_clear_pointer (&self->drag_error, g_free);
  self->drag_target_row = -1;
  self->drag_gesture_open = FALSE;
  self->drag_time_moved = FALSE;
}

/* Escape while dragging an op: undo what the gesture did. */
static gboolean
cancel_edit_drag (WeftTimelineView *self)
{
  g_autoptr (GError) error = NULL;

  if (!self->drag_gesture_open)
    return FALSE;
  if (!weft_edit_session_cancel_gesture (self->session, &error))
    edit_error (self, "Could not cancel the drag", error);
  self->drag_mode = DRAG_NONE;
  drag_edit_reset (self);
  gtk_event_controller_reset (GTK_EVENT_CONTROLLER (self->drag_gesture));
  rebuild_layout (self);
  return TRUE;
}

static void
drag_edit_update (WeftTimelineView *self, double ox, double oy, const graphene_rect_t *r)
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
      ok = weft_edit_set_duration (self->session, self->drag_op, dur, &error);
    }
  else
    {
      self->drag_target_row = gpu_row_at (self, self->drag_y + oy - r->origin.y);
      if (fabs (ox) < 2 * DRAG_THRESHOLD)
        {
          /* Straight up or down: a stream change only. Take back any move
           * in time this gesture made, so the op keeps no minimum start
           * and goes as early as its dependencies allow on the new stream. */
          ok = TRUE;
          if (self->drag_time_moved)
            {
              ok = weft_edit_session_cancel_gesture (self->session, &error);
              weft_edit_session_begin_gesture (self->session);
              self->drag_time_moved = FALSE;
            }
        }
      else
        {
          gint64 t0 = g_get_monotonic_time ();
          ok = weft_edit_move_time (self->session, self->drag_op, self->drag_orig_start + dt, whole, &error);
          if (self->debug_timing)
            g_printerr ("move_time %.1f ms\n", (g_get_monotonic_time () - t0) / 1000.0);
          self->drag_time_moved = TRUE;
        }
    }
  g_clear_pointer (&self->drag_error, g_free);
  if (!ok)
    self->drag_error = g_strdup (error != NULL ? error->message : "refused");
  invalidate_body (self);
}

static void
drag_edit_end (WeftTimelineView *self)
{
  WeftSolver *solver = view_solver (self);
  GdkModifierType mods = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (self->drag_gesture));
  gboolean whole = (mods & GDK_SHIFT_MASK) == 0;
  g_autoptr (GError) error = NULL;
  WeftOpRef op = self->drag_op;

  if (self->drag_mode == DRAG_MOVE && self->drag_target_row >= 0)
    {
      const WeftLayoutRow *row = weft_layout_get_row (self->layout, self->drag_target_row);
      guint32 cur_lane = weft_solver_op_lane (solver, op.rank_index, op.event);
      gint64 at = weft_solver_start (solver, op.rank_index, op.event);

      if (row->rank_index == op.rank_index && row->lane != cur_lane)
        {
          if (!weft_edit_move_to_lane (self->session, op, row->lane, at, whole, &error))
            edit_error (self, "The op cannot move to that stream", error);
        }
      else if (row->rank_index != op.rank_index)
        {
          WeftOpRef moved = { WEFT_NONE, WEFT_NONE };
          if (!weft_edit_move_to_rank (self->session, op, row->rank_index, row->lane, at, &moved, &error))
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
  drag_edit_reset (self);
  rebuild_layout (self);
  selection_changed (self);
}

static void
paint_drag_ghost (WeftTimelineView *self, cairo_t *cr)
{
  double x0 = weft_render_time_to_x (&self->view, self->drag_orig_start);
  double x1 = weft_render_time_to_x (&self->view, self->drag_orig_end);
  WeftSolver *solver = view_solver (self);
  int row_idx;

  /* where it was */
  row_idx = weft_layout_find_lane (self->layout, self->drag_op.rank_index,
                                   weft_solver_op_lane (solver, self->drag_op.rank_index, self->drag_op.event));
  cairo_set_line_width (cr, 1.0);
  if (row_idx >= 0)
    {
      const WeftLayoutRow *row = weft_layout_get_row (self->layout, row_idx);
      double dash[] = { 3, 3 };
      cairo_save (cr);
      cairo_set_dash (cr, dash, 2, 0);
      cairo_set_source_rgba (cr, 0.5, 0.5, 0.5, 0.9);
      cairo_rectangle (cr, x0 + 0.5, row->y - self->view.scroll_y + 1.5, MAX (1.0, x1 - x0 - 1), WEFT_RENDER_LANE_ROW - 3);
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
      double px = self->pointer_x - header_width (self) + 12, py = self->pointer_y - WEFT_RENDER_RULER_HEIGHT + 12;
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

static void
action_delete (GtkWidget *widget, const char *name, GVariant *param)
{
  WeftTimelineView *self = WEFT_TIMELINE_VIEW (widget);
  WeftOpRef op = { self->view.sel_rank, self->view.sel_event };
  g_autoptr (GError) error = NULL;

  if (self->session == NULL || op.event == WEFT_NONE)
    return;
  if (strcmp (name, "timeline.delete") == 0)
    {
      if (!weft_edit_delete (self->session, &op, 1, &error))
        edit_error (self, "Could not delete the op", error);
      else
        {
          self->view.sel_rank = WEFT_NONE;
          self->view.sel_event = WEFT_NONE;
        }
    }
  else
    {
      g_autoptr (GArray) created = g_array_new (FALSE, FALSE, sizeof (WeftOpRef));
      if (!weft_edit_duplicate (self->session, &op, 1, created, &error))
        edit_error (self, "Could not duplicate the op", error);
      else if (created->len > 0)
        {
          WeftOpRef *n = &g_array_index (created, WeftOpRef, 0);
          self->view.sel_rank = n->rank_index;
          self->view.sel_event = n->event;
        }
    }
  rebuild_layout (self);
  selection_changed (self);
}

/* A palette item (a string payload) dropped on the body: on a GPU lane it
 * becomes an insert at the time under the pointer. */
static gboolean
drop_cb (GtkDropTarget *target, const GValue *value, double x, double y, WeftTimelineView *self)
{
  const char *payload;
  graphene_rect_t r;
  int row_idx;
  const WeftLayoutRow *row;

  if (!G_VALUE_HOLDS_STRING (value) || self->layout == NULL || self->session == NULL || !in_body (self, x, y))
    return FALSE;
  payload = g_value_get_string (value);
  if (payload == NULL || !g_str_has_prefix (payload, "weft-palette:"))
    return FALSE;
  body_rect (self, &r);
  sync_view_size (self);
  row_idx = gpu_row_at (self, y - r.origin.y);
  if (row_idx < 0)
    {
      GError e = { WEFT_ERROR, WEFT_ERROR_INVALID, (char *) "Drop it on a GPU stream lane." };
      edit_error (self, "Nothing was inserted", &e);
      return FALSE;
    }
  row = weft_layout_get_row (self->layout, row_idx);
  g_signal_emit (self, signals[SIGNAL_PALETTE_DROP], 0, payload, row->rank_index, row->lane,
                 weft_render_x_to_time (&self->view, x - r.origin.x));
  return TRUE;
}

/* ---- input ------------------------------------------------------------------------------- */

static void
update_hover (WeftTimelineView *self)
{
  guint rank = WEFT_NONE;
  guint32 event = WEFT_NONE;
  graphene_rect_t r;

  if (self->layout != NULL && self->pointer_in && self->drag_mode == DRAG_NONE &&
      in_body (self, self->pointer_x, self->pointer_y))
    {
      WeftHit hit;
      body_rect (self, &r);
      sync_view_size (self);
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
  sync_view_size (self);
  if (mods & GDK_CONTROL_MASK)
    {
      double factor = pow (wheel ? 1.25 : 1.01, dy);
      zoom (self, factor, zoom_anchor (self));
    }
  else if (mods & GDK_SHIFT_MASK)
    pan_px (self, (dy + dx) * unit);
  else
    {
      if (dx != 0)
        pan_px (self, dx * unit);
      if (dy != 0)
        set_scroll (self, self->view.scroll_y + dy * unit);
    }
  return TRUE;
}

static void
vadj_changed_cb (GtkAdjustment *adj, WeftTimelineView *self)
{
  double v = gtk_adjustment_get_value (adj);
  if (v != self->view.scroll_y)
    {
      self->view.scroll_y = v;
      view_changed (self);
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
  rebuild_layout (self);
  g_signal_emit (self, signals[SIGNAL_VIEW_CHANGED], 0);
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
  else if (in_ruler (self, x, y))
    self->drag_mode = DRAG_RANGE;
  else if (in_body (self, x, y))
    {
      WeftHit hit;
      graphene_rect_t r;
      WeftSolver *solver = view_solver (self);

      self->drag_mode = DRAG_PAN;
      body_rect (self, &r);
      sync_view_size (self);
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
          ex1 = weft_render_time_to_x (&self->view, self->drag_orig_end);
          self->drag_mode = (fabs ((x - r.origin.x) - ex1) <= 4 &&
                             ex1 - weft_render_time_to_x (&self->view, self->drag_orig_start) >= 12)
                              ? DRAG_RESIZE
                              : DRAG_MOVE;
          drag_edit_reset (self);
          /* the solve plan, so that the first motion re-solves fast too */
          weft_solver_prepare (solver);
        }
    }
  else if (in_headers (self, x, y))
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
  body_rect (self, &r);
  sync_view_size (self);
  if (self->drag_mode == DRAG_RANGE)
    {
      double x0 = CLAMP (self->drag_x - r.origin.x, 0, r.size.width);
      double x1 = CLAMP (self->drag_x + ox - r.origin.x, 0, r.size.width);
      gint64 t0 = weft_render_x_to_time (&self->view, MIN (x0, x1));
      gint64 t1 = weft_render_x_to_time (&self->view, MAX (x0, x1));
      self->view.range.begin = t0;
      self->view.range.end = t1;
      update_actions (self);
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
  else if (self->drag_mode == DRAG_MOVE || self->drag_mode == DRAG_RESIZE)
    {
      if (!self->drag_gesture_open)
        {
          weft_edit_session_begin_gesture (self->session);
          self->drag_gesture_open = TRUE;
          select_event (self, self->drag_op.rank_index, self->drag_op.event, FALSE);
        }
      if (self->motion_time == 0)
        self->motion_time = g_get_monotonic_time ();
      drag_edit_update (self, ox, oy, &r);
      self->t_edited = g_get_monotonic_time ();
    }
  else if (self->drag_mode == DRAG_PAN)
    {
      gint64 d = self->drag_span.end - self->drag_span.begin;
      gint64 shift = (gint64) (-ox * (double) d / r.size.width);
      set_span (self, self->drag_span.begin + shift, self->drag_span.end + shift);
      set_scroll (self, self->drag_scroll - oy);
    }
}

static void
drag_end_cb (GtkGestureDrag *gesture, double ox, double oy, WeftTimelineView *self)
{
  DragMode mode = self->drag_mode;
  graphene_rect_t r;

  self->drag_mode = DRAG_NONE;
  body_rect (self, &r);
  sync_view_size (self);
  if (mode == DRAG_RANGE)
    {
      if (!self->drag_moved)
        self->view.range.begin = self->view.range.end = 0;
      selection_changed (self);
    }
  else if ((mode == DRAG_MOVE || mode == DRAG_RESIZE) && self->drag_gesture_open)
    {
      self->drag_mode = mode;
      drag_edit_end (self);
      self->drag_mode = DRAG_NONE;
    }
  else if ((mode == DRAG_PAN || mode == DRAG_MOVE || mode == DRAG_RESIZE) && !self->drag_moved)
    {
      WeftHit hit;
      if (weft_render_hit_test (self->trace, &self->view, self->layout, self->times, self->drag_x - r.origin.x,
                                self->drag_y - r.origin.y, &hit))
        select_event (self, hit.rank_index, hit.event, FALSE);
      else if (self->view.sel_event != WEFT_NONE)
        {
          self->view.sel_rank = WEFT_NONE;
          self->view.sel_event = WEFT_NONE;
          selection_changed (self);
        }
    }
  else if (mode == DRAG_HEADER && !self->drag_moved)
    header_click (self, self->drag_x, self->drag_y);
  update_hover (self);
}

static gboolean
query_tooltip (GtkWidget *widget, int x, int y, gboolean keyboard, GtkTooltip *tooltip)
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

  if (self->layout == NULL || !in_body (self, x, y) || self->drag_mode != DRAG_NONE)
    return FALSE;
  body_rect (self, &r);
  sync_view_size (self);
  if (!weft_render_hit_test (self->trace, &self->view, self->layout, self->times, x - r.origin.x, y - r.origin.y, &hit))
    return FALSE;
  rank = weft_trace_rank (self->trace, hit.rank_index);
  ev = weft_rank_event (rank, hit.event);
  span = weft_render_event_span (self->trace, self->times, hit.rank_index, hit.event);
  dur = weft_render_format_time (span.end - span.begin, 1);
  name = g_markup_escape_text (weft_rank_string (rank, ev->name), MIN (200, strlen (weft_rank_string (rank, ev->name))));
  markup = g_strdup_printf ("<b>%s</b>\n%s · rank %d · %s", name, dur, rank->rank,
                            ev->kclass != WEFT_KCLASS_NONE ? weft_kernel_class_to_string (ev->kclass)
                                                           : weft_rank_string (rank, ev->cat));
  gtk_tooltip_set_markup (tooltip, markup);
  return TRUE;
}

/* ---- drawing ------------------------------------------------------------------------------ */

/* The one call that paints the dense body (everything but the highlights). */
static void
paint_body (WeftTimelineView *self, cairo_t *cr)
{
  weft_render_paint_body (cr, self->trace, &self->view, self->layout, self->times, &self->overlay, NULL);
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
  g_signal_emit (self, signals[SIGNAL_FIRST_FRAME], 0);
  return G_SOURCE_REMOVE;
}

static void
weft_timeline_view_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  WeftTimelineView *self = WEFT_TIMELINE_VIEW (widget);
  graphene_rect_t body, rect;
  int w = gtk_widget_get_width (widget);
  int h = gtk_widget_get_height (widget);
  double hw = header_width (self);
  int scale = gtk_widget_get_scale_factor (widget);
  cairo_t *cr;
  WeftRgba bg;

  if (self->trace == NULL || self->layout == NULL || w <= 1 || h <= 1)
    return;
  if (self->debug_timing)
    self->t_snapshot = self->t_body = g_get_monotonic_time ();
  sync_view_size (self);
  body_rect (self, &body);
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
    paint_drag_ghost (self, cr);
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

  if (self->debug_timing)
    self->t_snapshot_end = g_get_monotonic_time ();
  self->frames++;
  if (self->first_frame_pending && self->first_frame_idle == 0)
    {
      self->first_frame_pending = FALSE;
      self->first_frame_idle = g_idle_add (first_frame_idle, self);
    }
}

static void
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

static void
weft_timeline_view_size_allocate (GtkWidget *widget, int width, int height, int baseline)
{
  WeftTimelineView *self = WEFT_TIMELINE_VIEW (widget);
  sync_view_size (self);
  update_adjustment (self);
  invalidate_body (self);
}

static void
after_paint_cb (GdkFrameClock *clock, WeftTimelineView *self)
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

static void
weft_timeline_view_realize (GtkWidget *widget)
{
  WeftTimelineView *self = WEFT_TIMELINE_VIEW (widget);

  GTK_WIDGET_CLASS (weft_timeline_view_parent_class)->realize (widget);
  self->frame_clock = g_object_ref (gtk_widget_get_frame_clock (widget));
  self->after_paint_id = g_signal_connect (self->frame_clock, "after-paint", G_CALLBACK (after_paint_cb), self);
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

/* ---- lifecycle ---------------------------------------------------------------------------- */

static void
weft_timeline_view_dispose (GObject *object)
{
  WeftTimelineView *self = WEFT_TIMELINE_VIEW (object);

  g_clear_handle_id (&self->first_frame_idle, g_source_remove);
  g_clear_object (&self->body_texture);
  g_clear_pointer (&self->body_surface, cairo_surface_destroy);
  g_clear_pointer (&self->layout, weft_layout_free);
  clear_search (self);
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
  g_signal_connect (self->vadj, "value-changed", G_CALLBACK (vadj_changed_cb), self);
  update_adjustment (self);
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
add_action (GtkWidgetClass *klass, const char *name, GtkWidgetActionActivateFunc func, guint key,
            GdkModifierType mods)
{
  gtk_widget_class_install_action (klass, name, NULL, func);
  if (key != 0)
    gtk_widget_class_add_binding_action (klass, key, mods, name, NULL);
}

static void
weft_timeline_view_class_init (WeftTimelineViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = weft_timeline_view_dispose;
  object_class->finalize = weft_timeline_view_finalize;
  object_class->get_property = weft_timeline_view_get_property;
  object_class->set_property = weft_timeline_view_set_property;
  widget_class->snapshot = weft_timeline_view_snapshot;
  widget_class->measure = weft_timeline_view_measure;
  widget_class->size_allocate = weft_timeline_view_size_allocate;
  widget_class->query_tooltip = query_tooltip;
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

  add_action (widget_class, "timeline.zoom-in", action_zoom, GDK_KEY_w, 0);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_W, GDK_SHIFT_MASK, "timeline.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_plus, 0, "timeline.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_equal, 0, "timeline.zoom-in", NULL);
  add_action (widget_class, "timeline.zoom-out", action_zoom, GDK_KEY_s, 0);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_S, GDK_SHIFT_MASK, "timeline.zoom-out", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_minus, 0, "timeline.zoom-out", NULL);
  add_action (widget_class, "timeline.pan-left", action_pan, GDK_KEY_a, 0);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_A, GDK_SHIFT_MASK, "timeline.pan-left", NULL);
  add_action (widget_class, "timeline.pan-right", action_pan, GDK_KEY_d, 0);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_D, GDK_SHIFT_MASK, "timeline.pan-right", NULL);
  add_action (widget_class, "timeline.fit", action_fit, GDK_KEY_0, 0);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Home, 0, "timeline.fit", NULL);
  add_action (widget_class, "timeline.focus", action_focus, GDK_KEY_f, 0);
  add_action (widget_class, "timeline.clear", action_clear, GDK_KEY_Escape, 0);
  add_action (widget_class, "timeline.scroll-up", action_scroll, GDK_KEY_Up, 0);
  add_action (widget_class, "timeline.scroll-down", action_scroll, GDK_KEY_Down, 0);
  add_action (widget_class, "timeline.page-up", action_scroll, GDK_KEY_Page_Up, 0);
  add_action (widget_class, "timeline.page-down", action_scroll, GDK_KEY_Page_Down, 0);
  add_action (widget_class, "timeline.search", action_search, GDK_KEY_f, GDK_CONTROL_MASK);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_slash, 0, "timeline.search", NULL);
  add_action (widget_class, "timeline.search-next", action_search_step, GDK_KEY_F3, 0);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_g, GDK_CONTROL_MASK, "timeline.search-next", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Return, 0, "timeline.search-next", NULL);
  add_action (widget_class, "timeline.search-previous", action_search_step, GDK_KEY_F3, GDK_SHIFT_MASK);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_g, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                       "timeline.search-previous", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Return, GDK_SHIFT_MASK, "timeline.search-previous",
                                       NULL);
  add_action (widget_class, "timeline.select-next", action_select_step, GDK_KEY_Right, 0);
  add_action (widget_class, "timeline.select-previous", action_select_step, GDK_KEY_Left, 0);
  add_action (widget_class, "timeline.toggle-critical-path", action_toggle, GDK_KEY_c, 0);
  add_action (widget_class, "timeline.toggle-overlap-band", action_toggle, GDK_KEY_b, 0);
  add_action (widget_class, "timeline.toggle-flows", action_toggle, GDK_KEY_l, 0);
  add_action (widget_class, "timeline.collapse-all", action_groups, GDK_KEY_bracketleft, 0);
  add_action (widget_class, "timeline.expand-all", action_groups, GDK_KEY_bracketright, 0);
  add_action (widget_class, "timeline.toggle-cpu", action_groups, GDK_KEY_t, 0);
  add_action (widget_class, "timeline.delete", action_delete, GDK_KEY_Delete, 0);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_BackSpace, 0, "timeline.delete", NULL);
  add_action (widget_class, "timeline.duplicate", action_delete, GDK_KEY_d, GDK_CONTROL_MASK);

  gtk_widget_class_set_css_name (widget_class, "weft-timeline");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_WIDGET);
}

static void
weft_timeline_view_init (WeftTimelineView *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  GtkEventController *motion, *scroll;
  GtkGesture *drag;

  self->debug_timing = g_getenv ("WEFT_DEBUG_TIMING") != NULL;
  memset (&self->view, 0, sizeof self->view);
  self->view.sel_rank = self->view.hover_rank = WEFT_NONE;
  self->view.sel_event = self->view.hover_event = WEFT_NONE;
  self->match_pos = -1;
  self->latencies = g_array_new (FALSE, FALSE, sizeof (gint64));

  gtk_widget_set_focusable (widget, TRUE);
  gtk_widget_set_focus_on_click (widget, TRUE);
  gtk_widget_set_has_tooltip (widget, TRUE);
  gtk_widget_set_overflow (widget, GTK_OVERFLOW_HIDDEN);
  gtk_widget_set_hexpand (widget, TRUE);
  gtk_widget_set_vexpand (widget, TRUE);

  set_vadjustment (self, NULL);

  motion = gtk_event_controller_motion_new ();
  g_signal_connect (motion, "motion", G_CALLBACK (motion_cb), self);
  g_signal_connect (motion, "leave", G_CALLBACK (leave_cb), self);
  gtk_widget_add_controller (widget, motion);

  scroll = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
  g_signal_connect (scroll, "scroll", G_CALLBACK (scroll_cb), self);
  gtk_widget_add_controller (widget, scroll);

  {
    GtkDropTarget *drop = gtk_drop_target_new (G_TYPE_STRING, GDK_ACTION_COPY);
    g_signal_connect (drop, "drop", G_CALLBACK (drop_cb), self);
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

  update_actions (self);
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
  gboolean dark;

  g_return_if_fail (WEFT_IS_TIMELINE_VIEW (self));

  dark = self->view.dark;
  clear_search (self);
  g_clear_pointer (&self->layout, weft_layout_free);
  weft_view_clear (&self->view);
  self->times = NULL;
  memset (&self->overlay, 0, sizeof self->overlay);
  self->trace = trace;
  if (trace != NULL)
    {
      weft_view_init (&self->view, trace);
      self->view.dark = dark;
      sync_view_size (self);
      weft_view_fit_all (&self->view, trace);
      self->trace_span = weft_trace_time_span (trace);
      self->content_valid = FALSE;
      self->layout = weft_layout_new (trace, &self->view);
      self->first_frame_pending = TRUE;
    }
  else
    {
      memset (&self->view, 0, sizeof self->view);
      self->view.dark = dark;
      self->view.sel_rank = self->view.hover_rank = WEFT_NONE;
      self->view.sel_event = self->view.hover_event = WEFT_NONE;
      self->trace_span.begin = self->trace_span.end = 0;
      self->content_valid = FALSE;
    }
  self->view.scroll_y = 0;
  update_adjustment (self);
  update_actions (self);
  invalidate_body (self);
  g_signal_emit (self, signals[SIGNAL_LAYOUT_CHANGED], 0);
  g_signal_emit (self, signals[SIGNAL_VIEW_CHANGED], 0);
  g_signal_emit (self, signals[SIGNAL_SELECTION_CHANGED], 0);
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
  clear_search (self);
  rebuild_layout (self);
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
  invalidate_body (self);
}

void
weft_timeline_view_set_session (WeftTimelineView *self, WeftEditSession *session)
{
  g_return_if_fail (WEFT_IS_TIMELINE_VIEW (self));
  self->session = session;
  self->content_valid = FALSE;
  update_actions (self);
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
    invalidate_body (self);
  else
    {
      clear_search (self);
      if (self->view.sel_event != WEFT_NONE &&
          (weft_rank_event (weft_trace_rank (self->trace, self->view.sel_rank), self->view.sel_event)->flags &
           WEFT_EVENT_DELETED))
        {
          self->view.sel_rank = WEFT_NONE;
          self->view.sel_event = WEFT_NONE;
          selection_changed (self);
        }
      if (self->view.hover_event != WEFT_NONE)
        self->view.hover_rank = WEFT_NONE, self->view.hover_event = WEFT_NONE;
      rebuild_layout (self);
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
  invalidate_body (self);
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
  set_span (self, span.begin, span.end);
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

void
weft_timeline_view_select (WeftTimelineView *self, guint rank_index, guint32 event)
{
  g_return_if_fail (WEFT_IS_TIMELINE_VIEW (self));
  g_return_if_fail (self->trace != NULL);
  g_return_if_fail (rank_index < self->trace->ranks->len);
  select_event (self, rank_index, event, TRUE);
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

int
weft_timeline_view_search (WeftTimelineView *self, const char *pattern, gboolean regex, int direction, GError **error)
{
  const SearchMatch *m;
  SearchMatch key;
  guint lo, hi;

  g_return_val_if_fail (WEFT_IS_TIMELINE_VIEW (self), -1);
  g_return_val_if_fail (pattern != NULL, -1);
  if (self->trace == NULL)
    return 0;
  if (*pattern == '\0')
    {
      clear_search (self);
      update_actions (self);
      return 0;
    }
  if (!build_matches (self, pattern, regex, error))
    {
      update_actions (self);
      return -1;
    }
  update_actions (self);
  if (self->matches->len == 0)
    return 0;

  if (direction == 0 || self->view.sel_event == WEFT_NONE)
    {
      /* first match at or after the visible start (wrapping) */
      key.ts = self->view.span.begin;
      key.rank_index = 0;
      key.event = 0;
    }
  else
    {
      key.ts = selected_span (self).begin;
      key.rank_index = self->view.sel_rank;
      key.event = self->view.sel_event;
    }
  lo = 0;
  hi = self->matches->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (match_cmp (&g_array_index (self->matches, SearchMatch, mid), &key) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  /* lo: first match >= key */
  if (direction > 0)
    {
      if (lo < self->matches->len && match_cmp (&g_array_index (self->matches, SearchMatch, lo), &key) == 0)
        lo++;
      self->match_pos = lo < self->matches->len ? (int) lo : 0;
    }
  else if (direction < 0)
    self->match_pos = lo > 0 ? (int) lo - 1 : (int) self->matches->len - 1;
  else
    self->match_pos = lo < self->matches->len ? (int) lo : 0;

  m = &g_array_index (self->matches, SearchMatch, self->match_pos);
  select_event (self, m->rank_index, m->event, TRUE);
  return (int) self->matches->len;
}

int
weft_timeline_view_get_match_position (WeftTimelineView *self)
{
  return self->match_pos;
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
  options.overlay = &self->overlay;
  (void) format; /* the painter picks the format from the extension */
  return weft_render_to_file (self->trace, &options, path, error);
}

void
weft_timeline_view_get_body_rect (WeftTimelineView *self, graphene_rect_t *rect)
{
  g_return_if_fail (WEFT_IS_TIMELINE_VIEW (self));
  body_rect (self, rect);
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
  body_rect (self, &body);
  sync_view_size (self);
  span = selected_span (self);
  x0 = CLAMP (weft_render_time_to_x (&self->view, span.begin), 0, body.size.width);
  x1 = CLAMP (weft_render_time_to_x (&self->view, span.end), 0, body.size.width);
  y = row->y + MIN (weft_layout_event_depth (self->layout, self->view.sel_rank, self->view.sel_event),
                    row->n_depth > 0 ? row->n_depth - 1 : 0) * WEFT_RENDER_LANE_ROW - self->view.scroll_y;
  if (x1 <= 0 || x0 >= body.size.width || y + WEFT_RENDER_LANE_ROW <= 0 || y >= body.size.height)
    return FALSE;
  graphene_rect_init (rect, body.origin.x + x0, body.origin.y + y, MAX (1.0, x1 - x0), WEFT_RENDER_LANE_ROW);
  return TRUE;
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
