/* weft-window-teststate.c: what the window shows, for the tests.
 *
 * WEFT_TEST_STATE=FILE makes the window write a small JSON after every
 * state change (load done, visible range, selection, scroll, error dialog,
 * edits, the Save As dialog), at low priority once per main-loop turn; the
 * UI tests (tests/test-ui-*.sh) poll it. Rectangles are in X window
 * coordinates, what `xdotool mousemove --window` takes.
 * WEFT_TEST_SCREENSHOT=FILE.png writes a screenshot after the first frame of
 * a loaded trace and on Ctrl+Shift+F12 (win.test-screenshot). */
#include "config.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <unistd.h>

#include "weft/weft.h"
#include "weft-app-util.h"
#include "weft-bottom-panel.h"
#include "weft-inspector.h"
#include "weft-legend.h"
#include "weft-metrics-bar.h"
#include "weft-palette.h"
#include "weft-timeline-view.h"
#include "weft-window-private.h"

static void
add_int64 (json_object *obj, const char *key, gint64 v)
{
  json_object_object_add (obj, key, json_object_new_int64 (v));
}

static int
cmp_int64 (const void *a, const void *b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return x < y ? -1 : (x > y ? 1 : 0);
}

/* A rectangle of the timeline view in X window coordinates (what
 * `xdotool mousemove --window` takes). */
static json_object *
rect_to_json (WeftWindow *self, const graphene_rect_t *r)
{
  json_object *obj = json_object_new_object ();
  graphene_point_t p = GRAPHENE_POINT_INIT (0, 0);
  double sx = 0, sy = 0;

  if (!gtk_widget_compute_point (self->view, GTK_WIDGET (self), &GRAPHENE_POINT_INIT (r->origin.x, r->origin.y), &p))
    p = GRAPHENE_POINT_INIT (r->origin.x, r->origin.y);
  gtk_native_get_surface_transform (GTK_NATIVE (self), &sx, &sy);
  json_object_object_add (obj, "x", json_object_new_int ((int) (p.x + sx)));
  json_object_object_add (obj, "y", json_object_new_int ((int) (p.y + sy)));
  json_object_object_add (obj, "w", json_object_new_int ((int) r->size.width));
  json_object_object_add (obj, "h", json_object_new_int ((int) r->size.height));
  return obj;
}

static json_object *
save_dialog_state (GtkFileChooserNative *native)
{
  GtkFileChooser *chooser = GTK_FILE_CHOOSER (native);
  json_object *o = json_object_new_object ();
  json_object *ids = json_object_new_array ();
  json_object *labels = json_object_new_array ();
  const char *chosen;

  json_object_object_add (o, "title", json_object_new_string (gtk_native_dialog_get_title (GTK_NATIVE_DIALOG (native))));
  json_object_object_add (o, "folder", json_object_new_boolean (gtk_file_chooser_get_action (chooser) ==
                                                                GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER));
  chosen = g_object_get_data (G_OBJECT (native), "weft-format") != NULL ? gtk_file_chooser_get_choice (chooser, "format")
                                                                         : NULL;
  if (chosen != NULL)
    {
      for (guint i = 0; i < _weft_window_n_save_formats; i++)
        {
          json_object_array_add (ids, json_object_new_string (_weft_window_save_formats[i].id));
          json_object_array_add (labels, json_object_new_string (_weft_window_save_formats[i].label));
        }
      json_object_object_add (o, "format", json_object_new_string (chosen));
    }
  json_object_object_add (o, "formats", ids);
  json_object_object_add (o, "format_labels", labels);
  return o;
}

/* The layout rows on screen: rank, kind, stream (GPU lanes), label and
 * their box in X window coordinates. */
