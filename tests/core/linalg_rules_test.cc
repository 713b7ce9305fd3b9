// The typing and shape rules of matmul, the tensor products and numpy.linalg, with NumPy 2.4's
// results and messages (each case names the NumPy expression it was taken from).

#include "server/core/linalg_rules.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace arrayhub {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr DType kF16 = DType::kFloat16;
constexpr DType kF32 = DType::kFloat32;
constexpr DType kF64 = DType::kFloat64;
constexpr DType kC64 = DType::kComplex64;
constexpr DType kC128 = DType::kComplex128;

template <typename T>
void ExpectError(const absl::StatusOr<T>& result, std::string_view message) {
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(result.status().message()), message);
}

TEST(LinalgNamesTest, RoundTrip) {
  for (std::string_view name : {"dot", "vdot", "inner", "outer", "tensordot"}) {
    ASSERT_TRUE(TensorProductOpFromName(name).has_value()) << name;
    EXPECT_EQ(OpName(*TensorProductOpFromName(name)), name);
  }
  for (std::string_view name : {"svd", "qr", "cholesky", "eigh", "eigvalsh", "eig", "eigvals",
                                "solve", "inv", "det", "slogdet", "norm", "lstsq"}) {
    ASSERT_TRUE(LinalgOpFromName(name).has_value()) << name;
    EXPECT_EQ(OpName(*LinalgOpFromName(name)), name);
  }
  EXPECT_FALSE(TensorProductOpFromName("kron").has_value());
  EXPECT_FALSE(LinalgOpFromName("eigvalsx").has_value());
}

// np.zeros(...)[view].view(); v.shape = shape; v.strides // itemsize
TEST(ReshapeStridesTest, FindsNumPysViews) {
  // np.zeros((4, 6))[:, ::2]: its rows are evenly spaced, so it flattens to a view.
  const Layout every_other{{4, 3}, {6, 2}};
  EXPECT_EQ(ReshapeStrides(every_other, {12}), Strides({2}));
  EXPECT_EQ(ReshapeStrides(every_other, {2, 2, 3}), Strides({12, 6, 2}));
  EXPECT_EQ(ReshapeStrides(every_other, {4, 3, 1}), Strides({6, 2, 2}));
  // np.zeros((4, 6)).T
  const Layout transposed{{6, 4}, {1, 6}};
  EXPECT_EQ(ReshapeStrides(transposed, {24}), std::nullopt);
  EXPECT_EQ(ReshapeStrides(transposed, {3, 2, 4}), Strides({2, 1, 6}));
  EXPECT_EQ(ReshapeStrides(transposed, {6, 2, 2}), Strides({1, 12, 6}));
  // np.broadcast_to(np.zeros(4), (3, 4))
  const Layout broadcast{{3, 4}, {0, 1}};
  EXPECT_EQ(ReshapeStrides(broadcast, {12}), std::nullopt);
  EXPECT_EQ(ReshapeStrides(broadcast, {3, 2, 2}), Strides({0, 2, 1}));
  EXPECT_EQ(ReshapeStrides({{2, 3, 4}, {12, 4, 1}}, {1, 6, 1, 4}), Strides({24, 4, 4, 1}));
  EXPECT_EQ(ReshapeStrides({{1, 5}, {5, -1}}, {5}), Strides({-1}));  // [:, ::-1]
  // An empty array: any strides do; the C-contiguous ones.
  EXPECT_EQ(ReshapeStrides({{0, 3}, {1, 7}}, {3, 0}), ContiguousStrides(Shape{3, 0}));
}

// --- matmul --------------------------------------------------------------------------------

MatmulOperand M(DType dtype, Shape shape, bool transpose = false) {
  return {.dtype = dtype, .shape = std::move(shape), .transpose = transpose};
}

void ExpectMatmul(const MatmulOperand& a, const MatmulOperand& b, DType dtype, const Shape& result,
                  const Shape& call) {
  absl::StatusOr<MatmulShapes> shapes = ResolveMatmul(a, b);
  ASSERT_TRUE(shapes.ok()) << shapes.status();
  EXPECT_EQ(shapes->dtype, dtype);
  EXPECT_EQ(shapes->result_shape, result);
  EXPECT_EQ(shapes->call_shape, call);
}

