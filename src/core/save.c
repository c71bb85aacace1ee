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
 * Writing is atomic, for one file and for a whole set of rank files alike
 * (WeftSaveTxn, below): every file of the set is written to a temporary in
 * its target's folder (an unnamed O_TMPFILE where the file system allows,
 * else ".weft-tmp-<name>.XXXXXX", locked while written) and synced; only
 * when all of them are complete are they named and renamed over their
 * targets, then the folder is synced. Any failure before that removes the
 * temporaries and leaves every existing target untouched. Stale named
 * temporaries of a killed save are removed by the next save in that folder.
 * docs/editing.md, "Saving". */
#define _GNU_SOURCE /* O_TMPFILE */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "weft/weft-classify.h"
#include "weft/weft-load.h"
#include "weft/weft-save.h"
#include "save-private.h"

#define WEFT_SAVE_COMPANION_TID_OFFSET 100000
#define SINK_BUFFER (1u << 20)

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

/* ---- sink: buffered, optionally compressed writes to an fd ---------------- */

struct _WeftSink
{
  int            fd;
  const char    *path;       /* for messages: the target path */
  WeftFileFormat format;
  z_stream       zs;
  gboolean       z_ready;
  ZSTD_CCtx     *zc;
  guint8        *in;
  gsize          in_len;
  guint8        *out;
  gsize          out_cap;
  GError        *error;
};
typedef struct _WeftSink Sink;

static gboolean
sink_fail_errno (Sink *s, const char *what, int saved_errno)
{
  if (s->error == NULL)
    g_set_error (&s->error, WEFT_ERROR, WEFT_ERROR_IO, "%s: %s: %s", s->path, what, g_strerror (saved_errno));
  return FALSE;
}

static gboolean
write_all (Sink *s, const guint8 *data, gsize len)
{
  while (len > 0)
    {
      gssize w = write (s->fd, data, len);
      if (w < 0)
        {
          if (errno == EINTR)
            continue;
          return sink_fail_errno (s, "cannot write", errno);
        }
      if (w == 0)
        return sink_fail_errno (s, "cannot write", ENOSPC);
      data += w;
      len -= (gsize) w;
    }
  return TRUE;
}

