/* weft-window-save.c: saving the window's document.
 *
 * Ctrl+S writes without asking where it can (infer_save_target): back over
 * the loaded file, or over a folder of rank<R>_trace<ext>; otherwise, and on
 * Save As, a file chooser (a file for one rank, a folder with a format
 * choice for several). Closing with unsaved edits asks Save / Discard /
 * Cancel; after a crash, the autosaved edits are offered back (recovery). */
#include "config.h"

#include <string.h>

#include "weft/weft.h"
#include "weft-window-private.h"

/* The formats Save As offers for a folder of rank files (json.gz first:
 * the default). HTA and Perfetto read .json and .json.gz, not .json.zst;
 * the labels say so. */
const WeftSaveFormat _weft_window_save_formats[] = {
  { "json.gz", "json.gz: gzip; HTA and Perfetto read it" },
  { "json", "json: plain text; HTA and Perfetto read it" },
  { "json.zst", "json.zst: zstd, smallest; Weft only (HTA and Perfetto read .json and .json.gz, not .json.zst)" },
};
const guint _weft_window_n_save_formats = G_N_ELEMENTS (_weft_window_save_formats);

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
      _weft_window_show_error (self, "Could not save the trace", error->message);
      return FALSE;
    }
  _weft_window_update_title (self);
  _weft_window_update_actions (self);
  _weft_window_schedule_state (self);
  return TRUE;
}

static void save_as (WeftWindow *self);

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
              _weft_window_add_recent (self, target);
              _weft_window_update_title (self);
            }
        }
    }
  self->save_dialog = NULL;
  _weft_window_schedule_state (self);
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
      const char *ids[G_N_ELEMENTS (_weft_window_save_formats) + 1] = { NULL };
      const char *labels[G_N_ELEMENTS (_weft_window_save_formats) + 1] = { NULL };
      for (guint i = 0; i < G_N_ELEMENTS (_weft_window_save_formats); i++)
        {
          ids[i] = _weft_window_save_formats[i].id;
          labels[i] = _weft_window_save_formats[i].label;
        }
      gtk_file_chooser_add_choice (GTK_FILE_CHOOSER (native), "format", "Format", ids, labels);
      gtk_file_chooser_set_choice (GTK_FILE_CHOOSER (native), "format", "json.gz");
      g_object_set_data (G_OBJECT (native), "weft-format", GINT_TO_POINTER (1));
    }
  g_signal_connect (native, "response", G_CALLBACK (save_as_response_cb), self);
  self->save_dialog = native;
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
  _weft_window_schedule_state (self);
}

/* Saves where Ctrl+S writes (ask: or where the user picks, Save As). FALSE
 * when it did not save now (an error, or the file chooser is shown). */
gboolean
_weft_window_save (WeftWindow *self, gboolean ask)
{
  if (!ask && infer_save_target (self))
    return save_now (self);
  save_as (self);
  return FALSE;
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

/* GtkWindow::close-request: TRUE (keep the window) while asking what to do
 * with unsaved edits. */
gboolean
_weft_window_close_request (GtkWindow *window)
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
        _weft_window_show_error (self, "Could not restore the unsaved edits", error->message);
    }
  else if (response == GTK_RESPONSE_REJECT)
    weft_recovery_discard (trace_path);
  gtk_window_destroy (GTK_WINDOW (dialog));
  _weft_window_schedule_state (self);
}

/* After a crash: offers to restore the edits autosaved for this trace. */
void
_weft_window_offer_recovery (WeftWindow *self)
{
  g_autofree char *recovery = NULL;
  GtkWidget *dialog;

  if (self->session == NULL || self->paths == NULL || (recovery = weft_recovery_find (self->paths[0])) == NULL)
    return;
  if (g_getenv ("WEFT_RESTORE") != NULL) /* tests and scripts: answer without asking */
    {
      g_autoptr (GError) error = NULL;
      if (strcmp (g_getenv ("WEFT_RESTORE"), "yes") == 0 && !weft_recovery_apply (self->session, recovery, &error))
        _weft_window_show_error (self, "Could not restore the unsaved edits", error->message);
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
