/* test-render.c: the painter, display-free: paint real and generated traces
 * onto cairo image surfaces and check facts by reading pixels; hit testing;
 * level-of-detail counters; the overlap band against a brute-force check;
 * PNG/SVG/PDF files. */
#include "config.h"

#include <cairo.h>
#include <math.h>
#include <string.h>

#include "testutil.h"
#include "weft/weft-load.h"
#include "weft/weft-render.h"
#include "weft/weft.h"

#define DLRM_DIR "param/et_replay/tests/inputs/dlrm_kineto"

/* ---- a generated trace, loaded with the real loader -------------------------- */

#define N_GEMM 10
#define N_AG   5
#define BASE_US 100

static void
add_event (GString *s, const char *name, const char *cat, int pid, int tid, double ts_us, double dur_us,
           const char *args)
{
  if (s->str[s->len - 1] != '[')
    g_string_append (s, ",\n");
  g_string_append_printf (s,
                          "{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,"
                          "\"ts\":%.3f,\"dur\":%.3f,\"args\":{%s}}",
                          cat, name, pid, tid, ts_us, dur_us, args ? args : "");
}

/* One rank: GEMMs on stream 7 (200 us every 300 us), all-gathers on stream
 * 15 (250 us every 600 us), CPU thread 100 with a ProfilerStep, aten::mm ops
 * and their cudaLaunchKernel calls (correlation ids). extra_tiny > 0 adds a
 * stream 21 with that many 1 us kernels 1 us apart (the LOD lane). */
static char *
gen_rank_json (int rank, guint extra_tiny, gsize *len)
{
  GString *s = g_string_new (NULL);

  g_string_append_printf (s,
                          "{\"schemaVersion\":1,\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":%d,"
                          "\"world_size\":2},\"baseTimeNanoseconds\":1700000000000000000,\"traceEvents\":[",
                          rank);
  g_string_append (s, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"tid\":0,\"args\":{\"name\":\"GPU 0\"}}");
  g_string_append (s, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1234,\"tid\":100,\"args\":{\"name\":\"python main\"}}");
  add_event (s, "ProfilerStep#3", "user_annotation", 1234, 100, BASE_US - 50, 3200, NULL);
  for (int k = 0; k < N_GEMM; k++)
    {
      char args[256];
      double t = BASE_US + k * 300.0;
      g_snprintf (args, sizeof args, "\"External id\":%d", 500 + k);
      add_event (s, "aten::mm", "cpu_op", 1234, 100, t - 40, 30, args);
      g_snprintf (args, sizeof args, "\"External id\":%d,\"correlation\":%d", 500 + k, 1000 + k);
      add_event (s, "cudaLaunchKernel", "cuda_runtime", 1234, 100, t - 30, 10, args);
      g_snprintf (args, sizeof args, "\"External id\":%d,\"correlation\":%d,\"device\":0,\"stream\":7", 500 + k,
                  1000 + k);
      add_event (s, "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1", "kernel", 0,
                 7, t, 200, args);
    }
  for (int k = 0; k < N_AG; k++)
    {
      char args[512];
      double t = BASE_US + 100 + k * 600.0;
      g_snprintf (args, sizeof args,
                  "\"External id\":%d,\"correlation\":%d,\"device\":0,\"stream\":15,"
                  "\"Collective name\":\"_allgather_base\",\"In msg nelems\":1048576,\"Out msg nelems\":2097152,"
                  "\"Group size\":2,\"dtype\":\"BFloat16\",\"Process Group Name\":\"0\","
                  "\"Process Group Description\":\"default_pg\",\"Process Group Ranks\":\"[0, 1]\",\"Seq\":%d",
                  700 + k, 2000 + k, k + 1);
      add_event (s, "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "kernel", 0, 15, t, 250,
                 args);
    }
  for (guint k = 0; k < extra_tiny; k++)
    add_event (s, "vectorized_elementwise_kernel", "kernel", 0, 21, BASE_US + 2.0 * k, 1.0,
               "\"device\":0,\"stream\":21");
  g_string_append (s, "]}\n");
  *len = s->len;
  return g_string_free (s, FALSE);
}

static WeftTrace *
gen_trace (guint n_ranks, guint extra_tiny)
{
  WeftTrace *trace = weft_trace_new ();
  for (guint r = 0; r < n_ranks; r++)
    {
      gsize len;
      g_autofree char *json = gen_rank_json ((int) r, extra_tiny, &len);
      g_autofree char *name = g_strdup_printf ("rank%u_trace.json", r);
      g_autoptr (GError) error = NULL;
      WeftRank *rank = weft_rank_load_buffer (name, json, len, NULL, &error);
      g_assert_no_error (error);
      g_assert_nonnull (rank);
      weft_trace_add_rank (trace, rank);
    }
  weft_trace_index (trace);
  return trace;
}

/* ---- pixels ---------------------------------------------------------------------- */

static guint32
pixel_at (cairo_surface_t *s, int x, int y)
{
  const guchar *data = cairo_image_surface_get_data (s);
  int stride = cairo_image_surface_get_stride (s);
  g_assert_cmpint (x, >=, 0);
  g_assert_cmpint (y, >=, 0);
  g_assert_cmpint (x, <, cairo_image_surface_get_width (s));
  g_assert_cmpint (y, <, cairo_image_surface_get_height (s));
  return *(const guint32 *) (const void *) (data + (gsize) y * stride + (gsize) x * 4) & 0xffffff;
}

static guint32
rgb_of (WeftRgba c)
{
  return ((guint32) lround (c.r * 255) << 16) | ((guint32) lround (c.g * 255) << 8) | (guint32) lround (c.b * 255);
}

static gboolean
same_color (guint32 a, guint32 b)
{
  for (int sh = 0; sh <= 16; sh += 8)
    if (ABS ((int) ((a >> sh) & 0xff) - (int) ((b >> sh) & 0xff)) > 2)
      return FALSE;
  return TRUE;
}


/* Fraction of the pixels of the box [x0, x1) x [y0, y1) (clipped to the
 * surface, shrunk by 1 px on each side) that have the colour. Labels are
 * drawn over boxes, so a box is "its colour" when most of it is. */
static double
box_fraction (cairo_surface_t *s, double x0, double x1, double y0, double y1, guint32 rgb)
{
  int ix0 = MAX ((int) ceil (x0) + 1, 0), ix1 = MIN ((int) floor (x1) - 1, cairo_image_surface_get_width (s));
  int iy0 = MAX ((int) ceil (y0) + 1, 0), iy1 = MIN ((int) floor (y1) - 1, cairo_image_surface_get_height (s));
  guint n = 0, hit = 0;
  for (int y = iy0; y < iy1; y++)
    for (int x = ix0; x < ix1; x++)
      {
        n++;
        hit += same_color (pixel_at (s, x, y), rgb);
      }
  return n > 0 ? (double) hit / n : 0.0;
}

typedef struct
{
  WeftTrace       *trace;
  WeftView         view;
  WeftLayout      *layout;
  cairo_surface_t *surface;
  WeftRenderStats  stats;
} Painted;

static void
paint_view (Painted *p, const WeftRenderTimes *times, const WeftRenderOverlay *overlay)
{
  cairo_t *cr;
  if (p->surface != NULL)
    cairo_surface_destroy (p->surface);
  p->surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, (int) p->view.width, (int) p->view.height);
  cr = cairo_create (p->surface);
  weft_render_paint (cr, p->trace, &p->view, p->layout, times, overlay, &p->stats);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
  cairo_destroy (cr);
  cairo_surface_flush (p->surface);
}

static void
painted_clear (Painted *p)
{
  g_clear_pointer (&p->surface, cairo_surface_destroy);
  g_clear_pointer (&p->layout, weft_layout_free);
  weft_view_clear (&p->view);
  g_clear_pointer (&p->trace, weft_trace_free);
}

/* The first kernel on a GPU stream of a rank whose name starts with prefix. */
static guint32
find_kernel (WeftRank *rank, const char *prefix, guint nth)
{
  for (guint i = 0; i < rank->events->len; i++)
    {
      const WeftEvent *ev = weft_rank_event (rank, i);
      if ((ev->flags & WEFT_EVENT_GPU_OP) && g_str_has_prefix (weft_rank_string (rank, ev->name), prefix))
        {
          if (nth == 0)
            return i;
          nth--;
        }
    }
  return WEFT_NONE;
}

