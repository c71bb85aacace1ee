/* classify.c: per-rank classification (kernel classes from the name rules
 * of classify-names.c plus launch context), collectives, matching across
 * ranks, clock alignment. The rules and their reasons are in
 * docs/classification.md. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "weft/weft-classify.h"

#include "classify-args-private.h"
#include "util-private.h"

/* Saturating arithmetic: absurd timestamps in bad files must not overflow. */
static gint64
sat_add (gint64 a, gint64 b)
{
  gint64 r;
  if (__builtin_add_overflow (a, b, &r))
    return b > 0 ? G_MAXINT64 : G_MININT64;
  return r;
}

static gint64
sat_sub (gint64 a, gint64 b)
{
  gint64 r;
  if (__builtin_sub_overflow (a, b, &r))
    return b < 0 ? G_MAXINT64 : G_MININT64;
  return r;
}

/* End of an event without overflow. */
static gint64
safe_end (const WeftRank *rank, const WeftEvent *ev)
{
  return sat_add (ev->ts, weft_event_dur (rank, ev));
}

/* ---- collectives ------------------------------------------------------------- */

typedef struct
{
  gboolean ranks_truncated;
  gint64   rank_start;     /* "Global rank start", -1 */
  gint64   rank_stride;    /* "Global rank stride", -1 */
} CollExtra;

static void
coll_init (WeftCollective *c, guint32 event)
{
  memset (c, 0, sizeof *c);
  c->event = event;
  c->cpu_event = WEFT_NONE;
  c->type = WEFT_COLL_NONE;
  c->source = WEFT_COLL_SOURCE_KERNEL_NAME;
  c->in_nelems = -1;
  c->out_nelems = -1;
  c->bytes = -1;
  c->group_size = -1;
  c->seq = -1;
  c->src_rank = -1;
  c->dst_rank = -1;
  c->instance = WEFT_NONE;
}

static void
set_ranks (WeftCollective *c, const int *ranks, guint n)
{
  g_free (c->pg_ranks);
  c->pg_ranks = n > 0 ? g_memdup2 (ranks, n * sizeof (int)) : NULL;
  c->n_pg_ranks = n;
}

/* Fills the fields still unknown in c from a record_param_comms-style args
 * object (the kernel's own args or the cpu_op's; classify-args.c reads
 * them). Returns the type named by "Collective name" (WEFT_COLL_NONE when
 * absent). */
static WeftCollType
apply_comm_args (WeftRank *rank, WeftCollective *c, CollExtra *extra, const WeftCommArgs *a)
{
  const char *s;
  const gint64 *x = a->ints;
  WeftCollType type = WEFT_COLL_NONE;

  s = a->strs[WEFT_CA_COLL_NAME];
  if (s != NULL && *s != '\0')
    {
      type = weft_coll_type_from_collective_name (s);
      if (c->coll_name == 0)
        c->coll_name = weft_strings_intern (rank->strings, s, -1);
    }
  if (c->in_nelems < 0 && a->has_int[WEFT_CA_IN_NELEMS] && x[WEFT_CA_IN_NELEMS] >= 0)
    c->in_nelems = x[WEFT_CA_IN_NELEMS];
  if (c->out_nelems < 0 && a->has_int[WEFT_CA_OUT_NELEMS] && x[WEFT_CA_OUT_NELEMS] >= 0)
    c->out_nelems = x[WEFT_CA_OUT_NELEMS];
  if (c->group_size < 0 && a->has_int[WEFT_CA_GROUP_SIZE] && x[WEFT_CA_GROUP_SIZE] > 0 &&
      x[WEFT_CA_GROUP_SIZE] <= G_MAXINT)
    c->group_size = (int) x[WEFT_CA_GROUP_SIZE];
  if (c->dtype == 0 && (s = a->strs[WEFT_CA_DTYPE]) != NULL && *s != '\0')
    c->dtype = weft_strings_intern (rank->strings, s, -1);
  if (c->pg_name == 0 && (s = a->strs[WEFT_CA_PG_NAME]) != NULL && *s != '\0')
    c->pg_name = weft_strings_intern (rank->strings, s, -1);
  if (c->pg_desc == 0 && (s = a->strs[WEFT_CA_PG_DESC]) != NULL && *s != '\0')
    c->pg_desc = weft_strings_intern (rank->strings, s, -1);
  if ((c->pg_ranks == NULL || extra->ranks_truncated) && a->pg_ranks != NULL &&
      (c->pg_ranks == NULL || !a->pg_ranks_truncated))
    {
      set_ranks (c, (const int *) (void *) a->pg_ranks->data, a->pg_ranks->len);
      extra->ranks_truncated = a->pg_ranks_truncated;
    }
  if (c->seq < 0 && a->has_int[WEFT_CA_SEQ] && x[WEFT_CA_SEQ] >= 0)
    c->seq = x[WEFT_CA_SEQ];
  if (c->src_rank < 0 && a->has_int[WEFT_CA_SRC_RANK] && x[WEFT_CA_SRC_RANK] >= 0 && x[WEFT_CA_SRC_RANK] <= G_MAXINT)
    c->src_rank = (int) x[WEFT_CA_SRC_RANK];
  if (c->dst_rank < 0 && a->has_int[WEFT_CA_DST_RANK] && x[WEFT_CA_DST_RANK] >= 0 && x[WEFT_CA_DST_RANK] <= G_MAXINT)
    c->dst_rank = (int) x[WEFT_CA_DST_RANK];
  if (extra->rank_start < 0 && a->has_int[WEFT_CA_RANK_START] && x[WEFT_CA_RANK_START] >= 0)
    extra->rank_start = x[WEFT_CA_RANK_START];
  if (extra->rank_stride < 0 && a->has_int[WEFT_CA_RANK_STRIDE] && x[WEFT_CA_RANK_STRIDE] >= 0)
    extra->rank_stride = x[WEFT_CA_RANK_STRIDE];
  return type;
}

