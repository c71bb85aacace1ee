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

#include "weft/weft-pipeline.h"
#include "compose-allocator-private.h"
#include "compose-memory-private.h"

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

/* ---- pipeline stages ---------------------------------------------------------------- */

/* stage j's units (embedding on the first, output on the last): their
 * local elements, and the activations a microbatch leaves saved there */
static void
stage_units (const Shape *s, const WeftComposeParams *p, int j, int n_stages, double *local, double *act, int *blocks)
{
  int lo, hi;

  weft_compose_pp_stage_blocks (p, j, &lo, &hi);
  if (j == 0)
    *local += unit_local (s, 0);
  for (int l = lo; l < hi; l++)
    {
      *local += unit_local (s, 1 + l);
      *act += act_block (s, l, s->ac);
    }
  *blocks += hi - lo;
  if (j == n_stages - 1)
    {
      *local += unit_local (s, s->L + 1);
      *act += 4 * s->T * s->V / s->tp;   /* the fp32 log-softmax kept for the loss backward */
    }
}

typedef struct
{
  gint64  ts;
  guint32 event;
  int     stage;
  int     delta;   /* +1: a forward; -1: a backward (B or I) */
} StageMark;

static int
mark_cmp (gconstpointer a, gconstpointer b)
{
  const StageMark *x = a, *y = b;

  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  return x->event < y->event ? -1 : x->event > y->event;
}

gboolean
weft_compose_memory_stage_figures (const WeftComposeParams *params, WeftAcMode ac, const WeftRank *rank,
                                   WeftMemoryStageFigures *out)
{
  Shape s;
  int n_stages, inner;
  double local = 0, act_stage[256] = { 0 }, live = 0;
  int live_n = 0;
  g_autoptr (GArray) marks = NULL;

  g_return_val_if_fail (params != NULL && rank != NULL && out != NULL, FALSE);
  memset (out, 0, sizeof *out);
  if (params->pp < 2 || !(params->strategies & WEFT_STRATEGY_PP))
    return FALSE;
  n_stages = params->pp * weft_compose_pp_stages_per_rank (params);
  if (n_stages > (int) G_N_ELEMENTS (act_stage))
    return FALSE;
  inner = MAX (weft_compose_world_size (params) / params->pp, 1);
  shape_init (&s, params, ac);
  out->stage_rank = CLAMP (rank->rank / inner, 0, params->pp - 1);
  for (int j = 0; j < n_stages; j++)
    {
      double a = 0;
      if (weft_compose_pp_stage_rank (params, j) != out->stage_rank || out->n_stages >= WEFT_MEMORY_MAX_STAGES)
        continue;
      out->stages[out->n_stages++] = j;
      stage_units (&s, params, j, n_stages, &local, &a, &out->blocks);
      act_stage[j] = a;
      out->act_microbatch += a;
    }
  out->params = 4 * local;
  out->grads = 4 * local;
  out->optimizer = 8 * local;
  /* the schedule as the rank ran it: its PP actions in program order */
  marks = g_array_new (FALSE, FALSE, sizeof (StageMark));
  for (guint32 i = 0; i < rank->events->len; i++)
    {
      const WeftEvent *e = &g_array_index (rank->events, WeftEvent, i);
      WeftPpAction a;
      StageMark mk;
      if (e->ph != WEFT_PH_X || e->category != WEFT_CAT_USER_ANNOTATION || (e->flags & WEFT_EVENT_DELETED)
          || !weft_pp_action_parse (weft_rank_string (rank, e->name), &a) || a.kind == 'W' || a.stage >= n_stages)
        continue;
      mk.ts = e->ts;
      mk.event = i;
      mk.stage = a.stage;
      mk.delta = a.kind == 'F' ? 1 : -1;
      g_array_append_val (marks, mk);
    }
  g_array_sort (marks, mark_cmp);
  for (guint k = 0; k < marks->len; k++)
    {
      const StageMark *mk = &g_array_index (marks, StageMark, k);
      live_n += mk->delta;
      live += mk->delta * act_stage[mk->stage];
      out->in_flight_max = MAX (out->in_flight_max, live_n);
      out->act_in_flight_max = MAX (out->act_in_flight_max, live);
    }
  shape_clear (&s);
  return TRUE;
}

/* ---- the timeline: tensors ------------------------------------------------------- */

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

/* the streams whose pools the tensors come from (the composer's ids) */
enum { ST_COMPUTE = 7, ST_AG = 13, ST_RS = 17 };

/* cuBLAS workspaces: PyTorch allocates one per (handle, stream) through
 * the caching allocator (aten/src/ATen/cuda/CUDABlasHandlePool.cpp,
 * getChosenWorkspaceSize: 32 MiB on Hopper); the forward runs on the main
 * thread, the backward on autograd's device thread: two handles */
