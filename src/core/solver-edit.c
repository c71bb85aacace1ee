/* solver-edit.c: the edits of the graph (docs/solver.md, "Edit
 * semantics"): durations, minimum starts and scales, moves in a stream and
 * across streams, inserted ops and collectives, removal and restoring,
 * dependencies; and weft_solver_apply_to_model, which writes the solved
 * times (and the launches of the created ops) back into the model. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "solver-private.h"

/* ---- edits ------------------------------------------------------------------- */

void
weft_solver_begin_batch (WeftSolver *self)
{
  g_return_if_fail (self != NULL);

  self->batch++;
}

void
weft_solver_end_batch (WeftSolver *self)
{
  g_return_if_fail (self != NULL);

  if (self->batch > 0)
    self->batch--;
  if (self->batch == 0)
    _weft_solver_solve_pending (self);
}

static guint32
require_node (WeftSolver *self, guint rank_index, guint32 event, GError **error)
{
  guint32 v = _weft_solver_node (self, rank_index, event);
  if (v == WEFT_NONE)
    g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "solver: rank index %u event %u is not a GPU op", rank_index,
                 event);
  return v;
}

gboolean
weft_solver_set_duration (WeftSolver *self, guint rank_index, guint32 event, gint64 dur, GError **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  guint32 v = require_node (self, rank_index, event, error);
  if (v == WEFT_NONE)
    return FALSE;
  if (dur < 0)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "solver: negative duration %" G_GINT64_FORMAT " ns", dur);
      return FALSE;
    }
  if (_weft_solver_is_member (self, v))
    {
      guint32 iv = self->nodes[v].inst;
      self->nodes[iv].dur = dur;
      _weft_solver_plan_refresh (self, iv);
      _weft_solver_heap_push (self, iv);
    }
  else
    {
      self->nodes[v].dur = dur;
      _weft_solver_plan_refresh (self, v);
      _weft_solver_heap_push (self, v);
    }
  _weft_solver_maybe_solve (self);
  return TRUE;
}

gboolean
weft_solver_set_min_start (WeftSolver *self, guint rank_index, guint32 event, gint64 t, GError **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  guint32 v = require_node (self, rank_index, event, error);
  if (v == WEFT_NONE)
    return FALSE;
  self->nodes[v].min_start = t < 0 ? G_MININT64 : t;
  _weft_solver_plan_refresh (self, v);
  _weft_solver_heap_push (self, v);
  _weft_solver_maybe_solve (self);
  return TRUE;
}

static void
scale_node (WeftSolver *self, guint32 v, double factor)
{
  Node *n = &self->nodes[v];
  n->dur = (gint64) (n->dur * factor + 0.5);
  _weft_solver_plan_refresh (self, v);
  _weft_solver_heap_push (self, v);
}

void
weft_solver_scale_class (WeftSolver *self, WeftKernelClass kclass, double factor)
{
  g_return_if_fail (self != NULL);

  if (factor < 0)
    return;
  for (guint32 v = 0; v < self->n_nodes; v++)
    {
      Node *n = &self->nodes[v];
      if (n->flags & NODE_DELETED)
        continue;
      if (kclass == WEFT_KCLASS_COMM && n->kind == NODE_INST)
        scale_node (self, v, factor);
      else if (n->kind == NODE_OP && !_weft_solver_is_member (self, v))
        {
          WeftRank *rank = weft_trace_rank (self->trace, n->rank);
          if (weft_rank_event (rank, n->event)->kclass == kclass)
            scale_node (self, v, factor);
        }
    }
  _weft_solver_maybe_solve (self);
}

void
weft_solver_scale_collective (WeftSolver *self, WeftCollType type, double factor)
{
  g_return_if_fail (self != NULL);

  if (factor < 0)
    return;
  for (guint32 v = 0; v < self->n_nodes; v++)
    {
      Node *n = &self->nodes[v];
      if (n->kind != NODE_INST || (n->flags & NODE_DELETED))
        continue;
      if (g_array_index (self->trace->instances, WeftCollInstance, n->event).type == type)
        scale_node (self, v, factor);
    }
  _weft_solver_maybe_solve (self);
}

/* -- model structure helpers -- */

static void
renumber_lane (WeftSolver *self, GArray *order, guint from)
{
  _weft_solver_plan_invalidate (self);
  for (guint i = from; i < order->len; i++)
    self->nodes[g_array_index (order, guint32, i)].lane_pos = i;
}

static void
model_lane_remove (WeftRank *rank, guint32 lane, guint32 event)
{
  WeftLane *l;
  if (lane == WEFT_NONE || lane >= rank->lanes->len)
    return;
  l = weft_rank_lane (rank, lane);
  for (guint i = 0; i < l->events->len; i++)
    if (g_array_index (l->events, guint32, i) == event)
      {
        g_array_remove_index (l->events, i);
        return;
      }
}

static void
model_lane_insert (WeftRank *rank, guint32 lane, guint32 event)
{
  WeftLane *l = weft_rank_lane (rank, lane);
  gint64 ts = weft_rank_event (rank, event)->ts;
  guint lo = 0, hi = l->events->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (weft_rank_event (rank, g_array_index (l->events, guint32, mid))->ts <= ts)
        lo = mid + 1;
      else
        hi = mid;
    }
  g_array_insert_val (l->events, lo, event);
}

static GArray *
ensure_lane_order (WeftSolver *self, guint rank, guint32 lane)
{
  GPtrArray *lanes = self->ranks[rank].lanes;
  while (lanes->len <= lane)
    g_ptr_array_add (lanes, NULL);
  if (g_ptr_array_index (lanes, lane) == NULL)
    g_ptr_array_index (lanes, lane) = g_array_new (FALSE, FALSE, sizeof (guint32));
  return g_ptr_array_index (lanes, lane);
}

static gboolean
check_gpu_lane (WeftSolver *self, guint rank_index, guint32 lane, GError **error)
{
  WeftRank *rank;
  if (rank_index >= self->n_ranks)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "solver: no rank index %u", rank_index);
      return FALSE;
    }
  rank = weft_trace_rank (self->trace, rank_index);
  if (lane >= rank->lanes->len || weft_rank_lane (rank, lane)->kind != WEFT_LANE_GPU)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "solver: rank %d: lane %u is not a GPU stream", rank->rank,
                   lane);
      return FALSE;
    }
  return TRUE;
}

static void
lane_detach (WeftSolver *self, guint32 v)
{
  Node *n = &self->nodes[v];
  GArray *o = _weft_solver_lane_order (self, n->rank, n->lane);
  guint p = n->lane_pos;
  g_array_remove_index (o, p);
  renumber_lane (self, o, p);
}

static void
lane_attach (WeftSolver *self, guint32 v, guint32 lane, guint position)
{
  Node *n = &self->nodes[v];
  GArray *o = ensure_lane_order (self, n->rank, lane);
  if (position > o->len)
    position = o->len;
  g_array_insert_val (o, position, v);
  n->lane = lane;
  renumber_lane (self, o, position);
}

/* Marks the nodes whose predecessors changed around v's lane position. */
static void
dirty_around (WeftSolver *self, guint32 v)
{
  guint32 nx = _weft_solver_stream_next (self, v);
  _weft_solver_heap_push (self, v);
  if (nx != WEFT_NONE)
    _weft_solver_heap_push (self, nx);
}

