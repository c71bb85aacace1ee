/* recovery.c: autosave of the edit history to a recovery file, and restore.
 *
 * The file is JSON: {"weft_recovery": 1, "trace": "<absolute trace path>",
 * "written_at": <unix seconds>, "entries": [[op, ...], ...], "redo": [[op,
 * ...], ...]}: the undo entries in effect (oldest first) and the undone
 * entries (in the order redo applies them), each a list of edit-log
 * operations (docs/editing.md). Restoring replays them into a freshly loaded
 * session: the edits come back as undo entries, the undone ones as redo
 * entries. Writing goes through g_file_set_contents (temp file in the same
 * folder, then rename), so a crash while writing leaves the previous file.
 *
 * The file lives in the user's own state folder, keyed by the trace:
 * $XDG_STATE_HOME/weft/recovery/<sha1 of the absolute trace path>.json,
 * never beside the trace (in a shared folder another tool loaded it as a
 * rank, and another person was offered someone else's edits). Files of
 * older versions: "$XDG_CACHE_HOME/weft/<sha1>.weft-recovery.json" (the
 * user's own) is still offered and removed with the new one; "<trace>.weft-
 * recovery.json" beside a trace is ignored, never read nor removed: it may
 * be another person's. */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <gio/gio.h>
#include <string.h>

#include "edit-private.h"
#include "weft/weft-load.h"

#define LEGACY_SUFFIX ".weft-recovery.json"

static char *
absolute_trace_path (const char *trace_path)
{
  char *abs = g_canonicalize_filename (trace_path, NULL);
  gsize len = strlen (abs);
  while (len > 1 && abs[len - 1] == G_DIR_SEPARATOR)
    abs[--len] = '\0';
  return abs;
}

static char *
trace_key (const char *trace_path)
{
  g_autofree char *abs = absolute_trace_path (trace_path);
  return g_compute_checksum_for_string (G_CHECKSUM_SHA1, abs, -1);
}

char *
weft_recovery_path (const char *trace_path)
{
  g_autofree char *sum = NULL;
  g_autofree char *name = NULL;

  g_return_val_if_fail (trace_path != NULL, NULL);
  sum = trace_key (trace_path);
  name = g_strconcat (sum, ".json", NULL);
  return g_build_filename (g_get_user_state_dir (), "weft", "recovery", name, NULL);
}

/* Where earlier versions wrote it when the trace's folder was not writable. */
static char *
legacy_cache_path (const char *trace_path)
{
  g_autofree char *sum = trace_key (trace_path);
  g_autofree char *name = g_strconcat (sum, LEGACY_SUFFIX, NULL);
  return g_build_filename (g_get_user_cache_dir (), "weft", name, NULL);
}

gboolean
weft_edit_session_write_recovery (WeftEditSession *self, GError **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  const char *source = weft_edit_session_get_source_path (self);
  g_autofree char *path = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *abs = NULL;
  json_object *root, *entries, *redo;
  const char *text;
  gboolean ok;

  if (source == NULL)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "the session has no trace path: no recovery file");
      return FALSE;
    }
  if (!self->recovery_stale && self->file_stamp != NULL &&
      !weft_recovery_stamp_matches (self->file_stamp))
    self->recovery_stale = TRUE;
  if (self->recovery_stale)
    {
      /* the trace files changed since the session loaded them (saved over,
       * or edited elsewhere): an edit log for them would not fit */
      self->autosaved_serial = weft_edit_session_get_serial (self);
      return TRUE;
    }
  entries = weft_edit_session_log_entries (self, FALSE);
  redo = weft_edit_session_log_entries (self, TRUE);
  if (json_object_array_length (entries) == 0 && json_object_array_length (redo) == 0)
    {
      json_object_put (entries);
      json_object_put (redo);
      weft_recovery_discard (source);
      self->autosaved_serial = weft_edit_session_get_serial (self);
      return TRUE;
    }
  path = weft_recovery_path (source);
  dir = g_path_get_dirname (path);
  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved = errno;
      json_object_put (entries);
      json_object_put (redo);
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_IO, "%s: cannot create folder: %s", dir, g_strerror (saved));
      return FALSE;
    }
  abs = absolute_trace_path (source);
  root = json_object_new_object ();
  json_object_object_add (root, "weft_recovery", json_object_new_int (1));
  json_object_object_add (root, "trace", json_object_new_string (abs));
  json_object_object_add (root, "written_at", json_object_new_int64 (g_get_real_time () / G_USEC_PER_SEC));
  if (self->file_stamp != NULL)
    json_object_object_add (root, "files", json_object_get (self->file_stamp));
  json_object_object_add (root, "entries", entries);
  json_object_object_add (root, "redo", redo);
  text = json_object_to_json_string_ext (root, JSON_C_TO_STRING_PLAIN);
  ok = g_file_set_contents (path, text, -1, error);
  json_object_put (root);
  if (!ok)
    return FALSE;
  self->autosaved_serial = weft_edit_session_get_serial (self);
  return TRUE;
}

