/* palette.c: colours, time formatting, tick steps and the view helpers. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "render-private.h"

/* ---- colours ------------------------------------------------------------------ */

static WeftRgba
hex (guint32 rgb)
{
  WeftRgba c = { ((rgb >> 16) & 0xff) / 255.0, ((rgb >> 8) & 0xff) / 255.0, (rgb & 0xff) / 255.0, 1.0 };
  return c;
}

/* Compute classes in cool hues, communication in warm hues, so the two
 * families read apart at a glance; each pair of neighbours differs in
 * lightness too. Dark mode uses the same hues, slightly lifted. */
static const guint32 class_rgb[WEFT_KCLASS_N_CLASSES] = {
  [WEFT_KCLASS_NONE] = 0xa5acb5,
  [WEFT_KCLASS_GEMM] = 0x3f73b5,
  [WEFT_KCLASS_ATTENTION] = 0x7a52b3,
  [WEFT_KCLASS_NORM] = 0x4c9f5a,
  [WEFT_KCLASS_ELEMENTWISE] = 0x5fb3ad,
  [WEFT_KCLASS_REDUCTION] = 0x8bb8e0,
  [WEFT_KCLASS_OPTIMIZER] = 0xb07aa1,
  [WEFT_KCLASS_COPY] = 0x9c755f,
  [WEFT_KCLASS_OTHER] = 0x8d96a3,
  [WEFT_KCLASS_COMM] = 0xdf4f4f,
};

static const guint32 coll_rgb[WEFT_COLL_N_TYPES] = {
  [WEFT_COLL_NONE] = 0xdf4f4f,
  [WEFT_COLL_ALL_REDUCE] = 0xdf4f4f,
  [WEFT_COLL_ALL_GATHER] = 0xf28e2b,
  [WEFT_COLL_REDUCE_SCATTER] = 0xe6b422,
  [WEFT_COLL_ALL_TO_ALL] = 0xd9628f,
  [WEFT_COLL_SEND] = 0xb5533c,
  [WEFT_COLL_RECV] = 0xc96f4a,
  [WEFT_COLL_SEND_RECV] = 0xc2603f,
  [WEFT_COLL_BROADCAST] = 0xff8c69,
  [WEFT_COLL_REDUCE] = 0xa83232,
  [WEFT_COLL_BARRIER] = 0x8a3b12,
  [WEFT_COLL_EP_NOTIFY] = 0xe8a0b8,
  [WEFT_COLL_UNKNOWN] = 0xdf4f4f,
};

/* CPU-side colours: light, low-saturation so the GPU lanes stand out. */
static const guint32 cpu_rgb_light[WEFT_CPU_KEY_N] = {
  [WEFT_CPU_KEY_OP] = 0xb9c6d8,
  [WEFT_CPU_KEY_PYTHON] = 0xd8cbb0,
  [WEFT_CPU_KEY_RUNTIME] = 0xe9c46a,
  [WEFT_CPU_KEY_ANNOTATION] = 0x9fd3b4,
  [WEFT_CPU_KEY_GPU_ANNOTATION] = 0xc9b6dd,
  [WEFT_CPU_KEY_SYNC] = 0xe07a5f,
  [WEFT_CPU_KEY_INSTANT] = 0x6c757d,
  [WEFT_CPU_KEY_OTHER] = 0xc8c8c8,
};

static const guint32 cpu_rgb_dark[WEFT_CPU_KEY_N] = {
  [WEFT_CPU_KEY_OP] = 0x56657a,
  [WEFT_CPU_KEY_PYTHON] = 0x6d6350,
  [WEFT_CPU_KEY_RUNTIME] = 0x9a7d32,
  [WEFT_CPU_KEY_ANNOTATION] = 0x4a7a5e,
  [WEFT_CPU_KEY_GPU_ANNOTATION] = 0x66587a,
  [WEFT_CPU_KEY_SYNC] = 0xb8573f,
  [WEFT_CPU_KEY_INSTANT] = 0xadb5bd,
  [WEFT_CPU_KEY_OTHER] = 0x5a5a5a,
};

static WeftRgba
lift (WeftRgba c, gboolean dark)
{
  if (dark)
    {
      c.r = c.r * 0.85 + 0.15;
      c.g = c.g * 0.85 + 0.15;
      c.b = c.b * 0.85 + 0.15;
    }
  return c;
}

WeftRgba
weft_render_class_color (WeftKernelClass kclass, gboolean dark)
{
  if ((guint) kclass >= WEFT_KCLASS_N_CLASSES)
    kclass = WEFT_KCLASS_OTHER;
  return lift (hex (class_rgb[kclass]), dark);
}

WeftRgba
weft_render_coll_color (WeftCollType type, gboolean dark)
{
  if ((guint) type >= WEFT_COLL_N_TYPES)
    type = WEFT_COLL_UNKNOWN;
  return lift (hex (coll_rgb[type]), dark);
}

