#include "server/backend/cuda/cuda_backend.h"

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstdint>
#include <limits>

#include "server/backend/cuda/cuda_check.h"
#include "server/backend/cuda/cuda_device_state.h"
#include "server/backend/cuda/cuda_parts.h"
#include "server/backend/cuda/device_loss.h"
#include "server/backend/cuda/peer_access.h"
#include "server/common/status_macros.h"

namespace arrayhub {

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

  auto state = std::make_shared<CudaDeviceState>(device_ordinal);
  state->total_memory = static_cast<int64_t>(props.totalGlobalMem);
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
  return std::unique_ptr<Backend>(new CudaBackend(std::move(state), std::move(description)));
}

namespace {

BackendParts CudaParts(const std::shared_ptr<CudaDeviceState>& state) {
  auto memory = std::make_unique<CudaMemory>(state);
  DeviceMemory& device_memory = *memory;
  const int device = state->device;
  return BackendParts{
      .queues = std::make_unique<CudaQueues>(state),
      .memory = std::move(memory),
      .host_exchange = std::make_unique<CudaExchange>(state, device_memory),
      .collectives = std::make_unique<CudaCollectives>(),
      .compute = std::make_unique<CudaCompute>(device),
      .linalg = std::make_unique<CudaLinalg>(device),
      .fft = std::make_unique<CudaFft>(device),
      .indexing = std::make_unique<CudaIndexing>(device),
      .user_kernels = std::make_unique<CudaUserKernels>(device),
      .raw_kernels = std::make_unique<CudaRawKernels>(device),
  };
}

}  // namespace

CudaBackend::CudaBackend(std::shared_ptr<CudaDeviceState> state, std::string description)
    : Backend(CudaParts(state)),
      state_(std::move(state)),
      description_(std::move(description)),
      loss_watch_(std::make_unique<DeviceLossWatch>(state_->device, device_health())) {}

CudaBackend::~CudaBackend() = default;

absl::Status OnCudaDevice::Activate() const {
  AH_CUDA_RETURN_IF_ERROR(cudaSetDevice(device_));
  return absl::OkStatus();
}

absl::StatusOr<QueueSection> OnCudaDevice::Enter(QueueBinding& queue) const {
  AH_RETURN_IF_ERROR(Activate());
  AH_ASSIGN_OR_RETURN(CudaQueueBinding* const binding, BindingOn(queue));
  return QueueSection::Enter(*binding);
}

absl::StatusOr<CudaQueueBinding*> OnCudaDevice::BindingOn(QueueBinding& queue) const {
  AH_ASSIGN_OR_RETURN(CudaQueueBinding* const binding, CudaBindingOf(queue));
  if (binding->queue()->device() != device_) {
    return absl::InternalError(fmt::format("a call on cuda:{} was handed a queue of cuda:{}",
                                           device_, binding->queue()->device()));
  }
  return binding;
}

absl::StatusOr<int64_t> CudaFreeMemory(int device) {
  AH_CUDA_RETURN_IF_ERROR(cudaSetDevice(device));
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
      .total_memory_bytes = state_->total_memory,
  };
  if (absl::StatusOr<int64_t> free_bytes = CudaFreeMemory(state_->device); free_bytes.ok()) {
    device.free_memory_bytes = *free_bytes;
  } else {
    spdlog::warn("cuda backend: free memory of {} unknown: {}", device.name,
                 free_bytes.status().ToString());
  }
  return {device};
}

MemoryStats CudaBackend::Memory() const { return state_->memory.Snapshot(); }

}  // namespace arrayhub
