/* load-async.c: loading a trace and building its edit session in a GTask
 * thread, with a progress counter the caller polls and a GCancellable
 * (see weft-load.h; the window's load). */
#include "config.h"

#include "weft/weft-edit.h"
#include "weft/weft-load.h"

struct _WeftLoadProgress
{
  gatomicrefcount ref;
  GMutex          lock;
  guint64         done;
  guint64         total;
  WeftLoadPhase   phase;
};

typedef struct
{
  char             **paths;
  guint              n_paths;
  WeftLoadFlags      flags;
  WeftLoadProgress  *progress;   /* NULL: nobody watches */
} LoadData;

/* ---- progress ------------------------------------------------------------------ */

WeftLoadProgress *
weft_load_progress_new (void)
{
  WeftLoadProgress *progress = g_new0 (WeftLoadProgress, 1);

  g_atomic_ref_count_init (&progress->ref);
  g_mutex_init (&progress->lock);
  progress->phase = WEFT_LOAD_PHASE_READING;
  return progress;
}

WeftLoadProgress *
weft_load_progress_ref (WeftLoadProgress *progress)
{
  g_return_val_if_fail (progress != NULL, NULL);
  g_atomic_ref_count_inc (&progress->ref);
  return progress;
}

void
weft_load_progress_unref (WeftLoadProgress *progress)
{
  if (progress == NULL || !g_atomic_ref_count_dec (&progress->ref))
    return;
  g_mutex_clear (&progress->lock);
  g_free (progress);
}

WeftLoadPhase
weft_load_progress_get (WeftLoadProgress *progress, guint64 *done, guint64 *total)
{
  WeftLoadPhase phase;

  g_return_val_if_fail (progress != NULL, WEFT_LOAD_PHASE_READING);
  g_mutex_lock (&progress->lock);
  if (done != NULL)
    *done = progress->done;
  if (total != NULL)
    *total = progress->total;
  phase = progress->phase;
  g_mutex_unlock (&progress->lock);
  return phase;
}

/* the reader's WeftProgressFunc: called from its worker threads */
static void
progress_bytes (guint64 done, guint64 total, gpointer user_data)
{
  WeftLoadProgress *progress = user_data;

  g_mutex_lock (&progress->lock);
  progress->done = done;
  progress->total = total;
  g_mutex_unlock (&progress->lock);
}

static void
progress_set_phase (WeftLoadProgress *progress, WeftLoadPhase phase)
{
  if (progress == NULL)
    return;
  g_mutex_lock (&progress->lock);
  progress->phase = phase;
  g_mutex_unlock (&progress->lock);
}

/* ---- result -------------------------------------------------------------------- */

void
weft_load_result_free (WeftLoadResult *result)
{
  if (result == NULL)
    return;
  g_clear_pointer (&result->session, weft_edit_session_free);
  g_clear_pointer (&result->trace, weft_trace_free);
  g_free (result->solver_error);
  g_free (result);
}

/* ---- the job ------------------------------------------------------------------- */

static void
load_data_free (gpointer data)
{
  LoadData *ld = data;

  g_strfreev (ld->paths);
  g_clear_pointer (&ld->progress, weft_load_progress_unref);
  g_free (ld);
}

static void
load_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  LoadData *ld = task_data;
  WeftLoadOptions options = { 0 };
  g_autoptr (GError) error = NULL;
  WeftLoadResult *result;
  WeftTrace *trace;
  gint64 t_begin, t_loaded;

  if (ld->progress != NULL)
    {
      options.progress = progress_bytes;
      options.progress_data = ld->progress;
    }
  if (g_getenv ("WEFT_TEST_LOAD_DELAY_MS") != NULL)
    {
      /* tests: a slow disk, so that Cancel can be pressed in time */
      gint64 until = g_get_monotonic_time () + g_ascii_strtoll (g_getenv ("WEFT_TEST_LOAD_DELAY_MS"), NULL, 10) * 1000;
      while (g_get_monotonic_time () < until && !g_cancellable_is_cancelled (cancellable))
        g_usleep (10000);
    }
  t_begin = g_get_monotonic_time ();
  if (ld->n_paths == 1)
    trace = weft_trace_load (ld->paths[0], &options, cancellable, &error);
  else
    trace = weft_trace_load_files ((const char *const *) ld->paths, ld->n_paths, &options, cancellable, &error);
  if (trace == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  t_loaded = g_get_monotonic_time ();
  /* the solver works on the common timeline: decide before it is built */
  trace->apply_clock_offsets = !(ld->flags & WEFT_LOAD_NO_CLOCK_ALIGNMENT) && trace->offsets_estimated;
  progress_set_phase (ld->progress, WEFT_LOAD_PHASE_SOLVING);
  if (g_getenv ("WEFT_TEST_SOLVE_DELAY_MS") != NULL)
    {
      /* tests: a long solve, to see the loading page while it lasts */
      gint64 until = g_get_monotonic_time () + g_ascii_strtoll (g_getenv ("WEFT_TEST_SOLVE_DELAY_MS"), NULL, 10) * 1000;
      while (g_get_monotonic_time () < until && !g_cancellable_is_cancelled (cancellable))
        g_usleep (10000);
    }
  if (g_cancellable_is_cancelled (cancellable))
    {
      weft_trace_free (trace);
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "Cancelled");
      return;
    }
  /* The solver's first solve is the baseline of the metric deltas. A trace
   * the solver cannot handle is still shown, without solved metrics. */
  result = g_new0 (WeftLoadResult, 1);
  result->session = weft_edit_session_new (trace, ld->paths[0], &error);
  if (result->session == NULL)
    {
      result->trace = trace;
      if (error != NULL)
        result->solver_error = g_strdup (error->message);
    }
  else if (trace->ranks->len > 0)
    /* the painter's per-lane arrays of solved times, built here rather
     * than on the window's first frame */
    weft_solver_lane_times (weft_edit_session_get_solver (result->session), 0, 0, NULL, NULL);
  result->load_us = t_loaded - t_begin;
  result->solve_us = g_get_monotonic_time () - t_loaded;
  g_task_return_pointer (task, result, (GDestroyNotify) weft_load_result_free);
}

void
weft_trace_load_async (const char *const *paths, guint n_paths, WeftLoadFlags flags, WeftLoadProgress *progress,
                       GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr (GTask) task = NULL;
  LoadData *ld;

  g_return_if_fail (paths != NULL && n_paths > 0);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  ld = g_new0 (LoadData, 1);
  ld->paths = g_new0 (char *, n_paths + 1);
  for (guint i = 0; i < n_paths; i++)
    ld->paths[i] = g_strdup (paths[i]);
  ld->n_paths = n_paths;
  ld->flags = flags;
  ld->progress = progress != NULL ? weft_load_progress_ref (progress) : NULL;

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, weft_trace_load_async);
  g_task_set_task_data (task, ld, load_data_free);
  g_task_run_in_thread (task, load_thread);
}

WeftLoadResult *
weft_trace_load_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == weft_trace_load_async, NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
