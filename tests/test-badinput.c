/* test-badinput.c: every class of bad input gives one clear error (code,
 * file name, byte offset where known) and never a crash, a hang or
 * unbounded memory. All files are written here. */
#include "config.h"

#include <string.h>

#include "core/jsonscan.h"
#include "testutil.h"
#include "weft/weft-load.h"

/* Loads path and checks the error: code, the file named, and when
 * byte >= 0 "byte <byte>:" in the message, and what (a substring). */
static void
expect_error_chunked (const char *path, const WeftLoadOptions *options, int code, gint64 byte, const char *what,
                      gsize chunk);

/* The same error, at the same byte, whatever the chunk boundaries. */
static void
expect_error_full (const char *path, const WeftLoadOptions *options, int code, gint64 byte, const char *what)
{
  static const gsize chunks[] = { 0, 1, 2, 7, 64 };

  for (guint i = 0; i < G_N_ELEMENTS (chunks); i++)
    expect_error_chunked (path, options, code, byte, what, chunks[i]);
  weft_json_scan_set_chunk_size (0);
}

static void
expect_error_chunked (const char *path, const WeftLoadOptions *options, int code, gint64 byte, const char *what,
                      gsize chunk)
{
  g_autoptr (GError) error = NULL;
  WeftTrace *trace;

  weft_json_scan_set_chunk_size (chunk);
  trace = weft_trace_load (path, options, NULL, &error);

  if (trace != NULL)
    g_error ("%s: loaded, expected error code %d (%s)", path, code, what);
  g_assert_nonnull (error);
  if (chunk == 0)
    g_test_message ("%s", error->message);
  if (!g_error_matches (error, WEFT_ERROR, code))
    g_error ("%s: error code %d (%s), expected %d", path, error->code, error->message, code);
  g_assert_true (strstr (error->message, path) != NULL);
  if (byte >= 0)
    {
      g_autofree char *at = g_strdup_printf (": byte %" G_GINT64_FORMAT ": ", byte);
      if (strstr (error->message, at) == NULL)
        g_error ("%s: message \"%s\" lacks \"%s\"", path, error->message, at);
    }
  if (what != NULL && strstr (error->message, what) == NULL)
    g_error ("message \"%s\" lacks \"%s\"", error->message, what);
}

static void
expect_error (const char *path, int code, gint64 byte, const char *what)
{
  expect_error_full (path, NULL, code, byte, what);
}

/* Writes text as name and expects an error at the offset of marker in
 * text (or at byte, when marker is NULL). */
static void
expect_text_error (const char *name, const char *text, const char *marker, gint64 byte, const char *what)
{
  g_autofree char *path = weft_test_write_file (name, text, -1);
  if (marker != NULL)
    {
      const char *m = strstr (text, marker);
      g_assert_nonnull (m);
      byte = m - text;
    }
  expect_error (path, WEFT_ERROR_FORMAT, byte, what);
}

#define EV "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":1.5,\"dur\":2}"

static const char *good = "{\"schemaVersion\":1,\"traceEvents\":[" EV "," EV "],\"baseTimeNanoseconds\":1000}";

/* ---- JSON ------------------------------------------------------------------ */

static void
test_empty (void)
{
  expect_text_error ("empty.json", "", NULL, 0, "empty file");
  expect_text_error ("blank.json", " \n\t ", NULL, 4, "no JSON");
}

static void
test_truncated_every_prefix (void)
{
  gsize len = strlen (good);

  /* every proper prefix of a valid trace is a clean error, never a crash */
  for (gsize n = 0; n < len; n++)
    {
      g_autoptr (GError) error = NULL;
      WeftRank *rank = weft_rank_load_buffer ("prefix.json", good, n, NULL, &error);
      g_assert_null (rank);
      g_assert_error (error, WEFT_ERROR, WEFT_ERROR_FORMAT);
      g_assert_true (g_str_has_prefix (error->message, "prefix.json: "));
    }
  {
    g_autofree char *t = g_strndup (good, 60);
    expect_text_error ("truncated.json", t, NULL, 60, "unexpected end of file");
  }
}

