#include "server/backend/cuda/cuda_backend.h"

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>

#include "server/backend/cuda/cuda_check.h"
#include "server/backend/cuda/cuda_queue.h"
#include "server/backend/cuda/cuda_staging.h"
#include "server/backend/cuda/device_loss.h"
#include "server/backend/cuda/exportable_pools.h"
#include "server/backend/cuda/fill_kernels.cuh"
#include "server/backend/cuda/peer_access.h"
#include "server/common/status_macros.h"

namespace arrayhub {

namespace {

// For destructors, which have no caller to report to.
void LogIfError(const absl::Status& status) {
  if (!status.ok()) spdlog::error("cuda backend: {}", status.ToString());
}

}  // namespace

struct CudaBackend::State {
  explicit State(int device) : device(device) {}

  const int device;
  std::string device_uuid;
  cudaMemPool_t pool = nullptr;  // The device's default pool.
  // Tenants' pools, where memory is exportable (CUDA IPC); null: every queue allocates from
  // the default pool and nothing is exported.
  std::unique_ptr<ExportablePools> exportable;
  MemoryCounters memory;
  std::shared_ptr<PinnedStagingPool> staging;
  // The spill host tier's pinned blocks (AllocateHostTier), bounded per call by the tier's size.
  std::shared_ptr<PinnedStagingPool> host_tier;
};

class CudaBackend::CudaBuffer final : public CudaQueuedBuffer {
 public:
  CudaBuffer(void* data, int64_t size, std::shared_ptr<CudaQueue> home,
             std::shared_ptr<State> state)
      : CudaQueuedBuffer(data, size, std::move(home)), state_(std::move(state)) {
    state_->memory.Add(size);
  }
  // The pool the memory came from: its home queue's.
  cudaMemPool_t pool() const { return home()->pool() != nullptr ? home()->pool() : state_->pool; }
  // Stream-ordered: the memory goes back to the pool once the work its queue holds is done
  // (each call of another queue that used it made this queue wait for it; see QueueSection).
  ~CudaBuffer() override {
    LogIfError(CudaStatus(cudaSetDevice(state_->device), "cudaSetDevice"));
    LogIfError(CudaStatus(cudaFreeAsync(data(), home()->stream()), "cudaFreeAsync"));
    state_->memory.Remove(size());
  }

 private:
  std::shared_ptr<State> state_;
};

int CudaDeviceCount() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();  // No driver or no device: not an error for the caller.
    return 0;
  }
  return count;
}

// "GPU-" and the 16 bytes in nvidia-smi's grouping, so that a client can find the same device
// under its own ordinal (CUDA_VISIBLE_DEVICES may number it differently there).
std::string FormatUuid(const cudaUUID_t& uuid) {
  std::string text = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text += '-';
    text += fmt::format("{:02x}", static_cast<unsigned char>(uuid.bytes[i]));
  }
  return text;
}

absl::StatusOr<std::unique_ptr<Backend>> CreateCudaBackend(int device_ordinal,
                                                           bool exportable_memory) {
  const int count = CudaDeviceCount();
  if (device_ordinal < 0 || device_ordinal >= count) {
    return absl::NotFoundError(
        fmt::format("no CUDA device cuda:{} ({} found)", device_ordinal, count));
  }
  AH_CUDA_RETURN_IF_ERROR(cudaSetDevice(device_ordinal));
  cudaDeviceProp props;
  AH_CUDA_RETURN_IF_ERROR(cudaGetDeviceProperties(&props, device_ordinal));
  int pools_supported = 0;
  AH_CUDA_RETURN_IF_ERROR(
      cudaDeviceGetAttribute(&pools_supported, cudaDevAttrMemoryPoolsSupported, device_ordinal));
  if (pools_supported == 0) {
    return absl::FailedPreconditionError(
        fmt::format("cuda:{} does not support stream-ordered allocation", device_ordinal));
  }

  auto state = std::make_shared<CudaBackend::State>(device_ordinal);
  AH_CUDA_RETURN_IF_ERROR(cudaDeviceGetDefaultMemPool(&state->pool, device_ordinal));
  // Keep freed memory in the pool for the next allocation rather than handing it back to the
  // device at every synchronization; Allocate trims the pool when the device runs out.
  uint64_t threshold = std::numeric_limits<uint64_t>::max();
  AH_CUDA_RETURN_IF_ERROR(
      cudaMemPoolSetAttribute(state->pool, cudaMemPoolAttrReleaseThreshold, &threshold));
  AH_RETURN_IF_ERROR(GrantPeerAccess(state->pool, device_ordinal));
  state->device_uuid = FormatUuid(props.uuid);
  state->staging =
      std::make_shared<PinnedStagingPool>(device_ordinal, PinnedStagingPool::kMaxBytes);
  state->host_tier = std::make_shared<PinnedStagingPool>(device_ordinal, 0);
  if (exportable_memory) {
    absl::StatusOr<std::unique_ptr<ExportablePools>> pools =
        ExportablePools::Create(device_ordinal);
    if (pools.ok()) {
      state->exportable = *std::move(pools);
    } else {
      spdlog::warn("CUDA IPC export off: {}", pools.status().ToString());
    }
  }

  std::string description = fmt::format("{}, compute capability {}.{}, {} SMs", props.name,
                                        props.major, props.minor, props.multiProcessorCount);
  return std::unique_ptr<Backend>(new CudaBackend(std::move(state), std::move(description),
                                                  static_cast<int64_t>(props.totalGlobalMem)));
}

