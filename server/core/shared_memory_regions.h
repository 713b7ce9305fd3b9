// The client shared-memory regions registered by each session: names unique per session, at
// most a fixed number per session, all closed with the session.
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
#include "server/core/handle.h"

namespace arrayhub {

struct SharedMemoryRegion {
  std::string name;     // The client's name for it (region_name).
  std::string shm_key;  // The object's name for shm_open.
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

  explicit SharedMemoryRegistry(int64_t max_per_session) : max_per_session_(max_per_session) {}

  // Whether `session` may register one more region named `name`: ALREADY_EXISTS for a name in
  // use, RESOURCE_EXHAUSTED at the limit. Checked before the object is opened; Add checks again.
  absl::Status CheckRoom(const Handle& session, std::string_view name) const;
  absl::Status Add(const Handle& session, RegionPtr region);

  // NOT_FOUND unless `session` registered `name` (another session's region looks the same).
  absl::StatusOr<RegionPtr> Find(const Handle& session, std::string_view name) const;
  absl::Status Remove(const Handle& session, std::string_view name);
  // Unregisters every region of the session; returns how many.
  int64_t EraseSession(const Handle& session);

 private:
  using Regions = absl::flat_hash_map<std::string, RegionPtr>;
  absl::Status CheckRoomLocked(const Handle& session, std::string_view name) const
      ABSL_SHARED_LOCKS_REQUIRED(mutex_);

  int64_t max_per_session_;
  mutable absl::Mutex mutex_;
  absl::flat_hash_map<Handle, Regions> sessions_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace arrayhub
