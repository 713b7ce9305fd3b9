// The layouts of NumPy's views and their messages, with NumPy 2.4's answers: each case names
// the NumPy expression it was taken from (strides are NumPy's divided by the itemsize).

#include "server/core/view_rules.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

namespace arrayhub {
namespace {

void ExpectError(const absl::Status& status, std::string_view message) {
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(status.message()), message);
}

void ExpectLayout(const absl::StatusOr<Layout>& layout, const Shape& shape, const Strides& strides,
                  int64_t offset_bytes = 0) {
  ASSERT_TRUE(layout.ok()) << layout.status();
  EXPECT_EQ(layout->shape, shape);
  EXPECT_EQ(layout->strides, strides);
  EXPECT_EQ(layout->offset_bytes, offset_bytes);
}

// np.zeros((2, 3, 4))[...] with a byte offset of 8, as a view of a larger buffer has.
const Layout kCube{{2, 3, 4}, {12, 4, 1}, 8};
const Layout kMatrix{{3, 4}, {4, 1}, 0};
const Limits kLimits{};

Limits MaxRank(int64_t rank) { return Limits{.max_rank = rank}; }

// --- reshape, ravel --------------------------------------------------------------------------

TEST(PlanReshapeTest, ContiguousArraysGiveViews) {
  // np.arange(12).reshape(3, 4).reshape(-1, 6)
  absl::StatusOr<ReshapePlan> plan = PlanReshape(kMatrix, {.shape = {-1, 6}}, kLimits);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->shape, Shape({2, 6}));
  EXPECT_EQ(plan->view_strides, Strides({6, 1}));
  EXPECT_EQ(plan->order, MemoryOrder::kC);
  // np.asfortranarray(np.zeros((3, 4))).reshape(2, 6, order="F")
  const Layout fortran{{3, 4}, {1, 3}, 0};
  plan = PlanReshape(fortran, {.shape = {2, 6}, .order = MemoryOrder::kF}, kLimits);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->view_strides, Strides({1, 2}));
  EXPECT_EQ(plan->order, MemoryOrder::kF);
  // np.zeros((4, 6)).T.reshape(24, order="F"): a transposed C array is F-contiguous.
  plan = PlanReshape({{6, 4}, {1, 6}, 0}, {.shape = {24}, .order = MemoryOrder::kF}, kLimits);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->view_strides, Strides({1}));
  // np.zeros((0, 3)).reshape(3, -1)
  plan = PlanReshape({{0, 3}, {3, 1}, 0}, {.shape = {3, -1}}, kLimits);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->shape, Shape({3, 0}));
}

TEST(PlanReshapeTest, ReadingInTheOtherOrderCopies) {
  // np.arange(12).reshape(3, 4).reshape(4, 3, order="F") is a copy.
  absl::StatusOr<ReshapePlan> plan =
      PlanReshape(kMatrix, {.shape = {4, 3}, .order = MemoryOrder::kF}, kLimits);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->shape, Shape({4, 3}));
  EXPECT_EQ(plan->view_strides, std::nullopt);
  EXPECT_EQ(plan->order, MemoryOrder::kF);
  // np.asfortranarray(np.zeros((3, 4))).reshape(12) is a copy too.
  plan = PlanReshape({{3, 4}, {1, 3}, 0}, {.shape = {12}}, kLimits);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->view_strides, std::nullopt);
  EXPECT_EQ(plan->order, MemoryOrder::kC);
}

TEST(PlanReshapeTest, MessagesQuoteNumPy) {
  // np.arange(12).reshape(5, 3), .reshape(5, -1), .reshape(12, -1, 5), .reshape(-1, -1)
  ExpectError(PlanReshape(kMatrix, {.shape = {5, 3}}, kLimits).status(),
              "cannot reshape array of size 12 into shape (5,3)");
  ExpectError(PlanReshape(kMatrix, {.shape = {5, -1}}, kLimits).status(),
              "cannot reshape array of size 12 into shape (5,newaxis)");
  ExpectError(PlanReshape(kMatrix, {.shape = {12, -1, 5}}, kLimits).status(),
              "cannot reshape array of size 12 into shape (12,newaxis,5)");
  ExpectError(PlanReshape(kMatrix, {.shape = {7}}, kLimits).status(),
              "cannot reshape array of size 12 into shape (7,)");
  ExpectError(PlanReshape(kMatrix, {.shape = {-1, -1}}, kLimits).status(),
              "can only specify one unknown dimension");
  // A product of lengths that overflows is refused, not wrapped.
  ExpectError(
      PlanReshape(kMatrix, {.shape = {int64_t{1} << 40, int64_t{1} << 40}}, kLimits).status(),
      "cannot reshape array of size 12 into shape (1099511627776,1099511627776)");
}

