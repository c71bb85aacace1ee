/* test-compose-pp.c: pipeline parallelism in the composer, the solver's
 * P2P rendezvous across stages and the bubble metric, against the textbook
 * (the Ultra-Scale Playbook / Megatron: GPipe and 1F1B idle (p - 1) / (m +
 * p - 1) of the step, interleaved 1F1B (p - 1) / (v m + p - 1)). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

/* Uniform stages, negligible P2P: Llama-3-70B blocks (the final norm and
 * the loss, which only the last stage runs, weigh little against a 70B
 * block), one block per (virtual) stage, a 32-word vocabulary, no jitter
 * and a near-instant interconnect. */
static void
textbook_params (WeftComposeParams *p, int pp, int m, WeftPpSchedule sched, int v)
{
  g_autoptr (GError) error = NULL;

  weft_compose_params_init (p);
  g_assert_true (weft_compose_params_set_preset (p, "llama3-70b", &error));
  p->strategies = WEFT_STRATEGY_PP;
  p->dp = 1;
  p->pp = pp;
  p->pp_schedule = sched;
  p->pp_stages_per_rank = v;
  p->model.layers = pp * v;
  p->model.mbs = m;
  p->model.vocab = 32;
  p->model.seq = 4096;
  p->jitter = 0;
  p->hw.nvlink_bus_bw = 1e6;
  p->hw.nvlink_alpha_ns = 0;
}

/* The mean bubble % over the pipeline ranks (each must be one). */
static double
mean_bubble_pct (WeftTrace *trace, WeftSolver *solver)
{
  double sum = 0;

  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftBubble b;
      g_assert_true (weft_solver_pipeline_bubble (solver, r, WEFT_SOLVER_ALL_STEPS, &b));
      g_assert_true (b.pipeline);
      g_assert_cmpint (b.bubble, >, 0);
      g_assert_cmpint (b.bubble, <, b.step_time);
      sum += b.bubble_pct;
    }
  return sum / trace->ranks->len;
}

static double
measured_bubble (int pp, int m, WeftPpSchedule sched, int v)
{
  WeftComposeParams p;
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftTrace) trace = NULL;
  g_autoptr (WeftSolver) solver = NULL;

  textbook_params (&p, pp, m, sched, v);
  trace = weft_compose_trace (&p, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (trace->ranks->len, ==, (guint) pp);
  solver = weft_solver_new (trace, &error);
  g_assert_no_error (error);
  return mean_bubble_pct (trace, solver);
}

static void
test_textbook (void)
{
  static const int pps[] = { 2, 4, 8 }, ms[] = { 4, 8, 16 };

  for (guint i = 0; i < G_N_ELEMENTS (pps); i++)
    for (guint k = 0; k < G_N_ELEMENTS (ms); k++)
      {
        int p = pps[i], m = ms[k];
        double want = 100.0 * (p - 1) / (m + p - 1);
        double gpipe = measured_bubble (p, m, WEFT_PP_GPIPE, 1);
        double f1b = m >= p ? measured_bubble (p, m, WEFT_PP_1F1B, 1) : -1;

        g_test_message ("p %d m %d: textbook %.2f %%, GPipe %.2f %%, 1F1B %.2f %%", p, m, want, gpipe, f1b);
        g_assert_cmpfloat_with_epsilon (gpipe, want, 2.0);
        if (m >= p)   /* Schedule1F1B needs m >= p */
          g_assert_cmpfloat_with_epsilon (f1b, want, 2.0);
        if (m % p == 0)
          {
            double want_i = 100.0 * (p - 1) / (2 * m + p - 1);
            double il = measured_bubble (p, m, WEFT_PP_INTERLEAVED_1F1B, 2);
            g_test_message ("p %d m %d v 2: textbook %.2f %%, interleaved 1F1B %.2f %%", p, m, want_i, il);
            g_assert_cmpfloat_with_epsilon (il, want_i, 2.0);
          }
      }
}

/* Zero bubble (ZB1P): the weight gradients fill the cooldown, below 1F1B. */
static void
test_zb_below_1f1b (void)
{
  static const int cfg[][2] = { { 2, 8 }, { 4, 8 }, { 4, 16 }, { 8, 8 } };

  for (guint i = 0; i < G_N_ELEMENTS (cfg); i++)
    {
      double f1b = measured_bubble (cfg[i][0], cfg[i][1], WEFT_PP_1F1B, 1);
      double zb = measured_bubble (cfg[i][0], cfg[i][1], WEFT_PP_ZB, 1);
      g_test_message ("p %d m %d: 1F1B %.2f %%, ZB %.2f %%", cfg[i][0], cfg[i][1], f1b, zb);
      g_assert_cmpfloat (zb, <, f1b - 2.0);
    }
}

