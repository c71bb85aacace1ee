/* test-lane-times.c: the solver's per-lane arrays of solved times
 * (weft_solver_lane_times) and the painter reading them.
 *
 * Properties, on the shared traces (real loader) and on a trace written
 * here with nested CPU ops, launches and cudaStreamSynchronize calls:
 *   - after the build and after every one of a series of random edits,
 *     every entry of every lane equals weft_solver_times of its event (the
 *     arrays are kept current incrementally: only a structural edit
 *     rebuilds them, and a change late in the schedule rewrites fewer
 *     entries than there are events);
 *   - the painter drawing through the lane arrays gives the same pixels as
 *     the painter asking the solver per event. */
#include "config.h"

#include <string.h>

#include <cairo.h>
#include <glib/gstdio.h>

#include "testutil.h"
#include "weft/weft-render.h"
#include "weft/weft.h"

static WeftTrace *
load (const char *path)
{
  g_autoptr (GError) error = NULL;
  WeftTrace *trace = weft_trace_load (path, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (trace);
  return trace;
}

/* Every lane's arrays against the per-event answer. */
static void
check_lanes (WeftTrace *trace, WeftSolver *solver)
{
  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);
      for (guint32 l = 0; l < rank->lanes->len; l++)
        {
          WeftLane *lane = weft_rank_lane (rank, l);
          const gint64 *s = NULL, *e = NULL;
          guint n = weft_solver_lane_times (solver, r, l, &s, &e);
          g_assert_cmpuint (n, ==, lane->events->len);
          for (guint i = 0; i < n; i++)
            {
              gint64 bs, be;
              weft_solver_times (solver, r, g_array_index (lane->events, guint32, i), &bs, &be);
              if (s[i] != bs || e[i] != be)
                g_error ("rank %u lane %u entry %u (event %u): lane arrays %" G_GINT64_FORMAT "..%" G_GINT64_FORMAT
                         ", solver %" G_GINT64_FORMAT "..%" G_GINT64_FORMAT,
                         r, l, i, g_array_index (lane->events, guint32, i), s[i], e[i], bs, be);
            }
        }
    }
}

/* Every rank's overlap band of solved times from the lane arrays (a merge
 * of per-lane unions, no sort) against the band from the per-event times
 * (the edge sort): the same segments. */
static void
same_band (const char *what, guint r, GArray *a, GArray *b)
{
  g_assert_nonnull (a);
  g_assert_nonnull (b);
  if (a->len != b->len)
    g_error ("rank %u: band %s has %u segments, the sorted one %u", r, what, a->len, b->len);
  for (guint i = 0; i < a->len; i++)
    {
      const WeftOverlapSegment *x = &g_array_index (a, WeftOverlapSegment, i);
      const WeftOverlapSegment *y = &g_array_index (b, WeftOverlapSegment, i);
      if (x->begin != y->begin || x->end != y->end || x->state != y->state)
        g_error ("rank %u band segment %u: %s %" G_GINT64_FORMAT "..%" G_GINT64_FORMAT " state %d, sorted %" G_GINT64_FORMAT
                 "..%" G_GINT64_FORMAT " state %d",
                 r, i, what, x->begin, x->end, x->state, y->begin, y->end, y->state);
    }
}

/* Every rank's overlap band of solved times from the lane arrays (a merge
 * of per-lane unions, no sort), and through the layout's per-lane cache
 * of op classes (kept across the edits: it must notice lanes whose events
 * changed), against the band from the per-event times (the edge sort):
 * the same segments. */
/* The band the painter keeps (weft_layout_painted_band) is patched where
 * the lane arrays changed: after an edit that is not structural, its
 * first call for the new generation already gives the sorted band's
 * segments where it was made from the lane arrays (a band remade only on
 * the second call would still be the previous one); else, and after a
 * structural edit, the second call (remade) does. n_band_patched counts
 * the first calls that gave a band that differs from the previous
 * generation's (a real patch). */
static guint n_band_patched;

static gboolean
band_equal (const GArray *a, const GArray *b)
{
  return a != NULL && b != NULL && a->len == b->len &&
         memcmp (a->data, b->data, (gsize) a->len * sizeof (WeftOverlapSegment)) == 0;
}

static void
check_painted_band (WeftLayout *layout, const WeftRenderTimes *lanes, guint r, GArray *sorted, GArray *before,
                    gboolean structural)
{
  const GArray *p = weft_layout_painted_band (layout, lanes, r);
  if (!structural && band_equal (p, sorted) && before != NULL && !band_equal (before, sorted))
    n_band_patched++;
  if (structural || !band_equal (p, sorted))
    p = weft_layout_painted_band (layout, lanes, r);
  same_band ("kept by the layout", r, (GArray *) p, sorted);
}

