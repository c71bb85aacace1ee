/* layout.c: rows (rank headers, lanes, CPU summaries), nesting depth rows
 * of each lane, the per-rank overlap band kept for the painter (made in
 * band.c), row labels. */
#include "config.h"

#include <string.h>

#include "render-private.h"

/* ---- roles ---------------------------------------------------------------------- */

static WeftLaneRole
infer_role (WeftRank *rank, WeftLane *lane)
{
  guint n_comm = 0, n_compute = 0, n_copy = 0, n_ag = 0, n_rs = 0;

  if (lane->role != WEFT_LANE_ROLE_NONE || lane->kind != WEFT_LANE_GPU)
    return lane->role;
  for (guint i = 0; i < lane->events->len; i++)
    {
      const WeftEvent *ev = weft_rank_event (rank, g_array_index (lane->events, guint32, i));
      if (!(ev->flags & WEFT_EVENT_GPU_OP) || (ev->flags & WEFT_EVENT_DELETED))
        continue;
      if (weft_render_event_is_comm (rank, ev))
        {
          n_comm++;
          if (weft_event_coll (rank, ev) != WEFT_NONE && weft_event_coll (rank, ev) < rank->collectives->len)
            {
              WeftCollType t = g_array_index (rank->collectives, WeftCollective, weft_event_coll (rank, ev)).type;
              n_ag += t == WEFT_COLL_ALL_GATHER;
              n_rs += t == WEFT_COLL_REDUCE_SCATTER;
            }
        }
      else if (ev->category != WEFT_CAT_KERNEL || ev->kclass == WEFT_KCLASS_COPY)
        n_copy++;
      else
        n_compute++;
    }
  if (n_comm == 0 && n_compute == 0 && n_copy == 0)
    return WEFT_LANE_ROLE_NONE;
  if (n_comm > n_compute)
    {
      if (n_ag * 10 >= n_comm * 9)
        return WEFT_LANE_ROLE_FSDP_AG;
      if (n_rs * 10 >= n_comm * 9)
        return WEFT_LANE_ROLE_FSDP_RS;
      return WEFT_LANE_ROLE_COMM;
    }
  if (n_copy > n_compute)
    return WEFT_LANE_ROLE_COPY;
  return WEFT_LANE_ROLE_COMPUTE;
}

/* ---- depth rows ------------------------------------------------------------------- */

static void
compute_depths (WeftRank *rank, guint32 lane_idx, WeftLaneDepths *ld, guint8 *event_depth)
{
  WeftLane *lane = weft_rank_lane (rank, lane_idx);
  const guint32 *idx = (const guint32 *) (void *) lane->events->data;
  gint64 stack[WEFT_RENDER_MAX_DEPTH];
  guint sp = 0, max_depth = 0;

  for (guint i = 0; i < lane->events->len; i++)
    {
      const WeftEvent *ev = weft_rank_event (rank, idx[i]);
      guint d;
      while (sp > 0 && stack[sp - 1] <= ev->ts)
        sp--;
      d = MIN (sp, WEFT_RENDER_MAX_DEPTH - 1);
      event_depth[idx[i]] = (guint8) d;
      max_depth = MAX (max_depth, d);
      if (sp < WEFT_RENDER_MAX_DEPTH)
        stack[sp++] = MAX (weft_event_end (rank, ev), ev->ts + 1);
      else
        stack[sp - 1] = MAX (stack[sp - 1], weft_event_end (rank, ev));
    }
  ld->n_depth = max_depth + 1;
  ld->n_lane = lane->events->len;
  if (ld->n_depth > 1)
    {
      for (guint d = 0; d < ld->n_depth; d++)
        {
          ld->depth[d] = g_array_new (FALSE, FALSE, sizeof (guint32));
          ld->pos[d] = g_array_new (FALSE, FALSE, sizeof (guint32));
        }
      for (guint32 i = 0; i < lane->events->len; i++)
        {
          g_array_append_val (ld->depth[event_depth[idx[i]]], idx[i]);
          g_array_append_val (ld->pos[event_depth[idx[i]]], i);
        }
    }
  for (guint d = 0; d < ld->n_depth; d++)
    {
      const guint32 *di = ld->depth[d] != NULL ? (const guint32 *) (void *) ld->depth[d]->data : idx;
      guint n = ld->depth[d] != NULL ? ld->depth[d]->len : lane->events->len;
      if (n < WEFT_LAYOUT_TS_CACHE_MIN)
        continue;
      ld->n_cached[d] = n;
      ld->ts[d] = g_new (gint64, n);
      ld->dur[d] = g_new (guint32, n);
      ld->key[d] = g_new (guint8, n);
      for (guint i = 0; i < n; i++)
        {
          const WeftEvent *ev = weft_rank_event (rank, di[i]);
          gint64 dur = weft_event_dur (rank, ev);
          ld->ts[d][i] = ev->ts;
          ld->dur[d][i] = dur >= 0 && dur < G_MAXUINT32 ? (guint32) dur : G_MAXUINT32;
          ld->key[d][i] = (ev->flags & WEFT_EVENT_DELETED) ? WEFT_KEY_DELETED : (guint8) weft_render_event_key (rank, ev);
        }
    }
}

