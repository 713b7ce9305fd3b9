// NumPy's NaN-ignoring reductions and scans (statistics.h), as the Python client composes them
// (client_python/arrayhub/_nan_functions.py): NaNs replaced by the operation's identity with one
// `where`, then the ordinary reduction; integer and bool arrays go straight to it.
#include <limits>
#include <string>
#include <string_view>
#include <utility>

#include "arrayhub/statistics.h"
#include "composed.h"

namespace arrayhub::client {
namespace {

using detail::AnyTrue;
using detail::ClientOf;
using detail::CountValid;
using detail::IsComplex;
using detail::IsInexact;
using detail::ThrowInvalid;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// `a` with its NaNs replaced by the weak scalar `value` (a's dtype kept).
Array Replaced(const Array& a, double value) { return where(isnan(a), value, a); }

void RequireInexactDType(const ReduceOptions& options) {
  if (options.dtype && !IsInexact(*options.dtype)) {
    ThrowInvalid("If a is inexact, then dtype must be inexact");
  }
}

// Whether a reduced axis has length 0 (every axis for axis=None).
bool ReducesNothing(const Array& a, const std::optional<std::vector<int64_t>>& axis) {
  const Shape& shape = a.shape();
  for (int64_t d : detail::NormalizeAxes(axis, static_cast<int64_t>(shape.size()))) {
    if (shape[d] == 0) return true;
  }
  return false;
}

// nanmin/nanmax: NumPy's fmin/fmax reduction; NaN for a slice of NaNs.
Array NanExtreme(const Array& a, std::string_view op, const ReduceOptions& options) {
  if (!IsInexact(a.dtype())) return ClientOf(a).Reduce(op, a, options);
  if (ReducesNothing(a, options.axis)) {
    ThrowInvalid("zero-size array to reduction operation f" + std::string(op) +
                 " which has no identity");
  }
  const Array mask = isnan(a);
  const ReduceOptions shape{.axis = options.axis, .keepdims = options.keepdims};
  const Array extreme = ClientOf(a).Reduce(op, Replaced(a, op == "min" ? kInf : -kInf), shape);
  return where(all(mask, shape), kNaN, extreme);
}

// nanargmin/nanargmax: kInvalidArgument for a slice of NaNs, as NumPy's ValueError.
Array NanArg(const Array& a, std::string_view op, const ReduceOptions& options) {
  Client client = ClientOf(a);
  if (!IsInexact(a.dtype()) || ReducesNothing(a, options.axis)) {
    return client.Reduce(op, a, options);  // The server's message for an empty argmin.
  }
  if (AnyTrue(all(isnan(a), {.axis = options.axis}))) {
    ThrowInvalid("All-NaN slice encountered");
  }
  return client.Reduce(op, Replaced(a, op == "argmin" ? kInf : -kInf), options);
}

}  // namespace

Array nansum(const Array& a, const ReduceOptions& options) {
  return IsInexact(a.dtype()) ? sum(Replaced(a, 0), options) : sum(a, options);
}

Array nanprod(const Array& a, const ReduceOptions& options) {
  return IsInexact(a.dtype()) ? prod(Replaced(a, 1), options) : prod(a, options);
}

Array nanmean(const Array& a, const ReduceOptions& options) {
  if (!IsInexact(a.dtype())) return mean(a, options);
  RequireInexactDType(options);
  const Array total = sum(Replaced(a, 0), options);
  const Array count = CountValid(a, options.axis, options.keepdims);
  return astype(total / count, options.dtype.value_or(a.dtype()));
}

Array nanvar(const Array& a, const ReduceOptions& options) {
  if (!IsInexact(a.dtype())) return var(a, options);
  RequireInexactDType(options);
  const DType dtype = options.dtype.value_or(a.dtype());
  const Array values = astype(a, dtype);
  const Array mask = isnan(values);
  const Array zeroed = where(mask, 0, values);
  const ReduceOptions kept{.axis = options.axis, .keepdims = true};
  const Array average = astype(sum(zeroed, kept) / CountValid(values, options.axis, true), dtype);
  const Array centred = where(mask, 0, zeroed - average);
  const Array squares = IsComplex(dtype) ? ClientOf(a).Ufunc("real", {centred * conjugate(centred)})
                                         : centred * centred;
  const Array total = sum(squares, {.axis = options.axis, .keepdims = options.keepdims});
  const Array dof = CountValid(values, options.axis, options.keepdims) - options.ddof;
  const Array variance = astype(total / dof, detail::RealOf(dtype));
  return where(dof <= 0, kNaN, variance);
}

Array nanstd(const Array& a, const ReduceOptions& options) {
  if (!IsInexact(a.dtype())) return ClientOf(a).Reduce("std", a, options);
  return sqrt(nanvar(a, options));
}

Array nanmin(const Array& a, const ReduceOptions& options) { return NanExtreme(a, "min", options); }
Array nanmax(const Array& a, const ReduceOptions& options) { return NanExtreme(a, "max", options); }
Array nanargmin(const Array& a, const ReduceOptions& options) {
  return NanArg(a, "argmin", options);
}
Array nanargmax(const Array& a, const ReduceOptions& options) {
  return NanArg(a, "argmax", options);
}

Array nancumsum(const Array& a, std::optional<int64_t> axis, std::optional<DType> dtype) {
  return IsInexact(a.dtype()) ? cumsum(Replaced(a, 0), axis, dtype) : cumsum(a, axis, dtype);
}

Array nancumprod(const Array& a, std::optional<int64_t> axis, std::optional<DType> dtype) {
  ArrayOpOptions options{.dtype = dtype};
  if (axis) options.axis = std::vector<int64_t>{*axis};
  Client client = ClientOf(a);
  if (!IsInexact(a.dtype())) return std::move(client.ArrayOp("cumprod", {a}, options).front());
  return std::move(client.ArrayOp("cumprod", {Replaced(a, 1)}, options).front());
}
}  // namespace arrayhub::client
