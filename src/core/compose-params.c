/* compose-params.c: composer parameters, model presets, validation. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "weft/weft-compose.h"

#include "util-private.h"

typedef struct
{
  const char    *name;
  WeftModelShape shape;
} ModelPreset;

/* Llama 3 shapes from Meta's model cards / torchtitan's llama3 args:
 * 8B: 32 layers, dim 4096, FFN 14336, 32 heads, 8 KV heads, vocab 128256.
 * 70B: 80 layers, dim 8192, FFN 28672, 64 heads, 8 KV heads.
 * moe-small: a 16-expert top-2 MoE of the size torchtitan's debug MoE models
 * use (every block MoE, expert hidden 1408). */
static const ModelPreset model_presets[] = {
  { "llama3-8b", { "llama3-8b", 32, 4096, 14336, 32, 8, 8192, 1, 128256, 0, 0, 0, 1 } },
  { "llama3-70b", { "llama3-70b", 80, 8192, 28672, 64, 8, 8192, 1, 128256, 0, 0, 0, 1 } },
  { "moe-small", { "moe-small", 16, 2048, 5632, 16, 16, 4096, 1, 32000, 16, 2, 1408, 1 } },
  /* Llama 3.1 405B (torchtitan's llama3 "405B" args): 126 layers, dim
   * 16384, FFN 53248, 128 heads, 8 KV heads */
  { "llama3-405b", { "llama3-405b", 126, 16384, 53248, 128, 8, 8192, 1, 128256, 0, 0, 0, 1 } },
};

static const char *model_preset_names[] = { "llama3-8b", "llama3-70b", "moe-small", "llama3-405b", NULL };

const char * const *
weft_compose_preset_names (void)
{
  return model_preset_names;
}

void
weft_compose_params_init (WeftComposeParams *params)
{
  memset (params, 0, sizeof *params);
  params->model = model_presets[0].shape;
  params->model.layers = 4;
  params->hw = *weft_hardware_preset ("h100");
  params->eff.gemm = 0.65;
  params->eff.attention = 335.0 / 989.0;   /* FlashAttention-2's measured plateau over the SXM5 peak (compose-attention.c) */
  params->eff.memory = 0.75;
  params->eff.kernel_overhead_ns = 1500;
  params->strategies = WEFT_STRATEGY_FSDP;
  params->dp = 8;
  params->tp = 1;
  params->cp = 1;
  params->ep = 1;
  params->dp_replicate = 1;
  params->pp = 1;
  params->pp_schedule = WEFT_PP_1F1B;
  params->fsdp_prefetch = TRUE;
  params->reshard_after_forward = TRUE;
  params->ddp_bucket_mb = 25.0;
  params->cp_mode = WEFT_CP_ALL_GATHER;
  params->ac = WEFT_AC_NONE;
  params->ac_layer_freq = 2;
  params->steps = 1;
  params->iteration = 10;
  params->seed = 1;
  params->jitter = 0.03;
  params->base_time_ns = G_GINT64_CONSTANT (1779926400000000000);
}

gboolean
weft_compose_params_set_preset (WeftComposeParams *params, const char *preset, GError **error)
{
  for (guint i = 0; i < G_N_ELEMENTS (model_presets); i++)
    if (g_ascii_strcasecmp (model_presets[i].name, preset) == 0)
      {
        params->model = model_presets[i].shape;
        return TRUE;
      }
  g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
               "unknown model preset '%s' (known: llama3-8b, llama3-70b, llama3-405b, moe-small)", preset);
  return FALSE;
}

gboolean
weft_compose_params_set_hardware (WeftComposeParams *params, const char *hw, GError **error)
{
  const WeftHardware *h = weft_hardware_preset (hw);

  if (h == NULL)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
                   "unknown hardware preset '%s' (known: h100, h100-hbm2e-500w, h200)", hw);
      return FALSE;
    }
  params->hw = *h;
  return TRUE;
}

gboolean
weft_compose_parse_ac (const char *text, WeftAcMode *mode, int *layer_freq, GError **error)
{
  if (text == NULL)
    text = "";
  if (g_ascii_strcasecmp (text, "none") == 0)
    *mode = WEFT_AC_NONE;
  else if (g_ascii_strcasecmp (text, "selective") == 0 || g_ascii_strcasecmp (text, "selective-op") == 0
           || g_ascii_strcasecmp (text, "op") == 0)
    *mode = WEFT_AC_SELECTIVE_OP;
  else if (g_ascii_strcasecmp (text, "full") == 0)
    *mode = WEFT_AC_FULL;
  else if (g_ascii_strcasecmp (text, "selective-layer") == 0 || g_ascii_strcasecmp (text, "layer") == 0)
    {
      *mode = WEFT_AC_SELECTIVE_LAYER;
      *layer_freq = 2;
    }
  else if (g_ascii_strncasecmp (text, "layer:", 6) == 0 || g_ascii_strncasecmp (text, "selective-layer:", 16) == 0)
    {
      const char *num = strchr (text, ':') + 1;
      char *end = NULL;
      gint64 n = g_ascii_strtoll (num, &end, 10);

      if (end == num || *end != '\0' || n < 1 || n > 128)
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "activation checkpointing '%s': N must be 1..128", text);
          return FALSE;
        }
      *mode = WEFT_AC_SELECTIVE_LAYER;
      *layer_freq = (int) n;
    }
  else
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
                   "unknown activation checkpointing '%s' (none, selective, selective-layer[:N], full)", text);
      return FALSE;
    }
  return TRUE;
}

