/* edit.c: the edit session (trace + solver + history) and its operations.
 *
 * Each operation builds one Action (a history tag + items) by applying its
 * steps through the solver one by one; if a step fails (a cycle, a bad
 * argument) the steps already done are undone in reverse, so the solver and
 * the model are as before, and nothing is recorded. The history undoes and
 * redoes an Action with action_apply(), which has the same all-or-nothing
 * rule. Every Action can write itself as edit-log entries (JSON), which
 * are edit-script operations (docs/editing.md): replaying the log of a
 * freshly loaded trace gives the same state. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "weft/weft-edit.h"
#include "weft/weft-save.h"

/* recovery.c */
json_object *weft_recovery_stamp (const char *trace_path);
gboolean     weft_recovery_stamp_matches (json_object *stamp);

typedef struct
{
  guint   rank_index;
  guint32 event;
  gint64  old_v;       /* MIN_START: min start (-1 none); DURATION: duration */
  gint64  new_v;
  guint32 old_lane;    /* POSITION */
  guint32 new_lane;
  guint   old_pos;
  guint   new_pos;
} Item;

/* A cross-stream / explicit wait of a moved op (POSITION): the solver adds
 * a wait on the producer an op leaves behind when it changes stream, and
 * drops such waits when it arrives on their stream; moving an op back is
 * therefore not an exact inverse. The waits before and after the move are
 * kept and put back exactly on undo and redo. */
typedef struct
{
  guint   item;
  guint   rank_index;   /* the other op */
  guint32 event;
  gint64  gap;
} DepRec;

typedef struct
{
  WeftEditTag  tag;
  GArray      *items;   /* Item */
  json_object *log;     /* INSERT / MOVE_RANK: array of log entries, one per item (MOVE_RANK: one) */
  GArray      *deps_before; /* POSITION: DepRec of every item before the move */
  GArray      *deps_after;  /* POSITION: DepRec after it */
} Action;

struct _WeftEditSession
{
  WeftTrace          *trace;
  WeftSolver         *solver;
  WeftHistory        *history;
  WeftCostModel      *cost_model;
  char               *source_path;
  json_object        *previous_weft;   /* the loaded "weft" key, NULL if none */
  json_object        *base_log;        /* log entries of actions that fell off the history (max depth) */
  GHashTable         *gesture_base;    /* op key -> its start when the open gesture first moved it */
  json_object        *file_stamp;      /* the trace files as loaded (recovery.c) */
  gboolean            recovery_stale;  /* the trace files changed since: no recovery file */
  guint               gesture_depth;
  gint64              origin;          /* beginning of the schedule as loaded (script "_us" times) */
  guint64             serial;
  guint64             autosaved_serial;

  WeftEditChangedFunc changed_func;
  gpointer            changed_data;
  WeftEditStateFunc   state_func;
  gpointer            state_data;
};

/* ---- actions -------------------------------------------------------------------- */

static Action *
action_new (WeftEditTag tag)
{
  Action *a = g_new0 (Action, 1);
  a->tag = tag;
  a->items = g_array_new (FALSE, TRUE, sizeof (Item));
  return a;
}

static void
action_free (Action *a)
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

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Action, action_free)

/* Applies item i of a forward (undo FALSE) or backward. */
static gboolean
item_apply (WeftEditSession *self, Action *a, guint i, gboolean undo, GError **error)
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
static GArray *
record_deps (WeftEditSession *self, Action *a)
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
  g_autoptr (GArray) now = record_deps (self, a);
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
  g_autoptr (GArray) now = record_deps (self, a);

  for (guint j = 0; j < deps->len; j++)
    {
      const DepRec *t = &g_array_index (deps, DepRec, j);
      const Item *it = &g_array_index (a->items, Item, t->item);
      if (!dep_in (now, t))
        {
          g_autoptr (GError) e = NULL;
          if (!weft_solver_add_dependency (self->solver, t->rank_index, t->event, it->rank_index, it->event, t->gap, &e))
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
      g_array_unref (drop_deps (self, a, target));
      add_deps (self, a, target);
    }
  else if (!ok && dropped != NULL)
    add_deps (self, a, dropped);
  weft_solver_end_batch (self->solver);
  return ok;
}

/* All items forward (in order) or backward (reverse order); all or nothing. */
static gboolean
action_apply (WeftEditSession *self, Action *a, gboolean undo, GError **error)
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
      if (!item_apply (self, a, i, undo, error))
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
        if (!item_apply (self, a, i, !undo, &e2))
          g_warning ("edit: rolling back: %s", e2->message);
      }
  weft_solver_end_batch (self->solver);
  return ok;
}

/* ---- history glue ----------------------------------------------------------------- */

static void
notify_changed (WeftEditSession *self)
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
  return action_apply (self, action, undo, error);
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
  action_free (action);
}

static void action_log (WeftEditSession *self, Action *a, json_object *out);

static void
history_dropped (gpointer user_data, guint tag, gpointer action)
{
  WeftEditSession *self = user_data;
  (void) tag;
  /* still applied, no longer undoable: keep it in the log */
  if (self->base_log == NULL)
    self->base_log = json_object_new_array ();
  action_log (self, action, self->base_log);
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
static void
commit (WeftEditSession *self, Action *a)
{
  weft_history_push (self->history, a->tag, a);
  notify_changed (self);
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
  notify_changed (self);
  return TRUE;
}

gboolean
weft_edit_session_redo (WeftEditSession *self, GError **error)
{
  if (!weft_history_redo (self->history, error))
    return FALSE;
  notify_changed (self);
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
  notify_changed (self);
  return ok;
}

/* ---- helpers ----------------------------------------------------------------------- */

static gboolean
check_op (WeftEditSession *self, WeftOpRef op, GError **error)
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

static WeftEvent *
op_event (WeftEditSession *self, WeftOpRef op)
{
  return weft_rank_event (weft_trace_rank (self->trace, op.rank_index), op.event);
}

static const char *
op_name (WeftEditSession *self, WeftOpRef op)
{
  WeftRank *rank = weft_trace_rank (self->trace, op.rank_index);
  return weft_rank_string (rank, weft_rank_event (rank, op.event)->name);
}

static int
rank_number (WeftEditSession *self, guint rank_index)
{
  return weft_trace_rank (self->trace, rank_index)->rank;
}

/* The collective of an op, or NULL. */
static WeftCollective *
op_collective (WeftEditSession *self, WeftOpRef op)
{
  WeftRank *rank = weft_trace_rank (self->trace, op.rank_index);
  WeftEvent *ev = weft_rank_event (rank, op.event);
  if (ev->coll == WEFT_NONE || ev->coll >= rank->collectives->len)
    return NULL;
  return &g_array_index (rank->collectives, WeftCollective, ev->coll);
}

static guint32
op_instance (WeftEditSession *self, WeftOpRef op)
{
  WeftCollective *c = op_collective (self, op);
  return c != NULL && c->instance < self->trace->instances->len ? c->instance : WEFT_NONE;
}

/* Live members of an instance (WeftOpRef), in member order. */
static GArray *
instance_members (WeftEditSession *self, guint32 instance)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (WeftOpRef));
  WeftCollInstance *inst = &g_array_index (self->trace->instances, WeftCollInstance, instance);

  for (guint m = 0; m < inst->members->len; m++)
    {
      WeftInstanceMember *mem = &g_array_index (inst->members, WeftInstanceMember, m);
      WeftRank *rank = weft_trace_rank (self->trace, mem->rank_index);
      WeftOpRef ref;
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
ref_key (WeftOpRef op)
{
  return ((guint64) op.rank_index << 32) | op.event;
}

/* Adds op (and, when expand, the other members of its instance) once. */
static void
add_ref (WeftEditSession *self, GArray *out, GHashTable *seen, WeftOpRef op, gboolean expand)
{
  guint32 inst = expand ? op_instance (self, op) : WEFT_NONE;

  if (inst != WEFT_NONE)
    {
      g_autoptr (GArray) members = instance_members (self, inst);
      for (guint i = 0; i < members->len; i++)
        add_ref (self, out, seen, g_array_index (members, WeftOpRef, i), FALSE);
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

static GHashTable *
ref_set_new (void)
{
  return g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
}

/* The GPU lane of a rank with stream id `stream` on `device` (-1: the
 * rank's first GPU device), created when missing. */
static guint32
stream_lane (WeftEditSession *self, guint rank_index, int device, gint64 stream)
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

static WeftLane *
op_lane (WeftEditSession *self, WeftOpRef op)
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

static gboolean
check_dur (WeftEditSession *self, WeftOpRef op, gint64 dur, GError **error)
{
  if (dur < 0 || dur > MAX_DUR_NS)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
                   "%s: duration %" G_GINT64_FORMAT " ns is not in [0, %" G_GINT64_FORMAT "] ns",
                   self != NULL ? op_name (self, op) : "new op", dur, MAX_DUR_NS);
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_time (gint64 t, GError **error)
{
  if (t < 0 || t > MAX_TIME_NS)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "time %" G_GINT64_FORMAT " ns is out of range", t);
      return FALSE;
    }
  return TRUE;
}

/* Applies the items of a freshly built action forward; on failure the
 * action is rolled back and freed. On success it is recorded. */
static gboolean
run_and_commit (WeftEditSession *self, Action *a, GError **error)
{
  if (a->items->len == 0)
    {
      action_free (a);
      return TRUE;
    }
  if (!action_apply (self, a, FALSE, error))
    {
      action_free (a);
      return FALSE;
    }
  commit (self, a);
  return TRUE;
}

/* ---- move in time --------------------------------------------------------------------- */

/* Where an op starts for a move by a delta: its solved start now, or inside
 * a gesture its start when the gesture first moved it (successive motions
 * pass the total offset; members that cannot follow at once do not drift). */
static gint64
base_start (WeftEditSession *self, WeftOpRef op)
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

static gboolean
move_refs_to (WeftEditSession *self, GArray *refs, const gint64 *starts, GError **error)
{
  Action *a = action_new (WEFT_EDIT_MIN_START);

  for (guint i = 0; i < refs->len; i++)
    {
      WeftOpRef op = g_array_index (refs, WeftOpRef, i);
      Item it = { 0 };
      it.rank_index = op.rank_index;
      it.event = op.event;
      it.old_v = weft_solver_min_start (self->solver, op.rank_index, op.event);
      it.new_v = starts[i];
      g_array_append_val (a->items, it);
    }
  return run_and_commit (self, a, error);
}

gboolean
weft_edit_move_time (WeftEditSession *self, WeftOpRef op, gint64 start, gboolean whole_instance,
                     GError **error)
{
  g_autoptr (GArray) refs = g_array_new (FALSE, FALSE, sizeof (WeftOpRef));
  g_autoptr (GHashTable) seen = ref_set_new ();
  g_autofree gint64 *starts = NULL;
  gint64 delta;

  if (!check_op (self, op, error))
    return FALSE;
  if (!check_time (start, error))
    return FALSE;
  delta = start - base_start (self, op);
  add_ref (self, refs, seen, op, whole_instance);
  starts = g_new (gint64, refs->len);
  for (guint i = 0; i < refs->len; i++)
    {
      WeftOpRef r = g_array_index (refs, WeftOpRef, i);
      starts[i] = (r.rank_index == op.rank_index && r.event == op.event)
                    ? start
                    : MAX (0, base_start (self, r) + delta);
    }
  return move_refs_to (self, refs, starts, error);
}

gboolean
weft_edit_move_selection (WeftEditSession *self, const WeftOpRef *ops, guint n_ops, gint64 delta,
                          gboolean whole_instances, GError **error)
{
  g_autoptr (GArray) refs = g_array_new (FALSE, FALSE, sizeof (WeftOpRef));
  g_autoptr (GHashTable) seen = ref_set_new ();
  g_autofree gint64 *starts = NULL;

  if (delta < -MAX_DUR_NS || delta > MAX_DUR_NS)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "a shift of %" G_GINT64_FORMAT " ns is out of range", delta);
      return FALSE;
    }
  for (guint i = 0; i < n_ops; i++)
    {
      if (!check_op (self, ops[i], error))
        return FALSE;
      add_ref (self, refs, seen, ops[i], whole_instances);
    }
  starts = g_new (gint64, MAX (refs->len, 1));
  for (guint i = 0; i < refs->len; i++)
    {
      WeftOpRef r = g_array_index (refs, WeftOpRef, i);
      starts[i] = MAX (0, base_start (self, r) + delta);
    }
  return move_refs_to (self, refs, starts, error);
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
static gboolean
move_refs_to_lanes (WeftEditSession *self, GArray *refs, const guint32 *lanes, const gint64 *times,
                    const guint *positions, GError **error)
{
  Action *a = action_new (WEFT_EDIT_POSITION);
  g_autoptr (GPtrArray) sims = g_ptr_array_new_with_free_func (sim_lane_free);
  gboolean moved = FALSE;

  for (guint i = 0; i < refs->len; i++)
    {
      WeftOpRef op = g_array_index (refs, WeftOpRef, i);
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
            g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "%s: moved twice in one edit", op_name (self, op));
            action_free (a);
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
      action_free (a);
      return TRUE;
    }
  a->deps_before = record_deps (self, a);
  if (!action_apply (self, a, FALSE, error))
    {
      action_free (a);
      return FALSE;
    }
  a->deps_after = record_deps (self, a);
  commit (self, a);
  return TRUE;
}