gboolean
weft_edit_session_autosave (WeftEditSession *self, GError **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if (self->autosaved_serial == weft_edit_session_get_serial (self))
    return TRUE;
  if (weft_history_get_group_depth (weft_edit_session_get_history (self)) > 0)
    return TRUE; /* mid-gesture: the next tick writes the finished gesture */
  return weft_edit_session_write_recovery (self, error);
}

/* Modification time in microseconds, -1 when the file is missing. */
static gint64
mtime_usec (const char *path)
{
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GFileInfo) info = g_file_query_info (file, G_FILE_ATTRIBUTE_TIME_MODIFIED "," G_FILE_ATTRIBUTE_TIME_MODIFIED_USEC,
                                                  G_FILE_QUERY_INFO_NONE, NULL, NULL);
  if (info == NULL)
    return -1;
  return (gint64) g_file_info_get_attribute_uint64 (info, G_FILE_ATTRIBUTE_TIME_MODIFIED) * G_USEC_PER_SEC +
         g_file_info_get_attribute_uint32 (info, G_FILE_ATTRIBUTE_TIME_MODIFIED_USEC);
}

static gint64
trace_mtime_usec (const char *trace_path)
{
  gint64 newest = mtime_usec (trace_path);

  if (g_file_test (trace_path, G_FILE_TEST_IS_DIR))
    {
      g_autoptr (GPtrArray) files = weft_find_trace_files (trace_path, NULL);
      newest = -1;
      if (files != NULL)
        for (guint i = 0; i < files->len; i++)
          newest = MAX (newest, mtime_usec (g_ptr_array_index (files, i)));
    }
  return newest;
}

static gint64
file_size (const char *path)
{
  GStatBuf st;
  return g_stat (path, &st) == 0 ? (gint64) st.st_size : -1;
}

/* The trace files (a file, or every trace file of a folder) with their size
 * and modification time: which version of the trace an edit log belongs to. */
json_object *
weft_recovery_stamp (const char *trace_path)
{
  json_object *arr = json_object_new_array ();
  g_autoptr (GPtrArray) files = weft_find_trace_files (trace_path, NULL);

  if (files != NULL)
    for (guint i = 0; i < files->len; i++)
      {
        const char *f = g_ptr_array_index (files, i);
        json_object *o = json_object_new_object ();
        g_autofree char *abs = absolute_trace_path (f);
        json_object_object_add (o, "path", json_object_new_string (abs));
        json_object_object_add (o, "size", json_object_new_int64 (file_size (f)));
        json_object_object_add (o, "mtime_us", json_object_new_int64 (mtime_usec (f)));
        json_object_array_add (arr, o);
      }
  return arr;
}

/* TRUE when every stamped file is still there with the same size and time. */
gboolean
weft_recovery_stamp_matches (json_object *stamp)
{
  if (stamp == NULL || !json_object_is_type (stamp, json_type_array) || json_object_array_length (stamp) == 0)
    return FALSE;
  for (size_t i = 0; i < json_object_array_length (stamp); i++)
    {
      json_object *o = json_object_array_get_idx (stamp, i), *p, *sz, *mt;
      if (!json_object_object_get_ex (o, "path", &p) || !json_object_object_get_ex (o, "size", &sz) ||
          !json_object_object_get_ex (o, "mtime_us", &mt))
        return FALSE;
      if (file_size (json_object_get_string (p)) != json_object_get_int64 (sz) ||
          mtime_usec (json_object_get_string (p)) != json_object_get_int64 (mt))
        return FALSE;
    }
  return TRUE;
}

static json_object *
read_recovery (const char *path, GError **error)
{
  g_autofree char *text = NULL;
  gsize len;
  json_tokener *tok;
  json_object *root;
  json_object *v;

  if (!g_file_get_contents (path, &text, &len, error))
    return NULL;
  tok = json_tokener_new_ex (64);
  root = json_tokener_parse_ex (tok, text, (int) MIN (len, (gsize) G_MAXINT));
  if (root == NULL || json_tokener_get_error (tok) != json_tokener_success)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_FORMAT, "%s: byte %zu: not a complete JSON recovery file", path,
                   json_tokener_get_parse_end (tok));
      json_tokener_free (tok);
      if (root)
        json_object_put (root);
      return NULL;
    }
  json_tokener_free (tok);
  if (!json_object_is_type (root, json_type_object) || !json_object_object_get_ex (root, "weft_recovery", &v) ||
      json_object_get_int (v) != 1 || !json_object_object_get_ex (root, "entries", &v) ||
      !json_object_is_type (v, json_type_array))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_FORMAT, "%s: not a Weft recovery file (version 1)", path);
      json_object_put (root);
      return NULL;
    }
  return root;
}

