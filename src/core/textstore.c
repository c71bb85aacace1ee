/* textstore.c: a rank's original event texts, kept zstd-compressed in blocks.
 *
 * The loader adds each event's JSON object text as it scans (slots 0, 1, ...
 * in file order). Consecutive texts fill a block of about TEXT_BLOCK_BYTES;
 * a full block is compressed as one zstd frame (TEXT_ZSTD_LEVEL) and kept
 * only packed. Inside a block each text is its length (LEB128) then its bytes
 * then a NUL, so a decoded block gives every text NUL-terminated.
 *
 * Reading decodes a whole block into a small cache: the rank's shared one
 * (the last SHARED_BLOCKS blocks read), under the store's mutex (weft_rank_event_text_dup, weft_event_parse, ...),
 * or a WeftTextCursor's own (save walks every event through one: no lock).
 * Once the load has returned the packed blocks never change, so any number
 * of threads may read at once. */
#include "config.h"

#include <pthread.h>
#include <string.h>
#include <zstd.h>

#if defined(__SSE2__) && !defined(WEFT_JSON_NO_SIMD)
#include <emmintrin.h>
#endif

#include "gzindex-private.h"
#include "textstore-private.h"

/* Block size, level and hash table: measured on the scaled
 * df_index_resolver trace (docs/benchmarks.md, "Memory" and "Where 500
 * MB/CPU-s stands"). Level 1 picks a 2^13-entry hash table for a 128 KiB
 * block (ZSTD_getCParams); 2^16 packs ~10 % faster (bench-zstd-blocks;
 * ~1 % of a load) for a text store ~1 % larger. */
#define TEXT_BLOCK_BYTES   ((gsize) 128 * 1024)
#define TEXT_ZSTD_LEVEL    1
#define TEXT_ZSTD_HASH_LOG 16
/* Blocks the rank's shared cache keeps decoded: the loader's classification
 * reads a collective kernel's args then its CPU op's, far apart in the file
 * (two streams of reads); with one block each read decoded a block. */
#define SHARED_BLOCKS    4
/* Full blocks handed to the packing thread and not yet taken back (see
 * _weft_text_store_set_packer): each holds its raw bytes until packed. */
#define PACK_DEPTH       4
/* A .json.gz's texts (_weft_text_store_add_at): the start of one text in
 * GZ_GROUP is kept (8 bytes per 64 events); a block is the texts whose
 * group starts between two access points of the file. */
#define GZ_GROUP         64
#define IS_JSON_WS(c)    ((c) == ' ' || (c) == '\n' || (c) == '\r' || (c) == '\t')
/* The kept texts (see _weft_text_store_keep) take at most this much: an
 * eighth of the texts added so far plus 1 MiB (collectives are ~4 % of
 * df_index_resolver's bytes; past the cap a text is read from its block). */
#define TEXT_KEPT_MAX(self) ((self)->raw_bytes / 8 + ((gsize) 1 << 20))

typedef struct
{
  guint32 first;      /* slot of its first text */
  guint32 n;          /* texts in it */
  gsize   raw_len;    /* bytes once decoded */
  gsize   packed_len; /* 0: data holds the raw bytes (zstd did not shrink them) */
  guint8 *data;       /* NULL: a range of the kept .json.gz (gz_starts) */
} Block;

/* One full block in the packing thread's ring. */
typedef struct
{
  GByteArray *raw;         /* the block's bytes (the fill buffer it was) */
  Block       out;         /* the packed block, once done */
  gboolean    done;
} PackJob;

/* The packing thread: compresses full blocks in the order they were
 * handed over, PACK_DEPTH at most at once; the loading thread takes them
 * back in that order into blocks. pthread primitives (not GMutex) so that
 * ThreadSanitizer sees the ordering. */
typedef struct
{
  pthread_t       thread;
  gboolean        started;
  pthread_mutex_t lock;
  pthread_cond_t  cond;    /* a job queued, done, or quit */
  PackJob         jobs[PACK_DEPTH];
  guint           head;    /* oldest job not taken back */
  guint           count;   /* jobs handed over and not taken back */
  guint           work;    /* the next job the thread packs */
  guint           queued;  /* jobs handed over and not packed yet */
  gboolean        quit;
  GPtrArray      *spare;   /* fill buffers taken back, for reuse */
} Packer;

typedef struct
{
  guint          block;    /* index in blocks, G_MAXUINT when empty */
  const guint8  *base;     /* the decoded bytes: buf, or a raw block's data */
  guint8        *buf;
  gsize          cap;
  guint32       *off;      /* per text of the block: offset of its bytes in base */
  guint32       *len;
  guint          cap_n;
  guint64        used;     /* the shared cache's last use (LRU) */
  ZSTD_DCtx     *dctx;
} Decoded;

