/* weft-edit.h: the edit session: a trace, its solver and an undo history.
 *
 * Every operation is applied through the solver's edit API (weft-solver.h),
 * re-solves at once, and is recorded as one tagged action in the history
 * (weft-history.h): one undo entry per operation, or per gesture between
 * weft_edit_session_begin_gesture() and _end_gesture() (a drag: many
 * intermediate moves of the same ops merge into one entry). An operation the
 * solver refuses (WEFT_ERROR_CYCLE: it would deadlock) or that is invalid
 * leaves the model, the solver and the history exactly as they were and
 * returns the error.
 *
 * Ops are named by WeftEventRef (rank index into trace->ranks, event index in
 * that rank's events). Times are ns on the common timeline, as in the solver.
 *
 * The operations in effect can be written as JSON (the edit log: saved under
 * the top-level "weft" key, autosaved to a recovery file) and replayed: the
 * log's entries are edit-script operations (docs/editing.md). */
#pragma once

#include <json-c/json.h>

#include "weft-costmodel.h"
#include "weft-history.h"
#include "weft-model.h"
#include "weft-save.h"
#include "weft-solver.h"

G_BEGIN_DECLS

/* History tags of the edit actions (also the "op" of log entries). */
typedef enum
{
  WEFT_EDIT_MIN_START = 1,    /* move in time: set_min_start ("set_min_start") */
  WEFT_EDIT_POSITION,         /* move to another stream of the rank / reorder ("move_to_position") */
  WEFT_EDIT_DURATION,         /* set / scale durations ("set_duration") */
  WEFT_EDIT_INSERT,           /* insert kernel / collective / duplicate ("insert_kernel", "insert_collective") */
  WEFT_EDIT_DELETE,           /* delete ("delete") */
  WEFT_EDIT_MOVE_RANK,        /* move to another rank's stream ("move_to_rank") */
} WeftEditTag;

typedef struct _WeftEditSession WeftEditSession;

/* Called after every change of the solved schedule (an operation, an undo,
 * a redo, a cancelled gesture): the window redraws and updates its chips. */
typedef void (*WeftEditChangedFunc) (WeftEditSession *session, gpointer user_data);
/* Called when modified / can-undo / can-redo change (the window's buttons). */
typedef void (*WeftEditStateFunc)   (WeftEditSession *session, gboolean is_modified,
                                     gboolean can_undo, gboolean can_redo, gpointer user_data);

/* ---- lifecycle -------------------------------------------------------------- */

/* Builds a solver over trace. Takes ownership of trace on success; on
 * failure the caller keeps it. source_path (the file or folder the trace was
 * loaded from; may be NULL) is used for the recovery file. */
/* (transfer full) (nullable): NULL with error set */
WeftEditSession *weft_edit_session_new          (WeftTrace        *trace,
                                                 const char       *source_path,
                                                 GError          **error);
void             weft_edit_session_free         (WeftEditSession  *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WeftEditSession, weft_edit_session_free)

WeftTrace       *weft_edit_session_get_trace    (WeftEditSession  *self); /* (transfer none) */
WeftSolver      *weft_edit_session_get_solver   (WeftEditSession  *self); /* (transfer none) */
WeftHistory     *weft_edit_session_get_history  (WeftEditSession  *self); /* (transfer none) */
const char      *weft_edit_session_get_source_path (WeftEditSession *self); /* (transfer none) (nullable) */
/* The cost model fitted from the trace's own collectives (built on first use). */
WeftCostModel   *weft_edit_session_get_cost_model (WeftEditSession *self); /* (transfer none) */

void             weft_edit_session_set_changed_func (WeftEditSession    *self,
                                                     WeftEditChangedFunc func,
                                                     gpointer            user_data);
void             weft_edit_session_set_state_func   (WeftEditSession    *self,
                                                     WeftEditStateFunc   func,
                                                     gpointer            user_data);

/* Counts every change of the edits in effect (operations, undo, redo). */
guint64          weft_edit_session_get_serial   (WeftEditSession  *self);

/* ---- undo / redo / gestures --------------------------------------------------- */

