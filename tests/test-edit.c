/* test-edit.c: the edit session on small 2-rank Kineto traces the test
 * writes as JSON text and loads with the real loader, solved by the real
 * solver.
 *
 * The trace (times in us after baseTimeNanoseconds, both ranks):
 *
 *   stream 7:  G1 gemm      [10, 110)   rank 1: [10, 105)
 *              AR all-reduce [110, 160) rank 1: [105, 160)  (seq 1; rank 1 waits 5 us)
 *              E1 elementwise [160, 260)
 *              G2 gemm      [260, 310)
 *              RS reduce-scatter [310, 330)   (seq 2)
 *   stream 20: AG all-gather [400, 420)       (seq 3)
 *
 * Ops follow each other on a stream with no gap and have no CPU launch, so
 * each op starts when its stream predecessor ends (the first op of a
 * stream at its observed time), and a collective ends at the latest
 * arrival over the ranks + its transfer time (AR: 160 - 110 = 50 us).
 * The expected times below follow from that by hand.
 *
 * Every operation is a table row: do it, check the expected times/counts,
 * undo (everything back exactly as loaded, can-undo FALSE, can-redo TRUE),
 * redo (exactly as after do). */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>
#include <time.h>
#include <utime.h>

#include "testutil.h"
#include "weft/weft.h"
#include "weft/weft-edit.h"
#include "weft/weft-solver.h"

G_DEFINE_AUTOPTR_CLEANUP_FUNC (json_object, json_object_put)

#define BASE_NS G_GINT64_CONSTANT (1767225600000000000)
#define US(x) (BASE_NS + (gint64) ((x) * 1000.0))

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
static char *
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

static WeftEditSession *
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

#define N_G1 "sm90_xmma_gemm_bf16bf16_bf16f32_a"
#define N_G2 "sm90_xmma_gemm_bf16bf16_bf16f32_b"
#define N_AR "ncclDevKernel_AllReduce_Sum_bf16_RING_LL"
#define N_E1 "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16> >"
#define N_RS "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL"
#define N_AG "ncclDevKernel_AllGather_RING_LL"

/* The live op named name on rank number r (the first by event index; with
 * nth > 0 the nth one). */
static WeftEventRef
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

static WeftEventRef
find_op (WeftEditSession *s, int r, const char *name)
{
  return find_nth (s, r, name, 0);
}

static gint64
start_of (WeftEditSession *s, int r, const char *name)
{
  WeftEventRef op = find_op (s, r, name);
  return weft_solver_start (weft_edit_session_get_solver (s), op.rank_index, op.event);
}

static gint64
end_of (WeftEditSession *s, int r, const char *name)
{
  WeftEventRef op = find_op (s, r, name);
  return weft_solver_end (weft_edit_session_get_solver (s), op.rank_index, op.event);
}

static gint64
stream_of (WeftEditSession *s, int r, const char *name)
{
  WeftEventRef op = find_op (s, r, name);
  WeftTrace *trace = weft_edit_session_get_trace (s);
  guint32 lane = weft_solver_op_lane (weft_edit_session_get_solver (s), op.rank_index, op.event);
  return weft_rank_lane (weft_trace_rank (trace, op.rank_index), lane)->tid;
}

typedef struct
{
  guint   rank_index;
  guint32 event;
  gint64  start;
  gint64  end;
  gint64  stream;
  guint   position;
} OpState;

/* Every live op: times, stream, position (the solver's view), by (rank, event). */
static GArray *
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

static void
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

/* ---- the table ------------------------------------------------------------------ */

typedef gboolean (*DoFunc) (WeftEditSession *s, GError **error);
typedef void (*CheckFunc) (WeftEditSession *s);

typedef struct
{
  const char *name;
  DoFunc      func;
  int         live_delta;   /* live ops after do - before */
  CheckFunc   check;        /* the expected schedule after do */
} Row;

/* 1 */
static gboolean
do_set_duration (WeftEditSession *s, GError **error)
{
  return weft_edit_session_set_duration (s, find_op (s, 0, N_G1), 80000, error);
}

static void
check_set_duration (WeftEditSession *s)
{
  /* rank 0 arrives at 90, rank 1 still at 105: AR ends at 105 + 50 */
  g_assert_cmpint (end_of (s, 0, N_G1), ==, US (90));
  for (int r = 0; r < 2; r++)
    {
      g_assert_cmpint (end_of (s, r, N_AR), ==, US (155));
      g_assert_cmpint (start_of (s, r, N_E1), ==, US (155));
      g_assert_cmpint (end_of (s, r, N_G2), ==, US (305));
    }
  g_assert_cmpint (start_of (s, 0, N_AR), ==, US (90));
}

/* 2 */
static gboolean
do_scale_class (WeftEditSession *s, GError **error)
{
  guint n = 0;
  gboolean ok = weft_edit_session_scale_class (s, WEFT_KCLASS_GEMM, 0.5, &n, error);
  if (ok)
    g_assert_cmpuint (n, ==, 4);
  return ok;
}

static void
check_scale_class (WeftEditSession *s)
{
  /* G1: 50 / 47.5 us; AR ends at max(60, 57.5) + 50 = 110; G2 25 us */
  g_assert_cmpint (end_of (s, 0, N_G1), ==, US (60));
  g_assert_cmpint (end_of (s, 1, N_G1), ==, US (57.5));
  for (int r = 0; r < 2; r++)
    {
      g_assert_cmpint (end_of (s, r, N_AR), ==, US (110));
      g_assert_cmpint (start_of (s, r, N_E1), ==, US (110));
      g_assert_cmpint (start_of (s, r, N_G2), ==, US (210));
      g_assert_cmpint (end_of (s, r, N_G2), ==, US (235));
      g_assert_cmpint (end_of (s, r, N_E1) - start_of (s, r, N_E1), ==, 100000); /* not a GEMM */
    }
}

/* 3 */
static gboolean
do_scale_all_reduce (WeftEditSession *s, GError **error)
{
  return weft_edit_session_scale_collective (s, WEFT_COLL_ALL_REDUCE, 0.5, NULL, error);
}

static void
check_scale_all_reduce (WeftEditSession *s)
{
  for (int r = 0; r < 2; r++)
    {
      g_assert_cmpint (end_of (s, r, N_AR), ==, US (135));
      g_assert_cmpint (start_of (s, r, N_E1), ==, US (135));
      g_assert_cmpint (start_of (s, r, N_RS), ==, US (285));
      g_assert_cmpint (end_of (s, r, N_AG), ==, US (420));
    }
}

/* 4 */
static gboolean
do_scale_all_gather (WeftEditSession *s, GError **error)
{
  g_autoptr (json_object) op = json_tokener_parse ("{\"op\":\"scale\",\"collective\":\"all_gather\",\"factor\":0.5}");
  return weft_edit_session_apply_json (s, op, error);
}

static void
check_scale_all_gather (WeftEditSession *s)
{
  for (int r = 0; r < 2; r++)
    {
      g_assert_cmpint (start_of (s, r, N_AG), ==, US (400));
      g_assert_cmpint (end_of (s, r, N_AG), ==, US (410));
      g_assert_cmpint (end_of (s, r, N_AR), ==, US (160));
    }
}

/* 5 */
static gboolean
do_move_time (WeftEditSession *s, GError **error)
{
  return weft_edit_session_move_time (s, find_op (s, 0, N_G2), US (300), TRUE, error);
}

static void
check_move_time (WeftEditSession *s)
{
  g_assert_cmpint (start_of (s, 0, N_G2), ==, US (300));
  g_assert_cmpint (start_of (s, 0, N_RS), ==, US (350));
  g_assert_cmpint (start_of (s, 1, N_G2), ==, US (260));
  /* the reduce-scatter waits for rank 0 on both */
  g_assert_cmpint (end_of (s, 1, N_RS), ==, US (370));
  g_assert_cmpint (end_of (s, 0, N_RS), ==, US (370));
}

/* 6 */
static gboolean
do_move_instance (WeftEditSession *s, GError **error)
{
  return weft_edit_session_move_time (s, find_op (s, 0, N_AR), US (130), TRUE, error);
}

static void
check_move_instance (WeftEditSession *s)
{
  /* both members move by +20 us: arrivals 130 and 125, end 180 */
  g_assert_cmpint (start_of (s, 0, N_AR), ==, US (130));
  g_assert_cmpint (start_of (s, 1, N_AR), ==, US (125));
  for (int r = 0; r < 2; r++)
    {
      g_assert_cmpint (end_of (s, r, N_AR), ==, US (180));
      g_assert_cmpint (start_of (s, r, N_E1), ==, US (180));
    }
}

/* 7 */
static gboolean
do_move_one_rank (WeftEditSession *s, GError **error)
{
  return weft_edit_session_move_time (s, find_op (s, 1, N_AR), US (140), FALSE, error);
}

static void
check_move_one_rank (WeftEditSession *s)
{
  /* only rank 1 arrives later; rank 0 waits for it */
  g_assert_cmpint (start_of (s, 0, N_AR), ==, US (110));
  g_assert_cmpint (start_of (s, 1, N_AR), ==, US (140));
  for (int r = 0; r < 2; r++)
    g_assert_cmpint (end_of (s, r, N_AR), ==, US (190));
}

/* 8 */
static gboolean
do_move_stream (WeftEditSession *s, GError **error)
{
  return weft_edit_session_move_to_stream (s, find_op (s, 0, N_AR), 20, -1, TRUE, error);
}

static void
check_move_stream (WeftEditSession *s)
{
  for (int r = 0; r < 2; r++)
    {
      g_assert_cmpint (stream_of (s, r, N_AR), ==, 20);
      /* the all-reduce still waits for G1 (its producer) ... */
      g_assert_cmpint (start_of (s, r, N_AR), ==, end_of (s, r, N_G1));
      g_assert_cmpint (end_of (s, r, N_AR), ==, US (160));
      /* ... but E1 no longer waits for it: it overlaps */
      g_assert_cmpint (start_of (s, r, N_E1), ==, end_of (s, r, N_G1));
      g_assert_cmpint (start_of (s, r, N_AG), ==, US (400));
    }
  {
    WeftMetrics now, before;
    g_assert_true (weft_edit_session_metrics (s, &now, &before));
    g_assert_cmpfloat (now.overlap_pct, >, before.overlap_pct);
    g_assert_cmpint (now.exposed_comm, <, before.exposed_comm);
  }
}