struct _WeftTextStore
{
  GArray     *blocks;      /* Block */
  GByteArray *fill;        /* the block being filled */
  guint32     fill_first;
  guint32     fill_n;
  guint32     n_texts;
  ZSTD_CCtx  *cctx;
  guint8     *scratch;     /* compressor output */
  gsize       scratch_cap;
  guint64     raw_bytes;   /* texts as added, without the NULs and lengths */
  guint64     packed_aside; /* blocks taken back from the packing thread */
  GMutex      lock;        /* guards shared and tick */
  Decoded     shared[SHARED_BLOCKS];
  guint64     tick;
  /* Texts also kept plain from the scan to the rank's first index (the
   * classifier's collectives: _weft_text_store_keep ()), so that reading
   * them decodes no block. */
  GByteArray *kept;        /* the texts, each NUL-terminated */
  GArray     *kept_index;  /* Kept, by slot (added in slot order) */
  Packer     *packer;      /* NULL: full blocks are packed by the loading thread */
  /* The texts of a .json.gz are ranges of the file (_weft_text_store_add_at),
   * and the file, kept as it was read, their store (_weft_text_store_set_gzip):
   * nothing is packed. */
  gboolean     gz;
  GArray      *gz_groups;  /* guint64: where text k * GZ_GROUP starts */
  guint64      gz_end;     /* where the last text ends */
  GArray      *gz_starts;  /* guint64 per block: where its bytes start */
  WeftGzIndex *gzi;
};

typedef struct
{
  guint32 slot;
  guint32 len;
  gsize   off;             /* in kept */
} Kept;

struct _WeftTextCursor
{
  const WeftRank *rank;
  Decoded         d;
};

static void packer_stop (WeftTextStore *self);

static void
decoded_init (Decoded *d)
{
  memset (d, 0, sizeof *d);
  d->block = G_MAXUINT;
}

static void
decoded_clear (Decoded *d)
{
  g_free (d->buf);
  g_free (d->off);
  g_free (d->len);
  if (d->dctx != NULL)
    ZSTD_freeDCtx (d->dctx);
  decoded_init (d);
}

WeftTextStore *
_weft_text_store_new (void)
{
  WeftTextStore *self = g_new0 (WeftTextStore, 1);
  self->blocks = g_array_new (FALSE, FALSE, sizeof (Block));
  g_mutex_init (&self->lock);
  for (guint i = 0; i < SHARED_BLOCKS; i++)
    decoded_init (&self->shared[i]);
  return self;
}

void
_weft_text_store_free (WeftTextStore *self)
{
  if (self == NULL)
    return;
  packer_stop (self);
  for (guint i = 0; i < self->blocks->len; i++)
    g_free (g_array_index (self->blocks, Block, i).data);
  g_array_free (self->blocks, TRUE);
  if (self->fill != NULL)
    g_byte_array_free (self->fill, TRUE);
  if (self->cctx != NULL)
    ZSTD_freeCCtx (self->cctx);
  g_free (self->scratch);
  for (guint i = 0; i < SHARED_BLOCKS; i++)
    decoded_clear (&self->shared[i]);
  _weft_text_store_drop_kept (self);
  if (self->gz_groups != NULL)
    g_array_free (self->gz_groups, TRUE);
  if (self->gz_starts != NULL)
    g_array_free (self->gz_starts, TRUE);
  _weft_gz_index_free (self->gzi);
  g_mutex_clear (&self->lock);
  g_free (self);
}

/* Packs raw_len bytes of raw into b (b->data: the zstd frame, or a copy of
 * the raw bytes when zstd did not shrink them). cctx, scratch: the
 * caller's compressor and output buffer (made on first use). */
static void
pack_block (Block *b, const guint8 *raw, ZSTD_CCtx **cctx, guint8 **scratch, gsize *scratch_cap)
{
  gsize bound = ZSTD_compressBound (b->raw_len);
  size_t rc;

  if (*cctx == NULL && (*cctx = ZSTD_createCCtx ()) != NULL &&
      (ZSTD_isError (ZSTD_CCtx_setParameter (*cctx, ZSTD_c_compressionLevel, TEXT_ZSTD_LEVEL)) ||
       ZSTD_isError (ZSTD_CCtx_setParameter (*cctx, ZSTD_c_hashLog, TEXT_ZSTD_HASH_LOG))))
    g_clear_pointer (cctx, ZSTD_freeCCtx);
  if (*scratch_cap < bound)
    {
      g_free (*scratch);
      *scratch = g_malloc (bound);
      *scratch_cap = bound;
    }
  rc = *cctx != NULL ? ZSTD_compress2 (*cctx, *scratch, bound, raw, b->raw_len) : (size_t) -1;
  if (!ZSTD_isError (rc) && rc < b->raw_len)
    {
      b->packed_len = rc;
      b->data = g_memdup2 (*scratch, rc);
    }
  else
    {
      b->packed_len = 0;
      b->data = g_memdup2 (raw, b->raw_len);
    }
}