WeftDepthRow
weft_layout_depth_row (const WeftLayout *layout, guint rank_index, guint32 lane, guint depth)
{
  WeftDepthRow r = { NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, FALSE };
  const WeftRankLayout *rl;
  const WeftLaneDepths *ld;

  if (rank_index >= layout->n_ranks)
    return r;
  rl = &layout->ranks[rank_index];
  if (lane >= rl->n_lanes)
    return r;
  ld = &rl->lanes[lane];
  if (depth >= ld->n_depth)
    return r;
  r.ts = ld->ts[depth];
  r.dur = ld->dur[depth];
  r.key = ld->key[depth];
  if (ld->depth[depth] != NULL)
    {
      r.idx = (const guint32 *) (void *) ld->depth[depth]->data;
      r.n = ld->depth[depth]->len;
    }
  else
    {
      WeftLane *l = weft_rank_lane (weft_trace_rank (layout->trace, rank_index), lane);
      r.idx = (const guint32 *) (void *) l->events->data;
      r.n = l->events->len;
    }
  /* The lane changed since the layout was built (an insert or a removal
   * without a rebuild): never read the packed copies out of bounds; the
   * row is drawn from the events themselves until the layout is rebuilt. */
  if (r.n != ld->n_cached[depth])
    r.ts = NULL, r.dur = NULL, r.key = NULL;
  return r;
}

static gboolean frame_uses_lanes (WeftLayout *self, const WeftRenderTimes *times);

WeftDepthRow
weft_layout_depth_row_times (const WeftLayout *layout, guint32 lane, guint depth, const WeftRankTimes *rt)
{
  WeftDepthRow r = weft_layout_depth_row (layout, rt->rank_index, lane, depth);
  WeftLayout *self;
  WeftLaneDepths *ld;
  gconstpointer owner;

  if (rt->times != NULL && rt->times->lane_func != NULL && r.n > 0 && frame_uses_lanes ((WeftLayout *) layout, rt->times))
    {
      /* the lane's own arrays, walked through the row's positions in it */
      const WeftLaneDepths *cl = &layout->ranks[rt->rank_index].lanes[lane];
      const gint64 *ls = NULL, *le = NULL;
      guint n = rt->times->lane_func (rt->times->user_data, rt->rank_index, lane, &ls, &le);
      if (n > 0 && n == cl->n_lane && ls != NULL && le != NULL &&
          (cl->pos[depth] == NULL ? n == r.n : cl->pos[depth]->len == r.n))
        {
          r.sstart = ls;
          r.send = le;
          r.spos = cl->pos[depth] != NULL ? (const guint32 *) (void *) cl->pos[depth]->data : NULL;
          r.from_lanes = TRUE;
          return r;
        }
    }
  if (r.ts == NULL || rt->times == NULL || rt->times->generation == 0)
    return r;
  /* a cache: the layout is logically const */
  self = (WeftLayout *) layout;
  ld = &self->ranks[rt->rank_index].lanes[lane];
  owner = rt->times->func != NULL ? rt->times->user_data : (gconstpointer) rt->times->start;
  if (ld->sgen[depth] == rt->times->generation && ld->sowner[depth] == owner && ld->sstart[depth] != NULL)
    {
      r.sstart = ld->sstart[depth];
      r.send = ld->send[depth];
      return r;
    }
  /* Times that change from frame to frame (a drag re-solving on every
   * pointer move) are asked for directly: re-reading whole rows each frame
   * would cost more. The row is cached from the second frame that sees the
   * same generation on. */
  if (ld->sseen[depth] != rt->times->generation)
    {
      ld->sseen[depth] = rt->times->generation;
      return r;
    }
  /* spread the re-reading of big traces over frames */
  if (self->refreshed && r.n > self->refresh_left)
    return r;
  self->refresh_left -= MIN (r.n, self->refresh_left);
  self->refreshed = TRUE;
  if (ld->sstart[depth] == NULL)
    {
      ld->sstart[depth] = g_new (gint64, r.n);
      ld->send[depth] = g_new (gint64, r.n);
      ld->sgen[depth] = 0;
    }
  if (ld->sgen[depth] != rt->times->generation || ld->sowner[depth] != owner)
    {
      for (guint i = 0; i < r.n; i++)
        weft_rank_times_get (rt, r.idx[i], &ld->sstart[depth][i], &ld->send[depth][i]);
      ld->sgen[depth] = rt->times->generation;
      ld->sowner[depth] = owner;
    }
  r.sstart = ld->sstart[depth];
  r.send = ld->send[depth];
  return r;
}

/* The band of solved times now, through the layout's class cache when
 * the times have lane arrays. */
static GArray *
layout_solved_band (WeftLayout *self, const WeftRankTimes *rt)
{
  GArray *band;
  if (rt->times != NULL && rt->times->func != NULL && rt->times->lane_func != NULL &&
      (band = _weft_band_from_lanes_into (rt, &self->ranks[rt->rank_index], NULL)) != NULL)
    return band;
  return weft_render_overlap_band (self->trace, rt->times, rt->rank_index);
}

