/* test-apply.c: block detection and applying strategies to real traces
 * (composed samples and the shared real traces), through the real loader,
 * edit session and solver. */
#include "config.h"

#include <string.h>

#include "testutil.h"
#include "weft/weft.h"
#include "weft/weft-apply.h"
#include "weft/weft-compose.h"
#include "weft/weft-edit.h"
#include "weft/weft-load.h"
#include "weft/weft-save.h"
#include "weft/weft-solver.h"

static WeftTrace *
load (const char *path)
{
  g_autoptr (GError) error = NULL;
  WeftTrace *t = weft_trace_load (path, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (t);
  return t;
}

/* The composer parameters stored under the rank's "weft" key. */
static int
composed_layers (WeftRank *rank)
{
  for (guint i = 0; i < rank->top_keys->len; i++)
    {
      WeftTopKey *k = &g_array_index (rank->top_keys, WeftTopKey, i);
      if (strcmp (weft_rank_string (rank, k->key), "weft") == 0)
        {
          g_autoptr (GError) error = NULL;
          WeftComposeParams p;
          json_object *o = json_tokener_parse (k->raw);
          gboolean ok;
          weft_compose_params_init (&p);
          ok = weft_compose_params_from_json (&p, o, &error);
          json_object_put (o);
          g_assert_no_error (error);
          g_assert_true (ok);
          return p.model.layers;
        }
    }
  g_assert_not_reached ();
  return -1;
}

static void
test_blocks_samples (void)
{
  static const char *samples[] = { "fsdp-llama3-8b", "ddp-llama3-8b", "tp-llama3-8b", "tp-sp-llama3-8b", "cp-ring-llama3-8b" };
  for (guint s = 0; s < G_N_ELEMENTS (samples); s++)
    {
      g_autofree char *path = g_build_filename (WEFT_SOURCE_DIR, "data", "samples", samples[s], NULL);
      g_autoptr (WeftTrace) t = load (path);
      int layers = composed_layers (weft_trace_rank (t, 0));
      for (guint r = 0; r < t->ranks->len; r += MAX (1, t->ranks->len - 1))
        {
          g_autoptr (GError) error = NULL;
          g_autoptr (WeftBlocks) bl = weft_apply_find_blocks (t, r, &error);
          g_assert_no_error (error);
          g_test_message ("%s rank %u: %s, %u forward, %u backward", samples[s], r,
                          weft_block_source_to_string (bl->source), bl->n_forward, bl->n_backward);
          g_assert_cmpint (bl->source, ==, WEFT_BLOCKS_MODULE);
          g_assert_cmpuint (bl->n_forward, ==, (guint) layers);
          g_assert_cmpuint (bl->n_backward, ==, (guint) layers);
          g_assert_true (bl->phases_known);
          /* blocks do not overlap and backward follows forward */
          for (guint i = 1; i < bl->blocks->len; i++)
            g_assert_cmpint (g_array_index (bl->blocks, WeftBlock, i).begin, >=,
                             g_array_index (bl->blocks, WeftBlock, i - 1).end);
        }
    }
}

static void
print_blocks (const char *what, WeftTrace *t, const WeftBlocks *bl)
{
  WeftRank *rank = weft_trace_rank (t, bl->rank_index);
  g_test_message ("%s: %s, %u forward, %u backward, period %u, phases %s", what,
                  weft_block_source_to_string (bl->source), bl->n_forward, bl->n_backward, bl->period,
                  bl->phases_known ? "known" : "unknown");
  for (guint i = 0; i < bl->blocks->len; i++)
    {
      const WeftBlock *b = &g_array_index (bl->blocks, WeftBlock, i);
      g_test_message ("  %s %u: %u ops, %s .. %s", b->phase == WEFT_BLOCK_FORWARD ? "fw" : "bw", b->index, b->n_ops,
                      weft_rank_string (rank, weft_rank_event (rank, b->first)->name),
                      weft_rank_string (rank, weft_rank_event (rank, b->last)->name));
    }
}

/* Nested layer names (HF / torchtitan style module paths): the outer
 * module is the block, not the sub-modules that appear more often. A small
 * hand-written Kineto text through the real loader. */
static void
test_blocks_nested_names (void)
{
  GString *j = g_string_new ("{\"traceEvents\": [\n");
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftTrace) t = weft_trace_new ();
  g_autoptr (WeftBlocks) bl = NULL;
  WeftRank *rank;
  gint64 ts = 1000, gpu = 1500;
  int corr = 1;
  const char *kernels[] = { "triton_red_fused_rmsnorm", "sm90_xmma_gemm_qkv", "pytorch_flash::flash_fwd_kernel",
                            "sm90_xmma_gemm_wo", "sm90_xmma_gemm_w1", "sm90_xmma_gemm_w3", "sm90_xmma_gemm_w2" };
  for (int layer = 0; layer < 3; layer++)
    {
      gint64 l0 = ts;
      for (guint k = 0; k < G_N_ELEMENTS (kernels); k++, corr++)
        {
          /* w1, w2, w3 as nested modules "model.layers.N.feed_forward.wM" */
          if (k >= 4)
            g_string_append_printf (j, "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": "
                                       "\"model.layers.%d.feed_forward.w%u\", \"pid\": 1, \"tid\": 1, "
                                       "\"ts\": %" G_GINT64_FORMAT ", \"dur\": 8},\n", layer, k - 3, ts);
          g_string_append_printf (j, "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
                                     "\"pid\": 1, \"tid\": 1, \"ts\": %" G_GINT64_FORMAT ", \"dur\": 4, "
                                     "\"args\": {\"correlation\": %d}},\n", ts + 1, corr);
          g_string_append_printf (j, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, "
                                     "\"tid\": 7, \"ts\": %" G_GINT64_FORMAT ", \"dur\": 50, \"args\": "
                                     "{\"correlation\": %d, \"stream\": 7, \"device\": 0}},\n",
                                  kernels[k], gpu, corr);
          ts += 10;
          gpu += 60;
        }
      g_string_append_printf (j, "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"model.layers.%d\", "
                                 "\"pid\": 1, \"tid\": 1, \"ts\": %" G_GINT64_FORMAT ", \"dur\": %" G_GINT64_FORMAT
                                 "},\n", layer, l0, ts - l0);
      ts += 20;
    }
  g_string_append (j, "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"model.norm\", \"pid\": 1, "
                      "\"tid\": 1, \"ts\": 1, \"dur\": 1}\n]}\n");
  rank = weft_rank_load_buffer ("nested/rank0_trace.json", j->str, j->len, NULL, &error);
  g_string_free (j, TRUE);
  g_assert_no_error (error);
  weft_trace_add_rank (t, rank);
  weft_trace_index_across_ranks (t);
  bl = weft_apply_find_blocks (t, 0, &error);
  g_assert_no_error (error);
  print_blocks ("nested", t, bl);
  g_assert_cmpint (bl->source, ==, WEFT_BLOCKS_MODULE);
  g_assert_cmpuint (bl->n_forward, ==, 3);
  for (guint i = 0; i < 3; i++)
    {
      const WeftBlock *b = &g_array_index (bl->blocks, WeftBlock, i);
      g_assert_cmpuint (b->n_ops, ==, G_N_ELEMENTS (kernels));
      g_assert_cmpstr (weft_rank_string (rank, weft_rank_event (rank, b->first)->name), ==, kernels[0]);
    }
}

