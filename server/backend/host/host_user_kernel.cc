#include "server/backend/host/host_backend.h"

namespace arrayhub {

// The evaluator lands in the next commits; until then the host backend refuses user kernels.
absl::StatusOr<std::shared_ptr<const PreparedUserKernel>> HostBackend::PrepareUserKernel(
    std::shared_ptr<const kernel::CheckedKernel>) {
  return absl::UnimplementedError("user kernels are not implemented on the host backend yet");
}

absl::Status HostBackend::RunUserKernel(const UserKernelCall&) {
  return absl::UnimplementedError("user kernels are not implemented on the host backend yet");
}

}  // namespace arrayhub
