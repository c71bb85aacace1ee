/* weft-compare-view.c: two traces compared, one above the other.
 *
 * Each side is a WeftTimelineView of its own trace drawn at its solver's
 * times; a change of one view's visible range (zoom, pan) is given to the
 * other, shifted by the difference of their origins (weft_diff_origin: each
 * step's start, its first collective, or none), so the same offset from the
 * origin is at the same x in both. Selecting an op selects its counterpart
 * (weft_diff_counterpart) on the other side. The ops of one side only are
 * outlined on a layer over each timeline (it takes no input). The side
 * pane: the per-rank breakdown of both (WeftCompareBreakdown), the selected
 * op and its counterpart, the largest contributions. Each side compares one
 * of its steps (a drop-down each: its ProfilerSteps, or the whole trace):
 * the first step of a profile of several by default, as the metrics bar. */
#include "config.h"

#include <math.h>

#include "weft/weft-render.h"
#include "weft-app-util.h"
#include "weft-compare-breakdown.h"
#include "weft-compare-view.h"

#define N_CHIPS 4

struct _WeftCompareView
{
  GtkWidget parent_instance;

  GtkWidget *box;
  GtkWidget *summary;
  GtkWidget *align_drop;
  GtkWidget *step_drop[2];
  GtkWidget *chips[N_CHIPS];
  GtkWidget *title[2];
  GtkWidget *timeline[2];
  GtkWidget *marks[2];
  GtkWidget *breakdown;
  GtkWidget *detail;
  GtkWidget *rows;

  WeftSolver     *solver[2];   /* borrowed */
  char           *label[2];
  WeftRenderTimes times[2];
  WeftDiff       *diff;
  WeftDiffAlign   align;
  GArray         *step_numbers[2]; /* int: a side's steps, index i+1 in its drop-down */
  int             step[2];         /* the compared step, WEFT_SOLVER_ALL_STEPS: the whole trace */
  gboolean        syncing;
  gboolean        dark;
  GArray         *only[2];     /* WeftEventRef: compared ops without a counterpart */
  char           *detail_text;
  char           *chips_text;
};

G_DEFINE_FINAL_TYPE (WeftCompareView, weft_compare_view, GTK_TYPE_WIDGET)

static gboolean
solver_time_func (gpointer user_data, guint rank_index, guint32 event, gint64 *start, gint64 *end)
{
  weft_solver_times (user_data, rank_index, event, start, end);
  return TRUE;
}

static int
side_of (WeftCompareView *self, GtkWidget *timeline)
{
  return timeline == self->timeline[1] ? 1 : 0;
}

static gint64
origin (WeftCompareView *self, int side)
{
  return self->diff != NULL ? weft_diff_origin (self->diff, side, self->align) : 0;
}

/* ---- the shared time axis -------------------------------------------------------- */

/* Gives side's visible range (as an offset from its origin) to the other. */
static void
propagate (WeftCompareView *self, int side)
{
  WeftTimelineView *from = WEFT_TIMELINE_VIEW (self->timeline[side]);
  WeftTimelineView *to = WEFT_TIMELINE_VIEW (self->timeline[!side]);
  WeftTimeSpan span, other;
  gint64 shift;

  if (weft_timeline_view_get_trace (from) == NULL || weft_timeline_view_get_trace (to) == NULL)
    return;
  span = weft_timeline_view_get_visible (from);
  shift = origin (self, !side) - origin (self, side);
  other.begin = span.begin + shift;
  other.end = span.end + shift;
  self->syncing = TRUE;
  weft_timeline_view_set_visible (to, other);
  self->syncing = FALSE;
}

/* The rulers count from each side's origin (absolute: both from A's
 * start), so that their labels are the shared axis. */
static void
set_origins (WeftCompareView *self)
{
  gint64 a0;
  if (self->diff == NULL)
    return;
  a0 = weft_timeline_view_get_trace_span (WEFT_TIMELINE_VIEW (self->timeline[0])).begin;
  for (int side = 0; side < 2; side++)
    weft_timeline_view_set_origin (WEFT_TIMELINE_VIEW (self->timeline[side]),
                                   self->align == WEFT_DIFF_ALIGN_ABSOLUTE ? a0 : origin (self, side));
}

/* Both views over the union of both sides' spans on the shared axis. */
static void
fit_shared (WeftCompareView *self)
{
  WeftTimeSpan a, b, span;
  gint64 oa = origin (self, 0), ob = origin (self, 1);

  if (self->solver[0] == NULL || self->solver[1] == NULL)
    return;
  a = weft_timeline_view_get_trace_span (WEFT_TIMELINE_VIEW (self->timeline[0]));
  b = weft_timeline_view_get_trace_span (WEFT_TIMELINE_VIEW (self->timeline[1]));
  span.begin = MIN (a.begin - oa, b.begin - ob) + oa;
  span.end = MAX (a.end - oa, b.end - ob) + oa;
  self->syncing = TRUE;
  weft_timeline_view_set_visible (WEFT_TIMELINE_VIEW (self->timeline[0]), span);
  self->syncing = FALSE;
  propagate (self, 0);
}

