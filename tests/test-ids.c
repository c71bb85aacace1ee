/* test-ids.c: event ids (correlation, External id, flow id) and durations
 * kept exactly.
 *
 * The records hold the ids and the durations in 32 bits and the rest in the
 * rank's pool of wide values (weft-model.h, WEFT_ID_INLINE_MAX,
 * WEFT_DUR_INLINE_MAX); a flow event's id shares its slot with the launch
 * link of the other phases. Property: whatever gint64 a file carries, the
 * accessors give what its text says, through load, edits (re-serialised
 * records, created copies, new values set), save and reopening. */
#include "config.h"

#include <string.h>

#include "testutil.h"
#include "weft/weft.h"

/* every kind of value: inline, the boundaries, wide, negative, extremes */
static const gint64 values[] = {
  0, 1, 7, G_MAXINT32 - 1, G_MAXINT32, (gint64) G_MAXINT32 + 1, 3000000000, ((gint64) 1 << 40) + 7,
  G_MAXINT64, G_MAXINT64 - 1, G_MININT64, G_MININT64 + 1, -2, -3, G_MININT32, (gint64) G_MININT32 - 1,
};

static WeftRank *
load (const char *path)
{
  g_autoptr (GError) error = NULL;
  WeftRank *rank = weft_rank_load_file (path, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (rank);
  return rank;
}

/* A launch, its kernel and their ac2g flow per value (the External id is
 * the value of the next slot, so that the two differ), one kernel without
 * ids, one flow with a string id. */
static char *
write_trace (void)
{
  GString *s = g_string_new ("{\"schemaVersion\": 1, \"baseTimeNanoseconds\": 1700000000000000000,\n\"traceEvents\": [\n");
  const guint n = G_N_ELEMENTS (values);

  for (guint k = 0; k < n; k++)
    {
      gint64 corr = values[k], ext = values[(k + 1) % n];
      double ts = 10.0 + 20.0 * k;
      g_string_append_printf (s,
                              "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 100, "
                              "\"tid\": 100, \"ts\": %.3f, \"dur\": 2.000, \"args\": {\"cbid\": 211, \"correlation\": %"
                              G_GINT64_FORMAT ", \"External id\": %" G_GINT64_FORMAT "}},\n",
                              ts, corr, ext);
      g_string_append_printf (s,
                              "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k%u\", \"pid\": 0, \"tid\": 7, "
                              "\"ts\": %.3f, \"dur\": 5.000, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": %"
                              G_GINT64_FORMAT ", \"External id\": %" G_GINT64_FORMAT "}},\n",
                              k, ts + 4, corr, ext);
      g_string_append_printf (s,
                              "{\"ph\": \"s\", \"id\": %" G_GINT64_FORMAT ", \"pid\": 100, \"tid\": 100, \"ts\": %.3f, "
                              "\"cat\": \"ac2g\", \"name\": \"ac2g\"},\n"
                              "{\"ph\": \"f\", \"id\": %" G_GINT64_FORMAT ", \"pid\": 0, \"tid\": 7, \"ts\": %.3f, "
                              "\"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"},\n",
                              corr, ts, corr, ts + 4);
    }
  g_string_append (s, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"bare\", \"pid\": 0, \"tid\": 7, \"ts\": 900.000, "
                      "\"dur\": 1.000, \"args\": {\"device\": 0, \"stream\": 7}},\n"
                      "{\"ph\": \"s\", \"id\": \"0x7fffffffffffffff\", \"pid\": 100, \"tid\": 100, \"ts\": 901.000, "
                      "\"cat\": \"ac2g\", \"name\": \"ac2g\"}\n]}\n");
  return weft_test_write_file ("ids.json", s->str, (gssize) s->len);
}

static gint64
arg_or_none (json_object *obj, const char *key)
{
  json_object *v;
  if (obj == NULL || !json_object_object_get_ex (obj, key, &v) || !json_object_is_type (v, json_type_int))
    return -1;
  return json_object_get_int64 (v);
}

