/* cmd-diff.c: `weft-cli diff A B [--step N] [--json]`: two traces compared
 * (weft-diff.h): analyze's step metrics of both and their difference, per
 * rank, per kernel class and collective type by contribution to the
 * step-time difference, the matched and unmatched ops and the matched ops
 * that moved most. Fields: docs/cli.md, "diff". */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "weft/weft.h"

static double
us (gint64 ns)
{
  return (double) ns / 1000.0;
}

/* One side: its trace and solver. */
typedef struct
{
  const char *path;
  WeftTrace  *trace;
  WeftSolver *solver;
  int         step;
} DiffSide;

typedef struct
{
  DiffSide      side[2];
  WeftDiff     *diff;
  WeftDiffAlign align;
  int           top;
} Diff;

/* A matched op and how it moved (times relative to each side's origin). */
typedef struct
{
  const WeftDiffMatch *m;
  gint64 start_a, start_b, dur_a, dur_b;
} Moved;

static void
diff_clear (Diff *d)
{
  g_clear_pointer (&d->diff, weft_diff_free);
  for (guint i = 0; i < 2; i++)
    {
      g_clear_pointer (&d->side[i].solver, weft_solver_free);
      g_clear_pointer (&d->side[i].trace, weft_trace_free);
    }
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Diff, diff_clear)

static gboolean
parse_step (const char *opt, const char *text, int *step)
{
  char *end = NULL;
  gint64 v;
  if (text == NULL)
    return TRUE;
  v = g_ascii_strtoll (text, &end, 10);
  if (end == text || *end != '\0' || v < 0 || v > G_MAXINT)
    {
      weft_cli_fail ("diff: %s %s: expected a step number (ProfilerStep#N)", opt, text);
      return FALSE;
    }
  *step = (int) v;
  return TRUE;
}

/* ---- figures ------------------------------------------------------------------- */

/* b - a for every number of a that b has with the same type (strings,
 * such as step_time_source, are left out). */
static json_object *
delta_json (json_object *a, json_object *b)
{
  json_object *d = json_object_new_object ();
  json_object_object_foreach (a, key, va)
    {
      json_object *vb = NULL;
      if (!json_object_object_get_ex (b, key, &vb) || json_object_get_type (va) != json_object_get_type (vb))
        continue;
      if (json_object_is_type (va, json_type_int))
        json_object_object_add (d, key, json_object_new_int64 (json_object_get_int64 (vb) - json_object_get_int64 (va)));
      else if (json_object_is_type (va, json_type_double))
        json_object_object_add (d, key, json_object_new_double (json_object_get_double (vb) - json_object_get_double (va)));
    }
  return d;
}

/* analyze's fields of a metrics of a side (with the deltas against the
 * side's trace as loaded, as analyze writes them); NULL when absent. */
static json_object *
side_metrics_json (const DiffSide *s, guint rank_index, const WeftMetrics *m, gboolean has)
{
  WeftMetrics base;
  gboolean have_base;
  if (!has)
    return NULL;
  have_base = weft_solver_baseline_metrics (s->solver, rank_index, s->step, &base);
  return weft_cli_metrics_json (m, have_base ? &base : NULL);
}

static void
add_triple (json_object *o, json_object *a, json_object *b)
{
  json_object_object_add (o, "a", a);
  json_object_object_add (o, "b", b);
  json_object_object_add (o, "delta", a != NULL && b != NULL ? delta_json (a, b) : NULL);
}

static json_object *
group_json (const char *key, const char *name, const WeftSolverGroupTime *a, const WeftSolverGroupTime *b)
{
  json_object *o = json_object_new_object ();
  json_object_object_add (o, key, json_object_new_string (name));
  json_object_object_add (o, "count_a", json_object_new_int ((int) a->count));
  json_object_object_add (o, "count_b", json_object_new_int ((int) b->count));
  json_object_object_add (o, "a_us", json_object_new_double (us (a->total)));
  json_object_object_add (o, "b_us", json_object_new_double (us (b->total)));
  json_object_object_add (o, "delta_us", json_object_new_double (us (b->total - a->total)));
  json_object_object_add (o, "exposed_a_us", json_object_new_double (us (a->exposed)));
  json_object_object_add (o, "exposed_b_us", json_object_new_double (us (b->exposed)));
  json_object_object_add (o, "exposed_delta_us", json_object_new_double (us (b->exposed - a->exposed)));
  return o;
}

