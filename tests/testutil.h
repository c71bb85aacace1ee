/* testutil.h: helpers shared by the test programs (no mocks: real files). */
#pragma once

#include <glib.h>
#include "weft/weft.h" /* every public core header, together: each test compiles them */

G_BEGIN_DECLS

/* The trace at path through the real loader, asserting that it loads. */
WeftTrace  *weft_test_load (const char *path);
/* The first complete ('X') event of rank ri with category cat and correlation id, or WEFT_NONE. */
guint32     weft_test_find_x (WeftTrace *trace, guint ri, const char *cat, gint64 correlation);
/* A solver of trace, asserting that it builds; and its step time over all ranks and steps. */
WeftSolver *weft_test_solver_new (WeftTrace *trace);
gint64      weft_test_step_time (WeftSolver *solver);
/* Sets the duration of a random solver node (64 tries at a random rank and
 * event, g_test_rand), asserting the edit is taken; FALSE: none found. */
gboolean    weft_test_set_random_duration (WeftTrace *trace, WeftSolver *solver, gint64 dur);

/* Path of a file under ../shared/traces (WEFT_TRACES_DIR), or NULL when the
 * folder or file is absent (the caller skips with g_test_skip and a message). */
char       *weft_test_trace_path (const char *relative);
/* Same, skipping the current test with a message when it is absent. */
char       *weft_test_require_trace (const char *relative);
/* A fresh temporary folder removed at exit of the test program. */
const char *weft_test_tmpdir (void);
/* Path of a built program (weft-cli, weft) in the build folder. */
char       *weft_test_build_path (const char *program);
/* Writes data to tmpdir/name and returns the path. */
char       *weft_test_write_file (const char *name, const char *data, gssize len);
/* The whole file at path through zlib's gzread (a gzip file decompressed,
 * a plain one as it is; independent of the project's reader), with a NUL
 * after the *len_out bytes. Asserts it can be read. */
char       *weft_test_read_gz (const char *path, gsize *len_out);
/* data compressed whole, as a gzip member (zlib level 6) or a zstd frame
 * (level 3), in memory; g_free the result. Asserts it can. */
char       *weft_test_gzip_bytes (const char *data, gsize len, gsize *out_len);
char       *weft_test_zstd_bytes (const char *data, gsize len, gsize *out_len);
/* Benchmark timing: gint64 comparison (for g_array_sort / qsort), the p-th
 * quantile (0..1, by index (len - 1) * p) of an array of gint64 ns in ms
 * (sorts it; 0 when empty), and a monotonic clock in ns (us resolution). */
gint        weft_test_cmp_i64 (gconstpointer a, gconstpointer b);
double      weft_test_pct_ms (GArray *ns, double p);
gint64      weft_test_now_ns (void);
/* Writes one rank of a generated training step (the benchmarks' input) to
 * path: n_ops compute kernels on stream 7, alternating elementwise_kernel
 * (every third) and gemm_kernel, each launched from CPU thread 1, and after
 * every 64th an all-reduce on stream 20 waiting on an event; durations drawn
 * from a GRand seeded with seed (times in us with 3 decimals, as Kineto). */
void        weft_test_write_step_rank (const char *path, int rank, int world, guint n_ops, guint32 seed,
                                       const char *gemm_kernel, const char *elementwise_kernel);

/* A load's progress calls as a test sees them (options.progress =
 * weft_test_progress_cb, progress_data = the log; zero it, set monotonic
 * TRUE and init the lock first): the count, the last call's figures,
 * whether done never went down; cancel, when set, is cancelled at the
 * first call. */
typedef struct
{
  GMutex        lock;
  guint         calls;
  guint64       last_done;
  guint64       total;
  gboolean      monotonic;
  GCancellable *cancel;
} WeftTestProgress;
void        weft_test_progress_cb (guint64 done, guint64 total, gpointer data);

G_END_DECLS
