/* compose-calibrate.c: achieved throughput per kernel class in a real
 * profile, as fractions of the hardware peak (params->eff).
 *
 * Work per kernel comes from the cpu_op that launched it (same External id,
 * recorded with record_shapes): aten::mm / addmm / bmm / matmul / linear
 * give GEMM FLOPs from "Input Dims"; scaled_dot_product / flash attention
 * give attention FLOPs (causal: half); norm / elementwise / copy kernels
 * give bytes (inputs read + one output written, 2 bytes per element when
 * the type is bf16/fp16, 4 otherwise). Efficiency = sum(work) / sum(kernel
 * time) / peak, per class. */
#include "config.h"

#include <string.h>

#include "weft/weft-compose.h"

#include "util-private.h"

static gboolean
dims_of (json_object *dims, int i, gint64 *out, int *n_out)
{
  json_object *d;
  int n;

  if (dims == NULL || !json_object_is_type (dims, json_type_array) || i >= (int) json_object_array_length (dims))
    return FALSE;
  d = json_object_array_get_idx (dims, i);
  if (!json_object_is_type (d, json_type_array))
    return FALSE;
  n = (int) json_object_array_length (d);
  if (n > 8)
    return FALSE;
  for (int k = 0; k < n; k++)
    out[k] = json_object_get_int64 (json_object_array_get_idx (d, k));
  *n_out = n;
  return TRUE;
}

static double
numel (const gint64 *d, int n)
{
  double v = 1;
  for (int k = 0; k < n; k++)
    v *= (double) MAX (d[k], 0);
  return v;
}

typedef struct
{
  double work[3];   /* gemm flops, attention flops, memory bytes */
  double time[3];   /* seconds */
  guint  n;
} Acc;

static void
measure_kernel (WeftRank *rank, WeftEvent *k, WeftEvent *op, Acc *acc)
{
  const char *opname = weft_rank_string (rank, op->name);
  json_object *args = NULL;
  json_object *dims = NULL;
  json_object *types = NULL;
  gint64 a[8], b[8];
  int na = 0, nb = 0;
  double secs = weft_event_dur (rank, k) / 1e9;
  int cls = -1;
  double work = 0;

  if (weft_event_dur (rank, k) <= 0)
    return;
  args = weft_event_parse_args (rank, op);
  if (args == NULL || !json_object_object_get_ex (args, "Input Dims", &dims))
    {
      if (args != NULL)
        json_object_put (args);
      return;
    }
  json_object_object_get_ex (args, "Input type", &types);

  if (k->kclass == WEFT_KCLASS_GEMM
      && (g_str_equal (opname, "aten::mm") || g_str_equal (opname, "aten::bmm") || g_str_equal (opname, "aten::addmm")
          || g_str_equal (opname, "aten::matmul")))
    {
      int off = g_str_equal (opname, "aten::addmm") ? 1 : 0;
      if (dims_of (dims, off, a, &na) && dims_of (dims, off + 1, b, &nb) && na >= 2 && nb >= 2)
        {
          double batch = na == 3 ? (double) a[0] : 1;
          work = 2.0 * batch * (double) a[na - 2] * (double) a[na - 1] * (double) b[nb - 1];
          cls = 0;
        }
    }
  else if (k->kclass == WEFT_KCLASS_ATTENTION && strstr (opname, "attention") != NULL
           && strstr (opname, "backward") == NULL && strstr (weft_rank_string (rank, k->name), "bwd") == NULL)
    {
      /* q, k: [B, H, S, D] (sdpa) */
      if (dims_of (dims, 0, a, &na) && dims_of (dims, 1, b, &nb) && na == 4 && nb == 4)
        {
          gboolean bshd = strstr (opname, "_flash_attention_forward") != NULL;
          double B = a[0], H = bshd ? a[2] : a[1], S = bshd ? a[1] : a[2], D = a[3];
          double Sk = bshd ? b[1] : b[2];
          work = 4.0 * B * H * S * Sk * D * 0.5;
          cls = 1;
        }
    }
  else if (k->kclass == WEFT_KCLASS_NORM || k->kclass == WEFT_KCLASS_ELEMENTWISE)
    {
      double elems = 0, biggest = 0;
      int esize = 4;
      if (types != NULL && json_object_is_type (types, json_type_array) && json_object_array_length (types) > 0)
        {
          const char *t = json_object_get_string (json_object_array_get_idx (types, 0));
          if (t != NULL && (strstr (t, "BFloat16") || strstr (t, "Half")))
            esize = 2;
        }
      for (int i = 0; dims_of (dims, i, a, &na); i++)
        {
          double e = na > 0 ? numel (a, na) : 0;
          elems += e;
          biggest = MAX (biggest, e);
        }
      if (elems > 0)
        {
          work = (elems + biggest) * esize;
          cls = 2;
        }
    }
  json_object_put (args);
  if (cls < 0 || work <= 0)
    return;
  acc->work[cls] += work;
  acc->time[cls] += secs;
  acc->n++;
}

