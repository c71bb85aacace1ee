/* compose-allocator.c: PyTorch's CUDA caching allocator, simulated.
 *
 * The rules of c10/cuda/CUDACachingAllocator.cpp (PyTorch 2.5/2.6):
 * - sizes round up to kMinBlockSize = 512 B;
 * - requests <= kSmallSize (1 MiB) use the small pool, larger ones the large
 *   pool; a block only serves its own stream and pool;
 * - the smallest cached block that fits wins (then the lowest address);
 *   it is split when the rest is >= 512 B (small) or > 1 MiB (large);
 * - a freed block merges with its free neighbours of the same segment,
 *   never across segments;
 * - without a fitting block: cudaMalloc a segment of kSmallBuffer = 2 MiB
 *   (small), kLargeBuffer = 20 MiB (requests < kMinLargeAlloc = 10 MiB) or
 *   the request rounded up to kRoundLarge = 2 MiB; segments stay reserved
 *   until empty_cache() or an allocation that would not fit, which frees
 *   the cached segments holding no live block and retries;
 * - expandable_segments:True: one segment of virtual address space per
 *   stream and pool, mapped at its end in pages of 2 MiB (small) or 20 MiB
 *   (large) when nothing cached fits; the free block at its end grows.
 * Reserved = the bytes of all segments (mapped pages), as
 * torch.cuda.memory_reserved(); allocated = the live blocks' sizes. */
#include "config.h"

#include "compose-allocator-private.h"

#define MIN_BLOCK       512
#define SMALL_SIZE      (G_GINT64_CONSTANT (1) << 20)
#define SMALL_BUFFER    (2 * SMALL_SIZE)
#define LARGE_BUFFER    (20 * SMALL_SIZE)
#define MIN_LARGE_ALLOC (10 * SMALL_SIZE)
#define ROUND_LARGE     (2 * SMALL_SIZE)
/* virtual space apart between segments, so addresses never collide */
#define SEGMENT_SPAN    (G_GINT64_CONSTANT (1) << 40)

typedef struct
{
  gint64         addr, size;
  int            seg, prev, next;   /* neighbours in the segment, -1 for none */
  gboolean       live;              /* the slot is a block (not recycled) */
  gboolean       allocated;
  GSequenceIter *free_it;           /* in its pool's free set while free */
} Block;

typedef struct
{
  gint64   base, size;        /* size: mapped bytes (expandable) or the cudaMalloc */
  int      stream;
  gboolean small, expandable, released;
  int      last;              /* the block at the segment's end */
} Segment;

struct _WeftAllocSim
{
  gboolean expandable;
  gint64   capacity;
  GArray  *blocks;            /* Block */
  GArray  *segs;              /* Segment */
  GArray  *spare;             /* int: recycled block slots */
  GHashTable *pools;          /* (stream, small) -> GSequence of free block slots by (size, address) */
  gint64   allocated, reserved, peak_allocated, peak_reserved, next_base;
  int      retries;
};

WeftAllocSim *
_weft_alloc_sim_new (gboolean expandable, gint64 capacity)
{
  WeftAllocSim *sim = g_new0 (WeftAllocSim, 1);

  sim->expandable = expandable;
  sim->capacity = capacity;
  sim->blocks = g_array_new (FALSE, FALSE, sizeof (Block));
  sim->segs = g_array_new (FALSE, FALSE, sizeof (Segment));
  sim->spare = g_array_new (FALSE, FALSE, sizeof (int));
  sim->pools = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, (GDestroyNotify) g_sequence_free);
  sim->next_base = G_GINT64_CONSTANT (0x7f0000000000);
  return sim;
}

void
_weft_alloc_sim_free (WeftAllocSim *sim)
{
  if (sim == NULL)
    return;
  g_array_free (sim->blocks, TRUE);
  g_array_free (sim->segs, TRUE);
  g_array_free (sim->spare, TRUE);
  g_hash_table_unref (sim->pools);
  g_free (sim);
}

#define BLK(sim, i) (&g_array_index ((sim)->blocks, Block, (i)))
#define SEG(sim, i) (&g_array_index ((sim)->segs, Segment, (i)))

/* the free set of a block's pool: slots sorted by (size, address) */
static GSequence *
pool_of (WeftAllocSim *sim, int stream, gboolean small)
{
  gint64 key = (gint64) stream * 2 + (small ? 1 : 0);
  GSequence *seq = g_hash_table_lookup (sim->pools, &key);

  if (seq == NULL)
    {
      seq = g_sequence_new (NULL);
      g_hash_table_insert (sim->pools, g_memdup2 (&key, sizeof key), seq);
    }
  return seq;
}

