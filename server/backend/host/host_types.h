// The host backend's C++ element types for each dtype, the one switch that maps a dtype to its
// type, and the value conversions between them (NumPy's casts, with the out-of-range rule of
// compute.h).
#pragma once

#include <Imath/half.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>

#include "server/common/dtype.h"
#include "server/common/dtype_visit.h"
#include "server/common/float16.h"

namespace arrayhub::host {

using Half = Imath::half;

using arrayhub::TypeTag;

// The host's element types (dtype_visit.h).
struct HostTypes {
  using Bool = bool;
  using Half = Imath::half;
  template <typename R>
  using Complex = std::complex<R>;
};

// Calls f(TypeTag<T>{}) with T the host's element type of `dtype`: the single place a loop's
// dtype becomes a C++ type.
template <typename F>
constexpr decltype(auto) VisitDType(DType dtype, F&& f) {
  return VisitDTypeAs<HostTypes>(dtype, std::forward<F>(f));
}

template <typename T>
inline constexpr bool kIsComplex = false;
template <typename R>
inline constexpr bool kIsComplex<std::complex<R>> = true;

template <typename T>
inline constexpr bool kIsReal = std::is_floating_point_v<T> || std::is_same_v<T, Half>;

template <typename T>
inline constexpr bool kIsInteger = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// The dtype whose host element type is T: VisitDType's inverse.
template <typename T>
constexpr DType DTypeOf() {
  constexpr std::optional<DType> kFound = [] {
    for (const DType dtype : kAllDTypes) {
      const bool match = VisitDType(
          dtype, [](auto tag) { return std::is_same_v<typename decltype(tag)::type, T>; });
      if (match) return std::optional<DType>(dtype);
    }
    return std::optional<DType>();
  }();
  static_assert(kFound.has_value(), "not the type of a dtype");
  return *kFound;
}

// The type arithmetic runs in: NumPy's float16 loops convert to float, compute, and round back
// to half once per operation.
template <typename T>
using MathType = std::conditional_t<std::is_same_v<T, Half>, float, T>;

// The real type of a complex (itself for real types).
template <typename T>
struct RealOf {
  using type = T;
};
template <typename R>
struct RealOf<std::complex<R>> {
  using type = R;
};
template <typename T>
using RealType = typename RealOf<T>::type;

// Wrap-around arithmetic for integers: unsigned arithmetic is modular by definition, and at
// least `unsigned` wide so that promotions of small types never reach (UB) signed overflow.
template <typename T>
using WrapType =
    std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

// A float truncated toward zero into integer type I; NaN, infinities and values whose
// truncation does not fit I give 0 (the rule of compute.h; C++ leaves them undefined).
template <typename I, typename F>
I FloatToInteger(F value) {
  constexpr int kValueBits = std::numeric_limits<I>::digits;  // Excludes the sign bit.
  const F limit = std::ldexp(F(1), kValueBits);               // Exact: a power of two.
  const F lowest = std::is_signed_v<I> ? -limit : F(0);
  const F truncated = std::trunc(value);
  if (!(truncated >= lowest && truncated < limit)) return 0;
  return static_cast<I>(truncated);
}

// One element converted between any two types, as NumPy's astype (unsafe casting): integers
// wrap, floats truncate into integers, complex drops its imaginary part into real types, and
// anything nonzero (NaN included) is true.
template <typename To, typename From>
To Convert(From x) {
  if constexpr (std::is_same_v<To, From>) {
    return x;
  } else if constexpr (std::is_same_v<From, Half>) {
    return Convert<To>(static_cast<float>(x));  // Exact.
  } else if constexpr (std::is_same_v<To, bool>) {
    return x != From(0);
  } else if constexpr (kIsComplex<From> && !kIsComplex<To>) {
    return Convert<To>(x.real());
  } else if constexpr (kIsComplex<To>) {
    using R = typename To::value_type;
    if constexpr (kIsComplex<From>) {
      return To(static_cast<R>(x.real()), static_cast<R>(x.imag()));
    } else {
      return To(Convert<R>(x), R(0));
    }
  } else if constexpr (std::is_same_v<To, Half>) {
    // Integers go through float exactly where half has finite values (|x| < 2^24 is exact in
    // float; anything larger is infinite in half either way).
    if constexpr (std::is_same_v<From, double>) return HalfFromDouble(x);
    return Half(static_cast<float>(x));
  } else if constexpr (kIsInteger<To> && std::is_floating_point_v<From>) {
    return FloatToInteger<To>(x);
  } else {
    return static_cast<To>(x);  // Integer narrowing is modular since C++20.
  }
}

// Reads an element of T from possibly unaligned memory. Bools are read as bytes and tested
// for nonzero: a buffer uploaded by a client may hold any byte, and a C++ bool that is not 0
// or 1 is undefined behaviour.
template <typename T>
T LoadElement(const std::byte* p) {
  if constexpr (std::is_same_v<T, bool>) {
    return *reinterpret_cast<const uint8_t*>(p) != 0;
  } else {
    T value;
    std::memcpy(&value, p, sizeof(T));
    return value;
  }
}

template <typename T>
void StoreElement(std::byte* p, T value) {
  std::memcpy(p, &value, sizeof(T));
}

}  // namespace arrayhub::host