static gboolean
move_to_lanes_common (WeftEditSession *self, WeftOpRef op, guint32 lane, gint64 stream, gint64 at_time,
                      gboolean whole_instance, GError **error)
{
  g_autoptr (GArray) refs = g_array_new (FALSE, FALSE, sizeof (WeftOpRef));
  g_autoptr (GHashTable) seen = ref_set_new ();
  g_autofree guint32 *lanes = NULL;
  g_autofree gint64 *times = NULL;
  gint64 op_start;
  WeftRank *rank;

  if (!check_op (self, op, error))
    return FALSE;
  rank = weft_trace_rank (self->trace, op.rank_index);
  op_start = weft_solver_start (self->solver, op.rank_index, op.event);
  if (at_time < 0)
    at_time = op_start;
  if (!check_time (at_time, error))
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
  add_ref (self, refs, seen, op, whole_instance);
  lanes = g_new (guint32, refs->len);
  times = g_new (gint64, refs->len);
  for (guint i = 0; i < refs->len; i++)
    {
      WeftOpRef r = g_array_index (refs, WeftOpRef, i);
      if (r.rank_index == op.rank_index && r.event == op.event && lane != WEFT_NONE)
        lanes[i] = lane;
      else
        {
          WeftLane *cur = op_lane (self, r);
          lanes[i] = stream_lane (self, r.rank_index, cur ? cur->device : -1, stream);
        }
      times[i] = MAX (0, at_time + (weft_solver_start (self->solver, r.rank_index, r.event) - op_start));
    }
  return move_refs_to_lanes (self, refs, lanes, times, NULL, error);
}

gboolean
weft_edit_move_to_lane (WeftEditSession *self, WeftOpRef op, guint32 lane, gint64 at_time,
                        gboolean whole_instance, GError **error)
{
  return move_to_lanes_common (self, op, lane, 0, at_time, whole_instance, error);
}

gboolean
weft_edit_move_to_stream (WeftEditSession *self, WeftOpRef op, gint64 stream, gint64 at_time,
                          gboolean whole_instance, GError **error)
{
  return move_to_lanes_common (self, op, WEFT_NONE, stream, at_time, whole_instance, error);
}

gboolean
weft_edit_reorder (WeftEditSession *self, WeftOpRef op, guint position, GError **error)
{
  g_autoptr (GArray) refs = g_array_new (FALSE, FALSE, sizeof (WeftOpRef));
  guint32 lane;

  if (!check_op (self, op, error))
    return FALSE;
  lane = weft_solver_op_lane (self->solver, op.rank_index, op.event);
  if (position >= weft_solver_lane_n_ops (self->solver, op.rank_index, lane))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "%s: position %u is past the end of its stream (%u ops)",
                   op_name (self, op), position, weft_solver_lane_n_ops (self->solver, op.rank_index, lane));
      return FALSE;
    }
  g_array_append_val (refs, op);
  return move_refs_to_lanes (self, refs, &lane, NULL, &position, error);
}

/* ---- durations ----------------------------------------------------------------------------- */

static void
add_duration_item (WeftEditSession *self, Action *a, WeftOpRef op, gint64 dur)
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
weft_edit_set_duration (WeftEditSession *self, WeftOpRef op, gint64 dur, GError **error)
{
  Action *a;

  if (!check_op (self, op, error))
    return FALSE;
  if (!check_dur (self, op, dur, error))
    return FALSE;
  a = action_new (WEFT_EDIT_DURATION);
  add_duration_item (self, a, op, dur);
  return run_and_commit (self, a, error);
}

static gboolean
check_factor (double factor, GError **error)
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
weft_edit_scale_duration (WeftEditSession *self, WeftOpRef op, double factor, GError **error)
{
  return weft_edit_scale_ops (self, &op, 1, factor, error);
}

/* One DURATION action over refs: each duration x factor, or = dur when
 * dur >= 0; one item per collective instance (its transfer time). log (taken,
 * nullable): the action's edit-log entry instead of one set_duration per
 * op (a whole-class scale replays from its own description). n_items: the
 * durations changed. */
static gboolean
retime_refs (WeftEditSession *self, const WeftOpRef *ops, guint n_ops, double factor, gint64 dur,
             json_object *log, guint *n_items, GError **error)
{
  Action *a;
  g_autoptr (GHashTable) instances = g_hash_table_new (NULL, NULL);

  if (n_items)
    *n_items = 0;
  if ((dur < 0 && !check_factor (factor, error)))
    goto fail;
  for (guint i = 0; i < n_ops; i++)
    if (!check_op (self, ops[i], error) || (dur >= 0 && !check_dur (self, ops[i], dur, error)))
      goto fail;
  a = action_new (WEFT_EDIT_DURATION);
  for (guint i = 0; i < n_ops; i++)
    {
      guint32 inst = op_instance (self, ops[i]);
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
  return run_and_commit (self, a, error);

fail:
  if (log != NULL)
    json_object_put (log);
  return FALSE;
}

gboolean
weft_edit_scale_ops (WeftEditSession *self, const WeftOpRef *ops, guint n_ops, double factor, GError **error)
{
  return retime_refs (self, ops, n_ops, factor, -1, NULL, NULL, error);
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
weft_edit_scale_collective (WeftEditSession *self, WeftCollType type, double factor, guint *n_changed,
                            GError **error)
{
  g_autoptr (GArray) refs = g_array_new (FALSE, FALSE, sizeof (WeftOpRef));

  for (guint r = 0; r < self->trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (self->trace, r);
      for (guint c = 0; c < rank->collectives->len; c++)
        {
          WeftCollective *coll = &g_array_index (rank->collectives, WeftCollective, c);
          WeftOpRef ref = { r, coll->event };
          if (type != WEFT_COLL_NONE && coll->type != type)
            continue;
          if (!weft_solver_is_node (self->solver, r, coll->event))
            continue;
          g_array_append_val (refs, ref);
        }
    }
  return retime_refs (self, (const WeftOpRef *) (void *) refs->data, refs->len, factor, -1,
                      scale_log ("collective", type == WEFT_COLL_NONE ? "any" : weft_coll_type_to_string (type), factor),
                      n_changed, error);
}

gboolean
weft_edit_scale_class (WeftEditSession *self, WeftKernelClass kclass, double factor, guint *n_changed,
                       GError **error)
{
  g_autoptr (GArray) refs = g_array_new (FALSE, FALSE, sizeof (WeftOpRef));

  if (kclass == WEFT_KCLASS_COMM)
    return weft_edit_scale_collective (self, WEFT_COLL_NONE, factor, n_changed, error);
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
          WeftOpRef ref = { r, e };
          if (!(ev->flags & WEFT_EVENT_GPU_OP) || (ev->flags & WEFT_EVENT_DELETED) || ev->kclass != kclass ||
              ev->coll != WEFT_NONE)
            continue;
          if (!weft_solver_is_node (self->solver, r, e))
            continue;
          g_array_append_val (refs, ref);
        }
    }
  return retime_refs (self, (const WeftOpRef *) (void *) refs->data, refs->len, factor, -1,
                      scale_log ("class", weft_kernel_class_to_string (kclass), factor), n_changed, error);
}

