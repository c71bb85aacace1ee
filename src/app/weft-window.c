/* weft-window.c: a Weft window.
 *
 * The widgets are the template weft-window.ui (in the app's GResource):
 * pages (GtkStack) "empty" (Open a trace, recent files, drop here),
 * "loading" (progress bar + Cancel) and "trace" (search bar, timeline |
 * inspector / palette + per-rank breakdown); the header bar holds Open
 * (with the recent files), Save, Undo / Redo, the metric chips and the main
 * menu.
 *
 * Loading is weft_trace_load_async() (the core): the files are read and
 * the solver built in a thread; a main-loop timeout shows the progress it
 * reports. A failure is a GtkMessageDialog with the loader's message (file
 * and byte offset) and the window goes back to what it showed before.
 *
 * This file: the template, the document (edit session, times, critical
 * path, the refresh after an edit), loading, and the widgets' signals. The
 * actions, saving, recent files and the test state are in the other
 * weft-window-*.c files (see weft-window-private.h). */
#include "config.h"

#include <string.h>

#include "weft/weft.h"
#include "weft-app-util.h"
#include "weft-bottom-panel.h"
#include "weft-inspector.h"
#include "weft-legend.h"
#include "weft-metrics-bar.h"
#include "weft-palette.h"
#include "weft-rank-breakdown.h"
#include "weft-timeline-view.h"
#include "weft-window-private.h"

G_DEFINE_FINAL_TYPE (WeftWindow, weft_window, GTK_TYPE_APPLICATION_WINDOW)

enum
{
  PROP_0,
  PROP_SHOW_INSPECTOR,
  PROP_ALIGN_CLOCKS,
  PROP_SHOW_TABLES,
  PROP_COLOR_MICROBATCH,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* ---- helpers ----------------------------------------------------------------------- */

gboolean
_weft_window_is_loading (WeftWindow *self)
{
  return self->cancellable != NULL;
}

gboolean
_weft_window_is_dark (WeftWindow *self)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  return app != NULL && weft_application_get_dark (WEFT_APPLICATION (app));
}

void
_weft_window_update_title (WeftWindow *self)
{
  g_autofree char *title = NULL;

  if (self->display_name != NULL && self->trace != NULL)
    title = g_strdup_printf ("%s%s — Weft",
                             self->session != NULL && weft_edit_session_is_modified (self->session) ? "• " : "",
                             self->display_name);
  else if (_weft_window_is_loading (self) && self->display_name != NULL)
    title = g_strdup_printf ("Loading %s — Weft", self->display_name);
  else
    title = g_strdup ("Weft");
  gtk_window_set_title (GTK_WINDOW (self), title);
}

static void
set_page (WeftWindow *self, const char *name)
{
  gtk_stack_set_visible_child_name (GTK_STACK (self->stack), name);
  if (strcmp (name, "trace") == 0)
    gtk_widget_grab_focus (self->view);
}

/* ---- errors ---------------------------------------------------------------------------- */

static void
error_response_cb (GtkDialog *dialog, int response, WeftWindow *self)
{
  gtk_window_destroy (GTK_WINDOW (dialog));
  if (self->error_dialog == GTK_WIDGET (dialog))
    self->error_dialog = NULL;
  _weft_window_schedule_state (self);
}

void
_weft_window_show_error (WeftWindow *self, const char *what, const char *message)
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
  _weft_window_schedule_state (self);
}

/* ---- document ------------------------------------------------------------------------- */

