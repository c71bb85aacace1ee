/* test-compose-memory.c: the composer's memory model (compose-memory.c):
 * the [memory] events of composed traces read back through the real loader
 * give the model's peak; the timeline balances; AC modes order; the
 * figures scale with the shards. docs/composer.md, "Memory". */
#include "config.h"

#include <math.h>
#include <string.h>

#include "core/compose-allocator-private.h"
#include "core/compose-memory-private.h"
#include "testutil.h"
#include "weft/weft.h"

#define MIB (1024.0 * 1024.0)
/* what a rank holds between steps: its parameter shards, AdamW's state,
 * DDP's buckets and the two cuBLAS workspaces (32 MiB each) */
static double
resident (const WeftMemoryFigures *f)
{
  return f->params + f->optimizer + f->ddp_buckets + 64 * MIB;
}

static void
params (WeftComposeParams *p, const char *strategies, int dp, int tp, int cp, int ep, int layers)
{
  g_autoptr (GError) error = NULL;

  weft_compose_params_init (p);
  g_assert_true (weft_compose_parse_strategies (strategies, &p->strategies, &error));
  g_assert_no_error (error);
  p->dp = dp;
  p->tp = tp;
  p->cp = cp;
  p->ep = ep;
  p->model.layers = layers;
  if (ep > 1)
    g_assert_true (weft_compose_params_set_preset (p, "moe-small", &error));
  if (ep > 1)
    p->model.layers = layers;
  g_assert_true (weft_compose_params_validate (p, &error));
}

static const struct
{
  const char *strategies;
  int dp, tp, cp, ep, layers;
  gboolean sp, no_reshard, no_prefetch;
} cases[] = {
  { "fsdp", 8, 1, 1, 1, 3, FALSE, FALSE, FALSE },
  { "fsdp", 8, 1, 1, 1, 3, FALSE, TRUE, FALSE },
  { "fsdp", 4, 1, 1, 1, 2, FALSE, FALSE, TRUE },
  { "ddp", 4, 1, 1, 1, 2, FALSE, FALSE, FALSE },
  { "tp", 1, 4, 1, 1, 1, TRUE, FALSE, FALSE },
  { "fsdp,tp", 2, 4, 1, 1, 2, FALSE, FALSE, FALSE },
  { "fsdp,cp", 2, 1, 4, 1, 1, FALSE, FALSE, FALSE },
  { "fsdp,ep", 4, 1, 1, 4, 2, FALSE, FALSE, FALSE },
};

static void
case_params (WeftComposeParams *p, guint i)
{
  params (p, cases[i].strategies, cases[i].dp, cases[i].tp, cases[i].cp, cases[i].ep, cases[i].layers);
  p->sequence_parallel = cases[i].sp;
  p->reshard_after_forward = !cases[i].no_reshard;
  p->fsdp_prefetch = !cases[i].no_prefetch;
}

/* The composed files' [memory] events (loaded) are the model's timeline of
 * the loaded CPU spans: same count, same peak; the totals are what the rank
 * holds when the step begins (parameters, AdamW's states) plus the running
 * sum of the Bytes; the step ends with what it began with; allocated never
 * above reserved. */