/* A profile window that caught only the backward (no module names): the
 * kernel pattern finds one repeated region, and the "## backward ##" span
 * its ops were launched in says it is backward. Hand-written Kineto text
 * through the real loader. */
static void
test_blocks_backward_span (void)
{
  GString *j = g_string_new ("{\"traceEvents\": [\n");
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftTrace) t = weft_trace_new ();
  g_autoptr (WeftBlocks) bl = NULL;
  WeftRank *rank;
  gint64 ts = 1000, gpu = 1500;
  int corr = 1;
  const char *kernels[] = { "sm90_xmma_gemm_dgrad", "sm90_xmma_gemm_wgrad", "triton_red_fused_sum_0",
                            "vectorized_elementwise_kernel" };
  g_string_append (j, "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"## backward ##\", "
                      "\"pid\": 1, \"tid\": 1, \"ts\": 900, \"dur\": 2000},\n");
  for (int layer = 0; layer < 3; layer++)
    for (guint k = 0; k < G_N_ELEMENTS (kernels); k++, corr++)
      {
        g_string_append_printf (j, "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
                                   "\"pid\": 1, \"tid\": 1, \"ts\": %" G_GINT64_FORMAT ", \"dur\": 4, "
                                   "\"args\": {\"correlation\": %d}},\n", ts, corr);
        g_string_append_printf (j, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, "
                                   "\"tid\": 7, \"ts\": %" G_GINT64_FORMAT ", \"dur\": 50, \"args\": "
                                   "{\"correlation\": %d, \"stream\": 7, \"device\": 0}},\n",
                                kernels[k], gpu, corr);
        ts += 10;
        gpu += 60;
      }
  g_string_append (j, "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"train_step\", \"pid\": 1, "
                      "\"tid\": 1, \"ts\": 1, \"dur\": 1}\n]}\n");
  rank = weft_rank_load_buffer ("backward-only/rank0_trace.json", j->str, j->len, NULL, &error);
  g_string_free (j, TRUE);
  g_assert_no_error (error);
  weft_trace_add_rank (t, rank);
  weft_trace_index_across_ranks (t);
  bl = weft_apply_find_blocks (t, 0, &error);
  g_assert_no_error (error);
  print_blocks ("backward only", t, bl);
  g_assert_cmpint (bl->source, ==, WEFT_BLOCKS_PATTERN);
  g_assert_cmpuint (bl->n_forward, ==, 0);
  g_assert_cmpuint (bl->n_backward, ==, 3);
  g_assert_true (bl->phases_known);
  g_assert_cmpuint (bl->period, ==, G_N_ELEMENTS (kernels));
}

/* The pattern method alone on composed samples finds the layers too. */
static void
test_blocks_pattern_samples (void)
{
  static const char *samples[] = { "fsdp-llama3-8b", "ddp-llama3-8b" };
  for (guint s = 0; s < G_N_ELEMENTS (samples); s++)
    {
      g_autofree char *path = g_build_filename (WEFT_SOURCE_DIR, "data", "samples", samples[s], NULL);
      g_autoptr (WeftTrace) t = load (path);
      g_autoptr (GError) error = NULL;
      g_autoptr (WeftBlocks) bl = weft_apply_find_blocks_by (t, 0, WEFT_BLOCKS_PATTERN, &error);
      g_autoptr (WeftBlocks) bm = weft_apply_find_blocks_by (t, 0, WEFT_BLOCKS_MODULE, &error);
      g_assert_no_error (error);
      print_blocks (samples[s], t, bl);
      print_blocks (samples[s], t, bm);
      g_assert_cmpint (bl->source, ==, WEFT_BLOCKS_PATTERN);
      g_assert_cmpuint (bl->n_forward, ==, bm->n_forward);
      g_assert_cmpuint (bl->n_backward, ==, bm->n_backward);
      /* forward blocks: the same kernels as the module spans */
      for (guint i = 0; i < bm->n_forward; i++)
        {
          g_assert_cmpuint (g_array_index (bl->blocks, WeftBlock, i).first, ==, g_array_index (bm->blocks, WeftBlock, i).first);
          g_assert_cmpuint (g_array_index (bl->blocks, WeftBlock, i).last, ==, g_array_index (bm->blocks, WeftBlock, i).last);
        }
    }
}

