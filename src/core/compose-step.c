/* compose-step.c: the model pieces (attention, MLP, MoE), FSDP's
 * all-gathers and reduce-scatters, DDP's buckets and the training step
 * (forward, backward, optimizer) built from compose-emit.c's emitters. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "weft/weft-compose.h"
#include "compose-attention-private.h"
#include "compose-emit-private.h"

/* ---- model pieces ----------------------------------------------------------------- */


void
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

gboolean
is_moe_block (Ctx *c, int layer)
{
  const WeftModelShape *m = &c->p.model;
  return m->experts > 0 && (m->moe_every <= 1 || layer % m->moe_every == m->moe_every - 1);
}

/* parameters (elements) of one block on one rank before FSDP sharding */
double
block_params_dense (Ctx *c, int layer)
{
  const WeftModelShape *m = &c->p.model;
  double h = m->hidden, d = (double) m->hidden / m->heads;
  double attn = h * m->heads * d * 2 + h * m->kv_heads * d * 2;
  double mlp = is_moe_block (c, layer) ? h * m->experts : 3.0 * h * m->ffn;

  return (attn + mlp) / c->p.tp + 2 * h;
}

double
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

gboolean
has (Ctx *c, WeftStrategy s)
{
  return (c->p.strategies & s) != 0;
}

/* TP collective after a row-parallel GEMM (forward) or before/after the
 * column-parallel GEMMs (backward). kind 0: reduce (AR or RS), 1: gather (AG
 * with SP; nothing without SP). */
void
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


void
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

void
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

void
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

void
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

void
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
void
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
void
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

void
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

