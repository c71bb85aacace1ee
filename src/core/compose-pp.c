/* compose-pp.c: pipeline parallelism in the composer.
 *
 * Builds each stage's program from the step emitters (compose-emit.c:
 * scopes, kernels, collectives; compose-step.c: the blocks, the FSDP
 * units).
 *
 * The ranks of one pipeline stage are [s x inner, (s + 1) x inner) (mesh
 * order pp, dp, cp, tp: pp outermost). The step runs every rank in
 * lockstep up to the pipeline (ProfilerStep, the inputs), then each stage's
 * schedule on its ranks alone (c->r_lo .. c->r_hi), then every rank again
 * for the gradient norm (its all-reduce over pp), the optimizer and the
 * loss sync. The schedules follow torch.distributed.pipelining
 * (schedules.py): ScheduleGPipe and Schedule1F1B run their own
 * _step_microbatches (fused send/recv batches, waits where PyTorch waits);
 * ScheduleInterleaved1F1B, ScheduleLoopedBFS and
 * ScheduleInterleavedZeroBubble build each rank's compute order
 * (_get_1f1b_rank_ops, _calculate_single_rank_operations) and lower it
 * with _add_send_recv: a receive is posted where the sender's compute was
 * scheduled, a compute waits for its receive, sends are waited at the end.
 *
 * A P2P op is one ncclDevKernel_SendRecv per send or recv with the
 * record_param_comms args PyTorch writes for them ("send" / "recv", "Dst
 * Rank" / "Src Rank", the pp group): the classifier pairs sender and
 * receiver by (group, sender > receiver, ordinal). Sends run on one NCCL
 * stream and receives on another, so that the send and the receive of one
 * batch (one NCCL group in PyTorch, one kernel there) run concurrently as
 * they do inside the group. Each pair is one rendezvous node; the first
 * member emitted creates it, the second completes it. */

#include "config.h"

#include <math.h>
#include <string.h>

#include "weft/weft-compose.h"
#include "compose-emit-private.h"

#define PP_MAX_RANKS 64

typedef enum
{
  PA_NONE = 0,
  PA_F,
  PA_B,       /* full backward */
  PA_I,       /* ZB: backward for the inputs */
  PA_W,       /* ZB: backward for the weights */
  PA_SEND_F,
  PA_RECV_F,
  PA_SEND_B,
  PA_RECV_B,
  PA_N_KINDS
} PpKind;

typedef struct
{
  gint16 stage;   /* global (virtual) stage */
  guint8 kind;
  gint16 mb;
  guint8 overlap; /* DualPipeV's OVERLAP_F_B: 1 its forward, 2 its backward (next) */
} PpAct;

/* a launched P2P op: per rank, its end handle for a later wait */
typedef struct
{
  guint32 node[PP_MAX_RANKS];
  gint64  ext[PP_MAX_RANKS];
} PpWork;

/* a rendezvous waiting for its second member: key (sender, receiver, k) */
typedef struct
{
  guint32 rdv;
  guint32 first_dep;   /* its placeholder dep: deps[first_dep + 1] */
} PpPending;

typedef struct
{
  int        pp, v, S, m, L;
  gboolean   vshape;         /* ZBV, DualPipeV: stages r and 2p - 1 - r on rank r */
  int        stage_rank;     /* pp rank being emitted */
  Dims       D;              /* per microbatch */
  Unit      *units;          /* n_units = L + 2 */
  gboolean  *gathered;
  gboolean   fsdp;
  int       *bwd_count;      /* per stage: backwards done (B or W) */
  GHashTable *pending;       /* "s>r#k" -> PpPending */
  GHashTable *ordinal;       /* "s>r" -> next k */
  GArray    *works;          /* PpWork */
} PpState;

/* PyTorch's generate_stage_to_rank_mapping: "loop" (stage j on rank j mod
 * p) or "v" (0 .. p - 1 down the ranks, p .. 2p - 1 back up: the V's turn,
 * stages p - 1 and p, on the last rank) */
static int
pp_rank_of (const PpState *P, int stage)
{
  if (P->vshape)
    return stage < P->pp ? stage : 2 * P->pp - 1 - stage;
  return stage % P->pp;
}

/* the k-th of the v stages of pp rank s, ascending */
static int
pp_rank_stage (const PpState *P, int s, int k)
{
  if (P->vshape)
    return k == 0 ? s : 2 * P->pp - 1 - s;
  return k * P->pp + s;
}

static int
pp_stage_lo (const PpState *P, int stage)
{
  return (int) ((gint64) stage * P->L / P->S);
}

/* ---- the schedules (compute order per pp rank) ------------------------------------ */

static void
pp_push (GArray *a, int stage, int kind, int mb)
{
  PpAct x = { (gint16) stage, (guint8) kind, (gint16) mb, 0 };
  g_array_append_val (a, x);
}

typedef struct
{
  int rank, v, pp, mpr, warmup;
} PpStageIndex;

static int
pp_fwd_stage (const PpStageIndex *x, int step)
{
  return ((step / x->mpr) % x->v) * x->pp + x->rank;
}

static int
pp_bwd_stage (const PpStageIndex *x, int step)
{
  return (x->v - 1 - ((step - x->warmup) / x->mpr) % x->v) * x->pp + x->rank;
}

/* PyTorch's _get_1f1b_rank_ops (interleaved 1F1B; ZB1P with zero_bubble) */
static void
pp_1f1b_rank_ops (GArray *ops, const PpStageIndex *x, int m, int fwd_bwd, int cooldown, int num_1f1b, gboolean zb)
{
  int total = x->warmup + fwd_bwd + cooldown;
  int *fmb = g_new0 (int, x->v * x->pp), *bmb = g_new0 (int, x->v * x->pp), *wmb = g_new0 (int, x->v * x->pp);
  int *bwd_ids = g_new0 (int, total + 1);
  int n_bwd = 0, n_w = 0;
  int post_warmup = zb ? x->pp - x->rank - 1 : (x->v * x->pp + 2 * (x->pp - 1 - x->rank)) - (x->warmup + x->rank);
  int bkind = zb ? PA_I : PA_B;

  (void) m;
  for (int i = 0; i < x->rank; i++)
    pp_push (ops, 0, PA_NONE, 0);
  for (int op = 0; op < total; op++)
    {
      int fs, bs;
      if (op < x->warmup)
        {
          fs = pp_fwd_stage (x, op);
          pp_push (ops, fs, PA_F, fmb[fs]++);
          if (op == x->warmup - 1)
            for (int i = 0; i < post_warmup; i++)
              pp_push (ops, 0, PA_NONE, 0);
          continue;
        }
      if (op < x->warmup + fwd_bwd)
        {
          fs = pp_fwd_stage (x, op);
          pp_push (ops, fs, PA_F, fmb[fs]++);
        }
      else if (!zb)
        pp_push (ops, 0, PA_NONE, 0);
      bs = pp_bwd_stage (x, op);
      pp_push (ops, bs, bkind, bmb[bs]++);
      bwd_ids[n_bwd++] = op;
      if (zb && op - x->warmup >= num_1f1b)
        {
          int ws = pp_bwd_stage (x, bwd_ids[n_w++]);
          pp_push (ops, ws, PA_W, wmb[ws]++);
        }
    }
  while (zb && n_w < n_bwd)
    {
      int ws = pp_bwd_stage (x, bwd_ids[n_w++]);
      pp_push (ops, ws, PA_W, wmb[ws]++);
    }
  g_free (fmb);
  g_free (bmb);
  g_free (wmb);
  g_free (bwd_ids);
}

