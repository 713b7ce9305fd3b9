// numpy.sort's total order on the host: what Sort and SearchSorted compare with, and
// numpy.unique's equality (SelectUnique). NaN sorts
// after every number; complex values sort by class [R + Rj, R + nanj, nan + Rj, nan + nanj]
// and, within a class, by the parts that are not NaN, real first (NumPy's CFLOAT_LT).
#pragma once

#include <cmath>

#include "server/backend/host/host_types.h"

namespace arrayhub::host {

template <typename R>
bool RealSortLess(R a, R b) {
  if (std::isnan(b)) return !std::isnan(a);
  return a < b;  // False when a is NaN and b is not.
}

// Strict weak order: true when a sorts before b.
template <typename T>
bool SortLess(const T& a, const T& b) {
  if constexpr (kIsComplex<T>) {
    const int class_a = 2 * std::isnan(a.real()) + std::isnan(a.imag());
    const int class_b = 2 * std::isnan(b.real()) + std::isnan(b.imag());
    if (class_a != class_b) return class_a < class_b;
    if (a.real() != b.real() && !std::isnan(a.real())) return a.real() < b.real();
    return RealSortLess(a.imag(), b.imag());
  } else if constexpr (kIsReal<T>) {
    return RealSortLess(static_cast<MathType<T>>(a), static_cast<MathType<T>>(b));
  } else {
    return a < b;
  }
}

// Equal as numpy.unique compares (equal_nan=True): by value, and every NaN equal to every
// other; a complex value is NaN when either part is.
template <typename T>
bool UniqueEqual(const T& a, const T& b) {
  if constexpr (kIsComplex<T>) {
    const bool nan_a = std::isnan(a.real()) || std::isnan(a.imag());
    const bool nan_b = std::isnan(b.real()) || std::isnan(b.imag());
    return nan_a || nan_b ? nan_a && nan_b : a == b;
  } else if constexpr (kIsReal<T>) {
    const auto x = static_cast<MathType<T>>(a), y = static_cast<MathType<T>>(b);
    return x == y || (std::isnan(x) && std::isnan(y));
  } else {
    return a == b;
  }
}

}  // namespace arrayhub::host