static void
check_bands_after (WeftTrace *trace, WeftSolver *solver, WeftLayout *layout, gboolean structural)
{
  static GPtrArray *before; /* per rank: the sorted band of the previous check */
  WeftRenderTimes lanes, per_event;
  weft_render_times_init_solver (&lanes, trace, solver);
  per_event = lanes;
  per_event.lane_func = NULL;
  for (guint r = 0; r < trace->ranks->len; r++)
    {
      g_autoptr (GArray) a = weft_render_overlap_band (trace, &lanes, r);
      g_autoptr (GArray) b = weft_render_overlap_band (trace, &per_event, r);
      g_autoptr (GArray) c = weft_layout_overlap_band (layout, &lanes, r);
      same_band ("from the lanes", r, a, b);
      same_band ("from the layout's cache", r, c, b);
      if (before == NULL)
        before = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
      if (structural && r == 0) /* a new series (check_bands) */
        g_ptr_array_set_size (before, 0);
      check_painted_band (layout, &lanes, r, b, r < before->len ? g_ptr_array_index (before, r) : NULL, structural);
      if (r < before->len)
        {
          g_array_unref (g_ptr_array_index (before, r));
          g_ptr_array_index (before, r) = g_array_ref (b);
        }
      else
        g_ptr_array_add (before, g_array_ref (b));
    }
}

static void
check_bands (WeftTrace *trace, WeftSolver *solver, WeftLayout *layout)
{
  check_bands_after (trace, solver, layout, TRUE);
}

static guint64
n_events (WeftTrace *trace)
{
  guint64 n = 0;
  for (guint r = 0; r < trace->ranks->len; r++)
    n += weft_trace_rank (trace, r)->events->len;
  return n;
}

/* A random GPU op of a random rank (WEFT_NONE when the trace has none). */
static guint32
random_op (WeftTrace *trace, WeftSolver *solver, guint *rank_out)
{
  for (guint tries = 0; tries < 64; tries++)
    {
      guint r = (guint) g_test_rand_int_range (0, (gint32) trace->ranks->len);
      WeftRank *rank = weft_trace_rank (trace, r);
      guint32 start, e;
      if (rank->events->len == 0)
        continue;
      start = (guint32) g_test_rand_int_range (0, (gint32) rank->events->len);
      for (guint k = 0; k < rank->events->len; k++)
        {
          e = (start + k) % rank->events->len;
          if (weft_solver_is_node (solver, r, e))
            {
              *rank_out = r;
              return e;
            }
        }
    }
  return WEFT_NONE;
}

/* n random edits (durations, minimum starts, scaling, removal and
 * restoring, moves within the stream), each checked. */
static void
random_edits (WeftTrace *trace, guint n_edits)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftSolver) solver = weft_solver_new (trace, &error);
  g_autoptr (GArray) removed = g_array_new (FALSE, FALSE, sizeof (guint64));
  WeftSolverStats st;
  guint n_incremental = 0, builds;
  guint64 total = n_events (trace);
  WeftView view;
  g_autoptr (WeftLayout) layout = NULL;

  g_assert_no_error (error);
  weft_view_init (&view, trace);
  layout = weft_layout_new (trace, &view);
  check_lanes (trace, solver);
  check_bands (trace, solver, layout);
  weft_solver_stats (solver, &st);
  g_assert_cmpuint (st.n_lane_times_builds, ==, 1);
  g_assert_cmpuint (st.n_lane_times_written, ==, total);
  for (guint step = 0; step < n_edits; step++)
    {
      guint r = 0;
      guint32 ev = random_op (trace, solver, &r);
      int what = g_test_rand_int_range (0, 8);
      gboolean structural = FALSE;
      guint64 written;
      if (ev == WEFT_NONE)
        break;
      if (step == n_edits / 3)
        weft_solver_prepare (solver); /* from here on large re-solves sweep the plan */
      weft_solver_stats (solver, &st);
      written = st.n_lane_times_written;
      builds = st.n_lane_times_builds;
      if (what == 0)
        g_assert_true (weft_solver_set_duration (solver, r, ev, g_test_rand_int_range (0, 200000), &error));
      else if (what == 1)
        g_assert_true (weft_solver_set_min_start (solver, r, ev,
                                                  weft_solver_start (solver, r, ev) +
                                                    g_test_rand_int_range (-20000, 400000),
                                                  &error));
      else if (what == 2)
        g_assert_true (weft_solver_set_min_start (solver, r, ev, -1, &error));
      else if (what == 3)
        weft_solver_scale_class (solver, (WeftKernelClass) g_test_rand_int_range (0, WEFT_KCLASS_N_CLASSES),
                                 0.5 + g_test_rand_double ());
      else if (what == 4)
        {
          guint64 key = ((guint64) r << 32) | ev;
          g_assert_true (weft_solver_remove_op (solver, r, ev, &error));
          g_array_append_val (removed, key);
          structural = TRUE;
        }
      else if (what == 5 && removed->len > 0)
        {
          guint64 key = g_array_index (removed, guint64, removed->len - 1);
          g_array_set_size (removed, removed->len - 1);
          if (!weft_solver_restore_op (solver, (guint) (key >> 32), (guint32) key, &error))
            g_clear_error (&error);
          structural = TRUE;
        }
      else if (what == 6)
        {
          /* reordered on its own stream (the lane keeps its length) */
          guint32 lane = weft_rank_event (weft_trace_rank (trace, r), ev)->lane;
          if (!weft_solver_move_to_lane (solver, r, ev, lane,
                                         weft_solver_start (solver, r, ev) + g_test_rand_int_range (-500000, 500000),
                                         &error))
            g_clear_error (&error);
          structural = TRUE;
        }
      else
        {
          /* a drag: several motions of one op, each a re-solve */
          gint64 s0 = weft_solver_start (solver, r, ev);
          for (guint m = 1; m <= 4; m++)
            g_assert_true (weft_solver_set_min_start (solver, r, ev, s0 + m * 3000, &error));
        }
      check_lanes (trace, solver);
      check_bands_after (trace, solver, layout, structural);
      weft_solver_stats (solver, &st);
      if (!structural)
        {
          /* kept current in place: no rebuild, and (as a re-solve changes
           * what follows the edit) rarely everything rewritten */
          g_assert_cmpuint (st.n_lane_times_builds, ==, builds);
          if (st.n_lane_times_written - written < total)
            n_incremental++;
        }
    }
  weft_solver_stats (solver, &st);
  g_test_message ("%u edits, %u rewrote less than the whole trace; %u plan sweeps; %u bands patched", n_edits,
                  n_incremental, st.n_plan_sweeps, n_band_patched);
  g_clear_pointer (&layout, weft_layout_free);
  weft_view_clear (&view);
  g_assert_cmpuint (n_incremental, >, 0);
}