/* The pending nodes are unordered until a solve reads their positions:
 * nothing to do when positions change. */
static inline void
heap_rekey (WeftSolver *self)
{
  (void) self;
}

typedef struct
{
  guint32 v;
  guint32 old_lane, old_pos, old_next;
  gboolean producer_edge;
} MoveUndo;

/* The structural part of a move, no topological check. Unless exact, an
 * op that changes stream keeps waiting for the op it followed. */
static void
move_apply (WeftSolver *self, guint32 v, guint32 lane, guint position, gboolean exact, MoveUndo *u)
{
  Node *n = &self->nodes[v];
  guint32 old_prev = _weft_solver_stream_prev (self, v);
  u->v = v;
  u->old_lane = n->lane;
  u->old_pos = n->lane_pos;
  u->old_next = _weft_solver_stream_next (self, v);
  u->producer_edge = FALSE;
  lane_detach (self, v);
  lane_attach (self, v, lane, position);
  if (!exact && lane != u->old_lane && old_prev != WEFT_NONE && !_weft_solver_has_in_from (self, v, old_prev))
    {
      /* keep waiting for the producer it used to follow on its old stream */
      _weft_solver_node_add_in (self, v, old_prev, WEFT_DEP_CROSS_STREAM, 0);
      self->nodes[v].in[self->nodes[v].n_in - 1].automatic = TRUE;
      u->producer_edge = TRUE;
    }
}

static void
move_revert (WeftSolver *self, const MoveUndo *u)
{
  if (u->producer_edge)
    _weft_solver_node_remove_in (self, u->v, self->nodes[u->v].n_in - 1);
  lane_detach (self, u->v);
  lane_attach (self, u->v, u->old_lane, u->old_pos);
}

static void
move_finish (WeftSolver *self, const MoveUndo *u)
{
  Node *n = &self->nodes[u->v];
  self->generation++;
  guint32 lane = n->lane;
  if (lane != u->old_lane)
    {
      WeftRank *rank = weft_trace_rank (self->trace, n->rank);
      guint32 event = n->event;
      /* producer edges a former move added, now on this very stream: the
       * stream order covers them */
      for (guint i = n->n_in; i > 0; i--)
        if (n->in[i - 1].automatic && _weft_solver_live (self, n->in[i - 1].src) && self->nodes[n->in[i - 1].src].lane == lane)
          {
            _weft_solver_node_remove_in (self, u->v, i - 1);
            n = &self->nodes[u->v];
          }
      model_lane_remove (rank, u->old_lane, event);
      weft_rank_event (rank, event)->lane = lane;
      weft_rank_event (rank, event)->flags |= WEFT_EVENT_EDITED;
      model_lane_insert (rank, lane, event);
    }
  if (u->old_next != WEFT_NONE)
    _weft_solver_heap_push (self, u->old_next);
  dirty_around (self, u->v);
}

gboolean
weft_solver_move_to_position (WeftSolver *self, guint rank_index, guint32 event, guint32 lane, guint position,
                              GError **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  WeftSolverMove m = { rank_index, event, lane, position, 0 };
  return weft_solver_move_many (self, &m, 1, error);
}

static guint position_for_time (WeftSolver *self, guint rank_index, guint32 lane, gint64 at_time, guint32 exclude);

gboolean
weft_solver_move_many (WeftSolver *self, const WeftSolverMove *moves, guint n_moves, GError **error)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (moves != NULL, FALSE);

  MoveUndo *undo;
  guint32 *nodes;
  gboolean ok;

  _weft_solver_sync (self);
  nodes = g_new (guint32, MAX (1, n_moves));
  for (guint i = 0; i < n_moves; i++)
    {
      nodes[i] = require_node (self, moves[i].rank_index, moves[i].event, error);
      if (nodes[i] == WEFT_NONE || !check_gpu_lane (self, moves[i].rank_index, moves[i].lane, error))
        {
          g_free (nodes);
          return FALSE;
        }
      for (guint j = 0; j < i; j++)
        if (nodes[j] == nodes[i])
          {
            g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "solver: rank index %u event %u moved twice",
                         moves[i].rank_index, moves[i].event);
            g_free (nodes);
            return FALSE;
          }
    }
  undo = g_new (MoveUndo, MAX (1, n_moves));
  for (guint i = 0; i < n_moves; i++)
    {
      guint position = moves[i].position;
      if (position == G_MAXUINT)
        position = position_for_time (self, moves[i].rank_index, moves[i].lane, moves[i].at_time, nodes[i]);
      move_apply (self, nodes[i], moves[i].lane, position, moves[i].exact, &undo[i]);
    }
  {
    /* only the incoming dependencies of these changed: repair the order locally */
    g_autoptr (GArray) cycle = g_array_new (FALSE, FALSE, sizeof (guint32));
    guint32 *touched = g_new (guint32, 3 * MAX (1, n_moves));
    for (guint i = 0; i < n_moves; i++)
      {
        touched[3 * i] = undo[i].v;
        touched[3 * i + 1] = _weft_solver_stream_next (self, undo[i].v);
        touched[3 * i + 2] = undo[i].old_next;
      }
    ok = _weft_solver_pk_repair (self, touched, 3 * n_moves, cycle);
    g_free (touched);
    if (!ok)
      _weft_solver_set_cycle_error (self, cycle, error);
  }
  if (!ok)
    {
      for (guint i = n_moves; i > 0; i--)
        move_revert (self, &undo[i - 1]);
    }
  else
    {
      heap_rekey (self);
      for (guint i = 0; i < n_moves; i++)
        move_finish (self, &undo[i]);
      _weft_solver_maybe_solve (self);
    }
  g_free (undo);
  g_free (nodes);
  return ok;
}

static guint
position_for_time (WeftSolver *self, guint rank_index, guint32 lane, gint64 at_time, guint32 exclude)
{
  GArray *o = _weft_solver_lane_order (self, rank_index, lane);
  guint pos = 0;
  if (o == NULL)
    return 0;
  /* first op (other than exclude) whose solved start is later than at_time */
  for (guint i = 0; i < o->len; i++)
    {
      guint32 u = g_array_index (o, guint32, i);
      if (u == exclude)
        continue;
      if (self->nodes[u].start > at_time)
        break;
      pos++;
    }
  return pos;
}

gboolean
weft_solver_move_to_lane (WeftSolver *self, guint rank_index, guint32 event, guint32 lane, gint64 at_time,
                          GError **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  guint32 v = require_node (self, rank_index, event, error);
  _weft_solver_sync (self);
  if (v == WEFT_NONE || !check_gpu_lane (self, rank_index, lane, error))
    return FALSE;
  return weft_solver_move_to_position (self, rank_index, event, lane,
                                       position_for_time (self, rank_index, lane, at_time, v), error);
}

guint32
weft_solver_ensure_stream (WeftSolver *self, guint rank_index, int device, gint64 stream)
{
  g_return_val_if_fail (self != NULL, WEFT_NONE);

  WeftRank *rank;
  char pid[32], tid[32];
  guint32 lane;
  WeftLane *l;
  if (rank_index >= self->n_ranks)
    return WEFT_NONE;
  rank = weft_trace_rank (self->trace, rank_index);
  g_snprintf (pid, sizeof pid, "%d", device);
  g_snprintf (tid, sizeof tid, "%" G_GINT64_FORMAT, stream);
  lane = weft_rank_ensure_lane (rank, pid, strlen (pid), tid, strlen (tid));
  l = weft_rank_lane (rank, lane);
  l->kind = WEFT_LANE_GPU;
  l->device = device;
  ensure_lane_order (self, rank_index, lane);
  return lane;
}