/* Old traces: the nccl:* annotation (and sometimes record_param_comms) has
 * only "Input Dims" / "Input type"; the first input is the tensor sent. */
static void
apply_input_dims (WeftRank *rank, WeftCollective *c, const WeftCommArgs *a)
{
  const char *t = a->strs[WEFT_CA_INPUT_TYPE];

  if (c->in_nelems >= 0 || !a->has_input_dims)
    return;
  c->in_nelems = a->input_nelems;
  if (c->dtype == 0 && t != NULL && weft_dtype_size (t) > 0)
    c->dtype = weft_strings_intern (rank->strings, t, -1);
}

static const WeftProcessGroup *
find_process_group (WeftRank *rank, guint32 pg_name)
{
  for (guint i = 0; rank->process_groups != NULL && i < rank->process_groups->len; i++)
    {
      const WeftProcessGroup *pg = &g_array_index (rank->process_groups, WeftProcessGroup, i);
      if (pg->name == pg_name)
        return pg;
    }
  return NULL;
}

static gint64
mul_bytes (gint64 nelems, int elem)
{
  if (nelems < 0 || elem <= 0 || nelems > G_MAXINT64 / elem)
    return -1;
  return nelems * elem;
}

/* nelems x group size, -1 when either is unknown or the product overflows */
static gint64
mul_nelems (gint64 nelems, int n)
{
  if (nelems < 0 || n <= 0 || nelems > G_MAXINT64 / n)
    return -1;
  return nelems * n;
}

static void
finish_collective (WeftRank *rank, WeftCollective *c, const CollExtra *extra)
{
  int elem;
  gint64 n = -1;
  int gs;

  /* Process-group ranks: complete a missing or truncated list from
   * distributedInfo.pg_config, then from "Global rank start/stride". */
  if (c->pg_name != 0 && (c->pg_ranks == NULL || extra->ranks_truncated))
    {
      const WeftProcessGroup *pg = find_process_group (rank, c->pg_name);
      if (pg != NULL && pg->n_ranks > 0 && (c->pg_ranks == NULL || pg->n_ranks >= c->n_pg_ranks))
        set_ranks (c, pg->ranks, pg->n_ranks);
      else if (extra->ranks_truncated && c->group_size > 0 && extra->rank_start >= 0 && extra->rank_stride > 0 &&
               c->group_size <= WEFT_MAX_PG_RANKS && extra->rank_start <= G_MAXINT && extra->rank_stride <= G_MAXINT &&
               extra->rank_start + (gint64) (c->group_size - 1) * extra->rank_stride <= G_MAXINT)
        {
          int *r = g_new (int, c->group_size);
          gboolean agrees = TRUE;
          for (int i = 0; i < c->group_size; i++)
            r[i] = (int) (extra->rank_start + i * extra->rank_stride);
          for (guint i = 0; i < c->n_pg_ranks && i < (guint) c->group_size; i++)
            if (c->pg_ranks[i] != r[i])
              agrees = FALSE;
          if (agrees)
            set_ranks (c, r, (guint) c->group_size);
          g_free (r);
        }
      if (c->pg_desc == 0 && pg != NULL)
        c->pg_desc = pg->desc;
    }
  if (c->group_size < 0 && c->pg_ranks != NULL && !extra->ranks_truncated)
    c->group_size = (int) c->n_pg_ranks;

  elem = weft_dtype_size (weft_rank_string (rank, c->dtype));
  gs = c->group_size;
  switch (c->type)
    {
    case WEFT_COLL_ALL_GATHER:
      /* S = the gathered (output) buffer */
      n = c->out_nelems >= 0 ? c->out_nelems : mul_nelems (c->in_nelems, gs);
      break;
    case WEFT_COLL_REDUCE_SCATTER:
      /* S = the full (input) buffer before scattering */
      n = c->in_nelems >= 0 ? c->in_nelems : mul_nelems (c->out_nelems, gs);
      break;
    case WEFT_COLL_RECV:
      n = c->out_nelems >= 0 ? c->out_nelems : c->in_nelems;
      break;
    case WEFT_COLL_ALL_REDUCE:
    case WEFT_COLL_ALL_TO_ALL:
    case WEFT_COLL_SEND:
    case WEFT_COLL_BROADCAST:
    case WEFT_COLL_REDUCE:
      n = c->in_nelems >= 0 ? c->in_nelems : c->out_nelems;
      break;
    case WEFT_COLL_BARRIER:
    case WEFT_COLL_EP_NOTIFY:
    case WEFT_COLL_SEND_RECV:
    case WEFT_COLL_UNKNOWN:
    case WEFT_COLL_NONE:
    case WEFT_COLL_N_TYPES:
    default:
      n = MAX (c->in_nelems, c->out_nelems);
      break;
    }
  c->bytes = mul_bytes (n, elem);
}