gboolean weft_edit_session_undo             (WeftEditSession *self, GError **error);
gboolean weft_edit_session_redo             (WeftEditSession *self, GError **error);
gboolean weft_edit_session_can_undo         (WeftEditSession *self);
gboolean weft_edit_session_can_redo         (WeftEditSession *self);
/* TRUE when the edits in effect differ from the last save (or the load). */
gboolean weft_edit_session_is_modified      (WeftEditSession *self);

/* A drag: call begin on press, any operations on motion (moves of the same
 * ops merge), end on release: one undo entry. cancel (Escape) undoes what
 * the gesture did and leaves no entry. */
void     weft_edit_session_begin_gesture    (WeftEditSession *self);
void     weft_edit_session_end_gesture      (WeftEditSession *self);
gboolean weft_edit_session_cancel_gesture   (WeftEditSession *self, GError **error);

/* ---- operations ------------------------------------------------------------------ */

/* Moves an op in time: it starts no earlier than start (a user minimum start,
 * the solver may still put it later). A collective member with
 * whole_instance moves its instance on all ranks by the same delta (each
 * member's minimum start = its arrival + delta); without, only this rank
 * moves and the others wait for it. */
gboolean weft_edit_session_move_time         (WeftEditSession *self, WeftEventRef op, gint64 start,
                                              gboolean whole_instance, GError **error);
/* Moves several ops together by delta (each: minimum start = its current
 * start + delta). Collective members take their instance along when
 * whole_instances. Inside a gesture "current start" is an op's start when
 * the gesture first moved it: each motion passes the TOTAL offset of the
 * drag (the same holds for the other members in weft_edit_session_move_time). */
gboolean weft_edit_session_move_selection    (WeftEditSession *self, const WeftEventRef *ops, guint n_ops,
                                              gint64 delta, gboolean whole_instances, GError **error);
/* Moves an op to another GPU lane of its rank at at_time (see
 * weft_solver_move_to_lane). With whole_instance, every member of its
 * collective instance moves to the stream with the same id on its own rank
 * (created there when missing). */
gboolean weft_edit_session_move_to_lane      (WeftEditSession *self, WeftEventRef op, guint32 lane,
                                              gint64 at_time, gboolean whole_instance, GError **error);
/* Same with a stream id: the op's rank's GPU lane with tid == stream on the
 * op's device (created when missing). at_time < 0: the op's current start. */
gboolean weft_edit_session_move_to_stream    (WeftEditSession *self, WeftEventRef op, gint64 stream,
                                              gint64 at_time, gboolean whole_instance, GError **error);
/* Reorders an op on its own stream: it takes stream position `position`. */
gboolean weft_edit_session_reorder           (WeftEditSession *self, WeftEventRef op, guint position,
                                              GError **error);
/* Moves a compute op (not a collective member) to a stream of another rank
 * (moving work between GPUs): it is removed from its rank and a copy is
 * created on dst_lane of dst_rank_index at at_time; new_op (nullable)
 * receives the copy. */
gboolean weft_edit_session_move_to_rank      (WeftEditSession *self, WeftEventRef op, guint dst_rank_index,
                                              guint32 dst_lane, gint64 at_time, WeftEventRef *new_op,
                                              GError **error);

/* Sets an op's duration (a collective member: its instance's transfer time). */
gboolean weft_edit_session_set_duration      (WeftEditSession *self, WeftEventRef op, gint64 dur, GError **error);
gboolean weft_edit_session_scale_duration    (WeftEditSession *self, WeftEventRef op, double factor, GError **error);
/* Scales every live op of a compute class ("all GEMMs x0.8"); WEFT_KCLASS_COMM
 * scales every collective's transfer time. n_changed (nullable). */
gboolean weft_edit_session_scale_class       (WeftEditSession *self, WeftKernelClass kclass, double factor,
                                              guint *n_changed, GError **error);
/* Scales the transfer time of every collective of a type ("all all-gathers
 * x0.5"; WEFT_COLL_NONE: every type). */
gboolean weft_edit_session_scale_collective  (WeftEditSession *self, WeftCollType type, double factor,
                                              guint *n_changed, GError **error);
/* Several ops at once (one entry): every op's duration x factor. */
gboolean weft_edit_session_scale_ops         (WeftEditSession *self, const WeftEventRef *ops, guint n_ops,
                                              double factor, GError **error);

/* Deletes ops (a collective member: its whole instance). */
gboolean weft_edit_session_delete            (WeftEditSession *self, const WeftEventRef *ops, guint n_ops,
                                              GError **error);
