/* cmd-render.c: `weft-cli render PATH --out FILE.{png,svg,pdf} [--range A:B]
 * [--ranks LIST] [--width W] [--height H|auto] [--cpu] [--dark]`: a picture
 * of the timeline, painted by weft-render exactly as the window paints it
 * (ruler, lane headers, lanes, overlap band, steps, legend). See
 * docs/rendering.md. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "commands.h"
#include "weft/weft-load.h"
#include "weft/weft-render.h"
#include "weft/weft-solver.h"

/* One side of --range: "12.5ms", "300us", "1500ns", "2s" (time after the
 * trace's start), "0.25" (fraction of the trace), "25%". Empty: default. */
static gboolean
parse_range_side (const char *text, gint64 trace_begin, gint64 trace_dur, gint64 def, gint64 *out)
{
  char *end = NULL;
  double v;
  double unit;

  while (g_ascii_isspace (*text))
    text++;
  if (*text == '\0')
    {
      *out = def;
      return TRUE;
    }
  errno = 0;
  v = g_ascii_strtod (text, &end);
  if (errno != 0 || end == text || !isfinite (v))
    return FALSE;
  if (*end == '\0')
    {
      if (v < 0 || v > 1)
        return FALSE;
      *out = trace_begin + (gint64) llround (v * (double) trace_dur);
      return TRUE;
    }
  if (strcmp (end, "%") == 0)
    {
      if (v < 0 || v > 100)
        return FALSE;
      *out = trace_begin + (gint64) llround (v / 100.0 * (double) trace_dur);
      return TRUE;
    }
  if (strcmp (end, "ns") == 0)
    unit = 1;
  else if (strcmp (end, "us") == 0)
    unit = 1e3;
  else if (strcmp (end, "ms") == 0)
    unit = 1e6;
  else if (strcmp (end, "s") == 0)
    unit = 1e9;
  else
    return FALSE;
  if (fabs (v * unit) > 1e15)
    return FALSE;
  *out = trace_begin + (gint64) llround (v * unit);
  return TRUE;
}

/* "0-3,5" -> rank numbers. */
static gboolean
parse_ranks (const char *text, GArray *out)
{
  g_auto (GStrv) parts = g_strsplit (text, ",", -1);

  for (guint i = 0; parts[i] != NULL; i++)
    {
      char *p = g_strstrip (parts[i]);
      char *end = NULL;
      gint64 a, b;
      if (*p == '\0')
        return FALSE;
      errno = 0;
      a = g_ascii_strtoll (p, &end, 10);
      if (errno != 0 || end == p || a < 0 || a > 1000000)
        return FALSE;
      b = a;
      if (*end == '-')
        {
          char *q = end + 1;
          b = g_ascii_strtoll (q, &end, 10);
          if (end == q || b < a || b > 1000000 || b - a > 100000)
            return FALSE;
        }
      if (*end != '\0')
        return FALSE;
      for (gint64 r = a; r <= b; r++)
        {
          int v = (int) r;
          g_array_append_val (out, v);
        }
    }
  return out->len > 0;
}

/* Paints into path (with --critical-path the solver's path over the
 * observed times); the exit status. */
