/* weft-rank-breakdown.c: per-rank breakdown bar.
 *
 * One row per rank: a bar as long as the rank's step time (relative to the
 * longest), split into compute only, overlapped, communication only and
 * idle, in the painter's overlap-band colours, with the rank's overlap %. */
#include "config.h"

#include <math.h>

#include "weft/weft-render.h"
#include "weft-rank-breakdown.h"

#define ROW_H     16.0
#define LABEL_W   52.0
#define PCT_W     52.0
#define LEGEND_H  20.0

typedef struct
{
  int         rank;
  gboolean    valid;
  WeftMetrics m;
} RankRow;

struct _WeftRankBreakdown
{
  GtkWidget parent_instance;

  WeftSolver *solver;   /* borrowed */
  int         step;
  gboolean    dark;
  GArray     *rows;     /* RankRow */
};

G_DEFINE_FINAL_TYPE (WeftRankBreakdown, weft_rank_breakdown, GTK_TYPE_WIDGET)

static void
set_rgba (cairo_t *cr, WeftRgba c)
{
  cairo_set_source_rgba (cr, c.r, c.g, c.b, c.a);
}

static void
weft_rank_breakdown_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  WeftRankBreakdown *self = WEFT_RANK_BREAKDOWN (widget);
  int w = gtk_widget_get_width (widget);
  int h = gtk_widget_get_height (widget);
  gint64 longest = 1;
  cairo_t *cr;
  WeftRgba fg = weft_render_text_color (self->dark);
  double bar_w = MAX (10.0, w - LABEL_W - PCT_W);
  static const WeftOverlapState order[] = { WEFT_OVERLAP_COMPUTE_ONLY, WEFT_OVERLAP_OVERLAPPED,
                                            WEFT_OVERLAP_COMM_ONLY, WEFT_OVERLAP_IDLE };
  static const char *const names[] = { "compute", "overlap", "comm", "idle" };
  PangoLayout *layout;
  double lx = 0;

  if (self->rows == NULL || self->rows->len == 0 || w <= 0 || h <= 0)
    return;
  for (guint i = 0; i < self->rows->len; i++)
    {
      const RankRow *r = &g_array_index (self->rows, RankRow, i);
      if (r->valid)
        longest = MAX (longest, r->m.step_time);
    }
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, w, h));
  layout = gtk_widget_create_pango_layout (widget, NULL);
  {
    PangoFontDescription *font = pango_font_description_from_string ("Sans 8");
    pango_layout_set_font_description (layout, font);
    pango_font_description_free (font);
  }

  /* legend */
  for (guint k = 0; k < G_N_ELEMENTS (order); k++)
    {
      int tw, th;
      set_rgba (cr, weft_render_overlap_color (order[k], self->dark));
      cairo_rectangle (cr, lx, 5, 10, 10);
      cairo_fill (cr);
      pango_layout_set_text (layout, names[k], -1);
      pango_layout_get_pixel_size (layout, &tw, &th);
      set_rgba (cr, fg);
      cairo_move_to (cr, lx + 13, 10 - th / 2.0);
      pango_cairo_show_layout (cr, layout);
      lx += 13 + tw + 10;
    }

  for (guint i = 0; i < self->rows->len; i++)
    {
      const RankRow *r = &g_array_index (self->rows, RankRow, i);
      double y = LEGEND_H + i * ROW_H;
      double x = LABEL_W;
      char buf[32];
      int tw, th;
      gint64 parts[4];

      if (y > h)
        break;
      g_snprintf (buf, sizeof buf, "rank %d", r->rank);
      pango_layout_set_text (layout, buf, -1);
      pango_layout_get_pixel_size (layout, &tw, &th);
      set_rgba (cr, fg);
      cairo_move_to (cr, 0, y + (ROW_H - th) / 2);
      pango_cairo_show_layout (cr, layout);
      if (!r->valid)
        continue;
      parts[0] = r->m.compute_only;
      parts[1] = r->m.overlapped;
      parts[2] = r->m.comm_only;
      parts[3] = r->m.idle;
      for (guint k = 0; k < 4; k++)
        {
          double pw = bar_w * (double) parts[k] / (double) longest;
          if (pw <= 0)
            continue;
          set_rgba (cr, weft_render_overlap_color (order[k], self->dark));
          cairo_rectangle (cr, x, y + 2, pw, ROW_H - 4);
          cairo_fill (cr);
          x += pw;
        }
      if (r->m.comm > 0)
        g_snprintf (buf, sizeof buf, "%.0f%%", r->m.overlap_pct);
      else
        g_snprintf (buf, sizeof buf, "–");
      pango_layout_set_text (layout, buf, -1);
      pango_layout_get_pixel_size (layout, &tw, &th);
      set_rgba (cr, fg);
      cairo_move_to (cr, w - tw - 2, y + (ROW_H - th) / 2);
      pango_cairo_show_layout (cr, layout);
    }
  g_object_unref (layout);
  cairo_destroy (cr);
}

