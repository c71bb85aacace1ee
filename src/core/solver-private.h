/* solver-private.h: the solver's graph and what its files share:
 * solver.c (lifecycle, evaluation, re-solve, calibration, times, getters),
 * solver-build.c (the graph from the trace), solver-order.c (the
 * topological order), solver-edit.c (edits, apply to model), solver-plan.c
 * (the flat solve plan) and solver-metrics.c (metrics, critical path,
 * slack). See docs/solver.md and docs/architecture.md. */
#pragma once

#include "weft/weft-solver.h"

G_BEGIN_DECLS

typedef enum
{
  NODE_OP = 0,    /* a GPU op: start = ready, end = start + dur (members: end of the instance) */
  NODE_SYNC,      /* a GPU-to-CPU sync: start = end = when the CPU thread goes on */
  NODE_INST,      /* a collective instance: start = last arrival, end = start + transfer */
} NodeKind;

enum
{
  NODE_DELETED = 1 << 0,
  NODE_IN_HEAP = 1 << 1,
  NODE_CRIT    = 1 << 2,
  NODE_COMM    = 1 << 3,  /* communication op */
  NODE_HIDDEN  = 1 << 4,  /* created after the baseline, hidden while it is swapped in */
  NODE_MEM     = 1 << 5,  /* memcpy / memset (neither compute nor communication in the metrics) */
};

typedef struct
{
  guint32 src;    /* node */
  guint8  kind;   /* WeftDepKind */
  guint8  automatic; /* added by a move to keep the producer */
  gint64  w;      /* this.start >= src.end + w */
} InEdge;

typedef struct
{
  /* hot: read by every evaluation, the metrics sweep and the critical path
   * (first cache line) */
  guint8  kind;        /* NodeKind */
  guint8  flags;
  guint8  release_kind;/* WeftDepKind of the constant release */
  guint8  bind_kind;   /* binding edge of the last solve */
  guint   rank;        /* rank index */
  guint32 lane;        /* OP: model lane; SYNC: CPU lane */
  guint32 lane_pos;    /* OP: position in the solver's stream order */
  guint32 inst;        /* OP member: INST node, else WEFT_NONE */
  guint32 bind_pred;   /* node, WEFT_NONE */
  int     step;        /* OP: ProfilerStep number, WEFT_SOLVER_ALL_STEPS if none */
  gint64  start;
  gint64  end;
  gint64  dur;         /* OP: own duration; INST: transfer time */
  gint64  w_stream;    /* OP: gap after its stream predecessor */
  gint64  release;     /* constant release, G_MININT64 none */
  gint64  min_start;   /* user, G_MININT64 none */
  gint64  end_off;     /* OP member: its end - its instance's end (calibrated: each rank's
                        * observed end skew, so that an unmodified trace replays exactly) */
  InEdge *in;
  guint   n_in, cap_in;
  guint32 *out;        /* nodes holding an InEdge from this one */
  guint   n_out, cap_out;
  /* cold */
  guint32 event;       /* OP / SYNC: event index; INST: instance index */
  guint32 launch;      /* OP: launching CPU event, WEFT_NONE */
  guint32 removed_lane;/* OP: where remove_op took it from */
  guint32 removed_pos;
  guint   n_members;
  guint32 *members;    /* INST: member OP nodes */
  gint64  obs_start;   /* observed (common timeline): OP start, SYNC call start */
  gint64  obs_end;     /* OP end, SYNC call end */
  gint64  launch_time; /* OP: CPU launch start (observed) for critical-path heads */
} Node;

/* The solve plan: the graph flattened in topological order for the dense
 * re-solve of a large front (solver-plan.c, docs/solver.md "The plan").
 * Per position q of the order: the node, what it reads (its in edges as
 * positions and weights, the stream predecessor first) and a copy of its
 * solved times and binding. A plan sweep writes only the copy: positions
 * from stale_lo on may be newer than their nodes, until _weft_solver_sync
 * writes them back (every public entry point that reads the nodes' times
 * syncs first; the readers of single times go through
 * _weft_solver_node_times). eval_node keeps the copy current. Valid
 * until a structural change (new or deleted nodes, edges, stream or
 * topological order): plan_invalidate, which syncs first. A change of
 * min_start or duration only refreshes the node's entry. */
