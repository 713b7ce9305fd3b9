// CudaQueues: a stream per session (cuda_queue.h), the thread's binding to one, and timestamps:
// a CUDA event with default flags (so that it keeps time; reused, see IdleEvents) and recorded on
// the session's stream inside the call's critical section, so it lies after the work the session
// enqueued before it (and after the fences with the queues it borrowed from) and before what it
// enqueues next. Recording waits for nothing; measuring waits for both events
// (cudaEventSynchronize), then asks cudaEventElapsedTime.
#include <cuda_runtime_api.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "server/backend/cuda/cuda_check.h"
#include "server/backend/cuda/cuda_device_state.h"
#include "server/backend/cuda/cuda_parts.h"
#include "server/backend/cuda/cuda_queue.h"
#include "server/common/status_macros.h"

namespace arrayhub {
namespace {

// Events of timestamps that are gone, per device, for the next records. Creating and destroying
// one per record costs the host microseconds each time, and the destroy of the event a record
// replaces lands between a client's start event and the work it times (docs/gpu-runs.md,
// 2026-11-27 15:47 UTC). Recording an event again overwrites what it captured before, which no
// one reads once its timestamp is gone.
class IdleEvents {
 public:
  static constexpr size_t kMaxPerDevice = 256;

  // An idle event of the current device `device`, or a new one.
  static absl::StatusOr<cudaEvent_t> Take(int device) {
    {
      IdleEvents& idle = Instance();
      absl::MutexLock lock(&idle.mutex_);
      if (auto found = idle.events_.find(device);
          found != idle.events_.end() && !found->second.empty()) {
        const cudaEvent_t event = found->second.back();
        found->second.pop_back();
        return event;
      }
    }
    cudaEvent_t event = nullptr;
    // Default flags: cudaEventDisableTiming would leave cudaEventElapsedTime nothing to read.
    AH_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&event, cudaEventDefault));
    return event;
  }

  static void Give(int device, cudaEvent_t event) {
    {
      IdleEvents& idle = Instance();
      absl::MutexLock lock(&idle.mutex_);
      std::vector<cudaEvent_t>& events = idle.events_[device];
      if (events.size() < kMaxPerDevice) {
        events.push_back(event);
        return;
      }
    }
    // An event destroyed before the stream reaches it is released once it does.
    for (const absl::Status& status : {CudaStatus(cudaSetDevice(device), "cudaSetDevice"),
                                       CudaStatus(cudaEventDestroy(event), "cudaEventDestroy")}) {
      if (!status.ok()) spdlog::error("cuda timestamp: {}", status.ToString());
    }
  }

 private:
  // Never destroyed: timestamps may go during static destruction.
  static IdleEvents& Instance() {
    static auto* const idle = new IdleEvents;
    return *idle;
  }

  absl::Mutex mutex_;
  absl::flat_hash_map<int, std::vector<cudaEvent_t>> events_ ABSL_GUARDED_BY(mutex_);
};

class CudaTimestamp final : public Timestamp {
 public:
  CudaTimestamp(int device, cudaEvent_t event) : device_(device), event_(event) {}
  CudaTimestamp(const CudaTimestamp&) = delete;
  CudaTimestamp& operator=(const CudaTimestamp&) = delete;
  // The event goes back to IdleEvents (which destroys it when full). The last owner may be
  // any thread (a session's end, a re-record), with another device current.
  ~CudaTimestamp() override { IdleEvents::Give(device_, event_); }

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
    absl::StatusOr<std::shared_ptr<CudaQueue>> default_queue =
        CudaQueue::DeviceDefault(state_->device);
    if (!default_queue.ok()) {
      // A binding of no queue: every call handed it is refused (work_queue.h).
      spdlog::error("cuda backend: {}", default_queue.status().ToString());
      return std::make_unique<QueueBinding>();
    }
    cuda_queue = *std::move(default_queue);
  }
  return std::make_unique<CudaQueueBinding>(std::move(cuda_queue), label);
}

absl::Status CudaQueues::Use(QueueBinding& queue, const std::shared_ptr<Buffer>& buffer) {
  AH_ASSIGN_OR_RETURN(CudaQueueBinding* const binding, CudaBindingOf(queue));
  // Every buffer this backend hands out is a CudaQueuedBuffer, usually behind core's wrapper.
  const auto* queued = dynamic_cast<const CudaQueuedBuffer*>(&buffer->backend_buffer());
  if (queued != nullptr) binding->Borrow(*queued);
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<Timestamp>> CudaQueues::RecordTimestamp(QueueBinding& queue) {
  AH_ASSIGN_OR_RETURN(const QueueSection section, Enter(queue));
  const cudaStream_t stream = section.stream();
  int device = 0;
  AH_CUDA_RETURN_IF_ERROR(cudaGetDevice(&device));
  AH_ASSIGN_OR_RETURN(const cudaEvent_t event, IdleEvents::Take(device));
  auto timestamp = std::make_shared<CudaTimestamp>(device, event);  // Gives it back on failure.
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