const char *
weft_compose_ac_to_string (WeftAcMode mode)
{
  switch (mode)
    {
    case WEFT_AC_SELECTIVE_OP:
      return "selective";
    case WEFT_AC_SELECTIVE_LAYER:
      return "selective-layer";
    case WEFT_AC_FULL:
      return "full";
    case WEFT_AC_NONE:
    default:
      return "none";
    }
}

static const struct
{
  const char  *name;
  WeftStrategy flag;
} strategy_names[] = {
  { "ddp", WEFT_STRATEGY_DDP }, { "fsdp", WEFT_STRATEGY_FSDP }, { "tp", WEFT_STRATEGY_TP },
  { "ep", WEFT_STRATEGY_EP },   { "cp", WEFT_STRATEGY_CP },   { "pp", WEFT_STRATEGY_PP },
};

gboolean
weft_compose_parse_strategies (const char *text, guint *strategies, GError **error)
{
  g_auto (GStrv) parts = NULL;
  guint flags = 0;

  if (text == NULL || *text == '\0')
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "empty strategy list");
      return FALSE;
    }
  parts = g_strsplit_set (text, ",+", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      gboolean found = FALSE;
      char *p = g_strstrip (parts[i]);

      if (*p == '\0')
        continue;
      if (g_ascii_strcasecmp (p, "fsdp2") == 0 || g_ascii_strcasecmp (p, "zero3") == 0)
        p = (char *) "fsdp";
      for (guint k = 0; k < G_N_ELEMENTS (strategy_names); k++)
        if (g_ascii_strcasecmp (strategy_names[k].name, p) == 0)
          {
            flags |= strategy_names[k].flag;
            found = TRUE;
          }
      if (!found)
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
                       "unknown strategy '%s' (known: ddp, fsdp, tp, ep, cp, pp)", p);
          return FALSE;
        }
    }
  if (flags == 0)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "empty strategy list");
      return FALSE;
    }
  *strategies = flags;
  return TRUE;
}

/* One vocabulary with Apply (weft_apply_strategy_from_string): besides the
 * flags, "tp-sp" (or "sp") is TP with sequence parallelism, "cp-ring" and
 * "cp-allgather" are CP in that mode. */
gboolean
weft_compose_params_set_strategies (WeftComposeParams *params, const char *text, GError **error)
{
  static const struct
  {
    const char *name, *flag;
    int         sp;      /* 1: sequence parallel */
    int         cp_mode; /* -1: unchanged */
  } forms[] = {
    { "tp-sp", "tp", 1, -1 },        { "tp+sp", "tp", 1, -1 },     { "sp", "tp", 1, -1 },
    { "cp-ring", "cp", 0, WEFT_CP_RING }, { "cp-allgather", "cp", 0, WEFT_CP_ALL_GATHER },
    { "cp-all-gather", "cp", 0, WEFT_CP_ALL_GATHER },
  };
  g_auto (GStrv) parts = NULL;
  g_autoptr (GString) flags = g_string_new (NULL);
  gboolean sp = FALSE;
  int cp_mode = -1;

  g_return_val_if_fail (params != NULL, FALSE);
  if (text == NULL)
    return weft_compose_parse_strategies (text, &params->strategies, error);
  /* "tp+sp" is one form: keep it whole before splitting on '+' */
  {
    g_autofree char *t = g_strdup (text);
    char *hit;
    while ((hit = strstr (t, "tp+sp")) != NULL || (hit = strstr (t, "TP+SP")) != NULL)
      hit[2] = '-';
    parts = g_strsplit_set (t, ",+", -1);
  }
  for (guint i = 0; parts[i] != NULL; i++)
    {
      const char *p = g_strstrip (parts[i]);
      for (guint k = 0; k < G_N_ELEMENTS (forms); k++)
        if (g_ascii_strcasecmp (p, forms[k].name) == 0)
          {
            p = forms[k].flag;
            sp = sp || forms[k].sp;
            if (forms[k].cp_mode >= 0)
              cp_mode = forms[k].cp_mode;
            break;
          }
      g_string_append_printf (flags, "%s%s", flags->len > 0 ? "," : "", p);
    }
  if (!weft_compose_parse_strategies (flags->str, &params->strategies, error))
    return FALSE;
  if (sp)
    params->sequence_parallel = TRUE;
  if (cp_mode >= 0)
    params->cp_mode = (WeftCpMode) cp_mode;
  return TRUE;
}

