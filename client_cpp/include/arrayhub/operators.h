// Python's operators on arrays, as NumPy defines them: a + b, a * 2.0, 2.0 * a, -a, a == b,
// a & b, ... Each is the ufunc of ufuncs.h (add, multiply, equal, ...), so it is pipelined:
// (a + b) * c queues two ops and returns at once, the temporary a + b freed with the next
// batch. A scalar is weak, as in NumPy 2: an int32 array + 1 stays int32, + 1.5 is float64,
// a float32 array * 2.0 stays float32. Comparisons give bool arrays; since an Array converts
// to bool only as "not empty", `if (a == b)` does not compare values: use all(a == b).
//
// The compound assignments write into the left array (the ufunc with out=, no new memory) and
// cast with NumPy's same_kind rule: an int64 array += 1.5 throws kInvalidArgument, as NumPy's
// UFuncTypeError. NumPy has no operator for the logical ufuncs (logical_and, ...): `!a` stays
// Array's emptiness test.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "arrayhub/client.h"
#include "arrayhub/ufuncs.h"

namespace arrayhub::client {
namespace detail {
// Client::UfuncOut(out, name, operands) on out's client (src/functions.cc).
void CallUfuncOut(Array& out, std::string_view name, const std::vector<Operand>& operands);
}  // namespace detail

// A binary operator and its compound assignment, for an array on the left (the right an array
// or a scalar) and for a scalar on the left.
#define ARRAYHUB_BINARY_OPERATOR(op, ufunc)                                          \
  inline Array operator op(const Array& a, const Operand& b) { return ufunc(a, b); } \
  inline Array operator op(const Scalar& a, const Array& b) { return ufunc(a, b); }  \
  inline Array& operator op##=(Array& a, const Operand& b) {                         \
    detail::CallUfuncOut(a, #ufunc, {a, b});                                         \
    return a;                                                                        \
  }
ARRAYHUB_BINARY_OPERATOR(+, add)
ARRAYHUB_BINARY_OPERATOR(-, subtract)
ARRAYHUB_BINARY_OPERATOR(*, multiply)
ARRAYHUB_BINARY_OPERATOR(/, divide)
ARRAYHUB_BINARY_OPERATOR(%, remainder)
ARRAYHUB_BINARY_OPERATOR(&, bitwise_and)
ARRAYHUB_BINARY_OPERATOR(|, bitwise_or)
ARRAYHUB_BINARY_OPERATOR(^, bitwise_xor)
ARRAYHUB_BINARY_OPERATOR(<<, left_shift)
ARRAYHUB_BINARY_OPERATOR(>>, right_shift)
#undef ARRAYHUB_BINARY_OPERATOR

// Comparisons, elementwise (bool arrays). Two arrays have an overload of their own: with only
// (Array, Operand), C++20's reversed candidate of a == b would match as well as a == b itself
// (each converts one argument), which ISO C++ calls ambiguous.
#define ARRAYHUB_COMPARISON(op, ufunc)                                               \
  inline Array operator op(const Array& a, const Array& b) { return ufunc(a, b); }   \
  inline Array operator op(const Array& a, const Operand& b) { return ufunc(a, b); } \
  inline Array operator op(const Scalar& a, const Array& b) { return ufunc(a, b); }
ARRAYHUB_COMPARISON(==, equal)
ARRAYHUB_COMPARISON(!=, not_equal)
ARRAYHUB_COMPARISON(<, less)
ARRAYHUB_COMPARISON(<=, less_equal)
ARRAYHUB_COMPARISON(>, greater)
ARRAYHUB_COMPARISON(>=, greater_equal)
#undef ARRAYHUB_COMPARISON

inline Array operator-(const Array& a) { return negative(a); }
inline Array operator~(const Array& a) { return invert(a); }

}  // namespace arrayhub::client
