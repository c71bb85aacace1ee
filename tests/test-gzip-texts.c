/* test-gzip-texts.c: a .json.gz's event texts read back from the gzip file
 * kept as it was read (gzindex-private.h, docs/loading.md "A .json.gz keeps
 * its own stream"), against the same texts loaded from the plain file and
 * packed with zstd: every text the same, in order, backwards and at random,
 * from files and from memory, over several gzip members, and an unedited
 * save byte for byte the plain load's. Real loader, real files. */
#include "config.h"

#include <string.h>

#include "core/reader.h"
#include "core/textstore-private.h"
#include "testutil.h"

/* n events with random padding (deflate finds little), ~230 bytes each. */
static GString *
padded_trace (guint n, guint32 seed)
{
  GString *s = g_string_new ("{\"schemaVersion\":1,\"traceEvents\":[\n");
  GRand *rnd = g_rand_new_with_seed (seed);

  for (guint i = 0; i < n; i++)
    {
      guint pad = (guint) g_rand_int_range (rnd, 0, 300);
      /* the separators vary as writers' do */
      g_string_append (s, i == 0 ? "  " : (i % 7 == 0 ? " ,\n\t" : ",\n  "));
      g_string_append_printf (s, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%u \\\"q\\\\\",\"pid\":0,\"tid\":%u,"
                              "\"ts\":%u.%03u,\"dur\":%u,\"args\":{\"correlation\":%u,\"a\":[1,{\"b\":\"}]\"}],\"p\":\"",
                              i % 41, 7 + i % 3, 1000 + i * 3, i % 1000, 1 + i % 17, i);
      for (guint k = 0; k < pad; k++)
        g_string_append_c (s, (char) ('a' + g_rand_int_range (rnd, 0, 26)));
      g_string_append (s, "\"}}");
    }
  g_string_append (s, "\n],\"baseTimeNanoseconds\":1000}\n");
  g_rand_free (rnd);
  return s;
}

/* The text in gzip members cut at the given offsets (cuts: rising, 0 for
 * an empty member at the start), concatenated. */
static GByteArray *
gzip_members (const GString *s, const gsize *cuts, guint n_cuts)
{
  GByteArray *out = g_byte_array_new ();
  gsize from = 0;

  for (guint i = 0; i <= n_cuts; i++)
    {
      gsize to = i < n_cuts ? cuts[i] : s->len, n = 0;
      g_autofree char *gz = weft_test_gzip_bytes (s->str + from, to - from, &n);
      g_byte_array_append (out, (const guint8 *) gz, (guint) n);
      from = to;
    }
  return out;
}

/* Every text of a equals b's: through a cursor in order, the shared cache
 * backwards, and at random. */
static void
assert_same_texts (WeftRank *a, WeftRank *b)
{
  g_autoptr (WeftTextCursor) ca = weft_text_cursor_new (a);
  g_autoptr (WeftTextCursor) cb = weft_text_cursor_new (b);
  GRand *rnd = g_rand_new_with_seed (7);

  g_assert_cmpuint (a->events->len, ==, b->events->len);
  for (guint i = 0; i < a->events->len; i++)
    {
      gsize la = 0, lb = 0;
      const char *ta = weft_text_cursor_get (ca, weft_rank_event (a, i), &la);
      const char *tb = weft_text_cursor_get (cb, weft_rank_event (b, i), &lb);
      g_assert_nonnull (ta);
      g_assert_nonnull (tb);
      g_assert_cmpuint (la, ==, lb);
      g_assert_cmpuint (strlen (ta), ==, la);
      g_assert_cmpint (memcmp (ta, tb, la), ==, 0);
    }
  for (guint i = a->events->len; i-- > 0;)
    {
      g_autofree char *ta = weft_rank_event_text_dup (a, weft_rank_event (a, i), NULL);
      g_autofree char *tb = weft_rank_event_text_dup (b, weft_rank_event (b, i), NULL);
      g_assert_cmpstr (ta, ==, tb);
    }
  for (guint k = 0; k < 500 && a->events->len > 0; k++)
    {
      guint i = (guint) g_rand_int_range (rnd, 0, (gint32) a->events->len);
      g_autofree char *ta = weft_rank_event_text_dup (a, weft_rank_event (a, i), NULL);
      g_autofree char *tb = weft_rank_event_text_dup (b, weft_rank_event (b, i), NULL);
      g_assert_cmpstr (ta, ==, tb);
    }
  g_rand_free (rnd);
}

static gboolean
gzip_backed (WeftRank *rank)
{
  WeftTextStats st;
  weft_rank_text_stats (rank, &st);
  return st.gzip_backed;
}

/* The rank saved as .json (NULL: none saved). */
static char *
saved_text (WeftRank *rank, const char *name, gsize *len)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = weft_test_write_file (name, "", 0);
  char *back = NULL;

  g_assert_true (weft_rank_save (rank, path, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &back, len, NULL));
  return back;
}

