/* test-compose-attention.c: attention at long context in the composer
 * (compose-attention.c, compose.c; docs/composer.md "Attention at long
 * context"): FlashAttention-2's measured curve, torch's load-balanced
 * context-parallel chunks, causal FLOPs. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "core/compose-attention-private.h"
#include "testutil.h"
#include "weft/weft.h"

/* The curve: the FA3 paper's FlashAttention-2 figures, normalised to the
 * causal forward's 16k plateau; rises with the keys then flat; unmasked
 * above masked; the causal backward below the unmasked one. */
static void
test_curve (void)
{
  double prev = 0;

  g_assert_cmpfloat (fabs (_weft_compose_attention_shape (FALSE, TRUE, 16384) - 1), <, 1e-12);
  g_assert_cmpfloat (fabs (_weft_compose_attention_shape (FALSE, TRUE, 1 << 20) - 1), <, 1e-12);
  g_assert_cmpfloat (fabs (_weft_compose_attention_shape (FALSE, TRUE, 512) - 191.0 / 335), <, 1e-12);
  g_assert_cmpfloat (fabs (_weft_compose_attention_shape (FALSE, FALSE, 8192) - 370.0 / 335), <, 1e-12);
  g_assert_cmpfloat (fabs (_weft_compose_attention_shape (TRUE, FALSE, 4096) - 310.0 / 335), <, 1e-12);
  for (double sk = 256; sk <= 65536; sk *= 1.5)
    {
      double c = _weft_compose_attention_shape (FALSE, TRUE, sk);
      g_assert_cmpfloat (c, >=, prev);
      g_assert_cmpfloat (_weft_compose_attention_shape (FALSE, FALSE, sk), >=, c);
      g_assert_cmpfloat (_weft_compose_attention_shape (TRUE, TRUE, sk), <=, _weft_compose_attention_shape (TRUE, FALSE, sk));
      prev = c;
    }
}

typedef struct
{
  guint  n_fwd, n_merge;
  gint64 first_fwd, later_fwd;  /* durations of the first block's first and second flash forward */
  gint64 kv_gather;             /* In msg nelems of the first CP all-gather, -1 without */
} Attn;

static Attn
attention_of_rank0 (const WeftComposeParams *p)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftTrace) t = weft_compose_trace (p, &error);
  WeftRank *r;
  Attn a = { 0, 0, -1, -1, -1 };
  gboolean in_block = FALSE, done = FALSE;

  g_assert_no_error (error);
  r = weft_trace_rank (t, 0);
  /* the block's forward: flash forwards and merges until the first flash
   * backward */
  for (guint i = 0; i < r->events->len && !done; i++)
    {
      const WeftEvent *ev = &g_array_index (r->events, WeftEvent, i);
      const char *name = weft_rank_string (r, ev->name);
      if (ev->ph != WEFT_PH_X || ev->category != WEFT_CAT_KERNEL)
        continue;
      if (strstr (name, "flash_bwd") != NULL)
        done = TRUE;
      else if (strstr (name, "flash_fwd_kernel") != NULL)
        {
          if (a.n_fwd == 0)
            a.first_fwd = weft_event_dur (r, ev);
          else if (a.n_fwd == 1)
            a.later_fwd = weft_event_dur (r, ev);
          a.n_fwd++;
          in_block = TRUE;
        }
      else if (strstr (name, "logsumexp") != NULL && in_block)
        a.n_merge++;
    }
  for (guint c = 0; c < r->collectives->len; c++)
    {
      const WeftCollective *co = &g_array_index (r->collectives, WeftCollective, c);
      const char *desc = co->pg_desc ? weft_rank_string (r, co->pg_desc) : "";
      if (co->type == WEFT_COLL_ALL_GATHER && g_str_equal (desc, "mesh_cp"))
        {
          a.kv_gather = co->in_nelems;
          break;
        }
    }
  return a;
}

