/* cmd-info.c: `weft-cli info PATH [--json]`: a summary of a trace per rank
 * (source file, events by category and phase, lanes, kernels by class,
 * collectives by type, time span, steps, clock offset) and the collective
 * instances matched across ranks. The --json document is described in
 * docs/cli.md; its fields are stable (new ones may be added). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "weft/weft.h"

/* ---- shared loading ------------------------------------------------------- */

/* WEFT_MAX_JSON_BYTES: a positive integer of bytes, optionally followed by
 * K, M, G or T (binary: KiB, MiB, ...). Nothing else: no sign, no spaces,
 * no decimals, no overflow. */
gboolean
weft_cli_parse_bytes (const char *text, guint64 *out)
{
  guint64 v = 0, mult = 1;
  const char *p = text;

  if (text == NULL || !g_ascii_isdigit (*p))
    return FALSE;
  for (; g_ascii_isdigit (*p); p++)
    {
      if (v > (G_MAXUINT64 - (guint64) (*p - '0')) / 10)
        return FALSE;
      v = v * 10 + (guint64) (*p - '0');
    }
  switch (*p)
    {
    case '\0': break;
    case 'k': case 'K': mult = G_GUINT64_CONSTANT (1) << 10; p++; break;
    case 'm': case 'M': mult = G_GUINT64_CONSTANT (1) << 20; p++; break;
    case 'g': case 'G': mult = G_GUINT64_CONSTANT (1) << 30; p++; break;
    case 't': case 'T': mult = G_GUINT64_CONSTANT (1) << 40; p++; break;
    default: return FALSE;
    }
  if (*p == 'i' && mult > 1 && p[1] == 'B')
    p += 2;
  else if (*p == 'B' && mult > 1)
    p++;
  if (*p != '\0' || v == 0 || v > G_MAXUINT64 / mult)
    return FALSE;
  *out = v * mult;
  return TRUE;
}

static char *
describe_load (guint64 done, guint64 total)
{
  return g_strdup_printf ("reading: %3d%%, %.1f of %.1f MB", total ? (int) (done * 100 / total) : 0, done / 1e6,
                          total / 1e6);
}

WeftTrace *
weft_cli_load_trace (const char *path, guint64 max_json_bytes, GError **error)
{
  g_autoptr (WeftCliProgress) progress = weft_cli_progress_new (describe_load);
  WeftLoadOptions options = { 0 };
  const char *env = g_getenv ("WEFT_MAX_JSON_BYTES");
  WeftTrace *trace;

  if (max_json_bytes == 0 && env != NULL && *env != '\0')
    {
      if (!weft_cli_parse_bytes (env, &max_json_bytes))
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
                       "WEFT_MAX_JSON_BYTES=%s: expected a positive number of bytes, optionally with a K, M, G "
                       "or T suffix (e.g. 4096, 512M, 2G)", env);
          return NULL;
        }
    }
  options.max_json_bytes = max_json_bytes;
  options.progress = progress != NULL ? weft_cli_progress_cb : NULL;
  options.progress_data = progress;
  if (strcmp (path, "-") == 0)
    trace = weft_cli_load_stdin (&options, error);
  else if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_IO, "%s: no such file or folder", path);
      return NULL;
    }
  else
    trace = weft_trace_load (path, &options, NULL, error);
  g_clear_pointer (&progress, weft_cli_progress_free);
  if (trace != NULL)
    for (guint i = 0; i < trace->warnings->len; i++)
      g_printerr ("weft-cli: warning: %s\n", (const char *) trace->warnings->pdata[i]);
  return trace;
}

/* ---- counting ------------------------------------------------------------- */

static const char *
rank_source_name (WeftRankSource s)
{
  switch (s)
    {
    case WEFT_RANK_FROM_DISTRIBUTED_INFO:
      return "distributedInfo";
    case WEFT_RANK_FROM_FILE_NAME:
      return "file name";
    case WEFT_RANK_FROM_ORDER:
    default:
      return "file order";
    }
}