TEST(ResolveMatmulTest, ShapesFollowNumPy) {
  ExpectMatmul(M(kF64, {2, 3}), M(kF64, {3, 4}), kF64, {2, 4}, {2, 4});
  ExpectMatmul(M(kF64, {3}), M(kF64, {3, 4}), kF64, {4}, {1, 4});
  ExpectMatmul(M(kF64, {2, 3}), M(kF64, {3}), kF64, {2}, {2, 1});
  ExpectMatmul(M(kF64, {3}), M(kF64, {3}), kF64, {}, {1, 1});
  ExpectMatmul(M(kF64, {2, 1, 4, 3}), M(kF64, {5, 3, 2}), kF64, {2, 5, 4, 2}, {2, 5, 4, 2});
  ExpectMatmul(M(kF64, {3}), M(kF64, {4, 1, 3, 4}), kF64, {4, 1, 4}, {4, 1, 1, 4});
  ExpectMatmul(M(kF64, {0, 3}), M(kF64, {3, 4}), kF64, {0, 4}, {0, 4});
  ExpectMatmul(M(kF64, {2, 0}), M(kF64, {0, 4}), kF64, {2, 4}, {2, 4});
  // Transposes swap the last two axes before anything else.
  ExpectMatmul(M(kF64, {3, 2}, true), M(kF64, {4, 3}, true), kF64, {2, 4}, {2, 4});
}

TEST(ResolveMatmulTest, DTypesPromoteAndIntegersStayIntegers) {
  ExpectMatmul(M(DType::kBool, {2, 3}), M(DType::kBool, {3, 4}), DType::kBool, {2, 4}, {2, 4});
  ExpectMatmul(M(DType::kInt8, {2, 3}), M(DType::kUInt8, {3, 2}), DType::kInt16, {2, 2}, {2, 2});
  ExpectMatmul(M(DType::kUInt8, {2, 3}), M(DType::kBool, {3, 2}), DType::kUInt8, {2, 2}, {2, 2});
  ExpectMatmul(M(kF16, {2, 3}), M(DType::kInt8, {3, 4}), kF16, {2, 4}, {2, 4});
  ExpectMatmul(M(DType::kInt64, {2, 3}), M(DType::kUInt64, {3, 4}), kF64, {2, 4}, {2, 4});
  ExpectMatmul(M(kF32, {2, 3}), M(kC64, {3, 4}), kC64, {2, 4}, {2, 4});
}

TEST(ResolveMatmulTest, ErrorsQuoteNumPy) {
  constexpr std::string_view kSignature = "(n?,k),(k,m?)->(n?,m?)";
  // np.matmul(np.ones((2, 3)), np.ones((4, 5)))
  ExpectError(ResolveMatmul(M(kF64, {2, 3}), M(kF64, {4, 5})),
              fmt::format("matmul: Input operand 1 has a mismatch in its core dimension 0, with "
                          "gufunc signature {} (size 4 is different from 3); shapes (2,3) and "
                          "(4,5)",
                          kSignature));
  ExpectError(ResolveMatmul(M(kF64, {3}), M(kF64, {4, 3})),
              fmt::format("matmul: Input operand 1 has a mismatch in its core dimension 0, with "
                          "gufunc signature {} (size 4 is different from 3); shapes (3,) and "
                          "(4,3)",
                          kSignature));
  // np.matmul(np.ones(()), np.ones(4)); np.matmul(np.ones(4), 2.0)
  ExpectError(ResolveMatmul(M(kF64, {}), M(kF64, {4})),
              fmt::format("matmul: Input operand 0 does not have enough dimensions (has 0, "
                          "gufunc core with signature {} requires 1)",
                          kSignature));
  ExpectError(ResolveMatmul(M(kF64, {4}), M(kF64, {})),
              fmt::format("matmul: Input operand 1 does not have enough dimensions (has 0, "
                          "gufunc core with signature {} requires 1)",
                          kSignature));
  // np.matmul(np.ones((2, 7, 3)), np.ones((4, 3, 3, 4)))
  ExpectError(ResolveMatmul(M(kF64, {2, 7, 3}), M(kF64, {4, 3, 3, 4})),
              "operands could not be broadcast together with remapped shapes "
              "[original->remapped]: (2,7,3)->(2,newaxis,newaxis) "
              "(4,3,3,4)->(4,3,newaxis,newaxis)  and requested shape (7,4)");
  // np.ones(3).mT
  ExpectError(ResolveMatmul(M(kF64, {3}, true), M(kF64, {3})),
              "matrix transpose with ndim < 2 is undefined");
}

