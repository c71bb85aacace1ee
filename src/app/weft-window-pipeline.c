/* weft-window-pipeline.c: the window's pipeline-parallel controls (issue 17):
 *
 *   - View > Colour by Microbatch (win.color-microbatch, P; the window's
 *     "color-microbatch" property): GPU compute ops of a pipeline action
 *     ("PP:<stage><F|B|I|W><mb>", weft-pipeline.h) drawn in their
 *     microbatch's hue, in the main timeline and both compare timelines;
 *     the legend lists the hues instead of the compute classes.
 *   - The header's Schedule menu, shown when the document was composed with
 *     pipeline parallelism: the composer's parameters come from the "weft"
 *     top-level key it writes (so a saved and reopened composed trace has
 *     it too). "Compare with <schedule>" (win.pp-schedule) composes the
 *     same parameters under that schedule in a thread and opens the compare
 *     page: A the document as the session shows it now, B the other
 *     schedule. The document is not replaced: its edits and their undo
 *     history stay, and Close Comparison goes back to it; what a person
 *     asks when switching a schedule is "what changes", which the compare
 *     page answers (step, bubble, per-rank breakdown).
 *
 * The microbatches the legend lists: the composer's count for a composed
 * trace, else all the hues. */
#include "config.h"

#include <json-c/json.h>
#include <string.h>

#include "weft/weft.h"
#include "weft-app-util.h"
#include "weft-compare-view.h"
#include "weft-legend.h"
#include "weft-window-private.h"

struct _WeftWindowPipeline
{
  GtkWidget        *button;     /* header: Schedule menu */
  GMenu            *menu;
  gboolean          composed;   /* the document has the composer's parameters with pp > 1 */
  WeftComposeParams params;
  GCancellable     *cancellable; /* the compose running, NULL when none */
  char             *running;    /* its schedule */
  char             *error;      /* the last compose's refusal */
  GPtrArray        *refused;    /* char*: "name\treason" of the schedules these parameters cannot use */
  guint             switches;   /* composes finished (for tests) */
};

typedef struct
{
  WeftComposeParams params;
  char             *label;
} Request;

static void
request_free (gpointer data)
{
  Request *r = data;
  g_free (r->label);
  g_free (r);
}

static WeftWindowPipeline *
pipeline_get (WeftWindow *self)
{
  if (self->pipeline == NULL)
    {
      self->pipeline = g_new0 (WeftWindowPipeline, 1);
      self->pipeline->refused = g_ptr_array_new_with_free_func (g_free);
    }
  return self->pipeline;
}

static void
update_legend (WeftWindow *self)
{
  WeftWindowPipeline *pl = self->pipeline;
  int n = WEFT_RENDER_MICROBATCH_HUES;

  if (pl != NULL && pl->composed)
    n = weft_compose_pp_microbatches (&pl->params);
  weft_legend_set_microbatches (WEFT_LEGEND (self->legend), self->color_microbatch ? n : 0);
}

void
_weft_window_pipeline_set_color (WeftWindow *self, gboolean on)
{
  self->color_microbatch = on;
  weft_timeline_view_set_color_by_microbatch (WEFT_TIMELINE_VIEW (self->view), on);
  _weft_window_compare_set_color (self, on);
  update_legend (self);
  _weft_window_schedule_state (self);
}

/* ---- the schedule switch ------------------------------------------------------------------- */

static void
compose_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  Request *req = task_data;
  GError *error = NULL;
  WeftTrace *trace = weft_compose_trace (&req->params, &error);
  WeftEditSession *session;

  if (trace == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  session = weft_edit_session_new (trace, NULL, &error);
  if (session == NULL)
    {
      weft_trace_free (trace);
      g_task_return_error (task, error);
      return;
    }
  g_task_return_pointer (task, session, (GDestroyNotify) weft_edit_session_free);
}

/* user_data: a reference on the window */
static void
compose_done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (WeftWindow) self = user_data;
  g_autoptr (GError) error = NULL;
  WeftWindowPipeline *pl = self->pipeline;
  WeftEditSession *session = g_task_propagate_pointer (G_TASK (result), &error);
  Request *req = g_task_get_task_data (G_TASK (result));

  if (pl == NULL || pl->cancellable == NULL || g_task_get_cancellable (G_TASK (result)) != pl->cancellable)
    {
      /* superseded: another document, or the window went */
      if (session != NULL)
        weft_edit_session_free (session);
      return;
    }
  g_clear_object (&pl->cancellable);
  g_clear_pointer (&pl->running, g_free);
  g_clear_pointer (&pl->error, g_free);
  pl->switches++;
  if (session == NULL)
    {
      pl->error = g_strdup (error->message);
      _weft_window_show_error (self, "Could not compose the other schedule", error->message);
    }
  else
    {
      _weft_window_compare_show_session (self, session, req->label);
    }
  _weft_window_update_actions (self);
  _weft_window_schedule_state (self);
}