/* The records' ids are what each event's own text says. */
static void
assert_ids_match_texts (WeftRank *rank)
{
  for (guint i = 0; i < rank->events->len; i++)
    {
      const WeftEvent *ev = weft_rank_event (rank, i);
      json_object *obj = weft_event_parse (rank, ev), *args = NULL, *id;
      gint64 flow = -1;
      g_assert_nonnull (obj);
      json_object_object_get_ex (obj, "args", &args);
      g_assert_cmpint (weft_event_correlation (rank, ev), ==, arg_or_none (args, "correlation"));
      g_assert_cmpint (weft_event_external_id (rank, ev), ==, arg_or_none (args, "External id"));
      if (json_object_object_get_ex (obj, "id", &id))
        flow = json_object_is_type (id, json_type_int) ? json_object_get_int64 (id)
                                                       : (gint64) g_ascii_strtoull (json_object_get_string (id) + 2, NULL, 16);
      g_assert_cmpint (weft_event_flow_id (rank, ev), ==, flow);
      json_object_put (obj);
    }
}

static void
assert_same_ids (WeftRank *a, WeftRank *b)
{
  g_assert_cmpuint (a->events->len, ==, b->events->len);
  for (guint i = 0; i < a->events->len; i++)
    {
      const WeftEvent *ea = weft_rank_event (a, i), *eb = weft_rank_event (b, i);
      g_assert_cmpstr (weft_rank_string (a, ea->name), ==, weft_rank_string (b, eb->name));
      g_assert_cmpint (ea->ph, ==, eb->ph); /* ts: flow ends follow moved kernels */
      g_assert_cmpint (weft_event_correlation (a, ea), ==, weft_event_correlation (b, eb));
      g_assert_cmpint (weft_event_external_id (a, ea), ==, weft_event_external_id (b, eb));
      g_assert_cmpint (weft_event_flow_id (a, ea), ==, weft_event_flow_id (b, eb));
    }
}

static void
test_accessors (void)
{
  g_autoptr (WeftRank) rank = weft_rank_new ("accessors");
  WeftEvent ev = { 0 };
  const WeftEvent *copy;

  g_assert_cmpuint (sizeof (WeftEvent), ==, 40);
  ev.ph = WEFT_PH_F; /* a flow id only on a flow event */
  for (guint k = 0; k < G_N_ELEMENTS (values); k++)
    {
      weft_event_set_correlation (rank, &ev, values[k]);
      weft_event_set_external_id (rank, &ev, -1);
      weft_event_set_flow_id (rank, &ev, values[G_N_ELEMENTS (values) - 1 - k]);
      g_assert_cmpint (weft_event_correlation (rank, &ev), ==, values[k]);
      g_assert_cmpint (weft_event_external_id (rank, &ev), ==, -1);
      g_assert_cmpint (weft_event_flow_id (rank, &ev), ==, values[G_N_ELEMENTS (values) - 1 - k]);
      g_assert_cmpuint (weft_event_link (&ev), ==, WEFT_NONE); /* a flow event has no link */
      weft_event_set_link (&ev, WEFT_NONE);                   /* and clearing it keeps the id */
      g_assert_cmpint (weft_event_flow_id (rank, &ev), ==, values[G_N_ELEMENTS (values) - 1 - k]);
      g_array_append_val (rank->events, ev);
    }
  /* setting a field again keeps the others; copies read the same */
  for (guint k = 0; k < G_N_ELEMENTS (values); k++)
    {
      copy = weft_rank_event (rank, k);
      g_assert_cmpint (weft_event_correlation (rank, copy), ==, values[k]);
      g_assert_cmpint (weft_event_flow_id (rank, copy), ==, values[G_N_ELEMENTS (values) - 1 - k]);
    }
  /* the same wide value set twice on a record is not added twice */
  {
    guint before;
    weft_event_set_correlation (rank, &ev, G_MAXINT64);
    before = rank->wide_ids->len;
    weft_event_set_correlation (rank, &ev, G_MAXINT64);
    g_assert_cmpuint (rank->wide_ids->len, ==, before);
    weft_event_set_correlation (rank, &ev, 5);
    g_assert_cmpint (weft_event_correlation (rank, &ev), ==, 5);
  }
  /* the other phases: a link and no flow id */
  {
    WeftEvent x = { 0 };
    x.ph = WEFT_PH_X;
    weft_event_set_flow_id (rank, &x, -1);
    weft_event_set_link (&x, 12345);
    g_assert_cmpuint (weft_event_link (&x), ==, 12345);
    g_assert_cmpint (weft_event_flow_id (rank, &x), ==, -1);
    weft_event_set_link (&x, WEFT_NONE);
    g_assert_cmpuint (weft_event_link (&x), ==, WEFT_NONE);
  }
}

