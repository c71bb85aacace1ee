/* test-badinput-more.c: the bad inputs of issue 12 that the first fuzzers
 * never reached: FIFOs, decompressed sizes beyond memory, times near the
 * int64 limits, negative durations, NUL in names, skippable zstd frames,
 * ranks that cannot be one job, unreadable folders. Every error names the
 * file; nothing hangs (an alarm fails the test) or aborts. */
#include "config.h"

#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "testutil.h"
#include "weft/weft-load.h"

#define EV "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":1.5,\"dur\":2}"

static char *
mkdir_tmp (const char *name)
{
  char *dir = g_build_filename (weft_test_tmpdir (), name, NULL);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  return dir;
}

static void
write_in (const char *dir, const char *name, const char *text)
{
  g_autofree char *p = g_build_filename (dir, name, NULL);
  g_assert_true (g_file_set_contents (p, text, -1, NULL));
}

/* Loads path, expects code, and each of the NULL-terminated substrings. */
static void
expect_load_error (const char *path, const WeftLoadOptions *options, int code, ...)
{
  g_autoptr (GError) error = NULL;
  WeftTrace *t;
  va_list ap;
  const char *what;

  alarm (60); /* a hang is a failure */
  t = weft_trace_load (path, options, NULL, &error);
  alarm (0);
  if (t != NULL)
    g_error ("%s: loaded, expected an error", path);
  g_test_message ("%s", error->message);
  if (!g_error_matches (error, WEFT_ERROR, code))
    g_error ("%s: code %d (%s), expected %d", path, error->code, error->message, code);
  va_start (ap, code);
  while ((what = va_arg (ap, const char *)) != NULL)
    if (strstr (error->message, what) == NULL)
      g_error ("message \"%s\" lacks \"%s\"", error->message, what);
  va_end (ap);
}

static WeftTrace *
load_ok (const char *path)
{
  g_autoptr (GError) error = NULL;
  WeftTrace *t;

  alarm (60);
  t = weft_trace_load (path, NULL, NULL, &error);
  alarm (0);
  g_assert_no_error (error);
  return t;
}

static gboolean
has_warning (WeftTrace *t, const char *a, const char *b)
{
  for (guint i = 0; i < t->warnings->len; i++)
    {
      const char *w = t->warnings->pdata[i];
      g_test_message ("warning: %s", w);
      if (strstr (w, a) != NULL && (b == NULL || strstr (w, b) != NULL))
        return TRUE;
    }
  return FALSE;
}

static void
test_fifo (void)
{
  g_autofree char *dir = mkdir_tmp ("fifo");
  g_autofree char *f = g_build_filename (dir, "f.json", NULL);
  g_autofree char *cfg = g_build_filename (dir, "config.json", NULL);

  g_assert_cmpint (mkfifo (f, 0600), ==, 0);
  expect_load_error (f, NULL, WEFT_ERROR_IO, f, "FIFO", NULL);
  /* in a folder: skipped with a warning, even when only the content sniff
   * would open it */
  g_assert_cmpint (mkfifo (cfg, 0600), ==, 0);
  g_assert_cmpint (unlink (f), ==, 0);
  g_assert_cmpint (mkfifo (f, 0600), ==, 0);
  write_in (dir, "rank0_trace.json", "{\"traceEvents\":[" EV "]}");
  {
    g_autoptr (WeftTrace) t = load_ok (dir);
    g_assert_cmpuint (t->ranks->len, ==, 1);
    g_assert_true (has_warning (t, cfg, "FIFO"));
    g_assert_true (has_warning (t, f, "skipped"));
  }
  /* a folder of nothing but FIFOs: no trace, and the message says why */
  {
    g_autofree char *only = mkdir_tmp ("fifo-only");
    g_autofree char *p = g_build_filename (only, "rank0_trace.json", NULL);
    g_assert_cmpint (mkfifo (p, 0600), ==, 0);
    expect_load_error (only, NULL, WEFT_ERROR_NO_TRACE, only, "FIFO", NULL);
  }
}

