// An upload in progress: memory is reserved up front and the array becomes visible only when
// exactly the right number of bytes has arrived. Dropping an uncommitted upload (the client
// went away, sent too much or too little) frees its memory and leaves no handle behind.
#pragma once

#include <functional>
#include <memory>

#include "absl/status/statusor.h"
#include "server/backend/backend.h"
#include "server/core/array_record.h"

namespace arrayhub {

class PendingUpload {
 public:
  using Commit = std::function<std::shared_ptr<const ArrayRecord>(ArrayRecord)>;

  // `record` describes the array to be (its buffer is already allocated); the chunks are
  // copied in on `queue` (the session's); `commit` publishes it in the handle table.
  PendingUpload(Backend& backend, std::shared_ptr<WorkQueue> queue, ArrayRecord record,
                int64_t max_chunk_bytes, Commit commit);

  // Appends the next chunk. INVALID_ARGUMENT for an empty chunk, a chunk over the limit, or
  // more bytes than the array holds.
  absl::Status Append(std::span<const std::byte> chunk);

  // Finishes the upload. INVALID_ARGUMENT when fewer bytes arrived than the array holds.
  absl::StatusOr<std::shared_ptr<const ArrayRecord>> Finish();

  int64_t received() const { return received_; }
  int64_t expected() const { return record_.nbytes(); }

 private:
  Backend& backend_;
  std::shared_ptr<WorkQueue> queue_;
  ArrayRecord record_;
  int64_t max_chunk_bytes_;
  Commit commit_;
  int64_t received_ = 0;
  bool finished_ = false;
};

}  // namespace arrayhub
