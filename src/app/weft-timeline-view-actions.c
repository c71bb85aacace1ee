/* weft-timeline-view-actions.c: the timeline's actions ("timeline.*"),
 * installed on the class with their key bindings (W/A/S/D, 0, F, Esc,
 * arrows, Ctrl+F, F3, C/B/L, [ ], T, Delete, Ctrl+D), and the search by
 * event name behind Ctrl+F / F3. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "weft-timeline-view-private.h"

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

void
_weft_timeline_view_clear_search (WeftTimelineView *self)
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
  _weft_timeline_view_clear_search (self);
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
          if (self->search_kind != WEFT_SLICE_KIND_ALL && !weft_event_is_kind (rank, ev, self->search_kind))
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
  _weft_timeline_view_zoom (self, strcmp (name, "timeline.zoom-in") == 0 ? ZOOM_STEP : 1.0 / ZOOM_STEP,
                            _weft_timeline_view_zoom_anchor (self));
}

static void
action_pan (GtkWidget *widget, const char *name, GVariant *param)
{
  WeftTimelineView *self = WEFT_TIMELINE_VIEW (widget);
  _weft_timeline_view_sync_view_size (self);
  _weft_timeline_view_pan_px (self,
                              (strcmp (name, "timeline.pan-left") == 0 ? -1 : 1) * self->view.width * PAN_FRACTION);
}

static void
action_fit (GtkWidget *widget, const char *name, GVariant *param)
{
  _weft_timeline_view_fit_all (WEFT_TIMELINE_VIEW (widget));
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
      span = _weft_timeline_view_selected_span (self);
      _weft_timeline_view_reveal_event (self, self->view.sel_rank, self->view.sel_event);
    }
  else
    return;
  pad = MAX ((span.end - span.begin) / 8, (gint64) 500);
  _weft_timeline_view_set_span (self, span.begin - pad, span.end + pad);
}

static void
action_clear (GtkWidget *widget, const char *name, GVariant *param)
{
  WeftTimelineView *self = WEFT_TIMELINE_VIEW (widget);

  if (_weft_timeline_view_cancel_edit_drag (self))
    return;
  self->view.sel_rank = WEFT_NONE;
  self->view.sel_event = WEFT_NONE;
  self->view.range.begin = self->view.range.end = 0;
  _weft_timeline_view_selection_changed (self);
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
  _weft_timeline_view_set_scroll (self, self->view.scroll_y + step);
}

static void
action_search (GtkWidget *widget, const char *name, GVariant *param)
{
  g_signal_emit (widget, _weft_timeline_view_signals[SIGNAL_SEARCH_REQUESTED], 0);
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
  _weft_timeline_view_invalidate_body (self);
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
  _weft_timeline_view_rebuild_layout (self);
  g_signal_emit (self, _weft_timeline_view_signals[SIGNAL_VIEW_CHANGED], 0);
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
      _weft_timeline_view_select_event (self, self->view.sel_rank, e, TRUE);
      return;
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

void
weft_timeline_view_set_search_kind (WeftTimelineView *self, WeftSliceKind kind)
{
  g_return_if_fail (WEFT_IS_TIMELINE_VIEW (self));
  if (self->search_kind == kind)
    return;
  self->search_kind = kind;
  /* the matches are of the old kind: rebuilt by the next search */
  g_clear_pointer (&self->matches, g_array_unref);
  self->match_pos = -1;
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
      _weft_timeline_view_clear_search (self);
      _weft_timeline_view_update_actions (self);
      return 0;
    }
  if (!build_matches (self, pattern, regex, error))
    {
      _weft_timeline_view_update_actions (self);
      return -1;
    }
  _weft_timeline_view_update_actions (self);
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
      key.ts = _weft_timeline_view_selected_span (self).begin;
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
  _weft_timeline_view_select_event (self, m->rank_index, m->event, TRUE);
  return (int) self->matches->len;
}

int
weft_timeline_view_get_match_position (WeftTimelineView *self)
{
  return self->match_pos;
}

/* Installs the actions ("timeline.*") and binds their keys. */
void
_weft_timeline_view_class_actions_init (GtkWidgetClass *widget_class)
{
  _weft_timeline_view_class_marks_init (widget_class);
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
  add_action (widget_class, "timeline.delete", _weft_timeline_view_action_delete, GDK_KEY_Delete, 0);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_BackSpace, 0, "timeline.delete", NULL);
  add_action (widget_class, "timeline.duplicate", _weft_timeline_view_action_delete, GDK_KEY_d, GDK_CONTROL_MASK);
}
