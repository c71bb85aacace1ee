/* edit-ops.c: the edit operations that change existing ops: moves in time
 * and between streams, reordering, durations and scales, delete; and the
 * op helpers the other edit files share (edit-private.h). Each builds one
 * Action and runs it through edit-session.c's engine. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "edit-private.h"

/* ---- helpers ----------------------------------------------------------------------- */

gboolean
_weft_edit_check_op (WeftEditSession *self, WeftEventRef op, GError **error)
{
  if (op.rank_index >= self->trace->ranks->len ||
      op.event >= weft_trace_rank (self->trace, op.rank_index)->events->len ||
      !weft_solver_is_node (self->solver, op.rank_index, op.event))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "rank index %u event %u: not a live GPU op",
                   op.rank_index, op.event);
      return FALSE;
    }
  return TRUE;
}

/* Live members of an instance (WeftEventRef), in member order. */
GArray *
_weft_edit_instance_members (WeftEditSession *self, guint32 instance)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (WeftEventRef));
  WeftCollInstance *inst = &g_array_index (self->trace->instances, WeftCollInstance, instance);

  for (guint m = 0; m < inst->members->len; m++)
    {
      WeftInstanceMember *mem = &g_array_index (inst->members, WeftInstanceMember, m);
      WeftRank *rank = weft_trace_rank (self->trace, mem->rank_index);
      WeftEventRef ref;
      if (mem->coll >= rank->collectives->len)
        continue;
      ref.rank_index = mem->rank_index;
      ref.event = g_array_index (rank->collectives, WeftCollective, mem->coll).event;
      if (weft_solver_is_node (self->solver, ref.rank_index, ref.event))
        g_array_append_val (out, ref);
    }
  return out;
}

static guint64
ref_key (WeftEventRef op)
{
  return ((guint64) op.rank_index << 32) | op.event;
}

/* Adds op (and, when expand, the other members of its instance) once. */
void
_weft_edit_add_ref (WeftEditSession *self, GArray *out, GHashTable *seen, WeftEventRef op, gboolean expand)
{
  guint32 inst = expand ? _weft_edit_op_instance (self, op) : WEFT_NONE;

  if (inst != WEFT_NONE)
    {
      g_autoptr (GArray) members = _weft_edit_instance_members (self, inst);
      for (guint i = 0; i < members->len; i++)
        _weft_edit_add_ref (self, out, seen, g_array_index (members, WeftEventRef, i), FALSE);
      return;
    }
  {
    guint64 *key = g_new (guint64, 1);
    *key = ref_key (op);
    if (g_hash_table_contains (seen, key))
      {
        g_free (key);
        return;
      }
    g_hash_table_add (seen, key);
    g_array_append_val (out, op);
  }
}

GHashTable *
_weft_edit_ref_set_new (void)
{
  return g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
}

/* The GPU lane of a rank with stream id `stream` on `device` (-1: the
 * rank's first GPU device), created when missing. */
guint32
_weft_edit_stream_lane (WeftEditSession *self, guint rank_index, int device, gint64 stream)
{
  WeftRank *rank = weft_trace_rank (self->trace, rank_index);

  if (device < 0)
    for (guint l = 0; l < rank->lanes->len && device < 0; l++)
      {
        WeftLane *lane = weft_rank_lane (rank, l);
        if (lane->kind == WEFT_LANE_GPU && lane->role != WEFT_LANE_ROLE_SYNC)
          device = lane->device;
      }
  if (device < 0)
    device = 0;
  for (guint l = 0; l < rank->lanes->len; l++)
    {
      WeftLane *lane = weft_rank_lane (rank, l);
      if (lane->kind == WEFT_LANE_GPU && lane->tid == stream && lane->device == device)
        return l;
    }
  return weft_solver_ensure_stream (self->solver, rank_index, device, stream);
}

WeftLane *
_weft_edit_op_lane (WeftEditSession *self, WeftEventRef op)
{
  WeftRank *rank = weft_trace_rank (self->trace, op.rank_index);
  guint32 l = weft_solver_op_lane (self->solver, op.rank_index, op.event);
  return l != WEFT_NONE && l < rank->lanes->len ? weft_rank_lane (rank, l) : NULL;
}

