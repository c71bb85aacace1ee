/* compose-allocator-private.h: a simulation of PyTorch's CUDA caching
 * allocator (c10/cuda/CUDACachingAllocator.cpp) for the composer's memory
 * model: what torch.cuda.max_memory_reserved() reports for a sequence of
 * allocations and frees. docs/composer.md, "Memory". */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _WeftAllocSim WeftAllocSim;

/* expandable: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (one
 * growing segment per stream and pool, mapped in 2 MiB / 20 MiB pages);
 * else cudaMalloc'ed segments. capacity: the bytes the allocator may
 * reserve before it frees its cache and retries (0: unlimited). */
WeftAllocSim *_weft_alloc_sim_new (gboolean expandable, gint64 capacity);
void          _weft_alloc_sim_free (WeftAllocSim *sim);

/* An allocation of size bytes on stream; returns its handle (>= 0), the
 * block's size (rounded as the allocator rounds it) in *block_size and its
 * address in *addr (both nullable). */
int    _weft_alloc_sim_malloc (WeftAllocSim *sim, gint64 size, int stream, gint64 *block_size, gint64 *addr);
/* Frees a handle; returns the block's size. */
gint64 _weft_alloc_sim_release (WeftAllocSim *sim, int handle);

gint64 _weft_alloc_sim_allocated (const WeftAllocSim *sim);
gint64 _weft_alloc_sim_reserved (const WeftAllocSim *sim);
gint64 _weft_alloc_sim_peak_allocated (const WeftAllocSim *sim);
gint64 _weft_alloc_sim_peak_reserved (const WeftAllocSim *sim);
/* torch.cuda.reset_peak_memory_stats(): the peaks become the current totals */
void   _weft_alloc_sim_reset_peaks (WeftAllocSim *sim);
/* cache flushes forced by the capacity (num_alloc_retries) */
int    _weft_alloc_sim_retries (const WeftAllocSim *sim);

G_END_DECLS