static void
update_critical_path (WeftWindow *self)
{
  GArray *cp = NULL;
  WeftRenderOverlay overlay = { 0 };

  g_clear_pointer (&self->critical, g_free);
  weft_inspector_set_critical_path (WEFT_INSPECTOR (self->inspector), NULL);
  g_clear_pointer (&self->critical_segments, g_array_unref);
  self->n_critical = 0;
  if (self->solver != NULL)
    {
      /* kept: the inspector explains the selected op's segments */
      self->critical_segments = cp = weft_solver_critical_path (self->solver,
                                                                weft_metrics_bar_get_step (WEFT_METRICS_BAR (self->metrics)));
      weft_inspector_set_critical_path (WEFT_INSPECTOR (self->inspector), cp);
      if (cp != NULL && cp->len > 0)
        {
          self->critical = g_new (WeftEventRef, cp->len);
          for (guint i = 0; i < cp->len; i++)
            {
              const WeftPathSegment *s = &g_array_index (cp, WeftPathSegment, i);
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
    {
      update_critical_path (self);
      weft_bottom_panel_refresh (WEFT_BOTTOM_PANEL (self->bottom_panel));
      _weft_window_compare_changed (self);
    }
  t3 = g_get_monotonic_time ();
  if (g_getenv ("WEFT_DEBUG_TIMING"))
    g_printerr ("refresh: chips %.1f ms, breakdown %.1f ms, critical path %.1f ms\n", (t1 - t0) / 1000.0,
                (t2 - t1) / 1000.0, (t3 - t2) / 1000.0);
  if (!weft_timeline_view_is_dragging (WEFT_TIMELINE_VIEW (self->view)) &&
      weft_timeline_view_get_selection (WEFT_TIMELINE_VIEW (self->view), &rank_index, &event))
    weft_inspector_show_event (WEFT_INSPECTOR (self->inspector), rank_index, event);
  _weft_window_schedule_state (self);
  return G_SOURCE_REMOVE;
}

static void
session_changed_cb (WeftEditSession *session, gpointer user_data)
{
  WeftWindow *self = user_data;

  if (self->solver != NULL)
    weft_render_times_update (&self->times);
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

  _weft_window_update_title (self);
  _weft_window_update_actions (self);
  _weft_window_schedule_state (self);
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
  _weft_window_compare_clear (self); /* it borrows the session */
  _weft_window_pipeline_clear (self);
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
  weft_bottom_panel_set_solver (WEFT_BOTTOM_PANEL (self->bottom_panel), NULL, 0, WEFT_SOLVER_ALL_STEPS);
  g_clear_pointer (&self->critical, g_free);
  weft_inspector_set_critical_path (WEFT_INSPECTOR (self->inspector), NULL);
  g_clear_pointer (&self->critical_segments, g_array_unref);
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
  /* the solver's times: per lane, as flat arrays it keeps current (only
   * what a re-solve changed is rewritten), walked by the painter */
  weft_render_times_init_solver (&self->times, trace, solver);
  if (session != NULL)
    {
      weft_edit_session_set_changed_func (session, session_changed_cb, self);
      weft_edit_session_set_state_func (session, session_state_cb, self);
      self->autosave_timer = g_timeout_add_seconds (WEFT_RECOVERY_INTERVAL_S, autosave_cb, self);
    }
  weft_timeline_view_set_session (view, session);
  weft_inspector_set_session (WEFT_INSPECTOR (self->inspector), session);
  weft_palette_set_session (WEFT_PALETTE (self->palette), session);

  weft_timeline_view_set_dark (view, _weft_window_is_dark (self));
  weft_timeline_view_set_trace (view, trace);
  weft_metrics_bar_set_solver (WEFT_METRICS_BAR (self->metrics), solver);
  weft_rank_breakdown_set_solver (WEFT_RANK_BREAKDOWN (self->breakdown), solver,
                                  weft_metrics_bar_get_step (WEFT_METRICS_BAR (self->metrics)));
  update_critical_path (self);
  weft_inspector_set_trace (WEFT_INSPECTOR (self->inspector), trace, solver,
                            weft_timeline_view_get_view (view)->origin);
  weft_bottom_panel_set_solver (WEFT_BOTTOM_PANEL (self->bottom_panel), solver, weft_timeline_view_get_view (view)->origin,
                                weft_metrics_bar_get_step (WEFT_METRICS_BAR (self->metrics)));
  _weft_window_update_title (self);
  set_page (self, "trace");
  _weft_window_update_actions (self);
  _weft_window_pipeline_document_set (self);
  _weft_window_schedule_state (self);
  _weft_window_compare_document_set (self);
}

/* ---- loading ----------------------------------------------------------------------------- */

/* The loading page, updated four times a second. Its bar does not pulse:
 * GtkProgressBar's activity mode animates on every frame, and on a
 * software renderer (llvmpipe under Xvfb, a VM, a remote display) those
 * frames took most of a core from the load's own threads (a 4-rank 1.9 GB
 * set: 13.5 s to the first frame with the pulse, 9.5 s with the cairo
 * renderer; docs/benchmarks.md, "The window's loading page"). The phases
 * with no byte count show their elapsed seconds instead. */
#define PROGRESS_TICK_MS 250

static gboolean
progress_tick (gpointer data)
{
  WeftWindow *self = data;
  guint64 done, total;
  int stage; /* 0 reading, 1 indexing (all read), 2 solving */

  if (self->load_progress == NULL)
    return G_SOURCE_CONTINUE;
  if (weft_load_progress_get (self->load_progress, &done, &total) == WEFT_LOAD_PHASE_SOLVING)
    stage = 2;
  else
    stage = total > 0 && done >= total ? 1 : 0;
  if (stage != self->progress_phase)
    {
      self->progress_phase = stage;
      self->progress_phase_us = g_get_monotonic_time ();
    }
  if (stage > 0)
    {
      gint64 s = (g_get_monotonic_time () - self->progress_phase_us) / G_USEC_PER_SEC;
      g_autofree char *text = g_strdup_printf ("%s %" G_GINT64_FORMAT " s",
                                               stage == 2 ? "Solving dependencies…" : "Indexing…", s);
      gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (self->progress), 1.0);
      gtk_label_set_text (GTK_LABEL (self->progress_label), text);
    }
  else if (total > 0)
    {
      g_autofree char *a = weft_format_bytes ((gint64) done);
      g_autofree char *b = weft_format_bytes ((gint64) total);
      g_autofree char *text = g_strdup_printf ("Reading %s of %s", a, b);
      gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (self->progress), (double) done / (double) total);
      gtk_label_set_text (GTK_LABEL (self->progress_label), text);
    }
  _weft_window_schedule_state (self);
  return G_SOURCE_CONTINUE;
}

/* The loading page's bar and label follow a new load (of the document, or
 * of the other side of a comparison): the load reports to the returned
 * progress until _weft_window_progress_end(). */
WeftLoadProgress *
_weft_window_progress_begin (WeftWindow *self, const char *text)
{
  _weft_window_progress_end (self);
  self->load_progress = weft_load_progress_new ();
  gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (self->progress), 0);
  gtk_label_set_text (GTK_LABEL (self->progress_label), text);
  self->progress_phase = -1;
  self->progress_phase_us = 0;
  self->progress_timer = g_timeout_add (PROGRESS_TICK_MS, progress_tick, self);
  return self->load_progress;
}