/* Bounds that keep every solved time far from gint64 overflow: a duration
 * or a shift of at most ~11.6 days, a point in time below 2^62 ns. */
#define MAX_DUR_NS G_GINT64_CONSTANT (1000000000000000)
#define MAX_TIME_NS (G_MAXINT64 / 2)

static gint64
scale_ns (gint64 v, double factor)
{
  double r = (double) v * factor;
  if (!(r > 0))
    return 0;
  if (r > (double) MAX_DUR_NS)
    return MAX_DUR_NS;
  return (gint64) llround (r);
}

gboolean
_weft_edit_check_dur (WeftEditSession *self, WeftEventRef op, gint64 dur, GError **error)
{
  if (dur < 0 || dur > MAX_DUR_NS)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
                   "%s: duration %" G_GINT64_FORMAT " ns is not in [0, %" G_GINT64_FORMAT "] ns",
                   self != NULL ? _weft_edit_op_name (self, op) : "new op", dur, MAX_DUR_NS);
      return FALSE;
    }
  return TRUE;
}

gboolean
_weft_edit_check_time (gint64 t, GError **error)
{
  if (t < 0 || t > MAX_TIME_NS)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "time %" G_GINT64_FORMAT " ns is out of range", t);
      return FALSE;
    }
  return TRUE;
}


/* ---- move in time --------------------------------------------------------------------- */

/* Where an op starts for a move by a delta: its solved start now, or inside
 * a gesture its start when the gesture first moved it (successive motions
 * pass the total offset; members that cannot follow at once do not drift). */
static gint64
base_start (WeftEditSession *self, WeftEventRef op)
{
  guint64 key = ref_key (op);
  gpointer v;
  gint64 start;

  if (self->gesture_depth == 0)
    return weft_solver_start (self->solver, op.rank_index, op.event);
  if (self->gesture_base == NULL)
    self->gesture_base = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  v = g_hash_table_lookup (self->gesture_base, &key);
  if (v != NULL)
    return *(gint64 *) v;
  start = weft_solver_start (self->solver, op.rank_index, op.event);
  g_hash_table_insert (self->gesture_base, g_memdup2 (&key, sizeof key), g_memdup2 (&start, sizeof start));
  return start;
}

gboolean
_weft_edit_move_refs_to (WeftEditSession *self, GArray *refs, const gint64 *starts, GError **error)
{
  Action *a = _weft_edit_action_new (WEFT_EDIT_MIN_START);

  for (guint i = 0; i < refs->len; i++)
    {
      WeftEventRef op = g_array_index (refs, WeftEventRef, i);
      Item it = { 0 };
      it.rank_index = op.rank_index;
      it.event = op.event;
      it.old_v = weft_solver_min_start (self->solver, op.rank_index, op.event);
      it.new_v = starts[i];
      g_array_append_val (a->items, it);
    }
  return _weft_edit_run_and_commit (self, a, error);
}

gboolean
weft_edit_session_move_time (WeftEditSession *self, WeftEventRef op, gint64 start, gboolean whole_instance,
                     GError **error)
{
  g_autoptr (GArray) refs = g_array_new (FALSE, FALSE, sizeof (WeftEventRef));
  g_autoptr (GHashTable) seen = _weft_edit_ref_set_new ();
  g_autofree gint64 *starts = NULL;
  gint64 delta;

  if (!_weft_edit_check_op (self, op, error))
    return FALSE;
  if (!_weft_edit_check_time (start, error))
    return FALSE;
  delta = start - base_start (self, op);
  _weft_edit_add_ref (self, refs, seen, op, whole_instance);
  starts = g_new (gint64, refs->len);
  for (guint i = 0; i < refs->len; i++)
    {
      WeftEventRef r = g_array_index (refs, WeftEventRef, i);
      starts[i] = (r.rank_index == op.rank_index && r.event == op.event)
                    ? start
                    : MAX (0, base_start (self, r) + delta);
    }
  return _weft_edit_move_refs_to (self, refs, starts, error);
}

