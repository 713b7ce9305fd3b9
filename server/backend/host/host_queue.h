// The CPU backend's work queues. Its calls run on the calling thread, so a queue orders work
// by mutual exclusion rather than by a stream: every backend call is a critical section over
// the bound queue and the home queues of the buffers the binding borrowed (Queues::Use). That
// gives the CUDA backend's model (docs/execution.md): the calls of one session run one at a
// time, in the order their threads reach them, and a call that uses another session's array
// runs while that session runs nothing, so neither sees the other's work half done.
//
// A call takes all of its queues at once, in one global order (by address), and holds none
// while it waits for another: two sessions using each other's arrays cannot deadlock. A
// backend call made inside another (a fused chain's steps) runs under the outer call's locks.
#pragma once

#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "server/backend/buffer.h"
#include "server/backend/work_queue.h"

namespace arrayhub {

class HostQueue final : public WorkQueue {
 public:
  std::mutex& mutex() { return mutex_; }

 private:
  std::mutex mutex_;
};

// A host buffer remembers the queue it was allocated on.
class HostQueuedBuffer : public Buffer {
 public:
  const std::shared_ptr<HostQueue>& home() const { return home_; }

 protected:
  HostQueuedBuffer(void* data, int64_t size, std::shared_ptr<HostQueue> home)
      : Buffer(data, size), home_(std::move(home)) {}

 private:
  std::shared_ptr<HostQueue> home_;
};

// One caller's hold on a queue (CpuQueues::Bind). Serves one thread at a time (work_queue.h).
class HostQueueBinding final : public QueueBinding {
 public:
  explicit HostQueueBinding(std::shared_ptr<HostQueue> queue);

  const std::shared_ptr<HostQueue>& queue() const { return queue_; }
  // The bound calls will use `buffer`: from now on each of them also holds its home queue.
  void Borrow(const HostQueuedBuffer& buffer);

  // The queues a call of this binding holds: its own and every borrowed home, each once.
  const std::vector<std::shared_ptr<HostQueue>>& queues() const { return queues_; }

 private:
  friend class HostCall;

  std::shared_ptr<HostQueue> queue_;
  std::vector<std::shared_ptr<HostQueue>> queues_;
  bool in_call_ = false;  // A HostCall of this binding holds its queues now.
};

// `binding` as the host backend's: INTERNAL when it is another backend's or none (OwnBinding).
inline absl::StatusOr<HostQueueBinding*> HostBindingOf(QueueBinding& binding) {
  return OwnBinding<HostQueueBinding>(binding, "host");
}

// One backend call's critical section: entered first in every HostBackend entry point (and
// every HostRegion copy) that reads or writes buffers. Locks the binding's queues for the
// call's length; nothing when an outer call of the same binding holds them already.
class HostCall {
 public:
  static absl::StatusOr<HostCall> Enter(QueueBinding& binding);
  HostCall(HostCall&& other) noexcept;
  HostCall& operator=(HostCall&&) = delete;
  ~HostCall();

  // The queue new buffers of the call belong to.
  const std::shared_ptr<HostQueue>& queue() const { return binding_->queue(); }

 private:
  explicit HostCall(HostQueueBinding& binding) : binding_(&binding) {}

  HostQueueBinding* binding_;
  std::vector<std::unique_lock<std::mutex>> locks_;
  bool outermost_ = false;
};

}  // namespace arrayhub
