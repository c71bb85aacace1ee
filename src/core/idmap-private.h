/* idmap-private.h: a map from any gint64 to an event index, for the
 * per-rank index's pairing of flow ids and correlation ids (model-index.c).
 *
 * Open addressing, linear probing, keys and values in two flat arrays, the
 * size fixed up front from the number of keys (at most half full): a
 * GHashTable of pointers to gint64 keys cost ~5 % of a load in lookups and
 * inserts (perf, the scaled df_index_resolver trace). Setting a key again
 * replaces its value, as g_hash_table_insert does. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  gint64  *keys;
  guint32 *vals;   /* value + 1; 0: empty slot */
  gsize    mask;
} WeftIdMap;

static inline void
_weft_id_map_init (WeftIdMap *m, gsize n_keys)
{
  gsize cap = 16;

  while (cap < n_keys * 2 && cap < G_MAXSIZE / 4)
    cap *= 2;
  m->keys = g_new (gint64, cap);
  m->vals = g_new0 (guint32, cap);
  m->mask = cap - 1;
}

static inline void
_weft_id_map_clear (WeftIdMap *m)
{
  g_clear_pointer (&m->keys, g_free);
  g_clear_pointer (&m->vals, g_free);
  m->mask = 0;
}

static inline gsize
_weft_id_map_slot (const WeftIdMap *m, gint64 key)
{
  guint64 h = (guint64) key * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
  return (gsize) (h ^ (h >> 29)) & m->mask;
}

/* Sets key to val (val < G_MAXUINT32). Holds at most the n_keys given to
 * _weft_id_map_init. */
static inline void
_weft_id_map_set (WeftIdMap *m, gint64 key, guint32 val)
{
  gsize i = _weft_id_map_slot (m, key);

  while (m->vals[i] != 0 && m->keys[i] != key)
    i = (i + 1) & m->mask;
  m->keys[i] = key;
  m->vals[i] = val + 1;
}

/* The value of key, or G_MAXUINT32 when absent. */
static inline guint32
_weft_id_map_get (const WeftIdMap *m, gint64 key)
{
  gsize i = _weft_id_map_slot (m, key);

  while (m->vals[i] != 0)
    {
      if (m->keys[i] == key)
        return m->vals[i] - 1;
      i = (i + 1) & m->mask;
    }
  return G_MAXUINT32;
}

G_END_DECLS
