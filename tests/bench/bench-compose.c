/* bench-compose.c: time to compose a step (build the DAG, solve it, write
 * every rank's Kineto text), to write it gzip'd to a folder (ranks in
 * parallel), and to load it back with the real loader. Not a test: run by
 * hand, figures in docs/benchmarks.md ## Composer.
 *
 *   build/tests/bench/bench-compose [OUT_DIR]
 *
 * Cases: the 8-rank FSDP Llama-3-8B sample shape, a 64-rank
 * Llama-3-70B-like FSDP+TP step (dp 8 x tp 8, all 80 blocks), and the
 * scale series: FSDP over 64, 256, 512 ranks (Llama-3-8B, one block) and
 * FSDP x TP 8 over 256 and 512 ranks (Llama-3-70B, two blocks). */
#include "config.h"

#include <stdio.h>

#include "weft/weft-compose.h"
#include "weft/weft-load.h"

static void
bench_case (const char *label, const WeftComposeParams *p, const char *out)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) texts = NULL;
  g_autoptr (WeftTrace) trace = NULL;
  g_autofree char *dir = g_build_filename (out, label, NULL);
  gint64 t0, t_json, t_write, t_load;
  guint64 bytes = 0, events = 0;

  t0 = g_get_monotonic_time ();
  texts = weft_compose_json (p, &error);
  t_json = g_get_monotonic_time () - t0;
  if (texts == NULL)
    {
      fprintf (stderr, "%s: %s\n", label, error->message);
      return;
    }
  for (guint r = 0; r < texts->len; r++)
    bytes += g_bytes_get_size (g_ptr_array_index (texts, r));
  g_clear_pointer (&texts, g_ptr_array_unref);

  t0 = g_get_monotonic_time ();
  if (!weft_compose_write (p, dir, ".json.gz", NULL, &error))
    {
      fprintf (stderr, "%s: %s\n", label, error->message);
      return;
    }
  t_write = g_get_monotonic_time () - t0;

  t0 = g_get_monotonic_time ();
  trace = weft_trace_load (dir, NULL, NULL, &error);
  t_load = g_get_monotonic_time () - t0;
  if (trace == NULL)
    {
      fprintf (stderr, "%s: %s\n", label, error->message);
      return;
    }
  for (guint r = 0; r < trace->ranks->len; r++)
    events += weft_trace_rank (trace, r)->events->len;
  printf ("%s: %d ranks, %d blocks, %" G_GUINT64_FORMAT " events, %.1f MB JSON, %u instances\n"
          "  compose in memory %.2f s, compose + gzip to %s %.2f s, load back %.2f s\n",
          label, weft_compose_world_size (p), p->model.layers, events, bytes / 1e6, trace->instances->len,
          t_json / 1e6, dir, t_write / 1e6, t_load / 1e6);
}

int
main (int argc, char **argv)
{
  g_autofree char *tmp = NULL;
  const char *out;
  WeftComposeParams p;

  if (argc > 1)
    out = argv[1];
  else
    out = tmp = g_dir_make_tmp ("weft-bench-compose-XXXXXX", NULL);

  weft_compose_params_init (&p);
  p.model.layers = 3;
  bench_case ("fsdp8-llama3-8b", &p, out);

  weft_compose_params_init (&p);
  weft_compose_params_set_preset (&p, "llama3-70b", NULL);
  weft_compose_parse_strategies ("fsdp,tp", &p.strategies, NULL);
  p.dp = 8;
  p.tp = 8;
  bench_case ("fsdp-tp-64-llama3-70b", &p, out);

  for (int n = 64; n <= 512; n *= 2)
    {
      g_autofree char *label = g_strdup_printf ("fsdp-%d-llama3-8b-1block", n);
      if (n == 128)
        continue;
      weft_compose_params_init (&p);
      p.dp = n;
      p.model.layers = 1;
      bench_case (label, &p, out);
    }
  for (int n = 256; n <= 512; n *= 2)
    {
      g_autofree char *label = g_strdup_printf ("fsdp-tp-%d-llama3-70b-2blocks", n);
      weft_compose_params_init (&p);
      weft_compose_params_set_preset (&p, "llama3-70b", NULL);
      weft_compose_parse_strategies ("fsdp,tp", &p.strategies, NULL);
      p.dp = n / 8;
      p.tp = 8;
      p.model.layers = 2;
      bench_case (label, &p, out);
    }
  printf ("(output left in %s)\n", out);
  return 0;
}
