// CudaQueues: a stream per session (cuda_queue.h), the thread's binding to one, and timestamps:
// a CUDA event created with default flags (so that it keeps
// time) and recorded on the session's stream inside the call's critical section, so it lies
// after the work the session enqueued before it (and after the fences with the queues it
// borrowed from) and before what it enqueues next. Recording waits for nothing; measuring
// waits for both events (cudaEventSynchronize), then asks cudaEventElapsedTime.
#include <cuda_runtime_api.h>
#include <spdlog/spdlog.h>

#include <memory>

#include "server/backend/cuda/cuda_check.h"
#include "server/backend/cuda/cuda_device_state.h"
#include "server/backend/cuda/cuda_parts.h"
#include "server/backend/cuda/cuda_queue.h"
#include "server/common/status_macros.h"

namespace arrayhub {
namespace {

class CudaTimestamp final : public Timestamp {
 public:
  CudaTimestamp(int device, cudaEvent_t event) : device_(device), event_(event) {}
  CudaTimestamp(const CudaTimestamp&) = delete;
  CudaTimestamp& operator=(const CudaTimestamp&) = delete;
  // An event destroyed before the stream reaches it is released once it does. The last owner
  // may be any thread (a session's end, a re-record), with another device current.
  ~CudaTimestamp() override {
    for (const absl::Status& status : {CudaStatus(cudaSetDevice(device_), "cudaSetDevice"),
                                       CudaStatus(cudaEventDestroy(event_), "cudaEventDestroy")}) {
      if (!status.ok()) spdlog::error("cuda timestamp: {}", status.ToString());
    }
  }

  absl::StatusOr<bool> Reached() override {
    AH_CUDA_RETURN_IF_ERROR(cudaSetDevice(device_));
    const cudaError_t state = cudaEventQuery(event_);
    if (state == cudaErrorNotReady) {
      (void)cudaGetLastError();  // Not an error: clear it, as CudaStatus does for errors.
      return false;
    }
    AH_CUDA_RETURN_IF_ERROR(state);
    return true;
  }

  absl::Status Wait() override {
    AH_CUDA_RETURN_IF_ERROR(cudaSetDevice(device_));
    AH_CUDA_RETURN_IF_ERROR(cudaEventSynchronize(event_));
    return absl::OkStatus();
  }

  cudaEvent_t event() const { return event_; }

 private:
  const int device_;
  const cudaEvent_t event_;
};

}  // namespace

CudaQueues::CudaQueues(std::shared_ptr<CudaDeviceState> state)
    : OnCudaDevice(state->device), state_(std::move(state)) {}

absl::StatusOr<std::shared_ptr<WorkQueue>> CudaQueues::NewQueue(std::string_view memory_owner) {
  AH_RETURN_IF_ERROR(Activate());
  cudaMemPool_t pool = nullptr;  // The default pool.
  if (state_->exportable != nullptr) {
    // A tenant whose pool cannot be made still computes, from the default pool; only the
    // export of its memory is refused then (ExportablePools::IdFor says why).
    absl::StatusOr<cudaMemPool_t> own = state_->exportable->ForOwner(memory_owner);
    if (own.ok()) {
      pool = *own;
    } else {
      spdlog::warn("no exportable memory pool for tenant '{}': {}", memory_owner,
                   own.status().ToString());
    }
  }
  return CudaQueue::Create(state_->device, pool);
}

std::unique_ptr<QueueBinding> CudaQueues::Bind(std::shared_ptr<WorkQueue> queue,
                                               std::string_view label) {
  // Queues come from NewQueue; null asks for the device's default queue.
  std::shared_ptr<CudaQueue> cuda_queue = std::dynamic_pointer_cast<CudaQueue>(std::move(queue));
  if (cuda_queue == nullptr) {
    absl::StatusOr<std::shared_ptr<CudaQueue>> fallback = CudaQueue::DeviceDefault(state_->device);
    if (!fallback.ok()) {
      // Unbound, the calls go to the default queue all the same (CurrentQueue); only the
      // label is lost.
      spdlog::error("cuda backend: {}", fallback.status().ToString());
      return std::make_unique<QueueBinding>();
    }
    cuda_queue = *std::move(fallback);
  }
  if (const CudaQueueBinding* bound = CurrentBinding();
      bound != nullptr && bound->queue() == cuda_queue) {
    return std::make_unique<QueueBinding>();
  }
  return std::make_unique<CudaQueueBinding>(std::move(cuda_queue), label);
}

absl::Status CudaQueues::Use(const std::shared_ptr<Buffer>& buffer) {
  CudaQueueBinding* binding = CurrentBinding();
  if (binding == nullptr) return absl::OkStatus();
  // Every buffer this backend hands out is a CudaQueuedBuffer, usually behind core's wrapper.
  const auto* queued = dynamic_cast<const CudaQueuedBuffer*>(&buffer->backend_buffer());
  if (queued != nullptr) binding->Borrow(*queued);
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<Timestamp>> CudaQueues::RecordTimestamp() {
  AH_ASSIGN_OR_RETURN(const QueueSection section, Enter());
  AH_ASSIGN_OR_RETURN(cudaStream_t stream, CurrentStream());
  int device = 0;
  AH_CUDA_RETURN_IF_ERROR(cudaGetDevice(&device));
  cudaEvent_t event = nullptr;
  // Default flags: cudaEventDisableTiming would leave cudaEventElapsedTime nothing to read.
  AH_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&event, cudaEventDefault));
  auto timestamp = std::make_shared<CudaTimestamp>(device, event);  // Destroys it on failure.
  AH_CUDA_RETURN_IF_ERROR(cudaEventRecord(event, stream));
  return timestamp;
}

absl::StatusOr<double> CudaQueues::ElapsedMilliseconds(Timestamp& start, Timestamp& end) {
  AH_RETURN_IF_ERROR(Activate());
  AH_RETURN_IF_ERROR(start.Wait());
  AH_RETURN_IF_ERROR(end.Wait());
  // Both were made by RecordTimestamp above (Backend's contract: timestamps of this backend).
  float milliseconds = 0;
  AH_CUDA_RETURN_IF_ERROR(cudaEventElapsedTime(&milliseconds,
                                               static_cast<CudaTimestamp&>(start).event(),
                                               static_cast<CudaTimestamp&>(end).event()));
  return static_cast<double>(milliseconds);
}

}  // namespace arrayhub