/* Duplicates ops: a copy of each right after it on its stream (a collective
 * member: a copy of its whole instance on every rank). new_ops (nullable)
 * receives WeftEventRef of the copies (for collectives: the copy on the op's
 * rank). */
gboolean weft_edit_session_duplicate         (WeftEditSession *self, const WeftEventRef *ops, guint n_ops,
                                              GArray *new_ops, GError **error);

/* ---- palette and inserting ---------------------------------------------------------- */

/* One kernel of the loaded profile (grouped by name over every rank). */
typedef struct
{
  WeftKernelClass kclass;
  WeftCategory    category;   /* kernel, gpu_memcpy, gpu_memset */
  char           *name;
  guint           count;      /* occurrences over all ranks */
  gint64          median_dur; /* measured median duration, ns */
  gint64          min_dur;
  gint64          max_dur;
  WeftEventRef       example;    /* one occurrence (args are copied from it when on the same rank) */
} WeftPaletteKernel;

/* The kernels of the trace (live, non-communication GPU ops), grouped by
 * class (WeftKernelClass order), within a class by count, then name. A
 * GPtrArray of WeftPaletteKernel that frees them. A query of the trace
 * only (src/core/palette.c). */
GPtrArray *weft_trace_palette_kernels (WeftTrace *trace); /* (transfer full) */

/* One kind of collective seen in the trace: a type on a process group. */
typedef struct
{
  WeftCollType type;
  char        *pg_name;       /* NULL when unknown */
  char        *pg_desc;
  int         *ranks;         /* global ranks of the group (n_ranks) */
  guint        n_ranks;
  gint64       median_bytes;  /* -1 unknown */
  char        *dtype;
  gint64       stream;        /* stream id it ran on (first member) */
  guint        count;         /* instances (or lone collectives) */
  gint64       estimate_ns;   /* cost model time of median_bytes */
} WeftPaletteCollective;

/* The collectives of a trace by (type, group), timed by cost_model
 * (nullable: estimate_ns -1). A GPtrArray of WeftPaletteCollective that
 * frees them. A query of the trace only (src/core/palette.c). */
GPtrArray *weft_trace_palette_collectives (WeftTrace *trace, WeftCostModel *cost_model); /* (transfer full) */
/* The same over the session's trace, timed by the session's cost model. */
GPtrArray *weft_edit_session_palette_collectives (WeftEditSession *self); /* (transfer full) */

/* Inserts a copy of a palette kernel (name, class, category, median
 * duration; args from its example when it is on the same rank) on lane of
 * rank_index at at_time. new_op nullable. */
gboolean weft_edit_session_insert_kernel     (WeftEditSession *self, guint rank_index, guint32 lane,
                                              gint64 at_time, const WeftPaletteKernel *kernel,
                                              gint64 dur, WeftEventRef *new_op, GError **error);

typedef struct
{
  WeftCollType type;
  gint64       bytes;         /* payload S (> 0) */
  const int   *ranks;         /* global rank numbers of the group; NULL: every rank of the trace */
  guint        n_ranks;
  gint64       stream;        /* stream id on each rank (created when missing) */
  gint64       at_time;       /* where on each rank (common timeline) */
  const char  *pg_name;       /* NULL: "weft" */
  const char  *dtype;         /* NULL: unknown */
  gint64       transfer_ns;   /* < 0: from the session's cost model */
  const gint64 *at_times;     /* NULL: at_time on every rank; else one time per rank, in the order of
                               * ranks (of the trace's ranks when ranks is NULL) */
} WeftEditCollSpec;

/* Inserts a collective on every rank of the group, timed by the cost model
 * (weft_cost_model_estimate_group) unless spec->transfer_ns >= 0. new_op
 * (nullable) receives the member on the first rank. */
gboolean weft_edit_session_insert_collective (WeftEditSession *self, const WeftEditCollSpec *spec,
                                              WeftEventRef *new_op, GError **error);

/* ---- scripts and the edit log --------------------------------------------------------- */

/* Applies one edit-script operation (docs/editing.md) as one undo entry. */
gboolean weft_edit_session_apply_json   (WeftEditSession *self, json_object *op, GError **error);
/* Applies a script: a JSON array of operations or an object with "ops".
 * Each operation is one undo entry; at the first failure the operations
 * already applied stay (undo them with the history) and the error names
 * the operation: "<name>: op <k>: <what>". n_applied nullable. */