/* ---- delete ------------------------------------------------------------------------------- */

gboolean
weft_edit_delete (WeftEditSession *self, const WeftOpRef *ops, guint n_ops, GError **error)
{
  Action *a;
  gboolean ok = TRUE;

  for (guint i = 0; i < n_ops; i++)
    if (!check_op (self, ops[i], error))
      return FALSE;
  a = action_new (WEFT_EDIT_DELETE);
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
        if (!item_apply (self, a, i - 1, TRUE, &e2))
          g_warning ("edit: rolling back a delete: %s", e2->message);
      }
  weft_solver_end_batch (self->solver);
  if (!ok || a->items->len == 0)
    {
      action_free (a);
      return ok;
    }
  commit (self, a);
  return TRUE;
}

/* ---- insert --------------------------------------------------------------------------------- */

static json_object *
json_int (gint64 v)
{
  return json_object_new_int64 (v);
}

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
  json_object_object_add (log, "stream", json_int (l->tid));
  json_object_object_add (log, "at_ns", json_int (at_time));
  json_object_object_add (log, "name", json_object_new_string (spec->name ? spec->name : ""));
  json_object_object_add (log, "class", json_object_new_string (weft_kernel_class_to_string (spec->kclass)));
  json_object_object_add (log, "category",
                          json_object_new_string (spec->category == WEFT_CAT_GPU_MEMCPY   ? "gpu_memcpy"
                                                  : spec->category == WEFT_CAT_GPU_MEMSET ? "gpu_memset"
                                                                                          : "kernel"));
  json_object_object_add (log, "dur_ns", json_int (spec->dur));
  if (spec->like_event != WEFT_NONE)
    json_object_object_add (log, "like_event", json_int (spec->like_event));
  json_object_object_add (log, "event", json_int (ev));
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
          if (!item_apply (self, a, i - 1, TRUE, &e2))
            g_warning ("edit: rolling back an insert: %s", e2->message);
        }
      action_free (a);
      return FALSE;
    }
  if (a->items->len == 0)
    {
      action_free (a);
      return TRUE;
    }
  commit (self, a);
  return TRUE;
}

gboolean
weft_edit_insert_kernel (WeftEditSession *self, guint rank_index, guint32 lane, gint64 at_time,
                         const WeftPaletteKernel *kernel, gint64 dur, WeftOpRef *new_op, GError **error)
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
  if (!check_dur (NULL, (WeftOpRef) { 0, 0 }, spec.dur, error) || !check_time (MAX (at_time, 0), error))
    return FALSE;
  spec.like_event = kernel->example.rank_index == rank_index ? kernel->example.event : WEFT_NONE;
  ev = insert_kernel_step (self, rank_index, lane, MAX (at_time, 0), &spec, &log, error);
  if (ev == WEFT_NONE)
    return FALSE;
  a = action_new (WEFT_EDIT_INSERT);
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
  json_object_object_add (log, "bytes", json_int (cs->bytes));
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
      json_object_object_add (p, "stream", json_int (l->tid));
      json_object_object_add (p, "at_ns", json_int (places[i].at_time));
      json_object_object_add (p, "event", json_int (events[i]));
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
  json_object_object_add (log, "transfer_ns", json_int (cs->transfer_ns));
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
static gboolean
insert_collective_places (WeftEditSession *self, const WeftSolverCollSpec *cs, const WeftSolverPlace *places,
                          guint n, WeftOpRef *new_op, GError **error)
{
  json_object *log = NULL;
  Action *a;
  Item it = { 0 };
  guint32 ev;

  ev = insert_collective_step (self, cs, places, n, &log, error);
  if (ev == WEFT_NONE)
    return FALSE;
  a = action_new (WEFT_EDIT_INSERT);
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
weft_edit_insert_collective (WeftEditSession *self, const WeftEditCollSpec *spec, WeftOpRef *new_op,
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
  if (spec->transfer_ns > MAX_DUR_NS || !check_time (MAX (spec->at_time, 0), error))
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
      places[i].lane = stream_lane (self, r, -1, spec->stream);
      places[i].at_time = MAX (spec->at_time, 0);
      numbers[i] = rank_number (self, r);
    }
  cs.type = spec->type;
  cs.bytes = spec->bytes;
  cs.dtype = spec->dtype;
  cs.pg_name = spec->pg_name ? spec->pg_name : "weft";
  cs.transfer_ns = spec->transfer_ns;
  if (cs.transfer_ns < 0)
    cs.transfer_ns = weft_cost_model_estimate_group (weft_edit_session_get_cost_model (self), spec->type,
                                                     spec->bytes, cs.pg_name, numbers, idx->len, NULL);
  return insert_collective_places (self, &cs, places, idx->len, new_op, error);
}

/* ---- duplicate ----------------------------------------------------------------------------- */

static const char *
rank_str_or_null (WeftRank *rank, guint32 id)
{
  return id != 0 ? weft_rank_string (rank, id) : NULL;
}

gboolean
weft_edit_duplicate (WeftEditSession *self, const WeftOpRef *ops, guint n_ops, GArray *new_ops, GError **error)
{
  Action *a;
  g_autoptr (GHashTable) instances = g_hash_table_new (NULL, NULL);
  gboolean ok = TRUE;

  for (guint i = 0; i < n_ops; i++)
    if (!check_op (self, ops[i], error))
      return FALSE;
  a = action_new (WEFT_EDIT_INSERT);
  a->log = json_object_new_array ();
  weft_solver_begin_batch (self->solver);
  for (guint i = 0; i < n_ops && ok; i++)
    {
      WeftOpRef op = ops[i];
      guint32 inst = op_instance (self, op);
      json_object *log = NULL;
      Item it = { 0 };
      guint32 ev;

      if (inst != WEFT_NONE)
        {
          g_autoptr (GArray) members = NULL;
          g_autofree WeftSolverPlace *places = NULL;
          WeftSolverCollSpec cs = { 0 };
          WeftCollective *coll = op_collective (self, op);
          WeftRank *rank = weft_trace_rank (self->trace, op.rank_index);
          guint me = 0;

          if (g_hash_table_contains (instances, GUINT_TO_POINTER (inst + 1)))
            continue;
          g_hash_table_add (instances, GUINT_TO_POINTER (inst + 1));
          members = instance_members (self, inst);
          places = g_new0 (WeftSolverPlace, members->len);
          for (guint m = 0; m < members->len; m++)
            {
              WeftOpRef r = g_array_index (members, WeftOpRef, m);
              places[m].rank_index = r.rank_index;
              places[m].lane = weft_solver_op_lane (self->solver, r.rank_index, r.event);
              /* at its own start: the copy goes right after it on its stream */
              places[m].at_time = weft_solver_start (self->solver, r.rank_index, r.event);
              if (r.rank_index == op.rank_index)
                me = m;
            }
          cs.type = coll->type;
          cs.kernel_name = op_name (self, op);
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
              WeftOpRef nr = { places[me].rank_index,
                               (guint32) json_object_get_int64 (json_object_object_get (p, "event")) };
              g_array_append_val (new_ops, nr);
            }
        }
      else
        {
          WeftSolverOpSpec spec = { 0 };
          WeftEvent *e = op_event (self, op);
          spec.name = op_name (self, op);
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
              WeftOpRef nr = { op.rank_index, ev };
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
weft_edit_move_to_rank (WeftEditSession *self, WeftOpRef op, guint dst_rank_index, guint32 dst_lane,
                        gint64 at_time, WeftOpRef *new_op, GError **error)
{
  WeftSolverOpSpec spec = { 0 };
  WeftEvent *e;
  json_object *ins_log = NULL, *log;
  Action *a;
  Item src = { 0 }, dst = { 0 };
  guint32 ev;
  g_autofree char *name = NULL;

  if (!check_op (self, op, error))
    return FALSE;
  if (op_instance (self, op) != WEFT_NONE || op_collective (self, op) != NULL)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
                   "%s: a collective cannot move to another rank (move its stream, or delete and insert it)",
                   op_name (self, op));
      return FALSE;
    }
  if (dst_rank_index >= self->trace->ranks->len)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "rank index %u out of range", dst_rank_index);
      return FALSE;
    }
  if (dst_rank_index == op.rank_index)
    return weft_edit_move_to_lane (self, op, dst_lane, at_time, FALSE, error);

  e = op_event (self, op);
  name = g_strdup (op_name (self, op));
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
  json_object_object_add (log, "rank", json_object_new_int (rank_number (self, op.rank_index)));
  json_object_object_add (log, "event", json_int (op.event));
  json_object_object_add (log, "name", json_object_new_string (name));
  json_object_object_add (log, "to_rank", json_object_new_int (rank_number (self, dst_rank_index)));
  json_object_object_add (log, "device", json_object_get (json_object_object_get (ins_log, "device")));
  json_object_object_add (log, "stream", json_object_get (json_object_object_get (ins_log, "stream")));
  json_object_object_add (log, "at_ns", json_int (at_time));
  json_object_object_add (log, "new_event", json_int (ev));
  json_object_put (ins_log);

  a = action_new (WEFT_EDIT_MOVE_RANK);
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
  commit (self, a);
  return TRUE;
}

