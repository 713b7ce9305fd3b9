// CpuQueues: the CPU backend's queues, the thread's binding to one, and its timestamps: a
// steady-clock reading taken when the queue reaches the call. A host call runs on the calling
// thread as a critical section over its queue (host_queue.h), so once it holds the queue everything
// enqueued before it has run, and nothing after it has started: the reading at the call is the time
// the queue reached the point.
#include <chrono>
#include <memory>

#include "server/backend/host/host_parts.h"
#include "server/backend/host/host_queue.h"
#include "server/common/status_macros.h"

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

absl::StatusOr<std::shared_ptr<WorkQueue>> CpuQueues::NewQueue(std::string_view) {
  return std::make_shared<HostQueue>();
}

std::unique_ptr<QueueBinding> CpuQueues::Bind(std::shared_ptr<WorkQueue> queue, std::string_view) {
  // The backend's default queue, for calls no session made (the spiller's, the backend's own
  // tests).
  static const auto* const default_queue = new std::shared_ptr<HostQueue>(new HostQueue);
  std::shared_ptr<HostQueue> host_queue =
      queue == nullptr ? *default_queue : std::static_pointer_cast<HostQueue>(std::move(queue));
  return std::make_unique<HostQueueBinding>(std::move(host_queue));
}

absl::Status CpuQueues::Use(QueueBinding& queue, const std::shared_ptr<Buffer>& buffer) {
  AH_ASSIGN_OR_RETURN(HostQueueBinding* const binding, HostBindingOf(queue));
  binding->Borrow(static_cast<const HostQueuedBuffer&>(buffer->backend_buffer()));
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<Timestamp>> CpuQueues::RecordTimestamp(QueueBinding& queue) {
  // Waits for the queue's call in progress, if any.
  AH_ASSIGN_OR_RETURN(const HostCall held, HostCall::Enter(queue));
  return std::make_shared<HostTimestamp>(std::chrono::steady_clock::now());
}

absl::StatusOr<double> CpuQueues::ElapsedMilliseconds(Timestamp& start, Timestamp& end) {
  // Both were made by RecordTimestamp above (Backend's contract: timestamps of this backend).
  const auto elapsed =
      static_cast<HostTimestamp&>(end).at() - static_cast<HostTimestamp&>(start).at();
  return std::chrono::duration<double, std::milli>(elapsed).count();
}

}  // namespace arrayhub