/* ---- enclosing CPU ops of launches ------------------------------------------ */

enum
{
  NAME_SEEN = 1 << 0,
  NAME_OPTIMIZER_STEP = 1 << 1,  /* Optimizer.step#... */
  NAME_RECORD_PARAM_COMMS = 1 << 2,
  NAME_COMM_OP = 1 << 3,         /* nccl:*, rccl:*, c10d::<collective> */
};

static guint8
cpu_name_flags (WeftRank *rank, guint8 *cache, guint n_cache, guint32 name)
{
  const char *s;
  guint8 f = NAME_SEEN;

  if (name < n_cache && cache[name] != 0)
    return cache[name];
  s = weft_rank_string (rank, name);
  if (g_str_has_prefix (s, "Optimizer.step") || g_str_has_prefix (s, "optimizer.step"))
    f |= NAME_OPTIMIZER_STEP;
  else if (strcmp (s, "record_param_comms") == 0)
    f |= NAME_RECORD_PARAM_COMMS;
  else if ((g_str_has_prefix (s, "nccl:") || g_str_has_prefix (s, "rccl:") || g_str_has_prefix (s, "c10d::")) &&
           weft_coll_type_from_collective_name (s) != WEFT_COLL_UNKNOWN)
    f |= NAME_COMM_OP;
  if (name < n_cache)
    cache[name] = f;
  return f;
}

typedef struct
{
  guint32 record_param_comms; /* innermost enclosing record_param_comms */
  guint32 comm_op;            /* innermost enclosing nccl:* / c10d::* op */
} CommContext;

typedef struct
{
  GHashTable *comm;           /* GPU op index -> CommContext* */
  guint8     *optimizer;      /* bitset over event indices */
} LaunchContext;

static gboolean
encloses (const WeftRank *rank, const WeftEvent *outer, const WeftEvent *inner)
{
  return outer->ts <= inner->ts && safe_end (rank, outer) >= inner->ts;
}

#define WEFT_MAX_SCAN_DEPTH 128

static void
sweep_launch_context (WeftRank *rank, LaunchContext *ctx)
{
  guint n_cache = weft_strings_count (rank->strings);
  g_autofree guint8 *cache = g_new0 (guint8, n_cache);
  g_autoptr (GArray) stack = g_array_new (FALSE, FALSE, sizeof (guint32));

  for (guint li = 0; li < rank->lanes->len; li++)
    {
      WeftLane *lane = weft_rank_lane (rank, li);
      if (lane->kind == WEFT_LANE_GPU)
        continue;
      g_array_set_size (stack, 0);
      for (guint k = 0; k < lane->events->len; k++)
        {
          guint32 idx = g_array_index (lane->events, guint32, k);
          const WeftEvent *ev = weft_rank_event (rank, idx);

          if (ev->ph != WEFT_PH_X || (ev->flags & WEFT_EVENT_DELETED))
            continue;
          while (stack->len > 0)
            {
              const WeftEvent *top = weft_rank_event (rank, g_array_index (stack, guint32, stack->len - 1));
              gint64 top_end = safe_end (rank, top);
              if (top_end < ev->ts || (top_end == ev->ts && top->ts != ev->ts))
                g_array_set_size (stack, stack->len - 1);
              else
                break;
            }
          if ((ev->flags & WEFT_EVENT_LAUNCH) && weft_event_link (ev) != WEFT_NONE && weft_event_link (ev) < rank->events->len)
            {
              const WeftEvent *gpu = weft_rank_event (rank, weft_event_link (ev));
              gboolean want_comm = gpu->kclass == WEFT_KCLASS_COMM;
              CommContext cc = { WEFT_NONE, WEFT_NONE };
              gboolean in_optimizer = FALSE;

              for (guint s = stack->len, depth = 0; s > 0 && depth < WEFT_MAX_SCAN_DEPTH; s--, depth++)
                {
                  guint32 oi = g_array_index (stack, guint32, s - 1);
                  const WeftEvent *op = weft_rank_event (rank, oi);
                  guint8 f;
                  if (!encloses (rank, op, ev))
                    continue;
                  f = cpu_name_flags (rank, cache, n_cache, op->name);
                  if (f & NAME_OPTIMIZER_STEP)
                    in_optimizer = TRUE;
                  if (want_comm && (f & NAME_RECORD_PARAM_COMMS) && cc.record_param_comms == WEFT_NONE)
                    cc.record_param_comms = oi;
                  if (want_comm && (f & NAME_COMM_OP) && cc.comm_op == WEFT_NONE)
                    cc.comm_op = oi;
                }
              if (in_optimizer)
                ctx->optimizer[weft_event_link (ev) / 8] |= (guint8) (1u << (weft_event_link (ev) % 8));
              if (want_comm && (cc.record_param_comms != WEFT_NONE || cc.comm_op != WEFT_NONE))
                g_hash_table_insert (ctx->comm, GUINT_TO_POINTER (weft_event_link (ev)), g_memdup2 (&cc, sizeof cc));
            }
          g_array_append_val (stack, idx);
        }
    }
}

