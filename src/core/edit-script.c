/* edit-script.c: running edit-script operations (docs/editing.md) through
 * the edit operations, the script entry points (one operation, a group as
 * one undo entry, a script, a script file), and the edit log: every Action
 * as edit-script operations (edit-private.h). Reading the operations' fields
 * is edit-script-parse.c. */
#include "config.h"

#include <string.h>

#include "edit-script-private.h"

/* ---- the edit log ------------------------------------------------------------------------------ */

static void
item_log (WeftEditSession *self, WeftEditTag tag, const Item *it, json_object *out)
{
  WeftEventRef ref = { it->rank_index, it->event };
  json_object *o = json_object_new_object ();

  switch (tag)
    {
    case WEFT_EDIT_MIN_START:
      json_object_object_add (o, "op", json_object_new_string ("set_min_start"));
      break;
    case WEFT_EDIT_DURATION:
      json_object_object_add (o, "op", json_object_new_string ("set_duration"));
      break;
    case WEFT_EDIT_POSITION:
      json_object_object_add (o, "op", json_object_new_string ("move_to_position"));
      break;
    case WEFT_EDIT_DELETE:
      json_object_object_add (o, "op", json_object_new_string ("delete"));
      break;
    default:
      g_assert_not_reached ();
    }
  json_object_object_add (o, "rank", json_object_new_int (_weft_edit_rank_number (self, it->rank_index)));
  json_object_object_add (o, "event", _weft_edit_json_int (it->event));
  json_object_object_add (o, "name", json_object_new_string (_weft_edit_op_name (self, ref)));
  switch (tag)
    {
    case WEFT_EDIT_MIN_START:
      json_object_object_add (o, "start_ns", _weft_edit_json_int (it->new_v));
      break;
    case WEFT_EDIT_DURATION:
      json_object_object_add (o, "dur_ns", _weft_edit_json_int (it->new_v));
      json_object_object_add (o, "was_ns", _weft_edit_json_int (it->old_v));
      break;
    case WEFT_EDIT_POSITION:
      {
        WeftRank *rank = weft_trace_rank (self->trace, it->rank_index);
        WeftLane *l = weft_rank_lane (rank, it->new_lane);
        json_object_object_add (o, "device", json_object_new_int (l->device));
        json_object_object_add (o, "stream", _weft_edit_json_int (l->tid));
        json_object_object_add (o, "position", _weft_edit_json_int (it->new_pos));
      }
      break;
    default:
      break;
    }
  json_object_array_add (out, o);
}

void
_weft_edit_action_log (WeftEditSession *self, Action *a, json_object *out)
{
  if (a->log != NULL)
    {
      for (size_t i = 0; i < json_object_array_length (a->log); i++)
        json_object_array_add (out, json_object_get (json_object_array_get_idx (a->log, i)));
      return;
    }
  if (a->tag == WEFT_EDIT_POSITION && a->items->len > 1)
    {
      /* moves checked together must be replayed together: one entry */
      json_object *moves = json_object_new_array ();
      json_object *o = json_object_new_object ();
      for (guint i = 0; i < a->items->len; i++)
        {
          json_object *one;
          item_log (self, a->tag, &g_array_index (a->items, Item, i), moves);
          one = json_object_array_get_idx (moves, i);
          json_object_object_del (one, "op");
        }
      json_object_object_add (o, "op", json_object_new_string ("move_to_position"));
      json_object_object_add (o, "moves", moves);
      json_object_array_add (out, o);
      return;
    }
  for (guint i = 0; i < a->items->len; i++)
    item_log (self, a->tag, &g_array_index (a->items, Item, i), out);
}

typedef struct
{
  WeftEditSession *self;
  json_object     *out;
  json_object     *cur;
  guint            cur_entry;
  gboolean         grouped;
} LogCtx;

static void
log_one (guint entry, guint tag, gpointer action, gpointer user_data)
{
  LogCtx *ctx = user_data;
  (void) tag;
  if (!ctx->grouped)
    {
      _weft_edit_action_log (ctx->self, action, ctx->out);
      return;
    }
  if (ctx->cur == NULL || entry != ctx->cur_entry)
    {
      ctx->cur = json_object_new_array ();
      ctx->cur_entry = entry;
      json_object_array_add (ctx->out, ctx->cur);
    }
  _weft_edit_action_log (ctx->self, action, ctx->cur);
}

