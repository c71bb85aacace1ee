/* test-crc32.c: _weft_crc32 () against zlib's crc32_z () (the same
 * function by definition: gzip's trailer is checked with it), over
 * random lengths, offsets, seeds and chains of pieces, and a damaged
 * gzip trailer through the real reader: zlib's words, at zlib's byte. */
#include "config.h"

#include <string.h>
#include <zlib.h>

#include "core/crc32-private.h"
#include "testutil.h"

static void
test_against_zlib (void)
{
  const gsize n = 1 << 20;
  guint8 *buf = g_malloc (n + 64);
  GRand *rnd = g_rand_new_with_seed (32);

  for (gsize i = 0; i < n + 64; i++)
    buf[i] = (guint8) g_rand_int (rnd);
  for (guint k = 0; k < 20000; k++)
    {
      /* short, around the 64- and 16-byte steps, and long */
      gsize len = k % 4 == 0 ? (gsize) g_rand_int_range (rnd, 0, 200)
                  : k % 4 == 1 ? (gsize) g_rand_int_range (rnd, 48, 96)
                  : (gsize) g_rand_int_range (rnd, 0, 70000);
      gsize off = (gsize) g_rand_int_range (rnd, 0, 64);
      guint32 seed = k % 3 == 0 ? 0 : g_rand_int (rnd);
      g_assert_cmpuint (_weft_crc32 (seed, buf + off, len), ==, (guint32) crc32_z (seed, buf + off, len));
    }
  /* one CRC in pieces equals it whole */
  {
    guint32 whole = (guint32) crc32_z (0, buf, n), chained = 0;
    gsize at = 0;
    while (at < n)
      {
        gsize piece = MIN ((gsize) g_rand_int_range (rnd, 1, 5000), n - at);
        chained = _weft_crc32 (chained, buf + at, piece);
        at += piece;
      }
    g_assert_cmpuint (chained, ==, whole);
    g_assert_cmpuint (_weft_crc32 (0, buf, n), ==, whole);
  }
  g_rand_free (rnd);
  g_free (buf);
}

/* The reader's own check of a gzip member: a flipped CRC byte and a
 * flipped length byte fail as zlib's check did (its words, the byte after
 * the CRC / after the length), in the last member and in the first of two;
 * the intact file loads. */
static void
test_trailer (void)
{
  const char *json = "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"k\",\"pid\":0,\"tid\":1,\"ts\":1,\"dur\":2}]}";
  gsize n = 0;
  g_autofree char *gz = weft_test_gzip_bytes (json, strlen (json), &n);
  struct
  {
    gsize       flip;    /* from the end of the first member */
    gboolean    twice;   /* two members, the first damaged */
    const char *want;
    gsize       at;      /* the byte named, from the first member's end */
  } cases[] = {
    { 8, FALSE, "incorrect data check", 4 }, { 5, FALSE, "incorrect data check", 4 },
    { 4, FALSE, "incorrect length check", 0 }, { 1, FALSE, "incorrect length check", 0 },
    { 8, TRUE, "incorrect data check", 4 }, { 1, TRUE, "incorrect length check", 0 },
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr (GByteArray) b = g_byte_array_new ();
      g_autoptr (GError) error = NULL;
      g_autofree char *path = NULL;
      g_autofree char *want = NULL;
      WeftRank *rank;

      g_byte_array_append (b, (const guint8 *) gz, (guint) n);
      b->data[n - cases[c].flip] ^= 0x21;
      if (cases[c].twice)
        g_byte_array_append (b, (const guint8 *) gz, (guint) n);
      path = weft_test_write_file ("trailer.json.gz", (const char *) b->data, b->len);
      rank = weft_rank_load_file (path, NULL, NULL, &error);
      g_assert_null (rank);
      g_assert_error (error, WEFT_ERROR, WEFT_ERROR_COMPRESSION);
      want = g_strdup_printf ("%s: byte %" G_GSIZE_FORMAT ": corrupt gzip data: %s", path, n - cases[c].at, cases[c].want);
      g_assert_cmpstr (error->message, ==, want);
    }
  {
    g_autoptr (GByteArray) b = g_byte_array_new ();
    g_autoptr (GError) error = NULL;
    g_autofree char *path = NULL;
    g_autoptr (WeftRank) rank = NULL;
    g_byte_array_append (b, (const guint8 *) gz, (guint) n);
    g_byte_array_append (b, (const guint8 *) gz, (guint) n);
    path = weft_test_write_file ("intact.json.gz", (const char *) b->data, b->len);
    /* two members of one object each: the second is after the root's end */
    rank = weft_rank_load_file (path, NULL, NULL, &error);
    g_assert_null (rank);
    g_assert_error (error, WEFT_ERROR, WEFT_ERROR_FORMAT);
  }
  {
    g_autoptr (GError) error = NULL;
    g_autofree char *path = weft_test_write_file ("one.json.gz", gz, (gssize) n);
    g_autoptr (WeftRank) rank = weft_rank_load_file (path, NULL, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (rank->events->len, ==, 1);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/crc32/against-zlib", test_against_zlib);
  g_test_add_func ("/crc32/trailer", test_trailer);
  return g_test_run ();
}
