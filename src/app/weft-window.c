/* weft-window.c: a Weft window.
 *
 * Pages (GtkStack): "empty" (Open a trace, recent files, drop here),
 * "loading" (progress bar + Cancel) and "trace" (search bar, timeline |
 * inspector + per-rank breakdown). The header bar holds Open (with the
 * recent files), the metric chips and the main menu.
 *
 * Loading runs in a GTask thread: weft_trace_load() reports progress from
 * its worker threads into a mutex-protected counter that a main-loop
 * timeout shows; then the solver is built in the same thread. A failure is
 * a GtkMessageDialog with the loader's message (file and byte offset) and
 * the window goes back to what it showed before.
 *
 * For tests: WEFT_TEST_STATE=FILE makes the window write a small JSON after
 * every state change (load done, visible range, selection, scroll, error
 * dialog); WEFT_TEST_SCREENSHOT=FILE.png writes a screenshot after the first
 * frame of a loaded trace and on Ctrl+Shift+F12. */
#include "config.h"

#include <glib/gstdio.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "weft/weft.h"
#include "weft/weft-edit.h"
#include "weft/weft-solver.h"
#include "weft-app-util.h"
#include "weft-inspector.h"
#include "weft-metrics-bar.h"
#include "weft-palette.h"
#include "weft-rank-breakdown.h"
#include "weft-strategy-palette.h"
#include "weft-apply-dialog.h"
#include "weft-template-dialog.h"
#include "weft-timeline-view.h"
#include "weft-window.h"

#define MAX_RECENT 10

/* ---- load job -------------------------------------------------------------- */

typedef struct
{
  gatomicrefcount ref;
  GMutex          lock;
  guint64         done;
  guint64         total;
  gboolean        indexing;
  char          **paths;
  guint           n_paths;
  WeftTrace      *trace;
  WeftEditSession *session;     /* owns trace and solver when built */
  char           *solver_error;
  gint64          t_begin;
  gint64          t_loaded;
  gint64          t_solved;
  gboolean        align_clocks;
} LoadJob;

static LoadJob *
load_job_ref (LoadJob *job)
{
  g_atomic_ref_count_inc (&job->ref);
  return job;
}

static void
load_job_unref (gpointer data)
{
  LoadJob *job = data;

  if (!g_atomic_ref_count_dec (&job->ref))
    return;
  g_clear_pointer (&job->session, weft_edit_session_free);
  g_clear_pointer (&job->trace, weft_trace_free);
  g_strfreev (job->paths);
  g_free (job->solver_error);
  g_mutex_clear (&job->lock);
  g_free (job);
}

static void
load_progress (guint64 done, guint64 total, gpointer user_data)
{
  LoadJob *job = user_data;

  g_mutex_lock (&job->lock);
  job->done = done;
  job->total = total;
  g_mutex_unlock (&job->lock);
}

static void
load_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  LoadJob *job = task_data;
  WeftLoadOptions options = { 0 };
  GError *error = NULL;
  WeftTrace *trace;

  options.progress = load_progress;
  options.progress_data = job;
  if (g_getenv ("WEFT_TEST_LOAD_DELAY_MS") != NULL)
    {
      /* tests: a slow disk, so that Cancel can be pressed in time */
      gint64 until = g_get_monotonic_time () + g_ascii_strtoll (g_getenv ("WEFT_TEST_LOAD_DELAY_MS"), NULL, 10) * 1000;
      while (g_get_monotonic_time () < until && !g_cancellable_is_cancelled (cancellable))
        g_usleep (10000);
    }
  job->t_begin = g_get_monotonic_time ();
  if (job->n_paths == 1)
    trace = weft_trace_load (job->paths[0], &options, cancellable, &error);
  else
    trace = weft_trace_load_files ((const char *const *) job->paths, job->n_paths, &options, cancellable, &error);
  if (trace == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  job->t_loaded = g_get_monotonic_time ();
  /* the solver works on the common timeline: decide before it is built */
  trace->apply_clock_offsets = job->align_clocks && trace->offsets_estimated;
  g_mutex_lock (&job->lock);
  job->indexing = TRUE;
  g_mutex_unlock (&job->lock);
  if (g_cancellable_is_cancelled (cancellable))
    {
      weft_trace_free (trace);
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "Cancelled");
      return;
    }
  /* The solver's first solve is the baseline of the metric deltas. A trace
   * the solver cannot handle is still shown, without solved metrics. */
  job->session = weft_edit_session_new (trace, job->paths[0], &error);
  if (job->session == NULL)
    {
      job->trace = trace;
      if (error != NULL)
        job->solver_error = g_strdup (error->message);
    }
  g_clear_error (&error);
  job->t_solved = g_get_monotonic_time ();
  g_task_return_boolean (task, TRUE);
}

/* ---- window ------------------------------------------------------------------ */

struct _WeftWindow
{
  GtkApplicationWindow parent_instance;

  GtkWidget *stack;
  GtkWidget *header;
  GtkWidget *metrics;
  GtkWidget *recent_menu_button;
  GMenu     *recent_menu;

  /* empty page */
  GtkWidget *recent_list;
  GtkWidget *recent_title;

  /* loading page */
  GtkWidget *progress;
  GtkWidget *progress_label;
  guint      progress_timer;

  /* trace page */
  GtkWidget *search_bar;
  GtkWidget *search_entry;
  GtkWidget *search_regex;
  GtkWidget *search_status;
  GtkWidget *paned;
  GtkWidget *view;
  GtkWidget *side;
  GtkWidget *inspector;
  GtkWidget *palette;
  GtkWidget *side_stack;
  GtkWidget *breakdown;

  /* document: the edit session owns the trace and the solver; without
   * one (the solver refused the trace) the window owns the trace */
  WeftEditSession *session;
  WeftTrace  *trace;
  WeftSolver *solver;
  WeftRenderTimes times;
  WeftEventRef   *critical;
  guint           n_critical;
  char      **paths;
  char       *display_name;

  /* loading */
  GCancellable *cancellable;
  LoadJob      *job;
  char         *page_before_load;

  /* state for tests */
  char    *last_error;
  guint    n_errors;
  char    *state_path;
  char    *screenshot_path;
  guint    state_idle;
  guint    n_screenshots;
  gboolean screenshot_pending;
  gint64   first_frame_us;   /* since process start */
  gint64   load_us;
  gint64   solve_us;
  GtkWidget *error_dialog;
  guint      n_recent;

  /* editing */
  guint      refresh_idle;
  gboolean   refresh_stale;  /* a drag skipped the breakdown / critical path */
  guint      autosave_timer;
  char      *save_file;      /* Ctrl+S target: one file ... */
  char      *save_dir;       /* ... or a folder of rank<R>_trace<ext> */
  char      *save_ext;
  GtkFileChooserNative *save_dialog; /* the Save As dialog while shown */
  gboolean   closing;        /* the user confirmed closing with unsaved edits */
  gboolean   no_clock_alignment; /* View > Align Rank Clocks off */
  GtkWidget *undo_button;
  GtkWidget *redo_button;
  GtkWidget *save_button;
};

G_DEFINE_FINAL_TYPE (WeftWindow, weft_window, GTK_TYPE_APPLICATION_WINDOW)

static void schedule_state (WeftWindow *self);
static void start_load (WeftWindow *self, char **paths, guint n_paths, const char *display_name);
static void offer_recovery (WeftWindow *self);

/* ---- helpers ----------------------------------------------------------------------- */

static gboolean
is_loading (WeftWindow *self)
{
  return self->cancellable != NULL;
}

static gboolean
is_dark (WeftWindow *self)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  return app != NULL && weft_application_get_dark (WEFT_APPLICATION (app));
}

static void
update_title (WeftWindow *self)
{
  g_autofree char *title = NULL;

  if (self->display_name != NULL && self->trace != NULL)
    title = g_strdup_printf ("%s%s — Weft",
                             self->session != NULL && weft_edit_session_is_modified (self->session) ? "• " : "",
                             self->display_name);
  else if (is_loading (self) && self->display_name != NULL)
    title = g_strdup_printf ("Loading %s — Weft", self->display_name);
  else
    title = g_strdup ("Weft");
  gtk_window_set_title (GTK_WINDOW (self), title);
}

/* The one place that enables and disables the window's actions. */
static void
update_actions (WeftWindow *self)
{
  GActionMap *map = G_ACTION_MAP (self);
  gboolean loading = is_loading (self);
  gboolean has_trace = self->trace != NULL;

#define ENABLE(name, cond) g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (map, name)), (cond))
  ENABLE ("open", !loading);
  ENABLE ("open-folder", !loading);
  ENABLE ("open-recent", !loading);
  ENABLE ("reload", !loading && self->paths != NULL);
  ENABLE ("cancel-load", loading);
  ENABLE ("export", has_trace && !loading);
  ENABLE ("undo", self->session != NULL && !loading && weft_edit_session_can_undo (self->session));
  ENABLE ("redo", self->session != NULL && !loading && weft_edit_session_can_redo (self->session));
  ENABLE ("save", self->session != NULL && !loading);
  ENABLE ("save-as", self->session != NULL && !loading);
  ENABLE ("scale", self->session != NULL && !loading);
  ENABLE ("apply-strategy", self->session != NULL && !loading);
  ENABLE ("align-clocks", has_trace && !loading);
  ENABLE ("toggle-inspector", has_trace);
  ENABLE ("test-screenshot", self->screenshot_path != NULL);
#undef ENABLE
}

static void
set_page (WeftWindow *self, const char *name)
{
  gtk_stack_set_visible_child_name (GTK_STACK (self->stack), name);
  if (strcmp (name, "trace") == 0)
    gtk_widget_grab_focus (self->view);
}

/* ---- test state --------------------------------------------------------------------- */

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

/* The formats Save As offers for a folder of rank files (json.gz first:
 * the default). HTA and Perfetto read .json and .json.gz, not .json.zst;
 * the labels say so. */
