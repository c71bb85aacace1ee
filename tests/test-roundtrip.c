/* test-roundtrip.c: what you save is what you saw (issue 11). For real
 * traces and every kind of edit: the session's figures (step time, overlap,
 * exposed communication, critical path length and composition, whole trace
 * and per ProfilerStep) equal those of the saved files reopened, within
 * 0.1 %, with no new unexplained op; and the saved files follow Kineto's and
 * Perfetto's rules: every GPU op's args.stream is its tid, every flow binds
 * to the op whose correlation it carries, no two edited slices partially
 * overlap on a track, every lane is named where the input named lanes. */
#include "config.h"

#include <json-c/json.h>
#include <string.h>

#include "testutil.h"
#include "weft/weft-apply.h"
#include "weft/weft-edit.h"
#include "weft/weft-load.h"
#include "weft/weft-solver.h"

static WeftTrace *
load (const char *path)
{
  g_autoptr (GError) error = NULL;
  WeftTrace *trace = weft_trace_load (path, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (trace);
  return trace;
}

typedef struct
{
  int         step;
  gboolean    ok;
  WeftMetrics m;
} StepFigures;

static GArray *
figures (WeftSolver *solver)
{
  g_autoptr (GArray) steps = weft_solver_steps (solver);
  GArray *out = g_array_new (FALSE, FALSE, sizeof (StepFigures));
  for (guint k = 0; k <= steps->len; k++)
    {
      StepFigures f;
      f.step = k < steps->len ? g_array_index (steps, int, k) : WEFT_SOLVER_ALL_STEPS;
      f.ok = weft_solver_metrics (solver, WEFT_SOLVER_ALL_RANKS, f.step, &f.m);
      g_array_append_val (out, f);
    }
  return out;
}

static void
expect_close (const char *what, const char *field, int step, gint64 session, gint64 reopened, gint64 scale)
{
  gint64 tol = MAX (1000, scale / 1000);
  if (ABS (session - reopened) > tol)
    g_error ("%s: step %d: %s %" G_GINT64_FORMAT " ns in the session, %" G_GINT64_FORMAT " ns reopened", what,
             step, field, session, reopened);
}

static void
compare (const char *what, GArray *a, GArray *b)
{
  g_assert_cmpuint (a->len, ==, b->len);
  for (guint i = 0; i < a->len; i++)
    {
      const StepFigures *x = &g_array_index (a, StepFigures, i), *y = &g_array_index (b, StepFigures, i);
      gint64 s = x->m.step_time;
      g_assert_cmpint (x->step, ==, y->step);
      g_assert_cmpint (x->ok, ==, y->ok);
      if (!x->ok)
        continue;
      expect_close (what, "step time", x->step, x->m.step_time, y->m.step_time, s);
      expect_close (what, "exposed communication", x->step, x->m.exposed_comm, y->m.exposed_comm, s);
      expect_close (what, "critical path", x->step, x->m.cp_length, y->m.cp_length, s);
      expect_close (what, "critical path compute", x->step, x->m.cp_compute, y->m.cp_compute, s);
      expect_close (what, "critical path communication", x->step, x->m.cp_comm, y->m.cp_comm, s);
      expect_close (what, "critical path launch/CPU", x->step, x->m.cp_launch, y->m.cp_launch, s);
      expect_close (what, "critical path waiting", x->step, x->m.cp_wait, y->m.cp_wait, s);
      expect_close (what, "critical path inferred", x->step, x->m.cp_inferred, y->m.cp_inferred, s);
      if (ABS (x->m.overlap_pct - y->m.overlap_pct) > 0.1)
        g_error ("%s: step %d: overlap %.3f %% in the session, %.3f %% reopened", what, x->step, x->m.overlap_pct,
                 y->m.overlap_pct);
    }
}

/* ---- Kineto's and Perfetto's rules on one saved file ------------------------------ */

static gint64
ts_ns (json_object *v)
{
  /* "ts" as the loader reads it: microseconds with up to 3 decimals */
  const char *s = json_object_get_string (v);
  double d = g_ascii_strtod (s, NULL);
  return (gint64) (d * 1000.0 + (d >= 0 ? 0.5 : -0.5));
}

static const char *
str_of (json_object *o, const char *key)
{
  json_object *v;
  return json_object_object_get_ex (o, key, &v) ? json_object_get_string (v) : NULL;
}

static gboolean
int_arg (json_object *ev, const char *key, gint64 *out)
{
  json_object *args, *v;
  if (!json_object_object_get_ex (ev, "args", &args) || !json_object_object_get_ex (args, key, &v))
    return FALSE;
  *out = json_object_get_int64 (v);
  return TRUE;
}

typedef struct
{
  gint64       s, d;
  gsize        pos;   /* in the file */
  json_object *obj;
} Slice;

/* by start, then file order: of two slices with the same ts and dur,
 * Perfetto nests the later one in the earlier */
static gint
slice_cmp (gconstpointer a, gconstpointer b)
{
  const Slice *x = a, *y = b;
  if (x->s != y->s)
    return (x->s > y->s) - (x->s < y->s);
  return (x->pos > y->pos) - (x->pos < y->pos);
}

static gboolean
is_gpu_op (json_object *ev)
{
  const char *cat = str_of (ev, "cat"), *ph = str_of (ev, "ph");
  return cat != NULL && ph != NULL && strcmp (ph, "X") == 0 &&
         (strcmp (cat, "kernel") == 0 || strcmp (cat, "gpu_memcpy") == 0 || strcmp (cat, "gpu_memset") == 0);
}

static char *
track_of (json_object *ev)
{
  return g_strdup_printf ("%s/%s", str_of (ev, "pid"), str_of (ev, "tid"));
}

/* The ac2g flow ends of a file and the slice each binds to (Perfetto's bp
 * "e" rule: the innermost X slice of its track open at its ts). good_out:
 * adds "rank:id" of each that binds to the GPU op of its correlation; else
 * every flow in input_good must bind so. Returns the flows checked. */
static guint
flow_bindings (const char *what, const char *path, json_object *doc, GHashTable *input_good, GHashTable *good_out)
{
  json_object *events, *di, *rv;
  int rank = 0;
  guint n_checked = 0;
  if (!json_object_object_get_ex (doc, "traceEvents", &events))
    return 0;
  if (json_object_object_get_ex (doc, "distributedInfo", &di) && json_object_object_get_ex (di, "rank", &rv))
    rank = json_object_get_int (rv);
  {
    g_autoptr (GHashTable) by_track = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                             (GDestroyNotify) g_array_unref);
    for (gsize j = 0; j < json_object_array_length (events); j++)
      {
        json_object *x = json_object_array_get_idx (events, j), *xts, *xdur;
        GArray *list;
        Slice sl;
        char *xt;
        if (g_strcmp0 (str_of (x, "ph"), "X") != 0 || !json_object_object_get_ex (x, "ts", &xts) ||
            !json_object_object_get_ex (x, "dur", &xdur))
          continue;
        sl.s = ts_ns (xts);
        sl.d = ts_ns (xdur);
        sl.pos = j;
        sl.obj = x;
        xt = track_of (x);
        list = g_hash_table_lookup (by_track, xt);
        if (list == NULL)
          {
            list = g_array_new (FALSE, FALSE, sizeof (Slice));
            g_hash_table_insert (by_track, xt, list);
          }
        else
          g_free (xt);
        g_array_append_val (list, sl);
      }
    {
      GHashTableIter it;
      gpointer value;
      g_hash_table_iter_init (&it, by_track);
      while (g_hash_table_iter_next (&it, NULL, &value))
        g_array_sort (value, slice_cmp);
    }
    for (gsize i = 0; i < json_object_array_length (events); i++)
      {
        json_object *f = json_object_array_get_idx (events, i), *id, *fts;
        g_autofree char *track = NULL;
        json_object *best = NULL;
        gint64 best_dur = G_MAXINT64, t, corr;
        GArray *list;
        guint lo = 0, hi;
        if (g_strcmp0 (str_of (f, "ph"), "f") != 0 || g_strcmp0 (str_of (f, "cat"), "ac2g") != 0 ||
            !json_object_object_get_ex (f, "id", &id) || !json_object_object_get_ex (f, "ts", &fts))
          continue;
        track = track_of (f);
        t = ts_ns (fts);
        list = g_hash_table_lookup (by_track, track);
        if (list == NULL)
          continue;
        hi = list->len;
        while (lo < hi) /* first slice starting after t */
          {
            guint mid = lo + (hi - lo) / 2;
            if (g_array_index (list, Slice, mid).s <= t)
              lo = mid + 1;
            else
              hi = mid;
          }
        /* back over the slices starting by t (the enclosing ones are the
         * nearest, a few levels deep); the first of the shortest found is
         * the innermost (later in the file on a tie) */
        for (guint j = lo, k = 0; j > 0 && k < 256; j--, k++)
          {
            const Slice *sl = &g_array_index (list, Slice, j - 1);
            /* open at t: a slice ending at t has closed (Perfetto ends
             * slices before it begins the ones of the same time) */
            if (sl->d > 0 ? sl->s + sl->d <= t : sl->s != t)
              continue;
            if (sl->d < best_dur)
              {
                best_dur = sl->d;
                best = sl->obj;
              }
          }
        {
          g_autofree char *key = g_strdup_printf ("%d:%" G_GINT64_FORMAT, rank, json_object_get_int64 (id));
          gboolean ok = best != NULL && is_gpu_op (best) && int_arg (best, "correlation", &corr) &&
                        corr == json_object_get_int64 (id);
          if (good_out != NULL && ok)
            g_hash_table_add (good_out, g_steal_pointer (&key));
          else if (input_good != NULL && g_hash_table_contains (input_good, key))
            {
              n_checked++;
              if (!ok)
                g_error ("%s: %s: the flow %" G_GINT64_FORMAT " at %" G_GINT64_FORMAT " binds to '%s' (%s), not to "
                         "its op as in the input",
                         what, path, json_object_get_int64 (id), t, best != NULL ? str_of (best, "name") : "nothing",
                         best != NULL ? str_of (best, "cat") : "-");
            }
        }
      }
  }
  return n_checked;
}

