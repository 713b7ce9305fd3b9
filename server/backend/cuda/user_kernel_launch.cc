// CudaUserKernels::PrepareUserKernel and RunUserKernel: a user kernel compiled once (on the RPC's
// thread, through the kernel cache, so --kernel-cache-dir applies) and launched on the session's
// stream with its call's shapes, strides, scalars and loop plans in the argument block
// (user_kernel_codegen.h). Only kernels with raw parameters wait for the device: they read the
// error word back to report an index out of range.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "server/backend/compiled_code_store.h"
#include "server/backend/cuda/coalesced_walk.h"
#include "server/backend/cuda/compute_context.h"
#include "server/backend/cuda/cuda_check.h"
#include "server/backend/cuda/cuda_parts.h"
#include "server/backend/cuda/cuda_queue.h"
#include "server/backend/cuda/kernel_cache.h"
#include "server/backend/cuda/scratch.h"
#include "server/backend/cuda/user_kernel_codegen.h"
#include "server/common/status_macros.h"
#include "server/kernel/loop_bounds.h"

namespace arrayhub {

namespace {

using Kind = UserKernelArgument::Kind;

// Blocks per multiprocessor at most; grid-stride loops cover larger calls.
constexpr int64_t kBlocksPerSm = 32;
// A reduction shares an output between blocks when its outputs fill fewer than this many
// blocks per multiprocessor and each thread would still reduce at least kMinPerThread values.
constexpr int64_t kSplitBlocksPerSm = 2;
constexpr int64_t kMinPerThread = 32;
constexpr int64_t kPartialBytes = 32;  // One partial result (ah_acc) per slot.
constexpr int64_t kWarp = 32;

class CudaPreparedKernel final : public PreparedUserKernel {
 public:
  CudaPreparedKernel(cudaKernel_t kernel, UserKernelLayout layout)
      : kernel_(kernel), layout_(layout) {}
  cudaKernel_t kernel() const { return kernel_; }
  const UserKernelLayout& layout() const { return layout_; }

 private:
  cudaKernel_t kernel_;
  UserKernelLayout layout_;
};

int64_t CountOf(const Shape& shape) {
  int64_t count = 1;
  for (const int64_t extent : shape) count *= extent;
  return count;
}

char* BaseOf(const ArrayView& view) {
  return static_cast<char*>(view.buffer->data()) + view.offset_bytes;
}

int64_t PowerOfTwoAtLeast(int64_t n, int64_t cap) {
  int64_t p = 1;
  while (p < n && p < cap) p *= 2;
  return p;
}

// The argument block being filled (user_kernel_codegen.h's ah_args).
class Args {
 public:
  explicit Args(const UserKernelLayout& layout) : layout_(layout), bytes_(layout.size) {}

  void SetWord(int word, int64_t value) { Put(sizeof(int64_t) * word, value); }
  void SetPointer(int word, void* pointer) { Put(sizeof(int64_t) * word, pointer); }
  void SetBase(size_t parameter, char* base) { Put(layout_.base + 8 * parameter, base); }
  void SetRaw(int slot, int64_t size, int64_t rank, int64_t at) {
    Put(layout_.raw_size + 8 * slot, size);
    Put(layout_.raw_rank + 8 * slot, rank);
    Put(layout_.raw_at + 8 * slot, at);
  }
  void SetLoop(size_t loop, const kernel::LoopPlan& plan) {
    Put(layout_.loop_first + 8 * loop, plan.first);
    Put(layout_.loop_trips + 8 * loop, plan.trips);
  }
  void SetScalar(int slot, const ElementBytes& bytes) {
    std::memcpy(bytes_.data() + layout_.scalar + 16 * slot, bytes.data(), bytes.size());
  }
  // Appends words to dims; false when they do not fit.
  bool AddDims(const std::vector<int64_t>& words) {
    if (dims_ + static_cast<int64_t>(words.size()) > layout_.capacity) return false;
    for (const int64_t word : words) Put(layout_.dims + 8 * static_cast<size_t>(dims_++), word);
    return true;
  }
  int64_t dims_used() const { return dims_; }
  void* data() { return bytes_.data(); }

