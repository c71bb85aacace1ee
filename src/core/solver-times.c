/* solver-times.c: the solved times as flat arrays per model lane
 * (weft_solver_lane_times), for painters that walk a lane's events in
 * order: one load per event instead of one look-up through the graph.
 *
 * Built on the first request (every event through _weft_solver_event_times,
 * the same answer as weft_solver_times); afterwards a request rewrites only
 * what changed since the previous one:
 *   - the nodes a node-by-node evaluation changed (logged by eval_node);
 *   - the plan positions a sweep wrote (LaneTimes.sweep_lo to sweep_hi: a
 *     sweep's changes are a suffix of the topological order);
 *   - on a CPU thread whose sync moved, the events ending after the first
 *     moved sync's call (the thread's shift changes from there on), found
 *     with a prefix maximum of the observed ends;
 *   - the gpu_user_annotations of a rank whose ops moved (they cover them).
 * A structural change (weft_solver_apply_to_model, inserted or deleted
 * ops, stream moves: WeftSolver.structure) or a lane whose length changed
 * rebuilds everything. */
#include "config.h"

#include <string.h>

#include "solver-private.h"

static void
lane_rank_free (LaneTimesRank *lr)
{
  for (guint l = 0; l < lr->n_lanes; l++)
    {
      g_free (lr->start[l]);
      g_free (lr->end[l]);
      g_free (lr->pmax[l]);
      g_free (lr->orig_s[l]);
      g_free (lr->orig_e[l]);
    }
  g_free (lr->orig_s);
  g_free (lr->orig_e);
  g_free (lr->start);
  g_free (lr->end);
  g_free (lr->pmax);
  g_free (lr->n);
  g_free (lr->cpu_from);
  g_free (lr->ev_pos);
  memset (lr, 0, sizeof *lr);
}

void
_weft_solver_lane_times_free (WeftSolver *self)
{
  LaneTimes *lt = &self->lt;
  g_clear_pointer (&lt->g_rank, g_free);
  g_clear_pointer (&lt->g_gpu, g_free);
  g_clear_pointer (&lt->g_win, g_free);
  for (guint r = 0; r < lt->n_ranks; r++)
    lane_rank_free (&lt->ranks[r]);
  g_clear_pointer (&lt->ranks, g_free);
  lt->n_ranks = 0;
  if (lt->changed != NULL)
    g_array_free (lt->changed, TRUE);
  lt->changed = NULL;
  g_clear_pointer (&lt->gstart, g_free);
  g_clear_pointer (&lt->gend, g_free);
  g_clear_pointer (&lt->node_slot, g_free);
  g_clear_pointer (&lt->slot, g_free);
  lt->n_g = lt->n_node_slot = lt->n_slot = 0;
  lt->built = FALSE;
}