json_object *
weft_edit_session_log (WeftEditSession *self)
{
  LogCtx ctx = { self, json_object_new_array (), NULL, 0, FALSE };
  if (self->base_log != NULL)
    for (size_t i = 0; i < json_object_array_length (self->base_log); i++)
      json_object_array_add (ctx.out, json_object_get (json_object_array_get_idx (self->base_log, i)));
  weft_history_foreach_undo (self->history, log_one, &ctx);
  return ctx.out;
}

json_object *
weft_edit_session_log_entries (WeftEditSession *self, gboolean redo)
{
  LogCtx ctx = { self, json_object_new_array (), NULL, 0, TRUE };
  if (redo)
    weft_history_foreach_redo (self->history, log_one, &ctx);
  else
    {
      /* what fell off the history comes first, as one entry */
      if (self->base_log != NULL && json_object_array_length (self->base_log) > 0)
        json_object_array_add (ctx.out, json_object_get (self->base_log));
      weft_history_foreach_undo (self->history, log_one, &ctx);
    }
  return ctx.out;
}


/* ---- edit scripts ------------------------------------------------------------------------------ */

static gboolean
script_scale (WeftEditSession *self, json_object *op, GError **error)
{
  double factor;
  g_autoptr (GArray) refs = NULL;
  const char *s;

  if (!_weft_edit_require_factor (op, &factor, error))
    return FALSE;
  if (!json_object_object_get_ex (op, "event", NULL) && !json_object_object_get_ex (op, "match", NULL))
    {
      gboolean has_coll = json_object_object_get_ex (op, "collective", NULL);
      gboolean has_class = json_object_object_get_ex (op, "class", NULL);
      if (has_coll && !has_class && (s = _weft_json_get_str (op, "collective")) != NULL)
        {
          WeftCollType t;
          if (!_weft_edit_parse_coll (s, &t))
            {
              g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "unknown collective \"%s\"", s);
              return FALSE;
            }
          return weft_edit_session_scale_collective (self, t, factor, NULL, error);
        }
      if (has_class && !has_coll && (s = _weft_json_get_str (op, "class")) != NULL)
        {
          WeftKernelClass k;
          if (!_weft_edit_parse_kclass (s, &k))
            {
              g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "unknown class \"%s\"", s);
              return FALSE;
            }
          return weft_edit_session_scale_class (self, k, factor, NULL, error);
        }
    }
  refs = _weft_edit_resolve_targets (self, op, error);
  if (refs == NULL)
    return FALSE;
  return _weft_edit_retime_refs (self, (WeftEventRef *) (void *) refs->data, refs->len, factor, -1, NULL, NULL, error);
}

static gboolean
script_set_duration (WeftEditSession *self, json_object *op, GError **error)
{
  g_autoptr (GArray) refs = NULL;
  gint64 dur;
  gboolean present;

  if (!_weft_edit_get_span (op, "dur", &dur, &present, error))
    return FALSE;
  if (!present || dur < 0)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "needs \"dur_us\" or \"dur_ns\" >= 0");
      return FALSE;
    }
  refs = _weft_edit_resolve_targets (self, op, error);
  if (refs == NULL)
    return FALSE;
  return _weft_edit_retime_refs (self, (WeftEventRef *) (void *) refs->data, refs->len, 1.0, dur, NULL, NULL, error);
}

gboolean
_weft_edit_one_rank (json_object *op)
{
  json_object *v;
  return json_object_object_get_ex (op, "one_rank", &v) && json_object_get_boolean (v);
}

static gboolean
script_shift (WeftEditSession *self, json_object *op, GError **error)
{
  g_autoptr (GArray) refs = NULL;
  gint64 delta;
  gboolean present;

  if (!_weft_edit_get_span (op, "shift", &delta, &present, error))
    return FALSE;
  if (!present)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "needs \"shift_us\" or \"shift_ns\"");
      return FALSE;
    }
  refs = _weft_edit_resolve_targets (self, op, error);
  if (refs == NULL)
    return FALSE;
  return weft_edit_session_move_selection (self, (WeftEventRef *) (void *) refs->data, refs->len, delta, !_weft_edit_one_rank (op),
                                   error);
}