static gboolean
sink_init (Sink *s, int fd, const char *path, WeftFileFormat format)
{
  memset (s, 0, sizeof *s);
  s->fd = fd;
  s->path = path;
  s->format = format;
  s->in = g_malloc (SINK_BUFFER);
  if (format == WEFT_FORMAT_JSON_GZ)
    {
      s->out_cap = SINK_BUFFER;
      s->out = g_malloc (s->out_cap);
      /* windowBits 15 + 16: gzip wrapper. */
      if (deflateInit2 (&s->zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        {
          g_set_error (&s->error, WEFT_ERROR, WEFT_ERROR_COMPRESSION, "%s: cannot start gzip compression", path);
          return FALSE;
        }
      s->z_ready = TRUE;
    }
  else if (format == WEFT_FORMAT_JSON_ZST)
    {
      s->out_cap = ZSTD_CStreamOutSize ();
      s->out = g_malloc (s->out_cap);
      s->zc = ZSTD_createCCtx ();
      if (s->zc == NULL || ZSTD_isError (ZSTD_CCtx_setParameter (s->zc, ZSTD_c_compressionLevel, 3)) ||
          ZSTD_isError (ZSTD_CCtx_setParameter (s->zc, ZSTD_c_checksumFlag, 1)))
        {
          g_set_error (&s->error, WEFT_ERROR, WEFT_ERROR_COMPRESSION, "%s: cannot start zstd compression", path);
          return FALSE;
        }
    }
  return TRUE;
}

static void
sink_clear (Sink *s)
{
  if (s->z_ready)
    deflateEnd (&s->zs);
  if (s->zc != NULL)
    ZSTD_freeCCtx (s->zc);
  g_free (s->in);
  g_free (s->out);
  s->in = s->out = NULL;
  s->zc = NULL;
  s->z_ready = FALSE;
}

/* Pushes the staged input through the encoder; finish ends the stream. */
static gboolean
sink_drain (Sink *s, gboolean finish)
{
  if (s->error != NULL)
    return FALSE;

  switch (s->format)
    {
    case WEFT_FORMAT_JSON:
      if (!write_all (s, s->in, s->in_len))
        return FALSE;
      break;

    case WEFT_FORMAT_JSON_GZ:
      s->zs.next_in = s->in;
      s->zs.avail_in = (uInt) s->in_len;
      for (;;)
        {
          int rc;
          s->zs.next_out = s->out;
          s->zs.avail_out = (uInt) s->out_cap;
          rc = deflate (&s->zs, finish ? Z_FINISH : Z_NO_FLUSH);
          if (rc == Z_STREAM_ERROR)
            {
              g_set_error (&s->error, WEFT_ERROR, WEFT_ERROR_COMPRESSION, "%s: gzip compression failed", s->path);
              return FALSE;
            }
          if (!write_all (s, s->out, s->out_cap - s->zs.avail_out))
            return FALSE;
          if (finish ? rc == Z_STREAM_END : (s->zs.avail_in == 0 && s->zs.avail_out != 0))
            break;
        }
      break;

    case WEFT_FORMAT_JSON_ZST:
      {
        ZSTD_inBuffer input = { s->in, s->in_len, 0 };
        for (;;)
          {
            ZSTD_outBuffer output = { s->out, s->out_cap, 0 };
            size_t remaining = ZSTD_compressStream2 (s->zc, &output, &input, finish ? ZSTD_e_end : ZSTD_e_continue);
            if (ZSTD_isError (remaining))
              {
                g_set_error (&s->error, WEFT_ERROR, WEFT_ERROR_COMPRESSION, "%s: zstd compression failed: %s",
                             s->path, ZSTD_getErrorName (remaining));
                return FALSE;
              }
            if (!write_all (s, s->out, output.pos))
              return FALSE;
            if (finish ? remaining == 0 : input.pos == input.size)
              break;
          }
      }
      break;
    }
  s->in_len = 0;
  return TRUE;
}

static gboolean
sink_write (Sink *s, const char *data, gsize len)
{
  if (s->error != NULL)
    return FALSE;
  while (len > 0)
    {
      gsize n = MIN (len, SINK_BUFFER - s->in_len);
      memcpy (s->in + s->in_len, data, n);
      s->in_len += n;
      data += n;
      len -= n;
      if (s->in_len == SINK_BUFFER && !sink_drain (s, FALSE))
        return FALSE;
    }
  return TRUE;
}

static gboolean
sink_puts (Sink *s, const char *str)
{
  return sink_write (s, str, strlen (str));
}

/* ---- overlap resolution --------------------------------------------------- */

typedef struct
{
  WeftRank   *rank;
  guint32    *level;      /* per event: companion level, 0 = own lane */
  guint32    *bind;       /* per flow-point event: the slice it follows, WEFT_NONE */
  gboolean   *drop;       /* per event: a flow point of a deleted slice (NULL: none) */
  gboolean    any;        /* any re-serialisation needed at all */
} SavePlan;

static inline gboolean
event_is_edited (const WeftEvent *ev)
{
  return (ev->flags & (WEFT_EVENT_EDITED | WEFT_EVENT_CREATED)) != 0;
}

static inline gint64
event_end_clamped (const WeftRank *rank, const WeftEvent *ev)
{
  /* saturating: values near the int64 limits from bad edits never overflow */
  if (weft_event_dur (rank, ev) <= 0)
    return ev->ts;
  return ev->ts > G_MAXINT64 - weft_event_dur (rank, ev) ? G_MAXINT64 : ev->ts + weft_event_dur (rank, ev);
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
static char *
companion_tid_text (WeftRank *rank, const WeftLane *lane, guint32 level)
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
  g_autofree char *tid = companion_tid_text (rank, lane, level);
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
  gboolean xa = event_is_edited (ea), xb = event_is_edited (eb);

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
  if (event_is_edited (ev))
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

      if (event_is_edited (ev))
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
              if (event_is_edited (&events[tidx]))
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

static void
plan_init (SavePlan *plan, WeftRank *rank)
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
      if (event_is_edited (ev) && !(ev->flags & WEFT_EVENT_DELETED))
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
            !(ev->flags & WEFT_EVENT_DELETED) && event_is_edited (ev))
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
            (event_is_edited (ev) || plan->level[i] > 0))
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
          if (event_is_edited (slice) || plan->level[slices[j]] > 0)
            plan->bind[pts[j]] = slices[j];
        }
    }
}