static void
test_blocks_real (void)
{
  g_autofree char *fsdp8 = weft_test_require_trace ("synthetic/fsdp8/profiling/traces/iteration_10/rank0_trace.json.gz");
  g_autofree char *alex = weft_test_require_trace ("HolisticTraceAnalysis/critical_path/alexnet");
  if (fsdp8 == NULL || alex == NULL)
    return;
  {
    g_autoptr (WeftTrace) t = load (fsdp8);
    g_autoptr (GError) error = NULL;
    g_autoptr (WeftBlocks) bl = weft_apply_find_blocks (t, 0, &error);
    g_autoptr (WeftBlocks) bp = weft_apply_find_blocks_by (t, 0, WEFT_BLOCKS_PATTERN, &error);
    g_assert_no_error (error);
    print_blocks ("fsdp8 rank 0", t, bl);
    print_blocks ("fsdp8 rank 0 pattern", t, bp);
    /* its README: 4 Llama-3-8B-sized blocks; FSDP units are embedding, 4
     * blocks, output: the 4 alike are kept, in both phases */
    g_assert_cmpint (bl->source, ==, WEFT_BLOCKS_FSDP);
    g_assert_cmpuint (bl->n_forward, ==, 4);
    g_assert_cmpuint (bl->n_backward, ==, 4);
    g_assert_cmpint (bp->source, ==, WEFT_BLOCKS_PATTERN);
    g_assert_cmpuint (bp->n_forward, ==, 4);
    g_assert_cmpuint (bp->n_backward, ==, 4);
    /* the pattern's forward blocks are the FSDP units' */
    for (guint i = 0; i < 4; i++)
      {
        g_assert_cmpuint (g_array_index (bp->blocks, WeftBlock, i).first, ==, g_array_index (bl->blocks, WeftBlock, i).first);
        g_assert_cmpuint (g_array_index (bp->blocks, WeftBlock, i).last, ==, g_array_index (bl->blocks, WeftBlock, i).last);
      }
  }
  {
    g_autoptr (WeftTrace) t = load (alex);
    g_autoptr (GError) error = NULL;
    g_autoptr (WeftBlocks) bl = weft_apply_find_blocks (t, 0, &error);
    g_assert_no_error (error);
    print_blocks ("alexnet", t, bl);
    /* no layer annotations, no backward: the two forward passes (warmup
     * and measure, [param|...|forward]) are the repeated unit, 37 kernels each */
    g_assert_cmpint (bl->source, ==, WEFT_BLOCKS_PATTERN);
    g_assert_cmpuint (bl->n_forward, ==, 2);
    g_assert_cmpuint (bl->n_backward, ==, 0);
    g_assert_cmpuint (bl->period, ==, 37);
    g_assert_false (bl->phases_known);
  }
}

/* A one-rank profile of a step without parallelism: rank 0 of a composed
 * 2-rank DDP step (the composer refuses dp 1); Apply strips its all-reduces. */
static WeftTrace *
single_rank_profile (int layers)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) texts = NULL;
  WeftComposeParams p;
  WeftTrace *t;
  WeftRank *rank;
  gsize len;
  const char *data;

  weft_compose_params_init (&p);
  g_assert_true (weft_compose_parse_strategies ("ddp", &p.strategies, &error));
  p.dp = 2;
  p.model.layers = layers;
  texts = weft_compose_json (&p, &error);
  g_assert_no_error (error);
  data = g_bytes_get_data (g_ptr_array_index (texts, 0), &len);
  rank = weft_rank_load_buffer ("single/rank0_trace.json", data, len, NULL, &error);
  g_assert_no_error (error);
  t = weft_trace_new ();
  weft_trace_add_rank (t, rank);
  weft_trace_index_across_ranks (t);
  return t;
}

/* Inserted (created) collective members on rank index r, in solved start order. */
static GArray *
created_collectives (WeftEditSession *s, guint r, WeftCollType type)
{
  WeftTrace *t = weft_edit_session_get_trace (s);
  WeftSolver *solver = weft_edit_session_get_solver (s);
  WeftRank *rank = weft_trace_rank (t, r);
  GArray *out = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (guint i = 0; i < rank->collectives->len; i++)
    {
      WeftCollective *c = &g_array_index (rank->collectives, WeftCollective, i);
      WeftEvent *ev = weft_rank_event (rank, c->event);
      if ((ev->flags & WEFT_EVENT_CREATED) && weft_solver_is_node (solver, r, c->event) && c->type == type)
        g_array_append_val (out, c->event);
    }
  for (guint i = 1; i < out->len; i++)
    for (guint j = i; j > 0 && weft_solver_start (solver, r, g_array_index (out, guint32, j - 1)) >
                                 weft_solver_start (solver, r, g_array_index (out, guint32, j)); j--)
      {
        guint32 x = g_array_index (out, guint32, j);
        g_array_index (out, guint32, j) = g_array_index (out, guint32, j - 1);
        g_array_index (out, guint32, j - 1) = x;
      }
  return out;
}

/* Every inserted collective is one instance with a member on each rank of
 * its group, the same Seq, process group and type on all of them. */
static void
assert_instances_match (WeftEditSession *s, guint degree)
{
  WeftTrace *t = weft_edit_session_get_trace (s);
  WeftRank *r0 = weft_trace_rank (t, 0);
  guint n = 0;
  for (guint i = 0; i < r0->collectives->len; i++)
    {
      WeftCollective *c = &g_array_index (r0->collectives, WeftCollective, i);
      WeftCollInstance *inst;
      if (!(weft_rank_event (r0, c->event)->flags & WEFT_EVENT_CREATED) ||
          (weft_rank_event (r0, c->event)->flags & WEFT_EVENT_DELETED))
        continue;
      g_assert_cmpuint (c->instance, !=, WEFT_NONE);
      g_assert_cmpint (c->seq, >=, 0);
      g_assert_cmpuint (c->n_pg_ranks, ==, degree);
      inst = &g_array_index (t->instances, WeftCollInstance, c->instance);
      g_assert_cmpuint (inst->members->len, ==, degree);
      for (guint m = 0; m < inst->members->len; m++)
        {
          WeftInstanceMember *mem = &g_array_index (inst->members, WeftInstanceMember, m);
          WeftRank *rk = weft_trace_rank (t, mem->rank_index);
          WeftCollective *o = &g_array_index (rk->collectives, WeftCollective, mem->coll);
          g_assert_cmpint (o->seq, ==, c->seq);
          g_assert_cmpint (o->type, ==, c->type);
          g_assert_cmpint (o->bytes, ==, c->bytes);
          g_assert_cmpstr (weft_rank_string (rk, o->pg_name), ==, weft_rank_string (r0, c->pg_name));
          g_assert_cmpstr (weft_rank_string (rk, o->pg_desc), ==, weft_rank_string (r0, c->pg_desc));
        }
      n++;
    }
  g_assert_cmpuint (n, >, 0);
}