/* One rank: a CPU thread with a ProfilerStep, nested cpu_ops each launching
 * a kernel on stream 7 (every 5th also one on stream 8), a
 * cudaStreamSynchronize after every 8th launch waiting for the kernel, and
 * gpu_user_annotations over groups of kernels. */
static char *
write_sync_trace (guint n_ops)
{
  GString *s = g_string_new ("{\"schemaVersion\": 1, \"deviceProperties\": [], \"traceEvents\": [\n");
  double t = 10.0, gpu = 20.0;
  gint64 corr = 1000;
  double step_begin = t;
  char *path;

  for (guint i = 0; i < n_ops; i++)
    {
      double dur = 5.0 + (i * 7 % 13);
      int stream = i % 5 == 4 ? 8 : 7;
      double k0 = MAX (gpu, t + 6.0);
      g_string_append_printf (s,
                              "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::op%u\", \"pid\": 100, \"tid\": 100, "
                              "\"ts\": %.3f, \"dur\": 4.000, \"args\": {\"External id\": %u}},\n",
                              i % 7, t, i + 1);
      g_string_append_printf (s,
                              "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 100, "
                              "\"tid\": 100, \"ts\": %.3f, \"dur\": 2.000, \"args\": {\"cbid\": 211, \"correlation\": %"
                              G_GINT64_FORMAT "}},\n",
                              t + 1.0, corr);
      g_string_append_printf (s,
                              "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": %d, "
                              "\"ts\": %.3f, \"dur\": %.3f, \"args\": {\"device\": 0, \"stream\": %d, \"correlation\": %"
                              G_GINT64_FORMAT ", \"External id\": %u}},\n",
                              i % 11 == 5 ? "ncclDevKernel_AllReduce_Sum_f32_RING_LL"
                              : i % 3   ? "gemm_kernel"
                                        : "elementwise_kernel",
                              stream, k0, dur, stream, corr, i + 1);
      if (i % 6 == 0)
        g_string_append_printf (s,
                                "{\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": \"group%u\", \"pid\": 0, "
                                "\"tid\": %d, \"ts\": %.3f, \"dur\": %.3f, \"args\": {\"device\": 0, \"stream\": %d}},\n",
                                i, stream, k0, dur, stream);
      corr++;
      gpu = k0 + dur + 1.0;
      t += 5.0;
      if (i % 8 == 7)
        {
          double until = MAX (t + 1.0, gpu + 1.0);
          g_string_append_printf (s,
                                  "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaStreamSynchronize\", "
                                  "\"pid\": 100, \"tid\": 100, \"ts\": %.3f, \"dur\": %.3f, \"args\": {\"cbid\": 131, "
                                  "\"correlation\": %" G_GINT64_FORMAT "}},\n",
                                  t, until - t, corr++);
          t = until + 1.0;
        }
    }
  g_string_append_printf (s,
                          "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 100, "
                          "\"tid\": 100, \"ts\": %.3f, \"dur\": %.3f, \"args\": {}},\n",
                          step_begin - 1.0, t - step_begin + 2.0);
  g_string_append (s, "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 100, \"tid\": 100, \"args\": {\"name\": \"main\"}}\n"
                      "], \"baseTimeNanoseconds\": 1700000000000000000}\n");
  path = weft_test_write_file ("sync-trace.json", s->str, (gssize) s->len);
  g_string_free (s, TRUE);
  return path;
}

