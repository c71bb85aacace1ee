/* test-save.c: saving (.json, .json.gz, .json.zst) with the real loader on
 * real traces and on the project's generated sample.
 *
 * - load -> save -> load gives the same model in every format (every event's
 *   ph, name, cat, lane pid/tid, ts, dur ns-exact, ids, text; top keys);
 * - the traceEvents entries of an untouched file saved as .json are
 *   byte-identical to the input's, both extracted here by an independent
 *   scanner (not the loader);
 * - a failed save (file size limit hit mid-write) leaves the old file intact
 *   and no temp file behind;
 * - edited and created events are re-serialised with ts/dur text in the
 *   rank's Kineto style; overlapping edited slices move to a companion tid;
 * - the "weft" top-level key is written and replaced. */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zlib.h>

#include "testutil.h"
#include "weft/weft.h"
#include "weft/weft-solver.h"

/* ---- independent helpers -------------------------------------------------- */

typedef struct
{
  const char *start;
  gsize       len;
} Span;

/* The byte ranges of the elements of the top-level "traceEvents" array,
 * found by a small scanner that tracks strings and nesting depth only. */
static GArray *
extract_entries (const char *data, gsize len)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (Span));
  int depth = 0;
  gboolean in_events = FALSE, expect_key = FALSE;
  const char *elem = NULL;
  const char *key_start = NULL;

  for (gsize i = 0; i < len; i++)
    {
      char c = data[i];
      if (c == '"')
        {
          gsize j = i + 1;
          while (j < len && data[j] != '"')
            j += data[j] == '\\' ? 2 : 1;
          if (depth == 1 && expect_key)
            key_start = data + i;
          if (in_events && depth == 2 && elem == NULL)
            elem = data + i;
          i = j;
          continue;
        }
      if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
        continue;
      if (depth == 1 && c == ':')
        {
          expect_key = FALSE;
          if (key_start != NULL && strncmp (key_start, "\"traceEvents\"", 13) == 0)
            in_events = TRUE;
          key_start = NULL;
          continue;
        }
      if (depth == 1 && (c == ',' || c == '{'))
        expect_key = TRUE;
      if (c == '{' || c == '[')
        {
          if (in_events && depth == 2 && elem == NULL)
            elem = data + i;
          depth++;
          if (depth == 1)
            expect_key = TRUE;
          continue;
        }
      if (c == '}' || c == ']')
        {
          depth--;
          if (in_events && depth == 2 && elem != NULL)
            {
              Span s = { elem, (gsize) (data + i + 1 - elem) };
              g_array_append_val (out, s);
              elem = NULL;
            }
          if (in_events && depth == 1)
            in_events = FALSE;
          if (depth == 1)
            expect_key = FALSE;
          continue;
        }
      if (in_events && depth == 2 && c == ',')
        continue;
      if (in_events && depth == 2 && elem == NULL)
        elem = data + i; /* a bare number/literal element */
    }
  return out;
}

/* Reference Kineto time text: "<us>.<3 digits>" by integer printf. */
static char *
ref_time_text (gint64 ns, gboolean integer_when_exact)
{
  guint64 mag = ns < 0 ? (guint64) 0 - (guint64) ns : (guint64) ns;
  if (integer_when_exact && mag % 1000 == 0)
    return g_strdup_printf ("%s%" G_GUINT64_FORMAT, ns < 0 ? "-" : "", mag / 1000);
  return g_strdup_printf ("%s%" G_GUINT64_FORMAT ".%03u", ns < 0 ? "-" : "", mag / 1000, (guint) (mag % 1000));
}

/* The original text of event i (g_free'd by the caller). */
static char *
text_of (const WeftRank *rank, guint32 i)
{
  return weft_rank_event_text_dup (rank, &g_array_index (rank->events, WeftEvent, i), NULL);
}

/* Both events keep an original text, the same bytes. */
static void
assert_same_text (const WeftRank *a, const WeftEvent *ea, const WeftRank *b, const WeftEvent *eb)
{
  gsize la = 0, lb = 0;
  g_autofree char *ta = weft_rank_event_text_dup (a, ea, &la);
  g_autofree char *tb = weft_rank_event_text_dup (b, eb, &lb);
  g_assert_nonnull (ta);
  g_assert_nonnull (tb);
  g_assert_cmpuint (la, ==, lb);
  g_assert_true (memcmp (ta, tb, la) == 0);
}

static const char *
lane_pid (WeftRank *rank, guint32 lane)
{
  return lane == WEFT_NONE ? "(none)" : weft_rank_string (rank, weft_rank_lane (rank, lane)->pid_text);
}

static const char *
lane_tid (WeftRank *rank, guint32 lane)
{
  return lane == WEFT_NONE ? "(none)" : weft_rank_string (rank, weft_rank_lane (rank, lane)->tid_text);
}

/* Same model: rank fields, top keys, every event (skip: event index of a
 * changed event in a, or -1). texts: also compare every event's raw text. */
static void
assert_same_rank (WeftRank *a, WeftRank *b, gboolean texts)
{
  g_assert_cmpint (a->rank, ==, b->rank);
  g_assert_cmpint (a->world_size, ==, b->world_size);
  g_assert_cmpint (a->has_base, ==, b->has_base);
  g_assert_cmpint (a->base_ns, ==, b->base_ns);
  g_assert_cmpuint (a->top_keys->len, ==, b->top_keys->len);
  g_assert_cmpuint (a->trace_events_pos, ==, b->trace_events_pos);
  for (guint i = 0; i < a->top_keys->len; i++)
    {
      const WeftTopKey *ka = &g_array_index (a->top_keys, WeftTopKey, i);
      const WeftTopKey *kb = &g_array_index (b->top_keys, WeftTopKey, i);
      g_assert_cmpstr (weft_rank_string (a, ka->key), ==, weft_rank_string (b, kb->key));
      g_assert_cmpuint (ka->raw_len, ==, kb->raw_len);
      g_assert_true (memcmp (ka->raw, kb->raw, ka->raw_len) == 0);
    }
  g_assert_cmpuint (a->events->len, ==, b->events->len);
  g_assert_cmpuint (a->lanes->len, ==, b->lanes->len);
  for (guint i = 0; i < a->events->len; i++)
    {
      const WeftEvent *ea = weft_rank_event (a, i);
      const WeftEvent *eb = weft_rank_event (b, i);
      if (ea->ph != eb->ph || ea->ts != eb->ts || weft_event_dur (a, ea) != weft_event_dur (b, eb))
        g_error ("event %u differs: ph %d/%d ts %" G_GINT64_FORMAT "/%" G_GINT64_FORMAT " dur %" G_GINT64_FORMAT
                 "/%" G_GINT64_FORMAT,
                 i, ea->ph, eb->ph, ea->ts, eb->ts, weft_event_dur (a, ea), weft_event_dur (b, eb));
      g_assert_cmpstr (weft_rank_string (a, ea->name), ==, weft_rank_string (b, eb->name));
      g_assert_cmpstr (weft_rank_string (a, ea->cat), ==, weft_rank_string (b, eb->cat));
      g_assert_cmpstr (lane_pid (a, ea->lane), ==, lane_pid (b, eb->lane));
      g_assert_cmpstr (lane_tid (a, ea->lane), ==, lane_tid (b, eb->lane));
      g_assert_cmpint (ea->flags & WEFT_EVENT_HAS_DUR, ==, eb->flags & WEFT_EVENT_HAS_DUR);
      g_assert_cmpint (weft_event_flow_id (a, ea), ==, weft_event_flow_id (b, eb));
      g_assert_cmpint (weft_event_correlation (a, ea), ==, weft_event_correlation (b, eb));
      g_assert_cmpint (weft_event_external_id (a, ea), ==, weft_event_external_id (b, eb));
      if (texts)
        {
          assert_same_text (a, ea, b, eb);
        }
    }
}

