// Batch lanes: a session's batches over a connection to the daemon's Unix socket, for clients
// on its host (compute.proto, OpenBatchLaneResponse, has the protocol). From Python a batch
// with its read took 241-439 us as a BatchStream message and 55-108 us on a lane (H100 host,
// bench/user/read_cost.py), and a pipelined script waits for one such round trip at every host
// read.
//
// This class knows tickets, connections and threads, not what runs on them: it issues the
// single-use tickets that OpenBatchLane answers, takes the connections the descriptor socket
// hands over with one, and runs each on a thread of its own until it ends, the drain shuts it,
// or this object goes.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "server/core/shared_memory_object.h"

namespace arrayhub {

class BatchLanes {
 public:
  // Whose batches a lane carries: the session that asked for its ticket.
  struct Holder {
    std::string tenant;
    std::string session;
    std::optional<int> device;  // The call's device when it asked; none: the session's.
  };
  struct Grant {
    std::string ticket;  // Redeemed by the line "BATCHES <ticket>".
    std::string proof;   // What the daemon answers on the redeemed connection: "OK <proof>".
  };
  // Runs a lane: its holder, its connection (blocking, open until the lane is reaped after
  // `serve` returns; shutdown(2) on it from another thread ends its reads) and the proof it
  // starts by sending. Destroyed on the lane's thread before the lane counts as done.
  using Serve = std::function<void(const Holder& holder, int connection, const std::string& proof)>;

  // A ticket lives this long unused.
  static constexpr std::chrono::seconds kTicketLifetime{10};
  // Tickets waiting to be used, of one tenant and of all: past them Issue answers
  // RESOURCE_EXHAUSTED (the client goes on over BatchStream).
  static constexpr int kMaxTicketsPerTenant = 64;
  static constexpr int kMaxTickets = 4096;

  // `max_lanes`: lanes open at once, all tenants together (each holds a thread).
  explicit BatchLanes(int64_t max_lanes) : max_lanes_(max_lanes) {}
  // Shuts every lane's connection and waits for their threads.
  ~BatchLanes();
  BatchLanes(const BatchLanes&) = delete;
  BatchLanes& operator=(const BatchLanes&) = delete;

  // A fresh ticket for `holder`, good for one connection within kTicketLifetime.
  absl::StatusOr<Grant> Issue(Holder holder);

  // Uses up `ticket` and, when it is valid, takes `connection` (left empty) and runs
  // `start(holder)` then, when that succeeds, `serve` on a thread of the lane's own. Every
  // failure (unknown, used or expired ticket; the lanes all taken; the drain; `start`'s
  // error) leaves `connection` where it was, for the caller's "ERROR" line. `start` runs on
  // the calling thread, before the connection is taken: what it reserves (a transfer slot)
  // `serve` takes over through the captures of the Serve it answers.
  absl::Status Open(
      std::string_view ticket, OwnedFd& connection,
      const std::function<absl::StatusOr<Serve>(const Holder&, int connection)>& start);

  // From now on no lane opens, and the open ones end after the batch they run: their
  // connections are shut for reading (a batch in progress is still answered).
  void Drain();
  bool draining() const { return draining_.load(std::memory_order_relaxed); }

 private:
  struct Waiting {
    Holder holder;
    std::string proof;
    std::chrono::steady_clock::time_point expires;
  };
  struct Lane {
    explicit Lane(OwnedFd fd) : connection(std::move(fd)) {}
    OwnedFd connection;
    std::thread thread;
    std::atomic<bool> done{false};
  };

  // Joins and drops the lanes whose threads have returned.
  void Reap() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Drops the expired tickets.
  void Expire(std::chrono::steady_clock::time_point now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  const int64_t max_lanes_;
  std::atomic<bool> draining_{false};
  absl::Mutex mutex_;
  absl::flat_hash_map<std::string, Waiting> tickets_ ABSL_GUARDED_BY(mutex_);
  absl::flat_hash_map<std::string, int> tickets_per_tenant_ ABSL_GUARDED_BY(mutex_);
  std::list<Lane> lanes_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace arrayhub