static json_object *
rows_to_json (WeftWindow *self)
{
  WeftTimelineView *view = WEFT_TIMELINE_VIEW (self->view);
  const WeftLayout *layout = weft_timeline_view_get_layout (view);
  const WeftView *v = weft_timeline_view_get_view (view);
  json_object *arr = json_object_new_array ();
  graphene_rect_t body;
  static const char *const kinds[] = { "rank", "lane", "cpu", "memory" };

  if (layout == NULL)
    return arr;
  weft_timeline_view_get_body_rect (view, &body);
  for (guint i = 0; i < weft_layout_get_n_rows (layout); i++)
    {
      const WeftLayoutRow *row = weft_layout_get_row (layout, i);
      double y = row->y - v->scroll_y;
      json_object *o;
      g_autofree char *label = NULL;
      WeftRank *rank = weft_trace_rank (self->trace, row->rank_index);

      if (y + row->height <= 0 || y >= body.size.height)
        continue;
      o = rect_to_json (self, &GRAPHENE_RECT_INIT (body.origin.x, body.origin.y + y, body.size.width, row->height));
      json_object_object_add (o, "rank", json_object_new_int (rank->rank));
      json_object_object_add (o, "kind", json_object_new_string (kinds[CLAMP (row->kind, 0, 3)]));
      if (row->kind == WEFT_ROW_LANE && row->lane != WEFT_NONE)
        {
          WeftLane *lane = weft_rank_lane (rank, row->lane);
          json_object_object_add (o, "gpu", json_object_new_boolean (lane->kind == WEFT_LANE_GPU));
          json_object_object_add (o, "stream", json_object_new_int64 (lane->tid));
        }
      label = weft_render_row_label (self->trace, row);
      json_object_object_add (o, "label", json_object_new_string (label != NULL ? label : ""));
      json_object_array_add (arr, o);
    }
  return arr;
}

/* A palette item's box and payload, or NULL when it is not on screen;
 * with_width: also its width. */
static json_object *
palette_item_to_json (WeftWindow *self, GtkWidget *item, gboolean with_width)
{
  graphene_rect_t b;
  json_object *o;
  double sx = 0, sy = 0;

  if (item == NULL || !gtk_widget_get_mapped (item) || (with_width && gtk_widget_get_width (item) <= 0) ||
      !gtk_widget_compute_bounds (item, GTK_WIDGET (self), &b))
    return NULL;
  gtk_native_get_surface_transform (GTK_NATIVE (self), &sx, &sy);
  o = json_object_new_object ();
  json_object_object_add (o, "payload", json_object_new_string (weft_palette_item_payload (item)));
  json_object_object_add (o, "x", json_object_new_int ((int) (b.origin.x + sx)));
  json_object_object_add (o, "y", json_object_new_int ((int) (b.origin.y + sy)));
  if (with_width)
    json_object_object_add (o, "w", json_object_new_int ((int) b.size.width));
  json_object_object_add (o, "h", json_object_new_int ((int) b.size.height));
  return o;
}

/* The palette's first items, and the first of each strategy's collectives
 * (the palette's last section). */
static void
add_palette (WeftWindow *self, json_object *root)
{
  WeftPalette *pal = WEFT_PALETTE (self->palette);
  json_object *items = json_object_new_array ();
  guint n, k;
  json_object *o;

  for (guint i = 0; i < 4; i++)
    if ((o = palette_item_to_json (self, weft_palette_get_item (pal, i), TRUE)) != NULL)
      json_object_array_add (items, o);
  json_object_object_add (root, "palette_items", items);
  n = weft_palette_get_n_items (pal);
  k = weft_palette_get_n_strategy_items (pal);
  if (k > 0 && (o = palette_item_to_json (self, weft_palette_get_item (pal, n - k), FALSE)) != NULL)
    json_object_object_add (root, "palette_strategy_item", o);
}

json_object *
_weft_window_widget_box (WeftWindow *self, GtkWidget *widget)
{
  graphene_rect_t b;
  json_object *o;
  double sx = 0, sy = 0;

  if (widget == NULL || !gtk_widget_get_mapped (widget) || !gtk_widget_compute_bounds (widget, GTK_WIDGET (self), &b))
    return NULL;
  gtk_native_get_surface_transform (GTK_NATIVE (self), &sx, &sy);
  o = json_object_new_object ();
  json_object_object_add (o, "x", json_object_new_int ((int) (b.origin.x + sx)));
  json_object_object_add (o, "y", json_object_new_int ((int) (b.origin.y + sy)));
  json_object_object_add (o, "w", json_object_new_int ((int) b.size.width));
  json_object_object_add (o, "h", json_object_new_int ((int) b.size.height));
  return o;
}

/* The bottom panel: shown, page, rows on screen (box, rank, event, cells)
 * and the boxes of the page's column titles. */