static void
test_wrong_types (void)
{
  expect_text_error ("ts-string.json", "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":\"abc\",\"dur\":1}]}", "\"abc\"", -1,
                     "\"ts\" is a string");
  expect_text_error ("dur-true.json", "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"dur\":true}]}", "true", -1,
                     "\"dur\" is not a number");
  expect_text_error ("events-object.json", "{\"traceEvents\":{\"a\":1}}", "{\"a\"", -1, "not an array");
  expect_text_error ("root-array.json", "[{\"ph\":\"X\"}]", NULL, 0, "root is not a JSON object");
  expect_text_error ("root-number.json", "  42", NULL, 2, "root is not a JSON object");
  expect_text_error ("element-number.json", "{\"traceEvents\":[" EV ",17]}", "17]", -1, "not an object");
  expect_text_error ("ph-number.json", "{\"traceEvents\":[{\"ph\":1}]}", "1}", -1, "\"ph\" is not a string");
  expect_text_error ("pid-object.json", "{\"traceEvents\":[{\"ph\":\"X\",\"pid\":{}}]}", "{}", -1,
                     "\"pid\" is neither");
  {
    g_autofree char *p = weft_test_write_file (
      "base-string.json", "{\"traceEvents\":[" EV "],\"baseTimeNanoseconds\":\"soon\"}", -1);
    expect_error (p, WEFT_ERROR_FORMAT, -1, "baseTimeNanoseconds");
  }
  {
    g_autofree char *p =
      weft_test_write_file ("rank-string.json", "{\"distributedInfo\":{\"rank\":\"abc\"},\"traceEvents\":[" EV "]}", -1);
    expect_error (p, WEFT_ERROR_FORMAT, -1, "distributedInfo.rank");
  }
}