static void
test_sync_trace (void)
{
  g_autofree char *path = write_sync_trace (400);
  g_autoptr (WeftTrace) trace = load (path);
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftSolver) solver = weft_solver_new (trace, &error);
  WeftSolverStats st;

  g_assert_no_error (error);
  weft_solver_stats (solver, &st);
  g_assert_cmpuint (st.n_syncs, >, 40);
  random_edits (trace, 60);
}

/* An epoch is one solver's: asked with an epoch of another solver (one
 * freed before it, likely at the same address, or one alive), a solver
 * says it does not know what changed since, so a painter's cache keyed on
 * a solver's address and an epoch never takes one solver for another. */
static void
test_epoch_other_solver (void)
{
  g_autofree char *path = write_sync_trace (40);
  g_autoptr (WeftTrace) ta = load (path);
  g_autoptr (WeftTrace) tb = load (path);
  g_autoptr (GError) error = NULL;
  WeftSolver *a = weft_solver_new (ta, &error), *b;
  guint64 ea, eb, e;
  guint lo, hi;
  gint64 tlo, thi;
  gconstpointer old_address = a;

  g_assert_no_error (error);
  g_assert_false (weft_solver_lane_times_changed (a, 0, 0, 0, &ea, &lo, &hi)); /* since 0: not known */
  g_assert_cmpuint (ea, >, 0);
  g_assert_true (weft_solver_lane_times_changed (a, 0, 0, ea, &e, &lo, &hi));
  g_assert_cmpuint (lo, >, hi); /* nothing changed since */
  weft_solver_free (a);
  b = weft_solver_new (tb, &error);
  g_assert_no_error (error);
  g_test_message ("the second solver is %s the first one's address",
                  (gconstpointer) b == old_address ? "at" : "not at");
  g_assert_false (weft_solver_lane_times_changed (b, 0, 0, ea, &eb, &lo, &hi));
  g_assert_false (weft_solver_lane_times_gpu_window (b, 0, ea, &eb, &tlo, &thi));
  g_assert_cmpuint (eb, >, ea);
  g_assert_true (weft_solver_lane_times_changed (b, 0, 0, eb, &e, &lo, &hi));
  g_assert_true (weft_solver_lane_times_gpu_window (b, 0, eb, &e, &tlo, &thi));
  {
    /* and one alive at the same time */
    g_autoptr (WeftSolver) c = weft_solver_new (ta, &error);
    guint64 ec;
    g_assert_no_error (error);
    weft_solver_lane_times_changed (c, 0, 0, 0, &ec, &lo, &hi);
    g_assert_false (weft_solver_lane_times_changed (c, 0, 0, eb, &e, &lo, &hi));
    g_assert_false (weft_solver_lane_times_changed (b, 0, 0, ec, &e, &lo, &hi));
  }
  weft_solver_free (b);
}

/* Two generated ranks of > 200k events together: the arrays are built
 * one rank per core (the build only reads the solver and the model). */
static void
test_threaded_build (void)
{
  g_autofree char *dir = g_build_filename (weft_test_tmpdir (), "two-ranks", NULL);
  g_autoptr (WeftTrace) trace = NULL;
  g_mkdir_with_parents (dir, 0755);
  for (int r = 0; r < 2; r++)
    {
      g_autofree char *name = g_strdup_printf ("rank%d_trace.json", r);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      weft_test_write_step_rank (path, r, 2, 52000, 17 + (guint32) r, "gemm_kernel", "elementwise_kernel");
    }
  trace = load (dir);
  g_assert_cmpuint (n_events (trace), >=, 200000);
  random_edits (trace, 6);
}

static void
test_shared (gconstpointer data)
{
  g_autofree char *path = weft_test_require_trace (data);
  g_autoptr (WeftTrace) trace = NULL;
  if (path == NULL)
    return;
  trace = load (path);
  n_band_patched = 0;
  random_edits (trace, 40);
}

/* Drags only (minimum starts of GPU ops, a few motions each: no
 * structural edit, the lanes keep their order): the band the layout keeps
 * is patched on the first paint of every generation, so each first call
 * gives the sorted band's segments, and the edits that changed the band
 * were patched (not one remade: the arrays are never rebuilt). */
