/* test-lane-order.c: every lane's event list after a load (issue 18,
 * item 2: the lane sort is a merge sort of packed keys now) is exactly
 * the lane's X and i events, in (ts ascending, dur descending, index
 * ascending) order, as GLib's g_qsort_with_data gives over the records.
 * On the shared traces, and on generated one-lane traces of sizes around
 * the sort's block and merge boundaries whose times and durations are
 * drawn from a few values (ties everywhere), shuffled, reversed, in order,
 * nearly in order, and made of a few or of many runs in order (the sort
 * merges those as they are). */
#include "config.h"

#include <string.h>

#include "testutil.h"

static int
ref_cmp (gconstpointer a, gconstpointer b, gpointer data)
{
  WeftRank *rank = data;
  guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;
  const WeftEvent *ex = weft_rank_event (rank, x), *ey = weft_rank_event (rank, y);
  if (ex->ts != ey->ts)
    return ex->ts < ey->ts ? -1 : 1;
  if (weft_event_dur (rank, ex) != weft_event_dur (rank, ey))
    return weft_event_dur (rank, ex) > weft_event_dur (rank, ey) ? -1 : 1;
  return x < y ? -1 : x > y;
}

static guint
check_rank (WeftRank *rank)
{
  guint checked = 0;

  for (guint l = 0; l < rank->lanes->len; l++)
    {
      WeftLane *lane = weft_rank_lane (rank, l);
      g_autoptr (GArray) want = g_array_new (FALSE, FALSE, sizeof (guint32));
      for (guint32 i = 0; i < rank->events->len; i++)
        {
          const WeftEvent *ev = weft_rank_event (rank, i);
          if (ev->lane == l && !(ev->flags & WEFT_EVENT_DELETED) && (ev->ph == WEFT_PH_X || ev->ph == WEFT_PH_I))
            g_array_append_val (want, i);
        }
      g_qsort_with_data (want->data, (gint) want->len, sizeof (guint32), ref_cmp, rank);
      g_assert_cmpuint (lane->events->len, ==, want->len);
      g_assert_cmpmem (lane->events->data, lane->events->len * sizeof (guint32), want->data,
                       want->len * sizeof (guint32));
      checked += want->len;
    }
  return checked;
}

static void
test_shared_traces (void)
{
  static const char *const files[] = {
    "HolisticTraceAnalysis/df_index_resolver/df_index_resolver.json.gz",
    "HolisticTraceAnalysis/trace_diff/control/control.json.gz",
    "HolisticTraceAnalysis/negative_queue_length_values_check/rank0.json.gz",
  };
  guint n_files = 0;

  for (guint f = 0; f < G_N_ELEMENTS (files); f++)
    {
      g_autofree char *path = weft_test_trace_path (files[f]);
      g_autoptr (GError) error = NULL;
      g_autoptr (WeftTrace) trace = NULL;
      guint n = 0;
      if (path == NULL || !g_file_test (path, G_FILE_TEST_EXISTS))
        continue;
      trace = weft_trace_load (path, NULL, NULL, &error);
      g_assert_no_error (error);
      for (guint r = 0; r < trace->ranks->len; r++)
        n += check_rank (weft_trace_rank (trace, r));
      g_test_message ("%s: %u lane events in order", files[f], n);
      g_assert_cmpuint (n, >, 1000);
      n_files++;
    }
  if (n_files == 0)
    g_test_skip ("shared traces not found");
}

static void
test_generated (void)
{
  static const guint sizes[] = { 1, 2, 31, 32, 33, 63, 64, 65, 96, 127, 128, 129, 1000, 4095, 4097, 20000 };
  GRand *r = g_rand_new_with_seed (18004);

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (int order = 0; order < 6; order++)
      {
        guint n = sizes[s];
        GString *json = g_string_new ("{\"traceEvents\": [\n");
        g_autoptr (GError) error = NULL;
        g_autoptr (WeftTrace) trace = NULL;
        for (guint i = 0; i < n; i++)
          {
            guint ts;
            switch (order)
              {
              case 0: ts = (guint) g_rand_int_range (r, 0, 50); break;          /* shuffled, many ties */
              case 1: ts = n - i; break;                                         /* reversed */
              case 2: ts = i / 3; break;                                         /* in order, ties */
              case 3: ts = i + (g_rand_int_range (r, 0, 20) == 0 ? 40 : 0); break; /* nearly in order */
              case 4: ts = (i % MAX (n / 3, 1)) / 2; break;                     /* three runs, ties */
              default: ts = (i % 64) * 2 + (i / 64) % 3; break;                  /* runs of 64 */
              }
            g_string_append_printf (json, "%s{\"ph\":\"X\",\"name\":\"k\",\"pid\":1,\"tid\":1,\"ts\":%u,\"dur\":%d}",
                                    i ? ",\n" : "", ts, g_rand_int_range (r, 0, 4));
          }
        g_string_append (json, "\n]}\n");
        trace = weft_trace_load_memory ("gen.json", json->str, json->len, NULL, &error);
        g_assert_no_error (error);
        g_assert_cmpuint (check_rank (weft_trace_rank (trace, 0)), ==, n);
        g_string_free (json, TRUE);
      }
  g_rand_free (r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/lane-order/shared-traces", test_shared_traces);
  g_test_add_func ("/lane-order/generated", test_generated);
  return g_test_run ();
}
