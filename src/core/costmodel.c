/* costmodel.c: t = alpha + S f(n) / busBW, with defaults per fabric and
 * least-squares fits from a loaded trace's collective instances. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "weft/weft-costmodel.h"

/* Hardware figures; origin in docs/composer.md ("Hardware presets").
 * Peak dense BF16: H100 SXM 989 TFLOP/s, H200 SXM 989 TFLOP/s (NVIDIA
 * datasheets). HBM: H100 SXM 3.35 TB/s (80 GB HBM3), H200 4.8 TB/s (141 GB
 * HBM3e). NVLink 4: 900 GB/s bidirectional per GPU = 450 GB/s each way;
 * nccl-tests all-reduce busBW on 8x H100 SXM reaches ~360-480 GB/s for large
 * messages: we use 360 GB/s (ring, no NVLS). InfiniBand: one 400 Gb/s NDR
 * ConnectX-7 per GPU = 50 GB/s; busBW ~ 45 GB/s. Latencies: NCCL LL/ring
 * small-message latency ~ 8 us in a node, ~ 20 us across nodes.
 * h100-hbm2e-500w: torchtitan's Grand Teton H100 (benchmarks/
 * llama3_h100_202412_torchtitan.md): 96 GB HBM2e at 2.4 TB/s, 500 W; its
 * peak "is between SXM and NVL" (footnote 2): the midpoint of 989 (SXM)
 * and 835 (NVL datasheet) TFLOP/s; NVLink hosts, 400 Gb/s RDMA per GPU. */
static const WeftHardware hw_presets[] = {
  { "h100", "NVIDIA H100 80GB HBM3", 989e12, 3.35e12, 85520809984LL, 360.0, 8000, 45.0, 20000, 8, 132 },
  { "h100-hbm2e-500w", "NVIDIA H100", 912e12, 2.4e12, 103079215104LL, 360.0, 8000, 45.0, 20000, 8, 132 },
  { "h200", "NVIDIA H200", 989e12, 4.8e12, 150754820096LL, 360.0, 8000, 45.0, 20000, 8, 132 },
};

static const char *hw_names[] = { "h100", "h100-hbm2e-500w", "h200", NULL };

const WeftHardware *
weft_hardware_preset (const char *name)
{
  if (name == NULL)
    return NULL;
  for (guint i = 0; i < G_N_ELEMENTS (hw_presets); i++)
    if (g_ascii_strcasecmp (hw_presets[i].name, name) == 0)
      return &hw_presets[i];
  return NULL;
}

const char * const *
weft_hardware_preset_names (void)
{
  return hw_names;
}

double
weft_coll_bus_factor (WeftCollType type, int n)
{
  if (n < 1)
    n = 1;
  switch (type)
    {
    case WEFT_COLL_ALL_REDUCE:
      return 2.0 * (n - 1) / n;
    case WEFT_COLL_ALL_GATHER:
    case WEFT_COLL_REDUCE_SCATTER:
    case WEFT_COLL_ALL_TO_ALL:
      return (double) (n - 1) / n;
    case WEFT_COLL_SEND:
    case WEFT_COLL_RECV:
    case WEFT_COLL_SEND_RECV:
      return 1.0;
    case WEFT_COLL_BROADCAST:
    case WEFT_COLL_REDUCE:
      return 1.0;
    case WEFT_COLL_BARRIER:
    case WEFT_COLL_EP_NOTIFY:
      return 0.0;
    default:
      return 1.0;
    }
}

struct _WeftCostModel
{
  WeftHardware hw;
  GArray      *fits;      /* WeftCostFit */
  GHashTable  *by_group;  /* "type|group_key" -> index + 1 */
  GHashTable  *by_size;   /* "type|fabric|size" -> index + 1 */
  GHashTable  *by_fabric; /* "type|fabric" -> index + 1 */
  WeftCostFit  defaults[WEFT_FABRIC_N];
};

static void
fit_clear (gpointer data)
{
  WeftCostFit *fit = data;
  g_clear_pointer (&fit->group_key, g_free);
}

