/* weft-template-dialog.c: New from Template.
 *
 * The parameters of the composer (strategies, degrees, model preset,
 * layers, hardware, SP / prefetch options). Every change (debounced) composes
 * the step in a GTask thread (weft_compose_trace), solves it and shows step
 * time, overlap and exposed communication as a preview; a newer change
 * cancels the older preview. Create writes the per-rank traces under
 * $XDG_CACHE_HOME/weft/templates/<name>-<time>/ and emits "created" with
 * the folder, which the window opens. */
#include "config.h"

#include <string.h>

#include "weft/weft-compose.h"
#include "weft/weft-solver.h"
#include "weft-app-util.h"
#include "weft-template-dialog.h"

struct _WeftTemplateDialog
{
  GtkWindow parent_instance;

  GtkWidget *strategy[5];
  GtkWidget *dp, *tp, *cp, *ep, *layers;
  GtkWidget *preset, *hw;
  GtkWidget *sp, *prefetch;
  GtkWidget *preview;
  GtkWidget *create;
  guint      debounce;
  GCancellable *cancellable;
};

G_DEFINE_FINAL_TYPE (WeftTemplateDialog, weft_template_dialog, GTK_TYPE_WINDOW)

enum
{
  SIGNAL_CREATED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static const char *const strategy_names[5] = { "DDP", "FSDP", "TP", "EP", "CP" };
static const char *const hw_names[] = { "h100", "h200", NULL };

static gboolean
collect_params (WeftTemplateDialog *self, WeftComposeParams *params, GError **error)
{
  const char *const *presets = weft_compose_preset_names ();
  guint preset = gtk_drop_down_get_selected (GTK_DROP_DOWN (self->preset));
  guint hw = gtk_drop_down_get_selected (GTK_DROP_DOWN (self->hw));

  weft_compose_params_init (params);
  if (preset != GTK_INVALID_LIST_POSITION && presets[preset] != NULL &&
      !weft_compose_params_set_preset (params, presets[preset], error))
    return FALSE;
  if (hw < G_N_ELEMENTS (hw_names) - 1 && !weft_compose_params_set_hardware (params, hw_names[hw], error))
    return FALSE;
  params->strategies = 0;
  for (int i = 0; i < 5; i++)
    if (gtk_check_button_get_active (GTK_CHECK_BUTTON (self->strategy[i])))
      params->strategies |= 1u << i;
  if (params->strategies == 0)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "Choose at least one strategy");
      return FALSE;
    }
  params->dp = gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (self->dp));
  params->tp = gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (self->tp));
  params->cp = gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (self->cp));
  params->ep = gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (self->ep));
  params->model.layers = gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (self->layers));
  params->sequence_parallel = gtk_check_button_get_active (GTK_CHECK_BUTTON (self->sp));
  params->fsdp_prefetch = gtk_check_button_get_active (GTK_CHECK_BUTTON (self->prefetch));
  return weft_compose_params_validate (params, error);
}

/* ---- preview --------------------------------------------------------------------- */

typedef struct
{
  WeftComposeParams params;
  WeftMetrics       m;
  int               world;
  gint64            compose_us;
} PreviewJob;

static void
preview_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  PreviewJob *job = data;
  GError *error = NULL;
  gint64 t0 = g_get_monotonic_time ();
  g_autoptr (WeftTrace) trace = weft_compose_trace (&job->params, &error);
  g_autoptr (WeftSolver) solver = NULL;

  if (trace == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  if (g_task_return_error_if_cancelled (task))
    return;
  solver = weft_solver_new (trace, &error);
  if (solver == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  if (!weft_solver_metrics (solver, WEFT_SOLVER_ALL_RANKS, WEFT_SOLVER_ALL_STEPS, &job->m))
    {
      g_task_return_new_error (task, WEFT_ERROR, WEFT_ERROR_INVALID, "The composed step has no GPU work");
      return;
    }
  job->world = weft_compose_world_size (&job->params);
  job->compose_us = g_get_monotonic_time () - t0;
  g_task_return_boolean (task, TRUE);
}

static void
preview_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  PreviewJob *job = g_task_get_task_data (G_TASK (result));
  g_autoptr (GError) error = NULL;
  WeftTemplateDialog *self;
  g_autofree char *text = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
      self = WEFT_TEMPLATE_DIALOG (source);
      text = g_strdup_printf ("Cannot compose: %s", error->message);
      gtk_label_set_text (GTK_LABEL (self->preview), text);
      gtk_widget_set_sensitive (self->create, FALSE);
      return;
    }
  self = WEFT_TEMPLATE_DIALOG (source);
  {
    g_autofree char *step = weft_format_duration (job->m.step_time);
    g_autofree char *exposed = weft_format_duration (job->m.exposed_comm);
    g_autofree char *cp = weft_format_duration (job->m.cp_length);
    text = g_strdup_printf ("%d ranks · step %s · overlap %.1f%% · exposed communication %s · critical path %s\n"
                            "(composed and solved in %.0f ms)",
                            job->world, step, job->m.overlap_pct, exposed, cp, job->compose_us / 1000.0);
  }
  gtk_label_set_text (GTK_LABEL (self->preview), text);
  gtk_widget_set_sensitive (self->create, TRUE);
}