enum
{
  PLAN_OP = 0,     /* end = start + dur */
  PLAN_MEMBER,     /* a collective member: end is its instance's */
  PLAN_SYNC,       /* start = end */
  PLAN_INST,       /* start = latest member start (its in edges read starts; their
                    * weights are the members' end offsets) */
};

typedef struct
{
  gboolean ok;
  guint    n;          /* positions (n_order when built) */
  guint32 *node;
  guint8  *kind;       /* PLAN_* */
  guint8  *base_kind;  /* WeftDepKind of base */
  gint64  *base;       /* release / min_start / observed fallback, G_MININT64 none */
  gint64  *dur;        /* PLAN_OP and PLAN_INST */
  guint32 *in_off;     /* n + 1: edges of q are in_off[q] .. in_off[q + 1] - 1 */
  /* mirror of the nodes' solved state */
  gint64  *start;
  gint64  *end;
  guint32 *bind_pred;
  guint8  *bind_kind;
  guint    stale_lo;   /* first position whose node may be older than the copy, G_MAXUINT none */
  /* edges */
  guint    n_edges;
  guint32 *e_src;      /* position of the source */
  gint64  *e_w;
  guint32 *e_node;     /* source node (the binding predecessor) */
  guint8  *e_kind;     /* WeftDepKind */
  /* per position: the last position that reads its times (an in edge's
   * source; 0: none), so a sweep stops past the last position whose
   * inputs changed */
  guint32 *last_reader;
} Plan;

typedef struct
{
  guint32 lane;        /* CPU lane */
  GArray *syncs;       /* guint32 SYNC nodes, by observed end */
  gint64 *obs_end;     /* their observed ends (the shift's search reads no node) */
  GArray *orig;        /* CpuOrig of the lane's events (for shifting) */
} ThreadSyncs;

typedef struct
{
  guint32 event;
  gint64  ts;          /* file clock, as loaded */
  gint64  end;
} CpuOrig;

typedef struct
{
  guint   rank;
  int     step;
  gboolean ok;
  WeftMetrics m;
} MetricsEntry;

/* A rank's ProfilerStep#N as loaded (solver-metrics.c): the CPU annotation
 * on the common timeline and the end of the step's GPU ops in the first
 * solve, for the step window (docs/solver.md, "Metrics"). */
typedef struct
{
  guint   rank;
  int     number;
  guint32 event;       /* the annotation */
  guint32 lane;        /* its CPU thread, WEFT_NONE */
  gint64  begin;       /* observed, common timeline */
  gint64  end;
  gint64  gpu_end0;    /* last end of the step's GPU ops as loaded, G_MININT64 none */
} StepWin;

/* The schedule as loaded, for baseline metrics computed on demand: swapped
 * into the nodes and lane orders for the computation, then back. */
typedef struct
{
  guint      n_nodes;
  gint64    *start;
  gint64    *end;
  guint32   *bind_pred;
  guint8    *bind_kind;
  guint8    *flags;
  GPtrArray **lanes;   /* per rank: copy of the lane orders */
} Snapshot;

/* A gpu_user_annotation slice and the GPU ops it covered as loaded (on its
 * stream, inside its span): it is re-timed to cover them where they are
 * now (_weft_solver_annot_span in solver.c). */
typedef struct
{
  guint32 event;
  guint32 lane;        /* its lane as loaded */
  guint32 first;       /* into RankState.annot_nodes */
  guint32 n;
  gint64  lead;        /* as loaded: its start before its first op's start */
  gint64  trail;       /* its end after its last op's end */
} AnnotRec;

