/* memory-private.h: what memory.c shares with memory-timeline.c. */
#pragma once

#include "weft/weft-memory.h"

G_BEGIN_DECLS

typedef struct
{
  gint64 type;        /* "Device Type" (1 when absent) */
  gint64 device;      /* "Device Id" (-1 when absent) */
  gint64 allocated;   /* "Total Allocated" */
  gint64 reserved;    /* "Total Reserved" */
  gint64 bytes;       /* "Bytes" (0 when absent) */
} WeftMemoryArgs;

/* The args of a [memory] event: FALSE when the totals are missing. Reads
 * the integers straight from the event's JSON text (json-c only where that
 * text is not plain: a million events are read in well under a second). */
gboolean _weft_memory_read_args (const WeftRank *rank, const WeftEvent *ev, WeftMemoryArgs *out);

G_END_DECLS
