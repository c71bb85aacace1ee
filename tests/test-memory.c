/* test-memory.c: the memory timeline under edits (memory-timeline.c,
 * docs/solver.md "Memory under edits") and its row in the painter
 * (src/render/memory.c): real composed and shared traces, the real solver
 * and edit session; and the memory row's block maxima
 * (weft_memory_lod_consume) against the points taken one by one. */
#include "config.h"

#include <cairo.h>
#include <math.h>
#include <string.h>

#include "render/render-private.h"
#include "testutil.h"
#include "weft/weft.h"
#include "weft/weft-render.h"

static WeftEditSession *
composed_fsdp (int layers)
{
  WeftComposeParams p;
  g_autoptr (GError) error = NULL;
  WeftTrace *trace;
  WeftEditSession *session;

  weft_compose_params_init (&p);
  g_assert_true (weft_compose_parse_strategies ("fsdp", &p.strategies, &error));
  p.dp = 8;
  p.model.layers = layers;
  g_assert_true (weft_compose_params_validate (&p, &error));
  trace = weft_compose_trace (&p, &error);
  g_assert_no_error (error);
  session = weft_edit_session_new (trace, NULL, &error);
  g_assert_no_error (error);
  return session;
}

/* The columns the kept layout's memory row folded (its cache) against
 * every sample taken one by one: a column holds the totals in force when
 * it starts and every total reached inside it. */
static void
check_columns (WeftMemoryTimeline *tl, const WeftLayout *layout, const WeftView *v)
{
  const WeftMemoryCache *mc = &layout->ranks[0].mem_cache;
  const gint64 *t, *a, *r;
  guint n, i = 0, first_col;
  int device;
  double scale = v->width / (double) (v->span.end - v->span.begin);
  gint64 ca, cr;

  g_assert_true (weft_memory_timeline_curve (tl, 0, &device, &t, &a, &r, &n));
  if (!mc->ok)
    return;
  while (i < n && t[i] <= v->span.begin)
    i++;
  first_col = i == 0 ? (guint) floor ((double) (t[0] - v->span.begin) * scale) : 0;
  g_assert_cmpfloat (mc->x0, ==, first_col);
  g_assert_cmpuint (mc->ncol, ==, (guint) ceil (v->width) - first_col);
  ca = i > 0 ? a[i - 1] : a[0];
  cr = i > 0 ? r[i - 1] : r[0];
  for (guint col = 0; col < mc->ncol; col++)
    {
      gint64 end = v->span.begin + (gint64) ((first_col + col + 1) / scale), ma = ca, mr = cr;
      for (; i < n && t[i] < end; i++)
        {
          ca = a[i];
          cr = r[i];
          ma = MAX (ma, ca);
          mr = MAX (mr, cr);
        }
      g_assert_cmpint (mc->alloc[col], ==, ma);
      g_assert_cmpint (mc->res[col], ==, mr);
    }
}

/* Every rank: the solved-time peak of an unedited trace is the loaded one
 * (weft_rank_memory_peak, what analyze reports), to the byte. */
static void
check_unedited (WeftTrace *trace, WeftSolver *solver, WeftMemoryTimeline *tl)
{
  guint with_events = 0;

  weft_memory_timeline_update (tl, solver);
  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftMemoryPeak loaded;
      WeftMemoryTimelinePeak now;
      gboolean has = weft_rank_memory_peak (weft_trace_rank (trace, r), G_MININT64, G_MAXINT64, &loaded);

      g_assert_cmpint (weft_memory_timeline_peak (tl, r, &now), ==, has);
      if (!has)
        continue;
      with_events++;
      g_assert_cmpuint (now.n_events, ==, loaded.n_events);
      g_assert_cmpint (now.peak_reserved, ==, loaded.peak_reserved);
      g_assert_cmpint (now.peak_allocated, ==, loaded.peak_allocated);
      g_assert_cmpint (now.device, ==, loaded.device);
    }
  g_assert_cmpuint (with_events, >, 0);
}

static void
test_unedited_composed (void)
{
  g_autoptr (WeftEditSession) s = composed_fsdp (4);
  WeftTrace *trace = weft_edit_session_get_trace (s);
  g_autoptr (WeftMemoryTimeline) tl = weft_memory_timeline_new (trace);
  WeftMemoryTimelinePeak all;

  /* observed times, then solved ones */
  g_assert_false (weft_memory_timeline_is_empty (tl));
  check_unedited (trace, NULL, tl);
  check_unedited (trace, weft_edit_session_get_solver (s), tl);
  g_assert_true (weft_memory_timeline_peak (tl, WEFT_SOLVER_ALL_RANKS, &all));
  g_test_message ("composed FSDP x8, 4 layers: peak %.3f GiB reserved", all.peak_reserved / 1073741824.0);
}