static void
view_changed_cb (WeftTimelineView *view, WeftCompareView *self)
{
  if (!self->syncing)
    propagate (self, side_of (self, GTK_WIDGET (view)));
  gtk_widget_queue_draw (self->marks[0]);
  gtk_widget_queue_draw (self->marks[1]);
}

/* ---- the marks of ops of one side only ----------------------------------------------- */

gboolean
weft_compare_view_op_rect (WeftCompareView *self, WeftDiffSide side, guint rank_index, guint32 event,
                           graphene_rect_t *rect)
{
  WeftTimelineView *tv;
  WeftTrace *trace;
  const WeftView *view;
  const WeftLayout *layout;
  const WeftLayoutRow *row;
  const WeftEvent *ev;
  graphene_rect_t body;
  WeftTimeSpan s;
  double x0, x1, y;
  int ri;

  g_return_val_if_fail (WEFT_IS_COMPARE_VIEW (self) && rect != NULL, FALSE);
  tv = WEFT_TIMELINE_VIEW (self->timeline[side == WEFT_DIFF_B]);
  trace = weft_timeline_view_get_trace (tv);
  view = weft_timeline_view_get_view (tv);
  layout = weft_timeline_view_get_layout (tv);
  if (trace == NULL || layout == NULL || rank_index >= trace->ranks->len ||
      event >= weft_trace_rank (trace, rank_index)->events->len)
    return FALSE;
  ev = weft_rank_event (weft_trace_rank (trace, rank_index), event);
  if (ev->lane == WEFT_NONE || (ri = weft_layout_find_lane (layout, rank_index, ev->lane)) < 0)
    return FALSE;
  row = weft_layout_get_row (layout, (guint) ri);
  if (row->kind != WEFT_ROW_LANE)
    return FALSE;
  weft_timeline_view_get_body_rect (tv, &body);
  s = weft_render_event_span (trace, &self->times[side == WEFT_DIFF_B], rank_index, event);
  x0 = MAX (weft_render_time_to_x (view, s.begin), 0.0);
  x1 = MIN (MAX (weft_render_time_to_x (view, s.end), x0 + 3.0), body.size.width);
  y = row->y + 2.0 + MIN (weft_layout_event_depth (layout, rank_index, event), row->n_depth > 0 ? row->n_depth - 1 : 0) *
                          WEFT_RENDER_LANE_ROW - view->scroll_y;
  if (x1 <= x0 || y + WEFT_RENDER_LANE_ROW <= 0 || y >= body.size.height)
    return FALSE;
  *rect = GRAPHENE_RECT_INIT (body.origin.x + x0, body.origin.y + y, x1 - x0, WEFT_RENDER_LANE_ROW - 2.0);
  return TRUE;
}

static void
draw_marks (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer user_data)
{
  WeftCompareView *self = user_data;
  int side = GTK_WIDGET (area) == self->marks[1] ? 1 : 0;
  GtkWidget *tv = self->timeline[side];
  graphene_rect_t body;
  graphene_point_t o;
  double dash[] = { 3.0, 2.0 };

  if (self->only[side] == NULL || self->only[side]->len == 0)
    return;
  weft_timeline_view_get_body_rect (WEFT_TIMELINE_VIEW (tv), &body);
  if (!gtk_widget_compute_point (tv, GTK_WIDGET (area), &GRAPHENE_POINT_INIT (0, 0), &o))
    return;
  cairo_rectangle (cr, o.x + body.origin.x, o.y + body.origin.y, body.size.width, body.size.height);
  cairo_clip (cr);
  cairo_set_source_rgba (cr, 1.0, 0.55, 0.0, 1.0);
  cairo_set_line_width (cr, 2.0);
  cairo_set_dash (cr, dash, 2, 0);
  for (guint i = 0; i < self->only[side]->len; i++)
    {
      const WeftEventRef *ref = &g_array_index (self->only[side], WeftEventRef, i);
      graphene_rect_t r;
      if (!weft_compare_view_op_rect (self, side, ref->rank_index, ref->event, &r))
        continue;
      cairo_rectangle (cr, o.x + r.origin.x - 1.0, o.y + r.origin.y - 1.0, r.size.width + 2.0, r.size.height + 2.0);
      cairo_stroke (cr);
    }
}

/* ---- the selected op and its counterpart ---------------------------------------------- */

