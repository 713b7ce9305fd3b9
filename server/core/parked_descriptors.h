// Descriptors of shared-memory objects that same-host clients handed to the daemon over its
// Unix socket (SCM_RIGHTS), each waiting under a one-use ticket for the RegisterSharedMemory
// call that names it. Short-lived and bounded per sending user: they belong to no tenant yet.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "server/core/descriptor_budget.h"
#include "server/core/shared_memory_object.h"

namespace arrayhub {

struct ParkedDescriptor {
  uid_t sender = 0;  // The sending process's user, from SO_PEERCRED.
  OwnedFd fd;
  DescriptorCharge charge;
};

class ParkedDescriptors {
 public:
  using Clock = std::chrono::steady_clock;
  // How long a ticket waits for its RegisterSharedMemory (a client sends it at once).
  static constexpr std::chrono::seconds kLifetime{10};
  // Descriptors one user may have waiting at once.
  static constexpr int64_t kMaxPerUser = 16;

  // Keeps `fd` under a new ticket (128 random bits, hex); RESOURCE_EXHAUSTED when `sender`
  // has kMaxPerUser waiting already.
  absl::StatusOr<std::string> Park(uid_t sender, OwnedFd fd, DescriptorCharge charge,
                                   Clock::time_point now);
  // The descriptor parked under `ticket`, which is used up; NOT_FOUND for an unknown, used or
  // expired ticket.
  absl::StatusOr<ParkedDescriptor> Redeem(std::string_view ticket, Clock::time_point now);
  // Closes the descriptors whose ticket expired.
  void DropExpired(Clock::time_point now);
  int64_t size() const;

 private:
  struct Entry {
    ParkedDescriptor parked;
    Clock::time_point expires_at;
  };
  void DropExpiredLocked(Clock::time_point now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  mutable absl::Mutex mutex_;
  absl::flat_hash_map<std::string, Entry> entries_ ABSL_GUARDED_BY(mutex_);
  absl::flat_hash_map<uid_t, int64_t> per_user_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace arrayhub