static gboolean
script_move_time (WeftEditSession *self, json_object *op, GError **error)
{
  g_autoptr (GArray) refs = NULL;
  gint64 start;
  gboolean present;

  if (!_weft_edit_get_time (self, op, "start", &start, &present, error))
    return FALSE;
  if (!present)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "needs \"start_us\" or \"start_ns\"");
      return FALSE;
    }
  refs = _weft_edit_resolve_targets (self, op, error);
  if (refs == NULL)
    return FALSE;
  if (refs->len != 1)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
                   "move_time needs exactly one op (the match selects %u; use \"nth\" or \"shift\")", refs->len);
      return FALSE;
    }
  return weft_edit_session_move_time (self, g_array_index (refs, WeftEventRef, 0), start, !_weft_edit_one_rank (op), error);
}

/* A log entry: set (or clear, start_ns < 0) one op's minimum start. */
static gboolean
script_set_min_start (WeftEditSession *self, json_object *op, GError **error)
{
  g_autoptr (GArray) refs = g_array_new (FALSE, FALSE, sizeof (WeftEventRef));
  WeftEventRef ref;
  gint64 start;

  if (!_weft_edit_explicit_ref (self, op, "rank", "event", &ref, error) || !_weft_edit_check_op (self, ref, error))
    return FALSE;
  if (!_weft_json_get_int64 (op, "start_ns", &start))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "needs an integer \"start_ns\"");
      return FALSE;
    }
  if (start >= 0 && !_weft_edit_check_time (start, error))
    return FALSE;
  if (start < 0)
    start = -1;
  g_array_append_val (refs, ref);
  return _weft_edit_move_refs_to (self, refs, &start, error);
}

static gboolean
script_move_stream (WeftEditSession *self, json_object *op, GError **error)
{
  g_autoptr (GArray) targets = NULL;
  g_autoptr (GArray) refs = g_array_new (FALSE, FALSE, sizeof (WeftEventRef));
  g_autoptr (GHashTable) seen = _weft_edit_ref_set_new ();
  g_autofree guint32 *lanes = NULL;
  g_autofree gint64 *times = NULL;
  gint64 stream, at = -1, device = -1;
  gboolean has_at, whole;

  if (!_weft_edit_get_stream_device (op, &stream, &device, error))
    return FALSE;
  if (!_weft_edit_get_time (self, op, "at", &at, &has_at, error))
    return FALSE;
  if (has_at && !_weft_edit_check_time (at, error))
    return FALSE;
  targets = _weft_edit_resolve_targets (self, op, error);
  if (targets == NULL)
    return FALSE;
  /* an explicit collective op takes its instance along unless one_rank;
   * a match already lists the members it wants */
  whole = json_object_object_get_ex (op, "event", NULL) && !_weft_edit_one_rank (op);
  for (guint i = 0; i < targets->len; i++)
    _weft_edit_add_ref (self, refs, seen, g_array_index (targets, WeftEventRef, i), whole);
  lanes = g_new (guint32, refs->len);
  times = g_new (gint64, refs->len);
  for (guint i = 0; i < refs->len; i++)
    {
      WeftEventRef r = g_array_index (refs, WeftEventRef, i);
      WeftLane *cur = _weft_edit_op_lane (self, r);
      lanes[i] = _weft_edit_stream_lane (self, r.rank_index,
                                         device >= 0 ? (int)MIN (device, G_MAXINT) : (cur ? cur->device : -1), stream);
      times[i] = has_at ? at : weft_solver_start (self->solver, r.rank_index, r.event);
    }
  return _weft_edit_move_refs_to_lanes (self, refs, lanes, times, NULL, error);
}

/* {"op": "move_to_position", "moves": [{rank, event, name, device, stream,
 * position}, ...]}: several moves checked for cycles together (the log's
 * form of a collective moved on every rank at once). */
