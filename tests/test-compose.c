/* test-compose.c: composed traces through the real loader, classifier,
 * matcher and solver; each strategy's facts (docs/composer.md). */
#include "config.h"

#include <math.h>
#include <string.h>
#include <sys/wait.h>

#include <gio/gio.h>

#include "testutil.h"
#include "weft/weft.h"
#include "weft/weft-apply.h"
#include "weft/weft-compose.h"
#include "weft/weft-solver.h"

/* ---- helpers ----------------------------------------------------------------- */

static WeftTrace *
compose_trace (const WeftComposeParams *p)
{
  g_autoptr (GError) error = NULL;
  WeftTrace *trace = weft_compose_trace (p, &error);

  g_assert_no_error (error);
  g_assert_nonnull (trace);
  g_assert_cmpuint (trace->ranks->len, ==, (guint) weft_compose_world_size (p));
  return trace;
}

static void
params (WeftComposeParams *p, const char *strategies, int dp, int tp, int cp, int ep, int layers)
{
  g_autoptr (GError) error = NULL;

  weft_compose_params_init (p);
  g_assert_true (weft_compose_parse_strategies (strategies, &p->strategies, &error));
  g_assert_no_error (error);
  p->dp = dp;
  p->tp = tp;
  p->cp = cp;
  p->ep = ep;
  p->model.layers = layers;
}

static const char *
ev_name (WeftRank *rank, WeftEvent *ev)
{
  return weft_rank_string (rank, ev->name);
}

static WeftLane *
gpu_lane (WeftRank *rank, gint64 stream)
{
  for (guint i = 0; i < rank->lanes->len; i++)
    {
      WeftLane *l = weft_rank_lane (rank, i);
      if (l->kind == WEFT_LANE_GPU && l->tid == stream)
        return l;
    }
  return NULL;
}

/* Time [a, b) shares with the kernels of the compute stream (7) whose
 * launch lies in [from, to) (CPU time); from = to = -1: any kernel. */
static gint64
compute_overlap (WeftRank *rank, gint64 a, gint64 b, gint64 from, gint64 to)
{
  WeftLane *l = gpu_lane (rank, 7);
  gint64 sum = 0;

  g_assert_nonnull (l);
  for (guint j = 0; j < l->events->len; j++)
    {
      WeftEvent *ev = weft_rank_event (rank, g_array_index (l->events, guint32, j));
      gint64 s, e;

      if (!(ev->flags & WEFT_EVENT_GPU_OP) || ev->kclass == WEFT_KCLASS_COMM)
        continue;
      if (from >= 0)
        {
          WeftEvent *launch;
          g_assert_cmpuint (weft_event_link (ev), !=, WEFT_NONE);
          launch = weft_rank_event (rank, weft_event_link (ev));
          if (launch->ts < from || launch->ts >= to)
            continue;
        }
      s = MAX (a, ev->ts);
      e = MIN (b, weft_event_end (rank, ev));
      if (e > s)
        sum += e - s;
    }
  return sum;
}

/* CPU span of the first X event with that exact name on the CPU lane. */
static gboolean
cpu_span (WeftRank *rank, const char *name, WeftTimeSpan *span)
{
  for (guint i = 0; i < rank->events->len; i++)
    {
      WeftEvent *ev = weft_rank_event (rank, i);
      if (ev->ph == WEFT_PH_X && g_str_equal (ev_name (rank, ev), name))
        {
          span->begin = ev->ts;
          span->end = weft_event_end (rank, ev);
          return TRUE;
        }
    }
  span->begin = span->end = 0;
  return FALSE;
}

/* Collectives of the rank whose kernel launch lies in span, counted by
 * "Collective name" (NULL: all). */
static guint
count_collectives (WeftRank *rank, WeftTimeSpan span, const char *coll_name)
{
  guint n = 0;

  for (guint i = 0; i < rank->collectives->len; i++)
    {
      WeftCollective *c = &g_array_index (rank->collectives, WeftCollective, i);
      WeftEvent *k = weft_rank_event (rank, c->event);
      WeftEvent *launch;

      g_assert_cmpuint (weft_event_link (k), !=, WEFT_NONE);
      launch = weft_rank_event (rank, weft_event_link (k));
      if (!weft_time_span_contains (span, launch->ts))
        continue;
      if (coll_name == NULL || (c->coll_name != 0 && g_str_equal (weft_rank_string (rank, c->coll_name), coll_name)))
        n++;
    }
  return n;
}

static guint
count_named_in_span (WeftRank *rank, WeftTimeSpan span, WeftCategory cat, const char *prefix)
{
  guint n = 0;

  for (guint i = 0; i < rank->events->len; i++)
    {
      WeftEvent *ev = weft_rank_event (rank, i);
      WeftTimeSpan s = span;
      if (ev->ph != WEFT_PH_X || ev->category != cat || !g_str_has_prefix (ev_name (rank, ev), prefix))
        continue;
      if (ev->flags & WEFT_EVENT_GPU_OP)
        {
          if (weft_event_link (ev) == WEFT_NONE)
            continue;
          if (weft_time_span_contains (s, weft_rank_event (rank, weft_event_link (ev))->ts))
            n++;
        }
      else if (weft_time_span_contains (s, ev->ts))
        n++;
    }
  return n;
}

/* ---- loader checks ----------------------------------------------------------- */

/* "<int>.<3 digits>" (or an integer) into ns, independently of the loader. */
static gint64
parse_us_text (const char *t)
{
  gint64 us = 0, frac = 0;
  int nd = 0;
  gboolean neg = FALSE;

  if (*t == '-')
    {
      neg = TRUE;
      t++;
    }
  for (; *t >= '0' && *t <= '9'; t++)
    us = us * 10 + (*t - '0');
  if (*t == '.')
    for (t++; *t >= '0' && *t <= '9' && nd < 3; t++, nd++)
      frac = frac * 10 + (*t - '0');
  for (; nd < 3; nd++)
    frac *= 10;
  return (neg ? -1 : 1) * (us * 1000 + frac);
}

