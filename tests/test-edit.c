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

#include "edit-fixture.h"
#include "testutil.h"
#include "weft/weft.h"
#include "weft/weft-edit.h"
#include "weft/weft-solver.h"

G_DEFINE_AUTOPTR_CLEANUP_FUNC (json_object, json_object_put)

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

int
main (int argc, char **argv)
{
  edit_fixture_test_init (&argc, &argv);

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
  return g_test_run ();
}
