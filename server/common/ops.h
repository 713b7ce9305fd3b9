// The operations core validates and backends compute: elementwise ufuncs and reductions, with
// the NumPy semantics every backend must reproduce.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace arrayhub {

// NumPy ufuncs. For a loop dtype T (ElementwiseCall::compute_dtype) each computes what NumPy's
// loop of that type computes; where NumPy leaves a case undefined or raises on data, the
// behaviour chosen is noted.
enum class ElementwiseOp : uint8_t {
  kAdd,          // bool: logical or.
  kSubtract,     // Not for bool (core refuses it, as NumPy).
  kMultiply,     // bool: logical and.
  kTrueDivide,   // Floats and complex only (core picks a float loop for integers).
  kFloorDivide,  // Python semantics: floor(a / b). Integer division by zero gives 0, as NumPy.
  kRemainder,    // Python semantics: sign of the divisor. Integer x % 0 gives 0, as NumPy.
  kPower,        // Integers: a negative exponent gives the truncated result (0 unless |a| = 1);
                 // NumPy raises instead, which would need the data on the host.
  kNegative,     // Integers wrap (-INT_MIN == INT_MIN).
  kAbsolute,     // Complex -> real magnitude (result dtype is the component type).
  kSign,         // -1, 0, 1 (NaN for NaN); complex: z / |z|, 0 for 0 (NumPy 2).
  kExp,
  kExpm1,
  kLog,
  kLog1p,
  kLog2,
  kLog10,
  kSqrt,
  kSquare,
  kSin,
  kCos,
  kTan,
  kArcsin,
  kArccos,
  kArctan,
  kArctan2,
  kSinh,
  kCosh,
  kTanh,
  kFloor,  // Integers: identity (NumPy >= 2.1 keeps the integer dtype).
  kCeil,
  kRint,     // Round half to even.
  kMinimum,  // NaN-propagating; complex compares lexicographically.
  kMaximum,
  kClip,  // clip(a, lo, hi) = minimum(maximum(a, lo), hi), NaN-propagating.
  kHypot,
  kEqual,  // Comparisons give bool; complex order is lexicographic (NumPy 2).
  kNotEqual,
  kLess,
  kLessEqual,
  kGreater,
  kGreaterEqual,
  kLogicalAnd,  // Nonzero is true; result bool.
  kLogicalOr,
  kLogicalXor,
  kLogicalNot,
  kBitwiseAnd,  // bool and integers.
  kBitwiseOr,
  kBitwiseXor,
  kInvert,      // bitwise_not; bool: logical not.
  kLeftShift,   // Integers; a shift >= the bit width (or negative) gives 0.
  kRightShift,  // Arithmetic for signed; a shift >= the bit width gives 0 (-1 for negative a).
  kIsnan,       // Result bool; integers and bool: false (isfinite: true).
  kIsinf,
  kIsfinite,
  kWhere,  // where(cond, a, b): cond read as bool (nonzero), a and b of type T.
  kCopy,   // Identity: with output.dtype != T, a cast (astype, out= conversion).
};

enum class ReduceOp : uint8_t {
  kSum,
  kProd,
  kMin,  // NaN-propagating.
  kMax,
  kMean,
  kVar,     // mean(|x - mean(x)|^2) * n / (n - ddof); complex input gives a real result.
  kStd,     // sqrt(var).
  kArgmin,  // Index (int64) of the first minimum over the reduced elements in C order; the
  kArgmax,  // first NaN if any.
  kAny,
  kAll,
};

// NumPy's name ("add", "true_divide", "bitwise_not" is "invert", ...).
std::string_view OpName(ElementwiseOp op);
std::string_view OpName(ReduceOp op);
// Accepts NumPy's names and aliases (divide, abs, absolute, bitwise_not, invert, amin, amax).
std::optional<ElementwiseOp> ElementwiseOpFromName(std::string_view name);
std::optional<ReduceOp> ReduceOpFromName(std::string_view name);
// Number of array/scalar operands the op takes.
int Arity(ElementwiseOp op);

}  // namespace arrayhub
