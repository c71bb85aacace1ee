/* cmd-analyze.c: `weft-cli analyze PATH [--step N] [--json]`: the solver's
 * metrics of a trace as loaded (per rank and whole), the critical path across
 * ranks with its composition and longest ops, and the collectives with the
 * most waiting with each instance's last-arriving rank. Definitions and the
 * --json fields: docs/solver.md. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "weft/weft.h"

#define OVERLAP_DEF "overlap % = overlapped / communication time (HTA's definition)"
#define STEP_DEF                                                                                                   \
  "step time = the ProfilerStep#N span on the rank's CPU thread (re-timed after edits; whole trace: the longest "   \
  "rank), else (no ProfilerStep, or the whole trace) the GPU span; step_time_source says which"
#define MEMORY_DEF                                                                                         \
  "GiB; largest \"Total Reserved\" (peak_allocated: \"Total Allocated\") of the rank's CUDA [memory] events "   \
  "over the whole trace (the caching allocator's totals; present only when the trace has them)"
#define GPU_SPAN_DEF "GPU span = first GPU op start to last GPU op end of the ops launched in the step (all ranks)"
#define BUBBLE_DEF                                                                                               \
  "pipeline bubble = idle time of the rank's compute stream within the step before an op waiting (its binding) for "  \
  "a P2P transfer or a collective spanning pipeline stages; bubble_pct = 100 x bubble_us / step_time_us; whole "    \
  "trace: mean over the pipeline ranks; present only for ranks with P2P peers"
#define COMPUTE_DEF                                                                                                \
  "compute = kernels other than communication; memcpy/memset are neither (HTA), see memcpy_memset_us"

static double
us (gint64 ns)
{
  return (double) ns / 1000.0;
}

static const char *
cp_kind_name (WeftPathKind k)
{
  switch (k)
    {
    case WEFT_PATH_COMPUTE: return "compute";
    case WEFT_PATH_COMM: return "communication";
    case WEFT_PATH_LAUNCH: return "launch/CPU";
    case WEFT_PATH_INFERRED: return "inferred";
    case WEFT_PATH_WAIT:
    default: return "waiting";
    }
}

static void
print_metrics_row (const char *label, const WeftMetrics *m)
{
  printf ("  %-10s %12.1f %12.1f %12.1f %12.1f %12.1f %12.1f %12.1f %8.1f %12.1f\n", label, us (m->step_time),
          us (m->gpu_span), us (m->compute_only), us (m->overlapped), us (m->comm_only), us (m->memcpy_memset),
          us (m->idle), m->overlap_pct, us (m->exposed_comm));
}

typedef struct
{
  guint32 instance;
  WeftSolverInstanceInfo info;
} InstRow;

static gint
inst_row_cmp (gconstpointer a, gconstpointer b)
{
  const InstRow *x = a, *y = b;
  if (x->info.total_wait != y->info.total_wait)
    return x->info.total_wait > y->info.total_wait ? -1 : 1;
  return (x->instance > y->instance) - (x->instance < y->instance);
}

static gint
seg_len_cmp (gconstpointer a, gconstpointer b)
{
  const WeftPathSegment *x = a, *y = b;
  gint64 dx = x->end - x->begin, dy = y->end - y->begin;
  return (dx < dy) - (dx > dy);
}

static const char *
event_name (WeftTrace *trace, guint ri, guint32 ev)
{
  WeftRank *rank = weft_trace_rank (trace, ri);
  if (ev >= rank->events->len)
    return "";
  return weft_rank_string (rank, weft_rank_event (rank, ev)->name);
}

static gint64
event_stream (WeftTrace *trace, guint ri, guint32 ev)
{
  WeftRank *rank = weft_trace_rank (trace, ri);
  guint32 lane;
  if (ev >= rank->events->len)
    return -1;
  lane = weft_rank_event (rank, ev)->lane;
  return lane == WEFT_NONE ? -1 : weft_rank_lane (rank, lane)->tid;
}

/* What one run of analyze reports: the trace, its solver, the step and the
 * rows gathered for both the JSON document and the text report. */