static void
weft_rank_breakdown_measure (GtkWidget *widget, GtkOrientation orientation, int for_size, int *minimum, int *natural,
                             int *minimum_baseline, int *natural_baseline)
{
  WeftRankBreakdown *self = WEFT_RANK_BREAKDOWN (widget);
  guint n = self->rows != NULL ? self->rows->len : 0;

  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    *minimum = *natural = 200;
  else
    *minimum = *natural = n > 0 ? (int) ceil (LEGEND_H + MIN (n, 1024) * ROW_H) : 0;
}

void
weft_rank_breakdown_refresh (WeftRankBreakdown *self)
{
  WeftTrace *trace;

  g_return_if_fail (WEFT_IS_RANK_BREAKDOWN (self));
  g_array_set_size (self->rows, 0);
  if (self->solver != NULL)
    {
      trace = weft_solver_get_trace (self->solver);
      for (guint r = 0; r < trace->ranks->len; r++)
        {
          RankRow row = { 0 };
          row.rank = weft_trace_rank (trace, r)->rank;
          row.valid = weft_solver_metrics (self->solver, r, self->step, &row.m);
          g_array_append_val (self->rows, row);
        }
    }
  gtk_widget_queue_resize (GTK_WIDGET (self));
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
weft_rank_breakdown_set_solver (WeftRankBreakdown *self, WeftSolver *solver, int step)
{
  g_return_if_fail (WEFT_IS_RANK_BREAKDOWN (self));
  self->solver = solver;
  self->step = step;
  weft_rank_breakdown_refresh (self);
}

void
weft_rank_breakdown_set_dark (WeftRankBreakdown *self, gboolean dark)
{
  g_return_if_fail (WEFT_IS_RANK_BREAKDOWN (self));
  self->dark = dark;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
weft_rank_breakdown_finalize (GObject *object)
{
  WeftRankBreakdown *self = WEFT_RANK_BREAKDOWN (object);

  g_clear_pointer (&self->rows, g_array_unref);
  G_OBJECT_CLASS (weft_rank_breakdown_parent_class)->finalize (object);
}

static void
weft_rank_breakdown_class_init (WeftRankBreakdownClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = weft_rank_breakdown_finalize;
  widget_class->snapshot = weft_rank_breakdown_snapshot;
  widget_class->measure = weft_rank_breakdown_measure;
  gtk_widget_class_set_css_name (widget_class, "weft-rank-breakdown");
}

static void
weft_rank_breakdown_init (WeftRankBreakdown *self)
{
  self->rows = g_array_new (FALSE, TRUE, sizeof (RankRow));
  self->step = WEFT_SOLVER_ALL_STEPS;
}

GtkWidget *
weft_rank_breakdown_new (void)
{
  return g_object_new (WEFT_TYPE_RANK_BREAKDOWN, NULL);
}
