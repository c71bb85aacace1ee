/* test-classify.c: collectives, matching and clock offsets on real
 * multi-rank traces loaded by the real loader and on small traces written
 * here, and stacks beyond NCCL (DeepEP, ROCm); kernel and collective names
 * alone: test-classify-names.c. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <gio/gio.h>

#include "testutil.h"
#include "weft/weft-classify.h"
#include "weft/weft-load.h"
#include "weft/weft-model.h"
#include "weft/weft-solver.h"

/* ---- helpers ------------------------------------------------------------------- */

static WeftCollective *
rank_coll (WeftRank *rank, guint32 i)
{
  return &g_array_index (rank->collectives, WeftCollective, i);
}

static WeftCollInstance *
trace_instance (WeftTrace *trace, guint32 i)
{
  return &g_array_index (trace->instances, WeftCollInstance, i);
}

static const WeftInstanceMember *
instance_member (WeftCollInstance *inst, guint j)
{
  return &g_array_index (inst->members, WeftInstanceMember, j);
}

static gint64
member_end (WeftTrace *trace, const WeftInstanceMember *m, gboolean offsets)
{
  WeftRank *rank = weft_trace_rank (trace, m->rank_index);
  const WeftEvent *ev = weft_rank_event (rank, rank_coll (rank, m->coll)->event);
  return weft_event_end (rank, ev) + (offsets ? weft_trace_rank_offset (trace, rank) : 0);
}

/* Largest difference of member end times (ns) in the instance. */
static gint64
end_spread (WeftTrace *trace, WeftCollInstance *inst, gboolean offsets)
{
  gint64 lo = G_MAXINT64, hi = G_MININT64;
  for (guint j = 0; j < inst->members->len; j++)
    {
      gint64 e = member_end (trace, instance_member (inst, j), offsets);
      lo = MIN (lo, e);
      hi = MAX (hi, e);
    }
  return hi - lo;
}

/* The whole JSON of a (gzip or plain) file parsed with json-c, for checks
 * independent of Weft's own loader. */
static json_object *
read_json_independently (const char *path)
{
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GError) error = NULL;
  g_autoptr (GInputStream) raw = G_INPUT_STREAM (g_file_read (file, NULL, &error));
  g_autoptr (GInputStream) in = NULL;
  g_autoptr (GByteArray) bytes = g_byte_array_new ();
  guint8 buf[65536];
  gssize n;
  json_tokener *tok;
  json_object *obj;

  g_assert_no_error (error);
  if (g_str_has_suffix (path, ".gz"))
    {
      g_autoptr (GZlibDecompressor) dec = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
      in = g_converter_input_stream_new (raw, G_CONVERTER (dec));
    }
  else
    in = g_object_ref (raw);
  while ((n = g_input_stream_read (in, buf, sizeof buf, NULL, &error)) > 0)
    g_byte_array_append (bytes, buf, (guint) n);
  g_assert_no_error (error);
  tok = json_tokener_new_ex (512);
  obj = json_tokener_parse_ex (tok, (const char *) bytes->data, (int) bytes->len);
  g_assert_cmpint (json_tokener_get_error (tok), ==, json_tokener_success);
  json_tokener_free (tok);
  g_assert_nonnull (obj);
  return obj;
}

static json_object *
obj_get (json_object *obj, const char *key)
{
  json_object *v = NULL;
  if (obj == NULL || !json_object_object_get_ex (obj, key, &v))
    return NULL;
  return v;
}

/* Independent element sizes of the dtype texts seen in the shared traces. */
static int
test_dtype_bytes (const char *dtype)
{
  if (g_strcmp0 (dtype, "Float") == 0 || g_strcmp0 (dtype, "Int") == 0)
    return 4;
  if (g_strcmp0 (dtype, "Long") == 0 || g_strcmp0 (dtype, "Double") == 0)
    return 8;
  if (g_strcmp0 (dtype, "BFloat16") == 0 || g_strcmp0 (dtype, "Half") == 0)
    return 2;
  if (g_strcmp0 (dtype, "Byte") == 0 || g_strcmp0 (dtype, "Char") == 0)
    return 1;
  g_error ("dtype %s not in the test's table", dtype);
  return 0;
}

/* Kernel events with "Collective name" in their args, by correlation id. */
static GHashTable *
comm_kernels_by_correlation (json_object *root)
{
  GHashTable *by_corr = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  json_object *events = obj_get (root, "traceEvents");

  for (gsize i = 0; i < json_object_array_length (events); i++)
    {
      json_object *e = json_object_array_get_idx (events, i);
      json_object *args = obj_get (e, "args");
      gint64 *corr;
      if (g_strcmp0 (json_object_get_string (obj_get (e, "cat")), "kernel") != 0 || obj_get (args, "Collective name") == NULL)
        continue;
      corr = g_new (gint64, 1);
      *corr = json_object_get_int64 (obj_get (args, "correlation"));
      g_hash_table_insert (by_corr, corr, e);
    }
  return by_corr;
}

/* Expected payload S from the args text: all-gather counts the output,
 * everything else in these files the input. */
static gint64
expected_bytes (json_object *args)
{
  const char *name = json_object_get_string (obj_get (args, "Collective name"));
  gint64 in = json_object_get_int64 (obj_get (args, "In msg nelems"));
  gint64 out = json_object_get_int64 (obj_get (args, "Out msg nelems"));
  int elem = test_dtype_bytes (json_object_get_string (obj_get (args, "dtype")));
  gboolean gather = strstr (name, "allgather") != NULL || strstr (name, "all_gather") != NULL;
  return (gather ? out : in) * elem;
}

static WeftCollType
expected_type (const char *coll_name)
{
  if (strcmp (coll_name, "allreduce") == 0)
    return WEFT_COLL_ALL_REDUCE;
  if (strcmp (coll_name, "broadcast") == 0)
    return WEFT_COLL_BROADCAST;
  if (strcmp (coll_name, "_allgather_base") == 0)
    return WEFT_COLL_ALL_GATHER;
  if (strcmp (coll_name, "_reduce_scatter_base") == 0)
    return WEFT_COLL_REDUCE_SCATTER;
  g_error ("collective name %s not in the test's table", coll_name);
  return WEFT_COLL_NONE;
}

/* Checks every collective of the rank against the independently read args:
 * typed from its own args, bytes, dtype, process group (name, description,
 * ranks), Seq. Returns the number checked. */
static guint
check_collectives_against_json (WeftRank *rank, json_object *root)
{
  g_autoptr (GHashTable) expected = comm_kernels_by_correlation (root);
  guint checked = 0;

  g_assert_cmpuint (rank->collectives->len, ==, g_hash_table_size (expected));
  for (guint i = 0; i < rank->collectives->len; i++)
    {
      WeftCollective *c = rank_coll (rank, i);
      const WeftEvent *ev = weft_rank_event (rank, c->event);
      json_object *e = g_hash_table_lookup (expected, &(gint64) { weft_event_correlation (rank, ev) });
      json_object *args;
      const char *ranks_text;
      g_autoptr (GString) ranks = g_string_new ("[");
      gint64 seq = -1;

      g_assert_nonnull (e);
      args = obj_get (e, "args");
      g_assert_cmpstr (weft_rank_string (rank, ev->name), ==, json_object_get_string (obj_get (e, "name")));
      g_assert_cmpint (weft_event_coll (rank, ev), ==, i);
      g_assert_cmpint (ev->kclass, ==, WEFT_KCLASS_COMM);
      g_assert_cmpint (c->source, ==, WEFT_COLL_SOURCE_KERNEL_ARGS);
      g_assert_cmpint (c->type, ==, expected_type (json_object_get_string (obj_get (args, "Collective name"))));
      g_assert_cmpstr (weft_rank_string (rank, c->coll_name), ==,
                       json_object_get_string (obj_get (args, "Collective name")));
      g_assert_cmpint (c->bytes, ==, expected_bytes (args));
      g_assert_cmpstr (weft_rank_string (rank, c->dtype), ==, json_object_get_string (obj_get (args, "dtype")));
      g_assert_cmpint (c->group_size, ==, json_object_get_int (obj_get (args, "Group size")));
      g_assert_cmpstr (weft_rank_string (rank, c->pg_name), ==,
                       json_object_get_string (obj_get (args, "Process Group Name")));
      g_assert_cmpstr (weft_rank_string (rank, c->pg_desc), ==,
                       json_object_get_string (obj_get (args, "Process Group Description")));
      ranks_text = json_object_get_string (obj_get (args, "Process Group Ranks"));
      for (guint k = 0; k < c->n_pg_ranks; k++)
        g_string_append_printf (ranks, k ? ", %d" : "%d", c->pg_ranks[k]);
      g_string_append_c (ranks, ']');
      g_assert_cmpstr (ranks->str, ==, ranks_text);
      if (obj_get (args, "Seq") != NULL)
        seq = json_object_get_int64 (obj_get (args, "Seq"));
      g_assert_cmpint (c->seq, ==, seq);
      checked++;
    }
  return checked;
}