/* ScheduleZBVZeroBubble._calculate_single_rank_operations (the ZB paper's
 * ZB-V, section 6): rank r holds chunk 0 = stage r and chunk 1 = stage
 * 2p - 1 - r; warm-up forwards, then F I W per chunk, the cool-down of
 * inputs-only backwards with the deferred weight passes. Computed for
 * max(2p - 1, m) microbatches, the ones past m left out (None). */
static void
pp_zbv_rank_ops (GArray *ops, const PpState *P, int rank)
{
  int pp = P->pp, n_micro = MAX (2 * pp - 1, P->m);
  int c0 = rank, c1 = 2 * pp - 1 - rank;
  int f0 = 0, f1 = 0, b0 = 0, b1 = 0, w0, w1;
  guint first = ops->len;

  for (int i = 0; i < rank; i++)
    pp_push (ops, 0, PA_NONE, 0);
  for (int i = 0; i < 2 * (pp - rank) - 1; i++)
    pp_push (ops, c0, PA_F, f0++);
  for (int i = 0; i < rank; i++)
    {
      pp_push (ops, c1, PA_F, f1++);
      pp_push (ops, c0, PA_F, f0++);
    }
  for (int i = 0; i < pp - rank; i++)
    {
      pp_push (ops, c1, PA_F, f1++);
      pp_push (ops, c1, PA_I, b1);
      pp_push (ops, c1, PA_W, b1++);
    }
  while (f1 < f0 || f0 < n_micro)
    {
      if (f0 < n_micro)
        pp_push (ops, c0, PA_F, f0++);
      pp_push (ops, c0, PA_I, b0);
      pp_push (ops, c0, PA_W, b0++);
      pp_push (ops, c1, PA_F, f1++);
      pp_push (ops, c1, PA_I, b1);
      pp_push (ops, c1, PA_W, b1++);
    }
  w0 = b0;
  w1 = b1;
  for (int i = 0; i < rank; i++)
    {
      pp_push (ops, c0, PA_I, b0++);
      pp_push (ops, c1, PA_I, b1++);
    }
  for (int i = 0; i < pp - rank; i++)
    {
      pp_push (ops, c0, PA_I, b0++);
      pp_push (ops, c0, PA_W, w0++);
    }
  while (w1 < b1)
    pp_push (ops, c1, PA_W, w1++);
  while (w0 < b0)
    pp_push (ops, c0, PA_W, w0++);
  for (guint k = first; k < ops->len; k++)
    {
      PpAct *a = &g_array_index (ops, PpAct, k);
      if (a->kind != PA_NONE && a->mb >= P->m)
        a->kind = PA_NONE;
    }
}

/* DualPipeV's counters: the next microbatch per (stage, kind), and the
 * queue of weight passes an I left (add_weight_action_if_pending). */
typedef struct
{
  int   *next;      /* [stage * 3 + (F, I, W)] */
  GQueue wq;        /* (stage << 16 | mb) + 1 */
} PpDual;

static void
pp_dual_add (GArray *ops, PpDual *d, int stage, int kind)
{
  int *f = &d->next[stage * 3], *i = &d->next[stage * 3 + 1], *w = &d->next[stage * 3 + 2];

  if (kind == PA_F)
    pp_push (ops, stage, PA_F, (*f)++);
  else if (kind == PA_B)
    {
      /* FULL_BACKWARD takes the I counter's microbatch and counts as I and W */
      pp_push (ops, stage, PA_B, (*i)++);
      (*w)++;
    }
  else
    {
      g_queue_push_tail (&d->wq, GINT_TO_POINTER (((stage << 16) | *i) + 1));
      pp_push (ops, stage, PA_I, (*i)++);
    }
}

static void
pp_dual_weight (GArray *ops, PpDual *d)
{
  int x;

  if (g_queue_is_empty (&d->wq))
    return;
  x = GPOINTER_TO_INT (g_queue_pop_head (&d->wq)) - 1;
  pp_push (ops, x >> 16, PA_W, x & 0xffff);
  d->next[(x >> 16) * 3 + 2]++;
}

/* add_overlap_f_b: one OVERLAP_F_B action, a forward and a full backward
 * of other microbatches (two PpActs, marked) */
static void
pp_dual_overlap (GArray *ops, PpDual *d, int fstage, int bstage)
{
  pp_dual_add (ops, d, fstage, PA_F);
  g_array_index (ops, PpAct, ops->len - 1).overlap = 1;
  pp_dual_add (ops, d, bstage, PA_B);
  g_array_index (ops, PpAct, ops->len - 1).overlap = 2;
}

/* ScheduleDualPipeV._calculate_single_rank_operations (DeepSeek-V3's
 * DualPipe folded into a V, after deepseek-ai/DualPipe's dualpipev.py):
 * its eight steps, the main one pairing chunk 0's forward with chunk 1's
 * backward and back. */
static void
pp_dualpipev_rank_ops (GArray *ops, const PpState *P, int rank)
{
  int n = P->pp, c0 = rank, c1 = 2 * n - 1 - rank;
  gboolean zb = FALSE;
  PpDual d;

  d.next = g_new0 (int, 3 * P->S);
  g_queue_init (&d.wq);
  for (int i = 0; i < (n - rank - 1) * 2; i++)   /* 1: F0 */
    pp_dual_add (ops, &d, c0, PA_F);
  for (int i = 0; i < rank + 1; i++)             /* 2: F0 F1 */
    {
      pp_dual_add (ops, &d, c0, PA_F);
      pp_dual_add (ops, &d, c1, PA_F);
    }
  for (int i = 0; i < n - rank - 1; i++)         /* 3: I1 W1 F1 */
    {
      pp_dual_add (ops, &d, c1, PA_I);
      pp_dual_weight (ops, &d);
      pp_dual_add (ops, &d, c1, PA_F);
    }
  for (int i = 0; i < P->m - n * 2 + rank + 1; i++)   /* 4: F0B1 - F1B0 */
    {
      if (i == 0 && rank == n - 1)
        {
          pp_dual_add (ops, &d, c0, PA_F);
          pp_dual_add (ops, &d, c1, PA_B);
        }
      else
        pp_dual_overlap (ops, &d, c0, c1);
      pp_dual_overlap (ops, &d, c1, c0);
    }
  for (int i = 0; i < n - rank - 1; i++)         /* 5: B1 - F1B0 */
    {
      pp_dual_add (ops, &d, c1, PA_B);
      pp_dual_overlap (ops, &d, c1, c0);
    }
  for (int i = 0, n6 = rank + 1; i < n6; i++)    /* 6: B1 B0, the second half zero-bubble */
    {
      if (i == n6 / 2 && rank % 2 == 1)
        zb = TRUE;
      pp_dual_add (ops, &d, c1, zb ? PA_I : PA_B);
      if (i == n6 / 2 && rank % 2 == 0)
        zb = TRUE;
      pp_dual_add (ops, &d, c0, zb ? PA_I : PA_B);
    }
  for (int i = 0; i < n - rank - 1; i++)         /* 7: W0 B0 */
    {
      pp_dual_weight (ops, &d);
      pp_dual_add (ops, &d, c0, zb ? PA_I : PA_B);
    }
  for (int i = 0; i < rank + 1; i++)             /* 8: W0 */
    pp_dual_weight (ops, &d);
  g_free (d.next);
  g_queue_clear (&d.wq);
}