WeftCostModel *
weft_cost_model_new (const WeftHardware *hw)
{
  WeftCostModel *self = g_new0 (WeftCostModel, 1);

  self->hw = hw != NULL ? *hw : hw_presets[0];
  if (self->hw.gpus_per_node < 1)
    self->hw.gpus_per_node = 1;
  self->fits = g_array_new (FALSE, TRUE, sizeof (WeftCostFit));
  g_array_set_clear_func (self->fits, fit_clear);
  self->by_group = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->by_size = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->by_fabric = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->defaults[WEFT_FABRIC_NVLINK].fabric = WEFT_FABRIC_NVLINK;
  self->defaults[WEFT_FABRIC_NVLINK].alpha_ns = self->hw.nvlink_alpha_ns;
  self->defaults[WEFT_FABRIC_NVLINK].bus_bw = self->hw.nvlink_bus_bw;
  self->defaults[WEFT_FABRIC_IB].fabric = WEFT_FABRIC_IB;
  self->defaults[WEFT_FABRIC_IB].alpha_ns = self->hw.ib_alpha_ns;
  self->defaults[WEFT_FABRIC_IB].bus_bw = self->hw.ib_bus_bw;
  return self;
}

void
weft_cost_model_free (WeftCostModel *self)
{
  if (self == NULL)
    return;
  g_array_unref (self->fits);
  g_hash_table_unref (self->by_group);
  g_hash_table_unref (self->by_size);
  g_hash_table_unref (self->by_fabric);
  g_free (self);
}

const WeftHardware *
weft_cost_model_get_hardware (const WeftCostModel *self)
{
  return &self->hw;
}

const GArray *
weft_cost_model_get_fits (const WeftCostModel *self)
{
  return self->fits;
}

WeftFabric
weft_cost_model_fabric (const WeftCostModel *self, const int *ranks, guint n_ranks)
{
  int node;

  if (ranks == NULL || n_ranks == 0)
    return (int) n_ranks <= self->hw.gpus_per_node ? WEFT_FABRIC_NVLINK : WEFT_FABRIC_IB;
  node = ranks[0] / self->hw.gpus_per_node;
  for (guint i = 1; i < n_ranks; i++)
    if (ranks[i] / self->hw.gpus_per_node != node)
      return WEFT_FABRIC_IB;
  return WEFT_FABRIC_NVLINK;
}

static gint64
predict (const WeftCostFit *fit, WeftCollType type, gint64 bytes, int n)
{
  double x;
  double t;

  if (bytes < 0)
    bytes = 0;
  x = (double) bytes * weft_coll_bus_factor (type, n);
  t = (double) fit->alpha_ns + (fit->bus_bw > 0 ? x / fit->bus_bw : 0.0);
  if (t > 1e15)
    t = 1e15;
  return (gint64) llround (t);
}

static char *
group_key_for (const char *pg_name, const int *ranks, guint n_ranks)
{
  GString *s = g_string_new (pg_name != NULL ? pg_name : "");

  g_string_append_c (s, '|');
  for (guint i = 0; i < n_ranks; i++)
    g_string_append_printf (s, i > 0 ? ",%d" : "%d", ranks[i]);
  return g_string_free (s, FALSE);
}

static const WeftCostFit *
lookup (const WeftCostModel *self, WeftCollType type, const char *group_key, WeftFabric fabric, int n)
{
  gpointer v;
  char key[64];

  if (group_key != NULL)
    {
      g_autofree char *k = g_strdup_printf ("%d|%s", (int) type, group_key);
      v = g_hash_table_lookup (self->by_group, k);
      if (v != NULL)
        return &g_array_index (self->fits, WeftCostFit, GPOINTER_TO_UINT (v) - 1);
    }
  g_snprintf (key, sizeof key, "%d|%d|%d", (int) type, (int) fabric, n);
  v = g_hash_table_lookup (self->by_size, key);
  if (v != NULL)
    return &g_array_index (self->fits, WeftCostFit, GPOINTER_TO_UINT (v) - 1);
  g_snprintf (key, sizeof key, "%d|%d", (int) type, (int) fabric);
  v = g_hash_table_lookup (self->by_fabric, key);
  if (v != NULL)
    return &g_array_index (self->fits, WeftCostFit, GPOINTER_TO_UINT (v) - 1);
  return &self->defaults[fabric];
}

