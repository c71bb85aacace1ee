/* compose-apply.c: apply a parallelism strategy to an open (real) profile.
 *
 * 1. Blocks (weft_apply_find_blocks, compose-apply-blocks.c): the compute lane is the GPU lane with
 *    the most non-communication kernel time. Blocks come from, in order:
 *    (a) layer annotations: CPU spans (python_function / user_annotation /
 *        cpu_op) whose name, digits replaced by '#', contains "block",
 *        "layer", "decoder" or "encoder" and a '#' ("nn.Module:
 *        TransformerBlock_#", "layers.#"); the name whose spans cover
 *        the most compute ops (the outermost module) gives the forward
 *        blocks; the same with "backward" in it the backward blocks. A
 *        block is the compute-lane ops whose CPU launch lies inside the
 *        span. Without backward names, the pattern search (c) over the ops
 *        after the forward supplies as many backward blocks.
 *    (b) FSDP units: FSDP::pre_forward .. the next FSDP::post_forward
 *        (backward: FSDP::pre_backward .. FSDP::post_backward*); the units
 *        like the most frequent kernel-name sequence (>= 2; the same GEMM
 *        and attention count, +-10 % ops) are the blocks (the embedding and
 *        output units differ).
 *    (c) the kernel pattern: the compute lane's kernel-name sequence s;
 *        for every period p the longest run of s[i] == s[i+p] gives
 *        k = (run + p) / p repetitions from the run's start; the period
 *        covering the most ops (k * p, k >= 2, a GEMM or attention kernel
 *        in the period) wins, the smallest p within 5 % of the best
 *        coverage is kept (so 2p, 3p... do not win). The search is run
 *        again on the ops before and after that region: two regions are
 *        forward (earlier) and backward (later).
 *    Pattern blocks: when every block has >= 80 % or <= 20 % of its ops
 *    in backward (launched inside CPU spans named *backward*: "##
 *    backward ##", autograd::engine::evaluate_function; or a kernel named
 *    *bwd* / *backward*) and some have >= 80 %, that decides the phases
 *    (the region order is only a guess); blocks that mix both (whole
 *    iterations) leave them as they are.
 *    When no backward blocks are found (forward-only profile, or one
 *    repeated region), every block is taken as forward and phases_known is
 *    FALSE: strategies that communicate only in backward (DDP) refuse.
 * 2. Apply: through the edit session, inside one gesture (one undo entry;
 *    any failure cancels the gesture: nothing changes). The session has no
 *    "add a dependency" operation, so the waits are built from its moves
 *    (weft_solver_move_to_lane keeps a wait on the op an op leaves behind):
 *    - a collective that must wait for a compute op (producer) is inserted
 *      on the compute lane right after it, then moved (whole instance) to
 *      its communication stream: it keeps waiting for the producer and
 *      compute no longer waits for it;
 *    - compute that must wait for a collective gets an op moved in front of
 *      it from the collective's stream: FSDP's copy-out kernel
 *      (split_with_sizes_copy, as FSDP2's all_gather_copy_out) after each
 *      all-gather, a 0 ns "weft::stream_wait" op where the real program
 *      only has a cudaStreamWaitEvent (the optimizer waiting for the last
 *      reduce-scatter / DDP bucket, CP ring);
 *    - blocking collectives (TP, SP, EP, CP all-gather) go on the compute
 *      lane itself: the compute stream waits for them (on the critical
 *      path).
 *    Every inserted collective gets the group's Process Group name,
 *    description and ranks and a Seq per group, timed by the cost model. */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "weft/weft-apply.h"
#include "weft/weft-load.h"
#include "weft/weft-save.h"

/* ---- names ------------------------------------------------------------------------ */

static const char *const strategy_names[WEFT_APPLY_N_STRATEGIES] = {
  "ddp", "fsdp", "tp", "tp-sp", "ep", "cp-ring", "cp-allgather",
};

const char *
weft_apply_strategy_to_string (WeftApplyStrategy strategy)
{
  return (guint) strategy < WEFT_APPLY_N_STRATEGIES ? strategy_names[strategy] : "unknown";
}

gboolean
weft_apply_strategy_from_string (const char *text, WeftApplyStrategy *out, GError **error)
{
  static const struct { const char *name; WeftApplyStrategy s; } aliases[] = {
    { "fsdp2", WEFT_APPLY_FSDP }, { "zero3", WEFT_APPLY_FSDP }, { "sp", WEFT_APPLY_TP_SP },
    { "tp+sp", WEFT_APPLY_TP_SP }, { "cp", WEFT_APPLY_CP_ALL_GATHER }, { "cp-all-gather", WEFT_APPLY_CP_ALL_GATHER },
  };
  if (text != NULL)
    {
      for (guint i = 0; i < WEFT_APPLY_N_STRATEGIES; i++)
        if (g_ascii_strcasecmp (text, strategy_names[i]) == 0)
          {
            *out = (WeftApplyStrategy) i;
            return TRUE;
          }
      for (guint i = 0; i < G_N_ELEMENTS (aliases); i++)
        if (g_ascii_strcasecmp (text, aliases[i].name) == 0)
          {
            *out = aliases[i].s;
            return TRUE;
          }
    }
  g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
               "unknown strategy '%s' (known: ddp, fsdp, tp, tp-sp, ep, cp-ring, cp-allgather)", text ? text : "");
  return FALSE;
}

const char *
weft_block_source_to_string (WeftBlockSource source)
{
  switch (source)
    {
    case WEFT_BLOCKS_MODULE: return "module annotations";
    case WEFT_BLOCKS_FSDP: return "FSDP units";
    case WEFT_BLOCKS_PATTERN: return "kernel pattern";
    default: return "none";
    }
}

/* ---- params --------------------------------------------------------------------------- */

/* Llama-3-8B block: wq, wo 4096^2, wk, wv 4096 x 1024, w1, w2, w3 4096 x 14336, 2 norms. */
#define DEFAULT_PARAMS ((gint64) 4096 * 4096 * 2 + (gint64) 4096 * 1024 * 2 + (gint64) 3 * 4096 * 14336 + 2 * 4096)
#define DEFAULT_TOKENS 8192
#define DEFAULT_HIDDEN 4096

void
weft_apply_params_init (WeftApplyParams *params)
{
  memset (params, 0, sizeof *params);
  params->strategy = WEFT_APPLY_FSDP;
  params->degree = 8;
  params->dtype_bytes = 2;
  params->bucket_mb = 25;
}