#define CUBLAS_WORKSPACE (32.0 * 1024 * 1024)
/* the CUDA context and the libraries' own buffers outside the allocator,
 * kept off the capacity the allocator may reserve: an estimate */
#define CONTEXT_BYTES (512.0 * 1024 * 1024)

typedef struct
{
  gint64   ts;
  guint    order;
  int      tensor;
  gint64   bytes;     /* > 0: allocate the tensor; 0: free it */
  int      stream;
  gboolean first;     /* only in the first step of the run (AdamW's lazy state) */
} Op;

#define N_LISTS_PER_UNIT 4
enum { L_SAVED, L_UNSHARDED, L_GRAD_UNSHARDED, L_BF16 };

typedef struct
{
  Shape   s;
  GArray *ops;       /* Op */
  GArray *init;      /* Op: before the first step (the model's parameters) */
  int     n_tensors;
  GArray **lists;    /* n_units x N_LISTS_PER_UNIT of int */
  int     *ag;       /* per unit: the all-gather output in flight, -1 */
  GArray  *grads;    /* gradient shards (FSDP) or .grad (no FSDP) until zero_grad */
  /* the walk */
  gboolean backward, persistent_done, output_bwd_done, adam_done;
  int      fwd_ag, bwd_ag, fwd_co, bwd_co, bwd_rs, cur_fwd, cur_bwd;
  int      rs_in;    /* FSDP: the fp32 reduce-scatter input in flight */
  int      dflow;    /* the gradient flowing back into the unit being differentiated */
  int      logits, logits_f32, lsm, lsm_grad;
  gboolean *grad_done; /* per unit: its weight gradients allocated this step (microbatches accumulate) */
} Walk;

static GArray *
ulist (Walk *w, int u, int which)
{
  return w->lists[u * N_LISTS_PER_UNIT + which];
}

static int
talloc_on (Walk *w, GArray *ops, gint64 ts, double bytes, int stream, gboolean first)
{
  Op o = { ts, ops->len, w->n_tensors++, (gint64) llround (MAX (bytes, 1)), stream, first };
  g_array_append_val (ops, o);
  return o.tensor;
}

static int
talloc (Walk *w, gint64 ts, double bytes, int stream)
{
  return talloc_on (w, w->ops, ts, bytes, stream, FALSE);
}

static void
tfree (Walk *w, gint64 ts, int tensor)
{
  Op o = { ts, w->ops->len, tensor, 0, 0, FALSE };
  if (tensor >= 0)
    g_array_append_val (w->ops, o);
}

/* Pipeline parallel runs a unit's forward once per microbatch before their
 * backwards (GPipe: all m; 1F1B: up to p in flight): a unit's saved
 * tensors are kept per microbatch, each forward's group after a
 * separator, and a backward frees the oldest group (microbatches go back
 * in the order they went forward, as torch.distributed.pipelining's
 * schedules run them). */
#define GROUP_SEP (-2)

static void
tfree_list (Walk *w, gint64 ts, GArray *l)
{
  for (guint i = 0; i < l->len; i++)
    if (g_array_index (l, int, i) != GROUP_SEP)
      tfree (w, ts, g_array_index (l, int, i));
  g_array_set_size (l, 0);
}

static void
list_add (GArray *l, int tensor)
{
  g_array_append_val (l, tensor);
}

static void
list_open_group (GArray *l)
{
  if (l->len > 0)
    list_add (l, GROUP_SEP);
}

static void
tfree_first_group (Walk *w, gint64 ts, GArray *l)
{
  guint i = 0;

  for (; i < l->len && g_array_index (l, int, i) != GROUP_SEP; i++)
    tfree (w, ts, g_array_index (l, int, i));
  g_array_remove_range (l, 0, MIN (i + 1, l->len));
}

/* the parameters of unit u, elements on this rank before FSDP shards them
 * (TP shards applied); *experts: how many of them are expert weights (last) */
static int
unit_params (const Shape *s, int u, double *out, int *experts)
{
  const WeftModelShape *m = &s->p->model;
  double h = s->h, tp = s->tp;
  int n = 0;

  *experts = 0;
  if (u == 0)
    out[n++] = s->V * h / tp;
  else if (u == s->L + 1)
    {
      out[n++] = h;
      out[n++] = s->V * h / tp;
    }
  else
    {
      double d = h / m->heads;
      out[n++] = h;                                   /* attention_norm */
      out[n++] = h * m->heads * d / tp;               /* wq */
      out[n++] = h * m->kv_heads * d / tp;            /* wk */
      out[n++] = h * m->kv_heads * d / tp;            /* wv */
      out[n++] = h * m->heads * d / tp;               /* wo */
      out[n++] = h;                                   /* ffn_norm */
      if (is_moe_block (m, u - 1))
        {
          out[n++] = h * m->experts / tp;             /* router */
          for (int k = 0; k < 3; k++)
            out[n++] = h * (double) m->moe_ffn * m->experts / MAX (s->p->ep, 1);
          *experts = 3;
        }
      else
        for (int k = 0; k < 3; k++)
          out[n++] = h * m->ffn / tp;                 /* w1, w2, w3 */
    }
  return n;
}