static guint32
model_new_event (WeftSolver *self, guint rank_index, guint32 lane, gint64 at_time, const WeftSolverOpSpec *spec)
{
  WeftRank *rank = weft_trace_rank (self->trace, rank_index);
  WeftEvent ev;
  guint32 idx = rank->events->len;
  const char *cat;
  memset (&ev, 0, sizeof ev);
  if (spec->like_event != WEFT_NONE && spec->like_event < rank->events->len)
    {
      ev = *weft_rank_event (rank, spec->like_event);
      if (spec->dur > 0)
        weft_event_set_dur (rank, &ev, spec->dur);
    }
  else
    {
      WeftCategory category = spec->category ? spec->category : WEFT_CAT_KERNEL;
      cat = category == WEFT_CAT_GPU_MEMCPY ? "gpu_memcpy" : category == WEFT_CAT_GPU_MEMSET ? "gpu_memset" : "kernel";
      ev.name = weft_strings_intern (rank->strings, spec->name ? spec->name : "kernel", -1);
      ev.cat = weft_strings_intern (rank->strings, cat, -1);
      ev.category = (guint8) category;
      ev.kclass = (guint8) spec->kclass;
      weft_event_set_dur (rank, &ev, MAX (0, spec->dur));
    }
  ev.ts = at_time - self->ranks[rank_index].offset;
  ev.lane = lane;
  ev.ph = WEFT_PH_X;
  ev.flags = WEFT_EVENT_CREATED | WEFT_EVENT_EDITED | WEFT_EVENT_GPU_OP | WEFT_EVENT_HAS_DUR;
  ev.correlation_code = -1;
  ev.external_id_code = -1;
  weft_event_set_link (&ev, WEFT_NONE); /* an X event: no flow id */
  g_array_append_val (rank->events, ev);
  /* a copy shares its model's text (save parses its args there) */
  weft_rank_set_created_text (rank, idx, spec->like_event != WEFT_NONE && spec->like_event < idx
                                             ? weft_event_text_slot (rank, weft_rank_event (rank, spec->like_event))
                                             : WEFT_TEXT_NONE);
  weft_rank_event_set_coll (rank, idx, WEFT_NONE);
  return idx;
}

static guint32
new_op_node (WeftSolver *self, guint rank_index, guint32 lane, gint64 at_time, guint32 event, int step_like)
{
  WeftRank *rank = weft_trace_rank (self->trace, rank_index);
  WeftEvent *ev = weft_rank_event (rank, event);
  guint32 v = _weft_solver_add_node (self, NODE_OP, rank_index, event);
  Node *n = &self->nodes[v];
  n->obs_start = at_time;
  n->obs_end = at_time + weft_event_dur (rank, ev);
  n->dur = weft_event_dur (rank, ev);
  n->release = at_time;
  n->release_kind = WEFT_DEP_USER;
  n->w_stream = self->ranks[rank_index].typ_gap;
  n->step = step_like;
  /* provisional times until solved (inside a batch); the caller pushes
   * what follows it so the first evaluation propagates */
  n->start = at_time;
  n->end = at_time + weft_event_dur (rank, ev);
  if (ev->kclass == WEFT_KCLASS_COMM)
    n->flags |= NODE_COMM;
  else if (ev->category == WEFT_CAT_GPU_MEMCPY || ev->category == WEFT_CAT_GPU_MEMSET)
    n->flags |= NODE_MEM;
  _weft_solver_set_ev_node (self, rank_index, event, v);
  return v;
}

static int
step_near (WeftSolver *self, guint rank_index, guint32 lane, guint position)
{
  GArray *o = _weft_solver_lane_order (self, rank_index, lane);
  if (o != NULL && o->len > 0)
    {
      guint p = MIN (position, o->len - 1);
      if (position > 0 && position <= o->len)
        p = position - 1;
      return self->nodes[g_array_index (o, guint32, p)].step;
    }
  return WEFT_SOLVER_ALL_STEPS;
}

guint32
weft_solver_insert_op (WeftSolver *self, guint rank_index, guint32 lane, gint64 at_time, const WeftSolverOpSpec *spec,
                       GError **error)
{
  g_return_val_if_fail (self != NULL, WEFT_NONE);
  g_return_val_if_fail (spec != NULL, WEFT_NONE);

  WeftRank *rank;
  guint32 ev, v;
  guint position;
  _weft_solver_sync (self);
  if (spec == NULL)
    {
      g_set_error_literal (error, WEFT_ERROR, WEFT_ERROR_INVALID, "solver: insert without an op spec");
      return WEFT_NONE;
    }
  if (!check_gpu_lane (self, rank_index, lane, error))
    return WEFT_NONE;
  rank = weft_trace_rank (self->trace, rank_index);
  position = position_for_time (self, rank_index, lane, at_time, WEFT_NONE);
  ev = model_new_event (self, rank_index, lane, at_time, spec);
  v = new_op_node (self, rank_index, lane, at_time, ev, step_near (self, rank_index, lane, position));
  lane_attach (self, v, lane, position);
  if (!_weft_solver_order_add_nodes (self, &v, 1, error))
    {
      /* cannot happen: a new op only splits a stream edge */
      lane_detach (self, v);
      _weft_solver_plan_invalidate (self);
      self->nodes[v].flags |= NODE_DELETED;
      weft_rank_event (rank, ev)->flags |= WEFT_EVENT_DELETED;
      return WEFT_NONE;
    }
  heap_rekey (self);
  model_lane_insert (rank, lane, ev);
  dirty_around (self, v);
  _weft_solver_maybe_solve (self);
  return ev;
}

static const char *
default_coll_kernel (WeftCollType type)
{
  switch (type)
    {
    case WEFT_COLL_ALL_REDUCE: return "ncclDevKernel_AllReduce_Sum_bf16_RING_LL";
    case WEFT_COLL_ALL_GATHER: return "ncclDevKernel_AllGather_RING_LL";
    case WEFT_COLL_REDUCE_SCATTER: return "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL";
    case WEFT_COLL_BROADCAST: return "ncclDevKernel_Broadcast_RING_LL";
    case WEFT_COLL_REDUCE: return "ncclDevKernel_Reduce_Sum_bf16_RING_LL";
    default: return "ncclDevKernel_SendRecv";
    }
}