/* TRUE while every input file read records its collectives (below) */
static gboolean inputs_record_collectives;

/* Every collective kernel (args "Collective name") has ProcessGroupNCCL's
 * record_param_comms cpu_op with its External id; the first kernel without
 * one is returned in *missing. */
static gboolean
collectives_recorded (json_object *doc, const char **missing)
{
  json_object *events;
  g_autoptr (GHashTable) rpc = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  gboolean ok = TRUE;
  if (!json_object_object_get_ex (doc, "traceEvents", &events))
    return TRUE;
  for (gsize i = 0; i < json_object_array_length (events); i++)
    {
      json_object *ev = json_object_array_get_idx (events, i);
      gint64 ext;
      if (g_strcmp0 (str_of (ev, "name"), "record_param_comms") == 0 && int_arg (ev, "External id", &ext))
        g_array_append_val (ids, ext);
    }
  for (guint i = 0; i < ids->len; i++)
    g_hash_table_add (rpc, &g_array_index (ids, gint64, i));
  for (gsize i = 0; i < json_object_array_length (events) && ok; i++)
    {
      json_object *ev = json_object_array_get_idx (events, i), *args;
      gint64 ext;
      if (!is_gpu_op (ev) || !json_object_object_get_ex (ev, "args", &args) ||
          !json_object_object_get_ex (args, "Collective name", NULL))
        continue;
      if (!int_arg (ev, "External id", &ext) || !g_hash_table_contains (rpc, &ext))
        {
          ok = FALSE;
          if (missing != NULL)
            *missing = str_of (ev, "name");
        }
    }
  return ok;
}

