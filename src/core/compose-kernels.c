/* compose-kernels.c: the kernel names the composer writes, as PyTorch
 * 2.5/2.6 on H100 prints them (cuBLAS/nvjet GEMMs, flash attention,
 * Inductor's Triton kernels, eager ATen kernels, NCCL kernels). One
 * definition each: the emitters compare names by pointer (gemm's
 * weight-gradient test, eager_ops' reductions). */
#include "config.h"

#include "compose-kernels-private.h"

const char *const GEMM_FWD = "nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NTT";
const char *const GEMM_DGRAD = "nvjet_tst_256x128_64x4_2x1_v_bz_coopB_NNT";
const char *const GEMM_WGRAD = "nvjet_tst_128x128_64x4_2x1_v_bz_TNT";
const char *const GEMM_OUT =
  "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas";
const char *const K_RMS = "triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_0";
const char *const K_RMS_BWD = "triton_red_fused__to_copy_add_div_mul_pow_sum_1";
const char *const K_ROPE =
  "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<c10::complex<float>, "
  "c10::complex<float>, c10::complex<float>, at::native::binary_internal::MulFunctor<c10::complex<float> > > >(at::TensorIteratorBase&, "
  "at::native::BinaryFunctor<c10::complex<float>, c10::complex<float>, c10::complex<float>, at::native::binary_internal::MulFunctor<c10::complex<float> > > const&)::{lambda(int)#1}>"
  "(int, at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<c10::complex<float>, c10::complex<float>, c10::complex<float>, "
  "at::native::binary_internal::MulFunctor<c10::complex<float> > > >(at::TensorIteratorBase&, at::native::BinaryFunctor<c10::complex<float>, "
  "c10::complex<float>, c10::complex<float>, at::native::binary_internal::MulFunctor<c10::complex<float> > > const&)::{lambda(int)#1})";
const char *const K_FLASH_FWD =
  "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t, "
  "pytorch_flash::Flash_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t> >, false, true, false, false, true, true, false, false>(pytorch_flash::Flash_fwd_params)";
const char *const K_FLASH_BWD_DOT =
  "void pytorch_flash::flash_bwd_dot_do_o_kernel<true, pytorch_flash::Flash_bwd_kernel_traits<128, 64, 128, 8, 2, 4, 2, false, false, "
  "cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<128, 64, 128, 8, cutlass::bfloat16_t> > >(pytorch_flash::Flash_bwd_params)";
const char *const K_FLASH_BWD =
  "void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<pytorch_flash::Flash_bwd_kernel_traits<128, 64, 128, 8, 2, 4, 2, false, false, "
  "cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<128, 64, 128, 8, cutlass::bfloat16_t> >, true, false, false, false, false, true>(pytorch_flash::Flash_bwd_params)";
const char *const K_FLASH_BWD_CVT =
  "void pytorch_flash::flash_bwd_convert_dq_kernel<pytorch_flash::Flash_bwd_kernel_traits<128, 64, 128, 8, 2, 4, 2, false, false, "
  "cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<128, 64, 128, 8, cutlass::bfloat16_t> > >(pytorch_flash::Flash_bwd_params, int)";
const char *const K_ADD =
  "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul> >(int, "
  "at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)";
const char *const K_SILU = "triton_poi_fused_mul_silu_0";
const char *const K_SILU_BWD = "triton_poi_fused_mul_sigmoid_silu_silu_backward_0";
const char *const K_COPY_IN =
  "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<2>, "
  "at::native::(anonymous namespace)::UnaryOpFunctor<c10::BFloat16, 2, 1, 1>, at::native::(anonymous namespace)::Copy<c10::BFloat16, "
  "c10::BFloat16> >(at::native::(anonymous namespace)::TensorListMetadata<2>, at::native::(anonymous namespace)::UnaryOpFunctor<"
  "c10::BFloat16, 2, 1, 1>, at::native::(anonymous namespace)::Copy<c10::BFloat16, c10::BFloat16>)";