/* ---- per-rank classification ------------------------------------------------- */

static void
collective_free (gpointer data)
{
  WeftCollective *c = data;
  g_free (c->pg_ranks);
  g_free (c);
}

static gint
event_ts_cmp (gconstpointer a, gconstpointer b, gpointer user_data)
{
  const WeftRank *rank = user_data;
  guint32 ia = *(const guint32 *) a, ib = *(const guint32 *) b;
  const WeftEvent *ea = &g_array_index (rank->events, WeftEvent, ia);
  const WeftEvent *eb = &g_array_index (rank->events, WeftEvent, ib);
  if (ea->ts != eb->ts)
    return ea->ts < eb->ts ? -1 : 1;
  return ia < ib ? -1 : (ia > ib);
}

static void
build_collective (WeftRank *rank, guint32 idx, const LaunchContext *ctx, GHashTable *rpc_by_ext,
                  WeftCollective *c)
{
  WeftEvent *ev = weft_rank_event (rank, idx);
  CollExtra extra = { FALSE, -1, -1 };
  WeftCollType t_args, t_cpu = WEFT_COLL_NONE, t_name;
  WeftCommArgs args;
  const CommContext *cc = g_hash_table_lookup (ctx->comm, GUINT_TO_POINTER (idx));
  guint32 rpc = WEFT_NONE;

  coll_init (c, idx);

  /* (1) the kernel's own args */
  _weft_comm_args_read (rank, ev, &args);
  t_args = apply_comm_args (rank, c, &extra, &args);
  _weft_comm_args_clear (&args);

  /* (2) the record_param_comms cpu_op: same External id (checked against the
   * launch when there is one: old Kineto wrote the correlation id into the
   * kernel's External id), else the ops enclosing the launch. */
  if (weft_event_external_id (rank, ev) >= 0)
    {
      gpointer p = g_hash_table_lookup (rpc_by_ext, &(gint64) { weft_event_external_id (rank, ev) });
      if (p != NULL)
        {
          guint32 cand = GPOINTER_TO_UINT (p) - 1;
          const WeftEvent *op = weft_rank_event (rank, cand);
          const WeftEvent *launch = weft_event_link (ev) != WEFT_NONE ? weft_rank_event (rank, weft_event_link (ev)) : NULL;
          if (launch == NULL ? op->ts <= ev->ts : (op->lane == launch->lane && encloses (rank, op, launch)))
            rpc = cand;
        }
    }
  if (rpc == WEFT_NONE && cc != NULL)
    rpc = cc->record_param_comms;
  if (rpc != WEFT_NONE)
    {
      WeftCommArgs rargs;
      _weft_comm_args_read (rank, weft_rank_event (rank, rpc), &rargs);
      t_cpu = apply_comm_args (rank, c, &extra, &rargs);
      if (cc != NULL && cc->comm_op != WEFT_NONE)
        {
          /* nccl:all_to_all inside record_param_comms: its own Input Dims first */
          WeftCommArgs oargs;
          _weft_comm_args_read (rank, weft_rank_event (rank, cc->comm_op), &oargs);
          apply_input_dims (rank, c, &oargs);
          _weft_comm_args_clear (&oargs);
        }
      apply_input_dims (rank, c, &rargs);
      _weft_comm_args_clear (&rargs);
      c->cpu_event = rpc;
    }
  if ((t_cpu == WEFT_COLL_NONE || t_cpu == WEFT_COLL_UNKNOWN) && cc != NULL && cc->comm_op != WEFT_NONE)
    {
      const WeftEvent *op = weft_rank_event (rank, cc->comm_op);
      t_cpu = weft_coll_type_from_collective_name (weft_rank_string (rank, op->name));
      if (rpc == WEFT_NONE)
        {
          WeftCommArgs oargs;
          _weft_comm_args_read (rank, op, &oargs);
          apply_input_dims (rank, c, &oargs);
          _weft_comm_args_clear (&oargs);
          c->cpu_event = cc->comm_op;
        }
      if (c->coll_name == 0)
        c->coll_name = op->name;
    }

  /* (3) the kernel name */
  t_name = weft_coll_type_from_kernel_name (weft_rank_string (rank, ev->name));

  if (t_args != WEFT_COLL_NONE && t_args != WEFT_COLL_UNKNOWN)
    {
      c->type = t_args;
      c->source = WEFT_COLL_SOURCE_KERNEL_ARGS;
    }
  else if (t_cpu != WEFT_COLL_NONE && t_cpu != WEFT_COLL_UNKNOWN)
    {
      c->type = t_cpu;
      c->source = WEFT_COLL_SOURCE_CPU_OP;
    }
  else if (t_name != WEFT_COLL_NONE && t_name != WEFT_COLL_UNKNOWN)
    {
      c->type = t_name;
      c->source = WEFT_COLL_SOURCE_KERNEL_NAME;
    }
  else
    {
      c->type = WEFT_COLL_UNKNOWN;
      c->source = t_args != WEFT_COLL_NONE ? WEFT_COLL_SOURCE_KERNEL_ARGS
                  : t_cpu != WEFT_COLL_NONE ? WEFT_COLL_SOURCE_CPU_OP
                                            : WEFT_COLL_SOURCE_KERNEL_NAME;
    }
  finish_collective (rank, c, &extra);
}

