/* cmd-compose-json.c: `weft-cli compose --json`: the prediction of a
 * composed step (step time, throughput and MFU as torchtitan computes
 * them, the memory model's peak per rank). Fields: docs/composer.md,
 * "compose --json". */
#include "config.h"

#include <stdio.h>

#include "commands.h"
#include "weft/weft.h"

#define GIB(x) ((double) (x) / (1024.0 * 1024.0 * 1024.0))

/* the last ProfilerStep's span of a rank, -1 without one */
static gint64
last_step_ns (const WeftRank *rank)
{
  const WeftStep *st;

  if (rank->steps->len == 0)
    return -1;
  st = &g_array_index (rank->steps, WeftStep, rank->steps->len - 1);
  return st->end - st->begin;
}

static json_object *
figures_json (const WeftMemoryFigures *f)
{
  json_object *o = json_object_new_object ();
  json_object_object_add (o, "params_gib", json_object_new_double (GIB (f->params)));
  json_object_object_add (o, "grads_gib", json_object_new_double (GIB (f->grads)));
  json_object_object_add (o, "optimizer_gib", json_object_new_double (GIB (f->optimizer)));
  json_object_object_add (o, "ddp_buckets_gib", json_object_new_double (GIB (f->ddp_buckets)));
  json_object_object_add (o, "fsdp_unsharded_unit_max_gib", json_object_new_double (GIB (f->unsharded_max)));
  json_object_object_add (o, "fsdp_units_unsharded", json_object_new_int (f->units_unsharded));
  json_object_object_add (o, "activations_per_block_gib", json_object_new_double (GIB (f->act_block)));
  json_object_object_add (o, "activations_per_block_no_ac_gib", json_object_new_double (GIB (f->act_block_full)));
  json_object_object_add (o, "loss_log_softmax_gib", json_object_new_double (GIB (f->act_loss)));
  json_object_object_add (o, "nccl_buffers_gib", json_object_new_double (GIB (f->nccl)));
  json_object_object_add (o, "nccl_communicators", json_object_new_int (f->communicators));
  return o;
}

/* pipeline parallel: one entry per stage rank (its first rank's figures;
 * the others of the stage hold the same shards) */
static json_object *
stages_json (const WeftComposeParams *p, WeftAcMode ac, WeftTrace *trace)
{
  json_object *arr = json_object_new_array ();
  int inner = MAX (weft_compose_world_size (p) / MAX (p->pp, 1), 1);

  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);
      WeftMemoryStageFigures sf;
      WeftMemoryPeak mp;
      json_object *o, *st;
      if (rank->rank % inner != 0 || !weft_compose_memory_stage_figures (p, ac, rank, &sf))
        continue;
      o = json_object_new_object ();
      st = json_object_new_array ();
      for (int k = 0; k < sf.n_stages; k++)
        json_object_array_add (st, json_object_new_int (sf.stages[k]));
      json_object_object_add (o, "stage_rank", json_object_new_int (sf.stage_rank));
      json_object_object_add (o, "rank", json_object_new_int (rank->rank));
      json_object_object_add (o, "stages", st);
      json_object_object_add (o, "blocks", json_object_new_int (sf.blocks));
      json_object_object_add (o, "params_gib", json_object_new_double (GIB (sf.params)));
      json_object_object_add (o, "grads_gib", json_object_new_double (GIB (sf.grads)));
      json_object_object_add (o, "optimizer_gib", json_object_new_double (GIB (sf.optimizer)));
      json_object_object_add (o, "activations_per_microbatch_gib", json_object_new_double (GIB (sf.act_microbatch)));
      json_object_object_add (o, "microbatches_in_flight_max", json_object_new_int (sf.in_flight_max));
      json_object_object_add (o, "activations_in_flight_max_gib", json_object_new_double (GIB (sf.act_in_flight_max)));
      if (weft_rank_memory_peak (rank, G_MININT64, G_MAXINT64, &mp))
        json_object_object_add (o, "peak_memory_gib", json_object_new_double (GIB (mp.peak_reserved)));
      json_object_array_add (arr, o);
    }
  return arr;
}

