// The discrete Fourier transform core hands a backend: a batch of one-dimensional transforms
// along the middle axis of C-contiguous stacks, or of multi-dimensional ones over their
// trailing axes. Core composes numpy.fft's other multi-axis transforms, zero-padding,
// truncation and dtype conversions from these and copies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "server/backend/compute.h"

namespace arrayhub {

enum class FftKind : uint8_t {
  kComplex,        // complex -> complex, n points in and out.
  kRealToComplex,  // real n points -> complex n/2+1 (always forward).
  kComplexToReal,  // complex n/2+1 -> real n points (always backward: the Hermitian inverse).
};

// out[o, k, i] = scale * sum_j in[o, j, i] * exp(-+2 pi sqrt(-1) j k / n) for every outer o and
// inner i: input and output are C-contiguous views of rank 3, (outer, input length, inner) and
// (outer, output length, inner), of one precision (float32/complex64 or float64/complex128):
// complex both for kComplex, real in for kRealToComplex, real out for kComplexToReal. The
// lengths are n, or n/2+1 on the complex side of a real transform; outer, inner and n are >= 1.
// A kComplexToReal input is scratch the backend may overwrite (cuFFT and FFTW do); imaginary
// parts its Hermitian symmetry makes redundant (of element 0, and of n/2 for an even n) are
// ignored, as NumPy ignores them. With `conjugate`, the complex side (the input of
// kComplexToReal, the output of kRealToComplex) is conjugated: numpy.fft.hfft and ihfft.
// Input and output never overlap.
//
// With `leading` axes (kComplex and kRealToComplex only, never conjugated) the transform is
// multi-dimensional over the trailing axes, as numpy.fft.fftn and rfftn over them: the views
// are (outer, leading..., length, 1), and each leading axis (of the same length in input and
// output) is transformed as complex after the last, which a kRealToComplex transforms as real.
// So a 2-D or 3-D transform is one pass of cuFFT's or FFTW's multi-dimensional plans, where
// its one-dimensional transforms would take a pass and an intermediate array each.
inline constexpr size_t kMaxFftLeadingAxes = 2;

struct FftCall {
  FftKind kind = FftKind::kComplex;
  bool forward = true;  // kComplex only: exponent sign -1 (forward) or +1.
  int64_t n = 1;        // The transform's length (real side for the real kinds).
  ArrayView input;
  ArrayView output;
  double scale = 1;
  bool conjugate = false;
  std::vector<int64_t> leading = {};  // At most kMaxFftLeadingAxes lengths, outermost first.
};

// Discrete Fourier transforms (cuFFT on the GPU, FFTW on the CPU).
class FftKernels {
 public:
  virtual ~FftKernels() = default;

  virtual absl::Status Fft(QueueBinding& queue, const FftCall& call) = 0;
};

}  // namespace arrayhub