/* The compute order of pp rank `rank` for the looped and V schedules. */
static GArray *
pp_compute_ops (const PpState *P, WeftPpSchedule sched, int rank)
{
  GArray *ops = g_array_new (FALSE, FALSE, sizeof (PpAct));
  int m = P->m, v = P->v, pp = P->pp;

  if (sched == WEFT_PP_ZBV)
    {
      pp_zbv_rank_ops (ops, P, rank);
      return ops;
    }
  if (sched == WEFT_PP_DUALPIPEV)
    {
      pp_dualpipev_rank_ops (ops, P, rank);
      return ops;
    }
  if (sched == WEFT_PP_LOOPED_BFS)
    {
      for (int i = 0; i < rank; i++)
        pp_push (ops, 0, PA_NONE, 0);
      for (int k = 0; k < v; k++)
        for (int mb = 0; mb < m; mb++)
          pp_push (ops, k * pp + rank, PA_F, mb);
      for (int i = 0; i < 2 * (pp - 1 - rank); i++)
        pp_push (ops, 0, PA_NONE, 0);
      for (int k = v - 1; k >= 0; k--)
        for (int mb = m - 1; mb >= 0; mb--)
          pp_push (ops, k * pp + rank, PA_B, mb);
      return ops;
    }
  {
    /* interleaved 1F1B (multiply factor 2) / ZB1P (1): rounds of
     * microbatches_per_round = m / max(1, m / pp) */
    gboolean zb = sched == WEFT_PP_ZB;
    int rounds = MAX (1, m / pp);
    PpStageIndex x = { rank, v, pp, m / rounds, 0 };
    int mb_ops = v * m;
    int fwd_bwd, cooldown;

    x.warmup = MIN ((v - 1) * x.mpr + (zb ? 1 : 2) * (pp - 1 - rank), mb_ops);
    fwd_bwd = mb_ops - x.warmup;
    cooldown = mb_ops - fwd_bwd;
    pp_1f1b_rank_ops (ops, &x, m, fwd_bwd, cooldown, zb ? rank : 0, zb);
  }
  return ops;
}

/* ---- lowering: PyTorch's _add_send_recv ------------------------------------------- */

static gsize
pp_seen_index (const PpState *P, int stage, int kind, int mb)
{
  return ((gsize) stage * PA_N_KINDS + (gsize) kind) * (gsize) P->m + (gsize) mb;
}

static gboolean
pp_has_comms (const PpState *P, const PpAct *a)
{
  if (a->kind == PA_F)
    return a->stage != P->S - 1 && pp_rank_of (P, a->stage + 1) != pp_rank_of (P, a->stage);
  if (a->kind == PA_I || a->kind == PA_B)
    return a->stage != 0 && pp_rank_of (P, a->stage - 1) != pp_rank_of (P, a->stage);
  return FALSE;
}

static gboolean
pp_ready (const PpState *P, const PpAct *a, const guint8 *seen)
{
  if (a->kind == PA_NONE)
    return TRUE;
  if (a->kind == PA_F && a->stage != 0)
    return seen[pp_seen_index (P, a->stage, PA_RECV_F, a->mb)] || seen[pp_seen_index (P, a->stage - 1, PA_F, a->mb)];
  if ((a->kind == PA_I || a->kind == PA_B) && a->stage != P->S - 1)
    return seen[pp_seen_index (P, a->stage, PA_RECV_B, a->mb)] || seen[pp_seen_index (P, a->stage + 1, PA_I, a->mb)]
           || seen[pp_seen_index (P, a->stage + 1, PA_B, a->mb)];
  return TRUE;
}

static void
pp_see (const PpState *P, guint8 *seen, const PpAct *a)
{
  seen[pp_seen_index (P, a->stage, a->kind, a->mb)] = 1;
}

/* A rank's compute order runs its own stages' actions on microbatches 0
 * .. m - 1, each stage's m forwards and m backwards (B, or I and W), as
 * PyTorch's _validate_schedule checks. */
static gboolean
pp_order_valid (const PpState *P, const GArray *ops, int rank)
{
  int *n = g_new0 (int, (gsize) P->S * PA_N_KINDS);
  gboolean ok = TRUE;

  for (guint k = 0; k < ops->len && ok; k++)
    {
      const PpAct *a = &g_array_index (ops, PpAct, k);
      if (a->kind == PA_NONE)
        continue;
      ok = a->stage >= 0 && a->stage < P->S && pp_rank_of (P, a->stage) == rank && a->mb >= 0 && a->mb < P->m
           && a->kind <= PA_W;
      if (ok)
        n[a->stage * PA_N_KINDS + a->kind]++;
    }
  for (int k = 0; k < P->v && ok; k++)
    {
      int j = pp_rank_stage (P, rank, k);
      const int *x = &n[j * PA_N_KINDS];
      ok = x[PA_F] == P->m && x[PA_I] == x[PA_W] && x[PA_B] + x[PA_I] == P->m;
    }
  g_free (n);
  return ok;
}

/* Each rank's actions with its sends and receives; NULL when the order
 * cannot be lowered (a malformed schedule: not expected). */
