/* classify-names.c: the pure name rules of classification: kernel classes
 * from kernel names, collective types from kernel names and "Collective
 * name" texts, dtype sizes. The rules and their reasons are in
 * docs/classification.md. */
#include "config.h"

#include <string.h>

#include "weft/weft-classify.h"

/* ---- small string helpers --------------------------------------------------- */

static gboolean
has (const char *haystack, const char *needle)
{
  return strstr (haystack, needle) != NULL;
}

static gboolean
has_any (const char *haystack, const char * const *needles)
{
  for (guint i = 0; needles[i] != NULL; i++)
    if (strstr (haystack, needles[i]) != NULL)
      return TRUE;
  return FALSE;
}

/* The qualified function name of a demangled kernel name, lowercased: no
 * return type, template arguments or parameter list.
 * "void at::native::reduce_kernel<512, 1, ...>(...)" -> "at::native::reduce_kernel";
 * "std::enable_if<...>::type internal::gemvx::kernel<...>(...)" -> "internal::gemvx::kernel";
 * a name without these ("volta_sgemm_128x32_nn", a mangled name) is itself. */
static char *
kernel_base_name (const char *name)
{
  static const char anon[] = "(anonymous namespace)";
  GString *tok = g_string_sized_new (64);
  int depth = 0;   /* template nesting */
  int parens = 0;  /* parentheses inside template arguments: "<((8)>(0))>" */
  const char *p = name;

  while (*p != '\0')
    {
      char ch = *p;
      if (ch == '(' && strncmp (p, anon, sizeof anon - 1) == 0)
        {
          if (depth == 0)
            g_string_append (tok, anon);
          p += sizeof anon - 1;
          continue;
        }
      if (depth > 0 && ch == '(')
        parens++;
      else if (depth > 0 && ch == ')')
        {
          if (parens > 0)
            parens--;
        }
      else if (parens > 0)
        ;
      else if (ch == '<')
        depth++;
      else if (ch == '>')
        {
          /* "operator>" or "->" do not open a template */
          if (depth > 0)
            depth--;
        }
      else if (depth == 0)
        {
          if (ch == '(')
            break;
          if (ch == ' ')
            g_string_truncate (tok, 0);
          else
            g_string_append_c (tok, g_ascii_tolower (ch));
        }
      p++;
    }
  return g_string_free (tok, FALSE);
}

/* ---- kernel classes -------------------------------------------------------- */

/* The last component of a qualified function name ("deep_ep::intranode::dispatch"
 * -> "dispatch"); a name without "::" (a C or mangled name) is itself. */
static const char *
leaf_name (const char *base)
{
  const char *p = base, *q;

  while ((q = strstr (p, "::")) != NULL)
    p = q + 2;
  return p;
}

/* Collective type named by the words of a (lowercase) kernel name, UNKNOWN
 * when no word names one. Reduce-scatter before all-reduce and reduce. */
static WeftCollType
coll_from_words (const char *s)
{
  static const char * const all_to_all[] = { "alltoall", "all_to_all", "all2all", NULL };
  static const char * const reduce_scatter[] = { "reducescatter", "reduce_scatter", NULL };
  static const char * const all_gather[] = { "allgather", "all_gather", "fcollect", NULL };
  static const char * const all_reduce[] = { "allreduce", "all_reduce", NULL };
  static const char * const broadcast[] = { "broadcast", "bcast", NULL };

  if (has_any (s, all_to_all))
    return WEFT_COLL_ALL_TO_ALL;
  if (has_any (s, reduce_scatter))
    return WEFT_COLL_REDUCE_SCATTER;
  if (has_any (s, all_gather))
    return WEFT_COLL_ALL_GATHER;
  if (has_any (s, all_reduce))
    return WEFT_COLL_ALL_REDUCE;
  if (has_any (s, broadcast))
    return WEFT_COLL_BROADCAST;
  if (has (s, "barrier"))
    return WEFT_COLL_BARRIER;
  return WEFT_COLL_UNKNOWN;
}

/* Expert-parallel dispatch / combine (DeepEP and its forks, MORI): the
 * namespace shape AND the word are required, so that an ordinary kernel
 * with "combine" or "dispatch" in its name stays compute.
 * "deep_ep::intranode::dispatch", "deep_ep::internode_ll::combine",
 * "primus_turbo::ep::internode::dispatch", "mori::moe::EpDispatchIntraNodeKernel". */
