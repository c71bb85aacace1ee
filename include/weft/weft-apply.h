/* weft-apply.h: apply a parallelism strategy to an open (real) profile.
 *
 * Finds the transformer blocks of each rank's compute stream (from
 * nn.Module / layer annotations, FSDP:: unit annotations, else from the
 * period of the kernel-name sequence), tells forward from backward where it
 * can, and inserts the strategy's collectives around the blocks through the
 * edit session (weft-edit.h): one undo entry for the whole Apply, re-solved
 * by the solver, so the step time and overlap metrics reflect it.
 * See docs/composer.md, "Applying a strategy to a real profile". */
#pragma once

#include "weft-costmodel.h"
#include "weft-edit.h"
#include "weft-model.h"

G_BEGIN_DECLS

typedef enum
{
  WEFT_APPLY_DDP = 0,
  WEFT_APPLY_FSDP,
  WEFT_APPLY_TP,
  WEFT_APPLY_TP_SP,
  WEFT_APPLY_EP,
  WEFT_APPLY_CP_RING,
  WEFT_APPLY_CP_ALL_GATHER,
  WEFT_APPLY_N_STRATEGIES
} WeftApplyStrategy;

/* "ddp", "fsdp", "tp", "tp-sp", "ep", "cp-ring", "cp-allgather". */
const char *weft_apply_strategy_to_string (WeftApplyStrategy strategy); /* (transfer none): a static string */
/* Also accepts "fsdp2", "zero3", "sp", "cp" (= cp-allgather), "cp-all-gather". */
gboolean    weft_apply_strategy_from_string (const char *text, WeftApplyStrategy *out, GError **error);

/* ---- blocks ---------------------------------------------------------------------- */

typedef enum
{
  WEFT_BLOCKS_NONE = 0,
  WEFT_BLOCKS_MODULE,     /* nn.Module / layer annotations ("TransformerBlock_3", "layers.3", "## forward ##") */
  WEFT_BLOCKS_FSDP,       /* FSDP::pre_forward .. post_forward units with a repeated kernel sequence */
  WEFT_BLOCKS_PATTERN,    /* the period of the compute stream's kernel-name sequence */
} WeftBlockSource;

const char *weft_block_source_to_string (WeftBlockSource source); /* (transfer none): a static string */

typedef enum
{
  WEFT_BLOCK_FORWARD = 0,
  WEFT_BLOCK_BACKWARD,
} WeftBlockPhase;

typedef struct
{
  WeftBlockPhase phase;
  guint          index;      /* order within its phase (time order) */
  guint32        first;      /* first and last op of the block on the compute lane (event indices) */
  guint32        last;
  guint          n_ops;      /* ops of the compute lane from first to last */
  gint64         begin;      /* observed span (file clock) */
  gint64         end;
} WeftBlock;

typedef struct
{
  guint           rank_index;
  guint32         lane;           /* the compute lane */
  WeftBlockSource source;
  gboolean        phases_known;   /* FALSE: no backward found; every block is taken as forward */
  GArray         *blocks;         /* WeftBlock, forward blocks (time order) then backward (time order) */
  guint           n_forward;
  guint           n_backward;
  guint           period;         /* PATTERN: kernels per block (forward) */
} WeftBlocks;

/* Blocks of one rank of a loaded trace (model order, observed times). NULL
 * with WEFT_ERROR_INVALID when the rank has no compute stream or no block
 * could be found. */
/* (transfer full) (nullable): NULL with error set */
WeftBlocks *weft_apply_find_blocks (WeftTrace *trace, guint rank_index, GError **error);
/* The same with one method only (WEFT_BLOCKS_NONE: the order above). */
WeftBlocks *weft_apply_find_blocks_by (WeftTrace *trace, guint rank_index, WeftBlockSource method,
                                       GError **error); /* (transfer full) (nullable): NULL with error set */
void        weft_blocks_free (WeftBlocks *blocks);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WeftBlocks, weft_blocks_free)

/* ---- applying ------------------------------------------------------------------- */

