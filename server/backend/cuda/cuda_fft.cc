// CudaFft::Fft on cuFFT (cufft_plans.h): the (outer, length, inner) batch as one advanced
// layout, over the outer axis when inner is 1, else over the longer of the two with one
// execution per index of the shorter; a multi-dimensional call as one plan of its rank; then
// the scale and conjugation NumPy's functions ask for (fft_kernels.cuh), which a
// complex-to-real transform applies to its input beforehand. Everything is enqueued on the
// call's stream and nothing waits.
#include <cufft.h>
#include <fmt/format.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <numeric>

#include "server/backend/cuda/compute_context.h"
#include "server/backend/cuda/cuda_check.h"
#include "server/backend/cuda/cuda_parts.h"
#include "server/backend/cuda/cuda_queue.h"
#include "server/backend/cuda/cufft_plans.h"
#include "server/backend/cuda/fft_kernels.cuh"
#include "server/backend/cuda/scratch.h"
#include "server/common/status_macros.h"

namespace arrayhub {
namespace {

std::byte* Origin(const ArrayView& view) {
  return static_cast<std::byte*>(view.buffer->data()) + view.offset_bytes;
}

int64_t Elements(const ArrayView& view) {
  return std::accumulate(view.shape.begin(), view.shape.end(), int64_t{1}, std::multiplies<>());
}

cufftType TypeOf(FftKind kind, bool wide) {
  switch (kind) {
    case FftKind::kComplex:
      return wide ? CUFFT_Z2Z : CUFFT_C2C;
    case FftKind::kRealToComplex:
      return wide ? CUFFT_D2Z : CUFFT_R2C;
    case FftKind::kComplexToReal:
      return wide ? CUFFT_Z2D : CUFFT_C2R;
  }
  return CUFFT_C2C;
}

cufftResult Execute(cufftHandle plan, FftKind kind, bool wide, bool forward, void* in, void* out) {
  const int direction = forward ? CUFFT_FORWARD : CUFFT_INVERSE;
  switch (kind) {
    case FftKind::kComplex:
      return wide ? cufftExecZ2Z(plan, static_cast<cufftDoubleComplex*>(in),
                                 static_cast<cufftDoubleComplex*>(out), direction)
                  : cufftExecC2C(plan, static_cast<cufftComplex*>(in),
                                 static_cast<cufftComplex*>(out), direction);
    case FftKind::kRealToComplex:
      return wide
                 ? cufftExecD2Z(plan, static_cast<cufftDoubleReal*>(in),
                                static_cast<cufftDoubleComplex*>(out))
                 : cufftExecR2C(plan, static_cast<cufftReal*>(in), static_cast<cufftComplex*>(out));
    case FftKind::kComplexToReal:
      return wide
                 ? cufftExecZ2D(plan, static_cast<cufftDoubleComplex*>(in),
                                static_cast<cufftDoubleReal*>(out))
                 : cufftExecC2R(plan, static_cast<cufftComplex*>(in), static_cast<cufftReal*>(out));
  }
  return CUFFT_INVALID_TYPE;
}

// Points `plan` at the call's stream and a work area allocated on it (`work`, freed in the
// stream's order after the execution).
absl::Status Prepare(const CufftPlan& plan, const ComputeContext& context,
                     std::unique_ptr<ScratchBuffer>& work) {
  if (plan.work_bytes() > 0) {
    AH_ASSIGN_OR_RETURN(work,
                        AllocateScratch(static_cast<int64_t>(plan.work_bytes()), context.stream));
  }
  AH_RETURN_IF_ERROR(CufftStatus(cufftSetStream(plan.handle(), context.stream), "cufftSetStream"));
  return CufftStatus(cufftSetWorkArea(plan.handle(), work ? work->data() : nullptr),
                     "cufftSetWorkArea");
}

// The (outer, length, inner) batch of one-dimensional transforms.
absl::Status AlongTheMiddleAxis(const FftCall& call, const ComputeContext& context, bool wide) {
  const int64_t outer = call.input.shape[0];
  const int64_t inner = call.input.shape[2];
  const int64_t in_length = call.input.shape[1];
  const int64_t out_length = call.output.shape[1];
  if (call.kind == FftKind::kComplexToReal) {
    AH_CUDA_RETURN_IF_ERROR(LaunchPrepareComplexToReal(Origin(call.input), outer, in_length, inner,
                                                       call.n, wide, call.conjugate, call.scale,
                                                       context.stream));
  }
  // Element (o, x, i) is at (o * length + x) * inner + i: batch over o (stride inner between
  // points, whole stacks between transforms) and loop over i, or the other way round. Real
  // transforms never loop over i: cuFFT refuses real data at an odd element offset.
  const bool real = call.kind != FftKind::kComplex;
  const bool over_outer = inner == 1 || (!real && outer >= inner);
  const int64_t loops = over_outer ? inner : outer;
  // cuFFT also refuses (CUFFT_INVALID_VALUE) real data not aligned as its complex type: where
  // the real side starts misaligned (a view's offset) or a loop over stacks would start one at
  // an odd offset, it goes through an aligned scratch copy whose stacks are made even.
  std::byte* real_side = call.kind == FftKind::kRealToComplex   ? Origin(call.input)
                         : call.kind == FftKind::kComplexToReal ? Origin(call.output)
                                                                : nullptr;
  const int64_t real_item = wide ? 8 : 4;
  const int64_t block = call.n * inner;  // Reals per stack on the real side.
  const int64_t pitch = over_outer ? block : (block + 1) / 2 * 2;
  const bool staged = real && (reinterpret_cast<uintptr_t>(real_side) % (2 * real_item) != 0 ||
                               (loops > 1 && block % 2 != 0));
  std::unique_ptr<ScratchBuffer> staging;
  if (staged) {
    AH_ASSIGN_OR_RETURN(staging, AllocateScratch(outer * pitch * real_item, context.stream));
  }
  if (staged && call.kind == FftKind::kRealToComplex) {
    AH_CUDA_RETURN_IF_ERROR(cudaMemcpy2DAsync(staging->data(), pitch * real_item, real_side,
                                              block * real_item, block * real_item, outer,
                                              cudaMemcpyDeviceToDevice, context.stream));
  }
  std::byte* in = staged && call.kind == FftKind::kRealToComplex
                      ? static_cast<std::byte*>(staging->data())
                      : Origin(call.input);
  std::byte* out = staged && call.kind == FftKind::kComplexToReal
                       ? static_cast<std::byte*>(staging->data())
                       : Origin(call.output);
  const int64_t in_stack = call.kind == FftKind::kRealToComplex ? pitch : in_length * inner;
  const int64_t out_stack = call.kind == FftKind::kComplexToReal ? pitch : out_length * inner;
  const CufftKey key{.device = context.device,
                     .type = TypeOf(call.kind, wide),
                     .n = call.n,
                     .batch = over_outer ? outer : inner,
                     .istride = inner,
                     .idist = over_outer ? in_stack : 1,
                     .ostride = inner,
                     .odist = over_outer ? out_stack : 1};
  AH_ASSIGN_OR_RETURN(const CufftPlan plan, CufftPlan::For(key));
  std::unique_ptr<ScratchBuffer> work;
  AH_RETURN_IF_ERROR(Prepare(plan, context, work));
  const int64_t in_item = ItemSize(call.input.dtype);
  const int64_t out_item = ItemSize(call.output.dtype);
  for (int64_t l = 0; l < loops; ++l) {
    // The l-th inner index (over outer) or the l-th stack (over inner).
    const int64_t in_offset = over_outer ? l : l * in_stack;
    const int64_t out_offset = over_outer ? l : l * out_stack;
    AH_RETURN_IF_ERROR(
        CufftStatus(Execute(plan.handle(), call.kind, wide, call.forward, in + in_offset * in_item,
                            out + out_offset * out_item),
                    fmt::format("cufftExec of {} points, batch {}", key.n, key.batch)));
  }
  if (staged && call.kind == FftKind::kComplexToReal) {
    AH_CUDA_RETURN_IF_ERROR(cudaMemcpy2DAsync(real_side, block * real_item, staging->data(),
                                              pitch * real_item, block * real_item, outer,
                                              cudaMemcpyDeviceToDevice, context.stream));
  }
  return absl::OkStatus();
}

// A multi-dimensional transform over the trailing axes: one execution of a plan in cuFFT's
// basic layout, which C-contiguous (outer, leading..., length) stacks are. A real input a
// view's offset leaves misaligned for cuFFT (see above) goes through an aligned copy.
absl::Status OverTrailingAxes(const FftCall& call, const ComputeContext& context, bool wide) {
  std::byte* in = Origin(call.input);
  std::unique_ptr<ScratchBuffer> staging;
  const int64_t real_item = wide ? 8 : 4;
  if (call.kind == FftKind::kRealToComplex &&
      reinterpret_cast<uintptr_t>(in) % (2 * real_item) != 0) {
    const int64_t bytes = Elements(call.input) * real_item;
    AH_ASSIGN_OR_RETURN(staging, AllocateScratch(bytes, context.stream));
    AH_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(staging->data(), in, static_cast<size_t>(bytes),
                                            cudaMemcpyDeviceToDevice, context.stream));
    in = static_cast<std::byte*>(staging->data());
  }
  const CufftKey key{.device = context.device,
                     .type = TypeOf(call.kind, wide),
                     .leading = call.leading,
                     .n = call.n,
                     .batch = call.input.shape[0],
                     .istride = 1,
                     .idist = 0,
                     .ostride = 1,
                     .odist = 0};
  AH_ASSIGN_OR_RETURN(const CufftPlan plan, CufftPlan::For(key));
  std::unique_ptr<ScratchBuffer> work;
  AH_RETURN_IF_ERROR(Prepare(plan, context, work));
  return CufftStatus(Execute(plan.handle(), call.kind, wide, call.forward, in, Origin(call.output)),
                     fmt::format("cufftExec of {} points over {} axes, batch {}", call.n,
                                 call.leading.size() + 1, key.batch));
}

}  // namespace

absl::Status CudaFft::Fft(QueueBinding& queue, const FftCall& call) {
  AH_ASSIGN_OR_RETURN(const QueueSection section, Enter(queue));
  AH_ASSIGN_OR_RETURN(const ComputeContext context, ComputeContextOf(section));
  const bool wide = RealDType(call.input.dtype) == DType::kFloat64;
  AH_RETURN_IF_ERROR(call.leading.empty() ? AlongTheMiddleAxis(call, context, wide)
                                          : OverTrailingAxes(call, context, wide));
  // A complex-to-real transform had its scale applied to its input (LaunchPrepareComplexToReal).
  if (call.kind == FftKind::kComplexToReal) return absl::OkStatus();
  const bool conjugate_out = call.conjugate && call.kind == FftKind::kRealToComplex;
  if (call.scale != 1 || conjugate_out) {
    AH_CUDA_RETURN_IF_ERROR(LaunchScaleConjugate(Origin(call.output), Elements(call.output), wide,
                                                 call.scale, conjugate_out, context.stream));
  }
  return absl::OkStatus();
}

}  // namespace arrayhub
