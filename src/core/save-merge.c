/* save-merge.c: every rank of a trace in one Chrome-trace JSON file, for
 * Perfetto (`weft-cli convert IN OUT --merge`).
 *
 * Perfetto keys tracks by (pid, tid); the ranks of a job reuse the same
 * pids (GPU device indices, often 0 everywhere) and flow ids (correlation
 * ids count from the same start on every rank). So:
 *
 * - rank R is one process, pid R, named "rank R" (process_name and
 *   process_sort_index M events);
 * - each of its lanes is one thread of that process: its tid kept when it
 *   is a number not taken by another lane of the rank, else a fresh one;
 *   named "<process> / <thread>" from the rank's own process_name and
 *   thread_name metadata ("GPU 0 / stream 7"), CPU threads sorted first;
 *   the rank's own process/thread name and sort M events are replaced;
 * - flow ids ("s"/"t"/"f") + R * stride, stride a power of ten above every
 *   rank's largest id, so that an arrow never joins two ranks; where that
 *   would pass G_MAXINT64, or a rank has negative ids (which an offset
 *   cannot keep apart), each rank's ids are renumbered 0, 1, ... in the
 *   order they first appear, + R * stride (the "weft" key says which);
 * - times on the common timeline: ts = event + the rank's clock offset
 *   (when the trace applies offsets) - one baseTimeNanoseconds (the
 *   earliest aligned event), written as Kineto's "<us>.<3 digits>".
 *
 * Every other byte of an event is kept: only the values of "pid", "tid",
 * "ts" and a flow's "id" are spliced. */
#include "config.h"

#include <string.h>

#include "weft/weft-save.h"
#include "save-private.h"
#include "save-splice-private.h"

/* ---- splicing top-level values of an event object ------------------------- */

enum { K_PID, K_TID, K_TS, K_ID, N_KEYS };
static const char *const splice_keys[N_KEYS] = { "pid", "tid", "ts", "id" };

/* Writes the object text t with the values of the keys whose value[k] is
 * not NULL replaced (absent keys are not added). */
static gboolean
write_spliced (WeftSink *sink, const char *t, gsize len, const char *const value[N_KEYS])
{
  gsize i = _weft_save_skip_ws (t, 0, len), from = 0;

  if (i >= len || t[i] != '{')
    return weft_sink_write (sink, t, len);
  i++;
  for (;;)
    {
      gsize ks, ke, vs, ve;
      int hit = -1;

      i = _weft_save_skip_ws (t, i, len);
      if (i >= len || t[i] != '"')
        break;
      ks = i + 1;
      ke = _weft_save_skip_string (t, i, len) - 1;
      i = _weft_save_skip_ws (t, ke + 1, len);
      if (i >= len || t[i] != ':')
        break;
      vs = _weft_save_skip_ws (t, i + 1, len);
      ve = _weft_save_skip_value (t, vs, len);
      for (int k = 0; k < N_KEYS; k++)
        if (value[k] != NULL && ke - ks == strlen (splice_keys[k]) && memcmp (t + ks, splice_keys[k], ke - ks) == 0)
          hit = k;
      if (hit >= 0)
        {
          if (!weft_sink_write (sink, t + from, vs - from) || !weft_sink_puts (sink, value[hit]))
            return FALSE;
          from = ve;
        }
      i = _weft_save_skip_ws (t, ve, len);
      if (i >= len || t[i] != ',')
        break;
      i++;
    }
  return weft_sink_write (sink, t + from, len - from);
}

/* ---- the merged file ------------------------------------------------------ */

typedef struct
{
  WeftTrace *trace;
  gint64     base;
  gint64     id_stride;
  gboolean   renumber;   /* flow ids renumbered per rank (see the top) */
} Merge;

static int
rank_number (WeftTrace *trace, guint i)
{
  WeftRank *rank = weft_trace_rank (trace, i);
  return rank->rank >= 0 ? rank->rank : (int) i;
}

static gboolean
is_replaced_metadata (const WeftRank *rank, const WeftEvent *ev)
{
  const char *name;
  if (ev->ph != WEFT_PH_M)
    return FALSE;
  name = weft_rank_string (rank, ev->name);
  return strcmp (name, "process_name") == 0 || strcmp (name, "process_labels") == 0 ||
         strcmp (name, "process_sort_index") == 0 || strcmp (name, "thread_name") == 0 ||
         strcmp (name, "thread_sort_index") == 0;
}

