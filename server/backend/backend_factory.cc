#include "server/backend/backend_factory.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "server/backend/host/host_backend.h"
#include "server/common/status_macros.h"
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

namespace {

std::vector<std::unique_ptr<Backend>> HostDevices(int count, int64_t memory_bytes) {
  const int64_t limit = memory_bytes > 0 ? memory_bytes : HostMemoryCapacity();
  std::vector<std::unique_ptr<Backend>> devices;
  if (count <= 1) {
    devices.push_back(std::make_unique<HostBackend>(limit));
    return devices;
  }
  for (int i = 0; i < count; ++i) {
    devices.push_back(std::make_unique<HostBackend>(limit, fmt::format("cpu:{}", i)));
  }
  return devices;
}

}  // namespace

absl::StatusOr<std::vector<std::unique_ptr<Backend>>> CreateBackends(
    BackendChoice choice, const DeviceOptions& devices, bool cuda_ipc,
    const KernelCacheOptions& kernel_cache) {
  if (devices.cpu_devices < 1) {
    return absl::InvalidArgumentError(
        fmt::format("--cpu-devices must be at least 1, got {}", devices.cpu_devices));
  }
  if (choice == BackendChoice::kCpu)
    return HostDevices(devices.cpu_devices, devices.cpu_memory_bytes);
#ifdef ARRAYHUB_HAVE_CUDA
  if (const int count = CudaDeviceCount(); count > 0) {
    if (!kernel_cache.directory.empty()) {
      auto store = CompiledCodeStore::Open(kernel_cache.directory, kernel_cache.max_bytes);
      if (!store.ok()) return store.status();
      spdlog::info("compiled kernels are kept in {} (up to {} MiB)", kernel_cache.directory,
                   kernel_cache.max_bytes >> 20);
      KernelCache::Global().SetStore(*std::move(store));
    }
    std::vector<int> ordinals = devices.cuda_devices;
    if (ordinals.empty()) {
      for (int i = 0; i < count; ++i) ordinals.push_back(i);
    }
    std::vector<std::unique_ptr<Backend>> backends;
    for (size_t i = 0; i < ordinals.size(); ++i) {
      if (std::find(ordinals.begin(), ordinals.begin() + i, ordinals[i]) != ordinals.begin() + i) {
        return absl::InvalidArgumentError(
            fmt::format("--devices names cuda:{} twice", ordinals[i]));
      }
      AH_ASSIGN_OR_RETURN(std::unique_ptr<Backend> backend,
                          CreateCudaBackend(ordinals[i], cuda_ipc));
      backends.push_back(std::move(backend));
    }
    return backends;
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
  return HostDevices(devices.cpu_devices, devices.cpu_memory_bytes);
}

absl::StatusOr<std::unique_ptr<Backend>> CreateBackend(BackendChoice choice, bool cuda_ipc,
                                                       const KernelCacheOptions& kernel_cache) {
  AH_ASSIGN_OR_RETURN(std::vector<std::unique_ptr<Backend>> backends,
                      CreateBackends(choice, DeviceOptions{.cpu_devices = 1, .cuda_devices = {0}},
                                     cuda_ipc, kernel_cache));
  return std::move(backends.front());
}

}  // namespace arrayhub
