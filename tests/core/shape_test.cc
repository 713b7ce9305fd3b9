// Shapes: element and byte counts with overflow checks, C-order strides, contiguity flags and
// NumPy's text for a shape.

#include "server/common/shape.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

namespace arrayhub {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

void ExpectInvalidArgument(const absl::Status& status, std::string_view fragment) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr(fragment));
}

// --- ElementCount -----------------------------------------------------------------------------

TEST(ElementCountTest, ScalarShapeHasOneElement) { EXPECT_EQ(ElementCount(Shape{}).value(), 1); }

TEST(ElementCountTest, ZeroExtentGivesZeroElements) {
  EXPECT_EQ(ElementCount(Shape{0}).value(), 0);
  EXPECT_EQ(ElementCount(Shape{2, 0, 3}).value(), 0);
}

// Found by the request fuzzer: an empty array whose other extents overflow its strides.
TEST(ElementCountTest, EmptyArrayWhoseStridesWouldOverflowIsTooBig) {
  const absl::Status status = ElementCount(Shape{0, int64_t{1} << 40, int64_t{1} << 20}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "shape (0, 1099511627776, 1048576) is too big: its nonzero extents multiply to more "
            "than int64 allows");
  EXPECT_EQ(ElementCount(Shape{0, int64_t{1} << 40, 1 << 18}).value(), 0);
}

TEST(ElementCountTest, MultipliesExtents) {
  EXPECT_EQ(ElementCount(Shape{3, 4}).value(), 12);
  EXPECT_EQ(ElementCount(Shape{kInt64Max, 1}).value(), kInt64Max);
}

TEST(ElementCountTest, NegativeExtentIsInvalidArgumentNamingShapeAndAxis) {
  // np.zeros((2, -1)) -> ValueError: negative dimensions are not allowed
  const absl::Status status = ElementCount(Shape{2, -1}).status();
  ExpectInvalidArgument(status, "negative dimensions are not allowed");
  EXPECT_THAT(std::string(status.message()), AllOf(HasSubstr("(2, -1)"), HasSubstr("axis 1")));
}

TEST(ElementCountTest, NegativeExtentIsRejectedEvenNextToAZeroExtent) {
  ExpectInvalidArgument(ElementCount(Shape{0, -3}).status(), "negative dimensions are not allowed");
}

TEST(ElementCountTest, MessageNamesTheField) {
  const absl::Status status = ElementCount(Shape{-1}, "newshape").status();
  EXPECT_THAT(std::string(status.message()), HasSubstr("newshape (-1,)"));
}

TEST(ElementCountTest, OverflowIsInvalidArgumentMentioningInt64) {
  const int64_t big = int64_t{1} << 40;
  const absl::Status status = ElementCount(Shape{big, big}).status();
  ExpectInvalidArgument(status, "int64");
  EXPECT_THAT(std::string(status.message()), HasSubstr("(1099511627776, 1099511627776)"));
}

TEST(ElementCountTest, OverflowOfThreeAxesIsDetected) {
  // 2^21 * 2^21 * 2^22 = 2^64: each partial product fits, the last does not.
  const Shape shape = {int64_t{1} << 21, int64_t{1} << 21, int64_t{1} << 22};
  ExpectInvalidArgument(ElementCount(shape).status(), "int64");
}

// --- ByteCount --------------------------------------------------------------------------------

TEST(ByteCountTest, MultipliesCountByItemSize) {
  EXPECT_EQ(ByteCount(0, 16).value(), 0);
  EXPECT_EQ(ByteCount(12, 8).value(), 96);
  EXPECT_EQ(ByteCount(int64_t{1} << 60, 4).value(), int64_t{1} << 62);
}

TEST(ByteCountTest, OverflowIsInvalidArgument) {
  const absl::Status status = ByteCount(int64_t{1} << 62, 2).status();
  ExpectInvalidArgument(status, "overflows int64");
  EXPECT_THAT(std::string(status.message()), HasSubstr(std::to_string(int64_t{1} << 62)));
  ExpectInvalidArgument(ByteCount(kInt64Max, 16).status(), "overflows int64");
}

// --- ContiguousStrides ------------------------------------------------------------------------

TEST(ContiguousStridesTest, RowMajorInElements) {
  // np.zeros((2, 3, 4), np.int8).strides == (12, 4, 1)
  EXPECT_EQ(ContiguousStrides(Shape{2, 3, 4}), (Strides{12, 4, 1}));
  EXPECT_EQ(ContiguousStrides(Shape{5}), (Strides{1}));
  EXPECT_EQ(ContiguousStrides(Shape{}), (Strides{}));
}