/* The V schedules (ZBV, DualPipeV): below 1F1B, ZBV below interleaved
 * 1F1B with the same 2 stages per rank (the ZB paper: ZB-V's bubble is
 * near zero once m >= 2p; its weight passes fill what interleaved 1F1B
 * leaves idle), and ZBV's a small fraction of 1F1B's. */
static void
test_v_below (void)
{
  static const int cfg[][2] = { { 2, 8 }, { 4, 8 }, { 4, 16 }, { 8, 16 } };

  for (guint i = 0; i < G_N_ELEMENTS (cfg); i++)
    {
      int p = cfg[i][0], m = cfg[i][1];
      double f1b = measured_bubble (p, m, WEFT_PP_1F1B, 1);
      double il = measured_bubble (p, m, WEFT_PP_INTERLEAVED_1F1B, 2);
      double zbv = measured_bubble (p, m, WEFT_PP_ZBV, 2);
      double dual = measured_bubble (p, m, WEFT_PP_DUALPIPEV, 2);
      g_test_message ("p %d m %d: 1F1B %.2f %%, interleaved (v 2) %.2f %%, ZBV %.2f %%, DualPipeV %.2f %%", p, m, f1b,
                      il, zbv, dual);
      g_assert_cmpfloat (zbv, <, f1b - 2.0);
      g_assert_cmpfloat (zbv, <, il);
      g_assert_cmpfloat (zbv, <, f1b / 2);
      g_assert_cmpfloat (dual, <, f1b - 2.0);
    }
}

/* The V: stage s on pp rank s (s < p) or 2p - 1 - s, so rank r runs the
 * blocks of stages r and 2p - 1 - r (one block per stage here), and the
 * turn (stages p - 1 and p, both on the last rank) passes its activations
 * locally: 2 m transfers (F and B) per stage boundary but that one. */
static void
test_v_placement (void)
{
  static const WeftPpSchedule scheds[] = { WEFT_PP_ZBV, WEFT_PP_DUALPIPEV };

  for (guint i = 0; i < G_N_ELEMENTS (scheds); i++)
    {
      WeftComposeParams p;
      g_autoptr (GError) error = NULL;
      g_autoptr (WeftTrace) trace = NULL;
      const int pp = 4, m = 8;
      guint n_p2p = 0;

      textbook_params (&p, pp, m, scheds[i], 2);
      trace = weft_compose_trace (&p, &error);
      g_assert_no_error (error);
      for (guint r = 0; r < trace->ranks->len; r++)
        {
          WeftRank *rank = weft_trace_rank (trace, r);
          guint seen = 0;
          for (guint32 e = 0; e < rank->events->len; e++)
            {
              const char *name = weft_rank_string (rank, weft_rank_event (rank, e)->name);
              int l;
              if (sscanf (name, "nn.Module: TransformerBlock_%d", &l) == 1 && strstr (name, "backward") == NULL)
                {
                  g_assert_true (l == (int) r || l == 2 * pp - 1 - (int) r);
                  seen |= 1u << l;
                }
            }
          g_assert_cmpuint (seen, ==, (1u << r) | (1u << (2 * pp - 1 - r)));
        }
      for (guint k = 0; k < trace->instances->len; k++)
        {
          const WeftCollInstance *inst = &g_array_index (trace->instances, WeftCollInstance, k);
          int a, b;
          if (inst->type != WEFT_COLL_SEND && inst->type != WEFT_COLL_RECV)
            continue;
          a = weft_trace_rank (trace, g_array_index (inst->members, WeftInstanceMember, 0).rank_index)->rank;
          b = weft_trace_rank (trace, g_array_index (inst->members, WeftInstanceMember, 1).rank_index)->rank;
          g_assert_cmpint (ABS (a - b), ==, 1);   /* neighbours in the V only */
          n_p2p++;
        }
      g_test_message ("%s: %u P2P pairs", weft_compose_pp_schedule_to_string (scheds[i]), n_p2p);
      g_assert_cmpuint (n_p2p, ==, 2 * m * (2 * pp - 2));
    }
}

static gint64
rank_peak (WeftTrace *trace, guint r)
{
  WeftMemoryPeak mp;

  g_assert_true (weft_rank_memory_peak (weft_trace_rank (trace, r), G_MININT64, G_MAXINT64, &mp));
  return mp.peak_reserved;
}

