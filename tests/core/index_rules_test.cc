// NumPy's indexing rules on layouts, with NumPy 2.4's answers: each case names the NumPy
// expression it was taken from (strides are NumPy's divided by the itemsize).

#include "server/core/index_rules.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

namespace arrayhub {
namespace {

using Kind = IndexEntry::Kind;

constexpr int64_t kItem = 8;
constexpr int64_t kMaxRank = 64;

IndexEntry Int(int64_t i) { return {.kind = Kind::kInteger, .integer = i}; }
IndexEntry Sl(std::optional<int64_t> start = std::nullopt,
              std::optional<int64_t> stop = std::nullopt, int64_t step = 1) {
  return {.kind = Kind::kSlice, .slice = {.start = start, .stop = stop, .step = step}};
}
IndexEntry Dots() { return {.kind = Kind::kEllipsis}; }
IndexEntry NewAxis() { return {.kind = Kind::kNewAxis}; }
IndexEntry IntArray(Shape shape) { return {.kind = Kind::kIntArray, .array_shape = shape}; }
IndexEntry BoolArray(Shape shape, int64_t nonzero) {
  return {.kind = Kind::kBoolArray, .array_shape = shape, .nonzero_count = nonzero};
}

const Layout kVector{{10}, {1}, 0};            // np.arange(10)
const Layout kMatrix{{3, 4}, {4, 1}, 0};       // np.zeros((3, 4))
const Layout kCube{{2, 3, 4}, {12, 4, 1}, 0};  // np.zeros((2, 3, 4))

IndexPlan Plan(const Layout& data, const std::vector<IndexEntry>& entries,
               int64_t max_rank = kMaxRank) {
  absl::StatusOr<IndexPlan> plan = PlanIndex(data, kItem, entries, Limits{.max_rank = max_rank});
  EXPECT_TRUE(plan.ok()) << plan.status();
  return plan.ok() ? *std::move(plan) : IndexPlan{};
}

void ExpectView(const Layout& data, const std::vector<IndexEntry>& entries, const Shape& shape,
                const Strides& strides, int64_t first_element) {
  const IndexPlan plan = Plan(data, entries);
  EXPECT_FALSE(plan.advanced);
  EXPECT_EQ(plan.layout.shape, shape);
  EXPECT_EQ(plan.layout.strides, strides);
  EXPECT_EQ(plan.layout.offset_bytes, data.offset_bytes + first_element * kItem);
}

void ExpectError(const Layout& data, const std::vector<IndexEntry>& entries,
                 std::string_view message, int64_t max_rank = kMaxRank) {
  const absl::StatusOr<IndexPlan> plan =
      PlanIndex(data, kItem, entries, Limits{.max_rank = max_rank});
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(plan.status().message()), message);
}

// --- basic indexing: views -------------------------------------------------------------------

TEST(PlanIndexTest, SlicesFollowPythonsSliceIndices) {
  // np.arange(10)[::-1], [8:2:-2], [-3:], [1::3], [5:5], [3:1]
  ExpectView(kVector, {Sl(std::nullopt, std::nullopt, -1)}, {10}, {-1}, 9);
  ExpectView(kVector, {Sl(8, 2, -2)}, {3}, {-2}, 8);
  ExpectView(kVector, {Sl(-3)}, {3}, {1}, 7);
  ExpectView(kVector, {Sl(1, std::nullopt, 3)}, {3}, {3}, 1);
  ExpectView(kVector, {Sl(5, 5)}, {0}, {1}, 0);
  ExpectView(kVector, {Sl(3, 1)}, {0}, {1}, 0);
  // Bounds beyond the axis clamp: [-100:100], [100::-1], [:-100:-1], [-100::-1], [:100:-1]
  ExpectView(kVector, {Sl(-100, 100)}, {10}, {1}, 0);
  ExpectView(kVector, {Sl(100, std::nullopt, -1)}, {10}, {-1}, 9);
  ExpectView(kVector, {Sl(std::nullopt, -100, -1)}, {10}, {-1}, 9);
  ExpectView(kVector, {Sl(-100, std::nullopt, -1)}, {0}, {-1}, 0);
  ExpectView(kVector, {Sl(std::nullopt, 100, -1)}, {0}, {-1}, 0);
  // Steps longer than the axis, and the most negative step Python allows.
  ExpectView(kVector, {Sl(2, std::nullopt, 100)}, {1}, {100}, 2);
  ExpectView(kVector, {Sl(std::nullopt, std::nullopt, std::numeric_limits<int64_t>::min())}, {1},
             {std::numeric_limits<int64_t>::min() + 1}, 9);
}

TEST(PlanIndexTest, SlicesOfAViewKeepItsOffsetAndStrides) {
  // np.zeros((3, 8))[:, 1::2] viewed again as [::-1, 1:]
  const Layout view{{3, 4}, {8, 2}, 8};
  ExpectView(view, {Sl(std::nullopt, std::nullopt, -1), Sl(1)}, {3, 3}, {-8, 2}, 2 * 8 + 2);
}

TEST(PlanIndexTest, IntegersDropTheirAxis) {
  // np.zeros((3, 4))[1], [-1, -2], [:, 3]
  ExpectView(kMatrix, {Int(1)}, {4}, {1}, 4);
  ExpectView(kMatrix, {Int(-1), Int(-2)}, {}, {}, 2 * 4 + 2);
  ExpectView(kMatrix, {Sl(), Int(3)}, {3}, {4}, 3);
}

TEST(PlanIndexTest, EllipsisFillsTheMissingAxes) {
  // np.zeros((2, 3, 4))[..., 1], [0, ...], [...], [0, 0, 0, ...], [0, ..., ::2]
  ExpectView(kCube, {Dots(), Int(1)}, {2, 3}, {12, 4}, 1);
  ExpectView(kCube, {Int(0), Dots()}, {3, 4}, {4, 1}, 0);
  ExpectView(kCube, {Dots()}, {2, 3, 4}, {12, 4, 1}, 0);
  ExpectView(kCube, {Int(1), Int(1), Int(1), Dots()}, {}, {}, 12 + 4 + 1);
  ExpectView(kCube, {Int(1), Dots(), Sl(std::nullopt, std::nullopt, 2)}, {3, 2}, {4, 2}, 12);
  // Fewer entries than axes: the rest are taken whole, as after an ellipsis.
  ExpectView(kCube, {Sl(1)}, {1, 3, 4}, {12, 4, 1}, 12);
}

TEST(PlanIndexTest, NewAxisAddsAxesOfLengthOne) {
  // np.zeros((3, 4))[None, ..., None], [:, None, 2], np.arange(10)[None, 0]
  ExpectView(kMatrix, {NewAxis(), Dots(), NewAxis()}, {1, 3, 4, 1}, {0, 4, 1, 0}, 0);
  ExpectView(kMatrix, {Sl(), NewAxis(), Int(2)}, {3, 1}, {4, 0}, 2);
  ExpectView(kVector, {NewAxis(), Int(0)}, {1}, {0}, 0);
  ExpectError(kMatrix, {NewAxis()},
              "the result of indexing has 3 dimensions; the server allows at most 2 (--max-rank)",
              2);
}

TEST(PlanIndexTest, BasicIndexErrorsQuoteNumPy) {
  // np.zeros((3, 4))[3], [0, -5], np.zeros(10)[0, 0], np.zeros((3, 4))[..., ...]
  ExpectError(kMatrix, {Int(3)}, "index 3 is out of bounds for axis 0 with size 3");
  ExpectError(kMatrix, {Int(0), Int(-5)}, "index -5 is out of bounds for axis 1 with size 4");
  ExpectError(kVector, {Int(0), Int(0)},
              "too many indices for array: array is 1-dimensional, but 2 were indexed");
  ExpectError(kMatrix, {Int(0), Sl(), NewAxis(), Sl()},
              "too many indices for array: array is 2-dimensional, but 3 were indexed");
  ExpectError({{}, {}, 0}, {Int(0)},
              "too many indices for array: array is 0-dimensional, but 1 were indexed");
  ExpectError(kMatrix, {Dots(), Dots()}, "an index can only have a single ellipsis ('...')");
  ExpectError(kMatrix, {Dots(), Int(0), Dots()},
              "an index can only have a single ellipsis ('...')");
}

// --- advanced indexing: gathers --------------------------------------------------------------

void ExpectAdvanced(const IndexPlan& plan, const Shape& shape, const Strides& strides,
                    size_t block_start, const Shape& block_shape, int64_t first_element = 0) {
  EXPECT_TRUE(plan.advanced);
  EXPECT_EQ(plan.layout.shape, shape);
  EXPECT_EQ(plan.layout.strides, strides);
  EXPECT_EQ(plan.block_start, block_start);
  EXPECT_EQ(plan.block_shape, block_shape);
  EXPECT_EQ(plan.layout.offset_bytes, first_element * kItem);
}

TEST(PlanIndexTest, AdjacentIndexArraysStayInPlace) {
  // np.zeros((2, 3, 4))[:, [0, 1, 2, 0, 1]].shape == (2, 5, 4)
  IndexPlan plan = Plan(kCube, {Sl(), IntArray({5}), Sl()});
  ExpectAdvanced(plan, {2, 5, 4}, {12, 0, 1}, 1, {5});
  ASSERT_EQ(plan.arrays.size(), 1u);
  EXPECT_EQ(plan.arrays[0].entry, 1u);
  EXPECT_EQ(plan.arrays[0].axis, 1);
  EXPECT_EQ(plan.arrays[0].extent, 3);
  EXPECT_EQ(plan.arrays[0].stride, 4);
  EXPECT_EQ(plan.arrays[0].shape, Shape({5}));
  // Two adjacent arrays broadcast together: a[i, j] with i (2, 1), j (3,) -> (2, 3, 4).
  plan = Plan(kCube, {IntArray({2, 1}), IntArray({3})});
  ExpectAdvanced(plan, {2, 3, 4}, {0, 0, 1}, 0, {2, 3});
  ASSERT_EQ(plan.arrays.size(), 2u);
  EXPECT_EQ(plan.arrays[1].axis, 1);
  EXPECT_EQ(plan.arrays[1].stride, 4);
  // After an ellipsis: np.zeros((2, 3, 4))[..., [1, 2]].shape == (2, 3, 2)
  ExpectAdvanced(Plan(kCube, {Dots(), IntArray({2})}), {2, 3, 2}, {12, 4, 0}, 2, {2});
  // A 0-d index array drops its axis like an integer: a[:, np.array(1)].shape == (2, 4)
  ExpectAdvanced(Plan(kCube, {Sl(), IntArray({})}), {2, 4}, {12, 1}, 1, {});
}

TEST(PlanIndexTest, SeparatedIndexArraysGoFirst) {
  // np.zeros((2, 3, 4))[[0, 1, 1, 0, 1], :, [0, 1, 2, 3, 0]].shape == (5, 3)
  IndexPlan plan = Plan(kCube, {IntArray({5}), Sl(), IntArray({5})});
  ExpectAdvanced(plan, {5, 3}, {0, 4}, 0, {5});
  ASSERT_EQ(plan.arrays.size(), 2u);
  EXPECT_EQ(plan.arrays[0].axis, 0);
  EXPECT_EQ(plan.arrays[1].axis, 2);
  // A new axis between them separates them too: a[[0, 1], None, [0, 1]].shape == (2, 1, 4)
  ExpectAdvanced(Plan(kCube, {IntArray({2}), NewAxis(), IntArray({2})}), {2, 1, 4}, {0, 0, 1}, 0,
                 {2});
}

TEST(PlanIndexTest, IntegersCountAsIndexArraysForPlacement) {
  // np.zeros((2, 3, 4))[:, 1, [0, 1, 2, 3, 0]].shape == (2, 5): adjacent, in place.
  ExpectAdvanced(Plan(kCube, {Sl(), Int(1), IntArray({5})}), {2, 5}, {12, 0}, 1, {5}, 4);
  // np.zeros((2, 3, 4))[1, :, [0, 1, 2, 3, 0]].shape == (5, 3): separated by a slice, first.
  ExpectAdvanced(Plan(kCube, {Int(1), Sl(), IntArray({5})}), {5, 3}, {0, 4}, 0, {5}, 12);
  // Integers alone are basic indexing, wherever they are.
  ExpectView(kCube, {Int(1), Sl(), Int(2)}, {3}, {4}, 12 + 2);
}

TEST(PlanIndexTest, SlicesAroundIndexArraysMoveTheOffset) {
  // np.zeros((2, 3, 4))[1:, [2, 0], ::-1].shape == (1, 2, 4)
  ExpectAdvanced(Plan(kCube, {Sl(1), IntArray({2}), Sl(std::nullopt, std::nullopt, -1)}), {1, 2, 4},
                 {12, 0, -1}, 1, {2}, 12 + 3);
}

TEST(PlanIndexTest, BooleanArraysStandForTheirNonzeroCoordinates) {
  // m = np.zeros((3, 4), bool) with 5 True: np.zeros((3, 4))[m].shape == (5,)
  IndexPlan plan = Plan(kMatrix, {BoolArray({3, 4}, 5)});
  ExpectAdvanced(plan, {5}, {0}, 0, {5});
  ASSERT_EQ(plan.arrays.size(), 2u);
  for (int component = 0; component < 2; ++component) {
    EXPECT_EQ(plan.arrays[component].entry, 0u);
    EXPECT_EQ(plan.arrays[component].component, component);
    EXPECT_EQ(plan.arrays[component].axis, component);
    EXPECT_EQ(plan.arrays[component].shape, Shape({5}));
  }
  EXPECT_EQ(plan.arrays[1].extent, 4);
  // np.zeros((3, 4))[[True, False, True]].shape == (2, 4); [:, mask of 4 with 3 True] (3, 3)
  ExpectAdvanced(Plan(kMatrix, {BoolArray({3}, 2)}), {2, 4}, {0, 1}, 0, {2});
  ExpectAdvanced(Plan(kMatrix, {Sl(), BoolArray({4}, 3)}), {3, 3}, {4, 0}, 1, {3});
  // A mask with no True gives an empty selection.
  ExpectAdvanced(Plan(kCube, {Int(0), BoolArray({3, 4}, 0)}), {0}, {0}, 0, {0}, 0);
  // A boolean array consumes as many axes as it has: a[m, 0] with m (2, 3) on (2, 3, 4).
  ExpectAdvanced(Plan(kCube, {BoolArray({2, 3}, 4), Int(0)}), {4}, {0}, 0, {4});
}

TEST(PlanIndexTest, ZeroDimensionalBooleansAddAnAxisThatTheyIndex) {
  // np.zeros((3, 4))[True].shape == (1, 3, 4); [False] (0, 3, 4). The index moves along no
  // data axis: one entry, extent 1, stride 0.
  IndexPlan plan = Plan(kMatrix, {BoolArray({}, 1)});
  ExpectAdvanced(plan, {1, 3, 4}, {0, 4, 1}, 0, {1});
  ASSERT_EQ(plan.arrays.size(), 1u);
  EXPECT_EQ(plan.arrays[0].extent, 1);
  EXPECT_EQ(plan.arrays[0].stride, 0);
  ExpectAdvanced(Plan(kMatrix, {BoolArray({}, 0)}), {0, 3, 4}, {0, 4, 1}, 0, {0});
  // a[True, 0] on (2, 3, 4) is (1, 3, 4): the boolean and the integer form one block.
  ExpectAdvanced(Plan(kCube, {BoolArray({}, 1), Int(0)}), {1, 3, 4}, {0, 4, 1}, 0, {1});
  // a[..., False] puts the empty block last: (2, 3, 4, 0).
  ExpectAdvanced(Plan(kCube, {Dots(), BoolArray({}, 0)}), {2, 3, 4, 0}, {12, 4, 1, 0}, 3, {0});
  // a[np.array(True), [0, 1]] broadcasts (1,) with (2,): (2, 3, 4).
  ExpectAdvanced(Plan(kCube, {BoolArray({}, 1), IntArray({2})}), {2, 3, 4}, {0, 4, 1}, 0, {2});
}

TEST(PlanIndexTest, EmptyMasksOfAnyShapeSelectNothing) {
  // NumPy skips the shape check for a mask with no elements: np.zeros((3, 4))[np.zeros(0,
  // bool)].shape == (0, 4), [:, np.zeros(0, bool)] (3, 0), and a (3, 0) mask gives (0,).
  ExpectAdvanced(Plan(kMatrix, {BoolArray({0}, 0)}), {0, 4}, {0, 1}, 0, {0});
  ExpectAdvanced(Plan(kMatrix, {Sl(), BoolArray({0}, 0)}), {3, 0}, {4, 0}, 1, {0});
  ExpectAdvanced(Plan(kMatrix, {BoolArray({3, 0}, 0)}), {0}, {0}, 0, {0});
}

TEST(PlanIndexTest, AdvancedIndexErrorsQuoteNumPy) {
  // np.zeros((3, 4))[np.zeros(4, bool)]
  ExpectError(kMatrix, {BoolArray({4}, 0)},
              "boolean index did not match indexed array along axis 0; size of axis is 3 but "
              "size of corresponding boolean axis is 4");
  ExpectError(kMatrix, {Sl(), BoolArray({3}, 0)},
              "boolean index did not match indexed array along axis 1; size of axis is 4 but "
              "size of corresponding boolean axis is 3");
  // np.zeros(10)[np.zeros((2, 5), bool)]
  ExpectError(kVector, {BoolArray({2, 5}, 0)},
              "too many indices for array: array is 1-dimensional, but 2 were indexed");
  // np.zeros((3, 4))[np.zeros(2, int), np.zeros(3, int)] (NumPy ends with a space)
  ExpectError(kMatrix, {IntArray({2}), IntArray({3})},
              "shape mismatch: indexing arrays could not be broadcast together with shapes (2,) "
              "(3,) ");
  ExpectError(kMatrix, {IntArray({2, 2, 2}), Sl()},
              "the result of indexing has 4 dimensions; the server allows at most 3 (--max-rank)",
              3);
}

TEST(PlanIndexTest, SelectionsAreHeldToTheElementLimit) {
  // np.zeros((3, 4))[np.zeros((2**20, 1), int), np.zeros((1, 2**20), int)] selects 2**40
  // elements: a scatter through it would write every one of them.
  const absl::StatusOr<IndexPlan> plan =
      PlanIndex(kMatrix, kItem, {IntArray({1 << 20, 1}), IntArray({1, 1 << 20})}, Limits{});
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(std::string(plan.status().message()),
            "the result of indexing (1048576, 1048576) has 1099511627776 elements; the server "
            "allows at most 68719476736 elements per array (--max-array-elements)");
}

// NumPy prints the shapes without spaces, each followed by a space.
TEST(PlanIndexTest, ShapeMismatchQuotesNumPyExactly) {
  // np.zeros((3, 4))[np.zeros((2, 3), int), np.zeros(4, int)]
  ExpectError(kMatrix, {IntArray({2, 3}), IntArray({4})},
              "shape mismatch: indexing arrays could not be broadcast together with shapes (2,3) "
              "(4,) ");
}

}  // namespace
}  // namespace arrayhub
