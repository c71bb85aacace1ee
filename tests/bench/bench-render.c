/* bench-render.c: frame time of the painter at 1920x1080 on a cairo image
 * surface (ruler + lane headers + body + highlights, as the window paints a
 * frame), median of N, for a full zoom-out and a mid zoom of
 *   - df_index_resolver (HTA test data, 216k events, loaded with the real loader)
 *   - a generated 8-rank trace with >= 2M events (built in the model directly)
 *
 * Usage: bench-render [N [PATH]] (default 30); with PATH, that trace (loaded
 * with the real loader) instead of df_index_resolver and the generated
 * one. BENCH_RENDER_ONLY=TEXT runs only the cases whose name contains TEXT. WEFT_TRACES_DIR locates the shared
 * traces (the df_index_resolver part is skipped without them). Prints one
 * line per case; see docs/benchmarks.md (## Rendering). */
#include "config.h"

#include <cairo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../testutil.h"
#include "weft/weft-load.h"
#include "weft/weft-render.h"
#include "weft/weft-solver.h"
#include "weft/weft.h"

#define W 1920
#define H 1080

/* CPU time of this thread (ms): less disturbed than wall time on a busy machine. */
static double
cpu_ms (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec / 1e6;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static gboolean
solver_time_func (gpointer user_data, guint rank_index, guint32 event, gint64 *start, gint64 *end)
{
  WeftSolver *solver = user_data;
  *start = weft_solver_start (solver, rank_index, event);
  *end = weft_solver_end (solver, rank_index, event);
  return TRUE;
}

/* Called before every frame when set (a drag: an edit and its re-solve);
 * not timed. */
static void (*pre_frame) (gpointer data, guint frame);
static gpointer pre_frame_data;

static void
bench_case (const char *name, WeftTrace *trace, double zoom, guint n, const WeftRenderTimes *times)
{
  WeftView view;
  WeftLayout *layout;
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, W, H);
  double *t = g_new (double, n);
  double *tb = g_new (double, n);
  double *tc = g_new (double, n);
  double header_w = WEFT_RENDER_HEADER_WIDTH, layout_ms;
  gint64 t0;
  WeftRenderStats stats = { 0 };
  double first_ms = 0, second_ms = 0, max_warm_ms = 0;
  guint warm;
  guint64 n_events = 0;
  const char *only = g_getenv ("BENCH_RENDER_ONLY");

  /* BENCH_RENDER_ONLY=TEXT: only the cases whose name contains TEXT */
  if (only != NULL && strstr (name, only) == NULL)
    {
      g_free (t);
      g_free (tb);
      g_free (tc);
      cairo_surface_destroy (s);
      return;
    }
  for (guint r = 0; r < trace->ranks->len; r++)
    n_events += weft_trace_rank (trace, r)->events->len;
  weft_view_init (&view, trace);
  view.width = W - header_w;
  view.height = H - WEFT_RENDER_RULER_HEIGHT;
  t0 = g_get_monotonic_time ();
  layout = weft_layout_new (trace, &view);
  layout_ms = (double) (g_get_monotonic_time () - t0) / 1000.0;
  if (zoom < 1.0)
    {
      /* mid zoom: a window of zoom x the span, centred */
      gint64 d = view.span.end - view.span.begin;
      gint64 mid = view.span.begin + d / 2;
      gint64 w = (gint64) ((double) d * zoom);
      view.span.begin = mid - w / 2;
      view.span.end = mid + w / 2;
    }

  /* warm-up: 2 frames, plus enough for the solved-times caches to fill
   * under the per-frame refresh budget */
  warm = 2 + (guint) (n_events / 262144) + 1;
  for (guint i = 0; i < n + warm; i++)
    {
      cairo_t *cr;
      gint64 a, b;
      if (pre_frame != NULL)
        pre_frame (pre_frame_data, i);
      cr = cairo_create (s);
      a = g_get_monotonic_time ();
      double c0 = cpu_ms ();
      cairo_save (cr);
      cairo_translate (cr, header_w, 0);
      weft_render_paint_ruler (cr, trace, &view);
      cairo_restore (cr);
      cairo_save (cr);
      cairo_translate (cr, 0, WEFT_RENDER_RULER_HEIGHT);
      weft_render_paint_lane_headers (cr, trace, &view, layout, header_w);
      cairo_translate (cr, header_w, 0);
      b = g_get_monotonic_time ();
      weft_render_paint (cr, trace, &view, layout, times, NULL, &stats);
      cairo_restore (cr);
      cairo_destroy (cr);
      cairo_surface_flush (s);
      if (i == 0)
        first_ms = (double) (g_get_monotonic_time () - a) / 1000.0;
      if (i == 1)
        second_ms = (double) (g_get_monotonic_time () - a) / 1000.0;
      if (i >= warm)
        {
          t[i - warm] = (double) (g_get_monotonic_time () - a) / 1000.0;
          tb[i - warm] = (double) (g_get_monotonic_time () - b) / 1000.0;
          tc[i - warm] = cpu_ms () - c0;
        }
      else if (i >= 1)
        max_warm_ms = MAX (max_warm_ms, (double) (g_get_monotonic_time () - a) / 1000.0);
    }
  qsort (t, n, sizeof (double), cmp_double);
  qsort (tb, n, sizeof (double), cmp_double);
  qsort (tc, n, sizeof (double), cmp_double);
  printf ("%-30s %8" G_GUINT64_FORMAT " events  layout %6.1f ms  1st %6.1f ms  2nd %6.1f ms  "
          "worst warm-up %6.1f ms  median %6.2f ms  p90 %6.2f ms  cpu median %6.2f ms  (body %5.2f ms; boxes %u, "
          "folded %u, labels %u, visited %u)\n",
          name, n_events, layout_ms, first_ms, second_ms, max_warm_ms, t[n / 2], t[(n * 9) / 10], tc[n / 2],
          tb[n / 2], stats.boxes, stats.folded_boxes, stats.labels, stats.events_visited);
  fflush (stdout);
  g_free (t);
  g_free (tb);
  g_free (tc);
  weft_layout_free (layout);
  weft_view_clear (&view);
  cairo_surface_destroy (s);
}

