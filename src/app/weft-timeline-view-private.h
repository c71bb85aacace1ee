/* weft-timeline-view-private.h: the WeftTimelineView struct and the
 * functions its files share.
 *
 *   weft-timeline-view.c          geometry, view state, navigation, lifecycle, public API
 *   weft-timeline-view-actions.c  the timeline.* actions and their keys, search
 *   weft-timeline-view-edit.c     editing: dragging a GPU op, delete / duplicate, palette drops
 *   weft-timeline-view-input.c    pointer input: hover, wheel, the drag gesture, tooltips
 *   weft-timeline-view-draw.c     measuring and painting (the cached body texture), export
 *   weft-timeline-view-memory.c   the memory rows: their timeline, tooltips, the Shift+M toggle
 *   weft-timeline-view-marks.c    M marks, numbered bookmarks */
#pragma once

#include <gtk/gtk.h>

#include "weft/weft-edit.h"
#include "weft/weft-render.h"
#include "weft-timeline-view.h"

G_BEGIN_DECLS

#define ZOOM_STEP       0.8    /* W: visible range x0.8 */
#define PAN_FRACTION    0.15   /* A/D: 15% of the visible range */
#define WHEEL_LINE_PX   54.0   /* one wheel notch scrolls three lane rows */
#define DRAG_THRESHOLD  4.0

typedef enum
{
  DRAG_NONE = 0,
  DRAG_RANGE,   /* on the ruler: select a time range */
  DRAG_PAN,     /* on the body: grab and pan */
  DRAG_HEADER,  /* on the lane headers (click only) */
  DRAG_MOVE,    /* on a GPU op: move it in time / to another stream (edit) */
  DRAG_RESIZE,  /* on a GPU op's right edge: change its duration (edit) */
} DragMode;

typedef struct
{
  gint64  ts;
  guint   rank_index;
  guint32 event;
} SearchMatch;

#define WEFT_N_BOOKMARKS 9

typedef struct
{
  gboolean     set;
  WeftTimeSpan span;      /* the visible range */
  double       scroll_y;
  guint        sel_rank;
  guint32      sel_event;
} WeftBookmark;

struct _WeftTimelineView
{
  GtkWidget parent_instance;

  WeftTrace  *trace;        /* borrowed */
  WeftView    view;
  WeftLayout *layout;
  double      label_width;  /* what the longest lane label needs (weft_layout_label_width) */
  WeftTimeSpan trace_span;
  WeftTimeSpan content;            /* trace_span and the solver's span (content_span) */
  guint64      content_gen;
  gboolean     content_valid;

  const WeftRenderTimes   *times;   /* borrowed, may be NULL */
  WeftRenderOverlay        overlay; /* borrowed arrays */

  GtkAdjustment *vadj;
  GtkAdjustment *hadj;
  guint          hscroll_policy;
  guint          vscroll_policy;

  /* body cache */
  GdkTexture *body_texture;      /* made from body_surface when the renderer wants one */
  cairo_surface_t *body_surface; /* the painted body (image surface) */
  gboolean    body_valid;
  int         body_w, body_h, body_scale;

  /* pointer */
  gboolean pointer_in;
  double   pointer_x, pointer_y;   /* widget coordinates */

  /* drag */
  DragMode drag_mode;
  double   drag_x, drag_y;         /* start, widget coordinates */
  gboolean drag_moved;
  WeftTimeSpan drag_span;          /* view span at drag start */
  double   drag_scroll;
  /* editing drag */
  WeftEventRef drag_op;
  gint64    drag_orig_start;
  gint64    drag_orig_end;
  gint64    drag_orig_offset;       /* view clock offset at the press, for the ghost */
  int       drag_target_row;        /* layout row under the pointer, -1 none */
  char     *drag_error;             /* the solver refused the move (cycle) */
  gboolean  drag_gesture_open;
  gboolean  drag_time_moved;        /* the gesture moved the op in time */
  gint64    drag_time_to;           /* ... to this start */
  guint32   drag_orig_lane;         /* its stream at the press */
  guint32   drag_live_lane;         /* the stream the gesture has moved it to (live, undone
                                     * when the pointer leaves that stream) */

  WeftEditSession *session;         /* borrowed, may be NULL: read-only */
  /* drag latency: pointer motion (drag-update) to the end of the frame
   * that shows it, for the benchmark */
  gint64           motion_time;     /* 0: no motion waiting for a frame */
  /* with WEFT_DEBUG_TIMING: the phases of that frame (monotonic us) */
  gboolean         debug_timing;
  gint64           t_edited, t_snapshot, t_body, t_snapshot_end;
  GArray          *latencies;       /* gint64 us */
  gulong           after_paint_id;
  GdkFrameClock   *frame_clock;
  GtkGesture      *drag_gesture;

  /* search */
  char    *search_pattern;
  gboolean search_regex;
  WeftSliceKind search_kind;       /* matches only of that kind */
  GArray  *matches;                /* SearchMatch sorted by (ts, rank, event) */
  int      match_pos;

  /* memory rows (weft-timeline-view-memory.c) */
  WeftMemoryTimeline *memory;      /* made on first use, re-timed before each body paint */
  WeftRenderStats     body_stats;  /* of the last body paint */
  /* marks (weft-timeline-view-marks.c) */
  gboolean     has_mark;
  WeftTimeSpan mark;
  WeftBookmark bookmarks[WEFT_N_BOOKMARKS];

