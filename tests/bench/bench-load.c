/* bench-load.c: load throughput and peak memory of the trace loader.
 *
 *   bench-load [--repeat N]
 *
 * For each input (df_index_resolver.json.gz; the same decompressed to a
 * plain file in /tmp; the 8-file DLRM set) and each thread count (1, all
 * cores) it runs one child process per measurement, so that each peak RSS
 * (getrusage ru_maxrss of the child) belongs to that load alone, and prints
 * MB/s of uncompressed JSON (best of N runs) and peak RSS as a multiple of
 * the uncompressed JSON size. For comparison, the same files through
 * Python's json.load (skipped when python3 is absent). Figures and the
 * machine go into docs/benchmarks.md (## Loading). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include <glib/gstdio.h>

#include "../testutil.h"
#include "core/jsonscan.h"
#include "weft/weft-load.h"

static const char *DF = "HolisticTraceAnalysis/df_index_resolver/df_index_resolver.json.gz";
static const char *DLRM = "param/et_replay/tests/inputs/dlrm_kineto";

/* Distinct threads that reported progress: shows the files really were
 * parsed on several threads. */
static GMutex seen_lock;
static GHashTable *seen_threads;
static GThread *main_thread;

static void
note_thread (guint64 done, guint64 total, gpointer data)
{
  (void) done;
  (void) total;
  (void) data;
  if (g_thread_self () == main_thread)
    return; /* the final report comes from the caller's thread */
  g_mutex_lock (&seen_lock);
  g_hash_table_add (seen_threads, g_thread_self ());
  g_mutex_unlock (&seen_lock);
}

/* Child: load path once with n threads, print "bytes seconds maxrss_kb
 * events cpu_seconds threads_seen calling_thread_cpu_seconds". path "-"
 * loads nothing (the baseline RSS). */
