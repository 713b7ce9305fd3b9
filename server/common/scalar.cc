#include "server/common/scalar.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "server/common/float16.h"

namespace arrayhub {
namespace {

template <typename T>
ElementBytes BytesOf(T value) {
  static_assert(sizeof(T) <= sizeof(ElementBytes));
  ElementBytes bytes{};
  std::memcpy(bytes.data(), &value, sizeof(T));
  return bytes;
}

// Python's repr of a float: shortest round-trip digits, "nan", "inf"; repr(float) adds ".0" to
// integral values, complex components do not.
std::string FloatRepr(double v, bool integral_point) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::string text = fmt::format("{}", v);
  if (integral_point && text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

absl::Status OutOfBounds(const Scalar& value, DType dtype) {
  return absl::InvalidArgumentError(
      fmt::format("Python integer {} out of bounds for {}", value.ToString(), DTypeName(dtype)));
}

// Integer value into an integer dtype, checked against its range like NumPy 2.
template <typename T>
absl::StatusOr<ElementBytes> EncodeInteger(const Scalar& value, DType dtype) {
  using Limits = std::numeric_limits<T>;
  if (value.kind == Scalar::Kind::kUInt) {
    if (value.u > static_cast<uint64_t>(Limits::max())) return OutOfBounds(value, dtype);
    return BytesOf(static_cast<T>(value.u));
  }
  if constexpr (Limits::is_signed) {
    if (value.i < static_cast<int64_t>(Limits::min()) ||
        value.i > static_cast<int64_t>(Limits::max())) {
      return OutOfBounds(value, dtype);
    }
  } else {
    if (value.i < 0 || static_cast<uint64_t>(value.i) > static_cast<uint64_t>(Limits::max())) {
      return OutOfBounds(value, dtype);
    }
  }
  return BytesOf(static_cast<T>(value.i));
}

// Float value into an integer dtype: truncation toward zero, range-checked so that the cast
// is defined behaviour.
template <typename T>
absl::StatusOr<ElementBytes> EncodeTruncated(double v, DType dtype) {
  double t = std::trunc(v);
  // 2^(digits) is exact in double; the valid range is [min, 2^digits).
  const double upper = std::ldexp(1.0, std::numeric_limits<T>::digits);
  const double lower = static_cast<double>(std::numeric_limits<T>::min());
  if (!std::isfinite(v) || t < lower || t >= upper) {
    return absl::InvalidArgumentError(
        fmt::format("cannot convert float {} to {}: out of range", v, DTypeName(dtype)));
  }
  return BytesOf(static_cast<T>(t));
}

template <typename T>
absl::StatusOr<ElementBytes> EncodeIntegerDType(const Scalar& value, DType dtype) {
  switch (value.kind) {
    case Scalar::Kind::kBool:
      return BytesOf(static_cast<T>(value.b ? 1 : 0));
    case Scalar::Kind::kInt:
    case Scalar::Kind::kUInt:
      return EncodeInteger<T>(value, dtype);
    case Scalar::Kind::kFloat:
      return EncodeTruncated<T>(value.f, dtype);
    case Scalar::Kind::kComplex:
      return EncodeTruncated<T>(value.c.real(), dtype);
  }
  return absl::InternalError("unknown scalar kind");
}

}  // namespace

std::complex<double> Scalar::AsComplex() const {
  switch (kind) {
    case Kind::kBool:
      return b ? 1.0 : 0.0;
    case Kind::kInt:
      return static_cast<double>(i);
    case Kind::kUInt:
      return static_cast<double>(u);
    case Kind::kFloat:
      return f;
    case Kind::kComplex:
      return c;
  }
  return 0.0;
}

std::string Scalar::ToString() const {
  switch (kind) {
    case Kind::kBool:
      return b ? "True" : "False";
    case Kind::kInt:
      return fmt::format("{}", i);
    case Kind::kUInt:
      return fmt::format("{}", u);
    case Kind::kFloat:
      return FloatRepr(f, /*integral_point=*/true);
    case Kind::kComplex: {
      // Python: "2j" for a purely imaginary value with +0 real part, else "(re+imj)".
      if (c.real() == 0.0 && !std::signbit(c.real())) return FloatRepr(c.imag(), false) + "j";
      return fmt::format("({}{}{}j)", FloatRepr(c.real(), false),
                         std::signbit(c.imag()) ? "-" : "+", FloatRepr(std::fabs(c.imag()), false));
    }
  }
  return "?";
}

DType DefaultDType(const Scalar& value) {
  switch (value.kind) {
    case Scalar::Kind::kBool:
      return DType::kBool;
    case Scalar::Kind::kInt:
      return DType::kInt64;
    case Scalar::Kind::kUInt:
      return DType::kUInt64;
    case Scalar::Kind::kFloat:
      return DType::kFloat64;
    case Scalar::Kind::kComplex:
      return DType::kComplex128;
  }
  return DType::kFloat64;
}

absl::StatusOr<ElementBytes> EncodeScalar(const Scalar& value, DType dtype) {
  const std::complex<double> z = value.AsComplex();
  switch (dtype) {
    case DType::kBool:
      return BytesOf(static_cast<uint8_t>(z != 0.0));
    case DType::kInt8:
      return EncodeIntegerDType<int8_t>(value, dtype);
    case DType::kInt16:
      return EncodeIntegerDType<int16_t>(value, dtype);
    case DType::kInt32:
      return EncodeIntegerDType<int32_t>(value, dtype);
    case DType::kInt64:
      return EncodeIntegerDType<int64_t>(value, dtype);
    case DType::kUInt8:
      return EncodeIntegerDType<uint8_t>(value, dtype);
    case DType::kUInt16:
      return EncodeIntegerDType<uint16_t>(value, dtype);
    case DType::kUInt32:
      return EncodeIntegerDType<uint32_t>(value, dtype);
    case DType::kUInt64:
      return EncodeIntegerDType<uint64_t>(value, dtype);
    case DType::kFloat16:
      return BytesOf(HalfFromDouble(z.real()).bits());
    case DType::kFloat32:
      return BytesOf(static_cast<float>(z.real()));
    case DType::kFloat64:
      return BytesOf(z.real());
    case DType::kComplex64:
      return BytesOf(
          std::complex<float>(static_cast<float>(z.real()), static_cast<float>(z.imag())));
    case DType::kComplex128:
      return BytesOf(z);
  }
  return absl::InternalError("unknown dtype");
}

}  // namespace arrayhub