static void
check_loader (const WeftComposeParams *p, guint expect_instances)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) texts = weft_compose_json (p, &error);
  g_autoptr (WeftTrace) trace = NULL;
  guint n_coll = 0;

  g_assert_no_error (error);
  trace = compose_trace (p);
  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);
      gsize len;
      const char *data = g_bytes_get_data (g_ptr_array_index (texts, r), &len);
      json_object *root = json_tokener_parse (data);
      json_object *evs;
      guint counts[WEFT_PH_N_PHASES] = { 0 };
      guint loaded[WEFT_PH_N_PHASES] = { 0 };
      json_object *v;

      g_assert_nonnull (root);
      g_assert_cmpint (rank->rank, ==, (int) r);
      g_assert_cmpint (rank->world_size, ==, weft_compose_world_size (p));
      g_assert_true (rank->has_base);
      g_assert_cmpint (rank->ts_style, ==, WEFT_TS_RELATIVE);
      g_assert_true (json_object_object_get_ex (root, "baseTimeNanoseconds", &v));
      g_assert_cmpint (rank->base_ns, ==, json_object_get_int64 (v));
      g_assert_true (json_object_object_get_ex (root, "traceEvents", &evs));
      g_assert_cmpuint (rank->events->len, ==, json_object_array_length (evs));
      g_assert_cmpuint (rank->steps->len, ==, (guint) p->steps);
      for (guint i = 0; i < rank->events->len; i++)
        {
          WeftEvent *ev = weft_rank_event (rank, i);
          json_object *jo = json_object_array_get_idx (evs, i);
          json_object *ph, *ts, *dur;
          const char *phs;

          g_assert_true (json_object_object_get_ex (jo, "ph", &ph));
          phs = json_object_get_string (ph);
          counts[phs[0] == 'X' ? WEFT_PH_X : phs[0] == 's' ? WEFT_PH_S : phs[0] == 'f' ? WEFT_PH_F
                 : phs[0] == 'M' ? WEFT_PH_M : phs[0] == 'i' ? WEFT_PH_I : WEFT_PH_OTHER]++;
          loaded[ev->ph]++;
          /* ts / dur: the file's decimal text, exactly (no double) */
          if (json_object_object_get_ex (jo, "ts", &ts))
            g_assert_cmpint (ev->ts - rank->base_ns, ==, parse_us_text (json_object_get_string (ts)));
          if (json_object_object_get_ex (jo, "dur", &dur))
            g_assert_cmpint (weft_event_dur (rank, ev), ==, parse_us_text (json_object_get_string (dur)));
        }
      for (int ph = 0; ph < WEFT_PH_N_PHASES; ph++)
        g_assert_cmpuint (counts[ph], ==, loaded[ph]);
      /* no two X slices of one GPU stream overlap */
      for (guint li = 0; li < rank->lanes->len; li++)
        {
          WeftLane *l = weft_rank_lane (rank, li);
          gint64 prev = G_MININT64;
          if (l->kind != WEFT_LANE_GPU)
            continue;
          for (guint j = 0; j < l->events->len; j++)
            {
              WeftEvent *ev = weft_rank_event (rank, g_array_index (l->events, guint32, j));
              if (!(ev->flags & WEFT_EVENT_GPU_OP))
                continue;
              g_assert_cmpint (ev->ts, >=, prev);
              prev = weft_event_end (rank, ev);
            }
        }
      /* CPU slices nest properly (Perfetto drops partial overlaps) */
      for (guint li = 0; li < rank->lanes->len; li++)
        {
          WeftLane *l = weft_rank_lane (rank, li);
          gint64 stack[128];
          guint depth = 0;
          if (l->kind != WEFT_LANE_CPU)
            continue;
          for (guint j = 0; j < l->events->len; j++)
            {
              WeftEvent *ev = weft_rank_event (rank, g_array_index (l->events, guint32, j));
              if (ev->ph != WEFT_PH_X)
                continue;
              while (depth > 0 && ev->ts >= stack[depth - 1])
                depth--;
              if (depth > 0)
                g_assert_cmpint (weft_event_end (rank, ev), <=, stack[depth - 1]);
              g_assert_cmpuint (depth, <, G_N_ELEMENTS (stack));
              stack[depth++] = weft_event_end (rank, ev);
            }
        }
      /* every collective found from its args and matched */
      for (guint i = 0; i < rank->collectives->len; i++)
        {
          WeftCollective *c = &g_array_index (rank->collectives, WeftCollective, i);
          g_assert_cmpint (c->source, ==, WEFT_COLL_SOURCE_KERNEL_ARGS);
          g_assert_cmpint (c->seq, >=, 1);
          g_assert_cmpint (c->bytes, >, 0);
          g_assert_cmpuint (c->instance, !=, WEFT_NONE);
          n_coll++;
        }
      json_object_put (root);
    }
  /* instances: every member present, same type and size, one end time */
  g_assert_cmpuint (trace->instances->len, ==, expect_instances);
  {
    guint members = 0;
    for (guint i = 0; i < trace->instances->len; i++)
      {
        WeftCollInstance *inst = &g_array_index (trace->instances, WeftCollInstance, i);
        gint64 end = G_MININT64;
        WeftCollective *c0 = NULL;
        for (guint k = 0; k < inst->members->len; k++)
          {
            WeftInstanceMember *m = &g_array_index (inst->members, WeftInstanceMember, k);
            WeftRank *rk = weft_trace_rank (trace, m->rank_index);
            WeftCollective *c = &g_array_index (rk->collectives, WeftCollective, m->coll);
            gint64 e = weft_event_end (rk, weft_rank_event (rk, c->event)) + weft_trace_rank_offset (trace, rk);
            if (c0 == NULL)
              {
                c0 = c;
                end = e;
                g_assert_cmpuint (inst->members->len, ==, (guint) c->group_size);
              }
            g_assert_cmpint (c->type, ==, c0->type);
            g_assert_cmpint (c->seq, ==, c0->seq);
            g_assert_cmpint (e, ==, end);
            members++;
          }
      }
    g_assert_cmpuint (members, ==, n_coll);
  }
}

/* load -> save (each format) -> load gives the same events, ns-exact */
static void
check_round_trip (const WeftComposeParams *p)
{
  static const char *exts[] = { ".json", ".json.gz", ".json.zst" };
  g_autoptr (WeftTrace) trace = compose_trace (p);

  for (guint x = 0; x < G_N_ELEMENTS (exts); x++)
    {
      g_autofree char *dir = g_strdup_printf ("%s/roundtrip%u", weft_test_tmpdir (), x);
      g_autoptr (GError) error = NULL;
      g_autoptr (WeftTrace) back = NULL;

      g_assert_true (weft_trace_save_dir (trace, dir, (WeftFileFormat) x, NULL, &error));
      g_assert_no_error (error);
      back = weft_trace_load (dir, NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (back->ranks->len, ==, trace->ranks->len);
      g_assert_cmpuint (back->instances->len, ==, trace->instances->len);
      for (guint r = 0; r < trace->ranks->len; r++)
        {
          WeftRank *a = weft_trace_rank (trace, r), *b = weft_trace_rank (back, r);
          g_assert_cmpuint (a->events->len, ==, b->events->len);
          g_assert_cmpint (a->base_ns, ==, b->base_ns);
          for (guint i = 0; i < a->events->len; i++)
            {
              WeftEvent *ea = weft_rank_event (a, i), *eb = weft_rank_event (b, i);
              g_assert_cmpint (ea->ts, ==, eb->ts);
              g_assert_cmpint (weft_event_dur (a, ea), ==, weft_event_dur (b, eb));
              g_assert_cmpint (ea->ph, ==, eb->ph);
              g_assert_cmpstr (weft_rank_string (a, ea->name), ==, weft_rank_string (b, eb->name));
            }
        }
    }
}

static void
test_loader_fsdp (void)
{
  WeftComposeParams p;

  params (&p, "fsdp", 8, 1, 1, 1, 2);
  check_round_trip (&p);
  params (&p, "fsdp", 8, 1, 1, 1, 4);
  /* forward: 6 all-gathers (embedding, 4 blocks, norm+output); backward:
   * 4 (blocks, resharded); 6 reduce-scatters; 1 grad-norm all-reduce */
  check_loader (&p, 6 + 4 + 6 + 1);
}

static void
test_loader_strategies (void)
{
  WeftComposeParams p;

  params (&p, "ddp", 4, 1, 1, 1, 2);
  /* one all-reduce per gradient bucket: output (2.1 GB > the 1 MB first
   * bucket), per block MLP and attention (each > 25 MB), embedding (last) */
  check_loader (&p, 1 + 2 * 2 + 1);
  params (&p, "fsdp,tp", 4, 2, 1, 1, 2);
  p.sequence_parallel = TRUE;
  /* 2 fsdp groups x (all-gather 4 forward + 2 backward, 4 reduce-scatters,
   * 1 grad-norm all-reduce) + 4 tp groups x (8 per block: 2 AG + 2 RS each
   * way; embedding RS, output AG, output backward RS) */
  check_loader (&p, 2 * (4 + 2 + 4 + 1) + 4 * (2 * 8 + 3));
  params (&p, "fsdp,ep", 4, 1, 1, 4, 2);
  p.model = (WeftModelShape) { "moe-small", 2, 2048, 5632, 16, 16, 4096, 1, 32000, 16, 2, 1408, 1 };
  /* fsdp 4 + 2 + 4 + 1; ep per block: count + dispatch + combine forward, 2 backward */
  check_loader (&p, 11 + 2 * 5);
  params (&p, "fsdp,cp", 2, 1, 4, 1, 2);
  p.cp_mode = WEFT_CP_RING;
  /* 1 fsdp group over dp x cp (8 ranks) x 11; 2 cp groups x (3 ring steps
   * forward + 3 backward) x 2 blocks */
  check_loader (&p, 11 + 2 * 12);
}

/* ---- strategy facts ------------------------------------------------------------ */

static gint64
loss_end (WeftRank *rank)
{
  for (guint i = 0; i < rank->events->len; i++)
    {
      WeftEvent *ev = weft_rank_event (rank, i);
      if ((ev->flags & WEFT_EVENT_GPU_OP) && strstr (ev_name (rank, ev), "cunn_SoftMaxForward") != NULL)
        return weft_event_end (rank, ev);
    }
  g_assert_not_reached ();
  return 0;
}

static void
test_ddp (void)
{
  WeftComposeParams p;
  g_autoptr (WeftTrace) trace = NULL;

  params (&p, "ddp", 4, 1, 1, 1, 2);
  trace = compose_trace (&p);
  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);
      gint64 fwd_end = loss_end (rank);
      guint n = rank->collectives->len;
      gint64 sum_ov = 0, sum_dur = 0;

      g_assert_cmpuint (n, >=, 3);
      for (guint i = 0; i < n; i++)
        {
          WeftCollective *c = &g_array_index (rank->collectives, WeftCollective, i);
          WeftEvent *k = weft_rank_event (rank, c->event);
          gint64 ov = compute_overlap (rank, k->ts, weft_event_end (rank, k), -1, -1);

          g_assert_cmpint (c->type, ==, WEFT_COLL_ALL_REDUCE);
          /* forward has no collective */
          g_assert_cmpint (k->ts, >=, fwd_end);
          /* bucketed backward all-reduces overlap compute; the last one
           * (embedding gradients, launched after the last backward kernel)
           * is exposed */
          if (i + 1 < n)
            {
              g_assert_cmpint (ov, >, 0);
              sum_ov += ov;
              sum_dur += weft_event_dur (rank, k);
            }
          else
            g_assert_cmpint (ov, ==, 0);
        }
      /* and mostly hidden */
      g_assert_cmpint (sum_ov, >=, sum_dur / 2);
    }
}

