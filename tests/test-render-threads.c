/* test-render-threads.c: the folds of a frame's depth rows shared with the
 * painter's threads (src/render/fold.c, docs/rendering.md "Level of
 * detail", threads).
 *
 * Properties, on the shared traces through the real loader:
 *   - a frame painted with 2, 3 or 8 fold threads has the pixels and the
 *     counts (boxes, folded boxes and events, labels, events visited) of
 *     the same frame folded row after row on one thread, for observed
 *     times, the solver's lane arrays and the solver's per-event times
 *     (whose folds stay on the caller's thread: the accessor may make
 *     times on demand), at the full view, 1/20 with the CPU threads
 *     expanded and a fractional scroll, and 1/2000; the shared path ran
 *     (rows_folded_shared), and where a frame has 2048 boxes or more they
 *     were filled in stripes of rows on the threads (fills_striped);
 *   - a layout kept across random solver edits and painted with 4 threads
 *     (its rows replayed and patched from their kept boxes) paints what a
 *     fresh layout folding every row on one thread paints;
 *   - the fold's search (weft_fold_first_start_at) over solved starts:
 *     random rows (ties, runs shifted by one amount as an edit shifts
 *     them, solved times unrelated to the observed ones, the row's own
 *     arrays and a lane's through positions), random queries (exact
 *     starts among them): the first entry from lo whose start is >= t, as
 *     a scan finds it; and the answer does not change when every solved
 *     start past *maxr is raised (what a kept box's maxread promises). */
#include "config.h"

#include <string.h>

#include <cairo.h>

#include "render/render-private.h"
#include "testutil.h"
#include "weft/weft-render.h"
#include "weft/weft.h"

#define W 900
#define H 700

static cairo_surface_t *
paint (WeftTrace *trace, const WeftView *view, WeftLayout *layout, const WeftRenderTimes *times, guint threads,
       WeftRenderStats *stats)
{
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, W, H);
  cairo_t *cr = cairo_create (s);

  weft_render_set_fold_threads (threads);
  weft_render_paint (cr, trace, view, layout, times, NULL, stats);
  weft_render_set_fold_threads (0);
  cairo_destroy (cr);
  cairo_surface_flush (s);
  return s;
}

static void
assert_same (cairo_surface_t *a, const WeftRenderStats *sa, cairo_surface_t *b, const WeftRenderStats *sb)
{
  g_assert_cmpuint (sa->boxes, ==, sb->boxes);
  g_assert_cmpuint (sa->folded_boxes, ==, sb->folded_boxes);
  g_assert_cmpuint (sa->events_folded, ==, sb->events_folded);
  g_assert_cmpuint (sa->labels, ==, sb->labels);
  g_assert_cmpuint (sa->events_visited, ==, sb->events_visited);
  g_assert_cmpuint (sa->rows_drawn, ==, sb->rows_drawn);
  g_assert_cmpuint (sa->rows_replayed, ==, sb->rows_replayed);
  g_assert_cmpuint (sa->rows_patched, ==, sb->rows_patched);
  g_assert_cmpmem (cairo_image_surface_get_data (a), cairo_image_surface_get_stride (a) * H,
                   cairo_image_surface_get_data (b), cairo_image_surface_get_stride (b) * H);
}

static void
view_for (WeftView *view, WeftTrace *trace, double zoom, double scroll_y)
{
  weft_view_init (view, trace);
  view->width = W;
  view->height = H;
  view->scroll_y = scroll_y;
  if (zoom < 1.0)
    {
      gint64 d = view->span.end - view->span.begin;
      view->span.begin += (gint64) (d * 0.31);
      view->span.end = view->span.begin + MAX ((gint64) (d * zoom), 1);
      for (guint r = 0; r < trace->ranks->len; r++)
        weft_view_set_rank_flags (view, r, WEFT_RANK_VIEW_CPU_EXPANDED);
    }
}

/* One view under one kind of times: serial, then each thread count on a
 * fresh layout; returns the rows the threaded paints shared, and raises
 * *striped by the colours they filled in stripes. */