/* 9 */
static gboolean
do_reorder (WeftEditSession *s, GError **error)
{
  /* stream 7 of rank 0: G1 AR E1 G2 RS -> G1 G2 AR E1 RS */
  return weft_edit_session_reorder (s, find_op (s, 0, N_G2), 1, error);
}

static void
check_reorder (WeftEditSession *s)
{
  g_assert_cmpint (start_of (s, 0, N_G2), ==, US (110));
  g_assert_cmpint (start_of (s, 0, N_AR), ==, US (160));
  for (int r = 0; r < 2; r++)
    g_assert_cmpint (end_of (s, r, N_AR), ==, US (210));
  g_assert_cmpint (start_of (s, 0, N_E1), ==, US (210));
  g_assert_cmpint (start_of (s, 1, N_G2), ==, US (310));
}

/* 10 */
static gboolean
do_delete_kernel (WeftEditSession *s, GError **error)
{
  WeftEventRef op = find_op (s, 0, N_E1);
  return weft_edit_session_delete (s, &op, 1, error);
}

static void
check_delete_kernel (WeftEditSession *s)
{
  /* G2 follows the all-reduce directly on rank 0 */
  g_assert_cmpint (start_of (s, 0, N_G2), ==, US (160));
  g_assert_cmpint (start_of (s, 1, N_G2), ==, US (260));
  for (int r = 0; r < 2; r++)
    g_assert_cmpint (end_of (s, r, N_RS), ==, US (330));
}

/* 11 */
static gboolean
do_delete_collective (WeftEditSession *s, GError **error)
{
  WeftEventRef op = find_op (s, 1, N_AR);
  return weft_edit_session_delete (s, &op, 1, error);
}

static void
check_delete_collective (WeftEditSession *s)
{
  /* the whole instance is gone: E1 follows G1 on each rank */
  g_assert_cmpint (start_of (s, 0, N_E1), ==, US (110));
  g_assert_cmpint (start_of (s, 1, N_E1), ==, US (105));
}

/* 12 */
static gboolean
do_duplicate_kernel (WeftEditSession *s, GError **error)
{
  WeftEventRef op = find_op (s, 0, N_G2);
  g_autoptr (GArray) out = g_array_new (FALSE, FALSE, sizeof (WeftEventRef));
  gboolean ok = weft_edit_session_duplicate (s, &op, 1, out, error);
  if (ok)
    g_assert_cmpuint (out->len, ==, 1);
  return ok;
}

static void
check_duplicate_kernel (WeftEditSession *s)
{
  g_assert_cmpint (start_of (s, 0, N_G2), ==, US (260));
  g_assert_cmpint (weft_solver_start (weft_edit_session_get_solver (s), find_nth (s, 0, N_G2, 1).rank_index,
                                      find_nth (s, 0, N_G2, 1).event), ==, US (310));
  g_assert_cmpint (start_of (s, 0, N_RS), ==, US (360));
  for (int r = 0; r < 2; r++)
    g_assert_cmpint (end_of (s, r, N_RS), ==, US (380));
}

/* 13 */
static gboolean
do_duplicate_collective (WeftEditSession *s, GError **error)
{
  WeftEventRef op = find_op (s, 0, N_AR);
  return weft_edit_session_duplicate (s, &op, 1, NULL, error);
}

static void
check_duplicate_collective (WeftEditSession *s)
{
  WeftSolver *solver = weft_edit_session_get_solver (s);
  for (int r = 0; r < 2; r++)
    {
      WeftEventRef copy = find_nth (s, r, N_AR, 1);
      g_assert_cmpint (weft_solver_start (solver, copy.rank_index, copy.event), ==, US (160));
      g_assert_cmpint (weft_solver_end (solver, copy.rank_index, copy.event), ==, US (210));
      g_assert_cmpint (start_of (s, r, N_E1), ==, US (210));
    }
}

/* 14 */
static gboolean
do_insert_kernel (WeftEditSession *s, GError **error)
{
  g_autoptr (GPtrArray) palette = weft_trace_palette_kernels (weft_edit_session_get_trace (s));
  const WeftPaletteKernel *g2 = NULL;
  WeftTrace *trace = weft_edit_session_get_trace (s);
  int ri = weft_trace_find_rank (trace, 1);
  WeftRank *rank = weft_trace_rank (trace, ri);
  guint32 lane = WEFT_NONE;

  for (guint i = 0; i < palette->len; i++)
    {
      const WeftPaletteKernel *k = g_ptr_array_index (palette, i);
      if (strcmp (k->name, N_G2) == 0)
        g2 = k;
    }
  g_assert_nonnull (g2);
  g_assert_cmpint (g2->kclass, ==, WEFT_KCLASS_GEMM);
  g_assert_cmpint (g2->median_dur, ==, 50000);
  g_assert_cmpuint (g2->count, ==, 2);
  for (guint l = 0; l < rank->lanes->len; l++)
    if (weft_rank_lane (rank, l)->kind == WEFT_LANE_GPU && weft_rank_lane (rank, l)->tid == 7)
      lane = l;
  g_assert_cmpuint (lane, !=, WEFT_NONE);
  return weft_edit_session_insert_kernel (s, (guint) ri, lane, US (340), g2, -1, NULL, error);
}

static void
check_insert_kernel (WeftEditSession *s)
{
  WeftSolver *solver = weft_edit_session_get_solver (s);
  WeftEventRef copy = find_nth (s, 1, N_G2, 1);
  WeftTrace *trace = weft_edit_session_get_trace (s);
  g_assert_cmpint (weft_solver_start (solver, copy.rank_index, copy.event), ==, US (340));
  g_assert_cmpint (weft_solver_end (solver, copy.rank_index, copy.event), ==, US (390));
  g_assert_cmpint (weft_rank_event (weft_trace_rank (trace, copy.rank_index), copy.event)->kclass, ==,
                   WEFT_KCLASS_GEMM);
}

/* 15 */
static gint64 inserted_transfer;

static gboolean
do_insert_collective (WeftEditSession *s, GError **error)
{
  WeftEditCollSpec spec = { 0 };
  static const int ranks[] = { 0, 1 };
  spec.type = WEFT_COLL_ALL_REDUCE;
  spec.bytes = 64 << 20;
  spec.ranks = ranks;
  spec.n_ranks = 2;
  spec.stream = 20;
  spec.at_time = US (300);
  spec.pg_name = "0";
  spec.dtype = "BFloat16";
  spec.transfer_ns = -1;
  inserted_transfer = weft_cost_model_estimate_group (weft_edit_session_get_cost_model (s), WEFT_COLL_ALL_REDUCE,
                                                      spec.bytes, "0", ranks, 2, NULL);
  return weft_edit_session_insert_collective (s, &spec, NULL, error);
}

static void
check_insert_collective (WeftEditSession *s)
{
  WeftSolver *solver = weft_edit_session_get_solver (s);
  g_assert_cmpint (inserted_transfer, >, 0);
  for (int r = 0; r < 2; r++)
    {
      WeftEventRef copy = find_nth (s, r, N_AR, 1);
      g_assert_cmpint (weft_solver_start (solver, copy.rank_index, copy.event), ==, US (300));
      g_assert_cmpint (weft_solver_end (solver, copy.rank_index, copy.event), ==, US (300) + inserted_transfer);
      g_assert_cmpint (weft_rank_lane (weft_trace_rank (weft_edit_session_get_trace (s), copy.rank_index),
                                       weft_solver_op_lane (solver, copy.rank_index, copy.event))->tid, ==, 20);
      g_assert_cmpint (start_of (s, r, N_AG), ==, MAX (US (400), US (300) + inserted_transfer));
    }
}

/* 16 */
static gboolean
do_move_to_rank (WeftEditSession *s, GError **error)
{
  WeftTrace *trace = weft_edit_session_get_trace (s);
  WeftSolver *solver = weft_edit_session_get_solver (s);
  int r1 = weft_trace_find_rank (trace, 1);
  WeftEventRef out;
  guint32 lane = weft_solver_ensure_stream (solver, (guint) r1, 0, 7);
  gboolean ok = weft_edit_session_move_to_rank (s, find_op (s, 0, N_G2), (guint) r1, lane, US (500), &out, error);
  if (ok)
    g_assert_cmpuint (out.rank_index, ==, (guint) r1);
  return ok;
}

static void
check_move_to_rank (WeftEditSession *s)
{
  WeftSolver *solver = weft_edit_session_get_solver (s);
  WeftEventRef moved = find_nth (s, 1, N_G2, 1);
  g_assert_cmpint (weft_solver_start (solver, moved.rank_index, moved.event), ==, US (500));
  g_assert_cmpint (weft_solver_end (solver, moved.rank_index, moved.event), ==, US (550));
  /* rank 0's reduce-scatter follows E1 now */
  g_assert_cmpint (start_of (s, 0, N_RS), ==, US (260));
  g_assert_cmpint (end_of (s, 1, N_RS), ==, US (330));
}

/* 17 */
static gboolean
do_move_selection (WeftEditSession *s, GError **error)
{
  WeftEventRef ops[2];
  ops[0] = find_op (s, 0, N_G1);
  ops[1] = find_op (s, 0, N_G2);
  return weft_edit_session_move_selection (s, ops, 2, 20000, TRUE, error);
}