/* Screen rectangle of an event from the layout (row + depth) and the view. */
static void
event_box (Painted *p, guint rank_index, guint32 e, const WeftRenderTimes *times, double *x0, double *x1,
           double *y0, double *y1)
{
  WeftRank *rank = weft_trace_rank (p->trace, rank_index);
  const WeftEvent *ev = weft_rank_event (rank, e);
  WeftTimeSpan sp = weft_render_event_span (p->trace, times, rank_index, e);
  int r = weft_layout_find_lane (p->layout, rank_index, ev->lane);
  const WeftLayoutRow *row;
  guint d;

  g_assert_cmpint (r, >=, 0);
  row = weft_layout_get_row (p->layout, (guint) r);
  g_assert_cmpint (row->kind, ==, WEFT_ROW_LANE);
  g_assert_cmpuint (row->lane, ==, ev->lane);
  d = weft_layout_event_depth (p->layout, rank_index, e);
  *x0 = weft_render_time_to_x (&p->view, sp.begin);
  *x1 = weft_render_time_to_x (&p->view, sp.end);
  *y0 = row->y + 2 + d * WEFT_RENDER_LANE_ROW - p->view.scroll_y;
  *y1 = *y0 + WEFT_RENDER_LANE_ROW - 2;
}

/* ---- tests ----------------------------------------------------------------------- */

static void
test_layout_generated (void)
{
  g_autoptr (WeftTrace) trace = gen_trace (2, 0);
  WeftView view;
  g_autoptr (WeftLayout) layout = NULL;
  guint n_headers = 0, n_gpu = 0, n_summary = 0;
  int last_header = -1;

  weft_view_init (&view, trace);
  layout = weft_layout_new (trace, &view);
  for (guint i = 0; i < weft_layout_get_n_rows (layout); i++)
    {
      const WeftLayoutRow *row = weft_layout_get_row (layout, i);
      g_autofree char *label = weft_render_row_label (trace, row);
      g_assert_nonnull (label);
      g_assert_cmpstr (label, !=, "");
      if (i > 0)
        {
          const WeftLayoutRow *prev = weft_layout_get_row (layout, i - 1);
          g_assert_cmpfloat (row->y, ==, prev->y + prev->height);
        }
      g_assert_cmpint (weft_layout_row_at_y (layout, row->y + row->height / 2), ==, (int) i);
      switch (row->kind)
        {
        case WEFT_ROW_RANK_HEADER:
          n_headers++;
          last_header = (int) i;
          g_assert_true (g_str_has_prefix (label, "rank "));
          break;
        case WEFT_ROW_LANE:
          {
            WeftLane *lane = weft_rank_lane (weft_trace_rank (trace, row->rank_index), row->lane);
            /* CPU threads are collapsed by default: only GPU lanes get rows */
            g_assert_cmpint (lane->kind, ==, WEFT_LANE_GPU);
            g_assert_true (strstr (label, "stream") != NULL);
            g_assert_cmpint (last_header, >=, 0);
            n_gpu++;
          }
          break;
        case WEFT_ROW_CPU_SUMMARY:
          n_summary++;
          g_assert_true (g_str_has_prefix (label, "CPU"));
          /* the summary comes after the rank's GPU lanes */
          g_assert_cmpint (weft_layout_get_row (layout, i - 1)->kind, ==, WEFT_ROW_LANE);
          break;
        default:
          g_assert_not_reached ();
        }
    }
  g_assert_cmpuint (n_headers, ==, 2);
  g_assert_cmpuint (n_gpu, ==, 4);
  g_assert_cmpuint (n_summary, ==, 2);
  g_assert_cmpint (weft_layout_row_at_y (layout, -1), ==, -1);
  g_assert_cmpint (weft_layout_row_at_y (layout, weft_layout_get_height (layout) + 1), ==, -1);

  /* expanding the CPU threads of rank 1 gives its thread a row; collapsing rank 0 leaves its header */
  weft_view_set_rank_flags (&view, 0, WEFT_RANK_VIEW_COLLAPSED);
  weft_view_set_rank_flags (&view, 1, WEFT_RANK_VIEW_CPU_EXPANDED);
  {
    g_autoptr (WeftLayout) l2 = weft_layout_new (trace, &view);
    guint cpu_rows = 0, rank0_rows = 0;
    for (guint i = 0; i < weft_layout_get_n_rows (l2); i++)
      {
        const WeftLayoutRow *row = weft_layout_get_row (l2, i);
        if (row->rank_index == 0)
          rank0_rows++;
        if (row->kind == WEFT_ROW_LANE &&
            weft_rank_lane (weft_trace_rank (trace, row->rank_index), row->lane)->kind == WEFT_LANE_CPU)
          {
            g_autofree char *label = weft_render_row_label (trace, row);
            cpu_rows++;
            g_assert_cmpuint (row->rank_index, ==, 1);
            g_assert_cmpstr (label, ==, "python main");
            /* ProfilerStep > aten::mm / cudaLaunchKernel: nested */
            g_assert_cmpuint (row->n_depth, >=, 2);
          }
        g_assert_cmpint (row->kind, !=, WEFT_ROW_CPU_SUMMARY);
      }
    g_assert_cmpuint (cpu_rows, ==, 1);
    g_assert_cmpuint (rank0_rows, ==, 1);
  }
  weft_view_clear (&view);
}

/* Colour by microbatch on a composed pipeline (2 stages, 4 microbatches):
 * every wide forward/backward GEMM of rank 0 is painted in its
 * microbatch's hue (weft_rank_pp_action), without the mode in its class
 * colour; the whole step's paint keeps its level of detail (boxes and
 * events visited within a factor of the plain paint's), and a trace
 * without actions has none. */
static void
test_paint_microbatch (void)
{
  Painted p = { 0 };
  WeftComposeParams cp;
  g_autoptr (GError) error = NULL;
  g_autofree gboolean *seen = g_new0 (gboolean, 2 * 4);
  WeftRank *rank;
  guint checked = 0;
  WeftRenderStats off;

  weft_compose_params_init (&cp);
  cp.strategies = WEFT_STRATEGY_PP;
  cp.dp = 1;
  cp.pp = 2;
  cp.model.layers = 2;
  cp.model.mbs = 4;
  p.trace = weft_compose_trace (&cp, &error);
  g_assert_no_error (error);
  weft_view_init (&p.view, p.trace);
  p.view.width = 1200;
  p.layout = weft_layout_new (p.trace, &p.view);
  g_assert_true (weft_layout_has_pp_actions (p.layout));
  p.view.height = ceil (weft_layout_get_height (p.layout));
  rank = weft_trace_rank (p.trace, 0);
  /* the first GEMM of each (kind, microbatch), zoomed to a third of the view */
  for (guint32 e = 0; e < rank->events->len; e++)
    {
      const WeftEvent *ev = weft_rank_event (rank, e);
      WeftPpAction a;
      double x0, x1, y0, y1;
      WeftTimeSpan sp;
      guint slot;
      cairo_surface_t *plain;
      if (!(ev->flags & WEFT_EVENT_GPU_OP) || ev->kclass != WEFT_KCLASS_GEMM || weft_event_coll (rank, ev) != WEFT_NONE ||
          !weft_rank_pp_action (rank, e, &a) || a.microbatch >= 4 || (a.kind != 'F' && a.kind != 'B'))
        continue;
      slot = (a.kind == 'F' ? 0 : 4) + (guint) a.microbatch;
      if (seen[slot])
        continue;
      sp = weft_render_event_span (p.trace, NULL, 0, e);
      p.view.span.begin = sp.begin - (sp.end - sp.begin);
      p.view.span.end = sp.end + (sp.end - sp.begin);
      p.view.color_by_microbatch = FALSE;
      paint_view (&p, NULL, NULL);
      plain = cairo_surface_reference (p.surface);
      p.view.color_by_microbatch = TRUE;
      paint_view (&p, NULL, NULL);
      event_box (&p, 0, e, NULL, &x0, &x1, &y0, &y1);
      g_assert_cmpfloat (x1 - x0, >, 300);
      /* the label sits on the top half: the bottom rows carry the fill */
      g_assert_cmpfloat (box_fraction (p.surface, x0, x1, y1 - 5, y1,
                                       rgb_of (weft_render_microbatch_color (a.microbatch, a.kind, FALSE))), >, 0.8);
      g_assert_cmpfloat (box_fraction (plain, x0, x1, y1 - 5, y1, rgb_of (weft_render_event_color (rank, ev, FALSE))),
                         >, 0.8);
      cairo_surface_destroy (plain);
      seen[slot] = TRUE;
      checked++;
    }
  /* the whole step, plain then coloured */
  weft_view_fit_all (&p.view, p.trace);
  p.view.color_by_microbatch = FALSE;
  paint_view (&p, NULL, NULL);
  off = p.stats;
  p.view.color_by_microbatch = TRUE;
  paint_view (&p, NULL, NULL);
  /* every microbatch, forward and backward, was seen */
  for (guint k = 0; k < 8; k++)
    if (!seen[k])
      g_test_message ("not seen: %c%u", k < 4 ? 'F' : 'B', k % 4);
  for (guint k = 0; k < 8; k++)
    g_assert_true (seen[k]);
  g_assert_cmpuint (checked, ==, 8);
  /* the hues differ between microbatches and between forward and backward */
  for (int m = 0; m < 4; m++)
    {
      g_assert_false (same_color (rgb_of (weft_render_microbatch_color (m, 'F', FALSE)),
                                  rgb_of (weft_render_microbatch_color (m, 'B', FALSE))));
      for (int n = m + 1; n < 4; n++)
        g_assert_false (same_color (rgb_of (weft_render_microbatch_color (m, 'B', FALSE)),
                                    rgb_of (weft_render_microbatch_color (n, 'B', FALSE))));
    }
  /* the level of detail holds: runs fold by microbatch instead of by class
   * (fewer or more boxes, within a factor), the same labels */
  g_assert_cmpuint (p.stats.labels, ==, off.labels);
  g_assert_cmpuint (p.stats.boxes, <=, 2 * off.boxes);
  g_assert_cmpuint (2 * p.stats.boxes, >=, off.boxes);
  g_assert_cmpuint (p.stats.events_visited, <=, 2 * off.events_visited);
  painted_clear (&p);

  /* no actions: nothing */
  p.trace = gen_trace (2, 0);
  weft_view_init (&p.view, p.trace);
  p.layout = weft_layout_new (p.trace, &p.view);
  g_assert_false (weft_layout_has_pp_actions (p.layout));
  painted_clear (&p);
}