typedef struct
{
  const char *path;
  WeftTrace  *trace;
  WeftSolver *solver;
  int         step;
  int         top;
  GArray     *steps; /* int: the trace's ProfilerStep numbers */
  GArray     *cp;    /* WeftPathSegment: the critical path */
  GArray     *ops;   /* WeftPathSegment: its ops, longest first */
  GArray     *rows;  /* InstRow: the step's collectives, most waiting first */
  WeftMetrics whole, base;
  gboolean    have_base;
} Analysis;

/* --step N: FALSE (after the message) for anything but a step number. */
static gboolean
parse_step (const char *text, int *step)
{
  char *end = NULL;
  gint64 v = g_ascii_strtoll (text, &end, 10);
  if (end == text || *end != '\0' || v < 0 || v > G_MAXINT)
    {
      weft_cli_fail ("analyze: --step %s: expected a step number (ProfilerStep#N)", text);
      return FALSE;
    }
  *step = (int) v;
  return TRUE;
}

/* FALSE (after the message) when the trace has no ProfilerStep#a->step. */
static gboolean
check_step (const Analysis *a)
{
  gboolean found = FALSE;
  GString *list;

  if (a->step == WEFT_SOLVER_ALL_STEPS)
    return TRUE;
  for (guint i = 0; i < a->steps->len; i++)
    found = found || g_array_index (a->steps, int, i) == a->step;
  if (found)
    return TRUE;
  list = g_string_new (NULL);
  for (guint i = 0; i < a->steps->len; i++)
    g_string_append_printf (list, "%s%d", i ? ", " : "", g_array_index (a->steps, int, i));
  weft_cli_fail ("analyze: %s: no ProfilerStep#%d (steps: %s)", a->path, a->step,
                 a->steps->len ? list->str : "none");
  g_string_free (list, TRUE);
  return FALSE;
}

/* The whole trace's metrics, the critical path's longest ops and the
 * collectives of the step (their end inside the step's span). */
static void
analysis_gather (Analysis *a)
{
  if (!weft_solver_metrics (a->solver, WEFT_SOLVER_ALL_RANKS, a->step, &a->whole))
    memset (&a->whole, 0, sizeof a->whole);
  a->have_base = weft_solver_baseline_metrics (a->solver, WEFT_SOLVER_ALL_RANKS, a->step, &a->base);

  /* critical path: longest ops */
  a->cp = weft_solver_critical_path (a->solver, a->step);
  a->ops = g_array_new (FALSE, FALSE, sizeof (WeftPathSegment));
  for (guint i = 0; i < a->cp->len; i++)
    {
      const WeftPathSegment *s = &g_array_index (a->cp, WeftPathSegment, i);
      if (s->kind == WEFT_PATH_COMPUTE || s->kind == WEFT_PATH_COMM)
        g_array_append_val (a->ops, *s);
    }
  g_array_sort (a->ops, seg_len_cmp);

  /* collectives of the step (their end inside the step's span), most waiting first */
  a->rows = g_array_new (FALSE, FALSE, sizeof (InstRow));
  for (guint32 i = 0; i < a->trace->instances->len; i++)
    {
      InstRow row;
      row.instance = i;
      if (!weft_solver_instance_info (a->solver, i, &row.info, NULL, 0))
        continue;
      if (a->step != WEFT_SOLVER_ALL_STEPS && (row.info.end < a->whole.begin || row.info.end > a->whole.end))
        continue;
      g_array_append_val (a->rows, row);
    }
  g_array_sort (a->rows, inst_row_cmp);
}

/* ---- the JSON document ---------------------------------------------------------- */

static json_object *
definitions_json (void)
{
  json_object *defs = json_object_new_object ();
  json_object_object_add (defs, "overlap", json_object_new_string (OVERLAP_DEF));
  json_object_object_add (defs, "times", json_object_new_string ("microseconds; per-rank GPU time within the step, "
                                                                  "whole trace: mean over ranks"));
  json_object_object_add (defs, "step_time", json_object_new_string (STEP_DEF));
  json_object_object_add (defs, "gpu_span", json_object_new_string (GPU_SPAN_DEF));
  json_object_object_add (defs, "peak_memory", json_object_new_string (MEMORY_DEF));
  json_object_object_add (defs, "compute", json_object_new_string (COMPUTE_DEF));
  json_object_object_add (defs, "bubble", json_object_new_string (BUBBLE_DEF));
  return defs;
}

