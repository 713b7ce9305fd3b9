// Capabilities for daemon-to-daemon transfer (proto/arrayhub/v1/peer.proto): a secret that
// allows reading one array, once, before it expires, on behalf of the tenant that issued it.
// A capability holds the array's memory (still charged to its owner) until it is used or
// expires, so that the array survives its handle being freed while it is on its way.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "server/common/dtype.h"
#include "server/common/shape.h"
#include "server/core/array_record.h"

namespace arrayhub {

class CapabilityStore {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::seconds kDefaultLifetime{60};
  static constexpr std::chrono::seconds kMaxLifetime{600};
  // Unused capabilities a tenant may hold at once: each may keep an array's memory alive.
  static constexpr int64_t kMaxPerTenant = 4096;

  // A new capability (32 hex characters) for `record`, good for `lifetime` (0: the default).
  // INVALID_ARGUMENT for a lifetime outside [0, kMaxLifetime]; RESOURCE_EXHAUSTED when
  // `tenant` holds kMaxPerTenant unused ones already.
  absl::StatusOr<std::string> Issue(const std::string& tenant,
                                    std::shared_ptr<const ArrayRecord> record,
                                    std::chrono::seconds lifetime, Clock::time_point now);
  struct Grant {
    std::string tenant;
    std::shared_ptr<const ArrayRecord> record;
    Clock::time_point expires_at;
  };
  // Uses up the capability and answers its grant (the array), when it is valid, was issued
  // by `tenant` and names an array of `dtype` and `shape`. Every other case answers the same
  // NOT_FOUND and uses nothing up: an unknown, used or expired capability, another tenant's,
  // a mismatch.
  absl::StatusOr<Grant> Redeem(std::string_view capability, std::string_view tenant, DType dtype,
                               const Shape& shape, Clock::time_point now);
  // Puts back a grant Redeem answered, for a use that failed before it read anything: a
  // failed call changes nothing.
  void Reinstate(std::string_view capability, Grant grant);
  // Whether this store issued `capability` and it is still unused (expired or not): the
  // receiving daemon's test for a pull from itself.
  bool Holds(std::string_view capability) const;
  int64_t size() const;

 private:
  // Removes the expired capabilities and answers their arrays, to be let go of after the lock
  // (the last reference frees the memory).
  std::vector<std::shared_ptr<const ArrayRecord>> DropExpired(Clock::time_point now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  mutable absl::Mutex mutex_;
  absl::flat_hash_map<std::string, Grant> grants_ ABSL_GUARDED_BY(mutex_);
  absl::flat_hash_map<std::string, int64_t> per_tenant_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace arrayhub
