/* save-file.c: the file-writing layer of a save (save-private.h): buffered,
 * optionally compressed sinks over fds and atomic sets of files.
 *
 * Writing is atomic, for one file and for a whole set of rank files alike
 * (WeftSaveTxn, below): every file of the set is written to a temporary in
 * its target's folder (an unnamed O_TMPFILE where the file system allows,
 * else ".weft-tmp-<name>.XXXXXX", locked while written) and synced; only
 * when all of them are complete are they named and renamed over their
 * targets, then the folder is synced. Any failure before that removes the
 * temporaries and leaves every existing target untouched. Stale named
 * temporaries of a killed save are removed by the next save in that folder.
 * docs/editing.md, "How files are written". */
#define _GNU_SOURCE /* O_TMPFILE */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "weft/weft-load.h"
#include "weft/weft-save.h"
#include "save-private.h"

#define SINK_BUFFER (1u << 20)

/* ---- sink: buffered, optionally compressed writes to an fd ---------------- */

struct _WeftSink
{
  int            fd;
  const char    *path;       /* for messages: the target path */
  WeftFileFormat format;
  z_stream       zs;
  gboolean       z_ready;
  ZSTD_CCtx     *zc;
  guint8        *in;
  gsize          in_len;
  guint8        *out;
  gsize          out_cap;
  GError        *error;
};
typedef struct _WeftSink Sink;

static gboolean
sink_fail_errno (Sink *s, const char *what, int saved_errno)
{
  if (s->error == NULL)
    g_set_error (&s->error, WEFT_ERROR, WEFT_ERROR_IO, "%s: %s: %s", s->path, what, g_strerror (saved_errno));
  return FALSE;
}

static gboolean
write_all (Sink *s, const guint8 *data, gsize len)
{
  while (len > 0)
    {
      gssize w = write (s->fd, data, len);
      if (w < 0)
        {
          if (errno == EINTR)
            continue;
          return sink_fail_errno (s, "cannot write", errno);
        }
      if (w == 0)
        return sink_fail_errno (s, "cannot write", ENOSPC);
      data += w;
      len -= (gsize) w;
    }
  return TRUE;
}