/* durations: every kind, inline and wide, the int64 edges */
static const gint64 durs[] = {
  0, 1, 999, G_MAXINT32 - 1, G_MAXINT32, (gint64) G_MAXINT32 + 1, G_MAXUINT32, (gint64) G_MAXUINT32 + 1,
  5000000000, ((gint64) 1 << 40) + 3, ((gint64) 1 << 62) - 1, G_MAXINT64, G_MAXINT64 - 1, -1, -2,
  G_MININT32, G_MININT64, G_MININT64 + 1,
};

static void
test_dur_accessors (void)
{
  g_autoptr (WeftRank) rank = weft_rank_new ("durs");
  WeftEvent ev = { 0 };

  for (guint k = 0; k < G_N_ELEMENTS (durs); k++)
    {
      guint before = rank->wide_ids->len;
      weft_event_set_correlation (rank, &ev, values[k % G_N_ELEMENTS (values)]);
      weft_event_set_dur (rank, &ev, durs[k]);
      g_assert_cmpint (weft_event_dur (rank, &ev), ==, durs[k]);
      g_assert_cmpint (weft_event_correlation (rank, &ev), ==, values[k % G_N_ELEMENTS (values)]);
      /* only the values outside 0 .. WEFT_DUR_INLINE_MAX take a pool slot
       * (and the wide correlation, when it changed) */
      if (durs[k] >= 0 && durs[k] <= WEFT_DUR_INLINE_MAX)
        g_assert_cmpint (ev.dur_code, ==, durs[k]);
      else
        g_assert_cmpint (ev.dur_code, <, 0);
      g_assert_cmpuint (rank->wide_ids->len, <=, before + 2);
      g_array_append_val (rank->events, ev);
    }
  /* the copies in the array read what was set, after later sets */
  for (guint k = 0; k < G_N_ELEMENTS (durs); k++)
    g_assert_cmpint (weft_event_dur (rank, weft_rank_event (rank, k)), ==, durs[k]);
  /* the same wide value again: no new slot */
  {
    guint before;
    weft_event_set_dur (rank, &ev, G_MAXINT64);
    before = rank->wide_ids->len;
    weft_event_set_dur (rank, &ev, G_MAXINT64);
    g_assert_cmpuint (rank->wide_ids->len, ==, before);
  }
  /* the end saturates at the int64 edges instead of wrapping */
  ev.ts = G_MAXINT64 - 5;
  weft_event_set_dur (rank, &ev, 10);
  g_assert_cmpint (weft_event_end (rank, &ev), ==, G_MAXINT64);
  weft_event_set_dur (rank, &ev, G_MAXINT64);
  g_assert_cmpint (weft_event_end (rank, &ev), ==, G_MAXINT64);
  ev.ts = G_MININT64 + 5;
  weft_event_set_dur (rank, &ev, -10);
  g_assert_cmpint (weft_event_end (rank, &ev), ==, G_MININT64);
  weft_event_set_dur (rank, &ev, G_MININT64);
  g_assert_cmpint (weft_event_end (rank, &ev), ==, G_MININT64);
  ev.ts = -((gint64) 1 << 62);
  weft_event_set_dur (rank, &ev, G_MAXINT64);
  g_assert_cmpint (weft_event_end (rank, &ev), ==, G_MAXINT64 - ((gint64) 1 << 62));
}

/* The durations a file may carry (the loader keeps ts + dur within 2^62
 * ns): one kernel each, in us with 3 decimals, ts 1 us apart. */
static const gint64 file_durs[] = {
  0, 1, 2147483647, 2147483648, 4294967295, 4294967296, 4294967297, 5000000000, 86400000000000,
  ((gint64) 1 << 62) - 1000000,
};

static char *
write_dur_trace (void)
{
  GString *s = g_string_new ("{\"schemaVersion\": 1,\n\"traceEvents\": [\n");

  for (guint k = 0; k < G_N_ELEMENTS (file_durs); k++)
    g_string_append_printf (s,
                            "%s{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"d%u\", \"pid\": 0, \"tid\": 7, "
                            "\"ts\": %u.000, \"dur\": %" G_GINT64_FORMAT ".%03d, \"args\": {\"device\": 0, \"stream\": 7}}",
                            k ? ",\n" : "", k, k + 1, file_durs[k] / 1000, (int) (file_durs[k] % 1000));
  g_string_append (s, "\n]}\n");
  return weft_test_write_file ("durs.json", s->str, (gssize) s->len);
}