static const char *
ts_style_name (WeftTsStyle s)
{
  switch (s)
    {
    case WEFT_TS_RELATIVE:
      return "relative";
    case WEFT_TS_ABSOLUTE_US:
      return "absolute-us";
    case WEFT_TS_ABSOLUTE_FRAC:
    default:
      return "absolute-frac";
    }
}

static const char *
lane_kind_name (WeftLaneKind k)
{
  switch (k)
    {
    case WEFT_LANE_GPU:
      return "gpu";
    case WEFT_LANE_CPU:
      return "cpu";
    case WEFT_LANE_OTHER:
    default:
      return "other";
    }
}

static const char *
match_method_name (int m)
{
  switch (m)
    {
    case WEFT_MATCH_SEQ:
      return "seq";
    case WEFT_MATCH_PG_ORDINAL:
      return "pg_ordinal";
    case WEFT_MATCH_STREAM_ORDINAL:
      return "stream_ordinal";
    case WEFT_MATCH_P2P:
      return "p2p";
    default:
      return "unknown";
    }
}

typedef struct
{
  guint   by_phase[WEFT_PH_N_PHASES];
  GArray *cats;            /* guint per interned cat id */
  guint   by_class[WEFT_KCLASS_N_CLASSES];
  guint   coll_count[WEFT_COLL_N_TYPES];
  gint64  coll_bytes[WEFT_COLL_N_TYPES];
  guint   coll_unknown_bytes[WEFT_COLL_N_TYPES];
  guint   n_events;        /* not deleted */
} RankCounts;

static void
count_rank (WeftRank *rank, RankCounts *c)
{
  memset (c, 0, sizeof *c);
  c->cats = g_array_new (FALSE, TRUE, sizeof (guint));
  g_array_set_size (c->cats, weft_strings_count (rank->strings));
  for (guint i = 0; i < rank->events->len; i++)
    {
      const WeftEvent *ev = weft_rank_event (rank, i);
      if (ev->flags & WEFT_EVENT_DELETED)
        continue;
      c->n_events++;
      c->by_phase[MIN (ev->ph, WEFT_PH_OTHER)]++;
      if (ev->cat < c->cats->len)
        g_array_index (c->cats, guint, ev->cat)++;
      if ((ev->flags & WEFT_EVENT_GPU_OP) && ev->kclass < WEFT_KCLASS_N_CLASSES)
        c->by_class[ev->kclass]++;
    }
  for (guint i = 0; i < rank->collectives->len; i++)
    {
      const WeftCollective *coll = &g_array_index (rank->collectives, WeftCollective, i);
      guint t = MIN ((guint) coll->type, WEFT_COLL_N_TYPES - 1);
      c->coll_count[t]++;
      if (coll->bytes >= 0)
        c->coll_bytes[t] += coll->bytes;
      else
        c->coll_unknown_bytes[t]++;
    }
}

static void
counts_clear (RankCounts *c)
{
  g_array_free (c->cats, TRUE);
}

/* Category ids sorted by count (desc), then by text. */
typedef struct
{
  WeftRank   *rank;
  RankCounts *c;
} CatSort;

static gint
cat_cmp (gconstpointer a, gconstpointer b, gpointer user_data)
{
  const CatSort *cs = user_data;
  guint ia = *(const guint *) a, ib = *(const guint *) b;
  guint na = g_array_index (cs->c->cats, guint, ia), nb = g_array_index (cs->c->cats, guint, ib);
  if (na != nb)
    return na > nb ? -1 : 1;
  return strcmp (weft_rank_string (cs->rank, ia), weft_rank_string (cs->rank, ib));
}

static GArray *
sorted_cats (WeftRank *rank, RankCounts *c)
{
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (guint));
  CatSort cs = { rank, c };
  for (guint i = 0; i < c->cats->len; i++)
    if (g_array_index (c->cats, guint, i) > 0)
      g_array_append_val (ids, i);
  g_array_sort_with_data (ids, cat_cmp, &cs);
  return ids;
}

