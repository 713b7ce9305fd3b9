#include "server/backend/host/host_queue.h"

#include <algorithm>
#include <functional>
#include <utility>

#include "server/common/status_macros.h"

namespace arrayhub {

HostQueueBinding::HostQueueBinding(std::shared_ptr<HostQueue> queue)
    : queue_(std::move(queue)), queues_{queue_} {}

void HostQueueBinding::Borrow(const HostQueuedBuffer& buffer) {
  const std::shared_ptr<HostQueue>& home = buffer.home();
  if (std::find(queues_.begin(), queues_.end(), home) != queues_.end()) return;
  queues_.push_back(home);
}

absl::StatusOr<HostCall> HostCall::Enter(QueueBinding& binding) {
  AH_ASSIGN_OR_RETURN(HostQueueBinding* const host, HostBindingOf(binding));
  HostCall call(*host);
  if (host->in_call_) return call;
  std::vector<HostQueue*> queues;
  for (const std::shared_ptr<HostQueue>& queue : host->queues()) queues.push_back(queue.get());
  // One global order: whoever holds a queue and waits for another waits only for queues that
  // come later, so no cycle of waits can form.
  std::sort(queues.begin(), queues.end(), std::less<HostQueue*>());
  call.locks_.reserve(queues.size());
  for (HostQueue* queue : queues) call.locks_.emplace_back(queue->mutex());
  host->in_call_ = true;
  call.outermost_ = true;
  return call;
}

HostCall::HostCall(HostCall&& other) noexcept
    : binding_(other.binding_),
      locks_(std::move(other.locks_)),
      outermost_(std::exchange(other.outermost_, false)) {}

HostCall::~HostCall() {
  if (outermost_) binding_->in_call_ = false;
}

}  // namespace arrayhub
