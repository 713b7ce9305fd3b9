// The CPU backend: arrays in 64-byte-aligned host memory, loops on the calling thread.
#pragma once

#include <memory>

#include "server/backend/backend.h"
#include "server/backend/host/host_memory.h"

namespace arrayhub {

class HostBackend final : public Backend {
 public:
  // Arrays may hold at most `memory_limit` bytes at once (the host's memory, or the container's
  // limit: host_memory.h); an allocation past it is RESOURCE_EXHAUSTED.
  // `device_name`: "cpu", or "cpu:N" for one of --cpu-devices' virtual devices (which share
  // the host's memory, each allocating up to `memory_limit`).
  explicit HostBackend(int64_t memory_limit = HostMemoryCapacity(),
                       std::string device_name = "cpu");

  int64_t memory_limit() const { return memory_limit_; }

  std::string_view name() const override { return "cpu"; }
  std::vector<DeviceDescription> Devices() const override;
  std::string DeviceName() const override { return device_name_; }
  MemoryStats Memory() const override;

  // Every call runs to completion on the calling thread, as a critical section over the
  // queues it touches (host_queue.h).
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
  // pread/pwrite on the descriptor (host_file_region.cc).
  // Ordinary memory: the CPU reads and writes the buffers directly either way.
  absl::StatusOr<std::unique_ptr<StagingBuffer>> AllocateStaging(int64_t nbytes) override {
    return NewPageableStaging(*this, nbytes);
  }
  absl::StatusOr<std::unique_ptr<StagingBuffer>> AllocateHostTier(int64_t nbytes,
                                                                  int64_t) override {
    return NewPageableStaging(*this, nbytes);
  }
  absl::StatusOr<std::unique_ptr<HostRegion>> OpenHostRegion(int fd, int64_t size) override;
  // Host memory has nothing to export: FAILED_PRECONDITION.
  absl::StatusOr<ExportedMemory> ExportMemory(const Buffer& buffer,
                                              std::string_view memory_owner) override;
  absl::StatusOr<int> ExportPoolDescriptor(std::string_view pool_id) override;

  absl::Status Elementwise(const ElementwiseCall& call) override;
  // One Elementwise call per step (fused_steps.h).
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
  // FFTW (host_fft.cc).
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

  // A steady-clock reading at the call (host_timestamp.cc): the call runs when the queue
  // has run everything before it.
  absl::StatusOr<std::shared_ptr<Timestamp>> RecordTimestamp() override;
  absl::StatusOr<double> ElapsedMilliseconds(Timestamp& start, Timestamp& end) override;

  // The kernel's tree compiled to slot code run over blocks of indices (host_user_kernel.cc).
  absl::StatusOr<std::shared_ptr<const PreparedUserKernel>> PrepareUserKernel(
      std::shared_ptr<const kernel::CheckedKernel> kernel) override;
  absl::Status RunUserKernel(const UserKernelCall& call) override;
  absl::StatusOr<std::shared_ptr<const PreparedRawKernel>> PrepareRawKernel(
      const RawKernelSource& source) override;
  absl::Status RunRawKernel(const RawKernelCall& call) override;

 private:
  class HostBuffer;
  int64_t memory_limit_;
  std::string device_name_;
  std::shared_ptr<MemoryCounters> counters_;
};

}  // namespace arrayhub