static void
test_paint_generated (void)
{
  Painted p = { 0 };
  guint32 gemm, ag, gap_gemm;
  double x0, x1, y0, y1;
  guint32 bg, px;
  WeftRank *rank;

  p.trace = gen_trace (2, 0);
  weft_view_init (&p.view, p.trace);
  p.view.width = 1200;
  p.layout = weft_layout_new (p.trace, &p.view);
  p.view.height = ceil (weft_layout_get_height (p.layout));
  paint_view (&p, NULL, NULL);
  rank = weft_trace_rank (p.trace, 0);
  bg = rgb_of (weft_render_background_color (FALSE));

  /* each GEMM's box carries its class colour; the gap after it is background */
  for (guint k = 0; k < N_GEMM; k++)
    {
      gemm = find_kernel (rank, "sm90_xmma_gemm", k);
      g_assert_cmpuint (gemm, !=, WEFT_NONE);
      event_box (&p, 0, gemm, NULL, &x0, &x1, &y0, &y1);
      g_assert_cmpfloat (x1 - x0, >, 20);
      g_assert_cmpfloat (box_fraction (p.surface, x0, x1, y0, y1,
                                       rgb_of (weft_render_event_color (rank, weft_rank_event (rank, gemm), FALSE))),
                         >, 0.5);
      /* the compute stream is idle 100 us after each GEMM (the last one:
       * up to the end of the view, but for step markers) */
      gap_gemm = gemm;
      px = rgb_of (weft_render_event_color (rank, weft_rank_event (rank, gap_gemm), FALSE));
      g_assert_cmpfloat (box_fraction (p.surface, x1 + 2, x1 + (x1 - x0) / 2 - 2, y0, y1, px), ==, 0.0);
      g_assert_cmpfloat (box_fraction (p.surface, x1 + 2, x1 + (x1 - x0) / 2 - 2, y0, y1, bg), >, 0.8);
    }
  ag = find_kernel (rank, "ncclDevKernel_AllGather", 0);
  event_box (&p, 0, ag, NULL, &x0, &x1, &y0, &y1);
  g_assert_cmpfloat (box_fraction (p.surface, x0, x1, y0, y1,
                                   rgb_of (weft_render_event_color (rank, weft_rank_event (rank, ag), FALSE))),
                     >, 0.5);
  /* the two colour families differ */
  g_assert_false (same_color (rgb_of (weft_render_event_color (rank, weft_rank_event (rank, ag), FALSE)),
                              rgb_of (weft_render_event_color (rank, weft_rank_event (rank, gemm), FALSE))));
  /* the right margin (after the trace) is background on every lane */
  g_assert_true (same_color (pixel_at (p.surface, (int) p.view.width - 2, (int) y1 - 2), bg));

  g_assert_cmpuint (p.stats.boxes, >=, 2 * (N_GEMM + N_AG));
  g_assert_cmpuint (p.stats.labels, >, 0);
  g_assert_cmpuint (p.stats.rows_drawn, ==, weft_layout_get_n_rows (p.layout));

  /* hit testing: the middle of a GEMM hits it; the gap after it hits nothing */
  {
    WeftHit hit;
    gemm = find_kernel (rank, "sm90_xmma_gemm", 3);
    event_box (&p, 0, gemm, NULL, &x0, &x1, &y0, &y1);
    g_assert_true (weft_render_hit_test (p.trace, &p.view, p.layout, NULL, (x0 + x1) / 2, (y0 + y1) / 2, &hit));
    g_assert_cmpuint (hit.rank_index, ==, 0);
    g_assert_cmpuint (hit.event, ==, gemm);
    g_assert_false (weft_render_hit_test (p.trace, &p.view, p.layout, NULL, x1 + (x1 - x0) / 4, (y0 + y1) / 2, &hit));
    g_assert_cmpuint (hit.event, ==, WEFT_NONE);
    g_assert_cmpint (hit.row, >=, 0);
    /* a header row: no event */
    g_assert_false (weft_render_hit_test (p.trace, &p.view, p.layout, NULL, (x0 + x1) / 2, 3, &hit));
    g_assert_cmpint (weft_layout_get_row (p.layout, (guint) hit.row)->kind, ==, WEFT_ROW_RANK_HEADER);
  }

  /* selection + launch flow + highlights paint without touching the body
   * elsewhere: a selected GEMM gets an outline (pixels change at its edge) */
  {
    guint32 before;
    gemm = find_kernel (rank, "sm90_xmma_gemm", 5);
    event_box (&p, 0, gemm, NULL, &x0, &x1, &y0, &y1);
    before = pixel_at (p.surface, (int) ((x0 + x1) / 2), (int) y0 - 1);
    p.view.sel_rank = 0;
    p.view.sel_event = gemm;
    paint_view (&p, NULL, NULL);
    g_assert_false (same_color (before, pixel_at (p.surface, (int) ((x0 + x1) / 2), (int) y0 - 1)));
    g_assert_cmpuint (weft_event_link (weft_rank_event (rank, gemm)), !=, WEFT_NONE);
  }
  painted_clear (&p);
}


/* Pixels that differ between two paints, and their bounding box. */
static guint
diff_pixels (cairo_surface_t *a, cairo_surface_t *b, int *x0, int *x1, int *y0, int *y1)
{
  guint n = 0;
  *x0 = *y0 = G_MAXINT;
  *x1 = *y1 = -1;
  for (int y = 0; y < cairo_image_surface_get_height (a); y++)
    for (int x = 0; x < cairo_image_surface_get_width (a); x++)
      if (!same_color (pixel_at (a, x, y), pixel_at (b, x, y)))
        {
          n++;
          *x0 = MIN (*x0, x);
          *x1 = MAX (*x1, x);
          *y0 = MIN (*y0, y);
          *y1 = MAX (*y1, y);
        }
  return n;
}