static GArray **
pp_lower (const PpState *P, WeftPpSchedule sched)
{
  GArray **compute = g_new0 (GArray *, P->pp);
  GArray **out = g_new0 (GArray *, P->pp);
  guint8 **seen = g_new0 (guint8 *, P->pp);
  guint *next = g_new0 (guint, P->pp);
  gsize n_seen = (gsize) P->S * PA_N_KINDS * P->m;
  gboolean ok = TRUE;

  for (int r = 0; r < P->pp; r++)
    {
      compute[r] = pp_compute_ops (P, sched, r);
      out[r] = g_array_new (FALSE, FALSE, sizeof (PpAct));
      seen[r] = g_new0 (guint8, n_seen);
      ok = ok && pp_order_valid (P, compute[r], r);
    }
  for (; ok;)
    {
      gboolean left = FALSE, progress = FALSE;
      for (int r = 0; r < P->pp; r++)
        {
          const PpAct *a;
          guint n_sub;
          if (next[r] >= compute[r]->len)
            continue;
          left = TRUE;
          a = &g_array_index (compute[r], PpAct, next[r]);
          /* an OVERLAP_F_B: both sub-actions ready, both computed, then
           * their sends */
          n_sub = a->overlap == 1 ? 2 : 1;
          if (!pp_ready (P, a, seen[r]) || (n_sub == 2 && !pp_ready (P, a + 1, seen[r])))
            continue;
          for (guint i = 0; i < n_sub; i++)
            if (a[i].kind != PA_NONE)
              g_array_append_val (out[r], a[i]);
          for (guint i = 0; i < n_sub; i++)
            if (a[i].kind != PA_NONE)
              {
                pp_see (P, seen[r], &a[i]);
                if (pp_has_comms (P, &a[i]))
                  {
                    gboolean fwd = a[i].kind == PA_F;
                    PpAct send = { a[i].stage, (guint8) (fwd ? PA_SEND_F : PA_SEND_B), a[i].mb, 0 };
                    PpAct recv = { (gint16) (fwd ? a[i].stage + 1 : a[i].stage - 1), (guint8) (fwd ? PA_RECV_F : PA_RECV_B),
                                   a[i].mb, 0 };
                    int rr = pp_rank_of (P, recv.stage);
                    g_array_append_val (out[r], send);
                    pp_see (P, seen[r], &send);
                    g_array_append_val (out[rr], recv);
                    pp_see (P, seen[rr], &recv);
                  }
              }
          next[r] += n_sub;
          progress = TRUE;
        }
      if (!left)
        break;
      if (!progress)
        {
          ok = FALSE;
          break;
        }
    }
  for (int r = 0; r < P->pp; r++)
    {
      g_array_unref (compute[r]);
      g_free (seen[r]);
    }
  g_free (compute);
  g_free (seen);
  g_free (next);
  if (!ok)
    {
      for (int r = 0; r < P->pp; r++)
        g_array_unref (out[r]);
      g_free (out);
      return NULL;
    }
  return out;
}

/* ---- P2P ---------------------------------------------------------------------------- */

/* One send (to stage rank peer) or receive on every rank being emitted;
 * returns the index of its PpWork in P->works. */
static guint
pp_p2p (Ctx *c, PpState *P, gboolean send, int peer)
{
  /* ProcessGroupNCCL keys a P2P communicator (and its stream) by the
   * pair of ranks: one stream per neighbour and direction */
  int stream = send ? (peer > P->stage_rank ? ST_PP_SEND : ST_PP_SEND_PREV)
                    : (peer < P->stage_rank ? ST_PP_RECV : ST_PP_RECV_NEXT);
  gint64 nelems = (gint64) llround (P->D.Tn * P->D.h);
  gint64 bytes = nelems * 2;
  guint32 kernels[PP_MAX_RANKS];
  PpWork work;
  int members[PP_MAX_RANKS];

  memset (&work, 0, sizeof work);
  scope_begin (c, "cpu_op", send ? "c10d::send" : "c10d::recv_", NULL);
  for (int r = c->r_lo; r < c->r_hi; r++)
    {
      RankState *s = &c->rs[r];
      int n = group_members (c, DIM_PP, r, members);
      int gpeer = r % c->inner + peer * c->inner;
      g_autofree char *rt = ranks_text (members, n);
      char *kargs, *args;
      Rec *rec;

      kargs = g_strdup_printf ("\"Collective name\": \"%s\", \"In msg nelems\": %" G_GINT64_FORMAT
                               ", \"Out msg nelems\": %" G_GINT64_FORMAT ", \"Group size\": %d, \"dtype\": \"BFloat16\", "
                               "\"In split size\": \"[]\", \"Out split size\": \"[]\", \"Process Group Name\": \"%s\", "
                               "\"Process Group Description\": \"%s\", \"Process Group Ranks\": \"%s\", \"%s\": %d",
                               send ? "send" : "recv", nelems, nelems, n, c->pg_name[DIM_PP], c->pg_desc[DIM_PP], rt,
                               send ? "Dst Rank" : "Src Rank", gpeer);
      /* record_param_comms' "Rank" of a P2P op is the peer's group rank */
      args = g_strdup_printf ("\"Rank\": %d, \"Global rank start\": %d, \"Global rank stride\": %d, %s", peer, members[0],
                              n > 1 ? members[1] - members[0] : 1, kargs);
      rec = rec_add (c, r, REC_SCOPE);
      rec->cat = "cpu_op";
      rec->name = "record_param_comms";
      rec->args = g_string_chunk_insert (c->strs, args);
      rec->ext = ++s->ext;
      rec->a = cpu_node (c, r, 4000, 800);
      s->stack[s->depth] = s->recs->len - 1;
      s->ext_stack[s->depth] = rec->ext;
      s->depth++;
      {
        char *full = g_strdup_printf ("%s, \"registers per thread\": 96, \"shared memory\": 103808, \"grid\": [%d, 1, 1], "
                                      "\"block\": [512, 1, 1], \"est. achieved occupancy %%\": 3",
                                      kargs, bytes > (1 << 20) ? 16 : 2);
        rec->annot = g_string_chunk_insert (c->strs, full);
        g_free (full);
      }
      g_free (kargs);
      g_free (args);
    }
  scope_begin (c, "user_annotation", send ? "nccl:send" : "nccl:recv", NULL);
  for (int r = c->r_lo; r < c->r_hi; r++)
    c->rs[r].ext_stack[c->rs[r].depth - 1] = -1;
  /* ProcessGroupNCCL: the NCCL stream waits for the current (compute)
   * stream; the wait carries the record that captured the compute stream's
   * last op (a new one when none did), so that it reads unambiguously
   * after other P2P launches */
  save_handle (c, 3, ST_COMPUTE);
  load_handle (c, 3);
  stream_wait (c, stream);
  for (int r = c->r_lo; r < c->r_hi; r++)
    {
      RankState *s = &c->rs[r];
      Rec *rpc = &g_array_index (s->recs, Rec, s->stack[s->depth - 2]);
      const char *kargs = rpc->annot;
      Rec *gr;
      int gpeer = r % c->inner + peer * c->inner;
      int sender = send ? r : gpeer, receiver = send ? gpeer : r;
      char key[48];
      guint k;
      PpPending *pend;

      rpc->annot = NULL;
      kernels[r - c->r_lo] = launch_gpu (c, r, stream, K_SENDRECV, -1, FALSE, kargs);
      gr = &g_array_index (s->recs, Rec, s->recs->len - 1);
      gr->nccl = TRUE;
      gr->annot = send ? "nccl:send" : "nccl:recv";
      gr->annot_ext = g_array_index (s->recs, Rec, s->stack[s->depth - 1]).ext;
      /* the rendezvous of (sender, receiver, k-th transfer between them) */
      g_snprintf (key, sizeof key, "%d>%d", sender, receiver);
      {
        /* each side counts its own ops: the k-th send pairs the k-th recv */
        char okey[56];
        g_snprintf (okey, sizeof okey, "%s%c", key, send ? 's' : 'r');
        k = GPOINTER_TO_UINT (g_hash_table_lookup (P->ordinal, okey));
        g_hash_table_insert (P->ordinal, g_strdup (okey), GUINT_TO_POINTER (k + 1));
      }
      g_snprintf (key + strlen (key), sizeof key - strlen (key), "#%u", k);
      pend = g_hash_table_lookup (P->pending, key);
      if (pend == NULL)
        {
          int pair[2] = { sender, receiver };
          gint64 t = weft_cost_model_estimate (c->cm, WEFT_COLL_SEND, bytes, pair, 2, NULL);
          guint32 g = kernels[r - c->r_lo];
          t = (gint64) (MIN ((double) t, 1e12) * (1.0 + 0.02 * (2.0 * g_rand_double (c->rng) - 1.0)));
          dep (c, g, EDGE_START);
          dep (c, g, EDGE_START);   /* placeholder: the partner's kernel */
          pend = g_new0 (PpPending, 1);
          pend->rdv = node_new (c, NODE_RDV, t, 0, 0);
          pend->first_dep = N (c, pend->rdv)->first_dep;
          g_hash_table_insert (P->pending, g_strdup (key), pend);
          N (c, g)->rdv = pend->rdv;
        }
      else
        {
          g_array_index (c->deps, guint32, pend->first_dep + 1) = kernels[r - c->r_lo] | EDGE_START;
          N (c, kernels[r - c->r_lo])->rdv = pend->rdv;
          g_hash_table_remove (P->pending, key);
        }
      s->stream_last[stream] = N (c, kernels[r - c->r_lo])->rdv;
      gr->b = N (c, kernels[r - c->r_lo])->rdv;
    }
  event_record (c, stream);
  for (int r = c->r_lo; r < c->r_hi; r++)
    {
      work.node[r] = c->rs[r].scratch;
      work.ext[r] = c->rs[r].scratch_ext;
    }
  scope_end (c);   /* nccl:* */
  scope_end (c);   /* record_param_comms */
  scope_end (c);   /* c10d op */
  g_array_append_val (P->works, work);
  return P->works->len - 1;
}