static void
check_move_selection (WeftEditSession *s)
{
  g_assert_cmpint (start_of (s, 0, N_G1), ==, US (30));
  for (int r = 0; r < 2; r++)
    g_assert_cmpint (end_of (s, r, N_AR), ==, US (180));
  g_assert_cmpint (start_of (s, 0, N_E1), ==, US (180));
  g_assert_cmpint (start_of (s, 0, N_G2), ==, US (280));
  g_assert_cmpint (start_of (s, 1, N_G2), ==, US (280));
}

/* 18: a script of several high-level operations is one entry each; here one */
static gboolean
do_script_regex (WeftEditSession *s, GError **error)
{
  json_object *op = json_tokener_parse ("{\"op\":\"set_duration\",\"match\":{\"name\":\"gemm.*_b$\"},\"dur_us\":10}");
  gboolean ok = weft_edit_session_apply_json (s, op, error);
  json_object_put (op);
  return ok;
}

static void
check_script_regex (WeftEditSession *s)
{
  for (int r = 0; r < 2; r++)
    {
      g_assert_cmpint (end_of (s, r, N_G2) - start_of (s, r, N_G2), ==, 10000);
      g_assert_cmpint (end_of (s, r, N_G1) - start_of (s, r, N_G1), ==, r == 0 ? 100000 : 95000);
      g_assert_cmpint (end_of (s, r, N_RS), ==, US (290));
    }
}

/* 19: reordering a collective on every rank at once is no deadlock (the
 * moves are checked together; one rank first would be a cycle) */
static gboolean
do_reorder_all_ranks (WeftEditSession *s, GError **error)
{
  g_autoptr (json_object) op =
    json_tokener_parse ("{\"op\":\"move_stream\",\"match\":{\"collective\":\"reduce_scatter\"},\"stream\":7,\"at_us\":90}");
  return weft_edit_session_apply_json (s, op, error);
}

static void
check_reorder_all_ranks (WeftEditSession *s)
{
  /* stream 7: G1 RS AR E1 G2 on both ranks; RS arrivals 110 / 105 */
  for (int r = 0; r < 2; r++)
    {
      g_assert_cmpint (end_of (s, r, N_RS), ==, US (130));
      g_assert_cmpint (start_of (s, r, N_AR), ==, US (130));
      g_assert_cmpint (end_of (s, r, N_AR), ==, US (180));
      g_assert_cmpint (start_of (s, r, N_G2), ==, US (280));
    }
  g_assert_cmpint (start_of (s, 1, N_RS), ==, US (105));
}

/* 20: one rank's member moved behind another op of another stream, then
 * undone: the wait on that op the stream change leaves must go too */
static gboolean
do_move_stream_behind (WeftEditSession *s, GError **error)
{
  return weft_edit_session_move_to_stream (s, find_op (s, 1, N_AR), 20, US (500), FALSE, error);
}

static void
check_move_stream_behind (WeftEditSession *s)
{
  g_assert_cmpint (stream_of (s, 1, N_AR), ==, 20);
  g_assert_cmpint (start_of (s, 1, N_AR), ==, US (420));   /* after the all-gather */
  g_assert_cmpint (end_of (s, 0, N_AR), ==, US (470));
  g_assert_cmpint (start_of (s, 1, N_E1), ==, US (105));
  g_assert_cmpint (start_of (s, 0, N_E1), ==, US (470));
  for (int r = 0; r < 2; r++)
    g_assert_cmpint (end_of (s, r, N_RS), ==, US (640));
}

static const Row rows[] = {
  { "set-duration", do_set_duration, 0, check_set_duration },
  { "scale-class-gemm", do_scale_class, 0, check_scale_class },
  { "scale-all-reduce", do_scale_all_reduce, 0, check_scale_all_reduce },
  { "scale-all-gather-script", do_scale_all_gather, 0, check_scale_all_gather },
  { "move-time", do_move_time, 0, check_move_time },
  { "move-instance", do_move_instance, 0, check_move_instance },
  { "move-one-rank", do_move_one_rank, 0, check_move_one_rank },
  { "move-stream", do_move_stream, 0, check_move_stream },
  { "reorder", do_reorder, 0, check_reorder },
  { "delete-kernel", do_delete_kernel, -1, check_delete_kernel },
  { "delete-collective", do_delete_collective, -2, check_delete_collective },
  { "duplicate-kernel", do_duplicate_kernel, 1, check_duplicate_kernel },
  { "duplicate-collective", do_duplicate_collective, 2, check_duplicate_collective },
  { "insert-kernel", do_insert_kernel, 1, check_insert_kernel },
  { "insert-collective", do_insert_collective, 2, check_insert_collective },
  { "move-to-rank", do_move_to_rank, 0, check_move_to_rank },
  { "move-selection", do_move_selection, 0, check_move_selection },
  { "script-regex", do_script_regex, 0, check_script_regex },
  { "reorder-collective-all-ranks", do_reorder_all_ranks, 0, check_reorder_all_ranks },
  { "move-stream-behind-one-rank", do_move_stream_behind, 0, check_move_stream_behind },
};

static guint n_changed_calls;
static guint n_state_calls;

static void
on_changed (WeftEditSession *s, gpointer data)
{
  n_changed_calls++;
}

static void
on_state (WeftEditSession *s, gboolean modified, gboolean can_undo, gboolean can_redo, gpointer data)
{
  n_state_calls++;
  g_assert_cmpint (can_undo, ==, weft_edit_session_can_undo (s));
  g_assert_cmpint (can_redo, ==, weft_edit_session_can_redo (s));
}

/* Every event's collective (the side table, weft_rank_event_coll()) and
 * the collectives agree: a collective's kernel maps to it, and an event that
 * maps to a collective is its kernel or a CPU op of it (the
 * record_param_comms a save writes for a created one). */
static guint
assert_colls_consistent (WeftEditSession *s, const char *what)
{
  WeftTrace *trace = weft_edit_session_get_trace (s);
  guint total = 0;
  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);
      guint n_mapped = 0, n_cpu = 0;
      for (guint k = 0; k < rank->collectives->len; k++)
        {
          const WeftCollective *c = &g_array_index (rank->collectives, WeftCollective, k);
          if (c->event == WEFT_NONE || c->event >= rank->events->len)
            continue;
          if (weft_rank_event_coll (rank, c->event) != k)
            g_error ("%s: rank %u collective %u: its kernel %u maps to %u", what, r, k, c->event,
                     weft_rank_event_coll (rank, c->event));
        }
      for (guint32 e = 0; e < rank->events->len; e++)
        {
          guint32 k = weft_rank_event_coll (rank, e);
          const WeftEvent *ev = weft_rank_event (rank, e);
          if (k == WEFT_NONE)
            continue;
          n_mapped++;
          g_assert_cmpuint (k, <, rank->collectives->len);
          g_assert_cmpuint (weft_event_coll (rank, ev), ==, k);
          if (g_array_index (rank->collectives, WeftCollective, k).event != e)
            {
              g_assert_cmpint (ev->category, ==, WEFT_CAT_CPU_OP);
              n_cpu++;
            }
        }
      g_assert_cmpuint (n_mapped - n_cpu, <=, rank->collectives->len);
      total += n_mapped;
    }
  return total;
}

static void
test_operation (gconstpointer data)
{
  const Row *row = data;
  g_autofree char *dir = write_trace (row->name);
  g_autoptr (WeftEditSession) s = open_session (dir);
  g_autoptr (GArray) loaded = snapshot (s);
  g_autoptr (GArray) done = NULL;
  g_autoptr (GArray) undone = NULL;
  g_autoptr (GArray) redone = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (json_object) log = NULL;

  /* the unmodified trace replays as observed */
  g_assert_cmpuint (assert_colls_consistent (s, "loaded"), >, 0);
  g_assert_cmpint (start_of (s, 0, N_AR), ==, US (110));
  g_assert_cmpint (start_of (s, 1, N_AR), ==, US (105));
  g_assert_cmpint (end_of (s, 1, N_AR), ==, US (160));
  g_assert_cmpint (end_of (s, 0, N_RS), ==, US (330));
  g_assert_false (weft_edit_session_can_undo (s));
  g_assert_false (weft_edit_session_is_modified (s));

  n_changed_calls = n_state_calls = 0;
  weft_edit_session_set_changed_func (s, on_changed, NULL);
  weft_edit_session_set_state_func (s, on_state, NULL);

  /* do */
  if (!row->func (s, &error))
    g_error ("%s: %s", row->name, error->message);
  done = snapshot (s);
  assert_colls_consistent (s, "after do");
  g_assert_cmpint ((int) done->len - (int) loaded->len, ==, row->live_delta);
  row->check (s);
  g_assert_true (weft_edit_session_can_undo (s));
  g_assert_false (weft_edit_session_can_redo (s));
  g_assert_true (weft_edit_session_is_modified (s));
  g_assert_cmpuint (weft_history_get_undo_depth (weft_edit_session_get_history (s)), ==, 1);
  g_assert_cmpuint (n_changed_calls, >=, 1);
  g_assert_cmpuint (n_state_calls, >=, 1);
  log = weft_edit_session_log (s);
  g_assert_cmpuint (json_object_array_length (log), >=, 1);

  /* undo: exactly as loaded */
  g_assert_true (weft_edit_session_undo (s, &error));
  g_assert_no_error (error);
  undone = snapshot (s);
  assert_same_snapshot (loaded, undone, "after undo");
  assert_colls_consistent (s, "after undo");
  g_assert_false (weft_edit_session_can_undo (s));
  g_assert_true (weft_edit_session_can_redo (s));
  g_assert_false (weft_edit_session_is_modified (s));

  /* redo: exactly as after do */
  g_assert_true (weft_edit_session_redo (s, &error));
  g_assert_no_error (error);
  redone = snapshot (s);
  assert_same_snapshot (done, redone, "after redo");
  assert_colls_consistent (s, "after redo");
  row->check (s);
  g_assert_true (weft_edit_session_can_undo (s));
  g_assert_false (weft_edit_session_can_redo (s));

  /* and undo once more */
  g_assert_true (weft_edit_session_undo (s, &error));
  g_autoptr (GArray) again = snapshot (s);
  assert_same_snapshot (loaded, again, "after the second undo");
  assert_colls_consistent (s, "after the second undo");
}

