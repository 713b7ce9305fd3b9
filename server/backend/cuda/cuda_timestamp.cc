// The CUDA backend's timestamps: a CUDA event created with default flags (so that it keeps
// time) and recorded on the session's stream inside the call's critical section, so it lies
// after the work the session enqueued before it (and after the fences with the queues it
// borrowed from) and before what it enqueues next. Recording waits for nothing; measuring
// waits for both events (cudaEventSynchronize), then asks cudaEventElapsedTime.
#include <cuda_runtime_api.h>
#include <spdlog/spdlog.h>

#include <memory>

#include "server/backend/cuda/cuda_backend.h"
#include "server/backend/cuda/cuda_check.h"
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

absl::StatusOr<std::shared_ptr<Timestamp>> CudaBackend::RecordTimestamp() {
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

absl::StatusOr<double> CudaBackend::ElapsedMilliseconds(Timestamp& start, Timestamp& end) {
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
