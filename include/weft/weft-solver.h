/* weft-solver.h: the dependency graph over every rank's GPU operations, the
 * solver (earliest start times, critical path, slack), edits that re-solve
 * incrementally, and the step metrics (see docs/solver.md).
 *
 * Nodes are GPU operations (events with WEFT_EVENT_GPU_OP). Edges: stream
 * order, launch release (CPU launch + launch latency), cross-stream waits
 * (cuda_sync "Stream Wait Event", else the ProcessGroupNCCL
 * cudaEventRecord/cudaStreamWaitEvent pattern), collective rendezvous across
 * ranks (trace->instances), GPU-to-CPU syncs (later launches on that CPU
 * thread shift with the sync), user minimum starts and explicit
 * dependencies.
 *
 * Identity: an op is (rank_index, event), rank_index into trace->ranks and
 * event into that rank's events. Times are ns on the common timeline (the
 * rank's clock offset applied, weft_trace_rank_offset()).
 *
 * The solver keeps its own times; the model's ev->ts/dur stay as loaded
 * until weft_solver_apply_to_model(). Structural edits (move to a lane,
 * insert, remove) update the model's structure at once (ev->lane,
 * lane->events membership, new WEFT_EVENT_CREATED events, WEFT_EVENT_DELETED
 * flags); rank->events may be reallocated by an insert, so never keep a
 * WeftEvent pointer across an edit.
 *
 * Every edit re-solves at once (only what depends on the change), unless
 * inside weft_solver_begin_batch() / weft_solver_end_batch(), which re-solves
 * once at the end. An edit that would create a dependency cycle (a deadlock,
 * e.g. two ranks issuing the same collectives in different orders) returns
 * FALSE with WEFT_ERROR_CYCLE naming the ops of the cycle and changes
 * nothing. Bad arguments give WEFT_ERROR_INVALID. */
#pragma once

#include "weft-model.h"

G_BEGIN_DECLS

typedef struct _WeftSolver WeftSolver;

/* How an op is bound to a predecessor (edge kinds). */
typedef enum
{
  WEFT_DEP_NONE = 0,      /* no binding predecessor: released at its observed time */
  WEFT_DEP_STREAM,        /* previous op on the same stream */
  WEFT_DEP_LAUNCH,        /* its CPU launch (+ launch latency; the CPU thread may wait on a sync) */
  WEFT_DEP_CROSS_STREAM,  /* an op on another stream (event record / stream wait) */
  WEFT_DEP_RENDEZVOUS,    /* a collective waits for the last-arriving rank */
  WEFT_DEP_SYNC,          /* a GPU-to-CPU sync the launching thread waited on */
  WEFT_DEP_USER,          /* a minimum start set by the user */
  WEFT_DEP_EXPLICIT,      /* a dependency added with weft_solver_add_dependency() */
  WEFT_DEP_INFERRED,      /* critical path only: no recorded edge explains the start; the op of the
                           * rank that ended last before it (or its late launch) is taken as the
                           * cause (docs/solver.md, "Critical path and slack") */
  WEFT_DEP_N_KINDS
} WeftDepKind;

const char *weft_dep_kind_to_string (WeftDepKind kind); /* (transfer none): a static string */

/* ---- lifecycle ------------------------------------------------------------ */

/* Builds the graph from the trace (which must outlive the solver and be
 * edited only through the solver while it lives) and solves it. The first
 * solve is the baseline for metric deltas. */
WeftSolver *weft_solver_new (WeftTrace *trace, GError **error); /* (transfer full) (nullable): NULL with error set */
void        weft_solver_free (WeftSolver *self);
WeftTrace  *weft_solver_get_trace (WeftSolver *self); /* (transfer none) */

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WeftSolver, weft_solver_free)

/* Re-solves every node in topological order (what an edit does
 * incrementally), e.g. for benchmarks. After changing the model's clock
 * offsets (trace->apply_clock_offsets) this is not enough: build a new
 * solver. */
void        weft_solver_solve_all (WeftSolver *self);

