/* cmd-compose.c: weft-cli compose: write a composed parallelism template. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "weft/weft.h"
#include "weft/weft-compose.h"
#include "weft/weft-costmodel.h"

int
weft_cmd_compose (int argc, char **argv)
{
  g_autofree char *strategy = NULL;
  g_autofree char *preset = NULL;
  g_autofree char *hw = NULL;
  g_autofree char *out = NULL;
  g_autofree char *format = NULL;
  g_autofree char *calibrate = NULL;
  g_autofree char *cp_mode = NULL;
  g_autofree char *fit_comm = NULL;
  g_autofree char *written = NULL;
  int dp = 0, tp = 0, cp = 0, ep = 0, hsdp = 0;
  int layers = 0, seq = 0, mbs = 0, steps = 0, seed = -1;
  int hidden = 0, ffn = 0, heads = 0, kv_heads = 0, vocab = 0, experts = -1, top_k = 0, moe_ffn = 0;
  double bucket_mb = 0, jitter = -1;
  double peak_tflops = 0, hbm_tbps = 0, nvlink_gbps = 0, ib_gbps = 0, nvlink_us = -1, ib_us = -1;
  int gpus_per_node = 0;
  gboolean sp = FALSE, no_prefetch = FALSE, no_reshard = FALSE, ep_overlap = FALSE, quiet = FALSE;
  GOptionEntry entries[] = {
    { "strategy", 's', 0, G_OPTION_ARG_STRING, &strategy, "Strategies: ddp, fsdp, tp, ep, cp, comma-separated (default fsdp)", "LIST" },
    { "dp", 0, 0, G_OPTION_ARG_INT, &dp, "Data-parallel degree (DDP replicas / FSDP shards)", "N" },
    { "tp", 0, 0, G_OPTION_ARG_INT, &tp, "Tensor-parallel degree", "N" },
    { "cp", 0, 0, G_OPTION_ARG_INT, &cp, "Context-parallel degree", "N" },
    { "ep", 0, 0, G_OPTION_ARG_INT, &ep, "Expert-parallel degree (divides dp x cp)", "N" },
    { "hsdp", 0, 0, G_OPTION_ARG_INT, &hsdp, "FSDP replicas (HSDP): shard over dp / N, all-reduce across the N", "N" },
    { "preset", 'p', 0, G_OPTION_ARG_STRING, &preset, "Model: llama3-8b (default), llama3-70b, moe-small", "NAME" },
    { "hw", 0, 0, G_OPTION_ARG_STRING, &hw, "Hardware: h100 (default), h200", "NAME" },
    { "layers", 0, 0, G_OPTION_ARG_INT, &layers, "Transformer blocks (default 4)", "N" },
    { "seq", 0, 0, G_OPTION_ARG_INT, &seq, "Sequence length (global, split over cp)", "N" },
    { "mbs", 0, 0, G_OPTION_ARG_INT, &mbs, "Micro-batch size per rank", "N" },
    { "hidden", 0, 0, G_OPTION_ARG_INT, &hidden, "Model dimension", "N" },
    { "ffn", 0, 0, G_OPTION_ARG_INT, &ffn, "MLP hidden size", "N" },
    { "heads", 0, 0, G_OPTION_ARG_INT, &heads, "Attention heads", "N" },
    { "kv-heads", 0, 0, G_OPTION_ARG_INT, &kv_heads, "KV heads", "N" },
    { "vocab", 0, 0, G_OPTION_ARG_INT, &vocab, "Vocabulary size", "N" },
    { "experts", 0, 0, G_OPTION_ARG_INT, &experts, "MoE experts (0: dense)", "N" },
    { "top-k", 0, 0, G_OPTION_ARG_INT, &top_k, "MoE experts per token", "N" },
    { "moe-ffn", 0, 0, G_OPTION_ARG_INT, &moe_ffn, "Expert hidden size", "N" },
    { "peak-tflops", 0, 0, G_OPTION_ARG_DOUBLE, &peak_tflops, "Hardware: dense BF16 peak, TFLOP/s", "X" },
    { "hbm-tbps", 0, 0, G_OPTION_ARG_DOUBLE, &hbm_tbps, "Hardware: HBM bandwidth, TB/s", "X" },
    { "nvlink-gbps", 0, 0, G_OPTION_ARG_DOUBLE, &nvlink_gbps, "Hardware: collective bus bandwidth inside a node, GB/s", "X" },
    { "nvlink-us", 0, 0, G_OPTION_ARG_DOUBLE, &nvlink_us, "Hardware: collective latency inside a node, us", "X" },
    { "ib-gbps", 0, 0, G_OPTION_ARG_DOUBLE, &ib_gbps, "Hardware: collective bus bandwidth across nodes, GB/s", "X" },
    { "ib-us", 0, 0, G_OPTION_ARG_DOUBLE, &ib_us, "Hardware: collective latency across nodes, us", "X" },
    { "gpus-per-node", 0, 0, G_OPTION_ARG_INT, &gpus_per_node, "Hardware: GPUs per node (default 8)", "N" },
    { "sp", 0, 0, G_OPTION_ARG_NONE, &sp, "Sequence parallel with TP", NULL },
    { "no-prefetch", 0, 0, G_OPTION_ARG_NONE, &no_prefetch, "FSDP: all-gathers wait for the compute stream (no overlap)", NULL },
    { "no-reshard", 0, 0, G_OPTION_ARG_NONE, &no_reshard, "FSDP: keep parameters after forward (no all-gather in backward)", NULL },
    { "bucket-mb", 0, 0, G_OPTION_ARG_DOUBLE, &bucket_mb, "DDP bucket size in MB (default 25; the first is 1 MB)", "MB" },
    { "ep-overlap", 0, 0, G_OPTION_ARG_NONE, &ep_overlap, "EP: two chunks, all-to-all overlapped with expert compute", NULL },
    { "cp-mode", 0, 0, G_OPTION_ARG_STRING, &cp_mode, "CP: allgather (default) or ring", "MODE" },
    { "steps", 0, 0, G_OPTION_ARG_INT, &steps, "Profiler steps (default 1)", "N" },
    { "seed", 0, 0, G_OPTION_ARG_INT, &seed, "Jitter seed (default 1)", "N" },
    { "jitter", 0, 0, G_OPTION_ARG_DOUBLE, &jitter, "Relative per-rank jitter of durations (default 0.03)", "X" },
    { "calibrate", 0, 0, G_OPTION_ARG_FILENAME, &calibrate, "Kernel efficiencies measured from this real profile", "PROFILE" },
    { "fit-comm", 0, 0, G_OPTION_ARG_FILENAME, &fit_comm, "Collective cost model fitted on this trace's collectives", "TRACE" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format, "json or json.gz (default)", "FMT" },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out, "Output folder (writes profiling/traces/iteration_N/rank*_trace.json[.gz])", "DIR" },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "Print nothing on success", NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("--out DIR");
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftCostModel) cm = NULL;
  g_autoptr (WeftKernelTimes) kt = NULL;
  WeftComposeParams p;
  g_autofree char *ext = NULL;
  gint64 t0;

  g_option_context_set_summary (ctx, "Simulate a training step of a parallelism strategy and write per-rank Kineto traces\n"
                                     "in torchtitan's layout. See docs/composer.md.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return weft_cli_fail ("compose: %s", error->message);
  if (out == NULL)
    return weft_cli_fail ("compose: --out DIR is required");

  weft_compose_params_init (&p);
  if (preset != NULL && !weft_compose_params_set_preset (&p, preset, &error))
    return weft_cli_fail ("compose: %s", error->message);
  if (preset != NULL && layers == 0 && p.model.layers > 4)
    p.model.layers = 4;   /* keep the default trace small; --layers for more */
  if (hw != NULL && !weft_compose_params_set_hardware (&p, hw, &error))
    return weft_cli_fail ("compose: %s", error->message);
  if (peak_tflops > 0)
    p.hw.peak_flops = peak_tflops * 1e12;
  if (hbm_tbps > 0)
    p.hw.hbm_bytes_per_s = hbm_tbps * 1e12;
  if (nvlink_gbps > 0)
    p.hw.nvlink_bus_bw = nvlink_gbps;
  if (ib_gbps > 0)
    p.hw.ib_bus_bw = ib_gbps;
  if (nvlink_us >= 0)
    p.hw.nvlink_alpha_ns = (gint64) (nvlink_us * 1000);
  if (ib_us >= 0)
    p.hw.ib_alpha_ns = (gint64) (ib_us * 1000);
  if (gpus_per_node < 0 || gpus_per_node > 64)
    return weft_cli_fail ("compose: --gpus-per-node %d out of range 1..64", gpus_per_node);
  if (gpus_per_node > 0)
    p.hw.gpus_per_node = gpus_per_node;
  if (strategy != NULL && !weft_compose_parse_strategies (strategy, &p.strategies, &error))
    return weft_cli_fail ("compose: %s", error->message);
  if (dp == 0)
    {
      /* default: fill one node of 8 GPUs */
      int rest = MAX (tp, 1) * MAX (cp, 1);
      p.dp = (p.strategies & (WEFT_STRATEGY_DDP | WEFT_STRATEGY_FSDP)) ? MAX (8 / rest, 1) : 1;
    }
  else
    p.dp = dp;
  p.tp = tp > 0 ? tp : 1;
  p.cp = cp > 0 ? cp : 1;
  p.ep = ep > 0 ? ep : 1;
  p.dp_replicate = hsdp > 0 ? hsdp : 1;
  if (tp < 0 || cp < 0 || ep < 0 || hsdp < 0)
    return weft_cli_fail ("compose: degrees must be >= 1");
  {
    /* model sizes given on the command line (0: the preset's) */
    const struct { int value; int *field; } sizes[] = {
      { layers, &p.model.layers },     { seq, &p.model.seq },     { mbs, &p.model.mbs },
      { hidden, &p.model.hidden },     { ffn, &p.model.ffn },     { heads, &p.model.heads },
      { kv_heads, &p.model.kv_heads }, { vocab, &p.model.vocab }, { top_k, &p.model.top_k },
      { moe_ffn, &p.model.moe_ffn },
    };
    for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
      if (sizes[i].value != 0)
        *sizes[i].field = sizes[i].value;
  }
  if (experts >= 0)
    p.model.experts = experts;
  if (p.model.experts > 0 && p.model.top_k == 0)
    p.model.top_k = 2;
  if (p.model.experts > 0 && p.model.moe_ffn == 0)
    p.model.moe_ffn = p.model.ffn / 4;
  p.sequence_parallel = sp;
  p.fsdp_prefetch = !no_prefetch;
  p.reshard_after_forward = !no_reshard;
  if (bucket_mb != 0)
    p.ddp_bucket_mb = bucket_mb;
  p.ep_overlap = ep_overlap;
  if (cp_mode != NULL)
    {
      if (g_ascii_strcasecmp (cp_mode, "ring") == 0 || g_ascii_strcasecmp (cp_mode, "alltoall") == 0)
        p.cp_mode = WEFT_CP_RING;
      else if (g_ascii_strcasecmp (cp_mode, "allgather") == 0 || g_ascii_strcasecmp (cp_mode, "all-gather") == 0)
        p.cp_mode = WEFT_CP_ALL_GATHER;
      else
        return weft_cli_fail ("compose: unknown --cp-mode '%s' (allgather or ring)", cp_mode);
    }
  if (steps != 0)
    {
      p.steps = steps;
      if (p.iteration < steps)
        p.iteration = steps;
    }
  if (seed >= 0)
    p.seed = (guint32) seed;
  if (jitter >= 0)
    p.jitter = jitter;
  if (format == NULL || g_str_equal (format, "json.gz") || g_str_equal (format, "gz"))
    ext = g_strdup (".json.gz");
  else if (g_str_equal (format, "json"))
    ext = g_strdup (".json");
  else
    return weft_cli_fail ("compose: unknown --format '%s' (json or json.gz)", format);

  if (calibrate != NULL)
    {
      g_autoptr (WeftTrace) prof = weft_trace_load (calibrate, NULL, NULL, &error);
      if (prof == NULL)
        return weft_cli_fail ("compose: %s", error->message);
      guint n_shapes = 0;
      if (!weft_compose_calibrate (&p, prof, &error))
        return weft_cli_fail ("compose: --calibrate %s: %s", calibrate, error->message);
      kt = weft_kernel_times_new_from_trace (prof, &n_shapes);
      p.kernel_times = kt;
      if (!quiet)
        printf ("calibrated on %u kernels: gemm %.3f, attention %.3f, memory %.3f of peak; "
                "%u op shapes with measured durations\n",
                p.eff.calibrated_kernels, p.eff.gemm, p.eff.attention, p.eff.memory, n_shapes);
    }
  if (fit_comm != NULL)
    {
      g_autoptr (WeftTrace) tr = weft_trace_load (fit_comm, NULL, NULL, &error);
      guint n;
      if (tr == NULL)
        return weft_cli_fail ("compose: %s", error->message);
      cm = weft_cost_model_new (&p.hw);
      n = weft_cost_model_fit_trace (cm, tr);
      if (!quiet)
        printf ("cost model: %u fitted (type, group) entries from %s\n", n, fit_comm);
      p.cost_model = cm;
    }

  t0 = g_get_monotonic_time ();
  if (!weft_compose_write (&p, out, ext, &written, &error))
    {
      if (error->domain == WEFT_ERROR && error->code == WEFT_ERROR_IO)
        {
          fprintf (stderr, "weft-cli: compose: %s\n", error->message);
          return WEFT_EXIT_FAILURE;
        }
      return weft_cli_fail ("compose: %s", error->message);
    }
  if (!quiet)
    {
      g_autofree char *sname = weft_compose_strategies_to_string (p.strategies);
      printf ("%s: %d ranks, %s, %s x %d layers, dp %d tp %d cp %d ep %d (%.2f s)\n", written,
              weft_compose_world_size (&p), sname, p.model.name, p.model.layers, p.dp, p.tp, p.cp, p.ep,
              (g_get_monotonic_time () - t0) / 1e6);
    }
  return WEFT_EXIT_OK;
}