/* A lane's name text without quotes ("0" for 0, Spans for "Spans"). */
static char *
unquoted (const WeftRank *rank, guint32 text)
{
  const char *s = weft_rank_string (rank, text);
  gsize n = strlen (s);
  if (n >= 2 && s[0] == '"' && s[n - 1] == '"')
    return g_strndup (s + 1, n - 2);
  return g_strdup (s);
}

static char *
lane_label (const WeftRank *rank, const WeftLane *lane)
{
  g_autofree char *pid = unquoted (rank, lane->pid_text);
  g_autofree char *tid = unquoted (rank, lane->tid_text);
  g_autofree char *proc = NULL;
  g_autofree char *thread = NULL;

  if (lane->process_name != 0)
    proc = g_strstrip (g_strdup (weft_rank_string (rank, lane->process_name)));
  else
    proc = lane->kind == WEFT_LANE_GPU ? g_strdup_printf ("GPU %s", pid) : g_strdup_printf ("pid %s", pid);
  if (lane->name != 0)
    thread = g_strstrip (g_strdup (weft_rank_string (rank, lane->name)));
  else
    thread = lane->kind == WEFT_LANE_GPU ? g_strdup_printf ("stream %s", tid) : g_strdup_printf ("thread %s", tid);
  return g_strdup_printf ("%s / %s", proc, thread);
}