/* 1F1B keeps at most p - s microbatches' activations alive on stage s,
 * GPipe all m: 1F1B's peak is below GPipe's on every stage, the more so on
 * the later ones, and the last stage keeps one. */
static void
test_memory (void)
{
  WeftComposeParams p;
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftTrace) g = NULL;
  g_autoptr (WeftTrace) f = NULL;

  weft_compose_params_init (&p);
  p.strategies = WEFT_STRATEGY_PP;
  p.dp = 1;
  p.pp = 4;
  p.model.layers = 8;
  p.model.mbs = 8;
  p.model.vocab = 32;
  p.pp_schedule = WEFT_PP_GPIPE;
  g = weft_compose_trace (&p, &error);
  g_assert_no_error (error);
  p.pp_schedule = WEFT_PP_1F1B;
  f = weft_compose_trace (&p, &error);
  g_assert_no_error (error);
  for (guint r = 0; r < 4; r++)
    {
      g_test_message ("stage %u: GPipe %.2f GiB, 1F1B %.2f GiB", r, rank_peak (g, r) / 1073741824.0,
                      rank_peak (f, r) / 1073741824.0);
      g_assert_cmpint (rank_peak (f, r), <, rank_peak (g, r));
      if (r > 0)
        g_assert_cmpint (rank_peak (f, r), <, rank_peak (f, r - 1));
    }
  /* GPipe's stages all hold m microbatches: within 5 % of each other */
  g_assert_cmpfloat ((double) rank_peak (g, 1) / (double) rank_peak (g, 2), >, 0.95);
  g_assert_cmpfloat ((double) rank_peak (g, 1) / (double) rank_peak (g, 2), <, 1.05);
}

/* Memory of the V schedules against their papers, in the units they use
 * (one microbatch's activations of one 1F1B stage, M_B: here 2 blocks;
 * a V chunk holds half of them). ZB paper (Qi et al. 2023), section 6:
 * ZB-V keeps 1F1B's peak, p M_B, on every worker (1F1B: p - s on stage s),
 * so each rank's peak is within 5 % of 1F1B's first stage's, and balanced.
 * DeepSeek-V3 (Table 2; DualPipe's README for DualPipeV): PP + 1 chunk
 * microbatches in flight against 1F1B's PP = 2p chunks, half an M_B more
 * than 1F1B's first stage: M_B measured as 1F1B's stage 0 - stage 1. */
static void
test_v_memory (void)
{
  WeftComposeParams p;
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftTrace) f = NULL;
  g_autoptr (WeftTrace) zbv = NULL;
  g_autoptr (WeftTrace) dual = NULL;
  double mb, f0, extra;

  weft_compose_params_init (&p);
  p.strategies = WEFT_STRATEGY_PP;
  p.dp = 1;
  p.pp = 4;
  p.model.layers = 8;
  p.model.mbs = 8;
  p.model.vocab = 32;
  f = weft_compose_trace (&p, &error);
  g_assert_no_error (error);
  p.pp_schedule = WEFT_PP_ZBV;
  zbv = weft_compose_trace (&p, &error);
  g_assert_no_error (error);
  p.pp_schedule = WEFT_PP_DUALPIPEV;
  dual = weft_compose_trace (&p, &error);
  g_assert_no_error (error);
  f0 = (double) rank_peak (f, 0);
  mb = f0 - (double) rank_peak (f, 1);
  g_assert_cmpfloat (mb, >, 0);
  for (guint r = 0; r < 4; r++)
    {
      g_test_message ("rank %u: 1F1B %.2f GiB, ZBV %.2f GiB, DualPipeV %.2f GiB", r, rank_peak (f, r) / 1073741824.0,
                      rank_peak (zbv, r) / 1073741824.0, rank_peak (dual, r) / 1073741824.0);
      g_assert_cmpfloat (fabs ((double) rank_peak (zbv, r) / f0 - 1.0), <, 0.05);
      g_assert_cmpint (rank_peak (dual, r), >, rank_peak (zbv, r));
    }
  extra = ((double) rank_peak (dual, 0) - f0) / mb;
  g_test_message ("DualPipeV's first rank: 1F1B's first stage + %.2f M_B (M_B %.2f GiB)", extra, mb / 1073741824.0);
  g_assert_cmpfloat (extra, >, 0.25);
  g_assert_cmpfloat (extra, <, 0.75);
}

