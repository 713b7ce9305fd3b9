// The CPU backend's indexing primitives (indexing.h) against hand-worked NumPy results: gathers
// and scatters with negative, duplicate and out-of-bounds indices, numpy.sort's order for NaN,
// -0.0 and complex classes, scans that wrap, nonzero and searchsorted. The end-to-end tests in
// client_python compare the composed operations with NumPy on random data.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <vector>

#include "server/backend/host/host_backend.h"
#include "server/backend/host/host_types.h"
#include "tests/support/test_queue.h"

namespace arrayhub {
namespace {

using ::testing::ElementsAre;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

class HostIndexingTest : public ::testing::Test {
 protected:
  // A C-contiguous view holding `values` with `shape` (default: 1-D).
  template <typename T>
  ArrayView Place(const std::vector<T>& values, Shape shape = {}) {
    if (shape.empty()) shape = {static_cast<int64_t>(values.size())};
    absl::StatusOr<std::shared_ptr<Buffer>> buffer = backend_.memory().Allocate(
        TestQueue(backend_), static_cast<int64_t>(values.size() * sizeof(T)));
    EXPECT_TRUE(buffer.ok());
    if (!values.empty()) std::memcpy((*buffer)->data(), values.data(), values.size() * sizeof(T));
    buffers_.push_back(*buffer);
    return ArrayView{buffer->get(), 0, host::DTypeOf<T>(), shape, ContiguousStrides(shape)};
  }

  template <typename T>
  std::vector<T> Read(const ArrayView& view, int64_t count) {
    std::vector<T> values(count);
    std::memcpy(values.data(), static_cast<std::byte*>(view.buffer->data()) + view.offset_bytes,
                count * sizeof(T));
    return values;
  }