GArray *
weft_layout_band (const WeftLayout *layout, const WeftRankTimes *rt)
{
  WeftRankLayout *rl;
  gconstpointer owner;

  if (rt->rank_index >= layout->n_ranks)
    return NULL;
  rl = &((WeftLayout *) layout)->ranks[rt->rank_index]; /* a cache: logically const */
  if (rt->times == NULL || rt->times->generation == 0)
    return rl->band;
  owner = rt->times->func != NULL ? rt->times->user_data : (gconstpointer) rt->times->start;
  if (rl->sband != NULL && rl->sband_gen == rt->times->generation && rl->sband_owner == owner)
    return rl->sband;
  /* patched where the times changed since it was made (cheap: the ops in
   * that span), on the first paint of a generation, while the lane arrays
   * are read this frame */
  if (rl->sband != NULL && rl->sband_owner == owner && rl->sband_epoch != 0 && rt->times->lane_window != NULL &&
      rt->times->lane_func != NULL && frame_uses_lanes ((WeftLayout *) layout, rt->times))
    {
      guint64 epoch;
      gint64 lo, hi;
      if (rt->times->lane_window (rt->times->user_data, rt->rank_index, rl->sband_epoch, &epoch, &lo, &hi) &&
          _weft_band_patch (rt, rl, rl->sband, lo, hi))
        {
          rl->sband_epoch = epoch;
          rl->sband_gen = rt->times->generation;
          if (lo <= hi) /* else nothing in it changed */
            {
              rl->sband_version++;
              rl->sband_patch_version = rl->sband_version;
              rl->sband_patch_lo = lo;
              rl->sband_patch_hi = hi;
            }
          return rl->sband;
        }
      rl->sband_epoch = 0;
    }
  /* the second paint of a generation, or the first band of these times
   * (nothing to draw instead: weft-cli render paints once) */
  if ((rl->sband_seen == rt->times->generation || rl->sband == NULL || rl->sband_owner != owner) &&
      (!layout->refreshed || rl->n_events <= layout->refresh_left))
    {
      WeftLayout *self = (WeftLayout *) layout;
      self->refresh_left -= MIN (rl->n_events, self->refresh_left);
      self->refreshed = TRUE;
      GArray *made = NULL;
      rl->sband_epoch = 0;
      if (rt->times->func != NULL && rt->times->lane_func != NULL &&
          (made = _weft_band_from_lanes_into (rt, rl, rl->sband_owner == owner ? rl->sband : NULL)) != NULL)
        {
          if (rl->sband != NULL && rl->sband != made)
            g_array_free (rl->sband, TRUE);
          rl->sband = made;
          /* the epoch of the arrays it was made from (the call finds them current) */
          guint64 epoch = 0;
          gint64 lo, hi;
          if (rt->times->lane_window != NULL)
            rt->times->lane_window (rt->times->user_data, rt->rank_index, 0, &epoch, &lo, &hi);
          rl->sband_epoch = epoch;
        }
      else
        {
          if (rl->sband != NULL)
            g_array_free (rl->sband, TRUE);
          rl->sband = layout_solved_band (self, rt);
        }
      rl->sband_gen = rt->times->generation;
      rl->sband_owner = owner;
      rl->sband_version++;
      return rl->sband;
    }
  rl->sband_seen = rt->times->generation;
  return rl->sband != NULL && rl->sband_owner == owner ? rl->sband : rl->band;
}

GArray *
weft_layout_overlap_band (WeftLayout *layout, const WeftRenderTimes *times, guint rank_index)
{
  WeftRankTimes rt;
  g_return_val_if_fail (layout != NULL && rank_index < layout->n_ranks && rank_index < layout->trace->ranks->len,
                        NULL);
  weft_rank_times_init (&rt, layout->trace, times, rank_index);
  return layout_solved_band (layout, &rt);
}

const GArray *
weft_layout_painted_band (WeftLayout *layout, const WeftRenderTimes *times, guint rank_index)
{
  WeftRankTimes rt;
  g_return_val_if_fail (layout != NULL && rank_index < layout->n_ranks && rank_index < layout->trace->ranks->len,
                        NULL);
  weft_layout_begin_frame (layout);
  weft_rank_times_init (&rt, layout->trace, times, rank_index);
  return weft_layout_band (layout, &rt);
}

void
_weft_row_cache_free (WeftRowCache *c)
{
  if (c == NULL)
    return;
  if (c->boxes != NULL)
    g_array_free (c->boxes, TRUE);
  g_free (c);
}

void
weft_layout_drop_box_caches (WeftLayout *layout)
{
  g_return_if_fail (layout != NULL);
  for (guint r = 0; r < layout->n_ranks; r++)
    {
      WeftRankLayout *rl = &layout->ranks[r];
      for (guint l = 0; l < rl->n_lanes; l++)
        for (guint d = 0; d < WEFT_RENDER_MAX_DEPTH; d++)
          g_clear_pointer (&rl->lanes[l].boxes[d], _weft_row_cache_free);
      rl->band_cache.band = NULL;
      rl->mem_cache.memory = NULL;
      weft_pixel_memo_clear (&rl->mem_pixels);
    }
}

void
weft_layout_begin_frame (const WeftLayout *layout)
{
  WeftLayout *self = (WeftLayout *) layout; /* caches: logically const */
  self->refresh_left = self->refresh_budget != 0 ? self->refresh_budget : WEFT_LAYOUT_REFRESH_BUDGET;
  self->refreshed = FALSE;
  self->lanes_decided = FALSE;
}

/* Whether this frame reads the lane arrays: always when they are current or
 * their refresh is small; else (a re-solve moved much of the trace) not on
 * the first frame of a generation, as during a drag, but from the second. */
static gboolean
frame_uses_lanes (WeftLayout *self, const WeftRenderTimes *times)
{
  if (!self->lanes_decided)
    {
      guint64 budget = self->refresh_budget != 0 ? self->refresh_budget : WEFT_LAYOUT_REFRESH_BUDGET;
      self->lanes_use = times->lane_pending == NULL || times->generation == 0 ||
                        times->generation == self->lanes_prev_gen || times->lane_pending (times->user_data) <= budget;
      self->lanes_prev_gen = times->generation;
      self->lanes_decided = TRUE;
    }
  return self->lanes_use;
}