static void
test_overlays (void)
{
  Painted p = { 0 };
  cairo_surface_t *plain;
  WeftRank *r0, *r1;
  guint32 ag0, ag1, inst, gemm, g2;
  double ax0, ax1, ay0, ay1, bx0, bx1, by0, by1;
  int dx0, dx1, dy0, dy1;
  guint n;

  p.trace = gen_trace (2, 0);
  weft_view_init (&p.view, p.trace);
  p.view.width = 1200;
  p.layout = weft_layout_new (p.trace, &p.view);
  p.view.height = ceil (weft_layout_get_height (p.layout));
  paint_view (&p, NULL, NULL);
  plain = cairo_surface_reference (p.surface);
  r0 = weft_trace_rank (p.trace, 0);
  r1 = weft_trace_rank (p.trace, 1);

  /* the second all-gather is one instance on both ranks */
  ag0 = find_kernel (r0, "ncclDevKernel_AllGather", 1);
  ag1 = find_kernel (r1, "ncclDevKernel_AllGather", 1);
  g_assert_cmpuint (weft_rank_event_coll (r0, ag0), !=, WEFT_NONE);
  inst = g_array_index (r0->collectives, WeftCollective, weft_rank_event_coll (r0, ag0)).instance;
  g_assert_cmpuint (inst, !=, WEFT_NONE);
  g_assert_cmpuint (g_array_index (r1->collectives, WeftCollective, weft_rank_event_coll (r1, ag1)).instance, ==,
                    inst);

  /* hovering it outlines it on both ranks and links them: the change spans
   * both ranks' rows, and stays around the two kernels */
  p.view.hover_rank = 0;
  p.view.hover_event = ag0;
  paint_view (&p, NULL, NULL);
  event_box (&p, 0, ag0, NULL, &ax0, &ax1, &ay0, &ay1);
  event_box (&p, 1, ag1, NULL, &bx0, &bx1, &by0, &by1);
  n = diff_pixels (plain, p.surface, &dx0, &dx1, &dy0, &dy1);
  g_assert_cmpuint (n, >, 0);
  g_assert_cmpint (dy0, <=, (int) ay0);
  g_assert_cmpint (dy1, >=, (int) by1 - 1);
  g_assert_cmpint (dx0, >=, (int) MIN (ax0, bx0) - 4);
  g_assert_cmpint (dx1, <=, (int) MAX (ax1, bx1) + 4);
  /* between the two ranks' rows, on the link */
  {
    guint between = 0;
    for (int y = (int) ay1 + 4; y < (int) by0 - 4; y++)
      for (int x = (int) MIN (ax1, bx1) - 3; x <= (int) MAX (ax1, bx1) + 3; x++)
        between += !same_color (pixel_at (plain, x, y), pixel_at (p.surface, x, y));
    g_assert_cmpuint (between, >, 10);
  }

  /* hovering a GEMM draws its launch flow up to the CPU row: changes above the GEMM's row */
  p.view.hover_rank = 0;
  gemm = find_kernel (r0, "sm90_xmma_gemm", 4);
  p.view.hover_event = gemm;
  g_assert_cmpuint (weft_event_link (weft_rank_event (r0, gemm)), !=, WEFT_NONE);
  paint_view (&p, NULL, NULL);
  event_box (&p, 0, gemm, NULL, &ax0, &ax1, &ay0, &ay1);
  n = diff_pixels (plain, p.surface, &dx0, &dx1, &dy0, &dy1);
  g_assert_cmpuint (n, >, 0);
  /* the launch is in the CPU summary row, below the GPU lanes */
  g_assert_cmpint (dy1, >, (int) ay1 + WEFT_RENDER_LANE_ROW);
  p.view.hover_event = WEFT_NONE;
  p.view.show_flows = FALSE;
  paint_view (&p, NULL, NULL);
  g_assert_cmpuint (diff_pixels (plain, p.surface, &dx0, &dx1, &dy0, &dy1), ==, 0);

  /* a critical path of two GEMMs: outlined in its colour, nothing else changes far away */
  {
    WeftEventRef cp[2];
    WeftRenderOverlay overlay = { cp, 2, NULL, 0 };
    g2 = find_kernel (r0, "sm90_xmma_gemm", 5);
    cp[0] = (WeftEventRef) { 0, gemm };
    cp[1] = (WeftEventRef) { 0, g2 };
    paint_view (&p, NULL, &overlay);
    n = diff_pixels (plain, p.surface, &dx0, &dx1, &dy0, &dy1);
    event_box (&p, 0, gemm, NULL, &ax0, &ax1, &ay0, &ay1);
    event_box (&p, 0, g2, NULL, &bx0, &bx1, &by0, &by1);
    g_assert_cmpuint (n, >, 2 * (ax1 - ax0));
    g_assert_cmpint (dx0, >=, (int) ax0 - 3);
    g_assert_cmpint (dx1, <=, (int) bx1 + 3);
    g_assert_cmpint (dy0, >=, (int) ay0 - 3);
    g_assert_cmpint (dy1, <=, (int) ay1 + 3);
    p.view.show_critical_path = FALSE;
    paint_view (&p, NULL, &overlay);
    g_assert_cmpuint (diff_pixels (plain, p.surface, &dx0, &dx1, &dy0, &dy1), ==, 0);
  }
  cairo_surface_destroy (plain);
  painted_clear (&p);
}


/* Solved times with a generation: cached per row, re-read when it changes. */
static void
test_solved_times_cached (void)
{
  Painted p = { 0 };
  WeftRank *rank;
  guint32 first, last;
  g_autofree gint64 *start = NULL;
  g_autofree gint64 *end = NULL;
  const gint64 *starts[1], *ends[1];
  WeftRenderTimes times;
  double x0, x1, y0, y1, lx0, lx1, ly0, ly1;
  guint32 colour, bg;
  const gint64 shift = 5000000; /* 5 ms later: past the 4 ms the kernels span */

  p.trace = gen_trace (1, 2000);
  rank = weft_trace_rank (p.trace, 0);
  first = find_kernel (rank, "vectorized_elementwise", 0);
  last = find_kernel (rank, "vectorized_elementwise", 1999);
  weft_view_init (&p.view, p.trace);
  p.view.width = 1200;
  p.view.span.end += shift + 100000;
  p.layout = weft_layout_new (p.trace, &p.view);
  p.view.height = ceil (weft_layout_get_height (p.layout));
  colour = rgb_of (weft_render_event_color (rank, weft_rank_event (rank, first), FALSE));
  bg = rgb_of (weft_render_background_color (FALSE));

  start = g_new (gint64, rank->events->len);
  end = g_new (gint64, rank->events->len);
  for (guint i = 0; i < rank->events->len; i++)
    {
      WeftTimeSpan sp = weft_render_event_span (p.trace, NULL, 0, i);
      start[i] = sp.begin;
      end[i] = sp.end;
    }
  starts[0] = start;
  ends[0] = end;
  times = (WeftRenderTimes) { NULL, NULL, 1, starts, ends, 1 };

  /* generation 1: as observed (the second paint of a generation reads
   * the rows into the cache, the third uses it) */
  paint_view (&p, &times, NULL);
  paint_view (&p, &times, NULL);
  paint_view (&p, &times, NULL);
  event_box (&p, 0, first, &times, &x0, &x1, &y0, &y1);
  event_box (&p, 0, last, &times, &lx0, &lx1, &ly0, &ly1);
  g_assert_cmpfloat (box_fraction (p.surface, x0, lx1, y0, y1, colour), >, 0.8);

  /* every tiny kernel 5 ms later, generation 2: the row is re-read */
  for (guint i = 0; i < rank->events->len; i++)
    if (g_str_has_prefix (weft_rank_string (rank, weft_rank_event (rank, i)->name), "vectorized_elementwise"))
      start[i] += shift, end[i] += shift;
  times.generation = 2;
  for (int k = 0; k < 3; k++)
    {
      paint_view (&p, &times, NULL);
      g_assert_cmpfloat (box_fraction (p.surface, x0, lx1, y0, y1, colour), ==, 0.0);
    }
  g_assert_cmpfloat (box_fraction (p.surface, x0, lx1, y0, y1, bg), >, 0.8);
  event_box (&p, 0, first, &times, &x0, &x1, &y0, &y1);
  event_box (&p, 0, last, &times, &lx0, &lx1, &ly0, &ly1);
  g_assert_cmpfloat (box_fraction (p.surface, x0, lx1, y0, y1, colour), >, 0.8);
  /* the same times without a generation, with the band of those times
   * passed explicitly, agree with the cached paint (rows and band) */
  {
    cairo_surface_t *cached = cairo_surface_reference (p.surface);
    int dx0, dx1, dy0, dy1;
    g_autoptr (GArray) band = weft_render_overlap_band (p.trace, &times, 0);
    GArray *bands[1] = { band };
    WeftRenderOverlay overlay = { NULL, 0, bands, 1 };
    times.generation = 0;
    paint_view (&p, &times, &overlay);
    g_assert_cmpuint (diff_pixels (cached, p.surface, &dx0, &dx1, &dy0, &dy1), ==, 0);
    /* and without it the observed band is drawn: the header row differs */
    paint_view (&p, &times, NULL);
    g_assert_cmpuint (diff_pixels (cached, p.surface, &dx0, &dx1, &dy0, &dy1), >, 0);
    g_assert_cmpint (dy1, <, (int) WEFT_RENDER_RANK_ROW);
    cairo_surface_destroy (cached);
  }
  painted_clear (&p);
}


/* With a small refresh budget, the caches fill over several paints and
 * every paint in between is still right. */