static void
test_missing_fields (void)
{
  /* not a trace at all */
  expect_text_error ("no-events.json", "{\"schemaVersion\":1}", NULL, -1, "no \"traceEvents\"");
  expect_text_error ("empty-object.json", "{}", NULL, -1, "no \"traceEvents\"");
  expect_text_error ("twice.json", "{\"traceEvents\":[],\"traceEvents\":[]}", "\"traceEvents\":[]}", -1, "twice");
  /* events missing ph / dur / pid are kept */
  {
    g_autoptr (GError) error = NULL;
    const char *t = "{\"traceEvents\":[{\"name\":\"a\"},{\"ph\":\"X\",\"ts\":3},{\"ph\":\"Q\",\"pid\":1}]}";
    g_autoptr (WeftRank) rank = weft_rank_load_buffer ("kept.json", t, strlen (t), NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (rank->events->len, ==, 3);
    g_assert_cmpint (weft_rank_event (rank, 0)->ph, ==, WEFT_PH_OTHER);
    g_assert_cmpint (weft_rank_event (rank, 1)->ph, ==, WEFT_PH_X);
    g_assert_cmpint (weft_event_dur (rank, weft_rank_event (rank, 1)), ==, 0);
    g_assert_false (weft_rank_event (rank, 1)->flags & WEFT_EVENT_HAS_DUR);
    g_assert_cmpint (weft_rank_event (rank, 2)->ph, ==, WEFT_PH_OTHER);
    g_assert_cmpuint (weft_rank_event (rank, 2)->lane, ==, WEFT_NONE);
  }
}

static void
test_numbers (void)
{
  expect_text_error ("nan.json", "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":NaN}]}", "NaN", -1, "NaN");
  expect_text_error ("inf.json", "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"dur\":Infinity}]}", "Infinity", -1,
                     "Infinity");
  expect_text_error ("minus-inf.json", "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":-Infinity}]}", "-Infinity", -1,
                     "Infinity");
  expect_text_error ("nan-args.json", "{\"traceEvents\":[{\"ph\":\"X\",\"args\":{\"v\":NaN}}]}", "NaN", -1, "NaN");
  expect_text_error ("huge.json", "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1e30}]}", "1e30", -1, "out of range");
  expect_text_error ("huge2.json", "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":9223372036854775.808}]}", "9223", -1,
                     "out of range");
  expect_text_error ("huge3.json", "{\"traceEvents\":[{\"ph\":\"X\",\"dur\":-99999999999999999999}]}", "-9999", -1,
                     "out of range");
  expect_text_error ("leading-zero.json", "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":012}]}", "12}", -1, "unexpected");
  expect_text_error ("bare-dot.json", "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1.}]}", "}]}", -1, "decimal point");
  expect_text_error ("plus.json", "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":+1}]}", "+1", -1, "not a number");
  /* times are bounded by 2^62 ns (so that sums and differences of a few
   * never leave int64): the largest values that fit load exactly... */
  {
    const char *t = "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":4611686018427387.900,\"dur\":0.003},"
                    "{\"ph\":\"X\",\"ts\":-4611686018427387.903}]}";
    g_autoptr (GError) error = NULL;
    g_autoptr (WeftRank) rank = weft_rank_load_buffer ("edge.json", t, strlen (t), NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpint (weft_rank_event (rank, 0)->ts, ==, (G_GINT64_CONSTANT (1) << 62) - 4);
    g_assert_cmpint (weft_event_end (rank, weft_rank_event (rank, 0)), ==, (G_GINT64_CONSTANT (1) << 62) - 1);
    g_assert_cmpint (weft_rank_event (rank, 1)->ts, ==, -((G_GINT64_CONSTANT (1) << 62) - 1));
  }
  /* ...and the int64 limits (UBSan found overflows downstream) are refused */
  expect_text_error ("int64-ts.json", "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":9223372036854775.807,\"dur\":1}]}",
                     "9223", -1, "out of range (more than 2^62 ns");
  expect_text_error ("limit-ts.json", "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":4611686018427387.904}]}", "4611", -1,
                     "out of range");
  expect_text_error ("limit-dur.json",
                     "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":4611686018427387.900,\"dur\":0.004}]}", "0.004", -1,
                     "ts + dur more than 2^62 ns");
  expect_text_error ("int64-dur.json", "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"dur\":9223372036854775.807}]}",
                     "9223", -1, "out of range");
  /* base + ts overflowing, or leaving the range */
  {
    g_autofree char *p = weft_test_write_file (
      "base-overflow.json",
      "{\"baseTimeNanoseconds\":9223372036854775807,\"traceEvents\":[{\"ph\":\"X\",\"ts\":1}]}", -1);
    expect_error (p, WEFT_ERROR_FORMAT, -1, "out of range");
  }
  {
    g_autofree char *p = weft_test_write_file (
      "base-range.json",
      "{\"baseTimeNanoseconds\":4611686018427387000,\"traceEvents\":[{\"ph\":\"X\",\"ts\":1}]}", -1);
    expect_error (p, WEFT_ERROR_FORMAT, -1, "baseTimeNanoseconds + ts (+ dur) is out of range");
  }
}

static void
test_deep_nesting (void)
{
  GString *s = g_string_new ("{\"traceEvents\":[{\"ph\":\"X\",\"args\":{\"deep\":");
  gsize at;
  WeftLoadOptions small = { 0 };
  g_autofree char *p2 = NULL;

  for (int i = 0; i < 100000; i++)
    g_string_append_c (s, '[');
  /* root 1, traceEvents 2, event 3, args 4: the 253rd '[' is level 257 */
  at = strlen ("{\"traceEvents\":[{\"ph\":\"X\",\"args\":{\"deep\":") + 252;
  {
    g_autofree char *p = weft_test_write_file ("deep.json", s->str, (gssize) s->len);
    expect_error (p, WEFT_ERROR_FORMAT, (gint64) at, "nesting deeper than 256");
  }
  /* a smaller limit from the options, also for top-level keys */
  small.max_depth = 3;
  p2 = weft_test_write_file ("deep2.json", "{\"a\":[[[1]]],\"traceEvents\":[]}", -1);
  expect_error_full (p2, &small, WEFT_ERROR_FORMAT, 7, "nesting deeper than 3");
  g_string_free (s, TRUE);
}