char *
weft_compose_strategies_to_string (guint strategies)
{
  GString *s = g_string_new (NULL);

  for (guint k = 0; k < G_N_ELEMENTS (strategy_names); k++)
    if (strategies & strategy_names[k].flag)
      {
        if (s->len > 0)
          g_string_append_c (s, '+');
        g_string_append (s, strategy_names[k].name);
      }
  return g_string_free (s, FALSE);
}

#define INVALID(...)                                                    \
  do                                                                    \
    {                                                                   \
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, __VA_ARGS__); \
      return FALSE;                                                     \
    }                                                                   \
  while (0)

int
weft_compose_world_size (const WeftComposeParams *p)
{
  return MAX (p->pp, 1) * MAX (p->dp, 1) * MAX (p->cp, 1) * MAX (p->tp, 1);
}

static const struct
{
  const char    *name;
  WeftPpSchedule schedule;
} pp_schedule_names[] = {
  { "1f1b", WEFT_PP_1F1B },       { "gpipe", WEFT_PP_GPIPE },           { "interleaved-1f1b", WEFT_PP_INTERLEAVED_1F1B },
  { "looped-bfs", WEFT_PP_LOOPED_BFS }, { "zb", WEFT_PP_ZB },         { "interleaved", WEFT_PP_INTERLEAVED_1F1B },
  { "zero-bubble", WEFT_PP_ZB },  { "interleaved1f1b", WEFT_PP_INTERLEAVED_1F1B }, { "loopedbfs", WEFT_PP_LOOPED_BFS },
  { "zbv", WEFT_PP_ZBV },         { "dualpipev", WEFT_PP_DUALPIPEV },   { "zbvzerobubble", WEFT_PP_ZBV },
};

gboolean
weft_compose_parse_pp_schedule (const char *text, WeftPpSchedule *schedule, GError **error)
{
  g_return_val_if_fail (schedule != NULL, FALSE);
  for (guint i = 0; text != NULL && i < G_N_ELEMENTS (pp_schedule_names); i++)
    if (g_ascii_strcasecmp (text, pp_schedule_names[i].name) == 0)
      {
        *schedule = pp_schedule_names[i].schedule;
        return TRUE;
      }
  g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
               "unknown pipeline schedule '%s' (gpipe, 1f1b, interleaved-1f1b, looped-bfs, zb, zbv, dualpipev)", text ? text : "");
  return FALSE;
}

const char *
weft_compose_pp_schedule_name (guint i)
{
  /* each schedule's first entry is its name, the aliases follow */
  guint seen = 0;
  for (guint k = 0; k < G_N_ELEMENTS (pp_schedule_names); k++)
    {
      gboolean first = TRUE;
      for (guint j = 0; j < k && first; j++)
        first = pp_schedule_names[j].schedule != pp_schedule_names[k].schedule;
      if (first && seen++ == i)
        return pp_schedule_names[k].name;
    }
  return NULL;
}

const char *
weft_compose_pp_schedule_to_string (WeftPpSchedule schedule)
{
  for (guint i = 0; i < G_N_ELEMENTS (pp_schedule_names); i++)
    if (pp_schedule_names[i].schedule == schedule)
      return pp_schedule_names[i].name;
  return "1f1b";
}

int
weft_compose_pp_microbatches (const WeftComposeParams *p)
{
  g_return_val_if_fail (p != NULL, 1);
  return p->microbatches > 0 ? p->microbatches : MAX (p->model.mbs, 1);
}

static gboolean
pp_looped (WeftPpSchedule s)
{
  return s == WEFT_PP_INTERLEAVED_1F1B || s == WEFT_PP_LOOPED_BFS;
}

/* ZBV, DualPipeV: two stages per rank in a V (PyTorch's style="v") */
static gboolean
pp_vshape (WeftPpSchedule s)
{
  return s == WEFT_PP_ZBV || s == WEFT_PP_DUALPIPEV;
}

int
weft_compose_pp_stages_per_rank (const WeftComposeParams *p)
{
  g_return_val_if_fail (p != NULL, 1);
  if (p->pp_stages_per_rank > 0)
    return p->pp_stages_per_rank;
  return pp_looped (p->pp_schedule) || pp_vshape (p->pp_schedule) ? 2 : 1;
}

int
weft_compose_pp_stage_rank (const WeftComposeParams *p, int stage)
{
  int pp;

  g_return_val_if_fail (p != NULL && stage >= 0, 0);
  pp = MAX (p->pp, 1);
  if (pp_vshape (p->pp_schedule) && stage >= pp)
    return MAX (2 * pp - 1 - stage, 0);
  return stage % pp;
}

void
weft_compose_pp_stage_blocks (const WeftComposeParams *p, int stage, int *first, int *end)
{
  gint64 n, L;

  g_return_if_fail (p != NULL && first != NULL && end != NULL);
  n = (gint64) MAX (p->pp, 1) * weft_compose_pp_stages_per_rank (p);
  L = p->model.layers;
  stage = CLAMP (stage, 0, (int) n - 1);
  *first = (int) (stage * L / n);
  *end = (int) ((stage + 1) * L / n);
}

