/* test-load-pipe.c: one big file loaded on several threads (the reader's
 * read-ahead thread and the text store's packing thread, docs/loading.md
 * "One big file on several cores") against the same file on one thread:
 * the same model, the same blocks, the same errors word for word, and
 * progress and cancellation as before. Real loader, real files. */
#include "config.h"

#include <string.h>

#include "core/jsonscan.h"
#include "core/reader.h"
#include "testutil.h"

/* A trace of n events (~9 MB for 40,000): many text blocks, many read-ahead
 * chunks; random padding so that zstd and gzip do not shrink it to nothing. */
static GString *
big_trace (guint n, guint32 seed)
{
  GString *s = g_string_new ("{\"schemaVersion\":1,\"traceEvents\":[");
  GRand *rnd = g_rand_new_with_seed (seed);

  for (guint i = 0; i < n; i++)
    {
      guint pad = (guint) g_rand_int_range (rnd, 0, 360);
      g_string_append_printf (s, "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%u\",\"pid\":0,\"tid\":%u,"
                              "\"ts\":%u.%03u,\"dur\":%u,\"args\":{\"correlation\":%u,\"p\":\"",
                              i ? "," : "", i % 53, 7 + i % 3, 1000 + i * 3, i % 1000, 1 + i % 17, i);
      for (guint k = 0; k < pad; k++)
        g_string_append_c (s, (char) ('a' + g_rand_int_range (rnd, 0, 26)));
      g_string_append (s, "\"}}");
    }
  g_string_append (s, "],\"baseTimeNanoseconds\":1000}");
  g_rand_free (rnd);
  return s;
}

/* The three files of one text: plain, gzip and zstd. */
static void
write_three (const char *stem, const char *data, gsize len, char *paths[3])
{
  gsize n = 0;
  g_autofree char *plain = g_strdup_printf ("%s.json", stem);
  g_autofree char *gzn = g_strdup_printf ("%s.json.gz", stem);
  g_autofree char *zsn = g_strdup_printf ("%s.json.zst", stem);
  g_autofree char *gz = weft_test_gzip_bytes (data, len, &n);
  g_autofree char *zs = NULL;

  paths[0] = weft_test_write_file (plain, data, (gssize) len);
  paths[1] = weft_test_write_file (gzn, gz, (gssize) n);
  zs = weft_test_zstd_bytes (data, len, &n);
  paths[2] = weft_test_write_file (zsn, zs, (gssize) n);
}

static WeftTrace *
load_one (const char *path, gboolean sequential, gboolean pack_gz, GError **error)
{
  WeftLoadOptions options = { 0 };

  options.n_threads = 2;
  options.sequential = sequential;
  options.pack_gzip_texts = pack_gz;
  return weft_trace_load (path, &options, NULL, error);
}

/* Two loads of one file: the same events, texts and blocks. pack_gz: a
 * .json.gz's texts packed as a plain file's (else the kept file holds
 * them, and nothing is packed). */