/* work.wait(): the compute stream waits for the P2P op's end. */
static void
pp_wait (Ctx *c, PpState *P, guint w)
{
  const PpWork *work = &g_array_index (P->works, PpWork, w);

  for (int r = c->r_lo; r < c->r_hi; r++)
    {
      c->rs[r].scratch = work->node[r];
      c->rs[r].scratch_ext = work->ext[r];
      c->rs[r].scratch_wait = NONE;
    }
  stream_wait (c, ST_COMPUTE);
}

/* Waits for every send in sends: the sends of a rank run in order on its
 * send stream, so the last one's end stands for all (one
 * cudaStreamWaitEvent, where PyTorch's work.wait() per send writes one
 * each; a stream takes at most 8 pending waits here). */
static void
pp_wait_sends (Ctx *c, PpState *P, GArray *sends)
{
  if (sends->len > 0)
    pp_wait (c, P, g_array_index (sends, guint, sends->len - 1));
  g_array_set_size (sends, 0);
}

/* ---- compute ---------------------------------------------------------------------- */

static void
pp_annotation (Ctx *c, int stage, const char *kind, int mb)
{
  char name[48];

  /* PyTorch's _get_profiler_function_name: "PP:<stage><F|B|I|W><mb>" */
  g_snprintf (name, sizeof name, "PP:%d%s%d", stage, kind, mb);
  scope_begin (c, "user_annotation", g_string_chunk_insert_const (c->strs, name), NULL);
}

static void
pp_unit_forward (Ctx *c, PpState *P, int u)
{
  const Dims *D = &P->D;
  char name[64];

  if (u >= 1 && u <= P->L)
    g_snprintf (name, sizeof name, "nn.Module: TransformerBlock_%d", u - 1);
  else
    g_strlcpy (name, u == 0 ? "nn.Module: Embedding_0" : "nn.Module: Linear_0", sizeof name);
  scope_begin (c, "python_function", g_string_chunk_insert_const (c->strs, name), NULL);
  if (P->fsdp && !P->gathered[u])
    {
      /* torchtitan keeps the parameters unsharded across microbatches
       * under PP (reshard_after_forward off): one all-gather per unit */
      scope_begin (c, "user_annotation", "FSDP::pre_forward", NULL);
      fsdp_all_gather (c, &P->units[u], -1);
      fsdp_copy_out (c, &P->units[u]);
      scope_end (c);
      P->gathered[u] = TRUE;
    }
  if (u == 0)
    {
      kernel (c, "aten::embedding", K_EMBED, K_MEM, 0, 2 * 2 * D->T * D->h, EW_STATS);
      tp_comm (c, D, 0);
    }
  else if (u <= P->L)
    {
      c->phase = PH_BLOCK_FWD;
      c->in_block = TRUE;
      c->cur_layer = u - 1;
      c->mm_k = 0;
      c->sac_mask[u - 1] = 0;
      block_forward (c, D, u - 1);
      c->phase = PH_OTHER;
      c->in_block = FALSE;
    }
  else
    {
      rms_norm (c, D->Tn, D->h);
      tp_comm (c, D, 1);
      gemm (c, GEMM_OUT, D->T, D->h, D->V / D->tp);
    }
  scope_end (c);
}

static void
pp_forward (Ctx *c, PpState *P, int j, int mb)
{
  const Dims *D = &P->D;
  int lo = pp_stage_lo (P, j), hi = pp_stage_lo (P, j + 1);

  pp_annotation (c, j, "F", mb);
  if (j == 0)
    pp_unit_forward (c, P, 0);
  for (int l = lo; l < hi; l++)
    pp_unit_forward (c, P, 1 + l);
  if (j == P->S - 1)
    {
      pp_unit_forward (c, P, P->L + 1);
      scope_begin (c, "cpu_op", "aten::cross_entropy_loss", NULL);
      kernel (c, "aten::_log_softmax", K_SOFTMAX, K_MEM, 0, (4 + 2) * D->T * D->V / D->tp, RED_STATS);
      kernel (c, "aten::nll_loss_forward", K_NLL, K_MEM, 0, 4 * D->T, RED_STATS);
      scope_end (c);
    }
  scope_end (c);
}

static void
pp_reduce_grads (Ctx *c, PpState *P, int j)
{
  int lo = pp_stage_lo (P, j), hi = pp_stage_lo (P, j + 1);

  if (!P->fsdp)
    return;
  if (j == P->S - 1)
    fsdp_reduce_scatter (c, &P->units[P->L + 1]);
  for (int l = hi - 1; l >= lo; l--)
    fsdp_reduce_scatter (c, &P->units[1 + l]);
  if (j == 0)
    fsdp_reduce_scatter (c, &P->units[0]);
}