/* The pipeline's parameters (after the degrees are checked). */
static gboolean
validate_pp (const WeftComposeParams *p, GError **error)
{
  const WeftModelShape *m = &p->model;
  int mb, v;

  if (p->pp < 1 || p->pp > 64)
    INVALID ("pp %d out of range 1..64", p->pp);
  if (p->pp > 1 && !(p->strategies & WEFT_STRATEGY_PP))
    INVALID ("pp %d needs pp in the strategy list", p->pp);
  if ((p->strategies & WEFT_STRATEGY_PP) && p->pp < 2)
    INVALID ("strategy pp needs --pp >= 2");
  if (p->pp < 2)
    return TRUE;
  if (p->strategies & WEFT_STRATEGY_DDP)
    INVALID ("pp with ddp is not modelled (torchtitan combines pp with fsdp, tp, cp, ep)");
  if ((int) p->pp_schedule < WEFT_PP_1F1B || (int) p->pp_schedule > WEFT_PP_DUALPIPEV)
    INVALID ("pipeline schedule %d out of range", (int) p->pp_schedule);
  mb = weft_compose_pp_microbatches (p);
  v = weft_compose_pp_stages_per_rank (p);
  if (p->microbatches < 0 || mb > 256)
    INVALID ("microbatches %d out of range 1..256", p->microbatches);
  if (m->mbs % mb != 0)
    INVALID ("the local batch (mbs %d) must split into %d microbatches", m->mbs, mb);
  if (p->pp_stages_per_rank < 0 || v > 16)
    INVALID ("stages per rank %d out of range 1..16", p->pp_stages_per_rank);
  if (pp_vshape (p->pp_schedule) && v != 2)
    INVALID ("%s runs exactly 2 stages per rank (a V), as PyTorch requires",
             weft_compose_pp_schedule_to_string (p->pp_schedule));
  if (p->pp_schedule == WEFT_PP_DUALPIPEV && mb < 2 * p->pp)
    INVALID ("dualpipev: microbatches %d must be >= the %d stages (as ScheduleDualPipeV requires)", mb, 2 * p->pp);
  if (v > 1 && !pp_looped (p->pp_schedule) && !pp_vshape (p->pp_schedule) && p->pp_schedule != WEFT_PP_ZB)
    INVALID ("%s runs one stage per rank (--pp-stages-per-rank 1)", weft_compose_pp_schedule_to_string (p->pp_schedule));
  if (pp_looped (p->pp_schedule) && v < 2)
    INVALID ("%s needs --pp-stages-per-rank >= 2", weft_compose_pp_schedule_to_string (p->pp_schedule));
  if (p->pp_schedule == WEFT_PP_1F1B && mb < p->pp)
    INVALID ("1f1b: microbatches %d must be >= the %d stages (as Schedule1F1B requires)", mb, p->pp);
  if ((p->pp_schedule == WEFT_PP_INTERLEAVED_1F1B || p->pp_schedule == WEFT_PP_ZB) && mb % MAX (1, mb / p->pp) != 0)
    INVALID ("%s: microbatches %d must be a multiple of the rounds (max (1, m / pp) = %d), as PyTorch requires",
             weft_compose_pp_schedule_to_string (p->pp_schedule), mb, MAX (1, mb / p->pp));
  if (m->layers < p->pp * v)
    INVALID ("%d layers cannot fill %d x %d pipeline stages", m->layers, p->pp, v);
  return TRUE;
}

