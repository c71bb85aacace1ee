/* test-classify-names.c: kernel classes, collective types and dtypes from
 * names alone (table-driven, with real kernel names from the shared traces). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <gio/gio.h>

#include "testutil.h"
#include "weft/weft-classify.h"
#include "weft/weft-load.h"
#include "weft/weft-model.h"
#include "weft/weft-solver.h"

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
  /* ROCm GEMMs: Tensile (SUM0, GSU, SU are not reductions), hipBLASLt, Composable Kernel */
  { "Cijk_Ailk_Bljk_BBS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB0_APM1_ABV0_ACED0_AF0EM1_AF1EM1_AMAS3_ASE_ASGT_ASLT_"
    "GRVW8_GSU1_GSUASB_GLS0_ISA90a_IU1_K1_KLA_LBSPP0_LPA0_LPB8_SU32_SUM0_SUS256_SCIUI1_SPO0_SRVW0_WG32_4_1_WGM8",
    WEFT_KCLASS_GEMM },
  { "Cijk_Alik_Bljk_B_BS_BH_Bias_HA_S_SAV_UserArgs_MT256x128x64_MI16x16x1_SN_LDSB1_AFC1_AFEM1_AFEM1_ASEM1_CLR1_"
    "CADS0_DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA8_GRVWB8_GSUAMB_GLS0_ISA942_IU1_K1_LBSPPA1024_LBSPPB512",
    WEFT_KCLASS_GEMM },
  { "Cijk_Ailk_Bjlk_BBS_BH_Bias_HAS_SAV_UserArgs_MT128x64x32_MI32x32x1_SN_LDSB0_AFC1_AFEM1_AFEM1_ASEM1_CLR1",
    WEFT_KCLASS_GEMM },
  { "Custom_Cijk_Alik_Bljk_HHS_BH_Bias_AS_SAV_UserArgs_MT256x256x64_MI16x16x1_SN_GSU4_SUM0", WEFT_KCLASS_GEMM },
  { "void hipblaslt_ext::amax_kernel<float>(float*, float const*)", WEFT_KCLASS_GEMM },
  { "void ck::kernel_gemm_xdl_cshuffle_v3<ck::GridwiseGemm_xdl_cshuffle_v3<ck::tensor_layout::gemm::RowMajor>, "
    "true, (ck::InMemoryDataOperationEnum)0, 1, (ck::TailNumber)1>(ck::GridwiseGemm_xdl_cshuffle_v3::Argument)",
    WEFT_KCLASS_GEMM },
  { "void ck::tensor_operation::device::kernel_grouped_gemm_xdl_splitk<ck::GridwiseGemmMultipleD_xdl_splitk>(void "
    "const*, int)",
    WEFT_KCLASS_GEMM },
  { "void ck::kernel_grouped_conv_fwd_multiple_abd_xdl_cshuffle<ck::GridwiseGemmMultipleABD_xdl_cshuffle<int> >("
    "int)",
    WEFT_KCLASS_GEMM },
  { "void ck_tile::kentry<256, 1, ck_tile::GemmKernel<ck_tile::GemmTile1DPartitioner<ck_tile::sequence<256, 256, "
    "64> >, ck_tile::GemmPipelineAgBgCrCompV3<int> > >(ck_tile::GemmKernelArgs)",
    WEFT_KCLASS_GEMM },
  { "igemm_fwd_gtcx2_nhwc_bf16_bx0_ex1_bt256x64x8_wt64x16x4_ws1x1_wr2x2_ta1x1x8x1_1x8x1x32_tb1x1x2x1_1x8x1x32_me",
    WEFT_KCLASS_GEMM },
  /* ROCm attention: CK tile FMHA (also through the kentry wrapper), aiter */
  { "void ck_tile::kentry<256, 2, ck_tile::FmhaFwdKernel<ck_tile::BlockFmhaPipelineQRKSVSAsync<ck_tile::BlockGemm"
    "ARegBSmemCRegV2<int> > > >(ck_tile::FmhaFwdKernel::FmhaFwdGroupModeKargs)",
    WEFT_KCLASS_ATTENTION },
  { "ck_tile::FmhaBwdDQDKDVKernel<ck_tile::BlockFmhaBwdPipeline<int> >", WEFT_KCLASS_ATTENTION },
  { "_ZN5aiter42fmha_fwd_hd128_bf16_causal_rtz_group_psskE", WEFT_KCLASS_ATTENTION },
  { "attn_fwd", WEFT_KCLASS_ATTENTION },
  { "void ck_tile::kentry<64, 1, ck_tile::Rmsnorm2dFwd<ck_tile::Rmsnorm2dFwdPipelineOnePass<int> > >(ck_tile::"
    "Rmsnorm2dFwdHostArgs)",
    WEFT_KCLASS_NORM },
  /* expert parallelism: DeepEP and forks (dispatch / combine, notify / layout) */
  { "void deep_ep::intranode::dispatch<8, 768, 8192>(int4*, float*, int*, long*, float*, int*, int*, int4 const*, "
    "float const*, long const*, float const*, bool const*, int const*, int, int, int, int, int, int, int)",
    WEFT_KCLASS_COMM },
  { "void deep_ep::intranode::combine<__nv_bfloat16, 8, 768, 4096>(__nv_bfloat16*, float*, __nv_bfloat16 const*)",
    WEFT_KCLASS_COMM },
  { "void deep_ep::layout::get_dispatch_layout<256, 32, 8>(long const*, int*, int*, int*, bool*, int, int, int)",
    WEFT_KCLASS_COMM },
  { "void primus_turbo::ep::internode::dispatch<false, 8, 3, 4096>(int4*, float*)", WEFT_KCLASS_COMM },
  { "void mori::moe::EpDispatchIntraNodeKernel<__hip_bfloat16>(mori::moe::EpDispatchCombineArgs<__hip_bfloat16>)",
    WEFT_KCLASS_COMM },
  /* NVSHMEM, torch symmetric memory */
  { "void barrier_on_stream_kernel_threadgroup<(threadgroup_t)1>(int, int)", WEFT_KCLASS_COMM },
  { "nvshmemi_proxy_rma_entrypoint_blocking", WEFT_KCLASS_COMM },
  { "void c10d::nvshmem_extension::allToAllV(void*, void*, long*, long, int)", WEFT_KCLASS_COMM },
  { "c10d::symmetric_memory::barrier_kernel(unsigned int**, int, int, int, unsigned long)", WEFT_KCLASS_COMM },
  { "void c10d::symmetric_memory::two_shot_all_reduce_kernel<c10::BFloat16, 8>(c10::BFloat16**, unsigned long)",
    WEFT_KCLASS_COMM },
  /* RCCL */
  { "ncclDevKernel_Generic_1(ncclDevKernelArgsStorage<4096ul>)", WEFT_KCLASS_COMM },
  { "rcclGenericKernel", WEFT_KCLASS_COMM },
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
  /* copy: torch._foreach_copy_ */
  { "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::"
    "TensorListMetadata<2>, at::native::(anonymous namespace)::UnaryOpFunctor<c10::BFloat16, 2, 1, 1>, "
    "at::native::(anonymous namespace)::Copy<c10::BFloat16, c10::BFloat16> >(at::native::(anonymous "
    "namespace)::TensorListMetadata<2>)",
    WEFT_KCLASS_COPY },
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
  /* negatives: "combine", "dispatch", "notify", "layout", "barrier", a
   * Cijk lookalike, outside the namespaces and shapes of the rules above */
  { "triton_poi_fused_add_combine_0", WEFT_KCLASS_ELEMENTWISE },
  { "triton_red_fused_dispatch_sum_1", WEFT_KCLASS_REDUCTION },
  { "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, "
    "at::native::combine_functor<float> > > >(at::native::ReduceOp<float>)",
    WEFT_KCLASS_REDUCTION },
  { "void at::native::index_put_kernel_impl<at::native::OpaqueType<2> >(at::TensorIterator&)", WEFT_KCLASS_ELEMENTWISE },
  { "void at::native::(anonymous namespace)::dispatch_layout_kernel<float>(float*)", WEFT_KCLASS_OTHER },
  { "void moe::dev::routing::notify_kernel<int>(int*)", WEFT_KCLASS_OTHER },
  { "void at::native::(anonymous namespace)::barrier_kernel(int*)", WEFT_KCLASS_OTHER },
  { "Cijk_sum_kernel", WEFT_KCLASS_REDUCTION },
  { "void tensile_cijk_copy<float>(float*)", WEFT_KCLASS_COPY },
  { "SubTensorOpWithCastTensor1d", WEFT_KCLASS_ELEMENTWISE },
  { "void cutlass::Kernel2<cutlass_80_simt_sgemm_128x32_8x5_nn_align1>(cutlass_80_simt_sgemm_128x32_8x5_nn_align1::"
    "Params)",
    WEFT_KCLASS_GEMM },
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
    /* RCCL */
    { "ncclDevKernel_Generic_1(ncclDevKernelArgsStorage<4096ul>)", WEFT_COLL_UNKNOWN },
    { "rcclGenericKernel", WEFT_COLL_UNKNOWN },
    { "mscclKernel_Sum_bf16_Simple_false(ncclDevComm*, mscclAlgo*, mscclWork*)", WEFT_COLL_UNKNOWN },
    /* DeepEP: dispatch / combine are all-to-alls, notify / layout / buffer cleaning bookkeeping */
    { "void deep_ep::intranode::dispatch<8, 768, 8192>(int4*, float*, int*)", WEFT_COLL_ALL_TO_ALL },
    { "void deep_ep::intranode::combine<__nv_bfloat16, 8, 768, 4096>(__nv_bfloat16*)", WEFT_COLL_ALL_TO_ALL },
    { "void deep_ep::intranode::notify_dispatch<8>(int const*, int*, int)", WEFT_COLL_EP_NOTIFY },
    { "void deep_ep::intranode::cached_notify_dispatch<8>(int const*, int, void**, int**, int)", WEFT_COLL_EP_NOTIFY },
    { "void deep_ep::intranode::cached_notify_combine<8>(void**, int*, int, int, int**, int)", WEFT_COLL_EP_NOTIFY },
    { "void deep_ep::layout::get_dispatch_layout<256, 32, 8>(long const*, int*, int*)", WEFT_COLL_EP_NOTIFY },
    { "void deep_ep::internode::dispatch<false, 8, 3, 4096, 20, 5>(int4*, float*, long*)", WEFT_COLL_ALL_TO_ALL },
    { "void deep_ep::internode::notify_dispatch<false, 8>(int const*, int*, int)", WEFT_COLL_EP_NOTIFY },
    { "void deep_ep::internode::cached_notify<8>(int, int, int)", WEFT_COLL_EP_NOTIFY },
    { "void deep_ep::internode::combine<__nv_bfloat16, 8, 3>(int4*)", WEFT_COLL_ALL_TO_ALL },
    { "void deep_ep::internode_ll::dispatch<true, 3, 7168>(void*, float*, int*)", WEFT_COLL_ALL_TO_ALL },
    { "void deep_ep::internode_ll::combine<false, 3, 7168, 9>(void*, void*)", WEFT_COLL_ALL_TO_ALL },
    { "void deep_ep::internode_ll::clean_low_latency_buffer<32>(int*, int, int*, int)", WEFT_COLL_EP_NOTIFY },
    { "void deep_ep::intranode::barrier<8>(int**, int)", WEFT_COLL_BARRIER },
    { "_ZN7deep_ep9intranode8dispatchILi8ELi768ELi8192EEEvP4int4PfPiPlS3_S4_S4_PKS1_", WEFT_COLL_ALL_TO_ALL },
    /* forks that rename the namespace */
    { "void primus_turbo::ep::internode::dispatch<false, 8, 3>(int4*)", WEFT_COLL_ALL_TO_ALL },
    { "void primus_turbo::ep::intranode::combine<__hip_bfloat16, 8>(int*)", WEFT_COLL_ALL_TO_ALL },
    { "void primus_turbo::ep::intranode::notify_dispatch<8>(int*)", WEFT_COLL_EP_NOTIFY },
    { "void mori::moe::EpDispatchIntraNodeKernel<__hip_bfloat16>(mori::moe::EpDispatchCombineArgs<__hip_bfloat16>)",
      WEFT_COLL_ALL_TO_ALL },
    { "void mori::moe::EpCombineInterNodeKernel<__hip_bfloat16>(mori::moe::EpDispatchCombineArgs<__hip_bfloat16>)",
      WEFT_COLL_ALL_TO_ALL },
    /* NVSHMEM: library kernels and on-stream collectives */
    { "void barrier_on_stream_kernel_threadgroup<(threadgroup_t)1>(int, int)", WEFT_COLL_BARRIER },
    { "sync_all_on_stream_kernel_warp()", WEFT_COLL_BARRIER },
    { "void alltoall_on_stream_kernel<float>(int, float*, float const*, unsigned long)", WEFT_COLL_ALL_TO_ALL },
    { "void fcollect_on_stream_kernel<int>(int, int*, int const*, unsigned long)", WEFT_COLL_ALL_GATHER },
    { "void rdxn_on_stream_kernel<float, (rdxn_ops)0>(int, float*, float const*, unsigned long)",
      WEFT_COLL_ALL_REDUCE },
    { "void reducescatter_on_stream_kernel<float, (rdxn_ops)0>(int, float*)", WEFT_COLL_REDUCE_SCATTER },
    { "void nvshmemi_alltoall_threadgroup_kernel<float>(int)", WEFT_COLL_ALL_TO_ALL },
    { "nvshmemi_proxy_rma_entrypoint_blocking", WEFT_COLL_UNKNOWN },
    { "void c10d::nvshmem_extension::allToAllV(void*, void*, long*, long, int)", WEFT_COLL_ALL_TO_ALL },
    { "void c10d::nvshmem_extension::exchangeSplitAndOffset(long*, int)", WEFT_COLL_UNKNOWN },
    /* torch symmetric memory */
    { "c10d::symmetric_memory::barrier_kernel(unsigned int**, int, int, int, unsigned long)", WEFT_COLL_BARRIER },
    { "c10d::symmetric_memory::put_signal_kernel(unsigned int**, int, int, int, unsigned long)", WEFT_COLL_UNKNOWN },
    { "c10d::symmetric_memory::(anonymous namespace)::wait_signal_kernel(unsigned int**, int, int, int)",
      WEFT_COLL_UNKNOWN },
    { "void c10d::symmetric_memory::one_shot_all_reduce_kernel<c10::BFloat16, 8, 8>(c10::BFloat16**, unsigned long)",
      WEFT_COLL_ALL_REDUCE },
    { "void c10d::symmetric_memory::two_shot_all_reduce_kernel<c10::BFloat16, 8>(c10::BFloat16**)",
      WEFT_COLL_ALL_REDUCE },
    { "void (anonymous namespace)::multimem_one_shot_all_reduce_kernel<c10::BFloat16, 16>(c10::BFloat16*)",
      WEFT_COLL_ALL_REDUCE },
    { "void (anonymous namespace)::multimem_one_shot_reduce_kernel<c10::BFloat16, 16>(c10::BFloat16*)",
      WEFT_COLL_REDUCE },
    { "void (anonymous namespace)::multimem_all_gather_kernel<16>(unsigned char*)", WEFT_COLL_ALL_GATHER },
    { "void tensorrt_llm::kernels::oneShotAllReduceKernel<__nv_bfloat16, 8>(int)", WEFT_COLL_ALL_REDUCE },
    /* not communication */
    { "volta_sgemm_128x32_nn", WEFT_COLL_NONE },
    { "void at::native::reduce_kernel<512, 1>(at::native::ReduceOp<float>)", WEFT_COLL_NONE },
    { "triton_poi_fused_add_combine_0", WEFT_COLL_NONE },
    { "void at::native::(anonymous namespace)::dispatch_layout_kernel<float>(float*)", WEFT_COLL_NONE },
    { "void at::native::(anonymous namespace)::barrier_kernel(int*)", WEFT_COLL_NONE },
    { "void at::native::(anonymous namespace)::sync_on_stream_kernel(int)", WEFT_COLL_NONE },
    { "void deep_ep::intranode::reduce_helper<8>(int*)", WEFT_COLL_NONE },
    { "Cijk_Ailk_Bljk_BBS_BH_MT128x128x32_MI32x32x8x1_SN_SU32_SUM0", WEFT_COLL_NONE },
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