guint32
weft_solver_insert_collective (WeftSolver *self, const WeftSolverCollSpec *spec, const WeftSolverPlace *places,
                               guint n_places, guint32 *events_out, GError **error)
{
  g_return_val_if_fail (self != NULL, WEFT_NONE);
  g_return_val_if_fail (spec != NULL, WEFT_NONE);
  g_return_val_if_fail (places != NULL, WEFT_NONE);

  WeftTrace *trace = self->trace;
  guint n_nodes0 = self->n_nodes;
  guint32 inst_idx = trace->instances->len;
  guint32 iv;
  guint *ev_len0, *coll_len0;
  int *rank_numbers;
  WeftCollInstance inst;
  gboolean ok;

  _weft_solver_sync (self);
  if (spec == NULL || places == NULL || n_places == 0)
    {
      g_set_error_literal (error, WEFT_ERROR, WEFT_ERROR_INVALID, "solver: collective without places");
      return WEFT_NONE;
    }
  for (guint i = 0; i < n_places; i++)
    {
      if (!check_gpu_lane (self, places[i].rank_index, places[i].lane, error))
        return WEFT_NONE;
      for (guint j = 0; j < i; j++)
        if (places[j].rank_index == places[i].rank_index)
          {
            g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "solver: collective placed twice on rank index %u",
                         places[i].rank_index);
            return WEFT_NONE;
          }
    }
  ev_len0 = g_new (guint, self->n_ranks);
  coll_len0 = g_new (guint, self->n_ranks);
  for (guint r = 0; r < self->n_ranks; r++)
    {
      ev_len0[r] = weft_trace_rank (trace, r)->events->len;
      coll_len0[r] = weft_trace_rank (trace, r)->collectives->len;
    }
  rank_numbers = g_new (int, n_places);
  for (guint i = 0; i < n_places; i++)
    rank_numbers[i] = weft_trace_rank (trace, places[i].rank_index)->rank;

  memset (&inst, 0, sizeof inst);
  inst.type = spec->type;
  inst.seq = -1;
  inst.method = WEFT_MATCH_PG_ORDINAL;
  inst.members = g_array_new (FALSE, FALSE, sizeof (WeftInstanceMember));
  iv = _weft_solver_add_node (self, NODE_INST, places[0].rank_index, inst_idx);
  self->nodes[iv].members = g_new (guint32, n_places);
  self->nodes[iv].dur = MAX (0, spec->transfer_ns);
  for (guint i = 0; i < n_places; i++)
    {
      guint r = places[i].rank_index;
      WeftRank *rank = weft_trace_rank (trace, r);
      WeftSolverOpSpec os = { spec->kernel_name ? spec->kernel_name : default_coll_kernel (spec->type),
                              WEFT_CAT_KERNEL, WEFT_KCLASS_COMM, MAX (0, spec->transfer_ns), WEFT_NONE };
      guint position = position_for_time (self, r, places[i].lane, places[i].at_time, WEFT_NONE);
      guint32 ev = model_new_event (self, r, places[i].lane, places[i].at_time, &os);
      guint32 v = new_op_node (self, r, places[i].lane, places[i].at_time, ev,
                               step_near (self, r, places[i].lane, position));
      WeftCollective c;
      WeftInstanceMember m = { r, rank->collectives->len };
      memset (&c, 0, sizeof c);
      c.event = ev;
      c.cpu_event = WEFT_NONE;
      c.type = spec->type;
      c.source = WEFT_COLL_SOURCE_KERNEL_ARGS;
      c.in_nelems = c.out_nelems = -1;
      c.bytes = spec->bytes;
      c.dtype = spec->dtype ? weft_strings_intern (rank->strings, spec->dtype, -1) : 0;
      c.group_size = (int) n_places;
      c.pg_name = weft_strings_intern (rank->strings, spec->pg_name ? spec->pg_name : "weft", -1);
      c.pg_desc = spec->pg_desc ? weft_strings_intern (rank->strings, spec->pg_desc, -1) : 0;
      c.pg_ranks = g_memdup2 (rank_numbers, n_places * sizeof (int));
      c.n_pg_ranks = n_places;
      c.seq = -1;
      c.src_rank = c.dst_rank = -1;
      c.instance = inst_idx;
      g_array_append_val (rank->collectives, c);
      weft_rank_event_set_coll (rank, ev, m.coll);
      g_array_append_val (inst.members, m);
      _weft_solver_plan_invalidate (self);
      self->nodes[v].inst = iv;
      self->nodes[iv].members[self->nodes[iv].n_members++] = v;
      lane_attach (self, v, places[i].lane, position);
      if (events_out)
        events_out[i] = ev;
    }
  inst.pg_name_rank0 = g_array_index (weft_trace_rank (trace, places[0].rank_index)->collectives, WeftCollective,
                                      coll_len0[places[0].rank_index]).pg_name;
  g_array_append_val (trace->instances, inst);
  g_array_append_val (self->inst_node, iv);

  {
    /* the members, then their instance */
    guint32 *added = g_new (guint32, self->n_nodes - n_nodes0);
    guint k = 0;
    for (guint32 v = n_nodes0; v < self->n_nodes; v++)
      if (self->nodes[v].kind == NODE_OP)
        added[k++] = v;
    added[k++] = iv;
    ok = _weft_solver_order_add_nodes (self, added, k, error);
    g_free (added);
  }
  if (!ok)
    {
      /* roll everything back: nodes, model events, collectives, instance */
      for (guint32 v = n_nodes0; v < self->n_nodes; v++)
        if (self->nodes[v].kind == NODE_OP)
          {
            lane_detach (self, v);
            _weft_solver_set_ev_node (self, self->nodes[v].rank, self->nodes[v].event, WEFT_NONE);
          }
      for (guint32 v = n_nodes0; v < self->n_nodes; v++)
        {
          g_free (self->nodes[v].in);
          g_free (self->nodes[v].out);
          g_free (self->nodes[v].members);
        }
      self->n_nodes = n_nodes0;
      for (guint r = 0; r < self->n_ranks; r++)
        {
          WeftRank *rank = weft_trace_rank (trace, r);
          for (guint32 e = ev_len0[r]; e < rank->events->len; e++)
            {
              weft_rank_event_set_coll (rank, e, WEFT_NONE);
              weft_rank_set_created_text (rank, e, WEFT_TEXT_NONE);
            }
          g_array_set_size (rank->events, ev_len0[r]);
          g_array_set_size (rank->collectives, coll_len0[r]);
        }
      g_array_set_size (trace->instances, inst_idx);
      g_array_set_size (self->inst_node, inst_idx);
      g_free (ev_len0);
      g_free (coll_len0);
      g_free (rank_numbers);
      /* the order is as it was */
      return WEFT_NONE;
    }
  heap_rekey (self);
  for (guint i = 0; i < n_places; i++)
    {
      WeftRank *rank = weft_trace_rank (trace, places[i].rank_index);
      guint32 ev = rank->events->len - 1;
      model_lane_insert (rank, places[i].lane, ev);
    }
  for (guint32 v = n_nodes0; v < self->n_nodes; v++)
    if (self->nodes[v].kind == NODE_OP)
      dirty_around (self, v);
  _weft_solver_heap_push (self, iv);
  g_free (ev_len0);
  g_free (coll_len0);
  g_free (rank_numbers);
  _weft_solver_maybe_solve (self);
  return inst_idx;
}

static void
remove_one (WeftSolver *self, guint32 v)
{
  Node *n = &self->nodes[v];
  WeftRank *rank = weft_trace_rank (self->trace, n->rank);
  guint32 nx = _weft_solver_stream_next (self, v);
  n->removed_lane = n->lane;
  n->removed_pos = n->lane_pos;
  lane_detach (self, v);
  _weft_solver_plan_invalidate (self);
  self->nodes[v].flags |= NODE_DELETED;
  weft_rank_event (rank, n->event)->flags |= WEFT_EVENT_DELETED | WEFT_EVENT_EDITED;
  model_lane_remove (rank, n->lane, n->event);
  if (nx != WEFT_NONE)
    _weft_solver_heap_push (self, nx);
  for (guint i = 0; i < n->n_out; i++)
    _weft_solver_heap_push (self, n->out[i]);
}