static json_object *
graph_json (WeftSolver *solver)
{
  WeftSolverStats st;
  json_object *g = json_object_new_object ();
  weft_solver_stats (solver, &st);
  json_object_object_add (g, "gpu_ops", json_object_new_int ((int) st.n_ops));
  json_object_object_add (g, "launched_ops", json_object_new_int ((int) st.n_launch));
  json_object_object_add (g, "cpu_syncs", json_object_new_int ((int) st.n_syncs));
  json_object_object_add (g, "collective_instances", json_object_new_int ((int) st.n_instances));
  json_object_object_add (g, "cross_stream_edges", json_object_new_int ((int) st.n_cross_stream));
  json_object_object_add (g, "sync_edges", json_object_new_int ((int) st.n_sync_edges));
  json_object_object_add (g, "inferred_edges_contradicted", json_object_new_int ((int) st.n_inferred_dropped));
  json_object_object_add (g, "edges_dropped_for_cycles", json_object_new_int ((int) st.n_build_cycle_edges));
  json_object_object_add (g, "instances_dissolved", json_object_new_int ((int) st.n_instances_dissolved));
  json_object_object_add (g, "instances_late_member", json_object_new_int ((int) st.n_instances_late));
  json_object_object_add (g, "stream_overlaps", json_object_new_int ((int) st.n_stream_overlaps));
  json_object_object_add (g, "unexplained_starts", json_object_new_int ((int) st.n_unexplained));
  return g;
}

#define GIB(x) ((double) (x) / (1024.0 * 1024.0 * 1024.0))

/* peak_memory_gib / peak_allocated_gib of a rank's [memory] events, when it
 * has some; FALSE otherwise. */
static gboolean
memory_json (json_object *o, const WeftRank *rank)
{
  WeftMemoryPeak mp;

  if (!weft_rank_memory_peak (rank, G_MININT64, G_MAXINT64, &mp))
    return FALSE;
  json_object_object_add (o, "peak_memory_gib", json_object_new_double (GIB (mp.peak_reserved)));
  json_object_object_add (o, "peak_allocated_gib", json_object_new_double (GIB (mp.peak_allocated)));
  json_object_object_add (o, "memory_events", json_object_new_int ((int) mp.n_events));
  return TRUE;
}

/* The largest over the ranks, at the top level. */
static void
memory_max_json (json_object *doc, WeftTrace *trace)
{
  gint64 reserved = -1, allocated = 0;
  int peak_rank = -1;

  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftMemoryPeak mp;
      if (!weft_rank_memory_peak (weft_trace_rank (trace, r), G_MININT64, G_MAXINT64, &mp))
        continue;
      if (mp.peak_reserved > reserved)
        {
          reserved = mp.peak_reserved;
          peak_rank = weft_trace_rank (trace, r)->rank;
        }
      allocated = MAX (allocated, mp.peak_allocated);
    }
  if (peak_rank < 0 && reserved < 0)
    return;
  json_object_object_add (doc, "peak_memory_gib", json_object_new_double (GIB (reserved)));
  json_object_object_add (doc, "peak_allocated_gib", json_object_new_double (GIB (allocated)));
  json_object_object_add (doc, "peak_memory_rank", json_object_new_int (peak_rank));
}

/* bubble_us / bubble_pct of a pipeline rank; FALSE for another rank. */
static gboolean
bubble_json (json_object *o, const Analysis *a, guint r, WeftBubble *b)
{
  if (!weft_solver_pipeline_bubble (a->solver, r, a->step, b))
    return FALSE;
  json_object_object_add (o, "bubble_us", json_object_new_double (us (b->bubble)));
  json_object_object_add (o, "bubble_pct", json_object_new_double (b->bubble_pct));
  return TRUE;
}

/* The mean over the pipeline ranks, into the whole trace's object. */
static void
bubble_whole_json (json_object *whole, const Analysis *a)
{
  double sum_us = 0, sum_pct = 0;
  guint n = 0;

  for (guint r = 0; r < a->trace->ranks->len; r++)
    {
      WeftBubble b;
      if (!weft_solver_pipeline_bubble (a->solver, r, a->step, &b))
        continue;
      sum_us += us (b.bubble);
      sum_pct += b.bubble_pct;
      n++;
    }
  if (n == 0)
    return;
  json_object_object_add (whole, "bubble_us", json_object_new_double (sum_us / n));
  json_object_object_add (whole, "bubble_pct", json_object_new_double (sum_pct / n));
}