static guint
threads_case (WeftTrace *trace, const WeftRenderTimes *times, double zoom, double scroll_y, guint *striped)
{
  static const guint counts[] = { 2, 3, 8 };
  WeftView view;
  WeftRenderStats s1 = { 0 };
  WeftLayout *layout;
  cairo_surface_t *one;
  guint shared = 0;

  view_for (&view, trace, zoom, scroll_y);
  layout = weft_layout_new (trace, &view);
  one = paint (trace, &view, layout, times, 1, &s1);
  weft_layout_free (layout);
  g_assert_cmpuint (s1.rows_folded_shared, ==, 0);
  g_assert_cmpuint (s1.fills_striped, ==, 0);
  for (guint k = 0; k < G_N_ELEMENTS (counts); k++)
    {
      WeftRenderStats sk = { 0 };
      cairo_surface_t *many;
      layout = weft_layout_new (trace, &view);
      many = paint (trace, &view, layout, times, counts[k], &sk);
      assert_same (many, &sk, one, &s1);
      g_assert_cmpuint (sk.fills_direct, ==, s1.fills_direct);
      /* enough boxes: filled in stripes (each colour's boxes sorted by row, as pushed) */
      if (s1.boxes >= 2048)
        g_assert_cmpuint (sk.fills_striped, >, 0);
      shared += sk.rows_folded_shared;
      *striped += sk.fills_striped;
      cairo_surface_destroy (many);
      weft_layout_free (layout);
    }
  cairo_surface_destroy (one);
  weft_view_clear (&view);
  return shared;
}

/* A kept layout across edits, 4 threads, against fresh serial paints. */
static void
edits_case (WeftTrace *trace, WeftSolver *solver, double zoom)
{
  WeftView view;
  WeftLayout *layout;
  WeftRenderTimes lanes;
  guint edits = 0, kept_rows = 0;

  view_for (&view, trace, zoom, 0.0);
  layout = weft_layout_new (trace, &view);
  weft_render_times_init_solver (&lanes, trace, solver);
  for (guint step = 0; step < 10; step++)
    {
      WeftRenderStats sk = { 0 }, sf = { 0 };
      WeftLayout *fresh = weft_layout_new (trace, &view);
      WeftRenderTimes rebuilt = lanes;
      cairo_surface_t *kept, *serial;
      rebuilt.lane_changed = NULL;
      kept = paint (trace, &view, layout, &lanes, 4, &sk);
      serial = paint (trace, &view, fresh, &rebuilt, 1, &sf);
      g_assert_cmpuint (sf.rows_replayed + sf.rows_patched, ==, 0);
      kept_rows += sk.rows_replayed + sk.rows_patched;
      /* the kept layout's, not the fold's: replayed rows visit nothing */
      sk.rows_replayed = sk.rows_patched = 0;
      sk.events_visited = sf.events_visited = 0;
      assert_same (kept, &sk, serial, &sf);
      cairo_surface_destroy (kept);
      cairo_surface_destroy (serial);
      weft_layout_free (fresh);
      if (step % 3 == 2)
        continue; /* a repaint of the same times: every row replayed */
      if (weft_test_set_random_duration (trace, solver, 40000 + step * 25000))
        {
          weft_render_times_update (&lanes);
          edits++;
        }
    }
  g_assert_cmpuint (edits, >, 0);
  g_assert_cmpuint (kept_rows, >, 0);
  weft_layout_free (layout);
  weft_view_clear (&view);
}

static void
test_shared (gconstpointer data)
{
  g_autofree char *path = weft_test_require_trace (data);
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftTrace) trace = NULL;
  g_autoptr (WeftSolver) solver = NULL;
  WeftRenderTimes lanes, per_event;
  static const double zooms[] = { 1.0, 0.05, 0.0005 };
  static const double scrolls[] = { 0.0, 13.37, 40.5 };
  guint shared_arrays = 0, striped = 0;

  if (path == NULL)
    return;
  trace = weft_trace_load (path, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (trace);
  solver = weft_solver_new (trace, &error);
  g_assert_no_error (error);
  weft_render_times_init_solver (&lanes, trace, solver);
  /* the solver's times one event at a time (a drag's first frames) */
  per_event = lanes;
  per_event.lane_func = NULL;
  per_event.lane_changed = NULL;
  per_event.generation = 0;
  for (guint z = 0; z < G_N_ELEMENTS (zooms); z++)
    {
      shared_arrays += threads_case (trace, NULL, zooms[z], scrolls[z], &striped);
      shared_arrays += threads_case (trace, &lanes, zooms[z], scrolls[z], &striped);
      threads_case (trace, &per_event, zooms[z], scrolls[z], &striped);
    }
  g_test_message ("%s: %u rows folded on shared batches, %u colours of boxes filled in stripes", (const char *) data,
                  shared_arrays, striped);
  g_assert_cmpuint (shared_arrays, >, 0);
  edits_case (trace, solver, 1.0);
  edits_case (trace, solver, 0.05);
}