static int
paint (WeftTrace *trace, WeftRenderFileOptions *o, gboolean critical, const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) refs = g_array_new (FALSE, FALSE, sizeof (WeftEventRef));
  g_autoptr (WeftSolver) solver = NULL;
  WeftRenderOverlay overlay = { NULL, 0, NULL, 0 };
  WeftRenderTimes times;
  gboolean ok;

  if (critical)
    {
      /* the solver replays the trace as loaded: its path over observed
       * times, the lanes drawn from its times as the window draws them */
      g_autoptr (GArray) segments = NULL;
      solver = weft_solver_new (trace, &error);
      if (solver == NULL)
        return weft_cli_fail ("render: --critical-path: %s", error->message);
      weft_render_times_init_solver (&times, trace, solver);
      o->times = &times;
      segments = weft_solver_critical_path (solver, WEFT_SOLVER_ALL_STEPS);
      for (guint i = 0; segments != NULL && i < segments->len; i++)
        {
          const WeftPathSegment *seg = &g_array_index (segments, WeftPathSegment, i);
          WeftEventRef ref = { seg->rank_index, seg->event };
          const WeftEventRef *last = refs->len > 0 ? &g_array_index (refs, WeftEventRef, refs->len - 1) : NULL;
          if (last != NULL && last->rank_index == ref.rank_index && last->event == ref.event)
            continue;
          g_array_append_val (refs, ref);
        }
      overlay.critical_path = (const WeftEventRef *) (void *) refs->data;
      overlay.n_critical_path = refs->len;
      o->overlay = &overlay;
    }
  ok = weft_render_to_file (trace, o, path, &error);
  o->overlay = NULL;
  o->times = NULL;
  if (!ok)
    {
      fprintf (stderr, "weft-cli: %s\n", error->message);
      return g_error_matches (error, WEFT_ERROR, WEFT_ERROR_IO) ? WEFT_EXIT_FAILURE : WEFT_EXIT_BAD_INPUT;
    }
  return WEFT_EXIT_OK;
}