static void
test_refresh_budget (void)
{
  Painted p = { 0 };
  WeftRank *rank;
  g_autofree gint64 *start = NULL;
  g_autofree gint64 *end = NULL;
  const gint64 *starts[2], *ends[2];
  WeftRenderTimes times;
  cairo_surface_t *want;
  const gint64 shift = 5000000;

  p.trace = gen_trace (2, 2000);
  weft_view_init (&p.view, p.trace);
  p.view.width = 600;
  p.view.span.end += shift + 100000;
  p.layout = weft_layout_new (p.trace, &p.view);
  p.view.height = ceil (weft_layout_get_height (p.layout));
  weft_layout_set_refresh_budget (p.layout, 500);
  rank = weft_trace_rank (p.trace, 0);
  /* rank 0's tiny kernels 5 ms later, rank 1 as observed */
  start = g_new (gint64, rank->events->len);
  end = g_new (gint64, rank->events->len);
  for (guint i = 0; i < rank->events->len; i++)
    {
      WeftTimeSpan sp = weft_render_event_span (p.trace, NULL, 0, i);
      gboolean tiny = g_str_has_prefix (weft_rank_string (rank, weft_rank_event (rank, i)->name), "vectorized");
      start[i] = sp.begin + (tiny ? shift : 0);
      end[i] = sp.end + (tiny ? shift : 0);
    }
  starts[0] = start;
  ends[0] = end;
  starts[1] = ends[1] = NULL;
  times = (WeftRenderTimes) { NULL, NULL, 2, starts, ends, 0 };
  /* the reference: asked for directly, with the band of these times */
  {
    g_autoptr (GArray) b0 = weft_render_overlap_band (p.trace, &times, 0);
    g_autoptr (GArray) b1 = weft_render_overlap_band (p.trace, &times, 1);
    GArray *bands[2] = { b0, b1 };
    WeftRenderOverlay overlay = { NULL, 0, bands, 2 };
    paint_view (&p, &times, &overlay);
    want = cairo_surface_reference (p.surface);
  }
  times.generation = 3;
  for (int k = 0; k < 6; k++)
    {
      int dx0, dx1, dy0, dy1;
      guint n;
      paint_view (&p, &times, NULL);
      n = diff_pixels (want, p.surface, &dx0, &dx1, &dy0, &dy1);
      /* rows always match; only the header bands may lag (the last band
       * computed, else the observed one) until their turn comes */
      if (n > 0)
        {
          for (guint i = 0; i < weft_layout_get_n_rows (p.layout); i++)
            {
              const WeftLayoutRow *row = weft_layout_get_row (p.layout, i);
              if (row->kind != WEFT_ROW_RANK_HEADER)
                {
                  int fx0, fx1, fy0, fy1;
                  cairo_surface_t *a = cairo_image_surface_create_for_data (
                    cairo_image_surface_get_data (want) + (gsize) row->y * cairo_image_surface_get_stride (want),
                    CAIRO_FORMAT_RGB24, (int) p.view.width, (int) row->height, cairo_image_surface_get_stride (want));
                  cairo_surface_t *b = cairo_image_surface_create_for_data (
                    cairo_image_surface_get_data (p.surface) + (gsize) row->y * cairo_image_surface_get_stride (p.surface),
                    CAIRO_FORMAT_RGB24, (int) p.view.width, (int) row->height,
                    cairo_image_surface_get_stride (p.surface));
                  g_assert_cmpuint (diff_pixels (a, b, &fx0, &fx1, &fy0, &fy1), ==, 0);
                  cairo_surface_destroy (a);
                  cairo_surface_destroy (b);
                }
            }
          g_assert_cmpint (k, <, 5);
        }
    }
  /* in the end everything is cached and the picture is the reference */
  {
    int dx0, dx1, dy0, dy1;
    g_assert_cmpuint (diff_pixels (want, p.surface, &dx0, &dx1, &dy0, &dy1), ==, 0);
  }
  cairo_surface_destroy (want);
  painted_clear (&p);
}

static void
test_solved_times (void)
{
  Painted p = { 0 };
  WeftRank *rank;
  guint32 gemm;
  g_autofree gint64 *start = NULL;
  g_autofree gint64 *end = NULL;
  const gint64 *starts[2], *ends[2];
  WeftRenderTimes times;
  double x0, x1, y0, y1, ox0, ox1;
  WeftTimeSpan obs;
  guint32 colour;

  p.trace = gen_trace (2, 0);
  weft_view_init (&p.view, p.trace);
  p.view.width = 1200;
  p.layout = weft_layout_new (p.trace, &p.view);
  p.view.height = ceil (weft_layout_get_height (p.layout));
  rank = weft_trace_rank (p.trace, 0);
  gemm = find_kernel (rank, "sm90_xmma_gemm", N_GEMM - 1);
  colour = rgb_of (weft_render_event_color (rank, weft_rank_event (rank, gemm), FALSE));

  /* move the last GEMM 500 us later through the solved-times arrays */
  start = g_new (gint64, rank->events->len);
  end = g_new (gint64, rank->events->len);
  for (guint i = 0; i < rank->events->len; i++)
    start[i] = G_MININT64, end[i] = 0;
  obs = weft_render_event_span (p.trace, NULL, 0, gemm);
  start[gemm] = obs.begin + 500000;
  end[gemm] = obs.end + 500000;
  starts[0] = start;
  ends[0] = end;
  starts[1] = ends[1] = NULL;
  times = (WeftRenderTimes) { NULL, NULL, 2, starts, ends };
  g_assert_cmpint (weft_render_event_span (p.trace, &times, 0, gemm).begin, ==, obs.begin + 500000);
  /* widen the view so the moved GEMM fits */
  p.view.span.end += 600000;
  event_box (&p, 0, gemm, NULL, &ox0, &ox1, &y0, &y1);
  event_box (&p, 0, gemm, &times, &x0, &x1, &y0, &y1);
  g_assert_cmpfloat (x0, >, ox1 + 10);
  paint_view (&p, &times, NULL);
  g_assert_cmpfloat (box_fraction (p.surface, x0, x1, y0, y1, colour), >, 0.5);
  /* where it was, the stream is empty now */
  g_assert_cmpfloat (box_fraction (p.surface, ox0, ox1, y0, y1, colour), ==, 0.0);
  g_assert_cmpfloat (box_fraction (p.surface, ox0, ox1, y0, y1, rgb_of (weft_render_background_color (FALSE))), >,
                     0.8);
  {
    WeftHit hit;
    g_assert_true (weft_render_hit_test (p.trace, &p.view, p.layout, &times, (x0 + x1) / 2, (y0 + y1) / 2, &hit));
    g_assert_cmpuint (hit.event, ==, gemm);
  }
  painted_clear (&p);
}

static WeftOverlapState
brute_state (WeftTrace *trace, guint rank_index, gint64 t)
{
  WeftRank *rank = weft_trace_rank (trace, rank_index);
  gint64 off = weft_trace_rank_offset (trace, rank);
  gboolean compute = FALSE, comm = FALSE;
  for (guint i = 0; i < rank->events->len; i++)
    {
      const WeftEvent *ev = weft_rank_event (rank, i);
      if (!(ev->flags & WEFT_EVENT_GPU_OP) || weft_event_dur (rank, ev) <= 0)
        continue;
      if (t >= ev->ts + off && t < ev->ts + off + weft_event_dur (rank, ev))
        {
          if (ev->kclass == WEFT_KCLASS_COMM || weft_event_coll (rank, ev) != WEFT_NONE)
            comm = TRUE;
          else
            compute = TRUE;
        }
    }
  return compute && comm ? WEFT_OVERLAP_OVERLAPPED
         : compute       ? WEFT_OVERLAP_COMPUTE_ONLY
         : comm          ? WEFT_OVERLAP_COMM_ONLY
                         : WEFT_OVERLAP_IDLE;
}

static void
check_band (WeftTrace *trace, guint rank_index)
{
  g_autoptr (GArray) band = weft_render_overlap_band (trace, NULL, rank_index);
  g_assert_cmpuint (band->len, >, 0);
  for (guint i = 0; i < band->len; i++)
    {
      const WeftOverlapSegment *s = &g_array_index (band, WeftOverlapSegment, i);
      g_assert_cmpint (s->end, >, s->begin);
      if (i > 0)
        {
          const WeftOverlapSegment *prev = &g_array_index (band, WeftOverlapSegment, i - 1);
          g_assert_cmpint (prev->end, ==, s->begin);
          g_assert_cmpint (prev->state, !=, s->state);
        }
      /* its first, middle and last ns have the state a brute-force scan finds */
      g_assert_cmpint (brute_state (trace, rank_index, s->begin), ==, s->state);
      g_assert_cmpint (brute_state (trace, rank_index, s->begin + (s->end - s->begin) / 2), ==, s->state);
      g_assert_cmpint (brute_state (trace, rank_index, s->end - 1), ==, s->state);
    }
}

static void
test_overlap_band (void)
{
  g_autoptr (WeftTrace) trace = gen_trace (2, 0);
  g_autoptr (GArray) band = weft_render_overlap_band (trace, NULL, 0);
  gint64 sum[WEFT_OVERLAP_N_STATES] = { 0 };

  check_band (trace, 0);
  for (guint i = 0; i < band->len; i++)
    {
      const WeftOverlapSegment *s = &g_array_index (band, WeftOverlapSegment, i);
      sum[s->state] += s->end - s->begin;
    }
  /* every state occurs in the generated schedule (GEMMs and all-gathers
   * partly overlap) when the all-gathers are classified as communication */
  g_assert_cmpint (sum[WEFT_OVERLAP_COMPUTE_ONLY], >, 0);
  g_assert_cmpint (sum[WEFT_OVERLAP_IDLE], >, 0);
  if (find_kernel (weft_trace_rank (trace, 0), "ncclDevKernel", 0) != WEFT_NONE &&
      weft_rank_event (weft_trace_rank (trace, 0), find_kernel (weft_trace_rank (trace, 0), "ncclDevKernel", 0))->kclass
          == WEFT_KCLASS_COMM)
    {
      g_assert_cmpint (sum[WEFT_OVERLAP_OVERLAPPED], >, 0);
      g_assert_cmpint (sum[WEFT_OVERLAP_COMM_ONLY], >, 0);
    }
}