static void
assert_same_load (const char *path, gboolean pack_gz)
{
  g_autoptr (GError) e1 = NULL;
  g_autoptr (GError) e2 = NULL;
  g_autoptr (WeftTrace) a = load_one (path, TRUE, pack_gz, &e1);
  g_autoptr (WeftTrace) b = load_one (path, FALSE, pack_gz, &e2);
  gboolean gz = g_str_has_suffix (path, ".gz") && !pack_gz;
  WeftRank *ra, *rb;
  WeftTextStats sa, sb;
  g_autoptr (WeftTextCursor) ca = NULL;
  g_autoptr (WeftTextCursor) cb = NULL;

  g_assert_no_error (e1);
  g_assert_no_error (e2);
  g_assert_cmpuint (a->ranks->len, ==, 1);
  g_assert_cmpuint (b->ranks->len, ==, 1);
  ra = weft_trace_rank (a, 0);
  rb = weft_trace_rank (b, 0);
  g_assert_cmpuint (ra->events->len, ==, rb->events->len);
  g_assert_cmpuint (ra->top_keys->len, ==, rb->top_keys->len);
  weft_rank_text_stats (ra, &sa);
  weft_rank_text_stats (rb, &sb);
  g_assert_cmpuint (sa.n_texts, ==, sb.n_texts);
  g_assert_cmpuint (sa.n_blocks, ==, sb.n_blocks);
  g_assert_cmpuint (sa.text_bytes, ==, sb.text_bytes);
  g_assert_cmpuint (sa.block_bytes, ==, sb.block_bytes);
  g_assert_cmpuint (sa.stored_bytes, ==, sb.stored_bytes);
  g_assert_cmpint (sa.gzip_backed, ==, gz);
  g_assert_cmpint (sb.gzip_backed, ==, gz);
  /* the pipelined load packed its blocks on its thread, the last partial
   * one too (else this compared two loads on one thread); a kept .json.gz
   * packs none */
  g_assert_cmpuint (sa.n_blocks_packed_aside, ==, 0);
  g_assert_cmpuint (sb.n_blocks, >, 1);
  g_assert_cmpuint (sb.n_blocks_packed_aside, ==, gz ? 0 : sb.n_blocks);
  ca = weft_text_cursor_new (ra);
  cb = weft_text_cursor_new (rb);
  for (guint i = 0; i < ra->events->len; i++)
    {
      const WeftEvent *ea = weft_rank_event (ra, i), *eb = weft_rank_event (rb, i);
      gsize la = 0, lb = 0;
      const char *ta = weft_text_cursor_get (ca, ea, &la);
      const char *tb = weft_text_cursor_get (cb, eb, &lb);
      g_assert_cmpint (ea->ts, ==, eb->ts);
      g_assert_cmpint (weft_event_dur (ra, ea), ==, weft_event_dur (rb, eb));
      g_assert_cmpuint (ea->ph, ==, eb->ph);
      g_assert_cmpuint (ea->lane, ==, eb->lane);
      g_assert_cmpuint (ea->kclass, ==, eb->kclass);
      g_assert_cmpint (weft_event_correlation (ra, ea), ==, weft_event_correlation (rb, eb));
      g_assert_cmpstr (weft_rank_string (ra, ea->name), ==, weft_rank_string (rb, eb->name));
      g_assert_true ((ta == NULL) == (tb == NULL));
      g_assert_cmpuint (la, ==, lb);
      if (ta != NULL)
        g_assert_cmpint (memcmp (ta, tb, la), ==, 0);
    }
}

static void
test_same_as_sequential (void)
{
  g_autoptr (GString) s = big_trace (40000, 18);
  char *paths[3];
  g_autofree char *shared = weft_test_trace_path ("HolisticTraceAnalysis/df_index_resolver/df_index_resolver.json.gz");

  g_assert_cmpuint (s->len, >, 8u << 20);
  write_three ("big", s->str, s->len, paths);
  for (guint i = 0; i < 3; i++)
    {
      assert_same_load (paths[i], FALSE);
      if (i == 1)
        assert_same_load (paths[i], TRUE);
      g_free (paths[i]);
    }
  if (shared != NULL)
    {
      assert_same_load (shared, FALSE);
      assert_same_load (shared, TRUE);
    }
  else
    g_test_message ("df_index_resolver absent: generated files only");
}

/* The reader with and without its read-ahead thread, through the same
 * random read sizes: the same bytes, counts and, on damaged data, a prefix
 * of the same bytes and the same kind of error. */
