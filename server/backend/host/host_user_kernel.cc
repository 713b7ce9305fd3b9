// CpuUserKernels and CpuRawKernels: compiled to slot code (user_kernel_compile.cc), run over blocks
// of indices on the calling thread (user_kernel_run.cc). Raw CUDA kernels need the CUDA backend.
#include "server/backend/host/host_parts.h"
#include "server/backend/host/host_queue.h"
#include "server/backend/host/host_stop.h"
#include "server/backend/host/user_kernel_program.h"
#include "server/common/status_macros.h"

namespace arrayhub {

absl::StatusOr<std::shared_ptr<const PreparedUserKernel>> CpuUserKernels::PrepareUserKernel(
    std::shared_ptr<const kernel::CheckedKernel> kernel) {
  try {
    return std::shared_ptr<const PreparedUserKernel>(host::CompileUserKernel(std::move(kernel)));
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError("out of host memory compiling a user kernel");
  }
}

absl::Status CpuUserKernels::RunUserKernel(QueueBinding& queue, const UserKernelCall& call) {
  AH_ASSIGN_OR_RETURN(const HostCall held, HostCall::Enter(queue));
  return host::RunStoppable("a user kernel", [&] { return host::RunHostUserKernel(call); });
}

absl::StatusOr<std::shared_ptr<const PreparedRawKernel>> CpuRawKernels::PrepareRawKernel(
    const RawKernelSource&) {
  return absl::FailedPreconditionError("raw CUDA kernels need the CUDA backend");
}

absl::Status CpuRawKernels::RunRawKernel(QueueBinding&, const RawKernelCall&) {
  return absl::FailedPreconditionError("raw CUDA kernels need the CUDA backend");
}

}  // namespace arrayhub
