/* weft-inspector.h: the right pane: the selected event, its collective
 * instance across ranks, or the metric breakdown of a time range. */
#pragma once

#include <gtk/gtk.h>

#include "weft/weft.h"
#include "weft/weft-edit.h"
#include "weft/weft-render.h"
#include "weft/weft-solver.h"

G_BEGIN_DECLS

#define WEFT_TYPE_INSPECTOR (weft_inspector_get_type ())
G_DECLARE_FINAL_TYPE (WeftInspector, weft_inspector, WEFT, INSPECTOR, GtkWidget)

GtkWidget  *weft_inspector_new        (void);
/* Borrowed; solver may be NULL (observed times only). origin: time 0 of the
 * ruler (start of the trace). */
void        weft_inspector_set_trace  (WeftInspector *self,
                                       WeftTrace     *trace,
                                       WeftSolver    *solver,
                                       gint64         origin);
/* The edit session the edit controls (duration, stream, scale) act on;
 * NULL: read-only. Errors are emitted as "edit-error" (what, message). */
void        weft_inspector_set_session (WeftInspector   *self,
                                        WeftEditSession *session);
void        weft_inspector_show_event (WeftInspector *self,
                                       guint          rank_index,
                                       guint32        event);
void        weft_inspector_show_range (WeftInspector         *self,
                                       WeftTimeSpan           range,
                                       const WeftRenderTimes *times);
/* Nothing selected: a summary of the trace. */
void        weft_inspector_show_summary (WeftInspector *self);
/* The step's critical path (WeftPathSegment, borrowed; NULL: none): the
 * selected op's segments are explained in words. */
void        weft_inspector_set_critical_path (WeftInspector *self,
                                              GArray        *segments);
/* The dependency buttons shown ("follow-edge" (rank_index, event) on a
 * click), and the reasons shown, for tests. dir: "pred" or "succ". */
guint       weft_inspector_get_n_edges (WeftInspector *self);
GtkWidget  *weft_inspector_get_edge    (WeftInspector *self,
                                        guint          i,
                                        const char   **dir,
                                        const char   **kind,
                                        guint         *rank_index,
                                        guint32       *event);
const GPtrArray *weft_inspector_get_reasons (WeftInspector *self);
/* The event name's heading (one line, ellipsized, the name in its tooltip). */
GtkWidget  *weft_inspector_get_title_label (WeftInspector *self);
/* The heading shown (event name, "Range", ...), for tests. */
const char *weft_inspector_get_title  (WeftInspector *self);

G_END_DECLS