static WeftRank *
load_rank (const char *path)
{
  g_autoptr (GError) error = NULL;
  WeftRank *rank = weft_rank_load_file (path, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (rank);
  return rank;
}

static char *sample_dir;

/* The project's own 2-rank sample, written once by the real weft-cli. */
static const char *
sample_rank_path (int r)
{
  static char *paths[2];
  if (sample_dir == NULL)
    {
      g_autofree char *cli = weft_test_build_path ("weft-cli");
      g_autoptr (GError) error = NULL;
      int status = -1;
      char *argv[] = { cli, (char *) "sample", NULL, NULL };
      sample_dir = g_build_filename (weft_test_tmpdir (), "sample", NULL);
      argv[2] = sample_dir;
      g_assert_true (g_spawn_sync (NULL, argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, &error));
      g_assert_no_error (error);
      g_assert_true (g_spawn_check_wait_status (status, NULL));
    }
  if (paths[r] == NULL)
    {
      g_autofree char *name = g_strdup_printf ("rank%d_trace.json", r);
      paths[r] = g_build_filename (sample_dir, "profiling", "traces", "iteration_1", name, NULL);
    }
  return paths[r];
}

/* ---- tests ------------------------------------------------------------------ */

static void
test_format_time (void)
{
  const gint64 values[] = { 0, 1, 999, 1000, 1001, 12345678, -1, -1500, -1000, G_GINT64_CONSTANT (1234567890123456789),
                            G_MAXINT64, G_MININT64, G_MININT64 + 1 };
  char buf[32];

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      g_autofree char *rel = ref_time_text (values[i], FALSE);
      g_autofree char *abs = ref_time_text (values[i], TRUE);
      gsize n = weft_format_time (values[i], WEFT_TS_RELATIVE, buf);
      g_assert_cmpstr (buf, ==, rel);
      g_assert_cmpuint (n, ==, strlen (rel));
      weft_format_time (values[i], WEFT_TS_ABSOLUTE_FRAC, buf);
      g_assert_cmpstr (buf, ==, rel);
      n = weft_format_time (values[i], WEFT_TS_ABSOLUTE_US, buf);
      g_assert_cmpstr (buf, ==, abs);
      g_assert_cmpuint (n, ==, strlen (abs));
    }
}

static void
test_format_from_path (void)
{
  WeftFileFormat f = WEFT_FORMAT_JSON_ZST;
  g_assert_true (weft_file_format_from_path ("a/rank0_trace.json", &f));
  g_assert_cmpint (f, ==, WEFT_FORMAT_JSON);
  g_assert_true (weft_file_format_from_path ("x.JSON.GZ", &f));
  g_assert_cmpint (f, ==, WEFT_FORMAT_JSON_GZ);
  g_assert_true (weft_file_format_from_path ("x.json.zst", &f));
  g_assert_cmpint (f, ==, WEFT_FORMAT_JSON_ZST);
  g_assert_false (weft_file_format_from_path ("x.gz", &f));
  g_assert_false (weft_file_format_from_path ("folder", &f));
}

static void
round_trip_file (const char *path)
{
  static const char *exts[] = { ".json", ".json.gz", ".json.zst" };
  g_autoptr (WeftRank) a = load_rank (path);

  for (guint i = 0; i < G_N_ELEMENTS (exts); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *base = g_path_get_basename (path);
      g_autofree char *name = g_strdup_printf ("rt-%s%s", base, exts[i]);
      g_autofree char *out = g_build_filename (weft_test_tmpdir (), name, NULL);
      g_autoptr (WeftRank) b = NULL;
      WeftFileFormat f;

      g_assert_true (weft_rank_save (a, out, NULL, &error));
      g_assert_no_error (error);
      b = load_rank (out);
      assert_same_rank (a, b, TRUE);
      g_assert_cmpint (a->ts_style, ==, b->ts_style);
      /* The file really is in that format (magic bytes). */
      g_assert_true (weft_file_format_from_path (out, &f));
      {
        gsize len = 0;
        g_autofree char *raw = NULL;
        g_assert_true (g_file_get_contents (out, &raw, &len, NULL));
        g_assert_cmpuint (len, >, 4);
        if (f == WEFT_FORMAT_JSON_GZ)
          g_assert_true ((guchar) raw[0] == 0x1f && (guchar) raw[1] == 0x8b);
        else if (f == WEFT_FORMAT_JSON_ZST)
          g_assert_true (memcmp (raw, "\x28\xb5\x2f\xfd", 4) == 0);
        else
          g_assert_cmpint (raw[0], ==, '{');
      }
      g_unlink (out);
    }
}

static void
test_round_trip_real (gconstpointer data)
{
  g_autofree char *path = weft_test_require_trace (data);
  if (path == NULL)
    return;
  round_trip_file (path);
}

static void
test_round_trip_sample (void)
{
  round_trip_file (sample_rank_path (0));
  round_trip_file (sample_rank_path (1));
}

