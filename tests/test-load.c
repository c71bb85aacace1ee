/* test-load.c: the loader on the real traces of ../shared/traces and on
 * small files written here.
 *
 * The reference for every real file is an independent reading of the same
 * bytes: the file is decompressed with zlib's gzread (not Weft's reader),
 * parsed whole with json-c, and each event's ts/dur text is converted to
 * nanoseconds here with a separate string-based exact conversion. */
#include "config.h"

#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include <json-c/json.h>

#include "core/jsonscan.h"
#include "testutil.h"
#include "weft/weft-edit.h"
#include "weft/weft-load.h"

/* ---- independent helpers ------------------------------------------------------ */

/* Exact decimal text -> integer * 10^scale by string manipulation: move
 * the decimal point in a digit string, then round half away from zero. */
static gboolean
ref_decimal (const char *text, int scale, gint64 *out)
{
  GString *digits = g_string_new (NULL);
  gboolean neg = FALSE;
  const char *p = text;
  long point, exp10 = 0;
  guint64 v = 0;
  gboolean ok = TRUE;

  if (*p == '-')
    {
      neg = TRUE;
      p++;
    }
  while (g_ascii_isdigit (*p))
    g_string_append_c (digits, *p++);
  point = (long) digits->len;
  if (*p == '.')
    {
      p++;
      while (g_ascii_isdigit (*p))
        g_string_append_c (digits, *p++);
    }
  if (*p == 'e' || *p == 'E')
    exp10 = strtol (p + 1, (char **) &p, 10);
  if (*p != '\0' || digits->len == 0)
    {
      g_string_free (digits, TRUE);
      return FALSE;
    }
  point += exp10 + scale;
  while ((long) digits->len < point)
    g_string_append_c (digits, '0');
  for (long i = 0; i < point && ok; i++)
    {
      guint d = (guint) (digits->str[i] - '0');
      if (v > (G_MAXUINT64 - d) / 10)
        ok = FALSE;
      else
        v = v * 10 + d;
    }
  if (ok && point >= 0 && point < (long) digits->len && digits->str[point] >= '5')
    v++;
  g_string_free (digits, TRUE);
  if (!ok || v > (guint64) G_MAXINT64)
    return FALSE;
  *out = neg ? -(gint64) v : (gint64) v;
  return TRUE;
}

static WeftPhase
ref_phase (const char *ph)
{
  static const struct
  {
    const char *text;
    WeftPhase   ph;
  } map[] = { { "X", WEFT_PH_X }, { "i", WEFT_PH_I }, { "I", WEFT_PH_I }, { "s", WEFT_PH_S },
              { "t", WEFT_PH_T }, { "f", WEFT_PH_F }, { "M", WEFT_PH_M }, { "C", WEFT_PH_C },
              { "B", WEFT_PH_B }, { "E", WEFT_PH_E } };
  if (ph == NULL)
    return WEFT_PH_OTHER;
  for (guint i = 0; i < G_N_ELEMENTS (map); i++)
    if (strcmp (map[i].text, ph) == 0)
      return map[i].ph;
  return WEFT_PH_OTHER;
}

/* Compares one loaded rank with the json-c reading of the same file. */
static void
check_against_jsonc (const char *path, WeftRank *rank)
{
  gsize len = 0;
  g_autofree char *text = weft_test_read_gz (path, &len);
  json_tokener *tok = json_tokener_new_ex (256);
  json_object *root = json_tokener_parse_ex (tok, text, (int) len);
  json_object *events, *v;
  guint ref_counts[WEFT_PH_N_PHASES] = { 0 }, counts[WEFT_PH_N_PHASES] = { 0 };
  gint64 base = 0;
  size_t n;
  guint ts_checked = 0;

  g_assert_nonnull (root);
  json_tokener_free (tok);
  g_assert_cmpuint (rank->json_bytes, ==, len);
  if (json_object_object_get_ex (root, "baseTimeNanoseconds", &v))
    {
      g_assert_true (ref_decimal (json_object_get_string (v), 0, &base));
      g_assert_true (rank->has_base);
      g_assert_cmpint (rank->base_ns, ==, base);
    }
  else
    g_assert_false (rank->has_base);

  /* every other top-level key, in file order */
  {
    guint k = 0;
    json_object_object_foreach (root, key, val)
      {
        (void) val;
        if (strcmp (key, "traceEvents") == 0)
          {
            g_assert_cmpuint (rank->trace_events_pos, ==, k);
            continue;
          }
        g_assert_cmpuint (k, <, rank->top_keys->len);
        g_assert_cmpstr (weft_rank_string (rank, g_array_index (rank->top_keys, WeftTopKey, k).key), ==, key);
        k++;
      }
    g_assert_cmpuint (k, ==, rank->top_keys->len);
  }

  g_assert_true (json_object_object_get_ex (root, "traceEvents", &events));
  n = json_object_array_length (events);
  g_assert_cmpuint (n, ==, rank->events->len);
  for (size_t i = 0; i < n; i++)
    {
      json_object *e = json_object_array_get_idx (events, i);
      const WeftEvent *ev = weft_rank_event (rank, (guint32) i);
      const char *ph = json_object_object_get_ex (e, "ph", &v) ? json_object_get_string (v) : NULL;
      gint64 want;

      ref_counts[ref_phase (ph)]++;
      counts[ev->ph]++;
      if (json_object_object_get_ex (e, "ts", &v))
        {
          g_assert_true (ref_decimal (json_object_get_string (v), 3, &want));
          if (ev->ts != want + base)
            g_error ("%s: event %zu: ts %s: loaded %" G_GINT64_FORMAT " ns, expected %" G_GINT64_FORMAT, path, i,
                     json_object_get_string (v), ev->ts, want + base);
          ts_checked++;
        }
      if (json_object_object_get_ex (e, "dur", &v))
        {
          g_assert_true (ref_decimal (json_object_get_string (v), 3, &want));
          g_assert_true (ev->flags & WEFT_EVENT_HAS_DUR);
          if (weft_event_dur (rank, ev) != want)
            g_error ("%s: event %zu: dur %s: loaded %" G_GINT64_FORMAT " ns, expected %" G_GINT64_FORMAT, path, i,
                     json_object_get_string (v), weft_event_dur (rank, ev), want);
        }
      else
        {
          g_assert_false (ev->flags & WEFT_EVENT_HAS_DUR);
          g_assert_cmpint (weft_event_dur (rank, ev), ==, 0);
        }
      if (json_object_object_get_ex (e, "name", &v))
        g_assert_cmpstr (weft_rank_string (rank, ev->name), ==, json_object_get_string (v));
      if (json_object_object_get_ex (e, "cat", &v))
        g_assert_cmpstr (weft_rank_string (rank, ev->cat), ==, json_object_get_string (v));
      /* lanes: every non-metadata event with pid and tid has one */
      if (ref_phase (ph) != WEFT_PH_M && json_object_object_get_ex (e, "pid", NULL) &&
          json_object_object_get_ex (e, "tid", NULL))
        g_assert_cmpuint (ev->lane, <, rank->lanes->len);
      else
        g_assert_cmpuint (ev->lane, ==, WEFT_NONE);
      /* the kept text is the element itself (every event of files under
       * 16 MB, every 8th beyond, to keep the sanitizer run short) */
      if (len < (16u << 20) || i % 8 == 0)
      {
        json_object *again = weft_event_parse (rank, ev);
        g_assert_nonnull (again);
        g_assert_true (json_object_equal (again, e));
        json_object_put (again);
      }
    }
  for (guint p = 0; p < WEFT_PH_N_PHASES; p++)
    g_assert_cmpuint (counts[p], ==, ref_counts[p]);
  g_test_message ("%s: %zu events, %u ts compared, X %u, i %u, s %u, f %u, M %u", path, n, ts_checked,
                  counts[WEFT_PH_X], counts[WEFT_PH_I], counts[WEFT_PH_S], counts[WEFT_PH_F], counts[WEFT_PH_M]);
  json_object_put (root);
}

