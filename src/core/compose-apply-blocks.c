/* compose-apply-blocks.c: the transformer blocks of a real profile
 * (weft_apply_find_blocks, weft_apply_find_blocks_by): from layer
 * annotations, FSDP units or the compute lane's repeated kernel pattern,
 * and their phases. The method: compose-apply.c's header, step 1. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "weft/weft-apply.h"
#include "weft/weft-load.h"

/* ---- blocks ------------------------------------------------------------------------ */

#define PATTERN_MAX_OPS 16384
#define PATTERN_MAX_PERIOD 4096

void
weft_blocks_free (WeftBlocks *blocks)
{
  if (blocks == NULL)
    return;
  if (blocks->blocks != NULL)
    g_array_free (blocks->blocks, TRUE);
  g_free (blocks);
}

typedef struct
{
  WeftRank *rank;
  GArray   *ops;       /* guint32 events of the compute lane (live, not comm), stream (time) order */
  GArray   *launch;    /* gint64 launch time per op (the op's own start without a launch) */
} LaneOps;

static guint32
find_compute_lane (WeftRank *rank)
{
  guint32 best = WEFT_NONE;
  gint64 best_t = 0;
  for (guint l = 0; l < rank->lanes->len; l++)
    {
      WeftLane *lane = weft_rank_lane (rank, l);
      gint64 t = 0;
      if (lane->kind != WEFT_LANE_GPU || lane->role == WEFT_LANE_ROLE_SYNC)
        continue;
      for (guint i = 0; i < lane->events->len; i++)
        {
          WeftEvent *ev = weft_rank_event (rank, g_array_index (lane->events, guint32, i));
          if ((ev->flags & WEFT_EVENT_GPU_OP) && !(ev->flags & WEFT_EVENT_DELETED) && ev->kclass != WEFT_KCLASS_COMM)
            t += weft_event_dur (rank, ev);
        }
      if (t > best_t)
        {
          best_t = t;
          best = l;
        }
    }
  return best;
}

static void
lane_ops_init (LaneOps *lo, WeftRank *rank, guint32 lane)
{
  WeftLane *l = weft_rank_lane (rank, lane);
  lo->rank = rank;
  lo->ops = g_array_new (FALSE, FALSE, sizeof (guint32));
  lo->launch = g_array_new (FALSE, FALSE, sizeof (gint64));
  for (guint i = 0; i < l->events->len; i++)
    {
      guint32 e = g_array_index (l->events, guint32, i);
      WeftEvent *ev = weft_rank_event (rank, e);
      gint64 t;
      /* the profile's own ops: not ones an edit (an earlier Apply) created */
      if (!(ev->flags & WEFT_EVENT_GPU_OP) || (ev->flags & (WEFT_EVENT_DELETED | WEFT_EVENT_CREATED)) ||
          ev->kclass == WEFT_KCLASS_COMM)
        continue;
      t = weft_event_link (ev) != WEFT_NONE && weft_event_link (ev) < rank->events->len ? weft_rank_event (rank, weft_event_link (ev))->ts : ev->ts;
      g_array_append_val (lo->ops, e);
      g_array_append_val (lo->launch, t);
    }
}

static void
lane_ops_clear (LaneOps *lo)
{
  g_array_free (lo->ops, TRUE);
  g_array_free (lo->launch, TRUE);
}

static guint32
op_at (const LaneOps *lo, guint i)
{
  return g_array_index (lo->ops, guint32, i);
}

/* Ops whose launch lies in [b, e): first and last index; FALSE if none. */
static gboolean
ops_in_span (const LaneOps *lo, gint64 b, gint64 e, guint *first, guint *last)
{
  gboolean any = FALSE;
  for (guint i = 0; i < lo->ops->len; i++)
    {
      gint64 t = g_array_index (lo->launch, gint64, i);
      if (t >= b && t < e)
        {
          if (!any)
            *first = i;
          *last = i;
          any = TRUE;
        }
    }
  return any;
}

static void
add_block (WeftBlocks *bl, const LaneOps *lo, WeftBlockPhase phase, guint first, guint last)
{
  WeftBlock b = { 0 };
  b.phase = phase;
  b.first = op_at (lo, first);
  b.last = op_at (lo, last);
  b.n_ops = last - first + 1;
  b.begin = weft_rank_event (lo->rank, b.first)->ts;
  b.end = weft_event_end (lo->rank, weft_rank_event (lo->rank, b.last));
  g_array_append_val (bl->blocks, b);
}