/* The memory model per stage rank: each stage rank's units only (their
 * parameters add up to the whole model's), and the microbatches in flight
 * as each schedule keeps them (counted in (stage, microbatch) pairs, from
 * the trace): GPipe m, 1F1B p - s (Narayanan et al. 2021), ZBV 2p chunks
 * on every rank (p of a 1F1B stage: the ZB paper), DualPipeV 2p + 1
 * (DeepSeek-V3's PP + 1). */
static void
test_memory_stages (void)
{
  static const WeftPpSchedule scheds[] = { WEFT_PP_GPIPE, WEFT_PP_1F1B, WEFT_PP_ZBV, WEFT_PP_DUALPIPEV };
  const int pp = 4, m = 8;

  for (guint i = 0; i < G_N_ELEMENTS (scheds); i++)
    {
      WeftComposeParams p;
      WeftMemoryFigures whole;
      g_autoptr (GError) error = NULL;
      g_autoptr (WeftTrace) trace = NULL;
      double params = 0;
      int blocks = 0;

      weft_compose_params_init (&p);
      p.strategies = WEFT_STRATEGY_PP;
      p.dp = 1;
      p.pp = pp;
      p.model.layers = 8;
      p.model.mbs = m;
      p.model.vocab = 32;
      p.pp_schedule = scheds[i];
      trace = weft_compose_trace (&p, &error);
      g_assert_no_error (error);
      weft_compose_memory_figures (&p, p.ac, &whole);
      for (guint r = 0; r < trace->ranks->len; r++)
        {
          WeftMemoryStageFigures sf;
          int s = weft_trace_rank (trace, r)->rank, want;
          g_assert_true (weft_compose_memory_stage_figures (&p, p.ac, weft_trace_rank (trace, r), &sf));
          g_assert_cmpint (sf.stage_rank, ==, s);
          g_assert_cmpint (sf.n_stages, ==, weft_compose_pp_stages_per_rank (&p));
          for (int k = 0; k < sf.n_stages; k++)
            g_assert_cmpint (weft_compose_pp_stage_rank (&p, sf.stages[k]), ==, s);
          want = scheds[i] == WEFT_PP_GPIPE ? m
                 : scheds[i] == WEFT_PP_1F1B ? MIN (m, pp - s)
                 : scheds[i] == WEFT_PP_ZBV  ? 2 * pp
                                             : 2 * pp + 1;
          g_test_message ("%s stage %d: %d in flight, %.2f GiB of activations, params %.2f GiB",
                          weft_compose_pp_schedule_to_string (scheds[i]), s, sf.in_flight_max,
                          sf.act_in_flight_max / 1073741824.0, sf.params / 1073741824.0);
          g_assert_cmpint (sf.in_flight_max, ==, want);
          g_assert_cmpfloat (sf.act_in_flight_max, >, 0);
          g_assert_cmpfloat (sf.act_in_flight_max, <=, want * sf.act_microbatch / sf.n_stages * 1.01);
          params += sf.params;
          blocks += sf.blocks;
        }
      g_assert_cmpint (blocks, ==, p.model.layers);
      g_assert_cmpfloat (fabs (params / whole.params - 1.0), <, 1e-9);
    }
}

/* Every composed PP trace: each send pairs with one receive (a two-member
 * P2P instance of a rank and its neighbour stage's same position), the
 * solver finds no inferred edge contradicted and no unexplained start. */
