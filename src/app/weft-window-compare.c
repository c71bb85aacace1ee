/* weft-window-compare.c: comparing the window's trace with another
 * (weft-compare-view.c), a room of the window:
 *
 *   - Compare With… (win.compare-with): the window's trace (A, as the
 *     session shows it now) above another trace loaded here (B);
 *   - Compare with the Trace as Loaded (win.compare-loaded): the files
 *     loaded again (A) above the edited session (B);
 *   - `weft --compare A B` (weft_window_open_compare): A is loaded as the
 *     window's document, then B as above;
 *   - New from Template's Keep as A, then Create Compared: the kept
 *     configuration as the document (A), the form's as B;
 *   - the header's Schedule menu (weft-window-pipeline.c): the document (A)
 *     above the same composed step under another pipeline schedule (B);
 *   - win.compare-close goes back to the trace page.
 *
 * The compare page ("compare" in the stack) is added on first use. The
 * other side's document is owned here and dropped with the page, and the
 * page is dropped whenever the window's document goes (clear_document). */
#include "config.h"

#include <json-c/json.h>

#include "weft/weft.h"
#include "weft-compare-view.h"
#include "weft-metrics-bar.h"
#include "weft-window-private.h"

struct _WeftWindowCompare
{
  GtkWidget       *view;        /* WeftCompareView, in the stack once made */
  WeftEditSession *other;       /* the other side's document */
  WeftTrace       *other_trace; /* ... without a solver (then nothing is compared) */
  gboolean         other_is_a;  /* the trace as loaded (A) against the session (B) */
  char            *other_label;
  char            *pending;     /* weft --compare: B, loaded once A is */
  GCancellable    *cancellable;
  gboolean         shown;
};

static WeftWindowCompare *
compare_get (WeftWindow *self)
{
  if (self->compare == NULL)
    self->compare = g_new0 (WeftWindowCompare, 1);
  return self->compare;
}

static void
drop_other (WeftWindowCompare *c)
{
  if (c->view != NULL)
    weft_compare_view_set (WEFT_COMPARE_VIEW (c->view), NULL, NULL, NULL, NULL);
  g_clear_pointer (&c->other, weft_edit_session_free);
  g_clear_pointer (&c->other_trace, weft_trace_free);
  g_clear_pointer (&c->other_label, g_free);
}

static void
close_page (WeftWindow *self)
{
  WeftWindowCompare *c = self->compare;

  if (c == NULL)
    return;
  if (c->cancellable != NULL)
    {
      /* a load of the other side in flight: the progress was its */
      g_cancellable_cancel (c->cancellable);
      _weft_window_progress_end (self);
    }
  g_clear_object (&c->cancellable);
  drop_other (c);
  if (c->shown)
    {
      c->shown = FALSE;
      gtk_widget_set_visible (self->metrics, TRUE);
      gtk_stack_set_visible_child_name (GTK_STACK (self->stack), self->trace != NULL ? "trace" : "empty");
      if (self->trace != NULL)
        gtk_widget_grab_focus (self->view);
    }
}

static void
dark_changed_cb (GObject *app, GParamSpec *pspec, WeftWindow *self)
{
  if (self->compare != NULL && self->compare->view != NULL)
    weft_compare_view_set_dark (WEFT_COMPARE_VIEW (self->compare->view), _weft_window_is_dark (self));
}

static void
size_changed_cb (GObject *window, GParamSpec *pspec, gpointer data)
{
  _weft_window_schedule_state (WEFT_WINDOW (window));
}