void
_weft_window_progress_end (WeftWindow *self)
{
  g_clear_handle_id (&self->progress_timer, g_source_remove);
  g_clear_pointer (&self->load_progress, weft_load_progress_unref);
}

static void
end_loading (WeftWindow *self)
{
  _weft_window_progress_end (self);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->paths_loading, g_strfreev);
}

/* The load's end. user_data: a reference on the window (the load may end
 * after the window was closed, or be superseded by a newer load: then its
 * cancellable is no longer the window's). */
static void
load_done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (WeftWindow) self = user_data;
  g_autoptr (WeftLoadResult) loaded = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *page_before = NULL;
  g_auto (GStrv) paths = NULL;
  g_autofree char *name = NULL;
  WeftTrace *trace;

  if (self->cancellable == NULL || g_task_get_cancellable (G_TASK (result)) != self->cancellable)
    {
      /* superseded (or the window is gone): drop what it loaded */
      loaded = weft_trace_load_finish (result, NULL);
      return;
    }
  page_before = g_steal_pointer (&self->page_before_load);
  paths = g_steal_pointer (&self->paths_loading);
  loaded = weft_trace_load_finish (result, &error);
  if (loaded == NULL)
    {
      gboolean cancelled = g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
                           g_error_matches (error, WEFT_ERROR, WEFT_ERROR_CANCELLED);
      end_loading (self);
      set_page (self, page_before != NULL ? page_before : (self->trace != NULL ? "trace" : "empty"));
      _weft_window_update_title (self);
      _weft_window_update_actions (self);
      if (!cancelled)
        {
          g_autofree char *base = g_path_get_basename (paths[0]);
          g_autofree char *what = g_strdup_printf ("Could not open “%s”", base);
          _weft_window_show_error (self, what, error->message);
        }
      _weft_window_schedule_state (self);
      return;
    }

  self->load_us = loaded->load_us;
  self->solve_us = loaded->solve_us;
  trace = loaded->session != NULL ? weft_edit_session_get_trace (loaded->session) : loaded->trace;
  g_debug ("loaded %s: %u ranks in %.0f ms, solved in %.0f ms", paths[0], trace->ranks->len, self->load_us / 1000.0,
           self->solve_us / 1000.0);
  _weft_window_add_recent (self, paths[0]);
  name = g_strdup (self->display_name);
  set_document (self, g_steal_pointer (&loaded->session), g_steal_pointer (&loaded->trace), paths, name);
  _weft_window_offer_recovery (self);
  if (loaded->solver_error != NULL)
    _weft_window_show_error (self,
                             "The dependency solver could not handle this trace; it is shown without solved metrics",
                             loaded->solver_error);
  end_loading (self);
  _weft_window_update_actions (self);
}