/* The parameters of the step under schedule: the trace's, with its stages
 * per rank where the schedule can run them, else the composer's default
 * for that schedule (two for the looped and V schedules, one for the
 * others), as `weft-cli compose --pp-schedule` without
 * --pp-stages-per-rank. FALSE, with the composer's reason, where the
 * parameters cannot use that schedule. */
static gboolean
switch_params (const WeftComposeParams *trace, WeftPpSchedule schedule, WeftComposeParams *out, GError **error)
{
  *out = *trace;
  out->pp_schedule = schedule;
  if (weft_compose_params_validate (out, NULL))
    return TRUE;
  out->pp_stages_per_rank = 0;
  return weft_compose_params_validate (out, error);
}

static void
pp_schedule_activated (GtkWidget *widget, const char *action_name, GVariant *param)
{
  WeftWindow *self = WEFT_WINDOW (widget);
  WeftWindowPipeline *pl = self->pipeline;
  const char *name = g_variant_get_string (param, NULL);
  g_autoptr (GTask) task = NULL;
  g_autoptr (GError) error = NULL;
  Request *req;
  WeftPpSchedule schedule;

  if (pl == NULL || !pl->composed || pl->cancellable != NULL || !weft_compose_parse_pp_schedule (name, &schedule, &error))
    return;
  req = g_new0 (Request, 1);
  if (!switch_params (&pl->params, schedule, &req->params, &error))
    {
      g_autofree char *what = g_strdup_printf ("Cannot compose this step with %s", name);
      _weft_window_show_error (self, what, error->message);
      request_free (req);
      return;
    }
  req->label = g_strdup_printf ("%s · %s", self->display_name != NULL ? self->display_name : "composed", name);
  pl->running = g_strdup (name);
  pl->cancellable = g_cancellable_new ();
  task = g_task_new (self, pl->cancellable, compose_done_cb, g_object_ref (self));
  g_task_set_task_data (task, req, request_free);
  g_task_run_in_thread (task, compose_thread);
  _weft_window_update_actions (self);
  _weft_window_schedule_state (self);
}

static void
rebuild_menu (WeftWindow *self)
{
  WeftWindowPipeline *pl = self->pipeline;
  const char *current = weft_compose_pp_schedule_to_string (pl->params.pp_schedule);
  g_autofree char *label = g_strdup_printf ("_Schedule: %s", current);
  g_autoptr (GMenu) refused = g_menu_new ();

  g_menu_remove_all (pl->menu);
  g_ptr_array_set_size (pl->refused, 0);
  for (guint i = 0; weft_compose_pp_schedule_name (i) != NULL; i++)
    {
      const char *name = weft_compose_pp_schedule_name (i);
      g_autofree char *item = NULL;
      g_autofree char *detailed = NULL;
      g_autoptr (GError) error = NULL;
      WeftComposeParams params;
      WeftPpSchedule schedule;
      if (g_strcmp0 (name, current) == 0 || !weft_compose_parse_pp_schedule (name, &schedule, NULL))
        continue;
      if (!switch_params (&pl->params, schedule, &params, &error))
        {
          /* greyed (win.pp-refused is never enabled), with the reason */
          item = g_strdup_printf ("%s: %s", name, error->message);
          g_menu_append (refused, item, "win.pp-refused");
          g_ptr_array_add (pl->refused, g_strdup_printf ("%s\t%s", name, error->message));
          continue;
        }
      item = g_strdup_printf ("Compare with %s", name);
      detailed = g_strdup_printf ("win.pp-schedule::%s", name);
      g_menu_append (pl->menu, item, detailed);
    }
  if (g_menu_model_get_n_items (G_MENU_MODEL (refused)) > 0)
    g_menu_append_section (pl->menu, "Not for this step", G_MENU_MODEL (refused));
  gtk_menu_button_set_label (GTK_MENU_BUTTON (pl->button), label);
}

/* ---- the window's hooks ------------------------------------------------------------------------- */

void
_weft_window_class_pipeline_init (WeftWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  gtk_widget_class_install_action (widget_class, "win.pp-schedule", "s", pp_schedule_activated);
  /* the items of the schedules the step cannot use: always greyed */
  gtk_widget_class_install_action (widget_class, "win.pp-refused", NULL, NULL);
  gtk_widget_class_install_property_action (widget_class, "win.color-microbatch", "color-microbatch");
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_p, 0, "win.color-microbatch", NULL);
}