static void
test_events_match_model (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      WeftComposeParams p;
      g_autoptr (GError) error = NULL;
      g_autoptr (WeftTrace) trace = NULL;
      WeftMemoryFigures fig;

      case_params (&p, i);
      /* the recomputing modes too: their events follow them */
      if (i == 1)
        p.ac = WEFT_AC_SELECTIVE_OP;
      else if (i == 2)
        {
          p.ac = WEFT_AC_SELECTIVE_LAYER;
          p.ac_layer_freq = 2;
        }
      else if (i == 3)
        p.ac = WEFT_AC_FULL;
      p.steps = i == 0 ? 2 : 1;
      p.iteration = MAX (p.iteration, p.steps);
      trace = weft_compose_trace (&p, &error);
      g_assert_no_error (error);
      /* the files follow the mode the composed compute recomputes with */
      weft_compose_memory_figures (&p, p.ac, &fig);
      for (guint r = 0; r < trace->ranks->len; r++)
        {
          WeftRank *rank = weft_trace_rank (trace, r);
          WeftMemoryPeak mp;
          gint64 peak = -1, min_alloc = G_MAXINT64;
          g_autoptr (GArray) tl = weft_compose_memory_timeline_from_trace (&p, p.ac, trace, r, &peak);
          const WeftMemorySample *last;

          g_assert_true (weft_rank_memory_peak (rank, G_MININT64, G_MAXINT64, &mp));
          g_assert_cmpuint (mp.n_events, ==, tl->len);
          g_assert_cmpint (mp.peak_reserved, ==, peak);
          g_assert_cmpint (mp.device, ==, rank->rank % p.hw.gpus_per_node);
          for (guint k = 0; k < tl->len; k++)
            {
              const WeftMemorySample *s = &g_array_index (tl, WeftMemorySample, k);
              min_alloc = MIN (min_alloc, s->allocated);
              g_assert_cmpint (s->reserved, >=, s->allocated);
              gint64 before = k ? g_array_index (tl, WeftMemorySample, k - 1).allocated : s->allocated - s->bytes;
              g_assert_cmpint (s->allocated, ==, before + s->bytes);
            }
          g_assert_cmpint (min_alloc, >=, 0);
          last = &g_array_index (tl, WeftMemorySample, tl->len - 1);
          /* each tensor rounds up to 512 B: a few hundred parameters */
          g_assert_cmpfloat (fabs ((double) (tl->len ? g_array_index (tl, WeftMemorySample, 0).allocated
                                                         - g_array_index (tl, WeftMemorySample, 0).bytes : 0)
                                   - resident (&fig)), <, 1 * MIB);
          g_assert_cmpint (last->allocated, ==, g_array_index (tl, WeftMemorySample, 0).allocated
                                                    - g_array_index (tl, WeftMemorySample, 0).bytes);
          /* the peak holds more than what persists: the step's own buffers */
          g_assert_cmpfloat ((double) peak, >, resident (&fig) + fig.act_loss);
          g_assert_cmpfloat ((double) peak, <, (double) p.hw.hbm_total_bytes);
        }
    }
}

static gint64
peak_of (const WeftComposeParams *p, WeftAcMode ac)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftTrace) trace = weft_compose_trace (p, &error);
  gint64 peak = 0;
  g_autoptr (GArray) tl = NULL;

  g_assert_no_error (error);
  tl = weft_compose_memory_timeline_from_trace (p, ac, trace, 0, &peak);
  g_assert_cmpuint (tl->len, >, 0);
  return peak;
}

/* none keeps every activation, selective about half, full each block's
 * input only: the peaks and the per-block figures order that way; full
 * saves 2 bytes x tokens x hidden per block. */
static void
test_ac_modes (void)
{
  WeftComposeParams p;
  WeftMemoryFigures none, sel, full;
  gint64 pn, ps, pf;
  double T;

  params (&p, "fsdp", 8, 1, 1, 1, 4);
  weft_compose_memory_figures (&p, WEFT_AC_NONE, &none);
  weft_compose_memory_figures (&p, WEFT_AC_SELECTIVE_OP, &sel);
  weft_compose_memory_figures (&p, WEFT_AC_FULL, &full);
  T = (double) p.model.seq * p.model.mbs;
  g_assert_cmpfloat (full.act_block, ==, 2 * T * p.model.hidden);
  g_assert_cmpfloat (full.act_block, <, sel.act_block);
  g_assert_cmpfloat (sel.act_block, <, none.act_block);
  g_assert_cmpfloat (none.act_block, ==, none.act_block_full);
  g_assert_cmpfloat (sel.act_block_full, ==, none.act_block);
  pn = peak_of (&p, WEFT_AC_NONE);
  ps = peak_of (&p, WEFT_AC_SELECTIVE_OP);
  pf = peak_of (&p, WEFT_AC_FULL);
  g_assert_cmpint (pf, <, ps);
  g_assert_cmpint (ps, <, pn);
  if (g_test_verbose ())
    g_printerr ("llama3-8b x 4, FSDP 8: peak none %.2f, selective %.2f, full %.2f GiB\n", pn / 1073741824.0,
                ps / 1073741824.0, pf / 1073741824.0);
}