static void
compare_reads (const char *path, gboolean damaged)
{
  GRand *rnd = g_rand_new_with_seed (7);
  GByteArray *got[2] = { g_byte_array_new (), g_byte_array_new () };
  GError *errors[2] = { NULL, NULL };
  guint64 raw_end[2] = { 0, 0 }, out_end[2] = { 0, 0 };
  g_autoptr (GArray) sizes = g_array_new (FALSE, FALSE, sizeof (gsize));
  char *buf = g_malloc (700u << 10);

  for (guint i = 0; i < 4096; i++)
    {
      gsize n = (gsize) g_rand_int_range (rnd, 1, 700 << 10);
      g_array_append_val (sizes, n);
    }
  for (guint mode = 0; mode < 2; mode++)
    {
      WeftReader *r = weft_reader_open (path, &errors[mode]);
      g_assert_no_error (errors[mode]);
      weft_reader_set_limit (r, 0);
      if (mode == 1)
        g_assert_true (weft_reader_start_read_ahead (r));
      for (guint i = 0;; i++)
        {
          gsize want = g_array_index (sizes, gsize, i % sizes->len);
          gssize n = weft_reader_read (r, buf, want, &errors[mode]);
          if (n < 0)
            break;
          g_assert_no_error (errors[mode]);
          /* filled fully unless the data ends */
          if (n == 0)
            break;
          g_byte_array_append (got[mode], (guint8 *) buf, (guint) n);
          g_assert_cmpuint (weft_reader_bytes_out (r), ==, got[mode]->len);
          g_assert_cmpuint (weft_reader_raw_done (r), <=, weft_reader_raw_size (r));
        }
      raw_end[mode] = weft_reader_raw_done (r);
      out_end[mode] = weft_reader_bytes_out (r);
      weft_reader_free (r);
    }
  if (!damaged)
    {
      g_assert_no_error (errors[0]);
      g_assert_no_error (errors[1]);
      g_assert_cmpuint (got[0]->len, ==, got[1]->len);
      g_assert_cmpint (memcmp (got[0]->data, got[1]->data, got[0]->len), ==, 0);
      g_assert_cmpuint (raw_end[0], ==, raw_end[1]);
      g_assert_cmpuint (out_end[0], ==, out_end[1]);
    }
  else
    {
      g_assert_nonnull (errors[0]);
      g_assert_nonnull (errors[1]);
      g_assert_cmpuint (errors[0]->domain, ==, errors[1]->domain);
      g_assert_cmpint (errors[0]->code, ==, errors[1]->code);
      g_assert_cmpuint (got[1]->len, <=, got[0]->len);
      g_assert_cmpint (memcmp (got[0]->data, got[1]->data, got[1]->len), ==, 0);
    }
  g_clear_error (&errors[0]);
  g_clear_error (&errors[1]);
  g_byte_array_free (got[0], TRUE);
  g_byte_array_free (got[1], TRUE);
  g_free (buf);
  g_rand_free (rnd);
}

static void
test_reader_read_ahead (void)
{
  g_autoptr (GString) s = big_trace (30000, 5);
  char *paths[3];
  gsize n = 0;
  g_autofree char *gz = weft_test_gzip_bytes (s->str, s->len, &n);
  g_autofree char *cut = weft_test_write_file ("rcut.json.gz", gz, (gssize) (n * 3 / 5));
  g_autofree char *corrupt = NULL;

  write_three ("reads", s->str, s->len, paths);
  for (guint i = 0; i < 3; i++)
    {
      compare_reads (paths[i], FALSE);
      g_free (paths[i]);
    }
  compare_reads (cut, TRUE);
  for (gsize i = n / 2; i < n / 2 + 64; i++)
    gz[i] ^= 0x55;
  corrupt = weft_test_write_file ("rcorrupt.json.gz", gz, (gssize) n);
  compare_reads (corrupt, TRUE);
}

/* path loads with neither pipeline nor one: the same error, word for word
 * (code < 0, what NULL: whatever error a load on one thread gives). */
static void
assert_same_error (const char *path, const WeftLoadOptions *base, int code, const char *what)
{
  WeftLoadOptions o1 = *base, o2 = *base;
  g_autoptr (GError) e1 = NULL;
  g_autoptr (GError) e2 = NULL;
  WeftTrace *a, *b;

  o1.n_threads = o2.n_threads = 2;
  o1.sequential = TRUE;
  a = weft_trace_load (path, &o1, NULL, &e1);
  b = weft_trace_load (path, &o2, NULL, &e2);
  g_assert_null (a);
  g_assert_null (b);
  g_assert_nonnull (e1);
  g_assert_nonnull (e2);
  if (code >= 0)
    g_assert_error (e1, WEFT_ERROR, code);
  g_assert_error (e2, e1->domain, e1->code);
  g_test_message ("%s", e2->message);
  g_assert_cmpstr (e1->message, ==, e2->message);
  g_assert_true (what == NULL || strstr (e2->message, what) != NULL);
}