/* The totals at each [memory] event's time are the file's own. */
static void
test_value_at (void)
{
  g_autoptr (WeftEditSession) s = composed_fsdp (2);
  WeftTrace *trace = weft_edit_session_get_trace (s);
  g_autoptr (WeftMemoryTimeline) tl = weft_memory_timeline_new (trace);
  WeftRank *rank = weft_trace_rank (trace, 0);
  guint checked = 0;

  weft_memory_timeline_update (tl, weft_edit_session_get_solver (s));
  for (guint i = 0; i < rank->events->len; i++)
    {
      const WeftEvent *ev = weft_rank_event (rank, i);
      json_object *args;
      gint64 fa = 0, fr = 0, a, r, next_ts = G_MAXINT64;
      if (ev->category != WEFT_CAT_CPU_INSTANT || strcmp (weft_rank_string (rank, ev->name), "[memory]") != 0)
        continue;
      /* several events in one nanosecond: the last one's totals hold */
      for (guint j = i + 1; j < rank->events->len && next_ts == G_MAXINT64; j++)
        if (weft_rank_event (rank, j)->category == WEFT_CAT_CPU_INSTANT)
          next_ts = weft_rank_event (rank, j)->ts;
      if (next_ts == ev->ts)
        continue;
      args = weft_event_parse_args (rank, ev);
      g_assert_nonnull (args);
      fa = json_object_get_int64 (json_object_object_get (args, "Total Allocated"));
      fr = json_object_get_int64 (json_object_object_get (args, "Total Reserved"));
      json_object_put (args);
      g_assert_true (weft_memory_timeline_value_at (tl, 0, ev->ts + weft_trace_rank_offset (trace, rank), &a, &r));
      g_assert_cmpint (a, ==, fa);
      g_assert_cmpint (r, ==, fr);
      checked++;
    }
  g_assert_cmpuint (checked, >, 10);
}

/* The op whose wait holds a collective: its cross-stream producer. */
static guint32
producer_of (WeftSolver *solver, guint rank_index, guint32 event)
{
  WeftSolverDep deps[64];
  guint n = MIN (weft_solver_preds (solver, rank_index, event, deps, G_N_ELEMENTS (deps)), G_N_ELEMENTS (deps));

  for (guint d = 0; d < n; d++)
    if (deps[d].kind == WEFT_DEP_CROSS_STREAM && deps[d].rank_index == rank_index)
      return deps[d].event;
  return WEFT_NONE;
}

/* Prefetching earlier: each all-gather of rank 0 waits for its copy-in
 * (which waits for the compute two units back, FSDP2's prefetch limit);
 * without that wait (the copy-in deleted) it starts as early as its stream
 * and launch allow, its unsharded buffer is allocated that much earlier
 * and lives longer. The peak never falls, and where the buffer now
 * overlaps the loss (the first all-gather of the backward) the reserved
 * peak rises by at most that buffer; undo gives the loaded peak back
 * exactly. */