/* B (full) or I (inputs only: the weight-gradient GEMMs left for W). */
static void
pp_backward (Ctx *c, PpState *P, int j, int mb, gboolean input_only)
{
  const Dims *D = &P->D;
  int lo = pp_stage_lo (P, j), hi = pp_stage_lo (P, j + 1);
  Ddp ddp = { 0, 0 };
  char name[64];

  pp_annotation (c, j, input_only ? "I" : "B", mb);
  c->skip_wgrad = input_only;
  if (j == P->S - 1)
    {
      scope_begin (c, "cpu_op", "autograd::engine::evaluate_function: LogSoftmaxBackward0", NULL);
      kernel (c, "aten::_log_softmax_backward_data", K_SOFTMAX_BWD, K_MEM, 0, (4 + 4 + 2) * D->T * D->V / D->tp,
              RED_STATS);
      scope_end (c);
      scope_begin (c, "cpu_op", "autograd::engine::evaluate_function: MmBackward0", NULL);
      gemm (c, GEMM_DGRAD, D->T, D->V / D->tp, D->h);
      gemm (c, GEMM_WGRAD, D->h, D->T, D->V / D->tp);
      scope_end (c);
      tp_comm (c, D, 0);
      rms_norm_backward (c, D->Tn, D->h);
    }
  for (int l = hi - 1; l >= lo; l--)
    {
      g_snprintf (name, sizeof name, "nn.Module: TransformerBlock_%d.backward", l);
      scope_begin (c, "python_function", g_string_chunk_insert_const (c->strs, name), NULL);
      c->in_block = TRUE;
      c->cur_layer = l;
      block_recompute (c, D, l);
      block_backward (c, D, l, &ddp);
      c->in_block = FALSE;
      scope_end (c);
    }
  c->skip_wgrad = FALSE;
  if (j == 0 && !input_only)
    {
      scope_begin (c, "cpu_op", "autograd::engine::evaluate_function: EmbeddingBackward0", NULL);
      kernel (c, "aten::embedding_dense_backward", K_EMBED_BWD, K_MEM, 0, 4 * D->T * D->h + 4 * D->V * D->h / D->tp,
              EW_STATS);
      scope_end (c);
    }
  scope_end (c);
}

/* W: the weight gradients of stage j's blocks (the GEMMs I left out). */
static void
pp_weight (Ctx *c, PpState *P, int j, int mb)
{
  const Dims *D = &P->D;
  int lo = pp_stage_lo (P, j), hi = pp_stage_lo (P, j + 1);
  double T = D->T, h = D->h, d = D->d, f = D->f / D->tp;
  double qd = D->nh * d, kvd = D->nkv * d;

  pp_annotation (c, j, "W", mb);
  scope_begin (c, "cpu_op", "autograd::engine::evaluate_function: MmBackward0", NULL);
  if (j == P->S - 1)
    gemm (c, GEMM_WGRAD, D->h, D->T, D->V / D->tp);
  for (int l = hi - 1; l >= lo; l--)
    {
      c->in_block = TRUE;
      c->cur_layer = l;
      if (!is_moe_block (c, l))
        {
          gemm (c, GEMM_WGRAD, f, T, h);       /* w2 */
          gemm (c, GEMM_WGRAD, h, T, f);       /* w1, w3 */
          gemm (c, GEMM_WGRAD, h, T, f);
        }
      gemm (c, GEMM_WGRAD, qd, T, h);          /* wo */
      gemm (c, GEMM_WGRAD, h, T, qd);          /* wq, wk, wv */
      gemm (c, GEMM_WGRAD, h, T, kvd);
      gemm (c, GEMM_WGRAD, h, T, kvd);
      c->in_block = FALSE;
    }
  scope_end (c);
  if (j == 0)
    {
      scope_begin (c, "cpu_op", "autograd::engine::evaluate_function: EmbeddingBackward0", NULL);
      kernel (c, "aten::embedding_dense_backward", K_EMBED_BWD, K_MEM, 0, 4 * D->T * D->h + 4 * D->V * D->h / D->tp,
              EW_STATS);
      scope_end (c);
    }
  scope_end (c);
}

/* A full backward or W of stage j done: after the last one its gradients
 * are reduced (REDUCE_GRAD, which the runtime runs after the backward's
 * SEND_B: *reduce_stage, run before the next action that is not a send). */
static void
pp_backward_done (PpState *P, int j, int *reduce_stage)
{
  if (++P->bwd_count[j] == P->m)
    *reduce_stage = j;
}

/* ---- the runtimes ------------------------------------------------------------------- */

/* ScheduleGPipe._step_microbatches */
static void
pp_run_gpipe (Ctx *c, PpState *P)
{
  int s = P->stage_rank, last = P->pp - 1;
  GArray *sends = g_array_new (FALSE, FALSE, sizeof (guint));

  for (int i = 0; i < P->m; i++)
    {
      if (s > 0)
        pp_wait (c, P, pp_p2p (c, P, FALSE, s - 1));
      pp_forward (c, P, s, i);
      if (s < last)
        {
          guint w = pp_p2p (c, P, TRUE, s + 1);
          g_array_append_val (sends, w);
        }
    }
  pp_wait_sends (c, P, sends);
  for (int i = 0; i < P->m; i++)
    {
      if (s < last)
        pp_wait (c, P, pp_p2p (c, P, FALSE, s + 1));
      pp_backward (c, P, s, i, FALSE);
      if (s > 0)
        {
          guint w = pp_p2p (c, P, TRUE, s - 1);
          g_array_append_val (sends, w);
        }
    }
  pp_wait_sends (c, P, sends);
  g_array_unref (sends);
  pp_reduce_grads (c, P, s);
}

/* A batch of at most one forward send and one backward op (a send or a
 * receive), as Schedule1F1B fuses them; returns how many were issued. */
typedef struct
{
  guint w[2];
  int   n;
} PpBatch;

static void
pp_batch_wait (Ctx *c, PpState *P, const PpBatch *b)
{
  for (int k = 0; k < b->n; k++)
    pp_wait (c, P, b->w[k]);
}

/* Schedule1F1B._step_microbatches. fwd_sends / bwd_sends: the deferred
 * sends (0 or 1 each; -1 none) fused into the next batch. */
