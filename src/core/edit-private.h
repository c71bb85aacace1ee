/* edit-private.h: the edit session's internals, shared by the files of the
 * edit module (docs/architecture.md, "The edit module"):
 *
 *   edit-session.c  the session (lifecycle, the Action engine, the history
 *                   glue, undo/redo/gestures, metrics, save)
 *   edit-ops.c      the operations: op helpers, moves in time and between
 *                   streams, durations, delete
 *   edit-insert.c   the operations that create ops: insert, duplicate,
 *                   move to another rank
 *   edit-script.c   edit-script operations, the script entry points and the
 *                   edit log (edit-script-private.h: edit-script-parse.c)
 *   recovery.c      autosave and restore of the edit history
 *
 * Each operation builds one Action (a history tag + items) by applying its
 * steps through the solver one by one; if a step fails (a cycle, a bad
 * argument) the steps already done are undone in reverse, so the solver and
 * the model are as before, and nothing is recorded. The history undoes and
 * redoes an Action with _weft_edit_action_apply(), which has the same
 * all-or-nothing rule. Every Action can write itself as edit-log entries
 * (JSON), which are edit-script operations (docs/editing.md): replaying the
 * log of a freshly loaded trace gives the same state. */
#pragma once

#include "weft/weft-edit.h"

G_BEGIN_DECLS

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

/* Bounds that keep every solved time far from gint64 overflow: a duration
 * or a shift of at most ~11.6 days, a point in time below 2^62 ns. */
#define MAX_DUR_NS G_GINT64_CONSTANT (1000000000000000)
#define MAX_TIME_NS (G_MAXINT64 / 2)

/* ---- actions and the history (edit-session.c) ------------------------------------- */

Action  *_weft_edit_action_new     (WeftEditTag tag);
void     _weft_edit_action_free    (Action *a);
/* Applies item i of a forward (undo FALSE) or backward. */
gboolean _weft_edit_item_apply     (WeftEditSession *self, Action *a, guint i, gboolean undo, GError **error);
/* All items forward (in order) or backward (reverse order); all or nothing. */
gboolean _weft_edit_action_apply   (WeftEditSession *self, Action *a, gboolean undo, GError **error);
/* The cross-stream / explicit waits of every item's op on other ops. */
GArray  *_weft_edit_record_deps    (WeftEditSession *self, Action *a);
/* Counts a change of the schedule and tells the window. */
void     _weft_edit_notify_changed (WeftEditSession *self);
/* Records an action that has been applied. */
void     _weft_edit_commit         (WeftEditSession *self, Action *a);
/* Applies the items of a freshly built action forward; on failure the
 * action is rolled back and freed. On success it is recorded. */
gboolean _weft_edit_run_and_commit (WeftEditSession *self, Action *a, GError **error);

/* ---- op helpers (edit-ops.c) ------------------------------------------------------- */

static inline WeftEvent *
_weft_edit_op_event (WeftEditSession *self, WeftEventRef op)
{
  return weft_rank_event (weft_trace_rank (self->trace, op.rank_index), op.event);
}

static inline const char *
_weft_edit_op_name (WeftEditSession *self, WeftEventRef op)
{
  WeftRank *rank = weft_trace_rank (self->trace, op.rank_index);
  return weft_rank_string (rank, weft_rank_event (rank, op.event)->name);
}

static inline int
_weft_edit_rank_number (WeftEditSession *self, guint rank_index)
{
  return weft_trace_rank (self->trace, rank_index)->rank;
}

/* The collective of an op, or NULL. */
static inline WeftCollective *
_weft_edit_op_collective (WeftEditSession *self, WeftEventRef op)
{
  WeftRank *rank = weft_trace_rank (self->trace, op.rank_index);
  WeftEvent *ev = weft_rank_event (rank, op.event);
  if (weft_event_coll (rank, ev) == WEFT_NONE || weft_event_coll (rank, ev) >= rank->collectives->len)
    return NULL;
  return &g_array_index (rank->collectives, WeftCollective, weft_event_coll (rank, ev));
}

static inline guint32
_weft_edit_op_instance (WeftEditSession *self, WeftEventRef op)
{
  WeftCollective *c = _weft_edit_op_collective (self, op);
  return c != NULL && c->instance < self->trace->instances->len ? c->instance : WEFT_NONE;
}

static inline json_object *
_weft_edit_json_int (gint64 v)
{
  return json_object_new_int64 (v);
}

gboolean    _weft_edit_check_op          (WeftEditSession *self, WeftEventRef op, GError **error);
/* Live members of an instance (WeftEventRef), in member order. */
GArray     *_weft_edit_instance_members  (WeftEditSession *self, guint32 instance);
/* A set of ops for _weft_edit_add_ref. */
GHashTable *_weft_edit_ref_set_new       (void);
/* Adds op (and, when expand, the other members of its instance) once. */
void        _weft_edit_add_ref           (WeftEditSession *self, GArray *out, GHashTable *seen, WeftEventRef op,
                                          gboolean expand);
/* The GPU lane of a rank with stream id `stream` on `device` (-1: the
 * rank's first GPU device), created when missing. */
guint32     _weft_edit_stream_lane       (WeftEditSession *self, guint rank_index, int device, gint64 stream);
WeftLane   *_weft_edit_op_lane           (WeftEditSession *self, WeftEventRef op);
/* self NULL: a new op (for the message). */
gboolean    _weft_edit_check_dur         (WeftEditSession *self, WeftEventRef op, gint64 dur, GError **error);
gboolean    _weft_edit_check_time        (gint64 t, GError **error);
gboolean    _weft_edit_check_factor      (double factor, GError **error);

/* ---- the operations' cores, for the script (edit-ops.c, edit-insert.c) ------------- */

/* One MIN_START action: refs[i] starts no earlier than starts[i]. */
gboolean _weft_edit_move_refs_to       (WeftEditSession *self, GArray *refs, const gint64 *starts, GError **error);
/* Moves each ref to lanes[i], at positions[i] or (positions NULL) by
 * times[i], as ONE action. */
gboolean _weft_edit_move_refs_to_lanes (WeftEditSession *self, GArray *refs, const guint32 *lanes,
                                        const gint64 *times, const guint *positions, GError **error);
/* One DURATION action over ops: each duration x factor, or = dur when
 * dur >= 0. log (taken, nullable): the action's log entry. */
gboolean _weft_edit_retime_refs        (WeftEditSession *self, const WeftEventRef *ops, guint n_ops, double factor,
                                        gint64 dur, json_object *log, guint *n_items, GError **error);
/* Inserts one collective on places as one INSERT action. */
gboolean _weft_edit_insert_collective_places (WeftEditSession *self, const WeftSolverCollSpec *cs,
                                              const WeftSolverPlace *places, guint n, WeftEventRef *new_op,
                                              GError **error);

/* ---- the edit log and scripts (edit-script.c) ---------------------------------------- */

/* Appends the log entries of an action to out. */
void     _weft_edit_action_log (WeftEditSession *self, Action *a, json_object *out);
/* Applies ops (an array) as ONE undo entry; all or nothing. Used by
 * recovery (an entry of the log) and by apply_json (one op). */
gboolean weft_edit_session_apply_group (WeftEditSession *self, json_object *ops, GError **error);

/* ---- recovery.c ------------------------------------------------------------------------ */

/* The trace files of trace_path as they are now (paths, sizes, times). */
json_object *weft_recovery_stamp         (const char *trace_path);
/* TRUE when the files are still as stamped. */
gboolean     weft_recovery_stamp_matches (json_object *stamp);

G_END_DECLS
