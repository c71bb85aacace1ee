/* save.c: writing per-rank Kineto JSON (.json, .json.gz, .json.zst).
 *
 * Layout of the output: "{", the rank's other top-level keys in their
 * original order with their raw value text, "traceEvents" at its original
 * position, "}". Untouched events are written byte-for-byte from their
 * original text; edited and created events are re-serialised through json-c
 * with "ts"/"dur" as number TEXT in the rank's Kineto style (so they load
 * back ns-exact) and "pid"/"tid" from their (output) lane.
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
 *
 * The save is split along its seams: save-plan.c resolves the overlaps
 * (save-plan-private.h), save-file.c writes the files atomically
 * (save-private.h), save-merge.c writes one merged file, and this file
 * re-serialises edited events and writes a rank. docs/editing.md,
 * "Saving". */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weft/weft-classify.h"
#include "weft/weft-load.h"
#include "weft/weft-save.h"
#include "save-plan-private.h"
#include "save-private.h"
#include "save-splice-private.h"

/* ---- time text ------------------------------------------------------------ */

gsize
weft_format_time (gint64 ns, WeftTsStyle style, char *buf)
{
  guint64 mag;
  gboolean neg = ns < 0;
  char tmp[32];
  gsize n = 0, len = 0;
  guint64 us, frac;

  /* |G_MININT64| does not fit a gint64: go through unsigned. */
  mag = neg ? (guint64) 0 - (guint64) ns : (guint64) ns;
  us = mag / 1000;
  frac = mag % 1000;

  if (neg)
    buf[len++] = '-';
  do
    {
      tmp[n++] = (char) ('0' + us % 10);
      us /= 10;
    }
  while (us > 0);
  while (n > 0)
    buf[len++] = tmp[--n];
  if (style != WEFT_TS_ABSOLUTE_US || frac != 0)
    {
      buf[len++] = '.';
      buf[len++] = (char) ('0' + frac / 100);
      buf[len++] = (char) ('0' + frac / 10 % 10);
      buf[len++] = (char) ('0' + frac % 10);
    }
  buf[len] = '\0';
  return len;
}

gboolean
weft_file_format_from_path (const char *path, WeftFileFormat *format)
{
  g_autofree char *lower = NULL;
  WeftFileFormat f;

  if (path == NULL)
    return FALSE;
  lower = g_ascii_strdown (path, -1);
  if (g_str_has_suffix (lower, ".json"))
    f = WEFT_FORMAT_JSON;
  else if (g_str_has_suffix (lower, ".json.gz"))
    f = WEFT_FORMAT_JSON_GZ;
  else if (g_str_has_suffix (lower, ".json.zst"))
    f = WEFT_FORMAT_JSON_ZST;
  else
    return FALSE;
  if (format != NULL)
    *format = f;
  return TRUE;
}

/* ts as written: relative to baseTimeNanoseconds in the relative style. */
static inline gint64
text_time (const WeftRank *rank, gint64 ts)
{
  gint64 r;
  if (rank->ts_style != WEFT_TS_RELATIVE)
    return ts;
  if (__builtin_sub_overflow (ts, rank->base_ns, &r))
    return ts < 0 ? G_MININT64 : G_MAXINT64;
  return r;
}

/* ---- re-serialising one event -------------------------------------------- */

static json_object *
json_from_raw (const char *raw)
{
  json_object *obj = json_tokener_parse (raw);
  /* json_tokener_parse gives NULL for the literal null too. */
  return obj;
}

static json_object *
time_object (gint64 ns, WeftTsStyle style)
{
  char buf[32];
  weft_format_time (ns, style, buf);
  return json_object_new_double_s ((double) ns / 1000.0, buf);
}

static const char *
canonical_collective_name (WeftCollType type)
{
  switch (type)
    {
    case WEFT_COLL_ALL_REDUCE:
      return "allreduce";
    case WEFT_COLL_ALL_GATHER:
      return "_allgather_base";
    case WEFT_COLL_REDUCE_SCATTER:
      return "_reduce_scatter_base";
    case WEFT_COLL_ALL_TO_ALL:
      return "all_to_all";
    case WEFT_COLL_SEND:
      return "send";
    case WEFT_COLL_RECV:
      return "recv";
    case WEFT_COLL_BROADCAST:
      return "broadcast";
    case WEFT_COLL_REDUCE:
      return "reduce";
    case WEFT_COLL_BARRIER:
      return "barrier";
    default:
      return NULL;
    }
}