gboolean
weft_compose_params_validate (const WeftComposeParams *p, GError **error)
{
  const WeftModelShape *m = &p->model;
  int world;

  if (p->dp < 1 || p->tp < 1 || p->cp < 1 || p->ep < 1)
    INVALID ("parallel degrees must be >= 1 (dp %d, tp %d, cp %d, ep %d)", p->dp, p->tp, p->cp, p->ep);
  if (p->dp > WEFT_COMPOSE_MAX_RANKS || p->tp > WEFT_COMPOSE_MAX_RANKS || p->cp > WEFT_COMPOSE_MAX_RANKS
      || p->ep > WEFT_COMPOSE_MAX_RANKS || p->pp > WEFT_COMPOSE_MAX_RANKS)
    INVALID ("parallel degrees must be <= %d", WEFT_COMPOSE_MAX_RANKS);
  world = weft_compose_world_size (p);
  if (world > WEFT_COMPOSE_MAX_RANKS)
    INVALID ("pp x dp x cp x tp = %d ranks: at most %d", world, WEFT_COMPOSE_MAX_RANKS);
  if (!validate_pp (p, error))
    return FALSE;
  if ((p->strategies & (WEFT_STRATEGY_DDP | WEFT_STRATEGY_FSDP)) == (WEFT_STRATEGY_DDP | WEFT_STRATEGY_FSDP))
    INVALID ("ddp and fsdp are alternatives: choose one");
  if (p->strategies == 0)
    INVALID ("no strategy");
  if (p->dp > 1 && !(p->strategies & (WEFT_STRATEGY_DDP | WEFT_STRATEGY_FSDP)))
    INVALID ("dp %d needs ddp or fsdp in the strategy list", p->dp);
  if (p->tp > 1 && !(p->strategies & WEFT_STRATEGY_TP))
    INVALID ("tp %d needs tp in the strategy list", p->tp);
  if (p->cp > 1 && !(p->strategies & WEFT_STRATEGY_CP))
    INVALID ("cp %d needs cp in the strategy list", p->cp);
  if (p->ep > 1 && !(p->strategies & WEFT_STRATEGY_EP))
    INVALID ("ep %d needs ep in the strategy list", p->ep);
  if ((p->strategies & WEFT_STRATEGY_TP) && p->tp < 2)
    INVALID ("strategy tp needs --tp >= 2");
  if ((p->strategies & WEFT_STRATEGY_CP) && p->cp < 2)
    INVALID ("strategy cp needs --cp >= 2");
  if ((p->strategies & WEFT_STRATEGY_EP) && p->ep < 2)
    INVALID ("strategy ep needs --ep >= 2");
  if ((p->strategies & (WEFT_STRATEGY_DDP | WEFT_STRATEGY_FSDP)) && p->dp < 2 && p->cp < 2)
    INVALID ("ddp/fsdp need --dp >= 2");
  if (p->dp_replicate < 1 || p->dp_replicate > p->dp || p->dp % p->dp_replicate != 0)
    INVALID ("dp replicate %d must divide dp %d", p->dp_replicate, p->dp);
  if (p->dp_replicate > 1 && !(p->strategies & WEFT_STRATEGY_FSDP))
    INVALID ("dp replicate (HSDP) needs fsdp");
  if (p->dp_replicate > 1 && p->ep > 1)
    INVALID ("HSDP with ep is not modelled");
  if (p->dp_replicate > 1 && p->dp / p->dp_replicate * p->cp < 2)
    INVALID ("HSDP needs at least 2 shards per replicate (dp / replicate x cp)");
  if (p->ep > 1 && (p->dp * p->cp) % p->ep != 0)
    INVALID ("ep %d must divide dp x cp = %d", p->ep, p->dp * p->cp);
  if (p->ep > 1 && p->tp > 1)
    INVALID ("ep with tp is not modelled (use fsdp+ep or fsdp+tp)");
  if (p->ep > 1 && m->experts < 1)
    INVALID ("ep needs a MoE model (--experts, or --preset moe-small)");
  if (m->experts > 0 && p->ep > 1 && m->experts % p->ep != 0)
    INVALID ("ep %d must divide the number of experts %d", p->ep, m->experts);
  if (m->layers < 1 || m->layers > 128)
    INVALID ("layers %d out of range 1..128", m->layers);
  if (m->hidden < 64 || m->hidden > 65536 || m->heads < 1 || m->hidden % m->heads != 0)
    INVALID ("hidden %d must be a multiple of heads %d (64..65536)", m->hidden, m->heads);
  if (m->kv_heads < 1 || m->heads % m->kv_heads != 0)
    INVALID ("kv heads %d must divide heads %d", m->kv_heads, m->heads);
  if (m->ffn < 1 || m->ffn > 1 << 20 || m->vocab < 1 || m->vocab > 1 << 22)
    INVALID ("ffn %d / vocab %d out of range", m->ffn, m->vocab);
  if (m->seq < 16 || m->seq > 1 << 21 || m->mbs < 1 || m->mbs > 4096)
    INVALID ("seq %d (16..2097152) / mbs %d (1..4096) out of range", m->seq, m->mbs);
  if (m->experts < 0 || m->experts > 1024 || (m->experts > 0 && (m->top_k < 1 || m->top_k > m->experts)))
    INVALID ("experts %d / top-k %d out of range", m->experts, m->top_k);
  if (m->experts > 0 && m->moe_ffn < 1)
    INVALID ("MoE needs an expert hidden size");
  if (p->tp > 1 && (m->heads % p->tp != 0 || m->kv_heads % p->tp != 0 || m->ffn % p->tp != 0))
    INVALID ("tp %d must divide heads %d, kv heads %d and ffn %d", p->tp, m->heads, m->kv_heads, m->ffn);
  if (p->cp > 1 && m->seq % (2 * p->cp) != 0)
    INVALID ("seq %d must be a multiple of 2 x cp (%d)", m->seq, 2 * p->cp);
  if (p->tp > 1 && p->sequence_parallel && (m->seq / p->cp) % p->tp != 0)
    INVALID ("sequence parallel: seq / cp must be a multiple of tp");
  if (p->ac < WEFT_AC_NONE || p->ac > WEFT_AC_FULL || p->ac_layer_freq < 1 || p->ac_layer_freq > 128)
    INVALID ("activation checkpointing mode %d / layer frequency %d out of range", (int) p->ac, p->ac_layer_freq);
  if (p->float8_all_gather && !p->float8)
    INVALID ("float8 all-gather needs float8 linears");
  if (p->float8_all_gather && !(p->strategies & WEFT_STRATEGY_FSDP))
    INVALID ("float8 all-gather needs fsdp");
  if (p->steps < 1 || p->steps > 16)
    INVALID ("steps %d out of range 1..16", p->steps);
  /* memory grows with ranks x blocks x steps (~0.5 KB of DAG per op); a
   * pipeline rank runs its share of the blocks once per microbatch */
  if (p->pp > 1
      && (gint64) world * ((m->layers + p->pp - 1) / p->pp) * weft_compose_pp_microbatches (p) * p->steps
             > WEFT_COMPOSE_MAX_RANK_BLOCKS)
    INVALID ("%d ranks x %d layers / %d stages x %d microbatches x %d steps is too large (at most %d)", world,
             m->layers, p->pp, weft_compose_pp_microbatches (p), p->steps, WEFT_COMPOSE_MAX_RANK_BLOCKS);
  if (p->pp <= 1 && (gint64) world * m->layers * p->steps > WEFT_COMPOSE_MAX_RANK_BLOCKS)
    INVALID ("%d ranks x %d layers x %d steps is too large (at most %d)", world, m->layers, p->steps,
             WEFT_COMPOSE_MAX_RANK_BLOCKS);
  if (p->iteration < p->steps)
    INVALID ("iteration %d must be >= steps %d", p->iteration, p->steps);
  if (p->ddp_bucket_mb <= 0 || p->ddp_bucket_mb > 4096)
    INVALID ("bucket size %.1f MB out of range", p->ddp_bucket_mb);
  if (p->jitter < 0 || p->jitter > 0.5)
    INVALID ("jitter %.3f out of range 0..0.5", p->jitter);
  if (!(p->hw.peak_flops > 0 && isfinite (p->hw.peak_flops)) || !(p->hw.hbm_bytes_per_s > 0 && isfinite (p->hw.hbm_bytes_per_s))
      || !(p->hw.nvlink_bus_bw > 0 && isfinite (p->hw.nvlink_bus_bw)) || !(p->hw.ib_bus_bw > 0 && isfinite (p->hw.ib_bus_bw))
      || p->hw.gpus_per_node < 1 || p->hw.gpus_per_node > 64 || p->hw.nvlink_alpha_ns < 0 || p->hw.ib_alpha_ns < 0
      || p->hw.nvlink_alpha_ns > 1000000000 || p->hw.ib_alpha_ns > 1000000000)
    INVALID ("hardware figures must be positive and finite (latencies 0..1 s, 1..64 GPUs per node)");
  if (!(p->eff.gemm > 0 && p->eff.gemm <= 1) || !(p->eff.attention > 0 && p->eff.attention <= 1)
      || !(p->eff.memory > 0 && p->eff.memory <= 1))
    INVALID ("efficiencies must be in (0, 1]");
  if (!(p->jitter >= 0 && p->jitter <= 0.5) || !(p->ddp_bucket_mb > 0 && p->ddp_bucket_mb <= 4096))
    INVALID ("jitter must be in 0..0.5 and the bucket size in (0, 4096] MB");
  return TRUE;
}