/* ---- a generated 8-rank trace ------------------------------------------------- */

static const char *compute_names[] = {
  "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off",
  "flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t>>",
  "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>>",
  "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>",
  "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t>>",
  "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::silu>>",
};

static const char *comm_names[] = {
  "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
  "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
};

static void
add_ev (WeftRank *rank, guint32 lane, guint32 name, guint32 cat, WeftCategory category, gint64 ts, gint64 dur)
{
  WeftEvent ev;
  memset (&ev, 0, sizeof ev);
  ev.ts = ts;
  weft_event_set_dur (rank, &ev, dur);
  ev.name = name;
  ev.cat = cat;
  ev.lane = lane;
  ev.ph = WEFT_PH_X;
  ev.category = (guint8) category;
  ev.flags = WEFT_EVENT_HAS_DUR;
  ev.correlation_code = -1;
  ev.external_id_code = -1;
  weft_event_set_link (&ev, WEFT_NONE);
  g_array_append_val (rank->events, ev);
}

/* Per rank: two compute streams of short kernels (1-40 us, FSDP-like
 * density), two comm streams (all-gather / reduce-scatter), a CPU thread
 * with an op per kernel and its launch nested inside. */
static WeftTrace *
gen_big_trace (guint n_ranks, guint kernels_per_rank)
{
  WeftTrace *trace = weft_trace_new ();
  GRand *rand = g_rand_new_with_seed (42);

  for (guint r = 0; r < n_ranks; r++)
    {
      g_autofree char *path = g_strdup_printf ("generated/rank%u_trace.json", r);
      WeftRank *rank = weft_rank_new (path);
      guint32 streams[2], comm[2], cpu;
      guint32 cn[G_N_ELEMENTS (compute_names)], mn[G_N_ELEMENTS (comm_names)];
      guint32 cat_kernel, cat_cpu, cat_rt, n_mm, n_launch;
      gint64 t_gpu[2] = { 0, 0 }, t_comm[2] = { 0, 0 }, t_cpu = 0;
      gint64 base = G_GINT64_CONSTANT (1700000000000000000);

      rank->rank = (int) r;
      rank->world_size = (int) n_ranks;
      streams[0] = weft_rank_ensure_lane (rank, "0", 1, "7", 1);
      streams[1] = weft_rank_ensure_lane (rank, "0", 1, "8", 1);
      comm[0] = weft_rank_ensure_lane (rank, "0", 1, "15", 2);
      comm[1] = weft_rank_ensure_lane (rank, "0", 1, "17", 2);
      cpu = weft_rank_ensure_lane (rank, "1234", 4, "1234", 4);
      for (guint i = 0; i < G_N_ELEMENTS (compute_names); i++)
        cn[i] = weft_strings_intern (rank->strings, compute_names[i], -1);
      for (guint i = 0; i < G_N_ELEMENTS (comm_names); i++)
        mn[i] = weft_strings_intern (rank->strings, comm_names[i], -1);
      cat_kernel = weft_strings_intern (rank->strings, "kernel", -1);
      cat_cpu = weft_strings_intern (rank->strings, "cpu_op", -1);
      cat_rt = weft_strings_intern (rank->strings, "cuda_runtime", -1);
      n_mm = weft_strings_intern (rank->strings, "aten::mm", -1);
      n_launch = weft_strings_intern (rank->strings, "cudaLaunchKernel", -1);

      for (guint k = 0; k < kernels_per_rank; k++)
        {
          guint s = k % 2;
          gint64 dur = 1000 + g_rand_int_range (rand, 0, 40000);
          gint64 gap = g_rand_int_range (rand, 200, 3000);
          guint which = (guint) g_rand_int_range (rand, 0, G_N_ELEMENTS (compute_names));
          gint64 launch_at = MAX (t_cpu, t_gpu[s] - 20000);
          add_ev (rank, cpu, n_mm, cat_cpu, WEFT_CAT_CPU_OP, base + launch_at, 6000);
          add_ev (rank, cpu, n_launch, cat_rt, WEFT_CAT_CUDA_RUNTIME, base + launch_at + 1000, 4000);
          t_cpu = launch_at + 6500;
          add_ev (rank, streams[s], cn[which], cat_kernel, WEFT_CAT_KERNEL, base + t_gpu[s], dur);
          t_gpu[s] += dur + gap;
          if (k % 16 == 0)
            {
              guint c = (k / 16) % 2;
              gint64 cd = 20000 + g_rand_int_range (rand, 0, 200000);
              t_comm[c] = MAX (t_comm[c], t_gpu[s] - 50000);
              add_ev (rank, comm[c], mn[c], cat_kernel, WEFT_CAT_KERNEL, base + t_comm[c], cd);
              t_comm[c] += cd + g_rand_int_range (rand, 1000, 100000);
            }
        }
      weft_trace_add_rank (trace, rank);
    }
  g_rand_free (rand);
  weft_trace_index (trace);
  return trace;
}