static json_object *
ranks_json (const Analysis *a)
{
  json_object *ranks = json_object_new_array ();
  for (guint r = 0; r < a->trace->ranks->len; r++)
    {
      WeftMetrics m, b;
      json_object *ro;
      if (!weft_solver_metrics (a->solver, r, a->step, &m))
        continue;
      ro = weft_cli_metrics_json (&m, weft_solver_baseline_metrics (a->solver, r, a->step, &b) ? &b : NULL);
      json_object_object_add (ro, "rank", json_object_new_int (weft_trace_rank (a->trace, r)->rank));
      memory_json (ro, weft_trace_rank (a->trace, r));
      {
        WeftBubble bub;
        bubble_json (ro, a, r, &bub);
      }
      json_object_array_add (ranks, ro);
    }
  return ranks;
}

/* The edges the path goes through that no recorded edge gives. */
static json_object *
inferred_edges_json (const Analysis *a)
{
  WeftTrace *trace = a->trace;
  json_object *inf = json_object_new_array ();
  for (guint i = 0; i < a->cp->len; i++)
    {
      const WeftPathSegment *s = &g_array_index (a->cp, WeftPathSegment, i);
      json_object *o;
      if (s->via != WEFT_DEP_INFERRED)
        continue;
      o = json_object_new_object ();
      json_object_object_add (o, "rank", json_object_new_int (weft_trace_rank (trace, s->rank_index)->rank));
      json_object_object_add (o, "event", json_object_new_int64 (s->event));
      json_object_object_add (o, "name", json_object_new_string (event_name (trace, s->rank_index, s->event)));
      json_object_object_add (o, "kind", json_object_new_string (cp_kind_name (s->kind)));
      if (s->pred_event != WEFT_NONE)
        {
          json_object_object_add (o, "after_event", json_object_new_int64 (s->pred_event));
          json_object_object_add (o, "after_name",
                                  json_object_new_string (event_name (trace, s->pred_rank_index, s->pred_event)));
        }
      else
        json_object_object_add (o, "after", json_object_new_string ("its late CPU launch"));
      json_object_object_add (o, "begin_ns", json_object_new_int64 (s->begin));
      json_object_object_add (o, "gap_us", json_object_new_double (us (s->end - s->begin)));
      json_object_array_add (inf, o);
    }
  return inf;
}

static json_object *
critical_path_json (const Analysis *a)
{
  WeftTrace *trace = a->trace;
  const WeftMetrics *whole = &a->whole;
  json_object *cpo = json_object_new_object ();
  json_object *longest = json_object_new_array ();

  json_object_object_add (cpo, "length_us", json_object_new_double (us (whole->cp_length)));
  json_object_object_add (cpo, "compute_us", json_object_new_double (us (whole->cp_compute)));
  json_object_object_add (cpo, "communication_us", json_object_new_double (us (whole->cp_comm)));
  json_object_object_add (cpo, "launch_us", json_object_new_double (us (whole->cp_launch)));
  json_object_object_add (cpo, "waiting_us", json_object_new_double (us (whole->cp_wait)));
  json_object_object_add (cpo, "inferred_us", json_object_new_double (us (whole->cp_inferred)));
  json_object_object_add (cpo, "n_ops", json_object_new_int ((int) whole->cp_n_ops));
  for (guint i = 0; i < a->ops->len && i < (guint) a->top; i++)
    {
      const WeftPathSegment *s = &g_array_index (a->ops, WeftPathSegment, i);
      json_object *o = json_object_new_object ();
      json_object_object_add (o, "rank", json_object_new_int (weft_trace_rank (trace, s->rank_index)->rank));
      json_object_object_add (o, "event", json_object_new_int64 (s->event));
      json_object_object_add (o, "stream", json_object_new_int64 (event_stream (trace, s->rank_index, s->event)));
      json_object_object_add (o, "name", json_object_new_string (event_name (trace, s->rank_index, s->event)));
      json_object_object_add (o, "kind", json_object_new_string (cp_kind_name (s->kind)));
      json_object_object_add (o, "bound_by", json_object_new_string (weft_dep_kind_to_string (s->via)));
      json_object_object_add (o, "begin_ns", json_object_new_int64 (s->begin));
      json_object_object_add (o, "duration_us", json_object_new_double (us (s->end - s->begin)));
      json_object_array_add (longest, o);
    }
  json_object_object_add (cpo, "longest_ops", longest);
  json_object_object_add (cpo, "inferred_edges", inferred_edges_json (a));
  return cpo;
}