typedef struct
{
  GArray     *ev_node;    /* guint32 per event: node or WEFT_NONE */
  GArray     *annots;     /* AnnotRec, NULL: none */
  GArray     *annot_nodes;/* guint32 nodes covered, by AnnotRec */
  GHashTable *annot_of;   /* annotation event + 1 -> AnnotRec index + 1 */
  GPtrArray  *lanes;      /* per model lane: GArray of guint32 nodes (NULL: not a GPU lane) */
  GHashTable *threads;    /* CPU lane + 1 -> ThreadSyncs* */
  ThreadSyncs **thread_by_lane;  /* the same by model lane (n_thread_lanes entries; NULL none) */
  guint       n_thread_lanes;
  gint64      offset;
  gint64      typ_launch; /* typical launch latency of the rank */
  gint64      typ_gap;    /* typical gap between queued ops */
} RankState;

/* The solved times as flat arrays per model lane (solver-times.c,
 * weft_solver_lane_times): entry i of a lane is the event lane->events[i].
 * Built on the first request; afterwards each request rewrites only what
 * the solves since the last one changed: the nodes evaluated node by node
 * (logged by eval_node), the plan positions a sweep wrote (sweep_lo to
 * sweep_hi), the CPU threads after the first moved sync, and the rank's
 * gpu_user_annotations. A structural change rebuilds it. */
typedef struct
{
  guint32  *ev_pos;     /* per event: position in its lane, WEFT_NONE */
  guint     n_events;
  guint     n_lanes;
  guint    *n;          /* per lane: entries */
  gint64  **start;      /* per lane (NULL: empty lane) */
  gint64  **end;
  gint64  **pmax;       /* per CPU lane with syncs: prefix maximum of the observed ends
                         * (common timeline), else NULL */
  gint64  **orig_s;     /* per CPU lane with syncs: each event's recorded start / end on the
                         * common timeline (what the thread's shift applies to), else NULL */
  gint64  **orig_e;
  guint     g0;         /* LaneTimes.gstart index of lane 0 */
  gint64   *cpu_from;   /* per lane: earliest moved sync since the last refresh, G_MAXINT64 none */
  gboolean  annots_dirty;
  /* the times on GPU lanes that changed (old or new value differs), for
   * weft_solver_lane_times_gpu_window: this refresh's window (lo > hi:
   * none), and a ring of the last LANE_WIN_RING refreshes' windows with
   * their epochs; win_lost: the highest epoch whose window fell out */
  gint64    cur_lo, cur_hi;
  guint64   win_epoch[16];
  gint64    win_lo[16], win_hi[16];
  guint     n_win, win_next;
  guint64   win_lost;
} LaneTimesRank;

#define LANE_WIN_RING 16

typedef struct
{
  guint32   cur_lo, cur_hi;
  guint64   epoch[LANE_WIN_RING];
  guint32   lo[LANE_WIN_RING], hi[LANE_WIN_RING];
  guint     n, next;
  guint64   lost;
} LanePosWin;

typedef struct
{
  gboolean       built;
  guint64        structure;       /* WeftSolver.structure of the build */
  guint          n_edits_applied;
  LaneTimesRank *ranks;
  guint          n_ranks;
  guint          sweep_lo;        /* plan positions from here on may have changed, G_MAXUINT none */
  guint          sweep_hi;        /* ... up to here (inclusive) */
  GArray        *changed;         /* guint32 nodes evaluated (changed) since the last refresh */
  gboolean       overflow;        /* too many logged: rewrite every node */
  /* every (rank, lane) as one index g: its arrays */
  gint64       **gstart;
  gint64       **gend;
  guint          n_g;
  /* where an OP node's times go: g << 32 | position, G_MAXUINT64 none;
   * per node, and per plan position (slot, for the plan of slot_builds) */
  guint64       *node_slot;
  guint          n_node_slot;
  guint64       *slot;
  guint          n_slot;
  guint          slot_builds;     /* WeftSolverStats.n_plan_builds the slots were made for */
  guint64        slot_structure;
  /* per g: its rank, and whether the lane is a GPU lane (the windows) */
  guint         *g_rank;
  guint8        *g_gpu;
  /* per g: the positions of its entries that changed (old or new value
   * differs), for weft_solver_lane_times_changed: this refresh's range
   * (pos_lo > pos_hi: none) and a ring of the last LANE_WIN_RING
   * refreshes' ranges with their epochs; pos_lost: the highest epoch whose
   * range fell out */
  LanePosWin    *g_win;
  guint64        epoch;           /* the last refresh or build (next_epoch (): a process-wide clock) */
  guint64        build_epoch;     /* epoch of the last build */
} LaneTimes;

