/* edit-insert.c: the edit operations that create ops: inserting a kernel or
 * a collective, duplicating ops, moving a compute op to another rank. Each
 * step is logged as it is applied (the created events' indices go into the
 * edit log) and rolled back in reverse on failure (edit-private.h). */
#include "config.h"

#include <string.h>

#include "edit-private.h"

/* ---- insert --------------------------------------------------------------------------------- */

/* Inserts a kernel and describes it as a log entry; WEFT_NONE on error. */
static guint32
insert_kernel_step (WeftEditSession *self, guint rank_index, guint32 lane, gint64 at_time,
                    const WeftSolverOpSpec *spec, json_object **log_out, GError **error)
{
  WeftRank *rank = weft_trace_rank (self->trace, rank_index);
  WeftLane *l;
  guint32 ev;
  json_object *log;

  if (lane >= rank->lanes->len || weft_rank_lane (rank, lane)->kind != WEFT_LANE_GPU)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "rank %d: lane %u is not a GPU stream", rank->rank, lane);
      return WEFT_NONE;
    }
  ev = weft_solver_insert_op (self->solver, rank_index, lane, at_time, spec, error);
  if (ev == WEFT_NONE)
    return WEFT_NONE;
  /* the solver copies a like_event's duration: set the one asked for */
  if (weft_solver_duration (self->solver, rank_index, ev) != spec->dur &&
      !weft_solver_set_duration (self->solver, rank_index, ev, MAX (spec->dur, 0), error))
    {
      g_autoptr (GError) e2 = NULL;
      if (!weft_solver_remove_op (self->solver, rank_index, ev, &e2))
        g_warning ("edit: rolling back an insert: %s", e2->message);
      return WEFT_NONE;
    }
  rank = weft_trace_rank (self->trace, rank_index);
  l = weft_rank_lane (rank, lane);
  log = json_object_new_object ();
  json_object_object_add (log, "op", json_object_new_string ("insert_kernel"));
  json_object_object_add (log, "rank", json_object_new_int (rank->rank));
  json_object_object_add (log, "device", json_object_new_int (l->device));
  json_object_object_add (log, "stream", _weft_edit_json_int (l->tid));
  json_object_object_add (log, "at_ns", _weft_edit_json_int (at_time));
  json_object_object_add (log, "name", json_object_new_string (spec->name ? spec->name : ""));
  json_object_object_add (log, "class", json_object_new_string (weft_kernel_class_to_string (spec->kclass)));
  json_object_object_add (log, "category",
                          json_object_new_string (spec->category == WEFT_CAT_GPU_MEMCPY   ? "gpu_memcpy"
                                                  : spec->category == WEFT_CAT_GPU_MEMSET ? "gpu_memset"
                                                                                          : "kernel"));
  json_object_object_add (log, "dur_ns", _weft_edit_json_int (spec->dur));
  if (spec->like_event != WEFT_NONE)
    json_object_object_add (log, "like_event", _weft_edit_json_int (spec->like_event));
  json_object_object_add (log, "event", _weft_edit_json_int (ev));
  *log_out = log;
  return ev;
}

/* Finishes an INSERT / MOVE_RANK action built step by step: on failure,
 * rolls back and frees it. */
static gboolean
finish_steps (WeftEditSession *self, Action *a, gboolean ok)
{
  if (!ok)
    {
      for (guint i = a->items->len; i > 0; i--)
        {
          g_autoptr (GError) e2 = NULL;
          if (!_weft_edit_item_apply (self, a, i - 1, TRUE, &e2))
            g_warning ("edit: rolling back an insert: %s", e2->message);
        }
      _weft_edit_action_free (a);
      return FALSE;
    }
  if (a->items->len == 0)
    {
      _weft_edit_action_free (a);
      return TRUE;
    }
  _weft_edit_commit (self, a);
  return TRUE;
}

