// The operations core validates and backends compute: elementwise ufuncs and reductions, with
// the NumPy semantics every backend must reproduce.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string_view>

#include "absl/status/status.h"
#include "server/common/dtype.h"

namespace arrayhub {

// The elementwise ops, one enumerator per row of ufuncs.def, which also states each op's
// semantics.
enum class ElementwiseOp : uint8_t {
#define AH_UFUNC(enumerator, ...) k##enumerator,
#include "server/common/ufuncs.def"
#undef AH_UFUNC
};

inline constexpr ElementwiseOp kAllElementwiseOps[] = {
#define AH_UFUNC(enumerator, ...) ElementwiseOp::k##enumerator,
#include "server/common/ufuncs.def"
#undef AH_UFUNC
};
inline constexpr size_t kElementwiseOpCount = std::size(kAllElementwiseOps);

// How core resolves a reduction's arguments, axes and dtypes (reductions.def says each).
enum class ReduceFamily : uint8_t { kSumOrProd, kExtremum, kStatistic, kArgument, kLogical };

// The reductions, one enumerator per row of reductions.def.
enum class ReduceOp : uint8_t {
#define AH_REDUCTION(enumerator, ...) k##enumerator,
#include "server/common/reductions.def"
#undef AH_REDUCTION
};

// NumPy's name ("add", "true_divide", "bitwise_not" is "invert", ...).
std::string_view OpName(ElementwiseOp op);
std::string_view OpName(ReduceOp op);
// Accepts NumPy's names and aliases (divide, abs, absolute, bitwise_not, invert, amin, amax).
std::optional<ElementwiseOp> ElementwiseOpFromName(std::string_view name);
std::optional<ReduceOp> ReduceOpFromName(std::string_view name);
ReduceFamily FamilyOf(ReduceOp op);
// Number of array/scalar operands the op takes.
int Arity(ElementwiseOp op);
// Whether the backends implement a loop of `compute` dtype for the op (ufuncs.def's kinds).
bool HasLoop(ElementwiseOp op, DType compute);
// HasLoop as the backends answer it: UNIMPLEMENTED, with one message for every backend, when
// there is no such loop. Core resolves every loop from ufunc_loops.inc, whose loops
// scripts/gen_ufuncs.py checks against the kinds, so no request through the Engine meets the
// refusal; the backends still check because their interface takes any op and dtype (tests,
// fused chains, a future caller), and a missing loop must be refused, not run on wrong types.
absl::Status CheckLoopExists(ElementwiseOp op, DType compute);
// The NumPy ufunc the op follows, without ufuncs.def's output index ("divmod" for
// _divmod_quotient), or "" for none.
std::string_view NumPyUfunc(ElementwiseOp op);
// The dtype operand k is read as in a loop of `compute`: where's condition as bool, ldexp's
// exponent as int64, every other operand as `compute`. (The host functors' Input<T, K> and the
// device functions' parameters say the same.)
DType OperandDType(ElementwiseOp op, size_t k, DType compute);

}  // namespace arrayhub
