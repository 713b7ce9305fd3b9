#include "server/core/download.h"

#include <algorithm>

#include "server/common/status_macros.h"
#include "server/core/spiller.h"

namespace arrayhub {

PendingDownload::PendingDownload(Backend& backend, std::shared_ptr<WorkQueue> queue,
                                 std::shared_ptr<const ArrayRecord> described,
                                 std::shared_ptr<const ArrayRecord> contiguous, int64_t first_byte,
                                 int64_t length, int64_t chunk_bytes)
    : backend_(backend),
      queue_(std::move(queue)),
      described_(std::move(described)),
      contiguous_(std::move(contiguous)),
      first_byte_(first_byte),
      length_(length),
      chunk_bytes_(chunk_bytes) {}

absl::Status PendingDownload::StartCopy(size_t slot) {
  std::unique_ptr<StagingBuffer>& staging = staging_[slot];
  if (staging == nullptr) {
    AH_ASSIGN_OR_RETURN(staging,
                        backend_.host_exchange().AllocateStaging(std::min(chunk_bytes_, total())));
  }
  const int64_t size = std::min(chunk_bytes_, total() - started_);
  // Pinned until the copy is enqueued; between chunks the array may spill, and comes back for
  // the next one.
  const PinScope pins;
  const std::unique_ptr<QueueBinding> bound = backend_.queues().Bind(queue_, "download");
  // After the work enqueued on the array so far, whichever session enqueued it.
  AH_RETURN_IF_ERROR(UseResident(backend_, *bound, contiguous_->buffer));
  AH_RETURN_IF_ERROR(staging->CopyFrom(*bound, *contiguous_->buffer,
                                       contiguous_->offset_bytes + first_byte_ + started_, size));
  staged_bytes_[slot] = size;
  started_ += size;
  return absl::OkStatus();
}

absl::StatusOr<std::span<const std::byte>> PendingDownload::Next() {
  if (handed_out_ == total()) return std::span<const std::byte>();
  const size_t slot = next_staging_;
  if (started_ == handed_out_) AH_RETURN_IF_ERROR(StartCopy(slot));  // The first chunk.
  AH_RETURN_IF_ERROR(staging_[slot]->Wait());
  // The other buffer held the chunk returned last, which the caller is done with now.
  if (started_ < total()) AH_RETURN_IF_ERROR(StartCopy(slot ^ 1));
  handed_out_ += staged_bytes_[slot];
  next_staging_ ^= 1;
  return std::span<const std::byte>(
      staging_[slot]->bytes().first(static_cast<size_t>(staged_bytes_[slot])));
}

}  // namespace arrayhub
