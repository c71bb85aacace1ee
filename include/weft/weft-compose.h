/* weft-compose.h: the composer of parallelism templates.
 *
 * From a model shape, a hardware description and parallelism degrees and
 * options, the composer simulates one or more training steps on every rank
 * (a small discrete-event simulation: per rank one CPU thread issuing ahead,
 * CUDA streams with stream order, cross-stream event waits, collective
 * rendezvous across ranks, GPU-to-CPU syncs; seeded per-rank jitter) and
 * writes per-rank Kineto traces in torchtitan's layout and format
 * (<out>/profiling/traces/iteration_<N>/rank<R>_trace.json[.gz]).
 *
 * Ranks: world = pp * dp * cp * tp, tp innermost (tp groups inside a node),
 * then cp, then dp, then pp (torchtitan's mesh order pp, dp, cp, tp). EP borrows its ranks from dp * cp (ep must divide dp * cp).
 * See docs/composer.md for every parameter and the timing model. */
#pragma once

#include "weft-costmodel.h"
#include "weft-load.h"
#include "weft-model.h"

G_BEGIN_DECLS

/* The most ranks one composed step has (dp x cp x tp; torchtitan's largest
 * published runs use 512 GPUs) and the most rank-blocks (ranks x layers x
 * steps) it simulates: the DAG takes ~50 KB per rank-block. */
#define WEFT_COMPOSE_MAX_RANKS       512
#define WEFT_COMPOSE_MAX_RANK_BLOCKS 16384

typedef enum
{
  WEFT_STRATEGY_DDP  = 1 << 0,
  WEFT_STRATEGY_FSDP = 1 << 1,
  WEFT_STRATEGY_TP   = 1 << 2,
  WEFT_STRATEGY_EP   = 1 << 3,
  WEFT_STRATEGY_CP   = 1 << 4,
  WEFT_STRATEGY_PP   = 1 << 5,
} WeftStrategy;

/* Pipeline schedules (torch.distributed.pipelining, as torchtitan selects
 * them by name; docs/composer.md, "Pipeline parallel"). */
typedef enum
{
  WEFT_PP_1F1B = 0,
  WEFT_PP_GPIPE,
  WEFT_PP_INTERLEAVED_1F1B,
  WEFT_PP_LOOPED_BFS,
  WEFT_PP_ZB,
  WEFT_PP_ZBV,          /* ScheduleZBVZeroBubble: V placement, 2 stages per rank */
  WEFT_PP_DUALPIPEV,    /* ScheduleDualPipeV: V placement, overlapped F+B */
} WeftPpSchedule;

typedef enum
{
  WEFT_CP_ALL_GATHER = 0,   /* one all-gather of K/V per attention */
  WEFT_CP_RING,             /* cp-1 send/recv steps overlapped with attention */
} WeftCpMode;

/* Activation checkpointing, as torchtitan's activation_checkpoint.mode
 * (docs/composer.md, "Activation checkpointing"). */
typedef enum
{
  WEFT_AC_NONE = 0,          /* every activation kept */
  WEFT_AC_SELECTIVE_OP,      /* "selective", option "op": mm (all but every second), SDPA and
                              * reduce-scatter outputs kept, the rest recomputed */
  WEFT_AC_SELECTIVE_LAYER,   /* "selective", option N: every ac_layer_freq-th block fully recomputed */
  WEFT_AC_FULL,              /* every block's forward recomputed in its backward */
} WeftAcMode;

typedef struct
{
  char  name[32];
  int   layers;
  int   hidden;
  int   ffn;          /* dense MLP hidden size */
  int   heads;
  int   kv_heads;
  int   seq;          /* global sequence length (split over cp) */
  int   mbs;          /* micro-batch size per rank */
  int   vocab;
  int   experts;      /* 0: dense model */
  int   top_k;
  int   moe_ffn;      /* expert hidden size */
  int   moe_every;    /* every k-th block is MoE (1: all) */
} WeftModelShape;

/* Achieved fraction of peak per kernel class (compute: FLOP/s; memory-bound
 * classes: HBM bandwidth). Defaults in docs/composer.md; replaced by
 * weft_compose_calibrate(). */
typedef struct
{
  double gemm;        /* of peak_flops */
  double attention;   /* of peak_flops (forward; backward uses 0.8x) */
  double memory;      /* of hbm bandwidth: norm, elementwise, copy, optimizer */
  gint64 kernel_overhead_ns; /* fixed cost added to every compute kernel */
  gboolean calibrated;
  guint  calibrated_kernels;
} WeftComputeEfficiency;