static void
band_patch_drags (WeftTrace *trace, guint n_ops)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftSolver) solver = weft_solver_new (trace, &error);
  g_autoptr (WeftLayout) layout = NULL;
  g_autoptr (GPtrArray) prev = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  WeftSolverStats st;
  WeftView view;
  guint builds, changed = 0, n_changed_bands = 0;

  g_assert_no_error (error);
  weft_view_init (&view, trace);
  layout = weft_layout_new (trace, &view);
  check_bands (trace, solver, layout);
  for (guint q = 0; q < trace->ranks->len; q++)
    g_ptr_array_add (prev, weft_render_overlap_band (trace, NULL, q)); /* observed: replaced below */
  weft_solver_stats (solver, &st);
  builds = st.n_lane_times_builds;
  n_band_patched = 0;
  for (guint k = 0; k < n_ops; k++)
    {
      guint r = 0;
      guint32 ev = random_op (trace, solver, &r);
      gint64 s0;
      if (ev == WEFT_NONE)
        break;
      s0 = weft_solver_start (solver, r, ev);
      for (guint m = 1; m <= 3; m++)
        {
          WeftRenderTimes lanes, per_event;
          g_assert_true (weft_solver_set_min_start (solver, r, ev, s0 + (gint64) m * 7000, &error));
          weft_render_times_init_solver (&lanes, trace, solver);
          per_event = lanes;
          per_event.lane_func = NULL;
          for (guint q = 0; q < trace->ranks->len; q++)
            {
              GArray *sorted = weft_render_overlap_band (trace, &per_event, q);
              const GArray *kept = weft_layout_painted_band (layout, &lanes, q);
              same_band ("kept by the layout, first paint of a drag's motion", q, (GArray *) kept, sorted);
              /* a motion that changed the band: the kept one was patched */
              if (m > 1 && !band_equal (g_ptr_array_index (prev, q), sorted))
                n_changed_bands++;
              g_array_unref (g_ptr_array_index (prev, q));
              g_ptr_array_index (prev, q) = sorted;
            }
        }
      changed++;
    }
  weft_solver_stats (solver, &st);
  g_assert_cmpuint (st.n_lane_times_builds, ==, builds);
  g_test_message ("%u ops dragged, 3 motions each: every first paint had the current band, %u of them changed",
                  changed, n_changed_bands);
  g_assert_cmpuint (n_changed_bands, >, 0);
  g_clear_pointer (&layout, weft_layout_free);
  weft_view_clear (&view);
}

static void
test_band_patch (void)
{
  g_autofree char *path = write_sync_trace (300);
  g_autoptr (WeftTrace) trace = load (path);
  band_patch_drags (trace, 24);
}

static void
test_band_patch_shared (gconstpointer data)
{
  g_autofree char *path = weft_test_require_trace (data);
  g_autoptr (WeftTrace) trace = NULL;
  if (path == NULL)
    return;
  trace = load (path);
  band_patch_drags (trace, 16);
}

/* The layout's cache of op classes for the band after lanes change their
 * events without changing their length: an op of stream 7 moved to
 * stream 8 and one of stream 8 to stream 7 (the sync trace's streams run
 * compute and NCCL kernels); each band equals the sorted one. */
static void
test_band_cache (void)
{
  g_autofree char *path = write_sync_trace (300);
  g_autoptr (WeftTrace) trace = load (path);
  g_autoptr (WeftSolver) solver = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftLayout) layout = NULL;
  WeftView view;
  WeftRank *rank = weft_trace_rank (trace, 0);
  guint32 lanes[2] = { WEFT_NONE, WEFT_NONE };
  guint n_moves = 0, n_comm = 0;

  solver = weft_solver_new (trace, &error);
  g_assert_no_error (error);
  weft_view_init (&view, trace);
  layout = weft_layout_new (trace, &view);
  for (guint32 e = 0; e < rank->events->len; e++)
    if (weft_solver_is_node (solver, 0, e))
      {
        guint32 l = weft_rank_event (rank, e)->lane;
        if (lanes[0] == WEFT_NONE)
          lanes[0] = l;
        else if (lanes[1] == WEFT_NONE && l != lanes[0])
          lanes[1] = l;
        n_comm += weft_rank_event (rank, e)->kclass == WEFT_KCLASS_COMM;
      }
  g_assert_cmpuint (n_comm, >, 0);
  g_assert_cmpuint (lanes[1], !=, WEFT_NONE);
  check_bands (trace, solver, layout);
  for (guint k = 0; k < 24; k++)
    {
      guint n0 = weft_rank_lane (rank, lanes[0])->events->len, n1 = weft_rank_lane (rank, lanes[1])->events->len;
      guint moved = 0;
      for (guint side = 0; side < 2; side++)
        {
          const WeftLane *from = weft_rank_lane (rank, lanes[side]);
          guint32 ev = g_array_index (from->events, guint32, (guint) g_test_rand_int_range (0, (gint32) from->events->len));
          if (weft_solver_is_node (solver, 0, ev) &&
              weft_solver_move_to_lane (solver, 0, ev, lanes[1 - side], weft_solver_start (solver, 0, ev), &error))
            moved++;
          else
            g_clear_error (&error);
        }
      if (moved == 2)
        {
          /* both lanes hold other events, in the same number */
          g_assert_cmpuint (weft_rank_lane (rank, lanes[0])->events->len, ==, n0);
          g_assert_cmpuint (weft_rank_lane (rank, lanes[1])->events->len, ==, n1);
          n_moves++;
        }
      check_bands (trace, solver, layout);
    }
  g_test_message ("%u swaps of ops between two streams of NCCL kernels and compute (%u NCCL)", n_moves, n_comm);
  g_assert_cmpuint (n_moves, >, 4);
  g_clear_pointer (&layout, weft_layout_free);
  weft_view_clear (&view);
}