static void
test_lod (void)
{
  Painted p = { 0 };
  const guint n_tiny = 100000;
  WeftRank *rank;
  guint32 tiny;
  double x0, x1, y0, y1;
  guint coloured = 0;
  WeftRgba c;

  p.trace = gen_trace (1, n_tiny);
  weft_view_init (&p.view, p.trace);
  p.view.width = 1000;
  p.layout = weft_layout_new (p.trace, &p.view);
  p.view.height = ceil (weft_layout_get_height (p.layout));
  paint_view (&p, NULL, NULL);
  /* 100k events on one lane, drawn as far fewer boxes: at most a few per
   * minimum box width, and the painter looked at few of the events */
  g_assert_cmpuint (p.stats.boxes, <, 1000);
  g_assert_cmpuint (p.stats.folded_boxes, >, 0);
  g_assert_cmpuint (p.stats.events_folded, >=, n_tiny / 2);
  g_assert_cmpuint (p.stats.events_visited, <, n_tiny / 20);

  /* the folded lane is not blank: its span is covered with its colour */
  rank = weft_trace_rank (p.trace, 0);
  tiny = find_kernel (rank, "vectorized_elementwise", 0);
  c = weft_render_event_color (rank, weft_rank_event (rank, tiny), FALSE);
  event_box (&p, 0, tiny, NULL, &x0, &x1, &y0, &y1);
  {
    guint32 last = find_kernel (rank, "vectorized_elementwise", n_tiny - 1);
    double lx0, lx1, ly0, ly1;
    event_box (&p, 0, last, NULL, &lx0, &lx1, &ly0, &ly1);
    for (int x = (int) ceil (x0) + 1; x < (int) lx1 - 1; x++)
      coloured += same_color (pixel_at (p.surface, x, (int) y1 - 2), rgb_of (c));
    g_assert_cmpuint (coloured, >=, (guint) ((lx1 - x0) * 0.9) - 4);
  }

  /* zoomed in on 20 us, the tiny events are real boxes again, none folded */
  {
    WeftTimeSpan first = weft_render_event_span (p.trace, NULL, 0, tiny);
    p.view.span.begin = first.begin;
    p.view.span.end = first.begin + 20000;
    paint_view (&p, NULL, NULL);
    g_assert_cmpuint (p.stats.folded_boxes, ==, 0);
    g_assert_cmpuint (p.stats.boxes, >=, 10);
    g_assert_cmpuint (p.stats.boxes, <, 40);
    event_box (&p, 0, tiny, NULL, &x0, &x1, &y0, &y1);
    g_assert_cmpfloat (box_fraction (p.surface, x0, x1, y0, y1, rgb_of (c)), >, 0.5);
    g_assert_cmpfloat (box_fraction (p.surface, x1, x1 + (x1 - x0), y0, y1, rgb_of (weft_render_background_color (FALSE))),
                       >, 0.8);
  }
  painted_clear (&p);
}


/* A trace big enough for the layout to prepare ranks in parallel: every
 * rank's rows and band come out as in a one-rank layout. */
static void
test_layout_parallel (void)
{
  Painted p = { 0 };
  const guint n_tiny = 70000;

  p.trace = gen_trace (3, n_tiny);
  weft_view_init (&p.view, p.trace);
  p.view.width = 800;
  p.layout = weft_layout_new (p.trace, &p.view);
  p.view.height = ceil (weft_layout_get_height (p.layout));
  paint_view (&p, NULL, NULL);
  for (guint r = 0; r < 3; r++)
    {
      WeftRank *rank = weft_trace_rank (p.trace, r);
      guint32 first = find_kernel (rank, "vectorized_elementwise", 0);
      guint32 last = find_kernel (rank, "vectorized_elementwise", n_tiny - 1);
      guint32 colour = rgb_of (weft_render_event_color (rank, weft_rank_event (rank, first), FALSE));
      double x0, x1, y0, y1, lx0, lx1, ly0, ly1;
      const WeftLayoutRow *header = NULL;
      event_box (&p, r, first, NULL, &x0, &x1, &y0, &y1);
      event_box (&p, r, last, NULL, &lx0, &lx1, &ly0, &ly1);
      g_assert_cmpfloat (box_fraction (p.surface, x0, lx1, y0, y1, colour), >, 0.8);
      for (guint i = 0; i < weft_layout_get_n_rows (p.layout); i++)
        if (weft_layout_get_row (p.layout, i)->kind == WEFT_ROW_RANK_HEADER &&
            weft_layout_get_row (p.layout, i)->rank_index == r)
          header = weft_layout_get_row (p.layout, i);
      g_assert_nonnull (header);
    }
  /* zoomed on the first 100 us of the first GEMM, each rank's band shows
   * the state a brute-force scan finds there */
  {
    WeftRank *rank = weft_trace_rank (p.trace, 0);
    WeftTimeSpan g = weft_render_event_span (p.trace, NULL, 0, find_kernel (rank, "sm90_xmma_gemm", 0));
    p.view.span.begin = g.begin;
    p.view.span.end = g.begin + 100000;
    paint_view (&p, NULL, NULL);
    for (guint i = 0; i < weft_layout_get_n_rows (p.layout); i++)
      {
        const WeftLayoutRow *row = weft_layout_get_row (p.layout, i);
        WeftOverlapState st;
        if (row->kind != WEFT_ROW_RANK_HEADER)
          continue;
        st = brute_state (p.trace, row->rank_index, g.begin + 50000);
        g_assert_cmpint (st, !=, WEFT_OVERLAP_IDLE);
        g_assert_cmpfloat (box_fraction (p.surface, 0, p.view.width, row->y + 5, row->y + row->height - 5,
                                         rgb_of (weft_render_overlap_color (st, FALSE))),
                           >, 0.8);
      }
  }
  painted_clear (&p);
}

static void
test_ruler (void)
{
  g_autoptr (WeftTrace) trace = gen_trace (1, 0);
  WeftView view;
  cairo_surface_t *s;
  cairo_t *cr;
  guint32 bg;
  guint differing = 0;
  int h = (int) WEFT_RENDER_RULER_HEIGHT;

  weft_view_init (&view, trace);
  view.width = 800;
  s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 800, h);
  cr = cairo_create (s);
  weft_render_paint_ruler (cr, trace, &view);
  cairo_destroy (cr);
  cairo_surface_flush (s);
  bg = pixel_at (s, 400, 2 + h / 2);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < 800; x++)
      differing += !same_color (pixel_at (s, x, y), bg);
  /* tick marks and labels */
  g_assert_cmpuint (differing, >, 800);
  cairo_surface_destroy (s);
  weft_view_clear (&view);
}

static void
test_ticks_and_format (void)
{
  WeftView view;
  const gint64 spans[] = { 1000, 12345, 999999, 3000000, 250000000, G_GINT64_CONSTANT (7000000000) };
  struct
  {
    gint64      ns, step;
    const char *text;
  } fmt[] = {
    { 0, 100, "0 ns" },          { 500, 100, "500 ns" },        { 1500, 500, "1.5 us" },
    { 1500000, 100000, "1.5 ms" }, { 2000000000, 500000000, "2.0 s" }, { 250000, 50000, "250 us" },
    { -3000, 1000, "-3 us" },
  };

  weft_view_init (&view, NULL);
  view.width = 1000;
  for (guint i = 0; i < G_N_ELEMENTS (spans); i++)
    {
      gint64 step, m;
      view.span.begin = 0;
      view.span.end = spans[i];
      step = weft_render_tick_step (&view, 80);
      /* 1, 2 or 5 x 10^k */
      m = step;
      while (m % 10 == 0)
        m /= 10;
      g_assert_true (m == 1 || m == 2 || m == 5);
      /* at least 80 px apart, and not more than 2.5x that */
      g_assert_cmpfloat ((double) step * view.width / (double) spans[i], >=, 80 - 1e-9);
      g_assert_cmpfloat ((double) step * view.width / (double) spans[i], <=, 80 * 2.5 + 1e-9);
    }
  for (guint i = 0; i < G_N_ELEMENTS (fmt); i++)
    {
      g_autofree char *s = weft_render_format_time (fmt[i].ns, fmt[i].step);
      g_assert_cmpstr (s, ==, fmt[i].text);
    }
  {
    const char *names[][2] = {
      { "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>(int, float)",
        "vectorized_elementwise_kernel" },
      { "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "ncclDevKernel_AllGather_RING_LL" },
      { "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n" },
      { "aten::mm", "aten::mm" },
      { "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float)",
        "vectorized_layer_norm_kernel" },
      { "ProfilerStep#3", "ProfilerStep#3" },
      { "(weird)", "(weird)" },
      { "", "" },
    };
    for (guint i = 0; i < G_N_ELEMENTS (names); i++)
      {
        g_autofree char *s = weft_render_short_name (names[i][0]);
        g_assert_cmpstr (s, ==, names[i][1]);
      }
  }
  /* time <-> x */
  view.span.begin = 1000;
  view.span.end = 2000;
  g_assert_cmpfloat (weft_render_time_to_x (&view, 1500), ==, 500);
  g_assert_cmpint (weft_render_x_to_time (&view, 250), ==, 1250);
  weft_view_zoom (&view, 0.5, 500);
  g_assert_cmpint (view.span.begin, ==, 1250);
  g_assert_cmpint (view.span.end, ==, 1750);
  weft_view_pan (&view, 100);
  g_assert_cmpint (view.span.begin, ==, 1300);
  weft_view_clear (&view);
}

static gboolean
file_starts_with (const char *path, const char *magic, gsize n)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  return len > n && memcmp (data, magic, n) == 0;
}


