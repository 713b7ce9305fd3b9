// NumPy's differences, integrals, running sums, convolutions and interpolation, composed by the
// client from server ops (src/signal.cc), as the Python client composes them: the data stays on
// the server. Argument errors throw kInvalidArgument with NumPy's message.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "arrayhub/client.h"

namespace arrayhub::client {

// numpy.diff's arguments: prepend and append are joined to a along axis first (a 0-d array is
// broadcast to one slice).
struct DiffOptions {
  int64_t n = 1;
  int64_t axis = -1;
  const Array* prepend = nullptr;
  const Array* append = nullptr;
};
// The n-th discrete difference along the axis (not_equal for bool, as NumPy).
Array diff(const Array& a, const DiffOptions& options = {});

// The integral of y along axis by the trapezoidal rule, at the sample points x (1-D, or y's
// shape) or spaced dx apart.
Array trapezoid(const Array& y, const Array* x = nullptr, double dx = 1.0, int64_t axis = -1);

// numpy.cumulative_sum: running sums along axis (needed beyond one dimension), with a 0 first
// when include_initial.
Array cumulative_sum(const Array& x, std::optional<int64_t> axis = std::nullopt,
                     std::optional<DType> dtype = std::nullopt, bool include_initial = false);

// The discrete linear convolution of two 1-D arrays (mode "full", "same" or "valid") in their
// result dtype: integers, bool, short kernels and small inputs by one gather and one matmul
// (exact for integers), longer float and complex ones through the FFT (rounding differs from the
// direct sum in the last bits).
Array convolve(const Array& a, const Array& v, std::string_view mode = "full");
// The cross-correlation c[k] = sum_n a[n + k] conj(v[n]) (a convolution with the reversed,
// conjugated v).
Array correlate(const Array& a, const Array& v, std::string_view mode = "valid");

struct InterpOptions {
  std::optional<double> left{};   // Beyond xp[0]; absent: fp[0].
  std::optional<double> right{};  // Beyond xp[-1]; absent: fp[-1].
  std::optional<double> period{};
};
// Piecewise-linear interpolation of the points (xp, fp) at x (xp increasing), in float64
// (complex128 for complex fp), as NumPy's compiled loop: one searchsorted and gathers.
Array interp(const Array& x, const Array& xp, const Array& fp, const InterpOptions& options = {});

}  // namespace arrayhub::client
