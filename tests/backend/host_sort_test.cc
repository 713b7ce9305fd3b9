// The CPU backend's sorts and scans over rows longer than one block (host_sort.cc sorts blocks
// and merges them, with a stop point after each piece): the same stable order as one
// std::stable_sort, and a stop that ends the call with its signal's status.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "server/backend/host/host_backend.h"
#include "server/backend/host/host_types.h"
#include "server/common/stop_signal.h"
#include "tests/support/test_queue.h"

namespace arrayhub {
namespace {

// Rows of three blocks and a part (host_sort.cc sorts blocks of 2^16 elements).
constexpr int64_t kRow = 3 * (int64_t{1} << 16) + 1234;

class HostSortTest : public ::testing::Test {
 protected:
  template <typename T>
  ArrayView Place(const std::vector<T>& values, const Shape& shape) {
    std::shared_ptr<Buffer> buffer =
        backend_.memory()
            .Allocate(TestQueue(backend_), static_cast<int64_t>(values.size() * sizeof(T)))
            .value();
    std::memcpy(buffer->data(), values.data(), values.size() * sizeof(T));
    buffers_.push_back(buffer);
    return ArrayView{buffer.get(), 0, host::DTypeOf<T>(), shape, ContiguousStrides(shape)};
  }

  template <typename T>
  std::vector<T> Read(const ArrayView& view, size_t count) {
    std::vector<T> values(count);
    std::memcpy(values.data(), view.buffer->data(), count * sizeof(T));
    return values;
  }

  HostBackend backend_;
  std::vector<std::shared_ptr<Buffer>> buffers_;
};

TEST_F(HostSortTest, LongRowsSortStablyAsOneStableSort) {
  // Few distinct values, so that stability decides most of the order.
  std::mt19937 random(17);
  std::vector<int16_t> values(2 * kRow);
  for (int16_t& value : values) value = static_cast<int16_t>(random() % 50);
  const ArrayView input = Place(values, {2, kRow});
  const ArrayView indices = Place(std::vector<int64_t>(values.size()), {2, kRow});
  const ArrayView sorted = Place(std::vector<int16_t>(values.size()), {2, kRow});
  ASSERT_TRUE(backend_.indexing().Sort(TestQueue(backend_), {input, sorted, indices}).ok());

  const std::vector<int64_t> got = Read<int64_t>(indices, values.size());
  const std::vector<int16_t> got_values = Read<int16_t>(sorted, values.size());
  for (int64_t row = 0; row < 2; ++row) {
    std::vector<int64_t> expected(kRow);
    std::iota(expected.begin(), expected.end(), 0);
    const int16_t* row_values = values.data() + row * kRow;
    std::stable_sort(expected.begin(), expected.end(),
                     [&](int64_t a, int64_t b) { return row_values[a] < row_values[b]; });
    EXPECT_TRUE(std::equal(expected.begin(), expected.end(), got.begin() + row * kRow));
    for (int64_t i = 0; i < kRow; ++i) {
      ASSERT_EQ(got_values[row * kRow + i], row_values[expected[i]])
          << "row " << row << " at " << i;
    }
  }
}

TEST_F(HostSortTest, LongScansMatchTheSequentialSum) {
  std::vector<int64_t> values(kRow);
  std::iota(values.begin(), values.end(), 1);
  const ArrayView data = Place(values, {kRow});
  ASSERT_TRUE(backend_.indexing().Scan(TestQueue(backend_), {ScanOp::kSum, data}).ok());
  std::partial_sum(values.begin(), values.end(), values.begin());
  EXPECT_EQ(Read<int64_t>(data, values.size()), values);
}

class Stop final : public StopSignal {
 public:
  absl::Status Check() const override { return absl::UnavailableError("draining"); }
};

TEST_F(HostSortTest, AStopEndsSortsAndScansWithTheSignalsStatus) {
  std::vector<double> values(int64_t{1} << 22);
  std::iota(values.rbegin(), values.rend(), 0.0);
  const Shape shape = {static_cast<int64_t>(values.size())};
  const ArrayView input = Place(values, shape);
  const ArrayView indices = Place(std::vector<int64_t>(values.size()), shape);
  const Stop stop;
  const ScopedStopSignal scope(&stop);
  const absl::Status sorted =
      backend_.indexing().Sort(TestQueue(backend_), {input, std::nullopt, indices});
  EXPECT_EQ(sorted.code(), absl::StatusCode::kUnavailable) << sorted;
  const absl::Status scanned = backend_.indexing().Scan(TestQueue(backend_), {ScanOp::kSum, input});
  EXPECT_EQ(scanned.code(), absl::StatusCode::kUnavailable) << scanned;
}

}  // namespace
}  // namespace arrayhub
