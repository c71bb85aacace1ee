/* runsort-private.h: a merge sort for arrays that are mostly in order
 * already, as the loader's arrays are (model.c's lane sort, the id maps of
 * idmap-private.h).
 *
 * WEFT_DEFINE_RUN_SORT (name, T, before) defines
 *
 *   static void name (T *data, gsize n);
 *
 * which sorts data by before (const T *x, const T *y), a strict order
 * (TRUE when x goes first), inlined. An array in order is only checked. One
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
  static void name (T *data, gsize n)                                                                   \
  {                                                                                                     \
    gsize breaks = 0, n_runs = 0, *starts;                                                              \
    T *src = data, *dst, *tmp;                                                                          \
                                                                                                        \
    for (gsize i = 1; i < n; i++)                                                                       \
      breaks += before (&data[i], &data[i - 1]);                                                        \
    if (breaks == 0)                                                                                    \
      return;                                                                                           \
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
  }