/* Tracks (pid/tid) of X events with no thread_name in a file, added to set. */
static void
unnamed_tracks (const char *path, GHashTable *set)
{
  gsize len;
  g_autofree char *text = weft_test_read_gz (path, &len);
  json_object *doc = json_tokener_parse (text), *events;
  g_autoptr (GHashTable) named = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GPtrArray) tracks = g_ptr_array_new_with_free_func (g_free);
  if (doc == NULL || !json_object_object_get_ex (doc, "traceEvents", &events))
    return;
  for (gsize i = 0; i < json_object_array_length (events); i++)
    {
      json_object *ev = json_object_array_get_idx (events, i);
      const char *ph = str_of (ev, "ph");
      if (ph != NULL && strcmp (ph, "M") == 0 && g_strcmp0 (str_of (ev, "name"), "thread_name") == 0)
        g_hash_table_add (named, track_of (ev));
      else if (ph != NULL && strcmp (ph, "X") == 0)
        g_ptr_array_add (tracks, track_of (ev));
    }
  for (guint i = 0; i < tracks->len; i++)
    if (!g_hash_table_contains (named, g_ptr_array_index (tracks, i)))
      g_hash_table_add (set, g_strdup (g_ptr_array_index (tracks, i)));
  json_object_put (doc);
}

