/* bench-scale.c: a large multi-rank set through the window's core path,
 * headless (tests/bench/bench-scale.sh generates the set and runs this).
 *
 *   bench-scale PATH [FRAMES]
 *
 * What the window does, in order, each step timed: weft_trace_load (files
 * parsed in parallel, index, classification, matching), the edit session
 * (solver and first solve, the baseline), the times the painter draws (the
 * solver's: as weft-window.c sets them up), the layout, the first frame
 * (ruler + headers + body at 1920x1080 on an ARGB32 image, as bench-render),
 * then FRAMES frames zooming in by 1.25x each around the middle, FRAMES
 * frames panning by 1/10 of the view, and a drag: the first collective of
 * rank 0 moved later by 2 us per motion inside a gesture (as the timeline's
 * drag: weft_solver_prepare at the press, weft_edit_session_move_time per
 * motion), each motion timed from the move to the end of its frame. Prints
 * one "key value" per line and the peak RSS (getrusage). Built against an
 * older tree too (bench-scale.sh compares two builds): without
 * weft_render_times_init_solver it sets the times up as the window did. */
#include "config.h"

#include <cairo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "render/render-private.h"
#include "weft/weft-edit.h"
#include "weft/weft-load.h"
#include "weft/weft-render.h"
#include "weft/weft-solver.h"
#include "weft/weft.h"

#define W 1920
#define H 1080

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static double
now_ms (void)
{
  return (double) g_get_monotonic_time () / 1000.0;
}

#ifndef WEFT_RENDER_HAS_SOLVER_TIMES
static gboolean
solver_time_func (gpointer user_data, guint rank_index, guint32 event, gint64 *start, gint64 *end)
{
  weft_solver_times (user_data, rank_index, event, start, end);
  return TRUE;
}
#endif

static double
cpu_ms (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double) ts.tv_sec * 1000.0 + (double) ts.tv_nsec / 1e6;
}

/* thread CPU time of the last frame (the machine is shared: wall time
 * includes waiting for a core) */
static double last_cpu_ms;

static double
frame (cairo_surface_t *s, WeftTrace *trace, WeftView *view, WeftLayout *layout, const WeftRenderTimes *times)
{
  double t0 = now_ms (), c0 = cpu_ms ();
  cairo_t *cr = cairo_create (s);
  cairo_save (cr);
  cairo_translate (cr, WEFT_RENDER_HEADER_WIDTH, 0);
  weft_render_paint_ruler (cr, trace, view);
  cairo_restore (cr);
  cairo_translate (cr, 0, WEFT_RENDER_RULER_HEIGHT);
  weft_render_paint_lane_headers (cr, trace, view, layout, WEFT_RENDER_HEADER_WIDTH);
  cairo_translate (cr, WEFT_RENDER_HEADER_WIDTH, 0);
  weft_render_paint (cr, trace, view, layout, times, NULL, NULL);
  cairo_destroy (cr);
  cairo_surface_flush (s);
  last_cpu_ms = cpu_ms () - c0;
  return now_ms () - t0;
}

/* BENCH_SCALE_PERF_CTL=FIFO: write "enable" / "disable" to perf record's
 * control fifo (perf record --control=fifo:FIFO -D -1) around the frames,
 * so that a profile holds the frames only, not the load;
 * BENCH_SCALE_PERF_PHASE=full|zoom|pan|drag|after: only that phase's frames */
static void
perf_ctl (const char *cmd);

/* perf_ctl at the start (begin TRUE) or end of a phase */
static void
perf_phase (const char *phase, gboolean begin)
{
  const char *only = g_getenv ("BENCH_SCALE_PERF_PHASE");
  if (only != NULL && *only != '\0' && strcmp (only, phase) == 0)
    perf_ctl (begin ? "enable" : "disable");
}

static void
perf_ctl (const char *cmd)
{
  const char *path = g_getenv ("BENCH_SCALE_PERF_CTL");
  FILE *f;
  if (path == NULL || (f = fopen (path, "w")) == NULL)
    return;

  fprintf (f, "%s\n", cmd);
  fclose (f);
}

static void
report (const char *what, double *v, guint n)
{
  if (n == 0)
    return;
  qsort (v, n, sizeof (double), cmp_double);
  printf ("%s_median_ms %.2f\n%s_p90_ms %.2f\n%s_max_ms %.2f\n", what, v[n / 2], what, v[(n * 9) / 10], what,
          v[n - 1]);
}

/* BENCH_SCALE_AB_THREADS=1: each zoom / pan step's view painted twice,
 * its kept boxes and bands dropped before each paint (so both fold every
 * row), once with the folds on one thread and once on the default count,
 * in alternating order; the medians of each (a paired A/B in one
 * process, free of the VM's drift between runs). */
