// CudaCompute::Reduce: stages the input into a form the kernels of cuda_reduce.cu read (their
// accumulate dtype, reduced axes mergeable into one), runs them, and casts the result into
// the output's dtype where it differs. The staging copies go through the elementwise path.
#include <algorithm>
#include <optional>
#include <vector>

#include "server/backend/compute.h"
#include "server/backend/cuda/compute_context.h"
#include "server/backend/cuda/cuda_check.h"
#include "server/backend/cuda/cuda_parts.h"
#include "server/backend/cuda/cuda_queue.h"
#include "server/backend/cuda/cuda_reduce.cuh"
#include "server/backend/cuda/elementwise_launch.h"
#include "server/backend/cuda/reduce_plan.h"
#include "server/backend/cuda/scratch.h"
#include "server/common/status_macros.h"

namespace arrayhub {

namespace {

// The 64-bit (or float32) type a dtype's values are folded in without loss of order or value.
DType Widened(DType dtype) {
  switch (KindOf(dtype)) {
    case DTypeKind::kBool:
    case DTypeKind::kSigned:
      return DType::kInt64;
    case DTypeKind::kUnsigned:
      return DType::kUInt64;
    default:
      return dtype == DType::kFloat16 ? DType::kFloat32 : dtype;
  }
}

// The kernel op and the dtype it works in for a ReduceCall.
struct Plan {
  ReduceKernelOp op = ReduceKernelOp::kSum;
  DType work = DType::kFloat64;
  bool mean = false;      // Divide the sum by the count.
  bool variance = false;  // Two passes: mean, then squared deviations.
};

Plan PlanFor(const ReduceCall& call) {
  const DType accumulate = Widened(call.accumulate_dtype);
  // NumPy's mean and var of integers work in float64.
  const DType floating = IsInteger(accumulate) ? DType::kFloat64 : accumulate;
  switch (call.op) {
    case ReduceOp::kSum:
      return {ReduceKernelOp::kSum, accumulate};
    case ReduceOp::kProd:
      return {ReduceKernelOp::kProd, accumulate};
    case ReduceOp::kMean:
      return {ReduceKernelOp::kSum, floating, true};
    case ReduceOp::kVar:
    case ReduceOp::kStd:
      return {ReduceKernelOp::kSquaredDeviation, floating, false, true};
    // Exact operations: the input's own values, widened.
    case ReduceOp::kMin:
      return {ReduceKernelOp::kMin, Widened(call.input.dtype)};
    case ReduceOp::kMax:
      return {ReduceKernelOp::kMax, Widened(call.input.dtype)};
    case ReduceOp::kArgmin:
      return {ReduceKernelOp::kArgmin, Widened(call.input.dtype)};
    case ReduceOp::kArgmax:
      return {ReduceKernelOp::kArgmax, Widened(call.input.dtype)};
    case ReduceOp::kAny:
      return {ReduceKernelOp::kAny, DType::kBool};
    case ReduceOp::kAll:
      return {ReduceKernelOp::kAll, DType::kBool};
  }
  return {};
}

char* BaseOf(const ArrayView& view) {
  return static_cast<char*>(view.buffer->data()) + view.offset_bytes;
}

// The input as the kernels will read it, and the scratch array holding it if it was copied.
struct Staged {
  std::optional<ScratchArray> copy;
  ArrayView view;
  ReduceGeometry geometry;
};

// Copies the input when the kernels cannot read it as it is: into `dtype` when they do not
// read its dtype, and with the kept axes first and the reduced ones last when the axes do not
// merge into [outer, reduce, inner].
absl::StatusOr<Staged> Stage(const ArrayView& input, const std::vector<int64_t>& axes,
                             bool readable, DType dtype, const ComputeContext& context) {
  std::optional<ReduceGeometry> geometry = CanonicalGeometry(input.shape, input.strides, axes);
  if (readable && geometry) return Staged{std::nullopt, input, *geometry};

  ArrayView source = input;
  std::vector<int64_t> staged_axes = axes;
  if (!geometry) {
    std::vector<int64_t> order;
    for (int64_t d = 0; d < static_cast<int64_t>(input.shape.size()); ++d) {
      if (!std::binary_search(axes.begin(), axes.end(), d)) order.push_back(d);
    }
    order.insert(order.end(), axes.begin(), axes.end());
    staged_axes.clear();
    for (size_t k = 0; k < order.size(); ++k) {
      source.shape[k] = input.shape[static_cast<size_t>(order[k])];
      source.strides[k] = input.strides[static_cast<size_t>(order[k])];
      if (k >= order.size() - axes.size()) staged_axes.push_back(static_cast<int64_t>(k));
    }
  }
  AH_ASSIGN_OR_RETURN(ScratchArray copy, AllocateScratchArray(readable ? input.dtype : dtype,
                                                              source.shape, context.stream));
  const ArrayView view = copy.View();
  AH_RETURN_IF_ERROR(EnqueueCopy(source, view, context));
  geometry = CanonicalGeometry(view.shape, view.strides, staged_axes);
  if (!geometry)
    return absl::InternalError("staged reduction input has no [outer, reduce, inner] form");
  return Staged{std::move(copy), view, *geometry};
}

absl::Status EnqueueReduce(const ReduceCall& call, const ComputeContext& context) {
  int64_t outputs = 1;
  for (int64_t extent : call.output.shape) outputs *= extent;
  if (outputs == 0) return absl::OkStatus();
  int64_t count = 1;  // Elements per output.
  for (int64_t axis : call.axes) count *= call.input.shape[static_cast<size_t>(axis)];

  const Plan plan = PlanFor(call);
  const bool readable = ReduceReadsDirectly(plan.op, call.input.dtype, plan.work);
  AH_ASSIGN_OR_RETURN(const Staged staged,
                      Stage(call.input, call.axes, readable, plan.work, context));

  // The kernels write the output directly when it has their dtype (or is the float32 of their
  // float64), else a scratch array that is cast into it.
  const DType final_dtype = ReduceFinalDType(plan.op, plan.work);
  const bool to_float32 = final_dtype == DType::kFloat64 && call.output.dtype == DType::kFloat32;
  std::optional<ScratchArray> result;
  void* out = BaseOf(call.output);
  if (final_dtype != call.output.dtype && !to_float32) {
    AH_ASSIGN_OR_RETURN(result,
                        AllocateScratchArray(final_dtype, call.output.shape, context.stream));
    out = result->buffer->data();
  }

  ReduceKernelArgs args{.op = plan.op,
                        .input = staged.view.dtype,
                        .accumulate = plan.work,
                        .in = BaseOf(staged.view),
                        .geometry = staged.geometry,
                        .to_float32 = to_float32,
                        .out = out,
                        .sm_count = context.sm_count,
                        .stream = context.stream};
  AH_ASSIGN_OR_RETURN(args.workspace, context.queue->ReductionWorkspace());
  std::optional<ScratchArray> mean;
  if (plan.variance) {
    AH_ASSIGN_OR_RETURN(mean, AllocateScratchArray(plan.work, {outputs}, context.stream));
    ReduceKernelArgs mean_args = args;
    mean_args.op = ReduceKernelOp::kSum;
    mean_args.divisor = static_cast<double>(count);
    mean_args.to_float32 = false;
    mean_args.out = mean->buffer->data();
    AH_CUDA_RETURN_IF_ERROR(LaunchReduce(mean_args));
    args.mean = mean->buffer->data();
    args.divisor = VarianceDivisor(count, call.ddof);
    args.take_sqrt = call.op == ReduceOp::kStd;
  } else if (plan.mean) {
    args.divisor = static_cast<double>(count);
  }
  AH_CUDA_RETURN_IF_ERROR(LaunchReduce(args));
  if (result) AH_RETURN_IF_ERROR(EnqueueCopy(result->View(), call.output, context));
  return absl::OkStatus();
}

}  // namespace

absl::Status CudaCompute::Reduce(QueueBinding& queue, const ReduceCall& call) {
  AH_ASSIGN_OR_RETURN(const QueueSection section, Enter(queue));
  AH_ASSIGN_OR_RETURN(const ComputeContext context, ComputeContextOf(section));
  return EnqueueReduce(call, context);
}

}  // namespace arrayhub
