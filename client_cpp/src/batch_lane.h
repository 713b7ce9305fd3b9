// A session's batches over a batch lane: a connection to the daemon's Unix socket, for a
// client on its host (compute.proto, OpenBatchLaneResponse, has the protocol). A round trip
// through it costs a fraction of a gRPC call's, and a pipelined program waits for one at every
// host read (bench/RESULTS.md). Where no lane can be opened (another host, a daemon without
// lanes, the tenant's transfers all in use, a socket that cannot prove it is the daemon's) the
// batches go as unary Batch calls.
#pragma once

#include <chrono>
#include <mutex>
#include <optional>

#include "arrayhub/v1/compute.pb.h"
#include "descriptor_socket.h"

namespace arrayhub::client::detail {

struct Connection;

class BatchLane {
 public:
  // An open lane unused this long is closed (it holds a thread and a transfer slot of the
  // daemon); it opens again at the next batch.
  static constexpr std::chrono::seconds kIdleClose{5};

  // Whether to try lanes to the daemon at `address`: a loopback or Unix-socket address, after
  // ARRAYHUB_BATCH_LANE (0: never, 1: whatever the address).
  static bool Wanted(const std::string& address);

  // Runs `request` on the session's lane, opened first if need be: its answer, or nullopt when
  // no lane can be had (send it as a unary call). Throws Error kUnavailable when the lane
  // ended before the answer came (the batch may or may not have run), kDeadlineExceeded when
  // `deadline` passed first (the lane is then closed).
  std::optional<v1::BatchStreamResponse> Call(
      Connection& connection, const v1::BatchRequest& request,
      std::optional<std::chrono::system_clock::time_point> deadline);

  // When the open lane will have been idle kIdleClose; nullopt when none is open.
  std::optional<std::chrono::steady_clock::time_point> IdleDeadline();
  // Closes the lane if it went unused for kIdleClose and no call uses it now.
  void CloseIfIdle();

 private:
  // A proved lane, or -1 (and no lane for the rest of the session).
  int Open(Connection& connection);

  std::mutex mutex_;
  ScopedFd lane_{-1};
  bool unavailable_ = false;  // A lane could not be opened: the session goes without.
  std::chrono::steady_clock::time_point last_use_;
};

}  // namespace arrayhub::client::detail