/* torch's context_parallel with load balancing, in both K/V modes: cp
 * flash calls per attention forward (the first causal over the local
 * tokens, the others unmasked over half: the same FLOPs, more efficient, so
 * no longer), cp - 1 fp32 merges; the all-gather carries the K/V that
 * torchtitan repeats to every head (the rank's T x heads x head_dim for K
 * and V). */
static void
test_cp_chunks (void)
{
  for (int mode = 0; mode < 2; mode++)
    {
      g_autoptr (GError) error = NULL;
      WeftComposeParams p;
      Attn a;
      double T;

      weft_compose_params_init (&p);
      g_assert_true (weft_compose_parse_strategies ("fsdp,cp", &p.strategies, &error));
      p.dp = 2;
      p.cp = 4;
      p.model.layers = 1;
      p.model.seq = 32768;
      p.cp_mode = mode ? WEFT_CP_RING : WEFT_CP_ALL_GATHER;
      p.jitter = 0;
      g_assert_true (weft_compose_params_validate (&p, &error));
      a = attention_of_rank0 (&p);
      T = (double) p.model.seq / p.cp * p.model.mbs;
      g_test_message ("cp 4 %s: %u flash forwards, %u merges, first %.3f ms, later %.3f ms", mode ? "ring" : "allgather",
                      a.n_fwd, a.n_merge, a.first_fwd / 1e6, a.later_fwd / 1e6);
      g_assert_cmpuint (a.n_fwd, ==, (guint) p.cp);
      g_assert_cmpuint (a.n_merge, ==, (guint) p.cp - 1);
      g_assert_cmpint (a.later_fwd, <, a.first_fwd);
      if (mode == 0)
        g_assert_cmpint (a.kv_gather, ==, (gint64) (2 * T * p.model.hidden));
    }
}

/* Causal FLOPs, balanced: a step at cp x the sequence with cp ranks sharing
 * it gives each rank cp times the attention of the 1-rank step at the short
 * sequence (T^2 cp / 2 per rank against T^2 / 2), so its flash time grows
 * by about cp (the curve is flat at these lengths; later chunks a little
 * faster). */
static void
test_causal_scaling (void)
{
  gint64 sum[2] = { 0, 0 };

  for (int k = 0; k < 2; k++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (WeftTrace) t = NULL;
      WeftComposeParams p;
      WeftRank *r;

      weft_compose_params_init (&p);
      g_assert_true (weft_compose_parse_strategies (k ? "fsdp,cp" : "fsdp", &p.strategies, &error));
      p.dp = 2;
      p.cp = k ? 4 : 1;
      p.model.layers = 1;
      p.model.seq = k ? 4 * 16384 : 16384;
      p.jitter = 0;
      g_assert_true (weft_compose_params_validate (&p, &error));
      t = weft_compose_trace (&p, &error);
      g_assert_no_error (error);
      r = weft_trace_rank (t, 0);
      for (guint i = 0; i < r->events->len; i++)
        {
          const WeftEvent *ev = &g_array_index (r->events, WeftEvent, i);
          if (ev->ph == WEFT_PH_X && ev->category == WEFT_CAT_KERNEL
              && strstr (weft_rank_string (r, ev->name), "flash_fwd_kernel") != NULL)
            sum[k] += weft_event_dur (r, ev);
        }
    }
  g_test_message ("flash forward per rank: %.3f ms (16k, 1 rank), %.3f ms (64k over cp 4)", sum[0] / 1e6, sum[1] / 1e6);
  g_assert_cmpfloat ((double) sum[1] / sum[0], >, 3.0);
  g_assert_cmpfloat ((double) sum[1] / sum[0], <, 4.0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/compose-attention/curve", test_curve);
  g_test_add_func ("/compose-attention/cp-chunks", test_cp_chunks);
  g_test_add_func ("/compose-attention/causal-scaling", test_causal_scaling);
  return g_test_run ();
}
