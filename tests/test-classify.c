/* test-classify.c: kernel classes, collective types, dtypes (table-driven,
 * with real kernel names from the shared traces), and collectives, matching
 * and clock offsets on real multi-rank traces loaded by the real loader. */
#include "config.h"

#include <string.h>

#include "weft/weft-classify.h"
#include "weft/weft-model.h"

/* ---- kernel names -------------------------------------------------------------- */

typedef struct
{
  const char     *name;
  WeftKernelClass expected;
} NameCase;

/* Every name below occurs in ../shared/traces (first 200 characters where
 * longer: the rules read the function name and the first template arguments). */
static const NameCase name_cases[] = {
  /* communication */
  { "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", WEFT_KCLASS_COMM },
  { "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", WEFT_KCLASS_COMM },
  { "ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", WEFT_KCLASS_COMM },
  { "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", WEFT_KCLASS_COMM },
  { "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", WEFT_KCLASS_COMM },
  { "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", WEFT_KCLASS_COMM },
  { "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", WEFT_KCLASS_COMM },
  { "void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 16>(c10::BFloat16*, unsigned long, "
    "unsigned int**, unsigned long, unsigned long)",
    WEFT_KCLASS_COMM },
  /* GEMM (cuBLAS, cuBLASLt, CUTLASS, cuDNN convolutions) */
  { "volta_sgemm_128x32_nn", WEFT_KCLASS_GEMM },
  { "ampere_sgemm_128x64_nn", WEFT_KCLASS_GEMM },
  { "ampere_gcgemm_64x64_nt", WEFT_KCLASS_GEMM },
  { "nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NTT", WEFT_KCLASS_GEMM },
  { "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_16x4_nn_align4>(cutlass_80_tensorop_s1688gemm_"
    "128x128_16x4_nn_align4::Params)",
    WEFT_KCLASS_GEMM },
  { "sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16_stage4_"
    "warpsize2x2x1_g1_tensor16x8x8_execute_kernel_cudnn_infer",
    WEFT_KCLASS_GEMM },
  { "cudnn_infer_ampere_scudnn_128x64_relu_xregs_large_nn_v1", WEFT_KCLASS_GEMM },
  { "_ZN19cutlass_cudnn_train6KernelINS_4conv6kernel23ImplicitGemmConvolutionINS1_11threadblock22ImplicitGemm"
    "MultistageINS_4gemm9GemmShapeILi128ELi128ELi32EEE",
    WEFT_KCLASS_GEMM },
  { "void splitKreduce_kernel<32, 16, int, float, float, float, float, true, false, false>(cublasSplitKParams<"
    "float>, float const*, float const*, float*, float const*)",
    WEFT_KCLASS_GEMM },
  { "void epilogue::impl::globalKernel<float, float, float, true, true>(int, int, long, float*, "
    "cublasLtEpilogue_t, int, float*, long)",
    WEFT_KCLASS_GEMM },
  { "std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, float, float, float, float, false, "
    "true, false, false, 7, cublasGemvParams<cublasGemvTensorStridedBatched<float const>>>",
    WEFT_KCLASS_GEMM },
  { "void gemmSN_TN_kernel<float, 128, 16, 2, 4, 8, 9, false, cublasGemvTensorStridedBatched<float const>>",
    WEFT_KCLASS_GEMM },
  { "void dot_kernel<float, 128, 0, cublasDotParams<cublasGemvTensorStridedBatched<float const>, "
    "cublasGemvTensorStridedBatched<float> > >(cublasDotParams<cublasGemvTensorStridedBatched<float const>)",
    WEFT_KCLASS_GEMM },
  { "void magma_sgemmEx_kernel<float, float, float, true, false, 6, 4, 6, 3, 4>(int, int, int, Tensor)",
    WEFT_KCLASS_GEMM },
  { "bmm_Bfloat16_MxE2m1MxE4m3_Fp32_t128x16x256u2_s3_et128x16_m128x16x32_cga1x1x1_16dp256b_rM_TN_transOut_"
    "schedP2x1x2x3_biasM_bN_tmaOpt_clmp_dynBatch_sm100f",
    WEFT_KCLASS_GEMM },
  { "void cudnn::cnn::reduce_wgrad_nchw_helper<float, float>(void*, void const*, float, int, int)",
    WEFT_KCLASS_GEMM },
  /* attention */
  { "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
    "cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t> >, false>",
    WEFT_KCLASS_ATTENTION },
  { "void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<pytorch_flash::Flash_bwd_kernel_traits<128, "
    "64, 128, 8, 2, 4, 2, false, false, cutlass::bfloat16_t>>",
    WEFT_KCLASS_ATTENTION },
  { "void pytorch_flash::flash_bwd_convert_dq_kernel<pytorch_flash::Flash_bwd_kernel_traits<128, 64, 128, 8>>",
    WEFT_KCLASS_ATTENTION },
  { "fmhaSm100aKernel_QkvE4m3OBfloat16H64PagedKvCausalP16VarSeqQ128Kv128PersistentContext",
    WEFT_KCLASS_ATTENTION },
  /* normalisation */
  { "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float const*, "
    "float const*, float const*, float*, float*, float*)",
    WEFT_KCLASS_NORM },
  { "void at::native::(anonymous namespace)::layer_norm_grad_input_kernel<float, float>(float const*, float "
    "const*, float const*, float const*, float const*, float*, int)",
    WEFT_KCLASS_NORM },
  { "void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel<float, float>(long, long, float const*, "
    "float const*, float const*, float const*, float*, float*)",
    WEFT_KCLASS_NORM },
  { "void at::native::(anonymous namespace)::RowwiseMomentsCUDAKernel<float, float>(long, float, float const*, "
    "float*, float*)",
    WEFT_KCLASS_NORM },
  { "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 128, true, 1, true>(cudnnTensorStruct, float "
    "const*, cudnnTensorStruct, float*, float const*, float const*, float, float, float*, float*)",
    WEFT_KCLASS_NORM },
  { "void cudnn::bn_bw_1C11_singleread<float, 512, true, 1, 2, 0>(cudnn::bn_bw_1C11_args<float>)",
    WEFT_KCLASS_NORM },
  { "std::enable_if<(((8)>(0)))&&vllm::_typeConvert<c10::BFloat16>::exists, void>::type "
    "vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*, long, c10::BFloat16*, c10::BFloat16 "
    "const*, float, int, int)",
    WEFT_KCLASS_NORM },
  { "void vllm::rms_norm_kernel<c10::BFloat16, 8, 2>(c10::BFloat16*, c10::BFloat16 const*, long, long, long)",
    WEFT_KCLASS_NORM },
  { "triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_0", WEFT_KCLASS_NORM },
  /* optimizer */
  { "void multi_tensor_apply_kernel<TensorListMetadata<4>, AdamFunctor<float>, float, float, float, float, float, "
    "float, adamMode_t, float, int, int>(int, int volatile*, TensorListMetadata<4>, AdamFunctor<float>)",
    WEFT_KCLASS_OPTIMIZER },
  { "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::"
    "FusedOptimizerTensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4>>",
    WEFT_KCLASS_OPTIMIZER },
  { "split_embedding_backward_codegen_adagrad_unweighted_find_long_segments(at::GenericPackedTensorAccessor<int, "
    "1ul, at::RestrictPtrTraits, int>)",
    WEFT_KCLASS_OPTIMIZER },
  { "void split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel_cta_per_row_1<float, float, float, "
    "2ul>(at::GenericPackedTensorAccessor<float, 2ul, at::RestrictPtrTraits, int>)",
    WEFT_KCLASS_OPTIMIZER },
  /* reduction */
  { "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, "
    "at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>",
    WEFT_KCLASS_REDUCTION },
  { "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::WelfordOps<float, float, int, "
    "float, thrust::pair<float, float> >, unsigned int, float, 2> >",
    WEFT_KCLASS_REDUCTION },
  { "void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, true, false>(float*, float "
    "const*, int, int, int, bool const*, int, bool)",
    WEFT_KCLASS_REDUCTION },
  { "void at::native::(anonymous namespace)::cunn_SoftMaxForward<8, c10::BFloat16, float, float, "
    "at::native::(anonymous namespace)::LogSoftMaxForwardEpilogue>(float*, c10::BFloat16 const*, int)",
    WEFT_KCLASS_REDUCTION },
  { "void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<float, float, long>(float*, "
    "float*, float const*, long const*, float const*, bool, long, long, long, long)",
    WEFT_KCLASS_REDUCTION },
  { "void at::native::(anonymous namespace)::lpnorm_cleanup<float, (at::native::(anonymous namespace)::"
    "NormType)1, float, float>(float const*)",
    WEFT_KCLASS_REDUCTION },
  { "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::"
    "TensorListMetadata<1>, at::native::(anonymous namespace)::LpNormFunctor<float, (at::native::NormType)1>>",
    WEFT_KCLASS_REDUCTION },
  { "void at::native::(anonymous namespace)::max_pool_forward_nchw<float, float>(int, float const*, long, long)",
    WEFT_KCLASS_REDUCTION },
  { "triton_red_fused__to_copy_add_div_mul_pow_sum_0", WEFT_KCLASS_REDUCTION },
  { "void cub::DeviceScanKernel<cub::DeviceScanPolicy<int>::Policy600, int*, int*, cub::ScanTileState<int, "
    "true>, cub::Sum, cub::NullType, int>(int*, int*, cub::ScanTileState<int, true>, int, cub::Sum)",
    WEFT_KCLASS_REDUCTION },
  /* elementwise (incl. indexing and casts) */
  { "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<"
    "char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
    WEFT_KCLASS_ELEMENTWISE },
  { "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl<at::native::BinaryFunctor<float, "
    "float, float, at::native::binary_internal::MulFunctor<float> > >(at::TensorIteratorBase&)",
    WEFT_KCLASS_ELEMENTWISE },
  { "void at::native::unrolled_elementwise_kernel<at::native::CUDAFunctor_add<double>, at::detail::Array<char*, "
    "3>, TrivialOffsetCalculator<2, unsigned int>>",
    WEFT_KCLASS_ELEMENTWISE },
  { "triton_poi_fused_mul_silu_0", WEFT_KCLASS_ELEMENTWISE },
  { "void at::native::index_elementwise_kernel<128, 4, at::native::gpu_index_kernel<at::native::index_kernel_impl<"
    "at::native::OpaqueType<4> >(at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>)",
    WEFT_KCLASS_ELEMENTWISE },
  { "void at::native::(anonymous namespace)::indexSelectLargeIndex<c10::BFloat16, long, unsigned int, 2, 2, -2, "
    "true>(at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>)",
    WEFT_KCLASS_ELEMENTWISE },
  { "void split_embedding_codegen_forward_unweighted_kernel<float, float, float, false, long, 1ul, 8ul>(at::"
    "GenericPackedTensorAccessor<float, 1ul, at::RestrictPtrTraits, long>)",
    WEFT_KCLASS_ELEMENTWISE },
  { "void vllm::rotary_embedding_kernel<c10::BFloat16, true>(long const*, c10::BFloat16*, c10::BFloat16*)",
    WEFT_KCLASS_ELEMENTWISE },
  { "void vllm::scaled_fp8_quant_kernel_strided<c10::BFloat16, c10::Float8_e4m3fn>(c10::Float8_e4m3fn*, "
    "c10::BFloat16 const*, float const*, int, long, long)",
    WEFT_KCLASS_ELEMENTWISE },
  { "void tensorrt_llm::kernels::quantize_with_block_size<(tensorrt_llm::BlockScaleQuantizationType)2, "
    "__nv_bfloat16, 32, true>(int, int, int, int, __nv_bfloat16 const*, float const*, unsigned int*, unsigned "
    "int*, flashinfer::QuantizationSFLayout)",
    WEFT_KCLASS_ELEMENTWISE },
  { "void at::native::(anonymous namespace)::fused_dropout_kernel_vec<float, float, unsigned int, 1, 4, bool>(at"
    "::cuda::detail::TensorInfo<float, unsigned int>)",
    WEFT_KCLASS_ELEMENTWISE },
  /* copy (data movement kernels) */
  { "void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{"
    "lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(float)#1}>",
    WEFT_KCLASS_COPY },
  { "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, "
    "1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
    WEFT_KCLASS_COPY },
  { "void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 2, 128, 1>(float*, "
    "at::native::(anonymous namespace)::CatArrInputTensorMetadata<float, unsigned int, 128, 1>)",
    WEFT_KCLASS_COPY },
  { "void at::native::(anonymous namespace)::chunk_cat_cuda_kernel<c10::BFloat16, c10::BFloat16>(at::native::("
    "anonymous namespace)::CatArrInputTensorMetadata<c10::BFloat16, c10::BFloat16, 128>, c10::BFloat16*, long)",
    WEFT_KCLASS_COPY },
  { "void at::native::(anonymous namespace)::split_with_sizes_copy_out_contiguous_no_cast_kernel<c10::BFloat16>("
    "c10::BFloat16 const*, long const*, long const*, long const*, c10::BFloat16**)",
    WEFT_KCLASS_COPY },
  { "void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true, (cudnnKernelDataType_t)2>(cudnn::ops::"
    "nchw2nhwc_params_t<float>, float const*, float*)",
    WEFT_KCLASS_COPY },
  { "void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16, unsigned char, (vllm::Fp8KVCacheDataType)1>("
    "__nv_bfloat16 const*, __nv_bfloat16 const*, unsigned char*, unsigned char*, long const*)",
    WEFT_KCLASS_COPY },
  { "_copy_page_indices_kernel", WEFT_KCLASS_COPY },
  { "void fbgemm_gpu::permute_2D_data_kernel<false, int, int, decltype(nullptr)>(int, int, int, int const*)",
    WEFT_KCLASS_COPY },
  /* other */
  { "at::cuda::(anonymous namespace)::spin_kernel(long)", WEFT_KCLASS_OTHER },
  { "triton__0d1d2d3d", WEFT_KCLASS_OTHER },
  { "void cask_cudnn::computeOffsetsKernel<false, false>(cask_cudnn::ComputeOffsetsParams)", WEFT_KCLASS_OTHER },
  { "void cub::DeviceRadixSortOnesweepKernel<cub::DeviceRadixSortPolicy<long, int, int>::Policy800, false, long, "
    "int, int, int>(int*, int*, int*, int const*, long*, long const*, int*, int const*, int)",
    WEFT_KCLASS_OTHER },
  { "void moe::dev::finalize::finalizeKernelVecLoad<moe::dev::finalize::KernelParams<cutlass::bfloat16_t, "
    "cutlass::bfloat16_t, 4, true> >(moe::dev::finalize::KernelParams<cutlass::bfloat16_t>)",
    WEFT_KCLASS_OTHER },
  { "void bounds_check_indices_kernel<long>(at::GenericPackedTensorAccessor<long, 1ul, at::RestrictPtrTraits, "
    "int>)",
    WEFT_KCLASS_OTHER },
  { "", WEFT_KCLASS_OTHER },
};