static gboolean
preview_cb (gpointer data)
{
  WeftTemplateDialog *self = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GTask) task = NULL;
  PreviewJob *job = g_new0 (PreviewJob, 1);

  self->debounce = 0;
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  if (!collect_params (self, &job->params, &error))
    {
      g_autofree char *text = g_strdup_printf ("Cannot compose: %s", error->message);
      gtk_label_set_text (GTK_LABEL (self->preview), text);
      gtk_widget_set_sensitive (self->create, FALSE);
      g_free (job);
      return G_SOURCE_REMOVE;
    }
  gtk_label_set_text (GTK_LABEL (self->preview), "Composing…");
  self->cancellable = g_cancellable_new ();
  task = g_task_new (self, self->cancellable, preview_done, NULL);
  g_task_set_task_data (task, job, g_free);
  g_task_run_in_thread (task, preview_thread);
  return G_SOURCE_REMOVE;
}

static void
changed_cb (WeftTemplateDialog *self)
{
  g_clear_handle_id (&self->debounce, g_source_remove);
  self->debounce = g_timeout_add (250, preview_cb, self);
}

/* ---- create ------------------------------------------------------------------------ */

static void
create_clicked_cb (GtkButton *button, WeftTemplateDialog *self)
{
  WeftComposeParams params;
  g_autoptr (GError) error = NULL;
  g_autoptr (GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *stamp = g_date_time_format (now, "%Y%m%d-%H%M%S");
  g_autofree char *strategies = NULL;
  g_autofree char *name = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *written = NULL;

  if (!collect_params (self, &params, &error))
    {
      gtk_label_set_text (GTK_LABEL (self->preview), error->message);
      return;
    }
  strategies = weft_compose_strategies_to_string (params.strategies);
  name = g_strdup_printf ("%s-%s-%dranks-%s", strategies, params.model.name, weft_compose_world_size (&params), stamp);
  dir = g_build_filename (g_get_user_cache_dir (), "weft", "templates", name, NULL);
  if (!weft_compose_write (&params, dir, ".json.gz", &written, &error))
    {
      g_autofree char *text = g_strdup_printf ("Could not write the trace: %s", error->message);
      gtk_label_set_text (GTK_LABEL (self->preview), text);
      return;
    }
  /* the root of the torchtitan layout: the window names the trace after it */
  g_signal_emit (self, signals[SIGNAL_CREATED], 0, dir);
  gtk_window_destroy (GTK_WINDOW (self));
}

/* ---- construction -------------------------------------------------------------------- */

static GtkWidget *
spin (WeftTemplateDialog *self, int min, int max, int value)
{
  GtkWidget *s = gtk_spin_button_new_with_range (min, max, 1);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (s), value);
  g_signal_connect_swapped (s, "value-changed", G_CALLBACK (changed_cb), self);
  return s;
}

static void
weft_template_dialog_dispose (GObject *object)
{
  WeftTemplateDialog *self = WEFT_TEMPLATE_DIALOG (object);

  g_clear_handle_id (&self->debounce, g_source_remove);
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  G_OBJECT_CLASS (weft_template_dialog_parent_class)->dispose (object);
}