static void
log_report (const char *what, const WeftApplyReport *rep)
{
  g_test_message ("%s: %s, %u fw / %u bw blocks, %u ranks, %u collectives, %u helper ops, %u stripped; "
                  "params %" G_GINT64_FORMAT " tokens %" G_GINT64_FORMAT " hidden %" G_GINT64_FORMAT " (%s); "
                  "step %.3f -> %.3f ms, comm %.3f -> %.3f ms, overlap %.1f -> %.1f %%, exposed %.3f -> %.3f ms",
                  what, weft_block_source_to_string (rep->source), rep->n_forward, rep->n_backward, rep->n_ranks,
                  rep->n_collectives, rep->n_kernels, rep->n_stripped, rep->params_per_block, rep->tokens, rep->hidden,
                  rep->sizes_inferred ? "Input Dims" : "defaults", rep->before.step_time / 1e6,
                  rep->after.step_time / 1e6, rep->before.comm / 1e6, rep->after.comm / 1e6, rep->before.overlap_pct,
                  rep->after.overlap_pct, rep->before.exposed_comm / 1e6, rep->after.exposed_comm / 1e6);
}

static gint64
block_compute_end (WeftEditSession *s, guint r, const WeftBlock *b)
{
  return weft_solver_end (weft_edit_session_get_solver (s), r, b->last);
}

static void
test_apply_fsdp (void)
{
  WeftTrace *t = single_rank_profile (3);
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftEditSession) s = NULL;
  g_autoptr (GArray) ags = NULL;
  g_autoptr (GArray) rss = NULL;
  g_autoptr (WeftBlocks) bl = NULL;
  WeftSolver *solver;
  WeftApplyParams p;
  WeftApplyReport rep;
  WeftMetrics now;

  weft_apply_params_init (&p);
  p.strategy = WEFT_APPLY_FSDP;
  p.degree = 4;
  p.strip_collectives = TRUE;
  s = weft_apply_to_trace (t, &p, &rep, &error);
  g_assert_no_error (error);
  g_assert_nonnull (s);
  log_report ("fsdp", &rep);
  solver = weft_edit_session_get_solver (s);
  g_assert_cmpuint (rep.n_ranks, ==, 4);
  g_assert_cmpuint (rep.n_forward, ==, 3);
  g_assert_cmpuint (rep.n_backward, ==, 3);
  g_assert_true (rep.sizes_inferred);
  g_assert_cmpuint (rep.n_stripped, >, 0);
  /* one all-gather per block in forward and in backward, one reduce-scatter per block */
  g_assert_cmpuint (rep.n_collectives, ==, 3 + 3 + 3);
  assert_instances_match (s, 4);
  ags = created_collectives (s, 0, WEFT_COLL_ALL_GATHER);
  rss = created_collectives (s, 0, WEFT_COLL_REDUCE_SCATTER);
  g_assert_cmpuint (ags->len, ==, 6);
  g_assert_cmpuint (rss->len, ==, 3);
  /* on their own streams (15, 17) */
  {
    WeftRank *rank = weft_trace_rank (weft_edit_session_get_trace (s), 0);
    g_assert_cmpint (weft_rank_lane (rank, weft_rank_event (rank, g_array_index (ags, guint32, 0))->lane)->tid, ==, 15);
    g_assert_cmpint (weft_rank_lane (rank, weft_rank_event (rank, g_array_index (rss, guint32, 0))->lane)->tid, ==, 17);
  }
  /* prefetch: the all-gather of block 1 runs while block 0 computes, and
   * block 1's compute starts after its all-gather ended */
  bl = weft_apply_find_blocks (weft_edit_session_get_trace (s), 0, &error);
  g_assert_no_error (error);
  {
    const WeftBlock *b0 = &g_array_index (bl->blocks, WeftBlock, 0);
    const WeftBlock *b1 = &g_array_index (bl->blocks, WeftBlock, 1);
    guint32 ag1 = g_array_index (ags, guint32, 1);
    g_assert_cmpint (weft_solver_start (solver, 0, ag1), <, block_compute_end (s, 0, b0));
    g_assert_cmpint (weft_solver_start (solver, 0, b1->first), >=, weft_solver_end (solver, 0, ag1));
  }
  /* the metrics see the communication and its overlap */
  g_assert_true (weft_edit_session_metrics (s, &now, NULL));
  g_assert_cmpint (now.comm, >, 0);
  g_assert_cmpfloat (now.overlap_pct, >, 20.0);
  g_assert_cmpint (rep.after.step_time, >=, rep.before.step_time);
  /* one undo entry: undo brings back the profile as it was (its all-reduces too) */
  g_assert_true (weft_edit_session_undo (s, &error));
  g_assert_no_error (error);
  g_assert_false (weft_edit_session_can_undo (s));
  g_assert_true (weft_edit_session_metrics (s, &now, NULL));
  g_assert_cmpint (now.step_time, ==, rep.original.step_time);
  g_assert_cmpint (now.comm, ==, rep.original.comm);
  g_assert_cmpint (rep.before.comm, ==, 0);
  g_assert_true (weft_edit_session_redo (s, &error));
  g_assert_no_error (error);
  g_assert_true (weft_edit_session_metrics (s, &now, NULL));
  g_assert_cmpint (now.step_time, ==, rep.after.step_time);
}

/* FSDP's moves and helper ops replay from the edit log on a fresh load
 * (what the recovery file and the saved "weft" key do). */
static void
test_apply_fsdp_replay (void)
{
  g_autoptr (WeftTrace) single = single_rank_profile (2);
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftEditSession) s = NULL;
  g_autoptr (WeftEditSession) s2 = NULL;
  g_autofree char *dir = g_build_filename (weft_test_tmpdir (), "fsdp-replay", NULL);
  WeftTrace *rep4 = weft_apply_replicate (single, 4, &error);
  WeftApplyParams p;
  WeftApplyReport rep;
  WeftMetrics m1, m2;
  json_object *log;
  guint n = 0;

  g_assert_no_error (error);
  g_assert_true (weft_trace_save_dir (rep4, dir, WEFT_FORMAT_JSON, NULL, &error));
  g_assert_no_error (error);
  weft_trace_free (rep4);
  s = weft_edit_session_new (load (dir), dir, &error);
  g_assert_no_error (error);
  weft_apply_params_init (&p);
  p.degree = 4;
  p.strip_collectives = TRUE;
  g_assert_true (weft_apply_strategy (s, &p, &rep, &error));
  g_assert_no_error (error);
  log = weft_edit_session_log (s);
  s2 = weft_edit_session_new (load (dir), dir, &error);
  g_assert_no_error (error);
  g_assert_true (weft_edit_session_apply_script (s2, log, "apply log", &n, &error));
  g_assert_no_error (error);
  json_object_put (log);
  g_assert_true (weft_edit_session_metrics (s, &m1, NULL));
  g_assert_true (weft_edit_session_metrics (s2, &m2, NULL));
  g_test_message ("fsdp: replayed %u log entries: step %" G_GINT64_FORMAT " vs %" G_GINT64_FORMAT, n, m2.step_time,
                  m1.step_time);
  g_assert_cmpint (m2.step_time, ==, m1.step_time);
  g_assert_cmpint (m2.comm, ==, m1.comm);
  g_assert_cmpint (m2.overlapped, ==, m1.overlapped);
}