static gboolean
script_move_many (WeftEditSession *self, json_object *moves, GError **error)
{
  g_autoptr (GArray) refs = g_array_new (FALSE, FALSE, sizeof (WeftEventRef));
  g_autofree guint32 *lanes = NULL;
  g_autofree guint *positions = NULL;
  size_t n;

  if (!json_object_is_type (moves, json_type_array) || (n = json_object_array_length (moves)) == 0 || n > 1u << 24)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "\"moves\" must be a non-empty list");
      return FALSE;
    }
  lanes = g_new (guint32, n);
  positions = g_new (guint, n);
  for (size_t i = 0; i < n; i++)
    {
      json_object *m = json_object_array_get_idx (moves, i);
      WeftEventRef ref;
      gint64 position, stream, device = -1;
      if (!json_object_is_type (m, json_type_object))
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "\"moves\" entries must be objects");
          return FALSE;
        }
      if (!_weft_edit_explicit_ref (self, m, "rank", "event", &ref, error) || !_weft_edit_check_op (self, ref, error))
        return FALSE;
      if (!_weft_json_get_int64 (m, "position", &position) || position < 0 || position > G_MAXINT ||
          !_weft_json_get_int64 (m, "stream", &stream) || stream < 0)
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "a move needs integer \"stream\" and \"position\" >= 0");
          return FALSE;
        }
      if (json_object_object_get_ex (m, "device", NULL)
          && (!_weft_json_get_int64 (m, "device", &device) || device < 0))
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "\"device\" must be an integer >= 0");
          return FALSE;
        }
      lanes[i] = _weft_edit_stream_lane (self, ref.rank_index, device >= 0 ? (int) MIN (device, G_MAXINT) : -1, stream);
      positions[i] = (guint) position;
      g_array_append_val (refs, ref);
    }
  return _weft_edit_move_refs_to_lanes (self, refs, lanes, NULL, positions, error);
}

static gboolean
script_move_to_position (WeftEditSession *self, json_object *op, gboolean reorder, GError **error)
{
  json_object *moves;

  if (!reorder && json_object_object_get_ex (op, "moves", &moves))
    return script_move_many (self, moves, error);

  g_autoptr (GArray) refs = NULL;
  gint64 position, stream, device = -1;
  guint32 lane;
  guint n;
  WeftEventRef ref;
  guint pos;

  if (!_weft_edit_resolve_one_target (self, op, &ref, error))
    return FALSE;
  if (!_weft_json_get_int64 (op, "position", &position) || position < 0)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "needs an integer \"position\" >= 0");
      return FALSE;
    }
  if (reorder)
    lane = weft_solver_op_lane (self->solver, ref.rank_index, ref.event);
  else
    {
      if (!_weft_edit_get_stream_device (op, &stream, &device, error))
        return FALSE;
      lane = _weft_edit_stream_lane (self, ref.rank_index, device >= 0 ? (int) MIN (device, G_MAXINT) : -1, stream);
    }
  n = weft_solver_lane_n_ops (self->solver, ref.rank_index, lane);
  if (lane == weft_solver_op_lane (self->solver, ref.rank_index, ref.event))
    n = n > 0 ? n - 1 : 0;
  if (position > n)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
                   "position %" G_GINT64_FORMAT " is past the end of the stream (%u ops)", position, n);
      return FALSE;
    }
  pos = (guint) position;
  refs = g_array_new (FALSE, FALSE, sizeof (WeftEventRef));
  g_array_append_val (refs, ref);
  return _weft_edit_move_refs_to_lanes (self, refs, &lane, NULL, &pos, error);
}

static gboolean
script_delete (WeftEditSession *self, json_object *op, GError **error)
{
  g_autoptr (GArray) refs = _weft_edit_resolve_targets (self, op, error);
  if (refs == NULL)
    return FALSE;
  return weft_edit_session_delete (self, (WeftEventRef *) (void *) refs->data, refs->len, error);
}

static gboolean
script_duplicate (WeftEditSession *self, json_object *op, GError **error)
{
  g_autoptr (GArray) refs = _weft_edit_resolve_targets (self, op, error);
  if (refs == NULL)
    return FALSE;
  return weft_edit_session_duplicate (self, (WeftEventRef *) (void *) refs->data, refs->len, NULL, error);
}