static double
param_local (const Shape *s, double elems, gboolean expert)
{
  return expert ? elems / s->shard_experts : elems / s->shard;
}

/* fp32 parameter shards (one tensor per parameter, as FSDP2's DTensors)
 * and AdamW's exp_avg / exp_avg_sq, allocated lazily by the first
 * optimizer step (torch.optim.AdamW._init_group) */
static void
walk_persistent (Walk *w, gint64 ts, gboolean adam, gint64 adam_ts)
{
  const Shape *s = &w->s;

  for (int u = 0; u < s->n_units; u++)
    {
      double el[16];
      int ne, n = s->present[u] ? unit_params (s, u, el, &ne) : 0;
      for (int k = 0; k < n; k++)
        {
          double local = param_local (s, el[k], k >= n - ne);
          if (!adam)
            {
              talloc_on (w, w->init, ts, 4 * local, ST_COMPUTE, FALSE);
              if (s->ddp)   /* the reducer's bucket views */
                talloc_on (w, w->init, ts, 4 * local, ST_COMPUTE, FALSE);
            }
          else
            {
              talloc_on (w, w->ops, adam_ts, 4 * local, ST_COMPUTE, TRUE);
              talloc_on (w, w->ops, adam_ts, 4 * local, ST_COMPUTE, TRUE);
            }
        }
    }
  if (!adam)
    for (int k = 0; k < 2; k++)
      talloc_on (w, w->init, ts, CUBLAS_WORKSPACE, ST_COMPUTE, FALSE);
}

/* times inside a span: step i of n */
static gint64
at (const WeftComposeSpan *sp, int i, int n)
{
  return sp->begin_ns + (sp->end_ns - sp->begin_ns) * i / MAX (n, 1);
}

/* The tensors of a dense block's forward, in op order, with what each AC
 * mode saves for the backward (their sums are act_block()'s figures). */
typedef struct
{
  double   bytes;
  gboolean none, sel;   /* saved under AC none / selective (op) */
  gboolean eager_only;  /* Inductor fuses it away when compiled */
  int      free_after;  /* a transient: freed after this many more tensors (0: at the block's end) */
} FwdTensor;

static int
dense_forward (const Shape *s, FwdTensor *t)
{
  double T = s->T, Tn = s->Tn, h = s->h, q = s->h / s->tp, kv = s->kv, f = s->f;
  int n = 0;
#define FT(b, no, se, eo, fa) t[n++] = (FwdTensor) { (b), (no), (se), (eo), (fa) }
  FT (4 * Tn * h, FALSE, FALSE, TRUE, 1);     /* attention_norm: x.float() */
  FT (4 * Tn * h, FALSE, FALSE, TRUE, 1);     /* x * rsqrt(mean(x^2)) */
  FT (2 * Tn * h, TRUE, FALSE, FALSE, 0);     /* the norm's output */
  FT (8 * Tn, TRUE, FALSE, FALSE, 0);         /* both norms' fp32 rstd */
  FT (2 * T * q, TRUE, TRUE, FALSE, 0);       /* wq */
  FT (2 * T * kv, TRUE, FALSE, FALSE, 0);     /* wk */
  FT (2 * T * kv, TRUE, TRUE, FALSE, 0);      /* wv */
  FT (4 * T * q, FALSE, FALSE, TRUE, 1);      /* RoPE: q as complex fp32 */
  FT (2 * T * q, FALSE, FALSE, TRUE, 3);      /* repeat_kv: K expanded */
  FT (2 * T * q, FALSE, FALSE, TRUE, 2);      /* repeat_kv: V expanded */
  FT (2 * T * q, TRUE, TRUE, FALSE, 0);       /* SDPA's output */
  FT (4 * T * s->nh, TRUE, TRUE, FALSE, 0);   /* its logsumexp */
  FT (2 * T * h, FALSE, FALSE, FALSE, 1);     /* wo */
  FT (2 * T * h, TRUE, FALSE, FALSE, 0);      /* h = x + attention */
  FT (4 * Tn * h, FALSE, FALSE, TRUE, 1);     /* ffn_norm: h.float() */
  FT (4 * Tn * h, FALSE, FALSE, TRUE, 1);     /* h * rsqrt(...) */
  FT (2 * T * h, TRUE, FALSE, FALSE, 0);      /* the norm's output */
  FT (2 * T * f, TRUE, TRUE, FALSE, 0);       /* w1 */
  FT (2 * T * f, TRUE, FALSE, FALSE, 0);      /* w3 */
  FT (2 * T * f, TRUE, FALSE, TRUE, 0);       /* silu(w1) */
  FT (2 * T * f, TRUE, FALSE, FALSE, 0);      /* silu(w1) * w3 */
  FT (2 * T * h, FALSE, TRUE, FALSE, 0);      /* w2 */
#undef FT
  return n;
}