void
_weft_window_start_load (WeftWindow *self, char **paths, guint n_paths, const char *display_name)
{
  if (_weft_window_is_loading (self))
    g_cancellable_cancel (self->cancellable);
  end_loading (self);
  self->paths_loading = g_new0 (char *, n_paths + 1);
  for (guint i = 0; i < n_paths; i++)
    self->paths_loading[i] = g_strdup (paths[i]);

  g_free (self->display_name);
  self->display_name = g_strdup (display_name);
  if (self->page_before_load == NULL)
    self->page_before_load = g_strdup (self->trace != NULL ? "trace" : "empty");

  self->cancellable = g_cancellable_new ();
  {
    g_autofree char *text = g_strdup_printf ("Opening %s…", display_name);
    _weft_window_progress_begin (self, text);
  }
  set_page (self, "loading");
  _weft_window_update_title (self);
  _weft_window_update_actions (self);
  _weft_window_schedule_state (self);

  weft_trace_load_async ((const char *const *) self->paths_loading, n_paths,
                         self->no_clock_alignment ? WEFT_LOAD_NO_CLOCK_ALIGNMENT : WEFT_LOAD_FLAGS_NONE,
                         self->load_progress, self->cancellable, load_done_cb, g_object_ref (self));
}

/* Reads the shown trace again (F5, View > Align Rank Clocks). */
void
_weft_window_reload (WeftWindow *self)
{
  g_auto (GStrv) paths = g_strdupv (self->paths);
  g_autofree char *name = g_strdup (self->display_name);

  if (paths != NULL)
    _weft_window_start_load (self, paths, g_strv_length (paths), name);
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
          _weft_window_show_error (self, "Could not open a file", uri);
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
  _weft_window_start_load (self, (char **) paths->pdata, paths->len - 1, name);
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
  return self->trace == NULL && !_weft_window_is_loading (self);
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
  if (_weft_window_is_loading (self))
    g_cancellable_cancel (self->cancellable);
  end_loading (self);
  g_clear_pointer (&self->page_before_load, g_free);
  /* no file behind it: Save asks where (infer_save_target) */
  g_clear_pointer (&self->paths, g_strfreev);
  set_document (self, session, NULL, NULL, display_name);
}

/* ---- signals --------------------------------------------------------------------------------- */

static void
edit_error_cb (gpointer source, const char *what, const char *message, WeftWindow *self)
{
  _weft_window_show_error (self, what, message);
}

