// CudaExchange: pinned staging and spill memory, and export of tenants' pools to other
// processes on the host (CUDA IPC, docs/ipc.md). Client regions are in cuda_host_region.cc.
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <string>

#include "server/backend/cuda/cuda_check.h"
#include "server/backend/cuda/cuda_device_state.h"
#include "server/backend/cuda/cuda_parts.h"
#include "server/common/status_macros.h"

namespace arrayhub {

CudaExchange::CudaExchange(std::shared_ptr<CudaDeviceState> state, DeviceMemory& memory)
    : OnCudaDevice(state->device), state_(std::move(state)), memory_(memory) {}

absl::StatusOr<std::unique_ptr<StagingBuffer>> CudaExchange::AllocateStaging(int64_t nbytes) {
  AH_ASSIGN_OR_RETURN(std::unique_ptr<StagingBuffer> pinned, state_->staging->Take(nbytes));
  if (pinned != nullptr) return pinned;
  return NewPageableStaging(memory_, nbytes);
}

absl::StatusOr<std::unique_ptr<StagingBuffer>> CudaExchange::AllocateHostTier(int64_t nbytes,
                                                                              int64_t tier_bytes) {
  AH_ASSIGN_OR_RETURN(std::unique_ptr<StagingBuffer> pinned,
                      state_->host_tier->TakeMakingRoom(nbytes, tier_bytes));
  if (pinned != nullptr) return pinned;
  return absl::ResourceExhaustedError(
      fmt::format("the spill host tier ({} bytes) has no room for {} bytes", tier_bytes, nbytes));
}

absl::StatusOr<ExportedMemory> CudaExchange::ExportMemory(const Buffer& buffer,
                                                          std::string_view memory_owner) {
  if (state_->exportable == nullptr) {
    return absl::FailedPreconditionError(
        "CUDA IPC export is off on this server (--cuda-ipc=false, or the device cannot share "
        "memory pools by file descriptor; the daemon's log says which)");
  }
  AH_RETURN_IF_ERROR(Activate());
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

absl::StatusOr<int> CudaExchange::ExportPoolDescriptor(std::string_view pool_id) {
  if (state_->exportable == nullptr) {
    return absl::NotFoundError(
        fmt::format("no exportable memory pool '{}': export is off", pool_id));
  }
  AH_RETURN_IF_ERROR(Activate());
  return state_->exportable->Descriptor(pool_id);
}

}  // namespace arrayhub
