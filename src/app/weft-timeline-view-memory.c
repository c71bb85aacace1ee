/* weft-timeline-view-memory.c: the memory rows of the timeline. The view
 * keeps the trace's memory timeline (weft-memory.h), re-times it from the
 * solver before each body paint (a cheap no-op while the solver's
 * generation is unchanged), hands it to the painter, answers the memory
 * rows' tooltips (the totals at the pointer) and toggles the rows (Shift+M). */
#include "config.h"

#include <string.h>

#include "weft-timeline-view-private.h"

#define GIB(b) ((double) (b) / (1024.0 * 1024.0 * 1024.0))

void
_weft_timeline_view_memory_sync (WeftTimelineView *self)
{
  WeftSolver *solver = _weft_timeline_view_view_solver (self);

  if (self->trace == NULL)
    return;
  if (self->memory == NULL)
    self->memory = weft_memory_timeline_new (self->trace);
  /* the painter draws the solved times when the window gave them */
  weft_memory_timeline_update (self->memory, self->times != NULL ? solver : NULL);
  self->overlay.memory = self->memory;
}

void
_weft_timeline_view_memory_clear (WeftTimelineView *self)
{
  g_clear_pointer (&self->memory, weft_memory_timeline_free);
  self->overlay.memory = NULL;
}

WeftMemoryTimeline *
weft_timeline_view_get_memory (WeftTimelineView *self)
{
  g_return_val_if_fail (WEFT_IS_TIMELINE_VIEW (self), NULL);
  if (self->trace == NULL)
    return NULL;
  _weft_timeline_view_memory_sync (self);
  return self->memory;
}

void
weft_timeline_view_get_memory_drawn (WeftTimelineView *self, guint *rows, gint64 *peak)
{
  g_return_if_fail (WEFT_IS_TIMELINE_VIEW (self));
  if (rows != NULL)
    *rows = self->body_stats.memory_rows;
  if (peak != NULL)
    *peak = self->body_stats.memory_peak;
}

gboolean
_weft_timeline_view_memory_tooltip (WeftTimelineView *self, const WeftHit *hit, double body_x, GtkTooltip *tooltip)
{
  const WeftLayoutRow *row;
  WeftMemoryTimelinePeak peak;
  gint64 alloc, reserved, t;
  g_autofree char *when = NULL;
  g_autofree char *markup = NULL;

  if (hit->row < 0 || self->memory == NULL)
    return FALSE;
  row = weft_layout_get_row (self->layout, (guint) hit->row);
  if (row->kind != WEFT_ROW_MEMORY)
    return FALSE;
  t = weft_render_x_to_time (&self->view, body_x);
  if (!weft_memory_timeline_value_at (self->memory, row->rank_index, t, &alloc, &reserved) ||
      !weft_memory_timeline_peak (self->memory, row->rank_index, &peak))
    return FALSE;
  when = weft_render_format_time (t - self->view.origin, 1);
  markup = g_strdup_printf ("<b>GPU memory</b> · rank %d\nat %s: allocated %.2f GiB, reserved %.2f GiB\n"
                            "peak %.2f GiB reserved (device %d)",
                            weft_trace_rank (self->trace, row->rank_index)->rank, when, GIB (alloc), GIB (reserved),
                            GIB (peak.peak_reserved), peak.device);
  gtk_tooltip_set_markup (tooltip, markup);
  return TRUE;
}

static void
action_toggle_memory (GtkWidget *widget, const char *name, GVariant *param)
{
  WeftTimelineView *self = WEFT_TIMELINE_VIEW (widget);

  self->view.show_memory = !self->view.show_memory;
  _weft_timeline_view_rebuild_layout (self);
  g_signal_emit (self, _weft_timeline_view_signals[SIGNAL_VIEW_CHANGED], 0);
}

void
_weft_timeline_view_memory_class_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "timeline.toggle-memory", NULL, action_toggle_memory);
  /* Shift+M: M marks the selection's span, as in Perfetto */
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_M, GDK_SHIFT_MASK, "timeline.toggle-memory", NULL);
}