static gboolean
sink_init (Sink *s, int fd, const char *path, WeftFileFormat format)
{
  memset (s, 0, sizeof *s);
  s->fd = fd;
  s->path = path;
  s->format = format;
  s->in = g_malloc (SINK_BUFFER);
  if (format == WEFT_FORMAT_JSON_GZ)
    {
      s->out_cap = SINK_BUFFER;
      s->out = g_malloc (s->out_cap);
      /* windowBits 15 + 16: gzip wrapper. */
      if (deflateInit2 (&s->zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        {
          g_set_error (&s->error, WEFT_ERROR, WEFT_ERROR_COMPRESSION, "%s: cannot start gzip compression", path);
          return FALSE;
        }
      s->z_ready = TRUE;
    }
  else if (format == WEFT_FORMAT_JSON_ZST)
    {
      s->out_cap = ZSTD_CStreamOutSize ();
      s->out = g_malloc (s->out_cap);
      s->zc = ZSTD_createCCtx ();
      if (s->zc == NULL || ZSTD_isError (ZSTD_CCtx_setParameter (s->zc, ZSTD_c_compressionLevel, 3)) ||
          ZSTD_isError (ZSTD_CCtx_setParameter (s->zc, ZSTD_c_checksumFlag, 1)))
        {
          g_set_error (&s->error, WEFT_ERROR, WEFT_ERROR_COMPRESSION, "%s: cannot start zstd compression", path);
          return FALSE;
        }
    }
  return TRUE;
}

static void
sink_clear (Sink *s)
{
  if (s->z_ready)
    deflateEnd (&s->zs);
  if (s->zc != NULL)
    ZSTD_freeCCtx (s->zc);
  g_free (s->in);
  g_free (s->out);
  s->in = s->out = NULL;
  s->zc = NULL;
  s->z_ready = FALSE;
}

/* Pushes the staged input through the encoder; finish ends the stream. */
static gboolean
sink_drain (Sink *s, gboolean finish)
{
  if (s->error != NULL)
    return FALSE;

  switch (s->format)
    {
    case WEFT_FORMAT_JSON:
      if (!write_all (s, s->in, s->in_len))
        return FALSE;
      break;

    case WEFT_FORMAT_JSON_GZ:
      s->zs.next_in = s->in;
      s->zs.avail_in = (uInt) s->in_len;
      for (;;)
        {
          int rc;
          s->zs.next_out = s->out;
          s->zs.avail_out = (uInt) s->out_cap;
          rc = deflate (&s->zs, finish ? Z_FINISH : Z_NO_FLUSH);
          if (rc == Z_STREAM_ERROR)
            {
              g_set_error (&s->error, WEFT_ERROR, WEFT_ERROR_COMPRESSION, "%s: gzip compression failed", s->path);
              return FALSE;
            }
          if (!write_all (s, s->out, s->out_cap - s->zs.avail_out))
            return FALSE;
          if (finish ? rc == Z_STREAM_END : (s->zs.avail_in == 0 && s->zs.avail_out != 0))
            break;
        }
      break;

    case WEFT_FORMAT_JSON_ZST:
      {
        ZSTD_inBuffer input = { s->in, s->in_len, 0 };
        for (;;)
          {
            ZSTD_outBuffer output = { s->out, s->out_cap, 0 };
            size_t remaining = ZSTD_compressStream2 (s->zc, &output, &input, finish ? ZSTD_e_end : ZSTD_e_continue);
            if (ZSTD_isError (remaining))
              {
                g_set_error (&s->error, WEFT_ERROR, WEFT_ERROR_COMPRESSION, "%s: zstd compression failed: %s",
                             s->path, ZSTD_getErrorName (remaining));
                return FALSE;
              }
            if (!write_all (s, s->out, output.pos))
              return FALSE;
            if (finish ? remaining == 0 : input.pos == input.size)
              break;
          }
      }
      break;
    }
  s->in_len = 0;
  return TRUE;
}

static gboolean
sink_write (Sink *s, const char *data, gsize len)
{
  if (s->error != NULL)
    return FALSE;
  while (len > 0)
    {
      gsize n = MIN (len, SINK_BUFFER - s->in_len);
      memcpy (s->in + s->in_len, data, n);
      s->in_len += n;
      data += n;
      len -= n;
      if (s->in_len == SINK_BUFFER && !sink_drain (s, FALSE))
        return FALSE;
    }
  return TRUE;
}

static gboolean
sink_puts (Sink *s, const char *str)
{
  return sink_write (s, str, strlen (str));
}

static gboolean
top_value_cb (const char *data, gsize len, gpointer user_data)
{
  return sink_write (user_data, data, len);
}

/* A top-level value's text as read: a packed one (weft-model.h) is
 * decompressed piece by piece into the sink, never whole. */
gboolean
weft_sink_write_top_value (WeftSink *s, const WeftTopKey *k)
{
  GError *error = NULL;

  if (s->error != NULL)
    return FALSE;
  if (weft_top_key_foreach (k, top_value_cb, s, &error))
    return TRUE;
  if (error != NULL && s->error == NULL)
    g_set_error (&s->error, WEFT_ERROR, error->code, "%s: %s", s->path, error->message);
  g_clear_error (&error);
  return FALSE;
}

/* ---- the file-writing layer: sinks over fds, atomic sets of files ---------- */

gboolean
weft_sink_write (WeftSink *sink, const char *data, gsize len)
{
  return sink_write (sink, data, len);
}

gboolean
weft_sink_puts (WeftSink *sink, const char *str)
{
  return sink_puts (sink, str);
}

gboolean
weft_save_write_fd (int fd, const char *name, WeftFileFormat format, WeftSaveWriteFunc func, gpointer data,
                    GError **error)
{
  Sink sink;
  gboolean ok;

  ok = sink_init (&sink, fd, name, format) && func (&sink, data) && sink_drain (&sink, TRUE);
  if (!ok)
    {
      if (sink.error == NULL)
        g_set_error (&sink.error, WEFT_ERROR, WEFT_ERROR_IO, "%s: cannot write", name);
      g_propagate_error (error, sink.error);
      sink.error = NULL;
    }
  sink_clear (&sink);
  return ok;
}

#define TMP_PREFIX ".weft-tmp-"

typedef struct
{
  char          *shown;   /* the path as given, for messages */
  char          *target;  /* the path replaced (a symbolic link resolved) */
  char          *dir;
  char          *base;
  char          *tmp;     /* the named temporary; NULL while unnamed or once renamed */
  int            fd;      /* open until the commit: it holds the lock */
  WeftFileFormat format;
  gboolean       done;    /* written and synced */
} TxnFile;

struct _WeftSaveTxn
{
  GPtrArray *files;   /* TxnFile* */
  GPtrArray *remove;  /* char*: removed after the renames */
  gint64     start;   /* g_get_real_time () when the save started */
  guint      n_replaced;
  gboolean   committed;
};

static void
txn_file_free (gpointer data)
{
  TxnFile *f = data;
  if (f->fd >= 0)
    close (f->fd);
  if (f->tmp != NULL)
    g_unlink (f->tmp);
  g_free (f->shown);
  g_free (f->target);
  g_free (f->dir);
  g_free (f->base);
  g_free (f->tmp);
  g_free (f);
}

WeftSaveTxn *
weft_save_txn_new (void)
{
  WeftSaveTxn *txn = g_new0 (WeftSaveTxn, 1);
  txn->files = g_ptr_array_new_with_free_func (txn_file_free);
  txn->remove = g_ptr_array_new_with_free_func (g_free);
  txn->start = g_get_real_time ();
  return txn;
}

void
weft_save_txn_free (WeftSaveTxn *txn)
{
  if (txn == NULL)
    return;
  g_ptr_array_unref (txn->files); /* closes and removes what was not committed */
  g_ptr_array_unref (txn->remove);
  g_free (txn);
}

guint
weft_save_txn_n_replaced (WeftSaveTxn *txn)
{
  return txn->n_replaced;
}

/* ".<base>.XXXXXX": the temporaries of earlier versions (g_mkstemp). */
static gboolean
is_legacy_temporary (const char *name, const char *base)
{
  gsize n = strlen (base);
  if (name[0] != '.' || strncmp (name + 1, base, n) != 0 || name[1 + n] != '.' || strlen (name + 2 + n) != 6)
    return FALSE;
  for (const char *p = name + 2 + n; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p))
      return FALSE;
  return TRUE;
}

/* A temporary left by a killed save: older than this save and not locked
 * by a save in progress (which holds flock on it until it commits). */
static void
remove_stale_temporary (const char *path, gint64 start)
{
  struct stat st;
  int fd = open (path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

  if (fd < 0)
    return;
  if (fstat (fd, &st) == 0 && S_ISREG (st.st_mode) &&
      (gint64) st.st_mtim.tv_sec * G_USEC_PER_SEC + st.st_mtim.tv_nsec / 1000 < start &&
      flock (fd, LOCK_EX | LOCK_NB) == 0)
    {
      if (g_unlink (path) == 0)
        g_debug ("%s: removed a stale temporary file of an interrupted save", path);
    }
  close (fd);
}

static void
clean_stale_temporaries (const char *dir, const char *base, gint64 start)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const char *name;

  if (d == NULL)
    return;
  while ((name = g_dir_read_name (d)) != NULL)
    if (g_str_has_prefix (name, TMP_PREFIX) || is_legacy_temporary (name, base))
      {
        g_autofree char *path = g_build_filename (dir, name, NULL);
        remove_stale_temporary (path, start);
      }
  g_dir_close (d);
}

/* An unnamed temporary (O_TMPFILE: nothing is left behind when the process
 * dies) where the file system and /proc allow naming it later, else
 * .weft-tmp-<base>.XXXXXX. Either is locked while it is written. */
static int
open_temporary (TxnFile *f, GError **error)
{
  int fd = -1;

#ifdef O_TMPFILE
  if (g_getenv ("WEFT_SAVE_NO_TMPFILE") == NULL && g_file_test ("/proc/self/fd", G_FILE_TEST_IS_DIR))
    fd = open (f->dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
#endif
  if (fd < 0)
    {
      f->tmp = g_strdup_printf ("%s%c" TMP_PREFIX "%s.XXXXXX", f->dir, G_DIR_SEPARATOR, f->base);
      fd = g_mkstemp_full (f->tmp, O_WRONLY | O_CLOEXEC, 0644);
      if (fd < 0)
        {
          int saved = errno;
          g_clear_pointer (&f->tmp, g_free);
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_IO, "%s: cannot create a temporary file in %s: %s", f->shown,
                       f->dir, g_strerror (saved));
          return -1;
        }
    }
  (void) flock (fd, LOCK_EX | LOCK_NB);
  return fd;
}

/* Gives an unnamed temporary its name in the target's folder. */
static gboolean
name_temporary (TxnFile *f, GError **error)
{
  char proc[64];
  int saved = EEXIST;

  g_snprintf (proc, sizeof proc, "/proc/self/fd/%d", f->fd);
  for (int attempt = 0; attempt < 64 && saved == EEXIST; attempt++)
    {
      char *name = g_strdup_printf ("%s%c" TMP_PREFIX "%s.%06X", f->dir, G_DIR_SEPARATOR, f->base,
                                    (guint) g_random_int_range (0, 0x1000000));
      if (linkat (AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW) == 0)
        {
          f->tmp = name;
          return TRUE;
        }
      saved = errno;
      g_free (name);
    }
  g_set_error (error, WEFT_ERROR, WEFT_ERROR_IO, "%s: cannot name the temporary file in %s: %s", f->shown, f->dir,
               g_strerror (saved));
  return FALSE;
}

int
weft_save_txn_add (WeftSaveTxn *txn, const char *path, GError **error)
{
  TxnFile *f;
  struct stat st;
  WeftFileFormat format;
  char *real = NULL;

  g_return_val_if_fail (txn != NULL && !txn->committed, -1);
  g_return_val_if_fail (path != NULL, -1);

  if (!weft_file_format_from_path (path, &format))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
                   "%s: unknown output format (the name must end in .json, .json.gz or .json.zst)", path);
      return -1;
    }
  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_IO, "%s: is a folder", path);
      return -1;
    }
  f = g_new0 (TxnFile, 1);
  f->fd = -1;
  f->format = format;
  f->shown = g_strdup (path);
  /* Saving onto a symbolic link replaces the file it points to (the
   * temporary goes next to that file), not the link. */
  if (g_file_test (path, G_FILE_TEST_IS_SYMLINK) && (real = realpath (path, NULL)) != NULL)
    {
      f->target = g_strdup (real);
      free (real);
    }
  else
    f->target = g_strdup (path);
  f->dir = g_path_get_dirname (f->target);
  f->base = g_path_get_basename (f->target);
  clean_stale_temporaries (f->dir, f->base, txn->start);
  f->fd = open_temporary (f, error);
  if (f->fd < 0)
    {
      txn_file_free (f);
      return -1;
    }
  /* Keep the mode of the file being replaced; else rw-r--r--. */
  (void) fchmod (f->fd, g_stat (f->target, &st) == 0 ? st.st_mode & 07777 : 0644);
  g_ptr_array_add (txn->files, f);
  return (int) txn->files->len - 1;
}

