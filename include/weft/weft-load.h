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
  /* TRUE: no read-ahead or packing thread even when fewer files than
   * n_threads load (also the environment variable WEFT_LOAD_SEQUENTIAL):
   * for comparisons. See docs/loading.md, "One big file on several cores". */
  gboolean         sequential;
  /* TRUE: a .json.gz's event texts are packed with zstd like a plain
   * file's, instead of read back from the gzip file kept as it was read
   * (docs/loading.md, "A .json.gz keeps its own stream"): for comparisons. */
  gboolean         pack_gzip_texts;
} WeftLoadOptions;

/* Loads a file or a folder (torchtitan layouts, *.pt.trace.json[.gz],
 * rank*_trace.json[.gz|.zst]) into one trace, files parsed in parallel,
 * then weft_trace_index(). NULL with an error naming the file and byte
 * offset on failure. */
WeftTrace *weft_trace_load (const char        *path,
                            const WeftLoadOptions *options,
                            GCancellable      *cancellable,
                            GError           **error); /* (transfer full) (nullable): NULL with error set */

WeftTrace *weft_trace_load_files (const char * const *paths,
                                  guint               n_paths,
                                  const WeftLoadOptions *options,
                                  GCancellable       *cancellable,
                                  GError            **error); /* (transfer full) (nullable): NULL with error set */

/* Parses one file into a rank and runs weft_rank_index() on it (no
 * indexing across ranks). The rank number comes from distributedInfo, else
 * the file name, else 0 (rank->rank_source says which). */
WeftRank  *weft_rank_load_file (const char        *path,
                                const WeftLoadOptions *options,
                                GCancellable      *cancellable,
                                GError           **error); /* (transfer full) (nullable): NULL with error set */

/* Parses an in-memory buffer (already decompressed JSON) and runs
 * weft_rank_index(); name is used in error messages. For the fuzzer and
 * tests. */
WeftRank  *weft_rank_load_buffer (const char  *name,
                                  const char  *data,
                                  gsize        len,
                                  const WeftLoadOptions *options,
                                  GError     **error); /* (transfer full) (nullable): NULL with error set */

/* One rank from a buffer holding a whole trace file (plain JSON, or gzip /
 * zstd by its magic bytes: a trace piped on standard input) as an indexed
 * one-rank trace, as weft_trace_load() gives for that file; name stands for
 * the file in messages and in rank->path. */
WeftTrace *weft_trace_load_memory (const char  *name,
                                   const void  *data,
                                   gsize        len,
                                   const WeftLoadOptions *options,
                                   GError     **error); /* (transfer full) (nullable): NULL with error set */

/* Lists trace files below path (a file gives itself), sorted in natural
 * order; only the highest iteration_N folder when there are several. NULL
 * with WEFT_ERROR_NO_TRACE (naming the folder) when there is none, or
 * WEFT_ERROR_IO when path does not exist. See docs/loading.md. */
/* (transfer full) (nullable): NULL with error set */
GPtrArray *weft_find_trace_files (const char *path, GError **error);

/* Rank number from a file name (rank3_trace.json, worker3_..., rank-3...), or -1. */
int        weft_rank_from_file_name (const char *path);

/* ---- loading in the background (load-async.c) ---------------------------
 *
 * The window's load: the files are read in a GTask thread (the reader's
 * worker threads below it), then the edit session (the solver's first solve,
 * the baseline of the metric deltas) is built in the same thread. As
 * Sysprof's sysprof_document_loader_load_async. */

typedef struct _WeftEditSession WeftEditSession;

/* What a background load is doing, for a progress bar: polled from the main
 * thread while the worker threads write it (thread-safe, ref-counted). */
typedef struct _WeftLoadProgress WeftLoadProgress;

typedef enum
{
  WEFT_LOAD_PHASE_READING,   /* done / total bytes read */
  WEFT_LOAD_PHASE_SOLVING,   /* read and indexed; building the solver */
} WeftLoadPhase;

WeftLoadProgress *weft_load_progress_new   (void); /* (transfer full) */
WeftLoadProgress *weft_load_progress_ref   (WeftLoadProgress *progress); /* (transfer full) */
void              weft_load_progress_unref (WeftLoadProgress *progress);
/* The bytes read so far and the total size of all files (both 0 before the
 * reader starts), and the phase. */
WeftLoadPhase     weft_load_progress_get   (WeftLoadProgress *progress,
                                            guint64          *done,
                                            guint64          *total);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WeftLoadProgress, weft_load_progress_unref)

typedef enum
{
  WEFT_LOAD_FLAGS_NONE = 0,
  /* keep each rank on its own clock: do not apply the estimated offsets */
  WEFT_LOAD_NO_CLOCK_ALIGNMENT = 1 << 0,
} WeftLoadFlags;

typedef struct
{
  /* the document: the edit session owns the trace and the solver; NULL when
   * the solver refused the trace, which is then in trace (shown without
   * solved metrics) with the solver's message in solver_error */
  WeftEditSession *session;
  WeftTrace       *trace;
  char            *solver_error;
  gint64           load_us;    /* reading and indexing */
  gint64           solve_us;   /* building the session */
} WeftLoadResult;

void weft_load_result_free (WeftLoadResult *result);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WeftLoadResult, weft_load_result_free)

/* Loads one path (a file or a folder, as weft_trace_load) or several files
 * (the ranks of one trace, as weft_trace_load_files) in a thread, then
 * builds the edit session on it (source path: paths[0]). progress, when
 * not NULL, is kept updated. Cancelling gives G_IO_ERROR_CANCELLED (or the
 * reader's WEFT_ERROR_CANCELLED). callback runs in the thread-default main
 * context of the caller. For tests, WEFT_TEST_LOAD_DELAY_MS delays the
 * start (a slow disk: Cancel can be pressed in time). */
void            weft_trace_load_async  (const char * const  *paths,
                                        guint                n_paths,
                                        WeftLoadFlags        flags,
                                        WeftLoadProgress    *progress,
                                        GCancellable        *cancellable,
                                        GAsyncReadyCallback  callback,
                                        gpointer             user_data);
/* The loaded document (transfer full), or NULL with the load's error (the
 * file and byte offset). */
WeftLoadResult *weft_trace_load_finish (GAsyncResult        *result,
                                        GError             **error);

G_END_DECLS