/* ---- palette --------------------------------------------------------------------------------- */

typedef struct
{
  WeftPaletteKernel *k;
  GArray            *durs;
} KernelAcc;

static void
palette_kernel_free (gpointer data)
{
  WeftPaletteKernel *k = data;
  g_free (k->name);
  g_free (k);
}

static int
cmp_gint64 (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return (x > y) - (x < y);
}

static int
cmp_palette_kernel (gconstpointer a, gconstpointer b)
{
  const WeftPaletteKernel *x = *(WeftPaletteKernel * const *) a;
  const WeftPaletteKernel *y = *(WeftPaletteKernel * const *) b;
  if (x->kclass != y->kclass)
    return (int) x->kclass - (int) y->kclass;
  if (x->count != y->count)
    return x->count > y->count ? -1 : 1;
  return strcmp (x->name, y->name);
}

static gint64
median_of (GArray *v)
{
  if (v->len == 0)
    return -1;
  g_array_sort (v, cmp_gint64);
  return g_array_index (v, gint64, v->len / 2);
}

GPtrArray *
weft_edit_palette_kernels (WeftTrace *trace)
{
  g_autoptr (GHashTable) by_name = g_hash_table_new (g_str_hash, g_str_equal);
  GPtrArray *out = g_ptr_array_new_with_free_func (palette_kernel_free);
  GHashTableIter iter;
  gpointer value;
  GPtrArray *accs = g_ptr_array_new ();

  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);
      for (guint32 e = 0; e < rank->events->len; e++)
        {
          WeftEvent *ev = weft_rank_event (rank, e);
          const char *name;
          KernelAcc *acc;
          if (!(ev->flags & WEFT_EVENT_GPU_OP) || (ev->flags & WEFT_EVENT_DELETED) ||
              ev->kclass == WEFT_KCLASS_COMM || ev->coll != WEFT_NONE)
            continue;
          name = weft_rank_string (rank, ev->name);
          acc = g_hash_table_lookup (by_name, name);
          if (acc == NULL)
            {
              acc = g_new0 (KernelAcc, 1);
              acc->k = g_new0 (WeftPaletteKernel, 1);
              acc->k->name = g_strdup (name);
              acc->k->kclass = (WeftKernelClass) ev->kclass;
              acc->k->category = (WeftCategory) ev->category;
              acc->k->example.rank_index = r;
              acc->k->example.event = e;
              acc->k->min_dur = G_MAXINT64;
              acc->durs = g_array_new (FALSE, FALSE, sizeof (gint64));
              g_hash_table_insert (by_name, acc->k->name, acc);
              g_ptr_array_add (accs, acc);
            }
          acc->k->count++;
          acc->k->min_dur = MIN (acc->k->min_dur, ev->dur);
          acc->k->max_dur = MAX (acc->k->max_dur, ev->dur);
          g_array_append_val (acc->durs, ev->dur);
        }
    }
  g_hash_table_iter_init (&iter, by_name);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      KernelAcc *acc = value;
      acc->k->median_dur = median_of (acc->durs);
      g_array_free (acc->durs, TRUE);
      g_ptr_array_add (out, acc->k);
      g_free (acc);
    }
  g_ptr_array_free (accs, TRUE);
  g_ptr_array_sort (out, cmp_palette_kernel);
  return out;
}

typedef struct
{
  WeftPaletteCollective *c;
  GArray                *bytes;
} CollAcc;

static void
palette_coll_free (gpointer data)
{
  WeftPaletteCollective *c = data;
  g_free (c->pg_name);
  g_free (c->pg_desc);
  g_free (c->ranks);
  g_free (c->dtype);
  g_free (c);
}

static int
cmp_palette_coll (gconstpointer a, gconstpointer b)
{
  const WeftPaletteCollective *x = *(WeftPaletteCollective * const *) a;
  const WeftPaletteCollective *y = *(WeftPaletteCollective * const *) b;
  if (x->type != y->type)
    return (int) x->type - (int) y->type;
  if (x->count != y->count)
    return x->count > y->count ? -1 : 1;
  return g_strcmp0 (x->pg_name, y->pg_name);
}

GPtrArray *
weft_edit_palette_collectives (WeftEditSession *self)
{
  WeftTrace *trace = self->trace;
  g_autoptr (GHashTable) by_key = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GPtrArray *out = g_ptr_array_new_with_free_func (palette_coll_free);
  GPtrArray *accs = g_ptr_array_new ();

  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);
      for (guint c = 0; c < rank->collectives->len; c++)
        {
          WeftCollective *coll = &g_array_index (rank->collectives, WeftCollective, c);
          GString *key;
          CollAcc *acc;
          WeftEvent *ev;

          if (coll->type == WEFT_COLL_NONE || coll->event >= rank->events->len)
            continue;
          ev = weft_rank_event (rank, coll->event);
          if (ev->flags & WEFT_EVENT_DELETED)
            continue;
          /* an instance counts once: on its first member */
          if (coll->instance != WEFT_NONE && coll->instance < trace->instances->len)
            {
              WeftCollInstance *inst = &g_array_index (trace->instances, WeftCollInstance, coll->instance);
              if (inst->members->len > 0 &&
                  g_array_index (inst->members, WeftInstanceMember, 0).rank_index != r)
                continue;
            }
          key = g_string_new (weft_coll_type_to_string (coll->type));
          g_string_append_printf (key, "|%s|", coll->pg_name ? weft_rank_string (rank, coll->pg_name) : "");
          if (coll->pg_ranks != NULL)
            for (guint i = 0; i < coll->n_pg_ranks; i++)
              g_string_append_printf (key, "%d,", coll->pg_ranks[i]);
          else if (coll->instance != WEFT_NONE && coll->instance < trace->instances->len)
            {
              WeftCollInstance *inst = &g_array_index (trace->instances, WeftCollInstance, coll->instance);
              for (guint i = 0; i < inst->members->len; i++)
                g_string_append_printf (
                  key, "r%d,",
                  weft_trace_rank (trace, g_array_index (inst->members, WeftInstanceMember, i).rank_index)->rank);
            }
          acc = g_hash_table_lookup (by_key, key->str);
          if (acc == NULL)
            {
              WeftPaletteCollective *pc = g_new0 (WeftPaletteCollective, 1);
              pc->type = coll->type;
              pc->pg_name = coll->pg_name ? g_strdup (weft_rank_string (rank, coll->pg_name)) : NULL;
              pc->pg_desc = coll->pg_desc ? g_strdup (weft_rank_string (rank, coll->pg_desc)) : NULL;
              pc->dtype = coll->dtype ? g_strdup (weft_rank_string (rank, coll->dtype)) : NULL;
              if (coll->pg_ranks != NULL && coll->n_pg_ranks > 0)
                {
                  pc->n_ranks = coll->n_pg_ranks;
                  pc->ranks = g_memdup2 (coll->pg_ranks, sizeof (int) * coll->n_pg_ranks);
                }
              else if (coll->instance != WEFT_NONE && coll->instance < trace->instances->len)
                {
                  WeftCollInstance *inst = &g_array_index (trace->instances, WeftCollInstance, coll->instance);
                  pc->n_ranks = inst->members->len;
                  pc->ranks = g_new0 (int, MAX (pc->n_ranks, 1));
                  for (guint i = 0; i < inst->members->len; i++)
                    pc->ranks[i] = weft_trace_rank (
                                     trace, g_array_index (inst->members, WeftInstanceMember, i).rank_index)
                                     ->rank;
                }
              else
                {
                  pc->n_ranks = 1;
                  pc->ranks = g_new0 (int, 1);
                  pc->ranks[0] = rank->rank;
                }
              pc->stream = ev->lane != WEFT_NONE ? weft_rank_lane (rank, ev->lane)->tid : -1;
              acc = g_new0 (CollAcc, 1);
              acc->c = pc;
              acc->bytes = g_array_new (FALSE, FALSE, sizeof (gint64));
              g_hash_table_insert (by_key, g_strdup (key->str), acc);
              g_ptr_array_add (accs, acc);
            }
          acc->c->count++;
          if (coll->bytes > 0)
            g_array_append_val (acc->bytes, coll->bytes);
          g_string_free (key, TRUE);
        }
    }
  for (guint i = 0; i < accs->len; i++)
    {
      CollAcc *acc = g_ptr_array_index (accs, i);
      WeftPaletteCollective *pc = acc->c;
      pc->median_bytes = median_of (acc->bytes);
      pc->estimate_ns = pc->median_bytes > 0
                          ? weft_cost_model_estimate_group (weft_edit_session_get_cost_model (self), pc->type,
                                                            pc->median_bytes, pc->pg_name, pc->ranks, pc->n_ranks,
                                                            NULL)
                          : -1;
      g_array_free (acc->bytes, TRUE);
      g_ptr_array_add (out, pc);
      g_free (acc);
    }
  g_ptr_array_free (accs, TRUE);
  g_ptr_array_sort (out, cmp_palette_coll);
  return out;
}

