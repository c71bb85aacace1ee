/* model-index.c: the post-load index of a rank (metadata, lanes and their
 * kinds and roles, flows, launch links, steps) and of a trace. It calls the
 * classification (classify.c) in its place in the sequence: model.c below
 * it knows nothing of classify.c, and classify.c reads the model. */
#include "config.h"

#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "weft/weft-classify.h"
#include "weft/weft-model.h"
#include "idmap-private.h"
#include "runsort-private.h"
#include "textstore-private.h"

/* ---- index ------------------------------------------------------------------ */

static gboolean
is_gpu_category (WeftCategory c)
{
  return c == WEFT_CAT_KERNEL || c == WEFT_CAT_GPU_MEMCPY || c == WEFT_CAT_GPU_MEMSET;
}

/* process_name / thread_name / thread_sort_index / process_labels from
 * one M event (process names by interned pid text into process_names). */
static void
metadata_event (WeftRank *rank, const WeftEvent *ev, GHashTable *process_names)
{
  json_object *obj, *args, *v, *pid, *tid;
  const char *name;

  name = weft_rank_string (rank, ev->name);
  if (strcmp (name, "process_name") != 0 && strcmp (name, "thread_name") != 0 &&
      strcmp (name, "thread_sort_index") != 0 && strcmp (name, "process_labels") != 0)
    return;
  obj = weft_event_parse (rank, ev);
  if (obj == NULL)
    return;
  if (!json_object_object_get_ex (obj, "args", &args) || !json_object_object_get_ex (obj, "pid", &pid))
    {
      json_object_put (obj);
      return;
    }
  if (strcmp (name, "process_name") == 0 || strcmp (name, "process_labels") == 0)
    {
      const char *key = strcmp (name, "process_name") == 0 ? "name" : "labels";
      if (json_object_object_get_ex (args, key, &v) && json_object_is_type (v, json_type_string))
        {
          const char *pt = json_object_to_json_string_ext (pid, JSON_C_TO_STRING_PLAIN);
          guint32 pid_id = weft_strings_intern (rank->strings, pt, -1);
          guint32 val = weft_strings_intern (rank->strings, json_object_get_string (v), -1);
          if (strcmp (name, "process_name") == 0 || !g_hash_table_contains (process_names, GUINT_TO_POINTER (pid_id + 1)))
            g_hash_table_insert (process_names, GUINT_TO_POINTER (pid_id + 1), GUINT_TO_POINTER (val));
        }
    }
  else if (json_object_object_get_ex (obj, "tid", &tid))
    {
      const char *pt = json_object_to_json_string_ext (pid, JSON_C_TO_STRING_PLAIN);
      char *pdup = g_strdup (pt);
      const char *tt = json_object_to_json_string_ext (tid, JSON_C_TO_STRING_PLAIN);
      char *key = g_strdup_printf ("%s\x1f%s", pdup, tt);
      gpointer found = g_hash_table_lookup (rank->lane_index, key);
      if (found != NULL)
        {
          WeftLane *lane = weft_rank_lane (rank, GPOINTER_TO_UINT (found) - 1);
          if (strcmp (name, "thread_name") == 0 && json_object_object_get_ex (args, "name", &v) &&
              json_object_is_type (v, json_type_string))
            lane->name = weft_strings_intern (rank->strings, json_object_get_string (v), -1);
          else if (strcmp (name, "thread_sort_index") == 0 && json_object_object_get_ex (args, "sort_index", &v))
            lane->sort_index = json_object_get_int64 (v);
        }
      g_free (key);
      g_free (pdup);
    }
  json_object_put (obj);
}

/* Each lane's process name, once the M events are read. */
static void
metadata_finish (WeftRank *rank, GHashTable *process_names)
{
  for (guint i = 0; i < rank->lanes->len; i++)
    {
      WeftLane *lane = weft_rank_lane (rank, i);
      gpointer pn = g_hash_table_lookup (process_names, GUINT_TO_POINTER (lane->pid_text + 1));
      if (pn != NULL)
        lane->process_name = GPOINTER_TO_UINT (pn);
    }
}