// NumPy's convert_shape_to_string leaves out leading unknown lengths, and NumPy 2.4 reads any
// negative length as the unknown one.
TEST(PlanReshapeTest, TheNewShapesRankIsHeldToTheLimit) {
  // A reshape to rank 20,001 was accepted, and every later transpose or sum of it was quadratic.
  const Layout one{{1}, {1}, 0};
  ExpectError(PlanReshape(one, {.shape = Shape(20001, 1)}, kLimits).status(),
              "reshape.shape has 20001 dimensions; the server allows at most 64 (--max-rank)");
  EXPECT_TRUE(PlanReshape(one, {.shape = Shape(64, 1)}, kLimits).ok());
}

TEST(PlanReshapeTest, LeadingUnknownAndOtherNegativesAsNumPy) {
  // np.arange(12).reshape(-1, 5)
  ExpectError(PlanReshape(kMatrix, {.shape = {-1, 5}}, kLimits).status(),
              "cannot reshape array of size 12 into shape (5)");
  // np.zeros((0, 3)).reshape(-1, 0): the unknown length cannot be found.
  ExpectError(PlanReshape({{0, 3}, {3, 1}, 0}, {.shape = {-1, 0}}, kLimits).status(),
              "cannot reshape array of size 0 into shape (0)");
  // np.arange(12).reshape(-3, 4).shape == (3, 4)
  absl::StatusOr<ReshapePlan> plan = PlanReshape(kMatrix, {.shape = {-3, 4}}, kLimits);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->shape, Shape({3, 4}));
}

TEST(ReshapeStridesTest, FortranOrderViews) {
  // np.asfortranarray(np.zeros((3, 4))).reshape(2, 2, 3, order="F")
  EXPECT_EQ(ReshapeStrides({{3, 4}, {1, 3}, 0}, {2, 2, 3}, MemoryOrder::kF), Strides({1, 2, 4}));
  // np.zeros((8, 3), order="F")[:4]: columns 8 apart; reshape(2, 2, 3, order="F") splits the
  // contiguous first axis only.
  const Layout rows{{4, 3}, {1, 8}, 0};
  EXPECT_EQ(ReshapeStrides(rows, {2, 2, 3}, MemoryOrder::kF), Strides({1, 2, 8}));
  EXPECT_EQ(ReshapeStrides(rows, {12}, MemoryOrder::kF), std::nullopt);
  // The same array in C order: a[i * 2 + j, k] sits at (i * 2 + j) + 8 k.
  EXPECT_EQ(ReshapeStrides(rows, {2, 2, 3}), Strides({2, 1, 8}));
  EXPECT_EQ(ReshapeStrides(rows, {12}), std::nullopt);
  // np.zeros((4, 6))[:, ::2].reshape(12, order="F") copies.
  EXPECT_EQ(ReshapeStrides({{4, 3}, {6, 2}, 0}, {12}, MemoryOrder::kF), std::nullopt);
  // Trailing axes of length 1 take the next stride outwards: (6, 1) is (1, 1) in C order and
  // (1, 6) in Fortran order.
  EXPECT_EQ(ReshapeStrides({{2, 3}, {3, 1}, 0}, {6, 1}), Strides({1, 1}));
  EXPECT_EQ(ReshapeStrides({{2, 3}, {1, 2}, 0}, {6, 1}, MemoryOrder::kF), Strides({1, 6}));
}

TEST(PlanRavelTest, ViewOnlyWhenContiguousInTheOrder) {
  EXPECT_EQ(PlanRavel(kMatrix, MemoryOrder::kC).view_strides, Strides({1}));
  EXPECT_EQ(PlanRavel(kMatrix, MemoryOrder::kC).shape, Shape({12}));
  EXPECT_EQ(PlanRavel(kMatrix, MemoryOrder::kF).view_strides, std::nullopt);
  const Layout transposed{{4, 3}, {1, 4}, 0};  // np.zeros((3, 4)).T
  EXPECT_EQ(PlanRavel(transposed, MemoryOrder::kC).view_strides, std::nullopt);
  EXPECT_EQ(PlanRavel(transposed, MemoryOrder::kF).view_strides, Strides({1}));
  const ReshapePlan scalar = PlanRavel({{}, {}, 0}, MemoryOrder::kC);
  EXPECT_EQ(scalar.shape, Shape({1}));
  EXPECT_EQ(scalar.view_strides, Strides({1}));
}