static void
add_tables (WeftWindow *self, json_object *root)
{
  WeftBottomPanel *panel = WEFT_BOTTOM_PANEL (self->bottom_panel);
  json_object *t = json_object_new_object ();
  json_object *rows = json_object_new_array ();
  json_object *titles = json_object_new_object ();
  g_autoptr (GArray) vis = weft_bottom_panel_visible_rows (panel);
  static const char *const names[] = { "#", "Type", "Group", "Ranks", "Size", "Transfer", "Max wait", "Last rank",
                                       "Kernel", "Class", "Count", "Total", "Mean", "Share",
                                       "Name", "Rank", "Lane", "Start", "Duration",
                                       "Collectives", "Kernels", "Slices in range" };

  json_object_object_add (t, "shown", json_object_new_boolean (gtk_widget_get_mapped (self->bottom_panel)));
  json_object_object_add (t, "page", json_object_new_string (weft_bottom_panel_get_page (panel)));
  json_object_object_add (t, "n_rows", json_object_new_int ((int) weft_bottom_panel_get_n_rows (panel)));
  for (guint i = 0; i < vis->len; i++)
    {
      const WeftBottomPanelRow *r = &g_array_index (vis, WeftBottomPanelRow, i);
      json_object *o = _weft_window_widget_box (self, r->widget);
      json_object *cells = json_object_new_array ();
      if (o == NULL)
        {
          json_object_put (cells);
          continue;
        }
      json_object_object_add (o, "rank", json_object_new_int (weft_trace_rank (self->trace, r->rank_index)->rank));
      json_object_object_add (o, "event", json_object_new_int64 (r->event));
      for (guint k = 0; k < r->n_cells; k++)
        json_object_array_add (cells, json_object_new_string (r->cells[k]));
      json_object_object_add (o, "cells", cells);
      json_object_array_add (rows, o);
    }
  json_object_object_add (t, "rows", rows);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      json_object *o = _weft_window_widget_box (self, weft_bottom_panel_column_title (panel, names[i]));
      if (o != NULL)
        json_object_object_add (titles, names[i], o);
    }
  json_object_object_add (t, "titles", titles);
  json_object_object_add (root, "tables", t);
}

/* The window as a whole: page, loading, errors, focus, timings, size. */
/* The process and its application's windows (a second `weft FILE` opens
 * its window in the running instance): pid, app_windows, app_paths. */
static void
add_app (WeftWindow *self, json_object *root)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  json_object *paths = json_object_new_array ();
  int n = 0;

  for (GList *l = app != NULL ? gtk_application_get_windows (app) : NULL; l != NULL; l = l->next)
    {
      n++;
      if (WEFT_IS_WINDOW (l->data) && WEFT_WINDOW (l->data)->paths != NULL)
        json_object_array_add (paths, json_object_new_string (WEFT_WINDOW (l->data)->paths[0]));
    }
  add_int64 (root, "pid", (gint64) getpid ());
  {
    /* the accessible roles GTK reports (screen readers) */
    GEnumClass *roles = g_type_class_ref (GTK_TYPE_ACCESSIBLE_ROLE);
    GEnumValue *tl = g_enum_get_value (roles, gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (self->view)));
    GEnumValue *mb = g_enum_get_value (roles, gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (self->metrics)));
    json_object *a = json_object_new_object ();
    json_object_object_add (a, "timeline", json_object_new_string (tl != NULL ? tl->value_nick : ""));
    json_object_object_add (a, "metrics", json_object_new_string (mb != NULL ? mb->value_nick : ""));
    json_object_object_add (root, "a11y_roles", a);
    g_type_class_unref (roles);
  }
  json_object_object_add (root, "app_windows", json_object_new_int (n));
  json_object_object_add (root, "app_paths", paths);
}