gboolean
weft_edit_session_move_selection (WeftEditSession *self, const WeftEventRef *ops, guint n_ops, gint64 delta,
                          gboolean whole_instances, GError **error)
{
  g_autoptr (GArray) refs = g_array_new (FALSE, FALSE, sizeof (WeftEventRef));
  g_autoptr (GHashTable) seen = _weft_edit_ref_set_new ();
  g_autofree gint64 *starts = NULL;

  if (delta < -MAX_DUR_NS || delta > MAX_DUR_NS)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "a shift of %" G_GINT64_FORMAT " ns is out of range", delta);
      return FALSE;
    }
  for (guint i = 0; i < n_ops; i++)
    {
      if (!_weft_edit_check_op (self, ops[i], error))
        return FALSE;
      _weft_edit_add_ref (self, refs, seen, ops[i], whole_instances);
    }
  starts = g_new (gint64, MAX (refs->len, 1));
  for (guint i = 0; i < refs->len; i++)
    {
      WeftEventRef r = g_array_index (refs, WeftEventRef, i);
      starts[i] = MAX (0, base_start (self, r) + delta);
    }
  return _weft_edit_move_refs_to (self, refs, starts, error);
}

/* ---- move to a stream / reorder ----------------------------------------------------------- */

/* A lane's stream order as the moves of one action see it (event ids). */
typedef struct
{
  guint   rank_index;
  guint32 lane;
  GArray *order;
} SimLane;

static void
sim_lane_free (gpointer data)
{
  SimLane *sl = data;
  g_array_free (sl->order, TRUE);
  g_free (sl);
}

static SimLane *
sim_lane (WeftEditSession *self, GPtrArray *sims, guint rank_index, guint32 lane)
{
  SimLane *sl;
  guint n;

  for (guint i = 0; i < sims->len; i++)
    {
      sl = g_ptr_array_index (sims, i);
      if (sl->rank_index == rank_index && sl->lane == lane)
        return sl;
    }
  sl = g_new0 (SimLane, 1);
  sl->rank_index = rank_index;
  sl->lane = lane;
  n = weft_solver_lane_n_ops (self->solver, rank_index, lane);
  sl->order = g_array_sized_new (FALSE, FALSE, sizeof (guint32), n);
  for (guint i = 0; i < n; i++)
    {
      guint32 e = weft_solver_lane_op (self->solver, rank_index, lane, i);
      g_array_append_val (sl->order, e);
    }
  g_ptr_array_add (sims, sl);
  return sl;
}

/* Moves each ref to lanes[i], at positions[i] or (positions NULL) before the
 * first op of that lane whose solved start is later than times[i], as ONE
 * action: the sequential positions are worked out here on copies of the
 * lanes' orders, then every move goes to the solver at once. */
gboolean
_weft_edit_move_refs_to_lanes (WeftEditSession *self, GArray *refs, const guint32 *lanes, const gint64 *times,
                    const guint *positions, GError **error)
{
  Action *a = _weft_edit_action_new (WEFT_EDIT_POSITION);
  g_autoptr (GPtrArray) sims = g_ptr_array_new_with_free_func (sim_lane_free);
  gboolean moved = FALSE;

  for (guint i = 0; i < refs->len; i++)
    {
      WeftEventRef op = g_array_index (refs, WeftEventRef, i);
      Item it = { 0 };
      SimLane *from, *to;
      guint pos;

      it.rank_index = op.rank_index;
      it.event = op.event;
      it.old_lane = weft_solver_op_lane (self->solver, op.rank_index, op.event);
      for (guint j = 0; j < a->items->len; j++)
        if (g_array_index (a->items, Item, j).rank_index == op.rank_index &&
            g_array_index (a->items, Item, j).event == op.event)
          {
            g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "%s: moved twice in one edit",
                         _weft_edit_op_name (self, op));
            _weft_edit_action_free (a);
            return FALSE;
          }
      from = sim_lane (self, sims, op.rank_index, it.old_lane);
      for (pos = 0; pos < from->order->len; pos++)
        if (g_array_index (from->order, guint32, pos) == op.event)
          break;
      g_assert (pos < from->order->len);
      it.old_pos = pos;
      g_array_remove_index (from->order, pos);

      to = sim_lane (self, sims, op.rank_index, lanes[i]);
      if (positions != NULL)
        pos = MIN (positions[i], to->order->len);
      else
        for (pos = 0; pos < to->order->len; pos++)
          if (weft_solver_start (self->solver, op.rank_index, g_array_index (to->order, guint32, pos)) > times[i])
            break;
      g_array_insert_val (to->order, pos, op.event);
      it.new_lane = lanes[i];
      it.new_pos = pos;
      if (it.new_lane != it.old_lane || it.new_pos != it.old_pos)
        moved = TRUE;
      g_array_append_val (a->items, it);
    }
  if (!moved)
    {
      _weft_edit_action_free (a);
      return TRUE;
    }
  a->deps_before = _weft_edit_record_deps (self, a);
  if (!_weft_edit_action_apply (self, a, FALSE, error))
    {
      _weft_edit_action_free (a);
      return FALSE;
    }
  a->deps_after = _weft_edit_record_deps (self, a);
  _weft_edit_commit (self, a);
  return TRUE;
}