struct _WeftSolver
{
  WeftTrace *trace;
  Node      *nodes;
  guint      n_nodes, cap_nodes;
  RankState *ranks;
  guint      n_ranks;
  GArray    *inst_node;   /* guint32 per trace instance: INST node or WEFT_NONE */
  guint32   *order;       /* topological order of live nodes */
  guint      n_order;
  guint32   *pos;         /* per node: position in order (G_MAXUINT32: not in it) */
  guint      cap_order;   /* allocated entries of order and pos */
  guint32   *heap;        /* pending nodes (NODE_IN_HEAP); a heap by topological position while heap_ordered */
  gboolean   heap_ordered;
  guint      n_heap, cap_heap;
  guint64   *dirty;       /* while solving: bit per topological position to evaluate (else all 0) */
  guint      n_dirty;     /* words allocated */
  guint      sweep_cur, sweep_hi;  /* word being swept, last word with a bit */
  gboolean   sweeping;
  int        batch;
  gboolean   pending;
  guint64    generation;
  guint64    slack_generation;  /* generation the slack cache belongs to */
  guint64    crit_generation;   /* generation the NODE_CRIT marks belong to (0: none) */
  gint64    *latest;            /* per node, latest start (lazy) */
  guint      n_latest;
  GArray    *baseline;          /* MetricsEntry, computed on demand */
  Snapshot   snap;
  GArray    *steps;             /* int, sorted */
  GArray    *step_wins;         /* StepWin, by rank then begin */
  guint     *step_win_first;    /* n_ranks + 1: the wins of rank r are [first[r], first[r + 1]) */
  guint      n_edits_applied;
  WeftSolverStats stats;
  guint32   *mark;          /* per node: DFS stamp (incremental topological order) */
  guint32   *parent;
  guint      n_mark;
  guint32    stamp;
  GArray    *metrics_cache;     /* MetricsEntry of metrics_generation */
  guint64    metrics_generation;
  GPtrArray *created_launches;  /* per rank: where apply_to_model writes created launches (or NULL), of
                                 * created_launches_generation */
  guint64    created_launches_generation;
  Plan       plan;
  guint64    structure;         /* incremented by every structural change */
  guint64    sweep_structure;   /* structure at the last large re-solve */
  gboolean   verify;            /* WEFT_SOLVER_VERIFY: check every large re-solve */
  LaneTimes  lt;                /* weft_solver_lane_times */
};

static inline gboolean
_weft_solver_live (WeftSolver *self, guint32 n)
{
  return n != WEFT_NONE && !(self->nodes[n].flags & NODE_DELETED);
}

static inline gboolean
_weft_solver_is_member (WeftSolver *self, guint32 u)
{
  const Node *n = &self->nodes[u];
  return n->kind == NODE_OP && n->inst != WEFT_NONE && _weft_solver_live (self, n->inst);
}

/* The node standing for u in the topological order: its instance for a
 * collective member, else u. */
static inline guint32
_weft_solver_remap (WeftSolver *self, guint32 u)
{
  Node *n = &self->nodes[u];
  return (n->kind == NODE_OP && n->inst != WEFT_NONE && _weft_solver_live (self, n->inst)) ? n->inst : u;
}

/* The constant part of a node's ready time, the first candidates of every
 * evaluation (node by node and over the plan): its release, then a later
 * user minimum start. G_MININT64 with WEFT_DEP_NONE: neither. */