static void
add_window (WeftWindow *self, json_object *root)
{
  WeftTimelineView *view = WEFT_TIMELINE_VIEW (self->view);
  const char *page = gtk_stack_get_visible_child_name (GTK_STACK (self->stack));
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));
  const GArray *lat = weft_timeline_view_get_drag_latencies (view);

  json_object_object_add (root, "title", json_object_new_string (gtk_window_get_title (GTK_WINDOW (self))));
  json_object_object_add (root, "page", json_object_new_string (page != NULL ? page : ""));
  json_object_object_add (root, "loading", json_object_new_boolean (_weft_window_is_loading (self)));
  json_object_object_add (root, "loaded", json_object_new_boolean (self->trace != NULL));
  json_object_object_add (root, "path",
                          self->paths != NULL ? json_object_new_string (self->paths[0]) : NULL);
  json_object_object_add (root, "n_errors", json_object_new_int ((int) self->n_errors));
  json_object_object_add (root, "last_error",
                          self->last_error != NULL ? json_object_new_string (self->last_error) : NULL);
  json_object_object_add (root, "error_dialog_open", json_object_new_boolean (self->error_dialog != NULL));
  json_object_object_add (root, "dark", json_object_new_boolean (_weft_window_is_dark (self)));
  json_object_object_add (root, "focus", json_object_new_string (focus != NULL ? G_OBJECT_TYPE_NAME (focus) : ""));
  json_object_object_add (root, "screenshots", json_object_new_int ((int) self->n_screenshots));
  add_app (self, root);
  add_int64 (root, "frames", weft_timeline_view_get_frames (view));
  /* frames of the whole window (its frame clock), the loading page's too */
  if (gtk_widget_get_frame_clock (GTK_WIDGET (self)) != NULL)
    add_int64 (root, "window_frames", gdk_frame_clock_get_frame_counter (gtk_widget_get_frame_clock (GTK_WIDGET (self))));
  json_object_object_add (root, "progress_text", json_object_new_string (gtk_label_get_text (GTK_LABEL (self->progress_label))));
  if (lat != NULL && lat->len > 0)
    {
      g_autofree gint64 *v = g_memdup2 (lat->data, lat->len * sizeof (gint64));
      json_object *l = json_object_new_object ();
      qsort (v, lat->len, sizeof (gint64), cmp_int64);
      json_object_object_add (l, "n", json_object_new_int ((int) lat->len));
      json_object_object_add (l, "median_ms", json_object_new_double (v[lat->len / 2] / 1000.0));
      json_object_object_add (l, "p90_ms", json_object_new_double (v[(lat->len * 9) / 10] / 1000.0));
      json_object_object_add (l, "max_ms", json_object_new_double (v[lat->len - 1] / 1000.0));
      json_object_object_add (root, "drag_latency", l);
    }
  add_int64 (root, "first_frame_ms", self->first_frame_us / 1000);
  add_int64 (root, "load_ms", self->load_us / 1000);
  add_int64 (root, "solve_ms", self->solve_us / 1000);
  json_object_object_add (root, "width", json_object_new_int (gtk_widget_get_width (self->view)));
  json_object_object_add (root, "recent", json_object_new_int ((int) self->n_recent));
}

/* Where the timeline's body, selection, rows and palette items are on
 * screen (only while the trace page is shown). */
static void
add_geometry (WeftWindow *self, json_object *root)
{
  WeftTimelineView *view = WEFT_TIMELINE_VIEW (self->view);
  graphene_rect_t r;

  weft_timeline_view_get_body_rect (view, &r);
  json_object_object_add (root, "body", rect_to_json (self, &r));
  if (weft_timeline_view_get_selection_rect (view, &r))
    json_object_object_add (root, "selection_box", rect_to_json (self, &r));
  json_object_object_add (root, "rows", rows_to_json (self));
  {
    json_object *legend = json_object_new_array ();
    for (guint i = 0; i < weft_legend_get_n_entries (WEFT_LEGEND (self->legend)); i++)
      json_object_array_add (legend, json_object_new_string (weft_legend_get_entry (WEFT_LEGEND (self->legend), i)));
    json_object_object_add (root, "legend", legend);
    json_object_object_add (root, "legend_box", _weft_window_widget_box (self, self->legend));
    json_object_object_add (root, "breakdown_box", _weft_window_widget_box (self, self->breakdown));
    {
      double sx = 0, sy = 0;
      json_object *o = json_object_new_object ();
      gtk_native_get_surface_transform (GTK_NATIVE (self), &sx, &sy);
      json_object_object_add (o, "x", json_object_new_int ((int) sx));
      json_object_object_add (o, "y", json_object_new_int ((int) sy));
      json_object_object_add (root, "surface", o);
    }
    json_object_object_add (root, "header_width",
                            json_object_new_double (weft_timeline_view_get_header_width (WEFT_TIMELINE_VIEW (self->view))));
    json_object_object_add (root, "label_width",
                            json_object_new_double (weft_timeline_view_get_label_width (WEFT_TIMELINE_VIEW (self->view))));
  }
  json_object_object_add (root, "side_page",
                          json_object_new_string (gtk_stack_get_visible_child_name (GTK_STACK (self->side_stack))));
  if (gtk_widget_get_mapped (self->palette))
    add_palette (self, root);
  add_tables (self, root);
}

