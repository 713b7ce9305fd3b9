#include "server/backend/cuda/cuda_queue.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <utility>

#include "server/backend/cuda/cuda_check.h"
#include "server/backend/cuda/cuda_reduce.cuh"
#include "server/common/status_macros.h"

namespace arrayhub {

namespace {

// The label of the binding whose outermost QueueSection the thread is in (ServedLabel).
thread_local const std::string* served_label = nullptr;

void LogIfError(const absl::Status& status) {
  if (!status.ok()) spdlog::error("cuda queue: {}", status.ToString());
}

// Makes `waiter`'s stream wait for the work enqueued on `signaller`'s so far (on the device; the
// host goes on). Both queues' section mutexes are held: `signaller`'s mark is theirs.
absl::Status WaitFor(const CudaQueue& waiter, cudaEvent_t signaller_mark,
                     cudaStream_t signaller_stream) {
  AH_CUDA_RETURN_IF_ERROR(cudaEventRecord(signaller_mark, signaller_stream));
  AH_CUDA_RETURN_IF_ERROR(cudaStreamWaitEvent(waiter.stream(), signaller_mark, 0));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::shared_ptr<CudaQueue>> CudaQueue::Create(int device, cudaMemPool_t pool) {
  cudaStream_t stream = nullptr;
  AH_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaEvent_t mark = nullptr;
  if (const cudaError_t error = cudaEventCreateWithFlags(&mark, cudaEventDisableTiming);
      error != cudaSuccess) {
    LogIfError(CudaStatus(cudaStreamDestroy(stream), "cudaStreamDestroy"));
    return CudaStatus(error, "cudaEventCreateWithFlags");
  }
  return std::shared_ptr<CudaQueue>(new CudaQueue(device, stream, mark, pool));
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
  // A stream or event destroyed while work or waits on it are pending is released once they
  // complete.
  if (reduction_workspace_ != nullptr) {
    LogIfError(CudaStatus(cudaFreeAsync(reduction_workspace_, stream_), "cudaFreeAsync"));
  }
  LogIfError(CudaStatus(cudaEventDestroy(mark_), "cudaEventDestroy"));
  LogIfError(CudaStatus(cudaStreamDestroy(stream_), "cudaStreamDestroy"));
}

absl::StatusOr<void*> CudaQueue::ReductionWorkspace() {
  absl::MutexLock lock(&mutex_);
  if (reduction_workspace_ == nullptr) {
    void* workspace = nullptr;
    AH_CUDA_RETURN_IF_ERROR(cudaMallocAsync(&workspace, kReduceWorkspaceBytes, stream_));
    // Only the counters need to start at zero.
    if (const cudaError_t error =
            cudaMemsetAsync(workspace, 0, kReduceArrivalSlots * sizeof(unsigned), stream_);
        error != cudaSuccess) {
      LogIfError(CudaStatus(cudaFreeAsync(workspace, stream_), "cudaFreeAsync"));
      return CudaStatus(error, "cudaMemsetAsync");
    }
    reduction_workspace_ = workspace;
  }
  return reduction_workspace_;
}

void CudaQueue::NoteCall(std::string_view label) {
  absl::MutexLock lock(&mutex_);
  pending_calls_.Note(label);
}

absl::Status CudaQueue::Synchronize() {
  const cudaError_t error = cudaStreamSynchronize(stream_);
  absl::MutexLock lock(&mutex_);
  const std::string calls = pending_calls_.Take();
  if (error == cudaSuccess) return absl::OkStatus();
  return CudaStatus(
      error,
      fmt::format("the device failed work this session enqueued since it last waited ({})", calls));
}

// Each call fenced its borrowed homes after its work (QueueSection): nothing is left to order
// when the binding ends.
CudaQueueBinding::CudaQueueBinding(std::shared_ptr<CudaQueue> queue, std::string_view label)
    : queue_(std::move(queue)), label_(label) {
  queue_->NoteCall(label);
}

void CudaQueueBinding::Borrow(const CudaQueuedBuffer& buffer) {
  const std::shared_ptr<CudaQueue>& home = buffer.home();
  if (home == queue_ || std::find(homes_.begin(), homes_.end(), home) != homes_.end()) return;
  homes_.push_back(home);
}

absl::StatusOr<QueueSection> QueueSection::Enter(CudaQueueBinding& binding) {
  QueueSection section;
  // From here on, a failure returns a section whose destructor undoes what was done.
  section.binding_ = &binding;
  if (++binding.open_sections_ > 1) return section;
  section.served_before_ = std::exchange(served_label, &binding.label());
  std::vector<QueueGroupSection::Member> members;
  members.push_back({.queue = binding.queue(), .homes = binding.homes()});
  absl::StatusOr<QueueGroupSection> queues = QueueGroupSection::Enter(std::move(members));
  if (!queues.ok()) return queues.status();
  section.queues_.emplace(*std::move(queues));
  return section;
}

QueueSection::QueueSection(QueueSection&& other) noexcept
    : binding_(std::exchange(other.binding_, nullptr)),
      served_before_(other.served_before_),
      queues_(std::move(other.queues_)) {
  other.queues_.reset();
}

QueueSection::~QueueSection() {
  if (binding_ == nullptr) return;
  // The outermost section puts back the label it replaced, after its queues are let go.
  if (--binding_->open_sections_ == 0) {
    queues_.reset();
    served_label = served_before_;
  }
}

absl::StatusOr<QueueGroupSection> QueueGroupSection::Enter(std::vector<Member> members) {
  QueueGroupSection section;
  section.members_ = std::move(members);
  for (const Member& member : section.members_) {
    section.locked_.push_back(member.queue.get());
    for (const std::shared_ptr<CudaQueue>& home : member.homes) {
      section.locked_.push_back(home.get());
    }
  }
  // A home of one member may be another member's queue, or another member's home too.
  std::sort(section.locked_.begin(), section.locked_.end());
  section.locked_.erase(std::unique(section.locked_.begin(), section.locked_.end()),
                        section.locked_.end());
  for (CudaQueue* queue : section.locked_) queue->section_mutex_.Lock();
  // Waited for at every call, not once per home: the home may have enqueued more since (new
  // writes to the buffer, or a new buffer in memory its earlier work still reads).
  for (const Member& member : section.members_) {
    for (const std::shared_ptr<CudaQueue>& home : member.homes) {
      AH_RETURN_IF_ERROR(WaitFor(*member.queue, home->mark_, home->stream()));
    }
  }
  return section;
}

QueueGroupSection::QueueGroupSection(QueueGroupSection&& other) noexcept
    : members_(std::move(other.members_)), locked_(std::move(other.locked_)) {
  other.members_.clear();
  other.locked_.clear();
}

QueueGroupSection::~QueueGroupSection() {
  for (const Member& member : members_) {
    for (const std::shared_ptr<CudaQueue>& home : member.homes) {
      LogIfError(WaitFor(*home, member.queue->mark_, member.queue->stream()));
    }
  }
  for (auto it = locked_.rbegin(); it != locked_.rend(); ++it) (*it)->section_mutex_.Unlock();
}

const std::string* ServedLabel() { return served_label; }

}  // namespace arrayhub
