#include "server/backend/cuda/elementwise_launch.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

#include "server/backend/cuda/coalesced_walk.h"
#include "server/backend/cuda/cuda_check.h"
#include "server/backend/cuda/cuda_queue.h"
#include "server/backend/cuda/cuda_reduce.cuh"
#include "server/backend/cuda/elementwise_codegen.h"
#include "server/backend/cuda/kernel_cache.h"
#include "server/backend/cuda/transpose_kernels.cuh"
#include "server/common/status_macros.h"

namespace arrayhub {

namespace {

// Blocks per multiprocessor at most; grid-stride loops cover larger arrays.
constexpr int64_t kBlocksPerSm = 32;

// The kernel parameter space every device supports (newer ones take more).
constexpr size_t kMaxKernelArgumentBytes = 4096;

// One array of the call (the output or an array operand) in bytes.
struct Operand {
  char* base;
  int64_t item_size;
  std::vector<int64_t> strides;  // Bytes, one per remaining dimension.
};

struct Layout {
  std::vector<int64_t> shape;
  std::vector<Operand> arrays;  // The outputs first, then the array inputs in order.
};

char* BaseOf(const ArrayView& view) {
  return static_cast<char*>(view.buffer->data()) + view.offset_bytes;
}

// The tiled transpose's arguments (transpose_kernels.cuh) when `call` is a plain copy (no
// cast) whose output and input, walked as `layout`, are each contiguous along a different
// dimension of a rank-2 or rank-3 walk; none where the generic kernel serves as well.
std::optional<TiledTransposeArgs> TransposeTiling(const FusedElementwiseCall& call,
                                                  const Layout& layout) {
  if (call.steps.size() != 1 || call.steps[0].op != ElementwiseOp::kCopy ||
      call.outputs.size() != 1 || call.inputs.size() != 1 || !call.inputs[0].array) {
    return std::nullopt;
  }
  const DType dtype = call.inputs[0].dtype;
  if (call.steps[0].compute_dtype != dtype || call.steps[0].result_dtype != dtype ||
      call.outputs[0].view.dtype != dtype) {
    return std::nullopt;
  }
  const size_t rank = layout.shape.size();
  if (rank != 2 && rank != 3) return std::nullopt;
  const Operand& out = layout.arrays[0];
  const Operand& in = layout.arrays[1];
  const int64_t item = out.item_size;
  // Bit copies move whole elements: every address must be aligned to the element.
  auto aligned = [item](const Operand& a) {
    return reinterpret_cast<uintptr_t>(a.base) % static_cast<uintptr_t>(item) == 0 &&
           std::all_of(a.strides.begin(), a.strides.end(),
                       [item](int64_t stride) { return stride % item == 0; });
  };
  if ((item & (item - 1)) != 0 || item > 16 || !aligned(out) || !aligned(in)) {
    return std::nullopt;
  }
  auto contiguous_dim = [item](const Operand& a) -> std::optional<size_t> {
    for (size_t d = 0; d < a.strides.size(); ++d) {
      if (a.strides[d] == item) return d;
    }
    return std::nullopt;
  };
  const std::optional<size_t> in_dim = contiguous_dim(in);
  const std::optional<size_t> out_dim = contiguous_dim(out);
  if (!in_dim || !out_dim || *in_dim == *out_dim) return std::nullopt;
  TiledTransposeArgs args{.out = out.base, .in = in.base, .item_size = item};
  const size_t dims[3] = {3 - *in_dim - *out_dim, *in_dim, *out_dim};
  for (int k = rank == 3 ? 0 : 1; k < 3; ++k) {
    args.extents[k] = layout.shape[dims[k]];
    args.in_strides[k] = in.strides[dims[k]];
    args.out_strides[k] = out.strides[dims[k]];
  }
  return args;
}

}  // namespace

absl::Status EnqueueFusedElementwise(const FusedElementwiseCall& call,
                                     const ComputeContext& context) {
  ElementwiseSignature signature;
  const size_t inputs = call.inputs.size();
  for (const FusedElementwiseCall::Step& step : call.steps) {
    if (step.operands.size() != static_cast<size_t>(Arity(step.op))) {
      return absl::InternalError(
          fmt::format("{} with {} operands", OpName(step.op), step.operands.size()));
    }
    for (int operand : step.operands) {
      if (operand < 0 || static_cast<size_t>(operand) >= inputs + signature.steps.size()) {
        return absl::InternalError(
            fmt::format("{} reads value {}, which is not there yet", OpName(step.op), operand));
      }
    }
    AH_RETURN_IF_ERROR(CheckLoopExists(step.op, step.compute_dtype));
    signature.steps.push_back({.op = step.op,
                               .compute = step.compute_dtype,
                               .result = step.result_dtype,
                               .operands = step.operands});
  }
  int64_t n = 1;
  for (int64_t extent : call.shape) n *= extent;
  if (call.reduction) {
    const FusedElementwiseCall::Reduction& reduction = *call.reduction;
    if (reduction.step < 0 || static_cast<size_t>(reduction.step) >= call.steps.size() ||
        !FusableReduction(reduction.op, call.steps[reduction.step].result_dtype)) {
      return absl::InternalError(fmt::format("a fused {} of step {}, of {} steps",
                                             OpName(reduction.op), reduction.step,
                                             call.steps.size()));
    }
    signature.reduction = ElementwiseSignature::Reduction{.op = reduction.op,
                                                          .step = reduction.step,
                                                          .accumulate = reduction.accumulate_dtype,
                                                          .output = reduction.output.dtype};
  } else if (n == 0 || call.outputs.empty()) {
    return absl::OkStatus();  // A reduction of nothing still stores its identity.
  }

  // The arrays in the order of the argument block: the outputs, then the array inputs.
  std::vector<const ArrayView*> views;
  Layout layout;
  for (const FusedElementwiseCall::Output& output : call.outputs) {
    if (output.step < 0 || static_cast<size_t>(output.step) >= call.steps.size()) {
      return absl::InternalError(
          fmt::format("an output of step {}, of {} steps", output.step, call.steps.size()));
    }
    signature.outputs.push_back({.step = output.step, .dtype = output.view.dtype});
    views.push_back(&output.view);
    layout.arrays.push_back({BaseOf(output.view), ItemSize(output.view.dtype), {}});
  }
  for (const ElementwiseOperand& input : call.inputs) {
    signature.inputs.push_back({.dtype = input.dtype, .scalar = !input.array.has_value()});
    if (input.array) {
      views.push_back(&*input.array);
      layout.arrays.push_back({BaseOf(*input.array), ItemSize(input.dtype), {}});
    }
  }
  // Dense arrays become rank 1 and a broadcast row rank 2, whatever the call's rank.
  std::vector<std::vector<int64_t>> byte_strides;
  for (const ArrayView* view : views) byte_strides.push_back(ByteStrides(*view));
  CoalescedWalk walk = Coalesce(call.shape, byte_strides);
  layout.shape = std::move(walk.extents);
  for (size_t k = 0; k < views.size(); ++k) layout.arrays[k].strides = std::move(walk.strides[k]);
  if (std::optional<TiledTransposeArgs> tiled =
          call.reduction ? std::nullopt : TransposeTiling(call, layout)) {
    AH_CUDA_RETURN_IF_ERROR(LaunchTiledTranspose(*tiled, context.stream));
    return absl::OkStatus();
  }

  const bool dense = layout.shape.size() <= 1 &&
                     std::all_of(layout.arrays.begin(), layout.arrays.end(), [](const Operand& a) {
                       return a.strides.empty() || a.strides[0] == a.item_size;
                     });
  int64_t work_items = n;
  if (dense) {
    // As many elements per step as fill 16 bytes of the widest array, when every array is
    // aligned for such vectors.
    int64_t widest = 1;
    for (const Operand& a : layout.arrays) widest = std::max(widest, a.item_size);
    int64_t width = std::max<int64_t>(1, 16 / widest);
    for (const Operand& a : layout.arrays) {
      if (reinterpret_cast<uintptr_t>(a.base) % static_cast<uintptr_t>(width * a.item_size) != 0) {
        width = 1;
      }
    }
    signature.vector_width = static_cast<int>(width);
    work_items = (n + width - 1) / width;
  } else {
    signature.rank = static_cast<int>(layout.shape.size());
    signature.index32 = n <= int64_t{0xffffffff};
  }

  // The argument block (see ElementwiseArgsLayout).
  const ElementwiseArgsLayout offsets = ArgsLayoutOf(signature);
  if (offsets.size > kMaxKernelArgumentBytes) {
    return absl::InternalError(
        fmt::format("an elementwise kernel of {} bytes of arguments", offsets.size));
  }
  std::vector<std::byte> args(offsets.size);
  std::memcpy(args.data(), &n, sizeof(n));
  auto* out = reinterpret_cast<char**>(args.data() + offsets.out);
  auto* in = reinterpret_cast<const char**>(args.data() + offsets.in);
  auto* scalar = args.data() + offsets.scalar;
  for (size_t j = 0; j < call.outputs.size(); ++j) out[j] = layout.arrays[j].base;
  size_t array = call.outputs.size();
  for (const ElementwiseOperand& input : call.inputs) {
    if (input.array) {
      *in++ = layout.arrays[array++].base;
    } else {
      static_assert(sizeof(input.scalar) == 16);
      std::memcpy(scalar, input.scalar.data(), sizeof(input.scalar));
      scalar += sizeof(input.scalar);
    }
  }
  if (signature.rank > 0) {
    const size_t rank = layout.shape.size();
    auto* extents = reinterpret_cast<int64_t*>(args.data() + offsets.shape);
    std::copy(layout.shape.begin(), layout.shape.end(), extents);
    auto* strides = reinterpret_cast<int64_t*>(args.data() + offsets.stride);
    for (size_t row = 0; row < layout.arrays.size(); ++row) {
      std::copy(layout.arrays[row].strides.begin(), layout.arrays[row].strides.end(),
                strides + rank * row);
    }
  }

  int64_t max_blocks = kBlocksPerSm * context.sm_count;
  if (call.reduction) {
    // The queue's reduction workspace: its first counter, then a partial result per block.
    AH_ASSIGN_OR_RETURN(void* workspace, context.queue->ReductionWorkspace());
    auto* arrivals = static_cast<unsigned*>(workspace);
    void* pointers[] = {BaseOf(call.reduction->output), arrivals, arrivals + kReduceArrivalSlots};
    std::memcpy(args.data() + offsets.reduction, pointers, sizeof(pointers));
    max_blocks =
        std::min(max_blocks, kReducePartialBytes / ItemSize(call.reduction->accumulate_dtype));
  }

  AH_ASSIGN_OR_RETURN(
      cudaKernel_t kernel,
      KernelCache::Global().Get(KernelKey(signature), context.arch, kElementwiseEntry,
                                [&] { return KernelSource(signature); }));
  const int64_t blocks = std::clamp<int64_t>(
      (work_items + kElementwiseThreads - 1) / kElementwiseThreads, 1, max_blocks);
  void* kernel_args[] = {args.data()};
  AH_CUDA_RETURN_IF_ERROR(
      cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(static_cast<unsigned>(blocks)),
                       dim3(kElementwiseThreads), kernel_args, 0, context.stream));
  return absl::OkStatus();
}

absl::Status EnqueueElementwise(const ElementwiseCall& call, const ComputeContext& context) {
  FusedElementwiseCall fused{.shape = call.shape,
                             .inputs = call.operands,
                             .steps = {{.op = call.op,
                                        .compute_dtype = call.compute_dtype,
                                        .result_dtype = call.result_dtype,
                                        .operands = {}}},
                             .outputs = {{.step = 0, .view = call.output}}};
  for (size_t k = 0; k < call.operands.size(); ++k) {
    fused.steps[0].operands.push_back(static_cast<int>(k));
  }
  return EnqueueFusedElementwise(fused, context);
}

absl::Status EnqueueCopy(const ArrayView& source, const ArrayView& destination,
                         const ComputeContext& context) {
  ElementwiseCall call{.op = ElementwiseOp::kCopy,
                       .compute_dtype = source.dtype,
                       .result_dtype = source.dtype,
                       .shape = destination.shape,
                       .operands = {ElementwiseOperand{.array = source, .dtype = source.dtype}},
                       .output = destination};
  return EnqueueElementwise(call, context);
}

}  // namespace arrayhub
