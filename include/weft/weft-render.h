/* weft-render.h: the painter (render layer: core + cairo + pango-cairo, no GTK).
 *
 * The window, PNG/SVG/PDF export and the display-free tests all paint
 * through this API onto any cairo_t.
 *
 * Coordinates
 *   - Time is gint64 ns on the common timeline: an event's observed time is
 *     ev->ts + weft_trace_rank_offset (trace, rank), unless WeftRenderTimes
 *     gives a solved time for it.
 *   - The body (lanes) is painted with its top-left corner at the cairo
 *     origin; x = 0 is view->span.begin and x = view->width is view->span.end.
 *     Layout rows have CONTENT y (0 = top of the first row); on screen a row
 *     is at y = row->y - view->scroll_y.
 *   - The ruler and the lane headers are separate paint calls so a window can
 *     put them in separate widgets; weft_render_to_file() composes all three.
 *
 * Typical use (window):
 *   WeftView view; weft_view_init (&view, trace);   view.width = w; ...
 *   WeftLayout *layout = weft_layout_new (trace, &view);  (again when ranks
 *       are collapsed / expanded or the trace's lanes change)
 *   weft_render_paint (cr, trace, &view, layout, times, overlay, &stats);
 *   weft_render_hit_test (trace, &view, layout, times, x, y, &hit);
 */
#pragma once

#include <cairo.h>

#include "weft-model.h"
#include "weft-memory.h"
#include "weft-solver.h"

G_BEGIN_DECLS

/* ---- fixed geometry (px) --------------------------------------------------- */

#define WEFT_RENDER_RULER_HEIGHT   28.0   /* time ruler */
#define WEFT_RENDER_HEADER_WIDTH  220.0   /* default lane-header column */
#define WEFT_RENDER_RANK_ROW       22.0   /* rank group header (holds the overlap band) */
#define WEFT_RENDER_LANE_ROW       18.0   /* one depth row of a lane */
#define WEFT_RENDER_MAX_DEPTH      16     /* deeper nesting is drawn on the last row */
#define WEFT_RENDER_MIN_BOX_PX      3.0   /* runs of narrower events are folded into one box */
#define WEFT_RENDER_MIN_LABEL_PX    5.0   /* no text on boxes narrower than this (plus text width) */
#define WEFT_RENDER_MEMORY_ROW     46.0   /* the memory counter row of a rank */

/* ---- view state ------------------------------------------------------------- */

/* Per-rank view flags (WeftView.rank_flags[rank_index]). */
enum
{
  WEFT_RANK_VIEW_COLLAPSED    = 1 << 0, /* only the rank header row (with its overlap band) */
  WEFT_RANK_VIEW_CPU_EXPANDED = 1 << 1, /* CPU threads as their own lanes (default: one summary row) */
  WEFT_RANK_VIEW_HIDDEN       = 1 << 2, /* rank not shown at all (weft-cli render --ranks) */
};

/* What is drawn where: a plain struct owned by the caller (the window keeps
 * one, the CLI fills one). Initialise with weft_view_init(). */
typedef struct
{
  WeftTimeSpan span;          /* visible time range, common timeline (ns); end > begin */
  gint64       origin;        /* ruler labels show t - origin (weft_view_init: trace start) */
  double       width;         /* body width in px */
  double       height;        /* body height in px (visible part of the lanes) */
  double       scroll_y;      /* content y at the top of the body */

  guint8      *rank_flags;    /* WEFT_RANK_VIEW_* per rank_index, n_rank_flags entries; NULL = defaults.
                                 Owned by the caller; rebuild the layout after changing it. */
  guint        n_rank_flags;

  gboolean     dark;          /* dark palette */
  gboolean     show_steps;            /* ProfilerStep markers (default TRUE) */
  gboolean     show_overlap_band;     /* per-rank overlap band in the rank header row (default TRUE) */
  gboolean     show_critical_path;    /* WeftRenderOverlay.critical_path (default TRUE) */
  gboolean     show_flows;            /* launch flow of the selection / hover (default TRUE) */
  gboolean     show_instance_links;   /* the hovered / selected collective on every rank (default TRUE) */
  gboolean     show_memory;           /* a memory counter row per rank with [memory] events (default TRUE;
                                         rebuild the layout after changing it) */
  gboolean     color_by_microbatch;   /* GPU compute ops of a pipeline action ("PP:<stage><F|B|I|W><mb>",
                                         weft-pipeline.h) coloured by microbatch (default FALSE) */

  /* Selection and hover (WEFT_NONE = none). Indices into trace->ranks and
   * that rank's events. */
  guint        sel_rank;
  guint32      sel_event;
  guint        hover_rank;
  guint32      hover_event;
  /* Collective instance to link across ranks (index into trace->instances),
   * WEFT_NONE: the instance of the hovered event, else of the selected one. */
  guint32      highlight_instance;
  /* A time range selected on the ruler (begin == end: none); shaded. */
  WeftTimeSpan range;
} WeftView;

