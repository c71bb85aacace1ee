/* compose-memory.c: the composer's memory model and torchtitan's throughput
 * figures.
 *
 * Per rank: the fp32 parameter shards (torchtitan's mixed precision keeps
 * the parameters in fp32 and computes in bf16), AdamW's two fp32 states,
 * the fp32 gradient shards, FSDP's unsharded bf16 parameters per unit,
 * the activations each block saves for its AC mode, the loss's fp32
 * log-softmax, and the caching allocator's rounding. The timeline walks the
 * composed step's CPU spans in program order, as the allocator sees the
 * calls. Sources of every figure: docs/composer.md, "Memory". */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compose-memory-private.h"

/* PyTorch's CUDACachingAllocator rounds a large block (> 1 MiB) up to a
 * multiple of kRoundLarge = 2 MiB and carves it from a segment of its own
 * (>= kMinLargeAlloc = 10 MiB) or of kLargeBuffer = 20 MiB. */
#define ROUND_LARGE (2.0 * 1024 * 1024)
/* NCCL_BUFFSIZE's default, per channel and peer (NCCL's environment docs). */
#define NCCL_BUFFSIZE (4.0 * 1024 * 1024)
/* Ring channels per communicator: an assumption (docs/composer.md). */
#define NCCL_CHANNELS 16


/* ---- the shapes ---------------------------------------------------------------- */

typedef struct
{
  const WeftComposeParams *p;
  WeftAcMode ac;
  int        L;
  double     T, Tn;           /* tokens per rank, tokens the norms see (SP) */
  double     h, f, kv, nh, tp, V;
  gboolean   fsdp, ddp;
  double     shard, shard_experts;
  double    *dense, *experts; /* per unit, elements on this rank before FSDP */
  int        n_units;
  gboolean  *present;         /* per unit: run on this rank (all but under pipeline parallel) */
  int       *order;           /* pipeline parallel: the present units, ascending */
  int        n_present;
} Shape;

static gboolean
is_moe_block (const WeftModelShape *m, int layer)
{
  return m->experts > 0 && (m->moe_every <= 1 || layer % m->moe_every == m->moe_every - 1);
}

static void
shape_init (Shape *s, const WeftComposeParams *p, WeftAcMode ac)
{
  const WeftModelShape *m = &p->model;
  double d = (double) m->hidden / m->heads;

  memset (s, 0, sizeof *s);
  s->p = p;
  s->ac = ac;
  s->L = m->layers;
  s->tp = ((p->strategies & WEFT_STRATEGY_TP) && p->tp > 1) ? p->tp : 1;
  s->T = (double) m->seq / MAX (p->cp, 1) * m->mbs;
  if (p->pp > 1)   /* a pipeline stage holds one microbatch per forward */
    s->T /= weft_compose_pp_microbatches (p);
  s->Tn = (p->sequence_parallel && s->tp > 1) ? s->T / s->tp : s->T;
  s->h = m->hidden;
  s->f = m->ffn / s->tp;
  s->kv = m->kv_heads * d / s->tp;
  s->nh = m->heads / s->tp;
  s->V = m->vocab;
  s->fsdp = (p->strategies & WEFT_STRATEGY_FSDP) && p->dp * p->cp > 1;
  s->ddp = (p->strategies & WEFT_STRATEGY_DDP) && p->dp * p->cp > 1;
  s->shard = s->fsdp ? (double) p->dp / MAX (p->dp_replicate, 1) * p->cp : 1;
  s->shard_experts = s->fsdp ? MAX ((double) p->dp * p->cp / MAX (p->ep, 1), 1) : 1;
  s->n_units = s->L + 2;
  s->dense = g_new0 (double, s->n_units);
  s->experts = g_new0 (double, s->n_units);
  s->present = g_new (gboolean, s->n_units);
  s->order = g_new (int, s->n_units);
  s->n_present = s->n_units;
  for (int u = 0; u < s->n_units; u++)
    {
      s->present[u] = TRUE;
      s->order[u] = u;
    }
  /* as the composer's step (compose.c, step_init) */
  s->dense[0] = s->V * s->h / s->tp;
  for (int i = 0; i < s->L; i++)
    {
      double attn = s->h * m->heads * d * 2 + s->h * m->kv_heads * d * 2;
      double mlp = is_moe_block (m, i) ? s->h * m->experts : 3.0 * s->h * m->ffn;
      s->dense[1 + i] = (attn + mlp) / s->tp + 2 * s->h;
      if (is_moe_block (m, i))
        s->experts[1 + i] = 3.0 * s->h * (double) m->moe_ffn * m->experts / MAX (p->ep, 1);
    }
  s->dense[s->L + 1] = s->V * s->h / s->tp + s->h;
}