TEST(ResolveMatmulTest, OutShapesAsNumPyChecksThem) {
  constexpr std::string_view kSignature = "(n?,k),(k,m?)->(n?,m?)";
  const MatmulOperand a = M(kF64, {2, 2, 3});
  const MatmulOperand b = M(kF64, {3, 4});
  // out=np.ones((2, 3, 4)) and np.ones((2, 2, 5))
  ExpectError(ResolveMatmul(a, b, Shape{2, 3, 4}),
              fmt::format("matmul: Output operand 0 has a mismatch in its core dimension 0, with "
                          "gufunc signature {} (size 3 is different from 2)",
                          kSignature));
  ExpectError(ResolveMatmul(a, b, Shape{2, 2, 5}),
              fmt::format("matmul: Output operand 0 has a mismatch in its core dimension 1, with "
                          "gufunc signature {} (size 5 is different from 4)",
                          kSignature));
  // out=np.ones((3, 2, 4))
  ExpectError(ResolveMatmul(a, b, Shape{3, 2, 4}),
              "operands could not be broadcast together with remapped shapes "
              "[original->remapped]: (2,2,3)->(2,newaxis,newaxis) (3,4)->() (3,2,4)->(3,2,4)  "
              "and requested shape (2,4)");
  // np.matmul(np.ones(3), np.ones((3, 4)), out=np.ones(()))
  ExpectError(ResolveMatmul(M(kF64, {3}), b, Shape{}),
              fmt::format("matmul: Output operand 0 does not have enough dimensions (has 0, "
                          "gufunc core with signature {} requires 1)",
                          kSignature));
  // A smaller out is refused (NumPy: "output operand requires a reduction ...").
  absl::StatusOr<MatmulShapes> smaller = ResolveMatmul(a, b, Shape{2, 4});
  EXPECT_EQ(smaller.status().code(), absl::StatusCode::kInvalidArgument);
  // The operands broadcast to out's extra batch axes, as for ufuncs: out=np.ones((1, 2, 2, 4))
  absl::StatusOr<MatmulShapes> larger = ResolveMatmul(a, b, Shape{1, 2, 2, 4});
  ASSERT_TRUE(larger.ok()) << larger.status();
  EXPECT_EQ(larger->result_shape, Shape({1, 2, 2, 4}));
}

TEST(MatmulOperandLayoutTest, ViewsWithoutCopies) {
  absl::StatusOr<MatmulShapes> shapes = ResolveMatmul(M(kF64, {3, 4}, true), M(kF64, {5, 3, 6}));
  ASSERT_TRUE(shapes.ok());
  EXPECT_EQ(shapes->call_shape, Shape({5, 4, 6}));
  // a^T: strides swapped, broadcast over the batch with stride 0.
  const Layout a = MatmulOperandLayout(*shapes, 0, {{3, 4}, {4, 1}}, true);
  EXPECT_EQ(a.shape, Shape({5, 4, 3}));
  EXPECT_EQ(a.strides, Strides({0, 1, 4}));
  const Layout b = MatmulOperandLayout(*shapes, 1, {{5, 3, 6}, {18, 6, 1}}, false);
  EXPECT_EQ(b.strides, Strides({18, 6, 1}));
  // 1-D operands: a row and a column whose added axis never moves.
  absl::StatusOr<MatmulShapes> vectors = ResolveMatmul(M(kF64, {3}), M(kF64, {3}));
  ASSERT_TRUE(vectors.ok());
  const Layout row = MatmulOperandLayout(*vectors, 0, {{3}, {2}}, false);
  const Layout column = MatmulOperandLayout(*vectors, 1, {{3}, {-1}}, false);
  EXPECT_EQ(row.shape, Shape({1, 3}));
  EXPECT_EQ(row.strides, Strides({0, 2}));
  EXPECT_EQ(column.shape, Shape({3, 1}));
  EXPECT_EQ(column.strides, Strides({-1, 0}));
}

TEST(CheckProductOutputCastTest, SameKind) {
  EXPECT_TRUE(CheckProductOutputCast("matmul", DType::kInt64, kF32).ok());
  EXPECT_TRUE(CheckProductOutputCast("matmul", kF64, kF32).ok());
  // np.matmul(np.ones((2, 3)), np.ones((3, 4)), out=np.ones((2, 4), dtype=np.int64))
  const absl::Status status = CheckProductOutputCast("matmul", kF64, DType::kInt64);
  EXPECT_EQ(status.message(),
            "Cannot cast ufunc 'matmul' output from dtype('float64') to dtype('int64') with "
            "casting rule 'same_kind'");
}

// --- tensor products -----------------------------------------------------------------------

absl::StatusOr<TensorProductPlan> Plan(std::string_view op, const Shape& a, const Shape& b,
                                       int64_t axes = 2, DType a_dtype = kF64,
                                       DType b_dtype = kF64) {
  return PlanTensorProduct(*TensorProductOpFromName(op), a_dtype, a, b_dtype, b, axes);
}

