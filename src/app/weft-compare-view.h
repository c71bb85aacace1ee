/* weft-compare-view.h: two traces compared (weft-diff.h): A's timeline above
 * B's on a shared time axis (each step lined up at its start, its first
 * collective, or absolute), the same zoom and pan for both, the summary
 * sentence, chips with both values and the difference, the per-rank
 * breakdown with both bars per rank, the selected op with its counterpart
 * and their differences, and the ops of one side only marked. Read only. */
#pragma once

#include <gtk/gtk.h>

#include "weft/weft-diff.h"
#include "weft-timeline-view.h"

G_BEGIN_DECLS

#define WEFT_TYPE_COMPARE_VIEW (weft_compare_view_get_type ())
G_DECLARE_FINAL_TYPE (WeftCompareView, weft_compare_view, WEFT, COMPARE_VIEW, GtkWidget)

GtkWidget        *weft_compare_view_new          (void);
/* The two sides (borrowed: both solvers and their traces must outlive the
 * view or be unset with NULL, NULL first), with a label each. */
void              weft_compare_view_set          (WeftCompareView *self,
                                                  WeftSolver      *a,
                                                  const char      *label_a,
                                                  WeftSolver      *b,
                                                  const char      *label_b);
/* The step each side compares (WEFT_SOLVER_ALL_STEPS: the whole trace); a
 * step a side does not have leaves that side's choice as it was (its first
 * step after weft_compare_view_set ()). */
void              weft_compare_view_set_steps    (WeftCompareView *self,
                                                  int              step_a,
                                                  int              step_b);
int               weft_compare_view_get_step     (WeftCompareView *self,
                                                  WeftDiffSide     side);
/* A side's step drop-down and the steps it offers (transfer none), for the
 * test state. */
GtkWidget        *weft_compare_view_get_step_drop (WeftCompareView *self,
                                                   WeftDiffSide     side);
GArray           *weft_compare_view_get_steps    (WeftCompareView *self,
                                                  WeftDiffSide     side);
/* Compares again (after an edit of either side). */
void              weft_compare_view_refresh      (WeftCompareView *self);
void              weft_compare_view_set_align    (WeftCompareView *self,
                                                  WeftDiffAlign    align);
WeftDiffAlign     weft_compare_view_get_align    (WeftCompareView *self);
void              weft_compare_view_set_dark     (WeftCompareView *self,
                                                  gboolean         dark);
/* (transfer none) (nullable): NULL when no sides are set */
WeftDiff         *weft_compare_view_get_diff     (WeftCompareView *self);
WeftTimelineView *weft_compare_view_get_timeline (WeftCompareView *self,
                                                  WeftDiffSide     side); /* (transfer none) */
const char       *weft_compare_view_get_label    (WeftCompareView *self,
                                                  WeftDiffSide     side); /* (transfer none) */
/* The ops of one side only, marked on its timeline. */
guint             weft_compare_view_get_n_only   (WeftCompareView *self,
                                                  WeftDiffSide     side);
/* What the side pane says of the selected op and its counterpart
 * (transfer none): "" when nothing is selected. */
const char       *weft_compare_view_get_detail   (WeftCompareView *self);
/* The chips' text, one line each (transfer none). */
const char       *weft_compare_view_get_chips    (WeftCompareView *self);
guint             weft_compare_view_get_breakdown_rows (WeftCompareView *self);
/* An op's box on its side's timeline, in the timeline widget's coordinates
 * (clipped to the lanes); FALSE when it is not on screen. */
gboolean          weft_compare_view_op_rect      (WeftCompareView *self,
                                                  WeftDiffSide     side,
                                                  guint            rank_index,
                                                  guint32          event,
                                                  graphene_rect_t *rect);

G_END_DECLS
