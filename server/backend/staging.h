// Host memory that streamed transfers pass through: an upload writes each received chunk into
// a staging buffer and copies it to the array while the next chunk arrives; a download copies
// the next chunk into one while the last is being sent. On the CUDA backend the memory is
// pinned, so the copies are DMAs that run beside the host's work; elsewhere (the CPU backend,
// or the CUDA one once its pinned pool is spent) it is ordinary memory and the copies are
// DeviceMemory::CopyFromHost / CopyToHost.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "absl/status/status.h"
#include "server/backend/buffer.h"
#include "server/backend/work_queue.h"

namespace arrayhub {

class DeviceMemory;

class StagingBuffer {
 public:
  // Waits for a copy still running.
  virtual ~StagingBuffer() = default;
  StagingBuffer(const StagingBuffer&) = delete;
  StagingBuffer& operator=(const StagingBuffer&) = delete;

  std::span<std::byte> bytes() const { return bytes_; }

  // Enqueues, on `queue`'s queue, a copy of the first `size` bytes into
  // `buffer` at `offset`. bytes() must not be written again before Wait().
  virtual absl::Status CopyTo(QueueBinding& queue, Buffer& buffer, int64_t offset,
                              int64_t size) = 0;
  // Enqueues, on `queue`'s queue, a copy of `size` bytes of `buffer` at `offset` into the
  // start of bytes(), which may be read after Wait().
  virtual absl::Status CopyFrom(QueueBinding& queue, const Buffer& buffer, int64_t offset,
                                int64_t size) = 0;
  // Waits for the copy enqueued last, if any, and returns how it went.
  virtual absl::Status Wait() = 0;

 protected:
  explicit StagingBuffer(std::span<std::byte> bytes) : bytes_(bytes) {}

 private:
  std::span<std::byte> bytes_;
};

// A staging buffer of ordinary memory, copied by `memory`'s CopyFromHost and CopyToHost (the
// latter waits, so Wait() has nothing left to wait for). `memory` must outlive it.
std::unique_ptr<StagingBuffer> NewPageableStaging(DeviceMemory& memory, int64_t nbytes);

}  // namespace arrayhub
