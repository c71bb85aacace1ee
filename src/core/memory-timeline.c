/* memory-timeline.c: the GPU [memory] events of a trace anchored to the
 * ops they belong to, re-timed from the solver's times, and the totals
 * and peaks recomputed in the new time order (weft-memory.h; the rule:
 * docs/solver.md, "Memory under edits"). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "memory-private.h"
#include "util-private.h"

typedef struct
{
  guint32 event;      /* the [memory] event */
  guint32 anchor;     /* the op it follows, WEFT_NONE: its own (CPU-shifted) time */
  gint64  delta;      /* event ts - anchor ts (file clock) */
  gint64  bytes;      /* "Bytes" */
  gint64  allocated;  /* "Total Allocated" as loaded */
  gint64  reserved;   /* "Total Reserved" as loaded */
  gint64  prefix;     /* bytes of the device's events before it as loaded */
  gint64  hwm;        /* allocated high-water mark of its device at it as loaded */
  int     slot;       /* device slot */
  guint   order;      /* position in the loaded time order */
} Sample;

typedef struct
{
  GArray *samples;    /* Sample, in loaded time order */
  gint64 *time;       /* per sample: its time now (common timeline) */
  guint  *perm;       /* sample indices sorted by (time, order) */
  int     devices[16];
  guint   n_devices;
  int     primary;    /* slot drawn */
  /* the curve of the primary device */
  gint64 *ct, *ca, *cr;
  guint   n_curve;
  WeftMemoryTimelinePeak peak;
  gboolean valid;
} RankMem;

struct _WeftMemoryTimeline
{
  WeftTrace *trace;
  RankMem   *ranks;
  guint      n_ranks;
  guint64    solver_gen;   /* generation + 1 of the last update from a solver; 0 none */
  gconstpointer solver;
  guint64    serial;
};

/* Saturating arithmetic: the totals come from files, and a bad one must
 * not overflow (the values are clamped to +-2^52 bytes when read). */
static inline gint64
sat_add (gint64 a, gint64 b)
{
  gint64 r;
  if (__builtin_add_overflow (a, b, &r))
    return b > 0 ? G_MAXINT64 : G_MININT64;
  return r;
}

static inline gint64
sat_sub (gint64 a, gint64 b)
{
  gint64 r;
  if (__builtin_sub_overflow (a, b, &r))
    return b < 0 ? G_MAXINT64 : G_MININT64;
  return r;
}

/* ---- anchoring ------------------------------------------------------------------ */

static gboolean
is_span (const WeftEvent *ev)
{
  return ev->ph == WEFT_PH_X && !(ev->flags & WEFT_EVENT_LAUNCH) &&
         (ev->category == WEFT_CAT_CPU_OP || ev->category == WEFT_CAT_USER_ANNOTATION ||
          ev->category == WEFT_CAT_PYTHON_FUNCTION);
}

/* The GPU op a launch starts, or WEFT_NONE. */
static guint32
launched_op (const WeftRank *rank, const WeftEvent *ev)
{
  if (!(ev->flags & WEFT_EVENT_LAUNCH) || weft_event_link (ev) == WEFT_NONE || weft_event_link (ev) >= rank->events->len)
    return WEFT_NONE;
  if (!(g_array_index (rank->events, WeftEvent, weft_event_link (ev)).flags & WEFT_EVENT_GPU_OP))
    return WEFT_NONE;
  return weft_event_link (ev);
}

/* Reads one GPU [memory] event; FALSE when it is not one. */
static gboolean
read_sample (WeftRank *rank, guint32 i, guint32 memory_name, Sample *s, int *device)
{
  const WeftEvent *ev = &g_array_index (rank->events, WeftEvent, i);
  WeftMemoryArgs ma;

  if (ev->name != memory_name || ev->category != WEFT_CAT_CPU_INSTANT || (ev->flags & WEFT_EVENT_DELETED))
    return FALSE;
  if (!_weft_memory_read_args (rank, ev, &ma) || !weft_memory_device_is_gpu (ma.type))
    return FALSE;
  memset (s, 0, sizeof *s);
  s->allocated = ma.allocated;
  s->reserved = ma.reserved;
  s->bytes = ma.bytes;
  s->event = i;
  s->anchor = WEFT_NONE;
  *device = (int) CLAMP (ma.device, -1, G_MAXINT);
  return TRUE;
}

