/* test-toplevel.c: huge unknown top-level values (issue 12, item 2). A
 * .json.zst whose top level holds a string of gigabytes (generated here,
 * streaming, with libzstd: well under 1 MB on disk) loads through the real
 * loader with a peak RSS far below the string's size (the value is scanned
 * in pieces and kept zstd-compressed in memory), and save -> reload gives
 * the byte-identical value in json, json.gz and json.zst, over the source
 * itself too. Also: errors inside a huge value carry the same byte offset
 * whatever the read size, the packing threshold, the values Weft parses
 * stay text, and a zstd bomb of events under a lowered WEFT_MAX_JSON_BYTES
 * is refused by weft-cli with an error naming the file.
 *
 * Size: WEFT_TEST_TOPLEVEL_MB (default 2048 MiB of string for the load;
 * the save round trips use 64 MiB, 64 times the packing threshold and 256
 * times the scan buffer, so that saving 2 GiB of plain JSON to disk does
 * not dominate the run). */
#include "config.h"

#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <zstd.h>

#include "core/jsonscan.h"
#include "core/reader.h"
#include "testutil.h"
#include "weft/weft-load.h"
#include "weft/weft-save.h"

#define EV "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":1.5,\"dur\":2}"

/* Peak RSS allowed for loading (and saving) a value of gigabytes: the
 * value must not be in memory as text. */
#define RSS_BOUND_MB 512

/* The string's body repeats this unit; its length (4099, coprime with
 * every power of two) makes the read boundaries fall at every offset of
 * it, inside escapes and UTF-8 sequences. */
static char unit[4099];

static void
make_unit (void)
{
  static const char *pieces[] = { "\\\"", "\\\\", "\\n", "\\u00e9", "\\ud83d\\ude00", "\xc3\xa9", "\xe2\x82\xac",
                                  "\xf0\x9f\x98\x80", "\\/", "\\t" };
  gsize n = 0;
  guint32 x = 12345;

  while (n < sizeof unit)
    {
      const char *piece;
      char one[2];
      x = x * 1103515245u + 12345u;
      if ((x >> 16) % 16 == 0)
        piece = pieces[(x >> 8) % G_N_ELEMENTS (pieces)];
      else
        {
          one[0] = (char) (' ' + 1 + (x >> 20) % 90);
          if (one[0] == '\\' || one[0] == '"')
            one[0] = 'x';
          one[1] = '\0';
          piece = one;
        }
      if (n + strlen (piece) > sizeof unit)
        piece = "a";
      memcpy (unit + n, piece, strlen (piece));
      n += strlen (piece);
    }
}

/* The value's text: '"', size bytes of the repeated unit (a whole number
 * of units), '"'. */
static gsize
value_len (gsize size)
{
  return size + 2;
}

/* Streams the parts of a file through a zstd encoder into path. */
typedef struct
{
  ZSTD_CStream *cs;
  FILE         *f;
  guchar        out[1 << 16];
} Zw;

static void
zw_put (Zw *w, const void *data, gsize len, ZSTD_EndDirective end)
{
  ZSTD_inBuffer in = { data, len, 0 };
  for (;;)
    {
      ZSTD_outBuffer ob = { w->out, sizeof w->out, 0 };
      size_t left = ZSTD_compressStream2 (w->cs, &ob, &in, end);
      g_assert_false (ZSTD_isError (left));
      g_assert_cmpuint (fwrite (w->out, 1, ob.pos, w->f), ==, ob.pos);
      if (end == ZSTD_e_end ? left == 0 : in.pos == in.size)
        break;
    }
}