TEST(PlanTensorProductTest, DotBroadcastsAOverBsStacks) {
  // np.dot(np.ones((2, 3, 4)), np.ones((5, 4, 6))).shape
  absl::StatusOr<TensorProductPlan> plan = Plan("dot", {2, 3, 4}, {5, 4, 6});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->result_shape, Shape({2, 3, 5, 6}));
  EXPECT_EQ(plan->a.shape, Shape({1, 6, 4}));
  EXPECT_EQ(plan->b.shape, Shape({5, 4, 6}));
  // The C-contiguous (6, 5, 6) result, written as (5, 6, 6).
  EXPECT_EQ(plan->out.shape, Shape({5, 6, 6}));
  EXPECT_EQ(plan->out.strides, Strides({6, 30, 1}));
  // np.dot(np.ones(3), np.ones((5, 3, 2))).shape, np.dot(np.ones((2, 3)), np.ones(3)).shape
  EXPECT_EQ(Plan("dot", {3}, {5, 3, 2})->result_shape, Shape({5, 2}));
  EXPECT_EQ(Plan("dot", {2, 3}, {3})->result_shape, Shape({2}));
  EXPECT_EQ(Plan("dot", {3}, {3})->result_shape, Shape({}));
  // A 0-d operand multiplies: np.dot(np.ones((2, 3)), 2.0).shape
  absl::StatusOr<TensorProductPlan> scaled = Plan("dot", {2, 3}, {});
  ASSERT_TRUE(scaled.ok());
  EXPECT_EQ(scaled->result_shape, Shape({2, 3}));
  EXPECT_EQ(scaled->a.shape, Shape({1, 6, 1}));
  EXPECT_EQ(scaled->b.shape, Shape({1, 1, 1}));
  // np.dot(np.ones((2, 3), bool), np.ones((3, 2), bool)).dtype
  EXPECT_EQ(Plan("dot", {2, 3}, {3, 2}, 0, DType::kBool, DType::kBool)->dtype, DType::kBool);
  EXPECT_EQ(Plan("dot", {3}, {3}, 0, DType::kInt8, kF32)->dtype, kF32);
}

TEST(PlanTensorProductTest, InnerOuterVdotTensordot) {
  // np.inner(np.ones((2, 3)), np.ones((4, 5, 3))).shape
  absl::StatusOr<TensorProductPlan> inner = Plan("inner", {2, 3}, {4, 5, 3});
  ASSERT_TRUE(inner.ok());
  EXPECT_EQ(inner->result_shape, Shape({2, 4, 5}));
  EXPECT_THAT(inner->b.perm, ElementsAre(2, 0, 1));
  EXPECT_EQ(inner->b.shape, Shape({1, 3, 20}));
  // np.outer(np.ones((2, 3)), np.ones(4)).shape
  absl::StatusOr<TensorProductPlan> outer = Plan("outer", {2, 3}, {4});
  ASSERT_TRUE(outer.ok());
  EXPECT_EQ(outer->result_shape, Shape({6, 4}));
  EXPECT_EQ(outer->a.shape, Shape({1, 6, 1}));
  // np.vdot(np.ones((2, 3)), np.ones((3, 2))): flattened, a conjugated.
  absl::StatusOr<TensorProductPlan> vdot = Plan("vdot", {2, 3}, {3, 2});
  ASSERT_TRUE(vdot.ok());
  EXPECT_EQ(vdot->result_shape, Shape({}));
  EXPECT_TRUE(vdot->conjugate_a);
  EXPECT_EQ(vdot->b.shape, Shape({1, 6, 1}));
  // np.tensordot(np.ones((2, 3, 4)), np.ones((3, 4, 5)), 2).shape, and axes 0.
  EXPECT_EQ(Plan("tensordot", {2, 3, 4}, {3, 4, 5}, 2)->result_shape, Shape({2, 5}));
  EXPECT_EQ(Plan("tensordot", {2, 3}, {3, 5}, 0)->result_shape, Shape({2, 3, 3, 5}));
  EXPECT_EQ(Plan("tensordot", {2, 3}, {2, 3}, 2)->result_shape, Shape({}));
}

TEST(PlanTensorProductTest, ErrorsQuoteNumPy) {
  ExpectError(Plan("dot", {2, 3}, {4, 5}),
              "shapes (2,3) and (4,5) not aligned: 3 (dim 1) != 4 (dim 0)");
  ExpectError(Plan("dot", {2, 3, 4}, {5}),
              "shapes (2,3,4) and (5,) not aligned: 4 (dim 2) != 5 (dim 0)");
  ExpectError(Plan("inner", {2, 3}, {5, 4}),
              "shapes (2,3) and (5,4) not aligned: 3 (dim 1) != 4 (dim 1)");
  ExpectError(Plan("vdot", {2, 3}, {4}), "cannot reshape array of size 4 into shape (6,)");
  ExpectError(Plan("tensordot", {2, 3}, {4, 5}, 1), "shape-mismatch for sum");
  // NumPy raises IndexError, or misbehaves for negative axes.
  ExpectError(Plan("tensordot", {2, 3}, {3, 5}, 3),
              "tensordot: cannot contract 3 axes of arrays of shapes (2,3) and (3,5)");
  ExpectError(Plan("tensordot", {2, 3}, {3, 5}, -1),
              "tensordot: axes must be a non-negative number of axes, got -1");
}