/* Lane kinds, from which lanes (gpu_pid_seen, by lane) have GPU events. */
static void
assign_lane_kinds (WeftRank *rank, const gboolean *gpu_pid_seen)
{
  guint n = rank->lanes->len;

  for (guint i = 0; i < n; i++)
    {
      WeftLane *lane = weft_rank_lane (rank, i);
      const char *pname = weft_rank_string (rank, lane->process_name);
      gboolean gpu = gpu_pid_seen[i];

      /* A lane on the same (numeric) pid as a GPU lane, e.g. cuda_sync
       * events or Stream Sync lanes, is a GPU lane too. */
      if (!gpu && lane->pid != G_MININT64 && lane->tid != G_MININT64)
        for (guint j = 0; j < n && !gpu; j++)
          if (gpu_pid_seen[j] && weft_rank_lane (rank, j)->pid_text == lane->pid_text)
            gpu = TRUE;
      if (!gpu && (g_str_has_prefix (pname, "GPU") || strstr (pname, "GPU ") != NULL) && lane->tid != G_MININT64)
        gpu = TRUE;

      if (gpu)
        {
          lane->kind = WEFT_LANE_GPU;
          lane->device = lane->pid != G_MININT64 ? (int) CLAMP (lane->pid, -1, G_MAXINT) : -1;
          if (lane->tid >= 1000000)
            lane->role = WEFT_LANE_ROLE_SYNC;
        }
      else if (lane->pid != G_MININT64 && lane->tid != G_MININT64 && lane->pid >= 0)
        lane->kind = WEFT_LANE_CPU;
      else
        lane->kind = WEFT_LANE_OTHER;
    }
}

/* The first position of the lane whose event starts after ts, by a
 * gallop from *hint (the answer for the lane's previous point, whose
 * times the file's order keeps close: a flow end's search touched ~20
 * records across the lane, cache misses on a large rank), which it then
 * becomes. The lane is sorted by start, so this is the binary search's
 * answer wherever the gallop begins. */
static guint
lane_first_after (WeftRank *rank, const guint32 *idx, guint n, gint64 ts, guint *hint)
{
  gsize lo;

#define STARTS_BY_TS(i) (weft_rank_event (rank, idx[i])->ts <= ts)
  WEFT_GALLOP (STARTS_BY_TS, n, *hint, lo);
#undef STARTS_BY_TS
  *hint = (guint) lo;
  return (guint) lo;
}

/* The X slice on the lane that a flow point at time ts binds to: one that
 * starts exactly at ts, else the innermost one enclosing ts. hints: one
 * search start per lane (lane_first_after). */
static guint32
slice_at (WeftRank *rank, guint32 lane_idx, gint64 ts, guint *hints)
{
  WeftLane *lane;
  guint lo;
  guint32 best = WEFT_NONE;
  const guint32 *idx;

  if (lane_idx == WEFT_NONE)
    return WEFT_NONE;
  lane = weft_rank_lane (rank, lane_idx);
  idx = (const guint32 *) (void *) lane->events->data;
  lo = lane_first_after (rank, idx, lane->events->len, ts, &hints[lane_idx]);
  /* walk back: the last event starting <= ts that covers ts is innermost
   * among those starting at or before ts (sorted by ts, then longer first). */
  for (guint k = lo; k > 0 && lo - k < 64; k--)
    {
      const WeftEvent *ev = weft_rank_event (rank, idx[k - 1]);
      if (ev->ph != WEFT_PH_X)
        continue;
      if (ev->ts == ts || (ev->ts <= ts && weft_event_end (rank, ev) > ts))
        {
          best = idx[k - 1];
          break;
        }
    }
  return best;
}

/* A flow point's table (0: fwdbwd, 1: ac2g) and id; FALSE when it pairs
 * with nothing. */
static gboolean
flow_point (const WeftRank *rank, const WeftEvent *ev, guint *table, gint64 *id)
{
  if ((ev->ph != WEFT_PH_S && ev->ph != WEFT_PH_F) ||
      (ev->category != WEFT_CAT_AC2G && ev->category != WEFT_CAT_FWDBWD))
    return FALSE;
  *id = weft_event_flow_id (rank, ev);
  *table = ev->category == WEFT_CAT_AC2G;
  return *id >= 0;
}