/* Degenerate input never crashes: an empty trace, a rank without events,
 * empty / inverted spans, zero sizes, scrolling past the rows, points
 * outside, events that are instants or zero-length, bad indices. */
static void
test_degenerate (void)
{
  g_autoptr (WeftTrace) empty = weft_trace_new ();
  g_autoptr (WeftTrace) trace = gen_trace (2, 0);
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 300, 200);
  cairo_t *cr = cairo_create (s);
  WeftView view;
  WeftHit hit;
  WeftRenderStats stats;
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_build_filename (weft_test_tmpdir (), "empty.png", NULL);

  /* empty trace */
  weft_view_init (&view, empty);
  g_assert_cmpint (view.span.end, >, view.span.begin);
  {
    g_autoptr (WeftLayout) layout = weft_layout_new (empty, &view);
    g_assert_cmpuint (weft_layout_get_n_rows (layout), ==, 0);
    g_assert_cmpfloat (weft_layout_get_height (layout), ==, 0);
    weft_render_paint (cr, empty, &view, layout, NULL, NULL, &stats);
    g_assert_cmpuint (stats.boxes, ==, 0);
    weft_render_paint_ruler (cr, empty, &view);
    weft_render_paint_lane_headers (cr, empty, &view, layout, 100);
    g_assert_false (weft_render_hit_test (empty, &view, layout, NULL, 10, 10, &hit));
    g_assert_cmpint (hit.row, ==, -1);
    g_assert_cmpint (weft_layout_find_lane (layout, 3, 0), ==, -1);
  }
  g_assert_false (weft_render_to_file (empty, NULL, path, &error));
  g_assert_error (error, WEFT_ERROR, WEFT_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  weft_view_clear (&view);

  /* odd views of a real layout */
  weft_view_init (&view, trace);
  {
    g_autoptr (WeftLayout) layout = weft_layout_new (trace, &view);
    const WeftTimeSpan spans[] = { { 0, 0 }, { 10, 5 }, { G_MININT64 / 4, G_MAXINT64 / 4 }, { 5, 6 } };
    const double sizes[][2] = { { 0, 0 }, { 300, 200 }, { 1, 1 }, { -5, -5 } };
    for (guint i = 0; i < G_N_ELEMENTS (spans); i++)
      for (guint j = 0; j < G_N_ELEMENTS (sizes); j++)
        for (int sc = 0; sc < 3; sc++)
          {
            WeftView v = view;
            v.span = spans[i];
            v.width = sizes[j][0];
            v.height = sizes[j][1];
            v.scroll_y = sc == 0 ? 0 : sc == 1 ? 1e6 : -1e6;
            v.sel_rank = 7;           /* no such rank */
            v.sel_event = 12345678;
            v.hover_rank = 0;
            v.hover_event = G_MAXUINT32 - 1;
            v.highlight_instance = 999999;
            weft_render_paint (cr, trace, &v, layout, NULL, NULL, &stats);
            weft_render_paint_ruler (cr, trace, &v);
            weft_render_paint_lane_headers (cr, trace, &v, layout, 100);
            weft_render_hit_test (trace, &v, layout, NULL, 5, 5, &hit);
            weft_render_hit_test (trace, &v, layout, NULL, -5, 1e9, &hit);
            g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
          }
    /* a critical path naming events that do not exist */
    {
      WeftEventRef cp[] = { { 0, G_MAXUINT32 - 1 }, { 9, 0 }, { 1, 3 } };
      WeftRenderOverlay overlay = { cp, G_N_ELEMENTS (cp), NULL, 0 };
      weft_render_paint (cr, trace, &view, layout, NULL, &overlay, &stats);
    }
  }
  weft_view_clear (&view);

  /* a lane that grows after the layout was built (an insert without a
   * rebuild): its packed rows are not read past their end; the new events
   * are drawn from the events themselves */
  {
    g_autoptr (WeftTrace) t2 = gen_trace (1, 1000);
    WeftRank *rank = weft_trace_rank (t2, 0);
    guint32 tiny = find_kernel (rank, "vectorized_elementwise", 999);
    WeftEvent copy = *weft_rank_event (rank, tiny);
    WeftLane *lane = weft_rank_lane (rank, copy.lane);
    g_autoptr (WeftLayout) layout = NULL;
    gint64 *start[1];
    const gint64 *starts[1], *ends[1];
    WeftRenderTimes times;
    guint n0;

    weft_view_init (&view, t2);
    view.width = 300;
    view.height = 200;
    layout = weft_layout_new (t2, &view);
    weft_render_paint (cr, t2, &view, layout, NULL, NULL, &stats);
    n0 = stats.boxes;
    for (guint k = 0; k < 600; k++)
      {
        guint32 idx = rank->events->len;
        copy.ts += 2000;
        g_array_append_val (rank->events, copy);
        g_array_append_val (lane->events, idx);
      }
    view.span.end += 600 * 2000;
    weft_render_paint (cr, t2, &view, layout, NULL, NULL, &stats);
    g_assert_cmpuint (stats.boxes, >, 0);
    start[0] = g_new (gint64, rank->events->len);
    for (guint i = 0; i < rank->events->len; i++)
      start[0][i] = G_MININT64;
    starts[0] = start[0];
    ends[0] = NULL;
    times = (WeftRenderTimes) { NULL, NULL, 1, starts, ends, 7 };
    for (int k = 0; k < 3; k++)
      weft_render_paint (cr, t2, &view, layout, &times, NULL, &stats);
    weft_render_hit_test (t2, &view, layout, &times, 299, 60, &hit);
    g_free (start[0]);
    (void) n0;
    weft_view_clear (&view);
  }
  cairo_destroy (cr);
  cairo_surface_destroy (s);
}

static void
test_files (void)
{
  g_autoptr (WeftTrace) trace = gen_trace (2, 0);
  const char *exts[] = { "png", "svg", "pdf", "PNG" };
  const int ranks[] = { 1 };
  WeftRenderFileOptions o = { { 0, 0 }, NULL, 0, 900, 0, FALSE, FALSE, NULL, NULL };
  g_autoptr (GError) error = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (exts); i++)
    {
      g_autofree char *name = g_strdup_printf ("pic%u.%s", i, exts[i]);
      g_autofree char *path = g_build_filename (weft_test_tmpdir (), name, NULL);
      o.dark = i % 2 == 1;
      g_assert_true (weft_render_to_file (trace, &o, path, &error));
      g_assert_no_error (error);
      if (g_ascii_strcasecmp (exts[i], "png") == 0)
        {
          cairo_surface_t *s;
          g_assert_true (file_starts_with (path, "\x89PNG\r\n\x1a\n", 8));
          s = cairo_image_surface_create_from_png (path);
          g_assert_cmpint (cairo_surface_status (s), ==, CAIRO_STATUS_SUCCESS);
          g_assert_cmpint (cairo_image_surface_get_width (s), ==, 900);
          g_assert_cmpint (cairo_image_surface_get_height (s), >, (int) WEFT_RENDER_RULER_HEIGHT + 50);
          cairo_surface_destroy (s);
        }
      else if (strcmp (exts[i], "svg") == 0)
        g_assert_true (file_starts_with (path, "<?xml", 5));
      else
        g_assert_true (file_starts_with (path, "%PDF", 4));
    }

  /* one rank, a range, fixed height */
  {
    g_autofree char *path = g_build_filename (weft_test_tmpdir (), "one.png", NULL);
    g_autofree char *all = g_build_filename (weft_test_tmpdir (), "pic0.png", NULL);
    cairo_surface_t *a, *b;
    WeftTimeSpan span = weft_trace_time_span (trace);
    o.ranks = ranks;
    o.n_ranks = 1;
    o.span.begin = span.begin;
    o.span.end = span.begin + (span.end - span.begin) / 2;
    g_assert_true (weft_render_to_file (trace, &o, path, &error));
    g_assert_no_error (error);
    a = cairo_image_surface_create_from_png (path);
    b = cairo_image_surface_create_from_png (all);
    /* auto height: one rank's rows instead of two */
    g_assert_cmpint (cairo_image_surface_get_height (a), <, cairo_image_surface_get_height (b));
    cairo_surface_destroy (a);
    cairo_surface_destroy (b);
    o.height = 300;
    g_assert_true (weft_render_to_file (trace, &o, path, &error));
    a = cairo_image_surface_create_from_png (path);
    g_assert_cmpint (cairo_image_surface_get_height (a), ==, 300);
    cairo_surface_destroy (a);
    /* shorter than the rows: the rows below are cut, nothing else */
    o.ranks = NULL;
    o.n_ranks = 0;
    o.height = 100;
    g_assert_true (weft_render_to_file (trace, &o, path, &error));
    g_assert_no_error (error);
    a = cairo_image_surface_create_from_png (path);
    g_assert_cmpint (cairo_image_surface_get_height (a), ==, 100);
    cairo_surface_destroy (a);
    o.height = 0;
  }

  /* errors: bad extension, unknown rank, unwritable place */
  {
    const int missing[] = { 42 };
    g_autofree char *bad = g_build_filename (weft_test_tmpdir (), "pic.bmp", NULL);
    g_assert_false (weft_render_to_file (trace, NULL, bad, &error));
    g_assert_error (error, WEFT_ERROR, WEFT_ERROR_INVALID);
    g_clear_error (&error);
    o.ranks = missing;
    g_assert_false (weft_render_to_file (trace, &o, bad, &error));
    g_clear_error (&error);
    o.ranks = NULL;
    o.n_ranks = 0;
    g_assert_false (weft_render_to_file (trace, &o, "/nonexistent-dir/x.png", &error));
    g_assert_error (error, WEFT_ERROR, WEFT_ERROR_IO);
    g_clear_error (&error);
  }
}