/* Builds the solve plan now if it is not valid (docs/solver.md, "The
 * plan"), so that the re-solves of a drag that follows run over it from the
 * first motion; otherwise the plan is built by the second large re-solve
 * with an unchanged graph. The window calls it when a drag of an op
 * starts. A structural edit makes the plan invalid again. */
void        weft_solver_prepare (WeftSolver *self);

/* What the graph was built from (docs/solver.md, "Traces that break the model"). */
typedef struct
{
  guint n_ops;                 /* GPU op nodes */
  guint n_launch;              /* ops with a CPU launch */
  guint n_syncs;               /* GPU-to-CPU sync nodes */
  guint n_instances;           /* collective instances (rendezvous nodes) */
  guint n_cross_stream;        /* cross-stream edges (cuda_sync or ProcessGroupNCCL pattern) */
  guint n_sync_edges;          /* GPU op -> CPU sync edges */
  guint n_inferred_dropped;    /* inferred edges the observed times contradict, not added */
  guint n_build_cycle_edges;   /* inferred edges dropped because they closed a cycle */
  guint n_instances_dissolved; /* instances in a cycle: their kernels solved as plain ops */
  guint n_instances_late;      /* a member arrived after the observed end: transfer clamped to 0 */
  guint n_stream_overlaps;     /* ops starting before their stream predecessor ends (negative gap kept) */
  guint n_unexplained;         /* ops starting > 50 us after every constraint (usual gaps): released at their observed time */
  /* how large re-solves ran (docs/solver.md, "The plan") */
  guint n_plan_builds;         /* times the solve plan was built */
  guint n_plan_sweeps;         /* re-solves that ran over the plan */
  guint n_graph_sweeps;        /* large re-solves that ran node by node (no valid plan) */
  guint n_plan_syncs;          /* times plan sweeps' results were written back into the graph */
  /* weft_solver_lane_times */
  guint n_lane_times_builds;   /* times the lane arrays were built whole */
  guint64 n_lane_times_written;/* entries written since the last build (the build's included) */
} WeftSolverStats;

void        weft_solver_stats (WeftSolver *self, WeftSolverStats *out);

/* Incremented by every re-solve that changed a time and by every structural
 * edit (for caches: weft_solver_metrics() caches per generation). */
guint64     weft_solver_generation (WeftSolver *self);

/* ---- solved times ---------------------------------------------------------- */

/* TRUE when the event is a node of the graph (a live GPU op). */
gboolean    weft_solver_is_node (WeftSolver *self, guint rank_index, guint32 event);
/* Solved start / end of a GPU op; for any other timed event its observed
 * time plus the rank offset, shifted like its CPU thread (syncs that now
 * return earlier or later move the rest of the thread). */
gint64      weft_solver_start (WeftSolver *self, guint rank_index, guint32 event);
gint64      weft_solver_end (WeftSolver *self, guint rank_index, guint32 event);
/* Both at once (one look-up; what a painter asking for every visible event wants). */
void        weft_solver_times (WeftSolver *self, guint rank_index, guint32 event, gint64 *start, gint64 *end);
/* For a collective member: when this rank arrives (its kernel starts; the
 * rest of it is waiting, then the transfer). Otherwise the start. */
gint64      weft_solver_ready (WeftSolver *self, guint rank_index, guint32 event);
/* Latest start - earliest start against the end of the whole schedule
 * (0 on the critical path); computed lazily. -1 for non-nodes. */
gint64      weft_solver_slack (WeftSolver *self, guint rank_index, guint32 event);
/* The op's own duration now (for a collective: its transfer time, the
 * kernel's duration when nobody waits). */
gint64      weft_solver_duration (WeftSolver *self, guint rank_index, guint32 event);
/* User minimum start, -1 when none. */
gint64      weft_solver_min_start (WeftSolver *self, guint rank_index, guint32 event);
/* Predecessor that decided the op's start (binding edge), WEFT_DEP_NONE if
 * released at its observed time. pred_* may be NULL. */
WeftDepKind weft_solver_binding (WeftSolver *self, guint rank_index, guint32 event,
                                 guint *pred_rank_index, guint32 *pred_event);