CudaBackend::CudaBackend(std::shared_ptr<State> state, std::string description,
                         int64_t total_memory)
    : state_(std::move(state)),
      description_(std::move(description)),
      total_memory_(total_memory),
      loss_watch_(std::make_unique<DeviceLossWatch>(state_->device, device_health())) {}

CudaBackend::~CudaBackend() = default;

absl::Status CudaBackend::Activate() const {
  AH_CUDA_RETURN_IF_ERROR(cudaSetDevice(state_->device));
  return absl::OkStatus();
}

absl::StatusOr<QueueSection> CudaBackend::Enter() const {
  AH_RETURN_IF_ERROR(Activate());
  return QueueSection::Enter();
}

absl::StatusOr<std::shared_ptr<WorkQueue>> CudaBackend::NewQueue(std::string_view memory_owner) {
  AH_RETURN_IF_ERROR(Activate());
  cudaMemPool_t pool = nullptr;  // The default pool.
  if (state_->exportable != nullptr) {
    // A tenant whose pool cannot be made still computes, from the default pool; only the
    // export of its memory is refused then (ExportablePools::IdFor says why).
    absl::StatusOr<cudaMemPool_t> own = state_->exportable->ForOwner(memory_owner);
    if (own.ok()) {
      pool = *own;
    } else {
      spdlog::warn("no exportable memory pool for tenant '{}': {}", memory_owner,
                   own.status().ToString());
    }
  }
  return CudaQueue::Create(state_->device, pool);
}

std::unique_ptr<QueueBinding> CudaBackend::Bind(std::shared_ptr<WorkQueue> queue,
                                                std::string_view label) {
  // Queues come from NewQueue; null asks for the device's default queue.
  std::shared_ptr<CudaQueue> cuda_queue = std::dynamic_pointer_cast<CudaQueue>(std::move(queue));
  if (cuda_queue == nullptr) {
    absl::StatusOr<std::shared_ptr<CudaQueue>> fallback = CudaQueue::DeviceDefault(state_->device);
    if (!fallback.ok()) {
      // Unbound, the calls go to the default queue all the same (CurrentQueue); only the
      // label is lost.
      LogIfError(fallback.status());
      return std::make_unique<QueueBinding>();
    }
    cuda_queue = *std::move(fallback);
  }
  if (const CudaQueueBinding* bound = CurrentBinding();
      bound != nullptr && bound->queue() == cuda_queue) {
    return std::make_unique<QueueBinding>();
  }
  return std::make_unique<CudaQueueBinding>(std::move(cuda_queue), label);
}

absl::Status CudaBackend::Use(const std::shared_ptr<Buffer>& buffer) {
  CudaQueueBinding* binding = CurrentBinding();
  if (binding == nullptr) return absl::OkStatus();
  // Every buffer this backend hands out is a CudaQueuedBuffer, usually behind core's wrapper.
  const auto* queued = dynamic_cast<const CudaQueuedBuffer*>(&buffer->backend_buffer());
  if (queued != nullptr) binding->Borrow(*queued);
  return absl::OkStatus();
}

absl::StatusOr<int64_t> CudaBackend::FreeMemory() const {
  AH_RETURN_IF_ERROR(Activate());
  size_t free_bytes = 0;
  size_t total_bytes = 0;
  AH_CUDA_RETURN_IF_ERROR(cudaMemGetInfo(&free_bytes, &total_bytes));
  return static_cast<int64_t>(free_bytes);
}

std::string CudaBackend::DeviceName() const { return fmt::format("cuda:{}", state_->device); }