static void
check_file (const char *what, const char *path, gboolean input_named_lanes, GHashTable *input_unnamed,
            GHashTable *input_good)
{
  gsize len;
  g_autofree char *text = weft_test_read_gz (path, &len);
  json_object *doc = json_tokener_parse (text), *events;
  g_autoptr (GHashTable) named = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GHashTable) tracks = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  guint n_flows = 0;

  g_assert_nonnull (doc);
  g_assert_true (json_object_object_get_ex (doc, "traceEvents", &events));
  for (gsize i = 0; i < json_object_array_length (events); i++)
    {
      json_object *ev = json_object_array_get_idx (events, i);
      const char *ph = str_of (ev, "ph");
      if (ph != NULL && strcmp (ph, "M") == 0 && g_strcmp0 (str_of (ev, "name"), "thread_name") == 0)
        g_hash_table_add (named, track_of (ev));
      else if (ph != NULL && strcmp (ph, "X") == 0)
        g_hash_table_add (tracks, track_of (ev));
      if (is_gpu_op (ev))
        {
          gint64 stream, tid;
          json_object *t;
          /* HTA groups kernels by args.stream: it must be the op's tid */
          if (int_arg (ev, "stream", &stream) && json_object_object_get_ex (ev, "tid", &t))
            {
              tid = json_object_get_int64 (t);
              if (stream != tid)
                g_error ("%s: %s: '%s' on tid %" G_GINT64_FORMAT " has args.stream %" G_GINT64_FORMAT, what, path,
                         str_of (ev, "name"), tid, stream);
            }
        }
    }
  /* every flow end binds to the op of its correlation: the innermost X
   * slice of its track open at its ts (Perfetto's bp "e" rule), where it
   * did in the input */
  n_flows = flow_bindings (what, path, doc, input_good, NULL);
  /* where the input records every collective, so does the output (an
   * inserted or duplicated one too) */
  {
    const char *missing = NULL;
    if (inputs_record_collectives && !collectives_recorded (doc, &missing))
      g_error ("%s: %s: the collective kernel '%s' has no record_param_comms", what, path, missing);
  }
  if (input_named_lanes)
    {
      GHashTableIter it;
      gpointer key;
      g_hash_table_iter_init (&it, tracks);
      while (g_hash_table_iter_next (&it, &key, NULL))
        if (!g_hash_table_contains (named, key) && !g_hash_table_contains (input_unnamed, key))
          g_error ("%s: %s: lane %s has no thread_name", what, path, (const char *) key);
    }
  g_test_message ("%s: %s: %u flows checked", what, path, n_flows);
  json_object_put (doc);
}

/* An input file: its unnamed tracks and its flows that bind right. */
static gboolean
names_lanes (const char *path, GHashTable *unnamed, GHashTable *good)
{
  gsize len;
  g_autofree char *text = weft_test_read_gz (path, &len);
  json_object *doc = json_tokener_parse (text);
  unnamed_tracks (path, unnamed);
  if (doc != NULL)
    {
      flow_bindings ("input", path, doc, NULL, good);
      inputs_record_collectives &= collectives_recorded (doc, NULL);
    }
  json_object_put (doc);
  return strstr (text, "\"thread_name\"") != NULL;
}

/* Every trace file under path (a file or a folder, any depth). */
static gboolean
read_inputs (const char *path, GHashTable *unnamed, GHashTable *good)
{
  gboolean named = FALSE;
  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_autoptr (GDir) in = g_dir_open (path, 0, NULL);
      const char *name;
      while (in != NULL && (name = g_dir_read_name (in)) != NULL)
        {
          g_autofree char *f = g_build_filename (path, name, NULL);
          if (g_file_test (f, G_FILE_TEST_IS_DIR))
            named |= read_inputs (f, unnamed, good);
          else if (g_str_has_suffix (name, ".json") || g_str_has_suffix (name, ".json.gz"))
            named |= names_lanes (f, unnamed, good);
        }
      return named;
    }
  return names_lanes (path, unnamed, good);
}