static void
set_or_del_int (json_object *obj, const char *key, gint64 value)
{
  if (value >= 0)
    json_object_object_add (obj, key, json_object_new_int64 (value));
  else
    json_object_object_del (obj, key);
}

/* An id: any gint64 but -1 (none), which the loader reads back the same. */
static void
set_or_del_id (json_object *obj, const char *key, gint64 value)
{
  if (value != -1)
    json_object_object_add (obj, key, json_object_new_int64 (value));
  else
    json_object_object_del (obj, key);
}

/* Args of an event created by an edit: its ids are the record's (a copy of
 * another event's text must not claim that event's correlation, External
 * id or Seq), and a created collective writes what the editor set on its
 * WeftCollective in Kineto's arg names, so it loads back as the same
 * collective (type, bytes, dtype, group, Seq). */
static void
created_args (WeftRank *rank, guint32 idx, json_object *obj)
{
  const WeftEvent *ev = weft_rank_event (rank, idx);
  const WeftCollective *c = NULL;
  json_object *args = NULL;

  if (!json_object_object_get_ex (obj, "args", &args) || !json_object_is_type (args, json_type_object))
    {
      args = json_object_new_object ();
      json_object_object_add (obj, "args", args);
    }
  set_or_del_id (args, "External id", weft_event_external_id (rank, ev));
  set_or_del_id (args, "correlation", weft_event_correlation (rank, ev));

  /* the collective's kernel, or the record_param_comms Weft made for it */
  if (weft_event_coll (rank, ev) != WEFT_NONE && weft_event_coll (rank, ev) < rank->collectives->len &&
      (g_array_index (rank->collectives, WeftCollective, weft_event_coll (rank, ev)).event == idx || ev->category == WEFT_CAT_CPU_OP))
    c = &g_array_index (rank->collectives, WeftCollective, weft_event_coll (rank, ev));

  if (c == NULL)
    {
      /* A copy of a collective kernel is not that same collective. */
      json_object_object_del (args, "Seq");
      json_object_object_del (args, "Comms Id");
    }
  else
    {
      const char *name = c->coll_name != 0 ? weft_rank_string (rank, c->coll_name) : canonical_collective_name (c->type);
      const char *dtype = c->dtype != 0 ? weft_rank_string (rank, c->dtype) : NULL;
      int elem = dtype != NULL ? weft_dtype_size (dtype) : 0;
      gint64 in = c->in_nelems, out = c->out_nelems;
      int gs = c->group_size > 0 ? c->group_size : (int) c->n_pg_ranks;

      if (name != NULL)
        json_object_object_add (args, "Collective name", json_object_new_string (name));
      /* Element counts from the payload when the editor gave only bytes,
       * such that the loader's bytes = elements x element size comes out
       * the same (in bytes of "Byte" elements where the dtype does not
       * divide it). */
      if (in < 0 && out < 0 && c->bytes >= 0)
        {
          gint64 n;
          if (elem <= 0 || c->bytes % elem != 0)
            {
              dtype = "Byte";
              elem = 1;
            }
          n = c->bytes / elem;
          in = out = n;
          if (c->type == WEFT_COLL_ALL_GATHER && gs > 0 && n % gs == 0)
            in = n / gs;
          else if (c->type == WEFT_COLL_REDUCE_SCATTER && gs > 0 && n % gs == 0)
            out = n / gs;
        }
      set_or_del_int (args, "In msg nelems", in);
      set_or_del_int (args, "Out msg nelems", out);
      if (dtype != NULL)
        json_object_object_add (args, "dtype", json_object_new_string (dtype));
      if (gs > 0)
        json_object_object_add (args, "Group size", json_object_new_int (gs));
      if (c->pg_name != 0)
        json_object_object_add (args, "Process Group Name", json_object_new_string (weft_rank_string (rank, c->pg_name)));
      if (c->pg_desc != 0)
        json_object_object_add (args, "Process Group Description",
                                json_object_new_string (weft_rank_string (rank, c->pg_desc)));
      if (c->pg_ranks != NULL && c->n_pg_ranks > 0)
        {
          GString *r = g_string_new ("[");
          for (guint i = 0; i < c->n_pg_ranks; i++)
            g_string_append_printf (r, "%s%d", i ? ", " : "", c->pg_ranks[i]);
          g_string_append_c (r, ']');
          json_object_object_add (args, "Process Group Ranks", json_object_new_string (r->str));
          g_string_free (r, TRUE);
        }
      set_or_del_int (args, "Seq", c->seq);
      json_object_object_del (args, "Comms Id");
      set_or_del_int (args, "Src Rank", c->src_rank);
      set_or_del_int (args, "Dst Rank", c->dst_rank);
    }
  if (json_object_object_length (args) == 0)
    json_object_object_del (obj, "args");
}