gboolean
weft_apply_params_validate (const WeftApplyParams *p, GError **error)
{
  if (p == NULL || (guint) p->strategy >= WEFT_APPLY_N_STRATEGIES)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "apply: unknown strategy");
      return FALSE;
    }
  if (p->degree < 2 || p->degree > 64)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "apply %s: degree %d is not in [2, 64]",
                   weft_apply_strategy_to_string (p->strategy), p->degree);
      return FALSE;
    }
  if (p->dtype_bytes < 1 || p->dtype_bytes > 8)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "apply: dtype bytes %d is not in [1, 8]", p->dtype_bytes);
      return FALSE;
    }
  if (p->params_per_block > ((gint64) 1 << 40) || p->tokens > ((gint64) 1 << 30) || p->hidden > ((gint64) 1 << 20))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "apply: sizes out of range (params <= 2^40, tokens <= 2^30, hidden <= 2^20)");
      return FALSE;
    }
  if (p->strategy == WEFT_APPLY_DDP && !(p->bucket_mb > 0 && p->bucket_mb <= 1e5))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "apply ddp: bucket size %g MB is not in (0, 100000]",
                   p->bucket_mb);
      return FALSE;
    }
  return TRUE;
}

/* ---- sizes from Input Dims --------------------------------------------------------------- */

static gboolean
dims2 (json_object *a, gint64 *r, gint64 *c)
{
  if (a == NULL || !json_object_is_type (a, json_type_array) || json_object_array_length (a) != 2)
    return FALSE;
  *r = json_object_get_int64 (json_object_array_get_idx (a, 0));
  *c = json_object_get_int64 (json_object_array_get_idx (a, 1));
  return *r > 0 && *c > 0;
}

/* params / tokens / hidden of the first forward block from its GEMMs' launching cpu_ops. */
static gboolean
infer_sizes (WeftRank *rank, const WeftBlocks *bl, guint32 lane, gint64 *params, gint64 *tokens, gint64 *hidden)
{
  const WeftBlock *b = NULL;
  WeftLane *l = weft_rank_lane (rank, lane);
  g_autoptr (GHashTable) ext = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autoptr (GArray) keys = g_array_new (FALSE, FALSE, sizeof (gint64));
  gboolean in = FALSE;
  gint64 P = 0, T = 0, H = 0;

  for (guint i = 0; i < bl->blocks->len && b == NULL; i++)
    if (g_array_index (bl->blocks, WeftBlock, i).phase == WEFT_BLOCK_FORWARD)
      b = &g_array_index (bl->blocks, WeftBlock, i);
  if (b == NULL)
    return FALSE;
  g_array_set_size (keys, l->events->len);
  for (guint i = 0, k = 0; i < l->events->len; i++)
    {
      guint32 e = g_array_index (l->events, guint32, i);
      WeftEvent *ev = weft_rank_event (rank, e);
      if (e == b->first)
        in = TRUE;
      if (in && ev->kclass == WEFT_KCLASS_GEMM && weft_event_external_id (rank, ev) >= 0)
        {
          g_array_index (keys, gint64, k) = weft_event_external_id (rank, ev);
          g_hash_table_add (ext, &g_array_index (keys, gint64, k));
          k++;
        }
      if (e == b->last)
        break;
    }
  if (g_hash_table_size (ext) == 0)
    return FALSE;
  for (guint i = 0; i < rank->events->len; i++)
    {
      WeftEvent *ev = weft_rank_event (rank, i);
      const char *name;
      json_object *args, *dims;
      gint64 m = 0, k = 0, k2 = 0, n = 0;
      gboolean ok = FALSE;
      if (ev->category != WEFT_CAT_CPU_OP || weft_event_external_id (rank, ev) < 0 || !g_hash_table_contains (ext, &(gint64) { weft_event_external_id (rank, ev) }))
        continue;
      name = weft_rank_string (rank, ev->name);
      if (strcmp (name, "aten::mm") != 0 && strcmp (name, "aten::addmm") != 0 && strcmp (name, "aten::linear") != 0)
        continue;
      args = weft_event_parse_args (rank, ev);
      if (args != NULL && json_object_object_get_ex (args, "Input Dims", &dims) &&
          json_object_is_type (dims, json_type_array))
        {
          if (strcmp (name, "aten::mm") == 0)
            ok = dims2 (json_object_array_get_idx (dims, 0), &m, &k) && dims2 (json_object_array_get_idx (dims, 1), &k2, &n);
          else if (strcmp (name, "aten::addmm") == 0)
            ok = dims2 (json_object_array_get_idx (dims, 1), &m, &k) && dims2 (json_object_array_get_idx (dims, 2), &k2, &n);
          else
            ok = dims2 (json_object_array_get_idx (dims, 0), &m, &k) && dims2 (json_object_array_get_idx (dims, 1), &n, &k2);
        }
      if (args != NULL)
        json_object_put (args);
      if (!ok || k != k2)
        continue;
      g_hash_table_remove (ext, &(gint64) { weft_event_external_id (rank, ev) });
      if (T == 0)
        {
          T = m;
          H = k;
        }
      P += k * n;
    }
  if (P <= 0)
    return FALSE;
  *params = P;
  *tokens = T;
  *hidden = H;
  return TRUE;
}

/* ---- apply ------------------------------------------------------------------------------- */

typedef struct
{
  WeftEditSession       *s;
  WeftSolver            *solver;
  WeftTrace             *trace;
  const WeftApplyParams *p;
  WeftApplyReport       *rep;
  GPtrArray             *blocks;       /* WeftBlocks* per rank index */
  guint                  n_ranks;
  guint                  d;            /* degree */
  gint64                 compute_stream;
  GHashTable            *seq;          /* pg name -> next Seq (GINT_TO_POINTER + 1) */
  GHashTable            *last_on;      /* (rank index << 32 | stream) -> the collective inserted last there */
  const WeftHardware    *hw;
  gint64                 P, T, H;      /* params per block, tokens, hidden */
} Ctx;

static WeftBlock *
blk (Ctx *c, guint r, WeftBlockPhase phase, guint i)
{
  WeftBlocks *bl = g_ptr_array_index (c->blocks, r);
  guint k = phase == WEFT_BLOCK_FORWARD ? i : bl->n_forward + i;
  return &g_array_index (bl->blocks, WeftBlock, k);
}

static guint32
clane (Ctx *c, guint r)
{
  return ((WeftBlocks *) g_ptr_array_index (c->blocks, r))->lane;
}

static guint
pos_of (Ctx *c, guint r, guint32 ev)
{
  return weft_solver_op_position (c->solver, r, ev);
}

static guint32
lane_op (Ctx *c, guint r, guint32 lane, guint pos)
{
  return weft_solver_lane_op (c->solver, r, lane, pos);
}

/* Puts op right after `after` (or right before `before`) on its lane. */
static gboolean
place_op (Ctx *c, WeftEventRef op, guint32 after, guint32 before, GError **error)
{
  guint pm = pos_of (c, op.rank_index, op.event);
  guint target;
  if (after != WEFT_NONE)
    {
      guint pa = pos_of (c, op.rank_index, after);
      if (pm == pa + 1)
        return TRUE;
      target = pm < pa ? pa : pa + 1;
    }
  else
    {
      guint pb = pos_of (c, op.rank_index, before);
      if (pm + 1 == pb)
        return TRUE;
      target = pm < pb ? pb - 1 : pb;
    }
  return weft_edit_session_reorder (c->s, op, target, error);
}