static void
shape_clear (Shape *s)
{
  g_free (s->dense);
  g_free (s->experts);
  g_free (s->present);
  g_free (s->order);
}

static double
unit_full (const Shape *s, int u)
{
  return s->dense[u] + s->experts[u];
}

/* elements this rank keeps of unit u (FSDP shards) */
static double
unit_local (const Shape *s, int u)
{
  return s->dense[u] / s->shard + s->experts[u] / s->shard_experts;
}

/* Bytes one block saves for its backward. Without AC (per token, bf16):
 * the attention norm's input and output, q/k/v (SDPA's inputs), SDPA's
 * output (+ fp32 logsumexp), the MLP norm's input and output, w1, w3,
 * silu(w1) and the product (w2's input); the norms' fp32 rstd. A MoE block
 * has the router scores, the dispatched tokens, the expert intermediates
 * and the combine input instead of the MLP's. */
static double
act_block (const Shape *s, int layer, WeftAcMode ac)
{
  const WeftModelShape *m = &s->p->model;
  double T = s->T, Tn = s->Tn, h = s->h;
  gboolean moe = is_moe_block (m, layer);
  double k = m->top_k, mf = m->moe_ffn, E = m->experts;

  switch (ac)
    {
    case WEFT_AC_FULL:
      return 2 * Tn * h;
    case WEFT_AC_SELECTIVE_LAYER:
      /* every ac_layer_freq-th block fully recomputed (its input saved), the
       * others keep everything: the composer's rule (compose.c) */
      return act_block (s, layer, (layer + 1) % MAX (s->p->ac_layer_freq, 1) == 0 ? WEFT_AC_FULL : WEFT_AC_NONE);
    case WEFT_AC_SELECTIVE_OP:
      /* torchtitan's op-level policy: the block's input, SDPA's output and
       * logsumexp, and the 1st, 3rd, 5th, 7th matmul's output (wq, wv, then
       * w1 and w2, or the router and the second expert GEMM) */
      return 2 * (Tn * h + T * h / s->tp + T * h / s->tp + T * s->kv)
             + 4 * T * s->nh
             + (moe ? 2 * (T * E + T * k * h) : 2 * (T * s->f + T * h));
    case WEFT_AC_NONE:
    default:
      return 2 * (2 * Tn * h + 2 * T * h + T * (h / s->tp + 2 * s->kv) + T * h / s->tp)
             + 4 * (2 * Tn + T * s->nh)
             + (moe ? 4 * T * E + 2 * (2 * T * k * h + 4 * T * k * mf) : 2 * 4 * T * s->f);
    }
}

/* working buffers of a block beyond what it saves: two MLP intermediates
 * (or expert intermediates), and CP's double-buffered K/V chunk */
static double
act_working (const Shape *s, int layer)
{
  const WeftModelShape *m = &s->p->model;
  double w = is_moe_block (m, layer) ? 2 * 2 * s->T * m->top_k * m->moe_ffn : 2 * 2 * s->T * s->f;
  if (s->p->cp > 1 && (s->p->strategies & WEFT_STRATEGY_CP))
    w += 2 * 2 * 2 * s->T * s->kv;
  return w;
}

