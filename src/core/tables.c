/* tables.c: the tables of a solved trace (weft-tables.h): collectives,
 * kernels by name, the slices of a range. Read only, over the public solver
 * API: the figures are the solver's (weft_solver_instance_info,
 * weft_solver_times, weft_solver_metrics). */
#include "config.h"

#include <string.h>

#include "weft/weft-tables.h"

const char *
weft_slice_kind_to_string (WeftSliceKind kind)
{
  static const char *const names[] = { "all", "gpu", "collective", "cpu" };
  return (guint) kind < G_N_ELEMENTS (names) ? names[kind] : "all";
}

gboolean
weft_event_is_kind (const WeftRank *rank, const WeftEvent *ev, WeftSliceKind kind)
{
  const WeftLane *lane;

  g_return_val_if_fail (rank != NULL && ev != NULL, FALSE);
  if ((ev->flags & WEFT_EVENT_DELETED) || ev->ph != WEFT_PH_X || ev->lane == WEFT_NONE ||
      ev->lane >= rank->lanes->len)
    return FALSE;
  lane = g_ptr_array_index (rank->lanes, ev->lane);
  switch (kind)
    {
    case WEFT_SLICE_KIND_GPU:
      return (ev->flags & WEFT_EVENT_GPU_OP) != 0;
    case WEFT_SLICE_KIND_COLLECTIVE:
      if (weft_event_coll (rank, ev) != WEFT_NONE)
        return TRUE;
      /* the record_param_comms cpu_op of a collective: its kernel links back */
      return (ev->flags & WEFT_EVENT_GPU_OP) != 0 && ev->kclass == WEFT_KCLASS_COMM;
    case WEFT_SLICE_KIND_CPU:
      return lane->kind == WEFT_LANE_CPU;
    case WEFT_SLICE_KIND_ALL:
    default:
      return TRUE;
    }
}

/* The window of a step as its metrics define it; FALSE: the whole trace. */
static gboolean
step_window (WeftSolver *self, int step, WeftMetrics *m)
{
  return step != WEFT_SOLVER_ALL_STEPS && weft_solver_metrics (self, WEFT_SOLVER_ALL_RANKS, step, m);
}

static gint
coll_row_cmp (gconstpointer a, gconstpointer b)
{
  const WeftCollectiveRow *x = a, *y = b;
  if (x->end != y->end)
    return x->end < y->end ? -1 : 1;
  return (x->instance > y->instance) - (x->instance < y->instance);
}

GArray *
weft_solver_collective_rows (WeftSolver *self, int step)
{
  WeftTrace *trace;
  GArray *rows;
  WeftMetrics m;
  gboolean windowed;

  g_return_val_if_fail (self != NULL, NULL);
  trace = weft_solver_get_trace (self);
  rows = g_array_new (FALSE, TRUE, sizeof (WeftCollectiveRow));
  windowed = step_window (self, step, &m);
  for (guint32 i = 0; i < trace->instances->len; i++)
    {
      const WeftCollInstance *inst = &g_array_index (trace->instances, WeftCollInstance, i);
      WeftSolverInstanceInfo info;
      g_autofree WeftSolverArrival *arr = NULL;
      WeftCollectiveRow row = { 0 };
      const WeftInstanceMember *first;
      WeftRank *frank;
      const WeftCollective *coll;

      if (inst->members->len == 0)
        continue;
      arr = g_new0 (WeftSolverArrival, inst->members->len);
      if (!weft_solver_instance_info (self, i, &info, arr, inst->members->len))
        continue;
      if (windowed && (info.end < m.begin || info.end > m.end))
        continue;
      first = &g_array_index (inst->members, WeftInstanceMember, 0);
      frank = weft_trace_rank (trace, first->rank_index);
      coll = &g_array_index (frank->collectives, WeftCollective, first->coll);
      row.instance = i;
      row.type = info.type;
      row.group = weft_rank_string (frank, coll->pg_name);
      row.group_desc = weft_rank_string (frank, coll->pg_desc);
      row.n_members = info.n_members;
      row.bytes = coll->bytes;
      row.transfer = info.transfer;
      row.max_wait = info.max_wait;
      row.total_wait = info.total_wait;
      row.last_arrival = info.last_arrival;
      row.end = info.end;
      row.last_rank_index = info.last_rank_index;
      row.last_event = WEFT_NONE;
      for (guint k = 0; k < info.n_members && k < inst->members->len; k++)
        if (arr[k].rank_index == info.last_rank_index && arr[k].arrival == info.last_arrival)
          {
            row.last_event = arr[k].event;
            break;
          }
      if (row.last_event == WEFT_NONE && info.n_members > 0)
        row.last_event = arr[0].event;
      g_array_append_val (rows, row);
    }
  g_array_sort (rows, coll_row_cmp);
  return rows;
}