/* ---- real traces ----------------------------------------------------------------- */

#define DLRM_DIR "param/et_replay/tests/inputs/dlrm_kineto"

static void
test_dlrm_matching (void)
{
  g_autofree char *dir = weft_test_require_trace (DLRM_DIR);
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftTrace) trace = NULL;
  guint n_ar = 0, n_a2a = 0;
  gint64 worst_raw = 0, worst_aligned = 0;

  if (dir == NULL)
    return;
  trace = weft_trace_load (dir, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (trace->ranks->len, ==, 8);

  /* Old format: no args on the kernels; every NCCL kernel finds its
   * collective through its launch (correlation) and the enclosing ops. The
   * SendRecv kernels run all_to_all (nccl:all_to_all / c10d::alltoall_base_). */
  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);
      guint ar = 0, a2a = 0;
      g_assert_cmpint (rank->rank, ==, (int) r);
      for (guint i = 0; i < rank->collectives->len; i++)
        {
          WeftCollective *c = rank_coll (rank, i);
          const char *kname = weft_rank_string (rank, weft_rank_event (rank, c->event)->name);
          g_assert_cmpint (c->source, ==, WEFT_COLL_SOURCE_CPU_OP);
          g_assert_cmpuint (c->cpu_event, !=, WEFT_NONE);
          if (c->type == WEFT_COLL_ALL_REDUCE)
            {
              g_assert_true (g_str_has_prefix (kname, "ncclKernel_AllReduce_"));
              ar++;
            }
          else
            {
              g_assert_cmpint (c->type, ==, WEFT_COLL_ALL_TO_ALL);
              g_assert_true (g_str_has_prefix (kname, "ncclKernel_SendRecv_"));
              a2a++;
            }
          g_assert_cmpuint (c->instance, !=, WEFT_NONE);
        }
      g_assert_cmpuint (ar, ==, 3);
      g_assert_cmpuint (a2a, ==, 5);
    }

  /* One instance per collective, spanning all 8 ranks. */
  g_assert_cmpuint (trace->instances->len, ==, 8);
  g_assert_true (trace->offsets_estimated);
  for (guint k = 0; k < trace->instances->len; k++)
    {
      WeftCollInstance *inst = trace_instance (trace, k);
      gint64 raw, aligned;
      g_assert_cmpuint (inst->members->len, ==, 8);
      g_assert_cmpint (inst->method, ==, WEFT_MATCH_STREAM_ORDINAL);
      for (guint j = 0; j < 8; j++)
        {
          const WeftInstanceMember *m = instance_member (inst, j);
          WeftRank *rank = weft_trace_rank (trace, m->rank_index);
          g_assert_cmpuint (m->rank_index, ==, j);
          g_assert_cmpint (rank_coll (rank, m->coll)->type, ==, inst->type);
          g_assert_cmpuint (rank_coll (rank, m->coll)->instance, ==, k);
          /* stream 84 on each rank */
          g_assert_cmpint (weft_rank_lane (rank, weft_rank_event (rank, rank_coll (rank, m->coll)->event)->lane)->tid, ==, 84);
        }
      n_ar += inst->type == WEFT_COLL_ALL_REDUCE;
      n_a2a += inst->type == WEFT_COLL_ALL_TO_ALL;
      raw = end_spread (trace, inst, FALSE);
      aligned = end_spread (trace, inst, TRUE);
      g_test_message ("instance %u (%s): end spread %" G_GINT64_FORMAT " ns raw, %" G_GINT64_FORMAT
                      " ns with offsets",
                      k, weft_coll_type_to_string (inst->type), raw, aligned);
      worst_raw = MAX (worst_raw, raw);
      worst_aligned = MAX (worst_aligned, aligned);
      g_assert_cmpint (aligned, <=, 10000);
    }
  g_assert_cmpuint (n_ar, ==, 3);
  g_assert_cmpuint (n_a2a, ==, 5);
  for (guint r = 0; r < trace->ranks->len; r++)
    g_test_message ("rank %u: clock offset %" G_GINT64_FORMAT " ns", r, weft_trace_rank (trace, r)->clock_offset_ns);
  g_test_message ("DLRM: worst end spread %" G_GINT64_FORMAT " ns raw, %" G_GINT64_FORMAT " ns with offsets",
                  worst_raw, worst_aligned);

  /* The ranks share a host clock here, so skew one rank's clock by a known
   * amount: the estimate must find it and re-align the instances. */
  {
    const gint64 skew = 3217000; /* 3.217 ms */
    WeftRank *rank5 = weft_trace_rank (trace, 5);
    gint64 before = rank5->clock_offset_ns;
    for (guint i = 0; i < rank5->events->len; i++)
      weft_rank_event (rank5, i)->ts += skew;
    weft_trace_estimate_clock_offsets (trace);
    g_assert_cmpint (ABS (rank5->clock_offset_ns - (before - skew)), <=, 2000);
    for (guint k = 0; k < trace->instances->len; k++)
      {
        g_assert_cmpint (end_spread (trace, trace_instance (trace, k), FALSE), >=, skew - 10000);
        g_assert_cmpint (end_spread (trace, trace_instance (trace, k), TRUE), <=, 10000);
      }
    /* switching the offsets off gives the file clocks back */
    trace->apply_clock_offsets = FALSE;
    g_assert_cmpint (weft_trace_rank_offset (trace, rank5), ==, 0);
    trace->apply_clock_offsets = TRUE;
    g_assert_cmpint (weft_trace_rank_offset (trace, rank5), ==, rank5->clock_offset_ns);
  }
}

static void
test_nccl_data (void)
{
  g_autofree char *path = weft_test_require_trace ("HolisticTraceAnalysis/nccl_parser_config/nccl_data.json.gz");
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftTrace) trace = NULL;
  json_object *root;
  WeftRank *rank;
  guint checked, n_ar = 0, n_bc = 0;

  if (path == NULL)
    return;
  trace = weft_trace_load (path, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (trace->ranks->len, ==, 1);
  rank = weft_trace_rank (trace, 0);
  root = read_json_independently (path);
  checked = check_collectives_against_json (rank, root);
  json_object_put (root);
  g_assert_cmpuint (checked, ==, 21);
  for (guint i = 0; i < rank->collectives->len; i++)
    {
      WeftCollective *c = rank_coll (rank, i);
      n_ar += c->type == WEFT_COLL_ALL_REDUCE;
      n_bc += c->type == WEFT_COLL_BROADCAST;
      g_assert_cmpstr (weft_rank_string (rank, c->pg_desc), ==, "default_pg");
      g_assert_cmpuint (c->n_pg_ranks, ==, 2);
      /* the record_param_comms with the kernel's External id */
      g_assert_cmpuint (c->cpu_event, !=, WEFT_NONE);
      g_assert_cmpstr (weft_rank_string (rank, weft_rank_event (rank, c->cpu_event)->name), ==, "record_param_comms");
      g_assert_cmpint (weft_event_external_id (rank, weft_rank_event (rank, c->cpu_event)), ==,
                       weft_event_external_id (rank, weft_rank_event (rank, c->event)));
      /* one rank of two loaded: its instances hold only itself (PG ordinal) */
      g_assert_cmpuint (c->instance, !=, WEFT_NONE);
      g_assert_cmpuint (trace_instance (trace, c->instance)->members->len, ==, 1);
      g_assert_cmpint (trace_instance (trace, c->instance)->method, ==, WEFT_MATCH_PG_ORDINAL);
    }
  g_assert_cmpuint (n_ar, ==, 15);
  g_assert_cmpuint (n_bc, ==, 6);
  g_assert_false (trace->offsets_estimated);
  g_assert_cmpint (rank->clock_offset_ns, ==, 0);
}

static void
test_fsdp8_seq (void)
{
  g_autofree char *dir = weft_test_require_trace ("synthetic/fsdp8/profiling/traces/iteration_10");
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftTrace) trace = NULL;

  if (dir == NULL)
    return;
  trace = weft_trace_load (dir, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (trace->ranks->len, ==, 8);
  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);
      g_autofree char *name = g_strdup_printf ("rank%u_trace.json.gz", r);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      json_object *root = read_json_independently (path);
      guint checked = check_collectives_against_json (rank, root);
      json_object_put (root);
      g_assert_cmpuint (checked, >, 0);
      for (guint i = 0; i < rank->collectives->len; i++)
        {
          WeftCollective *c = rank_coll (rank, i);
          WeftCollInstance *inst;
          g_assert_cmpint (c->seq, >=, 0);
          g_assert_cmpuint (c->instance, !=, WEFT_NONE);
          inst = trace_instance (trace, c->instance);
          g_assert_cmpint (inst->method, ==, WEFT_MATCH_SEQ);
          g_assert_cmpint (inst->seq, ==, c->seq);
          g_assert_cmpint (inst->type, ==, c->type);
          /* the instance spans exactly the group's ranks, in rank order */
          g_assert_cmpuint (inst->members->len, ==, c->n_pg_ranks);
          for (guint j = 0; j < inst->members->len; j++)
            {
              const WeftInstanceMember *m = instance_member (inst, j);
              WeftRank *mr = weft_trace_rank (trace, m->rank_index);
              g_assert_cmpint (mr->rank, ==, c->pg_ranks[j]);
              g_assert_cmpint (rank_coll (mr, m->coll)->seq, ==, c->seq);
            }
          /* a simulated rendezvous: the ends agree on one clock */
          g_assert_cmpint (end_spread (trace, inst, TRUE), <=, 10000);
        }
    }
}