static WeftCollType
ep_kernel (const char *base)
{
  const char *leaf = leaf_name (base);
  gboolean ep_ns = has (base, "deep_ep") || has (base, "::ep::") || g_str_has_prefix (base, "ep::") ||
                   has (base, "intranode") || has (base, "internode") || g_str_has_prefix (base, "mori::") ||
                   g_str_has_prefix (leaf, "epdispatch") || g_str_has_prefix (leaf, "epcombine");

  if (!ep_ns)
    return WEFT_COLL_NONE;
  /* bookkeeping first: notify_dispatch, cached_notify_combine and
   * get_dispatch_layout name dispatch / combine too */
  if (has (leaf, "notify") || has (leaf, "layout") || has (leaf, "clean_low_latency"))
    return WEFT_COLL_EP_NOTIFY;
  if (has (leaf, "barrier"))
    return WEFT_COLL_BARRIER;
  if (has (leaf, "dispatch") || has (leaf, "combine"))
    return WEFT_COLL_ALL_TO_ALL;
  return WEFT_COLL_NONE;
}

/* NVSHMEM: kernels of the library ("nvshmemi_*", "nvshmemx_*", a namespace
 * "nvshmem*::" such as torch's "c10d::nvshmem_extension::allToAllV") and its
 * on-stream collectives, global functions named "<coll>_on_stream_kernel*"
 * ("barrier_on_stream_kernel_threadgroup", "alltoall_on_stream_kernel",
 * "fcollect_on_stream_kernel", "rdxn_*", "sync_all_*"). */
static WeftCollType
nvshmem_kernel (const char *base)
{
  const char *leaf = leaf_name (base);
  static const char * const on_stream[] = { "barrier", "sync", "alltoall", "broadcast", "fcollect",
                                            "rdxn", "reducescatter", NULL };
  WeftCollType t;

  if (!g_str_has_prefix (base, "nvshmem") && !has (base, "::nvshmem"))
    {
      gboolean coll = FALSE;
      /* on-stream collectives are global functions of the library */
      if (leaf != base || !has (leaf, "_on_stream_kernel"))
        return WEFT_COLL_NONE;
      for (guint i = 0; on_stream[i] != NULL && !coll; i++)
        coll = g_str_has_prefix (leaf, on_stream[i]);
      if (!coll)
        return WEFT_COLL_NONE;
    }
  t = coll_from_words (leaf);
  if (t != WEFT_COLL_UNKNOWN)
    return t;
  /* OpenSHMEM reductions leave the result on every PE; sync is a barrier */
  if (has (leaf, "rdxn") || has (leaf, "reduce"))
    return WEFT_COLL_ALL_REDUCE;
  if (g_str_has_prefix (leaf, "sync") || has (leaf, "_sync"))
    return WEFT_COLL_BARRIER;
  return WEFT_COLL_UNKNOWN;
}

/* Communication kernels that are not NCCL/RCCL: expert parallelism,
 * NVSHMEM, PyTorch symmetric memory, vLLM / TensorRT-LLM custom all-reduce. */
static WeftCollType
other_comm_kernel (const char *base)
{
  static const char * const all_reduce[] = { "multimem_all_reduce", "one_shot_all_reduce",
                                             "two_shot_all_reduce", "cross_device_reduce",
                                             "oneshotallreduce", "twoshotallreduce", NULL };
  static const char * const all_gather[] = { "multimem_all_gather", "one_shot_all_gather", NULL };
  WeftCollType t;

  if ((t = ep_kernel (base)) != WEFT_COLL_NONE)
    return t;
  if ((t = nvshmem_kernel (base)) != WEFT_COLL_NONE)
    return t;
  if (has_any (base, all_reduce))
    return WEFT_COLL_ALL_REDUCE;
  if (has_any (base, all_gather))
    return WEFT_COLL_ALL_GATHER;
  /* torch symmetric memory reduces to one rank (multimem_one_shot_reduce_kernel) */
  if (has (base, "multimem_one_shot_reduce"))
    return WEFT_COLL_REDUCE;
  if (has (base, "multimem_one_shot"))
    return WEFT_COLL_ALL_REDUCE;
  /* the rest of c10d::symmetric_memory: barrier_kernel, put_signal_kernel,
   * wait_signal_kernel; the type their name says, else unknown */
  if (has (base, "symmetric_memory::") || has (base, "symm_mem::"))
    return coll_from_words (leaf_name (base));
  return WEFT_COLL_NONE;
}