static void
pp_run_1f1b (Ctx *c, PpState *P)
{
  int s = P->stage_rank, last = P->pp - 1;
  int warmup = MIN (P->m, P->pp - s);
  int f = 0, b = 0;
  PpBatch send_work = { { 0, 0 }, 0 };
  gboolean fwd_send = FALSE, bwd_send = FALSE;

  for (int k = 0; k < warmup; k++)
    {
      if (s > 0)
        pp_wait (c, P, pp_p2p (c, P, FALSE, s - 1));
      pp_forward (c, P, s, f);
      pp_batch_wait (c, P, &send_work);
      send_work.n = 0;
      fwd_send = s < last;
      if (f != warmup - 1 && fwd_send)
        {
          send_work.w[send_work.n++] = pp_p2p (c, P, TRUE, s + 1);
          fwd_send = FALSE;
        }
      f++;
    }
  for (;;)
    {
      PpBatch fused = { { 0, 0 }, 0 };
      /* fwd_sends + bwd_recvs */
      if (fwd_send)
        fused.w[fused.n++] = pp_p2p (c, P, TRUE, s + 1);
      if (s < last)
        fused.w[fused.n++] = pp_p2p (c, P, FALSE, s + 1);
      fwd_send = FALSE;
      pp_batch_wait (c, P, &fused);
      pp_backward (c, P, s, b, FALSE);
      bwd_send = s > 0;
      b++;
      if (f == P->m)
        break;
      fused.n = 0;
      /* bwd_sends + fwd_recvs */
      if (bwd_send)
        fused.w[fused.n++] = pp_p2p (c, P, TRUE, s - 1);
      if (s > 0)
        fused.w[fused.n++] = pp_p2p (c, P, FALSE, s - 1);
      bwd_send = FALSE;
      pp_batch_wait (c, P, &fused);
      pp_forward (c, P, s, f);
      fwd_send = s < last;
      f++;
    }
  send_work.n = 0;
  if (bwd_send)
    send_work.w[send_work.n++] = pp_p2p (c, P, TRUE, s - 1);
  while (b < P->m)
    {
      if (s < last)
        pp_wait (c, P, pp_p2p (c, P, FALSE, s + 1));
      pp_backward (c, P, s, b, FALSE);
      pp_batch_wait (c, P, &send_work);
      send_work.n = 0;
      if (s > 0)
        send_work.w[send_work.n++] = pp_p2p (c, P, TRUE, s - 1);
      b++;
    }
  pp_batch_wait (c, P, &send_work);
  pp_reduce_grads (c, P, s);
}

/* _PipelineScheduleRuntime over the lowered actions of this pp rank. */
static void
pp_run_lowered (Ctx *c, PpState *P, const GArray *acts)
{
  gsize n = (gsize) P->S * P->m;
  guint *fwd_recv = g_new (guint, n), *bwd_recv = g_new (guint, n);
  GArray *sends = g_array_new (FALSE, FALSE, sizeof (guint));

  for (gsize i = 0; i < n; i++)
    fwd_recv[i] = bwd_recv[i] = G_MAXUINT;
  int reduce_stage = -1;

  for (guint k = 0; k < acts->len; k++)
    {
      const PpAct *a = &g_array_index (acts, PpAct, k);
      gsize key = (gsize) a->stage * P->m + a->mb;
      guint w;

      if (reduce_stage >= 0 && a->kind != PA_SEND_B && a->kind != PA_SEND_F)
        {
          pp_reduce_grads (c, P, reduce_stage);
          reduce_stage = -1;
        }
      if (a->overlap == 1 && k + 1 < acts->len)
        {
          /* the runtime's OVERLAP_F_B: one record_function around its
           * sub-actions, run one after the other ("PP:(0F3;7B2)OVERLAP_F_B");
           * each sub-action keeps its own PP:<stage><F|B><mb> inside, so
           * that every op knows its microbatch */
          const PpAct *b = a + 1;
          char name[64];
          g_snprintf (name, sizeof name, "PP:(%dF%d;%dB%d)OVERLAP_F_B", a->stage, a->mb, b->stage, b->mb);
          scope_begin (c, "user_annotation", g_string_chunk_insert_const (c->strs, name), NULL);
        }
      switch (a->kind)
        {
        case PA_RECV_F:
          fwd_recv[key] = pp_p2p (c, P, FALSE, pp_rank_of (P, a->stage - 1));
          break;
        case PA_RECV_B:
          bwd_recv[key] = pp_p2p (c, P, FALSE, pp_rank_of (P, a->stage + 1));
          break;
        case PA_SEND_F:
          w = pp_p2p (c, P, TRUE, pp_rank_of (P, a->stage + 1));
          g_array_append_val (sends, w);
          break;
        case PA_SEND_B:
          w = pp_p2p (c, P, TRUE, pp_rank_of (P, a->stage - 1));
          g_array_append_val (sends, w);
          break;
        case PA_F:
          if (fwd_recv[key] != G_MAXUINT)
            pp_wait (c, P, fwd_recv[key]);
          pp_forward (c, P, a->stage, a->mb);
          break;
        case PA_B:
        case PA_I:
          if (bwd_recv[key] != G_MAXUINT)
            pp_wait (c, P, bwd_recv[key]);
          pp_backward (c, P, a->stage, a->mb, a->kind == PA_I);
          if (a->kind == PA_B)
            pp_backward_done (P, a->stage, &reduce_stage);
          break;
        case PA_W:
          pp_weight (c, P, a->stage, a->mb);
          pp_backward_done (P, a->stage, &reduce_stage);
          break;
        default:
          break;
        }
      if (a->overlap == 2)
        scope_end (c);
    }
  if (reduce_stage >= 0)
    pp_reduce_grads (c, P, reduce_stage);
  pp_wait_sends (c, P, sends);
  g_array_unref (sends);
  g_free (fwd_recv);
  g_free (bwd_recv);
}

/* ---- the step ---------------------------------------------------------------------- */

/* the parameters (elements, before FSDP) of the units pp rank s runs */
static double
pp_rank_params (const PpState *P, int s)
{
  double total = 0;

  for (int k = 0; k < P->v; k++)
    {
      int j = pp_rank_stage (P, s, k);
      if (j == 0)
        total += P->units[0].dense;
      for (int l = pp_stage_lo (P, j); l < pp_stage_lo (P, j + 1); l++)
        total += P->units[1 + l].dense + P->units[1 + l].experts;
      if (j == P->S - 1)
        total += P->units[P->L + 1].dense;
    }
  return total;
}

static void
pp_state_init (Ctx *c, PpState *P)
{
  memset (P, 0, sizeof *P);
  P->pp = c->p.pp;
  P->v = weft_compose_pp_stages_per_rank (&c->p);
  P->S = P->pp * P->v;
  P->vshape = c->p.pp_schedule == WEFT_PP_ZBV || c->p.pp_schedule == WEFT_PP_DUALPIPEV;
  P->m = weft_compose_pp_microbatches (&c->p);
  P->L = c->p.model.layers;
  P->fsdp = has (c, WEFT_STRATEGY_FSDP) && c->dim_on[DIM_DP];
  P->units = g_new0 (Unit, P->L + 2);
  P->gathered = g_new0 (gboolean, P->L + 2);
  P->bwd_count = g_new0 (int, P->S);
  P->pending = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  P->ordinal = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  P->works = g_array_new (FALSE, FALSE, sizeof (PpWork));
  /* the microbatch: mbs / m sequences */
  dims_init (c, &P->D);
  for (int i = 0; i < P->L + 2; i++)
    {
      P->units[i].ag_end = g_new0 (guint32, c->world);
      P->units[i].ag_end_ext = g_new0 (gint64, c->world);
    }
  P->units[0].dense = P->D.V * P->D.h / P->D.tp;
  for (int i = 0; i < P->L; i++)
    {
      P->units[1 + i].dense = block_params_dense (c, i);
      P->units[1 + i].experts = block_params_experts (c, i);
      P->units[1 + i].float8 = c->p.float8_all_gather && P->fsdp;
    }
  P->units[P->L + 1].dense = P->D.V * P->D.h / P->D.tp + P->D.h;
}