static int
communicators (const WeftComposeParams *p, const Shape *s, double *nccl)
{
  struct { gboolean on; int n; } g[] = {
    { TRUE, p->dp * p->cp * p->tp },                                         /* default_pg */
    { s->fsdp || s->ddp, (int) (s->fsdp ? s->shard : p->dp * p->cp) },      /* mesh_dp */
    { s->tp > 1, p->tp },
    { (p->strategies & WEFT_STRATEGY_CP) && p->cp > 1, p->cp },
    { (p->strategies & WEFT_STRATEGY_EP) && p->ep > 1, p->ep },
    { s->fsdp && (p->strategies & WEFT_STRATEGY_EP) && p->ep > 1 && s->shard_experts > 1, (int) s->shard_experts },
    { s->fsdp && p->dp_replicate > 1, p->dp_replicate },
  };
  int n = 0;

  *nccl = 0;
  for (guint i = 0; i < G_N_ELEMENTS (g); i++)
    if (g[i].on && g[i].n > 1)
      {
        /* a ring: a send and a receive buffer per channel (one peer when
         * the group has two ranks) */
        n++;
        *nccl += NCCL_CHANNELS * NCCL_BUFFSIZE * (g[i].n > 2 ? 2 : 1);
      }
  return n;
}

void
weft_compose_memory_figures (const WeftComposeParams *params, WeftAcMode ac, WeftMemoryFigures *out)
{
  Shape s;
  double local = 0;

  g_return_if_fail (params != NULL && out != NULL);
  shape_init (&s, params, ac);
  memset (out, 0, sizeof *out);
  for (int u = 0; u < s.n_units; u++)
    {
      local += unit_local (&s, u);
      if (s.fsdp)
        out->unsharded_max = MAX (out->unsharded_max, 2 * unit_full (&s, u));
    }
  out->params = 4 * local;
  out->grads = 4 * local;
  out->optimizer = 8 * local;
  out->ddp_buckets = s.ddp ? 4 * local : 0;
  /* FSDP2 with prefetch: the unit computing and the next one (the
   * composer's limit: the copy-in waits for the compute two units back) */
  out->units_unsharded = s.fsdp ? (params->fsdp_prefetch ? 2 : 1) : 0;
  out->act_block = act_block (&s, 0, ac);
  out->act_block_full = act_block (&s, 0, WEFT_AC_NONE);
  out->act_loss = 4 * s.T * s.V / s.tp;
  out->communicators = communicators (params, &s, &out->nccl);
  shape_clear (&s);
}

/* ---- the timeline ---------------------------------------------------------------- */

typedef struct
{
  gint64 ts;
  guint  order;
  double bytes;
} Delta;

typedef struct
{
  Shape   s;
  GArray *deltas;    /* Delta */
  /* the walk */
  gboolean backward;
  int      fwd_ag, bwd_ag, bwd_rs, cur_fwd, cur_bwd;
  double   rs_live;  /* FSDP: the reduce-scatter input in flight */
  double   grads_live;
  gboolean persistent_done;
  gboolean output_bwd_done;   /* the output's MmBackward0 seen (the blocks' come later) */
  gboolean *grad_done;        /* per unit: its gradient allocated this step (microbatches accumulate) */
} Walk;

static void
put (Walk *w, gint64 ts, double bytes)
{
  Delta d = { ts, w->deltas->len, bytes };
  if (bytes != 0)
    g_array_append_val (w->deltas, d);
}