static void
plan_clear (SavePlan *plan)
{
  g_free (plan->level);
  g_free (plan->bind);
  g_free (plan->drop);
  plan->level = plan->bind = NULL;
  plan->drop = NULL;
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

static gsize
skip_ws (const char *t, gsize i, gsize len)
{
  while (i < len && (t[i] == ' ' || t[i] == '\n' || t[i] == '\r' || t[i] == '\t'))
    i++;
  return i;
}

/* End of the string starting at the quote t[i]; len when unterminated. */
static gsize
skip_string (const char *t, gsize i, gsize len)
{
  for (i++; i < len; i++)
    {
      if (t[i] == '\\')
        i++;
      else if (t[i] == '"')
        return i + 1;
    }
  return len;
}

/* End of the JSON value starting at t[i] (already validated by the loader). */
static gsize
skip_value (const char *t, gsize i, gsize len)
{
  if (i >= len)
    return len;
  if (t[i] == '"')
    return skip_string (t, i, len);
  if (t[i] == '{' || t[i] == '[')
    {
      int depth = 0;
      for (; i < len; i++)
        {
          if (t[i] == '"')
            {
              i = skip_string (t, i, len) - 1;
              continue;
            }
          if (t[i] == '{' || t[i] == '[')
            depth++;
          else if (t[i] == '}' || t[i] == ']')
            {
              if (--depth == 0)
                return i + 1;
            }
        }
      return len;
    }
  while (i < len && t[i] != ',' && t[i] != '}' && t[i] != ']' && t[i] != ' ' && t[i] != '\n' && t[i] != '\r' &&
         t[i] != '\t')
    i++;
  return i;
}

/* Rewrites the values of the given top-level keys in the object text, keeping
 * every other byte; keys that are absent are appended before the closing
 * brace. NULL when the text is not a plain object. */
static char *
splice_event (const char *t, gsize len, Splice *sp, guint n)
{
  gsize i = skip_ws (t, 0, len);
  GString *out;
  gsize pos = 0, close;

  if (i >= len || t[i] != '{')
    return NULL;
  i = skip_ws (t, i + 1, len);
  while (i < len && t[i] != '}')
    {
      gsize kstart, kend, vstart, vend;
      if (t[i] != '"')
        return NULL;
      kstart = i + 1;
      kend = skip_string (t, i, len);
      if (kend >= len)
        return NULL;
      i = skip_ws (t, kend, len);
      if (i >= len || t[i] != ':')
        return NULL;
      vstart = skip_ws (t, i + 1, len);
      vend = skip_value (t, vstart, len);
      if (vend >= len || vend == vstart)
        return NULL;
      for (guint k = 0; k < n; k++)
        if (kend - 1 - kstart == strlen (sp[k].key) && memcmp (t + kstart, sp[k].key, kend - 1 - kstart) == 0)
          {
            sp[k].vstart = vstart;
            sp[k].vend = vend;
          }
      i = skip_ws (t, vend, len);
      if (i < len && t[i] == ',')
        i = skip_ws (t, i + 1, len);
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
    for (gsize q = skip_ws (t, 0, len) + 1; q < close; q++)
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
          tid = companion_tid_text (rank, lane, level);
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
      g_autofree char *tid = companion_tid_text (rank, lane, level);
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
top_value_cb (const char *data, gsize len, gpointer user_data)
{
  return sink_write (user_data, data, len);
}

/* A top-level value's text as read: a packed one (weft-model.h) is
 * decompressed piece by piece into the sink, never whole. */
gboolean
weft_sink_write_top_value (WeftSink *s, const WeftTopKey *k)
{
  GError *error = NULL;

  if (s->error != NULL)
    return FALSE;
  if (weft_top_key_foreach (k, top_value_cb, s, &error))
    return TRUE;
  if (error != NULL && s->error == NULL)
    g_set_error (&s->error, WEFT_ERROR, error->code, "%s: %s", s->path, error->message);
  g_clear_error (&error);
  return FALSE;
}

static gboolean
write_top_key (Sink *s, WeftRank *rank, const WeftTopKey *k, const char *raw, gsize raw_len, gboolean *first)
{
  if (!sink_puts (s, *first ? "\n  " : ",\n  "))
    return FALSE;
  *first = FALSE;
  /* The loader keeps the key's raw text (escapes included) without quotes. */
  if (!sink_puts (s, "\"") || !sink_puts (s, weft_rank_string (rank, k->key)) || !sink_puts (s, "\": "))
    return FALSE;
  if (raw == NULL)
    return weft_sink_write_top_value (s, k);
  return sink_write (s, raw, raw_len);
}

/* thread_name M events for the lanes the output has that nothing names: a
 * GPU stream an edit created (Kineto's "stream N "), a companion lane of the
 * overlap rule ("<name> #k"), when the rank names its other lanes (a file
 * without M events stays without). */
static gboolean
write_lane_names (Sink *s, WeftRank *rank, const SavePlan *plan)
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
      if (level == 0 && (lane->name != 0 || !event_is_edited (ev) ||
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
      g_autofree char *tid = companion_tid_text (rank, lane, level);
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
      if (!sink_puts (s, ",\n  ") || !sink_puts (s, text))
        return FALSE;
    }
  return TRUE;
}

static gboolean
write_events (Sink *s, WeftRank *rank, const SavePlan *plan, gboolean *first_key)
{
  gboolean first = TRUE;
  g_autoptr (WeftTextCursor) texts = weft_text_cursor_new (rank);

  if (!sink_puts (s, *first_key ? "\n  \"traceEvents\": [" : ",\n  \"traceEvents\": ["))
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
      if (!event_is_edited (ev))
        text = weft_text_cursor_get (texts, ev, &text_len);
      reser = event_is_edited (ev) || text == NULL ||
              (plan->any && (plan->level[i] > 0 || plan->bind[i] != WEFT_NONE));
      if (!sink_puts (s, first ? "\n  " : ",\n  "))
        return FALSE;
      first = FALSE;
      if (reser)
        {
          g_autofree char *fresh = serialise_event (rank, plan, i);
          if (!sink_puts (s, fresh))
            return FALSE;
        }
      else if (!sink_write (s, text, text_len))
        return FALSE;
    }
  if (!first && !write_lane_names (s, rank, plan))
    return FALSE;
  return sink_puts (s, "\n  ]");
}

static gboolean
write_rank (Sink *s, WeftRank *rank, const WeftSaveOptions *options)
{
  SavePlan plan;
  gboolean first_key = TRUE, ok = TRUE, wrote_events = FALSE, wrote_meta = FALSE;
  g_autofree char *meta = NULL;

  if (options != NULL && options->weft_meta != NULL)
    meta = g_strdup (json_object_to_json_string_ext (options->weft_meta,
                                                     JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));

  plan_init (&plan, rank);
  ok = sink_puts (s, "{");
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
    ok = sink_puts (s, ",\n  \"weft\": ") && sink_puts (s, meta);
  if (ok)
    ok = sink_puts (s, "\n}\n");
  plan_clear (&plan);
  return ok;
}

/* ---- the file-writing layer: sinks over fds, atomic sets of files ---------- */

gboolean
weft_sink_write (WeftSink *sink, const char *data, gsize len)
{
  return sink_write (sink, data, len);
}

gboolean
weft_sink_puts (WeftSink *sink, const char *str)
{
  return sink_puts (sink, str);
}

gboolean
weft_save_write_fd (int fd, const char *name, WeftFileFormat format, WeftSaveWriteFunc func, gpointer data,
                    GError **error)
{
  Sink sink;
  gboolean ok;

  ok = sink_init (&sink, fd, name, format) && func (&sink, data) && sink_drain (&sink, TRUE);
  if (!ok)
    {
      if (sink.error == NULL)
        g_set_error (&sink.error, WEFT_ERROR, WEFT_ERROR_IO, "%s: cannot write", name);
      g_propagate_error (error, sink.error);
      sink.error = NULL;
    }
  sink_clear (&sink);
  return ok;
}

#define TMP_PREFIX ".weft-tmp-"

typedef struct
{
  char          *shown;   /* the path as given, for messages */
  char          *target;  /* the path replaced (a symbolic link resolved) */
  char          *dir;
  char          *base;
  char          *tmp;     /* the named temporary; NULL while unnamed or once renamed */
  int            fd;      /* open until the commit: it holds the lock */
  WeftFileFormat format;
  gboolean       done;    /* written and synced */
} TxnFile;

struct _WeftSaveTxn
{
  GPtrArray *files;   /* TxnFile* */
  GPtrArray *remove;  /* char*: removed after the renames */
  gint64     start;   /* g_get_real_time () when the save started */
  guint      n_replaced;
  gboolean   committed;
};

static void
txn_file_free (gpointer data)
{
  TxnFile *f = data;
  if (f->fd >= 0)
    close (f->fd);
  if (f->tmp != NULL)
    g_unlink (f->tmp);
  g_free (f->shown);
  g_free (f->target);
  g_free (f->dir);
  g_free (f->base);
  g_free (f->tmp);
  g_free (f);
}

WeftSaveTxn *
weft_save_txn_new (void)
{
  WeftSaveTxn *txn = g_new0 (WeftSaveTxn, 1);
  txn->files = g_ptr_array_new_with_free_func (txn_file_free);
  txn->remove = g_ptr_array_new_with_free_func (g_free);
  txn->start = g_get_real_time ();
  return txn;
}

void
weft_save_txn_free (WeftSaveTxn *txn)
{
  if (txn == NULL)
    return;
  g_ptr_array_unref (txn->files); /* closes and removes what was not committed */
  g_ptr_array_unref (txn->remove);
  g_free (txn);
}

guint
weft_save_txn_n_replaced (WeftSaveTxn *txn)
{
  return txn->n_replaced;
}

/* ".<base>.XXXXXX": the temporaries of earlier versions (g_mkstemp). */
static gboolean
is_legacy_temporary (const char *name, const char *base)
{
  gsize n = strlen (base);
  if (name[0] != '.' || strncmp (name + 1, base, n) != 0 || name[1 + n] != '.' || strlen (name + 2 + n) != 6)
    return FALSE;
  for (const char *p = name + 2 + n; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p))
      return FALSE;
  return TRUE;
}

/* A temporary left by a killed save: older than this save and not locked
 * by a save in progress (which holds flock on it until it commits). */
static void
remove_stale_temporary (const char *path, gint64 start)
{
  struct stat st;
  int fd = open (path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

  if (fd < 0)
    return;
  if (fstat (fd, &st) == 0 && S_ISREG (st.st_mode) &&
      (gint64) st.st_mtim.tv_sec * G_USEC_PER_SEC + st.st_mtim.tv_nsec / 1000 < start &&
      flock (fd, LOCK_EX | LOCK_NB) == 0)
    {
      if (g_unlink (path) == 0)
        g_debug ("%s: removed a stale temporary file of an interrupted save", path);
    }
  close (fd);
}

static void
clean_stale_temporaries (const char *dir, const char *base, gint64 start)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const char *name;

  if (d == NULL)
    return;
  while ((name = g_dir_read_name (d)) != NULL)
    if (g_str_has_prefix (name, TMP_PREFIX) || is_legacy_temporary (name, base))
      {
        g_autofree char *path = g_build_filename (dir, name, NULL);
        remove_stale_temporary (path, start);
      }
  g_dir_close (d);
}

/* An unnamed temporary (O_TMPFILE: nothing is left behind when the process
 * dies) where the file system and /proc allow naming it later, else
 * .weft-tmp-<base>.XXXXXX. Either is locked while it is written. */
static int
open_temporary (TxnFile *f, GError **error)
{
  int fd = -1;

#ifdef O_TMPFILE
  if (g_getenv ("WEFT_SAVE_NO_TMPFILE") == NULL && g_file_test ("/proc/self/fd", G_FILE_TEST_IS_DIR))
    fd = open (f->dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
#endif
  if (fd < 0)
    {
      f->tmp = g_strdup_printf ("%s%c" TMP_PREFIX "%s.XXXXXX", f->dir, G_DIR_SEPARATOR, f->base);
      fd = g_mkstemp_full (f->tmp, O_WRONLY | O_CLOEXEC, 0644);
      if (fd < 0)
        {
          int saved = errno;
          g_clear_pointer (&f->tmp, g_free);
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_IO, "%s: cannot create a temporary file in %s: %s", f->shown,
                       f->dir, g_strerror (saved));
          return -1;
        }
    }
  (void) flock (fd, LOCK_EX | LOCK_NB);
  return fd;
}

/* Gives an unnamed temporary its name in the target's folder. */
static gboolean
name_temporary (TxnFile *f, GError **error)
{
  char proc[64];
  int saved = EEXIST;

  g_snprintf (proc, sizeof proc, "/proc/self/fd/%d", f->fd);
  for (int attempt = 0; attempt < 64 && saved == EEXIST; attempt++)
    {
      char *name = g_strdup_printf ("%s%c" TMP_PREFIX "%s.%06X", f->dir, G_DIR_SEPARATOR, f->base,
                                    (guint) g_random_int_range (0, 0x1000000));
      if (linkat (AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW) == 0)
        {
          f->tmp = name;
          return TRUE;
        }
      saved = errno;
      g_free (name);
    }
  g_set_error (error, WEFT_ERROR, WEFT_ERROR_IO, "%s: cannot name the temporary file in %s: %s", f->shown, f->dir,
               g_strerror (saved));
  return FALSE;
}

int
weft_save_txn_add (WeftSaveTxn *txn, const char *path, GError **error)
{
  TxnFile *f;
  struct stat st;
  WeftFileFormat format;
  char *real = NULL;

  g_return_val_if_fail (txn != NULL && !txn->committed, -1);
  g_return_val_if_fail (path != NULL, -1);

  if (!weft_file_format_from_path (path, &format))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
                   "%s: unknown output format (the name must end in .json, .json.gz or .json.zst)", path);
      return -1;
    }
  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_IO, "%s: is a folder", path);
      return -1;
    }
  f = g_new0 (TxnFile, 1);
  f->fd = -1;
  f->format = format;
  f->shown = g_strdup (path);
  /* Saving onto a symbolic link replaces the file it points to (the
   * temporary goes next to that file), not the link. */
  if (g_file_test (path, G_FILE_TEST_IS_SYMLINK) && (real = realpath (path, NULL)) != NULL)
    {
      f->target = g_strdup (real);
      free (real);
    }
  else
    f->target = g_strdup (path);
  f->dir = g_path_get_dirname (f->target);
  f->base = g_path_get_basename (f->target);
  clean_stale_temporaries (f->dir, f->base, txn->start);
  f->fd = open_temporary (f, error);
  if (f->fd < 0)
    {
      txn_file_free (f);
      return -1;
    }
  /* Keep the mode of the file being replaced; else rw-r--r--. */
  (void) fchmod (f->fd, g_stat (f->target, &st) == 0 ? st.st_mode & 07777 : 0644);
  g_ptr_array_add (txn->files, f);
  return (int) txn->files->len - 1;
}