/* The solved times of a whole lane at once, for painters that walk a
 * lane's events in order: *start / *end (either may be NULL) get arrays of
 * the returned number of entries, entry i the times of the lane's event
 * lane->events[i] (what weft_solver_times gives for it: common timeline).
 * Built on the first call (O(events)); after a re-solve the next call
 * rewrites only the entries that may have changed (the re-timed ops, the
 * rest of a CPU thread after a moved sync, the gpu_user_annotations over
 * moved ops); after a structural edit it rebuilds them. Owned by the
 * solver; valid until the next edit or call. 0 (and NULL) for a bad rank or
 * lane, or an empty one. */
guint       weft_solver_lane_times (WeftSolver *self, guint rank_index, guint32 lane,
                                    const gint64 **start, const gint64 **end);

/* How many entries the next weft_solver_lane_times call would rewrite (an
 * estimate: 0 = the arrays are current), so that a painter can ask per
 * event instead while a drag re-solves much of the trace on every motion. */
guint64     weft_solver_lane_times_pending (WeftSolver *self);

/* Where the solved times of a rank's GPU lanes changed since an earlier
 * call: brings the lane arrays up to date, sets *epoch to their current
 * epoch (pass it as since next time) and *lo / *hi to the span of time
 * (common timeline) that holds every old and new time of a GPU-lane entry
 * that changed after since (*lo > *hi: none changed); outside it the
 * entries are as they were at since. FALSE when that is not known (since
 * 0 or another solver's, the arrays rebuilt since, or more than a ring of
 * refreshes ago): the caller reads the lanes whole. Epochs come from one
 * process-wide clock. */
gboolean    weft_solver_lane_times_gpu_window (WeftSolver *self, guint rank_index, guint64 since,
                                               guint64 *epoch, gint64 *lo, gint64 *hi);

/* Which entries of one lane's arrays changed since an earlier epoch (any
 * lane, CPU ones included): brings the arrays up to date, sets *epoch to
 * their current epoch and *lo / *hi to positions in the lane (inclusive;
 * *lo > *hi: none changed) outside which every entry is as it was at
 * since. FALSE when that is not known (since 0 or another solver's, the
 * arrays rebuilt since, or more than a ring of refreshes ago). */
gboolean    weft_solver_lane_times_changed (WeftSolver *self, guint rank_index, guint32 lane, guint64 since,
                                            guint64 *epoch, guint *lo, guint *hi);

/* Span of the solved schedule over every node (common timeline). */
WeftTimeSpan weft_solver_span (WeftSolver *self);

/* ---- graph inspection --------------------------------------------------- */

typedef struct
{
  WeftDepKind kind;
  guint       rank_index;   /* the other op */
  guint32     event;        /* the other op's event (for LAUNCH / SYNC: the CPU event) */
  gint64      gap;          /* edge weight: min time from the other's end (or CPU release) to this start */
} WeftSolverDep;

/* Incoming dependencies of an op: fills up to max entries, returns the total. */
guint       weft_solver_preds (WeftSolver *self, guint rank_index, guint32 event,
                               WeftSolverDep *out, guint max);
/* Outgoing dependencies (what waits on the op), the mirror of
 * weft_solver_preds: the next op on its stream, the ops and syncs holding
 * an edge from it (cross-stream, sync, explicit), and for a collective
 * member the other members (rendezvous). event: the other op (for SYNC:
 * the sync's CPU event). Fills up to max entries, returns the total. */
guint       weft_solver_succs (WeftSolver *self, guint rank_index, guint32 event,
                               WeftSolverDep *out, guint max);
/* Ops of a GPU lane in the solver's stream order. */
guint       weft_solver_lane_n_ops (WeftSolver *self, guint rank_index, guint32 lane);
guint32     weft_solver_lane_op (WeftSolver *self, guint rank_index, guint32 lane, guint position);
/* Current lane / position in stream order of an op. */
guint32     weft_solver_op_lane (WeftSolver *self, guint rank_index, guint32 event);
guint       weft_solver_op_position (WeftSolver *self, guint rank_index, guint32 event);

/* ---- edits ----------------------------------------------------------------- */