static void
view_changed_cb (WeftTimelineView *view, WeftWindow *self)
{
  _weft_window_schedule_state (self);
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
  weft_bottom_panel_set_range (WEFT_BOTTOM_PANEL (self->bottom_panel),
                               weft_timeline_view_get_range (view, &range) ? &range : NULL);
  if (weft_timeline_view_get_selection (view, &rank_index, &event))
    weft_inspector_show_event (WEFT_INSPECTOR (self->inspector), rank_index, event);
  else if (weft_timeline_view_get_range (view, &range))
    weft_inspector_show_range (WEFT_INSPECTOR (self->inspector), range, self->solver != NULL ? &self->times : NULL);
  else
    weft_inspector_show_summary (WEFT_INSPECTOR (self->inspector));
  _weft_window_schedule_state (self);
  /* and once the inspector's new content is laid out (its boxes) */
  _weft_window_schedule_state_late (self);
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
  _weft_window_first_frame_screenshot (self);
  _weft_window_schedule_state (self);
}

static void
step_changed_cb (WeftMetricsBar *bar, WeftWindow *self)
{
  if (self->solver == NULL)
    return;
  weft_rank_breakdown_set_solver (WEFT_RANK_BREAKDOWN (self->breakdown), self->solver,
                                  weft_metrics_bar_get_step (bar));
  update_critical_path (self);
  weft_bottom_panel_set_step (WEFT_BOTTOM_PANEL (self->bottom_panel), weft_metrics_bar_get_step (bar));
  _weft_window_schedule_state (self);
}

/* A row of the bottom panel's tables: select its op and scroll to it. */
static void
table_select_cb (WeftBottomPanel *panel, guint rank_index, guint event, WeftWindow *self)
{
  if (self->trace == NULL || rank_index >= self->trace->ranks->len ||
      event >= weft_trace_rank (self->trace, rank_index)->events->len)
    return;
  weft_timeline_view_select (WEFT_TIMELINE_VIEW (self->view), rank_index, event);
}

/* A dependency clicked in the inspector: select the op at its other end. */
static void
follow_edge_cb (WeftInspector *inspector, guint rank_index, guint event, WeftWindow *self)
{
  table_select_cb (NULL, rank_index, event, self);
}

/* The table's rows moved: the test state once they are laid out. */
static void
table_rows_changed_cb (WeftBottomPanel *panel, WeftWindow *self)
{
  _weft_window_schedule_state_late (self);
}

static void
dark_changed_cb (GObject *app, GParamSpec *pspec, WeftWindow *self)
{
  gboolean dark = _weft_window_is_dark (self);
  weft_timeline_view_set_dark (WEFT_TIMELINE_VIEW (self->view), dark);
  weft_rank_breakdown_set_dark (WEFT_RANK_BREAKDOWN (self->breakdown), dark);
  weft_legend_set_dark (WEFT_LEGEND (self->legend), dark);
  _weft_window_schedule_state (self);
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

  if (!G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST) || _weft_window_is_loading (self))
    return FALSE;
  files = gdk_file_list_get_files (g_value_get_boxed (value));
  for (GSList *l = files; l != NULL; l = l->next)
    g_ptr_array_add (arr, l->data);
  if (arr->len > 0)
    weft_window_open_files (self, (GFile **) arr->pdata, arr->len);
  g_slist_free (files);
  return arr->len > 0;
}

/* ---- properties ---------------------------------------------------------------------------- */

/* View > Inspector: the side pane shown or hidden. */
static void
set_show_inspector (WeftWindow *self, gboolean show)
{
  if (self->show_inspector == show)
    return;
  self->show_inspector = show;
  gtk_widget_set_visible (self->side, show);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SHOW_INSPECTOR]);
}

static void table_rows_changed_cb (WeftBottomPanel *panel, WeftWindow *self);