static void
test_prefetch_earlier (void)
{
  g_autoptr (WeftEditSession) s = composed_fsdp (4);
  WeftTrace *trace = weft_edit_session_get_trace (s);
  WeftSolver *solver = weft_edit_session_get_solver (s);
  g_autoptr (WeftMemoryTimeline) tl = weft_memory_timeline_new (trace);
  WeftRank *rank = weft_trace_rank (trace, 0);
  WeftMemoryTimelinePeak loaded, now;
  guint n_ag = 0, n_rose = 0;

  weft_memory_timeline_update (tl, solver);
  g_assert_true (weft_memory_timeline_peak (tl, 0, &loaded));
  for (guint32 e = 0; e < rank->events->len; e++)
    {
      const WeftEvent *ev = weft_rank_event (rank, e);
      WeftCollective *c;
      WeftEventRef copy_in;
      gint64 start0;
      gint64 buffer = 0;
      guint n_alloc = 0;
      g_autoptr (GError) error = NULL;

      if (!weft_solver_is_node (solver, 0, e) || weft_event_coll (rank, ev) == WEFT_NONE)
        continue;
      c = &g_array_index (rank->collectives, WeftCollective, weft_event_coll (rank, ev));
      if (c->type != WEFT_COLL_ALL_GATHER)
        continue;
      copy_in.rank_index = 0;
      copy_in.event = producer_of (solver, 0, e);
      g_assert_cmpuint (copy_in.event, !=, WEFT_NONE);
      n_ag++;
      /* the buffer: the allocation anchored to this all-gather */
      for (guint32 m = 0; m < rank->events->len; m++)
        if (weft_memory_timeline_anchor (tl, 0, m) == e)
          {
            json_object *args = weft_event_parse_args (rank, weft_rank_event (rank, m));
            gint64 b = json_object_get_int64 (json_object_object_get (args, "Bytes"));
            json_object_put (args);
            /* every allocation anchored to it moves with it (the
             * composer allocates the unsharded buffer and its staging) */
            if (b > 0)
              {
                buffer += b + 2 * 1024 * 1024; /* the allocator's rounding */
                n_alloc++;
              }
          }
      g_assert_cmpuint (n_alloc, >, 0);
      start0 = weft_solver_start (solver, 0, e);
      g_assert_true (weft_edit_session_delete (s, &copy_in, 1, &error));
      g_assert_no_error (error);
      g_assert_cmpint (weft_solver_start (solver, 0, e), <=, start0);
      g_assert_true (weft_memory_timeline_update (tl, solver) || weft_solver_start (solver, 0, e) == start0);
      g_assert_true (weft_memory_timeline_peak (tl, 0, &now));
      g_assert_cmpint (now.peak_reserved, >=, loaded.peak_reserved);
      if (now.peak_reserved > loaded.peak_reserved)
        {
          /* at most its own buffers (each rounded to the allocator's 2 MiB) */
          g_assert_cmpint (now.peak_reserved - loaded.peak_reserved, <=, buffer);
          /* allocated: more memory alive at every time, so its peak never
           * falls, and rises by at most the buffer (exactly the buffer only
           * where the all-gather now lands on the allocated peak: with the
           * composer's allocator replay (compose-allocator.c) the allocated
           * peak can be elsewhere while the reserved high-water mark rises) */
          g_assert_cmpint (now.peak_allocated, >=, loaded.peak_allocated);
          g_assert_cmpint (now.peak_allocated - loaded.peak_allocated, <=, buffer);
          n_rose++;
          g_test_message ("all-gather %u %.1f us earlier: peak %.3f -> %.3f GiB", e,
                          (start0 - weft_solver_start (solver, 0, e)) / 1e3, loaded.peak_reserved / 1073741824.0,
                          now.peak_reserved / 1073741824.0);
        }
      g_assert_true (weft_edit_session_undo (s, &error));
      g_assert_no_error (error);
      weft_memory_timeline_update (tl, solver);
      g_assert_true (weft_memory_timeline_peak (tl, 0, &now));
      g_assert_cmpint (now.peak_reserved, ==, loaded.peak_reserved);
      g_assert_cmpint (now.peak_allocated, ==, loaded.peak_allocated);
      g_assert_cmpint (now.peak_time, ==, loaded.peak_time);
    }
  g_assert_cmpuint (n_ag, ==, 10);
  g_assert_cmpuint (n_rose, >, 0);
}

/* Real profiles: every rank with [memory] events gives the loaded peak
 * from the solved times, every GPU event is anchored, and the painted row
 * costs two cairo paths whatever the number of samples. */
