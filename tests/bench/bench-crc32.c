/* bench-crc32.c: gzip's CRC-32, _weft_crc32 () (src/core/crc32.c) against
 * zlib's crc32_z (), on a buffer in cache (256 KiB, the reader's chunk)
 * and on one that is not (64 MiB). Prints GB/s, best of 5.
 *   build/tests/bench/bench-crc32 */
#include "config.h"

#include <stdio.h>
#include <zlib.h>

#include "core/crc32-private.h"

static double
rate (gboolean ours, const guint8 *buf, gsize n, guint reps, guint32 *out)
{
  double best = 0;
  for (guint r = 0; r < 5; r++)
    {
      guint32 c = 0;
      gint64 t0 = g_get_monotonic_time (), t1;
      for (guint k = 0; k < reps; k++)
        c = ours ? _weft_crc32 (c, buf, n) : (guint32) crc32_z (c, buf, n);
      t1 = g_get_monotonic_time ();
      best = MAX (best, (double) n * reps / ((double) (t1 - t0) / 1e6) / 1e9);
      *out = c;
    }
  return best;
}

int
main (void)
{
  const gsize sizes[] = { 256u << 10, 64u << 20 };
  GRand *rnd = g_rand_new_with_seed (32);
  guint8 *buf = g_malloc (sizes[1]);

  for (gsize i = 0; i < sizes[1]; i++)
    buf[i] = (guint8) g_rand_int (rnd);
  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      guint reps = (guint) MAX ((gsize) 1, (gsize) (512u << 20) / sizes[s]);
      guint32 a = 0, b = 0;
      double z = rate (FALSE, buf, sizes[s], reps, &a), w = rate (TRUE, buf, sizes[s], reps, &b);
      printf ("%8zu KiB: zlib crc32_z %6.2f GB/s, _weft_crc32 %6.2f GB/s (%.1fx)%s\n", sizes[s] >> 10, z, w, w / z,
              a == b ? "" : "  MISMATCH");
    }
  g_free (buf);
  g_rand_free (rnd);
  return 0;
}
