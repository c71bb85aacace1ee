/* cmd-sample.c: `weft-cli sample OUTDIR [--ranks N] [--layers L]`.
 *
 * Writes a small, realistic N-rank Kineto trace that the project generates
 * itself, in torchtitan's layout OUTDIR/profiling/traces/iteration_1/
 * rank<R>_trace.json: one ProfilerStep#1 of data-parallel training (DDP) of
 * L transformer layers, one main CPU thread issuing cudaLaunchKernel calls
 * (with ac2g flows) inside aten cpu_ops, a compute stream (7) with GEMM,
 * attention, norm, elementwise and optimizer kernels, an NCCL stream (20)
 * with one all-reduce per layer's gradient bucket during the backward pass
 * carrying the full collective args (Collective name, In/Out msg nelems,
 * dtype, Group size, Process Group Name/Description/Ranks, Seq), launched by
 * record_param_comms inside the ProcessGroupNCCL pattern cudaEventRecord ->
 * cudaStreamWaitEvent -> launch -> cudaEventRecord, and the optimizer's
 * cudaStreamWaitEvent on each collective (work.wait()).
 *
 * Times come from a small lockstep simulation of all ranks: kernel
 * durations with a deterministic per-rank jitter, stream order, launch
 * latency, the comm stream waiting for the producer's last kernel, and
 * rendezvous: every rank's all-reduce kernel ends at the same time (the
 * latest start plus the transfer time); early ranks wait inside the kernel.
 * The output is byte-for-byte deterministic. */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "weft/weft.h"

#define SAMPLE_BASE_NS G_GINT64_CONSTANT (1767225600000000000) /* 2026-01-01 00:00:00 UTC */
#define SAMPLE_START_NS G_GINT64_CONSTANT (4000000)
#define LAUNCH_LATENCY_NS 4000
#define COMPUTE_STREAM 7
#define NCCL_STREAM 20

static const char *const kernel_gemm =
  "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas";
static const char *const kernel_gemm_nt =
  "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize128x256x64_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas";
static const char *const kernel_norm =
  "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>(int, float, "
  "c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, float*, c10::BFloat16*)";
static const char *const kernel_norm_bwd =
  "void at::native::(anonymous namespace)::layer_norm_grad_input_kernel_vectorized<c10::BFloat16, float>("
  "c10::BFloat16 const*, c10::BFloat16 const*, float const*, float const*, c10::BFloat16 const*, c10::BFloat16*, int)";
static const char *const kernel_gelu =
  "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, "
  "at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(c10::BFloat16)#1}, "
  "at::detail::Array<char*, 2> >(int, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::"
  "{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(c10::BFloat16)#1}, at::detail::Array<char*, 2>)";
static const char *const kernel_add =
  "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
  "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3>)";
static const char *const kernel_attn_fwd =
  "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t, "
  "Flash_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t> >, false, true, false, false, true, true, false, false>"
  "(pytorch_flash::Flash_fwd_params)";
static const char *const kernel_attn_bwd =
  "void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<128, 64, 128, 8, 2, 4, 2, "
  "false, false, cutlass::bfloat16_t, Flash_kernel_traits<128, 64, 128, 8, cutlass::bfloat16_t> >, false, true, false, "
  "false, false, true, true, false>(pytorch_flash::Flash_bwd_params)";
static const char *const kernel_adam =
  "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::"
  "TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, "
  "false>, double*, double, double, double, double, double, bool, float*, float*>(at::native::(anonymous namespace)::"
  "TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, "
  "false>, double*, double, double, double, double, double, bool, float*, float*)";
static const char *const kernel_allreduce = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";

typedef struct
{
  gint64 ts;
  gint64 dur;     /* -1: no dur */
  char  *head;    /* "\"ph\": \"X\", \"cat\": ..., \"tid\": 7," */
  char  *tail;    /* text after ts/dur (args, id, bp), may be NULL */
} Entry;

typedef struct
{
  int     rank;
  int     device;
  gint64  cpu_pid;
  GArray *cpu;        /* Entry, CPU side (sorted at the end) */
  GArray *gpu;        /* Entry, GPU ops and flows in launch order */
  gint64  cpu_t;      /* next free CPU time (ns since base) */
  gint64  comp_free;  /* compute stream free at */
  gint64  nccl_free;
  gint64  ext_id;
  gint64  corr;
  gint64  ev_idx;
  guint32 rng;
} SimRank;