static gboolean
is_launch_candidate (const WeftRank *rank, const WeftEvent *ev)
{
  return ev->ph == WEFT_PH_X && (ev->category == WEFT_CAT_CUDA_RUNTIME || ev->category == WEFT_CAT_CUDA_DRIVER) &&
         !(ev->flags & WEFT_EVENT_DELETED) && weft_event_correlation (rank, ev) >= 0;
}

/* Without correlation args, launches are linked through ac2g flows. */
static void
link_launches_by_flows (WeftRank *rank)
{
  for (guint i = 0; i < rank->flows->len; i++)
    {
      const WeftFlow *f = &g_array_index (rank->flows, WeftFlow, i);
      WeftEvent *from, *to;
      if (f->category != WEFT_CAT_AC2G || f->from == WEFT_NONE || f->to == WEFT_NONE)
        continue;
      from = weft_rank_event (rank, f->from);
      to = weft_rank_event (rank, f->to);
      if (weft_event_link (to) == WEFT_NONE && weft_event_link (from) == WEFT_NONE && (to->flags & WEFT_EVENT_GPU_OP))
        {
          weft_event_set_link (to, f->from);
          weft_event_set_link (from, f->to);
          from->flags |= WEFT_EVENT_LAUNCH;
        }
    }
}

/* rank->steps by begin (stable: equal begins keep their order). */
static void
sort_steps (WeftRank *rank)
{
  for (guint i = 1; i < rank->steps->len; i++)
    for (guint j = i; j > 0; j--)
      {
        WeftStep *a = &g_array_index (rank->steps, WeftStep, j - 1);
        WeftStep *b = &g_array_index (rank->steps, WeftStep, j);
        if (a->begin <= b->begin)
          break;
        WeftStep t = *a;
        *a = *b;
        *b = t;
      }
}

/* Hands back to the system the whole pages of a's room past its length.
 * A GArray's room is a power of two; where the array grew onto pages that
 * blocks freed earlier in the load had written (the heap gives them out
 * again), its unused room stayed resident though nothing reads it: 3.7 MiB
 * of the scaled df_index_resolver trace's flows, 0.8 % of its JSON
 * (docs/benchmarks.md, "Memory"). Pages handed back read as zeros if the
 * array grows into them. glibc only (malloc_usable_size), as load.c's
 * malloc_trim; a few calls, only for room of 64 KiB or more. */
static void
release_array_room (GArray *a)
{
#if defined(__GLIBC__) && defined(MADV_DONTNEED)
  guintptr page, lo, hi;

  if (a->data == NULL)
    return;
  page = (guintptr) sysconf (_SC_PAGESIZE);
  lo = ((guintptr) a->data + (guintptr) a->len * g_array_get_element_size (a) + page - 1) & ~(page - 1);
  hi = ((guintptr) a->data + malloc_usable_size (a->data)) & ~(page - 1);
  if (hi > lo && hi - lo >= 16 * page)
    (void) madvise ((void *) lo, hi - lo, MADV_DONTNEED);
#else
  (void) a;
#endif
}

/* Lane roles from what runs on each GPU stream: mostly communication ->
 * NCCL (FSDP all-gather / reduce-scatter where the rank's CPU ops say FSDP
 * and nearly all of the lane's collectives are of that type), mostly
 * copies -> copy, else compute. Stream Sync lanes keep their role. */