/* The shards: FSDP divides the persistent figures by the shard count, TP
 * the blocks' parameters and activations, CP the activations (tokens). */
static void
test_shards (void)
{
  WeftComposeParams a, b;
  WeftMemoryFigures fa, fb;

  params (&a, "fsdp", 2, 1, 1, 1, 2);
  params (&b, "fsdp", 8, 1, 1, 1, 2);
  weft_compose_memory_figures (&a, WEFT_AC_DEFAULT, &fa);
  weft_compose_memory_figures (&b, WEFT_AC_DEFAULT, &fb);
  g_assert_cmpfloat (fabs (fa.params / fb.params - 4), <, 1e-9);
  g_assert_cmpfloat (fa.act_block, ==, fb.act_block);
  g_assert_cmpfloat (fa.unsharded_max, ==, fb.unsharded_max);

  params (&a, "fsdp", 2, 1, 1, 1, 2);
  params (&b, "fsdp,tp", 2, 4, 1, 1, 2);
  weft_compose_memory_figures (&a, WEFT_AC_NONE, &fa);
  weft_compose_memory_figures (&b, WEFT_AC_NONE, &fb);
  g_assert_cmpfloat (fb.params, <, fa.params / 3.9);
  g_assert_cmpfloat (fb.act_block, <, fa.act_block);
  g_assert_cmpfloat (fb.act_loss * 4, ==, fa.act_loss);
  b.sequence_parallel = TRUE;
  {
    WeftMemoryFigures fsp;
    weft_compose_memory_figures (&b, WEFT_AC_NONE, &fsp);
    g_assert_cmpfloat (fsp.act_block, <, fb.act_block);
  }

  params (&a, "fsdp", 2, 1, 1, 1, 1);
  params (&b, "fsdp,cp", 2, 1, 4, 1, 1);
  weft_compose_memory_figures (&a, WEFT_AC_DEFAULT, &fa);
  weft_compose_memory_figures (&b, WEFT_AC_DEFAULT, &fb);
  g_assert_cmpfloat (fabs (fa.act_block / fb.act_block - 4), <, 1e-9);
  g_assert_cmpint (fb.communicators, >, fa.communicators);
  g_assert_cmpfloat (fb.nccl, >, fa.nccl);
}

/* The caching allocator's rules (c10/cuda/CUDACachingAllocator.cpp),
 * each on a sequence whose outcome follows from one rule. */