static const struct
{
  const char *id;    /* the extension without its dot */
  const char *label;
} save_formats[] = {
  { "json.gz", "json.gz: gzip; HTA and Perfetto read it" },
  { "json", "json: plain text; HTA and Perfetto read it" },
  { "json.zst", "json.zst: zstd, smallest; Weft only (HTA and Perfetto read .json and .json.gz, not .json.zst)" },
};

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
      for (guint i = 0; i < G_N_ELEMENTS (save_formats); i++)
        {
          json_object_array_add (ids, json_object_new_string (save_formats[i].id));
          json_object_array_add (labels, json_object_new_string (save_formats[i].label));
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
rows_to_json (WeftWindow *self, graphene_rect_t *scratch)
{
  WeftTimelineView *view = WEFT_TIMELINE_VIEW (self->view);
  const WeftLayout *layout = weft_timeline_view_get_layout (view);
  const WeftView *v = weft_timeline_view_get_view (view);
  json_object *arr = json_object_new_array ();
  graphene_rect_t body;
  static const char *const kinds[] = { "rank", "lane", "cpu" };

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
      json_object_object_add (o, "kind", json_object_new_string (kinds[CLAMP (row->kind, 0, 2)]));
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
  (void) scratch;
  return arr;
}

static void
write_state (WeftWindow *self)
{
  WeftTimelineView *view = WEFT_TIMELINE_VIEW (self->view);
  json_object *root = json_object_new_object ();
  json_object *groups = json_object_new_array ();
  const char *page = gtk_stack_get_visible_child_name (GTK_STACK (self->stack));
  guint rank_index;
  guint32 event;
  WeftTimeSpan range;
  g_autoptr (GError) error = NULL;
  const char *text;

  json_object_object_add (root, "title", json_object_new_string (gtk_window_get_title (GTK_WINDOW (self))));
  json_object_object_add (root, "page", json_object_new_string (page != NULL ? page : ""));
  json_object_object_add (root, "loading", json_object_new_boolean (is_loading (self)));
  json_object_object_add (root, "loaded", json_object_new_boolean (self->trace != NULL));
  json_object_object_add (root, "path",
                          self->paths != NULL ? json_object_new_string (self->paths[0]) : NULL);
  json_object_object_add (root, "n_errors", json_object_new_int ((int) self->n_errors));
  json_object_object_add (root, "last_error",
                          self->last_error != NULL ? json_object_new_string (self->last_error) : NULL);
  json_object_object_add (root, "error_dialog_open", json_object_new_boolean (self->error_dialog != NULL));
  json_object_object_add (root, "dark", json_object_new_boolean (is_dark (self)));
  {
    GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));
    json_object_object_add (root, "focus", json_object_new_string (focus != NULL ? G_OBJECT_TYPE_NAME (focus) : ""));
  }
  json_object_object_add (root, "screenshots", json_object_new_int ((int) self->n_screenshots));
  add_int64 (root, "frames", weft_timeline_view_get_frames (view));
  {
    const GArray *lat = weft_timeline_view_get_drag_latencies (view);
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
  }
  add_int64 (root, "first_frame_ms", self->first_frame_us / 1000);
  add_int64 (root, "load_ms", self->load_us / 1000);
  add_int64 (root, "solve_ms", self->solve_us / 1000);
  json_object_object_add (root, "width", json_object_new_int (gtk_widget_get_width (self->view)));
  json_object_object_add (root, "recent", json_object_new_int ((int) self->n_recent));
  if (self->trace != NULL && gtk_widget_get_mapped (self->view))
    {
      graphene_rect_t r;
      weft_timeline_view_get_body_rect (view, &r);
      json_object_object_add (root, "body", rect_to_json (self, &r));
      if (weft_timeline_view_get_selection_rect (view, &r))
        json_object_object_add (root, "selection_box", rect_to_json (self, &r));
      json_object_object_add (root, "rows", rows_to_json (self, &r));
      json_object_object_add (root, "side_page",
                              json_object_new_string (gtk_stack_get_visible_child_name (GTK_STACK (self->side_stack))));
      if (gtk_widget_get_mapped (self->palette))
        {
          json_object *items = json_object_new_array ();
          for (guint i = 0; i < 4; i++)
            {
              GtkWidget *item = weft_palette_get_item (WEFT_PALETTE (self->palette), i);
              graphene_rect_t b;
              json_object *o;
              double sx = 0, sy = 0;
              if (item == NULL || !gtk_widget_get_mapped (item) || gtk_widget_get_width (item) <= 0 ||
                  !gtk_widget_compute_bounds (item, GTK_WIDGET (self), &b))
                continue;
              gtk_native_get_surface_transform (GTK_NATIVE (self), &sx, &sy);
              o = json_object_new_object ();
              json_object_object_add (o, "payload", json_object_new_string (weft_palette_item_payload (item)));
              json_object_object_add (o, "x", json_object_new_int ((int) (b.origin.x + sx)));
              json_object_object_add (o, "y", json_object_new_int ((int) (b.origin.y + sy)));
              json_object_object_add (o, "w", json_object_new_int ((int) b.size.width));
              json_object_object_add (o, "h", json_object_new_int ((int) b.size.height));
              json_object_array_add (items, o);
            }
          json_object_object_add (root, "palette_items", items);
          {
            /* the first of each strategy's collectives (the palette's last section) */
            WeftPalette *pal = WEFT_PALETTE (self->palette);
            guint n = weft_palette_get_n_items (pal), k = weft_palette_get_n_strategy_items (pal);
            GtkWidget *item = k > 0 ? weft_palette_get_item (pal, n - k) : NULL;
            graphene_rect_t b;
            double sx = 0, sy = 0;
            if (item != NULL && gtk_widget_get_mapped (item) && gtk_widget_compute_bounds (item, GTK_WIDGET (self), &b))
              {
                json_object *o = json_object_new_object ();
                gtk_native_get_surface_transform (GTK_NATIVE (self), &sx, &sy);
                json_object_object_add (o, "payload", json_object_new_string (weft_palette_item_payload (item)));
                json_object_object_add (o, "x", json_object_new_int ((int) (b.origin.x + sx)));
                json_object_object_add (o, "y", json_object_new_int ((int) (b.origin.y + sy)));
                json_object_object_add (o, "h", json_object_new_int ((int) b.size.height));
                json_object_object_add (root, "palette_strategy_item", o);
              }
          }
        }
    }
  json_object_object_add (root, "height", json_object_new_int (gtk_widget_get_height (self->view)));

  if (self->trace != NULL)
    {
      WeftTimeSpan vis = weft_timeline_view_get_visible (view);
      WeftTimeSpan all = weft_timeline_view_get_trace_span (view);
      json_object *v = json_object_new_object ();
      json_object *t = json_object_new_object ();
      guint n = weft_timeline_view_get_n_groups (view);
      WeftMetrics now, base;

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
      if (weft_timeline_view_get_selection (view, &rank_index, &event))
        {
          WeftRank *rank = weft_trace_rank (self->trace, rank_index);
          json_object *s = json_object_new_object ();
          json_object_object_add (s, "rank", json_object_new_int (rank->rank));
          json_object_object_add (s, "event", json_object_new_int64 (event));
          const WeftEvent *ev = weft_rank_event (rank, event);
          json_object_object_add (s, "name", json_object_new_string (weft_rank_string (rank, ev->name)));
          if (ev->lane != WEFT_NONE)
            json_object_object_add (s, "stream", json_object_new_int64 (weft_rank_lane (rank, ev->lane)->tid));
          json_object_object_add (s, "gpu_op", json_object_new_boolean ((ev->flags & WEFT_EVENT_GPU_OP) != 0));
          if (self->solver != NULL && weft_solver_is_node (self->solver, rank_index, event))
            {
              add_int64 (s, "start", weft_solver_start (self->solver, rank_index, event));
              add_int64 (s, "end", weft_solver_end (self->solver, rank_index, event));
            }
          json_object_object_add (root, "selection", s);
        }
      else
        json_object_object_add (root, "selection", NULL);
      if (weft_timeline_view_get_range (view, &range))
        {
          json_object *r = json_object_new_object ();
          add_int64 (r, "begin", range.begin);
          add_int64 (r, "end", range.end);
          json_object_object_add (root, "range", r);
        }
      else
        json_object_object_add (root, "range", NULL);
      json_object_object_add (root, "inspector",
                              json_object_new_string (weft_inspector_get_title (WEFT_INSPECTOR (self->inspector))));
      json_object_object_add (root, "solver", json_object_new_boolean (self->solver != NULL));
      json_object_object_add (root, "editable", json_object_new_boolean (self->session != NULL));
      if (self->session != NULL)
        {
          json_object_object_add (root, "modified", json_object_new_boolean (weft_edit_session_is_modified (self->session)));
          json_object_object_add (root, "can_undo", json_object_new_boolean (weft_edit_session_can_undo (self->session)));
          json_object_object_add (root, "can_redo", json_object_new_boolean (weft_edit_session_can_redo (self->session)));
          add_int64 (root, "edit_serial", (gint64) weft_edit_session_get_serial (self->session));
          {
            json_object *log = weft_edit_session_log (self->session);
            size_t n_log = json_object_array_length (log);
            json_object_object_add (root, "edits", json_object_new_int ((int) n_log));
            if (n_log > 0)
              json_object_object_add (root, "last_edit", json_object_get (json_object_array_get_idx (log, n_log - 1)));
            json_object_put (log);
          }
          json_object_object_add (root, "dragging",
                                  json_object_new_boolean (weft_timeline_view_is_dragging (WEFT_TIMELINE_VIEW (self->view))));
        }
      if (weft_metrics_bar_get_metrics (WEFT_METRICS_BAR (self->metrics), &now, &base))
        {
          json_object *m = json_object_new_object ();
          add_int64 (m, "step", weft_metrics_bar_get_step (WEFT_METRICS_BAR (self->metrics)));
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
    }
  json_object_object_add (root, "groups", groups);
  if (self->save_dialog != NULL)
    json_object_object_add (root, "save_dialog", save_dialog_state (self->save_dialog));

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

static void
schedule_state (WeftWindow *self)
{
  if (self->state_path == NULL || self->state_idle != 0)
    return;
  self->state_idle = g_idle_add_full (G_PRIORITY_LOW, state_idle_cb, self, NULL);
}

/* ---- screenshot ---------------------------------------------------------------------- */

gboolean
weft_window_save_screenshot (WeftWindow *self, const char *path, GError **error)
{
  g_return_val_if_fail (WEFT_IS_WINDOW (self), FALSE);
  return weft_native_save_png (GTK_NATIVE (self), "window", path, error);
}

static void
take_test_screenshot (WeftWindow *self)
{
  g_autoptr (GError) error = NULL;

  if (self->screenshot_path == NULL)
    return;
  if (weft_window_save_screenshot (self, self->screenshot_path, &error))
    self->n_screenshots++;
  else
    g_warning ("WEFT_TEST_SCREENSHOT: %s", error->message);
  schedule_state (self);
}

static gboolean
screenshot_idle_cb (gpointer data)
{
  WeftWindow *self = data;

  take_test_screenshot (self);
  g_object_unref (self);
  return G_SOURCE_REMOVE;
}

/* ---- errors ---------------------------------------------------------------------------- */

static void
error_response_cb (GtkDialog *dialog, int response, WeftWindow *self)
{
  gtk_window_destroy (GTK_WINDOW (dialog));
  if (self->error_dialog == GTK_WIDGET (dialog))
    self->error_dialog = NULL;
  schedule_state (self);
}

static void
show_error (WeftWindow *self, const char *what, const char *message)
{
  GtkWidget *dialog;

  g_free (self->last_error);
  self->last_error = g_strdup_printf ("%s: %s", what, message);
  self->n_errors++;
  if (self->error_dialog != NULL)
    gtk_window_destroy (GTK_WINDOW (self->error_dialog));
  dialog = gtk_message_dialog_new (GTK_WINDOW (self), GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                   GTK_MESSAGE_ERROR, GTK_BUTTONS_CLOSE, "%s", what);
  gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (dialog), "%s", message);
  gtk_window_set_title (GTK_WINDOW (dialog), "Weft error");
  g_signal_connect (dialog, "response", G_CALLBACK (error_response_cb), self);
  self->error_dialog = dialog;
  gtk_window_present (GTK_WINDOW (dialog));
  schedule_state (self);
}

/* ---- recent files --------------------------------------------------------------------- */

static void
open_recent_row (GtkListBox *box, GtkListBoxRow *row, WeftWindow *self)
{
  const char *uri = g_object_get_data (G_OBJECT (row), "uri");
  g_autoptr (GFile) file = NULL;

  if (uri == NULL || is_loading (self))
    return;
  file = g_file_new_for_uri (uri);
  weft_window_open (self, file);
}

static int
recent_cmp (gconstpointer a, gconstpointer b)
{
  GtkRecentInfo *x = *(GtkRecentInfo **) a, *y = *(GtkRecentInfo **) b;
  GDateTime *dx = gtk_recent_info_get_modified (x);
  GDateTime *dy = gtk_recent_info_get_modified (y);
  return -g_date_time_compare (dx, dy);
}

static void
rebuild_recent (WeftWindow *self)
{
  GtkRecentManager *manager = gtk_recent_manager_get_default ();
  GList *items = gtk_recent_manager_get_items (manager);
  g_autoptr (GPtrArray) mine = g_ptr_array_new ();
  GtkWidget *child;

  for (GList *l = items; l != NULL; l = l->next)
    {
      GtkRecentInfo *info = l->data;
      if (gtk_recent_info_has_application (info, g_get_application_name ()) && gtk_recent_info_exists (info))
        g_ptr_array_add (mine, info);
    }
  g_ptr_array_sort (mine, recent_cmp);

  while ((child = gtk_widget_get_first_child (self->recent_list)) != NULL)
    gtk_list_box_remove (GTK_LIST_BOX (self->recent_list), child);
  g_menu_remove_all (self->recent_menu);

  for (guint i = 0; i < mine->len && i < MAX_RECENT; i++)
    {
      GtkRecentInfo *info = g_ptr_array_index (mine, i);
      const char *uri = gtk_recent_info_get_uri (info);
      g_autofree char *location = gtk_recent_info_get_uri_display (info);
      const char *name = gtk_recent_info_get_display_name (info);
      GtkWidget *row = gtk_list_box_row_new ();
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
      GtkWidget *title = gtk_label_new (name);
      GtkWidget *sub = gtk_label_new (location != NULL ? location : uri);
      g_autoptr (GMenuItem) item = NULL;

      gtk_label_set_xalign (GTK_LABEL (title), 0);
      gtk_label_set_xalign (GTK_LABEL (sub), 0);
      gtk_label_set_ellipsize (GTK_LABEL (sub), PANGO_ELLIPSIZE_MIDDLE);
      gtk_widget_add_css_class (sub, "dim-label");
      gtk_widget_add_css_class (sub, "caption");
      gtk_box_append (GTK_BOX (box), title);
      gtk_box_append (GTK_BOX (box), sub);
      gtk_widget_set_margin_top (box, 6);
      gtk_widget_set_margin_bottom (box, 6);
      gtk_widget_set_margin_start (box, 10);
      gtk_widget_set_margin_end (box, 10);
      gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
      g_object_set_data_full (G_OBJECT (row), "uri", g_strdup (uri), g_free);
      gtk_list_box_append (GTK_LIST_BOX (self->recent_list), row);

      item = g_menu_item_new (name, NULL);
      g_menu_item_set_action_and_target_value (item, "win.open-recent", g_variant_new_string (uri));
      g_menu_append_item (self->recent_menu, item);
    }
  self->n_recent = MIN (mine->len, MAX_RECENT);
  gtk_widget_set_visible (self->recent_title, mine->len > 0);
  gtk_widget_set_visible (self->recent_list, mine->len > 0);
  g_list_free_full (items, (GDestroyNotify) gtk_recent_info_unref);
}

static void
add_recent (WeftWindow *self, const char *path)
{
  GtkRecentData data = { 0 };
  g_autofree char *uri = g_filename_to_uri (path, NULL, NULL);
  gboolean dir = g_file_test (path, G_FILE_TEST_IS_DIR);

  if (uri == NULL)
    return;
  data.display_name = NULL;
  data.mime_type = (char *) (dir ? "inode/directory" : "application/x-kineto-trace");
  data.app_name = (char *) g_get_application_name ();
  data.app_exec = (char *) "weft %u";
  gtk_recent_manager_add_full (gtk_recent_manager_get_default (), uri, &data);
}