/* The whole sample folder through weft_trace_save / weft_trace_load. */
static void
test_round_trip_trace_dir (void)
{
  static const char *exts[] = { ".json", ".json.gz", ".json.zst" };
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftTrace) a = NULL;

  sample_rank_path (0);
  a = weft_trace_load (sample_dir, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (a->ranks->len, ==, 2);
  for (guint i = 0; i < G_N_ELEMENTS (exts); i++)
    {
      g_autofree char *name = g_strdup_printf ("dir%u", i);
      g_autofree char *dir = g_build_filename (weft_test_tmpdir (), name, NULL);
      g_autofree char *f0 = NULL;
      g_autoptr (WeftTrace) b = NULL;

      g_assert_cmpstr (weft_file_format_extension ((WeftFileFormat) i), ==, exts[i]);
      g_assert_true (weft_trace_save_dir (a, dir, (WeftFileFormat) i, NULL, &error));
      g_assert_no_error (error);
      f0 = g_strdup_printf ("%s/rank0_trace%s", dir, exts[i]);
      g_assert_true (g_file_test (f0, G_FILE_TEST_IS_REGULAR));
      b = weft_trace_load (dir, NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (b->ranks->len, ==, 2);
      for (guint r = 0; r < 2; r++)
        assert_same_rank (weft_trace_rank (a, r), weft_trace_rank (b, r), TRUE);
      g_assert_cmpuint (a->instances->len, ==, b->instances->len);
    }
  /* A multi-rank trace cannot go into one file. */
  {
    g_autofree char *out = g_build_filename (weft_test_tmpdir (), "one.json", NULL);
    g_assert_false (weft_trace_save (a, out, NULL, &error));
    g_assert_error (error, WEFT_ERROR, WEFT_ERROR_INVALID);
    g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  }
}

static void
assert_entries_identical (const char *in_path)
{
  g_autoptr (WeftRank) rank = load_rank (in_path);
  g_autofree char *out = g_build_filename (weft_test_tmpdir (), "identity.json", NULL);
  g_autoptr (GError) error = NULL;
  g_autofree char *in_data = NULL, *out_data = NULL;
  gsize in_len = 0, out_len = 0;
  g_autoptr (GArray) ein = NULL;
  g_autoptr (GArray) eout = NULL;

  g_assert_true (weft_rank_save (rank, out, NULL, &error));
  g_assert_no_error (error);
  in_data = weft_test_read_gz (in_path, &in_len);
  out_data = weft_test_read_gz (out, &out_len);
  ein = extract_entries (in_data, in_len);
  eout = extract_entries (out_data, out_len);
  g_assert_cmpuint (ein->len, >, 0);
  g_assert_cmpuint (ein->len, ==, eout->len);
  g_assert_cmpuint (ein->len, ==, rank->events->len);
  for (guint i = 0; i < ein->len; i++)
    {
      const Span *a = &g_array_index (ein, Span, i);
      const Span *b = &g_array_index (eout, Span, i);
      if (a->len != b->len || memcmp (a->start, b->start, a->len) != 0)
        g_error ("entry %u differs:\n%.*s\n---\n%.*s", i, (int) MIN (a->len, 400), a->start, (int) MIN (b->len, 400),
                 b->start);
    }
  g_unlink (out);
}

static void
test_byte_identity_real (gconstpointer data)
{
  g_autofree char *path = weft_test_require_trace (data);
  if (path == NULL)
    return;
  assert_entries_identical (path);
}

static void
test_byte_identity_sample (void)
{
  assert_entries_identical (sample_rank_path (1));
}

/* A save that fails mid-write (the file size limit is hit) must leave the
 * old file as it was and no temporary file behind. Run in a subprocess so
 * the limit does not touch the test program. */
static void
test_atomic_failure (void)
{
  if (g_test_subprocess ())
    {
      const char *target = g_getenv ("WEFT_TEST_SAVE_TARGET");
      const char *input = g_getenv ("WEFT_TEST_SAVE_INPUT");
      g_autoptr (WeftRank) rank = load_rank (input);
      g_autoptr (GError) error = NULL;
      struct rlimit lim = { 16384, 16384 };

      signal (SIGXFSZ, SIG_IGN);
      g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &lim), ==, 0);
      g_assert_false (weft_rank_save (rank, target, NULL, &error));
      g_assert_error (error, WEFT_ERROR, WEFT_ERROR_IO);
      g_print ("%s\n", error->message);
      return;
    }
  else
    {
      g_autofree char *dir = g_build_filename (weft_test_tmpdir (), "atomic", NULL);
      g_autofree char *target = g_build_filename (dir, "rank0_trace.json", NULL);
      const char *old = "{\"traceEvents\": []}\n";
      g_autofree char *after = NULL;
      g_autofree char *pattern = NULL;
      GDir *d;
      const char *name;
      guint n_files = 0;

      g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
      g_assert_true (g_file_set_contents (target, old, -1, NULL));
      g_setenv ("WEFT_TEST_SAVE_TARGET", target, TRUE);
      g_setenv ("WEFT_TEST_SAVE_INPUT", sample_rank_path (0), TRUE);
      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
      g_test_trap_assert_passed ();
      pattern = g_strdup_printf ("*%s*", target);
      g_test_trap_assert_stdout (pattern);

      g_assert_true (g_file_get_contents (target, &after, NULL, NULL));
      g_assert_cmpstr (after, ==, old);
      d = g_dir_open (dir, 0, NULL);
      g_assert_nonnull (d);
      while ((name = g_dir_read_name (d)) != NULL)
        n_files++;
      g_dir_close (d);
      g_assert_cmpuint (n_files, ==, 1); /* no temp file left */
    }
}