static void
test_allocator_rules (void)
{
  gint64 bs, a0, a1;
  WeftAllocSim *sim = _weft_alloc_sim_new (FALSE, 0);
  int h, h2, h3;

  /* 512 B granules; small requests share a 2 MiB segment */
  h = _weft_alloc_sim_malloc (sim, 1, 7, &bs, &a0);
  g_assert_cmpint (bs, ==, 512);
  g_assert_cmpint (_weft_alloc_sim_reserved (sim), ==, 2 * MIB);
  h2 = _weft_alloc_sim_malloc (sim, 1000, 7, &bs, &a1);
  g_assert_cmpint (bs, ==, 1024);
  g_assert_cmpint (a1, ==, a0 + 512);   /* split from the same segment */
  g_assert_cmpint (_weft_alloc_sim_reserved (sim), ==, 2 * MIB);
  /* another stream never reuses those blocks */
  h3 = _weft_alloc_sim_malloc (sim, 1000, 13, NULL, NULL);
  g_assert_cmpint (_weft_alloc_sim_reserved (sim), ==, 4 * MIB);
  _weft_alloc_sim_release (sim, h);
  _weft_alloc_sim_release (sim, h2);
  _weft_alloc_sim_release (sim, h3);
  g_assert_cmpint (_weft_alloc_sim_allocated (sim), ==, 0);
  g_assert_cmpint (_weft_alloc_sim_reserved (sim), ==, 4 * MIB);   /* cached, not returned */
  /* a large request under 10 MiB takes a 20 MiB segment; the rest serves
   * the next large one (split: more than 1 MiB left) */
  h = _weft_alloc_sim_malloc (sim, 3 * MIB, 7, &bs, &a0);
  g_assert_cmpint (_weft_alloc_sim_reserved (sim), ==, 24 * MIB);
  h2 = _weft_alloc_sim_malloc (sim, 5 * MIB, 7, &bs, &a1);
  g_assert_cmpint (a1, ==, a0 + 3 * MIB);
  g_assert_cmpint (_weft_alloc_sim_reserved (sim), ==, 24 * MIB);
  /* 12 MiB left in that segment: a 12.5 MiB request gets its own segment,
   * rounded to 2 MiB */
  h3 = _weft_alloc_sim_malloc (sim, 12.5 * MIB, 7, &bs, NULL);
  g_assert_cmpint (bs, ==, 12.5 * MIB);
  g_assert_cmpint (_weft_alloc_sim_reserved (sim), ==, 38 * MIB);
  /* freed neighbours merge inside their segment, never across segments:
   * 20 MiB free in one segment + 14 MiB in the other cannot hold 30 MiB */
  _weft_alloc_sim_release (sim, h);
  _weft_alloc_sim_release (sim, h2);
  _weft_alloc_sim_release (sim, h3);
  h = _weft_alloc_sim_malloc (sim, 30 * MIB, 7, &bs, NULL);
  g_assert_cmpint (_weft_alloc_sim_reserved (sim), ==, 68 * MIB);
  /* best fit: the 14 MiB block, not the 20 MiB one, for 13 MiB */
  h2 = _weft_alloc_sim_malloc (sim, 13 * MIB, 7, &bs, &a0);
  g_assert_cmpint (bs, ==, 14 * MIB);   /* 1 MiB left: not split */
  g_assert_cmpint (_weft_alloc_sim_reserved (sim), ==, 68 * MIB);
  g_assert_cmpint (_weft_alloc_sim_peak_allocated (sim), ==, 44 * MIB);
  _weft_alloc_sim_free (sim);

  /* a capacity: the cache is flushed (segments without a live block) and
   * the allocation retried */
  sim = _weft_alloc_sim_new (FALSE, 40 * MIB);
  h = _weft_alloc_sim_malloc (sim, 30 * MIB, 7, NULL, NULL);
  _weft_alloc_sim_release (sim, h);
  h = _weft_alloc_sim_malloc (sim, 32 * MIB, 7, NULL, NULL);
  g_assert_cmpint (_weft_alloc_sim_retries (sim), ==, 1);
  g_assert_cmpint (_weft_alloc_sim_reserved (sim), ==, 32 * MIB);
  _weft_alloc_sim_free (sim);

  /* expandable segments: one segment per stream, grown in 20 MiB pages; a
   * freed block at its end grows into the next request */
  sim = _weft_alloc_sim_new (TRUE, 0);
  h = _weft_alloc_sim_malloc (sim, 30 * MIB, 7, NULL, &a0);
  g_assert_cmpint (_weft_alloc_sim_reserved (sim), ==, 40 * MIB);
  h2 = _weft_alloc_sim_malloc (sim, 12.5 * MIB, 7, NULL, &a1);
  g_assert_cmpint (a1, ==, a0 + 30 * MIB);
  g_assert_cmpint (_weft_alloc_sim_reserved (sim), ==, 60 * MIB);
  _weft_alloc_sim_release (sim, h2);
  h2 = _weft_alloc_sim_malloc (sim, 35 * MIB, 7, NULL, &a1);
  g_assert_cmpint (a1, ==, a0 + 30 * MIB);
  g_assert_cmpint (_weft_alloc_sim_reserved (sim), ==, 80 * MIB);
  _weft_alloc_sim_release (sim, h);
  _weft_alloc_sim_release (sim, h2);
  g_assert_cmpint (_weft_alloc_sim_allocated (sim), ==, 0);
  /* everything merged: 80 MiB in one block */
  h = _weft_alloc_sim_malloc (sim, 80 * MIB, 7, NULL, &a1);
  g_assert_cmpint (a1, ==, a0);
  g_assert_cmpint (_weft_alloc_sim_reserved (sim), ==, 80 * MIB);
  _weft_alloc_sim_free (sim);
}