static void *
packer_main (void *data)
{
  Packer *pk = data;
  ZSTD_CCtx *cctx = NULL;
  guint8 *scratch = NULL;
  gsize scratch_cap = 0;

  pthread_mutex_lock (&pk->lock);
  for (;;)
    {
      PackJob *job;
      while (pk->queued == 0 && !pk->quit)
        pthread_cond_wait (&pk->cond, &pk->lock);
      if (pk->queued == 0)
        break; /* quit, and nothing left to pack */
      job = &pk->jobs[pk->work];
      pthread_mutex_unlock (&pk->lock);
      pack_block (&job->out, job->raw->data, &cctx, &scratch, &scratch_cap);
      pthread_mutex_lock (&pk->lock);
      job->done = TRUE;
      pk->work = (pk->work + 1) % PACK_DEPTH;
      pk->queued--;
      pthread_cond_broadcast (&pk->cond);
    }
  pthread_mutex_unlock (&pk->lock);
  if (cctx != NULL)
    ZSTD_freeCCtx (cctx);
  g_free (scratch);
  return NULL;
}

/* Takes the oldest job back into blocks (pk->lock held; the job is done). */
static void
packer_take (WeftTextStore *self, Packer *pk)
{
  PackJob *job = &pk->jobs[pk->head];

  g_array_append_val (self->blocks, job->out);
  self->packed_aside++;
  g_byte_array_set_size (job->raw, 0);
  g_ptr_array_add (pk->spare, job->raw);
  memset (job, 0, sizeof *job);
  pk->head = (pk->head + 1) % PACK_DEPTH;
  pk->count--;
}

/* Takes back every job in order: wait: until all are packed (else only
 * those done before the first one that is not). */
static void
packer_collect (WeftTextStore *self, gboolean wait)
{
  Packer *pk = self->packer;

  pthread_mutex_lock (&pk->lock);
  while (pk->count > 0)
    {
      if (!pk->jobs[pk->head].done)
        {
          if (!wait)
            break;
          pthread_cond_wait (&pk->cond, &pk->lock);
          continue;
        }
      packer_take (self, pk);
    }
  pthread_mutex_unlock (&pk->lock);
}

/* Stops the packing thread (its jobs packed and taken back first). */
static void
packer_stop (WeftTextStore *self)
{
  Packer *pk = self->packer;

  if (pk == NULL)
    return;
  packer_collect (self, TRUE);
  if (pk->started)
    {
      pthread_mutex_lock (&pk->lock);
      pk->quit = TRUE;
      pthread_cond_broadcast (&pk->cond);
      pthread_mutex_unlock (&pk->lock);
      pthread_join (pk->thread, NULL);
    }
  g_ptr_array_free (pk->spare, TRUE);
  pthread_cond_destroy (&pk->cond);
  pthread_mutex_destroy (&pk->lock);
  g_free (pk);
  self->packer = NULL;
}

/* Hands the full fill buffer to the packing thread (waiting for the oldest
 * job when PACK_DEPTH are in flight) and takes a fresh one. FALSE when the
 * thread cannot be started: the caller packs the block itself. */
static gboolean
packer_submit (WeftTextStore *self)
{
  Packer *pk = self->packer;
  PackJob *job;

  if (!pk->started)
    {
      if (pthread_create (&pk->thread, NULL, packer_main, pk) != 0)
        return FALSE;
      pk->started = TRUE;
    }
  pthread_mutex_lock (&pk->lock);
  while (pk->count > 0 && pk->jobs[pk->head].done)
    packer_take (self, pk);
  while (pk->count == PACK_DEPTH)
    {
      if (pk->jobs[pk->head].done)
        packer_take (self, pk);
      else
        pthread_cond_wait (&pk->cond, &pk->lock);
    }
  job = &pk->jobs[(pk->head + pk->count) % PACK_DEPTH];
  job->raw = self->fill;
  job->out = (Block) { self->fill_first, self->fill_n, self->fill->len, 0, NULL };
  job->done = FALSE;
  pk->count++;
  pk->queued++;
  pthread_cond_broadcast (&pk->cond);
  self->fill = pk->spare->len > 0 ? g_ptr_array_steal_index_fast (pk->spare, pk->spare->len - 1) : NULL;
  pthread_mutex_unlock (&pk->lock);
  if (self->fill == NULL)
    self->fill = g_byte_array_sized_new (TEXT_BLOCK_BYTES + 4096);
  return TRUE;
}

