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

G_END_DECLS