/* Time that makes an insert land right after `after` / before `before` on its lane. */
static gint64
time_for (Ctx *c, guint r, guint32 lane, guint32 after, guint32 before)
{
  if (after == WEFT_NONE)
    {
      guint pb = pos_of (c, r, before);
      if (pb == 0)
        return MAX (0, weft_solver_start (c->solver, r, before) - 1);
      after = lane_op (c, r, lane, pb - 1);
    }
  return weft_solver_start (c->solver, r, after) + 1;
}

static const char *
pg_desc_of (Ctx *c)
{
  switch (c->p->strategy)
    {
    case WEFT_APPLY_DDP: case WEFT_APPLY_FSDP: return "mesh_dp";
    case WEFT_APPLY_TP: case WEFT_APPLY_TP_SP: return "mesh_tp";
    case WEFT_APPLY_EP: return "mesh_ep";
    default: return "mesh_cp";
    }
}

/* Inserts one collective on every rank of group g, on the compute lane
 * right after after[i] (or before before[i]) of member i; then, stream >= 0,
 * moves the instance to that stream (it keeps waiting for its predecessor
 * on the compute lane), each member after the collective inserted before it
 * on that stream of its rank (a communicator runs its collectives in the
 * order they were issued). events_out (d entries) receives the members.
 *
 * Each member goes in at its own rank's anchor time and is then put right
 * at its anchor (place_op: ops starting in the same nanosecond). One time
 * for every rank could put a member before an op that follows its anchor
 * on a rank that runs behind, while on another rank it follows that op's
 * peer: with collectives among the anchors' neighbours, a cycle. */
static gboolean
ins_coll (Ctx *c, guint g, WeftCollType type, gint64 bytes, const char *dtype, const guint32 *after,
          const guint32 *before, gint64 stream, guint32 *events_out, GError **error)
{
  g_autofree int *numbers = g_new0 (int, c->d);
  g_autofree gint64 *times = g_new0 (gint64, c->d);
  g_autofree char *pg = g_strdup_printf ("weft_%s_%u", weft_apply_strategy_to_string (c->p->strategy), g);
  WeftEditCollSpec spec = { 0 };
  WeftEventRef first;
  WeftRank *r0;
  WeftCollInstance *inst;
  gint64 seq;

  for (guint i = 0; i < c->d; i++)
    {
      guint r = g * c->d + i;
      guint32 a = after ? after[i] : WEFT_NONE;
      numbers[i] = weft_trace_rank (c->trace, r)->rank;
      times[i] = MAX (time_for (c, r, clane (c, r), a, before ? before[i] : WEFT_NONE), 0);
    }
  spec.type = type;
  spec.bytes = MAX (bytes, 1);
  spec.ranks = numbers;
  spec.n_ranks = c->d;
  spec.stream = c->compute_stream;
  spec.at_time = times[0];
  spec.at_times = times;
  spec.pg_name = pg;
  spec.dtype = dtype;
  spec.transfer_ns = c->p->cost_model != NULL
                       ? weft_cost_model_estimate (c->p->cost_model, type, spec.bytes, numbers, c->d, NULL)
                       : -1;
  if (!weft_edit_session_insert_collective (c->s, &spec, &first, error))
    return FALSE;
  r0 = weft_trace_rank (c->trace, first.rank_index);
  inst = &g_array_index (c->trace->instances, WeftCollInstance,
                         g_array_index (r0->collectives, WeftCollective, weft_rank_event_coll (r0, first.event)).instance);
  seq = GPOINTER_TO_SIZE (g_hash_table_lookup (c->seq, pg));
  g_hash_table_insert (c->seq, g_strdup (pg), GSIZE_TO_POINTER (seq + 1));
  for (guint m = 0; m < inst->members->len; m++)
    {
      WeftInstanceMember *mem = &g_array_index (inst->members, WeftInstanceMember, m);
      WeftRank *rank = weft_trace_rank (c->trace, mem->rank_index);
      WeftCollective *coll = &g_array_index (rank->collectives, WeftCollective, mem->coll);
      guint i = mem->rank_index - g * c->d;
      WeftEventRef op = { mem->rank_index, coll->event };
      coll->seq = seq;
      coll->pg_desc = weft_strings_intern (rank->strings, pg_desc_of (c), -1);
      if (i >= c->d)
        continue;
      events_out[i] = coll->event;
      if (!place_op (c, op, after ? after[i] : WEFT_NONE, before ? before[i] : WEFT_NONE, error))
        return FALSE;
    }
  c->rep->n_collectives++;
  if (stream < 0)
    return TRUE;
  for (guint i = 0; i < c->d; i++)
    {
      guint r = g * c->d + i;
      gint64 key = ((gint64) r << 32) | (stream & 0xffffffff), at;
      gpointer prev = g_hash_table_lookup (c->last_on, &key);
      WeftEventRef op = { r, events_out[i] };
      at = weft_solver_start (c->solver, r, events_out[i]);
      if (prev != NULL)
        at = MAX (at, weft_solver_start (c->solver, r, GPOINTER_TO_UINT (prev) - 1) + 1);
      if (!weft_edit_session_move_to_stream (c->s, op, stream, at, FALSE, error))
        return FALSE;
      g_hash_table_insert (c->last_on, g_memdup2 (&key, sizeof key), GUINT_TO_POINTER (events_out[i] + 1));
    }
  return TRUE;
}

/* On rank r: an op right after coll_ev on its stream, moved in front of
 * `before` on the compute lane (WEFT_NONE: at the end), so the compute
 * stream waits for the collective there. */
static gboolean
ins_wait (Ctx *c, guint r, guint32 coll_ev, guint32 before, const char *name, WeftKernelClass kclass, gint64 dur,
          GError **error)
{
  WeftPaletteKernel k = { 0 };
  WeftEventRef op;
  guint32 lane = weft_solver_op_lane (c->solver, r, coll_ev);
  guint32 cl = clane (c, r);
  gint64 at;

  k.kclass = kclass;
  k.category = WEFT_CAT_KERNEL;
  k.name = (char *) name;
  k.median_dur = dur;
  k.example.rank_index = r;
  k.example.event = WEFT_NONE;
  if (!weft_edit_session_insert_kernel (c->s, r, lane, weft_solver_start (c->solver, r, coll_ev) + 1, &k, dur, &op, error))
    return FALSE;
  if (!place_op (c, op, coll_ev, WEFT_NONE, error))
    return FALSE;
  if (before != WEFT_NONE)
    at = MAX (0, weft_solver_start (c->solver, r, before) - 1);
  else
    {
      guint n = weft_solver_lane_n_ops (c->solver, r, cl);
      at = n > 0 ? weft_solver_end (c->solver, r, lane_op (c, r, cl, n - 1)) + 1 : 0;
    }
  if (!weft_edit_session_move_to_lane (c->s, op, cl, at, FALSE, error))
    return FALSE;
  if (before != WEFT_NONE && !place_op (c, op, WEFT_NONE, before, error))
    return FALSE;
  c->rep->n_kernels++;
  return TRUE;
}