static void
build_rank (WeftSolver *self, guint r, LaneTimesRank *lr)
{
  WeftRank *rk = weft_trace_rank (self->trace, r);
  gint64 off = r < self->n_ranks ? self->ranks[r].offset : 0;

  lr->n_events = rk->events->len;
  lr->n_lanes = rk->lanes->len;
  lr->ev_pos = g_new (guint32, MAX (1, lr->n_events));
  for (guint i = 0; i < lr->n_events; i++)
    lr->ev_pos[i] = WEFT_NONE;
  lr->n = g_new0 (guint, MAX (1, lr->n_lanes));
  lr->start = g_new0 (gint64 *, MAX (1, lr->n_lanes));
  lr->end = g_new0 (gint64 *, MAX (1, lr->n_lanes));
  lr->pmax = g_new0 (gint64 *, MAX (1, lr->n_lanes));
  lr->orig_s = g_new0 (gint64 *, MAX (1, lr->n_lanes));
  lr->orig_e = g_new0 (gint64 *, MAX (1, lr->n_lanes));
  lr->cpu_from = g_new (gint64, MAX (1, lr->n_lanes));
  for (guint l = 0; l < lr->n_lanes; l++)
    {
      const WeftLane *lane = weft_rank_lane (rk, l);
      const guint32 *idx = (const guint32 *) (void *) lane->events->data;
      guint n = lane->events->len;
      gboolean syncs = r < self->n_ranks && l < self->ranks[r].n_thread_lanes && self->ranks[r].thread_by_lane[l] != NULL;

      lr->cpu_from[l] = G_MAXINT64;
      lr->n[l] = n;
      if (n == 0)
        continue;
      lr->start[l] = g_new (gint64, n);
      lr->end[l] = g_new (gint64, n);
      if (syncs)
        {
          lr->pmax[l] = g_new (gint64, n);
          lr->orig_s[l] = g_new (gint64, n);
          lr->orig_e[l] = g_new (gint64, n);
        }
      for (guint i = 0; i < n; i++)
        {
          guint32 e = idx[i];
          if (e < lr->n_events)
            lr->ev_pos[e] = i;
          _weft_solver_event_times (self, r, e, &lr->start[l][i], &lr->end[l][i]);
          if (syncs)
            {
              gint64 ts = 0, te = 0;
              guint32 el;
              if (_weft_solver_node (self, r, e) != WEFT_NONE ||
                  (self->ranks[r].annot_of != NULL &&
                   g_hash_table_contains (self->ranks[r].annot_of, GUINT_TO_POINTER (e + 1))) ||
                  !_weft_solver_cpu_orig (self, r, e, &ts, &te, &el) || el != l)
                {
                  /* not timed as a CPU event of this thread: asked for whole */
                  ts = G_MININT64 / 2;
                  te = G_MAXINT64 / 2;
                }
              lr->orig_s[l][i] = ts + off;
              lr->orig_e[l][i] = te + off;
              lr->pmax[l][i] = MAX (te + off, i > 0 ? lr->pmax[l][i - 1] : G_MININT64);
            }
        }
    }
}

typedef struct
{
  WeftSolver *self;
  gint        next;   /* next rank to build (atomic) */
} BuildJob;

static gpointer
build_worker (gpointer data)
{
  BuildJob *job = data;
  LaneTimes *lt = &job->self->lt;
  for (;;)
    {
      gint r = g_atomic_int_add (&job->next, 1);
      if (r < 0 || (guint) r >= lt->n_ranks)
        break;
      build_rank (job->self, (guint) r, &lt->ranks[r]);
    }
  return NULL;
}

/* The windows' clock: one for the whole process, so that an epoch a
 * painter kept from one solver (or from a build of its arrays since
 * replaced) is before the build epoch of any other: a cache keyed on a
 * solver's address and an epoch cannot take a new solver, or new arrays,
 * allocated at the same address for the old ones. */
static guint64
next_epoch (void)
{
  static guint64 clock;
  return __atomic_add_fetch (&clock, 1, __ATOMIC_RELAXED);
}