static void
test_bad_utf8 (void)
{
  expect_text_error ("utf8-name.json", "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"ab\xff\"}]}", "\xff", -1,
                     "invalid UTF-8");
  expect_text_error ("utf8-overlong.json", "{\"traceEvents\":[{\"name\":\"\xc0\xaf\"}]}", "\xc0", -1, "UTF-8");
  expect_text_error ("utf8-surrogate.json", "{\"traceEvents\":[{\"name\":\"\xed\xa0\x80\"}]}", "\xed", -1, "UTF-8");
  expect_text_error ("utf8-cut.json", "{\"traceEvents\":[{\"name\":\"\xe2\x82\"}]}", "\xe2", -1, "UTF-8");
  expect_text_error ("utf8-args.json", "{\"traceEvents\":[{\"args\":{\"\x80\":1}}]}", "\x80", -1, "UTF-8");
  expect_text_error ("utf8-outside.json", "{\"traceEvents\":[\xc3\xa9]}", "\xc3", -1, "not an object");
  expect_text_error ("control.json", "{\"traceEvents\":[{\"name\":\"a\tb\"}]}", "\tb", -1, "control character");
  expect_text_error ("escape.json", "{\"traceEvents\":[{\"name\":\"a\\qb\"}]}", "\\q", -1, "invalid escape");
  expect_text_error ("lone-surrogate.json", "{\"traceEvents\":[{\"name\":\"\\ud800x\"}]}", "\\ud800", -1,
                     "surrogate");
  expect_text_error ("bad-u.json", "{\"traceEvents\":[{\"name\":\"\\u12G4\"}]}", "\\u12", -1, "\\u escape");
  {
    static const char nul[] = "{\"traceEvents\":[{\"name\":\"a\0b\"}]}";
    g_autofree char *p = weft_test_write_file ("nul.json", nul, sizeof nul - 1);
    expect_error (p, WEFT_ERROR_FORMAT, 26, "NUL");
  }
}

static void
test_syntax (void)
{
  expect_text_error ("trailing.json", "{\"traceEvents\":[]} x", "x", -1, "after the end of the root object");
  expect_text_error ("comma.json", "{\"traceEvents\":[" EV ",]}", "]}", -1, "not an object");
  expect_text_error ("missing-colon.json", "{\"traceEvents\" []}", "[]", -1, "expected ':'");
  expect_text_error ("single-quote.json", "{'traceEvents':[]}", "'", -1, "expected a string");
  expect_text_error ("bad-literal.json", "{\"a\":tru,\"traceEvents\":[]}", "tru", -1, "invalid literal");
  expect_text_error ("event-garbage.json", "{\"traceEvents\":[{\"ph\":\"X\" \"ts\":1}]}", "\"ts\"", -1,
                     "expected ',' or '}'");
}

/* ---- compression --------------------------------------------------------------- */

