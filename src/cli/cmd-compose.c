/* cmd-compose.c: weft-cli compose: write a composed parallelism template. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "weft/weft.h"
#include "weft/weft-compose.h"
#include "weft/weft-costmodel.h"

/* The command line. */
typedef struct
{
  char    *strategy, *preset, *hw, *out, *format, *calibrate, *cp_mode, *fit_comm, *ac, *pp_schedule;
  int      dp, tp, cp, ep, hsdp, pp, microbatches, pp_stages_per_rank;
  int      layers, seq, mbs, steps, seed;
  int      hidden, ffn, heads, kv_heads, vocab, experts, top_k, moe_ffn;
  double   bucket_mb, jitter;
  double   peak_tflops, hbm_tbps, nvlink_gbps, ib_gbps, nvlink_us, ib_us;
  int      gpus_per_node;
  gboolean sp, no_prefetch, no_reshard, ep_overlap, quiet, json;
  gboolean compile, float8, float8_all_gather;
} ComposeOptions;

static void
compose_options_clear (ComposeOptions *o)
{
  g_free (o->strategy);
  g_free (o->preset);
  g_free (o->hw);
  g_free (o->out);
  g_free (o->format);
  g_free (o->calibrate);
  g_free (o->cp_mode);
  g_free (o->fit_comm);
  g_free (o->ac);
  g_free (o->pp_schedule);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (ComposeOptions, compose_options_clear)

static void
compose_add_entries (GOptionContext *ctx, ComposeOptions *o)
{
  GOptionEntry entries[] = {
    { "strategy", 's', 0, G_OPTION_ARG_STRING, &o->strategy, "Strategies: ddp, fsdp, tp, ep, cp, pp, comma-separated (default fsdp); also as Apply names them: tp-sp, cp-ring, cp-allgather", "LIST" },
    { "dp", 0, 0, G_OPTION_ARG_INT, &o->dp, "Data-parallel degree (DDP replicas / FSDP shards)", "N" },
    { "tp", 0, 0, G_OPTION_ARG_INT, &o->tp, "Tensor-parallel degree", "N" },
    { "cp", 0, 0, G_OPTION_ARG_INT, &o->cp, "Context-parallel degree", "N" },
    { "ep", 0, 0, G_OPTION_ARG_INT, &o->ep, "Expert-parallel degree (divides dp x cp)", "N" },
    { "pp", 0, 0, G_OPTION_ARG_INT, &o->pp, "Pipeline-parallel stages (ranks along pp, outermost)", "N" },
    { "pp-schedule", 0, 0, G_OPTION_ARG_STRING, &o->pp_schedule,
      "Pipeline schedule: 1f1b (default), gpipe, interleaved-1f1b, looped-bfs, zb, zbv, dualpipev", "NAME" },
    { "microbatches", 0, 0, G_OPTION_ARG_INT, &o->microbatches, "Pipeline microbatches per step (default: --mbs, microbatches of 1)", "M" },
    { "pp-stages-per-rank", 0, 0, G_OPTION_ARG_INT, &o->pp_stages_per_rank,
      "Pipeline stages per rank for the looped schedules (default 2; zb 1; zbv and dualpipev exactly 2, a V)", "V" },
    { "hsdp", 0, 0, G_OPTION_ARG_INT, &o->hsdp, "FSDP replicas (HSDP): shard over dp / N, all-reduce across the N", "N" },
    { "preset", 'p', 0, G_OPTION_ARG_STRING, &o->preset, "Model: llama3-8b (default), llama3-70b, llama3-405b, moe-small", "NAME" },
    { "hw", 0, 0, G_OPTION_ARG_STRING, &o->hw, "Hardware: h100 (default), h100-hbm2e-500w, h200", "NAME" },
    { "layers", 0, 0, G_OPTION_ARG_INT, &o->layers, "Transformer blocks (default 4)", "N" },
    { "seq", 0, 0, G_OPTION_ARG_INT, &o->seq, "Sequence length (global, split over cp)", "N" },
    { "mbs", 0, 0, G_OPTION_ARG_INT, &o->mbs, "Micro-batch size per rank", "N" },
    { "hidden", 0, 0, G_OPTION_ARG_INT, &o->hidden, "Model dimension", "N" },
    { "ffn", 0, 0, G_OPTION_ARG_INT, &o->ffn, "MLP hidden size", "N" },
    { "heads", 0, 0, G_OPTION_ARG_INT, &o->heads, "Attention heads", "N" },
    { "kv-heads", 0, 0, G_OPTION_ARG_INT, &o->kv_heads, "KV heads", "N" },
    { "vocab", 0, 0, G_OPTION_ARG_INT, &o->vocab, "Vocabulary size", "N" },
    { "experts", 0, 0, G_OPTION_ARG_INT, &o->experts, "MoE experts (0: dense)", "N" },
    { "top-k", 0, 0, G_OPTION_ARG_INT, &o->top_k, "MoE experts per token", "N" },
    { "moe-ffn", 0, 0, G_OPTION_ARG_INT, &o->moe_ffn, "Expert hidden size", "N" },
    { "peak-tflops", 0, 0, G_OPTION_ARG_DOUBLE, &o->peak_tflops, "Hardware: dense BF16 peak, TFLOP/s", "X" },
    { "hbm-tbps", 0, 0, G_OPTION_ARG_DOUBLE, &o->hbm_tbps, "Hardware: HBM bandwidth, TB/s", "X" },
    { "nvlink-gbps", 0, 0, G_OPTION_ARG_DOUBLE, &o->nvlink_gbps, "Hardware: collective bus bandwidth inside a node, GB/s", "X" },
    { "nvlink-us", 0, 0, G_OPTION_ARG_DOUBLE, &o->nvlink_us, "Hardware: collective latency inside a node, us", "X" },
    { "ib-gbps", 0, 0, G_OPTION_ARG_DOUBLE, &o->ib_gbps, "Hardware: collective bus bandwidth across nodes, GB/s", "X" },
    { "ib-us", 0, 0, G_OPTION_ARG_DOUBLE, &o->ib_us, "Hardware: collective latency across nodes, us", "X" },
    { "gpus-per-node", 0, 0, G_OPTION_ARG_INT, &o->gpus_per_node, "Hardware: GPUs per node (default 8)", "N" },
    { "sp", 0, 0, G_OPTION_ARG_NONE, &o->sp, "Sequence parallel with TP", NULL },
    { "no-prefetch", 0, 0, G_OPTION_ARG_NONE, &o->no_prefetch, "FSDP: all-gathers wait for the compute stream (no overlap)", NULL },
    { "no-reshard", 0, 0, G_OPTION_ARG_NONE, &o->no_reshard, "FSDP: keep parameters after forward (no all-gather in backward)", NULL },
    { "bucket-mb", 0, 0, G_OPTION_ARG_DOUBLE, &o->bucket_mb, "DDP bucket size in MB (default 25; the first is 1 MB)", "MB" },
    { "ep-overlap", 0, 0, G_OPTION_ARG_NONE, &o->ep_overlap, "EP: two chunks, all-to-all overlapped with expert compute", NULL },
    { "ac", 0, 0, G_OPTION_ARG_STRING, &o->ac,
      "Activation checkpointing: none (default), selective, selective-layer[:N], full", "MODE" },
    { "compile", 0, 0, G_OPTION_ARG_NONE, &o->compile, "torch.compile per block: fused memory-bound kernels", NULL },
    { "float8", 0, 0, G_OPTION_ARG_NONE, &o->float8, "Float8 linear layers in the blocks (torchao tensorwise)", NULL },
    { "float8-all-gather", 0, 0, G_OPTION_ARG_NONE, &o->float8_all_gather,
      "FSDP all-gathers float8 weights (implies --float8)", NULL },
    { "cp-mode", 0, 0, G_OPTION_ARG_STRING, &o->cp_mode, "CP: allgather (default) or ring", "MODE" },
    { "steps", 0, 0, G_OPTION_ARG_INT, &o->steps, "Profiler steps (default 1)", "N" },
    { "seed", 0, 0, G_OPTION_ARG_INT, &o->seed, "Jitter seed (default 1)", "N" },
    { "jitter", 0, 0, G_OPTION_ARG_DOUBLE, &o->jitter, "Relative per-rank jitter of durations (default 0.03)", "X" },
    { "calibrate", 0, 0, G_OPTION_ARG_FILENAME, &o->calibrate, "Kernel efficiencies measured from this real profile", "PROFILE" },
    { "fit-comm", 0, 0, G_OPTION_ARG_FILENAME, &o->fit_comm, "Collective cost model fitted on this trace's collectives", "TRACE" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &o->format, "json or json.gz (default)", "FMT" },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &o->out, "Output folder (writes profiling/traces/iteration_N/rank*_trace.json[.gz])", "DIR" },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &o->quiet, "Print nothing on success", NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &o->json, "Print the prediction as JSON (step time, tokens/s/GPU, MFU, peak memory); --out optional", NULL },
    { NULL }
  };

  /* (the context keeps a copy of the entries) */
  g_option_context_add_main_entries (ctx, entries, NULL);
}