static void
build (WeftSolver *self)
{
  LaneTimes *lt = &self->lt;
  guint64 total = 0;
  guint n_threads;
  _weft_solver_lane_times_free (self);
  lt->n_ranks = self->trace->ranks->len;
  lt->ranks = g_new0 (LaneTimesRank, MAX (1, lt->n_ranks));
  for (guint r = 0; r < lt->n_ranks; r++)
    total += weft_trace_rank (self->trace, r)->events->len;
  /* ranks are independent and building only reads the solver and the
   * model: one per core for large traces */
  n_threads = total >= 200000 ? MIN (lt->n_ranks, g_get_num_processors ()) : 1;
  if (n_threads > 1)
    {
      BuildJob job = { self, 0 };
      GThread **threads = g_new (GThread *, n_threads);
      for (guint t = 1; t < n_threads; t++)
        threads[t] = g_thread_new ("weft-lane-times", build_worker, &job);
      build_worker (&job);
      for (guint t = 1; t < n_threads; t++)
        g_thread_join (threads[t]);
      g_free (threads);
    }
  else
    for (guint r = 0; r < lt->n_ranks; r++)
      build_rank (self, r, &lt->ranks[r]);
  lt->n_g = 0;
  for (guint r = 0; r < lt->n_ranks; r++)
    {
      lt->ranks[r].g0 = lt->n_g;
      lt->n_g += lt->ranks[r].n_lanes;
    }
  lt->gstart = g_new0 (gint64 *, MAX (1, lt->n_g));
  lt->gend = g_new0 (gint64 *, MAX (1, lt->n_g));
  lt->g_rank = g_new0 (guint, MAX (1, lt->n_g));
  lt->g_gpu = g_new0 (guint8, MAX (1, lt->n_g));
  lt->g_win = g_new0 (LanePosWin, MAX (1, lt->n_g));
  for (guint g = 0; g < lt->n_g; g++)
    lt->g_win[g].cur_lo = G_MAXUINT32;
  lt->n_node_slot = self->n_nodes;
  lt->node_slot = g_new (guint64, MAX (1, lt->n_node_slot));
  for (guint32 v = 0; v < lt->n_node_slot; v++)
    lt->node_slot[v] = G_MAXUINT64;
  for (guint r = 0; r < lt->n_ranks; r++)
    {
      LaneTimesRank *lr = &lt->ranks[r];
      WeftRank *rk = weft_trace_rank (self->trace, r);
      for (guint l = 0; l < lr->n_lanes; l++)
        {
          lt->gstart[lr->g0 + l] = lr->start[l];
          lt->gend[lr->g0 + l] = lr->end[l];
          lt->g_rank[lr->g0 + l] = r;
          lt->g_gpu[lr->g0 + l] = weft_rank_lane (rk, l)->kind == WEFT_LANE_GPU;
        }
      lr->cur_lo = G_MAXINT64;
      lr->cur_hi = G_MININT64;
      for (guint32 e = 0; e < lr->n_events; e++)
        {
          guint32 v = _weft_solver_node (self, r, e), lane;
          if (v == WEFT_NONE || v >= lt->n_node_slot || lr->ev_pos[e] == WEFT_NONE)
            continue;
          lane = weft_rank_event (rk, e)->lane;
          if (lane < lr->n_lanes && lr->ev_pos[e] < lr->n[lane])
            lt->node_slot[v] = ((guint64) (lr->g0 + lane) << 32) | lr->ev_pos[e];
        }
    }
  g_clear_pointer (&lt->slot, g_free);
  lt->changed = g_array_new (FALSE, FALSE, sizeof (guint32));
  lt->structure = self->structure;
  lt->n_edits_applied = self->n_edits_applied;
  lt->sweep_lo = G_MAXUINT;
  lt->overflow = FALSE;
  lt->built = TRUE;
  lt->build_epoch = lt->epoch = next_epoch ();
  self->stats.n_lane_times_builds++;
  self->stats.n_lane_times_written = 0;
  for (guint r = 0; r < lt->n_ranks; r++)
    self->stats.n_lane_times_written += lt->ranks[r].n_events;
}

/* Positions lo..hi (inclusive) of lane g may have changed in this refresh
 * (weft_solver_lane_times_changed). */
static inline void
note_positions (LaneTimes *lt, guint g, guint32 lo, guint32 hi)
{
  LanePosWin *w;
  if (g >= lt->n_g || lo > hi)
    return;
  w = &lt->g_win[g];
  w->cur_lo = MIN (w->cur_lo, lo);
  w->cur_hi = MAX (w->cur_hi, hi);
}

/* The entry at pos of lane g rewritten from (os, oe) to (ns, ne): note its
 * position, and on a GPU lane widen its rank's window of this refresh
 * (weft_solver_lane_times_gpu_window). */
static inline void
note_change (LaneTimes *lt, guint g, guint32 pos, gint64 os, gint64 oe, gint64 ns, gint64 ne)
{
  LaneTimesRank *lr;
  if (G_LIKELY (os == ns && oe == ne) || g >= lt->n_g)
    return;
  note_positions (lt, g, pos, pos);
  if (!lt->g_gpu[g])
    return;
  lr = &lt->ranks[lt->g_rank[g]];
  lr->cur_lo = MIN (lr->cur_lo, MIN (os, ns));
  lr->cur_hi = MAX (lr->cur_hi, MAX (MAX (oe, ne), MAX (os, ns)));
}