static int
run_one (const char *path, guint threads)
{
  WeftLoadOptions options = { 0 };
  g_autoptr (GError) error = NULL;
  gint64 t0, t1;
  WeftTrace *trace;
  struct rusage ru;
  guint64 bytes = 0, events = 0;

  options.n_threads = threads;
  options.progress = note_thread;
  seen_threads = g_hash_table_new (g_direct_hash, g_direct_equal);
  main_thread = g_thread_self ();
  if (strcmp (path, "-") == 0)
    {
      getrusage (RUSAGE_SELF, &ru);
      printf ("1 1 %ld 0 0 0\n", ru.ru_maxrss);
      return 0;
    }
  if (threads == 0)
    {
      /* the scanner alone: no index, no classification */
      WeftReader *reader = weft_reader_open (path, &error);
      WeftRank *rank = weft_rank_new (path);
      WeftScanResult res = { 0 };
      gboolean ok;
      t0 = g_get_monotonic_time ();
      ok = reader != NULL && weft_json_scan_trace (rank, reader, NULL, &res, &error);
      t1 = g_get_monotonic_time ();
      if (!ok)
        {
          fprintf (stderr, "bench-load: %s\n", error->message);
          return 1;
        }
      getrusage (RUSAGE_SELF, &ru);
      printf ("%" G_GUINT64_FORMAT " %.6f %ld %u %.6f 0\n", res.json_bytes, (t1 - t0) / 1e6, ru.ru_maxrss,
              rank->events->len,
              ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
      weft_reader_free (reader);
      weft_rank_free (rank);
      return 0;
    }
  t0 = g_get_monotonic_time ();
  trace = weft_trace_load (path, &options, NULL, &error);
  t1 = g_get_monotonic_time ();
  if (trace == NULL)
    {
      fprintf (stderr, "bench-load: %s\n", error->message);
      return 1;
    }
  for (guint i = 0; i < trace->ranks->len; i++)
    {
      bytes += weft_trace_rank (trace, i)->json_bytes;
      events += weft_trace_rank (trace, i)->events->len;
    }
  getrusage (RUSAGE_SELF, &ru);
  {
    /* last: the CPU time of this (the calling) thread alone: with one
     * file and one job, the scanner's thread, the load's critical path
     * when the read-ahead and packing threads have a core of their own
     * (docs/benchmarks.md, "One big file on both cores") */
    struct timespec me;
    clock_gettime (CLOCK_THREAD_CPUTIME_ID, &me);
    printf ("%" G_GUINT64_FORMAT " %.6f %ld %" G_GUINT64_FORMAT " %.6f %u %.6f\n", bytes, (t1 - t0) / 1e6, ru.ru_maxrss,
            events, ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6,
            g_hash_table_size (seen_threads),
            me.tv_sec + me.tv_nsec / 1e9);
  }
  weft_trace_free (trace);
  return 0;
}

typedef struct
{
  guint64 bytes;
  double  seconds;
  long    maxrss_kb;
  guint64 events;
  double  cpu;
  guint   threads_seen;
} Result;

static long baseline_kb;

static gboolean
spawn_and_parse (char **argv, Result *r)
{
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  int status = 0;
  g_autoptr (GError) error = NULL;

  if (!g_spawn_sync (NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err, &status, &error))
    {
      fprintf (stderr, "bench-load: %s\n", error->message);
      return FALSE;
    }
  if (!g_spawn_check_wait_status (status, NULL) ||
      sscanf (out, "%" G_GUINT64_FORMAT " %lf %ld %" G_GUINT64_FORMAT " %lf %u", &r->bytes, &r->seconds,
              &r->maxrss_kb, &r->events, &r->cpu, &r->threads_seen) < 5)
    {
      fprintf (stderr, "bench-load: child failed: %s%s\n", out ? out : "", err ? err : "");
      return FALSE;
    }
  return TRUE;
}

static void
print_row (const char *label, guint threads, const Result *r)
{
  g_autofree char *tcol = r->threads_seen ? g_strdup_printf ("%u (%u)", threads, r->threads_seen) : g_strdup_printf ("%u", threads);

  printf ("| %-34s | %7s | %8.1f | %8.3f | %8.3f | %9.1f | %9.1f | %7ld | %6.2fx | %6.2fx | %9" G_GUINT64_FORMAT " |\n",
          label, tcol, r->bytes / 1e6, r->seconds, r->cpu, r->bytes / 1e6 / r->seconds, r->bytes / 1e6 / r->cpu,
          r->maxrss_kb / 1024, r->maxrss_kb * 1024.0 / r->bytes,
          MAX (0, r->maxrss_kb - baseline_kb) * 1024.0 / r->bytes, r->events);
}

static void
measure (const char *self, const char *label, const char *path, guint threads, int repeat)
{
  Result best = { 0 };
  g_autofree char *tstr = g_strdup_printf ("%u", threads);
  char *argv[] = { (char *) self, (char *) "--one", (char *) path, tstr, NULL };

  for (int i = 0; i < repeat; i++)
    {
      Result r = { 0 };
      if (!spawn_and_parse (argv, &r))
        return;
      if (i == 0 || r.seconds < best.seconds)
        best.seconds = r.seconds;
      if (i == 0 || r.cpu < best.cpu)
        best.cpu = r.cpu;
      best.bytes = r.bytes;
      best.events = r.events;
      best.threads_seen = MAX (best.threads_seen, r.threads_seen);
      best.maxrss_kb = MAX (best.maxrss_kb, r.maxrss_kb);
    }
  print_row (label, threads, &best);
}

static void
measure_python (const char *label, const char *path)
{
  /* json.load of every file below path (gzip by magic), timed in Python */
  static const char *script =
    "import gzip, json, os, sys, time, resource\n"
    "p = sys.argv[1]\n"
    "files = [p] if os.path.isfile(p) else sorted(os.path.join(p, f) for f in os.listdir(p) if '.json' in f)\n"
    "n = 0\n"
    "t0 = time.perf_counter()\n"
    "docs = []\n"
    "for f in files:\n"
    "    with open(f, 'rb') as fh:\n"
    "        raw = fh.read()\n"
    "    if raw[:2] == b'\\x1f\\x8b':\n"
    "        raw = gzip.decompress(raw)\n"
    "    n += len(raw)\n"
    "    docs.append(json.loads(raw))\n"
    "    del raw\n"
    "t1 = time.perf_counter()\n"
    "ev = sum(len(d.get('traceEvents', [])) for d in docs)\n"
    "ru = resource.getrusage(resource.RUSAGE_SELF)\n"
    "print(n, '%.6f' % (t1 - t0), ru.ru_maxrss, ev, '%.6f' % (ru.ru_utime + ru.ru_stime))\n";
  char *argv[] = { (char *) "python3", (char *) "-c", (char *) script, (char *) path, NULL };
  Result r = { 0 };
  g_autofree char *py = g_find_program_in_path ("python3");

  if (py == NULL)
    {
      printf ("| %-34s | python3 not found: skipped |\n", label);
      return;
    }
  if (!spawn_and_parse (argv, &r))
    return;
  print_row (label, 1, &r);
}

static char *
decompress_to_tmp (const char *gz_path)
{
  g_autofree char *dir = g_dir_make_tmp ("weft-bench-XXXXXX", NULL);
  char *out = g_build_filename (dir, "df_index_resolver.json", NULL);
  gzFile gz = gzopen (gz_path, "rb");
  FILE *f = fopen (out, "wb");
  char buf[1 << 16];
  int n;

  g_assert (gz != NULL && f != NULL);
  while ((n = gzread (gz, buf, sizeof buf)) > 0)
    fwrite (buf, 1, (size_t) n, f);
  gzclose (gz);
  fclose (f);
  return out;
}

/* Four ranks made of the plain df_index_resolver text with its
 * distributedInfo rank and world_size rewritten (a multi-file set big
 * enough to time parallel loading; a rank at or above its world_size is
 * refused); written under /tmp, removed at the end. */
static char *
make_four_ranks (const char *plain)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  char *dir = g_dir_make_tmp ("weft-bench4-XXXXXX", NULL);
  const char *key = "\"rank\": 1,";
  char *at;

  g_assert (g_file_get_contents (plain, &text, &len, NULL));
  at = strstr (text, key);
  g_assert (at != NULL);
  {
    /* "world_size": 2 -> 4: the same length, so the rest is unchanged */
    char *ws = strstr (at, "\"world_size\": ");
    g_assert (ws != NULL && g_ascii_isdigit (ws[14]) && !g_ascii_isdigit (ws[15]));
    ws[14] = '4';
  }
  for (int r = 0; r < 4; r++)
    {
      g_autofree char *path = g_strdup_printf ("%s/rank%d_trace.json", dir, r);
      at[strlen (key) - 2] = (char) ('0' + r);
      g_assert (g_file_set_contents (path, text, (gssize) len, NULL));
    }
  return dir;
}