/* Every cpu_op of rank (complete events) by External id into ops: the key
 * points into the returned array (every event's External id; keep it while
 * ops is read), the value is the event index + 1; the last in file order wins. */
static GArray *
index_cpu_ops (WeftRank *rank, GHashTable *ops)
{
  GArray *ids = g_array_sized_new (FALSE, FALSE, sizeof (gint64), rank->events->len);

  g_array_set_size (ids, rank->events->len);
  for (guint i = 0; i < rank->events->len; i++)
    {
      WeftEvent *ev = weft_rank_event (rank, i);
      g_array_index (ids, gint64, i) = weft_event_external_id (rank, ev);
      if (ev->category == WEFT_CAT_CPU_OP && ev->ph == WEFT_PH_X && g_array_index (ids, gint64, i) >= 0)
        g_hash_table_insert (ops, &g_array_index (ids, gint64, i), GUINT_TO_POINTER (i + 1));
    }
  return ids;
}

gboolean
weft_compose_calibrate (WeftComposeParams *params, WeftTrace *profile, GError **error)
{
  Acc acc = { { 0 } };
  double eff[3];

  for (guint ri = 0; ri < profile->ranks->len; ri++)
    {
      WeftRank *rank = weft_trace_rank (profile, ri);
      g_autoptr (GHashTable) ops = g_hash_table_new (g_int64_hash, g_int64_equal);
      /* innermost cpu_op per External id: the last one in file order that is
       * not record_function wrapper text */
      GArray *ids = index_cpu_ops (rank, ops);

      for (guint i = 0; i < rank->events->len; i++)
        {
          WeftEvent *ev = weft_rank_event (rank, i);
          gpointer v;
          if (ev->category != WEFT_CAT_KERNEL || ev->ph != WEFT_PH_X || weft_event_external_id (rank, ev) < 0
              || (ev->flags & WEFT_EVENT_DELETED))
            continue;
          v = g_hash_table_lookup (ops, &(gint64) { weft_event_external_id (rank, ev) });
          if (v == NULL)
            continue;
          measure_kernel (rank, ev, weft_rank_event (rank, GPOINTER_TO_UINT (v) - 1), &acc);
        }
      g_hash_table_unref (ops);
      ops = NULL;
      g_array_unref (ids);
    }
  if (acc.n == 0)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
                   "no kernel with a measurable launching op (record_shapes Input Dims on aten::mm / attention / "
                   "elementwise ops)");
      return FALSE;
    }
  eff[0] = acc.time[0] > 0 ? acc.work[0] / acc.time[0] / params->hw.peak_flops : 0;
  eff[1] = acc.time[1] > 0 ? acc.work[1] / acc.time[1] / params->hw.peak_flops : 0;
  eff[2] = acc.time[2] > 0 ? acc.work[2] / acc.time[2] / params->hw.hbm_bytes_per_s : 0;
  if (eff[0] > 0)
    params->eff.gemm = CLAMP (eff[0], 0.01, 1.0);
  if (eff[1] > 0)
    params->eff.attention = CLAMP (eff[1], 0.01, 1.0);
  if (eff[2] > 0)
    params->eff.memory = CLAMP (eff[2], 0.01, 1.0);
  params->eff.calibrated = TRUE;
  params->eff.calibrated_kernels = acc.n;
  return TRUE;
}

/* ---- measured durations per op shape ------------------------------------------------ */

struct _WeftKernelTimes
{
  GHashTable *medians;   /* "op|d0,d1;d0,d1" -> gint64* ns */
};

static void
key_append_dims (GString *key, const gint64 *const *dims, const int *n_dims, int n_inputs)
{
  for (int i = 0; i < n_inputs; i++)
    {
      if (i > 0)
        g_string_append_c (key, ';');
      for (int k = 0; k < n_dims[i]; k++)
        g_string_append_printf (key, k ? ",%" G_GINT64_FORMAT : "%" G_GINT64_FORMAT, dims[i][k]);
    }
}