static const char *const trace_exts[] = { ".json.zst", ".json.gz", ".json" };

/* path without its trace extension (any case), canonical; NULL if none. */
static char *
strip_trace_ext (const char *path)
{
  g_autofree char *canon = g_canonicalize_filename (path, NULL);
  g_autofree char *lower = g_ascii_strdown (canon, -1);

  for (guint i = 0; i < G_N_ELEMENTS (trace_exts); i++)
    if (g_str_has_suffix (lower, trace_exts[i]))
      return g_strndup (canon, strlen (canon) - strlen (trace_exts[i]));
  return NULL;
}

void
weft_save_txn_remove_other_formats (WeftSaveTxn *txn, int i)
{
  TxnFile *f = g_ptr_array_index (txn->files, i);
  g_autofree char *stem = strip_trace_ext (f->shown);

  if (stem == NULL)
    return;
  for (guint k = 0; k < G_N_ELEMENTS (trace_exts); k++)
    {
      char *other = g_strconcat (stem, trace_exts[k], NULL);
      g_autofree char *canon = g_canonicalize_filename (f->shown, NULL);
      GStatBuf st;
      if (strcmp (other, canon) != 0 && g_lstat (other, &st) == 0 && !S_ISDIR (st.st_mode))
        g_ptr_array_add (txn->remove, other);
      else
        g_free (other);
    }
}

