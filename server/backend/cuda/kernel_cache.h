// Kernels compiled at run time with NVRTC, cached for the life of the process and, with a
// CompiledCodeStore, on disk across restarts (--kernel-cache-dir).
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "server/backend/compiled_code_store.h"

namespace arrayhub {

// The NVRTC options of the project's own kernels: C++17, no fused multiply-add contraction
// (see device_math.h). Raw kernels (RunRawKernel) pass their client's options instead.
std::span<const std::string> ProjectNvrtcOptions();

// Compiles CUDA `source` for compute capability `arch` (major * 10 + minor): machine code when
// this NVRTC knows the architecture, else PTX for the newest one it knows (which the driver
// compiles when loading), with `options` besides the target. INTERNAL with NVRTC's log on
// failure.
absl::StatusOr<std::string> CompileWithNvrtc(
    std::string_view source, std::string_view name, int arch,
    std::span<const std::string> options = ProjectNvrtcOptions());

struct CompiledBinary {
  std::string binary;       // CompileWithNvrtc's result.
  bool from_store = false;  // Loaded from the store, not compiled.
};

// CompileWithNvrtc(source, name, arch), from `store` when it holds the binary, else compiled
// and stored there (`store` may be null). The store's key covers everything the binary depends
// on: the source, the name, the target NVRTC picks for `arch`, NVRTC's version and the options.
// A failure to store is logged, not returned: the binary is good all the same.
absl::StatusOr<CompiledBinary> CompileCached(
    std::string_view source, std::string_view name, int arch, const CompiledCodeStore* store,
    std::span<const std::string> options = ProjectNvrtcOptions());

// Loaded libraries are never unloaded (a kernel handed out may still be queued), so a cache
// other than Global() leaks its kernels when it goes: tests make such caches, the daemon not.
class KernelCache {
 public:
  // A cache that also keeps compiled code in `store` (null: in this process' memory only).
  explicit KernelCache(std::shared_ptr<const CompiledCodeStore> store = nullptr);

  // The one cache of the process (shared by every backend and thread).
  static KernelCache& Global();
  // From now on, code compiled on a miss is stored in (and looked for in) `store` too; the
  // daemon sets Global()'s at start. Null: memory only.
  void SetStore(std::shared_ptr<const CompiledCodeStore> store);

  // The kernel `entry` (an extern "C" name) of the program that `make_source` writes,
  // compiled for `arch` and loaded. `key` identifies the source: the first call with a key
  // loads it from the store or compiles it, and calls with the same key from other threads
  // meanwhile wait for that one instead of compiling it again; later calls reuse the result.
  // Calls with different keys never wait for each other. A failure is every waiting caller's;
  // the next call with the key tries again. `key` must cover `options` too.
  absl::StatusOr<cudaKernel_t> Get(std::string_view key, int arch, const char* entry,
                                   absl::FunctionRef<std::string()> make_source,
                                   std::span<const std::string> options = ProjectNvrtcOptions());

  // How Get found its kernels since this cache was made.
  struct Counts {
    int64_t compiled = 0;  // By NVRTC.
    int64_t loaded = 0;    // From the store.
    int64_t reused = 0;    // In memory (waiting for another caller's compile included).
  };
  Counts counts() const;

 private:
  struct Slot;

  absl::Mutex mutex_;
  std::shared_ptr<const CompiledCodeStore> store_ ABSL_GUARDED_BY(mutex_);
  // One slot per key, made by the first caller, which fills it; the others wait for it.
  absl::flat_hash_map<std::string, std::shared_ptr<Slot>> kernels_ ABSL_GUARDED_BY(mutex_);
  std::atomic<int64_t> compiled_{0}, loaded_{0}, reused_{0};
};

}  // namespace arrayhub
