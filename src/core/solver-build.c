/* solver-build.c: the graph from the trace (docs/solver.md, "Graph"): per
 * rank the OP nodes of every GPU lane, their launches, the cross-stream
 * edges inferred from the runtime calls and the recorded syncs, the SYNC
 * nodes of the CPU threads, the typical launch latency and gap, the steps
 * and the annotations; then the collective instances across the ranks, and
 * the build cycles broken. Runs once, from weft_solver_new. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "solver-private.h"
#include "textstore-private.h"
#include "util-private.h"

#define TOL_NS 1000 /* 1 us: slack for inferred edges against observed times */

/* ---- building the graph ----------------------------------------------------- */

typedef struct
{
  gint64  t;       /* launch start (common timeline) */
  guint32 node;
} LaunchRec;

static gint
launch_rec_cmp (gconstpointer a, gconstpointer b)
{
  const LaunchRec *x = a, *y = b;
  return (x->t > y->t) - (x->t < y->t);
}

/* Per rank scratch of build_rank, shared by its phases (in their order:
 * each phase fills what the later ones read). */
typedef struct
{
  WeftRank   *rank;
  RankState  *rs;
  guint       r;
  guint32     first_node; /* the rank's first node */
  gboolean    weft_saved; /* saved by Weft: "weft held" ops keep their start */
  gboolean    has_wait_sync, has_cpu_sync; /* cuda_sync events recorded, of each kind */
  GHashTable *launches;   /* CPU lane + 1 -> GArray of LaunchRec sorted */
  GHashTable *runtime_by_corr; /* correlation -> event + 1 (cuda_runtime/driver) */
  gint64     *corr_keys;       /* its keys: every event's correlation, by index */
  GHashTable *stream_lane;/* (device << 32 | stream) -> model lane + 1 */
  GArray     *pmax;       /* per node: running max of launch time along its lane */
  GHashTable *records;    /* External id -> GArray of RecordRec (cudaEventRecord calls) */
  GArray     *typ_cand;   /* (op, stream predecessor or WEFT_NONE): samples of the typical figures */
  GArray     *specs;      /* SyncSpec: the SYNC nodes to make */
} Scratch;

static gint64
op_launch_key (WeftSolver *self, guint32 v)
{
  Node *n = &self->nodes[v];
  return n->launch_time != G_MININT64 ? n->launch_time : n->obs_start;
}