/* The body painted through the lane arrays equals the body painted by
 * asking the solver for each event, after edits. */
static void
paint_both (WeftTrace *trace, WeftSolver *solver, double zoom, gboolean cpu, gboolean budget_one)
{
  g_autofree guint8 *first = NULL;
  WeftView view;
  WeftLayout *layout;
  WeftRenderTimes lanes, per_event;
  cairo_surface_t *a = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 900, 700);
  cairo_surface_t *b = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 900, 700);
  WeftRenderStats sa = { 0 }, sb = { 0 };

  weft_view_init (&view, trace);
  view.width = 900;
  view.height = 700;
  /* the band of solved times follows its own per-generation rule: the
   * events alone are compared */
  view.show_overlap_band = FALSE;
  for (guint r = 0; cpu && r < trace->ranks->len; r++)
    weft_view_set_rank_flags (&view, r, WEFT_RANK_VIEW_CPU_EXPANDED);
  if (zoom < 1.0)
    {
      gint64 d = view.span.end - view.span.begin;
      view.span.begin += (gint64) (d * 0.4);
      view.span.end = view.span.begin + (gint64) (d * zoom);
    }
  layout = weft_layout_new (trace, &view);
  weft_render_times_init_solver (&lanes, trace, solver);
  per_event = lanes;
  per_event.lane_func = NULL;
  per_event.generation = 0;
  /* with a tiny refresh budget, the first paint after an edit asks per
   * event (as during a drag) and the next one reads the refreshed arrays:
   * every paint must show the same */
  if (budget_one)
    weft_layout_set_refresh_budget (layout, 1);
  for (int k = 0; k < 3; k++)
    {
      cairo_t *cr = cairo_create (k < 2 ? a : b);
      weft_render_paint (cr, trace, &view, layout, k < 2 ? &lanes : &per_event, NULL, k < 2 ? &sa : &sb);
      cairo_destroy (cr);
      if (k == 0)
        {
          cairo_surface_flush (a);
          first = g_memdup2 (cairo_image_surface_get_data (a), (gsize) cairo_image_surface_get_stride (a) * 700);
        }
    }
  cairo_surface_flush (a);
  cairo_surface_flush (b);
  g_assert_cmpuint (sa.boxes, ==, sb.boxes);
  g_assert_cmpuint (sa.boxes, >, 0);
  g_assert_cmpmem (cairo_image_surface_get_data (a), cairo_image_surface_get_stride (a) * 700,
                   cairo_image_surface_get_data (b), cairo_image_surface_get_stride (b) * 700);
  g_assert_cmpmem (first, cairo_image_surface_get_stride (a) * 700, cairo_image_surface_get_data (b),
                   cairo_image_surface_get_stride (b) * 700);
  cairo_surface_destroy (a);
  cairo_surface_destroy (b);
  weft_layout_free (layout);
  weft_view_clear (&view);
}

static void
test_paint_same (void)
{
  g_autofree char *path = write_sync_trace (300);
  g_autoptr (WeftTrace) trace = load (path);
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftSolver) solver = weft_solver_new (trace, &error);
  guint r = 0;

  g_assert_no_error (error);
  for (guint step = 0; step < 6; step++)
    {
      guint32 ev = random_op (trace, solver, &r);
      paint_both (trace, solver, 1.0, FALSE, step % 2 == 1);
      paint_both (trace, solver, 0.05, TRUE, step % 2 == 0);
      g_assert_true (weft_solver_set_duration (solver, r, ev, 30000 + step * 20000, &error));
    }
}

/* The painter's box caches (docs/rendering.md "Level of detail", box
 * cache): a layout kept across drags and other non-structural edits, its
 * rows replayed or patched where the lane arrays changed (and its bands
 * and memory rows replayed when unchanged), must paint the same pixels
 * and count the same boxes and labels as a fresh layout folding every row
 * (lane_changed unset: nothing kept); and the solver's per-lane changed
 * positions (weft_solver_lane_times_changed) must hold every entry that
 * changed. Views: the whole trace, and 1/20 of it with the CPU threads
 * expanded; each edit paints both. */