static const char *const trace_exts[] = { ".json.zst", ".json.gz", ".json" };

/* path without its trace extension (any case), canonical; NULL if none. */
static char *
strip_trace_ext (const char *path)
{
  g_autofree char *canon = g_canonicalize_filename (path, NULL);
  g_autofree char *lower = g_ascii_strdown (canon, -1);

  for (guint i = 0; i < G_N_ELEMENTS (trace_exts); i++)
    if (g_str_has_suffix (lower, trace_exts[i]))
      return g_strndup (canon, strlen (canon) - strlen (trace_exts[i]));
  return NULL;
}

void
weft_save_txn_remove_other_formats (WeftSaveTxn *txn, int i)
{
  TxnFile *f = g_ptr_array_index (txn->files, i);
  g_autofree char *stem = strip_trace_ext (f->shown);

  if (stem == NULL)
    return;
  for (guint k = 0; k < G_N_ELEMENTS (trace_exts); k++)
    {
      char *other = g_strconcat (stem, trace_exts[k], NULL);
      g_autofree char *canon = g_canonicalize_filename (f->shown, NULL);
      GStatBuf st;
      if (strcmp (other, canon) != 0 && g_lstat (other, &st) == 0 && !S_ISDIR (st.st_mode))
        g_ptr_array_add (txn->remove, other);
      else
        g_free (other);
    }
}

