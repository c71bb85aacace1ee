/* weft-legend.c: the timeline's colour legend (see weft-legend.h): one chip
 * per compute class and per collective type, drawn with the painter's own
 * colours so that the legend and the lanes cannot disagree. */
#include "config.h"

#include "weft/weft-render.h"
#include "weft-legend.h"

typedef struct
{
  const char     *label;
  gboolean        coll;
  int             value;  /* WeftKernelClass or WeftCollType */
} Entry;

static const Entry entries[] = {
  { "GEMM", FALSE, WEFT_KCLASS_GEMM },
  { "attention", FALSE, WEFT_KCLASS_ATTENTION },
  { "norm", FALSE, WEFT_KCLASS_NORM },
  { "elementwise", FALSE, WEFT_KCLASS_ELEMENTWISE },
  { "reduction", FALSE, WEFT_KCLASS_REDUCTION },
  { "optimizer", FALSE, WEFT_KCLASS_OPTIMIZER },
  { "copy", FALSE, WEFT_KCLASS_COPY },
  { "other", FALSE, WEFT_KCLASS_OTHER },
  { "all-reduce", TRUE, WEFT_COLL_ALL_REDUCE },
  { "all-gather", TRUE, WEFT_COLL_ALL_GATHER },
  { "reduce-scatter", TRUE, WEFT_COLL_REDUCE_SCATTER },
  { "all-to-all", TRUE, WEFT_COLL_ALL_TO_ALL },
  { "send / recv", TRUE, WEFT_COLL_SEND_RECV },
  { "broadcast", TRUE, WEFT_COLL_BROADCAST },
};

struct _WeftLegend
{
  GtkWidget parent_instance;
  GtkWidget *box;
  GPtrArray *chips;   /* GtkDrawingArea per entry */
  gboolean   dark;
};

G_DEFINE_FINAL_TYPE (WeftLegend, weft_legend, GTK_TYPE_WIDGET)

static void
draw_chip (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  WeftLegend *self = g_object_get_data (G_OBJECT (area), "weft-legend");
  const Entry *e = data;
  WeftRgba c = e->coll ? weft_render_coll_color ((WeftCollType) e->value, self->dark)
                       : weft_render_class_color ((WeftKernelClass) e->value, self->dark);

  cairo_set_source_rgba (cr, c.r, c.g, c.b, c.a);
  cairo_rectangle (cr, 0, 0, width, height);
  cairo_fill (cr);
}

void
weft_legend_set_dark (WeftLegend *self, gboolean dark)
{
  g_return_if_fail (WEFT_IS_LEGEND (self));
  self->dark = dark;
  for (guint i = 0; i < self->chips->len; i++)
    gtk_widget_queue_draw (g_ptr_array_index (self->chips, i));
}

guint
weft_legend_get_n_entries (WeftLegend *self)
{
  g_return_val_if_fail (WEFT_IS_LEGEND (self), 0);
  return G_N_ELEMENTS (entries);
}

const char *
weft_legend_get_entry (WeftLegend *self, guint i)
{
  g_return_val_if_fail (WEFT_IS_LEGEND (self), NULL);
  return i < G_N_ELEMENTS (entries) ? entries[i].label : NULL;
}

static void
weft_legend_dispose (GObject *object)
{
  WeftLegend *self = WEFT_LEGEND (object);
  g_clear_pointer (&self->box, gtk_widget_unparent);
  g_clear_pointer (&self->chips, g_ptr_array_unref);
  G_OBJECT_CLASS (weft_legend_parent_class)->dispose (object);
}

static void
weft_legend_class_init (WeftLegendClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = weft_legend_dispose;
  gtk_widget_class_set_layout_manager_type (GTK_WIDGET_CLASS (klass), GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (GTK_WIDGET_CLASS (klass), "weft-legend");
}

static void
weft_legend_init (WeftLegend *self)
{
  self->chips = g_ptr_array_new ();
  self->box = gtk_flow_box_new ();
  gtk_flow_box_set_selection_mode (GTK_FLOW_BOX (self->box), GTK_SELECTION_NONE);
  gtk_flow_box_set_max_children_per_line (GTK_FLOW_BOX (self->box), G_N_ELEMENTS (entries));
  gtk_flow_box_set_column_spacing (GTK_FLOW_BOX (self->box), 10);
  gtk_flow_box_set_row_spacing (GTK_FLOW_BOX (self->box), 0);
  gtk_widget_set_margin_start (self->box, 8);
  gtk_widget_set_margin_end (self->box, 8);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));
  for (guint i = 0; i < G_N_ELEMENTS (entries); i++)
    {
      GtkWidget *item = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);
      GtkWidget *chip = gtk_drawing_area_new ();
      GtkWidget *label = gtk_label_new (entries[i].label);

      gtk_widget_set_size_request (chip, 12, 10);
      gtk_widget_set_valign (chip, GTK_ALIGN_CENTER);
      g_object_set_data (G_OBJECT (chip), "weft-legend", self);
      gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (chip), draw_chip, (gpointer) &entries[i], NULL);
      gtk_widget_add_css_class (label, "caption");
      gtk_box_append (GTK_BOX (item), chip);
      gtk_box_append (GTK_BOX (item), label);
      gtk_widget_set_tooltip_text (item, entries[i].coll ? "collective type (communication kernels)"
                                                         : "compute kernel class");
      gtk_flow_box_append (GTK_FLOW_BOX (self->box), item);
      g_ptr_array_add (self->chips, chip);
    }
}

GtkWidget *
weft_legend_new (void)
{
  return g_object_new (WEFT_TYPE_LEGEND, NULL);
}
