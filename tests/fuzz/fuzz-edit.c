/* fuzz-edit.c: libFuzzer target for edit scripts (weft-cli edit, the edit
 * log replayed from a recovery file).
 *
 * Each input is parsed as JSON and applied as a script to a fresh edit
 * session on a small 2-rank trace (the one tests/test-edit.c describes).
 * Whatever the script, three invariants must hold:
 *   1. applying never crashes, leaks, overflows or hangs, and a refused op
 *      is rolled back cleanly (a "rolling back" warning is a bug);
 *   2. the edit log of what was applied replays on another fresh session
 *      to exactly the same schedule (every op's start, end, stream and
 *      position);
 *   3. undoing every entry gives back exactly the schedule as loaded, and
 *      redoing them all the edited one.
 * Build and run (clang):
 *   CC=clang cmake -S . -B build-fuzz -DWEFT_FUZZ=ON -DWEFT_BUILD_APP=OFF
 *   make -C build-fuzz fuzz-edit
 *   build-fuzz/tests/fuzz/fuzz-edit -max_total_time=120 -max_len=2048 tests/fuzz/seeds-edit
 * WEFT_FUZZ_EDIT_TRACE=PATH uses that trace instead of the built-in one. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weft/weft-edit.h"
#include "weft/weft-load.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
int LLVMFuzzerInitialize (int *argc, char ***argv);

static char *rank_text[2];

static void
log_handler (const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer user_data)
{
  (void) domain;
  (void) user_data;
  if (message != NULL && strstr (message, "rolling back") != NULL)
    {
      fprintf (stderr, "fuzz-edit: a rollback failed: %s\n", message);
      abort ();
    }
  if (level & (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_ERROR))
    {
      fprintf (stderr, "fuzz-edit: %s\n", message ? message : "");
      abort ();
    }
}

static void
add_kernel (GString *s, const char *name, int stream, double ts, double dur, const char *extra)
{
  g_string_append_printf (s,
                          ",\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": %d, "
                          "\"ts\": %.3f, \"dur\": %.3f, \"args\": {\"stream\": %d%s%s}}",
                          name, stream, ts, dur, stream, extra ? ", " : "", extra ? extra : "");
}

static char *
make_rank (int rank)
{
  GString *s = g_string_new (NULL);
  const char *pg = "\"dtype\": \"BFloat16\", \"Group size\": 2, \"Process Group Name\": \"0\", "
                   "\"Process Group Description\": \"default_pg\", \"Process Group Ranks\": \"[0, 1]\"";
  g_autofree char *ar = g_strdup_printf ("\"Collective name\": \"allreduce\", \"In msg nelems\": 16777216, "
                                         "\"Out msg nelems\": 16777216, %s, \"Seq\": 1", pg);
  g_autofree char *rs = g_strdup_printf ("\"Collective name\": \"reduce_scatter_tensor_coalesced\", "
                                         "\"In msg nelems\": 8388608, \"Out msg nelems\": 8388608, %s, \"Seq\": 2", pg);
  g_autofree char *ag = g_strdup_printf ("\"Collective name\": \"_allgather_base\", \"In msg nelems\": 8388608, "
                                         "\"Out msg nelems\": 8388608, %s, \"Seq\": 3", pg);

  g_string_append_printf (s, "{\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, \"world_size\": 2}, "
                             "\"baseTimeNanoseconds\": 1767225600000000000, \"traceEvents\": [\n"
                             "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 0, \"tid\": 7, \"args\": {\"name\": \"stream 7 \"}}",
                          rank);
  add_kernel (s, "sm90_xmma_gemm_bf16bf16_bf16f32_a", 7, 10.0, rank == 0 ? 100.0 : 95.0, NULL);
  add_kernel (s, "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 7, rank == 0 ? 110.0 : 105.0, rank == 0 ? 50.0 : 55.0, ar);
  add_kernel (s, "void at::native::vectorized_elementwise_kernel<4>", 7, 160.0, 100.0, NULL);
  add_kernel (s, "sm90_xmma_gemm_bf16bf16_bf16f32_b", 7, 260.0, 50.0, NULL);
  add_kernel (s, "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL", 7, 310.0, 20.0, rs);
  add_kernel (s, "ncclDevKernel_AllGather_RING_LL", 20, 400.0, 20.0, ag);
  g_string_append (s, "\n]}\n");
  return g_string_free (s, FALSE);
}

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  (void) argc;
  (void) argv;
  g_log_set_default_handler (log_handler, NULL);
  g_setenv ("XDG_CACHE_HOME", "/nonexistent-weft-fuzz", TRUE);
  g_setenv ("WEFT_SOLVER_VERIFY", "1", TRUE);   /* check every large re-solve */
  for (int r = 0; r < 2; r++)
    rank_text[r] = make_rank (r);
  return 0;
}