/* The composed step's reserved peak comes from the allocator: above the
 * allocated peak (fragmentation) in both modes, the same allocated peak,
 * no cache flush on an 80 GB device. */
static void
test_fragmentation (void)
{
  WeftComposeParams p;
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftTrace) trace = NULL;
  WeftMemoryPeaks exp, seg;
  WeftRank *rank;
  g_autoptr (GArray) spans = g_array_new (FALSE, FALSE, sizeof (WeftComposeSpan));

  params (&p, "fsdp", 8, 1, 1, 1, 4);
  p.ac = WEFT_AC_SELECTIVE_OP;
  trace = weft_compose_trace (&p, &error);
  g_assert_no_error (error);
  rank = weft_trace_rank (trace, 0);
  for (guint i = 0; i < rank->events->len; i++)
    {
      const WeftEvent *ev = &g_array_index (rank->events, WeftEvent, i);
      WeftComposeSpan sp;
      if (ev->ph != WEFT_PH_X || (ev->category != WEFT_CAT_USER_ANNOTATION && ev->category != WEFT_CAT_PYTHON_FUNCTION
                                  && ev->category != WEFT_CAT_CPU_OP))
        continue;
      sp.name = weft_rank_string (rank, ev->name);
      sp.begin_ns = ev->ts;
      sp.end_ns = weft_event_end (rank, ev);
      g_array_append_val (spans, sp);
    }
  g_array_unref (_weft_compose_memory_timeline_full (&p, p.ac, (const WeftComposeSpan *) (const void *) spans->data,
                                                     spans->len, TRUE, &exp));
  g_array_unref (_weft_compose_memory_timeline_full (&p, p.ac, (const WeftComposeSpan *) (const void *) spans->data,
                                                     spans->len, FALSE, &seg));
  if (g_test_verbose ())
    g_printerr ("llama3-8b x 4, FSDP 8, selective: allocated %.2f GiB, reserved %.2f (expandable) / %.2f (segments)\n",
                exp.allocated / 1073741824.0, exp.reserved / 1073741824.0, seg.reserved / 1073741824.0);
  g_assert_cmpint (exp.allocated, ==, seg.allocated);
  g_assert_cmpint (exp.reserved, >, exp.allocated);
  g_assert_cmpint (seg.reserved, >, seg.allocated);
  g_assert_cmpint (exp.retries, ==, 0);
  g_assert_cmpint (seg.retries, ==, 0);
}

static void
test_ac_names (void)
{
  g_autoptr (GError) error = NULL;
  WeftAcMode m = WEFT_AC_NONE;
  int freq = 0;

  for (int i = WEFT_AC_NONE; i <= WEFT_AC_FULL; i++)
    {
      g_assert_true (weft_compose_parse_ac (weft_compose_ac_to_string ((WeftAcMode) i), &m, &freq, &error));
      g_assert_cmpint (m, ==, i);
    }
  g_assert_cmpstr (weft_compose_ac_to_string (WEFT_AC_DEFAULT), ==, "selective");
  g_assert_false (weft_compose_parse_ac ("partial", &m, &freq, &error));
  g_assert_error (error, WEFT_ERROR, WEFT_ERROR_INVALID);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/compose-memory/events-match-model", test_events_match_model);
  g_test_add_func ("/compose-memory/ac-modes", test_ac_modes);
  g_test_add_func ("/compose-memory/shards", test_shards);
  g_test_add_func ("/compose-memory/ac-names", test_ac_names);
  g_test_add_func ("/compose-memory/allocator-rules", test_allocator_rules);
  g_test_add_func ("/compose-memory/fragmentation", test_fragmentation);
  return g_test_run ();
}