static void
pp_state_clear (PpState *P)
{
  for (int i = 0; i < P->L + 2; i++)
    {
      g_free (P->units[i].ag_end);
      g_free (P->units[i].ag_end_ext);
    }
  g_free (P->units);
  g_free (P->gathered);
  g_free (P->bwd_count);
  g_hash_table_destroy (P->pending);
  g_hash_table_destroy (P->ordinal);
  g_array_unref (P->works);
}

/* FSDP: the units of pp rank s unsharded before its first compute (the
 * pipelining runtime's UNSHARD ahead of a stage's compute; torchtitan keeps
 * them unsharded across the microbatches). */
static void
pp_unshard (Ctx *c, PpState *P, int s)
{
  if (!P->fsdp)
    return;
  scope_begin (c, "user_annotation", "FSDP::pre_forward", NULL);
  for (int k = 0; k < P->v; k++)
    {
      int j = pp_rank_stage (P, s, k), lo = pp_stage_lo (P, j), hi = pp_stage_lo (P, j + 1);
      for (int u = j == 0 ? 0 : 1 + lo; u <= (j == P->S - 1 ? P->L + 1 : hi); u++)
        {
          fsdp_all_gather (c, &P->units[u], -1);
          fsdp_copy_out (c, &P->units[u]);
          P->gathered[u] = TRUE;
        }
    }
  scope_end (c);
}

static void
pp_set_stage (Ctx *c, PpState *P, int s)
{
  P->stage_rank = s;
  c->r_lo = s * c->inner;
  c->r_hi = (s + 1) * c->inner;
}

static void
pp_all_ranks (Ctx *c)
{
  c->r_lo = 0;
  c->r_hi = c->world;
}

/* Grad-norm clipping (torchtitan's clip_grad_norm_ with the pp mesh: the
 * norm's all-reduce over dp, then over pp) and the optimizer, per stage. */
static void
pp_optimizer (Ctx *c, PpState *P)
{
  double shard = P->fsdp ? (double) c->p.dp * c->p.cp : 1;

  for (int s = 0; s < P->pp; s++)
    {
      pp_set_stage (c, P, s);
      scope_begin (c, "cpu_op", "aten::_foreach_norm", NULL);
      kernel (c, NULL, K_NORM2, K_MEM, 0, 4 * pp_rank_params (P, s) / shard, RED_STATS);
      kernel (c, NULL, K_REDUCE, K_MEM, 0, 4096, RED_STATS);
      scope_end (c);
      if (P->fsdp || (has (c, WEFT_STRATEGY_TP) && c->p.tp > 1))
        {
          CollSpec sp;
          spec_init (c, &sp, P->fsdp ? DIM_DP : DIM_TP, P->fsdp ? ST_DP : ST_TP, WEFT_COLL_ALL_REDUCE, 1, 4, "Float");
          blocking_collective (c, &sp);
        }
    }
  pp_all_ranks (c);
  {
    CollSpec sp;
    spec_init (c, &sp, DIM_PP, ST_DP, WEFT_COLL_ALL_REDUCE, 1, 4, "Float");
    blocking_collective (c, &sp);
  }
  for (int s = 0; s < P->pp; s++)
    {
      double local = pp_rank_params (P, s) / shard;
      pp_set_stage (c, P, s);
      scope_begin (c, "user_annotation", "Optimizer.step#AdamW.step", NULL);
      for (int i = 0; i < 4; i++)
        kernel (c, "aten::_fused_adamw_", K_ADAM, K_MEM, 0, local * 4 * 4 * 2 / 4,
                stats_args ("[320, 1, 1]", "[512, 1, 1]", 72, 0, 50));
      scope_end (c);
      scope_begin (c, "user_annotation", "Optimizer.zero_grad#AdamW.zero_grad", NULL);
      scope_end (c);
    }
  pp_all_ranks (c);
}

gboolean
pp_emit_step (Ctx *c, int step_no, GError **error)
{
  PpState P;
  GArray **lowered = NULL;
  int mbs = c->p.model.mbs, microbatches = c->p.microbatches;
  WeftPpSchedule sched = c->p.pp_schedule;
  char name[64];

  /* every shape below is one microbatch's: mbs / m sequences */
  c->p.microbatches = weft_compose_pp_microbatches (&c->p);
  c->p.model.mbs = mbs / c->p.microbatches;
  pp_state_init (c, &P);
  if (sched != WEFT_PP_GPIPE && sched != WEFT_PP_1F1B)
    {
      lowered = pp_lower (&P, sched);
      if (lowered == NULL)
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "pipeline schedule %s: cannot place its sends and receives",
                       weft_compose_pp_schedule_to_string (sched));
          pp_state_clear (&P);
          c->p.model.mbs = mbs;
          c->p.microbatches = microbatches;
          return FALSE;
        }
    }
  g_snprintf (name, sizeof name, "ProfilerStep#%d", step_no);
  pp_all_ranks (c);
  scope_begin (c, "user_annotation", g_string_chunk_insert_const (c->strs, name), NULL);
  step_inputs (c);
  if (P.fsdp)
    {
      scope_begin (c, "user_annotation", "FSDP::root_pre_forward", NULL);
      scope_end (c);
    }
  for (int s = 0; s < P.pp; s++)
    {
      pp_set_stage (c, &P, s);
      pp_unshard (c, &P, s);
      if (sched == WEFT_PP_GPIPE)
        pp_run_gpipe (c, &P);
      else if (sched == WEFT_PP_1F1B)
        pp_run_1f1b (c, &P);
      else
        pp_run_lowered (c, &P, lowered[s]);
      if (P.fsdp)
        {
          scope_begin (c, "user_annotation", "FSDP::root_post_backward", NULL);
          event_record (c, ST_RS);
          stream_wait (c, ST_COMPUTE);
          scope_end (c);
        }
    }
  pp_optimizer (c, &P);
  sync_to_host (c, "aten::item", "Memcpy DtoH (Device -> Pageable)", 2400,
                "\"bytes\": 4, \"memory bandwidth (GB/s)\": 0.0017");
  scope_end (c);   /* ProfilerStep */
  if (lowered != NULL)
    {
      for (int s = 0; s < P.pp; s++)
        g_array_unref (lowered[s]);
      g_free (lowered);
    }
  pp_state_clear (&P);
  c->p.model.mbs = mbs;
  c->p.microbatches = microbatches;
  return TRUE;
}