/* The selected event (its solved times when the solver has it), or null. */
static json_object *
selection_to_json (WeftWindow *self)
{
  WeftTimelineView *view = WEFT_TIMELINE_VIEW (self->view);
  guint rank_index;
  guint32 event;
  WeftRank *rank;
  const WeftEvent *ev;
  json_object *s;

  if (!weft_timeline_view_get_selection (view, &rank_index, &event))
    return NULL;
  rank = weft_trace_rank (self->trace, rank_index);
  s = json_object_new_object ();
  json_object_object_add (s, "rank", json_object_new_int (rank->rank));
  json_object_object_add (s, "event", json_object_new_int64 (event));
  ev = weft_rank_event (rank, event);
  json_object_object_add (s, "name", json_object_new_string (weft_rank_string (rank, ev->name)));
  if (ev->lane != WEFT_NONE)
    json_object_object_add (s, "stream", json_object_new_int64 (weft_rank_lane (rank, ev->lane)->tid));
  json_object_object_add (s, "gpu_op", json_object_new_boolean ((ev->flags & WEFT_EVENT_GPU_OP) != 0));
  if (self->solver != NULL && weft_solver_is_node (self->solver, rank_index, event))
    {
      add_int64 (s, "start", weft_solver_start (self->solver, rank_index, event));
      add_int64 (s, "end", weft_solver_end (self->solver, rank_index, event));
    }
  return s;
}

/* The edit session: modified, undo/redo, the edit log's last entry. */
static void
add_session (WeftWindow *self, json_object *root)
{
  json_object *log = weft_edit_session_log (self->session);
  size_t n_log = json_object_array_length (log);

  json_object_object_add (root, "modified", json_object_new_boolean (weft_edit_session_is_modified (self->session)));
  json_object_object_add (root, "can_undo", json_object_new_boolean (weft_edit_session_can_undo (self->session)));
  json_object_object_add (root, "can_redo", json_object_new_boolean (weft_edit_session_can_redo (self->session)));
  add_int64 (root, "edit_serial", (gint64) weft_edit_session_get_serial (self->session));
  json_object_object_add (root, "edits", json_object_new_int ((int) n_log));
  if (n_log > 0)
    json_object_object_add (root, "last_edit", json_object_get (json_object_array_get_idx (log, n_log - 1)));
  json_object_put (log);
  json_object_object_add (root, "dragging",
                          json_object_new_boolean (weft_timeline_view_is_dragging (WEFT_TIMELINE_VIEW (self->view))));
}

/* The metric chips: the step's solved metrics and their baseline. */
static void
add_metrics (WeftWindow *self, json_object *root)
{
  WeftMetrics now, base;
  json_object *m;

  if (!weft_metrics_bar_get_metrics (WEFT_METRICS_BAR (self->metrics), &now, &base))
    return;
  m = json_object_new_object ();
  add_int64 (m, "step", weft_metrics_bar_get_step (WEFT_METRICS_BAR (self->metrics)));
  {
    json_object *box = _weft_window_widget_box (self, weft_metrics_bar_get_step_drop (WEFT_METRICS_BAR (self->metrics)));
    if (box != NULL)
      json_object_object_add (m, "step_drop", box);
  }
  add_int64 (m, "step_time", now.step_time);
  json_object_object_add (m, "overlap_pct", json_object_new_double (now.overlap_pct));
  add_int64 (m, "exposed_comm", now.exposed_comm);
  add_int64 (m, "critical_path", now.cp_length);
  add_int64 (m, "baseline_step_time", base.step_time);
  json_object_object_add (m, "step_time_source",
                          json_object_new_string (weft_step_time_source_to_string (now.step_source)));
  add_int64 (m, "gpu_span", now.gpu_span);
  add_int64 (m, "baseline_gpu_span", base.gpu_span);
  json_object_object_add (root, "metrics", m);
}

/* Pipeline parallel: the bubble chip's figure, the P2P arrows in view
 * (what the highlights draw), the matched P2P pairs. */
