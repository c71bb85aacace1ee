/* bench-apply.c: applying a strategy to a profile (weft-apply.h).
 *
 *   bench-apply [--layers N] [--ranks N]
 *
 * Input: rank 0 of a composed 2-rank DDP step (Llama-3-8B shape, --layers
 * blocks, default 32) as a one-rank profile, replicated to --ranks ranks
 * (default 8) with weft_apply_replicate(); and, when present, the shared
 * synthetic fsdp8 trace and HTA's df_index_resolver (216k events).
 * Measured: weft_apply_find_blocks per method, weft_apply_strategy (strip +
 * detect + insert + re-solve, as the window's Apply) for fsdp, tp, ddp and
 * cp-ring, and undo / redo of the Apply entry. Median of 3 runs. Figures in
 * docs/benchmarks.md (## Apply). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../testutil.h"
#include "weft/weft.h"
#include "weft/weft-apply.h"
#include "weft/weft-compose.h"

static double
median_ms (gint64 *v, guint n)
{
  qsort (v, n, sizeof *v, (int (*) (const void *, const void *)) weft_test_cmp_i64);
  return v[n / 2] / 1e6;
}

static WeftTrace *
profile (int layers)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) texts = NULL;
  WeftComposeParams p;
  WeftTrace *t;
  WeftRank *rank;
  gsize len;
  const char *data;

  weft_compose_params_init (&p);
  weft_compose_parse_strategies ("ddp", &p.strategies, NULL);
  p.dp = 2;
  p.model.layers = layers;
  texts = weft_compose_json (&p, &error);
  if (texts == NULL)
    g_error ("compose: %s", error->message);
  data = g_bytes_get_data (g_ptr_array_index (texts, 0), &len);
  rank = weft_rank_load_buffer ("bench/rank0_trace.json", data, len, NULL, &error);
  if (rank == NULL)
    g_error ("load: %s", error->message);
  t = weft_trace_new ();
  weft_trace_add_rank (t, rank);
  weft_trace_index_across_ranks (t);
  return t;
}

static void
bench_blocks (const char *name, WeftTrace *t)
{
  static const WeftBlockSource methods[] = { WEFT_BLOCKS_NONE, WEFT_BLOCKS_MODULE, WEFT_BLOCKS_FSDP,
                                             WEFT_BLOCKS_PATTERN };
  static const char *names[] = { "auto", "module", "fsdp", "pattern" };
  for (guint m = 0; m < G_N_ELEMENTS (methods); m++)
    {
      gint64 v[3];
      guint nf = 0, nb = 0;
      gboolean ok = TRUE;
      for (guint k = 0; k < 3; k++)
        {
          gint64 t0 = weft_test_now_ns ();
          WeftBlocks *bl = weft_apply_find_blocks_by (t, 0, methods[m], NULL);
          v[k] = weft_test_now_ns () - t0;
          ok = bl != NULL;
          if (bl)
            {
              nf = bl->n_forward;
              nb = bl->n_backward;
            }
          weft_blocks_free (bl);
        }
      if (ok)
        printf ("%-28s blocks %-8s %8.2f ms  %u fw + %u bw\n", name, names[m], median_ms (v, 3), nf, nb);
      else
        printf ("%-28s blocks %-8s %8.2f ms  none\n", name, names[m], median_ms (v, 3));
    }
}

static void
bench_apply (const char *name, WeftTrace *(*make) (gpointer), gpointer data, WeftApplyStrategy st, int degree,
             gboolean strip)
{
  gint64 va[3], vu[3], vr[3];
  WeftApplyReport rep = { 0 };
  for (guint k = 0; k < 3; k++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (WeftEditSession) s = weft_edit_session_new (make (data), NULL, &error);
      WeftApplyParams p;
      gint64 t0;
      if (s == NULL)
        g_error ("%s", error->message);
      weft_apply_params_init (&p);
      p.strategy = st;
      p.degree = degree;
      p.strip_collectives = strip;
      t0 = weft_test_now_ns ();
      if (!weft_apply_strategy (s, &p, &rep, &error))
        g_error ("%s", error->message);
      va[k] = weft_test_now_ns () - t0;
      t0 = weft_test_now_ns ();
      weft_edit_session_undo (s, NULL);
      vu[k] = weft_test_now_ns () - t0;
      t0 = weft_test_now_ns ();
      weft_edit_session_redo (s, NULL);
      vr[k] = weft_test_now_ns () - t0;
    }
  printf ("%-28s %-12s x%-2d apply %8.1f ms  undo %7.1f ms  redo %7.1f ms  (%u collectives, %u helper ops)\n", name,
          weft_apply_strategy_to_string (st), degree, median_ms (va, 3), median_ms (vu, 3), median_ms (vr, 3),
          rep.n_collectives, rep.n_kernels);
}

typedef struct
{
  WeftTrace *single;
  int        ranks;
} Rep;

static WeftTrace *
make_replica (gpointer data)
{
  Rep *r = data;
  WeftTrace *t = weft_apply_replicate (r->single, r->ranks, NULL);
  if (t == NULL)
    g_error ("replicate failed");
  return t;
}

static WeftTrace *
make_loaded (gpointer data)
{
  g_autoptr (GError) error = NULL;
  WeftTrace *t = weft_trace_load (data, NULL, NULL, &error);
  if (t == NULL)
    g_error ("%s", error->message);
  return t;
}

int
main (int argc, char **argv)
{
  int layers = 32, ranks = 8;
  GOptionEntry entries[] = {
    { "layers", 0, 0, G_OPTION_ARG_INT, &layers, "Blocks of the profile (32)", "N" },
    { "ranks", 0, 0, G_OPTION_ARG_INT, &ranks, "Ranks to replicate to (8)", "N" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("- benchmark Apply");
  g_autoptr (GError) error = NULL;
  g_autofree char *fsdp8 = weft_test_trace_path ("synthetic/fsdp8/profiling/traces/iteration_10");
  g_autofree char *dfi = weft_test_trace_path ("HolisticTraceAnalysis/df_index_resolver/df_index_resolver.json.gz");
  g_autofree char *name = NULL;
  Rep rep;

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      fprintf (stderr, "%s\n", error->message);
      return 2;
    }
  rep.single = profile (layers);
  rep.ranks = ranks;
  name = g_strdup_printf ("llama3-8b x%d, 1 rank", layers);
  printf ("%s: %u events\n", name, weft_trace_rank (rep.single, 0)->events->len);
  bench_blocks (name, rep.single);
  {
    gint64 v[3];
    for (guint k = 0; k < 3; k++)
      {
        gint64 t0 = weft_test_now_ns ();
        WeftTrace *t = make_replica (&rep);
        v[k] = weft_test_now_ns () - t0;
        weft_trace_free (t);
      }
    printf ("%-28s replicate to %d ranks %8.1f ms\n", name, ranks, median_ms (v, 3));
  }
  g_free (name);
  name = g_strdup_printf ("llama3-8b x%d, %d ranks", layers, ranks);
  bench_apply (name, make_replica, &rep, WEFT_APPLY_FSDP, ranks, TRUE);
  bench_apply (name, make_replica, &rep, WEFT_APPLY_TP, MIN (ranks, 8), TRUE);
  bench_apply (name, make_replica, &rep, WEFT_APPLY_DDP, ranks, TRUE);
  bench_apply (name, make_replica, &rep, WEFT_APPLY_CP_RING, MIN (ranks, 4), TRUE);
  if (fsdp8 != NULL)
    {
      g_autoptr (WeftTrace) t = make_loaded (fsdp8);
      bench_blocks ("synthetic fsdp8 rank 0", t);
      bench_apply ("synthetic fsdp8 (8 ranks)", make_loaded, fsdp8, WEFT_APPLY_TP, 2, FALSE);
    }
  if (dfi != NULL)
    {
      g_autoptr (WeftTrace) t = make_loaded (dfi);
      bench_blocks ("df_index_resolver", t);
    }
  weft_trace_free (rep.single);
  return 0;
}