static json_object *
collective_json (const Analysis *a, const InstRow *row)
{
  WeftTrace *trace = a->trace;
  json_object *o = json_object_new_object ();
  json_object *arr = json_object_new_array ();
  WeftSolverArrival *arrivals = g_new (WeftSolverArrival, row->info.n_members);
  guint n = row->info.n_members;
  weft_solver_instance_info (a->solver, row->instance, NULL, arrivals, n);
  json_object_object_add (o, "instance", json_object_new_int64 (row->instance));
  json_object_object_add (o, "type", json_object_new_string (weft_coll_type_to_string (row->info.type)));
  json_object_object_add (o, "members", json_object_new_int ((int) n));
  json_object_object_add (o, "transfer_us", json_object_new_double (us (row->info.transfer)));
  json_object_object_add (o, "end_ns", json_object_new_int64 (row->info.end));
  json_object_object_add (o, "total_wait_us", json_object_new_double (us (row->info.total_wait)));
  json_object_object_add (o, "max_wait_us", json_object_new_double (us (row->info.max_wait)));
  json_object_object_add (o, "last_arriving_rank",
                          json_object_new_int (weft_trace_rank (trace, row->info.last_rank_index)->rank));
  for (guint k = 0; k < n; k++)
    {
      json_object *ao = json_object_new_object ();
      json_object_object_add (ao, "rank", json_object_new_int (weft_trace_rank (trace, arrivals[k].rank_index)->rank));
      json_object_object_add (ao, "arrival_ns", json_object_new_int64 (arrivals[k].arrival));
      json_object_object_add (ao, "wait_us", json_object_new_double (us (arrivals[k].wait)));
      json_object_object_add (ao, "end_ns", json_object_new_int64 (arrivals[k].end));
      json_object_array_add (arr, ao);
    }
  g_free (arrivals);
  json_object_object_add (o, "arrivals", arr);
  return o;
}

static void
print_json (const Analysis *a)
{
  json_object *doc = weft_cli_json_new ();
  json_object *sa = json_object_new_array ();
  json_object *colls = json_object_new_array ();

  json_object_object_add (doc, "path", json_object_new_string (a->path));
  json_object_object_add (doc, "step", a->step == WEFT_SOLVER_ALL_STEPS ? NULL : json_object_new_int (a->step));
  for (guint i = 0; i < a->steps->len; i++)
    json_object_array_add (sa, json_object_new_int (g_array_index (a->steps, int, i)));
  json_object_object_add (doc, "steps", sa);
  json_object_object_add (doc, "definitions", definitions_json ());
  {
    json_object *whole = weft_cli_metrics_json (&a->whole, a->have_base ? &a->base : NULL);
    bubble_whole_json (whole, a);
    json_object_object_add (doc, "whole", whole);
  }
  json_object_object_add (doc, "graph", graph_json (a->solver));
  memory_max_json (doc, a->trace);
  json_object_object_add (doc, "ranks", ranks_json (a));
  json_object_object_add (doc, "critical_path", critical_path_json (a));
  for (guint i = 0; i < a->rows->len; i++)
    json_object_array_add (colls, collective_json (a, &g_array_index (a->rows, InstRow, i)));
  json_object_object_add (doc, "collectives", colls);
  weft_cli_json_print (doc);
}

/* ---- the text report ------------------------------------------------------------ */