 private:
  template <typename T>
  void Put(size_t offset, T value) {
    std::memcpy(bytes_.data() + offset, &value, sizeof(value));
  }
  const UserKernelLayout& layout_;
  std::vector<std::byte> bytes_;
  int64_t dims_ = 0;
};

// ah_args' leading words.
enum Word { kN, kK, kIndSize, kRank, kRedRank, kGroup, kSplits, kError, kPartials, kArrivals };

absl::Status TooManyDimensions(const kernel::CheckedKernel& kernel, int64_t words,
                               int64_t capacity) {
  return absl::InvalidArgumentError(fmt::format(
      "kernel {}: the shapes and strides of this call need {} words of CUDA kernel parameters, "
      "more than the {} its parameters leave; pass fewer or simpler (contiguous) arrays",
      kernel.name(), words, capacity));
}

}  // namespace

absl::StatusOr<std::shared_ptr<const PreparedUserKernel>> CudaUserKernels::PrepareUserKernel(
    std::shared_ptr<const kernel::CheckedKernel> kernel) {
  AH_RETURN_IF_ERROR(Activate());
  AH_ASSIGN_OR_RETURN(const int arch, ArchOf(device()));
  const UserKernelDefinition definition = DefinitionOf(*kernel);
  AH_ASSIGN_OR_RETURN(const UserKernelLayout layout, LayoutOf(definition));
  AH_ASSIGN_OR_RETURN(std::string source, UserKernelSource(definition));
  // The checked program's key may be long: the cache knows the kernel by its hash.
  const std::string key =
      fmt::format("uk:{}:{}", kernel->name(), CompiledCodeStore::KeyOf({kernel->key()}));
  // CUDA's own default of contracting a * b + c into fused multiply-adds, as CuPy compiles
  // ElementwiseKernel, ReductionKernel and fuse (the ufunc loops keep --fmad=false, for
  // NumPy's exact results).
  static const std::array<std::string, 1> kOptions{"-std=c++17"};
  AH_ASSIGN_OR_RETURN(cudaKernel_t compiled, KernelCache::Global().Get(
                                                 key, arch, kUserKernelEntry,
                                                 [&] { return std::move(source); }, kOptions));
  return std::make_shared<const CudaPreparedKernel>(compiled, layout);
}

absl::Status CudaUserKernels::RunUserKernel(QueueBinding& queue, const UserKernelCall& call) {
  AH_ASSIGN_OR_RETURN(const QueueSection section, Enter(queue));
  AH_ASSIGN_OR_RETURN(const ComputeContext context, ComputeContextOf(section));
  const auto* prepared = dynamic_cast<const CudaPreparedKernel*>(call.prepared.get());
  const kernel::CheckedKernel& kernel = *call.kernel;
  const std::vector<kernel::Parameter>& parameters = kernel.parameters();
  if (prepared == nullptr || call.arguments.size() != parameters.size()) {
    return absl::InternalError(
        fmt::format("kernel {}: a call that PrepareUserKernel did not "
                    "prepare, or {} arguments for {} parameters",
                    kernel.name(), call.arguments.size(), parameters.size()));
  }
  const bool reduction = kernel.kind() == kernel::KernelKind::kReduction;
  const int rank = static_cast<int>(call.shape.size());
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (const int64_t axis : call.reduce_axes) reduced[static_cast<size_t>(axis)] = true;

  Args args(prepared->layout());
  kernel::CallConstants constants;
  constants.scalars.resize(parameters.size());
  constants.sizes.resize(parameters.size());
  int scalar_slot = 0;
  // Raw parameters' own walks, placed in dims after the call's walk (which starts at dims[0]).
  struct RawWalk {
    int64_t size;
    CoalescedWalk walk;
  };
  std::vector<RawWalk> raw_walks;
  // Array parameters' strides over the call's shape, in bytes.
  std::vector<std::vector<int64_t>> array_strides;
  for (size_t k = 0; k < parameters.size(); ++k) {
    const kernel::Parameter& p = parameters[k];
    const UserKernelArgument& argument = call.arguments[k];
    const Kind expected = p.raw ? Kind::kRaw : p.scalar ? Kind::kScalar : Kind::kArray;
    if (argument.kind != expected) {
      return absl::InternalError(
          fmt::format("kernel {}: argument {} is not of its parameter's kind", kernel.name(), k));
    }
    if (argument.kind == Kind::kScalar) {
      constants.scalars[k] = argument.scalar;
      args.SetScalar(scalar_slot++, argument.scalar);
      continue;
    }
    args.SetBase(k, BaseOf(argument.view));
    if (argument.kind == Kind::kRaw) {
      const int64_t size = CountOf(argument.view.shape);
      constants.sizes[k] = size;
      raw_walks.push_back({size, Coalesce(argument.view.shape, {ByteStrides(argument.view)})});
      continue;
    }
    std::vector<int64_t> strides = ByteStrides(argument.view);
    if (reduction && p.output) {
      // The output has the reduced shape: its axes are the call's kept ones, in order.
      std::vector<int64_t> full(static_cast<size_t>(rank), 0);
      for (int d = 0, o = 0; d < rank; ++d) {
        if (!reduced[static_cast<size_t>(d)]) full[static_cast<size_t>(d)] = strides[o++];
      }
      strides = std::move(full);
    }
    array_strides.push_back(std::move(strides));
  }
  const std::vector<kernel::LoopPlan> plans = kernel::PlanLoops(kernel.program(), constants);
  for (size_t loop = 0; loop < plans.size(); ++loop) args.SetLoop(loop, plans[loop]);
  const int64_t count = CountOf(call.shape);
  args.SetWord(kIndSize, count);

  const bool has_raw = !raw_walks.empty();
  std::unique_ptr<ScratchBuffer> error;
  if (has_raw) {
    AH_ASSIGN_OR_RETURN(error, AllocateScratch(3 * sizeof(uint64_t), context.stream));
    AH_CUDA_RETURN_IF_ERROR(
        cudaMemsetAsync(error->data(), 0, 3 * sizeof(uint64_t), context.stream));
    args.SetPointer(kError, error->data());
  }

  int64_t blocks = 1;
  std::unique_ptr<ScratchBuffer> partials;
  if (!reduction) {
    if (count == 0) return absl::OkStatus();
    const CoalescedWalk walk = Coalesce(call.shape, array_strides);
    std::vector<int64_t> words = walk.extents;
    for (const auto& strides : walk.strides)
      words.insert(words.end(), strides.begin(), strides.end());
    if (!args.AddDims(words)) {
      return TooManyDimensions(kernel, static_cast<int64_t>(words.size()),
                               prepared->layout().capacity);
    }
    args.SetWord(kN, count);
    args.SetWord(kRank, static_cast<int64_t>(walk.extents.size()));
    blocks = std::clamp<int64_t>((count + kUserKernelThreads - 1) / kUserKernelThreads, 1,
                                 kBlocksPerSm * context.sm_count);
  } else {
    // The kept dimensions, then the reduced ones; each walk also steps the index i, whose
    // element strides are the call's C-order ones.
    std::vector<int64_t> index_strides(static_cast<size_t>(rank));
    for (int64_t d = rank - 1, stride = 1; d >= 0; --d) {
      index_strides[static_cast<size_t>(d)] = stride;
      stride *= call.shape[static_cast<size_t>(d)];
    }
    array_strides.push_back(std::move(index_strides));
    std::vector<int64_t> kept_extents, reduced_extents;
    std::vector<std::vector<int64_t>> kept(array_strides.size()), red(array_strides.size());
    for (int d = 0; d < rank; ++d) {
      const bool r = reduced[static_cast<size_t>(d)];
      (r ? reduced_extents : kept_extents).push_back(call.shape[static_cast<size_t>(d)]);
      for (size_t w = 0; w < array_strides.size(); ++w) {
        (r ? red : kept)[w].push_back(array_strides[w][static_cast<size_t>(d)]);
      }
    }
    const CoalescedWalk out = Coalesce(kept_extents, kept);
    const CoalescedWalk in = Coalesce(reduced_extents, red);
    const int64_t outputs = CountOf(kept_extents);
    const int64_t per_output = CountOf(reduced_extents);
    if (outputs == 0) return absl::OkStatus();
    std::vector<int64_t> words = out.extents;
    words.insert(words.end(), in.extents.begin(), in.extents.end());
    for (size_t w = 0; w < array_strides.size(); ++w) {
      words.insert(words.end(), out.strides[w].begin(), out.strides[w].end());
      words.insert(words.end(), in.strides[w].begin(), in.strides[w].end());
    }
    if (!args.AddDims(words)) {
      return TooManyDimensions(kernel, static_cast<int64_t>(words.size()),
                               prepared->layout().capacity);
    }
    // Threads per output: enough for the reduced elements, up to a block, so that neighbouring
    // threads read neighbouring elements; but one, so that neighbouring threads serve
    // neighbouring outputs, where the first array input lies closer along the outputs than
    // along the reduced elements (a column sum) and there are outputs for a warp at least.
    // Blocks per output: several when the outputs alone would leave the device mostly idle.
    bool across_outputs = false;
    for (size_t k = 0, w = 0; k < parameters.size(); ++k) {
      if (call.arguments[k].kind != Kind::kArray) continue;
      if (!parameters[k].output) {
        const int64_t out_step = out.extents.empty() ? 0 : std::abs(out.strides[w].back());
        const int64_t in_step = in.extents.empty() ? 0 : std::abs(in.strides[w].back());
        across_outputs = outputs >= kWarp && out_step != 0 && out_step < in_step;
        break;
      }
      ++w;
    }
    const int64_t group = across_outputs ? 1 : PowerOfTwoAtLeast(per_output, kUserKernelThreads);
    const int64_t per_block = kUserKernelThreads / group;
    const int64_t runs_needed = (outputs + per_block - 1) / per_block;
    int64_t splits = 1;
    if (runs_needed < kSplitBlocksPerSm * context.sm_count) {
      splits = std::clamp<int64_t>(std::min(kSplitBlocksPerSm * context.sm_count / runs_needed,
                                            per_output / (group * kMinPerThread)),
                                   1, 1024);
    }
    const int64_t runs =
        std::min(runs_needed, std::max<int64_t>(1, kBlocksPerSm * context.sm_count / splits));
    blocks = runs * splits;
    args.SetWord(kN, outputs);
    args.SetWord(kK, per_output);
    args.SetWord(kRank, static_cast<int64_t>(out.extents.size()));
    args.SetWord(kRedRank, static_cast<int64_t>(in.extents.size()));
    args.SetWord(kGroup, group);
    args.SetWord(kSplits, splits);
    if (splits > 1) {
      const int64_t partial_bytes = outputs * splits * kPartialBytes;
      const int64_t arrival_bytes = outputs * static_cast<int64_t>(sizeof(uint32_t));
      AH_ASSIGN_OR_RETURN(partials, AllocateScratch(partial_bytes + arrival_bytes, context.stream));
      char* base = static_cast<char*>(partials->data());
      AH_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(base + partial_bytes, 0,
                                              static_cast<size_t>(arrival_bytes), context.stream));
      args.SetPointer(kPartials, base);
      args.SetPointer(kArrivals, base + partial_bytes);
    }
  }