void
_weft_window_pipeline_init (WeftWindow *self)
{
  WeftWindowPipeline *pl = pipeline_get (self);

  pl->menu = g_menu_new ();
  pl->button = gtk_menu_button_new ();
  gtk_menu_button_set_use_underline (GTK_MENU_BUTTON (pl->button), TRUE);
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (pl->button), G_MENU_MODEL (pl->menu));
  gtk_widget_set_tooltip_text (pl->button, "Pipeline schedule of this composed step: compare it with the same step "
                                           "under another schedule");
  gtk_widget_set_visible (pl->button, FALSE);
  gtk_header_bar_pack_end (GTK_HEADER_BAR (self->header), pl->button);
}

void
_weft_window_pipeline_clear (WeftWindow *self)
{
  WeftWindowPipeline *pl = self->pipeline;

  if (pl == NULL)
    return;
  if (pl->cancellable != NULL)
    g_cancellable_cancel (pl->cancellable);
  g_clear_object (&pl->cancellable);
  g_clear_pointer (&pl->running, g_free);
  pl->composed = FALSE;
  if (pl->menu != NULL)
    g_menu_remove_all (pl->menu);
  if (pl->refused != NULL)
    g_ptr_array_set_size (pl->refused, 0);
  if (pl->button != NULL)
    gtk_widget_set_visible (pl->button, FALSE);
}

void
_weft_window_pipeline_document_set (WeftWindow *self)
{
  WeftWindowPipeline *pl = pipeline_get (self);

  _weft_window_pipeline_clear (self);
  pl->composed = self->trace != NULL && weft_trace_get_compose_params (self->trace, &pl->params) &&
                 (pl->params.strategies & WEFT_STRATEGY_PP) && pl->params.pp > 1;
  if (pl->composed)
    rebuild_menu (self);
  gtk_widget_set_visible (pl->button, pl->composed);
  _weft_window_pipeline_set_color (self, self->color_microbatch);
}

void
_weft_window_pipeline_update_actions (WeftWindow *self)
{
  WeftWindowPipeline *pl = self->pipeline;
  gboolean can = pl != NULL && pl->composed && pl->cancellable == NULL && self->solver != NULL &&
                 !_weft_window_is_loading (self);

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.pp-schedule", can);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.pp-refused", FALSE);
  if (pl != NULL && pl->button != NULL)
    gtk_widget_set_sensitive (pl->button, can);
}

void
_weft_window_pipeline_free (WeftWindow *self)
{
  if (self->pipeline == NULL)
    return;
  _weft_window_pipeline_clear (self);
  g_clear_object (&self->pipeline->menu);
  g_clear_pointer (&self->pipeline->refused, g_ptr_array_unref);
  g_free (self->pipeline->error);
  g_clear_pointer (&self->pipeline, g_free);
}

/* Where a test can look at the colour of ops of different microbatches:
 * per microbatch (the first four), the widest forward GEMM of the first
 * rank that is at least 10 px wide on screen, its box in X window
 * coordinates. O(events of that rank), in the test state only. */
