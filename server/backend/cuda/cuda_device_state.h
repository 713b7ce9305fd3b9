// What the CUDA backend's memory, queues and exchange share about their device: its pools,
// counters and pinned host memory, and the buffers allocated from them.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "server/backend/cuda/cuda_queue.h"
#include "server/backend/cuda/cuda_staging.h"
#include "server/backend/cuda/exportable_pools.h"
#include "server/backend/memory_counters.h"

namespace arrayhub {

// Shared with every live buffer, which reports its release here: buffers may outlive the
// backend object.
struct CudaDeviceState {
  explicit CudaDeviceState(int device) : device(device) {}

  const int device;
  std::string device_uuid;
  int64_t total_memory = 0;
  cudaMemPool_t pool = nullptr;  // The device's default pool.
  // Tenants' pools, where memory is exportable (CUDA IPC); null: every queue allocates from
  // the default pool and nothing is exported.
  std::unique_ptr<ExportablePools> exportable;
  MemoryCounters memory;
  std::shared_ptr<PinnedStagingPool> staging;
  // The spill host tier's pinned blocks (AllocateHostTier), bounded per call by the tier's size.
  std::shared_ptr<PinnedStagingPool> host_tier;
};

// Memory of the device's pools, freed in its home queue's order.
class CudaBuffer final : public CudaQueuedBuffer {
 public:
  CudaBuffer(void* data, int64_t size, std::shared_ptr<CudaQueue> home,
             std::shared_ptr<CudaDeviceState> state);
  // Stream-ordered: the memory goes back to the pool once the work its queue holds is done
  // (each call of another queue that used it made this queue wait for it; see QueueSection).
  ~CudaBuffer() override;

  // The pool the memory came from: its home queue's.
  cudaMemPool_t pool() const { return home()->pool() != nullptr ? home()->pool() : state_->pool; }

 private:
  std::shared_ptr<CudaDeviceState> state_;
};

// Free memory of `device` now, as the driver reports it.
absl::StatusOr<int64_t> CudaFreeMemory(int device);

}  // namespace arrayhub
