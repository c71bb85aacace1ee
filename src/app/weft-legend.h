/* weft-legend.h: the colour legend of the timeline (kernel classes and
 * collective types, the painter's palette, weft_render_class_color /
 * weft_render_coll_color), a strip above the lanes. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define WEFT_TYPE_LEGEND (weft_legend_get_type ())
G_DECLARE_FINAL_TYPE (WeftLegend, weft_legend, WEFT, LEGEND, GtkWidget)

GtkWidget *weft_legend_new      (void);
/* Redraws the chips in the dark or the light palette. */
void       weft_legend_set_dark (WeftLegend *self,
                                 gboolean    dark);
/* Colour by microbatch: > 0 shows that many microbatch hues (at most
 * WEFT_RENDER_MICROBATCH_HUES) instead of the compute classes; 0: off. */
void       weft_legend_set_microbatches (WeftLegend *self,
                                         int         microbatches);
/* The entries shown (their labels), for tests. */
guint      weft_legend_get_n_entries (WeftLegend *self);
const char *weft_legend_get_entry    (WeftLegend *self,
                                      guint       i);

G_END_DECLS
