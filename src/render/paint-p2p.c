/* paint-p2p.c: pipeline P2P transfers as arrows between ranks: each
 * matched send/recv instance is an arrow from the send kernel to the
 * receive kernel at the transfer's end (both members end there, the
 * rendezvous), so a pipeline's activations and gradients read as arrows
 * from stage to stage. */
#include "config.h"

#include <math.h>

#include "render-private.h"

/* The event of an instance member, WEFT_NONE when it is not loaded. */
static guint32
member_event (WeftTrace *trace, const WeftInstanceMember *m, WeftCollType *type)
{
  WeftRank *rank;
  const WeftCollective *c;

  if (m->rank_index >= trace->ranks->len)
    return WEFT_NONE;
  rank = weft_trace_rank (trace, m->rank_index);
  if (m->coll >= rank->collectives->len)
    return WEFT_NONE;
  c = &g_array_index (rank->collectives, WeftCollective, m->coll);
  *type = c->type;
  return c->event;
}

static void
arrow (cairo_t *cr, double x0, double y0, double x1, double y1)
{
  double a = atan2 (y1 - y0, x1 - x0), l = 6.0;

  cairo_move_to (cr, x0, y0);
  cairo_line_to (cr, x1, y1);
  cairo_stroke (cr);
  cairo_move_to (cr, x1, y1);
  cairo_line_to (cr, x1 - l * cos (a - 0.45), y1 - l * sin (a - 0.45));
  cairo_line_to (cr, x1 - l * cos (a + 0.45), y1 - l * sin (a + 0.45));
  cairo_close_path (cr);
  cairo_fill (cr);
}

guint
weft_render_paint_p2p_arrows (cairo_t *cr, WeftTrace *trace, const WeftView *view, const WeftLayout *layout,
                              const WeftRenderTimes *times)
{
  guint n = 0;
  WeftRgba c;

  g_return_val_if_fail (trace != NULL && view != NULL && layout != NULL, 0);
  c = weft_render_coll_color (WEFT_COLL_SEND, view->dark);
  if (cr != NULL)
    {
      cairo_save (cr);
      cairo_set_source_rgba (cr, c.r, c.g, c.b, 0.85);
      cairo_set_line_width (cr, 1.25);
    }
  for (guint k = 0; k < trace->instances->len && n < WEFT_RENDER_MAX_P2P_ARROWS; k++)
    {
      const WeftCollInstance *inst = &g_array_index (trace->instances, WeftCollInstance, k);
      double sx = 0, sy = 0, sw = 0, sh = 0, rx = 0, ry = 0, rw = 0, rh = 0;
      guint sr = WEFT_NONE, rr = WEFT_NONE;
      guint32 se = WEFT_NONE, re = WEFT_NONE;

      if ((inst->type != WEFT_COLL_SEND && inst->type != WEFT_COLL_RECV) || inst->members == NULL
          || inst->members->len != 2)
        continue;
      for (guint i = 0; i < 2; i++)
        {
          const WeftInstanceMember *m = &g_array_index (inst->members, WeftInstanceMember, i);
          WeftCollType t = WEFT_COLL_NONE;
          guint32 e = member_event (trace, m, &t);
          if (t == WEFT_COLL_SEND)
            {
              sr = m->rank_index;
              se = e;
            }
          else if (t == WEFT_COLL_RECV)
            {
              rr = m->rank_index;
              re = e;
            }
        }
      if (se == WEFT_NONE || re == WEFT_NONE
          || !weft_render_event_rect (trace, view, layout, times, sr, se, &sx, &sy, &sw, &sh)
          || !weft_render_event_rect (trace, view, layout, times, rr, re, &rx, &ry, &rw, &rh))
        continue;
      /* in view (horizontally) at the transfer's end */
      if (MAX (sx + sw, rx + rw) < 0 || MIN (sx + sw, rx + rw) > view->width)
        continue;
      if (cr != NULL)
        arrow (cr, sx + sw, sy + sh / 2, rx + rw, ry + (ry > sy ? 0 : rh));
      n++;
    }
  if (cr != NULL)
    cairo_restore (cr);
  return n;
}
