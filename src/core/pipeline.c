/* pipeline.c: the pipeline action of an event (weft-pipeline.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "weft/weft-pipeline.h"

static gboolean
parse_action (const char *name, WeftPpAction *out)
{
  int stage = -1, mb = -1, n = 0;
  char kind = 0;

  if (strncmp (name, "PP:", 3) != 0 || sscanf (name + 3, "%d%c%d%n", &stage, &kind, &mb, &n) != 3
      || name[3 + n] != '\0' || stage < 0 || mb < 0 || strchr ("FBIW", kind) == NULL || kind == '\0')
    return FALSE;
  out->stage = stage;
  out->kind = kind;
  out->microbatch = mb;
  return TRUE;
}

gboolean
weft_pp_action_parse (const char *name, WeftPpAction *out)
{
  g_return_val_if_fail (name != NULL && out != NULL, FALSE);
  return parse_action (name, out);
}

gboolean
weft_rank_pp_action (const WeftRank *rank, guint32 event, WeftPpAction *out)
{
  const WeftEvent *ev;
  gint64 best = G_MININT64;
  gboolean found = FALSE;

  g_return_val_if_fail (rank != NULL && out != NULL, FALSE);
  if (event >= rank->events->len)
    return FALSE;
  ev = &g_array_index (rank->events, WeftEvent, event);
  if ((ev->flags & WEFT_EVENT_GPU_OP) && ev->link != WEFT_NONE && ev->link < rank->events->len)
    ev = &g_array_index (rank->events, WeftEvent, ev->link);
  for (guint i = 0; i < rank->events->len; i++)
    {
      const WeftEvent *a = &g_array_index (rank->events, WeftEvent, i);
      WeftPpAction act;
      if (a->ph != WEFT_PH_X || a->category != WEFT_CAT_USER_ANNOTATION || a->lane != ev->lane
          || (a->flags & WEFT_EVENT_DELETED) || a->ts > ev->ts || weft_event_end (a) < ev->ts || a->ts < best)
        continue;
      if (!parse_action (weft_rank_string (rank, a->name), &act))
        continue;
      best = a->ts;
      *out = act;
      found = TRUE;
    }
  return found;
}