gint64
weft_cost_model_estimate_group (const WeftCostModel *self,
                                WeftCollType         type,
                                gint64               bytes,
                                const char          *pg_name,
                                const int           *ranks,
                                guint                n_ranks,
                                const WeftCostFit  **fit_out)
{
  WeftFabric fabric = weft_cost_model_fabric (self, ranks, n_ranks);
  g_autofree char *gk = NULL;
  const WeftCostFit *fit;
  int n = n_ranks > 0 ? (int) n_ranks : 1;

  if (pg_name != NULL && ranks != NULL)
    gk = group_key_for (pg_name, ranks, n_ranks);
  fit = lookup (self, type, gk, fabric, n);
  if (fit_out != NULL)
    *fit_out = fit;
  if (n <= 1 && type != WEFT_COLL_SEND && type != WEFT_COLL_RECV && type != WEFT_COLL_SEND_RECV)
    return fit->alpha_ns / 4; /* a collective on one rank is a local copy */
  return predict (fit, type, bytes, n);
}

gint64
weft_cost_model_estimate (const WeftCostModel *self,
                          WeftCollType         type,
                          gint64               bytes,
                          const int           *ranks,
                          guint                n_ranks,
                          const WeftCostFit  **fit_out)
{
  return weft_cost_model_estimate_group (self, type, bytes, NULL, ranks, n_ranks, fit_out);
}

gint64
weft_cost_model_predict_sample (const WeftCostModel *self, const WeftCostSample *sample)
{
  WeftFabric fabric = sample->group_size <= self->hw.gpus_per_node ? WEFT_FABRIC_NVLINK : WEFT_FABRIC_IB;
  const WeftCostFit *fit = lookup (self, sample->type, sample->group_key, fabric, sample->group_size);

  return predict (fit, sample->type, sample->bytes, sample->group_size);
}

/* ---- samples ------------------------------------------------------------------ */

static char *
coll_group_key (WeftRank *rank, const WeftCollective *c, int group_size)
{
  const char *pg = c->pg_name != 0 ? weft_rank_string (rank, c->pg_name) : "";

  if (c->pg_ranks != NULL && c->n_pg_ranks > 0)
    return group_key_for (pg, c->pg_ranks, c->n_pg_ranks);
  return g_strdup_printf ("%s|n=%d", pg, group_size);
}

static int
coll_group_size (const WeftCollective *c, int world)
{
  if (c->group_size > 0)
    return c->group_size;
  if (c->n_pg_ranks > 0)
    return (int) c->n_pg_ranks;
  return world;
}

static gboolean
sample_usable (const WeftCollective *c)
{
  return c->type != WEFT_COLL_NONE && c->type != WEFT_COLL_UNKNOWN && c->type != WEFT_COLL_BARRIER
         && c->type != WEFT_COLL_EP_NOTIFY && c->bytes >= 0;
}

static void
sample_clear (gpointer data)
{
  WeftCostSample *s = data;
  g_clear_pointer (&s->group_key, g_free);
}