static inline void
rewrite_event (WeftSolver *self, guint r, WeftRank *rk, LaneTimesRank *lr, guint32 e)
{
  guint32 pos, lane;
  gint64 os, oe;
  if (e >= lr->n_events || (pos = lr->ev_pos[e]) == WEFT_NONE)
    return;
  lane = weft_rank_event (rk, e)->lane;
  if (lane >= lr->n_lanes || pos >= lr->n[lane])
    return;
  os = lr->start[lane][pos];
  oe = lr->end[lane][pos];
  _weft_solver_event_times (self, r, e, &lr->start[lane][pos], &lr->end[lane][pos]);
  note_change (&self->lt, lr->g0 + lane, pos, os, oe, lr->start[lane][pos], lr->end[lane][pos]);
  self->stats.n_lane_times_written++;
}

/* A node whose times may have changed: its event, or (a sync) the rest of
 * its CPU thread, or (an instance) its members. */
static void
rewrite_node (WeftSolver *self, guint32 v)
{
  const Node *n;
  LaneTimesRank *lr;
  WeftRank *rk;

  if (v >= self->n_nodes)
    return;
  n = &self->nodes[v];
  if (n->kind == NODE_INST)
    {
      for (guint i = 0; i < n->n_members; i++)
        if (n->members[i] != v && self->nodes[n->members[i]].kind != NODE_INST)
          rewrite_node (self, n->members[i]);
      return;
    }
  if (n->rank >= self->lt.n_ranks)
    return;
  lr = &self->lt.ranks[n->rank];
  rk = weft_trace_rank (self->trace, n->rank);
  if (n->kind == NODE_SYNC)
    {
      if (n->lane < lr->n_lanes)
        lr->cpu_from[n->lane] = MIN (lr->cpu_from[n->lane], MIN (n->obs_start, n->obs_end));
    }
  else
    lr->annots_dirty = TRUE;
  rewrite_event (self, n->rank, rk, lr, n->event);
}

/* The shift of a CPU thread at t (as _weft_solver_shift), from the shifts
 * of its syncs (shift[k]: sync k's solved end - its observed end), with a
 * cursor: *k is the number of syncs ending at or before the last t asked. */
static inline gint64
thread_shift (const ThreadSyncs *ts, const gint64 *shift, guint *k, gint64 t)
{
  guint n = ts->syncs->len, lo, hi;
  if (!((*k == 0 || ts->obs_end[*k - 1] <= t) && (*k == n || ts->obs_end[*k] > t)))
    {
      if (*k < n && ts->obs_end[*k] <= t && (*k + 1 == n || ts->obs_end[*k + 1] > t))
        (*k)++;
      else
        {
          lo = 0, hi = n;
          while (lo < hi)
            {
              guint mid = lo + (hi - lo) / 2;
              if (ts->obs_end[mid] <= t)
                lo = mid + 1;
              else
                hi = mid;
            }
          *k = lo;
        }
    }
  return *k == 0 ? 0 : shift[*k - 1];
}

/* The events of CPU lane l that end after the first moved sync: their
 * recorded times plus the thread's shift there (what
 * _weft_solver_event_times gives a CPU event), walking the lane and the
 * syncs together. */