static WeftCollType
coll_from_nccl_token (const char *t)
{
  /* Longest names first: ReduceScatter before Reduce, AllToAllPivot before AllToAll. */
  static const struct
  {
    const char  *prefix;
    WeftCollType type;
  } tokens[] = {
    { "AllReduce", WEFT_COLL_ALL_REDUCE },
    { "AllGather", WEFT_COLL_ALL_GATHER },
    { "ReduceScatter", WEFT_COLL_REDUCE_SCATTER },
    { "AllToAll", WEFT_COLL_ALL_TO_ALL },       /* RCCL AllToAllPivot */
    { "SendRecv", WEFT_COLL_SEND_RECV },
    { "Send", WEFT_COLL_SEND },
    { "Recv", WEFT_COLL_RECV },
    { "Broadcast", WEFT_COLL_BROADCAST },
    { "Reduce", WEFT_COLL_REDUCE },
    { "Generic", WEFT_COLL_UNKNOWN },
  };

  for (guint i = 0; i < G_N_ELEMENTS (tokens); i++)
    if (g_str_has_prefix (t, tokens[i].prefix))
      return tokens[i].type;
  return WEFT_COLL_UNKNOWN;
}

WeftCollType
weft_coll_type_from_kernel_name (const char *name)
{
  static const char * const prefixes[] = { "ncclDevKernel_", "ncclSymkDevKernel_", "ncclKernel_",
                                            "rcclKernel_", "rcclDevKernel_", NULL };
  const char *p;
  g_autofree char *base = NULL;

  if (name == NULL)
    return WEFT_COLL_NONE;
  p = name;
  if (g_str_has_prefix (p, "void "))
    p += 5;
  for (guint i = 0; prefixes[i] != NULL; i++)
    if (g_str_has_prefix (p, prefixes[i]))
      return coll_from_nccl_token (p + strlen (prefixes[i]));
  /* Other NCCL/RCCL device functions (ncclDevFunc_..., MSCCL): any
   * function name that starts with nccl, rccl or msccl. */
  base = kernel_base_name (name);
  if (g_str_has_prefix (base, "nccl") || g_str_has_prefix (base, "rccl") || g_str_has_prefix (base, "msccl"))
    return WEFT_COLL_UNKNOWN;
  return other_comm_kernel (base);
}

static WeftKernelClass
classify_triton (const char *base)
{
  static const char * const attention[] = { "attention", "flash", "sdpa", "attn", NULL };

  if (has_any (base, attention))
    return WEFT_KCLASS_ATTENTION;
  if (g_str_has_prefix (base, "triton_tem_") || has (base, "_mm_") || g_str_has_suffix (base, "_mm") ||
      has (base, "bmm") || has (base, "gemm"))
    return WEFT_KCLASS_GEMM;
  if (has (base, "layer_norm") || has (base, "rms_norm") || has (base, "batch_norm") || has (base, "group_norm"))
    return WEFT_KCLASS_NORM;
  if (g_str_has_prefix (base, "triton_red_") || g_str_has_prefix (base, "triton_per_"))
    {
      /* Inductor names fused kernels after their ops: mean/var + rsqrt is a
       * normalisation (RMSNorm / LayerNorm forward). */
      if (has (base, "rsqrt") && (has (base, "mean") || has (base, "var")))
        return WEFT_KCLASS_NORM;
      return WEFT_KCLASS_REDUCTION;
    }
  if (g_str_has_prefix (base, "triton_poi_"))
    return WEFT_KCLASS_ELEMENTWISE;
  /* old Triton names (triton__0d1d2d) say nothing */
  return WEFT_KCLASS_OTHER;
}

/* One operand of a Tensile kernel name: the operand letter, then its index
 * letters, then '_' ("ailk_", "bljk_"). */