static void
test_gzip (void)
{
  gsize n = 0;
  g_autofree char *gz = weft_test_gzip_bytes (good, strlen (good), &n);
  g_autofree char *ok = weft_test_write_file ("ok.json.gz", gz, (gssize) n);
  g_autofree char *cut = weft_test_write_file ("cut.json.gz", gz, (gssize) (n / 2));
  g_autofree char *corrupt_data = g_memdup2 (gz, n);
  g_autofree char *corrupt = NULL;
  g_autofree char *fake = weft_test_write_file ("fake.json.gz", "PK\x03\x04 not gzip", -1);
  g_autofree char *garbage = NULL;
  g_autofree char *two = NULL;

  /* sanity: the good one loads */
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (WeftTrace) t = weft_trace_load (ok, NULL, NULL, &error);
    g_assert_no_error (error);
    g_assert_nonnull (t);
  }
  expect_error (cut, WEFT_ERROR_COMPRESSION, -1, "truncated gzip");
  for (gsize i = 12; i < n - 8; i++)
    corrupt_data[i] ^= 0x55;
  corrupt = weft_test_write_file ("corrupt.json.gz", corrupt_data, (gssize) n);
  expect_error (corrupt, WEFT_ERROR_COMPRESSION, -1, "corrupt gzip");
  expect_error (fake, WEFT_ERROR_COMPRESSION, 0, "not gzip");
  {
    /* a corrupt CRC at the end */
    g_autofree char *crc = g_memdup2 (gz, n);
    g_autofree char *p = NULL;
    crc[n - 6] ^= 1;
    p = weft_test_write_file ("crc.json.gz", crc, (gssize) n);
    expect_error (p, WEFT_ERROR_COMPRESSION, -1, "corrupt gzip");
  }
  {
    /* two members concatenated are one stream; garbage after one is not */
    GByteArray *b = g_byte_array_new ();
    gsize n1 = 0, n2 = 0;
    const char *part1 = "{\"traceEvents\":[" EV ",";
    const char *part2 = EV "]}";
    g_autofree char *g1 = weft_test_gzip_bytes (part1, strlen (part1), &n1);
    g_autofree char *g2 = weft_test_gzip_bytes (part2, strlen (part2), &n2);
    g_autoptr (GError) error = NULL;
    g_autoptr (WeftRank) rank = NULL;
    g_byte_array_append (b, (guint8 *) g1, (guint) n1);
    g_byte_array_append (b, (guint8 *) g2, (guint) n2);
    two = weft_test_write_file ("two.json.gz", (char *) b->data, b->len);
    rank = weft_rank_load_file (two, NULL, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (rank->events->len, ==, 2);
    g_byte_array_set_size (b, (guint) n);
    memcpy (b->data, gz, n);
    g_byte_array_append (b, (const guint8 *) "junk", 4);
    garbage = weft_test_write_file ("garbage.json.gz", (char *) b->data, b->len);
    expect_error (garbage, WEFT_ERROR_COMPRESSION, (gint64) n, "data after the end");
    g_byte_array_free (b, TRUE);
  }
}

static void
test_zstd (void)
{
  gsize n = 0;
  g_autofree char *zs = weft_test_zstd_bytes (good, strlen (good), &n);
  g_autofree char *cut = weft_test_write_file ("cut.json.zst", zs, (gssize) (n - 3));
  g_autofree char *bad = g_memdup2 (zs, n);
  g_autofree char *corrupt = NULL;
  g_autofree char *ok = weft_test_write_file ("ok.json.zst", zs, (gssize) n);

  {
    g_autoptr (GError) error = NULL;
    g_autoptr (WeftTrace) t = weft_trace_load (ok, NULL, NULL, &error);
    g_assert_no_error (error);
    g_assert_nonnull (t);
  }
  expect_error (cut, WEFT_ERROR_COMPRESSION, -1, "truncated zstd");
  for (gsize i = 6; i < n; i++)
    bad[i] ^= 0xa5;
  corrupt = weft_test_write_file ("corrupt.json.zst", bad, (gssize) n);
  expect_error (corrupt, WEFT_ERROR_COMPRESSION, -1, "corrupt zstd");
}

static void
test_bomb (void)
{
  /* 64 MiB of spaces compress to ~64 KiB: with a 1 MiB cap this stops at
   * the cap instead of inflating everything */
  gsize big = 64u << 20, n = 0, nz = 0;
  char *data = g_malloc (big);
  g_autofree char *gz = NULL;
  g_autofree char *zs = NULL;
  g_autofree char *p = NULL;
  g_autofree char *pz = NULL;
  g_autofree char *plain = NULL;
  WeftLoadOptions cap = { 0 };

  memset (data, ' ', big);
  data[0] = '{';
  gz = weft_test_gzip_bytes (data, big, &n);
  zs = weft_test_zstd_bytes (data, big, &nz);
  g_free (data);
  g_assert_cmpuint (n, <, big / 100);
  p = weft_test_write_file ("bomb.json.gz", gz, (gssize) n);
  pz = weft_test_write_file ("bomb.json.zst", zs, (gssize) nz);
  cap.max_json_bytes = 1u << 20;
  expect_error_full (p, &cap, WEFT_ERROR_TOO_LARGE, 1u << 20, "exceeds the limit of 1048576 bytes");
  expect_error_full (pz, &cap, WEFT_ERROR_TOO_LARGE, 1u << 20, "exceeds the limit");
  /* the cap applies to plain files too */
  plain = weft_test_write_file ("big-plain.json", good, -1);
  cap.max_json_bytes = 20;
  expect_error_full (plain, &cap, WEFT_ERROR_TOO_LARGE, 20, "exceeds the limit");
}