static void
fsdp_overlap (gboolean prefetch)
{
  WeftComposeParams p;
  g_autoptr (WeftTrace) trace = NULL;
  int L = 4;

  params (&p, "fsdp", 8, 1, 1, 1, L);
  p.fsdp_prefetch = prefetch;
  trace = compose_trace (&p);
  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);

      for (int i = 0; i + 1 < L; i++)
        {
          char name[64];
          WeftTimeSpan blk_i, blk_next;
          gboolean found = FALSE;

          g_snprintf (name, sizeof name, "nn.Module: TransformerBlock_%d", i);
          g_assert_true (cpu_span (rank, name, &blk_i));
          g_snprintf (name, sizeof name, "nn.Module: TransformerBlock_%d", i + 1);
          g_assert_true (cpu_span (rank, name, &blk_next));
          /* the all-gather of block i+1 (launched in its FSDP::pre_forward) */
          for (guint k = 0; k < rank->collectives->len; k++)
            {
              WeftCollective *c = &g_array_index (rank->collectives, WeftCollective, k);
              WeftEvent *ag = weft_rank_event (rank, c->event);
              gint64 ov;

              if (c->type != WEFT_COLL_ALL_GATHER
                  || !weft_time_span_contains (blk_next, weft_rank_event (rank, weft_event_link (ag))->ts))
                continue;
              found = TRUE;
              /* against the compute kernels of block i */
              ov = compute_overlap (rank, ag->ts, weft_event_end (rank, ag), blk_i.begin, blk_i.end);
              if (prefetch)
                g_assert_cmpint (ov, >=, weft_event_dur (rank, ag) / 2);
              else
                g_assert_cmpint (ov, ==, 0);
            }
          g_assert_true (found);
        }
    }
}

static void
test_fsdp_prefetch (void)
{
  fsdp_overlap (TRUE);
}

static void
test_fsdp_no_prefetch (void)
{
  fsdp_overlap (FALSE);
}

static void
test_fsdp_no_reshard (void)
{
  WeftComposeParams p;
  g_autoptr (WeftTrace) trace = NULL;
  WeftRank *rank;
  guint ag = 0;

  params (&p, "fsdp", 8, 1, 1, 1, 4);
  p.reshard_after_forward = FALSE;
  trace = compose_trace (&p);
  rank = weft_trace_rank (trace, 0);
  for (guint k = 0; k < rank->collectives->len; k++)
    if (g_array_index (rank->collectives, WeftCollective, k).type == WEFT_COLL_ALL_GATHER)
      ag++;
  /* forward only: no all-gather in backward */
  g_assert_cmpuint (ag, ==, 6);
}

static void
tp_facts (gboolean sp)
{
  WeftComposeParams p;
  g_autoptr (WeftTrace) trace = NULL;
  int L = 2;

  params (&p, "tp", 1, 4, 1, 1, L);
  p.sequence_parallel = sp;
  trace = compose_trace (&p);
  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);
      for (int i = 0; i < L; i++)
        {
          char name[64];
          WeftTimeSpan blk;

          g_snprintf (name, sizeof name, "nn.Module: TransformerBlock_%d", i);
          g_assert_true (cpu_span (rank, name, &blk));
          /* on the critical path: the compute stream waits, nothing overlaps */
          for (guint k = 0; k < rank->collectives->len; k++)
            {
              WeftCollective *c = &g_array_index (rank->collectives, WeftCollective, k);
              WeftEvent *kev = weft_rank_event (rank, c->event);
              if (c->group_size == 4)
                g_assert_cmpint (compute_overlap (rank, kev->ts, weft_event_end (rank, kev), -1, -1), ==, 0);
            }
          if (!sp)
            {
              g_assert_cmpuint (count_collectives (rank, blk, "allreduce"), ==, 2);
              g_assert_cmpuint (count_collectives (rank, blk, NULL), ==, 2);
            }
          else
            {
              g_assert_cmpuint (count_collectives (rank, blk, "_allgather_base"), ==, 2);
              g_assert_cmpuint (count_collectives (rank, blk, "_reduce_scatter_base"), ==, 2);
              g_assert_cmpuint (count_collectives (rank, blk, NULL), ==, 4);
            }
        }
    }
}

static void
test_tp (void)
{
  tp_facts (FALSE);
}

static void
test_tp_sp (void)
{
  tp_facts (TRUE);
}

static void
ep_facts (gboolean overlap)
{
  WeftComposeParams p;
  g_autoptr (WeftTrace) trace = NULL;
  g_autoptr (GError) error = NULL;
  int L = 2;

  params (&p, "fsdp,ep", 4, 1, 1, 4, L);
  g_assert_true (weft_compose_params_set_preset (&p, "moe-small", &error));
  p.model.layers = L;
  p.ep_overlap = overlap;
  trace = compose_trace (&p);
  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);
      for (int i = 0; i < L; i++)
        {
          char name[64];
          WeftTimeSpan blk;

          g_snprintf (name, sizeof name, "nn.Module: TransformerBlock_%d", i);
          g_assert_true (cpu_span (rank, name, &blk));
          /* count all-to-all, dispatch + combine (per chunk), one D2H sync */
          g_assert_cmpuint (count_collectives (rank, blk, "all_to_all"), ==, 1);
          g_assert_cmpuint (count_collectives (rank, blk, "all_to_allv"), ==, overlap ? 4 : 2);
          g_assert_cmpuint (count_named_in_span (rank, blk, WEFT_CAT_GPU_MEMCPY, "Memcpy DtoH"), ==, 1);
          g_assert_cmpuint (count_named_in_span (rank, blk, WEFT_CAT_CUDA_RUNTIME, "cudaStreamSynchronize"), ==, 1);
          /* the CPU really waited: the sync returns after the count all-to-all ended */
          {
            gint64 sync_end = -1, count_end = -1;
            for (guint e = 0; e < rank->events->len; e++)
              {
                WeftEvent *ev = weft_rank_event (rank, e);
                if (ev->ph == WEFT_PH_X && ev->category == WEFT_CAT_CUDA_RUNTIME && weft_time_span_contains (blk, ev->ts)
                    && g_str_equal (ev_name (rank, ev), "cudaStreamSynchronize"))
                  sync_end = weft_event_end (rank, ev);
              }
            for (guint k = 0; k < rank->collectives->len; k++)
              {
                WeftCollective *c = &g_array_index (rank->collectives, WeftCollective, k);
                WeftEvent *kev = weft_rank_event (rank, c->event);
                if (c->coll_name != 0 && g_str_equal (weft_rank_string (rank, c->coll_name), "all_to_all")
                    && weft_time_span_contains (blk, weft_rank_event (rank, weft_event_link (kev))->ts))
                  count_end = weft_event_end (rank, kev);
              }
            g_assert_cmpint (count_end, >, 0);
            g_assert_cmpint (sync_end, >, count_end);
          }
        }
    }
}

static void
test_ep (void)
{
  ep_facts (FALSE);
}

static void
test_ep_overlap (void)
{
  ep_facts (TRUE);
}

