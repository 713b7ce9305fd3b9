#include "server/backend/backend_factory.h"

#include <fmt/format.h>

#include "server/backend/host/host_backend.h"
#ifdef ARRAYHUB_HAVE_CUDA
#include "server/backend/cuda/cuda_backend.h"
#endif

namespace arrayhub {

absl::StatusOr<BackendChoice> ParseBackendChoice(std::string_view text) {
  if (text == "auto") return BackendChoice::kAuto;
  if (text == "cuda") return BackendChoice::kCuda;
  if (text == "cpu") return BackendChoice::kCpu;
  return absl::InvalidArgumentError(
      fmt::format("unknown backend \"{}\"; expected auto, cuda or cpu", text));
}

absl::StatusOr<std::unique_ptr<Backend>> CreateBackend(BackendChoice choice, bool cuda_ipc) {
  if (choice == BackendChoice::kCpu) return std::make_unique<HostBackend>();
#ifdef ARRAYHUB_HAVE_CUDA
  if (CudaDeviceCount() > 0) return CreateCudaBackend(0, cuda_ipc);
  if (choice == BackendChoice::kCuda) {
    return absl::FailedPreconditionError("--backend=cuda: no CUDA device is visible");
  }
#else
  (void)cuda_ipc;  // Host memory has nothing to export.
  if (choice == BackendChoice::kCuda) {
    return absl::FailedPreconditionError(
        "--backend=cuda: this arrayhubd was built without the CUDA backend (ARRAYHUB_CUDA=OFF)");
  }
#endif
  return std::make_unique<HostBackend>();
}

}  // namespace arrayhub