static void
test_save_errors (void)
{
  g_autoptr (WeftRank) rank = load_rank (sample_rank_path (0));
  g_autoptr (GError) error = NULL;
  g_autofree char *missing = g_build_filename (weft_test_tmpdir (), "no", "such", "dir", "x.json", NULL);
  g_autofree char *bad_ext = g_build_filename (weft_test_tmpdir (), "x.txt", NULL);
  g_autofree char *ro_dir = g_build_filename (weft_test_tmpdir (), "readonly", NULL);
  g_autofree char *ro_file = g_build_filename (ro_dir, "x.json", NULL);

  g_assert_false (weft_rank_save (rank, missing, NULL, &error));
  g_assert_error (error, WEFT_ERROR, WEFT_ERROR_IO);
  g_assert_nonnull (strstr (error->message, missing));
  g_clear_error (&error);

  g_assert_false (weft_rank_save (rank, bad_ext, NULL, &error));
  g_assert_error (error, WEFT_ERROR, WEFT_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_false (g_file_test (bad_ext, G_FILE_TEST_EXISTS));

  /* A read-only folder (not meaningful as root, who may write anyway). */
  if (geteuid () != 0)
    {
      g_assert_cmpint (g_mkdir_with_parents (ro_dir, 0755), ==, 0);
      g_assert_true (g_file_set_contents (ro_file, "old", -1, NULL));
      g_assert_cmpint (g_chmod (ro_dir, 0555), ==, 0);
      g_assert_false (weft_rank_save (rank, ro_file, NULL, &error));
      g_assert_error (error, WEFT_ERROR, WEFT_ERROR_IO);
      g_assert_nonnull (strstr (error->message, ro_file));
      g_chmod (ro_dir, 0755);
      {
        g_autofree char *text = NULL;
        g_assert_true (g_file_get_contents (ro_file, &text, NULL, NULL));
        g_assert_cmpstr (text, ==, "old");
      }
    }
}

/* Saving onto a symbolic link writes the file it points to; the link stays. */
static void
test_save_symlink (void)
{
  g_autoptr (WeftRank) rank = load_rank (sample_rank_path (0));
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_build_filename (weft_test_tmpdir (), "link", NULL);
  g_autofree char *real_dir = g_build_filename (dir, "real", NULL);
  g_autofree char *real = g_build_filename (real_dir, "t.json", NULL);
  g_autofree char *link = g_build_filename (dir, "t.json", NULL);
  g_autoptr (WeftRank) back = NULL;

  g_assert_cmpint (g_mkdir_with_parents (real_dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (real, "old", -1, NULL));
  g_assert_cmpint (symlink ("real/t.json", link), ==, 0);
  g_assert_true (weft_rank_save (rank, link, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (link, G_FILE_TEST_IS_SYMLINK));
  back = load_rank (real);
  assert_same_rank (rank, back, TRUE);
}

/* The index of the n-th GPU kernel on the lane whose tid text is tid. */
static guint32
find_kernel (WeftRank *rank, const char *tid, guint nth)
{
  for (guint i = 0; i < rank->events->len; i++)
    {
      const WeftEvent *ev = weft_rank_event (rank, i);
      if (ev->ph == WEFT_PH_X && ev->lane != WEFT_NONE && strcmp (weft_rank_string (rank, ev->cat), "kernel") == 0 &&
          strcmp (lane_tid (rank, ev->lane), tid) == 0 && nth-- == 0)
        return i;
    }
  g_assert_not_reached ();
  return WEFT_NONE;
}

static char *
save_and_read (WeftRank *rank, const char *name, const WeftSaveOptions *opts)
{
  g_autofree char *out = g_build_filename (weft_test_tmpdir (), name, NULL);
  g_autoptr (GError) error = NULL;
  g_assert_true (weft_rank_save (rank, out, opts, &error));
  g_assert_no_error (error);
  return g_steal_pointer (&out);
}

/* Finds in b an event with a's name at ts on the lane (pid, tid). */
static const WeftEvent *
find_event (WeftRank *b, const char *name, gint64 ts, const char *pid, const char *tid)
{
  for (guint i = 0; i < b->events->len; i++)
    {
      const WeftEvent *ev = weft_rank_event (b, i);
      if (ev->ts == ts && strcmp (weft_rank_string (b, ev->name), name) == 0 &&
          strcmp (lane_pid (b, ev->lane), pid) == 0 && strcmp (lane_tid (b, ev->lane), tid) == 0)
        return ev;
    }
  return NULL;
}

static void
test_edited_event (void)
{
  g_autoptr (WeftRank) a = load_rank (sample_rank_path (0));
  g_autoptr (WeftRank) b = NULL;
  g_autofree char *out = NULL;
  g_autofree char *ts_text = NULL, *dur_text = NULL, *needle_ts = NULL, *needle_dur = NULL, *got_text = NULL;
  g_autofree char *pid = NULL;
  guint32 k = find_kernel (a, "7", 5);
  WeftEvent *ev = weft_rank_event (a, k);
  gint64 new_ts, new_dur;
  const WeftEvent *got;

  g_assert_cmpint (a->ts_style, ==, WEFT_TS_RELATIVE);
  g_assert_true (a->has_base);
  /* Shrink inside its own span (no overlap): start 1.234 us later, end
   * 0.5 us earlier. The ns digits must survive the text round trip. */
  new_ts = ev->ts + 1234;
  new_dur = weft_event_dur (a, ev) - 1234 - 500;
  ev->ts = new_ts;
  weft_event_set_dur (a, ev, new_dur);
  ev->flags |= WEFT_EVENT_EDITED;
  pid = g_strdup (lane_pid (a, ev->lane));

  out = save_and_read (a, "edited.json", NULL);
  b = load_rank (out);
  g_assert_cmpuint (b->events->len, ==, a->events->len);
  got = find_event (b, weft_rank_string (a, ev->name), new_ts, pid, "7");
  g_assert_nonnull (got);
  g_assert_cmpint (weft_event_dur (b, got), ==, new_dur);
  g_assert_cmpint (weft_event_correlation (b, got), ==, weft_event_correlation (a, ev));
  g_assert_cmpint (weft_event_external_id (b, got), ==, weft_event_external_id (a, ev));

  /* The text is Kineto's relative "<us>.<3 digits>". */
  ts_text = ref_time_text (new_ts - a->base_ns, FALSE);
  dur_text = ref_time_text (new_dur, FALSE);
  needle_ts = g_strdup_printf ("\"ts\": %s", ts_text);
  needle_dur = g_strdup_printf ("\"dur\": %s", dur_text);
  got_text = weft_rank_event_text_dup (b, got, NULL);
  g_assert_nonnull (got_text);
  g_assert_nonnull (strstr (got_text, needle_ts));
  g_assert_nonnull (strstr (got_text, needle_dur));

  /* Every other event is written as read, except the flow arrow's end
   * point, which follows the kernel's new start. */
  for (guint i = 0; i < a->events->len; i++)
    {
      const WeftEvent *ea = weft_rank_event (a, i);
      const WeftEvent *eb = weft_rank_event (b, i);
      if (i == k)
        continue;
      if (ea->ph == WEFT_PH_F && weft_event_flow_id (a, ea) == weft_event_correlation (a, ev))
        {
          g_assert_cmpint (eb->ts, ==, new_ts);
          continue;
        }
      assert_same_text (a, ea, b, eb);
    }
}

/* No partial overlap among the X slices of any lane (a plain quadratic
 * scan per lane); returns the number of X slices on the lane with tid text
 * count_tid. */
static guint
assert_no_partial_overlap (WeftRank *b, const char *count_tid)
{
  guint n = 0;
  for (guint l = 0; l < b->lanes->len; l++)
    {
      GArray *xs = g_array_new (FALSE, FALSE, sizeof (guint32));
      for (guint i = 0; i < b->events->len; i++)
        if (weft_rank_event (b, i)->ph == WEFT_PH_X && weft_rank_event (b, i)->lane == l)
          g_array_append_val (xs, i);
      if (count_tid != NULL && strcmp (lane_tid (b, l), count_tid) == 0)
        n = xs->len;
      for (guint i = 0; i < xs->len; i++)
        for (guint j = i + 1; j < xs->len; j++)
          {
            const WeftEvent *p = weft_rank_event (b, g_array_index (xs, guint32, i));
            const WeftEvent *q = weft_rank_event (b, g_array_index (xs, guint32, j));
            gint64 pe = weft_event_end (b, p), qe = weft_event_end (b, q);
            gboolean overlap = p->ts < qe && q->ts < pe;
            gboolean nested = (p->ts <= q->ts && qe <= pe) || (q->ts <= p->ts && pe <= qe);
            if (overlap && !nested)
              g_error ("lane %s/%s: slices %u and %u overlap", lane_pid (b, l), lane_tid (b, l),
                       g_array_index (xs, guint32, i), g_array_index (xs, guint32, j));
          }
      g_array_free (xs, TRUE);
    }
  return n;
}

/* Edited slices that would overlap another slice on their lane move to a
 * companion tid (tid + 100000); untouched ones never move. */
static void
test_overlap_companion (void)
{
  g_autoptr (WeftRank) a = load_rank (sample_rank_path (1));
  g_autoptr (WeftRank) b = NULL;
  g_autofree char *out = NULL;
  g_autofree char *pid = NULL;
  guint32 k = find_kernel (a, "7", 10);
  guint32 k2 = find_kernel (a, "7", 11);
  WeftEvent *ev = weft_rank_event (a, k);
  const WeftEvent *next = weft_rank_event (a, k2);
  gint64 new_ts;
  const WeftEvent *got;
  guint n_x_7 = 0;

  /* Push it half-way into its successor: a partial overlap. */
  g_assert_cmpint (next->ts, >=, weft_event_end (a, ev));
  new_ts = next->ts + weft_event_dur (a, next) / 2 - weft_event_dur (a, ev) / 2 + 1;
  if (new_ts + weft_event_dur (a, ev) <= weft_event_end (a, next))
    new_ts = weft_event_end (a, next) - weft_event_dur (a, ev) / 2; /* make sure it sticks out */
  ev->ts = new_ts;
  ev->flags |= WEFT_EVENT_EDITED;
  pid = g_strdup (lane_pid (a, ev->lane));

  out = save_and_read (a, "overlap.json.gz", NULL);
  b = load_rank (out);
  g_assert_null (find_event (b, weft_rank_string (a, ev->name), new_ts, pid, "7"));
  got = find_event (b, weft_rank_string (a, ev->name), new_ts, pid, "100007");
  g_assert_nonnull (got);
  g_assert_cmpint (weft_event_dur (b, got), ==, weft_event_dur (a, ev));
  g_assert_nonnull (find_event (b, weft_rank_string (a, next->name), next->ts, pid, "7"));

  n_x_7 = assert_no_partial_overlap (b, "7");
  g_assert_cmpuint (n_x_7, >, 10);
}

static void
test_created_and_deleted (void)
{
  g_autoptr (WeftRank) a = load_rank (sample_rank_path (0));
  g_autoptr (WeftRank) b = NULL;
  g_autofree char *out = NULL;
  g_autofree char *pid = NULL;
  guint32 src = find_kernel (a, "20", 0);
  guint32 del = find_kernel (a, "7", 3);
  WeftEvent created = *weft_rank_event (a, src);
  const WeftEvent *got;
  gint64 span_end = weft_rank_time_span (a).end;

  /* A new collective kernel after everything else, with no text. */
  created.ts = span_end + 10001;
  weft_event_set_dur (a, &created, 123456);
  created.flags = WEFT_EVENT_CREATED | WEFT_EVENT_HAS_DUR | WEFT_EVENT_GPU_OP;
  g_array_append_val (a->events, created);
  weft_rank_event (a, del)->flags |= WEFT_EVENT_DELETED;
  pid = g_strdup (lane_pid (a, created.lane));

  out = save_and_read (a, "created.json.zst", NULL);
  b = load_rank (out);
  {
    /* the deleted kernel and the points of its flows (a deleted op was
     * never launched: its launch's arrow goes too) */
    guint n_points = 0;
    for (guint i = 0; i < a->flows->len; i++)
      {
        const WeftFlow *f = &g_array_index (a->flows, WeftFlow, i);
        if (f->from == del || f->to == del)
          n_points += 2;
      }
    g_assert_cmpuint (n_points, >, 0);
    g_assert_cmpuint (b->events->len, ==, a->events->len - 1 - n_points);
  }
  got = find_event (b, weft_rank_string (a, created.name), created.ts, pid, "20");
  g_assert_nonnull (got);
  g_assert_cmpint (weft_event_dur (b, got), ==, 123456);
  g_assert_cmpstr (weft_rank_string (b, got->cat), ==, "kernel");
  g_assert_cmpint (weft_event_correlation (b, got), ==, weft_event_correlation (a, &created));
  g_assert_cmpint (weft_event_external_id (b, got), ==, weft_event_external_id (a, &created));
  g_assert_null (find_event (b, weft_rank_string (a, weft_rank_event (a, del)->name), weft_rank_event (a, del)->ts,
                             pid, "7"));
}

/* Real edits through the real solver: every GEMM 1.5x slower (re-times most
 * of the step: many EDITED events on every lane) and a new all-reduce
 * inserted on both ranks. Saved as a folder and loaded back, the model has
 * the solved times ns-exact, the new collective (type, bytes, group) on
 * both ranks, matched into one instance, and no overlapping slices. */
static void
test_solver_edits (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftTrace) a = NULL;
  g_autoptr (WeftTrace) b = NULL;
  g_autoptr (WeftSolver) solver = NULL;
  g_autofree char *dir = g_build_filename (weft_test_tmpdir (), "solver-edits", NULL);
  WeftSolverPlace places[2];
  guint32 created[2];
  WeftSolverCollSpec spec = { WEFT_COLL_ALL_REDUCE, NULL, 50331648, "BFloat16", "weft_dp", "mesh_dp", 400000 };
  json_object *meta = json_tokener_parse ("{\"edits\": [\"scale gemm 1.5\", \"insert all_reduce\"]}");
  WeftSaveOptions opts = { meta };
  guint n_edited = 0, n_found = 0;
  gint64 end = 0;

  sample_rank_path (0);
  a = weft_trace_load (sample_dir, NULL, NULL, &error);
  g_assert_no_error (error);
  solver = weft_solver_new (a, &error);
  g_assert_no_error (error);
  weft_solver_scale_class (solver, WEFT_KCLASS_GEMM, 1.5);
  end = weft_solver_span (solver).end;
  for (guint r = 0; r < 2; r++)
    {
      WeftRank *rank = weft_trace_rank (a, r);
      guint32 k = find_kernel (rank, "20", 0);
      places[r].rank_index = r;
      places[r].lane = weft_rank_event (rank, k)->lane;
      places[r].at_time = end + 50000;
    }
  g_assert_cmpuint (weft_solver_insert_collective (solver, &spec, places, 2, created, &error), !=, WEFT_NONE);
  g_assert_no_error (error);
  weft_solver_apply_to_model (solver);

  g_assert_true (weft_trace_save_dir (a, dir, WEFT_FORMAT_JSON_GZ, &opts, &error));
  g_assert_no_error (error);
  b = weft_trace_load (dir, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (b->ranks->len, ==, 2);

  for (guint r = 0; r < 2; r++)
    {
      WeftRank *ra = weft_trace_rank (a, r), *rb = weft_trace_rank (b, r);
      guint j = 0;
      const WeftEvent *got;
      const WeftCollective *c = NULL;

      /* Same events in the same order, with the solved times. */
      for (guint i = 0; i < ra->events->len; i++)
        {
          const WeftEvent *ea = weft_rank_event (ra, i);
          const WeftEvent *eb;
          if (ea->flags & WEFT_EVENT_DELETED)
            continue;
          g_assert_cmpuint (j, <, rb->events->len);
          eb = weft_rank_event (rb, j++);
          if (ea->flags & WEFT_EVENT_EDITED)
            n_edited++;
          g_assert_cmpstr (weft_rank_string (ra, ea->name), ==, weft_rank_string (rb, eb->name));
          if (ea->ph == WEFT_PH_X || ea->ph == WEFT_PH_I)
            {
              g_assert_cmpint (ea->ts, ==, eb->ts);
              g_assert_cmpint (weft_event_dur (ra, ea), ==, weft_event_dur (rb, eb));
            }
          g_assert_cmpstr (lane_pid (ra, ea->lane), ==, lane_pid (rb, eb->lane));
        }
      /* then the names of the lanes the edits added (the thread of the
       * created ops' launches) */
      for (; j < rb->events->len; j++)
        {
          g_assert_cmpint (weft_rank_event (rb, j)->ph, ==, WEFT_PH_M);
          g_assert_cmpstr (weft_rank_string (rb, weft_rank_event (rb, j)->name), ==, "thread_name");
        }

      got = find_event (rb, weft_rank_string (ra, weft_rank_event (ra, created[r])->name),
                        weft_rank_event (ra, created[r])->ts, lane_pid (ra, places[r].lane), "20");
      g_assert_nonnull (got);
      /* created ops are saved with a launch of their own: a fresh
       * correlation shared with a cudaLaunchKernel on the CPU */
      g_assert_cmpint (weft_event_correlation (rb, got), >=, 0);
      g_assert_cmpuint (weft_event_link (got), !=, WEFT_NONE);
      g_assert_cmpint (weft_event_correlation (rb, weft_rank_event (rb, weft_event_link (got))), ==, weft_event_correlation (rb, got));
      g_assert_cmpstr (weft_rank_string (rb, weft_rank_event (rb, weft_event_link (got))->name), ==, "cudaLaunchKernel");
      g_assert_cmpuint (weft_event_coll (rb, got), !=, WEFT_NONE);
      c = &g_array_index (rb->collectives, WeftCollective, weft_event_coll (rb, got));
      g_assert_cmpint (c->type, ==, WEFT_COLL_ALL_REDUCE);
      g_assert_cmpint (c->bytes, ==, spec.bytes);
      g_assert_cmpstr (weft_rank_string (rb, c->pg_name), ==, "weft_dp");
      g_assert_cmpuint (c->n_pg_ranks, ==, 2);
      g_assert_cmpint (c->pg_ranks[0], ==, 0);
      g_assert_cmpint (c->pg_ranks[1], ==, 1);
      g_assert_cmpuint (c->instance, !=, WEFT_NONE);
      g_assert_cmpuint (g_array_index (b->instances, WeftCollInstance, c->instance).members->len, ==, 2);
      n_found++;
      assert_no_partial_overlap (rb, NULL);
      if (rb->lanes->len != ra->lanes->len)
        g_test_message ("rank %u: %u lanes after saving, %u before (companion tids)", r, rb->lanes->len, ra->lanes->len);
    }
  g_assert_cmpuint (n_found, ==, 2);
  g_assert_cmpuint (n_edited, >, 100);
  g_assert_cmpuint (b->instances->len, ==, a->instances->len);
  json_object_put (meta);
}

/* Random edits (seeded by g_test_rand: reproducible with --seed) of 400 X
 * slices of a real 8-lane trace: shifts, new durations, moves to another
 * lane of the same pid. Saved and loaded back: every event in order with
 * the model's times ns-exact, edited ones on their lane or a companion tid,
 * untouched ones byte-identical (flow points of edited slices follow them),
 * and no edited slice overlapping any other slice without nesting. */
static void
test_random_edits (gconstpointer data)
{
  g_autofree char *path = weft_test_require_trace (data);
  g_autoptr (WeftRank) a = NULL;
  g_autoptr (WeftRank) b = NULL;
  g_autofree char *out = NULL;
  g_autoptr (GArray) xs = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autofree gboolean *edited = NULL;
  guint n_companion = 0;

  if (path == NULL)
    return;
  a = load_rank (path);
  edited = g_new0 (gboolean, a->events->len);
  for (guint i = 0; i < a->events->len; i++)
    if (weft_rank_event (a, i)->ph == WEFT_PH_X && weft_rank_event (a, i)->lane != WEFT_NONE)
      g_array_append_val (xs, i);
  g_assert_cmpuint (xs->len, >, 1000);
  for (guint k = 0; k < 400; k++)
    {
      guint32 i = g_array_index (xs, guint32, g_test_rand_int_range (0, (gint32) xs->len));
      WeftEvent *ev = weft_rank_event (a, i);
      ev->ts += g_test_rand_int_range (-50000, 50001);
      if (g_test_rand_bit ())
        weft_event_set_dur (a, ev, g_test_rand_int_range (0, 200001));
      if (g_test_rand_int_range (0, 4) == 0)
        {
          /* another lane with the same pid */
          const WeftLane *cur = weft_rank_lane (a, ev->lane);
          for (guint l = 0; l < a->lanes->len; l++)
            if (l != ev->lane && weft_rank_lane (a, l)->pid_text == cur->pid_text)
              {
                ev->lane = l;
                break;
              }
        }
      ev->flags |= WEFT_EVENT_EDITED | WEFT_EVENT_HAS_DUR;
      edited[i] = TRUE;
    }

  out = save_and_read (a, "random-edits.json", NULL);
  b = load_rank (out);
  /* every event in order, then a thread_name for each companion lane */
  g_assert_cmpuint (b->events->len, >=, a->events->len);
  for (guint i = a->events->len; i < b->events->len; i++)
    {
      const WeftEvent *eb = weft_rank_event (b, i);
      g_assert_cmpint (eb->ph, ==, WEFT_PH_M);
      g_assert_cmpstr (weft_rank_string (b, eb->name), ==, "thread_name");
    }
  for (guint i = 0; i < a->events->len; i++)
    {
      const WeftEvent *ea = weft_rank_event (a, i), *eb = weft_rank_event (b, i);
      g_assert_cmpint (ea->ph, ==, eb->ph);
      g_assert_cmpstr (weft_rank_string (a, ea->name), ==, weft_rank_string (b, eb->name));
      if (ea->ph == WEFT_PH_S || ea->ph == WEFT_PH_F)
        continue; /* may follow an edited slice */
      g_assert_cmpint (ea->ts, ==, eb->ts);
      g_assert_cmpint (weft_event_dur (a, ea), ==, weft_event_dur (b, eb));
      g_assert_cmpstr (lane_pid (a, ea->lane), ==, lane_pid (b, eb->lane));
      if (!edited[i])
        {
          assert_same_text (a, ea, b, eb);
          g_assert_cmpstr (lane_tid (a, ea->lane), ==, lane_tid (b, eb->lane));
        }
      else if (strcmp (lane_tid (a, ea->lane), lane_tid (b, eb->lane)) != 0)
        {
          gint64 t0 = g_ascii_strtoll (lane_tid (a, ea->lane), NULL, 10);
          gint64 t1 = g_ascii_strtoll (lane_tid (b, eb->lane), NULL, 10);
          g_assert_cmpint (t1 - t0, >, 0);
          g_assert_cmpint ((t1 - t0) % 100000, ==, 0);
          n_companion++;
        }
    }
  g_test_message ("%u edited slices moved to companion tids", n_companion);
  g_assert_cmpuint (n_companion, >, 0);

  /* No edited slice overlaps another without nesting on its output lane. */
  for (guint l = 0; l < b->lanes->len; l++)
    {
      g_autoptr (GArray) on = g_array_new (FALSE, FALSE, sizeof (guint32));
      for (guint i = 0; i < b->events->len; i++)
        if (weft_rank_event (b, i)->ph == WEFT_PH_X && weft_rank_event (b, i)->lane == l)
          g_array_append_val (on, i);
      for (guint x = 0; x < on->len; x++)
        {
          guint32 i = g_array_index (on, guint32, x);
          const WeftEvent *p = weft_rank_event (b, i);
          gint64 pe = p->ts + MAX (weft_event_dur (b, p), 0);
          if (!edited[i])
            continue;
          for (guint y = 0; y < on->len; y++)
            {
              const WeftEvent *q = weft_rank_event (b, g_array_index (on, guint32, y));
              gint64 qe = q->ts + MAX (weft_event_dur (b, q), 0);
              gboolean overlap = p->ts < qe && q->ts < pe;
              gboolean nested = (p->ts <= q->ts && qe <= pe) || (q->ts <= p->ts && pe <= qe);
              if (x != y && overlap && !nested)
                g_error ("lane %s/%s: edited slice %u overlaps slice %u", lane_pid (b, l), lane_tid (b, l), i,
                         g_array_index (on, guint32, y));
            }
        }
    }
}

/* The profiler's own overlapping slices stay as read; an edited slice that
 * would overlap any of them (not only the last one) moves. */
static void
test_overlap_untouched (void)
{
  static const char buf[] = "{\"traceEvents\": ["
                            "{\"ph\": \"X\", \"name\": \"u1\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 10},"
                            "{\"ph\": \"X\", \"name\": \"u2\", \"pid\": 1, \"tid\": 1, \"ts\": 2, \"dur\": 13},"
                            "{\"ph\": \"X\", \"name\": \"u3\", \"pid\": 1, \"tid\": 1, \"ts\": 3, \"dur\": 17},"
                            "{\"ph\": \"X\", \"name\": \"e\", \"pid\": 1, \"tid\": 1, \"ts\": 30, \"dur\": 4},"
                            "{\"ph\": \"X\", \"name\": \"f\", \"pid\": 1, \"tid\": 1, \"ts\": 40, \"dur\": 4}]}";
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftRank) a = weft_rank_load_buffer ("overlap.json", buf, sizeof buf - 1, NULL, &error);
  g_autoptr (WeftRank) b = NULL;
  g_autofree char *out = NULL;
  WeftEvent *e, *f;

  g_assert_no_error (error);
  e = weft_rank_event (a, 3);
  f = weft_rank_event (a, 4);
  /* e [8, 12) us: overlaps u1 [0, 10) without nesting (u1 was taken off
   * the stack by u2, u2 by u3). f [4, 6) us: nested in all three: stays. */
  e->ts = 8000;
  e->flags |= WEFT_EVENT_EDITED;
  f->ts = 4000;
  weft_event_set_dur (a, f, 2000);
  f->flags |= WEFT_EVENT_EDITED;
  out = save_and_read (a, "overlap-untouched.json", NULL);
  b = load_rank (out);
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *tb = text_of (b, i), *ta = text_of (a, i);
      g_assert_nonnull (ta);
      g_assert_cmpstr (tb, ==, ta);
    }
  g_assert_cmpstr (lane_tid (b, weft_rank_event (b, 3)->lane), ==, "100001");
  g_assert_cmpint (weft_rank_event (b, 3)->ts, ==, 8000);
  g_assert_cmpstr (lane_tid (b, weft_rank_event (b, 4)->lane), ==, "1");
  g_assert_cmpint (weft_rank_event (b, 4)->ts, ==, 4000);
  g_assert_cmpint (weft_event_dur (b, weft_rank_event (b, 4)), ==, 2000);
}

/* An edited event keeps every byte of its text except the values of its
 * top-level ts/dur/pid/tid (a nested "ts" in args is left alone), in
 * compact JSON and integer-microsecond (old Kineto) style. */
static void
test_splice_compact (void)
{
  static const char buf[] =
    "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":2,\"ts\":5,\"dur\":3,\"args\":{\"ts\":99,\"s\":\"}\\\"ts\\\":\"}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"b\",\"pid\":1,\"tid\":7,\"ts\":20,\"dur\":4},"
    "{\"ph\":\"i\",\"name\":\"c\",\"pid\":1,\"tid\":2,\"ts\":30,\"s\":\"t\"}],\"x\":{\"y\":[1,2]}}";
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftRank) a = weft_rank_load_buffer ("compact.json", buf, sizeof buf - 1, NULL, &error);
  g_autoptr (WeftRank) b = NULL;
  g_autofree char *out = NULL, *t0 = NULL, *t1 = NULL, *t2 = NULL;
  WeftEvent *e0, *e2;

  g_assert_no_error (error);
  g_assert_cmpuint (a->events->len, ==, 3);
  g_assert_cmpint (a->ts_style, ==, WEFT_TS_ABSOLUTE_US);
  e0 = weft_rank_event (a, 0);
  e2 = weft_rank_event (a, 2);
  /* Event 0: 1.5 us later, 1 us longer, onto event 1's lane (tid 7, after b). */
  e0->ts += 1500 + 20000;
  weft_event_set_dur (a, e0, weft_event_dur (a, e0) + 1000);
  e0->lane = weft_rank_event (a, 1)->lane;
  e0->flags |= WEFT_EVENT_EDITED;
  /* Event 2: a whole microsecond later: integer text. */
  e2->ts += 1000;
  e2->flags |= WEFT_EVENT_EDITED;

  out = save_and_read (a, "compact-out.json", NULL);
  b = load_rank (out);
  g_assert_cmpuint (b->events->len, ==, 3);
  t0 = text_of (b, 0);
  t1 = text_of (b, 1);
  t2 = text_of (b, 2);
  g_assert_cmpstr (t0, ==,
                   "{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":7,\"ts\":26.500,\"dur\":4,\"args\":{\"ts\":99,\"s\":\"}\\\"ts\\\":\"}}");
  g_assert_cmpstr (t1, ==,
                   "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"b\",\"pid\":1,\"tid\":7,\"ts\":20,\"dur\":4}");
  g_assert_cmpstr (t2, ==, "{\"ph\":\"i\",\"name\":\"c\",\"pid\":1,\"tid\":2,\"ts\":31,\"s\":\"t\"}");
  g_assert_cmpint (weft_rank_event (b, 0)->ts, ==, e0->ts);
  g_assert_cmpint (weft_event_dur (b, weft_rank_event (b, 0)), ==, weft_event_dur (a, e0));
  g_assert_cmpint (weft_rank_event (b, 2)->ts, ==, e2->ts);
  g_assert_cmpstr (lane_tid (b, weft_rank_event (b, 0)->lane), ==, "7");
}