static void
assert_consistent (const WeftComposeParams *p, const char *what)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftTrace) trace = weft_compose_trace (p, &error);
  g_autoptr (WeftSolver) solver = NULL;
  WeftSolverStats st;
  guint n_p2p = 0;
  int inner;

  g_assert_no_error (error);
  inner = (int) trace->ranks->len / p->pp;
  for (guint k = 0; k < trace->instances->len; k++)
    {
      const WeftCollInstance *inst = &g_array_index (trace->instances, WeftCollInstance, k);
      int a, b;
      if (inst->type != WEFT_COLL_SEND && inst->type != WEFT_COLL_RECV)
        continue;
      n_p2p++;
      g_assert_cmpuint (inst->members->len, ==, 2);
      a = weft_trace_rank (trace, g_array_index (inst->members, WeftInstanceMember, 0).rank_index)->rank;
      b = weft_trace_rank (trace, g_array_index (inst->members, WeftInstanceMember, 1).rank_index)->rank;
      g_assert_cmpint (a % inner, ==, b % inner);
      g_assert_cmpint (a / inner, !=, b / inner);
    }
  g_assert_cmpuint (n_p2p, >, 0);
  solver = weft_solver_new (trace, &error);
  g_assert_no_error (error);
  weft_solver_stats (solver, &st);
  g_test_message ("%s: %u ranks, %u P2P pairs, %u cross-stream edges, %u contradicted, %u unexplained", what,
                  trace->ranks->len, n_p2p, st.n_cross_stream, st.n_inferred_dropped, st.n_unexplained);
  if (st.n_unexplained != 0)
    for (guint r = 0; r < trace->ranks->len; r++)
      {
        WeftRank *rank = weft_trace_rank (trace, r);
        for (guint32 e = 0; e < rank->events->len; e++)
          if ((weft_rank_event (rank, e)->flags & WEFT_EVENT_GPU_OP) && weft_solver_is_node (solver, r, e)
              && weft_solver_binding (solver, r, e, NULL, NULL) == WEFT_DEP_NONE)
            g_test_message ("rank %u: %s at %" G_GINT64_FORMAT " released at its observed start", r,
                            weft_rank_string (rank, weft_rank_event (rank, e)->name), weft_solver_start (solver, r, e));
      }
  if (st.n_inferred_dropped != 0 || st.n_unexplained != 0 || st.n_instances_dissolved != 0)
    g_error ("%s: %u inferred edges contradicted, %u unexplained starts, %u instances dissolved", what,
             st.n_inferred_dropped, st.n_unexplained, st.n_instances_dissolved);
}

static void
test_consistent (void)
{
  static const WeftPpSchedule scheds[] = { WEFT_PP_GPIPE, WEFT_PP_1F1B, WEFT_PP_INTERLEAVED_1F1B, WEFT_PP_LOOPED_BFS,
                                           WEFT_PP_ZB,    WEFT_PP_ZBV,  WEFT_PP_DUALPIPEV };
  WeftComposeParams p;

  for (guint i = 0; i < G_N_ELEMENTS (scheds); i++)
    {
      weft_compose_params_init (&p);
      p.strategies = WEFT_STRATEGY_PP;
      p.dp = 1;
      p.pp = 4;
      p.model.layers = 8;
      p.model.mbs = 8;
      p.pp_schedule = scheds[i];
      assert_consistent (&p, weft_compose_pp_schedule_to_string (scheds[i]));
    }
  /* composed with the others, as torchtitan does: FSDP + TP + PP (3D),
   * FSDP + CP + PP, and FSDP + EP + PP on a MoE */
  weft_compose_params_init (&p);
  p.strategies = WEFT_STRATEGY_FSDP | WEFT_STRATEGY_TP | WEFT_STRATEGY_PP;
  p.dp = 2;
  p.tp = 2;
  p.pp = 2;
  p.model.layers = 4;
  p.model.mbs = 4;
  p.sequence_parallel = TRUE;
  assert_consistent (&p, "fsdp 2 + tp-sp 2 + pp 2 (1f1b)");
  p.pp_schedule = WEFT_PP_INTERLEAVED_1F1B;
  assert_consistent (&p, "fsdp 2 + tp-sp 2 + pp 2 (interleaved)");
  p.pp_schedule = WEFT_PP_ZBV;
  assert_consistent (&p, "fsdp 2 + tp-sp 2 + pp 2 (zbv)");
  p.pp_schedule = WEFT_PP_DUALPIPEV;
  assert_consistent (&p, "fsdp 2 + tp-sp 2 + pp 2 (dualpipev)");
  weft_compose_params_init (&p);
  p.strategies = WEFT_STRATEGY_FSDP | WEFT_STRATEGY_CP | WEFT_STRATEGY_PP;
  p.dp = 2;
  p.cp = 2;
  p.pp = 2;
  p.model.layers = 2;
  p.model.mbs = 2;
  assert_consistent (&p, "fsdp 2 + cp 2 + pp 2");
  {
    g_autoptr (GError) error = NULL;
    weft_compose_params_init (&p);
    g_assert_true (weft_compose_params_set_preset (&p, "moe-small", &error));
    p.strategies = WEFT_STRATEGY_FSDP | WEFT_STRATEGY_EP | WEFT_STRATEGY_PP;
    p.dp = 4;
    p.ep = 2;
    p.pp = 2;
    p.model.layers = 2;
    p.model.mbs = 2;
    assert_consistent (&p, "fsdp 4 + ep 2 + pp 2");
  }
}

/* The send/recv pairs are rendezvous across ranks: holding stage 0's first
 * forward back by d re-times the later stages by d, and the critical path
 * runs through every stage. */