static guint32
find_named (WeftRank *rank, const char *name)
{
  for (guint i = 0; i < rank->events->len; i++)
    if (g_strcmp0 (weft_rank_string (rank, weft_rank_event (rank, i)->name), name) == 0)
      return i;
  g_assert_not_reached ();
  return WEFT_NONE;
}

static void
test_dur_round_trip (void)
{
  g_autofree char *path = write_dur_trace ();
  g_autofree char *out = g_build_filename (weft_test_tmpdir (), "durs-saved.json", NULL);
  g_autofree char *out2 = g_build_filename (weft_test_tmpdir (), "durs-saved2.json.zst", NULL);
  g_autoptr (WeftRank) a = load (path);
  g_autoptr (WeftRank) b = NULL;
  g_autoptr (WeftRank) c = NULL;
  g_autoptr (GError) error = NULL;
  const guint n = G_N_ELEMENTS (file_durs);
  guint n_wide = 0;

  g_assert_cmpuint (a->events->len, ==, n);
  for (guint k = 0; k < n; k++)
    {
      const WeftEvent *ev = weft_rank_event (a, k);
      g_assert_cmpint (weft_event_dur (a, ev), ==, file_durs[k]);
      g_assert_cmpint (weft_event_end (a, ev), ==, (gint64) (k + 1) * 1000 + file_durs[k]);
      n_wide += file_durs[k] > WEFT_DUR_INLINE_MAX;
    }
  g_assert_cmpuint (a->wide_ids->len, ==, n_wide);

  /* unedited: each event's text byte for byte, and the same durations */
  g_assert_true (weft_rank_save (a, out, NULL, &error));
  g_assert_no_error (error);
  b = load (out);
  g_assert_cmpuint (b->events->len, ==, n);
  for (guint k = 0; k < n; k++)
    {
      g_autofree char *ta = weft_rank_event_text_dup (a, weft_rank_event (a, k), NULL);
      g_autofree char *tb = weft_rank_event_text_dup (b, weft_rank_event (b, k), NULL);
      g_assert_cmpstr (ta, ==, tb);
      g_assert_cmpint (weft_event_dur (b, weft_rank_event (b, k)), ==, file_durs[k]);
    }
  g_clear_pointer (&b, weft_rank_free);

  /* edited: each duration set to the next one (wide <-> inline), and a
   * created copy of each kernel with the duration of the one before */
  for (guint k = 0; k < n; k++)
    {
      WeftEvent *ev = weft_rank_event (a, k);
      weft_event_set_dur (a, ev, file_durs[(k + 1) % n]);
      ev->flags |= WEFT_EVENT_EDITED;
    }
  for (guint k = 0; k < n; k++)
    {
      WeftEvent created = *weft_rank_event (a, k);
      g_autofree char *name = g_strdup_printf ("c%u", k);
      created.name = weft_strings_intern (a->strings, name, -1);
      created.ts = 100 * 1000 * (k + 1);
      weft_event_set_dur (a, &created, file_durs[(k + n - 1) % n]);
      created.flags = WEFT_EVENT_CREATED | WEFT_EVENT_EDITED | WEFT_EVENT_HAS_DUR | WEFT_EVENT_GPU_OP;
      g_array_append_val (a->events, created);
      g_array_append_val (weft_rank_lane (a, created.lane)->events, (guint32) { a->events->len - 1 });
    }
  for (guint k = 0; k < n; k++)
    {
      g_assert_cmpint (weft_event_dur (a, weft_rank_event (a, k)), ==, file_durs[(k + 1) % n]);
      g_assert_cmpint (weft_event_dur (a, weft_rank_event (a, n + k)), ==, file_durs[(k + n - 1) % n]);
    }
  g_assert_true (weft_rank_save (a, out2, NULL, &error));
  g_assert_no_error (error);
  c = load (out2);
  g_assert_cmpuint (c->events->len, ==, 2 * n);
  for (guint k = 0; k < n; k++)
    {
      g_autofree char *dname = g_strdup_printf ("d%u", k), *cname = g_strdup_printf ("c%u", k);
      const WeftEvent *d = weft_rank_event (c, find_named (c, dname));
      const WeftEvent *e = weft_rank_event (c, find_named (c, cname));
      g_assert_cmpint (weft_event_dur (c, d), ==, file_durs[(k + 1) % n]);
      g_assert_cmpint (weft_event_dur (c, e), ==, file_durs[(k + n - 1) % n]);
      g_assert_cmpint (d->ts, ==, (gint64) (k + 1) * 1000);
    }
}