/* Anchors the samples on one CPU lane, in one sweep of the lane's events
 * (start order, the enclosing spans on a stack): the last GPU op launched
 * inside the innermost enclosing span when it launched nothing before the
 * sample (resolved after the sweep, span_last[span] = its last op), else
 * the latest launch before, else the lane's first launch. */
static void
anchor_lane (WeftRank *rank, WeftLane *lane, GArray *samples, GHashTable *by_event, guint32 *span_last)
{
  const guint32 *idx = (const guint32 *) (void *) lane->events->data;
  guint32 stack[64];   /* open spans; deeper nesting is not anchored to (rule 2 applies) */
  guint sp = 0;
  guint32 last_launch = WEFT_NONE, first_launch = WEFT_NONE;
  g_autoptr (GArray) pending = g_array_new (FALSE, FALSE, sizeof (guint)); /* samples without a launch before */
  g_autoptr (GArray) in_span = g_array_new (FALSE, FALSE, sizeof (guint)); /* (sample, span) pairs */

  for (guint k = 0; k < lane->events->len; k++)
    {
      const WeftEvent *ev = &g_array_index (rank->events, WeftEvent, idx[k]);
      guint32 op;
      gpointer hit;

      while (sp > 0 && weft_event_end (rank, &g_array_index (rank->events, WeftEvent, stack[sp - 1])) < ev->ts)
        sp--;
      if ((op = launched_op (rank, ev)) != WEFT_NONE)
        {
          for (guint j = 0; j < sp; j++)
            span_last[stack[j]] = op;
          last_launch = op;
          if (first_launch == WEFT_NONE)
            first_launch = op;
          continue;
        }
      if (is_span (ev))
        {
          /* the profiler's iteration marker is no op of its own */
          if (sp < G_N_ELEMENTS (stack) && !g_str_has_prefix (weft_rank_string (rank, ev->name), "ProfilerStep#"))
            stack[sp++] = idx[k];
          continue;
        }
      hit = g_hash_table_lookup (by_event, GUINT_TO_POINTER (idx[k] + 1));
      if (hit != NULL)
        {
          guint si = GPOINTER_TO_UINT (hit) - 1;
          Sample *s = &g_array_index (samples, Sample, si);
          /* a span that launched nothing yet (an op allocating its
           * output, an all-gather its buffer): the work it launches */
          if (sp > 0 && span_last[stack[sp - 1]] == WEFT_NONE)
            {
              g_array_append_val (in_span, si);
              g_array_append_val (in_span, stack[sp - 1]);
            }
          s->anchor = last_launch;
          if (last_launch == WEFT_NONE)
            g_array_append_val (pending, si);
        }
    }
  for (guint k = 0; k < pending->len; k++)
    g_array_index (samples, Sample, g_array_index (pending, guint, k)).anchor = first_launch;
  for (guint k = 0; k + 1 < in_span->len; k += 2)
    {
      guint32 op = span_last[g_array_index (in_span, guint32, k + 1)];
      if (op != WEFT_NONE)
        g_array_index (samples, Sample, g_array_index (in_span, guint, k)).anchor = op;
    }
}

typedef struct
{
  gint64  ts;
  guint32 event;
} OpStart;

static int
op_start_cmp (const void *a, const void *b)
{
  const OpStart *x = a, *y = b;
  return (x->ts > y->ts) - (x->ts < y->ts);
}

/* Samples of threads that launch nothing: the GPU op of their device
 * running at their time, or the latest one that started before it. */