  HostBackend backend_;
  std::vector<std::shared_ptr<Buffer>> buffers_;
};

TEST_F(HostIndexingTest, GatherWithNegativeAndRepeatedIndices) {
  // x = arange(10.)[::-1]; x[[0, -1, 3, 3]]
  ArrayView data = Place<double>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  ArrayView source = data;
  source.offset_bytes = 9 * sizeof(double);
  source.shape = {4};
  source.strides = {0};
  IndexOperand index{Place<int64_t>({0, -1, 3, 3}), 10, -1, 0};
  ArrayView output = Place<double>({0, 0, 0, 0});
  ASSERT_TRUE(backend_.indexing().Gather(TestQueue(backend_), {source, {index}, output}).ok());
  EXPECT_THAT(Read<double>(output, 4), ElementsAre(9, 0, 6, 6));
}

TEST_F(HostIndexingTest, SortPutsNanLastKeepsSignedZerosStable) {
  ArrayView input = Place<double>({3, kNan, -0.0, 0.0, -1, kNan, -0.0}, {1, 7});
  ArrayView values = Place<double>(std::vector<double>(7));
  values.shape = {1, 7};
  ArrayView indices = Place<int64_t>(std::vector<int64_t>(7));
  ASSERT_TRUE(backend_.indexing().Sort(TestQueue(backend_), {input, values, indices}).ok());
  EXPECT_THAT(Read<int64_t>(indices, 7), ElementsAre(4, 2, 3, 6, 0, 1, 5));
  const std::vector<double> sorted = Read<double>(values, 7);
  EXPECT_EQ(sorted[0], -1);
  EXPECT_TRUE(std::signbit(sorted[1]));
  EXPECT_TRUE(std::isnan(sorted[5]) && std::isnan(sorted[6]));
}

TEST_F(HostIndexingTest, SortOrdersComplexNanClassesAsNumPy) {
  using C = std::complex<double>;
  // numpy.argsort([nan+1j, 2+nanj, 1+0j, nan+nanj, 1+nanj, 0+5j]) == [5, 2, 4, 1, 0, 3]
  ArrayView input =
      Place<C>({C(kNan, 1), C(2, kNan), C(1, 0), C(kNan, kNan), C(1, kNan), C(0, 5)}, {6});
  ArrayView indices = Place<int64_t>(std::vector<int64_t>(6));
  ASSERT_TRUE(backend_.indexing().Sort(TestQueue(backend_), {input, std::nullopt, indices}).ok());
  EXPECT_THAT(Read<int64_t>(indices, 6), ElementsAre(5, 2, 4, 1, 0, 3));
}

TEST_F(HostIndexingTest, SortsEachRow) {
  ArrayView input = Place<int8_t>({3, -2, 1, 0, 5, -7}, {2, 3});
  ArrayView values = Place<int8_t>(std::vector<int8_t>(6), {2, 3});
  ASSERT_TRUE(backend_.indexing().Sort(TestQueue(backend_), {input, values, std::nullopt}).ok());
  EXPECT_THAT(Read<int8_t>(values, 6), ElementsAre(-2, 1, 3, -7, 0, 5));
}

TEST_F(HostIndexingTest, ScansWrapIntegersPerRow) {
  ArrayView data = Place<int8_t>({100, 100, 1, 2, 3, 4}, {2, 3});
  ASSERT_TRUE(backend_.indexing().Scan(TestQueue(backend_), {ScanOp::kSum, data}).ok());
  EXPECT_THAT(Read<int8_t>(data, 6), ElementsAre(100, -56, -55, 2, 5, 9));
  ArrayView product = Place<std::complex<float>>({{0, 1}, {0, 1}, {2, 0}});
  ASSERT_TRUE(backend_.indexing().Scan(TestQueue(backend_), {ScanOp::kProd, product}).ok());
  EXPECT_THAT(Read<std::complex<float>>(product, 3),
              ElementsAre(std::complex<float>(0, 1), std::complex<float>(-1, 0),
                          std::complex<float>(-2, 0)));
}

TEST_F(HostIndexingTest, NonzeroCountsNanAndSkipsNegativeZero) {
  ArrayView input = Place<float>({0, -0.0f, NAN, 2, 0, 1}, {2, 3});
  absl::StatusOr<int64_t> count = backend_.indexing().CountNonzero(TestQueue(backend_), input);
  ASSERT_TRUE(count.ok());
  ASSERT_EQ(*count, 3);
  ArrayView rows = Place<int64_t>({-1, -1, -1});
  ArrayView columns = Place<int64_t>({-1, -1, -1});
  absl::StatusOr<int64_t> found =
      backend_.indexing().Nonzero(TestQueue(backend_), {input, {rows, columns}});
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(*found, 3);
  EXPECT_THAT(Read<int64_t>(rows, 3), ElementsAre(0, 1, 1));
  EXPECT_THAT(Read<int64_t>(columns, 3), ElementsAre(2, 0, 2));
}

TEST_F(HostIndexingTest, NonzeroWritesNoMorePositionsThanItWasGiven) {
  // The input gained nonzero elements since they were counted: the fill stops at the space it
  // has and reports the new count, for core to refuse.
  ArrayView input = Place<int32_t>({1, 1, 1, 1});
  ArrayView positions = Place<int64_t>({-1, -1, -7});
  positions.shape = {2};
  absl::StatusOr<int64_t> found =
      backend_.indexing().Nonzero(TestQueue(backend_), {input, {positions}});
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(*found, 4);
  EXPECT_THAT(Read<int64_t>(positions, 3), ElementsAre(0, 1, -7));
}

TEST_F(HostIndexingTest, SearchSortedLeftAndRightWithNan) {
  ArrayView sorted = Place<double>({1, 2, 2, 3, kNan});
  ArrayView values = Place<double>({2, 0, 4, kNan});
  ArrayView output = Place<int64_t>(std::vector<int64_t>(4));
  ASSERT_TRUE(
      backend_.indexing().SearchSorted(TestQueue(backend_), {sorted, values, false, output}).ok());
  EXPECT_THAT(Read<int64_t>(output, 4), ElementsAre(1, 0, 4, 4));
  ASSERT_TRUE(
      backend_.indexing().SearchSorted(TestQueue(backend_), {sorted, values, true, output}).ok());
  EXPECT_THAT(Read<int64_t>(output, 4), ElementsAre(3, 0, 4, 5));
}

// numpy.histogram(x, bins=edges): bin i takes edges[i] <= x < edges[i + 1], the last bin its
// right edge too; NaN and values outside are not counted; ints, float16 and bools compare as
// doubles; repeated edges leave their bins empty but the last.
TEST_F(HostIndexingTest, HistogramCountsAsNumPy) {
  ArrayView counts = Place<int64_t>(std::vector<int64_t>(3, -1));
  ArrayView edges = Place<double>({0, 1, 2, 4});
  ASSERT_TRUE(backend_.indexing()
                  .Histogram(TestQueue(backend_),
                             {Place<double>({0, 0.5, 1, 1.5, 2, 4, kNan, -1, 4.5, 3.999, 2}), edges,
                              counts})
                  .ok());
  EXPECT_THAT(Read<int64_t>(counts, 3), ElementsAre(2, 2, 4));
  ASSERT_TRUE(
      backend_.indexing()
          .Histogram(TestQueue(backend_), {Place<int32_t>({-3, 0, 1, 2, 3, 4, 5}), edges, counts})
          .ok());
  EXPECT_THAT(Read<int64_t>(counts, 3), ElementsAre(1, 1, 3));
  ASSERT_TRUE(
      backend_.indexing()
          .Histogram(TestQueue(backend_),
                     {Place<host::Half>({host::Half(0.5f), host::Half(2.0f), host::Half(4.0f)}),
                      edges, counts})
          .ok());
  EXPECT_THAT(Read<int64_t>(counts, 3), ElementsAre(1, 0, 2));
  ArrayView flags = Place<uint8_t>({1, 0, 1});
  flags.dtype = DType::kBool;
  ASSERT_TRUE(backend_.indexing().Histogram(TestQueue(backend_), {flags, edges, counts}).ok());
  EXPECT_THAT(Read<int64_t>(counts, 3), ElementsAre(1, 2, 0));
  ArrayView repeated = Place<double>({0, 1, 1, 1});
  ASSERT_TRUE(backend_.indexing()
                  .Histogram(TestQueue(backend_), {Place<double>({0, 1, 1, 0.5}), repeated, counts})
                  .ok());
  EXPECT_THAT(Read<int64_t>(counts, 3), ElementsAre(2, 0, 2));
  ASSERT_TRUE(
      backend_.indexing().Histogram(TestQueue(backend_), {Place<double>({}), edges, counts}).ok());
  EXPECT_THAT(Read<int64_t>(counts, 3), ElementsAre(0, 0, 0));
}

}  // namespace
}  // namespace arrayhub