/* ---- document ------------------------------------------------------------------------- */

static gboolean
solver_time_func (gpointer user_data, guint rank_index, guint32 event, gint64 *start, gint64 *end)
{
  WeftSolver *solver = user_data;

  weft_solver_times (solver, rank_index, event, start, end);
  return TRUE;
}

static void
update_critical_path (WeftWindow *self)
{
  g_autoptr (GArray) cp = NULL;
  WeftRenderOverlay overlay = { 0 };

  g_clear_pointer (&self->critical, g_free);
  self->n_critical = 0;
  if (self->solver != NULL)
    {
      cp = weft_solver_critical_path (self->solver, weft_metrics_bar_get_step (WEFT_METRICS_BAR (self->metrics)));
      if (cp != NULL && cp->len > 0)
        {
          self->critical = g_new (WeftEventRef, cp->len);
          for (guint i = 0; i < cp->len; i++)
            {
              const WeftCpSegment *s = &g_array_index (cp, WeftCpSegment, i);
              if (self->n_critical > 0 && self->critical[self->n_critical - 1].rank_index == s->rank_index &&
                  self->critical[self->n_critical - 1].event == s->event)
                continue;
              self->critical[self->n_critical].rank_index = s->rank_index;
              self->critical[self->n_critical].event = s->event;
              self->n_critical++;
            }
        }
    }
  overlay.critical_path = self->critical;
  overlay.n_critical_path = self->n_critical;
  weft_timeline_view_set_times (WEFT_TIMELINE_VIEW (self->view), self->solver != NULL ? &self->times : NULL,
                                &overlay);
}

static void update_critical_path (WeftWindow *self);

/* After an edit: the cheap part now (repaint), the rest (metric chips,
 * breakdown, critical path, inspector) once per main-loop turn. */
static gboolean
refresh_idle_cb (gpointer data)
{
  WeftWindow *self = data;
  guint rank_index;
  guint32 event;

  gint64 t0 = g_get_monotonic_time (), t1, t2, t3;
  gboolean dragging = weft_timeline_view_is_dragging (WEFT_TIMELINE_VIEW (self->view));

  self->refresh_idle = 0;
  if (self->solver == NULL)
    return G_SOURCE_REMOVE;
  weft_metrics_bar_refresh (WEFT_METRICS_BAR (self->metrics));
  t1 = g_get_monotonic_time ();
  /* While dragging: the chips only (throttled); the rest when it ends. */
  self->refresh_stale = dragging;
  if (!dragging)
    weft_rank_breakdown_refresh (WEFT_RANK_BREAKDOWN (self->breakdown));
  t2 = g_get_monotonic_time ();
  if (!dragging)
    update_critical_path (self);
  t3 = g_get_monotonic_time ();
  if (g_getenv ("WEFT_DEBUG_TIMING"))
    g_printerr ("refresh: chips %.1f ms, breakdown %.1f ms, critical path %.1f ms\n", (t1 - t0) / 1000.0,
                (t2 - t1) / 1000.0, (t3 - t2) / 1000.0);
  if (!weft_timeline_view_is_dragging (WEFT_TIMELINE_VIEW (self->view)) &&
      weft_timeline_view_get_selection (WEFT_TIMELINE_VIEW (self->view), &rank_index, &event))
    weft_inspector_show_event (WEFT_INSPECTOR (self->inspector), rank_index, event);
  schedule_state (self);
  return G_SOURCE_REMOVE;
}

static void
session_changed_cb (WeftEditSession *session, gpointer user_data)
{
  WeftWindow *self = user_data;

  if (self->solver != NULL)
    self->times.generation = weft_solver_generation (self->solver) + 1;
  weft_timeline_view_model_changed (WEFT_TIMELINE_VIEW (self->view));
  if (self->refresh_idle != 0)
    return;
  if (weft_timeline_view_is_dragging (WEFT_TIMELINE_VIEW (self->view)))
    /* the solver is busy with every pointer motion: chips ~6 times a second */
    self->refresh_idle = g_timeout_add_full (G_PRIORITY_DEFAULT_IDLE, 160, refresh_idle_cb, self, NULL);
  else
    self->refresh_idle = g_idle_add_full (G_PRIORITY_HIGH_IDLE + 30, refresh_idle_cb, self, NULL);
}

static void
session_state_cb (WeftEditSession *session, gboolean is_modified, gboolean can_undo, gboolean can_redo,
                  gpointer user_data)
{
  WeftWindow *self = user_data;

  update_title (self);
  update_actions (self);
  schedule_state (self);
}

static gboolean
autosave_cb (gpointer data)
{
  WeftWindow *self = data;
  g_autoptr (GError) error = NULL;

  /* an in-memory trace (New from Template) has no file to recover against */
  if (self->session != NULL && weft_edit_session_get_source_path (self->session) != NULL &&
      !weft_timeline_view_is_dragging (WEFT_TIMELINE_VIEW (self->view)) &&
      !weft_edit_session_autosave (self->session, &error))
    g_warning ("autosave: %s", error->message);
  return G_SOURCE_CONTINUE;
}

static void
clear_document (WeftWindow *self)
{
  g_clear_handle_id (&self->refresh_idle, g_source_remove);
  g_clear_handle_id (&self->autosave_timer, g_source_remove);
  g_clear_pointer (&self->save_file, g_free);
  g_clear_pointer (&self->save_dir, g_free);
  g_clear_pointer (&self->save_ext, g_free);
  weft_timeline_view_set_session (WEFT_TIMELINE_VIEW (self->view), NULL);
  weft_inspector_set_session (WEFT_INSPECTOR (self->inspector), NULL);
  weft_palette_set_session (WEFT_PALETTE (self->palette), NULL);
  weft_timeline_view_set_times (WEFT_TIMELINE_VIEW (self->view), NULL, NULL);
  weft_timeline_view_set_trace (WEFT_TIMELINE_VIEW (self->view), NULL);
  weft_inspector_set_trace (WEFT_INSPECTOR (self->inspector), NULL, NULL, 0);
  weft_metrics_bar_set_solver (WEFT_METRICS_BAR (self->metrics), NULL);
  weft_rank_breakdown_set_solver (WEFT_RANK_BREAKDOWN (self->breakdown), NULL, WEFT_SOLVER_ALL_STEPS);
  g_clear_pointer (&self->critical, g_free);
  self->n_critical = 0;
  memset (&self->times, 0, sizeof self->times);
  self->solver = NULL;
  if (self->session != NULL)
    {
      g_clear_pointer (&self->session, weft_edit_session_free);
      self->trace = NULL;
    }
  g_clear_pointer (&self->trace, weft_trace_free);
}

static void
set_document (WeftWindow *self, WeftEditSession *session, WeftTrace *trace, char **paths, const char *display_name)
{
  WeftTimelineView *view = WEFT_TIMELINE_VIEW (self->view);
  WeftSolver *solver;

  clear_document (self);
  self->session = session;
  self->trace = session != NULL ? weft_edit_session_get_trace (session) : trace;
  self->solver = solver = session != NULL ? weft_edit_session_get_solver (session) : NULL;
  trace = self->trace;
  if (paths != self->paths)
    {
      g_strfreev (self->paths);
      self->paths = g_strdupv (paths);
    }
  if (display_name != self->display_name)
    {
      g_free (self->display_name);
      self->display_name = g_strdup (display_name);
    }
  self->times.func = solver_time_func;
  self->times.user_data = solver;
  /* the times change only with the solver's generation: the painter keeps
   * the solved times of long rows packed between changes */
  self->times.generation = solver != NULL ? weft_solver_generation (solver) + 1 : 0;
  self->times.n_ranks = trace->ranks->len;
  if (session != NULL)
    {
      weft_edit_session_set_changed_func (session, session_changed_cb, self);
      weft_edit_session_set_state_func (session, session_state_cb, self);
      self->autosave_timer = g_timeout_add_seconds (WEFT_RECOVERY_INTERVAL_S, autosave_cb, self);
    }
  weft_timeline_view_set_session (view, session);
  weft_inspector_set_session (WEFT_INSPECTOR (self->inspector), session);
  weft_palette_set_session (WEFT_PALETTE (self->palette), session);

  weft_timeline_view_set_dark (view, is_dark (self));
  weft_timeline_view_set_trace (view, trace);
  weft_metrics_bar_set_solver (WEFT_METRICS_BAR (self->metrics), solver);
  weft_rank_breakdown_set_solver (WEFT_RANK_BREAKDOWN (self->breakdown), solver,
                                  weft_metrics_bar_get_step (WEFT_METRICS_BAR (self->metrics)));
  update_critical_path (self);
  weft_inspector_set_trace (WEFT_INSPECTOR (self->inspector), trace, solver,
                            weft_timeline_view_get_view (view)->origin);
  update_title (self);
  set_page (self, "trace");
  update_actions (self);
  schedule_state (self);
}

/* ---- loading ----------------------------------------------------------------------------- */

static gboolean
progress_tick (gpointer data)
{
  WeftWindow *self = data;
  guint64 done, total;
  gboolean indexing;

  if (self->job == NULL)
    return G_SOURCE_CONTINUE;
  g_mutex_lock (&self->job->lock);
  done = self->job->done;
  total = self->job->total;
  indexing = self->job->indexing;
  g_mutex_unlock (&self->job->lock);
  if (indexing || (total > 0 && done >= total))
    {
      gtk_progress_bar_pulse (GTK_PROGRESS_BAR (self->progress));
      gtk_label_set_text (GTK_LABEL (self->progress_label), indexing ? "Solving dependencies…" : "Indexing…");
    }
  else if (total > 0)
    {
      g_autofree char *a = weft_format_bytes ((gint64) done);
      g_autofree char *b = weft_format_bytes ((gint64) total);
      g_autofree char *text = g_strdup_printf ("Reading %s of %s", a, b);
      gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (self->progress), (double) done / (double) total);
      gtk_label_set_text (GTK_LABEL (self->progress_label), text);
    }
  return G_SOURCE_CONTINUE;
}

static void
end_loading (WeftWindow *self)
{
  g_clear_handle_id (&self->progress_timer, g_source_remove);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->job, load_job_unref);
}

static void
load_done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  WeftWindow *self = WEFT_WINDOW (source);
  LoadJob *job = g_task_get_task_data (G_TASK (result));
  g_autoptr (GError) error = NULL;
  g_autofree char *page_before = g_steal_pointer (&self->page_before_load);
  g_autofree char *name = NULL;

  if (job != self->job)
    return; /* superseded by a newer load */
  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      gboolean cancelled = g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
                           g_error_matches (error, WEFT_ERROR, WEFT_ERROR_CANCELLED);
      end_loading (self);
      set_page (self, page_before != NULL ? page_before : (self->trace != NULL ? "trace" : "empty"));
      update_title (self);
      update_actions (self);
      if (!cancelled)
        {
          g_autofree char *base = job->n_paths > 0 ? g_path_get_basename (job->paths[0]) : g_strdup ("");
          g_autofree char *what = g_strdup_printf ("Could not open “%s”", base);
          show_error (self, what, error->message);
        }
      schedule_state (self);
      return;
    }

  self->load_us = job->t_loaded - job->t_begin;
  self->solve_us = job->t_solved - job->t_loaded;
  g_debug ("loaded %s: %u ranks in %.0f ms, solved in %.0f ms", job->paths[0], job->session != NULL ? weft_edit_session_get_trace (job->session)->ranks->len : job->trace->ranks->len,
             self->load_us / 1000.0, self->solve_us / 1000.0);
  for (guint i = 0; i < job->n_paths && i < 1; i++)
    add_recent (self, job->paths[i]);
  name = g_strdup (self->display_name);
  set_document (self, g_steal_pointer (&job->session), g_steal_pointer (&job->trace), job->paths, name);
  offer_recovery (self);
  if (job->solver_error != NULL)
    show_error (self, "The dependency solver could not handle this trace; it is shown without solved metrics",
                job->solver_error);
  end_loading (self);
  update_actions (self);
}

static void
start_load (WeftWindow *self, char **paths, guint n_paths, const char *display_name)
{
  g_autoptr (GTask) task = NULL;
  LoadJob *job;

  if (is_loading (self))
    g_cancellable_cancel (self->cancellable);
  end_loading (self);

  job = g_new0 (LoadJob, 1);
  g_atomic_ref_count_init (&job->ref);
  g_mutex_init (&job->lock);
  job->paths = g_new0 (char *, n_paths + 1);
  for (guint i = 0; i < n_paths; i++)
    job->paths[i] = g_strdup (paths[i]);
  job->n_paths = n_paths;
  job->align_clocks = !self->no_clock_alignment;
  self->job = job;

  g_free (self->display_name);
  self->display_name = g_strdup (display_name);
  if (self->page_before_load == NULL)
    self->page_before_load = g_strdup (self->trace != NULL ? "trace" : "empty");

  self->cancellable = g_cancellable_new ();
  gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (self->progress), 0);
  {
    g_autofree char *text = g_strdup_printf ("Opening %s…", display_name);
    gtk_label_set_text (GTK_LABEL (self->progress_label), text);
  }
  self->progress_timer = g_timeout_add (60, progress_tick, self);
  set_page (self, "loading");
  update_title (self);
  update_actions (self);
  schedule_state (self);

  task = g_task_new (self, self->cancellable, load_done_cb, NULL);
  g_task_set_task_data (task, load_job_ref (job), load_job_unref);
  g_task_set_source_tag (task, start_load);
  g_task_run_in_thread (task, load_thread);
}