static char *
normalize_name (const char *name)
{
  GString *s = g_string_new (NULL);
  for (const char *p = name; *p; p++)
    {
      if (g_ascii_isdigit (*p))
        {
          while (g_ascii_isdigit (p[1]))
            p++;
          g_string_append_c (s, '#');
        }
      else
        g_string_append_c (s, *p);
    }
  return g_string_free (s, FALSE);
}

static gboolean
contains_ci (const char *hay, const char *needle)
{
  g_autofree char *h = g_ascii_strdown (hay, -1);
  return strstr (h, needle) != NULL;
}

static gboolean
is_backward_name (const char *name)
{
  return contains_ci (name, "backward") || contains_ci (name, "bwd");
}

typedef struct
{
  char    *key;
  GArray  *spans;   /* guint32 events */
  guint64  cover;   /* compute-lane ops inside the spans */
} SpanGroup;

static void
span_group_free (gpointer p)
{
  SpanGroup *g = p;
  g_free (g->key);
  g_array_free (g->spans, TRUE);
  g_free (g);
}

static int
cmp_block (gconstpointer a, gconstpointer b)
{
  const WeftBlock *x = a, *y = b;
  if (x->phase != y->phase)
    return x->phase < y->phase ? -1 : 1;
  return x->begin < y->begin ? -1 : x->begin > y->begin;
}

/* (a) layer annotations. */
static gboolean
blocks_from_modules (WeftBlocks *bl, const LaneOps *lo)
{
  WeftRank *rank = lo->rank;
  g_autoptr (GHashTable) groups = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, span_group_free);
  SpanGroup *best[2] = { NULL, NULL };
  GHashTableIter it;
  gpointer v;

  for (guint i = 0; i < rank->events->len; i++)
    {
      WeftEvent *ev = weft_rank_event (rank, i);
      const char *name;
      g_autofree char *key = NULL;
      SpanGroup *g;
      if (ev->ph != WEFT_PH_X || weft_event_dur (rank, ev) <= 0 || (ev->flags & WEFT_EVENT_DELETED) ||
          (ev->category != WEFT_CAT_PYTHON_FUNCTION && ev->category != WEFT_CAT_USER_ANNOTATION &&
           ev->category != WEFT_CAT_CPU_OP))
        continue;
      name = weft_rank_string (rank, ev->name);
      if (strchr (name, '#') != NULL || g_str_has_prefix (name, "FSDP::") || g_str_has_prefix (name, "ProfilerStep"))
        continue;
      key = normalize_name (name);
      if (strchr (key, '#') == NULL ||
          !(contains_ci (key, "block") || contains_ci (key, "layer") || contains_ci (key, "decoder") ||
            contains_ci (key, "encoder")))
        continue;
      g = g_hash_table_lookup (groups, key);
      if (g == NULL)
        {
          g = g_new0 (SpanGroup, 1);
          g->key = g_steal_pointer (&key);
          g->spans = g_array_new (FALSE, FALSE, sizeof (guint32));
          g_hash_table_insert (groups, g->key, g);
        }
      g_array_append_val (g->spans, i);
    }
  g_hash_table_iter_init (&it, groups);
  while (g_hash_table_iter_next (&it, NULL, &v))
    {
      SpanGroup *g = v;
      int ph = is_backward_name (g->key) ? 1 : 0;
      guint n = 0, f = 0, l = 0;
      guint64 cover = 0;
      for (guint k = 0; k < g->spans->len; k++)
        {
          WeftEvent *ev = weft_rank_event (rank, g_array_index (g->spans, guint32, k));
          if (ops_in_span (lo, ev->ts, weft_event_end (rank, ev), &f, &l))
            {
              n++;
              cover += l - f + 1;
            }
        }
      g->cover = cover;
      if (n < 1)
        continue;
      /* the outermost module: the most ops covered (a block covers its
       * sub-modules: "layers.#" beats "layers.#.feed_forward.w#"), then
       * the most spans, then the shorter name */
      if (best[ph] == NULL || g->cover > best[ph]->cover ||
          (g->cover == best[ph]->cover &&
           (g->spans->len > best[ph]->spans->len ||
            (g->spans->len == best[ph]->spans->len &&
             (strlen (g->key) < strlen (best[ph]->key) ||
              (strlen (g->key) == strlen (best[ph]->key) && strcmp (g->key, best[ph]->key) < 0))))))
        best[ph] = g;
    }
  if (best[0] == NULL)
    return FALSE;
  for (int ph = 0; ph < 2; ph++)
    if (best[ph] != NULL)
      for (guint k = 0; k < best[ph]->spans->len; k++)
        {
          WeftEvent *ev = weft_rank_event (rank, g_array_index (best[ph]->spans, guint32, k));
          guint f = 0, l = 0;
          if (ops_in_span (lo, ev->ts, weft_event_end (rank, ev), &f, &l))
            add_block (bl, lo, ph ? WEFT_BLOCK_BACKWARD : WEFT_BLOCK_FORWARD, f, l);
        }
  bl->source = WEFT_BLOCKS_MODULE;
  return TRUE;
}

