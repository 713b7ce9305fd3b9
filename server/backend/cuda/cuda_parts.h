// The CUDA backend's parts (backend.h), one per family of calls. Each call that enqueues work
// or reads buffers starts with OnCudaDevice::Enter.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "server/backend/backend.h"
#include "server/backend/cuda/cuda_queue.h"

namespace arrayhub {

struct CudaDeviceState;

// The device a part's calls run on.
class OnCudaDevice {
 public:
  explicit OnCudaDevice(int device) : device_(device) {}
  int device() const { return device_; }

 protected:
  // Makes the device current on the calling thread (RPCs arrive on any thread).
  absl::Status Activate() const;
  // Activate(), then the call's critical section over its queues: the first line of every call
  // that enqueues work or reads buffers (QueueSection, cuda_queue.h). INTERNAL when `queue` is
  // no binding of a queue of this device.
  absl::StatusOr<QueueSection> Enter(QueueBinding& queue) const;
  // `queue` as a binding of a queue of this device; INTERNAL when it is none.
  absl::StatusOr<CudaQueueBinding*> BindingOn(QueueBinding& queue) const;

 private:
  int device_;
};

// A stream per session (cuda_queue.h) and CUDA events with timing (cuda_backend.cc,
// cuda_timestamp.cc).
class CudaQueues final : public Queues, private OnCudaDevice {
 public:
  explicit CudaQueues(std::shared_ptr<CudaDeviceState> state);

  absl::StatusOr<std::shared_ptr<WorkQueue>> NewQueue(std::string_view memory_owner) override;
  std::unique_ptr<QueueBinding> Bind(std::shared_ptr<WorkQueue> queue,
                                     std::string_view label) override;
  absl::Status Use(QueueBinding& queue, const std::shared_ptr<Buffer>& buffer) override;
  // cudaEventRecord on the session's stream, cudaEventElapsedTime.
  absl::StatusOr<std::shared_ptr<Timestamp>> RecordTimestamp(QueueBinding& queue) override;
  absl::StatusOr<double> ElapsedMilliseconds(Timestamp& start, Timestamp& end) override;

 private:
  std::shared_ptr<CudaDeviceState> state_;
};

// Stream-ordered allocation from the device's pools (cuda_device_memory.cc).
class CudaMemory final : public DeviceMemory, private OnCudaDevice {
 public:
  explicit CudaMemory(std::shared_ptr<CudaDeviceState> state);

  absl::StatusOr<std::shared_ptr<Buffer>> Allocate(QueueBinding& queue, int64_t nbytes) override;
  absl::Status FillPattern(QueueBinding& queue, Buffer& buffer, int64_t offset, int64_t count,
                           int64_t stride_bytes, std::span<const std::byte> pattern) override;
  absl::Status FillAffine(QueueBinding& queue, Buffer& buffer, const AffineFill& fill) override;
  absl::Status CopyFromHost(QueueBinding& queue, Buffer& buffer, int64_t offset,
                            std::span<const std::byte> source) override;
  absl::Status CopyToHost(QueueBinding& queue, const Buffer& buffer, int64_t offset,
                          std::span<std::byte> destination) override;
  // Peer to peer where the devices reach each other.
  absl::Status CopyFromDevice(QueueBinding& queue, Buffer& target, int64_t target_offset,
                              const Buffer& source, int64_t source_offset, int64_t nbytes) override;

 private:
  std::shared_ptr<CudaDeviceState> state_;
};

// Pinned staging and spill memory (cuda_staging.h), pinned client regions
// (cuda_host_region.cc), and export of tenants' pools (cuda_exchange.cc).
class CudaExchange final : public HostExchange, private OnCudaDevice {
 public:
  // Staging past the pinned pool copies through `memory`, which outlives this.
  CudaExchange(std::shared_ptr<CudaDeviceState> state, DeviceMemory& memory);

  // Pinned memory from a pool shared by all transfers, else ordinary memory.
  absl::StatusOr<std::unique_ptr<StagingBuffer>> AllocateStaging(int64_t nbytes) override;
  absl::StatusOr<std::unique_ptr<StagingBuffer>> AllocateHostTier(int64_t nbytes,
                                                                  int64_t tier_bytes) override;
  // Maps and pins the object once.
  absl::StatusOr<std::unique_ptr<HostRegion>> OpenHostRegion(int fd, int64_t size) override;
  absl::StatusOr<ExportedMemory> ExportMemory(const Buffer& buffer,
                                              std::string_view memory_owner) override;
  absl::StatusOr<int> ExportPoolDescriptor(std::string_view pool_id) override;

