#include "server/backend/cuda/cuda_queue.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>

#include "absl/strings/str_join.h"
#include "server/backend/cuda/cuda_check.h"
#include "server/core/status_macros.h"

namespace arrayhub {

namespace {

// How many call labels a queue keeps for an error report; older ones are only counted.
constexpr size_t kRememberedCalls = 8;

thread_local CudaQueueBinding* current_binding = nullptr;

void LogIfError(const absl::Status& status) {
  if (!status.ok()) spdlog::error("cuda queue: {}", status.ToString());
}

// Makes `waiter` wait for the work enqueued on `signaller` so far (GPU-side; the host goes on).
absl::Status WaitFor(cudaStream_t waiter, cudaStream_t signaller) {
  cudaEvent_t event = nullptr;
  AH_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  // An event destroyed while a wait on it is pending is released once it completes.
  const absl::Status status = [&]() -> absl::Status {
    AH_CUDA_RETURN_IF_ERROR(cudaEventRecord(event, signaller));
    AH_CUDA_RETURN_IF_ERROR(cudaStreamWaitEvent(waiter, event, 0));
    return absl::OkStatus();
  }();
  AH_CUDA_RETURN_IF_ERROR(cudaEventDestroy(event));
  return status;
}

}  // namespace

absl::StatusOr<std::shared_ptr<CudaQueue>> CudaQueue::Create(int device, cudaMemPool_t pool) {
  cudaStream_t stream = nullptr;
  AH_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  return std::shared_ptr<CudaQueue>(new CudaQueue(device, stream, pool));
}

absl::StatusOr<std::shared_ptr<CudaQueue>> CudaQueue::DeviceDefault(int device) {
  // Never destroyed: buffers freed during static destruction would find it gone.
  static absl::Mutex mutex;
  static auto* const queues = new std::array<std::shared_ptr<CudaQueue>, 64>;
  if (device < 0 || device >= static_cast<int>(queues->size())) {
    return absl::OutOfRangeError(fmt::format("CUDA device ordinal {} is too large", device));
  }
  absl::MutexLock lock(&mutex);
  std::shared_ptr<CudaQueue>& queue = (*queues)[device];
  if (queue == nullptr) {
    AH_ASSIGN_OR_RETURN(queue, Create(device, /*pool=*/nullptr));
  }
  return queue;
}

CudaQueue::~CudaQueue() {
  LogIfError(CudaStatus(cudaSetDevice(device_), "cudaSetDevice"));
  LogIfError(CudaStatus(cudaStreamDestroy(stream_), "cudaStreamDestroy"));
}

void CudaQueue::NoteCall(std::string_view label) {
  absl::MutexLock lock(&mutex_);
  ++pending_count_;
  if (pending_calls_.size() == kRememberedCalls) pending_calls_.erase(pending_calls_.begin());
  pending_calls_.emplace_back(label);
}

absl::Status CudaQueue::Synchronize() {
  const cudaError_t error = cudaStreamSynchronize(stream_);
  absl::MutexLock lock(&mutex_);
  if (error == cudaSuccess) {
    pending_calls_.clear();
    pending_count_ = 0;
    return absl::OkStatus();
  }
  const int64_t unnamed = pending_count_ - static_cast<int64_t>(pending_calls_.size());
  return CudaStatus(
      error, fmt::format("the device failed work this session enqueued since it last waited ({}{})",
                         unnamed > 0 ? fmt::format("{} earlier calls, then ", unnamed) : "",
                         absl::StrJoin(pending_calls_, ", ")));
}

CudaQueueBinding::CudaQueueBinding(std::shared_ptr<CudaQueue> queue, std::string_view label)
    : queue_(std::move(queue)), previous_(current_binding) {
  queue_->NoteCall(label);
  current_binding = this;
}

CudaQueueBinding::~CudaQueueBinding() {
  current_binding = previous_;
  // The homes of borrowed buffers wait for what this binding enqueued (deduplicated: several
  // buffers of one queue need one wait).
  std::vector<const CudaQueue*> fenced;
  for (const std::shared_ptr<const CudaQueuedBuffer>& buffer : borrowed_) {
    const CudaQueue* home = buffer->home().get();
    if (std::find(fenced.begin(), fenced.end(), home) != fenced.end()) continue;
    fenced.push_back(home);
    LogIfError(WaitFor(home->stream(), queue_->stream()));
  }
}

absl::Status CudaQueueBinding::Borrow(std::shared_ptr<const CudaQueuedBuffer> buffer) {
  if (buffer->home() == queue_) return absl::OkStatus();
  // Waited for each time, not once per home: the home may have enqueued more since (a new
  // buffer in memory its earlier work still reads, say).
  AH_RETURN_IF_ERROR(WaitFor(queue_->stream(), buffer->home()->stream()));
  borrowed_.push_back(std::move(buffer));
  return absl::OkStatus();
}

CudaQueueBinding* CurrentBinding() { return current_binding; }

absl::StatusOr<std::shared_ptr<CudaQueue>> CurrentQueue() {
  if (current_binding != nullptr) return current_binding->queue();
  int device = 0;
  AH_CUDA_RETURN_IF_ERROR(cudaGetDevice(&device));
  return CudaQueue::DeviceDefault(device);
}

absl::StatusOr<cudaStream_t> CurrentStream() {
  if (current_binding != nullptr) return current_binding->queue()->stream();
  AH_ASSIGN_OR_RETURN(std::shared_ptr<CudaQueue> queue, CurrentQueue());
  return queue->stream();
}

absl::Status SynchronizeCurrentQueue() {
  AH_ASSIGN_OR_RETURN(std::shared_ptr<CudaQueue> queue, CurrentQueue());
  return queue->Synchronize();
}

}  // namespace arrayhub