/* Last op of a lane launched at or before t (by launch time), WEFT_NONE. */
static guint32
lane_last_launched_before (WeftSolver *self, Scratch *sc, GArray *order, gint64 t)
{
  guint lo = 0, hi = order->len;
  const gint64 *pmax = (const gint64 *) (void *) sc->pmax->data;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (pmax[g_array_index (order, guint32, mid)] <= t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo == 0 ? WEFT_NONE : g_array_index (order, guint32, lo - 1);
}

/* What a blocking sync called at t and returning at t_end waited for on a
 * lane: the last op launched by t, or a later op with no launch in the
 * trace (queued before the profile began) that ended by t_end. */
static guint32
lane_sync_target (WeftSolver *self, Scratch *sc, GArray *order, gint64 t, gint64 t_end)
{
  guint32 g = lane_last_launched_before (self, sc, order, t);
  for (guint j = g != WEFT_NONE ? self->nodes[g].lane_pos + 1 : 0; j < order->len; j++)
    {
      const Node *n = &self->nodes[g_array_index (order, guint32, j)];
      if (n->launch_time != G_MININT64 || n->obs_end > t_end + TOL_NS)
        break;
      g = g_array_index (order, guint32, j);
    }
  return g;
}

/* First op of a lane launched at or after t. */
static guint32
lane_first_launched_after (WeftSolver *self, Scratch *sc, GArray *order, gint64 t)
{
  guint lo = 0, hi = order->len;
  const gint64 *pmax = (const gint64 *) (void *) sc->pmax->data;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (pmax[g_array_index (order, guint32, mid)] < t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo >= order->len ? WEFT_NONE : g_array_index (order, guint32, lo);
}

gboolean
_weft_solver_has_in_from (WeftSolver *self, guint32 v, guint32 src)
{
  Node *n = &self->nodes[v];
  for (guint i = 0; i < n->n_in; i++)
    if (n->in[i].src == src)
      return TRUE;
  return FALSE;
}

/* An inferred cross-stream edge, kept only when the observed schedule obeys it. */
static gboolean
add_cross (WeftSolver *self, guint32 from, guint32 to)
{
  Node *f, *t;
  if (from == WEFT_NONE || to == WEFT_NONE || from == to)
    return FALSE;
  f = &self->nodes[from];
  t = &self->nodes[to];
  if (f->lane == t->lane)
    return FALSE;
  if (t->obs_start + TOL_NS < f->obs_end)
    {
      self->stats.n_inferred_dropped++; /* the observed schedule contradicts it */
      return FALSE;
    }
  if (_weft_solver_has_in_from (self, to, from))
    return FALSE;
  _weft_solver_node_add_in (self, to, from, WEFT_DEP_CROSS_STREAM, 0);
  self->stats.n_cross_stream++;
  return TRUE;
}

static GArray *
thread_launches (Scratch *sc, guint32 cpu_lane)
{
  return g_hash_table_lookup (sc->launches, GUINT_TO_POINTER (cpu_lane + 1));
}

/* Index of the first launch at or after t in l (sorted by time), l->len: none. */
static guint
launches_lower_bound (GArray *l, gint64 t)
{
  guint lo = 0, hi = l->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (g_array_index (l, LaunchRec, mid).t < t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* Last op launched from the thread before t on a lane other than not_lane
 * (and not a communication op when skip_comm). */
static guint32
thread_last_launch_before (WeftSolver *self, Scratch *sc, guint32 cpu_lane, gint64 t, guint32 not_lane,
                           gboolean skip_comm)
{
  GArray *l = thread_launches (sc, cpu_lane);
  guint lo;
  if (l == NULL)
    return WEFT_NONE;
  lo = launches_lower_bound (l, t);
  for (guint k = lo, steps = 0; k > 0 && steps < 512; k--, steps++)
    {
      guint32 v = g_array_index (l, LaunchRec, k - 1).node;
      if (self->nodes[v].lane != not_lane && !(skip_comm && (self->nodes[v].flags & NODE_COMM)))
        return v;
    }
  return WEFT_NONE;
}

/* A collective's producer is the compute that made its input, never another
 * collective: the collective launched last before the record is usually
 * unrelated (an all-gather prefetched just before a reduce-scatter). Except
 * when the observed schedule says otherwise: the collective launched last
 * before the wait (on another stream) ends right before the waiter starts
 * (within UNEXPLAINED_NS), and the compute producer ended long before it
 * (more than UNEXPLAINED_NS), so that nothing launched on the thread
 * explains the start but that collective: HSDP's all-reduce of the shard
 * that the reduce-scatter just produced. */
static guint32
comm_producer (WeftSolver *self, Scratch *sc, guint32 cpu_lane, gint64 t, guint32 compute, guint32 waiter)
{
  guint32 c = thread_last_launch_before (self, sc, cpu_lane, t, self->nodes[waiter].lane, FALSE);
  const Node *w = &self->nodes[waiter];
  if (c == WEFT_NONE || c == compute || !(self->nodes[c].flags & NODE_COMM))
    return compute;
  if (w->obs_start + TOL_NS < self->nodes[c].obs_end || w->obs_start > self->nodes[c].obs_end + UNEXPLAINED_NS)
    return compute;
  if (compute != WEFT_NONE && w->obs_start <= self->nodes[compute].obs_end + UNEXPLAINED_NS)
    return compute;
  return c;
}

typedef struct
{
  gint64  ts;
  guint32 lane;
} RecordRec;      /* a cudaEventRecord call: its start (file clock) and CPU lane */

/* The producer a cudaStreamWaitEvent makes waiter wait for: the last op
 * launched on the thread (on another stream than the waiter's) before the
 * cudaEventRecord with the wait's External id, else before the wait. A
 * collective waits for the compute that produced its input, never for
 * another collective (that one is its own stream's), but see
 * comm_producer. Several records of one CPU op share its External id
 * (FSDP's post-backward records the compute stream, then with HSDP the
 * reduce-scatter stream), so a later one can stand for an earlier handle:
 * the latest record whose producer the observed schedule obeys, else the
 * latest. */
static guint32
wait_producer (WeftSolver *self, Scratch *sc, GHashTable *records, const WeftEvent *ev, guint32 waiter)
{
  gint64 offset = self->ranks[self->nodes[waiter].rank].offset;
  gboolean skip_comm = (self->nodes[waiter].flags & NODE_COMM) != 0;
  guint32 lane = self->nodes[waiter].lane;
  guint32 producer = thread_last_launch_before (self, sc, ev->lane, ev->ts + offset, lane, skip_comm);
  gint64 ext = weft_event_external_id (sc->rank, ev);
  GArray *recs = ext >= 0 ? g_hash_table_lookup (records, &ext) : NULL;
  gint64 tried = G_MAXINT64;
  guint32 first = WEFT_NONE;

  for (guint round = 0; recs != NULL && round < 8; round++)
    {
      gint64 best = G_MININT64;
      guint32 p;
      for (guint k = 0; k < recs->len; k++)
        {
          const RecordRec *rr = &g_array_index (recs, RecordRec, k);
          if (rr->lane == ev->lane && rr->ts <= ev->ts && rr->ts < tried && rr->ts > best)
            best = rr->ts;
        }
      if (best == G_MININT64)
        break;
      tried = best;
      p = thread_last_launch_before (self, sc, ev->lane, best + offset, lane, skip_comm);
      if (round == 0)
        first = p;
      if (p != WEFT_NONE && self->nodes[waiter].obs_start + TOL_NS >= self->nodes[p].obs_end)
        {
          first = p;
          break;
        }
    }
  if (tried != G_MAXINT64)
    producer = first;
  if (skip_comm)
    producer = comm_producer (self, sc, ev->lane, ev->ts + offset, producer, waiter);
  return producer;
}

static GArray *
stream_order (WeftSolver *self, Scratch *sc, guint rank, gint64 device, gint64 stream)
{
  guint64 key = ((guint64) (device & 0xffff) << 48) ^ (guint64) stream;
  gpointer p = g_hash_table_lookup (sc->stream_lane, &key);
  if (p == NULL)
    return NULL;
  return _weft_solver_lane_order (self, rank, GPOINTER_TO_UINT (p) - 1);
}

typedef struct
{
  guint32  cpu_event;
  guint32  cpu_lane;
  GArray  *targets;   /* guint32 op nodes */
} SyncSpec;

static void
add_sync_spec (GArray *specs, guint32 cpu_event, guint32 cpu_lane, const guint32 *targets, guint n)
{
  SyncSpec s;
  guint k = 0;
  for (guint i = 0; i < n; i++)
    if (targets[i] != WEFT_NONE)
      k++;
  if (k == 0 || cpu_lane == WEFT_NONE)
    return;
  s.cpu_event = cpu_event;
  s.cpu_lane = cpu_lane;
  s.targets = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (guint i = 0; i < n; i++)
    if (targets[i] != WEFT_NONE)
      g_array_append_val (s.targets, targets[i]);
  g_array_append_val (specs, s);
}

static gint64
json_get_int (json_object *args, const char *key, gint64 fallback)
{
  json_object *v;
  if (args == NULL || !json_object_object_get_ex (args, key, &v))
    return fallback;
  if (json_object_is_type (v, json_type_int))
    return json_object_get_int64 (v);
  if (json_object_is_type (v, json_type_double))
    return (gint64) json_object_get_double (v);
  if (json_object_is_type (v, json_type_string))
    {
      const char *s = json_object_get_string (v);
      char *end = NULL;
      gint64 x = g_ascii_strtoll (s, &end, 10);
      return end != s ? x : fallback;
    }
  return fallback;
}

static gboolean
is_d2h_pageable (const char *name)
{
  return (strstr (name, "DtoH") != NULL || strstr (name, "Device -> Pageable") != NULL) &&
         strstr (name, "Pageable") != NULL;
}

/* Runtime calls that give edges, by name: CUDA runtime, CUDA driver and
 * HIP (ROCm) spell the same calls differently (docs/solver.md). */
typedef enum
{
  RT_OTHER = 0,
  RT_EVENT_RECORD,
  RT_STREAM_WAIT,
  RT_DEVICE_SYNC,
  RT_STREAM_SYNC,
  RT_MEMCPY,
} RuntimeCall;

static const char * const event_record_names[] = {
  "cudaEventRecord", "cudaEventRecordWithFlags", "cuEventRecord", "cuEventRecordWithFlags",
  "hipEventRecord", "hipEventRecordWithFlags",
};

static RuntimeCall
runtime_call (const char *name)
{
  static const struct { const char *name; RuntimeCall call; } exact[] = {
    { "cudaStreamWaitEvent", RT_STREAM_WAIT },   { "cuStreamWaitEvent", RT_STREAM_WAIT },
    { "hipStreamWaitEvent", RT_STREAM_WAIT },    { "cudaDeviceSynchronize", RT_DEVICE_SYNC },
    { "cuCtxSynchronize", RT_DEVICE_SYNC },      { "hipDeviceSynchronize", RT_DEVICE_SYNC },
    { "cudaStreamSynchronize", RT_STREAM_SYNC }, { "cuStreamSynchronize", RT_STREAM_SYNC },
    { "hipStreamSynchronize", RT_STREAM_SYNC },
  };
  if (name[0] != 'c' && name[0] != 'h')
    return RT_OTHER;
  for (guint i = 0; i < G_N_ELEMENTS (exact); i++)
    if (strcmp (name, exact[i].name) == 0)
      return exact[i].call;
  for (guint i = 0; i < G_N_ELEMENTS (event_record_names); i++)
    if (strcmp (name, event_record_names[i]) == 0)
      return RT_EVENT_RECORD;
  if (g_str_has_prefix (name, "cudaMemcpy") || g_str_has_prefix (name, "hipMemcpy") || g_str_has_prefix (name, "cuMemcpy"))
    return RT_MEMCPY;
  return RT_OTHER;
}

static void
lane_order_free (gpointer data)
{
  if (data != NULL)
    g_array_unref (data);
}

/* gpu_user_annotation slices of the rank's GPU lanes and the ops each
 * covered as loaded: the ops of its stream whose observed span lies inside
 * its own (Kineto writes it from the first to the last kernel it covers). */
static void
build_annots (WeftSolver *self, guint r)
{
  WeftRank *rank = weft_trace_rank (self->trace, r);
  RankState *rs = &self->ranks[r];
  for (guint li = 0; li < rank->lanes->len && li < rs->lanes->len; li++)
    {
      WeftLane *lane = weft_rank_lane (rank, li);
      GArray *o = g_ptr_array_index (rs->lanes, li);
      if (lane->kind != WEFT_LANE_GPU || o == NULL)
        continue;
      for (guint j = 0; j < lane->events->len; j++)
        {
          guint32 ei = g_array_index (lane->events, guint32, j);
          const WeftEvent *ev = weft_rank_event (rank, ei);
          gint64 a0, a1;
          guint lo = 0, hi = o->len;
          AnnotRec rec;
          if (ev->category != WEFT_CAT_GPU_USER_ANNOTATION || ev->ph != WEFT_PH_X || (ev->flags & WEFT_EVENT_DELETED))
            continue;
          a0 = ev->ts + rs->offset;
          a1 = weft_event_end (rank, ev) + rs->offset;
          while (lo < hi) /* first op starting at or after a0 */
            {
              guint mid = lo + (hi - lo) / 2;
              if (self->nodes[g_array_index (o, guint32, mid)].obs_start < a0)
                lo = mid + 1;
              else
                hi = mid;
            }
          if (rs->annots == NULL)
            {
              rs->annots = g_array_new (FALSE, FALSE, sizeof (AnnotRec));
              rs->annot_nodes = g_array_new (FALSE, FALSE, sizeof (guint32));
              rs->annot_of = g_hash_table_new (g_direct_hash, g_direct_equal);
            }
          rec.event = ei;
          rec.lane = li;
          rec.first = rs->annot_nodes->len;
          for (guint k = lo; k < o->len && self->nodes[g_array_index (o, guint32, k)].obs_start <= a1; k++)
            if (self->nodes[g_array_index (o, guint32, k)].obs_end <= a1)
              g_array_append_val (rs->annot_nodes, g_array_index (o, guint32, k));
          rec.n = rs->annot_nodes->len - rec.first;
          if (rec.n == 0)
            continue; /* covers no op: stays as it is */
          {
            gint64 o0 = G_MAXINT64, o1 = G_MININT64;
            for (guint k = 0; k < rec.n; k++)
              {
                const Node *cn = &self->nodes[g_array_index (rs->annot_nodes, guint32, rec.first + k)];
                o0 = MIN (o0, cn->obs_start);
                o1 = MAX (o1, cn->obs_end);
              }
            /* kept, so that it nests with its ops as it did (Perfetto nests
             * a slice of the same span as another in the earlier one) */
            rec.lead = o0 - a0;
            rec.trail = a1 - o1;
          }
          g_array_append_val (rs->annots, rec);
          g_hash_table_insert (rs->annot_of, GUINT_TO_POINTER (ei + 1), GUINT_TO_POINTER (rs->annots->len));
        }
    }
}

static void
build_begin (WeftSolver *self, Scratch *sc, guint r)
{
  WeftRank *rank = weft_trace_rank (self->trace, r);
  RankState *rs = &self->ranks[r];

  sc->rank = rank;
  sc->rs = rs;
  sc->r = r;
  sc->first_node = self->n_nodes;
  sc->typ_cand = g_array_new (FALSE, FALSE, sizeof (guint32) * 2);
  sc->specs = g_array_new (FALSE, FALSE, sizeof (SyncSpec));
  sc->has_wait_sync = sc->has_cpu_sync = sc->weft_saved = FALSE;
  sc->records = NULL;

  rs->offset = weft_trace_rank_offset (self->trace, rank);
  rs->ev_node = g_array_new (FALSE, FALSE, sizeof (guint32));
  _weft_solver_set_ev_node (self, r, rank->events->len ? rank->events->len - 1 : 0, WEFT_NONE);
  for (guint i = 0; i < rs->ev_node->len; i++)
    g_array_index (rs->ev_node, guint32, i) = WEFT_NONE;
  rs->lanes = g_ptr_array_new_with_free_func (lane_order_free);
  rs->threads = g_hash_table_new (g_direct_hash, g_direct_equal);

  for (guint k = 0; k < rank->top_keys->len && !sc->weft_saved; k++)
    sc->weft_saved = strcmp (weft_rank_string (rank, g_array_index (rank->top_keys, WeftTopKey, k).key), "weft") == 0;

  sc->launches = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, (GDestroyNotify) g_array_unref);
  sc->runtime_by_corr = g_hash_table_new (g_int64_hash, g_int64_equal);
  sc->corr_keys = g_new (gint64, MAX (rank->events->len, 1));
  sc->stream_lane = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
}

static void
build_end (Scratch *sc)
{
  g_array_free (sc->typ_cand, TRUE);
  g_array_free (sc->specs, TRUE);
  g_array_free (sc->pmax, TRUE);
  g_hash_table_destroy (sc->launches);
  g_hash_table_destroy (sc->runtime_by_corr);
  g_free (sc->corr_keys);
  g_hash_table_destroy (sc->stream_lane);
  g_hash_table_destroy (sc->records);
}

/* Whether the event's original text holds needle. */
static gboolean
event_text_has (const WeftRank *rank, const WeftEvent *ev, const char *needle)
{
  gsize len = 0;
  const char *text = _weft_rank_text_lock (rank, ev, &len);
  gboolean found = text != NULL && len > 0 && g_strstr_len (text, (gssize) len, needle) != NULL;
  _weft_rank_text_unlock (rank);
  return found;
}

/* The OP node of GPU op ei of lane li, appended to the lane's order. */
static void
build_op (WeftSolver *self, Scratch *sc, guint32 li, guint32 ei, GArray *order)
{
  WeftRank *rank = sc->rank;
  RankState *rs = sc->rs;
  WeftEvent *ev = weft_rank_event (rank, ei);
  guint32 v;
  Node *n;
  if (!(ev->flags & WEFT_EVENT_GPU_OP) || (ev->flags & WEFT_EVENT_DELETED) || ev->ph != WEFT_PH_X)
    return;
  v = _weft_solver_add_node (self, NODE_OP, sc->r, ei);
  n = &self->nodes[v];
  n->lane = li;
  n->lane_pos = order->len;
  n->obs_start = ev->ts + rs->offset;
  n->obs_end = weft_event_end (rank, ev) + rs->offset;
  n->dur = weft_event_dur (rank, ev);
  if (ev->kclass == WEFT_KCLASS_COMM)
    n->flags |= NODE_COMM;
  else if (ev->category == WEFT_CAT_GPU_MEMCPY || ev->category == WEFT_CAT_GPU_MEMSET)
    n->flags |= NODE_MEM;
  if (weft_event_link (ev) != WEFT_NONE && weft_event_link (ev) < rank->events->len)
    {
      WeftEvent *l = weft_rank_event (rank, weft_event_link (ev));
      if (l->lane != WEFT_NONE && weft_rank_lane (rank, l->lane)->kind == WEFT_LANE_CPU)
        {
          n->launch = weft_event_link (ev);
          n->launch_time = l->ts + rs->offset;
          n->release_kind = WEFT_DEP_LAUNCH;
        }
    }
  /* saved by Weft as held by a user minimum start: so it is */
  if (sc->weft_saved && weft_event_has_text (rank, ev) && event_text_has (rank, ev, "\"weft held\""))
    {
      ev->flags |= WEFT_EVENT_HELD;
      n->min_start = n->obs_start;
    }
  _weft_solver_set_ev_node (self, sc->r, ei, v);
  g_array_append_val (order, v);
}

/* Phase 1: OP nodes per GPU lane, in the lane's (start) order. */
static void
build_ops (WeftSolver *self, Scratch *sc)
{
  WeftRank *rank = sc->rank;
  RankState *rs = sc->rs;

  for (guint li = 0; li < rank->lanes->len; li++)
    {
      WeftLane *lane = weft_rank_lane (rank, li);
      GArray *order = NULL;
      if (lane->kind == WEFT_LANE_GPU)
        {
          guint64 *key = g_new (guint64, 1);
          *key = ((guint64) ((gint64) lane->device & 0xffff) << 48) ^ (guint64) lane->tid;
          g_hash_table_insert (sc->stream_lane, key, GUINT_TO_POINTER (li + 1));
          order = g_array_new (FALSE, FALSE, sizeof (guint32));
          for (guint j = 0; j < lane->events->len; j++)
            build_op (self, sc, li, g_array_index (lane->events, guint32, j), order);
          /* ops that start together run shortest first (a stream runs one
           * op at a time: a zero-length op at t came before the op that
           * starts at t), while the lane lists the longer first (for
           * nesting) */
          for (guint j = 1; j < order->len; j++)
            for (guint k = j; k > 0; k--)
              {
                guint32 *o = (guint32 *) (void *) order->data;
                const Node *a = &self->nodes[o[k - 1]], *b = &self->nodes[o[k]];
                guint32 t;
                if (a->obs_start != b->obs_start || a->obs_end <= b->obs_end)
                  break;
                t = o[k - 1];
                o[k - 1] = o[k];
                o[k] = t;
                self->nodes[o[k - 1]].lane_pos = k - 1;
                self->nodes[o[k]].lane_pos = k;
              }
        }
      g_ptr_array_add (rs->lanes, order);
    }
}

/* Phase 2: running max of launch time per lane; launches per CPU thread;
 * the candidates for the typical figures. */
static void
build_launch_index (WeftSolver *self, Scratch *sc)
{
  RankState *rs = sc->rs;

  sc->pmax = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_array_set_size (sc->pmax, self->n_nodes);
  for (guint li = 0; li < rs->lanes->len; li++)
    {
      GArray *order = g_ptr_array_index (rs->lanes, li);
      gint64 m = G_MININT64;
      if (order == NULL)
        continue;
      for (guint j = 0; j < order->len; j++)
        {
          guint32 v = g_array_index (order, guint32, j);
          Node *n = &self->nodes[v];
          m = MAX (m, op_launch_key (self, v));
          g_array_index (sc->pmax, gint64, v) = m;
          if (n->launch != WEFT_NONE)
            {
              guint32 cl = weft_rank_event (sc->rank, n->launch)->lane;
              GArray *l = thread_launches (sc, cl);
              LaunchRec rec = { n->launch_time, v };
              if (l == NULL)
                {
                  l = g_array_new (FALSE, FALSE, sizeof (LaunchRec));
                  g_hash_table_insert (sc->launches, GUINT_TO_POINTER (cl + 1), l);
                }
              g_array_append_val (l, rec);
              /* typical figures: sampled once the cross-stream edges are known */
              {
                guint32 cand[2] = { v, j > 0 ? g_array_index (order, guint32, j - 1) : WEFT_NONE };
                g_array_append_val (sc->typ_cand, cand);
              }
            }
        }
    }
  {
    GHashTableIter it;
    gpointer value;
    g_hash_table_iter_init (&it, sc->launches);
    while (g_hash_table_iter_next (&it, NULL, &value))
      g_array_sort (value, launch_rec_cmp);
  }
}

/* Phase 3: runtime calls by correlation; cuda_sync presence. */
static void
build_runtime_index (WeftSolver *self, Scratch *sc)
{
  WeftRank *rank = sc->rank;

  for (guint i = 0; i < rank->events->len; i++)
    {
      WeftEvent *ev = weft_rank_event (rank, i);
      if (ev->ph != WEFT_PH_X || (ev->flags & WEFT_EVENT_DELETED))
        continue;
      sc->corr_keys[i] = weft_event_correlation (rank, ev);
      if ((ev->category == WEFT_CAT_CUDA_RUNTIME || ev->category == WEFT_CAT_CUDA_DRIVER) && sc->corr_keys[i] >= 0)
        g_hash_table_insert (sc->runtime_by_corr, &sc->corr_keys[i], GUINT_TO_POINTER (i + 1));
      else if (ev->category == WEFT_CAT_CUDA_SYNC)
        {
          /* with sync events recorded, they replace the inference of the same kind */
          const char *sn = weft_rank_string (rank, ev->name);
          if (strcmp (sn, "Stream Wait Event") == 0)
            sc->has_wait_sync = TRUE;
          else
            sc->has_cpu_sync = TRUE;
        }
    }
}

/* Phase 4: cudaEventRecord (hipEventRecord, ...) calls by (thread, External
 * id), sorted by time. */
static void
build_record_index (WeftSolver *self, Scratch *sc)
{
  WeftRank *rank = sc->rank;
  guint32 record_names[G_N_ELEMENTS (event_record_names)];
  guint n_record_names = 0;

  sc->records = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, (GDestroyNotify) g_array_unref);
  for (guint k = 0; k < G_N_ELEMENTS (event_record_names); k++)
    {
      guint32 id = weft_strings_lookup (rank->strings, event_record_names[k], -1);
      if (id != WEFT_NONE)
        record_names[n_record_names++] = id;
    }
  for (guint i = 0; n_record_names > 0 && i < rank->events->len; i++)
    {
      WeftEvent *ev = weft_rank_event (rank, i);
      GArray *recs;
      RecordRec rr;
      gint64 ext;
      gboolean is_record = FALSE;
      for (guint k = 0; k < n_record_names && !is_record; k++)
        is_record = ev->name == record_names[k];
      if (!is_record || (ev->category != WEFT_CAT_CUDA_RUNTIME && ev->category != WEFT_CAT_CUDA_DRIVER) ||
          ev->lane == WEFT_NONE || ev->ph != WEFT_PH_X || (ext = weft_event_external_id (rank, ev)) < 0)
        continue;
      recs = g_hash_table_lookup (sc->records, &ext);
      if (recs == NULL)
        {
          recs = g_array_new (FALSE, FALSE, sizeof (RecordRec));
          g_hash_table_insert (sc->records, g_memdup2 (&ext, sizeof ext), recs);
        }
      rr.ts = ev->ts;
      rr.lane = ev->lane;
      g_array_append_val (recs, rr);
    }
}

/* Phase 5a: a recorded cuda_sync event (Stream Wait Event, Event Sync,
 * Stream Sync, Context Sync): a cross-stream edge or a sync spec. */
static void
infer_from_sync_event (WeftSolver *self, Scratch *sc, WeftEvent *ev)
{
  WeftRank *rank = sc->rank;
  RankState *rs = sc->rs;
  json_object *args = weft_event_parse_args (rank, ev);
  gint64 ws = json_get_int (args, "wait_on_stream", -1);
  gint64 rec_corr = json_get_int (args, "wait_on_cuda_event_record_corr_id", -1);
  gint64 stream = json_get_int (args, "stream", -1);
  gint64 device = ev->lane != WEFT_NONE ? weft_rank_lane (rank, ev->lane)->pid : 0;
  gint64 corr = weft_event_correlation (sc->rank, ev);
  gpointer rt = corr >= 0 ? g_hash_table_lookup (sc->runtime_by_corr, &corr) : NULL;
  WeftEvent *call = rt ? weft_rank_event (rank, GPOINTER_TO_UINT (rt) - 1) : NULL;
  guint32 call_idx = rt ? GPOINTER_TO_UINT (rt) - 1 : WEFT_NONE;
  gint64 call_t = (call ? call->ts : ev->ts) + rs->offset;
  guint32 producer = WEFT_NONE;
  const char *name;

  name = weft_rank_string (rank, ev->name);
  if (args != NULL)
    json_object_put (args);
  if (ws >= 0 && rec_corr >= 0)
    {
      gpointer rp = g_hash_table_lookup (sc->runtime_by_corr, &rec_corr);
      GArray *po = stream_order (self, sc, sc->r, device, ws);
      if (rp != NULL && po != NULL)
        {
          WeftEvent *record = weft_rank_event (rank, GPOINTER_TO_UINT (rp) - 1);
          producer = lane_last_launched_before (self, sc, po, record->ts + rs->offset);
        }
    }
  if (strcmp (name, "Stream Wait Event") == 0)
    {
      GArray *wo;
      if (stream < 0 && ev->lane != WEFT_NONE)
        {
          stream = weft_rank_lane (rank, ev->lane)->tid;
          if (stream >= 1000000)
            stream -= 1000000;
        }
      wo = stream_order (self, sc, sc->r, device, stream);
      if (wo != NULL && producer != WEFT_NONE)
        add_cross (self, producer, lane_first_launched_after (self, sc, wo, call_t));
    }
  else if (call != NULL && call->lane != WEFT_NONE)
    {
      const char *cname = weft_rank_string (rank, call->name);
      gboolean blocking = strstr (cname, "Synchronize") != NULL;
      if (!blocking)
        return; /* cudaEventQuery & co. poll, they do not block */
      if (strcmp (name, "Event Sync") == 0 && producer != WEFT_NONE)
        add_sync_spec (sc->specs, call_idx, call->lane, &producer, 1);
      else if (strcmp (name, "Stream Sync") == 0 || strcmp (name, "Context Sync") == 0)
        {
          GArray *t = g_array_new (FALSE, FALSE, sizeof (guint32));
          for (guint li = 0; li < rs->lanes->len; li++)
            {
              GArray *o = g_ptr_array_index (rs->lanes, li);
              WeftLane *lane = weft_rank_lane (rank, li);
              guint32 g;
              if (o == NULL || lane->pid != device)
                continue;
              if (strcmp (name, "Stream Sync") == 0 && lane->tid != stream)
                continue;
              g = lane_sync_target (self, sc, o, call_t, weft_event_end (rank, call) + rs->offset);
              if (g != WEFT_NONE)
                g_array_append_val (t, g);
            }
          add_sync_spec (sc->specs, call_idx, call->lane, (guint32 *) (void *) t->data, t->len);
          g_array_free (t, TRUE);
        }
    }
}

/* Phase 5b: a cudaStreamWaitEvent call without recorded sync events. */
static void
infer_stream_wait (WeftSolver *self, Scratch *sc, WeftEvent *ev)
{
  /* ProcessGroupNCCL pattern: the stream of the next launch waits
   * for the last op launched before the cudaEventRecord sharing the
   * External id (else before the wait) on another stream: the
   * "current" stream's producer. The runtime calls carry no stream:
   * when the next launch starts before that producer ends, it went
   * to another stream (a stream that waits cannot start earlier),
   * and the wait is for the next launch on yet another stream (FSDP
   * + TP: the TP all-reduce's work.wait() on the compute stream,
   * then the next unit's all-gather copy-in launched first). */
  guint32 rejected[4];
  guint n_rejected = 0, first_w = WEFT_NONE, first_p = WEFT_NONE;
  gboolean done = FALSE;
  GArray *l = thread_launches (sc, ev->lane);
  guint k = l != NULL ? launches_lower_bound (l, ev->ts + sc->rs->offset) : 0;
  for (; l != NULL && k < l->len && n_rejected < G_N_ELEMENTS (rejected) && !done; k++)
    {
      guint32 w = g_array_index (l, LaunchRec, k).node, p;
      gboolean seen = FALSE;
      for (guint j = 0; j < n_rejected; j++)
        seen |= self->nodes[rejected[j]].lane == self->nodes[w].lane;
      if (seen)
        continue;
      p = wait_producer (self, sc, sc->records, ev, w);
      if (first_w == WEFT_NONE)
        first_w = w, first_p = p;
      if (p == WEFT_NONE || self->nodes[w].obs_start + TOL_NS >= self->nodes[p].obs_end)
        {
          add_cross (self, p, w);
          done = TRUE;
        }
      else
        rejected[n_rejected++] = w;
    }
  if (!done && first_w != WEFT_NONE)
    add_cross (self, first_p, first_w); /* contradicted: counted and dropped */
}

/* Phase 5c: a blocking device or stream synchronize call without recorded
 * sync events: a sync spec over what it waited for. */
static void
infer_cpu_sync (WeftSolver *self, Scratch *sc, guint32 i, WeftEvent *ev, RuntimeCall call_kind)
{
  RankState *rs = sc->rs;
  gint64 t = ev->ts + rs->offset;
  GArray *tg = g_array_new (FALSE, FALSE, sizeof (guint32));
  if (call_kind == RT_DEVICE_SYNC)
    {
      for (guint li = 0; li < rs->lanes->len; li++)
        {
          GArray *o = g_ptr_array_index (rs->lanes, li);
          guint32 g = o ? lane_sync_target (self, sc, o, t, weft_event_end (sc->rank, ev) + rs->offset) : WEFT_NONE;
          if (g != WEFT_NONE)
            g_array_append_val (tg, g);
        }
    }
  else
    {
      /* the stream: that of the last op launched from this thread */
      guint32 last = thread_last_launch_before (self, sc, ev->lane, t, WEFT_NONE, FALSE);
      if (last != WEFT_NONE)
        {
          GArray *o = _weft_solver_lane_order (self, sc->r, self->nodes[last].lane);
          guint32 g = lane_sync_target (self, sc, o, t, weft_event_end (sc->rank, ev) + rs->offset);
          if (g != WEFT_NONE)
            g_array_append_val (tg, g);
        }
    }
  add_sync_spec (sc->specs, i, ev->lane, (guint32 *) (void *) tg->data, tg->len);
  g_array_free (tg, TRUE);
}

/* Phase 5: cross-stream waits and GPU-to-CPU syncs, from the recorded sync
 * events, else from the runtime calls. */
static void
build_waits_and_syncs (WeftSolver *self, Scratch *sc)
{
  WeftRank *rank = sc->rank;

  for (guint i = 0; i < rank->events->len; i++)
    {
      WeftEvent *ev = weft_rank_event (rank, i);
      const char *name;
      RuntimeCall call_kind;
      if (ev->ph != WEFT_PH_X || (ev->flags & WEFT_EVENT_DELETED))
        continue;
      if (ev->category == WEFT_CAT_CUDA_SYNC)
        {
          infer_from_sync_event (self, sc, ev);
          continue;
        }
      if ((ev->category != WEFT_CAT_CUDA_RUNTIME && ev->category != WEFT_CAT_CUDA_DRIVER) || ev->lane == WEFT_NONE)
        continue;
      name = weft_rank_string (rank, ev->name);
      call_kind = runtime_call (name);
      if (call_kind == RT_OTHER)
        continue;
      if (call_kind == RT_STREAM_WAIT && !sc->has_wait_sync)
        infer_stream_wait (self, sc, ev);
      else if (!sc->has_cpu_sync && (call_kind == RT_DEVICE_SYNC || call_kind == RT_STREAM_SYNC))
        infer_cpu_sync (self, sc, i, ev, call_kind);
      else if ((ev->flags & WEFT_EVENT_LAUNCH) && weft_event_link (ev) != WEFT_NONE && call_kind == RT_MEMCPY)
        {
          guint32 g = _weft_solver_node (self, sc->r, weft_event_link (ev));
          /* a copy to pageable host memory blocks the thread, and so does
           * every synchronous copy call (cudaMemcpy, hipMemcpy,
           * hipMemcpyWithStream: no "Async" in the name) */
          if (g != WEFT_NONE && (is_d2h_pageable (weft_rank_string (rank, weft_rank_event (rank, weft_event_link (ev))->name)) ||
                                 strstr (name, "Async") == NULL))
            add_sync_spec (sc->specs, i, ev->lane, &g, 1);
        }
    }
}

/* Phase 6: SYNC nodes from the specs, gathered per CPU thread. */
static void
build_sync_nodes (WeftSolver *self, Scratch *sc)
{
  WeftRank *rank = sc->rank;
  RankState *rs = sc->rs;
  GArray *specs = sc->specs;

  for (guint i = 0; i < specs->len; i++)
    {
      SyncSpec *s = &g_array_index (specs, SyncSpec, i);
      WeftEvent *ev = weft_rank_event (rank, s->cpu_event);
      gint64 s_end = weft_event_end (rank, ev) + rs->offset;
      gboolean any = FALSE;
      guint32 v;
      ThreadSyncs *ts;

      /* keep only the GPU ops the call really waited on or could have */
      for (guint k = 0; k < s->targets->len; k++)
        if (self->nodes[g_array_index (s->targets, guint32, k)].obs_end <= s_end + TOL_NS)
          any = TRUE;
      if (!any)
        {
          g_array_free (s->targets, TRUE);
          continue;
        }
      if (g_array_index (rs->ev_node, guint32, s->cpu_event) != WEFT_NONE)
        {
          /* the same call found twice (cuda_sync + runtime): keep the first */
          g_array_free (s->targets, TRUE);
          continue;
        }
      v = _weft_solver_add_node (self, NODE_SYNC, sc->r, s->cpu_event);
      self->nodes[v].lane = s->cpu_lane;
      self->nodes[v].obs_start = ev->ts + rs->offset;
      self->nodes[v].obs_end = s_end;
      _weft_solver_set_ev_node (self, sc->r, s->cpu_event, v);
      for (guint k = 0; k < s->targets->len; k++)
        {
          guint32 g = g_array_index (s->targets, guint32, k);
          if (self->nodes[g].obs_end <= s_end + TOL_NS && !_weft_solver_has_in_from (self, v, g))
            {
              _weft_solver_node_add_in (self, v, g, WEFT_DEP_SYNC, 0);
              self->stats.n_sync_edges++;
            }
        }
      g_array_free (s->targets, TRUE);
      ts = g_hash_table_lookup (rs->threads, GUINT_TO_POINTER (s->cpu_lane + 1));
      if (ts == NULL)
        {
          ts = g_new0 (ThreadSyncs, 1);
          ts->lane = s->cpu_lane;
          ts->syncs = g_array_new (FALSE, FALSE, sizeof (guint32));
          g_hash_table_insert (rs->threads, GUINT_TO_POINTER (s->cpu_lane + 1), ts);
        }
      g_array_append_val (ts->syncs, v);
    }
}

/* Phase 7: orders the syncs of each thread by observed end and chains
 * them; the thread's CPU originals (for the shift). */
static void
build_thread_syncs (WeftSolver *self, Scratch *sc)
{
  WeftRank *rank = sc->rank;
  RankState *rs = sc->rs;
  GHashTableIter it;
  gpointer value;

  g_hash_table_iter_init (&it, rs->threads);
  while (g_hash_table_iter_next (&it, NULL, &value))
    {
      ThreadSyncs *ts = value;
      guint32 *s = (guint32 *) (void *) ts->syncs->data;
      WeftLane *lane = weft_rank_lane (rank, ts->lane);
      for (guint a = 1; a < ts->syncs->len; a++)
        for (guint b = a; b > 0 && self->nodes[s[b - 1]].obs_end > self->nodes[s[b]].obs_end; b--)
          {
            guint32 t = s[b];
            s[b] = s[b - 1];
            s[b - 1] = t;
          }
      for (guint a = 0; a < ts->syncs->len; a++)
        {
          Node *n = &self->nodes[s[a]];
          n->release_kind = WEFT_DEP_LAUNCH;
          if (a > 0)
            _weft_solver_node_add_in (self, s[a], s[a - 1], WEFT_DEP_LAUNCH, 0);
          else
            n->release = n->obs_start; /* calibrated in solver.c */
        }
      ts->orig = g_array_new (FALSE, FALSE, sizeof (CpuOrig));
      for (guint j = 0; j < lane->events->len; j++)
        {
          guint32 ei = g_array_index (lane->events, guint32, j);
          WeftEvent *ev = weft_rank_event (rank, ei);
          CpuOrig o = { ei, ev->ts, weft_event_end (rank, ev) };
          g_array_append_val (ts->orig, o);
        }
      g_array_sort (ts->orig, _weft_solver_cpu_orig_cmp);
      ts->obs_end = g_new (gint64, MAX (1, ts->syncs->len));
      for (guint a = 0; a < ts->syncs->len; a++)
        ts->obs_end[a] = self->nodes[s[a]].obs_end;
    }
  rs->n_thread_lanes = rank->lanes->len;
  rs->thread_by_lane = g_new0 (ThreadSyncs *, MAX (1, rs->n_thread_lanes));
  g_hash_table_iter_init (&it, rs->threads);
  while (g_hash_table_iter_next (&it, NULL, &value))
    {
      ThreadSyncs *ts = value;
      if (ts->lane < rs->n_thread_lanes)
        rs->thread_by_lane[ts->lane] = ts;
    }
}

/* Phase 8: launch edges, from the last sync of the thread that ended
 * before the launch. */
static void
build_launch_edges (WeftSolver *self, Scratch *sc)
{
  for (guint32 v = sc->first_node; v < self->n_nodes; v++)
    {
      Node *n = &self->nodes[v];
      ThreadSyncs *ts;
      guint lo = 0, hi;
      if (n->kind != NODE_OP || n->launch == WEFT_NONE)
        continue;
      ts = g_hash_table_lookup (sc->rs->threads, GUINT_TO_POINTER (weft_rank_event (sc->rank, n->launch)->lane + 1));
      if (ts == NULL)
        continue;
      hi = ts->syncs->len;
      while (lo < hi)
        {
          guint mid = lo + (hi - lo) / 2;
          if (self->nodes[g_array_index (ts->syncs, guint32, mid)].obs_end <= n->launch_time)
            lo = mid + 1;
          else
            hi = mid;
        }
      if (lo > 0)
        {
          guint32 s = g_array_index (ts->syncs, guint32, lo - 1);
          n = &self->nodes[v];
          n->release_kind = WEFT_DEP_NONE;
          _weft_solver_node_add_in (self, v, s, WEFT_DEP_LAUNCH, 0);
        }
    }
}

/* Phase 9: typical launch latency (ops launched onto an idle stream) and
 * gap between queued ops. An op held by an in-edge whose source ended after
 * its launch (or after its stream predecessor, when queued) started when
 * that wait ended: its start says nothing about launch latency or queue
 * gaps (the first all-reduce on the NCCL stream, waiting ~10 ms for its
 * producer, would otherwise make "launch latency" 10 ms and let every
 * launch tie with its stream predecessor). */
static void
build_typical (WeftSolver *self, Scratch *sc)
{
  GArray *lat = g_array_new (FALSE, FALSE, sizeof (gint64));
  GArray *gaps = g_array_new (FALSE, FALSE, sizeof (gint64));

  for (guint k = 0; k < sc->typ_cand->len; k++)
    {
      const guint32 *cand = &g_array_index (sc->typ_cand, guint32, 2 * k);
      Node *n = &self->nodes[cand[0]];
      Node *p = cand[1] != WEFT_NONE ? &self->nodes[cand[1]] : NULL;
      gboolean idle = p == NULL || p->obs_end <= n->launch_time;
      gint64 ready = idle ? n->launch_time : p->obs_end;
      gint64 x = n->obs_start - ready;
      gboolean held = n->min_start != G_MININT64; /* a "weft held" op: its launch is Weft's */
      for (guint e = 0; e < n->n_in && !held; e++)
        if (self->nodes[n->in[e].src].obs_end > ready)
          held = TRUE;
      if (held || x < 0)
        continue;
      g_array_append_val (idle ? lat : gaps, x);
    }
  sc->rs->typ_launch = _weft_gint64_median_or (lat, 5000);
  sc->rs->typ_gap = _weft_gint64_median_or (gaps, 0);
  g_array_free (lat, TRUE);
  g_array_free (gaps, TRUE);
}

/* Phase 10: steps, by the launch (else the op itself) inside
 * ProfilerStep#N. */
static void
build_steps (WeftSolver *self, Scratch *sc)
{
  WeftRank *rank = sc->rank;

  if (rank->steps->len == 0)
    return;
  for (guint32 v = sc->first_node; v < self->n_nodes; v++)
    {
      Node *n = &self->nodes[v];
      gint64 t;
      if (n->kind != NODE_OP)
        continue;
      t = (n->launch_time != G_MININT64 ? n->launch_time : n->obs_start) - sc->rs->offset;
      for (guint k = rank->steps->len; k > 0; k--)
        {
          const WeftStep *st = &g_array_index (rank->steps, WeftStep, k - 1);
          if (st->begin <= t)
            {
              if (t < st->end || n->launch_time == G_MININT64)
                n->step = st->number;
              break;
            }
        }
    }
}

/* The graph of rank r: its nodes and the edges inside it (docs/solver.md,
 * "Graph"), phase by phase over one scratch. */
static void
build_rank (WeftSolver *self, guint r)
{
  Scratch sc;

  build_begin (self, &sc, r);
  build_ops (self, &sc);
  build_launch_index (self, &sc);
  build_runtime_index (self, &sc);
  build_record_index (self, &sc);
  build_waits_and_syncs (self, &sc);
  build_sync_nodes (self, &sc);
  build_thread_syncs (self, &sc);
  build_launch_edges (self, &sc);
  build_typical (self, &sc);
  build_steps (self, &sc);
  build_annots (self, r);
  build_end (&sc);
}

static void
build_instances (WeftSolver *self)
{
  WeftTrace *trace = self->trace;
  self->inst_node = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (guint i = 0; i < trace->instances->len; i++)
    {
      const WeftCollInstance *inst = &g_array_index (trace->instances, WeftCollInstance, i);
      guint n_all = inst->members != NULL ? inst->members->len : 0;
      g_autofree guint32 *members = g_new (guint32, MAX (n_all, 1));
      guint nm = 0;
      guint32 none = WEFT_NONE;
      /* every member: a 512-rank data-parallel group has 512 */
      for (guint k = 0; k < n_all; k++)
        {
          const WeftInstanceMember *m = &g_array_index (inst->members, WeftInstanceMember, k);
          WeftRank *rank;
          const WeftCollective *c;
          guint32 v;
          if (m->rank_index >= self->n_ranks)
            continue;
          rank = weft_trace_rank (trace, m->rank_index);
          if (m->coll >= rank->collectives->len)
            continue;
          c = &g_array_index (rank->collectives, WeftCollective, m->coll);
          v = _weft_solver_node (self, m->rank_index, c->event);
          if (v != WEFT_NONE && self->nodes[v].inst == WEFT_NONE)
            members[nm++] = v;
        }
      if (nm == 0)
        {
          g_array_append_val (self->inst_node, none);
          continue;
        }
      {
        guint32 iv = _weft_solver_add_node (self, NODE_INST, self->nodes[members[0]].rank, i);
        Node *in = &self->nodes[iv];
        in->members = g_new (guint32, nm);
        memcpy (in->members, members, nm * sizeof (guint32));
        in->n_members = nm;
        _weft_solver_plan_invalidate (self);
        for (guint k = 0; k < nm; k++)
          self->nodes[members[k]].inst = iv;
        g_array_append_val (self->inst_node, iv);
      }
    }
}

static void
dissolve_instance (WeftSolver *self, guint32 iv)
{
  Node *in = &self->nodes[iv];
  for (guint k = 0; k < in->n_members; k++)
    {
      Node *m = &self->nodes[in->members[k]];
      _weft_solver_plan_invalidate (self);
      m->inst = WEFT_NONE;
      m->dur = m->obs_end - m->obs_start;
    }
  _weft_solver_plan_invalidate (self);
  in->flags |= NODE_DELETED;
  g_array_index (self->inst_node, guint32, in->event) = WEFT_NONE;
}

/* The observed trace is acyclic; an inferred edge or a mismatched instance
 * can make a cycle. Drop inferred edges of the cycle, else dissolve the
 * instance in it (docs/solver.md, "model-breaking traces"). */
static void
break_build_cycles (WeftSolver *self)
{
  GArray *cycle = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (guint round = 0; round < 10000 && !_weft_solver_compute_topo (self, cycle); round++)
    {
      gboolean fixed = FALSE;
      for (guint i = 0; i < cycle->len && !fixed; i++)
        {
          guint32 v = g_array_index (cycle, guint32, i);
          Node *n = &self->nodes[v];
          for (guint e = 0; e < n->n_in; e++)
            {
              guint8 k = n->in[e].kind;
              guint32 src = _weft_solver_remap (self, n->in[e].src);
              gboolean in_cycle = FALSE;
              if (k != WEFT_DEP_CROSS_STREAM && k != WEFT_DEP_SYNC)
                continue;
              for (guint j = 0; j < cycle->len; j++)
                if (g_array_index (cycle, guint32, j) == src)
                  in_cycle = TRUE;
              if (in_cycle)
                {
                  _weft_solver_node_remove_in (self, v, e);
                  self->stats.n_build_cycle_edges++;
                  fixed = TRUE;
                  break;
                }
            }
        }
      for (guint i = 0; i < cycle->len && !fixed; i++)
        {
          guint32 v = g_array_index (cycle, guint32, i);
          if (self->nodes[v].kind == NODE_INST)
            {
              dissolve_instance (self, v);
              self->stats.n_instances_dissolved++;
              fixed = TRUE;
            }
        }
      if (!fixed || cycle->len == 0)
        {
          /* cannot happen with stream order alone; give up on the edges of the first node */
          guint32 v = cycle->len ? g_array_index (cycle, guint32, 0) : 0;
          while (self->nodes[v].n_in > 0)
            _weft_solver_node_remove_in (self, v, 0);
          if (cycle->len == 0)
            break;
        }
    }
  g_array_free (cycle, TRUE);
}

/* The graph of every rank, the collective instances across them, no cycle
 * (for weft_solver_new, before the calibration). */
void
_weft_solver_build (WeftSolver *self)
{
  for (guint r = 0; r < self->n_ranks; r++)
    build_rank (self, r);
  build_instances (self);
  break_build_cycles (self);
}