/* Defaults: the whole trace, origin at its start, 1200x800 px, light,
 * every overlay on, nothing selected, rank_flags NULL. */
void   weft_view_init (WeftView *view, WeftTrace *trace);
/* Sets span to the whole trace (plus a small margin). */
void   weft_view_fit_all (WeftView *view, WeftTrace *trace);
/* Fits the view to span (with the same margin as weft_view_fit_all). */
void   weft_view_fit_span (WeftView *view, WeftTimeSpan span);
/* Zooms by factor (< 1 zooms in) keeping the time under x fixed; the
 * visible duration is clamped to [100 ns, 1000 s]. */
void   weft_view_zoom (WeftView *view, double factor, double x);
/* Pans by dx px (positive: later times). */
void   weft_view_pan (WeftView *view, double dx);
/* Rank flags helpers; they grow rank_flags (g_realloc) as needed. */
guint8 weft_view_get_rank_flags (const WeftView *view, guint rank_index);
void   weft_view_set_rank_flags (WeftView *view, guint rank_index, guint8 flags);
/* Frees rank_flags (not the struct). */
void   weft_view_clear (WeftView *view);

static inline double
weft_render_time_to_x (const WeftView *view, gint64 t)
{
  gint64 d = view->span.end - view->span.begin;
  return d > 0 ? (double) (t - view->span.begin) * view->width / (double) d : 0.0;
}

static inline gint64
weft_render_x_to_time (const WeftView *view, double x)
{
  gint64 d = view->span.end - view->span.begin;
  double dt = view->width > 0 ? x * (double) d / view->width : 0.0;
  /* far outside the view: clamped, never an out-of-range conversion */
  dt = dt < -4e18 ? -4e18 : dt > 4e18 ? 4e18 : dt;
  return view->span.begin + (gint64) dt;
}

/* ---- solved times (optional) ---------------------------------------------------- */

/* Returns FALSE to draw the event at its observed time. */
typedef gboolean (*WeftRenderTimeFunc) (gpointer user_data, guint rank_index, guint32 event,
                                        gint64 *start, gint64 *end);
/* The times of a whole lane: arrays aligned with lane->events (entry i is
 * the event lane->events[i]), valid until the times change; returns the
 * number of entries, 0 = not available (the painter then asks per event). */
typedef guint (*WeftRenderLaneFunc) (gpointer user_data, guint rank_index, guint32 lane,
                                     const gint64 **start, const gint64 **end);

/* Times to draw instead of the observed ones, e.g. the solver's solution,
 * on the COMMON timeline (clock offset included). Either a callback (func,
 * e.g. wrapping weft_solver_start/end) or arrays: start[rank_index] /
 * end[rank_index] indexed by event index; a NULL array, or the value
 * G_MININT64 in start[], means "the observed time" for that rank / event.
 * The painter calls func only for the events it looks at (a few per
 * drawn box, plus binary-search probes), never for every event.
 * Each lane must stay sorted by these start times (stream order keeps it). */