static gboolean
script_insert_kernel (WeftEditSession *self, json_object *op, GError **error)
{
  WeftPaletteKernel k = { 0 };
  json_object *like;
  guint rank_index;
  gint64 stream, device = -1, at, dur = -1, like_event;
  gboolean has_dur;
  guint32 lane;
  const char *s;
  g_autofree char *name = NULL;

  if (!_weft_edit_script_rank_index (self, op, "rank", &rank_index, error))
    return FALSE;
  if (!_weft_edit_get_stream_device (op, &stream, &device, error))
    return FALSE;
  lane = _weft_edit_stream_lane (self, rank_index, device >= 0 ? (int) MIN (device, G_MAXINT) : -1, stream);
  if (!_weft_edit_script_at (self, op, rank_index, lane, &at, error))
    return FALSE;
  if (!_weft_edit_get_span (op, "dur", &dur, &has_dur, error))
    return FALSE;
  if (has_dur && dur < 0)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "negative duration");
      return FALSE;
    }
  k.category = WEFT_CAT_KERNEL;
  k.kclass = WEFT_KCLASS_OTHER;
  k.example.rank_index = G_MAXUINT;
  k.median_dur = -1;
  if (json_object_object_get_ex (op, "like", &like))
    {
      /* a kernel of the profile: the first op matching "like" */
      Match m;
      g_autoptr (GArray) hits = NULL;
      WeftEventRef src;
      WeftEvent *e;
      if (!_weft_edit_match_parse (like, &m, error))
        {
          _weft_edit_match_clear (&m);
          return FALSE;
        }
      hits = _weft_edit_match_run (self, &m);
      _weft_edit_match_clear (&m);
      if (hits->len == 0)
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "\"like\" selects no op");
          return FALSE;
        }
      src = g_array_index (hits, WeftEventRef, 0);
      if (_weft_edit_op_collective (self, src) != NULL)
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
                       "\"like\" selects a collective: use insert_collective");
          return FALSE;
        }
      e = _weft_edit_op_event (self, src);
      name = g_strdup (_weft_edit_op_name (self, src));
      k.category = (WeftCategory) e->category;
      k.kclass = (WeftKernelClass) e->kclass;
      k.median_dur = weft_solver_duration (self->solver, src.rank_index, src.event);
      k.example = src;
    }
  else
    {
      if ((s = _weft_json_get_str (op, "name")) == NULL)
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "needs \"like\" (a match) or a \"name\"");
          return FALSE;
        }
      name = g_strdup (s);
      if ((s = _weft_json_get_str (op, "class")) != NULL && !_weft_edit_parse_kclass (s, &k.kclass))
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "unknown class \"%s\"", s);
          return FALSE;
        }
      if (k.kclass == WEFT_KCLASS_COMM)
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "a communication kernel: use insert_collective");
          return FALSE;
        }
      if ((s = _weft_json_get_str (op, "category")) != NULL)
        {
          WeftCategory c = weft_category_from_string (s, strlen (s));
          if (c != WEFT_CAT_KERNEL && c != WEFT_CAT_GPU_MEMCPY && c != WEFT_CAT_GPU_MEMSET)
            {
              g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "category \"%s\" is not a GPU op", s);
              return FALSE;
            }
          k.category = c;
        }
      if (_weft_json_get_int64 (op, "like_event", &like_event))
        {
          WeftRank *rank = weft_trace_rank (self->trace, rank_index);
          if (like_event < 0 || like_event >= rank->events->len)
            {
              g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "\"like_event\" %" G_GINT64_FORMAT " out of range",
                           like_event);
              return FALSE;
            }
          k.example.rank_index = rank_index;
          k.example.event = (guint32) like_event;
        }
      if (!has_dur)
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "needs \"dur_us\" or \"dur_ns\"");
          return FALSE;
        }
    }
  k.name = name;
  if (!_weft_edit_check_expected_event (self, op, "event", rank_index, error))
    return FALSE;
  return weft_edit_session_insert_kernel (self, rank_index, lane, at, &k, has_dur ? dur : k.median_dur, NULL, error);
}