void
weft_rank_classify (WeftRank *rank)
{
  guint n_names = weft_strings_count (rank->strings);
  g_autofree guint8 *name_class = g_new0 (guint8, n_names);
  g_autoptr (GArray) comm = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr (GArray) rpcs = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr (GHashTable) rpc_by_ext = NULL;
  LaunchContext ctx;
  guint32 rpc_name;
  gboolean any_launch = FALSE;
  g_autoptr (GHashTable) kept = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, collective_free);

  /* Collectives of kernels created by edits carry what the editor set
   * (type, bytes, group); their events have no args to rebuild it from. */
  for (guint i = 0; i < rank->collectives->len; i++)
    {
      WeftCollective *c = &g_array_index (rank->collectives, WeftCollective, i);
      if (c->event < rank->events->len && (weft_rank_event (rank, c->event)->flags & WEFT_EVENT_CREATED) &&
          !g_hash_table_contains (kept, GUINT_TO_POINTER (c->event)))
        {
          g_hash_table_insert (kept, GUINT_TO_POINTER (c->event), g_memdup2 (c, sizeof *c));
          c->pg_ranks = NULL; /* moved */
        }
    }
  g_array_set_size (rank->collectives, 0);

  /* Classes by name (cached per interned name); GPU-op categories decide
   * COPY. The record_param_comms ops are noted on the way, for the
   * collectives below (one pass over the records fewer). */
  weft_rank_clear_event_colls (rank);
  rpc_name = weft_strings_lookup (rank->strings, "record_param_comms", -1);
  for (guint i = 0; i < rank->events->len; i++)
    {
      WeftEvent *ev = weft_rank_event (rank, i);
      ev->kclass = WEFT_KCLASS_NONE;
      if (ev->flags & WEFT_EVENT_LAUNCH)
        any_launch = TRUE;
      if (ev->name == rpc_name && rpc_name != WEFT_NONE && ev->ph == WEFT_PH_X && !(ev->flags & WEFT_EVENT_DELETED) &&
          weft_event_external_id (rank, ev) >= 0)
        g_array_append_val (rpcs, i);
      if (!(ev->flags & WEFT_EVENT_GPU_OP))
        continue;
      if (ev->category == WEFT_CAT_GPU_MEMCPY || ev->category == WEFT_CAT_GPU_MEMSET)
        ev->kclass = WEFT_KCLASS_COPY;
      else if (ev->name < n_names)
        {
          if (name_class[ev->name] == 0)
            name_class[ev->name] = (guint8) (weft_classify_kernel_name (weft_rank_string (rank, ev->name)) + 1);
          ev->kclass = (guint8) (name_class[ev->name] - 1);
        }
      else
        ev->kclass = (guint8) weft_classify_kernel_name (weft_rank_string (rank, ev->name));
      if (g_hash_table_contains (kept, GUINT_TO_POINTER (i)))
        ev->kclass = WEFT_KCLASS_COMM;
      if (ev->kclass == WEFT_KCLASS_COMM && !(ev->flags & WEFT_EVENT_DELETED))
        g_array_append_val (comm, i);
    }

  /* Context from the CPU ops that enclose each launch. */
  ctx.comm = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  ctx.optimizer = g_new0 (guint8, rank->events->len / 8 + 1);
  if (any_launch)
    sweep_launch_context (rank, &ctx);

  /* Kernels launched inside Optimizer.step are the optimizer's, unless their
   * name says GEMM / attention / norm / copy / communication. */
  for (guint b = 0; b < rank->events->len / 8 + 1; b++)
    for (guint bits = ctx.optimizer[b]; bits != 0; bits &= bits - 1)
      {
        guint i = b * 8 + (guint) __builtin_ctz (bits);
        WeftEvent *ev = weft_rank_event (rank, i);
        if (ev->category == WEFT_CAT_KERNEL &&
            (ev->kclass == WEFT_KCLASS_ELEMENTWISE || ev->kclass == WEFT_KCLASS_REDUCTION ||
             ev->kclass == WEFT_KCLASS_OTHER))
          ev->kclass = WEFT_KCLASS_OPTIMIZER;
      }

  if (comm->len > 0)
    {
      rpc_by_ext = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
      for (guint k = 0; k < rpcs->len; k++)
        {
          guint32 i = g_array_index (rpcs, guint32, k);
          gint64 ext = weft_event_external_id (rank, weft_rank_event (rank, i));
          if (!g_hash_table_contains (rpc_by_ext, &ext)) /* the first of an id */
            g_hash_table_insert (rpc_by_ext, g_memdup2 (&ext, sizeof ext), GUINT_TO_POINTER (i + 1));
        }

      /* rank->collectives in kernel start order */
      g_qsort_with_data (comm->data, (gint) comm->len, sizeof (guint32), event_ts_cmp, rank);
      g_array_set_size (rank->collectives, comm->len);
      for (guint k = 0; k < comm->len; k++)
        {
          guint32 idx = g_array_index (comm, guint32, k);
          WeftCollective *dst = &g_array_index (rank->collectives, WeftCollective, k);
          WeftCollective *old = g_hash_table_lookup (kept, GUINT_TO_POINTER (idx));
          if (old != NULL)
            {
              *dst = *old;
              old->pg_ranks = NULL;
              dst->event = idx;
              dst->instance = WEFT_NONE;
            }
          else
            build_collective (rank, idx, &ctx, rpc_by_ext, dst);
          weft_rank_event_set_coll (rank, idx, k);
        }
    }

  g_hash_table_destroy (ctx.comm);
  g_free (ctx.optimizer);
}

