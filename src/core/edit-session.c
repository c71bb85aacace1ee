/* edit-session.c: the edit session (trace + solver + history): its
 * lifecycle, the Action engine (applying, undoing and redoing an operation's
 * items all or nothing), the history glue, undo/redo and gestures, metrics
 * and saving. The operations are in edit-ops.c and edit-insert.c, scripts
 * and the edit log in edit-script.c (edit-private.h). */
#include "config.h"

#include <string.h>

#include "edit-private.h"
#include "weft/weft-save.h"

/* ---- actions -------------------------------------------------------------------- */

Action *
_weft_edit_action_new (WeftEditTag tag)
{
  Action *a = g_new0 (Action, 1);
  a->tag = tag;
  a->items = g_array_new (FALSE, TRUE, sizeof (Item));
  return a;
}

void
_weft_edit_action_free (Action *a)
{
  if (a == NULL)
    return;
  g_array_free (a->items, TRUE);
  if (a->log != NULL)
    json_object_put (a->log);
  if (a->deps_before != NULL)
    g_array_free (a->deps_before, TRUE);
  if (a->deps_after != NULL)
    g_array_free (a->deps_after, TRUE);
  g_free (a);
}

/* Applies item i of a forward (undo FALSE) or backward. */
gboolean
_weft_edit_item_apply (WeftEditSession *self, Action *a, guint i, gboolean undo, GError **error)
{
  Item *it = &g_array_index (a->items, Item, i);
  WeftSolver *s = self->solver;

  switch (a->tag)
    {
    case WEFT_EDIT_MIN_START:
      return weft_solver_set_min_start (s, it->rank_index, it->event, undo ? it->old_v : it->new_v, error);
    case WEFT_EDIT_DURATION:
      return weft_solver_set_duration (s, it->rank_index, it->event, undo ? it->old_v : it->new_v, error);
    case WEFT_EDIT_POSITION:
      return weft_solver_move_to_position (s, it->rank_index, it->event, undo ? it->old_lane : it->new_lane,
                                           undo ? it->old_pos : it->new_pos, error);
    case WEFT_EDIT_INSERT:
      return undo ? weft_solver_remove_op (s, it->rank_index, it->event, error)
                  : weft_solver_restore_op (s, it->rank_index, it->event, error);
    case WEFT_EDIT_DELETE:
      return undo ? weft_solver_restore_op (s, it->rank_index, it->event, error)
                  : weft_solver_remove_op (s, it->rank_index, it->event, error);
    case WEFT_EDIT_MOVE_RANK:
      /* item 0: the source op (removed), item 1: its copy (created). Forward:
       * remove the source, restore the copy; backward the reverse. */
      if (undo == (i == 0))
        return weft_solver_restore_op (s, it->rank_index, it->event, error);
      return weft_solver_remove_op (s, it->rank_index, it->event, error);
    default:
      break;
    }
  g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "unknown edit action %d", a->tag);
  return FALSE;
}

/* POSITION: every move at once through weft_solver_move_many (checked for
 * cycles together: moving a collective on every rank is fine where moving
 * it on one rank first would be a deadlock). Forward: the moves in order to
 * (new lane, new position); backward: in reverse order to (old lane, old
 * position). Positions are sequential: each one is in its lane's order
 * after the moves before it. */
static gboolean
is_wait_kind (WeftDepKind kind)
{
  return kind == WEFT_DEP_CROSS_STREAM || kind == WEFT_DEP_EXPLICIT;
}

/* The cross-stream / explicit waits of every item's op on other ops. */
GArray *
_weft_edit_record_deps (WeftEditSession *self, Action *a)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (DepRec));
  WeftSolverDep buf[32];

  for (guint i = 0; i < a->items->len; i++)
    {
      const Item *it = &g_array_index (a->items, Item, i);
      guint n = weft_solver_preds (self->solver, it->rank_index, it->event, buf, G_N_ELEMENTS (buf));
      WeftSolverDep *deps = buf;
      g_autofree WeftSolverDep *big = NULL;

      if (n > G_N_ELEMENTS (buf))
        {
          big = g_new (WeftSolverDep, n);
          n = weft_solver_preds (self->solver, it->rank_index, it->event, big, n);
          deps = big;
        }
      for (guint k = 0; k < n; k++)
        if (is_wait_kind (deps[k].kind) && weft_solver_is_node (self->solver, deps[k].rank_index, deps[k].event))
          {
            DepRec d = { i, deps[k].rank_index, deps[k].event, deps[k].gap };
            g_array_append_val (out, d);
          }
    }
  return out;
}

