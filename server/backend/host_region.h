// A client's shared-memory object opened by a backend, so that an upload or a download is one
// copy between the object and a buffer. Core checks every offset and size against the
// registered region before calling, and registers only objects sealed against shrinking: a
// copy never meets the object's end.
#pragma once

#include <cstdint>

#include "absl/status/status.h"
#include "server/backend/buffer.h"
#include "server/backend/work_queue.h"

namespace arrayhub {

class HostRegion {
 public:
  virtual ~HostRegion() = default;

  // Copies `size` bytes from the object at `region_offset` into `buffer` at `buffer_offset`.
  virtual absl::Status CopyIn(QueueBinding& queue, int64_t region_offset, Buffer& buffer,
                              int64_t buffer_offset, int64_t size) const = 0;
  // Copies `size` bytes of `buffer` at `buffer_offset` into the object at `region_offset`.
  virtual absl::Status CopyOut(QueueBinding& queue, const Buffer& buffer, int64_t buffer_offset,
                               int64_t region_offset, int64_t size) const = 0;
};

}  // namespace arrayhub