static gboolean
move_to_lanes_common (WeftEditSession *self, WeftEventRef op, guint32 lane, gint64 stream, gint64 at_time,
                      gboolean whole_instance, GError **error)
{
  g_autoptr (GArray) refs = g_array_new (FALSE, FALSE, sizeof (WeftEventRef));
  g_autoptr (GHashTable) seen = _weft_edit_ref_set_new ();
  g_autofree guint32 *lanes = NULL;
  g_autofree gint64 *times = NULL;
  gint64 op_start;
  WeftRank *rank;

  if (!_weft_edit_check_op (self, op, error))
    return FALSE;
  rank = weft_trace_rank (self->trace, op.rank_index);
  op_start = weft_solver_start (self->solver, op.rank_index, op.event);
  if (at_time < 0)
    at_time = op_start;
  if (!_weft_edit_check_time (at_time, error))
    return FALSE;
  if (lane != WEFT_NONE)
    {
      if (lane >= rank->lanes->len || weft_rank_lane (rank, lane)->kind != WEFT_LANE_GPU)
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "rank %d: lane %u is not a GPU stream",
                       rank->rank, lane);
          return FALSE;
        }
      stream = weft_rank_lane (rank, lane)->tid;
    }
  _weft_edit_add_ref (self, refs, seen, op, whole_instance);
  lanes = g_new (guint32, refs->len);
  times = g_new (gint64, refs->len);
  for (guint i = 0; i < refs->len; i++)
    {
      WeftEventRef r = g_array_index (refs, WeftEventRef, i);
      if (r.rank_index == op.rank_index && r.event == op.event && lane != WEFT_NONE)
        lanes[i] = lane;
      else
        {
          WeftLane *cur = _weft_edit_op_lane (self, r);
          lanes[i] = _weft_edit_stream_lane (self, r.rank_index, cur ? cur->device : -1, stream);
        }
      times[i] = MAX (0, at_time + (weft_solver_start (self->solver, r.rank_index, r.event) - op_start));
    }
  return _weft_edit_move_refs_to_lanes (self, refs, lanes, times, NULL, error);
}

gboolean
weft_edit_session_move_to_lane (WeftEditSession *self, WeftEventRef op, guint32 lane, gint64 at_time,
                        gboolean whole_instance, GError **error)
{
  return move_to_lanes_common (self, op, lane, 0, at_time, whole_instance, error);
}

gboolean
weft_edit_session_move_to_stream (WeftEditSession *self, WeftEventRef op, gint64 stream, gint64 at_time,
                          gboolean whole_instance, GError **error)
{
  return move_to_lanes_common (self, op, WEFT_NONE, stream, at_time, whole_instance, error);
}

gboolean
weft_edit_session_reorder (WeftEditSession *self, WeftEventRef op, guint position, GError **error)
{
  g_autoptr (GArray) refs = g_array_new (FALSE, FALSE, sizeof (WeftEventRef));
  guint32 lane;

  if (!_weft_edit_check_op (self, op, error))
    return FALSE;
  lane = weft_solver_op_lane (self->solver, op.rank_index, op.event);
  if (position >= weft_solver_lane_n_ops (self->solver, op.rank_index, lane))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "%s: position %u is past the end of its stream (%u ops)",
                   _weft_edit_op_name (self, op), position, weft_solver_lane_n_ops (self->solver, op.rank_index, lane));
      return FALSE;
    }
  g_array_append_val (refs, op);
  return _weft_edit_move_refs_to_lanes (self, refs, &lane, NULL, &position, error);
}