static void
rewrite_thread (WeftSolver *self, guint r, WeftRank *rk, LaneTimesRank *lr, guint32 l)
{
  const WeftLane *lane = weft_rank_lane (rk, l);
  const guint32 *idx = (const guint32 *) (void *) lane->events->data;
  const ThreadSyncs *ts = l < self->ranks[r].n_thread_lanes ? self->ranks[r].thread_by_lane[l] : NULL;
  gint64 from = lr->cpu_from[l];
  guint lo = 0, hi = lr->n[l], ks = 0, ke = 0;
  g_autofree gint64 *shift = NULL;
  gint64 *st = lr->start[l], *en = lr->end[l];
  const gint64 *os = lr->orig_s[l], *oe = lr->orig_e[l];

  lr->cpu_from[l] = G_MAXINT64;
  if (lr->g0 + l < self->lt.n_g && self->lt.g_gpu[lr->g0 + l])
    {
      lr->cur_lo = G_MININT64; /* not expected on a GPU lane: all of it may change */
      lr->cur_hi = G_MAXINT64;
    }
  if (lr->pmax[l] != NULL)
    while (lo < hi)
      {
        guint mid = lo + (hi - lo) / 2;
        if (lr->pmax[l][mid] < from)
          lo = mid + 1;
        else
          hi = mid;
      }
  self->stats.n_lane_times_written += lr->n[l] - lo;
  if (lo < lr->n[l])
    note_positions (&self->lt, lr->g0 + l, lo, lr->n[l] - 1); /* all of it may have moved */
  if (ts == NULL || os == NULL)
    {
      for (guint i = lo; i < lr->n[l]; i++)
        _weft_solver_event_times (self, r, idx[i], &st[i], &en[i]);
      return;
    }
  shift = g_new (gint64, MAX (1, ts->syncs->len));
  for (guint k = 0; k < ts->syncs->len; k++)
    {
      gint64 end;
      _weft_solver_node_times (self, g_array_index (ts->syncs, guint32, k), NULL, &end);
      shift[k] = end - ts->obs_end[k];
    }
  for (guint i = lo; i < lr->n[l]; i++)
    {
      if (G_UNLIKELY (os[i] == G_MININT64 / 2))
        {
          _weft_solver_event_times (self, r, idx[i], &st[i], &en[i]);
          continue;
        }
      st[i] = os[i] + thread_shift (ts, shift, &ks, os[i]);
      en[i] = oe[i] + thread_shift (ts, shift, &ke, oe[i]);
      if (en[i] < st[i])
        en[i] = st[i];
    }
}

/* Per plan position, where its node's times go (OP nodes). */
static void
build_slots (WeftSolver *self)
{
  LaneTimes *lt = &self->lt;
  g_free (lt->slot);
  lt->n_slot = self->plan.n;
  lt->slot = g_new (guint64, MAX (1, lt->n_slot));
  for (guint q = 0; q < lt->n_slot; q++)
    {
      guint32 v = self->plan.node[q];
      lt->slot[q] = v < lt->n_node_slot ? lt->node_slot[v] : G_MAXUINT64;
    }
  lt->slot_builds = self->stats.n_plan_builds;
  lt->slot_structure = self->structure;
}

/* Plan positions q0 to q1 (inclusive): their times straight from the
 * plan's copy (current for every position of a valid plan); syncs move
 * their thread. */
static void
rewrite_sweep (WeftSolver *self, guint q0, guint q1)
{
  LaneTimes *lt = &self->lt;
  const Plan *p = &self->plan;
  guint64 written = 0;

  if (lt->slot == NULL || lt->slot_builds != self->stats.n_plan_builds || lt->slot_structure != self->structure ||
      lt->n_slot != p->n)
    build_slots (self);
  {
    gint64 *const *gs = lt->gstart, *const *ge = lt->gend;
    const guint64 *slot = lt->slot;
    const gint64 *ps = p->start, *pe = p->end;
    guint n = MIN (p->n, q1 + 1);
    for (guint q = q0; q < n; q++)
      {
        guint64 sl = slot[q];
        if (G_LIKELY (sl != G_MAXUINT64))
          {
            guint g = (guint) (sl >> 32), pos = (guint) sl;
            note_change (lt, g, pos, gs[g][pos], ge[g][pos], ps[q], pe[q]);
            gs[g][pos] = ps[q];
            ge[g][pos] = pe[q];
            written++;
          }
        else if (p->kind[q] == PLAN_SYNC)
          rewrite_node (self, p->node[q]);
      }
  }
  self->stats.n_lane_times_written += written;
  for (guint r = 0; r < lt->n_ranks; r++)
    lt->ranks[r].annots_dirty = TRUE;
}