static void
test_drag_stage0 (void)
{
  WeftComposeParams p;
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftTrace) trace = NULL;
  g_autoptr (WeftSolver) solver = NULL;
  g_autoptr (GArray) path = NULL;
  WeftRank *r0, *rl;
  guint last;
  guint32 first = WEFT_NONE, lane = WEFT_NONE;
  const gint64 d = 5000000;   /* 5 ms */
  g_autofree gint64 *before = NULL;
  gboolean on[4] = { FALSE, FALSE, FALSE, FALSE };

  textbook_params (&p, 4, 4, WEFT_PP_1F1B, 1);
  p.jitter = 0.03;
  trace = weft_compose_trace (&p, &error);
  g_assert_no_error (error);
  solver = weft_solver_new (trace, &error);
  g_assert_no_error (error);
  r0 = weft_trace_rank (trace, 0);
  last = trace->ranks->len - 1;
  rl = weft_trace_rank (trace, last);
  /* stage 0's first GEMM: its first forward's */
  for (guint i = 0; i < r0->events->len && first == WEFT_NONE; i++)
    {
      const WeftEvent *ev = weft_rank_event (r0, i);
      if ((ev->flags & WEFT_EVENT_GPU_OP) && ev->kclass == WEFT_KCLASS_GEMM)
        first = i;
    }
  g_assert_cmpuint (first, !=, WEFT_NONE);
  {
    WeftBubble b;
    g_assert_true (weft_solver_pipeline_bubble (solver, last, WEFT_SOLVER_ALL_STEPS, &b));
    lane = b.lane;
  }
  before = g_new (gint64, weft_solver_lane_n_ops (solver, last, lane));
  for (guint k = 0; k < weft_solver_lane_n_ops (solver, last, lane); k++)
    before[k] = weft_solver_start (solver, last, weft_solver_lane_op (solver, last, lane, k));
  path = weft_solver_critical_path (solver, WEFT_SOLVER_ALL_STEPS);
  for (guint i = 0; i < path->len; i++)
    on[g_array_index (path, WeftPathSegment, i).rank_index] = TRUE;
  for (int s = 0; s < 4; s++)
    g_assert_true (on[s]);

  g_assert_true (weft_solver_set_min_start (solver, 0, first, weft_solver_start (solver, 0, first) + d, &error));
  g_assert_no_error (error);
  /* the last stage: everything from its first forward (received from
   * stage 0 through the others) on moves by d; its step inputs (the
   * host-to-device copy before the pipeline) do not */
  {
    guint moved = 0, n = weft_solver_lane_n_ops (solver, last, lane);
    for (guint k = 0; k < n; k++)
      {
        guint32 e = weft_solver_lane_op (solver, last, lane, k);
        gint64 delta = weft_solver_start (solver, last, e) - before[k];
        if (weft_rank_event (rl, e)->category != WEFT_CAT_GPU_MEMCPY || moved > 0)
          {
            if (delta != d)
              g_error ("last stage op %u (%s) moved by %" G_GINT64_FORMAT " ns, not %" G_GINT64_FORMAT, k,
                       weft_rank_string (rl, weft_rank_event (rl, e)->name), delta, d);
            moved++;
          }
        else
          g_assert_cmpint (delta, ==, 0);
      }
    g_test_message ("last stage: %u of %u compute-stream ops moved by %.1f ms", moved, n, d / 1e6);
    g_assert_cmpuint (moved, >, n / 2);
  }
}

/* Every compute kernel of a stage's schedule knows its microbatch: the
 * PP:<stage><F|B><mb> annotation around its launch; each stage runs one
 * forward and one backward of every microbatch. */
static void
test_microbatch_labels (void)
{
  WeftComposeParams p;
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftTrace) trace = NULL;

  weft_compose_params_init (&p);
  p.strategies = WEFT_STRATEGY_PP;
  p.dp = 1;
  p.pp = 2;
  p.model.layers = 2;
  p.model.mbs = 4;
  trace = weft_compose_trace (&p, &error);
  g_assert_no_error (error);
  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);
      guint seen_f = 0, seen_b = 0, labelled = 0;
      for (guint32 e = 0; e < rank->events->len; e++)
        {
          const WeftEvent *ev = weft_rank_event (rank, e);
          WeftPpAction a;
          if (!(ev->flags & WEFT_EVENT_GPU_OP) || ev->category != WEFT_CAT_KERNEL || weft_event_coll (rank, ev) != WEFT_NONE
              || ev->kclass != WEFT_KCLASS_GEMM)
            continue;
          /* every GEMM is inside a forward or backward of this stage */
          g_assert_true (weft_rank_pp_action (rank, e, &a));
          g_assert_cmpint (a.stage, ==, rank->rank);
          g_assert_true (a.kind == 'F' || a.kind == 'B');
          g_assert_cmpint (a.microbatch, >=, 0);
          g_assert_cmpint (a.microbatch, <, 4);
          if (a.kind == 'F')
            seen_f |= 1u << a.microbatch;
          else
            seen_b |= 1u << a.microbatch;
          labelled++;
        }
      g_assert_cmpuint (labelled, >, 0);
      g_assert_cmpuint (seen_f, ==, 0xf);
      g_assert_cmpuint (seen_b, ==, 0xf);
    }
}

