#include "server/backend/host/user_kernel_ops.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>

#include "server/backend/host/host_types.h"

namespace arrayhub::host {
namespace {

using kernel::BinaryOp;
using kernel::MathFn;
using kernel::UnaryOp;

template <typename T>
const T* In(const std::byte* const* src, int k) {
  return reinterpret_cast<const T*>(src[k]);
}

template <typename T>
T* Out(std::byte* dst) {
  return reinterpret_cast<T*>(dst);
}

template <typename To, typename From>
void Cast(int n, std::byte* dst, const std::byte* const* src) {
  const From* a = In<From>(src, 0);
  To* out = Out<To>(dst);
  for (int l = 0; l < n; ++l) out[l] = Convert<To>(a[l]);
}

// Arithmetic of T: float16 computes in float and rounds back, as NumPy's float16 loops.
template <typename T, typename F>
T Arith(T a, T b, F f) {
  if constexpr (std::is_same_v<T, Half>) {
    return Half(f(static_cast<float>(a), static_cast<float>(b)));
  } else {
    return f(a, b);
  }
}

template <typename T, BinaryOp op>
auto ApplyBinary(T a, T b) {
  if constexpr (kIsInteger<T>) {
    using W = WrapType<T>;
    const W x = static_cast<W>(a);
    const W y = static_cast<W>(b);
    constexpr W kMask = sizeof(T) * 8 - 1;
    if constexpr (op == BinaryOp::kAdd) return static_cast<T>(x + y);
    if constexpr (op == BinaryOp::kSub) return static_cast<T>(x - y);
    if constexpr (op == BinaryOp::kMul) return static_cast<T>(x * y);
    if constexpr (op == BinaryOp::kDiv || op == BinaryOp::kMod) {
      if (b == 0) return T(0);
      if constexpr (std::is_signed_v<T>) {
        if (b == T(-1)) return op == BinaryOp::kDiv ? static_cast<T>(W(0) - x) : T(0);
      }
      return op == BinaryOp::kDiv ? static_cast<T>(a / b) : static_cast<T>(a % b);
    }
    if constexpr (op == BinaryOp::kShl) return static_cast<T>(x << (y & kMask));
    if constexpr (op == BinaryOp::kShr) return static_cast<T>(a >> (y & kMask));
    if constexpr (op == BinaryOp::kBitAnd) return static_cast<T>(a & b);
    if constexpr (op == BinaryOp::kBitOr) return static_cast<T>(a | b);
    if constexpr (op == BinaryOp::kBitXor) return static_cast<T>(a ^ b);
  } else if constexpr (!std::is_same_v<T, bool>) {
    if constexpr (op == BinaryOp::kAdd) return Arith(a, b, [](auto x, auto y) { return x + y; });
    if constexpr (op == BinaryOp::kSub) return Arith(a, b, [](auto x, auto y) { return x - y; });
    if constexpr (op == BinaryOp::kMul) return Arith(a, b, [](auto x, auto y) { return x * y; });
    if constexpr (op == BinaryOp::kDiv) return Arith(a, b, [](auto x, auto y) { return x / y; });
  }
  using M = MathType<T>;
  if constexpr (op == BinaryOp::kEqual) return static_cast<M>(a) == static_cast<M>(b);
  if constexpr (op == BinaryOp::kNotEqual) return static_cast<M>(a) != static_cast<M>(b);
  if constexpr (!kIsComplex<T>) {
    if constexpr (op == BinaryOp::kLess) return static_cast<M>(a) < static_cast<M>(b);
    if constexpr (op == BinaryOp::kLessEqual) return static_cast<M>(a) <= static_cast<M>(b);
    if constexpr (op == BinaryOp::kGreater) return static_cast<M>(a) > static_cast<M>(b);
    if constexpr (op == BinaryOp::kGreaterEqual) return static_cast<M>(a) >= static_cast<M>(b);
  }
  if constexpr (std::is_same_v<T, bool>) {
    if constexpr (op == BinaryOp::kLogicalAnd) return a && b;
    if constexpr (op == BinaryOp::kLogicalOr) return a || b;
  }
}

template <typename T, BinaryOp op>
void Binary(int n, std::byte* dst, const std::byte* const* src) {
  const T* a = In<T>(src, 0);
  const T* b = In<T>(src, 1);
  using R = decltype(ApplyBinary<T, op>(a[0], b[0]));
  R* out = Out<R>(dst);
  for (int l = 0; l < n; ++l) out[l] = ApplyBinary<T, op>(a[l], b[l]);
}

template <typename T, BinaryOp op>
LaneFn BinaryFor() {
  if constexpr (std::is_void_v<decltype(ApplyBinary<T, op>(T(), T()))>) {
    return nullptr;
  } else {
    return &Binary<T, op>;
  }
}

template <typename T>
LaneFn BinaryOf(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd:
      return BinaryFor<T, BinaryOp::kAdd>();
    case BinaryOp::kSub:
      return BinaryFor<T, BinaryOp::kSub>();
    case BinaryOp::kMul:
      return BinaryFor<T, BinaryOp::kMul>();
    case BinaryOp::kDiv:
      return BinaryFor<T, BinaryOp::kDiv>();
    case BinaryOp::kMod:
      return BinaryFor<T, BinaryOp::kMod>();
    case BinaryOp::kShl:
      return BinaryFor<T, BinaryOp::kShl>();
    case BinaryOp::kShr:
      return BinaryFor<T, BinaryOp::kShr>();
    case BinaryOp::kBitAnd:
      return BinaryFor<T, BinaryOp::kBitAnd>();
    case BinaryOp::kBitOr:
      return BinaryFor<T, BinaryOp::kBitOr>();
    case BinaryOp::kBitXor:
      return BinaryFor<T, BinaryOp::kBitXor>();
    case BinaryOp::kLess:
      return BinaryFor<T, BinaryOp::kLess>();
    case BinaryOp::kLessEqual:
      return BinaryFor<T, BinaryOp::kLessEqual>();
    case BinaryOp::kGreater:
      return BinaryFor<T, BinaryOp::kGreater>();
    case BinaryOp::kGreaterEqual:
      return BinaryFor<T, BinaryOp::kGreaterEqual>();
    case BinaryOp::kEqual:
      return BinaryFor<T, BinaryOp::kEqual>();
    case BinaryOp::kNotEqual:
      return BinaryFor<T, BinaryOp::kNotEqual>();
    case BinaryOp::kLogicalAnd:
      return BinaryFor<T, BinaryOp::kLogicalAnd>();
    case BinaryOp::kLogicalOr:
      return BinaryFor<T, BinaryOp::kLogicalOr>();
  }
  return nullptr;
}

template <typename T, UnaryOp op>
void Unary(int n, std::byte* dst, const std::byte* const* src) {
  const T* a = In<T>(src, 0);
  T* out = Out<T>(dst);
  for (int l = 0; l < n; ++l) {
    if constexpr (op == UnaryOp::kLogicalNot) {
      out[l] = !a[l];
    } else if constexpr (op == UnaryOp::kBitNot) {
      out[l] = static_cast<T>(~a[l]);
    } else if constexpr (kIsInteger<T>) {
      out[l] = static_cast<T>(WrapType<T>(0) - static_cast<WrapType<T>>(a[l]));
    } else if constexpr (std::is_same_v<T, Half>) {
      out[l] = -a[l];  // Exact: flips the sign bit.
    } else {
      out[l] = -a[l];
    }
  }
}

template <typename T>
LaneFn UnaryOf(UnaryOp op) {
  if constexpr (std::is_same_v<T, bool>) {
    return op == UnaryOp::kLogicalNot ? &Unary<T, UnaryOp::kLogicalNot> : nullptr;
  } else if constexpr (kIsInteger<T>) {
    if (op == UnaryOp::kBitNot) return &Unary<T, UnaryOp::kBitNot>;
    return op == UnaryOp::kNegate ? &Unary<T, UnaryOp::kNegate> : nullptr;
  } else {
    return op == UnaryOp::kNegate ? &Unary<T, UnaryOp::kNegate> : nullptr;
  }
}

// The functions <cmath> and <complex> spell alike, on a real or complex T; void for the others.
template <MathFn fn, typename T>
auto ApplyStdMath(T x, T y) {
  if constexpr (fn == MathFn::kSqrt) return std::sqrt(x);
  if constexpr (fn == MathFn::kExp) return std::exp(x);
  if constexpr (fn == MathFn::kLog) return std::log(x);
  if constexpr (fn == MathFn::kLog10) return std::log10(x);
  if constexpr (fn == MathFn::kSin) return std::sin(x);
  if constexpr (fn == MathFn::kCos) return std::cos(x);
  if constexpr (fn == MathFn::kTan) return std::tan(x);
  if constexpr (fn == MathFn::kAsin) return std::asin(x);
  if constexpr (fn == MathFn::kAcos) return std::acos(x);
  if constexpr (fn == MathFn::kAtan) return std::atan(x);
  if constexpr (fn == MathFn::kSinh) return std::sinh(x);
  if constexpr (fn == MathFn::kCosh) return std::cosh(x);
  if constexpr (fn == MathFn::kTanh) return std::tanh(x);
  if constexpr (fn == MathFn::kAsinh) return std::asinh(x);
  if constexpr (fn == MathFn::kAcosh) return std::acosh(x);
  if constexpr (fn == MathFn::kAtanh) return std::atanh(x);
  if constexpr (fn == MathFn::kPow) return std::pow(x, y);
}

// The math library, on a real or complex T the checker already converted the arguments to.
template <MathFn fn, typename T>
auto ApplyMath(T x, T y) {
  if constexpr (kIsComplex<T>) {
    if constexpr (!std::is_void_v<decltype(ApplyStdMath<fn>(x, y))>) return ApplyStdMath<fn>(x, y);
    if constexpr (fn == MathFn::kAbs) return std::abs(x);
    if constexpr (fn == MathFn::kReal) return x.real();
    if constexpr (fn == MathFn::kImag) return x.imag();
    if constexpr (fn == MathFn::kConj) return std::conj(x);
  } else if constexpr (kIsInteger<T>) {
    if constexpr (fn == MathFn::kMin) return std::min(x, y);
    if constexpr (fn == MathFn::kMax) return std::max(x, y);
    if constexpr (fn == MathFn::kAbs) {
      return x < 0 ? static_cast<T>(WrapType<T>(0) - static_cast<WrapType<T>>(x)) : x;
    }
  } else if constexpr (std::is_same_v<T, Half>) {
    if constexpr (fn == MathFn::kMin) return Half(std::fmin(float(x), float(y)));
    if constexpr (fn == MathFn::kMax) return Half(std::fmax(float(x), float(y)));
  } else if constexpr (std::is_floating_point_v<T>) {
    if constexpr (!std::is_void_v<decltype(ApplyStdMath<fn>(x, y))>) return ApplyStdMath<fn>(x, y);
    if constexpr (fn == MathFn::kCbrt) return std::cbrt(x);
    if constexpr (fn == MathFn::kExp2) return std::exp2(x);
    if constexpr (fn == MathFn::kExpm1) return std::expm1(x);
    if constexpr (fn == MathFn::kLog2) return std::log2(x);
    if constexpr (fn == MathFn::kLog1p) return std::log1p(x);
    if constexpr (fn == MathFn::kErf) return std::erf(x);
    if constexpr (fn == MathFn::kErfc) return std::erfc(x);
    if constexpr (fn == MathFn::kLgamma) {
      int sign;  // The reentrant form: lgamma writes the global signgam, a race between calls.
      if constexpr (std::is_same_v<T, float>) {
        return ::lgammaf_r(x, &sign);
      } else {
        return ::lgamma_r(x, &sign);
      }
    }
    if constexpr (fn == MathFn::kTgamma) return std::tgamma(x);
    if constexpr (fn == MathFn::kFloor) return std::floor(x);
    if constexpr (fn == MathFn::kCeil) return std::ceil(x);
    if constexpr (fn == MathFn::kTrunc) return std::trunc(x);
    if constexpr (fn == MathFn::kRound) return std::round(x);
    if constexpr (fn == MathFn::kRint) return std::nearbyint(x);
    if constexpr (fn == MathFn::kFabs || fn == MathFn::kAbs) return std::fabs(x);
    if constexpr (fn == MathFn::kRsqrt) return T(1) / std::sqrt(x);
    if constexpr (fn == MathFn::kFmod) return std::fmod(x, y);
    if constexpr (fn == MathFn::kHypot) return std::hypot(x, y);
    if constexpr (fn == MathFn::kAtan2) return std::atan2(x, y);
    if constexpr (fn == MathFn::kCopysign) return std::copysign(x, y);
    if constexpr (fn == MathFn::kFmin || fn == MathFn::kMin) return std::fmin(x, y);
    if constexpr (fn == MathFn::kFmax || fn == MathFn::kMax) return std::fmax(x, y);
    if constexpr (fn == MathFn::kIsnan) return static_cast<bool>(std::isnan(x));
    if constexpr (fn == MathFn::kIsinf) return static_cast<bool>(std::isinf(x));
    if constexpr (fn == MathFn::kIsfinite) return static_cast<bool>(std::isfinite(x));
    if constexpr (fn == MathFn::kSignbit) return static_cast<bool>(std::signbit(x));
  }
}

constexpr bool IsBinaryMath(MathFn fn) {
  return fn == MathFn::kPow || fn == MathFn::kFmod || fn == MathFn::kHypot ||
         fn == MathFn::kAtan2 || fn == MathFn::kCopysign || fn == MathFn::kFmin ||
         fn == MathFn::kFmax || fn == MathFn::kMin || fn == MathFn::kMax;
}

template <MathFn fn, typename T>
void Math(int n, std::byte* dst, const std::byte* const* src) {
  const T* a = In<T>(src, 0);
  const T* b = IsBinaryMath(fn) ? In<T>(src, 1) : a;
  using R = decltype(ApplyMath<fn, T>(a[0], b[0]));
  R* out = Out<R>(dst);
  for (int l = 0; l < n; ++l) out[l] = ApplyMath<fn, T>(a[l], b[l]);
}

template <MathFn fn, typename T>
LaneFn MathFor() {
  if constexpr (std::is_void_v<decltype(ApplyMath<fn, T>(T(), T()))>) {
    return nullptr;
  } else {
    return &Math<fn, T>;
  }
}

template <typename T, size_t... k>
LaneFn MathOf(MathFn fn, std::index_sequence<k...>) {
  LaneFn result = nullptr;
  ((fn == static_cast<MathFn>(k) ? (result = MathFor<static_cast<MathFn>(k), T>(), 0) : 0), ...);
  return result;
}

template <typename T>
void Select(int n, std::byte* dst, const std::byte* const* src) {
  const bool* c = In<bool>(src, 0);
  const T* a = In<T>(src, 1);
  const T* b = In<T>(src, 2);
  T* out = Out<T>(dst);
  for (int l = 0; l < n; ++l) out[l] = c[l] ? a[l] : b[l];
}

}  // namespace

LaneFn CastLanes(DType from, DType to) {
  return VisitDType(from, [&](auto f) {
    return VisitDType(to, [&](auto t) -> LaneFn {
      return &Cast<typename decltype(t)::type, typename decltype(f)::type>;
    });
  });
}

LaneFn UnaryLanes(UnaryOp op, DType dtype) {
  return VisitDType(dtype, [&](auto t) { return UnaryOf<typename decltype(t)::type>(op); });
}

LaneFn BinaryLanes(BinaryOp op, DType operand) {
  return VisitDType(operand, [&](auto t) { return BinaryOf<typename decltype(t)::type>(op); });
}

LaneFn MathLanes(MathFn fn, DType argument) {
  return VisitDType(argument, [&](auto t) {
    return MathOf<typename decltype(t)::type>(
        fn, std::make_index_sequence<static_cast<size_t>(MathFn::kConj) + 1>());
  });
}

LaneFn SelectLanes(DType dtype) {
  return VisitDType(dtype, [&](auto t) -> LaneFn { return &Select<typename decltype(t)::type>; });
}

}  // namespace arrayhub::host