/* A GPU op's args.stream / args.device are those of the lane it is on (the
 * real stream, also when the op is written on a companion lane); set where
 * the args have them, or for an op created without args. */
static void
gpu_op_stream_args (const WeftLane *lane, json_object *obj)
{
  json_object *args = NULL;
  if (lane->kind != WEFT_LANE_GPU || lane->pid == G_MININT64)
    return;
  if (!json_object_object_get_ex (obj, "args", &args) || !json_object_is_type (args, json_type_object))
    {
      args = json_object_new_object ();
      json_object_object_add (obj, "args", args);
    }
  json_object_object_add (args, "device", json_object_new_int64 (lane->pid));
  json_object_object_add (args, "stream", json_object_new_int64 (lane->tid));
}

/* "weft held": an op that an edit holds back (a user minimum start: a drag
 * or a shift); its start has no other cause in the file, and Weft reads
 * the mark back as the same minimum start (docs/editing.md). */
static void
held_arg (const WeftEvent *ev, json_object *obj)
{
  json_object *args = NULL;
  gboolean has = json_object_object_get_ex (obj, "args", &args) && json_object_is_type (args, json_type_object);
  if (!(ev->flags & WEFT_EVENT_HELD))
    {
      if (has)
        json_object_object_del (args, "weft held");
      return;
    }
  if (!has)
    {
      args = json_object_new_object ();
      json_object_object_add (obj, "args", args);
    }
  json_object_object_add (args, "weft held", json_object_new_boolean (TRUE));
}

/* ---- splicing: edited events keep their text except the changed values ---- */

typedef struct
{
  const char *key;     /* top-level key of the event object */
  const char *value;   /* new raw JSON value text */
  gsize       vstart;  /* found value range in the text, vend == 0: not found */
  gsize       vend;
} Splice;

/* Rewrites the values of the given top-level keys in the object text, keeping
 * every other byte; keys that are absent are appended before the closing
 * brace. NULL when the text is not a plain object. */
static char *
splice_event (const char *t, gsize len, Splice *sp, guint n)
{
  gsize i = _weft_save_skip_ws (t, 0, len);
  GString *out;
  gsize pos = 0, close;

  if (i >= len || t[i] != '{')
    return NULL;
  i = _weft_save_skip_ws (t, i + 1, len);
  while (i < len && t[i] != '}')
    {
      gsize kstart, kend, vstart, vend;
      if (t[i] != '"')
        return NULL;
      kstart = i + 1;
      kend = _weft_save_skip_string (t, i, len);
      if (kend >= len)
        return NULL;
      i = _weft_save_skip_ws (t, kend, len);
      if (i >= len || t[i] != ':')
        return NULL;
      vstart = _weft_save_skip_ws (t, i + 1, len);
      vend = _weft_save_skip_value (t, vstart, len);
      if (vend >= len || vend == vstart)
        return NULL;
      for (guint k = 0; k < n; k++)
        if (kend - 1 - kstart == strlen (sp[k].key) && memcmp (t + kstart, sp[k].key, kend - 1 - kstart) == 0)
          {
            sp[k].vstart = vstart;
            sp[k].vend = vend;
          }
      i = _weft_save_skip_ws (t, vend, len);
      if (i < len && t[i] == ',')
        i = _weft_save_skip_ws (t, i + 1, len);
      else if (i >= len || t[i] != '}')
        return NULL;
    }
  if (i >= len)
    return NULL;
  close = i;

  out = g_string_sized_new (len + 32);
  /* Replacements in text order (n is tiny: insertion order by vstart). */
  for (;;)
    {
      guint best = n;
      for (guint k = 0; k < n; k++)
        if (sp[k].vend != 0 && sp[k].vstart >= pos && (best == n || sp[k].vstart < sp[best].vstart))
          best = k;
      if (best == n)
        break;
      g_string_append_len (out, t + pos, (gssize) (sp[best].vstart - pos));
      g_string_append (out, sp[best].value);
      pos = sp[best].vend;
      sp[best].vend = 0; /* done */
      sp[best].vstart = G_MAXSIZE;
    }
  {
    /* Keys not found: before the closing brace, after any trailing blanks
     * of the last value. */
    gsize tail = close;
    gboolean empty = TRUE;
    while (tail > pos && (t[tail - 1] == ' ' || t[tail - 1] == '\n' || t[tail - 1] == '\r' || t[tail - 1] == '\t'))
      tail--;
    for (gsize q = _weft_save_skip_ws (t, 0, len) + 1; q < close; q++)
      if (t[q] != ' ' && t[q] != '\n' && t[q] != '\r' && t[q] != '\t')
        {
          empty = FALSE;
          break;
        }
    g_string_append_len (out, t + pos, (gssize) (tail - pos));
    for (guint k = 0; k < n; k++)
      if (sp[k].vstart != G_MAXSIZE)
        {
          g_string_append_printf (out, "%s\"%s\": %s", empty ? "" : ", ", sp[k].key, sp[k].value);
          empty = FALSE;
        }
    g_string_append_len (out, t + tail, (gssize) (len - tail));
  }
  return g_string_free (out, FALSE);
}