static void
collect_traces (const char *dir, GPtrArray *out)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const char *name;

  if (d == NULL)
    return;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      char *child = g_build_filename (dir, name, NULL);
      if (g_file_test (child, G_FILE_TEST_IS_DIR))
        {
          collect_traces (child, out);
          g_free (child);
        }
      else if (g_str_has_suffix (name, ".json") || g_str_has_suffix (name, ".json.gz"))
        g_ptr_array_add (out, child);
      else
        g_free (child);
    }
  g_dir_close (d);
}

static void
test_all_shared_traces (void)
{
  const char *dir = g_getenv ("WEFT_TRACES_DIR");
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);

  if (dir == NULL || !g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("WEFT_TRACES_DIR (../shared/traces) not found: skipped");
      return;
    }
  collect_traces (dir, files);
  g_assert_cmpuint (files->len, >=, 20);
  for (guint i = 0; i < files->len; i++)
    {
      const char *path = files->pdata[i];
      g_autoptr (GError) error = NULL;
      g_autoptr (WeftRank) rank = weft_rank_load_file (path, NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_nonnull (rank);
      check_against_jsonc (path, rank);
    }
}

/* ---- multi-rank sets ------------------------------------------------------------ */

static void
test_dlrm_eight_ranks (void)
{
  g_autofree char *dir = weft_test_require_trace ("param/et_replay/tests/inputs/dlrm_kineto");
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftTrace) trace = NULL;
  WeftLoadOptions options = { 0 };

  if (dir == NULL)
    return;
  options.n_threads = 2;
  trace = weft_trace_load (dir, &options, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (trace->ranks->len, ==, 8);
  for (guint i = 0; i < 8; i++)
    {
      WeftRank *rank = weft_trace_rank (trace, i);
      g_autofree char *base = g_path_get_basename (rank->path);
      g_autofree char *want = g_strdup_printf ("worker%u_", i);
      g_assert_cmpint (rank->rank, ==, (int) i);
      g_assert_cmpint (rank->world_size, ==, 8);
      g_assert_cmpint (rank->rank_source, ==, WEFT_RANK_FROM_DISTRIBUTED_INFO);
      g_assert_true (g_str_has_prefix (base, want));
      g_assert_cmpint (rank->ts_style, ==, WEFT_TS_ABSOLUTE_US);
      g_assert_cmpuint (rank->events->len, >, 1000);
      g_assert_cmpuint (rank->lanes->len, >, 0);
    }
}

static void
test_fsdp8_folder (void)
{
  g_autofree char *dir = weft_test_require_trace ("synthetic/fsdp8");
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftTrace) trace = NULL;

  if (dir == NULL)
    return;
  trace = weft_trace_load (dir, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (trace->ranks->len, ==, 8);
  for (guint i = 0; i < 8; i++)
    {
      WeftRank *rank = weft_trace_rank (trace, i);
      g_autofree char *base = g_path_get_basename (rank->path);
      g_autofree char *want = g_strdup_printf ("rank%u_trace.json.gz", i);
      g_assert_cmpint (rank->rank, ==, (int) i);
      g_assert_cmpstr (base, ==, want);
      g_assert_true (strstr (rank->path, "iteration_10") != NULL);
      g_assert_true (rank->has_base);
      g_assert_cmpint (rank->ts_style, ==, WEFT_TS_RELATIVE);
      g_assert_cmpuint (rank->process_groups->len, >, 0);
    }
}

/* The same files with 1 thread and with several give the same model. */
static void
test_parallel_same_as_serial (void)
{
  g_autofree char *dir = weft_test_require_trace ("param/et_replay/tests/inputs/dlrm_kineto");
  g_autoptr (WeftTrace) a = NULL;
  g_autoptr (WeftTrace) b = NULL;
  WeftLoadOptions one = { 0 }, many = { 0 };

  if (dir == NULL)
    return;
  one.n_threads = 1;
  many.n_threads = 4;
  a = weft_trace_load (dir, &one, NULL, NULL);
  b = weft_trace_load (dir, &many, NULL, NULL);
  g_assert_nonnull (a);
  g_assert_nonnull (b);
  g_assert_cmpuint (a->ranks->len, ==, b->ranks->len);
  for (guint i = 0; i < a->ranks->len; i++)
    {
      WeftRank *ra = weft_trace_rank (a, i), *rb = weft_trace_rank (b, i);
      g_assert_cmpint (ra->rank, ==, rb->rank);
      g_assert_cmpuint (ra->events->len, ==, rb->events->len);
      for (guint j = 0; j < ra->events->len; j++)
        {
          const WeftEvent *ea = weft_rank_event (ra, j), *eb = weft_rank_event (rb, j);
          gsize la = 0, lb = 0;
          g_autofree char *ta = weft_rank_event_text_dup (ra, ea, &la);
          g_autofree char *tb = weft_rank_event_text_dup (rb, eb, &lb);
          g_assert_cmpint (ea->ts, ==, eb->ts);
          g_assert_cmpint (weft_event_dur (ra, ea), ==, weft_event_dur (rb, eb));
          g_assert_nonnull (ta);
          g_assert_nonnull (tb);
          g_assert_cmpuint (la, ==, lb);
          g_assert_cmpint (memcmp (ta, tb, la), ==, 0);
        }
    }
}