gboolean
weft_solver_remove_op (WeftSolver *self, guint rank_index, guint32 event, GError **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  guint32 v = require_node (self, rank_index, event, error);
  _weft_solver_sync (self);
  if (v == WEFT_NONE)
    return FALSE;
  if (_weft_solver_is_member (self, v))
    {
      guint32 iv = self->nodes[v].inst;
      Node *in = &self->nodes[iv];
      for (guint i = 0; i < in->n_members; i++)
        if (_weft_solver_live (self, in->members[i]))
          {
            remove_one (self, in->members[i]);
            _weft_solver_order_remove (self, in->members[i]);
          }
      _weft_solver_plan_invalidate (self);
      self->nodes[iv].flags |= NODE_DELETED;
      _weft_solver_order_remove (self, iv);
    }
  else
    {
      remove_one (self, v);
      _weft_solver_order_remove (self, v);
    }
  /* removing cannot create a cycle: the order stays valid */
  heap_rekey (self);
  self->generation++;
  _weft_solver_maybe_solve (self);
  return TRUE;
}

static void
restore_one (WeftSolver *self, guint32 v)
{
  Node *n = &self->nodes[v];
  WeftRank *rank = weft_trace_rank (self->trace, n->rank);
  _weft_solver_plan_invalidate (self);
  n->flags &= ~NODE_DELETED;
  lane_attach (self, v, n->removed_lane, n->removed_pos);
  weft_rank_event (rank, n->event)->flags &= ~WEFT_EVENT_DELETED;
  model_lane_insert (rank, n->removed_lane, n->event);
  dirty_around (self, v);
  for (guint i = 0; i < self->nodes[v].n_out; i++)
    _weft_solver_heap_push (self, self->nodes[v].out[i]);
}

gboolean
weft_solver_restore_op (WeftSolver *self, guint rank_index, guint32 event, GError **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  GArray *map;
  guint32 v, iv;
  _weft_solver_sync (self);
  if (rank_index >= self->n_ranks)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "solver: no rank index %u", rank_index);
      return FALSE;
    }
  map = self->ranks[rank_index].ev_node;
  v = event < map->len ? g_array_index (map, guint32, event) : WEFT_NONE;
  if (v == WEFT_NONE || self->nodes[v].kind != NODE_OP || !(self->nodes[v].flags & NODE_DELETED) ||
      self->nodes[v].removed_lane == WEFT_NONE)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "solver: rank index %u event %u is not a removed GPU op",
                   rank_index, event);
      return FALSE;
    }
  iv = self->nodes[v].inst;
  {
    g_autoptr (GArray) added = g_array_new (FALSE, FALSE, sizeof (guint32));
    if (iv != WEFT_NONE)
      {
        Node *in = &self->nodes[iv];
        _weft_solver_plan_invalidate (self);
        in->flags &= ~NODE_DELETED;
        for (guint i = 0; i < in->n_members; i++)
          if (self->nodes[in->members[i]].flags & NODE_DELETED)
            {
              guint32 m = self->nodes[iv].members[i];
              restore_one (self, m);
              g_array_append_val (added, m);
            }
        g_array_append_val (added, iv);
        _weft_solver_heap_push (self, iv);
      }
    else
      {
        restore_one (self, v);
        g_array_append_val (added, v);
      }
    if (!_weft_solver_order_add_nodes (self, (const guint32 *) (void *) added->data, added->len, error))
      {
        /* put it back out */
        for (guint i = 0; i < added->len; i++)
          {
            guint32 a = g_array_index (added, guint32, i);
            _weft_solver_plan_invalidate (self);
            if (self->nodes[a].kind == NODE_INST)
              self->nodes[a].flags |= NODE_DELETED;
            else
              remove_one (self, a);
          }
        heap_rekey (self);
        return FALSE;
      }
  }
  heap_rekey (self);
  _weft_solver_maybe_solve (self);
  return TRUE;
}

gboolean
weft_solver_add_dependency (WeftSolver *self, guint from_rank, guint32 from_event, guint to_rank, guint32 to_event,
                            gint64 gap, GError **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  guint32 f = require_node (self, from_rank, from_event, error);
  guint32 t = f == WEFT_NONE ? WEFT_NONE : require_node (self, to_rank, to_event, error);
  _weft_solver_sync (self);
  if (t == WEFT_NONE)
    return FALSE;
  if (f == t)
    {
      g_set_error_literal (error, WEFT_ERROR, WEFT_ERROR_CYCLE, "dependency cycle: an op cannot wait for itself");
      return FALSE;
    }
  _weft_solver_node_add_in (self, t, f, WEFT_DEP_EXPLICIT, gap);
  {
    g_autoptr (GArray) cycle = g_array_new (FALSE, FALSE, sizeof (guint32));
    if (!_weft_solver_pk_repair (self, &t, 1, cycle))
      {
        _weft_solver_set_cycle_error (self, cycle, error);
        _weft_solver_node_remove_in (self, t, self->nodes[t].n_in - 1);
        return FALSE;
      }
  }
  heap_rekey (self);
  self->generation++;
  _weft_solver_heap_push (self, t);
  _weft_solver_maybe_solve (self);
  return TRUE;
}

gboolean
weft_solver_remove_dependency (WeftSolver *self, guint from_rank, guint32 from_event, guint to_rank, guint32 to_event)
{
  g_return_val_if_fail (self != NULL, FALSE);

  guint32 f = _weft_solver_node (self, from_rank, from_event);
  guint32 t = _weft_solver_node (self, to_rank, to_event);
  gboolean removed = FALSE;
  _weft_solver_sync (self);
  if (f == WEFT_NONE || t == WEFT_NONE)
    return FALSE;
  for (guint i = self->nodes[t].n_in; i > 0; i--)
    if (self->nodes[t].in[i - 1].src == f && self->nodes[t].in[i - 1].kind != WEFT_DEP_LAUNCH)
      {
        _weft_solver_node_remove_in (self, t, i - 1);
        removed = TRUE;
      }
  if (removed)
    {
      /* fewer dependencies: the order stays valid */
      self->generation++;
      _weft_solver_heap_push (self, t);
      _weft_solver_maybe_solve (self);
    }
  return removed;
}

/* ---- apply to model ------------------------------------------------------------ */

/* Launches for the ops an edit created (an insert, a duplicate), as
 * Kineto records a launch: a cudaLaunchKernel runtime event on the rank's
 * launching thread, sharing a fresh correlation and External id with the
 * op, and the ac2g flow between them; re-timed with the op on each apply,
 * removed with it. It is placed earlier than the usual launch latency by
 * more than the 50 us after which a start counts as unexplained, so that
 * reopened the launch does not decide the op's start: what held it in the
 * session does (its stream predecessor, or the minimum start its
 * "weft held" mark gives back). */

/* Where the launches of the ops an edit created go (common timeline), as
 * (node, time) pairs sorted by node: the lead before the op, but before
 * the launch of the next op of its stream that has a launch of its own (a
 * stream runs its ops in launch order: reopened, a sync on that stream
 * reads the same target), and at least WEFT_CREATED_LAUNCH_SPACING_NS
 * apart on their thread (their slices, the record_param_comms and
 * nccl:* annotation of a collective's, never partly overlap, and each
 * flow binds to its own launch). */
#define WEFT_CREATED_LAUNCH_SPACING_NS 7000
typedef struct
{
  guint32 node;
  gint64  t;
} CreatedLaunch;