/* insert_collective in the log's exact form: one place per rank. */
static gboolean
insert_collective_at_places (WeftEditSession *self, json_object *op, json_object *places_j, WeftCollType type,
                             gint64 bytes, gint64 transfer, GError **error)
{
  WeftSolverCollSpec cs = { 0 };
  size_t n;
  g_autofree WeftSolverPlace *places = NULL;
  g_autofree int *numbers = NULL;

  if (!json_object_is_type (places_j, json_type_array) || (n = json_object_array_length (places_j)) == 0 ||
      n > self->trace->ranks->len)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "\"places\" must be a non-empty list, one per rank");
      return FALSE;
    }
  places = g_new0 (WeftSolverPlace, n);
  numbers = g_new0 (int, n);
  for (size_t i = 0; i < n; i++)
    {
      json_object *p = json_object_array_get_idx (places_j, i);
      gint64 stream, device = -1;
      guint ri;
      if (!json_object_is_type (p, json_type_object) || !_weft_edit_script_rank_index (self, p, "rank", &ri, error))
        {
          if (error && *error == NULL)
            g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "\"places\" entries must be objects");
          return FALSE;
        }
      if (!_weft_json_get_int64 (p, "stream", &stream) || !_weft_json_get_int64 (p, "at_ns", &places[i].at_time)
          || stream < 0
          || (json_object_object_get_ex (p, "device", NULL)
              && (!_weft_json_get_int64 (p, "device", &device) || device < 0)))
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
                       "a place needs integer \"stream\" >= 0 and \"at_ns\" (and \"device\" >= 0 if any)");
          return FALSE;
        }
      if (!_weft_edit_check_time (places[i].at_time, error))
        return FALSE;
      _weft_json_get_int64 (p, "device", &device);
      for (size_t j = 0; j < i; j++)
        if (places[j].rank_index == ri)
          {
            g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "\"places\" lists a rank twice");
            return FALSE;
          }
      if (!_weft_edit_check_expected_event (self, p, "event", ri, error))
        return FALSE;
      places[i].rank_index = ri;
      places[i].lane = _weft_edit_stream_lane (self, ri, device >= 0 ? (int) MIN (device, G_MAXINT) : -1, stream);
      numbers[i] = _weft_edit_rank_number (self, ri);
    }
  cs.type = type;
  cs.bytes = bytes;
  cs.dtype = _weft_json_get_str (op, "dtype");
  cs.pg_name = _weft_json_get_str (op, "pg_name");
  cs.pg_desc = _weft_json_get_str (op, "pg_desc");
  cs.kernel_name = _weft_json_get_str (op, "kernel_name");
  if (transfer > MAX_DUR_NS)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "\"transfer_ns\" out of range");
      return FALSE;
    }
  cs.transfer_ns = transfer >= 0 ? transfer
                                 : weft_cost_model_estimate_group (weft_edit_session_get_cost_model (self), type,
                                                                   bytes, cs.pg_name, numbers, (guint) n, NULL);
  return _weft_edit_insert_collective_places (self, &cs, places, (guint) n, NULL, error);
}

/* insert_collective on "ranks" (or every rank), at one time. */
static gboolean
insert_collective_on_ranks (WeftEditSession *self, json_object *op, WeftCollType type, gint64 bytes, gint64 transfer,
                            GError **error)
{
  json_object *ranks_j;
  WeftEditCollSpec spec = { 0 };
  g_autoptr (GArray) ranks = g_array_new (FALSE, FALSE, sizeof (int));
  gint64 stream;
  guint first = 0;

  if (!_weft_json_get_int64 (op, "stream", &stream) || stream < 0)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "needs an integer \"stream\" >= 0");
      return FALSE;
    }
  if (json_object_object_get_ex (op, "ranks", &ranks_j))
    {
      if (!json_object_is_type (ranks_j, json_type_array) || json_object_array_length (ranks_j) == 0)
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "\"ranks\" must be a non-empty list of rank numbers");
          return FALSE;
        }
      for (size_t i = 0; i < json_object_array_length (ranks_j); i++)
        {
          json_object *e = json_object_array_get_idx (ranks_j, i);
          int r;
          if (!json_object_is_type (e, json_type_int))
            {
              g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "\"ranks\" must hold integers");
              return FALSE;
            }
          r = (int) CLAMP (json_object_get_int64 (e), G_MININT, G_MAXINT);
          g_array_append_val (ranks, r);
        }
      spec.ranks = (const int *) (void *) ranks->data;
      spec.n_ranks = ranks->len;
      {
        int idx = weft_trace_find_rank (self->trace, g_array_index (ranks, int, 0));
        first = idx >= 0 ? (guint) idx : 0;
      }
    }
  if (!_weft_edit_script_at (self, op, first, _weft_edit_stream_lane (self, first, -1, stream), &spec.at_time, error))
    return FALSE;
  spec.type = type;
  spec.bytes = bytes;
  spec.stream = stream;
  spec.pg_name = _weft_json_get_str (op, "pg_name");
  spec.dtype = _weft_json_get_str (op, "dtype");
  spec.transfer_ns = transfer;
  return weft_edit_session_insert_collective (self, &spec, NULL, error);
}

