#include "server/core/session_manager.h"

#include <fmt/format.h>

#include <algorithm>

namespace arrayhub {
namespace {

absl::Status SessionNotFound(const Handle& id) {
  return absl::NotFoundError(
      fmt::format("session {} not found (closed, expired, or never opened)", id.ToString()));
}

}  // namespace

Session SessionManager::Open(const std::string& tenant, const std::string& client_name,
                             std::chrono::seconds lease, Clock::time_point now) {
  if (lease.count() <= 0) lease = options_.default_lease;
  lease = std::min(lease, options_.max_lease);
  Session session{.id = Handle::Random(),
                  .tenant = tenant,
                  .client_name = client_name,
                  .lease = lease,
                  .expires_at = now + lease};
  absl::MutexLock lock(&mutex_);
  sessions_.emplace(session.id, session);
  return session;
}

absl::StatusOr<Session> SessionManager::Find(const std::string& tenant, const Handle& id) const {
  absl::ReaderMutexLock lock(&mutex_);
  auto it = sessions_.find(id);
  if (it == sessions_.end() || it->second.tenant != tenant) return SessionNotFound(id);
  return it->second;
}

absl::StatusOr<Session> SessionManager::Renew(const std::string& tenant, const Handle& id,
                                              Clock::time_point now) {
  absl::MutexLock lock(&mutex_);
  auto it = sessions_.find(id);
  if (it == sessions_.end() || it->second.tenant != tenant) return SessionNotFound(id);
  it->second.expires_at = now + it->second.lease;
  return it->second;
}

absl::Status SessionManager::Close(const std::string& tenant, const Handle& id) {
  absl::MutexLock lock(&mutex_);
  auto it = sessions_.find(id);
  if (it == sessions_.end() || it->second.tenant != tenant) return SessionNotFound(id);
  sessions_.erase(it);
  return absl::OkStatus();
}

std::vector<Session> SessionManager::TakeExpired(Clock::time_point now) {
  std::vector<Session> expired;
  absl::MutexLock lock(&mutex_);
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    if (it->second.expires_at < now) {
      expired.push_back(std::move(it->second));
      sessions_.erase(it++);
    } else {
      ++it;
    }
  }
  return expired;
}

int64_t SessionManager::size() const {
  absl::ReaderMutexLock lock(&mutex_);
  return static_cast<int64_t>(sessions_.size());
}

absl::flat_hash_map<std::string, int64_t> SessionManager::CountByTenant() const {
  absl::flat_hash_map<std::string, int64_t> counts;
  absl::ReaderMutexLock lock(&mutex_);
  for (const auto& [id, session] : sessions_) ++counts[session.tenant];
  return counts;
}

}  // namespace arrayhub
