/* reader.h (private): streaming decompression of trace files.
 *
 * A WeftReader hands out the decompressed bytes of a file (or an in-memory
 * buffer) in chunks. The format is detected from the magic bytes (gzip
 * 1f 8b, zstd 28 b5 2f fd), not only from the extension; anything else is
 * read as plain JSON. The reader enforces the cap on decompressed bytes
 * (decompression bombs) and counts the raw bytes consumed (progress). */
#pragma once

#include <gio/gio.h>

#include "weft/weft-load.h"

G_BEGIN_DECLS

typedef enum
{
  WEFT_READER_PLAIN = 0,
  WEFT_READER_GZIP,
  WEFT_READER_ZSTD,
} WeftReaderFormat;

typedef struct _WeftReader WeftReader;

/* Opens path. name (for messages) defaults to path. */
WeftReader      *weft_reader_open (const char *path, GError **error);
/* Reads from memory (not copied: data must outlive the reader). detect:
 * decompress gzip/zstd found by their magic bytes; FALSE reads it as is. */
WeftReader      *weft_reader_new_for_memory (const char *name, const void *data, gsize len, gboolean detect);
void             weft_reader_free (WeftReader *self);
/* Cap on decompressed bytes; over it, read fails with WEFT_ERROR_TOO_LARGE. */
void             weft_reader_set_limit (WeftReader *self, guint64 max_bytes);
guint64          weft_reader_get_limit (WeftReader *self);
/* The default cap: min (16 GiB, memory / 2): the physical memory, bounded
 * by the cgroup memory limit, RLIMIT_AS and RLIMIT_DATA. */
guint64          weft_reader_default_limit (void);
/* Checked between reads: WEFT_ERROR_CANCELLED. Not referenced. */
void             weft_reader_set_cancellable (WeftReader *self, GCancellable *cancellable);
/* "is a FIFO (named pipe), not a regular file" for a st_mode. */
const char      *weft_reader_describe_not_regular (guint mode);
/* Fills up to len bytes; returns the number of bytes (0 at the end of the
 * data) or -1 with error set. Fills buf fully unless the data ends. */
gssize           weft_reader_read (WeftReader *self, char *buf, gsize len, GError **error);
/* From now on a thread of the reader's own reads and decompresses ahead
 * (AHEAD_DEPTH chunks of 256 KiB, 1 MiB at most) while the caller scans:
 * weft_reader_read () gives the same bytes; an error is handed out where
 * the caller's reads reach it (its message may name another byte offset
 * than a read on the caller's thread would: load.c reads such a file
 * again without read-ahead). Call before the first read, after
 * weft_reader_set_limit () and weft_reader_set_cancellable (); stopped by
 * weft_reader_free (). FALSE: not started (reads stay on the caller's
 * thread). */
gboolean         weft_reader_start_read_ahead (WeftReader *self);
WeftReaderFormat weft_reader_get_format (WeftReader *self);
/* A gzip reader keeps the whole compressed file as it reads, with access
 * points (gzindex-private.h), for the text store to hold instead of
 * packing the texts again. Call before the first read and before
 * weft_reader_start_read_ahead (); FALSE: not gzip, or too late. */
gboolean         weft_reader_keep_gzip (WeftReader *self);
gboolean         weft_reader_keeps_gzip (WeftReader *self);
/* The kept file (sealed), NULL if none; the reader keeps no more, and any
 * read-ahead stops: call once the caller is done reading. */
struct _WeftGzIndex *weft_reader_steal_gzip (WeftReader *self);
const char      *weft_reader_format_name (WeftReaderFormat format);
/* Raw (on-disk, possibly compressed) bytes consumed so far, and in total. */
guint64          weft_reader_raw_done (WeftReader *self);
guint64          weft_reader_raw_size (WeftReader *self);
/* Decompressed bytes handed out so far. */
guint64          weft_reader_bytes_out (WeftReader *self);
const char      *weft_reader_get_name (WeftReader *self);

/* Loads a possibly compressed in-memory buffer (format from the magic
 * bytes) into an indexed rank. For the fuzzer and tests. */
WeftRank        *weft_rank_load_memory (const char *name, const void *data, gsize len,
                                        const WeftLoadOptions *options, GError **error);

G_END_DECLS