/* The per-event table answers what weft_rank_pp_action answers, for every
 * event of every rank, under the schedules with I/W actions (zb) and with
 * several stages per rank (interleaved); every schedule the composer lists
 * is a name it parses back to itself. */
static void
test_action_table (void)
{
  static const WeftPpSchedule scheds[] = { WEFT_PP_ZB, WEFT_PP_INTERLEAVED_1F1B };
  guint n_names = 0;

  for (guint k = 0; k < G_N_ELEMENTS (scheds); k++)
    {
      WeftComposeParams p;
      g_autoptr (GError) error = NULL;
      g_autoptr (WeftTrace) trace = NULL;
      guint actions = 0;

      weft_compose_params_init (&p);
      p.strategies = WEFT_STRATEGY_PP;
      p.dp = 1;
      p.pp = 2;
      p.pp_schedule = scheds[k];
      p.model.layers = 4;
      p.model.mbs = 4;
      trace = weft_compose_trace (&p, &error);
      g_assert_no_error (error);
      for (guint r = 0; r < trace->ranks->len; r++)
        {
          WeftRank *rank = weft_trace_rank (trace, r);
          g_autofree guint32 *table = weft_rank_pp_action_table (rank);
          g_assert_nonnull (table);
          for (guint32 e = 0; e < rank->events->len; e++)
            {
              WeftPpAction a, b;
              gboolean has = weft_rank_pp_action (rank, e, &a);
              g_assert_cmpint (has, ==, weft_pp_action_unpack (table[e], &b));
              if (!has)
                continue;
              g_assert_cmpint (a.kind, ==, b.kind);
              g_assert_cmpint (a.stage, ==, b.stage);
              g_assert_cmpint (a.microbatch, ==, b.microbatch);
              actions++;
            }
        }
      g_assert_cmpuint (actions, >, 0);
    }
  for (guint i = 0; weft_compose_pp_schedule_name (i) != NULL; i++)
    {
      WeftPpSchedule s;
      const char *name = weft_compose_pp_schedule_name (i);
      g_assert_true (weft_compose_parse_pp_schedule (name, &s, NULL));
      g_assert_cmpstr (weft_compose_pp_schedule_to_string (s), ==, name);
      for (guint j = 0; j < i; j++)
        g_assert_cmpstr (weft_compose_pp_schedule_name (j), !=, name);
      n_names++;
    }
  g_assert_cmpuint (n_names, >=, 5);
}

