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

#include "server/backend/buffer.h"
#include "server/backend/work_queue.h"

namespace arrayhub {

class HostQueue final : public WorkQueue {
 public:
  std::mutex& mutex() { return mutex_; }

 private:
  std::mutex mutex_;
};

// A host buffer remembers the queue it was allocated on (null: allocated with none bound).
class HostQueuedBuffer : public Buffer {
 public:
  const std::shared_ptr<HostQueue>& home() const { return home_; }

 protected:
  HostQueuedBuffer(void* data, int64_t size, std::shared_ptr<HostQueue> home)
      : Buffer(data, size), home_(std::move(home)) {}

 private:
  std::shared_ptr<HostQueue> home_;
};

// Makes the calling thread's backend calls run on `queue` while it lives (CpuQueues::Bind);
// restores the thread's previous binding at the end.
class HostQueueBinding final : public QueueBinding {
 public:
  explicit HostQueueBinding(std::shared_ptr<HostQueue> queue);
  ~HostQueueBinding() override;

  const std::shared_ptr<HostQueue>& queue() const { return queue_; }
  // The bound calls will use `buffer`: from now on each of them also holds its home queue.
  void Borrow(const HostQueuedBuffer& buffer);

  // The queues a call of this binding holds: its own and every borrowed home, each once.
  const std::vector<std::shared_ptr<HostQueue>>& queues() const { return queues_; }

 private:
  std::shared_ptr<HostQueue> queue_;
  HostQueueBinding* previous_;
  std::vector<std::shared_ptr<HostQueue>> queues_;
};

// The innermost binding of the calling thread, or null.
HostQueueBinding* CurrentHostBinding();
// The queue new buffers of the calling thread belong to: the bound one, or null.
std::shared_ptr<HostQueue> CurrentHostQueue();

// One backend call's critical section: declared first in every HostBackend entry point (and
// every HostRegion copy) that reads or writes buffers. Locks the current binding's queues for
// the call's length; nothing when no queue is bound or an outer call holds them already.
class HostCall {
 public:
  HostCall();
  ~HostCall();
  HostCall(const HostCall&) = delete;
  HostCall& operator=(const HostCall&) = delete;

 private:
  std::vector<std::unique_lock<std::mutex>> locks_;
  bool outermost_ = false;
};

}  // namespace arrayhub