static void
anchor_by_time (WeftRank *rank, GArray *samples, const int *sample_device)
{
  g_autoptr (GArray) ops = g_array_new (FALSE, FALSE, sizeof (OpStart));
  int built = G_MININT;

  for (guint i = 0; i < samples->len; i++)
    {
      Sample *s = &g_array_index (samples, Sample, i);
      const WeftEvent *mev = &g_array_index (rank->events, WeftEvent, s->event);
      guint lo = 0, hi;
      if (s->anchor != WEFT_NONE)
        continue;
      if (built != sample_device[i])
        {
          /* the GPU ops of its device (-1: of any), by start */
          built = sample_device[i];
          g_array_set_size (ops, 0);
          for (guint l = 0; l < rank->lanes->len; l++)
            {
              WeftLane *lane = weft_rank_lane (rank, l);
              if (lane->kind != WEFT_LANE_GPU || (built >= 0 && lane->device != built))
                continue;
              for (guint k = 0; k < lane->events->len; k++)
                {
                  guint32 e = g_array_index (lane->events, guint32, k);
                  const WeftEvent *ev = &g_array_index (rank->events, WeftEvent, e);
                  OpStart o = { ev->ts, e };
                  if ((ev->flags & WEFT_EVENT_GPU_OP) && !(ev->flags & WEFT_EVENT_DELETED))
                    g_array_append_val (ops, o);
                }
            }
          if (ops->len > 1)
            qsort (ops->data, ops->len, sizeof (OpStart), op_start_cmp);
        }
      hi = ops->len;
      while (lo < hi)
        {
          guint mid = lo + (hi - lo) / 2;
          if (g_array_index (ops, OpStart, mid).ts <= mev->ts)
            lo = mid + 1;
          else
            hi = mid;
        }
      if (lo > 0)
        s->anchor = g_array_index (ops, OpStart, lo - 1).event;
    }
}

static int
sample_ts_cmp (gconstpointer a, gconstpointer b, gpointer data)
{
  const WeftRank *rank = data;
  const Sample *x = a, *y = b;
  gint64 tx = g_array_index (rank->events, WeftEvent, x->event).ts;
  gint64 ty = g_array_index (rank->events, WeftEvent, y->event).ts;
  if (tx != ty)
    return tx < ty ? -1 : 1;
  return (x->event > y->event) - (x->event < y->event);
}

static int
device_slot (RankMem *rm, int device)
{
  for (guint k = 0; k < rm->n_devices; k++)
    if (rm->devices[k] == device)
      return (int) k;
  if (rm->n_devices == G_N_ELEMENTS (rm->devices))
    return -1;
  rm->devices[rm->n_devices] = device;
  return (int) rm->n_devices++;
}

