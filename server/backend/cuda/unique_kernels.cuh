// Host-callable launcher of numpy.unique's selection on the GPU (indexing.h's UniqueCall):
// CUB's DeviceSelect::UniqueByKey over the sorted elements, with the equality of numpy.unique
// (equal_nan=True) derived from the elements' sort order (sort_kernels.cuh). Shared by nvcc and
// the host compiler, so it keeps to the CUDA runtime API and plain types.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "server/common/dtype.h"

namespace arrayhub {

struct UniqueArgs {
  DType dtype = DType::kFloat64;
  const void* sorted = nullptr;  // count elements, C-contiguous, in numpy.sort's order
  void* output = nullptr;        // count elements; the first *selected are written
  int64_t count = 0;
  int64_t* selected = nullptr;  // device memory: how many were written
  void* temp = nullptr;         // CUB's storage, temp_bytes of it
  size_t temp_bytes = 0;
};

// With temp null, only sets temp_bytes (nothing is launched); else the selection, enqueued.
cudaError_t LaunchUnique(UniqueArgs& args, cudaStream_t stream);

}  // namespace arrayhub
