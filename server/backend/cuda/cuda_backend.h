// The CUDA backend: arrays in one GPU's memory, work on a stream per session (cuda_queue.h).
#pragma once

#include <memory>
#include <string>

#include "server/backend/backend.h"

namespace arrayhub {

class DeviceLossWatch;

// Number of usable CUDA devices; 0 when there is no driver or no device (never fails).
int CudaDeviceCount();

// A backend on device `device_ordinal` (0-based); NOT_FOUND when there is no such device.
// With `exportable_memory`, each tenant's memory comes from a pool of its own that other
// processes on the host can import (CUDA IPC, docs/ipc.md); where the device cannot share
// pools, export stays off (logged) and the backend works all the same.
absl::StatusOr<std::unique_ptr<Backend>> CreateCudaBackend(int device_ordinal,
                                                           bool exportable_memory = false);

struct CudaDeviceState;

// Its parts are in cuda_parts.h.
class CudaBackend final : public Backend {
 public:
  ~CudaBackend() override;

  std::string_view name() const override { return "cuda"; }
  std::vector<DeviceDescription> Devices() const override;
  std::string DeviceName() const override;
  MemoryStats Memory() const override;

 private:
  CudaBackend(std::shared_ptr<CudaDeviceState> state, std::string description);
  friend absl::StatusOr<std::unique_ptr<Backend>> CreateCudaBackend(int device_ordinal,
                                                                    bool exportable_memory);

  std::shared_ptr<CudaDeviceState> state_;
  std::string description_;
  std::unique_ptr<DeviceLossWatch> loss_watch_;  // Reports to device_health().
};

}  // namespace arrayhub