typedef struct
{
  int       n_ranks;
  SimRank  *ranks;
  gint64    seq;
  GArray   *pending;    /* gint64 External ids of collectives not waited yet, per rank order same */
  GArray   *pend_end;   /* gint64 end time of those collectives */
} Sim;

static void
entry_clear (gpointer data)
{
  Entry *e = data;
  g_free (e->head);
  g_free (e->tail);
}

static guint
add_entry (GArray *arr, gint64 ts, gint64 dur, char *head, char *tail)
{
  Entry e = { ts, dur, head, tail };
  g_array_append_val (arr, e);
  return arr->len - 1;
}

/* Deterministic jitter in [-3 %, +3 %]. */
static gint64
jitter (SimRank *r, gint64 ns)
{
  gint64 j;
  r->rng = r->rng * 1664525u + 1013904223u;
  j = (gint64) ((r->rng >> 8) % 601) - 300; /* -300..300 per mille / 10 */
  return ns + ns * j / 10000;
}

static char *
cpu_head (SimRank *r, const char *cat, const char *name)
{
  return g_strdup_printf ("\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": %" G_GINT64_FORMAT
                          ", \"tid\": %" G_GINT64_FORMAT ",",
                          cat, name, r->cpu_pid, r->cpu_pid);
}

/* A cpu_op / user_annotation; returns its index (dur filled in later). */
static guint
open_cpu_op (SimRank *r, const char *cat, const char *name, gint64 ext, const char *extra_args)
{
  char *tail = g_strdup_printf ("\"args\": {\n      \"External id\": %" G_GINT64_FORMAT
                                ", \"Record function id\": 0, \"Ev Idx\": %" G_GINT64_FORMAT "%s%s\n    }",
                                ext, r->ev_idx++, extra_args ? ", " : "", extra_args ? extra_args : "");
  return add_entry (r->cpu, r->cpu_t, 0, cpu_head (r, cat, name), tail);
}

static void
close_cpu_op (SimRank *r, guint idx, gint64 trailing)
{
  Entry *e;
  r->cpu_t += trailing;
  e = &g_array_index (r->cpu, Entry, idx);
  e->dur = r->cpu_t - e->ts;
}

/* A cuda_runtime call at cpu_t; returns its correlation id. */
static gint64
runtime_call (SimRank *r, const char *name, int cbid, gint64 ext, gint64 dur)
{
  gint64 corr = r->corr++;
  char *tail = g_strdup_printf ("\"args\": {\n      \"External id\": %" G_GINT64_FORMAT ", \"cbid\": %d, \"correlation\": %"
                                G_GINT64_FORMAT "\n    }",
                                ext, cbid, corr);
  add_entry (r->cpu, r->cpu_t, dur, cpu_head (r, "cuda_runtime", name), tail);
  r->cpu_t += dur;
  return corr;
}

static char *
kernel_args (SimRank *r, gint64 ext, int stream, gint64 corr, const char *extra)
{
  return g_strdup_printf ("\"args\": {\n      \"External id\": %" G_GINT64_FORMAT ", \"queued\": 0, \"device\": %d, "
                          "\"context\": 1, \"stream\": %d, \"correlation\": %" G_GINT64_FORMAT
                          ", \"registers per thread\": 168, \"shared memory\": 98304, \"blocks per SM\": 1, "
                          "\"warps per SM\": 4, \"grid\": [132, 1, 1], \"block\": [128, 1, 1], "
                          "\"est. achieved occupancy %%\": 6%s%s\n    }",
                          ext, r->device, stream, corr, extra ? ", " : "", extra ? extra : "");
}

static void
add_flow (SimRank *r, gint64 corr, gint64 cpu_ts, gint64 gpu_ts, int stream)
{
  add_entry (r->gpu, gpu_ts, -1,
             g_strdup_printf ("\"ph\": \"f\", \"id\": %" G_GINT64_FORMAT ", \"pid\": %d, \"tid\": %d,", corr, r->device,
                              stream),
             g_strdup ("\"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\""));
  add_entry (r->gpu, cpu_ts, -1,
             g_strdup_printf ("\"ph\": \"s\", \"id\": %" G_GINT64_FORMAT ", \"pid\": %" G_GINT64_FORMAT
                              ", \"tid\": %" G_GINT64_FORMAT ",",
                              corr, r->cpu_pid, r->cpu_pid),
             g_strdup ("\"cat\": \"ac2g\", \"name\": \"ac2g\""));
}