static void
describe_op (WeftCompareView *self, GString *out, int side, guint r, guint32 e)
{
  WeftSolver *solver = self->solver[side];
  WeftTrace *trace = weft_solver_get_trace (solver);
  WeftRank *rank = weft_trace_rank (trace, r);
  const WeftEvent *ev = weft_rank_event (rank, e);
  gint64 start, end;
  guint pr;
  guint32 pe;
  WeftDepKind kind;
  g_autofree char *st = NULL, *du = NULL;
  g_autofree char *name = g_markup_escape_text (weft_rank_string (rank, ev->name), -1);

  weft_solver_times (solver, r, e, &start, &end);
  st = weft_format_duration (start - origin (self, side));
  du = weft_format_duration (end - start);
  g_string_append_printf (out, "<b>%s</b>: rank %d, stream %" G_GINT64_FORMAT "\n%.120s\nstart %s, duration %s",
                          side ? "B" : "A", rank->rank,
                          ev->lane != WEFT_NONE ? weft_rank_lane (rank, ev->lane)->tid : -1, name, st, du);
  kind = weft_solver_binding (solver, r, e, &pr, &pe);
  if (kind != WEFT_DEP_NONE && pr < trace->ranks->len && pe != WEFT_NONE)
    {
      WeftRank *prank = weft_trace_rank (trace, pr);
      g_autofree char *pname = pe < prank->events->len
                                   ? g_markup_escape_text (weft_rank_string (prank, weft_rank_event (prank, pe)->name), -1)
                                   : g_strdup ("");
      g_string_append_printf (out, "\nwaits for (%s): rank %d %.60s", weft_dep_kind_to_string (kind), prank->rank,
                              pname);
    }
  else
    g_string_append_printf (out, "\nwaits for: %s", kind == WEFT_DEP_NONE ? "nothing (its observed time)"
                                                                         : weft_dep_kind_to_string (kind));
  g_string_append_c (out, '\n');
}

static void
update_detail (WeftCompareView *self, int side)
{
  GString *out = g_string_new (NULL);
  guint r, orank;
  guint32 e, oev;
  WeftDiffMatchKind kind;

  if (self->diff != NULL && weft_timeline_view_get_selection (WEFT_TIMELINE_VIEW (self->timeline[side]), &r, &e))
    {
      if (!weft_diff_is_compared (self->diff, side, r, e))
        {
          describe_op (self, out, side, r, e);
          g_string_append (out, "\nNot compared (not a GPU op of the step).");
        }
      else if (!weft_diff_counterpart (self->diff, side, r, e, &orank, &oev, &kind))
        {
          describe_op (self, out, side, r, e);
          g_string_append_printf (out, "\n<b>Only in %s</b>: no counterpart in %s.", side ? "B" : "A", side ? "A" : "B");
        }
      else
        {
          guint ra = side ? orank : r, rb = side ? r : orank;
          guint32 ea = side ? oev : e, eb = side ? e : oev;
          gint64 sa, ea_end, sb, eb_end;
          g_autofree char *ds = NULL, *dd = NULL;
          WeftTrace *ta = weft_solver_get_trace (self->solver[0]), *tb = weft_solver_get_trace (self->solver[1]);
          const WeftEvent *xa = weft_rank_event (weft_trace_rank (ta, ra), ea);
          const WeftEvent *xb = weft_rank_event (weft_trace_rank (tb, rb), eb);
          gint64 stream_a = xa->lane != WEFT_NONE ? weft_rank_lane (weft_trace_rank (ta, ra), xa->lane)->tid : -1;
          gint64 stream_b = xb->lane != WEFT_NONE ? weft_rank_lane (weft_trace_rank (tb, rb), xb->lane)->tid : -1;
          describe_op (self, out, 0, ra, ea);
          g_string_append_c (out, '\n');
          describe_op (self, out, 1, rb, eb);
          weft_solver_times (self->solver[0], ra, ea, &sa, &ea_end);
          weft_solver_times (self->solver[1], rb, eb, &sb, &eb_end);
          ds = weft_format_delta ((sb - origin (self, 1)) - (sa - origin (self, 0)));
          dd = weft_format_delta ((eb_end - sb) - (ea_end - sa));
          g_string_append_printf (out, "\n<b>B − A</b>: start %s, duration %s", ds, dd);
          if (stream_a != stream_b)
            g_string_append_printf (out, ", stream %" G_GINT64_FORMAT " → %" G_GINT64_FORMAT, stream_a, stream_b);
          g_string_append_printf (out, " (matched by %s)", weft_diff_match_kind_to_string (kind));
        }
    }
  g_free (self->detail_text);
  self->detail_text = g_string_free (out, FALSE);
  gtk_label_set_markup (GTK_LABEL (self->detail), self->detail_text[0] ? self->detail_text
                                                                       : "Select an op to see its counterpart.");
}

static void
selection_changed_cb (WeftTimelineView *view, WeftCompareView *self)
{
  int side = side_of (self, GTK_WIDGET (view));
  guint r, orank;
  guint32 e, oev;

  if (self->syncing)
    return;
  if (self->diff != NULL && weft_timeline_view_get_selection (view, &r, &e) &&
      weft_diff_counterpart (self->diff, side, r, e, &orank, &oev, NULL))
    {
      self->syncing = TRUE;
      weft_timeline_view_select (WEFT_TIMELINE_VIEW (self->timeline[!side]), orank, oev);
      self->syncing = FALSE;
      propagate (self, side); /* the reveal may have panned the other one */
    }
  update_detail (self, side);
}

/* ---- figures ------------------------------------------------------------------------------ */