/* The hardware: --hw, then the figures given one by one. */
static gboolean
compose_set_hardware (const ComposeOptions *o, WeftComposeParams *p)
{
  g_autoptr (GError) error = NULL;

  if (o->hw != NULL && !weft_compose_params_set_hardware (p, o->hw, &error))
    {
      weft_cli_fail ("compose: %s", error->message);
      return FALSE;
    }
  if (o->peak_tflops > 0)
    p->hw.peak_flops = o->peak_tflops * 1e12;
  if (o->hbm_tbps > 0)
    p->hw.hbm_bytes_per_s = o->hbm_tbps * 1e12;
  if (o->nvlink_gbps > 0)
    p->hw.nvlink_bus_bw = o->nvlink_gbps;
  if (o->ib_gbps > 0)
    p->hw.ib_bus_bw = o->ib_gbps;
  if (o->nvlink_us >= 0)
    p->hw.nvlink_alpha_ns = (gint64) (o->nvlink_us * 1000);
  if (o->ib_us >= 0)
    p->hw.ib_alpha_ns = (gint64) (o->ib_us * 1000);
  if (o->gpus_per_node < 0 || o->gpus_per_node > 64)
    {
      weft_cli_fail ("compose: --gpus-per-node %d out of range 1..64", o->gpus_per_node);
      return FALSE;
    }
  if (o->gpus_per_node > 0)
    p->hw.gpus_per_node = o->gpus_per_node;
  return TRUE;
}

