/* jsonscan.h (private): the streaming Kineto JSON scanner.
 *
 * weft_json_scan_trace() reads the decompressed stream from a WeftReader in
 * chunks and walks the root object with a resumable, string-aware splitter:
 * every root key other than "traceEvents" is kept as raw text
 * (rank->top_keys), every element of traceEvents is validated and scanned
 * by a hand-written JSON scanner, copied byte-for-byte into rank->texts (zstd blocks) and
 * turned into a WeftEvent. No JSON tree is built. */
#pragma once

#include <gio/gio.h>

#include "core/reader.h"
#include "weft/weft-model.h"

G_BEGIN_DECLS

typedef void (*WeftScanProgressFunc) (WeftReader *reader, gpointer user_data);

typedef struct
{
  guint                max_depth;      /* nesting limit (root object = 1); 0 = 256 */
  GCancellable        *cancellable;    /* checked between chunks */
  WeftScanProgressFunc progress;       /* called after each chunk */
  gpointer             progress_data;
} WeftScanOptions;

typedef struct
{
  gboolean ts_has_fraction;   /* some ts had decimals or an exponent */
  guint64  n_negative_dur;    /* events whose negative "dur" was clamped to 0 */
  guint64  json_bytes;        /* decompressed bytes scanned */
} WeftScanResult;

/* Fills rank->events (ts and dur as written in the file, converted to ns;
 * baseTimeNanoseconds NOT yet added), rank->top_keys and
 * rank->trace_events_pos. Errors: "<name>: byte <offset>: <what>" with the
 * offset counted in decompressed bytes. */
gboolean weft_json_scan_trace (WeftRank              *rank,
                               WeftReader            *reader,
                               const WeftScanOptions *options,
                               WeftScanResult        *result,
                               GError               **error);

/* Exact conversion of a JSON number text to an integer: value * 10^scale,
 * rounded half away from zero (scale 3: microseconds -> ns). Exponents are
 * handled exactly. FALSE with *why set when the text is not a number or the
 * result does not fit in gint64. */
gboolean weft_json_decimal_to_int (const char  *text,
                                   gsize        len,
                                   int          scale,
                                   gint64      *out,
                                   const char **why);

/* Testing aid: bytes read per chunk (0 restores the default, 256 KiB).
 * Process-wide; not for use while loads run. */
void     weft_json_scan_set_chunk_size (gsize bytes);

G_END_DECLS