/* ---- refused cycle ------------------------------------------------------------------ */

/* The model's structure: every lane's event list and every event's lane,
 * flags, ts and dur, as text. */
static char *
model_dump (WeftEditSession *s)
{
  WeftTrace *trace = weft_edit_session_get_trace (s);
  GString *out = g_string_new (NULL);
  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);
      for (guint l = 0; l < rank->lanes->len; l++)
        {
          WeftLane *lane = weft_rank_lane (rank, l);
          g_string_append_printf (out, "r%u l%u:", r, l);
          for (guint i = 0; i < lane->events->len; i++)
            g_string_append_printf (out, " %u", g_array_index (lane->events, guint32, i));
          g_string_append_c (out, '\n');
        }
      for (guint32 e = 0; e < rank->events->len; e++)
        {
          WeftEvent *ev = weft_rank_event (rank, e);
          g_string_append_printf (out, "r%u e%u lane %u flags %u ts %" G_GINT64_FORMAT " dur %" G_GINT64_FORMAT "\n", r, e,
                                  ev->lane, ev->flags, ev->ts, weft_event_dur (rank, ev));
        }
    }
  return g_string_free (out, FALSE);
}

static void
test_cycle_refused (void)
{
  g_autofree char *dir = write_trace ("cycle");
  g_autoptr (WeftEditSession) s = open_session (dir);
  g_autoptr (GArray) loaded = snapshot (s);
  g_autoptr (GArray) after = NULL;
  g_autoptr (GError) error = NULL;
  WeftTrace *trace = weft_edit_session_get_trace (s);
  WeftEventRef rs0 = find_op (s, 0, N_RS);
  guint32 lane_before = weft_rank_event (weft_trace_rank (trace, rs0.rank_index), rs0.event)->lane;
  guint n_events = weft_trace_rank (trace, 0)->events->len;
  guint64 serial = weft_edit_session_get_serial (s);
  g_autofree char *model_before = model_dump (s);

  /* rank 0 issues the reduce-scatter before the all-reduce, rank 1 after
   * it: each waits for the other (an NCCL deadlock) */
  g_assert_false (weft_edit_session_reorder (s, rs0, 1, &error));
  g_assert_error (error, WEFT_ERROR, WEFT_ERROR_CYCLE);
  g_test_message ("refused: %s", error->message);
  after = snapshot (s);
  assert_same_snapshot (loaded, after, "after a refused edit");
  g_assert_false (weft_edit_session_can_undo (s));
  g_assert_false (weft_edit_session_can_redo (s));
  g_assert_false (weft_edit_session_is_modified (s));
  g_assert_cmpuint (weft_edit_session_get_serial (s), ==, serial);
  g_assert_cmpuint (weft_rank_event (weft_trace_rank (trace, rs0.rank_index), rs0.event)->lane, ==, lane_before);
  g_assert_cmpuint (weft_trace_rank (trace, 0)->events->len, ==, n_events);
  {
    g_autofree char *model_after = model_dump (s);
    g_assert_cmpstr (model_after, ==, model_before);
  }

  /* the same through a script, and through a move to a stream position */
  g_clear_error (&error);
  {
    json_object *op = json_tokener_parse ("{\"op\":\"reorder\",\"match\":{\"collective\":\"reduce_scatter\",\"rank\":0},\"position\":0}");
    g_assert_false (weft_edit_session_apply_json (s, op, &error));
    json_object_put (op);
    g_assert_error (error, WEFT_ERROR, WEFT_ERROR_CYCLE);
  }
  g_clear_pointer (&after, g_array_unref);
  after = snapshot (s);
  assert_same_snapshot (loaded, after, "after a refused script edit");
  g_assert_false (weft_edit_session_can_undo (s));
  {
    g_autofree char *model_after = model_dump (s);
    g_assert_cmpstr (model_after, ==, model_before);
  }

  /* the same reorder asked as a move to a time on its stream (what a drag
   * does): refused too, nothing changes */
  g_clear_error (&error);
  g_assert_false (weft_edit_session_move_to_lane (s, rs0, weft_rank_event (weft_trace_rank (trace, rs0.rank_index), find_op (s, 0, N_G1).event)->lane,
                                          US (50), FALSE, &error));
  g_assert_error (error, WEFT_ERROR, WEFT_ERROR_CYCLE);
  {
    g_autofree char *model_after = model_dump (s);
    g_assert_cmpstr (model_after, ==, model_before);
  }

  /* a good edit still works afterwards, and the refused one left no trace in the history */
  g_assert_true (weft_edit_session_set_duration (s, find_op (s, 0, N_G1), 90000, NULL));
  g_assert_cmpuint (weft_history_get_undo_depth (weft_edit_session_get_history (s)), ==, 1);
}

/* ---- gestures ------------------------------------------------------------------------ */

static void
test_drag_gesture (void)
{
  g_autofree char *dir = write_trace ("drag");
  g_autoptr (WeftEditSession) s = open_session (dir);
  g_autoptr (GArray) loaded = snapshot (s);
  g_autoptr (GArray) now = NULL;
  WeftEventRef ar = find_op (s, 0, N_AR);

  /* a drag of the all-reduce: many motions, one entry */
  weft_edit_session_begin_gesture (s);
  for (int i = 1; i <= 50; i++)
    g_assert_true (weft_edit_session_move_time (s, ar, US (110 + i), TRUE, NULL));
  /* ... and across to stream 20 in the same gesture */
  g_assert_true (weft_edit_session_move_to_stream (s, ar, 20, -1, TRUE, NULL));
  g_assert_false (weft_edit_session_can_undo (s));
  weft_edit_session_end_gesture (s);
  g_assert_cmpuint (weft_history_get_undo_depth (weft_edit_session_get_history (s)), ==, 1);
  g_assert_cmpint (start_of (s, 0, N_AR), ==, US (160));
  g_assert_cmpint (stream_of (s, 1, N_AR), ==, 20);
  {
    /* the log has the final positions only: 2 min starts + the stream
     * moves of both ranks as one entry (they are checked together) */
    g_autoptr (json_object) log = weft_edit_session_log (s);
    json_object *moves;
    g_assert_cmpuint (json_object_array_length (log), ==, 3);
    g_assert_true (json_object_object_get_ex (json_object_array_get_idx (log, 2), "moves", &moves));
    g_assert_cmpuint (json_object_array_length (moves), ==, 2);
  }
  g_assert_true (weft_edit_session_undo (s, NULL));
  now = snapshot (s);
  assert_same_snapshot (loaded, now, "after undoing the drag");

  /* a cancelled drag (Escape) leaves nothing */
  weft_edit_session_begin_gesture (s);
  g_assert_true (weft_edit_session_move_time (s, ar, US (150), TRUE, NULL));
  g_assert_true (weft_edit_session_move_time (s, ar, US (170), TRUE, NULL));
  g_assert_true (weft_edit_session_cancel_gesture (s, NULL));
  g_clear_pointer (&now, g_array_unref);
  now = snapshot (s);
  assert_same_snapshot (loaded, now, "after a cancelled drag");
  g_assert_false (weft_edit_session_can_undo (s));
  /* the gesture's first move cleared the redo stack (a new action, as in GTK) */
  g_assert_false (weft_edit_session_can_redo (s));

  /* a selection dragged: each motion passes the total offset from where the
   * ops were when the gesture began */
  {
    WeftEventRef sel[2];
    sel[0] = find_op (s, 0, N_G1);
    sel[1] = find_op (s, 0, N_G2);
    weft_edit_session_begin_gesture (s);
    g_assert_true (weft_edit_session_move_selection (s, sel, 2, 10000, TRUE, NULL));
    g_assert_true (weft_edit_session_move_selection (s, sel, 2, 20000, TRUE, NULL));
    weft_edit_session_end_gesture (s);
    g_assert_cmpuint (weft_history_get_undo_depth (weft_edit_session_get_history (s)), ==, 1);
    g_assert_cmpint (start_of (s, 0, N_G1), ==, US (30));
    g_assert_cmpint (end_of (s, 1, N_AR), ==, US (180));
    g_assert_cmpint (start_of (s, 0, N_G2), ==, US (280));
    /* outside a gesture a delta is from where the ops are now */
    g_assert_true (weft_edit_session_move_selection (s, sel, 2, 10000, TRUE, NULL));
    g_assert_cmpint (start_of (s, 0, N_G1), ==, US (40));
    g_assert_true (weft_edit_session_undo (s, NULL));
    g_assert_true (weft_edit_session_undo (s, NULL));
    g_clear_pointer (&now, g_array_unref);
    now = snapshot (s);
    assert_same_snapshot (loaded, now, "after undoing the selection drags");
  }
}

/* ---- scripts ---------------------------------------------------------------------------- */

static const char *script_text =
  "{\"ops\": [\n"
  "  {\"op\": \"scale\", \"collective\": \"all_gather\", \"factor\": 0.5},\n"
  "  {\"op\": \"move_stream\", \"match\": {\"collective\": \"all_reduce\"}, \"stream\": 20},\n"
  "  {\"op\": \"set_duration\", \"match\": {\"name\": \"gemm.*_b$\"}, \"dur_us\": 10},\n"
  "  {\"op\": \"delete\", \"match\": {\"class\": \"elementwise\", \"rank\": 1}},\n"
  "  {\"op\": \"insert_kernel\", \"rank\": 0, \"stream\": 7, \"after\": {\"name\": \"gemm.*_b$\"},\n"
  "   \"like\": {\"class\": \"elementwise\"}},\n"
  "  {\"op\": \"insert_collective\", \"collective\": \"all_gather\", \"bytes\": 1048576, \"stream\": 20, \"at_us\": 450},\n"
  "  {\"op\": \"shift\", \"match\": {\"collective\": \"reduce_scatter\"}, \"shift_us\": 30}\n"
  "]}";