gboolean
weft_save_txn_write (WeftSaveTxn *txn, int i, WeftSaveWriteFunc func, gpointer data, GError **error)
{
  TxnFile *f = g_ptr_array_index (txn->files, i);

  if (!weft_save_write_fd (f->fd, f->shown, f->format, func, data, error))
    return FALSE;
  if (fsync (f->fd) != 0)
    {
      int saved = errno;
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_IO, "%s: cannot sync to disk: %s", f->shown, g_strerror (saved));
      return FALSE;
    }
  f->done = TRUE;
  return TRUE;
}

static gboolean
write_bytes_func (WeftSink *sink, gpointer data)
{
  gsize len;
  const char *p = g_bytes_get_data (data, &len);
  return weft_sink_write (sink, p, len);
}

gboolean
weft_save_txn_write_bytes (WeftSaveTxn *txn, int i, GBytes *bytes, GError **error)
{
  return weft_save_txn_write (txn, i, write_bytes_func, bytes, error);
}

static void
sync_folder (const char *dir)
{
  int dfd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0)
    {
      (void) fsync (dfd);
      close (dfd);
    }
}

gboolean
weft_save_txn_commit (WeftSaveTxn *txn, GError **error)
{
  g_autoptr (GHashTable) dirs = g_hash_table_new (g_str_hash, g_str_equal);
  guint n = txn->files->len;

  g_return_val_if_fail (!txn->committed, FALSE);

  /* 1. every file complete, every temporary named: until here nothing
   *    has changed */
  for (guint i = 0; i < n; i++)
    {
      TxnFile *f = g_ptr_array_index (txn->files, i);
      g_return_val_if_fail (f->done, FALSE);
      if (f->tmp == NULL && !name_temporary (f, error))
        return FALSE;
    }
  /* 2. the renames: no data is written any more, only folder entries */
  for (guint i = 0; i < n; i++)
    {
      TxnFile *f = g_ptr_array_index (txn->files, i);
      if (g_rename (f->tmp, f->target) != 0)
        {
          int saved = errno;
          if (i == 0)
            g_set_error (error, WEFT_ERROR, WEFT_ERROR_IO, "%s: cannot rename the temporary file into place: %s",
                         f->shown, g_strerror (saved));
          else
            g_set_error (error, WEFT_ERROR, WEFT_ERROR_IO,
                         "%s: cannot rename the temporary file into place: %s (%u of the %u files were already "
                         "replaced)",
                         f->shown, g_strerror (saved), i, n);
          return FALSE;
        }
      g_clear_pointer (&f->tmp, g_free);
      txn->n_replaced++;
      g_hash_table_add (dirs, f->dir);
    }
  /* 3. rank files of the same names in another format */
  for (guint i = 0; i < txn->remove->len; i++)
    {
      const char *p = g_ptr_array_index (txn->remove, i);
      g_autofree char *d = g_path_get_dirname (p);
      if (g_unlink (p) != 0 && errno != ENOENT)
        g_warning ("%s: cannot remove the previous file of this rank: %s", p, g_strerror (errno));
      sync_folder (d);
    }
  /* 4. the renames themselves durable */
  {
    GHashTableIter it;
    gpointer key;
    g_hash_table_iter_init (&it, dirs);
    while (g_hash_table_iter_next (&it, &key, NULL))
      sync_folder (key);
  }
  for (guint i = 0; i < n; i++)
    {
      TxnFile *f = g_ptr_array_index (txn->files, i);
      close (f->fd);
      f->fd = -1;
    }
  txn->committed = TRUE;
  return TRUE;
}