void
weft_layout_set_refresh_budget (WeftLayout *layout, guint64 events_per_frame)
{
  g_return_if_fail (layout != NULL);
  layout->refresh_budget = events_per_frame;
}

/* ---- layout ---------------------------------------------------------------------------- */

static void
label_glyphs_free (gpointer data)
{
  WeftLabelGlyphs *g = data;
  if (g->font != NULL)
    cairo_scaled_font_destroy (g->font);
  g_free (g->glyphs);
  g_free (g->right);
  g_free (g);
}

typedef struct
{
  guint32 lane;
  int     group;    /* 0 GPU streams, 1 sync lanes, 2 CPU threads, 3 other */
  int     device;
  gint64  sort;
} LaneOrder;

static int
lane_order_cmp (const void *a, const void *b)
{
  const LaneOrder *x = a, *y = b;
  if (x->group != y->group)
    return x->group - y->group;
  if (x->device != y->device)
    return x->device - y->device;
  if (x->sort != y->sort)
    return x->sort < y->sort ? -1 : 1;
  return (x->lane > y->lane) - (x->lane < y->lane);
}

/* A "[memory]" instant on the rank (its args, read when the row is
 * painted, say whether they are a GPU's). */
static gboolean
rank_has_memory (WeftRank *rank)
{
  guint32 name = weft_strings_lookup (rank->strings, "[memory]", -1);

  if (name == WEFT_NONE)
    return FALSE;
  for (guint i = 0; i < rank->events->len; i++)
    {
      const WeftEvent *ev = &g_array_index (rank->events, WeftEvent, i);
      if (ev->name == name && ev->category == WEFT_CAT_CPU_INSTANT)
        return TRUE;
    }
  return FALSE;
}

static void
add_row (WeftLayout *self, WeftRowKind kind, guint rank_index, guint32 lane, WeftLaneRole role, double height,
         guint n_depth)
{
  WeftLayoutRow row = { kind, rank_index, lane, role, self->height, height, n_depth };
  g_array_append_val (self->rows, row);
  self->height += height;
}

static void
prepare_rank (WeftLayout *self, guint r)
{
  WeftRank *rank = weft_trace_rank (self->trace, r);
  WeftRankLayout *rl = &self->ranks[r];

  for (guint l = 0; l < rl->n_lanes; l++)
    {
      WeftLane *lane = weft_rank_lane (rank, l);
      compute_depths (rank, l, &rl->lanes[l], rl->event_depth);
      /* the band's class cache now, while this thread reads the lane's
       * records anyway (at 36M events the first band of solved times
       * spent most of its time fetching them) */
      if (lane->kind == WEFT_LANE_GPU && lane->events->len > 0)
        _weft_band_lane_classes (rl, rank, (const WeftEvent *) (void *) rank->events->data, l, lane, FALSE);
    }
  rl->band = weft_render_overlap_band (self->trace, NULL, r);
  rl->pp = weft_rank_pp_action_table (rank); /* NULL without pipeline actions */
}

static void
prepare_rank_job (gpointer data, gpointer user_data)
{
  prepare_rank (user_data, GPOINTER_TO_UINT (data) - 1);
}

/* Pango objects are made on first use, on the painting thread (the
 * default font map is per thread), so a layout may be built anywhere. */
static PangoContext *
layout_pango (const WeftLayout *layout)
{
  WeftLayout *self = (WeftLayout *) layout;
  if (self->pango == NULL)
    self->pango = pango_font_map_create_context (pango_cairo_font_map_get_default ());
  return self->pango;
}