static WeftEditSession *
new_session (void)
{
  WeftTrace *trace;
  WeftEditSession *s;
  GError *error = NULL;
  const char *path = g_getenv ("WEFT_FUZZ_EDIT_TRACE");

  if (path != NULL)
    {
      /* another trace (e.g. a `weft-cli sample` folder: launches, syncs,
       * the ProcessGroupNCCL event pattern) */
      trace = weft_trace_load (path, NULL, NULL, &error);
      if (trace == NULL)
        {
          fprintf (stderr, "fuzz-edit: %s\n", error->message);
          abort ();
        }
      s = weft_edit_session_new (trace, NULL, &error);
      if (s == NULL)
        {
          fprintf (stderr, "fuzz-edit: no session: %s\n", error->message);
          abort ();
        }
      return s;
    }
  trace = weft_trace_new ();

  for (int r = 0; r < 2; r++)
    {
      char name[32];
      WeftRank *rank;
      g_snprintf (name, sizeof name, "rank%d_trace.json", r);
      rank = weft_rank_load_buffer (name, rank_text[r], strlen (rank_text[r]), NULL, &error);
      if (rank == NULL)
        {
          fprintf (stderr, "fuzz-edit: the built-in trace does not load: %s\n", error->message);
          abort ();
        }
      weft_trace_add_rank (trace, rank);
    }
  weft_trace_index (trace);
  s = weft_edit_session_new (trace, NULL, &error);
  if (s == NULL)
    {
      fprintf (stderr, "fuzz-edit: no session: %s\n", error->message);
      abort ();
    }
  return s;
}

/* start, end, stream, position of every live op */
static GArray *
snapshot (WeftEditSession *s)
{
  WeftTrace *trace = weft_edit_session_get_trace (s);
  WeftSolver *solver = weft_edit_session_get_solver (s);
  GArray *out = g_array_new (FALSE, FALSE, sizeof (gint64));

  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);
      for (guint32 e = 0; e < rank->events->len; e++)
        {
          gint64 v[6];
          if (!weft_solver_is_node (solver, r, e))
            continue;
          v[0] = ((gint64) r << 32) | e;
          v[1] = weft_solver_start (solver, r, e);
          v[2] = weft_solver_end (solver, r, e);
          v[3] = weft_rank_lane (rank, weft_solver_op_lane (solver, r, e))->tid;
          v[4] = weft_rank_lane (rank, weft_solver_op_lane (solver, r, e))->pid;
          v[5] = weft_solver_op_position (solver, r, e);
          g_array_append_vals (out, v, 6);
        }
    }
  return out;
}

/* The critical path of every step (and of the whole trace), on every rank
 * and across ranks, never exceeds the step, and its parts add up. */