void
_weft_text_store_set_packer (WeftTextStore *self, gboolean on)
{
  g_return_if_fail (self != NULL);
  if (!on)
    {
      packer_stop (self);
      return;
    }
  if (self->packer != NULL)
    return;
  self->packer = g_new0 (Packer, 1);
  pthread_mutex_init (&self->packer->lock, NULL);
  pthread_cond_init (&self->packer->cond, NULL);
  self->packer->spare = g_ptr_array_new_with_free_func ((GDestroyNotify) g_byte_array_unref);
}

/* Every full block taken back into blocks: readers during the load see
 * the blocks as without the packing thread. */
static void
store_sync (const WeftTextStore *self)
{
  if (self->packer != NULL)
    packer_collect ((WeftTextStore *) self, TRUE);
}

static void
pack_fill (WeftTextStore *self)
{
  Block b = { self->fill_first, self->fill_n, self->fill->len, 0, NULL };

  if (self->packer == NULL || !packer_submit (self))
    {
      pack_block (&b, self->fill->data, &self->cctx, &self->scratch, &self->scratch_cap);
      g_array_append_val (self->blocks, b);
    }
  g_byte_array_set_size (self->fill, 0);
  self->fill_first = self->n_texts;
  self->fill_n = 0;
}

guint32
_weft_text_store_add (WeftTextStore *self, const char *data, gsize len)
{
  guint8 head[10];
  guint nh = 0;
  gsize v = len, at;
  guint8 *dst;
  guint32 slot;

  g_return_val_if_fail (self != NULL, WEFT_TEXT_NONE);
  g_return_val_if_fail (!self->gz, WEFT_TEXT_NONE);
  g_return_val_if_fail (self->n_texts < G_MAXUINT32 - 1, WEFT_TEXT_NONE);
  g_return_val_if_fail (len < G_MAXUINT32 / 2, WEFT_TEXT_NONE);
  if (self->fill == NULL)
    {
      self->fill = g_byte_array_sized_new (TEXT_BLOCK_BYTES + 4096);
      self->fill_first = self->n_texts;
    }
  do
    {
      head[nh++] = (guint8) ((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
      v >>= 7;
    }
  while (v != 0);
  /* one resize and plain copies: three g_byte_array_append calls per event
   * were ~2 % of a load's instructions (callgrind, df_index_resolver) */
  at = self->fill->len;
  g_byte_array_set_size (self->fill, (guint) (at + nh + len + 1));
  dst = self->fill->data + at;
  memcpy (dst, head, nh);
  memcpy (dst + nh, data, len);
  dst[nh + len] = '\0';
  self->fill_n++;
  self->raw_bytes += len;
  slot = ++self->n_texts; /* 1 + its index */
  if (self->fill->len >= TEXT_BLOCK_BYTES)
    pack_fill (self);
  return slot;
}

gboolean
_weft_text_store_begin_gzip (WeftTextStore *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  if (self->n_texts > 0 || self->gz)
    return FALSE;
  self->gz = TRUE;
  self->gz_groups = g_array_new (FALSE, FALSE, sizeof (guint64));
  return TRUE;
}

guint32
_weft_text_store_add_at (WeftTextStore *self, guint64 off, gsize len, gboolean follows)
{
  guint32 i;

  g_return_val_if_fail (self != NULL && self->gz, WEFT_TEXT_NONE);
  g_return_val_if_fail (self->n_texts < G_MAXUINT32 - 1, WEFT_TEXT_NONE);
  g_return_val_if_fail (len < G_MAXUINT32 / 2 && off >= self->gz_end, WEFT_TEXT_NONE);
  /* one traceEvents array: every text but the first follows one (a
   * decoded block finds them by that) */
  g_return_val_if_fail (follows == (self->n_texts > 0), WEFT_TEXT_NONE);
  i = self->n_texts;
  if (i % GZ_GROUP == 0)
    g_array_append_val (self->gz_groups, off);
  self->gz_end = off + len;
  self->raw_bytes += len;
  return ++self->n_texts;
}

void
_weft_text_store_set_gzip (WeftTextStore *self, WeftGzIndex *gzi)
{
  guint np, g = 0, ng;

  g_return_if_fail (self != NULL);
  if (!self->gz || self->gzi != NULL || gzi == NULL)
    {
      _weft_gz_index_free (gzi);
      return;
    }
  self->gzi = gzi;
  self->gz_starts = g_array_new (FALSE, FALSE, sizeof (guint64));
  np = _weft_gz_index_n_points (gzi);
  ng = self->gz_groups->len;
  for (guint j = 0; j < np && g < ng; j++)
    {
      guint64 hi = j + 1 < np ? _weft_gz_index_point_out (gzi, j + 1) : G_MAXUINT64;
      guint g0 = g;
      Block b = { 0 };
      guint64 start = g_array_index (self->gz_groups, guint64, g0), end;
      while (g < ng && g_array_index (self->gz_groups, guint64, g) < hi)
        g++;
      if (g == g0)
        continue;
      end = g < ng ? g_array_index (self->gz_groups, guint64, g) : self->gz_end;
      b.first = g0 * GZ_GROUP;
      b.n = MIN ((guint64) g * GZ_GROUP, self->n_texts) - b.first;
      b.raw_len = (gsize) (end - start);
      g_array_append_val (self->blocks, b);
      g_array_append_val (self->gz_starts, start);
    }
}

gboolean
_weft_text_store_keep (WeftTextStore *self, guint32 slot, const char *data, gsize len)
{
  Kept k;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (slot != WEFT_TEXT_NONE && slot <= self->n_texts, FALSE);
  if (self->kept_index != NULL && self->kept_index->len > 0 &&
      g_array_index (self->kept_index, Kept, self->kept_index->len - 1).slot >= slot)
    return FALSE; /* out of order */
  if (len > G_MAXUINT32 / 2 || (self->kept != NULL ? self->kept->len : 0) + len + 1 > TEXT_KEPT_MAX (self))
    return FALSE;
  if (self->kept == NULL)
    {
      self->kept = g_byte_array_new ();
      self->kept_index = g_array_new (FALSE, FALSE, sizeof (Kept));
    }
  k.slot = slot;
  k.len = (guint32) len;
  k.off = self->kept->len;
  g_byte_array_set_size (self->kept, (guint) (k.off + len + 1));
  memcpy (self->kept->data + k.off, data, len);
  self->kept->data[k.off + len] = '\0';
  g_array_append_val (self->kept_index, k);
  return TRUE;
}

void
_weft_text_store_drop_kept (WeftTextStore *self)
{
  if (self == NULL)
    return;
  g_mutex_lock (&self->lock);
  if (self->kept != NULL)
    g_byte_array_free (self->kept, TRUE);
  if (self->kept_index != NULL)
    g_array_free (self->kept_index, TRUE);
  self->kept = NULL;
  self->kept_index = NULL;
  g_mutex_unlock (&self->lock);
}

/* The kept copy of slot's text, NULL when it was not kept. */
static const char *
kept_get (const WeftTextStore *self, guint32 slot, gsize *len)
{
  guint lo = 0, hi;

  if (self->kept_index == NULL)
    return NULL;
  hi = self->kept_index->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      const Kept *k = &g_array_index (self->kept_index, Kept, mid);
      if (k->slot == slot)
        {
          *len = k->len;
          return (const char *) self->kept->data + k->off;
        }
      if (k->slot < slot)
        lo = mid + 1;
      else
        hi = mid;
    }
  return NULL;
}

guint32
_weft_text_store_count (const WeftTextStore *self)
{
  return self != NULL ? self->n_texts : 0;
}

void
_weft_text_store_finish (WeftTextStore *self)
{
  g_return_if_fail (self != NULL);
  if (self->fill != NULL && self->fill_n > 0)
    pack_fill (self);
  packer_stop (self);
  if (self->fill != NULL)
    g_byte_array_free (self->fill, TRUE);
  self->fill = NULL;
  if (self->cctx != NULL)
    ZSTD_freeCCtx (self->cctx);
  self->cctx = NULL;
  g_clear_pointer (&self->scratch, g_free);
  self->scratch_cap = 0;
}

void
_weft_text_store_drop_cache (WeftTextStore *self)
{
  if (self == NULL)
    return;
  g_mutex_lock (&self->lock);
  for (guint i = 0; i < SHARED_BLOCKS; i++)
    decoded_clear (&self->shared[i]);
  g_mutex_unlock (&self->lock);
}

/* Walks the lengths of n texts from base: their offsets and lengths. */
static gboolean
index_texts (Decoded *d, const guint8 *base, gsize size, guint32 n)
{
  gsize p = 0;

  if (d->cap_n < n)
    {
      d->off = g_renew (guint32, d->off, n);
      d->len = g_renew (guint32, d->len, n);
      d->cap_n = n;
    }
  for (guint32 k = 0; k < n; k++)
    {
      guint64 v = 0;
      guint shift = 0;
      guint8 c;
      do
        {
          if (p >= size || shift > 63)
            return FALSE;
          c = base[p++];
          v |= (guint64) (c & 0x7f) << shift;
          shift += 7;
        }
      while (c & 0x80);
      if (v > size - p || size - p - v < 1 || v > G_MAXUINT32)
        return FALSE;
      d->off[k] = (guint32) p;
      d->len[k] = (guint32) v;
      p += v + 1;
    }
  return TRUE;
}

/* One byte of value_end ()'s walk: 1 when the value ends after it, 2
 * when the byte after it is escaped (skip it), else 0. */
static inline int
value_step (guint8 c, gboolean *in_str, guint *depth)
{
  if (*in_str)
    {
      if (c == '\\')
        return 2;
      if (c == '"')
        *in_str = FALSE;
    }
  else if (c == '"')
    *in_str = TRUE;
  else if (c == '{' || c == '[')
    (*depth)++;
  else if ((c == '}' || c == ']') && --(*depth) == 0)
    return 1;
  return 0;
}

/* The end of the JSON value (an object) at base[p], or 0 if it does not
 * end before size: its brackets counted outside strings, a string ended by
 * its first quote not escaped. With SSE2 (the x86-64 baseline, as the
 * scanner's), 16 bytes at a time: only the quotes, backslashes and
 * brackets among them are looked at. */
static gsize
value_end (const guint8 *base, gsize p, gsize size)
{
  guint depth = 0;
  gboolean in_str = FALSE;

#if defined(__SSE2__) && !defined(WEFT_JSON_NO_SIMD)
  const __m128i quote = _mm_set1_epi8 ('"'), bslash = _mm_set1_epi8 ('\\');
  const __m128i open = _mm_set1_epi8 ('{'), close = _mm_set1_epi8 ('}');
  const __m128i sq_open = _mm_set1_epi8 ('['), sq_close = _mm_set1_epi8 (']');

  while (p + 16 <= size)
    {
      __m128i v = _mm_loadu_si128 ((const __m128i *) (const void *) (base + p));
      __m128i hit = _mm_or_si128 (_mm_or_si128 (_mm_cmpeq_epi8 (v, quote), _mm_cmpeq_epi8 (v, bslash)),
                                  _mm_or_si128 (_mm_or_si128 (_mm_cmpeq_epi8 (v, open), _mm_cmpeq_epi8 (v, close)),
                                                _mm_or_si128 (_mm_cmpeq_epi8 (v, sq_open), _mm_cmpeq_epi8 (v, sq_close))));
      guint m = (guint) _mm_movemask_epi8 (hit);
      gsize next = p + 16;
      while (m != 0)
        {
          guint i = (guint) __builtin_ctz (m);
          int r = value_step (base[p + i], &in_str, &depth);
          m &= m - 1;
          if (r == 1)
            return p + i + 1;
          if (r == 2)
            {
              /* the next byte is escaped, whatever it is */
              if (i == 15)
                next = p + 17;
              else
                m &= ~(2u << i);
            }
        }
      p = next;
    }
#endif
  for (; p < size; p++)
    {
      int r = value_step (base[p], &in_str, &depth);
      if (r == 1)
        return p + 1;
      if (r == 2)
        p++;
    }
  return 0;
}

/* Decodes block bi of a .json.gz's texts: its range of the file, then its
 * texts found in it (the elements of the traceEvents array: a ',' between
 * two) and NUL-terminated in place. */
static gboolean
decode_gz_block (const WeftTextStore *self, Decoded *d, guint bi)
{
  const Block *b = &g_array_index (self->blocks, Block, bi);
  guint64 start = g_array_index (self->gz_starts, guint64, bi);
  gsize p = 0, size = b->raw_len;

  if (size >= G_MAXUINT32)
    return FALSE; /* offsets of 32 bits */
  if (d->cap < size + 1)
    {
      g_free (d->buf);
      d->buf = g_malloc (size + 1);
      d->cap = size + 1;
    }
  if (!_weft_gz_index_extract (self->gzi, start, d->buf, size))
    return FALSE;
  d->buf[size] = '\0';
  if (d->cap_n < b->n)
    {
      d->off = g_renew (guint32, d->off, b->n);
      d->len = g_renew (guint32, d->len, b->n);
      d->cap_n = b->n;
    }
  for (guint32 k = 0; k < b->n; k++)
    {
      guint32 i = b->first + k;
      gsize e;
      if (k == 0)
        p = 0;
      else if (i % GZ_GROUP == 0)
        p = (gsize) (g_array_index (self->gz_groups, guint64, i / GZ_GROUP) - start);
      else
        {
          while (p < size && IS_JSON_WS (d->buf[p]))
            p++;
          if (p >= size || d->buf[p] != ',')
            return FALSE;
          p++;
          while (p < size && IS_JSON_WS (d->buf[p]))
            p++;
        }
      if (p >= size || d->buf[p] != '{' || (e = value_end (d->buf, p, size)) == 0)
        return FALSE;
      d->off[k] = (guint32) p;
      d->len[k] = (guint32) (e - p);
      p = e;
    }
  for (guint32 k = 0; k < b->n; k++)
    d->buf[d->off[k] + d->len[k]] = '\0';
  d->base = d->buf;
  d->block = bi;
  return TRUE;
}

static gboolean
decode_block (const WeftTextStore *self, Decoded *d, guint bi)
{
  const Block *b = &g_array_index (self->blocks, Block, bi);

  if (b->data == NULL && self->gzi != NULL)
    {
      if (!decode_gz_block (self, d, bi))
        {
          d->block = G_MAXUINT;
          return FALSE;
        }
      return TRUE;
    }
  if (b->packed_len == 0)
    d->base = b->data;
  else
    {
      size_t rc;
      if (d->dctx == NULL && (d->dctx = ZSTD_createDCtx ()) == NULL)
        return FALSE;
      if (d->cap < b->raw_len)
        {
          g_free (d->buf);
          d->buf = g_malloc (b->raw_len);
          d->cap = b->raw_len;
        }
      rc = ZSTD_decompressDCtx (d->dctx, d->buf, b->raw_len, b->data, b->packed_len);
      if (ZSTD_isError (rc) || rc != b->raw_len)
        {
          d->block = G_MAXUINT;
          return FALSE;
        }
      d->base = d->buf;
    }
  if (!index_texts (d, d->base, b->raw_len, b->n))
    {
      d->block = G_MAXUINT;
      return FALSE;
    }
  d->block = bi;
  return TRUE;
}

/* The block holding slot, or G_MAXUINT (not packed yet, or out of range). */
static guint
find_block (const WeftTextStore *self, guint32 slot, guint hint)
{
  guint lo = 0, hi = self->blocks->len;

  if (hint < self->blocks->len)
    {
      const Block *b = &g_array_index (self->blocks, Block, hint);
      if (slot >= b->first && slot - b->first < b->n)
        return hint;
      if (hint + 1 < self->blocks->len && slot >= b[1].first && slot - b[1].first < b[1].n)
        return hint + 1;
    }
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      const Block *b = &g_array_index (self->blocks, Block, mid);
      if (slot < b->first)
        hi = mid;
      else if (slot - b->first >= b->n)
        lo = mid + 1;
      else
        return mid;
    }
  return G_MAXUINT;
}

