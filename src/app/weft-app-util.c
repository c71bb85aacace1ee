/* weft-app-util.c: formatting and screenshot helpers for the window. */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <json-c/json.h>

#include "weft/weft-types.h"
#include "weft-app-util.h"

char *
weft_format_duration (gint64 ns)
{
  gint64 a = ns < 0 ? -ns : ns;
  const char *sign = ns < 0 ? "−" : "";

  if (a < 1000)
    return g_strdup_printf ("%s%" G_GINT64_FORMAT " ns", sign, a);
  if (a < 1000000)
    return g_strdup_printf ("%s%.3f µs", sign, a / 1e3);
  if (a < 1000000000)
    return g_strdup_printf ("%s%.3f ms", sign, a / 1e6);
  return g_strdup_printf ("%s%.3f s", sign, a / 1e9);
}

char *
weft_format_delta (gint64 ns)
{
  gint64 a = ns < 0 ? -ns : ns;
  const char *sign = ns < 0 ? "−" : "+";

  if (ns == 0)
    return g_strdup ("±0");
  if (a < 1000)
    return g_strdup_printf ("%s%" G_GINT64_FORMAT " ns", sign, a);
  if (a < 1000000)
    return g_strdup_printf ("%s%.1f µs", sign, a / 1e3);
  if (a < 1000000000)
    return g_strdup_printf ("%s%.2f ms", sign, a / 1e6);
  return g_strdup_printf ("%s%.3f s", sign, a / 1e9);
}

char *
weft_format_bytes (gint64 bytes)
{
  if (bytes < 0)
    return g_strdup ("unknown");
  if (bytes < 1024)
    return g_strdup_printf ("%" G_GINT64_FORMAT " B", bytes);
  if (bytes < 1024 * 1024)
    return g_strdup_printf ("%.1f KiB", bytes / 1024.0);
  if (bytes < (gint64) 1024 * 1024 * 1024)
    return g_strdup_printf ("%.1f MiB", bytes / (1024.0 * 1024.0));
  return g_strdup_printf ("%.2f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
}

gboolean
weft_native_save_png (GtkNative *native, const char *what, const char *path, GError **error)
{
  g_autoptr (GdkPaintable) paintable = NULL;
  g_autoptr (GskRenderNode) node = NULL;
  g_autoptr (GdkTexture) texture = NULL;
  g_autofree char *tmp = NULL;
  GtkSnapshot *snapshot;
  GskRenderer *renderer = gtk_native_get_renderer (native);
  int w = gtk_widget_get_width (GTK_WIDGET (native));
  int h = gtk_widget_get_height (GTK_WIDGET (native));

  if (renderer == NULL || w <= 0 || h <= 0)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "The %s is not shown yet", what);
      return FALSE;
    }
  paintable = gtk_widget_paintable_new (GTK_WIDGET (native));
  snapshot = gtk_snapshot_new ();
  gdk_paintable_snapshot (paintable, GDK_SNAPSHOT (snapshot), w, h);
  node = gtk_snapshot_free_to_node (snapshot);
  if (node == NULL)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "Nothing to draw");
      return FALSE;
    }
  texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, w, h));
  /* written next to the target, then renamed: a reader never sees half a PNG */
  tmp = g_strdup_printf ("%s.tmp.png", path);
  if (!gdk_texture_save_to_png (texture, tmp))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_IO, "%s: cannot write the PNG", path);
      return FALSE;
    }
  if (g_rename (tmp, path) != 0)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_IO, "%s: %s", path, g_strerror (errno));
      return FALSE;
    }
  return TRUE;
}

GtkWidget *
weft_scrolled_column_new (GtkWidget *parent, GtkWidget **box)
{
  GtkWidget *scrolled = gtk_scrolled_window_new ();

  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_widget_set_parent (scrolled, parent);
  *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_widget_set_margin_start (*box, 12);
  gtk_widget_set_margin_end (*box, 12);
  gtk_widget_set_margin_top (*box, 12);
  gtk_widget_set_margin_bottom (*box, 12);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), *box);
  return scrolled;
}

gboolean
weft_trace_get_compose_params (WeftTrace *trace, WeftComposeParams *p)
{
  WeftRank *rank = trace->ranks->len > 0 ? weft_trace_rank (trace, 0) : NULL;

  if (rank == NULL || rank->top_keys == NULL)
    return FALSE;
  for (guint i = 0; i < rank->top_keys->len; i++)
    {
      WeftTopKey *k = &g_array_index (rank->top_keys, WeftTopKey, i);
      if (g_strcmp0 (weft_rank_string (rank, k->key), "weft") == 0 && k->raw != NULL)
        {
          json_object *json = json_tokener_parse (k->raw);
          gboolean ok;
          weft_compose_params_init (p);
          ok = weft_compose_params_from_json (p, json, NULL);
          json_object_put (json);
          return ok;
        }
    }
  return FALSE;
}
