/* palette.c: the palette, a query over a trace: its kernels grouped by name
 * and its collectives by (type, process group), each with its measured
 * statistics (weft-edit.h, docs/editing.md "Palette"). The session's
 * palette (weft_edit_session_palette_collectives) times the collectives with the
 * session's cost model. Reads only the model: no solver, no session state. */
#include "config.h"

#include <string.h>

#include "weft/weft-edit.h"

#include "util-private.h"

/* ---- kernels ------------------------------------------------------------------------------- */

typedef struct
{
  WeftPaletteKernel *k;
  GArray            *durs;
} KernelAcc;

static void
palette_kernel_free (gpointer data)
{
  WeftPaletteKernel *k = data;
  g_free (k->name);
  g_free (k);
}

static int
cmp_palette_kernel (gconstpointer a, gconstpointer b)
{
  const WeftPaletteKernel *x = *(WeftPaletteKernel * const *) a;
  const WeftPaletteKernel *y = *(WeftPaletteKernel * const *) b;
  if (x->kclass != y->kclass)
    return (int) x->kclass - (int) y->kclass;
  if (x->count != y->count)
    return x->count > y->count ? -1 : 1;
  return strcmp (x->name, y->name);
}

GPtrArray *
weft_trace_palette_kernels (WeftTrace *trace)
{
  g_return_val_if_fail (trace != NULL, NULL);

  g_autoptr (GHashTable) by_name = g_hash_table_new (g_str_hash, g_str_equal);
  GPtrArray *out = g_ptr_array_new_with_free_func (palette_kernel_free);
  GHashTableIter iter;
  gpointer value;
  GPtrArray *accs = g_ptr_array_new ();

  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);
      for (guint32 e = 0; e < rank->events->len; e++)
        {
          WeftEvent *ev = weft_rank_event (rank, e);
          const char *name;
          KernelAcc *acc;
          if (!(ev->flags & WEFT_EVENT_GPU_OP) || (ev->flags & WEFT_EVENT_DELETED) ||
              ev->kclass == WEFT_KCLASS_COMM || weft_event_coll (rank, ev) != WEFT_NONE)
            continue;
          name = weft_rank_string (rank, ev->name);
          acc = g_hash_table_lookup (by_name, name);
          if (acc == NULL)
            {
              acc = g_new0 (KernelAcc, 1);
              acc->k = g_new0 (WeftPaletteKernel, 1);
              acc->k->name = g_strdup (name);
              acc->k->kclass = (WeftKernelClass) ev->kclass;
              acc->k->category = (WeftCategory) ev->category;
              acc->k->example.rank_index = r;
              acc->k->example.event = e;
              acc->k->min_dur = G_MAXINT64;
              acc->durs = g_array_new (FALSE, FALSE, sizeof (gint64));
              g_hash_table_insert (by_name, acc->k->name, acc);
              g_ptr_array_add (accs, acc);
            }
          acc->k->count++;
          gint64 dur = weft_event_dur (rank, ev);
          acc->k->min_dur = MIN (acc->k->min_dur, dur);
          acc->k->max_dur = MAX (acc->k->max_dur, dur);
          g_array_append_val (acc->durs, dur);
        }
    }
  g_hash_table_iter_init (&iter, by_name);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      KernelAcc *acc = value;
      acc->k->median_dur = _weft_gint64_median_or (acc->durs, -1);
      g_array_free (acc->durs, TRUE);
      g_ptr_array_add (out, acc->k);
      g_free (acc);
    }
  g_ptr_array_free (accs, TRUE);
  g_ptr_array_sort (out, cmp_palette_kernel);
  return out;
}

typedef struct
{
  WeftPaletteCollective *c;
  GArray                *bytes;
} CollAcc;

static void
palette_coll_free (gpointer data)
{
  WeftPaletteCollective *c = data;
  g_free (c->pg_name);
  g_free (c->pg_desc);
  g_free (c->ranks);
  g_free (c->dtype);
  g_free (c);
}

static int
cmp_palette_coll (gconstpointer a, gconstpointer b)
{
  const WeftPaletteCollective *x = *(WeftPaletteCollective * const *) a;
  const WeftPaletteCollective *y = *(WeftPaletteCollective * const *) b;
  if (x->type != y->type)
    return (int) x->type - (int) y->type;
  if (x->count != y->count)
    return x->count > y->count ? -1 : 1;
  return g_strcmp0 (x->pg_name, y->pg_name);
}

/* The key of a collective's kind: type, group name, group ranks (or the
 * ranks of its instance). */
static char *
coll_key (WeftTrace *trace, WeftRank *rank, const WeftCollective *coll)
{
  GString *key = g_string_new (weft_coll_type_to_string (coll->type));

  g_string_append_printf (key, "|%s|", coll->pg_name ? weft_rank_string (rank, coll->pg_name) : "");
  if (coll->pg_ranks != NULL)
    for (guint i = 0; i < coll->n_pg_ranks; i++)
      g_string_append_printf (key, "%d,", coll->pg_ranks[i]);
  else if (coll->instance != WEFT_NONE && coll->instance < trace->instances->len)
    {
      WeftCollInstance *inst = &g_array_index (trace->instances, WeftCollInstance, coll->instance);
      for (guint i = 0; i < inst->members->len; i++)
        g_string_append_printf (
          key, "r%d,",
          weft_trace_rank (trace, g_array_index (inst->members, WeftInstanceMember, i).rank_index)->rank);
    }
  return g_string_free (key, FALSE);
}

