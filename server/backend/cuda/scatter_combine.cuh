// Device arithmetic of the combining scatter (NumPy's ufunc.at, indexing.h's ScatterCall): one
// step target = op(target, value) in the storage type of each dtype, as the host's functors
// (host_ops.h) compute it, so that both backends give NumPy's results bit for bit. Floats use
// the round-to-nearest intrinsics, which nvcc never contracts into fused multiply-adds (the host
// computes without them); float16 computes in float and rounds back once per step; integers
// wrap; bool add is or and multiply is and. Included by index_kernels.cu only (nvcc).
#pragma once

#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "server/backend/cuda/element_types.cuh"
#include "server/common/dtype.h"
#include "server/common/ops.h"

namespace arrayhub::scatter_combine {

using cuda_types::Bool;
using cuda_types::Complex;
using cuda_types::kIsComplex;

template <class T>
inline constexpr bool kIsInteger = std::is_integral_v<T>;

// ---- Real arithmetic without contraction ----
__device__ inline float Add(float a, float b) { return __fadd_rn(a, b); }
__device__ inline double Add(double a, double b) { return __dadd_rn(a, b); }
__device__ inline float Sub(float a, float b) { return __fsub_rn(a, b); }
__device__ inline double Sub(double a, double b) { return __dsub_rn(a, b); }
__device__ inline float Mul(float a, float b) { return __fmul_rn(a, b); }
__device__ inline double Mul(double a, double b) { return __dmul_rn(a, b); }

// Integers wrap in an unsigned type at least as wide as unsigned int (no signed overflow).
template <class T>
using Wrap = std::make_unsigned_t<decltype(T{} + T{})>;

template <class T>
__device__ bool IsNan(T x) {
  if constexpr (kIsComplex<T>) {
    return isnan(x.re) || isnan(x.im);
  } else if constexpr (std::is_floating_point_v<T>) {
    return isnan(x);
  } else {
    return false;
  }
}

// NumPy's order of complex numbers (host_ops.h's OrderLessEqual).
template <class R>
__device__ bool LessEqual(Complex<R> a, Complex<R> b) {
  return (a.re < b.re && !isnan(a.im) && !isnan(b.im)) || (a.re == b.re && a.im <= b.im);
}

// One step in the math type M (float for float16): the op of ufuncs.def on two values.
// Maximum and minimum propagate NaN (the first operand's when both are); on a tie (+0.0 and
// -0.0) NumPy's float16 loops keep the first operand and the float32/float64 loops the second
// (kKeepFirst); fmax and fmin return the other operand when one is NaN.
template <ElementwiseOp kOp, bool kKeepFirst, class M>
__device__ M Step(M a, M b) {
  if constexpr (kOp == ElementwiseOp::kFmax || kOp == ElementwiseOp::kFmin) {
    if (IsNan(b)) return a;
    if (IsNan(a)) return b;
    constexpr ElementwiseOp kExtremum =
        kOp == ElementwiseOp::kFmax ? ElementwiseOp::kMaximum : ElementwiseOp::kMinimum;
    return Step<kExtremum, kKeepFirst>(a, b);
  } else if constexpr (kOp == ElementwiseOp::kAdd) {
    if constexpr (kIsComplex<M>) return M{Add(a.re, b.re), Add(a.im, b.im)};
    if constexpr (kIsInteger<M>) return static_cast<M>(static_cast<Wrap<M>>(a) + b);
    if constexpr (std::is_floating_point_v<M>) return Add(a, b);
  } else if constexpr (kOp == ElementwiseOp::kSubtract) {
    if constexpr (kIsComplex<M>) return M{Sub(a.re, b.re), Sub(a.im, b.im)};
    if constexpr (kIsInteger<M>) return static_cast<M>(static_cast<Wrap<M>>(a) - b);
    if constexpr (std::is_floating_point_v<M>) return Sub(a, b);
  } else if constexpr (kOp == ElementwiseOp::kMultiply) {
    if constexpr (kIsComplex<M>) {  // NumPy's textbook product (host_ops.h ComplexMultiply).
      return M{Sub(Mul(a.re, b.re), Mul(a.im, b.im)), Add(Mul(a.re, b.im), Mul(a.im, b.re))};
    }
    if constexpr (kIsInteger<M>) {
      return static_cast<M>(static_cast<Wrap<M>>(a) * static_cast<Wrap<M>>(b));
    }
    if constexpr (std::is_floating_point_v<M>) return Mul(a, b);
  } else {
    constexpr bool kMax = kOp == ElementwiseOp::kMaximum;
    if constexpr (kIsComplex<M>) {
      return (IsNan(a) || (kMax ? LessEqual(b, a) : LessEqual(a, b))) ? a : b;
    } else if constexpr (std::is_floating_point_v<M> && kKeepFirst) {
      return ((kMax ? a >= b : a <= b) || isnan(a)) ? a : b;
    } else {
      return (IsNan(a) || (kMax ? a > b : a < b)) ? a : b;
    }
  }
}

// One step in storage type T.
template <ElementwiseOp kOp, class T>
__device__ T Combine(T a, T b) {
  if constexpr (std::is_same_v<T, Bool>) {
    const bool x = a.v != 0;
    const bool y = b.v != 0;
    const bool any =
        kOp == ElementwiseOp::kAdd || kOp == ElementwiseOp::kMaximum || kOp == ElementwiseOp::kFmax;
    return Bool{static_cast<uint8_t>(any ? (x || y) : (x && y))};
  } else if constexpr (std::is_same_v<T, __half>) {
    const float x = __half2float(a);
    const float y = __half2float(b);
    const float r = Step<kOp, true>(x, y);
    if constexpr (kOp == ElementwiseOp::kMaximum || kOp == ElementwiseOp::kMinimum ||
                  kOp == ElementwiseOp::kFmax || kOp == ElementwiseOp::kFmin) {
      // A selection answers one of its operands bit for bit, as NumPy's float16 loops do: a
      // NaN keeps its sign and payload (__float2half_rn would make every NaN 0x7fff).
      return (r == x || (isnan(r) && isnan(x))) ? a : b;
    } else {
      return __float2half_rn(r);
    }
  } else {
    return Step<kOp, false>(a, b);
  }
}

// Calls f(std::integral_constant<ElementwiseOp, op>{}) for the ops a scatter combines with.
template <class F>
cudaError_t WithOp(ElementwiseOp op, F&& f) {
  switch (op) {
    case ElementwiseOp::kAdd:
      return f(std::integral_constant<ElementwiseOp, ElementwiseOp::kAdd>{});
    case ElementwiseOp::kSubtract:
      return f(std::integral_constant<ElementwiseOp, ElementwiseOp::kSubtract>{});
    case ElementwiseOp::kMultiply:
      return f(std::integral_constant<ElementwiseOp, ElementwiseOp::kMultiply>{});
    case ElementwiseOp::kMaximum:
      return f(std::integral_constant<ElementwiseOp, ElementwiseOp::kMaximum>{});
    case ElementwiseOp::kMinimum:
      return f(std::integral_constant<ElementwiseOp, ElementwiseOp::kMinimum>{});
    case ElementwiseOp::kFmax:
      return f(std::integral_constant<ElementwiseOp, ElementwiseOp::kFmax>{});
    case ElementwiseOp::kFmin:
      return f(std::integral_constant<ElementwiseOp, ElementwiseOp::kFmin>{});
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace arrayhub::scatter_combine