static char *
key_from_args (const char *op, json_object *dims)
{
  GString *key = g_string_new (op);
  int n = (int) json_object_array_length (dims);

  g_string_append_c (key, '|');
  for (int i = 0; i < n && i < 16; i++)
    {
      json_object *d = json_object_array_get_idx (dims, i);
      int m;
      if (i > 0)
        g_string_append_c (key, ';');
      if (d == NULL || !json_object_is_type (d, json_type_array))
        continue;
      m = (int) json_object_array_length (d);
      for (int k = 0; k < m && k < 8; k++)
        g_string_append_printf (key, k ? ",%" G_GINT64_FORMAT : "%" G_GINT64_FORMAT,
                                json_object_get_int64 (json_object_array_get_idx (d, k)));
    }
  return g_string_free (key, FALSE);
}

WeftKernelTimes *
weft_kernel_times_new_from_trace (WeftTrace *profile, guint *n_shapes)
{
  WeftKernelTimes *self = g_new0 (WeftKernelTimes, 1);
  g_autoptr (GHashTable) samples = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_array_unref);
  GHashTableIter it;
  gpointer k, v;

  self->medians = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (guint ri = 0; profile != NULL && ri < profile->ranks->len; ri++)
    {
      WeftRank *rank = weft_trace_rank (profile, ri);
      g_autoptr (GHashTable) ops = g_hash_table_new (g_int64_hash, g_int64_equal);
      g_autoptr (GHashTable) sums = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
      GArray *ids = index_cpu_ops (rank, ops);
      /* per launching op: the sum of its kernels */
      for (guint i = 0; i < rank->events->len; i++)
        {
          WeftEvent *ev = weft_rank_event (rank, i);
          gpointer opi;
          gint64 *sum;
          if (ev->category != WEFT_CAT_KERNEL || ev->ph != WEFT_PH_X || weft_event_external_id (rank, ev) < 0
              || ev->kclass == WEFT_KCLASS_COMM || (ev->flags & WEFT_EVENT_DELETED) || weft_event_dur (rank, ev) <= 0)
            continue;
          opi = g_hash_table_lookup (ops, &(gint64) { weft_event_external_id (rank, ev) });
          if (opi == NULL)
            continue;
          sum = g_hash_table_lookup (sums, opi);
          if (sum == NULL)
            {
              sum = g_new0 (gint64, 1);
              g_hash_table_insert (sums, opi, sum);
            }
          *sum += weft_event_dur (rank, ev);
        }
      g_hash_table_iter_init (&it, sums);
      while (g_hash_table_iter_next (&it, &k, &v))
        {
          WeftEvent *op = weft_rank_event (rank, GPOINTER_TO_UINT (k) - 1);
          json_object *args = weft_event_parse_args (rank, op);
          json_object *dims;
          if (args != NULL && json_object_object_get_ex (args, "Input Dims", &dims)
              && json_object_is_type (dims, json_type_array))
            {
              char *key = key_from_args (weft_rank_string (rank, op->name), dims);
              GArray *arr = g_hash_table_lookup (samples, key);
              if (arr == NULL)
                {
                  arr = g_array_new (FALSE, FALSE, sizeof (gint64));
                  g_hash_table_insert (samples, key, arr);
                }
              else
                g_free (key);
              g_array_append_val (arr, *(gint64 *) v);
            }
          if (args != NULL)
            json_object_put (args);
        }
      g_array_unref (ids);
    }
  g_hash_table_iter_init (&it, samples);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      GArray *arr = v;
      gint64 *med = g_new (gint64, 1);
      *med = _weft_gint64_median_or (arr, 0); /* never empty */
      g_hash_table_insert (self->medians, g_strdup (k), med);
    }
  if (n_shapes != NULL)
    *n_shapes = g_hash_table_size (self->medians);
  return self;
}

void
weft_kernel_times_free (WeftKernelTimes *self)
{
  if (self == NULL)
    return;
  g_hash_table_unref (self->medians);
  g_free (self);
}

gint64
weft_kernel_times_lookup (const WeftKernelTimes *self, const char *op, const gint64 *const *dims, const int *n_dims,
                          int n_inputs)
{
  GString *key;
  gint64 *v;

  if (self == NULL)
    return -1;
  key = g_string_new (op);
  g_string_append_c (key, '|');
  key_append_dims (key, dims, n_dims, n_inputs);
  v = g_hash_table_lookup (self->medians, key->str);
  g_string_free (key, TRUE);
  return v != NULL ? *v : -1;
}
