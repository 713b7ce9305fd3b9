// numpy.ptp, average, cov and corrcoef (statistics.h), as the Python client composes them
// (client_python/arrayhub/_math_functions.py, _statistics.py).
#include "arrayhub/statistics.h"

#include <string>
#include <utility>

#include "composed.h"

namespace arrayhub::client {

using detail::AnyTrue;
using detail::ClientOf;
using detail::IsComplex;
using detail::IsInexact;
using detail::ThrowInvalid;

Array ptp(const Array& a, const ReduceOptions& options) {
  const ReduceOptions shape{.axis = options.axis, .keepdims = options.keepdims};
  return max(a, shape) - min(a, shape);
}

AverageResult average_returned(const Array& a, const AverageOptions& options) {
  Client client = ClientOf(a);
  const Shape& shape = a.shape();
  const int64_t rank = static_cast<int64_t>(shape.size());
  std::optional<std::vector<int64_t>> axes;
  if (options.axis) axes = detail::NormalizeAxes(options.axis, rank);
  if (options.weights == nullptr) {
    Array average = mean(a, {.axis = axes, .keepdims = options.keepdims});
    const double count = static_cast<double>(a.size()) / static_cast<double>(average.size());
    Array count_array = client.Full(average.shape(), count, average.dtype());
    return {std::move(average), std::move(count_array)};
  }
  const Array& w = *options.weights;
  DType dtype = detail::PromoteTypes(a.dtype(), w.dtype());
  if (!IsInexact(a.dtype())) dtype = detail::PromoteTypes(dtype, DType::kFloat64);
  const Array* weights = &w;
  Array spread_weights;
  if (w.shape() != shape) {
    spread_weights = detail::SpreadWeights(a, w, axes);
    weights = &spread_weights;
  }
  const ReduceOptions reduce{.axis = axes, .keepdims = options.keepdims};
  Array total = sum(*weights, {.axis = axes, .keepdims = options.keepdims, .dtype = dtype});
  if (AnyTrue(total == 0.0)) ThrowInvalid("Weights sum to zero, can't be normalized");
  Array average = sum(multiply(a, *weights, dtype), reduce) / total;
  if (total.shape() != average.shape()) total = copy(broadcast_to(total, average.shape()));
  return {std::move(average), std::move(total)};
}

Array average(const Array& a, const AverageOptions& options) {
  return std::move(average_returned(a, options).average);
}

namespace {

// m as a 2-D array of `dtype` (NumPy's array(m, ndmin=2, dtype=dtype)).
Array AsTwoD(const Array& m, DType dtype, const char* name) {
  const Shape& shape = m.shape();
  if (shape.size() > 2) ThrowInvalid(std::string(name) + " has more than 2 dimensions");
  Shape two_d = shape;
  while (two_d.size() < 2) two_d.insert(two_d.begin(), 1);
  return reshape(astype(m, dtype), two_d);
}

// fweights or aweights as float64, checked as NumPy checks them.
Array CheckedWeights(const Array& values, int64_t samples, const std::string& name) {
  Array w = astype(values, DType::kFloat64);
  if (name == "fweights" && !ClientOf(w).Download<bool>(all(w == rint(w))).front()) {
    ThrowInvalid("fweights must be integer");
  }
  if (w.shape().size() > 1) ThrowInvalid("cannot handle multidimensional " + name);
  if (w.shape().empty() || w.shape()[0] != samples) {
    ThrowInvalid("incompatible numbers of samples and " + name);
  }
  if (AnyTrue(w < 0)) ThrowInvalid(name + " cannot be negative");
  return w;
}

}  // namespace

Array cov(const Array& m, const CovOptions& options) {
  Client client = ClientOf(m);
  const bool complex_input =
      IsComplex(m.dtype()) || (options.y != nullptr && IsComplex(options.y->dtype()));
  const DType dtype = options.dtype.value_or(complex_input ? DType::kComplex128 : DType::kFloat64);
  Array x = AsTwoD(m, dtype, "m");
  if (!options.rowvar && m.shape().size() != 1) x = transpose(x);
  if (x.shape()[0] == 0) return client.Empty({0, 0}, DType::kFloat64);
  if (options.y != nullptr) {
    Array y = AsTwoD(*options.y, dtype, "y");
    if (!options.rowvar && y.shape()[0] != 1) y = transpose(y);
    x = concatenate({x, y}, 0);
  }
  const int64_t ddof = options.ddof.value_or(options.bias ? 0 : 1);
  const int64_t samples = x.shape()[1];
  // The weights: fweights, aweights or their product.
  Array f_w, a_w, product;
  const Array* w = nullptr;
  if (options.fweights != nullptr) {
    f_w = CheckedWeights(*options.fweights, samples, "fweights");
    w = &f_w;
  }
  if (options.aweights != nullptr) {
    a_w = CheckedWeights(*options.aweights, samples, "aweights");
    if (w != nullptr) product = f_w * a_w;
    w = w != nullptr ? &product : &a_w;
  }
  AverageResult average = average_returned(x, {.axis = std::vector<int64_t>{1}, .weights = w});
  double fact = static_cast<double>(samples - ddof);
  if (w != nullptr) {
    const Array w_sum = reshape(detail::SliceAxis(average.sum_of_weights, 0, {.stop = 1}), {});
    if (ddof == 0) {
      fact = detail::ReadScalar(w_sum);
    } else if (options.aweights == nullptr) {
      fact = detail::ReadScalar(w_sum - ddof);
    } else {
      fact = detail::ReadScalar(w_sum - ddof * sum(*w * a_w) / w_sum);
    }
  }
  if (fact <= 0) fact = 0.0;  // NumPy warns "Degrees of freedom <= 0 for slice".
  const Array centred = x - reshape(average.average, {x.shape()[0], 1});
  const Array weighted = w != nullptr ? centred * *w : Array();
  const Array other = transpose(w != nullptr ? weighted : centred);
  const Array products = IsComplex(dtype) ? dot(centred, conjugate(other)) : dot(centred, other);
  return squeeze(products * (1.0 / fact));
}

Array corrcoef(const Array& x, const Array* y, bool rowvar) {
  const Array c = cov(x, {.y = y, .rowvar = rowvar});
  if (c.shape().empty()) return c / c;
  Client client = ClientOf(c);
  const bool complex = IsComplex(c.dtype());
  const Array diagonal_values = diagonal(c);
  const Array stddev =
      complex ? sqrt(client.Ufunc("real", {diagonal_values})) : sqrt(diagonal_values);
  const int64_t n = stddev.shape()[0];
  const Array scaled = c / reshape(stddev, {n, 1}) / reshape(stddev, {1, n});
  if (!complex) return clip(scaled, -1, 1);
  return clip(client.Ufunc("real", {scaled}), -1, 1) +
         clip(client.Ufunc("imag", {scaled}), -1, 1) * std::complex<double>(0, 1);
}

}  // namespace arrayhub::client