static void
test_progress (void)
{
  g_autofree char *dir = weft_test_require_trace ("synthetic/fsdp8");
  g_autoptr (WeftTrace) trace = NULL;
  WeftLoadOptions options = { 0 };
  WeftTestProgress log = { 0 };

  if (dir == NULL)
    return;
  log.monotonic = TRUE;
  g_mutex_init (&log.lock);
  options.progress = weft_test_progress_cb;
  options.progress_data = &log;
  trace = weft_trace_load (dir, &options, NULL, NULL);
  g_assert_nonnull (trace);
  g_assert_cmpuint (log.calls, >=, 1);
  g_assert_true (log.monotonic);
  g_assert_cmpuint (log.total, >, 0);
  g_assert_cmpuint (log.last_done, ==, log.total);
  g_mutex_clear (&log.lock);
}

static void
test_cancel (void)
{
  g_autofree char *dir = weft_test_require_trace ("synthetic/fsdp8");
  g_autoptr (GCancellable) cancel = g_cancellable_new ();
  g_autoptr (GError) error = NULL;
  WeftTrace *trace;

  if (dir == NULL)
    return;
  g_cancellable_cancel (cancel);
  trace = weft_trace_load (dir, NULL, cancel, &error);
  g_assert_null (trace);
  g_assert_error (error, WEFT_ERROR, WEFT_ERROR_CANCELLED);
}

static void
cancel_from_progress (guint64 done, guint64 total, gpointer data)
{
  (void) done;
  (void) total;
  g_cancellable_cancel (G_CANCELLABLE (data));
}

/* Cancelled while a file is being read: between two chunks of one file,
 * and between files. */
static void
test_cancel_midway (void)
{
  g_autofree char *file = weft_test_require_trace ("HolisticTraceAnalysis/critical_path/alexnet/"
                                                   "benchmark_result_2869224_1695835535_trace.json.gz");
  g_autofree char *dir = weft_test_require_trace ("param/et_replay/tests/inputs/dlrm_kineto");

  if (file == NULL || dir == NULL)
    return;
  for (guint threads = 1; threads <= 2; threads++)
    {
      const char *paths[] = { file, dir };
      for (guint k = 0; k < G_N_ELEMENTS (paths); k++)
        {
          g_autoptr (GCancellable) cancel = g_cancellable_new ();
          g_autoptr (GError) error = NULL;
          WeftLoadOptions options = { 0 };
          WeftTrace *trace;
          options.n_threads = threads;
          options.progress = cancel_from_progress;
          options.progress_data = cancel;
          weft_json_scan_set_chunk_size (4096); /* many chunks in one file */
          trace = weft_trace_load (paths[k], &options, cancel, &error);
          weft_json_scan_set_chunk_size (0);
          g_assert_null (trace);
          g_assert_error (error, WEFT_ERROR, WEFT_ERROR_CANCELLED);
          g_assert_true (strstr (error->message, "cancelled") != NULL);
        }
    }
}

/* ---- small files written here ----------------------------------------------------- */

static WeftRank *
load_text (const char *text)
{
  GError *error = NULL;
  WeftRank *rank = weft_rank_load_buffer ("mem.json", text, strlen (text), NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (rank);
  return rank;
}

static void
test_time_text (void)
{
  /* hand-computed: 123.456 us = 123456 ns; 4 decimals round half away from
   * zero; exponents are exact; an 19-digit absolute time keeps every ns. */
  g_autoptr (WeftRank) rank = load_text (
    "{\"traceEvents\": ["
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":123.456,\"dur\":0.001},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":1.0005,\"dur\":1.0004},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":-1.0005,\"dur\":2.5e-3},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":1.5e3,\"dur\":15E-1},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":1661203462598738.123,\"dur\":7},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":0.00049}"
    "]}");
  gint64 want_ts[] = { 123456, 1001, -1001, 1500000, G_GINT64_CONSTANT (1661203462598738123), 0 };
  gint64 want_dur[] = { 1, 1000, 3, 1500, 7000, 0 };

  g_assert_cmpuint (rank->events->len, ==, G_N_ELEMENTS (want_ts));
  for (guint i = 0; i < rank->events->len; i++)
    {
      g_assert_cmpint (weft_rank_event (rank, i)->ts, ==, want_ts[i]);
      g_assert_cmpint (weft_event_dur (rank, weft_rank_event (rank, i)), ==, want_dur[i]);
    }
  g_assert_false (weft_rank_event (rank, 5)->flags & WEFT_EVENT_HAS_DUR);
  g_assert_cmpint (rank->ts_style, ==, WEFT_TS_ABSOLUTE_FRAC);
}

static void
test_base_after_events (void)
{
  g_autoptr (WeftRank) rank = load_text (
    "{\"schemaVersion\": 1, \"traceEvents\": [{\"ph\":\"X\",\"pid\":0,\"tid\":7,\"ts\":10.5,\"dur\":2}],"
    " \"traceName\": \"x\", \"baseTimeNanoseconds\": 1700000000000000000}");
  g_assert_true (rank->has_base);
  g_assert_cmpint (rank->base_ns, ==, G_GINT64_CONSTANT (1700000000000000000));
  g_assert_cmpint (weft_rank_event (rank, 0)->ts, ==, G_GINT64_CONSTANT (1700000000000010500));
  g_assert_cmpint (rank->ts_style, ==, WEFT_TS_RELATIVE);
  g_assert_cmpuint (rank->top_keys->len, ==, 3);
  g_assert_cmpuint (rank->trace_events_pos, ==, 1);
  g_assert_cmpstr (weft_rank_string (rank, g_array_index (rank->top_keys, WeftTopKey, 0).key), ==, "schemaVersion");
  g_assert_cmpstr (g_array_index (rank->top_keys, WeftTopKey, 1).raw, ==, "\"x\"");
  g_assert_cmpstr (g_array_index (rank->top_keys, WeftTopKey, 2).raw, ==, "1700000000000000000");
}