gboolean
weft_edit_session_insert_kernel (WeftEditSession *self, guint rank_index, guint32 lane, gint64 at_time,
                         const WeftPaletteKernel *kernel, gint64 dur, WeftEventRef *new_op, GError **error)
{
  WeftSolverOpSpec spec = { 0 };
  Action *a;
  json_object *log = NULL;
  Item it = { 0 };
  guint32 ev;

  g_return_val_if_fail (kernel != NULL, FALSE);
  if (rank_index >= self->trace->ranks->len)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "rank index %u out of range", rank_index);
      return FALSE;
    }
  spec.name = kernel->name;
  spec.category = kernel->category;
  spec.kclass = kernel->kclass;
  spec.dur = dur >= 0 ? dur : kernel->median_dur;
  if (!_weft_edit_check_dur (NULL, (WeftEventRef){ 0, 0 }, spec.dur, error)
      || !_weft_edit_check_time (MAX (at_time, 0), error))
    return FALSE;
  spec.like_event = kernel->example.rank_index == rank_index ? kernel->example.event : WEFT_NONE;
  ev = insert_kernel_step (self, rank_index, lane, MAX (at_time, 0), &spec, &log, error);
  if (ev == WEFT_NONE)
    return FALSE;
  a = _weft_edit_action_new (WEFT_EDIT_INSERT);
  a->log = json_object_new_array ();
  json_object_array_add (a->log, log);
  it.rank_index = rank_index;
  it.event = ev;
  g_array_append_val (a->items, it);
  if (new_op)
    {
      new_op->rank_index = rank_index;
      new_op->event = ev;
    }
  return finish_steps (self, a, TRUE);
}

/* Inserts a collective on places; log entry; the first member's event or WEFT_NONE. */
static guint32
insert_collective_step (WeftEditSession *self, const WeftSolverCollSpec *cs, const WeftSolverPlace *places,
                        guint n, json_object **log_out, GError **error)
{
  g_autofree guint32 *events = g_new0 (guint32, MAX (n, 1));
  guint32 inst;
  json_object *log, *ranks, *at;

  inst = weft_solver_insert_collective (self->solver, cs, places, n, events, error);
  if (inst == WEFT_NONE)
    return WEFT_NONE;
  log = json_object_new_object ();
  json_object_object_add (log, "op", json_object_new_string ("insert_collective"));
  json_object_object_add (log, "collective", json_object_new_string (weft_coll_type_to_string (cs->type)));
  json_object_object_add (log, "bytes", _weft_edit_json_int (cs->bytes));
  ranks = json_object_new_array ();
  at = json_object_new_array ();
  for (guint i = 0; i < n; i++)
    {
      WeftRank *rank = weft_trace_rank (self->trace, places[i].rank_index);
      WeftLane *l = weft_rank_lane (rank, places[i].lane);
      json_object *p = json_object_new_object ();
      json_object_array_add (ranks, json_object_new_int (rank->rank));
      json_object_object_add (p, "rank", json_object_new_int (rank->rank));
      json_object_object_add (p, "device", json_object_new_int (l->device));
      json_object_object_add (p, "stream", _weft_edit_json_int (l->tid));
      json_object_object_add (p, "at_ns", _weft_edit_json_int (places[i].at_time));
      json_object_object_add (p, "event", _weft_edit_json_int (events[i]));
      json_object_array_add (at, p);
    }
  json_object_object_add (log, "ranks", ranks);
  json_object_object_add (log, "places", at);
  if (cs->pg_name)
    json_object_object_add (log, "pg_name", json_object_new_string (cs->pg_name));
  if (cs->pg_desc)
    json_object_object_add (log, "pg_desc", json_object_new_string (cs->pg_desc));
  if (cs->dtype)
    json_object_object_add (log, "dtype", json_object_new_string (cs->dtype));
  if (cs->kernel_name)
    json_object_object_add (log, "kernel_name", json_object_new_string (cs->kernel_name));
  json_object_object_add (log, "transfer_ns", _weft_edit_json_int (cs->transfer_ns));
  *log_out = log;
  return events[0];
}

