// Stream-ordered memory pools whose allocations another process on the host can import (CUDA
// IPC through a POSIX file descriptor of the pool, docs/ipc.md), one pool per tenant: a pool's
// descriptor reaches every allocation in it, so a tenant may only ever be handed its own.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace arrayhub {

class ExportablePools {
 public:
  // Pools on `device`, or FAILED_PRECONDITION when it cannot share pools by file descriptor.
  static absl::StatusOr<std::unique_ptr<ExportablePools>> Create(int device);
  // Destroys the pools; every allocation from them must be freed by then.
  ~ExportablePools();
  ExportablePools(const ExportablePools&) = delete;
  ExportablePools& operator=(const ExportablePools&) = delete;

  // The pool of tenant `owner`, made on first use.
  absl::StatusOr<cudaMemPool_t> ForOwner(std::string_view owner);
  // The id of `pool` if it is `owner`'s; FAILED_PRECONDITION otherwise (another tenant's pool,
  // or not one of these).
  absl::StatusOr<std::string> IdFor(cudaMemPool_t pool, std::string_view owner) const;
  // A new descriptor of the pool with id `pool_id`, which the caller closes; NOT_FOUND if none.
  absl::StatusOr<int> Descriptor(std::string_view pool_id) const;
  // Hands the unused memory of every pool back to the device (out-of-memory recovery).
  absl::Status TrimAll();

 private:
  struct Pool {
    std::string owner;
    std::string id;  // Random, so that a client's cache never confuses two daemons' pools.
    cudaMemPool_t pool;
  };

  explicit ExportablePools(int device) : device_(device) {}

  const int device_;
  mutable absl::Mutex mutex_;
  std::vector<Pool> pools_ ABSL_GUARDED_BY(mutex_);  // A tenant each; few.
};

}  // namespace arrayhub