/* ---- anchors within a block (original ops, stream order) --------------------------------- */

typedef struct
{
  guint32 first, last;
  guint32 mid;        /* forward: wo (first GEMM after attention); backward: last GEMM before attention */
  guint32 attn;       /* first attention op, WEFT_NONE */
  guint32 after_attn; /* the op after the last attention op of the block, WEFT_NONE */
  guint32 last_attn;
  guint32 last_gemm;  /* last GEMM of the block (w2 forward), else the last op */
  GArray *ops;        /* guint32 events */
} Anchors;

typedef struct
{
  Ctx  *c;
  guint r;
} PosCmp;

static gint
cmp_pos (gconstpointer x, gconstpointer y, gpointer data)
{
  PosCmp *pc = data;
  guint a = pos_of (pc->c, pc->r, *(const guint32 *) x), b = pos_of (pc->c, pc->r, *(const guint32 *) y);
  return (a > b) - (a < b);
}

/* The block's own ops (the profile's, from first to last in the order it
 * was recorded: the model lane, whose times edits do not change) in their
 * stream order now (an edit may have reordered them), and the anchors. */
static void
anchors_init (Ctx *c, guint r, const WeftBlock *b, Anchors *a)
{
  WeftRank *rank = weft_trace_rank (c->trace, r);
  WeftLane *ml = weft_rank_lane (rank, clane (c, r));
  g_autoptr (GArray) gemms = g_array_new (FALSE, FALSE, sizeof (guint32));
  guint first_attn_i = G_MAXUINT, last_attn_i = G_MAXUINT, last_norm_before_attn = G_MAXUINT;
  gboolean in = FALSE;
  PosCmp pc = { c, r };

  memset (a, 0, sizeof *a);
  a->ops = g_array_new (FALSE, FALSE, sizeof (guint32));
  a->first = b->first;
  a->last = b->last;
  a->attn = a->after_attn = a->last_attn = a->mid = WEFT_NONE;
  for (guint i = 0; i < ml->events->len; i++)
    {
      guint32 e = g_array_index (ml->events, guint32, i);
      WeftEvent *ev = weft_rank_event (rank, e);
      if (e == b->first)
        in = TRUE;
      if (in && (ev->flags & WEFT_EVENT_GPU_OP) && !(ev->flags & (WEFT_EVENT_CREATED | WEFT_EVENT_DELETED)) &&
          ev->kclass != WEFT_KCLASS_COMM && weft_solver_is_node (c->solver, r, e))
        g_array_append_val (a->ops, e);
      if (e == b->last)
        break;
    }
  g_array_sort_with_data (a->ops, cmp_pos, &pc);
  if (a->ops->len > 0)
    {
      a->first = g_array_index (a->ops, guint32, 0);
      a->last = g_array_index (a->ops, guint32, a->ops->len - 1);
    }
  for (guint i = 0; i < a->ops->len; i++)
    {
      WeftEvent *ev = weft_rank_event (rank, g_array_index (a->ops, guint32, i));
      if (ev->kclass == WEFT_KCLASS_ATTENTION)
        {
          if (first_attn_i == G_MAXUINT)
            first_attn_i = i;
          last_attn_i = i;
        }
      if (ev->kclass == WEFT_KCLASS_GEMM)
        g_array_append_val (gemms, i);
      /* norm backward kernels are reductions (Inductor's ..._pow_sum) */
      if ((ev->kclass == WEFT_KCLASS_NORM || ev->kclass == WEFT_KCLASS_REDUCTION) && first_attn_i == G_MAXUINT)
        last_norm_before_attn = i;
    }
  if (a->ops->len == 0)
    {
      /* only inserted ops between them: the block's own ends */
      g_array_append_val (a->ops, b->first);
      if (b->last != b->first)
        g_array_append_val (a->ops, b->last);
    }
  if (first_attn_i != G_MAXUINT)
    {
      a->attn = g_array_index (a->ops, guint32, first_attn_i);
      a->last_attn = g_array_index (a->ops, guint32, last_attn_i);
      if (last_attn_i + 1 < a->ops->len)
        a->after_attn = g_array_index (a->ops, guint32, last_attn_i + 1);
    }
  /* mid: forward wo = first GEMM after attention; backward: the MLP's input
   * gradients = the last GEMM before the norm backward that precedes the
   * attention backward (else the last GEMM before attention); else the
   * middle GEMM */
  for (guint k = 0; k < gemms->len; k++)
    {
      guint gi = g_array_index (gemms, guint, k);
      guint limit = last_norm_before_attn != G_MAXUINT ? last_norm_before_attn : first_attn_i;
      if (first_attn_i == G_MAXUINT)
        break;
      if (b->phase == WEFT_BLOCK_FORWARD && gi > first_attn_i && gi < a->ops->len - 1)
        {
          a->mid = g_array_index (a->ops, guint32, gi);
          break;
        }
      if (b->phase == WEFT_BLOCK_BACKWARD && gi < limit)
        a->mid = g_array_index (a->ops, guint32, gi);
    }
  if (a->mid == WEFT_NONE)
    {
      if (gemms->len >= 2)
        a->mid = g_array_index (a->ops, guint32, g_array_index (gemms, guint, gemms->len / 2 - 1));
      else
        a->mid = g_array_index (a->ops, guint32, (a->ops->len - 1) / 2);
    }
  a->last_gemm = gemms->len > 0 ? g_array_index (a->ops, guint32, g_array_index (gemms, guint, gemms->len - 1))
                                 : a->last;
  if (a->mid == a->last_gemm && a->ops->len >= 2)
    a->mid = g_array_index (a->ops, guint32, 0);
}

static void
anchors_clear (Anchors *a)
{
  g_array_free (a->ops, TRUE);
}

#define FOR_GROUP(c, g, i, r) for (guint i = 0, r = (g) * (c)->d; i < (c)->d; i++, r++)

/* Collects per member of group g an anchor of block (phase, bi). */
typedef enum { A_FIRST, A_LAST, A_MID, A_LAST_GEMM, A_ATTN, A_LAST_ATTN, A_AFTER_ATTN } AnchorKind;

