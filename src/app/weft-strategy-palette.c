/* weft-strategy-palette.c: each strategy's collectives for the palette. */
#include "config.h"

#include <string.h>

#include "weft/weft-apply.h"
#include "weft-strategy-palette.h"

guint
weft_strategy_palette_append (WeftEditSession *session, GPtrArray *collectives)
{
  WeftTrace *trace;
  guint n_ranks, added = 0;
  int degree;

  g_return_val_if_fail (session != NULL && collectives != NULL, 0);
  trace = weft_edit_session_get_trace (session);
  n_ranks = trace->ranks->len;
  degree = (int) CLAMP (n_ranks, 2, 8);
  for (int s = 0; s < WEFT_APPLY_N_STRATEGIES; s++)
    {
      WeftApplyParams p;
      g_autoptr (GPtrArray) cs = NULL;

      weft_apply_params_init (&p);
      p.strategy = (WeftApplyStrategy) s;
      p.degree = degree;
      p.cost_model = weft_edit_session_get_cost_model (session);
      cs = weft_apply_strategy_collectives (&p, NULL);
      if (cs == NULL)
        continue;
      for (guint i = 0; i < cs->len; i++)
        {
          const WeftApplyCollective *a = g_ptr_array_index (cs, i);
          WeftPaletteCollective *c = g_new0 (WeftPaletteCollective, 1);
          guint n = MIN ((guint) a->group_size, n_ranks);

          c->type = a->type;
          c->pg_name = g_strconcat (WEFT_STRATEGY_PALETTE_PG_PREFIX, weft_apply_strategy_to_string (p.strategy), NULL);
          c->pg_desc = g_strdup (a->label);
          c->ranks = g_new0 (int, MAX (n, 1));
          for (guint r = 0; r < n; r++)
            c->ranks[r] = weft_trace_rank (trace, r)->rank;
          c->n_ranks = n;
          c->median_bytes = a->bytes;
          c->stream = a->stream;
          c->count = 0;
          c->estimate_ns = a->estimate_ns;
          g_ptr_array_add (collectives, c);
          added++;
        }
    }
  return added;
}

gboolean
weft_strategy_palette_is_item (const WeftPaletteCollective *c)
{
  return c != NULL && c->pg_name != NULL && g_str_has_prefix (c->pg_name, WEFT_STRATEGY_PALETTE_PG_PREFIX) &&
         c->count == 0;
}

int *
weft_strategy_palette_group (WeftTrace *trace, const WeftPaletteCollective *c, guint rank_index, guint *n_ranks)
{
  guint n = c->n_ranks, first;
  int *ranks;

  g_return_val_if_fail (trace != NULL && c != NULL && n_ranks != NULL, NULL);
  if (n == 0 || n > trace->ranks->len || rank_index >= trace->ranks->len)
    n = MIN (MAX (n, 1), trace->ranks->len);
  first = MIN (rank_index / MAX (n, 1) * n, trace->ranks->len - n);
  ranks = g_new0 (int, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    ranks[i] = weft_trace_rank (trace, first + i)->rank;
  *n_ranks = n;
  return ranks;
}