static void
show_page (WeftWindow *self)
{
  WeftWindowCompare *c = self->compare;
  WeftSolver *mine = self->solver;
  WeftSolver *other = c->other != NULL ? weft_edit_session_get_solver (c->other) : NULL;
  g_autofree char *mine_label = NULL;

  if (mine == NULL || other == NULL)
    {
      _weft_window_show_error (self, "Could not compare",
                               "The dependency solver could not handle one of the traces: there is nothing to compare.");
      close_page (self);
      return;
    }
  if (c->view == NULL)
    {
      c->view = weft_compare_view_new ();
      gtk_stack_add_named (GTK_STACK (self->stack), c->view, "compare");
      for (int side = 0; side < 2; side++)
        {
          WeftTimelineView *tv = weft_compare_view_get_timeline (WEFT_COMPARE_VIEW (c->view), side);
          g_signal_connect_swapped (tv, "view-changed", G_CALLBACK (_weft_window_schedule_state), self);
          g_signal_connect_swapped (tv, "selection-changed", G_CALLBACK (_weft_window_schedule_state), self);
          g_signal_connect_swapped (tv, "first-frame", G_CALLBACK (_weft_window_schedule_state), self);
        }
      g_signal_connect_object (gtk_window_get_application (GTK_WINDOW (self)), "notify::dark",
                               G_CALLBACK (dark_changed_cb), self, 0);
      /* a resize moves the timelines (the test state's rectangles) */
      g_signal_connect (self, "notify::default-width", G_CALLBACK (size_changed_cb), NULL);
      g_signal_connect (self, "notify::default-height", G_CALLBACK (size_changed_cb), NULL);
    }
  mine_label = c->other_is_a ? g_strdup_printf ("%s (edited)", self->display_name ? self->display_name : "")
                             : g_strdup (self->display_name ? self->display_name : "");
  weft_compare_view_set_dark (WEFT_COMPARE_VIEW (c->view), _weft_window_is_dark (self));
  _weft_window_compare_set_color (self, self->color_microbatch);
  if (c->other_is_a)
    weft_compare_view_set (WEFT_COMPARE_VIEW (c->view), other, c->other_label, mine, mine_label);
  else
    weft_compare_view_set (WEFT_COMPARE_VIEW (c->view), mine, mine_label, other, c->other_label);
  {
    /* both sides compare the step the main view shows (a side without a
     * step of that number: its first one) */
    int step = weft_metrics_bar_get_step (WEFT_METRICS_BAR (self->metrics));
    weft_compare_view_set_steps (WEFT_COMPARE_VIEW (c->view), step, step);
  }
  c->shown = TRUE;
  gtk_widget_set_visible (self->metrics, FALSE);
  gtk_stack_set_visible_child_name (GTK_STACK (self->stack), "compare");
  /* the keys go to A's timeline, not to the hidden main one (which kept
   * the focus across the page switch) */
  gtk_widget_grab_focus (GTK_WIDGET (weft_compare_view_get_timeline (WEFT_COMPARE_VIEW (c->view), WEFT_DIFF_A)));
  _weft_window_update_title (self);
  _weft_window_update_actions (self);
  _weft_window_schedule_state (self);
}

/* The other side's load ended. user_data: a reference on the window. */
static void
other_loaded_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (WeftWindow) self = user_data;
  g_autoptr (WeftLoadResult) loaded = NULL;
  g_autoptr (GError) error = NULL;
  WeftWindowCompare *c = self->compare;

  if (c == NULL || c->cancellable == NULL || g_task_get_cancellable (G_TASK (result)) != c->cancellable)
    {
      loaded = weft_trace_load_finish (result, NULL); /* superseded */
      return;
    }
  g_clear_object (&c->cancellable);
  _weft_window_progress_end (self);
  loaded = weft_trace_load_finish (result, &error);
  if (loaded == NULL)
    {
      g_autofree char *what = g_strdup_printf ("Could not open “%s” to compare", c->other_label);
      gtk_stack_set_visible_child_name (GTK_STACK (self->stack), self->trace != NULL ? "trace" : "empty");
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) &&
          !g_error_matches (error, WEFT_ERROR, WEFT_ERROR_CANCELLED))
        _weft_window_show_error (self, what, error->message);
      drop_other (c);
      _weft_window_update_actions (self);
      _weft_window_schedule_state (self);
      return;
    }
  c->other = g_steal_pointer (&loaded->session);
  c->other_trace = g_steal_pointer (&loaded->trace);
  show_page (self);
}