// --- numpy.linalg --------------------------------------------------------------------------

TEST(LinalgDTypeTest, CommonTypeAsNumPy) {
  auto common = [](std::vector<DType> dtypes) { return LinalgDType(dtypes); };
  EXPECT_EQ(*common({DType::kInt32}), kF64);
  EXPECT_EQ(*common({DType::kBool}), kF64);
  EXPECT_EQ(*common({kF32}), kF32);
  EXPECT_EQ(*common({kF32, kF32}), kF32);
  EXPECT_EQ(*common({kF32, DType::kUInt8}), kF64);
  EXPECT_EQ(*common({kC64, kF32}), kC64);
  EXPECT_EQ(*common({kC64, kF64}), kC128);
  // np.linalg.inv(np.eye(2, dtype=np.float16))
  ExpectError(common({kF16}), "array type float16 is unsupported in linalg");
  EXPECT_EQ(RealDType(kC64), kF32);
  EXPECT_EQ(RealDType(kC128), kF64);
  EXPECT_EQ(RealDType(kF32), kF32);
}

absl::StatusOr<LinalgPlan> PlanOp(LinalgSpec spec, std::vector<Shape> shapes,
                                  std::vector<DType> dtypes = {}) {
  dtypes.resize(shapes.size(), kF64);
  spec.operands.resize(shapes.size());
  return PlanLinalg(spec, dtypes, shapes);
}

LinalgSpec Op(LinalgOp op) {
  LinalgSpec spec;
  spec.op = op;
  return spec;
}

std::vector<Shape> OutputShapes(const LinalgPlan& plan) {
  std::vector<Shape> shapes;
  for (const LinalgOutput& output : plan.outputs) shapes.push_back(output.shape);
  return shapes;
}

TEST(PlanLinalgTest, SvdShapes) {
  LinalgSpec svd = Op(LinalgOp::kSvd);
  absl::StatusOr<LinalgPlan> full = PlanOp(svd, {{3, 7, 5}}, {kC64});
  ASSERT_TRUE(full.ok()) << full.status();
  EXPECT_THAT(OutputShapes(*full), ElementsAre(Shape{3, 7, 7}, Shape{3, 5}, Shape{3, 5, 5}));
  EXPECT_EQ(full->dtype, kC64);
  EXPECT_EQ(full->outputs[1].dtype, kF32);  // Singular values are real.
  svd.full_matrices = false;
  EXPECT_THAT(OutputShapes(*PlanOp(svd, {{3, 7, 5}})),
              ElementsAre(Shape{3, 7, 5}, Shape{3, 5}, Shape{3, 5, 5}));
  svd.compute_uv = false;
  EXPECT_THAT(OutputShapes(*PlanOp(svd, {{4, 9}})), ElementsAre(Shape{4}));
  // np.linalg.svd(np.ones(3))
  ExpectError(PlanOp(svd, {{3}}),
              "1-dimensional array given. Array must be at least two-dimensional");
}

TEST(PlanLinalgTest, QrModes) {
  LinalgSpec qr = Op(LinalgOp::kQr);
  EXPECT_THAT(OutputShapes(*PlanOp(qr, {{7, 4}})), ElementsAre(Shape{7, 4}, Shape{4, 4}));
  qr.mode = "complete";
  absl::StatusOr<LinalgPlan> complete = PlanOp(qr, {{7, 4}});
  EXPECT_TRUE(complete->complete);
  EXPECT_THAT(OutputShapes(*complete), ElementsAre(Shape{7, 7}, Shape{7, 4}));
  qr.mode = "r";
  absl::StatusOr<LinalgPlan> r = PlanOp(qr, {{4, 7}});
  EXPECT_FALSE(r->compute_q);
  EXPECT_THAT(OutputShapes(*r), ElementsAre(Shape{4, 7}));
  qr.mode = "x";
  ExpectError(PlanOp(qr, {{3, 3}}), "Unrecognized mode 'x'");
}

