/* times.c: the solver's times as the painter reads them (the window and
 * weft-cli render share this). */
#include "config.h"

#include <string.h>

#include "render-private.h"

static gboolean
solver_time_func (gpointer user_data, guint rank_index, guint32 event, gint64 *start, gint64 *end)
{
  weft_solver_times (user_data, rank_index, event, start, end);
  return TRUE;
}

static guint
solver_lane_func (gpointer user_data, guint rank_index, guint32 lane, const gint64 **start, const gint64 **end)
{
  return weft_solver_lane_times (user_data, rank_index, lane, start, end);
}

static guint64
solver_lane_pending (gpointer user_data)
{
  return weft_solver_lane_times_pending (user_data);
}

static gboolean
solver_lane_window (gpointer user_data, guint rank_index, guint64 since, guint64 *epoch, gint64 *lo, gint64 *hi)
{
  return weft_solver_lane_times_gpu_window (user_data, rank_index, since, epoch, lo, hi);
}

static gboolean
solver_lane_changed (gpointer user_data, guint rank_index, guint32 lane, guint64 since, guint64 *epoch, guint *lo,
                     guint *hi)
{
  return weft_solver_lane_times_changed (user_data, rank_index, lane, since, epoch, lo, hi);
}

void
weft_render_times_init_solver (WeftRenderTimes *times, WeftTrace *trace, WeftSolver *solver)
{
  g_return_if_fail (times != NULL);
  memset (times, 0, sizeof *times);
  if (solver == NULL)
    return;
  times->func = solver_time_func;
  times->lane_func = solver_lane_func;
  times->lane_pending = solver_lane_pending;
  times->lane_window = solver_lane_window;
  times->lane_changed = solver_lane_changed;
  times->user_data = solver;
  times->n_ranks = trace != NULL ? trace->ranks->len : 0;
  times->generation = weft_solver_generation (solver) + 1;
}

void
weft_render_times_update (WeftRenderTimes *times)
{
  g_return_if_fail (times != NULL);
  if (times->func == solver_time_func && times->user_data != NULL)
    times->generation = weft_solver_generation (times->user_data) + 1;
}