static void
test_round_trip (void)
{
  g_autofree char *path = write_trace ();
  g_autofree char *out = g_build_filename (weft_test_tmpdir (), "ids-saved.json", NULL);
  g_autofree char *out2 = g_build_filename (weft_test_tmpdir (), "ids-saved2.json", NULL);
  g_autoptr (WeftRank) a = load (path);
  g_autoptr (WeftRank) b = NULL;
  g_autoptr (WeftRank) c = NULL;

  g_autoptr (GError) error = NULL;
  guint n = a->events->len;

  g_assert_cmpuint (n, ==, 4 * G_N_ELEMENTS (values) + 2);
  g_assert_cmpuint (a->wide_ids->len, >, 0);
  assert_ids_match_texts (a);
  /* the launches pair with their kernels by correlation, wide ones too */
  for (guint k = 0; k < G_N_ELEMENTS (values); k++)
    if (values[k] >= 0)
      g_assert_cmpuint (weft_event_link (weft_rank_event (a, 4 * k)), ==, 4 * k + 1);

  /* unedited: written as read */
  g_assert_true (weft_rank_save (a, out, NULL, &error));
  g_assert_no_error (error);
  b = load (out);
  assert_same_ids (a, b);
  assert_ids_match_texts (b);
  g_clear_pointer (&b, weft_rank_free);

  /* edited: every kernel moved, a copy of each kernel created after the
   * trace (no text: its args are written from the record), and new values
   * set on half of the copies */
  for (guint k = 0; k < G_N_ELEMENTS (values); k++)
    {
      WeftEvent *kernel = weft_rank_event (a, 4 * k + 1);
      WeftEvent created = *kernel;
      kernel->ts += 1000;
      kernel->flags |= WEFT_EVENT_EDITED;
      created.ts = weft_rank_event (a, n - 2)->ts + 100000 * (k + 1);
      created.flags = WEFT_EVENT_CREATED | WEFT_EVENT_EDITED | WEFT_EVENT_HAS_DUR | WEFT_EVENT_GPU_OP;
      weft_event_set_link (&created, WEFT_NONE);
      g_array_append_val (a->events, created);
      g_array_append_val (weft_rank_lane (a, created.lane)->events, (guint32) { a->events->len - 1 });
    }
  for (guint k = 0; k < G_N_ELEMENTS (values); k++)
    {
      const WeftEvent *kernel = weft_rank_event (a, 4 * k + 1);
      WeftEvent *created = weft_rank_event (a, n + k);
      g_assert_cmpint (weft_event_correlation (a, created), ==, weft_event_correlation (a, kernel));
      g_assert_cmpint (weft_event_external_id (a, created), ==, weft_event_external_id (a, kernel));
      if (k % 2 == 1)
        {
          weft_event_set_external_id (a, created, values[(k + 5) % G_N_ELEMENTS (values)]);
          weft_event_set_correlation (a, created, k == 1 ? -1 : values[(k + 8) % G_N_ELEMENTS (values)]);
          g_assert_cmpint (weft_event_external_id (a, created), ==, values[(k + 5) % G_N_ELEMENTS (values)]);
          g_assert_cmpint (weft_event_correlation (a, created), ==, k == 1 ? -1 : values[(k + 8) % G_N_ELEMENTS (values)]);
        }
    }
  g_assert_true (weft_rank_save (a, out2, NULL, &error));
  g_assert_no_error (error);
  c = load (out2);
  assert_same_ids (a, c);
  assert_ids_match_texts (c);
}

/* A real trace: every id is what its text says. */
static void
test_real (void)
{
  g_autofree char *path = weft_test_require_trace ("HolisticTraceAnalysis/trace_diff/control/control.json.gz");
  g_autoptr (WeftRank) rank = NULL;
  if (path == NULL)
    return;
  rank = load (path);
  assert_ids_match_texts (rank);
}