/* zstd of {"junk":"aaa...(n)...", "traceEvents":[]} made on the fly */
static char *
write_huge_string_zst (const char *name, gsize n)
{
  ZSTD_CStream *cs = ZSTD_createCStream ();
  GByteArray *out = g_byte_array_new ();
  g_autofree char *block = g_malloc (1 << 20);
  guchar obuf[1 << 16];
  const char *head = "{\"junk\":\"", *tail = "\",\"traceEvents\":[" EV "]}";
  char *path;

  memset (block, 'a', 1 << 20);
  ZSTD_initCStream (cs, 1);
  for (int part = 0; part < 3; part++)
    {
      gsize todo = part == 1 ? n : strlen (part == 0 ? head : tail);
      while (todo > 0)
        {
          const char *src = part == 0 ? head : part == 2 ? tail : block;
          gsize len = part == 1 ? MIN (todo, (gsize) 1 << 20) : todo;
          ZSTD_inBuffer in = { src, len, 0 };
          while (in.pos < in.size)
            {
              ZSTD_outBuffer ob = { obuf, sizeof obuf, 0 };
              g_assert_false (ZSTD_isError (ZSTD_compressStream (cs, &ob, &in)));
              g_byte_array_append (out, obuf, (guint) ob.pos);
            }
          todo -= len;
        }
    }
  for (;;)
    {
      ZSTD_outBuffer ob = { obuf, sizeof obuf, 0 };
      size_t left = ZSTD_endStream (cs, &ob);
      g_byte_array_append (out, obuf, (guint) ob.pos);
      if (left == 0)
        break;
    }
  ZSTD_freeCStream (cs);
  path = weft_test_write_file (name, (const char *) out->data, out->len);
  g_byte_array_free (out, TRUE);
  return path;
}

static void
test_huge_values (void)
{
  WeftLoadOptions cap = { 0 };
  g_autofree char *p = write_huge_string_zst ("huge-string.json.zst", (gsize) 64 << 20);

  /* 64 MiB of string under a 16 MiB cap: a clean error, not an abort */
  cap.max_json_bytes = 16u << 20;
  expect_load_error (p, &cap, WEFT_ERROR_TOO_LARGE, p, "byte 16777216: ", "exceeds the limit", NULL);
  /* events whose records take more memory than the cap allows */
  {
    GString *s = g_string_new ("{\"traceEvents\":[");
    g_autofree char *path = NULL;
    for (int i = 0; i < 200000; i++)
      g_string_append (s, i ? ",{}" : "{}");
    g_string_append (s, "]}");
    path = weft_test_write_file ("tiny-events.json", s->str, (gssize) s->len);
    cap.max_json_bytes = s->len + 16; /* the JSON fits; 200k records of 88 bytes do not */
    expect_load_error (path, &cap, WEFT_ERROR_TOO_LARGE, path, "bytes of memory", NULL);
    g_string_free (s, TRUE);
  }
  /* the same huge string loads under a cap that allows it */
  cap.max_json_bytes = 128u << 20;
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (WeftTrace) t = weft_trace_load (p, &cap, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (weft_trace_rank (t, 0)->events->len, ==, 1);
  }
}

static void
test_skippable_zstd (void)
{
  const char *json = "{\"traceEvents\":[" EV "]}";
  gsize bound = ZSTD_compressBound (strlen (json));
  g_autofree guchar *buf = g_malloc (bound + 16);
  gsize n;
  g_autofree char *p = NULL;

  /* a skippable frame (magic 0x184D2A5?, 4-byte size, payload) first, as pzstd writes */
  buf[0] = 0x53, buf[1] = 0x2a, buf[2] = 0x4d, buf[3] = 0x18;
  buf[4] = 4, buf[5] = buf[6] = buf[7] = 0;
  memcpy (buf + 8, "pzst", 4);
  n = ZSTD_compress (buf + 12, bound, json, strlen (json), 3);
  g_assert_false (ZSTD_isError (n));
  p = weft_test_write_file ("pzstd_trace.json.zst", (const char *) buf, (gssize) (n + 12));
  {
    g_autoptr (WeftTrace) t = load_ok (p);
    g_assert_cmpuint (weft_trace_rank (t, 0)->events->len, ==, 1);
  }
}