json_object *
weft_compose_params_to_json (const WeftComposeParams *p)
{
  json_object *o = json_object_new_object ();
  json_object *m = json_object_new_object ();
  json_object *h = json_object_new_object ();
  json_object *e = json_object_new_object ();
  g_autofree char *strat = weft_compose_strategies_to_string (p->strategies);

  json_object_object_add (m, "name", json_object_new_string (p->model.name));
  json_object_object_add (m, "layers", json_object_new_int (p->model.layers));
  json_object_object_add (m, "hidden", json_object_new_int (p->model.hidden));
  json_object_object_add (m, "ffn", json_object_new_int (p->model.ffn));
  json_object_object_add (m, "heads", json_object_new_int (p->model.heads));
  json_object_object_add (m, "kv_heads", json_object_new_int (p->model.kv_heads));
  json_object_object_add (m, "seq", json_object_new_int (p->model.seq));
  json_object_object_add (m, "mbs", json_object_new_int (p->model.mbs));
  json_object_object_add (m, "vocab", json_object_new_int (p->model.vocab));
  json_object_object_add (m, "experts", json_object_new_int (p->model.experts));
  json_object_object_add (m, "top_k", json_object_new_int (p->model.top_k));
  json_object_object_add (m, "moe_ffn", json_object_new_int (p->model.moe_ffn));
  json_object_object_add (m, "moe_every", json_object_new_int (p->model.moe_every));
  json_object_object_add (h, "name", json_object_new_string (p->hw.name ? p->hw.name : "custom"));
  json_object_object_add (h, "peak_flops", json_object_new_double (p->hw.peak_flops));
  json_object_object_add (h, "hbm_bytes_per_s", json_object_new_double (p->hw.hbm_bytes_per_s));
  json_object_object_add (h, "nvlink_bus_gbps", json_object_new_double (p->hw.nvlink_bus_bw));
  json_object_object_add (h, "nvlink_alpha_ns", json_object_new_int64 (p->hw.nvlink_alpha_ns));
  json_object_object_add (h, "ib_bus_gbps", json_object_new_double (p->hw.ib_bus_bw));
  json_object_object_add (h, "ib_alpha_ns", json_object_new_int64 (p->hw.ib_alpha_ns));
  json_object_object_add (h, "gpus_per_node", json_object_new_int (p->hw.gpus_per_node));
  json_object_object_add (e, "gemm", json_object_new_double (p->eff.gemm));
  json_object_object_add (e, "attention", json_object_new_double (p->eff.attention));
  json_object_object_add (e, "memory", json_object_new_double (p->eff.memory));
  json_object_object_add (e, "kernel_overhead_ns", json_object_new_int64 (p->eff.kernel_overhead_ns));
  json_object_object_add (e, "calibrated", json_object_new_boolean (p->eff.calibrated));
  json_object_object_add (o, "composer", json_object_new_string (WEFT_VERSION_STRING));
  json_object_object_add (o, "strategy", json_object_new_string (strat));
  json_object_object_add (o, "dp", json_object_new_int (p->dp));
  json_object_object_add (o, "tp", json_object_new_int (p->tp));
  json_object_object_add (o, "cp", json_object_new_int (p->cp));
  json_object_object_add (o, "ep", json_object_new_int (p->ep));
  json_object_object_add (o, "dp_replicate", json_object_new_int (p->dp_replicate));
  json_object_object_add (o, "sequence_parallel", json_object_new_boolean (p->sequence_parallel));
  json_object_object_add (o, "fsdp_prefetch", json_object_new_boolean (p->fsdp_prefetch));
  json_object_object_add (o, "reshard_after_forward", json_object_new_boolean (p->reshard_after_forward));
  json_object_object_add (o, "ddp_bucket_mb", json_object_new_double (p->ddp_bucket_mb));
  json_object_object_add (o, "ep_overlap", json_object_new_boolean (p->ep_overlap));
  json_object_object_add (o, "cp_mode", json_object_new_string (p->cp_mode == WEFT_CP_RING ? "ring" : "allgather"));
  if (p->pp > 1)
    {
      json_object_object_add (o, "pp", json_object_new_int (p->pp));
      json_object_object_add (o, "pp_schedule", json_object_new_string (weft_compose_pp_schedule_to_string (p->pp_schedule)));
      json_object_object_add (o, "microbatches", json_object_new_int (weft_compose_pp_microbatches (p)));
      json_object_object_add (o, "pp_stages_per_rank", json_object_new_int (weft_compose_pp_stages_per_rank (p)));
    }
  /* written only when set, so traces composed without them keep their bytes */
  if (p->ac != WEFT_AC_NONE)
    {
      json_object_object_add (o, "ac", json_object_new_string (weft_compose_ac_to_string (p->ac)));
      if (p->ac == WEFT_AC_SELECTIVE_LAYER)
        json_object_object_add (o, "ac_layer_freq", json_object_new_int (p->ac_layer_freq));
    }
  if (p->compile)
    json_object_object_add (o, "compile", json_object_new_boolean (TRUE));
  if (p->float8)
    json_object_object_add (o, "float8", json_object_new_boolean (TRUE));
  if (p->float8_all_gather)
    json_object_object_add (o, "float8_all_gather", json_object_new_boolean (TRUE));
  json_object_object_add (o, "steps", json_object_new_int (p->steps));
  json_object_object_add (o, "iteration", json_object_new_int (p->iteration));
  json_object_object_add (o, "base_time_ns", json_object_new_int64 (p->base_time_ns));
  json_object_object_add (o, "seed", json_object_new_int64 (p->seed));
  json_object_object_add (o, "jitter", json_object_new_double (p->jitter));
  json_object_object_add (o, "model", m);
  json_object_object_add (o, "hardware", h);
  json_object_object_add (o, "efficiency", e);
  return o;
}