void
weft_window_open_files (WeftWindow *self, GFile **files, guint n_files)
{
  g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *name = NULL;

  g_return_if_fail (WEFT_IS_WINDOW (self));
  for (guint i = 0; i < n_files; i++)
    {
      char *p = g_file_get_path (files[i]);
      if (p == NULL)
        {
          g_autofree char *uri = g_file_get_uri (files[i]);
          show_error (self, "Could not open a file", uri);
          continue;
        }
      g_ptr_array_add (paths, p);
    }
  if (paths->len == 0)
    return;
  if (paths->len == 1)
    name = g_path_get_basename (g_ptr_array_index (paths, 0));
  else
    {
      g_autofree char *dir = g_path_get_dirname (g_ptr_array_index (paths, 0));
      g_autofree char *base = g_path_get_basename (dir);
      name = g_strdup_printf ("%s (%u files)", base, paths->len);
    }
  g_ptr_array_add (paths, NULL);
  start_load (self, (char **) paths->pdata, paths->len - 1, name);
}

void
weft_window_open (WeftWindow *self, GFile *file)
{
  weft_window_open_files (self, &file, 1);
}

gboolean
weft_window_is_empty (WeftWindow *self)
{
  g_return_val_if_fail (WEFT_IS_WINDOW (self), FALSE);
  return self->trace == NULL && !is_loading (self);
}

WeftEditSession *
weft_window_get_session (WeftWindow *self)
{
  g_return_val_if_fail (WEFT_IS_WINDOW (self), NULL);
  return self->session;
}

void
weft_window_open_session (WeftWindow *self, WeftEditSession *session, const char *display_name)
{
  g_return_if_fail (WEFT_IS_WINDOW (self));
  g_return_if_fail (session != NULL);
  if (is_loading (self))
    g_cancellable_cancel (self->cancellable);
  end_loading (self);
  g_clear_pointer (&self->page_before_load, g_free);
  /* no file behind it: Save asks where (infer_save_target) */
  g_clear_pointer (&self->paths, g_strfreev);
  set_document (self, session, NULL, NULL, display_name);
}

/* ---- actions ------------------------------------------------------------------------------- */

static void
chooser_response_cb (GtkNativeDialog *native, int response, WeftWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GListModel) files = gtk_file_chooser_get_files (GTK_FILE_CHOOSER (native));
      guint n = g_list_model_get_n_items (files);
      g_autoptr (GPtrArray) arr = g_ptr_array_new_with_free_func (g_object_unref);
      for (guint i = 0; i < n; i++)
        g_ptr_array_add (arr, g_list_model_get_item (files, i));
      if (arr->len > 0)
        weft_window_open_files (self, (GFile **) arr->pdata, arr->len);
    }
  g_object_unref (native);
}

static void
add_trace_filters (GtkFileChooser *chooser)
{
  GtkFileFilter *traces = gtk_file_filter_new ();
  GtkFileFilter *all = gtk_file_filter_new ();

  gtk_file_filter_set_name (traces, "Kineto traces (*.json, *.json.gz, *.json.zst)");
  gtk_file_filter_add_pattern (traces, "*.json");
  gtk_file_filter_add_pattern (traces, "*.json.gz");
  gtk_file_filter_add_pattern (traces, "*.json.zst");
  gtk_file_filter_add_mime_type (traces, "application/x-kineto-trace");
  gtk_file_filter_set_name (all, "All files");
  gtk_file_filter_add_pattern (all, "*");
  gtk_file_chooser_add_filter (chooser, traces);
  gtk_file_chooser_add_filter (chooser, all);
  g_object_unref (traces);
  g_object_unref (all);
}

static void
open_dialog (WeftWindow *self, gboolean folder)
{
  GtkFileChooserNative *native = gtk_file_chooser_native_new (folder ? "Open a Trace Folder" : "Open Trace Files",
                                                              GTK_WINDOW (self),
                                                              folder ? GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER
                                                                     : GTK_FILE_CHOOSER_ACTION_OPEN,
                                                              "_Open", "_Cancel");
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  if (!folder)
    {
      gtk_file_chooser_set_select_multiple (GTK_FILE_CHOOSER (native), TRUE);
      add_trace_filters (GTK_FILE_CHOOSER (native));
    }
  g_signal_connect (native, "response", G_CALLBACK (chooser_response_cb), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

static void
open_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  open_dialog (WEFT_WINDOW (user_data), FALSE);
}

static void
open_folder_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  open_dialog (WEFT_WINDOW (user_data), TRUE);
}

static void
open_recent_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  g_autoptr (GFile) file = g_file_new_for_uri (g_variant_get_string (param, NULL));
  weft_window_open (WEFT_WINDOW (user_data), file);
}

static void
reload_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  WeftWindow *self = WEFT_WINDOW (user_data);
  g_auto (GStrv) paths = g_strdupv (self->paths);
  g_autofree char *name = g_strdup (self->display_name);

  if (paths != NULL)
    start_load (self, paths, g_strv_length (paths), name);
}

static void
cancel_load_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  WeftWindow *self = WEFT_WINDOW (user_data);
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
}

static void
close_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  gtk_window_close (GTK_WINDOW (user_data));
}

static void
export_response_cb (GtkNativeDialog *native, int response, WeftWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
      g_autofree char *path = file != NULL ? g_file_get_path (file) : NULL;
      const char *fmt = g_object_get_data (G_OBJECT (native), "format");
      g_autoptr (GError) error = NULL;

      if (path != NULL)
        {
          g_autofree char *lower = g_ascii_strdown (path, -1);
          g_autofree char *ext = g_strdup_printf (".%s", fmt);
          g_autofree char *full = g_str_has_suffix (lower, ext) ? g_strdup (path) : g_strconcat (path, ext, NULL);
          WeftExportFormat f = strcmp (fmt, "svg") == 0 ? WEFT_EXPORT_SVG
                               : strcmp (fmt, "pdf") == 0 ? WEFT_EXPORT_PDF : WEFT_EXPORT_PNG;
          if (!weft_timeline_view_export (WEFT_TIMELINE_VIEW (self->view), full, f, 0, &error))
            show_error (self, "Could not export the view", error->message);
        }
    }
  g_object_unref (native);
}

static void
export_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  WeftWindow *self = WEFT_WINDOW (user_data);
  const char *fmt = g_variant_get_string (param, NULL);
  GtkFileChooserNative *native;
  g_autofree char *title = NULL;
  g_autofree char *name = NULL;
  g_autofree char *stem = NULL;

  if (strcmp (fmt, "png") != 0 && strcmp (fmt, "svg") != 0 && strcmp (fmt, "pdf") != 0)
    return;
  title = g_strdup_printf ("Export the View as %s", fmt);
  native = gtk_file_chooser_native_new (title, GTK_WINDOW (self), GTK_FILE_CHOOSER_ACTION_SAVE, "_Export", "_Cancel");
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  stem = g_strdup (self->display_name != NULL ? self->display_name : "weft");
  for (char *p = stem; *p; p++)
    if (*p == '.' || *p == ' ' || *p == '/')
      *p = '_';
  name = g_strdup_printf ("%s.%s", stem, fmt);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (native), name);
  g_object_set_data_full (G_OBJECT (native), "format", g_strdup (fmt), g_free);
  g_signal_connect (native, "response", G_CALLBACK (export_response_cb), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

/* ---- editing actions --------------------------------------------------------------------------- */

static void
undo_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  WeftWindow *self = WEFT_WINDOW (user_data);
  g_autoptr (GError) error = NULL;
  gboolean undo = strcmp (g_action_get_name (G_ACTION (action)), "undo") == 0;

  if (self->session == NULL || weft_timeline_view_is_dragging (WEFT_TIMELINE_VIEW (self->view)))
    return;
  if (!(undo ? weft_edit_session_undo (self->session, &error) : weft_edit_session_redo (self->session, &error)))
    show_error (self, undo ? "Could not undo" : "Could not redo", error->message);
}

static char *
rank_file_ext (const char *path)
{
  const char *exts[] = { ".json.zst", ".json.gz", ".json" };
  for (guint i = 0; i < G_N_ELEMENTS (exts); i++)
    if (g_str_has_suffix (path, exts[i]))
      return g_strdup (exts[i]);
  return NULL;
}

/* Where Ctrl+S writes without asking: back over the loaded file (one rank),
 * or over a folder whose files are all rank<R>_trace<ext> (what Weft
 * writes). Any other layout asks once (Save As), so that saving never
 * leaves two files of one rank in a folder. */
static gboolean
infer_save_target (WeftWindow *self)
{
  g_autofree char *dir = NULL;
  g_autofree char *ext = NULL;

  if (self->save_file != NULL || self->save_dir != NULL)
    return TRUE;
  if (self->paths == NULL)
    return FALSE; /* an in-memory trace (New from Template): Save As */
  if (self->trace->ranks->len == 1)
    {
      WeftRank *rank = weft_trace_rank (self->trace, 0);
      g_autofree char *e = rank->path != NULL ? rank_file_ext (rank->path) : NULL;
      if (e == NULL)
        return FALSE;
      self->save_file = g_strdup (rank->path);
      return TRUE;
    }
  for (guint i = 0; i < self->trace->ranks->len; i++)
    {
      WeftRank *rank = weft_trace_rank (self->trace, i);
      g_autofree char *d = NULL;
      g_autofree char *base = NULL;
      g_autofree char *e = NULL;
      g_autofree char *want = NULL;

      if (rank->path == NULL || (e = rank_file_ext (rank->path)) == NULL)
        return FALSE;
      d = g_path_get_dirname (rank->path);
      base = g_path_get_basename (rank->path);
      want = g_strdup_printf ("rank%d_trace%s", rank->rank, e);
      if (strcmp (base, want) != 0 || (dir != NULL && strcmp (d, dir) != 0) || (ext != NULL && strcmp (e, ext) != 0))
        return FALSE;
      if (dir == NULL)
        {
          dir = g_steal_pointer (&d);
          ext = g_steal_pointer (&e);
        }
    }
  self->save_dir = g_steal_pointer (&dir);
  self->save_ext = g_steal_pointer (&ext);
  return self->save_dir != NULL;
}

static gboolean
save_now (WeftWindow *self)
{
  g_autoptr (GError) error = NULL;
  gboolean ok;

  if (self->save_file != NULL)
    ok = weft_edit_session_save (self->session, self->save_file, NULL, &error);
  else
    ok = weft_edit_session_save (self->session, self->save_dir, self->save_ext, &error);
  if (!ok)
    {
      show_error (self, "Could not save the trace", error->message);
      return FALSE;
    }
  update_title (self);
  update_actions (self);
  schedule_state (self);
  return TRUE;
}

static void save_as (WeftWindow *self);

static void
save_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  WeftWindow *self = WEFT_WINDOW (user_data);

  if (self->session == NULL || weft_timeline_view_is_dragging (WEFT_TIMELINE_VIEW (self->view)))
    return;
  if (strcmp (g_action_get_name (G_ACTION (action)), "save") == 0 && infer_save_target (self))
    save_now (self);
  else
    save_as (self);
}

static void
save_as_response_cb (GtkNativeDialog *native, int response, WeftWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT && self->session != NULL)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
      g_autofree char *path = file != NULL ? g_file_get_path (file) : NULL;

      if (path != NULL)
        {
          g_clear_pointer (&self->save_file, g_free);
          g_clear_pointer (&self->save_dir, g_free);
          g_clear_pointer (&self->save_ext, g_free);
          if (self->trace->ranks->len == 1)
            {
              g_autofree char *e = rank_file_ext (path);
              self->save_file = e != NULL ? g_strdup (path) : g_strconcat (path, ".json.gz", NULL);
            }
          else
            {
              const char *fmt = gtk_file_chooser_get_choice (GTK_FILE_CHOOSER (native), "format");
              self->save_dir = g_strdup (path);
              self->save_ext = g_strconcat (".", fmt != NULL ? fmt : "json.gz", NULL);
            }
          if (save_now (self))
            {
              g_autofree char *target = g_strdup (self->save_file != NULL ? self->save_file : self->save_dir);
              g_autofree char *name = g_path_get_basename (target);
              char *paths[] = { target, NULL };
              g_strfreev (self->paths);
              self->paths = g_strdupv (paths);
              g_free (self->display_name);
              self->display_name = g_steal_pointer (&name);
              add_recent (self, target);
              update_title (self);
            }
        }
    }
  self->save_dialog = NULL;
  schedule_state (self);
  g_object_unref (native);
}