typedef struct
{
  WeftSolver      *solver;
  guint32          event;
  gint64           start0;
  WeftRenderTimes *times;
  gint64           solve_us, refresh_us;
  guint            n;
} DragState;

static void
drag_step (gpointer data, guint frame)
{
  DragState *d = data;
  gint64 t0 = g_get_monotonic_time (), t1;
  weft_solver_set_min_start (d->solver, 0, d->event, d->start0 + (gint64) (frame % 50 + 1) * 2000, NULL);
  t1 = g_get_monotonic_time ();
  d->times->generation = weft_solver_generation (d->solver) + 1;
  d->solve_us += t1 - t0;
  if (d->times->lane_func != NULL)
    {
      /* the lane arrays' refresh, timed apart (else the first row's paint pays it) */
      weft_solver_lane_times (d->solver, 0, 0, NULL, NULL);
      d->refresh_us += g_get_monotonic_time () - t1;
    }
  d->n++;
}

static void
drag_report (DragState *d, const char *name)
{
  if (d->n > 0)
    printf ("%-30s re-solve %.2f ms, lane arrays' refresh %.2f ms per motion (mean of %u)\n", name,
          d->n ? (double) d->solve_us / 1000.0 / d->n : 0.0, d->n ? (double) d->refresh_us / 1000.0 / d->n : 0.0,
          d->n);
  d->solve_us = d->refresh_us = 0;
  d->n = 0;
}

