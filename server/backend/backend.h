// The interface every compute backend implements. A backend computes what core has already
// validated: it trusts offsets, counts and dtypes it is given, and reports only failures of
// its own (out of memory, device errors).
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/backend/buffer.h"
#include "server/backend/collectives.h"
#include "server/backend/compute.h"
#include "server/backend/device_health.h"
#include "server/backend/fft.h"
#include "server/backend/host_region.h"
#include "server/backend/indexing.h"
#include "server/backend/linalg.h"
#include "server/backend/memory_counters.h"
#include "server/backend/raw_kernel.h"
#include "server/backend/staging.h"
#include "server/backend/timestamp.h"
#include "server/backend/user_kernel.h"
#include "server/backend/work_queue.h"
#include "server/common/dtype.h"

namespace arrayhub {

struct DeviceDescription {
  std::string name;         // "cpu", "cuda:0"
  std::string description;  // Model and capability, for humans.
  int64_t total_memory_bytes = 0;
  int64_t free_memory_bytes = 0;
};

// What a process on the same host needs to map a buffer's device memory (CUDA IPC through a
// stream-ordered pool; docs/ipc.md).
struct ExportedMemory {
  std::string pool_id;              // The pool the buffer is in; the client imports it once.
  std::string pointer_export_data;  // cudaMemPoolPtrExportData's bytes.
  std::string device_uuid;          // "GPU-xxxxxxxx-xxxx-...", as nvidia-smi shows it.
  int device_ordinal = 0;
};

// Values start + i * step for i in [0, count), written as `dtype` from byte 0 of a buffer.
// This is numpy.arange's fill (and numpy.linspace's, with `float64_math`).
struct AffineFill {
  DType dtype = DType::kFloat64;
  int64_t count = 0;
  // Integer dtypes: start and step as int64, arithmetic wrapping modulo 2^64 and then
  // truncated to the dtype's width.
  int64_t int_start = 0;
  int64_t int_step = 0;
  // Floating and complex dtypes.
  std::complex<double> start{};
  std::complex<double> step{};
  // false: arange semantics; the arithmetic is done in the dtype's own precision (float32 for
  //   float16/float32/complex64, as NumPy's fill does).
  // true: linspace semantics; computed in float64 (complex128) and then rounded to the dtype;
  //   integer dtypes take the floor of the float64 value.
  bool float64_math = false;
};

// Calls that compute may return before the device is done: their work is ordered on the bound
// queue, and what they report is what was found while enqueueing it. A failure the device
// finds later surfaces at the next call that waits for the queue (CopyToHost, CountNonzero,
// Nonzero, the bounds checks of Gather and Scatter, the linear-algebra calls that read
// LAPACK's info), naming the calls enqueued since the queue last waited.
class Backend {
 public:
  virtual ~Backend() = default;

  // "cpu" or "cuda".
  virtual std::string_view name() const = 0;
  virtual std::vector<DeviceDescription> Devices() const = 0;
  // Device name recorded in ArrayInfo ("cpu", "cuda:0").
  virtual std::string DeviceName() const = 0;
  virtual MemoryStats Memory() const = 0;
  // Where the backend reports that its device is lost for good, and the server hears of it.
  DeviceHealth& device_health() { return device_health_; }

  // Ordering (see work_queue.h). A new queue for a session of tenant `memory_owner`: memory
  // allocated while it is bound is that tenant's (on a backend that keeps tenants' memory
  // apart for export, see ExportMemory).
  virtual absl::StatusOr<std::shared_ptr<WorkQueue>> NewQueue(std::string_view memory_owner) = 0;
  // Until the binding ends, the calling thread's calls enqueue on `queue` (null: the backend's
  // default queue); `label` names them in the report of a device error found later. Binding
  // the queue the thread has bound already gives an empty binding.
  virtual std::unique_ptr<QueueBinding> Bind(std::shared_ptr<WorkQueue> queue,
                                             std::string_view label) = 0;
  // The bound calls are about to read or write `buffer`: from now on each of them is a critical
  // section over the queue that owns it too, after the work that queue enqueued before the call
  // and before the work it enqueues after (docs/execution.md). Nothing to do when the buffer is
  // the bound queue's own or no queue is bound.
  virtual absl::Status Use(const std::shared_ptr<Buffer>& buffer) = 0;

  // Uninitialised memory of `nbytes` (may be 0). RESOURCE_EXHAUSTED when the device is full.
  virtual absl::StatusOr<std::shared_ptr<Buffer>> Allocate(int64_t nbytes) = 0;

  // Writes `pattern` (one element's bytes, 1..16 of them) `count` times, the first at byte
  // `offset` and each next one `stride_bytes` further (stride_bytes >= pattern.size()).
  virtual absl::Status FillPattern(Buffer& buffer, int64_t offset, int64_t count,
                                   int64_t stride_bytes, std::span<const std::byte> pattern) = 0;

