/* save-plan.c: the overlap plan of a save (save-plan-private.h).
 *
 * Overlap rule (docs/cli.md, "Saving"): Perfetto hides X slices that overlap
 * without nesting on one (pid, tid). On every lane that holds an edited or
 * created X event, a sweep keeps proper nesting: an edited/created slice
 * that would partially overlap another slice moves to a companion lane of
 * the same pid with tid + k * WEFT_SAVE_COMPANION_TID_OFFSET (k = 1, 2, ...;
 * string tids get " #k+1" appended), skipping tids that are real lanes of the
 * rank. Untouched slices never move and are written as read, even where the
 * profiler itself wrote overlapping slices (byte identity first). Flow
 * points ("s"/"f") bound to a moved or edited slice follow it (same pid,
 * tid and ts), so Perfetto still binds the arrow.
 * docs/editing.md, "Saving". */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "save-plan-private.h"

static inline gint64
event_end_clamped (const WeftRank *rank, const WeftEvent *ev)
{
  /* saturating: values near the int64 limits from bad edits never overflow */
  if (weft_event_dur (rank, ev) <= 0)
    return ev->ts;
  return ev->ts > G_MAXINT64 - weft_event_dur (rank, ev) ? G_MAXINT64 : ev->ts + weft_event_dur (rank, ev);
}

static gboolean
text_is_integer (const char *s, gint64 *out)
{
  char *end = NULL;
  gint64 v;

  if (*s == '\0' || *s == '"')
    return FALSE;
  errno = 0;
  v = g_ascii_strtoll (s, &end, 10);
  if (end == s || *end != '\0' || errno != 0)
    return FALSE;
  *out = v;
  return TRUE;
}

/* Raw JSON text of the tid of lane at companion level (level 0: the lane's own). */
char *
_weft_save_companion_tid_text (WeftRank *rank, const WeftLane *lane, guint32 level)
{
  const char *tid = weft_rank_string (rank, lane->tid_text);
  gint64 v;

  if (level == 0)
    return g_strdup (tid);
  if (text_is_integer (tid, &v) && v < G_MAXINT64 - (gint64) level * WEFT_SAVE_COMPANION_TID_OFFSET)
    return g_strdup_printf ("%" G_GINT64_FORMAT, v + (gint64) level * WEFT_SAVE_COMPANION_TID_OFFSET);
  else
    {
      /* A string (or odd) tid: a string "<tid> #<level+1>". */
      g_autoptr (GString) b = g_string_new ("\"");
      gsize len = strlen (tid);
      const char *inner = tid;
      if (len >= 2 && tid[0] == '"' && tid[len - 1] == '"')
        {
          inner = tid + 1;
          len -= 2;
        }
      for (gsize i = 0; i < len; i++)
        {
          if (inner[i] == '"' && (i == 0 || inner[i - 1] != '\\'))
            g_string_append_c (b, '\\');
          g_string_append_c (b, inner[i]);
        }
      g_string_append_printf (b, " #%u\"", level + 1);
      return g_string_free (g_steal_pointer (&b), FALSE);
    }
}

static char *
lane_key (WeftRank *rank, const WeftLane *lane, guint32 level)
{
  g_autofree char *tid = _weft_save_companion_tid_text (rank, lane, level);
  return g_strdup_printf ("%s\x1f%s", weft_rank_string (rank, lane->pid_text), tid);
}

typedef struct
{
  GArray  *events;   /* guint32 */
  gboolean dirty;
} OutLane;

static void
out_lane_free (gpointer data)
{
  OutLane *ol = data;
  g_array_free (ol->events, TRUE);
  g_free (ol);
}

static gint
sweep_cmp (gconstpointer a, gconstpointer b, gpointer user_data)
{
  const WeftRank *rank = user_data;
  const WeftEvent *events = (const WeftEvent *) (const void *) rank->events->data;
  guint32 ia = *(const guint32 *) a, ib = *(const guint32 *) b;
  const WeftEvent *ea = &events[ia], *eb = &events[ib];
  gint64 da = MAX (weft_event_dur (rank, ea), 0), db = MAX (weft_event_dur (rank, eb), 0);
  gboolean xa = _weft_save_event_is_edited (ea), xb = _weft_save_event_is_edited (eb);

  if (ea->ts != eb->ts)
    return ea->ts < eb->ts ? -1 : 1;
  if (da != db)
    return da > db ? -1 : 1;
  if (xa != xb)
    return xa ? 1 : -1; /* untouched first: they keep their place */
  return ia < ib ? -1 : (ia > ib ? 1 : 0);
}