WeftRgba
weft_render_overlap_color (WeftOverlapState state, gboolean dark)
{
  switch (state)
    {
    case WEFT_OVERLAP_COMPUTE_ONLY:
      return lift (hex (0x3f73b5), dark);
    case WEFT_OVERLAP_OVERLAPPED:
      return lift (hex (0x2ca25f), dark);
    case WEFT_OVERLAP_COMM_ONLY:
      return lift (hex (0xdf4f4f), dark);
    case WEFT_OVERLAP_IDLE:
    case WEFT_OVERLAP_N_STATES:
    default:
      return dark ? hex (0x3a3d42) : hex (0xdfe2e6);
    }
}

WeftRgba
weft_render_background_color (gboolean dark)
{
  return dark ? hex (0x1e1f22) : hex (0xffffff);
}

WeftRgba
weft_render_text_color (gboolean dark)
{
  return dark ? hex (0xe6e6e6) : hex (0x1f2328);
}

WeftRgba
weft_render_microbatch_color (int microbatch, char kind, gboolean dark)
{
  /* Tableau 10 (distinguishable hues, also for most colour-blind readers
   * in pairs of neighbours), grey swapped for a dark cyan */
  static const guint32 hues[WEFT_RENDER_MICROBATCH_HUES] = { 0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2, 0x59a14f,
                                                             0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0x1f7f8f };
  WeftRgba c = hex (hues[(guint) MAX (microbatch, 0) % WEFT_RENDER_MICROBATCH_HUES]);
  if (kind == 'F')
    {
      /* forward: towards the background */
      WeftRgba bg = weft_render_background_color (dark);
      double t = 0.45;
      c.r += (bg.r - c.r) * t;
      c.g += (bg.g - c.g) * t;
      c.b += (bg.b - c.b) * t;
    }
  return c;
}

WeftRgba
weft_render_key_color (guint key, gboolean dark)
{
  if (key >= WEFT_KEY_MB_BASE && key < WEFT_KEY_N)
    {
      guint k = key - WEFT_KEY_MB_BASE;
      return weft_render_microbatch_color ((int) (k % WEFT_RENDER_MICROBATCH_HUES),
                                           k < WEFT_RENDER_MICROBATCH_HUES ? 'F' : 'B', dark);
    }
  if (key < WEFT_KEY_COLL_BASE)
    return weft_render_class_color ((WeftKernelClass) key, dark);
  if (key < WEFT_KEY_CPU_BASE)
    return weft_render_coll_color ((WeftCollType) (key - WEFT_KEY_COLL_BASE), dark);
  if (key < WEFT_KEY_CPU_BASE + WEFT_CPU_KEY_N)
    return hex ((dark ? cpu_rgb_dark : cpu_rgb_light)[key - WEFT_KEY_CPU_BASE]);
  return hex (0x888888);
}

gboolean
weft_render_event_is_comm (const WeftRank *rank, const WeftEvent *ev)
{
  return ev->kclass == WEFT_KCLASS_COMM || weft_event_coll (rank, ev) != WEFT_NONE;
}

guint
weft_render_event_key (const WeftRank *rank, const WeftEvent *ev)
{
  if (weft_event_coll (rank, ev) != WEFT_NONE && weft_event_coll (rank, ev) < rank->collectives->len)
    return WEFT_KEY_COLL_BASE + g_array_index (rank->collectives, WeftCollective, weft_event_coll (rank, ev)).type;
  if (ev->flags & WEFT_EVENT_GPU_OP)
    {
      if (ev->kclass == WEFT_KCLASS_COMM)
        return WEFT_KEY_COLL_BASE + WEFT_COLL_NONE;
      if (ev->kclass == WEFT_KCLASS_NONE)
        return ev->category == WEFT_CAT_KERNEL ? WEFT_KCLASS_OTHER : WEFT_KCLASS_COPY;
      return MIN (ev->kclass, WEFT_KCLASS_N_CLASSES - 1);
    }
  if (ev->ph == WEFT_PH_I)
    return WEFT_KEY_CPU_BASE + WEFT_CPU_KEY_INSTANT;
  switch ((WeftCategory) ev->category)
    {
    case WEFT_CAT_CPU_OP:
      return WEFT_KEY_CPU_BASE + WEFT_CPU_KEY_OP;
    case WEFT_CAT_PYTHON_FUNCTION:
      return WEFT_KEY_CPU_BASE + WEFT_CPU_KEY_PYTHON;
    case WEFT_CAT_CUDA_RUNTIME:
    case WEFT_CAT_CUDA_DRIVER:
      return WEFT_KEY_CPU_BASE + WEFT_CPU_KEY_RUNTIME;
    case WEFT_CAT_USER_ANNOTATION:
      return WEFT_KEY_CPU_BASE + WEFT_CPU_KEY_ANNOTATION;
    case WEFT_CAT_GPU_USER_ANNOTATION:
      return WEFT_KEY_CPU_BASE + WEFT_CPU_KEY_GPU_ANNOTATION;
    case WEFT_CAT_CUDA_SYNC:
      return WEFT_KEY_CPU_BASE + WEFT_CPU_KEY_SYNC;
    case WEFT_CAT_KERNEL:
    case WEFT_CAT_GPU_MEMCPY:
    case WEFT_CAT_GPU_MEMSET:
      return ev->kclass != WEFT_KCLASS_NONE ? MIN (ev->kclass, WEFT_KCLASS_N_CLASSES - 1) : WEFT_KCLASS_OTHER;
    default:
      return WEFT_KEY_CPU_BASE + WEFT_CPU_KEY_OTHER;
    }
}