static void
test_apply_fsdp_no_prefetch (void)
{
  WeftTrace *t1 = single_rank_profile (3), *t2 = single_rank_profile (3);
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftEditSession) s1 = NULL;
  g_autoptr (WeftEditSession) s2 = NULL;
  WeftApplyParams p;
  WeftApplyReport with, without;

  weft_apply_params_init (&p);
  p.degree = 2;
  p.strip_collectives = TRUE;
  s1 = weft_apply_to_trace (t1, &p, &with, &error);
  g_assert_no_error (error);
  p.no_prefetch = TRUE;
  s2 = weft_apply_to_trace (t2, &p, &without, &error);
  g_assert_no_error (error);
  log_report ("fsdp prefetch", &with);
  log_report ("fsdp no prefetch", &without);
  g_assert_cmpfloat (without.after.overlap_pct, <, with.after.overlap_pct);
  g_assert_cmpint (without.after.step_time, >, with.after.step_time);
}

static void
test_apply_tp (void)
{
  WeftTrace *t = single_rank_profile (2);
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftEditSession) s = NULL;
  g_autoptr (GArray) ars = NULL;
  g_autoptr (WeftBlocks) bl = NULL;
  WeftSolver *solver;
  WeftRank *rank;
  WeftApplyParams p;
  WeftApplyReport rep;

  weft_apply_params_init (&p);
  p.strategy = WEFT_APPLY_TP;
  p.degree = 2;
  p.strip_collectives = TRUE;
  s = weft_apply_to_trace (t, &p, &rep, &error);
  g_assert_no_error (error);
  log_report ("tp", &rep);
  solver = weft_edit_session_get_solver (s);
  rank = weft_trace_rank (weft_edit_session_get_trace (s), 0);
  /* 2 per block in forward and 2 in backward */
  g_assert_cmpuint (rep.n_collectives, ==, 2 * 2 + 2 * 2);
  assert_instances_match (s, 2);
  bl = weft_apply_find_blocks (weft_edit_session_get_trace (s), 0, &error);
  g_assert_no_error (error);
  ars = created_collectives (s, 0, WEFT_COLL_ALL_REDUCE);
  g_assert_cmpuint (ars->len, ==, 8);
  for (guint b = 0; b < 2; b++)
    {
      const WeftBlock *blk = &g_array_index (bl->blocks, WeftBlock, b);
      guint in_block = 0;
      g_assert_cmpint (blk->phase, ==, WEFT_BLOCK_FORWARD);
      for (guint i = 0; i < ars->len; i++)
        {
          guint32 e = g_array_index (ars, guint32, i);
          gint64 st = weft_solver_start (solver, 0, e);
          if (st >= weft_solver_start (solver, 0, blk->first) && st < weft_solver_end (solver, 0, blk->last))
            {
              guint32 lane = weft_solver_op_lane (solver, 0, e);
              guint pos = weft_solver_op_position (solver, 0, e);
              guint32 next = weft_solver_lane_op (solver, 0, lane, pos + 1);
              in_block++;
              /* on the compute stream: the next compute op waits for it */
              g_assert_cmpuint (lane, ==, bl->lane);
              g_assert_cmpint (weft_solver_start (solver, 0, next), >=, weft_solver_end (solver, 0, e));
              g_assert_cmpint (weft_rank_event (rank, next)->kclass, !=, WEFT_KCLASS_COMM);
            }
        }
      g_assert_cmpuint (in_block, ==, 2);
    }
  /* backward: the first all-reduce of a block follows the MLP's input
   * gradients: the ops after it, up to the next GEMM, are the norm
   * backward (Inductor's one reduction, or eager's run of elementwise, copy
   * and reduction kernels), and the attention backward comes later in the
   * same block */
  for (guint b = 2; b < bl->blocks->len; b++)
    {
      const WeftBlock *blk = &g_array_index (bl->blocks, WeftBlock, b);
      guint32 lane = bl->lane;
      guint p0 = weft_solver_op_position (solver, 0, blk->first), p1 = weft_solver_op_position (solver, 0, blk->last);
      guint first_ar = G_MAXUINT, attn = G_MAXUINT;
      g_assert_cmpint (blk->phase, ==, WEFT_BLOCK_BACKWARD);
      for (guint pos = p0; pos <= p1; pos++)
        {
          WeftEvent *ev = weft_rank_event (rank, weft_solver_lane_op (solver, 0, lane, pos));
          if (ev->kclass == WEFT_KCLASS_COMM && first_ar == G_MAXUINT)
            first_ar = pos;
          if (ev->kclass == WEFT_KCLASS_ATTENTION && attn == G_MAXUINT)
            attn = pos;
        }
      g_assert_cmpuint (first_ar, <, attn);
      g_assert_cmpint (weft_rank_event (rank, weft_solver_lane_op (solver, 0, lane, first_ar - 1))->kclass, ==,
                       WEFT_KCLASS_GEMM);
      {
        guint n_red = 0, pos = first_ar + 1;
        for (; pos < attn; pos++)
          {
            guint8 k = weft_rank_event (rank, weft_solver_lane_op (solver, 0, lane, pos))->kclass;
            if (k == WEFT_KCLASS_GEMM || k == WEFT_KCLASS_COMM)
              break;
            g_assert_true (k == WEFT_KCLASS_REDUCTION || k == WEFT_KCLASS_NORM || k == WEFT_KCLASS_ELEMENTWISE
                           || k == WEFT_KCLASS_COPY);
            n_red += k == WEFT_KCLASS_REDUCTION || k == WEFT_KCLASS_NORM;
          }
        g_assert_cmpuint (pos, >, first_ar + 1);
        g_assert_cmpuint (n_red, >, 0);
      }
    }
  /* on the critical path: the step is longer, nothing overlaps */
  g_assert_cmpint (rep.after.step_time, >, rep.before.step_time);
  g_assert_cmpint (rep.after.step_time - rep.before.step_time, >=, rep.after.comm * 9 / 10);
  g_assert_cmpfloat (rep.after.overlap_pct, <, 5.0);
}