static void
test_event_fields (void)
{
  g_autoptr (WeftRank) rank = load_text (
    "{\"distributedInfo\": {\"rank\": 5, \"world_size\": 8, \"pg_config\": ["
    "{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", \"pg_size\": 2, \"ranks\": [4, 5]},"
    "{\"pg_name\": \"1\", \"pg_desc\": \"mesh_tp\", \"pg_size\": 2, \"ranks\": \"[5, 6]\"}]},"
    "\"traceEvents\": ["
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\\u00e9\\n\",\"pid\":0,\"tid\":7,\"ts\":1,\"dur\":2,"
    " \"args\":{\"x\":[1,{\"y\":null}],\"correlation\":42,\"External id\":9,\"z\":true}},"
    "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":42,\"pid\":1,\"tid\":1,\"ts\":0.5},"
    "{\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":42,\"pid\":0,\"tid\":7,\"ts\":1,\"bp\":\"e\"},"
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":7,\"args\":{\"name\":\"stream 7 \"}},"
    "{\"name\":\"no ph\",\"pid\":\"Spans\",\"tid\":\"\",\"ts\":3},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"no dur\",\"pid\":1,\"tid\":1,\"ts\":4}"
    "]}");
  const WeftEvent *k = weft_rank_event (rank, 0);
  const WeftProcessGroup *pg;

  g_assert_cmpint (rank->rank, ==, 5);
  g_assert_cmpint (rank->world_size, ==, 8);
  g_assert_cmpint (rank->rank_source, ==, WEFT_RANK_FROM_DISTRIBUTED_INFO);
  g_assert_cmpuint (rank->process_groups->len, ==, 2);
  pg = &g_array_index (rank->process_groups, WeftProcessGroup, 1);
  g_assert_cmpstr (weft_rank_string (rank, pg->desc), ==, "mesh_tp");
  g_assert_cmpuint (pg->n_ranks, ==, 2);
  g_assert_cmpint (pg->ranks[0], ==, 5);
  g_assert_cmpint (pg->ranks[1], ==, 6);

  g_assert_cmpint (k->ph, ==, WEFT_PH_X);
  g_assert_cmpint (k->category, ==, WEFT_CAT_KERNEL);
  g_assert_cmpstr (weft_rank_string (rank, k->name), ==, "k\xc3\xa9\n");
  g_assert_cmpint (weft_event_correlation (rank, k), ==, 42);
  g_assert_cmpint (weft_event_external_id (rank, k), ==, 9);
  g_assert_cmpint (weft_event_flow_id (rank, k), ==, -1);
  g_assert_cmpint (weft_event_flow_id (rank, weft_rank_event (rank, 1)), ==, 42);
  g_assert_cmpint (weft_rank_event (rank, 1)->ph, ==, WEFT_PH_S);
  g_assert_cmpint (weft_rank_event (rank, 1)->category, ==, WEFT_CAT_AC2G);
  g_assert_cmpuint (weft_rank_event (rank, 1)->lane, !=, WEFT_NONE);
  g_assert_true (weft_rank_event (rank, 2)->flags & WEFT_EVENT_BP_E);
  g_assert_cmpuint (weft_rank_event (rank, 2)->lane, ==, k->lane);
  g_assert_cmpuint (weft_rank_event (rank, 3)->lane, ==, WEFT_NONE);
  g_assert_cmpint (weft_rank_event (rank, 4)->ph, ==, WEFT_PH_OTHER);
  g_assert_cmpstr (weft_rank_string (rank, weft_rank_lane (rank, weft_rank_event (rank, 4)->lane)->pid_text), ==,
                   "\"Spans\"");
  g_assert_false (weft_rank_event (rank, 5)->flags & WEFT_EVENT_HAS_DUR);
  g_assert_cmpint (weft_event_dur (rank, weft_rank_event (rank, 5)), ==, 0);
  /* exact bytes kept */
  {
    gsize len = 0;
    g_autofree char *text = weft_rank_event_text_dup (rank, weft_rank_event (rank, 1), &len);
    g_assert_nonnull (text);
    g_assert_true (g_str_has_prefix (text, "{\"ph\":\"s\""));
    g_assert_cmpuint (len, ==, strlen (text));
    g_assert_true (g_str_has_suffix (text, "\"ts\":0.5}"));
  }
}

static void
test_rank_from_file_name (void)
{
  g_assert_cmpint (weft_rank_from_file_name ("/a/iteration_10/rank3_trace.json.gz"), ==, 3);
  g_assert_cmpint (weft_rank_from_file_name ("rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"), ==, 34);
  g_assert_cmpint (weft_rank_from_file_name ("worker3_step_12.1694128201557.pt.trace.json"), ==, 3);
  g_assert_cmpint (weft_rank_from_file_name ("sampled_rank-1.json.gz"), ==, 1);
  g_assert_cmpint (weft_rank_from_file_name ("/rank9/host_123.pt.trace.json"), ==, -1);
  g_assert_cmpint (weft_rank_from_file_name ("host_123.1694128201557.pt.trace.json"), ==, -1);
}

static char *
tiny_trace (int rank)
{
  if (rank < 0)
    return g_strdup ("{\"traceEvents\":[{\"ph\":\"X\",\"pid\":0,\"tid\":1,\"ts\":1,\"dur\":1}]}");
  return g_strdup_printf ("{\"distributedInfo\":{\"rank\":%d},\"traceEvents\":[{\"ph\":\"X\",\"pid\":0,\"tid\":1,"
                          "\"ts\":1,\"dur\":1}]}",
                          rank);
}

static void
write_gz (const char *path, const char *data)
{
  gzFile gz = gzopen (path, "wb");
  g_assert_nonnull (gz);
  g_assert_cmpint (gzwrite (gz, data, (unsigned) strlen (data)), ==, (int) strlen (data));
  gzclose (gz);
}