/* ---- the edit log ------------------------------------------------------------------------------ */

static void
item_log (WeftEditSession *self, WeftEditTag tag, const Item *it, json_object *out)
{
  WeftOpRef ref = { it->rank_index, it->event };
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
  json_object_object_add (o, "rank", json_object_new_int (rank_number (self, it->rank_index)));
  json_object_object_add (o, "event", json_int (it->event));
  json_object_object_add (o, "name", json_object_new_string (op_name (self, ref)));
  switch (tag)
    {
    case WEFT_EDIT_MIN_START:
      json_object_object_add (o, "start_ns", json_int (it->new_v));
      break;
    case WEFT_EDIT_DURATION:
      json_object_object_add (o, "dur_ns", json_int (it->new_v));
      json_object_object_add (o, "was_ns", json_int (it->old_v));
      break;
    case WEFT_EDIT_POSITION:
      {
        WeftRank *rank = weft_trace_rank (self->trace, it->rank_index);
        WeftLane *l = weft_rank_lane (rank, it->new_lane);
        json_object_object_add (o, "device", json_object_new_int (l->device));
        json_object_object_add (o, "stream", json_int (l->tid));
        json_object_object_add (o, "position", json_int (it->new_pos));
      }
      break;
    default:
      break;
    }
  json_object_array_add (out, o);
}

static void
action_log (WeftEditSession *self, Action *a, json_object *out)
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
      action_log (ctx->self, action, ctx->out);
      return;
    }
  if (ctx->cur == NULL || entry != ctx->cur_entry)
    {
      ctx->cur = json_object_new_array ();
      ctx->cur_entry = entry;
      json_object_array_add (ctx->out, ctx->cur);
    }
  action_log (ctx->self, action, ctx->cur);
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

gboolean
weft_edit_session_save (WeftEditSession *self, const char *out, const char *ext, GError **error)
{
  WeftSaveOptions opts = { 0 };
  json_object *meta = json_object_new_object ();
  gboolean ok;

  g_return_val_if_fail (out != NULL, FALSE);

  weft_solver_apply_to_model (self->solver);
  json_object_object_add (meta, "tool", json_object_new_string ("weft " WEFT_VERSION_STRING));
  json_object_object_add (meta, "edits", weft_edit_session_log (self));
  if (self->previous_weft != NULL)
    json_object_object_add (meta, "previous", json_object_get (self->previous_weft));
  opts.weft_meta = meta;
  if (ext != NULL)
    ok = weft_trace_save_dir (self->trace, out, ext, &opts, error);
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

/* Used by recovery.c and the script runner. */
gint64 weft_edit_session_origin (WeftEditSession *self);
guint64 *weft_edit_session_autosaved_serial (WeftEditSession *self);
json_object *weft_edit_session_file_stamp (WeftEditSession *self);
gboolean *weft_edit_session_recovery_stale (WeftEditSession *self);

json_object *
weft_edit_session_file_stamp (WeftEditSession *self)
{
  return self->file_stamp;
}

gboolean *
weft_edit_session_recovery_stale (WeftEditSession *self)
{
  return &self->recovery_stale;
}

gint64
weft_edit_session_origin (WeftEditSession *self)
{
  return self->origin;
}

guint64 *
weft_edit_session_autosaved_serial (WeftEditSession *self)
{
  return &self->autosaved_serial;
}

/* ---- edit scripts ------------------------------------------------------------------------------ */

/* Reads an integer or a number; FALSE when absent. */
static gboolean
json_get_number (json_object *obj, const char *key, double *out)
{
  json_object *v;
  if (!json_object_object_get_ex (obj, key, &v))
    return FALSE;
  if (!json_object_is_type (v, json_type_int) && !json_object_is_type (v, json_type_double))
    return FALSE;
  *out = json_object_get_double (v);
  return isfinite (*out);
}

static gboolean
json_get_int (json_object *obj, const char *key, gint64 *out)
{
  json_object *v;
  if (!json_object_object_get_ex (obj, key, &v) || !json_object_is_type (v, json_type_int))
    return FALSE;
  *out = json_object_get_int64 (v);
  return TRUE;
}

static const char *
json_get_str (json_object *obj, const char *key)
{
  json_object *v;
  if (!json_object_object_get_ex (obj, key, &v) || !json_object_is_type (v, json_type_string))
    return NULL;
  return json_object_get_string (v);
}

static gboolean
us_to_ns (double us, gint64 *out)
{
  double ns = us * 1000.0;
  if (!isfinite (ns) || fabs (ns) > 9.0e18)
    return FALSE;
  *out = (gint64) llround (ns);
  return TRUE;
}

/* A duration from "<key>_ns" (integer) or "<key>_us" (number). */
static gboolean
get_span (json_object *op, const char *key, gint64 *out, gboolean *present, GError **error)
{
  g_autofree char *kns = g_strconcat (key, "_ns", NULL);
  g_autofree char *kus = g_strconcat (key, "_us", NULL);
  double us;

  *present = TRUE;
  if (json_object_object_get_ex (op, kns, NULL))
    {
      if (!json_get_int (op, kns, out))
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "\"%s\" must be an integer", kns);
          return FALSE;
        }
      return TRUE;
    }
  if (json_object_object_get_ex (op, kus, NULL))
    {
      if (!json_get_number (op, kus, &us) || !us_to_ns (us, out))
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "\"%s\" must be a finite number", kus);
          return FALSE;
        }
      return TRUE;
    }
  *present = FALSE;
  return TRUE;
}

/* A point in time: "<key>_ns" absolute (common timeline), "<key>_us"
 * microseconds from the beginning of the trace as loaded. */
static gboolean
get_time (WeftEditSession *self, json_object *op, const char *key, gint64 *out, gboolean *present, GError **error)
{
  g_autofree char *kns = g_strconcat (key, "_ns", NULL);
  gboolean absolute = json_object_object_get_ex (op, kns, NULL);

  if (!get_span (op, key, out, present, error))
    return FALSE;
  if (*present && !absolute)
    *out += self->origin;
  return TRUE;
}

static gboolean
parse_kclass (const char *s, WeftKernelClass *out)
{
  for (int k = WEFT_KCLASS_GEMM; k < WEFT_KCLASS_N_CLASSES; k++)
    if (g_ascii_strcasecmp (s, weft_kernel_class_to_string ((WeftKernelClass) k)) == 0)
      {
        *out = (WeftKernelClass) k;
        return TRUE;
      }
  if (g_ascii_strcasecmp (s, "comm") == 0)
    {
      *out = WEFT_KCLASS_COMM;
      return TRUE;
    }
  return FALSE;
}

static gboolean
parse_coll (const char *s, WeftCollType *out)
{
  g_autofree char *norm = g_strdelimit (g_ascii_strdown (s, -1), "-", '_');
  WeftCollType t;
  if (strcmp (norm, "any") == 0 || strcmp (norm, "all") == 0)
    {
      *out = WEFT_COLL_NONE;
      return TRUE;
    }
  if (strcmp (norm, "allreduce") == 0)
    t = WEFT_COLL_ALL_REDUCE;
  else if (strcmp (norm, "allgather") == 0)
    t = WEFT_COLL_ALL_GATHER;
  else if (strcmp (norm, "reducescatter") == 0)
    t = WEFT_COLL_REDUCE_SCATTER;
  else if (strcmp (norm, "alltoall") == 0)
    t = WEFT_COLL_ALL_TO_ALL;
  else
    t = weft_coll_type_from_string (norm);
  if (t == WEFT_COLL_NONE)
    return FALSE;
  *out = t;
  return TRUE;
}

typedef struct
{
  gboolean        has_coll;
  WeftCollType    coll;          /* WEFT_COLL_NONE with has_coll: any collective */
  gboolean        has_class;
  WeftKernelClass kclass;
  GRegex         *name;
  GArray         *ranks;         /* int rank numbers, NULL: any */
  gboolean        has_stream;
  gint64          stream;
  gint64          nth;           /* -1: all */
} Match;

static void
match_clear (Match *m)
{
  if (m->name)
    g_regex_unref (m->name);
  if (m->ranks)
    g_array_free (m->ranks, TRUE);
}

