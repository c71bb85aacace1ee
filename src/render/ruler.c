/* ruler.c: the time ruler and the lane-header column. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "render-private.h"

static PangoLayout *
make_layout (cairo_t *cr, const char *font, const char *text)
{
  PangoLayout *pl = pango_cairo_create_layout (cr);
  PangoFontDescription *fd = pango_font_description_from_string (font);
  pango_layout_set_font_description (pl, fd);
  pango_font_description_free (fd);
  pango_layout_set_text (pl, text, -1);
  return pl;
}

static void
set_rgba (cairo_t *cr, WeftRgba c, double alpha)
{
  cairo_set_source_rgba (cr, c.r, c.g, c.b, alpha);
}

void
weft_render_paint_ruler (cairo_t *cr, WeftTrace *trace, const WeftView *view)
{
  const double h = WEFT_RENDER_RULER_HEIGHT;
  WeftRgba bg, tc;
  gint64 step, minor, first;
  double scale;
  PangoLayout *pl;

  g_return_if_fail (cr != NULL && view != NULL);
  bg = weft_render_background_color (view->dark);
  tc = weft_render_text_color (view->dark);
  cairo_save (cr);
  cairo_rectangle (cr, 0, 0, view->width, h);
  cairo_clip (cr);
  set_rgba (cr, bg, 1.0);
  cairo_paint (cr);
  set_rgba (cr, tc, view->dark ? 0.07 : 0.04);
  cairo_paint (cr);
  if (view->span.end <= view->span.begin || view->width <= 0)
    {
      cairo_restore (cr);
      return;
    }
  scale = view->width / (double) (view->span.end - view->span.begin);

  /* step markers (the first rank that has steps) */
  if (trace != NULL && view->show_steps)
    for (guint r = 0; r < trace->ranks->len; r++)
      {
        WeftRank *rank = weft_trace_rank (trace, r);
        gint64 off = weft_trace_rank_offset (trace, rank);
        if (rank->steps->len == 0 || (weft_view_get_rank_flags (view, r) & WEFT_RANK_VIEW_HIDDEN))
          continue;
        for (guint s = 0; s < rank->steps->len; s++)
          {
            const WeftStep *st = &g_array_index (rank->steps, WeftStep, s);
            double x0 = (double) (st->begin + off - view->span.begin) * scale;
            double x1 = (double) (st->end + off - view->span.begin) * scale;
            char buf[64];
            if (x1 < 0 || x0 > view->width)
              continue;
            cairo_set_source_rgba (cr, 0.95, 0.6, 0.1, view->dark ? 0.35 : 0.25);
            cairo_rectangle (cr, x0, 0, x1 - x0, 7);
            cairo_fill (cr);
            if (x1 - x0 > 60)
              {
                g_snprintf (buf, sizeof buf, "step %d", st->number);
                pl = make_layout (cr, "Sans Bold 6.5", buf);
                set_rgba (cr, tc, 0.8);
                cairo_move_to (cr, MAX (x0, 0) + 3, -1.5);
                pango_cairo_show_layout (cr, pl);
                g_object_unref (pl);
              }
          }
        break;
      }

  step = weft_render_tick_step (view, 90.0);
  minor = step % 5 == 0 && step >= 5 ? step / 5 : step / 2;
  if (minor <= 0)
    minor = step;
  /* ticks aligned to the origin, so labels are round numbers */
  first = view->span.begin - view->origin;
  first = (first >= 0 ? first / minor : -((-first + minor - 1) / minor)) * minor;
  cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);
  set_rgba (cr, tc, 0.5);
  cairo_set_line_width (cr, 1.0);
  for (gint64 t = first; t + view->origin <= view->span.end; t += minor)
    {
      double x = floor ((double) (t + view->origin - view->span.begin) * scale) + 0.5;
      gboolean major = t % step == 0;
      cairo_move_to (cr, x, major ? h - 12 : h - 5);
      cairo_line_to (cr, x, h);
    }
  cairo_stroke (cr);
  cairo_set_antialias (cr, CAIRO_ANTIALIAS_DEFAULT);
  set_rgba (cr, tc, 0.9);
  for (gint64 t = first; t + view->origin <= view->span.end; t += minor)
    {
      double x = floor ((double) (t + view->origin - view->span.begin) * scale);
      g_autofree char *label = NULL;
      if (t % step != 0)
        continue;
      label = weft_render_format_time (t, step);
      pl = make_layout (cr, "Sans 7.5", label);
      cairo_move_to (cr, x + 3, h - 22);
      pango_cairo_show_layout (cr, pl);
      g_object_unref (pl);
    }
  /* bottom edge */
  set_rgba (cr, tc, 0.25);
  cairo_rectangle (cr, 0, h - 1, view->width, 1);
  cairo_fill (cr);
  cairo_restore (cr);
}