static void
test_tracelens_allgather (void)
{
  g_autofree char *path = weft_test_require_trace ("TraceLens/b200/eager_trace.json.gz");
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftTrace) trace = NULL;
  json_object *root;
  WeftRank *rank;
  guint n_ag = 0, n_multimem = 0;

  if (path == NULL)
    return;
  trace = weft_trace_load (path, NULL, NULL, &error);
  g_assert_no_error (error);
  rank = weft_trace_rank (trace, 0);
  root = read_json_independently (path);
  {
    g_autoptr (GHashTable) expected = comm_kernels_by_correlation (root);
    for (guint i = 0; i < rank->collectives->len; i++)
      {
        WeftCollective *c = rank_coll (rank, i);
        const WeftEvent *ev = weft_rank_event (rank, c->event);
        const char *kname = weft_rank_string (rank, ev->name);
        json_object *e = g_hash_table_lookup (expected, &(gint64) { weft_event_correlation (rank, ev) });
        if (g_str_has_prefix (kname, "ncclDevKernel_AllGather"))
          {
            json_object *args = obj_get (e, "args");
            g_assert_nonnull (e);
            g_assert_cmpint (c->type, ==, WEFT_COLL_ALL_GATHER);
            g_assert_cmpint (c->source, ==, WEFT_COLL_SOURCE_KERNEL_ARGS);
            g_assert_cmpint (c->bytes, ==, expected_bytes (args));
            g_assert_cmpstr (weft_rank_string (rank, c->pg_name), ==,
                             json_object_get_string (obj_get (args, "Process Group Name")));
            g_assert_cmpuint (c->n_pg_ranks, ==, 8);
            g_assert_cmpint (c->group_size, ==, 8);
            n_ag++;
          }
        else
          {
            /* PyTorch symmetric-memory all-reduce: no args, typed by name */
            g_assert_true (strstr (kname, "multimem_all_reduce") != NULL);
            g_assert_null (e);
            g_assert_cmpint (c->type, ==, WEFT_COLL_ALL_REDUCE);
            g_assert_cmpint (c->source, ==, WEFT_COLL_SOURCE_KERNEL_NAME);
            n_multimem++;
          }
      }
    g_assert_cmpuint (n_ag, ==, g_hash_table_size (expected));
  }
  json_object_put (root);
  g_assert_cmpuint (n_ag, >=, 1);
  g_test_message ("b200: %u all-gathers from args, %u multimem all-reduces by name", n_ag, n_multimem);
}

/* ---- small traces written by the test ------------------------------------------- */

#define BASE_NS G_GINT64_CONSTANT (1700000000000000000)

typedef struct
{
  GString *events;
  int      rank;
  int      world;
  char    *pg_config;   /* JSON array text or NULL */
  gint64   skew;        /* ns added to every time: this rank's clock error */
  const char *launch;   /* runtime call of a launch: cudaLaunchKernel, or hipLaunchKernel (ROCm) */
  const char *gpu_pid;  /* pid of the GPU lanes: "0", or "2" (ROCm) */
} RankJson;

static void
rj_init (RankJson *rj, int rank, int world, const char *pg_config, gint64 skew)
{
  rj->events = g_string_new (NULL);
  rj->rank = rank;
  rj->world = world;
  rj->pg_config = g_strdup (pg_config);
  rj->skew = skew;
  rj->launch = "cudaLaunchKernel";
  rj->gpu_pid = "0";
}

/* Kineto's relative "ts": microseconds with 3 decimals. */
static void
append_us (GString *s, gint64 ns)
{
  g_string_append_printf (s, "%s%" G_GINT64_FORMAT ".%03d", ns < 0 ? "-" : "", ABS (ns) / 1000, (int) (ABS (ns) % 1000));
}

static void
rj_event (RankJson *rj, const char *cat, const char *name, const char *pid, const char *tid, gint64 ts, gint64 dur,
          const char *args)
{
  if (rj->events->len > 0)
    g_string_append (rj->events, ",\n");
  g_string_append_printf (rj->events, "{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": %s, \"tid\": %s, \"ts\": ",
                          cat, name, pid, tid);
  append_us (rj->events, ts + rj->skew);
  g_string_append (rj->events, ", \"dur\": ");
  append_us (rj->events, dur);
  g_string_append_printf (rj->events, ", \"args\": {%s}}", args ? args : "");
}

static void
rj_cpu (RankJson *rj, const char *name, gint64 ts, gint64 dur, gint64 ext, const char *extra)
{
  g_autofree char *args = g_strdup_printf ("\"External id\": %" G_GINT64_FORMAT "%s%s", ext, extra ? ", " : "",
                                           extra ? extra : "");
  rj_event (rj, "cpu_op", name, "100", "100", ts, dur, args);
}

static void
rj_launch (RankJson *rj, gint64 ts, gint64 corr, gint64 ext)
{
  g_autofree char *args = g_strdup_printf ("\"External id\": %" G_GINT64_FORMAT ", \"cbid\": 211, \"correlation\": %"
                                           G_GINT64_FORMAT, ext, corr);
  rj_event (rj, "cuda_runtime", rj->launch, "100", "100", ts, 5000, args);
}

static void
rj_gpu (RankJson *rj, const char *cat, const char *name, int stream, gint64 ts, gint64 dur, gint64 corr, gint64 ext,
        const char *extra)
{
  g_autofree char *tid = g_strdup_printf ("%d", stream);
  g_autofree char *args = g_strdup_printf ("\"External id\": %" G_GINT64_FORMAT ", \"device\": 0, \"stream\": %d, "
                                           "\"correlation\": %" G_GINT64_FORMAT "%s%s",
                                           ext, stream, corr, extra ? ", " : "", extra ? extra : "");
  rj_event (rj, cat, name, rj->gpu_pid, tid, ts, dur, args);
}

/* A launch at ts and its kernel at kts (correlation = ext = id). */
static void
rj_kernel (RankJson *rj, const char *name, int stream, gint64 ts, gint64 kts, gint64 kdur, gint64 id, const char *extra)
{
  rj_launch (rj, ts, id, id);
  rj_gpu (rj, "kernel", name, stream, kts, kdur, id, id, extra);
}

/* The whole JSON text of the rank; frees the events. */
static GString *
rj_finish (RankJson *rj)
{
  GString *json = g_string_new (NULL);

  g_string_append_printf (json, "{\"schemaVersion\": 1, \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, "
                                "\"world_size\": %d",
                          rj->rank, rj->world);
  if (rj->pg_config != NULL)
    g_string_append_printf (json, ", \"pg_config\": %s", rj->pg_config);
  g_string_append_printf (json, "}, \"baseTimeNanoseconds\": %" G_GINT64_FORMAT ", \"traceEvents\": [\n%s\n]}\n",
                          BASE_NS, rj->events->str);
  g_string_free (rj->events, TRUE);
  g_free (rj->pg_config);
  return json;
}