static json_object *
probes_json (WeftWindow *self)
{
  WeftTimelineView *tv = WEFT_TIMELINE_VIEW (self->view);
  const WeftView *view = weft_timeline_view_get_view (tv);
  const WeftLayout *layout = weft_timeline_view_get_layout (tv);
  json_object *arr = json_object_new_array ();
  g_autofree guint32 *table = NULL;
  WeftRank *rank;
  graphene_rect_t body;
  graphene_point_t p;
  double sx = 0, sy = 0;
  struct
  {
    guint32 event;
    double  x0, x1, y;
  } best[4];

  if (self->trace == NULL || layout == NULL || self->trace->ranks->len == 0)
    return arr;
  rank = weft_trace_rank (self->trace, 0);
  table = weft_rank_pp_action_table (rank);
  if (table == NULL)
    return arr;
  for (int k = 0; k < 4; k++)
    best[k].event = WEFT_NONE;
  weft_timeline_view_get_body_rect (tv, &body);
  for (guint32 e = 0; e < rank->events->len; e++)
    {
      const WeftEvent *ev = weft_rank_event (rank, e);
      WeftPpAction a;
      const WeftLayoutRow *row;
      WeftTimeSpan s;
      double x0, x1, y;
      int ri;
      if (!(ev->flags & WEFT_EVENT_GPU_OP) || ev->kclass != WEFT_KCLASS_GEMM || weft_event_coll (rank, ev) != WEFT_NONE ||
          (ev->flags & WEFT_EVENT_DELETED) || !weft_pp_action_unpack (table[e], &a) || a.kind != 'F' ||
          a.microbatch >= 4 || ev->lane == WEFT_NONE || (ri = weft_layout_find_lane (layout, 0, ev->lane)) < 0)
        continue;
      row = weft_layout_get_row (layout, (guint) ri);
      if (row->kind != WEFT_ROW_LANE)
        continue;
      s = weft_render_event_span (self->trace, &self->times, 0, e);
      x0 = MAX (weft_render_time_to_x (view, s.begin), 0.0);
      x1 = MIN (weft_render_time_to_x (view, s.end), body.size.width);
      y = row->y + 2.0 + weft_layout_event_depth (layout, 0, e) * WEFT_RENDER_LANE_ROW - view->scroll_y;
      if (x1 - x0 < 10 || y < 0 || y + WEFT_RENDER_LANE_ROW > body.size.height)
        continue;
      if (best[a.microbatch].event == WEFT_NONE || x1 - x0 > best[a.microbatch].x1 - best[a.microbatch].x0)
        {
          best[a.microbatch].event = e;
          best[a.microbatch].x0 = x0;
          best[a.microbatch].x1 = x1;
          best[a.microbatch].y = y;
        }
    }
  gtk_native_get_surface_transform (GTK_NATIVE (self), &sx, &sy);
  for (int k = 0; k < 4; k++)
    {
      json_object *o;
      if (best[k].event == WEFT_NONE ||
          !gtk_widget_compute_point (GTK_WIDGET (tv), GTK_WIDGET (self),
                                     &GRAPHENE_POINT_INIT (body.origin.x + best[k].x0, body.origin.y + best[k].y), &p))
        continue;
      o = json_object_new_object ();
      json_object_object_add (o, "microbatch", json_object_new_int (k));
      json_object_object_add (o, "event", json_object_new_int64 (best[k].event));
      json_object_object_add (o, "x", json_object_new_int ((int) (p.x + sx)));
      json_object_object_add (o, "y", json_object_new_int ((int) (p.y + sy)));
      json_object_object_add (o, "w", json_object_new_int ((int) (best[k].x1 - best[k].x0)));
      json_object_object_add (o, "h", json_object_new_int ((int) (WEFT_RENDER_LANE_ROW - 2.0)));
      json_object_array_add (arr, o);
    }
  return arr;
}

/* "pipeline_ui": the colour mode, the schedule menu (shown, its button in X
 * window coordinates, its items), a compose running, the last error. */
void
_weft_window_pipeline_test_state (WeftWindow *self, json_object *root)
{
  WeftWindowPipeline *pl = self->pipeline;
  json_object *o = json_object_new_object ();
  json_object *items = json_object_new_array ();
  json_object *refused = json_object_new_array ();
  json_object *r;

  json_object_object_add (o, "color_microbatch", json_object_new_boolean (self->color_microbatch));
  json_object_object_add (o, "has_actions", json_object_new_boolean (
                                              weft_timeline_view_has_pp_actions (WEFT_TIMELINE_VIEW (self->view))));
  if (pl != NULL)
    {
      json_object_object_add (o, "composed", json_object_new_boolean (pl->composed));
      json_object_object_add (o, "switches", json_object_new_int ((int) pl->switches));
      json_object_object_add (o, "running", pl->running != NULL ? json_object_new_string (pl->running) : NULL);
      json_object_object_add (o, "error", pl->error != NULL ? json_object_new_string (pl->error) : NULL);
      if (pl->composed)
        {
          json_object_object_add (o, "schedule",
                                  json_object_new_string (weft_compose_pp_schedule_to_string (pl->params.pp_schedule)));
          json_object_object_add (o, "microbatches",
                                  json_object_new_int (weft_compose_pp_microbatches (&pl->params)));
        }
      for (int i = 0; pl->menu != NULL && i < g_menu_model_get_n_items (G_MENU_MODEL (pl->menu)); i++)
        {
          g_autofree char *target = NULL;
          /* the items of the schedules it can switch to (the section of the
           * refused ones has no target) */
          if (g_menu_model_get_item_attribute (G_MENU_MODEL (pl->menu), i, G_MENU_ATTRIBUTE_TARGET, "s", &target))
            json_object_array_add (items, json_object_new_string (target));
        }
      for (guint i = 0; i < pl->refused->len; i++)
        {
          const char *line = g_ptr_array_index (pl->refused, i);
          const char *tab = strchr (line, '\t');
          json_object *one = json_object_new_object ();
          json_object_object_add (one, "schedule", json_object_new_string_len (line, (int) (tab - line)));
          json_object_object_add (one, "reason", json_object_new_string (tab + 1));
          json_object_array_add (refused, one);
        }
      if (pl->button != NULL && (r = _weft_window_widget_box (self, pl->button)) != NULL)
        json_object_object_add (o, "button", r);
    }
  json_object_object_add (o, "items", items);
  json_object_object_add (o, "refused", refused);
  json_object_object_add (o, "probes", probes_json (self));
  json_object_object_add (root, "pipeline_ui", o);
}
