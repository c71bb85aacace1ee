/* edit-fixture.h: the 2-rank Kineto trace that test-edit.c and
 * test-edit-save.c write as JSON text and open in an edit session (the real
 * loader and solver), and the ops looked up in it (see test-edit.c). */
#pragma once

#include "testutil.h"
#include "weft/weft-edit.h"
#include "weft/weft-solver.h"

G_BEGIN_DECLS

#define BASE_NS G_GINT64_CONSTANT (1767225600000000000)
#define US(x) (BASE_NS + (gint64) ((x) * 1000.0))

#define N_G1 "sm90_xmma_gemm_bf16bf16_bf16f32_a"
#define N_G2 "sm90_xmma_gemm_bf16bf16_bf16f32_b"
#define N_AR "ncclDevKernel_AllReduce_Sum_bf16_RING_LL"
#define N_E1 "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16> >"
#define N_RS "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL"
#define N_AG "ncclDevKernel_AllGather_RING_LL"

typedef struct
{
  guint   rank_index;
  guint32 event;
  gint64  start;
  gint64  end;
  gint64  stream;
  guint   position;
} OpState;

/* Writes the 2-rank trace into a fresh folder under the test tmpdir; returns its path. */
char *write_trace (const char *name);
/* An edit session of the 2 ranks at path (asserting that it loads and solves). */
WeftEditSession *open_session (const char *path);
/* The live op named name on rank number r (the first by event index; with nth > 0 the nth one). */
WeftEventRef find_nth (WeftEditSession *s, int r, const char *name, guint nth);
WeftEventRef find_op (WeftEditSession *s, int r, const char *name);
/* Its solved start, end, and stream (tid) now. */
gint64 start_of (WeftEditSession *s, int r, const char *name);
gint64 end_of (WeftEditSession *s, int r, const char *name);
gint64 stream_of (WeftEditSession *s, int r, const char *name);
/* Every live op (OpState) by (rank, event): what undo and reload must restore. */
GArray *snapshot (WeftEditSession *s);
void assert_same_snapshot (GArray *a, GArray *b, const char *what);

/* g_test_init, then XDG_CACHE_HOME and XDG_STATE_HOME (recovery files) under
 * the test's tmpdir, before GLib reads them. */
void edit_fixture_test_init (int *argc, char ***argv);

G_END_DECLS