static void
test_cp_ring (void)
{
  WeftComposeParams p;
  g_autoptr (WeftTrace) trace = NULL;
  int L = 2, cp = 4;

  params (&p, "fsdp,cp", 2, 1, cp, 1, L);
  p.cp_mode = WEFT_CP_RING;
  trace = compose_trace (&p);
  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);
      for (int i = 0; i < L; i++)
        {
          char name[80];
          WeftTimeSpan blk;

          g_snprintf (name, sizeof name, "nn.Module: TransformerBlock_%d", i);
          g_assert_true (cpu_span (rank, name, &blk));
          g_assert_cmpuint (count_named_in_span (rank, blk, WEFT_CAT_KERNEL, "ncclDevKernel_SendRecv"), ==, cp - 1);
          /* each ring step overlaps attention on the chunk in hand */
          for (guint k = 0; k < rank->collectives->len; k++)
            {
              WeftCollective *c = &g_array_index (rank->collectives, WeftCollective, k);
              WeftEvent *kev = weft_rank_event (rank, c->event);
              if (g_str_has_prefix (ev_name (rank, kev), "ncclDevKernel_SendRecv")
                  && weft_time_span_contains (blk, weft_rank_event (rank, weft_event_link (kev))->ts))
                g_assert_cmpint (compute_overlap (rank, kev->ts, weft_event_end (rank, kev), -1, -1), >, 0);
            }
          g_snprintf (name, sizeof name, "nn.Module: TransformerBlock_%d.backward", i);
          g_assert_true (cpu_span (rank, name, &blk));
          g_assert_cmpuint (count_named_in_span (rank, blk, WEFT_CAT_KERNEL, "ncclDevKernel_SendRecv"), ==, cp - 1);
        }
    }
}

static void
test_cp_allgather (void)
{
  WeftComposeParams p;
  g_autoptr (WeftTrace) trace = NULL;
  WeftRank *rank;
  WeftTimeSpan blk;

  params (&p, "fsdp,cp", 2, 1, 4, 1, 2);
  trace = compose_trace (&p);
  rank = weft_trace_rank (trace, 5);
  g_assert_true (cpu_span (rank, "nn.Module: TransformerBlock_1", &blk));
  /* one K/V all-gather in the cp group, besides FSDP's in the dp-cp group */
  {
    guint cp_ag = 0;
    for (guint i = 0; i < rank->collectives->len; i++)
      {
        WeftCollective *c = &g_array_index (rank->collectives, WeftCollective, i);
        WeftEvent *k = weft_rank_event (rank, c->event);
        if (c->type == WEFT_COLL_ALL_GATHER && c->group_size == 4
            && weft_time_span_contains (blk, weft_rank_event (rank, weft_event_link (k))->ts))
          cp_ag++;
      }
    g_assert_cmpuint (cp_ag, ==, 1);
  }
}

/* ---- solver replay ------------------------------------------------------------- */

static void
replay (const WeftComposeParams *p)
{
  g_autoptr (WeftTrace) trace = compose_trace (p);
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftSolver) solver = weft_solver_new (trace, &error);
  gint64 worst = 0;
  guint n = 0;

  g_assert_no_error (error);
  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);
      gint64 off = weft_trace_rank_offset (trace, rank);
      for (guint i = 0; i < rank->events->len; i++)
        {
          WeftEvent *ev = weft_rank_event (rank, i);
          if (!(ev->flags & WEFT_EVENT_GPU_OP) || ev->ph != WEFT_PH_X)
            continue;
          g_assert_true (weft_solver_is_node (solver, r, i));
          worst = MAX (worst, ABS (weft_solver_start (solver, r, i) - (ev->ts + off)));
          worst = MAX (worst, ABS (weft_solver_end (solver, r, i) - (weft_event_end (rank, ev) + off)));
          n++;
        }
    }
  g_test_message ("replay: %u ranks, %u GPU ops, worst error %" G_GINT64_FORMAT " ns", trace->ranks->len, n, worst);
  g_assert_cmpint (worst, ==, 0);
}

static void
test_replay (void)
{
  WeftComposeParams p;
  g_autoptr (GError) error = NULL;

  params (&p, "fsdp", 8, 1, 1, 1, 2);
  replay (&p);
  params (&p, "ddp", 4, 1, 1, 1, 2);
  replay (&p);
  params (&p, "fsdp,tp", 4, 2, 1, 1, 2);
  p.sequence_parallel = TRUE;
  replay (&p);
  params (&p, "fsdp,ep", 4, 1, 1, 4, 2);
  g_assert_true (weft_compose_params_set_preset (&p, "moe-small", &error));
  p.model.layers = 2;
  p.ep_overlap = TRUE;
  replay (&p);
  params (&p, "fsdp,cp", 2, 1, 4, 1, 2);
  p.cp_mode = WEFT_CP_RING;
  replay (&p);
}

/* ---- other properties ---------------------------------------------------------------- */

static void
test_deterministic (void)
{
  WeftComposeParams p;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) a = NULL;
  g_autoptr (GPtrArray) b = NULL;
  g_autoptr (GPtrArray) c = NULL;

  params (&p, "fsdp,tp", 2, 2, 1, 1, 2);
  a = weft_compose_json (&p, &error);
  g_assert_no_error (error);
  b = weft_compose_json (&p, &error);
  g_assert_no_error (error);
  p.seed = 2;
  c = weft_compose_json (&p, &error);
  g_assert_no_error (error);
  for (guint r = 0; r < a->len; r++)
    {
      g_assert_true (g_bytes_equal (g_ptr_array_index (a, r), g_ptr_array_index (b, r)));
      g_assert_false (g_bytes_equal (g_ptr_array_index (a, r), g_ptr_array_index (c, r)));
    }
}