static void
set_chip (WeftCompareView *self, GString *text, guint i, const char *name, const char *a, const char *b,
          const char *delta, gboolean worse)
{
  g_autofree char *markup = g_markup_printf_escaped ("<b>%s</b> %s → %s <span foreground=\"%s\">%s</span>", name, a, b,
                                                     worse ? "#c01c28" : "#26a269", delta);
  gtk_label_set_markup (GTK_LABEL (self->chips[i]), markup);
  g_string_append_printf (text, "%s: %s -> %s (%s)\n", name, a, b, delta);
}

static void
update_chips (WeftCompareView *self)
{
  WeftMetrics a, b;
  GString *text = g_string_new (NULL);

  memset (&a, 0, sizeof a);
  memset (&b, 0, sizeof b);
  if (self->diff != NULL)
    {
      weft_diff_whole (self->diff, WEFT_DIFF_A, &a);
      weft_diff_whole (self->diff, WEFT_DIFF_B, &b);
    }
  {
    g_autofree char *x = weft_format_duration (a.step_time), *y = weft_format_duration (b.step_time);
    g_autofree char *d = weft_format_delta (b.step_time - a.step_time);
    set_chip (self, text, 0, "Step", x, y, d, b.step_time > a.step_time);
  }
  {
    g_autofree char *x = g_strdup_printf ("%.1f %%", a.overlap_pct), *y = g_strdup_printf ("%.1f %%", b.overlap_pct);
    g_autofree char *d = g_strdup_printf ("%+.1f pt", b.overlap_pct - a.overlap_pct);
    set_chip (self, text, 1, "Overlap", x, y, d, b.overlap_pct < a.overlap_pct);
  }
  {
    g_autofree char *x = weft_format_duration (a.exposed_comm), *y = weft_format_duration (b.exposed_comm);
    g_autofree char *d = weft_format_delta (b.exposed_comm - a.exposed_comm);
    set_chip (self, text, 2, "Exposed comm", x, y, d, b.exposed_comm > a.exposed_comm);
  }
  {
    g_autofree char *x = weft_format_duration (a.cp_length), *y = weft_format_duration (b.cp_length);
    g_autofree char *d = weft_format_delta (b.cp_length - a.cp_length);
    set_chip (self, text, 3, "Critical path", x, y, d, b.cp_length > a.cp_length);
  }
  g_free (self->chips_text);
  self->chips_text = g_string_free (text, FALSE);
}

static void
update_rows (WeftCompareView *self)
{
  GString *out = g_string_new ("<b>By contribution</b> (B − A; collectives: exposed time)\n");
  for (int coll = 1; coll >= 0 && self->diff != NULL; coll--)
    {
      guint n;
      const WeftDiffRow *rows = weft_diff_rows (self->diff, coll, &n);
      for (guint i = 0; i < n && i < 6; i++)
        {
          g_autofree char *d = weft_format_delta (weft_diff_row_contribution (&rows[i]));
          g_string_append_printf (out, "%s %s: %s (%u → %u ops)\n", coll ? "exposed" : "kernels",
                                  weft_diff_row_name (&rows[i]), d, rows[i].a.count, rows[i].b.count);
        }
    }
  gtk_label_set_markup (GTK_LABEL (self->rows), out->str);
  g_string_free (out, TRUE);
}

/* The ops of each side that the diff compared without a counterpart. */
static void
collect_only (WeftCompareView *self)
{
  for (int side = 0; side < 2; side++)
    {
      WeftTrace *trace;
      g_clear_pointer (&self->only[side], g_array_unref);
      self->only[side] = g_array_new (FALSE, FALSE, sizeof (WeftEventRef));
      if (self->diff == NULL)
        continue;
      trace = weft_solver_get_trace (self->solver[side]);
      for (guint r = 0; r < trace->ranks->len; r++)
        for (guint32 e = 0; e < weft_trace_rank (trace, r)->events->len; e++)
          if (weft_diff_is_compared (self->diff, side, r, e) &&
              !weft_diff_counterpart (self->diff, side, r, e, NULL, NULL, NULL))
            {
              WeftEventRef ref = { r, e };
              g_array_append_val (self->only[side], ref);
            }
    }
}

static void
update_titles (WeftCompareView *self)
{
  for (int side = 0; side < 2; side++)
    {
      WeftMetrics m;
      g_autofree char *st = NULL, *markup = NULL;
      guint n_only = self->only[side] != NULL ? self->only[side]->len : 0;
      if (self->diff == NULL || !weft_diff_whole (self->diff, side, &m))
        {
          gtk_label_set_text (GTK_LABEL (self->title[side]), "");
          continue;
        }
      st = weft_format_duration (m.step_time);
      markup = g_markup_printf_escaped ("<b>%s</b>  %s  ·  step %s  ·  %u ops of %s only%s", side ? "B" : "A",
                                        self->label[side] ? self->label[side] : "", st, n_only, side ? "B" : "A",
                                        n_only ? " (outlined)" : "");
      gtk_label_set_markup (GTK_LABEL (self->title[side]), markup);
    }
}