/* An aten op that launches one kernel on the compute stream. */
static void
launch_kernel (SimRank *r, const char *op, const char *kernel, const char *cat, gint64 dur_ns)
{
  gint64 ext = r->ext_id++;
  guint op_idx;
  gint64 launch_ts, corr, start;
  gint64 dur = jitter (r, dur_ns);

  r->cpu_t += 2000;
  op_idx = open_cpu_op (r, "cpu_op", op, ext, NULL);
  r->cpu_t += 9000;
  launch_ts = r->cpu_t;
  corr = runtime_call (r, strcmp (cat, "gpu_memcpy") == 0 ? "cudaMemcpyAsync" : "cudaLaunchKernel",
                       strcmp (cat, "gpu_memcpy") == 0 ? 41 : 211, ext, 5500);
  close_cpu_op (r, op_idx, 3000);

  start = MAX (launch_ts + LAUNCH_LATENCY_NS, r->comp_free);
  if (strcmp (cat, "gpu_memcpy") == 0)
    add_entry (r->gpu, start, dur,
               g_strdup_printf ("\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"%s\", \"pid\": %d, \"tid\": %d,",
                                kernel, r->device, COMPUTE_STREAM),
               g_strdup_printf ("\"args\": {\n      \"External id\": %" G_GINT64_FORMAT ", \"device\": %d, \"context\": 1, "
                                "\"stream\": %d, \"correlation\": %" G_GINT64_FORMAT ", \"bytes\": 33554432, "
                                "\"memory bandwidth (GB/s)\": %.3f\n    }",
                                ext, r->device, COMPUTE_STREAM, corr, 33554432.0 / (double) dur));
  else
    add_entry (r->gpu, start, dur,
               g_strdup_printf ("\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": %d, \"tid\": %d,", kernel,
                                r->device, COMPUTE_STREAM),
               kernel_args (r, ext, COMPUTE_STREAM, corr, NULL));
  add_flow (r, corr, launch_ts, start, COMPUTE_STREAM);
  r->comp_free = start + dur;
}