static int
delta_cmp (gconstpointer a, gconstpointer b)
{
  const Delta *x = a, *y = b;
  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

static double
loss_tv (const Shape *s)
{
  return s->T * s->V / s->tp;
}

/* the unit a forward module span stands for; -1 for none */
static int
module_unit (const Shape *s, const char *name, gboolean *backward)
{
  const char *p;
  int i;

  *backward = FALSE;
  if (g_str_equal (name, "nn.Module: Embedding_0"))
    return 0;
  if (g_str_equal (name, "nn.Module: Linear_0"))
    return s->L + 1;
  if (!g_str_has_prefix (name, "nn.Module: TransformerBlock_"))
    return -1;
  p = name + strlen ("nn.Module: TransformerBlock_");
  i = atoi (p);
  *backward = g_str_has_suffix (p, ".backward");
  return i >= 0 && i < s->L ? 1 + i : -1;
}

static void
walk_persistent (Walk *w, gint64 ts)
{
  const Shape *s = &w->s;
  double local = 0;

  for (int u = 0; u < s->n_units; u++)
    if (s->present[u])
      local += unit_local (s, u);
  put (w, ts, 4 * local);          /* fp32 parameters */
  put (w, ts, 8 * local);          /* AdamW exp_avg, exp_avg_sq */
  if (s->ddp)
    put (w, ts, 4 * local);        /* the reducer's buckets */
  w->persistent_done = TRUE;
}

/* a module span of the forward (unit u): FSDP's parameters arrive by their
 * all-gathers; without FSDP the bf16 casts of the unit's weights (autocast)
 * are kept for the backward by the matmuls */
static void
walk_forward_module (Walk *w, const WeftComposeSpan *sp, int u)
{
  const Shape *s = &w->s;
  double TV = loss_tv (s);

  w->cur_fwd = u;
  if (!s->fsdp)
    put (w, sp->begin_ns, 2 * unit_full (s, u));
  if (u >= 1 && u <= s->L)
    {
      double saved = act_block (s, u - 1, s->ac);
      double work = act_working (s, u - 1) + (act_block (s, u - 1, WEFT_AC_NONE) - saved);
      gint64 mid = sp->begin_ns + (sp->end_ns - sp->begin_ns) / 2;
      put (w, mid, work + saved);
      put (w, sp->end_ns, -work);
    }
  else if (u == s->L + 1)
    {
      /* the final norm's input and output, the bf16 logits */
      put (w, sp->end_ns, 2 * s->Tn * s->h + 2 * s->T * s->h + 2 * TV);
    }
}

static void
walk_span (Walk *w, const WeftComposeSpan *sp)
{
  const Shape *s = &w->s;
  const char *n = sp->name;
  double TV = loss_tv (s);
  gboolean bwd_module;
  int u;

  if (!w->persistent_done)
    walk_persistent (w, sp->begin_ns);
  if (g_str_has_prefix (n, "ProfilerStep#"))
    {
      w->backward = FALSE;
      w->fwd_ag = 0;
      w->bwd_ag = s->L;
      w->bwd_rs = s->L + 1;
      w->cur_bwd = s->L + 2;
      w->output_bwd_done = FALSE;
      memset (w->grad_done, 0, sizeof (gboolean) * s->n_units);
      return;
    }
  u = module_unit (s, n, &bwd_module);
  if (u >= 0 && !bwd_module)
    {
      walk_forward_module (w, sp, u);
      return;
    }
  if (u >= 1 && bwd_module)
    {
      /* block backward: recompute what AC dropped, the working buffers,
       * the gradients of the weights (FSDP: unsharded bf16 until the
       * reduce-scatter; else fp32 .grad kept until zero_grad) */
      double saved = act_block (s, u - 1, s->ac);
      double recompute = act_block (s, u - 1, WEFT_AC_NONE) - saved;
      double work = act_working (s, u - 1);
      double g = w->grad_done[u] ? 0 : s->fsdp ? 2 * unit_full (s, u) : 4 * unit_full (s, u);
      put (w, sp->begin_ns, recompute + work + g);
      put (w, sp->end_ns, -(recompute + work + saved));
      w->grad_done[u] = TRUE;
      if (!s->fsdp)
        {
          put (w, sp->end_ns, -2 * unit_full (s, u));
          w->grads_live += g;
        }
      return;
    }
  if (g_str_equal (n, "FSDP::all_gather"))
    {
      int au = w->backward ? w->bwd_ag-- : w->fwd_ag++;
      if (!w->backward && s->n_present < s->n_units)   /* a pipeline stage gathers its own units */
        au = au < s->n_present ? s->order[au] : -1;
      if (au >= 0 && au < s->n_units)
        put (w, sp->begin_ns, 2 * unit_full (s, au));
      return;
    }
  if (g_str_equal (n, "FSDP::post_forward"))
    {
      if (s->p->reshard_after_forward && w->cur_fwd >= 1 && w->cur_fwd <= s->L)
        put (w, sp->end_ns, -2 * unit_full (s, w->cur_fwd));
      return;
    }
  if (g_str_equal (n, "aten::cross_entropy_loss"))
    {
      /* logits.float(), the log-softmax kept; the bf16 logits freed */
      put (w, sp->begin_ns, 8 * TV);
      put (w, sp->end_ns, -4 * TV - 2 * TV);
      return;
    }
  if (g_str_equal (n, "autograd::engine::evaluate_function: LogSoftmaxBackward0"))
    {
      w->backward = TRUE;
      w->output_bwd_done = FALSE;   /* one per microbatch under pipeline parallel */
      put (w, sp->begin_ns, 4 * TV);
      put (w, sp->end_ns, -4 * TV - 4 * TV + 2 * TV);
      return;
    }
  if (g_str_equal (n, "FSDP::pre_backward"))
    {
      w->backward = TRUE;
      w->cur_bwd--;
      return;
    }
  if ((g_str_equal (n, "autograd::engine::evaluate_function: MmBackward0") && w->backward && !w->output_bwd_done
       && s->present[s->L + 1])
      || g_str_equal (n, "autograd::engine::evaluate_function: EmbeddingBackward0"))
    {
      gboolean out = strstr (n, "MmBackward0") != NULL;

      w->output_bwd_done = w->output_bwd_done || out;
      int ou = out ? s->L + 1 : 0;
      double g = w->grad_done[ou] ? 0 : s->fsdp ? 2 * unit_full (s, ou) : 4 * unit_full (s, ou);
      w->grad_done[ou] = TRUE;
      put (w, sp->begin_ns, g);
      if (out)   /* the logits' gradient, the final norm's saved tensors */
        put (w, sp->end_ns, -2 * TV - 2 * s->Tn * s->h - 2 * s->T * s->h);
      if (!s->fsdp)
        {
          put (w, sp->end_ns, -2 * unit_full (s, ou));
          w->grads_live += g;
        }
      return;
    }
  if (g_str_equal (n, "FSDP::post_backward_reduce"))
    {
      int ru = w->bwd_rs--;
      if (s->n_present < s->n_units)   /* a pipeline stage reduces its own units, last first */
        ru = ru - (s->n_units - s->n_present) >= 0 ? s->order[ru - (s->n_units - s->n_present)] : -1;
      if (ru < 0 || ru >= s->n_units)
        return;
      /* the bf16 gradient cast into the fp32 reduce-scatter input (the
       * previous one released), the fp32 shard of the result; the unit
       * resharded */
      put (w, sp->begin_ns, 4 * unit_full (s, ru) - w->rs_live - 2 * unit_full (s, ru) + 4 * unit_local (s, ru));
      w->rs_live = 4 * unit_full (s, ru);
      w->grads_live += 4 * unit_local (s, ru);
      put (w, sp->end_ns, -2 * unit_full (s, ru));
      return;
    }
  if (g_str_equal (n, "FSDP::root_post_backward"))
    {
      put (w, sp->begin_ns, -w->rs_live);
      w->rs_live = 0;
      return;
    }
  if (g_str_equal (n, "Optimizer.zero_grad#AdamW.zero_grad"))
    {
      put (w, sp->begin_ns, -w->grads_live);
      w->grads_live = 0;
    }
}

static gint64
round_large (gint64 bytes)
{
  gint64 r = (gint64) ROUND_LARGE;
  return (bytes + r - 1) / r * r;
}

GArray *
weft_compose_memory_timeline (const WeftComposeParams *params,
                              WeftAcMode               ac,
                              const WeftComposeSpan   *spans,
                              guint                    n_spans,
                              gint64                  *peak_reserved)
{
  Walk w;
  GArray *out = g_array_new (FALSE, FALSE, sizeof (WeftMemorySample));
  gint64 alloc = 0, reserved = 0;

  g_return_val_if_fail (params != NULL && (spans != NULL || n_spans == 0), out);
  memset (&w, 0, sizeof w);
  shape_init (&w.s, params, ac);
  w.deltas = g_array_new (FALSE, FALSE, sizeof (Delta));
  w.bwd_ag = w.s.L;
  w.bwd_rs = w.s.L + 1;
  w.cur_bwd = w.s.L + 2;
  w.grad_done = g_new0 (gboolean, w.s.n_units);
  if (params->pp > 1)
    {
      /* a pipeline rank runs only its stages' units: those whose forward
       * module spans it has */
      gboolean bwd;
      memset (w.s.present, 0, sizeof (gboolean) * w.s.n_units);
      for (guint i = 0; i < n_spans; i++)
        {
          int u = module_unit (&w.s, spans[i].name, &bwd);
          if (u >= 0 && !bwd)
            w.s.present[u] = TRUE;
        }
      w.s.n_present = 0;
      for (int u = 0; u < w.s.n_units; u++)
        if (w.s.present[u])
          w.s.order[w.s.n_present++] = u;
    }
  for (guint i = 0; i < n_spans; i++)
    walk_span (&w, &spans[i]);
  g_array_sort (w.deltas, delta_cmp);
  for (guint i = 0; i < w.deltas->len; i++)
    {
      const Delta *d = &g_array_index (w.deltas, Delta, i);
      gint64 b = (gint64) llround (d->bytes);
      WeftMemorySample sm;

      if (b == 0)
        continue;
      alloc += b;
      /* the cache keeps freed blocks: reserved is the high-water mark of
       * the allocated total, in 2 MiB granules */
      reserved = MAX (reserved, round_large (alloc));
      sm.ts_ns = d->ts;
      sm.bytes = b;
      sm.allocated = alloc;
      sm.reserved = reserved;
      g_array_append_val (out, sm);
    }
  if (peak_reserved != NULL)
    *peak_reserved = reserved;
  g_array_free (w.deltas, TRUE);
  g_free (w.grad_done);
  shape_clear (&w.s);
  return out;
}

GArray *
weft_compose_memory_timeline_from_trace (const WeftComposeParams *params,
                                         WeftAcMode               ac,
                                         WeftTrace               *trace,
                                         guint                    rank_index,
                                         gint64                  *peak_reserved)
{
  WeftRank *rank;
  g_autoptr (GArray) spans = g_array_new (FALSE, FALSE, sizeof (WeftComposeSpan));

  g_return_val_if_fail (trace != NULL && rank_index < trace->ranks->len, NULL);
  rank = weft_trace_rank (trace, rank_index);
  for (guint i = 0; i < rank->events->len; i++)
    {
      const WeftEvent *ev = &g_array_index (rank->events, WeftEvent, i);
      WeftComposeSpan sp;
      if (ev->ph != WEFT_PH_X || (ev->flags & WEFT_EVENT_DELETED)
          || (ev->category != WEFT_CAT_USER_ANNOTATION && ev->category != WEFT_CAT_PYTHON_FUNCTION
              && ev->category != WEFT_CAT_CPU_OP))
        continue;
      sp.name = weft_rank_string (rank, ev->name);
      sp.begin_ns = ev->ts;
      sp.end_ns = weft_event_end (ev);
      g_array_append_val (spans, sp);
    }
  /* the composer writes the CPU thread sorted by start, so this is its
   * program order; a stable sort keeps it for other files */
  return weft_compose_memory_timeline (params, ac, (const WeftComposeSpan *) (const void *) spans->data, spans->len, peak_reserved);
}

/* ---- throughput ---------------------------------------------------------------- */

double
weft_compose_flops_per_token (const WeftComposeParams *params)
{
  const WeftModelShape *m = &params->model;
  double h = m->hidden, d = (double) m->hidden / m->heads;
  double n = 0;

  g_return_val_if_fail (params != NULL, 0);
  for (int i = 0; i < m->layers; i++)
    {
      n += h * m->heads * d * 2 + h * m->kv_heads * d * 2 + 2 * h;
      if (is_moe_block (m, i))
        n += h * m->experts + 3.0 * h * m->moe_ffn * m->top_k;   /* the active experts */
      else
        n += 3.0 * h * m->ffn;
    }
  n += h + (double) m->vocab * h;   /* final norm, output; the embedding is left out */
  return 6 * n + 12.0 * m->layers * m->heads * d * m->seq;
}

double
weft_compose_tokens_per_step (const WeftComposeParams *params)
{
  g_return_val_if_fail (params != NULL, 0);
  return (double) params->dp * params->model.mbs * params->model.seq;
}

/* ---- the [memory] events of a composed file ---------------------------------------- */

static void
put_us (GString *out, gint64 ns)
{
  if (ns < 0)
    {
      g_string_append_c (out, '-');
      ns = -ns;
    }
  g_string_append_printf (out, "%" G_GINT64_FORMAT ".%03d", ns / 1000, (int) (ns % 1000));
}

void
_weft_compose_memory_write_events (GString                 *out,
                                   const WeftComposeParams *params,
                                   WeftAcMode               ac,
                                   const GArray            *spans,
                                   int                      pid,
                                   int                      dev)
{
  g_autoptr (GArray) tl = weft_compose_memory_timeline (params, ac, (const WeftComposeSpan *) (const void *) spans->data,
                                                        spans->len, NULL);
  /* stand-in addresses: one per allocation, reused LIFO by its free */
  g_autoptr (GArray) live = g_array_new (FALSE, FALSE, sizeof (gint64));
  gint64 next_addr = G_GINT64_CONSTANT (0x7f2000000000) + (gint64) dev * G_GINT64_CONSTANT (0x10000000000);

  for (guint i = 0; i < tl->len; i++)
    {
      const WeftMemorySample *sm = &g_array_index (tl, WeftMemorySample, i);
      gint64 addr;

      if (sm->bytes > 0)
        {
          addr = next_addr;
          next_addr += round_large (sm->bytes);
          g_array_append_val (live, addr);
        }
      else if (live->len > 0)
        {
          addr = g_array_index (live, gint64, live->len - 1);
          g_array_set_size (live, live->len - 1);
        }
      else
        addr = next_addr;
      g_string_append_printf (out,
                              "  {\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", "
                              "\"name\": \"[memory]\", \"pid\": %d, \"tid\": %d, \"ts\": ",
                              pid, pid);
      put_us (out, sm->ts_ns);
      g_string_append_printf (out,
                              ", \"args\": {\"Total Reserved\": %" G_GINT64_FORMAT
                              ", \"Total Allocated\": %" G_GINT64_FORMAT
                              ", \"Bytes\": %" G_GINT64_FORMAT ", \"Addr\": %" G_GINT64_FORMAT
                              ", \"Device Id\": %d, \"Device Type\": 1}},\n",
                              sm->reserved, sm->allocated, sm->bytes, addr, dev);
    }
}