static void
test_weft_key (void)
{
  g_autoptr (WeftRank) a = load_rank (sample_rank_path (0));
  g_autoptr (WeftRank) b = NULL;
  g_autoptr (WeftRank) c = NULL;
  g_autofree char *out1 = NULL, *out2 = NULL;
  json_object *meta = json_tokener_parse ("{\"version\": \"0.1.0\", \"edits\": [{\"op\": \"move\", \"dt_ns\": 1500}]}");
  json_object *meta2 = json_tokener_parse ("{\"template\": {\"dp\": 8}}");
  WeftSaveOptions opts = { meta };
  guint n_weft = 0;

  out1 = save_and_read (a, "meta1.json", &opts);
  b = load_rank (out1);
  g_assert_cmpuint (b->top_keys->len, ==, a->top_keys->len + 1);
  for (guint i = 0; i < b->top_keys->len; i++)
    {
      const WeftTopKey *k = &g_array_index (b->top_keys, WeftTopKey, i);
      if (strcmp (weft_rank_string (b, k->key), "weft") == 0)
        {
          json_object *got = json_tokener_parse (k->raw);
          g_assert_true (json_object_equal (got, meta));
          json_object_put (got);
        }
    }
  /* Saving again with other metadata replaces the key (one "weft" key). */
  opts.weft_meta = meta2;
  out2 = save_and_read (b, "meta2.json", &opts);
  c = load_rank (out2);
  g_assert_cmpuint (c->top_keys->len, ==, b->top_keys->len);
  for (guint i = 0; i < c->top_keys->len; i++)
    {
      const WeftTopKey *k = &g_array_index (c->top_keys, WeftTopKey, i);
      if (strcmp (weft_rank_string (c, k->key), "weft") == 0)
        {
          json_object *got = json_tokener_parse (k->raw);
          g_assert_true (json_object_equal (got, meta2));
          json_object_put (got);
          n_weft++;
        }
    }
  g_assert_cmpuint (n_weft, ==, 1);
  /* The events are untouched by it. */
  g_assert_cmpuint (c->events->len, ==, a->events->len);
  for (guint i = 0; i < a->events->len; i++)
    assert_same_text (a, weft_rank_event (a, i), c, weft_rank_event (c, i));
  json_object_put (meta);
  json_object_put (meta2);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/save/format-time", test_format_time);
  g_test_add_func ("/save/format-from-path", test_format_from_path);
  g_test_add_data_func ("/save/round-trip/dlrm-worker0",
                        "param/et_replay/tests/inputs/dlrm_kineto/worker0_step_12.1694128201545.pt.trace.json",
                        test_round_trip_real);
  g_test_add_data_func ("/save/round-trip/alexnet",
                        "HolisticTraceAnalysis/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz",
                        test_round_trip_real);
  g_test_add_data_func ("/save/round-trip/no-distributed-info",
                        "HolisticTraceAnalysis/distributed_info_unavailable/distributed_info_not_found.json.gz",
                        test_round_trip_real);
  g_test_add_data_func ("/save/round-trip/cuda-event-sync",
                        "HolisticTraceAnalysis/critical_path/cuda_event_sync_multi_stream/event_sync_trace.json.gz",
                        test_round_trip_real);
  g_test_add_data_func ("/save/round-trip/fsdp8-rank3", "synthetic/fsdp8/profiling/traces/iteration_10/rank3_trace.json.gz",
                        test_round_trip_real);
  g_test_add_func ("/save/round-trip/sample", test_round_trip_sample);
  g_test_add_func ("/save/round-trip/trace-dir", test_round_trip_trace_dir);
  g_test_add_data_func ("/save/byte-identity/dlrm-worker3",
                        "param/et_replay/tests/inputs/dlrm_kineto/worker3_step_12.1694128201557.pt.trace.json",
                        test_byte_identity_real);
  g_test_add_data_func ("/save/byte-identity/nccl-data", "HolisticTraceAnalysis/nccl_parser_config/nccl_data.json.gz",
                        test_byte_identity_real);
  g_test_add_data_func ("/save/byte-identity/control", "HolisticTraceAnalysis/trace_diff/control/control.json.gz",
                        test_byte_identity_real);
  g_test_add_func ("/save/byte-identity/sample", test_byte_identity_sample);
  g_test_add_func ("/save/atomic-failure", test_atomic_failure);
  g_test_add_func ("/save/errors", test_save_errors);
  g_test_add_func ("/save/symlink", test_save_symlink);
  g_test_add_func ("/save/edited-event", test_edited_event);
  g_test_add_func ("/save/overlap-companion", test_overlap_companion);
  g_test_add_func ("/save/created-and-deleted", test_created_and_deleted);
  g_test_add_func ("/save/weft-key", test_weft_key);
  g_test_add_func ("/save/splice-compact", test_splice_compact);
  g_test_add_func ("/save/overlap-untouched", test_overlap_untouched);
  g_test_add_data_func ("/save/random-edits/dlrm-worker0",
                        "param/et_replay/tests/inputs/dlrm_kineto/worker0_step_12.1694128201545.pt.trace.json",
                        test_random_edits);
  g_test_add_data_func ("/save/random-edits/fsdp8-rank0", "synthetic/fsdp8/profiling/traces/iteration_10/rank0_trace.json.gz",
                        test_random_edits);
  g_test_add_func ("/save/solver-edits", test_solver_edits);
  return g_test_run ();
}
