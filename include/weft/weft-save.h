/* weft-save.h: writing per-rank Kineto JSON (.json, .json.gz, .json.zst). */
#pragma once

#include <gio/gio.h>

#include "weft-model.h"

G_BEGIN_DECLS

typedef enum
{
  WEFT_FORMAT_JSON = 0,
  WEFT_FORMAT_JSON_GZ,
  WEFT_FORMAT_JSON_ZST,
} WeftFileFormat;

/* From the file name's extension; returns FALSE when it is none of the three. */
gboolean    weft_file_format_from_path (const char *path, WeftFileFormat *format);
/* ".json", ".json.gz" or ".json.zst" (static). */
const char *weft_file_format_extension (WeftFileFormat format); /* (transfer none): a static string */

typedef struct
{
  /* Extra JSON object written under the top-level "weft" key (edits,
   * template parameters); NULL for none. Borrowed. */
  json_object *weft_meta;
} WeftSaveOptions;

/* Writes one rank atomically (temp file in the same folder, fsync, rename):
 * a failed save leaves an existing file intact. Untouched events are written
 * byte-for-byte as read; edited and created events are re-serialised with ts
 * and dur in the rank's Kineto text style. No two X events of one lane
 * overlap in the output. */
gboolean weft_rank_save (WeftRank              *rank,
                         const char            *path,
                         const WeftSaveOptions *options,
                         GError               **error);

/* Writes every rank into folder dir as rank<R>_trace<ext> in format (ext:
 * weft_file_format_extension); creates dir. The set is replaced as a whole:
 * every file goes to a temporary first, and only when all are written and
 * synced are they renamed into place (a rank file of the same name in
 * another format is removed then); a failure leaves the folder's files as
 * they were. Refused (WEFT_ERROR_INVALID) when dir holds other trace files
 * than these rank names (whatever their format): loading the folder later
 * would mix two traces. */
gboolean weft_trace_save_dir (WeftTrace             *trace,
                              const char            *dir,
                              WeftFileFormat         format,
                              const WeftSaveOptions *options,
                              GError               **error);

/* Writes one rank to an open fd (standard output), not atomically. */
gboolean weft_rank_write_fd (WeftRank              *rank,
                             int                    fd,
                             WeftFileFormat         format,
                             const WeftSaveOptions *options,
                             GError               **error);

/* One file of every rank for Perfetto (save-merge.c): each rank is one
 * process (pid = its rank number, named "rank N"), each of its lanes one
 * thread named after its process and thread ("GPU 0 / stream 7"), flow ids
 * offset per rank so that they never collide, times on the common timeline
 * (clock offsets applied when the trace applies them) from one
 * baseTimeNanoseconds. The path's extension gives the format; atomic. */
gboolean weft_trace_save_merged     (WeftTrace   *trace,
                                     const char  *path,
                                     GError     **error);
gboolean weft_trace_write_merged_fd (WeftTrace     *trace,
                                     int            fd,
                                     WeftFileFormat format,
                                     GError       **error);

/* OUT is a file (single-rank trace) or a folder (several ranks). */
gboolean weft_trace_save (WeftTrace             *trace,
                          const char            *out,
                          const WeftSaveOptions *options,
                          GError               **error);

/* Formats ns as Kineto writes it: "<us>.<3 digits>" (WEFT_TS_RELATIVE,
 * WEFT_TS_ABSOLUTE_FRAC) or integer microseconds when ns % 1000 == 0 and the
 * style is WEFT_TS_ABSOLUTE_US. buf must hold 32 bytes. Returns length. */
gsize    weft_format_time (gint64 ns, WeftTsStyle style, char *buf);

G_END_DECLS