static gboolean
write_meta (WeftSink *s, gboolean *first, const char *name, int pid, gint64 tid, const char *key, json_object *value)
{
  json_object *o = json_object_new_object ();
  json_object *args = json_object_new_object ();
  gboolean ok;

  json_object_object_add (o, "name", json_object_new_string (name));
  json_object_object_add (o, "ph", json_object_new_string ("M"));
  json_object_object_add (o, "pid", json_object_new_int (pid));
  json_object_object_add (o, "tid", json_object_new_int64 (tid));
  json_object_object_add (args, key, value);
  json_object_object_add (o, "args", args);
  ok = weft_sink_puts (s, *first ? "\n    " : ",\n    ") &&
       weft_sink_puts (s, json_object_to_json_string_ext (o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
  *first = FALSE;
  json_object_put (o);
  return ok;
}

static gboolean
is_flow (const WeftEvent *ev)
{
  return ev->ph == WEFT_PH_S || ev->ph == WEFT_PH_T || ev->ph == WEFT_PH_F;
}

/* A flow event's id before the rank's offset: its own, or, when the ids
 * are renumbered, the order in which the rank's ids first appear (the
 * same walk of the events in merge_init and here). -1: none. */
static gint64
flow_id_of (const Merge *m, WeftRank *rank, const WeftEvent *ev, GHashTable *renumbered)
{
  gint64 id = weft_event_flow_id (rank, ev);
  gpointer found;

  if (!m->renumber || id == -1)
    return id;
  if (!g_hash_table_lookup_extended (renumbered, &id, NULL, &found))
    {
      found = GSIZE_TO_POINTER ((gsize) g_hash_table_size (renumbered));
      g_hash_table_insert (renumbered, g_memdup2 (&id, sizeof id), found);
    }
  return (gint64) GPOINTER_TO_SIZE (found);
}

static gboolean
write_rank_events (WeftSink *s, Merge *m, guint ri, gboolean *first)
{
  WeftTrace *trace = m->trace;
  WeftRank *rank = weft_trace_rank (trace, ri);
  int pid = rank_number (trace, ri);
  gint64 offset = weft_trace_rank_offset (trace, rank);
  g_autoptr (GHashTable) used = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autoptr (GHashTable) renumbered = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autofree gint64 *tids = g_new0 (gint64, rank->lanes->len + 1);
  g_autofree char *pid_text = g_strdup_printf ("%d", pid);
  g_autofree char *label = g_strdup_printf ("rank %d", pid);
  gint64 fresh = 1 << 30;
  g_autoptr (WeftTextCursor) texts = weft_text_cursor_new (rank);

  if (!write_meta (s, first, "process_name", pid, 0, "name", json_object_new_string (label)) ||
      !write_meta (s, first, "process_sort_index", pid, 0, "sort_index", json_object_new_int (pid)))
    return FALSE;

  /* lanes -> threads of the rank's process */
  for (guint l = 0; l < rank->lanes->len; l++)
    {
      const WeftLane *lane = g_ptr_array_index (rank->lanes, l);
      if (lane->tid != G_MININT64 && lane->tid >= 0 && lane->tid < (1 << 30) &&
          !g_hash_table_contains (used, &lane->tid))
        tids[l] = lane->tid;
      else
        {
          while (g_hash_table_contains (used, &fresh))
            fresh++;
          tids[l] = fresh++;
        }
      g_hash_table_add (used, &tids[l]);
    }
  for (guint l = 0; l < rank->lanes->len; l++)
    {
      const WeftLane *lane = g_ptr_array_index (rank->lanes, l);
      g_autofree char *name = lane_label (rank, lane);
      gint64 group = lane->kind == WEFT_LANE_CPU ? 0 : lane->kind == WEFT_LANE_GPU ? 1 : 2;
      if (!write_meta (s, first, "thread_name", pid, tids[l], "name", json_object_new_string (name)) ||
          !write_meta (s, first, "thread_sort_index", pid, tids[l], "sort_index",
                       json_object_new_int64 (group * 1000000 + l)))
        return FALSE;
    }

  for (guint i = 0; i < rank->events->len; i++)
    {
      const WeftEvent *ev = weft_rank_event (rank, i);
      const char *value[N_KEYS] = { NULL };
      char ts[40], tid[24], id[24];
      const char *text;
      gsize text_len = 0;

      if ((ev->flags & WEFT_EVENT_DELETED) || !weft_event_has_text (rank, ev) || is_replaced_metadata (rank, ev))
        continue;
      if ((text = weft_text_cursor_get (texts, ev, &text_len)) == NULL)
        continue;
      value[K_PID] = pid_text;
      if (ev->lane != WEFT_NONE)
        {
          g_snprintf (tid, sizeof tid, "%" G_GINT64_FORMAT, tids[ev->lane]);
          value[K_TID] = tid;
        }
      if (ev->ph != WEFT_PH_M)
        {
          weft_format_time (ev->ts + offset - m->base, WEFT_TS_RELATIVE, ts);
          value[K_TS] = ts;
        }
      if (is_flow (ev) && flow_id_of (m, rank, ev, renumbered) != -1)
        {
          g_snprintf (id, sizeof id, "%" G_GINT64_FORMAT, flow_id_of (m, rank, ev, renumbered) + (gint64) pid * m->id_stride);
          value[K_ID] = id;
        }
      if (!weft_sink_puts (s, *first ? "\n    " : ",\n    ") || !write_spliced (s, text, text_len, value))
        return FALSE;
      *first = FALSE;
    }
  return TRUE;
}

static const WeftTopKey *
top_key (WeftRank *rank, const char *key)
{
  for (guint k = 0; k < rank->top_keys->len; k++)
    {
      const WeftTopKey *t = &g_array_index (rank->top_keys, WeftTopKey, k);
      if (strcmp (weft_rank_string (rank, t->key), key) == 0)
        return t;
    }
  return NULL;
}

static gboolean
write_merged_func (WeftSink *s, gpointer data)
{
  Merge *m = data;
  WeftTrace *trace = m->trace;
  WeftRank *first_rank = trace->ranks->len > 0 ? weft_trace_rank (trace, 0) : NULL;
  json_object *weft = json_object_new_object ();
  json_object *ranks = json_object_new_array ();
  char base[32];
  gboolean first = TRUE, ok = TRUE;

  if (!weft_sink_puts (s, "{"))
    return FALSE;
  if (first_rank != NULL)
    {
      const char *keys[] = { "schemaVersion", "deviceProperties", "displayTimeUnit" };
      for (guint k = 0; ok && k < G_N_ELEMENTS (keys); k++)
        {
          const WeftTopKey *t = top_key (first_rank, keys[k]);
          if (t != NULL)
            ok = weft_sink_puts (s, "\n  \"") && weft_sink_puts (s, keys[k]) && weft_sink_puts (s, "\": ") &&
                 weft_sink_write_top_value (s, t) && weft_sink_puts (s, ",");
        }
    }
  g_snprintf (base, sizeof base, "%" G_GINT64_FORMAT, m->base);
  ok = ok && weft_sink_puts (s, "\n  \"baseTimeNanoseconds\": ") && weft_sink_puts (s, base) && weft_sink_puts (s, ",");

  json_object_object_add (weft, "tool", json_object_new_string ("weft " WEFT_VERSION_STRING));
  json_object_object_add (weft, "flow_id_stride", json_object_new_int64 (m->id_stride));
  if (m->renumber)
    json_object_object_add (weft, "flow_ids", json_object_new_string ("renumbered per rank"));
  for (guint i = 0; i < trace->ranks->len; i++)
    {
      WeftRank *rank = weft_trace_rank (trace, i);
      json_object *o = json_object_new_object ();
      json_object_object_add (o, "rank", json_object_new_int (rank_number (trace, i)));
      json_object_object_add (o, "pid", json_object_new_int (rank_number (trace, i)));
      if (rank->path != NULL)
        json_object_object_add (o, "source", json_object_new_string (rank->path));
      json_object_object_add (o, "clock_offset_ns", json_object_new_int64 (weft_trace_rank_offset (trace, rank)));
      json_object_array_add (ranks, o);
    }
  json_object_object_add (weft, "merged_ranks", ranks);
  ok = ok && weft_sink_puts (s, "\n  \"weft\": ") &&
       weft_sink_puts (s, json_object_to_json_string_ext (weft, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)) &&
       weft_sink_puts (s, ",\n  \"traceEvents\": [");
  json_object_put (weft);
  for (guint i = 0; ok && i < trace->ranks->len; i++)
    ok = write_rank_events (s, m, i, &first);
  return ok && weft_sink_puts (s, "\n  ]\n}\n");
}

/* The power of ten above max (>= 1). */
static gint64
stride_above (gint64 max)
{
  gint64 stride = 1;
  while (stride <= max && stride < G_MAXINT64 / 10)
    stride *= 10;
  return stride;
}

/* Whether ids up to max_id, offset by pid * stride for every pid up to
 * max_pid, stay within gint64 and apart. */
static gboolean
ids_fit (gint64 max_id, gint64 stride, int max_pid)
{
  gint64 top;
  return stride > max_id && !__builtin_mul_overflow ((gint64) max_pid, stride, &top) &&
         !__builtin_add_overflow (top, max_id, &top);
}

static void
merge_init (Merge *m, WeftTrace *trace)
{
  gint64 max_id = 0;
  gboolean negative = FALSE;
  int max_pid = 0;

  m->trace = trace;
  m->base = G_MAXINT64;
  m->renumber = FALSE;
  for (guint i = 0; i < trace->ranks->len; i++)
    {
      WeftRank *rank = weft_trace_rank (trace, i);
      gint64 offset = weft_trace_rank_offset (trace, rank);
      max_pid = MAX (max_pid, rank_number (trace, i));
      for (guint e = 0; e < rank->events->len; e++)
        {
          const WeftEvent *ev = weft_rank_event (rank, e);
          gint64 id;
          if (ev->flags & WEFT_EVENT_DELETED || ev->ph == WEFT_PH_M)
            continue;
          m->base = MIN (m->base, ev->ts + offset);
          id = is_flow (ev) ? weft_event_flow_id (rank, ev) : -1;
          max_id = MAX (max_id, id);
          negative |= id < -1;
        }
    }
  if (m->base == G_MAXINT64)
    m->base = 0;
  m->id_stride = stride_above (max_id);
  if (!negative && ids_fit (max_id, m->id_stride, max_pid))
    return;
  /* renumbered: the stride above the most ids a rank has */
  m->renumber = TRUE;
  max_id = 0;
  for (guint i = 0; i < trace->ranks->len; i++)
    {
      WeftRank *rank = weft_trace_rank (trace, i);
      g_autoptr (GHashTable) ids = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
      for (guint e = 0; e < rank->events->len; e++)
        {
          const WeftEvent *ev = weft_rank_event (rank, e);
          gint64 id = is_flow (ev) ? weft_event_flow_id (rank, ev) : -1;
          if (id != -1 && !(ev->flags & WEFT_EVENT_DELETED) && !g_hash_table_contains (ids, &id))
            g_hash_table_add (ids, g_memdup2 (&id, sizeof id));
        }
      max_id = MAX (max_id, (gint64) g_hash_table_size (ids) - 1);
    }
  m->id_stride = stride_above (max_id);
}

gboolean
weft_trace_write_merged_fd (WeftTrace *trace, int fd, WeftFileFormat format, GError **error)
{
  Merge m;

  g_return_val_if_fail (trace != NULL, FALSE);
  merge_init (&m, trace);
  return weft_save_write_fd (fd, "standard output", format, write_merged_func, &m, error);
}

gboolean
weft_trace_save_merged (WeftTrace *trace, const char *path, GError **error)
{
  g_autoptr (WeftSaveTxn) txn = NULL;
  Merge m;
  int i;

  g_return_val_if_fail (trace != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  merge_init (&m, trace);
  txn = weft_save_txn_new ();
  i = weft_save_txn_add (txn, path, error);
  return i >= 0 && weft_save_txn_write (txn, i, write_merged_func, &m, error) && weft_save_txn_commit (txn, error);
}
