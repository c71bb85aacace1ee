/* render-private.h: internals shared by the painter's files. */
#pragma once

#include <pango/pangocairo.h>

#include "weft/weft-pipeline.h"
#include "weft/weft-render.h"

G_BEGIN_DECLS

/* Colour keys: kernel classes 0..9, collective types from 16, CPU from 32. */
#define WEFT_KEY_COLL_BASE 16
#define WEFT_KEY_CPU_BASE  32
/* pipeline microbatches (view->color_by_microbatch): forward hues, then
 * the backward ones */
#define WEFT_KEY_MB_BASE   48
#define WEFT_KEY_N         (WEFT_KEY_MB_BASE + 2 * WEFT_RENDER_MICROBATCH_HUES)

/* Fills are batched by colour, so the key order is the z-order where boxes
 * overlap (the CPU summary row): outer kinds first, inner kinds on top. */
enum
{
  WEFT_CPU_KEY_ANNOTATION = 0,
  WEFT_CPU_KEY_GPU_ANNOTATION,
  WEFT_CPU_KEY_OTHER,
  WEFT_CPU_KEY_PYTHON,
  WEFT_CPU_KEY_OP,
  WEFT_CPU_KEY_RUNTIME,
  WEFT_CPU_KEY_SYNC,
  WEFT_CPU_KEY_INSTANT,
  WEFT_CPU_KEY_N
};

guint    weft_render_event_key (const WeftRank *rank, const WeftEvent *ev);
WeftRgba weft_render_key_color (guint key, gboolean dark);
gboolean weft_render_event_is_comm (const WeftRank *rank, const WeftEvent *ev);

/* Per-rank view of times: observed (ts + offset) or solved. */
typedef struct
{
  WeftTrace             *trace;
  WeftRank              *rank;
  guint                  rank_index;
  gint64                 offset;
  const WeftEvent       *events;
  const WeftRenderTimes *times;
  const gint64          *start;
  const gint64          *end;
} WeftRankTimes;

static inline void
weft_rank_times_init (WeftRankTimes *rt, WeftTrace *trace, const WeftRenderTimes *times, guint rank_index)
{
  rt->trace = trace;
  rt->rank = weft_trace_rank (trace, rank_index);
  rt->rank_index = rank_index;
  rt->offset = weft_trace_rank_offset (trace, rt->rank);
  rt->events = (const WeftEvent *) (void *) rt->rank->events->data;
  rt->times = times != NULL && (times->func != NULL || times->start != NULL) ? times : NULL;
  rt->start = NULL;
  rt->end = NULL;
  if (rt->times != NULL && rt->times->func == NULL && rank_index < rt->times->n_ranks)
    {
      rt->start = rt->times->start[rank_index];
      rt->end = rt->times->end != NULL ? rt->times->end[rank_index] : NULL;
    }
}

static inline void
weft_rank_times_get (const WeftRankTimes *rt, guint32 e, gint64 *b, gint64 *en)
{
  const WeftEvent *ev = &rt->events[e];

  if (rt->times != NULL)
    {
      if (rt->times->func != NULL)
        {
          if (rt->times->func (rt->times->user_data, rt->rank_index, e, b, en))
            return;
        }
      else if (rt->start != NULL && rt->start[e] != G_MININT64)
        {
          *b = rt->start[e];
          *en = rt->end != NULL ? rt->end[e] : *b + weft_event_dur (rt->rank, ev);
          return;
        }
    }
  *b = ev->ts + rt->offset;
  *en = *b + weft_event_dur (rt->rank, ev);
}

/* A depth row of a lane: event indices sorted by start, not overlapping. */
typedef struct
{
  const guint32 *idx;
  guint          n;
  /* ev->ts of idx[i] (file clock, no offset) packed densely, so binary
   * searches over observed times do not miss the cache on every probe;
   * NULL for short rows. Valid while the layout is (rebuild after edits
   * that change ev->ts). */
  const gint64  *ts;
  const guint32 *dur;  /* ev->dur, G_MAXUINT32 = look at the event (longer) */
  const guint8  *key;  /* colour key, WEFT_KEY_DELETED for deleted events */
  /* solved start / end of idx[i] (common timeline) cached for the current
   * WeftRenderTimes.generation; NULL when not cached */
  const gint64  *sstart;
  const gint64  *send;
  /* NULL: sstart / send are indexed like idx; else they are the lane's
   * arrays (WeftRenderTimes.lane_func) and spos[i] is idx[i]'s position in
   * the lane */
  const guint32 *spos;
  /* sstart / send are the lane's arrays (WeftRenderTimes.lane_func) */
  gboolean       from_lanes;
} WeftDepthRow;

