// Open sessions and their leases.
#pragma once

#include <chrono>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "server/backend/work_queue.h"
#include "server/core/handle.h"

namespace arrayhub {

using Clock = std::chrono::steady_clock;

// Longest client_name a session keeps (it is shown to operators by `arrayhub ls`/`top`).
inline constexpr size_t kMaxClientNameBytes = 256;

// INVALID_ARGUMENT, naming the field and the limit, for a client_name longer than
// kMaxClientNameBytes or holding control characters (which could forge lines where it is shown).
absl::Status ValidateClientName(std::string_view client_name);

struct SessionOptions {
  std::chrono::seconds default_lease{60};
  std::chrono::seconds max_lease{3600};
  int64_t max_per_tenant = std::numeric_limits<int64_t>::max();  // Open sessions per tenant.
  // The part of a lease after which, without a KeepAlive, the session's watchers are warned
  // (SessionWatchers): --lease-warning-percent.
  double lease_warning_fraction = 0.8;
};

struct Session {
  Handle id;
  std::string tenant;
  std::string client_name;
  std::chrono::seconds lease{0};
  Clock::time_point expires_at;
  int device = 0;  // Where its calls run unless they name another device.
  // Where its work on each device goes, in order: a queue per device, by index.
  std::shared_ptr<const std::vector<std::shared_ptr<WorkQueue>>> queues;
};

class SessionManager {
 public:
  explicit SessionManager(SessionOptions options) : options_(options) {}

  // Lease 0 takes the default; longer than the maximum is capped. RESOURCE_EXHAUSTED when the
  // tenant has max_per_tenant sessions open already; INVALID_ARGUMENT for a client_name that
  // ValidateClientName refuses.
  absl::StatusOr<Session> Open(
      const std::string& tenant, const std::string& client_name, std::chrono::seconds lease,
      Clock::time_point now, int device = 0,
      std::shared_ptr<const std::vector<std::shared_ptr<WorkQueue>>> queues = nullptr);

  // The session if it is open and belongs to `tenant`; NOT_FOUND otherwise (a session of
  // another tenant is indistinguishable from an unknown one).
  absl::StatusOr<Session> Find(const std::string& tenant, const Handle& id) const;

  // Whether the session is open (of any tenant): for bookkeeping, never for access checks.
  bool IsOpen(const Handle& id) const;

  // Extends the lease from `now`.
  absl::StatusOr<Session> Renew(const std::string& tenant, const Handle& id, Clock::time_point now);

  // Removes the session; NOT_FOUND as in Find.
  absl::Status Close(const std::string& tenant, const Handle& id);

  // Removes and returns the sessions whose lease ran out before `now`.
  std::vector<Session> TakeExpired(Clock::time_point now);

  int64_t size() const;

  // Open sessions per device index, of `devices` devices: for operators' statistics.
  std::vector<int64_t> CountByDevice(int devices) const;

  // Open sessions per tenant: for operators' statistics.
  absl::flat_hash_map<std::string, int64_t> CountByTenant() const;

 private:
  // Removes `it`, keeping the per-tenant counts.
  void Erase(absl::flat_hash_map<Handle, Session>::iterator it)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  SessionOptions options_;
  mutable absl::Mutex mutex_;
  absl::flat_hash_map<Handle, Session> sessions_ ABSL_GUARDED_BY(mutex_);
  absl::flat_hash_map<std::string, int64_t> per_tenant_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace arrayhub
