// The CUDA errors after which a device is lost for good, and where they go: the log, once, and
// the health (device_health.h) of every CUDA backend on that device. CudaStatus (cuda_check.h)
// reports every such error it sees, so no call site has to know them.
#pragma once

#include <cuda_runtime_api.h>

#include <string_view>

#include "server/backend/device_health.h"

namespace arrayhub {

// Whether the CUDA runtime documents `error` as leaving the process's context unusable ("the
// process must be terminated and relaunched"): every later call on the device fails the same
// way, for every tenant, until the daemon restarts.
constexpr bool IsDeviceLost(cudaError_t error) {
  switch (error) {
    case cudaErrorECCUncorrectable:
    case cudaErrorNvlinkUncorrectable:
    case cudaErrorContained:
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorTensorMemoryLeak:
    case cudaErrorMpsClientTerminated:
    case cudaErrorExternalDevice:
      return true;
    default:
      return false;
  }
}

// The thread's current device is lost, as `what` says. The first report of a device logs it
// (critical) with the call the thread was serving (its queue binding's label) and tells the
// health of each backend watching the device; later reports do nothing.
void ReportDeviceLost(std::string_view what);

// While it lives, `health` hears of the loss of `device` (ReportDeviceLost), at once if the
// device is lost already.
class DeviceLossWatch {
 public:
  DeviceLossWatch(int device, DeviceHealth& health);
  DeviceLossWatch(const DeviceLossWatch&) = delete;
  DeviceLossWatch& operator=(const DeviceLossWatch&) = delete;
  ~DeviceLossWatch();

 private:
  const int device_;
  DeviceHealth& health_;
};

}  // namespace arrayhub