GArray *
weft_cost_samples_collect (WeftTrace *trace)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (WeftCostSample));

  g_array_set_clear_func (out, sample_clear);
  if (trace == NULL)
    return out;

  for (guint i = 0; trace->instances != NULL && i < trace->instances->len; i++)
    {
      WeftCollInstance *inst = &g_array_index (trace->instances, WeftCollInstance, i);
      gint64 latest_start = G_MININT64;
      gint64 end = G_MININT64;
      WeftCostSample s = { 0 };
      WeftInstanceMember *m0;
      WeftRank *r0;
      WeftCollective *c0;

      if (inst->members == NULL || inst->members->len == 0)
        continue;
      m0 = &g_array_index (inst->members, WeftInstanceMember, 0);
      r0 = weft_trace_rank (trace, m0->rank_index);
      c0 = &g_array_index (r0->collectives, WeftCollective, m0->coll);
      if (!sample_usable (c0))
        continue;
      for (guint k = 0; k < inst->members->len; k++)
        {
          WeftInstanceMember *m = &g_array_index (inst->members, WeftInstanceMember, k);
          WeftRank *r = weft_trace_rank (trace, m->rank_index);
          WeftCollective *c = &g_array_index (r->collectives, WeftCollective, m->coll);
          WeftEvent *ev = weft_rank_event (r, c->event);
          gint64 off = weft_trace_rank_offset (trace, r);

          latest_start = MAX (latest_start, ev->ts + off);
          end = MAX (end, ev->ts + weft_event_dur (r, ev) + off);
        }
      s.type = c0->type;
      s.group_size = coll_group_size (c0, (int) inst->members->len);
      s.bytes = c0->bytes;
      s.observed_ns = MAX (end - latest_start, 0);
      s.instance = i;
      s.rank_index = m0->rank_index;
      s.coll = m0->coll;
      s.group_key = coll_group_key (r0, c0, s.group_size);
      g_array_append_val (out, s);
    }

  for (guint ri = 0; ri < trace->ranks->len; ri++)
    {
      WeftRank *r = weft_trace_rank (trace, ri);

      for (guint ci = 0; r->collectives != NULL && ci < r->collectives->len; ci++)
        {
          WeftCollective *c = &g_array_index (r->collectives, WeftCollective, ci);
          WeftEvent *ev;
          WeftCostSample s = { 0 };

          if (c->instance != WEFT_NONE || !sample_usable (c) || c->event == WEFT_NONE)
            continue;
          ev = weft_rank_event (r, c->event);
          if (ev->flags & WEFT_EVENT_DELETED)
            continue;
          s.type = c->type;
          s.group_size = coll_group_size (c, r->world_size > 0 ? r->world_size : 1);
          s.bytes = c->bytes;
          s.observed_ns = MAX (weft_event_dur (r, ev), 0);
          s.instance = WEFT_NONE;
          s.rank_index = ri;
          s.coll = ci;
          s.group_key = coll_group_key (r, c, s.group_size);
          g_array_append_val (out, s);
        }
    }
  return out;
}

void
weft_cost_samples_free (GArray *samples)
{
  if (samples != NULL)
    g_array_unref (samples);
}

/* ---- fitting ------------------------------------------------------------------- */

/* Weighted least squares t = a + b x with weights 1/t^2 (relative errors:
 * collective times span orders of magnitude), a >= 0, b > 0, over the
 * samples sel[]. */
static void
fit_line (const WeftCostModel *self, GArray *samples, GArray *sel, WeftFabric fabric, WeftCostFit *fit)
{
  double sw = 0, sx = 0, st = 0, sxx = 0, sxt = 0;
  double a, b, den;
  double xmin = G_MAXDOUBLE, xmax = 0;

  for (guint i = 0; i < sel->len; i++)
    {
      WeftCostSample *s = &g_array_index (samples, WeftCostSample, g_array_index (sel, guint, i));
      double x = (double) s->bytes * weft_coll_bus_factor (s->type, s->group_size);
      double t = (double) MAX (s->observed_ns, 1);
      double w = 1.0 / (t * t);

      sw += w;
      sx += w * x;
      st += w * t;
      sxx += w * x * x;
      sxt += w * x * t;
      xmin = MIN (xmin, x);
      xmax = MAX (xmax, x);
    }
  den = sw * sxx - sx * sx;
  b = 0;
  a = 0;
  /* Bandwidth is only measurable from samples of different sizes */
  if (sel->len >= 2 && xmax > xmin * 1.05 && den > 0)
    {
      b = (sw * sxt - sx * st) / den;
      a = (st - b * sx) / sw;
      if (a < 0)
        {
          a = 0;
          b = sxx > 0 ? sxt / sxx : 0;
        }
    }
  /* Otherwise, or when the slope says nothing (not positive, a bandwidth
   * outside 1/200..20x the fabric's default, or a transfer term under 10 %
   * of the latency even for the largest sample: noise), keep the fabric's
   * default busBW and fit the latency alone: weighted mean of t - x/busBW. */
  if (b <= 0 || 1.0 / b > 20.0 * self->defaults[fabric].bus_bw || 1.0 / b < self->defaults[fabric].bus_bw / 200.0
      || b * xmax < 0.1 * a)
    {
      b = 1.0 / self->defaults[fabric].bus_bw;
      a = sw > 0 ? (st - b * sx) / sw : 0;
      if (a < 0)
        a = 0;
    }
  fit->alpha_ns = (gint64) llround (a);
  fit->bus_bw = 1.0 / b;
  fit->n_samples = sel->len;

  {
    double sum_err = 0, max_err = 0, sum_pred = 0, sum_obs = 0;
    for (guint i = 0; i < sel->len; i++)
      {
        WeftCostSample *s = &g_array_index (samples, WeftCostSample, g_array_index (sel, guint, i));
        double p = (double) predict (fit, s->type, s->bytes, s->group_size);
        double o = (double) MAX (s->observed_ns, 1);
        double e = fabs (p - o) / o;

        sum_err += e;
        max_err = MAX (max_err, e);
        sum_pred += p;
        sum_obs += o;
      }
    fit->mean_rel_error = sel->len > 0 ? sum_err / sel->len : 0;
    fit->max_rel_error = max_err;
    fit->total_rel_error = sum_obs > 0 ? fabs (sum_pred - sum_obs) / sum_obs : 0;
  }
}

