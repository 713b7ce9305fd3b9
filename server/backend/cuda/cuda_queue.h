// The CUDA backend's work queues: a stream per session, the bindings to them that its calls are
// handed, and the critical sections that order a call after, and before, the other queues whose
// buffers it uses.
//
// Every backend entry point is handed a binding (its first argument) and enters a QueueSection
// of it first. The section names the queue the call's work goes to, and the code below the
// entry point is handed that queue, or its stream, as an argument. A buffer belongs to the
// queue it was allocated on (its "home"): it is freed on that stream, so the memory returns to
// the pool only after the work queued before the free. A call that uses buffers of other queues
// (CudaQueueBinding::Borrow) is fenced against them both ways, as one critical section
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

// One caller's hold on a queue: its calls' work goes there, fenced against the homes of the
// buffers it borrowed. Serves one thread at a time (work_queue.h).
class CudaQueueBinding final : public QueueBinding {
 public:
  CudaQueueBinding(std::shared_ptr<CudaQueue> queue, std::string_view label);

  const std::shared_ptr<CudaQueue>& queue() const { return queue_; }
  // What the bound calls serve, for reports.
  const std::string& label() const { return label_; }

  // The bound work is about to use `buffer`: from now on, each call of the binding is a
  // critical section over the buffer's home queue too (see QueueSection).
  void Borrow(const CudaQueuedBuffer& buffer);
  // The homes of the buffers borrowed so far, other than the bound queue, once each.
  const std::vector<std::shared_ptr<CudaQueue>>& homes() const { return homes_; }

 private:
  friend class QueueSection;

  std::shared_ptr<CudaQueue> queue_;
  std::string label_;
  std::vector<std::shared_ptr<CudaQueue>> homes_;
  // QueueSections of this binding open now: only the outermost locks and fences.
  int open_sections_ = 0;
};

// `binding` as a CUDA binding: INTERNAL when it is another backend's or none (OwnBinding).
inline absl::StatusOr<CudaQueueBinding*> CudaBindingOf(QueueBinding& binding) {
  return OwnBinding<CudaQueueBinding>(binding, "CUDA");
}

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

// The critical section of a backend call: a QueueGroupSection of one member, the queue of the
// call's binding with the homes of every buffer the binding has borrowed so far.
//
// The first line of every backend entry point that enqueues work or reads buffers; what the
// call enqueues goes to queue().stream(), handed down to the code that enqueues it. A call the
// backend makes from inside another with the same binding (a section of it open already) locks
// and fences nothing: the outer section already covers its queues.
class QueueSection {
 public:
  static absl::StatusOr<QueueSection> Enter(CudaQueueBinding& binding);
  QueueSection(QueueSection&& other) noexcept;
  QueueSection& operator=(QueueSection&&) = delete;
  ~QueueSection();

  // The queue the call's work goes to.
  const std::shared_ptr<CudaQueue>& queue() const { return binding_->queue(); }
  cudaStream_t stream() const { return queue()->stream(); }

 private:
  QueueSection() = default;

  CudaQueueBinding* binding_ = nullptr;         // Holds one of its open sections; null once moved.
  const std::string* served_before_ = nullptr;  // The thread's ServedLabel() before this one.
  std::optional<QueueGroupSection> queues_;     // The outermost section's; none when nested.
};

// The label of the binding whose outermost QueueSection the calling thread is in, or null:
// what a report of a device error names (device_loss.cc), where the error is found deep
// below the call. Nothing reads the call's queue from it.
const std::string* ServedLabel();

}  // namespace arrayhub