#define WEFT_KEY_DELETED 0xff

#define WEFT_LAYOUT_TS_CACHE_MIN 512

/* One box of a depth row as the fold drew it (paint.c), kept to be drawn
 * again by a later paint of the same view: its clamped x, width and right
 * edge, colour key, events it stands for, and for the patch the row index
 * it started at, the one the fold went on from, and the highest index the
 * fold read (or probed) to make it. */
typedef struct
{
  double  x, w, x1;
  guint32 start, next, maxread;
  guint32 count;     /* events folded into it; 0: one wide event (a label candidate) */
  guint8  key;
} WeftCachedBox;

/* fold.c: the fold of depth rows at one view (docs/rendering.md "Level of
 * detail"): what a fold reads of the view. */
typedef struct
{
  const WeftView   *view;
  const WeftLayout *layout;
  gint64            t0, t1;
  double            scale;   /* px per ns */
} WeftFoldView;

/* The first entry of a depth row from lo on whose start is >= t (the
 * fold's search); *maxr: the highest entry whose solved times it read,
 * when it read solved times. */
guint weft_fold_first_start_at (const WeftRankTimes *rt, const WeftDepthRow *dr, guint lo, gint64 t, guint *maxr);

/* One row's fold: from row index i (maxread so far mr) its boxes appended
 * to out; with old, the previous paint's n_old boxes of this view (entry
 * indices old_first, then each box's next), met again from box q once the
 * fold is past cmax, the last row index whose times changed (see
 * fold.c); visited: the events it looked at. */
typedef struct
{
  const WeftFoldView  *fv;
  WeftRankTimes        rt;
  WeftDepthRow         dr;
  guint                i, mr;
  const WeftCachedBox *old;
  guint                n_old, q;
  guint32              old_first, cmax;
  GArray              *out;
  guint                visited;
} WeftFoldJob;

/* First i in [0, n) of a depth row's events whose end > t. */
guint weft_fold_first_end_after (const WeftRankTimes *rt, const guint32 *idx, guint n, gint64 t);
/* The same over a depth row, through its packed or lane times. */
guint weft_fold_row_first_end_after (const WeftRankTimes *rt, const WeftDepthRow *dr, gint64 t);
/* The job's fold (its boxes into out). */
void     weft_fold_job_run (WeftFoldJob *j);
/* TRUE: the fold reads only arrays (lane arrays, packed or observed
 * times), so it may run on the painter's threads (pool.c); FALSE: it asks
 * the times' accessor per event (a solver's times, which may be made on
 * demand), on the caller's thread. */
gboolean weft_fold_job_reads_arrays (const WeftFoldJob *j);

/* pool.c: run (data, order[k]) for each k < n, on the painter's threads
 * (weft_render_set_fold_threads) and this one together; every task must
 * only read what no other task writes. Returns when all are done: n when
 * they were shared, 0 when they ran here one after the other. */
typedef void (*WeftRenderTask) (gpointer data, guint k);
guint weft_render_run_tasks (WeftRenderTask run, gpointer data, const guint *order, guint n);
/* How many threads weft_render_run_tasks shares tasks among (1: none). */
guint weft_render_threads (void);

/* The boxes of a depth row at one view under one set of lane arrays
 * (WeftRenderTimes.lane_func at epoch), for rows drawn from them. */
typedef struct
{
  gint64         t0, t1;
  double         width;
  gboolean       mb, labels;
  gconstpointer  owner;
  const gint64  *ls, *le;
  guint          n;          /* row length */
  guint64        epoch;      /* WeftRenderTimes.lane_changed's epoch the boxes are of */
  guint32        first;      /* index the fold started at */
  GArray        *boxes;      /* WeftCachedBox */
  guint32        events_visited;
} WeftRowCache;