typedef struct
{
  guint    first, last;
  guint    heavy;    /* GEMM + attention kernels */
  gboolean like;
  char    *sig;
} Unit;

/* (b) FSDP units: begin name .. the next end name (prefix) on the same thread. */
static void
fsdp_units (const LaneOps *lo, const char *begin_name, const char *end_prefix, GArray *units)
{
  WeftRank *rank = lo->rank;
  for (guint i = 0; i < rank->events->len; i++)
    {
      WeftEvent *ev = weft_rank_event (rank, i);
      gint64 end = -1;
      guint f = 0, l = 0;
      if (ev->ph != WEFT_PH_X || (ev->flags & WEFT_EVENT_DELETED) ||
          strcmp (weft_rank_string (rank, ev->name), begin_name) != 0)
        continue;
      for (guint j = i + 1; j < rank->events->len; j++)
        {
          WeftEvent *e2 = weft_rank_event (rank, j);
          if (e2->ph == WEFT_PH_X && e2->lane == ev->lane && e2->ts >= ev->ts &&
              g_str_has_prefix (weft_rank_string (rank, e2->name), end_prefix))
            {
              end = MAX (end, weft_event_end (rank, e2));
              /* nested post_backward / post_backward_reduce: take both */
              if (j + 1 < rank->events->len)
                {
                  WeftEvent *e3 = weft_rank_event (rank, j + 1);
                  if (e3->ph == WEFT_PH_X && e3->lane == ev->lane &&
                      g_str_has_prefix (weft_rank_string (rank, e3->name), end_prefix))
                    end = MAX (end, weft_event_end (rank, e3));
                }
              break;
            }
          if (e2->ph == WEFT_PH_X && e2->lane == ev->lane && strcmp (weft_rank_string (rank, e2->name), begin_name) == 0)
            break;
        }
      if (end > ev->ts && ops_in_span (lo, ev->ts, end, &f, &l))
        {
          GString *sig = g_string_new (NULL);
          Unit u;
          memset (&u, 0, sizeof u);
          for (guint k = f; k <= l; k++)
            {
              WeftEvent *ke = weft_rank_event (rank, op_at (lo, k));
              g_string_append_printf (sig, "%u,", ke->name);
              u.heavy += ke->kclass == WEFT_KCLASS_GEMM || ke->kclass == WEFT_KCLASS_ATTENTION;
            }
          u.first = f;
          u.last = l;
          u.sig = g_string_free (sig, FALSE);
          g_array_append_val (units, u);
        }
    }
}

static guint
units_to_blocks (WeftBlocks *bl, const LaneOps *lo, GArray *units, WeftBlockPhase phase)
{
  const char *mode = NULL;
  guint mode_n = 0, n = 0;
  for (guint i = 0; i < units->len; i++)
    {
      Unit *u = &g_array_index (units, Unit, i);
      guint c = 0;
      for (guint j = 0; j < units->len; j++)
        c += strcmp (u->sig, g_array_index (units, Unit, j).sig) == 0;
      if (c > mode_n)
        {
          mode_n = c;
          mode = u->sig;
        }
    }
  if (mode_n < 2)
    return 0;
  {
    /* units like the mode: the same number of GEMM / attention kernels and
     * about as many ops (the first or last block may carry a prefetch
     * copy more or less) */
    guint mode_len = 0, mode_heavy = 0;
    for (guint i = 0; i < units->len; i++)
      if (g_array_index (units, Unit, i).sig == mode)
        {
          mode_len = g_array_index (units, Unit, i).last - g_array_index (units, Unit, i).first + 1;
          mode_heavy = g_array_index (units, Unit, i).heavy;
        }
    for (guint i = 0; i < units->len; i++)
      {
        Unit *u = &g_array_index (units, Unit, i);
        guint len = u->last - u->first + 1;
        guint tol = MAX (2, mode_len / 10);
        u->like = strcmp (u->sig, mode) == 0 ||
                  (u->heavy == mode_heavy && len + tol >= mode_len && len <= mode_len + tol);
      }
  }
  for (guint i = 0; i < units->len; i++)
    {
      Unit *u = &g_array_index (units, Unit, i);
      if (u->like)
        {
          add_block (bl, lo, phase, u->first, u->last);
          n++;
        }
    }
  return n;
}