/* Appends event idx to the output lane for (its lane, level). */
static void
plan_place (SavePlan *plan, GHashTable *out_lanes, guint32 idx)
{
  WeftRank *rank = plan->rank;
  const WeftEvent *ev = weft_rank_event (rank, idx);
  const WeftLane *lane = weft_rank_lane (rank, ev->lane);
  g_autofree char *key = NULL;
  OutLane *ol;

  for (;;)
    {
      key = lane_key (rank, lane, plan->level[idx]);
      /* Companion tids must not land on another real lane of the rank. */
      if (plan->level[idx] == 0 || !g_hash_table_contains (rank->lane_index, key))
        break;
      g_clear_pointer (&key, g_free);
      plan->level[idx]++;
    }
  ol = g_hash_table_lookup (out_lanes, key);
  if (ol == NULL)
    {
      ol = g_new0 (OutLane, 1);
      ol->events = g_array_new (FALSE, FALSE, sizeof (guint32));
      g_hash_table_insert (out_lanes, g_steal_pointer (&key), ol);
    }
  g_array_append_val (ol->events, idx);
  if (_weft_save_event_is_edited (ev))
    ol->dirty = TRUE;
}

static void
plan_reject (SavePlan *plan, GPtrArray *rejected, guint32 idx)
{
  plan->level[idx]++;
  g_ptr_array_add (rejected, GUINT_TO_POINTER (idx));
}

/* One sweep over an output lane: keeps the accepted events in ol->events,
 * adds the rejected (edited) ones to rejected with their level raised. */
static void
sweep_lane (SavePlan *plan, OutLane *ol, GPtrArray *rejected)
{
  WeftRank *rank = plan->rank;
  const WeftEvent *events = (const WeftEvent *) (void *) rank->events->data;
  GArray *stack = g_array_new (FALSE, FALSE, sizeof (guint32));
  GArray *kept = g_array_sized_new (FALSE, FALSE, sizeof (guint32), ol->events->len);
  /* Ends (ascending) of untouched slices taken off the stack because an
   * untouched slice overlapped them (the profiler's own overlaps): an
   * edited slice must not overlap them either. */
  GArray *displaced = g_array_new (FALSE, FALSE, sizeof (gint64));
  gboolean *gone;

  g_qsort_with_data (ol->events->data, (gint) ol->events->len, sizeof (guint32), sweep_cmp, rank);
  gone = g_new0 (gboolean, ol->events->len);

  for (guint k = 0; k < ol->events->len; k++)
    {
      guint32 idx = g_array_index (ol->events, guint32, k);
      const WeftEvent *ev = &events[idx];
      gint64 s = ev->ts, e = event_end_clamped (rank, ev);

      while (stack->len > 0)
        {
          guint32 top = g_array_index (stack, guint32, stack->len - 1);
          if (event_end_clamped (rank, &events[g_array_index (ol->events, guint32, top)]) > s)
            break;
          g_array_set_size (stack, stack->len - 1);
        }

      if (_weft_save_event_is_edited (ev))
        {
          gboolean conflict = FALSE;
          if (stack->len > 0)
            {
              guint32 top = g_array_index (stack, guint32, stack->len - 1);
              conflict = event_end_clamped (rank, &events[g_array_index (ol->events, guint32, top)]) < e;
            }
          while (displaced->len > 0 && g_array_index (displaced, gint64, 0) <= s)
            g_array_remove_index (displaced, 0);
          if (displaced->len > 0 && g_array_index (displaced, gint64, 0) < e)
            conflict = TRUE;
          if (conflict)
            {
              gone[k] = TRUE;
              plan_reject (plan, rejected, idx);
              continue;
            }
        }
      else
        {
          while (stack->len > 0)
            {
              guint32 top = g_array_index (stack, guint32, stack->len - 1);
              guint32 tidx = g_array_index (ol->events, guint32, top);
              gint64 tend = event_end_clamped (rank, &events[tidx]);
              if (tend >= e)
                break;
              g_array_set_size (stack, stack->len - 1);
              if (_weft_save_event_is_edited (&events[tidx]))
                {
                  gone[top] = TRUE;
                  plan_reject (plan, rejected, tidx);
                }
              else
                {
                  /* the profiler's own overlap: kept as read */
                  guint at = displaced->len;
                  while (at > 0 && g_array_index (displaced, gint64, at - 1) > tend)
                    at--;
                  g_array_insert_val (displaced, at, tend);
                }
            }
        }
      g_array_append_val (stack, k);
    }

  for (guint k = 0; k < ol->events->len; k++)
    if (!gone[k])
      g_array_append_val (kept, g_array_index (ol->events, guint32, k));
  g_array_free (ol->events, TRUE);
  ol->events = kept;
  ol->dirty = FALSE;
  g_free (gone);
  g_array_free (stack, TRUE);
  g_array_free (displaced, TRUE);
}