static void
test_steps_and_files (void)
{
  WeftComposeParams p;
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *out = g_build_filename (weft_test_tmpdir (), "composed", NULL);
  g_autoptr (WeftTrace) trace = NULL;

  params (&p, "ddp", 2, 1, 1, 1, 1);
  p.steps = 2;
  g_assert_true (weft_compose_write (&p, out, ".json.gz", &dir, &error));
  g_assert_no_error (error);
  g_assert_true (g_str_has_suffix (dir, "profiling/traces/iteration_10"));
  trace = weft_trace_load (out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (trace->ranks->len, ==, 2);
  g_assert_cmpuint (weft_trace_rank (trace, 1)->steps->len, ==, 2);
  g_assert_cmpint (g_array_index (weft_trace_rank (trace, 1)->steps, WeftStep, 1).number, ==, 9);
  /* the step ends with the loss sync: the next step starts after it */
  {
    WeftStep *s0 = &g_array_index (weft_trace_rank (trace, 0)->steps, WeftStep, 0);
    WeftStep *s1 = &g_array_index (weft_trace_rank (trace, 0)->steps, WeftStep, 1);
    g_assert_cmpint (s1->begin, >=, s0->end);
  }
}

/* One vocabulary with Apply: "tp-sp", "cp-ring", "cp-allgather" */
static void
test_strategy_names (void)
{
  WeftComposeParams p;
  GError *error = NULL;
  WeftApplyStrategy a;

  weft_compose_params_init (&p);
  g_assert_true (weft_compose_params_set_strategies (&p, "fsdp,tp-sp", &error));
  g_assert_no_error (error);
  g_assert_cmpuint (p.strategies, ==, WEFT_STRATEGY_FSDP | WEFT_STRATEGY_TP);
  g_assert_true (p.sequence_parallel);
  weft_compose_params_init (&p);
  g_assert_true (weft_compose_params_set_strategies (&p, "fsdp+tp+sp", &error));
  g_assert_cmpuint (p.strategies, ==, WEFT_STRATEGY_FSDP | WEFT_STRATEGY_TP);
  g_assert_true (p.sequence_parallel);
  weft_compose_params_init (&p);
  g_assert_true (weft_compose_params_set_strategies (&p, "fsdp, cp-ring", &error));
  g_assert_cmpuint (p.strategies, ==, WEFT_STRATEGY_FSDP | WEFT_STRATEGY_CP);
  g_assert_cmpint (p.cp_mode, ==, WEFT_CP_RING);
  g_assert_false (p.sequence_parallel);
  g_assert_true (weft_compose_params_set_strategies (&p, "cp-allgather", &error));
  g_assert_cmpint (p.cp_mode, ==, WEFT_CP_ALL_GATHER);
  g_assert_false (weft_compose_params_set_strategies (&p, "fsdp,tp-zz", &error));
  g_assert_error (error, WEFT_ERROR, WEFT_ERROR_INVALID);
  g_clear_error (&error);
  /* and every name Apply prints reads back here as the same strategy */
  for (guint k = 0; k < WEFT_APPLY_N_STRATEGIES; k++)
    {
      const char *name = weft_apply_strategy_to_string ((WeftApplyStrategy) k);
      weft_compose_params_init (&p);
      g_assert_true (weft_compose_params_set_strategies (&p, name, &error));
      g_assert_no_error (error);
      g_assert_true (weft_apply_strategy_from_string (name, &a, &error));
      g_assert_cmpint (a, ==, k);
      g_assert_cmpint (p.sequence_parallel, ==, a == WEFT_APPLY_TP_SP);
    }
}

static void
test_invalid (void)
{
  WeftComposeParams p;
  guint flags;
  GError *error = NULL;

  g_assert_false (weft_compose_parse_strategies ("fsdp,zz", &flags, &error));
  g_assert_error (error, WEFT_ERROR, WEFT_ERROR_INVALID);
  g_clear_error (&error);
  weft_compose_params_init (&p);
  g_assert_false (weft_compose_params_set_preset (&p, "gpt5", &error));
  g_assert_error (error, WEFT_ERROR, WEFT_ERROR_INVALID);
  g_clear_error (&error);
  params (&p, "fsdp,tp", 128, 8, 1, 1, 2);   /* 1024 ranks: more than WEFT_COMPOSE_MAX_RANKS */
  g_assert_null (weft_compose_json (&p, &error));
  g_assert_error (error, WEFT_ERROR, WEFT_ERROR_INVALID);
  g_clear_error (&error);
  params (&p, "fsdp,ep", 4, 1, 1, 3, 2);    /* ep must divide dp */
  g_assert_false (weft_compose_params_validate (&p, &error));
  g_assert_error (error, WEFT_ERROR, WEFT_ERROR_INVALID);
  g_clear_error (&error);
  params (&p, "ddp,fsdp", 4, 1, 1, 1, 2);
  g_assert_false (weft_compose_params_validate (&p, &error));
  g_clear_error (&error);
  params (&p, "tp", 1, 3, 1, 1, 2);         /* 3 does not divide 32 heads */
  g_assert_false (weft_compose_params_validate (&p, &error));
  g_clear_error (&error);
  params (&p, "fsdp", 8, 1, 1, 1, 0);
  g_assert_false (weft_compose_params_validate (&p, &error));
  g_clear_error (&error);
}

/* Calibration reads achieved FLOP/s back from a profile's Input Dims: on a
 * composed trace it finds the efficiencies the composer used. */
static void
test_calibrate_roundtrip (void)
{
  WeftComposeParams p, q;
  g_autoptr (WeftTrace) trace = NULL;
  g_autoptr (GError) error = NULL;

  params (&p, "fsdp", 2, 1, 1, 1, 2);
  p.eff.gemm = 0.5;
  p.eff.attention = 0.3;
  trace = compose_trace (&p);
  weft_compose_params_init (&q);
  g_assert_true (weft_compose_calibrate (&q, trace, &error));
  g_assert_no_error (error);
  g_assert_true (q.eff.calibrated);
  g_test_message ("calibrated: gemm %.4f (0.5), attention %.4f (0.3) over %u kernels", q.eff.gemm, q.eff.attention,
                  q.eff.calibrated_kernels);
  g_assert_cmpfloat (fabs (q.eff.gemm - 0.5), <, 0.02);
  g_assert_cmpfloat (fabs (q.eff.attention - 0.3), <, 0.02);
}

static void
test_calibrate_real (void)
{
  g_autofree char *path = weft_test_require_trace ("synthetic/fsdp8");
  g_autoptr (WeftTrace) trace = NULL;
  g_autoptr (GError) error = NULL;
  WeftComposeParams p;

  if (path == NULL)
    return;
  trace = weft_trace_load (path, NULL, NULL, &error);
  g_assert_no_error (error);
  weft_compose_params_init (&p);
  g_assert_true (weft_compose_calibrate (&p, trace, &error));
  g_assert_no_error (error);
  g_test_message ("fsdp8: gemm %.3f of peak over %u kernels", p.eff.gemm, p.eff.calibrated_kernels);
  g_assert_cmpuint (p.eff.calibrated_kernels, >, 0);
  g_assert_cmpfloat (p.eff.gemm, >, 0.0);
  g_assert_cmpfloat (p.eff.gemm, <=, 1.0);
}

/* 64 ranks: Llama-3-70B-like FSDP+TP (2 blocks here; the full benchmark is in
 * docs/benchmarks.md). */
static void
test_64_ranks (void)
{
  WeftComposeParams p;
  g_autoptr (WeftTrace) trace = NULL;
  g_autoptr (GError) error = NULL;
  guint n_inst = 0;

  params (&p, "fsdp,tp", 8, 8, 1, 1, 2);
  g_assert_true (weft_compose_params_set_preset (&p, "llama3-70b", &error));
  p.model.layers = 2;
  trace = compose_trace (&p);
  g_assert_cmpuint (trace->ranks->len, ==, 64);
  for (guint i = 0; i < trace->instances->len; i++)
    {
      WeftCollInstance *inst = &g_array_index (trace->instances, WeftCollInstance, i);
      g_assert_cmpuint (inst->members->len, ==, 8);
      n_inst++;
    }
  /* 8 fsdp groups x 11 + 8 tp groups x (4 all-reduces per block, embedding
   * forward, output backward) */
  g_assert_cmpuint (n_inst, ==, 8 * 11 + 8 * (2 * 4 + 1 + 1));
}

/* ---- params round trip, samples, CLI ------------------------------------------------ */

static json_object *
weft_key (WeftRank *rank)
{
  for (guint i = 0; i < rank->top_keys->len; i++)
    {
      WeftTopKey *k = &g_array_index (rank->top_keys, WeftTopKey, i);
      if (g_str_equal (weft_rank_string (rank, k->key), "weft"))
        return json_tokener_parse (k->raw);
    }
  return NULL;
}

/* The "weft" key written into every file gives the same parameters back. */
static void
test_params_roundtrip (void)
{
  WeftComposeParams p, q;
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftTrace) trace = NULL;
  g_autoptr (GPtrArray) a = NULL;
  g_autoptr (GPtrArray) b = NULL;
  json_object *meta;

  params (&p, "fsdp,cp", 2, 1, 2, 1, 1);
  p.cp_mode = WEFT_CP_RING;
  p.seed = 7;
  p.jitter = 0.05;
  p.hw.ib_bus_bw = 25;
  p.eff.gemm = 0.55;
  trace = compose_trace (&p);
  meta = weft_key (weft_trace_rank (trace, 0));
  g_assert_nonnull (meta);
  weft_compose_params_init (&q);
  g_assert_true (weft_compose_params_from_json (&q, meta, &error));
  g_assert_no_error (error);
  json_object_put (meta);
  a = weft_compose_json (&p, &error);
  b = weft_compose_json (&q, &error);
  g_assert_no_error (error);
  for (guint r = 0; r < a->len; r++)
    g_assert_true (g_bytes_equal (g_ptr_array_index (a, r), g_ptr_array_index (b, r)));
  meta = json_tokener_parse ("{\"strategy\": \"fsdp\"}");
  g_assert_false (weft_compose_params_from_json (&q, meta, &error));
  g_assert_error (error, WEFT_ERROR, WEFT_ERROR_INVALID);
  json_object_put (meta);
}

static GBytes *
read_gz (const char *path)
{
  g_autoptr (GFile) f = g_file_new_for_path (path);
  g_autoptr (GError) error = NULL;
  g_autoptr (GInputStream) in = G_INPUT_STREAM (g_file_read (f, NULL, &error));
  g_autoptr (GZlibDecompressor) dec = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
  g_autoptr (GInputStream) z = NULL;
  g_autoptr (GOutputStream) mem = g_memory_output_stream_new_resizable ();

  g_assert_no_error (error);
  z = g_converter_input_stream_new (in, G_CONVERTER (dec));
  g_assert_cmpint (g_output_stream_splice (mem, z, G_OUTPUT_STREAM_SPLICE_CLOSE_SOURCE | G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET,
                                           NULL, &error), >=, 0);
  g_assert_no_error (error);
  return g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (mem));
}