static void
assign_lane_roles (WeftRank *rank, gboolean fsdp)
{
  for (guint l = 0; l < rank->lanes->len; l++)
    {
      WeftLane *lane = weft_rank_lane (rank, l);
      guint n_comm = 0, n_compute = 0, n_copy = 0, n_ag = 0, n_rs = 0;

      if (lane->kind != WEFT_LANE_GPU || lane->role == WEFT_LANE_ROLE_SYNC)
        continue;
      for (guint i = 0; i < lane->events->len; i++)
        {
          const WeftEvent *ev = weft_rank_event (rank, g_array_index (lane->events, guint32, i));
          if (!(ev->flags & WEFT_EVENT_GPU_OP) || (ev->flags & WEFT_EVENT_DELETED))
            continue;
          if (ev->kclass == WEFT_KCLASS_COMM)
            {
              n_comm++;
              if (weft_event_coll (rank, ev) != WEFT_NONE && weft_event_coll (rank, ev) < rank->collectives->len)
                {
                  WeftCollType t = g_array_index (rank->collectives, WeftCollective, weft_event_coll (rank, ev)).type;
                  n_ag += t == WEFT_COLL_ALL_GATHER;
                  n_rs += t == WEFT_COLL_REDUCE_SCATTER;
                }
            }
          else if (ev->kclass == WEFT_KCLASS_COPY)
            n_copy++;
          else
            n_compute++;
        }
      if (n_comm + n_compute + n_copy == 0)
        lane->role = WEFT_LANE_ROLE_NONE;
      else if (n_comm > n_compute && n_comm >= n_copy)
        {
          if (fsdp && n_ag * 10 >= n_comm * 9)
            lane->role = WEFT_LANE_ROLE_FSDP_AG;
          else if (fsdp && n_rs * 10 >= n_comm * 9)
            lane->role = WEFT_LANE_ROLE_FSDP_RS;
          else
            lane->role = WEFT_LANE_ROLE_COMM;
        }
      else if (n_copy > n_compute)
        lane->role = WEFT_LANE_ROLE_COPY;
      else
        lane->role = WEFT_LANE_ROLE_COMPUTE;
    }
}

/* The index in two passes over the records (they are 40 bytes each,
 * ~150 MB on a 4 GB trace: the passes are memory-bound; there were 12):
 *
 * A: metadata (M events), lanes filled, which lanes have GPU events, links
 *    and launch flags reset, flow starts and launches into their id maps,
 *    steps, FSDP ops seen;
 *    then the lanes sorted, their kinds, the maps frozen;
 * B: GPU ops flagged (from their lane's kind), flows paired at their
 *    ends, GPU ops linked to their launches;
 *    then the flow fallback for links, the classification, lane roles.
 *
 * Each step sees what it saw when they were separate passes: within a pass
 * no step reads what another writes (flow ids share their slot with the
 * link, but weft_event_set_link (WEFT_NONE) leaves a flow's alone; an
 * event's GPU-op flag is set before its own link is looked for, and no
 * step of B reads another event's). */