/* ---- matching across ranks ---------------------------------------------------- */

static gboolean
is_p2p (WeftCollType t)
{
  return t == WEFT_COLL_SEND || t == WEFT_COLL_RECV || t == WEFT_COLL_SEND_RECV;
}

static void
append_pg (GString *key, WeftRank *rank, const WeftCollective *c)
{
  g_string_append (key, weft_rank_string (rank, c->pg_name));
  g_string_append_c (key, '\x1f');
  for (guint i = 0; i < c->n_pg_ranks; i++)
    g_string_append_printf (key, "%d,", c->pg_ranks[i]);
  g_string_append_c (key, '\x1f');
}

/* Ordinal of prefix on this rank (counts every call). */
static guint
next_ordinal (GHashTable *ordinals, const char *prefix)
{
  gpointer p = g_hash_table_lookup (ordinals, prefix);
  guint n = GPOINTER_TO_UINT (p);
  g_hash_table_insert (ordinals, g_strdup (prefix), GUINT_TO_POINTER (n + 1));
  return n;
}

static void
string_free (gpointer data)
{
  g_string_free (data, TRUE);
}

static gint64
stream_key (WeftRank *rank, const WeftEvent *ev, gboolean single_comm_stream)
{
  if (single_comm_stream)
    return 0;
  return ev->lane != WEFT_NONE ? weft_rank_lane (rank, ev->lane)->tid : -1;
}