gboolean weft_edit_session_apply_script (WeftEditSession *self, json_object *script,
                                         const char *name, guint *n_applied, GError **error);
gboolean weft_edit_session_apply_script_file (WeftEditSession *self, const char *path,
                                              guint *n_applied, GError **error);
/* The same for a script's text (len bytes; e.g. read from standard input),
 * named name in messages. */
gboolean weft_edit_session_apply_script_data (WeftEditSession *self, const char *name, const char *text,
                                              gsize len, guint *n_applied, GError **error);

/* The primitive operations in effect (the undo stack, oldest first) as a
 * JSON array of log entries (new reference). */
json_object *weft_edit_session_log (WeftEditSession *self); /* (transfer full) */
/* The same grouped by undo entry: an array of arrays (new reference);
 * redo = TRUE gives the redo stack in the order redo applies it. */
json_object *weft_edit_session_log_entries (WeftEditSession *self, gboolean redo); /* (transfer full) */

/* ---- metrics ---------------------------------------------------------------------------- */

/* Whole-trace metrics over all ranks now and as loaded (either nullable). */
gboolean weft_edit_session_metrics (WeftEditSession *self, WeftMetrics *now, WeftMetrics *baseline);

/* ---- saving --------------------------------------------------------------------------- */

/* Writes the solved schedule into the model (weft_solver_apply_to_model)
 * and saves it with the edit log under the top-level "weft" key:
 * {"tool": "weft <version>", "edits": [log entries], "previous": <the
 * loaded file's "weft" value, when it had one>}. ext NULL: weft_trace_save
 * (out is a file for one rank, else a folder); else a folder of
 * rank<R>_trace<ext> (".json", ".json.gz", ".json.zst"). Marks the session
 * unmodified and removes its recovery file on success. */
gboolean weft_edit_session_save (WeftEditSession *self, const char *out, const char *ext,
                                 GError **error);
/* The same for a one-rank trace written to an open fd (standard output),
 * not atomically and without touching the session's modified state; FALSE
 * with WEFT_ERROR_INVALID for a trace of several ranks. */
gboolean weft_edit_session_write_fd (WeftEditSession *self, int fd, WeftFileFormat format, GError **error);

/* ---- recovery (src/core/recovery.c) ----------------------------------------------------- */

/* The app calls weft_edit_session_autosave() every WEFT_RECOVERY_INTERVAL_S
 * seconds (a GLib timeout); it writes only when the edits changed. */
#define WEFT_RECOVERY_INTERVAL_S 3

/* Where the recovery file of a trace lives, in the user's own state folder
 * and never beside the trace:
 * "$XDG_STATE_HOME/weft/recovery/<sha1 of the absolute trace path>.json"
 * (~/.local/state by default). */
char    *weft_recovery_path (const char *trace_path); /* (transfer full) */
/* Writes the session's edit history (undo and redo entries) atomically to
 * its recovery file (temp file + rename). When nothing is in effect and
 * nothing can be redone, removes the file instead. Writes nothing once the
 * trace files changed since the session loaded them (saved over in place,
 * or changed by another program): the edit log would not fit them. */
gboolean weft_edit_session_write_recovery (WeftEditSession *self, GError **error);
/* Writes the recovery file when the edits changed since the last write;
 * TRUE when nothing had to be written. */
gboolean weft_edit_session_autosave (WeftEditSession *self, GError **error);
/* A recovery file for trace_path written for the trace files as they are
 * now (their paths, sizes and modification times are recorded in it), or
 * NULL (free with g_free). */
/* (transfer full) (nullable): NULL when there is no recovery file */
char    *weft_recovery_find (const char *trace_path);
/* Replays a recovery file into a freshly loaded session (which must have no
 * edits yet): every entry becomes an undo entry again, and redo entries
 * are restored too. On error the session is left without edits. */
gboolean weft_recovery_apply (WeftEditSession *self, const char *recovery_path, GError **error);
/* Removes the trace's recovery files (after a save, or when the user
 * declines to restore). */
void     weft_recovery_discard (const char *trace_path);

G_END_DECLS