static guint
add_fits (WeftCostModel *self, GArray *samples, GHashTable *table, int level)
{
  /* level 0: per group; 1: per (type, fabric, size); 2: per (type, fabric) */
  g_autoptr (GHashTable) groups = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                          (GDestroyNotify) g_array_unref);
  g_autoptr (GList) keys = NULL;
  guint added = 0;

  for (guint i = 0; i < samples->len; i++)
    {
      WeftCostSample *s = &g_array_index (samples, WeftCostSample, i);
      WeftFabric fabric = s->group_size <= self->hw.gpus_per_node ? WEFT_FABRIC_NVLINK : WEFT_FABRIC_IB;
      char *key;
      GArray *sel;

      if (level == 0)
        key = g_strdup_printf ("%d|%s", (int) s->type, s->group_key);
      else if (level == 1)
        key = g_strdup_printf ("%d|%d|%d", (int) s->type, (int) fabric, s->group_size);
      else
        key = g_strdup_printf ("%d|%d", (int) s->type, (int) fabric);
      sel = g_hash_table_lookup (groups, key);
      if (sel == NULL)
        {
          sel = g_array_new (FALSE, FALSE, sizeof (guint));
          g_hash_table_insert (groups, key, sel);
        }
      else
        g_free (key);
      g_array_append_val (sel, i);
    }

  keys = g_hash_table_get_keys (groups);
  keys = g_list_sort (keys, (GCompareFunc) strcmp);
  for (GList *l = keys; l != NULL; l = l->next)
    {
      GArray *sel = g_hash_table_lookup (groups, l->data);
      WeftCostSample *s0 = &g_array_index (samples, WeftCostSample, g_array_index (sel, guint, 0));
      WeftCostFit fit = { 0 };
      WeftFabric fabric = s0->group_size <= self->hw.gpus_per_node ? WEFT_FABRIC_NVLINK : WEFT_FABRIC_IB;

      fit.type = s0->type;
      fit.fabric = fabric;
      fit.group_size = level < 2 ? s0->group_size : 0;
      fit.group_key = level == 0 ? g_strdup (s0->group_key) : NULL;
      fit_line (self, samples, sel, fabric, &fit);
      g_array_append_val (self->fits, fit);
      g_hash_table_replace (table, g_strdup (l->data), GUINT_TO_POINTER (self->fits->len));
      added++;
    }
  return added;
}

guint
weft_cost_model_fit_trace (WeftCostModel *self, WeftTrace *trace)
{
  g_autoptr (GArray) samples = weft_cost_samples_collect (trace);
  guint n;

  g_array_set_size (self->fits, 0);
  g_hash_table_remove_all (self->by_group);
  g_hash_table_remove_all (self->by_size);
  g_hash_table_remove_all (self->by_fabric);
  if (samples->len == 0)
    return 0;
  n = add_fits (self, samples, self->by_group, 0);
  add_fits (self, samples, self->by_size, 1);
  add_fits (self, samples, self->by_fabric, 2);
  return n;
}