// --- transpose, swapaxes ---------------------------------------------------------------------

TEST(TransposeLayoutTest, PermutesAndKeepsTheOffset) {
  // np.zeros((2, 3, 4)).T, .transpose(1, -1, 0)
  ExpectLayout(TransposeLayout(kCube, {}), {4, 3, 2}, {1, 4, 12}, 8);
  ExpectLayout(TransposeLayout(kCube, {.axes = {1, -1, 0}}), {3, 4, 2}, {4, 1, 12}, 8);
  ExpectLayout(TransposeLayout({{}, {}, 16}, {}), {}, {}, 16);
}

TEST(TransposeLayoutTest, MessagesQuoteNumPy) {
  // np.zeros((3, 4)).transpose(0), .transpose(0, 0), .transpose(0, 2)
  ExpectError(TransposeLayout(kMatrix, {.axes = {0}}).status(), "axes don't match array");
  ExpectError(TransposeLayout(kMatrix, {.axes = {0, 0}}).status(), "repeated axis in transpose");
  ExpectError(TransposeLayout(kMatrix, {.axes = {0, 2}}).status(),
              "axis 2 is out of bounds for array of dimension 2");
}

TEST(SwapAxesLayoutTest, SwapsTwoAxes) {
  // np.zeros((2, 3, 4)).swapaxes(0, -1), .swapaxes(1, 1)
  ExpectLayout(SwapAxesLayout(kCube, {.axis1 = 0, .axis2 = -1}), {4, 3, 2}, {1, 4, 12}, 8);
  ExpectLayout(SwapAxesLayout(kCube, {.axis1 = 1, .axis2 = 1}), {2, 3, 4}, {12, 4, 1}, 8);
  ExpectError(SwapAxesLayout(kCube, {.axis1 = 0, .axis2 = -4}).status(),
              "axis -4 is out of bounds for array of dimension 3");
}

// --- squeeze, expand_dims --------------------------------------------------------------------

TEST(SqueezeLayoutTest, DropsAxesOfLengthOne) {
  const Layout ones{{1, 3, 1, 2}, {6, 2, 2, 1}, 24};  // np.zeros((1, 3, 1, 2))
  ExpectLayout(SqueezeLayout(ones, {}), {3, 2}, {2, 1}, 24);
  ExpectLayout(SqueezeLayout(ones, {.axes = std::vector<int64_t>{-2}}), {1, 3, 2}, {6, 2, 1}, 24);
  ExpectLayout(SqueezeLayout(ones, {.axes = std::vector<int64_t>{}}), {1, 3, 1, 2}, {6, 2, 2, 1},
               24);
  ExpectLayout(SqueezeLayout({{1}, {1}, 0}, {}), {}, {}, 0);
}

TEST(SqueezeLayoutTest, MessagesQuoteNumPy) {
  const Layout ones{{1, 3, 1, 2}, {6, 2, 2, 1}, 0};
  // np.zeros((1, 3, 1, 2)).squeeze(1), .squeeze((0, 0)), .squeeze(4)
  ExpectError(SqueezeLayout(ones, {.axes = std::vector<int64_t>{1}}).status(),
              "cannot select an axis to squeeze out which has size not equal to one");
  ExpectError(SqueezeLayout(ones, {.axes = std::vector<int64_t>{0, 0}}).status(), "repeated axis");
  ExpectError(SqueezeLayout(ones, {.axes = std::vector<int64_t>{4}}).status(),
              "axis 4 is out of bounds for array of dimension 4");
}