static gboolean
script_insert_collective (WeftEditSession *self, json_object *op, GError **error)
{
  WeftCollType type;
  const char *s;
  gint64 bytes, transfer = -1;
  json_object *places_j;

  if ((s = _weft_json_get_str (op, "collective")) == NULL || !_weft_edit_parse_coll (s, &type)
      || type == WEFT_COLL_NONE)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "needs a \"collective\" type (all_reduce, all_gather, ...)");
      return FALSE;
    }
  if (!_weft_json_get_int64 (op, "bytes", &bytes) || bytes <= 0)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "needs an integer \"bytes\" > 0");
      return FALSE;
    }
  if (json_object_object_get_ex (op, "transfer_ns", NULL)
      && (!_weft_json_get_int64 (op, "transfer_ns", &transfer) || transfer < 0))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "\"transfer_ns\" must be an integer >= 0");
      return FALSE;
    }

  if (json_object_object_get_ex (op, "places", &places_j))
    return insert_collective_at_places (self, op, places_j, type, bytes, transfer, error);
  return insert_collective_on_ranks (self, op, type, bytes, transfer, error);
}

static gboolean
script_move_to_rank (WeftEditSession *self, json_object *op, GError **error)
{
  WeftEventRef ref;
  guint dst;
  gint64 stream, device = -1, at = -1;
  gboolean has_at;

  if (!_weft_edit_resolve_one_target (self, op, &ref, error))
    return FALSE;
  if (!_weft_edit_script_rank_index (self, op, "to_rank", &dst, error))
    return FALSE;
  if (!_weft_edit_get_stream_device (op, &stream, &device, error))
    return FALSE;
  if (!_weft_edit_get_time (self, op, "at", &at, &has_at, error))
    return FALSE;
  if (has_at && !_weft_edit_check_time (at, error))
    return FALSE;
  if (dst != ref.rank_index && !_weft_edit_check_expected_event (self, op, "new_event", dst, error))
    return FALSE;
  return weft_edit_session_move_to_rank (
      self, ref, dst, _weft_edit_stream_lane (self, dst, device >= 0 ? (int)MIN (device, G_MAXINT) : -1, stream),
      has_at ? at : -1, NULL, error);
}

/* One operation, no grouping of its own. */
static gboolean
apply_op (WeftEditSession *self, json_object *op, GError **error)
{
  const char *kind;

  if (!json_object_is_type (op, json_type_object) || (kind = _weft_json_get_str (op, "op")) == NULL)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "an operation must be an object with a string \"op\"");
      return FALSE;
    }
  if (strcmp (kind, "scale") == 0)
    return script_scale (self, op, error);
  if (strcmp (kind, "set_duration") == 0)
    return script_set_duration (self, op, error);
  if (strcmp (kind, "shift") == 0)
    return script_shift (self, op, error);
  if (strcmp (kind, "move_time") == 0)
    return script_move_time (self, op, error);
  if (strcmp (kind, "set_min_start") == 0)
    return script_set_min_start (self, op, error);
  if (strcmp (kind, "move_stream") == 0 || strcmp (kind, "move_to_stream") == 0)
    return script_move_stream (self, op, error);
  if (strcmp (kind, "move_to_position") == 0)
    return script_move_to_position (self, op, FALSE, error);
  if (strcmp (kind, "reorder") == 0)
    return script_move_to_position (self, op, TRUE, error);
  if (strcmp (kind, "delete") == 0)
    return script_delete (self, op, error);
  if (strcmp (kind, "duplicate") == 0)
    return script_duplicate (self, op, error);
  if (strcmp (kind, "insert_kernel") == 0)
    return script_insert_kernel (self, op, error);
  if (strcmp (kind, "insert_collective") == 0)
    return script_insert_collective (self, op, error);
  if (strcmp (kind, "move_to_rank") == 0)
    return script_move_to_rank (self, op, error);
  g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "unknown op \"%s\"", kind);
  return FALSE;
}

gboolean
weft_edit_session_apply_group (WeftEditSession *self, json_object *ops, GError **error)
{
  gboolean ok = TRUE;
  GError *local = NULL;

  if (weft_history_get_group_depth (self->history) > 0)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "cannot apply edits while a gesture is in progress");
      return FALSE;
    }
  weft_history_begin_group (self->history);
  for (size_t i = 0; i < json_object_array_length (ops) && ok; i++)
    ok = apply_op (self, json_object_array_get_idx (ops, i), &local);
  if (!ok)
    {
      g_autoptr (GError) e2 = NULL;
      if (!weft_history_cancel_group (self->history, &e2))
        g_warning ("edit: rolling back a script operation: %s", e2->message);
      _weft_edit_notify_changed (self);
      g_propagate_error (error, local);
      return FALSE;
    }
  weft_history_end_group (self->history);
  return TRUE;
}