static char *
format_bytes (gint64 b)
{
  if (b < 0)
    return g_strdup ("?");
  return g_format_size_full ((guint64) b, G_FORMAT_SIZE_IEC_UNITS);
}

static char *
format_ms (gint64 ns)
{
  return g_strdup_printf ("%.3f ms", (double) ns / 1e6);
}

/* Instances of collective type t: returns how many; full: how many span
 * every rank; by_method: how many each match method found. */
static guint
count_instances (WeftTrace *trace, int t, guint *full, guint by_method[4])
{
  guint n = 0;

  *full = 0;
  memset (by_method, 0, 4 * sizeof (guint));
  for (guint i = 0; i < trace->instances->len; i++)
    {
      const WeftCollInstance *inst = &g_array_index (trace->instances, WeftCollInstance, i);
      if ((int) inst->type != t)
        continue;
      n++;
      if (inst->method >= 0 && inst->method < 4)
        by_method[inst->method]++;
      if (inst->members->len == trace->ranks->len)
        (*full)++;
    }
  return n;
}

/* ---- JSON ------------------------------------------------------------------ */

static json_object *
raw_json (const char *raw)
{
  json_object *o = json_tokener_parse (raw);
  return o != NULL ? o : json_object_new_string (raw);
}

static json_object *
span_json (WeftTimeSpan s)
{
  json_object *o = json_object_new_object ();
  json_object_object_add (o, "begin_ns", json_object_new_int64 (s.begin));
  json_object_object_add (o, "end_ns", json_object_new_int64 (s.end));
  json_object_object_add (o, "duration_us", json_object_new_double ((double) (s.end - s.begin) / 1000.0));
  return o;
}

static json_object *
instances_json (WeftTrace *trace)
{
  json_object *o = json_object_new_object ();
  json_object *by_type = json_object_new_object ();
  guint all = 0;

  for (int t = 0; t < WEFT_COLL_N_TYPES; t++)
    {
      guint full, by_method[4];
      guint n = count_instances (trace, t, &full, by_method);
      json_object *entry, *methods;
      if (n == 0)
        continue;
      entry = json_object_new_object ();
      methods = json_object_new_object ();
      json_object_object_add (entry, "count", json_object_new_int64 (n));
      json_object_object_add (entry, "spanning_all_ranks", json_object_new_int64 (full));
      for (int m = 0; m < 4; m++)
        if (by_method[m] > 0)
          json_object_object_add (methods, match_method_name (m), json_object_new_int64 (by_method[m]));
      json_object_object_add (entry, "by_method", methods);
      json_object_object_add (by_type, weft_coll_type_to_string ((WeftCollType) t), entry);
    }
  for (guint i = 0; i < trace->instances->len; i++)
    if (g_array_index (trace->instances, WeftCollInstance, i).members->len == trace->ranks->len)
      all++;
  json_object_object_add (o, "count", json_object_new_int64 (trace->instances->len));
  json_object_object_add (o, "spanning_all_ranks", json_object_new_int64 (all));
  json_object_object_add (o, "by_type", by_type);
  return o;
}