  guint    frames;
  guint    first_frame_idle;
  gboolean first_frame_pending;
};

enum
{
  SIGNAL_EDIT_ERROR,         /* an edit was refused: (what, message) */
  SIGNAL_PALETTE_DROP,       /* a palette item dropped on a GPU lane: (payload, rank_index, lane, time) */
  SIGNAL_VIEW_CHANGED,       /* visible range or vertical scroll */
  SIGNAL_SELECTION_CHANGED,  /* selected event or range */
  SIGNAL_LAYOUT_CHANGED,     /* groups collapsed / expanded */
  SIGNAL_SEARCH_REQUESTED,   /* Ctrl+F */
  SIGNAL_FIRST_FRAME,        /* first frame drawn after set_trace */
  N_SIGNALS
};

extern guint _weft_timeline_view_signals[N_SIGNALS];

/* weft-timeline-view.c */
void _weft_timeline_view_body_rect (WeftTimelineView *self, graphene_rect_t *rect);
void _weft_timeline_view_fit_all (WeftTimelineView *self);
double _weft_timeline_view_header_width (WeftTimelineView *self);
gboolean _weft_timeline_view_in_body (WeftTimelineView *self, double x, double y);
gboolean _weft_timeline_view_in_headers (WeftTimelineView *self, double x, double y);
gboolean _weft_timeline_view_in_ruler (WeftTimelineView *self, double x, double y);
void _weft_timeline_view_invalidate_body (WeftTimelineView *self);
void _weft_timeline_view_pan_px (WeftTimelineView *self, double dx);
void _weft_timeline_view_rebuild_layout (WeftTimelineView *self);
void _weft_timeline_view_reveal_event (WeftTimelineView *self, guint rank_index, guint32 event);
void _weft_timeline_view_select_event (WeftTimelineView *self, guint rank_index, guint32 event, gboolean reveal);
WeftTimeSpan _weft_timeline_view_selected_span (WeftTimelineView *self);
void _weft_timeline_view_selection_changed (WeftTimelineView *self);
void _weft_timeline_view_set_scroll (WeftTimelineView *self, double y);
void _weft_timeline_view_set_span (WeftTimelineView *self, gint64 begin, gint64 end);
void _weft_timeline_view_sync_view_size (WeftTimelineView *self);
void _weft_timeline_view_update_actions (WeftTimelineView *self);
void _weft_timeline_view_update_adjustment (WeftTimelineView *self);
void _weft_timeline_view_view_changed (WeftTimelineView *self);
void _weft_timeline_view_zoom (WeftTimelineView *self, double factor, double x);
double _weft_timeline_view_zoom_anchor (WeftTimelineView *self);

/* weft-timeline-view-actions.c */
void _weft_timeline_view_clear_search (WeftTimelineView *self);
void _weft_timeline_view_class_actions_init (GtkWidgetClass *widget_class);

/* weft-timeline-view-marks.c */
void _weft_timeline_view_class_marks_init (GtkWidgetClass *widget_class);
void _weft_timeline_view_paint_mark (WeftTimelineView *self, GtkSnapshot *snapshot, const graphene_rect_t *body);

/* weft-timeline-view-edit.c */
void _weft_timeline_view_action_delete (GtkWidget *widget, const char *name, GVariant *param);
gboolean _weft_timeline_view_cancel_edit_drag (WeftTimelineView *self);
void _weft_timeline_view_drag_edit_end (WeftTimelineView *self);
void _weft_timeline_view_drag_edit_reset (WeftTimelineView *self);
void _weft_timeline_view_drag_edit_update (WeftTimelineView *self, double ox, double oy, const graphene_rect_t *r);
gboolean _weft_timeline_view_drop_cb (GtkDropTarget *target, const GValue *value, double x, double y,
                                      WeftTimelineView *self);
void _weft_timeline_view_paint_drag_ghost (WeftTimelineView *self, cairo_t *cr);
WeftSolver * _weft_timeline_view_view_solver (WeftTimelineView *self);

/* weft-timeline-view-input.c */
gboolean _weft_timeline_view_query_tooltip (GtkWidget *widget, int x, int y, gboolean keyboard, GtkTooltip *tooltip);
void _weft_timeline_view_vadj_changed_cb (GtkAdjustment *adj, WeftTimelineView *self);
void _weft_timeline_view_input_init (WeftTimelineView *self);

/* weft-timeline-view-draw.c */
void _weft_timeline_view_after_paint_cb (GdkFrameClock *clock, WeftTimelineView *self);
void weft_timeline_view_measure (GtkWidget *widget, GtkOrientation orientation, int for_size, int *minimum,
                                 int *natural, int *minimum_baseline, int *natural_baseline);
void weft_timeline_view_size_allocate (GtkWidget *widget, int width, int height, int baseline);
void weft_timeline_view_snapshot (GtkWidget *widget, GtkSnapshot *snapshot);

/* weft-timeline-view-memory.c */
void _weft_timeline_view_memory_sync (WeftTimelineView *self);
void _weft_timeline_view_memory_clear (WeftTimelineView *self);
gboolean _weft_timeline_view_memory_tooltip (WeftTimelineView *self, const WeftHit *hit, double body_x,
                                             GtkTooltip *tooltip);
void _weft_timeline_view_memory_class_init (GtkWidgetClass *widget_class);

G_END_DECLS