static guint
count_named (WeftEditSession *s, int r, const char *name)
{
  WeftTrace *trace = weft_edit_session_get_trace (s);
  int ri = weft_trace_find_rank (trace, r);
  WeftRank *rank = weft_trace_rank (trace, ri);
  guint n = 0;
  for (guint32 e = 0; e < rank->events->len; e++)
    if (weft_solver_is_node (weft_edit_session_get_solver (s), ri, e) &&
        strcmp (weft_rank_string (rank, weft_rank_event (rank, e)->name), name) == 0)
      n++;
  return n;
}

static gint64
nth_start (WeftEditSession *s, int r, const char *name, guint nth)
{
  WeftEventRef op = find_nth (s, r, name, nth);
  return weft_solver_start (weft_edit_session_get_solver (s), op.rank_index, op.event);
}

/* rank 0, stream 7: G1 [10,110) E1 [110,210) G2 [210,220) E1' [220,320) RS
 * rank 1, stream 7: G1 [10,105) G2 [105,115) RS
 * RS shifted +30 us from 320 / 115: arrivals 350 / 145, end 370.
 * stream 20: AR [110,160) / [105,160); AG [400,410); AG' at 10 + 450 us. */
static void
check_script_result (WeftEditSession *s)
{
  for (int r = 0; r < 2; r++)
    {
      g_assert_cmpint (end_of (s, r, N_AG) - start_of (s, r, N_AG), ==, 10000);
      g_assert_cmpint (start_of (s, r, N_AG), ==, US (400));
      g_assert_cmpint (stream_of (s, r, N_AR), ==, 20);
      g_assert_cmpint (end_of (s, r, N_AR), ==, US (160));
      g_assert_cmpint (end_of (s, r, N_G2) - start_of (s, r, N_G2), ==, 10000);
      g_assert_cmpint (end_of (s, r, N_RS), ==, US (370));
      g_assert_cmpint (nth_start (s, r, N_AG, 1), ==, US (460));
    }
  g_assert_cmpint (start_of (s, 1, N_RS), ==, US (145));
  g_assert_cmpuint (count_named (s, 0, N_E1), ==, 2);
  g_assert_cmpuint (count_named (s, 1, N_E1), ==, 0);
  g_assert_cmpint (start_of (s, 0, N_E1), ==, US (110));
  g_assert_cmpint (nth_start (s, 0, N_E1, 1), ==, US (220));
  g_assert_cmpint (start_of (s, 0, N_G2), ==, US (210));
}

static void
test_script (void)
{
  g_autofree char *dir = write_trace ("script");
  g_autofree char *script = weft_test_write_file ("script.json", script_text, -1);
  g_autoptr (WeftEditSession) s = open_session (dir);
  g_autoptr (GArray) loaded = snapshot (s);
  g_autoptr (GArray) done = NULL;
  g_autoptr (GArray) now = NULL;
  g_autoptr (GError) error = NULL;
  guint n = 0;

  if (!weft_edit_session_apply_script_file (s, script, &n, &error))
    g_error ("%s", error->message);
  g_assert_cmpuint (n, ==, 7);
  g_assert_cmpuint (weft_history_get_undo_depth (weft_edit_session_get_history (s)), ==, 7);
  check_script_result (s);
  {
    WeftMetrics now_m, before_m;
    g_assert_true (weft_edit_session_metrics (s, &now_m, &before_m));
    g_assert_cmpfloat (now_m.overlap_pct, >, before_m.overlap_pct);
  }
  done = snapshot (s);

  /* undo all seven: as loaded */
  for (int i = 0; i < 7; i++)
    g_assert_true (weft_edit_session_undo (s, NULL));
  now = snapshot (s);
  assert_same_snapshot (loaded, now, "after undoing the script");
  for (int i = 0; i < 7; i++)
    g_assert_true (weft_edit_session_redo (s, NULL));
  g_clear_pointer (&now, g_array_unref);
  now = snapshot (s);
  assert_same_snapshot (done, now, "after redoing the script");

  /* replaying the primitive log on a fresh load gives the same schedule */
  {
    g_autoptr (WeftEditSession) s2 = open_session (dir);
    g_autoptr (json_object) log = weft_edit_session_log (s);
    g_autoptr (GArray) replayed = NULL;
    if (!weft_edit_session_apply_script (s2, log, "log", NULL, &error))
      g_error ("%s", error->message);
    replayed = snapshot (s2);
    assert_same_snapshot (done, replayed, "after replaying the log");
  }
}

/* Undo puts back a state that existed, with its waits: moving an op back to
 * the stream it came from adds no wait on the op it followed on the stream
 * it leaves (that wait would close a cycle here: rank 0's first GEMM goes
 * after the all-gather on stream 20 while rank 1's all-reduce sits before
 * the all-gather there, and the GEMM's way back puts it before rank 0's
 * all-reduce again). Found by fuzz-edit; the script is also one of its
 * seeds. */
static const char undo_back_script[] =
  "[{\"op\": \"set_min_start\", \"rank\": 1, \"event\": 2, \"start_ns\": 1767225600000130000},\n"
  " {\"op\": \"move_to_position\", \"rank\": 1, \"event\": 2, \"device\": 0, \"stream\": 20, \"position\": 0},\n"
  " {\"op\": \"move_stream\", \"match\": {\"collective\": \"reduce_scatter\"}, \"stream\": 2},\n"
  " {\"op\": \"move_to_position\", \"rank\": 0, \"event\": 1, \"device\": 0, \"stream\": 20, \"position\": 1},\n"
  " {\"op\": \"move_stream\", \"match\": {\"collective\": \"reduce_scatter\"}, \"stream\": 5}]\n";

static void
test_undo_moves_back (void)
{
  g_autofree char *dir = write_trace ("undo-back");
  g_autoptr (WeftEditSession) s = open_session (dir);
  g_autoptr (json_object) script = json_tokener_parse (undo_back_script);
  g_autoptr (GArray) loaded = snapshot (s);
  g_autoptr (GArray) done = NULL;
  g_autoptr (GArray) now = NULL;
  g_autoptr (GError) error = NULL;
  guint n = 0, depth;

  g_assert_nonnull (script);
  if (!weft_edit_session_apply_script (s, script, "undo-back.json", &n, &error))
    g_error ("%s", error->message);
  g_assert_cmpuint (n, ==, 5);
  depth = weft_history_get_undo_depth (weft_edit_session_get_history (s));
  g_assert_cmpuint (depth, ==, 5);
  done = snapshot (s);
  for (guint i = 0; i < depth; i++)
    if (!weft_edit_session_undo (s, &error))
      g_error ("undo %u of %u: %s", i + 1, depth, error->message);
  now = snapshot (s);
  assert_same_snapshot (loaded, now, "after undoing everything");
  for (guint i = 0; i < depth; i++)
    if (!weft_edit_session_redo (s, &error))
      g_error ("redo %u of %u: %s", i + 1, depth, error->message);
  g_clear_pointer (&now, g_array_unref);
  now = snapshot (s);
  assert_same_snapshot (done, now, "after redoing everything");
}

static void
test_script_errors (void)
{
  static const struct
  {
    const char *text;
    const char *message;   /* a part of the error message */
  } bad[] = {
    { "{\"op\": \"scale\", \"collective\": \"all_gather\"}", "factor" },
    { "{\"op\": \"scale\", \"collective\": \"all_gather\", \"factor\": -1}", "factor" },
    { "{\"op\": \"scale\", \"collective\": \"gossip\", \"factor\": 2}", "gossip" },
    { "{\"op\": \"fly\"}", "unknown op" },
    { "{\"op\": \"move_stream\", \"match\": {\"collective\": \"all_reduce\"}}", "stream" },
    { "{\"op\": \"delete\", \"match\": {\"name\": \"no_such_kernel\"}}", "no live GPU op" },
    { "{\"op\": \"delete\", \"match\": {\"name\": \"([\"}}", "regex" },
    { "{\"op\": \"delete\", \"match\": {\"colour\": \"red\"}}", "colour" },
    { "{\"op\": \"delete\", \"rank\": 7, \"event\": 1}", "rank 7" },
    { "{\"op\": \"delete\", \"rank\": 0, \"event\": 999999}", "no event" },
    { "{\"op\": \"set_duration\", \"rank\": 0, \"event\": 2, \"name\": \"wrong\", \"dur_us\": 1}", "do not fit" },
    { "{\"op\": \"set_duration\", \"match\": {\"class\": \"gemm\"}, \"dur_us\": -3}", "dur" },
    { "{\"op\": \"insert_collective\", \"collective\": \"all_reduce\", \"bytes\": 0, \"stream\": 20, \"at_us\": 1}", "bytes" },
    { "{\"op\": \"insert_collective\", \"collective\": \"all_reduce\", \"bytes\": 10, \"ranks\": [0, 5], \"stream\": 20, \"at_us\": 1}", "rank 5" },
    { "{\"op\": \"insert_kernel\", \"rank\": 0, \"stream\": 7, \"at_us\": 1}", "like" },
    { "{\"op\": \"move_time\", \"match\": {\"class\": \"gemm\"}, \"start_us\": 5}", "exactly one" },
    { "{\"op\": \"set_duration\", \"match\": {\"class\": \"gemm\"}, \"dur_us\": 1e13}", "not in" },
    { "{\"op\": \"set_duration\", \"match\": {\"class\": \"gemm\"}, \"dur_us\": 1e300}", "dur_us" },
    { "{\"op\": \"shift\", \"match\": {\"class\": \"gemm\"}, \"shift_us\": 1e14}", "out of range" },
    { "{\"op\": \"set_min_start\", \"rank\": 0, \"event\": 1, \"start_ns\": 9000000000000000000}", "out of range" },
    { "{\"op\": \"insert_kernel\", \"rank\": 0, \"stream\": 7, \"at_us\": 1, \"name\": \"k\", \"dur_ns\": 9000000000000000000}", "not in" },
    { "{\"op\": \"move_stream\", \"match\": {\"class\": \"gemm\"}, \"stream\": 3, \"at_ns\": 9000000000000000000}", "out of range" },
    { "[1, 2]", "object" },
    { "\"text\"", "array" },
  };
  g_autofree char *dir = write_trace ("script-errors");
  g_autoptr (WeftEditSession) s = open_session (dir);
  g_autoptr (GArray) loaded = snapshot (s);

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (GArray) now = NULL;
      json_object *script = json_tokener_parse (bad[i].text);
      g_assert_nonnull (script);
      g_assert_false (weft_edit_session_apply_script (s, script, "bad.json", NULL, &error));
      json_object_put (script);
      g_assert_nonnull (error);
      g_test_message ("%s -> %s", bad[i].text, error->message);
      g_assert_true (g_str_has_prefix (error->message, "bad.json"));
      if (strstr (error->message, bad[i].message) == NULL)
        g_error ("%s: message '%s' does not mention '%s'", bad[i].text, error->message, bad[i].message);
      now = snapshot (s);
      assert_same_snapshot (loaded, now, bad[i].text);
      g_assert_false (weft_edit_session_can_undo (s));
    }

  /* a script stops at its first bad op; the good ones before it stay */
  {
    g_autoptr (GError) error = NULL;
    guint n = 0;
    json_object *script = json_tokener_parse ("[{\"op\":\"scale\",\"class\":\"gemm\",\"factor\":2},{\"op\":\"fly\"}]");
    g_assert_false (weft_edit_session_apply_script (s, script, "two.json", &n, &error));
    json_object_put (script);
    g_assert_cmpuint (n, ==, 1);
    g_assert_nonnull (strstr (error->message, "op 1"));
    g_assert_cmpuint (weft_history_get_undo_depth (weft_edit_session_get_history (s)), ==, 1);
  }
}

