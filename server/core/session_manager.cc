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

absl::Status ValidateClientName(std::string_view client_name) {
  if (client_name.size() > kMaxClientNameBytes) {
    return absl::InvalidArgumentError(
        fmt::format("client_name is {} bytes; the server keeps at most {}", client_name.size(),
                    kMaxClientNameBytes));
  }
  for (size_t i = 0; i < client_name.size(); ++i) {
    const auto c = static_cast<unsigned char>(client_name[i]);
    if (c < 0x20 || c == 0x7f) {
      return absl::InvalidArgumentError(fmt::format(
          "client_name must not contain control characters; byte {} is 0x{:02x}", i, c));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Session> SessionManager::Open(
    const std::string& tenant, const std::string& client_name, std::chrono::seconds lease,
    Clock::time_point now, int device,
    std::shared_ptr<const std::vector<std::shared_ptr<WorkQueue>>> queues) {
  if (absl::Status name = ValidateClientName(client_name); !name.ok()) return name;
  if (lease.count() <= 0) lease = options_.default_lease;
  lease = std::min(lease, options_.max_lease);
  Session session{.id = Handle::Random(),
                  .tenant = tenant,
                  .client_name = client_name,
                  .lease = lease,
                  .expires_at = now + lease,
                  .device = device,
                  .queues = std::move(queues)};
  absl::MutexLock lock(&mutex_);
  int64_t& open = per_tenant_[tenant];
  if (open >= options_.max_per_tenant) {
    if (open == 0) per_tenant_.erase(tenant);
    return absl::ResourceExhaustedError(fmt::format(
        "tenant '{}' session quota exceeded (--tenant-max-sessions {}): {} sessions are open; "
        "close one or let its lease run out",
        tenant, options_.max_per_tenant, open));
  }
  ++open;
  sessions_.emplace(session.id, session);
  return session;
}

absl::StatusOr<Session> SessionManager::Find(const std::string& tenant, const Handle& id) const {
  absl::ReaderMutexLock lock(&mutex_);
  auto it = sessions_.find(id);
  if (it == sessions_.end() || it->second.tenant != tenant) return SessionNotFound(id);
  return it->second;
}

bool SessionManager::IsOpen(const Handle& id) const {
  absl::MutexLock lock(&mutex_);
  return sessions_.contains(id);
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
  Erase(it);
  return absl::OkStatus();
}

std::vector<Session> SessionManager::TakeExpired(Clock::time_point now) {
  std::vector<Session> expired;
  absl::MutexLock lock(&mutex_);
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    if (it->second.expires_at < now) {
      expired.push_back(it->second);
      Erase(it++);
    } else {
      ++it;
    }
  }
  return expired;
}

void SessionManager::Erase(absl::flat_hash_map<Handle, Session>::iterator it) {
  auto count = per_tenant_.find(it->second.tenant);
  if (--count->second == 0) per_tenant_.erase(count);
  sessions_.erase(it);
}

int64_t SessionManager::size() const {
  absl::ReaderMutexLock lock(&mutex_);
  return static_cast<int64_t>(sessions_.size());
}

std::vector<int64_t> SessionManager::CountByDevice(int devices) const {
  std::vector<int64_t> counts(static_cast<size_t>(devices), 0);
  absl::ReaderMutexLock lock(&mutex_);
  for (const auto& [id, session] : sessions_) {
    if (session.device >= 0 && session.device < devices) ++counts[session.device];
  }
  return counts;
}

absl::flat_hash_map<std::string, int64_t> SessionManager::CountByTenant() const {
  absl::flat_hash_map<std::string, int64_t> counts;
  absl::ReaderMutexLock lock(&mutex_);
  for (const auto& [id, session] : sessions_) ++counts[session.tenant];
  return counts;
}

}  // namespace arrayhub