/* Batch: the edits between begin and end re-solve once, at end. Structural
 * edits are still checked for cycles (and refused) one by one: reorder
 * collectives on several ranks with weft_solver_move_many(). Nests. Inside a
 * batch, times read before the end are those of the last solve (inserted
 * ops: their insertion time). */
void        weft_solver_begin_batch (WeftSolver *self);
void        weft_solver_end_batch (WeftSolver *self);

/* Sets the op's duration (dur >= 0). For a collective member it sets the
 * transfer time of the whole instance on every rank. */
gboolean    weft_solver_set_duration (WeftSolver *self, guint rank_index, guint32 event,
                                      gint64 dur, GError **error);
/* User constraint: the op starts no earlier than t (common timeline); a
 * negative t clears it. This is what dragging in time does. */
gboolean    weft_solver_set_min_start (WeftSolver *self, guint rank_index, guint32 event,
                                       gint64 t, GError **error);
/* Moves the op to a GPU lane of the same rank (or reorders it on its own):
 * it goes before the first op of that lane whose solved start is later than
 * at_time. When it changes stream it keeps a cross-stream wait on the op
 * that preceded it on its old stream (its producer, as a
 * cudaStreamWaitEvent would), and the ops after it on the old stream no
 * longer wait for it. */
gboolean    weft_solver_move_to_lane (WeftSolver *self, guint rank_index, guint32 event,
                                      guint32 lane, gint64 at_time, GError **error);
/* Same with an exact position in the lane's stream order (undo). */
gboolean    weft_solver_move_to_position (WeftSolver *self, guint rank_index, guint32 event,
                                          guint32 lane, guint position, GError **error);
typedef struct
{
  guint   rank_index;
  guint32 event;
  guint32 lane;       /* GPU lane of that rank */
  guint   position;   /* in the lane's stream order; G_MAXUINT: from at_time */
  gint64  at_time;
  /* TRUE: add no wait on the producer the op leaves behind on its old
   * stream (undo / redo, where the caller puts the waits back exactly) */
  gboolean exact;
} WeftSolverMove;

/* Several moves checked for cycles together (all or none): reordering a
 * collective on every rank at once is fine where reordering it on one rank
 * only is a deadlock. */
gboolean    weft_solver_move_many (WeftSolver *self, const WeftSolverMove *moves, guint n_moves, GError **error);

/* A GPU lane (stream) of the rank, created in the model when missing. */
guint32     weft_solver_ensure_stream (WeftSolver *self, guint rank_index, int device, gint64 stream);

typedef struct
{
  const char     *name;       /* kernel name */
  WeftCategory    category;   /* WEFT_CAT_KERNEL, WEFT_CAT_GPU_MEMCPY or WEFT_CAT_GPU_MEMSET */
  WeftKernelClass kclass;
  gint64          dur;
  guint32         like_event; /* copy name/category/class/args (and dur unless dur > 0) from this event of the rank; WEFT_NONE */
} WeftSolverOpSpec;

/* Inserts a new GPU op (a WEFT_EVENT_CREATED event in the model, no CPU
 * launch) on the lane at the position of at_time, released no earlier than
 * at_time. Returns the event index, WEFT_NONE on error. */
guint32     weft_solver_insert_op (WeftSolver *self, guint rank_index, guint32 lane, gint64 at_time,
                                   const WeftSolverOpSpec *spec, GError **error);

typedef struct
{
  WeftCollType type;
  const char  *kernel_name;   /* NULL: "ncclDevKernel_<Type>" */
  gint64       bytes;         /* payload, -1 unknown */
  const char  *dtype;         /* NULL: unknown */
  const char  *pg_name;       /* NULL: "weft" */
  const char  *pg_desc;
  gint64       transfer_ns;   /* intrinsic transfer time (weft-costmodel.h) */
} WeftSolverCollSpec;

typedef struct
{
  guint   rank_index;
  guint32 lane;
  gint64  at_time;
} WeftSolverPlace;

