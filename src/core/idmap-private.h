/* idmap-private.h: a map from any gint64 to an event index, for the
 * per-rank index's pairing of flow ids and correlation ids (model-index.c).
 *
 * Built once, then read: the pairs are appended as they are set, sorted by
 * key (runsort-private.h) when the map is frozen, and a get gallops from
 * where the previous one ended. The index sets them in file order and gets
 * them in file order too, and Kineto's ids grow along the file (a launch's
 * correlation id, a flow's id, the kernel's correlation), so the pairs
 * come mostly in order and each get lands near the previous one: the
 * searches read the map forwards. A hash table of the same pairs missed
 * the cache on nearly every set and get (2-3 % of loading the scaled
 * df_index_resolver trace, perf); a GHashTable of pointers to gint64 keys
 * before it cost ~5 %. Setting a key again replaces its value, as
 * g_hash_table_insert does. */
#pragma once

#include <glib.h>

#include "runsort-private.h"

G_BEGIN_DECLS

typedef struct
{
  gint64  key;
  guint32 val;
  guint32 order;   /* set order, the tie-break of the sort */
} WeftIdPair;

typedef struct
{
  WeftIdPair *pairs;
  gsize       len;
  gsize       cap;
  gsize       finger;  /* where the last get ended */
  gboolean    frozen;
} WeftIdMap;

static inline gboolean
_weft_id_pair_before (const WeftIdPair *x, const WeftIdPair *y)
{
  return x->key < y->key || (x->key == y->key && x->order < y->order);
}

WEFT_DEFINE_RUN_SORT (_weft_id_pairs_sort, WeftIdPair, _weft_id_pair_before)

/* A map with room for n_keys sets (it grows past them). */
static inline void
_weft_id_map_init (WeftIdMap *m, gsize n_keys)
{
  m->cap = MAX (n_keys, 16);
  m->pairs = g_new (WeftIdPair, m->cap);
  m->len = 0;
  m->finger = 0;
  m->frozen = FALSE;
}

static inline void
_weft_id_map_clear (WeftIdMap *m)
{
  g_clear_pointer (&m->pairs, g_free);
  m->len = m->cap = m->finger = 0;
}

/* Sets key to val (val < G_MAXUINT32), before the map is frozen. At most
 * G_MAXUINT32 sets (an event index's range); more are ignored. */
static inline void
_weft_id_map_set (WeftIdMap *m, gint64 key, guint32 val)
{
  g_assert (!m->frozen);
  if (G_UNLIKELY (m->len >= m->cap))
    {
      if (m->len >= G_MAXUINT32)
        return;
      m->cap = MIN (m->cap * 2, (gsize) G_MAXUINT32);
      m->pairs = g_renew (WeftIdPair, m->pairs, m->cap);
    }
  m->pairs[m->len].key = key;
  m->pairs[m->len].val = val;
  m->pairs[m->len].order = (guint32) m->len;
  m->len++;
}

/* Ends the sets: the pairs by key, the last set of each key kept. */
static inline void
_weft_id_map_freeze (WeftIdMap *m)
{
  gsize out = 0;

  (void) _weft_id_pairs_sort (m->pairs, m->len);
  for (gsize i = 0; i < m->len; i++)
    {
      if (out > 0 && m->pairs[out - 1].key == m->pairs[i].key)
        out--; /* a later set of the same key */
      m->pairs[out++] = m->pairs[i];
    }
  m->len = out;
  m->finger = 0;
  m->frozen = TRUE;
}

/* The value of key, or G_MAXUINT32 when absent; the map frozen. */
static inline guint32
_weft_id_map_get (WeftIdMap *m, gint64 key)
{
  const WeftIdPair *p = m->pairs;
  gsize lo;

  g_assert (m->frozen);
  /* the first pair whose key is >= key, galloping from the finger */
#define KEY_BEFORE(i) (p[i].key < key)
  WEFT_GALLOP (KEY_BEFORE, m->len, m->finger, lo);
#undef KEY_BEFORE
  m->finger = lo;
  return lo < m->len && p[lo].key == key ? p[lo].val : G_MAXUINT32;
}

G_END_DECLS
