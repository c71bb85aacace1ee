/* fuzz-folder.c: libFuzzer targets for what fuzz-load does not reach
 * (issue 12). One source, three targets chosen by FUZZ_MODE:
 *
 * - fuzz-folder (FUZZ_MODE 0): the input is cut at "@@\n" into up to four
 *   files written into a fresh folder, under names chosen by the first
 *   byte (rankN_trace.json[.gz|.zst], worker names, a config.json, a
 *   subfolder), and the folder is loaded: rank numbering, world sizes,
 *   mixed formats. A load gives ranks sorted, unique and below a known
 *   world size; a failure is one WEFT_ERROR.
 * - fuzz-save (1): what loads is saved in every format, reloaded, saved
 *   and reloaded again: the same events every time (count, phase, name;
 *   the second round trip exactly, times included).
 * - fuzz-render (2): what loads is laid out and painted onto a small
 *   image surface.
 *
 * Build and run: docs/loading.md ("Fuzzing"); figures: docs/benchmarks.md. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "core/reader.h"
#include "weft/weft-load.h"
#include "weft/weft-save.h"
#if FUZZ_MODE == 2
#include "weft/weft-render.h"
#include "weft/weft-solver.h"
#endif

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
int LLVMFuzzerInitialize (int *argc, char ***argv);

static char *root;

static void
quiet_log (const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer user_data)
{
}

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  const char *base = g_file_test ("/dev/shm", G_FILE_TEST_IS_DIR) ? "/dev/shm" : g_get_tmp_dir ();
  g_autofree char *tmpl = g_build_filename (base, "weft-fuzz-XXXXXX", NULL);

  g_log_set_default_handler (quiet_log, NULL);
  root = g_strdup (g_mkdtemp (tmpl));
  if (root == NULL)
    abort ();
  return 0;
}

#if FUZZ_MODE == 0
/* fuzz-folder only: the other modes unlink the one file they write */
static void
rm_rf (const char *path)
{
  GDir *d = g_dir_open (path, 0, NULL);
  const char *name;

  if (d == NULL)
    {
      g_unlink (path);
      return;
    }
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);
      rm_rf (child);
    }
  g_dir_close (d);
  g_rmdir (path);
}
#endif

static void
check_error (GError *error, const char *must_name)
{
  if (error == NULL || error->domain != WEFT_ERROR || error->message == NULL)
    abort ();
  if (must_name != NULL && strstr (error->message, must_name) == NULL && error->code != WEFT_ERROR_NO_TRACE)
    abort ();
}

#if FUZZ_MODE == 0
static const char *const names[] = {
  "rank0_trace.json", "rank1_trace.json", "rank1_trace.json.gz", "rank2_trace.json.zst",
  "worker3.pt.trace.json", "a_trace.json", "config.json", "sub/rank0_trace.json",
  "iteration_2/rank0_trace.json", "iteration_10/rank1_trace.json", "rank-7.x.pt.trace.json", "b.json.gz",
};

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *dir = NULL;
  const char *p, *end;
  guint n = 0, sel;
  g_autoptr (GError) error = NULL;
  WeftLoadOptions opt = { 0 };
  WeftTrace *trace;

  if (size < 1)
    return 0;
  sel = data[0];
  dir = g_build_filename (root, "f", NULL);
  rm_rf (dir);
  g_mkdir_with_parents (dir, 0700);
  p = (const char *) data + 1;
  end = (const char *) data + size;
  while (p <= end && n < 4)
    {
      const char *cut = p < end ? g_strstr_len (p, end - p, "@@\n") : NULL;
      const char *stop = cut ? cut : end;
      const char *nm = names[(sel + n * 5) % G_N_ELEMENTS (names)];
      g_autofree char *path = g_build_filename (dir, nm, NULL);
      g_autofree char *parent = g_path_get_dirname (path);
      g_mkdir_with_parents (parent, 0700);
      if (!g_file_test (path, G_FILE_TEST_EXISTS))
        g_file_set_contents (path, p, stop - p, NULL);
      n++;
      if (cut == NULL)
        break;
      p = cut + 3;
    }
  opt.n_threads = 1;
  opt.max_json_bytes = 1 << 20;
  trace = weft_trace_load (dir, &opt, NULL, &error);
  if (trace == NULL)
    check_error (error, dir);
  else
    {
      int world = -1;
      for (guint i = 0; i < trace->ranks->len; i++)
        {
          WeftRank *r = weft_trace_rank (trace, i);
          if (i > 0 && weft_trace_rank (trace, i - 1)->rank >= r->rank)
            abort (); /* sorted and unique */
          if (r->world_size > 0)
            {
              if ((world > 0 && world != r->world_size) || r->rank >= r->world_size)
                abort ();
              world = r->world_size;
            }
        }
      weft_trace_free (trace);
    }
  return 0;
}
#else
static WeftTrace *
load_input (const uint8_t *data, size_t size)
{
  g_autoptr (GError) error = NULL;
  WeftLoadOptions opt = { 0 };
  WeftRank *rank;
  WeftTrace *trace;

  opt.max_json_bytes = 1 << 20;
  rank = weft_rank_load_memory ("input.json", data, size, &opt, &error);
  if (rank == NULL)
    {
      check_error (error, "input.json");
      return NULL;
    }
  trace = weft_trace_new ();
  weft_trace_add_rank (trace, rank);
  weft_trace_index_across_ranks (trace);
  return trace;
}
#endif