/* --strategy and the parallel degrees given (0: not given, filled in by
 * compose_default_degrees once the model and hardware are known). */
static gboolean
compose_set_degrees (const ComposeOptions *o, WeftComposeParams *p)
{
  g_autoptr (GError) error = NULL;

  if (o->strategy != NULL && !weft_compose_params_set_strategies (p, o->strategy, &error))
    {
      weft_cli_fail ("compose: %s", error->message);
      return FALSE;
    }
  if (o->dp < 0 || o->tp < 0 || o->cp < 0 || o->ep < 0 || o->hsdp < 0 || o->pp < 0 || o->microbatches < 0
      || o->pp_stages_per_rank < 0)
    {
      weft_cli_fail ("compose: degrees must be >= 1");
      return FALSE;
    }
  p->dp = o->dp > 0 ? o->dp : 1;
  p->tp = o->tp > 0 ? o->tp : 1;
  p->cp = o->cp > 0 ? o->cp : 1;
  p->ep = o->ep > 0 ? o->ep : 1;
  p->dp_replicate = o->hsdp > 0 ? o->hsdp : 1;
  p->pp = o->pp > 0 ? o->pp : 1;
  p->microbatches = o->microbatches;
  p->pp_stages_per_rank = o->pp_stages_per_rank;
  if (o->pp_schedule != NULL && !weft_compose_parse_pp_schedule (o->pp_schedule, &p->pp_schedule, &error))
    {
      weft_cli_fail ("compose: --pp-schedule: %s", error->message);
      return FALSE;
    }
  return TRUE;
}

/* tp d splits the heads, KV heads and MLP (and, with SP, the sequence) */
static gboolean
tp_fits (const WeftComposeParams *p, int d)
{
  const WeftModelShape *m = &p->model;
  return m->heads % d == 0 && m->kv_heads % d == 0 && m->ffn % d == 0 &&
         (!p->sequence_parallel || (m->seq / p->cp) % d == 0);
}

/* The largest d in 2..limit dividing n for which fits (p, d) holds
 * (fits NULL: any), 0 if none. */
static int
largest_degree (const WeftComposeParams *p, int n, int limit, gboolean (*fits) (const WeftComposeParams *, int))
{
  for (int d = MIN (n, limit); d >= 2; d--)
    if (n % d == 0 && (fits == NULL || fits (p, d)))
      return d;
  return 0;
}