static void
prepare_rank (WeftMemoryTimeline *self, guint r)
{
  WeftRank *rank = weft_trace_rank (self->trace, r);
  RankMem *rm = &self->ranks[r];
  guint32 memory_name = weft_strings_lookup (rank->strings, "[memory]", -1);
  g_autoptr (GArray) devs = NULL;
  g_autoptr (GHashTable) by_event = NULL;
  g_autofree guint32 *span_last = NULL;
  guint counts[16] = { 0 };
  gint64 prefix[16] = { 0 }, hwm[16] = { 0 };
  gboolean seen[16] = { FALSE };

  rm->samples = g_array_new (FALSE, FALSE, sizeof (Sample));
  rm->primary = -1;
  if (memory_name == WEFT_NONE)
    return;
  devs = g_array_new (FALSE, FALSE, sizeof (int));
  for (guint i = 0; i < rank->events->len; i++)
    {
      Sample s;
      int dev;
      if (read_sample (rank, i, memory_name, &s, &dev))
        {
          g_array_append_val (rm->samples, s);
          g_array_append_val (devs, dev);
        }
    }
  if (rm->samples->len == 0)
    return;
  /* device slots (a rank with more than 16 devices: the rest are dropped) */
  {
    guint n = 0;
    for (guint i = 0; i < rm->samples->len; i++)
      {
        Sample *s = &g_array_index (rm->samples, Sample, i);
        s->slot = device_slot (rm, g_array_index (devs, int, i));
        if (s->slot < 0)
          continue;
        g_array_index (rm->samples, Sample, n) = *s;
        g_array_index (devs, int, n) = g_array_index (devs, int, i);
        n++;
      }
    g_array_set_size (rm->samples, n);
    g_array_set_size (devs, n);
  }
  /* anchors, per CPU lane */
  by_event = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (guint i = 0; i < rm->samples->len; i++)
    g_hash_table_insert (by_event, GUINT_TO_POINTER (g_array_index (rm->samples, Sample, i).event + 1),
                         GUINT_TO_POINTER (i + 1));
  span_last = g_new (guint32, rank->events->len);
  memset (span_last, 0xff, sizeof (guint32) * rank->events->len);
  for (guint l = 0; l < rank->lanes->len; l++)
    {
      WeftLane *lane = weft_rank_lane (rank, l);
      if (lane->kind != WEFT_LANE_GPU)
        anchor_lane (rank, lane, rm->samples, by_event, span_last);
    }
  anchor_by_time (rank, rm->samples, (const int *) (const void *) devs->data);
  /* the loaded time order, per device: bytes before each event, the
   * allocated high-water mark at it */
  g_qsort_with_data (rm->samples->data, (gint) rm->samples->len, sizeof (Sample), sample_ts_cmp, rank);
  for (guint i = 0; i < rm->samples->len; i++)
    {
      Sample *s = &g_array_index (rm->samples, Sample, i);
      const WeftEvent *mev = &g_array_index (rank->events, WeftEvent, s->event);
      s->order = i;
      s->prefix = prefix[s->slot];
      prefix[s->slot] = sat_add (prefix[s->slot], s->bytes);
      hwm[s->slot] = seen[s->slot] ? MAX (hwm[s->slot], s->allocated) : s->allocated;
      seen[s->slot] = TRUE;
      s->hwm = hwm[s->slot];
      counts[s->slot]++;
      if (s->anchor != WEFT_NONE)
        s->delta = sat_sub (mev->ts, g_array_index (rank->events, WeftEvent, s->anchor).ts);
    }
  for (guint k = 0; k < rm->n_devices; k++)
    if (rm->primary < 0 || counts[k] > counts[rm->primary])
      rm->primary = (int) k;
  rm->time = g_new0 (gint64, rm->samples->len);
  rm->perm = g_new0 (guint, rm->samples->len);
  rm->ct = g_new0 (gint64, counts[rm->primary]);
  rm->ca = g_new0 (gint64, counts[rm->primary]);
  rm->cr = g_new0 (gint64, counts[rm->primary]);
}

/* ---- timing and totals ------------------------------------------------------------ */

typedef struct
{
  const gint64 *time;
  const Sample *samples;
} PermCtx;

static int
perm_cmp (gconstpointer a, gconstpointer b, gpointer data)
{
  const PermCtx *c = data;
  guint x = *(const guint *) a, y = *(const guint *) b;
  if (c->time[x] != c->time[y])
    return c->time[x] < c->time[y] ? -1 : 1;
  return (c->samples[x].order > c->samples[y].order) - (c->samples[x].order < c->samples[y].order);
}

static gint64
sample_time (WeftMemoryTimeline *self, WeftSolver *solver, guint r, const Sample *s)
{
  WeftRank *rank = weft_trace_rank (self->trace, r);
  const WeftEvent *mev = &g_array_index (rank->events, WeftEvent, s->event);

  if (solver == NULL)
    return mev->ts + weft_trace_rank_offset (self->trace, rank);
  if (s->anchor != WEFT_NONE && weft_solver_is_node (solver, r, s->anchor))
    return sat_add (weft_solver_start (solver, r, s->anchor), s->delta);
  return weft_solver_start (solver, r, s->event);
}

