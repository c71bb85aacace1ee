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
#include "weft-solver.h"

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

/* TRUE for the PyTorch DeviceType of a GPU: CUDA (1) and HIP (6, what a
 * ROCm build's profiler writes). */
gboolean weft_memory_device_is_gpu (gint64 device_type);

/* ---- the memory timeline under edits -------------------------------------------- *
 *
 * Every GPU [memory] event is anchored, when the timeline is made, to the
 * op it belongs to on its rank (docs/solver.md, "Memory under edits"): the
 * last GPU op launched inside the innermost CPU span that encloses it on its
 * thread; else the GPU op of the latest launch of that thread before it
 * (the first one after it when there is none before); else the GPU op of
 * its device running at its time or the latest one that started before it.
 * It keeps its offset from that op's start, so its time follows the op's
 * solved start. The totals are recomputed in the new time order: each
 * event's "Total Allocated" changes by the bytes of the events that now come
 * before it and did not (or no longer do and did), "Total Reserved" by the
 * change of the allocated high-water mark at it (never below the allocated
 * total). An unedited trace gives the loaded totals exactly. */

typedef struct _WeftMemoryTimeline WeftMemoryTimeline;

typedef struct
{
  guint  n_events;          /* GPU [memory] events of the rank (all its devices) */
  int    device;            /* the device of the peak, -1 for none */
  gint64 peak_allocated;    /* bytes */
  gint64 peak_reserved;     /* bytes */
  gint64 peak_time;         /* when reserved peaked (common timeline, ns) */
} WeftMemoryTimelinePeak;

/* Anchors the GPU [memory] events of every rank of trace (which must
 * outlive the timeline) and times them as loaded (observed times, the rank
 * clock offsets applied). */
WeftMemoryTimeline *weft_memory_timeline_new (WeftTrace *trace); /* (transfer full) */
void                weft_memory_timeline_free (WeftMemoryTimeline *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WeftMemoryTimeline, weft_memory_timeline_free)

/* Re-times the events from the solver's times (NULL: the observed ones)
 * and recomputes the curves and peaks of the ranks whose events moved.
 * Nothing to do when the solver's generation is the one of the last
 * update. Returns TRUE when a curve changed. */
gboolean weft_memory_timeline_update (WeftMemoryTimeline *self, WeftSolver *solver);
/* Incremented by every update that changed a curve. */
guint64  weft_memory_timeline_get_serial (WeftMemoryTimeline *self);
/* TRUE when some rank has GPU [memory] events. */
gboolean weft_memory_timeline_is_empty (WeftMemoryTimeline *self);
/* The rank's peak now; rank_index WEFT_SOLVER_ALL_RANKS: the largest over
 * the ranks. FALSE (out zeroed, device -1) when there are no events. */
gboolean weft_memory_timeline_peak (WeftMemoryTimeline *self, guint rank_index, WeftMemoryTimelinePeak *out);
/* The curve drawn for the rank: its device with the most events, as
 * n_points steps sorted by time (common timeline): from t[i] on the device
 * holds allocated[i] / reserved[i]. Arrays owned by the timeline, valid
 * until the next update. FALSE when the rank has no events. */
gboolean weft_memory_timeline_curve (WeftMemoryTimeline *self, guint rank_index, int *device,
                                     const gint64 **t, const gint64 **allocated, const gint64 **reserved,
                                     guint *n_points);
/* Totals of the rank's curve at time t (those of the last point at or
 * before t; before the first point its totals less its own bytes). FALSE
 * when the rank has no events. */
gboolean weft_memory_timeline_value_at (WeftMemoryTimeline *self, guint rank_index, gint64 t, gint64 *allocated,
                                        gint64 *reserved);
/* The op a [memory] event is anchored to (WEFT_NONE: none, it keeps its
 * own time, shifted with its CPU thread), for tests and the docs. */
guint32  weft_memory_timeline_anchor (WeftMemoryTimeline *self, guint rank_index, guint32 event);

G_END_DECLS