/* Degrees of the listed strategies that were not given, as torchtitan lays
 * a job out: TP inside a node (the largest degree dividing the GPUs of a
 * node and the heads), then CP over what is left of the node, DP/FSDP
 * filling the rest of the node (at least 2), EP over dp x cp (dividing the
 * experts). Each choice is said on stderr (unless --quiet): scripts that
 * give every degree see nothing new. */
static void
compose_default_degrees (const ComposeOptions *o, WeftComposeParams *p, gboolean say)
{
  int node = MAX (p->hw.gpus_per_node, 1);
  g_autoptr (GString) said = g_string_new (NULL);

  if ((p->strategies & WEFT_STRATEGY_TP) && o->tp == 0)
    {
      int d = largest_degree (p, node, MIN (node, 64 / MAX (o->dp, 1) / MAX (o->cp, 1)), tp_fits);
      if (d >= 2)
        {
          p->tp = d;
          g_string_append_printf (said, "%stp %d (the GPUs of a node that divide %d heads and %d KV heads)",
                                  said->len ? ", " : "", d, p->model.heads, p->model.kv_heads);
        }
    }
  if ((p->strategies & WEFT_STRATEGY_CP) && o->cp == 0)
    {
      int left = MAX (node / p->tp, 1);
      int seq_half = p->model.seq / 2;
      int d = left >= 2 ? largest_degree (p, left, left, NULL) : 0;
      while (d >= 2 && seq_half % d != 0)
        d = largest_degree (p, left, d - 1, NULL);
      if (d < 2)
        d = seq_half % 2 == 0 ? 2 : 0;  /* TP filled the node: CP across nodes */
      if (d >= 2)
        {
          p->cp = d;
          g_string_append_printf (said, "%scp %d (%s)", said->len ? ", " : "", d,
                                  p->tp == 1 ? "fills a node" : left >= 2 ? "the rest of a node after tp"
                                                              : "a node is full with tp: across nodes");
        }
    }
  if ((p->strategies & (WEFT_STRATEGY_DDP | WEFT_STRATEGY_FSDP)) && o->dp == 0)
    {
      int fill = node / (p->tp * p->cp);
      const char *why = "fills a node";
      if (fill < 2)
        {
          /* with cp the shards already span two ranks: dp 1 is FSDP over cp */
          fill = p->cp >= 2 ? 1 : 2;
          why = p->cp >= 2 ? "the node is full: FSDP shards over cp" : "tp fills a node: a second node";
        }
      p->dp = fill;
      g_string_append_printf (said, "%sdp %d (%s)", said->len ? ", " : "", fill, why);
    }
  if ((p->strategies & WEFT_STRATEGY_EP) && o->ep == 0 && p->model.experts > 0)
    {
      int n = p->dp * p->cp, d = 0;
      for (int k = MIN (n, 64); k >= 2 && d == 0; k--)
        if (n % k == 0 && p->model.experts % k == 0)
          d = k;
      if (d >= 2)
        {
          p->ep = d;
          g_string_append_printf (said, "%sep %d (divides dp x cp = %d and the %d experts)", said->len ? ", " : "",
                                  d, n, p->model.experts);
        }
    }
  if (say && said->len > 0)
    fprintf (stderr, "weft-cli: compose: degrees not given: %s; %d GPUs per node\n", said->str, node);
}

/* The model sizes given on the command line (0: the preset's). */
static void
compose_set_model (const ComposeOptions *o, WeftComposeParams *p)
{
  const struct { int value; int *field; } sizes[] = {
    { o->layers, &p->model.layers },     { o->seq, &p->model.seq },     { o->mbs, &p->model.mbs },
    { o->hidden, &p->model.hidden },     { o->ffn, &p->model.ffn },     { o->heads, &p->model.heads },
    { o->kv_heads, &p->model.kv_heads }, { o->vocab, &p->model.vocab }, { o->top_k, &p->model.top_k },
    { o->moe_ffn, &p->model.moe_ffn },
  };
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    if (sizes[i].value != 0)
      *sizes[i].field = sizes[i].value;
  if (o->experts >= 0)
    p->model.experts = o->experts;
  if (p->model.experts > 0 && p->model.top_k == 0)
    p->model.top_k = 2;
  if (p->model.experts > 0 && p->model.moe_ffn == 0)
    p->model.moe_ffn = p->model.ffn / 4;
}

