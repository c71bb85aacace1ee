/* bench-resident.c: what the resident memory of a loaded trace is made of.
 *
 *   bench-resident PATH [PATH...]     (files or folders, as weft-cli info)
 *
 * Loads the trace with weft_trace_load (as the window does), then builds the
 * solver (weft_solver_new), its lane arrays (weft_solver_lane_times) and the
 * painter's layout (weft_layout_new), and prints after each stage the
 * process's resident set (VmRSS, VmHWM from /proc/self/status) and the
 * malloc heap in use (mallinfo2), and for the loaded model the bytes each
 * structure holds (malloc_usable_size of its blocks: what it really
 * occupies, growth slack included): event records, the original event
 * text (the zstd blocks of the text store), interned strings, lane index arrays, flows,
 * collectives, top-level keys. Shares are of the uncompressed JSON size.
 * Then it reads every event's text back through one WeftTextCursor (what a
 * save does) and prints how fast the blocks decode.
 * Figures go into docs/benchmarks.md ("Memory: what a loaded trace holds"). */
#include "config.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "weft/weft-load.h"
#include "weft/weft-render.h"
#include "weft/weft-solver.h"
#include "weft/weft.h"

static double
status_mb (const char *key)
{
  g_autofree char *text = NULL;
  const char *p;
  if (!g_file_get_contents ("/proc/self/status", &text, NULL, NULL) || (p = strstr (text, key)) == NULL)
    return 0;
  return (double) g_ascii_strtoull (p + strlen (key) + 1, NULL, 10) / 1024.0;
}

static double
heap_mb (void)
{
  struct mallinfo2 mi = mallinfo2 ();
  return (double) (mi.uordblks + mi.hblkhd) / 1048576.0;
}

static gsize
usable (const void *p)
{
  return p != NULL ? malloc_usable_size ((void *) p) : 0;
}

static void
stage (const char *what, double json_mb)
{
  double rss = status_mb ("VmRSS:");
  printf ("%-28s RSS %8.1f MiB (%.2fx JSON)  peak %8.1f MiB (%.2fx)  heap %8.1f MiB\n", what, rss,
          rss * 1048576.0 / (json_mb * 1e6), status_mb ("VmHWM:"),
          status_mb ("VmHWM:") * 1048576.0 / (json_mb * 1e6), heap_mb ());
  fflush (stdout);
}