 private:
  std::shared_ptr<CudaDeviceState> state_;
  DeviceMemory& memory_;
};

// NCCL on the ranks' session streams (cuda_collectives.cc).
class CudaCollectives final : public Collectives {
 public:
  absl::Status Collective(const CollectiveCall& call) override;
};

// Kernels generated per signature and compiled by NVRTC (cuda_elementwise.cc), the reduction
// kernels (reduction.cc), cuRAND (random_fill.cc).
class CudaCompute final : public ComputeKernels, private OnCudaDevice {
 public:
  using OnCudaDevice::OnCudaDevice;

  absl::Status Elementwise(QueueBinding& queue, const ElementwiseCall& call) override;
  absl::Status FusedElementwise(QueueBinding& queue, const FusedElementwiseCall& call) override;
  absl::Status Reduce(QueueBinding& queue, const ReduceCall& call) override;
  absl::Status FillRandom(QueueBinding& queue, const RandomCall& call) override;
};

// cuBLAS (cuda_matmul.cc), cuSOLVER (cuda_linalg.cc, cuda_svd.cc).
class CudaLinalg final : public LinalgKernels, private OnCudaDevice {
 public:
  using OnCudaDevice::OnCudaDevice;

  absl::Status Matmul(QueueBinding& queue, const MatmulCall& call) override;
  absl::Status Svd(QueueBinding& queue, const SvdCall& call) override;
  absl::Status Qr(QueueBinding& queue, const QrCall& call) override;
  absl::Status Cholesky(QueueBinding& queue, const CholeskyCall& call) override;
  absl::Status Eigh(QueueBinding& queue, const EighCall& call) override;
  absl::Status Eig(QueueBinding& queue, const EigCall& call) override;
  absl::Status Solve(QueueBinding& queue, const SolveCall& call) override;
  absl::Status Slogdet(QueueBinding& queue, const SlogdetCall& call) override;
};

// cuFFT (cuda_fft.cc).
class CudaFft final : public FftKernels, private OnCudaDevice {
 public:
  using OnCudaDevice::OnCudaDevice;

  absl::Status Fft(QueueBinding& queue, const FftCall& call) override;
};

// CUB and kernels of ours (cuda_indexing.cc).
class CudaIndexing final : public IndexingKernels, private OnCudaDevice {
 public:
  using OnCudaDevice::OnCudaDevice;

  absl::Status Gather(QueueBinding& queue, const GatherCall& call) override;
  absl::Status Scatter(QueueBinding& queue, const ScatterCall& call) override;
  absl::Status Sort(QueueBinding& queue, const SortCall& call) override;
  absl::Status Partition(QueueBinding& queue, const PartitionCall& call) override;
  absl::Status Scan(QueueBinding& queue, const ScanCall& call) override;
  absl::StatusOr<int64_t> CountNonzero(QueueBinding& queue, const ArrayView& input) override;
  absl::StatusOr<int64_t> Nonzero(QueueBinding& queue, const NonzeroCall& call) override;
  absl::Status SearchSorted(QueueBinding& queue, const SearchSortedCall& call) override;
  absl::StatusOr<int64_t> SelectUnique(QueueBinding& queue, const UniqueCall& call) override;
  absl::Status Histogram(QueueBinding& queue, const HistogramCall& call) override;
};

// NVRTC through the kernel cache; launched on the session's stream (user_kernel_launch.cc).
class CudaUserKernels final : public UserKernels, private OnCudaDevice {
 public:
  using OnCudaDevice::OnCudaDevice;

  absl::StatusOr<std::shared_ptr<const PreparedUserKernel>> PrepareUserKernel(
      std::shared_ptr<const kernel::CheckedKernel> kernel) override;
  absl::Status RunUserKernel(QueueBinding& queue, const UserKernelCall& call) override;
};

// A client's CUDA source compiled once by NVRTC (raw_kernel_launch.cc).
class CudaRawKernels final : public RawKernels, private OnCudaDevice {
 public:
  using OnCudaDevice::OnCudaDevice;

  absl::StatusOr<std::shared_ptr<const PreparedRawKernel>> PrepareRawKernel(
      const RawKernelSource& source) override;
  absl::Status RunRawKernel(QueueBinding& queue, const RawKernelCall& call) override;
};

}  // namespace arrayhub
