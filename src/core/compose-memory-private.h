/* compose-memory-private.h: what compose.c calls of compose-memory.c. */
#pragma once

#include "weft/weft-compose.h"

G_BEGIN_DECLS

/* Appends the memory model's timeline of one rank to a composed file's
 * traceEvents as Kineto "[memory]" instant events (each followed by ",\n"),
 * on the rank's CPU thread (pid = tid = pid), device dev. spans: the rank's
 * CPU spans in program order, times as written in the file (ns). */
void _weft_compose_memory_write_events (GString                 *out,
                                        const WeftComposeParams *params,
                                        WeftAcMode               ac,
                                        const GArray            *spans,
                                        int                      pid,
                                        int                      dev);

/* The allocator's peaks over the recorded step. */
typedef struct
{
  gint64 reserved;   /* torch.cuda.max_memory_reserved() */
  gint64 allocated;  /* torch.cuda.max_memory_allocated() */
  int    retries;    /* cache flushes the device's capacity forced */
} WeftMemoryPeaks;

/* weft_compose_memory_timeline() with the allocator's mode: expandable
 * segments (torchtitan's launch script) or cudaMalloc'ed segments
 * (PyTorch's default); the caching allocator's state is warmed up by
 * earlier steps first. */
GArray *_weft_compose_memory_timeline_full (const WeftComposeParams *params,
                                            WeftAcMode               ac,
                                            const WeftComposeSpan   *spans,
                                            guint                    n_spans,
                                            gboolean                 expandable,
                                            WeftMemoryPeaks         *peaks);

G_END_DECLS
