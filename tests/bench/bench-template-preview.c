/* bench-template-preview: what one live preview of New from Template costs
 * (src/app/weft-template-dialog.c, compose_thread): compose the step into an
 * in-memory trace with the real loader, build the edit session (dependency
 * graph + first solve), the whole-step metrics and the preview's render
 * layout (rank 0 expanded, the others collapsed), plus one paint of it into
 * a 1000 px wide image surface. Median of N runs per configuration.
 *
 *   bench-template-preview [N]      (default 5) */
#include <cairo.h>
#include <stdlib.h>

#include "weft/weft-compose.h"
#include "weft/weft-edit.h"
#include "weft/weft-render.h"
#include "weft/weft-solver.h"

typedef struct
{
  const char *label;
  const char *strategies;
  const char *preset;
  int         dp, tp, ep, cp, layers;
} Config;

static int
cmp_i64 (const void *a, const void *b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return x < y ? -1 : x > y;
}

int
main (int argc, char **argv)
{
  static const Config configs[] = {
    { "FSDP 8, llama3-8b, 4 layers (the default)", "fsdp", "llama3-8b", 8, 1, 1, 1, 4 },
    { "FSDP 4 x TP 2, llama3-8b, 4 layers", "fsdp,tp", "llama3-8b", 4, 2, 1, 1, 4 },
    { "FSDP+EP 8, moe-small, 4 layers", "fsdp,ep", "moe-small", 8, 1, 8, 1, 4 },
    { "FSDP 8, llama3-8b, 32 layers", "fsdp", "llama3-8b", 8, 1, 1, 1, 32 },
    { "FSDP 8 x TP 8, llama3-70b, 8 layers (64 ranks)", "fsdp,tp", "llama3-70b", 8, 8, 1, 1, 8 },
    { "FSDP 8 x TP 8, llama3-70b, 80 layers (64 ranks)", "fsdp,tp", "llama3-70b", 8, 8, 1, 1, 80 },
  };
  int n = argc > 1 ? atoi (argv[1]) : 5;

  if (n < 1)
    n = 1;
  g_print ("%-50s %8s %8s %8s %8s %8s  (median of %d, ms)\n", "configuration", "compose", "session", "layout",
           "paint", "total", n);
  for (guint c = 0; c < G_N_ELEMENTS (configs); c++)
    {
      const Config *cf = &configs[c];
      g_autofree gint64 *t_compose = g_new0 (gint64, n);
      g_autofree gint64 *t_session = g_new0 (gint64, n);
      g_autofree gint64 *t_layout = g_new0 (gint64, n);
      g_autofree gint64 *t_paint = g_new0 (gint64, n);
      g_autofree gint64 *t_total = g_new0 (gint64, n);
      WeftComposeParams p;
      g_autoptr (GError) error = NULL;

      weft_compose_params_init (&p);
      if (!weft_compose_params_set_preset (&p, cf->preset, &error) ||
          !weft_compose_parse_strategies (cf->strategies, &p.strategies, &error))
        g_error ("%s", error->message);
      p.dp = cf->dp;
      p.tp = cf->tp;
      p.ep = cf->ep;
      p.cp = cf->cp;
      p.model.layers = cf->layers;
      if (!weft_compose_params_validate (&p, &error))
        g_error ("%s: %s", cf->label, error->message);
      for (int r = 0; r < n; r++)
        {
          gint64 t0 = g_get_monotonic_time (), t1, t2, t3, t4;
          WeftTrace *trace = weft_compose_trace (&p, &error);
          WeftEditSession *session;
          WeftMetrics m;
          WeftView view;
          WeftLayout *layout;
          cairo_surface_t *surface;
          cairo_t *cr;

          if (trace == NULL)
            g_error ("%s: %s", cf->label, error->message);
          t1 = g_get_monotonic_time ();
          session = weft_edit_session_new (trace, NULL, &error);
          if (session == NULL)
            g_error ("%s: %s", cf->label, error->message);
          if (!weft_solver_metrics (weft_edit_session_get_solver (session), WEFT_SOLVER_ALL_RANKS,
                                    WEFT_SOLVER_ALL_STEPS, &m))
            g_error ("%s: no metrics", cf->label);
          t2 = g_get_monotonic_time ();
          weft_view_init (&view, trace);
          for (guint i = 1; i < trace->ranks->len; i++)
            weft_view_set_rank_flags (&view, i, WEFT_RANK_VIEW_COLLAPSED);
          layout = weft_layout_new (trace, &view);
          t3 = g_get_monotonic_time ();
          view.width = 1000;
          view.height = MIN (weft_layout_get_height (layout), 2000);
          weft_view_fit_all (&view, trace);
          surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1000, (int) view.height + 1);
          cr = cairo_create (surface);
          weft_render_paint (cr, trace, &view, layout, NULL, NULL, NULL);
          cairo_destroy (cr);
          cairo_surface_destroy (surface);
          t4 = g_get_monotonic_time ();
          t_compose[r] = t1 - t0;
          t_session[r] = t2 - t1;
          t_layout[r] = t3 - t2;
          t_paint[r] = t4 - t3;
          t_total[r] = t4 - t0;
          if (r == 0 && c == 0)
            g_print ("  (step %.1f ms, overlap %.1f %%, exposed %.2f ms)\n", m.step_time / 1e6, m.overlap_pct,
                     m.exposed_comm / 1e6);
          weft_layout_free (layout);
          weft_view_clear (&view);
          weft_edit_session_free (session);
        }
      qsort (t_compose, n, sizeof (gint64), cmp_i64);
      qsort (t_session, n, sizeof (gint64), cmp_i64);
      qsort (t_layout, n, sizeof (gint64), cmp_i64);
      qsort (t_paint, n, sizeof (gint64), cmp_i64);
      qsort (t_total, n, sizeof (gint64), cmp_i64);
      g_print ("%-50s %8.1f %8.1f %8.1f %8.1f %8.1f\n", cf->label, t_compose[n / 2] / 1e3, t_session[n / 2] / 1e3,
               t_layout[n / 2] / 1e3, t_paint[n / 2] / 1e3, t_total[n / 2] / 1e3);
    }
  return 0;
}
