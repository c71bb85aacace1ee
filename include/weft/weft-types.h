/* weft-types.h: basic value types shared by every layer.
 *
 * Time is gint64 nanoseconds everywhere. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define WEFT_NONE ((guint32) 0xffffffffu)

typedef struct
{
  gint64 begin;
  gint64 end;
} WeftTimeSpan;

static inline gint64
weft_time_span_duration (WeftTimeSpan span)
{
  return span.end - span.begin;
}

static inline gboolean
weft_time_span_contains (WeftTimeSpan span, gint64 t)
{
  return t >= span.begin && t < span.end;
}

static inline gboolean
weft_time_span_overlaps (WeftTimeSpan a, WeftTimeSpan b)
{
  return a.begin < b.end && b.begin < a.end;
}

static inline WeftTimeSpan
weft_time_span_clamp (WeftTimeSpan span, WeftTimeSpan bounds)
{
  WeftTimeSpan r = span;
  if (r.begin < bounds.begin)
    r.begin = bounds.begin;
  if (r.end > bounds.end)
    r.end = bounds.end;
  if (r.end < r.begin)
    r.end = r.begin;
  return r;
}

static inline WeftTimeSpan
weft_time_span_relative_to (WeftTimeSpan span, gint64 origin)
{
  WeftTimeSpan r = { span.begin - origin, span.end - origin };
  return r;
}

/* Error domain of the core. Messages say what is wrong and where:
 * "<file>: byte <offset>: <what>". */
#define WEFT_ERROR (weft_error_quark ())
GQuark weft_error_quark (void);

typedef enum
{
  WEFT_ERROR_IO,           /* cannot open / read / write */
  WEFT_ERROR_FORMAT,       /* malformed JSON or not a Kineto trace */
  WEFT_ERROR_COMPRESSION,  /* corrupt or truncated gzip / zstd */
  WEFT_ERROR_TOO_LARGE,    /* decompressed size over the cap (decompression bomb) */
  WEFT_ERROR_NO_TRACE,     /* folder without any trace file */
  WEFT_ERROR_DUPLICATE_RANK,
  WEFT_ERROR_CANCELLED,
  WEFT_ERROR_CYCLE,        /* an edit would create a dependency cycle (deadlock) */
  WEFT_ERROR_INVALID,      /* invalid argument / script / template parameter */
} WeftErrorCode;

G_END_DECLS
