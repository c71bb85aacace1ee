/* weft-window-actions.c: the window's actions ("win.*"), installed on the
 * class with gtk_widget_class_install_action (as GNOME Text Editor's
 * editor-window-actions.c), their keys (set by the application with
 * gtk_application_set_accels_for_action), the dialogs they open, and
 * _weft_window_update_actions: the one place that enables and disables
 * them. View > Inspector and View > Align Rank Clocks are property actions
 * (the window's show-inspector and align-clocks). */
#include "config.h"

#include <string.h>

#include "weft/weft.h"
#include "weft-apply-dialog.h"
#include "weft-palette.h"
#include "weft-strategy-palette.h"
#include "weft-template-dialog.h"
#include "weft-timeline-view.h"
#include "weft-window-private.h"

/* ---- files ----------------------------------------------------------------------- */

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
  gtk_file_filter_add_mime_type (traces, "application/x-kineto-trace-gzip");
  gtk_file_filter_add_mime_type (traces, "application/x-kineto-trace-zstd");
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
open_activated (GtkWidget *widget, const char *action_name, GVariant *param)
{
  open_dialog (WEFT_WINDOW (widget), FALSE);
}

static void
open_folder_activated (GtkWidget *widget, const char *action_name, GVariant *param)
{
  open_dialog (WEFT_WINDOW (widget), TRUE);
}

static void
open_recent_activated (GtkWidget *widget, const char *action_name, GVariant *param)
{
  g_autoptr (GFile) file = g_file_new_for_uri (g_variant_get_string (param, NULL));
  weft_window_open (WEFT_WINDOW (widget), file);
}

static void
reload_activated (GtkWidget *widget, const char *action_name, GVariant *param)
{
  _weft_window_reload (WEFT_WINDOW (widget));
}

static void
cancel_load_activated (GtkWidget *widget, const char *action_name, GVariant *param)
{
  WeftWindow *self = WEFT_WINDOW (widget);
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
}

static void
close_activated (GtkWidget *widget, const char *action_name, GVariant *param)
{
  gtk_window_close (GTK_WINDOW (widget));
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
            _weft_window_show_error (self, "Could not export the view", error->message);
        }
    }
  g_object_unref (native);
}

static void
export_activated (GtkWidget *widget, const char *action_name, GVariant *param)
{
  WeftWindow *self = WEFT_WINDOW (widget);
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

/* ---- editing --------------------------------------------------------------------- */

static void
undo_activated (GtkWidget *widget, const char *action_name, GVariant *param)
{
  WeftWindow *self = WEFT_WINDOW (widget);
  g_autoptr (GError) error = NULL;
  gboolean undo = strcmp (action_name, "win.undo") == 0;

  if (self->session == NULL || weft_timeline_view_is_dragging (WEFT_TIMELINE_VIEW (self->view)))
    return;
  if (!(undo ? weft_edit_session_undo (self->session, &error) : weft_edit_session_redo (self->session, &error)))
    _weft_window_show_error (self, undo ? "Could not undo" : "Could not redo", error->message);
}

static void
save_activated (GtkWidget *widget, const char *action_name, GVariant *param)
{
  WeftWindow *self = WEFT_WINDOW (widget);

  if (self->session == NULL || weft_timeline_view_is_dragging (WEFT_TIMELINE_VIEW (self->view)))
    return;
  _weft_window_save (self, strcmp (action_name, "win.save") != 0);
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
            ok = weft_edit_session_scale_class (self->session, t->kclass, f, &n, &error);
          else
            ok = weft_edit_session_scale_collective (self->session, t->coll, f, &n, &error);
          if (!ok)
            _weft_window_show_error (self, "Could not scale the durations", error->message);
          else if (n == 0)
            _weft_window_show_error (self, "Nothing was scaled", "The trace has no such operations.");
        }
    }
  gtk_window_destroy (GTK_WINDOW (dialog));
}