static void
test_dlrm (void)
{
  g_autofree char *dir = weft_test_require_trace (DLRM_DIR);
  g_autoptr (GError) error = NULL;
  Painted p = { 0 };
  guint n_headers = 0, checked = 0;

  if (dir == NULL)
    return;
  p.trace = weft_trace_load (dir, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (p.trace->ranks->len, ==, 8);
  weft_view_init (&p.view, p.trace);
  p.view.width = 1600;
  p.layout = weft_layout_new (p.trace, &p.view);
  p.view.height = ceil (weft_layout_get_height (p.layout));
  for (guint i = 0; i < weft_layout_get_n_rows (p.layout); i++)
    {
      const WeftLayoutRow *row = weft_layout_get_row (p.layout, i);
      if (row->kind == WEFT_ROW_RANK_HEADER)
        {
          g_autofree char *label = weft_render_row_label (p.trace, row);
          g_autofree char *want = g_strdup_printf ("rank %u", n_headers);
          g_assert_cmpstr (label, ==, want);
          n_headers++;
        }
    }
  g_assert_cmpuint (n_headers, ==, 8);
  paint_view (&p, NULL, NULL);

  /* every rank: its longest GPU op is drawn with its colour at its place */
  for (guint r = 0; r < 8; r++)
    {
      WeftRank *rank = weft_trace_rank (p.trace, r);
      guint32 best = WEFT_NONE;
      gint64 best_dur = -1;
      double x0, x1, y0, y1;
      for (guint i = 0; i < rank->events->len; i++)
        {
          const WeftEvent *ev = weft_rank_event (rank, i);
          if ((ev->flags & WEFT_EVENT_GPU_OP) && weft_event_dur (rank, ev) > best_dur)
            best = i, best_dur = weft_event_dur (rank, ev);
        }
      g_assert_cmpuint (best, !=, WEFT_NONE);
      event_box (&p, r, best, NULL, &x0, &x1, &y0, &y1);
      if (x1 - x0 < 4)
        continue;
      g_assert_cmpfloat (box_fraction (p.surface, x0, x1, y0, y1,
                                       rgb_of (weft_render_event_color (rank, weft_rank_event (rank, best), FALSE))),
                         >, 0.5);
      checked++;
    }
  g_assert_cmpuint (checked, >, 0);
  /* a full zoom-out of 8 ranks: folding keeps the box count near the pixel budget */
  g_assert_cmpuint (p.stats.boxes, <, weft_layout_get_n_rows (p.layout) * (guint) p.view.width);

  for (guint r = 0; r < 8; r++)
    check_band (p.trace, r);
  painted_clear (&p);
}


/* Random views of a real trace: painting never fails, and every hit is an
 * event whose span covers the point (within the +-2 px slack) on the row
 * under the point. */
static void
test_random_views (void)
{
  g_autofree char *dir = weft_test_require_trace (DLRM_DIR);
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftTrace) trace = NULL;
  WeftView view;
  g_autoptr (WeftLayout) layout = NULL;
  cairo_surface_t *s;
  cairo_t *cr;
  WeftTimeSpan all;
  guint hits = 0;

  if (dir == NULL)
    return;
  trace = weft_trace_load (dir, NULL, NULL, &error);
  g_assert_no_error (error);
  weft_view_init (&view, trace);
  for (guint r = 0; r < trace->ranks->len; r++)
    weft_view_set_rank_flags (&view, r, (guint8) (r % 3 == 1 ? WEFT_RANK_VIEW_CPU_EXPANDED : r % 3 == 2 ? WEFT_RANK_VIEW_COLLAPSED : 0));
  layout = weft_layout_new (trace, &view);
  all = weft_trace_time_span (trace);
  s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 400, 300);
  cr = cairo_create (s);
  view.width = 400;
  view.height = 300;
  for (guint iter = 0; iter < 150; iter++)
    {
      gint64 d = MAX ((gint64) g_test_rand_double_range (100, (double) (all.end - all.begin)), 100);
      WeftRenderStats stats;
      view.span.begin = all.begin + (gint64) (g_test_rand_double_range (-0.1, 1.0) * (double) (all.end - all.begin));
      view.span.end = view.span.begin + d;
      view.scroll_y = g_test_rand_double_range (0, MAX (weft_layout_get_height (layout) - 100, 1));
      weft_render_paint (cr, trace, &view, layout, NULL, NULL, &stats);
      g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
      for (guint k = 0; k < 20; k++)
        {
          double x = g_test_rand_double_range (0, 400), y = g_test_rand_double_range (0, 300);
          WeftHit hit;
          if (weft_render_hit_test (trace, &view, layout, NULL, x, y, &hit))
            {
              WeftTimeSpan sp = weft_render_event_span (trace, NULL, hit.rank_index, hit.event);
              double x0 = weft_render_time_to_x (&view, sp.begin), x1 = weft_render_time_to_x (&view, sp.end);
              const WeftLayoutRow *row = weft_layout_get_row (layout, (guint) hit.row);
              const WeftEvent *ev = weft_rank_event (weft_trace_rank (trace, hit.rank_index), hit.event);
              g_assert_cmpfloat (x, >=, x0 - 3.0);
              g_assert_cmpfloat (x, <=, MAX (x1, x0 + 1.0) + 3.0);
              g_assert_cmpfloat (y + view.scroll_y, >=, row->y);
              g_assert_cmpfloat (y + view.scroll_y, <, row->y + row->height);
              g_assert_cmpuint (row->rank_index, ==, hit.rank_index);
              if (row->kind == WEFT_ROW_LANE)
                {
                  g_assert_cmpuint (ev->lane, ==, row->lane);
                  g_assert_cmpuint (weft_layout_event_depth (layout, hit.rank_index, hit.event), ==, hit.depth);
                }
              else
                g_assert_cmpint (row->kind, ==, WEFT_ROW_CPU_SUMMARY);
              hits++;
            }
        }
    }
  /* the views are not all empty */
  g_assert_cmpuint (hits, >, 10);
  cairo_destroy (cr);
  cairo_surface_destroy (s);
  weft_view_clear (&view);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/render/layout/generated", test_layout_generated);
  g_test_add_func ("/render/paint/generated", test_paint_generated);
  g_test_add_func ("/render/paint/microbatch", test_paint_microbatch);
  g_test_add_func ("/render/paint/solved-times", test_solved_times);
  g_test_add_func ("/render/paint/overlays", test_overlays);
  g_test_add_func ("/render/paint/solved-times-cached", test_solved_times_cached);
  g_test_add_func ("/render/paint/refresh-budget", test_refresh_budget);
  g_test_add_func ("/render/overlap-band", test_overlap_band);
  g_test_add_func ("/render/lod", test_lod);
  g_test_add_func ("/render/layout/parallel", test_layout_parallel);
  g_test_add_func ("/render/ruler", test_ruler);
  g_test_add_func ("/render/ticks-and-format", test_ticks_and_format);
  g_test_add_func ("/render/files", test_files);
  g_test_add_func ("/render/degenerate", test_degenerate);
  g_test_add_func ("/render/dlrm", test_dlrm);
  g_test_add_func ("/render/random-views", test_random_views);
  return g_test_run ();
}
