/* runsort-private.h: a merge sort for arrays that are mostly in order
 * already, as the loader's arrays are (model.c's lane sort, the id maps of
 * idmap-private.h), and a search of a sorted array from a hint.
 *
 * WEFT_DEFINE_RUN_SORT (name, T, before) defines
 *
 *   static inline gboolean name (T *data, gsize n);
 *
 * which sorts data by before (const T *x, const T *y), a strict order
 * (TRUE when x goes first), inlined, and says whether it moved anything.
 * An array in order is only checked. One
 * of a few runs in order (fewer breaks than one per WEFT_RUN_SORT_BLOCK
 * elements: a thread's slices then its instants, the correlation ids of a
 * few threads' launches) is merged as it is, in log2 (runs) passes;
 * otherwise insertion-sorted blocks of WEFT_RUN_SORT_BLOCK start the
 * merge. Stable: elements that neither goes before keep their order. A
 * merge whose halves are already in order is only copied. */
#pragma once

#include <string.h>

#include <glib.h>

#define WEFT_RUN_SORT_BLOCK 32

#define WEFT_DEFINE_RUN_SORT(name, T, before)                                                           \
  static inline gboolean name (T *data, gsize n)                                                        \
  {                                                                                                     \
    gsize breaks = 0, n_runs = 0, *starts;                                                              \
    T *src = data, *dst, *tmp;                                                                          \
                                                                                                        \
    for (gsize i = 1; i < n; i++)                                                                       \
      breaks += before (&data[i], &data[i - 1]);                                                        \
    if (breaks == 0)                                                                                    \
      return FALSE;                                                                                     \
    if (breaks < n / WEFT_RUN_SORT_BLOCK)                                                               \
      {                                                                                                 \
        starts = g_new (gsize, breaks + 2);                                                             \
        starts[n_runs++] = 0;                                                                           \
        for (gsize i = 1; i < n; i++)                                                                   \
          if (before (&data[i], &data[i - 1]))                                                          \
            starts[n_runs++] = i;                                                                       \
      }                                                                                                 \
    else                                                                                                \
      {                                                                                                 \
        for (gsize s = 0; s < n; s += WEFT_RUN_SORT_BLOCK)                                              \
          {                                                                                             \
            gsize e = MIN (s + WEFT_RUN_SORT_BLOCK, n);                                                 \
            for (gsize i = s + 1; i < e; i++)                                                           \
              {                                                                                         \
                T k = data[i];                                                                          \
                gsize j = i;                                                                            \
                while (j > s && before (&k, &data[j - 1]))                                              \
                  {                                                                                     \
                    data[j] = data[j - 1];                                                              \
                    j--;                                                                                \
                  }                                                                                     \
                data[j] = k;                                                                            \
              }                                                                                         \
          }                                                                                             \
        n_runs = (n + WEFT_RUN_SORT_BLOCK - 1) / WEFT_RUN_SORT_BLOCK;                                   \
        starts = g_new (gsize, n_runs + 1);                                                             \
        for (gsize r = 0; r < n_runs; r++)                                                              \
          starts[r] = r * WEFT_RUN_SORT_BLOCK;                                                          \
      }                                                                                                 \
    starts[n_runs] = n;                                                                                 \
    tmp = dst = g_new (T, n);                                                                           \
    while (n_runs > 1)                                                                                  \
      {                                                                                                 \
        T *swap;                                                                                        \
        gsize out = 0;                                                                                  \
        for (gsize r = 0; r < n_runs; r += 2)                                                           \
          {                                                                                             \
            gsize lo = starts[r], mid = starts[MIN (r + 1, n_runs)], hi = starts[MIN (r + 2, n_runs)];  \
            gsize i = lo, j = mid, k = lo;                                                              \
            starts[out++] = lo;                                                                         \
            if (mid == hi || !before (&src[mid], &src[mid - 1]))                                        \
              {                                                                                         \
                memcpy (dst + lo, src + lo, (hi - lo) * sizeof *src);                                   \
                continue;                                                                               \
              }                                                                                         \
            while (i < mid && j < hi)                                                                   \
              dst[k++] = before (&src[j], &src[i]) ? src[j++] : src[i++];                               \
            memcpy (dst + k, src + i, (mid - i) * sizeof *src);                                         \
            k += mid - i;                                                                               \
            memcpy (dst + k, src + j, (hi - j) * sizeof *src);                                          \
          }                                                                                             \
        starts[out] = starts[n_runs];                                                                   \
        n_runs = out;                                                                                   \
        swap = src;                                                                                     \
        src = dst;                                                                                      \
        dst = swap;                                                                                     \
      }                                                                                                 \
    if (src != data)                                                                                    \
      memcpy (data, src, n * sizeof *data);                                                             \
    g_free (tmp);                                                                                       \
    g_free (starts);                                                                                    \
    return TRUE;                                                                                        \
  }

/* WEFT_GALLOP (before, n, hint, result): sets result to the first i in
 * [0, n) for which before (i) is FALSE, n when there is none; before (i)
 * must be TRUE on a prefix of [0, n) (a sorted array against a bound).
 * Gallops from hint (any value) by steps that double, then searches the
 * last step: a few probes when the answer lies near hint, and the binary
 * search's answer wherever hint is (the index's flow ends and id maps,
 * which look up nearly in order). */
#define WEFT_GALLOP(before, n, hint, result)                                                            \
  G_STMT_START                                                                                          \
  {                                                                                                     \
    gsize gl_n_ = (n), gl_at_ = MIN ((gsize) (hint), gl_n_), gl_lo_, gl_hi_, gl_step_ = 1;              \
    if (gl_at_ < gl_n_ && (before (gl_at_)))                                                            \
      {                                                                                                 \
        /* forwards: before (gl_lo_ - 1) holds */                                                       \
        gl_lo_ = gl_hi_ = gl_at_ + 1;                                                                   \
        while (gl_hi_ < gl_n_ && (before (gl_hi_)))                                                     \
          {                                                                                             \
            gl_lo_ = gl_hi_ + 1;                                                                        \
            gl_hi_ = gl_n_ - gl_hi_ > gl_step_ ? gl_hi_ + gl_step_ : gl_n_;                             \
            gl_step_ *= 2;                                                                              \
          }                                                                                             \
      }                                                                                                 \
    else                                                                                                \
      {                                                                                                 \
        /* backwards: before (gl_hi_) fails (or gl_hi_ is n) */                                         \
        gl_lo_ = gl_hi_ = gl_at_;                                                                       \
        while (gl_lo_ > 0 && !(before (gl_lo_ - 1)))                                                    \
          {                                                                                             \
            gl_hi_ = gl_lo_ - 1;                                                                        \
            gl_lo_ = gl_lo_ - 1 > gl_step_ ? gl_lo_ - 1 - gl_step_ : 0;                                 \
            gl_step_ *= 2;                                                                              \
          }                                                                                             \
      }                                                                                                 \
    while (gl_lo_ < gl_hi_)                                                                             \
      {                                                                                                 \
        gsize gl_mid_ = gl_lo_ + (gl_hi_ - gl_lo_) / 2;                                                 \
        if (before (gl_mid_))                                                                           \
          gl_lo_ = gl_mid_ + 1;                                                                         \
        else                                                                                            \
          gl_hi_ = gl_mid_;                                                                             \
      }                                                                                                 \
    (result) = gl_lo_;                                                                                  \
  }                                                                                                     \
  G_STMT_END