static gboolean
fwd_saved (const FwdTensor *t, WeftAcMode ac)
{
  return ac == WEFT_AC_NONE ? t->none : ac == WEFT_AC_SELECTIVE_OP ? t->sel : FALSE;
}

/* a block's AC mode as the composer applies it (selective-layer: every
 * N-th block full, the others none) */
static WeftAcMode
block_ac (const Shape *s, int layer)
{
  if (s->ac == WEFT_AC_SELECTIVE_LAYER)
    return (layer + 1) % MAX (s->p->ac_layer_freq, 1) == 0 ? WEFT_AC_FULL : WEFT_AC_NONE;
  return s->ac;
}

/* the block's forward tensors from ts0 to ts1; saved ones go to out
 * (recompute: everything not saved, kept for the backward, no transients) */
static void
block_tensors (Walk *w, int u, const WeftComposeSpan *sp, gboolean recompute, GArray *keep)
{
  const Shape *s = &w->s;
  WeftAcMode ac = block_ac (s, u - 1);
  FwdTensor t[32];
  int ids[32], n;

  if (is_moe_block (&s->p->model, u - 1))
    {
      /* MoE: what the mode saves (less the block output, counted by the
       * next unit) and the expert intermediates as one working buffer */
      double saved = act_block (s, u - 1, ac) - 2 * s->Tn * s->h;
      double all = act_block (s, u - 1, WEFT_AC_NONE) - 2 * s->Tn * s->h;
      int work = talloc (w, at (sp, 1, 4), act_working (s, u - 1), ST_COMPUTE);
      if (recompute)
        list_add (keep, talloc (w, at (sp, 0, 4), all - saved, ST_COMPUTE));
      else if (saved > 0)
        list_add (keep, talloc (w, at (sp, 1, 4), saved, ST_COMPUTE));
      tfree (w, at (sp, 3, 4), work);
      return;
    }
  n = dense_forward (s, t);
  for (int i = 0; i < n; i++)
    {
      gboolean saved = fwd_saved (&t[i], ac);
      ids[i] = -1;
      if (!(t[i].eager_only && s->p->compile) && !(recompute && (saved || t[i].free_after > 0)))
        {
          ids[i] = talloc (w, at (sp, recompute ? 0 : i + 1, recompute ? 1 : n + 2), t[i].bytes, ST_COMPUTE);
          if (recompute || saved)
            list_add (keep, ids[i]);
        }
      for (int j = 0; j < i; j++)   /* transients whose consumer ran */
        if (ids[j] >= 0 && t[j].free_after > 0 && j + t[j].free_after == i)
          {
            tfree (w, at (sp, i + 1, n + 2), ids[j]);
            ids[j] = -1;
          }
    }
  if (recompute)
    return;
  for (int i = 0; i < n; i++)   /* what the mode does not save */
    if (ids[i] >= 0 && !fwd_saved (&t[i], ac))
      tfree (w, sp->end_ns, ids[i]);
  if (s->p->cp > 1 && (s->p->strategies & WEFT_STRATEGY_CP))   /* the ring's K/V chunks */
    {
      int kv = talloc (w, at (sp, 3, n + 2), 2 * 2 * 2 * s->T * s->kv, ST_COMPUTE);
      tfree (w, at (sp, 11, n + 2), kv);
    }
}

