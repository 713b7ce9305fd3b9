#include "server/backend/host/host_queue.h"

#include <algorithm>
#include <functional>

namespace arrayhub {

namespace {

thread_local HostQueueBinding* current_binding = nullptr;
// True while the thread is inside a HostCall: nested calls run under its locks.
thread_local bool in_call = false;

}  // namespace

HostQueueBinding::HostQueueBinding(std::shared_ptr<HostQueue> queue)
    : queue_(std::move(queue)), previous_(current_binding), queues_{queue_} {
  current_binding = this;
}

HostQueueBinding::~HostQueueBinding() { current_binding = previous_; }

void HostQueueBinding::Borrow(const HostQueuedBuffer& buffer) {
  const std::shared_ptr<HostQueue>& home = buffer.home();
  if (home == nullptr || std::find(queues_.begin(), queues_.end(), home) != queues_.end()) return;
  queues_.push_back(home);
}

HostQueueBinding* CurrentHostBinding() { return current_binding; }

std::shared_ptr<HostQueue> CurrentHostQueue() {
  return current_binding == nullptr ? nullptr : current_binding->queue();
}

HostCall::HostCall() {
  if (in_call || current_binding == nullptr) return;
  std::vector<HostQueue*> queues;
  for (const std::shared_ptr<HostQueue>& queue : current_binding->queues()) {
    queues.push_back(queue.get());
  }
  // One global order: whoever holds a queue and waits for another waits only for queues that
  // come later, so no cycle of waits can form.
  std::sort(queues.begin(), queues.end(), std::less<HostQueue*>());
  locks_.reserve(queues.size());
  for (HostQueue* queue : queues) locks_.emplace_back(queue->mutex());
  in_call = true;
  outermost_ = true;
}

HostCall::~HostCall() {
  if (outermost_) in_call = false;
}

}  // namespace arrayhub