/* A rank's collective types and kernel classes (communication as
 * collectives), those present on either side. */
static void
rank_rows_json (json_object *ro, const WeftDiffRank *r)
{
  json_object *colls = json_object_new_array (), *kernels = json_object_new_array ();
  for (guint t = WEFT_COLL_NONE + 1; t < WEFT_COLL_N_TYPES; t++)
    if (r->breakdown_a.coll[t].count || r->breakdown_b.coll[t].count)
      json_object_array_add (colls, group_json ("type", weft_coll_type_to_string ((WeftCollType) t),
                                                &r->breakdown_a.coll[t], &r->breakdown_b.coll[t]));
  for (guint c = WEFT_KCLASS_NONE + 1; c < WEFT_KCLASS_N_CLASSES; c++)
    if (c != WEFT_KCLASS_COMM && (r->breakdown_a.kclass[c].count || r->breakdown_b.kclass[c].count))
      json_object_array_add (kernels, group_json ("class", weft_kernel_class_to_string ((WeftKernelClass) c),
                                                  &r->breakdown_a.kclass[c], &r->breakdown_b.kclass[c]));
  json_object_object_add (ro, "collectives", colls);
  json_object_object_add (ro, "kernels", kernels);
}

static json_object *
ranks_json (const Diff *d)
{
  json_object *arr = json_object_new_array ();
  for (guint i = 0; i < weft_diff_n_ranks (d->diff); i++)
    {
      const WeftDiffRank *r = weft_diff_rank (d->diff, i);
      json_object *o = json_object_new_object ();
      json_object_object_add (o, "rank", json_object_new_int (r->rank));
      add_triple (o, side_metrics_json (&d->side[0], r->rank_index_a, &r->a, r->has_a),
                  side_metrics_json (&d->side[1], r->rank_index_b, &r->b, r->has_b));
      rank_rows_json (o, r);
      json_object_array_add (arr, o);
    }
  return arr;
}

static json_object *
rows_json (const Diff *d, gboolean collectives)
{
  json_object *arr = json_object_new_array ();
  guint n;
  const WeftDiffRow *rows = weft_diff_rows (d->diff, collectives, &n);
  for (guint i = 0; i < n; i++)
    {
      const WeftDiffRow *r = &rows[i];
      json_object *o = json_object_new_object ();
      json_object_object_add (o, collectives ? "type" : "class", json_object_new_string (weft_diff_row_name (r)));
      json_object_object_add (o, "count_a", json_object_new_int ((int) r->a.count));
      json_object_object_add (o, "count_b", json_object_new_int ((int) r->b.count));
      json_object_object_add (o, "a_us", json_object_new_double (us (r->a.total)));
      json_object_object_add (o, "b_us", json_object_new_double (us (r->b.total)));
      json_object_object_add (o, "delta_us", json_object_new_double (us (r->b.total - r->a.total)));
      json_object_object_add (o, "exposed_a_us", json_object_new_double (us (r->a.exposed)));
      json_object_object_add (o, "exposed_b_us", json_object_new_double (us (r->b.exposed)));
      json_object_object_add (o, "exposed_delta_us", json_object_new_double (us (r->b.exposed - r->a.exposed)));
      json_object_object_add (o, "contribution_us", json_object_new_double (us (weft_diff_row_contribution (r))));
      json_object_array_add (arr, o);
    }
  return arr;
}