static void
test_shared (gconstpointer data)
{
  const char *rel = data;
  g_autofree char *path = weft_test_require_trace (rel);
  g_autoptr (GError) error = NULL;
  WeftTrace *trace;
  g_autoptr (WeftEditSession) s = NULL;
  g_autoptr (WeftMemoryTimeline) tl = NULL;
  WeftMemoryTimelinePeak all;

  if (path == NULL)
    return;
  trace = weft_trace_load (path, NULL, NULL, &error);
  g_assert_no_error (error);
  s = weft_edit_session_new (trace, path, &error);
  g_assert_no_error (error);
  tl = weft_memory_timeline_new (trace);
  check_unedited (trace, weft_edit_session_get_solver (s), tl);
  g_assert_true (weft_memory_timeline_peak (tl, WEFT_SOLVER_ALL_RANKS, &all));
  {
    WeftRank *rank = weft_trace_rank (trace, 0);
    guint anchored = 0;
    for (guint32 m = 0; m < rank->events->len; m++)
      anchored += weft_memory_timeline_anchor (tl, 0, m) != WEFT_NONE;
    g_assert_cmpuint (anchored, ==, all.n_events);
  }
  {
    WeftView view;
    g_autoptr (WeftLayout) layout = NULL;
    WeftRenderOverlay overlay = { 0 };
    WeftRenderStats stats;
    cairo_surface_t *surf = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 800, 1200);
    cairo_t *cr = cairo_create (surf);
    guint n_rows = 0;

    weft_view_init (&view, trace);
    view.width = 800;
    view.height = 1200;
    layout = weft_layout_new (trace, &view);
    for (guint i = 0; i < weft_layout_get_n_rows (layout); i++)
      n_rows += weft_layout_get_row (layout, i)->kind == WEFT_ROW_MEMORY;
    g_assert_cmpuint (n_rows, ==, 1);
    overlay.memory = tl;
    weft_render_paint_body (cr, trace, &view, layout, NULL, &overlay, &stats);
    g_assert_cmpuint (stats.memory_rows, ==, 1);
    g_assert_cmpuint (stats.memory_fills, ==, 2);
    g_assert_cmpint (stats.memory_peak, ==, all.peak_reserved);
    g_assert_cmpuint (stats.memory_points, <=, all.n_events);
    g_test_message ("%s: %u GPU [memory] events, peak %.3f GiB reserved, painted with %u paths", rel,
                    all.n_events, all.peak_reserved / 1073741824.0, stats.memory_fills);
    /* zoomed and panned as the window does, the layout kept (its block
     * maxima and label reused): what a fresh layout paints at each view
     * (folding without them: its first fold of the curve); then again
     * 96 px wide, where a column holds hundreds of samples and climbs
     * the levels */
    for (int pass = 0; pass < 2; pass++)
    {
      WeftView v = view;
      gint64 full = view.span.end - view.span.begin;
      if (pass == 1)
        v.width = 96;
      for (guint k = 0; k < 12; k++)
        {
          g_autoptr (WeftLayout) fresh = weft_layout_new (trace, &v);
          cairo_surface_t *a = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 800, 1200);
          cairo_surface_t *b = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 800, 1200);
          cairo_t *ca = cairo_create (a), *cb = cairo_create (b);
          WeftRenderStats sa = { 0 }, sb = { 0 };
          gint64 span = v.span.end - v.span.begin;
          weft_render_paint_body (ca, trace, &v, layout, NULL, &overlay, &sa);
          weft_render_paint_body (cb, trace, &v, fresh, NULL, &overlay, &sb);
          cairo_surface_flush (a);
          cairo_surface_flush (b);
          check_columns (tl, layout, &v);
          g_assert_cmpuint (sa.memory_rows, ==, 1);
          g_assert_cmpuint (sb.memory_points, >, 0);
          g_assert_cmpint (memcmp (cairo_image_surface_get_data (a), cairo_image_surface_get_data (b),
                                   (gsize) cairo_image_surface_get_stride (a) * 1200), ==, 0);
          cairo_destroy (ca);
          cairo_destroy (cb);
          cairo_surface_destroy (a);
          cairo_surface_destroy (b);
          if (k % 3 == 2) /* a pan by a third of the view */
            {
              v.span.begin += span / 3;
              v.span.end += span / 3;
            }
          else /* a zoom in by 2.5x about a point 40 % in */
            {
              gint64 mid = v.span.begin + span * 2 / 5, ns = MAX (span * 2 / 5, 1);
              v.span.begin = mid - ns * 2 / 5;
              v.span.end = v.span.begin + ns;
            }
          if (v.span.end - v.span.begin < full / 100000)
            break;
        }
    }
    /* hidden: no row */
    view.show_memory = FALSE;
    g_clear_pointer (&layout, weft_layout_free);
    layout = weft_layout_new (trace, &view);
    for (guint i = 0; i < weft_layout_get_n_rows (layout); i++)
      g_assert_cmpint (weft_layout_get_row (layout, i)->kind, !=, WEFT_ROW_MEMORY);
    weft_view_clear (&view);
    cairo_destroy (cr);
    cairo_surface_destroy (surf);
  }
}

