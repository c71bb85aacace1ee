/* weft-legend.c: the timeline's colour legend (see weft-legend.h): one chip
 * per compute class and per collective type, drawn with the painter's own
 * colours so that the legend and the lanes cannot disagree. Colour by
 * microbatch: the compute classes give way to one chip per microbatch hue
 * (left half forward, right half backward). */
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
  GPtrArray *chips;   /* GtkDrawingArea per entry, then per microbatch hue */
  GPtrArray *items;   /* the flow box children, same order */
  gboolean   dark;
  int        microbatches; /* > 0: colour by microbatch, that many (at most the hues) shown */
  char      *mb_labels[WEFT_RENDER_MICROBATCH_HUES];
};

static void
draw_mb_chip (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  WeftLegend *self = g_object_get_data (G_OBJECT (area), "weft-legend");
  int mb = GPOINTER_TO_INT (data);
  WeftRgba f = weft_render_microbatch_color (mb, 'F', self->dark);
  WeftRgba b = weft_render_microbatch_color (mb, 'B', self->dark);

  cairo_set_source_rgba (cr, f.r, f.g, f.b, f.a);
  cairo_rectangle (cr, 0, 0, width / 2, height);
  cairo_fill (cr);
  cairo_set_source_rgba (cr, b.r, b.g, b.b, b.a);
  cairo_rectangle (cr, width / 2, 0, width - width / 2, height);
  cairo_fill (cr);
}

static gboolean
entry_shown (WeftLegend *self, guint i)
{
  if (i < G_N_ELEMENTS (entries))
    return self->microbatches <= 0 || entries[i].coll;
  return (int) (i - G_N_ELEMENTS (entries)) < MIN (self->microbatches, WEFT_RENDER_MICROBATCH_HUES);
}

void
weft_legend_set_microbatches (WeftLegend *self, int microbatches)
{
  g_return_if_fail (WEFT_IS_LEGEND (self));
  self->microbatches = MAX (microbatches, 0);
  for (guint i = 0; i < self->items->len; i++)
    gtk_widget_set_visible (g_ptr_array_index (self->items, i), entry_shown (self, i));
}

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
  guint n = 0;
  g_return_val_if_fail (WEFT_IS_LEGEND (self), 0);
  for (guint i = 0; i < self->items->len; i++)
    n += entry_shown (self, i);
  return n;
}

const char *
weft_legend_get_entry (WeftLegend *self, guint i)
{
  g_return_val_if_fail (WEFT_IS_LEGEND (self), NULL);
  for (guint k = 0; k < self->items->len; k++)
    if (entry_shown (self, k) && i-- == 0)
      return k < G_N_ELEMENTS (entries) ? entries[k].label : self->mb_labels[k - G_N_ELEMENTS (entries)];
  return NULL;
}

static void
weft_legend_dispose (GObject *object)
{
  WeftLegend *self = WEFT_LEGEND (object);
  g_clear_pointer (&self->box, gtk_widget_unparent);
  g_clear_pointer (&self->chips, g_ptr_array_unref);
  g_clear_pointer (&self->items, g_ptr_array_unref);
  for (guint i = 0; i < WEFT_RENDER_MICROBATCH_HUES; i++)
    g_clear_pointer (&self->mb_labels[i], g_free);
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
  self->items = g_ptr_array_new ();
  self->box = gtk_flow_box_new ();
  gtk_flow_box_set_selection_mode (GTK_FLOW_BOX (self->box), GTK_SELECTION_NONE);
  gtk_flow_box_set_max_children_per_line (GTK_FLOW_BOX (self->box), G_N_ELEMENTS (entries) + WEFT_RENDER_MICROBATCH_HUES);
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
      g_ptr_array_add (self->items, gtk_widget_get_parent (item));
    }
  for (int mb = 0; mb < WEFT_RENDER_MICROBATCH_HUES; mb++)
    {
      GtkWidget *item = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);
      GtkWidget *chip = gtk_drawing_area_new ();
      GtkWidget *label;

      self->mb_labels[mb] = g_strdup_printf ("microbatch %d", mb);
      label = gtk_label_new (self->mb_labels[mb]);
      gtk_widget_set_size_request (chip, 16, 10);
      gtk_widget_set_valign (chip, GTK_ALIGN_CENTER);
      g_object_set_data (G_OBJECT (chip), "weft-legend", self);
      gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (chip), draw_mb_chip, GINT_TO_POINTER (mb), NULL);
      gtk_widget_add_css_class (label, "caption");
      gtk_box_append (GTK_BOX (item), chip);
      gtk_box_append (GTK_BOX (item), label);
      {
        g_autofree char *tip = g_strdup_printf ("GPU compute ops of microbatch %d (and %d + k x %d): forward on "
                                                "the left (lighter), backward on the right",
                                                mb, mb, WEFT_RENDER_MICROBATCH_HUES);
        gtk_widget_set_tooltip_text (item, tip);
      }
      gtk_flow_box_append (GTK_FLOW_BOX (self->box), item);
      g_ptr_array_add (self->chips, chip);
      g_ptr_array_add (self->items, gtk_widget_get_parent (item));
      gtk_widget_set_visible (gtk_widget_get_parent (item), FALSE);
    }
}

GtkWidget *
weft_legend_new (void)
{
  return g_object_new (WEFT_TYPE_LEGEND, NULL);
}