/* Loads paths (the other side) and shows the comparison when done. */
static void
load_other (WeftWindow *self, char **paths, const char *label, gboolean other_is_a)
{
  WeftWindowCompare *c = compare_get (self);
  WeftLoadProgress *progress;

  close_page (self);
  c->other_is_a = other_is_a;
  c->other_label = g_strdup (label);
  c->cancellable = g_cancellable_new ();
  {
    g_autofree char *text = g_strdup_printf ("Opening %s to compare…", label);
    progress = _weft_window_progress_begin (self, text);
  }
  gtk_stack_set_visible_child_name (GTK_STACK (self->stack), "loading");
  weft_trace_load_async ((const char *const *) paths, g_strv_length (paths),
                         self->no_clock_alignment ? WEFT_LOAD_NO_CLOCK_ALIGNMENT : WEFT_LOAD_FLAGS_NONE, progress,
                         c->cancellable, other_loaded_cb, g_object_ref (self));
  _weft_window_update_actions (self);
  _weft_window_schedule_state (self);
}

static void
load_other_path (WeftWindow *self, const char *path)
{
  char *paths[2] = { (char *) path, NULL };
  g_autofree char *label = g_path_get_basename (path);
  load_other (self, paths, label, FALSE);
}

/* ---- actions ---------------------------------------------------------------------------- */

static void
chooser_response_cb (GtkNativeDialog *native, int response, WeftWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
      g_autofree char *path = file != NULL ? g_file_get_path (file) : NULL;
      if (path != NULL)
        load_other_path (self, path);
    }
  g_object_unref (native);
}

