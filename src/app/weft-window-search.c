/* weft-window-search.c: the search bar over the timeline (Ctrl+F, /):
 * event names by substring or regex, F3 / Shift+F3 or Enter to step
 * through the matches, "N of M" or the pattern's error beside it; a kind
 * (GPU kernels, collectives, CPU ops: weft_event_is_kind) narrows it. */
#include "config.h"

#include "weft-timeline-view.h"
#include "weft-window-private.h"

static void
search_requested_cb (WeftTimelineView *view, WeftWindow *self)
{
  gtk_search_bar_set_search_mode (GTK_SEARCH_BAR (self->search_bar), TRUE);
  gtk_widget_grab_focus (self->search_entry);
}

static void
run_search (WeftWindow *self, int direction)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->search_entry));
  gboolean regex = gtk_check_button_get_active (GTK_CHECK_BUTTON (self->search_regex));
  g_autoptr (GError) error = NULL;
  int n = weft_timeline_view_search (WEFT_TIMELINE_VIEW (self->view), text, regex, direction, &error);
  g_autofree char *status = NULL;

  if (n < 0)
    {
      status = g_strdup_printf ("bad pattern: %s", error->message);
      gtk_widget_add_css_class (self->search_entry, "error");
    }
  else
    {
      gtk_widget_remove_css_class (self->search_entry, "error");
      if (*text == '\0')
        status = g_strdup ("");
      else if (n == 0)
        status = g_strdup ("no match");
      else
        status = g_strdup_printf ("%d of %d", weft_timeline_view_get_match_position (WEFT_TIMELINE_VIEW (self->view)) + 1, n);
    }
  gtk_label_set_text (GTK_LABEL (self->search_status), status);
}

static void
search_changed_cb (GtkSearchEntry *entry, WeftWindow *self)
{
  run_search (self, 0);
}

static void
search_next_cb (GtkWidget *w, WeftWindow *self)
{
  run_search (self, 1);
}

static void
search_prev_cb (GtkWidget *w, WeftWindow *self)
{
  run_search (self, -1);
}

static void
search_stop_cb (GtkSearchEntry *entry, WeftWindow *self)
{
  gtk_search_bar_set_search_mode (GTK_SEARCH_BAR (self->search_bar), FALSE);
  gtk_widget_grab_focus (self->view);
}

static void
regex_toggled_cb (GtkCheckButton *button, WeftWindow *self)
{
  run_search (self, 0);
}

static void
search_kind_cb (GtkDropDown *dropdown, GParamSpec *pspec, WeftWindow *self)
{
  guint kind = gtk_drop_down_get_selected (dropdown);
  weft_timeline_view_set_search_kind (WEFT_TIMELINE_VIEW (self->view),
                                      kind < WEFT_SLICE_KIND_N_KINDS ? (WeftSliceKind) kind : WEFT_SLICE_KIND_ALL);
  run_search (self, 0);
}

void
_weft_window_class_search_init (WeftWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  gtk_widget_class_bind_template_callback (widget_class, search_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, search_next_cb);
  gtk_widget_class_bind_template_callback (widget_class, search_prev_cb);
  gtk_widget_class_bind_template_callback (widget_class, search_stop_cb);
  gtk_widget_class_bind_template_callback (widget_class, regex_toggled_cb);
  gtk_widget_class_bind_template_callback (widget_class, search_kind_cb);
  gtk_widget_class_bind_template_callback (widget_class, search_requested_cb);
}

void
_weft_window_search_init (WeftWindow *self)
{
  gtk_search_bar_connect_entry (GTK_SEARCH_BAR (self->search_bar), GTK_EDITABLE (self->search_entry));
}