/* ---- durations ----------------------------------------------------------------------------- */

static void
add_duration_item (WeftEditSession *self, Action *a, WeftEventRef op, gint64 dur)
{
  Item it = { 0 };
  it.rank_index = op.rank_index;
  it.event = op.event;
  it.old_v = weft_solver_duration (self->solver, op.rank_index, op.event);
  it.new_v = dur;
  if (it.old_v != it.new_v)
    g_array_append_val (a->items, it);
}

gboolean
weft_edit_session_set_duration (WeftEditSession *self, WeftEventRef op, gint64 dur, GError **error)
{
  Action *a;

  if (!_weft_edit_check_op (self, op, error))
    return FALSE;
  if (!_weft_edit_check_dur (self, op, dur, error))
    return FALSE;
  a = _weft_edit_action_new (WEFT_EDIT_DURATION);
  add_duration_item (self, a, op, dur);
  return _weft_edit_run_and_commit (self, a, error);
}

gboolean
_weft_edit_check_factor (double factor, GError **error)
{
  if (!isfinite (factor) || factor < 0 || factor > 1e6)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "scale factor %g is not a finite number in [0, 1e6]",
                   factor);
      return FALSE;
    }
  return TRUE;
}

gboolean
weft_edit_session_scale_duration (WeftEditSession *self, WeftEventRef op, double factor, GError **error)
{
  return weft_edit_session_scale_ops (self, &op, 1, factor, error);
}

/* One DURATION action over refs: each duration x factor, or = dur when
 * dur >= 0; one item per collective instance (its transfer time). log (taken,
 * nullable): the action's edit-log entry instead of one set_duration per
 * op (a whole-class scale replays from its own description). n_items: the
 * durations changed. */
gboolean
_weft_edit_retime_refs (WeftEditSession *self, const WeftEventRef *ops, guint n_ops, double factor, gint64 dur,
             json_object *log, guint *n_items, GError **error)
{
  Action *a;
  g_autoptr (GHashTable) instances = g_hash_table_new (NULL, NULL);

  if (n_items)
    *n_items = 0;
  if ((dur < 0 && !_weft_edit_check_factor (factor, error)))
    goto fail;
  for (guint i = 0; i < n_ops; i++)
    if (!_weft_edit_check_op (self, ops[i], error) || (dur >= 0 && !_weft_edit_check_dur (self, ops[i], dur, error)))
      goto fail;
  a = _weft_edit_action_new (WEFT_EDIT_DURATION);
  for (guint i = 0; i < n_ops; i++)
    {
      guint32 inst = _weft_edit_op_instance (self, ops[i]);
      if (inst != WEFT_NONE)
        {
          /* one duration per instance: it is the instance's transfer time */
          if (g_hash_table_contains (instances, GUINT_TO_POINTER (inst + 1)))
            continue;
          g_hash_table_add (instances, GUINT_TO_POINTER (inst + 1));
        }
      add_duration_item (self, a, ops[i],
                         dur >= 0 ? dur
                                  : scale_ns (weft_solver_duration (self->solver, ops[i].rank_index, ops[i].event),
                                              factor));
    }
  if (n_items)
    *n_items = a->items->len;
  if (log != NULL)
    {
      a->log = json_object_new_array ();
      json_object_array_add (a->log, log);
    }
  return _weft_edit_run_and_commit (self, a, error);

fail:
  if (log != NULL)
    json_object_put (log);
  return FALSE;
}

gboolean
weft_edit_session_scale_ops (WeftEditSession *self, const WeftEventRef *ops, guint n_ops, double factor, GError **error)
{
  return _weft_edit_retime_refs (self, ops, n_ops, factor, -1, NULL, NULL, error);
}

static json_object *
scale_log (const char *key, const char *value, double factor)
{
  json_object *o = json_object_new_object ();
  json_object_object_add (o, "op", json_object_new_string ("scale"));
  json_object_object_add (o, key, json_object_new_string (value));
  json_object_object_add (o, "factor", json_object_new_double (factor));
  return o;
}

