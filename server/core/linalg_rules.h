// NumPy's rules for matrix products and numpy.linalg: operand checks with NumPy's messages,
// result dtypes and shapes, and how every product becomes one batched MatmulCall over views of
// its operands.
#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/common/dtype.h"
#include "server/common/shape.h"
#include "server/core/linalg_specs.h"
#include "server/core/view_rules.h"

namespace arrayhub {

std::optional<TensorProductOp> TensorProductOpFromName(std::string_view name);
std::string_view OpName(TensorProductOp op);
std::optional<LinalgOp> LinalgOpFromName(std::string_view name);
std::string_view OpName(LinalgOp op);
// The routine takes `count` operands (linalg_ops.def); INVALID_ARGUMENT "solve takes 2
// operands, got 1" otherwise.
absl::Status CheckLinalgOperands(LinalgOp op, size_t count);
// Whether the routine answers several arrays, NumPy's tuples (linalg_ops.def): svd with
// compute_uv, qr but in mode "r", eigh, eig, slogdet and lstsq. A Batch can neither read nor
// keep such an op's result, and frees all of them (batch_plan.h).
bool LinalgGivesSeveral(LinalgOp op, bool compute_uv, std::string_view qr_mode);

// --- numpy.matmul --------------------------------------------------------------------------

struct MatmulOperand {
  DType dtype = DType::kFloat64;
  Shape shape;
  bool transpose = false;  // The last two axes swapped (refused for fewer than two).
};

struct MatmulShapes {
  // numpy.promote_types of the operands: the dtype the product is computed in and answered
  // in (bool and integer products stay bool and integer, as NumPy's matmul loops).
  DType dtype = DType::kFloat64;
  Shape result_shape;  // NumPy's result: (batch..., m, n) less the axes of 1-D operands.
  Shape call_shape;    // (batch..., m, n): MatmulCall::out, the result with those axes kept.
  int64_t k = 0;       // The contracted extent.
};

// Validates numpy.matmul(a, b[, out=]) with NumPy's messages:
//   "matmul: Input operand 0 does not have enough dimensions (has 0, gufunc core with
//   signature (n?,k),(k,m?)->(n?,m?) requires 1)",
//   "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature
//   (n?,k),(k,m?)->(n?,m?) (size 4 is different from 3)" followed by "; shapes (2,3) and
//   (4,5)" (NumPy names no shapes), the "remapped shapes" message for batch axes that do not
//   broadcast, and the Output operand messages for an `out` of the wrong shape (whose batch
//   axes, as for ufuncs, the operands broadcast to).
absl::StatusOr<MatmulShapes> ResolveMatmul(const MatmulOperand& a, const MatmulOperand& b,
                                           const std::optional<Shape>& out_shape = std::nullopt);

// Operand `index` (0: a, 1: b) with `layout` as MatmulCall reads it: (batch..., m, k) or
// (batch..., k, n), a 1-D operand given its added axis, a transpose swapping the last two
// axes, batch axes broadcast with stride 0. Always a view.
Layout MatmulOperandLayout(const MatmulShapes& shapes, int index, const Layout& layout,
                           bool transpose);

// The out= rule of the products (a ufunc's): the result dtype must cast to out's with casting
// "same_kind", else "Cannot cast ufunc 'matmul' output from dtype('float64') to
// dtype('int64') with casting rule 'same_kind'".
absl::Status CheckProductOutputCast(std::string_view name, DType result, DType out);

// --- numpy.dot, vdot, inner, outer, tensordot ------------------------------------------------

// How a tensor-product operand becomes a stack of matrices: its axes permuted by `perm`, then
// reshaped to the rank-3 `shape` (batch, rows, cols): a view when ReshapeStrides finds one, a
// contiguous copy otherwise. A batch extent of 1 broadcasts to the call's.
struct ProductOperandForm {
  std::vector<int64_t> perm;  // A permutation of the operand's axes.
  Shape shape;
};

struct TensorProductPlan {
  DType dtype = DType::kFloat64;  // numpy.promote_types of the operands.
  Shape result_shape;
  ProductOperandForm a;
  ProductOperandForm b;
  bool conjugate_a = false;  // vdot
  // MatmulCall::out (batch, m, n) as strides into a C-contiguous array of result_shape.
  Layout out;
};

// One batched product computes each of them:
//   tensordot(a, b, n): (1, prod(a.shape[:-n]), K) @ (1, K, prod(b.shape[n:])); outer is
//     tensordot(ravel(a), ravel(b), 0), and dot or inner with a 0-d operand is tensordot(a,
//     b, 0) (NumPy multiplies; a product with k = 1 is the same, bool included).
//   dot(a, b): a as (1, A, k) broadcast over b's stacks (B, k, N); the result (A..., B..., N...)
//     is written through the strides of its (B, A, N) view.
//   inner(a, b): (1, A, k) @ b with its last axis moved first, (1, k, B).
//   vdot(a, b): (1, 1, K) @ (1, K, 1), a conjugated.
// Errors use NumPy's messages ("shapes (2,3) and (4,5) not aligned: 3 (dim 1) != 4 (dim 0)",
// "shape-mismatch for sum", "cannot reshape array of size 4 into shape (6,)"); tensordot
// refuses negative axes and more axes than an operand has (NumPy misbehaves or raises an
// IndexError).
absl::StatusOr<TensorProductPlan> PlanTensorProduct(TensorProductOp op, DType a_dtype,
                                                    const Shape& a_shape, DType b_dtype,
                                                    const Shape& b_shape, int64_t axes);

// --- numpy.linalg ---------------------------------------------------------------------------

// The dtype numpy.linalg computes and answers in (its _commonType): float64 for bool and
// integers, float32, float64, complex64, complex128 as they are, the complex of the widest
// precision when complex and real inputs meet. float16 is INVALID_ARGUMENT "array type float16
// is unsupported in linalg", as in NumPy.
absl::StatusOr<DType> LinalgDType(std::span<const DType> dtypes);

struct LinalgOutput {
  DType dtype = DType::kFloat64;
  Shape shape;
};

// A factorization, solve, inverse or determinant: the checked operands and the outputs.
struct LinalgPlan {
  DType dtype = DType::kFloat64;      // The operands are converted to this dtype first.
  std::vector<LinalgOutput> outputs;  // In NumPy's order (svd: U, S, Vh or S; ...).
  bool upper = false;                 // cholesky, eigh: from uplo.
  bool complete = false;              // qr: mode "complete".
  bool compute_q = true;              // qr: not mode "r".
  // The stacks' batch axes (solve: those of a and b broadcast together). For solve, b_vector
  // when b is 1-D (NumPy 2: only then is b a single column, (m,) rather than (..., m, k)).
  Shape batch_shape;
  bool b_vector = false;
};

// svd, qr, cholesky, eigh, eigvalsh, solve, inv, det, slogdet (norm and lstsq have plans of
// their own): one dtype and shape per
// operand. INVALID_ARGUMENT with NumPy's words: "1-dimensional array given. Array must be at
// least two-dimensional", "Last 2 dimensions of the array must be square", "Unrecognized mode
// 'x'", "UPLO argument must be 'L' or 'U'", and solve's gufunc messages ("solve1: Input
// operand 1 has a mismatch in its core dimension 0, with gufunc signature (m,m),(m)->(m)
// (size 3 is different from 2)").
absl::StatusOr<LinalgPlan> PlanLinalg(const LinalgSpec& spec, std::span<const DType> dtypes,
                                      std::span<const Shape> shapes);

// numpy.linalg.lstsq(a, b, rcond), composed from an svd: x = V diag(1/s) U^H b over the
// singular values above rcond * max(s).
struct LstsqPlan {
  // NumPy computes lstsq in double precision whatever the input (its _commonType), and so
  // rounds small singular values of float32 data the same way: float64 or complex128.
  DType compute_dtype = DType::kFloat64;
  DType dtype = DType::kFloat64;  // x's dtype; residuals and s have its real dtype.
  int64_t m = 0;                  // a is (m, n), b (m, k).
  int64_t n = 0;
  int64_t k = 0;
  bool b_vector = false;  // b (m,): x is (n,), and residuals (1,) as NumPy gives them.
  double rcond = 0;       // A negative request takes NumPy's eps(float64) * max(m, n).
  Shape x_shape;
};

// Messages as NumPy's: "3-dimensional array given. Array must be two-dimensional" (for a or
// b), "Incompatible dimensions".
absl::StatusOr<LstsqPlan> PlanLstsq(DType a_dtype, const Shape& a, DType b_dtype, const Shape& b,
                                    double rcond);

// numpy.linalg.norm, as a composition of elementwise ops, reductions and svd.
enum class NormKind : uint8_t {
  kEuclidean,    // sqrt(sum(|x|^2)) over `axes`: the default, 2 for vectors, Frobenius.
  kMaxAbs,       // max(|x|) over axes[0] (inf; 0 over no elements, as NumPy's initial=0).
  kMinAbs,       // min(|x|) over axes[0] (-inf).
  kCount,        // Number of nonzero elements over axes[0] (ord 0).
  kSumAbs,       // sum(|x|) over axes[0] (ord 1).
  kPower,        // sum(|x|^p)^(1/p) over axes[0] (any other number).
  kMaxSum,       // Matrix 1 / inf: sum(|x|) over axes[0], then the max over axes[1] of that sum
  kMinSum,       //   (an axis of the summed array); -1 / -inf take the min.
  kMaxSingular,  // Matrix 2, -2, nuc: the singular values of x with axes[0], axes[1] moved
  kMinSingular,  //   last, then their max, min or sum.
  kNuclear,
};

struct NormPlan {
  NormKind kind = NormKind::kEuclidean;
  double p = 2;  // kPower
  std::vector<int64_t> axes;
  DType dtype = DType::kFloat64;         // x's dtype after NumPy's x.astype(float) for
                                         // non-inexact x; the elementwise compute dtype.
  DType result_dtype = DType::kFloat64;  // RealDType(dtype).
  Shape result_shape;
  Shape keepdims_shape;  // The result with the normed axes kept as 1.
};

// numpy.linalg.norm(x, ord, axis) (keepdims picks a shape of the plan). ord is NumPy's spelled as
// text: "" (None), "fro", "f", "nuc", "inf", "-inf" or a number. Messages are NumPy's ("Invalid
// norm order 'fro' for vectors", "Invalid norm order for matrices.", "Improper number of dimensions
// to norm.", "Duplicate axes given.", "axis 5 is out of bounds for array of dimension 3"); the
// singular value norms of float16 refuse it as NumPy's svd does, and min(|x|) over no elements is
// "zero-size array to reduction operation minimum which has no identity".
absl::StatusOr<NormPlan> PlanNorm(DType dtype, const Shape& shape, std::string_view ord,
                                  const std::optional<std::vector<int64_t>>& axes);

}  // namespace arrayhub