static gboolean
dep_in (const GArray *set, const DepRec *d)
{
  for (guint j = 0; j < set->len; j++)
    {
      const DepRec *t = &g_array_index (set, DepRec, j);
      if (t->item == d->item && t->rank_index == d->rank_index && t->event == d->event && t->gap == d->gap)
        return TRUE;
    }
  return FALSE;
}

/* Removes the waits of the items' ops that target does not have; returns
 * them (to put back if the move fails). */
static GArray *
drop_deps (WeftEditSession *self, Action *a, GArray *target)
{
  g_autoptr (GArray) now = _weft_edit_record_deps (self, a);
  GArray *dropped = g_array_new (FALSE, FALSE, sizeof (DepRec));

  for (guint i = 0; i < now->len; i++)
    {
      const DepRec *c = &g_array_index (now, DepRec, i);
      const Item *it = &g_array_index (a->items, Item, c->item);
      if (!dep_in (target, c) &&
          weft_solver_remove_dependency (self->solver, c->rank_index, c->event, it->rank_index, it->event))
        g_array_append_val (dropped, *c);
    }
  return dropped;
}

/* Adds the waits of deps the items' ops do not have yet. */
static void
add_deps (WeftEditSession *self, Action *a, GArray *deps)
{
  g_autoptr (GArray) now = _weft_edit_record_deps (self, a);

  for (guint j = 0; j < deps->len; j++)
    {
      const DepRec *t = &g_array_index (deps, DepRec, j);
      const Item *it = &g_array_index (a->items, Item, t->item);
      if (!dep_in (now, t))
        {
          g_autoptr (GError) e = NULL;
          if (!weft_solver_add_dependency (self->solver, t->rank_index, t->event, it->rank_index, it->event, t->gap,
                                           &e))
            g_warning ("edit: rolling back a wait of a moved op: %s", e->message);
        }
    }
}

/* Undo and redo put back a state that existed: its stream orders and its
 * waits. First the waits of the moved ops that state did not have go, then
 * the ops move exactly (the solver adds no wait on the op each leaves
 * behind: moving back across streams used to add one, which could close a
 * cycle and refuse the undo), then the waits it had come back. Every state
 * in between has a subset of that state's dependencies, so none is a
 * cycle. The first application keeps the solver's own rules. */
static gboolean
position_apply (WeftEditSession *self, Action *a, gboolean undo, GError **error)
{
  guint n = a->items->len;
  g_autofree WeftSolverMove *moves = g_new0 (WeftSolverMove, MAX (n, 1));
  GArray *target = undo ? a->deps_before : a->deps_after;
  g_autoptr (GArray) dropped = NULL;
  gboolean ok;

  for (guint k = 0; k < n; k++)
    {
      const Item *it = &g_array_index (a->items, Item, undo ? n - 1 - k : k);
      moves[k].rank_index = it->rank_index;
      moves[k].event = it->event;
      moves[k].lane = undo ? it->old_lane : it->new_lane;
      moves[k].position = undo ? it->old_pos : it->new_pos;
      moves[k].exact = target != NULL;
    }
  weft_solver_begin_batch (self->solver);
  if (target != NULL)
    dropped = drop_deps (self, a, target);
  ok = weft_solver_move_many (self->solver, moves, n, error);
  if (ok && target != NULL)
    {
      /* the move drops waits its new stream order covers: put back what
       * the state had, remove anything else */
      g_array_free (drop_deps (self, a, target), TRUE);
      add_deps (self, a, target);
    }
  else if (!ok && dropped != NULL)
    add_deps (self, a, dropped);
  weft_solver_end_batch (self->solver);
  return ok;
}

