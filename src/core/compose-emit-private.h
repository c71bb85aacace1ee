/* compose-emit-private.h: the composer's step program, shared by its
 * translation units: the DAG and the per-rank records (Ctx), the event
 * emitters, kernels and collectives (compose-emit.c), the model pieces,
 * FSDP, DDP and the step (compose-step.c), pipeline parallelism
 * (compose-pp.c), the solver and writer (compose.c). See compose.c's
 * header for the simulation. */
#pragma once

#include <glib.h>

#include "weft/weft-compose.h"
#include "compose-kernels-private.h"

/* ---- streams ------------------------------------------------------------------ */

enum
{
  ST_COMPUTE = 0,
  ST_AG,
  ST_RS,
  ST_DP,
  ST_TP,
  ST_EP,
  ST_CP,
  ST_HSDP,      /* FSDP's all-reduce across replicas (HSDP) */
  ST_AGIN,      /* FSDP's all-gather copy-in (the current stream of the all-gather) */
  ST_PP_SEND,   /* pipeline P2P (compose-pp.c): sends to the next pp rank */
  ST_PP_RECV,   /* receives from the previous pp rank */
  ST_PP_SEND_PREV, /* sends to the previous pp rank */
  ST_PP_RECV_NEXT, /* receives from the next pp rank */
  N_STREAMS
};


/* ---- process-group dimensions ----------------------------------------------------- */

enum
{
  DIM_WORLD = 0,
  DIM_DP,       /* dp x cp (FSDP shard / DDP replicate / grad-norm), same tp index */
  DIM_TP,
  DIM_CP,
  DIM_EP,
  DIM_DPEP,     /* expert FSDP: dp x cp / ep */
  DIM_REPL,     /* HSDP replicas: same shard position */
  DIM_PP,       /* pipeline stages: same (dp, cp, tp) position */
  N_DIMS
};

/* ---- DAG ------------------------------------------------------------------------ */

enum
{
  NODE_CPU = 0,
  NODE_GPU,
  NODE_COLL,    /* a collective member kernel; ends at its rendezvous */
  NODE_RDV,
};

#define EDGE_END   0u
#define EDGE_START (1u << 30)
#define EDGE_SYNC  (2u << 30)
#define EDGE_MASK  (3u << 30)

typedef struct
{
  gint64  start;
  gint64  end;
  gint64  dur;
  gint64  gap;    /* after END deps */
  gint64  lat;    /* after START deps */
  guint32 first_dep;
  guint32 n_deps;
  guint32 rdv;    /* NODE_COLL: its rendezvous */
  guint8  kind;
} Node;

enum
{
  REC_SCOPE = 0,
  REC_RUNTIME,
  REC_GPU,
};

typedef struct
{
  guint8      kind;
  guint8      stream;
  guint8      memcpy;    /* gpu_memcpy instead of kernel */
  guint8      launch;    /* runtime call that launches a GPU op (ac2g flow) */
  guint8      nccl;      /* GPU rec of a collective: add a gpu_user_annotation */
  const char *cat;
  const char *name;
  const char *args;      /* extra args (JSON members without braces), NULL */
  const char *annot;     /* nccl: the gpu_user_annotation name */
  guint32     a;         /* scope begin / runtime / gpu node */
  guint32     b;         /* scope end node */
  gint64      ext;
  gint64      corr;
  gint64      annot_ext;
  int         cbid;
} Rec;

typedef struct
{
  guint32 cpu_last;
  guint32 stream_last[N_STREAMS];   /* handle: node whose END the next op waits for */
  guint32 waits[N_STREAMS][8];
  guint   n_waits[N_STREAMS];
  gint64  ext;
  gint64  corr;
  GArray *recs;
  guint   stack[64];                /* rec indices of open scopes */
  gint64  ext_stack[64];
  guint   depth;
  gint64  seq[N_DIMS];
  GRand  *rng;
  guint32 scratch;                  /* last handle returned per rank */
  gint64  scratch_ext;              /* External id of the cudaEventRecord that took it (0: none) */
  guint32 scratch_wait;             /* and what the stream was told to wait for since (NONE) */
  guint32 handles[8];               /* saved handles (see save_handle) */
  gint64  handle_ext[8];
  guint32 handle_wait[8];
  guint32 rec_node[N_STREAMS];      /* per stream: the op its last cudaEventRecord captured */
  gint64  rec_ext[N_STREAMS];       /* and that record's External id */
} RankState;

