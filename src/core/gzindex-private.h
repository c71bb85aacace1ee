/* gzindex-private.h: a gzip file kept as it was read, with access points
 * to decompress any range of it again.
 *
 * The reader (reader.c) fills one while it decompresses a .json.gz: every
 * compressed byte, in order, and about every GZ_SPAN bytes of output, at
 * the end of a deflate block, an access point (zlib's examples/zran.c):
 * where the next block starts (byte and bit), the output offset there and
 * the 32 KiB of output before it (deflate's window; kept zstd-packed).
 * Each gzip member's start is a point too (no window: a new stream).
 *
 * The text store (textstore.c) then holds a loaded .json.gz's event texts
 * as this: the file is already a compressed copy of them, so the load
 * packs nothing (docs/loading.md, "A .json.gz keeps its own stream").
 * Once sealed it never changes: any number of threads may extract at once. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _WeftGzIndex WeftGzIndex;

WeftGzIndex *_weft_gz_index_new (void);
void         _weft_gz_index_free (WeftGzIndex *self);

/* ---- filling it (the reader, in file order) ---- */

/* Appends compressed bytes as they are read from the file. */
void         _weft_gz_index_append (WeftGzIndex *self, const guint8 *data, gsize len);
/* A gzip member (its header) starts at compressed byte in_off, output
 * offset out_off. */
void         _weft_gz_index_add_member (WeftGzIndex *self, guint64 in_off, guint64 out_off);
/* Whether a point at output offset out_off is due (GZ_SPAN past the last). */
gboolean     _weft_gz_index_wants_point (const WeftGzIndex *self, guint64 out_off);
/* A point where a deflate block starts: compressed byte in_off, of whose
 * previous byte the top bits (0-7) still belong to it; window: the wlen
 * (<= 32 KiB) bytes of output before out_off. */
void         _weft_gz_index_add_point (WeftGzIndex *self, guint64 in_off, int bits, guint64 out_off,
                                       const guint8 *window, gsize wlen);
/* Done filling: frees the window packer, gives back unused room. */
void         _weft_gz_index_seal (WeftGzIndex *self);

/* ---- reading it ---- */

/* Decompresses the len bytes of output from out_off into dst, starting
 * at the last point at or before out_off. FALSE if the bytes are not
 * there (past what was read) or the stream does not decode. */
gboolean     _weft_gz_index_extract (const WeftGzIndex *self, guint64 out_off, guint8 *dst, gsize len);
/* The points: how many, and the output offset of point i (rising). */
guint        _weft_gz_index_n_points (const WeftGzIndex *self);
guint64      _weft_gz_index_point_out (const WeftGzIndex *self, guint i);
/* Bytes held: the compressed file, the packed windows, the table. */
guint64      _weft_gz_index_held_bytes (const WeftGzIndex *self);

G_END_DECLS