  for (size_t slot = 0; slot < raw_walks.size(); ++slot) {
    const CoalescedWalk& walk = raw_walks[slot].walk;
    std::vector<int64_t> words = walk.extents;
    words.insert(words.end(), walk.strides[0].begin(), walk.strides[0].end());
    const int64_t at = args.dims_used();
    if (!args.AddDims(words)) {
      return TooManyDimensions(kernel, at + static_cast<int64_t>(words.size()),
                               prepared->layout().capacity);
    }
    args.SetRaw(static_cast<int>(slot), raw_walks[slot].size,
                static_cast<int64_t>(walk.extents.size()), at);
  }

  void* kernel_args[] = {args.data()};
  AH_CUDA_RETURN_IF_ERROR(cudaLaunchKernel(
      reinterpret_cast<const void*>(prepared->kernel()), dim3(static_cast<unsigned>(blocks)),
      dim3(kUserKernelThreads), kernel_args, 0, context.stream));
  if (!has_raw) return absl::OkStatus();
  uint64_t word[3] = {};
  AH_CUDA_RETURN_IF_ERROR(
      cudaMemcpyAsync(word, error->data(), sizeof(word), cudaMemcpyDeviceToHost, context.stream));
  AH_RETURN_IF_ERROR(section.queue()->Synchronize());
  if (word[0] == 0) return absl::OkStatus();
  const size_t parameter = static_cast<size_t>(word[0] - 1);
  return absl::InvalidArgumentError(
      fmt::format("kernel {}: index {} is out of bounds for raw parameter '{}' of size {}",
                  kernel.name(), static_cast<int64_t>(word[1]),
                  parameter < parameters.size() ? parameters[parameter].name : "?",
                  static_cast<int64_t>(word[2])));
}

}  // namespace arrayhub