typedef struct
{
  WeftView         view;
  WeftLayout      *layout;
  cairo_surface_t *kept, *fresh;
  guint            replayed, patched, bands_patched;
} CacheView;

static void
cache_view_init (CacheView *cv, WeftTrace *trace, double zoom)
{
  memset (cv, 0, sizeof *cv);
  weft_view_init (&cv->view, trace);
  cv->view.width = 900;
  cv->view.height = 700;
  if (zoom < 1.0)
    {
      gint64 d = cv->view.span.end - cv->view.span.begin;
      cv->view.span.begin += (gint64) (d * 0.3);
      cv->view.span.end = cv->view.span.begin + (gint64) (d * zoom);
      for (guint r = 0; r < trace->ranks->len; r++)
        weft_view_set_rank_flags (&cv->view, r, WEFT_RANK_VIEW_CPU_EXPANDED);
    }
  cv->layout = weft_layout_new (trace, &cv->view);
  cv->kept = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 900, 700);
  cv->fresh = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 900, 700);
}

static void
cache_view_clear (CacheView *cv)
{
  weft_layout_free (cv->layout);
  cairo_surface_destroy (cv->kept);
  cairo_surface_destroy (cv->fresh);
  weft_view_clear (&cv->view);
}

static void
cache_view_check (CacheView *cv, WeftTrace *trace, WeftSolver *solver)
{
  WeftRenderTimes lanes, rebuilt;
  WeftRenderStats sk = { 0 }, sf = { 0 };
  WeftLayout *fresh = weft_layout_new (trace, &cv->view);
  cairo_t *cr;

  weft_render_times_init_solver (&lanes, trace, solver);
  rebuilt = lanes;
  rebuilt.lane_changed = NULL;
  cr = cairo_create (cv->kept);
  weft_render_paint (cr, trace, &cv->view, cv->layout, &lanes, NULL, &sk);
  cairo_destroy (cr);
  cr = cairo_create (cv->fresh);
  weft_render_paint (cr, trace, &cv->view, fresh, &rebuilt, NULL, &sf);
  cairo_destroy (cr);
  weft_layout_free (fresh);
  cairo_surface_flush (cv->kept);
  cairo_surface_flush (cv->fresh);
  g_assert_cmpuint (sf.rows_replayed + sf.rows_patched, ==, 0);
  g_assert_cmpuint (sk.boxes, ==, sf.boxes);
  g_assert_cmpuint (sk.folded_boxes, ==, sf.folded_boxes);
  g_assert_cmpuint (sk.events_folded, ==, sf.events_folded);
  g_assert_cmpuint (sk.labels, ==, sf.labels);
  g_assert_cmpuint (sk.boxes, >, 0);
  g_assert_cmpmem (cairo_image_surface_get_data (cv->kept), cairo_image_surface_get_stride (cv->kept) * 700,
                   cairo_image_surface_get_data (cv->fresh), cairo_image_surface_get_stride (cv->fresh) * 700);
  cv->replayed += sk.rows_replayed;
  cv->patched += sk.rows_patched;
  cv->bands_patched += sk.bands_patched;
}

/* Copies of every lane's arrays of every rank. */
static GPtrArray *
snapshot_lanes (WeftTrace *trace, WeftSolver *solver)
{
  GPtrArray *snap = g_ptr_array_new_with_free_func (g_free);
  for (guint r = 0; r < trace->ranks->len; r++)
    for (guint32 l = 0; l < weft_trace_rank (trace, r)->lanes->len; l++)
      {
        const gint64 *s = NULL, *e = NULL;
        guint n = weft_solver_lane_times (solver, r, l, &s, &e);
        gint64 *c = g_new (gint64, 2 * (gsize) n + 1);
        c[0] = n;
        memcpy (c + 1, s, n * sizeof (gint64));
        memcpy (c + 1 + n, e, n * sizeof (gint64));
        g_ptr_array_add (snap, c);
      }
  return snap;
}

/* Every entry outside the range weft_solver_lane_times_changed gives since
 * the snapshot's epoch equals the snapshot; returns how many lanes had a
 * range. */
static guint
check_changed_ranges (WeftTrace *trace, WeftSolver *solver, GPtrArray *snap, guint64 since)
{
  guint k = 0, n_ranges = 0;
  for (guint r = 0; r < trace->ranks->len; r++)
    for (guint32 l = 0; l < weft_trace_rank (trace, r)->lanes->len; l++, k++)
      {
        const gint64 *s = NULL, *e = NULL, *c = g_ptr_array_index (snap, k);
        guint64 epoch;
        guint lo, hi;
        guint n = weft_solver_lane_times (solver, r, l, &s, &e);
        g_assert_true (weft_solver_lane_times_changed (solver, r, l, since, &epoch, &lo, &hi));
        g_assert_cmpuint (n, ==, (guint) c[0]);
        for (guint i = 0; i < n; i++)
          if (i < lo || i > hi)
            {
              g_assert_cmpint (s[i], ==, c[1 + i]);
              g_assert_cmpint (e[i], ==, c[1 + n + i]);
            }
        if (lo <= hi)
          n_ranges++;
      }
  return n_ranges;
}