/* The curves and peak of a rank from its samples' current times. */
static void
sweep_rank (RankMem *rm)
{
  const Sample *sm = (const Sample *) (const void *) rm->samples->data;
  gint64 prefix[16] = { 0 }, hwm[16] = { 0 };
  gboolean seen[16] = { FALSE };
  guint n = rm->samples->len;
  PermCtx ctx = { rm->time, sm };

  for (guint i = 0; i < n; i++)
    rm->perm[i] = i;
  g_qsort_with_data (rm->perm, (gint) n, sizeof (guint), perm_cmp, &ctx);
  memset (&rm->peak, 0, sizeof rm->peak);
  rm->peak.device = -1;
  rm->n_curve = 0;
  for (guint k = 0; k < n; k++)
    {
      const Sample *s = &sm[rm->perm[k]];
      int d = s->slot;
      /* the loaded total, less the bytes that were before it and are not
       * now, plus those that are now and were not */
      gint64 alloc = sat_add (s->allocated, sat_sub (prefix[d], s->prefix));
      gint64 res;
      prefix[d] = sat_add (prefix[d], s->bytes);
      hwm[d] = seen[d] ? MAX (hwm[d], alloc) : alloc;
      seen[d] = TRUE;
      res = MAX (sat_add (s->reserved, sat_sub (hwm[d], s->hwm)), alloc);
      rm->peak.n_events++;
      rm->peak.peak_allocated = MAX (rm->peak.peak_allocated, alloc);
      if (rm->peak.n_events == 1 || res > rm->peak.peak_reserved)
        {
          rm->peak.peak_reserved = res;
          rm->peak.peak_time = rm->time[rm->perm[k]];
          rm->peak.device = rm->devices[d];
        }
      if (d == rm->primary)
        {
          rm->ct[rm->n_curve] = rm->time[rm->perm[k]];
          rm->ca[rm->n_curve] = alloc;
          rm->cr[rm->n_curve] = res;
          rm->n_curve++;
        }
    }
}

static gboolean
update_rank (WeftMemoryTimeline *self, WeftSolver *solver, guint r)
{
  RankMem *rm = &self->ranks[r];
  gboolean moved = !rm->valid;

  for (guint i = 0; i < rm->samples->len; i++)
    {
      gint64 t = sample_time (self, solver, r, &g_array_index (rm->samples, Sample, i));
      if (t != rm->time[i])
        {
          rm->time[i] = t;
          moved = TRUE;
        }
    }
  if (!moved)
    return FALSE;
  sweep_rank (rm);
  rm->valid = TRUE;
  return TRUE;
}

WeftMemoryTimeline *
weft_memory_timeline_new (WeftTrace *trace)
{
  WeftMemoryTimeline *self;

  g_return_val_if_fail (trace != NULL, NULL);
  self = g_new0 (WeftMemoryTimeline, 1);
  self->trace = trace;
  self->n_ranks = trace->ranks->len;
  self->ranks = g_new0 (RankMem, MAX (self->n_ranks, 1));
  for (guint r = 0; r < self->n_ranks; r++)
    {
      prepare_rank (self, r);
      if (self->ranks[r].samples->len > 0)
        update_rank (self, NULL, r);
    }
  self->serial = 1;
  return self;
}

void
weft_memory_timeline_free (WeftMemoryTimeline *self)
{
  if (self == NULL)
    return;
  for (guint r = 0; r < self->n_ranks; r++)
    {
      RankMem *rm = &self->ranks[r];
      g_array_free (rm->samples, TRUE);
      g_free (rm->time);
      g_free (rm->perm);
      g_free (rm->ct);
      g_free (rm->ca);
      g_free (rm->cr);
    }
  g_free (self->ranks);
  g_free (self);
}

gboolean
weft_memory_timeline_update (WeftMemoryTimeline *self, WeftSolver *solver)
{
  gboolean changed = FALSE;
  guint64 gen;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (solver == NULL || weft_solver_get_trace (solver) == self->trace, FALSE);
  gen = solver != NULL ? weft_solver_generation (solver) + 1 : 0;
  if (gen != 0 && gen == self->solver_gen && self->solver == solver)
    return FALSE;
  self->solver_gen = gen;
  self->solver = solver;
  for (guint r = 0; r < self->n_ranks; r++)
    if (self->ranks[r].samples->len > 0)
      changed |= update_rank (self, solver, r);
  if (changed)
    self->serial++;
  return changed;
}

