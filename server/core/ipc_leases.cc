#include "server/core/ipc_leases.h"

#include <fmt/format.h>

#include <algorithm>

namespace arrayhub {

absl::StatusOr<std::string> IpcLeases::Grant(const Handle& session,
                                             std::shared_ptr<const Buffer> buffer) {
  absl::MutexLock lock(&mutex_);
  std::vector<Lease>& held = leases_[session];
  for (const Lease& lease : held) {
    if (lease.buffer == buffer) return lease.id;
  }
  if (static_cast<int64_t>(held.size()) >= max_per_session_) {
    return absl::ResourceExhaustedError(
        fmt::format("the session holds {} CUDA IPC leases, the most the server allows "
                    "(--max-ipc-leases); release some (ReleaseIpc) first",
                    held.size()));
  }
  held.push_back({.id = Handle::Random().ToString(), .buffer = std::move(buffer)});
  return held.back().id;
}

absl::Status IpcLeases::Release(const Handle& session, std::string_view lease) {
  absl::MutexLock lock(&mutex_);
  auto found = leases_.find(session);
  if (found != leases_.end()) {
    std::vector<Lease>& held = found->second;
    auto it = std::find_if(held.begin(), held.end(),
                           [&](const Lease& candidate) { return candidate.id == lease; });
    if (it != held.end()) {
      held.erase(it);
      if (held.empty()) leases_.erase(found);
      return absl::OkStatus();
    }
  }
  return absl::NotFoundError(fmt::format("no CUDA IPC lease '{}' in this session", lease));
}

void IpcLeases::EraseSession(const Handle& session) {
  absl::MutexLock lock(&mutex_);
  leases_.erase(session);
}

int64_t IpcLeases::CountOf(const Handle& session) const {
  absl::MutexLock lock(&mutex_);
  auto found = leases_.find(session);
  return found == leases_.end() ? 0 : static_cast<int64_t>(found->second.size());
}

std::string IpcLeases::IssueTicket(std::string pool_id, Clock::time_point now) {
  absl::MutexLock lock(&mutex_);
  absl::erase_if(tickets_, [&](const auto& entry) { return entry.second.expires_at <= now; });
  if (tickets_.size() >= kMaxTickets) {
    auto oldest = std::min_element(
        tickets_.begin(), tickets_.end(),
        [](const auto& a, const auto& b) { return a.second.expires_at < b.second.expires_at; });
    tickets_.erase(oldest);
  }
  std::string ticket = Handle::Random().ToString();
  tickets_[ticket] = {.pool_id = std::move(pool_id), .expires_at = now + kTicketLifetime};
  return ticket;
}

absl::StatusOr<std::string> IpcLeases::RedeemTicket(std::string_view ticket,
                                                    Clock::time_point now) {
  absl::MutexLock lock(&mutex_);
  auto found = tickets_.find(std::string(ticket));
  if (found == tickets_.end() || found->second.expires_at <= now) {
    if (found != tickets_.end()) tickets_.erase(found);
    return absl::NotFoundError(
        "unknown, used or expired pool ticket (a ticket is good for one use within 60 s)");
  }
  std::string pool_id = std::move(found->second.pool_id);
  tickets_.erase(found);
  return pool_id;
}

}  // namespace arrayhub