static void
print_text_header (const Analysis *a)
{
  WeftSolverStats st;

  if (a->step == WEFT_SOLVER_ALL_STEPS)
    printf ("%s: %u rank(s), whole trace", a->path, a->trace->ranks->len);
  else
    printf ("%s: %u rank(s), ProfilerStep#%d", a->path, a->trace->ranks->len, a->step);
  if (a->steps->len > 0)
    {
      printf (" (steps:");
      for (guint i = 0; i < a->steps->len; i++)
        printf (" %d", g_array_index (a->steps, int, i));
      printf ("; --step N for one)");
    }
  printf ("\n");
  weft_solver_stats (a->solver, &st);
  printf ("graph: %u GPU ops (%u launched), %u CPU syncs, %u collective instances, %u cross-stream edges",
          st.n_ops, st.n_launch, st.n_syncs, st.n_instances, st.n_cross_stream);
  if (st.n_inferred_dropped || st.n_build_cycle_edges || st.n_instances_dissolved || st.n_stream_overlaps ||
      st.n_unexplained)
    printf ("; model breaks: %u inferred edges contradicted by the trace, %u dropped for cycles, %u instances "
            "dissolved, %u ops overlapping on a stream, %u ops starting > 50 us after anything explains",
            st.n_inferred_dropped, st.n_build_cycle_edges, st.n_instances_dissolved, st.n_stream_overlaps,
            st.n_unexplained);
  printf ("\n");
}

static void
print_text_metrics (const Analysis *a)
{
  printf ("%s; times in us, per rank GPU time within the step, 'all' = mean over ranks\n", OVERLAP_DEF);
  printf ("step time: %s (here: %s); %s\n%s\n\n",
          a->whole.step_source == WEFT_STEP_TIME_PROFILER_STEP ? "the ProfilerStep span, 'all' = the longest rank"
                                                               : "the GPU span (no ProfilerStep)",
          weft_step_time_source_to_string (a->whole.step_source), GPU_SPAN_DEF, COMPUTE_DEF);
  printf ("  %-10s %12s %12s %12s %12s %12s %12s %12s %8s %12s\n", "", "step time", "gpu span", "compute-only",
          "overlapped", "comm-only", "memcpy/set", "idle", "overlap%", "exposed comm");
  print_metrics_row ("all", &a->whole);
  for (guint r = 0; r < a->trace->ranks->len; r++)
    {
      WeftMetrics m;
      char label[32];
      if (!weft_solver_metrics (a->solver, r, a->step, &m))
        continue;
      g_snprintf (label, sizeof label, "rank %d", weft_trace_rank (a->trace, r)->rank);
      print_metrics_row (label, &m);
    }
}

static void
print_text_critical_path (const Analysis *a)
{
  WeftTrace *trace = a->trace;
  const WeftMetrics *whole = &a->whole;

  printf ("\nCritical path (across ranks): %.1f us = compute %.1f + communication %.1f + launch/CPU %.1f + "
          "inferred %.1f + waiting %.1f; %u ops\n",
          us (whole->cp_length), us (whole->cp_compute), us (whole->cp_comm), us (whole->cp_launch),
          us (whole->cp_inferred), us (whole->cp_wait), whole->cp_n_ops);
  if (a->ops->len > 0)
    printf ("Longest ops on the critical path:\n");
  for (guint i = 0; i < a->ops->len && i < (guint) a->top; i++)
    {
      const WeftPathSegment *s = &g_array_index (a->ops, WeftPathSegment, i);
      const char *name = event_name (trace, s->rank_index, s->event);
      printf ("  %10.1f us  rank %d  stream %" G_GINT64_FORMAT "  %-13s %.90s\n", us (s->end - s->begin),
              weft_trace_rank (trace, s->rank_index)->rank, event_stream (trace, s->rank_index, s->event),
              cp_kind_name (s->kind), name);
    }
}

static void
print_text_collectives (const Analysis *a)
{
  if (a->rows->len > 0)
    printf ("\nCollectives with the most waiting (wait = last arrival - this rank's arrival):\n");
  for (guint i = 0; i < a->rows->len && i < (guint) a->top; i++)
    {
      const InstRow *row = &g_array_index (a->rows, InstRow, i);
      printf ("  #%-5u %-14s %2u ranks  total wait %10.1f us  max wait %10.1f us  transfer %9.1f us  "
              "last-arriving rank %d\n",
              row->instance, weft_coll_type_to_string (row->info.type), row->info.n_members,
              us (row->info.total_wait), us (row->info.max_wait), us (row->info.transfer),
              weft_trace_rank (a->trace, row->info.last_rank_index)->rank);
    }
}

