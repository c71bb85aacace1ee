/* bench-memory.c: the memory timeline and its row on a generated one-rank
 * trace with N GPU [memory] events (default 1,000,000): 16 per aten::mm
 * cpu_op, each op launching one kernel on stream 7. Measures making the
 * timeline (reading every event's args, anchoring), re-timing it after an
 * edit that moves every op (the first kernel 1 ms longer), and painting the
 * memory row at 1920 px, zoomed out (the same view again, and another view
 * every paint: panned by 1/1000) and at 1/100 of the trace around its
 * middle (median of 10 paints; the row is drawn with two cairo paths
 * whatever N).
 *
 * Usage: bench-memory [N]. Prints one line per figure (thread CPU time); see
 * docs/benchmarks.md (## Rendering, the memory row). */
#include "config.h"

#include <cairo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../testutil.h"
#include "weft/weft-edit.h"
#include "weft/weft-render.h"
#include "weft/weft.h"

#define PER_OP 16

/* CPU time of this thread (ns): less disturbed than wall time on a busy machine. */
static gint64
cpu_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (gint64) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void
write_trace (const char *path, guint n_mem)
{
  FILE *f = fopen (path, "w");
  guint n_ops = (n_mem + PER_OP - 1) / PER_OP;
  gint64 alloc = 0, reserved = 0;
  double cpu = 10.0, gpu = 20.0;

  g_assert_nonnull (f);
  fprintf (f, "{\"schemaVersion\": 1, \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, \"world_size\": 1}, "
              "\"baseTimeNanoseconds\": 1700000000000000000, \"traceEvents\": [\n");
  fprintf (f, "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 1, \"tid\": 1, "
              "\"ts\": 0.000, \"dur\": %.3f}",
           n_ops * 14.0 + 100.0);
  for (guint i = 0; i < n_ops; i++)
    {
      fprintf (f, ",\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, "
                  "\"ts\": %.3f, \"dur\": 12.000}", cpu);
      for (guint k = 0; k < PER_OP; k++)
        {
          /* allocations in the first half of the op, frees in the second:
           * the total breathes, and grows slowly over the trace */
          gint64 bytes = (gint64) (1 + (i * 7 + k) % 13) << 20;
          if (k >= PER_OP / 2)
            bytes = -(((gint64) (1 + (i * 7 + k - PER_OP / 2) % 13) << 20) - (k == PER_OP - 1 && i % 8 == 0 ? 1 << 20 : 0));
          alloc += bytes;
          reserved = MAX (reserved, (alloc + (2 << 20) - 1) / (2 << 20) * (2 << 20));
          fprintf (f, ",\n{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", "
                      "\"pid\": 1, \"tid\": 1, \"ts\": %.3f, \"args\": {\"Total Reserved\": %" G_GINT64_FORMAT
                      ", \"Total Allocated\": %" G_GINT64_FORMAT ", \"Bytes\": %" G_GINT64_FORMAT
                      ", \"Addr\": 1, \"Device Id\": 0, \"Device Type\": 1}}",
                   cpu + 0.25 + k * 0.7, reserved, alloc, bytes);
          if (k == PER_OP / 2 - 1)
            fprintf (f, ",\n{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, "
                        "\"tid\": 1, \"ts\": %.3f, \"dur\": 0.500, \"args\": {\"correlation\": %u, \"External id\": %u}}"
                        ",\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm_kernel\", \"pid\": 0, \"tid\": 7, "
                        "\"ts\": %.3f, \"dur\": 15.000, \"args\": {\"stream\": 7, \"correlation\": %u, "
                        "\"External id\": %u}}",
                     cpu + 0.25 + k * 0.7 + 0.3, i + 1, i + 1, MAX (gpu, cpu + 10.0), i + 1, i + 1);
        }
      gpu = MAX (gpu, cpu + 10.0) + 16.0;
      cpu += 14.0;
    }
  fprintf (f, "\n]}\n");
  fclose (f);
}

/* pan: another view every paint (a pan by 1/1000 of the view, as a
 * frame of a drag of the view: the columns folded again each time) */