static void
test_apply_ddp (void)
{
  WeftTrace *t = single_rank_profile (2);
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftEditSession) s = NULL;
  g_autoptr (GArray) ars = NULL;
  g_autoptr (WeftBlocks) bl = NULL;
  WeftSolver *solver;
  WeftApplyParams p;
  WeftApplyReport rep;
  gint64 fw_end;

  weft_apply_params_init (&p);
  p.strategy = WEFT_APPLY_DDP;
  p.degree = 4;
  p.strip_collectives = TRUE;
  p.bucket_mb = 200;
  s = weft_apply_to_trace (t, &p, &rep, &error);
  g_assert_no_error (error);
  log_report ("ddp", &rep);
  solver = weft_edit_session_get_solver (s);
  assert_instances_match (s, 4);
  bl = weft_apply_find_blocks (weft_edit_session_get_trace (s), 0, &error);
  g_assert_no_error (error);
  fw_end = weft_solver_end (solver, 0, g_array_index (bl->blocks, WeftBlock, bl->n_forward - 1).last);
  ars = created_collectives (s, 0, WEFT_COLL_ALL_REDUCE);
  g_assert_cmpuint (ars->len, ==, rep.n_collectives);
  g_assert_cmpuint (ars->len, >=, 4);
  for (guint i = 0; i < ars->len; i++)
    {
      guint32 e = g_array_index (ars, guint32, i);
      /* nothing in forward */
      g_assert_cmpint (weft_solver_start (solver, 0, e), >=, fw_end);
    }
  {
    /* every all-reduce but the last overlaps backward compute: the last
     * backward block ends after them */
    const WeftBlock *last_bw = &g_array_index (bl->blocks, WeftBlock, bl->blocks->len - 1);
    for (guint i = 0; i + 1 < ars->len; i++)
      g_assert_cmpint (weft_solver_start (solver, 0, g_array_index (ars, guint32, i)), <,
                       weft_solver_end (solver, 0, last_bw->last));
  }
  g_assert_cmpfloat (rep.after.overlap_pct, >, 30.0);
}

static void
test_apply_others (void)
{
  static const WeftApplyStrategy strategies[] = { WEFT_APPLY_TP_SP, WEFT_APPLY_EP, WEFT_APPLY_CP_RING,
                                                  WEFT_APPLY_CP_ALL_GATHER };
  static const guint per_block[] = { 8, 5, 3 + 3, 1 + 2 };
  for (guint k = 0; k < G_N_ELEMENTS (strategies); k++)
    {
      WeftTrace *t = single_rank_profile (1);
      g_autoptr (GError) error = NULL;
      g_autoptr (WeftEditSession) s = NULL;
      WeftApplyParams p;
      WeftApplyReport rep;
      weft_apply_params_init (&p);
      p.strategy = strategies[k];
      p.degree = 4;
      p.strip_collectives = TRUE;
      s = weft_apply_to_trace (t, &p, &rep, &error);
      g_assert_no_error (error);
      log_report (weft_apply_strategy_to_string (strategies[k]), &rep);
      g_assert_cmpuint (rep.n_collectives, ==, per_block[k]);
      assert_instances_match (s, 4);
      g_assert_cmpint (rep.after.comm, >, 0);
      g_assert_cmpint (rep.after.step_time, >, rep.before.step_time);
    }
}

/* TP on a real multi-rank trace (the shared synthetic FSDP step, 8 ranks,
 * no replication): 4 TP groups of 2 consecutive ranks, on top of its FSDP. */
static void
test_apply_real_multirank (void)
{
  g_autofree char *dir = weft_test_require_trace ("synthetic/fsdp8/profiling/traces/iteration_10");
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftEditSession) s = NULL;
  WeftTrace *t;
  WeftApplyParams p;
  WeftApplyReport rep;
  if (dir == NULL)
    return;
  t = load (dir);
  s = weft_edit_session_new (t, dir, &error);
  g_assert_no_error (error);
  weft_apply_params_init (&p);
  p.strategy = WEFT_APPLY_TP;
  p.degree = 2;
  g_assert_true (weft_apply_strategy (s, &p, &rep, &error));
  g_assert_no_error (error);
  log_report ("fsdp8 + tp 2", &rep);
  g_assert_cmpint (rep.source, ==, WEFT_BLOCKS_FSDP);
  g_assert_cmpuint (rep.n_groups, ==, 4);
  g_assert_cmpuint (rep.n_collectives, ==, 4 * (4 + 4) * 2);
  g_assert_true (rep.sizes_inferred);
  /* the README's shape: hidden 4096, seq 4096 */
  g_assert_cmpint (rep.hidden, ==, 4096);
  g_assert_cmpint (rep.tokens, ==, 4096);
  assert_instances_match (s, 2);
  g_assert_cmpint (rep.after.step_time, >, rep.before.step_time);
  g_assert_cmpint (rep.after.comm, >, rep.before.comm);
  /* the group of rank 2 is {2, 3} */
  {
    WeftRank *r2 = weft_trace_rank (weft_edit_session_get_trace (s), 2);
    gboolean seen = FALSE;
    for (guint i = 0; i < r2->collectives->len && !seen; i++)
      {
        WeftCollective *c = &g_array_index (r2->collectives, WeftCollective, i);
        if (weft_rank_event (r2, c->event)->flags & WEFT_EVENT_CREATED)
          {
            g_assert_cmpuint (c->n_pg_ranks, ==, 2);
            g_assert_cmpint (c->pg_ranks[0], ==, 2);
            g_assert_cmpint (c->pg_ranks[1], ==, 3);
            seen = TRUE;
          }
      }
    g_assert_true (seen);
  }
  /* the edit log (what recovery and the saved "weft" key replay) gives the
   * same schedule on a fresh load of the trace */
  {
    g_autoptr (WeftEditSession) s2 = NULL;
    json_object *log = weft_edit_session_log (s);
    WeftMetrics m1, m2;
    guint n = 0;
    s2 = weft_edit_session_new (load (dir), dir, &error);
    g_assert_no_error (error);
    g_assert_true (weft_edit_session_apply_script (s2, log, "apply log", &n, &error));
    g_assert_no_error (error);
    g_assert_cmpuint (n, ==, json_object_array_length (log));
    json_object_put (log);
    g_assert_true (weft_edit_session_metrics (s, &m1, NULL));
    g_assert_true (weft_edit_session_metrics (s2, &m2, NULL));
    g_test_message ("replayed %u log entries: step %" G_GINT64_FORMAT " vs %" G_GINT64_FORMAT, n, m2.step_time,
                    m1.step_time);
    g_assert_cmpint (m2.step_time, ==, m1.step_time);
    g_assert_cmpint (m2.comm, ==, m1.comm);
    g_assert_cmpint (m2.overlapped, ==, m1.overlapped);
  }
}