static gint
kernel_row_cmp (gconstpointer a, gconstpointer b)
{
  const WeftKernelRow *x = a, *y = b;
  if (x->total != y->total)
    return x->total > y->total ? -1 : 1;
  return strcmp (x->name, y->name);
}

GArray *
weft_solver_kernel_rows (WeftSolver *self, int step)
{
  WeftTrace *trace;
  GArray *rows;
  g_autoptr (GHashTable) by_name = NULL;
  WeftMetrics m;
  gboolean windowed;
  guint n_gpu_ranks = 0;
  gint64 step_time = 0;

  g_return_val_if_fail (self != NULL, NULL);
  trace = weft_solver_get_trace (self);
  rows = g_array_new (FALSE, TRUE, sizeof (WeftKernelRow));
  by_name = g_hash_table_new (g_str_hash, g_str_equal); /* name -> row index + 1 */
  windowed = step_window (self, step, &m);
  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);
      gboolean any = FALSE;
      for (guint32 e = 0; e < rank->events->len; e++)
        {
          const WeftEvent *ev = weft_rank_event (rank, e);
          const char *name;
          gint64 start, end;
          WeftKernelRow *row;
          guint idx;

          if (!(ev->flags & WEFT_EVENT_GPU_OP) || (ev->flags & WEFT_EVENT_DELETED) ||
              !weft_solver_is_node (self, r, e))
            continue;
          weft_solver_times (self, r, e, &start, &end);
          if (windowed && (start < m.begin || start >= m.end))
            continue;
          any = TRUE;
          name = weft_rank_string (rank, ev->name);
          idx = GPOINTER_TO_UINT (g_hash_table_lookup (by_name, name));
          if (idx == 0)
            {
              WeftKernelRow nr = { 0 };
              nr.name = name;
              nr.kclass = ev->kclass;
              nr.first_rank_index = r;
              nr.first_event = e;
              g_array_append_val (rows, nr);
              idx = rows->len;
              g_hash_table_insert (by_name, (gpointer) name, GUINT_TO_POINTER (idx));
            }
          row = &g_array_index (rows, WeftKernelRow, idx - 1);
          row->count++;
          row->total += end - start;
          if (end - start > row->max)
            {
              row->max = end - start;
              row->first_rank_index = r;
              row->first_event = e;
            }
        }
      n_gpu_ranks += any;
    }
  if (windowed)
    step_time = m.step_time;
  else
    {
      WeftTimeSpan span = weft_solver_span (self);
      step_time = span.end - span.begin;
    }
  for (guint i = 0; i < rows->len; i++)
    {
      WeftKernelRow *row = &g_array_index (rows, WeftKernelRow, i);
      row->mean = row->count > 0 ? row->total / row->count : 0;
      row->share = step_time > 0 && n_gpu_ranks > 0 ? (double) row->total / ((double) step_time * n_gpu_ranks) : 0;
    }
  g_array_sort (rows, kernel_row_cmp);
  return rows;
}

static gint
slice_row_cmp (gconstpointer a, gconstpointer b)
{
  const WeftSliceRow *x = a, *y = b;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  if (x->rank_index != y->rank_index)
    return x->rank_index < y->rank_index ? -1 : 1;
  return (x->event > y->event) - (x->event < y->event);
}

GArray *
weft_solver_range_slices (WeftSolver *self, WeftTimeSpan range, WeftSliceKind kind, guint max, guint *n_total)
{
  WeftTrace *trace;
  GArray *rows;

  g_return_val_if_fail (self != NULL, NULL);
  trace = weft_solver_get_trace (self);
  rows = g_array_new (FALSE, FALSE, sizeof (WeftSliceRow));
  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);
      for (guint32 e = 0; e < rank->events->len; e++)
        {
          const WeftEvent *ev = weft_rank_event (rank, e);
          WeftSliceRow row;

          if (!weft_event_is_kind (rank, ev, kind))
            continue;
          weft_solver_times (self, r, e, &row.start, &row.end);
          /* a zero-length slice at the range's start counts as inside */
          if (row.end < range.begin || row.start >= range.end || (row.end == range.begin && row.start != row.end))
            continue;
          row.rank_index = r;
          row.event = e;
          g_array_append_val (rows, row);
        }
    }
  g_array_sort (rows, slice_row_cmp);
  if (n_total != NULL)
    *n_total = rows->len;
  if (max > 0 && rows->len > max)
    g_array_set_size (rows, max);
  return rows;
}