static double
paint_ms (WeftTrace *trace, WeftLayout *layout, WeftView *view, WeftMemoryTimeline *tl, WeftRenderStats *stats,
          gboolean pan)
{
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1920, 400);
  WeftRenderOverlay overlay = { 0 };
  GArray *ns = g_array_new (FALSE, FALSE, sizeof (gint64));
  double med;

  overlay.memory = tl;
  for (int k = 0; k < 10; k++)
    {
      cairo_t *cr = cairo_create (s);
      gint64 t0;
      if (pan)
        {
          gint64 d = MAX ((view->span.end - view->span.begin) / 1000, 1);
          view->span.begin += d;
          view->span.end += d;
        }
      t0 = cpu_ns ();
      weft_render_paint_body (cr, trace, view, layout, NULL, &overlay, stats);
      cairo_destroy (cr);
      gint64 dt = cpu_ns () - t0;
      g_array_append_val (ns, dt);
    }
  med = weft_test_pct_ms (ns, 0.5);
  g_array_free (ns, TRUE);
  cairo_surface_destroy (s);
  return med;
}

int
main (int argc, char **argv)
{
  guint n = argc > 1 ? (guint) atoi (argv[1]) : 1000000;
  g_autofree char *path = g_build_filename (weft_test_tmpdir (), "memory-bench.json", NULL);
  g_autoptr (GError) error = NULL;
  WeftTrace *trace;
  g_autoptr (WeftEditSession) session = NULL;
  g_autoptr (WeftMemoryTimeline) tl = NULL;
  WeftMemoryTimelinePeak p0, p1;
  WeftRenderStats stats;
  WeftView view;
  WeftLayout *layout;
  WeftEventRef first = { 0, WEFT_NONE };
  gint64 t0;
  double ms;

  write_trace (path, n);
  t0 = cpu_ns ();
  trace = weft_trace_load (path, NULL, NULL, &error);
  g_assert_no_error (error);
  printf ("load: %.0f ms (%u events)\n", (cpu_ns () - t0) / 1e6, weft_trace_rank (trace, 0)->events->len);
  session = weft_edit_session_new (trace, path, &error);
  g_assert_no_error (error);
  t0 = cpu_ns ();
  tl = weft_memory_timeline_new (trace);
  printf ("weft_memory_timeline_new: %.0f ms\n", (cpu_ns () - t0) / 1e6);
  t0 = cpu_ns ();
  weft_memory_timeline_update (tl, weft_edit_session_get_solver (session));
  g_assert_true (weft_memory_timeline_peak (tl, 0, &p0));
  printf ("first update from the solver: %.0f ms, %u events, peak %.3f GiB\n", (cpu_ns () - t0) / 1e6,
          p0.n_events, p0.peak_reserved / 1073741824.0);
  for (guint32 e = 0; e < weft_trace_rank (trace, 0)->events->len && first.event == WEFT_NONE; e++)
    if (weft_solver_is_node (weft_edit_session_get_solver (session), 0, e))
      first.event = e;
  g_assert_true (weft_edit_session_set_duration (session, first, 1015000, &error));
  t0 = cpu_ns ();
  g_assert_true (weft_memory_timeline_update (tl, weft_edit_session_get_solver (session)));
  weft_memory_timeline_peak (tl, 0, &p1);
  printf ("update after an edit moving every op: %.0f ms, peak %.3f GiB\n", (cpu_ns () - t0) / 1e6,
          p1.peak_reserved / 1073741824.0);
  t0 = cpu_ns ();
  g_assert_false (weft_memory_timeline_update (tl, weft_edit_session_get_solver (session)));
  printf ("update, nothing changed: %.3f ms\n", (cpu_ns () - t0) / 1e6);

  weft_view_init (&view, trace);
  view.width = 1920;
  view.height = 400;
  view.show_steps = FALSE;
  layout = weft_layout_new (trace, &view);
  ms = paint_ms (trace, layout, &view, tl, &stats, FALSE);
  printf ("paint zoomed out (1920 px): %.2f ms median, %u memory samples looked at, %u cairo paths\n", ms,
          stats.memory_points, stats.memory_fills);
  {
    WeftView panned = view;
    ms = paint_ms (trace, layout, &panned, tl, &stats, TRUE);
    printf ("paint zoomed out, panned every paint: %.2f ms median, %u memory samples looked at\n", ms,
            stats.memory_points);
  }
  {
    /* 1/100 of the trace around its middle */
    gint64 mid = view.span.begin + (view.span.end - view.span.begin) / 2, d = (view.span.end - view.span.begin) / 200;
    view.span.begin = mid - d;
    view.span.end = mid + d;
  }
  ms = paint_ms (trace, layout, &view, tl, &stats, FALSE);
  printf ("paint at 1/100 of the trace: %.2f ms median, %u memory samples looked at, %u cairo paths\n", ms,
          stats.memory_points, stats.memory_fills);
  weft_layout_free (layout);
  weft_view_clear (&view);
  return 0;
}
