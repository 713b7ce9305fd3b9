// The CPU backend's timestamps: a steady-clock reading taken when the queue reaches the call.
// A host call runs on the calling thread as a critical section over its queue (host_queue.h),
// so once it holds the queue everything enqueued before it has run, and nothing after it has
// started: the reading at the call is the time the queue reached the point.
#include <chrono>
#include <memory>

#include "server/backend/host/host_backend.h"
#include "server/backend/host/host_queue.h"

namespace arrayhub {
namespace {

class HostTimestamp final : public Timestamp {
 public:
  explicit HostTimestamp(std::chrono::steady_clock::time_point at) : at_(at) {}

  absl::StatusOr<bool> Reached() override { return true; }
  absl::Status Wait() override { return absl::OkStatus(); }

  std::chrono::steady_clock::time_point at() const { return at_; }

 private:
  const std::chrono::steady_clock::time_point at_;
};

}  // namespace

absl::StatusOr<std::shared_ptr<Timestamp>> HostBackend::RecordTimestamp() {
  const HostCall held;  // Waits for the queue's call in progress, if any.
  return std::make_shared<HostTimestamp>(std::chrono::steady_clock::now());
}

absl::StatusOr<double> HostBackend::ElapsedMilliseconds(Timestamp& start, Timestamp& end) {
  // Both were made by RecordTimestamp above (Backend's contract: timestamps of this backend).
  const auto elapsed =
      static_cast<HostTimestamp&>(end).at() - static_cast<HostTimestamp&>(start).at();
  return std::chrono::duration<double, std::milli>(elapsed).count();
}

}  // namespace arrayhub