void
weft_compare_view_refresh (WeftCompareView *self)
{
  g_autofree char *summary = NULL;
  g_autoptr (GError) error = NULL;

  g_return_if_fail (WEFT_IS_COMPARE_VIEW (self));
  weft_compare_breakdown_set_diff (WEFT_COMPARE_BREAKDOWN (self->breakdown), NULL);
  g_clear_pointer (&self->diff, weft_diff_free);
  if (self->solver[0] != NULL && self->solver[1] != NULL)
    {
      self->diff = weft_diff_new (self->solver[0], self->step[0], self->solver[1], self->step[1], &error);
      if (self->diff == NULL)
        g_warning ("compare: %s", error->message);
    }
  for (int side = 0; side < 2; side++)
    if (self->solver[side] != NULL)
      self->times[side].generation = weft_solver_generation (self->solver[side]) + 1;
  summary = self->diff != NULL ? weft_diff_summary (self->diff) : g_strdup ("");
  gtk_label_set_text (GTK_LABEL (self->summary), summary);
  collect_only (self);
  update_chips (self);
  update_rows (self);
  update_titles (self);
  weft_compare_breakdown_set_diff (WEFT_COMPARE_BREAKDOWN (self->breakdown), self->diff);
  update_detail (self, 0);
  set_origins (self);
  gtk_widget_queue_draw (self->marks[0]);
  gtk_widget_queue_draw (self->marks[1]);
}

/* ---- the compared steps -------------------------------------------------------------------- */

static void step_changed_cb (GObject *drop, GParamSpec *pspec, WeftCompareView *self);

static guint
step_position (WeftCompareView *self, int side, int step)
{
  if (step == WEFT_SOLVER_ALL_STEPS)
    return 0;
  for (guint i = 0; self->step_numbers[side] != NULL && i < self->step_numbers[side]->len; i++)
    if (g_array_index (self->step_numbers[side], int, i) == step)
      return i + 1;
  return GTK_INVALID_LIST_POSITION;
}

static void
select_step (WeftCompareView *self, int side, guint pos)
{
  g_signal_handlers_block_by_func (self->step_drop[side], step_changed_cb, self);
  gtk_drop_down_set_selected (GTK_DROP_DOWN (self->step_drop[side]), pos);
  g_signal_handlers_unblock_by_func (self->step_drop[side], step_changed_cb, self);
  self->step[side] = pos == 0 ? WEFT_SOLVER_ALL_STEPS : g_array_index (self->step_numbers[side], int, pos - 1);
}

/* A side's drop-down: "Whole trace" and its steps, the first step chosen
 * when there is one. */
static void
fill_steps (WeftCompareView *self, int side)
{
  g_autoptr (GtkStringList) list = gtk_string_list_new (NULL);
  const char *who = side ? "B" : "A";
  g_autofree char *whole = g_strdup_printf ("%s: whole trace", who);

  g_clear_pointer (&self->step_numbers[side], g_array_unref);
  gtk_string_list_append (list, whole);
  if (self->solver[side] != NULL)
    {
      self->step_numbers[side] = weft_solver_steps (self->solver[side]);
      for (guint i = 0; i < self->step_numbers[side]->len; i++)
        {
          g_autofree char *item = g_strdup_printf ("%s: step %d", who, g_array_index (self->step_numbers[side], int, i));
          gtk_string_list_append (list, item);
        }
    }
  g_signal_handlers_block_by_func (self->step_drop[side], step_changed_cb, self);
  gtk_drop_down_set_model (GTK_DROP_DOWN (self->step_drop[side]), G_LIST_MODEL (list));
  g_signal_handlers_unblock_by_func (self->step_drop[side], step_changed_cb, self);
  select_step (self, side, self->step_numbers[side] != NULL && self->step_numbers[side]->len > 0 ? 1 : 0);
  gtk_widget_set_visible (self->step_drop[side], self->solver[side] != NULL);
}

static void
step_changed_cb (GObject *drop, GParamSpec *pspec, WeftCompareView *self)
{
  int side = drop == G_OBJECT (self->step_drop[1]) ? 1 : 0;
  guint pos = gtk_drop_down_get_selected (GTK_DROP_DOWN (drop));

  if (pos == GTK_INVALID_LIST_POSITION)
    return;
  self->step[side] = pos == 0 ? WEFT_SOLVER_ALL_STEPS : g_array_index (self->step_numbers[side], int, pos - 1);
  weft_compare_view_refresh (self);
  /* the other side follows at the same offset from its (new) origin */
  propagate (self, 0);
}

void
weft_compare_view_set_steps (WeftCompareView *self, int step_a, int step_b)
{
  int want[2] = { step_a, step_b };
  gboolean changed = FALSE;

  g_return_if_fail (WEFT_IS_COMPARE_VIEW (self));
  for (int side = 0; side < 2; side++)
    {
      guint pos = step_position (self, side, want[side]);
      if (pos != GTK_INVALID_LIST_POSITION && self->step[side] != want[side])
        {
          select_step (self, side, pos);
          changed = TRUE;
        }
    }
  if (!changed)
    return; /* the diff is of these steps already */
  weft_compare_view_refresh (self);
  fit_shared (self);
}

