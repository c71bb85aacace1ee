/* test-compose-knobs.c: the composer's activation checkpointing and
 * efficiency knobs (--ac, --compile, --float8): the recompute kernels where
 * torchtitan runs them, the kernel counts of each mode, and torchtitan's
 * published Table 1 (benchmarks/llama3_h100_202412_torchtitan.md) predicted
 * through the real CLI (docs/composer.md, "Activation checkpointing and
 * efficiency knobs"). */
#include "config.h"

#include <math.h>
#include <string.h>
#include <sys/wait.h>

#include <json-c/json.h>

#include "testutil.h"
#include "weft/weft.h"
#include "weft/weft-compose.h"

/* occurrences of needle in rank 0's composed JSON */
static guint
count_in_rank0 (const WeftComposeParams *p, const char *needle)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) texts = weft_compose_json (p, &error);
  gsize len = 0;
  const char *s, *end;
  guint n = 0;

  g_assert_no_error (error);
  s = g_bytes_get_data (g_ptr_array_index (texts, 0), &len);
  end = s + len;
  for (const char *q = s; q < end && (q = g_strstr_len (q, end - q, needle)) != NULL; q += strlen (needle))
    n++;
  return n;
}

static void
params_small (WeftComposeParams *p, int layers)
{
  weft_compose_params_init (p);
  p->dp = 2;
  p->model.layers = layers;
  p->model.seq = 1024;
}

#define KERNEL "\"cat\": \"kernel\""

/* Kernels per dense block forward (docs/composer.md): eager 8 (RMSNorm) + 7
 * GEMMs + 2 x 3 (RoPE) + 2 (repeat_kv) + 1 (flash) + 1 (add) + 8 + 2
 * (SwiGLU) + 1 = 36; compiled 1 + 7 + 2 + 1 + 1 + 1 + 1 + 1 = 15. */