static json_object *
rank_json (WeftTrace *trace, WeftRank *rank)
{
  json_object *o = json_object_new_object ();
  json_object *phases = json_object_new_object ();
  json_object *cats = json_object_new_object ();
  json_object *lanes = json_object_new_array ();
  json_object *classes = json_object_new_object ();
  json_object *colls = json_object_new_object ();
  json_object *steps = json_object_new_array ();
  json_object *offset = json_object_new_object ();
  RankCounts c;
  g_autoptr (GArray) cat_ids = NULL;

  count_rank (rank, &c);
  json_object_object_add (o, "rank", json_object_new_int (rank->rank));
  json_object_object_add (o, "rank_source", json_object_new_string (rank_source_name (rank->rank_source)));
  json_object_object_add (o, "world_size", json_object_new_int (rank->world_size));
  json_object_object_add (o, "path", json_object_new_string (rank->path));
  json_object_object_add (o, "json_bytes", json_object_new_int64 ((gint64) rank->json_bytes));
  json_object_object_add (o, "ts_style", json_object_new_string (ts_style_name (rank->ts_style)));
  json_object_object_add (o, "base_time_ns", rank->has_base ? json_object_new_int64 (rank->base_ns) : NULL);
  json_object_object_add (o, "events", json_object_new_int64 (c.n_events));

  for (int p = 0; p < WEFT_PH_N_PHASES; p++)
    if (c.by_phase[p] > 0)
      json_object_object_add (phases, weft_phase_to_string ((WeftPhase) p), json_object_new_int64 (c.by_phase[p]));
  json_object_object_add (o, "events_by_phase", phases);

  cat_ids = sorted_cats (rank, &c);
  for (guint i = 0; i < cat_ids->len; i++)
    {
      guint id = g_array_index (cat_ids, guint, i);
      json_object_object_add (cats, weft_rank_string (rank, id), json_object_new_int64 (g_array_index (c.cats, guint, id)));
    }
  json_object_object_add (o, "events_by_category", cats);

  for (guint i = 0; i < rank->lanes->len; i++)
    {
      WeftLane *lane = weft_rank_lane (rank, i);
      json_object *l = json_object_new_object ();
      json_object_object_add (l, "kind", json_object_new_string (lane_kind_name (lane->kind)));
      json_object_object_add (l, "pid", raw_json (weft_rank_string (rank, lane->pid_text)));
      json_object_object_add (l, "tid", raw_json (weft_rank_string (rank, lane->tid_text)));
      json_object_object_add (l, "name", json_object_new_string (weft_rank_string (rank, lane->name)));
      json_object_object_add (l, "role", json_object_new_string (weft_lane_role_to_string (lane->role)));
      json_object_object_add (l, "device", json_object_new_int (lane->device));
      json_object_object_add (l, "events", json_object_new_int64 (lane->events->len));
      json_object_array_add (lanes, l);
    }
  json_object_object_add (o, "lanes", lanes);

  for (int k = 1; k < WEFT_KCLASS_N_CLASSES; k++)
    if (c.by_class[k] > 0)
      json_object_object_add (classes, weft_kernel_class_to_string ((WeftKernelClass) k),
                              json_object_new_int64 (c.by_class[k]));
  json_object_object_add (o, "kernels_by_class", classes);

  for (int t = 1; t < WEFT_COLL_N_TYPES; t++)
    if (c.coll_count[t] > 0)
      {
        json_object *e = json_object_new_object ();
        json_object_object_add (e, "count", json_object_new_int64 (c.coll_count[t]));
        json_object_object_add (e, "bytes", json_object_new_int64 (c.coll_bytes[t]));
        json_object_object_add (e, "unknown_size_count", json_object_new_int64 (c.coll_unknown_bytes[t]));
        json_object_object_add (colls, weft_coll_type_to_string ((WeftCollType) t), e);
      }
  json_object_object_add (o, "collectives", colls);

  json_object_object_add (o, "time_span", span_json (weft_rank_time_span (rank)));

  for (guint i = 0; i < rank->steps->len; i++)
    {
      const WeftStep *s = &g_array_index (rank->steps, WeftStep, i);
      json_object *j = json_object_new_object ();
      json_object_object_add (j, "number", json_object_new_int (s->number));
      json_object_object_add (j, "begin_ns", json_object_new_int64 (s->begin));
      json_object_object_add (j, "end_ns", json_object_new_int64 (s->end));
      json_object_object_add (j, "duration_us", json_object_new_double ((double) (s->end - s->begin) / 1000.0));
      json_object_array_add (steps, j);
    }
  json_object_object_add (o, "steps", steps);

  json_object_object_add (offset, "estimated_us", json_object_new_double ((double) rank->clock_offset_ns / 1000.0));
  json_object_object_add (offset, "applied_us",
                          json_object_new_double ((double) weft_trace_rank_offset (trace, rank) / 1000.0));
  json_object_object_add (o, "clock_offset", offset);

  counts_clear (&c);
  return o;
}