static void
units_free (GArray *units)
{
  for (guint i = 0; i < units->len; i++)
    g_free (g_array_index (units, Unit, i).sig);
  g_array_free (units, TRUE);
}

static gboolean
blocks_from_fsdp (WeftBlocks *bl, const LaneOps *lo)
{
  GArray *fw = g_array_new (FALSE, FALSE, sizeof (Unit));
  GArray *bw = g_array_new (FALSE, FALSE, sizeof (Unit));
  gboolean ok;
  fsdp_units (lo, "FSDP::pre_forward", "FSDP::post_forward", fw);
  fsdp_units (lo, "FSDP::pre_backward", "FSDP::post_backward", bw);
  ok = units_to_blocks (bl, lo, fw, WEFT_BLOCK_FORWARD) > 0;
  if (ok)
    {
      units_to_blocks (bl, lo, bw, WEFT_BLOCK_BACKWARD);
      bl->source = WEFT_BLOCKS_FSDP;
    }
  else
    g_array_set_size (bl->blocks, 0);
  units_free (fw);
  units_free (bw);
  return ok;
}

typedef struct
{
  guint start, period, count;
} Region;

/* (c) the best repeated region of s[lo..hi). */
static gboolean
find_period (const guint32 *s, const guint8 *heavy, guint lo, guint hi, Region *out)
{
  guint n = hi > lo ? hi - lo : 0;
  guint max_p = MIN (n / 2, PATTERN_MAX_PERIOD);
  guint64 best_cov = 0;
  g_autofree Region *per = NULL;
  if (n < 4)
    return FALSE;
  per = g_new0 (Region, max_p + 1);
  for (guint p = 2; p <= max_p; p++)
    {
      guint run = 0, best_run = 0, best_start = 0;
      for (guint i = lo; i + p < hi; i++)
        {
          if (s[i] == s[i + p])
            {
              if (++run > best_run)
                {
                  best_run = run;
                  best_start = i + 1 - run;
                }
            }
          else
            run = 0;
        }
      {
        guint k = (best_run + p) / p;
        gboolean has_heavy = FALSE;
        for (guint i = best_start; i < best_start + p && i < hi; i++)
          has_heavy |= heavy[i];
        if (k >= 2 && has_heavy)
          {
            per[p].start = best_start;
            per[p].period = p;
            per[p].count = k;
            best_cov = MAX (best_cov, (guint64) k * p);
          }
      }
    }
  if (best_cov == 0)
    return FALSE;
  for (guint p = 2; p <= max_p; p++)
    if (per[p].count >= 2 && (guint64) per[p].count * p * 100 >= best_cov * 95)
      {
        *out = per[p];
        return TRUE;
      }
  return FALSE;
}

static gboolean
blocks_from_pattern (WeftBlocks *bl, const LaneOps *lo, guint from, WeftBlockPhase only_phase, gboolean single)
{
  guint n = MIN (lo->ops->len, PATTERN_MAX_OPS);
  g_autofree guint32 *s = g_new0 (guint32, MAX (n, 1));
  g_autofree guint8 *heavy = g_new0 (guint8, MAX (n, 1));
  Region a, b;
  gboolean have_b = FALSE;
  for (guint i = 0; i < n; i++)
    {
      WeftEvent *ev = weft_rank_event (lo->rank, op_at (lo, i));
      s[i] = ev->name;
      heavy[i] = ev->kclass == WEFT_KCLASS_GEMM || ev->kclass == WEFT_KCLASS_ATTENTION;
    }
  if (!find_period (s, heavy, from, n, &a))
    return FALSE;
  if (!single)
    {
      Region r1, r2;
      gboolean h1 = find_period (s, heavy, from, a.start, &r1);
      gboolean h2 = find_period (s, heavy, a.start + a.period * a.count, n, &r2);
      if (h1 && (!h2 || r1.count * r1.period >= r2.count * r2.period))
        {
          b = a;
          a = r1;
          have_b = TRUE;
        }
      else if (h2)
        {
          b = r2;
          have_b = TRUE;
        }
    }
  for (guint k = 0; k < a.count; k++)
    add_block (bl, lo, only_phase, a.start + k * a.period, a.start + (k + 1) * a.period - 1);
  if (have_b)
    for (guint k = 0; k < b.count; k++)
      add_block (bl, lo, WEFT_BLOCK_BACKWARD, b.start + k * b.period, b.start + (k + 1) * b.period - 1);
  if (bl->period == 0)
    bl->period = a.period;
  return TRUE;
}