typedef struct
{
  WeftComposeParams p;
  int               world;
  int               tokens;     /* tokens per rank: seq / cp * mbs */
  GArray           *nodes;
  GArray           *deps;
  RankState        *rs;
  GStringChunk     *strs;
  WeftCostModel    *own_cm;
  const WeftCostModel *cm;
  GRand            *rng;        /* per-instance jitter */
  char              pg_name[N_DIMS][8];
  const char       *pg_desc[N_DIMS];
  gboolean          dim_on[N_DIMS];
  /* activation checkpointing and the efficiency knobs (docs/composer.md) */
  int               phase;        /* PH_OTHER, PH_BLOCK_FWD (counting mms), PH_RECOMPUTE */
  gboolean          recompute_all;/* this recompute re-runs the whole block */
  gboolean          in_block;     /* emitting a transformer block (compiled, float8 linears) */
  int               cur_layer;
  int               mm_k;         /* index of the next mm in the block's forward */
  guint64           sac_mask[128];/* per block: bit k = forward mm k is recomputed (SAC op) */
  gint64            sac_count[128];/* per block: mms counted since the run began (torchtitan's meta) */
  guint32           tmp_deps[80];
  guint             n_tmp;
  guint64           seed_hash;
  /* pipeline parallel (compose-pp.c): the ranks being emitted, [r_lo,
   * r_hi) (one stage's, or every rank), and ZB's split backward */
  int               r_lo, r_hi;
  int               inner;        /* ranks per stage: dp x cp x tp */
  gboolean          skip_wgrad;   /* ZB input-gradient pass: no weight-gradient GEMMs */
} Ctx;

#define NONE WEFT_NONE

enum
{
  PH_OTHER = 0,
  PH_BLOCK_FWD,
  PH_RECOMPUTE,
};

static inline Node *
N (Ctx *c, guint32 i)
{
  return &g_array_index (c->nodes, Node, i);
}

typedef enum
{
  K_GEMM,
  K_ATTN_FWD,
  K_ATTN_BWD,
  K_MEM,
} KClass;

#define GEMM_STATS stats_args ("[132, 1, 1]", "[384, 1, 1]", 168, 213504, 19)
#define EW_STATS stats_args ("[16384, 1, 1]", "[128, 1, 1]", 28, 0, 100)
#define RED_STATS stats_args ("[4096, 1, 1]", "[256, 1, 1]", 40, 0, 100)
#define FLASH_STATS stats_args ("[32, 1, 32]", "[128, 1, 1]", 255, 49152, 48)

#define CP_MERGE_BYTES 38.0

/* One memory-bound step of a decomposed op: the cpu_op, its kernel, bytes
 * per element of the tensor it runs on. */
typedef struct
{
  const char *op;
  const char *kernel;
  double      bytes_per_elem;
  gboolean    per_row;      /* on the [T, 1] statistics only (8 bytes per row) */
} EagerStep;

typedef struct
{
  int          dim;
  int          stream;
  int          producer;    /* the caller's current stream (ProcessGroupNCCL waits for it) */
  WeftCollType type;
  const char  *coll_name;   /* "Collective name" */
  const char  *op_name;     /* c10d:: cpu_op */
  const char  *annot;       /* nccl:* annotation */
  const char  *kernel;
  const char  *dtype;       /* "BFloat16", "Float", "Long" */
  int          elem;        /* bytes per element */
  gint64       in_nelems;   /* per rank */
  gint64       out_nelems;
  gint64       bytes;       /* S for the cost model */
  gboolean     p2p_ring;    /* ring step: splits show the neighbour only */
  double       imbalance;   /* all_to_allv: relative spread of split sizes */
} CollSpec;

typedef struct
{
  double T;        /* tokens per rank (after cp) */
  double Tn;       /* tokens seen by norms (T / tp with SP) */
  double h, f, d;
  double nh, nkv;  /* heads per rank */
  double tp;
  double V;
} Dims;

typedef struct
{
  double   dense;    /* elements of the unit on this rank before FSDP sharding */
  double   experts;
  gboolean float8;   /* all-gathered in float8 (a block with float8 all-gather) */
  guint32 *ag_end;   /* per rank: the unit's last all-gather (its copy-out waits for it) */
  gint64  *ag_end_ext; /* per rank: the External id of its end record */
} Unit;

typedef struct
{
  double pending;   /* bytes of gradients not yet in a launched bucket */
  int    buckets;
} Ddp;

/* One training step being written: its units (embedding, the blocks, the
 * output), which of them FSDP has gathered, and DDP's pending bucket. */
typedef struct
{
  Dims      D;
  int       L;            /* blocks */
  int       n_units;      /* L + 2 */
  Unit     *units;
  gboolean  fsdp;
  gboolean  explicit_prefetch;
  gboolean *gathered;     /* for the backward */
  gboolean *gathered_fwd;
  double    total_params;
  Ddp       ddp;
} Step;

