/* cmd-apply.c: weft-cli apply: apply a parallelism strategy to a real
 * profile (weft-apply.h) and save the result. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "weft/weft.h"
#include "weft/weft-apply.h"

static void
print_metrics (const char *what, const WeftMetrics *m)
{
  printf ("  %-9s step %10.3f ms  comm %9.3f ms  overlap %5.1f %%  exposed %9.3f ms\n", what, m->step_time / 1e6,
          m->comm / 1e6, m->overlap_pct, m->exposed_comm / 1e6);
}

static gboolean
parse_format (const char *text, const char **ext)
{
  if (text == NULL || strcmp (text, "json") == 0)
    *ext = ".json";
  else if (strcmp (text, "json.gz") == 0 || strcmp (text, "gz") == 0)
    *ext = ".json.gz";
  else if (strcmp (text, "json.zst") == 0 || strcmp (text, "zst") == 0)
    *ext = ".json.zst";
  else
    return FALSE;
  return TRUE;
}

static int
print_blocks (const char *path, WeftTrace *trace, gboolean as_json)
{
  json_object *arr = json_object_new_array ();
  for (guint r = 0; r < trace->ranks->len; r++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (WeftBlocks) bl = weft_apply_find_blocks (trace, r, &error);
      WeftRank *rank = weft_trace_rank (trace, r);
      json_object *o, *blocks;
      if (bl == NULL)
        {
          json_object_put (arr);
          return weft_cli_fail ("%s", error->message);
        }
      o = json_object_new_object ();
      blocks = json_object_new_array ();
      json_object_object_add (o, "rank", json_object_new_int (rank->rank));
      json_object_object_add (o, "source", json_object_new_string (weft_block_source_to_string (bl->source)));
      json_object_object_add (o, "stream", json_object_new_int64 (weft_rank_lane (rank, bl->lane)->tid));
      json_object_object_add (o, "forward", json_object_new_int ((int) bl->n_forward));
      json_object_object_add (o, "backward", json_object_new_int ((int) bl->n_backward));
      json_object_object_add (o, "phases_known", json_object_new_boolean (bl->phases_known));
      for (guint i = 0; i < bl->blocks->len; i++)
        {
          const WeftBlock *b = &g_array_index (bl->blocks, WeftBlock, i);
          json_object *jb = json_object_new_object ();
          json_object_object_add (jb, "phase", json_object_new_string (b->phase == WEFT_BLOCK_FORWARD ? "forward" : "backward"));
          json_object_object_add (jb, "index", json_object_new_int ((int) b->index));
          json_object_object_add (jb, "ops", json_object_new_int ((int) b->n_ops));
          json_object_object_add (jb, "first_event", json_object_new_int64 (b->first));
          json_object_object_add (jb, "last_event", json_object_new_int64 (b->last));
          json_object_object_add (jb, "begin_ns", json_object_new_int64 (b->begin));
          json_object_object_add (jb, "duration_us", json_object_new_double ((double) (b->end - b->begin) / 1000.0));
          json_object_array_add (blocks, jb);
        }
      json_object_object_add (o, "blocks", blocks);
      if (!as_json)
        printf ("%s: rank %d: %u forward + %u backward blocks (%s, stream %" G_GINT64_FORMAT "%s)\n", path, rank->rank,
                bl->n_forward, bl->n_backward, weft_block_source_to_string (bl->source),
                weft_rank_lane (rank, bl->lane)->tid, bl->phases_known ? "" : "; forward/backward not told apart");
      json_object_array_add (arr, o);
    }
  if (as_json)
    {
      json_object *doc = weft_cli_json_new ();
      json_object_object_add (doc, "path", json_object_new_string (path));
      json_object_object_add (doc, "ranks", arr);
      return weft_cli_json_print (doc) ? WEFT_EXIT_OK : WEFT_EXIT_FAILURE;
    }
  json_object_put (arr);
  return WEFT_EXIT_OK;
}

int
weft_cmd_apply (int argc, char **argv)
{
  gint64 max_bytes = 0, params = 0, tokens = 0, hidden = 0;
  g_autofree char *strategy = NULL;
  g_autofree char *out = NULL;
  g_autofree char *format = NULL;
  int degree = 0;
  double bucket_mb = 25;
  gboolean strip = FALSE, no_prefetch = FALSE, no_reshard = FALSE, blocks_only = FALSE, as_json = FALSE;
  const char *ext = NULL;
  GOptionEntry entries[] = {
    { "strategy", 's', 0, G_OPTION_ARG_STRING, &strategy, "ddp, fsdp, tp, tp-sp, ep, cp-ring or cp-allgather", "NAME" },
    { "degree", 'n', 0, G_OPTION_ARG_INT, &degree, "Group size (dp, tp, ep or cp); a one-rank profile is copied to N ranks", "N" },
    { "strip", 0, 0, G_OPTION_ARG_NONE, &strip, "Delete the trace's own collectives first", NULL },
    { "no-prefetch", 0, 0, G_OPTION_ARG_NONE, &no_prefetch, "FSDP: all-gather i waits for block i-1 to end", NULL },
    { "no-reshard", 0, 0, G_OPTION_ARG_NONE, &no_reshard, "FSDP: no all-gather in backward", NULL },
    { "bucket-mb", 0, 0, G_OPTION_ARG_DOUBLE, &bucket_mb, "DDP bucket size (default 25)", "MB" },
    { "params", 0, 0, G_OPTION_ARG_INT64, &params, "Parameters per block (default: from Input Dims, else Llama-3-8B)", "N" },
    { "tokens", 0, 0, G_OPTION_ARG_INT64, &tokens, "Tokens per rank (default: from Input Dims, else 8192)", "N" },
    { "hidden", 0, 0, G_OPTION_ARG_INT64, &hidden, "Model dimension (default: from Input Dims, else 4096)", "N" },
    { "blocks", 0, 0, G_OPTION_ARG_NONE, &blocks_only, "Only print the blocks found on every rank", NULL },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out, "Folder to write the result into (rank<R>_trace<ext>)", "DIR" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format, "json (default), json.gz or json.zst", "FORMAT" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &as_json, "Print the report as JSON", NULL },
    { "max-json-bytes", 0, 0, G_OPTION_ARG_INT64, &max_bytes,
      "Cap on the decompressed JSON bytes per input file (default 16 GiB; env WEFT_MAX_JSON_BYTES)", "BYTES" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("PATH - apply a parallelism strategy to a profile");
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftEditSession) session = NULL;
  WeftApplyParams p;
  WeftApplyReport rep;
  WeftTrace *trace;
  const char *path;

  g_option_context_add_main_entries (ctx, entries, NULL);
  weft_cli_add_progress_option (ctx);
  g_option_context_set_description (
    ctx, "Finds the transformer blocks of every rank (layer or FSDP annotations, else the repeated\n"
         "kernel sequence of the compute stream) and inserts the strategy's collectives around them\n"
         "(docs/composer.md, \"Applying a strategy to a real profile\"), timed by the cost model fitted\n"
         "on the trace, re-solves, prints step time and overlap before and after and writes the result\n"
         "to DIR with the edits under the top-level \"weft\" key.\n\n"
         "Exit status: 0 success, 1 failure writing, 2 bad input or bad usage (no blocks found,\n"
         "a degree that does not divide the ranks, an insert refused as a dependency cycle).");
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return weft_cli_fail ("apply: %s", error->message);
  if (argc != 2)
    return weft_cli_fail ("apply: expected one PATH (see weft-cli apply --help)");
  if (max_bytes < 0)
    return weft_cli_fail ("apply: --max-json-bytes must be positive");
  if (!parse_format (format, &ext))
    return weft_cli_fail ("apply: unknown --format '%s' (json, json.gz or json.zst)", format);
  path = argv[1];
  weft_apply_params_init (&p);
  if (!blocks_only)
    {
      if (strategy == NULL || degree == 0)
        return weft_cli_fail ("apply: --strategy and --degree are required (or --blocks)");
      if (!weft_apply_strategy_from_string (strategy, &p.strategy, &error))
        return weft_cli_fail ("apply: %s", error->message);
      if (out == NULL)
        return weft_cli_fail ("apply: --out is required");
      if (strcmp (out, "-") == 0)
        return weft_cli_fail ("apply: --out -: the result has one file per rank (--degree %d ranks at least); give a "
                              "folder (and `weft-cli convert DIR - --merge` for one merged file on standard output)",
                              degree);
      p.degree = degree;
      p.strip_collectives = strip;
      p.no_prefetch = no_prefetch;
      p.no_reshard = no_reshard;
      p.bucket_mb = bucket_mb;
      p.params_per_block = params;
      p.tokens = tokens;
      p.hidden = hidden;
      if (!weft_apply_params_validate (&p, &error))
        return weft_cli_fail ("%s", error->message);
    }

  trace = weft_cli_load_trace (path, (guint64) max_bytes, &error);
  if (trace == NULL)
    return weft_cli_fail ("%s", error->message);
  if (blocks_only)
    {
      int rc = print_blocks (path, trace, as_json);
      weft_trace_free (trace);
      return rc;
    }
  session = weft_apply_to_trace (trace, &p, &rep, &error);
  if (session == NULL)
    return weft_cli_fail ("%s: %s", path, error->message);
  if (!weft_edit_session_save (session, out, ext, &error))
    {
      fprintf (stderr, "weft-cli: %s\n", error->message);
      /* refused (a folder holding other traces): bad usage, nothing written */
      return g_error_matches (error, WEFT_ERROR, WEFT_ERROR_INVALID) ? WEFT_EXIT_BAD_INPUT : WEFT_EXIT_FAILURE;
    }
  if (as_json)
    {
      json_object *o = weft_cli_json_new ();
      json_object_object_add (o, "path", json_object_new_string (path));
      json_object_object_add (o, "strategy", json_object_new_string (weft_apply_strategy_to_string (p.strategy)));
      json_object_object_add (o, "degree", json_object_new_int (p.degree));
      json_object_object_add (o, "ranks", json_object_new_int ((int) rep.n_ranks));
      json_object_object_add (o, "groups", json_object_new_int ((int) rep.n_groups));
      json_object_object_add (o, "blocks_source", json_object_new_string (weft_block_source_to_string (rep.source)));
      json_object_object_add (o, "forward_blocks", json_object_new_int ((int) rep.n_forward));
      json_object_object_add (o, "backward_blocks", json_object_new_int ((int) rep.n_backward));
      json_object_object_add (o, "phases_known", json_object_new_boolean (rep.phases_known));
      json_object_object_add (o, "collectives", json_object_new_int ((int) rep.n_collectives));
      json_object_object_add (o, "helper_ops", json_object_new_int ((int) rep.n_kernels));
      json_object_object_add (o, "stripped", json_object_new_int ((int) rep.n_stripped));
      json_object_object_add (o, "params_per_block", json_object_new_int64 (rep.params_per_block));
      json_object_object_add (o, "tokens", json_object_new_int64 (rep.tokens));
      json_object_object_add (o, "hidden", json_object_new_int64 (rep.hidden));
      json_object_object_add (o, "sizes_from", json_object_new_string (rep.sizes_inferred ? "Input Dims" : "defaults"));
      json_object_object_add (o, "original", weft_cli_metrics_json (&rep.original, NULL));
      json_object_object_add (o, "before", weft_cli_metrics_json (&rep.before, &rep.original));
      json_object_object_add (o, "after", weft_cli_metrics_json (&rep.after, &rep.original));
      json_object_object_add (o, "out", json_object_new_string (out));
      if (!weft_cli_json_print (o))
        return WEFT_EXIT_FAILURE;
    }
  else
    {
      printf ("%s: %s x %d on %u rank%s (%u group%s): %u forward + %u backward blocks from %s%s\n", path,
              weft_apply_strategy_to_string (p.strategy), p.degree, rep.n_ranks, rep.n_ranks == 1 ? "" : "s",
              rep.n_groups, rep.n_groups == 1 ? "" : "s", rep.n_forward, rep.n_backward,
              weft_block_source_to_string (rep.source), rep.phases_known ? "" : " (forward/backward not told apart)");
      printf ("  inserted %u collectives, %u helper ops; %u collectives stripped; sizes from %s: %" G_GINT64_FORMAT
              " params/block, %" G_GINT64_FORMAT " tokens, hidden %" G_GINT64_FORMAT "\n",
              rep.n_collectives, rep.n_kernels, rep.n_stripped, rep.sizes_inferred ? "Input Dims" : "defaults",
              rep.params_per_block, rep.tokens, rep.hidden);
      if (rep.n_stripped > 0)
        print_metrics ("original", &rep.original);
      print_metrics ("before", &rep.before);
      print_metrics ("after", &rep.after);
      printf ("wrote %s\n", out);
    }
  return WEFT_EXIT_OK;
}
