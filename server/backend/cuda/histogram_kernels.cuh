// Host-callable launcher of numpy.histogram's counting on the GPU (indexing.h's HistogramCall):
// each block counts its share of the input into counters of its own in shared memory, found by
// a binary search of the edges there, and adds them to the result once; with more edges than
// shared memory holds, every element searches the edges in global memory and adds to the
// result's counter itself. The launcher's part is shared by nvcc and the host compiler, so it
// keeps to the CUDA runtime API and plain types.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "server/common/dtype.h"

namespace arrayhub {

// A HistogramCall with device pointers: `input` C-contiguous, `count` elements of a real or
// bool `dtype`; `edges` float64, `bins` + 1 of them; `counts` int64, `bins` of them, written
// whole (zeroed first on `stream`).
struct HistogramArgs {
  DType dtype = DType::kFloat64;
  const void* input = nullptr;
  int64_t count = 0;
  const double* edges = nullptr;
  int64_t bins = 0;
  int64_t* counts = nullptr;
};

cudaError_t LaunchHistogram(const HistogramArgs& args, cudaStream_t stream);

}  // namespace arrayhub