static void
paint_frame (cairo_surface_t *s, WeftTrace *trace, WeftView *view, WeftLayout *layout, const WeftRenderTimes *times)
{
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
}

/* Frames after an edit, through the lane arrays: each round moves one op
 * (its minimum start, +2 us a round; re-solve timed apart), then paints
 * the frames of the new generation: the 1st (what the drag's frames cost),
 * the 2nd (the band of solved times and the arrays' refresh are brought up
 * to date here) and the 3rd (a static schedule). Thread CPU time. */
static void
bench_after_edit (WeftTrace *trace, WeftSolver *solver, const char *label, guint32 event, double zoom, guint n)
{
  const char *only = g_getenv ("BENCH_RENDER_ONLY");
  g_autofree char *name = g_strdup_printf ("%s %s, after edit", label, zoom < 1.0 ? "mid" : "full");
  WeftRenderTimes lt;
  WeftView view;
  WeftLayout *layout;
  cairo_surface_t *s;
  double *f[3], *solve = g_new (double, n);
  gint64 s0 = weft_solver_start (solver, 0, event);

  if (only != NULL && strstr (name, only) == NULL)
    {
      g_free (solve);
      return;
    }
  s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, W, H);
  for (guint k = 0; k < 3; k++)
    f[k] = g_new (double, n);
  weft_render_times_init_solver (&lt, trace, solver);
  weft_view_init (&view, trace);
  view.width = W - WEFT_RENDER_HEADER_WIDTH;
  view.height = H - WEFT_RENDER_RULER_HEIGHT;
  layout = weft_layout_new (trace, &view);
  if (zoom < 1.0)
    {
      gint64 d = view.span.end - view.span.begin, mid = view.span.begin + d / 2, w = (gint64) ((double) d * zoom);
      view.span.begin = mid - w / 2;
      view.span.end = mid + w / 2;
    }
  for (guint k = 0; k < 3; k++)
    paint_frame (s, trace, &view, layout, &lt);
  for (guint i = 0; i < n; i++)
    {
      double c = cpu_ms ();
      weft_solver_set_min_start (solver, 0, event, s0 + (gint64) (i + 1) * 2000, NULL);
      solve[i] = cpu_ms () - c;
      weft_render_times_update (&lt);
      for (guint k = 0; k < 3; k++)
        {
          c = cpu_ms ();
          paint_frame (s, trace, &view, layout, &lt);
          f[k][i] = cpu_ms () - c;
        }
    }
  weft_solver_set_min_start (solver, 0, event, -1, NULL);
  for (guint k = 0; k < 3; k++)
    qsort (f[k], n, sizeof (double), cmp_double);
  qsort (solve, n, sizeof (double), cmp_double);
  printf ("%-30s re-solve cpu median %6.2f ms; frames of the new generation, cpu median (p90): 1st %6.2f (%6.2f) "
          "2nd %6.2f (%6.2f) 3rd %6.2f (%6.2f) ms\n",
          name, solve[n / 2], f[0][n / 2], f[0][(n * 9) / 10], f[1][n / 2], f[1][(n * 9) / 10], f[2][n / 2],
          f[2][(n * 9) / 10]);
  fflush (stdout);
  for (guint k = 0; k < 3; k++)
    g_free (f[k]);
  g_free (solve);
  weft_layout_free (layout);
  weft_view_clear (&view);
  cairo_surface_destroy (s);
}

