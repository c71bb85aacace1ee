#include "config.h"

#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "testutil.h"

char *
weft_test_trace_path (const char *relative)
{
  const char *dir = g_getenv ("WEFT_TRACES_DIR");
  char *path;

  if (dir == NULL || !g_file_test (dir, G_FILE_TEST_IS_DIR))
    return NULL;
  path = g_build_filename (dir, relative, NULL);
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_free (path);
      return NULL;
    }
  return path;
}

char *
weft_test_require_trace (const char *relative)
{
  char *path = weft_test_trace_path (relative);
  if (path == NULL)
    {
      char *msg = g_strdup_printf ("shared trace %s not found (WEFT_TRACES_DIR=%s): skipped", relative,
                                   g_getenv ("WEFT_TRACES_DIR") ? g_getenv ("WEFT_TRACES_DIR") : "(unset)");
      g_test_skip (msg);
      g_free (msg);
    }
  return path;
}

static char *tmpdir;

static void
remove_tree (const char *path)
{
  GDir *dir = g_dir_open (path, 0, NULL);
  const char *name;

  if (dir != NULL)
    {
      while ((name = g_dir_read_name (dir)) != NULL)
        {
          char *child = g_build_filename (path, name, NULL);
          if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
            remove_tree (child);
          else
            g_unlink (child);
          g_free (child);
        }
      g_dir_close (dir);
    }
  g_rmdir (path);
}

static void
cleanup_tmpdir (void)
{
  if (tmpdir != NULL && g_getenv ("WEFT_KEEP_TMP") == NULL)
    remove_tree (tmpdir);
  g_free (tmpdir);
  tmpdir = NULL;
}

const char *
weft_test_tmpdir (void)
{
  if (tmpdir == NULL)
    {
      tmpdir = g_dir_make_tmp ("weft-test-XXXXXX", NULL);
      g_assert_nonnull (tmpdir);
      atexit (cleanup_tmpdir);
    }
  return tmpdir;
}

char *
weft_test_build_path (const char *program)
{
  const char *dir = g_getenv ("WEFT_BUILD_DIR");
  return g_build_filename (dir ? dir : ".", program, NULL);
}

char *
weft_test_write_file (const char *name, const char *data, gssize len)
{
  char *path = g_build_filename (weft_test_tmpdir (), name, NULL);
  GError *error = NULL;
  char *parent = g_path_get_dirname (path);

  g_mkdir_with_parents (parent, 0755);
  g_free (parent);
  if (!g_file_set_contents (path, data, len, &error))
    g_error ("writing %s: %s", path, error->message);
  return path;
}

char *
weft_test_read_gz (const char *path, gsize *len_out)
{
  gzFile gz = gzopen (path, "rb");
  GByteArray *buf = g_byte_array_new ();
  char chunk[1 << 16];
  int n;

  g_assert_nonnull (gz);
  gzbuffer (gz, 1 << 20);
  while ((n = gzread (gz, chunk, sizeof chunk)) > 0)
    g_byte_array_append (buf, (guint8 *) chunk, (guint) n);
  g_assert_cmpint (n, ==, 0);
  gzclose (gz);
  *len_out = buf->len;
  g_byte_array_append (buf, (const guint8 *) "", 1);
  return (char *) g_byte_array_free (buf, FALSE);
}

gint
weft_test_cmp_i64 (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return (x > y) - (x < y);
}

double
weft_test_pct_ms (GArray *ns, double p)
{
  g_array_sort (ns, weft_test_cmp_i64);
  return ns->len ? g_array_index (ns, gint64, (guint) ((ns->len - 1) * p)) / 1e6 : 0;
}

gint64
weft_test_now_ns (void)
{
  return g_get_monotonic_time () * 1000;
}