/* A trace with no [memory] event: an empty timeline, no memory row. */
static void
test_none (void)
{
  g_autofree char *path = weft_test_require_trace ("HolisticTraceAnalysis/nccl_parser_config/nccl_data.json.gz");
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftTrace) trace = NULL;
  g_autoptr (WeftMemoryTimeline) tl = NULL;
  WeftMemoryTimelinePeak p;
  WeftView view;
  g_autoptr (WeftLayout) layout = NULL;

  if (path == NULL)
    return;
  trace = weft_trace_load (path, NULL, NULL, &error);
  g_assert_no_error (error);
  tl = weft_memory_timeline_new (trace);
  g_assert_true (weft_memory_timeline_is_empty (tl));
  g_assert_false (weft_memory_timeline_peak (tl, WEFT_SOLVER_ALL_RANKS, &p));
  g_assert_cmpint (p.device, ==, -1);
  g_assert_false (weft_memory_timeline_value_at (tl, 0, 0, NULL, NULL));
  weft_view_init (&view, trace);
  layout = weft_layout_new (trace, &view);
  for (guint i = 0; i < weft_layout_get_n_rows (layout); i++)
    g_assert_cmpint (weft_layout_get_row (layout, i)->kind, !=, WEFT_ROW_MEMORY);
  weft_view_clear (&view);
}

/* Bad [memory] args: huge, negative, not numbers, nested, absent: read
 * where they can be (clamped to 2^52 bytes), skipped where not; nothing
 * overflows (UBSan) and the row paints. */
static void
test_bad_args (void)
{
  static const char json[] =
    "{\"traceEvents\": [\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": 10, \"dur\": 50},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": 20, "
    "\"dur\": 2, \"args\": {\"correlation\": 1}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 30, \"dur\": 100, "
    "\"args\": {\"stream\": 7, \"correlation\": 1}},\n"
    "{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 1, "
    "\"ts\": 11, \"args\": {\"Total Allocated\": 9223372036854775807, \"Total Reserved\": -9223372036854775807, "
    "\"Bytes\": 9223372036854775807, \"Device Id\": 0, \"Device Type\": 1}},\n"
    "{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 1, "
    "\"ts\": 12, \"args\": {\"Total Allocated\": 9223372036854775807, \"Total Reserved\": 9223372036854775807, "
    "\"Bytes\": -9223372036854775807, \"Device Id\": 99999999999, \"Device Type\": 1}},\n"
    "{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 1, "
    "\"ts\": 13, \"args\": {\"Total Allocated\": \"many\", \"Total Reserved\": 1.5e9}},\n"
    "{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 1, "
    "\"ts\": 14, \"args\": {\"x\": {\"Total Allocated\": 5}, \"Total Allocated\": 100, \"Total Reserved\": 200}},\n"
    "{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 1, "
    "\"ts\": 15},\n"
    "{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 1, "
    "\"ts\": 16, \"args\": {\"Total Allocated\": 1, \"Total Reserved\": 2, \"Device Type\": 0}}\n"
    "]}\n";
  g_autofree char *path = weft_test_write_file ("bad-memory.json", json, -1);
  g_autoptr (GError) error = NULL;
  WeftTrace *trace = weft_trace_load (path, NULL, NULL, &error);
  g_autoptr (WeftEditSession) s = NULL;
  g_autoptr (WeftMemoryTimeline) tl = NULL;
  WeftMemoryTimelinePeak p;
  WeftView view;
  g_autoptr (WeftLayout) layout = NULL;
  WeftRenderOverlay overlay = { 0 };
  WeftRenderStats stats;
  cairo_surface_t *surf = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 400, 300);
  cairo_t *cr = cairo_create (surf);

  g_assert_no_error (error);
  s = weft_edit_session_new (trace, path, &error);
  g_assert_no_error (error);
  tl = weft_memory_timeline_new (trace);
  weft_memory_timeline_update (tl, weft_edit_session_get_solver (s));
  /* the two huge ones (clamped) and the nested one (json-c); not the
   * string, the absent args nor the CPU device */
  g_assert_true (weft_memory_timeline_peak (tl, 0, &p));
  g_assert_cmpuint (p.n_events, ==, 3);
  g_assert_cmpint (p.peak_reserved, <=, G_GINT64_CONSTANT (1) << 53);
  weft_view_init (&view, trace);
  layout = weft_layout_new (trace, &view);
  overlay.memory = tl;
  weft_render_paint_body (cr, trace, &view, layout, NULL, &overlay, &stats);
  g_assert_cmpuint (stats.memory_rows, ==, 1);
  weft_view_clear (&view);
  cairo_destroy (cr);
  cairo_surface_destroy (surf);
}

/* The block maxima of a curve: random curves (runs of equal times, up to
 * five levels), random columns (empty, a point, thousands, past the end),
 * each taken with the levels and one point at a time: the same largest
 * and last totals, the same points. A curve the levels were not made for
 * is taken one point at a time. */
