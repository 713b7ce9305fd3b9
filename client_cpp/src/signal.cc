// diff, trapezoid, cumulative_sum, convolve, correlate and interp from server ops (signal.h), as
// the Python client composes them (client_python/arrayhub/_math_functions.py, _numerics.py,
// _array_api.py).
#include "arrayhub/signal.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "composed.h"

namespace arrayhub::client {
namespace {

using detail::ClientOf;
using detail::SliceAxis;
using detail::ThrowInvalid;

// Convolutions at least this long in both operands, and with more products than
// kDirectProducts, go through the FFT (the Python client's thresholds).
constexpr int64_t kDirectKernel = 4;
constexpr int64_t kDirectProducts = 4096;

// diff's prepend/append along `axis`: the array, or a 0-d one broadcast to one slice (kept in
// `broadcast`).
const Array& End(const Array& value, const Array& a, int64_t axis, Array& broadcast) {
  if (!value.shape().empty()) return value;
  Shape shape = a.shape();
  shape[axis] = 1;
  broadcast = broadcast_to(value, shape);
  return broadcast;
}

void CheckMode(std::string_view mode) {
  if (mode != "valid" && mode != "same" && mode != "full") {
    ThrowInvalid("mode must be one of 'valid', 'same', or 'full' (got '" + std::string(mode) +
                 "')");
  }
}

// The operands as 1-D arrays of their common dtype.
std::pair<Array, Array> Operands(const Array& a, const Array& v) {
  if (a.shape().size() > 1 || v.shape().size() > 1) {
    ThrowInvalid("object too deep for desired array");
  }
  const DType dtype = detail::PromoteTypes(a.dtype(), v.dtype());
  return {astype(reshape(a, {-1}), dtype), astype(reshape(v, {-1}), dtype)};
}

// The full convolution of two non-empty 1-D arrays of one dtype.
Array FullConvolution(const Array& a, const Array& v) {
  Client client = ClientOf(a);
  int64_t n = a.shape()[0], m = v.shape()[0];
  const int64_t length = n + m - 1;
  const DType dtype = a.dtype();
  if (detail::IsInexact(dtype) && std::min(n, m) > kDirectKernel &&
      length * std::min(n, m) > kDirectProducts) {
    FftOptions options;
    options.s = std::vector<int64_t>{length};
    if (detail::IsComplex(dtype)) {
      const Array product = client.Fft("fft", a, options) * client.Fft("fft", v, options);
      return astype(client.Fft("ifft", product, options), dtype);
    }
    const Array product = client.Fft("rfft", a, options) * client.Fft("rfft", v, options);
    return astype(client.Fft("irfft", product, options), dtype);
  }
  // Direct: the windows of a zero-padded longer operand (one gather) times the reversed kernel.
  const Array& longer = n < m ? v : a;
  const Array& kernel = n < m ? a : v;
  if (n < m) std::swap(n, m);
  const Array zeros = client.Zeros({m - 1}, dtype);
  const Array padded = concatenate({zeros, longer, zeros});
  const Array windows = client.Reshape(client.Arange(0, length, 1), {length, 1}) +
                        client.Reshape(client.Arange(0, m, 1), {1, m});
  return matmul(client.GetItem(padded, {windows}), SliceAxis(kernel, 0, {.step = -1}));
}

Array ModeSlice(Array full, int64_t n, int64_t m, std::string_view mode) {
  if (mode == "full") return full;
  if (mode == "same") {
    const int64_t start = (std::min(n, m) - 1) / 2;
    return SliceAxis(full, 0, {.start = start, .stop = start + std::max(n, m)});
  }
  return SliceAxis(full, 0, {.start = std::min(n, m) - 1, .stop = std::max(n, m)});
}

}  // namespace

Array diff(const Array& a, const DiffOptions& options) {
  if (options.n < 0) {
    ThrowInvalid("order must be non-negative but got " + std::to_string(options.n));
  }
  Client client = ClientOf(a);
  const int64_t rank = static_cast<int64_t>(a.shape().size());
  if (options.n == 0) return client.Copy(a);
  if (rank == 0) ThrowInvalid("diff requires input that is at least one dimensional");
  const int64_t axis = detail::NormalizeAxis(options.axis, rank);
  Array joined;
  const Array* current = &a;
  if (options.prepend != nullptr || options.append != nullptr) {
    Array before, after;
    std::vector<std::reference_wrapper<const Array>> pieces;
    if (options.prepend != nullptr) pieces.push_back(End(*options.prepend, a, axis, before));
    pieces.push_back(a);
    if (options.append != nullptr) pieces.push_back(End(*options.append, a, axis, after));
    joined = concatenate(pieces, axis);
    current = &joined;
  }
  const bool boolean = a.dtype() == DType::kBool;
  Array result;
  for (int64_t i = 0; i < options.n; ++i) {
    const Array later = SliceAxis(*current, axis, {.start = 1});
    const Array earlier = SliceAxis(*current, axis, {.stop = -1});
    result = boolean ? not_equal(later, earlier) : later - earlier;
    current = &result;
  }
  return result;
}

Array trapezoid(const Array& y, const Array* x, double dx, int64_t axis) {
  const int64_t rank = static_cast<int64_t>(y.shape().size());
  const int64_t d = detail::NormalizeAxis(axis, rank);
  const Array sums = SliceAxis(y, d, {.start = 1}) + SliceAxis(y, d, {.stop = -1});
  if (x == nullptr) return sum(sums * dx / 2.0, {.axis = std::vector<int64_t>{d}});
  Array spacing;
  if (x->shape().size() == 1) {
    Shape shape(static_cast<size_t>(rank), 1);
    shape[d] = x->shape()[0] - 1;
    spacing = reshape(diff(*x), shape);
  } else {
    spacing = diff(*x, {.axis = d});
  }
  return sum(spacing * sums / 2.0, {.axis = std::vector<int64_t>{d}});
}

Array cumulative_sum(const Array& x, std::optional<int64_t> axis, std::optional<DType> dtype,
                     bool include_initial) {
  Client client = ClientOf(x);
  // NumPy treats a 0-d input as 1-d.
  const Array values = x.shape().empty() ? client.Reshape(x, {1}) : client.Reshape(x, x.shape());
  const int64_t rank = static_cast<int64_t>(values.shape().size());
  if (!axis && rank > 1) {
    ThrowInvalid("For arrays which have more than one dimension ``axis`` argument is required.");
  }
  const int64_t d = detail::NormalizeAxis(axis.value_or(0), rank);
  Array running = cumsum(values, d, dtype);
  if (!include_initial) return running;
  Shape shape = running.shape();
  shape[d] = 1;
  const Array zeros = client.Zeros(shape, running.dtype());
  return concatenate({zeros, running}, d);
}

Array convolve(const Array& a, const Array& v, std::string_view mode) {
  auto [first, second] = Operands(a, v);
  if (first.shape()[0] == 0) ThrowInvalid("a cannot be empty");
  if (second.shape()[0] == 0) ThrowInvalid("v cannot be empty");
  CheckMode(mode);
  const int64_t n = first.shape()[0], m = second.shape()[0];
  return ModeSlice(FullConvolution(first, second), n, m, mode);
}

Array correlate(const Array& a, const Array& v, std::string_view mode) {
  auto [first, second] = Operands(a, v);
  CheckMode(mode);
  if (first.shape()[0] == 0) ThrowInvalid("first array argument cannot be empty");
  if (second.shape()[0] == 0) ThrowInvalid("second array argument cannot be empty");
  const Array conjugated = detail::IsComplex(second.dtype()) ? conjugate(second) : Array();
  const Array kernel =
      SliceAxis(detail::IsComplex(second.dtype()) ? conjugated : second, 0, {.step = -1});
  Array full = FullConvolution(first, kernel);
  const int64_t n = first.shape()[0], m = second.shape()[0];
  if (m > n && mode == "same") {  // NumPy's 'same' window for a longer v.
    const int64_t start = (n - 1) - (n - 1) / 2;
    return SliceAxis(full, 0, {.start = start, .stop = start + m});
  }
  return ModeSlice(std::move(full), n, m, mode);
}

Array interp(const Array& x, const Array& xp, const Array& fp, const InterpOptions& options) {
  Client client = ClientOf(x);
  const DType fp_dtype = detail::IsComplex(fp.dtype()) ? DType::kComplex128 : DType::kFloat64;
  Array at = astype(x, DType::kFloat64);
  Array points = astype(xp, DType::kFloat64);
  Array values = astype(fp, fp_dtype);
  std::optional<double> left = options.left, right = options.right;
  if (options.period) {
    if (*options.period == 0) ThrowInvalid("period must be a non-zero value");
    const double period = std::abs(*options.period);
    left = right = std::nullopt;
    if (points.shape().size() != 1 || values.shape().size() != 1) {
      ThrowInvalid("Data points must be 1-D sequences");
    }
    if (points.shape()[0] != values.shape()[0]) {
      ThrowInvalid("fp and xp are not of the same length");
    }
    at = at % period;
    const Array wrapped = points % period;
    const Array order = argsort(wrapped, 0);
    const Array sorted_points = take(wrapped, order);
    const Array sorted_values = take(values, order);
    const Array before = SliceAxis(sorted_points, 0, {.start = -1}) - period;
    const Array after = SliceAxis(sorted_points, 0, {.stop = 1}) + period;
    points = concatenate({before, sorted_points, after});
    const Array last_value = SliceAxis(sorted_values, 0, {.start = -1});
    const Array first_value = SliceAxis(sorted_values, 0, {.stop = 1});
    values = concatenate({last_value, sorted_values, first_value});
  }
  if (points.shape().size() != 1 || values.shape().size() != 1) {
    ThrowInvalid("object too deep for desired array");
  }
  const int64_t n = points.shape()[0];
  if (values.shape()[0] != n) ThrowInvalid("fp and xp are not of the same length.");
  if (n == 0) ThrowInvalid("array of sample points is empty");
  const Array first_x = client.GetItem(points, {0}), last_x = client.GetItem(points, {-1});
  const Array first_y = client.GetItem(values, {0}), last_y = client.GetItem(values, {-1});
  Array inside;
  if (n == 1) {
    inside = client.Copy(first_y);
  } else {
    const Array j = clip(searchsorted(points, at, "right") - 1, 0, n - 2);
    const Array next = j + 1;
    const Array x0 = take(points, j), x1 = take(points, next);
    const Array y0 = take(values, j), y1 = take(values, next);
    const Array slope = (y1 - y0) / (x1 - x0);
    const Array forward = slope * (at - x0) + y0;
    // NumPy's second try where the first is NaN.
    const Array second_try = slope * (at - x1) + y1;
    const Array backward = where(logical_and(isnan(second_try), y0 == y1), y0, second_try);
    inside = where(isnan(forward), backward, forward);
    inside = where(x0 == at, y0, inside);
    inside = where(at == last_x, last_y, inside);
  }
  const Array low = left ? client.Full({}, *left) : client.Copy(first_y);
  const Array high = right ? client.Full({}, *right) : client.Copy(last_y);
  Array result = where(at > last_x, high, where(at < first_x, low, inside));
  if (n > 1) result = where(isnan(at), at, result);  // (NumPy's loop for one point too.)
  return astype(result, fp_dtype);
}

}  // namespace arrayhub::client
