// A download in progress: the bytes of a C-contiguous array handed out chunk by chunk, each
// copied into one of two staging buffers (staging.h) while the chunk before it, in the other,
// is being sent.
#pragma once

#include <array>
#include <memory>
#include <span>

#include "absl/status/statusor.h"
#include "server/backend/backend.h"
#include "server/core/array_record.h"

namespace arrayhub {

class PendingDownload {
 public:
  // `described` is the array the client asked for, `contiguous` its bytes in C order (the
  // array itself, or a copy: Engine::ContiguousForReading), of which bytes [first_byte,
  // first_byte + length) are sent; both stay alive until the download ends, even if their
  // handles are freed meanwhile. Copies run on `queue`, the session's.
  PendingDownload(Backend& backend, std::shared_ptr<WorkQueue> queue,
                  std::shared_ptr<const ArrayRecord> described,
                  std::shared_ptr<const ArrayRecord> contiguous, int64_t first_byte, int64_t length,
                  int64_t chunk_bytes);

  const ArrayRecord& described() const { return *described_; }
  int64_t total() const { return length_; }
  int64_t sent() const { return handed_out_; }

  // The next chunk, readable until the next call; empty once every byte was handed out. The
  // copy of the chunk after it runs meanwhile.
  absl::StatusOr<std::span<const std::byte>> Next();

 private:
  // Starts copying the bytes after those already started into staging_[slot].
  absl::Status StartCopy(size_t slot);

  Backend& backend_;
  std::shared_ptr<WorkQueue> queue_;
  std::shared_ptr<const ArrayRecord> described_;
  std::shared_ptr<const ArrayRecord> contiguous_;
  int64_t first_byte_;
  int64_t length_;
  int64_t chunk_bytes_;
  int64_t started_ = 0;     // Bytes whose copy has been started.
  int64_t handed_out_ = 0;  // Bytes Next returned.
  // Destroyed first: each waits for its copy in flight.
  std::array<std::unique_ptr<StagingBuffer>, 2> staging_;
  std::array<int64_t, 2> staged_bytes_{};  // The size of the chunk each holds.
  size_t next_staging_ = 0;                // The one Next returns next.
};

}  // namespace arrayhub