/* Inserts one collective on every place (one per participating rank): a
 * created kernel + WeftCollective per rank and a new trace->instances entry.
 * Returns the instance index (WEFT_NONE on error); events_out (n_places
 * entries, may be NULL) receives the created events. */
guint32     weft_solver_insert_collective (WeftSolver *self, const WeftSolverCollSpec *spec,
                                           const WeftSolverPlace *places, guint n_places,
                                           guint32 *events_out, GError **error);

/* Removes an op (WEFT_EVENT_DELETED in the model). A collective member takes
 * its whole instance (every rank) with it. */
gboolean    weft_solver_remove_op (WeftSolver *self, guint rank_index, guint32 event, GError **error);
/* Undo of remove: puts the op (and its instance) back where it was removed from. */
gboolean    weft_solver_restore_op (WeftSolver *self, guint rank_index, guint32 event, GError **error);

/* An explicit dependency: `to` starts no earlier than `from` ends + gap. */
gboolean    weft_solver_add_dependency (WeftSolver *self, guint from_rank, guint32 from_event,
                                        guint to_rank, guint32 to_event, gint64 gap, GError **error);
gboolean    weft_solver_remove_dependency (WeftSolver *self, guint from_rank, guint32 from_event,
                                           guint to_rank, guint32 to_event);

/* Multiplies the current duration of every op of a compute class by factor
 * (WEFT_KCLASS_COMM: every collective's transfer time). */
void        weft_solver_scale_class (WeftSolver *self, WeftKernelClass kclass, double factor);
/* Multiplies the transfer time of every collective instance of a type. */
void        weft_solver_scale_collective (WeftSolver *self, WeftCollType type, double factor);

/* Writes the solved times into the model: ev->ts/dur of every op (and
 * shifted CPU events) that moved, marked WEFT_EVENT_EDITED, lanes
 * re-sorted, so the saver writes the edited schedule. Incremental: only
 * what changed since the last apply. */
void        weft_solver_apply_to_model (WeftSolver *self);

/* ---- metrics ------------------------------------------------------------- */

#define WEFT_SOLVER_ALL_RANKS G_MAXUINT
#define WEFT_SOLVER_ALL_STEPS (-1)

/* What a WeftMetrics step time measures (docs/solver.md, "Metrics"). */
typedef enum
{
  WEFT_STEP_TIME_GPU_SPAN = 0,   /* no ProfilerStep#N: first GPU op start to last GPU op end */
  WEFT_STEP_TIME_PROFILER_STEP,  /* the ProfilerStep#N annotation, re-timed by the solver */
} WeftStepTimeSource;

typedef struct
{
  int    step;            /* ProfilerStep number, WEFT_SOLVER_ALL_STEPS for the whole trace */
  guint  n_ranks;         /* ranks included */
  /* The step window (common timeline): the rank's ProfilerStep#N span on
   * its CPU thread, shifted with the thread after GPU-to-CPU syncs, its end
   * pushed by GPU work of the step that an edit moved past it; without a
   * ProfilerStep (WEFT_SOLVER_ALL_STEPS, or none in the trace) the GPU span.
   * Whole trace: the window of the rank with the longest step. */
  gint64 begin;
  gint64 end;
  gint64 step_time;       /* end - begin: the iteration time (whole: max over ranks) */
  WeftStepTimeSource step_source;
  /* first GPU op start / last GPU op end of the ops of the step (whole: over
   * all ranks), and gpu_end - gpu_begin; 0 when the step has no GPU op */
  gint64 gpu_begin;
  gint64 gpu_end;
  gint64 gpu_span;
  /* GPU time of the rank's ops of the step (interval union; whole trace:
   * mean over ranks). Compute = kernels that are not communication;
   * memcpy / memset (gpu_memcpy / gpu_memset events) are neither, as in
   * HTA, and have their own figure. */
  gint64 compute;         /* any compute kernel */
  gint64 comm;            /* any communication */
  gint64 compute_only;
  gint64 overlapped;      /* compute and communication kernels at once */
  gint64 comm_only;       /* = exposed communication */
  gint64 memcpy_memset;   /* any memcpy / memset */
  gint64 idle;            /* in the step window, no GPU op at all (of any step) */
  double overlap_pct;     /* 100 * overlapped / comm (HTA's definition); 0 without comm */
  gint64 exposed_comm;    /* comm_only */
  /* critical path of the step (across ranks): its length and composition */
  gint64 cp_length;
  gint64 cp_compute;
  gint64 cp_comm;         /* transfer time of collectives */
  gint64 cp_launch;       /* CPU-bound: launch latency / CPU work / syncs */
  gint64 cp_wait;         /* gaps: waiting on other streams, stream gaps */
  gint64 cp_inferred;     /* gaps explained only by inferred edges (WEFT_DEP_INFERRED) */
  guint  cp_n_ops;
} WeftMetrics;