/* View > Tables: the bottom panel shown or hidden. */
static void
set_show_tables (WeftWindow *self, gboolean show)
{
  if (self->show_tables == show)
    return;
  self->show_tables = show;
  gtk_widget_set_visible (self->bottom_panel, show);
  if (show && gtk_paned_get_position (GTK_PANED (self->vpaned)) <= 0)
    gtk_paned_set_position (GTK_PANED (self->vpaned), MAX (200, gtk_widget_get_height (self->vpaned) - 260));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SHOW_TABLES]);
  /* the state once the panes are laid out again */
  table_rows_changed_cb (NULL, self);
}

/* View > Align Rank Clocks: the estimated per-rank clock offsets on or off.
 * The solver works on the common timeline, so the trace is read again;
 * refused (the property keeps its value) while there are unsaved edits. */
static void
set_align_clocks (WeftWindow *self, gboolean on)
{
  if (on == !self->no_clock_alignment)
    return;
  if (self->session != NULL && weft_edit_session_is_modified (self->session))
    {
      _weft_window_show_error (self, "Save or undo the edits first",
                               "Turning the clock alignment on or off reads the trace again; unsaved edits would be lost.");
      return;
    }
  self->no_clock_alignment = !on;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ALIGN_CLOCKS]);
  if (self->paths != NULL && !_weft_window_is_loading (self))
    _weft_window_reload (self);
}