static char *
ranks_text (int n)
{
  GString *s = g_string_new ("[");
  for (int i = 0; i < n; i++)
    g_string_append_printf (s, "%s%d", i ? ", " : "", i);
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

/* One all-reduce of nelems floats on every rank, DDP style. */
static void
all_reduce (Sim *sim, gint64 nelems)
{
  gint64 seq = sim->seq++;
  g_autofree gint64 *start = g_new (gint64, sim->n_ranks);
  g_autofree guint *kernel_idx = g_new (guint, sim->n_ranks);
  g_autofree char *ranks = ranks_text (sim->n_ranks);
  gint64 bytes = nelems * 4, transfer, latest = G_MININT64, end;
  int n = sim->n_ranks;

  /* alpha + S * 2(n-1)/n / busBW, busBW = 150 GB/s = 150 bytes/ns. */
  transfer = 12000 + (n > 1 ? bytes * 2 * (n - 1) / n / 150 : bytes / 600);

  for (int i = 0; i < n; i++)
    {
      SimRank *r = &sim->ranks[i];
      gint64 ext = r->ext_id++;
      g_autofree char *coll_args = NULL;
      g_autofree char *kargs = NULL;
      guint outer, rpc, ann;
      gint64 launch_ts, corr, producer_ready;

      coll_args = g_strdup_printf ("\"Collective name\": \"allreduce\", \"dtype\": \"Float\", \"In msg nelems\": %"
                                   G_GINT64_FORMAT ", \"Out msg nelems\": %" G_GINT64_FORMAT
                                   ", \"In split size\": \"[]\", \"Out split size\": \"[]\", \"Global rank start\": 0, "
                                   "\"Global rank stride\": 1, \"Group size\": %d, \"Process Group Name\": \"0\", "
                                   "\"Process Group Description\": \"default_pg\", \"Process Group Ranks\": \"%s\", "
                                   "\"Rank\": %d, \"Seq\": %" G_GINT64_FORMAT,
                                   nelems, nelems, n, ranks, r->rank, seq);
      r->cpu_t += 3000;
      outer = open_cpu_op (r, "cpu_op", "c10d::allreduce_", r->ext_id++, NULL);
      r->cpu_t += 4000;
      rpc = open_cpu_op (r, "cpu_op", "record_param_comms", ext, coll_args);
      r->cpu_t += 6000;
      ann = open_cpu_op (r, "user_annotation", "nccl:all_reduce", ext, NULL);
      r->cpu_t += 2000;
      /* ProcessGroupNCCL: record on the current (compute) stream, make the
       * NCCL stream wait for it, launch, record the end event. */
      runtime_call (r, "cudaEventRecord", 135, ext, 1800);
      producer_ready = r->comp_free;
      r->cpu_t += 1000;
      runtime_call (r, "cudaStreamWaitEvent", 147, ext, 1500);
      r->cpu_t += 2500;
      launch_ts = r->cpu_t;
      corr = runtime_call (r, "cudaLaunchKernelExC", 430, ext, 7000);
      close_cpu_op (r, ann, 1000);
      runtime_call (r, "cudaEventRecord", 135, ext, 1200);
      close_cpu_op (r, rpc, 2000);
      close_cpu_op (r, outer, 1500);

      start[i] = MAX (MAX (launch_ts + LAUNCH_LATENCY_NS, r->nccl_free), producer_ready);
      latest = MAX (latest, start[i]);
      kargs = kernel_args (r, ext, NCCL_STREAM, corr, coll_args);
      kernel_idx[i] = add_entry (r->gpu, start[i], 0,
                                 g_strdup_printf ("\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": %d, "
                                                  "\"tid\": %d,",
                                                  kernel_allreduce, r->device, NCCL_STREAM),
                                 g_steal_pointer (&kargs));
      add_flow (r, corr, launch_ts, start[i], NCCL_STREAM);
      g_array_append_val (sim->pending, ext); /* per rank: index i of each group of n */
    }

  /* Rendezvous: everyone ends together. */
  end = latest + transfer;
  for (int i = 0; i < n; i++)
    {
      SimRank *r = &sim->ranks[i];
      g_array_index (r->gpu, Entry, kernel_idx[i]).dur = end - start[i];
      r->nccl_free = end;
    }
  g_array_append_val (sim->pend_end, end);
}

/* work.wait() for every pending collective: the compute stream waits. */
static void
wait_all (Sim *sim)
{
  guint n_coll = sim->pend_end->len;

  for (int i = 0; i < sim->n_ranks; i++)
    {
      SimRank *r = &sim->ranks[i];
      for (guint c = 0; c < n_coll; c++)
        {
          gint64 ext = g_array_index (sim->pending, gint64, c * (guint) sim->n_ranks + (guint) i);
          r->cpu_t += 2000;
          runtime_call (r, "cudaStreamWaitEvent", 147, ext, 1300);
          r->comp_free = MAX (r->comp_free, g_array_index (sim->pend_end, gint64, c));
        }
    }
  g_array_set_size (sim->pending, 0);
  g_array_set_size (sim->pend_end, 0);
}

static gint
entry_cmp (gconstpointer a, gconstpointer b)
{
  const Entry *ea = a, *eb = b;
  if (ea->ts != eb->ts)
    return ea->ts < eb->ts ? -1 : 1;
  if (ea->dur != eb->dur)
    return ea->dur > eb->dur ? -1 : 1;
  return 0;
}

static void
append_entry (GString *out, const Entry *e, gboolean *first)
{
  char ts[32], dur[32];

  weft_format_time (e->ts, WEFT_TS_RELATIVE, ts);
  g_string_append (out, *first ? "\n  {\n    " : ",\n  {\n    ");
  *first = FALSE;
  g_string_append (out, e->head);
  g_string_append_printf (out, "\n    \"ts\": %s", ts);
  if (e->dur >= 0)
    {
      weft_format_time (e->dur, WEFT_TS_RELATIVE, dur);
      g_string_append_printf (out, ", \"dur\": %s", dur);
    }
  if (e->tail != NULL)
    g_string_append_printf (out, ",\n    %s", e->tail);
  g_string_append (out, "\n  }");
}

static void
append_meta (GString *out, gboolean *first, const char *name, const char *pid, const char *tid, const char *args)
{
  g_string_append (out, *first ? "\n  {\n    " : ",\n  {\n    ");
  *first = FALSE;
  g_string_append_printf (out, "\"name\": \"%s\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": %s, \"tid\": %s,\n    \"args\": %s\n  }",
                          name, pid, tid, args);
}

static char *
render_rank (Sim *sim, SimRank *r, guint step_idx, gint64 step_end)
{
  GString *out = g_string_sized_new (1 << 16);
  g_autofree char *ranks = ranks_text (sim->n_ranks);
  g_autofree char *cpu_pid = g_strdup_printf ("%" G_GINT64_FORMAT, r->cpu_pid);
  g_autofree char *dev = g_strdup_printf ("%d", r->device);
  g_autofree char *label = g_strdup_printf ("{\"labels\": \"GPU %d\"}", r->device);
  g_autofree char *s7 = g_strdup_printf ("%d", COMPUTE_STREAM);
  g_autofree char *s20 = g_strdup_printf ("%d", NCCL_STREAM);
  gboolean first = TRUE;
  char ts[32];

  g_array_index (r->cpu, Entry, step_idx).dur = step_end - g_array_index (r->cpu, Entry, step_idx).ts;
  g_array_sort (r->cpu, entry_cmp);

  g_string_append_printf (out,
                          "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n    {\n"
                          "      \"id\": %d, \"name\": \"NVIDIA H100 80GB HBM3\", \"totalGlobalMem\": 84929347584,\n"
                          "      \"computeMajor\": 9, \"computeMinor\": 0,\n"
                          "      \"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048,\n"
                          "      \"regsPerBlock\": 65536, \"warpSize\": 32,\n"
                          "      \"sharedMemPerBlock\": 49152, \"numSms\": 132\n    }\n  ],\n"
                          "  \"cupti_version\": 24,\n  \"cuda_runtime_version\": 12040,\n  \"cuda_driver_version\": 12040,\n"
                          "  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, \"world_size\": %d, \"pg_count\": 1, "
                          "\"pg_config\": [{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", \"backend_config\": "
                          "\"cuda:nccl\", \"pg_size\": %d, \"ranks\": %s}], \"nccl_version\": \"2.21.5\"},\n"
                          "  \"record_shapes\": 1,\n  \"with_stack\": 0,\n  \"trace_id\": \"WEFTSAMPLE%04d\",\n"
                          "  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": %" G_GINT64_FORMAT ",\n"
                          "  \"traceEvents\": [",
                          r->device, r->rank, sim->n_ranks, sim->n_ranks, ranks, r->rank, SAMPLE_BASE_NS);

  append_meta (out, &first, "process_name", cpu_pid, "0", "{\"name\": \"python3\"}");
  append_meta (out, &first, "process_labels", cpu_pid, "0", "{\"labels\": \"CPU\"}");
  append_meta (out, &first, "process_sort_index", cpu_pid, "0", "{\"sort_index\": 0}");
  append_meta (out, &first, "process_name", dev, "0", "{\"name\": \"python3\"}");
  append_meta (out, &first, "process_labels", dev, "0", label);
  append_meta (out, &first, "thread_name", dev, s7, "{\"name\": \"stream 7 \"}");
  append_meta (out, &first, "thread_sort_index", dev, s7, "{\"sort_index\": 7}");
  append_meta (out, &first, "thread_name", dev, s20, "{\"name\": \"stream 20 \"}");
  append_meta (out, &first, "thread_sort_index", dev, s20, "{\"sort_index\": 20}");
  append_meta (out, &first, "thread_name", cpu_pid, cpu_pid, "{\"name\": \"python3\"}");

  for (guint i = 0; i < r->cpu->len; i++)
    append_entry (out, &g_array_index (r->cpu, Entry, i), &first);
  for (guint i = 0; i < r->gpu->len; i++)
    append_entry (out, &g_array_index (r->gpu, Entry, i), &first);

  weft_format_time (g_array_index (r->cpu, Entry, 0).ts - 1000000, WEFT_TS_RELATIVE, ts);
  g_string_append_printf (out,
                          ",\n  {\n    \"name\": \"Iteration Start: PyTorch Profiler\", \"ph\": \"i\", \"s\": \"g\",\n"
                          "    \"pid\": \"Traces\", \"tid\": \"Trace PyTorch Profiler\", \"ts\": %s\n  }",
                          ts);
  weft_format_time (step_end + 500000, WEFT_TS_RELATIVE, ts);
  g_string_append_printf (out,
                          ",\n  {\n    \"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\",\n"
                          "    \"pid\": \"\", \"tid\": \"\", \"ts\": %s\n  }",
                          ts);
  g_string_append_printf (out, "\n  ],\n  \"traceName\": \"rank%d_trace.json\"\n}\n", r->rank);
  return g_string_free (out, FALSE);
}

typedef struct
{
  const char *op;
  const char *kernel;
  const char *cat;
  gint64      dur;
} Op;

/* Writes the sample into outdir; returns the list of files written. */
static gboolean
write_sample (const char *outdir, int n_ranks, int n_layers, GError **error)
{
  Sim sim = { 0 };
  g_autofree char *dir = g_build_filename (outdir, "profiling", "traces", "iteration_1", NULL);
  g_autofree guint *step_idx = g_new (guint, n_ranks);
  gint64 step_end = 0;
  gboolean ok = TRUE;
  static const Op fwd[] = {
    { "aten::native_layer_norm", NULL, "kernel", 42000 },
    { "aten::mm", NULL, "kernel", 310000 },
    { "aten::_scaled_dot_product_flash_attention", NULL, "kernel", 420000 },
    { "aten::mm", NULL, "kernel", 105000 },
    { "aten::add", NULL, "kernel", 38000 },
    { "aten::native_layer_norm", NULL, "kernel", 42000 },
    { "aten::mm", NULL, "kernel", 420000 },
    { "aten::gelu", NULL, "kernel", 61000 },
    { "aten::mm", NULL, "kernel", 420000 },
    { "aten::add", NULL, "kernel", 38000 },
  };
  static const Op bwd[] = {
    { "aten::mm", NULL, "kernel", 430000 },
    { "aten::mm", NULL, "kernel", 440000 },
    { "aten::gelu_backward", NULL, "kernel", 75000 },
    { "aten::mm", NULL, "kernel", 430000 },
    { "aten::mm", NULL, "kernel", 440000 },
    { "aten::native_layer_norm_backward", NULL, "kernel", 68000 },
    { "aten::mm", NULL, "kernel", 110000 },
    { "aten::_scaled_dot_product_flash_attention_backward", NULL, "kernel", 980000 },
    { "aten::mm", NULL, "kernel", 320000 },
    { "aten::native_layer_norm_backward", NULL, "kernel", 68000 },
  };
  const char *fwd_kernels[] = { kernel_norm, kernel_gemm, kernel_attn_fwd, kernel_gemm, kernel_add,
                                kernel_norm, kernel_gemm, kernel_gelu,     kernel_gemm, kernel_add };
  const char *bwd_kernels[] = { kernel_gemm_nt, kernel_gemm,     kernel_gelu,     kernel_gemm_nt, kernel_gemm,
                                kernel_norm_bwd, kernel_gemm_nt, kernel_attn_bwd, kernel_gemm,    kernel_norm_bwd };

  sim.n_ranks = n_ranks;
  sim.ranks = g_new0 (SimRank, n_ranks);
  sim.pending = g_array_new (FALSE, FALSE, sizeof (gint64));
  sim.pend_end = g_array_new (FALSE, FALSE, sizeof (gint64));
  for (int i = 0; i < n_ranks; i++)
    {
      SimRank *r = &sim.ranks[i];
      r->rank = i;
      r->device = i % 8;
      r->cpu_pid = 182400 + 16 * i;
      r->cpu = g_array_new (FALSE, FALSE, sizeof (Entry));
      r->gpu = g_array_new (FALSE, FALSE, sizeof (Entry));
      g_array_set_clear_func (r->cpu, entry_clear);
      g_array_set_clear_func (r->gpu, entry_clear);
      r->cpu_t = SAMPLE_START_NS + 3000 * i;
      r->comp_free = r->nccl_free = 0;
      r->ext_id = 100;
      r->corr = 5000;
      r->rng = 0x9e3779b9u ^ (guint32) (i * 7919);
      step_idx[i] = open_cpu_op (r, "user_annotation", "ProfilerStep#1", r->ext_id++, NULL);
      r->cpu_t += 15000;
      launch_kernel (r, "aten::copy_", "Memcpy HtoD (Pageable -> Device)", "gpu_memcpy", 95000);
    }

  for (int l = 0; l < n_layers; l++)
    for (guint k = 0; k < G_N_ELEMENTS (fwd); k++)
      for (int i = 0; i < n_ranks; i++)
        launch_kernel (&sim.ranks[i], fwd[k].op, fwd_kernels[k], fwd[k].cat, fwd[k].dur);

  /* Backward, last layer first; each layer's gradient bucket is all-reduced
   * as soon as its last gradient kernel is launched. */
  for (int l = n_layers - 1; l >= 0; l--)
    {
      for (guint k = 0; k < G_N_ELEMENTS (bwd); k++)
        for (int i = 0; i < n_ranks; i++)
          launch_kernel (&sim.ranks[i], bwd[k].op, bwd_kernels[k], bwd[k].cat, bwd[k].dur);
      all_reduce (&sim, 25165824 + (gint64) l * 131072); /* ~96 MiB of fp32 gradients per layer */
    }

  wait_all (&sim);
  for (int i = 0; i < n_ranks; i++)
    {
      launch_kernel (&sim.ranks[i], "Optimizer.step#AdamW.step", kernel_adam, "kernel", 640000);
      launch_kernel (&sim.ranks[i], "aten::add_", kernel_add, "kernel", 21000);
    }
  for (int i = 0; i < n_ranks; i++)
    step_end = MAX (step_end, MAX (sim.ranks[i].comp_free, sim.ranks[i].cpu_t) + 20000);

  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      int saved = errno;
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_IO, "%s: cannot create the folder: %s", dir, g_strerror (saved));
      ok = FALSE;
    }
  for (int i = 0; ok && i < n_ranks; i++)
    {
      g_autofree char *text = render_rank (&sim, &sim.ranks[i], step_idx[i], step_end);
      g_autofree char *name = g_strdup_printf ("rank%d_trace.json", i);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      ok = g_file_set_contents (path, text, -1, error);
      if (ok)
        printf ("%s\n", path);
    }

  for (int i = 0; i < n_ranks; i++)
    {
      g_array_free (sim.ranks[i].cpu, TRUE);
      g_array_free (sim.ranks[i].gpu, TRUE);
    }
  g_free (sim.ranks);
  g_array_free (sim.pending, TRUE);
  g_array_free (sim.pend_end, TRUE);
  return ok;
}