static gboolean
tensile_operand (const char **p, char operand)
{
  const char *s = *p;
  guint n = 0;

  if (*s != operand)
    return FALSE;
  for (s++; g_ascii_islower (*s); s++)
    n++;
  if (n < 2 || *s != '_')
    return FALSE;
  *p = s + 1;
  return TRUE;
}

/* Tensile / hipBLASLt GEMM: "Cijk_Ailk_Bljk_BBS_BH_..._SUM0..." or
 * "Custom_Cijk_Alik_Bjlk_...": C's indices, then A's and B's. The rest of
 * the name describes tiling and summation (MT, MI, SU, GSU, SUM0 are not
 * reductions). A lookalike without the A and B operands is not one. */
static gboolean
tensile_gemm (const char *base)
{
  const char *p = base;

  if (g_str_has_prefix (p, "custom_"))
    p += strlen ("custom_");
  if (!g_str_has_prefix (p, "cijk_"))
    return FALSE;
  p += strlen ("cijk_");
  return tensile_operand (&p, 'a') && tensile_operand (&p, 'b');
}

static WeftKernelClass classify_rules (const char *base, const char *full);

/* Composable Kernel's tile kernels run through one generic entry,
 * "ck_tile::kentry<256, 1, ck_tile::FmhaFwdKernel<...>>": the kernel
 * in its template arguments says what it does. */
static WeftKernelClass
classify_lower (const char *base, const char *full)
{
  const char *args;

  if (g_str_has_suffix (base, "kentry") && (args = strstr (full, "kentry<")) != NULL)
    return classify_rules (args + strlen ("kentry<"), full);
  return classify_rules (base, full);
}

