/* weft-palette.h: the kernels of the loaded profile (by class, with their
 * measured durations) and its collectives (type, size, group, stream,
 * cost-model time), to drag onto a lane of the timeline. */
#pragma once

#include <gtk/gtk.h>

#include "weft/weft-edit.h"

G_BEGIN_DECLS

#define WEFT_TYPE_PALETTE (weft_palette_get_type ())
G_DECLARE_FINAL_TYPE (WeftPalette, weft_palette, WEFT, PALETTE, GtkWidget)

/* Drag payload (a string): "weft-palette:kernel:<i>" or "weft-palette:collective:<i>". */
#define WEFT_PALETTE_DND_PREFIX "weft-palette:"

GtkWidget *weft_palette_new         (void);
/* Borrowed; NULL empties it. */
void       weft_palette_set_session (WeftPalette     *self,
                                     WeftEditSession *session);
/* The items behind a drag payload; NULL when it is not one of this palette's. */
const WeftPaletteKernel     *weft_palette_lookup_kernel     (WeftPalette *self,
                                                             const char  *payload);
const WeftPaletteCollective *weft_palette_lookup_collective (WeftPalette *self,
                                                             const char  *payload);
guint      weft_palette_get_n_items (WeftPalette *self);
/* The last items are each strategy's collectives (weft-strategy-palette.h). */
guint      weft_palette_get_n_strategy_items (WeftPalette *self);
/* The n-th item row (for tests: where to start a drag), NULL past the end. */
GtkWidget *weft_palette_get_item    (WeftPalette *self,
                                     guint        n);
const char *weft_palette_item_payload (GtkWidget *item);

G_END_DECLS
