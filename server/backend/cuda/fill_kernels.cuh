// Host-callable launchers for the CUDA backend's fill kernels. Each enqueues its work on
// `stream` and returns the launch's error (cudaGetLastError), without waiting for the work.
// This header is shared by nvcc and the host compiler, so it keeps to CUDA's runtime API and
// the standard library (backend.h brings in absl, which device code has no use for).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "server/common/dtype.h"

namespace arrayhub {

// An AffineFill (see backend.h) taken apart into plain values.
struct AffineFillArgs {
  DType dtype = DType::kFloat64;
  int64_t count = 0;
  int64_t int_start = 0;
  int64_t int_step = 0;
  double start_real = 0;
  double start_imag = 0;
  double step_real = 0;
  double step_imag = 0;
  bool float64_math = false;
};

// Writes `pattern` (1..16 bytes) `count` times from `base`, each copy `stride_bytes` after the
// previous one. Bit for bit what CpuMemory::FillPattern writes.
// (Pointer and size rather than std::span: the kernels compile as C++17, see CMakeLists.txt.)
cudaError_t LaunchFillPattern(std::byte* base, int64_t count, int64_t stride_bytes,
                              const std::byte* pattern, int64_t pattern_size, cudaStream_t stream);

// Writes `args.count` elements of `args.dtype` from `out`. Bit for bit what
// CpuMemory::FillAffine writes.
cudaError_t LaunchFillAffine(void* out, const AffineFillArgs& args, cudaStream_t stream);

}  // namespace arrayhub