/* All items forward (in order) or backward (reverse order); all or nothing. */
gboolean
_weft_edit_action_apply (WeftEditSession *self, Action *a, gboolean undo, GError **error)
{
  guint n = a->items->len;
  guint done;
  gboolean ok = TRUE;

  if (a->tag == WEFT_EDIT_POSITION)
    return position_apply (self, a, undo, error);

  weft_solver_begin_batch (self->solver);
  for (done = 0; done < n; done++)
    {
      guint i = undo ? n - 1 - done : done;
      if (!_weft_edit_item_apply (self, a, i, undo, error))
        {
          ok = FALSE;
          break;
        }
    }
  if (!ok)
    while (done > 0)
      {
        g_autoptr (GError) e2 = NULL;
        guint i;
        done--;
        i = undo ? n - 1 - done : done;
        if (!_weft_edit_item_apply (self, a, i, !undo, &e2))
          g_warning ("edit: rolling back: %s", e2->message);
      }
  weft_solver_end_batch (self->solver);
  return ok;
}

/* ---- history glue ----------------------------------------------------------------- */

void
_weft_edit_notify_changed (WeftEditSession *self)
{
  self->serial++;
  if (self->changed_func != NULL)
    self->changed_func (self, self->changed_data);
}

static gboolean
history_apply (gpointer user_data, guint tag, gpointer action, gboolean undo, GError **error)
{
  WeftEditSession *self = user_data;
  (void) tag;
  return _weft_edit_action_apply (self, action, undo, error);
}

static gboolean
items_same_ops (const Action *a, const Action *b)
{
  if (a->items->len != b->items->len)
    return FALSE;
  for (guint i = 0; i < a->items->len; i++)
    {
      const Item *x = &g_array_index (a->items, Item, i);
      const Item *y = &g_array_index (b->items, Item, i);
      if (x->rank_index != y->rank_index || x->event != y->event)
        return FALSE;
    }
  return TRUE;
}

static gboolean
history_merge (gpointer user_data, guint tag, gpointer prev, gpointer next)
{
  Action *p = prev, *n = next;
  (void) user_data;

  if (tag != WEFT_EDIT_MIN_START && tag != WEFT_EDIT_DURATION && tag != WEFT_EDIT_POSITION)
    return FALSE;
  if (p->log != NULL || n->log != NULL)
    return FALSE; /* logged by description (a whole-class scale) */
  if (!items_same_ops (p, n))
    return FALSE;
  if (tag == WEFT_EDIT_POSITION)
    {
      /* sequential positions compose only when no two moves share a rank */
      for (guint i = 0; i < p->items->len; i++)
        for (guint j = 0; j < i; j++)
          if (g_array_index (p->items, Item, i).rank_index == g_array_index (p->items, Item, j).rank_index)
            return FALSE;
    }
  for (guint i = 0; i < p->items->len; i++)
    {
      Item *x = &g_array_index (p->items, Item, i);
      const Item *y = &g_array_index (n->items, Item, i);
      x->new_v = y->new_v;
      x->new_lane = y->new_lane;
      x->new_pos = y->new_pos;
    }
  if (tag == WEFT_EDIT_POSITION)
    {
      if (p->deps_after != NULL)
        g_array_free (p->deps_after, TRUE);
      p->deps_after = g_steal_pointer (&n->deps_after);
    }
  return TRUE;
}

static void
history_free_action (gpointer user_data, guint tag, gpointer action)
{
  (void) user_data;
  (void) tag;
  _weft_edit_action_free (action);
}

static void
history_dropped (gpointer user_data, guint tag, gpointer action)
{
  WeftEditSession *self = user_data;
  (void) tag;
  /* still applied, no longer undoable: keep it in the log */
  if (self->base_log == NULL)
    self->base_log = json_object_new_array ();
  _weft_edit_action_log (self, action, self->base_log);
}

static void
history_change_state (gpointer user_data, gboolean is_modified, gboolean can_undo, gboolean can_redo)
{
  WeftEditSession *self = user_data;
  if (self->state_func != NULL)
    self->state_func (self, is_modified, can_undo, can_redo, self->state_data);
}

static const WeftHistoryFuncs history_funcs = {
  .apply = history_apply,
  .merge = history_merge,
  .free_action = history_free_action,
  .dropped = history_dropped,
  .change_state = history_change_state,
};

/* Records an action that has been applied. */
void
_weft_edit_commit (WeftEditSession *self, Action *a)
{
  weft_history_push (self->history, a->tag, a);
  _weft_edit_notify_changed (self);
}

/* ---- lifecycle ------------------------------------------------------------------- */