/* ---- one round trip ---------------------------------------------------------------- */

static guint
unexplained (WeftSolver *solver)
{
  WeftSolverStats st;
  weft_solver_stats (solver, &st);
  return st.n_unexplained;
}

/* An edit of a session: a script, or Apply a Strategy. */
typedef void (*EditFn) (WeftEditSession *s, const char *label, gconstpointer data);

static void
edit_script (WeftEditSession *s, const char *label, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  json_object *script = json_tokener_parse (data);
  g_assert_nonnull (script);
  if (!weft_edit_session_apply_script (s, script, label, NULL, &error))
    g_error ("%s: the script does not apply: %s", label, error->message);
  json_object_put (script);
}

static void
edit_apply (WeftEditSession *s, const char *label, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  const WeftApplyParams *p = data;
  WeftApplyReport rep;
  if (!weft_apply_strategy (s, p, &rep, &error))
    g_error ("%s: the strategy does not apply: %s", label, error->message);
  g_assert_cmpuint (rep.n_collectives, >, 0);
}

/* start and end of every op of the session's solver, node by node */
static GArray *
schedule (WeftEditSession *s)
{
  WeftTrace *trace = weft_edit_session_get_trace (s);
  WeftSolver *solver = weft_edit_session_get_solver (s);
  GArray *out = g_array_new (FALSE, FALSE, sizeof (gint64));
  for (guint r = 0; r < trace->ranks->len; r++)
    for (guint32 e = 0; e < weft_trace_rank (trace, r)->events->len; e++)
      if (weft_solver_is_node (solver, r, e))
        {
          gint64 v[3] = { ((gint64) r << 32) | e, weft_solver_start (solver, r, e), weft_solver_end (solver, r, e) };
          g_array_append_vals (out, v, 3);
        }
  return out;
}

static void
round_trip_with (const char *label, const char *path, EditFn edit, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  WeftTrace *trace = load (path);
  g_autoptr (WeftEditSession) s = NULL;
  g_autofree char *out = g_build_filename (weft_test_tmpdir (), label, NULL);
  g_autoptr (GArray) before = NULL, after = NULL, loaded = NULL, undone = NULL;
  g_autoptr (WeftTrace) back = NULL;
  g_autoptr (WeftSolver) back_solver = NULL;
  g_autoptr (GDir) dir = NULL;
  guint base_unexplained;
  gboolean named = FALSE;
  const char *name;
  g_autoptr (GHashTable) unnamed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GHashTable) good = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  inputs_record_collectives = TRUE;
  named = read_inputs (path, unnamed, good);

  s = weft_edit_session_new (trace, path, &error);
  g_assert_no_error (error);
  base_unexplained = unexplained (weft_edit_session_get_solver (s));
  loaded = schedule (s);
  edit (s, label, data);
  before = figures (weft_edit_session_get_solver (s));
  g_assert_true (weft_edit_session_save (s, out, ".json", &error));
  g_assert_no_error (error);

  back = load (out);
  back_solver = weft_solver_new (back, &error);
  g_assert_no_error (error);
  after = figures (back_solver);
  compare (label, before, after);
  if (unexplained (back_solver) > base_unexplained)
    g_error ("%s: %u ops start unexplained after reopening (%u as loaded)", label, unexplained (back_solver),
             base_unexplained);

  dir = g_dir_open (out, 0, &error);
  g_assert_no_error (error);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *f = g_build_filename (out, name, NULL);
      check_file (label, f, named, unnamed, good);
    }
  /* undo of everything gives the schedule as loaded, node for node */
  while (weft_edit_session_can_undo (s))
    g_assert_true (weft_edit_session_undo (s, NULL));
  undone = schedule (s);
  if (undone->len != loaded->len || memcmp (undone->data, loaded->data, loaded->len * sizeof (gint64)) != 0)
    g_error ("%s: undoing every edit does not give the schedule as loaded", label);
  g_test_message ("%s: step %.1f us, critical path %.1f us, reopened alike", label,
                  g_array_index (before, StepFigures, before->len - 1).m.step_time / 1e3,
                  g_array_index (before, StepFigures, before->len - 1).m.cp_length / 1e3);
}