static void
refresh (WeftSolver *self)
{
  LaneTimes *lt = &self->lt;
  guint64 epoch = lt->epoch = next_epoch ();

  if (lt->overflow)
    {
      for (guint32 v = 0; v < self->n_nodes; v++)
        if (!(self->nodes[v].flags & NODE_DELETED))
          rewrite_node (self, v);
    }
  else
    for (guint i = 0; i < lt->changed->len; i++)
      rewrite_node (self, g_array_index (lt->changed, guint32, i));
  if (lt->sweep_lo != G_MAXUINT && self->plan.ok)
    rewrite_sweep (self, lt->sweep_lo, lt->sweep_hi);
  else if (lt->sweep_lo != G_MAXUINT)
    for (guint q = lt->sweep_lo; q < self->n_order; q++)
      rewrite_node (self, self->order[q]);
  g_array_set_size (lt->changed, 0);
  lt->overflow = FALSE;
  lt->sweep_lo = G_MAXUINT;

  for (guint r = 0; r < lt->n_ranks; r++)
    {
      LaneTimesRank *lr = &lt->ranks[r];
      WeftRank *rk = weft_trace_rank (self->trace, r);
      for (guint32 l = 0; l < lr->n_lanes; l++)
        if (lr->cpu_from[l] != G_MAXINT64)
          rewrite_thread (self, r, rk, lr, l);
      if (lr->annots_dirty && r < self->n_ranks && self->ranks[r].annots != NULL)
        {
          GArray *annots = self->ranks[r].annots;
          for (guint k = 0; k < annots->len; k++)
            rewrite_event (self, r, rk, lr, g_array_index (annots, AnnotRec, k).event);
        }
      lr->annots_dirty = FALSE;
    }
  /* the windows of this refresh into the rings */
  for (guint r = 0; r < lt->n_ranks; r++)
    {
      LaneTimesRank *lr = &lt->ranks[r];
      if (lr->cur_lo > lr->cur_hi)
        continue;
      if (lr->n_win == LANE_WIN_RING)
        lr->win_lost = MAX (lr->win_lost, lr->win_epoch[lr->win_next]);
      else
        lr->n_win++;
      lr->win_epoch[lr->win_next] = epoch;
      lr->win_lo[lr->win_next] = lr->cur_lo;
      lr->win_hi[lr->win_next] = lr->cur_hi;
      lr->win_next = (lr->win_next + 1) % LANE_WIN_RING;
      lr->cur_lo = G_MAXINT64;
      lr->cur_hi = G_MININT64;
    }
  for (guint g = 0; g < lt->n_g; g++)
    {
      LanePosWin *w = &lt->g_win[g];
      if (w->cur_lo > w->cur_hi)
        continue;
      if (w->n == LANE_WIN_RING)
        w->lost = MAX (w->lost, w->epoch[w->next]);
      else
        w->n++;
      w->epoch[w->next] = epoch;
      w->lo[w->next] = w->cur_lo;
      w->hi[w->next] = w->cur_hi;
      w->next = (w->next + 1) % LANE_WIN_RING;
      w->cur_lo = G_MAXUINT32;
      w->cur_hi = 0;
    }
}

static gboolean
lane_current (WeftSolver *self, guint rank_index, guint32 lane)
{
  LaneTimes *lt = &self->lt;
  WeftRank *rk;
  if (!lt->built || lt->structure != self->structure || lt->n_edits_applied != self->n_edits_applied ||
      lt->n_ranks != self->trace->ranks->len)
    return FALSE;
  rk = weft_trace_rank (self->trace, rank_index);
  return rk->lanes->len == lt->ranks[rank_index].n_lanes && rk->events->len == lt->ranks[rank_index].n_events &&
         weft_rank_lane (rk, lane)->events->len == lt->ranks[rank_index].n[lane];
}

guint
weft_solver_lane_times (WeftSolver *self, guint rank_index, guint32 lane, const gint64 **start, const gint64 **end)
{
  LaneTimes *lt;
  LaneTimesRank *lr;

  g_return_val_if_fail (self != NULL, 0);
  if (start != NULL)
    *start = NULL;
  if (end != NULL)
    *end = NULL;
  if (rank_index >= self->trace->ranks->len || lane >= weft_trace_rank (self->trace, rank_index)->lanes->len)
    return 0;
  lt = &self->lt;
  if (!lane_current (self, rank_index, lane))
    build (self);
  else if (lt->sweep_lo != G_MAXUINT || lt->overflow || lt->changed->len > 0)
    refresh (self);
  lr = &lt->ranks[rank_index];
  if (start != NULL)
    *start = lr->start[lane];
  if (end != NULL)
    *end = lr->end[lane];
  return lr->n[lane];
}