static json_object *
find_previous_weft (WeftTrace *trace)
{
  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);
      for (guint k = 0; k < rank->top_keys->len; k++)
        {
          WeftTopKey *key = &g_array_index (rank->top_keys, WeftTopKey, k);
          if (strcmp (weft_rank_string (rank, key->key), "weft") == 0)
            return json_tokener_parse (key->raw);
        }
    }
  return NULL;
}

WeftEditSession *
weft_edit_session_new (WeftTrace *trace, const char *source_path, GError **error)
{
  WeftEditSession *self;
  WeftSolver *solver;

  g_return_val_if_fail (trace != NULL, NULL);

  solver = weft_solver_new (trace, error);
  if (solver == NULL)
    return NULL;
  self = g_new0 (WeftEditSession, 1);
  self->trace = trace;
  self->solver = solver;
  self->history = weft_history_new (&history_funcs, self);
  self->source_path = g_strdup (source_path);
  self->previous_weft = find_previous_weft (trace);
  self->origin = weft_trace_time_span (trace).begin;
  if (source_path != NULL)
    self->file_stamp = weft_recovery_stamp (source_path);
  return self;
}

void
weft_edit_session_free (WeftEditSession *self)
{
  if (self == NULL)
    return;
  weft_history_free (self->history);
  weft_solver_free (self->solver);
  weft_trace_free (self->trace);
  if (self->cost_model != NULL)
    weft_cost_model_free (self->cost_model);
  if (self->previous_weft != NULL)
    json_object_put (self->previous_weft);
  if (self->base_log != NULL)
    json_object_put (self->base_log);
  g_clear_pointer (&self->gesture_base, g_hash_table_destroy);
  if (self->file_stamp != NULL)
    json_object_put (self->file_stamp);
  g_free (self->source_path);
  g_free (self);
}

WeftTrace *
weft_edit_session_get_trace (WeftEditSession *self)
{
  return self->trace;
}

WeftSolver *
weft_edit_session_get_solver (WeftEditSession *self)
{
  return self->solver;
}

WeftHistory *
weft_edit_session_get_history (WeftEditSession *self)
{
  return self->history;
}

const char *
weft_edit_session_get_source_path (WeftEditSession *self)
{
  return self->source_path;
}

WeftCostModel *
weft_edit_session_get_cost_model (WeftEditSession *self)
{
  if (self->cost_model == NULL)
    {
      self->cost_model = weft_cost_model_new (NULL);
      weft_cost_model_fit_trace (self->cost_model, self->trace);
    }
  return self->cost_model;
}

void
weft_edit_session_set_changed_func (WeftEditSession *self, WeftEditChangedFunc func, gpointer user_data)
{
  self->changed_func = func;
  self->changed_data = user_data;
}

void
weft_edit_session_set_state_func (WeftEditSession *self, WeftEditStateFunc func, gpointer user_data)
{
  self->state_func = func;
  self->state_data = user_data;
}

guint64
weft_edit_session_get_serial (WeftEditSession *self)
{
  return self->serial;
}

/* ---- undo / redo -------------------------------------------------------------------- */

gboolean
weft_edit_session_undo (WeftEditSession *self, GError **error)
{
  if (!weft_history_undo (self->history, error))
    return FALSE;
  _weft_edit_notify_changed (self);
  return TRUE;
}

gboolean
weft_edit_session_redo (WeftEditSession *self, GError **error)
{
  if (!weft_history_redo (self->history, error))
    return FALSE;
  _weft_edit_notify_changed (self);
  return TRUE;
}

gboolean
weft_edit_session_can_undo (WeftEditSession *self)
{
  return weft_history_get_can_undo (self->history);
}

gboolean
weft_edit_session_can_redo (WeftEditSession *self)
{
  return weft_history_get_can_redo (self->history);
}

gboolean
weft_edit_session_is_modified (WeftEditSession *self)
{
  return weft_history_get_modified (self->history);
}

void
weft_edit_session_begin_gesture (WeftEditSession *self)
{
  if (self->gesture_depth++ == 0 && self->gesture_base != NULL)
    g_hash_table_remove_all (self->gesture_base);
  weft_history_begin_group (self->history);
}

void
weft_edit_session_end_gesture (WeftEditSession *self)
{
  g_return_if_fail (self->gesture_depth > 0);
  weft_history_end_group (self->history);
  if (--self->gesture_depth == 0 && self->gesture_base != NULL)
    g_hash_table_remove_all (self->gesture_base);
}