typedef struct
{
  WeftModelShape        model;
  WeftHardware          hw;
  WeftComputeEfficiency eff;

  guint      strategies;     /* WeftStrategy flags */
  int        dp;             /* data-parallel degree (DDP replicas or FSDP shards) */
  int        tp;
  int        cp;
  int        ep;
  int        dp_replicate;   /* HSDP: FSDP shards over dp / dp_replicate, all-reduce across replicas (1: plain FSDP) */
  int        pp;             /* pipeline stages (ranks along pp, outermost; 1: none) */
  WeftPpSchedule pp_schedule;     /* default WEFT_PP_1F1B (torchtitan's default) */
  int        microbatches;        /* per step and stage; 0: mbs (microbatches of 1, as torchtitan) */
  int        pp_stages_per_rank;  /* V: virtual stages per rank (looped schedules); 0: 1, or 2 when looped */

  /* options */
  gboolean   sequence_parallel;   /* TP with SP */
  gboolean   fsdp_prefetch;       /* default TRUE */
  gboolean   reshard_after_forward; /* default TRUE */
  double     ddp_bucket_mb;       /* default 25; the first bucket is 1 MB */
  gboolean   ep_overlap;          /* two-chunk dispatch/combine overlap */
  WeftCpMode cp_mode;
  WeftAcMode ac;                  /* default WEFT_AC_NONE */
  int        ac_layer_freq;       /* WEFT_AC_SELECTIVE_LAYER: every N-th block (default 2) */
  gboolean   compile;             /* torch.compile per block: Inductor-fused memory-bound kernels (default eager) */
  gboolean   float8;              /* Float8 (tensorwise) linear layers in the blocks */
  gboolean   float8_all_gather;   /* FSDP all-gathers float8 weights (needs float8) */

  int        steps;          /* ProfilerStep annotations (default 1) */
  int        iteration;      /* folder iteration_<N>; the last step is #N-1 (default 10) */
  guint32    seed;           /* jitter seed (default 1) */
  double     jitter;         /* relative per-rank jitter of durations (default 0.03) */
  gint64     base_time_ns;   /* baseTimeNanoseconds (default 1779926400000000000) */

  /* Collective times; NULL: defaults of hw (borrowed; must outlive the call). */
  const WeftCostModel *cost_model;

  /* Measured kernel durations per op shape (weft_kernel_times_new_from_trace);
   * a GEMM or attention whose shape is in it takes the measured median
   * duration instead of the roofline estimate. NULL: none. Borrowed. */
  const struct _WeftKernelTimes *kernel_times;

  /* weft_compose_write's progress: total = world + 1 units, done = 0 while
   * the step is simulated, then 1 + the rank files written. Called from
   * worker threads (must be thread-safe). NULL: none. */
  WeftProgressFunc progress;
  gpointer         progress_data;
} WeftComposeParams;

/* Defaults: llama3-8b with 4 layers, h100, FSDP on 8 ranks. */
void      weft_compose_params_init (WeftComposeParams *params);

/* Model presets: "llama3-8b", "llama3-70b", "moe-small" (a 16-expert top-2
 * MoE). Sets params->model; FALSE with WEFT_ERROR_INVALID for an unknown name. */
gboolean  weft_compose_params_set_preset (WeftComposeParams *params,
                                          const char        *preset,
                                          GError           **error);
const char * const *weft_compose_preset_names (void);

/* Hardware preset ("h100", "h200"). */
gboolean  weft_compose_params_set_hardware (WeftComposeParams *params,
                                            const char        *hw,
                                            GError           **error);

/* "none", "selective" (= "selective-op", "op"), "selective-layer" /
 * "layer" (every 2nd block) or "layer:N", "full". */
gboolean  weft_compose_parse_ac (const char *text,
                                 WeftAcMode *mode,
                                 int        *layer_freq,
                                 GError    **error);
const char *weft_compose_ac_to_string (WeftAcMode mode);

/* Parses "fsdp,tp" (ddp, fsdp, tp, ep, cp; "+" also separates) into flags. */
gboolean  weft_compose_parse_strategies (const char *text,
                                         guint      *strategies,
                                         GError    **error);
/* Sets params' strategies from a list in the vocabulary Apply uses too: the
 * flags above, and "tp-sp" (TP with sequence parallelism), "cp-ring",
 * "cp-allgather" (CP in that mode), e.g. "fsdp,tp-sp". */
gboolean  weft_compose_params_set_strategies (WeftComposeParams *params,
                                              const char        *text,
                                              GError           **error);
/* "gpipe", "1f1b", "interleaved-1f1b" (= "interleaved"), "looped-bfs", "zb"
 * (= "zero-bubble"); FALSE with WEFT_ERROR_INVALID for another name. */
gboolean  weft_compose_parse_pp_schedule (const char     *text,
                                          WeftPpSchedule *schedule,
                                          GError        **error);
