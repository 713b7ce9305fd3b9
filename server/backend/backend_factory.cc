#include "server/backend/backend_factory.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "server/backend/host/host_backend.h"
#ifdef ARRAYHUB_HAVE_CUDA
#include "server/backend/compiled_code_store.h"
#include "server/backend/cuda/cuda_backend.h"
#include "server/backend/cuda/kernel_cache.h"
#endif

namespace arrayhub {

absl::StatusOr<BackendChoice> ParseBackendChoice(std::string_view text) {
  if (text == "auto") return BackendChoice::kAuto;
  if (text == "cuda") return BackendChoice::kCuda;
  if (text == "cpu") return BackendChoice::kCpu;
  return absl::InvalidArgumentError(
      fmt::format("unknown backend \"{}\"; expected auto, cuda or cpu", text));
}

absl::StatusOr<std::unique_ptr<Backend>> CreateBackend(BackendChoice choice, bool cuda_ipc,
                                                       const KernelCacheOptions& kernel_cache) {
  if (choice == BackendChoice::kCpu) return std::make_unique<HostBackend>();
#ifdef ARRAYHUB_HAVE_CUDA
  if (CudaDeviceCount() > 0) {
    if (!kernel_cache.directory.empty()) {
      auto store = CompiledCodeStore::Open(kernel_cache.directory, kernel_cache.max_bytes);
      if (!store.ok()) return store.status();
      spdlog::info("compiled kernels are kept in {} (up to {} MiB)", kernel_cache.directory,
                   kernel_cache.max_bytes >> 20);
      KernelCache::Global().SetStore(*std::move(store));
    }
    return CreateCudaBackend(0, cuda_ipc);
  }
  if (choice == BackendChoice::kCuda) {
    return absl::FailedPreconditionError("--backend=cuda: no CUDA device is visible");
  }
#else
  (void)cuda_ipc;      // Host memory has nothing to export,
  (void)kernel_cache;  // and the host backend compiles nothing at run time.
  if (choice == BackendChoice::kCuda) {
    return absl::FailedPreconditionError(
        "--backend=cuda: this arrayhubd was built without the CUDA backend (ARRAYHUB_CUDA=OFF)");
  }
#endif
  return std::make_unique<HostBackend>();
}

}  // namespace arrayhub