static json_object *
trace_json (WeftTrace *trace, const char *path)
{
  json_object *o = weft_cli_json_new ();
  json_object *ranks = json_object_new_array ();

  json_object_object_add (o, "path", json_object_new_string (path));
  json_object_object_add (o, "n_ranks", json_object_new_int (trace->ranks->len));
  json_object_object_add (o, "time_span", span_json (weft_trace_time_span (trace)));
  json_object_object_add (o, "clock_offsets_estimated", json_object_new_boolean (trace->offsets_estimated));
  json_object_object_add (o, "clock_offsets_applied", json_object_new_boolean (trace->apply_clock_offsets));
  json_object_object_add (o, "instances", instances_json (trace));
  for (guint i = 0; i < trace->ranks->len; i++)
    json_object_array_add (ranks, rank_json (trace, weft_trace_rank (trace, i)));
  json_object_object_add (o, "ranks", ranks);
  return o;
}

/* ---- text -------------------------------------------------------------------- */

static void
print_text (WeftTrace *trace, const char *path)
{
  WeftTimeSpan span = weft_trace_time_span (trace);
  g_autofree char *span_ms = format_ms (span.end - span.begin);

  printf ("Trace: %s\n", path);
  printf ("  ranks: %u, time span %s, clock offsets %s and %s\n", trace->ranks->len, span_ms,
          trace->offsets_estimated ? "estimated" : "not estimated",
          trace->apply_clock_offsets ? "applied" : "not applied");
  printf ("  collective instances matched across ranks: %u\n", trace->instances->len);
  for (int t = 0; t < WEFT_COLL_N_TYPES; t++)
    {
      guint full, by_method[4];
      guint n = count_instances (trace, t, &full, by_method);
      if (n == 0)
        continue;
      printf ("    %-15s %4u (%u spanning all ranks; by", weft_coll_type_to_string ((WeftCollType) t), n, full);
      for (int m = 0; m < 4; m++)
        if (by_method[m] > 0)
          printf (" %s %u", match_method_name (m), by_method[m]);
      printf (")\n");
    }

  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);
      RankCounts c;
      g_autoptr (GArray) cat_ids = NULL;
      WeftTimeSpan rs = weft_rank_time_span (rank);
      g_autofree char *rs_ms = format_ms (rs.end - rs.begin);
      g_autofree char *size = format_bytes ((gint64) rank->json_bytes);
      gboolean any;

      count_rank (rank, &c);
      printf ("\nRank %d (from %s, world size %d)\n", rank->rank, rank_source_name (rank->rank_source), rank->world_size);
      printf ("  file: %s (%s of JSON, %s timestamps)\n", rank->path, size, ts_style_name (rank->ts_style));
      printf ("  events: %u; by phase:", c.n_events);
      any = FALSE;
      for (int p = 0; p < WEFT_PH_N_PHASES; p++)
        if (c.by_phase[p] > 0)
          {
            printf ("%s %s %u", any ? "," : "", weft_phase_to_string ((WeftPhase) p), c.by_phase[p]);
            any = TRUE;
          }
      printf ("\n  by category:");
      cat_ids = sorted_cats (rank, &c);
      for (guint i = 0; i < cat_ids->len; i++)
        {
          guint id = g_array_index (cat_ids, guint, i);
          const char *name = weft_rank_string (rank, id);
          printf ("%s %s %u", i ? "," : "", *name ? name : "(none)", g_array_index (c.cats, guint, id));
        }
      printf ("\n  time span: %s (%" G_GINT64_FORMAT " .. %" G_GINT64_FORMAT " ns)\n", rs_ms, rs.begin, rs.end);
      printf ("  clock offset: estimated %+.3f us, applied %+.3f us\n", (double) rank->clock_offset_ns / 1e3,
              (double) weft_trace_rank_offset (trace, rank) / 1e3);
      printf ("  steps: %u", rank->steps->len);
      for (guint i = 0; i < rank->steps->len; i++)
        {
          const WeftStep *s = &g_array_index (rank->steps, WeftStep, i);
          g_autofree char *d = format_ms (s->end - s->begin);
          printf ("%s ProfilerStep#%d %s", i ? "," : "", s->number, d);
        }
      printf ("\n  lanes: %u\n", rank->lanes->len);
      for (guint i = 0; i < rank->lanes->len; i++)
        {
          WeftLane *lane = weft_rank_lane (rank, i);
          const char *role = weft_lane_role_to_string (lane->role);
          printf ("    %-5s pid %-10s tid %-12s %-12s %7u events  %s\n", lane_kind_name (lane->kind),
                  weft_rank_string (rank, lane->pid_text), weft_rank_string (rank, lane->tid_text),
                  *role ? role : "-", lane->events->len, weft_rank_string (rank, lane->name));
        }
      printf ("  kernels by class:");
      any = FALSE;
      for (int k = 1; k < WEFT_KCLASS_N_CLASSES; k++)
        if (c.by_class[k] > 0)
          {
            printf ("%s %s %u", any ? "," : "", weft_kernel_class_to_string ((WeftKernelClass) k), c.by_class[k]);
            any = TRUE;
          }
      printf ("%s\n  collectives:", any ? "" : " none");
      any = FALSE;
      for (int t = 1; t < WEFT_COLL_N_TYPES; t++)
        if (c.coll_count[t] > 0)
          {
            g_autofree char *b = format_bytes (c.coll_bytes[t]);
            printf ("%s %s %u (%s%s)", any ? "," : "", weft_coll_type_to_string ((WeftCollType) t), c.coll_count[t],
                    b, c.coll_unknown_bytes[t] ? ", some sizes unknown" : "");
            any = TRUE;
          }
      printf ("%s\n", any ? "" : " none");
      counts_clear (&c);
    }
}

