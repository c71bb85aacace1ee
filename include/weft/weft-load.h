/* weft-load.h: reading Kineto traces (files, torchtitan folders) into the model. */
#pragma once

#include <gio/gio.h>

#include "weft-model.h"

G_BEGIN_DECLS

/* Called from worker threads with the total bytes read so far (compressed
 * bytes on disk) and the total size of all files; must be thread-safe. */
typedef void (*WeftProgressFunc) (guint64 done, guint64 total, gpointer user_data);

typedef struct
{
  guint64          max_json_bytes;   /* cap on decompressed bytes per file (bomb guard); 0 = default (16 GiB) */
  guint            max_depth;        /* JSON nesting limit; 0 = default (256) */
  guint            n_threads;        /* 0 = number of cores */
  WeftProgressFunc progress;
  gpointer         progress_data;
} WeftLoadOptions;

/* Loads a file or a folder (torchtitan layouts, *.pt.trace.json[.gz],
 * rank*_trace.json[.gz|.zst]) into one trace, files parsed in parallel,
 * then weft_trace_index(). NULL with an error naming the file and byte
 * offset on failure. */
WeftTrace *weft_trace_load (const char        *path,
                            const WeftLoadOptions *options,
                            GCancellable      *cancellable,
                            GError           **error);

WeftTrace *weft_trace_load_files (const char * const *paths,
                                  guint               n_paths,
                                  const WeftLoadOptions *options,
                                  GCancellable       *cancellable,
                                  GError            **error);

/* Parses one file into a rank and runs weft_rank_index() on it (no
 * indexing across ranks). The rank number comes from distributedInfo, else
 * the file name, else 0 (rank->rank_source says which). */
WeftRank  *weft_rank_load_file (const char        *path,
                                const WeftLoadOptions *options,
                                GCancellable      *cancellable,
                                GError           **error);

/* Parses an in-memory buffer (already decompressed JSON) and runs
 * weft_rank_index(); name is used in error messages. For the fuzzer and
 * tests. */
WeftRank  *weft_rank_load_buffer (const char  *name,
                                  const char  *data,
                                  gsize        len,
                                  const WeftLoadOptions *options,
                                  GError     **error);

/* Lists trace files below path (a file gives itself), sorted in natural
 * order; only the highest iteration_N folder when there are several. NULL
 * with WEFT_ERROR_NO_TRACE (naming the folder) when there is none, or
 * WEFT_ERROR_IO when path does not exist. See docs/loading.md. */
GPtrArray *weft_find_trace_files (const char *path, GError **error);

/* Rank number from a file name (rank3_trace.json, worker3_..., rank-3...), or -1. */
int        weft_rank_from_file_name (const char *path);

G_END_DECLS