static void
write_zst (const char *path, const char *data)
{
  gsize len = strlen (data);
  gsize cap = ZSTD_compressBound (len);
  g_autofree char *out = g_malloc (cap);
  size_t n = ZSTD_compress (out, cap, data, len, 3);
  g_assert_false (ZSTD_isError (n));
  g_assert_true (g_file_set_contents (path, out, (gssize) n, NULL));
}

static void
test_find_folder_layouts (void)
{
  g_autofree char *root = g_build_filename (weft_test_tmpdir (), "layouts", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (WeftTrace) trace = NULL;

  /* torchtitan: two iterations (the highest wins), gzip; file-name ranks */
  for (int it = 5; it <= 10; it += 5)
    for (int r = 0; r < 3; r++)
      {
        g_autofree char *dir = g_strdup_printf ("%s/dump/profiling/traces/iteration_%d", root, it);
        g_autofree char *path = g_strdup_printf ("%s/rank%d_trace.json.gz", dir, r);
        g_autofree char *data = tiny_trace (-1);
        g_mkdir_with_parents (dir, 0755);
        write_gz (path, data);
      }
  files = weft_find_trace_files (root, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (files->len, ==, 3);
  for (guint i = 0; i < 3; i++)
    g_assert_true (strstr (files->pdata[i], "iteration_10") != NULL);
  trace = weft_trace_load (root, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (trace->ranks->len, ==, 3);
  for (guint i = 0; i < 3; i++)
    {
      g_assert_cmpint (weft_trace_rank (trace, i)->rank, ==, (int) i);
      g_assert_cmpint (weft_trace_rank (trace, i)->rank_source, ==, WEFT_RANK_FROM_FILE_NAME);
    }
  g_clear_pointer (&trace, weft_trace_free);
  g_clear_pointer (&files, g_ptr_array_unref);

  /* old layout, zstd, and a .pt.trace.json without rank in the name;
   * a JSON that is not a trace is ignored */
  {
    g_autofree char *dir = g_build_filename (root, "old", "profile_traces", "iteration_2", NULL);
    g_autofree char *p0 = g_build_filename (dir, "rank0_trace.json", NULL);
    g_autofree char *p1 = g_build_filename (dir, "rank1_trace.json.zst", NULL);
    g_autofree char *p2 = g_build_filename (root, "old", "profile_traces", "iteration_2", "host_77.123.pt.trace.json",
                                            NULL);
    g_autofree char *p3 = g_build_filename (dir, "config.json", NULL);
    g_autofree char *d0 = tiny_trace (-1);
    g_autofree char *d2 = tiny_trace (-1);
    g_autofree char *old = g_build_filename (root, "old", NULL);
    g_mkdir_with_parents (dir, 0755);
    g_assert_true (g_file_set_contents (p0, d0, -1, NULL));
    write_zst (p1, d0);
    g_assert_true (g_file_set_contents (p2, d2, -1, NULL));
    g_assert_true (g_file_set_contents (p3, "{\"lr\": 0.1}", -1, NULL));
    /* a trace without "trace" in its name is found by its content */
    {
      g_autofree char *p4 = g_build_filename (dir, "step5.json.gz", NULL);
      g_autofree char *d4 = tiny_trace (7);
      write_gz (p4, d4);
    }
    trace = weft_trace_load (old, NULL, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (trace->ranks->len, ==, 4);
    /* ranks 0 and 1 from the names, 7 from distributedInfo, the nameless
     * one gets the lowest free number */
    g_assert_cmpint (weft_trace_rank (trace, 2)->rank, ==, 2);
    g_assert_cmpint (weft_trace_rank (trace, 2)->rank_source, ==, WEFT_RANK_FROM_ORDER);
    g_assert_true (g_str_has_suffix (weft_trace_rank (trace, 2)->path, "host_77.123.pt.trace.json"));
    g_assert_cmpint (weft_trace_rank (trace, 3)->rank, ==, 7);
    g_assert_true (g_str_has_suffix (weft_trace_rank (trace, 3)->path, "step5.json.gz"));
  }
}

static void
test_compressed_by_magic (void)
{
  /* compressed data behind a plain .json name is still found by its magic */
  g_autofree char *data = tiny_trace (2);
  g_autofree char *p1 = g_build_filename (weft_test_tmpdir (), "magic_gz.json", NULL);
  g_autofree char *p2 = g_build_filename (weft_test_tmpdir (), "magic_zst.json", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftRank) a = NULL;
  g_autoptr (WeftRank) b = NULL;

  write_gz (p1, data);
  write_zst (p2, data);
  a = weft_rank_load_file (p1, NULL, NULL, &error);
  g_assert_no_error (error);
  b = weft_rank_load_file (p2, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (a->rank, ==, 2);
  g_assert_cmpint (b->rank, ==, 2);
  g_assert_cmpuint (a->json_bytes, ==, strlen (data));
  g_assert_cmpuint (b->events->len, ==, 1);
}

/* A real trace recompressed here as gzip (two members) and zstd (several
 * frames, the way a streaming writer flushes) loads to the same model as
 * the plain file. */
static void
test_real_recompressed (void)
{
  g_autofree char *path = weft_test_require_trace (
    "param/et_replay/tests/inputs/dlrm_kineto/worker1_step_12.1694128201556.pt.trace.json");
  g_autofree char *text = NULL;
  g_autofree char *gz_path = NULL;
  g_autofree char *zst_path = NULL;
  g_autoptr (WeftRank) plain = NULL;
  gsize len = 0;

  if (path == NULL)
    return;
  g_assert_true (g_file_get_contents (path, &text, &len, NULL));
  plain = weft_rank_load_file (path, NULL, NULL, NULL);
  g_assert_nonnull (plain);

  gz_path = g_build_filename (weft_test_tmpdir (), "real.json.gz", NULL);
  {
    gzFile gz = gzopen (gz_path, "wb");
    g_assert_nonnull (gz);
    g_assert_cmpint (gzwrite (gz, text, (unsigned) (len / 3)), ==, (int) (len / 3));
    gzclose (gz);
    gz = gzopen (gz_path, "ab"); /* a second gzip member */
    g_assert_cmpint (gzwrite (gz, text + len / 3, (unsigned) (len - len / 3)), ==, (int) (len - len / 3));
    gzclose (gz);
  }
  zst_path = g_build_filename (weft_test_tmpdir (), "real.json.zst", NULL);
  {
    GByteArray *out = g_byte_array_new ();
    gsize step = 100000;
    for (gsize off = 0; off < len; off += step)
      {
        gsize n = MIN (step, len - off);
        gsize cap = ZSTD_compressBound (n);
        gsize old = out->len;
        size_t z;
        g_byte_array_set_size (out, (guint) (old + cap));
        z = ZSTD_compress (out->data + old, cap, text + off, n, 1);
        g_assert_false (ZSTD_isError (z));
        g_byte_array_set_size (out, (guint) (old + z));
      }
    g_assert_true (g_file_set_contents (zst_path, (char *) out->data, out->len, NULL));
    g_byte_array_free (out, TRUE);
  }
  for (int k = 0; k < 2; k++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (WeftRank) rank = weft_rank_load_file (k == 0 ? gz_path : zst_path, NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (rank->json_bytes, ==, len);
      g_assert_cmpint (rank->rank, ==, plain->rank);
      g_assert_cmpuint (rank->events->len, ==, plain->events->len);
      for (guint i = 0; i < rank->events->len; i++)
        {
          const WeftEvent *a = weft_rank_event (rank, i), *b = weft_rank_event (plain, i);
          g_autofree char *ta = weft_rank_event_text_dup (rank, a, NULL);
          g_autofree char *tb = weft_rank_event_text_dup (plain, b, NULL);
          g_assert_cmpint (a->ts, ==, b->ts);
          g_assert_cmpint (weft_event_dur (rank, a), ==, weft_event_dur (plain, b));
          g_assert_nonnull (ta);
          g_assert_cmpstr (ta, ==, tb);
        }
    }
}

/* A chunk boundary can fall anywhere: an event bigger than the scanner's
 * chunk, split strings and numbers. */
/* Args nested as deep as the loader accepts (200 levels here, under the
 * default limit of 256) can still be parsed lazily later. */
static void
test_deep_args_parse (void)
{
  GString *s = g_string_new ("{\"traceEvents\":[{\"ph\":\"X\",\"pid\":0,\"tid\":1,\"ts\":1,\"dur\":1,\"args\":");
  g_autoptr (WeftRank) rank = NULL;
  json_object *args, *cur;
  int depth = 0;

  for (int i = 0; i < 200; i++)
    g_string_append (s, "{\"a\":");
  g_string_append (s, "1");
  for (int i = 0; i < 200; i++)
    g_string_append_c (s, '}');
  g_string_append (s, "}]}");
  rank = load_text (s->str);
  g_assert_cmpuint (rank->events->len, ==, 1);
  args = weft_event_parse_args (rank, weft_rank_event (rank, 0));
  g_assert_nonnull (args);
  for (cur = args; json_object_is_type (cur, json_type_object); depth++)
    g_assert_true (json_object_object_get_ex (cur, "a", &cur));
  g_assert_cmpint (depth, ==, 200);
  g_assert_cmpint (json_object_get_int (cur), ==, 1);
  json_object_put (args);
  g_string_free (s, TRUE);
}

static void
test_large_event (void)
{
  GString *s = g_string_new ("{\"traceEvents\":[");
  g_autoptr (WeftRank) rank = NULL;

  for (int i = 0; i < 3; i++)
    {
      g_string_append_printf (s, "%s{\"ph\":\"X\",\"pid\":0,\"tid\":1,\"ts\":%d.25,\"dur\":1,\"args\":{\"big\":\"", i ? "," : "",
                              i);
      for (int j = 0; j < 3 * 1024 * 1024 / 16; j++)
        g_string_append (s, "0123456789\\u00e9\xc3\xa9.");
      g_string_append (s, "\",\"correlation\":7}}");
    }
  g_string_append (s, "]}");
  rank = load_text (s->str);
  g_assert_cmpuint (rank->events->len, ==, 3);
  for (guint i = 0; i < 3; i++)
    {
      g_assert_cmpint (weft_rank_event (rank, i)->ts, ==, (gint64) i * 1000 + 250);
      g_assert_cmpint (weft_event_correlation (rank, weft_rank_event (rank, i)), ==, 7);
      gsize len = 0;
      g_autofree char *text = weft_rank_event_text_dup (rank, weft_rank_event (rank, i), &len);
      g_assert_nonnull (text);
      g_assert_cmpuint (len, >, 3 * 1024 * 1024);
      g_assert_cmpuint (strlen (text), ==, len);
    }
  g_string_free (s, TRUE);
}

/* Chunk boundaries anywhere (down to one byte per read) give the same
 * model as the default chunking. */
static void
test_chunking (void)
{
  static const char *files[] = { "param/et_replay/tests/inputs/dlrm_kineto/worker0_step_12.1694128201545.pt.trace.json",
                                 "HolisticTraceAnalysis/critical_path/cuda_event_sync/event_sync_trace.json.gz" };
  static const gsize chunks[] = { 1, 3, 100, 4096 };

  for (guint f = 0; f < G_N_ELEMENTS (files); f++)
    {
      g_autofree char *path = weft_test_require_trace (files[f]);
      g_autoptr (WeftRank) ref = NULL;
      if (path == NULL)
        return;
      ref = weft_rank_load_file (path, NULL, NULL, NULL);
      g_assert_nonnull (ref);
      for (guint c = 0; c < G_N_ELEMENTS (chunks); c++)
        {
          g_autoptr (GError) error = NULL;
          g_autoptr (WeftRank) rank = NULL;
          weft_json_scan_set_chunk_size (chunks[c]);
          rank = weft_rank_load_file (path, NULL, NULL, &error);
          weft_json_scan_set_chunk_size (0);
          g_assert_no_error (error);
          g_assert_cmpuint (rank->events->len, ==, ref->events->len);
          g_assert_cmpuint (rank->lanes->len, ==, ref->lanes->len);
          g_assert_cmpuint (rank->top_keys->len, ==, ref->top_keys->len);
          for (guint i = 0; i < rank->top_keys->len; i++)
            g_assert_cmpstr (g_array_index (rank->top_keys, WeftTopKey, i).raw, ==,
                             g_array_index (ref->top_keys, WeftTopKey, i).raw);
          for (guint i = 0; i < rank->events->len; i++)
            {
              const WeftEvent *a = weft_rank_event (rank, i), *b = weft_rank_event (ref, i);
              g_assert_cmpint (a->ts, ==, b->ts);
              g_assert_cmpint (weft_event_dur (rank, a), ==, weft_event_dur (ref, b));
              g_assert_cmpint (a->ph, ==, b->ph);
              g_assert_cmpuint (a->lane, ==, b->lane);
              g_assert_cmpint (weft_event_correlation (rank, a), ==, weft_event_correlation (ref, b));
              g_assert_cmpint (weft_event_external_id (rank, a), ==, weft_event_external_id (ref, b));
              g_assert_cmpint (weft_event_flow_id (rank, a), ==, weft_event_flow_id (ref, b));
              g_assert_cmpstr (weft_rank_string (rank, a->name), ==, weft_rank_string (ref, b->name));
              {
                g_autofree char *ta = weft_rank_event_text_dup (rank, a, NULL);
                g_autofree char *tb = weft_rank_event_text_dup (ref, b, NULL);
                g_assert_nonnull (ta);
                g_assert_cmpstr (ta, ==, tb);
              }
            }
        }
    }
}

/* ---- in the background (load-async.c) ------------------------------------------ */

static void
async_done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GAsyncResult **out = user_data;

  g_assert_null (source);
  *out = g_object_ref (result);
}

/* Runs weft_trace_load_async to its end in a main loop of its own. */
static WeftLoadResult *
load_async_wait (const char *const *paths, guint n_paths, WeftLoadFlags flags, WeftLoadProgress *progress,
                 GCancellable *cancellable, GError **error)
{
  g_autoptr (GMainContext) context = g_main_context_new ();
  g_autoptr (GAsyncResult) result = NULL;
  WeftLoadResult *loaded;

  g_main_context_push_thread_default (context);
  weft_trace_load_async (paths, n_paths, flags, progress, cancellable, async_done_cb, &result);
  while (result == NULL)
    g_main_context_iteration (context, TRUE);
  loaded = weft_trace_load_finish (result, error);
  g_main_context_pop_thread_default (context);
  return loaded;
}

/* The background load gives the synchronous load's trace, in an edit
 * session whose solver solved it, and its progress reached the total. */
static void
test_async (void)
{
  g_autofree char *dir = weft_test_require_trace ("synthetic/fsdp8");
  g_autoptr (WeftTrace) ref = NULL;
  g_autoptr (WeftLoadProgress) progress = weft_load_progress_new ();
  g_autoptr (WeftLoadResult) loaded = NULL;
  g_autoptr (GError) error = NULL;
  const char *paths[1];
  WeftTrace *trace;
  guint64 done = 1, total = 1;

  if (dir == NULL)
    return;
  g_assert_cmpint (weft_load_progress_get (progress, &done, &total), ==, WEFT_LOAD_PHASE_READING);
  g_assert_cmpuint (done, ==, 0);
  g_assert_cmpuint (total, ==, 0);
  paths[0] = dir;
  ref = weft_trace_load (dir, NULL, NULL, &error);
  g_assert_no_error (error);
  loaded = load_async_wait (paths, 1, WEFT_LOAD_FLAGS_NONE, progress, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (loaded);
  g_assert_nonnull (loaded->session);
  g_assert_null (loaded->trace);
  g_assert_null (loaded->solver_error);
  g_assert_cmpint (loaded->load_us, >, 0);
  g_assert_cmpint (loaded->solve_us, >, 0);
  g_assert_nonnull (weft_edit_session_get_solver (loaded->session));
  g_assert_cmpstr (weft_edit_session_get_source_path (loaded->session), ==, dir);
  trace = weft_edit_session_get_trace (loaded->session);
  g_assert_cmpuint (trace->ranks->len, ==, ref->ranks->len);
  for (guint i = 0; i < ref->ranks->len; i++)
    {
      WeftRank *a = weft_trace_rank (ref, i), *b = weft_trace_rank (trace, i);
      g_assert_cmpint (a->rank, ==, b->rank);
      g_assert_cmpuint (a->events->len, ==, b->events->len);
    }
  g_assert_true (trace->apply_clock_offsets == trace->offsets_estimated);
  g_assert_cmpint (weft_load_progress_get (progress, &done, &total), ==, WEFT_LOAD_PHASE_SOLVING);
  g_assert_cmpuint (total, >, 0);
  g_assert_cmpuint (done, ==, total);
}

/* Several files as the ranks of one trace, each rank on its own clock. */
static void
test_async_files (void)
{
  g_autofree char *dir = weft_test_require_trace ("param/et_replay/tests/inputs/dlrm_kineto");
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (WeftLoadResult) loaded = NULL;
  g_autoptr (GError) error = NULL;
  WeftTrace *trace;

  if (dir == NULL)
    return;
  files = weft_find_trace_files (dir, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (files->len, >, 1);
  loaded = load_async_wait ((const char *const *) files->pdata, files->len, WEFT_LOAD_NO_CLOCK_ALIGNMENT, NULL,
                            NULL, &error);
  g_assert_no_error (error);
  trace = loaded->session != NULL ? weft_edit_session_get_trace (loaded->session) : loaded->trace;
  g_assert_cmpuint (trace->ranks->len, ==, files->len);
  g_assert_false (trace->apply_clock_offsets);
}

/* Cancelled before it starts, and a file that is not a trace: errors, no
 * document. */
static void
test_async_errors (void)
{
  g_autofree char *dir = weft_test_require_trace ("synthetic/fsdp8");
  g_autofree char *bad = weft_test_write_file ("async_bad.json", "{\"traceEvents\": [ {\"ph\": ", -1);
  g_autoptr (GCancellable) cancel = g_cancellable_new ();
  g_autoptr (GError) error = NULL;
  WeftLoadResult *loaded;
  const char *paths[1];

  if (dir == NULL)
    return;
  paths[0] = dir;
  g_cancellable_cancel (cancel);
  loaded = load_async_wait (paths, 1, WEFT_LOAD_FLAGS_NONE, NULL, cancel, &error);
  g_assert_null (loaded);
  g_assert_true (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
                 g_error_matches (error, WEFT_ERROR, WEFT_ERROR_CANCELLED));
  g_clear_error (&error);
  paths[0] = bad;
  loaded = load_async_wait (paths, 1, WEFT_LOAD_FLAGS_NONE, NULL, NULL, &error);
  g_assert_null (loaded);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "async_bad.json"));
}

/* The event texts of a rank kept in zstd blocks give back, from any
 * reader and in any order, exactly the bytes of the file: many blocks
 * (small events), a text larger than a block, texts of random and of
 * incompressible content; a cursor, the shared copies, and both from two
 * threads at once. */
typedef struct
{
  WeftRank   *rank;
  GPtrArray  *want;
  guint       seed;
  gint        bad;
} TextReadJob;

static gpointer
text_read_worker (gpointer data)
{
  TextReadJob *job = data;
  GRand *rnd = g_rand_new_with_seed (job->seed);
  g_autoptr (WeftTextCursor) cur = weft_text_cursor_new (job->rank);

  for (guint k = 0; k < job->want->len; k++)
    {
      guint i = (guint) g_rand_int_range (rnd, 0, (gint32) job->want->len);
      const char *w = g_ptr_array_index (job->want, i);
      const WeftEvent *ev = weft_rank_event (job->rank, i);
      gsize len = 0;
      if (k % 2 == 0)
        {
          g_autofree char *t = weft_rank_event_text_dup (job->rank, ev, &len);
          if (t == NULL || len != strlen (w) || memcmp (t, w, len) != 0)
            g_atomic_int_inc (&job->bad);
        }
      else
        {
          const char *t = weft_text_cursor_get (cur, ev, &len);
          if (t == NULL || len != strlen (w) || memcmp (t, w, len) != 0 || t[len] != '\0')
            g_atomic_int_inc (&job->bad);
        }
    }
  g_rand_free (rnd);
  return NULL;
}

static void
test_text_blocks (void)
{
  GString *s = g_string_new ("{\"traceEvents\":[");
  g_autoptr (GPtrArray) want = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftRank) rank = NULL;
  g_autoptr (WeftTextCursor) cur = NULL;
  GRand *rnd = g_rand_new_with_seed (18);
  TextReadJob jobs[2];
  GThread *threads[2];
  WeftTextStats st;
  const guint n = 6000;

  for (guint i = 0; i < n; i++)
    {
      GString *e = g_string_new (NULL);
      guint pad = i == 2500 ? 400 * 1024 : (guint) g_rand_int_range (rnd, 0, 400);
      g_string_append_printf (e, "{\"ph\":\"X\",\"name\":\"k%u\",\"pid\":0,\"tid\":%u,\"ts\":%u,\"dur\":1,"
                              "\"args\":{\"p\":\"", i % 97, i % 3, i);
      for (guint k = 0; k < pad; k++)
        /* random letters: little for zstd to find */
        g_string_append_c (e, (char) ('a' + g_rand_int_range (rnd, 0, 26)));
      g_string_append (e, "\"}}");
      g_string_append (s, i ? "," : "");
      g_string_append_len (s, e->str, (gssize) e->len);
      g_ptr_array_add (want, g_string_free (e, FALSE));
    }
  g_string_append (s, "]}");
  g_rand_free (rnd);
  rank = weft_rank_load_buffer ("blocks.json", s->str, s->len, NULL, &error);
  g_string_free (s, TRUE);
  g_assert_no_error (error);
  g_assert_cmpuint (rank->events->len, ==, n);
  weft_rank_text_stats (rank, &st);
  g_assert_cmpuint (st.n_texts, ==, n);
  g_assert_cmpuint (st.n_blocks, >, 8);

  /* in order through one cursor, then backwards through the shared copies */
  cur = weft_text_cursor_new (rank);
  for (guint i = 0; i < n; i++)
    {
      gsize len = 0;
      const char *t = weft_text_cursor_get (cur, weft_rank_event (rank, i), &len);
      g_assert_nonnull (t);
      g_assert_cmpuint (len, ==, strlen (g_ptr_array_index (want, i)));
      g_assert_cmpstr (t, ==, g_ptr_array_index (want, i));
    }
  for (guint i = n; i-- > 0;)
    {
      g_autofree char *t = weft_rank_event_text_dup (rank, weft_rank_event (rank, i), NULL);
      g_assert_cmpstr (t, ==, g_ptr_array_index (want, i));
    }
  /* a created event has none */
  {
    WeftEvent created = { 0 };
    gsize len = 7;
    g_assert_false (weft_event_has_text (rank, &created));
    g_assert_null (weft_rank_event_text_dup (rank, &created, &len));
    g_assert_cmpuint (len, ==, 0);
    g_assert_null (weft_text_cursor_get (cur, &created, NULL));
  }
  /* two threads at once, random order */
  for (guint t = 0; t < 2; t++)
    {
      jobs[t] = (TextReadJob) { rank, want, 100 + t, 0 };
      threads[t] = g_thread_new ("text-read", text_read_worker, &jobs[t]);
    }
  for (guint t = 0; t < 2; t++)
    {
      g_thread_join (threads[t]);
      g_assert_cmpint (jobs[t].bad, ==, 0);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/load/time-text", test_time_text);
  g_test_add_func ("/load/text-blocks", test_text_blocks);
  g_test_add_func ("/load/base-after-events", test_base_after_events);
  g_test_add_func ("/load/event-fields", test_event_fields);
  g_test_add_func ("/load/rank-from-file-name", test_rank_from_file_name);
  g_test_add_func ("/load/find-folder-layouts", test_find_folder_layouts);
  g_test_add_func ("/load/compressed-by-magic", test_compressed_by_magic);
  g_test_add_func ("/load/large-event", test_large_event);
  g_test_add_func ("/load/deep-args-parse", test_deep_args_parse);
  g_test_add_func ("/load/chunking", test_chunking);
  g_test_add_func ("/load/real-recompressed", test_real_recompressed);
  g_test_add_func ("/load/dlrm-eight-ranks", test_dlrm_eight_ranks);
  g_test_add_func ("/load/fsdp8-folder", test_fsdp8_folder);
  g_test_add_func ("/load/parallel-same-as-serial", test_parallel_same_as_serial);
  g_test_add_func ("/load/progress", test_progress);
  g_test_add_func ("/load/cancel", test_cancel);
  g_test_add_func ("/load/cancel-midway", test_cancel_midway);
  g_test_add_func ("/load/async", test_async);
  g_test_add_func ("/load/async-files", test_async_files);
  g_test_add_func ("/load/async-errors", test_async_errors);
  g_test_add_func ("/load/all-shared-traces", test_all_shared_traces);
  return g_test_run ();
}