static void
add_pipeline (WeftWindow *self, json_object *root)
{
  WeftTimelineView *view = WEFT_TIMELINE_VIEW (self->view);
  json_object *p = json_object_new_object ();
  guint pairs = 0;

  for (guint k = 0; k < self->trace->instances->len; k++)
    {
      WeftCollType t = g_array_index (self->trace->instances, WeftCollInstance, k).type;
      pairs += t == WEFT_COLL_SEND || t == WEFT_COLL_RECV;
    }
  json_object_object_add (p, "bubble_pct",
                          json_object_new_double (weft_metrics_bar_get_bubble_pct (WEFT_METRICS_BAR (self->metrics))));
  json_object_object_add (p, "p2p_pairs", json_object_new_int ((int) pairs));
  json_object_object_add (p, "p2p_arrows",
                          json_object_new_int ((int) weft_render_paint_p2p_arrows (
                            NULL, self->trace, weft_timeline_view_get_view (view), weft_timeline_view_get_layout (view),
                            self->solver != NULL ? &self->times : NULL)));
  json_object_object_add (root, "pipeline", p);
}

/* The inspector's dependency buttons (dir, kind, the other op, box) and
 * the critical-path reasons it shows. */
static void
add_inspector_edges (WeftWindow *self, json_object *root)
{
  WeftInspector *insp = WEFT_INSPECTOR (self->inspector);
  json_object *edges = json_object_new_array ();
  json_object *reasons = json_object_new_array ();
  const GPtrArray *why = weft_inspector_get_reasons (insp);

  for (guint i = 0; i < weft_inspector_get_n_edges (insp); i++)
    {
      const char *dir, *kind;
      guint r;
      guint32 e;
      GtkWidget *b = weft_inspector_get_edge (insp, i, &dir, &kind, &r, &e);
      json_object *o = _weft_window_widget_box (self, b);
      if (o == NULL)
        o = json_object_new_object ();
      json_object_object_add (o, "dir", json_object_new_string (dir));
      json_object_object_add (o, "kind", json_object_new_string (kind));
      json_object_object_add (o, "rank", json_object_new_int (weft_trace_rank (self->trace, r)->rank));
      json_object_object_add (o, "event", json_object_new_int64 (e));
      json_object_array_add (edges, o);
    }
  for (guint i = 0; i < why->len; i++)
    json_object_array_add (reasons, json_object_new_string (g_ptr_array_index (why, i)));
  json_object_object_add (root, "inspector_box", _weft_window_widget_box (self, self->inspector));
  {
    GtkWidget *title = weft_inspector_get_title_label (insp);
    json_object *o = title != NULL ? _weft_window_widget_box (self, title) : NULL;
    if (o != NULL)
      {
        const char *tip = gtk_widget_get_tooltip_text (title);
        json_object_object_add (o, "tooltip", json_object_new_string (tip != NULL ? tip : ""));
        json_object_object_add (o, "ellipsized", json_object_new_boolean (pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (title)))));
      }
    json_object_object_add (root, "inspector_title", o);
  }
  json_object_object_add (root, "inspector_edges", edges);
  json_object_object_add (root, "inspector_reasons", reasons);
}

/* The loaded trace: visible and whole spans, the rank groups (into
 * groups), selection, range, inspector page, session and metrics. */