static void
expect_refused (WeftEditSession *s, const WeftApplyParams *p, int code, const char *fragment)
{
  g_autoptr (GError) error = NULL;
  WeftApplyReport rep;
  WeftMetrics m0, m1;
  gboolean could_undo = weft_edit_session_can_undo (s);
  weft_edit_session_metrics (s, &m0, NULL);
  g_assert_false (weft_apply_strategy (s, p, &rep, &error));
  g_assert_error (error, WEFT_ERROR, code);
  g_test_message ("refused: %s", error->message);
  g_assert_nonnull (strstr (error->message, fragment));
  /* nothing changed, nothing recorded */
  weft_edit_session_metrics (s, &m1, NULL);
  g_assert_cmpint (m1.step_time, ==, m0.step_time);
  g_assert_cmpint (m1.comm, ==, m0.comm);
  g_assert_cmpint (weft_edit_session_can_undo (s), ==, could_undo);
}

static void
test_apply_refused (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftTrace) single = single_rank_profile (2);
  g_autoptr (WeftEditSession) s = NULL;
  WeftTrace *rep4;
  WeftApplyParams p;
  WeftApplyStrategy st;

  /* bad parameters */
  weft_apply_params_init (&p);
  p.degree = 1;
  g_assert_false (weft_apply_params_validate (&p, &error));
  g_assert_error (error, WEFT_ERROR, WEFT_ERROR_INVALID);
  g_clear_error (&error);
  p.degree = 65;
  g_assert_null (weft_apply_strategy_collectives (&p, &error));
  g_assert_error (error, WEFT_ERROR, WEFT_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_false (weft_apply_strategy_from_string ("zero4", &st, &error));
  g_assert_error (error, WEFT_ERROR, WEFT_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "zero4"));
  g_clear_error (&error);
  g_assert_true (weft_apply_strategy_from_string ("cp", &st, &error));
  g_assert_cmpint (st, ==, WEFT_APPLY_CP_ALL_GATHER);

  rep4 = weft_apply_replicate (single, 4, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rep4->ranks->len, ==, 4);
  g_assert_cmpint (weft_trace_rank (rep4, 3)->rank, ==, 3);
  s = weft_edit_session_new (rep4, NULL, &error);
  g_assert_no_error (error);
  weft_apply_params_init (&p);
  p.degree = 3;                                   /* 4 ranks */
  expect_refused (s, &p, WEFT_ERROR_INVALID, "not a multiple of the degree 3");
  p.degree = 2;
  p.dtype_bytes = 0;
  expect_refused (s, &p, WEFT_ERROR_INVALID, "dtype bytes");
  p.dtype_bytes = 2;
  p.strategy = WEFT_APPLY_DDP;
  p.bucket_mb = -1;
  expect_refused (s, &p, WEFT_ERROR_INVALID, "bucket");

  /* a deadlock: rank 1's first block waits for rank 0's second block (an
   * explicit dependency); TP's all-reduce inside block 0 on both ranks
   * would need rank 0 to pass it first: a cycle, refused as a whole */
  {
    WeftSolver *solver = weft_edit_session_get_solver (s);
    WeftTrace *t = weft_edit_session_get_trace (s);
    g_autoptr (WeftBlocks) b0 = weft_apply_find_blocks (t, 0, &error);
    g_autoptr (WeftBlocks) b1 = weft_apply_find_blocks (t, 1, &error);
    g_assert_no_error (error);
    g_assert_true (weft_solver_add_dependency (solver, 0, g_array_index (b0->blocks, WeftBlock, 1).last, 1,
                                               g_array_index (b1->blocks, WeftBlock, 0).first, 0, &error));
    g_assert_no_error (error);
    p.strategy = WEFT_APPLY_TP;
    p.bucket_mb = 25;
    p.strip_collectives = TRUE;
    expect_refused (s, &p, WEFT_ERROR_CYCLE, "cycle");
  }
}

/* Two strategies on one session (FSDP, then TP on the same ranks: FSDP +
 * TP with 2 groups of 2), after a user edit that reordered a block's ops:
 * the second Apply finds the same blocks (ops created by the first are
 * not the profile's), each Apply is one undo entry. */
static void
test_apply_twice (void)
{
  WeftTrace *t = single_rank_profile (2);
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftEditSession) s = NULL;
  g_autoptr (WeftBlocks) bl = NULL;
  WeftApplyParams p;
  WeftApplyReport r1, r2;
  WeftMetrics m;

  weft_apply_params_init (&p);
  p.degree = 4;
  p.strip_collectives = TRUE;
  s = weft_apply_to_trace (t, &p, &r1, &error);
  g_assert_no_error (error);
  /* a user edit: the first op of forward block 0 moves to the block's end (rank 0) */
  bl = weft_apply_find_blocks (weft_edit_session_get_trace (s), 0, &error);
  g_assert_no_error (error);
  {
    WeftSolver *solver = weft_edit_session_get_solver (s);
    const WeftBlock *b0 = &g_array_index (bl->blocks, WeftBlock, 0);
    WeftEventRef op = { 0, b0->first };
    g_assert_true (weft_edit_session_reorder (s, op, weft_solver_op_position (solver, 0, b0->last), &error));
    g_assert_no_error (error);
  }
  p.strategy = WEFT_APPLY_TP;
  p.degree = 2;
  p.strip_collectives = FALSE;
  g_assert_true (weft_apply_strategy (s, &p, &r2, &error));
  g_assert_no_error (error);
  log_report ("fsdp then tp", &r2);
  g_assert_cmpuint (r2.n_forward, ==, r1.n_forward);
  g_assert_cmpuint (r2.n_backward, ==, r1.n_backward);
  g_assert_cmpuint (r2.n_groups, ==, 2);
  g_assert_cmpuint (r2.n_collectives, ==, 2 * (2 + 2) * 2);
  g_assert_cmpint (r2.before.comm, ==, r1.after.comm);
  g_assert_cmpint (r2.after.step_time, >, r2.before.step_time);
  /* undo the TP Apply, the reorder and the FSDP Apply: three entries */
  for (int k = 0; k < 3; k++)
    {
      g_assert_true (weft_edit_session_undo (s, &error));
      g_assert_no_error (error);
    }
  g_assert_false (weft_edit_session_can_undo (s));
  g_assert_true (weft_edit_session_metrics (s, &m, NULL));
  g_assert_cmpint (m.step_time, ==, r1.original.step_time);
}