/* {"schemaVersion":1,"junk":"<size bytes>","traceEvents":[EV],"after":{...}} */
static char *
write_huge_zst (const char *name, gsize size)
{
  char *path = g_build_filename (weft_test_tmpdir (), name, NULL);
  const char *head = "{\"schemaVersion\": 1, \"junk\": \"";
  const char *tail = "\", \"traceEvents\": [" EV "], \"after\": {\"a\": [1, 2.5e3, true, null, \"x\"]}}";
  g_autofree char *block = g_malloc (sizeof unit * 64);
  Zw w;

  for (int i = 0; i < 64; i++)
    memcpy (block + i * sizeof unit, unit, sizeof unit);
  w.cs = ZSTD_createCStream ();
  ZSTD_CCtx_setParameter (w.cs, ZSTD_c_compressionLevel, 3);
  w.f = fopen (path, "wb");
  g_assert_nonnull (w.f);
  zw_put (&w, head, strlen (head), ZSTD_e_continue);
  for (gsize done = 0; done < size;)
    {
      gsize n = MIN (size - done, sizeof unit * 64);
      zw_put (&w, block, n, ZSTD_e_continue);
      done += n;
    }
  zw_put (&w, tail, strlen (tail), ZSTD_e_end);
  g_assert_cmpint (fclose (w.f), ==, 0);
  ZSTD_freeCStream (w.cs);
  return path;
}

/* Compares a value's text, piece by piece, with what write_huge_zst wrote. */
typedef struct
{
  gsize size;
  gsize at;
  gboolean same;
} Cmp;

static gboolean
cmp_cb (const char *data, gsize len, gpointer user_data)
{
  Cmp *c = user_data;

  for (gsize i = 0; i < len && c->same;)
    {
      gsize at = c->at;
      if (at == 0 || at == c->size + 1)
        {
          c->same = data[i] == '"';
          i++;
          c->at++;
          continue;
        }
      {
        gsize off = (at - 1) % sizeof unit;
        gsize n = MIN (MIN (len - i, sizeof unit - off), c->size + 1 - at);
        c->same = memcmp (data + i, unit + off, n) == 0;
        i += n;
        c->at += n;
      }
    }
  return c->same;
}

static const WeftTopKey *
find_key (WeftRank *rank, const char *key)
{
  for (guint i = 0; i < rank->top_keys->len; i++)
    {
      const WeftTopKey *k = &g_array_index (rank->top_keys, WeftTopKey, i);
      if (strcmp (weft_rank_string (rank, k->key), key) == 0)
        return k;
    }
  return NULL;
}

static void
check_huge_value (WeftRank *rank, gsize size)
{
  const WeftTopKey *k = find_key (rank, "junk");
  g_autoptr (GError) error = NULL;
  Cmp c = { size, 0, TRUE };

  g_assert_nonnull (k);
  g_assert_null (k->raw);
  g_assert_nonnull (k->packed);
  g_assert_cmpuint (k->raw_len, ==, value_len (size));
  g_assert_true (weft_top_key_foreach (k, cmp_cb, &c, &error));
  g_assert_no_error (error);
  g_assert_true (c.same);
  g_assert_cmpuint (c.at, ==, value_len (size));
  /* the small values around it stay text, in file order */
  g_assert_cmpuint (rank->top_keys->len, ==, 3);
  g_assert_cmpuint (rank->trace_events_pos, ==, 2);
  g_assert_cmpstr (find_key (rank, "schemaVersion")->raw, ==, "1");
  g_assert_cmpstr (find_key (rank, "after")->raw, ==, "{\"a\": [1, 2.5e3, true, null, \"x\"]}");
  g_assert_cmpuint (rank->events->len, ==, 1);
}

static gsize
peak_rss_mb (void)
{
  struct rusage ru;
  g_assert_cmpint (getrusage (RUSAGE_SELF, &ru), ==, 0);
  return (gsize) ru.ru_maxrss / 1024; /* KiB on Linux */
}

static gsize
test_size (void)
{
  const char *env = g_getenv ("WEFT_TEST_TOPLEVEL_MB");
  guint64 mb = env != NULL ? g_ascii_strtoull (env, NULL, 10) : 2048;
  /* whole units: a cut one could end inside an escape */
  return ((gsize) MAX (mb, 2) << 20) / sizeof unit * sizeof unit;
}