static void
save_as (WeftWindow *self)
{
  gboolean one = self->trace->ranks->len == 1;
  GtkFileChooserNative *native =
    gtk_file_chooser_native_new (one ? "Save the Trace (.json, .json.gz or .json.zst; HTA and Perfetto read .json "
                                       "and .json.gz)"
                                     : "Save the Trace into a Folder (one file per rank)",
                                 GTK_WINDOW (self),
                                 one ? GTK_FILE_CHOOSER_ACTION_SAVE : GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER, "_Save",
                                 "_Cancel");
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  if (one)
    {
      WeftRank *rank = weft_trace_rank (self->trace, 0);
      g_autofree char *e = rank->path != NULL ? rank_file_ext (rank->path) : NULL;
      g_autofree char *name = g_strdup_printf ("rank%d_trace%s", rank->rank, e != NULL ? e : ".json.gz");
      gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (native), name);
    }
  else
    {
      /* a folder of rank<R>_trace<ext>: the format is a choice, json.gz
       * by default (not the input's: .zst is Weft's own) */
      const char *ids[G_N_ELEMENTS (save_formats) + 1] = { NULL };
      const char *labels[G_N_ELEMENTS (save_formats) + 1] = { NULL };
      for (guint i = 0; i < G_N_ELEMENTS (save_formats); i++)
        {
          ids[i] = save_formats[i].id;
          labels[i] = save_formats[i].label;
        }
      gtk_file_chooser_add_choice (GTK_FILE_CHOOSER (native), "format", "Format", ids, labels);
      gtk_file_chooser_set_choice (GTK_FILE_CHOOSER (native), "format", "json.gz");
      g_object_set_data (G_OBJECT (native), "weft-format", GINT_TO_POINTER (1));
    }
  g_signal_connect (native, "response", G_CALLBACK (save_as_response_cb), self);
  self->save_dialog = native;
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
  schedule_state (self);
}

static void
close_response_cb (GtkDialog *dialog, int response, WeftWindow *self)
{
  gtk_window_destroy (GTK_WINDOW (dialog));
  if (response == GTK_RESPONSE_REJECT) /* discard */
    {
      if (self->paths != NULL)
        weft_recovery_discard (self->paths[0]);
      self->closing = TRUE;
      gtk_window_close (GTK_WINDOW (self));
    }
  else if (response == GTK_RESPONSE_ACCEPT) /* save */
    {
      if (infer_save_target (self))
        {
          if (save_now (self))
            {
              self->closing = TRUE;
              gtk_window_close (GTK_WINDOW (self));
            }
        }
      else
        save_as (self);
    }
}

static gboolean
close_request_cb (GtkWindow *window, gpointer user_data)
{
  WeftWindow *self = WEFT_WINDOW (window);
  GtkWidget *dialog;

  if (self->closing || self->session == NULL || !weft_edit_session_is_modified (self->session))
    return FALSE;
  dialog = gtk_message_dialog_new (window, GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT, GTK_MESSAGE_QUESTION,
                                   GTK_BUTTONS_NONE, "Save the edits to “%s” before closing?",
                                   self->display_name != NULL ? self->display_name : "the trace");
  gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (dialog),
                                            "Unsaved edits are kept in a recovery file only until you close.");
  gtk_dialog_add_buttons (GTK_DIALOG (dialog), "_Discard", GTK_RESPONSE_REJECT, "_Cancel", GTK_RESPONSE_CANCEL,
                          "_Save", GTK_RESPONSE_ACCEPT, NULL);
  gtk_dialog_set_default_response (GTK_DIALOG (dialog), GTK_RESPONSE_ACCEPT);
  gtk_window_set_title (GTK_WINDOW (dialog), "Weft unsaved edits");
  g_signal_connect (dialog, "response", G_CALLBACK (close_response_cb), self);
  gtk_window_present (GTK_WINDOW (dialog));
  return TRUE;
}

static void
recovery_response_cb (GtkDialog *dialog, int response, WeftWindow *self)
{
  const char *recovery = g_object_get_data (G_OBJECT (dialog), "recovery");
  const char *trace_path = g_object_get_data (G_OBJECT (dialog), "trace");
  g_autoptr (GError) error = NULL;

  if (response == GTK_RESPONSE_ACCEPT && self->session != NULL &&
      g_strcmp0 (trace_path, self->paths != NULL ? self->paths[0] : NULL) == 0)
    {
      if (!weft_recovery_apply (self->session, recovery, &error))
        show_error (self, "Could not restore the unsaved edits", error->message);
    }
  else if (response == GTK_RESPONSE_REJECT)
    weft_recovery_discard (trace_path);
  gtk_window_destroy (GTK_WINDOW (dialog));
  schedule_state (self);
}

/* After a crash: offers to restore the edits autosaved for this trace. */
static void
offer_recovery (WeftWindow *self)
{
  g_autofree char *recovery = NULL;
  GtkWidget *dialog;

  if (self->session == NULL || self->paths == NULL || (recovery = weft_recovery_find (self->paths[0])) == NULL)
    return;
  if (g_getenv ("WEFT_RESTORE") != NULL) /* tests and scripts: answer without asking */
    {
      g_autoptr (GError) error = NULL;
      if (strcmp (g_getenv ("WEFT_RESTORE"), "yes") == 0 && !weft_recovery_apply (self->session, recovery, &error))
        show_error (self, "Could not restore the unsaved edits", error->message);
      return;
    }
  dialog = gtk_message_dialog_new (GTK_WINDOW (self), GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                   GTK_MESSAGE_QUESTION, GTK_BUTTONS_NONE, "Restore unsaved edits?");
  gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (dialog),
                                            "Weft was closed without saving the edits made to this trace. "
                                            "They were kept in %s.", recovery);
  gtk_dialog_add_buttons (GTK_DIALOG (dialog), "_Discard", GTK_RESPONSE_REJECT, "_Restore", GTK_RESPONSE_ACCEPT, NULL);
  gtk_dialog_set_default_response (GTK_DIALOG (dialog), GTK_RESPONSE_ACCEPT);
  gtk_window_set_title (GTK_WINDOW (dialog), "Weft recovery");
  g_object_set_data_full (G_OBJECT (dialog), "recovery", g_steal_pointer (&recovery), g_free);
  g_object_set_data_full (G_OBJECT (dialog), "trace", g_strdup (self->paths[0]), g_free);
  g_signal_connect (dialog, "response", G_CALLBACK (recovery_response_cb), self);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
edit_error_cb (gpointer source, const char *what, const char *message, WeftWindow *self)
{
  show_error (self, what, message);
}

/* Menu > Scale Durations…: "all GEMMs x0.8", "all all-gathers x0.5". */
typedef struct
{
  const char     *label;
  WeftKernelClass kclass;   /* WEFT_KCLASS_NONE: a collective type */
  WeftCollType    coll;
} ScaleTarget;

static const ScaleTarget scale_targets[] = {
  { "GEMM kernels", WEFT_KCLASS_GEMM, WEFT_COLL_NONE },
  { "Attention kernels", WEFT_KCLASS_ATTENTION, WEFT_COLL_NONE },
  { "Normalisation kernels", WEFT_KCLASS_NORM, WEFT_COLL_NONE },
  { "Elementwise kernels", WEFT_KCLASS_ELEMENTWISE, WEFT_COLL_NONE },
  { "Reduction kernels", WEFT_KCLASS_REDUCTION, WEFT_COLL_NONE },
  { "Optimizer kernels", WEFT_KCLASS_OPTIMIZER, WEFT_COLL_NONE },
  { "Copies (memcpy / memset)", WEFT_KCLASS_COPY, WEFT_COLL_NONE },
  { "Other kernels", WEFT_KCLASS_OTHER, WEFT_COLL_NONE },
  { "All collectives (transfer time)", WEFT_KCLASS_COMM, WEFT_COLL_NONE },
  { "All-reduces", WEFT_KCLASS_NONE, WEFT_COLL_ALL_REDUCE },
  { "All-gathers", WEFT_KCLASS_NONE, WEFT_COLL_ALL_GATHER },
  { "Reduce-scatters", WEFT_KCLASS_NONE, WEFT_COLL_REDUCE_SCATTER },
  { "All-to-alls", WEFT_KCLASS_NONE, WEFT_COLL_ALL_TO_ALL },
  { "Send / recv", WEFT_KCLASS_NONE, WEFT_COLL_SEND_RECV },
  { "Broadcasts", WEFT_KCLASS_NONE, WEFT_COLL_BROADCAST },
};

static void
scale_response_cb (GtkDialog *dialog, int response, WeftWindow *self)
{
  GtkDropDown *what = g_object_get_data (G_OBJECT (dialog), "what");
  GtkSpinButton *factor = g_object_get_data (G_OBJECT (dialog), "factor");

  if (response == GTK_RESPONSE_OK && self->session != NULL)
    {
      guint i = gtk_drop_down_get_selected (what);
      double f = gtk_spin_button_get_value (factor);
      g_autoptr (GError) error = NULL;
      guint n = 0;
      gboolean ok = FALSE;

      if (i < G_N_ELEMENTS (scale_targets))
        {
          const ScaleTarget *t = &scale_targets[i];
          if (t->kclass != WEFT_KCLASS_NONE)
            ok = weft_edit_scale_class (self->session, t->kclass, f, &n, &error);
          else
            ok = weft_edit_scale_collective (self->session, t->coll, f, &n, &error);
          if (!ok)
            show_error (self, "Could not scale the durations", error->message);
          else if (n == 0)
            show_error (self, "Nothing was scaled", "The trace has no such operations.");
        }
    }
  gtk_window_destroy (GTK_WINDOW (dialog));
}

static void
scale_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  WeftWindow *self = WEFT_WINDOW (user_data);
  GtkWidget *dialog, *grid, *what, *factor;
  g_autoptr (GtkStringList) list = gtk_string_list_new (NULL);

  if (self->session == NULL)
    return;
  for (guint i = 0; i < G_N_ELEMENTS (scale_targets); i++)
    gtk_string_list_append (list, scale_targets[i].label);
  dialog = gtk_dialog_new_with_buttons ("Scale Durations", GTK_WINDOW (self),
                                        GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT | GTK_DIALOG_USE_HEADER_BAR,
                                        "_Cancel", GTK_RESPONSE_CANCEL, "_Scale", GTK_RESPONSE_OK, NULL);
  gtk_dialog_set_default_response (GTK_DIALOG (dialog), GTK_RESPONSE_OK);
  grid = gtk_grid_new ();
  gtk_grid_set_row_spacing (GTK_GRID (grid), 8);
  gtk_grid_set_column_spacing (GTK_GRID (grid), 12);
  gtk_widget_set_margin_start (grid, 18);
  gtk_widget_set_margin_end (grid, 18);
  gtk_widget_set_margin_top (grid, 18);
  gtk_widget_set_margin_bottom (grid, 18);
  what = gtk_drop_down_new (G_LIST_MODEL (g_object_ref (list)), NULL);
  factor = gtk_spin_button_new_with_range (0.01, 100, 0.05);
  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (factor), 2);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (factor), 0.8);
  gtk_grid_attach (GTK_GRID (grid), gtk_label_new ("Every"), 0, 0, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), what, 1, 0, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), gtk_label_new ("Duration ×"), 0, 1, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), factor, 1, 1, 1, 1);
  {
    GtkWidget *note = gtk_label_new ("0.8 = 20% faster. Collectives scale their transfer time on every rank; "
                                     "everything that depends on them is re-timed. One undo entry.");
    gtk_label_set_wrap (GTK_LABEL (note), TRUE);
    gtk_label_set_max_width_chars (GTK_LABEL (note), 40);
    gtk_widget_add_css_class (note, "dim-label");
    gtk_grid_attach (GTK_GRID (grid), note, 0, 2, 2, 1);
  }
  gtk_box_append (GTK_BOX (gtk_dialog_get_content_area (GTK_DIALOG (dialog))), grid);
  g_object_set_data (G_OBJECT (dialog), "what", what);
  g_object_set_data (G_OBJECT (dialog), "factor", factor);
  g_signal_connect (dialog, "response", G_CALLBACK (scale_response_cb), self);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
template_created_cb (WeftTemplateDialog *dialog, gpointer session, const char *name, WeftWindow *self)
{
  WeftWindow *target = self;

  if (!weft_window_is_empty (self))
    {
      target = weft_window_new (WEFT_APPLICATION (gtk_window_get_application (GTK_WINDOW (self))));
      gtk_window_present (GTK_WINDOW (target));
    }
  weft_window_open_session (target, session, name);
}