static void
test_errors_same (void)
{
  g_autoptr (GString) s = big_trace (40000, 9);
  WeftLoadOptions none = { 0 }, cap = { 0 };
  gsize n = 0;
  g_autofree char *gz = weft_test_gzip_bytes (s->str, s->len, &n);
  g_autofree char *cut = weft_test_write_file ("cut.json.gz", gz, (gssize) (n * 3 / 5));
  g_autofree char *bad_gz = g_memdup2 (gz, n);
  g_autofree char *corrupt = NULL;
  g_autofree char *garbage = NULL;
  g_autofree char *both = NULL;
  char *paths[3];

  assert_same_error (cut, &none, WEFT_ERROR_COMPRESSION, "truncated gzip");
  for (gsize i = n / 2; i < n / 2 + 64; i++)
    bad_gz[i] ^= 0x55;
  corrupt = weft_test_write_file ("corrupt.json.gz", bad_gz, (gssize) n);
  assert_same_error (corrupt, &none, -1, NULL); /* zlib may inflate the damage into bad JSON */
  {
    GByteArray *b = g_byte_array_new ();
    g_byte_array_append (b, (guint8 *) gz, (guint) n);
    g_byte_array_append (b, (const guint8 *) "junk", 4);
    garbage = weft_test_write_file ("garbage.json.gz", (char *) b->data, b->len);
    g_byte_array_free (b, TRUE);
  }
  assert_same_error (garbage, &none, WEFT_ERROR_COMPRESSION, "data after the end");
  /* bad JSON at 70 % of the text, in all three forms */
  {
    g_autoptr (GString) t = g_string_new_len (s->str, (gssize) s->len);
    char *at = strstr (t->str + t->len * 7 / 10, "\"dur\":");
    g_assert_nonnull (at);
    at[6] = '+';
    write_three ("badjson", t->str, t->len, paths);
    for (guint i = 0; i < 3; i++)
      {
        g_autofree char *want = g_strdup_printf ("byte %" G_GSIZE_FORMAT ":", (gsize) (at + 6 - t->str));
        assert_same_error (paths[i], &none, WEFT_ERROR_FORMAT, want);
        g_free (paths[i]);
      }
    /* a JSON error early and a gzip one later: the JSON one, as on one thread */
    {
      gsize m = 0;
      g_autofree char *g2 = NULL;
      at = strstr (t->str + t->len / 10, "\"dur\":");
      at[6] = '+';
      g2 = weft_test_gzip_bytes (t->str, t->len, &m);
      for (gsize i = m * 9 / 10; i < m * 9 / 10 + 64; i++)
        g2[i] ^= 0x55;
      both = weft_test_write_file ("both.json.gz", g2, (gssize) m);
      assert_same_error (both, &none, WEFT_ERROR_FORMAT, "byte ");
    }
  }
  /* the cap on decompressed bytes */
  write_three ("capped", s->str, s->len, paths);
  cap.max_json_bytes = 3u << 20;
  for (guint i = 0; i < 3; i++)
    {
      assert_same_error (paths[i], &cap, WEFT_ERROR_TOO_LARGE, "exceeds the limit of 3145728 bytes");
      g_free (paths[i]);
    }
}

static void
test_progress_cancel (void)
{
  g_autoptr (GString) s = big_trace (60000, 3);
  char *paths[3];

  write_three ("progress", s->str, s->len, paths);
  for (guint i = 0; i < 3; i++)
    {
      for (guint mode = 0; mode < 4; mode++)
        {
          gboolean cancelled = mode & 1;
          g_autoptr (GCancellable) cancel = cancelled ? g_cancellable_new () : NULL;
          g_autoptr (GError) error = NULL;
          WeftLoadOptions options = { 0 };
          WeftTestProgress log = { 0 };
          WeftTrace *trace;

          log.monotonic = TRUE;
          log.cancel = cancel;
          g_mutex_init (&log.lock);
          options.n_threads = 2;
          options.sequential = mode >= 2;
          options.progress = weft_test_progress_cb;
          options.progress_data = &log;
          weft_json_scan_set_chunk_size (4096); /* many chunks, so many progress reports */
          trace = weft_trace_load (paths[i], &options, cancel, &error);
          weft_json_scan_set_chunk_size (0);
          g_assert_true (log.monotonic);
          if (cancelled)
            {
              g_assert_null (trace);
              g_assert_error (error, WEFT_ERROR, WEFT_ERROR_CANCELLED);
              g_assert_true (strstr (error->message, "loading cancelled") != NULL);
              g_assert_cmpuint (log.last_done, <, log.total);
            }
          else
            {
              g_assert_no_error (error);
              g_assert_nonnull (trace);
              g_assert_cmpuint (log.calls, >=, 2);
              g_assert_cmpuint (log.last_done, ==, log.total);
              weft_trace_free (trace);
            }
          g_mutex_clear (&log.lock);
        }
      g_free (paths[i]);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_unsetenv ("WEFT_LOAD_SEQUENTIAL"); /* the pipelined loads must be pipelined */
  g_test_add_func ("/load-pipe/same-as-sequential", test_same_as_sequential);
  g_test_add_func ("/load-pipe/reader-read-ahead", test_reader_read_ahead);
  g_test_add_func ("/load-pipe/errors-same", test_errors_same);
  g_test_add_func ("/load-pipe/progress-cancel", test_progress_cancel);
  return g_test_run ();
}