static int
created_launch_by_time (gconstpointer a, gconstpointer b)
{
  const CreatedLaunch *x = a, *y = b;
  if (x->t != y->t)
    return x->t < y->t ? -1 : 1;
  return x->node < y->node ? -1 : x->node > y->node;
}

static int
created_launch_by_node (gconstpointer a, gconstpointer b)
{
  const CreatedLaunch *x = a, *y = b;
  return x->node < y->node ? -1 : x->node > y->node;
}

static GArray *
created_launch_times (WeftSolver *self, guint r)
{
  WeftRank *rank = weft_trace_rank (self->trace, r);
  RankState *rs = &self->ranks[r];
  gint64 lat = _weft_solver_created_launch_lead (self, r);
  GArray *out = g_array_new (FALSE, FALSE, sizeof (CreatedLaunch));

  for (guint li = 0; li < rs->lanes->len; li++)
    {
      GArray *o = g_ptr_array_index (rs->lanes, li);
      gint64 next = G_MAXINT64; /* the next launch of the stream, as written */
      for (guint j = o != NULL ? o->len : 0; j > 0; j--)
        {
          guint32 v = g_array_index (o, guint32, j - 1);
          const Node *n = &self->nodes[v];
          const WeftEvent *ev = weft_rank_event (rank, n->event);
          if ((ev->flags & WEFT_EVENT_CREATED) && (ev->flags & WEFT_EVENT_GPU_OP))
            {
              CreatedLaunch c = { v, MIN (n->start - lat, next == G_MAXINT64 ? G_MAXINT64 : next - 1000) };
              g_array_append_val (out, c);
              next = MIN (next, c.t);
            }
          else if (n->launch_time != G_MININT64 && n->launch < rank->events->len)
            {
              guint32 ll = weft_rank_event (rank, n->launch)->lane;
              next = MIN (next, n->launch_time + (ll != WEFT_NONE ? _weft_solver_shift (self, r, ll, n->launch_time) : 0));
            }
        }
    }
  g_array_sort (out, created_launch_by_time);
  for (guint k = out->len; k > 1; k--)
    {
      CreatedLaunch *a = &g_array_index (out, CreatedLaunch, k - 2), *b = &g_array_index (out, CreatedLaunch, k - 1);
      a->t = MIN (a->t, b->t - WEFT_CREATED_LAUNCH_SPACING_NS);
    }
  g_array_sort (out, created_launch_by_node);
  return out;
}

static gint64
created_launch_lookup (GArray *times, guint32 v)
{
  CreatedLaunch key = { v, 0 }, *hit;
  if (times->len == 0)
    return G_MININT64; /* bsearch may not be given the NULL data of an empty array */
  hit = bsearch (&key, times->data, times->len, sizeof (CreatedLaunch), created_launch_by_node);
  return hit != NULL ? hit->t : G_MININT64;
}

static void
array_free0 (gpointer a)
{
  if (a != NULL)
    g_array_unref (a);
}

/* Cached per rank and generation: the critical path asks for every
 * created op it goes through. */
gint64
_weft_solver_created_launch_time (WeftSolver *self, guint32 v)
{
  guint r = self->nodes[v].rank;
  GArray *times;

  _weft_solver_sync (self);
  if (self->created_launches == NULL || self->created_launches_generation != self->generation)
    {
      g_clear_pointer (&self->created_launches, g_ptr_array_unref);
      self->created_launches = g_ptr_array_new_full (self->n_ranks, array_free0);
      g_ptr_array_set_size (self->created_launches, (gint) self->n_ranks);
      self->created_launches_generation = self->generation;
    }
  times = g_ptr_array_index (self->created_launches, r);
  if (times == NULL)
    {
      times = created_launch_times (self, r);
      g_ptr_array_index (self->created_launches, r) = times;
    }
  return created_launch_lookup (times, v);
}

/* Ids for created launches: one past the rank's largest correlation or
 * External id, so that a reopened trace pairs each created launch with its
 * op and no other. When that would pass G_MAXINT64 (a file may carry any
 * gint64), the smallest non-negative ids that no event of the rank uses. */
typedef struct
{
  WeftRank   *rank;
  gint64      next;
  GHashTable *used; /* gint64 ids, only once the top is reached */
} FreshIds;

static void
fresh_ids_fill_used (FreshIds *f)
{
  f->used = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  for (guint i = 0; i < f->rank->events->len; i++)
    {
      const WeftEvent *e = weft_rank_event (f->rank, i);
      gint64 ids[3] = { weft_event_correlation (f->rank, e), weft_event_external_id (f->rank, e),
                        weft_event_flow_id (f->rank, e) };
      for (guint k = 0; k < 3; k++)
        if (ids[k] >= 0 && !g_hash_table_contains (f->used, &ids[k]))
          g_hash_table_add (f->used, g_memdup2 (&ids[k], sizeof ids[k]));
    }
  f->next = 0;
  while (g_hash_table_contains (f->used, &f->next))
    f->next++;
}

/* max: the largest id seen (G_MININT64 if none) */
static void
fresh_ids_init (FreshIds *f, WeftRank *rank, gint64 max)
{
  f->rank = rank;
  f->used = NULL;
  if (max < G_MAXINT64)
    f->next = MAX (max, 0) + 1;
  else
    fresh_ids_fill_used (f);
}

static void
fresh_ids_advance (FreshIds *f)
{
  if (f->used == NULL && f->next < G_MAXINT64)
    {
      f->next++;
      return;
    }
  if (f->used == NULL)
    {
      fresh_ids_fill_used (f); /* the top reached: the gaps below */
      return;
    }
  g_hash_table_add (f->used, g_memdup2 (&f->next, sizeof f->next));
  while (g_hash_table_contains (f->used, &f->next))
    f->next++;
}

