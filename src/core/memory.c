/* memory.c: the caching allocator's totals from a trace's [memory] events
 * (weft-memory.h). */
#include "config.h"

#include <string.h>

#include "weft/weft-memory.h"
#include "util-private.h"

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
      json_object *args;
      gint64 type = 1, dev = -1, alloc = 0, reserved = 0;

      if (ev->category != WEFT_CAT_CPU_INSTANT || (ev->flags & WEFT_EVENT_DELETED) || ev->ts < begin || ev->ts > end
          || strcmp (weft_rank_string (rank, ev->name), "[memory]") != 0)
        continue;
      args = weft_event_parse_args (rank, ev);
      if (args == NULL)
        continue;
      _weft_json_get_int64 (args, "Device Type", &type);
      _weft_json_get_int64 (args, "Device Id", &dev);
      if (weft_memory_device_is_gpu (type) && _weft_json_get_int64 (args, "Total Allocated", &alloc)
          && _weft_json_get_int64 (args, "Total Reserved", &reserved))
        {
          out->n_events++;
          out->peak_allocated = MAX (out->peak_allocated, alloc);
          if (reserved > out->peak_reserved || out->n_events == 1)
            {
              out->peak_reserved = reserved;
              out->peak_reserved_ts = ev->ts;
              out->device = (int) dev;
            }
        }
      json_object_put (args);
    }
  return out->n_events > 0;
}