TEST(PlanLinalgTest, SquareRoutines) {
  EXPECT_THAT(OutputShapes(*PlanOp(Op(LinalgOp::kInv), {{2, 3, 3}}, {DType::kInt32})),
              ElementsAre(Shape{2, 3, 3}));
  EXPECT_EQ(PlanOp(Op(LinalgOp::kInv), {{3, 3}}, {DType::kInt32})->dtype, kF64);
  absl::StatusOr<LinalgPlan> slogdet = PlanOp(Op(LinalgOp::kSlogdet), {{4, 2, 2}}, {kC128});
  EXPECT_THAT(OutputShapes(*slogdet), ElementsAre(Shape{4}, Shape{4}));
  EXPECT_EQ(slogdet->outputs[0].dtype, kC128);
  EXPECT_EQ(slogdet->outputs[1].dtype, kF64);
  EXPECT_THAT(OutputShapes(*PlanOp(Op(LinalgOp::kDet), {{2, 2}})), ElementsAre(Shape{}));
  absl::StatusOr<LinalgPlan> eigh = PlanOp(Op(LinalgOp::kEigh), {{5, 5}}, {kC64});
  EXPECT_THAT(OutputShapes(*eigh), ElementsAre(Shape{5}, Shape{5, 5}));
  EXPECT_EQ(eigh->outputs[0].dtype, kF32);
  EXPECT_THAT(OutputShapes(*PlanOp(Op(LinalgOp::kEigvalsh), {{5, 5}})), ElementsAre(Shape{5}));
  // eig and eigvals answer complex whatever the input (as CuPy's), of its precision.
  absl::StatusOr<LinalgPlan> eig = PlanOp(Op(LinalgOp::kEig), {{2, 4, 4}}, {kF32});
  EXPECT_THAT(OutputShapes(*eig), ElementsAre(Shape{2, 4}, Shape{2, 4, 4}));
  EXPECT_EQ(eig->outputs[0].dtype, kC64);
  EXPECT_EQ(eig->outputs[1].dtype, kC64);
  absl::StatusOr<LinalgPlan> eigvals = PlanOp(Op(LinalgOp::kEigvals), {{3, 3}}, {DType::kInt8});
  EXPECT_THAT(OutputShapes(*eigvals), ElementsAre(Shape{3}));
  EXPECT_EQ(eigvals->outputs[0].dtype, kC128);
  LinalgSpec upper = Op(LinalgOp::kCholesky);
  upper.uplo = "U";
  EXPECT_TRUE(PlanOp(upper, {{3, 3}})->upper);
  upper.uplo = "X";
  ExpectError(PlanOp(upper, {{3, 3}}), "UPLO argument must be 'L' or 'U'");
  // np.linalg.inv(np.ones((2, 3))), np.linalg.inv(np.array(3.0)), float16
  ExpectError(PlanOp(Op(LinalgOp::kInv), {{2, 3}}),
              "Last 2 dimensions of the array must be square");
  ExpectError(PlanOp(Op(LinalgOp::kDet), {{}}),
              "0-dimensional array given. Array must be at least two-dimensional");
  ExpectError(PlanOp(Op(LinalgOp::kCholesky), {{2, 2}}, {kF16}),
              "array type float16 is unsupported in linalg");
  ExpectError(PlanOp(Op(LinalgOp::kInv), {{2, 2}, {2, 2}}), "inv takes 1 operand, got 2");
}

// linalg_ops.def's columns: the operands each routine takes, and whether it answers a tuple
// (as numpy.linalg does; svd and qr by their options).
TEST(LinalgOpsTest, TheTableGivesOperandsAndAnswers) {
  const std::vector<std::string> several = {"eigh", "eig", "slogdet", "lstsq"};
  for (const char* name : {"svd", "qr", "cholesky", "eigh", "eigvalsh", "eig", "eigvals", "solve",
                           "inv", "det", "slogdet", "norm", "lstsq"}) {
    SCOPED_TRACE(name);
    const std::optional<LinalgOp> op = LinalgOpFromName(name);
    ASSERT_TRUE(op.has_value());
    const size_t operands = *op == LinalgOp::kSolve || *op == LinalgOp::kLstsq ? 2 : 1;
    EXPECT_TRUE(CheckLinalgOperands(*op, operands).ok());
    EXPECT_EQ(CheckLinalgOperands(*op, operands + 1).message(),
              fmt::format("{} takes {} operand{}, got {}", name, operands, operands == 1 ? "" : "s",
                          operands + 1));
    if (*op != LinalgOp::kSvd && *op != LinalgOp::kQr) {
      EXPECT_EQ(LinalgGivesSeveral(*op, true, ""),
                std::find(several.begin(), several.end(), name) != several.end());
    }
  }
  EXPECT_TRUE(LinalgGivesSeveral(LinalgOp::kSvd, true, ""));
  EXPECT_FALSE(LinalgGivesSeveral(LinalgOp::kSvd, false, ""));
  EXPECT_TRUE(LinalgGivesSeveral(LinalgOp::kQr, true, "complete"));
  EXPECT_FALSE(LinalgGivesSeveral(LinalgOp::kQr, true, "r"));
}

