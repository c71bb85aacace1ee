/* edit-fixture.c: see edit-fixture.h. */
#include "config.h"

#include <string.h>

#include "edit-fixture.h"

/* ---- the trace ----------------------------------------------------------------- */

static void
add_kernel (GString *s, const char *name, int stream, double ts, double dur, int corr, const char *extra_args)
{
  g_string_append_printf (s,
                          "    {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": %d, "
                          "\"ts\": %.3f, \"dur\": %.3f, \"args\": {\"device\": 0, \"stream\": %d, \"correlation\": %d%s%s}},\n",
                          name, stream, ts, dur, stream, corr, extra_args ? ", " : "", extra_args ? extra_args : "");
}

static char *
coll_args (const char *coll_name, int seq, gint64 nelems)
{
  return g_strdup_printf ("\"Collective name\": \"%s\", \"In msg nelems\": %" G_GINT64_FORMAT
                          ", \"Out msg nelems\": %" G_GINT64_FORMAT ", \"dtype\": \"BFloat16\", "
                          "\"Group size\": 2, \"Process Group Name\": \"0\", \"Process Group Description\": "
                          "\"default_pg\", \"Process Group Ranks\": \"[0, 1]\", \"Seq\": %d",
                          coll_name, nelems, nelems, seq);
}

static char *
trace_text (int rank)
{
  GString *s = g_string_new (NULL);
  g_autofree char *ar = coll_args ("allreduce", 1, 16 << 20);
  g_autofree char *rs = coll_args ("reduce_scatter_tensor_coalesced", 2, 8 << 20);
  g_autofree char *ag = coll_args ("_allgather_base", 3, 8 << 20);

  g_string_append_printf (s,
                          "{\n  \"schemaVersion\": 1,\n"
                          "  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, \"world_size\": 2},\n"
                          "  \"baseTimeNanoseconds\": %" G_GINT64_FORMAT ",\n  \"traceEvents\": [\n",
                          rank, BASE_NS);
  g_string_append (s, "    {\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 0, \"tid\": 7, \"args\": {\"name\": \"stream 7 \"}},\n");
  add_kernel (s, "sm90_xmma_gemm_bf16bf16_bf16f32_a", 7, 10.0, rank == 0 ? 100.0 : 95.0, 101, NULL);
  add_kernel (s, "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 7, rank == 0 ? 110.0 : 105.0, rank == 0 ? 50.0 : 55.0,
              102, ar);
  add_kernel (s, "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16> >", 7,
              160.0, 100.0, 103, NULL);
  add_kernel (s, "sm90_xmma_gemm_bf16bf16_bf16f32_b", 7, 260.0, 50.0, 104, NULL);
  add_kernel (s, "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL", 7, 310.0, 20.0, 105, rs);
  add_kernel (s, "ncclDevKernel_AllGather_RING_LL", 20, 400.0, 20.0, 106, ag);
  g_string_append (s, "    {\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"name\": \"end\", \"pid\": 1, \"tid\": 1, \"ts\": 500.000, \"s\": \"t\"}\n");
  g_string_append (s, "  ],\n  \"traceName\": \"test-edit\"\n}\n");
  return g_string_free (s, FALSE);
}

/* Writes the 2-rank trace into a fresh folder and returns its path. */
char *
write_trace (const char *name)
{
  g_autofree char *dir = g_build_filename (weft_test_tmpdir (), name, NULL);
  for (int r = 0; r < 2; r++)
    {
      g_autofree char *text = trace_text (r);
      g_autofree char *file = g_strdup_printf ("%s/rank%d_trace.json", name, r);
      g_free (weft_test_write_file (file, text, -1));
    }
  return g_steal_pointer (&dir);
}

WeftEditSession *
open_session (const char *path)
{
  g_autoptr (GError) error = NULL;
  WeftTrace *trace = weft_trace_load (path, NULL, NULL, &error);
  WeftEditSession *session;

  g_assert_no_error (error);
  g_assert_nonnull (trace);
  g_assert_cmpuint (trace->ranks->len, ==, 2);
  session = weft_edit_session_new (trace, path, &error);
  g_assert_no_error (error);
  g_assert_nonnull (session);
  return session;
}

/* ---- finding ops and snapshots ------------------------------------------------- */

/* The live op named name on rank number r (the first by event index; with
 * nth > 0 the nth one). */