static void
expect_path_within_steps (WeftEditSession *s, const char *what)
{
  WeftTrace *trace = weft_edit_session_get_trace (s);
  WeftSolver *solver = weft_edit_session_get_solver (s);
  GArray *steps = weft_solver_steps (solver);
  for (guint k = 0; k <= steps->len; k++)
    {
      int step = k < steps->len ? g_array_index (steps, int, k) : WEFT_SOLVER_ALL_STEPS;
      for (guint r = 0; r <= trace->ranks->len; r++)
        {
          WeftMetrics m;
          if (!weft_solver_metrics (solver, r < trace->ranks->len ? r : WEFT_SOLVER_ALL_RANKS, step, &m))
            continue;
          if (m.cp_length > m.step_time ||
              m.cp_compute + m.cp_comm + m.cp_launch + m.cp_wait + m.cp_inferred != m.cp_length)
            {
              fprintf (stderr, "fuzz-edit: %s: step %d rank %u: critical path %" G_GINT64_FORMAT " ns for a %" G_GINT64_FORMAT
                       " ns step (or its parts do not add up)\n", what, step, r, m.cp_length, m.step_time);
              abort ();
            }
        }
    }
  g_array_unref (steps);
}

/* An unedited trace replays exactly: every op at its observed times. */
static void
expect_observed (WeftEditSession *s)
{
  WeftTrace *trace = weft_edit_session_get_trace (s);
  WeftSolver *solver = weft_edit_session_get_solver (s);
  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);
      gint64 off = weft_trace_rank_offset (trace, rank);
      for (guint32 e = 0; e < rank->events->len; e++)
        {
          const WeftEvent *ev = weft_rank_event (rank, e);
          if (!weft_solver_is_node (solver, r, e))
            continue;
          if (weft_solver_start (solver, r, e) != ev->ts + off || weft_solver_end (solver, r, e) != weft_event_end (rank, ev) + off)
            {
              fprintf (stderr, "fuzz-edit: the unedited trace does not replay: rank %u event %u\n", r, e);
              abort ();
            }
        }
    }
}

/* What you save is what you saw: the edited session saved and reopened
 * gives the same step, overlap, exposed communication and critical path
 * (length and parts), whole trace and per step, within 0.1 % of the step. */
static void
expect_save_round_trip (WeftEditSession *s)
{
  static char *dir = NULL;
  GError *error = NULL;
  WeftTrace *back;
  WeftSolver *solver = weft_edit_session_get_solver (s), *back_solver;
  GArray *steps = weft_solver_steps (solver);

  if (dir == NULL)
    dir = g_dir_make_tmp ("fuzz-edit-XXXXXX", NULL);
  if (dir == NULL)
    return;
  if (!weft_edit_session_save (s, dir, ".json", &error))
    {
      fprintf (stderr, "fuzz-edit: the edited trace does not save: %s\n", error->message);
      abort ();
    }
  back = weft_trace_load (dir, NULL, NULL, &error);
  if (back == NULL)
    {
      fprintf (stderr, "fuzz-edit: the saved trace does not load: %s\n", error->message);
      abort ();
    }
  back_solver = weft_solver_new (back, &error);
  if (back_solver == NULL)
    {
      fprintf (stderr, "fuzz-edit: the saved trace has no graph: %s\n", error->message);
      abort ();
    }
  for (guint k = 0; k <= steps->len; k++)
    {
      int step = k < steps->len ? g_array_index (steps, int, k) : WEFT_SOLVER_ALL_STEPS;
      WeftMetrics a, b;
      gboolean oa = weft_solver_metrics (solver, WEFT_SOLVER_ALL_RANKS, step, &a);
      gboolean ob = weft_solver_metrics (back_solver, WEFT_SOLVER_ALL_RANKS, step, &b);
      gint64 tol;
      if (oa != ob)
        {
          fprintf (stderr, "fuzz-edit: step %d: has metrics in the session %d, reopened %d\n", step, oa, ob);
          abort ();
        }
      if (!oa)
        continue;
      tol = MAX (1000, a.step_time / 1000);
      if (ABS (a.step_time - b.step_time) > tol || ABS (a.exposed_comm - b.exposed_comm) > tol ||
          ABS (a.cp_length - b.cp_length) > tol || ABS (a.overlap_pct - b.overlap_pct) > 0.1 ||
          ABS (a.cp_compute - b.cp_compute) > tol || ABS (a.cp_comm - b.cp_comm) > tol ||
          ABS (a.cp_launch - b.cp_launch) > tol || ABS (a.cp_wait - b.cp_wait) > tol ||
          ABS (a.cp_inferred - b.cp_inferred) > tol)
        {
          fprintf (stderr,
                   "fuzz-edit: step %d: saved and reopened, the figures differ: step %" G_GINT64_FORMAT "/%" G_GINT64_FORMAT
                   " path %" G_GINT64_FORMAT "/%" G_GINT64_FORMAT " compute %" G_GINT64_FORMAT "/%" G_GINT64_FORMAT
                   " comm %" G_GINT64_FORMAT "/%" G_GINT64_FORMAT " launch %" G_GINT64_FORMAT "/%" G_GINT64_FORMAT
                   " wait %" G_GINT64_FORMAT "/%" G_GINT64_FORMAT " inferred %" G_GINT64_FORMAT "/%" G_GINT64_FORMAT
                   " overlap %.3f/%.3f\n",
                   step, a.step_time, b.step_time, a.cp_length, b.cp_length, a.cp_compute, b.cp_compute, a.cp_comm, b.cp_comm,
                   a.cp_launch, b.cp_launch, a.cp_wait, b.cp_wait, a.cp_inferred, b.cp_inferred, a.overlap_pct,
                   b.overlap_pct);
          abort ();
        }
    }
  g_array_unref (steps);
  weft_solver_free (back_solver);
  weft_trace_free (back);
}