static void
test_lod (void)
{
  GRand *rng = g_rand_new_with_seed (g_test_rand_int ());
  guint deep = 0;

  for (guint round = 0; round < 400; round++)
    {
      guint n = round % 40 == 0 ? (guint) g_rand_int_range (rng, 60000, 300000)
                                : (guint) g_rand_int_range (rng, 0, round % 3 == 0 ? 5000 : 300);
      gint64 *t = g_new (gint64, MAX (n, 1)), *a = g_new (gint64, MAX (n, 1)), *r = g_new (gint64, MAX (n, 1));
      WeftMemoryLod lod = { 0 };
      gint64 now = g_rand_int_range (rng, -1000, 1000);
      guint i = 0, j = 0;
      for (guint k = 0; k < n; k++)
        {
          if (g_rand_int_range (rng, 0, 4) != 0)
            now += g_rand_int_range (rng, 1, 50);
          t[k] = now;
          a[k] = g_rand_int_range (rng, 0, 8) == 0 ? (gint64) g_rand_int (rng) << 8 : g_rand_int_range (rng, 0, 5000);
          r[k] = a[k] + g_rand_int_range (rng, 0, 100);
        }
      weft_memory_lod_make (&lod, t, a, r, n);
      g_assert_cmpuint (lod.n_levels, >=, 1);
      deep = MAX (deep, lod.n_levels);
      if (n > 0)
        {
          i = (guint) g_rand_int_range (rng, 0, (gint32) n);
          j = i;
        }
      {
        gint64 e = n > 0 ? t[i] : 0;
        gint64 ca = 0, cr = 0, ca2 = 0, cr2 = 0;
        guint p1 = 0, p2 = 0;
        const WeftMemoryLod *use = round % 7 == 6 ? NULL : &lod;
        while (i < n || g_rand_int_range (rng, 0, 3) != 0)
          {
            gint64 ma = g_rand_int_range (rng, 0, 3000), mr = ma, ma2 = ma, mr2 = mr;
            switch (g_rand_int_range (rng, 0, 4))
              {
              case 0: break; /* the same end again: nothing */
              case 1: e += g_rand_int_range (rng, 0, 30); break;
              case 2: e += g_rand_int_range (rng, 0, 3000); break;
              default: e += g_rand_int_range (rng, 0, 200000); break;
              }
            weft_memory_lod_consume (use, t, a, r, n, &i, e, &ma, &mr, &ca, &cr, &p1);
            while (j < n && t[j] < e)
              {
                ca2 = a[j];
                cr2 = r[j];
                ma2 = MAX (ma2, ca2);
                mr2 = MAX (mr2, cr2);
                j++;
                p2++;
              }
            g_assert_cmpuint (i, ==, j);
            g_assert_cmpint (ma, ==, ma2);
            g_assert_cmpint (mr, ==, mr2);
            g_assert_cmpint (ca, ==, ca2);
            g_assert_cmpint (cr, ==, cr2);
            g_assert_cmpuint (p1, ==, p2);
            if (i >= n && e > (n > 0 ? t[n - 1] : 0) + 500000)
              break;
          }
      }
      /* levels of another curve are not read */
      {
        gint64 ma = 0, mr = 0, ca = 0, cr = 0;
        guint k = 0, p = 0;
        if (n > 1)
          {
            weft_memory_lod_consume (&lod, t, a, r, n - 1, &k, t[n - 1], &ma, &mr, &ca, &cr, &p);
            g_assert_cmpuint (k, <=, n - 1);
          }
      }
      weft_memory_lod_clear (&lod);
      g_assert_cmpuint (lod.n_levels, ==, 0);
      g_free (t);
      g_free (a);
      g_free (r);
    }
  g_assert_cmpuint (deep, >=, 5);
  g_rand_free (rng);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/memory/unedited-composed", test_unedited_composed);
  g_test_add_func ("/memory/value-at", test_value_at);
  g_test_add_func ("/memory/prefetch-earlier", test_prefetch_earlier);
  g_test_add_func ("/memory/block-maxima", test_lod);
  g_test_add_data_func ("/memory/shared/h100-qwen", "TraceLens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
                        test_shared);
  g_test_add_data_func ("/memory/shared/mi300-qwen", "TraceLens/mi300/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
                        test_shared);
  g_test_add_data_func ("/memory/shared/df-index-resolver",
                        "HolisticTraceAnalysis/df_index_resolver/df_index_resolver.json.gz", test_shared);
  g_test_add_func ("/memory/none", test_none);
  g_test_add_func ("/memory/bad-args", test_bad_args);
  return g_test_run ();
}
