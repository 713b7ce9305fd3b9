// The elementwise operations of ufuncs.def as functors over one element. Each functor computes
// what NumPy's loop of the same type computes, following NumPy's C sources where IEEE arithmetic
// leaves room for choice (signs of zero, NaN and infinity cases, complex formulas), so that
// results match NumPy bit for bit wherever NumPy is deterministic.
//
// ufuncs.def names each op's functor, its arity and the loop dtypes it is instantiated for. A
// functor declares
//   Input<T, K>: the storage type operand K is read as (UniformInputs: the loop type T);
//   Apply(...): the operation on math types (MathType<T>: float16 arithmetic runs in float).
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numbers>
#include <string_view>
#include <type_traits>

#include "server/backend/host/host_types.h"

namespace arrayhub::host {

// NumPy's dtype.kind of storage type T, the letter ufuncs.def lists loops by.
template <typename T>
constexpr char KindLetter() {
  if constexpr (std::is_same_v<T, bool>) return 'b';
  if constexpr (kIsInteger<T> && std::is_signed_v<T>) return 'i';
  if constexpr (kIsInteger<T> && !std::is_signed_v<T>) return 'u';
  if constexpr (kIsReal<T>) return 'f';
  if constexpr (kIsComplex<T>) return 'c';
}

// Whether `kinds` (a ufuncs.def row's) includes storage type T's kind.
template <typename T>
constexpr bool InKinds(std::string_view kinds) {
  return kinds.find(KindLetter<T>()) != std::string_view::npos;
}

// Base of the functors whose operands are all read as the loop type.
struct UniformInputs {
  template <typename T, size_t K>
  using Input = T;
};

// ---------------------------------------------------------------------------------------------
// Helpers

template <typename T>
T WrapAdd(T a, T b) {
  return static_cast<T>(static_cast<WrapType<T>>(a) + static_cast<WrapType<T>>(b));
}
template <typename T>
T WrapSubtract(T a, T b) {
  return static_cast<T>(static_cast<WrapType<T>>(a) - static_cast<WrapType<T>>(b));
}
template <typename T>
T WrapMultiply(T a, T b) {
  return static_cast<T>(static_cast<WrapType<T>>(a) * static_cast<WrapType<T>>(b));
}
template <typename T>
T WrapNegate(T a) {
  return WrapSubtract(T(0), a);
}

template <typename M>
bool IsNan(M x) {
  if constexpr (kIsComplex<M>) return std::isnan(x.real()) || std::isnan(x.imag());
  if constexpr (kIsReal<M>) return std::isnan(x);
  return false;
}

template <typename M>
bool Nonzero(M x) {
  return x != M(0);  // Complex: either part; NaN is nonzero.
}

// NumPy's order: IEEE for reals, lexicographic for complex, where a NaN in either imaginary
// part makes the real parts' strict comparison false (NumPy's CLT/CLE macros).
template <typename M>
bool OrderLess(M a, M b) {
  if constexpr (kIsComplex<M>) {
    return (a.real() < b.real() && !std::isnan(a.imag()) && !std::isnan(b.imag())) ||
           (a.real() == b.real() && a.imag() < b.imag());
  } else {
    return a < b;
  }
}
template <typename M>
bool OrderLessEqual(M a, M b) {
  if constexpr (kIsComplex<M>) {
    return (a.real() < b.real() && !std::isnan(a.imag()) && !std::isnan(b.imag())) ||
           (a.real() == b.real() && a.imag() <= b.imag());
  } else {
    return a <= b;
  }
}

// Complex product and quotient with NumPy's formulas (the textbook product, Smith's quotient),
// not the C99 Annex G ones std::complex uses, which differ for infinities and in rounding.
template <typename R>
std::complex<R> ComplexMultiply(std::complex<R> a, std::complex<R> b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

template <typename R>
std::complex<R> ComplexDivide(std::complex<R> a, std::complex<R> b) {
  const R abs_real = std::fabs(b.real());
  const R abs_imag = std::fabs(b.imag());
  if (abs_real >= abs_imag) {
    if (abs_real == 0 && abs_imag == 0) {  // Division by zero: complex infinity or NaN.
      return {a.real() / abs_real, a.imag() / abs_imag};
    }
    const R ratio = b.imag() / b.real();
    const R scale = R(1) / (b.real() + b.imag() * ratio);
    return {(a.real() + a.imag() * ratio) * scale, (a.imag() - a.real() * ratio) * scale};
  }
  const R ratio = b.real() / b.imag();
  const R scale = R(1) / (b.imag() + b.real() * ratio);
  return {(a.real() * ratio + a.imag()) * scale, (a.imag() * ratio - a.real()) * scale};
}

// Python's divmod for floats (NumPy's npy_divmod): the quotient is floored and the remainder
// takes the divisor's sign, with signed zeros where the result is zero. b must be nonzero.
template <typename F>
F FloatDivmod(F a, F b, F& mod) {
  mod = std::fmod(a, b);
  F div = (a - mod) / b;  // Very nearly an integer.
  if (mod != 0) {
    if (std::isless(b, F(0)) != std::isless(mod, F(0))) {
      mod += b;
      div -= F(1);
    }
  } else {
    mod = std::copysign(F(0), b);
  }
  if (div == 0) return std::copysign(F(0), a / b);
  F floor_div = std::floor(div);
  if (std::isgreater(div - floor_div, F(0.5))) floor_div += F(1);  // Snap to the nearest.
  return floor_div;
}

// Repeated squaring in wrap-around arithmetic, as NumPy's integer power; a negative exponent
// gives the truncated exact result (ops.h): 1 and -1 keep their powers, everything else is 0.
template <typename I>
I IntegerPower(I base, I exponent) {
  if constexpr (std::is_signed_v<I>) {
    if (exponent < 0) {
      if (base == 1) return 1;
      if (base == -1) return (exponent & 1) ? I(-1) : I(1);
      return 0;
    }
  }
  using W = WrapType<I>;
  W square = static_cast<W>(base);
  W result = (exponent & 1) ? square : W(1);
  for (exponent >>= 1; exponent > 0; exponent >>= 1) {
    square *= square;
    if (exponent & 1) result *= square;
  }
  return static_cast<I>(result);
}

// NumPy's npy_cpow: exact small integer powers by repeated multiplication, cpow otherwise.
template <typename R>
std::complex<R> ComplexPower(std::complex<R> a, std::complex<R> b) {
  using C = std::complex<R>;
  if (b.real() == 0 && b.imag() == 0) return C(1, 0);
  if (a.real() == 0 && a.imag() == 0) {
    if (b.real() > 0) return C(0, 0);
    return C(std::numeric_limits<R>::quiet_NaN(), std::numeric_limits<R>::quiet_NaN());
  }
  if (b.imag() == 0 && b.real() > -100 && b.real() < 100 &&
      static_cast<R>(static_cast<int>(b.real())) == b.real()) {
    const int n = static_cast<int>(b.real());
    if (n == 1) return a;
    if (n == 2) return ComplexMultiply(a, a);
    if (n == 3) return ComplexMultiply(a, ComplexMultiply(a, a));
    C result(1, 0);
    C square = a;
    for (int mask = 1, m = n < 0 ? -n : n;; mask <<= 1) {
      if (m & mask) result = ComplexMultiply(result, square);
      if (m < (mask << 1)) break;
      square = ComplexMultiply(square, square);
    }
    return n < 0 ? ComplexDivide(C(1, 0), result) : result;
  }
  return std::pow(a, b);
}

// Shifts of C's undefined cases defined as NumPy does (npy_lshift, npy_rshift): a count
// outside [0, bits) shifts everything out.
template <typename I>
bool ShiftCountInRange(I count) {
  if constexpr (std::is_signed_v<I>) {
    if (count < 0) return false;
  }
  return static_cast<uint64_t>(count) < sizeof(I) * 8;
}
template <typename I>
I ShiftLeft(I a, I count) {
  if (!ShiftCountInRange(count)) return 0;
  return static_cast<I>(static_cast<WrapType<I>>(a) << count);
}
template <typename I>
I ShiftRight(I a, I count) {
  if (ShiftCountInRange(count)) return static_cast<I>(a >> count);  // Arithmetic when signed.
  if constexpr (std::is_signed_v<I>) {
    if (a < 0) return -1;
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------
// Arithmetic

struct Add : UniformInputs {
  template <typename M>
  static M Apply(M a, M b) {
    if constexpr (std::is_same_v<M, bool>) return a || b;
    if constexpr (kIsInteger<M>) return WrapAdd(a, b);
    if constexpr (kIsReal<M> || kIsComplex<M>) return a + b;
  }
};

struct Subtract : UniformInputs {
  template <typename M>
  static M Apply(M a, M b) {
    if constexpr (kIsInteger<M>) return WrapSubtract(a, b);
    if constexpr (!kIsInteger<M>) return a - b;
  }
};

struct Multiply : UniformInputs {
  template <typename M>
  static M Apply(M a, M b) {
    if constexpr (std::is_same_v<M, bool>) return a && b;
    if constexpr (kIsInteger<M>) return WrapMultiply(a, b);
    if constexpr (kIsReal<M>) return a * b;
    if constexpr (kIsComplex<M>) return ComplexMultiply(a, b);
  }
};

struct TrueDivide : UniformInputs {
  template <typename M>
  static M Apply(M a, M b) {
    if constexpr (kIsComplex<M>) return ComplexDivide(a, b);
    if constexpr (kIsReal<M>) return a / b;
  }
};

struct FloorDivide : UniformInputs {
  template <typename M>
  static M Apply(M a, M b) {
    if constexpr (kIsReal<M>) {
      if (b == 0) return a / b;
      M mod;
      return FloatDivmod(a, b, mod);
    } else {
      if (b == 0) return 0;
      if constexpr (std::is_signed_v<M>) {
        if (a == std::numeric_limits<M>::min() && b == -1) return a;  // Wraps.
        M quotient = static_cast<M>(a / b);
        if ((a > 0) != (b > 0) && static_cast<M>(quotient * b) != a) --quotient;
        return quotient;
      }
      return static_cast<M>(a / b);
    }
  }
};

struct Remainder : UniformInputs {
  template <typename M>
  static M Apply(M a, M b) {
    if constexpr (kIsReal<M>) {
      if (b == 0) return std::fmod(a, b);
      M mod;
      FloatDivmod(a, b, mod);
      return mod;
    } else {
      if (b == 0) return 0;
      if constexpr (std::is_signed_v<M>) {
        if (b == -1) return 0;  // Also keeps INT_MIN % -1 defined.
        const M rem = static_cast<M>(a % b);
        return ((a > 0) == (b > 0) || rem == 0) ? rem : static_cast<M>(rem + b);
      }
      return static_cast<M>(a % b);
    }
  }
};

struct Fmod : UniformInputs {
  template <typename M>
  static M Apply(M a, M b) {
    if constexpr (kIsReal<M>) {
      return std::fmod(a, b);
    } else {
      if (b == 0) return 0;
      if constexpr (std::is_signed_v<M>) {
        if (b == -1) return 0;  // Also keeps INT_MIN % -1 defined.
      }
      return static_cast<M>(a % b);  // C's remainder: the dividend's sign.
    }
  }
};

// gcd and lcm of integers: NumPy's Euclid on the absolute values, taken in the unsigned type
// (|MIN| stays 2^(bits-1), which converts back to MIN), the result wrapped to the type.
template <typename I>
uint64_t UnsignedMagnitude(I x) {
  if constexpr (std::is_signed_v<I>) {
    if (x < 0) return uint64_t{0} - static_cast<uint64_t>(x);
  }
  return static_cast<uint64_t>(x);
}

inline uint64_t EuclidGcd(uint64_t a, uint64_t b) {
  while (a != 0) {
    const uint64_t c = a;
    a = b % a;
    b = c;
  }
  return b;
}

struct Gcd : UniformInputs {
  template <typename M>
  static M Apply(M a, M b) {
    return static_cast<M>(EuclidGcd(UnsignedMagnitude(a), UnsignedMagnitude(b)));
  }
};

// NumPy's bitwise_count: the population count of the magnitude (|MIN| wraps to MIN's one bit).
struct BitwiseCount : UniformInputs {
  template <typename M>
  static uint8_t Apply(M x) {
    return static_cast<uint8_t>(std::popcount(UnsignedMagnitude(x)));
  }
};

struct Lcm : UniformInputs {
  template <typename M>
  static M Apply(M a, M b) {
    const uint64_t gcd = EuclidGcd(UnsignedMagnitude(a), UnsignedMagnitude(b));
    if (gcd == 0) return 0;
    return static_cast<M>(UnsignedMagnitude(a) / gcd * UnsignedMagnitude(b));
  }
};

struct Power : UniformInputs {
  template <typename M>
  static M Apply(M a, M b) {
    if constexpr (kIsInteger<M>) return IntegerPower(a, b);
    if constexpr (kIsReal<M>) return std::pow(a, b);
    if constexpr (kIsComplex<M>) return ComplexPower(a, b);
  }
};

struct Reciprocal : UniformInputs {
  template <typename M>
  static M Apply(M x) {
    if constexpr (kIsInteger<M>) {
      return x == 0 ? M(0) : static_cast<M>(M(1) / x);  // ufuncs.def: 0 for 0.
    } else if constexpr (kIsReal<M>) {
      return M(1) / x;
    } else {
      // NumPy's complex reciprocal loop: Smith's quotient 1 / x, with no case for 0 (NaNs).
      using R = RealType<M>;
      if (std::fabs(x.imag()) <= std::fabs(x.real())) {
        const R ratio = x.imag() / x.real();
        const R denominator = x.real() + x.imag() * ratio;
        return {R(1) / denominator, -ratio / denominator};
      }
      const R ratio = x.real() / x.imag();
      const R denominator = x.real() * ratio + x.imag();
      return {ratio / denominator, R(-1) / denominator};
    }
  }
};

struct Negative : UniformInputs {
  template <typename M>
  static M Apply(M x) {
    if constexpr (kIsInteger<M>) return WrapNegate(x);
    if constexpr (!kIsInteger<M>) return -x;
  }
};

struct Absolute : UniformInputs {
  template <typename M>
  static auto Apply(M x) {
    if constexpr (kIsComplex<M>) {
      return std::hypot(x.real(), x.imag());
    } else if constexpr (kIsReal<M>) {
      return std::fabs(x);
    } else if constexpr (std::is_signed_v<M>) {
      return x < 0 ? WrapNegate(x) : x;  // abs(INT_MIN) wraps to INT_MIN.
    } else {
      return x;
    }
  }
};

struct Sign : UniformInputs {
  template <typename M>
  static M Apply(M x) {
    if constexpr (kIsComplex<M>) {
      return ComplexSign(x);
    } else if constexpr (kIsReal<M>) {
      return x > 0 ? M(1) : (x < 0 ? M(-1) : (x == 0 ? M(0) : x));  // NaN stays NaN.
    } else if constexpr (std::is_signed_v<M>) {
      return static_cast<M>((x > 0) - (x < 0));
    } else {
      return x > 0;
    }
  }

 private:
  // NumPy 2: z / |z|, 0 for 0, NaN when undefined; an infinite part alone gives its unit.
  template <typename R>
  static std::complex<R> ComplexSign(std::complex<R> z) {
    constexpr R kNan = std::numeric_limits<R>::quiet_NaN();
    const R magnitude = std::hypot(z.real(), z.imag());
    if (std::isnan(magnitude)) return {kNan, kNan};
    if (std::isinf(magnitude)) {
      const bool real_inf = std::isinf(z.real());
      const bool imag_inf = std::isinf(z.imag());
      if (real_inf && imag_inf) return {kNan, kNan};
      if (real_inf) return {z.real() > 0 ? R(1) : R(-1), 0};
      return {0, z.imag() > 0 ? R(1) : R(-1)};
    }
    if (magnitude == 0) return {0, 0};
    return {z.real() / magnitude, z.imag() / magnitude};
  }
};

struct Square : UniformInputs {
  template <typename M>
  static M Apply(M x) {
    return Multiply::Apply(x, x);
  }
};

// ---------------------------------------------------------------------------------------------
// Transcendentals: <cmath> for reals, std::complex (the C library's c* functions, as NumPy
// uses) for complex, NumPy's own formulas where NumPy has them.

struct Exp : UniformInputs {
  template <typename M>
  static M Apply(M x) {
    return std::exp(x);
  }
};

struct Exp2 : UniformInputs {
  template <typename M>
  static M Apply(M x) {
    if constexpr (kIsComplex<M>) {
      // NumPy's nc_exp2: exp of z scaled by ln 2 in the component type.
      constexpr auto kLn2 = std::numbers::ln2_v<RealType<M>>;
      return std::exp(M(x.real() * kLn2, x.imag() * kLn2));
    } else {
      return std::exp2(x);
    }
  }
};

struct Expm1 : UniformInputs {
  template <typename M>
  static M Apply(M x) {
    if constexpr (kIsComplex<M>) {
      // NumPy's nc_expm1: exp(z) - 1 without cancellation in the real part.
      const auto half_sin = std::sin(x.imag() / 2);
      return {std::expm1(x.real()) * std::cos(x.imag()) - 2 * half_sin * half_sin,
              std::exp(x.real()) * std::sin(x.imag())};
    } else {
      return std::expm1(x);
    }
  }
};

struct Log : UniformInputs {
  template <typename M>
  static M Apply(M x) {
    return std::log(x);
  }
};

struct Log1p : UniformInputs {
  template <typename M>
  static M Apply(M x) {
    if constexpr (kIsComplex<M>) {
      // log|1 + z| = log1p(u) / 2 with u = |1 + z|^2 - 1 = 2 re + re^2 + im^2, which keeps
      // precision for small z; away from |1 + z| = 1 the plain form is the accurate one.
      using R = RealType<M>;
      const R re = x.real();
      const R im = x.imag();
      const R u = re * (2 + re) + im * im;
      const R log_magnitude =
          std::fabs(u) < R(0.5) ? std::log1p(u) / 2 : std::log(std::hypot(1 + re, im));
      return {log_magnitude, std::atan2(im, re + 1)};
    } else {
      return std::log1p(x);
    }
  }
};

// log2 and log10 of complex: NumPy scales the natural logarithm.
template <typename M, typename R = RealType<M>>
M ScaledLog(M x, R scale) {
  const M log = std::log(x);
  return {log.real() * scale, log.imag() * scale};
}

struct Log2 : UniformInputs {
  template <typename M>
  static M Apply(M x) {
    if constexpr (kIsComplex<M>) {
      return ScaledLog(x, std::numbers::log2e_v<RealType<M>>);
    } else {
      return std::log2(x);
    }
  }
};

struct Log10 : UniformInputs {
  template <typename M>
  static M Apply(M x) {
    if constexpr (kIsComplex<M>) {
      return ScaledLog(x, std::numbers::log10e_v<RealType<M>>);
    } else {
      return std::log10(x);
    }
  }
};

// NumPy's npy_logaddexp: log(exp(a) + exp(b)) as the larger plus log1p(exp(-difference));
// equal operands (also infinities of one sign) give a + log 2, a NaN difference NaN.
struct Logaddexp : UniformInputs {
  template <typename M>
  static M Apply(M a, M b) {
    if (a == b) return a + std::numbers::ln2_v<M>;
    const M difference = a - b;
    if (difference > 0) return a + std::log1p(std::exp(-difference));
    if (difference <= 0) return b + std::log1p(std::exp(difference));
    return difference;
  }
};

// NumPy's npy_logaddexp2: as Logaddexp, base 2 (log2(1 + x) as log1p(x) * log2(e)).
struct Logaddexp2 : UniformInputs {
  template <typename M>
  static M Apply(M a, M b) {
    constexpr M kLog2e = std::numbers::log2e_v<M>;
    if (a == b) return a + 1;
    const M difference = a - b;
    if (difference > 0) return a + kLog2e * std::log1p(std::exp2(-difference));
    if (difference <= 0) return b + kLog2e * std::log1p(std::exp2(difference));
    return difference;
  }
};

struct Sqrt : UniformInputs {
  template <typename M>
  static M Apply(M x) {
    return std::sqrt(x);
  }
};

struct Fabs : UniformInputs {
  template <typename M>
  static M Apply(M x) {
    return std::fabs(x);
  }
};

struct Cbrt : UniformInputs {
  template <typename M>
  static M Apply(M x) {
    return std::cbrt(x);
  }
};

// NumPy's constants pi / 180 and 180 / pi are divided in the loop's type (float for float16).
struct Deg2rad : UniformInputs {
  template <typename M>
  static M Apply(M x) {
    constexpr M kScale = std::numbers::pi_v<M> / M(180);
    return x * kScale;
  }
};

struct Rad2deg : UniformInputs {
  template <typename M>
  static M Apply(M x) {
    constexpr M kScale = M(180) / std::numbers::pi_v<M>;
    return x * kScale;
  }
};

struct Sin : UniformInputs {
  template <typename M>
  static M Apply(M x) {
    return std::sin(x);
  }
};

struct Cos : UniformInputs {
  template <typename M>
  static M Apply(M x) {
    return std::cos(x);
  }
};

struct Tan : UniformInputs {
  template <typename M>
  static M Apply(M x) {
    return std::tan(x);
  }
};

struct Arcsin : UniformInputs {
  template <typename M>
  static M Apply(M x) {
    return std::asin(x);
  }
};

struct Arccos : UniformInputs {
  template <typename M>
  static M Apply(M x) {
    return std::acos(x);
  }
};

struct Arctan : UniformInputs {
  template <typename M>
  static M Apply(M x) {
    return std::atan(x);
  }
};

struct Sinh : UniformInputs {
  template <typename M>
  static M Apply(M x) {
    return std::sinh(x);
  }
};

struct Cosh : UniformInputs {
  template <typename M>
  static M Apply(M x) {
    return std::cosh(x);
  }
};

struct Tanh : UniformInputs {
  template <typename M>
  static M Apply(M x) {
    return std::tanh(x);
  }
};

struct Arcsinh : UniformInputs {
  template <typename M>
  static M Apply(M x) {
    return std::asinh(x);
  }
};

struct Arccosh : UniformInputs {
  template <typename M>
  static M Apply(M x) {
    return std::acosh(x);
  }
};

struct Arctanh : UniformInputs {
  template <typename M>
  static M Apply(M x) {
    return std::atanh(x);
  }
};

struct Arctan2 : UniformInputs {
  template <typename M>
  static M Apply(M y, M x) {
    return std::atan2(y, x);
  }
};

struct Hypot : UniformInputs {
  template <typename M>
  static M Apply(M a, M b) {
    return std::hypot(a, b);
  }
};

struct Copysign : UniformInputs {
  template <typename M>
  static M Apply(M magnitude, M sign) {
    return std::copysign(magnitude, sign);
  }
};

// NumPy's nextafter. Its float16 loop steps float16's bits (npy_half_nextafter), not a float's:
// T is the storage type, M float for it. Equal operands (also +0.0 and -0.0) give y there, as
// C's nextafter and NumPy's other loops (NumPy 2.5's fix of its float16 loop, numpy#31475).
template <typename T>
struct Nextafter : UniformInputs {
  template <typename M>
  static M Apply(M x, M y) {
    if constexpr (std::is_same_v<T, Half>) {
      return HalfNextafter(Half(x), Half(y));
    } else {
      return std::nextafter(x, y);
    }
  }

 private:
  static Half HalfNextafter(Half x, Half y) {
    if (x.isNan() || y.isNan()) return std::numeric_limits<Half>::quiet_NaN();
    if (x == y) return y;
    const uint16_t xbits = x.bits();
    const uint16_t ybits = y.bits();
    uint16_t bits;
    if (x == Half(0.0f)) {
      bits = static_cast<uint16_t>((ybits & 0x8000u) + 1);  // The smallest subnormal.
    } else if ((xbits & 0x8000u) == 0) {
      const bool beyond = static_cast<int16_t>(xbits) > static_cast<int16_t>(ybits);
      bits = static_cast<uint16_t>(beyond ? xbits - 1 : xbits + 1);
    } else {
      const bool beyond = (ybits & 0x8000u) == 0 || (xbits & 0x7fffu) > (ybits & 0x7fffu);
      bits = static_cast<uint16_t>(beyond ? xbits - 1 : xbits + 1);
    }
    Half result;
    result.setBits(bits);
    return result;
  }
};

// NumPy's npy_heaviside: 0 below zero, h0 at zero (either sign), 1 above, NaN for NaN.
struct Heaviside : UniformInputs {
  template <typename M>
  static M Apply(M x, M h0) {
    if (std::isnan(x)) return std::numeric_limits<M>::quiet_NaN();
    if (x == 0) return h0;
    return x < 0 ? M(0) : M(1);
  }
};

// NumPy's ldexp: x * 2**e in x's type (a float16 loop in float, rounded once). NumPy's loops
// take an int32 or int64 exponent; read as int64 here and clamped to int, as NumPy's long loop.
struct Ldexp {
  template <typename T, size_t K>
  using Input = std::conditional_t<K == 1, int64_t, T>;

  template <typename M>
  static M Apply(M x, int64_t exponent) {
    constexpr int64_t kMax = std::numeric_limits<int>::max();
    constexpr int64_t kMin = std::numeric_limits<int>::min();
    return std::ldexp(x, static_cast<int>(std::clamp(exponent, kMin, kMax)));
  }
};

// frexp's two outputs (ufuncs.def: one op each), C's frexp as NumPy's loops: a float16 loop
// takes float's, whose mantissa a half holds exactly.
struct FrexpMantissa : UniformInputs {
  template <typename M>
  static M Apply(M x) {
    int exponent;
    return std::frexp(x, &exponent);
  }
};

struct FrexpExponent : UniformInputs {
  template <typename M>
  static int32_t Apply(M x) {
    int exponent = 0;  // C leaves it unspecified for infinities and NaN; NumPy (glibc) gives 0.
    std::frexp(x, &exponent);
    return std::isfinite(x) ? exponent : 0;
  }
};

// modf's two outputs: C's modf (the fraction keeps x's sign; +-0 for infinities).
struct ModfFraction : UniformInputs {
  template <typename M>
  static M Apply(M x) {
    M integral;
    return std::modf(x, &integral);
  }
};

struct ModfIntegral : UniformInputs {
  template <typename M>
  static M Apply(M x) {
    M integral;
    std::modf(x, &integral);
    return integral;
  }
};

// ---------------------------------------------------------------------------------------------
// Complex parts (integers and reals: conjugate is the identity).

struct Conjugate : UniformInputs {
  template <typename M>
  static M Apply(M x) {
    if constexpr (kIsComplex<M>) return {x.real(), -x.imag()};
    if constexpr (!kIsComplex<M>) return x;
  }
};

struct RealPart : UniformInputs {
  template <typename M>
  static auto Apply(M x) {
    return x.real();
  }
};

struct ImagPart : UniformInputs {
  template <typename M>
  static auto Apply(M x) {
    return x.imag();
  }
};

struct MakeComplex : UniformInputs {
  template <typename M>
  static std::complex<M> Apply(M re, M im) {
    return {re, im};
  }
};

// ---------------------------------------------------------------------------------------------
// Rounding: identities for integers and bool (NumPy >= 2.1 keeps their dtype).

struct Floor : UniformInputs {
  template <typename M>
  static M Apply(M x) {
    if constexpr (kIsReal<M>) return std::floor(x);
    if constexpr (!kIsReal<M>) return x;
  }
};

struct Ceil : UniformInputs {
  template <typename M>
  static M Apply(M x) {
    if constexpr (kIsReal<M>) return std::ceil(x);
    if constexpr (!kIsReal<M>) return x;
  }
};

struct Trunc : UniformInputs {
  template <typename M>
  static M Apply(M x) {
    if constexpr (kIsReal<M>) return std::trunc(x);
    if constexpr (!kIsReal<M>) return x;
  }
};

struct Rint : UniformInputs {
  template <typename M>
  static M Apply(M x) {
    // nearbyint rounds half to even in the default rounding mode, without raising inexact.
    if constexpr (kIsComplex<M>) return {std::nearbyint(x.real()), std::nearbyint(x.imag())};
    if constexpr (kIsReal<M>) return std::nearbyint(x);
    if constexpr (!kIsReal<M> && !kIsComplex<M>) return x;
  }
};

// ---------------------------------------------------------------------------------------------
// Extrema. NaN propagates (the first operand's if both are NaN). When the operands compare
// equal (+0.0 and -0.0), NumPy's float16 loop keeps the first operand and its float32/float64
// loops (SIMD max/min semantics) the second; Ties selects which.

enum class Ties { kKeepFirst, kKeepSecond };

template <typename T>
inline constexpr Ties kTiesOf = std::is_same_v<T, Half> ? Ties::kKeepFirst : Ties::kKeepSecond;

template <Ties kTies>
struct Maximum : UniformInputs {
  template <typename M>
  static M Apply(M a, M b) {
    if constexpr (std::is_same_v<M, bool>) {
      return a || b;
    } else if constexpr (kIsComplex<M>) {
      return (IsNan(a) || OrderLessEqual(b, a)) ? a : b;
    } else if constexpr (kIsReal<M> && kTies == Ties::kKeepFirst) {
      return (a >= b || std::isnan(a)) ? a : b;
    } else {
      return (IsNan(a) || a > b) ? a : b;
    }
  }
};

template <Ties kTies>
struct Minimum : UniformInputs {
  template <typename M>
  static M Apply(M a, M b) {
    if constexpr (std::is_same_v<M, bool>) {
      return a && b;
    } else if constexpr (kIsComplex<M>) {
      return (IsNan(a) || OrderLessEqual(a, b)) ? a : b;
    } else if constexpr (kIsReal<M> && kTies == Ties::kKeepFirst) {
      return (a <= b || std::isnan(a)) ? a : b;
    } else {
      return (IsNan(a) || a < b) ? a : b;
    }
  }
};

// NumPy's clip loop (clip.cpp) rather than minimum(maximum(x, low), high): each step keeps its
// first operand when that is NaN or strictly beyond the bound, and complex values order
// lexicographically with no NaN test on the bound. On a tie (+0.0 against -0.0) the float32
// and float64 loops take the bound and the float16 loop (npy_half_ge/le) keeps the value, as
// Ties says.
template <Ties kTies>
struct Clip : UniformInputs {
  template <typename M>
  static M Apply(M x, M low, M high) {
    return Bounded<false>(Bounded<true>(x, low), high);
  }

 private:
  // a > b (kAbove) or a < b.
  template <bool kAbove, typename M>
  static bool Beyond(M a, M b) {
    if constexpr (kIsComplex<M>) {
      if (a.real() == b.real()) return kAbove ? a.imag() > b.imag() : a.imag() < b.imag();
      return kAbove ? a.real() > b.real() : a.real() < b.real();
    } else {
      return kAbove ? a > b : a < b;
    }
  }

  // max(value, bound) (kAbove) or min(value, bound).
  template <bool kAbove, typename M>
  static M Bounded(M value, M bound) {
    const bool keep = IsNan(value) || Beyond<kAbove>(value, bound) ||
                      (kTies == Ties::kKeepFirst && value == bound);
    return keep ? value : bound;
  }
};

// NumPy's fmax and fmin: NaN only when both operands are (the first then); ties as maximum's.
template <Ties kTies>
struct Fmax : UniformInputs {
  template <typename M>
  static M Apply(M a, M b) {
    if (IsNan(b)) return a;
    if (IsNan(a)) return b;
    return Maximum<kTies>::Apply(a, b);
  }
};

template <Ties kTies>
struct Fmin : UniformInputs {
  template <typename M>
  static M Apply(M a, M b) {
    if (IsNan(b)) return a;
    if (IsNan(a)) return b;
    return Minimum<kTies>::Apply(a, b);
  }
};

// ---------------------------------------------------------------------------------------------
// Comparisons and predicates: bool results.

struct Equal : UniformInputs {
  template <typename M>
  static bool Apply(M a, M b) {
    return a == b;
  }
};

struct NotEqual : UniformInputs {
  template <typename M>
  static bool Apply(M a, M b) {
    return a != b;
  }
};

struct Less : UniformInputs {
  template <typename M>
  static bool Apply(M a, M b) {
    return OrderLess(a, b);
  }
};

struct LessEqual : UniformInputs {
  template <typename M>
  static bool Apply(M a, M b) {
    return OrderLessEqual(a, b);
  }
};

struct Greater : UniformInputs {
  template <typename M>
  static bool Apply(M a, M b) {
    return OrderLess(b, a);
  }
};

struct GreaterEqual : UniformInputs {
  template <typename M>
  static bool Apply(M a, M b) {
    return OrderLessEqual(b, a);
  }
};

struct LogicalAnd : UniformInputs {
  template <typename M>
  static bool Apply(M a, M b) {
    return Nonzero(a) && Nonzero(b);
  }
};

struct LogicalOr : UniformInputs {
  template <typename M>
  static bool Apply(M a, M b) {
    return Nonzero(a) || Nonzero(b);
  }
};

struct LogicalXor : UniformInputs {
  template <typename M>
  static bool Apply(M a, M b) {
    return Nonzero(a) != Nonzero(b);
  }
};

struct LogicalNot : UniformInputs {
  template <typename M>
  static bool Apply(M x) {
    return !Nonzero(x);
  }
};

struct Signbit : UniformInputs {
  template <typename M>
  static bool Apply(M x) {
    return std::signbit(x);
  }
};

struct Isnan : UniformInputs {
  template <typename M>
  static bool Apply(M x) {
    return IsNan(x);
  }
};

struct Isinf : UniformInputs {
  template <typename M>
  static bool Apply(M x) {
    if constexpr (kIsComplex<M>) return std::isinf(x.real()) || std::isinf(x.imag());
    if constexpr (kIsReal<M>) return std::isinf(x);
    return false;
  }
};

struct Isfinite : UniformInputs {
  template <typename M>
  static bool Apply(M x) {
    if constexpr (kIsComplex<M>) return std::isfinite(x.real()) && std::isfinite(x.imag());
    if constexpr (kIsReal<M>) return std::isfinite(x);
    return true;
  }
};

// ---------------------------------------------------------------------------------------------
// Bitwise: bool and integers (shifts: integers only).

struct BitwiseAnd : UniformInputs {
  template <typename M>
  static M Apply(M a, M b) {
    return static_cast<M>(a & b);
  }
};

struct BitwiseOr : UniformInputs {
  template <typename M>
  static M Apply(M a, M b) {
    return static_cast<M>(a | b);
  }
};

struct BitwiseXor : UniformInputs {
  template <typename M>
  static M Apply(M a, M b) {
    return static_cast<M>(a ^ b);
  }
};

struct Invert : UniformInputs {
  template <typename M>
  static M Apply(M x) {
    if constexpr (std::is_same_v<M, bool>) return !x;
    if constexpr (kIsInteger<M>) return static_cast<M>(~x);
  }
};

struct LeftShift : UniformInputs {
  template <typename M>
  static M Apply(M a, M count) {
    return ShiftLeft(a, count);
  }
};

struct RightShift : UniformInputs {
  template <typename M>
  static M Apply(M a, M count) {
    return ShiftRight(a, count);
  }
};

// ---------------------------------------------------------------------------------------------
// Selection.

struct Where {
  template <typename T, size_t K>
  using Input = std::conditional_t<K == 0, bool, T>;  // The condition, nonzero-tested.

  template <typename M>
  static M Apply(bool condition, M a, M b) {
    return condition ? a : b;
  }
};

struct Copy : UniformInputs {
  template <typename M>
  static M Apply(M x) {
    return x;
  }
};

}  // namespace arrayhub::host
