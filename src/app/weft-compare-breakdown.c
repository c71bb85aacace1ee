/* weft-compare-breakdown.c: both bars per rank of two compared traces.
 *
 * One group per rank number of either side: A's bar, then B's, as long as
 * the rank's step time (relative to the longest of both sides), split as
 * the window's rank breakdown (compute only, overlapped, communication only,
 * idle) in the painter's overlap-band colours; at the right the rank's
 * step-time difference B - A. */
#include "config.h"

#include <math.h>

#include "weft/weft-render.h"
#include "weft-compare-breakdown.h"

#define BAR_H     11.0
#define GROUP_GAP 5.0
#define LABEL_W   58.0
#define DELTA_W   64.0
#define LEGEND_H  20.0

struct _WeftCompareBreakdown
{
  GtkWidget parent_instance;

  WeftDiff *diff;   /* borrowed */
  gboolean  dark;
};

G_DEFINE_FINAL_TYPE (WeftCompareBreakdown, weft_compare_breakdown, GTK_TYPE_WIDGET)

static void
set_rgba (cairo_t *cr, WeftRgba c, double alpha)
{
  cairo_set_source_rgba (cr, c.r, c.g, c.b, c.a * alpha);
}

static void
show_text (cairo_t *cr, PangoLayout *layout, const char *text, double x, double y, double h, gboolean right)
{
  int tw, th;
  pango_layout_set_text (layout, text, -1);
  pango_layout_get_pixel_size (layout, &tw, &th);
  cairo_move_to (cr, right ? x - tw : x, y + (h - th) / 2);
  pango_cairo_show_layout (cr, layout);
}

static void
paint_bar (WeftCompareBreakdown *self, cairo_t *cr, const WeftMetrics *m, double x, double y, double bar_w,
           gint64 longest)
{
  static const WeftOverlapState order[] = { WEFT_OVERLAP_COMPUTE_ONLY, WEFT_OVERLAP_OVERLAPPED,
                                            WEFT_OVERLAP_COMM_ONLY, WEFT_OVERLAP_IDLE };
  gint64 parts[4] = { m->compute_only, m->overlapped, m->comm_only, m->idle };
  for (guint k = 0; k < 4; k++)
    {
      double pw = bar_w * (double) parts[k] / (double) longest;
      if (pw <= 0)
        continue;
      set_rgba (cr, weft_render_overlap_color (order[k], self->dark), 1.0);
      cairo_rectangle (cr, x, y + 1, pw, BAR_H - 2);
      cairo_fill (cr);
      x += pw;
    }
}

static void
paint_legend (WeftCompareBreakdown *self, cairo_t *cr, PangoLayout *layout)
{
  static const WeftOverlapState order[] = { WEFT_OVERLAP_COMPUTE_ONLY, WEFT_OVERLAP_OVERLAPPED,
                                            WEFT_OVERLAP_COMM_ONLY, WEFT_OVERLAP_IDLE };
  static const char *const names[] = { "compute", "overlap", "comm", "idle" };
  WeftRgba fg = weft_render_text_color (self->dark);
  double lx = 0;
  for (guint k = 0; k < G_N_ELEMENTS (order); k++)
    {
      int tw, th;
      set_rgba (cr, weft_render_overlap_color (order[k], self->dark), 1.0);
      cairo_rectangle (cr, lx, 5, 10, 10);
      cairo_fill (cr);
      pango_layout_set_text (layout, names[k], -1);
      pango_layout_get_pixel_size (layout, &tw, &th);
      set_rgba (cr, fg, 1.0);
      cairo_move_to (cr, lx + 13, 10 - th / 2.0);
      pango_cairo_show_layout (cr, layout);
      lx += 13 + tw + 10;
    }
}