char *
weft_recovery_find (const char *trace_path)
{
  g_autofree char *abs = NULL;
  gint64 trace_mtime;

  g_return_val_if_fail (trace_path != NULL, NULL);
  abs = absolute_trace_path (trace_path);
  trace_mtime = trace_mtime_usec (trace_path);
  for (int legacy = 0; legacy < 2; legacy++)
    {
      g_autofree char *path = legacy ? legacy_cache_path (trace_path) : weft_recovery_path (trace_path);
      json_object *root, *t;
      gboolean match;

      if (mtime_usec (path) < 0)
        continue;
      root = read_recovery (path, NULL);
      if (root == NULL)
        continue;
      match = json_object_object_get_ex (root, "trace", &t) && g_strcmp0 (json_object_get_string (t), abs) == 0;
      if (match && json_object_object_get_ex (root, "files", &t))
        /* written for this very version of the trace files (size and time) */
        match = weft_recovery_stamp_matches (t);
      else if (match)
        /* no stamp: not older than the trace (file systems stamp times with a
         * coarse clock: a trace written and edited within a few ms ties) */
        match = mtime_usec (path) >= trace_mtime;
      json_object_put (root);
      if (match)
        return g_steal_pointer (&path);
    }
  return NULL;
}

static void
reset_session (WeftEditSession *self)
{
  WeftHistory *history = weft_edit_session_get_history (self);
  while (weft_history_get_can_undo (history))
    {
      g_autoptr (GError) e = NULL;
      if (!weft_edit_session_undo (self, &e))
        {
          g_warning ("recovery: cannot undo a restored edit: %s", e->message);
          break;
        }
    }
  weft_history_clear (history);
  weft_history_set_modified (history, FALSE);
}

static gboolean
apply_entries (WeftEditSession *self, json_object *entries, const char *path, const char *what, GError **error)
{
  for (size_t i = 0; i < json_object_array_length (entries); i++)
    {
      json_object *entry = json_object_array_get_idx (entries, i);
      GError *local = NULL;
      if (!json_object_is_type (entry, json_type_array))
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_FORMAT, "%s: %s entry %zu is not a list of operations", path,
                       what, i);
          return FALSE;
        }
      if (!weft_edit_session_apply_group (self, entry, &local))
        {
          g_set_error (error, local->domain, local->code, "%s: %s entry %zu: %s", path, what, i, local->message);
          g_error_free (local);
          return FALSE;
        }
    }
  return TRUE;
}

gboolean
weft_recovery_apply (WeftEditSession *self, const char *recovery_path, GError **error)
{
  WeftHistory *history = weft_edit_session_get_history (self);
  json_object *root, *entries, *redo = NULL;
  size_t n_redo = 0;

  g_return_val_if_fail (recovery_path != NULL, FALSE);
  if (weft_history_get_undo_depth (history) > 0 || weft_history_get_redo_depth (history) > 0)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "%s: restore needs a session without edits", recovery_path);
      return FALSE;
    }
  root = read_recovery (recovery_path, error);
  if (root == NULL)
    return FALSE;
  json_object_object_get_ex (root, "entries", &entries);
  if (json_object_object_get_ex (root, "redo", &redo) && json_object_is_type (redo, json_type_array))
    n_redo = json_object_array_length (redo);
  if (!apply_entries (self, entries, recovery_path, "undo", error) ||
      (n_redo > 0 && !apply_entries (self, redo, recovery_path, "redo", error)))
    {
      reset_session (self);
      json_object_put (root);
      return FALSE;
    }
  for (size_t i = 0; i < n_redo; i++)
    if (!weft_edit_session_undo (self, error))
      {
        reset_session (self);
        json_object_put (root);
        return FALSE;
      }
  json_object_put (root);
  self->autosaved_serial = weft_edit_session_get_serial (self);
  return TRUE;
}

void
weft_recovery_discard (const char *trace_path)
{
  g_return_if_fail (trace_path != NULL);
  for (int legacy = 0; legacy < 2; legacy++)
    {
      g_autofree char *path = legacy ? legacy_cache_path (trace_path) : weft_recovery_path (trace_path);
      g_unlink (path);
    }
}