static inline void
_weft_solver_node_release (const Node *n, gint64 *best, guint8 *kind)
{
  *best = G_MININT64;
  *kind = WEFT_DEP_NONE;
  if (n->release != G_MININT64)
    {
      *best = n->release;
      *kind = n->release_kind;
    }
  if (n->min_start != G_MININT64 && n->min_start > *best)
    {
      *best = n->min_start;
      *kind = WEFT_DEP_USER;
    }
}

/* solver-plan.c */
void     _weft_solver_sync_nodes (WeftSolver *self);

/* Brings the nodes' times up to date with the plan (cheap when they are). */
static inline void
_weft_solver_sync (WeftSolver *self)
{
  if (self->plan.stale_lo != G_MAXUINT)
    _weft_solver_sync_nodes (self);
}

static inline void
_weft_solver_plan_invalidate (WeftSolver *self)
{
  _weft_solver_sync (self);
  self->plan.ok = FALSE;
  self->structure++;
}

/* A node's solved start and end (either may be NULL), current even while a
 * plan sweep's result is not written back yet. */
static inline void
_weft_solver_node_times (WeftSolver *self, guint32 v, gint64 *start, gint64 *end)
{
  guint q;
  if (self->plan.stale_lo != G_MAXUINT && (q = self->pos[v]) >= self->plan.stale_lo && q < self->plan.n)
    {
      if (start != NULL)
        *start = self->plan.start[q];
      if (end != NULL)
        *end = self->plan.end[q];
      return;
    }
  if (start != NULL)
    *start = self->nodes[v].start;
  if (end != NULL)
    *end = self->nodes[v].end;
}

/* Copies node v's solved state into the plan's copy (after eval_node). */
static inline void
_weft_solver_plan_mirror (WeftSolver *self, guint32 v)
{
  Plan *p = &self->plan;
  const Node *n = &self->nodes[v];
  guint q;
  if (!p->ok)
    return;
  q = self->pos[v];
  if (q >= p->n)
    return;
  p->start[q] = n->start;
  p->end[q] = n->end;
  p->bind_pred[q] = n->bind_pred;
  p->bind_kind[q] = n->bind_kind;
}

void     _weft_solver_plan_free (WeftSolver *self);
void     _weft_solver_plan_build (WeftSolver *self);
void     _weft_solver_plan_refresh (WeftSolver *self, guint32 v);
gboolean _weft_solver_plan_sweep (WeftSolver *self, guint q0, guint q1);
void     _weft_solver_plan_verify (WeftSolver *self, const char *what); /* solver.c: the test mode */

#define UNEXPLAINED_NS 50000 /* 50 us: an op starting this much later than any constraint explains */

/* solver.c: nodes and edges */
guint32  _weft_solver_add_node (WeftSolver *self, NodeKind kind, guint rank, guint32 event);
void     _weft_solver_node_add_in (WeftSolver *self, guint32 v, guint32 src, WeftDepKind kind, gint64 w);
void     _weft_solver_node_remove_in (WeftSolver *self, guint32 v, guint idx);
gboolean _weft_solver_node_is_live (WeftSolver *self, guint32 n);
GArray  *_weft_solver_lane_order (WeftSolver *self, guint rank, guint32 lane);
guint32  _weft_solver_stream_prev (WeftSolver *self, guint32 n);
guint32  _weft_solver_stream_next (WeftSolver *self, guint32 n);
guint32  _weft_solver_node (WeftSolver *self, guint rank, guint32 event);
void     _weft_solver_set_ev_node (WeftSolver *self, guint rank, guint32 event, guint32 node);
/* solver.c: the re-solve */
void     _weft_solver_heap_push (WeftSolver *self, guint32 v);
void     _weft_solver_solve_pending (WeftSolver *self);
void     _weft_solver_maybe_solve (WeftSolver *self);
/* solver.c: annotations and times */
gboolean _weft_solver_annot_span (WeftSolver *self, guint r, const AnnotRec *rec, gint64 *start, gint64 *end,
                                  guint32 *lane);