void
_weft_save_plan_init (SavePlan *plan, WeftRank *rank)
{
  guint n = rank->events->len;
  gboolean any_edit = FALSE;
  g_autoptr (GHashTable) out_lanes = NULL;
  g_autoptr (GPtrArray) rejected = NULL;

  memset (plan, 0, sizeof *plan);
  plan->rank = rank;

  /* The launch Weft made for a created op that is gone again (deleted,
   * its insert undone) goes with it. */
  for (guint i = 0; i < n; i++)
    {
      const WeftEvent *ev = weft_rank_event (rank, i);
      if ((ev->flags & WEFT_EVENT_CREATED) && !(ev->flags & WEFT_EVENT_GPU_OP) &&
          ((ev->flags & WEFT_EVENT_LAUNCH) || ev->category == WEFT_CAT_CPU_OP ||
           ev->category == WEFT_CAT_USER_ANNOTATION) &&
          weft_event_link (ev) < n && (weft_rank_event (rank, weft_event_link (ev))->flags & WEFT_EVENT_DELETED))
        {
          if (plan->drop == NULL)
            plan->drop = g_new0 (gboolean, MAX (1, n));
          plan->drop[i] = TRUE;
        }
    }

  /* A deleted op was never launched: both points of its flows go (else the
   * end would bind to whatever op now runs at its old time). */
  for (guint i = 0; i < rank->flows->len; i++)
    {
      const WeftFlow *f = &g_array_index (rank->flows, WeftFlow, i);
      gboolean gone = (f->from < n && (weft_rank_event (rank, f->from)->flags & WEFT_EVENT_DELETED)) ||
                      (f->to < n && (weft_rank_event (rank, f->to)->flags & WEFT_EVENT_DELETED));
      if (!gone)
        continue;
      if (plan->drop == NULL)
        plan->drop = g_new0 (gboolean, MAX (1, n));
      if (f->start < n)
        plan->drop[f->start] = TRUE;
      if (f->end < n)
        plan->drop[f->end] = TRUE;
    }

  for (guint i = 0; i < n && !any_edit; i++)
    {
      const WeftEvent *ev = weft_rank_event (rank, i);
      if (_weft_save_event_is_edited (ev) && !(ev->flags & WEFT_EVENT_DELETED))
        any_edit = TRUE;
    }
  if (!any_edit)
    return;

  plan->any = TRUE;
  plan->level = g_new0 (guint32, n);
  plan->bind = g_new (guint32, n);
  for (guint i = 0; i < n; i++)
    plan->bind[i] = WEFT_NONE;

  /* Only lanes that hold an edited X slice need a sweep; the others are
   * written as read. */
  {
    gboolean *lane_dirty = g_new0 (gboolean, rank->lanes->len);
    out_lanes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, out_lane_free);
    rejected = g_ptr_array_new ();

    for (guint i = 0; i < n; i++)
      {
        const WeftEvent *ev = weft_rank_event (rank, i);
        if (ev->ph == WEFT_PH_X && ev->lane != WEFT_NONE && ev->lane < rank->lanes->len &&
            !(ev->flags & WEFT_EVENT_DELETED) && _weft_save_event_is_edited (ev))
          lane_dirty[ev->lane] = TRUE;
      }
    for (guint i = 0; i < n; i++)
      {
        const WeftEvent *ev = weft_rank_event (rank, i);
        if (ev->ph == WEFT_PH_X && ev->lane != WEFT_NONE && ev->lane < rank->lanes->len &&
            !(ev->flags & WEFT_EVENT_DELETED) && lane_dirty[ev->lane])
          plan_place (plan, out_lanes, i);
      }
    g_free (lane_dirty);

    for (;;)
      {
        GHashTableIter it;
        gpointer value;
        gboolean swept = FALSE;

        g_hash_table_iter_init (&it, out_lanes);
        while (g_hash_table_iter_next (&it, NULL, &value))
          {
            OutLane *ol = value;
            if (!ol->dirty)
              continue;
            sweep_lane (plan, ol, rejected);
            swept = TRUE;
          }
        if (!swept && rejected->len == 0)
          break;
        /* Place the rejected ones on their next companion lane. Inserting
         * into the table while iterating is not allowed: done here. */
        for (guint i = 0; i < rejected->len; i++)
          plan_place (plan, out_lanes, GPOINTER_TO_UINT (g_ptr_array_index (rejected, i)));
        g_ptr_array_set_size (rejected, 0);
      }
  }

  /* Orphan flow ends (an 'f' whose 's' is not in the file, common in real
   * traces) carry the correlation of their op as id: they follow it too. */
  {
    g_autoptr (GHashTable) by_corr = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
    g_autofree gboolean *paired = g_new0 (gboolean, MAX (1, n));
    for (guint i = 0; i < rank->flows->len; i++)
      {
        const WeftFlow *f = &g_array_index (rank->flows, WeftFlow, i);
        if (f->start < n)
          paired[f->start] = TRUE;
        if (f->end < n)
          paired[f->end] = TRUE;
      }
    for (guint i = 0; i < n; i++)
      {
        const WeftEvent *ev = weft_rank_event (rank, i);
        gint64 corr = weft_event_correlation (rank, ev);
        if ((ev->flags & WEFT_EVENT_GPU_OP) && corr >= 0 && !(ev->flags & WEFT_EVENT_DELETED) &&
            (_weft_save_event_is_edited (ev) || plan->level[i] > 0))
          g_hash_table_insert (by_corr, g_memdup2 (&corr, sizeof corr), GUINT_TO_POINTER (i + 1));
      }
    for (guint i = 0; i < n && g_hash_table_size (by_corr) > 0; i++)
      {
        const WeftEvent *ev = weft_rank_event (rank, i);
        gpointer op;
        if (ev->ph != WEFT_PH_F || paired[i] || weft_event_flow_id (rank, ev) < 0)
          continue;
        op = g_hash_table_lookup (by_corr, &(gint64) { weft_event_flow_id (rank, ev) });
        if (op != NULL && weft_rank_event (rank, GPOINTER_TO_UINT (op) - 1)->lane == ev->lane)
          plan->bind[i] = GPOINTER_TO_UINT (op) - 1;
      }
  }

  /* Flow points follow the slices they bind to when those are edited or moved. */
  for (guint i = 0; i < rank->flows->len; i++)
    {
      const WeftFlow *f = &g_array_index (rank->flows, WeftFlow, i);
      const guint32 pts[2] = { f->start, f->end };
      const guint32 slices[2] = { f->from, f->to };
      for (guint j = 0; j < 2; j++)
        {
          const WeftEvent *slice;
          if (pts[j] >= n || slices[j] >= n)
            continue;
          slice = weft_rank_event (rank, slices[j]);
          if (slice->flags & WEFT_EVENT_DELETED)
            continue;
          if (_weft_save_event_is_edited (slice) || plan->level[slices[j]] > 0)
            plan->bind[pts[j]] = slices[j];
        }
    }
}

void
_weft_save_plan_clear (SavePlan *plan)
{
  g_free (plan->level);
  g_free (plan->bind);
  g_free (plan->drop);
  plan->level = plan->bind = NULL;
  plan->drop = NULL;
}