static double
frame_ab (cairo_surface_t *s, WeftTrace *trace, WeftView *view, WeftLayout *layout, const WeftRenderTimes *times,
          guint step, double *serial, double *serial_cpu)
{
  double v = 0;
  for (guint k = 0; k < 2; k++)
    {
      gboolean one = (k + step) % 2 == 0;
      double w;
      weft_layout_drop_box_caches (layout);
      weft_render_set_fold_threads (one ? 1 : 0);
      w = frame (s, trace, view, layout, times);
      if (one)
        {
          *serial = w;
          *serial_cpu = last_cpu_ms;
        }
      else
        v = w;
    }
  weft_render_set_fold_threads (0);
  return v;
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  guint n = argc > 2 ? (guint) MAX (atoi (argv[2]), 3) : 20;
  /* BENCH_SCALE_FULL=N: N frames of the full view (default 3; more to profile them) */
  guint n_full = g_getenv ("BENCH_SCALE_FULL") != NULL ? (guint) CLAMP (atoi (g_getenv ("BENCH_SCALE_FULL")), 1, 1000) : 3;
  double t_start = now_ms (), t;
  WeftTrace *trace;
  WeftEditSession *session;
  WeftSolver *solver;
  WeftRenderTimes times;
  WeftView view;
  WeftLayout *layout;
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, W, H);
  double *v = g_new (double, n * 2 + 1064);
  double *vc = g_new (double, n * 2 + 1064);
  double *vm = g_new (double, n * 2 + 64);
  guint64 n_events = 0, json = 0;
  struct rusage ru;
  /* BENCH_PLAIN_FILLS=1: every box through cairo_fill (the path before fill.c) */
  gboolean ab = g_getenv ("BENCH_SCALE_AB_THREADS") != NULL;
  weft_render_set_plain_fills (g_getenv ("BENCH_PLAIN_FILLS") != NULL);
  /* BENCH_FOLD_THREADS=N: the folds of a frame on N threads (1: one after
   * the other, the path before fold.c; unset: one per core up to 8) */
  if (g_getenv ("BENCH_FOLD_THREADS") != NULL)
    weft_render_set_fold_threads ((guint) MAX (atoi (g_getenv ("BENCH_FOLD_THREADS")), 1));

  if (argc < 2)
    {
      fprintf (stderr, "usage: bench-scale PATH [FRAMES]\n");
      return 2;
    }
  trace = weft_trace_load (argv[1], NULL, NULL, &error);
  if (trace == NULL)
    {
      fprintf (stderr, "bench-scale: %s\n", error->message);
      return 1;
    }
  for (guint r = 0; r < trace->ranks->len; r++)
    {
      n_events += weft_trace_rank (trace, r)->events->len;
      json += weft_trace_rank (trace, r)->json_bytes;
    }
  t = now_ms ();
  printf ("ranks %u\nevents %" G_GUINT64_FORMAT "\njson_mb %.1f\nload_s %.2f\n", trace->ranks->len, n_events,
          (double) json / 1e6, (t - t_start) / 1000.0);
  fflush (stdout);
  session = weft_edit_session_new (trace, NULL, &error);
  if (session == NULL)
    {
      fprintf (stderr, "bench-scale: solver: %s\n", error->message);
      return 1;
    }
  solver = weft_edit_session_get_solver (session);
#ifdef WEFT_RENDER_HAS_SOLVER_TIMES
  weft_render_times_init_solver (&times, trace, solver);
  weft_solver_lane_times (solver, 0, 0, NULL, NULL); /* the background load does this */
#else
  memset (&times, 0, sizeof times);
  times.func = solver_time_func;
  times.user_data = solver;
  times.generation = weft_solver_generation (solver) + 1;
  times.n_ranks = trace->ranks->len;