int
weft_cli_compose_print_json (const WeftComposeParams *p, WeftAcMode ac)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftTrace) trace = weft_compose_trace (p, &error);
  g_autofree char *sname = NULL;
  json_object *doc, *ranks;
  WeftMemoryFigures fig;
  gint64 step_ns = -1, peak = 0, peak_alloc = 0;
  double tokens, flops, tps, world;

  if (trace == NULL)
    return weft_cli_fail ("compose: %s", error->message);
  sname = weft_compose_strategies_to_string (p->strategies);
  doc = weft_cli_json_new ();
  ranks = json_object_new_array ();
  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);
      WeftMemoryPeak mp;
      json_object *ro = json_object_new_object ();
      gint64 s = last_step_ns (rank);

      step_ns = MAX (step_ns, s);
      json_object_object_add (ro, "rank", json_object_new_int (rank->rank));
      json_object_object_add (ro, "step_time_us", json_object_new_double (s / 1000.0));
      if (weft_rank_memory_peak (rank, G_MININT64, G_MAXINT64, &mp))
        {
          json_object_object_add (ro, "peak_memory_gib", json_object_new_double (GIB (mp.peak_reserved)));
          json_object_object_add (ro, "peak_allocated_gib", json_object_new_double (GIB (mp.peak_allocated)));
          peak = MAX (peak, mp.peak_reserved);
          peak_alloc = MAX (peak_alloc, mp.peak_allocated);
        }
      json_object_array_add (ranks, ro);
    }
  world = weft_compose_world_size (p);
  tokens = weft_compose_tokens_per_step (p);
  flops = weft_compose_flops_per_token (p);
  tps = step_ns > 0 ? tokens / world / (step_ns / 1e9) : 0;
  weft_compose_memory_figures (p, ac, &fig);

  json_object_object_add (doc, "strategy", json_object_new_string (sname));
  json_object_object_add (doc, "model", json_object_new_string (p->model.name));
  json_object_object_add (doc, "layers", json_object_new_int (p->model.layers));
  json_object_object_add (doc, "seq", json_object_new_int (p->model.seq));
  json_object_object_add (doc, "mbs", json_object_new_int (p->model.mbs));
  json_object_object_add (doc, "world_size", json_object_new_int ((int) world));
  json_object_object_add (doc, "dp", json_object_new_int (p->dp));
  json_object_object_add (doc, "tp", json_object_new_int (p->tp));
  json_object_object_add (doc, "cp", json_object_new_int (p->cp));
  json_object_object_add (doc, "ep", json_object_new_int (p->ep));
  json_object_object_add (doc, "step_time_us", json_object_new_double (step_ns / 1000.0));
  json_object_object_add (doc, "tokens_per_step", json_object_new_double (tokens));
  json_object_object_add (doc, "tokens_per_second_per_gpu", json_object_new_double (tps));
  json_object_object_add (doc, "flops_per_token", json_object_new_double (flops));
  json_object_object_add (doc, "peak_tflops", json_object_new_double (p->hw.peak_flops / 1e12));
  json_object_object_add (doc, "mfu_pct", json_object_new_double (100.0 * tps * flops / p->hw.peak_flops));
  json_object_object_add (doc, "activation_checkpointing", json_object_new_string (weft_compose_ac_to_string (ac)));
  json_object_object_add (doc, "peak_memory_gib", json_object_new_double (GIB (peak)));
  json_object_object_add (doc, "peak_allocated_gib", json_object_new_double (GIB (peak_alloc)));
  json_object_object_add (doc, "nccl_buffers_gib", json_object_new_double (GIB (fig.nccl)));
  json_object_object_add (doc, "device_memory_gib", json_object_new_double (GIB (p->hw.hbm_total_bytes)));
  {
    json_object *mm = figures_json (&fig);
    if (p->pp > 1)
      json_object_object_add (mm, "stages", stages_json (p, ac, trace));
    json_object_object_add (doc, "memory_model", mm);
  }
  json_object_object_add (doc, "ranks", ranks);
  return weft_cli_json_print (doc) ? WEFT_EXIT_OK : WEFT_EXIT_FAILURE;
}
