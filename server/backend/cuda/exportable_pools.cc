#include "server/backend/cuda/exportable_pools.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <limits>
#include <random>

#include "server/backend/cuda/cuda_check.h"
#include "server/backend/cuda/peer_access.h"
#include "server/common/status_macros.h"

namespace arrayhub {

namespace {

std::string RandomPoolId() {
  std::random_device entropy;
  const uint64_t high = entropy(), low = entropy();
  return fmt::format("{:016x}", (high << 32) ^ low);
}

}  // namespace

absl::StatusOr<std::unique_ptr<ExportablePools>> ExportablePools::Create(int device) {
  int handle_types = 0;
  AH_CUDA_RETURN_IF_ERROR(
      cudaDeviceGetAttribute(&handle_types, cudaDevAttrMemoryPoolSupportedHandleTypes, device));
  if ((handle_types & cudaMemHandleTypePosixFileDescriptor) == 0) {
    return absl::FailedPreconditionError(fmt::format(
        "cuda:{} cannot share memory pools by file descriptor (supported handle types {:#x})",
        device, handle_types));
  }
  return std::unique_ptr<ExportablePools>(new ExportablePools(device));
}

ExportablePools::~ExportablePools() {
  absl::MutexLock lock(&mutex_);
  for (const Pool& pool : pools_) {
    if (const absl::Status status = CudaStatus(cudaMemPoolDestroy(pool.pool), "cudaMemPoolDestroy");
        !status.ok()) {
      spdlog::error("exportable pools: {}", status.ToString());
    }
  }
}

absl::StatusOr<cudaMemPool_t> ExportablePools::ForOwner(std::string_view owner) {
  absl::MutexLock lock(&mutex_);
  for (const Pool& pool : pools_) {
    if (pool.owner == owner) return pool.pool;
  }
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypePosixFileDescriptor;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device_;
  cudaMemPool_t created = nullptr;
  AH_CUDA_RETURN_IF_ERROR(cudaMemPoolCreate(&created, &props));
  // As the default pool: freed memory stays for the next allocation; Allocate trims on
  // out-of-memory, which is also when another tenant gets memory this one freed.
  uint64_t threshold = std::numeric_limits<uint64_t>::max();
  if (const cudaError_t error =
          cudaMemPoolSetAttribute(created, cudaMemPoolAttrReleaseThreshold, &threshold);
      error != cudaSuccess) {
    (void)cudaMemPoolDestroy(created);
    return CudaStatus(error, "cudaMemPoolSetAttribute(ReleaseThreshold)");
  }
  // cudaMemPoolExportPointer works only on a pool that has been shared once: export (and
  // close) a descriptor now, so that an export never depends on a client having fetched one.
  int fd = -1;
  if (const cudaError_t error =
          cudaMemPoolExportToShareableHandle(&fd, created, cudaMemHandleTypePosixFileDescriptor, 0);
      error != cudaSuccess) {
    (void)cudaMemPoolDestroy(created);
    return CudaStatus(error, "cudaMemPoolExportToShareableHandle");
  }
  close(fd);
  if (const absl::Status granted = GrantPeerAccess(created, device_); !granted.ok()) {
    (void)cudaMemPoolDestroy(created);
    return granted;
  }
  pools_.push_back({.owner = std::string(owner), .id = RandomPoolId(), .pool = created});
  return created;
}

absl::StatusOr<std::string> ExportablePools::IdFor(cudaMemPool_t pool,
                                                   std::string_view owner) const {
  absl::MutexLock lock(&mutex_);
  for (const Pool& candidate : pools_) {
    if (candidate.pool != pool) continue;
    if (candidate.owner != owner) {
      return absl::FailedPreconditionError(fmt::format(
          "the array's memory belongs to tenant '{}', and exporting it would hand out that "
          "tenant's memory pool; export a copy instead (e.g. a.copy())",
          candidate.owner));
    }
    return candidate.id;
  }
  return absl::FailedPreconditionError(
      "the array's memory is not in an exportable pool (made outside any session)");
}

absl::StatusOr<int> ExportablePools::Descriptor(std::string_view pool_id) const {
  absl::MutexLock lock(&mutex_);
  for (const Pool& pool : pools_) {
    if (pool.id != pool_id) continue;
    int fd = -1;
    AH_CUDA_RETURN_IF_ERROR(cudaMemPoolExportToShareableHandle(
        &fd, pool.pool, cudaMemHandleTypePosixFileDescriptor, 0));
    return fd;
  }
  return absl::NotFoundError(fmt::format("no exportable memory pool '{}'", pool_id));
}

absl::Status ExportablePools::TrimAll() {
  absl::MutexLock lock(&mutex_);
  for (const Pool& pool : pools_) AH_CUDA_RETURN_IF_ERROR(cudaMemPoolTrimTo(pool.pool, 0));
  return absl::OkStatus();
}

}  // namespace arrayhub