/* ---- palette ---------------------------------------------------------------------------- */

static void
test_palette (void)
{
  g_autofree char *dir = write_trace ("palette");
  g_autoptr (WeftEditSession) s = open_session (dir);
  g_autoptr (GPtrArray) kernels = weft_trace_palette_kernels (weft_edit_session_get_trace (s));
  g_autoptr (GPtrArray) colls = weft_edit_session_palette_collectives (s);
  guint n_gemm = 0;

  /* 2 GEMMs and 1 elementwise kernel, grouped by class; no collectives */
  g_assert_cmpuint (kernels->len, ==, 3);
  for (guint i = 0; i < kernels->len; i++)
    {
      const WeftPaletteKernel *k = g_ptr_array_index (kernels, i);
      g_assert_cmpint (k->kclass, !=, WEFT_KCLASS_COMM);
      if (i > 0)
        g_assert_cmpint (((const WeftPaletteKernel *) g_ptr_array_index (kernels, i - 1))->kclass, <=, k->kclass);
      if (k->kclass == WEFT_KCLASS_GEMM)
        n_gemm++;
      if (strcmp (k->name, N_G1) == 0)
        {
          /* rank 0: 100 us, rank 1: 95 us */
          g_assert_cmpuint (k->count, ==, 2);
          g_assert_cmpint (k->min_dur, ==, 95000);
          g_assert_cmpint (k->max_dur, ==, 100000);
          g_assert_cmpint (k->median_dur, ==, 100000);
        }
    }
  g_assert_cmpuint (n_gemm, ==, 2);

  /* all-reduce, reduce-scatter, all-gather on group [0, 1], one instance each */
  g_assert_cmpuint (colls->len, ==, 3);
  for (guint i = 0; i < colls->len; i++)
    {
      const WeftPaletteCollective *c = g_ptr_array_index (colls, i);
      g_assert_cmpuint (c->count, ==, 1);
      g_assert_cmpuint (c->n_ranks, ==, 2);
      g_assert_cmpstr (c->pg_name, ==, "0");
      g_assert_cmpint (c->estimate_ns, >, 0);
      if (c->type == WEFT_COLL_ALL_REDUCE)
        {
          g_assert_cmpint (c->median_bytes, ==, (gint64) (16 << 20) * 2);
          g_assert_cmpint (c->stream, ==, 7);
        }
    }

  /* the palette is a query of the trace: the same list from the trace and
   * the session's cost model, and untimed without a model */
  {
    WeftTrace *trace = weft_edit_session_get_trace (s);
    g_autoptr (GPtrArray) timed = weft_trace_palette_collectives (trace, weft_edit_session_get_cost_model (s));
    g_autoptr (GPtrArray) untimed = weft_trace_palette_collectives (trace, NULL);

    g_assert_cmpuint (timed->len, ==, colls->len);
    g_assert_cmpuint (untimed->len, ==, colls->len);
    for (guint i = 0; i < colls->len; i++)
      {
        const WeftPaletteCollective *c = g_ptr_array_index (colls, i);
        const WeftPaletteCollective *t = g_ptr_array_index (timed, i);
        const WeftPaletteCollective *u = g_ptr_array_index (untimed, i);
        g_assert_cmpint (t->type, ==, c->type);
        g_assert_cmpstr (t->pg_name, ==, c->pg_name);
        g_assert_cmpuint (t->count, ==, c->count);
        g_assert_cmpint (t->median_bytes, ==, c->median_bytes);
        g_assert_cmpint (t->estimate_ns, ==, c->estimate_ns);
        g_assert_cmpint (u->type, ==, c->type);
        g_assert_cmpint (u->median_bytes, ==, c->median_bytes);
        g_assert_cmpint (u->estimate_ns, ==, -1);
      }
  }
}

/* ---- saving --------------------------------------------------------------------------------- */

static char *
read_text (const char *path)
{
  char *text = NULL;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  return text;
}

/* Every "ts" / "dur" value of a saved file as Kineto writes it: integer us,
 * or "<us>.<3 digits>" (three_decimals: only the latter). Returns the count. */
static guint
check_kineto_times (const char *path, const char *text, gboolean three_decimals)
{
  static const char *keys[] = { "\"ts\":", "\"dur\":" };
  guint n = 0;

  for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
    for (const char *p = strstr (text, keys[k]); p != NULL; p = strstr (p + 1, keys[k]))
      {
        const char *v = p + strlen (keys[k]), *q;
        guint digits = 0, decimals = 0;
        gboolean dot = FALSE;
        while (*v == ' ')
          v++;
        q = v;
        if (*q == '-')
          q++;
        for (; g_ascii_isdigit (*q) || *q == '.'; q++)
          {
            if (*q == '.')
              {
                if (dot)
                  break;
                dot = TRUE;
              }
            else if (dot)
              decimals++;
            else
              digits++;
          }
        if (digits == 0 || (dot && decimals != 3) || (three_decimals && !dot) || (*q != ',' && *q != '}' && *q != ' ' && *q != '\n'))
          g_error ("%s: %s written as %.*s, not Kineto's text", path, keys[k], (int) MIN (strlen (v), 24), v);
        n++;
      }
  return n;
}

static void
test_save_reload (void)
{
  g_autofree char *dir = write_trace ("save-in");
  g_autofree char *out = g_build_filename (weft_test_tmpdir (), "save-out", NULL);
  g_autoptr (WeftEditSession) s = open_session (dir);
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) edited = NULL;
  g_autoptr (WeftEditSession) s2 = NULL;
  g_autoptr (GArray) reloaded = NULL;
  g_autofree char *rank0 = NULL;
  g_autofree char *text = NULL;
  guint n_ts = 0;

  g_assert_true (weft_edit_session_move_to_stream (s, find_op (s, 0, N_AR), 20, -1, TRUE, &error));
  g_assert_true (weft_edit_session_set_duration (s, find_op (s, 1, N_G1), 90123, &error));
  g_assert_no_error (error);
  edited = snapshot (s);
  g_assert_true (weft_edit_session_is_modified (s));
  if (!weft_edit_session_save (s, out, ".json", &error))
    g_error ("%s", error->message);
  g_assert_false (weft_edit_session_is_modified (s));

  /* the "weft" key lists the edits */
  rank0 = g_build_filename (out, "rank0_trace.json", NULL);
  text = read_text (rank0);
  {
    g_autoptr (json_object) root = json_tokener_parse (text);
    json_object *weft, *edits;
    g_assert_nonnull (root);
    g_assert_true (json_object_object_get_ex (root, "weft", &weft));
    g_assert_true (json_object_object_get_ex (weft, "edits", &edits));
    g_assert_cmpuint (json_object_array_length (edits), ==, 1 + 1); /* the stream moves (together), 1 duration */
    g_assert_cmpstr (json_object_get_string (json_object_object_get (json_object_array_get_idx (edits, 0), "op")), ==,
                     "move_to_position");
  }
  /* every ts and dur in Kineto's text style: "<us>.<3 digits>" */
  n_ts = check_kineto_times (rank0, text, TRUE);
  g_assert_cmpuint (n_ts, >=, 12);
  {
    g_autofree char *rank1 = g_build_filename (out, "rank1_trace.json", NULL);
    g_autofree char *text1 = read_text (rank1);
    g_assert_nonnull (strstr (text1, "\"dur\": 90.123"));
  }

  /* reloads with the real loader and solves to the edited schedule */
  s2 = open_session (out);
  reloaded = snapshot (s2);
  g_assert_cmpuint (reloaded->len, ==, edited->len);
  for (int r = 0; r < 2; r++)
    {
      g_assert_cmpint (stream_of (s2, r, N_AR), ==, 20);
      g_assert_cmpint (start_of (s2, r, N_E1), ==, start_of (s, r, N_E1));
      g_assert_cmpint (end_of (s2, r, N_AR), ==, end_of (s, r, N_AR));
      g_assert_cmpint (end_of (s2, r, N_RS), ==, end_of (s, r, N_RS));
    }
  g_assert_cmpint (end_of (s2, 1, N_G1) - start_of (s2, 1, N_G1), ==, 90123);

  /* undo everything, save again: the events equal the original ones */
  g_assert_true (weft_edit_session_undo (s, NULL));
  g_assert_true (weft_edit_session_undo (s, NULL));
  {
    g_autofree char *out2 = g_build_filename (weft_test_tmpdir (), "save-out2", NULL);
    g_autoptr (WeftEditSession) s3 = NULL;
    g_autoptr (WeftEditSession) s0 = open_session (dir);
    g_autoptr (GArray) orig = snapshot (s0);
    g_autoptr (GArray) back = NULL;
    if (!weft_edit_session_save (s, out2, ".json.zst", &error))
      g_error ("%s", error->message);
    s3 = open_session (out2);
    back = snapshot (s3);
    assert_same_snapshot (orig, back, "saved after undoing every edit");
  }
}

