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

}  // namespace

absl::StatusOr<ComputeContext> CurrentComputeContext() {
  static absl::Mutex mutex;
  static std::array<DeviceProperties, 64> known ABSL_GUARDED_BY(mutex);

  ComputeContext context;
  AH_CUDA_RETURN_IF_ERROR(cudaGetDevice(&context.device));
  DeviceProperties properties;
  {
    absl::MutexLock lock(&mutex);
    if (context.device < static_cast<int>(known.size())) properties = known[context.device];
  }
  if (properties.arch == 0) {
    absl::StatusOr<DeviceProperties> queried = QueryProperties(context.device);
    if (!queried.ok()) return queried.status();
    properties = *queried;
    absl::MutexLock lock(&mutex);
    if (context.device < static_cast<int>(known.size())) known[context.device] = properties;
  }
  AH_ASSIGN_OR_RETURN(context.stream, CurrentStream());
  context.arch = properties.arch;
  context.sm_count = properties.sm_count;
  return context;
}

}  // namespace arrayhub
