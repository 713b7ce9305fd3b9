#include "server/core/upload.h"

#include <fmt/format.h>

#include "server/core/status_macros.h"

namespace arrayhub {

PendingUpload::PendingUpload(Backend& backend, std::shared_ptr<WorkQueue> queue, ArrayRecord record,
                             int64_t max_chunk_bytes, Commit commit)
    : backend_(backend),
      queue_(std::move(queue)),
      record_(std::move(record)),
      max_chunk_bytes_(max_chunk_bytes),
      commit_(std::move(commit)) {}

absl::Status PendingUpload::Append(std::span<const std::byte> chunk) {
  if (finished_) return absl::FailedPreconditionError("upload already finished");
  const auto size = static_cast<int64_t>(chunk.size());
  if (size == 0) return absl::InvalidArgumentError("upload chunk is empty");
  if (size > max_chunk_bytes_) {
    return absl::InvalidArgumentError(
        fmt::format("upload chunk of {} bytes exceeds the limit of {} bytes (--max-chunk-bytes)",
                    size, max_chunk_bytes_));
  }
  if (size > expected() - received_) {
    return absl::InvalidArgumentError(fmt::format(
        "upload has more data than the header declares: {} bytes received, {} array of shape {} "
        "holds {} bytes",
        received_ + size, DTypeName(record_.dtype), FormatShape(record_.shape), expected()));
  }
  const std::unique_ptr<QueueBinding> bound = backend_.Bind(queue_, "upload");
  AH_RETURN_IF_ERROR(
      backend_.CopyFromHost(*record_.buffer, record_.offset_bytes + received_, chunk));
  received_ += size;
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const ArrayRecord>> PendingUpload::Finish() {
  if (finished_) return absl::FailedPreconditionError("upload already finished");
  if (received_ != expected()) {
    return absl::InvalidArgumentError(
        fmt::format("upload ended after {} bytes, but the {} array of shape {} needs {} bytes",
                    received_, DTypeName(record_.dtype), FormatShape(record_.shape), expected()));
  }
  finished_ = true;
  return commit_(std::move(record_));
}

}  // namespace arrayhub