  // Writes an arithmetic sequence (see AffineFill) from byte 0 of `buffer`.
  virtual absl::Status FillAffine(Buffer& buffer, const AffineFill& fill) = 0;

  // Copies between host memory and a buffer; [offset, offset + size) lies inside the buffer.
  // CopyFromHost may return before the copy is done (the source may go at once); CopyToHost
  // returns when the destination holds the data, after all the work enqueued before it.
  virtual absl::Status CopyFromHost(Buffer& buffer, int64_t offset,
                                    std::span<const std::byte> source) = 0;
  virtual absl::Status CopyToHost(const Buffer& buffer, int64_t offset,
                                  std::span<std::byte> destination) = 0;

  // Copies `nbytes` from byte `source_offset` of `source` to byte `target_offset` of
  // `target`, device to device: `source` may be a buffer of another backend of this process
  // (another device of the daemon; peer to peer between GPUs, never through the host), which
  // the bound calls have Use()d, so the copy is ordered after its writers and before its free.
  virtual absl::Status CopyFromDevice(Buffer& target, int64_t target_offset, const Buffer& source,
                                      int64_t source_offset, int64_t nbytes) = 0;

  // One collective over several devices of this backend's kind (see collectives.h), called on
  // any one of them: each rank's part goes to its queue and is ordered there as a call that
  // Use()d its input and output would be, and the parts run together.
  virtual absl::Status Collective(const CollectiveCall& call) = 0;

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

  // Computation (see compute.h for the exact contract of each call).
  virtual absl::Status Elementwise(const ElementwiseCall& call) = 0;
  virtual absl::Status FusedElementwise(const FusedElementwiseCall& call) = 0;
  virtual absl::Status Reduce(const ReduceCall& call) = 0;
  virtual absl::Status FillRandom(const RandomCall& call) = 0;

  // Linear algebra (see linalg.h).
  virtual absl::Status Matmul(const MatmulCall& call) = 0;
  virtual absl::Status Svd(const SvdCall& call) = 0;
  virtual absl::Status Qr(const QrCall& call) = 0;
  virtual absl::Status Cholesky(const CholeskyCall& call) = 0;
  virtual absl::Status Eigh(const EighCall& call) = 0;
  virtual absl::Status Eig(const EigCall& call) = 0;
  virtual absl::Status Solve(const SolveCall& call) = 0;
  virtual absl::Status Slogdet(const SlogdetCall& call) = 0;

  // Discrete Fourier transforms (see fft.h).
  virtual absl::Status Fft(const FftCall& call) = 0;

  // Indexing and manipulation (see indexing.h).
  virtual absl::Status Gather(const GatherCall& call) = 0;
  virtual absl::Status Scatter(const ScatterCall& call) = 0;
  virtual absl::Status Sort(const SortCall& call) = 0;
  virtual absl::Status Partition(const PartitionCall& call) = 0;
  virtual absl::Status Scan(const ScanCall& call) = 0;
  // Number of elements of `input` that are not zero (NaN counts), as numpy.count_nonzero.
  virtual absl::StatusOr<int64_t> CountNonzero(const ArrayView& input) = 0;
  // Writes the positions of at most as many nonzero elements as the coordinates hold, and
  // answers how many it found: another call may have written the input since CountNonzero.
  virtual absl::StatusOr<int64_t> Nonzero(const NonzeroCall& call) = 0;
  virtual absl::Status SearchSorted(const SearchSortedCall& call) = 0;
  virtual absl::Status Histogram(const HistogramCall& call) = 0;

  // Timing (see timestamp.h). A point in the bound queue's order, its time taken when the queue
  // reaches it (after the work enqueued before it, before the work enqueued after).
  virtual absl::StatusOr<std::shared_ptr<Timestamp>> RecordTimestamp() = 0;
  // Milliseconds from `start` to `end`, two timestamps of this backend (negative when `end`
  // was reached first); waits until the queues have reached both.
  virtual absl::StatusOr<double> ElapsedMilliseconds(Timestamp& start, Timestamp& end) = 0;

  // User kernels (see user_kernel.h).
  // Compiles `kernel` for this backend. Called on the RPC's thread, never a queue's, so a
  // compile never stalls queued work; core caches the result.
  virtual absl::StatusOr<std::shared_ptr<const PreparedUserKernel>> PrepareUserKernel(
      std::shared_ptr<const kernel::CheckedKernel> kernel) = 0;
  virtual absl::Status RunUserKernel(const UserKernelCall& call) = 0;

  // Raw CUDA kernels (see raw_kernel.h): compiled on the RPC's thread like user kernels.
  // Backends without CUDA answer FAILED_PRECONDITION (RawKernelsNeedCuda).
  virtual absl::StatusOr<std::shared_ptr<const PreparedRawKernel>> PrepareRawKernel(
      const RawKernelSource& source) = 0;
  virtual absl::Status RunRawKernel(const RawKernelCall& call) = 0;

 private:
  DeviceHealth device_health_;
};

}  // namespace arrayhub
