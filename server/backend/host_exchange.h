// How a backend's memory meets host memory and other processes: staging buffers for streamed
// transfers, the spill tier, clients' shared-memory regions, and same-host export (CUDA IPC).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "server/backend/buffer.h"
#include "server/backend/host_region.h"
#include "server/backend/staging.h"

namespace arrayhub {

// What a process on the same host needs to map a buffer's device memory (CUDA IPC through a
// stream-ordered pool; docs/ipc.md).
struct ExportedMemory {
  std::string pool_id;              // The pool the buffer is in; the client imports it once.
  std::string pointer_export_data;  // cudaMemPoolPtrExportData's bytes.
  std::string device_uuid;          // "GPU-xxxxxxxx-xxxx-...", as nvidia-smi shows it.
  int device_ordinal = 0;
};

class HostExchange {
 public:
  virtual ~HostExchange() = default;

  // Host memory for one streamed transfer of chunks up to `nbytes` (see staging.h).
  virtual absl::StatusOr<std::unique_ptr<StagingBuffer>> AllocateStaging(int64_t nbytes) = 0;

  // Host memory that holds a whole spilled buffer of `nbytes` until it returns (core's
  // Spiller), copied in and out in one transfer each: on a GPU pinned memory, kept for the next
  // spill when this one ends, since pinning costs far more than the copy. The backend keeps at
  // most `tier_bytes` of it, in use and kept together, unpinning kept blocks to make room.
  virtual absl::StatusOr<std::unique_ptr<StagingBuffer>> AllocateHostTier(int64_t nbytes,
                                                                          int64_t tier_bytes) = 0;

  // Opens the first `size` bytes of a client's shared-memory object (`fd`, a memfd of at least
  // `size` bytes sealed against shrinking, open for reading and writing; the caller keeps and
  // closes it) for copies to and from buffers. The region may outlive `fd`.
  virtual absl::StatusOr<std::unique_ptr<HostRegion>> OpenHostRegion(int fd, int64_t size) = 0;

  // Same-host export (CUDA IPC). Waits for the work enqueued on `buffer` so far, then describes
  // it for another process. FAILED_PRECONDITION where it cannot be exported: a backend without
  // device memory or with export off, or a buffer that is not `memory_owner`'s (the pool's
  // descriptor reaches all of a pool, so a tenant only ever gets its own).
  virtual absl::StatusOr<ExportedMemory> ExportMemory(const Buffer& buffer,
                                                      std::string_view memory_owner) = 0;
  // A new file descriptor of the exportable pool `pool_id`, which the caller closes; NOT_FOUND
  // for an unknown id.
  virtual absl::StatusOr<int> ExportPoolDescriptor(std::string_view pool_id) = 0;
};

}  // namespace arrayhub
