#include "server/backend/cuda/compute_context.h"

#include <array>

#include "absl/synchronization/mutex.h"
#include "server/backend/cuda/cuda_check.h"
#include "server/backend/cuda/cuda_queue.h"
#include "server/common/status_macros.h"

namespace arrayhub {

namespace {

struct DeviceProperties {
  int arch = 0;
  int sm_count = 0;
};

absl::StatusOr<DeviceProperties> QueryProperties(int device) {
  int major = 0;
  int minor = 0;
  DeviceProperties properties;
  AH_CUDA_RETURN_IF_ERROR(
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  AH_CUDA_RETURN_IF_ERROR(
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  AH_CUDA_RETURN_IF_ERROR(
      cudaDeviceGetAttribute(&properties.sm_count, cudaDevAttrMultiProcessorCount, device));
  properties.arch = major * 10 + minor;
  return properties;
}

// Read once per device.
absl::StatusOr<DeviceProperties> PropertiesOf(int device) {
  static absl::Mutex mutex;
  static std::array<DeviceProperties, 64> known ABSL_GUARDED_BY(mutex);
  {
    absl::MutexLock lock(&mutex);
    if (device >= 0 && device < static_cast<int>(known.size()) && known[device].arch != 0) {
      return known[device];
    }
  }
  AH_ASSIGN_OR_RETURN(const DeviceProperties properties, QueryProperties(device));
  absl::MutexLock lock(&mutex);
  if (device >= 0 && device < static_cast<int>(known.size())) known[device] = properties;
  return properties;
}

}  // namespace

absl::StatusOr<int> ArchOf(int device) {
  AH_ASSIGN_OR_RETURN(const DeviceProperties properties, PropertiesOf(device));
  return properties.arch;
}

absl::StatusOr<ComputeContext> ComputeContextOf(const QueueSection& section) {
  const int device = section.queue()->device();
  AH_ASSIGN_OR_RETURN(const DeviceProperties properties, PropertiesOf(device));
  return ComputeContext{.device = device,
                        .arch = properties.arch,
                        .sm_count = properties.sm_count,
                        .queue = section.queue().get(),
                        .stream = section.stream()};
}

}  // namespace arrayhub