TEST(ExpandDimsLayoutTest, InsertsAxesAtTheirResultPositions) {
  // np.expand_dims(np.zeros((3, 4)), 0), (..., -1), (..., (0, 2)), (..., (3, 0))
  ExpectLayout(ExpandDimsLayout(kMatrix, {.axes = {0}}, kLimits), {1, 3, 4}, {0, 4, 1});
  ExpectLayout(ExpandDimsLayout(kMatrix, {.axes = {-1}}, kLimits), {3, 4, 1}, {4, 1, 0});
  ExpectLayout(ExpandDimsLayout(kMatrix, {.axes = {0, 2}}, kLimits), {1, 3, 1, 4}, {0, 4, 0, 1});
  ExpectLayout(ExpandDimsLayout(kMatrix, {.axes = {3, 0}}, kLimits), {1, 3, 4, 1}, {0, 4, 1, 0});
  ExpectLayout(ExpandDimsLayout(kCube, {.axes = {}}, kLimits), {2, 3, 4}, {12, 4, 1}, 8);
}

TEST(ExpandDimsLayoutTest, Messages) {
  // np.expand_dims(np.zeros((3, 4)), (0, 0)), (..., 3), (..., -4)
  ExpectError(ExpandDimsLayout(kMatrix, {.axes = {0, 0}}, kLimits).status(), "repeated axis");
  ExpectError(ExpandDimsLayout(kMatrix, {.axes = {3}}, kLimits).status(),
              "axis 3 is out of bounds for array of dimension 3");
  ExpectError(ExpandDimsLayout(kMatrix, {.axes = {-4}}, kLimits).status(),
              "axis -4 is out of bounds for array of dimension 3");
  ExpectError(ExpandDimsLayout(kMatrix, {.axes = {0}}, MaxRank(2)).status(),
              "the result of expand_dims has 3 dimensions; the server allows at most 2 "
              "(--max-rank)");
}

// --- broadcast_to ----------------------------------------------------------------------------

TEST(BroadcastToLayoutTest, StretchedAxesHaveStrideZero) {
  // np.broadcast_to(np.zeros((3, 1)), (2, 3, 4))
  ExpectLayout(BroadcastToLayout({{3, 1}, {1, 1}, 16}, {.shape = {2, 3, 4}}, kLimits), {2, 3, 4},
               {0, 1, 0}, 16);
  ExpectLayout(BroadcastToLayout({{}, {}, 0}, {.shape = {2, 2}}, kLimits), {2, 2}, {0, 0});
  ExpectLayout(BroadcastToLayout(kMatrix, {.shape = {3, 4}}, kLimits), {3, 4}, {4, 1});
  ExpectLayout(BroadcastToLayout({{1}, {1}, 0}, {.shape = {0}}, kLimits), {0}, {0});
}

TEST(BroadcastToLayoutTest, Messages) {
  // np.broadcast_to(np.zeros(3), (-1,))
  ExpectError(BroadcastToLayout({{3}, {1}, 0}, {.shape = {-1}}, kLimits).status(),
              "all elements of broadcast shape must be non-negative");
  ExpectError(BroadcastToLayout(kMatrix, {.shape = {1, 1, 3, 4}}, MaxRank(3)).status(),
              "broadcast_to.shape has 4 dimensions; the server allows at most 3 (--max-rank)");
  // A shape with fewer axes than the array cannot hold it.
  const absl::Status fewer = BroadcastToLayout(kMatrix, {.shape = {4}}, kLimits).status();
  EXPECT_EQ(fewer.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(fewer.message()).find("and requested shape (4,)"), std::string::npos)
      << fewer;
}