void
weft_rank_index (WeftRank *rank)
{
  GHashTable *process_names = g_hash_table_new (g_direct_hash, g_direct_equal);
  gboolean *gpu_pid_seen = g_new0 (gboolean, rank->lanes->len);
  WeftIdMap starts[2], by_corr;
  gboolean fsdp = FALSE;
  guint table;
  gint64 id;
  guint n = rank->events->len;
  guint *hints;

  for (guint l = 0; l < rank->lanes->len; l++)
    g_array_set_size (weft_rank_lane (rank, l)->events, 0);
  g_array_set_size (rank->steps, 0);
  g_array_set_size (rank->flows, 0);
  _weft_id_map_init (&starts[0], 0);
  _weft_id_map_init (&starts[1], 0);
  _weft_id_map_init (&by_corr, 0);

  /* A */
  for (guint i = 0; i < n; i++)
    {
      WeftEvent *ev = weft_rank_event (rank, i);
      gboolean deleted = (ev->flags & WEFT_EVENT_DELETED) != 0;

      if (ev->ph == WEFT_PH_M)
        metadata_event (rank, ev, process_names);
      if (ev->lane != WEFT_NONE)
        {
          if (!deleted && (ev->ph == WEFT_PH_X || ev->ph == WEFT_PH_I))
            g_array_append_val (weft_rank_lane (rank, ev->lane)->events, i);
          if (is_gpu_category (ev->category) || ev->category == WEFT_CAT_GPU_USER_ANNOTATION)
            gpu_pid_seen[ev->lane] = TRUE;
        }
      weft_event_set_link (ev, WEFT_NONE);
      ev->flags &= ~WEFT_EVENT_LAUNCH;
      if (ev->ph == WEFT_PH_S && flow_point (rank, ev, &table, &id))
        _weft_id_map_set (&starts[table], id, i); /* the last start of an id wins */
      if (is_launch_candidate (rank, ev))
        _weft_id_map_set (&by_corr, weft_event_correlation (rank, ev), i); /* the last launch wins */
      if (ev->ph == WEFT_PH_X && (ev->category == WEFT_CAT_USER_ANNOTATION || ev->category == WEFT_CAT_CPU_OP))
        {
          const char *name = weft_rank_string (rank, ev->name);
          if (!deleted && g_str_has_prefix (name, "ProfilerStep#"))
            {
              WeftStep step;
              step.event = i;
              step.number = (int) g_ascii_strtoll (name + strlen ("ProfilerStep#"), NULL, 10);
              step.begin = ev->ts;
              step.end = weft_event_end (rank, ev);
              g_array_append_val (rank->steps, step);
            }
          if (!fsdp && g_str_has_prefix (name, "FSDP::")) /* deleted ones too, as before */
            fsdp = TRUE;
        }
    }
  metadata_finish (rank, process_names);
  g_hash_table_destroy (process_names);
  for (guint l = 0; l < rank->lanes->len; l++)
    weft_lane_sort (rank, weft_rank_lane (rank, l));
  assign_lane_kinds (rank, gpu_pid_seen);
  g_free (gpu_pid_seen);

  _weft_id_map_freeze (&starts[0]);
  _weft_id_map_freeze (&starts[1]);
  _weft_id_map_freeze (&by_corr);

  /* B */
  hints = g_new0 (guint, rank->lanes->len);
  for (guint i = 0; i < n; i++)
    {
      WeftEvent *ev = weft_rank_event (rank, i);
      if (ev->lane != WEFT_NONE && is_gpu_category (ev->category) && ev->ph == WEFT_PH_X &&
          weft_rank_lane (rank, ev->lane)->kind == WEFT_LANE_GPU)
        ev->flags |= WEFT_EVENT_GPU_OP;
      if (ev->ph == WEFT_PH_F && flow_point (rank, ev, &table, &id))
        {
          guint32 s = _weft_id_map_get (&starts[table], id);
          if (s != G_MAXUINT32) /* else an orphan: dropped */
            {
              WeftFlow flow;
              const WeftEvent *start = weft_rank_event (rank, s);
              flow.category = (WeftCategory) ev->category;
              flow.start = s;
              flow.end = i;
              flow.from = slice_at (rank, start->lane, start->ts, hints);
              flow.to = slice_at (rank, ev->lane, ev->ts, hints);
              g_array_append_val (rank->flows, flow);
            }
        }
      if ((ev->flags & WEFT_EVENT_GPU_OP) && !(ev->flags & WEFT_EVENT_DELETED))
        {
          gint64 corr = weft_event_correlation (rank, ev);
          guint32 l = corr >= 0 ? _weft_id_map_get (&by_corr, corr) : G_MAXUINT32;
          if (l != G_MAXUINT32)
            {
              WeftEvent *launch = weft_rank_event (rank, l);
              weft_event_set_link (ev, l);
              weft_event_set_link (launch, i);
              launch->flags |= WEFT_EVENT_LAUNCH;
            }
        }
    }
  g_free (hints);
  _weft_id_map_clear (&starts[0]);
  _weft_id_map_clear (&starts[1]);
  _weft_id_map_clear (&by_corr);

  release_array_room (rank->flows);
  for (guint l = 0; l < rank->lanes->len; l++)
    release_array_room (weft_rank_lane (rank, l)->events);
  link_launches_by_flows (rank);
  sort_steps (rank);
  weft_rank_classify (rank);
  assign_lane_roles (rank, fsdp);
  /* the classification's reads are done: give back the decoded blocks
   * (~0.6 MiB a rank), refilled on demand by later readers, and the texts
   * the scanner kept plain for it (later reads decode their blocks) */
  _weft_text_store_drop_cache (rank->texts);
  _weft_text_store_drop_kept (rank->texts);
}

void
weft_trace_index_across_ranks (WeftTrace *self)
{
  weft_trace_match_collectives (self);
  weft_trace_estimate_clock_offsets (self);
}

void
weft_trace_index (WeftTrace *self)
{
  for (guint i = 0; i < self->ranks->len; i++)
    weft_rank_index (weft_trace_rank (self, i));
  weft_trace_index_across_ranks (self);
}