static gboolean
resolve_ranks (WeftEditSession *self, const int *ranks, guint n_ranks, GArray *out, GError **error)
{
  if (ranks == NULL)
    {
      for (guint r = 0; r < self->trace->ranks->len; r++)
        g_array_append_val (out, r);
      return TRUE;
    }
  for (guint i = 0; i < n_ranks; i++)
    {
      int idx = weft_trace_find_rank (self->trace, ranks[i]);
      if (idx < 0)
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "rank %d is not in the trace", ranks[i]);
          return FALSE;
        }
      for (guint j = 0; j < out->len; j++)
        if (g_array_index (out, guint, j) == (guint) idx)
          {
            g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "rank %d is listed twice", ranks[i]);
            return FALSE;
          }
      {
        guint u = (guint) idx;
        g_array_append_val (out, u);
      }
    }
  return TRUE;
}

/* Inserts one collective on places as one INSERT action. */
gboolean
_weft_edit_insert_collective_places (WeftEditSession *self, const WeftSolverCollSpec *cs, const WeftSolverPlace *places,
                          guint n, WeftEventRef *new_op, GError **error)
{
  json_object *log = NULL;
  Action *a;
  Item it = { 0 };
  guint32 ev;

  ev = insert_collective_step (self, cs, places, n, &log, error);
  if (ev == WEFT_NONE)
    return FALSE;
  a = _weft_edit_action_new (WEFT_EDIT_INSERT);
  a->log = json_object_new_array ();
  json_object_array_add (a->log, log);
  it.rank_index = places[0].rank_index;
  it.event = ev;
  g_array_append_val (a->items, it);
  if (new_op)
    {
      new_op->rank_index = it.rank_index;
      new_op->event = ev;
    }
  return finish_steps (self, a, TRUE);
}

gboolean
weft_edit_session_insert_collective (WeftEditSession *self, const WeftEditCollSpec *spec, WeftEventRef *new_op,
                             GError **error)
{
  g_autoptr (GArray) idx = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autofree WeftSolverPlace *places = NULL;
  g_autofree int *numbers = NULL;
  WeftSolverCollSpec cs = { 0 };

  g_return_val_if_fail (spec != NULL, FALSE);
  if (spec->type == WEFT_COLL_NONE || spec->type >= WEFT_COLL_N_TYPES)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "insert collective: no collective type");
      return FALSE;
    }
  if (spec->bytes <= 0)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "insert collective: payload must be > 0 bytes");
      return FALSE;
    }
  if (spec->transfer_ns > MAX_DUR_NS || !_weft_edit_check_time (MAX (spec->at_time, 0), error))
    {
      if (error != NULL && *error == NULL)
        g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "insert collective: transfer time out of range");
      return FALSE;
    }
  if (!resolve_ranks (self, spec->ranks, spec->n_ranks, idx, error))
    return FALSE;
  if (idx->len == 0)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "insert collective: no rank");
      return FALSE;
    }
  places = g_new0 (WeftSolverPlace, idx->len);
  numbers = g_new0 (int, idx->len);
  for (guint i = 0; i < idx->len; i++)
    {
      guint r = g_array_index (idx, guint, i);
      places[i].rank_index = r;
      places[i].lane = _weft_edit_stream_lane (self, r, -1, spec->stream);
      places[i].at_time = MAX (spec->at_times != NULL ? spec->at_times[i] : spec->at_time, 0);
      if (!_weft_edit_check_time (places[i].at_time, error))
        return FALSE;
      numbers[i] = _weft_edit_rank_number (self, r);
    }
  cs.type = spec->type;
  cs.bytes = spec->bytes;
  cs.dtype = spec->dtype;
  cs.pg_name = spec->pg_name ? spec->pg_name : "weft";
  cs.transfer_ns = spec->transfer_ns;
  if (cs.transfer_ns < 0)
    cs.transfer_ns = weft_cost_model_estimate_group (weft_edit_session_get_cost_model (self), spec->type,
                                                     spec->bytes, cs.pg_name, numbers, idx->len, NULL);
  return _weft_edit_insert_collective_places (self, &cs, places, idx->len, new_op, error);
}

/* ---- duplicate ----------------------------------------------------------------------------- */