static gboolean
anchors_of (Ctx *c, guint g, WeftBlockPhase phase, guint bi, AnchorKind kind, guint32 *out)
{
  FOR_GROUP (c, g, i, r)
    {
      Anchors a;
      anchors_init (c, r, blk (c, r, phase, bi), &a);
      out[i] = kind == A_FIRST ? a.first : kind == A_LAST ? a.last : kind == A_MID ? a.mid : kind == A_LAST_GEMM ? a.last_gemm
             : kind == A_ATTN ? a.attn : kind == A_LAST_ATTN ? a.last_attn : a.after_attn;
      anchors_clear (&a);
      if (out[i] == WEFT_NONE)
        return FALSE;
    }
  return TRUE;
}

static guint
n_blocks (Ctx *c, WeftBlockPhase phase)
{
  WeftBlocks *bl = g_ptr_array_index (c->blocks, 0);
  return phase == WEFT_BLOCK_FORWARD ? bl->n_forward : bl->n_backward;
}

/* First optimizer op after the backward on rank r's compute lane, WEFT_NONE. */
static guint32
optimizer_op (Ctx *c, guint r)
{
  WeftBlocks *bl = g_ptr_array_index (c->blocks, r);
  WeftRank *rank = weft_trace_rank (c->trace, r);
  guint32 lane = bl->lane;
  guint n = weft_solver_lane_n_ops (c->solver, r, lane);
  guint p = bl->n_backward > 0 ? pos_of (c, r, blk (c, r, WEFT_BLOCK_BACKWARD, bl->n_backward - 1)->last) : 0;
  for (; p < n; p++)
    {
      guint32 e = lane_op (c, r, lane, p);
      if (weft_rank_event (rank, e)->kclass == WEFT_KCLASS_OPTIMIZER)
        return e;
    }
  return WEFT_NONE;
}

#define COPY_OUT_KERNEL "void at::native::(anonymous namespace)::split_with_sizes_copy_out_contiguous_no_cast_kernel"
#define WAIT_OP "weft::stream_wait"

static gint64
copy_ns (Ctx *c, gint64 bytes)
{
  /* read + write at 75 % of HBM, + 1.5 us */
  double t = 2.0 * (double) bytes / (c->hw->hbm_bytes_per_s * 0.75) * 1e9;
  return (gint64) MIN (t, 1e12) + 1500;
}

static gboolean
apply_fsdp_phase (Ctx *c, guint g, WeftBlockPhase phase, GError **error)
{
  guint n = n_blocks (c, phase);
  g_autofree guint32 *anc = g_new0 (guint32, c->d);
  g_autofree guint32 *first = g_new0 (guint32, c->d);
  g_autofree guint32 *last = g_new0 (guint32, c->d);
  g_autofree guint32 *mem = g_new0 (guint32, c->d);
  gint64 bytes = c->P * c->p->dtype_bytes;
  gboolean gather = phase == WEFT_BLOCK_FORWARD || !c->p->no_reshard;

  for (guint i = 0; i < n; i++)
    {
      anchors_of (c, g, phase, i, A_FIRST, first);
      if (gather)
        {
          gboolean after = FALSE;
          if (i > 0 && c->p->no_prefetch)
            {
              anchors_of (c, g, phase, i - 1, A_LAST, anc);
              after = TRUE;
            }
          else
            anchors_of (c, g, phase, i > 0 ? i - 1 : 0, A_FIRST, anc);
          if (!ins_coll (c, g, WEFT_COLL_ALL_GATHER, bytes, "BFloat16", after ? anc : NULL, after ? NULL : anc, 15,
                         mem, error))
            return FALSE;
          FOR_GROUP (c, g, k, r)
            if (!ins_wait (c, r, mem[k], first[k], COPY_OUT_KERNEL, WEFT_KCLASS_COPY, copy_ns (c, bytes),
                           error))
              return FALSE;
        }
      if (phase == WEFT_BLOCK_BACKWARD)
        {
          anchors_of (c, g, phase, i, A_LAST, last);
          if (!ins_coll (c, g, WEFT_COLL_REDUCE_SCATTER, bytes, "BFloat16", last, NULL, 17, mem, error))
            return FALSE;
          if (i + 1 == n)
            FOR_GROUP (c, g, k, r)
              if (!ins_wait (c, r, mem[k], optimizer_op (c, r), WAIT_OP, WEFT_KCLASS_OTHER, 0, error))
                return FALSE;
        }
    }
  return TRUE;
}

static gboolean
apply_ddp (Ctx *c, guint g, GError **error)
{
  guint n = n_blocks (c, WEFT_BLOCK_BACKWARD);
  gint64 grad_bytes = c->P * 4;   /* fp32 gradients */
  gint64 cap = (gint64) (c->p->bucket_mb * 1024 * 1024);
  g_autofree guint32 *anc = g_new0 (guint32, c->d);
  g_autofree guint32 *mem = g_new0 (guint32, c->d);

  for (guint i = 0; i < n; i++)
    {
      guint nb = (guint) CLAMP ((grad_bytes + cap - 1) / MAX (cap, 1), 1, 8);
      for (guint k = 0; k < nb; k++)
        {
          FOR_GROUP (c, g, m, r)
            {
              Anchors a;
              guint idx;
              anchors_init (c, r, blk (c, r, WEFT_BLOCK_BACKWARD, i), &a);
              idx = (guint) (((guint64) (k + 1) * a.ops->len + nb - 1) / nb) - 1;
              anc[m] = g_array_index (a.ops, guint32, MIN (idx, a.ops->len - 1));
              anchors_clear (&a);
            }
          if (!ins_coll (c, g, WEFT_COLL_ALL_REDUCE, grad_bytes / nb, "Float", anc, NULL, 19, mem, error))
            return FALSE;
        }
    }
  FOR_GROUP (c, g, k, r)
    if (!ins_wait (c, r, mem[k], optimizer_op (c, r), WAIT_OP, WEFT_KCLASS_OTHER, 0, error))
      return FALSE;
  return TRUE;
}