static json_object *
counts_json (const Diff *d, json_object **unmatched)
{
  WeftDiffCounts c;
  json_object *m = json_object_new_object ();
  json_object *u = json_object_new_object ();
  json_object *ua = json_object_new_object (), *ub = json_object_new_object ();

  weft_diff_counts (d->diff, &c);
  json_object_object_add (m, "kernels", json_object_new_int ((int) c.kernels_matched));
  json_object_object_add (m, "kernels_other_stream", json_object_new_int ((int) c.kernels_other_stream));
  json_object_object_add (m, "collectives", json_object_new_int ((int) c.collectives_matched));
  json_object_object_add (m, "total", json_object_new_int ((int) (c.kernels_matched + c.collectives_matched)));
  json_object_object_add (ua, "kernels", json_object_new_int ((int) c.kernels_a_only));
  json_object_object_add (ua, "collectives", json_object_new_int ((int) c.collectives_a_only));
  json_object_object_add (ua, "total", json_object_new_int ((int) (c.kernels_a_only + c.collectives_a_only)));
  json_object_object_add (ub, "kernels", json_object_new_int ((int) c.kernels_b_only));
  json_object_object_add (ub, "collectives", json_object_new_int ((int) c.collectives_b_only));
  json_object_object_add (ub, "total", json_object_new_int ((int) (c.kernels_b_only + c.collectives_b_only)));
  json_object_object_add (u, "a", ua);
  json_object_object_add (u, "b", ub);
  *unmatched = u;
  return m;
}

static gint64
abs64 (gint64 v)
{
  return v < 0 ? -v : v;
}

static gint
moved_cmp (gconstpointer a, gconstpointer b)
{
  const Moved *x = a, *y = b;
  gint64 mx = abs64 (x->start_b - x->start_a) + abs64 (x->dur_b - x->dur_a);
  gint64 my = abs64 (y->start_b - y->start_a) + abs64 (y->dur_b - y->dur_a);
  if (mx != my)
    return mx > my ? -1 : 1;
  return (x->m > y->m) - (x->m < y->m);
}

/* The matched ops whose start (against each side's origin) or duration
 * differs, most first. */
static GArray *
moved_ops (const Diff *d)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (Moved));
  gint64 oa = weft_diff_origin (d->diff, WEFT_DIFF_A, d->align), ob = weft_diff_origin (d->diff, WEFT_DIFF_B, d->align);
  for (guint i = 0; i < weft_diff_n_matches (d->diff); i++)
    {
      const WeftDiffMatch *m = weft_diff_match (d->diff, i);
      Moved mv;
      gint64 s, e;
      mv.m = m;
      weft_solver_times (d->side[0].solver, m->rank_index_a, m->event_a, &s, &e);
      mv.start_a = s - oa;
      mv.dur_a = e - s;
      weft_solver_times (d->side[1].solver, m->rank_index_b, m->event_b, &s, &e);
      mv.start_b = s - ob;
      mv.dur_b = e - s;
      if (mv.start_a != mv.start_b || mv.dur_a != mv.dur_b)
        g_array_append_val (out, mv);
    }
  g_array_sort (out, moved_cmp);
  return out;
}

static gint64
op_stream (WeftTrace *trace, guint ri, guint32 ev)
{
  WeftRank *rank = weft_trace_rank (trace, ri);
  guint32 lane = weft_rank_event (rank, ev)->lane;
  return lane == WEFT_NONE ? -1 : weft_rank_lane (rank, lane)->tid;
}

static const char *
op_name (WeftTrace *trace, guint ri, guint32 ev)
{
  WeftRank *rank = weft_trace_rank (trace, ri);
  return weft_rank_string (rank, weft_rank_event (rank, ev)->name);
}

