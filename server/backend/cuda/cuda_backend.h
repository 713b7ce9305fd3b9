// The CUDA backend: arrays in one GPU's memory, work on a stream per session (cuda_queue.h).
#pragma once

#include <memory>
#include <string>

#include "server/backend/backend.h"

namespace arrayhub {

class DeviceLossWatch;
class QueueSection;

// Number of usable CUDA devices; 0 when there is no driver or no device (never fails).
int CudaDeviceCount();

// A backend on device `device_ordinal` (0-based); NOT_FOUND when there is no such device.
// With `exportable_memory`, each tenant's memory comes from a pool of its own that other
// processes on the host can import (CUDA IPC, docs/ipc.md); where the device cannot share
// pools, export stays off (logged) and the backend works all the same.
absl::StatusOr<std::unique_ptr<Backend>> CreateCudaBackend(int device_ordinal,
                                                           bool exportable_memory = false);

class CudaBackend final : public Backend {
 public:
  ~CudaBackend() override;

  std::string_view name() const override { return "cuda"; }
  std::vector<DeviceDescription> Devices() const override;
  std::string DeviceName() const override;
  MemoryStats Memory() const override;

  absl::StatusOr<std::shared_ptr<WorkQueue>> NewQueue(std::string_view memory_owner) override;
  std::unique_ptr<QueueBinding> Bind(std::shared_ptr<WorkQueue> queue,
                                     std::string_view label) override;
  absl::Status Use(const std::shared_ptr<Buffer>& buffer) override;

  absl::StatusOr<std::shared_ptr<Buffer>> Allocate(int64_t nbytes) override;
  absl::Status FillPattern(Buffer& buffer, int64_t offset, int64_t count, int64_t stride_bytes,
                           std::span<const std::byte> pattern) override;
  absl::Status FillAffine(Buffer& buffer, const AffineFill& fill) override;
  absl::Status CopyFromHost(Buffer& buffer, int64_t offset,
                            std::span<const std::byte> source) override;
  absl::Status CopyToHost(const Buffer& buffer, int64_t offset,
                          std::span<std::byte> destination) override;
  absl::Status Collective(const CollectiveCall& call) override;
  absl::Status CopyFromDevice(Buffer& target, int64_t target_offset, const Buffer& source,
                              int64_t source_offset, int64_t nbytes) override;
  // Pinned memory from a pool shared by all transfers (cuda_staging.h), else ordinary memory.
  absl::StatusOr<std::unique_ptr<StagingBuffer>> AllocateStaging(int64_t nbytes) override;
  absl::StatusOr<std::unique_ptr<StagingBuffer>> AllocateHostTier(int64_t nbytes,
                                                                  int64_t tier_bytes) override;
  // Maps and pins the object once (cuda_host_region.cc).
  absl::StatusOr<std::unique_ptr<HostRegion>> OpenHostRegion(int fd, int64_t size) override;
  absl::StatusOr<ExportedMemory> ExportMemory(const Buffer& buffer,
                                              std::string_view memory_owner) override;
  absl::StatusOr<int> ExportPoolDescriptor(std::string_view pool_id) override;

  absl::Status Elementwise(const ElementwiseCall& call) override;
  absl::Status FusedElementwise(const FusedElementwiseCall& call) override;
  absl::Status Reduce(const ReduceCall& call) override;
  absl::Status FillRandom(const RandomCall& call) override;

  absl::Status Matmul(const MatmulCall& call) override;
  absl::Status Svd(const SvdCall& call) override;
  absl::Status Qr(const QrCall& call) override;
  absl::Status Cholesky(const CholeskyCall& call) override;
  absl::Status Eigh(const EighCall& call) override;
  absl::Status Eig(const EigCall& call) override;
  absl::Status Solve(const SolveCall& call) override;
  absl::Status Slogdet(const SlogdetCall& call) override;
  // cuFFT (cuda_fft.cc).
  absl::Status Fft(const FftCall& call) override;

  absl::Status Gather(const GatherCall& call) override;
  absl::Status Scatter(const ScatterCall& call) override;
  absl::Status Sort(const SortCall& call) override;
  absl::Status Partition(const PartitionCall& call) override;
  absl::Status Scan(const ScanCall& call) override;
  absl::StatusOr<int64_t> CountNonzero(const ArrayView& input) override;
  absl::StatusOr<int64_t> Nonzero(const NonzeroCall& call) override;
  absl::Status SearchSorted(const SearchSortedCall& call) override;
  absl::Status Histogram(const HistogramCall& call) override;

  // cudaEventRecord on the session's stream, cudaEventElapsedTime (cuda_timestamp.cc).
  absl::StatusOr<std::shared_ptr<Timestamp>> RecordTimestamp() override;
  absl::StatusOr<double> ElapsedMilliseconds(Timestamp& start, Timestamp& end) override;

  // User kernels: NVRTC through the kernel cache; launched on the session's stream
  // (user_kernel_launch.cc).
  absl::StatusOr<std::shared_ptr<const PreparedUserKernel>> PrepareUserKernel(
      std::shared_ptr<const kernel::CheckedKernel> kernel) override;
  absl::Status RunUserKernel(const UserKernelCall& call) override;
  absl::StatusOr<std::shared_ptr<const PreparedRawKernel>> PrepareRawKernel(
      const RawKernelSource& source) override;
  absl::Status RunRawKernel(const RawKernelCall& call) override;

 private:
  class CudaBuffer;
  // The memory pool and counters, shared with every live buffer, which reports its release
  // there; buffers may outlive the backend object.
  struct State;

  CudaBackend(std::shared_ptr<State> state, std::string description, int64_t total_memory);
  friend absl::StatusOr<std::unique_ptr<Backend>> CreateCudaBackend(int device_ordinal,
                                                                    bool exportable_memory);

  // Makes this backend's device current on the calling thread (RPCs arrive on any thread).
  absl::Status Activate() const;
  // Activate(), then the call's critical section over its queues: the first line of every call
  // that enqueues work or reads buffers (QueueSection, cuda_queue.h).
  absl::StatusOr<QueueSection> Enter() const;
  // Free device memory now, as the driver reports it.
  absl::StatusOr<int64_t> FreeMemory() const;

  std::shared_ptr<State> state_;
  std::string description_;
  int64_t total_memory_;
  std::unique_ptr<DeviceLossWatch> loss_watch_;  // Reports to device_health().
};

}  // namespace arrayhub