/* "profiler_step" or "gpu_span" (the --json step_time_source). */
const char *weft_step_time_source_to_string (WeftStepTimeSource source); /* (transfer none): a static string */

/* Steps present (ProfilerStep#N numbers, sorted, over all ranks); an empty
 * array when the trace has none. Free with g_array_unref. */
GArray     *weft_solver_steps (WeftSolver *self); /* (transfer full) */
/* Metrics now (rank_index or WEFT_SOLVER_ALL_RANKS; step or
 * WEFT_SOLVER_ALL_STEPS). FALSE when the step has neither a GPU op nor a
 * ProfilerStep#N annotation on that rank (any rank, for the whole trace). */
gboolean    weft_solver_metrics (WeftSolver *self, guint rank_index, int step, WeftMetrics *out);
/* The same from the first solve (the trace as loaded). */
gboolean    weft_solver_baseline_metrics (WeftSolver *self, guint rank_index, int step, WeftMetrics *out);

/* ---- breakdown per kernel class and collective type (solver-breakdown.c) --- */

/* The ProfilerStep number of a GPU op (the step whose launch it belongs to,
 * as the metrics count it), WEFT_SOLVER_ALL_STEPS when none or not a node. */
int         weft_solver_op_step (WeftSolver *self, guint rank_index, guint32 event);

typedef struct
{
  guint  count;    /* ops (whole trace: over all ranks) */
  gint64 total;    /* sum of their solved durations (end - start; a collective's includes its waiting) */
  gint64 exposed;  /* time they run while nothing covers them: compute while no communication runs,
                    * communication while no compute runs (their share of exposed communication),
                    * memcpy / memset while neither runs */
} WeftSolverGroupTime;

typedef struct
{
  guint n_ranks;   /* ranks included (those weft_solver_metrics() counts) */
  WeftSolverGroupTime kclass[WEFT_KCLASS_N_CLASSES];  /* every GPU op by kernel class */
  WeftSolverGroupTime coll[WEFT_COLL_N_TYPES];        /* communication ops by collective type
                                                       * (WEFT_COLL_UNKNOWN: no collective record) */
} WeftSolverBreakdown;

/* The step's GPU ops (rank_index or WEFT_SOLVER_ALL_RANKS; step or
 * WEFT_SOLVER_ALL_STEPS) per kernel class and collective type, on the same
 * ops and solved times as weft_solver_metrics(); times of the whole trace are
 * the mean over ranks, as the metrics'. kclass[WEFT_KCLASS_COMM].exposed of a
 * rank is its exposed_comm. FALSE (out zeroed) when weft_solver_metrics()
 * is FALSE for every rank included. */
gboolean    weft_solver_breakdown (WeftSolver *self, guint rank_index, int step, WeftSolverBreakdown *out);

/* ---- pipeline bubble ----------------------------------------------------- */

typedef struct
{
  gboolean pipeline;      /* the rank has P2P peers (a matched send/recv) */
  guint32  lane;          /* its compute stream (the GPU lane with the most compute kernel time) */
  gint64   bubble;        /* ns of the step the compute stream is idle waiting for another stage */
  gint64   step_time;     /* the step's time (WeftMetrics.step_time of the rank) */
  double   bubble_pct;    /* 100 x bubble / step_time */
} WeftBubble;