void
weft_render_paint_lane_headers (cairo_t *cr, WeftTrace *trace, const WeftView *view, const WeftLayout *layout,
                                double header_width)
{
  WeftRgba bg, tc;
  int first;

  g_return_if_fail (cr != NULL && trace != NULL && view != NULL && layout != NULL);
  bg = weft_render_background_color (view->dark);
  tc = weft_render_text_color (view->dark);
  cairo_save (cr);
  cairo_rectangle (cr, 0, 0, header_width, view->height);
  cairo_clip (cr);
  set_rgba (cr, bg, 1.0);
  cairo_paint (cr);
  set_rgba (cr, tc, view->dark ? 0.05 : 0.03);
  cairo_paint (cr);

  first = weft_layout_row_at_y (layout, MAX (view->scroll_y, 0.0));
  if (first < 0)
    first = view->scroll_y < 0 ? 0 : (int) layout->rows->len;
  for (guint ri = (guint) first; ri < layout->rows->len; ri++)
    {
      const WeftLayoutRow *row = &g_array_index (layout->rows, WeftLayoutRow, ri);
      double y = row->y - view->scroll_y;
      PangoLayout *pl = weft_layout_row_label (layout, ri);
      double indent = 22;
      guint8 flags = weft_view_get_rank_flags (view, row->rank_index);
      int tw, th;

      if (y >= view->height)
        break;
      if (row->kind == WEFT_ROW_RANK_HEADER)
        {
          gboolean collapsed = (flags & WEFT_RANK_VIEW_COLLAPSED) != 0;
          set_rgba (cr, tc, view->dark ? 0.08 : 0.06);
          cairo_rectangle (cr, 0, y, header_width, row->height);
          cairo_fill (cr);
          /* disclosure triangle */
          set_rgba (cr, tc, 0.7);
          if (collapsed)
            {
              cairo_move_to (cr, 7, y + row->height / 2 - 4);
              cairo_line_to (cr, 13, y + row->height / 2);
              cairo_line_to (cr, 7, y + row->height / 2 + 4);
            }
          else
            {
              cairo_move_to (cr, 6, y + row->height / 2 - 3);
              cairo_line_to (cr, 14, y + row->height / 2 - 3);
              cairo_line_to (cr, 10, y + row->height / 2 + 3);
            }
          cairo_close_path (cr);
          cairo_fill (cr);
          indent = 18;
        }
      else if (row->kind == WEFT_ROW_MEMORY)
        indent = 22;
      else if (row->kind == WEFT_ROW_CPU_SUMMARY)
        {
          set_rgba (cr, tc, 0.55);
          cairo_move_to (cr, 16, y + 6);
          cairo_line_to (cr, 21, y + 10);
          cairo_line_to (cr, 16, y + 14);
          cairo_close_path (cr);
          cairo_fill (cr);
          indent = 26;
        }
      else
        {
          WeftRank *rank = weft_trace_rank (trace, row->rank_index);
          WeftLane *lane = weft_rank_lane (rank, row->lane);
          indent = lane->kind == WEFT_LANE_GPU ? 22 : 30;
          /* role colour chip */
          if (lane->kind == WEFT_LANE_GPU)
            {
              WeftRgba chip;
              switch (row->role)
                {
                case WEFT_LANE_ROLE_COMM:
                  chip = weft_render_coll_color (WEFT_COLL_ALL_REDUCE, view->dark);
                  break;
                case WEFT_LANE_ROLE_FSDP_AG:
                  chip = weft_render_coll_color (WEFT_COLL_ALL_GATHER, view->dark);
                  break;
                case WEFT_LANE_ROLE_FSDP_RS:
                  chip = weft_render_coll_color (WEFT_COLL_REDUCE_SCATTER, view->dark);
                  break;
                case WEFT_LANE_ROLE_COMPUTE:
                  chip = weft_render_class_color (WEFT_KCLASS_GEMM, view->dark);
                  break;
                case WEFT_LANE_ROLE_COPY:
                  chip = weft_render_class_color (WEFT_KCLASS_COPY, view->dark);
                  break;
                case WEFT_LANE_ROLE_NONE:
                case WEFT_LANE_ROLE_SYNC:
                default:
                  chip = weft_render_class_color (WEFT_KCLASS_NONE, view->dark);
                  break;
                }
              set_rgba (cr, chip, 1.0);
              cairo_rectangle (cr, 12, y + 4, 4, MIN (row->height - 8, 12));
              cairo_fill (cr);
            }
        }
      if (pango_layout_get_width (pl) != (int) ((header_width - indent - 4) * PANGO_SCALE))
        pango_layout_set_width (pl, (int) ((header_width - indent - 4) * PANGO_SCALE));
      pango_layout_get_pixel_size (pl, &tw, &th);
      set_rgba (cr, tc, row->kind == WEFT_ROW_LANE ? 0.85 : 1.0);
      cairo_move_to (cr, indent, y + MIN (row->height, 22.0) / 2 - th / 2.0);
      pango_cairo_show_layout (cr, pl);
      set_rgba (cr, tc, view->dark ? 0.12 : 0.08);
      cairo_rectangle (cr, 0, floor (y + row->height) - 1.0, header_width, 1.0);
      cairo_fill (cr);
    }
  /* right edge */
  set_rgba (cr, tc, 0.25);
  cairo_rectangle (cr, header_width - 1, 0, 1, view->height);
  cairo_fill (cr);
  cairo_restore (cr);
}