static WeftKernelClass
classify_rules (const char *base, const char *full)
{
  static const char * const cache_copies[] = { "reshape_and_cache", "copy_page", "kv_cache", NULL };
  static const char * const attention[] = { "flash", "fmha", "attention", "attn", "sdpa", "mha_", "_mha",
                                            "xformers", NULL };
  static const char * const optimizer[] = { "adam", "adagrad", "sgd", "lamb_", "_lamb", "lion_", "_lion", "rmsprop",
                                            "adadelta", "shampoo", "optimizer", NULL };
  static const char * const gemm[] = { "gemm", "gemv", "matmul", "nvjet", "xmma", "wgmma", "cutlass",
                                       "cublas", "scudnn", "convolution", "conv1d", "conv2d", "conv3d",
                                       "dgrad", "wgrad", "winograd", "magma", "dot_kernel", "conv_fwd", "conv_bwd",
                                       NULL };
  static const char * const norm[] = { "layer_norm", "layernorm", "rms_norm", "rmsnorm", "batch_norm",
                                       "batchnorm", "bn_fw", "bn_bw", "group_norm", "groupnorm",
                                       "instance_norm", "instancenorm", "gammabetabackward",
                                       "rowwisemoments", "norm_fwd", "norm_bwd", NULL };
  static const char * const copy[] = { "copy", "catarray", "cat_array", "chunk_cat", "split_with_sizes",
                                       "transpose", "nchwtonhwc", "nhwctonchw", "permute", "fill_kernel",
                                       NULL };
  static const char * const reduction[] = { "reduce", "softmax", "sum", "argmax", "argmin", "topk",
                                            "cross_entropy", "nll_loss", "logsumexp", "lpnorm", "mean",
                                            "welford", "pool", "scan", "norm_kernel", "histogram", NULL };
  static const char * const elementwise[] = { "elementwise", "index", "gather", "scatter", "embedding",
                                              "dropout", "activation", "silu", "gelu", "relu", "sigmoid",
                                              "tanh", "rotary", "quant", "fp8", "masked", "where",
                                              "clamp", "arange", "distribution", "cast", "convert",
                                              "pointwise", "unary", "binary", NULL };

  if (g_str_has_prefix (base, "triton_"))
    return classify_triton (base);
  /* ROCm GEMMs: Tensile / hipBLASLt by their name's shape (before the
   * substring rules: "SUM0" is not a sum), hipBLASLt by name */
  if (tensile_gemm (base) || has (base, "hipblaslt") || has (base, "_hhs_bh_") || has (base, "_bbs_bh_"))
    return WEFT_KCLASS_GEMM;
  /* FBGEMM's namespace says "gemm"; its kernels are embeddings and permutes */
  if (g_str_has_prefix (base, "fbgemm_gpu::"))
    base += strlen ("fbgemm_gpu::");
  /* KV-cache writes carry "flash" in their names but move data */
  if (has_any (base, cache_copies))
    return WEFT_KCLASS_COPY;
  if (has_any (base, attention))
    return WEFT_KCLASS_ATTENTION;
  /* cuBLAS helper kernels (split-K reduce, epilogues, dot, scal) are part
   * of a matmul; their parameter types name cuBLAS. */
  if (has (full, "cublas"))
    return WEFT_KCLASS_GEMM;
  if (has (base, "multi_tensor_apply"))
    {
      /* not "lamb": every lambda would match */
      static const char * const opt_functors[] = { "adam", "sgd", "lambfunctor", "lamb_", "adagrad", "optimizer",
                                                   "lionfunctor", NULL };
      if (has_any (full, opt_functors))
        return WEFT_KCLASS_OPTIMIZER;
      if (has (full, "lpnorm") || has (full, "norm"))
        return WEFT_KCLASS_REDUCTION;
      /* torch._foreach_copy_ (FSDP2's all-gather copy-in / copy-out of
       * tensor lists): a UnaryOpFunctor over Copy<T, T> moves data */
      if (has (full, "::copy<"))
        return WEFT_KCLASS_COPY;
      return WEFT_KCLASS_ELEMENTWISE;
    }
  if (has_any (base, optimizer))
    return WEFT_KCLASS_OPTIMIZER;
  if (has_any (base, gemm) || g_str_has_prefix (base, "bmm") || has (base, "_bmm") || strcmp (base, "kernel2") == 0)
    return WEFT_KCLASS_GEMM;
  if (has_any (base, norm))
    return WEFT_KCLASS_NORM;
  /* PyTorch's generic elementwise loops: the functor says what they do */
  if (has (base, "elementwise") && (has (full, "direct_copy") || has (full, "fillfunctor")))
    return WEFT_KCLASS_COPY;
  if (has_any (base, copy))
    return WEFT_KCLASS_COPY;
  if (has (base, "sort"))
    return WEFT_KCLASS_OTHER;
  if (has_any (base, reduction))
    return WEFT_KCLASS_REDUCTION;
  if (has_any (base, elementwise))
    return WEFT_KCLASS_ELEMENTWISE;
  return WEFT_KCLASS_OTHER;
}

WeftKernelClass
weft_classify_kernel_name (const char *name)
{
  g_autofree char *base = NULL;
  g_autofree char *full = NULL;

  if (name == NULL || *name == '\0')
    return WEFT_KCLASS_OTHER;
  if (weft_coll_type_from_kernel_name (name) != WEFT_COLL_NONE)
    return WEFT_KCLASS_COMM;
  base = kernel_base_name (name);
  full = g_ascii_strdown (name, -1);
  return classify_lower (base, full);
}

/* ---- collective names, dtypes ------------------------------------------------ */