/* The ts text time of event ev, written at timing's time. A flow end that
 * binds to its slice by enclosure (Perfetto's bp "e") in a file of absolute
 * microseconds, at a slice start with a fraction of a microsecond, goes
 * inside the slice (up to 1 us): readers that parse such a ts as a double
 * (Perfetto, pandas) see it only to ~0.25 us, and at the slice's very start
 * it could fall in the slice before. Weft and HTA pair flows by id. */
static gint64
flow_point_time (WeftRank *rank, const WeftEvent *ev, const WeftEvent *timing)
{
  gint64 ts = text_time (rank, timing->ts);
  if (timing != ev && ev->ph == WEFT_PH_F && rank->ts_style == WEFT_TS_ABSOLUTE_US && ts % 1000 != 0 &&
      weft_event_dur (rank, timing) > 0)
    ts += MIN (weft_event_dur (rank, timing) / 2, 1000);
  return ts;
}

/* Returns the event's JSON text (g_free'd by the caller). */
static char *
serialise_event (WeftRank *rank, const SavePlan *plan, guint32 idx)
{
  const WeftEvent *ev = weft_rank_event (rank, idx);
  const WeftEvent *timing = ev;
  guint32 lane_idx = ev->lane, level = 0;
  json_object *obj = NULL;
  gboolean fresh = FALSE, stream_args = FALSE;
  gsize orig_len = 0;
  g_autofree char *orig = weft_rank_event_text_dup (rank, ev, &orig_len);
  char *text;

  if (plan->bind != NULL && plan->bind[idx] != WEFT_NONE)
    {
      timing = weft_rank_event (rank, plan->bind[idx]);
      lane_idx = timing->lane;
      level = plan->level[plan->bind[idx]];
    }
  else if (plan->level != NULL)
    level = plan->level[idx];

  /* A GPU op moved to another stream: its args.stream and args.device
   * follow it (HTA reads the stream from the args, not the tid). */
  if ((ev->flags & WEFT_EVENT_GPU_OP) && lane_idx != WEFT_NONE && lane_idx < rank->lanes->len)
    {
      const WeftLane *lane = weft_rank_lane (rank, lane_idx);
      json_object *args = lane->kind == WEFT_LANE_GPU ? weft_event_parse_args (rank, ev) : NULL;
      json_object *v;
      if (args != NULL)
        {
          if (json_object_object_get_ex (args, "stream", &v) && json_object_get_int64 (v) != lane->tid)
            stream_args = TRUE;
          if (lane->pid != G_MININT64 && json_object_object_get_ex (args, "device", &v) &&
              json_object_get_int64 (v) != lane->pid)
            stream_args = TRUE;
          json_object_put (args);
        }
    }

  /* Edited (not created) events: splice the new ts/dur/pid/tid values into
   * the original text; every other byte stays as read. */
  if ((ev->flags & WEFT_EVENT_GPU_OP) && !(ev->flags & WEFT_EVENT_HELD) && orig != NULL &&
      g_strstr_len (orig, (gssize) orig_len, "\"weft held\"") != NULL)
    stream_args = TRUE; /* no longer held: the mark goes (through json-c) */

  if (!(ev->flags & (WEFT_EVENT_CREATED | WEFT_EVENT_HELD)) && !stream_args && orig != NULL && orig_len > 0 &&
      ev->ph != WEFT_PH_M)
    {
      char ts_buf[32], dur_buf[32];
      g_autofree char *tid = NULL;
      Splice sp[4];
      guint n = 0;
      gint64 ts = flow_point_time (rank, ev, timing);

      weft_format_time (ts, rank->ts_style, ts_buf);
      sp[n++] = (Splice) { "ts", ts_buf, 0, 0 };
      if (timing == ev && (ev->flags & WEFT_EVENT_HAS_DUR))
        {
          weft_format_time (weft_event_dur (rank, ev), rank->ts_style, dur_buf);
          sp[n++] = (Splice) { "dur", dur_buf, 0, 0 };
        }
      if (lane_idx != WEFT_NONE && lane_idx < rank->lanes->len)
        {
          const WeftLane *lane = weft_rank_lane (rank, lane_idx);
          tid = _weft_save_companion_tid_text (rank, lane, level);
          sp[n++] = (Splice) { "pid", weft_rank_string (rank, lane->pid_text), 0, 0 };
          sp[n++] = (Splice) { "tid", tid, 0, 0 };
        }
      text = splice_event (orig, orig_len, sp, n);
      if (text != NULL)
        return text;
    }

  if (orig != NULL && orig_len > 0)
    {
      obj = weft_event_parse (rank, ev);
      if (obj != NULL && !json_object_is_type (obj, json_type_object))
        g_clear_pointer (&obj, json_object_put);
    }
  if (obj == NULL)
    {
      fresh = TRUE;
      obj = json_object_new_object ();
      json_object_object_add (obj, "ph", json_object_new_string (weft_phase_to_string ((WeftPhase) ev->ph)));
      json_object_object_add (obj, "cat", json_object_new_string (weft_rank_string (rank, ev->cat)));
      json_object_object_add (obj, "name", json_object_new_string (weft_rank_string (rank, ev->name)));
    }

  if (lane_idx != WEFT_NONE && lane_idx < rank->lanes->len)
    {
      const WeftLane *lane = weft_rank_lane (rank, lane_idx);
      g_autofree char *tid = _weft_save_companion_tid_text (rank, lane, level);
      json_object *pid_obj = json_from_raw (weft_rank_string (rank, lane->pid_text));
      json_object *tid_obj = json_from_raw (tid);
      if (pid_obj != NULL)
        json_object_object_add (obj, "pid", pid_obj);
      if (tid_obj != NULL)
        json_object_object_add (obj, "tid", tid_obj);
    }

  if (ev->ph != WEFT_PH_M || json_object_object_get_ex (obj, "ts", NULL))
    {
      gint64 ts = flow_point_time (rank, ev, timing);
      json_object_object_add (obj, "ts", time_object (ts, rank->ts_style));
    }
  if (timing == ev && ((ev->flags & WEFT_EVENT_HAS_DUR) || (ev->ph == WEFT_PH_X && fresh)))
    json_object_object_add (obj, "dur", time_object (weft_event_dur (rank, ev), rank->ts_style));

  if (fresh)
    {
      if (weft_event_flow_id (rank, ev) != -1 && (ev->ph == WEFT_PH_S || ev->ph == WEFT_PH_T || ev->ph == WEFT_PH_F))
        json_object_object_add (obj, "id", json_object_new_int64 (weft_event_flow_id (rank, ev)));
      if (ev->flags & WEFT_EVENT_BP_E)
        json_object_object_add (obj, "bp", json_object_new_string ("e"));
    }
  if (ev->flags & WEFT_EVENT_CREATED)
    created_args (rank, idx, obj);
  if ((ev->flags & WEFT_EVENT_GPU_OP) && lane_idx != WEFT_NONE && lane_idx < rank->lanes->len)
    gpu_op_stream_args (weft_rank_lane (rank, lane_idx), obj);
  held_arg (ev, obj);

  text = g_strdup (json_object_to_json_string_ext (obj, JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE));
  json_object_put (obj);
  return text;
}