gboolean
weft_solver_lane_times_gpu_window (WeftSolver *self, guint rank_index, guint64 since, guint64 *epoch, gint64 *lo,
                                   gint64 *hi)
{
  LaneTimes *lt;
  LaneTimesRank *lr;

  g_return_val_if_fail (self != NULL && epoch != NULL && lo != NULL && hi != NULL, FALSE);
  *lo = G_MAXINT64;
  *hi = G_MININT64;
  *epoch = 0;
  if (rank_index >= self->trace->ranks->len || weft_trace_rank (self->trace, rank_index)->lanes->len == 0)
    return FALSE;
  weft_solver_lane_times (self, rank_index, 0, NULL, NULL); /* current */
  lt = &self->lt;
  *epoch = lt->epoch;
  if (!lt->built || rank_index >= lt->n_ranks || since == 0 || since < lt->build_epoch || since > lt->epoch)
    return FALSE;
  lr = &lt->ranks[rank_index];
  if (since < lr->win_lost)
    return FALSE;
  for (guint k = 0; k < lr->n_win; k++)
    if (lr->win_epoch[k] > since)
      {
        *lo = MIN (*lo, lr->win_lo[k]);
        *hi = MAX (*hi, lr->win_hi[k]);
      }
  return TRUE;
}

gboolean
weft_solver_lane_times_changed (WeftSolver *self, guint rank_index, guint32 lane, guint64 since, guint64 *epoch,
                                guint *lo, guint *hi)
{
  LaneTimes *lt;
  const LanePosWin *w;
  guint g;

  g_return_val_if_fail (self != NULL && epoch != NULL && lo != NULL && hi != NULL, FALSE);
  *lo = G_MAXUINT;
  *hi = 0;
  *epoch = 0;
  if (rank_index >= self->trace->ranks->len || lane >= weft_trace_rank (self->trace, rank_index)->lanes->len)
    return FALSE;
  weft_solver_lane_times (self, rank_index, lane, NULL, NULL); /* current */
  lt = &self->lt;
  *epoch = lt->epoch;
  if (!lt->built || rank_index >= lt->n_ranks || lane >= lt->ranks[rank_index].n_lanes || since == 0 ||
      since < lt->build_epoch || since > lt->epoch)
    return FALSE;
  g = lt->ranks[rank_index].g0 + lane;
  if (g >= lt->n_g)
    return FALSE;
  w = &lt->g_win[g];
  if (since < w->lost)
    return FALSE;
  for (guint k = 0; k < w->n; k++)
    if (w->epoch[k] > since)
      {
        *lo = MIN (*lo, w->lo[k]);
        *hi = MAX (*hi, w->hi[k]);
      }
  return TRUE;
}

guint64
weft_solver_lane_times_pending (WeftSolver *self)
{
  LaneTimes *lt;
  guint64 n = 0;

  g_return_val_if_fail (self != NULL, 0);
  lt = &self->lt;
  if (!lt->built || lt->structure != self->structure || lt->n_edits_applied != self->n_edits_applied ||
      lt->n_ranks != self->trace->ranks->len)
    {
      for (guint r = 0; r < self->trace->ranks->len; r++)
        n += weft_trace_rank (self->trace, r)->events->len;
      return MAX (n, 1);
    }
  if (lt->overflow)
    n += self->n_nodes;
  else
    n += lt->changed->len;
  if (lt->sweep_lo != G_MAXUINT)
    n += self->plan.ok && lt->sweep_lo < self->plan.n ? MIN (self->plan.n - 1, lt->sweep_hi) + 1 - lt->sweep_lo
                                                      : self->n_order;
  return n;
}
