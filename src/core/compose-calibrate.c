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
  double secs = k->dur / 1e9;
  int cls = -1;
  double work = 0;

  if (k->dur <= 0)
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

gboolean
weft_compose_calibrate (WeftComposeParams *params, WeftTrace *profile, GError **error)
{
  Acc acc = { { 0 } };
  double eff[3];

  for (guint ri = 0; ri < profile->ranks->len; ri++)
    {
      WeftRank *rank = weft_trace_rank (profile, ri);
      g_autoptr (GHashTable) ops = g_hash_table_new (g_int64_hash, g_int64_equal);
      GArray *ids = g_array_new (FALSE, FALSE, sizeof (gint64));

      g_array_set_size (ids, rank->events->len);
      /* innermost cpu_op per External id: the last one in file order that is
       * not record_function wrapper text */
      for (guint i = 0; i < rank->events->len; i++)
        {
          WeftEvent *ev = weft_rank_event (rank, i);
          g_array_index (ids, gint64, i) = ev->external_id;
          if (ev->category == WEFT_CAT_CPU_OP && ev->ph == WEFT_PH_X && ev->external_id >= 0)
            g_hash_table_insert (ops, &g_array_index (ids, gint64, i), GUINT_TO_POINTER (i + 1));
        }
      for (guint i = 0; i < rank->events->len; i++)
        {
          WeftEvent *ev = weft_rank_event (rank, i);
          gpointer v;
          if (ev->category != WEFT_CAT_KERNEL || ev->ph != WEFT_PH_X || ev->external_id < 0
              || (ev->flags & WEFT_EVENT_DELETED))
            continue;
          v = g_hash_table_lookup (ops, &ev->external_id);
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