static void
remove_four_ranks (const char *dir)
{
  for (int r = 0; r < 4; r++)
    {
      g_autofree char *path = g_strdup_printf ("%s/rank%d_trace.json", dir, r);
      g_unlink (path);
    }
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_autofree char *df = NULL;
  g_autofree char *dlrm = NULL;
  g_autofree char *plain = NULL;
  g_autofree char *self = NULL;
  g_autofree char *four = NULL;
  guint cores = g_get_num_processors ();
  int repeat = 3;

  if (argc == 4 && strcmp (argv[1], "--one") == 0)
    return run_one (argv[2], (guint) atoi (argv[3]));
  if (argc == 3 && strcmp (argv[1], "--repeat") == 0)
    repeat = MAX (1, atoi (argv[2]));

  self = g_canonicalize_filename (argv[0], NULL);
  if (g_getenv ("WEFT_TRACES_DIR") == NULL)
    {
      g_autofree char *src = g_path_get_dirname (__FILE__);
      g_autofree char *traces = g_build_filename (src, "..", "..", "..", "shared", "traces", NULL);
      g_setenv ("WEFT_TRACES_DIR", traces, TRUE);
    }
  df = weft_test_trace_path (DF);
  dlrm = weft_test_trace_path (DLRM);
  if (df == NULL || dlrm == NULL)
    {
      fprintf (stderr, "bench-load: shared traces not found (set WEFT_TRACES_DIR)\n");
      return 77;
    }
  plain = decompress_to_tmp (df);
  four = make_four_ranks (plain);

  printf ("bench-load: %u cores, best of %d runs, peak RSS = max ru_maxrss of a child doing one load\n\n", cores,
          repeat);
  {
    char *argv0[] = { self, (char *) "--one", (char *) "-", (char *) "1", NULL };
    Result r = { 0 };
    if (spawn_and_parse (argv0, &r))
      baseline_kb = r.maxrss_kb;
  }
  printf ("baseline RSS of the benchmark process before loading: %ld KiB\n", baseline_kb);
  printf ("threads: asked (distinct threads that parsed files)\n\n");
  printf ("| %-34s | threads | JSON MB  | wall s   | CPU s    | MB/s wall | MB/s CPU  | RSS MiB | RSS/JSON | (-base) | events    |\n", "input");
  printf ("|------------------------------------|---------|----------|----------|----------|-----------|-----------|---------|----------|---------|-----------|\n");
  measure (self, "df_index_resolver.json.gz", df, 1, repeat);
  measure (self, "df_index_resolver.json (plain)", plain, 1, repeat);
  measure (self, "  same, scanner only (no index)", plain, 0, repeat);
  measure (self, "DLRM 8 ranks (plain .json)", dlrm, 1, repeat);
  measure (self, "DLRM 8 ranks (plain .json)", dlrm, cores, repeat);
  measure (self, "df_index x4 ranks (plain .json)", four, 1, repeat);
  measure (self, "df_index x4 ranks (plain .json)", four, cores, repeat);
  measure_python ("python json.load: df_index .gz", df);
  measure_python ("python json.load: df_index plain", plain);
  measure_python ("python json.load: DLRM 8 ranks", dlrm);

  remove_four_ranks (four);
  g_unlink (plain);
  {
    g_autofree char *d = g_path_get_dirname (plain);
    g_rmdir (d);
  }
  return 0;
}