static json_object *
moved_json (const Diff *d, GArray *moved)
{
  json_object *arr = json_object_new_array ();
  for (guint i = 0; i < moved->len && i < (guint) d->top; i++)
    {
      const Moved *mv = &g_array_index (moved, Moved, i);
      const WeftDiffMatch *m = mv->m;
      json_object *o = json_object_new_object ();
      json_object_object_add (o, "rank", json_object_new_int (weft_trace_rank (d->side[0].trace, m->rank_index_a)->rank));
      json_object_object_add (o, "match", json_object_new_string (weft_diff_match_kind_to_string (m->kind)));
      json_object_object_add (o, "name", json_object_new_string (op_name (d->side[0].trace, m->rank_index_a, m->event_a)));
      json_object_object_add (o, "event_a", json_object_new_int64 (m->event_a));
      json_object_object_add (o, "event_b", json_object_new_int64 (m->event_b));
      json_object_object_add (o, "stream_a", json_object_new_int64 (op_stream (d->side[0].trace, m->rank_index_a, m->event_a)));
      json_object_object_add (o, "stream_b", json_object_new_int64 (op_stream (d->side[1].trace, m->rank_index_b, m->event_b)));
      json_object_object_add (o, "start_a_us", json_object_new_double (us (mv->start_a)));
      json_object_object_add (o, "start_b_us", json_object_new_double (us (mv->start_b)));
      json_object_object_add (o, "delta_start_us", json_object_new_double (us (mv->start_b - mv->start_a)));
      json_object_object_add (o, "duration_a_us", json_object_new_double (us (mv->dur_a)));
      json_object_object_add (o, "duration_b_us", json_object_new_double (us (mv->dur_b)));
      json_object_object_add (o, "delta_duration_us", json_object_new_double (us (mv->dur_b - mv->dur_a)));
      json_object_array_add (arr, o);
    }
  return arr;
}

/* The first ops (by rank, then start) of a side with no counterpart. */
static json_object *
only_json (const Diff *d, WeftDiffSide side)
{
  const DiffSide *s = &d->side[side];
  json_object *arr = json_object_new_array ();
  gint64 origin = weft_diff_origin (d->diff, side, d->align);
  guint listed = 0;
  for (guint r = 0; r < s->trace->ranks->len && listed < (guint) d->top; r++)
    {
      WeftRank *rank = weft_trace_rank (s->trace, r);
      for (guint32 e = 0; e < rank->events->len && listed < (guint) d->top; e++)
        {
          json_object *o;
          const WeftEvent *ev = weft_rank_event (rank, e);
          if (!weft_diff_is_compared (d->diff, side, r, e) || weft_diff_counterpart (d->diff, side, r, e, NULL, NULL, NULL))
            continue;
          o = json_object_new_object ();
          json_object_object_add (o, "rank", json_object_new_int (rank->rank));
          json_object_object_add (o, "event", json_object_new_int64 (e));
          json_object_object_add (o, "name", json_object_new_string (weft_rank_string (rank, ev->name)));
          json_object_object_add (o, "stream", json_object_new_int64 (op_stream (s->trace, r, e)));
          if (weft_event_coll (rank, ev) != WEFT_NONE && weft_event_coll (rank, ev) < rank->collectives->len)
            json_object_object_add (o, "collective", json_object_new_string (weft_coll_type_to_string (
                                                       g_array_index (rank->collectives, WeftCollective, weft_event_coll (rank, ev)).type)));
          json_object_object_add (o, "start_us", json_object_new_double (us (weft_solver_start (s->solver, r, e) - origin)));
          json_object_array_add (arr, o);
          listed++;
        }
    }
  return arr;
}

static json_object *
step_json (int step)
{
  return step == WEFT_SOLVER_ALL_STEPS ? NULL : json_object_new_int (step);
}