static void
row (const char *what, gsize bytes, guint64 n_events, double json_bytes)
{
  printf ("  %-34s %10.1f MiB  %6.3fx JSON  %6.1f B/event\n", what, (double) bytes / 1048576.0,
          (double) bytes / json_bytes, n_events ? (double) bytes / (double) n_events : 0.0);
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) paths = g_ptr_array_new ();
  WeftTrace *trace;
  guint64 n_events = 0, json = 0, n_wide = 0, coll_side = 0, n_coll_side = 0;
  gsize wide = 0;
  gsize ev_bytes = 0, ev_used = 0, text_stored = 0, text_raw = 0, text_blocks = 0, n_blocks = 0, lanes = 0, flows = 0, colls = 0, tops = 0, n_strings = 0, str_bytes = 0;
  guint n_gz = 0;
  double json_mb;
  gint64 t0;

  if (argc < 2)
    {
      fprintf (stderr, "usage: bench-resident PATH [PATH...]\n");
      return 2;
    }
  for (int i = 1; i < argc; i++)
    g_ptr_array_add (paths, argv[i]);
  g_ptr_array_add (paths, NULL);
  stage ("start", 1.0);
  t0 = g_get_monotonic_time ();
  trace = argc == 2 ? weft_trace_load (argv[1], NULL, NULL, &error)
                    : weft_trace_load_files ((const char *const *) paths->pdata, (guint) argc - 1, NULL, NULL, &error);
  if (trace == NULL)
    {
      fprintf (stderr, "bench-resident: %s\n", error->message);
      return 1;
    }
  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftRank *rk = weft_trace_rank (trace, r);
      json += rk->json_bytes;
      n_events += rk->events->len;
      ev_bytes += usable (rk->events->data);
      ev_used += rk->events->len * sizeof (WeftEvent);
      wide += usable (rk->wide_ids->data);
      n_wide += rk->wide_ids->len;
      {
        WeftTextStats ts;
        weft_rank_text_stats (rk, &ts);
        text_stored += ts.stored_bytes;
        text_raw += ts.text_bytes;
        text_blocks += ts.block_bytes;
        n_blocks += ts.n_blocks;
        n_gz += ts.gzip_backed ? 1 : 0;
      }
      for (guint l = 0; l < rk->lanes->len; l++)
        lanes += usable (weft_rank_lane (rk, l)->events->data) + sizeof (WeftLane);
      flows += usable (rk->flows->data);
      colls += usable (rk->collectives->data);
      /* the events' collectives, out of the record: the bitmap and the sorted pairs */
      coll_side += usable (rk->coll_marks->data) + usable (rk->event_colls->data);
      n_coll_side += rk->event_colls->len;
      for (guint c = 0; c < rk->collectives->len; c++)
        colls += usable (g_array_index (rk->collectives, WeftCollective, c).pg_ranks);
      for (guint k = 0; k < rk->top_keys->len; k++)
        {
          const WeftTopKey *tk = &g_array_index (rk->top_keys, WeftTopKey, k);
          tops += usable (tk->raw) + usable (tk->packed);
        }
      n_strings += weft_strings_count (rk->strings);
      for (guint32 s = 0; s < weft_strings_count (rk->strings); s++)
        str_bytes += strlen (weft_strings_get (rk->strings, s)) + 1 + 16; /* text + entry */
    }
  json_mb = (double) json / 1e6;
  printf ("%u ranks, %" G_GUINT64_FORMAT " events, %.1f MB of JSON, loaded in %.2f s\n", trace->ranks->len, n_events,
          json_mb, (double) (g_get_monotonic_time () - t0) / 1e6);
  stage ("loaded", json_mb);
  row ("event records (WeftEvent, allocated)", ev_bytes, n_events, (double) json);
  row ("event records (WeftEvent, used)", ev_used, n_events, (double) json);
  printf ("  (WeftEvent: %" G_GSIZE_FORMAT " bytes)\n", sizeof (WeftEvent));
  row ("ids, durs past 32 bits (wide_ids)", wide, n_events, (double) json);
  printf ("  (%" G_GUINT64_FORMAT " wide ids and durations)\n", n_wide);
  row ("events' collectives (side table)", coll_side, n_events, (double) json);
  printf ("  (%" G_GUINT64_FORMAT " events with a collective)\n", n_coll_side);
  row ("original text (as read)", text_raw, n_events, (double) json);
  row (n_gz == 0 ? "original text (held: zstd blocks)"
                  : n_gz == trace->ranks->len ? "original text (held: the .json.gz)"
                                              : "original text (held: zstd, .json.gz)",
       text_stored, n_events, (double) json);
  printf ("  (%" G_GSIZE_FORMAT " blocks of %.1f KiB on average, packed %.2fx of the texts)\n", n_blocks,
          n_blocks ? (double) text_blocks / (double) n_blocks / 1024.0 : 0.0,
          text_stored ? (double) text_raw / (double) text_stored : 0.0);
  row ("interned strings (text + entry)", str_bytes, n_events, (double) json);
  row ("lane index arrays", lanes, n_events, (double) json);
  row ("flows", flows, n_events, (double) json);
  row ("collectives", colls, n_events, (double) json);
  row ("top-level keys", tops, n_events, (double) json);
  printf ("  (%" G_GSIZE_FORMAT " interned strings)\n", n_strings);
  {
    /* every text read back in order, as save does */
    gint64 t1 = g_get_monotonic_time ();
    guint64 sum = 0, bytes = 0;
    double cpu0 = (double) clock () / CLOCKS_PER_SEC, s;
    for (guint r = 0; r < trace->ranks->len; r++)
      {
        WeftRank *rk = weft_trace_rank (trace, r);
        g_autoptr (WeftTextCursor) cur = weft_text_cursor_new (rk);
        for (guint i = 0; i < rk->events->len; i++)
          {
            gsize len = 0;
            const char *t = weft_text_cursor_get (cur, weft_rank_event (rk, i), &len);
            if (t != NULL)
              {
                sum += (guchar) t[len / 2];
                bytes += len;
              }
          }
      }
    s = (double) clock () / CLOCKS_PER_SEC - cpu0;
    printf ("  read back every text: %.1f MB in %.3f s wall, %.3f s CPU (%.0f MB/CPU-s; check %" G_GUINT64_FORMAT ")\n",
            (double) bytes / 1e6, (double) (g_get_monotonic_time () - t1) / 1e6, s,
            s > 0 ? (double) bytes / 1e6 / s : 0.0, sum);
  }
  {
    /* the memory rows' timeline: every [memory] event's args, read from its text */
    gint64 tm = g_get_monotonic_time ();
    WeftMemoryTimeline *tl = weft_memory_timeline_new (trace);
    printf ("  memory timeline (every [memory] event's text parsed): %.3f s wall%s\n",
            (double) (g_get_monotonic_time () - tm) / 1e6, weft_memory_timeline_is_empty (tl) ? " (none)" : "");
    weft_memory_timeline_free (tl);
  }
  {
    g_autoptr (WeftSolver) solver = weft_solver_new (trace, &error);
    WeftView view;
    WeftLayout *layout;
    if (solver == NULL)
      printf ("solver: %s\n", error->message);
    else
      {
        stage ("+ solver", json_mb);
        weft_solver_lane_times (solver, 0, 0, NULL, NULL);
        stage ("+ solver lane arrays", json_mb);
      }
    weft_view_init (&view, trace);
    view.width = 1700;
    view.height = 1000;
    layout = weft_layout_new (trace, &view);
    stage ("+ layout", json_mb);
    weft_layout_free (layout);
    weft_view_clear (&view);
  }
  weft_trace_free (trace);
  return 0;
}
