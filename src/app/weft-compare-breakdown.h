/* weft-compare-breakdown.h: the per-rank breakdown of two compared traces:
 * for each rank number, A's bar above B's (compute only, overlapped,
 * communication only, idle, on one scale) and the step-time difference. */
#pragma once

#include <gtk/gtk.h>

#include "weft/weft-diff.h"

G_BEGIN_DECLS

#define WEFT_TYPE_COMPARE_BREAKDOWN (weft_compare_breakdown_get_type ())
G_DECLARE_FINAL_TYPE (WeftCompareBreakdown, weft_compare_breakdown, WEFT, COMPARE_BREAKDOWN, GtkWidget)

GtkWidget *weft_compare_breakdown_new      (void);
/* Borrowed (the diff must outlive it or be unset); NULL clears it. */
void       weft_compare_breakdown_set_diff (WeftCompareBreakdown *self,
                                            WeftDiff             *diff);
void       weft_compare_breakdown_set_dark (WeftCompareBreakdown *self,
                                            gboolean              dark);
/* Rank rows drawn (for the test state). */
guint      weft_compare_breakdown_get_n_rows (WeftCompareBreakdown *self);

G_END_DECLS