gboolean
weft_edit_session_scale_collective (WeftEditSession *self, WeftCollType type, double factor, guint *n_changed,
                            GError **error)
{
  g_autoptr (GArray) refs = g_array_new (FALSE, FALSE, sizeof (WeftEventRef));

  for (guint r = 0; r < self->trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (self->trace, r);
      for (guint c = 0; c < rank->collectives->len; c++)
        {
          WeftCollective *coll = &g_array_index (rank->collectives, WeftCollective, c);
          WeftEventRef ref = { r, coll->event };
          if (type != WEFT_COLL_NONE && coll->type != type)
            continue;
          if (!weft_solver_is_node (self->solver, r, coll->event))
            continue;
          g_array_append_val (refs, ref);
        }
    }
  return _weft_edit_retime_refs (
      self, (const WeftEventRef *)(void *)refs->data, refs->len, factor, -1,
      scale_log ("collective", type == WEFT_COLL_NONE ? "any" : weft_coll_type_to_string (type), factor), n_changed,
      error);
}

gboolean
weft_edit_session_scale_class (WeftEditSession *self, WeftKernelClass kclass, double factor, guint *n_changed,
                       GError **error)
{
  g_autoptr (GArray) refs = g_array_new (FALSE, FALSE, sizeof (WeftEventRef));

  if (kclass == WEFT_KCLASS_COMM)
    return weft_edit_session_scale_collective (self, WEFT_COLL_NONE, factor, n_changed, error);
  if (kclass == WEFT_KCLASS_NONE || kclass >= WEFT_KCLASS_N_CLASSES)
    {
      if (n_changed)
        *n_changed = 0;
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "scale: no kernel class");
      return FALSE;
    }
  for (guint r = 0; r < self->trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (self->trace, r);
      for (guint32 e = 0; e < rank->events->len; e++)
        {
          WeftEvent *ev = weft_rank_event (rank, e);
          WeftEventRef ref = { r, e };
          if (!(ev->flags & WEFT_EVENT_GPU_OP) || (ev->flags & WEFT_EVENT_DELETED) || ev->kclass != kclass ||
              weft_event_coll (rank, ev) != WEFT_NONE)
            continue;
          if (!weft_solver_is_node (self->solver, r, e))
            continue;
          g_array_append_val (refs, ref);
        }
    }
  return _weft_edit_retime_refs (self, (const WeftEventRef *) (void *) refs->data, refs->len, factor, -1,
                      scale_log ("class", weft_kernel_class_to_string (kclass), factor), n_changed, error);
}

/* ---- delete ------------------------------------------------------------------------------- */

gboolean
weft_edit_session_delete (WeftEditSession *self, const WeftEventRef *ops, guint n_ops, GError **error)
{
  Action *a;
  gboolean ok = TRUE;

  for (guint i = 0; i < n_ops; i++)
    if (!_weft_edit_check_op (self, ops[i], error))
      return FALSE;
  a = _weft_edit_action_new (WEFT_EDIT_DELETE);
  weft_solver_begin_batch (self->solver);
  for (guint i = 0; i < n_ops; i++)
    {
      Item it = { 0 };
      /* a member of an instance removed with an earlier op is gone already */
      if (!weft_solver_is_node (self->solver, ops[i].rank_index, ops[i].event))
        continue;
      it.rank_index = ops[i].rank_index;
      it.event = ops[i].event;
      if (!weft_solver_remove_op (self->solver, it.rank_index, it.event, error))
        {
          ok = FALSE;
          break;
        }
      g_array_append_val (a->items, it);
    }
  if (!ok)
    for (guint i = a->items->len; i > 0; i--)
      {
        g_autoptr (GError) e2 = NULL;
        if (!_weft_edit_item_apply (self, a, i - 1, TRUE, &e2))
          g_warning ("edit: rolling back a delete: %s", e2->message);
      }
  weft_solver_end_batch (self->solver);
  if (!ok || a->items->len == 0)
    {
      _weft_edit_action_free (a);
      return ok;
    }
  _weft_edit_commit (self, a);
  return TRUE;
}