static const char *
rank_str_or_null (WeftRank *rank, guint32 id)
{
  return id != 0 ? weft_rank_string (rank, id) : NULL;
}

gboolean
weft_edit_session_duplicate (WeftEditSession *self, const WeftEventRef *ops, guint n_ops, GArray *new_ops, GError **error)
{
  Action *a;
  g_autoptr (GHashTable) instances = g_hash_table_new (NULL, NULL);
  gboolean ok = TRUE;

  for (guint i = 0; i < n_ops; i++)
    if (!_weft_edit_check_op (self, ops[i], error))
      return FALSE;
  a = _weft_edit_action_new (WEFT_EDIT_INSERT);
  a->log = json_object_new_array ();
  weft_solver_begin_batch (self->solver);
  for (guint i = 0; i < n_ops && ok; i++)
    {
      WeftEventRef op = ops[i];
      guint32 inst = _weft_edit_op_instance (self, op);
      json_object *log = NULL;
      Item it = { 0 };
      guint32 ev;

      if (inst != WEFT_NONE)
        {
          g_autoptr (GArray) members = NULL;
          g_autofree WeftSolverPlace *places = NULL;
          WeftSolverCollSpec cs = { 0 };
          WeftCollective *coll = _weft_edit_op_collective (self, op);
          WeftRank *rank = weft_trace_rank (self->trace, op.rank_index);
          guint me = 0;

          if (g_hash_table_contains (instances, GUINT_TO_POINTER (inst + 1)))
            continue;
          g_hash_table_add (instances, GUINT_TO_POINTER (inst + 1));
          members = _weft_edit_instance_members (self, inst);
          places = g_new0 (WeftSolverPlace, members->len);
          for (guint m = 0; m < members->len; m++)
            {
              WeftEventRef r = g_array_index (members, WeftEventRef, m);
              places[m].rank_index = r.rank_index;
              places[m].lane = weft_solver_op_lane (self->solver, r.rank_index, r.event);
              /* at its own start: the copy goes right after it on its stream */
              places[m].at_time = weft_solver_start (self->solver, r.rank_index, r.event);
              if (r.rank_index == op.rank_index)
                me = m;
            }
          cs.type = coll->type;
          cs.kernel_name = _weft_edit_op_name (self, op);
          cs.bytes = coll->bytes;
          cs.dtype = rank_str_or_null (rank, coll->dtype);
          cs.pg_name = rank_str_or_null (rank, coll->pg_name);
          cs.pg_desc = rank_str_or_null (rank, coll->pg_desc);
          cs.transfer_ns = weft_solver_duration (self->solver, op.rank_index, op.event);
          ev = insert_collective_step (self, &cs, places, members->len, &log, error);
          if (ev == WEFT_NONE)
            {
              ok = FALSE;
              break;
            }
          it.rank_index = places[0].rank_index;
          it.event = ev;
          if (new_ops)
            {
              json_object *pl = json_object_object_get (log, "places");
              json_object *p = json_object_array_get_idx (pl, me);
              WeftEventRef nr = { places[me].rank_index,
                               (guint32) json_object_get_int64 (json_object_object_get (p, "event")) };
              g_array_append_val (new_ops, nr);
            }
        }
      else
        {
          WeftSolverOpSpec spec = { 0 };
          WeftEvent *e = _weft_edit_op_event (self, op);
          spec.name = _weft_edit_op_name (self, op);
          spec.category = (WeftCategory) e->category;
          spec.kclass = (WeftKernelClass) e->kclass;
          spec.dur = weft_solver_duration (self->solver, op.rank_index, op.event);
          spec.like_event = op.event;
          ev = insert_kernel_step (self, op.rank_index, weft_solver_op_lane (self->solver, op.rank_index, op.event),
                                   weft_solver_start (self->solver, op.rank_index, op.event), &spec, &log, error);
          if (ev == WEFT_NONE)
            {
              ok = FALSE;
              break;
            }
          it.rank_index = op.rank_index;
          it.event = ev;
          if (new_ops)
            {
              WeftEventRef nr = { op.rank_index, ev };
              g_array_append_val (new_ops, nr);
            }
        }
      g_array_append_val (a->items, it);
      json_object_array_add (a->log, log);
    }
  weft_solver_end_batch (self->solver);
  return finish_steps (self, a, ok);
}

