/* weft-tables.h: the tables of a solved trace, as the window's bottom panel
 * and the CLI show them (docs/solver.md, "Tables"): the collective
 * instances of a step (type, group, size, transfer, waits, the
 * last-arriving rank), the GPU kernels by name (count, total, mean, share
 * of the step) and the slices of a time range; and the kinds of slice a
 * search or a table can be filtered by. Every time is the solver's, on the
 * common timeline. */
#pragma once

#include "weft-solver.h"

G_BEGIN_DECLS

/* The kinds a search or a slice table can keep. */
typedef enum
{
  WEFT_SLICE_KIND_ALL = 0,    /* every slice */
  WEFT_SLICE_KIND_GPU,        /* GPU ops: kernels (collective ones too), memcpy, memset */
  WEFT_SLICE_KIND_COLLECTIVE, /* collective kernels and the CPU ops that record them */
  WEFT_SLICE_KIND_CPU,        /* slices on CPU threads: cpu_op, user annotations, runtime calls, ... */
  WEFT_SLICE_KIND_N_KINDS
} WeftSliceKind;

/* "all", "gpu", "collective", "cpu" (transfer none): a static string. */
const char   *weft_slice_kind_to_string (WeftSliceKind kind);
/* TRUE when the event of rank is a live slice (a complete event on a lane)
 * of that kind. */
gboolean      weft_event_is_kind (const WeftRank *rank, const WeftEvent *ev, WeftSliceKind kind);

typedef struct
{
  guint32      instance;        /* into trace->instances */
  WeftCollType type;
  const char  *group;           /* the process group's name of its first member, "" unknown */
  const char  *group_desc;      /* and its description ("default_pg", ...), "" unknown (both
                                 * transfer none: interned in that rank) */
  guint        n_members;
  gint64       bytes;           /* payload, -1 unknown */
  gint64       transfer;        /* intrinsic transfer time */
  gint64       max_wait;
  gint64       total_wait;
  gint64       last_arrival;    /* when the last rank arrives */
  gint64       end;
  guint        last_rank_index; /* the last-arriving rank (the straggler) */
  guint32      last_event;      /* its kernel */
} WeftCollectiveRow;

/* The collective instances of a step (their end inside the step's window,
 * as in its metrics; WEFT_SOLVER_ALL_STEPS: all), by end time. Free with
 * g_array_unref. */
GArray       *weft_solver_collective_rows (WeftSolver *self, int step); /* (transfer full): WeftCollectiveRow */

typedef struct
{
  const char     *name;    /* (transfer none): interned in the first rank that ran it */
  WeftKernelClass kclass;
  guint           count;   /* ops over every rank */
  gint64          total;   /* their summed duration */
  gint64          mean;    /* total / count */
  gint64          max;
  double          share;   /* total / (step time x ranks with GPU ops): the fraction of the GPUs'
                            * step time spent in it (streams overlap: shares may sum past 1) */
  guint           first_rank_index; /* an op of the name (the longest), to select */
  guint32         first_event;
} WeftKernelRow;

/* The GPU ops of a step (their start inside the step's window) grouped by
 * name, longest total first. Free with g_array_unref. */
GArray       *weft_solver_kernel_rows (WeftSolver *self, int step); /* (transfer full): WeftKernelRow */

typedef struct
{
  guint   rank_index;
  guint32 event;
  gint64  start;
  gint64  end;
} WeftSliceRow;

/* The slices of that kind overlapping range, by start (then rank, event);
 * at most max of them (0: no limit), *n_total (may be NULL) how many there
 * are. Free with g_array_unref. */
GArray       *weft_solver_range_slices (WeftSolver *self, WeftTimeSpan range, WeftSliceKind kind, guint max,
                                        guint *n_total); /* (transfer full): WeftSliceRow */

G_END_DECLS