static void
scale_activated (GtkWidget *widget, const char *action_name, GVariant *param)
{
  WeftWindow *self = WEFT_WINDOW (widget);
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
apply_strategy_activated (GtkWidget *widget, const char *action_name, GVariant *param)
{
  WeftWindow *self = WEFT_WINDOW (widget);
  GtkWidget *dialog;

  if (self->session == NULL || weft_timeline_view_is_dragging (WEFT_TIMELINE_VIEW (self->view)))
    return;
  dialog = weft_apply_dialog_new (GTK_WINDOW (self), self->session);
  g_signal_connect_object (dialog, "created", G_CALLBACK (template_created_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
new_from_template_activated (GtkWidget *widget, const char *action_name, GVariant *param)
{
  WeftWindow *self = WEFT_WINDOW (widget);
  GtkWidget *dialog = weft_template_dialog_new (GTK_WINDOW (self));

  g_signal_connect_object (dialog, "created", G_CALLBACK (template_created_cb), self, 0);
  g_signal_connect_object (dialog, "created-compared", G_CALLBACK (_weft_window_compare_template_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
palette_drop_cb (WeftTimelineView *view, const char *payload, guint rank_index, guint lane, gint64 at,
                 WeftWindow *self)
{
  const WeftPaletteKernel *k = weft_palette_lookup_kernel (WEFT_PALETTE (self->palette), payload);
  const WeftPaletteCollective *c = weft_palette_lookup_collective (WEFT_PALETTE (self->palette), payload);
  WeftEventRef op = { WEFT_NONE, WEFT_NONE };
  g_autoptr (GError) error = NULL;
  gboolean ok = FALSE;

  if (self->session == NULL)
    return;
  if (k != NULL)
    ok = weft_edit_session_insert_kernel (self->session, rank_index, lane, at, k, k->median_dur, &op, &error);
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
      ok = weft_edit_session_insert_collective (self->session, &spec, &op, &error);
    }
  else
    return;
  if (!ok)
    _weft_window_show_error (self, "Could not insert it there", error->message);
  else if (op.event != WEFT_NONE)
    weft_timeline_view_select (view, op.rank_index, op.event);
}

/* ---- view ------------------------------------------------------------------------ */

static gboolean
late_state_cb (gpointer data)
{
  _weft_window_schedule_state (WEFT_WINDOW (data));
  return G_SOURCE_REMOVE;
}

static void
side_page_activated (GtkWidget *widget, const char *action_name, GVariant *param)
{
  WeftWindow *self = WEFT_WINDOW (widget);
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
show_shortcuts_activated (GtkWidget *widget, const char *action_name, GVariant *param)
{
  WeftWindow *self = WEFT_WINDOW (widget);
  g_autoptr (GtkBuilder) builder = gtk_builder_new_from_resource ("/org/weft/Weft/ui/weft-shortcuts.ui");
  GtkWindow *win = GTK_WINDOW (gtk_builder_get_object (builder, "shortcuts"));

  gtk_window_set_transient_for (win, GTK_WINDOW (self));
  gtk_window_present (win);
}

static void
test_screenshot_activated (GtkWidget *widget, const char *action_name, GVariant *param)
{
  _weft_window_take_test_screenshot (WEFT_WINDOW (widget));
}

/* ---- enabling -------------------------------------------------------------------- */

/* The one place that enables and disables the window's actions. */
void
_weft_window_update_actions (WeftWindow *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  gboolean loading = _weft_window_is_loading (self);
  gboolean has_trace = self->trace != NULL;

#define ENABLE(name, cond) gtk_widget_action_set_enabled (widget, "win." name, (cond))
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
  ENABLE ("toggle-tables", has_trace);
  ENABLE ("test-screenshot", self->screenshot_path != NULL);
#undef ENABLE
  _weft_window_compare_update_actions (self);
  _weft_window_pipeline_update_actions (self);
}

/* Installs the actions (after the template: palette_drop_cb is one of its
 * callbacks). The properties of the property actions are installed first. */
void
_weft_window_class_actions_init (WeftWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  gtk_widget_class_install_action (widget_class, "win.open", NULL, open_activated);
  gtk_widget_class_install_action (widget_class, "win.open-folder", NULL, open_folder_activated);
  gtk_widget_class_install_action (widget_class, "win.open-recent", "s", open_recent_activated);
  gtk_widget_class_install_action (widget_class, "win.reload", NULL, reload_activated);
  gtk_widget_class_install_action (widget_class, "win.cancel-load", NULL, cancel_load_activated);
  gtk_widget_class_install_action (widget_class, "win.close", NULL, close_activated);
  gtk_widget_class_install_action (widget_class, "win.export", "s", export_activated);
  gtk_widget_class_install_action (widget_class, "win.show-shortcuts", NULL, show_shortcuts_activated);
  gtk_widget_class_install_property_action (widget_class, "win.toggle-inspector", "show-inspector");
  gtk_widget_class_install_property_action (widget_class, "win.toggle-tables", "show-tables");
  gtk_widget_class_install_action (widget_class, "win.test-screenshot", NULL, test_screenshot_activated);
  gtk_widget_class_install_action (widget_class, "win.undo", NULL, undo_activated);
  gtk_widget_class_install_action (widget_class, "win.redo", NULL, undo_activated);
  gtk_widget_class_install_action (widget_class, "win.save", NULL, save_activated);
  gtk_widget_class_install_action (widget_class, "win.save-as", NULL, save_activated);
  gtk_widget_class_install_action (widget_class, "win.scale", NULL, scale_activated);
  gtk_widget_class_install_action (widget_class, "win.side-page", "s", side_page_activated);
  gtk_widget_class_install_property_action (widget_class, "win.align-clocks", "align-clocks");
  gtk_widget_class_install_action (widget_class, "win.new-from-template", NULL, new_from_template_activated);
  gtk_widget_class_install_action (widget_class, "win.apply-strategy", NULL, apply_strategy_activated);

  gtk_widget_class_bind_template_callback (widget_class, palette_drop_cb);
}