TEST(PlanLinalgTest, SolveShapesAndMessages) {
  const LinalgSpec solve = Op(LinalgOp::kSolve);
  // np.linalg.solve(np.ones((4, 2, 2)), np.ones(2)).shape: a single column.
  absl::StatusOr<LinalgPlan> vector = PlanOp(solve, {{4, 2, 2}, {2}});
  ASSERT_TRUE(vector.ok()) << vector.status();
  EXPECT_TRUE(vector->b_vector);
  EXPECT_THAT(OutputShapes(*vector), ElementsAre(Shape{4, 2}));
  // NumPy 2: b (4, 2) is a stack of matrices, which does not match here.
  ExpectError(PlanOp(solve, {{4, 2, 2}, {4, 2}}),
              "solve: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
              "signature (m,m),(m,n)->(m,n) (size 4 is different from 2)");
  absl::StatusOr<LinalgPlan> stacks = PlanOp(solve, {{3, 1, 2, 2}, {4, 2, 5}}, {kF32, kC64});
  ASSERT_TRUE(stacks.ok()) << stacks.status();
  EXPECT_EQ(stacks->batch_shape, Shape({3, 4}));
  EXPECT_THAT(OutputShapes(*stacks), ElementsAre(Shape{3, 4, 2, 5}));
  EXPECT_EQ(stacks->dtype, kC64);
  ExpectError(PlanOp(solve, {{2, 2}, {3}}),
              "solve1: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
              "signature (m,m),(m)->(m) (size 3 is different from 2)");
  ExpectError(PlanOp(solve, {{2, 2}, {}}),
              "solve: Input operand 1 does not have enough dimensions (has 0, gufunc core with "
              "signature (m,m),(m,n)->(m,n) requires 2)");
  ExpectError(PlanOp(solve, {{3, 2, 2}, {4, 2, 5}}),
              "operands could not be broadcast together with remapped shapes "
              "[original->remapped]: (3,2,2)->(3,newaxis,newaxis) (4,2,5)->(4,newaxis,newaxis)  "
              "and requested shape (2,5)");
  ExpectError(PlanOp(solve, {{2, 3}, {2}}), "Last 2 dimensions of the array must be square");
}

TEST(PlanLstsqTest, ShapesDTypesAndMessages) {
  // np.linalg.lstsq(np.ones((3, 2), np.float32), np.ones(3, np.float32)): computed in double,
  // answered in float32, rcond eps(float64) * max(m, n).
  absl::StatusOr<LstsqPlan> vector = PlanLstsq(kF32, {3, 2}, kF32, {3}, -1);
  ASSERT_TRUE(vector.ok()) << vector.status();
  EXPECT_EQ(vector->compute_dtype, kF64);
  EXPECT_EQ(vector->dtype, kF32);
  EXPECT_TRUE(vector->b_vector);
  EXPECT_EQ(vector->k, 1);
  EXPECT_EQ(vector->x_shape, Shape({2}));
  EXPECT_EQ(vector->rcond, 3 * std::numeric_limits<double>::epsilon());
  absl::StatusOr<LstsqPlan> columns = PlanLstsq(kC64, {3, 2}, kF64, {3, 4}, 0.5);
  ASSERT_TRUE(columns.ok());
  EXPECT_EQ(columns->compute_dtype, kC128);
  EXPECT_EQ(columns->dtype, kC128);
  EXPECT_EQ(columns->x_shape, Shape({2, 4}));
  EXPECT_EQ(columns->rcond, 0.5);
  ExpectError(PlanLstsq(kF64, {2, 2, 2}, kF64, {2}, -1),
              "3-dimensional array given. Array must be two-dimensional");
  ExpectError(PlanLstsq(kF64, {3, 2}, kF64, {}, -1),
              "0-dimensional array given. Array must be two-dimensional");
  ExpectError(PlanLstsq(kF64, {3, 2}, kF64, {4}, -1), "Incompatible dimensions");
  ExpectError(PlanLstsq(kF16, {3, 2}, kF64, {3}, -1),
              "array type float16 is unsupported in linalg");
}

// --- norm ----------------------------------------------------------------------------------

absl::StatusOr<NormPlan> PlanNormOf(const Shape& shape, std::string_view ord,
                                    std::optional<std::vector<int64_t>> axes = std::nullopt,
                                    DType dtype = kF64) {
  return PlanNorm(dtype, shape, ord, axes);
}