/* A new palette entry for the kind of coll (event ev of rank). */
static WeftPaletteCollective *
palette_coll_new (WeftTrace *trace, WeftRank *rank, const WeftCollective *coll, const WeftEvent *ev)
{
  WeftPaletteCollective *pc = g_new0 (WeftPaletteCollective, 1);

  pc->type = coll->type;
  pc->pg_name = coll->pg_name ? g_strdup (weft_rank_string (rank, coll->pg_name)) : NULL;
  pc->pg_desc = coll->pg_desc ? g_strdup (weft_rank_string (rank, coll->pg_desc)) : NULL;
  pc->dtype = coll->dtype ? g_strdup (weft_rank_string (rank, coll->dtype)) : NULL;
  if (coll->pg_ranks != NULL && coll->n_pg_ranks > 0)
    {
      pc->n_ranks = coll->n_pg_ranks;
      pc->ranks = g_memdup2 (coll->pg_ranks, sizeof (int) * coll->n_pg_ranks);
    }
  else if (coll->instance != WEFT_NONE && coll->instance < trace->instances->len)
    {
      WeftCollInstance *inst = &g_array_index (trace->instances, WeftCollInstance, coll->instance);
      pc->n_ranks = inst->members->len;
      pc->ranks = g_new0 (int, MAX (pc->n_ranks, 1));
      for (guint i = 0; i < inst->members->len; i++)
        pc->ranks[i] = weft_trace_rank (
                         trace, g_array_index (inst->members, WeftInstanceMember, i).rank_index)
                         ->rank;
    }
  else
    {
      pc->n_ranks = 1;
      pc->ranks = g_new0 (int, 1);
      pc->ranks[0] = rank->rank;
    }
  pc->stream = ev->lane != WEFT_NONE ? weft_rank_lane (rank, ev->lane)->tid : -1;
  return pc;
}

/* A collective of rank index r that the palette counts: a live one of a
 * known type, and of an instance only its first member. */
static gboolean
palette_counts (WeftTrace *trace, WeftRank *rank, guint r, const WeftCollective *coll)
{
  if (coll->type == WEFT_COLL_NONE || coll->event >= rank->events->len)
    return FALSE;
  if (weft_rank_event (rank, coll->event)->flags & WEFT_EVENT_DELETED)
    return FALSE;
  if (coll->instance != WEFT_NONE && coll->instance < trace->instances->len)
    {
      WeftCollInstance *inst = &g_array_index (trace->instances, WeftCollInstance, coll->instance);
      if (inst->members->len > 0 && g_array_index (inst->members, WeftInstanceMember, 0).rank_index != r)
        return FALSE;
    }
  return TRUE;
}

static void
estimate (WeftPaletteCollective *pc, WeftCostModel *cost_model)
{
  pc->estimate_ns = weft_cost_model_estimate_group (cost_model, pc->type, pc->median_bytes, pc->pg_name, pc->ranks,
                                                    pc->n_ranks, NULL);
}

GPtrArray *
weft_trace_palette_collectives (WeftTrace *trace, WeftCostModel *cost_model)
{
  g_autoptr (GHashTable) by_key = NULL;
  GPtrArray *out, *accs;

  g_return_val_if_fail (trace != NULL, NULL);

  by_key = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  out = g_ptr_array_new_with_free_func (palette_coll_free);
  accs = g_ptr_array_new ();
  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);
      for (guint c = 0; c < rank->collectives->len; c++)
        {
          WeftCollective *coll = &g_array_index (rank->collectives, WeftCollective, c);
          char *key;
          CollAcc *acc;

          if (!palette_counts (trace, rank, r, coll))
            continue;
          key = coll_key (trace, rank, coll);
          acc = g_hash_table_lookup (by_key, key);
          if (acc == NULL)
            {
              acc = g_new0 (CollAcc, 1);
              acc->c = palette_coll_new (trace, rank, coll, weft_rank_event (rank, coll->event));
              acc->bytes = g_array_new (FALSE, FALSE, sizeof (gint64));
              g_hash_table_insert (by_key, g_steal_pointer (&key), acc);
              g_ptr_array_add (accs, acc);
            }
          acc->c->count++;
          if (coll->bytes > 0)
            g_array_append_val (acc->bytes, coll->bytes);
          g_free (key);
        }
    }
  for (guint i = 0; i < accs->len; i++)
    {
      CollAcc *acc = g_ptr_array_index (accs, i);
      WeftPaletteCollective *pc = acc->c;
      pc->median_bytes = _weft_gint64_median_or (acc->bytes, -1);
      pc->estimate_ns = -1;
      if (pc->median_bytes > 0 && cost_model != NULL)
        estimate (pc, cost_model);
      g_array_free (acc->bytes, TRUE);
      g_ptr_array_add (out, pc);
      g_free (acc);
    }
  g_ptr_array_free (accs, TRUE);
  g_ptr_array_sort (out, cmp_palette_coll);
  return out;
}

GPtrArray *
weft_edit_session_palette_collectives (WeftEditSession *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  GPtrArray *out = weft_trace_palette_collectives (weft_edit_session_get_trace (self), NULL);

  /* the session's cost model is fitted on first use: only when a
   * collective has a payload to time */
  for (guint i = 0; i < out->len; i++)
    {
      WeftPaletteCollective *pc = g_ptr_array_index (out, i);
      if (pc->median_bytes > 0)
        estimate (pc, weft_edit_session_get_cost_model (self));
    }
  return out;
}