typedef struct
{
  WeftRenderTimeFunc    func;
  gpointer              user_data;
  guint                 n_ranks;
  const gint64 * const *start;
  const gint64 * const *end;
  /* Optional: non-zero = the times only change when this number changes
   * (e.g. weft_solver_generation () + 1). The layout then keeps the times
   * of each long lane row it paints packed in memory, so frames of a
   * static schedule cost the same as with observed times. A row is
   * (re-)read on the second paint that sees a generation (O(its events)),
   * so while the generation changes on every frame (a drag) rows are asked
   * for directly as with 0. 0 = ask on every frame. */
  guint64               generation;
  /* Optional, with func: the same times per lane as flat arrays
   * (weft_solver_lane_times). The painter then walks each lane's array as
   * it walks the lane's events (no call per event, nothing cached in the
   * layout, whatever the generation); func still answers single events
   * (hit tests, highlights). */
  WeftRenderLaneFunc    lane_func;
  /* Optional, with lane_func: how much the next lane_func call would
   * rewrite (weft_solver_lane_times_pending). Above the layout's refresh
   * budget, the first paint of a generation asks per event instead (a drag
   * re-solving much of the trace on every motion pays nothing extra) and a
   * later paint of the same generation refreshes the arrays. */
  guint64             (*lane_pending) (gpointer user_data);
  /* Optional, with lane_func: where the GPU lanes' times of a rank changed
   * since an epoch (weft_solver_lane_times_gpu_window), so the layout
   * patches the band of solved times over that span instead of remaking
   * it; FALSE: not known (remade). */
  gboolean            (*lane_window) (gpointer user_data, guint rank_index, guint64 since, guint64 *epoch,
                                      gint64 *lo, gint64 *hi);
  /* Optional, with lane_func: which positions of one lane's arrays changed
   * since an epoch (weft_solver_lane_times_changed; inclusive, lo > hi:
   * none), so the layout's box cache of a row drawn at the same view is
   * replayed or patched instead of folded again; FALSE: not known. */
  gboolean            (*lane_changed) (gpointer user_data, guint rank_index, guint32 lane, guint64 since,
                                       guint64 *epoch, guint *lo, guint *hi);
} WeftRenderTimes;

/* The solver's times, as the window and weft-cli render draw them: func
 * over weft_solver_times, lane_func over weft_solver_lane_times, the
 * generation weft_solver_generation () + 1 (refresh it after each edit with
 * weft_render_times_update). solver NULL: observed times (all zero). */
void weft_render_times_init_solver (WeftRenderTimes *times, WeftTrace *trace, WeftSolver *solver);
#define WEFT_RENDER_HAS_SOLVER_TIMES 1
void weft_render_times_update (WeftRenderTimes *times);

/* The time span an event is drawn at. */
WeftTimeSpan weft_render_event_span (WeftTrace *trace, const WeftRenderTimes *times,
                                     guint rank_index, guint32 event);

/* ---- overlap band -------------------------------------------------------------------- */

typedef enum
{
  WEFT_OVERLAP_IDLE = 0,
  WEFT_OVERLAP_COMPUTE_ONLY,
  WEFT_OVERLAP_OVERLAPPED,
  WEFT_OVERLAP_COMM_ONLY,
  WEFT_OVERLAP_N_STATES
} WeftOverlapState;

typedef struct
{
  gint64           begin;   /* common timeline ns */
  gint64           end;
  WeftOverlapState state;
} WeftOverlapSegment;

/* Interval-union sweep over the rank's GPU ops (kernels, memcpy, memset):
 * compute = any non-communication op running, comm = any communication op
 * running. Returns a sorted GArray of WeftOverlapSegment without gaps over
 * [first op start, last op end] (IDLE segments included). */
/* (transfer full) */
GArray *weft_render_overlap_band (WeftTrace *trace, const WeftRenderTimes *times, guint rank_index);

/* ---- overlays ------------------------------------------------------------------------ */

/* What the painter draws over the events. Everything optional (NULL / 0). */
typedef struct
{
  /* Critical path in time order; drawn over everything as a thick outline
   * on each op plus connectors between consecutive ops. */
  const WeftEventRef *critical_path;
  guint               n_critical_path;
  /* Per-rank overlap band (GArray of WeftOverlapSegment, index = rank_index,
   * n_bands entries, NULL entries allowed). Without it the painter uses the
   * band computed from observed times when the layout was built, or, for
   * solved times with a generation, the band of those times (computed once
   * per generation, on its second paint; the last one while a drag changes
   * the generation on every frame). */
  GArray * const     *bands;
  guint               n_bands;
  /* The memory rows' curves (e.g. re-timed by the solver after each
   * edit: weft_memory_timeline_update). NULL: the layout's own, of the
   * observed times, made on the first paint of a memory row. */
  WeftMemoryTimeline *memory;
} WeftRenderOverlay;

/* ---- layout ------------------------------------------------------------------------- */

typedef enum
{
  WEFT_ROW_RANK_HEADER = 0, /* "rank 3" + overlap band */
  WEFT_ROW_LANE,            /* one lane (GPU stream, CPU thread, other track), n_depth sub-rows */
  WEFT_ROW_CPU_SUMMARY,     /* the collapsed CPU threads of a rank, merged in one row */
  WEFT_ROW_MEMORY,          /* the rank's GPU memory: allocated (filled) and reserved (line) over time */
} WeftRowKind;

