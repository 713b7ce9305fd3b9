// Host-callable launchers of the inclusive scans (numpy.cumsum / cumprod) along the rows of a
// C-contiguous (rows, n) array, in place. Shared by nvcc and the host compiler, so it keeps to
// the CUDA runtime API and plain types.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "server/common/dtype.h"

namespace arrayhub {

// A ScanCall with a device pointer: `data` holds rows * n elements of `dtype` (any dtype but
// bool). `temp` is CUB's temporary storage, ScanTempBytes of it.
struct ScanArgs {
  DType dtype = DType::kFloat64;
  bool product = false;  // cumprod; cumsum otherwise.
  void* data = nullptr;
  int64_t rows = 0;
  int64_t n = 0;
  void* temp = nullptr;
  size_t temp_bytes = 0;
  cudaStream_t stream = nullptr;
};

// Fills args.temp_bytes.
cudaError_t ScanTempBytes(ScanArgs& args);

// Enqueues the scan and returns the first error.
cudaError_t LaunchScan(const ScanArgs& args);

}  // namespace arrayhub