gboolean
weft_edit_session_apply_json (WeftEditSession *self, json_object *op, GError **error)
{
  json_object *one = json_object_new_array ();
  gboolean ok;
  json_object_array_add (one, json_object_get (op));
  ok = weft_edit_session_apply_group (self, one, error);
  json_object_put (one);
  return ok;
}

gboolean
weft_edit_session_apply_script (WeftEditSession *self, json_object *script, const char *name, guint *n_applied,
                                GError **error)
{
  json_object *ops = script;

  if (n_applied)
    *n_applied = 0;
  if (name == NULL)
    name = "script";
  if (json_object_is_type (script, json_type_object) && !json_object_object_get_ex (script, "op", NULL))
    {
      if (!json_object_object_get_ex (script, "ops", &ops))
        ops = NULL;
    }
  else if (json_object_is_type (script, json_type_object))
    {
      /* a single operation */
      GError *local = NULL;
      if (!weft_edit_session_apply_json (self, script, &local))
        {
          g_set_error (error, local->domain, local->code, "%s: op 0: %s", name, local->message);
          g_error_free (local);
          return FALSE;
        }
      if (n_applied)
        *n_applied = 1;
      return TRUE;
    }
  if (ops == NULL || !json_object_is_type (ops, json_type_array))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
                   "%s: a script is a JSON array of operations or an object with an \"ops\" array", name);
      return FALSE;
    }
  for (size_t i = 0; i < json_object_array_length (ops); i++)
    {
      GError *local = NULL;
      json_object *op = json_object_array_get_idx (ops, i);
      if (!weft_edit_session_apply_json (self, op, &local))
        {
          g_set_error (error, local->domain, local->code, "%s: op %zu (%s): %s", name, i,
                       json_object_is_type (op, json_type_object) && _weft_json_get_str (op, "op")
                           ? _weft_json_get_str (op, "op")
                           : "?",
                       local->message);
          g_error_free (local);
          return FALSE;
        }
      if (n_applied)
        (*n_applied)++;
    }
  return TRUE;
}

gboolean
weft_edit_session_apply_script_file (WeftEditSession *self, const char *path, guint *n_applied, GError **error)
{
  g_autofree char *text = NULL;
  gsize len;

  if (!g_file_get_contents (path, &text, &len, error))
    return FALSE;
  return weft_edit_session_apply_script_data (self, path, text, len, n_applied, error);
}

gboolean
weft_edit_session_apply_script_data (WeftEditSession *self, const char *path, const char *text, gsize len,
                                     guint *n_applied, GError **error)
{
  json_tokener *tok;
  json_object *script;
  enum json_tokener_error jerr;
  gboolean ok;

  g_return_val_if_fail (self != NULL && path != NULL && (text != NULL || len == 0), FALSE);
  if (len > 64u << 20)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_TOO_LARGE, "%s: script larger than 64 MiB", path);
      return FALSE;
    }
  tok = json_tokener_new_ex (64);
  script = json_tokener_parse_ex (tok, text != NULL ? text : "", (int) len);
  jerr = json_tokener_get_error (tok);
  if (script == NULL || jerr != json_tokener_success)
    {
      /* json_tokener_continue ("continue") means the text ended early */
      if (jerr == json_tokener_continue || (script == NULL && jerr == json_tokener_success))
        g_set_error (error, WEFT_ERROR, WEFT_ERROR_FORMAT, "%s: byte %zu: unexpected end of script%s", path, len,
                     len == 0 ? " (the file is empty)" : " (truncated JSON)");
      else
        g_set_error (error, WEFT_ERROR, WEFT_ERROR_FORMAT, "%s: byte %zu: %s", path,
                     json_tokener_get_parse_end (tok), json_tokener_error_desc (jerr));
      json_tokener_free (tok);
      if (script)
        json_object_put (script);
      return FALSE;
    }
  json_tokener_free (tok);
  ok = weft_edit_session_apply_script (self, script, path, n_applied, error);
  json_object_put (script);
  return ok;
}
