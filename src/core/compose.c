/* compose.c: the composer's discrete-event simulation and Kineto writer.
 *
 * The step program is generated once for all ranks in lockstep (SPMD: every
 * rank issues the same sequence; only group membership differs). Each
 * emitted operation becomes one node per rank in a DAG:
 *   - CPU nodes chain on the rank's CPU thread (start = previous end + gap);
 *     a sync node (cudaStreamSynchronize) ends after the GPU op it waits for;
 *   - GPU nodes start after the previous op of their stream, the events the
 *     stream waits for (cudaStreamWaitEvent) and their launch (+ latency);
 *   - a collective is one GPU node per member plus one rendezvous node per
 *     instance: rendezvous = latest member start + intrinsic transfer time;
 *     every member ends there (early ranks wait inside the kernel).
 * The DAG is solved in topological order (Kahn) with integer nanoseconds,
 * then every rank's events are written as Kineto JSON text. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "weft/weft-compose.h"
#include "weft/weft-save.h"
#include "save-private.h"
#include "compose-attention-private.h"
#include "compose-memory-private.h"

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
  ST_PP_SEND,   /* pipeline P2P: sends (compose-pp.c) */
  ST_PP_RECV,   /* pipeline P2P: receives */
  N_STREAMS
};

static const int stream_ids[N_STREAMS] = { 7, 15, 17, 19, 21, 23, 25, 27, 13, 29, 31 };

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

/* The recompute pass of selective op AC keeps what the policy saved. */
static gboolean
recompute_keeps_saved (const Ctx *c)
{
  return c->phase == PH_RECOMPUTE && !c->recompute_all;
}

static guint32
node_new (Ctx *c, int kind, gint64 dur, gint64 gap, gint64 lat)
{
  Node n = { 0 };

  n.kind = kind;
  n.dur = MAX (dur, 0);
  n.gap = gap;
  n.lat = lat;
  n.first_dep = c->deps->len;
  n.n_deps = c->n_tmp;
  n.rdv = NONE;
  g_array_append_vals (c->deps, c->tmp_deps, c->n_tmp);
  c->n_tmp = 0;
  g_array_append_val (c->nodes, n);
  return c->nodes->len - 1;
}

static void
dep (Ctx *c, guint32 node, guint32 type)
{
  if (node == NONE || c->n_tmp >= G_N_ELEMENTS (c->tmp_deps))
    return;
  c->tmp_deps[c->n_tmp++] = node | type;
}

static inline Node *
N (Ctx *c, guint32 i)
{
  return &g_array_index (c->nodes, Node, i);
}

static double
jit (Ctx *c, int r, double rel)
{
  return 1.0 + rel * (2.0 * g_rand_double (c->rs[r].rng) - 1.0);
}

/* ---- groups ------------------------------------------------------------------ */

/* rank = ((s * dp + d) * cp + k) * tp + t (s: the pipeline stage) */
static void
rank_coords (Ctx *c, int rank, int *d, int *k, int *t)
{
  *t = rank % c->p.tp;
  *k = (rank / c->p.tp) % c->p.cp;
  *d = (rank / (c->p.tp * c->p.cp)) % c->p.dp;
}

/* Members of rank's group along dim, sorted; returns the count. */
static int
group_members (Ctx *c, int dim, int rank, int *out)
{
  int d, k, t, n = 0;
  int dc, per;
  int base = rank / c->inner * c->inner;   /* the stage's first rank */

  rank_coords (c, rank, &d, &k, &t);
  switch (dim)
    {
    case DIM_WORLD:
      for (int r = 0; r < c->world; r++)
        out[n++] = r;
      return n;
    case DIM_PP:
      for (int i = 0; i < c->world / c->inner; i++)
        out[n++] = rank % c->inner + i * c->inner;
      return n;
    case DIM_DP:
      {
        int shards = c->p.dp / c->p.dp_replicate;
        for (int r = 0; r < c->inner; r++)
          if (r % c->p.tp == t && (r / (c->p.tp * c->p.cp)) / shards == d / shards)
            out[n++] = r;
      }
      break;
    case DIM_REPL:
      {
        int shards = c->p.dp / c->p.dp_replicate;
        for (int i = 0; i < c->p.dp_replicate; i++)
          out[n++] = ((i * shards + d % shards) * c->p.cp + k) * c->p.tp + t;
      }
      break;
    case DIM_TP:
      for (int i = 0; i < c->p.tp; i++)
        out[n++] = (rank % c->inner / c->p.tp) * c->p.tp + i;
      break;
    case DIM_CP:
      for (int i = 0; i < c->p.cp; i++)
        out[n++] = (d * c->p.cp + i) * c->p.tp + t;
      break;
    case DIM_EP:
      dc = d * c->p.cp + k;
      per = dc / c->p.ep * c->p.ep;
      for (int i = 0; i < c->p.ep; i++)
        out[n++] = (per + i) * c->p.tp + t;
      break;
    case DIM_DPEP:
      dc = d * c->p.cp + k;
      for (int i = dc % c->p.ep; i < c->p.dp * c->p.cp; i += c->p.ep)
        out[n++] = i * c->p.tp + t;
      break;
    default:
      out[n++] = rank - base;
    }
  for (int i = 0; i < n; i++)
    out[i] += base;
  return n;
}