/* The window's configuration: solved times through weft_solver_start/end. */
static void
bench_solver (WeftTrace *trace, const char *label, guint n)
{
  g_autoptr (GError) error = NULL;
  gint64 t0 = g_get_monotonic_time ();
  WeftSolver *solver = weft_solver_new (trace, &error);
  WeftRenderTimes times = { solver_time_func, solver, trace->ranks->len, NULL, NULL, 0 };
  g_autofree char *full = g_strdup_printf ("%s full, solver", label);
  g_autofree char *mid = g_strdup_printf ("%s mid, solver", label);
  g_autofree char *fullg = g_strdup_printf ("%s full, solver+gen", label);
  g_autofree char *midg = g_strdup_printf ("%s mid, solver+gen", label);

  if (solver == NULL)
    {
      printf ("%s: solver: %s (solver cases skipped)\n", label, error->message);
      return;
    }
  printf ("%s: solver built in %.0f ms\n", label, (double) (g_get_monotonic_time () - t0) / 1000.0);
  /* every frame asks the solver (generation 0) */
  bench_case (full, trace, 1.0, n, &times);
  bench_case (mid, trace, 0.05, n, &times);
  /* the window's setting: times cached per painted row until the solver's
   * generation changes (the first, re-reading frame is the warm-up) */
  times.generation = weft_solver_generation (solver) + 1;
  bench_case (fullg, trace, 1.0, n, &times);
  bench_case (midg, trace, 0.05, n, &times);
  /* the window's and weft-cli render's path: the solver's lane arrays */
  {
    WeftRenderTimes lt;
    static const double zooms[] = { 1.0, 0.05, 0.0005 };
    static const char *zname[] = { "full", "mid", "deep" };
    weft_render_times_init_solver (&lt, trace, solver);
    for (guint z = 0; z < G_N_ELEMENTS (zooms); z++)
      {
        g_autofree char *nm = g_strdup_printf ("%s %s, solver lanes", label, zname[z]);
        bench_case (nm, trace, zooms[z], n, &lt);
      }
    /* a drag: before every frame, the first collective of rank 0 moves
     * later (its minimum start; everything after it re-solves) and the
     * times get a new generation; painted per event (the old window path)
     * and through the lane arrays */
    {
      DragState d = { solver, WEFT_NONE, 0, NULL, 0, 0, 0 };
      WeftRank *r0 = weft_trace_rank (trace, 0);
      WeftRenderTimes pe = lt;
      pe.lane_func = NULL;
      for (guint32 e = 0; e < r0->events->len && d.event == WEFT_NONE; e++)
        if (weft_solver_is_node (solver, 0, e) && weft_rank_event_coll (r0, e) != WEFT_NONE)
          d.event = e;
      if (d.event != WEFT_NONE)
        {
          d.start0 = weft_solver_start (solver, 0, d.event);
          weft_solver_prepare (solver);
          pre_frame = drag_step;
          pre_frame_data = &d;
          for (guint z = 0; z < 2; z++)
            {
              g_autofree char *nm = g_strdup_printf ("%s %s, drag, per event", label, zname[z]);
              g_autofree char *nl = g_strdup_printf ("%s %s, drag, solver lanes", label, zname[z]);
              d.times = &pe;
              bench_case (nm, trace, zooms[z], n, &pe);
              drag_report (&d, nm);
              d.times = &lt;
              bench_case (nl, trace, zooms[z], n, &lt);
              drag_report (&d, nl);
            }
          pre_frame = NULL;
          weft_solver_set_min_start (solver, 0, d.event, -1, NULL);
          /* frames after an edit: of the first collective (everything after
           * it moves) and of an op at 90 % of rank 0's events (little moves) */
          bench_after_edit (trace, solver, label, d.event, 1.0, n);
          bench_after_edit (trace, solver, label, d.event, 0.05, n);
          {
            guint32 late = WEFT_NONE;
            for (guint32 e = (guint32) ((guint64) r0->events->len * 9 / 10); e < r0->events->len && late == WEFT_NONE;
                 e++)
              if (weft_solver_is_node (solver, 0, e))
                late = e;
            if (late != WEFT_NONE)
              {
                g_autofree char *ll = g_strdup_printf ("%s late op", label);
                bench_after_edit (trace, solver, ll, late, 1.0, n);
              }
          }
        }
    }
  }
  weft_solver_free (solver);
}