static void
box_cache_edits (WeftTrace *trace, guint n_ops)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftSolver) solver = weft_solver_new (trace, &error);
  CacheView full, zoomed;
  guint n_ranges = 0;

  g_assert_no_error (error);
  cache_view_init (&full, trace, 1.0);
  cache_view_init (&zoomed, trace, 0.05);
  cache_view_check (&full, trace, solver);
  cache_view_check (&zoomed, trace, solver);
  cache_view_check (&full, trace, solver); /* nothing changed: replayed */
  for (guint k = 0; k < n_ops; k++)
    {
      guint r = 0;
      guint32 ev = random_op (trace, solver, &r);
      gint64 s0;
      int what = g_test_rand_int_range (0, 4);
      if (ev == WEFT_NONE)
        break;
      if (k == n_ops / 3)
        weft_solver_prepare (solver);
      s0 = weft_solver_start (solver, r, ev);
      for (guint m = 1; m <= 3; m++)
        {
          g_autoptr (GPtrArray) snap = snapshot_lanes (trace, solver);
          guint64 since;
          guint a, b;
          weft_solver_lane_times_changed (solver, 0, 0, 0, &since, &a, &b);
          if (what == 0)
            g_assert_true (weft_solver_set_duration (solver, r, ev, g_test_rand_int_range (0, 200000), &error));
          else if (what == 1)
            g_assert_true (weft_solver_set_min_start (solver, r, ev, -1, &error));
          else
            g_assert_true (weft_solver_set_min_start (solver, r, ev, s0 + (gint64) m * 7000, &error));
          n_ranges += check_changed_ranges (trace, solver, snap, since);
          cache_view_check (&full, trace, solver);
          if (m != 2)
            cache_view_check (&zoomed, trace, solver);
        }
    }
  g_test_message ("%u ops edited: full view %u rows replayed, %u patched; zoomed %u / %u; %u lane ranges; "
                  "%u bands patched", n_ops, full.replayed, full.patched, zoomed.replayed, zoomed.patched, n_ranges,
                  full.bands_patched + zoomed.bands_patched);
  g_assert_cmpuint (full.bands_patched + zoomed.bands_patched, >, 0);
  g_assert_cmpuint (full.replayed, >, 0);
  g_assert_cmpuint (full.patched + zoomed.patched, >, 0);
  g_assert_cmpuint (n_ranges, >, 0);
  cache_view_clear (&full);
  cache_view_clear (&zoomed);
}

static void
test_box_cache (void)
{
  g_autofree char *path = write_sync_trace (300);
  g_autoptr (WeftTrace) trace = load (path);
  box_cache_edits (trace, 20);
}

static void
test_box_cache_shared (gconstpointer data)
{
  g_autofree char *path = weft_test_require_trace (data);
  g_autoptr (WeftTrace) trace = NULL;
  if (path == NULL)
    return;
  trace = load (path);
  box_cache_edits (trace, 12);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/lane-times/sync-trace", test_sync_trace);
  g_test_add_data_func ("/lane-times/dlrm", "param/et_replay/tests/inputs/dlrm_kineto", test_shared);
  g_test_add_data_func ("/lane-times/fsdp8", "synthetic/fsdp8/profiling/traces/iteration_10", test_shared);
  g_test_add_data_func ("/lane-times/nccl-data", "HolisticTraceAnalysis/nccl_parser_config/nccl_data.json.gz",
                        test_shared);
  g_test_add_func ("/lane-times/band-patch", test_band_patch);
  g_test_add_data_func ("/lane-times/band-patch-fsdp8", "synthetic/fsdp8/profiling/traces/iteration_10",
                        test_band_patch_shared);
  g_test_add_func ("/lane-times/paint-same", test_paint_same);
  g_test_add_func ("/lane-times/box-cache", test_box_cache);
  g_test_add_data_func ("/lane-times/box-cache-fsdp8", "synthetic/fsdp8/profiling/traces/iteration_10",
                        test_box_cache_shared);
  g_test_add_data_func ("/lane-times/box-cache-dlrm", "param/et_replay/tests/inputs/dlrm_kineto",
                        test_box_cache_shared);
  g_test_add_func ("/lane-times/band-cache", test_band_cache);
  g_test_add_func ("/lane-times/threaded-build", test_threaded_build);
  g_test_add_func ("/lane-times/epoch-other-solver", test_epoch_other_solver);
  return g_test_run ();
}
