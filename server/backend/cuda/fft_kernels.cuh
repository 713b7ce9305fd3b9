// Host-callable launchers for the CUDA backend's FFT helpers (cuda_fft.cc). Each enqueues its
// work on `stream` and returns the launch's error, without waiting. Shared by nvcc and the host
// compiler: CUDA's runtime API and the standard library only.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace arrayhub {

// A complex-to-real input (outer, length, inner) of complex64 (or complex128 with `wide`), in
// place: conjugated with `conjugate`, the imaginary parts NumPy ignores (of element 0 and, for
// an even n, of element n/2 along the middle axis) set to zero, so that the result does not
// depend on how cuFFT's algorithm treats them, and multiplied by `scale`. The transform is
// linear, so scaling its input here scales its output (NumPy's 1/n) without a pass of its own.
cudaError_t LaunchPrepareComplexToReal(void* data, int64_t outer, int64_t length, int64_t inner,
                                       int64_t n, bool wide, bool conjugate, double scale,
                                       cudaStream_t stream);

// `count` complex64 values (complex128 with `wide`) multiplied by `scale` and, with `conjugate`,
// conjugated, in place.
cudaError_t LaunchScaleConjugate(void* data, int64_t count, bool wide, double scale, bool conjugate,
                                 cudaStream_t stream);

}  // namespace arrayhub