static void
test_params (void)
{
  WeftComposeParams p;
  g_autoptr (GError) error = NULL;
  json_object *j = NULL;
  WeftComposeParams q;
  WeftPpSchedule s;

  weft_compose_params_init (&p);
  g_assert_true (weft_compose_params_set_preset (&p, "llama3-405b", &error));
  g_assert_cmpint (p.model.layers, ==, 126);
  g_assert_cmpint (p.model.hidden, ==, 16384);
  g_assert_cmpint (p.model.ffn, ==, 53248);
  g_assert_cmpint (p.model.heads, ==, 128);
  g_assert_cmpint (p.model.kv_heads, ==, 8);

  g_assert_true (weft_compose_parse_pp_schedule ("interleaved-1f1b", &s, &error));
  g_assert_cmpint (s, ==, WEFT_PP_INTERLEAVED_1F1B);
  g_assert_false (weft_compose_parse_pp_schedule ("2f2b", &s, &error));
  g_assert_error (error, WEFT_ERROR, WEFT_ERROR_INVALID);
  g_clear_error (&error);

  weft_compose_params_init (&p);
  p.model.layers = 8;
  p.model.mbs = 8;
  p.pp = 2;   /* without pp in the strategies */
  g_assert_false (weft_compose_params_validate (&p, &error));
  g_assert_nonnull (strstr (error->message, "pp"));
  g_clear_error (&error);
  p.strategies = WEFT_STRATEGY_DDP | WEFT_STRATEGY_PP;
  g_assert_false (weft_compose_params_validate (&p, &error));
  g_clear_error (&error);
  p.strategies = WEFT_STRATEGY_FSDP | WEFT_STRATEGY_PP;
  p.dp = 4;
  g_assert_true (weft_compose_params_validate (&p, &error));
  g_assert_cmpint (weft_compose_world_size (&p), ==, 8);
  g_assert_cmpint (weft_compose_pp_microbatches (&p), ==, 8);
  p.microbatches = 3;   /* 8 does not split into 3 */
  g_assert_false (weft_compose_params_validate (&p, &error));
  g_clear_error (&error);
  p.microbatches = 1;   /* Schedule1F1B: m >= stages */
  g_assert_false (weft_compose_params_validate (&p, &error));
  g_clear_error (&error);
  p.microbatches = 4;
  p.pp_schedule = WEFT_PP_GPIPE;
  p.pp_stages_per_rank = 2;   /* GPipe runs one stage per rank */
  g_assert_false (weft_compose_params_validate (&p, &error));
  g_clear_error (&error);
  p.pp_schedule = WEFT_PP_INTERLEAVED_1F1B;
  g_assert_true (weft_compose_params_validate (&p, &error));
  /* the V schedules: exactly 2 stages per rank; DualPipeV m >= 2p */
  g_assert_true (weft_compose_parse_pp_schedule ("zbv", &s, &error));
  g_assert_cmpint (s, ==, WEFT_PP_ZBV);
  g_assert_true (weft_compose_parse_pp_schedule ("ZBVZeroBubble", &s, &error));   /* torchtitan's name */
  g_assert_cmpint (s, ==, WEFT_PP_ZBV);
  g_assert_true (weft_compose_parse_pp_schedule ("DualPipeV", &s, &error));
  g_assert_cmpint (s, ==, WEFT_PP_DUALPIPEV);
  p.pp_schedule = WEFT_PP_ZBV;
  p.pp_stages_per_rank = 0;
  g_assert_cmpint (weft_compose_pp_stages_per_rank (&p), ==, 2);
  g_assert_true (weft_compose_params_validate (&p, &error));
  p.pp_stages_per_rank = 3;
  g_assert_false (weft_compose_params_validate (&p, &error));
  g_clear_error (&error);
  p.pp_stages_per_rank = 2;
  p.pp_schedule = WEFT_PP_DUALPIPEV;
  g_assert_true (weft_compose_params_validate (&p, &error));   /* m 4 = 2p */
  p.microbatches = 2;
  g_assert_false (weft_compose_params_validate (&p, &error));
  g_assert_nonnull (strstr (error->message, "dualpipev"));
  g_clear_error (&error);
  p.microbatches = 4;
  p.pp_schedule = WEFT_PP_INTERLEAVED_1F1B;

  /* the parameters round-trip through the files' weft key */
  j = weft_compose_params_to_json (&p);
  weft_compose_params_init (&q);
  g_assert_true (weft_compose_params_from_json (&q, j, &error));
  g_assert_cmpint (q.pp, ==, 2);
  g_assert_cmpint (q.pp_schedule, ==, WEFT_PP_INTERLEAVED_1F1B);
  g_assert_cmpint (q.microbatches, ==, 4);
  g_assert_cmpint (q.pp_stages_per_rank, ==, 2);
  json_object_put (j);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/compose-pp/params", test_params);
  g_test_add_func ("/compose-pp/consistent", test_consistent);
  g_test_add_func ("/compose-pp/microbatch-labels", test_microbatch_labels);
  g_test_add_func ("/compose-pp/action-table", test_action_table);
  g_test_add_func ("/compose-pp/drag-stage0", test_drag_stage0);
  g_test_add_func ("/compose-pp/memory", test_memory);
  g_test_add_func ("/compose-pp/zb-below-1f1b", test_zb_below_1f1b);
  g_test_add_func ("/compose-pp/v-below", test_v_below);
  g_test_add_func ("/compose-pp/v-placement", test_v_placement);
  g_test_add_func ("/compose-pp/v-memory", test_v_memory);
  g_test_add_func ("/compose-pp/memory-stages", test_memory_stages);
  g_test_add_func ("/compose-pp/textbook", test_textbook);
  return g_test_run ();
}