static guint
op_index_of (const LaneOps *lo, guint32 ev)
{
  for (guint i = 0; i < lo->ops->len; i++)
    if (op_at (lo, i) == ev)
      return i;
  return 0;
}

WeftBlocks *
weft_apply_find_blocks (WeftTrace *trace, guint rank_index, GError **error)
{
  return weft_apply_find_blocks_by (trace, rank_index, WEFT_BLOCKS_NONE, error);
}

/* Evidence that ops run in backward: CPU spans naming it ("## backward ##",
 * "autograd::engine::evaluate_function: ...", "...Backward...") as a
 * merged, sorted list of intervals; kernel names with "bwd" / "backward". */
static gint
cmp_span (gconstpointer a, gconstpointer b)
{
  const WeftTimeSpan *x = a, *y = b;
  return (x->begin > y->begin) - (x->begin < y->begin);
}

static GArray *
backward_intervals (WeftRank *rank)
{
  GArray *iv = g_array_new (FALSE, FALSE, sizeof (WeftTimeSpan));
  GArray *out = g_array_new (FALSE, FALSE, sizeof (WeftTimeSpan));
  for (guint i = 0; i < rank->events->len; i++)
    {
      WeftEvent *ev = weft_rank_event (rank, i);
      WeftTimeSpan sp;
      if (ev->ph != WEFT_PH_X || weft_event_dur (rank, ev) <= 0 || (ev->flags & WEFT_EVENT_DELETED) ||
          (ev->category != WEFT_CAT_PYTHON_FUNCTION && ev->category != WEFT_CAT_USER_ANNOTATION &&
           ev->category != WEFT_CAT_CPU_OP) ||
          !contains_ci (weft_rank_string (rank, ev->name), "backward"))
        continue;
      sp.begin = ev->ts;
      sp.end = weft_event_end (rank, ev);
      g_array_append_val (iv, sp);
    }
  g_array_sort (iv, cmp_span);
  for (guint i = 0; i < iv->len; i++)
    {
      WeftTimeSpan sp = g_array_index (iv, WeftTimeSpan, i);
      if (out->len > 0 && sp.begin <= g_array_index (out, WeftTimeSpan, out->len - 1).end)
        {
          WeftTimeSpan *last = &g_array_index (out, WeftTimeSpan, out->len - 1);
          last->end = MAX (last->end, sp.end);
        }
      else
        g_array_append_val (out, sp);
    }
  g_array_free (iv, TRUE);
  return out;
}