void
weft_trace_match_collectives (WeftTrace *trace)
{
  g_autoptr (GHashTable) instances = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GHashTable) signatures = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, string_free);
  g_autoptr (GHashTable) inconsistent = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  gboolean single_comm_stream = TRUE;

  g_array_set_size (trace->instances, 0);

  /* Stream-ordinal matching keys on the stream id; when every rank has one
   * communication stream, stream ids may differ across ranks and still match. */
  for (guint ri = 0; ri < trace->ranks->len && single_comm_stream; ri++)
    {
      WeftRank *rank = weft_trace_rank (trace, ri);
      gint64 stream = G_MININT64;
      for (guint ci = 0; ci < rank->collectives->len; ci++)
        {
          WeftCollective *c = &g_array_index (rank->collectives, WeftCollective, ci);
          const WeftEvent *ev = weft_rank_event (rank, c->event);
          gint64 tid = ev->lane != WEFT_NONE ? weft_rank_lane (rank, ev->lane)->tid : -1;
          if (stream != G_MININT64 && tid != stream)
            single_comm_stream = FALSE;
          stream = tid;
        }
    }

  /* Ordinals only line up when every rank ran the same sequence of
   * collective types on the stream; where they differ (a filtered trace,
   * ranks of different groups) the stream is not matched by ordinal. */
  for (guint ri = 0; ri < trace->ranks->len; ri++)
    {
      WeftRank *rank = weft_trace_rank (trace, ri);
      g_autoptr (GHashTable) local = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, string_free);
      GHashTableIter iter;
      gpointer k, v;

      for (guint ci = 0; ci < rank->collectives->len; ci++)
        {
          WeftCollective *c = &g_array_index (rank->collectives, WeftCollective, ci);
          const WeftEvent *ev = weft_rank_event (rank, c->event);
          gint64 stream = stream_key (rank, ev, single_comm_stream);
          GString *sig;
          if (ev->flags & WEFT_EVENT_DELETED)
            continue;
          sig = g_hash_table_lookup (local, &stream);
          if (sig == NULL)
            {
              sig = g_string_new (NULL);
              g_hash_table_insert (local, g_memdup2 (&stream, sizeof stream), sig);
            }
          g_string_append_c (sig, (char) ('a' + (int) c->type));
        }
      g_hash_table_iter_init (&iter, local);
      while (g_hash_table_iter_next (&iter, &k, &v))
        {
          GString *ref = g_hash_table_lookup (signatures, k);
          if (ref == NULL)
            {
              g_hash_table_insert (signatures, g_memdup2 (k, sizeof (gint64)), g_string_new (((GString *) v)->str));
              continue;
            }
          if (!g_string_equal (ref, v) && !g_hash_table_contains (inconsistent, k))
            {
              g_hash_table_add (inconsistent, g_memdup2 (k, sizeof (gint64)));
              g_debug ("rank %d: collective types on stream %" G_GINT64_FORMAT
                       " differ from another rank's; not matched by ordinal",
                       rank->rank, *(gint64 *) k);
            }
        }
    }

  for (guint ri = 0; ri < trace->ranks->len; ri++)
    {
      WeftRank *rank = weft_trace_rank (trace, ri);
      g_autoptr (GHashTable) ordinals = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      g_autoptr (GHashTable) used = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      g_autoptr (GString) prefix = g_string_new (NULL);
      g_autoptr (GString) key = g_string_new (NULL);

      for (guint ci = 0; ci < rank->collectives->len; ci++)
        {
          WeftCollective *c = &g_array_index (rank->collectives, WeftCollective, ci);
          const WeftEvent *ev = weft_rank_event (rank, c->event);
          WeftMatchMethod method;
          gpointer found;
          guint dup;
          guint32 inst_idx;
          WeftInstanceMember member;
          gint64 stream;

          c->instance = WEFT_NONE;
          if (ev->flags & WEFT_EVENT_DELETED)
            continue;
          stream = stream_key (rank, ev, single_comm_stream);
          /* Every comm kernel takes an ordinal on its stream, matched or not,
           * so that one unmatched kernel does not shift the others. */
          g_string_printf (prefix, "T\x1f%" G_GINT64_FORMAT, stream);
          {
            guint k = next_ordinal (ordinals, prefix->str);
            g_string_printf (key, "%s\x1f%u\x1f%d", prefix->str, k, (int) c->type);
          }
          method = WEFT_MATCH_STREAM_ORDINAL;

          if ((c->type == WEFT_COLL_SEND && c->dst_rank >= 0) || (c->type == WEFT_COLL_RECV && c->src_rank >= 0))
            {
              int sender = c->type == WEFT_COLL_SEND ? rank->rank : c->src_rank;
              int receiver = c->type == WEFT_COLL_SEND ? c->dst_rank : rank->rank;
              g_string_assign (prefix, "P\x1f");
              if (c->pg_name != 0)
                append_pg (prefix, rank, c);
              g_string_append_printf (prefix, "%d>%d", sender, receiver);
              g_string_printf (key, "%s\x1f%u", prefix->str, next_ordinal (ordinals, prefix->str));
              method = WEFT_MATCH_P2P;
            }
          else if (c->pg_name != 0 && c->seq >= 0 && !is_p2p (c->type))
            {
              g_string_assign (key, "S\x1f");
              append_pg (key, rank, c);
              g_string_append_printf (key, "%" G_GINT64_FORMAT, c->seq);
              method = WEFT_MATCH_SEQ;
            }
          else if (c->pg_name != 0 && !is_p2p (c->type))
            {
              g_string_assign (prefix, "O\x1f");
              append_pg (prefix, rank, c);
              g_string_printf (key, "%s\x1f%u", prefix->str, next_ordinal (ordinals, prefix->str));
              method = WEFT_MATCH_PG_ORDINAL;
            }
          else if (is_p2p (c->type))
            continue; /* P2P without peers: any two ranks may pair; do not invent partners */
          else if (g_hash_table_contains (inconsistent, &stream))
            continue;

          /* the same key twice on one rank (bad data): keep them apart */
          dup = GPOINTER_TO_UINT (g_hash_table_lookup (used, key->str));
          g_hash_table_insert (used, g_strdup (key->str), GUINT_TO_POINTER (dup + 1));
          if (dup > 0)
            g_string_append_printf (key, "\x1f#%u", dup);

          found = g_hash_table_lookup (instances, key->str);
          if (found == NULL)
            {
              WeftCollInstance inst;
              inst.type = c->type;
              inst.pg_name_rank0 = c->pg_name;
              inst.seq = method == WEFT_MATCH_SEQ ? c->seq : -1;
              inst.method = method;
              inst.members = g_array_new (FALSE, FALSE, sizeof (WeftInstanceMember));
              g_array_append_val (trace->instances, inst);
              inst_idx = trace->instances->len - 1;
              g_hash_table_insert (instances, g_strdup (key->str), GUINT_TO_POINTER (inst_idx + 1));
            }
          else
            inst_idx = GPOINTER_TO_UINT (found) - 1;
          member.rank_index = ri;
          member.coll = ci;
          g_array_append_val (g_array_index (trace->instances, WeftCollInstance, inst_idx).members, member);
          c->instance = inst_idx;
        }
    }
}