int
main (int argc, char **argv)
{
  guint n = argc > 1 ? (guint) MAX (atoi (argv[1]), 3) : 30;
  g_autofree char *df = weft_test_trace_path ("HolisticTraceAnalysis/df_index_resolver/df_index_resolver.json.gz");

  /* BENCH_PLAIN_FILLS=1: every box through cairo_fill (the path before fill.c) */
  weft_render_set_plain_fills (g_getenv ("BENCH_PLAIN_FILLS") != NULL);
  /* BENCH_FOLD_THREADS=N: the folds of a frame on N threads (1: one after
   * the other, the path before fold.c; unset: one per core up to 8) */
  if (g_getenv ("BENCH_FOLD_THREADS") != NULL)
    weft_render_set_fold_threads ((guint) MAX (atoi (g_getenv ("BENCH_FOLD_THREADS")), 1));
  printf ("bench-render: %dx%d ARGB32 image surface, frame = ruler + lane headers + body + highlights, %u frames\n",
          W, H, n);
  if (argc > 2)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *label = g_path_get_basename (argv[2]);
      WeftTrace *trace = weft_trace_load (argv[2], NULL, NULL, &error);
      g_autofree char *full = g_strdup_printf ("%s full", label);
      g_autofree char *mid = g_strdup_printf ("%s mid (1/20)", label);
      g_autofree char *deep = g_strdup_printf ("%s deep (1/2000)", label);
      if (trace == NULL)
        {
          fprintf (stderr, "bench-render: %s\n", error->message);
          return 1;
        }
      bench_case (full, trace, 1.0, n, NULL);
      bench_case (mid, trace, 0.05, n, NULL);
      bench_case (deep, trace, 0.0005, n, NULL);
      bench_solver (trace, label, n);
      weft_trace_free (trace);
      return 0;
    }
  if (df != NULL)
    {
      g_autoptr (GError) error = NULL;
      WeftTrace *trace = weft_trace_load (df, NULL, NULL, &error);
      if (trace == NULL)
        {
          fprintf (stderr, "bench-render: %s\n", error->message);
          return 1;
        }
      bench_case ("df_index_resolver full", trace, 1.0, n, NULL);
      bench_case ("df_index_resolver mid (1/20)", trace, 0.05, n, NULL);
      bench_case ("df_index_resolver deep (1/2000)", trace, 0.0005, n, NULL);
      bench_solver (trace, "df_index_resolver", n);
      weft_trace_free (trace);
    }
  else
    printf ("df_index_resolver: not found (set WEFT_TRACES_DIR), skipped\n");

  {
    gint64 t0 = g_get_monotonic_time ();
    WeftTrace *trace = gen_big_trace (8, 90000);
    printf ("generated 8 ranks built in %.0f ms\n", (double) (g_get_monotonic_time () - t0) / 1000.0);
    bench_case ("generated 8 ranks full", trace, 1.0, n, NULL);
    bench_case ("generated 8 ranks mid (1/20)", trace, 0.05, n, NULL);
    bench_case ("generated 8 ranks deep (1/2000)", trace, 0.0005, n, NULL);
    bench_solver (trace, "generated 8 ranks", n);
    weft_trace_free (trace);
  }
  return 0;
}