/* An integer field clamped to int; out untouched when absent. */
static void
get_int (json_object *o, const char *key, int *out)
{
  gint64 x;
  if (_weft_json_get_int64 (o, key, &x))
    *out = (int) CLAMP (x, G_MININT32, G_MAXINT32);
}

gboolean
weft_compose_params_from_json (WeftComposeParams *p, json_object *json, GError **error)
{
  json_object *v, *m, *h, *e;
  gint64 seed = p->seed;

  if (json == NULL || !json_object_is_type (json, json_type_object) || !json_object_object_get_ex (json, "composer", &v)
      || !json_object_object_get_ex (json, "strategy", &v) || !json_object_is_type (v, json_type_string))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "not composer parameters (no \"composer\" / \"strategy\")");
      return FALSE;
    }
  if (!weft_compose_parse_strategies (json_object_get_string (v), &p->strategies, error))
    return FALSE;
  get_int (json, "dp", &p->dp);
  get_int (json, "tp", &p->tp);
  get_int (json, "cp", &p->cp);
  get_int (json, "ep", &p->ep);
  get_int (json, "dp_replicate", &p->dp_replicate);
  get_int (json, "pp", &p->pp);
  if (json_object_object_get_ex (json, "pp_schedule", &v) && json_object_is_type (v, json_type_string)
      && !weft_compose_parse_pp_schedule (json_object_get_string (v), &p->pp_schedule, error))
    return FALSE;
  get_int (json, "microbatches", &p->microbatches);
  get_int (json, "pp_stages_per_rank", &p->pp_stages_per_rank);
  _weft_json_get_bool (json, "sequence_parallel", &p->sequence_parallel);
  _weft_json_get_bool (json, "fsdp_prefetch", &p->fsdp_prefetch);
  _weft_json_get_bool (json, "reshard_after_forward", &p->reshard_after_forward);
  _weft_json_get_double (json, "ddp_bucket_mb", &p->ddp_bucket_mb);
  _weft_json_get_bool (json, "ep_overlap", &p->ep_overlap);
  if (json_object_object_get_ex (json, "cp_mode", &v) && json_object_is_type (v, json_type_string))
    p->cp_mode = g_str_equal (json_object_get_string (v), "ring") ? WEFT_CP_RING : WEFT_CP_ALL_GATHER;
  if (json_object_object_get_ex (json, "ac", &v) && json_object_is_type (v, json_type_string)
      && !weft_compose_parse_ac (json_object_get_string (v), &p->ac, &p->ac_layer_freq, error))
    return FALSE;
  get_int (json, "ac_layer_freq", &p->ac_layer_freq);
  _weft_json_get_bool (json, "compile", &p->compile);
  _weft_json_get_bool (json, "float8", &p->float8);
  _weft_json_get_bool (json, "float8_all_gather", &p->float8_all_gather);
  get_int (json, "steps", &p->steps);
  get_int (json, "iteration", &p->iteration);
  _weft_json_get_int64 (json, "base_time_ns", &p->base_time_ns);
  _weft_json_get_int64 (json, "seed", &seed);
  p->seed = (guint32) seed;
  _weft_json_get_double (json, "jitter", &p->jitter);
  if (json_object_object_get_ex (json, "model", &m) && json_object_is_type (m, json_type_object))
    {
      if (json_object_object_get_ex (m, "name", &v) && json_object_is_type (v, json_type_string))
        g_strlcpy (p->model.name, json_object_get_string (v), sizeof p->model.name);
      get_int (m, "layers", &p->model.layers);
      get_int (m, "hidden", &p->model.hidden);
      get_int (m, "ffn", &p->model.ffn);
      get_int (m, "heads", &p->model.heads);
      get_int (m, "kv_heads", &p->model.kv_heads);
      get_int (m, "seq", &p->model.seq);
      get_int (m, "mbs", &p->model.mbs);
      get_int (m, "vocab", &p->model.vocab);
      get_int (m, "experts", &p->model.experts);
      get_int (m, "top_k", &p->model.top_k);
      get_int (m, "moe_ffn", &p->model.moe_ffn);
      get_int (m, "moe_every", &p->model.moe_every);
    }
  if (json_object_object_get_ex (json, "hardware", &h) && json_object_is_type (h, json_type_object))
    {
      const WeftHardware *preset = NULL;
      if (json_object_object_get_ex (h, "name", &v) && json_object_is_type (v, json_type_string))
        preset = weft_hardware_preset (json_object_get_string (v));
      if (preset != NULL)
        p->hw = *preset;
      _weft_json_get_double (h, "peak_flops", &p->hw.peak_flops);
      _weft_json_get_double (h, "hbm_bytes_per_s", &p->hw.hbm_bytes_per_s);
      _weft_json_get_double (h, "nvlink_bus_gbps", &p->hw.nvlink_bus_bw);
      _weft_json_get_int64 (h, "nvlink_alpha_ns", &p->hw.nvlink_alpha_ns);
      _weft_json_get_double (h, "ib_bus_gbps", &p->hw.ib_bus_bw);
      _weft_json_get_int64 (h, "ib_alpha_ns", &p->hw.ib_alpha_ns);
      get_int (h, "gpus_per_node", &p->hw.gpus_per_node);
    }
  if (json_object_object_get_ex (json, "efficiency", &e) && json_object_is_type (e, json_type_object))
    {
      _weft_json_get_double (e, "gemm", &p->eff.gemm);
      _weft_json_get_double (e, "attention", &p->eff.attention);
      _weft_json_get_double (e, "memory", &p->eff.memory);
      _weft_json_get_int64 (e, "kernel_overhead_ns", &p->eff.kernel_overhead_ns);
      _weft_json_get_bool (e, "calibrated", &p->eff.calibrated);
    }
  return weft_compose_params_validate (p, error);
}
