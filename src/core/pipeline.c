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
  if ((ev->flags & WEFT_EVENT_GPU_OP) && weft_event_link (ev) != WEFT_NONE && weft_event_link (ev) < rank->events->len)
    ev = &g_array_index (rank->events, WeftEvent, weft_event_link (ev));
  for (guint i = 0; i < rank->events->len; i++)
    {
      const WeftEvent *a = &g_array_index (rank->events, WeftEvent, i);
      WeftPpAction act;
      if (a->ph != WEFT_PH_X || a->category != WEFT_CAT_USER_ANNOTATION || a->lane != ev->lane
          || (a->flags & WEFT_EVENT_DELETED) || a->ts > ev->ts || weft_event_end (rank, a) < ev->ts || a->ts < best)
        continue;
      if (!parse_action (weft_rank_string (rank, a->name), &act))
        continue;
      best = a->ts;
      *out = act;
      found = TRUE;
    }
  return found;
}

/* One "PP:" annotation of a CPU thread. */
typedef struct
{
  gint64  ts, end;
  guint32 index;
  guint32 packed;
} Action;

static int
action_cmp (const void *a, const void *b)
{
  const Action *x = a, *y = b;
  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

guint32 *
weft_rank_pp_action_table (const WeftRank *rank)
{
  const WeftEvent *events;
  guint n, n_lanes;
  GArray **per_lane;
  gint64 **max_end;
  guint32 *table = NULL;
  gboolean any = FALSE;

  g_return_val_if_fail (rank != NULL, NULL);
  n = rank->events->len;
  n_lanes = rank->lanes->len;
  events = (const WeftEvent *) (void *) rank->events->data;
  per_lane = g_new0 (GArray *, MAX (n_lanes, 1));
  /* the actions per lane, sorted as weft_rank_pp_action ranks them (by
   * start, ties: the later event) */
  for (guint i = 0; i < n; i++)
    {
      const WeftEvent *a = &events[i];
      WeftPpAction act;
      Action x;
      if (a->ph != WEFT_PH_X || a->category != WEFT_CAT_USER_ANNOTATION || (a->flags & WEFT_EVENT_DELETED) ||
          a->lane == WEFT_NONE || a->lane >= n_lanes || !parse_action (weft_rank_string (rank, a->name), &act))
        continue;
      x.ts = a->ts;
      x.end = weft_event_end (rank, a);
      x.index = i;
      x.packed = weft_pp_action_pack (&act);
      if (x.packed == 0)
        continue;
      if (per_lane[a->lane] == NULL)
        per_lane[a->lane] = g_array_new (FALSE, FALSE, sizeof (Action));
      g_array_append_val (per_lane[a->lane], x);
      any = TRUE;
    }
  if (!any)
    {
      g_free (per_lane);
      return NULL;
    }
  /* prefix maxima of the ends: a walk back from the last action started
   * at or before t stops as soon as none before can still run at t */
  max_end = g_new0 (gint64 *, n_lanes);
  for (guint l = 0; l < n_lanes; l++)
    if (per_lane[l] != NULL)
      {
        Action *v = (Action *) (void *) per_lane[l]->data;
        guint m = per_lane[l]->len;
        qsort (v, m, sizeof (Action), action_cmp);
        max_end[l] = g_new (gint64, m);
        for (guint k = 0; k < m; k++)
          max_end[l][k] = k > 0 ? MAX (max_end[l][k - 1], v[k].end) : v[k].end;
      }
  table = g_new0 (guint32, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      const WeftEvent *ev = &events[i];
      const Action *v;
      guint lo = 0, hi;
      if ((ev->flags & WEFT_EVENT_GPU_OP) && weft_event_link (ev) != WEFT_NONE && weft_event_link (ev) < n)
        ev = &events[weft_event_link (ev)];
      if (ev->lane == WEFT_NONE || ev->lane >= n_lanes || per_lane[ev->lane] == NULL)
        continue;
      v = (const Action *) (void *) per_lane[ev->lane]->data;
      hi = per_lane[ev->lane]->len;
      /* first action starting after ev */
      while (lo < hi)
        {
          guint mid = lo + (hi - lo) / 2;
          if (v[mid].ts <= ev->ts)
            lo = mid + 1;
          else
            hi = mid;
        }
      for (guint k = lo; k > 0 && max_end[ev->lane][k - 1] >= ev->ts; k--)
        if (v[k - 1].end >= ev->ts)
          {
            table[i] = v[k - 1].packed;
            break;
          }
    }
  for (guint l = 0; l < n_lanes; l++)
    {
      if (per_lane[l] != NULL)
        g_array_free (per_lane[l], TRUE);
      g_free (max_end[l]);
    }
  g_free (per_lane);
  g_free (max_end);
  return table;
}