typedef struct
{
  guint    n_depth;
  GArray  *depth[WEFT_RENDER_MAX_DEPTH]; /* guint32; NULL when n_depth == 1 (lane->events used) */
  GArray  *pos[WEFT_RENDER_MAX_DEPTH];   /* guint32 position in the lane of depth[d][i] (NULL with depth) */
  guint    n_lane;                       /* lane->events->len when built */
  gint64  *ts[WEFT_RENDER_MAX_DEPTH];    /* see WeftDepthRow.ts */
  guint    n_cached[WEFT_RENDER_MAX_DEPTH]; /* row length the caches were made for */
  guint32 *dur[WEFT_RENDER_MAX_DEPTH];
  guint8  *key[WEFT_RENDER_MAX_DEPTH];
  gint64  *sstart[WEFT_RENDER_MAX_DEPTH]; /* see WeftDepthRow.sstart */
  gint64  *send[WEFT_RENDER_MAX_DEPTH];
  guint64  sgen[WEFT_RENDER_MAX_DEPTH];   /* generation the cache holds */
  guint64  sseen[WEFT_RENDER_MAX_DEPTH];  /* generation of the last paint of the row */
  gconstpointer sowner[WEFT_RENDER_MAX_DEPTH]; /* the times (func / user_data) the cache is for */
  WeftRowCache *boxes[WEFT_RENDER_MAX_DEPTH];  /* the last paint's boxes (paint.c), NULL none */
} WeftLaneDepths;

/* The overlap band's pixel columns as the last paint pushed them (state,
 * x, w), for the same band (array and version) at the same view. */
typedef struct
{
  const GArray  *band;
  guint64        version;
  gint64         t0, t1;
  double         width;
  GArray        *items;     /* WeftBandItem */
} WeftBandCache;

/* One step of the band's sampler (paint.c): what it pushed (state, x, w;
 * nothing when idle or empty), the latest segment end it read, and its
 * state after: the begin of the segment it goes on from (G_MAXINT64: the
 * end) and the x every later box starts at or after. */
typedef struct
{
  double x, w, xmin_after;
  gint64 treach, tstate;
  guint8 state;
} WeftBandItem;

/* Block maxima of a memory curve (memory.c), so that a pixel column that
 * holds many points costs what its edges cost: level k >= 1 holds, for
 * each run of 16^k points, the first one's time and the largest totals in
 * it. Made for one curve (timeline, serial, arrays). */
#define WEFT_MEMORY_LOD_LEVELS 7 /* 16^6 points a block at the top */
typedef struct
{
  gint64 t, a, r;
} WeftMemoryBlock;

typedef struct
{
  gconstpointer    memory;
  guint64          serial;
  const gint64    *t;
  guint            n;
  guint            n_levels;  /* levels, the points themselves (0) included; 0: not made */
  WeftMemoryBlock *block[WEFT_MEMORY_LOD_LEVELS];
  guint            n_block[WEFT_MEMORY_LOD_LEVELS];
} WeftMemoryLod;

void weft_memory_lod_clear (WeftMemoryLod *lod);
void weft_memory_lod_make (WeftMemoryLod *lod, const gint64 *t, const gint64 *a, const gint64 *r, guint n);
/* The points from *pi on with t < e: their largest totals raised into *ma
 * and *mr, the last one's totals into *ca and *cr, *pi past them, *points
 * counted up by them (lod NULL or not made: one by one). */
void weft_memory_lod_consume (const WeftMemoryLod *lod, const gint64 *t, const gint64 *a, const gint64 *r, guint n,
                              guint *pi, gint64 e, gint64 *ma, gint64 *mr, gint64 *ca, gint64 *cr, guint *points);

/* The memory row's pixel columns (memory.c) as the last paint folded them,
 * for the same curve (timeline, serial, arrays) at the same view. */
typedef struct
{
  gconstpointer  memory;
  guint64        serial;
  const gint64  *t;
  guint          n;
  gint64         t0, t1;
  double         width;
  gboolean       ok;        /* the fold drew columns */
  double         x0;
  guint          ncol;
  gint64        *alloc, *res;
  WeftMemoryLod  lod;
  gconstpointer  seen_memory;  /* the curve folded last without the levels */
  guint64        seen_serial;
  const gint64  *seen_t;
  guint          seen_n;
  PangoLayout   *label;       /* the last label painted, and its text */
  char          *label_text;
} WeftMemoryCache;

/* What a memoised paint read besides the pixels under it (fill.c, pixel
 * memo); zeroed, then filled, so that it compares with memcmp. */
typedef struct
{
  gconstpointer memory;
  guint64       serial;
  gconstpointer curve;      /* the rank's curve arrays and their length */
  guint         n_curve;
  guint         rank_index;
  gboolean      dark;
  gint64        t0, t1;
  double        width, y, height;
} WeftPixelMemoKey;

/* The pixels of a band of device rows (all the clip's columns) before and
 * after a paint: the next paint with the same key over the same pixels
 * copies the after-pixels in instead (the paint reads nothing else, so it
 * would write the same). */