/* ---- recovery --------------------------------------------------------------------------------- */

static void
test_recovery (void)
{
  g_autofree char *dir = write_trace ("recover");
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) before_crash = NULL;
  g_autoptr (GArray) restored = NULL;
  g_autoptr (GArray) after_redo = NULL;
  g_autofree char *found = NULL;
  g_autofree char *expect = weft_recovery_path (dir);
  g_autofree char *beside = g_strconcat (dir, ".weft-recovery.json", NULL);
  WeftEditSession *s = open_session (dir);

  g_assert_null (weft_recovery_find (dir));
  /* nothing to write yet */
  g_assert_true (weft_edit_session_autosave (s, &error));
  g_assert_false (g_file_test (expect, G_FILE_TEST_EXISTS));

  /* three entries: a gesture (two ops), a script op, a delete; then undo the delete */
  weft_edit_session_begin_gesture (s);
  g_assert_true (weft_edit_session_move_time (s, find_op (s, 0, N_AR), US (120), TRUE, NULL));
  g_assert_true (weft_edit_session_set_duration (s, find_op (s, 0, N_G2), 20000, NULL));
  weft_edit_session_end_gesture (s);
  g_assert_true (weft_edit_session_scale_class (s, WEFT_KCLASS_GEMM, 0.75, NULL, NULL));
  {
    WeftEventRef e1 = find_op (s, 1, N_E1);
    g_assert_true (weft_edit_session_delete (s, &e1, 1, NULL));
  }
  {
    WeftEditCollSpec spec = { WEFT_COLL_ALL_GATHER, 4096, NULL, 0, 20, US (450), NULL, NULL, -1 };
    g_assert_true (weft_edit_session_insert_collective (s, &spec, NULL, NULL));
  }
  g_assert_true (weft_edit_session_undo (s, NULL));
  g_assert_true (weft_edit_session_undo (s, NULL));
  g_assert_true (weft_edit_session_redo (s, NULL));
  before_crash = snapshot (s);
  g_assert_true (weft_edit_session_autosave (s, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (expect, G_FILE_TEST_EXISTS));
  /* in the user's state folder, never beside the trace nor in its folder */
  {
    g_autofree char *state = g_build_filename (weft_test_tmpdir (), "state", "weft", "recovery", NULL);
    g_autofree char *rank0 = g_build_filename (dir, "rank0_trace.json", NULL);
    g_autofree char *beside0 = g_strconcat (rank0, ".weft-recovery.json", NULL);
    GDir *d = g_dir_open (dir, 0, NULL);
    const char *name;
    g_assert_true (g_str_has_prefix (expect, state));
    g_assert_true (g_str_has_suffix (expect, ".json"));
    g_assert_false (g_file_test (beside, G_FILE_TEST_EXISTS));
    g_assert_false (g_file_test (beside0, G_FILE_TEST_EXISTS));
    while ((name = g_dir_read_name (d)) != NULL)
      g_assert_true (g_str_equal (name, "rank0_trace.json") || g_str_equal (name, "rank1_trace.json"));
    g_dir_close (d);
  }
  /* an unchanged session does not rewrite it */
  {
    struct stat st1, st2;
    g_assert_cmpint (g_stat (expect, &st1), ==, 0);
    g_unlink (expect);
    g_assert_true (weft_edit_session_autosave (s, &error));
    g_assert_cmpint (g_stat (expect, &st2), !=, 0);
    g_assert_true (weft_edit_session_write_recovery (s, &error));
  }

  /* "crash": the session goes away without saving */
  weft_edit_session_free (s);

  found = weft_recovery_find (dir);
  g_assert_cmpstr (found, ==, expect);
  s = open_session (dir);
  if (!weft_recovery_apply (s, found, &error))
    g_error ("%s", error->message);
  restored = snapshot (s);
  assert_same_snapshot (before_crash, restored, "restored from the recovery file");
  g_assert_cmpuint (weft_history_get_undo_depth (weft_edit_session_get_history (s)), ==, 3);
  g_assert_cmpuint (weft_history_get_redo_depth (weft_edit_session_get_history (s)), ==, 1);
  g_assert_true (weft_edit_session_is_modified (s));
  /* the restored entries undo as they did: the gesture is one entry */
  g_assert_true (weft_edit_session_redo (s, NULL));
  after_redo = snapshot (s);
  g_assert_cmpint (after_redo->len, ==, restored->len + 2);
  for (int i = 0; i < 4; i++)
    g_assert_true (weft_edit_session_undo (s, NULL));
  {
    g_autoptr (WeftEditSession) fresh = open_session (dir);
    g_autoptr (GArray) a = snapshot (fresh);
    g_autoptr (GArray) b = snapshot (s);
    assert_same_snapshot (a, b, "after undoing every restored entry");
  }
  weft_edit_session_free (s);

  /* a recovery file for a trace touched since is not offered */
  {
    g_autofree char *rank0 = g_build_filename (dir, "rank0_trace.json", NULL);
    struct utimbuf tb;
    tb.actime = tb.modtime = time (NULL) + 100;
    g_assert_cmpint (g_utime (rank0, &tb), ==, 0);
    g_assert_null (weft_recovery_find (dir));
  }

  /* a recovery file that does not fit the trace is refused, leaving no edits */
  {
    g_autofree char *bad = weft_test_write_file (
      "bad-recovery.json",
      "{\"weft_recovery\": 1, \"trace\": \"x\", \"entries\": [[{\"op\": \"set_duration\", \"rank\": 0, "
      "\"event\": 3, \"name\": \"nope\", \"dur_ns\": 5}]], \"redo\": []}",
      -1);
    g_autoptr (WeftEditSession) s4 = open_session (dir);
    g_autoptr (GArray) a = snapshot (s4);
    g_autoptr (GArray) b = NULL;
    g_assert_false (weft_recovery_apply (s4, bad, &error));
    g_test_message ("%s", error->message);
    g_clear_error (&error);
    b = snapshot (s4);
    assert_same_snapshot (a, b, "after a refused recovery");
    g_assert_false (weft_edit_session_can_undo (s4));
    g_assert_false (weft_edit_session_can_redo (s4));
  }

  /* saving removes the recovery file */
  g_assert_true (g_file_test (expect, G_FILE_TEST_EXISTS));
  {
    g_autoptr (WeftEditSession) s5 = open_session (dir);
    g_autofree char *out = g_build_filename (weft_test_tmpdir (), "recover-out", NULL);
    g_assert_true (weft_edit_session_set_duration (s5, find_op (s5, 0, N_G1), 1000, NULL));
    g_assert_true (weft_edit_session_save (s5, out, NULL, &error));
    g_assert_no_error (error);
    g_assert_false (g_file_test (expect, G_FILE_TEST_EXISTS));
  }

  /* a recovery file for another version of the trace files is not offered */
  {
    g_autoptr (WeftEditSession) s6 = open_session (dir);
    g_autofree char *rank1 = g_build_filename (dir, "rank1_trace.json", NULL);
    g_autofree char *text1 = read_text (rank1);
    g_assert_true (weft_edit_session_set_duration (s6, find_op (s6, 0, N_G1), 1000, NULL));
    g_assert_true (weft_edit_session_write_recovery (s6, &error));
    g_assert_no_error (error);
    {
      g_autofree char *found6 = weft_recovery_find (dir);
      g_assert_nonnull (found6);
    }
    {
      g_autofree char *longer = g_strconcat (text1, " ", NULL);
      g_assert_true (g_file_set_contents (rank1, longer, -1, NULL));
    }
    g_assert_null (weft_recovery_find (dir));
    /* and the session, whose log belongs to the files as they were, writes none */
    g_assert_true (weft_edit_session_set_duration (s6, find_op (s6, 0, N_G1), 2000, NULL));
    weft_recovery_discard (dir);
    g_assert_true (weft_edit_session_autosave (s6, &error));
    g_assert_false (g_file_test (expect, G_FILE_TEST_EXISTS));
  }

  /* saved over the trace it was loaded from: no recovery file after that */
  {
    g_autofree char *dir2 = write_trace ("recover-inplace");
    g_autofree char *expect2 = weft_recovery_path (dir2);
    g_autoptr (WeftEditSession) s7 = open_session (dir2);
    g_assert_true (weft_edit_session_set_duration (s7, find_op (s7, 0, N_G1), 1000, NULL));
    g_assert_true (weft_edit_session_autosave (s7, &error));
    g_assert_true (g_file_test (expect2, G_FILE_TEST_EXISTS));
    g_usleep (2000); /* a later modification time for the saved files */
    g_assert_true (weft_edit_session_save (s7, dir2, ".json", &error));
    g_assert_no_error (error);
    g_assert_false (g_file_test (expect2, G_FILE_TEST_EXISTS));
    g_assert_true (weft_edit_session_set_duration (s7, find_op (s7, 0, N_G2), 1000, NULL));
    g_assert_true (weft_edit_session_autosave (s7, &error));
    g_assert_false (g_file_test (expect2, G_FILE_TEST_EXISTS));
    g_assert_null (weft_recovery_find (dir2));
  }

  /* files of Weft 0.1: one beside the trace (in a shared folder it may be
   * another person's) is never offered nor removed, and never loaded as a
   * rank; one in the user's cache is offered, and removed with the new one */
  {
    g_autofree char *sum = NULL;
    g_autofree char *abs = g_canonicalize_filename (dir, NULL);
    g_autofree char *legacy = NULL;
    g_autofree char *rank0 = g_build_filename (dir, "rank0_trace.json", NULL);
    g_autofree char *beside0 = g_strconcat (rank0, ".weft-recovery.json", NULL);
    g_autofree char *text = NULL;
    g_autofree char *offered = NULL;
    g_autoptr (WeftTrace) t = NULL;
    g_autoptr (WeftEditSession) s8 = open_session (dir);
    g_autofree char *legacy_dir = NULL;

    weft_recovery_discard (dir);
    g_assert_true (weft_edit_session_set_duration (s8, find_op (s8, 0, N_G1), 2000, NULL));
    g_assert_true (weft_edit_session_write_recovery (s8, &error));
    g_assert_true (g_file_get_contents (expect, &text, NULL, NULL));
    g_assert_cmpint (g_rename (expect, beside), ==, 0);
    g_assert_true (g_file_set_contents (beside0, text, -1, NULL));
    g_assert_null (weft_recovery_find (dir));
    t = weft_trace_load (dir, NULL, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (t->ranks->len, ==, 2);
    weft_recovery_discard (dir);
    g_assert_true (g_file_test (beside, G_FILE_TEST_EXISTS));
    g_assert_true (g_file_test (beside0, G_FILE_TEST_EXISTS));
    g_unlink (beside);
    g_unlink (beside0);

    sum = g_compute_checksum_for_string (G_CHECKSUM_SHA1, abs, -1);
    legacy = g_strdup_printf ("%s/cache/weft/%s.weft-recovery.json", weft_test_tmpdir (), sum);
    legacy_dir = g_path_get_dirname (legacy);
    g_assert_cmpint (g_mkdir_with_parents (legacy_dir, 0700), ==, 0);
    g_assert_true (g_file_set_contents (legacy, text, -1, NULL));
    offered = weft_recovery_find (dir);
    g_assert_cmpstr (offered, ==, legacy);
    weft_recovery_discard (dir);
    g_assert_false (g_file_test (legacy, G_FILE_TEST_EXISTS));
  }
}

/* A real trace: the 8 DLRM ranks (old format: integer absolute us, no
 * collective args on the kernels). Every all-reduce moves to a new stream on
 * every rank (one entry), undo/redo are exact, and the saved files reload
 * with the real loader in the same ts text style and solve to the same
 * schedule. */
static void
test_real_dlrm (void)
{
  g_autofree char *dir = weft_test_require_trace ("param/et_replay/tests/inputs/dlrm_kineto");
  g_autofree char *out = NULL;
  g_autoptr (WeftEditSession) s = NULL;
  g_autoptr (WeftEditSession) s2 = NULL;
  g_autoptr (GArray) loaded = NULL;
  g_autoptr (GArray) done = NULL;
  g_autoptr (GArray) now = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (json_object) op = NULL;
  g_autoptr (json_object) log = NULL;
  WeftMetrics m_now, m_before;
  WeftTsStyle styles[8];

  if (dir == NULL)
    return;
  {
    WeftTrace *trace = weft_trace_load (dir, NULL, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (trace->ranks->len, ==, 8);
    for (guint r = 0; r < 8; r++)
      styles[r] = weft_trace_rank (trace, r)->ts_style;
    /* not the shared folder: a recovery file must never land there */
    s = weft_edit_session_new (trace, NULL, &error);
    g_assert_no_error (error);
  }
  loaded = snapshot (s);
  op = json_tokener_parse ("{\"op\": \"move_stream\", \"match\": {\"collective\": \"all_reduce\"}, \"stream\": 99}");
  if (!weft_edit_session_apply_json (s, op, &error))
    g_error ("%s", error->message);
  log = weft_edit_session_log (s);
  {
    /* 3 all-reduces on 8 ranks, moved (and logged) together */
    json_object *moves;
    g_assert_cmpuint (json_object_array_length (log), ==, 1);
    g_assert_true (json_object_object_get_ex (json_object_array_get_idx (log, 0), "moves", &moves));
    g_assert_cmpuint (json_object_array_length (moves), ==, 3 * 8);
  }
  g_assert_cmpuint (weft_history_get_undo_depth (weft_edit_session_get_history (s)), ==, 1);
  done = snapshot (s);
  g_assert_cmpuint (done->len, ==, loaded->len);
  g_assert_true (weft_edit_session_metrics (s, &m_now, &m_before));
  g_assert_cmpint (m_now.step_time, <=, m_before.step_time);

  g_assert_true (weft_edit_session_undo (s, NULL));
  now = snapshot (s);
  assert_same_snapshot (loaded, now, "DLRM after undo");
  g_assert_true (weft_edit_session_redo (s, NULL));
  g_clear_pointer (&now, g_array_unref);
  now = snapshot (s);
  assert_same_snapshot (done, now, "DLRM after redo");

  out = g_build_filename (weft_test_tmpdir (), "dlrm-out", NULL);
  if (!weft_edit_session_save (s, out, ".json.gz", &error))
    g_error ("%s", error->message);
  {
    WeftTrace *trace2 = weft_trace_load (out, NULL, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (trace2->ranks->len, ==, 8);
    for (guint r = 0; r < 8; r++)
      {
        /* integer-us files stay integer-us unless an edited time is not a
         * whole us (then Kineto's "<us>.<3 digits>" keeps it ns-exact) */
        WeftTsStyle st = weft_trace_rank (trace2, r)->ts_style;
        g_assert_true (st == styles[r] || (styles[r] == WEFT_TS_ABSOLUTE_US && st == WEFT_TS_ABSOLUTE_FRAC));
      }
    s2 = weft_edit_session_new (trace2, NULL, &error);
    g_assert_no_error (error);
  }
  g_clear_pointer (&now, g_array_unref);
  now = snapshot (s2);
  assert_same_snapshot (done, now, "DLRM saved and reloaded");

  /* every ts / dur written as Kineto text: integer us or "<us>.<3 digits>" */
  {
    for (int r = 0; r < 8; r++)
      {
        g_autofree char *name = g_strdup_printf ("rank%d_trace.json", r);
        g_autofree char *json_out = g_build_filename (weft_test_tmpdir (), "dlrm-plain", NULL);
        g_autofree char *path = g_build_filename (json_out, name, NULL);
        g_autofree char *text = NULL;
        guint n;
        if (r == 0 && !weft_edit_session_save (s, json_out, ".json", &error))
          g_error ("%s", error->message);
        text = read_text (path);
        n = check_kineto_times (path, text, FALSE);
        g_assert_cmpuint (n, >, 1000);
      }
  }
}

/* With a maximum depth, what falls off the history stays in the log, the
 * saved "weft" key and the recovery file. */
static void
test_max_depth_log (void)
{
  g_autofree char *dir = write_trace ("max-depth");
  g_autoptr (WeftEditSession) s = open_session (dir);
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) done = NULL;
  g_autofree char *rec = NULL;

  weft_history_set_max_depth (weft_edit_session_get_history (s), 2);
  g_assert_true (weft_edit_session_set_duration (s, find_op (s, 0, N_G1), 70000, NULL));
  g_assert_true (weft_edit_session_move_to_stream (s, find_op (s, 0, N_AR), 20, -1, TRUE, NULL));
  g_assert_true (weft_edit_session_scale_collective (s, WEFT_COLL_ALL_GATHER, 2.0, NULL, NULL));
  g_assert_cmpuint (weft_history_get_undo_depth (weft_edit_session_get_history (s)), ==, 2);
  done = snapshot (s);
  {
    g_autoptr (json_object) log = weft_edit_session_log (s);
    g_assert_cmpuint (json_object_array_length (log), ==, 1 + 1 + 1); /* duration, moves (2 ranks), all-gather */
    g_assert_cmpstr (json_object_get_string (json_object_object_get (json_object_array_get_idx (log, 0), "op")), ==,
                     "set_duration");
  }
  g_assert_true (weft_edit_session_write_recovery (s, &error));
  g_assert_no_error (error);
  rec = weft_recovery_find (dir);
  g_assert_nonnull (rec);
  {
    g_autoptr (WeftEditSession) s2 = open_session (dir);
    g_autoptr (GArray) restored = NULL;
    if (!weft_recovery_apply (s2, rec, &error))
      g_error ("%s", error->message);
    restored = snapshot (s2);
    assert_same_snapshot (done, restored, "restored with entries that fell off the history");
  }
  weft_recovery_discard (dir);
  g_assert_null (weft_recovery_find (dir));
}

int
main (int argc, char **argv)
{
  g_autofree char *cache = NULL;
  g_autofree char *state = NULL;

  g_test_init (&argc, &argv, NULL);
  /* before GLib reads it */
  cache = g_build_filename (weft_test_tmpdir (), "cache", NULL);
  g_setenv ("XDG_CACHE_HOME", cache, TRUE);
  state = g_build_filename (weft_test_tmpdir (), "state", NULL);
  g_setenv ("XDG_STATE_HOME", state, TRUE);

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *path = g_strdup_printf ("/edit/op/%s", rows[i].name);
      g_test_add_data_func (path, &rows[i], test_operation);
    }
  g_test_add_func ("/edit/cycle-refused", test_cycle_refused);
  g_test_add_func ("/edit/drag-gesture", test_drag_gesture);
  g_test_add_func ("/edit/script", test_script);
  g_test_add_func ("/edit/script-errors", test_script_errors);
  g_test_add_func ("/edit/undo-moves-back", test_undo_moves_back);
  g_test_add_func ("/edit/palette", test_palette);
  g_test_add_func ("/edit/save-reload", test_save_reload);
  g_test_add_func ("/edit/recovery", test_recovery);
  g_test_add_func ("/edit/max-depth-log", test_max_depth_log);
  g_test_add_func ("/edit/real-dlrm", test_real_dlrm);
  return g_test_run ();
}
