// The client shared-memory regions registered by each session: names unique per session, at
// most a fixed number per session and per tenant, all closed with the session.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "server/backend/host_region.h"
#include "server/core/descriptor_budget.h"
#include "server/core/handle.h"

namespace arrayhub {

struct SharedMemoryRegion {
  // Declared first so that it goes last, after the backend has closed what it counts.
  DescriptorCharge charge;
  std::string name;  // The client's name for it (region_name).
  int64_t byte_size = 0;
  std::unique_ptr<HostRegion> host;  // The backend's side of it.
};

// INVALID_ARGUMENT unless `name` has 1 to 128 characters of [A-Za-z0-9._/-].
absl::Status ValidateRegionName(std::string_view name);

class SharedMemoryRegistry {
 public:
  // A copy in progress holds its region, so that unregistering it (or closing the session)
  // meanwhile cannot unmap the memory under the copy.
  using RegionPtr = std::shared_ptr<const SharedMemoryRegion>;

  SharedMemoryRegistry(int64_t max_per_session, int64_t max_per_tenant)
      : max_per_session_(max_per_session), max_per_tenant_(max_per_tenant) {}

  // Whether `session` of `tenant` may register one more region named `name`: ALREADY_EXISTS
  // for a name in use, RESOURCE_EXHAUSTED at the session's or the tenant's limit. Checked
  // before anything is opened; Add checks again.
  absl::Status CheckRoom(const std::string& tenant, const Handle& session,
                         std::string_view name) const;
  absl::Status Add(const std::string& tenant, const Handle& session, RegionPtr region);

  // NOT_FOUND unless `session` registered `name` (another session's region looks the same).
  absl::StatusOr<RegionPtr> Find(const Handle& session, std::string_view name) const;
  absl::Status Remove(const Handle& session, std::string_view name);
  // Unregisters every region of the session; returns how many.
  int64_t EraseSession(const Handle& session);
  // Regions the tenant's sessions hold now.
  int64_t CountOf(const std::string& tenant) const;

 private:
  struct SessionRegions {
    std::string tenant;
    absl::flat_hash_map<std::string, RegionPtr> regions;
  };
  absl::Status CheckRoomLocked(const std::string& tenant, const Handle& session,
                               std::string_view name) const ABSL_SHARED_LOCKS_REQUIRED(mutex_);
  // `count` regions fewer for `tenant`.
  void ReleaseLocked(const std::string& tenant, int64_t count)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  const int64_t max_per_session_;
  const int64_t max_per_tenant_;
  mutable absl::Mutex mutex_;
  absl::flat_hash_map<Handle, SessionRegions> sessions_ ABSL_GUARDED_BY(mutex_);
  absl::flat_hash_map<std::string, int64_t> per_tenant_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace arrayhub