typedef struct
{
  WeftPixelMemoKey key;
  int              r0, r1, c0, c1;
  cairo_format_t   format;
  double           scale, tx, ty;
  guint32         *before, *after;
  /* the key of the last paint: pixels are recorded from the second paint
   * with one key on, so that views that change every frame (a zoom, a
   * pan) copy nothing */
  WeftPixelMemoKey seen;
  guint            fills;   /* the paint's counts, for the stats of a replay */
  gint64           peak;
} WeftPixelMemo;

typedef struct
{
  WeftLaneDepths *lanes;       /* one per rank lane */
  guint           n_lanes;
  guint8         *event_depth; /* per event */
  guint32        *pp;          /* per event: its pipeline action (weft_rank_pp_action_table), NULL: none */
  guint           n_events;
  int            *lane_row;    /* lane -> layout row, -1 */
  int             header_row;
  int             summary_row; /* CPU summary row, -1 */
  int             memory_row;  /* memory row, -1 */
  int             last_row;    /* last row of the rank group */
  GArray         *summary_lanes; /* guint32 lanes merged into the summary row */
  GArray         *band;        /* WeftOverlapSegment, observed times */
  GArray         *sband;       /* the band of solved times (WeftRenderTimes.generation) */
  /* per lane, for the band from the lane arrays: the lane's events when
   * made (a copy of lane->events) and their class in the band (0: not in
   * it, 1: compute, 2: comm), so a band reads 1 byte per event instead of
   * its record; remade when the lane's events change */
  guint32       **band_idx;
  guint8        **band_cls;
  guint          *band_n;
  guint64         sband_gen;
  guint64         sband_seen;
  gconstpointer   sband_owner;
  /* the lane arrays' epoch sband reflects (WeftRenderTimes.lane_window; 0:
   * unknown), and per lane an upper bound of its band ops' durations (to
   * find the ops that reach into a patched span) */
  guint64         sband_epoch;
  gint64         *band_maxdur;
  guint64         sband_version; /* bumped whenever sband is made or patched */
  /* the span the patch that made sband_version patched (version
   * sband_patch_version) */
  guint64         sband_patch_version;
  gint64          sband_patch_lo, sband_patch_hi;
  WeftBandCache   band_cache;
  WeftMemoryCache mem_cache;
  WeftPixelMemo   mem_pixels;  /* the memory row's pixels (paint.c) */
} WeftRankLayout;

struct _WeftLayout
{
  WeftTrace      *trace;
  GArray         *rows;        /* WeftLayoutRow */
  double          height;
  WeftRankLayout *ranks;
  guint           n_ranks;
  /* label cache: (rank_index << 32 | name) -> PangoLayout */
  GHashTable     *labels;
  GHashTable     *glyphs;      /* same key -> WeftLabelGlyphs */
  PangoContext   *pango;
  GPtrArray      *row_labels;  /* PangoLayout per row (lane headers), NULL until painted */
  /* solved-times caches filled in this frame: at most about
   * WEFT_LAYOUT_REFRESH_BUDGET events per frame (at least one row), the
   * rest are drawn uncached and filled in later frames */
  guint64         refresh_left;
  gboolean        refreshed;
  guint64         refresh_budget;  /* 0: WEFT_LAYOUT_REFRESH_BUDGET */
  WeftMemoryTimeline *memory;      /* observed-time curves, made on first use (weft_layout_memory) */
  /* lane arrays (WeftRenderTimes.lane_func) in this frame: decided at its
   * first row; the generation of the previous frame that decided */
  gboolean        lanes_decided;
  gboolean        lanes_use;
  guint64         lanes_prev_gen;
};

#define WEFT_LAYOUT_REFRESH_BUDGET 262144

/* band.c: the band's per-lane class cache in rl (1 byte per event; trust:
 * skip checking the lane's events against the copy, for a patch of a band
 * made from it); the band of solved times from the lane arrays, into reuse
 * when given (NULL: a lane has no array or is out of order); the band
 * patched in place over [lo, hi) where the times changed (FALSE: remake
 * it). */
const guint8 *_weft_band_lane_classes (WeftRankLayout *rl, const WeftRank *rank, const WeftEvent *events, guint l,
                                       const WeftLane *lane, gboolean trust);
GArray       *_weft_band_from_lanes_into (const WeftRankTimes *rt, WeftRankLayout *rl, GArray *reuse);
gboolean      _weft_band_patch (const WeftRankTimes *rt, WeftRankLayout *rl, GArray *band, gint64 lo, gint64 hi);