static void
test_as_plain (void)
{
  g_autoptr (GString) s = padded_trace (30000, 18);
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftRank) plain = weft_rank_load_buffer ("plain.json", s->str, s->len, NULL, &error);
  /* one member; three (cut inside events); an empty one first and two
   * more empty ones between */
  const gsize three[] = { s->len / 3 + 17, 2 * s->len / 3 + 5 };
  const gsize empties[] = { 0, s->len / 2, s->len / 2, s->len / 2 + 1 };
  struct
  {
    const gsize *cuts;
    guint        n;
  } cases[] = { { NULL, 0 }, { three, 2 }, { empties, 4 } };

  gsize plain_len = 0;
  g_autofree char *plain_saved = NULL;

  g_assert_no_error (error);
  g_assert_cmpuint (s->len, >, 7u << 20);
  plain_saved = saved_text (plain, "saved-plain.json", &plain_len);
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr (GByteArray) gz = gzip_members (s, cases[c].cuts, cases[c].n);
      g_autofree char *name = g_strdup_printf ("members%u.json.gz", c);
      g_autofree char *path = weft_test_write_file (name, (const char *) gz->data, gz->len);
      WeftLoadOptions packed = { 0 };
      g_autoptr (WeftRank) from_file = weft_rank_load_file (path, NULL, NULL, &error);
      g_autoptr (WeftRank) from_mem = NULL;
      g_autoptr (WeftRank) repacked = NULL;
      WeftTextStats st;

      g_assert_no_error (error);
      from_mem = weft_rank_load_memory (name, gz->data, gz->len, NULL, &error);
      g_assert_no_error (error);
      packed.pack_gzip_texts = TRUE;
      repacked = weft_rank_load_file (path, &packed, NULL, &error);
      g_assert_no_error (error);

      weft_rank_text_stats (from_file, &st);
      g_assert_true (st.gzip_backed);
      g_assert_cmpuint (st.n_texts, ==, 30000);
      g_assert_cmpuint (st.n_blocks, >=, 6); /* ~1 MiB a block: access points inside members */
      /* held: the file, and a little for its points and table */
      g_assert_cmpuint (st.stored_bytes, >=, gz->len);
      g_assert_cmpuint (st.stored_bytes, <, gz->len + gz->len / 20 + 4096);
      g_assert_true (gzip_backed (from_mem));
      g_assert_false (gzip_backed (repacked));
      g_assert_false (gzip_backed (plain));
      assert_same_texts (from_file, plain);
      assert_same_texts (from_mem, plain);
      assert_same_texts (repacked, plain);
      {
        gsize n = 0;
        g_autofree char *back = saved_text (from_file, "saved-from-gz.json", &n);
        g_assert_cmpuint (n, ==, plain_len);
        g_assert_true (memcmp (back, plain_saved, n) == 0);
      }
    }
}

/* Every shared .json.gz: the same texts kept as gzip and packed. */
static void
test_shared (void)
{
  static const char *const names[] = {
    "HolisticTraceAnalysis/df_index_resolver/df_index_resolver.json.gz",
    "HolisticTraceAnalysis/nccl_parser_config/nccl_data.json.gz",
    "TraceLens/b200/eager_trace.json.gz",
    "TraceLens/mi300/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
  };
  guint found = 0;

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = weft_test_trace_path (names[i]);
      g_autoptr (GError) error = NULL;
      g_autoptr (WeftRank) kept = NULL;
      g_autoptr (WeftRank) packed = NULL;
      WeftLoadOptions po = { 0 };

      if (path == NULL)
        continue;
      found++;
      kept = weft_rank_load_file (path, NULL, NULL, &error);
      g_assert_no_error (error);
      po.pack_gzip_texts = TRUE;
      packed = weft_rank_load_file (path, &po, NULL, &error);
      g_assert_no_error (error);
      g_assert_true (gzip_backed (kept));
      g_assert_false (gzip_backed (packed));
      assert_same_texts (kept, packed);
    }
  if (found == 0)
    g_test_skip ("shared traces absent (set WEFT_TRACES_DIR)");
}

/* Saved over its own source: the kept file is the rank's (in memory), so
 * its texts read the same after the file on disk is replaced, and the new
 * file reopens to the same texts. */
static void
test_save_over_source (void)
{
  g_autoptr (GString) s = padded_trace (6000, 5);
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftRank) plain = weft_rank_load_buffer ("plain.json", s->str, s->len, NULL, &error);
  gsize n = 0;
  g_autofree char *gz = weft_test_gzip_bytes (s->str, s->len, &n);
  g_autofree char *path = weft_test_write_file ("over.json.gz", gz, (gssize) n);
  g_autoptr (WeftRank) kept = weft_rank_load_file (path, NULL, NULL, &error);
  g_autoptr (WeftRank) again = NULL;

  g_assert_no_error (error);
  g_assert_true (gzip_backed (kept));
  _weft_text_store_drop_cache (kept->texts); /* every block decoded anew from here */
  g_assert_true (weft_rank_save (kept, path, NULL, &error));
  g_assert_no_error (error);
  assert_same_texts (kept, plain);
  again = weft_rank_load_file (path, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (gzip_backed (again));
  assert_same_texts (again, plain);
}

/* A reader keeps a gzip file only from its first byte, and only gzip. */
static void
test_keep_when (void)
{
  g_autoptr (GString) s = padded_trace (200, 3);
  gsize n = 0;
  g_autofree char *gz = weft_test_gzip_bytes (s->str, s->len, &n);
  WeftReader *r = weft_reader_new_for_memory ("a.json.gz", gz, n, TRUE);
  WeftReader *p = weft_reader_new_for_memory ("a.json", s->str, s->len, TRUE);
  char buf[64];

  g_assert_false (weft_reader_keep_gzip (p));
  g_assert_false (weft_reader_keeps_gzip (p));
  g_assert_cmpint (weft_reader_read (r, buf, sizeof buf, NULL), ==, sizeof buf);
  g_assert_false (weft_reader_keep_gzip (r)); /* too late */
  g_assert_null (weft_reader_steal_gzip (r));
  weft_reader_free (r);
  weft_reader_free (p);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gzip-texts/as-plain", test_as_plain);
  g_test_add_func ("/gzip-texts/shared", test_shared);
  g_test_add_func ("/gzip-texts/save-over-source", test_save_over_source);
  g_test_add_func ("/gzip-texts/keep-when", test_keep_when);
  return g_test_run ();
}