/* TP / TP-SP / EP: blocking collectives at the block's anchors. */
static gboolean
apply_blocking (Ctx *c, guint g, WeftBlockPhase phase, GError **error)
{
  guint n = n_blocks (c, phase);
  gint64 act = c->T * c->H * c->p->dtype_bytes;
  g_autofree guint32 *first = g_new0 (guint32, c->d);
  g_autofree guint32 *mid = g_new0 (guint32, c->d);
  g_autofree guint32 *last = g_new0 (guint32, c->d);
  g_autofree guint32 *mem = g_new0 (guint32, c->d);
  g_autofree guint32 *mem2 = g_new0 (guint32, c->d);

  for (guint i = 0; i < n; i++)
    {
      anchors_of (c, g, phase, i, A_FIRST, first);
      anchors_of (c, g, phase, i, A_MID, mid);
      anchors_of (c, g, phase, i, A_LAST_GEMM, last);
      switch (c->p->strategy)
        {
        case WEFT_APPLY_TP:
          if (!ins_coll (c, g, WEFT_COLL_ALL_REDUCE, act, "BFloat16", mid, NULL, -1, mem, error) ||
              !ins_coll (c, g, WEFT_COLL_ALL_REDUCE, act, "BFloat16", last, NULL, -1, mem, error))
            return FALSE;
          break;
        case WEFT_APPLY_TP_SP:
          if (!ins_coll (c, g, WEFT_COLL_ALL_GATHER, act, "BFloat16", NULL, first, -1, mem, error) ||
              !ins_coll (c, g, WEFT_COLL_REDUCE_SCATTER, act, "BFloat16", mid, NULL, -1, mem, error) ||
              !ins_coll (c, g, WEFT_COLL_ALL_GATHER, act, "BFloat16", mem, NULL, -1, mem2, error) ||
              !ins_coll (c, g, WEFT_COLL_REDUCE_SCATTER, act, "BFloat16", last, NULL, -1, mem, error))
            return FALSE;
          break;
        case WEFT_APPLY_EP:
          /* forward: counts + dispatch before the MLP, combine after it;
           * backward: the mirror (dispatch of the combine's gradients at
           * the block start, combine after the MLP's input gradients) */
          if (phase == WEFT_BLOCK_FORWARD)
            {
              if (!ins_coll (c, g, WEFT_COLL_ALL_TO_ALL, 64 * c->d, "Long", mid, NULL, -1, mem, error) ||
                  !ins_coll (c, g, WEFT_COLL_ALL_TO_ALL, act * 2, "BFloat16", mem, NULL, -1, mem2, error) ||
                  !ins_coll (c, g, WEFT_COLL_ALL_TO_ALL, act * 2, "BFloat16", last, NULL, -1, mem, error))
                return FALSE;
            }
          else if (!ins_coll (c, g, WEFT_COLL_ALL_TO_ALL, act * 2, "BFloat16", NULL, first, -1, mem, error) ||
                   !ins_coll (c, g, WEFT_COLL_ALL_TO_ALL, act * 2, "BFloat16", mid, NULL, -1, mem, error))
            return FALSE;
          break;
        default:
          break;
        }
    }
  return TRUE;
}

/* CP: K/V bytes of the whole sequence (KV dim = hidden / 4, as Llama-3's 8 of 32 heads). */
static gboolean
apply_cp (Ctx *c, guint g, WeftBlockPhase phase, GError **error)
{
  guint n = n_blocks (c, phase);
  gint64 kv = 2 * c->T * c->d * (c->H / 4) * c->p->dtype_bytes;
  g_autofree guint32 *attn = g_new0 (guint32, c->d);
  g_autofree guint32 *after = g_new0 (guint32, c->d);
  g_autofree guint32 *mem = g_new0 (guint32, c->d);

  for (guint i = 0; i < n; i++)
    {
      if (!anchors_of (c, g, phase, i, A_ATTN, attn))
        continue;
      if (c->p->strategy == WEFT_APPLY_CP_ALL_GATHER)
        {
          if (phase == WEFT_BLOCK_FORWARD)
            {
              if (!ins_coll (c, g, WEFT_COLL_ALL_GATHER, kv, "BFloat16", NULL, attn, -1, mem, error))
                return FALSE;
            }
          else
            {
              anchors_of (c, g, phase, i, A_LAST_ATTN, after);
              if (!ins_coll (c, g, WEFT_COLL_ALL_GATHER, kv, "BFloat16", NULL, attn, -1, mem, error) ||
                  !ins_coll (c, g, WEFT_COLL_REDUCE_SCATTER, kv, "BFloat16", after, NULL, -1, mem, error))
                return FALSE;
            }
          continue;
        }
      /* ring: cp-1 steps on the CP stream next to the attention; the op
       * after the attention waits for the last step */
      for (guint k = 0; k + 1 < c->d; k++)
        if (!ins_coll (c, g, WEFT_COLL_ALL_TO_ALL, (phase == WEFT_BLOCK_FORWARD ? kv : 2 * kv) / c->d, "BFloat16",
                       NULL, attn, 25, mem, error))
          return FALSE;
      if (anchors_of (c, g, phase, i, A_AFTER_ATTN, after))
        FOR_GROUP (c, g, k, r)
          if (!ins_wait (c, r, mem[k], after[k], WAIT_OP, WEFT_KCLASS_OTHER, 0, error))
            return FALSE;
    }
  return TRUE;
}

static gboolean
strip_collectives (WeftEditSession *s, WeftApplyReport *rep, GError **error)
{
  WeftTrace *trace = weft_edit_session_get_trace (s);
  WeftSolver *solver = weft_edit_session_get_solver (s);
  g_autoptr (GArray) ops = g_array_new (FALSE, FALSE, sizeof (WeftEventRef));
  g_autoptr (GHashTable) seen = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);
      for (guint i = 0; i < rank->collectives->len; i++)
        {
          WeftCollective *coll = &g_array_index (rank->collectives, WeftCollective, i);
          WeftEventRef op = { r, coll->event };
          if (!weft_solver_is_node (solver, r, coll->event))
            continue;
          if (coll->instance != WEFT_NONE)
            {
              if (g_hash_table_contains (seen, GUINT_TO_POINTER (coll->instance + 1)))
                continue;
              g_hash_table_add (seen, GUINT_TO_POINTER (coll->instance + 1));
            }
          g_array_append_val (ops, op);
        }
    }
  rep->n_stripped = ops->len;
  if (ops->len == 0)
    return TRUE;
  return weft_edit_session_delete (s, (const WeftEventRef *) (void *) ops->data, ops->len, error);
}