int
weft_compare_view_get_step (WeftCompareView *self, WeftDiffSide side)
{
  g_return_val_if_fail (WEFT_IS_COMPARE_VIEW (self), WEFT_SOLVER_ALL_STEPS);
  return self->step[side == WEFT_DIFF_B];
}

GtkWidget *
weft_compare_view_get_step_drop (WeftCompareView *self, WeftDiffSide side)
{
  g_return_val_if_fail (WEFT_IS_COMPARE_VIEW (self), NULL);
  return self->step_drop[side == WEFT_DIFF_B];
}

GArray *
weft_compare_view_get_steps (WeftCompareView *self, WeftDiffSide side)
{
  g_return_val_if_fail (WEFT_IS_COMPARE_VIEW (self), NULL);
  return self->step_numbers[side == WEFT_DIFF_B];
}

void
weft_compare_view_set (WeftCompareView *self, WeftSolver *a, const char *label_a, WeftSolver *b, const char *label_b)
{
  WeftSolver *s[2] = { a, b };
  const char *l[2] = { label_a, label_b };

  g_return_if_fail (WEFT_IS_COMPARE_VIEW (self));
  weft_compare_breakdown_set_diff (WEFT_COMPARE_BREAKDOWN (self->breakdown), NULL);
  g_clear_pointer (&self->diff, weft_diff_free);
  for (int side = 0; side < 2; side++)
    {
      WeftTimelineView *tv = WEFT_TIMELINE_VIEW (self->timeline[side]);
      WeftRenderOverlay overlay = { 0 };
      self->solver[side] = s[side];
      g_free (self->label[side]);
      self->label[side] = g_strdup (l[side]);
      memset (&self->times[side], 0, sizeof self->times[side]);
      self->syncing = TRUE;
      weft_timeline_view_set_trace (tv, NULL);
      if (s[side] != NULL && a != NULL && b != NULL)
        {
          WeftTrace *trace = weft_solver_get_trace (s[side]);
          self->times[side].func = solver_time_func;
          self->times[side].user_data = s[side];
          self->times[side].n_ranks = trace->ranks->len;
          self->times[side].generation = weft_solver_generation (s[side]) + 1;
          weft_timeline_view_set_dark (tv, self->dark);
          weft_timeline_view_set_trace (tv, trace);
          weft_timeline_view_set_times (tv, &self->times[side], &overlay);
        }
      self->syncing = FALSE;
    }
  if (a == NULL || b == NULL)
    self->solver[0] = self->solver[1] = NULL;
  for (int side = 0; side < 2; side++)
    fill_steps (self, side);
  weft_compare_view_refresh (self);
  fit_shared (self);
}

/* ---- the widget ---------------------------------------------------------------------------- */

static void
align_changed_cb (GObject *drop, GParamSpec *pspec, WeftCompareView *self)
{
  weft_compare_view_set_align (self, (WeftDiffAlign) gtk_drop_down_get_selected (GTK_DROP_DOWN (drop)));
}

static GtkWidget *
side_pane_new (WeftCompareView *self, int side)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *scrolled = gtk_scrolled_window_new ();
  GtkWidget *overlay = gtk_overlay_new ();

  self->title[side] = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->title[side]), 0);
  gtk_label_set_ellipsize (GTK_LABEL (self->title[side]), PANGO_ELLIPSIZE_MIDDLE);
  gtk_widget_set_margin_start (self->title[side], 6);
  gtk_box_append (GTK_BOX (box), self->title[side]);
  self->timeline[side] = weft_timeline_view_new ();
  gtk_widget_set_name (self->timeline[side], side ? "compare-b" : "compare-a");
  g_signal_connect (self->timeline[side], "view-changed", G_CALLBACK (view_changed_cb), self);
  g_signal_connect (self->timeline[side], "layout-changed", G_CALLBACK (view_changed_cb), self);
  g_signal_connect (self->timeline[side], "selection-changed", G_CALLBACK (selection_changed_cb), self);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), self->timeline[side]);
  gtk_overlay_set_child (GTK_OVERLAY (overlay), scrolled);
  self->marks[side] = gtk_drawing_area_new ();
  gtk_widget_set_can_target (self->marks[side], FALSE);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self->marks[side]), draw_marks, self, NULL);
  gtk_overlay_add_overlay (GTK_OVERLAY (overlay), self->marks[side]);
  gtk_widget_set_vexpand (overlay, TRUE);
  gtk_box_append (GTK_BOX (box), overlay);
  return box;
}

