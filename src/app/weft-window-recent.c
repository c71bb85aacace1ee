/* weft-window-recent.c: the recent traces, from GtkRecentManager (this
 * application's entries that still exist, newest first, at most
 * MAX_RECENT): the list on the empty page and the menu of the Open button.
 * Opening or saving a trace adds it. */
#include "config.h"

#include "weft-window-private.h"

#define MAX_RECENT 10

static void
open_recent_row (GtkListBox *box, GtkListBoxRow *row, WeftWindow *self)
{
  const char *uri = g_object_get_data (G_OBJECT (row), "uri");
  g_autoptr (GFile) file = NULL;

  if (uri == NULL || _weft_window_is_loading (self))
    return;
  file = g_file_new_for_uri (uri);
  weft_window_open (self, file);
}

static int
recent_cmp (gconstpointer a, gconstpointer b)
{
  GtkRecentInfo *x = *(GtkRecentInfo **) a, *y = *(GtkRecentInfo **) b;
  GDateTime *dx = gtk_recent_info_get_modified (x);
  GDateTime *dy = gtk_recent_info_get_modified (y);
  return -g_date_time_compare (dx, dy);
}

static void
rebuild_recent (WeftWindow *self)
{
  GtkRecentManager *manager = gtk_recent_manager_get_default ();
  GList *items = gtk_recent_manager_get_items (manager);
  g_autoptr (GPtrArray) mine = g_ptr_array_new ();
  GtkWidget *child;

  for (GList *l = items; l != NULL; l = l->next)
    {
      GtkRecentInfo *info = l->data;
      if (gtk_recent_info_has_application (info, g_get_application_name ()) && gtk_recent_info_exists (info))
        g_ptr_array_add (mine, info);
    }
  g_ptr_array_sort (mine, recent_cmp);

  while ((child = gtk_widget_get_first_child (self->recent_list)) != NULL)
    gtk_list_box_remove (GTK_LIST_BOX (self->recent_list), child);
  g_menu_remove_all (self->recent_menu);

  for (guint i = 0; i < mine->len && i < MAX_RECENT; i++)
    {
      GtkRecentInfo *info = g_ptr_array_index (mine, i);
      const char *uri = gtk_recent_info_get_uri (info);
      g_autofree char *location = gtk_recent_info_get_uri_display (info);
      const char *name = gtk_recent_info_get_display_name (info);
      GtkWidget *row = gtk_list_box_row_new ();
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
      GtkWidget *title = gtk_label_new (name);
      GtkWidget *sub = gtk_label_new (location != NULL ? location : uri);
      g_autoptr (GMenuItem) item = NULL;

      gtk_label_set_xalign (GTK_LABEL (title), 0);
      gtk_label_set_xalign (GTK_LABEL (sub), 0);
      gtk_label_set_ellipsize (GTK_LABEL (sub), PANGO_ELLIPSIZE_MIDDLE);
      gtk_widget_add_css_class (sub, "dim-label");
      gtk_widget_add_css_class (sub, "caption");
      gtk_box_append (GTK_BOX (box), title);
      gtk_box_append (GTK_BOX (box), sub);
      gtk_widget_set_margin_top (box, 6);
      gtk_widget_set_margin_bottom (box, 6);
      gtk_widget_set_margin_start (box, 10);
      gtk_widget_set_margin_end (box, 10);
      gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
      g_object_set_data_full (G_OBJECT (row), "uri", g_strdup (uri), g_free);
      gtk_list_box_append (GTK_LIST_BOX (self->recent_list), row);

      item = g_menu_item_new (name, NULL);
      g_menu_item_set_action_and_target_value (item, "win.open-recent", g_variant_new_string (uri));
      g_menu_append_item (self->recent_menu, item);
    }
  self->n_recent = MIN (mine->len, MAX_RECENT);
  gtk_widget_set_visible (self->recent_title, mine->len > 0);
  gtk_widget_set_visible (self->recent_list, mine->len > 0);
  g_list_free_full (items, (GDestroyNotify) gtk_recent_info_unref);
}

void
_weft_window_add_recent (WeftWindow *self, const char *path)
{
  GtkRecentData data = { 0 };
  g_autofree char *uri = g_filename_to_uri (path, NULL, NULL);
  gboolean dir = g_file_test (path, G_FILE_TEST_IS_DIR);

  if (uri == NULL)
    return;
  data.display_name = NULL;
  /* the types of data/org.weft.Weft.mime.xml */
  data.mime_type = (char *) (dir                                ? "inode/directory"
                             : g_str_has_suffix (path, ".gz")  ? "application/x-kineto-trace-gzip"
                             : g_str_has_suffix (path, ".zst") ? "application/x-kineto-trace-zstd"
                                                               : "application/x-kineto-trace");
  data.app_name = (char *) g_get_application_name ();
  data.app_exec = (char *) "weft %u";
  gtk_recent_manager_add_full (gtk_recent_manager_get_default (), uri, &data);
}

static void
recent_changed_cb (GtkRecentManager *manager, WeftWindow *self)
{
  rebuild_recent (self);
}

/* Fills the list and the menu, and follows the recent manager. */
void
_weft_window_recent_init (WeftWindow *self)
{
  self->recent_menu = g_menu_new ();
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (self->recent_menu_button), G_MENU_MODEL (self->recent_menu));
  g_signal_connect (self->recent_list, "row-activated", G_CALLBACK (open_recent_row), self);
  g_signal_connect (gtk_recent_manager_get_default (), "changed", G_CALLBACK (recent_changed_cb), self);
  rebuild_recent (self);
}