static gboolean
match_parse (json_object *obj, Match *m, GError **error)
{
  json_object *v;
  const char *s;

  memset (m, 0, sizeof *m);
  m->nth = -1;
  if (!json_object_is_type (obj, json_type_object))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "\"match\" must be an object");
      return FALSE;
    }
  json_object_object_foreach (obj, key, val)
    {
      if (strcmp (key, "collective") != 0 && strcmp (key, "class") != 0 && strcmp (key, "name") != 0 &&
          strcmp (key, "rank") != 0 && strcmp (key, "stream") != 0 && strcmp (key, "nth") != 0)
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "match: unknown key \"%s\"", key);
          return FALSE;
        }
      (void) val;
    }
  if ((s = json_get_str (obj, "collective")) != NULL)
    {
      m->has_coll = TRUE;
      if (!parse_coll (s, &m->coll))
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "match: unknown collective \"%s\"", s);
          return FALSE;
        }
    }
  else if (json_object_object_get_ex (obj, "collective", NULL))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "match: \"collective\" must be a string");
      return FALSE;
    }
  if ((s = json_get_str (obj, "class")) != NULL)
    {
      m->has_class = TRUE;
      if (!parse_kclass (s, &m->kclass))
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "match: unknown class \"%s\"", s);
          return FALSE;
        }
    }
  else if (json_object_object_get_ex (obj, "class", NULL))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "match: \"class\" must be a string");
      return FALSE;
    }
  if ((s = json_get_str (obj, "name")) != NULL)
    {
      GError *rerr = NULL;
      m->name = g_regex_new (s, G_REGEX_OPTIMIZE, 0, &rerr);
      if (m->name == NULL)
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "match: bad name regex: %s", rerr->message);
          g_error_free (rerr);
          return FALSE;
        }
    }
  else if (json_object_object_get_ex (obj, "name", NULL))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "match: \"name\" must be a string (a regex)");
      return FALSE;
    }
  if (json_object_object_get_ex (obj, "rank", &v))
    {
      m->ranks = g_array_new (FALSE, FALSE, sizeof (int));
      if (json_object_is_type (v, json_type_int))
        {
          int r = (int) CLAMP (json_object_get_int64 (v), G_MININT, G_MAXINT);
          g_array_append_val (m->ranks, r);
        }
      else if (json_object_is_type (v, json_type_array))
        {
          for (size_t i = 0; i < json_object_array_length (v); i++)
            {
              json_object *e = json_object_array_get_idx (v, i);
              int r;
              if (!json_object_is_type (e, json_type_int))
                {
                  g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "match: \"rank\" must hold integers");
                  return FALSE;
                }
              r = (int) CLAMP (json_object_get_int64 (e), G_MININT, G_MAXINT);
              g_array_append_val (m->ranks, r);
            }
        }
      else
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "match: \"rank\" must be an integer or a list");
          return FALSE;
        }
    }
  if (json_object_object_get_ex (obj, "stream", NULL))
    {
      if (!json_get_int (obj, "stream", &m->stream))
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "match: \"stream\" must be an integer");
          return FALSE;
        }
      m->has_stream = TRUE;
    }
  if (json_object_object_get_ex (obj, "nth", NULL) && (!json_get_int (obj, "nth", &m->nth) || m->nth < 0))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "match: \"nth\" must be an integer >= 0");
      return FALSE;
    }
  return TRUE;
}

typedef struct
{
  WeftOpRef ref;
  gint64    start;
} Hit;

static int
cmp_hit (gconstpointer a, gconstpointer b)
{
  const Hit *x = a, *y = b;
  if (x->ref.rank_index != y->ref.rank_index)
    return x->ref.rank_index < y->ref.rank_index ? -1 : 1;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return (x->ref.event > y->ref.event) - (x->ref.event < y->ref.event);
}

/* Live GPU ops matching m, by (rank, solved start). */
static GArray *
match_run (WeftEditSession *self, const Match *m)
{
  GArray *hits = g_array_new (FALSE, FALSE, sizeof (Hit));
  GArray *out = g_array_new (FALSE, FALSE, sizeof (WeftOpRef));

  for (guint r = 0; r < self->trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (self->trace, r);
      if (m->ranks != NULL)
        {
          gboolean in = FALSE;
          for (guint i = 0; i < m->ranks->len && !in; i++)
            in = g_array_index (m->ranks, int, i) == rank->rank;
          if (!in)
            continue;
        }
      for (guint32 e = 0; e < rank->events->len; e++)
        {
          WeftEvent *ev = weft_rank_event (rank, e);
          Hit h;
          if (!(ev->flags & WEFT_EVENT_GPU_OP) || (ev->flags & WEFT_EVENT_DELETED))
            continue;
          if (m->has_coll)
            {
              WeftCollective *c;
              if (ev->coll == WEFT_NONE || ev->coll >= rank->collectives->len)
                continue;
              c = &g_array_index (rank->collectives, WeftCollective, ev->coll);
              if (m->coll != WEFT_COLL_NONE && c->type != m->coll)
                continue;
            }
          if (m->has_class && ev->kclass != m->kclass)
            continue;
          if (!weft_solver_is_node (self->solver, r, e))
            continue;
          if (m->has_stream)
            {
              guint32 l = weft_solver_op_lane (self->solver, r, e);
              if (l == WEFT_NONE || weft_rank_lane (rank, l)->tid != m->stream)
                continue;
            }
          if (m->name != NULL && !g_regex_match (m->name, weft_rank_string (rank, ev->name), 0, NULL))
            continue;
          h.ref.rank_index = r;
          h.ref.event = e;
          h.start = weft_solver_start (self->solver, r, e);
          g_array_append_val (hits, h);
        }
    }
  g_array_sort (hits, cmp_hit);
  for (guint i = 0; i < hits->len; i++)
    if (m->nth < 0 || (gint64) i == m->nth)
      g_array_append_val (out, g_array_index (hits, Hit, i).ref);
  g_array_free (hits, TRUE);
  return out;
}

/* The explicit op of an entry ("rank" number + "event" index, with the
 * "name" checked when given). */
static gboolean
explicit_ref (WeftEditSession *self, json_object *op, const char *rank_key, const char *event_key, WeftOpRef *out,
              GError **error)
{
  gint64 rank, event;
  int idx;
  const char *name;

  if (!json_get_int (op, rank_key, &rank) || !json_get_int (op, event_key, &event))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "needs integer \"%s\" and \"%s\" (or a \"match\")",
                   rank_key, event_key);
      return FALSE;
    }
  idx = rank >= G_MININT && rank <= G_MAXINT ? weft_trace_find_rank (self->trace, (int) rank) : -1;
  if (idx < 0)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "rank %" G_GINT64_FORMAT " is not in the trace", rank);
      return FALSE;
    }
  if (event < 0 || event >= weft_trace_rank (self->trace, idx)->events->len)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "rank %" G_GINT64_FORMAT ": no event %" G_GINT64_FORMAT,
                   rank, event);
      return FALSE;
    }
  out->rank_index = (guint) idx;
  out->event = (guint32) event;
  name = json_get_str (op, "name");
  if (name != NULL && strcmp (name, op_name (self, *out)) != 0)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
                   "rank %" G_GINT64_FORMAT " event %" G_GINT64_FORMAT " is \"%s\", not \"%s\": the edits do not fit this trace",
                   rank, event, op_name (self, *out), name);
      return FALSE;
    }
  return TRUE;
}

/* The ops an entry targets: explicit, or "match", or the shorthand keys
 * "collective" / "class" at the top level. Never empty on success. */
static GArray *
resolve_targets (WeftEditSession *self, json_object *op, GError **error)
{
  json_object *mobj = NULL;
  Match m;
  GArray *out;

  if (json_object_object_get_ex (op, "event", NULL))
    {
      WeftOpRef ref;
      if (!explicit_ref (self, op, "rank", "event", &ref, error))
        return NULL;
      if (!check_op (self, ref, error))
        return NULL;
      out = g_array_new (FALSE, FALSE, sizeof (WeftOpRef));
      g_array_append_val (out, ref);
      return out;
    }
  if (json_object_object_get_ex (op, "match", &mobj))
    {
      if (!match_parse (mobj, &m, error))
        {
          match_clear (&m);
          return NULL;
        }
    }
  else
    {
      /* shorthand: the entry's own collective / class keys */
      json_object *tmp = json_object_new_object ();
      gboolean ok;
      if (json_object_object_get_ex (op, "collective", &mobj))
        json_object_object_add (tmp, "collective", json_object_get (mobj));
      if (json_object_object_get_ex (op, "class", &mobj))
        json_object_object_add (tmp, "class", json_object_get (mobj));
      if (json_object_object_length (tmp) == 0)
        {
          json_object_put (tmp);
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
                       "no target: give \"rank\" and \"event\", or \"match\", or \"collective\" / \"class\"");
          return NULL;
        }
      ok = match_parse (tmp, &m, error);
      json_object_put (tmp);
      if (!ok)
        {
          match_clear (&m);
          return NULL;
        }
    }
  out = match_run (self, &m);
  match_clear (&m);
  if (out->len == 0)
    {
      g_array_free (out, TRUE);
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "the match selects no live GPU op");
      return NULL;
    }
  return out;
}

/* resolve_targets for an op that acts on exactly one op. */
static gboolean
resolve_one_target (WeftEditSession *self, json_object *op, WeftOpRef *ref, GError **error)
{
  g_autoptr (GArray) refs = resolve_targets (self, op, error);

  if (refs == NULL)
    return FALSE;
  if (refs->len != 1)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "needs exactly one op (the match selects %u)", refs->len);
      return FALSE;
    }
  *ref = g_array_index (refs, WeftOpRef, 0);
  return TRUE;
}

/* op's "stream" (an integer, required) and "device" (an integer; device
 * left as it is when absent). */
static gboolean
get_stream_device (json_object *op, gint64 *stream, gint64 *device, GError **error)
{
  if (!json_get_int (op, "stream", stream) || *stream < 0)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "needs an integer \"stream\" >= 0");
      return FALSE;
    }
  if (json_object_object_get_ex (op, "device", NULL) && (!json_get_int (op, "device", device) || *device < 0))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "\"device\" must be an integer >= 0");
      return FALSE;
    }
  return TRUE;
}

static gboolean
require_factor (json_object *op, double *factor, GError **error)
{
  if (!json_get_number (op, "factor", factor))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "needs a number \"factor\"");
      return FALSE;
    }
  return check_factor (*factor, error);
}