/* a module span of the forward (unit u) */
static void
walk_forward_module (Walk *w, const WeftComposeSpan *sp, int u)
{
  const Shape *s = &w->s;
  double TV = loss_tv (s);

  w->cur_fwd = u;
  if (!s->fsdp)   /* autocast's bf16 weight copies, kept by the matmuls */
    {
      list_open_group (ulist (w, u, L_BF16));
      list_add (ulist (w, u, L_BF16), talloc (w, sp->begin_ns, 2 * unit_full (s, u), ST_COMPUTE));
    }
  /* a stage's first unit: its input came from the previous stage (the
   * receive's buffer): its microbatch's group starts here */
  if (u >= 1 && !s->present[u - 1])
    list_open_group (ulist (w, u, L_SAVED));
  if (u == 0)
    {
      /* the embedding's output: the first block's input */
      if (s->present[1])
        {
          list_open_group (ulist (w, 1, L_SAVED));
          list_add (ulist (w, 1, L_SAVED), talloc (w, sp->end_ns, 2 * s->Tn * s->h, ST_COMPUTE));
        }
    }
  else if (u <= s->L)
    {
      int out;
      block_tensors (w, u, sp, FALSE, ulist (w, u, L_SAVED));
      /* the block's output: the next unit's input; a stage's last block's
       * output is sent on, and kept for this stage's backward of it */
      out = talloc (w, sp->end_ns, 2 * s->Tn * s->h, ST_COMPUTE);
      if (s->present[u + 1])
        {
          list_open_group (ulist (w, u + 1, L_SAVED));
          list_add (ulist (w, u + 1, L_SAVED), out);
        }
      else
        list_add (ulist (w, u, L_SAVED), out);
    }
  else
    {
      /* the final norm's output (the output GEMM's input), the bf16 logits */
      int a = s->p->compile ? -1 : talloc (w, at (sp, 1, 4), 4 * s->Tn * s->h, ST_COMPUTE);
      list_add (ulist (w, u, L_SAVED), talloc (w, at (sp, 2, 4), 2 * s->T * s->h, ST_COMPUTE));
      tfree (w, at (sp, 2, 4), a);
      w->logits = talloc (w, sp->end_ns, 2 * TV, ST_COMPUTE);
    }
}

/* the gradients of unit u's weights: FSDP's unsharded bf16 (until the
 * reduce-scatter), else fp32 .grad (until zero_grad) */
static void
weight_grads (Walk *w, int u, gint64 ts)
{
  const Shape *s = &w->s;
  double el[16];
  int ne, n = unit_params (s, u, el, &ne);

  if (w->grad_done[u])   /* a later microbatch accumulates into them */
    return;
  w->grad_done[u] = TRUE;
  for (int k = 0; k < n; k++)
    {
      if (s->fsdp)
        list_add (ulist (w, u, L_GRAD_UNSHARDED), talloc (w, ts, 2 * el[k], ST_COMPUTE));
      else
        list_add (w->grads, talloc (w, ts, 4 * el[k], ST_COMPUTE));
    }
}

/* a block's backward: the recomputed forward, the gradients of its ops,
 * its weight gradients, the gradient of its input */
static void
walk_block_backward (Walk *w, const WeftComposeSpan *sp, int u)
{
  const Shape *s = &w->s;
  g_autoptr (GArray) rec = g_array_new (FALSE, FALSE, sizeof (int));
  double T = s->T, q = s->h / s->tp, f = s->f, h = s->h;
  int mlp[3], att[4], din, dnorm;

  if (block_ac (s, u - 1) != WEFT_AC_NONE)
    block_tensors (w, u, sp, TRUE, rec);
  /* the MLP's backward: d(w2 input), d(w1), d(w3); then w2, w1, w3 grads */
  for (int k = 0; k < 3; k++)
    mlp[k] = talloc (w, at (sp, 2 + k, 12), is_moe_block (&s->p->model, u - 1) ? act_working (s, u - 1) / 2 : 2 * T * f,
                     ST_COMPUTE);
  weight_grads (w, u, at (sp, 4, 12));
  dnorm = s->p->compile ? -1 : talloc (w, at (sp, 5, 12), 4 * s->Tn * h, ST_COMPUTE);
  for (int k = 0; k < 3; k++)
    tfree (w, at (sp, 5, 12), mlp[k]);
  tfree (w, at (sp, 6, 12), dnorm);
  /* attention's backward: dq's fp32 accumulator, dq, dK, dV (expanded),
   * then summed over the repeated heads */
  att[0] = talloc (w, at (sp, 6, 12), 4 * T * q, ST_COMPUTE);
  att[1] = talloc (w, at (sp, 7, 12), 2 * T * q, ST_COMPUTE);
  att[2] = talloc (w, at (sp, 7, 12), 2 * T * q, ST_COMPUTE);
  att[3] = talloc (w, at (sp, 7, 12), 2 * T * q, ST_COMPUTE);
  tfree (w, at (sp, 8, 12), att[0]);
  for (int k = 1; k < 4; k++)
    tfree (w, at (sp, 10, 12), att[k]);
  din = talloc (w, at (sp, 11, 12), 2 * s->Tn * h, ST_COMPUTE);
  tfree (w, at (sp, 11, 12), w->dflow);
  w->dflow = din;
  tfree_list (w, sp->end_ns, rec);
  tfree_first_group (w, sp->end_ns, ulist (w, u, L_SAVED));
  if (!s->fsdp)
    tfree_first_group (w, sp->end_ns, ulist (w, u, L_BF16));
}