gboolean
weft_save_txn_write (WeftSaveTxn *txn, int i, WeftSaveWriteFunc func, gpointer data, GError **error)
{
  TxnFile *f = g_ptr_array_index (txn->files, i);

  if (!weft_save_write_fd (f->fd, f->shown, f->format, func, data, error))
    return FALSE;
  if (fsync (f->fd) != 0)
    {
      int saved = errno;
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_IO, "%s: cannot sync to disk: %s", f->shown, g_strerror (saved));
      return FALSE;
    }
  f->done = TRUE;
  return TRUE;
}

static gboolean
write_bytes_func (WeftSink *sink, gpointer data)
{
  gsize len;
  const char *p = g_bytes_get_data (data, &len);
  return weft_sink_write (sink, p, len);
}

gboolean
weft_save_txn_write_bytes (WeftSaveTxn *txn, int i, GBytes *bytes, GError **error)
{
  return weft_save_txn_write (txn, i, write_bytes_func, bytes, error);
}

static void
sync_folder (const char *dir)
{
  int dfd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0)
    {
      (void) fsync (dfd);
      close (dfd);
    }
}

gboolean
weft_save_txn_commit (WeftSaveTxn *txn, GError **error)
{
  g_autoptr (GHashTable) dirs = g_hash_table_new (g_str_hash, g_str_equal);
  guint n = txn->files->len;

  g_return_val_if_fail (!txn->committed, FALSE);

  /* 1. every file complete, every temporary named: until here nothing
   *    has changed */
  for (guint i = 0; i < n; i++)
    {
      TxnFile *f = g_ptr_array_index (txn->files, i);
      g_return_val_if_fail (f->done, FALSE);
      if (f->tmp == NULL && !name_temporary (f, error))
        return FALSE;
    }
  /* 2. the renames: no data is written any more, only folder entries */
  for (guint i = 0; i < n; i++)
    {
      TxnFile *f = g_ptr_array_index (txn->files, i);
      if (g_rename (f->tmp, f->target) != 0)
        {
          int saved = errno;
          if (i == 0)
            g_set_error (error, WEFT_ERROR, WEFT_ERROR_IO, "%s: cannot rename the temporary file into place: %s",
                         f->shown, g_strerror (saved));
          else
            g_set_error (error, WEFT_ERROR, WEFT_ERROR_IO,
                         "%s: cannot rename the temporary file into place: %s (%u of the %u files were already "
                         "replaced)",
                         f->shown, g_strerror (saved), i, n);
          return FALSE;
        }
      g_clear_pointer (&f->tmp, g_free);
      txn->n_replaced++;
      g_hash_table_add (dirs, f->dir);
    }
  /* 3. rank files of the same names in another format */
  for (guint i = 0; i < txn->remove->len; i++)
    {
      const char *p = g_ptr_array_index (txn->remove, i);
      g_autofree char *d = g_path_get_dirname (p);
      if (g_unlink (p) != 0 && errno != ENOENT)
        g_warning ("%s: cannot remove the previous file of this rank: %s", p, g_strerror (errno));
      sync_folder (d);
    }
  /* 4. the renames themselves durable */
  {
    GHashTableIter it;
    gpointer key;
    g_hash_table_iter_init (&it, dirs);
    while (g_hash_table_iter_next (&it, &key, NULL))
      sync_folder (key);
  }
  for (guint i = 0; i < n; i++)
    {
      TxnFile *f = g_ptr_array_index (txn->files, i);
      close (f->fd);
      f->fd = -1;
    }
  txn->committed = TRUE;
  return TRUE;
}

