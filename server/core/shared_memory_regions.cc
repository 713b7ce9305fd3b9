#include "server/core/shared_memory_regions.h"

#include <fmt/format.h>

#include <algorithm>

namespace arrayhub {
namespace {

absl::Status NotRegistered(std::string_view name) {
  return absl::NotFoundError(fmt::format(
      "region_name '{}': no shared-memory region of that name is registered in this session",
      name));
}

}  // namespace

absl::Status ValidateRegionName(std::string_view name) {
  if (name.empty() || name.size() > 128) {
    return absl::InvalidArgumentError(
        fmt::format("region_name must have 1 to 128 characters, got {}", name.size()));
  }
  auto bad = std::find_if_not(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '/' || c == '-';
  });
  if (bad != name.end()) {
    return absl::InvalidArgumentError(fmt::format(
        "region_name may contain only [A-Za-z0-9._/-]; character {} (byte 0x{:02x}) is not",
        bad - name.begin(), static_cast<unsigned char>(*bad)));
  }
  return absl::OkStatus();
}

absl::Status SharedMemoryRegistry::CheckRoomLocked(const std::string& tenant, const Handle& session,
                                                   std::string_view name) const {
  if (auto it = sessions_.find(session); it != sessions_.end()) {
    const auto& regions = it->second.regions;
    if (regions.contains(std::string(name))) {
      return absl::AlreadyExistsError(fmt::format(
          "region_name '{}' is already registered in this session; unregister it first", name));
    }
    if (static_cast<int64_t>(regions.size()) >= max_per_session_) {
      return absl::ResourceExhaustedError(
          fmt::format("this session has {} shared-memory regions registered, the most allowed "
                      "(--max-shared-memory-regions {}); unregister one first",
                      regions.size(), max_per_session_));
    }
  }
  if (auto it = per_tenant_.find(tenant);
      it != per_tenant_.end() && it->second >= max_per_tenant_) {
    return absl::ResourceExhaustedError(
        fmt::format("tenant '{}' has {} shared-memory regions registered in its sessions, the "
                    "most allowed (--tenant-max-shared-memory-regions {}); unregister one first",
                    tenant, it->second, max_per_tenant_));
  }
  return absl::OkStatus();
}

void SharedMemoryRegistry::ReleaseLocked(const std::string& tenant, int64_t count) {
  auto it = per_tenant_.find(tenant);
  if ((it->second -= count) == 0) per_tenant_.erase(it);
}

absl::Status SharedMemoryRegistry::CheckRoom(const std::string& tenant, const Handle& session,
                                             std::string_view name) const {
  absl::ReaderMutexLock lock(&mutex_);
  return CheckRoomLocked(tenant, session, name);
}

absl::Status SharedMemoryRegistry::Add(const std::string& tenant, const Handle& session,
                                       RegionPtr region) {
  absl::MutexLock lock(&mutex_);
  if (absl::Status room = CheckRoomLocked(tenant, session, region->name); !room.ok()) return room;
  SessionRegions& held = sessions_[session];
  held.tenant = tenant;
  std::string name = region->name;
  held.regions.emplace(std::move(name), std::move(region));
  ++per_tenant_[tenant];
  return absl::OkStatus();
}

absl::StatusOr<SharedMemoryRegistry::RegionPtr> SharedMemoryRegistry::Find(
    const Handle& session, std::string_view name) const {
  absl::ReaderMutexLock lock(&mutex_);
  auto it = sessions_.find(session);
  if (it == sessions_.end()) return NotRegistered(name);
  auto region = it->second.regions.find(std::string(name));
  if (region == it->second.regions.end()) return NotRegistered(name);
  return region->second;
}

absl::Status SharedMemoryRegistry::Remove(const Handle& session, std::string_view name) {
  RegionPtr removed;  // Released after the lock: unmapping may take a while.
  absl::MutexLock lock(&mutex_);
  auto it = sessions_.find(session);
  if (it == sessions_.end()) return NotRegistered(name);
  auto region = it->second.regions.find(std::string(name));
  if (region == it->second.regions.end()) return NotRegistered(name);
  removed = std::move(region->second);
  it->second.regions.erase(region);
  ReleaseLocked(it->second.tenant, 1);
  if (it->second.regions.empty()) sessions_.erase(it);
  return absl::OkStatus();
}

int64_t SharedMemoryRegistry::EraseSession(const Handle& session) {
  SessionRegions removed;  // Released after the lock.
  absl::MutexLock lock(&mutex_);
  auto it = sessions_.find(session);
  if (it == sessions_.end()) return 0;
  removed = std::move(it->second);
  sessions_.erase(it);
  const auto count = static_cast<int64_t>(removed.regions.size());
  ReleaseLocked(removed.tenant, count);
  return count;
}

int64_t SharedMemoryRegistry::CountOf(const std::string& tenant) const {
  absl::ReaderMutexLock lock(&mutex_);
  auto it = per_tenant_.find(tenant);
  return it == per_tenant_.end() ? 0 : it->second;
}

}  // namespace arrayhub