/* The pipeline bubble of a rank in a step (WEFT_SOLVER_ALL_STEPS: the
 * whole trace): the sum of the idle gaps of its compute stream, inside the
 * step window, before an op whose binding (through ops of the rank on other
 * streams) is a P2P transfer or a collective spanning pipeline stages (two
 * of its members are P2P peers). docs/solver.md, "Pipeline bubble". FALSE
 * (out zeroed) when the rank has no P2P peer (cheap: no metrics computed). */
gboolean    weft_solver_pipeline_bubble (WeftSolver *self, guint rank_index, int step, WeftBubble *out);

/* ---- critical path ------------------------------------------------------- */

typedef enum
{
  WEFT_PATH_COMPUTE = 0,  /* a compute op executing */
  WEFT_PATH_COMM,         /* a collective's transfer */
  WEFT_PATH_LAUNCH,       /* CPU: launch latency, CPU work between a sync and a launch */
  WEFT_PATH_WAIT,         /* waiting: stream gaps, cross-stream waits */
  WEFT_PATH_INFERRED,     /* the gap before an op whose start only an inferred edge explains */
} WeftPathKind;

typedef struct
{
  guint      rank_index;
  guint32    event;       /* the GPU op (the segment belongs to its execution or precedes it) */
  WeftPathKind kind;
  WeftDepKind via;        /* the binding edge into this op */
  gint64     begin;       /* segment on the common timeline */
  gint64     end;
  guint      pred_rank_index; /* WEFT_DEP_INFERRED: the op taken as the cause (else WEFT_NONE) */
  guint32    pred_event;
} WeftPathSegment;

/* The critical path of a step (WEFT_SOLVER_ALL_STEPS: the whole schedule):
 * from the last finish back through binding predecessors across ranks,
 * returned in time order as contiguous segments. Free with g_array_unref. */
GArray     *weft_solver_critical_path (WeftSolver *self, int step); /* (transfer full) */
/* The inferred cause of an op's start (WEFT_DEP_INFERRED), where no
 * recorded edge explains it (it is released at its observed time): the op
 * of its rank that ended last before it started, if that was at most 50 us
 * before (what the critical path goes on through; docs/solver.md,
 * "Critical path and slack"). WEFT_DEP_NONE when the op has a recorded binding or
 * nothing on its rank ended shortly before it. */
WeftDepKind weft_solver_inferred_cause (WeftSolver *self, guint rank_index, guint32 event,
                                        guint *pred_rank_index, guint32 *pred_event);
/* Why a critical-path segment (of weft_solver_critical_path) is there, in
 * words: for a collective, which rank arrived last, how late and what held
 * it back ("rank 3 arrives last at this all_gather, 2.10 ms after rank 0,
 * because it queued behind X on stream 7 ..."); for an op, what its start
 * waited for; for a CPU or an inferred gap, what the GPU waited on
 * (docs/solver.md, "Explanations"). */
char       *weft_solver_path_reason (WeftSolver *self, const WeftPathSegment *seg); /* (transfer full) */
/* TRUE when the op lies on the whole-schedule critical path. */
gboolean    weft_solver_is_critical (WeftSolver *self, guint rank_index, guint32 event);

/* ---- collective instances -------------------------------------------------- */

typedef struct
{
  guint   rank_index;
  guint32 event;
  gint64  arrival;   /* ready time: the kernel starts */
  gint64  wait;      /* last arrival - arrival */
  gint64  end;
} WeftSolverArrival;

typedef struct
{
  WeftCollType type;
  guint   n_members;
  gint64  transfer;        /* intrinsic transfer time */
  gint64  last_arrival;
  gint64  end;
  gint64  total_wait;      /* sum of waits over ranks */
  gint64  max_wait;
  guint   last_rank_index; /* the straggler (last to arrive) */
} WeftSolverInstanceInfo;

/* Solved figures of trace->instances[instance]; arrivals (n_members
 * entries, may be NULL) per member. FALSE when the instance has no live
 * member. */
gboolean    weft_solver_instance_info (WeftSolver *self, guint32 instance,
                                       WeftSolverInstanceInfo *info, WeftSolverArrival *arrivals,
                                       guint max_arrivals);

G_END_DECLS