/* The decoded block of the shared cache to read slot from: the one that
 * holds its block, else the least recently used. */
static Decoded *
shared_pick (WeftTextStore *self, guint32 slot)
{
  Decoded *lru = &self->shared[0];

  self->tick++;
  for (guint i = 0; i < SHARED_BLOCKS; i++)
    {
      Decoded *d = &self->shared[i];
      if (d->block != G_MAXUINT)
        {
          const Block *b = &g_array_index (self->blocks, Block, d->block);
          if (slot - 1 >= b->first && slot - 1 - b->first < b->n)
            {
              d->used = self->tick;
              return d;
            }
        }
      if (d->used < lru->used)
        lru = d;
    }
  lru->used = self->tick;
  return lru;
}

static const char *
store_get (const WeftTextStore *self, Decoded *d, guint32 slot, gsize *len)
{
  guint bi;
  const Block *b;

  *len = 0;
  if (slot == WEFT_TEXT_NONE || slot > self->n_texts)
    return NULL;
  store_sync (self);
  slot--; /* the text's index */
  if (self->fill != NULL && self->fill_n > 0 && slot >= self->fill_first)
    {
      /* still being filled (read during the load itself): walk it, no cache */
      Decoded tmp;
      const char *s;
      decoded_init (&tmp);
      if (!index_texts (&tmp, self->fill->data, self->fill->len, slot - self->fill_first + 1))
        s = NULL;
      else
        {
          s = (const char *) self->fill->data + tmp.off[slot - self->fill_first];
          *len = tmp.len[slot - self->fill_first];
        }
      decoded_clear (&tmp);
      return s;
    }
  bi = find_block (self, slot, d->block);
  if (bi == G_MAXUINT)
    return NULL;
  if (bi != d->block && !decode_block (self, d, bi))
    {
      g_critical ("event text block %u of %u could not be decoded", bi, self->blocks->len);
      return NULL;
    }
  b = &g_array_index (self->blocks, Block, bi);
  *len = d->len[slot - b->first];
  return (const char *) d->base + d->off[slot - b->first];
}