static char *
ranks_text (const int *m, int n)
{
  GString *s = g_string_new ("[");

  for (int i = 0; i < n; i++)
    g_string_append_printf (s, i ? ", %d" : "%d", m[i]);
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

/* ---- CPU side --------------------------------------------------------------------- */

static gint64
cpu_cost (Ctx *c, int r, gint64 ns)
{
  return (gint64) (ns * jit (c, r, 0.2));
}

static Rec *
rec_add (Ctx *c, int r, int kind)
{
  Rec rec = { 0 };

  rec.kind = kind;
  rec.a = rec.b = NONE;
  g_array_append_val (c->rs[r].recs, rec);
  return &g_array_index (c->rs[r].recs, Rec, c->rs[r].recs->len - 1);
}

static guint32
cpu_node (Ctx *c, int r, gint64 cost, gint64 gap)
{
  RankState *s = &c->rs[r];

  gint64 gap_ns, cost_ns;

  dep (c, s->cpu_last, EDGE_END);
  /* Two draws: never as two arguments of one call, whose evaluation order
   * is unspecified (gcc and clang differ). This is the order gcc used. */
  gap_ns = cpu_cost (c, r, gap);
  cost_ns = cpu_cost (c, r, cost);
  s->cpu_last = node_new (c, NODE_CPU, cost_ns, gap_ns, 0);
  return s->cpu_last;
}

static void
scope_begin (Ctx *c, const char *cat, const char *name, const char *args)
{
  for (int r = c->r_lo; r < c->r_hi; r++)
    {
      RankState *s = &c->rs[r];
      Rec *rec;

      g_assert (s->depth < G_N_ELEMENTS (s->stack));
      rec = rec_add (c, r, REC_SCOPE);
      rec->cat = cat;
      rec->name = name;
      rec->args = args;
      rec->ext = ++s->ext;
      rec->a = cpu_node (c, r, 1500, 800);
      s->stack[s->depth] = s->recs->len - 1;
      /* python_function events carry a Python id, not an External id:
       * launches inside them take the enclosing op's */
      s->ext_stack[s->depth] = g_str_equal (cat, "python_function") ? -1 : rec->ext;
      s->depth++;
    }
}

static void
scope_end (Ctx *c)
{
  for (int r = c->r_lo; r < c->r_hi; r++)
    {
      RankState *s = &c->rs[r];
      guint32 n = cpu_node (c, r, 600, 300);

      g_assert (s->depth > 0);
      s->depth--;
      g_array_index (s->recs, Rec, s->stack[s->depth]).b = n;
    }
}

static gint64
cur_ext (RankState *s)
{
  for (guint d = s->depth; d-- > 0;)
    if (s->ext_stack[d] >= 0)
      return s->ext_stack[d];
  return 0;
}

/* A cuda_runtime call on rank r; returns its node. */
static guint32
runtime_call (Ctx *c, int r, const char *name, int cbid, gint64 cost, guint32 sync_on)
{
  RankState *s = &c->rs[r];
  Rec *rec = rec_add (c, r, REC_RUNTIME);

  rec->cat = "cuda_runtime";
  rec->name = name;
  rec->cbid = cbid;
  rec->ext = cur_ext (s);
  rec->corr = ++s->corr;
  dep (c, s->cpu_last, EDGE_END);
  if (sync_on != NONE)
    dep (c, sync_on, EDGE_SYNC);
  {
    gint64 gap_ns = cpu_cost (c, r, 400); /* drawn first, as in cpu_node */
    gint64 cost_ns = cpu_cost (c, r, cost);
    s->cpu_last = node_new (c, NODE_CPU, cost_ns, gap_ns, 0);
  }
  rec->a = s->cpu_last;
  return s->cpu_last;
}

/* ---- GPU side --------------------------------------------------------------------- */

/* Launches a GPU op on rank r (after the launch call); dur < 0: a collective
 * member (NODE_COLL). Returns the GPU node. */
static guint32
launch_gpu (Ctx *c, int r, int stream, const char *name, gint64 dur, gboolean is_memcpy, const char *args)
{
  RankState *s = &c->rs[r];
  guint32 call;
  Rec *rec;
  gint64 corr;
  guint32 g;

  call = runtime_call (c, r, is_memcpy ? "cudaMemcpyAsync" : "cudaLaunchKernel", is_memcpy ? 41 : 211,
                       is_memcpy ? 6000 : 4500, NONE);
  g_array_index (s->recs, Rec, s->recs->len - 1).launch = TRUE;
  corr = s->corr;
  dep (c, s->stream_last[stream], EDGE_END);
  for (guint i = 0; i < s->n_waits[stream]; i++)
    dep (c, s->waits[stream][i], EDGE_END);
  s->n_waits[stream] = 0;
  dep (c, call, EDGE_START);
  {
    gint64 after_ns = cpu_cost (c, r, 3500); /* drawn first, as in cpu_node */
    gint64 latency_ns = cpu_cost (c, r, 1200);
    g = node_new (c, dur < 0 ? NODE_COLL : NODE_GPU, dur < 0 ? 0 : dur, latency_ns, after_ns);
  }
  rec = rec_add (c, r, REC_GPU);
  rec->cat = is_memcpy ? "gpu_memcpy" : "kernel";
  rec->memcpy = is_memcpy;
  rec->name = name;
  rec->stream = stream;
  rec->args = args;
  rec->ext = cur_ext (s);
  rec->corr = corr;
  rec->a = g;
  rec->b = g;
  s->stream_last[stream] = g;
  return g;
}

/* A device-to-host copy the CPU waits for under op (.item(), .tolist()): on
 * every rank, a memcpy of dur ns on the compute stream and a
 * cudaStreamSynchronize that ends after it. */
static void
sync_to_host (Ctx *c, const char *op, const char *memcpy_name, gint64 dur, const char *args)
{
  scope_begin (c, "cpu_op", op, NULL);
  scope_begin (c, "cpu_op", "aten::_local_scalar_dense", NULL);
  for (int r = c->r_lo; r < c->r_hi; r++)
    {
      guint32 g = launch_gpu (c, r, ST_COMPUTE, memcpy_name, dur, TRUE, args);
      runtime_call (c, r, "cudaStreamSynchronize", 131, 3000, g);
    }
  scope_end (c);
  scope_end (c);
}

/* cudaEventRecord on stream: remembers (per rank) what the stream has
 * launched so far in s->scratch, and the record's External id.
 *
 * The trace must say what each cudaStreamWaitEvent waits for in the form
 * the solver reads (docs/solver.md, "cross-stream"): the wait carries the
 * External id of the cudaEventRecord it waits on, and that record is issued
 * right after the launch of the op it captures (the last op launched from
 * the thread, on another stream than the waiting one; not a collective when
 * a collective waits), as ProcessGroupNCCL does. */
static void
event_record (Ctx *c, int stream)
{
  for (int r = c->r_lo; r < c->r_hi; r++)
    {
      RankState *s = &c->rs[r];

      runtime_call (c, r, "cudaEventRecord", 135, 2000, NONE);
      s->scratch = s->stream_last[stream];
      /* the event also completes after what the stream was told to wait
       * for since its last op (a blocking collective's work.wait()) */
      s->scratch_wait = s->n_waits[stream] > 0 ? s->waits[stream][s->n_waits[stream] - 1] : NONE;
      s->scratch_ext = g_array_index (s->recs, Rec, s->recs->len - 1).ext;
      s->rec_node[stream] = s->scratch;
      s->rec_ext[stream] = s->scratch_ext;
    }
}

/* cudaStreamWaitEvent: stream waits for each rank's scratch handle; the
 * call carries the External id of the record that took the handle. */
static void
stream_wait (Ctx *c, int stream)
{
  for (int r = c->r_lo; r < c->r_hi; r++)
    {
      RankState *s = &c->rs[r];

      runtime_call (c, r, "cudaStreamWaitEvent", 147, 1500, NONE);
      if (s->scratch_ext > 0)
        g_array_index (s->recs, Rec, s->recs->len - 1).ext = s->scratch_ext;
      if (s->scratch != NONE && s->n_waits[stream] < G_N_ELEMENTS (s->waits[stream]))
        s->waits[stream][s->n_waits[stream]++] = s->scratch;
      if (s->scratch_wait != NONE && s->n_waits[stream] < G_N_ELEMENTS (s->waits[stream]))
        s->waits[stream][s->n_waits[stream]++] = s->scratch_wait;
    }
}

/* Saves what stream has launched so far in slot, with the record that
 * captured it: the last cudaEventRecord on that stream when it did (a
 * collective's end), else a new one now (the caller issues it right after
 * the op's launch). */
static void
save_handle (Ctx *c, int slot, int stream)
{
  if (c->rs[c->r_lo].rec_node[stream] != c->rs[c->r_lo].stream_last[stream] || c->rs[c->r_lo].n_waits[stream] > 0)
    event_record (c, stream);
  for (int r = c->r_lo; r < c->r_hi; r++)
    {
      RankState *s = &c->rs[r];

      s->handles[slot] = s->stream_last[stream];
      s->handle_ext[slot] = s->rec_node[stream] == s->stream_last[stream] ? s->rec_ext[stream] : 0;
      s->handle_wait[slot] = s->n_waits[stream] > 0 ? s->scratch_wait : NONE;
    }
}

static void
copy_handle (Ctx *c, int to, int from)
{
  for (int r = c->r_lo; r < c->r_hi; r++)
    {
      c->rs[r].handles[to] = c->rs[r].handles[from];
      c->rs[r].handle_ext[to] = c->rs[r].handle_ext[from];
      c->rs[r].handle_wait[to] = c->rs[r].handle_wait[from];
    }
}

static void
load_handle (Ctx *c, int slot)
{
  for (int r = c->r_lo; r < c->r_hi; r++)
    {
      c->rs[r].scratch = c->rs[r].handles[slot];
      c->rs[r].scratch_ext = c->rs[r].handle_ext[slot];
      c->rs[r].scratch_wait = c->rs[r].handle_wait[slot];
    }
}

/* ---- compute kernels ------------------------------------------------------------- */

typedef enum
{
  K_GEMM,
  K_ATTN_FWD,
  K_ATTN_BWD,
  K_MEM,
} KClass;

static gint64
kernel_ns (Ctx *c, KClass kc, double flops, double bytes)
{
  const WeftHardware *hw = &c->p.hw;
  const WeftComputeEfficiency *e = &c->p.eff;
  double t_mem = bytes / (hw->hbm_bytes_per_s * e->memory);
  double t_flop = 0;

  switch (kc)
    {
    case K_GEMM:
      t_flop = flops / (hw->peak_flops * e->gemm);
      break;
    case K_ATTN_FWD:
      t_flop = flops / (hw->peak_flops * e->attention);
      break;
    case K_ATTN_BWD:
      t_flop = flops / (hw->peak_flops * e->attention * 0.8);
      break;
    case K_MEM:
      break;
    }
  /* at most 1000 s per kernel: absurd shapes must not overflow the clock */
  return (gint64) (MIN (MAX (t_flop, t_mem), 1000.0) * 1e9) + CLAMP (e->kernel_overhead_ns, 0, 1000000);
}

static const char *
stats_args (const char *grid, const char *block, int regs, int smem, int occ)
{
  static char buf[256];

  g_snprintf (buf, sizeof buf,
              "\"registers per thread\": %d, \"shared memory\": %d, \"grid\": %s, \"block\": %s, "
              "\"est. achieved occupancy %%\": %d",
              regs, smem, grid, block, occ);
  return buf;
}

/* One compute kernel on the compute stream of every rank, inside a cpu_op
 * named op (NULL: launched from the current scope). */
static void
kernel_with_base (Ctx *c, const char *op, const char *name, gint64 base, const char *stats)
{
  const char *args = g_string_chunk_insert_const (c->strs, stats);

  if (op != NULL)
    scope_begin (c, "cpu_op", op, NULL);
  for (int r = c->r_lo; r < c->r_hi; r++)
    launch_gpu (c, r, ST_COMPUTE, name, (gint64) (base * jit (c, r, c->p.jitter)), FALSE, args);
  if (op != NULL)
    scope_end (c);
}

static void
kernel (Ctx *c, const char *op, const char *name, KClass kc, double flops, double bytes, const char *stats)
{
  kernel_with_base (c, op, name, kernel_ns (c, kc, flops, bytes), stats);
}

/* a flash attention kernel: its FLOPs at the attention efficiency times
 * FlashAttention-2's measured curve for sk keys (compose-attention.c) */
static gint64
attn_ns (Ctx *c, gboolean backward, gboolean causal, double sk, double flops, double bytes)
{
  const WeftComputeEfficiency *e = &c->p.eff;
  double eff = e->attention * _weft_compose_attention_shape (backward, causal, sk);
  double t = MAX (flops / (c->p.hw.peak_flops * eff), bytes / (c->p.hw.hbm_bytes_per_s * e->memory));

  return (gint64) (MIN (t, 1000.0) * 1e9) + CLAMP (e->kernel_overhead_ns, 0, 1000000);
}

#define GEMM_STATS stats_args ("[132, 1, 1]", "[384, 1, 1]", 168, 213504, 19)
#define EW_STATS stats_args ("[16384, 1, 1]", "[128, 1, 1]", 28, 0, 100)
#define RED_STATS stats_args ("[4096, 1, 1]", "[256, 1, 1]", 40, 0, 100)
#define FLASH_STATS stats_args ("[32, 1, 32]", "[128, 1, 1]", 255, 49152, 48)

/* A GEMM [M, K] x [K, N] launched by aten::mm (recorded with its Input
 * Dims, as record_shapes does: calibration reads them back). */
static void gemm_float8 (Ctx *c, const char *name, gint64 m, gint64 k, gint64 n);
/* torch._scaled_mm's throughput over the bf16 GEMM's at the same shape:
 * the FP8 / BF16 dense peaks (NVIDIA H100 datasheet: 1979 / 989), as
 * measured for large M (float8_experimental PR 100, H100, M = 16384,
 * LLaMa 70B shapes: 1.94 .. 2.54x). docs/composer.md, "Float8". */
#define FLOAT8_GEMM_SPEEDUP 2.0
static const char *GEMM_WGRAD;

static void
gemm (Ctx *c, const char *name, double M, double K, double Nn)
{
  char args[160];
  gint64 m = (gint64) llround (M), k = (gint64) llround (K), n = (gint64) llround (Nn);

  if (c->phase == PH_BLOCK_FWD && c->in_block)
    {
      /* torchtitan's op SAC policy: every second mm (counted per block
       * since the run began) is recomputed, the others saved */
      int idx = c->mm_k++;
      c->sac_count[c->cur_layer]++;
      if (c->p.ac == WEFT_AC_SELECTIVE_OP && c->sac_count[c->cur_layer] % 2 == 0 && idx < 64)
        c->sac_mask[c->cur_layer] |= G_GUINT64_CONSTANT (1) << idx;
    }
  else if (c->phase == PH_RECOMPUTE)
    {
      int idx = c->mm_k++;
      if (recompute_keeps_saved (c) && (idx >= 64 || !(c->sac_mask[c->cur_layer] & (G_GUINT64_CONSTANT (1) << idx))))
        return;
    }
  if (c->skip_wgrad && name == GEMM_WGRAD)
    return;   /* ZB: the weight gradients run in their own pass (compose-pp.c) */
  if (c->p.float8 && c->in_block)
    {
      gemm_float8 (c, name, m, k, n);
      return;
    }

  g_snprintf (args, sizeof args,
              "\"Input Dims\": [[%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "], [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
              "]], \"Input type\": [\"c10::BFloat16\", \"c10::BFloat16\"]",
              m, k, k, n);
  scope_begin (c, "cpu_op", "aten::mm", g_string_chunk_insert_const (c->strs, args));
  {
    gint64 a[2] = { m, k }, b[2] = { k, n };
    const gint64 *dims[2] = { a, b };
    int nd[2] = { 2, 2 };
    gint64 measured = weft_kernel_times_lookup (c->p.kernel_times, "aten::mm", dims, nd, 2);

    if (measured >= 0)
      kernel_with_base (c, NULL, name, MIN (measured, G_GINT64_CONSTANT (1000000000000)), GEMM_STATS);
    else
      kernel (c, NULL, name, K_GEMM, 2.0 * m * k * n, 2.0 * (m * k + k * n + m * n), GEMM_STATS);
  }
  scope_end (c);
}

#include "compose-kernels-private.h"

/* torch's _SDPAMerger.step with convert_to_f32 (context_parallel's
 * default): out = out - sigmoid(block_lse - lse) * (out - block_out) in
 * fp32, eager: the bf16 block output cast (2 + 4), two subtractions and a
 * multiplication (4 + 4 + 4 each): ~38 bytes per output element */
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

static void
eager_ops (Ctx *c, const EagerStep *steps, guint n, double elems, double rows)
{
  for (guint i = 0; i < n; i++)
    kernel (c, steps[i].op, steps[i].kernel, K_MEM, 0, steps[i].per_row ? 8 * rows : steps[i].bytes_per_elem * elems,
            steps[i].per_row || steps[i].kernel == K_RED_MEAN || steps[i].kernel == K_RED_SUM ? RED_STATS : EW_STATS);
}

/* Fused (Inductor) kernels only inside compiled blocks: torchtitan
 * compiles each TransformerBlock; the final norm and the loss stay eager. */
static gboolean
fused (const Ctx *c)
{
  return c->p.compile && c->in_block;
}

/* RMSNorm on T x h. Eager, torchtitan's x.float() -> pow -> mean -> + eps
 * -> rsqrt -> mul -> type_as -> * weight: 8 kernels, 36 bytes per element
 * (fused: one kernel, 4). */
static void
rms_norm (Ctx *c, double T, double h)
{
  /* (the kernel names are not constant expressions: an automatic array) */
  const EagerStep eager[] = {
    { "aten::_to_copy", K_EW_COPY, 6, FALSE }, { "aten::pow", K_EW_POW, 8, FALSE },
    { "aten::mean", K_RED_MEAN, 4, FALSE },    { "aten::add", K_EW_ADDS, 0, TRUE },
    { "aten::rsqrt", K_EW_RSQRT, 0, TRUE },    { "aten::mul", K_EW_MUL, 8, FALSE },
    { "aten::_to_copy", K_EW_COPY, 6, FALSE }, { "aten::mul", K_EW_MUL_BF16, 4, FALSE },
  };

  if (fused (c))
    {
      kernel (c, "aten::rms_norm", K_RMS, K_MEM, 0, 2 * 2 * T * h, RED_STATS);
      return;
    }
  eager_ops (c, eager, G_N_ELEMENTS (eager), T * h, T);
}

/* Its backward. Eager: the autograd of the 8 ops, 12 kernels, 76 bytes per
 * element (fused: one kernel, 6). */
static void
rms_norm_backward (Ctx *c, double T, double h)
{
  const EagerStep eager[] = {
    { "aten::mul", K_EW_MUL_BF16, 4, FALSE }, { "aten::mul", K_EW_MUL_BF16, 6, FALSE },
    { "aten::sum", K_RED_SUM, 2, FALSE },     { "aten::_to_copy", K_EW_COPY, 6, FALSE },
    { "aten::mul", K_EW_MUL, 8, FALSE },      { "aten::mul", K_EW_MUL, 12, FALSE },
    { "aten::sum", K_RED_SUM, 4, FALSE },     { "aten::mul", K_EW_MUL, 0, TRUE },
    { "aten::div", K_EW_MUL, 4, FALSE },      { "aten::mul", K_EW_MUL, 12, FALSE },
    { "aten::add", K_ADD, 12, FALSE },        { "aten::_to_copy", K_EW_COPY, 6, FALSE },
  };

  if (fused (c))
    {
      kernel (c, "aten::rms_norm_backward", K_RMS_BWD, K_MEM, 0, 3 * 2 * T * h, RED_STATS);
      return;
    }
  scope_begin (c, "cpu_op", "autograd::engine::evaluate_function: MulBackward0", NULL);
  eager_ops (c, eager, G_N_ELEMENTS (eager), T * h, T);
  scope_end (c);
}

/* RoPE on T x od (forward or backward alike). Eager: x.float(), the
 * complex multiply, type_as: 3 kernels, 20 bytes per element (fused: 6). */
static void
rope (Ctx *c, double T, double od)
{
  if (fused (c))
    {
      kernel (c, "aten::mul", K_ROPE, K_MEM, 0, 3 * 2 * T * od, EW_STATS);
      return;
    }
  kernel (c, "aten::_to_copy", K_EW_COPY, K_MEM, 0, 6 * T * od, EW_STATS);
  kernel (c, "aten::mul", K_ROPE, K_MEM, 0, 8 * T * od, EW_STATS);
  kernel (c, "aten::_to_copy", K_EW_COPY, K_MEM, 0, 6 * T * od, EW_STATS);
}

/* torchtitan's repeat_kv before SDPA (eager: K and V expanded to every
 * query head, a copy each; backward: a sum each). Not emitted inside
 * compiled blocks (a simplification, docs/composer.md). */
static void
repeat_kv (Ctx *c, double T, double qd, double kvd, gboolean backward)
{
  if (fused (c) || qd <= kvd)
    return;
  for (int i = 0; i < 2; i++)
    {
      if (backward)
        kernel (c, "aten::sum", K_RED_SUM, K_MEM, 0, 2 * T * (qd + kvd), RED_STATS);
      else
        kernel (c, "aten::clone", K_EW_CLONE, K_MEM, 0, 2 * T * (qd + kvd), EW_STATS);
    }
}

/* SwiGLU's silu(w1 x) * w3 x on T x f. Eager: silu and mul, 2 kernels, 10
 * bytes per element (fused: one, 6). */
static void
swiglu (Ctx *c, double T, double f)
{
  if (fused (c))
    {
      kernel (c, "aten::silu", K_SILU, K_MEM, 0, 2 * 3 * T * f, EW_STATS);
      return;
    }
  kernel (c, "aten::silu", K_EW_SILU, K_MEM, 0, 4 * T * f, EW_STATS);
  kernel (c, "aten::mul", K_EW_MUL_BF16, K_MEM, 0, 6 * T * f, EW_STATS);
}

/* Its backward. Eager: two muls and silu_backward, 18 bytes per element
 * (fused: one kernel, 10). */
static void
swiglu_backward (Ctx *c, double T, double f)
{
  if (fused (c))
    {
      kernel (c, "aten::silu_backward", K_SILU_BWD, K_MEM, 0, 2 * 5 * T * f, EW_STATS);
      return;
    }
  kernel (c, "aten::mul", K_EW_MUL_BF16, K_MEM, 0, 6 * T * f, EW_STATS);
  kernel (c, "aten::mul", K_EW_MUL_BF16, K_MEM, 0, 6 * T * f, EW_STATS);
  kernel (c, "aten::silu_backward", K_EW_SILU_BWD, K_MEM, 0, 6 * T * f, EW_STATS);
}

/* A float8 cast of an R x C bf16 tensor (torchao tensorwise dynamic
 * scaling, as Inductor compiles it): with amax (an abs-max reduction
 * reading 2 bytes per element) then the scaled cast reading 2 and writing
 * `layouts` float8 copies (1 byte each: the row-major one for this GEMM,
 * the column-major one for a backward GEMM); with a known scale (amax
 * FALSE) the cast only. */
static void
float8_cast (Ctx *c, double R, double C, gboolean amax, int layouts)
{
  if (amax)
    kernel (c, NULL, K_F8_AMAX, K_MEM, 0, 2 * R * C, RED_STATS);
  kernel (c, NULL, K_F8_CAST, K_MEM, 0, (2 + layouts) * R * C, EW_STATS);
}

/* A Float8Linear GEMM [M, K] x [K, N] (torchao, tensorwise dynamic
 * scaling). Each tensor is cast once, as torchao's Float8Linear does and
 * its roofline (torchao/testing/training/roofline_utils.py,
 * get_tensor_memory_traffic_ovhd_s) counts it: forward, the input with
 * its amax into both layouts (the column-major one is the weight
 * gradient's operand) and the weight with its amax (not with float8
 * all-gather: it arrives in float8); the input gradient GEMM casts the
 * output gradient with its amax into both layouts (the other is the
 * weight gradient's operand) and the weight into its transposed layout
 * with the forward's scale; the weight gradient GEMM casts nothing. Then
 * torch._scaled_mm at FLOAT8_GEMM_SPEEDUP x the bf16 GEMM's throughput
 * (see there). */
static void
gemm_float8 (Ctx *c, const char *name, gint64 m, gint64 k, gint64 n)
{
  gboolean fwd = name == GEMM_FWD, wgrad = name == GEMM_WGRAD;
  char args[200];

  if (!wgrad)
    {
      scope_begin (c, "cpu_op", "torchao::float8_cast", NULL);
      float8_cast (c, (double) m, (double) k, TRUE, 2);
      if (!(fwd && c->p.float8_all_gather))
        float8_cast (c, (double) k, (double) n, fwd, 1);
      scope_end (c);
    }
  g_snprintf (args, sizeof args,
              "\"Input Dims\": [[%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "], [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
              "], [], []], \"Input type\": [\"c10::Float8_e4m3fn\", \"c10::Float8_e4m3fn\", \"float\", \"float\"]",
              m, k, k, n);
  scope_begin (c, "cpu_op", "aten::_scaled_mm", g_string_chunk_insert_const (c->strs, args));
  {
    const WeftHardware *hw = &c->p.hw;
    double flops = 2.0 * m * k * n, bytes = (double) m * k + (double) k * n + 2.0 * m * n;
    double t = MAX (flops / (FLOAT8_GEMM_SPEEDUP * hw->peak_flops * c->p.eff.gemm),
                    bytes / (hw->hbm_bytes_per_s * c->p.eff.memory));
    gint64 base = (gint64) (MIN (t, 1000.0) * 1e9) + CLAMP (c->p.eff.kernel_overhead_ns, 0, 1000000);

    kernel_with_base (c, NULL, fwd ? K_F8_GEMM : K_F8_GEMM_BWD, base, GEMM_STATS);
  }
  scope_end (c);
}

/* ---- collectives ----------------------------------------------------------------- */

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

static guint64
fnv1a (const char *s, guint64 h)
{
  for (; *s; s++)
    {
      h ^= (guchar) *s;
      h *= G_GUINT64_CONSTANT (1099511628211);
    }
  return h;
}

static const char *K_AG = "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
static const char *K_RS_BF16 = "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
static const char *K_AR_BF16 = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
static const char *K_AR_F32 = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
static const char *K_SENDRECV = "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)";

/* Emits one collective on every rank: c10d op > record_param_comms >
 * nccl:* annotation > cudaEventRecord (producer: compute) >
 * cudaStreamWaitEvent (comm stream) > NCCL launch > cudaEventRecord (end).
 * Leaves each rank's end handle in scratch (for a later stream_wait). */
static void
collective (Ctx *c, const CollSpec *spec)
{
  int members[WEFT_COMPOSE_MAX_RANKS];
  guint32 *kernels = g_new (guint32, c->world);
  guint *krec = g_new (guint, c->world);
  gint64 *in_n = g_new (gint64, c->world);
  gint64 *out_n = g_new (gint64, c->world);
  gboolean *done = g_new0 (gboolean, c->world);

  /* per-rank sizes (all_to_allv: token imbalance) */
  for (int r = c->r_lo; r < c->r_hi; r++)
    {
      double f = spec->imbalance > 0 ? jit (c, r, spec->imbalance) : 1.0;
      in_n[r] = (gint64) (spec->in_nelems * f);
      out_n[r] = spec->imbalance > 0 ? (gint64) (spec->out_nelems * jit (c, r, spec->imbalance)) : spec->out_nelems;
    }

  scope_begin (c, "cpu_op", spec->op_name, NULL);
  /* record_param_comms with per-rank args */
  for (int r = c->r_lo; r < c->r_hi; r++)
    {
      RankState *s = &c->rs[r];
      int n = group_members (c, spec->dim, r, members);
      g_autofree char *rt = ranks_text (members, n);
      g_autofree char *insplit = NULL;
      g_autofree char *outsplit = NULL;
      char key[160];
      guint64 cid;
      char *args;
      char *kargs;
      Rec *rec;
      int me = 0;

      for (int i = 0; i < n; i++)
        if (members[i] == r)
          me = i;
      s->seq[spec->dim]++;
      g_snprintf (key, sizeof key, "%s|%s|%" G_GINT64_FORMAT, c->pg_name[spec->dim], rt, s->seq[spec->dim]);
      cid = fnv1a (key, G_GUINT64_CONSTANT (14695981039346656037) ^ c->seed_hash);
      if (spec->type == WEFT_COLL_ALL_TO_ALL && spec->coll_name[strlen (spec->coll_name) - 1] == 'v')
        {
          GString *a = g_string_new ("[");
          GString *b = g_string_new ("[");
          for (int i = 0; i < n; i++)
            {
              gint64 vi, vo;
              if (spec->p2p_ring)
                {
                  vi = (i == (me + 1) % n) ? in_n[r] : 0;
                  vo = (i == (me + n - 1) % n) ? out_n[r] : 0;
                }
              else
                {
                  vi = in_n[r] / n;
                  vo = out_n[r] / n;
                }
              g_string_append_printf (a, i ? ", %" G_GINT64_FORMAT : "%" G_GINT64_FORMAT, vi);
              g_string_append_printf (b, i ? ", %" G_GINT64_FORMAT : "%" G_GINT64_FORMAT, vo);
            }
          g_string_append_c (a, ']');
          g_string_append_c (b, ']');
          insplit = g_string_free (a, FALSE);
          outsplit = g_string_free (b, FALSE);
        }
      kargs = g_strdup_printf ("\"Collective name\": \"%s\", \"In msg nelems\": %" G_GINT64_FORMAT
                               ", \"Out msg nelems\": %" G_GINT64_FORMAT ", \"Group size\": %d, \"dtype\": \"%s\", "
                               "\"In split size\": \"%s\", \"Out split size\": \"%s\", \"Process Group Name\": \"%s\", "
                               "\"Process Group Description\": \"%s\", \"Process Group Ranks\": \"%s\", \"Seq\": %" G_GINT64_FORMAT
                               ", \"Comms Id\": %" G_GUINT64_FORMAT,
                               spec->coll_name, in_n[r], out_n[r], n, spec->dtype, insplit ? insplit : "[]",
                               outsplit ? outsplit : "[]", c->pg_name[spec->dim], c->pg_desc[spec->dim], rt,
                               s->seq[spec->dim], cid);
      args = g_strdup_printf ("\"Rank\": %d, \"Global rank start\": %d, \"Global rank stride\": %d, %s", me,
                              members[0], n > 1 ? members[1] - members[0] : 1, kargs);
      rec = rec_add (c, r, REC_SCOPE);
      rec->cat = "cpu_op";
      rec->name = "record_param_comms";
      rec->args = g_string_chunk_insert (c->strs, args);
      rec->ext = ++s->ext;
      rec->a = cpu_node (c, r, 4000, 800);
      s->stack[s->depth] = s->recs->len - 1;
      s->ext_stack[s->depth] = rec->ext;
      s->depth++;
      g_free (args);
      {
        char *full = g_strdup_printf ("%s, \"registers per thread\": 96, \"shared memory\": 103808, \"grid\": [%d, 1, 1], "
                                      "\"block\": [512, 1, 1], \"est. achieved occupancy %%\": 3",
                                      kargs, spec->bytes > (1 << 20) ? 16 : 2);
        /* temporarily keep in the chunk; pointer stored in out_n slot is not
         * possible, so record it on a per-rank scratch rec field below */
        rec->annot = g_string_chunk_insert (c->strs, full);
        g_free (full);
      }
      g_free (kargs);
    }
  scope_begin (c, "user_annotation", spec->annot, NULL);
  /* as Kineto writes ProcessGroupNCCL's calls (TraceLens b200): the runtime
   * calls and the kernel carry record_param_comms's External id, the nccl:*
   * annotation's own id only links its gpu_user_annotation */
  for (int r = c->r_lo; r < c->r_hi; r++)
    c->rs[r].ext_stack[c->rs[r].depth - 1] = -1;
  event_record (c, spec->producer);
  stream_wait (c, spec->stream);
  for (int r = c->r_lo; r < c->r_hi; r++)
    {
      RankState *s = &c->rs[r];
      Rec *rpc = &g_array_index (s->recs, Rec, s->stack[s->depth - 2]);
      const char *kargs = rpc->annot;
      Rec *gr;

      rpc->annot = NULL;
      kernels[r] = launch_gpu (c, r, spec->stream, spec->kernel, -1, FALSE, kargs);
      krec[r] = s->recs->len - 1;
      gr = &g_array_index (s->recs, Rec, s->recs->len - 1);
      gr->nccl = TRUE;
      gr->annot = spec->annot;
      gr->annot_ext = g_array_index (s->recs, Rec, s->stack[s->depth - 1]).ext;
    }
  /* rendezvous per group instance */
  for (int r = c->r_lo; r < c->r_hi; r++)
    {
      int n;
      guint32 rdv;
      gint64 t;
      gint64 maxbytes = 0;

      if (done[r])
        continue;
      n = group_members (c, spec->dim, r, members);
      for (int i = 0; i < n; i++)
        {
          dep (c, kernels[members[i]], EDGE_START);
          done[members[i]] = TRUE;
          maxbytes = MAX (maxbytes, spec->imbalance > 0 ? MAX (in_n[members[i]], out_n[members[i]]) * spec->elem : 0);
        }
      if (spec->p2p_ring)
        t = weft_cost_model_estimate (c->cm, WEFT_COLL_SEND, spec->bytes, members, n, NULL);
      else
        t = weft_cost_model_estimate (c->cm, spec->type, MAX (spec->bytes, maxbytes), members, n, NULL);
      t = (gint64) (MIN ((double) t, 1e12) * (1.0 + 0.02 * (2.0 * g_rand_double (c->rng) - 1.0)));
      rdv = node_new (c, NODE_RDV, t, 0, 0);
      for (int i = 0; i < n; i++)
        {
          N (c, kernels[members[i]])->rdv = rdv;
          c->rs[members[i]].stream_last[spec->stream] = rdv;
        }
    }
  /* the GPU rec's end is the rendezvous */
  for (int r = c->r_lo; r < c->r_hi; r++)
    g_array_index (c->rs[r].recs, Rec, krec[r]).b = N (c, kernels[r])->rdv;
  event_record (c, spec->stream);
  scope_end (c);   /* nccl:* */
  scope_end (c);   /* record_param_comms */
  scope_end (c);   /* c10d op */
  /* scratch = end handle of this collective (event_record above) */
  g_free (kernels);
  g_free (krec);
  g_free (in_n);
  g_free (out_n);
  g_free (done);
}

static void
spec_init (Ctx *c, CollSpec *s, int dim, int stream, WeftCollType type, gint64 full_nelems, int elem, const char *dtype)
{
  int members[WEFT_COMPOSE_MAX_RANKS];
  int n = group_members (c, dim, 0, members);

  memset (s, 0, sizeof *s);
  s->dim = dim;
  s->stream = stream;
  s->producer = ST_COMPUTE;
  s->type = type;
  s->elem = elem;
  s->dtype = dtype;
  s->bytes = full_nelems * elem;
  switch (type)
    {
    case WEFT_COLL_ALL_GATHER:
      s->coll_name = "_allgather_base";
      s->op_name = "c10d::_allgather_base_";
      s->annot = "nccl:_all_gather_base";
      s->kernel = K_AG;
      s->in_nelems = full_nelems / n;
      s->out_nelems = full_nelems;
      break;
    case WEFT_COLL_REDUCE_SCATTER:
      s->coll_name = "_reduce_scatter_base";
      s->op_name = "c10d::_reduce_scatter_base_";
      s->annot = "nccl:_reduce_scatter_base";
      s->kernel = K_RS_BF16;
      s->in_nelems = full_nelems;
      s->out_nelems = full_nelems / n;
      break;
    case WEFT_COLL_ALL_REDUCE:
      s->coll_name = "allreduce";
      s->op_name = "c10d::allreduce_";
      s->annot = "nccl:all_reduce";
      s->kernel = elem == 4 ? K_AR_F32 : K_AR_BF16;
      s->in_nelems = full_nelems;
      s->out_nelems = full_nelems;
      break;
    case WEFT_COLL_ALL_TO_ALL:
    default:
      s->coll_name = "all_to_allv";
      s->op_name = "c10d::alltoall_base_";
      s->annot = "nccl:all_to_all";
      s->kernel = K_SENDRECV;
      s->in_nelems = full_nelems;
      s->out_nelems = full_nelems;
      break;
    }
}

/* Collective whose result the compute stream needs right away (TP, EP,
 * CP): emit it and make the compute stream wait for it (work.wait()). */
static void
blocking_collective (Ctx *c, const CollSpec *spec)
{
  collective (c, spec);
  stream_wait (c, ST_COMPUTE);
}

/* ---- model pieces ----------------------------------------------------------------- */

typedef struct
{
  double T;        /* tokens per rank (after cp) */
  double Tn;       /* tokens seen by norms (T / tp with SP) */
  double h, f, d;
  double nh, nkv;  /* heads per rank */
  double tp;
  double V;
} Dims;

static void
dims_init (Ctx *c, Dims *D)
{
  const WeftModelShape *m = &c->p.model;

  D->T = (double) m->seq / c->p.cp * m->mbs;
  D->tp = c->p.tp;
  D->Tn = (c->p.sequence_parallel && c->p.tp > 1) ? D->T / c->p.tp : D->T;
  D->h = m->hidden;
  D->f = m->ffn;
  D->d = (double) m->hidden / m->heads;
  D->nh = (double) m->heads / c->p.tp;
  D->nkv = (double) m->kv_heads / c->p.tp;
  D->V = m->vocab;
}

static gboolean
is_moe_block (Ctx *c, int layer)
{
  const WeftModelShape *m = &c->p.model;
  return m->experts > 0 && (m->moe_every <= 1 || layer % m->moe_every == m->moe_every - 1);
}

/* parameters (elements) of one block on one rank before FSDP sharding */
static double
block_params_dense (Ctx *c, int layer)
{
  const WeftModelShape *m = &c->p.model;
  double h = m->hidden, d = (double) m->hidden / m->heads;
  double attn = h * m->heads * d * 2 + h * m->kv_heads * d * 2;
  double mlp = is_moe_block (c, layer) ? h * m->experts : 3.0 * h * m->ffn;

  return (attn + mlp) / c->p.tp + 2 * h;
}

static double
block_params_experts (Ctx *c, int layer)
{
  const WeftModelShape *m = &c->p.model;

  if (!is_moe_block (c, layer))
    return 0;
  return 3.0 * m->hidden * (double) m->moe_ffn * m->experts / c->p.ep;
}

static gint64
round_to (double x, int multiple)
{
  gint64 v = (gint64) llround (x);
  return (v + multiple - 1) / multiple * multiple;
}

static gboolean
has (Ctx *c, WeftStrategy s)
{
  return (c->p.strategies & s) != 0;
}

/* TP collective after a row-parallel GEMM (forward) or before/after the
 * column-parallel GEMMs (backward). kind 0: reduce (AR or RS), 1: gather (AG
 * with SP; nothing without SP). */
static void
tp_comm (Ctx *c, const Dims *D, int kind)
{
  CollSpec s;
  gint64 full = (gint64) (D->T * D->h);

  if (!has (c, WEFT_STRATEGY_TP) || c->p.tp < 2)
    return;
  if (recompute_keeps_saved (c) && c->p.sequence_parallel && kind == 0)
    return;   /* the op SAC policy saves reduce_scatter's output */
  if (!c->p.sequence_parallel)
    {
      if (kind != 0)
        return;
      spec_init (c, &s, DIM_TP, ST_TP, WEFT_COLL_ALL_REDUCE, full, 2, "BFloat16");
    }
  else if (kind == 0)
    spec_init (c, &s, DIM_TP, ST_TP, WEFT_COLL_REDUCE_SCATTER, full, 2, "BFloat16");
  else
    spec_init (c, &s, DIM_TP, ST_TP, WEFT_COLL_ALL_GATHER, full, 2, "BFloat16");
  blocking_collective (c, &s);
}

/* flash attention forward inside aten::_flash_attention_forward with its
 * Input Dims (q [B, S, H, D], k/v [B, Sk, Hkv, D]) */
static void
flash_fwd (Ctx *c, const Dims *D, double Tk, gboolean causal, double sk, double flops, double bytes)
{
  char args[256];
  gint64 B = c->p.model.mbs;
  gint64 S = (gint64) llround (D->T / B), Sk = (gint64) llround (Tk / B);
  gint64 H = (gint64) llround (D->nh), Hk = (gint64) llround (D->nkv), d = (gint64) llround (D->d);

  g_snprintf (args, sizeof args,
              "\"Input Dims\": [[%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
              "], [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "], [%" G_GINT64_FORMAT
              ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "]], \"Input type\": [\"c10::BFloat16\", "
              "\"c10::BFloat16\", \"c10::BFloat16\"]",
              B, S, H, d, B, Sk, Hk, d, B, Sk, Hk, d);
  scope_begin (c, "cpu_op", "aten::_flash_attention_forward", g_string_chunk_insert_const (c->strs, args));
  {
    gint64 q[4] = { B, S, H, d }, kv[4] = { B, Sk, Hk, d };
    const gint64 *dims[3] = { q, kv, kv };
    int nd[3] = { 4, 4, 4 };
    gint64 measured = weft_kernel_times_lookup (c->p.kernel_times, "aten::_flash_attention_forward", dims, nd, 3);

    if (measured >= 0)
      kernel_with_base (c, NULL, K_FLASH_FWD, MIN (measured, G_GINT64_CONSTANT (1000000000000)), FLASH_STATS);
    else
      kernel_with_base (c, NULL, K_FLASH_FWD, attn_ns (c, FALSE, causal, sk, flops, bytes), FLASH_STATS);
  }
  scope_end (c);
}

static void
attention_forward (Ctx *c, const Dims *D)
{
  double T = D->T, h = D->h, d = D->d;
  double qd = D->nh * d, kvd = D->nkv * d;
  int cp = c->p.cp;

  gemm (c, GEMM_FWD, T, h, qd);
  gemm (c, GEMM_FWD, T, h, kvd);
  gemm (c, GEMM_FWD, T, h, kvd);
  rope (c, T, qd);
  rope (c, T, kvd);
  repeat_kv (c, T, qd, kvd, FALSE);

  if (recompute_keeps_saved (c))
    ;   /* SDPA's outputs are saved: no attention (nor its CP traffic) */
  else if (has (c, WEFT_STRATEGY_CP) && cp > 1)
    {
      /* torch's context_parallel with load balancing (each rank holds
       * chunks i and 2cp-1-i of the sequence): cp flash calls, the first
       * over the local tokens with the causal mask, each later one
       * unmasked over half of it (the first half of the K/V chunk, or the
       * second half of the queries): T x T/2; the outputs merged in fp32
       * (_SDPAMerger, convert_to_f32). K/V: one all-gather before
       * (allgather) or cp-1 ring sends, each overlapping the chunk in
       * hand */
      gboolean ring = c->p.cp_mode == WEFT_CP_RING;
      double kvs = qd;   /* torchtitan repeats K/V to every head before SDPA: CP moves those */
      double chunk_flops = 4 * T * T * d * D->nh * 0.5;
      if (!ring)
        {
          CollSpec s;
          spec_init (c, &s, DIM_CP, ST_CP, WEFT_COLL_ALL_GATHER, (gint64) (2 * T * cp * kvs), 2, "BFloat16");
          blocking_collective (c, &s);
        }
      scope_begin (c, "cpu_op", "aten::_scaled_dot_product_flash_attention", NULL);
      for (int step = 0; step < cp; step++)
        {
          double sk = step == 0 ? T : T / 2;
          if (ring && step < cp - 1)
            {
              CollSpec s;
              spec_init (c, &s, DIM_CP, ST_CP, WEFT_COLL_ALL_TO_ALL, (gint64) (2 * T * kvs), 2, "BFloat16");
              s.bytes = (gint64) (2 * T * kvs * 2);
              s.p2p_ring = TRUE;
              s.op_name = "c10d::alltoall_base_";
              collective (c, &s);
              save_handle (c, 4, ST_CP);
            }
          flash_fwd (c, D, sk, step == 0, sk, chunk_flops, 2 * (T * qd * 2 + 2 * sk * kvs));
          if (step > 0)
            kernel (c, NULL, K_LSE_MERGE, K_MEM, 0, CP_MERGE_BYTES * T * qd, EW_STATS);
          if (ring && step < cp - 1)
            {
              load_handle (c, 4);
              stream_wait (c, ST_COMPUTE);
            }
        }
      scope_end (c);
    }
  else
    {
      scope_begin (c, "cpu_op", "aten::_scaled_dot_product_flash_attention", NULL);
      flash_fwd (c, D, T, TRUE, T, 4 * T * T * d * D->nh * 0.5, 2 * (T * qd * 2 + 2 * T * kvd));
      scope_end (c);
    }
  gemm (c, GEMM_FWD, T, qd, h);
}

static void
attention_backward (Ctx *c, const Dims *D)
{
  double T = D->T, h = D->h, d = D->d;
  double qd = D->nh * d, kvd = D->nkv * d;
  int cp = c->p.cp;

  scope_begin (c, "cpu_op", "autograd::engine::evaluate_function: MmBackward0", NULL);
  gemm (c, GEMM_DGRAD, T, h, qd);   /* wo: dX = dY W^T */
  gemm (c, GEMM_WGRAD, qd, T, h);   /* dW = X^T dY */
  scope_end (c);
  scope_begin (c, "cpu_op", "autograd::engine::evaluate_function: ScaledDotProductFlashAttentionBackward0", NULL);
  if (has (c, WEFT_STRATEGY_CP) && cp > 1)
    {
      /* the forward's cp calls, differentiated: each chunk's gradients
       * accumulated in fp32 (dq here, dK/dV travelling with K/V around the
       * ring, or on their own fp32 ring after the all-gather) */
      gboolean ring = c->p.cp_mode == WEFT_CP_RING;
      double kvs = qd;   /* the repeated K/V (repeat_kv before SDPA) */
      double chunk_flops = 2.5 * 4 * T * T * d * D->nh * 0.5;
      if (!ring)
        {
          CollSpec s;
          spec_init (c, &s, DIM_CP, ST_CP, WEFT_COLL_ALL_GATHER, (gint64) (2 * T * cp * kvs), 2, "BFloat16");
          blocking_collective (c, &s);
        }
      for (int step = 0; step < cp; step++)
        {
          double sk = step == 0 ? T : T / 2;
          if (ring && step < cp - 1)
            {
              CollSpec s;
              /* K/V and dK/dV travel together */
              spec_init (c, &s, DIM_CP, ST_CP, WEFT_COLL_ALL_TO_ALL, (gint64) (4 * T * kvs), 2, "BFloat16");
              s.bytes = (gint64) (4 * T * kvs * 2);
              s.p2p_ring = TRUE;
              collective (c, &s);
              save_handle (c, 4, ST_CP);
            }
          kernel (c, NULL, K_FLASH_BWD_DOT, K_MEM, 0, 2 * 2 * T * qd, EW_STATS);
          kernel_with_base (c, "aten::_flash_attention_backward", K_FLASH_BWD,
                            attn_ns (c, TRUE, step == 0, sk, chunk_flops, 2 * (3 * T * qd + 4 * sk * kvs)), FLASH_STATS);
          kernel (c, NULL, K_FLASH_BWD_CVT, K_MEM, 0, 6 * T * qd, EW_STATS);
          if (!ring && step > 0)
            {
              /* torch waits for the previous rank's dK/dV (next_buffer)
               * after this chunk's flash backward, before accumulating */
              load_handle (c, 4);
              stream_wait (c, ST_COMPUTE);
            }
          if (step > 0)   /* fp32 accumulation: read 4 + 2, write 4 bytes per element */
            kernel (c, NULL, K_ADD, K_MEM, 0, 10 * T * (qd + 2 * kvs), EW_STATS);
          if (!ring)
            {
              /* all-gather mode (torch's default): dK/dV still ride a
               * ring, always ALL_TO_ALL (_create_rotater(pg, 2,
               * method=_RotateMethod.ALL_TO_ALL)), in fp32 (convert_to_f32):
               * torch.cat of the accumulated dK, dV, then one exchange per
               * chunk, the last one waited after the loop */
              CollSpec s;
              kernel (c, "aten::cat", K_EW_COPY, K_MEM, 0, 8 * 2 * T * kvs, EW_STATS);
              spec_init (c, &s, DIM_CP, ST_CP, WEFT_COLL_ALL_TO_ALL, (gint64) (2 * T * kvs), 4, "Float");
              s.bytes = (gint64) (2 * T * kvs * 4);
              s.p2p_ring = TRUE;
              s.op_name = "c10d::alltoall_base_";
              collective (c, &s);
              save_handle (c, 4, ST_CP);
            }
          if (ring && step < cp - 1)
            {
              load_handle (c, 4);
              stream_wait (c, ST_COMPUTE);
            }
        }
      if (!ring)
        {
          load_handle (c, 4);
          stream_wait (c, ST_COMPUTE);
        }
    }
  else
    {
      kernel (c, NULL, K_FLASH_BWD_DOT, K_MEM, 0, 2 * 2 * T * qd, EW_STATS);
      kernel_with_base (c, "aten::_flash_attention_backward", K_FLASH_BWD,
                        attn_ns (c, TRUE, TRUE, T, 2.5 * 4 * T * T * d * D->nh * 0.5, 2 * (3 * T * qd + 4 * T * kvd)),
                        FLASH_STATS);
      kernel (c, NULL, K_FLASH_BWD_CVT, K_MEM, 0, 6 * T * qd, EW_STATS);
    }
  scope_end (c);
  repeat_kv (c, T, qd, kvd, TRUE);
  rope (c, T, qd);
  rope (c, T, kvd);
  scope_begin (c, "cpu_op", "autograd::engine::evaluate_function: MmBackward0", NULL);
  for (int i = 0; i < 3; i++)
    {
      double od = i == 0 ? qd : kvd;
      gemm (c, GEMM_DGRAD, T, od, h);
      gemm (c, GEMM_WGRAD, h, T, od);
    }
  scope_end (c);
}

static void
mlp_forward (Ctx *c, const Dims *D)
{
  double T = D->T, h = D->h, f = D->f / D->tp;

  gemm (c, GEMM_FWD, T, h, f);
  gemm (c, GEMM_FWD, T, h, f);
  swiglu (c, T, f);
  gemm (c, GEMM_FWD, T, f, h);   /* w2 */
}

static void
mlp_backward (Ctx *c, const Dims *D)
{
  double T = D->T, h = D->h, f = D->f / D->tp;

  scope_begin (c, "cpu_op", "autograd::engine::evaluate_function: MmBackward0", NULL);
  gemm (c, GEMM_DGRAD, T, h, f);   /* w2 */
  gemm (c, GEMM_WGRAD, f, T, h);
  scope_end (c);
  swiglu_backward (c, T, f);
  scope_begin (c, "cpu_op", "autograd::engine::evaluate_function: MmBackward0", NULL);
  for (int i = 0; i < 2; i++)
    {
      gemm (c, GEMM_DGRAD, T, f, h);   /* w1, w3 */
      gemm (c, GEMM_WGRAD, h, T, f);
    }
  scope_end (c);
}

/* MoE layer (EP): router, count all-to-all, D2H sync, dispatch, experts,
 * combine. backward mirrors it without the count and the sync. */
static void
moe (Ctx *c, const Dims *D, gboolean backward)
{
  const WeftModelShape *m = &c->p.model;
  double T = D->T, h = D->h, E = m->experts, k = m->top_k, fe = m->moe_ffn;
  double Tk = T * k;
  int chunks = c->p.ep_overlap ? 2 : 1;
  gboolean ep = has (c, WEFT_STRATEGY_EP) && c->p.ep > 1;
  double gf = backward ? 2.0 : 1.0;

  scope_begin (c, "python_function", backward ? "autograd::engine::evaluate_function: MoEBackward" : "nn.Module: MoE_0", NULL);
  if (!backward)
    {
      gemm (c, GEMM_FWD, T, h, E);
      kernel (c, "aten::topk", K_TOPK, K_MEM, 0, 4 * T * E * 2, RED_STATS);
      kernel (c, "aten::histc", K_HIST, K_MEM, 0, 8 * Tk * 2, RED_STATS);
    }
  kernel (c, "aten::index", K_PERMUTE, K_MEM, 0, 2 * 2 * Tk * h, EW_STATS);
  if (ep && !backward)
    {
      CollSpec s;

      /* (1) token counts per expert */
      spec_init (c, &s, DIM_EP, ST_EP, WEFT_COLL_ALL_TO_ALL, (gint64) E, 8, "Long");
      s.coll_name = "all_to_all";
      s.in_nelems = s.out_nelems = (gint64) E;
      blocking_collective (c, &s);
      /* (2) device-to-host sync of the split sizes */
      sync_to_host (c, "aten::tolist", "Memcpy DtoH (Device -> Pinned)", 2500,
                    "\"bytes\": 256, \"memory bandwidth (GB/s)\": 0.1");
    }
  for (int ch = 0; ch < chunks; ch++)
    {
      if (ep)
        {
          CollSpec s;
          spec_init (c, &s, DIM_EP, ST_EP, WEFT_COLL_ALL_TO_ALL, (gint64) (Tk * h / chunks), 2, "BFloat16");
          s.imbalance = 0.1;
          collective (c, &s);   /* dispatch (forward) / combine-grad (backward) */
          save_handle (c, ch, ST_EP);
        }
    }
  for (int ch = 0; ch < chunks; ch++)
    {
      if (ep)
        {
          load_handle (c, ch);
          stream_wait (c, ST_COMPUTE);
        }
      scope_begin (c, "cpu_op", "aten::_grouped_mm", NULL);
      kernel (c, NULL, K_GROUPED_GEMM, K_GEMM, gf * 2 * 2 * Tk / chunks * h * fe, 2 * (Tk / chunks * h * 2 + 2 * h * fe * E / c->p.ep), GEMM_STATS);
      scope_end (c);
      kernel (c, backward ? "aten::silu_backward" : "aten::silu", backward ? K_SILU_BWD : K_SILU, K_MEM, 0,
              2 * 3 * Tk / chunks * fe, EW_STATS);
      scope_begin (c, "cpu_op", "aten::_grouped_mm", NULL);
      kernel (c, NULL, K_GROUPED_GEMM, K_GEMM, gf * 2 * Tk / chunks * h * fe, 2 * (Tk / chunks * (h + fe) + h * fe * E / c->p.ep), GEMM_STATS);
      scope_end (c);
      if (ep)
        {
          CollSpec s;
          spec_init (c, &s, DIM_EP, ST_EP, WEFT_COLL_ALL_TO_ALL, (gint64) (Tk * h / chunks), 2, "BFloat16");
          s.imbalance = 0.1;
          collective (c, &s);   /* combine (forward) / dispatch-grad (backward) */
          save_handle (c, 2 + ch, ST_EP);
        }
    }
  if (ep)
    for (int ch = 0; ch < chunks; ch++)
      {
        load_handle (c, 2 + ch);
        stream_wait (c, ST_COMPUTE);
      }
  kernel (c, "aten::scatter_add_", K_SCATTER_ADD, K_MEM, 0, 2 * 3 * Tk * h, EW_STATS);
  if (backward)
    kernel (c, "aten::mm", GEMM_WGRAD, K_GEMM, 2 * T * h * E * 2, 2 * (T * h + h * E + T * E), GEMM_STATS);
  scope_end (c);
}

/* ---- FSDP ------------------------------------------------------------------------ */

typedef struct
{
  double   dense;    /* elements of the unit on this rank before FSDP sharding */
  double   experts;
  gboolean float8;   /* all-gathered in float8 (a block with float8 all-gather) */
  guint32 *ag_end;   /* per rank: the unit's last all-gather (its copy-out waits for it) */
  gint64  *ag_end_ext; /* per rank: the External id of its end record */
} Unit;

static void
fsdp_all_gather (Ctx *c, const Unit *u, int slot_wait)
{
  CollSpec s;
  int members[WEFT_COMPOSE_MAX_RANKS];
  int n = group_members (c, DIM_DP, 0, members);

  scope_begin (c, "user_annotation", "FSDP::all_gather", NULL);
  if (slot_wait >= 0)
    {
      /* the copy-in stream waits for the compute stream (FSDP2's
       * all_gather_state event: the memory limit, or no prefetch) */
      load_handle (c, slot_wait);
      stream_wait (c, ST_AGIN);
    }
  /* the copy-in on its own stream (FSDP2's all_gather_copy_in_stream,
   * current while the all-gather is issued): ProcessGroupNCCL's NCCL
   * stream waits for it, not for the compute stream */
  scope_begin (c, "user_annotation", "FSDP::all_gather_copy_in", NULL);
  scope_begin (c, "cpu_op", "fsdp::all_gather_copy_in", NULL);
  for (int r = c->r_lo; r < c->r_hi; r++)
    {
      /* float8 all-gather: the copy-in casts the shard (2 bytes read, 1
       * written per element) */
      gint64 base = kernel_ns (c, K_MEM, 0, (u->float8 ? 3 : 4) * (u->dense + u->experts) / n);
      launch_gpu (c, r, ST_AGIN, u->float8 ? K_F8_CAST : K_COPY_IN, (gint64) (base * jit (c, r, c->p.jitter)), FALSE,
                  g_string_chunk_insert_const (c->strs, EW_STATS));
    }
  scope_end (c);
  scope_end (c);
  if (u->float8)
    spec_init (c, &s, DIM_DP, ST_AG, WEFT_COLL_ALL_GATHER, round_to (u->dense, n), 1, "Float8_e4m3fn");
  else
    spec_init (c, &s, DIM_DP, ST_AG, WEFT_COLL_ALL_GATHER, round_to (u->dense, n), 2, "BFloat16");
  s.producer = ST_AGIN;
  collective (c, &s);
  if (u->experts > 0 && c->dim_on[DIM_DPEP])
    {
      n = group_members (c, DIM_DPEP, 0, members);
      spec_init (c, &s, DIM_DPEP, ST_AG, WEFT_COLL_ALL_GATHER, round_to (u->experts, n), 2, "BFloat16");
      s.producer = ST_AGIN;
      collective (c, &s);
    }
  for (int r = c->r_lo; r < c->r_hi; r++)
    {
      u->ag_end[r] = c->rs[r].stream_last[ST_AG];
      u->ag_end_ext[r] = c->rs[r].scratch_ext;
    }
  scope_end (c);
}

static void
fsdp_copy_out (Ctx *c, const Unit *u)
{
  scope_begin (c, "user_annotation", "FSDP::all_gather_copy_out", NULL);
  /* wait for this unit's all-gather (its end event was recorded right
   * after it), not for prefetches issued since */
  for (int r = c->r_lo; r < c->r_hi; r++)
    {
      c->rs[r].scratch = u->ag_end[r];
      c->rs[r].scratch_ext = u->ag_end_ext[r];
      c->rs[r].scratch_wait = NONE;
    }
  stream_wait (c, ST_COMPUTE);
  kernel (c, "aten::split_with_sizes_copy", K_COPY_OUT, K_MEM, 0, (u->float8 ? 2 : 4) * (u->dense + u->experts),
          EW_STATS);
  scope_end (c);
}

static void
fsdp_reduce_scatter (Ctx *c, const Unit *u)
{
  CollSpec s;
  int members[WEFT_COMPOSE_MAX_RANKS];
  int n = group_members (c, DIM_DP, 0, members);

  scope_begin (c, "user_annotation", "FSDP::post_backward_reduce", NULL);
  if (c->p.pp > 1)
    {
      /* after P2P launches: the record that captured the gradients'
       * compute (compose-pp.c), not a new one behind the transfers */
      save_handle (c, 3, ST_COMPUTE);
      load_handle (c, 3);
    }
  else
    event_record (c, ST_COMPUTE);
  stream_wait (c, ST_RS);
  for (int r = c->r_lo; r < c->r_hi; r++)
    {
      gint64 base = kernel_ns (c, K_MEM, 0, 2 * 2 * (u->dense + u->experts));
      launch_gpu (c, r, ST_RS, K_CHUNK_CAT, (gint64) (base * jit (c, r, c->p.jitter)), FALSE,
                  g_string_chunk_insert_const (c->strs, EW_STATS));
    }
  spec_init (c, &s, DIM_DP, ST_RS, WEFT_COLL_REDUCE_SCATTER, round_to (u->dense, n), 2, "BFloat16");
  s.producer = ST_RS;
  collective (c, &s);
  if (u->experts > 0 && c->dim_on[DIM_DPEP])
    {
      n = group_members (c, DIM_DPEP, 0, members);
      spec_init (c, &s, DIM_DPEP, ST_RS, WEFT_COLL_REDUCE_SCATTER, round_to (u->experts, n), 2, "BFloat16");
      s.producer = ST_RS;
      collective (c, &s);
    }
  if (c->dim_on[DIM_REPL])
    {
      /* HSDP: the reduced shard is all-reduced across replicas on FSDP's
       * all-reduce stream, after the reduce-scatter */
      event_record (c, ST_RS);
      stream_wait (c, ST_HSDP);
      n = group_members (c, DIM_DP, 0, members);
      spec_init (c, &s, DIM_REPL, ST_HSDP, WEFT_COLL_ALL_REDUCE, round_to (u->dense, n) / n, 2, "BFloat16");
      s.producer = ST_HSDP;
      collective (c, &s);
    }
  scope_end (c);
}

/* ---- DDP -------------------------------------------------------------------------- */

typedef struct
{
  double pending;   /* bytes of gradients not yet in a launched bucket */
  int    buckets;
} Ddp;

static void
ddp_bucket (Ctx *c, Ddp *ddp, gboolean force)
{
  double cap = (ddp->buckets == 0 ? 1.0 : c->p.ddp_bucket_mb) * 1024 * 1024;
  CollSpec s;

  if (!has (c, WEFT_STRATEGY_DDP) || ddp->pending <= 0 || (!force && ddp->pending < cap))
    return;
  spec_init (c, &s, DIM_DP, ST_DP, WEFT_COLL_ALL_REDUCE, (gint64) (ddp->pending / 4), 4, "Float");
  scope_begin (c, "cpu_op", "DistributedDataParallel.reducer::allreduce_bucket", NULL);
  collective (c, &s);
  scope_end (c);
  ddp->pending = 0;
  ddp->buckets++;
}

static void
ddp_grad (Ctx *c, Ddp *ddp, double elements)
{
  if (!has (c, WEFT_STRATEGY_DDP))
    return;
  ddp->pending += elements * 4;
  ddp_bucket (c, ddp, FALSE);
}

/* ---- the step ---------------------------------------------------------------------- */

static void
block_forward (Ctx *c, const Dims *D, int layer)
{
  rms_norm (c, D->Tn, D->h);
  tp_comm (c, D, 1);
  attention_forward (c, D);
  tp_comm (c, D, 0);
  kernel (c, "aten::add", K_ADD, K_MEM, 0, 3 * 2 * D->Tn * D->h, EW_STATS);
  rms_norm (c, D->Tn, D->h);
  if (is_moe_block (c, layer))
    moe (c, D, FALSE);
  else
    {
      tp_comm (c, D, 1);
      mlp_forward (c, D);
      tp_comm (c, D, 0);
    }
  kernel (c, "aten::add", K_ADD, K_MEM, 0, 3 * 2 * D->Tn * D->h, EW_STATS);
}

static void
block_backward (Ctx *c, const Dims *D, int layer, Ddp *ddp)
{
  kernel (c, "aten::add", K_ADD, K_MEM, 0, 3 * 2 * D->Tn * D->h, EW_STATS);
  if (is_moe_block (c, layer))
    moe (c, D, TRUE);
  else
    {
      tp_comm (c, D, 1);   /* SP: all-gather of the output gradient */
      mlp_backward (c, D);
      tp_comm (c, D, 0);   /* AR (or RS with SP) of the input gradient */
    }
  ddp_grad (c, ddp, 3.0 * D->h * D->f / D->tp);
  rms_norm_backward (c, D->Tn, D->h);
  tp_comm (c, D, 1);
  attention_backward (c, D);
  tp_comm (c, D, 0);
  ddp_grad (c, ddp, (2 * D->h * D->nh * D->d + 2 * D->h * D->nkv * D->d));
  rms_norm_backward (c, D->Tn, D->h);
}

/* Activation checkpointing: does block layer recompute in its backward,
 * and all of its forward? torchtitan wraps every block (full, op SAC) or
 * every ac_layer_freq-th (layer SAC: its wrapper count % freq == 0, the
 * count starting at 1). */
static gboolean
ac_recomputes (const Ctx *c, int layer, gboolean *all)
{
  switch (c->p.ac)
    {
    case WEFT_AC_FULL:
      *all = TRUE;
      return TRUE;
    case WEFT_AC_SELECTIVE_LAYER:
      *all = TRUE;
      return (layer + 1) % MAX (c->p.ac_layer_freq, 1) == 0;
    case WEFT_AC_SELECTIVE_OP:
      *all = FALSE;
      return TRUE;
    case WEFT_AC_NONE:
    default:
      return FALSE;
    }
}

/* The recompute at the start of a checkpointed block's backward (the
 * non-reentrant checkpoint's unpack hook of the first saved tensor):
 * the block's forward again, minus what the policy saved. */
static void
block_recompute (Ctx *c, const Dims *D, int layer)
{
  gboolean all = FALSE;

  if (!ac_recomputes (c, layer, &all))
    return;
  scope_begin (c, "python_function", "torch/utils/checkpoint.py: recompute_fn", NULL);
  c->phase = PH_RECOMPUTE;
  c->recompute_all = all;
  c->mm_k = 0;
  block_forward (c, D, layer);
  c->phase = PH_OTHER;
  c->recompute_all = FALSE;
  scope_end (c);
}

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

static void
step_init (Ctx *c, Step *st)
{
  const WeftModelShape *m = &c->p.model;
  int L = m->layers;

  memset (st, 0, sizeof *st);
  st->fsdp = has (c, WEFT_STRATEGY_FSDP) && c->dim_on[DIM_DP];
  st->L = L;
  st->n_units = L + 2;
  st->units = g_new0 (Unit, st->n_units);
  st->gathered = g_new0 (gboolean, st->n_units);
  st->gathered_fwd = g_new0 (gboolean, st->n_units);
  st->explicit_prefetch = c->p.fsdp_prefetch && has (c, WEFT_STRATEGY_EP) && c->p.ep > 1;

  dims_init (c, &st->D);
  for (int i = 0; i < st->n_units; i++)
    {
      st->units[i].ag_end = g_new0 (guint32, c->world);
      st->units[i].ag_end_ext = g_new0 (gint64, c->world);
    }
  st->units[0].dense = st->D.V * st->D.h / st->D.tp;
  for (int i = 0; i < L; i++)
    {
      st->units[1 + i].dense = block_params_dense (c, i);
      st->units[1 + i].experts = block_params_experts (c, i);
      st->units[1 + i].float8 = c->p.float8_all_gather && st->fsdp;
    }
  st->units[L + 1].dense = st->D.V * st->D.h / st->D.tp + st->D.h;
  for (int i = 0; i < st->n_units; i++)
    st->total_params += st->units[i].dense + st->units[i].experts;
}

static void
step_clear (Step *st)
{
  for (int i = 0; i < st->n_units; i++)
    {
      g_free (st->units[i].ag_end);
      g_free (st->units[i].ag_end_ext);
    }
  g_free (st->units);
  g_free (st->gathered);
  g_free (st->gathered_fwd);
}

/* The step's inputs copied to every GPU. */
static void
step_inputs (Ctx *c)
{
  scope_begin (c, "cpu_op", "aten::to", NULL);
  scope_begin (c, "cpu_op", "aten::_to_copy", NULL);
  scope_begin (c, "cpu_op", "aten::copy_", NULL);
  for (int r = c->r_lo; r < c->r_hi; r++)
    launch_gpu (c, r, ST_COMPUTE, "Memcpy HtoD (Pinned -> Device)", 3000, TRUE,
                "\"bytes\": 65536, \"memory bandwidth (GB/s)\": 21.8");
  scope_end (c);
  scope_end (c);
  scope_end (c);
}

/* The forward of unit u, with FSDP's all-gathers around it. */
static void
step_forward_unit (Ctx *c, Step *st, int u)
{
  const Dims *D = &st->D;
  Unit *units = st->units;
  int L = st->L;
  char name[64];

  if (u >= 1 && u <= L)
    {
      g_snprintf (name, sizeof name, "nn.Module: TransformerBlock_%d", u - 1);
      scope_begin (c, "python_function", g_string_chunk_insert_const (c->strs, name), NULL);
    }
  else
    scope_begin (c, "python_function", u == 0 ? "nn.Module: Embedding_0" : "nn.Module: Linear_0", NULL);
  if (st->fsdp)
    {
      scope_begin (c, "user_annotation", "FSDP::pre_forward", NULL);
      if (!c->p.fsdp_prefetch && u > 0)
        fsdp_all_gather (c, &units[u], 5);   /* waits for compute: no overlap */
      else if (!st->gathered_fwd[u])
        fsdp_all_gather (c, &units[u], u >= 2 ? 6 : -1);   /* memory limit: two units in flight */
      st->gathered_fwd[u] = TRUE;
      /* EP's D2H syncs stall the CPU: torchtitan prefetches the next
       * unit explicitly, before this block's syncs */
      if (st->explicit_prefetch && u + 1 < st->n_units)
        {
          fsdp_all_gather (c, &units[u + 1], u + 1 >= 2 ? 7 : -1);
          st->gathered_fwd[u + 1] = TRUE;
        }
      fsdp_copy_out (c, &units[u]);
      scope_end (c);
    }
  if (u == 0)
    {
      kernel (c, "aten::embedding", K_EMBED, K_MEM, 0, 2 * 2 * D->T * D->h, EW_STATS);
      if (has (c, WEFT_STRATEGY_TP) && c->p.tp > 1)
        tp_comm (c, D, 0);
    }
  else if (u <= L)
    {
      c->phase = PH_BLOCK_FWD;
      c->in_block = TRUE;
      c->cur_layer = u - 1;
      c->mm_k = 0;
      c->sac_mask[u - 1] = 0;
      block_forward (c, D, u - 1);
      c->phase = PH_OTHER;
      c->in_block = FALSE;
    }
  else
    {
      rms_norm (c, D->Tn, D->h);
      tp_comm (c, D, 1);
      gemm (c, GEMM_OUT, D->T, D->h, D->V / D->tp);
    }
  /* handles: 5 = compute now (no-prefetch wait), 6 = compute two units
   * back; recorded (cudaEventRecord) right after the unit's last launch */
  if (st->fsdp)
    {
      scope_begin (c, "user_annotation", "FSDP::post_forward", NULL);
      copy_handle (c, 6, 7);
      save_handle (c, 7, ST_COMPUTE);
      copy_handle (c, 5, 7);
      scope_end (c);
    }
  scope_end (c);
}

/* The backward of unit u: FSDP's all-gathers before it, DDP's buckets and
 * FSDP's reduce-scatter of its gradients. */
static void
step_backward_unit (Ctx *c, Step *st, int u)
{
  const Dims *D = &st->D;
  Unit *units = st->units;
  int L = st->L;
  gboolean needs_ag = st->fsdp && c->p.reshard_after_forward && u >= 1 && u <= L;
  char name[64];

  if (st->fsdp)
    {
      scope_begin (c, "user_annotation", "FSDP::pre_backward", NULL);
      /* compute now: the record of the last reduce-scatter's wait took it */
      save_handle (c, 5, ST_COMPUTE);
      if (needs_ag && !st->gathered[u])
        {
          fsdp_all_gather (c, &units[u], c->p.fsdp_prefetch ? -1 : 5);
          st->gathered[u] = TRUE;
        }
      if (needs_ag)
        fsdp_copy_out (c, &units[u]);
      /* explicit backward prefetch of the previous block */
      if (c->p.fsdp_prefetch && c->p.reshard_after_forward && u - 1 >= 1 && u - 1 <= L && !st->gathered[u - 1])
        {
          fsdp_all_gather (c, &units[u - 1], 5);   /* overlaps block u's backward */
          st->gathered[u - 1] = TRUE;
        }
      scope_end (c);
    }
  if (u == st->n_units - 1)
    {
      /* logits gradients are local (loss parallel); the input
       * gradient of the column-parallel output is reduced below */
      scope_begin (c, "cpu_op", "autograd::engine::evaluate_function: MmBackward0", NULL);
      gemm (c, GEMM_DGRAD, D->T, D->V / D->tp, D->h);
      gemm (c, GEMM_WGRAD, D->h, D->T, D->V / D->tp);
      scope_end (c);
      tp_comm (c, D, 0);
      ddp_grad (c, &st->ddp, D->h * D->V / D->tp);
      rms_norm_backward (c, D->Tn, D->h);
    }
  else if (u >= 1)
    {
      g_snprintf (name, sizeof name, "nn.Module: TransformerBlock_%d.backward", u - 1);
      scope_begin (c, "python_function", g_string_chunk_insert_const (c->strs, name), NULL);
      c->in_block = TRUE;
      c->cur_layer = u - 1;
      block_recompute (c, D, u - 1);
      block_backward (c, D, u - 1, &st->ddp);
      c->in_block = FALSE;
      scope_end (c);
    }
  else
    {
      scope_begin (c, "cpu_op", "autograd::engine::evaluate_function: EmbeddingBackward0", NULL);
      kernel (c, "aten::embedding_dense_backward", K_EMBED_BWD, K_MEM, 0, 4 * D->T * D->h + 4 * D->V * D->h / D->tp,
              EW_STATS);
      scope_end (c);
      ddp_grad (c, &st->ddp, D->h * D->V / D->tp);
      ddp_bucket (c, &st->ddp, TRUE);   /* the last bucket: exposed */
    }
  if (st->fsdp)
    fsdp_reduce_scatter (c, &units[u]);
}

/* The compute stream waits for the gradients' streams. */
static void
step_grads_done (Ctx *c, const Step *st)
{
  if (st->fsdp)
    {
      scope_begin (c, "user_annotation", "FSDP::root_post_backward", NULL);
      event_record (c, ST_RS);
      stream_wait (c, ST_COMPUTE);
      if (c->dim_on[DIM_REPL])
        {
          event_record (c, ST_HSDP);
          stream_wait (c, ST_COMPUTE);
        }
      scope_end (c);
    }
  if (has (c, WEFT_STRATEGY_DDP))
    {
      event_record (c, ST_DP);
      stream_wait (c, ST_COMPUTE);
    }
}

/* Grad-norm clipping and the optimizer. */
static void
step_optimizer (Ctx *c, const Step *st)
{
  gboolean fsdp = st->fsdp;
  double local = fsdp ? st->total_params / (c->p.dp * c->p.cp) : st->total_params;

  scope_begin (c, "cpu_op", "aten::_foreach_norm", NULL);
  kernel (c, NULL, K_NORM2, K_MEM, 0, 4 * local, RED_STATS);
  kernel (c, NULL, K_REDUCE, K_MEM, 0, 4096, RED_STATS);
  scope_end (c);
  if (fsdp || (has (c, WEFT_STRATEGY_TP) && c->p.tp > 1))
    {
      CollSpec s;
      spec_init (c, &s, fsdp ? DIM_DP : DIM_TP, fsdp ? ST_DP : ST_TP, WEFT_COLL_ALL_REDUCE, 1, 4, "Float");
      blocking_collective (c, &s);
    }
  scope_begin (c, "user_annotation", "Optimizer.step#AdamW.step", NULL);
  for (int i = 0; i < 4; i++)
    kernel (c, "aten::_fused_adamw_", K_ADAM, K_MEM, 0, local * 4 * 4 * 2 / 4,
            stats_args ("[320, 1, 1]", "[512, 1, 1]", 72, 0, 50));
  scope_end (c);
  scope_begin (c, "user_annotation", "Optimizer.zero_grad#AdamW.zero_grad", NULL);
  scope_end (c);
  if (fsdp && c->p.float8_all_gather)
    {
      /* torchao's precompute_float8_dynamic_scale_for_fsdp: the amax of
       * every local weight shard, one all-reduce (max) of the 7 per block */
      CollSpec s;
      double blocks = st->total_params - st->units[0].dense - st->units[st->n_units - 1].dense;

      scope_begin (c, "cpu_op", "torchao::precompute_float8_dynamic_scale_for_fsdp", NULL);
      kernel (c, NULL, K_NORM2, K_MEM, 0, 4 * blocks / (c->p.dp * c->p.cp), RED_STATS);
      spec_init (c, &s, DIM_DP, ST_DP, WEFT_COLL_ALL_REDUCE, 7 * (gint64) st->L, 4, "Float");
      blocking_collective (c, &s);
      scope_end (c);
    }
}

static void
emit_step (Ctx *c, int step_no)
{
  Step st;
  const Dims *D = &st.D;
  char name[64];

  step_init (c, &st);
  g_snprintf (name, sizeof name, "ProfilerStep#%d", step_no);
  scope_begin (c, "user_annotation", g_string_chunk_insert_const (c->strs, name), NULL);

  step_inputs (c);
  if (st.fsdp)
    {
      scope_begin (c, "user_annotation", "FSDP::root_pre_forward", NULL);
      scope_end (c);
    }

  /* ---- forward */
  for (int u = 0; u < st.n_units; u++)
    step_forward_unit (c, &st, u);

  /* loss */
  scope_begin (c, "cpu_op", "aten::cross_entropy_loss", NULL);
  kernel (c, "aten::_log_softmax", K_SOFTMAX, K_MEM, 0, (4 + 2) * D->T * D->V / D->tp, RED_STATS);
  kernel (c, "aten::nll_loss_forward", K_NLL, K_MEM, 0, 4 * D->T, RED_STATS);
  scope_end (c);

  /* ---- backward */
  scope_begin (c, "cpu_op", "autograd::engine::evaluate_function: LogSoftmaxBackward0", NULL);
  kernel (c, "aten::_log_softmax_backward_data", K_SOFTMAX_BWD, K_MEM, 0, (4 + 4 + 2) * D->T * D->V / D->tp, RED_STATS);
  scope_end (c);
  for (int u = st.n_units - 1; u >= 0; u--)
    step_backward_unit (c, &st, u);
  step_grads_done (c, &st);
  step_optimizer (c, &st);

  /* loss.item(): the CPU waits for the whole step */
  sync_to_host (c, "aten::item", "Memcpy DtoH (Device -> Pageable)", 2400,
                "\"bytes\": 4, \"memory bandwidth (GB/s)\": 0.0017");

  scope_end (c);   /* ProfilerStep */
  step_clear (&st);
}

/* pipeline parallel: its schedules and stage programs */
#include "compose-pp.c"

/* ---- solving ------------------------------------------------------------------------ */

static gboolean
solve (Ctx *c, GError **error)
{
  guint n = c->nodes->len;
  guint32 *indeg = g_new0 (guint32, n);
  guint32 *off = g_new0 (guint32, n + 1);
  guint32 *adj = g_new (guint32, c->deps->len + 1);
  guint32 *queue = g_new (guint32, n + 1);
  guint qh = 0, qt = 0, done = 0;
  gboolean ok;

  for (guint i = 0; i < n; i++)
    {
      Node *nd = N (c, i);
      indeg[i] = nd->n_deps;
      for (guint k = 0; k < nd->n_deps; k++)
        off[(g_array_index (c->deps, guint32, nd->first_dep + k) & ~EDGE_MASK) + 1]++;
    }
  for (guint i = 0; i < n; i++)
    off[i + 1] += off[i];
  {
    guint32 *fill = g_memdup2 (off, sizeof (guint32) * (n + 1));
    for (guint i = 0; i < n; i++)
      {
        Node *nd = N (c, i);
        for (guint k = 0; k < nd->n_deps; k++)
          {
            guint32 d = g_array_index (c->deps, guint32, nd->first_dep + k) & ~EDGE_MASK;
            adj[fill[d]++] = i;
          }
      }
    g_free (fill);
  }
  for (guint i = 0; i < n; i++)
    if (indeg[i] == 0)
      queue[qt++] = i;
  while (qh < qt)
    {
      guint32 i = queue[qh++];
      Node *nd = N (c, i);
      gint64 start = 0;
      gint64 sync_end = G_MININT64;

      for (guint k = 0; k < nd->n_deps; k++)
        {
          guint32 e = g_array_index (c->deps, guint32, nd->first_dep + k);
          Node *d = N (c, e & ~EDGE_MASK);
          switch (e & EDGE_MASK)
            {
            case EDGE_END:
              start = MAX (start, d->end + nd->gap);
              break;
            case EDGE_START:
              start = MAX (start, d->start + nd->lat);
              break;
            default:
              sync_end = MAX (sync_end, d->end);
              break;
            }
        }
      nd->start = start;
      nd->end = start + nd->dur;
      if (sync_end != G_MININT64)
        nd->end = MAX (nd->end, sync_end + 1800);
      done++;
      for (guint32 k = off[i]; k < off[i + 1]; k++)
        if (--indeg[adj[k]] == 0)
          queue[qt++] = adj[k];
    }
  ok = done == n;
  if (!ok)
    g_set_error (error, WEFT_ERROR, WEFT_ERROR_CYCLE, "composer: the step program has a dependency cycle (%u of %u ops timed)",
                 done, n);
  g_free (indeg);
  g_free (off);
  g_free (adj);
  g_free (queue);
  return ok;
}

/* ---- writing ------------------------------------------------------------------------ */

static const gint64 ORIGIN_NS = 1000000; /* the first event at ts 1000.000 us */

static void
put_time (GString *out, gint64 ns)
{
  if (ns < 0)
    {
      g_string_append_c (out, '-');
      ns = -ns;
    }
  g_string_append_printf (out, "%" G_GINT64_FORMAT ".%03d", ns / 1000, (int) (ns % 1000));
}

static void
put_str (GString *out, const char *s)
{
  g_string_append_c (out, '"');
  for (; *s; s++)
    {
      if (*s == '"' || *s == '\\')
        g_string_append_c (out, '\\');
      g_string_append_c (out, *s);
    }
  g_string_append_c (out, '"');
}

typedef struct
{
  gint64 ts;
  guint  idx;
} Order;

static int
order_cmp (gconstpointer a, gconstpointer b)
{
  const Order *x = a, *y = b;
  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  return x->idx < y->idx ? -1 : (x->idx > y->idx ? 1 : 0);
}

static GBytes *
write_rank (Ctx *c, int r)
{
  RankState *s = &c->rs[r];
  GString *o = g_string_sized_new (1 << 20);
  int pid = 1840000 + r * 16 + 7;
  int dev = r % c->p.hw.gpus_per_node;
  int ndev = MIN (c->world, c->p.hw.gpus_per_node);
  gint64 first = G_MAXINT64, last = 0;
  g_autoptr (GArray) order = g_array_new (FALSE, FALSE, sizeof (Order));
  json_object *meta = weft_compose_params_to_json (&c->p);
  gboolean used[N_STREAMS] = { 0 };

  for (guint i = 0; i < s->recs->len; i++)
    {
      Rec *rec = &g_array_index (s->recs, Rec, i);
      Order od = { N (c, rec->a)->start, i };
      first = MIN (first, od.ts);
      last = MAX (last, N (c, rec->b != NONE ? rec->b : rec->a)->end);
      g_array_append_val (order, od);
      if (rec->kind == REC_GPU)
        used[rec->stream] = TRUE;
    }
  g_array_sort (order, order_cmp);

  g_string_append (o, "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [");
  for (int i = 0; i < ndev; i++)
    g_string_append_printf (o,
                            "%s\n    {\"id\": %d, \"name\": \"%s\", \"totalGlobalMem\": %" G_GINT64_FORMAT
                            ", \"computeMajor\": 9, \"computeMinor\": 0, \"maxThreadsPerBlock\": 1024, "
                            "\"maxThreadsPerMultiprocessor\": 2048, \"regsPerBlock\": 65536, \"warpSize\": 32, "
                            "\"sharedMemPerBlock\": 49152, \"numSms\": %d, \"regsPerMultiprocessor\": 65536, "
                            "\"sharedMemPerBlockOptin\": 232448, \"sharedMemPerMultiprocessor\": 233472}",
                            i ? "," : "", i, c->p.hw.device_name ? c->p.hw.device_name : "NVIDIA GPU",
                            c->p.hw.hbm_total_bytes, c->p.hw.num_sms > 0 ? c->p.hw.num_sms : 132);
  g_string_append (o, "],\n  \"cupti_version\": 28,\n  \"cuda_runtime_version\": 12090,\n  \"cuda_driver_version\": 13000,\n");
  /* distributedInfo */
  {
    int members[WEFT_COMPOSE_MAX_RANKS];
    int n_pg = 0;
    GString *pg = g_string_new (NULL);
    for (int dim = 0; dim < N_DIMS; dim++)
      {
        int n;
        g_autofree char *rt = NULL;
        if (!c->dim_on[dim])
          continue;
        n = group_members (c, dim, r, members);
        rt = ranks_text (members, n);
        g_string_append_printf (pg,
                                "%s{\"pg_name\": \"%s\", \"pg_desc\": \"%s\", \"backend_config\": \"cuda:nccl\", "
                                "\"pg_size\": %d, \"ranks\": %s}",
                                n_pg ? ", " : "", c->pg_name[dim], c->pg_desc[dim], n, rt);
        n_pg++;
      }
    g_string_append_printf (o,
                            "  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, \"world_size\": %d, "
                            "\"pg_count\": %d, \"pg_config\": [%s], \"nccl_version\": \"2.27.5\"},\n",
                            r, c->world, n_pg, pg->str);
    g_string_free (pg, TRUE);
  }
  g_string_append (o, "  \"record_shapes\": 1,\n  \"weft\": ");
  g_string_append (o, json_object_to_json_string_ext (meta, JSON_C_TO_STRING_PLAIN));
  json_object_put (meta);
  g_string_append_printf (o, ",\n  \"trace_id\": \"%016" G_GINT64_MODIFIER "X%016" G_GINT64_MODIFIER "X\",\n",
                          (guint64) c->seed_hash, (guint64) (r + 1) * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15));
  g_string_append (o, "  \"displayTimeUnit\": \"ms\",\n");
  g_string_append_printf (o, "  \"baseTimeNanoseconds\": %" G_GINT64_FORMAT ",\n  \"traceEvents\": [\n",
                          c->p.base_time_ns);

#define T0(x) ((x) + ORIGIN_NS)
  guint ev_idx = 0;
  for (guint k = 0; k < order->len; k++)
    {
      Rec *rec = &g_array_index (s->recs, Rec, g_array_index (order, Order, k).idx);
      Node *a = N (c, rec->a);
      gint64 ts = a->start;
      gint64 end = rec->b != NONE ? N (c, rec->b)->end : a->end;
      if (rec->kind == REC_GPU && rec->nccl)
        {
          /* the collective's gpu_user_annotation before its kernel: with the
           * same ts and dur, Perfetto nests the later slice in the earlier
           * one, and the launch flow binds to the innermost: the kernel */
          g_string_append (o, "  {\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": ");
          put_str (o, rec->annot);
          g_string_append_printf (o, ", \"pid\": %d, \"tid\": %d, \"ts\": ", dev, stream_ids[rec->stream]);
          put_time (o, T0 (ts));
          g_string_append (o, ", \"dur\": ");
          put_time (o, end - ts);
          g_string_append_printf (o, ", \"args\": {\"External id\": %" G_GINT64_FORMAT "}},\n", rec->annot_ext);
        }
      g_string_append (o, "  {\"ph\": \"X\", \"cat\": ");
      put_str (o, rec->cat);
      g_string_append (o, ", \"name\": ");
      put_str (o, rec->name);
      if (rec->kind == REC_GPU)
        g_string_append_printf (o, ", \"pid\": %d, \"tid\": %d", dev, stream_ids[rec->stream]);
      else
        g_string_append_printf (o, ", \"pid\": %d, \"tid\": %d", pid, pid);
      g_string_append (o, ", \"ts\": ");
      put_time (o, T0 (ts));
      g_string_append (o, ", \"dur\": ");
      put_time (o, end - ts);
      g_string_append (o, ", \"args\": {");
      switch (rec->kind)
        {
        case REC_SCOPE:
          if (g_str_equal (rec->cat, "python_function"))
            g_string_append_printf (o, "\"Python id\": %" G_GINT64_FORMAT ", \"Python thread\": 0", rec->ext);
          else
            {
              g_string_append_printf (o, "\"External id\": %" G_GINT64_FORMAT ", \"Record function id\": 0", rec->ext);
              if (rec->args)
                g_string_append_printf (o, ", %s", rec->args);
              g_string_append_printf (o, ", \"Ev Idx\": %u", ev_idx++);
            }
          break;
        case REC_RUNTIME:
          if (rec->ext > 0)
            g_string_append_printf (o, "\"External id\": %" G_GINT64_FORMAT ", ", rec->ext);
          g_string_append_printf (o, "\"cbid\": %d, \"correlation\": %" G_GINT64_FORMAT, rec->cbid, rec->corr);
          break;
        case REC_GPU:
          if (rec->ext > 0)
            g_string_append_printf (o, "\"External id\": %" G_GINT64_FORMAT ", ", rec->ext);
          if (rec->memcpy)
            g_string_append_printf (o, "\"device\": %d, \"context\": 1, \"stream\": %d, \"correlation\": %" G_GINT64_FORMAT,
                                    dev, stream_ids[rec->stream], rec->corr);
          else
            g_string_append_printf (o, "\"queued\": 0, \"device\": %d, \"context\": 1, \"stream\": %d, \"correlation\": %" G_GINT64_FORMAT,
                                    dev, stream_ids[rec->stream], rec->corr);
          if (rec->args)
            g_string_append_printf (o, ", %s", rec->args);
          break;
        }
      g_string_append (o, "}},\n");
      if (rec->kind == REC_RUNTIME && rec->launch)
        {
          g_string_append_printf (o, "  {\"ph\": \"s\", \"id\": %" G_GINT64_FORMAT ", \"pid\": %d, \"tid\": %d, \"ts\": ",
                                  rec->corr, pid, pid);
          put_time (o, T0 (ts));
          g_string_append (o, ", \"cat\": \"ac2g\", \"name\": \"ac2g\"},\n");
        }
      if (rec->kind == REC_GPU)
        {
          g_string_append_printf (o, "  {\"ph\": \"f\", \"id\": %" G_GINT64_FORMAT ", \"pid\": %d, \"tid\": %d, \"ts\": ",
                                  rec->corr, dev, stream_ids[rec->stream]);
          put_time (o, T0 (ts));
          g_string_append (o, ", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"},\n");
        }
    }
  /* the memory model's allocator events (compose-memory.c) */
  {
    g_autoptr (GArray) spans = g_array_new (FALSE, FALSE, sizeof (WeftComposeSpan));
    for (guint i = 0; i < s->recs->len; i++)
      {
        Rec *rec = &g_array_index (s->recs, Rec, i);
        WeftComposeSpan sp = { rec->name, T0 (N (c, rec->a)->start),
                               T0 (N (c, rec->b != NONE ? rec->b : rec->a)->end) };
        if (rec->kind == REC_SCOPE)
          g_array_append_val (spans, sp);
      }
    _weft_compose_memory_write_events (o, &c->p, c->p.ac, spans, pid, dev);
  }
  /* metadata */
  {
    gint64 mts = T0 (first) - 400000;
    char tsbuf[40];
    GString *t = g_string_new (NULL);
    put_time (t, mts);
    g_strlcpy (tsbuf, t->str, sizeof tsbuf);
    g_string_free (t, TRUE);
    g_string_append_printf (o, "  {\"ph\": \"M\", \"name\": \"process_name\", \"ts\": %s, \"pid\": %d, \"tid\": 0, \"args\": {\"name\": \"python3.12\"}},\n", tsbuf, pid);
    g_string_append_printf (o, "  {\"ph\": \"M\", \"name\": \"process_labels\", \"ts\": %s, \"pid\": %d, \"tid\": 0, \"args\": {\"labels\": \"CPU\"}},\n", tsbuf, pid);
    g_string_append_printf (o, "  {\"ph\": \"M\", \"name\": \"process_sort_index\", \"ts\": %s, \"pid\": %d, \"tid\": 0, \"args\": {\"sort_index\": %d}},\n", tsbuf, pid, pid);
    g_string_append_printf (o, "  {\"ph\": \"M\", \"name\": \"process_name\", \"ts\": %s, \"pid\": %d, \"tid\": 0, \"args\": {\"name\": \"python3.12\"}},\n", tsbuf, dev);
    g_string_append_printf (o, "  {\"ph\": \"M\", \"name\": \"process_labels\", \"ts\": %s, \"pid\": %d, \"tid\": 0, \"args\": {\"labels\": \"GPU %d\"}},\n", tsbuf, dev, dev);
    g_string_append_printf (o, "  {\"ph\": \"M\", \"name\": \"process_sort_index\", \"ts\": %s, \"pid\": %d, \"tid\": 0, \"args\": {\"sort_index\": %d}},\n", tsbuf, dev, 5000000 + dev);
    g_string_append_printf (o, "  {\"ph\": \"M\", \"name\": \"thread_name\", \"ts\": %s, \"pid\": %d, \"tid\": %d, \"args\": {\"name\": \"thread %d (python3.12)\"}},\n", tsbuf, pid, pid, pid);
    g_string_append_printf (o, "  {\"ph\": \"M\", \"name\": \"thread_sort_index\", \"ts\": %s, \"pid\": %d, \"tid\": %d, \"args\": {\"sort_index\": %d}},\n", tsbuf, pid, pid, pid);
    for (int st = 0; st < N_STREAMS; st++)
      if (used[st])
        {
          g_string_append_printf (o, "  {\"ph\": \"M\", \"name\": \"thread_name\", \"ts\": %s, \"pid\": %d, \"tid\": %d, \"args\": {\"name\": \"stream %d \"}},\n", tsbuf, dev, stream_ids[st], stream_ids[st]);
          g_string_append_printf (o, "  {\"ph\": \"M\", \"name\": \"thread_sort_index\", \"ts\": %s, \"pid\": %d, \"tid\": %d, \"args\": {\"sort_index\": %d}},\n", tsbuf, dev, stream_ids[st], stream_ids[st]);
        }
    g_string_append (o, "  {\"ph\": \"X\", \"cat\": \"Trace\", \"name\": \"PyTorch Profiler (0)\", \"pid\": \"Spans\", \"tid\": \"PyTorch Profiler\", \"ts\": ");
    put_time (o, T0 (first) - 200000);
    g_string_append (o, ", \"dur\": ");
    put_time (o, last - first + 400000);
    g_string_append (o, ", \"args\": {\"Op count\": 0}},\n");
    g_string_append (o, "  {\"name\": \"Iteration Start: PyTorch Profiler\", \"ph\": \"i\", \"s\": \"g\", \"pid\": \"Traces\", \"tid\": \"Trace PyTorch Profiler\", \"ts\": ");
    put_time (o, T0 (first) - 200000);
    g_string_append (o, "},\n  {\"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\", \"pid\": \"\", \"tid\": \"\", \"ts\": ");
    put_time (o, T0 (last) + 200000);
    g_string_append (o, "}\n  ],\n  \"traceName\": \"");
    g_string_append_printf (o, "profiling/traces/iteration_%d/rank%d_trace.json\"\n}\n", c->p.iteration, r);
  }
#undef T0
  return g_string_free_to_bytes (o);
}

/* ---- driver ---------------------------------------------------------------------------- */

static void
ctx_free (Ctx *c)
{
  if (c->rs != NULL)
    for (int r = 0; r < c->world; r++)
      {
        if (c->rs[r].recs)
          g_array_unref (c->rs[r].recs);
        if (c->rs[r].rng)
          g_rand_free (c->rs[r].rng);
      }
  g_free (c->rs);
  if (c->nodes)
    g_array_unref (c->nodes);
  if (c->deps)
    g_array_unref (c->deps);
  if (c->strs)
    g_string_chunk_free (c->strs);
  if (c->rng)
    g_rand_free (c->rng);
  weft_cost_model_free (c->own_cm);
}

static void
ctx_init (Ctx *c, const WeftComposeParams *params)
{
  static const char *descs[N_DIMS] = { "default_pg", "mesh_dp", "mesh_tp", "mesh_cp", "mesh_ep", "mesh_dp_mod_ep",
                                       "mesh_dp_replicate", "mesh_pp" };
  int next_pg = 0;

  memset (c, 0, sizeof *c);
  c->p = *params;
  c->world = weft_compose_world_size (params);
  c->nodes = g_array_sized_new (FALSE, FALSE, sizeof (Node), 1 << 16);
  c->deps = g_array_sized_new (FALSE, FALSE, sizeof (guint32), 1 << 17);
  c->strs = g_string_chunk_new (1 << 16);
  c->rng = g_rand_new_with_seed (params->seed * 2654435761u + 17);
  c->seed_hash = fnv1a (params->model.name, G_GUINT64_CONSTANT (1469598103934665603) + params->seed);
  if (params->cost_model == NULL)
    {
      c->own_cm = weft_cost_model_new (&params->hw);
      c->cm = c->own_cm;
    }
  else
    c->cm = params->cost_model;
  c->dim_on[DIM_WORLD] = TRUE;
  c->dim_on[DIM_DP] = (params->strategies & (WEFT_STRATEGY_DDP | WEFT_STRATEGY_FSDP)) && params->dp * params->cp > 1;
  c->dim_on[DIM_TP] = (params->strategies & WEFT_STRATEGY_TP) && params->tp > 1;
  c->dim_on[DIM_CP] = (params->strategies & WEFT_STRATEGY_CP) && params->cp > 1;
  c->dim_on[DIM_EP] = (params->strategies & WEFT_STRATEGY_EP) && params->ep > 1;
  c->dim_on[DIM_DPEP] = c->dim_on[DIM_EP] && (params->strategies & WEFT_STRATEGY_FSDP)
                        && params->dp * params->cp / params->ep > 1;
  c->dim_on[DIM_REPL] = (params->strategies & WEFT_STRATEGY_FSDP) && params->dp_replicate > 1;
  c->dim_on[DIM_PP] = params->pp > 1;
  for (int d = 0; d < N_DIMS; d++)
    {
      c->pg_desc[d] = descs[d];
      if (c->dim_on[d])
        g_snprintf (c->pg_name[d], sizeof c->pg_name[d], "%d", next_pg++);
    }
  if (params->cp > 1 && c->dim_on[DIM_DP])
    c->pg_desc[DIM_DP] = "mesh_dp_cp";
  if (c->dim_on[DIM_REPL])
    c->pg_desc[DIM_DP] = params->cp > 1 ? "mesh_dp_shard_cp" : "mesh_dp_shard";
  c->rs = g_new0 (RankState, c->world);
  c->r_lo = 0;
  c->r_hi = c->world;
  c->inner = c->world / MAX (params->pp, 1);
  for (int r = 0; r < c->world; r++)
    {
      RankState *s = &c->rs[r];
      s->recs = g_array_sized_new (FALSE, TRUE, sizeof (Rec), 4096);
      s->rng = g_rand_new_with_seed (params->seed * 1000003u + (guint32) r * 7919u + 1);
      s->cpu_last = NONE;
      for (int st = 0; st < N_STREAMS; st++)
        s->stream_last[st] = NONE;
      for (guint i = 0; i < G_N_ELEMENTS (s->handles); i++)
        s->handles[i] = NONE;
      for (int st = 0; st < N_STREAMS; st++)
        s->rec_node[st] = NONE;
      for (guint i = 0; i < G_N_ELEMENTS (s->handle_wait); i++)
        s->handle_wait[i] = NONE;
      s->scratch = NONE;
      s->scratch_wait = NONE;
      s->ext = 300 + r * 0;
      s->corr = 1400;
      /* each rank's CPU starts a little apart */
      s->cpu_last = node_new (c, NODE_CPU, (gint64) (g_rand_double (s->rng) * 40000), 0, 0);
    }
}

static gboolean
compose_build (Ctx *c, const WeftComposeParams *params, GError **error)
{
  if (!weft_compose_params_validate (params, error))
    return FALSE;
  ctx_init (c, params);
  for (int k = 0; k < params->steps; k++)
    {
      if (params->pp <= 1)
        emit_step (c, params->iteration - params->steps + k);
      else if (!pp_emit_step (c, params->iteration - params->steps + k, error))
        {
          ctx_free (c);
          return FALSE;
        }
    }
  if (!solve (c, error))
    {
      ctx_free (c);
      return FALSE;
    }
  return TRUE;
}

GPtrArray *
weft_compose_json (const WeftComposeParams *params, GError **error)
{
  Ctx c;
  GPtrArray *out;

  if (!compose_build (&c, params, error))
    return NULL;
  out = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  for (int r = 0; r < c.world; r++)
    g_ptr_array_add (out, write_rank (&c, r));
  ctx_free (&c);
  return out;
}

typedef struct
{
  Ctx         *c;
  WeftSaveTxn *txn;        /* file r is rank r's */
  GMutex       lock;
  GError      *error;
  const WeftComposeParams *params;  /* its progress callback */
  guint        n_written;  /* atomic */
} WriteJobs;

static void
write_job (gpointer data, gpointer user_data)
{
  WriteJobs *jobs = user_data;
  int r = GPOINTER_TO_INT (data) - 1;
  g_autoptr (GBytes) b = NULL;
  GError *error = NULL;

  g_mutex_lock (&jobs->lock);
  if (jobs->error != NULL)
    {
      g_mutex_unlock (&jobs->lock);
      return;
    }
  g_mutex_unlock (&jobs->lock);
  b = write_rank (jobs->c, r);
  /* to the rank's temporary: the set is renamed into place only when every
   * rank is written (save.c) */
  if (!weft_save_txn_write_bytes (jobs->txn, r, b, &error))
    {
      g_mutex_lock (&jobs->lock);
      if (jobs->error == NULL)
        jobs->error = error;
      else
        g_error_free (error);
      g_mutex_unlock (&jobs->lock);
      return;
    }
  if (jobs->params->progress != NULL)
    {
      guint n = (guint) g_atomic_int_add ((gint *) &jobs->n_written, 1) + 1;
      jobs->params->progress (1 + n, (guint64) jobs->c->world + 1, jobs->params->progress_data);
    }
}

gboolean
weft_compose_write (const WeftComposeParams *params,
                    const char              *out_dir,
                    const char              *ext,
                    char                   **written_dir,
                    GError                 **error)
{
  g_autofree char *dir = NULL;
  g_autoptr (GPtrArray) targets = NULL;
  g_autoptr (WeftSaveTxn) txn = NULL;
  gboolean gz;
  Ctx c;
  WriteJobs jobs = { 0 };
  GThreadPool *pool;
  int n_threads;

  if (ext == NULL)
    ext = ".json.gz";
  gz = g_str_equal (ext, ".json.gz") || g_str_equal (ext, "json.gz");
  if (!gz && !g_str_equal (ext, ".json") && !g_str_equal (ext, "json"))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "unknown output format '%s' (json or json.gz)", ext);
      return FALSE;
    }
  if (!weft_compose_params_validate (params, error))
    return FALSE;
  dir = g_strdup_printf ("%s/profiling/traces/iteration_%d", out_dir, params->iteration);
  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_IO, "%s: cannot create the folder", dir);
      return FALSE;
    }
  if (params->progress != NULL)
    params->progress (0, (guint64) weft_compose_world_size (params) + 1, params->progress_data);
  if (!compose_build (&c, params, error))
    return FALSE;
  if (params->progress != NULL)
    params->progress (1, (guint64) c.world + 1, params->progress_data);
  /* Loading OUT (or the iteration folder) later must give exactly these
   * ranks: refuse a folder holding other traces. */
  targets = g_ptr_array_new_with_free_func (g_free);
  for (int r = 0; r < c.world; r++)
    g_ptr_array_add (targets, g_strdup_printf ("%s/rank%d_trace.json%s", dir, r, gz ? ".gz" : ""));
  if (!weft_save_check_folder (dir, (const char *const *) targets->pdata, targets->len, error) ||
      !weft_save_check_folder (out_dir, (const char *const *) targets->pdata, targets->len, error))
    {
      ctx_free (&c);
      return FALSE;
    }
  jobs.txn = txn = weft_save_txn_new ();
  for (int r = 0; r < c.world; r++)
    {
      if (weft_save_txn_add (txn, g_ptr_array_index (targets, r), error) < 0)
        {
          ctx_free (&c);
          return FALSE;
        }
      weft_save_txn_remove_other_formats (txn, r);
    }
  /* every rank's text is built and compressed in parallel (read-only on c) */
  jobs.c = &c;
  jobs.params = params;
  g_mutex_init (&jobs.lock);
  n_threads = CLAMP ((int) g_get_num_processors (), 1, c.world);
  pool = g_thread_pool_new (write_job, &jobs, n_threads, TRUE, NULL);
  for (int r = 0; r < c.world; r++)
    g_thread_pool_push (pool, GINT_TO_POINTER (r + 1), NULL);
  g_thread_pool_free (pool, FALSE, TRUE);
  g_mutex_clear (&jobs.lock);
  ctx_free (&c);
  if (jobs.error == NULL)
    weft_save_txn_commit (txn, &jobs.error);
  if (jobs.error != NULL)
    {
      g_propagate_error (error, jobs.error);
      return FALSE;
    }
  if (written_dir != NULL)
    *written_dir = g_steal_pointer (&dir);
  return TRUE;
}