WeftRgba
weft_render_event_color (const WeftRank *rank, const WeftEvent *ev, gboolean dark)
{
  return weft_render_key_color (weft_render_event_key (rank, ev), dark);
}

/* ---- time formatting ---------------------------------------------------------- */

gint64
weft_render_tick_step (const WeftView *view, double min_px)
{
  gint64 dur = view->span.end - view->span.begin;
  double ns_per_px, want;
  gint64 step = 1;

  if (dur <= 0 || view->width <= 0)
    return 1;
  ns_per_px = (double) dur / view->width;
  want = ns_per_px * MAX (min_px, 1.0);
  while (step < G_MAXINT64 / 10)
    {
      if ((double) step >= want)
        return step;
      if ((double) (step * 2) >= want)
        return step * 2;
      if ((double) (step * 5) >= want)
        return step * 5;
      step *= 10;
    }
  return step;
}

char *
weft_render_format_time (gint64 ns, gint64 step)
{
  const char *unit;
  double div;
  int decimals = 0;
  gint64 a = ABS (ns);
  gint64 ref = MAX (a, step);

  if (step <= 0)
    step = 1;
  if (ref < 1000)
    unit = "ns", div = 1;
  else if (ref < 1000000)
    unit = "us", div = 1e3;
  else if (ref < G_GINT64_CONSTANT (1000000000))
    unit = "ms", div = 1e6;
  else
    unit = "s", div = 1e9;
  /* enough decimals to tell ticks apart */
  while (decimals < 6 && (double) step / div * pow (10, decimals) < 0.999)
    decimals++;
  return g_strdup_printf ("%.*f %s", decimals, (double) ns / div, unit);
}

/* ---- view ------------------------------------------------------------------------ */

static void
fit_span (WeftView *view, WeftTimeSpan span)
{
  gint64 d = span.end - span.begin;
  gint64 margin = d / 100;

  if (d <= 0)
    {
      span.end = span.begin + 1000;
      d = 1000;
    }
  view->span.begin = span.begin - margin;
  view->span.end = span.end + margin;
}

void
weft_view_fit_span (WeftView *view, WeftTimeSpan span)
{
  fit_span (view, span);
}

void
weft_view_fit_all (WeftView *view, WeftTrace *trace)
{
  fit_span (view, trace != NULL ? weft_trace_time_span (trace) : (WeftTimeSpan) { 0, 0 });
}

void
weft_view_init (WeftView *view, WeftTrace *trace)
{
  WeftTimeSpan span = trace != NULL ? weft_trace_time_span (trace) : (WeftTimeSpan) { 0, 0 };

  memset (view, 0, sizeof *view);
  fit_span (view, span);
  view->origin = span.begin;
  view->width = 1200;
  view->height = 800;
  view->show_steps = TRUE;
  view->show_overlap_band = TRUE;
  view->show_critical_path = TRUE;
  view->show_flows = TRUE;
  view->show_instance_links = TRUE;
  view->show_memory = TRUE;
  view->sel_rank = WEFT_NONE;
  view->sel_event = WEFT_NONE;
  view->hover_rank = WEFT_NONE;
  view->hover_event = WEFT_NONE;
  view->highlight_instance = WEFT_NONE;
}

void
weft_view_zoom (WeftView *view, double factor, double x)
{
  gint64 t = weft_render_x_to_time (view, x);
  double d = (double) (view->span.end - view->span.begin) * factor;
  double frac = view->width > 0 ? CLAMP (x / view->width, 0.0, 1.0) : 0.5;

  d = CLAMP (d, 100.0, 1e12);
  view->span.begin = t - (gint64) (d * frac);
  view->span.end = view->span.begin + (gint64) d;
}

void
weft_view_pan (WeftView *view, double dx)
{
  gint64 dt = weft_render_x_to_time (view, dx) - view->span.begin;
  view->span.begin += dt;
  view->span.end += dt;
}

guint8
weft_view_get_rank_flags (const WeftView *view, guint rank_index)
{
  if (view->rank_flags == NULL || rank_index >= view->n_rank_flags)
    return 0;
  return view->rank_flags[rank_index];
}

void
weft_view_set_rank_flags (WeftView *view, guint rank_index, guint8 flags)
{
  if (rank_index >= view->n_rank_flags)
    {
      guint n = rank_index + 1;
      view->rank_flags = g_realloc (view->rank_flags, n);
      memset (view->rank_flags + view->n_rank_flags, 0, n - view->n_rank_flags);
      view->n_rank_flags = n;
    }
  view->rank_flags[rank_index] = flags;
}

void
weft_view_clear (WeftView *view)
{
  g_clear_pointer (&view->rank_flags, g_free);
  view->n_rank_flags = 0;
}