const char *
_weft_rank_text_lock (const WeftRank *rank, const WeftEvent *ev, gsize *len)
{
  WeftTextStore *store = rank->texts;
  guint32 slot = weft_event_text_slot (rank, ev);

  *len = 0;
  if (store == NULL)
    return NULL;
  g_mutex_lock (&store->lock);
  if (slot == WEFT_TEXT_NONE)
    return NULL;
  if (store->kept_index != NULL)
    {
      const char *s = kept_get (store, slot, len);
      if (s != NULL)
        return s;
    }
  return store_get (store, shared_pick (store, slot), slot, len);
}

void
_weft_rank_text_unlock (const WeftRank *rank)
{
  if (rank->texts != NULL)
    g_mutex_unlock (&rank->texts->lock);
}

char *
weft_rank_event_text_dup (const WeftRank *rank, const WeftEvent *ev, gsize *len)
{
  gsize n = 0;
  const char *s;
  char *copy = NULL;

  if (len != NULL)
    *len = 0;
  g_return_val_if_fail (rank != NULL, NULL);
  g_return_val_if_fail (ev != NULL, NULL);
  if (!weft_event_has_text (rank, ev))
    return NULL;
  s = _weft_rank_text_lock (rank, ev, &n);
  if (s != NULL)
    copy = g_strndup (s, n);
  _weft_rank_text_unlock (rank);
  if (copy != NULL && len != NULL)
    *len = n;
  return copy;
}

