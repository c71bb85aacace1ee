/* memory.c: the caching allocator's totals from a trace's [memory] events
 * (weft-memory.h). */
#include "config.h"

#include <string.h>

#include "memory-private.h"
#include "textstore-private.h"
#include "util-private.h"

/* The integer value of "key" in text (flat args: the key appears once), FALSE
 * when absent or not a plain integer. */
static gboolean
scan_int (const char *text, const char *key, gint64 *out)
{
  const char *p = strstr (text, key);
  char *end = NULL;
  gint64 v;

  if (p == NULL)
    return FALSE;
  p += strlen (key);
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
    p++;
  if (*p++ != ':')
    return FALSE;
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
    p++;
  v = g_ascii_strtoll (p, &end, 10);
  if (end == p || *end == '.' || *end == 'e' || *end == 'E')
    return FALSE;
  *out = v;
  return TRUE;
}

/* A GPU holds far less than 2^52 bytes (4 PiB): larger values are a bad
 * file, clamped so that sums over events cannot overflow. */
static void
clamp_args (WeftMemoryArgs *a)
{
  const gint64 lim = G_GINT64_CONSTANT (1) << 52;
  a->allocated = CLAMP (a->allocated, -lim, lim);
  a->reserved = CLAMP (a->reserved, -lim, lim);
  a->bytes = CLAMP (a->bytes, -lim, lim);
}

gboolean
_weft_memory_read_args (const WeftRank *rank, const WeftEvent *ev, WeftMemoryArgs *out)
{
  gsize len = 0;
  const char *text = _weft_rank_text_lock (rank, ev, &len);
  const char *args = text != NULL ? strstr (text, "\"args\"") : NULL;
  json_object *obj;
  gboolean ok, fast;

  out->type = 1;
  out->device = -1;
  out->allocated = out->reserved = out->bytes = 0;
  /* the fast path: the integers as written (Kineto's and the composer's form) */
  fast = args != NULL && strchr (args + 6, '{') != NULL && strchr (strchr (args + 6, '{') + 1, '{') == NULL &&
         scan_int (args, "\"Total Allocated\"", &out->allocated) &&
         scan_int (args, "\"Total Reserved\"", &out->reserved);
  if (fast)
    {
      if (!scan_int (args, "\"Device Type\"", &out->type))
        out->type = 1;
      if (!scan_int (args, "\"Device Id\"", &out->device))
        out->device = -1;
      if (!scan_int (args, "\"Bytes\"", &out->bytes))
        out->bytes = 0;
    }
  _weft_rank_text_unlock (rank);
  if (fast)
    {
      clamp_args (out);
      return TRUE;
    }
  obj = weft_event_parse_args (rank, ev);
  if (obj == NULL)
    return FALSE;
  _weft_json_get_int64 (obj, "Device Type", &out->type);
  _weft_json_get_int64 (obj, "Device Id", &out->device);
  _weft_json_get_int64 (obj, "Bytes", &out->bytes);
  ok = _weft_json_get_int64 (obj, "Total Allocated", &out->allocated) &&
       _weft_json_get_int64 (obj, "Total Reserved", &out->reserved);
  json_object_put (obj);
  clamp_args (out);
  return ok;
}

gboolean
weft_memory_device_is_gpu (gint64 device_type)
{
  /* c10::DeviceType: CUDA = 1, HIP = 6 */
  return device_type == 1 || device_type == 6;
}

gboolean
weft_rank_memory_peak (const WeftRank *rank, gint64 begin, gint64 end, WeftMemoryPeak *out)
{
  g_return_val_if_fail (rank != NULL && out != NULL, FALSE);
  memset (out, 0, sizeof *out);
  out->device = -1;
  for (guint i = 0; i < rank->events->len; i++)
    {
      const WeftEvent *ev = &g_array_index (rank->events, WeftEvent, i);
      WeftMemoryArgs ma;

      if (ev->category != WEFT_CAT_CPU_INSTANT || (ev->flags & WEFT_EVENT_DELETED) || ev->ts < begin || ev->ts > end
          || strcmp (weft_rank_string (rank, ev->name), "[memory]") != 0)
        continue;
      if (!_weft_memory_read_args (rank, ev, &ma))
        continue;
      if (weft_memory_device_is_gpu (ma.type))
        {
          out->n_events++;
          out->peak_allocated = MAX (out->peak_allocated, ma.allocated);
          if (ma.reserved > out->peak_reserved || out->n_events == 1)
            {
              out->peak_reserved = ma.reserved;
              out->peak_reserved_ts = ev->ts;
              out->device = (int) ma.device;
            }
        }
    }
  return out->n_events > 0;
}