static void
compare_with_activated (GtkWidget *widget, const char *action_name, GVariant *param)
{
  WeftWindow *self = WEFT_WINDOW (widget);
  gboolean folder = param != NULL && g_variant_get_boolean (param);
  GtkFileChooserNative *native =
    gtk_file_chooser_native_new (folder ? "Compare With a Trace Folder" : "Compare With a Trace File", GTK_WINDOW (self),
                                 folder ? GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER : GTK_FILE_CHOOSER_ACTION_OPEN,
                                 "_Compare", "_Cancel");
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  g_signal_connect (native, "response", G_CALLBACK (chooser_response_cb), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

static void
compare_loaded_activated (GtkWidget *widget, const char *action_name, GVariant *param)
{
  WeftWindow *self = WEFT_WINDOW (widget);
  g_autofree char *label = NULL;

  if (self->paths == NULL)
    return;
  label = g_strdup_printf ("%s (as loaded)", self->display_name ? self->display_name : self->paths[0]);
  load_other (self, self->paths, label, TRUE);
}

static void
compare_close_activated (GtkWidget *widget, const char *action_name, GVariant *param)
{
  WeftWindow *self = WEFT_WINDOW (widget);
  close_page (self);
  _weft_window_update_actions (self);
  _weft_window_schedule_state (self);
}

static void
compare_align_activated (GtkWidget *widget, const char *action_name, GVariant *param)
{
  WeftWindow *self = WEFT_WINDOW (widget);
  WeftDiffAlign align;

  if (self->compare != NULL && self->compare->view != NULL &&
      weft_diff_align_from_string (g_variant_get_string (param, NULL), &align))
    {
      weft_compare_view_set_align (WEFT_COMPARE_VIEW (self->compare->view), align);
      _weft_window_schedule_state (self);
    }
}

void
_weft_window_class_compare_init (WeftWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  gtk_widget_class_install_action (widget_class, "win.compare-with", "b", compare_with_activated);
  gtk_widget_class_install_action (widget_class, "win.compare-loaded", NULL, compare_loaded_activated);
  gtk_widget_class_install_action (widget_class, "win.compare-close", NULL, compare_close_activated);
  gtk_widget_class_install_action (widget_class, "win.compare-align", "s", compare_align_activated);
}

void
_weft_window_compare_update_actions (WeftWindow *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  gboolean loading = _weft_window_is_loading (self) || (self->compare != NULL && self->compare->cancellable != NULL);
  gboolean shown = self->compare != NULL && self->compare->shown;

  gtk_widget_action_set_enabled (widget, "win.compare-with", self->solver != NULL && !loading);
  gtk_widget_action_set_enabled (widget, "win.compare-loaded", self->solver != NULL && self->paths != NULL && !loading);
  gtk_widget_action_set_enabled (widget, "win.compare-close", shown);
  gtk_widget_action_set_enabled (widget, "win.compare-align", shown);
}

/* ---- the window's hooks ------------------------------------------------------------------- */

void
_weft_window_compare_clear (WeftWindow *self)
{
  close_page (self);
}

void
_weft_window_compare_document_set (WeftWindow *self)
{
  g_autofree char *pending = NULL;

  if (self->compare == NULL || self->compare->pending == NULL)
    return;
  pending = g_steal_pointer (&self->compare->pending);
  if (self->solver != NULL)
    load_other_path (self, pending);
}

void
_weft_window_compare_changed (WeftWindow *self)
{
  if (self->compare != NULL && self->compare->shown && self->compare->view != NULL)
    weft_compare_view_refresh (WEFT_COMPARE_VIEW (self->compare->view));
}

gboolean
_weft_window_compare_is_shown (WeftWindow *self)
{
  return self->compare != NULL && self->compare->shown;
}

void
_weft_window_compare_free (WeftWindow *self)
{
  if (self->compare == NULL)
    return;
  close_page (self);
  g_free (self->compare->pending);
  g_clear_pointer (&self->compare, g_free);
}

void
weft_window_open_compare (WeftWindow *self, GFile *a, GFile *b)
{
  g_autofree char *pb = NULL;

  g_return_if_fail (WEFT_IS_WINDOW (self));
  pb = g_file_get_path (b);
  if (pb == NULL)
    {
      g_autofree char *uri = g_file_get_uri (b);
      _weft_window_show_error (self, "Could not open a file to compare", uri);
      weft_window_open (self, a);
      return;
    }
  g_free (compare_get (self)->pending);
  self->compare->pending = g_steal_pointer (&pb);
  weft_window_open (self, a);
}

void
_weft_window_compare_template_cb (GtkWidget *dialog, gpointer session_a, const char *name_a, gpointer session_b,
                                  const char *name_b, WeftWindow *self)
{
  WeftWindow *target = self;
  WeftWindowCompare *c;

  if (!weft_window_is_empty (self))
    {
      target = weft_window_new (WEFT_APPLICATION (gtk_window_get_application (GTK_WINDOW (self))));
      gtk_window_present (GTK_WINDOW (target));
    }
  weft_window_open_session (target, session_a, name_a);
  c = compare_get (target);
  close_page (target);
  c->other = session_b;
  c->other_is_a = FALSE;
  c->other_label = g_strdup (name_b);
  show_page (target);
}

void
_weft_window_compare_set_color (WeftWindow *self, gboolean on)
{
  if (self->compare == NULL || self->compare->view == NULL)
    return;
  for (int side = 0; side < 2; side++)
    weft_timeline_view_set_color_by_microbatch (
      weft_compare_view_get_timeline (WEFT_COMPARE_VIEW (self->compare->view), side), on);
}

void
_weft_window_compare_show_session (WeftWindow *self, WeftEditSession *session_b, const char *label_b)
{
  WeftWindowCompare *c = compare_get (self);

  close_page (self);
  c->other = session_b;
  c->other_is_a = FALSE;
  c->other_label = g_strdup (label_b);
  show_page (self);
}

/* ---- test state ---------------------------------------------------------------------------- */

/* A point in X window coordinates of the timeline widget of side. */
static json_object *
point_json (WeftWindow *self, WeftCompareView *view, WeftDiffSide side, double x, double y)
{
  WeftTimelineView *tv = weft_compare_view_get_timeline (view, side);
  graphene_point_t p = GRAPHENE_POINT_INIT (0, 0);
  double sx = 0, sy = 0;
  json_object *o = json_object_new_object ();

  if (!gtk_widget_compute_point (GTK_WIDGET (tv), GTK_WIDGET (self), &GRAPHENE_POINT_INIT (x, y), &p))
    p = GRAPHENE_POINT_INIT (x, y);
  gtk_native_get_surface_transform (GTK_NATIVE (self), &sx, &sy);
  json_object_object_add (o, "x", json_object_new_int ((int) (p.x + sx)));
  json_object_object_add (o, "y", json_object_new_int ((int) (p.y + sy)));
  return o;
}

/* Where a test can click a matched op of A: the first matched compute
 * kernel of A at least 12 px wide on screen (its centre), with its counterpart. */
static json_object *
probe_json (WeftWindow *self, WeftCompareView *view, WeftDiff *diff)
{
  WeftSolver *sa = weft_diff_get_solver (diff, WEFT_DIFF_A);
  WeftTrace *ta = weft_solver_get_trace (sa);
  for (guint i = 0; i < weft_diff_n_matches (diff); i++)
    {
      const WeftDiffMatch *m = weft_diff_match (diff, i);
      graphene_rect_t r;
      json_object *o;
      if (m->kind != WEFT_DIFF_MATCH_STREAM ||
          weft_rank_event (weft_trace_rank (ta, m->rank_index_a), m->event_a)->kclass == WEFT_KCLASS_COMM ||
          !weft_compare_view_op_rect (view, WEFT_DIFF_A, m->rank_index_a, m->event_a, &r) || r.size.width < 12)
        continue;
      {
        g_autofree char *a = g_strdup_printf ("%u:%u", m->rank_index_a, m->event_a);
        g_autofree char *b = g_strdup_printf ("%u:%u", m->rank_index_b, m->event_b);
        o = point_json (self, view, WEFT_DIFF_A, r.origin.x + r.size.width / 2, r.origin.y + r.size.height / 2);
        json_object_object_add (o, "a", json_object_new_string (a));
        json_object_object_add (o, "b", json_object_new_string (b));
      }
      return o;
    }
  return NULL;
}

static json_object *
side_state (WeftWindow *self, WeftCompareView *view, WeftDiffSide side)
{
  WeftTimelineView *tv = weft_compare_view_get_timeline (view, side);
  WeftDiff *diff = weft_compare_view_get_diff (view);
  WeftTrace *trace = weft_timeline_view_get_trace (tv);
  WeftTimeSpan vis = weft_timeline_view_get_visible (tv);
  json_object *o = json_object_new_object ();
  json_object *r = json_object_new_object ();
  graphene_point_t p = GRAPHENE_POINT_INIT (0, 0);
  graphene_rect_t body;
  double sx = 0, sy = 0;
  WeftMetrics m;

  json_object_object_add (o, "label", json_object_new_string (weft_compare_view_get_label (view, side)));
  json_object_object_add (o, "n_ranks", json_object_new_int (trace != NULL ? (int) trace->ranks->len : 0));
  json_object_object_add (o, "n_groups", json_object_new_int ((int) weft_timeline_view_get_n_groups (tv)));
  json_object_object_add (o, "frames", json_object_new_int ((int) weft_timeline_view_get_frames (tv)));
  json_object_object_add (o, "visible_begin", json_object_new_int64 (vis.begin));
  json_object_object_add (o, "visible_end", json_object_new_int64 (vis.end));
  json_object_object_add (o, "origin", json_object_new_int64 (diff != NULL ? weft_diff_origin (diff, side,
                                                                             weft_compare_view_get_align (view)) : 0));
  json_object_object_add (o, "n_only", json_object_new_int ((int) weft_compare_view_get_n_only (view, side)));
  if (diff != NULL && weft_diff_whole (diff, side, &m))
    json_object_object_add (o, "step_time", json_object_new_int64 (m.step_time));
  {
    int step = weft_compare_view_get_step (view, side);
    GArray *steps = weft_compare_view_get_steps (view, side);
    json_object *arr = json_object_new_array ();
    json_object *box = _weft_window_widget_box (self, weft_compare_view_get_step_drop (view, side));
    json_object_object_add (o, "step", step != WEFT_SOLVER_ALL_STEPS ? json_object_new_int (step) : NULL);
    for (guint i = 0; steps != NULL && i < steps->len; i++)
      json_object_array_add (arr, json_object_new_int (g_array_index (steps, int, i)));
    json_object_object_add (o, "steps", arr);
    if (box != NULL)
      json_object_object_add (o, "step_drop", box);
  }
  {
    guint rank_index;
    guint32 event;
    g_autofree char *sel = weft_timeline_view_get_selection (tv, &rank_index, &event)
                               ? g_strdup_printf ("%u:%u", rank_index, event)
                               : NULL;
    json_object_object_add (o, "selection", sel != NULL ? json_object_new_string (sel) : NULL);
  }
  /* the body in X window coordinates (what `xdotool mousemove --window` takes) */
  weft_timeline_view_get_body_rect (tv, &body);
  if (gtk_widget_get_mapped (GTK_WIDGET (tv)) &&
      gtk_widget_compute_point (GTK_WIDGET (tv), GTK_WIDGET (self), &GRAPHENE_POINT_INIT (body.origin.x, body.origin.y), &p))
    {
      gtk_native_get_surface_transform (GTK_NATIVE (self), &sx, &sy);
      json_object_object_add (r, "x", json_object_new_int ((int) (p.x + sx)));
      json_object_object_add (r, "y", json_object_new_int ((int) (p.y + sy)));
      json_object_object_add (r, "w", json_object_new_int ((int) body.size.width));
      json_object_object_add (r, "h", json_object_new_int ((int) body.size.height));
    }
  json_object_object_add (o, "body", r);
  if (side == WEFT_DIFF_A && diff != NULL)
    json_object_object_add (o, "probe", probe_json (self, view, diff));
  return o;
}

void
_weft_window_compare_test_state (WeftWindow *self, json_object *root)
{
  WeftWindowCompare *c = self->compare;
  WeftCompareView *view;
  WeftDiff *diff;
  json_object *o;

  if (c == NULL || !c->shown || c->view == NULL)
    return;
  view = WEFT_COMPARE_VIEW (c->view);
  diff = weft_compare_view_get_diff (view);
  o = json_object_new_object ();
  json_object_object_add (o, "align", json_object_new_string (weft_diff_align_to_string (weft_compare_view_get_align (view))));
  if (diff != NULL)
    {
      g_autofree char *summary = weft_diff_summary (diff);
      WeftDiffCounts n;
      weft_diff_counts (diff, &n);
      json_object_object_add (o, "summary", json_object_new_string (summary));
      json_object_object_add (o, "matched", json_object_new_int ((int) (n.kernels_matched + n.collectives_matched)));
      json_object_object_add (o, "other_stream", json_object_new_int ((int) n.kernels_other_stream));
      json_object_object_add (o, "only_a", json_object_new_int ((int) (n.kernels_a_only + n.collectives_a_only)));
      json_object_object_add (o, "only_b", json_object_new_int ((int) (n.kernels_b_only + n.collectives_b_only)));
    }
  json_object_object_add (o, "chips", json_object_new_string (weft_compare_view_get_chips (view)));
  json_object_object_add (o, "detail", json_object_new_string (weft_compare_view_get_detail (view)));
  json_object_object_add (o, "breakdown_rows", json_object_new_int ((int) weft_compare_view_get_breakdown_rows (view)));
  json_object_object_add (o, "a", side_state (self, view, WEFT_DIFF_A));
  json_object_object_add (o, "b", side_state (self, view, WEFT_DIFF_B));
  json_object_object_add (root, "compare", o);
}