WeftTextCursor *
weft_text_cursor_new (const WeftRank *rank)
{
  WeftTextCursor *self;

  g_return_val_if_fail (rank != NULL, NULL);
  self = g_new0 (WeftTextCursor, 1);
  self->rank = rank;
  decoded_init (&self->d);
  return self;
}

const char *
weft_text_cursor_get (WeftTextCursor *self, const WeftEvent *ev, gsize *len)
{
  gsize n = 0;
  const char *s;
  guint32 slot;

  if (len != NULL)
    *len = 0;
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (ev != NULL, NULL);
  slot = weft_event_text_slot (self->rank, ev);
  if (slot == WEFT_TEXT_NONE || self->rank->texts == NULL)
    return NULL;
  s = store_get (self->rank->texts, &self->d, slot, &n);
  if (len != NULL)
    *len = n;
  return s;
}

void
weft_text_cursor_free (WeftTextCursor *self)
{
  if (self == NULL)
    return;
  decoded_clear (&self->d);
  g_free (self);
}

void
weft_rank_text_stats (const WeftRank *rank, WeftTextStats *out)
{
  const WeftTextStore *store;

  g_return_if_fail (rank != NULL);
  g_return_if_fail (out != NULL);
  memset (out, 0, sizeof *out);
  store = rank->texts;
  if (store == NULL)
    return;
  store_sync (store);
  out->n_texts = store->n_texts;
  out->n_blocks = store->blocks->len;
  out->n_blocks_packed_aside = store->packed_aside;
  out->text_bytes = store->raw_bytes;
  for (guint i = 0; i < store->blocks->len; i++)
    {
      const Block *b = &g_array_index (store->blocks, Block, i);
      out->block_bytes += b->raw_len;
      if (b->data != NULL)
        out->stored_bytes += b->packed_len != 0 ? b->packed_len : b->raw_len;
    }
  out->stored_bytes += store->blocks->len * sizeof (Block);
  if (store->gzi != NULL)
    {
      out->gzip_backed = TRUE;
      out->stored_bytes += _weft_gz_index_held_bytes (store->gzi) + store->gz_groups->len * sizeof (guint64) +
                           store->gz_starts->len * sizeof (guint64);
    }
  if (store->fill != NULL)
    {
      out->block_bytes += store->fill->len;
      out->stored_bytes += store->fill->len;
    }
}