static void
add_trace (WeftWindow *self, json_object *root, json_object *groups)
{
  WeftTimelineView *view = WEFT_TIMELINE_VIEW (self->view);
  WeftTimeSpan vis = weft_timeline_view_get_visible (view);
  WeftTimeSpan all = weft_timeline_view_get_trace_span (view);
  json_object *v = json_object_new_object ();
  json_object *t = json_object_new_object ();
  guint n = weft_timeline_view_get_n_groups (view);
  WeftTimeSpan range;

  add_int64 (v, "begin", vis.begin);
  add_int64 (v, "end", vis.end);
  json_object_object_add (root, "visible", v);
  add_int64 (t, "begin", all.begin);
  add_int64 (t, "end", all.end);
  json_object_object_add (root, "trace_span", t);
  json_object_object_add (root, "scroll_y", json_object_new_double (weft_timeline_view_get_scroll_y (view)));
  json_object_object_add (root, "n_ranks", json_object_new_int ((int) self->trace->ranks->len));
  json_object_object_add (root, "n_groups", json_object_new_int ((int) n));
  for (guint i = 0; i < n; i++)
    {
      json_object *g = json_object_new_object ();
      int rank;
      guint lanes, gpu;
      gboolean collapsed;
      weft_timeline_view_get_group (view, i, &rank, &lanes, &gpu, &collapsed);
      json_object_object_add (g, "rank", json_object_new_int (rank));
      json_object_object_add (g, "rows", json_object_new_int ((int) lanes));
      json_object_object_add (g, "gpu_lanes", json_object_new_int ((int) gpu));
      json_object_object_add (g, "collapsed", json_object_new_boolean (collapsed));
      json_object_array_add (groups, g);
    }
  json_object_object_add (root, "selection", selection_to_json (self));
  if (weft_timeline_view_get_range (view, &range))
    {
      json_object *r = json_object_new_object ();
      add_int64 (r, "begin", range.begin);
      add_int64 (r, "end", range.end);
      json_object_object_add (root, "range", r);
    }
  else
    json_object_object_add (root, "range", NULL);
  {
    WeftTimeSpan m;
    json_object *bm = json_object_new_array ();
    if (weft_timeline_view_get_mark (view, &m))
      {
        json_object *o = json_object_new_object ();
        add_int64 (o, "begin", m.begin);
        add_int64 (o, "end", m.end);
        json_object_object_add (root, "mark", o);
      }
    else
      json_object_object_add (root, "mark", NULL);
    for (int slot = 1; slot <= 9; slot++)
      if (weft_timeline_view_get_bookmark (view, slot, &m))
        {
          json_object *o = json_object_new_object ();
          json_object_object_add (o, "slot", json_object_new_int (slot));
          add_int64 (o, "begin", m.begin);
          add_int64 (o, "end", m.end);
          json_object_array_add (bm, o);
        }
    json_object_object_add (root, "bookmarks", bm);
  }
  json_object_object_add (root, "inspector",
                          json_object_new_string (weft_inspector_get_title (WEFT_INSPECTOR (self->inspector))));
  add_inspector_edges (self, root);
  json_object_object_add (root, "solver", json_object_new_boolean (self->solver != NULL));
  json_object_object_add (root, "editable", json_object_new_boolean (self->session != NULL));
  if (self->session != NULL)
    add_session (self, root);
  add_metrics (self, root);
  add_pipeline (self, root);
}

/* "memory": the memory rows' peaks now (re-timed from the solver: what the
 * rows show) and what the last body paint drew. */
static void
add_memory (WeftWindow *self, json_object *root)
{
  WeftTimelineView *view = WEFT_TIMELINE_VIEW (self->view);
  WeftMemoryTimeline *tl = weft_timeline_view_get_memory (view);
  WeftMemoryTimelinePeak peak;
  json_object *m = json_object_new_object ();
  json_object *ranks = json_object_new_array ();
  guint rows = 0;
  gint64 drawn = 0;

  weft_timeline_view_get_memory_drawn (view, &rows, &drawn);
  json_object_object_add (m, "rows_drawn", json_object_new_int ((int) rows));
  json_object_object_add (m, "drawn_peak_gib", json_object_new_double (drawn / 1073741824.0));
  if (tl != NULL && weft_memory_timeline_peak (tl, WEFT_SOLVER_ALL_RANKS, &peak))
    json_object_object_add (m, "peak_gib", json_object_new_double (peak.peak_reserved / 1073741824.0));
  else
    json_object_object_add (m, "peak_gib", NULL);
  for (guint r = 0; tl != NULL && r < self->trace->ranks->len; r++)
    if (weft_memory_timeline_peak (tl, r, &peak))
      {
        json_object *o = json_object_new_object ();
        json_object_object_add (o, "rank", json_object_new_int (weft_trace_rank (self->trace, r)->rank));
        json_object_object_add (o, "peak_gib", json_object_new_double (peak.peak_reserved / 1073741824.0));
        json_object_object_add (o, "peak_ns", json_object_new_int64 (peak.peak_time));
        json_object_array_add (ranks, o);
      }
  json_object_object_add (m, "ranks", ranks);
  json_object_object_add (root, "memory", m);
}