gboolean
weft_save_check_folder (const char *root, const char *const *targets, guint n_targets, GError **error)
{
  g_autoptr (GHashTable) ours = NULL;
  g_autoptr (GPtrArray) found = NULL;

  if (!g_file_test (root, G_FILE_TEST_IS_DIR))
    return TRUE;
  found = weft_find_trace_files (root, NULL);
  if (found == NULL)
    return TRUE;
  ours = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < n_targets; i++)
    {
      char *stem = strip_trace_ext (targets[i]);
      if (stem != NULL)
        g_hash_table_add (ours, stem);
    }
  for (guint i = 0; i < found->len; i++)
    {
      const char *f = g_ptr_array_index (found, i);
      g_autofree char *stem = strip_trace_ext (f);
      if (stem == NULL || !g_hash_table_contains (ours, stem))
        {
          gsize n = strlen (root);
          const char *rel = strncmp (f, root, n) == 0 && f[n] == G_DIR_SEPARATOR ? f + n + 1 : f;
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
                       "%s: the folder already holds %s, which is not one of the %u rank files being written; "
                       "loading the folder later would mix the two traces (write into an empty folder, or over "
                       "the same rank<R>_trace files)",
                       root, rel, n_targets);
          return FALSE;
        }
    }
  return TRUE;
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