void _weft_row_cache_free (WeftRowCache *c);

/* Forget every depth row's and band's cached boxes (the next paint folds
 * them again). */
void weft_layout_drop_box_caches (WeftLayout *layout);

/* Called at the start of each body paint. */
void weft_layout_begin_frame (const WeftLayout *layout);

/* The overlap band to draw for a rank under these times: the observed one,
 * or (times with a generation) the band of the solved times, computed on the
 * second paint that sees a generation (or the first when there is none for
 * these times yet; with lane arrays in O(events), see
 * weft_layout_overlap_band); while it changes every frame, the
 * last one computed. */
GArray *weft_layout_band (const WeftLayout *layout, const WeftRankTimes *rt);

/* Cached header label of a row (font by row kind). */
PangoLayout *weft_layout_row_label (const WeftLayout *layout, guint row);

WeftDepthRow weft_layout_depth_row (const WeftLayout *layout, guint rank_index, guint32 lane, guint depth);
/* Same, with the solved-times cache filled for rt's times when they carry a
 * generation (see WeftRenderTimes.generation). */
WeftDepthRow weft_layout_depth_row_times (const WeftLayout *layout, guint32 lane, guint depth,
                                          const WeftRankTimes *rt);
/* Cached label layout of a string of a rank (font: small sans). */
PangoLayout *weft_layout_label (const WeftLayout *layout, guint rank_index, guint32 name, int *width);
/* The same prefixed with a pipeline action's kind and microbatch ("F3 mm"),
 * pp a packed action (0: the plain label). */
PangoLayout *weft_layout_label_pp (const WeftLayout *layout, guint rank_index, guint32 name, guint32 pp,
                                   int *width);

/* The same label as positioned glyphs in one cairo font (shaped once), so
 * a frame draws each label with one cairo_show_glyphs and truncates it at
 * a glyph boundary instead of clipping. NULL font: use the PangoLayout
 * (several fonts, unknown glyphs). */
typedef struct
{
  cairo_scaled_font_t *font;
  cairo_glyph_t       *glyphs;   /* relative to the label's top-left */
  double              *right;    /* right edge of glyph i */
  int                  n;
} WeftLabelGlyphs;

const WeftLabelGlyphs *weft_layout_label_glyphs (const WeftLayout *layout, guint rank_index, guint32 name,
                                                 guint32 pp);