static void
test_times_and_names (void)
{
  /* a negative dur: clamped to 0, counted, reported */
  {
    g_autofree char *p = weft_test_write_file (
      "negdur_trace.json",
      "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":-5}," EV "]}", -1);
    g_autoptr (WeftTrace) t = load_ok (p);
    WeftRank *r = weft_trace_rank (t, 0);
    g_assert_cmpint (weft_event_dur (r, weft_rank_event (r, 0)), ==, 0);
    g_assert_cmpuint (r->n_negative_dur, ==, 1);
    g_assert_true (has_warning (t, p, "negative \"dur\""));
  }
  /* int64-limit times: refused at load with the byte */
  {
    g_autofree char *p = weft_test_write_file (
      "int64_trace.json",
      "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":9223372036854775.807,\"dur\":1}]}", -1);
    expect_load_error (p, NULL, WEFT_ERROR_FORMAT, p, "byte 58:", "2^62 ns", NULL);
  }
  /* \u0000 in a name would cut the interned string: refused */
  {
    g_autofree char *p = weft_test_write_file (
      "nul_trace.json", "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"ab\\u0000cd\",\"ts\":1}]}", -1);
    expect_load_error (p, NULL, WEFT_ERROR_FORMAT, p, "byte 33:", "NUL", NULL);
  }
  /* an escaped backslash followed by u0000 is no NUL */
  {
    g_autofree char *p = weft_test_write_file (
      "notnul_trace.json", "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"ab\\\\u0000cd\",\"ts\":1}]}", -1);
    g_autoptr (WeftTrace) t = load_ok (p);
    WeftRank *r = weft_trace_rank (t, 0);
    g_assert_cmpstr (weft_rank_string (r, weft_rank_event (r, 0)->name), ==, "ab\\u0000cd");
  }
}