static gboolean
print_json (const Diff *d)
{
  json_object *doc = weft_cli_json_new ();
  json_object *paths = json_object_new_object (), *steps = json_object_new_object (), *unmatched = NULL;
  WeftMetrics ma, mb;
  gboolean ha = weft_diff_whole (d->diff, WEFT_DIFF_A, &ma), hb = weft_diff_whole (d->diff, WEFT_DIFF_B, &mb);
  g_autofree char *summary = weft_diff_summary (d->diff);
  GArray *moved = moved_ops (d);

  json_object_object_add (paths, "a", json_object_new_string (d->side[0].path));
  json_object_object_add (paths, "b", json_object_new_string (d->side[1].path));
  json_object_object_add (doc, "paths", paths);
  json_object_object_add (steps, "a", step_json (d->side[0].step));
  json_object_object_add (steps, "b", step_json (d->side[1].step));
  json_object_object_add (doc, "steps", steps);
  json_object_object_add (doc, "align", json_object_new_string (weft_diff_align_to_string (d->align)));
  json_object_object_add (doc, "summary", json_object_new_string (summary));
  add_triple (doc, side_metrics_json (&d->side[0], WEFT_SOLVER_ALL_RANKS, &ma, ha),
              side_metrics_json (&d->side[1], WEFT_SOLVER_ALL_RANKS, &mb, hb));
  json_object_object_add (doc, "ranks", ranks_json (d));
  json_object_object_add (doc, "kernels", rows_json (d, FALSE));
  json_object_object_add (doc, "collectives", rows_json (d, TRUE));
  json_object_object_add (doc, "matched", counts_json (d, &unmatched));
  json_object_object_add (doc, "unmatched", unmatched);
  json_object_object_add (doc, "changed_ops", moved_json (d, moved));
  json_object_object_add (doc, "only_a", only_json (d, WEFT_DIFF_A));
  json_object_object_add (doc, "only_b", only_json (d, WEFT_DIFF_B));
  g_array_unref (moved);
  return weft_cli_json_print (doc);
}

/* ---- the text report --------------------------------------------------------------- */

static void
print_field (const char *label, double a, double b, const char *unit)
{
  printf ("  %-26s %14.1f %14.1f %+14.1f %s\n", label, a, b, b - a, unit);
}

static void
print_text_whole (const Diff *d)
{
  WeftMetrics a, b;
  memset (&a, 0, sizeof a);
  memset (&b, 0, sizeof b);
  weft_diff_whole (d->diff, WEFT_DIFF_A, &a);
  weft_diff_whole (d->diff, WEFT_DIFF_B, &b);
  printf ("\n  %-26s %14s %14s %14s\n", "whole step (mean over ranks)", "A", "B", "B - A");
  print_field ("step time", us (a.step_time), us (b.step_time), "us");
  print_field ("GPU span", us (a.gpu_span), us (b.gpu_span), "us");
  print_field ("compute", us (a.compute), us (b.compute), "us");
  print_field ("communication", us (a.comm), us (b.comm), "us");
  print_field ("overlapped", us (a.overlapped), us (b.overlapped), "us");
  print_field ("exposed communication", us (a.exposed_comm), us (b.exposed_comm), "us");
  print_field ("overlap", a.overlap_pct, b.overlap_pct, "%");
  print_field ("idle", us (a.idle), us (b.idle), "us");
  print_field ("critical path", us (a.cp_length), us (b.cp_length), "us");
  print_field ("critical path: compute", us (a.cp_compute), us (b.cp_compute), "us");
  print_field ("critical path: comm", us (a.cp_comm), us (b.cp_comm), "us");
  print_field ("critical path: launch/CPU", us (a.cp_launch), us (b.cp_launch), "us");
  print_field ("critical path: waiting", us (a.cp_wait), us (b.cp_wait), "us");
}

static void
print_text_ranks (const Diff *d)
{
  printf ("\n  %-8s %12s %12s %12s %14s %14s %14s\n", "rank", "step A", "step B", "B - A", "exposed A", "exposed B",
          "B - A");
  for (guint i = 0; i < weft_diff_n_ranks (d->diff); i++)
    {
      const WeftDiffRank *r = weft_diff_rank (d->diff, i);
      if (!r->has_a || !r->has_b)
        {
          printf ("  %-8d only in %s\n", r->rank, r->has_a ? "A" : "B");
          continue;
        }
      printf ("  %-8d %12.1f %12.1f %+12.1f %14.1f %14.1f %+14.1f\n", r->rank, us (r->a.step_time),
              us (r->b.step_time), us (r->b.step_time - r->a.step_time), us (r->a.exposed_comm),
              us (r->b.exposed_comm), us (r->b.exposed_comm - r->a.exposed_comm));
    }
}