WeftCollType
weft_coll_type_from_collective_name (const char *name)
{
  g_autofree char *low = NULL;
  char *s;
  gsize len;

  if (name == NULL || *name == '\0')
    return WEFT_COLL_NONE;
  low = g_ascii_strdown (name, -1);
  s = low;
  /* "nccl:all_reduce", "gloo:broadcast", "c10d::allreduce_" */
  if (g_str_has_prefix (s, "c10d::"))
    s += 6;
  else if (g_str_has_prefix (s, "nccl:") || g_str_has_prefix (s, "gloo:") || g_str_has_prefix (s, "rccl:"))
    s += 5;
  while (*s == '_')
    s++;
  len = strlen (s);
  while (len > 0 && s[len - 1] == '_')
    s[--len] = '\0';

  if (g_str_has_prefix (s, "allreduce") || g_str_has_prefix (s, "all_reduce"))
    return WEFT_COLL_ALL_REDUCE;
  if (g_str_has_prefix (s, "allgather") || g_str_has_prefix (s, "all_gather"))
    return WEFT_COLL_ALL_GATHER;
  if (g_str_has_prefix (s, "reduce_scatter") || g_str_has_prefix (s, "reducescatter"))
    return WEFT_COLL_REDUCE_SCATTER;
  if (g_str_has_prefix (s, "all_to_all") || g_str_has_prefix (s, "alltoall"))
    return WEFT_COLL_ALL_TO_ALL;
  if (g_str_has_prefix (s, "batch_isend_irecv") || g_str_has_prefix (s, "sendrecv"))
    return WEFT_COLL_SEND_RECV;
  if (strcmp (s, "send") == 0 || strcmp (s, "isend") == 0)
    return WEFT_COLL_SEND;
  if (g_str_has_prefix (s, "recv") || strcmp (s, "irecv") == 0)
    return WEFT_COLL_RECV;
  if (g_str_has_prefix (s, "broadcast"))
    return WEFT_COLL_BROADCAST;
  if (strcmp (s, "reduce") == 0 || strcmp (s, "reduce_oop") == 0)
    return WEFT_COLL_REDUCE;
  if (g_str_has_prefix (s, "barrier"))
    return WEFT_COLL_BARRIER;
  return WEFT_COLL_UNKNOWN;
}

int
weft_dtype_size (const char *dtype)
{
  static const struct
  {
    const char *name;
    int         size;
  } sizes[] = {
    /* c10 ScalarType names (record_param_comms "dtype") */
    { "float", 4 }, { "double", 8 }, { "half", 2 }, { "bfloat16", 2 }, { "long", 8 },
    { "int", 4 }, { "short", 2 }, { "char", 1 }, { "byte", 1 }, { "bool", 1 },
    { "complexhalf", 4 }, { "complexfloat", 8 }, { "complexdouble", 16 },
    { "float8_e4m3fn", 1 }, { "float8_e5m2", 1 }, { "float8_e4m3fnuz", 1 }, { "float8_e5m2fnuz", 1 },
    { "float8_e8m0fnu", 1 }, { "float4_e2m1fn_x2", 1 },
    { "uint16", 2 }, { "uint32", 4 }, { "uint64", 8 }, { "qint8", 1 }, { "quint8", 1 }, { "qint32", 4 },
    /* torch / numpy / NCCL spellings */
    { "float32", 4 }, { "float64", 8 }, { "float16", 2 }, { "fp32", 4 }, { "fp64", 8 }, { "fp16", 2 },
    { "bf16", 2 }, { "f32", 4 }, { "f64", 8 }, { "f16", 2 }, { "int64", 8 }, { "int32", 4 },
    { "int16", 2 }, { "int8", 1 }, { "uint8", 1 }, { "i64", 8 }, { "i32", 4 }, { "i8", 1 }, { "u8", 1 },
    { "int8_t", 1 }, { "uint8_t", 1 }, { "int32_t", 4 }, { "int64_t", 8 }, { "unsigned char", 1 },
    { "signed char", 1 }, { "unsigned int", 4 }, { "fp8", 1 },
    /* C spellings of "Input type" in older traces */
    { "long int", 8 }, { "long long", 8 }, { "long long int", 8 }, { "unsigned long", 8 },
    { "short int", 2 }, { "unsigned short", 2 }, { "c10::half", 2 },
    { "ncclfloat32", 4 }, { "ncclfloat", 4 }, { "ncclfloat16", 2 }, { "ncclhalf", 2 }, { "ncclbfloat16", 2 },
    { "ncclfloat64", 8 }, { "nccldouble", 8 }, { "ncclint32", 4 }, { "ncclint", 4 }, { "ncclint64", 8 },
    { "ncclint8", 1 }, { "ncclchar", 1 }, { "ncluint8", 1 }, { "ncluint32", 4 }, { "ncluint64", 8 },
  };
  g_autofree char *low = NULL;
  const char *s;

  if (dtype == NULL || *dtype == '\0')
    return 0;
  low = g_ascii_strdown (dtype, -1);
  s = low;
  if (g_str_has_prefix (s, "c10::"))
    s += 5;
  else if (g_str_has_prefix (s, "torch."))
    s += 6;
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    if (strcmp (sizes[i].name, s) == 0)
      return sizes[i].size;
  return 0;
}