#endif
  printf ("session_s %.2f\n", (now_ms () - t) / 1000.0);
  t = now_ms ();
  weft_view_init (&view, trace);
  view.width = W - WEFT_RENDER_HEADER_WIDTH;
  view.height = H - WEFT_RENDER_RULER_HEIGHT;
  layout = weft_layout_new (trace, &view);
  printf ("layout_s %.2f\n", (now_ms () - t) / 1000.0);
  printf ("first_frame_ms %.1f\n", frame (s, trace, &view, layout, &times));
  printf ("launch_to_first_frame_s %.2f\n", (now_ms () - t_start) / 1000.0);
  fflush (stdout);
  /* the full view again (the window repaints it when the schedule is read) */
  if (g_getenv ("BENCH_SCALE_PERF_PHASE") == NULL)
    perf_ctl ("enable");
  perf_phase ("full", TRUE);
  for (guint i = 0; i < n_full; i++)
    {
      v[i] = frame (s, trace, &view, layout, &times);
      vc[i] = last_cpu_ms;
    }
  for (guint i = 0; i < MIN (n_full, 4); i++)
    printf ("full_view_frame%u_cpu_ms %.2f\n", i + 1, vc[i]);
  perf_phase ("full", FALSE);
  report ("full_view", v, n_full);
  report ("full_view_cpu", vc, n_full);
  perf_phase ("zoom", TRUE);
  for (guint i = 0; i < n; i++)
    {
      weft_view_zoom (&view, 0.8, view.width / 2);
      if (ab)
        v[i] = frame_ab (s, trace, &view, layout, &times, i, &vm[i], &vc[i]);
      else
        {
          v[i] = frame (s, trace, &view, layout, &times);
          vc[i] = last_cpu_ms;
        }
    }
  perf_phase ("zoom", FALSE);
  for (guint i = 0; i < n; i++) /* the view narrows 1.25x a frame: the first are the widest */
    printf ("zoom_frame%u_cpu_ms %.2f\n", i + 1, vc[i]);
  report ("zoom", v, n);
  report (ab ? "zoom_one_thread" : "zoom_cpu", ab ? vm : vc, n);
  perf_phase ("pan", TRUE);
  for (guint i = 0; i < n; i++)
    {
      weft_view_pan (&view, view.width / 10);
      if (ab)
        v[i] = frame_ab (s, trace, &view, layout, &times, i, &vm[i], &vc[i]);
      else
        {
          v[i] = frame (s, trace, &view, layout, &times);
          vc[i] = last_cpu_ms;
        }
    }
  perf_phase ("pan", FALSE);
  report ("pan", v, n);
  report (ab ? "pan_one_thread" : "pan_cpu", ab ? vm : vc, n);
  /* the drag, at the full view */
  weft_view_fit_all (&view, trace);
  {
    WeftRank *r0 = weft_trace_rank (trace, 0);
    WeftEventRef op = { 0, WEFT_NONE };
    gint64 s0;
    guint k = 0;
    for (guint32 e = 0; e < r0->events->len && op.event == WEFT_NONE; e++)
      if (weft_solver_is_node (solver, 0, e) && weft_rank_event_coll (r0, e) != WEFT_NONE)
        op.event = e;
    if (op.event != WEFT_NONE)
      {
        t = now_ms ();
        weft_solver_prepare (solver);
        printf ("drag_press_ms %.1f\n", now_ms () - t);
        s0 = weft_solver_start (solver, 0, op.event);
        weft_edit_session_begin_gesture (session);
        perf_phase ("drag", TRUE);
        for (guint i = 0; i < n; i++)
          {
            double c = cpu_ms ();
            t = now_ms ();
            if (!weft_edit_session_move_time (session, op, s0 + (gint64) (i + 1) * 2000, TRUE, &error))
              {
                fprintf (stderr, "bench-scale: drag: %s\n", error->message);
                break;
              }
            vm[k] = cpu_ms () - c;
            times.generation = weft_solver_generation (solver) + 1;
            frame (s, trace, &view, layout, &times);
            vc[k] = cpu_ms () - c;
            v[k++] = now_ms () - t;
          }
        perf_phase ("drag", FALSE);
        weft_edit_session_end_gesture (session);
        report ("drag_motion_to_frame", v, k);
        report ("drag_motion_to_frame_cpu", vc, k);
        report ("drag_move_cpu", vm, k);
        /* the frames after the edit, the drag over: the first paint of the
         * new generation, then the ones that bring the band and caches up
         * to date (each printed: the worst is what the user waits for) */
        times.generation = weft_solver_generation (solver) + 1;
        perf_phase ("after", TRUE);
        for (guint i = 0; i < 4; i++)
          {
            double w = frame (s, trace, &view, layout, &times);
            printf ("after_edit_frame%u_ms %.2f\nafter_edit_frame%u_cpu_ms %.2f\n", i + 1, w, i + 1, last_cpu_ms);
          }
      }
  }
  perf_phase ("after", FALSE);
  if (g_getenv ("BENCH_SCALE_PERF_PHASE") == NULL)
    perf_ctl ("disable");
  getrusage (RUSAGE_SELF, &ru);
  printf ("peak_rss_mb %.0f\npeak_rss_x_json %.2f\n", (double) ru.ru_maxrss / 1024.0,
          (double) ru.ru_maxrss * 1024.0 / (double) json);
  fflush (stdout);
  /* exit without tearing the 8 GB down (the window's quit does the same work) */
  g_free (v);
  g_free (vc);
  g_free (vm);
  cairo_surface_destroy (s);
  return 0;
}
