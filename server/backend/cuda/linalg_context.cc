#include "server/backend/cuda/linalg_context.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <utility>

#include "absl/synchronization/mutex.h"
#include "server/backend/cuda/cuda_check.h"
#include "server/backend/cuda/cuda_queue.h"
#include "server/backend/cuda/linalg_status.h"
#include "server/common/status_macros.h"

namespace arrayhub {

struct LinalgCall::Worker {
  ~Worker() {
    // Reached only when creating a worker failed half way: pooled workers live as long as
    // the process (see Pools).
    if (params != nullptr) cusolverDnDestroyParams(params);
    if (cusolver != nullptr) cusolverDnDestroy(cusolver);
    if (cublas != nullptr) cublasDestroy(cublas);
    if (last_use != nullptr) cudaEventDestroy(last_use);
  }

  int device = 0;
  // The queue and stream the handles were last set to, and an event recorded there after
  // their last use.
  std::weak_ptr<CudaQueue> queue;
  cudaStream_t stream = nullptr;
  cudaEvent_t last_use = nullptr;
  cublasHandle_t cublas = nullptr;
  cusolverDnHandle_t cusolver = nullptr;
  cusolverDnParams_t params = nullptr;
};

namespace {

void LogIfError(const absl::Status& status) {
  if (!status.ok()) spdlog::error("cuda linalg: {}", status.ToString());
}

// Idle workers by device. Never destroyed: handles released during static destruction, after
// the CUDA runtime may have shut down, would crash the exit.
class Pools {
 public:
  static Pools& Get() {
    static Pools* const pools = new Pools;
    return *pools;
  }

  // An idle worker of `device`, the one that last ran on `queue` if there is one (it need
  // not wait for anything: see MoveTo).
  std::unique_ptr<LinalgCall::Worker> Take(int device, const std::shared_ptr<CudaQueue>& queue) {
    absl::MutexLock lock(&mutex_);
    std::vector<std::unique_ptr<LinalgCall::Worker>>& idle = idle_[device];
    if (idle.empty()) return nullptr;
    auto chosen = std::find_if(idle.rbegin(), idle.rend(),
                               [&](const auto& worker) { return worker->queue.lock() == queue; });
    auto position = chosen == idle.rend() ? idle.end() - 1 : std::next(chosen).base();
    std::unique_ptr<LinalgCall::Worker> worker = std::move(*position);
    idle.erase(position);
    return worker;
  }

  void Return(std::unique_ptr<LinalgCall::Worker> worker) {
    absl::MutexLock lock(&mutex_);
    idle_[worker->device].push_back(std::move(worker));
  }

 private:
  absl::Mutex mutex_;
  std::map<int, std::vector<std::unique_ptr<LinalgCall::Worker>>> idle_ ABSL_GUARDED_BY(mutex_);
};

absl::StatusOr<std::unique_ptr<LinalgCall::Worker>> CreateWorker(int device) {
  auto worker = std::make_unique<LinalgCall::Worker>();
  worker->device = device;
  AH_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&worker->last_use, cudaEventDisableTiming));
  AH_CUBLAS_RETURN_IF_ERROR(cublasCreate(&worker->cublas));
  AH_CUSOLVER_RETURN_IF_ERROR(cusolverDnCreate(&worker->cusolver));
  AH_CUSOLVER_RETURN_IF_ERROR(cusolverDnCreateParams(&worker->params));
  return worker;
}

// Points the worker's handles at `queue`, after whatever they last did. Nothing to do when
// the worker last ran on this very queue, which is still alive: its stream orders this call
// after that use. Another queue waits for the last use, even on the same stream value: a
// destroyed session's stream may come back under the same value while its last work still
// runs. (A never-recorded event is complete.)
absl::Status MoveTo(LinalgCall::Worker& worker, const std::shared_ptr<CudaQueue>& queue) {
  if (worker.queue.lock() == queue) return absl::OkStatus();
  const cudaStream_t stream = queue->stream();
  AH_CUDA_RETURN_IF_ERROR(cudaStreamWaitEvent(stream, worker.last_use, 0));
  worker.queue = queue;
  if (worker.stream == stream) return absl::OkStatus();
  AH_CUBLAS_RETURN_IF_ERROR(cublasSetStream(worker.cublas, stream));
  AH_CUSOLVER_RETURN_IF_ERROR(cusolverDnSetStream(worker.cusolver, stream));
  worker.stream = stream;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<LinalgCall> LinalgCall::Begin(const QueueSection& section) {
  const std::shared_ptr<CudaQueue>& queue = section.queue();
  const int device = queue->device();
  std::unique_ptr<Worker> worker = Pools::Get().Take(device, queue);
  if (worker == nullptr) {
    AH_ASSIGN_OR_RETURN(worker, CreateWorker(device));
  }
  if (const absl::Status moved = MoveTo(*worker, queue); !moved.ok()) {
    // Its handles may be half moved: drop the worker rather than pool it.
    return moved;
  }
  return LinalgCall(std::move(worker), queue);
}

LinalgCall::LinalgCall(std::unique_ptr<Worker> worker, std::shared_ptr<CudaQueue> queue)
    : worker_(std::move(worker)), queue_(std::move(queue)), stream_(queue_->stream()) {}

LinalgCall::LinalgCall(LinalgCall&& other) noexcept
    : worker_(std::move(other.worker_)),
      queue_(std::move(other.queue_)),
      stream_(other.stream_),
      scratch_(std::move(other.scratch_)),
      receipts_(std::move(other.receipts_)) {
  other.scratch_.clear();
}

LinalgCall::~LinalgCall() {
  if (worker_ == nullptr) return;  // Moved from.
  for (void* memory : scratch_) {
    LogIfError(CudaStatus(cudaFreeAsync(memory, stream_), "cudaFreeAsync"));
  }
  const absl::Status marked =
      CudaStatus(cudaEventRecord(worker_->last_use, stream_), "cudaEventRecord");
  if (!marked.ok()) {
    // Without the mark a later queue could not wait for this use: drop the worker.
    LogIfError(marked);
    return;
  }
  Pools::Get().Return(std::move(worker_));
}

cudaStream_t LinalgCall::stream() const { return stream_; }
cublasHandle_t LinalgCall::cublas() const { return worker_->cublas; }
cusolverDnHandle_t LinalgCall::cusolver() const { return worker_->cusolver; }
cusolverDnParams_t LinalgCall::params() const { return worker_->params; }

absl::StatusOr<void*> LinalgCall::Scratch(int64_t bytes) {
  AH_ASSIGN_OR_RETURN(std::unique_ptr<ScratchReceipt> receipt, PayForScratch(bytes));
  void* memory = nullptr;
  // One byte at least, so that an empty scratch array still has a distinct address.
  AH_CUDA_RETURN_IF_ERROR(
      cudaMallocAsync(&memory, static_cast<size_t>(std::max<int64_t>(bytes, 1)), stream_));
  scratch_.push_back(memory);
  receipts_.push_back(std::move(receipt));
  return memory;
}

absl::StatusOr<void*> LinalgCall::UploadBytes(const void* data, size_t bytes) {
  AH_ASSIGN_OR_RETURN(void* memory, Scratch(static_cast<int64_t>(bytes)));
  // From pageable memory the copy is staged before this returns, so `data` may go right after.
  AH_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(memory, data, bytes, cudaMemcpyHostToDevice, stream_));
  return memory;
}

absl::Status LinalgCall::DownloadBytes(void* host, const void* device, size_t bytes) {
  AH_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream_));
  return queue_->Synchronize();
}

}  // namespace arrayhub