static void
print_text_rows (const Diff *d, gboolean collectives)
{
  guint n;
  const WeftDiffRow *rows = weft_diff_rows (d->diff, collectives, &n);
  if (n == 0)
    return;
  printf ("\n  %-16s %8s %8s %12s %12s %12s %12s %12s %12s\n", collectives ? "collective" : "kernel class",
          "count A", "count B", "time A", "time B", "B - A", "exposed A", "exposed B", "B - A");
  for (guint i = 0; i < n; i++)
    printf ("  %-16s %8u %8u %12.1f %12.1f %+12.1f %12.1f %12.1f %+12.1f\n", weft_diff_row_name (&rows[i]),
            rows[i].a.count, rows[i].b.count, us (rows[i].a.total), us (rows[i].b.total),
            us (rows[i].b.total - rows[i].a.total), us (rows[i].a.exposed), us (rows[i].b.exposed),
            us (rows[i].b.exposed - rows[i].a.exposed));
}

static void
print_text_matches (const Diff *d)
{
  WeftDiffCounts c;
  GArray *moved = moved_ops (d);
  weft_diff_counts (d->diff, &c);
  printf ("\nmatched: %u kernels (%u on another stream), %u collectives; only in A: %u kernels, %u collectives; "
          "only in B: %u kernels, %u collectives\n",
          c.kernels_matched, c.kernels_other_stream, c.collectives_matched, c.kernels_a_only, c.collectives_a_only,
          c.kernels_b_only, c.collectives_b_only);
  if (moved->len > 0)
    printf ("Matched ops that moved most (us; starts from each side's origin, --align %s):\n",
            weft_diff_align_to_string (d->align));
  for (guint i = 0; i < moved->len && i < (guint) d->top; i++)
    {
      const Moved *mv = &g_array_index (moved, Moved, i);
      const WeftDiffMatch *m = mv->m;
      printf ("  rank %d  stream %" G_GINT64_FORMAT "->%" G_GINT64_FORMAT "  start %+.1f  duration %+.1f  %.80s\n",
              weft_trace_rank (d->side[0].trace, m->rank_index_a)->rank,
              op_stream (d->side[0].trace, m->rank_index_a, m->event_a),
              op_stream (d->side[1].trace, m->rank_index_b, m->event_b), us (mv->start_b - mv->start_a),
              us (mv->dur_b - mv->dur_a), op_name (d->side[0].trace, m->rank_index_a, m->event_a));
    }
  g_array_unref (moved);
}

static void
print_text (const Diff *d)
{
  g_autofree char *summary = weft_diff_summary (d->diff);
  printf ("A: %s", d->side[0].path);
  if (d->side[0].step != WEFT_SOLVER_ALL_STEPS)
    printf (" (ProfilerStep#%d)", d->side[0].step);
  printf ("\nB: %s", d->side[1].path);
  if (d->side[1].step != WEFT_SOLVER_ALL_STEPS)
    printf (" (ProfilerStep#%d)", d->side[1].step);
  printf ("\n%s\n", summary);
  print_text_whole (d);
  print_text_ranks (d);
  print_text_rows (d, TRUE);
  print_text_rows (d, FALSE);
  print_text_matches (d);
}

/* ---- the command ----------------------------------------------------------------------- */

static int
load_side (DiffSide *s, const char *path, int step, gboolean no_offsets, gint64 max_bytes)
{
  g_autoptr (GError) error = NULL;
  s->path = path;
  s->step = step;
  s->trace = weft_cli_load_trace (path, (guint64) max_bytes, &error);
  if (s->trace == NULL)
    return weft_cli_fail ("%s", error->message);
  if (no_offsets)
    s->trace->apply_clock_offsets = FALSE;
  s->solver = weft_solver_new (s->trace, &error);
  if (s->solver == NULL)
    return weft_cli_fail ("%s: %s", path, error->message);
  return WEFT_EXIT_OK;
}