/* Real traces Apply cannot use: a forward-only profile for DDP, a CPU-only
 * trace; weft_apply_to_trace() frees the trace it took (LeakSanitizer). */
static void
test_apply_refused_real (void)
{
  g_autofree char *alex = weft_test_require_trace ("HolisticTraceAnalysis/critical_path/alexnet");
  g_autofree char *cpu = weft_test_require_trace ("HolisticTraceAnalysis/cpu_only");
  WeftApplyParams p;
  if (alex == NULL || cpu == NULL)
    return;
  weft_apply_params_init (&p);
  p.strategy = WEFT_APPLY_DDP;
  p.degree = 2;
  {
    g_autoptr (GError) error = NULL;
    WeftApplyReport rep;
    g_assert_null (weft_apply_to_trace (load (alex), &p, &rep, &error));
    g_assert_error (error, WEFT_ERROR, WEFT_ERROR_INVALID);
    g_test_message ("alexnet ddp: %s", error->message);
    g_assert_nonnull (strstr (error->message, "no backward blocks"));
  }
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (WeftTrace) t = load (cpu);
    g_autoptr (WeftBlocks) bl = weft_apply_find_blocks (t, 0, &error);
    g_assert_null (bl);
    g_assert_error (error, WEFT_ERROR, WEFT_ERROR_INVALID);
    g_test_message ("cpu_only: %s", error->message);
    g_assert_nonnull (strstr (error->message, "no GPU compute stream"));
  }
  {
    /* FSDP on the forward-only profile: forward all-gathers only */
    g_autoptr (GError) error = NULL;
    g_autoptr (WeftEditSession) s = NULL;
    WeftApplyReport rep;
    p.strategy = WEFT_APPLY_FSDP;
    s = weft_apply_to_trace (load (alex), &p, &rep, &error);
    g_assert_no_error (error);
    g_assert_false (rep.phases_known);
    g_assert_false (rep.sizes_inferred);
    g_assert_cmpuint (rep.n_collectives, ==, 2);
  }
}

/* The palette: each strategy's collectives, sized and timed. */
static void
test_palette (void)
{
  g_autoptr (WeftCostModel) cm = weft_cost_model_new (weft_hardware_preset ("h100"));
  for (guint k = 0; k < WEFT_APPLY_N_STRATEGIES; k++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (GPtrArray) list = NULL;
      WeftApplyParams p;
      weft_apply_params_init (&p);
      p.strategy = (WeftApplyStrategy) k;
      p.degree = 4;
      p.params_per_block = 1000000;
      p.tokens = 2048;
      p.hidden = 1024;
      p.cost_model = cm;
      list = weft_apply_strategy_collectives (&p, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (list->len, >=, 1);
      for (guint i = 0; i < list->len; i++)
        {
          WeftApplyCollective *c = g_ptr_array_index (list, i);
          g_test_message ("%s: %s %" G_GINT64_FORMAT " B x%u per block (%s) on %s stream %" G_GINT64_FORMAT
                          ": %.1f us: %s",
                          weft_apply_strategy_to_string (p.strategy), weft_coll_type_to_string (c->type), c->bytes,
                          c->per_block, c->phase, c->stream_role, c->stream, c->estimate_ns / 1e3, c->label);
          g_assert_cmpint (c->group_size, ==, 4);
          g_assert_cmpint (c->bytes, >, 0);
          g_assert_cmpint (c->estimate_ns, ==, weft_cost_model_estimate (cm, c->type, c->bytes, NULL, 4, NULL));
          g_assert_nonnull (c->label);
        }
      if (p.strategy == WEFT_APPLY_FSDP)
        {
          WeftApplyCollective *ag = g_ptr_array_index (list, 0), *rs = g_ptr_array_index (list, 1);
          g_assert_cmpint (ag->type, ==, WEFT_COLL_ALL_GATHER);
          g_assert_cmpint (ag->bytes, ==, 2000000);
          g_assert_cmpint (ag->stream, ==, 15);
          g_assert_cmpint (rs->type, ==, WEFT_COLL_REDUCE_SCATTER);
          g_assert_cmpint (rs->stream, ==, 17);
        }
      if (p.strategy == WEFT_APPLY_TP)
        {
          WeftApplyCollective *ar = g_ptr_array_index (list, 0);
          g_assert_cmpint (ar->type, ==, WEFT_COLL_ALL_REDUCE);
          g_assert_cmpint (ar->bytes, ==, 2048 * 1024 * 2);
          g_assert_cmpuint (ar->per_block, ==, 2);
        }
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/apply/blocks/samples", test_blocks_samples);
  g_test_add_func ("/apply/blocks/pattern-samples", test_blocks_pattern_samples);
  g_test_add_func ("/apply/blocks/real", test_blocks_real);
  g_test_add_func ("/apply/blocks/nested-names", test_blocks_nested_names);
  g_test_add_func ("/apply/blocks/backward-span", test_blocks_backward_span);
  g_test_add_func ("/apply/fsdp", test_apply_fsdp);
  g_test_add_func ("/apply/fsdp-no-prefetch", test_apply_fsdp_no_prefetch);
  g_test_add_func ("/apply/fsdp-replay", test_apply_fsdp_replay);
  g_test_add_func ("/apply/tp", test_apply_tp);
  g_test_add_func ("/apply/ddp", test_apply_ddp);
  g_test_add_func ("/apply/others", test_apply_others);
  g_test_add_func ("/apply/real-multirank", test_apply_real_multirank);
  g_test_add_func ("/apply/refused", test_apply_refused);
  g_test_add_func ("/apply/palette", test_palette);
  g_test_add_func ("/apply/refused-real", test_apply_refused_real);
  g_test_add_func ("/apply/twice", test_apply_twice);
  return g_test_run ();
}