static void
test_recompute_kernels (void)
{
  static const struct
  {
    const char *ac;
    gboolean    compile;
    int         layers;
    guint       extra;   /* recompute kernels on rank 0 */
    guint       scopes;  /* recompute_fn spans */
  } rows[] = {
    { "none", FALSE, 4, 0, 0 },
    { "full", FALSE, 4, 4 * 36, 4 },
    { "full", TRUE, 4, 4 * 15, 4 },
    /* op SAC: the flash forward and the odd-counted mms (1, 3, 5, 7 of the
     * run's first step) are saved: 36 - 1 - 4 */
    { "selective", FALSE, 4, 4 * 31, 4 },
    { "selective", TRUE, 4, 4 * 10, 4 },
    /* layer SAC every 2nd block: blocks 1 and 3, fully */
    { "layer:2", FALSE, 4, 2 * 36, 2 },
    { "layer:3", TRUE, 4, 1 * 15, 1 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (GError) error = NULL;
      WeftComposeParams base, p;
      guint n_base, n;

      params_small (&base, rows[i].layers);
      base.compile = rows[i].compile;
      p = base;
      g_assert_true (weft_compose_parse_ac (rows[i].ac, &p.ac, &p.ac_layer_freq, &error));
      g_assert_no_error (error);
      n_base = count_in_rank0 (&base, KERNEL);
      n = count_in_rank0 (&p, KERNEL);
      g_test_message ("ac %s%s: %u kernels, %u without AC", rows[i].ac, rows[i].compile ? " compile" : "", n, n_base);
      g_assert_cmpuint (n - n_base, ==, rows[i].extra);
      g_assert_cmpuint (count_in_rank0 (&p, "recompute_fn"), ==, rows[i].scopes);
      /* the recompute never runs the flash forward under op SAC */
      if (p.ac == WEFT_AC_SELECTIVE_OP)
        g_assert_cmpuint (count_in_rank0 (&p, "flash_fwd_kernel"), ==, count_in_rank0 (&base, "flash_fwd_kernel"));
    }
}

/* --compile fuses each block's memory-bound ops (fewer kernels, fewer
 * bytes): 36 -> 15 kernels per block forward; --float8 turns the block
 * GEMMs (not the output layer) into torch._scaled_mm with casts. */
static void
test_compile_float8_kernels (void)
{
  g_autoptr (GError) error = NULL;
  WeftComposeParams eager, comp, f8, f8ag;
  guint n_mm, n_scaled, n_ag_f8;

  params_small (&eager, 2);
  comp = eager;
  comp.compile = TRUE;
  g_assert_cmpuint (count_in_rank0 (&eager, KERNEL), >, count_in_rank0 (&comp, KERNEL));
  /* eager norms: 8 forward kernels per norm, none of Inductor's */
  g_assert_cmpuint (count_in_rank0 (&comp, "triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_0"), ==, 2 * 2);
  g_assert_cmpuint (count_in_rank0 (&eager, "triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_0"), ==, 0);

  f8 = comp;
  f8.float8 = TRUE;
  g_assert_true (weft_compose_params_validate (&f8, &error));
  n_scaled = count_in_rank0 (&f8, "\"name\": \"aten::_scaled_mm\"");
  n_mm = count_in_rank0 (&f8, "\"name\": \"aten::mm\"");
  /* 7 forward + 14 backward GEMMs per block; the output layer stays bf16 */
  g_assert_cmpuint (n_scaled, ==, 2 * 21);
  g_assert_cmpuint (n_mm, ==, 3);
  g_assert_cmpuint (count_in_rank0 (&f8, "Float8_e4m3fn\""), >, 0);

  f8ag = f8;
  f8ag.float8_all_gather = TRUE;
  g_assert_true (weft_compose_params_validate (&f8ag, &error));
  n_ag_f8 = count_in_rank0 (&f8ag, "\"dtype\": \"Float8_e4m3fn\"");
  /* each block's all-gather, forward and backward (the last block's
   * backward one too: reshard after forward), in float8 */
  g_assert_cmpuint (n_ag_f8, >=, 2 * 2);
  g_assert_cmpuint (count_in_rank0 (&f8, "\"dtype\": \"Float8_e4m3fn\""), ==, 0);

  /* float8 all-gather without float8 linears: refused */
  comp.float8_all_gather = TRUE;
  g_assert_false (weft_compose_params_validate (&comp, &error));
  g_assert_error (error, WEFT_ERROR, WEFT_ERROR_INVALID);
}

/* The parameters survive the "weft" key; defaults are not written. */
static void
test_params_json (void)
{
  g_autoptr (GError) error = NULL;
  WeftComposeParams p, q, d;
  json_object *j, *jd, *v;

  params_small (&p, 2);
  d = p;
  p.ac = WEFT_AC_SELECTIVE_LAYER;
  p.ac_layer_freq = 3;
  p.compile = TRUE;
  p.float8 = TRUE;
  p.float8_all_gather = TRUE;
  j = weft_compose_params_to_json (&p);
  weft_compose_params_init (&q);
  g_assert_true (weft_compose_params_from_json (&q, j, &error));
  g_assert_no_error (error);
  g_assert_cmpint (q.ac, ==, WEFT_AC_SELECTIVE_LAYER);
  g_assert_cmpint (q.ac_layer_freq, ==, 3);
  g_assert_true (q.compile && q.float8 && q.float8_all_gather);
  json_object_put (j);
  jd = weft_compose_params_to_json (&d);
  g_assert_false (json_object_object_get_ex (jd, "ac", &v));
  g_assert_false (json_object_object_get_ex (jd, "compile", &v));
  json_object_put (jd);
  g_assert_false (weft_compose_parse_ac ("sometimes", &p.ac, &p.ac_layer_freq, &error));
  g_assert_error (error, WEFT_ERROR, WEFT_ERROR_INVALID);
}

static char *
run_cli (const char *args)
{
  g_autofree char *cli = weft_test_build_path ("weft-cli");
  g_autofree char *cmd = g_strdup_printf ("%s %s", cli, args);
  g_autoptr (GError) error = NULL;
  char *out = NULL;
  int status = -1;

  g_assert_true (g_spawn_command_line_sync (cmd, &out, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  return out;
}

/* torchtitan's Table 1 (Llama 3.1 8B, 8 H100 HBM2e at 500 W, FSDP, local
 * batch 2, seq 8192, selective op AC): TPS/GPU = 2 x 8192 tokens / the
 * step time of the composed trace (weft-cli analyze --json), and its peak
 * reserved memory (torchtitan's max_reserved_gib), each within 10 % of the
 * published figure. */
static void
test_table1 (void)
{
  static const struct
  {
    const char *flags;
    double      published, memory_gib;
  } rows[] = {
    { "", 5762, 82.4 },
    { "--compile", 6667, 77.0 },
    { "--compile --float8", 8532, 76.8 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *leaf = g_strdup_printf ("table1-%u", i);
      g_autofree char *out = g_build_filename (weft_test_tmpdir (), leaf, NULL);
      g_autofree char *args = g_strdup_printf ("compose -s fsdp --dp 8 -p llama3-8b --layers 32 --seq 8192 --mbs 2 "
                                               "--hw h100-hbm2e-500w --ac selective %s -q --out %s",
                                               rows[i].flags, out);
      g_free (run_cli (args)); /* compose -q prints nothing */
      g_autofree char *a2 = g_strdup_printf ("analyze --json %s", out);
      g_autofree char *json = run_cli (a2);
      json_object *root = json_tokener_parse (json), *whole, *st, *mem;
      double step_us, tps, gib;

      g_assert_nonnull (root);
      g_assert_true (json_object_object_get_ex (root, "whole", &whole));
      g_assert_true (json_object_object_get_ex (whole, "step_time_us", &st));
      step_us = json_object_get_double (st);
      tps = 2.0 * 8192 / (step_us / 1e6);
      g_test_message ("Table 1 '%s': step %.1f ms, %.0f TPS/GPU (published %.0f, %+.1f %%)", rows[i].flags,
                      step_us / 1e3, tps, rows[i].published, 100 * (tps / rows[i].published - 1));
      g_assert_cmpfloat (fabs (tps / rows[i].published - 1), <, 0.10);
      /* torchtitan's memory column: max_reserved_gib (the caching
       * allocator's reserved peak), analyze's peak_memory_gib */
      g_assert_true (json_object_object_get_ex (root, "peak_memory_gib", &mem));
      gib = json_object_get_double (mem);
      g_test_message ("Table 1 '%s': peak reserved %.1f GiB (published %.1f, %+.1f %%)", rows[i].flags, gib,
                      rows[i].memory_gib, 100 * (gib / rows[i].memory_gib - 1));
      g_assert_cmpfloat (fabs (gib / rows[i].memory_gib - 1), <, 0.10);
      json_object_put (root);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/compose-knobs/recompute-kernels", test_recompute_kernels);
  g_test_add_func ("/compose-knobs/compile-float8-kernels", test_compile_float8_kernels);
  g_test_add_func ("/compose-knobs/params-json", test_params_json);
  g_test_add_func ("/compose-knobs/table1", test_table1);
  return g_test_run ();
}
