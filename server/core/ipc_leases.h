// The CUDA IPC exports of a server (docs/ipc.md): the leases that keep exported memory alive
// while another process maps it, and the one-use tickets with which a client fetches a pool's
// file descriptor over the IPC socket.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "server/backend/buffer.h"
#include "server/core/handle.h"

namespace arrayhub {

class IpcLeases {
 public:
  using Clock = std::chrono::steady_clock;
  // How long a pool ticket may wait to be redeemed.
  static constexpr std::chrono::seconds kTicketLifetime{60};
  // Unredeemed tickets kept at most; the oldest go first (a client that never redeems its
  // tickets cannot grow the table).
  static constexpr size_t kMaxTickets = 4096;

  explicit IpcLeases(int64_t max_per_session) : max_per_session_(max_per_session) {}

  // The lease of `session` on `buffer`: the one it holds already, or a new one that keeps the
  // buffer alive until Release or EraseSession. RESOURCE_EXHAUSTED beyond the session's limit.
  absl::StatusOr<std::string> Grant(const Handle& session, std::shared_ptr<const Buffer> buffer);
  // NOT_FOUND for a lease the session does not hold.
  absl::Status Release(const Handle& session, std::string_view lease);
  // Ends every lease of the session (closed or expired).
  void EraseSession(const Handle& session);
  int64_t CountOf(const Handle& session) const;

  // A one-use ticket for the descriptor of pool `pool_id`, good until now + kTicketLifetime.
  std::string IssueTicket(std::string pool_id, Clock::time_point now);
  // The pool id of a valid ticket, which is used up; NOT_FOUND for an unknown, used or expired
  // one.
  absl::StatusOr<std::string> RedeemTicket(std::string_view ticket, Clock::time_point now);

 private:
  struct Lease {
    std::string id;
    std::shared_ptr<const Buffer> buffer;
  };
  struct Ticket {
    std::string pool_id;
    Clock::time_point expires_at;
  };

  const int64_t max_per_session_;
  mutable absl::Mutex mutex_;
  absl::flat_hash_map<Handle, std::vector<Lease>> leases_ ABSL_GUARDED_BY(mutex_);
  absl::flat_hash_map<std::string, Ticket> tickets_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace arrayhub