static gboolean
script_scale (WeftEditSession *self, json_object *op, GError **error)
{
  double factor;
  g_autoptr (GArray) refs = NULL;
  const char *s;

  if (!require_factor (op, &factor, error))
    return FALSE;
  if (!json_object_object_get_ex (op, "event", NULL) && !json_object_object_get_ex (op, "match", NULL))
    {
      gboolean has_coll = json_object_object_get_ex (op, "collective", NULL);
      gboolean has_class = json_object_object_get_ex (op, "class", NULL);
      if (has_coll && !has_class && (s = json_get_str (op, "collective")) != NULL)
        {
          WeftCollType t;
          if (!parse_coll (s, &t))
            {
              g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "unknown collective \"%s\"", s);
              return FALSE;
            }
          return weft_edit_scale_collective (self, t, factor, NULL, error);
        }
      if (has_class && !has_coll && (s = json_get_str (op, "class")) != NULL)
        {
          WeftKernelClass k;
          if (!parse_kclass (s, &k))
            {
              g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "unknown class \"%s\"", s);
              return FALSE;
            }
          return weft_edit_scale_class (self, k, factor, NULL, error);
        }
    }
  refs = resolve_targets (self, op, error);
  if (refs == NULL)
    return FALSE;
  return retime_refs (self, (WeftOpRef *) (void *) refs->data, refs->len, factor, -1, NULL, NULL, error);
}

static gboolean
script_set_duration (WeftEditSession *self, json_object *op, GError **error)
{
  g_autoptr (GArray) refs = NULL;
  gint64 dur;
  gboolean present;

  if (!get_span (op, "dur", &dur, &present, error))
    return FALSE;
  if (!present || dur < 0)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "needs \"dur_us\" or \"dur_ns\" >= 0");
      return FALSE;
    }
  refs = resolve_targets (self, op, error);
  if (refs == NULL)
    return FALSE;
  return retime_refs (self, (WeftOpRef *) (void *) refs->data, refs->len, 1.0, dur, NULL, NULL, error);
}

static gboolean
one_rank (json_object *op)
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

  if (!get_span (op, "shift", &delta, &present, error))
    return FALSE;
  if (!present)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "needs \"shift_us\" or \"shift_ns\"");
      return FALSE;
    }
  refs = resolve_targets (self, op, error);
  if (refs == NULL)
    return FALSE;
  return weft_edit_move_selection (self, (WeftOpRef *) (void *) refs->data, refs->len, delta, !one_rank (op),
                                   error);
}

static gboolean
script_move_time (WeftEditSession *self, json_object *op, GError **error)
{
  g_autoptr (GArray) refs = NULL;
  gint64 start;
  gboolean present;

  if (!get_time (self, op, "start", &start, &present, error))
    return FALSE;
  if (!present)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "needs \"start_us\" or \"start_ns\"");
      return FALSE;
    }
  refs = resolve_targets (self, op, error);
  if (refs == NULL)
    return FALSE;
  if (refs->len != 1)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
                   "move_time needs exactly one op (the match selects %u; use \"nth\" or \"shift\")", refs->len);
      return FALSE;
    }
  return weft_edit_move_time (self, g_array_index (refs, WeftOpRef, 0), start, !one_rank (op), error);
}

/* A log entry: set (or clear, start_ns < 0) one op's minimum start. */
static gboolean
script_set_min_start (WeftEditSession *self, json_object *op, GError **error)
{
  g_autoptr (GArray) refs = g_array_new (FALSE, FALSE, sizeof (WeftOpRef));
  WeftOpRef ref;
  gint64 start;

  if (!explicit_ref (self, op, "rank", "event", &ref, error) || !check_op (self, ref, error))
    return FALSE;
  if (!json_get_int (op, "start_ns", &start))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "needs an integer \"start_ns\"");
      return FALSE;
    }
  if (start >= 0 && !check_time (start, error))
    return FALSE;
  if (start < 0)
    start = -1;
  g_array_append_val (refs, ref);
  return move_refs_to (self, refs, &start, error);
}

static gboolean
script_move_stream (WeftEditSession *self, json_object *op, GError **error)
{
  g_autoptr (GArray) targets = NULL;
  g_autoptr (GArray) refs = g_array_new (FALSE, FALSE, sizeof (WeftOpRef));
  g_autoptr (GHashTable) seen = ref_set_new ();
  g_autofree guint32 *lanes = NULL;
  g_autofree gint64 *times = NULL;
  gint64 stream, at = -1, device = -1;
  gboolean has_at, whole;

  if (!get_stream_device (op, &stream, &device, error))
    return FALSE;
  if (!get_time (self, op, "at", &at, &has_at, error))
    return FALSE;
  if (has_at && !check_time (at, error))
    return FALSE;
  targets = resolve_targets (self, op, error);
  if (targets == NULL)
    return FALSE;
  /* an explicit collective op takes its instance along unless one_rank;
   * a match already lists the members it wants */
  whole = json_object_object_get_ex (op, "event", NULL) && !one_rank (op);
  for (guint i = 0; i < targets->len; i++)
    add_ref (self, refs, seen, g_array_index (targets, WeftOpRef, i), whole);
  lanes = g_new (guint32, refs->len);
  times = g_new (gint64, refs->len);
  for (guint i = 0; i < refs->len; i++)
    {
      WeftOpRef r = g_array_index (refs, WeftOpRef, i);
      WeftLane *cur = op_lane (self, r);
      lanes[i] = stream_lane (self, r.rank_index, device >= 0 ? (int) MIN (device, G_MAXINT) : (cur ? cur->device : -1),
                              stream);
      times[i] = has_at ? at : weft_solver_start (self->solver, r.rank_index, r.event);
    }
  return move_refs_to_lanes (self, refs, lanes, times, NULL, error);
}

/* {"op": "move_to_position", "moves": [{rank, event, name, device, stream,
 * position}, ...]}: several moves checked for cycles together (the log's
 * form of a collective moved on every rank at once). */
static gboolean
script_move_many (WeftEditSession *self, json_object *moves, GError **error)
{
  g_autoptr (GArray) refs = g_array_new (FALSE, FALSE, sizeof (WeftOpRef));
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
      WeftOpRef ref;
      gint64 position, stream, device = -1;
      if (!json_object_is_type (m, json_type_object))
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "\"moves\" entries must be objects");
          return FALSE;
        }
      if (!explicit_ref (self, m, "rank", "event", &ref, error) || !check_op (self, ref, error))
        return FALSE;
      if (!json_get_int (m, "position", &position) || position < 0 || position > G_MAXINT ||
          !json_get_int (m, "stream", &stream) || stream < 0)
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "a move needs integer \"stream\" and \"position\" >= 0");
          return FALSE;
        }
      if (json_object_object_get_ex (m, "device", NULL) && (!json_get_int (m, "device", &device) || device < 0))
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "\"device\" must be an integer >= 0");
          return FALSE;
        }
      lanes[i] = stream_lane (self, ref.rank_index, device >= 0 ? (int) MIN (device, G_MAXINT) : -1, stream);
      positions[i] = (guint) position;
      g_array_append_val (refs, ref);
    }
  return move_refs_to_lanes (self, refs, lanes, NULL, positions, error);
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
  WeftOpRef ref;
  guint pos;

  if (!resolve_one_target (self, op, &ref, error))
    return FALSE;
  if (!json_get_int (op, "position", &position) || position < 0)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "needs an integer \"position\" >= 0");
      return FALSE;
    }
  if (reorder)
    lane = weft_solver_op_lane (self->solver, ref.rank_index, ref.event);
  else
    {
      if (!get_stream_device (op, &stream, &device, error))
        return FALSE;
      lane = stream_lane (self, ref.rank_index, device >= 0 ? (int) MIN (device, G_MAXINT) : -1, stream);
    }
  n = weft_solver_lane_n_ops (self->solver, ref.rank_index, lane);
  if (lane == weft_solver_op_lane (self->solver, ref.rank_index, ref.event))
    n = n > 0 ? n - 1 : 0;
  if (position > n)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "position %" G_GINT64_FORMAT " is past the end of the stream (%u ops)",
                   position, n);
      return FALSE;
    }
  pos = (guint) position;
  refs = g_array_new (FALSE, FALSE, sizeof (WeftOpRef));
  g_array_append_val (refs, ref);
  return move_refs_to_lanes (self, refs, &lane, NULL, &pos, error);
}

static gboolean
script_delete (WeftEditSession *self, json_object *op, GError **error)
{
  g_autoptr (GArray) refs = resolve_targets (self, op, error);
  if (refs == NULL)
    return FALSE;
  return weft_edit_delete (self, (WeftOpRef *) (void *) refs->data, refs->len, error);
}

static gboolean
script_duplicate (WeftEditSession *self, json_object *op, GError **error)
{
  g_autoptr (GArray) refs = resolve_targets (self, op, error);
  if (refs == NULL)
    return FALSE;
  return weft_edit_duplicate (self, (WeftOpRef *) (void *) refs->data, refs->len, NULL, error);
}

/* Checks a created event's index against the log's ("event"). */
static gboolean
check_expected_event (WeftEditSession *self, json_object *op, const char *key, guint rank_index, GError **error)
{
  gint64 expect;
  WeftRank *rank = weft_trace_rank (self->trace, rank_index);
  if (!json_get_int (op, key, &expect))
    return TRUE;
  if (expect != (gint64) rank->events->len)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
                   "rank %d: the edits created event %" G_GINT64_FORMAT " but the trace now has %u events: the edits do not fit this trace",
                   rank->rank, expect, rank->events->len);
      return FALSE;
    }
  return TRUE;
}

static gboolean
script_rank_index (WeftEditSession *self, json_object *op, const char *key, guint *out, GError **error)
{
  gint64 rank;
  int idx;
  if (!json_get_int (op, key, &rank))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "needs an integer \"%s\"", key);
      return FALSE;
    }
  idx = rank >= G_MININT && rank <= G_MAXINT ? weft_trace_find_rank (self->trace, (int) rank) : -1;
  if (idx < 0)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "rank %" G_GINT64_FORMAT " is not in the trace", rank);
      return FALSE;
    }
  *out = (guint) idx;
  return TRUE;
}