void
weft_test_write_step_rank (const char *path, int rank, int world, guint n_ops, guint32 seed,
                           const char *gemm_kernel, const char *elementwise_kernel)
{
  FILE *f = fopen (path, "w");
  double t = 1000.0, cpu = 0.0, comm_free = 0.0;
  int corr = 1, ext = 1, seq = 0;
  GRand *rand = g_rand_new_with_seed (seed);
  g_assert_nonnull (f);
  fprintf (f, "{\"schemaVersion\": 1, \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, \"world_size\": %d}, "
              "\"baseTimeNanoseconds\": 1700000000000000000, \"traceEvents\": [\n",
           rank, world);
  fprintf (f, "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 1, \"tid\": 1, "
              "\"ts\": 0.000, \"dur\": %.3f}",
           n_ops * 40.0 + 1e6);
  for (guint i = 0; i < n_ops; i++)
    {
      double dur = 5.0 + g_rand_double (rand) * 20.0;
      cpu += 4.0;
      if (t < cpu + 6.0)
        t = cpu + 6.0;
      fprintf (f,
               ",\n{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, "
               "\"ts\": %.3f, \"dur\": 3.000, \"args\": {\"correlation\": %d, \"External id\": %d}}"
               ",\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 7, \"ts\": %.3f, "
               "\"dur\": %.3f, \"args\": {\"stream\": 7, \"correlation\": %d, \"External id\": %d}}",
               cpu, corr, ext, i % 3 ? gemm_kernel : elementwise_kernel,
               t, dur, corr, ext);
      t += dur + 1.0;
      corr++;
      ext++;
      if (i % 64 == 63)
        {
          /* all-reduce of the gradients so far on the NCCL stream */
          double start = MAX (t, comm_free), d = 80.0;
          fprintf (f,
                   ",\n{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaEventRecord\", \"pid\": 1, "
                   "\"tid\": 1, \"ts\": %.3f, \"dur\": 1.000, \"args\": {\"correlation\": %d, \"External id\": %d}}"
                   ",\n{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaStreamWaitEvent\", \"pid\": 1, "
                   "\"tid\": 1, \"ts\": %.3f, \"dur\": 1.000, \"args\": {\"correlation\": %d, \"External id\": %d}}",
                   cpu + 1.0, corr, ext, cpu + 2.0, corr + 1, ext);
          corr += 2;
          cpu += 3.0;
          fprintf (f,
                   ",\n{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, "
                   "\"tid\": 1, \"ts\": %.3f, \"dur\": 3.000, \"args\": {\"correlation\": %d, \"External id\": %d}}"
                   ",\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": "
                   "\"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)\", \"pid\": 0, "
                   "\"tid\": 20, \"ts\": %.3f, \"dur\": %.3f, \"args\": {\"stream\": 20, \"correlation\": %d, "
                   "\"External id\": %d, \"Collective name\": \"allreduce\", \"In msg nelems\": 1048576, "
                   "\"Out msg nelems\": 1048576, \"Group size\": %d, \"dtype\": \"BFloat16\", "
                   "\"Process Group Name\": \"0\", \"Process Group Description\": \"default_pg\", "
                   "\"Process Group Ranks\": \"[0, 1, 2, 3, 4, 5, 6, 7]\", \"Seq\": %d}}",
                   cpu, corr, ext, start + 2.0 * (rank % 3), d, corr, ext, world, seq++);
          comm_free = start + 2.0 * (rank % 3) + d;
          corr++;
          ext++;
        }
    }
  fprintf (f, "\n]}\n");
  fclose (f);
  g_rand_free (rand);
}

char *
weft_test_gzip_bytes (const char *data, gsize len, gsize *out_len)
{
  z_stream zs = { 0 };
  gsize cap = len + len / 100 + 1024;
  char *out = g_malloc (cap);
  g_assert_cmpint (deflateInit2 (&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), ==, Z_OK);
  zs.next_in = (Bytef *) data;
  zs.avail_in = (uInt) len;
  zs.next_out = (Bytef *) out;
  zs.avail_out = (uInt) cap;
  g_assert_cmpint (deflate (&zs, Z_FINISH), ==, Z_STREAM_END);
  *out_len = zs.total_out;
  deflateEnd (&zs);
  return out;
}

char *
weft_test_zstd_bytes (const char *data, gsize len, gsize *out_len)
{
  gsize cap = ZSTD_compressBound (len);
  char *out = g_malloc (cap);
  size_t n = ZSTD_compress (out, cap, data, len, 3);
  g_assert_false (ZSTD_isError (n));
  *out_len = n;
  return out;
}

void
weft_test_progress_cb (guint64 done, guint64 total, gpointer data)
{
  WeftTestProgress *log = data;
  g_mutex_lock (&log->lock);
  if (done < log->last_done)
    log->monotonic = FALSE;
  log->last_done = done;
  log->total = total;
  log->calls++;
  if (log->cancel != NULL && log->calls == 1)
    g_cancellable_cancel (log->cancel);
  g_mutex_unlock (&log->lock);
}

WeftTrace *
weft_test_load (const char *path)
{
  g_autoptr (GError) error = NULL;
  WeftTrace *trace = weft_trace_load (path, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (trace);
  return trace;
}

guint32
weft_test_find_x (WeftTrace *trace, guint ri, const char *cat, gint64 correlation)
{
  WeftRank *rank = weft_trace_rank (trace, ri);
  for (guint i = 0; i < rank->events->len; i++)
    {
      WeftEvent *ev = weft_rank_event (rank, i);
      if (weft_event_correlation (rank, ev) == correlation && ev->ph == WEFT_PH_X &&
          strcmp (weft_rank_string (rank, ev->cat), cat) == 0)
        return i;
    }
  return WEFT_NONE;
}

WeftSolver *
weft_test_solver_new (WeftTrace *trace)
{
  g_autoptr (GError) error = NULL;
  WeftSolver *solver = weft_solver_new (trace, &error);
  g_assert_no_error (error);
  return solver;
}

gint64
weft_test_step_time (WeftSolver *solver)
{
  WeftMetrics m;
  g_assert_true (weft_solver_metrics (solver, WEFT_SOLVER_ALL_RANKS, WEFT_SOLVER_ALL_STEPS, &m));
  return m.step_time;
}

gboolean
weft_test_set_random_duration (WeftTrace *trace, WeftSolver *solver, gint64 dur)
{
  for (guint tries = 0; tries < 64; tries++)
    {
      guint r = (guint) g_test_rand_int_range (0, (gint32) trace->ranks->len);
      WeftRank *rank = weft_trace_rank (trace, r);
      guint32 e = rank->events->len > 0 ? (guint32) g_test_rand_int_range (0, (gint32) rank->events->len) : 0;
      g_autoptr (GError) error = NULL;
      if (rank->events->len == 0 || !weft_solver_is_node (solver, r, e))
        continue;
      g_assert_true (weft_solver_set_duration (solver, r, e, dur, &error));
      g_assert_no_error (error);
      return TRUE;
    }
  return FALSE;
}