static void
weft_template_dialog_class_init (WeftTemplateDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = weft_template_dialog_dispose;
  signals[SIGNAL_CREATED] = g_signal_new ("created", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                          G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
weft_template_dialog_init (WeftTemplateDialog *self)
{
  GtkWidget *header = gtk_header_bar_new ();
  GtkWidget *cancel = gtk_button_new_with_mnemonic ("_Cancel");
  GtkWidget *grid = gtk_grid_new ();
  GtkWidget *strategies = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *options = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  int row = 0;

  gtk_window_set_title (GTK_WINDOW (self), "New from Template");
  gtk_window_set_modal (GTK_WINDOW (self), TRUE);
  gtk_window_set_default_size (GTK_WINDOW (self), 560, -1);
  self->create = gtk_button_new_with_mnemonic ("C_reate");
  gtk_widget_add_css_class (self->create, "suggested-action");
  gtk_widget_set_sensitive (self->create, FALSE);
  g_signal_connect (self->create, "clicked", G_CALLBACK (create_clicked_cb), self);
  g_signal_connect_swapped (cancel, "clicked", G_CALLBACK (gtk_window_destroy), self);
  gtk_header_bar_set_show_title_buttons (GTK_HEADER_BAR (header), FALSE);
  gtk_header_bar_pack_start (GTK_HEADER_BAR (header), cancel);
  gtk_header_bar_pack_end (GTK_HEADER_BAR (header), self->create);
  gtk_window_set_titlebar (GTK_WINDOW (self), header);

  for (int i = 0; i < 5; i++)
    {
      self->strategy[i] = gtk_check_button_new_with_label (strategy_names[i]);
      g_signal_connect_swapped (self->strategy[i], "toggled", G_CALLBACK (changed_cb), self);
      gtk_box_append (GTK_BOX (strategies), self->strategy[i]);
    }
  gtk_check_button_set_active (GTK_CHECK_BUTTON (self->strategy[1]), TRUE); /* FSDP */

  self->preset = gtk_drop_down_new_from_strings (weft_compose_preset_names ());
  g_signal_connect_swapped (self->preset, "notify::selected", G_CALLBACK (changed_cb), self);
  self->hw = gtk_drop_down_new_from_strings (hw_names);
  g_signal_connect_swapped (self->hw, "notify::selected", G_CALLBACK (changed_cb), self);
  self->dp = spin (self, 1, 64, 8);
  self->tp = spin (self, 1, 64, 1);
  self->cp = spin (self, 1, 64, 1);
  self->ep = spin (self, 1, 64, 1);
  self->layers = spin (self, 1, 128, 4);
  self->sp = gtk_check_button_new_with_label ("Sequence parallel (TP)");
  self->prefetch = gtk_check_button_new_with_label ("FSDP prefetch");
  gtk_check_button_set_active (GTK_CHECK_BUTTON (self->prefetch), TRUE);
  g_signal_connect_swapped (self->sp, "toggled", G_CALLBACK (changed_cb), self);
  g_signal_connect_swapped (self->prefetch, "toggled", G_CALLBACK (changed_cb), self);
  gtk_box_append (GTK_BOX (options), self->sp);
  gtk_box_append (GTK_BOX (options), self->prefetch);

  self->preview = gtk_label_new ("");
  gtk_label_set_wrap (GTK_LABEL (self->preview), TRUE);
  gtk_label_set_xalign (GTK_LABEL (self->preview), 0);
  gtk_label_set_selectable (GTK_LABEL (self->preview), TRUE);
  gtk_widget_add_css_class (self->preview, "weft-template-preview");

  gtk_grid_set_row_spacing (GTK_GRID (grid), 8);
  gtk_grid_set_column_spacing (GTK_GRID (grid), 12);
  gtk_widget_set_margin_start (grid, 18);
  gtk_widget_set_margin_end (grid, 18);
  gtk_widget_set_margin_top (grid, 18);
  gtk_widget_set_margin_bottom (grid, 18);
#define ROW(label, widget)                                                  \
  do                                                                        \
    {                                                                       \
      GtkWidget *l = gtk_label_new (label);                                 \
      gtk_label_set_xalign (GTK_LABEL (l), 1);                              \
      gtk_widget_add_css_class (l, "dim-label");                            \
      gtk_grid_attach (GTK_GRID (grid), l, 0, row, 1, 1);                   \
      gtk_grid_attach (GTK_GRID (grid), (widget), 1, row, 1, 1);            \
      row++;                                                                \
    }                                                                       \
  while (0)
  ROW ("Strategies", strategies);
  ROW ("Data parallel", self->dp);
  ROW ("Tensor parallel", self->tp);
  ROW ("Context parallel", self->cp);
  ROW ("Expert parallel", self->ep);
  ROW ("Model", self->preset);
  ROW ("Layers", self->layers);
  ROW ("Hardware", self->hw);
  ROW ("Options", options);
#undef ROW
  gtk_grid_attach (GTK_GRID (grid), gtk_separator_new (GTK_ORIENTATION_HORIZONTAL), 0, row++, 2, 1);
  gtk_grid_attach (GTK_GRID (grid), self->preview, 0, row++, 2, 1);
  gtk_window_set_child (GTK_WINDOW (self), grid);
  changed_cb (self);
}

GtkWidget *
weft_template_dialog_new (GtkWindow *parent)
{
  GtkWidget *self = g_object_new (WEFT_TYPE_TEMPLATE_DIALOG, NULL);

  if (parent != NULL)
    gtk_window_set_transient_for (GTK_WINDOW (self), parent);
  gtk_window_set_destroy_with_parent (GTK_WINDOW (self), TRUE);
  return self;
}