static int
free_cmp (gconstpointer a, gconstpointer b, gpointer data)
{
  WeftAllocSim *sim = data;
  const Block *x = BLK (sim, GPOINTER_TO_INT (a) - 1), *y = BLK (sim, GPOINTER_TO_INT (b) - 1);

  if (x->size != y->size)
    return x->size < y->size ? -1 : 1;
  return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* a free block joins (or leaves) its pool's free set; its size and address
 * must not change while it is in */
static void
free_set_add (WeftAllocSim *sim, int bi)
{
  const Segment *s = SEG (sim, BLK (sim, bi)->seg);
  GSequence *seq = pool_of (sim, s->stream, s->small);

  BLK (sim, bi)->free_it = g_sequence_insert_sorted (seq, GINT_TO_POINTER (bi + 1), free_cmp, sim);
}

static void
free_set_remove (WeftAllocSim *sim, int bi)
{
  Block *b = BLK (sim, bi);

  if (b->free_it != NULL)
    g_sequence_remove (b->free_it);
  b->free_it = NULL;
}

static int
block_new (WeftAllocSim *sim, int seg, gint64 addr, gint64 size)
{
  Block b = { addr, size, seg, -1, -1, TRUE, FALSE, NULL };
  int i;

  if (sim->spare->len > 0)
    {
      i = g_array_index (sim->spare, int, sim->spare->len - 1);
      g_array_set_size (sim->spare, sim->spare->len - 1);
      *BLK (sim, i) = b;
      return i;
    }
  g_array_append_val (sim->blocks, b);
  return (int) sim->blocks->len - 1;
}

static void
block_recycle (WeftAllocSim *sim, int i)
{
  BLK (sim, i)->live = FALSE;
  g_array_append_val (sim->spare, i);
}

static int
segment_new (WeftAllocSim *sim, int stream, gboolean small, gint64 size)
{
  Segment s = { sim->next_base, size, stream, small, sim->expandable, FALSE, -1 };
  int si;

  sim->next_base += SEGMENT_SPAN;
  g_array_append_val (sim->segs, s);
  si = (int) sim->segs->len - 1;
  if (size > 0)
    {
      int bi = block_new (sim, si, s.base, size);
      SEG (sim, si)->last = bi;
      free_set_add (sim, bi);
    }
  sim->reserved += size;
  return si;
}

/* the best cached block: smallest that fits, then lowest address */
static int
best_fit (WeftAllocSim *sim, gint64 size, int stream, gboolean small)
{
  GSequence *seq = pool_of (sim, stream, small);
  GSequenceIter *it = g_sequence_get_begin_iter (seq), *end = g_sequence_get_end_iter (seq);
  int n = g_sequence_get_length (seq);

  /* binary search for the first block of at least size bytes */
  while (n > 0)
    {
      int half = n / 2;
      GSequenceIter *mid = g_sequence_iter_move (it, half);
      if (BLK (sim, GPOINTER_TO_INT (g_sequence_get (mid)) - 1)->size < size)
        {
          it = g_sequence_iter_next (mid);
          n -= half + 1;
        }
      else
        n = half;
    }
  return it == end ? -1 : GPOINTER_TO_INT (g_sequence_get (it)) - 1;
}

/* release_cached_blocks(): segments with no live block go back to CUDA;
 * expandable segments unmap the free pages at their end */
static void
release_cached (WeftAllocSim *sim)
{
  for (guint si = 0; si < sim->segs->len; si++)
    {
      Segment *s = SEG (sim, si);
      Block *last;
      gint64 page, keep;

      if (s->released || s->last < 0)
        continue;
      last = BLK (sim, s->last);
      if (last->allocated)
        continue;
      if (!s->expandable)
        {
          if (last->prev >= 0)
            continue;    /* more than one block: something is live */
          sim->reserved -= s->size;
          s->released = TRUE;
          free_set_remove (sim, s->last);
          block_recycle (sim, s->last);
          s->last = -1;
          continue;
        }
      page = s->small ? SMALL_BUFFER : LARGE_BUFFER;
      keep = (last->addr - s->base + page - 1) / page * page;
      sim->reserved -= s->size - keep;
      s->size = keep;
      free_set_remove (sim, s->last);
      last->size = s->base + keep - last->addr;
      if (last->size > 0)
        free_set_add (sim, s->last);
      else
        {
          int prev = last->prev;
          block_recycle (sim, s->last);
          s->last = prev;
          if (prev >= 0)
            BLK (sim, prev)->next = -1;
        }
    }
}

static gboolean
fits (WeftAllocSim *sim, gint64 more)
{
  if (sim->capacity <= 0 || sim->reserved + more <= sim->capacity)
    return TRUE;
  release_cached (sim);
  sim->retries++;
  return sim->reserved + more <= sim->capacity;
}

/* expandable: map pages at the end of the stream's segment until its free
 * tail holds size bytes; returns that tail block */
static int
grow_expandable (WeftAllocSim *sim, gint64 size, int stream, gboolean small)
{
  gint64 page = small ? SMALL_BUFFER : LARGE_BUFFER, need, map;
  int si = -1, tail;
  Segment *s;

  for (guint i = 0; i < sim->segs->len; i++)
    if (SEG (sim, i)->stream == stream && SEG (sim, i)->small == small && SEG (sim, i)->expandable)
      si = (int) i;
  if (si < 0)
    si = segment_new (sim, stream, small, 0);
  s = SEG (sim, si);
  tail = s->last;
  need = (tail >= 0 && !BLK (sim, tail)->allocated) ? size - BLK (sim, tail)->size : size;
  map = (need + page - 1) / page * page;
  (void) fits (sim, map);   /* beyond the capacity: CUDA would fail; counted as a retry */
  s = SEG (sim, si);
  if (tail >= 0 && !BLK (sim, tail)->allocated)
    {
      free_set_remove (sim, tail);   /* taken by the caller */
      BLK (sim, tail)->size += map;
    }
  else
    {
      int nb = block_new (sim, si, s->base + s->size, map);
      s = SEG (sim, si);
      BLK (sim, nb)->prev = tail;
      if (tail >= 0)
        BLK (sim, tail)->next = nb;
      s->last = nb;
      tail = nb;
    }
  s->size += map;
  sim->reserved += map;
  return tail;
}

int
_weft_alloc_sim_malloc (WeftAllocSim *sim, gint64 size, int stream, gint64 *block_size, gint64 *addr)
{
  gint64 rs = MAX ((size + MIN_BLOCK - 1) / MIN_BLOCK * MIN_BLOCK, MIN_BLOCK), rest;
  gboolean small = rs <= SMALL_SIZE;
  int bi;
  Block *b;

  g_return_val_if_fail (sim != NULL && size >= 0, -1);
  bi = best_fit (sim, rs, stream, small);
  if (bi < 0 && sim->expandable)
    bi = grow_expandable (sim, rs, stream, small);
  else if (bi < 0)
    {
      gint64 seg = small ? SMALL_BUFFER : rs < MIN_LARGE_ALLOC ? LARGE_BUFFER
                                                                 : (rs + ROUND_LARGE - 1) / ROUND_LARGE * ROUND_LARGE;
      int si;
      (void) fits (sim, seg);
      si = segment_new (sim, stream, small, seg);
      bi = SEG (sim, si)->last;
    }
  free_set_remove (sim, bi);
  b = BLK (sim, bi);
  rest = b->size - rs;
  if (small ? rest >= MIN_BLOCK : rest > SMALL_SIZE)
    {
      int seg = b->seg, next = b->next;
      gint64 at = b->addr + rs;
      int nb = block_new (sim, seg, at, rest);   /* may move the array */
      b = BLK (sim, bi);
      b->size = rs;
      BLK (sim, nb)->prev = bi;
      BLK (sim, nb)->next = next;
      if (next >= 0)
        BLK (sim, next)->prev = nb;
      else
        SEG (sim, seg)->last = nb;
      b->next = nb;
      free_set_add (sim, nb);
    }
  b->allocated = TRUE;
  sim->allocated += b->size;
  sim->peak_allocated = MAX (sim->peak_allocated, sim->allocated);
  sim->peak_reserved = MAX (sim->peak_reserved, sim->reserved);
  if (block_size != NULL)
    *block_size = b->size;
  if (addr != NULL)
    *addr = b->addr;
  return bi;
}

/* merges block b with its free neighbour n (n after b) */
static void
merge_next (WeftAllocSim *sim, int bi)
{
  Block *b = BLK (sim, bi);
  int ni = b->next;
  Block *n;

  if (ni < 0 || BLK (sim, ni)->allocated)
    return;
  free_set_remove (sim, bi);
  free_set_remove (sim, ni);
  n = BLK (sim, ni);
  b->size += n->size;
  b->next = n->next;
  if (n->next >= 0)
    BLK (sim, n->next)->prev = bi;
  else
    SEG (sim, b->seg)->last = bi;
  block_recycle (sim, ni);
}

gint64
_weft_alloc_sim_release (WeftAllocSim *sim, int handle)
{
  Block *b;
  gint64 size;
  int prev;

  g_return_val_if_fail (sim != NULL && handle >= 0 && (guint) handle < sim->blocks->len, 0);
  b = BLK (sim, handle);
  g_return_val_if_fail (b->live && b->allocated, 0);
  size = b->size;
  b->allocated = FALSE;
  sim->allocated -= size;
  merge_next (sim, handle);
  prev = BLK (sim, handle)->prev;
  if (prev >= 0 && !BLK (sim, prev)->allocated)
    {
      merge_next (sim, prev);
      free_set_add (sim, prev);
    }
  else
    free_set_add (sim, handle);
  return size;
}

gint64
_weft_alloc_sim_allocated (const WeftAllocSim *sim)
{
  return sim->allocated;
}

gint64
_weft_alloc_sim_reserved (const WeftAllocSim *sim)
{
  return sim->reserved;
}

gint64
_weft_alloc_sim_peak_allocated (const WeftAllocSim *sim)
{
  return sim->peak_allocated;
}

gint64
_weft_alloc_sim_peak_reserved (const WeftAllocSim *sim)
{
  return sim->peak_reserved;
}

void
_weft_alloc_sim_reset_peaks (WeftAllocSim *sim)
{
  sim->peak_allocated = sim->allocated;
  sim->peak_reserved = sim->reserved;
}

int
_weft_alloc_sim_retries (const WeftAllocSim *sim)
{
  return sim->retries;
}