typedef struct
{
  WeftRowKind  kind;
  guint        rank_index;
  guint32      lane;        /* index into the rank's lanes; WEFT_NONE for header / summary rows */
  WeftLaneRole role;        /* lane->role, or inferred from the lane's kernels */
  double       y;           /* content y of the top */
  double       height;
  guint        n_depth;     /* depth sub-rows of a lane (1 if nothing nests) */
} WeftLayoutRow;

typedef struct _WeftLayout WeftLayout;

/* Rows for the trace under view's rank flags: per rank (trace order, hidden
 * ranks skipped) a header row, then unless collapsed the GPU stream lanes
 * (sort_index order, sync lanes last), then a CPU summary row merging the
 * CPU threads (or, when CPU_EXPANDED, one row per CPU thread and then per
 * other track: "Spans", "Traces", overhead; those are not shown collapsed), then, with
 * view->show_memory, a memory row when the rank has "[memory]" events. Also precomputes the nesting
 * depth rows of each lane and the observed-time overlap band per rank: cost
 * O(events), ranks prepared in parallel (thread pool) from 200k events on;
 * rebuild only when flags or lanes change, not per frame: after structural
 * edits (insert, remove, move to another lane, weft_solver_apply_to_model)
 * rebuild it, until then a removed op may still show and a lane that grew
 * is drawn on the slow path (never out of bounds). Pango objects
 * are made on the first paint, so a layout may be built on a worker thread
 * (while nothing edits the trace) and then painted on one thread at a time. */
WeftLayout          *weft_layout_new (WeftTrace *trace, const WeftView *view); /* (transfer full) */
void                 weft_layout_free (WeftLayout *layout);
guint                weft_layout_get_n_rows (const WeftLayout *layout);
/* (transfer none) (nullable): NULL past the last row */
const WeftLayoutRow *weft_layout_get_row (const WeftLayout *layout, guint i);
/* Total content height (px). */
double               weft_layout_get_height (const WeftLayout *layout);
/* Row at content y, or -1. */
int                  weft_layout_row_at_y (const WeftLayout *layout, double y);
/* Row of (rank_index, lane), or -1 (hidden / collapsed: the row that shows it,
 * the CPU summary or the rank header, is returned instead when there is one). */
int                  weft_layout_find_lane (const WeftLayout *layout, guint rank_index, guint32 lane);
/* How many events' solved times (WeftRenderTimes with a generation) one
 * paint may read into the layout's caches (at least one row per paint);
 * rows beyond it are drawn uncached and read in later paints, so no frame
 * pays for re-reading a whole big trace at once. 0 = the default (262144). */
void                 weft_layout_set_refresh_budget (WeftLayout *layout, guint64 events_per_frame);
/* The overlap band of a rank under these times, computed now as the layout
 * computes the band it draws (with lane arrays: from them and its per-lane
 * cache of the ops' classes, O(events), no sort); the same segments as
 * weft_render_overlap_band. (transfer full) (nullable): NULL for a rank
 * the layout does not hold. */
GArray              *weft_layout_overlap_band (WeftLayout *layout, const WeftRenderTimes *times, guint rank_index);
/* The band the next paint would draw for a rank under these times, as the
 * first row of a frame gets it: the kept band of solved times, patched
 * where the lane arrays changed (WeftRenderTimes.lane_window), made on the
 * second call for a generation when it cannot be patched, else the last
 * one. (transfer none) (nullable). */
const GArray        *weft_layout_painted_band (WeftLayout *layout, const WeftRenderTimes *times, guint rank_index);
/* Whether some op of the layout's ranks belongs to a pipeline action
 * (weft_rank_pp_action_table, made per rank when the layout is built). */
gboolean             weft_layout_has_pp_actions (const WeftLayout *layout);
/* Depth sub-row (0-based) of an event on its lane's row. */
guint                weft_layout_event_depth (const WeftLayout *layout, guint rank_index, guint32 event);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WeftLayout, weft_layout_free)

/* Label of a row: "rank 3", "stream 7 · compute", "CPU · 5 threads", "thread 1234 (python)",
 * "GPU memory". */
char *weft_render_row_label (WeftTrace *trace, const WeftLayoutRow *row); /* (transfer full) */
/* The width the lane-header column needs for its longest label, whole
 * (indent and margin included), in pixels. */