static void
apply_created_launches (WeftSolver *self, guint r, gboolean *dirty)
{
  GArray *times = created_launch_times (self, r);
  WeftRank *rank = weft_trace_rank (self->trace, r);
  RankState *rs = &self->ranks[r];
  gint64 next_id = G_MININT64;
  FreshIds fresh = { 0 };
  guint32 cpu = WEFT_NONE;

  for (guint li = 0; li < rs->lanes->len; li++)
    {
      GArray *o = g_ptr_array_index (rs->lanes, li);
      for (guint j = 0; o != NULL && j < o->len; j++)
        {
          Node *n = &self->nodes[g_array_index (o, guint32, j)];
          WeftEvent *ev = weft_rank_event (rank, n->event), *call;
          guint32 ci, si, fi, op_lane, op_coll;
          gint64 op_ts, call_ts;
          WeftFlow flow;
          if (!(ev->flags & WEFT_EVENT_CREATED) || !(ev->flags & WEFT_EVENT_GPU_OP))
            continue;
          if (weft_event_link (ev) != WEFT_NONE)
            {
              /* made by an earlier apply: follows the op */
              call = weft_rank_event (rank, weft_event_link (ev));
              gint64 at = created_launch_lookup (times, g_array_index (o, guint32, j)) - rs->offset;
              if ((call->flags & WEFT_EVENT_CREATED) && call->ts != at)
                {
                  gint64 d = at - call->ts;
                  call->ts += d;
                  if (call->lane < rank->lanes->len)
                    dirty[call->lane] = TRUE;
                  /* its record_param_comms and nccl:* annotation */
                  for (guint32 k = weft_event_link (ev) + 3; k < weft_event_link (ev) + 5 && k < rank->events->len; k++)
                    {
                      WeftEvent *p = weft_rank_event (rank, k);
                      if ((p->flags & WEFT_EVENT_CREATED) && weft_event_link (p) == n->event &&
                          (p->category == WEFT_CAT_CPU_OP || p->category == WEFT_CAT_USER_ANNOTATION))
                        p->ts += d;
                    }
                }
              continue;
            }
          if (cpu == WEFT_NONE)
            {
              /* the thread that launched the most ops */
              g_autofree guint *count = g_new0 (guint, MAX (1, rank->lanes->len));
              guint best = 0;
              for (guint i = 0; i < rank->events->len; i++)
                {
                  const WeftEvent *e = weft_rank_event (rank, i);
                  if ((e->flags & WEFT_EVENT_LAUNCH) && e->lane < rank->lanes->len && ++count[e->lane] > best)
                    best = count[e->lane], cpu = e->lane;
                  next_id = MAX (next_id, MAX (weft_event_correlation (rank, e), weft_event_external_id (rank, e)));
                }
              if (cpu == WEFT_NONE)
                {
                  g_array_free (times, TRUE);
                  return; /* no CPU thread launches anything: a GPU-only trace */
                }
              fresh_ids_init (&fresh, rank, next_id);
              next_id = fresh.next;
              /* a thread of its own, next to that one: launches on the
               * launching thread itself would change which stream its
               * syncs are inferred to wait for when the trace is reopened */
              {
                const WeftLane *main_lane = weft_rank_lane (rank, cpu);
                const char *pid = weft_rank_string (rank, main_lane->pid_text);
                gint64 tid = 0;
                char tid_text[32];
                WeftLane *l;
                for (guint k = 0; k < rank->lanes->len; k++)
                  {
                    const WeftLane *other = weft_rank_lane (rank, k);
                    if (other->pid_text == main_lane->pid_text && other->tid != G_MININT64)
                      tid = MAX (tid, other->tid);
                  }
                g_snprintf (tid_text, sizeof tid_text, "%" G_GINT64_FORMAT, tid + 1);
                cpu = weft_rank_ensure_lane (rank, pid, strlen (pid), tid_text, strlen (tid_text));
                l = weft_rank_lane (rank, cpu);
                l->kind = WEFT_LANE_CPU;
                l->device = -1;
              }
            }
          ci = rank->events->len;
          op_ts = ev->ts;
          call_ts = created_launch_lookup (times, g_array_index (o, guint32, j)) - rs->offset;
          op_lane = ev->lane;
          op_coll = weft_event_coll (rank, ev) != WEFT_NONE && weft_event_coll (rank, ev) < rank->collectives->len &&
                            g_array_index (rank->collectives, WeftCollective, weft_event_coll (rank, ev)).event == n->event
                        ? weft_event_coll (rank, ev)
                        : WEFT_NONE;
          {
            /* appending may move the array: ev is read back after */
            WeftEvent c = { 0 };
            c.ts = call_ts;
            weft_event_set_dur (rank, &c, 2000);
            c.name = weft_strings_intern (rank->strings, "cudaLaunchKernel", -1);
            c.cat = weft_strings_intern (rank->strings, "cuda_runtime", -1);
            c.category = WEFT_CAT_CUDA_RUNTIME;
            c.ph = WEFT_PH_X;
            c.lane = cpu;
            c.flags = WEFT_EVENT_CREATED | WEFT_EVENT_EDITED | WEFT_EVENT_LAUNCH | WEFT_EVENT_HAS_DUR;
            weft_event_set_correlation (rank, &c, next_id);
            weft_event_set_external_id (rank, &c, next_id);
            weft_event_set_flow_id (rank, &c, -1);
            weft_event_set_link (&c, n->event);
            g_array_append_val (rank->events, c);
            c.ph = WEFT_PH_S;
            weft_event_set_dur (rank, &c, 0);
            c.name = c.cat = weft_strings_intern (rank->strings, "ac2g", -1);
            c.category = WEFT_CAT_AC2G;
            c.flags = WEFT_EVENT_CREATED | WEFT_EVENT_EDITED;
            weft_event_set_correlation (rank, &c, -1);
            weft_event_set_external_id (rank, &c, -1);
            weft_event_set_flow_id (rank, &c, next_id);
            weft_event_set_link (&c, WEFT_NONE);
            g_array_append_val (rank->events, c);
            c.ts = op_ts;
            c.ph = WEFT_PH_F;
            c.lane = op_lane;
            c.flags = WEFT_EVENT_CREATED | WEFT_EVENT_EDITED | WEFT_EVENT_BP_E;
            g_array_append_val (rank->events, c);
            if (op_coll != WEFT_NONE)
              {
                /* a collective: ProcessGroupNCCL's record_param_comms
                 * (with the collective's args, written by the saver) and
                 * the nccl:<name> annotation around the launch */
                const WeftCollective *col = &g_array_index (rank->collectives, WeftCollective, op_coll);
                g_autofree char *annot = g_strdup_printf ("nccl:%s", weft_coll_type_to_string (col->type));
                c.ts = call_ts - 1000;
                weft_event_set_dur (rank, &c, 4000);
                c.lane = cpu;
                c.ph = WEFT_PH_X;
                c.name = weft_strings_intern (rank->strings, "record_param_comms", -1);
                c.cat = weft_strings_intern (rank->strings, "cpu_op", -1);
                c.category = WEFT_CAT_CPU_OP;
                c.flags = WEFT_EVENT_CREATED | WEFT_EVENT_EDITED | WEFT_EVENT_HAS_DUR;
                weft_event_set_flow_id (rank, &c, -1);
                weft_event_set_external_id (rank, &c, next_id);
                weft_event_set_link (&c, n->event);
                g_array_append_val (rank->events, c);
                weft_rank_event_set_coll (rank, rank->events->len - 1, op_coll);
                c.ts = call_ts - 2000;
                weft_event_set_dur (rank, &c, 6000);
                c.name = weft_strings_intern (rank->strings, annot, -1);
                c.cat = weft_strings_intern (rank->strings, "user_annotation", -1);
                c.category = WEFT_CAT_USER_ANNOTATION;
                g_array_append_val (rank->events, c);
              }
          }
          si = ci + 1;
          fi = ci + 2;
          ev = weft_rank_event (rank, n->event); /* the array may have moved */
          weft_event_set_correlation (rank, ev, next_id);
          weft_event_set_external_id (rank, ev, next_id);
          weft_event_set_link (ev, ci);
          fresh_ids_advance (&fresh);
          next_id = fresh.next;
          model_lane_insert (rank, cpu, ci);
          model_lane_insert (rank, cpu, si);
          model_lane_insert (rank, op_lane, fi);
          for (guint32 k = fi + 1; k < rank->events->len; k++)
            model_lane_insert (rank, cpu, k); /* record_param_comms, nccl:* */
          flow.category = WEFT_CAT_AC2G;
          flow.start = si;
          flow.end = fi;
          flow.from = ci;
          flow.to = n->event;
          g_array_append_val (rank->flows, flow);
          if (rs->ev_node->len < rank->events->len)
            _weft_solver_set_ev_node (self, r, rank->events->len - 1, WEFT_NONE);
          dirty[cpu] = TRUE;
          dirty[ev->lane] = TRUE;
        }
    }
  g_clear_pointer (&fresh.used, g_hash_table_unref);
  g_array_free (times, TRUE);
}