/* ---- writing one rank ----------------------------------------------------- */


static gboolean
write_top_key (WeftSink *s, WeftRank *rank, const WeftTopKey *k, const char *raw, gsize raw_len, gboolean *first)
{
  if (!weft_sink_puts (s, *first ? "\n  " : ",\n  "))
    return FALSE;
  *first = FALSE;
  /* The loader keeps the key's raw text (escapes included) without quotes. */
  if (!weft_sink_puts (s, "\"") || !weft_sink_puts (s, weft_rank_string (rank, k->key)) || !weft_sink_puts (s, "\": "))
    return FALSE;
  if (raw == NULL)
    return weft_sink_write_top_value (s, k);
  return weft_sink_write (s, raw, raw_len);
}

/* thread_name M events for the lanes the output has that nothing names: a
 * GPU stream an edit created (Kineto's "stream N "), a companion lane of the
 * overlap rule ("<name> #k"), when the rank names its other lanes (a file
 * without M events stays without). */
static gboolean
write_lane_names (WeftSink *s, WeftRank *rank, const SavePlan *plan)
{
  g_autoptr (GHashTable) seen = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autoptr (GArray) keys = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr (GArray) first_ts = g_array_new (FALSE, FALSE, sizeof (gint64));
  gboolean names_some = FALSE;

  for (guint li = 0; li < rank->lanes->len && !names_some; li++)
    names_some = weft_rank_lane (rank, li)->name != 0;
  if (!names_some)
    return TRUE;
  for (guint i = 0; i < rank->events->len; i++)
    {
      const WeftEvent *ev = weft_rank_event (rank, i);
      guint32 level = plan->level != NULL ? plan->level[i] : 0;
      const WeftLane *lane;
      gint64 key;
      if (ev->ph != WEFT_PH_X || ev->lane == WEFT_NONE || ev->lane >= rank->lanes->len ||
          (ev->flags & WEFT_EVENT_DELETED))
        continue;
      lane = weft_rank_lane (rank, ev->lane);
      /* only where an edit put something: an unedited trace is written as
       * read; a CPU lane only when an edit made it (the launches of created
       * ops) */
      if (level == 0 && (lane->name != 0 || !_weft_save_event_is_edited (ev) ||
                         (lane->kind != WEFT_LANE_GPU && !(ev->flags & WEFT_EVENT_CREATED))))
        continue;
      key = ((gint64) ev->lane << 24) | (gint64) MIN (level, 0xffffffu);
      if (g_hash_table_contains (seen, &key))
        continue;
      g_array_append_val (keys, key);
      g_array_append_val (first_ts, ev->ts);
      g_hash_table_add (seen, &g_array_index (keys, gint64, keys->len - 1));
    }
  for (guint k = 0; k < keys->len; k++)
    {
      gint64 key = g_array_index (keys, gint64, k);
      const WeftLane *lane = weft_rank_lane (rank, (guint32) (key >> 24));
      guint32 level = (guint32) (key & 0xffffff);
      g_autofree char *tid = _weft_save_companion_tid_text (rank, lane, level);
      g_autofree char *base = lane->name != 0 ? g_strdup (weft_rank_string (rank, lane->name))
                              : lane->kind == WEFT_LANE_GPU ? g_strdup_printf ("stream %" G_GINT64_FORMAT " ", lane->tid)
                                                             : g_strdup ("weft: launches of inserted ops");
      g_autofree char *name = level > 0 ? g_strdup_printf ("%s #%u", g_strchomp (base), level + 1) : g_strdup (base);
      json_object *obj = json_object_new_object (), *args = json_object_new_object ();
      json_object *pid = json_from_raw (weft_rank_string (rank, lane->pid_text)), *tid_obj = json_from_raw (tid);
      g_autofree char *text = NULL;
      json_object_object_add (obj, "ph", json_object_new_string ("M"));
      json_object_object_add (obj, "name", json_object_new_string ("thread_name"));
      json_object_object_add (obj, "ts", time_object (text_time (rank, g_array_index (first_ts, gint64, k)), rank->ts_style));
      if (pid != NULL)
        json_object_object_add (obj, "pid", pid);
      if (tid_obj != NULL)
        json_object_object_add (obj, "tid", tid_obj);
      json_object_object_add (args, "name", json_object_new_string (name));
      json_object_object_add (obj, "args", args);
      text = g_strdup (json_object_to_json_string_ext (obj, JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE));
      json_object_put (obj);
      if (!weft_sink_puts (s, ",\n  ") || !weft_sink_puts (s, text))
        return FALSE;
    }
  return TRUE;
}

