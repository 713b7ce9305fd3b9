// NumPy 2's typing rules for elementwise operations: which loop (compute dtype) and result dtype
// a ufunc call gets from its operands' dtypes and weak Python scalars (NEP 50), and the out=
// casting rule.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/common/dtype.h"
#include "server/common/ops.h"
#include "server/common/scalar.h"
#include "server/core/promotion.h"  // The casting rules these build on.

namespace arrayhub {

struct UfuncOperand {  // Exactly one of the two is set.
  std::optional<DType> array_dtype;
  std::optional<Scalar> scalar;  // A weak Python scalar (NEP 50).
};

struct UfuncResolution {
  DType compute_dtype;  // NumPy's loop input type T (for where: the type of a and b).
  DType result_dtype;   // The loop's output type.
  // Per operand. For a scalar, its value encoded in the dtype the backend reads it as, which
  // scalar_dtypes names: OperandDType (compute_dtype, bool for where's condition, int64 for
  // ldexp's exponent), or bool for the operands of logical_and/or/xor/not (which read every operand
  // as bool, as NumPy's logical promoter does). For an array, zero bytes and the array's own dtype.
  std::vector<ElementBytes> scalar_bytes;
  std::vector<DType> scalar_dtypes;
};

// Resolves `op` over `operands` (Arity(op) of them, at least one an array) as NumPy 2 does:
//  - Weak scalars take a dtype from the arrays' promoted dtype P: a Python bool takes P; an int
//    takes P unless P is bool (then int64); a float takes P if inexact, else float64; a complex
//    takes P if complex, the complex of P's precision if P is a float, else complex128. The
//    value is then encoded in the loop's type; an integer that does not fit is
//    INVALID_ARGUMENT "Python integer 300 out of bounds for uint8".
//  - The loop is the first of NumPy's loops for the ufunc (ufunc_loops.inc) that every operand
//    dtype casts to safely, except where NumPy 2 resolves otherwise: true_divide of integers
//    and bools uses float64; bool subtract, negative and sign are refused; the logical ufuncs
//    read bool; a comparison of an integer array with an out-of-range Python int (which NumPy
//    answers without converting the int) computes in a dtype that holds both.
//  - requested_dtype (NumPy's dtype=) picks the first loop with that output type whose inputs
//    the operands cast to safely. NumPy would also take a loop reached by same_kind input
//    casts (add(float64, float64, dtype=float32)); here that is INVALID_ARGUMENT, since a
//    backend converts operands to the compute dtype only by safe casts.
//  - clip follows numpy.clip: its `a` given as a scalar is an array of DefaultDType (not weak),
//    and a Python int bound beyond an integer `a`'s range is dropped (clamped to the range).
//  - where(cond, a, b): compute and result dtypes are the NEP 50 promotion of a and b; cond
//    may have any dtype. NumPy casts an out-of-range Python int there unsafely (where(c, uint8
//    array, -1) gives 255); here it is INVALID_ARGUMENT like in every ufunc.
//  - copy (astype, out= conversion; not a NumPy ufunc) computes and results in its operand's
//    dtype; the cast to the output's dtype is the backend's last step.
//  - real and imag (np.real, np.imag; no ufuncs) take a complex array and result in its
//    component type; _complex(re, im) takes parts that promote to a float type and results in
//    its complex type (complex64 for float16).
//  - ldexp computes in its loop's float type and reads the exponent as int64; a weak scalar
//    there takes its kind's default dtype (int64 for an int), not the float's.
// The differences from NumPy that the backend contract forces: int64 vs uint64 comparisons
// (NumPy's mixed qQ/Qq loops) compute in float64, which rounds above 2**53, and the logical
// ufuncs compute in bool (same values as NumPy's typed loops).
absl::StatusOr<UfuncResolution> ResolveUfunc(ElementwiseOp op,
                                             std::span<const UfuncOperand> operands,
                                             std::optional<DType> requested_dtype);

// NumPy's out= rule: the result dtype must cast to the output's with casting "same_kind", else
// INVALID_ARGUMENT "Cannot cast ufunc 'add' output from dtype('float64') to dtype('int64') with
// casting rule 'same_kind'". (astype casts unsafely and does not ask.)
absl::Status CheckOutputCast(ElementwiseOp op, DType result, DType out);

}  // namespace arrayhub