static gboolean
apply_inner (Ctx *c, GError **error)
{
  WeftTrace *trace = c->trace;
  WeftBlocks *b0;
  guint n_groups;

  if (c->p->strip_collectives && !strip_collectives (c->s, c->rep, error))
    return FALSE;
  weft_edit_session_metrics (c->s, &c->rep->before, NULL);
  for (guint r = 0; r < c->n_ranks; r++)
    {
      WeftBlocks *bl = weft_apply_find_blocks (trace, r, error);
      if (bl == NULL)
        return FALSE;
      g_ptr_array_add (c->blocks, bl);
    }
  b0 = g_ptr_array_index (c->blocks, 0);
  c->compute_stream = weft_rank_lane (weft_trace_rank (trace, 0), b0->lane)->tid;
  for (guint r = 1; r < c->n_ranks; r++)
    {
      WeftBlocks *bl = g_ptr_array_index (c->blocks, r);
      WeftRank *rank = weft_trace_rank (trace, r);
      if (bl->n_forward != b0->n_forward || bl->n_backward != b0->n_backward)
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
                       "apply: rank %d has %u forward / %u backward blocks, rank %d has %u / %u",
                       rank->rank, bl->n_forward, bl->n_backward, weft_trace_rank (trace, 0)->rank, b0->n_forward,
                       b0->n_backward);
          return FALSE;
        }
      if (weft_rank_lane (rank, bl->lane)->tid != c->compute_stream)
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
                       "apply: rank %d computes on stream %" G_GINT64_FORMAT ", rank 0 on %" G_GINT64_FORMAT,
                       rank->rank, weft_rank_lane (rank, bl->lane)->tid, c->compute_stream);
          return FALSE;
        }
    }
  c->rep->source = b0->source;
  c->rep->phases_known = b0->phases_known;
  c->rep->n_forward = b0->n_forward;
  c->rep->n_backward = b0->n_backward;
  {
    gint64 P = 0, T = 0, H = 0;
    c->rep->sizes_inferred = infer_sizes (weft_trace_rank (trace, 0), b0, b0->lane, &P, &T, &H);
    c->P = c->p->params_per_block > 0 ? c->p->params_per_block : c->rep->sizes_inferred ? P : DEFAULT_PARAMS;
    c->T = c->p->tokens > 0 ? c->p->tokens : c->rep->sizes_inferred ? T : DEFAULT_TOKENS;
    c->H = c->p->hidden > 0 ? c->p->hidden : c->rep->sizes_inferred ? H : DEFAULT_HIDDEN;
    c->rep->params_per_block = c->P;
    c->rep->tokens = c->T;
    c->rep->hidden = c->H;
  }
  if (c->p->strategy == WEFT_APPLY_DDP && b0->n_backward == 0)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
                   "apply ddp: no backward blocks found (%u forward blocks from %s): DDP communicates only in backward",
                   b0->n_forward, weft_block_source_to_string (b0->source));
      return FALSE;
    }
  n_groups = c->n_ranks / c->d;
  c->rep->n_groups = n_groups;
  for (guint g = 0; g < n_groups; g++)
    {
      gboolean ok = TRUE;
      switch (c->p->strategy)
        {
        case WEFT_APPLY_DDP:
          ok = apply_ddp (c, g, error);
          break;
        case WEFT_APPLY_FSDP:
          ok = apply_fsdp_phase (c, g, WEFT_BLOCK_FORWARD, error) &&
               (b0->n_backward == 0 || apply_fsdp_phase (c, g, WEFT_BLOCK_BACKWARD, error));
          break;
        case WEFT_APPLY_TP: case WEFT_APPLY_TP_SP: case WEFT_APPLY_EP:
          ok = apply_blocking (c, g, WEFT_BLOCK_FORWARD, error) && apply_blocking (c, g, WEFT_BLOCK_BACKWARD, error);
          break;
        default:
          ok = apply_cp (c, g, WEFT_BLOCK_FORWARD, error) && apply_cp (c, g, WEFT_BLOCK_BACKWARD, error);
          break;
        }
      if (!ok)
        return FALSE;
    }
  if (c->rep->n_collectives == 0)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "apply %s: nothing to insert (no attention kernels in the blocks?)",
                   weft_apply_strategy_to_string (c->p->strategy));
      return FALSE;
    }
  return TRUE;
}

gboolean
weft_apply_strategy (WeftEditSession *session, const WeftApplyParams *params, WeftApplyReport *report,
                     GError **error)
{
  WeftApplyReport local;
  Ctx c = { 0 };
  gboolean ok;

  g_return_val_if_fail (session != NULL, FALSE);
  if (!weft_apply_params_validate (params, error))
    return FALSE;
  if (report == NULL)
    report = &local;
  memset (report, 0, sizeof *report);
  c.s = session;
  c.solver = weft_edit_session_get_solver (session);
  c.trace = weft_edit_session_get_trace (session);
  c.p = params;
  c.rep = report;
  c.n_ranks = c.trace->ranks->len;
  c.d = (guint) params->degree;
  report->n_ranks = c.n_ranks;
  if (c.n_ranks % c.d != 0)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
                   "apply %s: the trace has %u ranks, not a multiple of the degree %d (replicate a one-rank profile first)",
                   weft_apply_strategy_to_string (params->strategy), c.n_ranks, params->degree);
      return FALSE;
    }
  c.hw = params->cost_model != NULL ? weft_cost_model_get_hardware (params->cost_model)
                                    : weft_cost_model_get_hardware (weft_edit_session_get_cost_model (session));
  if (c.hw == NULL)
    c.hw = weft_hardware_preset ("h100");
  c.blocks = g_ptr_array_new_with_free_func ((GDestroyNotify) weft_blocks_free);
  c.seq = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  c.last_on = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  weft_edit_session_metrics (session, &report->original, NULL);
  report->before = report->original;
  weft_edit_session_begin_gesture (session);
  ok = apply_inner (&c, error);
  if (!ok && error != NULL && *error != NULL && !g_str_has_prefix ((*error)->message, "apply"))
    g_prefix_error (error, "apply %s: ", weft_apply_strategy_to_string (params->strategy));
  if (ok)
    weft_edit_session_end_gesture (session);
  else
    {
      g_autoptr (GError) e2 = NULL;
      if (!weft_edit_session_cancel_gesture (session, &e2))
        g_warning ("apply: cancelling: %s", e2->message);
      report->n_collectives = report->n_kernels = report->n_stripped = 0;
      report->before = report->original;
    }
  weft_edit_session_metrics (session, &report->after, NULL);
  g_ptr_array_unref (c.blocks);
  g_hash_table_unref (c.seq);
  g_hash_table_unref (c.last_on);
  return ok;
}

/* ---- replicate ----------------------------------------------------------------------------- */

static void
patch_distributed_info (WeftRank *rank, int r, int n)
{
  for (guint i = 0; i < rank->top_keys->len; i++)
    {
      WeftTopKey *k = &g_array_index (rank->top_keys, WeftTopKey, i);
      json_object *o;
      if (strcmp (weft_rank_string (rank, k->key), "distributedInfo") != 0)
        continue;
      o = json_tokener_parse (k->raw);
      if (o != NULL && json_object_is_type (o, json_type_object))
        {
          json_object_object_add (o, "rank", json_object_new_int (r));
          json_object_object_add (o, "world_size", json_object_new_int (n));
          g_free (k->raw);
          k->raw = g_strdup (json_object_to_json_string_ext (o, JSON_C_TO_STRING_PLAIN));
          k->raw_len = strlen (k->raw);
        }
      if (o != NULL)
        json_object_put (o);
    }
  rank->rank = r;
  rank->world_size = n;
}