static gboolean
write_events (WeftSink *s, WeftRank *rank, const SavePlan *plan, gboolean *first_key)
{
  gboolean first = TRUE;
  g_autoptr (WeftTextCursor) texts = weft_text_cursor_new (rank);

  if (!weft_sink_puts (s, *first_key ? "\n  \"traceEvents\": [" : ",\n  \"traceEvents\": ["))
    return FALSE;
  *first_key = FALSE;
  for (guint i = 0; i < rank->events->len; i++)
    {
      const WeftEvent *ev = weft_rank_event (rank, i);
      gboolean reser;
      const char *text = NULL;
      gsize text_len = 0;

      if ((ev->flags & WEFT_EVENT_DELETED) || (plan->drop != NULL && plan->drop[i]))
        continue;
      if (!_weft_save_event_is_edited (ev))
        text = weft_text_cursor_get (texts, ev, &text_len);
      reser = _weft_save_event_is_edited (ev) || text == NULL ||
              (plan->any && (plan->level[i] > 0 || plan->bind[i] != WEFT_NONE));
      if (!weft_sink_puts (s, first ? "\n  " : ",\n  "))
        return FALSE;
      first = FALSE;
      if (reser)
        {
          g_autofree char *fresh = serialise_event (rank, plan, i);
          if (!weft_sink_puts (s, fresh))
            return FALSE;
        }
      else if (!weft_sink_write (s, text, text_len))
        return FALSE;
    }
  if (!first && !write_lane_names (s, rank, plan))
    return FALSE;
  return weft_sink_puts (s, "\n  ]");
}

