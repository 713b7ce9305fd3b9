// CudaRawKernels::PrepareRawKernel and RunRawKernel: a client's CUDA source compiled once with its
// options through the kernel cache (on the RPC's thread, so --kernel-cache-dir applies), its
// parameters' sizes read back from the loaded kernel, and each launch checked against them and
// the device's limits before it is enqueued on the session's stream. The parameter check is
// what keeps cudaLaunchKernel from reading past the argument list it is given.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "server/backend/compiled_code_store.h"
#include "server/backend/cuda/compute_context.h"
#include "server/backend/cuda/cuda_check.h"
#include "server/backend/cuda/cuda_parts.h"
#include "server/backend/cuda/cuda_queue.h"
#include "server/backend/cuda/kernel_cache.h"
#include "server/common/status_macros.h"

namespace arrayhub {

namespace {

class CudaRawKernel final : public PreparedRawKernel {
 public:
  CudaRawKernel(std::string name, cudaKernel_t kernel, std::vector<size_t> parameter_sizes)
      : name_(std::move(name)), kernel_(kernel), parameter_sizes_(std::move(parameter_sizes)) {}
  const std::string& name() const { return name_; }
  cudaKernel_t kernel() const { return kernel_; }
  const std::vector<size_t>& parameter_sizes() const { return parameter_sizes_; }

