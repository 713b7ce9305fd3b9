#include <algorithm>

#include "server/backend/cuda/fft_kernels.cuh"
#include "server/backend/cuda/grid_stride.cuh"

namespace arrayhub {
namespace {

using grid_stride::BlocksFor;
using grid_stride::FirstIndex;
using grid_stride::GridStride;
using grid_stride::kThreadsPerBlock;

// R is float or double; a complex value is two of them.
template <typename R>
__global__ void PrepareComplexToReal(R* data, int64_t count, int64_t length, int64_t inner,
                                     int64_t n, bool conjugate, R scale) {
  for (int64_t e = FirstIndex(); e < count; e += GridStride()) {
    const int64_t x = (e / inner) % length;
    R& imag = data[2 * e + 1];
    if (x == 0 || (n % 2 == 0 && x == n / 2)) {
      imag = 0;
    } else {
      imag *= conjugate ? -scale : scale;
    }
    if (scale != 1) data[2 * e] *= scale;
  }
}

template <typename R>
__global__ void ScaleConjugate(R* data, int64_t count, R scale, bool conjugate) {
  for (int64_t e = FirstIndex(); e < count; e += GridStride()) {
    data[2 * e] *= scale;
    data[2 * e + 1] *= conjugate ? -scale : scale;
  }
}

}  // namespace

cudaError_t LaunchPrepareComplexToReal(void* data, int64_t outer, int64_t length, int64_t inner,
                                       int64_t n, bool wide, bool conjugate, double scale,
                                       cudaStream_t stream) {
  const int64_t count = outer * length * inner;
  if (wide) {
    PrepareComplexToReal<double><<<BlocksFor(count), kThreadsPerBlock, 0, stream>>>(
        static_cast<double*>(data), count, length, inner, n, conjugate, scale);
  } else {
    PrepareComplexToReal<float><<<BlocksFor(count), kThreadsPerBlock, 0, stream>>>(
        static_cast<float*>(data), count, length, inner, n, conjugate, static_cast<float>(scale));
  }
  return cudaGetLastError();
}

cudaError_t LaunchScaleConjugate(void* data, int64_t count, bool wide, double scale, bool conjugate,
                                 cudaStream_t stream) {
  if (wide) {
    ScaleConjugate<double><<<BlocksFor(count), kThreadsPerBlock, 0, stream>>>(
        static_cast<double*>(data), count, scale, conjugate);
  } else {
    ScaleConjugate<float><<<BlocksFor(count), kThreadsPerBlock, 0, stream>>>(
        static_cast<float*>(data), count, static_cast<float>(scale), conjugate);
  }
  return cudaGetLastError();
}

}  // namespace arrayhub
