/* weft-palette.c: kernels and collectives to drag onto the timeline.
 *
 * Built from the edit session (weft_trace_palette_kernels(): the trace's own
 * kernels grouped by class with their median durations;
 * weft_edit_session_palette_collectives(): its collectives by type and process
 * group, timed by the cost model fitted from the trace). Each row is a
 * GtkDragSource with a string payload naming the item; the timeline view
 * is the drop target and inserts it (weft_edit_session_insert_kernel /
 * weft_edit_session_insert_collective). */
#include "config.h"

#include <string.h>

#include "weft/weft-render.h"
#include "weft-app-util.h"
#include "weft-palette.h"
#include "weft-strategy-palette.h"

#define MAX_KERNELS_PER_CLASS 40

struct _WeftPalette
{
  GtkWidget parent_instance;

  GtkWidget *scrolled;
  GtkWidget *box;
  WeftEditSession *session;  /* borrowed */
  GPtrArray *kernels;        /* WeftPaletteKernel, owned */
  GPtrArray *collectives;    /* WeftPaletteCollective, owned */
  guint      n_strategy;     /* the last n_strategy collectives: each strategy's (weft-strategy-palette.h) */
  guint      n_items;
};

G_DEFINE_FINAL_TYPE (WeftPalette, weft_palette, GTK_TYPE_WIDGET)

static GdkContentProvider *
drag_prepare_cb (GtkDragSource *source, double x, double y, gpointer user_data)
{
  const char *payload = g_object_get_data (G_OBJECT (gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (source))),
                                           "payload");
  return payload != NULL ? gdk_content_provider_new_typed (G_TYPE_STRING, payload) : NULL;
}