static gboolean
write_rank (WeftSink *s, WeftRank *rank, const WeftSaveOptions *options)
{
  SavePlan plan;
  gboolean first_key = TRUE, ok = TRUE, wrote_events = FALSE, wrote_meta = FALSE;
  g_autofree char *meta = NULL;

  if (options != NULL && options->weft_meta != NULL)
    meta = g_strdup (json_object_to_json_string_ext (options->weft_meta,
                                                     JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));

  _weft_save_plan_init (&plan, rank);
  ok = weft_sink_puts (s, "{");
  for (guint i = 0; ok && i < rank->top_keys->len; i++)
    {
      const WeftTopKey *k = &g_array_index (rank->top_keys, WeftTopKey, i);
      if (i == rank->trace_events_pos)
        {
          ok = write_events (s, rank, &plan, &first_key);
          wrote_events = TRUE;
          if (!ok)
            break;
        }
      if (strcmp (weft_rank_string (rank, k->key), "traceEvents") == 0)
        continue; /* never twice */
      if (meta != NULL && strcmp (weft_rank_string (rank, k->key), "weft") == 0)
        {
          if (!wrote_meta)
            ok = write_top_key (s, rank, k, meta, strlen (meta), &first_key);
          wrote_meta = TRUE;
          continue;
        }
      ok = write_top_key (s, rank, k, NULL, 0, &first_key);
    }
  if (ok && !wrote_events)
    ok = write_events (s, rank, &plan, &first_key);
  if (ok && meta != NULL && !wrote_meta)
    ok = weft_sink_puts (s, ",\n  \"weft\": ") && weft_sink_puts (s, meta);
  if (ok)
    ok = weft_sink_puts (s, "\n}\n");
  _weft_save_plan_clear (&plan);
  return ok;
}

/* ---- saving ranks ---------------------------------------------------------- */

typedef struct
{
  WeftRank              *rank;
  const WeftSaveOptions *options;
} RankJob;

static gboolean
write_rank_func (WeftSink *sink, gpointer data)
{
  RankJob *job = data;
  return write_rank (sink, job->rank, job->options);
}

