/* strings.c: interned strings and the text arena. */
#include "config.h"

#include <string.h>

#include "weft/weft-model.h"

/* ---- arena ---------------------------------------------------------------- */

typedef struct
{
  char  *data;
  gsize  used;
  gsize  size;
} ArenaChunk;

struct _WeftArena
{
  GArray *chunks;      /* ArenaChunk */
  gsize   chunk_size;
  gsize   bytes;
};

WeftArena *
weft_arena_new (gsize chunk_size)
{
  WeftArena *self = g_new0 (WeftArena, 1);
  self->chunks = g_array_new (FALSE, FALSE, sizeof (ArenaChunk));
  self->chunk_size = chunk_size ? chunk_size : (4u << 20);
  return self;
}

void
weft_arena_free (WeftArena *self)
{
  if (self == NULL)
    return;
  for (guint i = 0; i < self->chunks->len; i++)
    g_free (g_array_index (self->chunks, ArenaChunk, i).data);
  g_array_free (self->chunks, TRUE);
  g_free (self);
}

char *
weft_arena_dup (WeftArena *self, const char *data, gsize len)
{
  ArenaChunk *chunk = NULL;
  gsize need = len + 1;
  char *dst;

  if (self->chunks->len > 0)
    chunk = &g_array_index (self->chunks, ArenaChunk, self->chunks->len - 1);

  if (chunk == NULL || chunk->size - chunk->used < need)
    {
      ArenaChunk fresh;
      fresh.size = MAX (self->chunk_size, need);
      fresh.data = g_malloc (fresh.size);
      fresh.used = 0;
      /* Keep a partly used chunk last when the new one is a one-off big one,
       * so small copies keep filling it. */
      if (chunk != NULL && need > self->chunk_size && chunk->size - chunk->used > 4096)
        {
          ArenaChunk last = *chunk;
          *chunk = fresh;
          g_array_append_val (self->chunks, last);
          chunk = &g_array_index (self->chunks, ArenaChunk, self->chunks->len - 2);
        }
      else
        {
          g_array_append_val (self->chunks, fresh);
          chunk = &g_array_index (self->chunks, ArenaChunk, self->chunks->len - 1);
        }
    }

  dst = chunk->data + chunk->used;
  if (len > 0)
    memcpy (dst, data, len);
  dst[len] = '\0';
  chunk->used += need;
  self->bytes += need;
  return dst;
}

gsize
weft_arena_bytes (const WeftArena *self)
{
  return self->bytes;
}

/* ---- interned strings ----------------------------------------------------- */

typedef struct
{
  const char *str;
  guint32     len;
  guint32     hash;
} StrEntry;

struct _WeftStrings
{
  WeftArena *arena;
  GArray    *entries;   /* StrEntry by id */
  guint32   *table;     /* open addressing: id + 1, 0 = empty */
  guint32    mask;
};

static guint32
str_hash (const char *s, gsize len)
{
  /* FNV-1a */
  guint32 h = 2166136261u;
  for (gsize i = 0; i < len; i++)
    {
      h ^= (guchar) s[i];
      h *= 16777619u;
    }
  return h;
}

WeftStrings *
weft_strings_new (void)
{
  WeftStrings *self = g_new0 (WeftStrings, 1);
  self->arena = weft_arena_new (64 * 1024);
  self->entries = g_array_new (FALSE, FALSE, sizeof (StrEntry));
  self->mask = 255;
  self->table = g_new0 (guint32, self->mask + 1);
  weft_strings_intern (self, "", 0);
  return self;
}

void
weft_strings_free (WeftStrings *self)
{
  if (self == NULL)
    return;
  weft_arena_free (self->arena);
  g_array_free (self->entries, TRUE);
  g_free (self->table);
  g_free (self);
}

static void
strings_grow (WeftStrings *self)
{
  guint32 new_mask = self->mask * 2 + 1;
  guint32 *table = g_new0 (guint32, new_mask + 1);

  for (guint32 id = 0; id < self->entries->len; id++)
    {
      const StrEntry *e = &g_array_index (self->entries, StrEntry, id);
      guint32 pos = e->hash & new_mask;
      while (table[pos] != 0)
        pos = (pos + 1) & new_mask;
      table[pos] = id + 1;
    }
  g_free (self->table);
  self->table = table;
  self->mask = new_mask;
}

static guint32
strings_find (const WeftStrings *self, const char *str, gsize len, guint32 hash, guint32 *slot)
{
  guint32 pos = hash & self->mask;

  while (self->table[pos] != 0)
    {
      guint32 id = self->table[pos] - 1;
      const StrEntry *e = &g_array_index (self->entries, StrEntry, id);
      if (e->hash == hash && e->len == len && memcmp (e->str, str, len) == 0)
        return id;
      pos = (pos + 1) & self->mask;
    }
  if (slot)
    *slot = pos;
  return WEFT_NONE;
}

guint32
weft_strings_intern (WeftStrings *self, const char *str, gssize len)
{
  guint32 hash, slot = 0, id;
  StrEntry entry;

  if (len < 0)
    len = (gssize) strlen (str);
  hash = str_hash (str, (gsize) len);
  id = strings_find (self, str, (gsize) len, hash, &slot);
  if (id != WEFT_NONE)
    return id;

  if ((self->entries->len + 1) * 4 > (self->mask + 1) * 3)
    {
      strings_grow (self);
      (void) strings_find (self, str, (gsize) len, hash, &slot);
    }

  entry.str = weft_arena_dup (self->arena, str, (gsize) len);
  entry.len = (guint32) len;
  entry.hash = hash;
  id = self->entries->len;
  g_array_append_val (self->entries, entry);
  self->table[slot] = id + 1;
  return id;
}

guint32
weft_strings_lookup (const WeftStrings *self, const char *str, gssize len)
{
  if (len < 0)
    len = (gssize) strlen (str);
  return strings_find (self, str, (gsize) len, str_hash (str, (gsize) len), NULL);
}

const char *
weft_strings_get (const WeftStrings *self, guint32 id)
{
  if (id >= self->entries->len)
    return "";
  return g_array_index (self->entries, StrEntry, id).str;
}

guint
weft_strings_count (const WeftStrings *self)
{
  return self->entries->len;
}
