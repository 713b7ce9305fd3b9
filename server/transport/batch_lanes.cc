#include "server/transport/batch_lanes.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/socket.h>

#include <vector>

#include "server/core/handle.h"

namespace arrayhub {

BatchLanes::~BatchLanes() {
  std::list<Lane> lanes;
  {
    absl::MutexLock lock(&mutex_);
    draining_.store(true, std::memory_order_relaxed);
    for (Lane& lane : lanes_) shutdown(lane.connection.get(), SHUT_RDWR);
    lanes.splice(lanes.end(), lanes_);
  }
  for (Lane& lane : lanes) lane.thread.join();
}

absl::StatusOr<BatchLanes::Grant> BatchLanes::Issue(Holder holder) {
  const auto now = std::chrono::steady_clock::now();
  absl::MutexLock lock(&mutex_);
  Expire(now);
  int& waiting = tickets_per_tenant_[holder.tenant];
  if (waiting >= kMaxTicketsPerTenant || tickets_.size() >= static_cast<size_t>(kMaxTickets)) {
    if (waiting == 0) tickets_per_tenant_.erase(holder.tenant);
    return absl::ResourceExhaustedError(
        fmt::format("too many batch lane tickets waiting to be used (at most {} per tenant, {} "
                    "in all, each for {} s)",
                    kMaxTicketsPerTenant, kMaxTickets, kTicketLifetime.count()));
  }
  ++waiting;
  Grant grant{.ticket = Handle::Random().ToString(), .proof = Handle::Random().ToString()};
  tickets_.emplace(
      grant.ticket,
      Waiting{.holder = std::move(holder), .proof = grant.proof, .expires = now + kTicketLifetime});
  return grant;
}

void BatchLanes::Expire(std::chrono::steady_clock::time_point now) {
  std::vector<std::string> expired;
  for (const auto& [ticket, waiting] : tickets_) {
    if (waiting.expires <= now) expired.push_back(ticket);
  }
  for (const std::string& ticket : expired) {
    auto it = tickets_.find(ticket);
    if (--tickets_per_tenant_[it->second.holder.tenant] == 0) {
      tickets_per_tenant_.erase(it->second.holder.tenant);
    }
    tickets_.erase(it);
  }
}

absl::Status BatchLanes::Open(
    std::string_view ticket, OwnedFd& connection,
    const std::function<absl::StatusOr<Serve>(const Holder&, int connection)>& start) {
  const auto now = std::chrono::steady_clock::now();
  absl::MutexLock lock(&mutex_);
  Expire(now);
  Reap();
  // One answer for every ticket that is not (now) valid, so that tickets cannot be probed.
  auto it = tickets_.find(std::string(ticket));
  if (it == tickets_.end()) {
    return absl::NotFoundError("no such batch lane ticket (unknown, used, or older than 10 s)");
  }
  Waiting waiting = std::move(it->second);
  if (--tickets_per_tenant_[waiting.holder.tenant] == 0) {
    tickets_per_tenant_.erase(waiting.holder.tenant);
  }
  tickets_.erase(it);
  if (draining()) return absl::UnavailableError("the server is draining");
  if (lanes_.size() >= static_cast<size_t>(max_lanes_)) {
    return absl::ResourceExhaustedError(
        fmt::format("all {} batch lanes are open (--max-batch-lanes)", max_lanes_));
  }
  // The descriptor socket accepts without blocking; a lane's thread blocks in its reads.
  const int flags = fcntl(connection.get(), F_GETFL);
  if (flags < 0 || fcntl(connection.get(), F_SETFL, flags & ~O_NONBLOCK) != 0) {
    return absl::InternalError("cannot make the lane's connection blocking");
  }
  absl::StatusOr<Serve> started = start(waiting.holder, connection.get());
  if (!started.ok()) return started.status();
  Lane& lane = lanes_.emplace_back(std::move(connection));
  lane.thread =
      std::thread([&lane, serve = std::move(*started), waiting = std::move(waiting)]() mutable {
        {
          const Serve run = std::move(serve);
          run(waiting.holder, lane.connection.get(), waiting.proof);
        }
        // The client sees the lane end now, not when the connection is closed at the next reap.
        shutdown(lane.connection.get(), SHUT_RDWR);
        lane.done.store(true, std::memory_order_release);
      });
  return absl::OkStatus();
}

void BatchLanes::Reap() {
  for (auto lane = lanes_.begin(); lane != lanes_.end();) {
    if (lane->done.load(std::memory_order_acquire)) {
      lane->thread.join();
      lane = lanes_.erase(lane);
    } else {
      ++lane;
    }
  }
}

void BatchLanes::Drain() {
  absl::MutexLock lock(&mutex_);
  draining_.store(true, std::memory_order_relaxed);
  for (Lane& lane : lanes_) {
    if (!lane.done.load(std::memory_order_acquire)) shutdown(lane.connection.get(), SHUT_RD);
  }
}

}  // namespace arrayhub