#if FUZZ_MODE == 1
static WeftRank *
save_and_reload (WeftRank *rank, const char *ext)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *name = g_strconcat ("out", ext, NULL);
  g_autofree char *path = g_build_filename (root, name, NULL);
  WeftRank *back;

  if (!weft_rank_save (rank, path, NULL, &error))
    {
      check_error (error, NULL);
      return NULL;
    }
  back = weft_rank_load_file (path, NULL, NULL, &error);
  if (back == NULL)
    abort (); /* what we write must load */
  g_unlink (path);
  return back;
}

static void
compare (WeftRank *a, WeftRank *b, gboolean times)
{
  if (a->events->len != b->events->len)
    abort ();
  for (guint i = 0; i < a->events->len; i++)
    {
      const WeftEvent *x = weft_rank_event (a, i), *y = weft_rank_event (b, i);
      if (x->ph != y->ph || strcmp (weft_rank_string (a, x->name), weft_rank_string (b, y->name)) != 0)
        abort ();
      if (times && (x->ts != y->ts || weft_event_dur (a, x) != weft_event_dur (b, y)))
        abort ();
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static const char *const exts[] = { ".json", ".json.gz", ".json.zst" };
  WeftTrace *trace = load_input (data, size);

  if (trace == NULL)
    return 0;
  for (guint f = 0; f < G_N_ELEMENTS (exts); f++)
    {
      WeftRank *once = save_and_reload (weft_trace_rank (trace, 0), exts[f]);
      WeftRank *twice;
      if (once == NULL)
        continue;
      compare (weft_trace_rank (trace, 0), once, FALSE);
      twice = save_and_reload (once, exts[f]);
      if (twice == NULL)
        abort ();
      compare (once, twice, TRUE);
      weft_rank_free (once);
      weft_rank_free (twice);
    }
  weft_trace_free (trace);
  return 0;
}
#endif

#if FUZZ_MODE == 2
int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  WeftTrace *trace = load_input (data, size);
  cairo_surface_t *surface;
  cairo_t *cr;
  WeftView view;
  WeftLayout *layout;

  if (trace == NULL)
    return 0;
  surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 320, 160);
  cr = cairo_create (surface);
  weft_view_init (&view, trace);
  view.width = 320;
  view.height = 160;
  weft_view_fit_all (&view, trace);
  layout = weft_layout_new (trace, &view);
  weft_render_paint (cr, trace, &view, layout, NULL, NULL, NULL);
  weft_view_zoom (&view, 1.0 / 64, 100.0);
  weft_render_paint (cr, trace, &view, layout, NULL, NULL, NULL);
  weft_layout_free (layout);
  /* the solver's times through the layout's box caches: painted, one op
   * moved, painted again; the kept layout must paint what a fresh one
   * folding every row paints */
  {
    GError *error = NULL;
    WeftSolver *solver = weft_solver_new (trace, &error);
    if (solver == NULL)
      g_clear_error (&error);
    else
      {
        WeftRenderTimes times;
        cairo_surface_t *other = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 320, 160);
        layout = weft_layout_new (trace, &view);
        weft_render_times_init_solver (&times, trace, solver);
        weft_render_paint (cr, trace, &view, layout, &times, NULL, NULL);
        for (guint r = 0; r < trace->ranks->len; r++)
          for (guint32 e = 0; e < weft_trace_rank (trace, r)->events->len; e++)
            if (weft_solver_is_node (solver, r, e))
              {
                if (!weft_solver_set_min_start (solver, r, e, weft_solver_start (solver, r, e) + 1000, &error))
                  g_clear_error (&error);
                r = trace->ranks->len - 1;
                break;
              }
        weft_render_times_update (&times);
        {
          WeftRenderTimes rebuilt = times;
          WeftLayout *fresh = weft_layout_new (trace, &view);
          cairo_t *cr2 = cairo_create (other);
          rebuilt.lane_changed = NULL;
          /* the kept layout's folds shared with 3 threads, the fresh
           * one's one after the other (pool.c): the same pixels */
          weft_render_set_fold_threads (3);
          weft_render_paint (cr, trace, &view, layout, &times, NULL, NULL);
          weft_render_set_fold_threads (1);
          weft_render_paint (cr2, trace, &view, fresh, &rebuilt, NULL, NULL);
          weft_render_set_fold_threads (0);
          cairo_destroy (cr2);
          cairo_surface_flush (surface);
          cairo_surface_flush (other);
          if (memcmp (cairo_image_surface_get_data (surface), cairo_image_surface_get_data (other),
                      (size_t) cairo_image_surface_get_stride (surface) * 160) != 0)
            abort ();
          /* the direct fills (fill.c) against every fill through cairo:
           * the same pixels */
          weft_render_set_plain_fills (TRUE);
          cr2 = cairo_create (other);
          weft_render_paint (cr2, trace, &view, fresh, &rebuilt, NULL, NULL);
          cairo_destroy (cr2);
          weft_render_set_plain_fills (FALSE);
          cairo_surface_flush (other);
          if (memcmp (cairo_image_surface_get_data (surface), cairo_image_surface_get_data (other),
                      (size_t) cairo_image_surface_get_stride (surface) * 160) != 0)
            abort ();
          weft_layout_free (fresh);
        }
        cairo_surface_destroy (other);
        weft_layout_free (layout);
        weft_solver_free (solver);
      }
  }
  weft_view_clear (&view);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  weft_trace_free (trace);
  return 0;
}
#endif