TEST(ContiguousStridesTest, ZeroExtentsCountAsOne) {
  // NumPy 2.0-2.2: np.empty((2, 0, 3), np.int8).strides == (3, 3, 1) (a zero extent is
  // treated as 1). NumPy 2.4 reports (0, 0, 0) instead; both describe the same empty array.
  EXPECT_EQ(ContiguousStrides(Shape{2, 0, 3}), (Strides{3, 3, 1}));
  EXPECT_EQ(ContiguousStrides(Shape{0}), (Strides{1}));
  EXPECT_EQ(ContiguousStrides(Shape{4, 0}), (Strides{1, 1}));
}

// --- IsCContiguous / IsFContiguous ------------------------------------------------------------

struct Layout {
  std::string_view what;
  Shape shape;
  Strides strides;
  bool c;  // a.flags.c_contiguous
  bool f;  // a.flags.f_contiguous
};

void ExpectFlags(const Layout& layout) {
  EXPECT_EQ(IsCContiguous(layout.shape, layout.strides), layout.c) << layout.what;
  EXPECT_EQ(IsFContiguous(layout.shape, layout.strides), layout.f) << layout.what;
}

TEST(ContiguityTest, COrderArrayIsCContiguousOnly) {
  ExpectFlags({"np.zeros((2,3,4))", {2, 3, 4}, {12, 4, 1}, true, false});
}

TEST(ContiguityTest, FOrderArrayIsFContiguousOnly) {
  ExpectFlags({"np.zeros((2,3,4), order='F')", {2, 3, 4}, {1, 2, 6}, false, true});
}

TEST(ContiguityTest, TransposeOfCArrayIsFContiguousOnly) {
  ExpectFlags({"np.zeros((3,4)).T", {4, 3}, {1, 4}, false, true});
}

TEST(ContiguityTest, SliceWithStepIsNeither) {
  ExpectFlags({"np.zeros((3,4))[:, ::2]", {3, 2}, {4, 2}, false, false});
  ExpectFlags({"np.zeros(8)[::2]", {4}, {2}, false, false});
  ExpectFlags({"np.zeros(4)[::-1]", {4}, {-1}, false, false});
}

TEST(ContiguityTest, RowSliceOfCArrayStaysCContiguous) {
  ExpectFlags({"np.zeros((4,3))[1:3]", {2, 3}, {3, 1}, true, false});
}

TEST(ContiguityTest, OneDimensionalDenseIsBoth) {
  ExpectFlags({"np.zeros(5)", {5}, {1}, true, true});
}

TEST(ContiguityTest, ScalarIsBoth) { ExpectFlags({"np.zeros(())", {}, {}, true, true}); }

TEST(ContiguityTest, SizeOneAxesMayHaveAnyStride) {
  ExpectFlags({"(1,5) with stride 99 on the size-1 axis", {1, 5}, {99, 1}, true, true});
  ExpectFlags({"(3,1) with stride -7 on the size-1 axis", {3, 1}, {1, -7}, true, true});
  ExpectFlags({"(2,1,3) with stride 42 in the middle", {2, 1, 3}, {3, 42, 1}, true, false});
  ExpectFlags({"(1,1) with strides 0", {1, 1}, {0, 0}, true, true});
}

TEST(ContiguityTest, EmptyArrayIsBothWhateverItsStrides) {
  ExpectFlags({"np.zeros((0,3))", {0, 3}, {3, 1}, true, true});
  ExpectFlags({"odd strides", {2, 0, 3}, {5, 7, 11}, true, true});
  ExpectFlags({"np.zeros(0)", {0}, {1}, true, true});
}

// --- FormatShape ------------------------------------------------------------------------------

TEST(FormatShapeTest, MatchesNumPyText) {
  EXPECT_EQ(FormatShape(Shape{}), "()");                // str(np.zeros(()).shape)
  EXPECT_EQ(FormatShape(Shape{5}), "(5,)");             // str(np.zeros(5).shape)
  EXPECT_EQ(FormatShape(Shape{3, 4}), "(3, 4)");        // str(np.zeros((3, 4)).shape)
  EXPECT_EQ(FormatShape(Shape{2, 0, 3}), "(2, 0, 3)");  // str(np.zeros((2, 0, 3)).shape)
  EXPECT_EQ(FormatShape(Shape{-1}), "(-1,)");
}

}  // namespace
}  // namespace arrayhub