std::vector<DeviceDescription> CudaBackend::Devices() const {
  DeviceDescription device{
      .name = DeviceName(),
      .description = description_,
      .total_memory_bytes = total_memory_,
  };
  if (absl::StatusOr<int64_t> free_bytes = FreeMemory(); free_bytes.ok()) {
    device.free_memory_bytes = *free_bytes;
  } else {
    spdlog::warn("cuda backend: free memory of {} unknown: {}", device.name,
                 free_bytes.status().ToString());
  }
  return {device};
}

MemoryStats CudaBackend::Memory() const { return state_->memory.Snapshot(); }

absl::StatusOr<std::shared_ptr<Buffer>> CudaBackend::Allocate(int64_t nbytes) {
  AH_RETURN_IF_ERROR(Activate());
  AH_ASSIGN_OR_RETURN(std::shared_ptr<CudaQueue> queue, CurrentQueue());
  // One byte at least, so that the pointer is never null (see Buffer::data).
  const auto request = static_cast<size_t>(std::max<int64_t>(nbytes, 1));
  cudaMemPool_t pool = queue->pool() != nullptr ? queue->pool() : state_->pool;
  void* data = nullptr;
  cudaError_t error = cudaMallocFromPoolAsync(&data, request, pool, queue->stream());
  if (error == cudaErrorMemoryAllocation) {
    // The pools may be holding freed memory in pieces that do not fit this request, memory
    // whose frees other queues have not reached yet, or memory other tenants freed (each has a
    // pool of its own when export is on): let every queue's work finish, hand everything
    // unused back to the device and try once more.
    (void)cudaGetLastError();
    AH_CUDA_RETURN_IF_ERROR(cudaDeviceSynchronize());
    AH_CUDA_RETURN_IF_ERROR(cudaMemPoolTrimTo(state_->pool, 0));
    if (state_->exportable != nullptr) AH_RETURN_IF_ERROR(state_->exportable->TrimAll());
    error = cudaMallocFromPoolAsync(&data, request, pool, queue->stream());
  }
  if (error == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();  // Leaves the thread's error state clean for the next call.
    std::string message =
        fmt::format("out of device memory on {} allocating {} bytes", DeviceName(), nbytes);
    if (absl::StatusOr<int64_t> free_bytes = FreeMemory(); free_bytes.ok()) {
      absl::StrAppend(&message, " (", *free_bytes, " bytes free of ", total_memory_, ")");
    }
    return absl::ResourceExhaustedError(message);
  }
  AH_RETURN_IF_ERROR(CudaStatus(error, "cudaMallocFromPoolAsync"));
  // Usable in the queue's order from here on: no waiting.
  return std::make_shared<CudaBuffer>(data, nbytes, std::move(queue), state_);
}

absl::StatusOr<ExportedMemory> CudaBackend::ExportMemory(const Buffer& buffer,
                                                         std::string_view memory_owner) {
  if (state_->exportable == nullptr) {
    return absl::FailedPreconditionError(
        "CUDA IPC export is off on this server (--cuda-ipc=false, or the device cannot share "
        "memory pools by file descriptor; the daemon's log says which)");
  }
  AH_ASSIGN_OR_RETURN(const QueueSection section, Enter());
  // Every buffer this backend hands out is a CudaBuffer, usually behind core's wrapper.
  const auto& cuda_buffer = dynamic_cast<const CudaBuffer&>(buffer.backend_buffer());
  AH_ASSIGN_OR_RETURN(std::string pool_id,
                      state_->exportable->IdFor(cuda_buffer.pool(), memory_owner));
  // The importer may touch the memory only once its allocation and the writes queued so far
  // are done; it has no way to wait for our streams.
  AH_RETURN_IF_ERROR(cuda_buffer.home()->Synchronize());
  cudaMemPoolPtrExportData data{};
  AH_CUDA_RETURN_IF_ERROR(cudaMemPoolExportPointer(&data, buffer.data()));
  return ExportedMemory{.pool_id = std::move(pool_id),
                        .pointer_export_data =
                            std::string(reinterpret_cast<const char*>(data.reserved), sizeof(data)),
                        .device_uuid = state_->device_uuid,
                        .device_ordinal = state_->device};
}

absl::StatusOr<int> CudaBackend::ExportPoolDescriptor(std::string_view pool_id) {
  if (state_->exportable == nullptr) {
    return absl::NotFoundError(
        fmt::format("no exportable memory pool '{}': export is off", pool_id));
  }
  AH_RETURN_IF_ERROR(Activate());
  return state_->exportable->Descriptor(pool_id);
}