static void
apply_strategy_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  WeftWindow *self = WEFT_WINDOW (user_data);
  GtkWidget *dialog;

  if (self->session == NULL || weft_timeline_view_is_dragging (WEFT_TIMELINE_VIEW (self->view)))
    return;
  dialog = weft_apply_dialog_new (GTK_WINDOW (self), self->session);
  g_signal_connect_object (dialog, "created", G_CALLBACK (template_created_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
new_from_template_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  WeftWindow *self = WEFT_WINDOW (user_data);
  GtkWidget *dialog = weft_template_dialog_new (GTK_WINDOW (self));

  g_signal_connect_object (dialog, "created", G_CALLBACK (template_created_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

static gboolean
late_state_cb (gpointer data)
{
  schedule_state (WEFT_WINDOW (data));
  return G_SOURCE_REMOVE;
}

/* View > Align Rank Clocks: the estimated per-rank clock offsets on or off.
 * The solver works on the common timeline, so the trace is read again. */
static void
align_clocks_changed (GSimpleAction *action, GVariant *value, gpointer user_data)
{
  WeftWindow *self = WEFT_WINDOW (user_data);
  gboolean on = g_variant_get_boolean (value);

  if (self->session != NULL && weft_edit_session_is_modified (self->session))
    {
      show_error (self, "Save or undo the edits first",
                  "Turning the clock alignment on or off reads the trace again; unsaved edits would be lost.");
      return;
    }
  g_simple_action_set_state (action, value);
  self->no_clock_alignment = !on;
  if (self->paths != NULL && !is_loading (self))
    {
      g_auto (GStrv) paths = g_strdupv (self->paths);
      g_autofree char *name = g_strdup (self->display_name);
      start_load (self, paths, g_strv_length (paths), name);
    }
}

static void
side_page_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  WeftWindow *self = WEFT_WINDOW (user_data);
  const char *page = g_variant_get_string (param, NULL);

  if (strcmp (page, "inspector") == 0 || strcmp (page, "palette") == 0)
    {
      gtk_widget_set_visible (self->side, TRUE);
      gtk_stack_set_visible_child_name (GTK_STACK (self->side_stack), page);
      /* again once the page is laid out (the palette rows' positions) */
      g_timeout_add_full (G_PRIORITY_LOW, 200, late_state_cb, g_object_ref (self), g_object_unref);
    }
}

static void
palette_drop_cb (WeftTimelineView *view, const char *payload, guint rank_index, guint lane, gint64 at,
                 WeftWindow *self)
{
  const WeftPaletteKernel *k = weft_palette_lookup_kernel (WEFT_PALETTE (self->palette), payload);
  const WeftPaletteCollective *c = weft_palette_lookup_collective (WEFT_PALETTE (self->palette), payload);
  WeftOpRef op = { WEFT_NONE, WEFT_NONE };
  g_autoptr (GError) error = NULL;
  gboolean ok = FALSE;

  if (self->session == NULL)
    return;
  if (k != NULL)
    ok = weft_edit_insert_kernel (self->session, rank_index, lane, at, k, k->median_dur, &op, &error);
  else if (c != NULL)
    {
      WeftEditCollSpec spec = { 0 };
      WeftRank *rank = weft_trace_rank (self->trace, rank_index);
      g_autofree int *group = NULL;
      spec.type = c->type;
      spec.bytes = c->median_bytes > 0 ? c->median_bytes : 1 << 20;
      spec.ranks = c->ranks;
      spec.n_ranks = c->n_ranks;
      if (weft_strategy_palette_is_item (c))
        {
          /* a strategy's collective: on the group of the rank it is dropped on */
          group = weft_strategy_palette_group (self->trace, c, rank_index, &spec.n_ranks);
          spec.ranks = group;
        }
      spec.stream = weft_rank_lane (rank, lane)->tid;
      spec.at_time = at;
      spec.pg_name = c->pg_name;
      spec.dtype = c->dtype;
      spec.transfer_ns = -1;
      ok = weft_edit_insert_collective (self->session, &spec, &op, &error);
    }
  else
    return;
  if (!ok)
    show_error (self, "Could not insert it there", error->message);
  else if (op.event != WEFT_NONE)
    weft_timeline_view_select (view, op.rank_index, op.event);
}

static const char shortcuts_ui[] =
  "<interface>"
  "<object class='GtkShortcutsWindow' id='shortcuts'><property name='modal'>1</property>"
  "<child><object class='GtkShortcutsSection'><property name='section-name'>main</property>"
  "<property name='max-height'>12</property>"
  "<child><object class='GtkShortcutsGroup'><property name='title'>Files</property>"
  "<child><object class='GtkShortcutsShortcut'><property name='title'>Open trace files</property><property name='accelerator'>&lt;Control&gt;o</property></object></child>"
  "<child><object class='GtkShortcutsShortcut'><property name='title'>Open a trace folder</property><property name='accelerator'>&lt;Control&gt;&lt;Shift&gt;o</property></object></child>"
  "<child><object class='GtkShortcutsShortcut'><property name='title'>Reload</property><property name='accelerator'>F5</property></object></child>"
  "<child><object class='GtkShortcutsShortcut'><property name='title'>Export the view as PNG</property><property name='accelerator'>&lt;Control&gt;e</property></object></child>"
  "<child><object class='GtkShortcutsShortcut'><property name='title'>Cancel loading</property><property name='accelerator'>&lt;Control&gt;period</property></object></child>"
  "<child><object class='GtkShortcutsShortcut'><property name='title'>New window</property><property name='accelerator'>&lt;Control&gt;n</property></object></child>"
  "<child><object class='GtkShortcutsShortcut'><property name='title'>New from template</property><property name='accelerator'>&lt;Control&gt;&lt;Shift&gt;n</property></object></child>"
  "<child><object class='GtkShortcutsShortcut'><property name='title'>Close window</property><property name='accelerator'>&lt;Control&gt;w</property></object></child>"
  "<child><object class='GtkShortcutsShortcut'><property name='title'>Quit</property><property name='accelerator'>&lt;Control&gt;q</property></object></child>"
  "</object></child>"
  "<child><object class='GtkShortcutsGroup'><property name='title'>Navigation</property>"
  "<child><object class='GtkShortcutsShortcut'><property name='title'>Zoom in / out at the pointer</property><property name='accelerator'>w s</property></object></child>"
  "<child><object class='GtkShortcutsShortcut'><property name='title'>Pan left / right</property><property name='accelerator'>a d</property></object></child>"
  "<child><object class='GtkShortcutsShortcut'><property name='title'>Zoom</property><property name='accelerator'>&lt;Control&gt;</property><property name='subtitle'>with the mouse wheel</property></object></child>"
  "<child><object class='GtkShortcutsShortcut'><property name='title'>Pan</property><property name='accelerator'>&lt;Shift&gt;</property><property name='subtitle'>with the mouse wheel</property></object></child>"
  "<child><object class='GtkShortcutsShortcut'><property name='title'>Scroll lanes</property><property name='accelerator'>Up Down Page_Up Page_Down</property></object></child>"
  "<child><object class='GtkShortcutsShortcut'><property name='title'>Fit everything</property><property name='accelerator'>0</property></object></child>"
  "<child><object class='GtkShortcutsShortcut'><property name='title'>Focus the selection or range</property><property name='accelerator'>f</property></object></child>"
  "</object></child>"
  "<child><object class='GtkShortcutsGroup'><property name='title'>Selection and search</property>"
  "<child><object class='GtkShortcutsShortcut'><property name='title'>Previous / next event on the lane</property><property name='accelerator'>Left Right</property></object></child>"
  "<child><object class='GtkShortcutsShortcut'><property name='title'>Clear the selection</property><property name='accelerator'>Escape</property></object></child>"
  "<child><object class='GtkShortcutsShortcut'><property name='title'>Search by name (substring or regex)</property><property name='accelerator'>&lt;Control&gt;f slash</property></object></child>"
  "<child><object class='GtkShortcutsShortcut'><property name='title'>Next / previous match</property><property name='accelerator'>F3 &lt;Shift&gt;F3</property></object></child>"
  "</object></child>"
  "<child><object class='GtkShortcutsGroup'><property name='title'>Editing</property>"
  "<child><object class='GtkShortcutsShortcut'><property name='title'>Undo</property><property name='accelerator'>&lt;Control&gt;z</property></object></child>"
  "<child><object class='GtkShortcutsShortcut'><property name='title'>Redo</property><property name='accelerator'>&lt;Control&gt;&lt;Shift&gt;z &lt;Control&gt;y</property></object></child>"
  "<child><object class='GtkShortcutsShortcut'><property name='title'>Delete the selected op</property><property name='accelerator'>Delete</property></object></child>"
  "<child><object class='GtkShortcutsShortcut'><property name='title'>Duplicate the selected op</property><property name='accelerator'>&lt;Control&gt;d</property></object></child>"
  "<child><object class='GtkShortcutsShortcut'><property name='title'>Move one rank of a collective (while dragging)</property><property name='accelerator'>&lt;Shift&gt;</property></object></child>"
  "<child><object class='GtkShortcutsShortcut'><property name='title'>Cancel a drag</property><property name='accelerator'>Escape</property></object></child>"
  "<child><object class='GtkShortcutsShortcut'><property name='title'>Save</property><property name='accelerator'>&lt;Control&gt;s</property></object></child>"
  "<child><object class='GtkShortcutsShortcut'><property name='title'>Save as</property><property name='accelerator'>&lt;Control&gt;&lt;Shift&gt;s</property></object></child>"
  "<child><object class='GtkShortcutsShortcut'><property name='title'>Apply a strategy</property><property name='accelerator'>&lt;Control&gt;&lt;Shift&gt;a</property></object></child>"
  "</object></child>"
  "<child><object class='GtkShortcutsGroup'><property name='title'>View</property>"
  "<child><object class='GtkShortcutsShortcut'><property name='title'>Collapse / expand all ranks</property><property name='accelerator'>bracketleft bracketright</property></object></child>"
  "<child><object class='GtkShortcutsShortcut'><property name='title'>CPU threads as lanes</property><property name='accelerator'>t</property></object></child>"
  "<child><object class='GtkShortcutsShortcut'><property name='title'>Critical path</property><property name='accelerator'>c</property></object></child>"
  "<child><object class='GtkShortcutsShortcut'><property name='title'>Overlap band</property><property name='accelerator'>b</property></object></child>"
  "<child><object class='GtkShortcutsShortcut'><property name='title'>Launch flows and collective links</property><property name='accelerator'>l</property></object></child>"
  "<child><object class='GtkShortcutsShortcut'><property name='title'>Inspector</property><property name='accelerator'>&lt;Control&gt;i</property></object></child>"
  "<child><object class='GtkShortcutsShortcut'><property name='title'>Show the inspector / the palette</property><property name='accelerator'>&lt;Control&gt;1 &lt;Control&gt;2</property></object></child>"
  "<child><object class='GtkShortcutsShortcut'><property name='title'>Keyboard shortcuts</property><property name='accelerator'>&lt;Control&gt;question</property></object></child>"
  "</object></child>"
  "</object></child></object></interface>";

static void
show_shortcuts_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  WeftWindow *self = WEFT_WINDOW (user_data);
  g_autoptr (GtkBuilder) builder = gtk_builder_new_from_string (shortcuts_ui, -1);
  GtkWindow *win = GTK_WINDOW (gtk_builder_get_object (builder, "shortcuts"));

  gtk_window_set_transient_for (win, GTK_WINDOW (self));
  gtk_window_present (win);
}

static void
toggle_inspector_changed (GSimpleAction *action, GVariant *value, gpointer user_data)
{
  WeftWindow *self = WEFT_WINDOW (user_data);

  g_simple_action_set_state (action, value);
  gtk_widget_set_visible (self->side, g_variant_get_boolean (value));
}

static void
test_screenshot_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  take_test_screenshot (WEFT_WINDOW (user_data));
}

/* ---- signals --------------------------------------------------------------------------------- */

static void
view_changed_cb (WeftTimelineView *view, WeftWindow *self)
{
  schedule_state (self);
}

static void
selection_changed_cb (WeftTimelineView *view, WeftWindow *self)
{
  guint rank_index;
  guint32 event;
  WeftTimeSpan range;

  if (self->trace == NULL)
    return;
  if (self->refresh_stale && !weft_timeline_view_is_dragging (view))
    {
      /* a drag just ended: bring everything up to date now */
      g_clear_handle_id (&self->refresh_idle, g_source_remove);
      refresh_idle_cb (self);
    }
  if (weft_timeline_view_get_selection (view, &rank_index, &event))
    weft_inspector_show_event (WEFT_INSPECTOR (self->inspector), rank_index, event);
  else if (weft_timeline_view_get_range (view, &range))
    weft_inspector_show_range (WEFT_INSPECTOR (self->inspector), range, self->solver != NULL ? &self->times : NULL);
  else
    weft_inspector_show_summary (WEFT_INSPECTOR (self->inspector));
  schedule_state (self);
}

static void
first_frame_cb (WeftTimelineView *view, WeftWindow *self)
{
  self->first_frame_us = g_get_monotonic_time () - weft_app_start_time ();
  if (g_getenv ("WEFT_BENCH_STARTUP") != NULL)
    {
      g_print ("weft: first frame %.1f ms after start (load %.1f ms, solve %.1f ms)\n", self->first_frame_us / 1000.0,
               self->load_us / 1000.0, self->solve_us / 1000.0);
      g_application_quit (G_APPLICATION (gtk_window_get_application (GTK_WINDOW (self))));
      return;
    }
  if (self->screenshot_path != NULL && !self->screenshot_pending)
    {
      self->screenshot_pending = TRUE;
      g_idle_add (screenshot_idle_cb, g_object_ref (self));
    }
  schedule_state (self);
}

static void
search_requested_cb (WeftTimelineView *view, WeftWindow *self)
{
  gtk_search_bar_set_search_mode (GTK_SEARCH_BAR (self->search_bar), TRUE);
  gtk_widget_grab_focus (self->search_entry);
}

static void
run_search (WeftWindow *self, int direction)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->search_entry));
  gboolean regex = gtk_check_button_get_active (GTK_CHECK_BUTTON (self->search_regex));
  g_autoptr (GError) error = NULL;
  int n = weft_timeline_view_search (WEFT_TIMELINE_VIEW (self->view), text, regex, direction, &error);
  g_autofree char *status = NULL;

  if (n < 0)
    {
      status = g_strdup_printf ("bad pattern: %s", error->message);
      gtk_widget_add_css_class (self->search_entry, "error");
    }
  else
    {
      gtk_widget_remove_css_class (self->search_entry, "error");
      if (*text == '\0')
        status = g_strdup ("");
      else if (n == 0)
        status = g_strdup ("no match");
      else
        status = g_strdup_printf ("%d of %d", weft_timeline_view_get_match_position (WEFT_TIMELINE_VIEW (self->view)) + 1, n);
    }
  gtk_label_set_text (GTK_LABEL (self->search_status), status);
}