void
weft_solver_apply_to_model (WeftSolver *self)
{
  g_return_if_fail (self != NULL);

  _weft_solver_sync (self);
  for (guint r = 0; r < self->n_ranks; r++)
    {
      WeftRank *rank = weft_trace_rank (self->trace, r);
      RankState *rs = &self->ranks[r];
      /* one more: apply_created_launches may add the lane of their launches */
      gboolean *dirty = g_new0 (gboolean, rank->lanes->len + 1);
      GHashTableIter it;
      gpointer value;

      for (guint li = 0; li < rs->lanes->len; li++)
        {
          GArray *o = g_ptr_array_index (rs->lanes, li);
          if (o == NULL)
            continue;
          for (guint j = 0; j < o->len; j++)
            {
              Node *n = &self->nodes[g_array_index (o, guint32, j)];
              WeftEvent *ev = weft_rank_event (rank, n->event);
              gint64 ts = n->start - rs->offset, dur = n->end - n->start;
              /* a zero-length op an edit created (a stream wait) that the
               * next op of its stream starts with is written 1 ns before
               * it: in the same nanosecond Perfetto would nest it in that
               * op and bind the op's launch flow to it */
              if (dur == 0 && (ev->flags & WEFT_EVENT_CREATED) && j + 1 < o->len &&
                  self->nodes[g_array_index (o, guint32, j + 1)].start == n->start)
                ts--;
              if (ev->ts != ts || weft_event_dur (rank, ev) != dur)
                {
                  ev->ts = ts;
                  weft_event_set_dur (rank, ev, dur);
                  ev->flags |= WEFT_EVENT_EDITED | WEFT_EVENT_HAS_DUR;
                  if (li < rank->lanes->len)
                    dirty[li] = TRUE;
                }
            }
        }
      /* CPU threads that wait on syncs shift with them */
      g_hash_table_iter_init (&it, rs->threads);
      while (g_hash_table_iter_next (&it, NULL, &value))
        {
          ThreadSyncs *ts = value;
          for (guint j = 0; ts->orig && j < ts->orig->len; j++)
            {
              const CpuOrig *o = &g_array_index (ts->orig, CpuOrig, j);
              WeftEvent *ev = weft_rank_event (rank, o->event);
              gint64 a = o->ts + _weft_solver_shift (self, r, ts->lane, o->ts + rs->offset);
              gint64 b = o->end + _weft_solver_shift (self, r, ts->lane, o->end + rs->offset);
              if (b < a)
                b = a;
              if (ev->ts != a || weft_event_end (rank, ev) != b)
                {
                  ev->ts = a;
                  weft_event_set_dur (rank, ev, b - a);
                  ev->flags |= WEFT_EVENT_EDITED;
                  dirty[ts->lane] = TRUE;
                }
            }
        }
      /* An op held back by a user minimum start (a drag, a shift) starts
       * where nothing in the trace explains: it is marked, and saved with
       * args "weft held" (save.c), which the graph of the reopened trace
       * reads as the same minimum start (build_op, solver-build.c). */
      for (guint li = 0; li < rs->lanes->len; li++)
        {
          GArray *o = g_ptr_array_index (rs->lanes, li);
          for (guint j = 0; o != NULL && j < o->len; j++)
            {
              Node *n = &self->nodes[g_array_index (o, guint32, j)];
              WeftEvent *ev = weft_rank_event (rank, n->event);
              /* also a dependency an edit added (weft_solver_add_dependency;
               * the wait a stream move keeps, how Apply a Strategy builds
               * its waits): the file has no event for it */
              gboolean held = n->bind_kind == WEFT_DEP_USER || n->bind_kind == WEFT_DEP_EXPLICIT;
              for (guint e = 0; !held && n->bind_pred != WEFT_NONE && e < n->n_in; e++)
                held = n->in[e].automatic && n->in[e].src == n->bind_pred && n->in[e].kind == n->bind_kind;
              if (held == ((ev->flags & WEFT_EVENT_HELD) != 0))
                continue;
              if (held)
                ev->flags |= WEFT_EVENT_HELD | WEFT_EVENT_EDITED;
              else
                ev->flags = (guint8) ((ev->flags & ~WEFT_EVENT_HELD) | WEFT_EVENT_EDITED);
            }
        }
      apply_created_launches (self, r, dirty);
      /* the ProfilerStep annotations span the step as the session times it
       * (moved with their thread, their end pushed by the step's GPU
       * work): reopened, the step time is the same */
      for (guint k = 0; k < rank->steps->len; k++)
        {
          WeftStep *st = &g_array_index (rank->steps, WeftStep, k);
          WeftMetrics m;
          WeftEvent *ev;
          if (st->event >= rank->events->len || !weft_solver_metrics (self, r, st->number, &m) ||
              m.step_source != WEFT_STEP_TIME_PROFILER_STEP)
            continue;
          ev = weft_rank_event (rank, st->event);
          if (ev->ts == m.begin - rs->offset && weft_event_dur (rank, ev) == m.end - m.begin)
            continue;
          ev->ts = m.begin - rs->offset;
          weft_event_set_dur (rank, ev, m.end - m.begin);
          ev->flags |= WEFT_EVENT_EDITED | WEFT_EVENT_HAS_DUR;
          st->begin = ev->ts;
          st->end = weft_event_end (rank, ev);
          if (ev->lane != WEFT_NONE && ev->lane < rank->lanes->len)
            dirty[ev->lane] = TRUE;
        }
      /* annotations cover their ops where they are now */
      for (guint k = 0; rs->annots != NULL && k < rs->annots->len; k++)
        {
          const AnnotRec *rec = &g_array_index (rs->annots, AnnotRec, k);
          WeftEvent *ev = weft_rank_event (rank, rec->event);
          gint64 s, e;
          guint32 lane;
          if (!_weft_solver_annot_span (self, r, rec, &s, &e, &lane))
            {
              /* every op it covered is gone: so is it */
              if (!(ev->flags & WEFT_EVENT_DELETED))
                {
                  ev->flags |= WEFT_EVENT_DELETED | WEFT_EVENT_EDITED;
                  if (ev->lane < rank->lanes->len)
                    dirty[ev->lane] = TRUE;
                }
              continue;
            }
          if (ev->flags & WEFT_EVENT_DELETED)
            ev->flags &= ~WEFT_EVENT_DELETED; /* an op of it came back (undo) */
          s -= rs->offset;
          e -= rs->offset;
          if (ev->ts == s && weft_event_dur (rank, ev) == e - s && ev->lane == lane)
            continue;
          if (ev->lane != lane)
            {
              model_lane_remove (rank, ev->lane, rec->event);
              if (ev->lane < rank->lanes->len)
                dirty[ev->lane] = TRUE;
              ev->lane = lane;
              model_lane_insert (rank, lane, rec->event);
            }
          ev->ts = s;
          weft_event_set_dur (rank, ev, e - s);
          ev->flags |= WEFT_EVENT_EDITED | WEFT_EVENT_HAS_DUR;
          dirty[lane] = TRUE;
        }
      for (guint li = 0; li < rank->lanes->len; li++)
        if (dirty[li])
          weft_lane_sort (rank, weft_rank_lane (rank, li));
      g_free (dirty);
    }
  self->n_edits_applied++;
}