int
weft_cmd_sample (int argc, char **argv)
{
  int n_ranks = 2, n_layers = 4;
  GOptionEntry entries[] = {
    { "ranks", 'n', 0, G_OPTION_ARG_INT, &n_ranks, "Number of ranks (1-64, default 2)", "N" },
    { "layers", 'l', 0, G_OPTION_ARG_INT, &n_layers, "Transformer layers (1-64, default 4)", "L" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("OUTDIR - write a small generated N-rank Kineto trace");
  g_autoptr (GError) error = NULL;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_description (ctx,
                                    "Writes OUTDIR/profiling/traces/iteration_1/rank<R>_trace.json (torchtitan layout):\n"
                                    "one DDP training step with GEMM/attention/norm/elementwise kernels, one all-reduce\n"
                                    "per layer with full collective args, launches with ac2g flows. Deterministic.\n\n"
                                    "Exit status: 0 success, 1 failure writing, 2 bad usage.");
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return weft_cli_fail ("sample: %s", error->message);
  if (argc != 2)
    return weft_cli_fail ("sample: expected one OUTDIR (see weft-cli sample --help)");
  if (n_ranks < 1 || n_ranks > 64)
    return weft_cli_fail ("sample: --ranks must be between 1 and 64");
  if (n_layers < 1 || n_layers > 64)
    return weft_cli_fail ("sample: --layers must be between 1 and 64");
  if (!write_sample (argv[1], n_ranks, n_layers, &error))
    {
      fprintf (stderr, "weft-cli: %s\n", error->message);
      return WEFT_EXIT_FAILURE;
    }
  return WEFT_EXIT_OK;
}