static void
round_trip (const char *label, const char *path, const char *script_text)
{
  round_trip_with (label, path, edit_script, script_text);
}

/* Apply a Strategy (the window's dialog, weft-cli apply) on the trace, with
 * each strategy at degree 2 (or the given one). */
static void
run_apply (const char *trace_label, const char *path, const WeftApplyStrategy *strategies, guint n, int degree)
{
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *label = g_strdup_printf ("%s-apply-%s-%d", trace_label,
                                                weft_apply_strategy_to_string (strategies[i]), degree);
      WeftApplyParams p;
      weft_apply_params_init (&p);
      p.strategy = strategies[i];
      p.degree = degree;
      round_trip_with (label, path, edit_apply, &p);
    }
}

typedef struct
{
  const char *kind;
  const char *script;
} EditKind;

static const EditKind fsdp_edits[] = {
  { "shift", "[{\"op\": \"shift\", \"match\": {\"collective\": \"all_gather\", \"nth\": 3}, \"shift_us\": 400}]" },
  { "shift-one-rank",
    "[{\"op\": \"shift\", \"match\": {\"collective\": \"reduce_scatter\", \"rank\": 2, \"nth\": 1}, \"shift_us\": 300, "
    "\"one_rank\": true}]" },
  { "move-stream", "[{\"op\": \"move_stream\", \"match\": {\"collective\": \"reduce_scatter\", \"nth\": 0}, \"stream\": 15}]" },
  { "retime", "[{\"op\": \"set_duration\", \"match\": {\"class\": \"gemm\", \"rank\": 1, \"nth\": 5}, \"dur_us\": 900}]" },
  { "scale-class", "[{\"op\": \"scale\", \"class\": \"gemm\", \"factor\": 0.8}]" },
  /* GEMMs 4x slower: the GPU work runs past the ProfilerStep's end */
  { "scale-class-slower", "[{\"op\": \"scale\", \"class\": \"gemm\", \"factor\": 4}]" },
  { "scale-collective", "[{\"op\": \"scale\", \"collective\": \"all_gather\", \"factor\": 0.5}]" },
  { "insert-kernel",
    "[{\"op\": \"insert_kernel\", \"rank\": 0, \"stream\": 7, \"after\": {\"class\": \"gemm\", \"rank\": 0, \"nth\": 2}, "
    "\"like\": {\"class\": \"gemm\", \"nth\": 0}}]" },
  { "insert-collective",
    "[{\"op\": \"insert_collective\", \"collective\": \"all_reduce\", \"bytes\": 16777216, \"stream\": 21, "
    "\"after\": {\"collective\": \"reduce_scatter\", \"nth\": 0}}]" },
  { "duplicate", "[{\"op\": \"duplicate\", \"match\": {\"class\": \"gemm\", \"rank\": 3, \"nth\": 4}}]" },
  { "duplicate-collective", "[{\"op\": \"duplicate\", \"match\": {\"collective\": \"all_gather\", \"nth\": 2}}]" },
  { "delete", "[{\"op\": \"delete\", \"match\": {\"class\": \"elementwise\", \"rank\": 0, \"nth\": 3}}]" },
};

static void
run_edits (const char *trace_label, const char *path, const EditKind *edits, guint n)
{
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *label = g_strdup_printf ("%s-%s", trace_label, edits[i].kind);
      round_trip (label, path, edits[i].script);
    }
}

static void
test_fsdp8 (void)
{
  g_autofree char *dir = weft_test_require_trace ("synthetic/fsdp8");
  if (dir == NULL)
    return;
  run_edits ("fsdp8", dir, fsdp_edits, G_N_ELEMENTS (fsdp_edits));
}

static void
test_fsdp8_apply (void)
{
  static const WeftApplyStrategy all[] = { WEFT_APPLY_DDP, WEFT_APPLY_FSDP, WEFT_APPLY_TP, WEFT_APPLY_TP_SP,
                                           WEFT_APPLY_EP, WEFT_APPLY_CP_RING, WEFT_APPLY_CP_ALL_GATHER };
  static const WeftApplyStrategy fsdp[] = { WEFT_APPLY_FSDP };
  g_autofree char *dir = weft_test_require_trace ("synthetic/fsdp8");
  if (dir == NULL)
    return;
  run_apply ("fsdp8", dir, all, G_N_ELEMENTS (all), 2);
  run_apply ("fsdp8", dir, fsdp, G_N_ELEMENTS (fsdp), 8);
}

