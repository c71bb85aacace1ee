/* weft-metrics-bar.h: the header-bar metric chips (step time, overlap %,
 * exposed communication, critical path), each with its delta against the
 * trace as loaded, and the step chooser. */
#pragma once

#include <gtk/gtk.h>

#include "weft/weft-solver.h"

G_BEGIN_DECLS

#define WEFT_TYPE_METRICS_BAR (weft_metrics_bar_get_type ())
G_DECLARE_FINAL_TYPE (WeftMetricsBar, weft_metrics_bar, WEFT, METRICS_BAR, GtkWidget)

GtkWidget *weft_metrics_bar_new         (void);
/* Borrowed; NULL clears the chips. */
void       weft_metrics_bar_set_solver  (WeftMetricsBar *self,
                                         WeftSolver     *solver);
/* Recomputes the figures (after an edit). */
void       weft_metrics_bar_refresh     (WeftMetricsBar *self);
/* ProfilerStep number shown, or WEFT_SOLVER_ALL_STEPS. */
int        weft_metrics_bar_get_step    (WeftMetricsBar *self);
/* The figures shown (all ranks); FALSE when there are none. */
gboolean   weft_metrics_bar_get_metrics (WeftMetricsBar *self,
                                         WeftMetrics    *now,
                                         WeftMetrics    *baseline);
/* The step chooser (a GtkDropDown: "Whole trace", then each step). */
GtkWidget *weft_metrics_bar_get_step_drop (WeftMetricsBar *self);

/* The pipeline-bubble chip's figure (mean bubble % over the pipeline
 * ranks), -1 when hidden (no P2P in the trace). */
double     weft_metrics_bar_get_bubble_pct (WeftMetricsBar *self);

G_END_DECLS
