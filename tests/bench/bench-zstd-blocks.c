/* bench-zstd-blocks.c: what the text store's zstd parameters cost and pack.
 *
 *   bench-zstd-blocks [--repeat N] [--only I] FILE
 *
 * FILE (plain JSON, e.g. the decompressed df_index_resolver) is cut into
 * independent blocks as src/core/textstore.c packs the event texts, and
 * each configuration of the table below compresses every block: one
 * ZSTD_CCtx, its parameters set once (ZSTD_compress2), or the level given
 * per call (ZSTD_compressCCtx, as textstore.c does). Prints per row the
 * packed size, the ratio and MB of input per CPU-second (best of N runs).
 * --only I runs row I once (for callgrind's instruction counts). Figures
 * in docs/benchmarks.md ("Third pass"). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>

#include <glib.h>

typedef struct
{
  gsize       block_kib;
  int         level;
  int         window_log;  /* 0: zstd's choice */
  int         min_match;   /* 0: zstd's choice */
  int         hash_log;    /* 0: zstd's choice */
  gboolean    per_call;    /* ZSTD_compressCCtx with the level, as textstore.c did */
  const char *what;
} Config;

static const Config configs[] = {
  { 128, 1, 0, 0, 0, TRUE, "level 1, ZSTD_compressCCtx (textstore.c before hashLog 16)" },
  { 128, 1, 0, 0, 0, FALSE, "level 1, parameters set once" },
  { 128, 1, 0, 7, 0, FALSE, "level 1, minMatch 7" },
  { 128, 1, 16, 0, 0, FALSE, "level 1, windowLog 16" },
  { 128, 1, 0, 0, 15, FALSE, "level 1, hashLog 15" },
  { 128, 1, 0, 0, 16, FALSE, "level 1, hashLog 16 (textstore.c)" },
  { 128, 1, 0, 0, 17, FALSE, "level 1, hashLog 17" },
  { 128, -1, 0, 0, 0, FALSE, "level -1" },
  { 128, -3, 0, 0, 0, FALSE, "level -3" },
  { 256, 1, 0, 0, 0, FALSE, "level 1" },
  { 256, -1, 0, 0, 0, FALSE, "level -1" },
  { 64, 1, 0, 0, 0, FALSE, "level 1" },
};

static double
cpu_seconds (void)
{
  struct timespec t;
  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double) t.tv_sec + (double) t.tv_nsec * 1e-9;
}

/* Compresses data in blocks with c; the packed bytes, or 0 on an error. */
static gsize
run (const Config *c, ZSTD_CCtx *cctx, const char *data, gsize len, guint8 *out, gsize out_cap)
{
  gsize bs = c->block_kib * 1024, total = 0;

  for (gsize p = 0; p < len; p += bs)
    {
      gsize n = MIN (bs, len - p);
      size_t rc = c->per_call ? ZSTD_compressCCtx (cctx, out, out_cap, data + p, n, c->level)
                              : ZSTD_compress2 (cctx, out, out_cap, data + p, n);
      if (ZSTD_isError (rc))
        {
          fprintf (stderr, "zstd: %s\n", ZSTD_getErrorName (rc));
          return 0;
        }
      total += rc;
    }
  return total;
}

int
main (int argc, char **argv)
{
  int repeat = 5, only = -1;
  g_autofree char *data = NULL;
  gsize len = 0;
  g_autoptr (GError) error = NULL;
  GOptionEntry entries[] = {
    { "repeat", 0, 0, G_OPTION_ARG_INT, &repeat, "Runs per row (best kept)", "N" },
    { "only", 0, 0, G_OPTION_ARG_INT, &only, "Run row I once", "I" },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("FILE");

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || argc != 2)
    {
      fprintf (stderr, "usage: bench-zstd-blocks [--repeat N] [--only I] FILE\n");
      return 2;
    }
  if (!g_file_get_contents (argv[1], &data, &len, &error))
    {
      fprintf (stderr, "%s\n", error->message);
      return 2;
    }
  printf ("| block | parameters | MB/CPU-s | packed MiB | ratio |\n|---|---|---|---|---|\n");
  for (guint i = 0; i < G_N_ELEMENTS (configs); i++)
    {
      const Config *c = &configs[i];
      ZSTD_CCtx *cctx;
      gsize cap = ZSTD_compressBound (c->block_kib * 1024), packed = 0;
      g_autofree guint8 *out = g_malloc (cap);
      double best = G_MAXDOUBLE;
      int runs = only >= 0 ? 1 : MAX (repeat, 1);

      if (only >= 0 && (guint) only != i)
        continue;
      cctx = ZSTD_createCCtx ();
      ZSTD_CCtx_setParameter (cctx, ZSTD_c_compressionLevel, c->level);
      if (c->window_log > 0)
        ZSTD_CCtx_setParameter (cctx, ZSTD_c_windowLog, c->window_log);
      if (c->min_match > 0)
        ZSTD_CCtx_setParameter (cctx, ZSTD_c_minMatch, c->min_match);
      if (c->hash_log > 0)
        ZSTD_CCtx_setParameter (cctx, ZSTD_c_hashLog, c->hash_log);
      for (int r = 0; r < runs; r++)
        {
          double t0 = cpu_seconds ();
          packed = run (c, cctx, data, len, out, cap);
          best = MIN (best, cpu_seconds () - t0);
        }
      ZSTD_freeCCtx (cctx);
      if (packed == 0)
        return 1;
      printf ("| %" G_GSIZE_FORMAT " KiB | %s | %.0f | %.2f | %.1fx |\n", c->block_kib, c->what,
              (double) len / 1e6 / MAX (best, 1e-9), (double) packed / 1048576.0, (double) len / (double) packed);
    }
  return 0;
}