static const EditKind generic_edits[] = {
  { "shift", "[{\"op\": \"shift\", \"match\": {\"collective\": \"any\", \"nth\": 1}, \"shift_us\": 200}]" },
  { "move-stream", "[{\"op\": \"move_stream\", \"match\": {\"class\": \"gemm\", \"rank\": 0, \"nth\": 1}, \"stream\": 77}]" },
  { "retime", "[{\"op\": \"scale\", \"match\": {\"class\": \"elementwise\", \"rank\": 0, \"nth\": 0}, \"factor\": 3}]" },
  { "scale-class", "[{\"op\": \"scale\", \"class\": \"communication\", \"factor\": 0.5}]" },
  { "scale-class-slower", "[{\"op\": \"scale\", \"class\": \"elementwise\", \"factor\": 6}]" },
  { "insert-kernel",
    "[{\"op\": \"insert_kernel\", \"rank\": 0, \"stream\": 7, \"at_us\": 100, \"like\": {\"class\": \"elementwise\", \"nth\": 0}}]" },
  { "duplicate", "[{\"op\": \"duplicate\", \"match\": {\"class\": \"elementwise\", \"rank\": 0, \"nth\": 2}}]" },
  { "delete", "[{\"op\": \"delete\", \"match\": {\"class\": \"elementwise\", \"rank\": 0, \"nth\": 1}}]" },
};

static void
test_dlrm (void)
{
  g_autofree char *dir = weft_test_require_trace ("param/et_replay/tests/inputs/dlrm_kineto");
  if (dir == NULL)
    return;
  run_edits ("dlrm", dir, generic_edits, G_N_ELEMENTS (generic_edits));
}

/* DLRM has no transformer blocks: Apply finds the repeated kernel pattern
 * of its compute stream; its syncs and memcpys meet the inserted ops. */
static void
test_dlrm_apply (void)
{
  static const WeftApplyStrategy some[] = { WEFT_APPLY_DDP, WEFT_APPLY_FSDP, WEFT_APPLY_TP };
  g_autofree char *dir = weft_test_require_trace ("param/et_replay/tests/inputs/dlrm_kineto");
  if (dir == NULL)
    return;
  run_apply ("dlrm", dir, some, G_N_ELEMENTS (some), 4);
}

static void
test_nccl_data (void)
{
  g_autofree char *path = weft_test_require_trace ("HolisticTraceAnalysis/nccl_parser_config/nccl_data.json.gz");
  if (path == NULL)
    return;
  run_edits ("nccl_data", path, generic_edits, G_N_ELEMENTS (generic_edits));
}

/* A composed FSDP + TP step, written by the real CLI. */
static void
test_composed_fsdp_tp (void)
{
  g_autofree char *cli = weft_test_build_path ("weft-cli");
  g_autofree char *out = g_build_filename (weft_test_tmpdir (), "fsdp-tp", NULL);
  g_autoptr (GError) error = NULL;
  int status = 0;
  const char *argv[] = { cli, "compose", "-s", "fsdp,tp", "--dp", "2", "--tp", "2", "--layers", "2", "--out", out, NULL };
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL,
                               &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  run_edits ("fsdp-tp", out, fsdp_edits, G_N_ELEMENTS (fsdp_edits));
  {
    static const WeftApplyStrategy ddp[] = { WEFT_APPLY_DDP };
    run_apply ("fsdp-tp", out, ddp, G_N_ELEMENTS (ddp), 2);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/roundtrip/fsdp8", test_fsdp8);
  g_test_add_func ("/roundtrip/fsdp8-apply", test_fsdp8_apply);
  g_test_add_func ("/roundtrip/dlrm", test_dlrm);
  g_test_add_func ("/roundtrip/dlrm-apply", test_dlrm_apply);
  g_test_add_func ("/roundtrip/nccl-data", test_nccl_data);
  g_test_add_func ("/roundtrip/composed-fsdp-tp", test_composed_fsdp_tp);
  return g_test_run ();
}