gint     _weft_solver_cpu_orig_cmp (gconstpointer a, gconstpointer b);
gint64   _weft_solver_shift (WeftSolver *self, guint rank, guint32 lane, gint64 orig_t);

/* Self-check for the tests (solver.c): the topological order is a
 * permutation of the live nodes and every dependency goes forward in it. */
gboolean _weft_solver_check (WeftSolver *self);

/* solver-build.c: the graph of every rank and the instances (weft_solver_new) */
void     _weft_solver_build (WeftSolver *self);
gboolean _weft_solver_has_in_from (WeftSolver *self, guint32 v, guint32 src);

/* solver-order.c */
/* Successors in the topological sense (what must come after x). */
typedef void (*SuccFunc) (WeftSolver *self, guint32 succ, gpointer data);
void     _weft_solver_foreach_end_succ (WeftSolver *self, guint32 x, SuccFunc fn, gpointer data);
void     _weft_solver_foreach_topo_pred (WeftSolver *self, guint32 v, SuccFunc fn, gpointer data);
gboolean _weft_solver_compute_topo (WeftSolver *self, GArray *cycle);
void     _weft_solver_order_remove (WeftSolver *self, guint32 v);
gboolean _weft_solver_pk_repair (WeftSolver *self, const guint32 *touched, guint n_touched, GArray *cycle);
void     _weft_solver_set_cycle_error (WeftSolver *self, GArray *cycle, GError **error);
gboolean _weft_solver_order_add_nodes (WeftSolver *self, const guint32 *nodes, guint n, GError **error);

/* solver-edit.c */
/* How long before an op an edit created its launch is written
 * (weft_solver_apply_to_model): the rank's usual launch latency and more
 * than the 50 us after which a start counts as unexplained. */
#define WEFT_CREATED_LAUNCH_LEAD_NS 51000
static inline gint64
_weft_solver_created_launch_lead (WeftSolver *self, guint rank)
{
  return MAX (1000, self->ranks[rank].typ_launch) + WEFT_CREATED_LAUNCH_LEAD_NS;
}

/* Where weft_solver_apply_to_model writes the launch of created op v
 * (common timeline); G_MININT64 for an op an edit did not create. */
gint64   _weft_solver_created_launch_time (WeftSolver *self, guint32 v);

/* solver.c: the times of any event (what weft_solver_times returns) and
 * a CPU event's times as recorded (file clock), its lane */
void     _weft_solver_event_times (WeftSolver *self, guint rank_index, guint32 event, gint64 *start, gint64 *end);
gboolean _weft_solver_cpu_orig (WeftSolver *self, guint rank, guint32 event, gint64 *ts_out, gint64 *end_out,
                                guint32 *lane_out);

/* solver-times.c */
void     _weft_solver_lane_times_free (WeftSolver *self);

/* A node whose times an evaluation changed (eval_node): rewritten in the
 * lane arrays at their next request. */
static inline void
_weft_solver_lane_times_note (WeftSolver *self, guint32 v)
{
  LaneTimes *lt = &self->lt;
  if (!lt->built || lt->overflow)
    return;
  if (lt->changed->len >= MAX (1024u, self->n_nodes / 2))
    {
      lt->overflow = TRUE;
      return;
    }
  g_array_append_val (lt->changed, v);
}

/* A plan sweep wrote positions from lo to hi (inclusive). */
static inline void
_weft_solver_lane_times_note_sweep (WeftSolver *self, guint lo, guint hi)
{
  if (self->lt.built)
    {
      if (self->lt.sweep_lo == G_MAXUINT)
        self->lt.sweep_hi = hi;
      else
        self->lt.sweep_hi = MAX (self->lt.sweep_hi, hi);
      self->lt.sweep_lo = MIN (self->lt.sweep_lo, lo);
    }
}

/* solver-metrics.c */
void     _weft_solver_compute_baseline (WeftSolver *self);
void     _weft_solver_metrics_free (WeftSolver *self);
void     _weft_solver_update_slack (WeftSolver *self);

G_END_DECLS