/* ---- move to another rank ----------------------------------------------------------------- */

gboolean
weft_edit_session_move_to_rank (WeftEditSession *self, WeftEventRef op, guint dst_rank_index, guint32 dst_lane,
                        gint64 at_time, WeftEventRef *new_op, GError **error)
{
  WeftSolverOpSpec spec = { 0 };
  WeftEvent *e;
  json_object *ins_log = NULL, *log;
  Action *a;
  Item src = { 0 }, dst = { 0 };
  guint32 ev;
  g_autofree char *name = NULL;

  if (!_weft_edit_check_op (self, op, error))
    return FALSE;
  if (_weft_edit_op_instance (self, op) != WEFT_NONE || _weft_edit_op_collective (self, op) != NULL)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
                   "%s: a collective cannot move to another rank (move its stream, or delete and insert it)",
                   _weft_edit_op_name (self, op));
      return FALSE;
    }
  if (dst_rank_index >= self->trace->ranks->len)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "rank index %u out of range", dst_rank_index);
      return FALSE;
    }
  if (dst_rank_index == op.rank_index)
    return weft_edit_session_move_to_lane (self, op, dst_lane, at_time, FALSE, error);

  e = _weft_edit_op_event (self, op);
  name = g_strdup (_weft_edit_op_name (self, op));
  spec.name = name;
  spec.category = (WeftCategory) e->category;
  spec.kclass = (WeftKernelClass) e->kclass;
  spec.dur = weft_solver_duration (self->solver, op.rank_index, op.event);
  spec.like_event = WEFT_NONE;
  if (at_time < 0)
    at_time = weft_solver_start (self->solver, op.rank_index, op.event);

  weft_solver_begin_batch (self->solver);
  ev = insert_kernel_step (self, dst_rank_index, dst_lane, at_time, &spec, &ins_log, error);
  if (ev == WEFT_NONE)
    {
      weft_solver_end_batch (self->solver);
      return FALSE;
    }
  if (!weft_solver_remove_op (self->solver, op.rank_index, op.event, error))
    {
      g_autoptr (GError) e2 = NULL;
      if (!weft_solver_remove_op (self->solver, dst_rank_index, ev, &e2))
        g_warning ("edit: rolling back a move to another rank: %s", e2->message);
      json_object_put (ins_log);
      weft_solver_end_batch (self->solver);
      return FALSE;
    }
  weft_solver_end_batch (self->solver);

  log = json_object_new_object ();
  json_object_object_add (log, "op", json_object_new_string ("move_to_rank"));
  json_object_object_add (log, "rank", json_object_new_int (_weft_edit_rank_number (self, op.rank_index)));
  json_object_object_add (log, "event", _weft_edit_json_int (op.event));
  json_object_object_add (log, "name", json_object_new_string (name));
  json_object_object_add (log, "to_rank", json_object_new_int (_weft_edit_rank_number (self, dst_rank_index)));
  json_object_object_add (log, "device", json_object_get (json_object_object_get (ins_log, "device")));
  json_object_object_add (log, "stream", json_object_get (json_object_object_get (ins_log, "stream")));
  json_object_object_add (log, "at_ns", _weft_edit_json_int (at_time));
  json_object_object_add (log, "new_event", _weft_edit_json_int (ev));
  json_object_put (ins_log);

  a = _weft_edit_action_new (WEFT_EDIT_MOVE_RANK);
  a->log = json_object_new_array ();
  json_object_array_add (a->log, log);
  src.rank_index = op.rank_index;
  src.event = op.event;
  dst.rank_index = dst_rank_index;
  dst.event = ev;
  g_array_append_val (a->items, src);
  g_array_append_val (a->items, dst);
  if (new_op)
    {
      new_op->rank_index = dst_rank_index;
      new_op->event = ev;
    }
  _weft_edit_commit (self, a);
  return TRUE;
}