static void
walk_fsdp (Walk *w, const WeftComposeSpan *sp)
{
  const Shape *s = &w->s;
  const char *n = sp->name;

  if (g_str_equal (n, "FSDP::all_gather"))
    {
      int au = w->backward ? w->bwd_ag-- : w->fwd_ag++;
      if (!w->backward && s->n_present < s->n_units)   /* a pipeline stage gathers its own units */
        au = au < s->n_present ? s->order[au] : -1;
      if (au >= 0 && au < s->n_units)
        {
          /* FSDP2 foreach_all_gather: the flat output, on the copy-in
           * stream (float8 all-gather: 1 byte per block weight) */
          double per = (s->p->float8_all_gather && au >= 1 && au <= s->L) ? 1 : 2;
          tfree (w, sp->begin_ns, w->ag[au]);
          w->ag[au] = talloc (w, sp->begin_ns, per * unit_full (s, au), ST_AG);
        }
    }
  else if (g_str_equal (n, "FSDP::all_gather_copy_out"))
    {
      int cu = w->backward ? w->bwd_co-- : w->fwd_co++;
      if (!w->backward && s->n_present < s->n_units)
        cu = cu < s->n_present ? s->order[cu] : -1;
      if (cu >= 0 && cu < s->n_units && w->ag[cu] >= 0)
        {
          double el[16];
          int ne, np = unit_params (s, cu, el, &ne);
          double per = (s->p->float8_all_gather && cu >= 1 && cu <= s->L) ? 1 : 2;
          for (int k = 0; k < np; k++)   /* the unsharded parameters, one per parameter */
            list_add (ulist (w, cu, L_UNSHARDED), talloc (w, sp->begin_ns, per * el[k], ST_COMPUTE));
          tfree (w, sp->end_ns, w->ag[cu]);
          w->ag[cu] = -1;
        }
    }
  else if (g_str_equal (n, "FSDP::post_forward"))
    {
      if (s->p->reshard_after_forward && w->cur_fwd >= 1 && w->cur_fwd <= s->L)
        tfree_list (w, sp->end_ns, ulist (w, w->cur_fwd, L_UNSHARDED));
    }
  else if (g_str_equal (n, "FSDP::pre_backward"))
    {
      w->backward = TRUE;
      w->cur_bwd--;
    }
  else if (g_str_equal (n, "FSDP::post_backward_reduce"))
    {
      int ru = w->bwd_rs--;
      double el[16];
      int ne, np;
      if (s->n_present < s->n_units)   /* a pipeline stage reduces its own units, last first */
        ru = ru - (s->n_units - s->n_present) >= 0 ? s->order[ru - (s->n_units - s->n_present)] : -1;
      if (ru < 0 || ru >= s->n_units)
        return;
      /* foreach_reduce: the fp32 reduce-scatter input (chunk_cat of the
       * bf16 gradients, freed), the previous input released, the fp32
       * output holding the new gradient shards; the unit resharded */
      tfree (w, sp->begin_ns, w->rs_in);
      w->rs_in = talloc (w, sp->begin_ns, 4 * unit_full (s, ru), ST_RS);
      tfree_list (w, sp->begin_ns, ulist (w, ru, L_GRAD_UNSHARDED));
      np = unit_params (s, ru, el, &ne);
      (void) np;
      list_add (w->grads, talloc (w, sp->begin_ns, 4 * unit_local (s, ru), ST_RS));
      tfree_list (w, sp->end_ns, ulist (w, ru, L_UNSHARDED));
    }
  else if (g_str_equal (n, "FSDP::root_post_backward"))
    {
      tfree (w, sp->begin_ns, w->rs_in);
      w->rs_in = -1;
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
    {
      walk_persistent (w, sp->begin_ns, FALSE, 0);
      w->persistent_done = TRUE;
    }
  if (g_str_has_prefix (n, "ProfilerStep#"))
    {
      w->backward = FALSE;
      w->fwd_ag = w->fwd_co = 0;
      w->bwd_ag = w->bwd_co = s->L;
      w->bwd_rs = s->L + 1;
      w->cur_bwd = s->L + 2;
      w->output_bwd_done = FALSE;
      memset (w->grad_done, 0, sizeof (gboolean) * s->n_units);
      return;
    }
  u = module_unit (s, n, &bwd_module);
  if (u >= 0 && !bwd_module)
    walk_forward_module (w, sp, u);
  else if (u >= 1 && bwd_module)
    walk_block_backward (w, sp, u);
  else if (g_str_has_prefix (n, "FSDP::"))
    walk_fsdp (w, sp);
  else if (g_str_equal (n, "aten::cross_entropy_loss"))
    {
      /* pred.float(), log_softmax kept for the backward; the bf16 logits
       * (`del pred`) and the fp32 copy freed */
      w->logits_f32 = talloc (w, sp->begin_ns, 4 * TV, ST_COMPUTE);
      w->lsm = talloc (w, at (sp, 1, 2), 4 * TV, ST_COMPUTE);
      tfree (w, sp->end_ns, w->logits_f32);
      tfree (w, sp->end_ns, w->logits);
    }
  else if (g_str_equal (n, "autograd::engine::evaluate_function: LogSoftmaxBackward0"))
    {
      /* NLLLoss's gradient (fp32, dense), log_softmax's, then the bf16
       * gradient of the logits (ToCopyBackward) */
      int nll = talloc (w, sp->begin_ns, 4 * TV, ST_COMPUTE);
      /* the gradient a stage's first block sent back for the previous
       * microbatch (pipeline parallel: the last stage runs one loss per
       * microbatch) */
      tfree (w, sp->begin_ns, w->dflow);
      w->dflow = -1;
      w->backward = TRUE;
      w->output_bwd_done = FALSE;   /* one per microbatch under pipeline parallel */
      w->lsm_grad = talloc (w, at (sp, 1, 3), 4 * TV, ST_COMPUTE);
      tfree (w, at (sp, 2, 3), nll);
      tfree (w, at (sp, 2, 3), w->lsm);
      w->dflow = talloc (w, sp->end_ns, 2 * TV, ST_COMPUTE);
      tfree (w, sp->end_ns, w->lsm_grad);
    }
  else if ((g_str_equal (n, "autograd::engine::evaluate_function: MmBackward0") && w->backward && !w->output_bwd_done
            && s->present[s->L + 1])
           || g_str_equal (n, "autograd::engine::evaluate_function: EmbeddingBackward0"))
    {
      gboolean out = strstr (n, "MmBackward0") != NULL;
      int ou = out ? s->L + 1 : 0;

      w->output_bwd_done = w->output_bwd_done || out;
      weight_grads (w, ou, sp->begin_ns);
      if (out)
        {
          /* the gradient of the final norm's output, then of its input
           * (the last block's output): what flows into the blocks */
          int dn = talloc (w, at (sp, 1, 2), 2 * s->T * s->h, ST_COMPUTE);
          tfree (w, at (sp, 1, 2), w->dflow);
          w->dflow = talloc (w, sp->end_ns, 2 * s->Tn * s->h, ST_COMPUTE);
          tfree (w, sp->end_ns, dn);
          tfree_first_group (w, sp->end_ns, ulist (w, ou, L_SAVED));
        }
      else
        {
          tfree (w, sp->end_ns, w->dflow);
          w->dflow = -1;
        }
      if (!s->fsdp)
        tfree_first_group (w, sp->end_ns, ulist (w, ou, L_BF16));
    }
  else if (g_str_equal (n, "Optimizer.step#AdamW.step") && !w->adam_done)
    {
      walk_persistent (w, sp->begin_ns, TRUE, sp->begin_ns);
      w->adam_done = TRUE;
    }
  else if (g_str_equal (n, "Optimizer.zero_grad#AdamW.zero_grad"))
    tfree_list (w, sp->begin_ns, w->grads);
}

/* what a step left alive is freed when it ends (every step allocates the
 * same again) */
static void
walk_finish (Walk *w, gint64 ts)
{
  for (int i = 0; i < w->s.n_units * N_LISTS_PER_UNIT; i++)
    tfree_list (w, ts, w->lists[i]);
  for (int u = 0; u < w->s.n_units; u++)
    {
      tfree (w, ts, w->ag[u]);
      w->ag[u] = -1;
    }
  tfree_list (w, ts, w->grads);
  tfree (w, ts, w->rs_in);
  tfree (w, ts, w->dflow);
  w->rs_in = w->dflow = -1;
}

static int
op_cmp (gconstpointer a, gconstpointer b)
{
  const Op *x = a, *y = b;
  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

/* runs ops through the allocator; handles[] maps tensors to blocks; with
 * out, appends the samples */
static void
replay (WeftAllocSim *sim, const GArray *ops, int *handles, gint64 *addrs, gboolean first, GArray *out)
{
  for (guint i = 0; i < ops->len; i++)
    {
      const Op *o = &g_array_index (ops, Op, i);
      WeftMemorySample sm;

      if (o->first && !first)
        continue;
      if (o->bytes > 0)
        {
          handles[o->tensor] = _weft_alloc_sim_malloc (sim, o->bytes, o->stream, &sm.bytes, &sm.addr);
          addrs[o->tensor] = sm.addr;
        }
      else
        {
          int hd = handles[o->tensor];
          if (hd < 0)
            continue;
          handles[o->tensor] = -1;
          sm.addr = addrs[o->tensor];
          sm.bytes = -_weft_alloc_sim_release (sim, hd);
        }
      if (out == NULL)
        continue;
      sm.ts_ns = o->ts;
      sm.allocated = _weft_alloc_sim_allocated (sim);
      sm.reserved = _weft_alloc_sim_reserved (sim);
      g_array_append_val (out, sm);
    }
}

/* steps run before the recorded one, at most: the allocator's cache
 * reaches its steady state (torchtitan reads its figures at step 90) */
#define WARMUP_STEPS 8

GArray *
_weft_compose_memory_timeline_full (const WeftComposeParams *params,
                                    WeftAcMode               ac,
                                    const WeftComposeSpan   *spans,
                                    guint                    n_spans,
                                    gboolean                 expandable,
                                    WeftMemoryPeaks         *peaks)
{
  Walk w;
  GArray *out = g_array_new (FALSE, FALSE, sizeof (WeftMemorySample));
  WeftAllocSim *sim;
  int *handles;
  gint64 *addrs;
  double nccl;
  gint64 cap, before;

  memset (&w, 0, sizeof w);
  shape_init (&w.s, params, ac);
  w.ops = g_array_new (FALSE, FALSE, sizeof (Op));
  w.init = g_array_new (FALSE, FALSE, sizeof (Op));
  w.grads = g_array_new (FALSE, FALSE, sizeof (int));
  w.lists = g_new0 (GArray *, (gsize) w.s.n_units * N_LISTS_PER_UNIT);
  for (int i = 0; i < w.s.n_units * N_LISTS_PER_UNIT; i++)
    w.lists[i] = g_array_new (FALSE, FALSE, sizeof (int));
  w.ag = g_new (int, w.s.n_units);
  for (int i = 0; i < w.s.n_units; i++)
    w.ag[i] = -1;
  w.rs_in = w.dflow = w.logits = w.logits_f32 = w.lsm = w.lsm_grad = -1;
  w.bwd_ag = w.bwd_co = w.s.L;
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
  walk_finish (&w, n_spans ? spans[n_spans - 1].end_ns : 0);
  g_array_sort (w.ops, op_cmp);

  (void) communicators (params, &w.s, &nccl);
  cap = params->hw.hbm_total_bytes - (gint64) nccl - (gint64) CONTEXT_BYTES;
  sim = _weft_alloc_sim_new (expandable, MAX (cap, 0));
  handles = g_new (int, MAX (w.n_tensors, 1));
  addrs = g_new0 (gint64, MAX (w.n_tensors, 1));
  for (int i = 0; i < w.n_tensors; i++)
    handles[i] = -1;
  replay (sim, w.init, handles, addrs, TRUE, NULL);
  /* warm-up steps until the cache stops growing; the first allocates
   * AdamW's state */
  before = -1;
  for (int k = 0; k < WARMUP_STEPS && _weft_alloc_sim_reserved (sim) != before; k++)
    {
      before = _weft_alloc_sim_reserved (sim);
      replay (sim, w.ops, handles, addrs, k == 0, NULL);
    }
  _weft_alloc_sim_reset_peaks (sim);
  replay (sim, w.ops, handles, addrs, FALSE, out);
  if (peaks != NULL)
    {
      peaks->reserved = _weft_alloc_sim_peak_reserved (sim);
      peaks->allocated = _weft_alloc_sim_peak_allocated (sim);
      peaks->retries = _weft_alloc_sim_retries (sim);
    }
  g_free (handles);
  g_free (addrs);
  _weft_alloc_sim_free (sim);
  for (int i = 0; i < w.s.n_units * N_LISTS_PER_UNIT; i++)
    g_array_free (w.lists[i], TRUE);
  g_free (w.lists);
  g_free (w.ag);
  g_free (w.grad_done);
  g_array_free (w.grads, TRUE);
  g_array_free (w.ops, TRUE);
  g_array_free (w.init, TRUE);
  shape_clear (&w.s);
  return out;
}

GArray *
weft_compose_memory_timeline (const WeftComposeParams *params,
                              WeftAcMode               ac,
                              const WeftComposeSpan   *spans,
                              guint                    n_spans,
                              gint64                  *peak_reserved)
{
  WeftMemoryPeaks pk;
  GArray *out;

  g_return_val_if_fail (params != NULL && (spans != NULL || n_spans == 0),
                        g_array_new (FALSE, FALSE, sizeof (WeftMemorySample)));
  /* torchtitan's launch script: PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True" */
  out = _weft_compose_memory_timeline_full (params, ac, spans, n_spans, TRUE, &pk);
  if (peak_reserved != NULL)
    {
      /* the recorded step's own peak (the cache it starts with included) */
      gint64 r = 0;
      for (guint i = 0; i < out->len; i++)
        r = MAX (r, g_array_index (out, WeftMemorySample, i).reserved);
      *peak_reserved = r;
    }
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
      sp.end_ns = weft_event_end (rank, ev);
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
  for (guint i = 0; i < tl->len; i++)
    {
      const WeftMemorySample *sm = &g_array_index (tl, WeftMemorySample, i);
      /* the simulated allocator's block address, one device apart */
      gint64 addr = sm->addr + (gint64) dev * G_GINT64_CONSTANT (0x100000000000);

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