static gboolean
in_intervals (GArray *iv, gint64 t)
{
  guint lo = 0, hi = iv->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (g_array_index (iv, WeftTimeSpan, mid).end <= t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < iv->len && g_array_index (iv, WeftTimeSpan, lo).begin <= t;
}

/* Share of the block's ops that run in backward: launched inside backward
 * spans or named as backward kernels (in percent). */
static guint
block_backward_pct (const LaneOps *lo, GArray *iv, const WeftBlock *b)
{
  guint first = op_index_of (lo, b->first), last = op_index_of (lo, b->last);
  guint in = 0, n = 0;
  for (guint i = first; i <= last && i < lo->ops->len; i++)
    {
      WeftEvent *ev = weft_rank_event (lo->rank, op_at (lo, i));
      in += is_backward_name (weft_rank_string (lo->rank, ev->name)) ||
            in_intervals (iv, g_array_index (lo->launch, gint64, i));
      n++;
    }
  return n > 0 ? in * 100 / n : 0;
}

WeftBlocks *
weft_apply_find_blocks_by (WeftTrace *trace, guint rank_index, WeftBlockSource method, GError **error)
{
  g_autoptr (WeftBlocks) bl = NULL;
  WeftRank *rank;
  LaneOps lo;
  guint32 lane;
  gboolean found;

  if (trace == NULL || rank_index >= trace->ranks->len)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "find blocks: no rank index %u", rank_index);
      return NULL;
    }
  rank = weft_trace_rank (trace, rank_index);
  lane = find_compute_lane (rank);
  if (lane == WEFT_NONE)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "%s: rank %d has no GPU compute stream", rank->path,
                   rank->rank);
      return NULL;
    }
  bl = g_new0 (WeftBlocks, 1);
  bl->rank_index = rank_index;
  bl->lane = lane;
  bl->blocks = g_array_new (FALSE, TRUE, sizeof (WeftBlock));
  lane_ops_init (&lo, rank, lane);
  found = ((method == WEFT_BLOCKS_NONE || method == WEFT_BLOCKS_MODULE) && blocks_from_modules (bl, &lo)) ||
          ((method == WEFT_BLOCKS_NONE || method == WEFT_BLOCKS_FSDP) && blocks_from_fsdp (bl, &lo)) ||
          ((method == WEFT_BLOCKS_NONE || method == WEFT_BLOCKS_PATTERN) &&
           blocks_from_pattern (bl, &lo, 0, WEFT_BLOCK_FORWARD, FALSE));
  if (found && bl->source == WEFT_BLOCKS_NONE)
    bl->source = WEFT_BLOCKS_PATTERN;
  if (found)
    {
      guint nb = 0, last_fw = 0;
      for (guint i = 0; i < bl->blocks->len; i++)
        {
          WeftBlock *b = &g_array_index (bl->blocks, WeftBlock, i);
          if (b->phase == WEFT_BLOCK_BACKWARD)
            nb++;
          else
            last_fw = MAX (last_fw, op_index_of (&lo, b->last));
        }
      if (nb == 0 && bl->source != WEFT_BLOCKS_PATTERN)
        {
          /* annotations gave the forward only (autograd runs without
           * module names): look for the repeated backward after it */
          guint before = bl->blocks->len;
          if (blocks_from_pattern (bl, &lo, last_fw + 1, WEFT_BLOCK_BACKWARD, TRUE))
            {
              guint n_new = bl->blocks->len - before;
              if (n_new != before)
                g_array_set_size (bl->blocks, before);
            }
        }
    }
  if (found && bl->source == WEFT_BLOCKS_PATTERN)
    {
      /* the order of the repeated regions is a guess: where the profile
       * says which ops run in backward (backward spans, backward kernel
       * names), that decides */
      g_autoptr (GArray) iv = backward_intervals (rank);
      g_autofree guint *pct = g_new0 (guint, MAX (bl->blocks->len, 1));
      gboolean clear = TRUE, any_bw = FALSE;
      for (guint i = 0; i < bl->blocks->len; i++)
        {
          pct[i] = block_backward_pct (&lo, iv, &g_array_index (bl->blocks, WeftBlock, i));
          /* a block that mixes both (a whole iteration) says nothing */
          clear = clear && (pct[i] >= 80 || pct[i] <= 20);
          any_bw = any_bw || pct[i] >= 80;
        }
      if (clear && any_bw)
        for (guint i = 0; i < bl->blocks->len; i++)
          g_array_index (bl->blocks, WeftBlock, i).phase = pct[i] >= 80 ? WEFT_BLOCK_BACKWARD : WEFT_BLOCK_FORWARD;
    }
  lane_ops_clear (&lo);
  if (!found || bl->blocks->len == 0)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
                   "%s: rank %d: no blocks found (no layer or FSDP annotations and no repeated kernel sequence on the compute stream)",
                   rank->path, rank->rank);
      return NULL;
    }
  g_array_sort (bl->blocks, cmp_block);
  for (guint i = 0; i < bl->blocks->len; i++)
    {
      WeftBlock *b = &g_array_index (bl->blocks, WeftBlock, i);
      if (b->phase == WEFT_BLOCK_FORWARD)
        b->index = bl->n_forward++;
      else
        b->index = bl->n_backward++;
    }
  bl->phases_known = bl->n_backward > 0;
  return g_steal_pointer (&bl);
}
