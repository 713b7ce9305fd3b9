#include "server/backend/cuda/cuda_staging.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "server/backend/cuda/cuda_check.h"
#include "server/backend/cuda/cuda_queue.h"
#include "server/common/status_macros.h"

namespace arrayhub {
namespace {

// Blocks are sized in these steps, so that transfers of nearby chunk sizes share them.
constexpr int64_t kBlockGranule = int64_t{1} << 20;

// For destructors, which have no caller to report to.
void LogIfError(const absl::Status& status) {
  if (!status.ok()) spdlog::error("cuda staging: {}", status.ToString());
}

}  // namespace

class PinnedStagingPool::PinnedStaging final : public StagingBuffer {
 public:
  PinnedStaging(std::shared_ptr<PinnedStagingPool> pool, Block block, int64_t nbytes)
      : StagingBuffer(std::span(block.host, static_cast<size_t>(nbytes))),
        pool_(std::move(pool)),
        block_(block) {}

  ~PinnedStaging() override {
    // The block must not be reused, or freed, while a DMA still reads or writes it.
    LogIfError(Wait());
    pool_->Return(block_);
  }

  absl::Status CopyTo(QueueBinding& queue, Buffer& buffer, int64_t offset, int64_t size) override {
    return Copy(queue, static_cast<std::byte*>(buffer.data()) + offset, block_.host, size,
                cudaMemcpyHostToDevice);
  }
  absl::Status CopyFrom(QueueBinding& queue, const Buffer& buffer, int64_t offset,
                        int64_t size) override {
    return Copy(queue, block_.host, static_cast<const std::byte*>(buffer.data()) + offset, size,
                cudaMemcpyDeviceToHost);
  }
  absl::Status Wait() override {
    if (!pending_) return absl::OkStatus();
    pending_ = false;
    AH_CUDA_RETURN_IF_ERROR(cudaEventSynchronize(block_.copied));
    return absl::OkStatus();
  }

 private:
  absl::Status Copy(QueueBinding& queue, void* destination, const void* source, int64_t size,
                    cudaMemcpyKind kind) {
    AH_CUDA_RETURN_IF_ERROR(cudaSetDevice(pool_->device_));
    AH_ASSIGN_OR_RETURN(CudaQueueBinding* const binding, CudaBindingOf(queue));
    AH_ASSIGN_OR_RETURN(const QueueSection section, QueueSection::Enter(*binding));
    const cudaStream_t stream = section.stream();
    AH_CUDA_RETURN_IF_ERROR(
        cudaMemcpyAsync(destination, source, static_cast<size_t>(size), kind, stream));
    AH_CUDA_RETURN_IF_ERROR(cudaEventRecord(block_.copied, stream));
    pending_ = true;
    return absl::OkStatus();
  }

  std::shared_ptr<PinnedStagingPool> pool_;  // Outlives the block, which goes back to it.
  Block block_;
  bool pending_ = false;  // A copy was enqueued and not waited for.
};

PinnedStagingPool::~PinnedStagingPool() {
  // Every block is free by now: each PinnedStaging holds the pool alive.
  if (cudaSetDevice(device_) != cudaSuccess) return;
  for (const Block& block : free_) Unpin(block);
}

absl::StatusOr<std::unique_ptr<StagingBuffer>> PinnedStagingPool::Take(int64_t nbytes) {
  return TakeWithin(nbytes, max_bytes_, /*make_room=*/false);
}

absl::StatusOr<std::unique_ptr<StagingBuffer>> PinnedStagingPool::TakeMakingRoom(
    int64_t nbytes, int64_t max_bytes) {
  return TakeWithin(nbytes, max_bytes, /*make_room=*/true);
}

void PinnedStagingPool::Unpin(const Block& block) {
  LogIfError(::arrayhub::CudaStatus(cudaEventDestroy(block.copied), "cudaEventDestroy"));
  LogIfError(::arrayhub::CudaStatus(cudaFreeHost(block.host), "cudaFreeHost"));
}

absl::StatusOr<std::unique_ptr<StagingBuffer>> PinnedStagingPool::TakeWithin(int64_t nbytes,
                                                                             int64_t max_bytes,
                                                                             bool make_room) {
  const int64_t capacity =
      std::max<int64_t>(1, (nbytes + kBlockGranule - 1) / kBlockGranule) * kBlockGranule;
  std::vector<Block> unpinned;  // Unpinned after the lock: cudaFreeHost may wait.
  {
    absl::MutexLock lock(&mutex_);
    // The smallest free block that is large enough.
    auto best = free_.end();
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      if (it->capacity >= capacity && (best == free_.end() || it->capacity < best->capacity)) {
        best = it;
      }
    }
    if (best != free_.end()) {
      const Block block = *best;
      free_.erase(best);
      return std::make_unique<PinnedStaging>(shared_from_this(), block, nbytes);
    }
    if (make_room) {
      std::sort(free_.begin(), free_.end(),
                [](const Block& a, const Block& b) { return a.capacity < b.capacity; });
      while (pinned_bytes_ + capacity > max_bytes && !free_.empty()) {
        pinned_bytes_ -= free_.back().capacity;
        unpinned.push_back(free_.back());
        free_.pop_back();
      }
    }
    if (pinned_bytes_ + capacity > max_bytes) {
      for (const Block& block : unpinned) free_.push_back(block);  // Nothing was gained.
      for (const Block& block : unpinned) pinned_bytes_ += block.capacity;
      return nullptr;
    }
    pinned_bytes_ += capacity;  // Reserved before pinning, outside the lock.
  }
  if (!unpinned.empty()) {
    if (const cudaError_t error = cudaSetDevice(device_); error != cudaSuccess) {
      LogIfError(CudaStatus(error, "cudaSetDevice"));
    }
    for (const Block& block : unpinned) Unpin(block);
  }
  Block block{.capacity = capacity};
  absl::Status made = [&]() -> absl::Status {
    AH_CUDA_RETURN_IF_ERROR(cudaSetDevice(device_));
    AH_CUDA_RETURN_IF_ERROR(cudaHostAlloc(reinterpret_cast<void**>(&block.host),
                                          static_cast<size_t>(capacity), cudaHostAllocDefault));
    AH_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&block.copied, cudaEventDisableTiming));
    return absl::OkStatus();
  }();
  if (!made.ok()) {
    if (block.host != nullptr) LogIfError(CudaStatus(cudaFreeHost(block.host), "cudaFreeHost"));
    absl::MutexLock lock(&mutex_);
    pinned_bytes_ -= capacity;
    return made;
  }
  return std::make_unique<PinnedStaging>(shared_from_this(), block, nbytes);
}

void PinnedStagingPool::Return(Block block) {
  absl::MutexLock lock(&mutex_);
  free_.push_back(block);
}

}  // namespace arrayhub