WeftLayout *
weft_layout_new (WeftTrace *trace, const WeftView *view)
{
  WeftLayout *self;

  g_return_val_if_fail (trace != NULL && view != NULL, NULL);
  self = g_new0 (WeftLayout, 1);
  self->trace = trace;
  self->rows = g_array_new (FALSE, FALSE, sizeof (WeftLayoutRow));
  self->n_ranks = trace->ranks->len;
  self->ranks = g_new0 (WeftRankLayout, self->n_ranks);
  self->labels = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_object_unref);
  self->glyphs = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, label_glyphs_free);
  /* per-rank precomputation (nesting depths, packed rows, overlap band):
   * independent per rank, so in parallel for big traces */
  {
    guint64 total = 0;
    for (guint r = 0; r < self->n_ranks; r++)
      {
        WeftRankLayout *rl = &self->ranks[r];
        WeftRank *rank = weft_trace_rank (trace, r);
        rl->n_lanes = rank->lanes->len;
        rl->lanes = g_new0 (WeftLaneDepths, rl->n_lanes);
        rl->n_events = rank->events->len;
        rl->event_depth = g_new0 (guint8, MAX (rl->n_events, 1));
        for (guint l = 0; l < rl->n_lanes; l++)
          rl->lanes[l].n_depth = 1;
        if (!(weft_view_get_rank_flags (view, r) & WEFT_RANK_VIEW_HIDDEN))
          total += rl->n_events;
      }
    if (total >= 200000 && self->n_ranks > 1 && g_get_num_processors () > 1)
      {
        GThreadPool *pool = g_thread_pool_new (prepare_rank_job, self, (gint) MIN (g_get_num_processors (), 16),
                                               FALSE, NULL);
        for (guint r = 0; r < self->n_ranks; r++)
          if (!(weft_view_get_rank_flags (view, r) & WEFT_RANK_VIEW_HIDDEN))
            g_thread_pool_push (pool, GUINT_TO_POINTER (r + 1), NULL);
        g_thread_pool_free (pool, FALSE, TRUE);
      }
    else
      for (guint r = 0; r < self->n_ranks; r++)
        if (!(weft_view_get_rank_flags (view, r) & WEFT_RANK_VIEW_HIDDEN))
          prepare_rank (self, r);
  }

  for (guint r = 0; r < self->n_ranks; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);
      WeftRankLayout *rl = &self->ranks[r];
      guint8 flags = weft_view_get_rank_flags (view, r);
      g_autofree LaneOrder *order = NULL;
      guint n_order = 0;

      rl->lane_row = g_new (int, MAX (rl->n_lanes, 1));
      rl->header_row = -1;
      rl->summary_row = -1;
      rl->memory_row = -1;
      rl->last_row = -1;
      rl->summary_lanes = g_array_new (FALSE, FALSE, sizeof (guint32));
      for (guint l = 0; l < rl->n_lanes; l++)
        rl->lane_row[l] = -1;
      if (flags & WEFT_RANK_VIEW_HIDDEN)
        continue;

      order = g_new (LaneOrder, MAX (rl->n_lanes, 1));
      for (guint l = 0; l < rl->n_lanes; l++)
        {
          WeftLane *lane = weft_rank_lane (rank, l);
          LaneOrder *o;
          if (lane->events->len == 0)
            continue;
          o = &order[n_order++];
          o->lane = l;
          o->device = lane->device;
          o->sort = lane->sort_index;
          if (lane->kind == WEFT_LANE_GPU)
            o->group = lane->role == WEFT_LANE_ROLE_SYNC ? 1 : 0;
          else
            o->group = lane->kind == WEFT_LANE_CPU ? 2 : 3;
        }
      if (n_order > 1)
        qsort (order, n_order, sizeof (LaneOrder), lane_order_cmp);

      rl->header_row = (int) self->rows->len;
      add_row (self, WEFT_ROW_RANK_HEADER, r, WEFT_NONE, WEFT_LANE_ROLE_NONE, WEFT_RENDER_RANK_ROW, 1);
      if (!(flags & WEFT_RANK_VIEW_COLLAPSED))
        {
          for (guint k = 0; k < n_order; k++)
            {
              WeftLane *lane = weft_rank_lane (rank, order[k].lane);
              guint nd = rl->lanes[order[k].lane].n_depth;
              /* collapsed: CPU threads merge into the summary row, other
               * tracks ("Spans", "Traces", overhead) are not shown */
              if (order[k].group >= 2 && !(flags & WEFT_RANK_VIEW_CPU_EXPANDED))
                {
                  if (order[k].group == 2)
                    g_array_append_val (rl->summary_lanes, order[k].lane);
                  continue;
                }
              rl->lane_row[order[k].lane] = (int) self->rows->len;
              add_row (self, WEFT_ROW_LANE, r, order[k].lane, infer_role (rank, lane),
                       nd * WEFT_RENDER_LANE_ROW + 4.0, nd);
            }
          if (rl->summary_lanes->len > 0)
            {
              rl->summary_row = (int) self->rows->len;
              add_row (self, WEFT_ROW_CPU_SUMMARY, r, WEFT_NONE, WEFT_LANE_ROLE_NONE, WEFT_RENDER_LANE_ROW + 4.0, 1);
            }
          if (view->show_memory && rank_has_memory (rank))
            {
              rl->memory_row = (int) self->rows->len;
              add_row (self, WEFT_ROW_MEMORY, r, WEFT_NONE, WEFT_LANE_ROLE_NONE, WEFT_RENDER_MEMORY_ROW, 1);
            }
        }
      rl->last_row = (int) self->rows->len - 1;
    }
  return self;
}

void
weft_layout_free (WeftLayout *self)
{
  if (self == NULL)
    return;
  for (guint r = 0; r < self->n_ranks; r++)
    {
      WeftRankLayout *rl = &self->ranks[r];
      for (guint l = 0; l < rl->n_lanes; l++)
        for (guint d = 0; d < WEFT_RENDER_MAX_DEPTH; d++)
          {
            if (rl->lanes[l].depth[d] != NULL)
              g_array_free (rl->lanes[l].depth[d], TRUE);
            if (rl->lanes[l].pos[d] != NULL)
              g_array_free (rl->lanes[l].pos[d], TRUE);
            g_free (rl->lanes[l].ts[d]);
            g_free (rl->lanes[l].dur[d]);
            g_free (rl->lanes[l].key[d]);
            g_free (rl->lanes[l].sstart[d]);
            g_free (rl->lanes[l].send[d]);
            _weft_row_cache_free (rl->lanes[l].boxes[d]);
          }
      if (rl->band_cache.items != NULL)
        g_array_free (rl->band_cache.items, TRUE);
      g_free (rl->mem_cache.alloc);
      g_free (rl->mem_cache.res);
      weft_memory_lod_clear (&rl->mem_cache.lod);
      g_clear_object (&rl->mem_cache.label);
      g_free (rl->mem_cache.label_text);
      weft_pixel_memo_clear (&rl->mem_pixels);
      g_free (rl->lanes);
      g_free (rl->event_depth);
      g_free (rl->pp);
      g_free (rl->lane_row);
      g_array_free (rl->summary_lanes, TRUE);
      if (rl->band != NULL)
        g_array_free (rl->band, TRUE);
      if (rl->sband != NULL)
        g_array_free (rl->sband, TRUE);
      for (guint l = 0; rl->band_n != NULL && l < rl->n_lanes; l++)
        {
          g_free (rl->band_idx[l]);
          g_free (rl->band_cls[l]);
        }
      g_free (rl->band_idx);
      g_free (rl->band_cls);
      g_free (rl->band_n);
      g_free (rl->band_maxdur);
    }
  g_free (self->ranks);
  g_array_free (self->rows, TRUE);
  g_hash_table_destroy (self->labels);
  g_hash_table_destroy (self->glyphs);
  if (self->row_labels != NULL)
    g_ptr_array_free (self->row_labels, TRUE);
  g_clear_object (&self->pango);
  g_clear_pointer (&self->memory, weft_memory_timeline_free);
  g_free (self);
}