int
weft_cmd_diff (int argc, char **argv)
{
  gboolean as_json = FALSE, no_offsets = FALSE;
  gint64 max_bytes = 0;
  int step_a = WEFT_SOLVER_ALL_STEPS, step_b;
  g_autofree char *step_text = NULL, *step_b_text = NULL, *align_text = NULL;
  int top = 10, rc;
  GOptionEntry entries[] = {
    { "step", 's', 0, G_OPTION_ARG_STRING, &step_text, "Compare ProfilerStep#N (default: the whole traces)", "N" },
    { "step-b", 0, 0, G_OPTION_ARG_STRING, &step_b_text, "B's step, when it is another number than A's", "M" },
    { "json", 'j', 0, G_OPTION_ARG_NONE, &as_json, "Print a JSON document (fields in docs/cli.md)", NULL },
    { "align", 0, 0, G_OPTION_ARG_STRING, &align_text,
      "Where op starts are measured from: step (default), first-collective or absolute", "MODE" },
    { "top", 0, 0, G_OPTION_ARG_INT, &top, "How many moved and one-side-only ops to list (default 10)", "K" },
    { "no-clock-offsets", 0, 0, G_OPTION_ARG_NONE, &no_offsets, "Do not apply the estimated clock offsets", NULL },
    { "max-json-bytes", 0, 0, G_OPTION_ARG_INT64, &max_bytes,
      "Cap on the decompressed JSON bytes per file (default 16 GiB; env WEFT_MAX_JSON_BYTES)", "BYTES" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("A B - compare two traces (B against A)");
  g_autoptr (GError) error = NULL;
  g_auto (Diff) d = { 0 };

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_description (ctx, "A and B are trace files (.json, .json.gz, .json.zst) or folders of them.\n"
                                         "Ranks are paired by number; deltas are B - A.\n\n"
                                         "Exit status: 0 success, 2 bad input (the message names the file and\n"
                                         "byte offset) or bad usage.");
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return weft_cli_fail ("diff: %s", error->message);
  if (argc != 3)
    return weft_cli_fail ("diff: expected two traces A B (see weft-cli diff --help)");
  if (!parse_step ("--step", step_text, &step_a))
    return WEFT_EXIT_BAD_INPUT;
  step_b = step_a;
  if (!parse_step ("--step-b", step_b_text, &step_b))
    return WEFT_EXIT_BAD_INPUT;
  if (step_b_text != NULL && step_text == NULL)
    return weft_cli_fail ("diff: --step-b needs --step (A's step)");
  d.align = WEFT_DIFF_ALIGN_STEP;
  if (align_text != NULL && !weft_diff_align_from_string (align_text, &d.align))
    return weft_cli_fail ("diff: --align %s: expected step, first-collective or absolute", align_text);
  if (top < 0)
    return weft_cli_fail ("diff: --top must not be negative");
  if (max_bytes < 0)
    return weft_cli_fail ("diff: --max-json-bytes must be positive");
  d.top = top;

  if ((rc = load_side (&d.side[0], argv[1], step_a, no_offsets, max_bytes)) != WEFT_EXIT_OK ||
      (rc = load_side (&d.side[1], argv[2], step_b, no_offsets, max_bytes)) != WEFT_EXIT_OK)
    return rc;
  d.diff = weft_diff_new (d.side[0].solver, step_a, d.side[1].solver, step_b, &error);
  if (d.diff == NULL)
    return weft_cli_fail ("diff: %s (%s)", error->message,
                          g_str_has_prefix (error->message, "A") ? argv[1] : argv[2]);
  if (as_json)
    {
      if (!print_json (&d))
        return WEFT_EXIT_FAILURE;
    }
  else
    print_text (&d);
  if (fflush (stdout) != 0)
    return WEFT_EXIT_FAILURE;
  return WEFT_EXIT_OK;
}
