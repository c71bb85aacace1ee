/* save-private.h: the file-writing layer of a save (save-file.c) for the
 * rank writer (save.c) and the other core writers (the composer, the
 * merged export): sinks and atomic sets of files. */
#pragma once

#include "weft/weft-save.h"

G_BEGIN_DECLS

/* A buffered, optionally compressed output stream (save-file.c). */
typedef struct _WeftSink WeftSink;
typedef gboolean (*WeftSaveWriteFunc) (WeftSink *sink, gpointer data);

gboolean weft_sink_write (WeftSink *sink, const char *data, gsize len);
gboolean weft_sink_puts  (WeftSink *sink, const char *str);
/* The text of a top-level value as the loader kept it (a packed one
 * decompressed into the sink piece by piece). */
gboolean weft_sink_write_top_value (WeftSink *sink, const WeftTopKey *k);

/* Runs func on a sink over fd (format: the compression) and ends the
 * stream; no sync, no close. name is for messages. */
gboolean weft_save_write_fd (int fd, const char *name, WeftFileFormat format, WeftSaveWriteFunc func,
                             gpointer data, GError **error);

/* A set of files replaced together: every file is written to a temporary
 * in its target's folder and synced; weft_save_txn_commit () then renames
 * them all over their targets (and removes the files registered with
 * weft_save_txn_remove_other_formats ()). Freeing a transaction that was
 * not committed removes its temporaries: every target stays as it was.
 * weft_save_txn_add () also removes stale temporaries of killed saves in
 * the target's folder. add and commit are not thread-safe; write may run
 * in several threads at once for distinct files. */
typedef struct _WeftSaveTxn WeftSaveTxn;

WeftSaveTxn *weft_save_txn_new (void);
void         weft_save_txn_free (WeftSaveTxn *txn);
/* Opens the temporary of path (the format from its extension); returns
 * the file's index, -1 on error. */
int          weft_save_txn_add (WeftSaveTxn *txn, const char *path, GError **error);
/* Removes, at the commit, the other trace formats of file i's name
 * (rank0_trace.json when rank0_trace.json.gz is written). */
void         weft_save_txn_remove_other_formats (WeftSaveTxn *txn, int i);
gboolean     weft_save_txn_write (WeftSaveTxn *txn, int i, WeftSaveWriteFunc func, gpointer data, GError **error);
gboolean     weft_save_txn_write_bytes (WeftSaveTxn *txn, int i, GBytes *bytes, GError **error);
gboolean     weft_save_txn_commit (WeftSaveTxn *txn, GError **error);
/* Files renamed into place so far (0 until the commit's renames). */
guint        weft_save_txn_n_replaced (WeftSaveTxn *txn);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WeftSaveTxn, weft_save_txn_free)

/* Refuses (WEFT_ERROR_INVALID) when loading folder root would find trace
 * files other than targets (compared without their trace extension: a
 * rank file replaced in another format is one of them). */
gboolean weft_save_check_folder (const char *root, const char * const *targets, guint n_targets, GError **error);

G_END_DECLS