/* The pipeline bubble of each pipeline rank (nothing without P2P). */
static void
print_text_bubbles (const Analysis *a)
{
  gboolean any = FALSE;

  for (guint r = 0; r < a->trace->ranks->len; r++)
    {
      WeftBubble b;
      if (!weft_solver_pipeline_bubble (a->solver, r, a->step, &b))
        continue;
      if (!any)
        printf ("\npipeline bubble (%s):\n", BUBBLE_DEF);
      any = TRUE;
      printf ("  rank %-5d %12.3f us %6.1f %% of the step\n", weft_trace_rank (a->trace, r)->rank, us (b.bubble),
              b.bubble_pct);
    }
}

static void
print_text (const Analysis *a)
{
  print_text_header (a);
  print_text_metrics (a);
  print_text_bubbles (a);
  print_text_critical_path (a);
  print_text_collectives (a);
}

static void
analysis_clear (Analysis *a)
{
  g_clear_pointer (&a->steps, g_array_unref);
  g_clear_pointer (&a->cp, g_array_unref);
  g_clear_pointer (&a->rows, g_array_unref);
  g_clear_pointer (&a->ops, g_array_unref);
  g_clear_pointer (&a->solver, weft_solver_free);
  g_clear_pointer (&a->trace, weft_trace_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Analysis, analysis_clear)

int
weft_cmd_analyze (int argc, char **argv)
{
  gboolean as_json = FALSE, no_offsets = FALSE;
  gint64 max_bytes = 0;
  int step = WEFT_SOLVER_ALL_STEPS;
  char *step_text = NULL;
  int top = 10;
  GOptionEntry entries[] = {
    { "step", 's', 0, G_OPTION_ARG_STRING, &step_text, "Analyse ProfilerStep#N only (default: the whole trace)", "N" },
    { "json", 'j', 0, G_OPTION_ARG_NONE, &as_json, "Print a JSON document (fields in docs/solver.md)", NULL },
    { "top", 0, 0, G_OPTION_ARG_INT, &top, "How many critical-path ops and collectives to list (default 10)", "K" },
    { "no-clock-offsets", 0, 0, G_OPTION_ARG_NONE, &no_offsets, "Do not apply the estimated clock offsets", NULL },
    { "max-json-bytes", 0, 0, G_OPTION_ARG_INT64, &max_bytes,
      "Cap on the decompressed JSON bytes per file (default 16 GiB; env WEFT_MAX_JSON_BYTES)", "BYTES" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("PATH - step metrics, critical path and collective waiting");
  g_autoptr (GError) error = NULL;
  g_auto (Analysis) a = { 0 };

  g_option_context_add_main_entries (ctx, entries, NULL);
  weft_cli_add_progress_option (ctx);
  g_option_context_set_description (ctx, "PATH is a trace file (.json, .json.gz, .json.zst) or a folder of them.\n"
                                         OVERLAP_DEF ".\n\n"
                                         "Exit status: 0 success, 2 bad input (the message names the file and\n"
                                         "byte offset) or bad usage.");
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return weft_cli_fail ("analyze: %s", error->message);
  if (argc != 2)
    {
      g_free (step_text);
      return weft_cli_fail ("analyze: expected one PATH (see weft-cli analyze --help)");
    }
  if (step_text != NULL)
    {
      gboolean ok = parse_step (step_text, &step);
      g_free (step_text);
      if (!ok)
        return WEFT_EXIT_BAD_INPUT;
    }
  if (top < 0)
    return weft_cli_fail ("analyze: --top must not be negative");
  if (max_bytes < 0)
    return weft_cli_fail ("analyze: --max-json-bytes must be positive");

  a.path = argv[1];
  a.step = step;
  a.top = top;
  a.trace = weft_cli_load_trace (argv[1], (guint64) max_bytes, &error);
  if (a.trace == NULL)
    return weft_cli_fail ("%s", error->message);
  if (no_offsets)
    a.trace->apply_clock_offsets = FALSE;
  a.solver = weft_solver_new (a.trace, &error);
  if (a.solver == NULL)
    return weft_cli_fail ("%s: %s", argv[1], error->message);

  a.steps = weft_solver_steps (a.solver);
  if (!check_step (&a))
    return WEFT_EXIT_BAD_INPUT;
  analysis_gather (&a);
  if (as_json)
    print_json (&a);
  else
    print_text (&a);
  if (fflush (stdout) != 0)
    return WEFT_EXIT_FAILURE;
  return WEFT_EXIT_OK;
}