static WeftRank *
load_rank (const char *path)
{
  g_autoptr (GError) error = NULL;
  WeftLoadOptions options = { 0 };
  WeftRank *rank;

  options.max_json_bytes = (guint64) 64 << 30; /* the cap is not what this tests */
  rank = weft_rank_load_file (path, &options, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (rank);
  return rank;
}

/* weft-cli info path under WEFT_MAX_JSON_BYTES=cap: fails, naming the
 * file, with what. */
static void
expect_cli_error (const char *path, const char *cap, const char *what)
{
  g_autofree char *cli = weft_test_build_path ("weft-cli");
  const char *argv[] = { cli, "info", path, NULL };
  g_auto (GStrv) env = g_environ_setenv (g_get_environ (), "WEFT_MAX_JSON_BYTES", cap, TRUE);
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr (GError) error = NULL;
  int status = 0;

  g_assert_true (g_file_test (cli, G_FILE_TEST_IS_EXECUTABLE));
  g_assert_true (g_spawn_sync (NULL, (char **) argv, env, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error));
  g_assert_no_error (error);
  g_test_message ("%s", err);
  g_assert_false (g_spawn_check_wait_status (status, NULL));
  g_assert_nonnull (strstr (err, path));
  g_assert_nonnull (strstr (err, what));
}

static void
test_huge_string (void)
{
  gsize size = test_size ();
  gsize small = MIN (size, ((gsize) 64 << 20) / sizeof unit * sizeof unit);
  g_autofree char *path = NULL;
  g_autofree char *path2 = NULL;
  struct stat st;

  make_unit ();
  path = write_huge_zst ("huge_trace.json.zst", size);
  g_assert_cmpint (stat (path, &st), ==, 0);
  g_test_message ("%.0f MiB of top-level string: %" G_GINT64_FORMAT " bytes of zstd", (double) size / (1 << 20),
                  (gint64) st.st_size);
  g_assert_cmpint (st.st_size, <, 1 << 20);
  {
    gint64 t0 = weft_test_now_ns ();
    WeftRank *rank = load_rank (path);
    gint64 t1 = weft_test_now_ns ();
    const WeftTopKey *k = find_key (rank, "junk");
    g_test_message ("loaded in %.2f s, kept as %" G_GSIZE_FORMAT " bytes of zstd, peak RSS %" G_GSIZE_FORMAT " MB",
                    (double) (t1 - t0) / 1e9, k->packed_len, peak_rss_mb ());
    check_huge_value (rank, size);
    g_assert_cmpuint (k->packed_len, <, 16u << 20);
    weft_rank_free (rank);
  }
  g_assert_cmpuint (peak_rss_mb (), <, RSS_BOUND_MB);
  /* the cap on decompressed bytes still counts a value kept compressed
   * (docs/loading.md, "Limits") */
  {
    gsize cap = MIN ((gsize) 256 << 20, size / 2);
    g_autofree char *cap_text = g_strdup_printf ("%" G_GSIZE_FORMAT, cap);
    g_autofree char *what = g_strdup_printf ("byte %" G_GSIZE_FORMAT ": the decompressed data exceeds the limit of %"
                                             G_GSIZE_FORMAT " bytes", cap, cap);
    expect_cli_error (path, cap_text, what);
  }
  /* the default cap is half the memory the process may have: under a
   * 1,000,000 KiB RLIMIT_AS, 512,000,000 bytes (not the physical memory's
   * half). Not under AddressSanitizer, whose shadow memory needs more
   * address space than any such limit leaves. */
#if !defined(__SANITIZE_ADDRESS__)
  if (size > 512000000)
  {
    g_autofree char *cli = weft_test_build_path ("weft-cli");
    const char *argv[] = { "/bin/sh", "-c", "ulimit -v 1000000 && exec \"$0\" info \"$1\"", cli, path, NULL };
    g_autofree char *err = NULL;
    int status = 0;
    g_auto (GStrv) env = g_environ_unsetenv (g_get_environ (), "WEFT_MAX_JSON_BYTES");
    g_assert_true (g_spawn_sync (NULL, (char **) argv, env, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err,
                                 &status, NULL));
    g_test_message ("%s", err);
    g_assert_false (g_spawn_check_wait_status (status, NULL));
    g_assert_nonnull (strstr (err, path));
    g_assert_nonnull (strstr (err, "byte 512000000: the decompressed data exceeds the limit of 512000000 bytes"));
  }
#endif

  /* save -> reload, in each format, the value byte-identical; the last
   * save goes over its own source */
  path2 = write_huge_zst ("huge2_trace.json.zst", small);
  {
    const char *exts[] = { ".json", ".json.gz", ".json.zst" };
    g_autofree char *from = g_strdup (path2);
    for (guint i = 0; i < G_N_ELEMENTS (exts); i++)
      {
        g_autofree char *to = g_strconcat (weft_test_tmpdir (), "/saved_trace", exts[i], NULL);
        WeftRank *rank = load_rank (from);
        g_autoptr (GError) error = NULL;
        gint64 t0 = weft_test_now_ns ();
        gboolean ok = weft_rank_save (rank, to, NULL, &error);
        g_assert_no_error (error);
        g_assert_true (ok);
        g_test_message ("saved %s in %.2f s", exts[i], (double) (weft_test_now_ns () - t0) / 1e9);
        weft_rank_free (rank);
        rank = load_rank (to);
        check_huge_value (rank, small);
        weft_rank_free (rank);
        if (i > 0)
          g_unlink (from);
        g_free (from);
        from = g_steal_pointer (&to);
      }
    /* over the source itself (atomic: a temporary renamed over it) */
    {
      WeftRank *rank = load_rank (from);
      g_autoptr (GError) error = NULL;
      g_assert_true (weft_rank_save (rank, from, NULL, &error));
      g_assert_no_error (error);
      weft_rank_free (rank);
      rank = load_rank (from);
      check_huge_value (rank, small);
      weft_rank_free (rank);
    }
    g_unlink (from);
  }
  g_test_message ("peak RSS after the round trips: %" G_GSIZE_FORMAT " MB", peak_rss_mb ());
  g_assert_cmpuint (peak_rss_mb (), <, RSS_BOUND_MB);
  g_unlink (path);
}

/* A file of JSON text, loaded with read sizes from 1 byte to the default:
 * the same result (or the same error) each time. */
static char *
load_text_all_chunks (const char *json, gsize len, WeftRank **rank_out)
{
  static const gsize chunks[] = { 0, 1, 2, 3, 7, 64, 4099 };
  char *msg0 = NULL;
  WeftRank *first = NULL;

  for (guint c = 0; c < G_N_ELEMENTS (chunks); c++)
    {
      g_autoptr (GError) error = NULL;
      WeftRank *rank;
      weft_json_scan_set_chunk_size (chunks[c]);
      rank = weft_rank_load_buffer ("t.json", json, len, NULL, &error);
      weft_json_scan_set_chunk_size (0);
      if (c == 0)
        {
          first = rank;
          msg0 = error != NULL ? g_strdup (error->message) : NULL;
          continue;
        }
      g_assert_cmpint (rank == NULL, ==, first == NULL);
      if (rank == NULL)
        g_assert_cmpstr (error->message, ==, msg0);
      else
        {
          g_assert_cmpuint (rank->top_keys->len, ==, first->top_keys->len);
          for (guint i = 0; i < rank->top_keys->len; i++)
            {
              const WeftTopKey *a = &g_array_index (rank->top_keys, WeftTopKey, i);
              const WeftTopKey *b = &g_array_index (first->top_keys, WeftTopKey, i);
              g_autofree char *ta = weft_top_key_dup_text (a, NULL);
              g_autofree char *tb = weft_top_key_dup_text (b, NULL);
              g_assert_cmpuint (a->raw_len, ==, b->raw_len);
              g_assert_cmpint (a->packed == NULL, ==, b->packed == NULL);
              g_assert_true (memcmp (ta, tb, a->raw_len) == 0);
            }
          weft_rank_free (rank);
        }
    }
  *rank_out = first;
  return msg0;
}

static void
test_pieces (void)
{
  GString *s = g_string_new ("{\"nested\": {\"a\": [1, -0.5e-3, \"\\ud83d\\ude00\xc3\xa9\", {}, [], {\"k\\\"\": null}], "
                             "\"b\" : true } , \"big\": \"");
  gsize big_at, len;
  WeftRank *rank;
  char *msg;

  make_unit ();
  /* a string just over the threshold: packed; one at it: text */
  while (s->len < 40 + WEFT_TOP_KEY_PACK_BYTES)
    g_string_append_len (s, unit, sizeof unit);
  big_at = strlen ("{\"nested\": {\"a\": [1, -0.5e-3, \"\\ud83d\\ude00\xc3\xa9\", {}, [], {\"k\\\"\": null}], "
                   "\"b\" : true } , \"big\": ");
  g_string_append (s, "\", \"edge\": \"");
  len = s->len;
  g_string_append_len (s, unit, sizeof unit);
  while (s->len - len < WEFT_TOP_KEY_PACK_BYTES - 2)
    g_string_append_c (s, 'z');
  g_string_truncate (s, len + WEFT_TOP_KEY_PACK_BYTES - 2);
  g_string_append (s, "\", \"distributedInfo\": {\"rank\": 1, \"pad\": \"");
  for (gsize i = 0; i < 2 * WEFT_TOP_KEY_PACK_BYTES; i++)
    g_string_append_c (s, 'p');
  g_string_append (s, "\"}, \"traceEvents\": [" EV "]}");

  msg = load_text_all_chunks (s->str, s->len, &rank);
  g_assert_null (msg);
  g_assert_cmpuint (rank->top_keys->len, ==, 4);
  g_assert_nonnull (find_key (rank, "nested")->raw);
  g_assert_cmpstr (find_key (rank, "nested")->raw, ==,
                   "{\"a\": [1, -0.5e-3, \"\\ud83d\\ude00\xc3\xa9\", {}, [], {\"k\\\"\": null}], \"b\" : true }");
  g_assert_nonnull (find_key (rank, "big")->packed);
  g_assert_cmpuint (find_key (rank, "big")->raw_len, >, WEFT_TOP_KEY_PACK_BYTES);
  {
    g_autofree char *t = weft_top_key_dup_text (find_key (rank, "big"), NULL);
    g_assert_true (memcmp (t, s->str + big_at, find_key (rank, "big")->raw_len) == 0);
  }
  g_assert_nonnull (find_key (rank, "edge")->raw);
  g_assert_cmpuint (find_key (rank, "edge")->raw_len, ==, WEFT_TOP_KEY_PACK_BYTES);
  /* Weft parses distributedInfo: text even when large */
  g_assert_nonnull (find_key (rank, "distributedInfo")->raw);
  g_assert_cmpint (rank->rank, ==, 1);
  weft_rank_free (rank);

  /* errors deep inside a huge value: the byte of the fault, whatever the
   * read size (the failing load is repeated with 1-byte reads: keep it
   * a few MiB) */
  {
    static const char *faults[] = { "\xff", "\\x", "\\ud800\\u0041", "\x01", "\xe2\x82" };
    static const char *whats[] = { "invalid UTF-8 byte 0xff", "invalid escape", "lone UTF-16 surrogate",
                                   "control character 0x01", "invalid UTF-8 sequence" };
    for (guint f = 0; f < G_N_ELEMENTS (faults); f++)
      {
        GString *b = g_string_new ("{\"traceEvents\": [], \"x\": [\"");
        g_autofree char *want = NULL;
        gsize at;
        while (b->len < 3 * WEFT_TOP_KEY_PACK_BYTES)
          g_string_append_len (b, unit, sizeof unit);
        at = b->len;
        g_string_append (b, faults[f]);
        g_string_append (b, "\"]}");
        msg = load_text_all_chunks (b->str, b->len, &rank);
        g_assert_null (rank);
        want = g_strdup_printf ("t.json: byte %" G_GSIZE_FORMAT ": %s", at, whats[f]);
        g_test_message ("%s", msg);
        g_assert_true (g_str_has_prefix (msg, want));
        g_free (msg);
        g_string_free (b, TRUE);
      }
  }
  /* truncated inside a huge value; a bad bracket after one */
  {
    GString *b = g_string_new ("{\"traceEvents\": [], \"x\": {\"k\": \"");
    while (b->len < 2 * WEFT_TOP_KEY_PACK_BYTES)
      g_string_append_len (b, unit, sizeof unit);
    len = b->len;
    msg = load_text_all_chunks (b->str, b->len, &rank);
    g_assert_null (rank);
    g_assert_true (g_str_has_suffix (msg, "unexpected end of file (truncated JSON)"));
    g_free (msg);
    g_string_append (b, "\"]}");
    msg = load_text_all_chunks (b->str, b->len, &rank);
    g_assert_null (rank);
    {
      g_autofree char *want = g_strdup_printf ("t.json: byte %" G_GSIZE_FORMAT ": unexpected ']', expected ',' or '}'",
                                               len + 1);
      g_assert_cmpstr (msg, ==, want);
    }
    g_free (msg);
    g_string_free (b, TRUE);
  }
  g_string_free (s, TRUE);
}

/* 1 MB of zstd holding many more bytes of events: refused by weft-cli
 * under a lowered WEFT_MAX_JSON_BYTES, with the file named; the default
 * cap is bounded by the memory of the machine. */
static void
test_event_bomb (void)
{
  g_autofree char *path = g_build_filename (weft_test_tmpdir (), "bomb_trace.json.zst", NULL);
  const char *head = "{\"traceEvents\": [" EV;
  g_autofree char *block = NULL;
  gsize ev_len = strlen ("," EV);
  Zw w;

  block = g_malloc (ev_len * 1024);
  for (int i = 0; i < 1024; i++)
    memcpy (block + i * ev_len, "," EV, ev_len);
  w.cs = ZSTD_createCStream ();
  ZSTD_CCtx_setParameter (w.cs, ZSTD_c_compressionLevel, 3);
  w.f = fopen (path, "wb");
  zw_put (&w, head, strlen (head), ZSTD_e_continue);
  for (int i = 0; i < 4096; i++) /* 4M events, 300 MB of JSON */
    zw_put (&w, block, ev_len * 1024, ZSTD_e_continue);
  zw_put (&w, "]}", 2, ZSTD_e_end);
  fclose (w.f);
  ZSTD_freeCStream (w.cs);

  /* 75-byte events take 88-byte records plus their text: the memory
   * bound trips before the cap on JSON bytes */
  expect_cli_error (path, "64M", "the events take more than 67633152 bytes of memory");
  {
    struct stat st;
    g_assert_cmpint (stat (path, &st), ==, 0);
    g_assert_cmpint (st.st_size, <, 1 << 20);
  }
  /* the default cap: never more than half the memory this process may use */
  {
    long pages = sysconf (_SC_PHYS_PAGES), page = sysconf (_SC_PAGESIZE);
    g_assert_cmpuint (weft_reader_default_limit (), <=, (guint64) pages * (guint64) page / 2);
  }
  g_unlink (path);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/toplevel/pieces", test_pieces);
  g_test_add_func ("/toplevel/huge-string", test_huge_string);
  g_test_add_func ("/toplevel/event-bomb", test_event_bomb);
  return g_test_run ();
}