gboolean
weft_save_check_folder (const char *root, const char *const *targets, guint n_targets, GError **error)
{
  g_autoptr (GHashTable) ours = NULL;
  g_autoptr (GPtrArray) found = NULL;

  if (!g_file_test (root, G_FILE_TEST_IS_DIR))
    return TRUE;
  found = weft_find_trace_files (root, NULL);
  if (found == NULL)
    return TRUE;
  ours = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < n_targets; i++)
    {
      char *stem = strip_trace_ext (targets[i]);
      if (stem != NULL)
        g_hash_table_add (ours, stem);
    }
  for (guint i = 0; i < found->len; i++)
    {
      const char *f = g_ptr_array_index (found, i);
      g_autofree char *stem = strip_trace_ext (f);
      if (stem == NULL || !g_hash_table_contains (ours, stem))
        {
          gsize n = strlen (root);
          const char *rel = strncmp (f, root, n) == 0 && f[n] == G_DIR_SEPARATOR ? f + n + 1 : f;
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
                       "%s: the folder already holds %s, which is not one of the %u rank files being written; "
                       "loading the folder later would mix the two traces (write into an empty folder, or over "
                       "the same rank<R>_trace files)",
                       root, rel, n_targets);
          return FALSE;
        }
    }
  return TRUE;
}