int
weft_cmd_render (int argc, char **argv)
{
  g_autofree char *out = NULL;
  g_autofree char *range = NULL;
  g_autofree char *ranks = NULL;
  g_autofree char *height = NULL;
  g_autofree char *format = NULL;
  g_autofree char *tmp_path = NULL;
  const char *target;
  int rc;
  int width = 1600;
  gboolean cpu = FALSE, dark = FALSE, critical = FALSE;
  GOptionEntry entries[] = {
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out, "Picture to write (.png, .svg or .pdf), or - for standard output",
      "FILE" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format, "With --out -: png (default), svg or pdf", "FORMAT" },
    { "range", 'r', 0, G_OPTION_ARG_STRING, &range,
      "Time range A:B after the trace start, with units (ns, us, ms, s), or fractions (0.25:0.5) or percent "
      "(25%:50%); a side may be empty",
      "A:B" },
    { "ranks", 0, 0, G_OPTION_ARG_STRING, &ranks, "Ranks to show, e.g. 0-3,5 (default: all)", "LIST" },
    { "width", 'w', 0, G_OPTION_ARG_INT, &width, "Width in px (default 1600)", "W" },
    { "height", 0, 0, G_OPTION_ARG_STRING, &height, "Height in px, or auto (default: as tall as the lanes)", "H" },
    { "cpu", 0, 0, G_OPTION_ARG_NONE, &cpu, "Show every CPU thread as a lane (default: one summary row per rank)",
      NULL },
    { "dark", 0, 0, G_OPTION_ARG_NONE, &dark, "Dark palette", NULL },
    { "critical-path", 0, 0, G_OPTION_ARG_NONE, &critical,
      "Draw the critical path of the whole trace (from the dependency solver) over the lanes", NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("PATH - paint the timeline to a PNG, SVG or PDF file");
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftTrace) trace = NULL;
  g_autoptr (GArray) rank_list = g_array_new (FALSE, FALSE, sizeof (int));
  WeftRenderFileOptions o = { { 0, 0 }, NULL, 0, 0, 0, FALSE, FALSE, NULL, NULL };

  g_option_context_add_main_entries (ctx, entries, NULL);
  weft_cli_add_progress_option (ctx);
  g_option_context_set_description (ctx, "Exit status: 0 success, 1 the picture could not be written, "
                                         "2 bad input (unreadable trace) or bad usage.\n");
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return weft_cli_fail ("render: %s", error->message);
  if (argc != 2)
    return weft_cli_fail ("render: expected one trace PATH (file or folder), got %d", argc - 1);
  if (out == NULL)
    return weft_cli_fail ("render: --out FILE.png|svg|pdf is required");
  if (width < 200 || width > 32000)
    return weft_cli_fail ("render: --width %d: expected 200..32000", width);
  o.width = width;
  if (height != NULL && strcmp (height, "auto") != 0)
    {
      char *end = NULL;
      gint64 h = g_ascii_strtoll (height, &end, 10);
      if (end == height || *end != '\0' || h < 100 || h > 32000)
        return weft_cli_fail ("render: --height %s: expected 100..32000 or auto", height);
      o.height = (int) h;
    }
  if (ranks != NULL && !parse_ranks (ranks, rank_list))
    return weft_cli_fail ("render: --ranks %s: expected a list like 0-3,5", ranks);
  if (strcmp (out, "-") == 0)
    {
      /* painted into a temporary file of that type, then copied out */
      if (format == NULL)
        format = g_strdup ("png");
      if (strcmp (format, "png") != 0 && strcmp (format, "svg") != 0 && strcmp (format, "pdf") != 0)
        return weft_cli_fail ("render: --format %s: expected png, svg or pdf", format);
      if (strcmp (format, "svg") != 0 && isatty (STDOUT_FILENO))
        return weft_cli_fail ("render: standard output is a terminal: not writing a %s picture there (redirect it, "
                              "or --format svg)", format);
    }
  else
    {
      g_autofree char *lower = g_ascii_strdown (out, -1);
      if (format != NULL)
        return weft_cli_fail ("render: --format is for --out -; %s names its type", out);
      if (!g_str_has_suffix (lower, ".png") && !g_str_has_suffix (lower, ".svg") && !g_str_has_suffix (lower, ".pdf"))
        return weft_cli_fail ("render: --out %s: the name must end in .png, .svg or .pdf", out);
    }
  if (strcmp (argv[1], "-") != 0 && !g_file_test (argv[1], G_FILE_TEST_EXISTS))
    return weft_cli_fail ("render: %s: no such file or folder", argv[1]);
  trace = weft_cli_load_trace (argv[1], 0, &error);
  if (trace == NULL)
    return weft_cli_fail ("%s", error->message);

  if (range != NULL)
    {
      WeftTimeSpan all = weft_trace_time_span (trace);
      const char *colon = strchr (range, ':');
      g_autofree char *a = NULL;
      if (colon == NULL)
        return weft_cli_fail ("render: --range %s: expected A:B", range);
      a = g_strndup (range, (gsize) (colon - range));
      if (!parse_range_side (a, all.begin, all.end - all.begin, all.begin, &o.span.begin) ||
          !parse_range_side (colon + 1, all.begin, all.end - all.begin, all.end, &o.span.end))
        return weft_cli_fail ("render: --range %s: expected A:B with units (ns, us, ms, s), fractions or percent",
                              range);
      if (o.span.end <= o.span.begin)
        return weft_cli_fail ("render: --range %s: empty range", range);
    }
  if (rank_list->len > 0)
    {
      o.ranks = (const int *) (void *) rank_list->data;
      o.n_ranks = rank_list->len;
    }
  o.cpu_expanded = cpu;
  o.dark = dark;
  if (strcmp (out, "-") == 0)
    {
      g_autofree char *templ = g_strdup_printf ("weft-render-XXXXXX.%s", format);
      int fd = g_file_open_tmp (templ, &tmp_path, &error);
      if (fd < 0)
        {
          fprintf (stderr, "weft-cli: render: %s\n", error->message);
          return WEFT_EXIT_FAILURE;
        }
      close (fd);
    }
  target = tmp_path != NULL ? tmp_path : out;
  rc = paint (trace, &o, critical, target);
  if (tmp_path != NULL)
    {
      if (rc == WEFT_EXIT_OK && !weft_cli_copy_to_stdout (tmp_path, &error))
        {
          fprintf (stderr, "weft-cli: render: %s\n", error->message);
          rc = WEFT_EXIT_FAILURE;
        }
      g_unlink (tmp_path);
    }
  return rc;
}
