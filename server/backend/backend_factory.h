// Chooses and constructs the backend named by --backend.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "server/backend/backend.h"

namespace arrayhub {

enum class BackendChoice { kAuto, kCuda, kCpu };

// "auto", "cuda" or "cpu"; INVALID_ARGUMENT otherwise.
absl::StatusOr<BackendChoice> ParseBackendChoice(std::string_view text);

// Where the CUDA backend keeps the kernels it compiles, so that a restart loads them instead of
// compiling them again (compiled_code_store.h); an empty directory: in memory only.
struct KernelCacheOptions {
  std::string directory;
  int64_t max_bytes = int64_t{1} << 30;
};

// Which devices the daemon serves.
struct DeviceOptions {
  int cpu_devices = 1;  // --cpu-devices: virtual devices of the CPU backend.
  // --cpu-memory-bytes: what each CPU device's arrays may hold; 0: the host's memory (or the
  // container's limit). Lower, it stands in for a small GPU (spilling, tests).
  int64_t cpu_memory_bytes = 0;
  std::vector<int> cuda_devices = {};  // --devices: CUDA ordinals; empty: every visible one.
};

// The daemon's devices, a backend each: the CUDA devices of `devices` (every visible one by
// default) when this build has the CUDA backend and one is visible (kAuto) or asked for
// (kCuda, FAILED_PRECONDITION without a usable one), else `devices.cpu_devices` host devices.
// `cuda_ipc` and `kernel_cache` as CreateBackend's.
absl::StatusOr<std::vector<std::unique_ptr<Backend>>> CreateBackends(
    BackendChoice choice, const DeviceOptions& devices, bool cuda_ipc = true,
    const KernelCacheOptions& kernel_cache = {});

// One device (tests): CreateBackends' first device with the default options.
// kAuto takes CUDA device 0 when this build has the CUDA backend and a device is visible, the
// CPU otherwise. kCuda fails (FAILED_PRECONDITION) without a usable device. `cuda_ipc`: the
// CUDA backend keeps each tenant's memory in an exportable pool of its own (CreateCudaBackend).
// `kernel_cache` applies to the CUDA backend only; a directory it cannot use fails the call.
absl::StatusOr<std::unique_ptr<Backend>> CreateBackend(BackendChoice choice, bool cuda_ipc = true,
                                                       const KernelCacheOptions& kernel_cache = {});

}  // namespace arrayhub