int
weft_cmd_info (int argc, char **argv)
{
  gboolean as_json = FALSE;
  gint64 max_bytes = 0;
  gboolean no_offsets = FALSE;
  GOptionEntry entries[] = {
    { "json", 'j', 0, G_OPTION_ARG_NONE, &as_json, "Print a JSON document (fields in docs/cli.md)", NULL },
    { "no-clock-offsets", 0, 0, G_OPTION_ARG_NONE, &no_offsets, "Do not apply the estimated clock offsets", NULL },
    { "max-json-bytes", 0, 0, G_OPTION_ARG_INT64, &max_bytes,
      "Cap on the decompressed JSON bytes per file (default 16 GiB; env WEFT_MAX_JSON_BYTES)", "BYTES" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("PATH - summarise a Kineto trace (file or folder)");
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftTrace) trace = NULL;

  g_option_context_add_main_entries (ctx, entries, NULL);
  weft_cli_add_progress_option (ctx);
  g_option_context_set_description (ctx, "PATH is a trace file (.json, .json.gz, .json.zst) or a folder of them.\n\n"
                                         "Exit status: 0 success, 2 bad input (the message names the file and\n"
                                         "byte offset) or bad usage.");
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return weft_cli_fail ("info: %s", error->message);
  if (argc != 2)
    return weft_cli_fail ("info: expected one PATH (see weft-cli info --help)");
  if (max_bytes < 0)
    return weft_cli_fail ("info: --max-json-bytes must be positive");

  trace = weft_cli_load_trace (argv[1], (guint64) max_bytes, &error);
  if (trace == NULL)
    return weft_cli_fail ("%s", error->message);
  if (no_offsets)
    trace->apply_clock_offsets = FALSE;

  if (as_json)
    {
      if (!weft_cli_json_print (trace_json (trace, argv[1])))
        return WEFT_EXIT_FAILURE;
    }
  else
    print_text (trace, argv[1]);
  if (fflush (stdout) != 0)
    return WEFT_EXIT_FAILURE;
  return WEFT_EXIT_OK;
}