static void
write_state (WeftWindow *self)
{
  json_object *root = json_object_new_object ();
  json_object *groups = json_object_new_array ();
  g_autoptr (GError) error = NULL;
  const char *text;

  add_window (self, root);
  if (self->trace != NULL && gtk_widget_get_mapped (self->view))
    add_geometry (self, root);
  json_object_object_add (root, "height", json_object_new_int (gtk_widget_get_height (self->view)));
  if (self->trace != NULL)
    add_trace (self, root, groups);
  json_object_object_add (root, "groups", groups);
  if (self->trace != NULL)
    add_memory (self, root);
  if (self->save_dialog != NULL)
    json_object_object_add (root, "save_dialog", save_dialog_state (self->save_dialog));
  _weft_window_compare_test_state (self, root);
  _weft_window_pipeline_test_state (self, root);

  text = json_object_to_json_string_ext (root, JSON_C_TO_STRING_PRETTY);
  if (!g_file_set_contents (self->state_path, text, -1, &error))
    g_warning ("WEFT_TEST_STATE: %s", error->message);
  json_object_put (root);
}

static gboolean
state_idle_cb (gpointer data)
{
  WeftWindow *self = data;

  self->state_idle = 0;
  write_state (self);
  return G_SOURCE_REMOVE;
}

void
_weft_window_schedule_state (WeftWindow *self)
{
  if (self->state_path == NULL || self->state_idle != 0)
    return;
  self->state_idle = g_idle_add_full (G_PRIORITY_LOW, state_idle_cb, self, NULL);
}

gboolean
weft_window_save_screenshot (WeftWindow *self, const char *path, GError **error)
{
  g_return_val_if_fail (WEFT_IS_WINDOW (self), FALSE);
  return weft_native_save_png (GTK_NATIVE (self), "window", path, error);
}

void
_weft_window_take_test_screenshot (WeftWindow *self)
{
  g_autoptr (GError) error = NULL;

  if (self->screenshot_path == NULL)
    return;
  if (weft_window_save_screenshot (self, self->screenshot_path, &error))
    self->n_screenshots++;
  else
    g_warning ("WEFT_TEST_SCREENSHOT: %s", error->message);
  _weft_window_schedule_state (self);
}

static gboolean
screenshot_idle_cb (gpointer data)
{
  WeftWindow *self = data;

  _weft_window_take_test_screenshot (self);
  g_object_unref (self);
  return G_SOURCE_REMOVE;
}

/* The view drew its first frame of a loaded trace: the screenshot, once. */
void
_weft_window_first_frame_screenshot (WeftWindow *self)
{
  if (self->screenshot_path != NULL && !self->screenshot_pending)
    {
      self->screenshot_pending = TRUE;
      g_idle_add (screenshot_idle_cb, g_object_ref (self));
    }
}

/* Reads WEFT_TEST_STATE and WEFT_TEST_SCREENSHOT (empty: unset). */
void
_weft_window_teststate_init (WeftWindow *self)
{
  self->state_path = g_strdup (g_getenv ("WEFT_TEST_STATE"));
  self->screenshot_path = g_strdup (g_getenv ("WEFT_TEST_SCREENSHOT"));
  if (self->state_path != NULL && *self->state_path == '\0')
    g_clear_pointer (&self->state_path, g_free);
  if (self->screenshot_path != NULL && *self->screenshot_path == '\0')
    g_clear_pointer (&self->screenshot_path, g_free);
}

static gboolean
late_state_cb (gpointer data)
{
  _weft_window_schedule_state (WEFT_WINDOW (data));
  return G_SOURCE_REMOVE;
}

/* The state after the next layout (what moved widgets, e.g. a scroll, a
 * pane shown: their boxes are the new ones only then). On a loaded
 * machine the layout can come later than the first write, and nothing
 * else may write the state after it: written again twice, later. */
void
_weft_window_schedule_state_late (WeftWindow *self)
{
  static const guint delays_ms[] = { 150, 600, 2000 };

  if (self->state_path == NULL)
    return;
  for (guint i = 0; i < G_N_ELEMENTS (delays_ms); i++)
    g_timeout_add_full (G_PRIORITY_LOW, delays_ms[i], late_state_cb, g_object_ref (self), g_object_unref);
}

/* After the template: the inspector's scrolling moves its buttons (the
 * edges the tests click), so it writes the state too. */
void
_weft_window_teststate_watch (WeftWindow *self)
{
  GtkWidget *sw = gtk_widget_get_first_child (self->inspector);

  if (self->state_path != NULL && GTK_IS_SCROLLED_WINDOW (sw))
    g_signal_connect_swapped (gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (sw)), "value-changed",
                              G_CALLBACK (_weft_window_schedule_state_late), self);
}
