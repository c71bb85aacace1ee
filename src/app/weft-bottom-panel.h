/* weft-bottom-panel.h: the window's bottom panel (View > Tables, Ctrl+J):
 * sortable tables of the solved trace from the core's queries
 * (weft-tables.h): the collectives of the step, the kernels by name, and
 * the slices of the selected time range. A click on a row emits
 * "select-event" (rank_index, event): the window selects it in the
 * timeline and scrolls to it; "rows-changed" when the rows on screen
 * change (filled, sorted, scrolled, another page). */
#pragma once

#include <gtk/gtk.h>

#include "weft/weft.h"

G_BEGIN_DECLS

#define WEFT_TYPE_BOTTOM_PANEL (weft_bottom_panel_get_type ())
G_DECLARE_FINAL_TYPE (WeftBottomPanel, weft_bottom_panel, WEFT, BOTTOM_PANEL, GtkWidget)

GtkWidget  *weft_bottom_panel_new        (void);
/* Borrowed (NULL: empty). origin: time 0 of the ruler. */
void        weft_bottom_panel_set_solver (WeftBottomPanel *self,
                                          WeftSolver      *solver,
                                          gint64           origin,
                                          int              step);
void        weft_bottom_panel_set_step   (WeftBottomPanel *self,
                                          int              step);
/* The selected time range for the slices table (NULL: none). */
void        weft_bottom_panel_set_range  (WeftBottomPanel    *self,
                                          const WeftTimeSpan *range);
/* The solved times changed (an edit): the tables are computed again when
 * shown. */
void        weft_bottom_panel_refresh    (WeftBottomPanel *self);
/* "collectives", "kernels" or "slices". */
const char *weft_bottom_panel_get_page   (WeftBottomPanel *self);
void        weft_bottom_panel_set_page   (WeftBottomPanel *self,
                                          const char      *page);

/* For the test state: the rows on screen of the page shown, top to bottom
 * (each a cell widget of the first column and its row's rank index, event
 * and cell texts), and the widget of a column's or a page's title. */
typedef struct
{
  GtkWidget  *widget;
  guint       rank_index;
  guint32     event;
  const char *const *cells;
  guint       n_cells;
} WeftBottomPanelRow;

GArray     *weft_bottom_panel_visible_rows (WeftBottomPanel *self); /* (transfer full): WeftBottomPanelRow */
GtkWidget  *weft_bottom_panel_column_title (WeftBottomPanel *self,
                                            const char      *title);
guint       weft_bottom_panel_get_n_rows   (WeftBottomPanel *self);

G_END_DECLS
