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
gboolean weft_file_format_from_path (const char *path, WeftFileFormat *format);

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

/* Writes every rank into folder dir as rank<R>_trace<ext> (ext ".json",
 * ".json.gz" or ".json.zst"); creates dir. */
gboolean weft_trace_save_dir (WeftTrace             *trace,
                              const char            *dir,
                              const char            *ext,
                              const WeftSaveOptions *options,
                              GError               **error);

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