/* data/samples/ holds what this composer writes for the parameters stored
 * in each sample (re-run data/samples/generate.sh after changing it). */
static void
test_samples_fresh (void)
{
  const char *src = g_getenv ("WEFT_SOURCE_DIR");
  g_autofree char *dir = g_build_filename (src ? src : WEFT_SOURCE_DIR, "data", "samples", NULL);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n = 0;

  if (d == NULL)
    {
      g_test_skip ("data/samples not found");
      return;
    }
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *sample = g_build_filename (dir, name, NULL);
      g_autofree char *iter = NULL;
      g_autoptr (WeftTrace) trace = NULL;
      g_autoptr (GPtrArray) texts = NULL;
      g_autoptr (GError) error = NULL;
      WeftComposeParams p;
      json_object *meta;

      if (!g_file_test (sample, G_FILE_TEST_IS_DIR))
        continue;
      trace = weft_trace_load (sample, NULL, NULL, &error);
      g_assert_no_error (error);
      meta = weft_key (weft_trace_rank (trace, 0));
      g_assert_nonnull (meta);
      weft_compose_params_init (&p);
      g_assert_true (weft_compose_params_from_json (&p, meta, &error));
      g_assert_no_error (error);
      json_object_put (meta);
      texts = weft_compose_json (&p, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (texts->len, ==, trace->ranks->len);
      iter = g_strdup_printf ("%s/profiling/traces/iteration_%d", sample, p.iteration);
      for (guint r = 0; r < texts->len; r++)
        {
          g_autofree char *path = g_strdup_printf ("%s/rank%u_trace.json.gz", iter, r);
          g_autoptr (GBytes) file = read_gz (path);
          if (!g_bytes_equal (file, g_ptr_array_index (texts, r)))
            g_error ("%s is stale: re-run data/samples/generate.sh", path);
        }
      n++;
    }
  g_test_message ("%u samples up to date", n);
  g_assert_cmpuint (n, >=, 6);
}

/* The composer writes its dependencies as the ProcessGroupNCCL
 * cudaEventRecord / cudaStreamWaitEvent pattern; the solver infers edges
 * from that pattern. On a trace Weft composed itself they agree: no inferred
 * edge is contradicted by the times and no op starts later than its
 * constraints explain. */
static void
assert_solver_agrees (WeftTrace *trace, const char *what)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftSolver) solver = weft_solver_new (trace, &error);
  WeftSolverStats st;

  g_assert_no_error (error);
  weft_solver_stats (solver, &st);
  g_test_message ("%s: %u cross-stream edges, %u contradicted, %u unexplained", what, st.n_cross_stream,
                  st.n_inferred_dropped, st.n_unexplained);
  if (st.n_inferred_dropped != 0 || st.n_unexplained != 0)
    g_error ("%s: %u inferred edges contradicted by the trace, %u ops starting later than anything explains", what,
             st.n_inferred_dropped, st.n_unexplained);
  g_assert_cmpuint (st.n_cross_stream, >, 0);
}

/* HSDP: each all-reduce across replicas depends on the reduce-scatter that
 * produced its shard (on the same rank), so shortening or moving the
 * reduce-scatter moves the all-reduce. */
static void
assert_hsdp_waits_for_reduce_scatter (WeftTrace *trace)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftSolver) solver = weft_solver_new (trace, &error);
  guint n_ar = 0;

  g_assert_no_error (error);
  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);
      for (guint32 e = 0; e < rank->events->len; e++)
        {
          const WeftEvent *ev = weft_rank_event (rank, e);
          WeftSolverDep deps[16];
          guint n;
          gboolean from_rs = FALSE;
          const WeftCollective *c;
          if (weft_event_coll (rank, ev) == WEFT_NONE || !weft_solver_is_node (solver, r, e))
            continue;
          c = &g_array_index (rank->collectives, WeftCollective, weft_event_coll (rank, ev));
          if (c->type != WEFT_COLL_ALL_REDUCE || c->pg_desc == 0 ||
              strcmp (weft_rank_string (rank, c->pg_desc), "mesh_dp_replicate") != 0)
            continue;   /* not across replicas (the grad-norm all-reduce) */
          n = MIN (weft_solver_preds (solver, r, e, deps, G_N_ELEMENTS (deps)), G_N_ELEMENTS (deps));
          for (guint k = 0; k < n; k++)
            {
              const WeftEvent *p = weft_rank_event (weft_trace_rank (trace, deps[k].rank_index), deps[k].event);
              if (deps[k].kind == WEFT_DEP_CROSS_STREAM && deps[k].rank_index == r && weft_event_coll (rank, p) != WEFT_NONE &&
                  g_array_index (rank->collectives, WeftCollective, weft_event_coll (rank, p)).type == WEFT_COLL_REDUCE_SCATTER)
                from_rs = TRUE;
            }
          if (!from_rs)
            g_error ("rank %u: the HSDP all-reduce (event %u) does not wait for a reduce-scatter", r, e);
          n_ar++;
        }
    }
  g_assert_cmpuint (n_ar, >, 0);
}

static void
test_samples_consistent (void)
{
  const char *src = g_getenv ("WEFT_SOURCE_DIR");
  g_autofree char *dir = g_build_filename (src ? src : WEFT_SOURCE_DIR, "data", "samples", NULL);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n = 0;

  if (d == NULL)
    {
      g_test_skip ("data/samples not found");
      return;
    }
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *sample = g_build_filename (dir, name, NULL);
      g_autoptr (WeftTrace) trace = NULL;
      g_autoptr (GError) error = NULL;

      if (!g_file_test (sample, G_FILE_TEST_IS_DIR))
        continue;
      trace = weft_trace_load (sample, NULL, NULL, &error);
      g_assert_no_error (error);
      assert_solver_agrees (trace, name);
      n++;
    }
  g_assert_cmpuint (n, >=, 6);
}