TEST(PlanNormTest, KindsAndShapes) {
  // np.linalg.norm(a) for any rank: the 2-norm of the flattened array.
  absl::StatusOr<NormPlan> whole = PlanNormOf({2, 3, 4}, "");
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole->kind, NormKind::kEuclidean);
  EXPECT_THAT(whole->axes, ElementsAre(0, 1, 2));
  EXPECT_EQ(whole->result_shape, Shape({}));
  EXPECT_EQ(whole->keepdims_shape, Shape({1, 1, 1}));
  EXPECT_EQ(PlanNormOf({}, "")->kind, NormKind::kEuclidean);
  // Vector norms over one axis.
  EXPECT_EQ(PlanNormOf({5}, "inf")->kind, NormKind::kMaxAbs);
  EXPECT_EQ(PlanNormOf({5}, "-inf")->kind, NormKind::kMinAbs);
  EXPECT_EQ(PlanNormOf({5}, "0")->kind, NormKind::kCount);
  EXPECT_EQ(PlanNormOf({5}, "1")->kind, NormKind::kSumAbs);
  EXPECT_EQ(PlanNormOf({5}, "2")->kind, NormKind::kEuclidean);
  absl::StatusOr<NormPlan> p = PlanNormOf({2, 3, 4}, "0.5", std::vector<int64_t>{-2});
  EXPECT_EQ(p->kind, NormKind::kPower);
  EXPECT_EQ(p->p, 0.5);
  EXPECT_THAT(p->axes, ElementsAre(1));
  EXPECT_EQ(p->result_shape, Shape({2, 4}));
  EXPECT_EQ(p->keepdims_shape, Shape({2, 1, 4}));
  // Matrix norms over two axes. np.linalg.norm(a, 1, axis=(2, 0)): the sums over axis 2, then
  // the max over axis 0 of those.
  absl::StatusOr<NormPlan> one = PlanNormOf({2, 3, 4}, "1", std::vector<int64_t>{2, 0});
  EXPECT_EQ(one->kind, NormKind::kMaxSum);
  EXPECT_THAT(one->axes, ElementsAre(2, 0));
  EXPECT_EQ(one->result_shape, Shape({3}));
  EXPECT_EQ(one->keepdims_shape, Shape({1, 3, 1}));
  absl::StatusOr<NormPlan> inf = PlanNormOf({2, 3, 4}, "-inf", std::vector<int64_t>{0, 2});
  EXPECT_EQ(inf->kind, NormKind::kMinSum);
  EXPECT_THAT(inf->axes, ElementsAre(2, 0));
  EXPECT_EQ(PlanNormOf({3, 4}, "2")->kind, NormKind::kMaxSingular);
  EXPECT_EQ(PlanNormOf({3, 4}, "-2")->kind, NormKind::kMinSingular);
  EXPECT_EQ(PlanNormOf({3, 4}, "nuc")->kind, NormKind::kNuclear);
  absl::StatusOr<NormPlan> fro = PlanNormOf({2, 3, 4}, "fro", std::vector<int64_t>{2, 1});
  EXPECT_EQ(fro->kind, NormKind::kEuclidean);
  EXPECT_THAT(fro->axes, ElementsAre(1, 2));
  // Integers compute in float64; complex gives its real dtype; float16 stays.
  EXPECT_EQ(PlanNormOf({3}, "", std::nullopt, DType::kInt8)->dtype, kF64);
  EXPECT_EQ(PlanNormOf({3}, "", std::nullopt, kC64)->result_dtype, kF32);
  EXPECT_EQ(PlanNormOf({3}, "3", std::nullopt, kF16)->result_dtype, kF16);
  // Max over nothing is 0 (NumPy's initial=0): np.linalg.norm(np.zeros((0, 3)), np.inf)
  EXPECT_TRUE(PlanNormOf({0, 3}, "inf").ok());
}

TEST(PlanNormTest, ErrorsQuoteNumPy) {
  ExpectError(PlanNormOf({2, 3, 4}, "fro"), "Improper number of dimensions to norm.");
  ExpectError(PlanNormOf({2, 3, 4}, "2", std::vector<int64_t>{1, 1}), "Duplicate axes given.");
  ExpectError(PlanNormOf({2, 3, 4}, "2", std::vector<int64_t>{1, 5}),
              "axis 5 is out of bounds for array of dimension 3");
  ExpectError(PlanNormOf({2, 3, 4}, "fro", std::vector<int64_t>{1}),
              "Invalid norm order 'fro' for vectors");
  ExpectError(PlanNormOf({2, 3, 4}, "bad", std::vector<int64_t>{1}),
              "Invalid norm order 'bad' for vectors");
  ExpectError(PlanNormOf({2, 3, 4}, "3", std::vector<int64_t>{0, 1}),
              "Invalid norm order for matrices.");
  ExpectError(PlanNormOf({}, "1"), "Improper number of dimensions to norm.");
  ExpectError(PlanNormOf({2, 2}, "2", std::nullopt, kF16),
              "array type float16 is unsupported in linalg");
  // np.linalg.norm(np.ones((2, 0)), -1); np.linalg.norm(np.zeros(0), -np.inf)
  ExpectError(PlanNormOf({2, 0}, "-1"),
              "zero-size array to reduction operation minimum which has no identity");
  ExpectError(PlanNormOf({0}, "-inf"),
              "zero-size array to reduction operation minimum which has no identity");
  EXPECT_TRUE(PlanNormOf({2, 0}, "-inf").ok());  // The min runs over the two sums.
}

}  // namespace
}  // namespace arrayhub