static GtkWidget *
side_column_new (WeftCompareView *self)
{
  GtkWidget *col = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *scrolled = gtk_scrolled_window_new ();
  GtkWidget *heading = gtk_label_new ("Per rank: A above B");

  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_widget_set_margin_start (col, 12);
  gtk_widget_set_margin_end (col, 12);
  gtk_widget_set_margin_top (col, 12);
  gtk_widget_set_margin_bottom (col, 12);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), col);

  gtk_widget_add_css_class (heading, "heading");
  gtk_label_set_xalign (GTK_LABEL (heading), 0);
  gtk_box_append (GTK_BOX (col), heading);
  self->breakdown = weft_compare_breakdown_new ();
  gtk_box_append (GTK_BOX (col), self->breakdown);
  gtk_box_append (GTK_BOX (col), gtk_separator_new (GTK_ORIENTATION_HORIZONTAL));
  self->detail = gtk_label_new (NULL);
  gtk_label_set_wrap (GTK_LABEL (self->detail), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (self->detail), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_xalign (GTK_LABEL (self->detail), 0);
  gtk_label_set_selectable (GTK_LABEL (self->detail), TRUE);
  gtk_box_append (GTK_BOX (col), self->detail);
  gtk_box_append (GTK_BOX (col), gtk_separator_new (GTK_ORIENTATION_HORIZONTAL));
  self->rows = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->rows), 0);
  gtk_label_set_wrap (GTK_LABEL (self->rows), TRUE);
  gtk_box_append (GTK_BOX (col), self->rows);
  gtk_widget_set_size_request (scrolled, 260, -1);
  return scrolled;
}

static void
weft_compare_view_init (WeftCompareView *self)
{
  static const char *aligns[] = { "Align at step start", "Align at first collective", "Absolute times", NULL };
  GtkWidget *top = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *chips = gtk_flow_box_new ();
  GtkWidget *hpaned = gtk_paned_new (GTK_ORIENTATION_HORIZONTAL);
  GtkWidget *vpaned = gtk_paned_new (GTK_ORIENTATION_VERTICAL);

  self->align = WEFT_DIFF_ALIGN_STEP;
  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));

  self->summary = gtk_label_new (NULL);
  gtk_label_set_wrap (GTK_LABEL (self->summary), TRUE);
  gtk_label_set_xalign (GTK_LABEL (self->summary), 0);
  gtk_label_set_selectable (GTK_LABEL (self->summary), TRUE);
  gtk_widget_set_hexpand (self->summary, TRUE);
  gtk_box_append (GTK_BOX (top), self->summary);
  for (int side = 0; side < 2; side++)
    {
      self->step[side] = WEFT_SOLVER_ALL_STEPS;
      self->step_drop[side] = gtk_drop_down_new_from_strings ((const char *const[]) { side ? "B: whole trace" : "A: whole trace", NULL });
      gtk_widget_set_name (self->step_drop[side], side ? "compare-step-b" : "compare-step-a");
      gtk_widget_set_tooltip_text (self->step_drop[side], side ? "The step of B that is compared" : "The step of A that is compared");
      gtk_widget_set_valign (self->step_drop[side], GTK_ALIGN_CENTER);
      gtk_widget_set_visible (self->step_drop[side], FALSE);
      g_signal_connect (self->step_drop[side], "notify::selected", G_CALLBACK (step_changed_cb), self);
      gtk_box_append (GTK_BOX (top), self->step_drop[side]);
    }
  self->align_drop = gtk_drop_down_new_from_strings (aligns);
  gtk_widget_set_valign (self->align_drop, GTK_ALIGN_CENTER);
  g_signal_connect (self->align_drop, "notify::selected", G_CALLBACK (align_changed_cb), self);
  gtk_box_append (GTK_BOX (top), self->align_drop);
  gtk_widget_set_margin_start (top, 8);
  gtk_widget_set_margin_end (top, 8);
  gtk_widget_set_margin_top (top, 4);
  gtk_box_append (GTK_BOX (self->box), top);

  gtk_flow_box_set_selection_mode (GTK_FLOW_BOX (chips), GTK_SELECTION_NONE);
  gtk_flow_box_set_max_children_per_line (GTK_FLOW_BOX (chips), N_CHIPS);
  gtk_flow_box_set_column_spacing (GTK_FLOW_BOX (chips), 6);
  gtk_widget_set_can_focus (chips, FALSE);
  for (guint i = 0; i < N_CHIPS; i++)
    {
      self->chips[i] = gtk_label_new (NULL);
      gtk_widget_add_css_class (self->chips[i], "weft-chip");
      gtk_flow_box_append (GTK_FLOW_BOX (chips), self->chips[i]);
    }
  gtk_widget_set_margin_start (chips, 8);
  gtk_box_append (GTK_BOX (self->box), chips);

  gtk_paned_set_start_child (GTK_PANED (vpaned), side_pane_new (self, 0));
  gtk_paned_set_end_child (GTK_PANED (vpaned), side_pane_new (self, 1));
  gtk_paned_set_resize_start_child (GTK_PANED (vpaned), TRUE);
  gtk_paned_set_resize_end_child (GTK_PANED (vpaned), TRUE);
  gtk_paned_set_start_child (GTK_PANED (hpaned), vpaned);
  gtk_paned_set_end_child (GTK_PANED (hpaned), side_column_new (self));
  gtk_paned_set_resize_end_child (GTK_PANED (hpaned), FALSE);
  gtk_paned_set_shrink_end_child (GTK_PANED (hpaned), FALSE);
  gtk_widget_set_vexpand (hpaned, TRUE);
  gtk_box_append (GTK_BOX (self->box), hpaned);
  update_detail (self, 0);
}