static GtkWidget *
make_row (WeftPalette *self, const char *title, const char *subtitle, const char *payload, WeftRgba color)
{
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *swatch = gtk_drawing_area_new ();
  GtkWidget *text = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *t = gtk_label_new (title);
  GtkWidget *sub = gtk_label_new (subtitle);
  GtkDragSource *source = gtk_drag_source_new ();
  g_autofree char *css = NULL;

  gtk_widget_set_size_request (swatch, 6, -1);
  css = g_strdup_printf ("rgba(%d,%d,%d,1)", (int) (color.r * 255), (int) (color.g * 255), (int) (color.b * 255));
  {
    GtkCssProvider *p = gtk_css_provider_new ();
    g_autofree char *rule = g_strdup_printf ("* { background: %s; border-radius: 2px; }", css);
    gtk_css_provider_load_from_data (p, rule, -1);
    gtk_style_context_add_provider (gtk_widget_get_style_context (swatch), GTK_STYLE_PROVIDER (p),
                                    GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
    g_object_unref (p);
  }
  gtk_label_set_xalign (GTK_LABEL (t), 0);
  gtk_label_set_ellipsize (GTK_LABEL (t), PANGO_ELLIPSIZE_END);
  gtk_label_set_max_width_chars (GTK_LABEL (t), 36);
  gtk_widget_set_tooltip_text (t, title);
  gtk_label_set_xalign (GTK_LABEL (sub), 0);
  gtk_widget_add_css_class (sub, "dim-label");
  gtk_widget_add_css_class (sub, "caption");
  gtk_box_append (GTK_BOX (text), t);
  gtk_box_append (GTK_BOX (text), sub);
  gtk_widget_set_hexpand (text, TRUE);
  gtk_box_append (GTK_BOX (row), swatch);
  gtk_box_append (GTK_BOX (row), text);
  gtk_widget_add_css_class (row, "weft-palette-item");
  g_object_set_data_full (G_OBJECT (row), "payload", g_strdup (payload), g_free);
  gtk_drag_source_set_actions (source, GDK_ACTION_COPY);
  g_signal_connect (source, "prepare", G_CALLBACK (drag_prepare_cb), NULL);
  gtk_widget_add_controller (row, GTK_EVENT_CONTROLLER (source));
  self->n_items++;
  return row;
}

static void
add_heading (WeftPalette *self, const char *text)
{
  GtkWidget *l = gtk_label_new (text);
  gtk_label_set_xalign (GTK_LABEL (l), 0);
  gtk_widget_add_css_class (l, "heading");
  gtk_widget_set_margin_top (l, 10);
  gtk_box_append (GTK_BOX (self->box), l);
}

static void
rebuild (WeftPalette *self)
{
  GtkWidget *child;
  int last_class = -1;
  guint in_class = 0;

  while ((child = gtk_widget_get_first_child (self->box)) != NULL)
    gtk_box_remove (GTK_BOX (self->box), child);
  self->n_items = 0;
  if (self->session == NULL)
    return;

  {
    GtkWidget *hint = gtk_label_new ("Drag an item onto a GPU stream lane to insert it there; a collective is "
                                     "inserted on every rank of its group, on the dropped lane's stream id.");
    gtk_label_set_wrap (GTK_LABEL (hint), TRUE);
    gtk_label_set_xalign (GTK_LABEL (hint), 0);
    gtk_widget_add_css_class (hint, "dim-label");
    gtk_box_append (GTK_BOX (self->box), hint);
  }

  if (self->collectives->len > self->n_strategy)
    add_heading (self, "Collectives (cost model)");
  for (guint i = 0; i < self->collectives->len - self->n_strategy; i++)
    {
      const WeftPaletteCollective *c = g_ptr_array_index (self->collectives, i);
      g_autofree char *bytes = weft_format_bytes (c->median_bytes);
      g_autofree char *t = weft_format_duration (c->estimate_ns);
      g_autofree char *title = g_strdup_printf ("%s · %s", weft_coll_type_to_string (c->type), bytes);
      g_autofree char *sub = g_strdup_printf ("%s%s%u ranks · stream %" G_GINT64_FORMAT " · %s · seen %u×",
                                              c->pg_name != NULL ? c->pg_name : "", c->pg_name != NULL ? " · " : "",
                                              c->n_ranks, c->stream, t, c->count);
      g_autofree char *payload = g_strdup_printf (WEFT_PALETTE_DND_PREFIX "collective:%u", i);
      gtk_box_append (GTK_BOX (self->box),
                      make_row (self, title, sub, payload, weft_render_coll_color (c->type, FALSE)));
    }

  for (guint i = 0; i < self->kernels->len; i++)
    {
      const WeftPaletteKernel *k = g_ptr_array_index (self->kernels, i);
      g_autofree char *med = weft_format_duration (k->median_dur);
      g_autofree char *sub = NULL;
      g_autofree char *payload = NULL;

      if ((int) k->kclass != last_class)
        {
          g_autofree char *h = g_strdup_printf ("Kernels · %s", weft_kernel_class_to_string (k->kclass));
          add_heading (self, h);
          last_class = (int) k->kclass;
          in_class = 0;
        }
      if (in_class++ >= MAX_KERNELS_PER_CLASS)
        continue;
      sub = g_strdup_printf ("median %s · seen %u×", med, k->count);
      payload = g_strdup_printf (WEFT_PALETTE_DND_PREFIX "kernel:%u", i);
      gtk_box_append (GTK_BOX (self->box), make_row (self, k->name, sub, payload, weft_render_class_color (k->kclass, FALSE)));
    }

  /* each strategy's collectives (Llama-3-8B sizes), inserted on the group of
   * the rank they are dropped on */
  if (self->n_strategy > 0)
    add_heading (self, "Strategies (their collectives)");
  for (guint i = self->collectives->len - self->n_strategy; i < self->collectives->len; i++)
    {
      const WeftPaletteCollective *c = g_ptr_array_index (self->collectives, i);
      g_autofree char *bytes = weft_format_bytes (c->median_bytes);
      g_autofree char *t = weft_format_duration (c->estimate_ns);
      g_autofree char *sub = g_strdup_printf ("%s · %s · %s · groups of %u · stream %" G_GINT64_FORMAT " · %s",
                                              c->pg_name + strlen (WEFT_STRATEGY_PALETTE_PG_PREFIX),
                                              weft_coll_type_to_string (c->type), bytes, c->n_ranks, c->stream, t);
      g_autofree char *payload = g_strdup_printf (WEFT_PALETTE_DND_PREFIX "collective:%u", i);
      gtk_box_append (GTK_BOX (self->box),
                      make_row (self, c->pg_desc, sub, payload, weft_render_coll_color (c->type, FALSE)));
    }
}

void
weft_palette_set_session (WeftPalette *self, WeftEditSession *session)
{
  g_return_if_fail (WEFT_IS_PALETTE (self));
  self->session = session;
  g_clear_pointer (&self->kernels, g_ptr_array_unref);
  g_clear_pointer (&self->collectives, g_ptr_array_unref);
  if (session != NULL)
    {
      self->kernels = weft_trace_palette_kernels (weft_edit_session_get_trace (session));
      self->collectives = weft_edit_session_palette_collectives (session);
      self->n_strategy = weft_strategy_palette_append (session, self->collectives);
    }
  else
    {
      self->kernels = g_ptr_array_new ();
      self->collectives = g_ptr_array_new ();
      self->n_strategy = 0;
    }
  rebuild (self);
}

static gboolean
parse_payload (const char *payload, const char *kind, guint *index)
{
  g_autofree char *prefix = g_strdup_printf (WEFT_PALETTE_DND_PREFIX "%s:", kind);
  char *end = NULL;
  guint64 v;

  if (payload == NULL || !g_str_has_prefix (payload, prefix))
    return FALSE;
  v = g_ascii_strtoull (payload + strlen (prefix), &end, 10);
  if (end == payload + strlen (prefix) || *end != '\0' || v > G_MAXUINT)
    return FALSE;
  *index = (guint) v;
  return TRUE;
}

const WeftPaletteKernel *
weft_palette_lookup_kernel (WeftPalette *self, const char *payload)
{
  guint i;

  g_return_val_if_fail (WEFT_IS_PALETTE (self), NULL);
  if (self->kernels == NULL || !parse_payload (payload, "kernel", &i) || i >= self->kernels->len)
    return NULL;
  return g_ptr_array_index (self->kernels, i);
}

const WeftPaletteCollective *
weft_palette_lookup_collective (WeftPalette *self, const char *payload)
{
  guint i;

  g_return_val_if_fail (WEFT_IS_PALETTE (self), NULL);
  if (self->collectives == NULL || !parse_payload (payload, "collective", &i) || i >= self->collectives->len)
    return NULL;
  return g_ptr_array_index (self->collectives, i);
}

GtkWidget *
weft_palette_get_item (WeftPalette *self, guint n)
{
  g_return_val_if_fail (WEFT_IS_PALETTE (self), NULL);
  for (GtkWidget *c = gtk_widget_get_first_child (self->box); c != NULL; c = gtk_widget_get_next_sibling (c))
    if (g_object_get_data (G_OBJECT (c), "payload") != NULL && n-- == 0)
      return c;
  return NULL;
}

const char *
weft_palette_item_payload (GtkWidget *item)
{
  return g_object_get_data (G_OBJECT (item), "payload");
}

guint
weft_palette_get_n_items (WeftPalette *self)
{
  return self->n_items;
}

guint
weft_palette_get_n_strategy_items (WeftPalette *self)
{
  g_return_val_if_fail (WEFT_IS_PALETTE (self), 0);
  return self->n_strategy;
}

static void
weft_palette_dispose (GObject *object)
{
  WeftPalette *self = WEFT_PALETTE (object);

  g_clear_pointer (&self->scrolled, gtk_widget_unparent);
  g_clear_pointer (&self->kernels, g_ptr_array_unref);
  g_clear_pointer (&self->collectives, g_ptr_array_unref);
  self->session = NULL;
  G_OBJECT_CLASS (weft_palette_parent_class)->dispose (object);
}

static void
weft_palette_class_init (WeftPaletteClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = weft_palette_dispose;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "weft-palette");
}

static void
weft_palette_init (WeftPalette *self)
{
  self->scrolled = weft_scrolled_column_new (GTK_WIDGET (self), &self->box);
  self->kernels = g_ptr_array_new ();
  self->collectives = g_ptr_array_new ();
}

GtkWidget *
weft_palette_new (void)
{
  return g_object_new (WEFT_TYPE_PALETTE, NULL);
}
