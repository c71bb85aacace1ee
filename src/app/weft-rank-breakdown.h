/* weft-rank-breakdown.h: one stacked bar per rank (compute only,
 * overlapped, communication only, idle) over the chosen step. */
#pragma once

#include <gtk/gtk.h>

#include "weft/weft-solver.h"

G_BEGIN_DECLS

#define WEFT_TYPE_RANK_BREAKDOWN (weft_rank_breakdown_get_type ())
G_DECLARE_FINAL_TYPE (WeftRankBreakdown, weft_rank_breakdown, WEFT, RANK_BREAKDOWN, GtkWidget)

GtkWidget *weft_rank_breakdown_new        (void);
/* Borrowed; NULL clears it. */
void       weft_rank_breakdown_set_solver (WeftRankBreakdown *self,
                                           WeftSolver        *solver,
                                           int                step);
void       weft_rank_breakdown_refresh    (WeftRankBreakdown *self);
void       weft_rank_breakdown_set_dark   (WeftRankBreakdown *self,
                                           gboolean           dark);

G_END_DECLS