WeftTrace *
weft_apply_replicate (WeftTrace *trace, int n_ranks, GError **error)
{
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_autofree char *text = NULL;
  g_autoptr (WeftTrace) out = NULL;
  gsize len = 0;
  gboolean ok;

  if (trace == NULL || trace->ranks->len != 1)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "replicate: needs a one-rank trace (it has %u)",
                   trace ? trace->ranks->len : 0);
      return NULL;
    }
  if (n_ranks < 1 || n_ranks > 64)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "replicate: %d ranks is not in [1, 64]", n_ranks);
      return NULL;
    }
  dir = g_dir_make_tmp ("weft-apply-XXXXXX", error);
  if (dir == NULL)
    return NULL;
  path = g_build_filename (dir, "rank0_trace.json", NULL);
  ok = weft_rank_save (weft_trace_rank (trace, 0), path, NULL, error) &&
       g_file_get_contents (path, &text, &len, error);
  g_unlink (path);
  g_rmdir (dir);
  if (!ok)
    return NULL;
  out = weft_trace_new ();
  for (int r = 0; r < n_ranks; r++)
    {
      g_autofree char *name = g_strdup_printf ("%s [copy for rank %d]", weft_trace_rank (trace, 0)->path, r);
      WeftRank *rank = weft_rank_load_buffer (name, text, len, NULL, error);
      if (rank == NULL)
        return NULL;
      patch_distributed_info (rank, r, n_ranks);
      weft_trace_add_rank (out, rank);
    }
  weft_trace_index_across_ranks (out);
  return g_steal_pointer (&out);
}

WeftEditSession *
weft_apply_to_trace (WeftTrace *trace, const WeftApplyParams *params, WeftApplyReport *report, GError **error)
{
  g_autoptr (WeftEditSession) s = NULL;
  g_autoptr (WeftTrace) owned = trace;   /* taken, freed on every failure */
  WeftTrace *t;

  g_return_val_if_fail (trace != NULL, NULL);
  if (!weft_apply_params_validate (params, error))
    return NULL;
  if (trace->ranks->len == 1 && params->degree > 1)
    {
      WeftTrace *replica = weft_apply_replicate (trace, params->degree, error);
      if (replica == NULL)
        return NULL;
      weft_trace_free (g_steal_pointer (&owned));
      owned = replica;
    }
  t = owned;
  s = weft_edit_session_new (t, NULL, error);
  if (s == NULL)
    return NULL;
  g_steal_pointer (&owned);              /* the session owns it now */
  if (!weft_apply_strategy (s, params, report, error))
    return NULL;
  return g_steal_pointer (&s);
}

/* ---- palette ----------------------------------------------------------------------------- */

static void
apply_coll_free (gpointer p)
{
  WeftApplyCollective *c = p;
  g_free (c->label);
  g_free (c);
}

static void
add_template (GPtrArray *out, const WeftCostModel *cm, int n, WeftCollType type, gint64 bytes, const char *role,
              gint64 stream, const char *phase, guint per_block, const char *label)
{
  WeftApplyCollective *c = g_new0 (WeftApplyCollective, 1);
  c->type = type;
  c->bytes = MAX (bytes, 1);
  c->group_size = n;
  c->stream_role = role;
  c->stream = stream;
  c->phase = phase;
  c->per_block = per_block;
  c->label = g_strdup (label);
  c->estimate_ns = weft_cost_model_estimate (cm, type, c->bytes, NULL, (guint) n, NULL);
  g_ptr_array_add (out, c);
}

GPtrArray *
weft_apply_strategy_collectives (const WeftApplyParams *p, GError **error)
{
  g_autoptr (WeftCostModel) own = NULL;
  const WeftCostModel *cm;
  GPtrArray *out;
  gint64 P, T, H, act, kv;
  int n;

  if (!weft_apply_params_validate (p, error))
    return NULL;
  cm = p->cost_model;
  if (cm == NULL)
    cm = own = weft_cost_model_new (NULL);
  n = p->degree;
  P = p->params_per_block > 0 ? p->params_per_block : DEFAULT_PARAMS;
  T = p->tokens > 0 ? p->tokens : DEFAULT_TOKENS;
  H = p->hidden > 0 ? p->hidden : DEFAULT_HIDDEN;
  act = T * H * p->dtype_bytes;
  kv = 2 * T * n * (H / 4) * p->dtype_bytes;
  out = g_ptr_array_new_with_free_func (apply_coll_free);
  switch (p->strategy)
    {
    case WEFT_APPLY_DDP:
      {
        gint64 cap = (gint64) (p->bucket_mb * 1024 * 1024);
        gint64 nb = CLAMP ((P * 4 + cap - 1) / MAX (cap, 1), 1, 8);
        add_template (out, cm, n, WEFT_COLL_ALL_REDUCE, P * 4 / nb, "dp-comm", 19, "backward", (guint) nb,
                      "DDP bucket all-reduce of fp32 gradients (overlaps backward)");
        break;
      }
    case WEFT_APPLY_FSDP:
      add_template (out, cm, n, WEFT_COLL_ALL_GATHER, P * p->dtype_bytes, "fsdp-all-gather", 15,
                    p->no_reshard ? "forward" : "both", 1, "FSDP all-gather of a block's parameters (prefetched)");
      add_template (out, cm, n, WEFT_COLL_REDUCE_SCATTER, P * p->dtype_bytes, "fsdp-reduce-scatter", 17, "backward", 1,
                    "FSDP reduce-scatter of a block's gradients");
      break;
    case WEFT_APPLY_TP:
      add_template (out, cm, n, WEFT_COLL_ALL_REDUCE, act, "compute", 7, "both", 2,
                    "TP all-reduce after wo / w2 (forward), after the input gradients (backward); compute waits");
      break;
    case WEFT_APPLY_TP_SP:
      add_template (out, cm, n, WEFT_COLL_ALL_GATHER, act, "compute", 7, "both", 2,
                    "SP all-gather along the sequence before attention / MLP");
      add_template (out, cm, n, WEFT_COLL_REDUCE_SCATTER, act, "compute", 7, "both", 2,
                    "SP reduce-scatter after wo / w2");
      break;
    case WEFT_APPLY_EP:
      add_template (out, cm, n, WEFT_COLL_ALL_TO_ALL, 64 * n, "compute", 7, "forward", 1,
                    "EP all-to-all of token counts per expert");
      add_template (out, cm, n, WEFT_COLL_ALL_TO_ALL, act * 2, "compute", 7, "both", 2,
                    "EP dispatch / combine all-to-all (top-2)");
      break;
    case WEFT_APPLY_CP_RING:
      add_template (out, cm, n, WEFT_COLL_ALL_TO_ALL, kv / n, "cp", 25, "both", (guint) (n - 1),
                    "CP ring step: K/V chunk to the next rank (send/recv), overlaps attention");
      break;
    case WEFT_APPLY_CP_ALL_GATHER:
      add_template (out, cm, n, WEFT_COLL_ALL_GATHER, kv, "compute", 7, "both", 1,
                    "CP all-gather of K/V before attention");
      add_template (out, cm, n, WEFT_COLL_REDUCE_SCATTER, kv, "compute", 7, "backward", 1,
                    "CP reduce-scatter of dK/dV after attention backward");
      break;
    default:
      break;
    }
  return out;
}