const char *weft_compose_pp_schedule_to_string (WeftPpSchedule schedule);
/* The name of the i-th schedule the composer knows (0, 1, ... in a fixed
 * order), NULL past the last: what a chooser lists. */
const char *weft_compose_pp_schedule_name (guint i);
/* The microbatches per step (params->microbatches, or mbs when 0) and the
 * virtual stages per rank (params->pp_stages_per_rank, or 1 / 2 looped). */
int       weft_compose_pp_microbatches (const WeftComposeParams *params);
int       weft_compose_pp_stages_per_rank (const WeftComposeParams *params);
/* The pp rank that runs (virtual) stage `stage` (0 .. pp x V - 1):
 * stage mod pp (PyTorch's "loop" style), or for ZBV and DualPipeV the
 * "v" style (stage, or 2 pp - 1 - stage past the V's turn). */
int       weft_compose_pp_stage_rank (const WeftComposeParams *params,
                                      int                      stage);
/* The transformer blocks of stage `stage`: [*first, *end) (an even split
 * of the layers over pp x V stages). */
void      weft_compose_pp_stage_blocks (const WeftComposeParams *params,
                                        int                      stage,
                                        int                     *first,
                                        int                     *end);

/* "fsdp+tp" style name of the flags; the caller frees it. */
char     *weft_compose_strategies_to_string (guint strategies); /* (transfer full) */

/* Checks the parameters (degrees, divisibility, <= 64 ranks, ...). */
gboolean  weft_compose_params_validate (const WeftComposeParams *params,
                                        GError                 **error);
int       weft_compose_world_size (const WeftComposeParams *params);

/* Measures achieved throughput per kernel class in a loaded real profile
 * (GEMM and attention FLOPs from the launching cpu_op's Input Dims,
 * memory-bound bytes likewise) and stores it in params->eff. FALSE with
 * WEFT_ERROR_INVALID when the profile has nothing to measure. */
gboolean  weft_compose_calibrate (WeftComposeParams *params,
                                  WeftTrace         *profile,
                                  GError           **error);

/* Kernel durations measured in a real profile, per launching op and shape:
 * every kernel whose launching cpu_op (same External id) has "Input Dims";
 * the kernels of one op instance are summed; the median over instances of
 * the same (op name, Input Dims) is kept. n_shapes (nullable) receives the
 * number of shapes. */
typedef struct _WeftKernelTimes WeftKernelTimes;

/* (transfer full) (nullable): NULL when the profile has no kernel to measure */
WeftKernelTimes *weft_kernel_times_new_from_trace (WeftTrace *profile, guint *n_shapes);
void             weft_kernel_times_free (WeftKernelTimes *self);
/* Median duration (ns) of op with those input shapes (dims[i] has
 * n_dims[i] entries), -1 when the profile has none. */
gint64           weft_kernel_times_lookup (const WeftKernelTimes *self, const char *op, const gint64 *const *dims,
                                           const int *n_dims, int n_inputs);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WeftKernelTimes, weft_kernel_times_free)

/* The composed step as per-rank Kineto JSON texts: a GPtrArray of GBytes,
 * index = rank. */
GPtrArray *weft_compose_json (const WeftComposeParams *params,
                              GError                 **error); /* (transfer full) (nullable): NULL with error set */

/* Writes <out_dir>/profiling/traces/iteration_<N>/rank<R>_trace<ext>
 * (ext ".json" or ".json.gz"). If written_dir is not NULL it receives the
 * iteration folder. */
gboolean  weft_compose_write (const WeftComposeParams *params,
                              const char              *out_dir,
                              const char              *ext,
                              char                   **written_dir,
                              GError                 **error);

/* The composed step loaded with the real loader into an in-memory trace
 * (indexed, classified, collectives matched). */
WeftTrace *weft_compose_trace (const WeftComposeParams *params,
                               GError                 **error); /* (transfer full) (nullable): NULL with error set */

/* Parameters as JSON (the "weft" top-level key of composed files). */
json_object *weft_compose_params_to_json (const WeftComposeParams *params); /* (transfer full) */

/* The inverse: params from a "weft" key (fields absent keep their
 * weft_compose_params_init() value; hardware names are not kept: the
 * figures are). FALSE with WEFT_ERROR_INVALID when it is not composer
 * parameters. */
gboolean     weft_compose_params_from_json (WeftComposeParams *params,
                                            json_object       *json,
                                            GError           **error);

/* ---- the memory model (src/core/compose-memory.c, docs/composer.md "Memory") */

/* The activation checkpointing torchtitan's train configs use (the memory
 * model's default; the composer's own default, WeftComposeParams.ac, is
 * none). */
#define WEFT_AC_DEFAULT WEFT_AC_SELECTIVE_OP