/* ---- clock offsets -------------------------------------------------------------- */

static gboolean
member_end (WeftTrace *trace, const WeftInstanceMember *m, gint64 *end)
{
  WeftRank *rank;
  const WeftCollective *c;
  const WeftEvent *ev;

  if (m->rank_index >= trace->ranks->len)
    return FALSE;
  rank = weft_trace_rank (trace, m->rank_index);
  if (m->coll >= rank->collectives->len)
    return FALSE;
  c = &g_array_index (rank->collectives, WeftCollective, m->coll);
  if (c->event == WEFT_NONE || c->event >= rank->events->len)
    return FALSE;
  ev = weft_rank_event (rank, c->event);
  if (ev->flags & WEFT_EVENT_DELETED)
    return FALSE;
  *end = safe_end (rank, ev);
  return TRUE;
}

void
weft_trace_estimate_clock_offsets (WeftTrace *trace)
{
  guint n = trace->ranks->len;
  g_autofree gboolean *resolved = NULL;
  g_autofree gint64 *offset = NULL;
  GArray **diffs;
  gboolean progress = TRUE;

  trace->offsets_estimated = FALSE;
  for (guint i = 0; i < n; i++)
    weft_trace_rank (trace, i)->clock_offset_ns = 0;
  if (n < 2)
    return;

  resolved = g_new0 (gboolean, n);
  offset = g_new0 (gint64, n);
  diffs = g_new0 (GArray *, n);
  for (guint i = 0; i < n; i++)
    diffs[i] = g_array_new (FALSE, FALSE, sizeof (gint64));
  resolved[0] = TRUE; /* the lowest rank is the reference */

  /* Each pass aligns the ranks that share an instance with an aligned rank
   * (directly the reference first, then through others: a TP group that
   * does not contain rank 0 still aligns through a DP group that does). */
  while (progress)
    {
      progress = FALSE;
      for (guint i = 0; i < n; i++)
        g_array_set_size (diffs[i], 0);
      for (guint k = 0; k < trace->instances->len; k++)
        {
          WeftCollInstance *inst = &g_array_index (trace->instances, WeftCollInstance, k);
          gint64 ref_end = 0;
          guint ref = G_MAXUINT;

          if (inst->members == NULL || inst->members->len < 2)
            continue;
          for (guint j = 0; j < inst->members->len; j++)
            {
              const WeftInstanceMember *m = &g_array_index (inst->members, WeftInstanceMember, j);
              gint64 end;
              if (m->rank_index < n && resolved[m->rank_index] && m->rank_index < ref && member_end (trace, m, &end))
                {
                  ref = m->rank_index;
                  ref_end = sat_add (end, offset[ref]);
                }
            }
          if (ref == G_MAXUINT)
            continue;
          for (guint j = 0; j < inst->members->len; j++)
            {
              const WeftInstanceMember *m = &g_array_index (inst->members, WeftInstanceMember, j);
              gint64 end, d;
              if (m->rank_index >= n || resolved[m->rank_index] || !member_end (trace, m, &end))
                continue;
              d = sat_sub (ref_end, end);
              g_array_append_val (diffs[m->rank_index], d);
            }
        }
      for (guint i = 0; i < n; i++)
        if (!resolved[i] && diffs[i]->len > 0)
          {
            offset[i] = _weft_gint64_median_mean (diffs[i]);
            resolved[i] = TRUE;
            progress = TRUE;
            trace->offsets_estimated = TRUE;
          }
    }

  for (guint i = 0; i < n; i++)
    {
      weft_trace_rank (trace, i)->clock_offset_ns = offset[i];
      g_array_free (diffs[i], TRUE);
    }
  g_free (diffs);
}