const char *const K_COPY_OUT =
  "void at::native::(anonymous namespace)::split_with_sizes_copy_out_contiguous_no_cast_kernel<c10::BFloat16>(c10::BFloat16 const*, "
  "long const*, long const*, long const*, c10::BFloat16**, long, long)";
const char *const K_CHUNK_CAT =
  "void at::native::(anonymous namespace)::chunk_cat_cuda_kernel<float, c10::BFloat16>(c10::BFloat16**, float*, long*, long*, long*, "
  "long*, long*, long, long, long, long)";
const char *const K_EMBED =
  "void at::native::(anonymous namespace)::indexSelectLargeIndex<c10::BFloat16, long, unsigned int, 2, 2, -2, true>"
  "(at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>, at::cuda::detail::TensorInfo<c10::BFloat16 const, unsigned int>, "
  "at::cuda::detail::TensorInfo<long const, unsigned int>, int, int, unsigned int, unsigned int, long)";
const char *const K_EMBED_BWD =
  "void at::native::(anonymous namespace)::embedding_backward_feature_kernel<c10::BFloat16, float, long>(long const*, "
  "c10::BFloat16 const*, c10::BFloat16*, int, long, int)";
const char *const K_SOFTMAX =
  "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
  "at::native::(anonymous namespace)::LogSoftMaxForwardEpilogue>(float*, float const*, int)";
const char *const K_SOFTMAX_BWD =
  "void at::native::(anonymous namespace)::cunn_SoftMaxBackward<4, float, float, float, "
  "at::native::(anonymous namespace)::LogSoftMaxBackwardEpilogue>(float*, float const*, float const*, long)";
const char *const K_NLL =
  "void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<float, float, long>(float*, float*, float const*, "
  "long const*, float const*, bool, long, long, long, long)";
const char *const K_ADAM =
  "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<4>, "
  "at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, (at::native::(anonymous namespace)::ADAM_MODE)1, false>, "
  "double*, double, double, double, double, double, bool, float*, float*>(at::native::(anonymous namespace)::TensorListMetadata<4>, "
  "at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, (at::native::(anonymous namespace)::ADAM_MODE)1, false>, "
  "double*, double, double, double, double, double, bool, float*, float*)";
const char *const K_NORM2 =
  "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<1>, "
  "at::native::(anonymous namespace)::LpNormFunctor<float, (at::native::(anonymous namespace)::NormType)1, float, float>, "
  "float*, int>(at::native::(anonymous namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::LpNormFunctor<float, "
  "(at::native::(anonymous namespace)::NormType)1, float, float>, float*, int)";
const char *const K_REDUCE =
  "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::NormTwoOps<float, float, float>, unsigned int, float, 4, 4> >"
  "(at::native::ReduceOp<float, at::native::NormTwoOps<float, float, float>, unsigned int, float, 4, 4>)";
const char *const K_TOPK = "void at::native::sbtopk::gatherTopK<float, unsigned int, 2, false>(at::cuda::detail::TensorInfo<float const, unsigned int>, "
                            "unsigned int, unsigned int, bool, unsigned int, unsigned int, at::cuda::detail::TensorInfo<float, unsigned int>, "
                            "unsigned int, at::cuda::detail::TensorInfo<long, unsigned int>, unsigned int)";
const char *const K_HIST = "void at::cuda::kernelHistogram1D<long, long, long, 1, 2, -1, (at::cuda::CUDAHistogramMemoryType)0, "
                            "at::cuda::detail::TensorInfo<long, long>, at::cuda::detail::TensorInfo<long, long>, long, long>";
const char *const K_PERMUTE = "void at::native::index_elementwise_kernel<128, 4, at::native::gpu_index_kernel<"
                               "at::native::index_kernel_impl<at::native::OpaqueType<2> >(at::TensorIteratorBase&, "
                               "c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(char*, char const*, long)#1}> >";
const char *const K_GROUPED_GEMM =
  "void cutlass::device_kernel<at::cuda::detail::enable_3x_kernel_for_sm9x<cutlass::gemm::kernel::GemmUniversal<"
  "cutlass::gemm::GroupProblemShape<cute::tuple<int, int, int> >, cutlass::gemm::collective::CollectiveMma<"
  "cutlass::gemm::MainloopSm90ArrayTmaGmmaWarpSpecializedCooperative, cutlass::bfloat16_t, cutlass::bfloat16_t, float> > > >";