double weft_layout_label_width (const WeftLayout *layout);

/* The text drawn on an event: C++ kernel signatures lose their return type,
 * namespaces, template and argument lists ("void at::native::foo<4>(int)" ->
 * "foo"); other names are kept ("aten::mm"). */
char *weft_render_short_name (const char *name); /* (transfer full) */

/* ---- colours ------------------------------------------------------------------------ */

typedef struct
{
  double r, g, b, a;
} WeftRgba;

/* Palette shared with the window's legend. Compute kernels by class,
 * communication by collective type (WEFT_COLL_NONE: generic comm colour). */
WeftRgba weft_render_class_color (WeftKernelClass kclass, gboolean dark);
WeftRgba weft_render_coll_color (WeftCollType type, gboolean dark);
WeftRgba weft_render_overlap_color (WeftOverlapState state, gboolean dark);
/* Colour of any event: GPU ops by class / collective type, CPU events by
 * category (cpu_op, python_function, cuda_runtime, annotations...). */
WeftRgba weft_render_event_color (const WeftRank *rank, const WeftEvent *ev, gboolean dark);
WeftRgba weft_render_background_color (gboolean dark);
/* The colour of a pipeline action's ops under view->color_by_microbatch:
 * one of WEFT_RENDER_MICROBATCH_HUES hues by microbatch (modulo), forward
 * ('F') a lighter tint of it than the backward kinds ('B', 'I', 'W'). */
#define WEFT_RENDER_MICROBATCH_HUES 10
WeftRgba weft_render_microbatch_color (int microbatch, char kind, gboolean dark);
WeftRgba weft_render_text_color (gboolean dark);

/* ---- painting ------------------------------------------------------------------------- */

/* Counters of one paint, for tests and benchmarks. */
typedef struct
{
  guint rows_drawn;     /* rows (any kind) at least partly in view */
  guint boxes;          /* rectangles filled for events (a folded run counts once) */
  guint folded_boxes;   /* of those, boxes that stand for more than one event */
  guint events_folded;  /* events represented by folded boxes */
  guint labels;         /* text labels drawn */
  guint events_visited; /* events the painter looked at (not binary-search probes) */
  guint memory_rows;    /* memory rows painted */
  guint memory_points;  /* memory samples they looked at */
  guint memory_fills;   /* cairo fills + strokes of their curves (one each per row, whatever the samples) */
  gint64 memory_peak;   /* the largest peak labelled ("peak 19.7 GiB"), bytes; 0 none */
  /* depth rows drawn from the layout's box cache of the previous paint of
   * the same view: replayed whole (nothing changed in them) or patched
   * (folded again only from the first box that read a changed entry to
   * where the fold meets the cached boxes again), see docs/rendering.md */
  guint rows_replayed;
  guint rows_patched;
  guint bands_replayed;  /* overlap bands drawn from their cached columns */
  guint bands_patched;   /* ... sampled again only over the span their last patch changed */
  guint fills_direct;    /* colours whose boxes were written straight into an image surface's pixels */
  guint memory_rows_replayed; /* memory rows copied from the pixels their last paint left (same curve, view, place) */
  /* depth rows folded in a batch shared with the painter's threads
   * (weft_render_set_fold_threads); the rest were folded on the caller's */
  guint rows_folded_shared;
  /* colours whose boxes were filled in stripes of rows on the painter's threads */
  guint fills_striped;
} WeftRenderStats;

/* The body: background, rows, events with level-of-detail folding, labels,
 * step markers, overlap bands, the critical path, then the highlights
 * (weft_render_paint_highlights). stats may be NULL; times and overlay
 * may be NULL. */
void weft_render_paint (cairo_t *cr, WeftTrace *trace, const WeftView *view, const WeftLayout *layout,
                        const WeftRenderTimes *times, const WeftRenderOverlay *overlay,
                        WeftRenderStats *stats);

/* The body without the highlights: what a window caches between frames. */
void weft_render_paint_body (cairo_t *cr, WeftTrace *trace, const WeftView *view, const WeftLayout *layout,
                             const WeftRenderTimes *times, const WeftRenderOverlay *overlay,
                             WeftRenderStats *stats);

/* Box fills: on an image surface (scale an integer, the matrix a
 * translation, one pixel-aligned clip) the opaque boxes are written straight
 * into the pixels by cairo's rule for non-antialiased rectangles, the same
 * pixels cairo_fill writes; TRUE sends every fill through cairo instead
 * (process-wide; tests and benchmarks compare the two). */
