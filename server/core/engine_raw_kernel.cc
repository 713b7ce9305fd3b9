// Engine::RunRawKernel: a client's CUDA kernel (CuPy's RawKernel), only where the daemon's
// owner allowed it (--allow-raw-kernels, single tenant: nothing stops the kernel from reading
// or writing any memory of the GPU). The request is checked (options, dimensions, source size,
// write rights on every array, since the kernel may write any of them) before the backend
// compiles it on this thread and enqueues the launch on the session's queue.
#include <fmt/format.h>

#include "server/common/status_macros.h"
#include "server/core/engine.h"

namespace arrayhub {

absl::Status Engine::RunRawKernel(const Caller& caller, const RunRawKernelSpec& spec) {
  if (!limits_.allow_raw_kernels) {
    return absl::PermissionDeniedError(
        "raw kernels are disabled: start arrayhubd with --allow-raw-kernels (single tenant "
        "only)");
  }
  const RawKernelSource& source = spec.source;
  if (static_cast<int64_t>(source.code.size()) > limits_.max_raw_kernel_source_bytes) {
    return absl::InvalidArgumentError(
        fmt::format("the raw kernel's code is {} bytes, more than the server's limit of {}",
                    source.code.size(), limits_.max_raw_kernel_source_bytes));
  }
  if (source.name.empty()) return absl::InvalidArgumentError("the raw kernel's name is empty");
  if (static_cast<int64_t>(source.options.size()) > limits_.max_list_entries) {
    return absl::InvalidArgumentError(fmt::format("{} NVRTC options, more than the server's {}",
                                                  source.options.size(), limits_.max_list_entries));
  }
  for (const std::string& option : source.options) {
    AH_RETURN_IF_ERROR(CheckRawKernelOption(option));
  }
  RawKernelCall call;
  AH_RETURN_IF_ERROR(RawLaunchDims(spec.grid, "grid", false, call.grid));
  AH_RETURN_IF_ERROR(RawLaunchDims(spec.block, "block", true, call.block));
  if (spec.shared_mem < 0 || spec.shared_mem > UINT32_MAX) {
    return absl::InvalidArgumentError(
        fmt::format("shared_mem is {}: it must be from 0 to {}", spec.shared_mem, UINT32_MAX));
  }
  call.shared_mem = static_cast<uint32_t>(spec.shared_mem);

  const auto bound = Bind(caller, "raw kernel");
  std::vector<ArrayTable::RecordPtr> arrays;  // Held until the launch is enqueued.
  for (size_t a = 0; a < spec.arguments.size(); ++a) {
    const RawKernelArgumentSpec& argument = spec.arguments[a];
    RawKernelArgument converted;
    if (argument.handle) {
      AH_ASSIGN_OR_RETURN(
          ArrayTable::RecordPtr record,
          FindWritable(bound.caller(), *argument.handle, fmt::format("arguments[{}]", a),
                       "a raw kernel may write its arrays: this one is read-only"));
      converted.array = true;
      converted.view = ViewOf(*record);
      arrays.push_back(std::move(record));
    } else if (argument.scalar) {
      AH_ASSIGN_OR_RETURN(converted.scalar, EncodeScalar(*argument.scalar, argument.scalar_dtype));
      converted.scalar_size = ItemSize(argument.scalar_dtype);
    } else {
      return absl::InvalidArgumentError(fmt::format("arguments[{}] has no value", a));
    }
    call.arguments.push_back(std::move(converted));
  }
  AH_ASSIGN_OR_RETURN(call.prepared,
                      backend(bound.caller()).raw_kernels().PrepareRawKernel(source));
  return backend(bound.caller()).raw_kernels().RunRawKernel(QueueOf(bound.caller()), call);
}

}  // namespace arrayhub