/* The strategies' switches, the steps and the jitter. */
static gboolean
compose_set_schedule (const ComposeOptions *o, WeftComposeParams *p)
{
  p->sequence_parallel = p->sequence_parallel || o->sp; /* --sp, or "tp-sp" in --strategy */
  p->fsdp_prefetch = !o->no_prefetch;
  p->reshard_after_forward = !o->no_reshard;
  if (o->bucket_mb != 0)
    p->ddp_bucket_mb = o->bucket_mb;
  p->ep_overlap = o->ep_overlap;
  if (o->ac != NULL)
    {
      g_autoptr (GError) error = NULL;
      if (!weft_compose_parse_ac (o->ac, &p->ac, &p->ac_layer_freq, &error))
        {
          weft_cli_fail ("compose: --ac: %s", error->message);
          return FALSE;
        }
    }
  p->compile = o->compile;
  p->float8 = o->float8 || o->float8_all_gather;
  p->float8_all_gather = o->float8_all_gather;
  if (o->cp_mode != NULL)
    {
      if (g_ascii_strcasecmp (o->cp_mode, "ring") == 0 || g_ascii_strcasecmp (o->cp_mode, "alltoall") == 0)
        p->cp_mode = WEFT_CP_RING;
      else if (g_ascii_strcasecmp (o->cp_mode, "allgather") == 0 || g_ascii_strcasecmp (o->cp_mode, "all-gather") == 0)
        p->cp_mode = WEFT_CP_ALL_GATHER;
      else
        {
          weft_cli_fail ("compose: unknown --cp-mode '%s' (allgather or ring)", o->cp_mode);
          return FALSE;
        }
    }
  if (o->steps != 0)
    {
      p->steps = o->steps;
      if (p->iteration < o->steps)
        p->iteration = o->steps;
    }
  if (o->seed >= 0)
    p->seed = (guint32) o->seed;
  if (o->jitter >= 0)
    p->jitter = o->jitter;
  return TRUE;
}

/* --calibrate: kernel efficiencies and op durations measured on a real
 * profile (*kt: the durations, which p refers to). */
static gboolean
compose_calibrate (const ComposeOptions *o, WeftComposeParams *p, WeftKernelTimes **kt)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftTrace) prof = weft_cli_load_trace (o->calibrate, 0, &error);
  guint n_shapes = 0;

  if (prof == NULL)
    {
      weft_cli_fail ("compose: %s", error->message);
      return FALSE;
    }
  if (!weft_compose_calibrate (p, prof, &error))
    {
      weft_cli_fail ("compose: --calibrate %s: %s", o->calibrate, error->message);
      return FALSE;
    }
  *kt = weft_kernel_times_new_from_trace (prof, &n_shapes);
  p->kernel_times = *kt;
  if (!o->quiet)
    printf ("calibrated on %u kernels: gemm %.3f, attention %.3f, memory %.3f of peak; "
            "%u op shapes with measured durations\n",
            p->eff.calibrated_kernels, p->eff.gemm, p->eff.attention, p->eff.memory, n_shapes);
  return TRUE;
}

/* --fit-comm: a collective cost model fitted on a trace's collectives (*cm,
 * which p refers to). */
static gboolean
compose_fit_comm (const ComposeOptions *o, WeftComposeParams *p, WeftCostModel **cm)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftTrace) tr = weft_cli_load_trace (o->fit_comm, 0, &error);
  guint n;

  if (tr == NULL)
    {
      weft_cli_fail ("compose: %s", error->message);
      return FALSE;
    }
  *cm = weft_cost_model_new (&p->hw);
  n = weft_cost_model_fit_trace (*cm, tr);
  if (!o->quiet)
    printf ("cost model: %u fitted (type, group) entries from %s\n", n, o->fit_comm);
  p->cost_model = *cm;
  return TRUE;
}

static char *
describe_compose (guint64 done, guint64 total)
{
  if (done == 0)
    return g_strdup_printf ("compose: simulating the step of %" G_GUINT64_FORMAT " ranks...", total - 1);
  return g_strdup_printf ("compose: %3d%%, %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " rank files written",
                          (int) (done * 100 / total), done - 1, total - 1);
}