/* compose-emit.c */
G_GNUC_INTERNAL gboolean recompute_keeps_saved (const Ctx *c);
G_GNUC_INTERNAL guint32 node_new (Ctx *c, int kind, gint64 dur, gint64 gap, gint64 lat);
G_GNUC_INTERNAL void dep (Ctx *c, guint32 node, guint32 type);
G_GNUC_INTERNAL double jit (Ctx *c, int r, double rel);
G_GNUC_INTERNAL int group_members (Ctx *c, int dim, int rank, int *out);
G_GNUC_INTERNAL char *ranks_text (const int *m, int n);
G_GNUC_INTERNAL Rec *rec_add (Ctx *c, int r, int kind);
G_GNUC_INTERNAL guint32 cpu_node (Ctx *c, int r, gint64 cost, gint64 gap);
G_GNUC_INTERNAL void scope_begin (Ctx *c, const char *cat, const char *name, const char *args);
G_GNUC_INTERNAL void scope_end (Ctx *c);
G_GNUC_INTERNAL guint32 launch_gpu (Ctx *c, int r, int stream, const char *name, gint64 dur, gboolean is_memcpy, const char *args);
G_GNUC_INTERNAL void sync_to_host (Ctx *c, const char *op, const char *memcpy_name, gint64 dur, const char *args);
G_GNUC_INTERNAL void event_record (Ctx *c, int stream);
G_GNUC_INTERNAL void stream_wait (Ctx *c, int stream);
G_GNUC_INTERNAL void save_handle (Ctx *c, int slot, int stream);
G_GNUC_INTERNAL void copy_handle (Ctx *c, int to, int from);
G_GNUC_INTERNAL void load_handle (Ctx *c, int slot);
G_GNUC_INTERNAL gint64 kernel_ns (Ctx *c, KClass kc, double flops, double bytes);
G_GNUC_INTERNAL const char *stats_args (const char *grid, const char *block, int regs, int smem, int occ);
G_GNUC_INTERNAL void kernel_with_base (Ctx *c, const char *op, const char *name, gint64 base, const char *stats);
G_GNUC_INTERNAL void kernel (Ctx *c, const char *op, const char *name, KClass kc, double flops, double bytes, const char *stats);
G_GNUC_INTERNAL gint64 attn_ns (Ctx *c, gboolean backward, gboolean causal, double sk, double flops, double bytes);
G_GNUC_INTERNAL void gemm (Ctx *c, const char *name, double M, double K, double Nn);
G_GNUC_INTERNAL void rms_norm (Ctx *c, double T, double h);
G_GNUC_INTERNAL void rms_norm_backward (Ctx *c, double T, double h);
G_GNUC_INTERNAL void rope (Ctx *c, double T, double od);
G_GNUC_INTERNAL void repeat_kv (Ctx *c, double T, double qd, double kvd, gboolean backward);
G_GNUC_INTERNAL void swiglu (Ctx *c, double T, double f);
G_GNUC_INTERNAL void swiglu_backward (Ctx *c, double T, double f);
G_GNUC_INTERNAL guint64 fnv1a (const char *s, guint64 h);
G_GNUC_INTERNAL void collective (Ctx *c, const CollSpec *spec);
G_GNUC_INTERNAL void spec_init (Ctx *c, CollSpec *s, int dim, int stream, WeftCollType type, gint64 full_nelems, int elem, const char *dtype);
G_GNUC_INTERNAL void blocking_collective (Ctx *c, const CollSpec *spec);

/* compose-step.c */
G_GNUC_INTERNAL void dims_init (Ctx *c, Dims *D);
G_GNUC_INTERNAL gboolean is_moe_block (Ctx *c, int layer);
G_GNUC_INTERNAL double block_params_dense (Ctx *c, int layer);
G_GNUC_INTERNAL double block_params_experts (Ctx *c, int layer);
G_GNUC_INTERNAL gboolean has (Ctx *c, WeftStrategy s);
G_GNUC_INTERNAL void tp_comm (Ctx *c, const Dims *D, int kind);
G_GNUC_INTERNAL void fsdp_all_gather (Ctx *c, const Unit *u, int slot_wait);
G_GNUC_INTERNAL void fsdp_copy_out (Ctx *c, const Unit *u);
G_GNUC_INTERNAL void fsdp_reduce_scatter (Ctx *c, const Unit *u);
G_GNUC_INTERNAL void block_forward (Ctx *c, const Dims *D, int layer);
G_GNUC_INTERNAL void block_backward (Ctx *c, const Dims *D, int layer, Ddp *ddp);
G_GNUC_INTERNAL void block_recompute (Ctx *c, const Dims *D, int layer);
G_GNUC_INTERNAL void step_inputs (Ctx *c);
G_GNUC_INTERNAL void emit_step (Ctx *c, int step_no);

/* compose-pp.c: one step of a pipeline-parallel run (FALSE: a schedule that
 * cannot be lowered) */
G_GNUC_INTERNAL gboolean pp_emit_step (Ctx *c, int step_no, GError **error);