guint64
weft_memory_timeline_get_serial (WeftMemoryTimeline *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->serial;
}

gboolean
weft_memory_timeline_is_empty (WeftMemoryTimeline *self)
{
  g_return_val_if_fail (self != NULL, TRUE);
  for (guint r = 0; r < self->n_ranks; r++)
    if (self->ranks[r].samples->len > 0)
      return FALSE;
  return TRUE;
}

gboolean
weft_memory_timeline_peak (WeftMemoryTimeline *self, guint rank_index, WeftMemoryTimelinePeak *out)
{
  g_return_val_if_fail (self != NULL && out != NULL, FALSE);
  memset (out, 0, sizeof *out);
  out->device = -1;
  if (rank_index == WEFT_SOLVER_ALL_RANKS)
    {
      for (guint r = 0; r < self->n_ranks; r++)
        if (self->ranks[r].peak.n_events > 0 &&
            (out->n_events == 0 || self->ranks[r].peak.peak_reserved > out->peak_reserved))
          {
            guint n = out->n_events;
            *out = self->ranks[r].peak;
            out->n_events += n;
          }
        else
          out->n_events += self->ranks[r].peak.n_events;
      return out->n_events > 0;
    }
  g_return_val_if_fail (rank_index < self->n_ranks, FALSE);
  *out = self->ranks[rank_index].peak;
  return out->n_events > 0;
}

gboolean
weft_memory_timeline_curve (WeftMemoryTimeline *self, guint rank_index, int *device, const gint64 **t,
                            const gint64 **allocated, const gint64 **reserved, guint *n_points)
{
  RankMem *rm;

  g_return_val_if_fail (self != NULL, FALSE);
  if (rank_index >= self->n_ranks || self->ranks[rank_index].n_curve == 0)
    return FALSE;
  rm = &self->ranks[rank_index];
  if (device != NULL)
    *device = rm->devices[rm->primary];
  if (t != NULL)
    *t = rm->ct;
  if (allocated != NULL)
    *allocated = rm->ca;
  if (reserved != NULL)
    *reserved = rm->cr;
  if (n_points != NULL)
    *n_points = rm->n_curve;
  return TRUE;
}

gboolean
weft_memory_timeline_value_at (WeftMemoryTimeline *self, guint rank_index, gint64 t, gint64 *allocated,
                               gint64 *reserved)
{
  RankMem *rm;
  guint lo = 0, hi;
  gint64 a, res;

  g_return_val_if_fail (self != NULL, FALSE);
  if (rank_index >= self->n_ranks || self->ranks[rank_index].n_curve == 0)
    return FALSE;
  rm = &self->ranks[rank_index];
  hi = rm->n_curve;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (rm->ct[mid] <= t)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo > 0)
    {
      a = rm->ca[lo - 1];
      res = rm->cr[lo - 1];
    }
  else
    {
      /* before the first event: what it found */
      const Sample *first = NULL;
      for (guint k = 0; k < rm->samples->len && first == NULL; k++)
        if (g_array_index (rm->samples, Sample, rm->perm[k]).slot == rm->primary)
          first = &g_array_index (rm->samples, Sample, rm->perm[k]);
      a = rm->ca[0] - (first != NULL ? first->bytes : 0);
      res = rm->cr[0];
    }
  if (allocated != NULL)
    *allocated = a;
  if (reserved != NULL)
    *reserved = res;
  return TRUE;
}

guint32
weft_memory_timeline_anchor (WeftMemoryTimeline *self, guint rank_index, guint32 event)
{
  RankMem *rm;

  g_return_val_if_fail (self != NULL, WEFT_NONE);
  if (rank_index >= self->n_ranks)
    return WEFT_NONE;
  rm = &self->ranks[rank_index];
  for (guint i = 0; i < rm->samples->len; i++)
    if (g_array_index (rm->samples, Sample, i).event == event)
      return g_array_index (rm->samples, Sample, i).anchor;
  return WEFT_NONE;
}
