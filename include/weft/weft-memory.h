/* weft-memory.h: the CUDA caching allocator's totals a trace records.
 *
 * With profile_memory=True the PyTorch profiler writes one "[memory]"
 * instant event (cat cpu_instant_event) per allocation and free, on the CPU
 * thread that made it, with args "Total Allocated" and "Total Reserved"
 * (the allocator's running totals of the device), "Bytes", "Addr",
 * "Device Id" and "Device Type" (1: CUDA, 0: CPU). The composer writes its
 * memory model the same way (docs/composer.md, "Memory"). */
#pragma once

#include "weft-model.h"

G_BEGIN_DECLS

typedef struct
{
  guint  n_events;          /* CUDA [memory] events of the rank */
  int    device;            /* the device of the peak */
  gint64 peak_allocated;    /* largest "Total Allocated", bytes */
  gint64 peak_reserved;     /* largest "Total Reserved", bytes */
  gint64 peak_reserved_ts;  /* when (the event's ts, file clock, ns) */
} WeftMemoryPeak;

/* The largest totals over the rank's CUDA [memory] events whose ts lies in
 * [begin, end] (file clock, ns; G_MININT64 / G_MAXINT64 for the whole
 * trace), over all its devices. FALSE (out zeroed) when it has none. */
gboolean weft_rank_memory_peak (const WeftRank *rank,
                                gint64          begin,
                                gint64          end,
                                WeftMemoryPeak *out);

G_END_DECLS