static void
test_one_job (void)
{
  /* rank 2147483647 (used to overflow the rank table's key) */
  {
    g_autofree char *dir = mkdir_tmp ("maxrank");
    write_in (dir, "a_trace.json", "{\"distributedInfo\":{\"rank\":2147483647},\"traceEvents\":[" EV "]}");
    write_in (dir, "b_trace.json", "{\"traceEvents\":[" EV "]}");
    {
      g_autoptr (WeftTrace) t = load_ok (dir);
      g_assert_cmpuint (t->ranks->len, ==, 2);
      g_assert_cmpint (weft_trace_rank (t, 1)->rank, ==, G_MAXINT);
    }
  }
  /* a rank beyond world_size */
  {
    g_autofree char *dir = mkdir_tmp ("beyond");
    g_autofree char *bad = g_build_filename (dir, "rank3_trace.json", NULL);
    for (int r = 0; r < 4; r++)
      {
        g_autofree char *name = g_strdup_printf ("rank%d_trace.json", r);
        g_autofree char *text =
          g_strdup_printf ("{\"distributedInfo\":{\"rank\":%d,\"world_size\":%d},\"traceEvents\":[" EV "]}", r,
                           r < 2 ? 4 : 4);
        write_in (dir, name, text);
      }
    write_in (dir, "rank3_trace.json", "{\"distributedInfo\":{\"rank\":5,\"world_size\":4},\"traceEvents\":[" EV "]}");
    expect_load_error (dir, NULL, WEFT_ERROR_DUPLICATE_RANK, bad, "rank 5", "world_size 4", NULL);
  }
  /* two jobs in one folder: two world sizes */
  {
    g_autofree char *dir = mkdir_tmp ("twojobs");
    g_autofree char *a = g_build_filename (dir, "job_a_rank0_trace.json", NULL);
    g_autofree char *b = g_build_filename (dir, "job_b_rank1_trace.json", NULL);
    write_in (dir, "job_a_rank0_trace.json",
              "{\"distributedInfo\":{\"rank\":0,\"world_size\":2},\"traceEvents\":[" EV "]}");
    write_in (dir, "job_b_rank1_trace.json",
              "{\"distributedInfo\":{\"rank\":1,\"world_size\":8},\"traceEvents\":[" EV "]}");
    expect_load_error (dir, NULL, WEFT_ERROR_DUPLICATE_RANK, a, b, "not one job", NULL);
  }
  /* two jobs of the same world size: duplicate ranks */
  {
    g_autofree char *dir = mkdir_tmp ("twojobs-same");
    for (int j = 0; j < 2; j++)
      for (int r = 0; r < 2; r++)
        {
          g_autofree char *name = g_strdup_printf ("job%d_worker%d_trace.json", j, r);
          g_autofree char *text =
            g_strdup_printf ("{\"distributedInfo\":{\"rank\":%d,\"world_size\":2},\"traceEvents\":[" EV "]}", r);
          write_in (dir, name, text);
        }
    expect_load_error (dir, NULL, WEFT_ERROR_DUPLICATE_RANK, "job0_worker0_trace.json", "job1_worker0_trace.json",
                       "also claimed", NULL);
  }
}

static void
test_unreadable_folder (void)
{
  g_autofree char *dir = mkdir_tmp ("unreadable");
  g_autofree char *sub = g_build_filename (dir, "locked", NULL);

  write_in (dir, "rank0_trace.json", "{\"traceEvents\":[" EV "]}");
  g_assert_cmpint (g_mkdir_with_parents (sub, 0755), ==, 0);
  write_in (sub, "rank1_trace.json", "{\"traceEvents\":[" EV "]}");
  if (geteuid () == 0)
    {
      /* root reads any folder: the message path is tested through a
       * folder deeper than the walk goes instead */
      g_autofree char *deep = g_build_filename (dir, "1/2/3/4/5/6/7/8/9/10", NULL);
      g_assert_cmpint (g_mkdir_with_parents (deep, 0755), ==, 0);
      write_in (deep, "rank9_trace.json", "{\"traceEvents\":[" EV "]}");
      {
        g_autoptr (WeftTrace) t = load_ok (dir);
        g_assert_cmpuint (t->ranks->len, ==, 2);
        g_assert_true (has_warning (t, "folders deep", NULL));
      }
      g_test_skip ("running as root: chmod 000 cannot make a folder unreadable (tested the deep-folder warning)");
      return;
    }
  g_assert_cmpint (chmod (sub, 0), ==, 0);
  {
    g_autoptr (WeftTrace) t = load_ok (dir);
    g_assert_cmpuint (t->ranks->len, ==, 1);
    g_assert_true (has_warning (t, sub, "cannot read this folder"));
  }
  g_assert_cmpint (chmod (dir, 0), ==, 0);
  expect_load_error (dir, NULL, WEFT_ERROR_IO, dir, "cannot read this folder", NULL);
  chmod (dir, 0755);
  chmod (sub, 0755);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/badinput-more/fifo", test_fifo);
  g_test_add_func ("/badinput-more/huge-values", test_huge_values);
  g_test_add_func ("/badinput-more/skippable-zstd", test_skippable_zstd);
  g_test_add_func ("/badinput-more/times-and-names", test_times_and_names);
  g_test_add_func ("/badinput-more/one-job", test_one_job);
  g_test_add_func ("/badinput-more/unreadable-folder", test_unreadable_folder);
  return g_test_run ();
}
