/* test-idmap.c: the index's id map (src/core/idmap-private.h: pairs sorted
 * when frozen, gets galloping from the last one) against a GHashTable,
 * where setting a key again replaces its value. Keys in order, in a few
 * runs, reversed and at random, with repeats, negative and far apart;
 * gets in order, reversed and at random, of keys set and not set; and
 * sizes around the sort's block and merge boundaries. */
#include "config.h"

#include "core/idmap-private.h"

static gint64
draw_key (GRand *r, int shape, guint i, guint n)
{
  switch (shape)
    {
    case 0: return (gint64) i * 3;                                  /* in order, apart */
    case 1: return (gint64) (i % MAX (n / 3, 1)) * 2;               /* three runs, repeats across runs */
    case 2: return (gint64) n - (gint64) i;                         /* reversed */
    case 3: return g_rand_int_range (r, -50, 50);                   /* random, many repeats */
    case 4: return (gint64) i + (g_rand_int_range (r, 0, 20) == 0 ? 40 : 0); /* nearly in order */
    default:                                                        /* far apart, both signs */
      return ((gint64) (g_rand_int (r) >> 1) << 31) * (g_rand_boolean (r) ? 1 : -1) + i;
    }
}

static void
check (GRand *r, guint n, int shape)
{
  WeftIdMap m;
  GHashTable *want = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  GArray *keys = g_array_new (FALSE, FALSE, sizeof (gint64));

  _weft_id_map_init (&m, n / 3); /* grows */
  for (guint i = 0; i < n; i++)
    {
      gint64 k = draw_key (r, shape, i, n);
      guint32 v = (guint32) g_rand_int_range (r, 0, 1000000);
      _weft_id_map_set (&m, k, v);
      g_hash_table_insert (want, g_memdup2 (&k, sizeof k), GUINT_TO_POINTER (v + 1));
      g_array_append_val (keys, k);
      k += 1; /* a neighbour, often not set */
      g_array_append_val (keys, k);
    }
  _weft_id_map_freeze (&m);
  g_assert_cmpuint (m.len, ==, g_hash_table_size (want));

  for (int order = 0; order < 3; order++)
    for (guint q = 0; q < keys->len; q++)
      {
        guint at = order == 0 ? q : order == 1 ? keys->len - 1 - q : (guint) g_rand_int_range (r, 0, (gint32) keys->len);
        gint64 k = g_array_index (keys, gint64, at);
        gpointer v = g_hash_table_lookup (want, &k);
        guint32 got = _weft_id_map_get (&m, k);
        if (got != (v != NULL ? GPOINTER_TO_UINT (v) - 1 : G_MAXUINT32))
          g_error ("n %u shape %d order %d: key %" G_GINT64_FORMAT ": got %u, want %u", n, shape, order, k, got,
                   v != NULL ? GPOINTER_TO_UINT (v) - 1 : G_MAXUINT32);
      }
  _weft_id_map_clear (&m);
  g_array_free (keys, TRUE);
  g_hash_table_destroy (want);
}

static void
test_against_hash (void)
{
  static const guint sizes[] = { 0, 1, 2, 31, 32, 33, 63, 64, 65, 127, 129, 1000, 4097, 30000 };
  GRand *r = g_rand_new_with_seed (18005);

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (int shape = 0; shape < 6; shape++)
      check (r, sizes[s], shape);
  g_rand_free (r);
}

/* A map grows past the room it was made with; a get of an empty map
 * finds nothing. */
static void
test_bounds (void)
{
  WeftIdMap m;

  _weft_id_map_init (&m, 0);
  for (guint i = 0; i < 100; i++)
    _weft_id_map_set (&m, 1000 - (gint64) i, i);
  _weft_id_map_freeze (&m);
  g_assert_cmpuint (m.len, ==, 100);
  for (guint i = 0; i < 100; i++)
    g_assert_cmpuint (_weft_id_map_get (&m, 1000 - (gint64) i), ==, i);
  g_assert_cmpuint (_weft_id_map_get (&m, 900), ==, G_MAXUINT32);
  _weft_id_map_clear (&m);

  _weft_id_map_init (&m, 0);
  _weft_id_map_freeze (&m);
  g_assert_cmpuint (_weft_id_map_get (&m, 0), ==, G_MAXUINT32);
  _weft_id_map_clear (&m);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/idmap/against-hash", test_against_hash);
  g_test_add_func ("/idmap/bounds", test_bounds);
  return g_test_run ();
}
