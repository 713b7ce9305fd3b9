// A client-sent scalar and its conversion to the bytes of one element of a dtype.
#pragma once

#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "server/common/dtype.h"

namespace arrayhub {

// A Python scalar as sent on the wire. Its kind is what NEP 50 calls a "weak" type: it tells
// the promotion category, not a precision.
struct Scalar {
  enum class Kind : uint8_t { kBool, kInt, kUInt, kFloat, kComplex };
  Kind kind = Kind::kInt;
  bool b = false;
  int64_t i = 0;
  uint64_t u = 0;
  double f = 0.0;
  std::complex<double> c{};

  static Scalar Bool(bool v) { return {.kind = Kind::kBool, .b = v}; }
  static Scalar Int(int64_t v) { return {.kind = Kind::kInt, .i = v}; }
  static Scalar UInt(uint64_t v) { return {.kind = Kind::kUInt, .u = v}; }
  static Scalar Float(double v) { return {.kind = Kind::kFloat, .f = v}; }
  static Scalar Complex(std::complex<double> v) { return {.kind = Kind::kComplex, .c = v}; }

  // The value as a complex number (exact for bool and for integers up to 2^53).
  std::complex<double> AsComplex() const;
  // Python repr-like text for messages: "True", "300", "2.5", "(1+2j)".
  std::string ToString() const;
};

// The dtype NumPy gives numpy.array(value): bool, int64 (uint64 above INT64_MAX), float64,
// complex128.
DType DefaultDType(const Scalar& value);

// One element of `dtype` holding `value`, little-endian, in the first ItemSize(dtype) bytes.
// Conversions follow numpy.full: floats truncate toward zero into integers, complex values
// drop their imaginary part into real dtypes, anything nonzero is True. Integers that do not
// fit the dtype, and floats that are NaN, infinite or out of range for an integer dtype, are
// INVALID_ARGUMENT, as NumPy 2 raises OverflowError/ValueError for them.
using ElementBytes = std::array<std::byte, 16>;
absl::StatusOr<ElementBytes> EncodeScalar(const Scalar& value, DType dtype);

}  // namespace arrayhub
