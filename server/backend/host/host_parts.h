// The CPU backend's parts (backend.h), one per family of calls. Every call runs to completion
// on the calling thread, as a critical section over the queues it touches (host_queue.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "server/backend/backend.h"

namespace arrayhub {

// host_queue.cc, host_timestamp.cc.
class CpuQueues final : public Queues {
 public:
  absl::StatusOr<std::shared_ptr<WorkQueue>> NewQueue(std::string_view memory_owner) override;
  std::unique_ptr<QueueBinding> Bind(std::shared_ptr<WorkQueue> queue,
                                     std::string_view label) override;
  absl::Status Use(QueueBinding& queue, const std::shared_ptr<Buffer>& buffer) override;
  // A steady-clock reading at the call: the call runs when the queue has run everything
  // before it.
  absl::StatusOr<std::shared_ptr<Timestamp>> RecordTimestamp(QueueBinding& queue) override;
  absl::StatusOr<double> ElapsedMilliseconds(Timestamp& start, Timestamp& end) override;
};

// 64-byte-aligned host memory (host_device_memory.cc).
class CpuMemory final : public DeviceMemory {
 public:
  // At most `limit` bytes at once, counted in `counters`.
  CpuMemory(int64_t limit, std::shared_ptr<MemoryCounters> counters)
      : limit_(limit), counters_(std::move(counters)) {}

  absl::StatusOr<std::shared_ptr<Buffer>> Allocate(QueueBinding& queue, int64_t nbytes) override;
  absl::Status FillPattern(QueueBinding& queue, Buffer& buffer, int64_t offset, int64_t count,
                           int64_t stride_bytes, std::span<const std::byte> pattern) override;
  absl::Status FillAffine(QueueBinding& queue, Buffer& buffer, const AffineFill& fill) override;
  absl::Status CopyFromHost(QueueBinding& queue, Buffer& buffer, int64_t offset,
                            std::span<const std::byte> source) override;
  absl::Status CopyToHost(QueueBinding& queue, const Buffer& buffer, int64_t offset,
                          std::span<std::byte> destination) override;
  // Every virtual device's memory is host memory: a memmove.
  absl::Status CopyFromDevice(QueueBinding& queue, Buffer& target, int64_t target_offset,
                              const Buffer& source, int64_t source_offset, int64_t nbytes) override;

 private:
  class HostBuffer;
  int64_t limit_;
  std::shared_ptr<MemoryCounters> counters_;
};

// Ordinary memory: the CPU reads and writes the buffers directly either way
// (host_file_region.cc).
class CpuExchange final : public HostExchange {
 public:
  // Staging buffers copy through `memory`, which outlives them.
  explicit CpuExchange(DeviceMemory& memory) : memory_(memory) {}

  absl::StatusOr<std::unique_ptr<StagingBuffer>> AllocateStaging(int64_t nbytes) override;
  absl::StatusOr<std::unique_ptr<StagingBuffer>> AllocateHostTier(int64_t nbytes,
                                                                  int64_t tier_bytes) override;
  // pread/pwrite on the descriptor.
  absl::StatusOr<std::unique_ptr<HostRegion>> OpenHostRegion(int fd, int64_t size) override;
  // Host memory has nothing to export: FAILED_PRECONDITION.
  absl::StatusOr<ExportedMemory> ExportMemory(const Buffer& buffer,
                                              std::string_view memory_owner) override;
  absl::StatusOr<int> ExportPoolDescriptor(std::string_view pool_id) override;

 private:
  DeviceMemory& memory_;
};

// Between --cpu-devices' virtual devices, through host memory (host_collectives.cc).
class CpuCollectives final : public Collectives {
 public:
  absl::Status Collective(const CollectiveCall& call) override;
};

// host_elementwise.cc, host_reduce.cc, host_random.cc.
class CpuCompute final : public ComputeKernels {
 public:
  // Fused calls' temporaries come from `memory`, which outlives this.
  explicit CpuCompute(DeviceMemory& memory) : memory_(memory) {}

  absl::Status Elementwise(QueueBinding& queue, const ElementwiseCall& call) override;
  // One Elementwise call per step (fused_steps.h).
  absl::Status FusedElementwise(QueueBinding& queue, const FusedElementwiseCall& call) override;
  absl::Status Reduce(QueueBinding& queue, const ReduceCall& call) override;
  absl::Status FillRandom(QueueBinding& queue, const RandomCall& call) override;

 private:
  DeviceMemory& memory_;
};

// OpenBLAS and LAPACKE (host_linalg.cc).
class CpuLinalg final : public LinalgKernels {
 public:
  absl::Status Matmul(QueueBinding& queue, const MatmulCall& call) override;
  absl::Status Svd(QueueBinding& queue, const SvdCall& call) override;
  absl::Status Qr(QueueBinding& queue, const QrCall& call) override;
  absl::Status Cholesky(QueueBinding& queue, const CholeskyCall& call) override;
  absl::Status Eigh(QueueBinding& queue, const EighCall& call) override;
  absl::Status Eig(QueueBinding& queue, const EigCall& call) override;
  absl::Status Solve(QueueBinding& queue, const SolveCall& call) override;
  absl::Status Slogdet(QueueBinding& queue, const SlogdetCall& call) override;
};

// FFTW (host_fft.cc).
class CpuFft final : public FftKernels {
 public:
  absl::Status Fft(QueueBinding& queue, const FftCall& call) override;
};

// host_indexing.cc, host_sort.cc.
class CpuIndexing final : public IndexingKernels {
 public:
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

// The kernel's tree compiled to slot code run over blocks of indices (host_user_kernel.cc).
class CpuUserKernels final : public UserKernels {
 public:
  absl::StatusOr<std::shared_ptr<const PreparedUserKernel>> PrepareUserKernel(
      std::shared_ptr<const kernel::CheckedKernel> kernel) override;
  absl::Status RunUserKernel(QueueBinding& queue, const UserKernelCall& call) override;
};

// Raw CUDA kernels need the CUDA backend: FAILED_PRECONDITION (host_user_kernel.cc).
class CpuRawKernels final : public RawKernels {
 public:
  absl::StatusOr<std::shared_ptr<const PreparedRawKernel>> PrepareRawKernel(
      const RawKernelSource& source) override;
  absl::Status RunRawKernel(QueueBinding& queue, const RawKernelCall& call) override;
};

}  // namespace arrayhub