gboolean
weft_edit_session_cancel_gesture (WeftEditSession *self, GError **error)
{
  gboolean ok = weft_history_cancel_group (self->history, error);
  self->gesture_depth = 0;
  if (self->gesture_base != NULL)
    g_hash_table_remove_all (self->gesture_base);
  _weft_edit_notify_changed (self);
  return ok;
}


/* Applies the items of a freshly built action forward; on failure the
 * action is rolled back and freed. On success it is recorded. */
gboolean
_weft_edit_run_and_commit (WeftEditSession *self, Action *a, GError **error)
{
  if (a->items->len == 0)
    {
      _weft_edit_action_free (a);
      return TRUE;
    }
  if (!_weft_edit_action_apply (self, a, FALSE, error))
    {
      _weft_edit_action_free (a);
      return FALSE;
    }
  _weft_edit_commit (self, a);
  return TRUE;
}

/* ---- metrics -------------------------------------------------------------------------------- */

gboolean
weft_edit_session_metrics (WeftEditSession *self, WeftMetrics *now, WeftMetrics *baseline)
{
  gboolean ok = TRUE;
  if (now != NULL)
    ok = weft_solver_metrics (self->solver, WEFT_SOLVER_ALL_RANKS, WEFT_SOLVER_ALL_STEPS, now) && ok;
  if (baseline != NULL)
    ok = weft_solver_baseline_metrics (self->solver, WEFT_SOLVER_ALL_RANKS, WEFT_SOLVER_ALL_STEPS, baseline) && ok;
  return ok;
}

/* ---- saving ------------------------------------------------------------------------------------ */

/* The top-level "weft" key of a saved session: the tool, the edit log and
 * the trace's own earlier "weft" key. */
static json_object *
session_meta (WeftEditSession *self)
{
  json_object *meta = json_object_new_object ();

  json_object_object_add (meta, "tool", json_object_new_string ("weft " WEFT_VERSION_STRING));
  json_object_object_add (meta, "edits", weft_edit_session_log (self));
  if (self->previous_weft != NULL)
    json_object_object_add (meta, "previous", json_object_get (self->previous_weft));
  return meta;
}

gboolean
weft_edit_session_write_fd (WeftEditSession *self, int fd, WeftFileFormat format, GError **error)
{
  WeftSaveOptions opts = { 0 };
  gboolean ok;

  g_return_val_if_fail (self != NULL && fd >= 0, FALSE);
  if (self->trace->ranks->len != 1)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
                   "the trace has %u ranks: a stream takes one file (save into a folder)", self->trace->ranks->len);
      return FALSE;
    }
  weft_solver_apply_to_model (self->solver);
  opts.weft_meta = session_meta (self);
  ok = weft_rank_write_fd (weft_trace_rank (self->trace, 0), fd, format, &opts, error);
  json_object_put (opts.weft_meta);
  return ok;
}

gboolean
weft_edit_session_save (WeftEditSession *self, const char *out, const char *ext, GError **error)
{
  WeftSaveOptions opts = { 0 };
  json_object *meta;
  gboolean ok;

  g_return_val_if_fail (out != NULL, FALSE);

  weft_solver_apply_to_model (self->solver);
  meta = session_meta (self);
  opts.weft_meta = meta;
  if (ext != NULL)
    {
      WeftFileFormat format;
      ok = weft_file_format_from_path (ext, &format);
      if (!ok)
        g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "%s: not .json, .json.gz or .json.zst", ext);
      else
        ok = weft_trace_save_dir (self->trace, out, format, &opts, error);
    }
  else
    ok = weft_trace_save (self->trace, out, &opts, error);
  json_object_put (meta);
  if (!ok)
    return FALSE;
  weft_history_set_modified (self->history, FALSE);
  if (self->source_path != NULL)
    {
      weft_recovery_discard (self->source_path);
      /* saved over the trace it was loaded from: the edit log is relative to
       * files that are gone, so no recovery file can be written from now on */
      if (self->file_stamp != NULL && !weft_recovery_stamp_matches (self->file_stamp))
        self->recovery_stale = TRUE;
    }
  self->autosaved_serial = self->serial;
  return TRUE;
}