 private:
  std::string name_;
  cudaKernel_t kernel_;
  std::vector<size_t> parameter_sizes_;
};

// The sizes of `kernel`'s parameters, in order: cudaFuncGetParamInfo answers
// cudaErrorInvalidValue past the last one (an error that is not sticky, cleared here).
absl::StatusOr<std::vector<size_t>> ParameterSizes(cudaKernel_t kernel) {
  std::vector<size_t> sizes;
  for (;;) {
    size_t offset = 0;
    size_t size = 0;
    const cudaError_t error =
        cudaFuncGetParamInfo(reinterpret_cast<const void*>(kernel), sizes.size(), &offset, &size);
    if (error == cudaErrorInvalidValue) {
      (void)cudaGetLastError();
      return sizes;
    }
    AH_CUDA_RETURN_IF_ERROR(error);
    sizes.push_back(size);
  }
}

absl::StatusOr<int> Attribute(cudaDeviceAttr attribute, int device) {
  int value = 0;
  AH_CUDA_RETURN_IF_ERROR(cudaDeviceGetAttribute(&value, attribute, device));
  return value;
}

// INVALID_ARGUMENT unless grid, block and shared memory fit `device`.
absl::Status CheckLaunchBounds(const RawKernelCall& call, int device) {
  static constexpr cudaDeviceAttr kGrid[] = {cudaDevAttrMaxGridDimX, cudaDevAttrMaxGridDimY,
                                             cudaDevAttrMaxGridDimZ};
  static constexpr cudaDeviceAttr kBlock[] = {cudaDevAttrMaxBlockDimX, cudaDevAttrMaxBlockDimY,
                                              cudaDevAttrMaxBlockDimZ};
  static constexpr char kAxes[] = "xyz";
  for (int d = 0; d < 3; ++d) {
    AH_ASSIGN_OR_RETURN(const int grid, Attribute(kGrid[d], device));
    AH_ASSIGN_OR_RETURN(const int block, Attribute(kBlock[d], device));
    if (call.grid[d] > static_cast<uint32_t>(grid)) {
      return absl::InvalidArgumentError(
          fmt::format("grid.{} is {}, more than this device's {}", kAxes[d], call.grid[d], grid));
    }
    if (call.block[d] > static_cast<uint32_t>(block)) {
      return absl::InvalidArgumentError(fmt::format("block.{} is {}, more than this device's {}",
                                                    kAxes[d], call.block[d], block));
    }
  }
  AH_ASSIGN_OR_RETURN(const int threads, Attribute(cudaDevAttrMaxThreadsPerBlock, device));
  const uint64_t block_threads =
      uint64_t{call.block[0]} * uint64_t{call.block[1]} * uint64_t{call.block[2]};
  if (block_threads > static_cast<uint64_t>(threads)) {
    return absl::InvalidArgumentError(
        fmt::format("a block of {} threads is more than this device's {}", block_threads, threads));
  }
  AH_ASSIGN_OR_RETURN(const int shared, Attribute(cudaDevAttrMaxSharedMemoryPerBlock, device));
  if (call.shared_mem > static_cast<uint32_t>(shared)) {
    return absl::InvalidArgumentError(fmt::format(
        "shared_mem is {} bytes, more than this device's {} per block", call.shared_mem, shared));
  }
  return absl::OkStatus();
}

// The kernel cache's failures that are the client's code's (it does not compile, or has no
// kernel of that name) as INVALID_ARGUMENT, with NVRTC's log; others as they are.
absl::Status ClientsFault(const absl::Status& status) {
  const std::string message(status.message());
  if (status.code() == absl::StatusCode::kInternal &&
      (message.starts_with("NVRTC failed to compile") ||
       message.starts_with("cudaLibraryGetKernel("))) {
    return absl::InvalidArgumentError(message);
  }
  return status;
}

}  // namespace

absl::StatusOr<std::shared_ptr<const PreparedRawKernel>> CudaRawKernels::PrepareRawKernel(
    const RawKernelSource& source) {
  AH_RETURN_IF_ERROR(Activate());
  AH_ASSIGN_OR_RETURN(const int arch, ArchOf(device()));
  std::string key = CompiledCodeStore::KeyOf({"raw", source.name, source.code});
  for (const std::string& option : source.options) {
    key = CompiledCodeStore::KeyOf({key, option});
  }
  absl::StatusOr<cudaKernel_t> kernel = KernelCache::Global().Get(
      fmt::format("raw:{}:{}", source.name, key), arch, source.name.c_str(),
      [&] { return source.code; }, source.options);
  if (!kernel.ok()) return ClientsFault(kernel.status());
  AH_ASSIGN_OR_RETURN(std::vector<size_t> sizes, ParameterSizes(*kernel));
  return std::make_shared<const CudaRawKernel>(source.name, *kernel, std::move(sizes));
}

absl::Status CudaRawKernels::RunRawKernel(QueueBinding& queue, const RawKernelCall& call) {
  AH_ASSIGN_OR_RETURN(const QueueSection section, Enter(queue));
  AH_ASSIGN_OR_RETURN(const ComputeContext context, ComputeContextOf(section));
  const auto* prepared = dynamic_cast<const CudaRawKernel*>(call.prepared.get());
  if (prepared == nullptr) {
    return absl::InternalError("a raw kernel call that PrepareRawKernel did not prepare");
  }
  const std::vector<size_t>& sizes = prepared->parameter_sizes();
  if (call.arguments.size() != sizes.size()) {
    return absl::InvalidArgumentError(fmt::format("raw kernel {} takes {} arguments, {} given",
                                                  prepared->name(), sizes.size(),
                                                  call.arguments.size()));
  }
  AH_RETURN_IF_ERROR(CheckLaunchBounds(call, context.device));

  // Each argument's bytes, where the launch's pointer array can point.
  std::vector<void*> pointers(call.arguments.size());
  std::vector<ElementBytes> scalars(call.arguments.size());
  std::vector<void*> parameters(call.arguments.size());
  for (size_t k = 0; k < call.arguments.size(); ++k) {
    const RawKernelArgument& argument = call.arguments[k];
    const size_t size = argument.array ? sizeof(void*) : static_cast<size_t>(argument.scalar_size);
    if (size != sizes[k]) {
      return absl::InvalidArgumentError(fmt::format(
          "raw kernel {}: argument {} is {} bytes ({}), its parameter {} bytes", prepared->name(),
          k, size, argument.array ? "an array's pointer" : "a scalar", sizes[k]));
    }
    if (argument.array) {
      pointers[k] = static_cast<char*>(argument.view.buffer->data()) + argument.view.offset_bytes;
      parameters[k] = &pointers[k];
    } else {
      scalars[k] = argument.scalar;
      parameters[k] = scalars[k].data();
    }
  }
  AH_CUDA_RETURN_IF_ERROR(cudaLaunchKernel(reinterpret_cast<const void*>(prepared->kernel()),
                                           dim3(call.grid[0], call.grid[1], call.grid[2]),
                                           dim3(call.block[0], call.block[1], call.block[2]),
                                           parameters.data(), call.shared_mem, context.stream));
  return absl::OkStatus();
}

}  // namespace arrayhub
