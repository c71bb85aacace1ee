/* compose-emit.c: the composer's event emitters (see compose.c's header
 * for the DAG they build): CPU scopes and runtime calls, GPU launches,
 * events and stream waits, the compute kernels and their times, the
 * memory-bound ops (norms, RoPE, SwiGLU, float8 casts) and the
 * collectives. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "weft/weft-compose.h"
#include "compose-attention-private.h"
#include "compose-emit-private.h"

/* The recompute pass of selective op AC keeps what the policy saved. */
gboolean
recompute_keeps_saved (const Ctx *c)
{
  return c->phase == PH_RECOMPUTE && !c->recompute_all;
}

guint32
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

void
dep (Ctx *c, guint32 node, guint32 type)
{
  if (node == NONE || c->n_tmp >= G_N_ELEMENTS (c->tmp_deps))
    return;
  c->tmp_deps[c->n_tmp++] = node | type;
}


double
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
int
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

char *
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

Rec *
rec_add (Ctx *c, int r, int kind)
{
  Rec rec = { 0 };

  rec.kind = kind;
  rec.a = rec.b = NONE;
  g_array_append_val (c->rs[r].recs, rec);
  return &g_array_index (c->rs[r].recs, Rec, c->rs[r].recs->len - 1);
}

guint32
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

void
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

void
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
guint32
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
void
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
void
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
void
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
void
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

void
copy_handle (Ctx *c, int to, int from)
{
  for (int r = c->r_lo; r < c->r_hi; r++)
    {
      c->rs[r].handles[to] = c->rs[r].handles[from];
      c->rs[r].handle_ext[to] = c->rs[r].handle_ext[from];
      c->rs[r].handle_wait[to] = c->rs[r].handle_wait[from];
    }
}

void
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


gint64
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

const char *
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
void
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

void
kernel (Ctx *c, const char *op, const char *name, KClass kc, double flops, double bytes, const char *stats)
{
  kernel_with_base (c, op, name, kernel_ns (c, kc, flops, bytes), stats);
}

/* a flash attention kernel: its FLOPs at the attention efficiency times
 * FlashAttention-2's measured curve for sk keys (compose-attention.c) */
gint64
attn_ns (Ctx *c, gboolean backward, gboolean causal, double sk, double flops, double bytes)
{
  const WeftComputeEfficiency *e = &c->p.eff;
  double eff = e->attention * _weft_compose_attention_shape (backward, causal, sk);
  double t = MAX (flops / (c->p.hw.peak_flops * eff), bytes / (c->p.hw.hbm_bytes_per_s * e->memory));

  return (gint64) (MIN (t, 1000.0) * 1e9) + CLAMP (e->kernel_overhead_ns, 0, 1000000);
}


/* A GEMM [M, K] x [K, N] launched by aten::mm (recorded with its Input
 * Dims, as record_shapes does: calibration reads them back). */
static void gemm_float8 (Ctx *c, const char *name, gint64 m, gint64 k, gint64 n);
/* torch._scaled_mm's throughput over the bf16 GEMM's at the same shape:
 * the FP8 / BF16 dense peaks (NVIDIA H100 datasheet: 1979 / 989), as
 * measured for large M (float8_experimental PR 100, H100, M = 16384,
 * LLaMa 70B shapes: 1.94 .. 2.54x). docs/composer.md, "Float8". */
#define FLOAT8_GEMM_SPEEDUP 2.0

void
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


/* torch's _SDPAMerger.step with convert_to_f32 (context_parallel's
 * default): out = out - sigmoid(block_lse - lse) * (out - block_out) in
 * fp32, eager: the bf16 block output cast (2 + 4), two subtractions and a
 * multiplication (4 + 4 + 4 each): ~38 bytes per output element */


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
void
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
void
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
void
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
void
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
void
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
void
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


guint64
fnv1a (const char *s, guint64 h)
{
  for (; *s; s++)
    {
      h ^= (guchar) *s;
      h *= G_GUINT64_CONSTANT (1099511628211);
    }
  return h;
}


/* Emits one collective on every rank: c10d op > record_param_comms >
 * nccl:* annotation > cudaEventRecord (producer: compute) >
 * cudaStreamWaitEvent (comm stream) > NCCL launch > cudaEventRecord (end).
 * Leaves each rank's end handle in scratch (for a later stream_wait). */
void
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

void
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
void
blocking_collective (Ctx *c, const CollSpec *spec)
{
  collective (c, spec);
  stream_wait (c, ST_COMPUTE);
}