/* The same on variants the samples do not cover. */
static void
test_variants_consistent (void)
{
  static const struct
  {
    const char *strategies;
    int dp, cp, ep, layers, steps;
    gboolean no_prefetch, no_reshard, ep_overlap;
    WeftCpMode cp_mode;
    int tp, hsdp;
    WeftAcMode ac;
    gboolean compile, float8_all_gather, sp;
  } v[] = {
    { "fsdp", 8, 1, 1, 2, 1, TRUE, FALSE, FALSE, WEFT_CP_ALL_GATHER, 1, 1 },
    { "fsdp", 8, 1, 1, 2, 1, FALSE, TRUE, FALSE, WEFT_CP_ALL_GATHER, 1, 1 },
    { "fsdp", 4, 1, 1, 2, 2, FALSE, FALSE, FALSE, WEFT_CP_ALL_GATHER, 1, 1 },
    { "fsdp,cp", 2, 2, 1, 1, 1, FALSE, FALSE, FALSE, WEFT_CP_ALL_GATHER, 1, 1 },
    { "fsdp,ep", 4, 1, 2, 1, 1, FALSE, FALSE, FALSE, WEFT_CP_ALL_GATHER, 1, 1 },
    { "ddp", 2, 1, 1, 3, 1, FALSE, FALSE, FALSE, WEFT_CP_ALL_GATHER, 1, 1 },
    /* HSDP: the all-reduce across replicas waits for the reduce-scatter
     * (a collective producing a collective's input) */
    { "fsdp", 16, 1, 1, 2, 1, FALSE, FALSE, FALSE, WEFT_CP_ALL_GATHER, 1, 2 },
    /* FSDP + TP: a TP all-reduce's work.wait() is followed by the next
     * unit's all-gather copy-in launch, on another stream */
    { "fsdp,tp", 2, 1, 1, 2, 1, FALSE, FALSE, FALSE, WEFT_CP_ALL_GATHER, 4, 1 },
    /* activation checkpointing: the recompute at the start of each
     * block's backward (TP+SP collectives recomputed, the op SAC policy
     * keeping the reduce-scatters), compiled blocks, float8 all-gathers
     * and their amax all-reduce after the optimizer */
    { "fsdp", 8, 1, 1, 2, 2, FALSE, FALSE, FALSE, WEFT_CP_ALL_GATHER, 1, 1, WEFT_AC_SELECTIVE_OP, TRUE, TRUE, FALSE },
    { "fsdp,tp", 2, 1, 1, 2, 1, FALSE, FALSE, FALSE, WEFT_CP_ALL_GATHER, 4, 1, WEFT_AC_FULL, FALSE, FALSE, TRUE },
    { "fsdp,tp", 2, 1, 1, 2, 1, FALSE, FALSE, FALSE, WEFT_CP_ALL_GATHER, 4, 1, WEFT_AC_SELECTIVE_OP, FALSE, FALSE,
      TRUE },
    { "fsdp,cp", 2, 2, 1, 2, 1, FALSE, FALSE, FALSE, WEFT_CP_RING, 1, 1, WEFT_AC_SELECTIVE_LAYER, TRUE, FALSE, FALSE },
    { "fsdp,ep", 4, 1, 2, 1, 1, FALSE, FALSE, TRUE, WEFT_CP_ALL_GATHER, 1, 1, WEFT_AC_FULL, FALSE, FALSE, FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (v); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (WeftTrace) trace = NULL;
      g_autofree char *what = NULL;
      WeftComposeParams p;

      weft_compose_params_init (&p);
      if (v[i].ep > 1)
        g_assert_true (weft_compose_params_set_preset (&p, "moe-small", &error));
      g_assert_true (weft_compose_parse_strategies (v[i].strategies, &p.strategies, &error));
      p.dp = v[i].dp;
      p.cp = v[i].cp;
      p.ep = v[i].ep;
      p.model.layers = v[i].layers;
      p.steps = v[i].steps;
      p.fsdp_prefetch = !v[i].no_prefetch;
      p.reshard_after_forward = !v[i].no_reshard;
      p.ep_overlap = v[i].ep_overlap;
      p.cp_mode = v[i].cp_mode;
      p.tp = v[i].tp;
      p.dp_replicate = v[i].hsdp;
      p.ac = v[i].ac;
      p.ac_layer_freq = 1;
      p.compile = v[i].compile;
      p.float8 = p.float8_all_gather = v[i].float8_all_gather;
      p.sequence_parallel = v[i].sp;
      trace = weft_compose_trace (&p, &error);
      g_assert_no_error (error);
      what = g_strdup_printf ("%s dp %d tp %d cp %d ep %d hsdp %d%s%s ac %s%s%s", v[i].strategies, v[i].dp, v[i].tp,
                              v[i].cp, v[i].ep, v[i].hsdp, v[i].no_prefetch ? " no-prefetch" : "",
                              v[i].no_reshard ? " no-reshard" : "", weft_compose_ac_to_string (v[i].ac),
                              v[i].compile ? " compile" : "", v[i].float8_all_gather ? " float8-all-gather" : "");
      assert_solver_agrees (trace, what);
      if (v[i].hsdp > 1)
        assert_hsdp_waits_for_reduce_scatter (trace);
    }
}

static int
run_cli (const char *args, char **err_out)
{
  g_autofree char *cli = weft_test_build_path ("weft-cli");
  g_autofree char *cmd = g_strdup_printf ("%s compose %s", cli, args);
  g_autoptr (GError) error = NULL;
  int status = -1;

  g_assert_true (g_spawn_command_line_sync (cmd, NULL, err_out, &status, &error));
  g_assert_no_error (error);
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

static void
test_cli (void)
{
  g_autofree char *out = g_build_filename (weft_test_tmpdir (), "cli", NULL);
  g_autofree char *args = NULL;
  g_autofree char *err = NULL;
  g_autofree char *f = NULL;
  g_autoptr (WeftTrace) trace = NULL;
  g_autoptr (GError) error = NULL;

  args = g_strdup_printf ("--strategy fsdp,tp --dp 2 --tp 2 --sp --layers 1 --seq 4096 --steps 2 --format json -q --out %s", out);
  g_assert_cmpint (run_cli (args, NULL), ==, 0);
  f = g_build_filename (out, "profiling/traces/iteration_10/rank3_trace.json", NULL);
  g_assert_true (g_file_test (f, G_FILE_TEST_IS_REGULAR));
  trace = weft_trace_load (out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (trace->ranks->len, ==, 4);
  g_assert_cmpuint (weft_trace_rank (trace, 0)->steps->len, ==, 2);
  /* bad usage and bad parameters: exit 2 with a message */
  g_assert_cmpint (run_cli ("--strategy zz --out /tmp/x", &err), ==, 2);
  g_assert_nonnull (strstr (err, "unknown strategy 'zz'"));
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run_cli ("--strategy fsdp,ep --dp 4 --ep 3 --preset moe-small --out /tmp/x", &err), ==, 2);
  g_assert_nonnull (strstr (err, "ep 3 must divide"));
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run_cli ("--strategy fsdp", &err), ==, 2);
  g_clear_pointer (&err, g_free);
  /* a folder that cannot be created: exit 1 */
  g_assert_cmpint (run_cli ("--strategy fsdp --layers 1 --out /proc/weft-no/such", &err), ==, 1);
}

/* Random combinations of strategies, degrees and options (seeded): each
 * either is refused by validation or composes into a trace whose
 * collectives all match across their ranks and whose timestamps the solver
 * replays exactly. */
static void
test_random_configs (void)
{
  GRand *rng = g_rand_new_with_seed (42);
  static const int degs[] = { 1, 2, 4 };
  guint composed = 0, refused = 0;

  for (int i = 0; i < 60 && composed < 16; i++)
    {
      WeftComposeParams p;
      g_autoptr (GError) error = NULL;

      weft_compose_params_init (&p);
      if (g_rand_boolean (rng))
        weft_compose_params_set_preset (&p, "moe-small", NULL);
      p.model.layers = g_rand_int_range (rng, 1, 3);
      p.model.seq = 4096;
      p.strategies = g_rand_boolean (rng) ? WEFT_STRATEGY_FSDP : WEFT_STRATEGY_DDP;
      p.dp = degs[g_rand_int_range (rng, 0, 3)];
      p.tp = degs[g_rand_int_range (rng, 0, 3)];
      p.cp = degs[g_rand_int_range (rng, 0, 2)];
      p.ep = degs[g_rand_int_range (rng, 0, 3)];
      p.dp_replicate = degs[g_rand_int_range (rng, 0, 2)];
      if (p.tp > 1)
        p.strategies |= WEFT_STRATEGY_TP;
      if (p.cp > 1)
        p.strategies |= WEFT_STRATEGY_CP;
      if (p.ep > 1)
        p.strategies |= WEFT_STRATEGY_EP;
      p.sequence_parallel = g_rand_boolean (rng);
      p.cp_mode = g_rand_boolean (rng) ? WEFT_CP_RING : WEFT_CP_ALL_GATHER;
      p.ep_overlap = g_rand_boolean (rng);
      p.fsdp_prefetch = g_rand_boolean (rng);
      p.reshard_after_forward = g_rand_boolean (rng);
      p.seed = g_rand_int (rng);
      if (!weft_compose_params_validate (&p, &error))
        {
          g_assert_error (error, WEFT_ERROR, WEFT_ERROR_INVALID);
          refused++;
          continue;
        }
      {
        g_autoptr (WeftTrace) trace = compose_trace (&p);
        g_autoptr (WeftSolver) solver = weft_solver_new (trace, &error);
        g_assert_no_error (error);
        for (guint r = 0; r < trace->ranks->len; r++)
          {
            WeftRank *rank = weft_trace_rank (trace, r);
            for (guint k = 0; k < rank->collectives->len; k++)
              {
                WeftCollective *c = &g_array_index (rank->collectives, WeftCollective, k);
                WeftCollInstance *inst;
                g_assert_cmpuint (c->instance, !=, WEFT_NONE);
                inst = &g_array_index (trace->instances, WeftCollInstance, c->instance);
                g_assert_cmpuint (inst->members->len, ==, (guint) c->group_size);
              }
            for (guint e = 0; e < rank->events->len; e++)
              {
                WeftEvent *ev = weft_rank_event (rank, e);
                if (!(ev->flags & WEFT_EVENT_GPU_OP) || ev->ph != WEFT_PH_X)
                  continue;
                g_assert_cmpint (weft_solver_start (solver, r, e), ==, ev->ts);
                g_assert_cmpint (weft_solver_end (solver, r, e), ==, weft_event_end (rank, ev));
              }
          }
        composed++;
      }
    }
  g_test_message ("random configurations: %u composed, %u refused by validation", composed, refused);
  g_assert_cmpuint (composed, >=, 8);
  g_rand_free (rng);
}

/* Hostile parameter JSON is refused, never composed. */
static void
test_params_json_bad (void)
{
  static const char *bad[] = {
    "{\"composer\": \"x\", \"strategy\": \"fsdp\", \"dp\": -3}",
    "{\"composer\": \"x\", \"strategy\": \"fsdp\", \"dp\": 99999999999}",
    "{\"composer\": \"x\", \"strategy\": \"fsdp\", \"model\": {\"layers\": 100000}}",
    "{\"composer\": \"x\", \"strategy\": \"fsdp\", \"hardware\": {\"peak_flops\": 0}}",
    "{\"composer\": \"x\", \"strategy\": \"fsdp\", \"hardware\": {\"nvlink_alpha_ns\": -5}}",
    "{\"composer\": \"x\", \"strategy\": \"fsdp\", \"efficiency\": {\"gemm\": 7}}",
    "{\"composer\": \"x\", \"strategy\": \"fsdp\", \"jitter\": 3}",
    "{\"composer\": \"x\", \"strategy\": \"fsdp\", \"steps\": 40}",
    "{\"composer\": \"x\", \"strategy\": 5}",
    "{\"composer\": \"x\", \"strategy\": \"\"}",
    "[1, 2]",
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      WeftComposeParams p;
      GError *error = NULL;
      json_object *j = json_tokener_parse (bad[i]);

      weft_compose_params_init (&p);
      g_assert_false (weft_compose_params_from_json (&p, j, &error));
      g_assert_error (error, WEFT_ERROR, WEFT_ERROR_INVALID);
      g_clear_error (&error);
      json_object_put (j);
    }
}

/* Measured durations per op shape: a step composed with another profile's
 * kernel times takes that profile's GEMM and attention durations. */
static void
test_kernel_times (void)
{
  WeftComposeParams p;
  g_autoptr (WeftTrace) a = NULL;
  g_autoptr (WeftTrace) b = NULL;
  g_autoptr (WeftTrace) c = NULL;
  g_autoptr (WeftKernelTimes) kt = NULL;
  guint n_shapes = 0, n_gemm = 0, n_other = 0;
  WeftRank *ra, *rb, *rc;

  params (&p, "fsdp", 2, 1, 1, 1, 2);
  p.jitter = 0;
  p.eff.gemm = 0.4;
  p.eff.attention = 0.2;
  a = compose_trace (&p);
  kt = weft_kernel_times_new_from_trace (a, &n_shapes);
  g_test_message ("%u op shapes measured", n_shapes);
  g_assert_cmpuint (n_shapes, >=, 8);

  params (&p, "fsdp", 2, 1, 1, 1, 2);
  p.jitter = 0;
  p.kernel_times = kt;
  b = compose_trace (&p);
  p.kernel_times = NULL;
  c = compose_trace (&p);
  ra = weft_trace_rank (a, 0);
  rb = weft_trace_rank (b, 0);
  rc = weft_trace_rank (c, 0);
  g_assert_cmpuint (ra->events->len, ==, rb->events->len);
  for (guint i = 0; i < ra->events->len; i++)
    {
      WeftEvent *ea = weft_rank_event (ra, i), *eb = weft_rank_event (rb, i), *ec = weft_rank_event (rc, i);
      if (ea->category != WEFT_CAT_KERNEL || ea->ph != WEFT_PH_X)
        continue;
      g_assert_cmpstr (weft_rank_string (ra, ea->name), ==, weft_rank_string (rb, eb->name));
      if (ea->kclass == WEFT_KCLASS_GEMM || strstr (weft_rank_string (ra, ea->name), "flash_fwd") != NULL)
        {
          /* measured: as in the profile; without: the (faster) defaults */
          g_assert_cmpint (weft_event_dur (rb, eb), ==, weft_event_dur (ra, ea));
          g_assert_cmpint (weft_event_dur (rc, ec), <, weft_event_dur (ra, ea));
          n_gemm++;
        }
      else if (ea->kclass != WEFT_KCLASS_COMM)
        {
          g_assert_cmpint (weft_event_dur (rb, eb), ==, weft_event_dur (rc, ec));
          n_other++;
        }
    }
  g_assert_cmpuint (n_gemm, >, 20);
  g_assert_cmpuint (n_other, >, 20);
}

/* HSDP: FSDP shards inside a replica, then the reduced shard is
 * all-reduced across replicas, after its reduce-scatter. */
static void
test_hsdp (void)
{
  WeftComposeParams p;
  g_autoptr (WeftTrace) trace = NULL;

  params (&p, "fsdp", 8, 1, 1, 1, 2);
  p.dp_replicate = 2;
  /* 2 shard groups of 4 x (6 all-gathers, 4 reduce-scatters, grad-norm
   * all-reduce) + 4 replica pairs x 4 all-reduces */
  check_loader (&p, 2 * 11 + 4 * 4);
  trace = compose_trace (&p);
  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);
      GArray *rs_end = g_array_new (FALSE, FALSE, sizeof (gint64));
      guint n_ar = 0;

      for (guint k = 0; k < rank->collectives->len; k++)
        {
          WeftCollective *c = &g_array_index (rank->collectives, WeftCollective, k);
          WeftEvent *ev = weft_rank_event (rank, c->event);
          if (c->type == WEFT_COLL_REDUCE_SCATTER)
            {
              gint64 e = weft_event_end (rank, ev);
              g_assert_cmpint (c->group_size, ==, 4);
              g_array_append_val (rs_end, e);
            }
          else if (c->type == WEFT_COLL_ALL_REDUCE && c->group_size == 2)
            {
              g_assert_cmpuint (n_ar, <, rs_end->len);
              g_assert_cmpint (ev->ts, >=, g_array_index (rs_end, gint64, n_ar));
              g_assert_cmpint (c->pg_ranks[1] - c->pg_ranks[0], ==, 4);
              n_ar++;
            }
        }
      g_assert_cmpuint (n_ar, ==, rs_end->len);
      g_array_unref (rs_end);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/compose/loader/fsdp", test_loader_fsdp);
  g_test_add_func ("/compose/loader/strategies", test_loader_strategies);
  g_test_add_func ("/compose/ddp", test_ddp);
  g_test_add_func ("/compose/fsdp/prefetch", test_fsdp_prefetch);
  g_test_add_func ("/compose/fsdp/no-prefetch", test_fsdp_no_prefetch);
  g_test_add_func ("/compose/fsdp/no-reshard", test_fsdp_no_reshard);
  g_test_add_func ("/compose/fsdp/hsdp", test_hsdp);
  g_test_add_func ("/compose/tp", test_tp);
  g_test_add_func ("/compose/tp-sp", test_tp_sp);
  g_test_add_func ("/compose/ep", test_ep);
  g_test_add_func ("/compose/ep-overlap", test_ep_overlap);
  g_test_add_func ("/compose/cp-ring", test_cp_ring);
  g_test_add_func ("/compose/cp-allgather", test_cp_allgather);
  g_test_add_func ("/compose/replay", test_replay);
  g_test_add_func ("/compose/deterministic", test_deterministic);
  g_test_add_func ("/compose/steps-and-files", test_steps_and_files);
  g_test_add_func ("/compose/invalid", test_invalid);
  g_test_add_func ("/compose/strategy-names", test_strategy_names);
  g_test_add_func ("/compose/calibrate/roundtrip", test_calibrate_roundtrip);
  g_test_add_func ("/compose/calibrate/real", test_calibrate_real);
  g_test_add_func ("/compose/calibrate/kernel-times", test_kernel_times);
  g_test_add_func ("/compose/64-ranks", test_64_ranks);
  g_test_add_func ("/compose/params-roundtrip", test_params_roundtrip);
  g_test_add_func ("/compose/samples-fresh", test_samples_fresh);
  g_test_add_func ("/compose/samples-consistent", test_samples_consistent);
  g_test_add_func ("/compose/variants-consistent", test_variants_consistent);
  g_test_add_func ("/compose/cli", test_cli);
  g_test_add_func ("/compose/random-configs", test_random_configs);
  g_test_add_func ("/compose/params-json-bad", test_params_json_bad);
  return g_test_run ();
}
