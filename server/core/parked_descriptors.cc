#include "server/core/parked_descriptors.h"

#include <fmt/format.h>

#include <vector>

#include "server/core/handle.h"

namespace arrayhub {

absl::StatusOr<std::string> ParkedDescriptors::Park(uid_t sender, OwnedFd fd,
                                                    DescriptorCharge charge,
                                                    Clock::time_point now) {
  absl::MutexLock lock(&mutex_);
  DropExpiredLocked(now);
  int64_t& waiting = per_user_[sender];
  if (waiting >= kMaxPerUser) {
    return absl::ResourceExhaustedError(
        fmt::format("user {} has {} descriptors waiting for RegisterSharedMemory already, the "
                    "most allowed; register or let them expire ({} s) first",
                    sender, waiting, kLifetime.count()));
  }
  ++waiting;
  std::string ticket = Handle::Random().ToString();
  entries_.emplace(
      ticket, Entry{.parked = {.sender = sender, .fd = std::move(fd), .charge = std::move(charge)},
                    .expires_at = now + kLifetime});
  return ticket;
}

absl::StatusOr<ParkedDescriptor> ParkedDescriptors::Redeem(std::string_view ticket,
                                                           Clock::time_point now) {
  absl::MutexLock lock(&mutex_);
  DropExpiredLocked(now);
  auto found = entries_.find(std::string(ticket));
  if (found == entries_.end()) {
    return absl::NotFoundError("unknown, used or expired descriptor ticket");
  }
  ParkedDescriptor parked = std::move(found->second.parked);
  entries_.erase(found);
  if (--per_user_[parked.sender] == 0) per_user_.erase(parked.sender);
  return parked;
}

void ParkedDescriptors::DropExpired(Clock::time_point now) {
  absl::MutexLock lock(&mutex_);
  DropExpiredLocked(now);
}

void ParkedDescriptors::DropExpiredLocked(Clock::time_point now) {
  std::vector<std::string> expired;
  for (const auto& [ticket, entry] : entries_) {
    if (entry.expires_at <= now) expired.push_back(ticket);
  }
  for (const std::string& ticket : expired) {
    auto found = entries_.find(std::string(ticket));
    if (--per_user_[found->second.parked.sender] == 0) {
      per_user_.erase(found->second.parked.sender);
    }
    entries_.erase(found);  // Closes the descriptor.
  }
}

int64_t ParkedDescriptors::size() const {
  absl::MutexLock lock(&mutex_);
  return static_cast<int64_t>(entries_.size());
}

}  // namespace arrayhub