static void
weft_compare_view_dispose (GObject *object)
{
  WeftCompareView *self = WEFT_COMPARE_VIEW (object);

  if (self->breakdown != NULL)
    weft_compare_breakdown_set_diff (WEFT_COMPARE_BREAKDOWN (self->breakdown), NULL);
  g_clear_pointer (&self->diff, weft_diff_free);
  g_clear_pointer (&self->box, gtk_widget_unparent);
  G_OBJECT_CLASS (weft_compare_view_parent_class)->dispose (object);
}

static void
weft_compare_view_finalize (GObject *object)
{
  WeftCompareView *self = WEFT_COMPARE_VIEW (object);

  for (int side = 0; side < 2; side++)
    {
      g_free (self->label[side]);
      g_clear_pointer (&self->only[side], g_array_unref);
      g_clear_pointer (&self->step_numbers[side], g_array_unref);
    }
  g_free (self->detail_text);
  g_free (self->chips_text);
  G_OBJECT_CLASS (weft_compare_view_parent_class)->finalize (object);
}

static void
weft_compare_view_class_init (WeftCompareViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = weft_compare_view_dispose;
  object_class->finalize = weft_compare_view_finalize;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "weft-compare");
}

GtkWidget *
weft_compare_view_new (void)
{
  return g_object_new (WEFT_TYPE_COMPARE_VIEW, NULL);
}

void
weft_compare_view_set_align (WeftCompareView *self, WeftDiffAlign align)
{
  g_return_if_fail (WEFT_IS_COMPARE_VIEW (self));
  if (self->align == align)
    return;
  self->align = align;
  if (gtk_drop_down_get_selected (GTK_DROP_DOWN (self->align_drop)) != (guint) align)
    gtk_drop_down_set_selected (GTK_DROP_DOWN (self->align_drop), (guint) align);
  set_origins (self);
  propagate (self, 0);
  update_detail (self, 0);
}

WeftDiffAlign
weft_compare_view_get_align (WeftCompareView *self)
{
  g_return_val_if_fail (WEFT_IS_COMPARE_VIEW (self), WEFT_DIFF_ALIGN_STEP);
  return self->align;
}

void
weft_compare_view_set_dark (WeftCompareView *self, gboolean dark)
{
  g_return_if_fail (WEFT_IS_COMPARE_VIEW (self));
  self->dark = dark;
  for (int side = 0; side < 2; side++)
    weft_timeline_view_set_dark (WEFT_TIMELINE_VIEW (self->timeline[side]), dark);
  weft_compare_breakdown_set_dark (WEFT_COMPARE_BREAKDOWN (self->breakdown), dark);
}

WeftDiff *
weft_compare_view_get_diff (WeftCompareView *self)
{
  g_return_val_if_fail (WEFT_IS_COMPARE_VIEW (self), NULL);
  return self->diff;
}

WeftTimelineView *
weft_compare_view_get_timeline (WeftCompareView *self, WeftDiffSide side)
{
  g_return_val_if_fail (WEFT_IS_COMPARE_VIEW (self), NULL);
  return WEFT_TIMELINE_VIEW (self->timeline[side == WEFT_DIFF_B]);
}

const char *
weft_compare_view_get_label (WeftCompareView *self, WeftDiffSide side)
{
  g_return_val_if_fail (WEFT_IS_COMPARE_VIEW (self), NULL);
  return self->label[side == WEFT_DIFF_B] ? self->label[side == WEFT_DIFF_B] : "";
}

guint
weft_compare_view_get_n_only (WeftCompareView *self, WeftDiffSide side)
{
  g_return_val_if_fail (WEFT_IS_COMPARE_VIEW (self), 0);
  return self->only[side == WEFT_DIFF_B] != NULL ? self->only[side == WEFT_DIFF_B]->len : 0;
}

const char *
weft_compare_view_get_detail (WeftCompareView *self)
{
  g_return_val_if_fail (WEFT_IS_COMPARE_VIEW (self), "");
  return self->detail_text != NULL ? self->detail_text : "";
}

const char *
weft_compare_view_get_chips (WeftCompareView *self)
{
  g_return_val_if_fail (WEFT_IS_COMPARE_VIEW (self), "");
  return self->chips_text != NULL ? self->chips_text : "";
}

guint
weft_compare_view_get_breakdown_rows (WeftCompareView *self)
{
  g_return_val_if_fail (WEFT_IS_COMPARE_VIEW (self), 0);
  return weft_compare_breakdown_get_n_rows (WEFT_COMPARE_BREAKDOWN (self->breakdown));
}
