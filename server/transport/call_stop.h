// The stop signal of one gRPC call (server/common/stop_signal.h): the engine and the backends
// ask it between steps and chunks, and it answers from what gRPC knows of the call and from
// the server's drain.
#pragma once

#include <grpcpp/server_context.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>

#include "server/common/stop_signal.h"

namespace arrayhub {

// When the server's drain runs out: unset until a shutdown begins.
class DrainDeadline {
 public:
  void Set(std::chrono::steady_clock::time_point deadline) {
    nanoseconds_.store(deadline.time_since_epoch().count(), std::memory_order_relaxed);
  }
  bool Passed() const {
    return std::chrono::steady_clock::now().time_since_epoch().count() >=
           nanoseconds_.load(std::memory_order_relaxed);
  }

 private:
  using Rep = std::chrono::steady_clock::duration::rep;
  std::atomic<Rep> nanoseconds_{std::numeric_limits<Rep>::max()};
};

class CallStopSignal final : public StopSignal {
 public:
  // Both must outlive the signal: the call's context and the server's drain.
  CallStopSignal(const grpc::ServerContextBase& context, const DrainDeadline& drain)
      : context_(context), drain_(drain) {}

  // UNAVAILABLE once the drain ran out (a client may retry on another server), else
  // DEADLINE_EXCEEDED once the call's deadline passed, else CANCELLED once gRPC knows the
  // call ended otherwise (the client cancelled it or its connection went).
  absl::Status Check() const override;

 private:
  // IsCancelled polls the call's completion queue, a wait in the kernel that cost about 30 us
  // a time on the synchronous server: a Batch that asked before each of its 256 ops spent most
  // of its time there, and once a millisecond was still 3% of a busy Batch's (gperftools on the
  // H100). So gRPC is asked at most once in 5 ms, a delay no client notices in a cancellation,
  // and a cancellation once seen is kept.
  static constexpr std::chrono::steady_clock::duration kCancelPollInterval =
      std::chrono::milliseconds(5);

  const grpc::ServerContextBase& context_;
  const DrainDeadline& drain_;
  mutable std::atomic<std::chrono::steady_clock::duration::rep> next_cancel_poll_{0};
  mutable std::atomic<bool> cancelled_{false};
};

}  // namespace arrayhub
