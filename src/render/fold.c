/* fold.c: the level-of-detail fold of a depth row (docs/rendering.md
 * "Level of detail"): each box covers >= WEFT_RENDER_MIN_BOX_PX, so a
 * row costs what it draws, not what it holds; and the folds of a frame's
 * rows are shared with the painter's threads (pool.c) where they only
 * read arrays. */
#include "config.h"

#include <math.h>

#include "render-private.h"

/* A depth row never overlaps, so its ends are sorted. */
guint
weft_fold_first_end_after (const WeftRankTimes *rt, const guint32 *idx, guint n, gint64 t)
{
  guint lo = 0, hi = n;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      gint64 b, e;
      weft_rank_times_get (rt, idx[mid], &b, &e);
      if (MAX (e, b + 1) <= t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* First i in [lo, n) with ts[i] >= t over a packed sorted array:
 * galloping from lo (the answer is usually near), then binary search. */
static guint
gallop_ts_r (const gint64 *ts, guint lo, guint n, gint64 t, guint *maxr)
{
  guint hi = n, step = 1;
  while (lo < n)
    {
      guint probe = lo + step - 1;
      if (probe >= n)
        break;
      if (ts[probe] >= t)
        {
          hi = probe;
          break;
        }
      lo = probe + 1;
      step *= 2;
    }
  /* every index read is below hi, or hi itself (the probe that stopped) */
  *maxr = hi < n ? hi : (n > 0 ? n - 1 : 0);
  return weft_render_lower_bound_ts (ts, lo, hi, t);
}

static guint
gallop_ts (const gint64 *ts, guint lo, guint n, gint64 t)
{
  guint m;
  return gallop_ts_r (ts, lo, n, t, &m);
}

/* gallop_ts over a lane's array read through a depth row's positions in it. */
static guint
gallop_pos (const gint64 *ts, const guint32 *pos, guint lo, guint n, gint64 t, guint *maxr)
{
  guint hi = n, step = 1;
  while (lo < n)
    {
      guint probe = lo + step - 1;
      if (probe >= n)
        break;
      if (ts[pos[probe]] >= t)
        {
          hi = probe;
          break;
        }
      lo = probe + 1;
      step *= 2;
    }
  *maxr = hi < n ? hi : (n > 0 ? n - 1 : 0);
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (ts[pos[mid]] < t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* First i in [lo, n) whose start >= t: galloping from lo (the target is
 * usually near), then binary search; over the packed times when there are.
 * *maxr: the highest index it read (over the solved arrays; the row's last
 * otherwise). */
static guint
first_start_at (const WeftRankTimes *rt, const WeftDepthRow *dr, guint lo, gint64 t, guint *maxr)
{
  const guint32 *idx = dr->idx;
  guint n = dr->n, hi = dr->n, step = 1;

  if (dr->sstart != NULL)
    return dr->spos != NULL ? gallop_pos (dr->sstart, dr->spos, lo, n, t, maxr)
                            : gallop_ts_r (dr->sstart, lo, n, t, maxr);
  *maxr = n > 0 ? n - 1 : 0;
  if (dr->ts != NULL && rt->times == NULL)
    return gallop_ts (dr->ts, lo, n, t - rt->offset);
  /* Solved times asked for directly (a drag): guess the index from the
   * packed observed times under the local shift (edits move runs of ops by
   * the same amount), and check the guess with two lookups; search only
   * when it is wrong. */
  if (dr->ts != NULL && lo < n)
    {
      gint64 b0, e0, b, e;
      gint64 tf;
      guint g, glo = lo, ghi = n;
      weft_rank_times_get (rt, idx[lo], &b0, &e0);
      if (b0 >= t)
        return lo;
      tf = t - (b0 - dr->ts[lo]);
      g = gallop_ts (dr->ts, glo, ghi, tf);
      if (g > lo)
        {
          weft_rank_times_get (rt, idx[g - 1], &b, &e);
          if (b < t)
            {
              if (g >= n)
                return g;
              weft_rank_times_get (rt, idx[g], &b, &e);
              if (b >= t)
                return g;
              lo = g; /* the answer is further on */
            }
        }
    }
  while (lo < n)
    {
      guint probe = lo + step - 1;
      gint64 b, e;
      if (probe >= n)
        break;
      weft_rank_times_get (rt, idx[probe], &b, &e);
      if (b >= t)
        {
          hi = probe;
          break;
        }
      lo = probe + 1;
      step *= 2;
    }
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      gint64 b, e;
      weft_rank_times_get (rt, idx[mid], &b, &e);
      if (b < t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* Times and colour key of the i-th event of a depth row: from the row's
 * packed caches when observed times are drawn (no event record touched),
 * else through the times accessor. */
static inline void
row_times (const WeftRankTimes *rt, const WeftDepthRow *dr, guint i, gint64 *b, gint64 *e)
{
  if (dr->sstart != NULL)
    {
      guint p = dr->spos != NULL ? dr->spos[i] : i;
      *b = dr->sstart[p];
      *e = dr->send[p];
      return;
    }
  if (dr->ts != NULL && rt->times == NULL)
    {
      *b = dr->ts[i] + rt->offset;
      *e = *b + (dr->dur[i] != G_MAXUINT32 ? (gint64) dr->dur[i] : weft_event_dur (rt->rank, &rt->events[dr->idx[i]]));
      return;
    }
  weft_rank_times_get (rt, dr->idx[i], b, e);
}

guint
weft_fold_row_first_end_after (const WeftRankTimes *rt, const WeftDepthRow *dr, gint64 t)
{
  guint lo = 0, hi = dr->n;
  if (dr->sstart == NULL)
    return weft_fold_first_end_after (rt, dr->idx, dr->n, t);
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      gint64 b, e;
      row_times (rt, dr, mid, &b, &e);
      if (MAX (e, b + 1) <= t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

static inline guint
row_key (const WeftRankTimes *rt, const WeftDepthRow *dr, guint i)
{
  const WeftEvent *ev;
  if (dr->key != NULL)
    return dr->key[i];
  ev = &rt->events[dr->idx[i]];
  return (ev->flags & WEFT_EVENT_DELETED) ? WEFT_KEY_DELETED : weft_render_event_key (rt->rank, ev);
}

/* The key a GPU compute op is drawn with under view->color_by_microbatch:
 * its pipeline action's microbatch hue (mb NULL: the mode is off or the
 * rank has no actions); one table read per op looked at. */
static inline guint
mb_key (const guint32 *mb, const WeftDepthRow *dr, guint i, guint key)
{
  guint32 a;
  if (mb == NULL || key >= WEFT_KEY_COLL_BASE || (a = mb[dr->idx[i]]) == 0)
    return key;
  return WEFT_KEY_MB_BASE + ((a >> 29) & 3 ? WEFT_RENDER_MICROBATCH_HUES : 0) +
         (a & 0x1ffff) % WEFT_RENDER_MICROBATCH_HUES;
}

static inline double
clamp_x (const WeftFoldView *p, double x)
{
  return CLAMP (x, -2.0, p->view->width + 2.0);
}

/* The fold of a depth row from index i (the first event ending after the
 * view's start, or where a kept box went on from), its boxes appended to
 * out. With old (the boxes of the previous paint of this view, whose entry
 * indices are old_first, then each box's next), once the fold is about to
 * start a step at an index past cmax (the last row index whose times
 * changed) that an old step also started at, everything from there reads
 * only unchanged entries: the old boxes from that step on are appended and
 * the fold stops. maxread of a box: the highest index read so far. */
static void
fold_row (const WeftFoldView *p, const WeftRankTimes *rt, const WeftDepthRow *dr, guint i, guint mr, GArray *out,
          const WeftCachedBox *old, guint n_old, guint q, guint32 old_first, guint32 cmax, guint *visited)
{
  const double min_box = WEFT_RENDER_MIN_BOX_PX;
  const guint32 *pp = rt->rank_index < p->layout->n_ranks ? p->layout->ranks[rt->rank_index].pp : NULL;
  const guint32 *mb = p->view->color_by_microbatch ? pp : NULL;
  guint n = dr->n;

  while (i < n)
    {
      gint64 b, en;
      double xb, xe;
      guint key;
      WeftCachedBox bx;

      if (old != NULL && i > cmax)
        {
          while (q <= n_old && (q == 0 ? old_first : old[q - 1].next) < i)
            q++;
          if (q <= n_old && (q == 0 ? old_first : old[q - 1].next) == i)
            {
              if (q < n_old)
                g_array_append_vals (out, old + q, n_old - q);
              return;
            }
        }
      mr = MAX (mr, i);
      row_times (rt, dr, i, &b, &en);
      if (b >= p->t1)
        break;
      (*visited)++;
      key = row_key (rt, dr, i);
      if (key == WEFT_KEY_DELETED)
        {
          i++;
          continue;
        }
      key = mb_key (mb, dr, i, key);
      xb = (double) (b - p->t0) * p->scale;
      xe = (double) (en - p->t0) * p->scale;

      if (xe - xb >= min_box)
        {
          double cx0 = clamp_x (p, xb), cx1 = clamp_x (p, xe);
          bx.x = cx0;
          bx.w = cx1 - cx0 - (xe - xb >= 6.0 ? 1.0 : 0.0);
          bx.x1 = cx1;
          bx.start = i;
          bx.next = i + 1;
          bx.maxread = mr;
          bx.count = 0;
          bx.key = (guint8) key;
          g_array_append_val (out, bx);
          i++;
          continue;
        }

      /* Fold a run of narrow events into one box: every event starting
       * within min_box px of the run's current event joins it, found by a
       * galloping search, so each step costs O(log n) and advances >= min_box px. */
      {
        double run_b = xb, run_e = MAX (xe, xb + 1.0), cur = xb;
        guint count = 0, j = i, k;
        for (;;)
          {
            gint64 tl = p->t0 + (gint64) ceil ((cur + min_box) / p->scale);
            gint64 lb, le;
            guint m;
            k = first_start_at (rt, dr, j + 1, tl, &m);
            mr = MAX (mr, m);
            /* the last one may be a wide event: it gets its own box */
            if (k - 1 > j)
              {
                row_times (rt, dr, k - 1, &lb, &le);
                if ((double) (le - lb) * p->scale >= min_box)
                  k--;
              }
            row_times (rt, dr, k - 1, &lb, &le);
            run_e = MAX (run_e, (double) (le - p->t0) * p->scale);
            count += k - j;
            if (k >= n)
              break;
            mr = MAX (mr, k);
            row_times (rt, dr, k, &lb, &le);
            (*visited)++;
            {
              double nb = (double) (lb - p->t0) * p->scale, ne = (double) (le - p->t0) * p->scale;
              /* a new colour starts a new box: a run keeps one colour, so
               * a dense stretch reads as a texture of what it holds (each
               * box still covers >= min_box px, so the cost stays bounded) */
              if (lb >= p->t1 || ne - nb >= min_box || nb > run_e + 1.0 || mb_key (mb, dr, k, row_key (rt, dr, k)) != key)
                break;
              cur = nb;
              run_e = MAX (run_e, ne);
              j = k;
            }
          }
        {
          double cx0 = clamp_x (p, run_b), cx1 = clamp_x (p, MAX (run_e, run_b + 1.0));
          bx.x = cx0;
          bx.w = MAX (cx1 - cx0, 1.0);
          bx.x1 = cx1;
        }
        bx.start = i;
        bx.next = k;
        bx.maxread = mr;
        bx.count = MAX (count, 1);
        bx.key = (guint8) key;
        g_array_append_val (out, bx);
        i = k;
      }
    }
}

guint
weft_fold_first_start_at (const WeftRankTimes *rt, const WeftDepthRow *dr, guint lo, gint64 t, guint *maxr)
{
  return first_start_at (rt, dr, lo, t, maxr);
}

/* ---- a frame's folds: jobs (paint.c queues them, pool.c shares them) ---------------------- */

void
weft_fold_job_run (WeftFoldJob *j)
{
  fold_row (j->fv, &j->rt, &j->dr, j->i, j->mr, j->out, j->old, j->n_old, j->q, j->old_first, j->cmax, &j->visited);
}

gboolean
weft_fold_job_reads_arrays (const WeftFoldJob *j)
{
  return j->dr.sstart != NULL || j->rt.times == NULL || j->rt.times->func == NULL;
}
