/* crc32.c: gzip's CRC-32 by folding (crc32-private.h).
 *
 * The method of Gopal, Ozturk et al., "Fast CRC Computation for Generic
 * Polynomials Using PCLMULQDQ Instruction" (Intel, 2009), in its
 * bit-reflected form for the polynomial 0x04C11DB7: four 128-bit lanes
 * folded 64 bytes at a time, folded into one, reduced to 64 and then 32
 * bits, and a Barrett reduction. The constants are x^k mod P for the
 * paper's k (and P, mu for Barrett), reflected. Lengths under 64 and the
 * last len % 16 bytes go to zlib. */
#include "config.h"

#include <zlib.h>

#include "crc32-private.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(WEFT_JSON_NO_SIMD)
#define WEFT_CRC_FOLD 1
#include <immintrin.h>

/* The raw register (not inverted) after len bytes of p: len >= 64, a
 * multiple of 16. */
__attribute__ ((target ("pclmul,sse4.1"))) static guint32
crc_fold (guint32 state, const guint8 *p, gsize len)
{
  const __m128i k_by4 = _mm_set_epi64x (0x1c6e41596, 0x154442bd4); /* 512 bits on */
  const __m128i k_by1 = _mm_set_epi64x (0x0ccaa009e, 0x1751997d0); /* 128 bits on */
  const __m128i k_64 = _mm_set_epi64x (0, 0x163cd6124);           /* 64 -> 32 bits */
  const __m128i k_mu = _mm_set_epi64x (0x1f7011641, 0x1db710641); /* mu', P' */
  const __m128i low32 = _mm_setr_epi32 (-1, 0, -1, 0);
  __m128i x0 = _mm_xor_si128 (_mm_loadu_si128 ((const __m128i *) (const void *) p), _mm_cvtsi32_si128 ((int) state));
  __m128i x1 = _mm_loadu_si128 ((const __m128i *) (const void *) (p + 16));
  __m128i x2 = _mm_loadu_si128 ((const __m128i *) (const void *) (p + 32));
  __m128i x3 = _mm_loadu_si128 ((const __m128i *) (const void *) (p + 48));
  __m128i t;

  /* x = x.lo * k.lo ^ x.hi * k.hi ^ next */
#define FOLD_INTO(x, k, next)                                                                      \
  do                                                                                               \
    {                                                                                              \
      t = _mm_clmulepi64_si128 (x, k, 0x00);                                                       \
      x = _mm_xor_si128 (_mm_xor_si128 (_mm_clmulepi64_si128 (x, k, 0x11), t), next);             \
    }                                                                                              \
  while (0)
#define LOAD(q) _mm_loadu_si128 ((const __m128i *) (const void *) (q))

  for (p += 64, len -= 64; len >= 64; p += 64, len -= 64)
    {
      FOLD_INTO (x0, k_by4, LOAD (p));
      FOLD_INTO (x1, k_by4, LOAD (p + 16));
      FOLD_INTO (x2, k_by4, LOAD (p + 32));
      FOLD_INTO (x3, k_by4, LOAD (p + 48));
    }
  FOLD_INTO (x0, k_by1, x1);
  FOLD_INTO (x0, k_by1, x2);
  FOLD_INTO (x0, k_by1, x3);
  for (; len >= 16; p += 16, len -= 16)
    FOLD_INTO (x0, k_by1, LOAD (p));
#undef LOAD
#undef FOLD_INTO

  /* 128 -> 64 bits (the upper half on, 32 zero bits appended) */
  t = _mm_clmulepi64_si128 (x0, k_by1, 0x10);
  x0 = _mm_xor_si128 (_mm_srli_si128 (x0, 8), t);
  /* 64 -> 32 bits */
  t = _mm_srli_si128 (x0, 4);
  x0 = _mm_xor_si128 (_mm_clmulepi64_si128 (_mm_and_si128 (x0, low32), k_64, 0x00), t);
  /* Barrett: q = (x * mu') mod x^32, x ^= q * P' */
  t = _mm_clmulepi64_si128 (_mm_and_si128 (x0, low32), k_mu, 0x10);
  t = _mm_clmulepi64_si128 (_mm_and_si128 (t, low32), k_mu, 0x00);
  return (guint32) _mm_extract_epi32 (_mm_xor_si128 (x0, t), 1);
}

static gboolean
have_fold (void)
{
  static gsize have = 0; /* 0: not asked yet, 1: no, 2: yes */
  if (g_once_init_enter (&have))
    g_once_init_leave (&have, __builtin_cpu_supports ("pclmul") && __builtin_cpu_supports ("sse4.1") ? 2 : 1);
  return have == 2;
}
#endif

guint32
_weft_crc32 (guint32 crc, const guint8 *data, gsize len)
{
#ifdef WEFT_CRC_FOLD
  if (len >= 64 && have_fold ())
    {
      gsize n = len & ~(gsize) 15;
      crc = ~crc_fold (~crc, data, n);
      data += n;
      len -= n;
    }
#endif
  return len > 0 ? (guint32) crc32_z (crc, data, len) : crc;
}