static void
search_changed_cb (GtkSearchEntry *entry, WeftWindow *self)
{
  run_search (self, 0);
}

static void
search_next_cb (GtkWidget *w, WeftWindow *self)
{
  run_search (self, 1);
}

static void
search_prev_cb (GtkWidget *w, WeftWindow *self)
{
  run_search (self, -1);
}

static void
search_stop_cb (GtkSearchEntry *entry, WeftWindow *self)
{
  gtk_search_bar_set_search_mode (GTK_SEARCH_BAR (self->search_bar), FALSE);
  gtk_widget_grab_focus (self->view);
}

static void
regex_toggled_cb (GtkCheckButton *button, WeftWindow *self)
{
  run_search (self, 0);
}

static void
step_changed_cb (WeftMetricsBar *bar, WeftWindow *self)
{
  if (self->solver == NULL)
    return;
  weft_rank_breakdown_set_solver (WEFT_RANK_BREAKDOWN (self->breakdown), self->solver,
                                  weft_metrics_bar_get_step (bar));
  update_critical_path (self);
  schedule_state (self);
}

static void
dark_changed_cb (GObject *app, GParamSpec *pspec, WeftWindow *self)
{
  gboolean dark = is_dark (self);
  weft_timeline_view_set_dark (WEFT_TIMELINE_VIEW (self->view), dark);
  weft_rank_breakdown_set_dark (WEFT_RANK_BREAKDOWN (self->breakdown), dark);
  schedule_state (self);
}

/* Keys nobody else took (the focus is on a button, the palette, the
 * inspector...) go to the timeline, so W/A/S/D, F, 0, Delete... work as in
 * Perfetto wherever the focus is. Entries keep their keys: they take them
 * first. */
static gboolean
window_key_cb (GtkEventControllerKey *controller, guint keyval, guint keycode, GdkModifierType state,
               WeftWindow *self)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));

  if (self->trace == NULL || g_strcmp0 (gtk_stack_get_visible_child_name (GTK_STACK (self->stack)), "trace") != 0)
    return FALSE;
  if (focus != NULL && (focus == self->view || gtk_widget_is_ancestor (focus, self->view)))
    return FALSE;
  return gtk_event_controller_key_forward (GTK_EVENT_CONTROLLER_KEY (controller), self->view);
}

static gboolean
drop_cb (GtkDropTarget *target, const GValue *value, double x, double y, WeftWindow *self)
{
  GSList *files;
  g_autoptr (GPtrArray) arr = g_ptr_array_new ();

  if (!G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST) || is_loading (self))
    return FALSE;
  files = gdk_file_list_get_files (g_value_get_boxed (value));
  for (GSList *l = files; l != NULL; l = l->next)
    g_ptr_array_add (arr, l->data);
  if (arr->len > 0)
    weft_window_open_files (self, (GFile **) arr->pdata, arr->len);
  g_slist_free (files);
  return arr->len > 0;
}

/* ---- construction ------------------------------------------------------------------------------ */

static GtkWidget *
build_empty_page (WeftWindow *self)
{
  GtkWidget *outer = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  GtkWidget *icon = gtk_image_new_from_icon_name (WEFT_APPLICATION_ID);
  GtkWidget *title = gtk_label_new ("Open a trace");
  GtkWidget *sub = gtk_label_new ("PyTorch profiler (Kineto) traces: one JSON per rank (.json, .json.gz, "
                                  ".json.zst), or a folder of ranks. Drop files or a folder here.");
  GtkWidget *buttons = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *open = gtk_button_new_with_mnemonic ("_Open Files…");
  GtkWidget *folder = gtk_button_new_with_mnemonic ("Open _Folder…");
  GtkWidget *scrolled = gtk_scrolled_window_new ();

  gtk_widget_set_valign (box, GTK_ALIGN_CENTER);
  gtk_widget_set_halign (box, GTK_ALIGN_CENTER);
  gtk_widget_set_vexpand (box, TRUE);
  gtk_widget_set_size_request (box, 460, -1);
  gtk_image_set_pixel_size (GTK_IMAGE (icon), 96);
  gtk_widget_add_css_class (icon, "weft-empty-icon");
  gtk_widget_add_css_class (title, "title-1");
  gtk_widget_add_css_class (title, "weft-empty-title");
  gtk_label_set_wrap (GTK_LABEL (sub), TRUE);
  gtk_label_set_justify (GTK_LABEL (sub), GTK_JUSTIFY_CENTER);
  gtk_label_set_max_width_chars (GTK_LABEL (sub), 60);
  gtk_widget_add_css_class (sub, "dim-label");
  gtk_widget_set_halign (buttons, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (open, "suggested-action");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (open), "win.open");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (folder), "win.open-folder");
  gtk_box_append (GTK_BOX (buttons), open);
  gtk_box_append (GTK_BOX (buttons), folder);
  {
    GtkWidget *tmpl = gtk_button_new_with_mnemonic ("New from _Template…");
    gtk_actionable_set_action_name (GTK_ACTIONABLE (tmpl), "win.new-from-template");
    gtk_box_append (GTK_BOX (buttons), tmpl);
  }

  self->recent_title = gtk_label_new ("Recent");
  gtk_widget_add_css_class (self->recent_title, "heading");
  gtk_label_set_xalign (GTK_LABEL (self->recent_title), 0);
  gtk_widget_set_margin_top (self->recent_title, 18);
  self->recent_list = gtk_list_box_new ();
  gtk_widget_add_css_class (self->recent_list, "boxed-list");
  gtk_widget_add_css_class (self->recent_list, "frame");
  gtk_list_box_set_selection_mode (GTK_LIST_BOX (self->recent_list), GTK_SELECTION_NONE);
  gtk_list_box_set_activate_on_single_click (GTK_LIST_BOX (self->recent_list), TRUE);
  g_signal_connect (self->recent_list, "row-activated", G_CALLBACK (open_recent_row), self);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (scrolled), 320);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scrolled), TRUE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), self->recent_list);

  gtk_box_append (GTK_BOX (box), icon);
  gtk_box_append (GTK_BOX (box), title);
  gtk_box_append (GTK_BOX (box), sub);
  gtk_box_append (GTK_BOX (box), buttons);
  gtk_box_append (GTK_BOX (box), self->recent_title);
  gtk_box_append (GTK_BOX (box), scrolled);
  gtk_box_append (GTK_BOX (outer), box);
  return outer;
}

static GtkWidget *
build_loading_page (WeftWindow *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  GtkWidget *cancel = gtk_button_new_with_mnemonic ("_Cancel");

  gtk_widget_set_valign (box, GTK_ALIGN_CENTER);
  gtk_widget_set_halign (box, GTK_ALIGN_CENTER);
  gtk_widget_set_size_request (box, 420, -1);
  self->progress_label = gtk_label_new ("");
  gtk_label_set_ellipsize (GTK_LABEL (self->progress_label), PANGO_ELLIPSIZE_MIDDLE);
  self->progress = gtk_progress_bar_new ();
  gtk_progress_bar_set_pulse_step (GTK_PROGRESS_BAR (self->progress), 0.08);
  gtk_widget_set_halign (cancel, GTK_ALIGN_CENTER);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (cancel), "win.cancel-load");
  gtk_box_append (GTK_BOX (box), self->progress_label);
  gtk_box_append (GTK_BOX (box), self->progress);
  gtk_box_append (GTK_BOX (box), cancel);
  return box;
}

static GtkWidget *
build_trace_page (WeftWindow *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *sbox = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *prev = gtk_button_new_from_icon_name ("go-up-symbolic");
  GtkWidget *next = gtk_button_new_from_icon_name ("go-down-symbolic");
  GtkWidget *breakdown_title = gtk_label_new ("Per-rank breakdown");
  GtkWidget *breakdown_box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  GtkWidget *view_scroller;

  /* search bar */
  self->search_entry = gtk_search_entry_new ();
  gtk_widget_set_size_request (self->search_entry, 320, -1);
  g_object_set (self->search_entry, "placeholder-text", "Search event names", NULL);
  self->search_regex = gtk_check_button_new_with_label ("Regex");
  self->search_status = gtk_label_new ("");
  gtk_widget_add_css_class (self->search_status, "dim-label");
  gtk_widget_set_tooltip_text (prev, "Previous match (Shift+F3)");
  gtk_widget_set_tooltip_text (next, "Next match (F3)");
  gtk_box_append (GTK_BOX (sbox), self->search_entry);
  gtk_box_append (GTK_BOX (sbox), prev);
  gtk_box_append (GTK_BOX (sbox), next);
  gtk_box_append (GTK_BOX (sbox), self->search_regex);
  gtk_box_append (GTK_BOX (sbox), self->search_status);
  self->search_bar = gtk_search_bar_new ();
  gtk_search_bar_set_child (GTK_SEARCH_BAR (self->search_bar), sbox);
  gtk_search_bar_connect_entry (GTK_SEARCH_BAR (self->search_bar), GTK_EDITABLE (self->search_entry));
  gtk_search_bar_set_show_close_button (GTK_SEARCH_BAR (self->search_bar), TRUE);
  g_signal_connect (self->search_entry, "search-changed", G_CALLBACK (search_changed_cb), self);
  g_signal_connect (self->search_entry, "activate", G_CALLBACK (search_next_cb), self);
  g_signal_connect (self->search_entry, "next-match", G_CALLBACK (search_next_cb), self);
  g_signal_connect (self->search_entry, "previous-match", G_CALLBACK (search_prev_cb), self);
  g_signal_connect (self->search_entry, "stop-search", G_CALLBACK (search_stop_cb), self);
  g_signal_connect (next, "clicked", G_CALLBACK (search_next_cb), self);
  g_signal_connect (prev, "clicked", G_CALLBACK (search_prev_cb), self);
  g_signal_connect (self->search_regex, "toggled", G_CALLBACK (regex_toggled_cb), self);

  /* timeline | side pane */
  self->view = weft_timeline_view_new ();
  g_signal_connect (self->view, "view-changed", G_CALLBACK (view_changed_cb), self);
  g_signal_connect (self->view, "layout-changed", G_CALLBACK (view_changed_cb), self);
  g_signal_connect (self->view, "selection-changed", G_CALLBACK (selection_changed_cb), self);
  g_signal_connect (self->view, "search-requested", G_CALLBACK (search_requested_cb), self);
  g_signal_connect (self->view, "first-frame", G_CALLBACK (first_frame_cb), self);
  g_signal_connect (self->view, "edit-error", G_CALLBACK (edit_error_cb), self);
  g_signal_connect (self->view, "palette-drop", G_CALLBACK (palette_drop_cb), self);

  self->inspector = weft_inspector_new ();
  g_signal_connect (self->inspector, "edit-error", G_CALLBACK (edit_error_cb), self);
  gtk_widget_set_vexpand (self->inspector, TRUE);
  self->breakdown = weft_rank_breakdown_new ();
  gtk_widget_add_css_class (breakdown_title, "heading");
  gtk_label_set_xalign (GTK_LABEL (breakdown_title), 0);
  gtk_box_append (GTK_BOX (breakdown_box), breakdown_title);
  {
    /* many ranks: the bars scroll, the inspector keeps its room */
    GtkWidget *bscroll = gtk_scrolled_window_new ();
    gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (bscroll), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
    gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (bscroll), TRUE);
    gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (bscroll), 220);
    gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (bscroll), self->breakdown);
    gtk_box_append (GTK_BOX (breakdown_box), bscroll);
  }
  gtk_widget_set_margin_start (breakdown_box, 12);
  gtk_widget_set_margin_end (breakdown_box, 12);
  gtk_widget_set_margin_top (breakdown_box, 8);
  gtk_widget_set_margin_bottom (breakdown_box, 10);

  self->palette = weft_palette_new ();
  gtk_widget_set_vexpand (self->palette, TRUE);
  self->side_stack = gtk_stack_new ();
  gtk_stack_add_titled (GTK_STACK (self->side_stack), self->inspector, "inspector", "Inspector");
  gtk_stack_add_titled (GTK_STACK (self->side_stack), self->palette, "palette", "Palette");
  gtk_widget_set_vexpand (self->side_stack, TRUE);
  {
    GtkWidget *switcher = gtk_stack_switcher_new ();
    gtk_stack_switcher_set_stack (GTK_STACK_SWITCHER (switcher), GTK_STACK (self->side_stack));
    gtk_widget_set_halign (switcher, GTK_ALIGN_CENTER);
    gtk_widget_set_margin_top (switcher, 6);
    self->side = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
    gtk_widget_add_css_class (self->side, "weft-side");
    gtk_box_append (GTK_BOX (self->side), switcher);
  }
  gtk_box_append (GTK_BOX (self->side), self->side_stack);
  gtk_box_append (GTK_BOX (self->side), gtk_separator_new (GTK_ORIENTATION_HORIZONTAL));
  gtk_box_append (GTK_BOX (self->side), breakdown_box);

  view_scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (view_scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (view_scroller), self->view);
  self->paned = gtk_paned_new (GTK_ORIENTATION_HORIZONTAL);
  gtk_paned_set_start_child (GTK_PANED (self->paned), view_scroller);
  gtk_paned_set_end_child (GTK_PANED (self->paned), self->side);
  gtk_paned_set_resize_start_child (GTK_PANED (self->paned), TRUE);
  gtk_paned_set_resize_end_child (GTK_PANED (self->paned), FALSE);
  gtk_paned_set_shrink_end_child (GTK_PANED (self->paned), FALSE);
  gtk_widget_set_vexpand (self->paned, TRUE);

  gtk_box_append (GTK_BOX (box), self->search_bar);
  gtk_box_append (GTK_BOX (box), self->paned);
  return box;
}

