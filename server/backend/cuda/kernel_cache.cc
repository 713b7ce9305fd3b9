#include "server/backend/cuda/kernel_cache.h"

#include <fmt/format.h>
#include <nvrtc.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <memory>
#include <vector>

#include "absl/synchronization/notification.h"
#include "server/backend/cuda/cuda_check.h"
#include "server/common/status_macros.h"

namespace arrayhub {

namespace {

absl::Status NvrtcStatus(nvrtcResult result, std::string_view what) {
  if (result == NVRTC_SUCCESS) return absl::OkStatus();
  const std::string message = fmt::format("{}: {}", what, nvrtcGetErrorString(result));
  if (result == NVRTC_ERROR_OUT_OF_MEMORY) return absl::ResourceExhaustedError(message);
  return absl::InternalError(message);
}

#define AH_NVRTC_RETURN_IF_ERROR(expr)                                                          \
  do {                                                                                          \
    if (absl::Status _ah_nvrtc = NvrtcStatus((expr), #expr); !_ah_nvrtc.ok()) return _ah_nvrtc; \
  } while (0)

struct ProgramDeleter {
  void operator()(nvrtcProgram program) const { nvrtcDestroyProgram(&program); }
};
using Program = std::unique_ptr<std::remove_pointer_t<nvrtcProgram>, ProgramDeleter>;

// What NVRTC compiles for `arch`: the architecture itself if NVRTC knows it (machine code),
// else PTX for the newest older one it knows.
struct Target {
  std::string option;  // --gpu-architecture=...
  bool machine_code = true;
};

absl::StatusOr<Target> PickTarget(int arch) {
  int count = 0;
  AH_NVRTC_RETURN_IF_ERROR(nvrtcGetNumSupportedArchs(&count));
  std::vector<int> archs(static_cast<size_t>(count));
  AH_NVRTC_RETURN_IF_ERROR(nvrtcGetSupportedArchs(archs.data()));
  if (std::find(archs.begin(), archs.end(), arch) != archs.end()) {
    return Target{fmt::format("--gpu-architecture=sm_{}", arch), true};
  }
  int best = 0;
  for (int a : archs) {
    if (a < arch) best = std::max(best, a);
  }
  if (best == 0) {
    return absl::FailedPreconditionError(
        fmt::format("NVRTC cannot compile for compute capability {}.{}", arch / 10, arch % 10));
  }
  return Target{fmt::format("--gpu-architecture=compute_{}", best), false};
}

absl::StatusOr<std::string> Compile(std::string_view source, std::string_view name,
                                    const Target& target, std::span<const std::string> extra) {
  std::vector<const char*> options = {target.option.c_str()};
  for (const std::string& option : extra) options.push_back(option.c_str());
  const std::string source_text(source);
  const std::string name_text(name);
  nvrtcProgram raw = nullptr;
  AH_NVRTC_RETURN_IF_ERROR(
      nvrtcCreateProgram(&raw, source_text.c_str(), name_text.c_str(), 0, nullptr, nullptr));
  Program program(raw);
  const nvrtcResult compiled =
      nvrtcCompileProgram(raw, static_cast<int>(options.size()), options.data());
  if (compiled != NVRTC_SUCCESS) {
    size_t log_size = 0;
    std::string log;
    if (nvrtcGetProgramLogSize(raw, &log_size) == NVRTC_SUCCESS && log_size > 1) {
      log.resize(log_size - 1);
      (void)nvrtcGetProgramLog(raw, log.data());
    }
    return absl::InternalError(fmt::format("NVRTC failed to compile {} for {}: {}: {}", name,
                                           target.option, nvrtcGetErrorString(compiled), log));
  }
  size_t size = 0;
  std::string binary;
  if (target.machine_code) {
    AH_NVRTC_RETURN_IF_ERROR(nvrtcGetCUBINSize(raw, &size));
    binary.resize(size);
    AH_NVRTC_RETURN_IF_ERROR(nvrtcGetCUBIN(raw, binary.data()));
  } else {
    AH_NVRTC_RETURN_IF_ERROR(nvrtcGetPTXSize(raw, &size));
    binary.resize(size);  // Includes the terminating NUL the loader wants.
    AH_NVRTC_RETURN_IF_ERROR(nvrtcGetPTX(raw, binary.data()));
  }
  return binary;
}

}  // namespace

std::span<const std::string> ProjectNvrtcOptions() {
  // Never destroyed: a compile may still be running on another thread at exit.
  static const auto* const options = new std::array<std::string, 2>{"--fmad=false", "-std=c++17"};
  return *options;
}

absl::StatusOr<std::string> CompileWithNvrtc(std::string_view source, std::string_view name,
                                             int arch, std::span<const std::string> options) {
  AH_ASSIGN_OR_RETURN(const Target target, PickTarget(arch));
  return Compile(source, name, target, options);
}

absl::StatusOr<CompiledBinary> CompileCached(std::string_view source, std::string_view name,
                                             int arch, const CompiledCodeStore* store,
                                             std::span<const std::string> options) {
  AH_ASSIGN_OR_RETURN(const Target target, PickTarget(arch));
  if (store == nullptr) {
    AH_ASSIGN_OR_RETURN(std::string binary, Compile(source, name, target, options));
    return CompiledBinary{std::move(binary), false};
  }
  int major = 0;
  int minor = 0;
  AH_NVRTC_RETURN_IF_ERROR(nvrtcVersion(&major, &minor));
  // The options chained one part at a time: KeyOf keeps its parts apart.
  std::string options_key = CompiledCodeStore::KeyOf({"options"});
  for (const std::string& option : options) {
    options_key = CompiledCodeStore::KeyOf({options_key, option});
  }
  const std::string key =
      CompiledCodeStore::KeyOf({"arrayhub NVRTC binary", fmt::format("NVRTC {}.{}", major, minor),
                                target.option, options_key, name, source});
  if (std::optional<std::string> binary = store->Load(key)) {
    return CompiledBinary{*std::move(binary), true};
  }
  AH_ASSIGN_OR_RETURN(std::string binary, Compile(source, name, target, options));
  if (absl::Status stored = store->Store(key, binary); !stored.ok()) {
    spdlog::warn("kernel cache: {} stays in memory only: {}", name, stored.ToString());
  }
  return CompiledBinary{std::move(binary), false};
}

struct KernelCache::Slot {
  absl::Notification ready;
  absl::StatusOr<cudaKernel_t> kernel;  // Written before `ready` is notified, never after.
};

KernelCache::KernelCache(std::shared_ptr<const CompiledCodeStore> store)
    : store_(std::move(store)) {}

KernelCache& KernelCache::Global() {
  static KernelCache* const cache = new KernelCache();  // Never destroyed: see kernels_.
  return *cache;
}

void KernelCache::SetStore(std::shared_ptr<const CompiledCodeStore> store) {
  absl::MutexLock lock(&mutex_);
  store_ = std::move(store);
}

absl::StatusOr<cudaKernel_t> KernelCache::Get(std::string_view key, int arch, const char* entry,
                                              absl::FunctionRef<std::string()> make_source,
                                              std::span<const std::string> options) {
  // Appended, not formatted: made on every launch.
  std::string full_key;
  full_key.reserve(key.size() + 4);
  full_key.append(key).append(1, '@').append(std::to_string(arch));
  std::shared_ptr<Slot> slot;
  std::shared_ptr<const CompiledCodeStore> store;
  bool first = false;
  {
    absl::MutexLock lock(&mutex_);
    std::shared_ptr<Slot>& entry_slot = kernels_[full_key];
    if (entry_slot == nullptr) {
      entry_slot = std::make_shared<Slot>();
      first = true;
      store = store_;
    }
    slot = entry_slot;
  }
  if (!first) {
    slot->ready.WaitForNotification();
    if (slot->kernel.ok()) reused_.fetch_add(1, std::memory_order_relaxed);
    return slot->kernel;
  }

  // The first caller: loads or compiles without the lock, so that other kernels compile in
  // parallel, then wakes the callers waiting for this one.
  bool from_store = false;
  slot->kernel = [&]() -> absl::StatusOr<cudaKernel_t> {
    AH_ASSIGN_OR_RETURN(CompiledBinary compiled,
                        CompileCached(make_source(), key, arch, store.get(), options));
    from_store = compiled.from_store;
    cudaLibrary_t library = nullptr;
    AH_CUDA_RETURN_IF_ERROR(cudaLibraryLoadData(&library, compiled.binary.data(), nullptr, nullptr,
                                                0, nullptr, nullptr, 0));
    cudaKernel_t kernel = nullptr;
    if (const cudaError_t error = cudaLibraryGetKernel(&kernel, library, entry);
        error != cudaSuccess) {
      (void)cudaLibraryUnload(library);
      return CudaStatus(error, fmt::format("cudaLibraryGetKernel({})", entry));
    }
    return kernel;
  }();
  if (slot->kernel.ok()) {
    (from_store ? loaded_ : compiled_).fetch_add(1, std::memory_order_relaxed);
  } else {
    // Not kept: the next caller tries again (the failure may have been out of memory).
    absl::MutexLock lock(&mutex_);
    if (auto it = kernels_.find(full_key); it != kernels_.end() && it->second == slot) {
      kernels_.erase(it);
    }
  }
  slot->ready.Notify();
  return slot->kernel;
}

KernelCache::Counts KernelCache::counts() const {
  return {.compiled = compiled_.load(std::memory_order_relaxed),
          .loaded = loaded_.load(std::memory_order_relaxed),
          .reused = reused_.load(std::memory_order_relaxed)};
}

}  // namespace arrayhub