static void
weft_compare_breakdown_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  WeftCompareBreakdown *self = WEFT_COMPARE_BREAKDOWN (widget);
  int w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  double bar_w = MAX (10.0, w - LABEL_W - DELTA_W);
  WeftRgba fg = weft_render_text_color (self->dark);
  gint64 longest = 1;
  guint n;
  cairo_t *cr;
  PangoLayout *layout;
  PangoFontDescription *font;

  if (self->diff == NULL || (n = weft_diff_n_ranks (self->diff)) == 0 || w <= 0 || h <= 0)
    return;
  for (guint i = 0; i < n; i++)
    {
      const WeftDiffRank *r = weft_diff_rank (self->diff, i);
      if (r->has_a)
        longest = MAX (longest, r->a.step_time);
      if (r->has_b)
        longest = MAX (longest, r->b.step_time);
    }
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, w, h));
  layout = gtk_widget_create_pango_layout (widget, NULL);
  font = pango_font_description_from_string ("Sans 8");
  pango_layout_set_font_description (layout, font);
  pango_font_description_free (font);
  paint_legend (self, cr, layout);
  for (guint i = 0; i < n; i++)
    {
      const WeftDiffRank *r = weft_diff_rank (self->diff, i);
      double y = LEGEND_H + i * (2 * BAR_H + GROUP_GAP);
      char buf[48];
      if (y > h)
        break;
      set_rgba (cr, fg, 1.0);
      g_snprintf (buf, sizeof buf, "rank %d A", r->rank);
      show_text (cr, layout, buf, 0, y, BAR_H, FALSE);
      set_rgba (cr, fg, 0.75);
      show_text (cr, layout, "B", LABEL_W - 14, y + BAR_H, BAR_H, FALSE);
      if (r->has_a)
        paint_bar (self, cr, &r->a, LABEL_W, y, bar_w, longest);
      if (r->has_b)
        paint_bar (self, cr, &r->b, LABEL_W, y + BAR_H, bar_w, longest);
      set_rgba (cr, fg, 1.0);
      if (r->has_a && r->has_b)
        {
          double d = (double) (r->b.step_time - r->a.step_time);
          if (fabs (d) >= 1e6)
            g_snprintf (buf, sizeof buf, "%+.2f ms", d / 1e6);
          else
            g_snprintf (buf, sizeof buf, "%+.1f us", d / 1e3);
        }
      else
        g_snprintf (buf, sizeof buf, "only %s", r->has_a ? "A" : "B");
      show_text (cr, layout, buf, w - 2, y + BAR_H / 2, BAR_H, TRUE);
    }
  g_object_unref (layout);
  cairo_destroy (cr);
}

static void
weft_compare_breakdown_measure (GtkWidget *widget, GtkOrientation orientation, int for_size, int *minimum,
                                int *natural, int *minimum_baseline, int *natural_baseline)
{
  WeftCompareBreakdown *self = WEFT_COMPARE_BREAKDOWN (widget);
  guint n = weft_compare_breakdown_get_n_rows (self);

  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    *minimum = *natural = 220;
  else
    *minimum = *natural = n > 0 ? (int) ceil (LEGEND_H + MIN (n, 1024) * (2 * BAR_H + GROUP_GAP)) : 0;
}

static void
weft_compare_breakdown_class_init (WeftCompareBreakdownClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  widget_class->snapshot = weft_compare_breakdown_snapshot;
  widget_class->measure = weft_compare_breakdown_measure;
  gtk_widget_class_set_css_name (widget_class, "weft-compare-breakdown");
}

static void
weft_compare_breakdown_init (WeftCompareBreakdown *self)
{
}

GtkWidget *
weft_compare_breakdown_new (void)
{
  return g_object_new (WEFT_TYPE_COMPARE_BREAKDOWN, NULL);
}

void
weft_compare_breakdown_set_diff (WeftCompareBreakdown *self, WeftDiff *diff)
{
  g_return_if_fail (WEFT_IS_COMPARE_BREAKDOWN (self));
  self->diff = diff;
  gtk_widget_queue_resize (GTK_WIDGET (self));
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
weft_compare_breakdown_set_dark (WeftCompareBreakdown *self, gboolean dark)
{
  g_return_if_fail (WEFT_IS_COMPARE_BREAKDOWN (self));
  self->dark = dark;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

guint
weft_compare_breakdown_get_n_rows (WeftCompareBreakdown *self)
{
  g_return_val_if_fail (WEFT_IS_COMPARE_BREAKDOWN (self), 0);
  return self->diff != NULL ? weft_diff_n_ranks (self->diff) : 0;
}