static void
test_kernel_names (void)
{
  guint failures = 0;

  for (guint i = 0; i < G_N_ELEMENTS (name_cases); i++)
    {
      WeftKernelClass got = weft_classify_kernel_name (name_cases[i].name);
      if (got != name_cases[i].expected)
        {
          g_test_message ("%s: got %s, expected %s", name_cases[i].name, weft_kernel_class_to_string (got),
                          weft_kernel_class_to_string (name_cases[i].expected));
          failures++;
        }
    }
  g_assert_cmpuint (failures, ==, 0);
  g_assert_cmpint (weft_classify_kernel_name (NULL), ==, WEFT_KCLASS_OTHER);
}

typedef struct
{
  const char  *name;
  WeftCollType expected;
} CollCase;

static void
test_coll_kernel_names (void)
{
  static const CollCase cases[] = {
    { "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", WEFT_COLL_ALL_REDUCE },
    { "ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", WEFT_COLL_BROADCAST },
    { "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclWorkElem)", WEFT_COLL_SEND_RECV },
    { "ncclKernel_ReduceScatter_RING_LL_Sum_half(ncclWorkElem)", WEFT_COLL_REDUCE_SCATTER },
    { "ncclKernel_Reduce_RING_LL_Sum_float(ncclWorkElem)", WEFT_COLL_REDUCE },
    { "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", WEFT_COLL_ALL_GATHER },
    { "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", WEFT_COLL_REDUCE_SCATTER },
    { "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", WEFT_COLL_ALL_REDUCE },
    { "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", WEFT_COLL_SEND_RECV },
    { "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)", WEFT_COLL_UNKNOWN },
    { "ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)", WEFT_COLL_UNKNOWN },
    { "ncclSymkDevKernel_AllReduce_AGxLLMC_R_sum_bf16(ncclSymkDevWorkArgs4K)", WEFT_COLL_ALL_REDUCE },
    { "ncclSymkDevKernel_AllGather_LL(ncclSymkDevWorkArgs4K)", WEFT_COLL_ALL_GATHER },
    { "ncclSymkDevKernel_ReduceScatter_LD_sum_f32(ncclSymkDevWorkArgs4K)", WEFT_COLL_REDUCE_SCATTER },
    { "ncclKernel_AllToAllPivot_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
      WEFT_COLL_ALL_TO_ALL },
    { "void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 16>(c10::BFloat16*, unsigned long)",
      WEFT_COLL_ALL_REDUCE },
    { "volta_sgemm_128x32_nn", WEFT_COLL_NONE },
    { "void at::native::reduce_kernel<512, 1>(at::native::ReduceOp<float>)", WEFT_COLL_NONE },
    { "", WEFT_COLL_NONE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      WeftCollType got = weft_coll_type_from_kernel_name (cases[i].name);
      if (got != cases[i].expected)
        g_error ("%s: got %s, expected %s", cases[i].name, weft_coll_type_to_string (got),
                 weft_coll_type_to_string (cases[i].expected));
    }
  g_assert_cmpint (weft_coll_type_from_kernel_name (NULL), ==, WEFT_COLL_NONE);
}

static void
test_collective_names (void)
{
  static const CollCase cases[] = {
    { "allreduce", WEFT_COLL_ALL_REDUCE },
    { "allreduce_coalesced", WEFT_COLL_ALL_REDUCE },
    { "_allgather_base", WEFT_COLL_ALL_GATHER },
    { "allgather_into_tensor_coalesced", WEFT_COLL_ALL_GATHER },
    { "all_gather", WEFT_COLL_ALL_GATHER },
    { "_reduce_scatter_base", WEFT_COLL_REDUCE_SCATTER },
    { "reduce_scatter_tensor_coalesced", WEFT_COLL_REDUCE_SCATTER },
    { "all_to_all", WEFT_COLL_ALL_TO_ALL },
    { "all_to_allv", WEFT_COLL_ALL_TO_ALL },
    { "send", WEFT_COLL_SEND },
    { "recv", WEFT_COLL_RECV },
    { "recv_anysource", WEFT_COLL_RECV },
    { "broadcast", WEFT_COLL_BROADCAST },
    { "reduce", WEFT_COLL_REDUCE },
    { "barrier", WEFT_COLL_BARRIER },
    { "gather", WEFT_COLL_UNKNOWN },
    /* CPU op names of older traces */
    { "nccl:all_reduce", WEFT_COLL_ALL_REDUCE },
    { "nccl:all_to_all", WEFT_COLL_ALL_TO_ALL },
    { "c10d::allreduce_", WEFT_COLL_ALL_REDUCE },
    { "c10d::alltoall_base_", WEFT_COLL_ALL_TO_ALL },
    { "c10d::_allgather_base_", WEFT_COLL_ALL_GATHER },
    { "c10d::_reduce_scatter_base_", WEFT_COLL_REDUCE_SCATTER },
    { "c10d::broadcast_", WEFT_COLL_BROADCAST },
    { "", WEFT_COLL_NONE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      WeftCollType got = weft_coll_type_from_collective_name (cases[i].name);
      if (got != cases[i].expected)
        g_error ("%s: got %s, expected %s", cases[i].name, weft_coll_type_to_string (got),
                 weft_coll_type_to_string (cases[i].expected));
    }
}

static void
test_dtype_sizes (void)
{
  static const struct
  {
    const char *dtype;
    int         size;
  } cases[] = {
    { "Float", 4 },  { "BFloat16", 2 },      { "Half", 2 },    { "Double", 8 },   { "Long", 8 },
    { "Int", 4 },    { "Byte", 1 },          { "Char", 1 },    { "Bool", 1 },     { "float", 4 },
    { "float32", 4 }, { "bf16", 2 },         { "c10::BFloat16", 2 }, { "c10::Half", 2 }, { "int64", 8 },
    { "Float8_e4m3fn", 1 }, { "ComplexFloat", 8 }, { "Unknown", 0 }, { "", 0 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    g_assert_cmpint (weft_dtype_size (cases[i].dtype), ==, cases[i].size);
  g_assert_cmpint (weft_dtype_size (NULL), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/classify/kernel-names", test_kernel_names);
  g_test_add_func ("/classify/coll-kernel-names", test_coll_kernel_names);
  g_test_add_func ("/classify/collective-names", test_collective_names);
  g_test_add_func ("/classify/dtype-sizes", test_dtype_sizes);
  return g_test_run ();
}
