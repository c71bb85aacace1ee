/* weft-bubble-chip.h: the pipeline-bubble chip of the header bar: the mean
 * bubble % over the pipeline ranks (docs/solver.md, "Pipeline bubble"),
 * each rank's in the tooltip; hidden without P2P. */
#pragma once

#include <gtk/gtk.h>

#include "weft/weft-solver.h"

G_BEGIN_DECLS

/* A GtkLabel styled as a chip, hidden until updated with a pipeline. */
GtkWidget *weft_bubble_chip_new    (void);
/* Recomputes it for step (WEFT_SOLVER_ALL_STEPS: the whole trace); solver
 * NULL hides it. Returns the mean bubble % (-1: no pipeline ranks). */
double     weft_bubble_chip_update (GtkWidget  *chip,
                                    WeftSolver *solver,
                                    int         step);

G_END_DECLS