/* Kernels inserted by an edit get a created launch whose correlation and
 * External id are fresh: one past the largest, or, when that is
 * G_MAXINT64, the smallest ids that no event uses. Saved and reopened,
 * each created launch pairs with its own kernel and no other. */
static void
test_fresh_launch_ids (void)
{
  static const gint64 taken[] = { G_MAXINT64, 0, 1, 5 };
  GString *s = g_string_new ("{\"schemaVersion\": 1, \"baseTimeNanoseconds\": 1700000000000000000,\n\"traceEvents\": [\n");
  g_autofree char *path = NULL;
  g_autofree char *out = g_build_filename (weft_test_tmpdir (), "ids-fresh-saved.json", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftEditSession) session = NULL;
  g_autoptr (WeftRank) saved = NULL;
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  WeftTrace *trace;
  guint created = 0;

  for (guint k = 0; k < G_N_ELEMENTS (taken); k++)
    g_string_append_printf (s,
                            "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 100, "
                            "\"tid\": 100, \"ts\": %u.000, \"dur\": 2.000, \"args\": {\"correlation\": %" G_GINT64_FORMAT
                            ", \"External id\": %" G_GINT64_FORMAT "}},\n"
                            "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm%u\", \"pid\": 0, \"tid\": 7, "
                            "\"ts\": %u.000, \"dur\": 5.000, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": %"
                            G_GINT64_FORMAT ", \"External id\": %" G_GINT64_FORMAT "}}%s\n",
                            10 + 20 * k, taken[k], taken[k], k, 14 + 20 * k, taken[k], taken[k],
                            k + 1 < G_N_ELEMENTS (taken) ? "," : "");
  g_string_append (s, "]}\n");
  path = weft_test_write_file ("ids-fresh.json", s->str, (gssize) s->len);
  g_string_free (s, TRUE);

  trace = weft_trace_load (path, NULL, NULL, &error);
  g_assert_no_error (error);
  session = weft_edit_session_new (trace, path, &error);
  g_assert_no_error (error);
  for (guint k = 0; k < 2; k++)
    {
      json_object *op = json_tokener_parse ("{\"op\": \"insert_kernel\", \"rank\": 0, \"stream\": 7, "
                                            "\"after\": {\"name\": \"gemm3\"}, \"like\": {\"name\": \"gemm0\"}}");
      g_assert_true (weft_edit_session_apply_json (session, op, &error));
      g_assert_no_error (error);
      json_object_put (op);
    }
  g_assert_true (weft_edit_session_save (session, out, NULL, &error));
  g_assert_no_error (error);

  saved = load (out);
  assert_ids_match_texts (saved);
  for (guint i = 0; i < saved->events->len; i++)
    {
      const WeftEvent *ev = weft_rank_event (saved, i);
      gint64 corr = weft_event_correlation (saved, ev);
      if (!(ev->flags & WEFT_EVENT_LAUNCH))
        continue;
      /* every launch has its own id, and it is its kernel's */
      g_assert_cmpint (corr, >=, 0);
      g_assert_false (g_hash_table_contains (seen, &corr));
      g_hash_table_add (seen, g_memdup2 (&corr, sizeof corr));
      g_assert_cmpuint (weft_event_link (ev), !=, WEFT_NONE);
      g_assert_cmpint (weft_event_correlation (saved, weft_rank_event (saved, weft_event_link (ev))), ==, corr);
      g_assert_cmpint (weft_event_external_id (saved, ev), ==, corr);
      if (corr != taken[0] && corr != taken[1] && corr != taken[2] && corr != taken[3])
        {
          /* the gaps below the top, in order: 2, then 3 */
          g_assert_cmpint (corr, ==, 2 + (gint64) created);
          created++;
        }
    }
  g_assert_cmpuint (created, ==, 2);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ids/accessors", test_accessors);
  g_test_add_func ("/ids/round-trip", test_round_trip);
  g_test_add_func ("/ids/real", test_real);
  g_test_add_func ("/ids/fresh-launch-ids", test_fresh_launch_ids);
  g_test_add_func ("/durs/accessors", test_dur_accessors);
  g_test_add_func ("/durs/round-trip", test_dur_round_trip);
  return g_test_run ();
}
