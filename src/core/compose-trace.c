/* compose-trace.c: a composed step loaded into an in-memory trace with the
 * real loader (the same code path as opening the files). */
#include "config.h"

#include "weft/weft-compose.h"
#include "weft/weft-load.h"

WeftTrace *
weft_compose_trace (const WeftComposeParams *params, GError **error)
{
  g_autoptr (GPtrArray) texts = weft_compose_json (params, error);
  g_autoptr (WeftTrace) trace = NULL;

  if (texts == NULL)
    return NULL;
  trace = weft_trace_new ();
  for (guint r = 0; r < texts->len; r++)
    {
      gsize len;
      const char *data = g_bytes_get_data (g_ptr_array_index (texts, r), &len);
      g_autofree char *name = g_strdup_printf ("composed/profiling/traces/iteration_%d/rank%u_trace.json",
                                               params->iteration, r);
      WeftRank *rank = weft_rank_load_buffer (name, data, len, NULL, error);

      if (rank == NULL)
        return NULL;
      weft_trace_add_rank (trace, rank);
    }
  weft_trace_index_across_ranks (trace);
  return g_steal_pointer (&trace);
}
