// The CUDA backend's work queues: a stream per session, the calling thread's binding to one,
// and the critical sections that order a call after, and before, the other queues whose buffers
// it uses.
//
// Every backend entry point enters a QueueSection first, and that is where the thread's binding
// is read (BoundQueue, which Allocate and a host region's copy also call at their entry, for the
// queue's pool and device). The section names the queue the call's work goes to: the bound one,
// or the device's default queue when the thread bound none (the backend's own tests). The code
// below an entry point is handed that queue, or its stream, as an argument. A buffer belongs to
// the queue it was allocated on (its "home"): it is freed on that stream, so the memory returns
// to the pool only after the work queued before the free. A call that uses buffers of other
// queues (CudaQueueBinding::Borrow) is fenced against them both ways, as one critical section
// (QueueSection), so that no work of theirs runs between its start and end.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "server/backend/buffer.h"
#include "server/backend/recent_calls.h"
#include "server/backend/work_queue.h"

namespace arrayhub {

class CudaQueue final : public WorkQueue {
 public:
  // A non-blocking stream on `device` (the current device must be `device`) whose allocations
  // come from `pool` (null: the device's default pool).
  static absl::StatusOr<std::shared_ptr<CudaQueue>> Create(int device, cudaMemPool_t pool);
  // The queue of a device for work no session bound; lives as long as the process.
  static absl::StatusOr<std::shared_ptr<CudaQueue>> DeviceDefault(int device);

  // Work still queued completes; the stream's resources go after it.
  ~CudaQueue() override;

  cudaStream_t stream() const { return stream_; }
  int device() const { return device_; }
  cudaMemPool_t pool() const { return pool_; }

  // Remembers that a call labelled `label` enqueued work, for the report of a device error.
  void NoteCall(std::string_view label);
  // Waits for the queue's work. A failure names the calls enqueued since the last wait.
  absl::Status Synchronize();
  // The workspace of the queue's reductions (kReduceWorkspaceBytes, see cuda_reduce.cuh):
  // made and zeroed in the queue's order at the first use, freed after its work.
  absl::StatusOr<void*> ReductionWorkspace();

 private:
  friend class QueueSection;
  friend class QueueGroupSection;

  CudaQueue(int device, cudaStream_t stream, cudaEvent_t mark, cudaMemPool_t pool)
      : device_(device), stream_(stream), mark_(mark), pool_(pool) {}

  const int device_;
  const cudaStream_t stream_;
  // Held by the QueueSection of a call that enqueues on the queue or fences with it; `mark_`
  // is recorded on the stream (and waited for by another) only while it is held.
  absl::Mutex section_mutex_;
  const cudaEvent_t mark_;
  const cudaMemPool_t pool_;
  absl::Mutex mutex_;
  RecentCalls pending_calls_ ABSL_GUARDED_BY(mutex_);  // Since the last wait.
  void* reduction_workspace_ ABSL_GUARDED_BY(mutex_) = nullptr;
};

// A device buffer of the CUDA backend with the queue it belongs to.
class CudaQueuedBuffer : public Buffer {
 public:
  const std::shared_ptr<CudaQueue>& home() const { return home_; }

 protected:
  CudaQueuedBuffer(void* data, int64_t size, std::shared_ptr<CudaQueue> home)
      : Buffer(data, size), home_(std::move(home)) {}

 private:
  std::shared_ptr<CudaQueue> home_;
};

// Makes the calling thread's CUDA work go to one queue while it lives; restores the thread's
// previous binding at the end.
class CudaQueueBinding final : public QueueBinding {
 public:
  // `queue` must not be the one already bound (Bind hands out an empty binding then).
  CudaQueueBinding(std::shared_ptr<CudaQueue> queue, std::string_view label);
  ~CudaQueueBinding() override;

  const std::shared_ptr<CudaQueue>& queue() const { return queue_; }
  // What the bound calls serve, for reports.
  const std::string& label() const { return label_; }

  // The bound work is about to use `buffer`: from now on, each call of the binding is a
  // critical section over the buffer's home queue too (see QueueSection).
  void Borrow(const CudaQueuedBuffer& buffer);
  // The homes of the buffers borrowed so far, other than the bound queue, once each.
  const std::vector<std::shared_ptr<CudaQueue>>& homes() const { return homes_; }

 private:
  std::shared_ptr<CudaQueue> queue_;
  std::string label_;
  CudaQueueBinding* previous_;
  std::vector<std::shared_ptr<CudaQueue>> homes_;
};

// The critical section of one call over the queues it touches: for each member, the queue its
// work goes to and the homes of the buffers that work uses (other than that queue). Entering
// takes the section mutexes of all those queues at once, in the order of their addresses (so
// two calls never wait for each other in a cycle), and makes each member's stream wait for the
// work each of its homes has enqueued so far; leaving makes each home wait for its member's
// stream, and lets go. So nothing another queue enqueues can run between the start and the end
// of a call that reads or writes that queue's buffers, and a home's later work (its writes, its
// frees) runs after the call's. The host waits for nothing but the mutexes; events do the
// ordering on the device.
//
// Several members are one call whose work goes to several queues at once (a collective: a
// queue on each device, whose parts run together); entered from no backend call and no binding
// (core calls a collective unbound). Every other call has one member: see QueueSection.
class QueueGroupSection {
 public:
  struct Member {
    std::shared_ptr<CudaQueue> queue;
    std::vector<std::shared_ptr<CudaQueue>> homes;  // Of the buffers it uses, but its own.
  };
  static absl::StatusOr<QueueGroupSection> Enter(std::vector<Member> members);
  QueueGroupSection(QueueGroupSection&& other) noexcept;
  QueueGroupSection& operator=(QueueGroupSection&&) = delete;
  ~QueueGroupSection();

 private:
  QueueGroupSection() = default;

  std::vector<Member> members_;
  std::vector<CudaQueue*> locked_;  // Every queue of the members, once each, in locking order.
};

// The critical section of a backend call on the calling thread: a QueueGroupSection of one
// member, the queue its work goes to (BoundQueue()) with the homes of every buffer the
// thread's binding has borrowed so far.
//
// The first line of every backend entry point that enqueues work or reads buffers; what the
// call enqueues goes to queue().stream(), handed down to the code that enqueues it. A call the
// backend makes from inside another on the same thread (the thread's section depth above 0)
// locks and fences nothing: the outer section already covers its queues.
class QueueSection {
 public:
  static absl::StatusOr<QueueSection> Enter();
  QueueSection(QueueSection&& other) noexcept;
  QueueSection& operator=(QueueSection&&) = delete;
  ~QueueSection();

  // The queue the call's work goes to.
  const std::shared_ptr<CudaQueue>& queue() const { return queue_; }
  cudaStream_t stream() const { return queue_->stream(); }

 private:
  QueueSection() = default;

  bool counted_ = false;  // Holds one level of the thread's depth.
  std::shared_ptr<CudaQueue> queue_;
  std::optional<QueueGroupSection> queues_;  // The outermost section's; none when nested.
};

// The innermost binding of the calling thread, or null: what a report of a device error names
// (device_loss.cc).
CudaQueueBinding* CurrentBinding();
// The queue the thread's binding names, else the current device's default queue. Read at a
// backend call's entry (QueueSection::Enter, CudaMemory::Allocate), never below it.
absl::StatusOr<std::shared_ptr<CudaQueue>> BoundQueue();

}  // namespace arrayhub