/* ---- files and folders ------------------------------------------------------------- */

static void
test_folders (void)
{
  g_autofree char *empty = g_build_filename (weft_test_tmpdir (), "no-trace-here", NULL);
  g_autofree char *notrace = NULL;
  g_autofree char *dup = g_build_filename (weft_test_tmpdir (), "dup", NULL);
  g_autofree char *missing = g_build_filename (weft_test_tmpdir (), "does-not-exist.json", NULL);
  g_autoptr (GError) error = NULL;

  g_mkdir_with_parents (empty, 0755);
  notrace = g_build_filename (empty, "notes.json", NULL);
  g_assert_true (g_file_set_contents (notrace, "{\"lr\":0.1}", -1, NULL));
  expect_error (empty, WEFT_ERROR_NO_TRACE, -1, "no trace files");
  expect_error (missing, WEFT_ERROR_IO, -1, NULL);

  /* two files claiming rank 3: one by distributedInfo, one by its name */
  g_mkdir_with_parents (dup, 0755);
  {
    g_autofree char *a = g_build_filename (dup, "a_trace.json", NULL);
    g_autofree char *b = g_build_filename (dup, "rank3_trace.json", NULL);
    g_assert_true (g_file_set_contents (a, "{\"distributedInfo\":{\"rank\":3},\"traceEvents\":[" EV "]}", -1, NULL));
    g_assert_true (g_file_set_contents (b, "{\"traceEvents\":[" EV "]}", -1, NULL));
    {
      WeftTrace *t = weft_trace_load (dup, NULL, NULL, &error);
      g_assert_null (t);
      g_assert_error (error, WEFT_ERROR, WEFT_ERROR_DUPLICATE_RANK);
      g_test_message ("%s", error->message);
      g_assert_true (strstr (error->message, a) != NULL);
      g_assert_true (strstr (error->message, b) != NULL);
      g_assert_true (strstr (error->message, "rank 3") != NULL);
    }
  }
  /* one bad file among good ones: the error names the bad one */
  {
    g_autofree char *dir = g_build_filename (weft_test_tmpdir (), "mixed", NULL);
    g_mkdir_with_parents (dir, 0755);
    for (int r = 0; r < 4; r++)
      {
        g_autofree char *path = g_strdup_printf ("%s/rank%d_trace.json", dir, r);
        g_assert_true (g_file_set_contents (path, r == 2 ? "{\"traceEvents\":[" EV : good, -1, NULL));
      }
    {
      g_autofree char *bad = g_strdup_printf ("%s/rank2_trace.json", dir);
      expect_error (dir, WEFT_ERROR_FORMAT, -1, "unexpected end of file");
      g_clear_error (&error);
      {
        WeftTrace *t = weft_trace_load (dir, NULL, NULL, &error);
        g_assert_null (t);
        g_assert_true (g_str_has_prefix (error->message, bad));
      }
    }
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/badinput/empty", test_empty);
  g_test_add_func ("/badinput/truncated", test_truncated_every_prefix);
  g_test_add_func ("/badinput/wrong-types", test_wrong_types);
  g_test_add_func ("/badinput/missing-fields", test_missing_fields);
  g_test_add_func ("/badinput/numbers", test_numbers);
  g_test_add_func ("/badinput/deep-nesting", test_deep_nesting);
  g_test_add_func ("/badinput/bad-utf8", test_bad_utf8);
  g_test_add_func ("/badinput/syntax", test_syntax);
  g_test_add_func ("/badinput/gzip", test_gzip);
  g_test_add_func ("/badinput/zstd", test_zstd);
  g_test_add_func ("/badinput/bomb", test_bomb);
  g_test_add_func ("/badinput/folders", test_folders);
  return g_test_run ();
}