typedef struct
{
  WeftApplyStrategy strategy;
  int       degree;              /* group size (>= 2; <= 64): dp, tp, ep or cp */
  /* Sizes (elements); <= 0: inferred from the GEMMs' "Input Dims" of the
   * first forward block, else Llama-3-8B's (docs). */
  gint64    params_per_block;    /* parameters of one block */
  gint64    tokens;              /* tokens per rank of one micro-batch (M of the GEMMs) */
  gint64    hidden;              /* model dimension */
  int       dtype_bytes;         /* activations and FSDP parameters (2: bf16) */
  double    bucket_mb;           /* DDP bucket cap (default 25; the first bucket 1 MB) */
  gboolean  no_prefetch;         /* FSDP: all-gather i waits for block i-1 to end */
  gboolean  no_reshard;          /* FSDP: no all-gather in backward */
  gboolean  strip_collectives;   /* delete the trace's own collectives first */
  const WeftCostModel *cost_model; /* NULL: the session's (fitted on the trace, else h100 defaults) */
} WeftApplyParams;

void     weft_apply_params_init (WeftApplyParams *params);   /* FSDP, degree 8, sizes inferred */
gboolean weft_apply_params_validate (const WeftApplyParams *params, GError **error);

typedef struct
{
  WeftBlockSource source;
  gboolean  phases_known;
  guint     n_forward;           /* blocks per rank */
  guint     n_backward;
  guint     n_ranks;
  guint     n_groups;
  guint     n_collectives;       /* collective instances inserted */
  guint     n_kernels;           /* helper ops inserted per rank x ranks (copy-out kernels, waits) */
  guint     n_stripped;          /* collectives deleted first */
  gint64    params_per_block;    /* sizes used */
  gint64    tokens;
  gint64    hidden;
  gboolean  sizes_inferred;      /* from Input Dims */
  WeftMetrics before;            /* whole trace, all ranks: what Apply inserts into (after the strip) */
  WeftMetrics after;
  WeftMetrics original;          /* before Apply (= before unless strip_collectives removed some) */
} WeftApplyReport;

/* Inserts the strategy's collectives into the session's trace as ONE undo
 * entry (a gesture); on error nothing is changed. The trace must have a
 * multiple of degree ranks: groups are consecutive runs of degree ranks in
 * rank order; a single-rank profile is replicated first with
 * weft_apply_replicate() (or use weft_apply_to_trace()). report nullable. */
gboolean weft_apply_strategy (WeftEditSession *session, const WeftApplyParams *params,
                              WeftApplyReport *report, GError **error);

/* A copy of a one-rank trace on n_ranks ranks (0..n-1), through the saver
 * and the real loader (distributedInfo rank / world_size rewritten). */
/* (transfer full) (nullable): NULL with error set */
WeftTrace *weft_apply_replicate (WeftTrace *trace, int n_ranks, GError **error);

/* Convenience: replicates a one-rank trace to params->degree ranks when
 * needed, opens an edit session over it and applies. Takes trace in every
 * case (it is freed on failure). */
/* (transfer full) (nullable): NULL with error set */
WeftEditSession *weft_apply_to_trace (WeftTrace *trace, const WeftApplyParams *params,
                                      WeftApplyReport *report, GError **error);

/* ---- the palette: each strategy's collectives -------------------------------------- */

typedef struct
{
  WeftCollType type;
  gint64       bytes;         /* payload S */
  int          group_size;
  const char  *stream_role;   /* "compute", "fsdp-all-gather", "fsdp-reduce-scatter", "dp-comm", "cp" */
  gint64       stream;        /* stream id Apply uses (7 compute, 15, 17, 19, 25) */
  const char  *phase;         /* "forward", "backward", "both" */
  guint        per_block;     /* how many per block and phase */
  char        *label;         /* "FSDP all-gather of a block's parameters (bf16)" */
  gint64       estimate_ns;   /* cost model time (h100 defaults or params->cost_model) */
} WeftApplyCollective;

/* The collectives a strategy adds (sizes from params, sizes not given:
 * Llama-3-8B's), a GPtrArray of WeftApplyCollective that frees them; NULL
 * with an error for bad params. */
/* (transfer full) (nullable): NULL with error set */
GPtrArray *weft_apply_strategy_collectives (const WeftApplyParams *params, GError **error);

G_END_DECLS