guint
weft_layout_get_n_rows (const WeftLayout *layout)
{
  return layout->rows->len;
}

const WeftLayoutRow *
weft_layout_get_row (const WeftLayout *layout, guint i)
{
  g_return_val_if_fail (i < layout->rows->len, NULL);
  return &g_array_index (layout->rows, WeftLayoutRow, i);
}

double
weft_layout_get_height (const WeftLayout *layout)
{
  return layout->height;
}

int
weft_layout_row_at_y (const WeftLayout *layout, double y)
{
  guint lo = 0, hi = layout->rows->len;

  if (y < 0 || y >= layout->height)
    return -1;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      const WeftLayoutRow *row = &g_array_index (layout->rows, WeftLayoutRow, mid);
      if (row->y + row->height <= y)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < layout->rows->len ? (int) lo : -1;
}

int
weft_layout_find_lane (const WeftLayout *layout, guint rank_index, guint32 lane)
{
  const WeftRankLayout *rl;

  if (rank_index >= layout->n_ranks)
    return -1;
  rl = &layout->ranks[rank_index];
  if (lane < rl->n_lanes && rl->lane_row[lane] >= 0)
    return rl->lane_row[lane];
  if (rl->summary_row >= 0 && lane < rl->n_lanes)
    for (guint i = 0; i < rl->summary_lanes->len; i++)
      if (g_array_index (rl->summary_lanes, guint32, i) == lane)
        return rl->summary_row;
  return rl->header_row;
}

WeftMemoryTimeline *
weft_layout_memory (const WeftLayout *layout, const WeftRenderOverlay *overlay)
{
  g_return_val_if_fail (layout != NULL, NULL);
  if (overlay != NULL && overlay->memory != NULL)
    return overlay->memory;
  if (layout->memory == NULL)
    ((WeftLayout *) layout)->memory = weft_memory_timeline_new (layout->trace); /* a cache: logically const */
  return layout->memory;
}

guint
weft_layout_event_depth (const WeftLayout *layout, guint rank_index, guint32 event)
{
  if (rank_index >= layout->n_ranks || event >= layout->ranks[rank_index].n_events)
    return 0;
  return layout->ranks[rank_index].event_depth[event];
}

/* Label text of an event name: C++ kernel signatures lose their return
 * type, namespaces, template and argument lists
 * ("void at::native::vectorized_elementwise_kernel<4, ...>(int, ...)" ->
 * "vectorized_elementwise_kernel"); other names are kept. */
char *
weft_render_short_name (const char *name)
{
  const char *s, *end, *colon;
  g_autofree char *copy = NULL;
  char *anon;

  if (strchr (name, '(') == NULL && strchr (name, '<') == NULL)
    return g_strdup (name);
  /* "at::native::(anonymous namespace)::foo<...>" */
  copy = g_strdup (name);
  while ((anon = strstr (copy, "(anonymous namespace)::")) != NULL)
    memmove (anon, anon + strlen ("(anonymous namespace)::"), strlen (anon + strlen ("(anonymous namespace)::")) + 1);
  s = copy;
  if (g_str_has_prefix (s, "void "))
    s += 5;
  end = s;
  while (*end != '\0' && *end != '(' && *end != '<')
    end++;
  /* last "::" component before the template / argument list */
  colon = NULL;
  for (const char *c = s; c + 1 < end; c++)
    if (c[0] == ':' && c[1] == ':')
      colon = c;
  if (colon != NULL && colon + 2 < end)
    s = colon + 2;
  if (end == s)
    return g_strdup (name);
  return g_strndup (s, (gsize) (end - s));
}

/* A label costs what can be drawn: a name is cut to LABEL_MAX_INPUT bytes
 * before it is shortened and to LABEL_MAX_CHARS characters (about 1,500 px
 * at 7.5 pt, wider than any label that fits in a box) before Pango lays it
 * out; a 50 MB kernel name would otherwise be shaped whole. */
#define LABEL_MAX_INPUT 4096
#define LABEL_MAX_CHARS 300

static char *
label_text (const char *name)
{
  g_autofree char *head = NULL;
  char *text;
  gsize len = strlen (name);

  if (len > LABEL_MAX_INPUT)
    {
      const char *end = name + LABEL_MAX_INPUT;
      /* back to a character boundary (names are valid UTF-8) */
      while (end > name && ((guchar) *end & 0xc0) == 0x80)
        end--;
      head = g_strndup (name, (gsize) (end - name));
      name = head;
    }
  text = weft_render_short_name (name);
  if (g_utf8_strlen (text, LABEL_MAX_CHARS + 1) > LABEL_MAX_CHARS)
    {
      char *cut = g_utf8_offset_to_pointer (text, LABEL_MAX_CHARS);
      char *t;
      *cut = '\0';
      t = g_strconcat (text, "\u2026", NULL);
      g_free (text);
      text = t;
    }
  return text;
}

