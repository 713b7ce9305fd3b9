#include "server/core/upload.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "server/common/status_macros.h"
#include "server/core/spiller.h"

namespace arrayhub {

PendingUpload::PendingUpload(Backend& backend, std::shared_ptr<WorkQueue> queue, ArrayRecord record,
                             int64_t first_byte, int64_t length, std::string description,
                             int64_t max_chunk_bytes, Commit commit)
    : backend_(backend),
      queue_(std::move(queue)),
      record_(std::move(record)),
      first_byte_(first_byte),
      length_(length),
      description_(std::move(description)),
      max_chunk_bytes_(max_chunk_bytes),
      commit_(std::move(commit)) {}

absl::Status PendingUpload::CheckChunk(int64_t size) const {
  if (finished_) return absl::FailedPreconditionError("upload already finished");
  if (size == 0) return absl::InvalidArgumentError("upload chunk is empty");
  if (size > max_chunk_bytes_) {
    return absl::InvalidArgumentError(
        fmt::format("upload chunk of {} bytes exceeds the limit of {} bytes (--max-chunk-bytes)",
                    size, max_chunk_bytes_));
  }
  if (size > expected() - received_) {
    return absl::InvalidArgumentError(fmt::format(
        "upload has more data than the header declares: {} bytes received, {} holds {} bytes",
        received_ + size, description_, expected()));
  }
  return absl::OkStatus();
}

absl::Status PendingUpload::Append(int64_t size,
                                   absl::FunctionRef<void(std::span<std::byte>)> write) {
  AH_RETURN_IF_ERROR(CheckChunk(size));
  std::unique_ptr<StagingBuffer>& staging = staging_[next_staging_];
  if (staging == nullptr) {
    AH_ASSIGN_OR_RETURN(
        staging, backend_.host_exchange().AllocateStaging(std::min(max_chunk_bytes_, expected())));
  } else {
    AH_RETURN_IF_ERROR(staging->Wait());  // The copy of the chunk before last.
  }
  write(staging->bytes().first(static_cast<size_t>(size)));
  // Pinned until the copy is enqueued (an existing array may spill between chunks).
  const PinScope pins;
  const std::unique_ptr<QueueBinding> bound = backend_.queues().Bind(queue_, "upload");
  // An existing array's earlier work, whichever session enqueued it, comes first.
  AH_RETURN_IF_ERROR(UseResident(backend_, *bound, record_.buffer));
  AH_RETURN_IF_ERROR(staging->CopyTo(*bound, *record_.buffer,
                                     record_.offset_bytes + first_byte_ + received_, size));
  received_ += size;
  next_staging_ ^= 1;
  return absl::OkStatus();
}

absl::Status PendingUpload::Append(std::span<const std::byte> chunk) {
  return Append(static_cast<int64_t>(chunk.size()), [chunk](std::span<std::byte> destination) {
    std::memcpy(destination.data(), chunk.data(), chunk.size());
  });
}

absl::StatusOr<std::shared_ptr<const ArrayRecord>> PendingUpload::Finish() {
  if (finished_) return absl::FailedPreconditionError("upload already finished");
  if (received_ != expected()) {
    return absl::InvalidArgumentError(
        fmt::format("upload ended after {} bytes, but the {} needs {} bytes", received_,
                    description_, expected()));
  }
  for (const std::unique_ptr<StagingBuffer>& staging : staging_) {
    if (staging != nullptr) AH_RETURN_IF_ERROR(staging->Wait());
  }
  finished_ = true;
  return commit_(std::move(record_));
}

}  // namespace arrayhub
