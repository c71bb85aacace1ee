/* weft-diff.h: comparing two traces: two strategies, a trace before and
 * after an edit (an edited session against its trace as loaded), two
 * iterations of a run (docs/solver.md, "Comparing two traces").
 *
 * A WeftDiff is made from two solvers, A and B, and a step of each: it
 * pairs the ranks by number and the operations of the step between them
 * (kernels by name and order on their stream of the same rank, then, for
 * those left, by name and order on the rank: a kernel moved to another
 * stream; collectives by type, process group and order: their Seq, else
 * their start), and gathers the figures of both sides: the step metrics
 * (weft_solver_metrics(), what `weft-cli analyze` reports), per rank, and
 * the breakdown per kernel class and collective type
 * (weft_solver_breakdown()), sorted by contribution to the step-time
 * difference. It reads the solvers' times when it is made: after an edit of
 * either, make a new one. Both solvers must outlive it. */
#pragma once

#include "weft-solver.h"

G_BEGIN_DECLS

typedef struct _WeftDiff WeftDiff;

typedef enum
{
  WEFT_DIFF_A = 0,
  WEFT_DIFF_B = 1,
} WeftDiffSide;

/* Where the two steps are lined up on a shared time axis. */
typedef enum
{
  WEFT_DIFF_ALIGN_STEP = 0,           /* each step's start (WeftMetrics.begin of the whole step) */
  WEFT_DIFF_ALIGN_FIRST_COLLECTIVE,   /* the start of each step's first collective (else its start) */
  WEFT_DIFF_ALIGN_ABSOLUTE,           /* the common timelines as they are */
} WeftDiffAlign;

/* "step", "first-collective", "absolute" (transfer none): a static string */
const char *weft_diff_align_to_string (WeftDiffAlign align);
/* FALSE for any other text. */
gboolean    weft_diff_align_from_string (const char *text, WeftDiffAlign *out);

typedef enum
{
  WEFT_DIFF_MATCH_STREAM = 0,   /* kernel: the same name, k-th of that name on the same stream */
  WEFT_DIFF_MATCH_RANK,         /* kernel left by the first pass: k-th of that name on the rank (it changed stream) */
  WEFT_DIFF_MATCH_COLLECTIVE,   /* collective: same type and process group, k-th by Seq (else by start) */
} WeftDiffMatchKind;

/* "stream", "rank", "collective" (transfer none): a static string */
const char *weft_diff_match_kind_to_string (WeftDiffMatchKind kind);

typedef struct
{
  WeftDiffMatchKind kind;
  guint   rank_index_a;
  guint32 event_a;
  guint   rank_index_b;
  guint32 event_b;
} WeftDiffMatch;

/* One rank number of either side. */
typedef struct
{
  int     rank;                /* the rank number */
  guint   rank_index_a;        /* into A's trace->ranks, G_MAXUINT when A has no such rank */
  guint   rank_index_b;
  gboolean has_a;              /* a and breakdown_a are set (weft_solver_metrics() was TRUE) */
  gboolean has_b;
  WeftMetrics a, b;
  WeftSolverBreakdown breakdown_a, breakdown_b;
} WeftDiffRank;

/* One kernel class (kernel rows) or collective type (collective rows) of
 * the whole step: A's and B's figures (weft_solver_breakdown(), all ranks). */
typedef struct
{
  WeftKernelClass kclass;      /* kernel rows; WEFT_KCLASS_NONE in collective rows */
  WeftCollType    type;        /* collective rows; WEFT_COLL_NONE in kernel rows */
  WeftSolverGroupTime a, b;
} WeftDiffRow;

typedef struct
{
  guint kernels_matched;       /* all kernel matches */
  guint kernels_other_stream;  /* of them, WEFT_DIFF_MATCH_RANK */
  guint collectives_matched;
  guint kernels_a_only;        /* compared ops with no counterpart */
  guint kernels_b_only;
  guint collectives_a_only;
  guint collectives_b_only;
} WeftDiffCounts;

/* Compares step_a of a with step_b of b (WEFT_SOLVER_ALL_STEPS: the whole
 * trace). NULL with WEFT_ERROR_INVALID when a side has no such step. */
WeftDiff   *weft_diff_new (WeftSolver *a, int step_a, WeftSolver *b, int step_b,
                           GError **error); /* (transfer full) (nullable): NULL with error set */
void        weft_diff_free (WeftDiff *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WeftDiff, weft_diff_free)

WeftSolver *weft_diff_get_solver (WeftDiff *self, WeftDiffSide side); /* (transfer none) */
int         weft_diff_get_step (WeftDiff *self, WeftDiffSide side);

/* The whole step's metrics of a side (weft_solver_metrics (solver,
 * WEFT_SOLVER_ALL_RANKS, step)); FALSE when it has none. */
gboolean    weft_diff_whole (WeftDiff *self, WeftDiffSide side, WeftMetrics *out);
/* Rank numbers of either side, ascending. */
guint       weft_diff_n_ranks (WeftDiff *self);
const WeftDiffRank *weft_diff_rank (WeftDiff *self, guint i); /* (transfer none) */
/* The pair of a rank index of one side, NULL when it has none. */
const WeftDiffRank *weft_diff_rank_of (WeftDiff *self, WeftDiffSide side, guint rank_index); /* (transfer none) (nullable) */

/* Kernel classes (communication left to the collective rows) or collective
 * types present on either side, by contribution to the step-time difference
 * (weft_diff_row_contribution(), its size descending). */
const WeftDiffRow *weft_diff_rows (WeftDiff *self, gboolean collectives, guint *n_rows); /* (transfer none) */
/* What a row adds to the step-time difference: a collective type its
 * exposed time's change (b.exposed - a.exposed: communication costs the
 * step only where no compute hides it), a kernel class its time's change
 * (b.total - a.total: kernels are what the step is made of). */
gint64      weft_diff_row_contribution (const WeftDiffRow *row);
/* "gemm", "all_gather", ... (transfer none): a static string */
const char *weft_diff_row_name (const WeftDiffRow *row);

void        weft_diff_counts (WeftDiff *self, WeftDiffCounts *out);
guint       weft_diff_n_matches (WeftDiff *self);
const WeftDiffMatch *weft_diff_match (WeftDiff *self, guint i); /* (transfer none) */

/* TRUE when the op is one the diff compared (a live GPU op of the side's
 * step on a rank that has a number). */
gboolean    weft_diff_is_compared (WeftDiff *self, WeftDiffSide side, guint rank_index, guint32 event);
/* The op's counterpart on the other side; FALSE (outputs untouched) when it
 * has none (an op of one side only, or not compared). kind may be NULL. */
gboolean    weft_diff_counterpart (WeftDiff *self, WeftDiffSide side, guint rank_index, guint32 event,
                                   guint *other_rank_index, guint32 *other_event, WeftDiffMatchKind *kind);

/* The time of the side's timeline that the shared axis puts at 0. */
gint64      weft_diff_origin (WeftDiff *self, WeftDiffSide side, WeftDiffAlign align);

/* One sentence: "B is 8.5 ms slower than A (110.2 ms against 101.7 ms):
 * +4.2 ms exposed all_gather, ...; 3 ops only in B." */
char       *weft_diff_summary (WeftDiff *self); /* (transfer full) */

G_END_DECLS
