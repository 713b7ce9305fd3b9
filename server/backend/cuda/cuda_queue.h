// The CUDA backend's work queues: a stream per session, the calling thread's binding to one,
// and the events that order a queue after another where they share a buffer.
//
// Every CUDA call of the backend goes to CurrentStream(): the stream of the queue the thread
// bound, or the device's default queue when it bound none (the backend's own tests). A buffer
// belongs to the queue it was allocated on (its "home"): it is freed on that stream, so the
// memory returns to the pool only after the work queued before the free. Work of another queue
// that uses the buffer is fenced both ways (see CudaQueueBinding::Borrow).
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "server/backend/buffer.h"
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

 private:
  CudaQueue(int device, cudaStream_t stream, cudaMemPool_t pool)
      : device_(device), stream_(stream), pool_(pool) {}

  const int device_;
  const cudaStream_t stream_;
  const cudaMemPool_t pool_;
  absl::Mutex mutex_;
  std::vector<std::string> pending_calls_ ABSL_GUARDED_BY(mutex_);  // The latest few.
  int64_t pending_count_ ABSL_GUARDED_BY(mutex_) = 0;
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

  // The bound work is about to use `buffer` of another queue: the bound stream waits for the
  // work enqueued so far on the buffer's home, and at the end of the binding the home waits
  // for the bound work, so that its later writes and the buffer's free come after. The
  // binding holds the buffer until then.
  absl::Status Borrow(std::shared_ptr<const CudaQueuedBuffer> buffer);

 private:
  std::shared_ptr<CudaQueue> queue_;
  CudaQueueBinding* previous_;
  std::vector<std::shared_ptr<const CudaQueuedBuffer>> borrowed_;
};

// The innermost binding of the calling thread, or null.
CudaQueueBinding* CurrentBinding();
// The queue the calling thread's work goes to: the bound one, else the current device's
// default queue.
absl::StatusOr<std::shared_ptr<CudaQueue>> CurrentQueue();
// CurrentQueue()'s stream.
absl::StatusOr<cudaStream_t> CurrentStream();
// Waits for CurrentQueue(): where the results of a call are read back to the host.
absl::Status SynchronizeCurrentQueue();

}  // namespace arrayhub