/* The label cache's key: (rank_index << 32 | name), and with a pipeline
 * action bit 62 set and its kind and microbatch in bits 43-61 (ranks
 * below 2048; others get no prefix). */
static gint64
label_key (guint rank_index, guint32 name, guint32 pp)
{
  if (pp != 0 && rank_index < 2048)
    {
      guint32 km = ((pp >> 29) & 3) << 17 | (pp & 0x1ffff);
      return ((gint64) 1 << 62) | ((gint64) km << 43) | ((gint64) rank_index << 32) | name;
    }
  return ((gint64) rank_index << 32) | name;
}

gboolean
weft_layout_has_pp_actions (const WeftLayout *layout)
{
  g_return_val_if_fail (layout != NULL, FALSE);
  for (guint r = 0; r < layout->n_ranks; r++)
    if (layout->ranks[r].pp != NULL)
      return TRUE;
  return FALSE;
}

PangoLayout *
weft_layout_label (const WeftLayout *layout, guint rank_index, guint32 name, int *width)
{
  return weft_layout_label_pp (layout, rank_index, name, 0, width);
}

PangoLayout *
weft_layout_label_pp (const WeftLayout *layout, guint rank_index, guint32 name, guint32 pp, int *width)
{
  gint64 key = label_key (rank_index, name, pp);
  PangoLayout *pl = g_hash_table_lookup (layout->labels, &key);

  if (pl == NULL)
    {
      WeftRank *rank = weft_trace_rank (layout->trace, rank_index);
      PangoFontDescription *fd = pango_font_description_from_string ("Sans 7.5");
      gint64 *k = g_new (gint64, 1);
      *k = key;
      pl = pango_layout_new (layout_pango (layout));
      pango_layout_set_font_description (pl, fd);
      pango_font_description_free (fd);
      {
        g_autofree char *text = label_text (weft_rank_string (rank, name));
        WeftPpAction a;
        if ((key >> 62) & 1 && weft_pp_action_unpack (pp, &a))
          {
            g_autofree char *prefixed = g_strdup_printf ("%c%d %s", a.kind, a.microbatch, text);
            pango_layout_set_text (pl, prefixed, -1);
          }
        else
          pango_layout_set_text (pl, text, -1);
      }
      pango_layout_set_single_paragraph_mode (pl, TRUE);
      g_hash_table_insert (layout->labels, k, pl);
    }
  if (width != NULL)
    pango_layout_get_pixel_size (pl, width, NULL);
  return pl;
}

static void
clear_object (gpointer obj)
{
  if (obj != NULL)
    g_object_unref (obj);
}

PangoLayout *
weft_layout_row_label (const WeftLayout *layout, guint row)
{
  WeftLayout *self = (WeftLayout *) layout; /* a cache: logically const */
  PangoLayout *pl;

  g_return_val_if_fail (row < layout->rows->len, NULL);
  if (self->row_labels == NULL)
    {
      self->row_labels = g_ptr_array_new_with_free_func (clear_object);
      g_ptr_array_set_size (self->row_labels, (gint) layout->rows->len);
    }
  pl = g_ptr_array_index (self->row_labels, row);
  if (pl == NULL)
    {
      const WeftLayoutRow *r = &g_array_index (layout->rows, WeftLayoutRow, row);
      g_autofree char *text = weft_render_row_label (layout->trace, r);
      PangoFontDescription *fd =
        pango_font_description_from_string (r->kind == WEFT_ROW_RANK_HEADER ? "Sans Bold 8.5" : "Sans 8");
      pl = pango_layout_new (layout_pango (layout));
      pango_layout_set_font_description (pl, fd);
      pango_font_description_free (fd);
      pango_layout_set_text (pl, text, -1);
      pango_layout_set_ellipsize (pl, PANGO_ELLIPSIZE_END);
      g_ptr_array_index (self->row_labels, row) = pl;
    }
  return pl;
}

double
weft_layout_label_width (const WeftLayout *layout)
{
  double best = 0;

  g_return_val_if_fail (layout != NULL, 0);
  for (guint i = 0; i < layout->rows->len; i++)
    {
      PangoLayout *pl = pango_layout_copy (weft_layout_row_label (layout, i));
      const WeftLayoutRow *r = &g_array_index (layout->rows, WeftLayoutRow, i);
      int w = 0, h = 0;
      /* the indents of ruler.c's header column, and a margin */
      double indent = r->kind == WEFT_ROW_RANK_HEADER ? 26 : 30;

      pango_layout_set_width (pl, -1);
      pango_layout_get_pixel_size (pl, &w, &h);
      best = MAX (best, indent + w + 8);
      g_object_unref (pl);
    }
  return best;
}