gboolean
weft_rank_save (WeftRank *rank, const char *path, const WeftSaveOptions *options, GError **error)
{
  g_autoptr (WeftSaveTxn) txn = NULL;
  RankJob job = { rank, options };
  int i;

  g_return_val_if_fail (rank != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  txn = weft_save_txn_new ();
  i = weft_save_txn_add (txn, path, error);
  return i >= 0 && weft_save_txn_write (txn, i, write_rank_func, &job, error) && weft_save_txn_commit (txn, error);
}

gboolean
weft_rank_write_fd (WeftRank *rank, int fd, WeftFileFormat format, const WeftSaveOptions *options, GError **error)
{
  RankJob job = { rank, options };
  g_return_val_if_fail (rank != NULL, FALSE);
  return weft_save_write_fd (fd, "standard output", format, write_rank_func, &job, error);
}

const char *
weft_file_format_extension (WeftFileFormat format)
{
  switch (format)
    {
    case WEFT_FORMAT_JSON_GZ:
      return ".json.gz";
    case WEFT_FORMAT_JSON_ZST:
      return ".json.zst";
    case WEFT_FORMAT_JSON:
    default:
      return ".json";
    }
}

gboolean
weft_trace_save_dir (WeftTrace *trace, const char *dir, WeftFileFormat format, const WeftSaveOptions *options,
                     GError **error)
{
  const char *ext = weft_file_format_extension (format);
  g_autoptr (WeftSaveTxn) txn = NULL;
  g_autoptr (GPtrArray) paths = NULL;
  GError *local = NULL;
  gboolean ok = TRUE;

  g_return_val_if_fail (trace != NULL, FALSE);
  g_return_val_if_fail (dir != NULL, FALSE);

  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      int saved = errno;
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_IO, "%s: cannot create the folder: %s", dir, g_strerror (saved));
      return FALSE;
    }
  paths = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < trace->ranks->len; i++)
    {
      WeftRank *rank = weft_trace_rank (trace, i);
      int number = rank->rank >= 0 ? rank->rank : (int) i;
      g_autofree char *name = g_strdup_printf ("rank%d_trace%s", number, ext);
      g_ptr_array_add (paths, g_build_filename (dir, name, NULL));
    }
  /* Loading the folder later must give exactly this trace. */
  if (!weft_save_check_folder (dir, (const char *const *) paths->pdata, paths->len, error))
    return FALSE;

  /* Every rank to a temporary first; then all renamed together. */
  txn = weft_save_txn_new ();
  for (guint i = 0; ok && i < trace->ranks->len; i++)
    {
      RankJob job = { weft_trace_rank (trace, i), options };
      int k = weft_save_txn_add (txn, g_ptr_array_index (paths, i), &local);
      ok = k >= 0 && weft_save_txn_write (txn, k, write_rank_func, &job, &local);
      if (ok)
        weft_save_txn_remove_other_formats (txn, k);
    }
  if (ok)
    ok = weft_save_txn_commit (txn, &local);
  if (!ok)
    {
      if (weft_save_txn_n_replaced (txn) == 0 && trace->ranks->len > 1)
        {
          char *msg = g_strdup_printf ("%s (nothing was replaced: the files in %s are as they were)", local->message,
                                       dir);
          g_free (local->message);
          local->message = msg;
        }
      g_propagate_error (error, local);
      return FALSE;
    }
  return TRUE;
}

gboolean
weft_trace_save (WeftTrace *trace, const char *out, const WeftSaveOptions *options, GError **error)
{
  WeftFileFormat format;

  g_return_val_if_fail (trace != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  if (!g_file_test (out, G_FILE_TEST_IS_DIR) && weft_file_format_from_path (out, &format))
    {
      if (trace->ranks->len != 1)
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
                       "%s: the trace has %u ranks: give a folder to write one file per rank", out,
                       trace->ranks->len);
          return FALSE;
        }
      return weft_rank_save (weft_trace_rank (trace, 0), out, options, error);
    }

  /* A folder: the format of the first rank's source file, else .json. */
  format = WEFT_FORMAT_JSON;
  if (trace->ranks->len > 0)
    weft_file_format_from_path (weft_trace_rank (trace, 0)->path, &format);
  return weft_trace_save_dir (trace, out, format, options, error);
}