TEST(BroadcastToLayoutTest, ElementsAreHeldToTheLimitOfAnArray) {
  // A 41-byte Reduce over np.broadcast_to(np.zeros(1), (2**25, 2**25)) walks 2**50 elements.
  const Layout one{{1}, {1}, 0};
  const absl::Status huge =
      BroadcastToLayout(one, {.shape = {int64_t{1} << 25, int64_t{1} << 25}}, kLimits).status();
  EXPECT_EQ(huge.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(std::string(huge.message()),
            "broadcast_to.shape (33554432, 33554432) has 1125899906842624 elements; the server "
            "allows at most 68719476736 elements per array (--max-array-elements)");
  ExpectLayout(BroadcastToLayout(one, {.shape = {4, 4}}, Limits{.max_array_elements = 16}), {4, 4},
               {0, 0});
  EXPECT_EQ(
      BroadcastToLayout(one, {.shape = {17}}, Limits{.max_array_elements = 16}).status().code(),
      absl::StatusCode::kResourceExhausted);
}

// NumPy prints shapes without spaces here and puts two spaces before "and".
TEST(BroadcastToLayoutTest, MessagesQuoteNumPyExactly) {
  // np.broadcast_to(np.zeros(3), (4,)), np.broadcast_to(np.zeros((2, 3)), (4, 3))
  ExpectError(BroadcastToLayout({{3}, {1}, 0}, {.shape = {4}}, kLimits).status(),
              "operands could not be broadcast together with remapped shapes "
              "[original->remapped]: (3,)  and requested shape (4,)");
  ExpectError(BroadcastToLayout({{2, 3}, {3, 1}, 0}, {.shape = {4, 3}}, kLimits).status(),
              "operands could not be broadcast together with remapped shapes "
              "[original->remapped]: (2,3)  and requested shape (4,3)");
}

// --- diagonal --------------------------------------------------------------------------------

TEST(DiagonalLayoutTest, OffsetsAndAxes) {
  constexpr int64_t kItem = 8;
  // np.zeros((3, 4)).diagonal(k) for k = 0, 1, -1: the first element, then steps of 4 + 1.
  ExpectLayout(DiagonalLayout(kMatrix, kItem, {}), {3}, {5}, 0);
  ExpectLayout(DiagonalLayout(kMatrix, kItem, {.offset = 1}), {3}, {5}, 1 * kItem);
  ExpectLayout(DiagonalLayout(kMatrix, kItem, {.offset = 3}), {1}, {5}, 3 * kItem);
  ExpectLayout(DiagonalLayout(kMatrix, kItem, {.offset = -1}), {2}, {5}, 4 * kItem);
  // Offsets past the matrix give empty diagonals, without moving the offset.
  ExpectLayout(DiagonalLayout(kMatrix, kItem, {.offset = 4}), {0}, {5}, 0);
  ExpectLayout(DiagonalLayout(kMatrix, kItem, {.offset = -100}), {0}, {5}, 0);
  ExpectLayout(DiagonalLayout(kMatrix, kItem, {.offset = std::numeric_limits<int64_t>::max()}), {0},
               {5}, 0);
  // np.zeros((2, 3, 4)).diagonal(0, 1, 2), (0, 0, 2), (1, 2, 0): the other axes first, the
  // diagonal last.
  ExpectLayout(DiagonalLayout(kCube, kItem, {.offset = 0, .axis1 = 1, .axis2 = 2}), {2, 3}, {12, 5},
               8);
  ExpectLayout(DiagonalLayout(kCube, kItem, {.offset = 0, .axis1 = 0, .axis2 = -1}), {3, 2},
               {4, 13}, 8);
  ExpectLayout(DiagonalLayout(kCube, kItem, {.offset = 1, .axis1 = 2, .axis2 = 0}), {3, 1}, {4, 13},
               8 + 12 * kItem);
}

TEST(DiagonalLayoutTest, MessagesQuoteNumPy) {
  // np.zeros(3).diagonal(), np.zeros((3, 3)).diagonal(0, 0, -2), (0, 0, 2), (0, -3, 1): NumPy
  // names the axis argument out of range.
  ExpectError(DiagonalLayout({{3}, {1}, 0}, 8, {}).status(),
              "diag requires an array of at least two dimensions");
  ExpectError(DiagonalLayout(kMatrix, 8, {.offset = 0, .axis1 = 0, .axis2 = -2}).status(),
              "axis1 and axis2 cannot be the same");
  ExpectError(DiagonalLayout(kMatrix, 8, {.offset = 0, .axis1 = 0, .axis2 = 2}).status(),
              "axis2: axis 2 is out of bounds for array of dimension 2");
  ExpectError(DiagonalLayout(kMatrix, 8, {.offset = 0, .axis1 = -3, .axis2 = 1}).status(),
              "axis1: axis -3 is out of bounds for array of dimension 2");
}

// --- view(dtype) -----------------------------------------------------------------------------

void ExpectDTypeView(const absl::StatusOr<DTypeView>& view, const Shape& shape,
                     const Strides& strides, int64_t offset_bytes, bool writable = true) {
  ASSERT_TRUE(view.ok()) << view.status();
  ExpectLayout(view->layout, shape, strides, offset_bytes);
  EXPECT_EQ(view->writable, writable);
}

TEST(DTypeViewLayoutTest, LastAxisChangesLength) {
  // np.zeros((3, 4), np.int32).view(np.int64): shape (3, 2), strides (16, 8).
  ExpectDTypeView(DTypeViewLayout(kMatrix, DType::kInt32, DType::kInt64), {3, 2}, {2, 1}, 0);
  // ... .view(np.int8): (3, 16), strides (16, 1).
  ExpectDTypeView(DTypeViewLayout(kMatrix, DType::kInt32, DType::kInt8), {3, 16}, {16, 1}, 0);
  // kCube (float64, 8 bytes in) as complex128 would start mid-element of 16 bytes: refused.
  // As float32: (2, 3, 8), strides (96, 32, 4) bytes.
  ExpectDTypeView(DTypeViewLayout(kCube, DType::kFloat64, DType::kFloat32), {2, 3, 8}, {24, 8, 1},
                  8);
  // np.zeros((3, 4))[:, ::2] (strides (4, 2)) as int64: the same itemsize views any layout.
  const Layout strided{{3, 2}, {4, -2}, 8};
  ExpectDTypeView(DTypeViewLayout(strided, DType::kFloat64, DType::kInt64), {3, 2}, {4, -2}, 8);
  // A last axis of length 1 may have any stride: np.zeros((3, 1))[::2].view(np.int8).
  ExpectDTypeView(DTypeViewLayout({{2, 1}, {2, 7}, 0}, DType::kFloat64, DType::kInt8), {2, 8},
                  {16, 1}, 0);
  // An empty array: np.zeros((3, 0)).view(np.complex128) is (3, 0).
  ExpectDTypeView(DTypeViewLayout({{3, 0}, {0, 1}, 0}, DType::kFloat64, DType::kComplex128), {3, 0},
                  {0, 1}, 0);
}

TEST(DTypeViewLayoutTest, MessagesQuoteNumPy) {
  ExpectError(DTypeViewLayout({{}, {}, 0}, DType::kFloat64, DType::kInt32).status(),
              "Changing the dtype of a 0d array is only supported if the itemsize is unchanged");
  // np.zeros((3, 4), np.int32).T.view(np.int16)
  ExpectError(DTypeViewLayout({{4, 3}, {1, 4}, 0}, DType::kInt32, DType::kInt16).status(),
              "To change to a dtype of a different size, the last axis must be contiguous");
  // np.zeros((3, 3), np.int32).view(np.int64)
  ExpectError(DTypeViewLayout({{3, 3}, {3, 1}, 0}, DType::kInt32, DType::kInt64).status(),
              "When changing to a larger dtype, its size must be a divisor of the total size in "
              "bytes of the last axis of the array.");
}

TEST(DTypeViewLayoutTest, ElementsStayAligned) {
  // np.zeros(9, np.int8)[1:].view(np.int32): NumPy makes an unaligned view; refused.
  ExpectError(
      DTypeViewLayout({{8}, {1}, 1}, DType::kInt8, DType::kInt32).status(),
      "cannot view this int8 array as int32: its data start (byte 1) or strides in bytes are not "
      "multiples of 4 bytes, and this server keeps every element aligned (NumPy would make an "
      "unaligned view; view a copy instead)");
  // np.zeros((3, 5), np.int8)[:, :4].view(np.int32): rows 5 bytes apart.
  EXPECT_FALSE(DTypeViewLayout({{3, 4}, {5, 1}, 0}, DType::kInt8, DType::kInt32).ok());
  EXPECT_FALSE(DTypeViewLayout(kCube, DType::kFloat64, DType::kComplex128).ok());
}

TEST(DTypeViewLayoutTest, BoolBytesStayZeroOrOne) {
  ExpectError(DTypeViewLayout(kMatrix, DType::kUInt8, DType::kBool).status(),
              "viewing uint8 as bool is not supported: this server's bool arrays hold only the "
              "bytes 0 and 1 (use x != 0, or x.astype(bool))");
  ExpectDTypeView(DTypeViewLayout(kMatrix, DType::kBool, DType::kUInt8), {3, 4}, {4, 1}, 0,
                  /*writable=*/false);
  ExpectDTypeView(DTypeViewLayout(kMatrix, DType::kBool, DType::kInt32), {3, 1}, {1, 1}, 0,
                  /*writable=*/false);
  ExpectDTypeView(DTypeViewLayout(kMatrix, DType::kBool, DType::kBool), {3, 4}, {4, 1}, 0);
}

}  // namespace
}  // namespace arrayhub