const char *const K_SCATTER_ADD = "void at::native::_scatter_gather_elementwise_kernel<128, 4, at::native::_cuda_scatter_gather_internal_kernel<"
                                   "true, c10::BFloat16>::operator()<at::native::ReduceAdd>(at::TensorIterator&, long, long, long, "
                                   "at::native::ReduceAdd const&)::{lambda(long)#1}>(int, {lambda(long)#1})";
const char *const K_LSE_MERGE = "triton_poi_fused_add_exp_log_logsumexp_mul_sigmoid_sub_0";

/* eager ATen kernels (no torch.compile): the decomposed norms, RoPE, SwiGLU */
const char *const K_EW_COPY =
  "void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() "
  "const::{lambda()#7}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul>, 4, TrivialOffsetCalculator<1, unsigned int>, "
  "TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithCast<1>, at::native::memory::StoreWithCast<1> >";
const char *const K_EW_POW =
  "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::pow_tensor_scalar_kernel_impl<float, float>"
  "(at::TensorIteratorBase&, float)::{lambda(float)#1}, std::array<char*, 2ul> >";
const char *const K_RED_MEAN =
  "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, "
  "float, 4, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4, 4>)";
const char *const K_EW_ADDS =
  "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctorOnSelf_add<float>, std::array<char*, 2ul> >(int, "
  "at::native::CUDAFunctorOnSelf_add<float>, std::array<char*, 2ul>)";
const char *const K_EW_RSQRT =
  "void at::native::vectorized_elementwise_kernel<4, at::native::rsqrt_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() "
  "const::{lambda()#2}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul> >";
const char *const K_EW_MUL =
  "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<float, float, float, "
  "at::native::binary_internal::MulFunctor<float> > >(at::TensorIteratorBase&, at::native::BinaryFunctor<float, float, float, "
  "at::native::binary_internal::MulFunctor<float> > const&)::{lambda(int)#1}>";
const char *const K_EW_MUL_BF16 =
  "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, "
  "at::native::binary_internal::MulFunctor<float> >, std::array<char*, 3ul> >";
const char *const K_RED_SUM =
  "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, "
  "float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4, 4> >";
const char *const K_EW_SILU =
  "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::silu_kernel(at::TensorIteratorBase&)::{lambda()#1}"
  "::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul> >";
const char *const K_EW_SILU_BWD =
  "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::silu_backward_kernel(at::TensorIteratorBase&)"
  "::{lambda()#1}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16, c10::BFloat16)#1}, std::array<char*, 3ul> >";
const char *const K_EW_CLONE =
  "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)"
  "::{lambda()#3}::operator()() const::{lambda()#12}::operator()() const::{lambda(c10::BFloat16)#1}>(at::TensorIteratorBase&, "
  "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#12}::operator()() const::"
  "{lambda(c10::BFloat16)#1} const&)::{lambda(int)#1}>";
/* float8 (torchao tensorwise scaling): Inductor's amax and cast kernels, FP8 GEMMs */
const char *const K_F8_AMAX = "triton_red_fused_abs_amax_0";
const char *const K_F8_CAST = "triton_poi_fused__to_copy_clamp_mul_reciprocal_1";
const char *const K_F8_GEMM =
  "sm90_xmma_gemm_e4m3bf16_e4m3f32_f32_tn_n_tilesize128x256x128_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas";
const char *const K_F8_GEMM_BWD =
  "sm90_xmma_gemm_e5m2bf16_e4m3f32_f32_tn_n_tilesize128x256x128_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas";

/* NCCL kernels (the collectives, compose-emit.c; P2P, compose-pp.c) */
const char *const K_AG = "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
const char *const K_RS_BF16 = "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
const char *const K_AR_BF16 = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
const char *const K_AR_F32 = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
const char *const K_SENDRECV = "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)";
