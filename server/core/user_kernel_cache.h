// The process-wide cache of user kernels (RunKernel): each source and binding checked
// (kernel::CheckKernel) and prepared by the backend once, shared by every session and tenant.
// Bounded in entries and bytes (least recently used first out), so that a tenant sending
// endless distinct kernels holds a fixed amount of memory; when many calls ask for one missing
// key at once, the first compiles and the others wait for its result (or its refusal).
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "server/backend/user_kernel.h"

namespace arrayhub {

struct CachedUserKernel {
  std::shared_ptr<const kernel::CheckedKernel> checked;
  std::shared_ptr<const PreparedUserKernel> prepared;
};

class UserKernelCache {
 public:
  using Compile = std::function<absl::StatusOr<CachedUserKernel>()>;

  UserKernelCache(int64_t max_entries, int64_t max_bytes)
      : max_entries_(max_entries), max_bytes_(max_bytes) {}

  // The kernel of `key`: cached, or made by `compile` on this thread while later callers of
  // the same key wait for it. A refusal is answered to those waiting and not kept (the next
  // call checks again). An entry counts key.size() plus `entry_bytes` against the byte bound.
  absl::StatusOr<CachedUserKernel> Get(const std::string& key, int64_t entry_bytes,
                                       const Compile& compile);

  // Kernels compiled since start (the misses that compiled; ServerInfo.kernel_compilations).
  int64_t compilations() const;
  int64_t entries() const;
  int64_t bytes() const;

 private:
  struct InFlight {
    bool done = false;
    absl::StatusOr<CachedUserKernel> result = absl::UnknownError("not compiled yet");
  };
  struct Entry {
    CachedUserKernel kernel;
    int64_t bytes = 0;
    std::list<std::string>::iterator recency;  // In recency_, most recent first.
  };

  void InsertLocked(const std::string& key, const CachedUserKernel& kernel, int64_t bytes)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  const int64_t max_entries_;
  const int64_t max_bytes_;
  mutable absl::Mutex mutex_;
  absl::flat_hash_map<std::string, Entry> entries_ ABSL_GUARDED_BY(mutex_);
  std::list<std::string> recency_ ABSL_GUARDED_BY(mutex_);
  absl::flat_hash_map<std::string, std::shared_ptr<InFlight>> in_flight_ ABSL_GUARDED_BY(mutex_);
  int64_t bytes_ ABSL_GUARDED_BY(mutex_) = 0;
  int64_t compilations_ ABSL_GUARDED_BY(mutex_) = 0;
  // Signalled when a compile finishes. (A CondVar, not Mutex::Await: TSan builds annotate
  // CondVar::Wait, whereas Await's condition runs inside Debian's uninstrumented abseil.)
  absl::CondVar compiled_;
};

}  // namespace arrayhub