void weft_render_set_plain_fills (gboolean plain);

/* Threads the folds of a frame's depth rows, its band samplers and its
 * box fills run on, this one counted (process-wide): 0 (the default) one
 * per core up to 8, 1 none besides the caller's. The pixels and stats
 * (but rows_folded_shared and fills_striped) are the same for every
 * count; tests and benchmarks compare them. */
void weft_render_set_fold_threads (guint n_threads);

/* Selection and hover outlines, the highlighted collective instance linked
 * across ranks, the launch flow (CPU launch -> GPU op) of the selection and
 * hover, the ruler range shading. Cheap; drawn on top of a cached body. */
void weft_render_paint_highlights (cairo_t *cr, WeftTrace *trace, const WeftView *view,
                                   const WeftLayout *layout, const WeftRenderTimes *times);

/* The matched P2P send/recv instances (pipeline parallel) as arrows from
 * the send kernel to the receive kernel at the transfer's end, in view
 * (at most WEFT_RENDER_MAX_P2P_ARROWS); returns how many. cr NULL: only
 * counts. Part of the highlights when view->show_flows. */
#define WEFT_RENDER_MAX_P2P_ARROWS 20000
guint weft_render_paint_p2p_arrows (cairo_t *cr, WeftTrace *trace, const WeftView *view,
                                    const WeftLayout *layout, const WeftRenderTimes *times);

/* The time ruler, width view->width, height WEFT_RENDER_RULER_HEIGHT:
 * ticks at 1/2/5 x 10^k ns steps, labels in ns/us/ms/s relative to
 * view->origin, step labels (trace may be NULL). */
void weft_render_paint_ruler (cairo_t *cr, WeftTrace *trace, const WeftView *view);

/* The lane-header column (width header_width, height view->height, scrolled
 * like the body): rank headers with a disclosure triangle, lane labels. */
void weft_render_paint_lane_headers (cairo_t *cr, WeftTrace *trace, const WeftView *view,
                                     const WeftLayout *layout, double header_width);

/* Nice tick step (1, 2, 5 x 10^k ns) for about min_px between ticks. */
gint64 weft_render_tick_step (const WeftView *view, double min_px);
/* Formats a duration / time with units (ns, us, ms, s) into a new string. */
char  *weft_render_format_time (gint64 ns, gint64 step); /* (transfer full) */

/* ---- hit testing ------------------------------------------------------------------------ */

typedef struct
{
  int     row;         /* layout row, -1 if none */
  guint   rank_index;  /* WEFT_NONE if none */
  guint32 event;       /* WEFT_NONE if no event under the point */
  guint   depth;
} WeftHit;

/* What is under body point (x, y) (y on screen, scroll applied). Events
 * narrower than a few px are found within +-2 px; in the CPU summary row
 * the topmost event of any thread. Returns TRUE when an event was hit. */
gboolean weft_render_hit_test (WeftTrace *trace, const WeftView *view, const WeftLayout *layout,
                               const WeftRenderTimes *times, double x, double y, WeftHit *hit);

/* The memory timeline a paint of this layout draws with overlay (its
 * memory, else the layout's own of the observed times, made now).
 * (transfer none) */
WeftMemoryTimeline *weft_layout_memory (const WeftLayout *layout, const WeftRenderOverlay *overlay);

/* ---- files ---------------------------------------------------------------------------------- */

typedef struct
{
  WeftTimeSpan span;        /* begin == end: the whole trace */
  const int   *ranks;       /* rank NUMBERS to show, NULL = all */
  guint        n_ranks;
  int          width;       /* total px incl. the header column; 0 = 1600 */
  int          height;      /* total px; 0 = as tall as the rows need (auto) */
  gboolean     cpu_expanded;
  gboolean     dark;
  const WeftRenderTimes   *times;
  const WeftRenderOverlay *overlay;
} WeftRenderFileOptions;

/* Paints ruler + headers + body into PNG, SVG or PDF, chosen by the
 * extension of path (.png, .svg, .pdf, case-insensitive). FALSE with
 * WEFT_ERROR_INVALID (bad extension / options) or WEFT_ERROR_IO. */
gboolean weft_render_to_file (WeftTrace *trace, const WeftRenderFileOptions *options, const char *path,
                              GError **error);

G_END_DECLS