static GMenuModel *
build_main_menu (void)
{
  GMenu *menu = g_menu_new ();
  GMenu *files = g_menu_new ();
  GMenu *export = g_menu_new ();
  GMenu *edit = g_menu_new ();
  GMenu *view = g_menu_new ();
  GMenu *app = g_menu_new ();

  g_menu_append (files, "New Window", "app.new-window");
  g_menu_append (files, "New from Template…", "win.new-from-template");
  g_menu_append (files, "Open Folder…", "win.open-folder");
  g_menu_append (files, "Reload", "win.reload");
  g_menu_append (files, "Save As…", "win.save-as");
  g_menu_append (edit, "Scale Durations…", "win.scale");
  g_menu_append (edit, "Apply a Strategy…", "win.apply-strategy");
  g_menu_append (export, "Export View as PNG…", "win.export::png");
  g_menu_append (export, "Export View as SVG…", "win.export::svg");
  g_menu_append (export, "Export View as PDF…", "win.export::pdf");
  g_menu_append (view, "Inspector", "win.toggle-inspector");
  g_menu_append (view, "Dark Style", "app.dark");
  g_menu_append (view, "Align Rank Clocks", "win.align-clocks");
  g_menu_append (app, "Keyboard Shortcuts", "win.show-shortcuts");
  g_menu_append (app, "About Weft", "app.about");
  g_menu_append (app, "Quit", "app.quit");
  g_menu_append_section (menu, NULL, G_MENU_MODEL (files));
  g_menu_append_section (menu, NULL, G_MENU_MODEL (edit));
  g_menu_append_section (menu, NULL, G_MENU_MODEL (export));
  g_menu_append_section (menu, NULL, G_MENU_MODEL (view));
  g_menu_append_section (menu, NULL, G_MENU_MODEL (app));
  g_object_unref (files);
  g_object_unref (export);
  g_object_unref (edit);
  g_object_unref (view);
  g_object_unref (app);
  return G_MENU_MODEL (menu);
}

static void
install_css (void)
{
  static gboolean done;
  GtkCssProvider *provider;
  GdkDisplay *display = gdk_display_get_default ();

  if (done || display == NULL)
    return;
  done = TRUE;
  provider = gtk_css_provider_new ();
  gtk_css_provider_load_from_data (provider,
                                   ".weft-chip { padding: 2px 8px; border-radius: 10px;"
                                   "  background: alpha(currentColor, 0.08); font-feature-settings: 'tnum'; }"
                                   ".weft-empty-icon { opacity: 0.9; }"
                                   ".title-1 { font-size: 20pt; font-weight: 800; }"
                                   ".title-3 { font-size: 13pt; font-weight: 700; }"
                                   ".heading { font-weight: 700; }"
                                   ".caption { font-size: 9pt; }"
                                   ".weft-inspector-section { margin-top: 10px; }"
                                   ".numeric { font-feature-settings: 'tnum'; }"
                                   "weft-timeline:focus-visible { outline: none; }",
                                   -1);
  gtk_style_context_add_provider_for_display (display, GTK_STYLE_PROVIDER (provider),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
  g_object_unref (provider);
}

static void
weft_window_dispose (GObject *object)
{
  WeftWindow *self = WEFT_WINDOW (object);

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  end_loading (self);
  g_clear_handle_id (&self->state_idle, g_source_remove);
  if (self->view != NULL)
    clear_document (self);
  g_signal_handlers_disconnect_by_data (gtk_recent_manager_get_default (), self);
  G_OBJECT_CLASS (weft_window_parent_class)->dispose (object);
}

static void
weft_window_finalize (GObject *object)
{
  WeftWindow *self = WEFT_WINDOW (object);

  g_clear_object (&self->recent_menu);
  g_strfreev (self->paths);
  g_free (self->display_name);
  g_free (self->page_before_load);
  g_free (self->last_error);
  g_free (self->state_path);
  g_free (self->screenshot_path);
  g_free (self->save_file);
  g_free (self->save_dir);
  g_free (self->save_ext);
  G_OBJECT_CLASS (weft_window_parent_class)->finalize (object);
}

static void
weft_window_class_init (WeftWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = weft_window_dispose;
  object_class->finalize = weft_window_finalize;
}

static void
recent_changed_cb (GtkRecentManager *manager, WeftWindow *self)
{
  rebuild_recent (self);
}

static void
weft_window_init (WeftWindow *self)
{
  static const GActionEntry entries[] = {
    { "open", open_activated, NULL, NULL, NULL },
    { "open-folder", open_folder_activated, NULL, NULL, NULL },
    { "open-recent", open_recent_activated, "s", NULL, NULL },
    { "reload", reload_activated, NULL, NULL, NULL },
    { "cancel-load", cancel_load_activated, NULL, NULL, NULL },
    { "close", close_activated, NULL, NULL, NULL },
    { "export", export_activated, "s", NULL, NULL },
    { "show-shortcuts", show_shortcuts_activated, NULL, NULL, NULL },
    { "toggle-inspector", NULL, NULL, "true", toggle_inspector_changed },
    { "test-screenshot", test_screenshot_activated, NULL, NULL, NULL },
    { "undo", undo_activated, NULL, NULL, NULL },
    { "redo", undo_activated, NULL, NULL, NULL },
    { "save", save_activated, NULL, NULL, NULL },
    { "save-as", save_activated, NULL, NULL, NULL },
    { "scale", scale_activated, NULL, NULL, NULL },
    { "side-page", side_page_activated, "s", NULL, NULL },
    { "align-clocks", NULL, NULL, "true", align_clocks_changed },
    { "new-from-template", new_from_template_activated, NULL, NULL, NULL },
    { "apply-strategy", apply_strategy_activated, NULL, NULL, NULL },
  };
  GtkWidget *open_box, *open, *menu_button;
  GtkDropTarget *drop;
  g_autoptr (GMenuModel) main_menu = build_main_menu ();
  GtkShortcutController *shortcuts;

  install_css ();
  self->state_path = g_strdup (g_getenv ("WEFT_TEST_STATE"));
  self->screenshot_path = g_strdup (g_getenv ("WEFT_TEST_SCREENSHOT"));
  if (self->state_path != NULL && *self->state_path == '\0')
    g_clear_pointer (&self->state_path, g_free);
  if (self->screenshot_path != NULL && *self->screenshot_path == '\0')
    g_clear_pointer (&self->screenshot_path, g_free);

  g_action_map_add_action_entries (G_ACTION_MAP (self), entries, G_N_ELEMENTS (entries), self);

  gtk_window_set_default_size (GTK_WINDOW (self), 1400, 860);
  gtk_window_set_title (GTK_WINDOW (self), "Weft");
  gtk_window_set_icon_name (GTK_WINDOW (self), WEFT_APPLICATION_ID);

  /* header bar */
  self->header = gtk_header_bar_new ();
  open_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  gtk_widget_add_css_class (open_box, "linked");
  open = gtk_button_new_with_mnemonic ("_Open");
  gtk_widget_set_tooltip_text (open, "Open trace files (Ctrl+O)");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (open), "win.open");
  self->recent_menu = g_menu_new ();
  self->recent_menu_button = gtk_menu_button_new ();
  gtk_widget_set_tooltip_text (self->recent_menu_button, "Recent traces");
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (self->recent_menu_button), G_MENU_MODEL (self->recent_menu));
  gtk_box_append (GTK_BOX (open_box), open);
  gtk_box_append (GTK_BOX (open_box), self->recent_menu_button);
  gtk_header_bar_pack_start (GTK_HEADER_BAR (self->header), open_box);
  self->save_button = gtk_button_new_from_icon_name ("document-save-symbolic");
  gtk_widget_set_tooltip_text (self->save_button, "Save the edited trace (Ctrl+S)");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (self->save_button), "win.save");
  gtk_header_bar_pack_start (GTK_HEADER_BAR (self->header), self->save_button);
  {
    GtkWidget *undo_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
    gtk_widget_add_css_class (undo_box, "linked");
    self->undo_button = gtk_button_new_from_icon_name ("edit-undo-symbolic");
    gtk_widget_set_tooltip_text (self->undo_button, "Undo (Ctrl+Z)");
    gtk_actionable_set_action_name (GTK_ACTIONABLE (self->undo_button), "win.undo");
    self->redo_button = gtk_button_new_from_icon_name ("edit-redo-symbolic");
    gtk_widget_set_tooltip_text (self->redo_button, "Redo (Ctrl+Shift+Z)");
    gtk_actionable_set_action_name (GTK_ACTIONABLE (self->redo_button), "win.redo");
    gtk_box_append (GTK_BOX (undo_box), self->undo_button);
    gtk_box_append (GTK_BOX (undo_box), self->redo_button);
    gtk_header_bar_pack_start (GTK_HEADER_BAR (self->header), undo_box);
  }

  menu_button = gtk_menu_button_new ();
  gtk_menu_button_set_icon_name (GTK_MENU_BUTTON (menu_button), "open-menu-symbolic");
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (menu_button), main_menu);
  gtk_widget_set_tooltip_text (menu_button, "Main menu");
  gtk_header_bar_pack_end (GTK_HEADER_BAR (self->header), menu_button);
  self->metrics = weft_metrics_bar_new ();
  g_signal_connect (self->metrics, "step-changed", G_CALLBACK (step_changed_cb), self);
  gtk_header_bar_pack_end (GTK_HEADER_BAR (self->header), self->metrics);
  gtk_window_set_titlebar (GTK_WINDOW (self), self->header);

  /* pages */
  self->stack = gtk_stack_new ();
  gtk_stack_set_transition_type (GTK_STACK (self->stack), GTK_STACK_TRANSITION_TYPE_NONE);
  gtk_stack_add_named (GTK_STACK (self->stack), build_empty_page (self), "empty");
  gtk_stack_add_named (GTK_STACK (self->stack), build_loading_page (self), "loading");
  gtk_stack_add_named (GTK_STACK (self->stack), build_trace_page (self), "trace");
  gtk_stack_set_visible_child_name (GTK_STACK (self->stack), "empty");
  gtk_window_set_child (GTK_WINDOW (self), self->stack);

  /* Ctrl+F anywhere in the window starts a search (the view's own binding
   * needs the focus). */
  shortcuts = GTK_SHORTCUT_CONTROLLER (gtk_shortcut_controller_new ());
  gtk_shortcut_controller_set_scope (shortcuts, GTK_SHORTCUT_SCOPE_GLOBAL);
  gtk_shortcut_controller_add_shortcut (shortcuts,
                                        gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_F5, 0),
                                                          gtk_named_action_new ("win.reload")));
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (shortcuts));

  {
    GtkEventController *keys = gtk_event_controller_key_new ();
    g_signal_connect (keys, "key-pressed", G_CALLBACK (window_key_cb), self);
    gtk_widget_add_controller (GTK_WIDGET (self), keys);
  }
  drop = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
  g_signal_connect (drop, "drop", G_CALLBACK (drop_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));

  g_signal_connect (gtk_recent_manager_get_default (), "changed", G_CALLBACK (recent_changed_cb), self);
  g_signal_connect (self, "close-request", G_CALLBACK (close_request_cb), NULL);
  rebuild_recent (self);
  update_actions (self);
}

WeftWindow *
weft_window_new (WeftApplication *app)
{
  WeftWindow *self = g_object_new (WEFT_TYPE_WINDOW, "application", app, NULL);

  g_signal_connect_object (app, "notify::dark", G_CALLBACK (dark_changed_cb), self, 0);
  dark_changed_cb (G_OBJECT (app), NULL, self);
  schedule_state (self);
  return self;
}