static void
expect_same (GArray *a, GArray *b, const char *what)
{
  if (a->len != b->len || (a->len > 0 && memcmp (a->data, b->data, a->len * sizeof (gint64)) != 0))
    {
      fprintf (stderr, "fuzz-edit: %s: the schedule differs\n", what);
      abort ();
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  json_tokener *tok;
  json_object *script;
  WeftEditSession *s, *s2;
  GArray *loaded, *done, *replayed, *undone;
  json_object *log;
  GError *error = NULL;

  if (size > 1 << 16)
    return 0;
  tok = json_tokener_new_ex (32);
  script = json_tokener_parse_ex (tok, (const char *) data, (int) size);
  json_tokener_free (tok);
  if (script == NULL)
    return 0;

  s = new_session ();
  expect_observed (s);
  loaded = snapshot (s);
  weft_edit_session_apply_script (s, script, "fuzz", NULL, &error);
  g_clear_error (&error);
  json_object_put (script);
  done = snapshot (s);
  expect_path_within_steps (s, "after the script");
  expect_save_round_trip (s);

  /* 2: the log replays to the same schedule */
  log = weft_edit_session_log (s);
  s2 = new_session ();
  if (!weft_edit_session_apply_script (s2, log, "log", NULL, &error))
    {
      fprintf (stderr, "fuzz-edit: the edit log does not replay: %s\n%s\n", error->message,
               json_object_to_json_string (log));
      abort ();
    }
  replayed = snapshot (s2);
  expect_same (done, replayed, "replayed log");
  json_object_put (log);

  /* 3: undo everything */
  while (weft_edit_session_can_undo (s))
    if (!weft_edit_session_undo (s, &error))
      {
        fprintf (stderr, "fuzz-edit: undo failed: %s\n", error->message);
        abort ();
      }
  undone = snapshot (s);
  expect_same (loaded, undone, "after undoing everything");

  /* 4: and redoing everything gives the edited schedule again */
  while (weft_edit_session_can_redo (s))
    if (!weft_edit_session_redo (s, &error))
      {
        fprintf (stderr, "fuzz-edit: redo failed: %s\n", error->message);
        abort ();
      }
  g_array_free (undone, TRUE);
  undone = snapshot (s);
  expect_same (done, undone, "after redoing everything");

  g_array_free (loaded, TRUE);
  g_array_free (done, TRUE);
  g_array_free (replayed, TRUE);
  g_array_free (undone, TRUE);
  weft_edit_session_free (s);
  weft_edit_session_free (s2);
  return 0;
}