static WeftRank *
rj_load (RankJson *rj)
{
  g_autoptr (GString) json = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *name = g_strdup_printf ("rank%d_trace.json", rj->rank);
  int rank_number = rj->rank;
  WeftRank *rank;

  json = rj_finish (rj);
  rank = weft_rank_load_buffer (name, json->str, json->len, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (rank);
  g_assert_cmpint (rank->rank, ==, rank_number);
  return rank;
}

/* Writes the rank to DIR/rank<R>.pt.trace.json under the test's tmpdir. */
static void
rj_write (RankJson *rj, const char *dir)
{
  g_autofree char *name = g_strdup_printf ("%s/rank%d.pt.trace.json", dir, rj->rank);
  g_autoptr (GString) json = rj_finish (rj);
  g_free (weft_test_write_file (name, json->str, (gssize) json->len));
}

static WeftCollective *
coll_of_kernel (WeftRank *rank, gint64 correlation)
{
  for (guint i = 0; i < rank->collectives->len; i++)
    if (weft_event_correlation (rank, weft_rank_event (rank, rank_coll (rank, i)->event)) == correlation)
      return rank_coll (rank, i);
  g_error ("no collective for correlation %" G_GINT64_FORMAT, correlation);
  return NULL;
}

static const char *
ranks_text (WeftCollective *c, GString *out)
{
  g_string_assign (out, "");
  for (guint k = 0; k < c->n_pg_ranks; k++)
    g_string_append_printf (out, k ? ",%d" : "%d", c->pg_ranks[k]);
  return out->str;
}

/* TP groups: the same PG name on different ranks means different rank sets;
 * instances are keyed by (name, ranks, Seq). Clocks skewed by known amounts. */
static void
test_tp_groups_and_offsets (void)
{
  static const gint64 skew[4] = { 0, 40000, -25000, 90000 };
  g_autoptr (WeftTrace) trace = weft_trace_new ();
  guint n_tp = 0, n_world = 0;

  for (int r = 0; r < 4; r++)
    {
      RankJson rj;
      int lo = r & ~1;
      g_autofree char *pg = g_strdup_printf ("[{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", \"pg_size\": 4, "
                                             "\"ranks\": [0, 1, 2, 3]}, {\"pg_name\": \"1\", \"pg_desc\": \"mesh_tp\", "
                                             "\"pg_size\": 2, \"ranks\": [%d, %d]}]",
                                             lo, lo + 1);
      g_autofree char *tp = g_strdup_printf ("\"Collective name\": \"allreduce\", \"In msg nelems\": 1024, "
                                             "\"Out msg nelems\": 1024, \"Group size\": 2, \"dtype\": \"BFloat16\", "
                                             "\"Process Group Name\": \"1\", \"Process Group Description\": "
                                             "\"mesh_tp\", \"Process Group Ranks\": \"[%d, %d]\", \"Seq\": 7",
                                             lo, lo + 1);
      const char *world = "\"Collective name\": \"_allgather_base\", \"In msg nelems\": 100, \"Out msg nelems\": 400, "
                          "\"Group size\": 4, \"dtype\": \"Float\", \"Process Group Name\": \"0\", \"Process Group "
                          "Description\": \"default_pg\", \"Process Group Ranks\": \"[0, 1, 2, 3]\", \"Seq\": 3";

      rj_init (&rj, r, 4, pg, skew[r]);
      /* starts differ (waiting), true ends agree: 1.5 ms and 2.7 ms (+ the pair's own end) */
      rj_kernel (&rj, "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 20,
                 1000000 + r * 1000, 1010000 + r * 7000, 1500000 - (1010000 + r * 7000) + lo * 1000, 11, tp);
      rj_kernel (&rj, "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 20, 2000000,
                 2100000 + r * 11000, 2700000 - (2100000 + r * 11000), 12, world);
      weft_trace_add_rank (trace, rj_load (&rj));
    }
  weft_trace_index_across_ranks (trace);

  g_assert_cmpuint (trace->instances->len, ==, 3);
  for (guint k = 0; k < trace->instances->len; k++)
    {
      WeftCollInstance *inst = trace_instance (trace, k);
      WeftRank *first = weft_trace_rank (trace, instance_member (inst, 0)->rank_index);
      g_autoptr (GString) t = g_string_new (NULL);
      g_assert_cmpint (inst->method, ==, WEFT_MATCH_SEQ);
      if (inst->type == WEFT_COLL_ALL_REDUCE)
        {
          WeftCollective *c = rank_coll (first, instance_member (inst, 0)->coll);
          g_assert_cmpuint (inst->members->len, ==, 2);
          g_assert_cmpint (inst->seq, ==, 7);
          /* members are exactly the group's ranks */
          g_assert_cmpint (weft_trace_rank (trace, instance_member (inst, 0)->rank_index)->rank, ==, c->pg_ranks[0]);
          g_assert_cmpint (weft_trace_rank (trace, instance_member (inst, 1)->rank_index)->rank, ==, c->pg_ranks[1]);
          g_assert_cmpstr (weft_rank_string (first, c->pg_desc), ==, "mesh_tp");
          g_assert_cmpint (c->bytes, ==, 1024 * 2);
          n_tp++;
        }
      else
        {
          WeftCollective *c = rank_coll (first, instance_member (inst, 0)->coll);
          g_assert_cmpint (inst->type, ==, WEFT_COLL_ALL_GATHER);
          g_assert_cmpuint (inst->members->len, ==, 4);
          g_assert_cmpstr (ranks_text (c, t), ==, "0,1,2,3");
          g_assert_cmpint (c->bytes, ==, 400 * 4);
          n_world++;
        }
    }
  g_assert_cmpuint (n_tp, ==, 2);
  g_assert_cmpuint (n_world, ==, 1);

  /* the offsets undo the skews exactly (the true ends agree to the ns) */
  g_assert_true (trace->offsets_estimated);
  for (guint r = 0; r < 4; r++)
    g_assert_cmpint (weft_trace_rank (trace, r)->clock_offset_ns, ==, -skew[r]);
  for (guint k = 0; k < trace->instances->len; k++)
    g_assert_cmpint (end_spread (trace, trace_instance (trace, k), TRUE), ==, 0);
}

/* A TP group without rank 0 still aligns through the world group; a rank
 * that shares no instance keeps offset 0. */
static void
test_offsets_through_groups (void)
{
  g_autoptr (WeftTrace) trace = weft_trace_new ();
  static const gint64 skew[3] = { 0, 5000000, -700000 };

  for (int r = 0; r < 3; r++)
    {
      RankJson rj;
      rj_init (&rj, r, 3, NULL, skew[r]);
      if (r <= 1)
        rj_kernel (&rj, "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", 7, 1000000, 1100000,
                   200000 + r * 30000, 1,
                   "\"Collective name\": \"allreduce\", \"In msg nelems\": 8, \"dtype\": \"Float\", "
                   "\"Process Group Name\": \"0\", \"Process Group Ranks\": \"[0, 1]\", \"Seq\": 1");
      /* ranks 1 and 2: their own group, ends agree */
      if (r >= 1)
        rj_kernel (&rj, "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", 7, 2000000, 2000000 + r * 1000,
                   500000 - r * 1000, 2,
                   "\"Collective name\": \"allreduce\", \"In msg nelems\": 8, \"dtype\": \"Float\", "
                   "\"Process Group Name\": \"4\", \"Process Group Ranks\": \"[1, 2]\", \"Seq\": 1");
      weft_trace_add_rank (trace, rj_load (&rj));
    }
  weft_trace_index_across_ranks (trace);
  g_assert_cmpuint (trace->instances->len, ==, 2);
  /* rank 1's kernel in the first instance ends 30 us after rank 0's */
  g_assert_cmpint (weft_trace_rank (trace, 1)->clock_offset_ns, ==, -skew[1] - 30000);
  g_assert_cmpint (weft_trace_rank (trace, 2)->clock_offset_ns, ==, -skew[2] - 30000);
  g_assert_true (trace->offsets_estimated);

  {
    g_autoptr (WeftTrace) lonely = weft_trace_new ();
    RankJson a, b;
    rj_init (&a, 0, 2, NULL, 0);
    rj_kernel (&a, "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", 7, 1000, 2000, 3000, 1,
               "\"Collective name\": \"allreduce\", \"Process Group Name\": \"0\", \"Process Group Ranks\": \"[0]\"");
    rj_init (&b, 1, 2, NULL, 123456);
    rj_kernel (&b, "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", 7, 1000, 2000, 3000, 1,
               "\"Collective name\": \"allreduce\", \"Process Group Name\": \"9\", \"Process Group Ranks\": \"[1]\"");
    weft_trace_add_rank (lonely, rj_load (&a));
    weft_trace_add_rank (lonely, rj_load (&b));
    weft_trace_index_across_ranks (lonely);
    g_assert_cmpuint (lonely->instances->len, ==, 2);
    g_assert_false (lonely->offsets_estimated);
    g_assert_cmpint (weft_trace_rank (lonely, 1)->clock_offset_ns, ==, 0);
  }
}

/* "Process Group Ranks" truncated after 30 entries: completed from
 * pg_config by name, else from Global rank start/stride; else kept. */
static void
test_truncated_ranks (void)
{
  g_autoptr (GString) pg = g_string_new ("[{\"pg_name\": \"5\", \"pg_desc\": \"mesh_dp\", \"pg_size\": 40, \"ranks\": [");
  g_autoptr (GString) trunc1 = g_string_new ("[");
  g_autoptr (GString) trunc2 = g_string_new ("[");
  g_autofree char *a1 = NULL, *a2 = NULL, *a3 = NULL;
  RankJson rj;
  WeftRank *rank;
  WeftCollective *c;

  for (int i = 0; i < 40; i++)
    g_string_append_printf (pg, i ? ", %d" : "%d", i);
  g_string_append (pg, "]}]");
  for (int i = 0; i < 30; i++)
    {
      g_string_append_printf (trunc1, "%d, ", i);
      g_string_append_printf (trunc2, "%d, ", 2 * i);
    }
  g_string_append (trunc1, "...]");
  g_string_append (trunc2, "...]");
  a1 = g_strdup_printf ("\"Collective name\": \"allreduce\", \"In msg nelems\": 10, \"Out msg nelems\": 10, "
                        "\"Group size\": 40, \"dtype\": \"Float\", \"Process Group Name\": \"5\", "
                        "\"Process Group Ranks\": \"%s\", \"Seq\": 1",
                        trunc1->str);
  a2 = g_strdup_printf ("\"Collective name\": \"allreduce\", \"In msg nelems\": 10, \"Out msg nelems\": 10, "
                        "\"Group size\": 40, \"dtype\": \"Float\", \"Process Group Name\": \"6\", "
                        "\"Process Group Ranks\": \"%s\", \"Global rank start\": 0, \"Global rank stride\": 2, \"Seq\": 1",
                        trunc2->str);
  a3 = g_strdup_printf ("\"Collective name\": \"allreduce\", \"In msg nelems\": 10, \"Out msg nelems\": 10, "
                        "\"Group size\": 40, \"dtype\": \"Float\", \"Process Group Name\": \"7\", "
                        "\"Process Group Ranks\": \"%s\", \"Seq\": 1",
                        trunc2->str);
  rj_init (&rj, 0, 80, pg->str, 0);
  rj_kernel (&rj, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 9, 1000, 2000, 100, 1, a1);
  rj_kernel (&rj, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 9, 5000, 6000, 100, 2, a2);
  rj_kernel (&rj, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 9, 9000, 9500, 100, 3, a3);
  rank = rj_load (&rj);

  c = coll_of_kernel (rank, 1);
  g_assert_cmpuint (c->n_pg_ranks, ==, 40);
  g_assert_cmpint (c->pg_ranks[39], ==, 39);
  g_assert_cmpstr (weft_rank_string (rank, c->pg_desc), ==, "mesh_dp"); /* from pg_config */
  c = coll_of_kernel (rank, 2);
  g_assert_cmpuint (c->n_pg_ranks, ==, 40);
  g_assert_cmpint (c->pg_ranks[39], ==, 78);
  c = coll_of_kernel (rank, 3);
  g_assert_cmpuint (c->n_pg_ranks, ==, 30); /* nothing to complete it from: the 30 known */
  g_assert_cmpint (c->group_size, ==, 40);
  g_assert_cmpint (c->pg_ranks[29], ==, 58);
  weft_rank_free (rank);
}

/* Args only on record_param_comms (same External id, launch inside it); an
 * unrelated record_param_comms that happens to share the kernel's External
 * id (old Kineto: External id = correlation) is not taken. */
static void
test_cpu_op_source (void)
{
  RankJson rj;
  WeftRank *rank;
  WeftCollective *c;

  rj_init (&rj, 0, 8, NULL, 0);
  rj_cpu (&rj, "c10d::_reduce_scatter_base_", 1000000, 60000, 41, NULL);
  rj_cpu (&rj, "record_param_comms", 1001000, 50000, 42,
          "\"Collective name\": \"_reduce_scatter_base\", \"In msg nelems\": 8192, \"Out msg nelems\": 1024, "
          "\"Group size\": 8, \"dtype\": \"Float\", \"Process Group Name\": \"0\", \"Process Group Description\": "
          "\"default_pg\", \"Process Group Ranks\": \"[0, 1, 2, 3, 4, 5, 6, 7]\"");
  rj_launch (&rj, 1010000, 900, 42);
  rj_gpu (&rj, "kernel", "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 30, 1020000,
          80000, 900, 42, NULL);
  /* unrelated op with External id 77, far from the second kernel's launch */
  rj_cpu (&rj, "record_param_comms", 3000000, 10000, 77,
          "\"Collective name\": \"broadcast\", \"In msg nelems\": 5, \"dtype\": \"Float\"");
  rj_kernel (&rj, "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", 30, 2000000, 2010000, 5000, 77, NULL);
  /* a named op around a launch (old traces): type from nccl:all_reduce, size from its Input Dims */
  rj_event (&rj, "user_annotation", "nccl:all_reduce", "100", "100", 4000000, 20000,
            "\"External id\": 90, \"Input Dims\": [[394241]], \"Input type\": [\"float\"]");
  rj_kernel (&rj, "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclWorkElem)", 30, 4005000, 4100000, 5000, 91, NULL);
  rank = rj_load (&rj);

  g_assert_cmpuint (rank->collectives->len, ==, 3);
  c = coll_of_kernel (rank, 900);
  g_assert_cmpint (c->source, ==, WEFT_COLL_SOURCE_CPU_OP);
  g_assert_cmpint (c->type, ==, WEFT_COLL_REDUCE_SCATTER);
  g_assert_cmpint (c->bytes, ==, 8192 * 4);
  g_assert_cmpint (c->group_size, ==, 8);
  g_assert_cmpuint (c->n_pg_ranks, ==, 8);
  g_assert_cmpstr (weft_rank_string (rank, weft_rank_event (rank, c->cpu_event)->name), ==, "record_param_comms");

  c = coll_of_kernel (rank, 77);
  g_assert_cmpint (c->source, ==, WEFT_COLL_SOURCE_KERNEL_NAME);
  g_assert_cmpint (c->type, ==, WEFT_COLL_ALL_REDUCE);
  g_assert_cmpuint (c->cpu_event, ==, WEFT_NONE);
  g_assert_cmpint (c->bytes, ==, -1);

  /* a SendRecv kernel inside nccl:all_reduce is that all-reduce: the op wins over the name */
  c = coll_of_kernel (rank, 91);
  g_assert_cmpint (c->source, ==, WEFT_COLL_SOURCE_CPU_OP);
  g_assert_cmpint (c->type, ==, WEFT_COLL_ALL_REDUCE);
  g_assert_cmpint (c->bytes, ==, 394241 * 4);
  g_assert_cmpstr (weft_rank_string (rank, weft_rank_event (rank, c->cpu_event)->name), ==, "nccl:all_reduce");
  weft_rank_free (rank);
}

/* Send/recv pair by (src, dst), in order. */
static void
test_p2p (void)
{
  g_autoptr (WeftTrace) trace = weft_trace_new ();

  for (int r = 0; r < 2; r++)
    {
      RankJson rj;
      rj_init (&rj, r, 2, NULL, 0);
      for (int k = 0; k < 2; k++)
        {
          g_autofree char *args = r == 0 ? g_strdup_printf ("\"Collective name\": \"send\", \"In msg nelems\": %d, "
                                                            "\"dtype\": \"Float\", \"Dst Rank\": 1, "
                                                            "\"Process Group Name\": \"0\", \"Process Group Ranks\": "
                                                            "\"[0, 1]\"",
                                                            100 * (k + 1))
                                         : g_strdup_printf ("\"Collective name\": \"recv\", \"Out msg nelems\": %d, "
                                                            "\"dtype\": \"Float\", \"Src Rank\": 0, "
                                                            "\"Process Group Name\": \"0\", \"Process Group Ranks\": "
                                                            "\"[0, 1]\"",
                                                            100 * (k + 1));
          rj_kernel (&rj, "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", 40, 1000000 * (k + 1),
                     1000000 * (k + 1) + 10000, 50000, 10 + k, args);
        }
      /* a SendRecv with no peers: not matched */
      rj_kernel (&rj, "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", 40, 5000000, 5010000, 50000, 30, NULL);
      weft_trace_add_rank (trace, rj_load (&rj));
    }
  weft_trace_index_across_ranks (trace);
  g_assert_cmpuint (trace->instances->len, ==, 2);
  for (guint k = 0; k < 2; k++)
    {
      WeftCollInstance *inst = trace_instance (trace, k);
      WeftRank *r0 = weft_trace_rank (trace, instance_member (inst, 0)->rank_index);
      WeftRank *r1 = weft_trace_rank (trace, instance_member (inst, 1)->rank_index);
      WeftCollective *send = rank_coll (r0, instance_member (inst, 0)->coll);
      WeftCollective *recv = rank_coll (r1, instance_member (inst, 1)->coll);
      g_assert_cmpint (inst->method, ==, WEFT_MATCH_P2P);
      g_assert_cmpuint (inst->members->len, ==, 2);
      g_assert_cmpint (r0->rank, ==, 0);
      g_assert_cmpint (r1->rank, ==, 1);
      g_assert_cmpint (send->type, ==, WEFT_COLL_SEND);
      g_assert_cmpint (recv->type, ==, WEFT_COLL_RECV);
      g_assert_cmpint (send->bytes, ==, recv->bytes);
      g_assert_cmpint (send->bytes, ==, 400 * (k + 1));
    }
  for (guint r = 0; r < 2; r++)
    {
      WeftRank *rank = weft_trace_rank (trace, r);
      WeftCollective *c = coll_of_kernel (rank, 30);
      g_assert_cmpint (c->type, ==, WEFT_COLL_SEND_RECV);
      g_assert_cmpuint (c->instance, ==, WEFT_NONE);
    }
}

/* Without process-group data, ordinals on a stream match only where the
 * ranks ran the same sequence of collective types there. */
static void
test_stream_ordinals (void)
{
  static const char *seq_a[] = { "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)",
                                 "ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclWorkElem)" };
  g_autoptr (WeftTrace) same = weft_trace_new ();
  g_autoptr (WeftTrace) differ = weft_trace_new ();

  for (int r = 0; r < 2; r++)
    {
      RankJson a, b;
      rj_init (&a, r, 2, NULL, 0);
      rj_init (&b, r, 2, NULL, 0);
      for (int k = 0; k < 2; k++)
        {
          /* the stream id differs across ranks; each rank has one comm stream */
          rj_kernel (&a, seq_a[k], 80 + r, 1000000 * (k + 1), 1000000 * (k + 1) + 1000, 1000, 5 + k, NULL);
          rj_kernel (&b, seq_a[(k + r) % 2], 80, 1000000 * (k + 1), 1000000 * (k + 1) + 1000, 1000, 5 + k, NULL);
        }
      weft_trace_add_rank (same, rj_load (&a));
      weft_trace_add_rank (differ, rj_load (&b));
    }
  weft_trace_index_across_ranks (same);
  weft_trace_index_across_ranks (differ);
  g_assert_cmpuint (same->instances->len, ==, 2);
  g_assert_cmpint (trace_instance (same, 0)->method, ==, WEFT_MATCH_STREAM_ORDINAL);
  g_assert_cmpint (trace_instance (same, 0)->type, ==, WEFT_COLL_ALL_REDUCE);
  g_assert_cmpint (trace_instance (same, 1)->type, ==, WEFT_COLL_BROADCAST);
  g_assert_cmpuint (trace_instance (same, 0)->members->len, ==, 2);
  g_assert_cmpuint (differ->instances->len, ==, 0);
  g_assert_false (differ->offsets_estimated);
}

/* Kernels launched inside Optimizer.step are the optimizer's unless their
 * names say otherwise; memcpy / memset are copies. */
static void
test_optimizer_context (void)
{
  RankJson rj;
  WeftRank *rank;
  const char *add = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
                    "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)";

  rj_init (&rj, 0, 1, NULL, 0);
  rj_kernel (&rj, add, 7, 100000, 200000, 1000, 1, NULL);
  rj_event (&rj, "user_annotation", "Optimizer.step#AdamW.step", "100", "100", 1000000, 500000, "\"External id\": 3");
  rj_cpu (&rj, "aten::_foreach_add_", 1010000, 100000, 4, NULL);
  rj_kernel (&rj, add, 7, 1020000, 1100000, 1000, 5, NULL);
  rj_kernel (&rj, "volta_sgemm_128x64_nn", 7, 1200000, 1300000, 1000, 6, NULL);
  rj_launch (&rj, 1400000, 7, 7);
  rj_gpu (&rj, "gpu_memcpy", "Memcpy DtoD (Device -> Device)", 7, 1400500, 100, 7, 7, "\"bytes\": 4");
  rank = rj_load (&rj);
  for (guint i = 0; i < rank->events->len; i++)
    {
      const WeftEvent *ev = weft_rank_event (rank, i);
      if (!(ev->flags & WEFT_EVENT_GPU_OP))
        {
          g_assert_cmpint (ev->kclass, ==, WEFT_KCLASS_NONE);
          continue;
        }
      switch (weft_event_correlation (rank, ev))
        {
        case 1:
          g_assert_cmpint (ev->kclass, ==, WEFT_KCLASS_ELEMENTWISE);
          break;
        case 5:
          g_assert_cmpint (ev->kclass, ==, WEFT_KCLASS_OPTIMIZER);
          break;
        case 6:
          g_assert_cmpint (ev->kclass, ==, WEFT_KCLASS_GEMM);
          break;
        case 7:
          g_assert_cmpint (ev->kclass, ==, WEFT_KCLASS_COPY);
          break;
        default:
          g_assert_not_reached ();
        }
    }
  weft_rank_free (rank);
}

/* Odd args never crash and give unknowns, not garbage; a collective of a
 * kernel created by an edit survives re-classification. */
static void
test_odd_args_and_created (void)
{
  RankJson rj;
  WeftRank *rank;
  WeftCollective *c;

  rj_init (&rj, 0, 2, "[{\"pg_name\": \"0\", \"ranks\": \"[0, 1]\"}, {\"pg_name\": 5}]", 0);
  rj_kernel (&rj, "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 3, 1000, 2000, 100, 1,
             "\"Collective name\": 17, \"In msg nelems\": 9223372036854775807, \"Out msg nelems\": -5, "
             "\"Group size\": 2147483647, \"dtype\": [\"Float\"], \"Process Group Name\": {\"a\": 1}, "
             "\"Process Group Ranks\": [[1], \"x\", 2], \"Seq\": \"12x\", \"Src Rank\": 1e300");
  rj_kernel (&rj, "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 3, 5000, 6000, 100, 2,
             "\"Collective name\": \"_reduce_scatter_base\", \"Out msg nelems\": 4611686018427387904, "
             "\"Group size\": 4, \"dtype\": \"Float\", \"Process Group Name\": \"0\", "
             "\"Process Group Ranks\": \"[0, 1, ...]\", \"Global rank start\": 9223372036854775000, "
             "\"Global rank stride\": 9223372036854775000, \"Seq\": 3");
  rj_kernel (&rj, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 3, 9000, 9500, 100, 3,
             "\"Collective name\": \"allreduce\", \"In msg nelems\": 8, \"dtype\": \"Float\", "
             "\"Process Group Name\": \"0\", \"Seq\": 4");
  rank = rj_load (&rj);

  c = coll_of_kernel (rank, 1);
  g_assert_cmpint (c->type, ==, WEFT_COLL_ALL_GATHER);           /* by name: the args' name is not a string */
  g_assert_cmpint (c->bytes, ==, -1);                            /* no dtype */
  g_assert_cmpint (c->seq, ==, -1);
  g_assert_cmpint (c->src_rank, ==, -1);
  g_assert_cmpuint (c->n_pg_ranks, ==, 1);                        /* the one int in the list */
  c = coll_of_kernel (rank, 2);
  g_assert_cmpint (c->type, ==, WEFT_COLL_REDUCE_SCATTER);
  g_assert_cmpint (c->bytes, ==, -1);                            /* out x 4 x 4 overflows */
  g_assert_cmpuint (c->n_pg_ranks, ==, 2);                        /* from pg_config "0" */
  c = coll_of_kernel (rank, 3);
  g_assert_cmpint (c->bytes, ==, 32);
  g_assert_cmpuint (c->n_pg_ranks, ==, 2);                        /* missing list: from pg_config */

  /* an edit creates this kernel and sets its collective */
  weft_rank_event (rank, c->event)->flags |= WEFT_EVENT_CREATED;
  c->bytes = 123456;
  c->type = WEFT_COLL_BROADCAST;
  coll_of_kernel (rank, 2)->bytes = 99; /* not created: rebuilt from its args */
  weft_rank_classify (rank);
  g_assert_cmpuint (rank->collectives->len, ==, 3);
  c = coll_of_kernel (rank, 3);
  g_assert_cmpint (c->bytes, ==, 123456);
  g_assert_cmpint (c->type, ==, WEFT_COLL_BROADCAST);
  g_assert_cmpuint (c->n_pg_ranks, ==, 2);
  g_assert_cmpuint (weft_rank_event_coll (rank, c->event), ==, (guint32) (c - rank_coll (rank, 0)));
  g_assert_cmpint (coll_of_kernel (rank, 2)->bytes, ==, -1);
  weft_rank_free (rank);
}

/* ---- stacks beyond NCCL: expert parallelism, ROCm --------------------------------- */

typedef struct
{
  const char *what;
  const char *launch;          /* runtime call of every launch */
  const char *gpu_pid;
  const char *gemm;
  const char *layout, *notify, *dispatch, *cached_notify, *combine;
  const char *allreduce;       /* NCCL / RCCL kernel on its own stream */
  gboolean    allreduce_args;  /* with record_param_comms-style args (pg, Seq) */
} EpStack;

/* One MoE layer per rank in the style of DeepEP: layout / notify / dispatch
 * and notify / combine kernels on their own stream 24, launched like any
 * kernel, no collective args; expert GEMMs on stream 7 overlap them but
 * the last 40 us of combine; one all-reduce on stream 20, inside dispatch.
 * Rank r starts dispatch 7r us later; every kernel ends at the same time
 * on both ranks. */
static void
ep_rank (const EpStack *st, int r, const char *dir)
{
  RankJson rj;
  const gint64 us = 1000;

  rj_init (&rj, r, 2, "[{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", \"pg_size\": 2, \"ranks\": [0, 1]}]", 0);
  rj.launch = st->launch;
  rj.gpu_pid = st->gpu_pid;
  rj_event (&rj, "user_annotation", "ProfilerStep#3", "100", "100", 50 * us, 900 * us, "\"External id\": 100");
  rj_kernel (&rj, st->gemm, 7, 100 * us, 110 * us, 400 * us, 1, NULL);
  rj_kernel (&rj, st->layout, 24, 102 * us, 120 * us, 5 * us, 2, NULL);
  rj_kernel (&rj, st->notify, 24, 104 * us, 130 * us, 20 * us, 3, NULL);
  rj_kernel (&rj, st->dispatch, 24, 106 * us, (160 + 7 * r) * us, (200 - 7 * r) * us, 4, NULL);
  rj_kernel (&rj, st->allreduce, 20, 108 * us, 200 * us, 100 * us, 5,
             st->allreduce_args ? "\"Collective name\": \"allreduce\", \"In msg nelems\": 4096, \"Out msg nelems\": "
                                  "4096, \"Group size\": 2, \"dtype\": \"BFloat16\", \"Process Group Name\": \"0\", "
                                  "\"Process Group Ranks\": \"[0, 1]\", \"Seq\": 1"
                                : NULL);
  rj_kernel (&rj, st->gemm, 7, 515 * us, 520 * us, 300 * us, 6, NULL);
  rj_kernel (&rj, st->cached_notify, 24, 522 * us, 530 * us, 10 * us, 7, NULL);
  rj_kernel (&rj, st->combine, 24, 524 * us, 560 * us, 300 * us, 8, NULL);
  rj_write (&rj, dir);
}

static void
check_ep_stack (const EpStack *st)
{
  static const WeftCollType expected[] = { WEFT_COLL_EP_NOTIFY, WEFT_COLL_EP_NOTIFY, WEFT_COLL_ALL_TO_ALL,
                                           WEFT_COLL_ALL_REDUCE, WEFT_COLL_EP_NOTIFY, WEFT_COLL_ALL_TO_ALL };
  g_autofree char *dir = g_strdup_printf ("ep-%s", st->what);
  g_autofree char *path = g_build_filename (weft_test_tmpdir (), dir, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftTrace) trace = NULL;
  WeftSolver *solver;
  WeftMetrics m;
  guint n_ordinal = 0;

  for (int r = 0; r < 2; r++)
    ep_rank (st, r, dir);
  trace = weft_trace_load (path, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (trace->ranks->len, ==, 2);

  for (guint ri = 0; ri < 2; ri++)
    {
      WeftRank *rank = weft_trace_rank (trace, ri);
      g_assert_cmpuint (rank->collectives->len, ==, G_N_ELEMENTS (expected));
      for (guint i = 0; i < rank->collectives->len; i++)
        {
          WeftCollective *c = rank_coll (rank, i);
          const WeftEvent *ev = weft_rank_event (rank, c->event);
          WeftCollType want = expected[i];
          if (i == 3 && !st->allreduce_args)
            want = WEFT_COLL_UNKNOWN; /* RCCL Generic without args: the name does not say */
          g_assert_cmpint (ev->kclass, ==, WEFT_KCLASS_COMM);
          g_assert_cmpint (weft_event_link (ev), !=, WEFT_NONE); /* launched by the runtime call */
          g_assert_cmpstr (weft_rank_string (rank, weft_rank_event (rank, weft_event_link (ev))->name), ==, st->launch);
          g_assert_cmpint (c->type, ==, want);
          g_assert_cmpint (c->source, ==, i == 3 && st->allreduce_args ? WEFT_COLL_SOURCE_KERNEL_ARGS
                                                                        : WEFT_COLL_SOURCE_KERNEL_NAME);
          g_assert_cmpint (c->instance, !=, WEFT_NONE);
        }
      for (guint i = 0; i < rank->events->len; i++)
        {
          const WeftEvent *ev = weft_rank_event (rank, i);
          if ((ev->flags & WEFT_EVENT_GPU_OP) && ev->kclass != WEFT_KCLASS_COMM)
            g_assert_cmpint (ev->kclass, ==, WEFT_KCLASS_GEMM);
        }
    }

  /* every collective is one instance over both ranks: the EP kernels (and
   * the RCCL kernel without args) by order on their stream */
  g_assert_cmpuint (trace->instances->len, ==, G_N_ELEMENTS (expected));
  for (guint k = 0; k < trace->instances->len; k++)
    {
      WeftCollInstance *inst = trace_instance (trace, k);
      g_assert_cmpuint (inst->members->len, ==, 2);
      g_assert_cmpuint (instance_member (inst, 0)->coll, ==, instance_member (inst, 1)->coll);
      if (inst->method == WEFT_MATCH_STREAM_ORDINAL)
        n_ordinal++;
      else
        {
          g_assert_true (st->allreduce_args);
          g_assert_cmpint (inst->method, ==, WEFT_MATCH_SEQ);
        }
    }
  g_assert_cmpuint (n_ordinal, ==, st->allreduce_args ? 5 : 6);
  /* dispatch ends together on both ranks: the offset stays 0 */
  g_assert_true (trace->offsets_estimated);
  g_assert_cmpint (weft_trace_rank (trace, 1)->clock_offset_ns, ==, 0);

  /* the solver counts them as communication, overlapped by the GEMMs */
  solver = weft_solver_new (trace, &error);
  g_assert_no_error (error);
  g_assert_true (weft_solver_metrics (solver, WEFT_SOLVER_ALL_RANKS, WEFT_SOLVER_ALL_STEPS, &m));
  g_test_message ("%s: comm %.1f us, overlapped %.1f us (%.1f %%), exposed %.1f us", st->what, m.comm / 1e3,
                  m.overlapped / 1e3, m.overlap_pct, m.exposed_comm / 1e3);
  /* union of communication per rank: 5 + 20 + (200 - 7r) + 10 + 300 us (the
   * all-reduce lies inside dispatch), mean over the ranks; 40 us exposed */
  g_assert_cmpint (m.comm, ==, 531500);
  g_assert_cmpint (m.exposed_comm, ==, 40000);
  g_assert_cmpint (m.overlapped, ==, m.comm - 40000);
  g_assert_cmpfloat (m.overlap_pct, >, 0.0);
  g_assert_cmpfloat (m.overlap_pct, <, 100.0);
  weft_solver_free (solver);
}

static void
test_deepep_two_ranks (void)
{
  static const EpStack cuda = {
    "deepep-cuda", "cudaLaunchKernel", "0",
    "nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NTT",
    "void deep_ep::layout::get_dispatch_layout<256, 32, 8>(long const*, int*, int*, int*, bool*, int, int, int)",
    "void deep_ep::intranode::notify_dispatch<8>(int const*, int*, int, int const*, int*, int, int, bool const*)",
    "void deep_ep::intranode::dispatch<8, 768, 8192>(int4*, float*, int*, long*, float*, int*, int*, int4 const*)",
    "void deep_ep::intranode::cached_notify_combine<8>(void**, int*, int, int, int**, int)",
    "void deep_ep::intranode::combine<__nv_bfloat16, 8, 768, 4096>(__nv_bfloat16*, float*, __nv_bfloat16 const*)",
    "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", TRUE,
  };
  static const EpStack rocm = {
    "primus-rocm", "hipLaunchKernel", "2",
    "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x192x64_MI16x16x1_SN_LDSB1_GSUAMBSK_SU32_SUM0",
    "void primus_turbo::ep::layout::get_dispatch_layout<256, 32, 8>(long const*, int*, int*, int*, bool*)",
    "void primus_turbo::ep::intranode::notify_dispatch<8>(int const*, int*, int, int const*, int*)",
    "void primus_turbo::ep::intranode::dispatch<8, 768, 8192>(int4*, float*, int*, long*, float*)",
    "void primus_turbo::ep::intranode::cached_notify_combine<8>(void**, int*, int, int, int**, int)",
    "void primus_turbo::ep::intranode::combine<__hip_bfloat16, 8, 768, 4096>(__hip_bfloat16*, float*)",
    "ncclDevKernel_Generic_1(ncclDevKernelArgsStorage<4096ul>)", FALSE,
  };

  check_ep_stack (&cuda);
  check_ep_stack (&rocm);
}

/* An MI300-style ROCm trace: hipLaunchKernel / hipExtModuleLaunchKernel /
 * hipModuleLaunchKernel, GPU pid 2, Tensile and CK kernels, an RCCL kernel
 * without args overlapping a GEMM, a DtoD copy. */
static void
test_rocm_mi300_style (void)
{
  static const struct
  {
    const char     *launch;
    const char     *name;
    int             stream;
    WeftKernelClass expected;
  } ops[] = {
    { "hipExtModuleLaunchKernel", "Cijk_Ailk_Bljk_BBS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB0_GSU1_SU32_SUM0_SUS256_WGM8",
      0, WEFT_KCLASS_GEMM },
    { "hipExtModuleLaunchKernel", "Cijk_Alik_Bljk_B_BS_BH_Bias_HA_S_SAV_UserArgs_MT256x128x64_MI16x16x1_SN_GSUAMB",
      0, WEFT_KCLASS_GEMM },
    { "hipModuleLaunchKernel", "void ck_tile::kentry<256, 2, ck_tile::FmhaFwdKernel<ck_tile::BlockFmhaPipelineQRKSVS"
      "Async<int> > >(ck_tile::FmhaFwdKernel::FmhaFwdGroupModeKargs)", 0, WEFT_KCLASS_ATTENTION },
    { "hipLaunchKernel", "void ck::kernel_gemm_xdl_cshuffle_v3<ck::GridwiseGemm_xdl_cshuffle_v3<int>, true>(ck::"
      "GridwiseGemm_xdl_cshuffle_v3<int>::Argument)", 0, WEFT_KCLASS_GEMM },
    { "hipLaunchKernel", "void at::native::vectorized_elementwise_kernel<8, at::native::CUDAFunctor_add<c10::BFloat16>,"
      " std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)", 0,
      WEFT_KCLASS_ELEMENTWISE },
    { "hipLaunchKernel", "ncclDevKernel_Generic_1(ncclDevKernelArgsStorage<4096ul>)", 1, WEFT_KCLASS_COMM },
  };
  RankJson rj;
  g_autofree char *path = g_build_filename (weft_test_tmpdir (), "rocm-mi300", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftTrace) trace = NULL;
  WeftRank *rank;
  WeftSolver *solver;
  WeftMetrics m;
  gint64 t = 100000, gemm_ns = 0, total_ns = 0;
  guint n_checked = 0;

  rj_init (&rj, 0, 1, NULL, 0);
  rj.gpu_pid = "2";
  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    {
      rj.launch = ops[i].launch;
      /* the RCCL kernel runs during the first GEMM */
      if (ops[i].stream == 1)
        rj_kernel (&rj, ops[i].name, 1, 101000, 120000, 50000, (gint64) i + 1, NULL);
      else
        {
          rj_kernel (&rj, ops[i].name, 0, t, t + 10000, 80000, (gint64) i + 1, NULL);
          t += 90000;
        }
    }
  rj.launch = "hipMemcpyAsync";
  rj_launch (&rj, t, 50, 50);
  rj_gpu (&rj, "gpu_memcpy", "Memcpy DtoD (Device -> Device)", 0, t + 5000, 2000, 50, 50, "\"bytes\": 1048576");
  rj_write (&rj, "rocm-mi300");
  trace = weft_trace_load (path, NULL, NULL, &error);
  g_assert_no_error (error);
  rank = weft_trace_rank (trace, 0);
  for (guint i = 0; i < rank->events->len; i++)
    {
      const WeftEvent *ev = weft_rank_event (rank, i);
      if (!(ev->flags & WEFT_EVENT_GPU_OP))
        continue;
      if (ev->category == WEFT_CAT_GPU_MEMCPY)
        g_assert_cmpint (ev->kclass, ==, WEFT_KCLASS_COPY);
      else
        {
          g_assert_cmpint (weft_event_correlation (rank, ev), >=, 1);
          g_assert_cmpint (weft_event_correlation (rank, ev), <=, (gint64) G_N_ELEMENTS (ops));
          g_assert_cmpint (ev->kclass, ==, ops[weft_event_correlation (rank, ev) - 1].expected);
          g_assert_cmpint (weft_event_link (ev), !=, WEFT_NONE);
          g_assert_cmpstr (weft_rank_string (rank, weft_rank_event (rank, weft_event_link (ev))->name), ==,
                           ops[weft_event_correlation (rank, ev) - 1].launch);
          if (ev->kclass == WEFT_KCLASS_GEMM)
            gemm_ns += weft_event_dur (rank, ev);
          total_ns += weft_event_dur (rank, ev);
        }
      n_checked++;
    }
  g_assert_cmpuint (n_checked, ==, G_N_ELEMENTS (ops) + 1);
  g_assert_cmpint (gemm_ns, ==, 3 * 80000);
  g_assert_cmpuint (rank->collectives->len, ==, 1);
  g_assert_cmpint (rank_coll (rank, 0)->type, ==, WEFT_COLL_UNKNOWN);
  g_assert_cmpuint (trace->instances->len, ==, 1); /* one rank: a one-rank instance */

  solver = weft_solver_new (trace, &error);
  g_assert_no_error (error);
  g_assert_true (weft_solver_metrics (solver, 0, WEFT_SOLVER_ALL_STEPS, &m));
  g_test_message ("mi300-style: comm %.1f us, overlapped %.1f us (%.1f %%), GEMM %.0f %% of kernel time",
                  m.comm / 1e3, m.overlapped / 1e3, m.overlap_pct, 100.0 * gemm_ns / total_ns);
  g_assert_cmpint (m.comm, >, 0);
  g_assert_cmpint (m.overlapped, >, 0);
  g_assert_cmpfloat (m.overlap_pct, >, 0.0);
  weft_solver_free (solver);
}

/* Kernel time per class of a shared trace; every Cijk_ kernel is a GEMM. */
static void
class_times (const char *relative, gint64 *per_class, guint *n_cijk)
{
  g_autofree char *path = weft_test_require_trace (relative);
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftTrace) trace = NULL;

  memset (per_class, 0, sizeof (gint64) * WEFT_KCLASS_N_CLASSES);
  *n_cijk = 0;
  if (path == NULL)
    return;
  trace = weft_trace_load (path, NULL, NULL, &error);
  g_assert_no_error (error);
  for (guint ri = 0; ri < trace->ranks->len; ri++)
    {
      WeftRank *rank = weft_trace_rank (trace, ri);
      for (guint i = 0; i < rank->events->len; i++)
        {
          const WeftEvent *ev = weft_rank_event (rank, i);
          const char *name = weft_rank_string (rank, ev->name);
          if (!(ev->flags & WEFT_EVENT_GPU_OP))
            continue;
          per_class[ev->kclass] += weft_event_dur (rank, ev);
          if (strstr (name, "Cijk_") != NULL)
            {
              if (ev->kclass != WEFT_KCLASS_GEMM)
                g_error ("%s: %s is %s, not gemm", relative, name, weft_kernel_class_to_string (ev->kclass));
              (*n_cijk)++;
            }
        }
    }
}

static double
gemm_share (const gint64 *per_class)
{
  gint64 total = 0;
  for (int k = 0; k < WEFT_KCLASS_N_CLASSES; k++)
    total += per_class[k];
  return total > 0 ? (double) per_class[WEFT_KCLASS_GEMM] / (double) total : 0.0;
}

/* The shared ROCm traces: every Tensile kernel is a GEMM; the MI300 and
 * H100 runs of the same model have alike GEMM shares. */
static void
test_rocm_shared_traces (void)
{
  static const char *rocm[] = { "TraceLens/mi300/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
                                "TraceLens/mi210/gpu_only_trace/gpu_only_trace.json.gz",
                                "TraceLens/torch_compile_triton/trace.json.gz" };
  gint64 per_class[WEFT_KCLASS_N_CLASSES], mi300[WEFT_KCLASS_N_CLASSES], h100[WEFT_KCLASS_N_CLASSES];
  guint n_cijk, n;
  g_autofree char *probe = weft_test_require_trace (rocm[0]);

  if (probe == NULL)
    return;
  for (guint i = 0; i < G_N_ELEMENTS (rocm); i++)
    {
      class_times (rocm[i], per_class, &n_cijk);
      g_test_message ("%s: %u Cijk_ kernels, GEMM %.1f %% of GPU-op time", rocm[i], n_cijk,
                      100.0 * gemm_share (per_class));
      g_assert_cmpuint (n_cijk, >, 0);
      if (i == 0)
        memcpy (mi300, per_class, sizeof mi300);
    }
  g_assert_cmpint (mi300[WEFT_KCLASS_OTHER], ==, 0);
  g_assert_cmpfloat (gemm_share (mi300), >, 0.0);
  class_times ("TraceLens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", h100, &n);
  if (gemm_share (h100) > 0.0)
    {
      double ratio = gemm_share (mi300) / gemm_share (h100);
      g_test_message ("GEMM share: MI300 %.1f %%, H100 %.1f %%", 100.0 * gemm_share (mi300), 100.0 * gemm_share (h100));
      g_assert_cmpfloat (ratio, >, 0.5);
      g_assert_cmpfloat (ratio, <, 2.0);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/classify/tp-groups-offsets", test_tp_groups_and_offsets);
  g_test_add_func ("/classify/offsets-through-groups", test_offsets_through_groups);
  g_test_add_func ("/classify/truncated-ranks", test_truncated_ranks);
  g_test_add_func ("/classify/cpu-op-source", test_cpu_op_source);
  g_test_add_func ("/classify/p2p", test_p2p);
  g_test_add_func ("/classify/stream-ordinals", test_stream_ordinals);
  g_test_add_func ("/classify/optimizer-context", test_optimizer_context);
  g_test_add_func ("/classify/odd-args-created", test_odd_args_and_created);
  g_test_add_func ("/classify/dlrm-8-ranks", test_dlrm_matching);
  g_test_add_func ("/classify/nccl-data", test_nccl_data);
  g_test_add_func ("/classify/fsdp8-seq", test_fsdp8_seq);
  g_test_add_func ("/classify/b200-allgather", test_tracelens_allgather);
  g_test_add_func ("/classify/deepep-two-ranks", test_deepep_two_ranks);
  g_test_add_func ("/classify/rocm-mi300-style", test_rocm_mi300_style);
  g_test_add_func ("/classify/rocm-shared-traces", test_rocm_shared_traces);
  return g_test_run ();
}