/* S(i) of a test row */
static gint64
row_start (const WeftDepthRow *dr, guint i)
{
  return dr->spos != NULL ? dr->sstart[dr->spos[i]] : dr->sstart[i];
}

static void
test_first_start (void)
{
  GRand *rng = g_rand_new_with_seed (g_test_rand_int ());
  WeftRankTimes rt;
  guint searched = 0;

  memset (&rt, 0, sizeof rt);
  for (guint round = 0; round < 600; round++)
    {
      guint n = (guint) g_rand_int_range (rng, 1, round % 10 == 0 ? 20000 : 200);
      gboolean lane = g_rand_boolean (rng), unrelated = round % 5 == 4;
      guint n_lane = lane ? n * 2 + 3 : n;
      gint64 *ts = g_new (gint64, n), *ss = g_new0 (gint64, n_lane), shift = g_rand_int_range (rng, -500, 500);
      guint32 *pos = lane ? g_new (guint32, n) : NULL;
      WeftDepthRow dr;
      gint64 now = g_rand_int_range (rng, 0, 1000), snow = now;
      for (guint i = 0, p = 0; i < n; i++)
        {
          if (g_rand_int_range (rng, 0, 3) != 0)
            now += g_rand_int_range (rng, 1, 40);
          ts[i] = now;
          if (g_rand_int_range (rng, 0, 30) == 0)
            shift += g_rand_int_range (rng, 0, 300); /* an edit moved the rest by one amount */
          if (unrelated && g_rand_int_range (rng, 0, 3) != 0)
            snow += g_rand_int_range (rng, 0, 60);
          if (lane)
            {
              p += (guint) g_rand_int_range (rng, 1, 3);
              pos[i] = MIN (p, n_lane - 1 - (n - 1 - i));
              p = pos[i];
              ss[pos[i]] = unrelated ? snow : ts[i] + shift;
            }
          else
            ss[i] = unrelated ? snow : ts[i] + shift;
        }
      memset (&dr, 0, sizeof dr);
      dr.n = n;
      dr.ts = ts;
      dr.sstart = ss;
      dr.spos = pos;
      for (guint q = 0; q < 40; q++)
        {
          guint lo = (guint) g_rand_int_range (rng, 0, (gint32) n + 1), maxr = 0, want = lo, got, again;
          gint64 t;
          guint at = lo + (guint) g_rand_int_range (rng, 0, 50);
          if (lo < n && g_rand_boolean (rng))
            t = row_start (&dr, MIN (at, n - 1)); /* an exact start */
          else
            t = row_start (&dr, MIN (lo, n - 1)) + g_rand_int_range (rng, -20, 2000);
          while (want < n && row_start (&dr, want) < t)
            want++;
          got = weft_fold_first_start_at (&rt, &dr, lo, t, &maxr);
          g_assert_cmpuint (got, ==, want);
          if (lo >= n)
            continue;
          g_assert_cmpuint (maxr, <, n);
          searched += got > lo + 1;
          /* what it did not read does not matter: every start past maxr raised */
          {
            gint64 *raised = g_memdup2 (ss, n_lane * sizeof (gint64));
            WeftDepthRow r2 = dr;
            gint64 up = g_rand_int_range (rng, 1, 100000);
            for (guint i = maxr + 1; i < n; i++)
              raised[lane ? pos[i] : i] += up;
            r2.sstart = raised;
            again = weft_fold_first_start_at (&rt, &r2, lo, t, &maxr);
            g_assert_cmpuint (again, ==, got);
            g_free (raised);
          }
        }
      g_free (ts);
      g_free (ss);
      g_free (pos);
    }
  g_assert_cmpuint (searched, >, 1000);
  g_rand_free (rng);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/render-threads/first-start", test_first_start);
  g_test_add_data_func ("/render-threads/fsdp8", "synthetic/fsdp8/profiling/traces/iteration_10", test_shared);
  g_test_add_data_func ("/render-threads/dlrm", "param/et_replay/tests/inputs/dlrm_kineto", test_shared);
  g_test_add_data_func ("/render-threads/nccl-data", "HolisticTraceAnalysis/nccl_parser_config/nccl_data.json.gz",
                        test_shared);
  g_test_add_data_func ("/render-threads/h100-qwen", "TraceLens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
                        test_shared);
  g_test_add_data_func ("/render-threads/df-index-resolver",
                        "HolisticTraceAnalysis/df_index_resolver/df_index_resolver.json.gz", test_shared);
  return g_test_run ();
}
