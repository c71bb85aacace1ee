/* weft-timeline-view.h: the timeline widget (lanes grouped by rank, ruler,
 * navigation, selection, search), drawn with the weft-render painter. */
#pragma once

#include <gtk/gtk.h>

#include "weft/weft.h"
#include "weft/weft-edit.h"
#include "weft/weft-render.h"

G_BEGIN_DECLS

#define WEFT_TYPE_TIMELINE_VIEW (weft_timeline_view_get_type ())
G_DECLARE_FINAL_TYPE (WeftTimelineView, weft_timeline_view, WEFT, TIMELINE_VIEW, GtkWidget)

typedef enum
{
  WEFT_EXPORT_PNG = 0,
  WEFT_EXPORT_SVG,
  WEFT_EXPORT_PDF,
} WeftExportFormat;

GtkWidget    *weft_timeline_view_new               (void);

/* Borrowed: the trace must outlive the view or be unset first. */
void          weft_timeline_view_set_trace         (WeftTimelineView *self,
                                                    WeftTrace        *trace);
WeftTrace    *weft_timeline_view_get_trace         (WeftTimelineView *self);
/* The edit session that drags, Delete and Ctrl+D act on (borrowed; NULL:
 * read-only). */
void          weft_timeline_view_set_session       (WeftTimelineView *self,
                                                    WeftEditSession  *session);
/* The solved schedule changed (an edit, undo, redo): repaint, and outside
 * a drag rebuild the layout (lanes may have changed). */
void          weft_timeline_view_model_changed     (WeftTimelineView *self);
/* An op is being dragged (one gesture open in the session). */
gboolean      weft_timeline_view_is_dragging       (WeftTimelineView *self);
/* Call after the model changed in place (an edit, a re-solve). */
void          weft_timeline_view_trace_changed     (WeftTimelineView *self);

void          weft_timeline_view_set_dark          (WeftTimelineView *self,
                                                    gboolean          dark);

/* GPU compute ops of pipeline actions coloured by microbatch
 * (WeftView.color_by_microbatch; kept across set_trace). */
void          weft_timeline_view_set_color_by_microbatch (WeftTimelineView *self,
                                                          gboolean          on);
/* Whether the trace has ops of pipeline actions ("PP:..." annotations). */
gboolean      weft_timeline_view_has_pp_actions    (WeftTimelineView *self);
/* The time the ruler labels count from (set_trace: the trace's start). */
void          weft_timeline_view_set_origin        (WeftTimelineView *self,
                                                    gint64            origin);
WeftTimeSpan  weft_timeline_view_get_visible       (WeftTimelineView *self);
void          weft_timeline_view_set_visible       (WeftTimelineView *self,
                                                    WeftTimeSpan      span);
WeftTimeSpan  weft_timeline_view_get_trace_span    (WeftTimelineView *self);
double        weft_timeline_view_get_scroll_y      (WeftTimelineView *self);

/* The selected event: rank index into trace->ranks and event index; FALSE
 * when nothing is selected. */
gboolean      weft_timeline_view_get_selection     (WeftTimelineView *self,
                                                    guint            *rank_index,
                                                    guint32          *event);
void          weft_timeline_view_select            (WeftTimelineView *self,
                                                    guint             rank_index,
                                                    guint32           event);
/* The selected time range (drag on the ruler); FALSE when none. */
gboolean      weft_timeline_view_get_range         (WeftTimelineView *self,
                                                    WeftTimeSpan     *range);

/* Rank groups and their lanes as shown (after hiding empty lanes). */
guint         weft_timeline_view_get_n_groups      (WeftTimelineView *self);
/* For group i: rank number, lanes shown, GPU lanes shown, collapsed. */
void          weft_timeline_view_get_group         (WeftTimelineView *self,
                                                    guint             i,
                                                    int              *rank,
                                                    guint            *n_lanes,
                                                    guint            *n_gpu_lanes,
                                                    gboolean         *collapsed);

/* Searches event names (substring, case-insensitive, or a GRegex) and selects
 * the next (direction 1) or previous (-1) match from the current selection;
 * direction 0 restarts from the visible start. Returns the number of matches;
 * -1 with error for a bad regex. */
int           weft_timeline_view_search            (WeftTimelineView *self,
                                                    const char       *pattern,
                                                    gboolean          regex,
                                                    int               direction,
                                                    GError          **error);

/* The kind of slice the search keeps (GPU ops, collectives, CPU ops;
 * WEFT_SLICE_KIND_ALL: every event, instants included). */
void          weft_timeline_view_set_search_kind   (WeftTimelineView *self,
                                                    WeftSliceKind     kind);

/* Writes the current view (same range and lanes) as PNG, SVG or PDF. */
gboolean      weft_timeline_view_export            (WeftTimelineView *self,
                                                    const char       *path,
                                                    WeftExportFormat  format,
                                                    int               width,
                                                    GError          **error);

/* Solved times and overlays to draw (borrowed; NULL: observed times). */
void          weft_timeline_view_set_times         (WeftTimelineView        *self,
                                                    const WeftRenderTimes   *times,
                                                    const WeftRenderOverlay *overlay);
/* Index of the current search match, -1 if none. */
int           weft_timeline_view_get_match_position (WeftTimelineView *self);
const WeftView   *weft_timeline_view_get_view      (WeftTimelineView *self);
const WeftLayout *weft_timeline_view_get_layout    (WeftTimelineView *self);

/* The lane-header column's width, and the width its longest label needs
 * (the column is that wide within limits; beyond, labels are ellipsized
 * with the whole label in the header's tooltip). */
double        weft_timeline_view_get_header_width  (WeftTimelineView *self);
double        weft_timeline_view_get_label_width   (WeftTimelineView *self);

/* The marked span (M), FALSE when none; a bookmark's visible range
 * (slot 1..9: Alt+N sets, N goes back), FALSE when unset. */
gboolean      weft_timeline_view_get_mark          (WeftTimelineView *self,
                                                    WeftTimeSpan     *span);
gboolean      weft_timeline_view_get_bookmark      (WeftTimelineView *self,
                                                    int               slot,
                                                    WeftTimeSpan     *span);

/* The body (lanes) in widget coordinates. */
void          weft_timeline_view_get_body_rect     (WeftTimelineView *self,
                                                    graphene_rect_t  *rect);
/* The selected event's box in widget coordinates; FALSE when off screen. */
gboolean      weft_timeline_view_get_selection_rect (WeftTimelineView *self,
                                                     graphene_rect_t  *rect);

/* Latencies (gint64 us) from each pointer motion of an edit drag to the end
 * of the frame that shows its result (solver + redraw), for the benchmark. */
const GArray *weft_timeline_view_get_drag_latencies (WeftTimelineView *self);

/* Frames drawn so far (for tests and the startup benchmark). */
guint         weft_timeline_view_get_frames        (WeftTimelineView *self);

/* The memory rows' timeline, re-timed from the solver's times now
 * (transfer none; NULL without a trace), and what the last body paint drew:
 * memory rows and the largest peak it labelled (bytes). */
WeftMemoryTimeline *weft_timeline_view_get_memory (WeftTimelineView *self);
void          weft_timeline_view_get_memory_drawn  (WeftTimelineView        *self,
                                                    guint                   *rows,
                                                    gint64                  *peak);

G_END_DECLS