WeftEventRef
find_nth (WeftEditSession *s, int r, const char *name, guint nth)
{
  WeftTrace *trace = weft_edit_session_get_trace (s);
  WeftSolver *solver = weft_edit_session_get_solver (s);
  int ri = weft_trace_find_rank (trace, r);
  WeftRank *rank;

  g_assert_cmpint (ri, >=, 0);
  rank = weft_trace_rank (trace, ri);
  for (guint32 e = 0; e < rank->events->len; e++)
    if (weft_solver_is_node (solver, ri, e) && strcmp (weft_rank_string (rank, weft_rank_event (rank, e)->name), name) == 0)
      {
        if (nth == 0)
          return (WeftEventRef) { (guint) ri, e };
        nth--;
      }
  g_error ("rank %d: no live op %s", r, name);
  return (WeftEventRef) { 0, 0 };
}

WeftEventRef
find_op (WeftEditSession *s, int r, const char *name)
{
  return find_nth (s, r, name, 0);
}

gint64
start_of (WeftEditSession *s, int r, const char *name)
{
  WeftEventRef op = find_op (s, r, name);
  return weft_solver_start (weft_edit_session_get_solver (s), op.rank_index, op.event);
}

gint64
end_of (WeftEditSession *s, int r, const char *name)
{
  WeftEventRef op = find_op (s, r, name);
  return weft_solver_end (weft_edit_session_get_solver (s), op.rank_index, op.event);
}

gint64
stream_of (WeftEditSession *s, int r, const char *name)
{
  WeftEventRef op = find_op (s, r, name);
  WeftTrace *trace = weft_edit_session_get_trace (s);
  guint32 lane = weft_solver_op_lane (weft_edit_session_get_solver (s), op.rank_index, op.event);
  return weft_rank_lane (weft_trace_rank (trace, op.rank_index), lane)->tid;
}

/* Every live op: times, stream, position (the solver's view), by (rank, event). */
GArray *
snapshot (WeftEditSession *s)
{
  WeftTrace *trace = weft_edit_session_get_trace (s);
  WeftSolver *solver = weft_edit_session_get_solver (s);
  GArray *out = g_array_new (FALSE, FALSE, sizeof (OpState));

  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);
      for (guint32 e = 0; e < rank->events->len; e++)
        {
          OpState st;
          guint32 lane;
          if (!weft_solver_is_node (solver, r, e))
            continue;
          g_assert_false (weft_rank_event (rank, e)->flags & WEFT_EVENT_DELETED);
          lane = weft_solver_op_lane (solver, r, e);
          st.rank_index = r;
          st.event = e;
          st.start = weft_solver_start (solver, r, e);
          st.end = weft_solver_end (solver, r, e);
          st.stream = weft_rank_lane (rank, lane)->tid;
          st.position = weft_solver_op_position (solver, r, e);
          g_array_append_val (out, st);
        }
    }
  return out;
}

void
assert_same_snapshot (GArray *a, GArray *b, const char *what)
{
  if (a->len != b->len)
    g_error ("%s: %u live ops, expected %u", what, b->len, a->len);
  for (guint i = 0; i < a->len; i++)
    {
      OpState *x = &g_array_index (a, OpState, i);
      OpState *y = &g_array_index (b, OpState, i);
      if (x->rank_index != y->rank_index || x->event != y->event || x->start != y->start || x->end != y->end ||
          x->stream != y->stream || x->position != y->position)
        g_error ("%s: op (rank index %u, event %u): start %" G_GINT64_FORMAT " end %" G_GINT64_FORMAT
                 " stream %" G_GINT64_FORMAT " position %u, expected (rank index %u, event %u) start %" G_GINT64_FORMAT
                 " end %" G_GINT64_FORMAT " stream %" G_GINT64_FORMAT " position %u",
                 what, y->rank_index, y->event, y->start, y->end, y->stream, y->position, x->rank_index, x->event,
                 x->start, x->end, x->stream, x->position);
    }
}

void
edit_fixture_test_init (int *argc, char ***argv)
{
  g_autofree char *cache = NULL;
  g_autofree char *state = NULL;

  g_test_init (argc, argv, NULL);
  cache = g_build_filename (weft_test_tmpdir (), "cache", NULL);
  g_setenv ("XDG_CACHE_HOME", cache, TRUE);
  state = g_build_filename (weft_test_tmpdir (), "state", NULL);
  g_setenv ("XDG_STATE_HOME", state, TRUE);
}