/* ---- construction ------------------------------------------------------------------------------ */

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
  gtk_css_provider_load_from_resource (provider, "/org/weft/Weft/ui/weft.css");
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
  _weft_window_compare_free (self);
  _weft_window_pipeline_free (self);
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
weft_window_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  WeftWindow *self = WEFT_WINDOW (object);

  switch (prop_id)
    {
    case PROP_SHOW_INSPECTOR:
      g_value_set_boolean (value, self->show_inspector);
      break;
    case PROP_ALIGN_CLOCKS:
      g_value_set_boolean (value, !self->no_clock_alignment);
      break;
    case PROP_SHOW_TABLES:
      g_value_set_boolean (value, self->show_tables);
      break;
    case PROP_COLOR_MICROBATCH:
      g_value_set_boolean (value, self->color_microbatch);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
weft_window_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  WeftWindow *self = WEFT_WINDOW (object);

  switch (prop_id)
    {
    case PROP_SHOW_INSPECTOR:
      set_show_inspector (self, g_value_get_boolean (value));
      break;
    case PROP_ALIGN_CLOCKS:
      set_align_clocks (self, g_value_get_boolean (value));
      break;
    case PROP_SHOW_TABLES:
      set_show_tables (self, g_value_get_boolean (value));
      break;
    case PROP_COLOR_MICROBATCH:
      if (self->color_microbatch != g_value_get_boolean (value))
        {
          _weft_window_pipeline_set_color (self, g_value_get_boolean (value));
          g_object_notify_by_pspec (object, pspec);
        }
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
weft_window_class_init (WeftWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = weft_window_dispose;
  object_class->finalize = weft_window_finalize;
  object_class->get_property = weft_window_get_property;
  object_class->set_property = weft_window_set_property;

  properties[PROP_SHOW_INSPECTOR] =
    g_param_spec_boolean ("show-inspector", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_ALIGN_CLOCKS] =
    g_param_spec_boolean ("align-clocks", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SHOW_TABLES] =
    g_param_spec_boolean ("show-tables", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* View > Colour by Microbatch (weft-window-pipeline.c) */
  properties[PROP_COLOR_MICROBATCH] =
    g_param_spec_boolean ("color-microbatch", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (WEFT_TYPE_TIMELINE_VIEW);
  g_type_ensure (WEFT_TYPE_INSPECTOR);
  g_type_ensure (WEFT_TYPE_PALETTE);
  g_type_ensure (WEFT_TYPE_METRICS_BAR);
  g_type_ensure (WEFT_TYPE_RANK_BREAKDOWN);
  g_type_ensure (WEFT_TYPE_BOTTOM_PANEL);
  g_type_ensure (WEFT_TYPE_LEGEND);
  gtk_widget_class_set_template_from_resource (widget_class, "/org/weft/Weft/ui/weft-window.ui");
  gtk_widget_class_bind_template_child (widget_class, WeftWindow, stack);
  gtk_widget_class_bind_template_child (widget_class, WeftWindow, header);
  gtk_widget_class_bind_template_child (widget_class, WeftWindow, metrics);
  gtk_widget_class_bind_template_child (widget_class, WeftWindow, recent_menu_button);
  gtk_widget_class_bind_template_child (widget_class, WeftWindow, undo_button);
  gtk_widget_class_bind_template_child (widget_class, WeftWindow, redo_button);
  gtk_widget_class_bind_template_child (widget_class, WeftWindow, save_button);
  gtk_widget_class_bind_template_child (widget_class, WeftWindow, recent_list);
  gtk_widget_class_bind_template_child (widget_class, WeftWindow, recent_title);
  gtk_widget_class_bind_template_child (widget_class, WeftWindow, progress);
  gtk_widget_class_bind_template_child (widget_class, WeftWindow, progress_label);
  gtk_widget_class_bind_template_child (widget_class, WeftWindow, search_bar);
  gtk_widget_class_bind_template_child (widget_class, WeftWindow, search_entry);
  gtk_widget_class_bind_template_child (widget_class, WeftWindow, search_regex);
  gtk_widget_class_bind_template_child (widget_class, WeftWindow, search_kind);
  gtk_widget_class_bind_template_child (widget_class, WeftWindow, search_status);
  gtk_widget_class_bind_template_child (widget_class, WeftWindow, vpaned);
  gtk_widget_class_bind_template_child (widget_class, WeftWindow, paned);
  gtk_widget_class_bind_template_child (widget_class, WeftWindow, view);
  gtk_widget_class_bind_template_child (widget_class, WeftWindow, side);
  gtk_widget_class_bind_template_child (widget_class, WeftWindow, inspector);
  gtk_widget_class_bind_template_child (widget_class, WeftWindow, palette);
  gtk_widget_class_bind_template_child (widget_class, WeftWindow, side_stack);
  gtk_widget_class_bind_template_child (widget_class, WeftWindow, breakdown);
  gtk_widget_class_bind_template_child (widget_class, WeftWindow, bottom_panel);
  gtk_widget_class_bind_template_child (widget_class, WeftWindow, legend);
  gtk_widget_class_bind_template_callback (widget_class, step_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, table_select_cb);
  gtk_widget_class_bind_template_callback (widget_class, follow_edge_cb);
  gtk_widget_class_bind_template_callback (widget_class, table_rows_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, view_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, selection_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, first_frame_cb);
  gtk_widget_class_bind_template_callback (widget_class, edit_error_cb);
  gtk_widget_class_bind_template_callback (widget_class, window_key_cb);
  _weft_window_class_actions_init (klass);
  _weft_window_class_search_init (klass);
  _weft_window_class_compare_init (klass);
  _weft_window_class_pipeline_init (klass);
}

static void
weft_window_init (WeftWindow *self)
{
  GtkDropTarget *drop;

  install_css ();
  _weft_window_teststate_init (self);
  self->show_inspector = TRUE;
  gtk_widget_init_template (GTK_WIDGET (self));
  _weft_window_teststate_watch (self);
  _weft_window_search_init (self);
  _weft_window_pipeline_init (self);

  drop = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
  g_signal_connect (drop, "drop", G_CALLBACK (drop_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));

  g_signal_connect (self, "close-request", G_CALLBACK (_weft_window_close_request), NULL);
  _weft_window_recent_init (self);
  _weft_window_update_actions (self);
}

WeftWindow *
weft_window_new (WeftApplication *app)
{
  WeftWindow *self = g_object_new (WEFT_TYPE_WINDOW, "application", app, NULL);

  g_signal_connect_object (app, "notify::dark", G_CALLBACK (dark_changed_cb), self, 0);
  dark_changed_cb (G_OBJECT (app), NULL, self);
  _weft_window_schedule_state (self);
  return self;
}
