// NumPy 2's rules for reductions: which axes a call reduces, the dtypes it accumulates in and
// returns, and the shapes of its result.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "server/common/dtype.h"
#include "server/common/ops.h"
#include "server/common/shape.h"

namespace arrayhub {

struct ReduceResolution {
  // Normalized, sorted, distinct. EMPTY means no axis is reduced (axis=(), or a 0-d input):
  // the caller then computes each result element from its one input element instead of
  // reducing: the value cast to result_dtype (sum, prod, min, max, mean), nonzero (any, all),
  // 0 (argmin, argmax), and for var/std 0 / max(1 - ddof, 0): 0, or NaN for ddof >= 1.
  std::vector<int64_t> axes;
  DType accumulate_dtype;
  DType result_dtype;
  Shape result_shape;    // The input shape minus the reduced axes.
  Shape keepdims_shape;  // With the reduced axes kept as 1.
};

// Resolves numpy.<op>(x, axis=axes, dtype=dtype, ddof=ddof) for x of dtype `input` and `shape`.
//  - axes: nullopt is axis=None (all axes; argmin/argmax flatten). A list of one axis acts like
//    NumPy's integer axis (on a 0-d input 0 and -1 are accepted and reduce nothing), a longer
//    list like a tuple. argmin/argmax take one axis at most. Errors in NumPy's words: "axis 2
//    is out of bounds for array of dimension 2", "duplicate value in 'axis'".
//  - Result dtypes as NumPy: sum/prod of bool and signed integers below 64 bits give int64, of
//    unsigned ones uint64; mean/var/std of bool and integers float64, var/std of complex the
//    component type; min/max the input dtype; argmin/argmax int64; any/all bool.
//  - dtype= sets the result dtype of sum, prod, mean, var and std; the others take none.
//    Refused although NumPy accepts them: bool or integer dtype= for mean/var/std (NumPy's
//    truncating integer arithmetic), and a real dtype= for var/std of complex input (NumPy
//    drops the mean's imaginary part).
//  - Accumulation: int64/uint64 for integers and bool (the same results after the final cast,
//    also where NumPy would wrap in a narrower type), float32 for float16 (as NumPy's pairwise
//    sums), and float64 for the float32 sums of sum/mean/var/std: more accurate than NumPy's
//    float32 pairwise summation, with the result still float32. Others accumulate in the
//    result's (for var/std of complex input: the complex) dtype.
//  - min/max/argmin/argmax over an axis of extent 0 are INVALID_ARGUMENT: "zero-size array to
//    reduction operation minimum which has no identity", "attempt to get argmin of an empty
//    sequence".
//  - ddof is for var/std (any real, NaN and inf too, as NumPy: n - ddof <= 0 divides by 0,
//    giving inf or NaN, which NumPy's client warns about); the others take 0 (NaN is refused).
absl::StatusOr<ReduceResolution> ResolveReduce(ReduceOp op, DType input, const Shape& shape,
                                               const std::optional<std::vector<int64_t>>& axes,
                                               std::optional<DType> dtype, double ddof);

}  // namespace arrayhub