/* "at_ns"/"at_us", or "after": a match; its first op on the rank decides:
 * on the same stream (lane) the new op goes right after it, elsewhere it
 * is released at its end. */
static gboolean
script_at (WeftEditSession *self, json_object *op, guint rank_index, guint32 lane, gint64 *at, GError **error)
{
  gboolean present;
  json_object *after;

  if (!get_time (self, op, "at", at, &present, error))
    return FALSE;
  if (present)
    return TRUE;
  if (json_object_object_get_ex (op, "after", &after))
    {
      Match m;
      g_autoptr (GArray) hits = NULL;
      if (!match_parse (after, &m, error))
        {
          match_clear (&m);
          return FALSE;
        }
      if (m.ranks == NULL)
        {
          int rn = rank_number (self, rank_index);
          m.ranks = g_array_new (FALSE, FALSE, sizeof (int));
          g_array_append_val (m.ranks, rn);
        }
      hits = match_run (self, &m);
      match_clear (&m);
      if (hits->len == 0)
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "\"after\" selects no op");
          return FALSE;
        }
      {
        WeftOpRef h = g_array_index (hits, WeftOpRef, 0);
        if (h.rank_index == rank_index && weft_solver_op_lane (self->solver, h.rank_index, h.event) == lane)
          *at = weft_solver_start (self->solver, h.rank_index, h.event);
        else
          *at = weft_solver_end (self->solver, h.rank_index, h.event);
      }
      return TRUE;
    }
  g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "needs \"at_us\", \"at_ns\" or \"after\"");
  return FALSE;
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

  if (!script_rank_index (self, op, "rank", &rank_index, error))
    return FALSE;
  if (!get_stream_device (op, &stream, &device, error))
    return FALSE;
  lane = stream_lane (self, rank_index, device >= 0 ? (int) MIN (device, G_MAXINT) : -1, stream);
  if (!script_at (self, op, rank_index, lane, &at, error))
    return FALSE;
  if (!get_span (op, "dur", &dur, &has_dur, error))
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
      WeftOpRef src;
      WeftEvent *e;
      if (!match_parse (like, &m, error))
        {
          match_clear (&m);
          return FALSE;
        }
      hits = match_run (self, &m);
      match_clear (&m);
      if (hits->len == 0)
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "\"like\" selects no op");
          return FALSE;
        }
      src = g_array_index (hits, WeftOpRef, 0);
      if (op_collective (self, src) != NULL)
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
                       "\"like\" selects a collective: use insert_collective");
          return FALSE;
        }
      e = op_event (self, src);
      name = g_strdup (op_name (self, src));
      k.category = (WeftCategory) e->category;
      k.kclass = (WeftKernelClass) e->kclass;
      k.median_dur = weft_solver_duration (self->solver, src.rank_index, src.event);
      k.example = src;
    }
  else
    {
      if ((s = json_get_str (op, "name")) == NULL)
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "needs \"like\" (a match) or a \"name\"");
          return FALSE;
        }
      name = g_strdup (s);
      if ((s = json_get_str (op, "class")) != NULL && !parse_kclass (s, &k.kclass))
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "unknown class \"%s\"", s);
          return FALSE;
        }
      if (k.kclass == WEFT_KCLASS_COMM)
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "a communication kernel: use insert_collective");
          return FALSE;
        }
      if ((s = json_get_str (op, "category")) != NULL)
        {
          WeftCategory c = weft_category_from_string (s, strlen (s));
          if (c != WEFT_CAT_KERNEL && c != WEFT_CAT_GPU_MEMCPY && c != WEFT_CAT_GPU_MEMSET)
            {
              g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "category \"%s\" is not a GPU op", s);
              return FALSE;
            }
          k.category = c;
        }
      if (json_get_int (op, "like_event", &like_event))
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
  if (!check_expected_event (self, op, "event", rank_index, error))
    return FALSE;
  return weft_edit_insert_kernel (self, rank_index, lane, at, &k, has_dur ? dur : k.median_dur, NULL, error);
}

static gboolean
script_insert_collective (WeftEditSession *self, json_object *op, GError **error)
{
  WeftCollType type;
  const char *s;
  gint64 bytes, transfer = -1;
  json_object *places_j, *ranks_j;

  if ((s = json_get_str (op, "collective")) == NULL || !parse_coll (s, &type) || type == WEFT_COLL_NONE)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "needs a \"collective\" type (all_reduce, all_gather, ...)");
      return FALSE;
    }
  if (!json_get_int (op, "bytes", &bytes) || bytes <= 0)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "needs an integer \"bytes\" > 0");
      return FALSE;
    }
  if (json_object_object_get_ex (op, "transfer_ns", NULL) && (!json_get_int (op, "transfer_ns", &transfer) || transfer < 0))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "\"transfer_ns\" must be an integer >= 0");
      return FALSE;
    }

  if (json_object_object_get_ex (op, "places", &places_j))
    {
      /* the log's exact form: one place per rank */
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
          if (!json_object_is_type (p, json_type_object) || !script_rank_index (self, p, "rank", &ri, error))
            {
              if (error && *error == NULL)
                g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "\"places\" entries must be objects");
              return FALSE;
            }
          if (!json_get_int (p, "stream", &stream) || !json_get_int (p, "at_ns", &places[i].at_time) || stream < 0 ||
              (json_object_object_get_ex (p, "device", NULL) && (!json_get_int (p, "device", &device) || device < 0)))
            {
              g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
                           "a place needs integer \"stream\" >= 0 and \"at_ns\" (and \"device\" >= 0 if any)");
              return FALSE;
            }
          if (!check_time (places[i].at_time, error))
            return FALSE;
          json_get_int (p, "device", &device);
          for (size_t j = 0; j < i; j++)
            if (places[j].rank_index == ri)
              {
                g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "\"places\" lists a rank twice");
                return FALSE;
              }
          if (!check_expected_event (self, p, "event", ri, error))
            return FALSE;
          places[i].rank_index = ri;
          places[i].lane = stream_lane (self, ri, device >= 0 ? (int) MIN (device, G_MAXINT) : -1, stream);
          numbers[i] = rank_number (self, ri);
        }
      cs.type = type;
      cs.bytes = bytes;
      cs.dtype = json_get_str (op, "dtype");
      cs.pg_name = json_get_str (op, "pg_name");
      cs.pg_desc = json_get_str (op, "pg_desc");
      cs.kernel_name = json_get_str (op, "kernel_name");
      if (transfer > MAX_DUR_NS)
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "\"transfer_ns\" out of range");
          return FALSE;
        }
      cs.transfer_ns = transfer >= 0 ? transfer
                                     : weft_cost_model_estimate_group (weft_edit_session_get_cost_model (self), type,
                                                                       bytes, cs.pg_name, numbers, (guint) n, NULL);
      return insert_collective_places (self, &cs, places, (guint) n, NULL, error);
    }
  else
    {
      WeftEditCollSpec spec = { 0 };
      g_autoptr (GArray) ranks = g_array_new (FALSE, FALSE, sizeof (int));
      gint64 stream;
      guint first = 0;

      if (!json_get_int (op, "stream", &stream) || stream < 0)
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
      if (!script_at (self, op, first, stream_lane (self, first, -1, stream), &spec.at_time, error))
        return FALSE;
      spec.type = type;
      spec.bytes = bytes;
      spec.stream = stream;
      spec.pg_name = json_get_str (op, "pg_name");
      spec.dtype = json_get_str (op, "dtype");
      spec.transfer_ns = transfer;
      return weft_edit_insert_collective (self, &spec, NULL, error);
    }
}

static gboolean
script_move_to_rank (WeftEditSession *self, json_object *op, GError **error)
{
  WeftOpRef ref;
  guint dst;
  gint64 stream, device = -1, at = -1;
  gboolean has_at;

  if (!resolve_one_target (self, op, &ref, error))
    return FALSE;
  if (!script_rank_index (self, op, "to_rank", &dst, error))
    return FALSE;
  if (!get_stream_device (op, &stream, &device, error))
    return FALSE;
  if (!get_time (self, op, "at", &at, &has_at, error))
    return FALSE;
  if (has_at && !check_time (at, error))
    return FALSE;
  if (dst != ref.rank_index && !check_expected_event (self, op, "new_event", dst, error))
    return FALSE;
  return weft_edit_move_to_rank (self, ref, dst,
                                 stream_lane (self, dst, device >= 0 ? (int) MIN (device, G_MAXINT) : -1, stream),
                                 has_at ? at : -1, NULL, error);
}

/* One operation, no grouping of its own. */
static gboolean
apply_op (WeftEditSession *self, json_object *op, GError **error)
{
  const char *kind;

  if (!json_object_is_type (op, json_type_object) || (kind = json_get_str (op, "op")) == NULL)
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

/* Applies ops (an array) as ONE undo entry; all or nothing. Used by
 * recovery (an entry of the log) and by apply_json (one op). */
gboolean weft_edit_session_apply_group (WeftEditSession *self, json_object *ops, GError **error);

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
      notify_changed (self);
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
                       json_object_is_type (op, json_type_object) && json_get_str (op, "op") ? json_get_str (op, "op")
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
  json_tokener *tok;
  json_object *script;
  enum json_tokener_error jerr;
  gboolean ok;

  if (!g_file_get_contents (path, &text, &len, error))
    return FALSE;
  if (len > 64u << 20)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_TOO_LARGE, "%s: script larger than 64 MiB", path);
      return FALSE;
    }
  tok = json_tokener_new_ex (64);
  script = json_tokener_parse_ex (tok, text, (int) len);
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