/* The figures of one rank (bytes; every rank of a composed step holds the
 * same shards). */
typedef struct
{
  double params;          /* fp32 parameters (the master weights), this rank's shards */
  double grads;           /* fp32 gradients, this rank's shards (backward .. zero_grad) */
  double optimizer;       /* AdamW exp_avg + exp_avg_sq, fp32 */
  double ddp_buckets;     /* DDP's fp32 reducer buckets (a copy of the gradients) */
  double unsharded_max;   /* FSDP: the largest unit's all-gathered bf16 parameters */
  int    units_unsharded; /* FSDP: units unsharded at once (current + prefetched) */
  double act_block;       /* activations saved by the first block for the AC mode */
  double act_block_full;  /* the same without AC (what a backward recomputes) */
  double act_loss;        /* the fp32 log-softmax kept for the loss backward */
  double nccl;            /* NCCL's buffers, outside the caching allocator */
  int    communicators;   /* NCCL communicators of the rank */
} WeftMemoryFigures;

void weft_compose_memory_figures (const WeftComposeParams *params,
                                  WeftAcMode               ac,
                                  WeftMemoryFigures       *out);

/* Pipeline parallel: the figures of one stage rank (bytes), the units of
 * its own stages only (WeftMemoryFigures counts the whole model), and the
 * activations its schedule keeps in flight. */
#define WEFT_MEMORY_MAX_STAGES 16
typedef struct
{
  int    stage_rank;             /* the pp rank */
  int    n_stages;               /* its (virtual) stages */
  int    stages[WEFT_MEMORY_MAX_STAGES];   /* their indices, ascending */
  int    blocks;                 /* transformer blocks over them */
  double params;                 /* fp32 parameters of its units, this rank's shards */
  double grads;                  /* fp32 gradients, the same */
  double optimizer;              /* AdamW exp_avg + exp_avg_sq, fp32 */
  double act_microbatch;         /* activations one microbatch saves over all its stages (AC mode; the last
                                  * stage's fp32 log-softmax) */
  int    in_flight_max;          /* most (stage, microbatch) forwards run whose backward (B or I) has not */
  double act_in_flight_max;      /* most activations those hold at once */
} WeftMemoryStageFigures;

/* The figures of a composed PP trace's rank (its stage rank: rank / (dp x
 * cp x tp)); the microbatches in flight counted from its "PP:" annotations
 * in program order. FALSE without pipeline parallelism. */
gboolean weft_compose_memory_stage_figures (const WeftComposeParams *params,
                                            WeftAcMode               ac,
                                            const WeftRank          *rank,
                                            WeftMemoryStageFigures  *out);

/* One CPU span of the composed step (a REC scope: "nn.Module: ...",
 * "FSDP::...", ...), times in ns on any clock. */
typedef struct
{
  const char *name;
  gint64      begin_ns;
  gint64      end_ns;
} WeftComposeSpan;

/* One point of the timeline: the caching allocator's totals right after an
 * allocation (bytes > 0) or a free (bytes < 0), as a Kineto "[memory]"
 * event carries them. */
typedef struct
{
  gint64 ts_ns;
  gint64 bytes;
  gint64 allocated;
  gint64 reserved;
  gint64 addr;      /* the block's address in the simulated allocator */
} WeftMemorySample;

/* The timeline of one rank over the composed step, from its CPU spans in
 * program order (the composer's names; the allocator works at CPU issue
 * time). (transfer full): a GArray of WeftMemorySample, sorted by time;
 * *peak_reserved (nullable) receives its largest reserved total. */
GArray *weft_compose_memory_timeline (const WeftComposeParams *params,
                                      WeftAcMode               ac,
                                      const WeftComposeSpan   *spans,
                                      guint                    n_spans,
                                      gint64                  *peak_reserved);

/* The same from a loaded composed trace's CPU thread (rank_index into
 * trace->ranks); empty when the rank has none of the composer's spans. */
GArray *weft_compose_memory_timeline_from_trace (const WeftComposeParams *params,
                                                 WeftAcMode               ac,
                                                 WeftTrace               *trace,
                                                 guint                    rank_index,
                                                 gint64                  *peak_reserved); /* (transfer full) */

/* ---- throughput (torchtitan's metrics) */

/* Model FLOPs per token as torchtitan's get_nparams_and_flops: 6 x the
 * parameters without the embedding (MoE: the active ones) + 12 x layers x
 * heads x head_dim x seq. */
double weft_compose_flops_per_token (const WeftComposeParams *params);
/* Tokens of one step over all data-parallel ranks: dp x mbs x seq. */
double weft_compose_tokens_per_step (const WeftComposeParams *params);

G_END_DECLS