const WeftLabelGlyphs *
weft_layout_label_glyphs (const WeftLayout *layout, guint rank_index, guint32 name, guint32 pp)
{
  gint64 key = label_key (rank_index, name, pp);
  WeftLabelGlyphs *g = g_hash_table_lookup (layout->glyphs, &key);
  PangoLayout *pl;
  PangoLayoutLine *line;
  PangoFont *font = NULL;
  double x = 0, baseline;
  gboolean ok = TRUE;
  GArray *glyphs, *right;
  gint64 *k;

  if (g != NULL)
    return g;
  g = g_new0 (WeftLabelGlyphs, 1);
  pl = weft_layout_label_pp (layout, rank_index, name, pp, NULL);
  baseline = pango_layout_get_baseline (pl) / (double) PANGO_SCALE;
  line = pango_layout_get_line_readonly (pl, 0);
  glyphs = g_array_new (FALSE, FALSE, sizeof (cairo_glyph_t));
  right = g_array_new (FALSE, FALSE, sizeof (double));
  for (GSList *r = line != NULL ? line->runs : NULL; r != NULL && ok; r = r->next)
    {
      PangoGlyphItem *run = r->data;
      PangoGlyphString *gs = run->glyphs;
      if (font == NULL)
        font = run->item->analysis.font;
      else if (font != run->item->analysis.font)
        ok = FALSE;
      for (int i = 0; i < gs->num_glyphs && ok; i++)
        {
          PangoGlyphInfo *gi = &gs->glyphs[i];
          cairo_glyph_t cg;
          double adv = gi->geometry.width / (double) PANGO_SCALE;
          if (gi->glyph == PANGO_GLYPH_EMPTY)
            {
              x += adv;
              continue;
            }
          if (gi->glyph & PANGO_GLYPH_UNKNOWN_FLAG)
            {
              ok = FALSE;
              break;
            }
          cg.index = gi->glyph;
          cg.x = x + gi->geometry.x_offset / (double) PANGO_SCALE;
          cg.y = baseline + gi->geometry.y_offset / (double) PANGO_SCALE;
          x += adv;
          g_array_append_val (glyphs, cg);
          g_array_append_val (right, x);
        }
    }
  if (ok && font != NULL && PANGO_IS_CAIRO_FONT (font))
    {
      cairo_scaled_font_t *sf = pango_cairo_font_get_scaled_font (PANGO_CAIRO_FONT (font));
      if (sf != NULL && cairo_scaled_font_status (sf) == CAIRO_STATUS_SUCCESS)
        {
          g->font = cairo_scaled_font_reference (sf);
          g->n = (int) glyphs->len;
          g->glyphs = (cairo_glyph_t *) (void *) g_array_free (glyphs, FALSE);
          g->right = (double *) (void *) g_array_free (right, FALSE);
          glyphs = right = NULL;
        }
    }
  if (glyphs != NULL)
    g_array_free (glyphs, TRUE);
  if (right != NULL)
    g_array_free (right, TRUE);
  k = g_new (gint64, 1);
  *k = key;
  g_hash_table_insert (layout->glyphs, k, g);
  return g;
}

/* ---- labels ----------------------------------------------------------------------------- */

char *
weft_render_row_label (WeftTrace *trace, const WeftLayoutRow *row)
{
  WeftRank *rank;
  WeftLane *lane;
  const char *name;
  const char *role;

  g_return_val_if_fail (trace != NULL && row != NULL && row->rank_index < trace->ranks->len, NULL);
  rank = weft_trace_rank (trace, row->rank_index);
  switch (row->kind)
    {
    case WEFT_ROW_RANK_HEADER:
      return g_strdup_printf ("rank %d", rank->rank);
    case WEFT_ROW_CPU_SUMMARY:
      {
        guint n = 0;
        for (guint i = 0; i < rank->lanes->len; i++)
          {
            WeftLane *l = weft_rank_lane (rank, i);
            n += l->kind == WEFT_LANE_CPU && l->events->len > 0;
          }
        return g_strdup_printf ("CPU \u00b7 %u thread%s", n, n == 1 ? "" : "s");
      }
    case WEFT_ROW_MEMORY:
      return g_strdup ("GPU memory");
    case WEFT_ROW_LANE:
    default:
      break;
    }
  if (row->lane >= rank->lanes->len)
    return g_strdup ("");
  lane = weft_rank_lane (rank, row->lane);
  name = weft_rank_string (rank, lane->name);
  role = weft_lane_role_to_string (row->role);
  if (lane->kind == WEFT_LANE_GPU)
    {
      gint64 stream = lane->tid >= 1000000 ? lane->tid - 1000000 : lane->tid;
      if (lane->tid == G_MININT64)
        return g_strdup_printf ("GPU %d %s", lane->device, weft_rank_string (rank, lane->tid_text));
      if (role[0] != '\0')
        return g_strdup_printf ("GPU %d stream %" G_GINT64_FORMAT " \u00b7 %s", lane->device, stream, role);
      return g_strdup_printf ("GPU %d stream %" G_GINT64_FORMAT, lane->device, stream);
    }
  if (name[0] != '\0')
    return g_strdup_printf ("%s", name);
  if (lane->kind == WEFT_LANE_CPU)
    return g_strdup_printf ("thread %" G_GINT64_FORMAT, lane->tid);
  {
    /* other tracks: "Spans" / "PyTorch Profiler", without the JSON quotes */
    g_autofree char *pid = g_strdup (weft_rank_string (rank, lane->pid_text));
    g_autofree char *tid = g_strdup (weft_rank_string (rank, lane->tid_text));
    const char *pn = weft_rank_string (rank, lane->process_name);
    g_strdelimit (pid, "\"", ' ');
    g_strdelimit (tid, "\"", ' ');
    g_strstrip (pid);
    g_strstrip (tid);
    if (pn[0] != '\0')
      return g_strdup_printf ("%s \u00b7 %s", pn, tid[0] != '\0' ? tid : pid);
    if (pid[0] == '\0' && tid[0] == '\0')
      return g_strdup ("(unnamed track)");
    return g_strdup_printf ("%s \u00b7 %s", pid[0] != '\0' ? pid : "?", tid[0] != '\0' ? tid : "?");
  }
}
