// Pinned host blocks for streamed transfers (staging.h), kept for reuse: pinning memory costs
// far more than copying a chunk, so a block serves one transfer after another. The pool holds
// at most a fixed number of bytes; a transfer that finds it spent stages through ordinary
// memory instead (slower, never refused).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "server/backend/staging.h"

namespace arrayhub {

class PinnedStagingPool : public std::enable_shared_from_this<PinnedStagingPool> {
 public:
  // Every staging transfer holds two blocks of up to a chunk (2 MiB by default), so 128 MiB
  // serves 32 transfers at once.
  static constexpr int64_t kMaxBytes = int64_t{128} << 20;

  PinnedStagingPool(int device, int64_t max_bytes) : device_(device), max_bytes_(max_bytes) {}
  ~PinnedStagingPool();

  // A pinned staging buffer of at least `nbytes` on the pool's device, or null when the pool
  // has no free block that large and no room for a new one.
  absl::StatusOr<std::unique_ptr<StagingBuffer>> Take(int64_t nbytes);
  // The same within `max_bytes` instead of the pool's own limit, unpinning free blocks (the
  // largest first) where there is no room for a new block: null only when the blocks in use
  // leave none.
  absl::StatusOr<std::unique_ptr<StagingBuffer>> TakeMakingRoom(int64_t nbytes, int64_t max_bytes);

 private:
  class PinnedStaging;
  struct Block {
    std::byte* host = nullptr;
    int64_t capacity = 0;
    cudaEvent_t copied = nullptr;  // Recorded after each copy from or into the block.
  };
  void Return(Block block);
  absl::StatusOr<std::unique_ptr<StagingBuffer>> TakeWithin(int64_t nbytes, int64_t max_bytes,
                                                            bool make_room);
  // Unpins a free block (its copies are done: it was waited for before it came back).
  static void Unpin(const Block& block);

  const int device_;
  const int64_t max_bytes_;
  absl::Mutex mutex_;
  std::vector<Block> free_ ABSL_GUARDED_BY(mutex_);
  int64_t pinned_bytes_ ABSL_GUARDED_BY(mutex_) = 0;  // Free blocks and those in use.
};

}  // namespace arrayhub