/* First i in [lo, hi) with s[i] >= t over a sorted array (hi if none). */
static inline guint
weft_render_lower_bound_ts (const gint64 *s, guint lo, guint hi, gint64 t)
{
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (s[mid] < t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* y (screen) of the depth sub-row of a row. */
static inline double
weft_row_depth_y (const WeftLayoutRow *row, guint depth)
{
  return row->y + 2.0 + depth * WEFT_RENDER_LANE_ROW;
}

/* Screen rectangle (x, y, w, h) of an event in the layout, FALSE if its row is hidden. */
gboolean weft_render_event_rect (WeftTrace *trace, const WeftView *view, const WeftLayout *layout,
                                 const WeftRenderTimes *times, guint rank_index, guint32 event,
                                 double *x, double *y, double *w, double *h);

/* memory.c: the curve a rank's memory row draws (its arrays, the peak of
 * every rank, which sets the scale, and its own), or FALSE when the row
 * has none to draw ("no GPU [memory] events"). */
gboolean weft_render_memory_row_curve (WeftMemoryTimeline *memory, guint rank_index, const gint64 **t,
                                       const gint64 **a, const gint64 **r, guint *n, WeftMemoryTimelinePeak *all,
                                       WeftMemoryTimelinePeak *peak);

/* memory.c: the pixel columns of a rank's memory row for view into mc,
 * the rank's cache (kept when the curve (memory, serial, arrays) and the
 * view are those of the last fold; block maxima from a curve's second
 * fold on); counts into stats. Touches only mc and stats and reads only
 * the curve, so the painter's threads fold the rows of different ranks at
 * once (paint.c) and the row's paint then finds them. */
void weft_render_memory_columns (WeftMemoryCache *mc, gconstpointer memory, guint64 serial, const gint64 *t,
                                 const gint64 *a, const gint64 *r, guint n, const WeftView *view,
                                 WeftRenderStats *stats);

/* memory.c: one memory row at screen y (the curves of its rank, level of
 * detail per pixel column, the peak marked); counts into stats. */
void weft_render_paint_memory_row (cairo_t *cr, const WeftView *view, const WeftLayout *layout,
                                   WeftMemoryTimeline *memory, const WeftLayoutRow *row, double y,
                                   WeftRenderStats *stats);

/* The step curve of v over n one-pixel columns from x0 (the level of
 * column i at base - v[i] * per_byte, clamped to [top, base]; close: down
 * to base at both ends, closed, to fill): the same path cairo makes of a
 * line_to to both ends of every column (it drops a line_to to the current
 * point and joins one going on in the same direction, in fixed point),
 * without the calls for the columns whose level is the one before: one
 * line_to where a run of a level ends and one where the next begins
 * (tests/test-render-fills.c holds the two to the same pixels). */
void weft_render_step_path (cairo_t *cr, double x0, guint n, const gint64 *v, double base, double top,
                            double per_byte, gboolean close);

/* fill.c: a colour's boxes filled as cairo_rectangle + cairo_fill with
 * antialiasing off would fill them; on an image surface under an integer
 * scale, a pure translation and one pixel-aligned clip, opaque boxes are
 * written straight into the pixels by cairo's rounding rule (the same
 * pixels), elsewhere cairo fills them. */
typedef struct
{
  double x, y, w, h;
} WeftFillRect;

typedef struct
{
  gboolean         ok;      /* the direct path applies */
  cairo_surface_t *surface;
  cairo_format_t   format;
  int              stride;  /* in pixels */
  double           scale, tx, ty;
  int              cx0, cy0, cx1, cy1; /* the clip, device pixels */
} WeftFillTarget;

/* Call with the painter's clip, matrix, operator and antialias set. */
void weft_fill_target_init (WeftFillTarget *t, cairo_t *cr);
/* Dashed vertical lines of width 1 at pixel centres (xs[i] = k + 0.5)
 * from y0 to y1, a colour OVER what is there, as one cairo_stroke of a
 * subpath per line with that dash would paint them (the stroke's rows from
 * cairo for one line, the colour's blend per byte from cairo); FALSE:
 * nothing done, the caller strokes. */
gboolean weft_fill_dashed_vlines (cairo_t *cr, const WeftFillTarget *t, const double *xs, guint n, double y0,
                                  double y1, const double *dash, int n_dash, double red, double green, double blue,
                                  double alpha);
/* Pixel memo (WeftPixelMemo) of the device rows of [y0, y1): replay
 * copies the after-pixels in when the key, the target's geometry and the
 * pixels there are those of its begin (TRUE); begin records the pixels
 * before a paint when the paint before had the same key (FALSE: not
 * recorded, or the direct path does not apply), end those after. */
gboolean weft_pixel_memo_replay (WeftPixelMemo *m, const WeftFillTarget *t, const WeftPixelMemoKey *key, double y0,
                                 double y1);
gboolean weft_pixel_memo_begin (WeftPixelMemo *m, const WeftFillTarget *t, const WeftPixelMemoKey *key, double y0,
                                double y1);
void     weft_pixel_memo_end (WeftPixelMemo *m, const WeftFillTarget *t);
void     weft_pixel_memo_clear (WeftPixelMemo *m);
/* TRUE: written directly. */
gboolean weft_fill_boxes (cairo_t *cr, const WeftFillTarget *t, const WeftFillRect *r, guint n, double red,
                          double green, double blue, double alpha);
/* The clip painted with an opaque colour as cairo_paint paints it, in
 * stripes of rows on the painter's threads where the direct path applies
 * (TRUE); else cairo paints it (any colour). */
gboolean weft_fill_clip (cairo_t *cr, const WeftFillTarget *t, double red, double green, double blue, double alpha);
/* Several colours' boxes, filled in this order as weft_fill_boxes fills
 * them one colour after the other (the same pixels, the same source left
 * on cr); where every colour goes straight into the pixels and each
 * colour's boxes are sorted by their first device row (the painter pushes
 * them row after row), the rows are shared out in stripes to the
 * painter's threads (pool.c). Returns how many colours went straight
 * into the pixels; *n_striped is raised by those filled in stripes. */
typedef struct
{
  const WeftFillRect *r;
  guint               n;
  double              red, green, blue, alpha;
} WeftFillBatch;
guint weft_fill_boxes_batches (cairo_t *cr, const WeftFillTarget *t, const WeftFillBatch *b, guint n_batches,
                               guint *n_striped);

G_END_DECLS
