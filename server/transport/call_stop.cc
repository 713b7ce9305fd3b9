#include "server/transport/call_stop.h"

namespace arrayhub {

absl::Status CallStopSignal::Check() const {
  if (drain_.Passed()) {
    return absl::UnavailableError(
        "the server is shutting down: the call was stopped when its drain time "
        "(--drain-seconds) ran out");
  }
  // Asked first: gRPC cancels a call whose deadline passed, and that is the better reason.
  if (context_.deadline() <= std::chrono::system_clock::now()) {
    return absl::DeadlineExceededError("the call's deadline passed; its work was stopped");
  }
  const auto now = std::chrono::steady_clock::now().time_since_epoch();
  if (!cancelled_.load(std::memory_order_relaxed) &&
      now.count() >= next_cancel_poll_.load(std::memory_order_relaxed)) {
    next_cancel_poll_.store((now + kCancelPollInterval).count(), std::memory_order_relaxed);
    if (context_.IsCancelled()) cancelled_.store(true, std::memory_order_relaxed);
  }
  if (cancelled_.load(std::memory_order_relaxed)) {
    return absl::CancelledError(
        "the call was cancelled (by its client, or its connection closed); its work was stopped");
  }
  return absl::OkStatus();
}

}  // namespace arrayhub