absl::Status CudaBackend::FillPattern(Buffer& buffer, int64_t offset, int64_t count,
                                      int64_t stride_bytes, std::span<const std::byte> pattern) {
  AH_ASSIGN_OR_RETURN(const QueueSection section, Enter());
  AH_ASSIGN_OR_RETURN(const cudaStream_t stream, CurrentStream());
  AH_CUDA_RETURN_IF_ERROR(LaunchFillPattern(static_cast<std::byte*>(buffer.data()) + offset, count,
                                            stride_bytes, pattern.data(),
                                            static_cast<int64_t>(pattern.size()), stream));
  return absl::OkStatus();
}

absl::Status CudaBackend::FillAffine(Buffer& buffer, const AffineFill& fill) {
  AH_ASSIGN_OR_RETURN(const QueueSection section, Enter());
  const AffineFillArgs args{
      .dtype = fill.dtype,
      .count = fill.count,
      .int_start = fill.int_start,
      .int_step = fill.int_step,
      .start_real = fill.start.real(),
      .start_imag = fill.start.imag(),
      .step_real = fill.step.real(),
      .step_imag = fill.step.imag(),
      .float64_math = fill.float64_math,
  };
  AH_ASSIGN_OR_RETURN(const cudaStream_t stream, CurrentStream());
  AH_CUDA_RETURN_IF_ERROR(LaunchFillAffine(buffer.data(), args, stream));
  return absl::OkStatus();
}

absl::Status CudaBackend::CopyFromHost(Buffer& buffer, int64_t offset,
                                       std::span<const std::byte> source) {
  AH_ASSIGN_OR_RETURN(const QueueSection section, Enter());
  if (source.empty()) return absl::OkStatus();
  AH_ASSIGN_OR_RETURN(const cudaStream_t stream, CurrentStream());
  // From pageable memory the copy is staged before this returns, so `source` may go at once.
  AH_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(static_cast<std::byte*>(buffer.data()) + offset,
                                          source.data(), source.size(), cudaMemcpyHostToDevice,
                                          stream));
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<StagingBuffer>> CudaBackend::AllocateStaging(int64_t nbytes) {
  AH_ASSIGN_OR_RETURN(std::unique_ptr<StagingBuffer> pinned, state_->staging->Take(nbytes));
  if (pinned != nullptr) return pinned;
  return NewPageableStaging(*this, nbytes);
}

absl::StatusOr<std::unique_ptr<StagingBuffer>> CudaBackend::AllocateHostTier(int64_t nbytes,
                                                                             int64_t tier_bytes) {
  AH_ASSIGN_OR_RETURN(std::unique_ptr<StagingBuffer> pinned,
                      state_->host_tier->TakeMakingRoom(nbytes, tier_bytes));
  if (pinned != nullptr) return pinned;
  return absl::ResourceExhaustedError(
      fmt::format("the spill host tier ({} bytes) has no room for {} bytes", tier_bytes, nbytes));
}

absl::Status CudaBackend::CopyToHost(const Buffer& buffer, int64_t offset,
                                     std::span<std::byte> destination) {
  AH_ASSIGN_OR_RETURN(const QueueSection section, Enter());
  if (destination.empty()) return absl::OkStatus();
  AH_ASSIGN_OR_RETURN(const cudaStream_t stream, CurrentStream());
  AH_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(destination.data(),
                                          static_cast<const std::byte*>(buffer.data()) + offset,
                                          destination.size(), cudaMemcpyDeviceToHost, stream));
  return SynchronizeCurrentQueue();
}

absl::Status CudaBackend::CopyFromDevice(Buffer& target, int64_t target_offset,
                                         const Buffer& source, int64_t source_offset,
                                         int64_t nbytes) {
  AH_ASSIGN_OR_RETURN(const QueueSection section, Enter());
  if (nbytes == 0) return absl::OkStatus();
  AH_ASSIGN_OR_RETURN(const cudaStream_t stream, CurrentStream());
  // Every buffer of a CUDA backend is a CudaQueuedBuffer, whose home queue knows its device.
  const int source_device =
      dynamic_cast<const CudaQueuedBuffer&>(source.backend_buffer()).home()->device();
  // Peer to peer over NVLink or PCIe where the devices can reach each other, else staged
  // by the driver; the queue section has ordered it after the source's writers.
  AH_CUDA_RETURN_IF_ERROR(
      cudaMemcpyPeerAsync(static_cast<std::byte*>(target.data()) + target_offset, state_->device,
                          static_cast<const std::byte*>(source.data()) + source_offset,
                          source_device, static_cast<size_t>(nbytes), stream));
  return absl::OkStatus();
}

}  // namespace arrayhub