int
weft_cmd_compose (int argc, char **argv)
{
  g_autoptr (WeftCliProgress) progress = NULL;
  g_auto (ComposeOptions) o = { 0 };
  g_autofree char *written = NULL;
  g_autoptr (GOptionContext) ctx = g_option_context_new ("--out DIR");
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftCostModel) cm = NULL;
  g_autoptr (WeftKernelTimes) kt = NULL;
  WeftComposeParams p;
  const char *ext;
  gboolean explicit_quiet;
  gint64 t0;

  o.seed = -1;
  o.experts = -1;
  o.jitter = -1;
  o.nvlink_us = -1;
  o.ib_us = -1;
  g_option_context_set_summary (ctx, "Simulate a training step of a parallelism strategy and write per-rank Kineto traces\n"
                                     "in torchtitan's layout. See docs/composer.md.");
  compose_add_entries (ctx, &o);
  weft_cli_add_progress_option (ctx);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return weft_cli_fail ("compose: %s", error->message);
  if (o.out == NULL && !o.json)
    return weft_cli_fail ("compose: --out DIR is required");
  if (o.out != NULL && strcmp (o.out, "-") == 0)
    return weft_cli_fail ("compose: --out -: compose writes one file per rank into a folder; give a folder "
                          "(and `weft-cli convert DIR - --merge` for one merged file on standard output)");
  explicit_quiet = o.quiet;
  o.quiet = o.quiet || o.json;   /* stdout is the JSON */

  weft_compose_params_init (&p);
  if (o.preset != NULL && !weft_compose_params_set_preset (&p, o.preset, &error))
    return weft_cli_fail ("compose: %s", error->message);
  if (o.preset != NULL && o.layers == 0 && p.model.layers > 4)
    p.model.layers = 4;   /* keep the default trace small; --layers for more */
  if (!compose_set_hardware (&o, &p) || !compose_set_degrees (&o, &p))
    return WEFT_EXIT_BAD_INPUT;
  compose_set_model (&o, &p);
  if (!compose_set_schedule (&o, &p))
    return WEFT_EXIT_BAD_INPUT;
  compose_default_degrees (&o, &p, !explicit_quiet);
  if (o.format == NULL || g_str_equal (o.format, "json.gz") || g_str_equal (o.format, "gz"))
    ext = ".json.gz";
  else if (g_str_equal (o.format, "json"))
    ext = ".json";
  else
    return weft_cli_fail ("compose: unknown --format '%s' (json or json.gz)", o.format);

  if (o.calibrate != NULL && !compose_calibrate (&o, &p, &kt))
    return WEFT_EXIT_BAD_INPUT;
  if (o.fit_comm != NULL && !compose_fit_comm (&o, &p, &cm))
    return WEFT_EXIT_BAD_INPUT;

  if (o.json && o.out == NULL)
    return weft_cli_compose_print_json (&p, p.ac);
  t0 = g_get_monotonic_time ();
  progress = weft_cli_progress_new (describe_compose);
  p.progress = progress != NULL ? weft_cli_progress_cb : NULL;
  p.progress_data = progress;
  if (!weft_compose_write (&p, o.out, ext, &written, &error))
    {
      if (error->domain == WEFT_ERROR && error->code == WEFT_ERROR_IO)
        {
          fprintf (stderr, "weft-cli: compose: %s\n", error->message);
          return WEFT_EXIT_FAILURE;
        }
      return weft_cli_fail ("compose: %s", error->message);
    }
  g_clear_pointer (&progress, weft_cli_progress_free);
  p.progress = NULL;
  if (!o.quiet)
    {
      g_autofree char *sname = weft_compose_strategies_to_string (p.strategies);
      g_autofree char *pp = p.pp > 1 ? g_strdup_printf (" pp %d (%s, %d microbatches, %d stages per rank)", p.pp,
                                                        weft_compose_pp_schedule_to_string (p.pp_schedule),
                                                        weft_compose_pp_microbatches (&p),
                                                        weft_compose_pp_stages_per_rank (&p))
                                      : g_strdup ("");
      printf ("%s: %d ranks, %s, %s x %d layers, dp %d tp %d cp %d ep %d%s (%.2f s)\n", written,
              weft_compose_world_size (&p), sname, p.model.name, p.model.layers, p.dp, p.tp, p.cp, p.ep, pp,
              (g_get_monotonic_time () - t0) / 1e6);
    }
  if (o.json)
    return weft_cli_compose_print_json (&p, p.ac);
  return WEFT_EXIT_OK;
}
