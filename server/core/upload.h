// An upload in progress. Into a new array: memory is reserved up front and the array becomes
// visible only when exactly the right number of bytes has arrived; dropping an uncommitted
// upload (the client went away, sent too much or too little) frees its memory and leaves no
// handle behind. Into a range of an existing array: the bytes land as they arrive, and the
// upload succeeds once the whole range has.
//
// Each chunk is written into one of two staging buffers (staging.h) and copied to the array
// from there while the next chunk is received into the other.
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "server/backend/backend.h"
#include "server/core/array_record.h"

namespace arrayhub {

class PendingUpload {
 public:
  using Commit = std::function<absl::StatusOr<std::shared_ptr<const ArrayRecord>>(ArrayRecord)>;

  // The bytes [first_byte, first_byte + length) of the C-contiguous array `record` (a new one,
  // its buffer allocated, or an existing one), which `description` names in errors ("float32
  // array of shape [2, 3]"). The chunks are copied in on `queue` (the session's); `commit`
  // publishes a new array in the handle table, or returns the existing one.
  PendingUpload(Backend& backend, std::shared_ptr<WorkQueue> queue, ArrayRecord record,
                int64_t first_byte, int64_t length, std::string description,
                int64_t max_chunk_bytes, Commit commit);

  // Appends the next chunk: `size` bytes, which `write` puts in place (it is handed exactly
  // `size` bytes of staging memory). INVALID_ARGUMENT, before `write` runs, for an empty
  // chunk, a chunk over the limit, or more bytes than the array holds.
  absl::Status Append(int64_t size, absl::FunctionRef<void(std::span<std::byte>)> write);
  // The same for a chunk already in memory.
  absl::Status Append(std::span<const std::byte> chunk);

  // Finishes the upload once its copies are done. INVALID_ARGUMENT when fewer bytes arrived
  // than the array holds.
  absl::StatusOr<std::shared_ptr<const ArrayRecord>> Finish();

  int64_t received() const { return received_; }
  int64_t expected() const { return length_; }

 private:
  absl::Status CheckChunk(int64_t size) const;

  Backend& backend_;
  std::shared_ptr<WorkQueue> queue_;
  ArrayRecord record_;
  int64_t first_byte_;
  int64_t length_;
  std::string description_;
  int64_t max_chunk_bytes_;
  Commit commit_;
  int64_t received_ = 0;
  bool finished_ = false;
  // Allocated at the first chunks; destroyed first, each waits for its copy in flight.
  std::array<std::unique_ptr<StagingBuffer>, 2> staging_;
  size_t next_staging_ = 0;  // The one the next chunk goes to.
};

}  // namespace arrayhub
