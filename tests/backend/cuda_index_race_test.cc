// Index arrays and nonzero and partition inputs rewritten while gathers, scatters, nonzero and
// partition read them: a
// writer thread flips them on a queue of its own, with no fence against the reader (as a client
// process writing the array through CUDA IPC would), while the reader keeps calling. Every call
// must answer OK or INVALID_ARGUMENT, never touch memory outside its arrays (the device would
// fault, poisoning the context, and compute-sanitizer's memcheck reports any out-of-bounds
// access), and write only what a consistent reading of its input allows. Runs only with a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "server/backend/cuda/cuda_backend.h"
#include "tests/backend/backend_io.h"
#include "tests/backend/cuda_fixture.h"
#include "tests/support/status_assert.h"
#include "tests/support/test_queue.h"

namespace arrayhub {
namespace {

constexpr int64_t kIndices = int64_t{1} << 20;  // Positions of each gather and scatter.
constexpr int64_t kExtent = int64_t{1} << 16;   // The indexed axis.
constexpr int64_t kOutside = int64_t{1} << 40;  // An index far outside it.
constexpr int64_t kNonzeroInput = int64_t{1} << 22;
constexpr int kCalls = 200;  // Reader calls per test.

template <class T>
std::array<std::byte, sizeof(T)> PatternOf(T value) {
  std::array<std::byte, sizeof(T)> bytes;
  std::memcpy(bytes.data(), &value, sizeof(T));
  return bytes;
}

ArrayView Vector(Buffer& buffer, DType dtype, int64_t count, int64_t stride = 1) {
  return ArrayView{
      .buffer = &buffer, .offset_bytes = 0, .dtype = dtype, .shape = {count}, .strides = {stride}};
}

class IndexRaceTest : public CudaFixture {
 protected:
  // Flips the first `count` elements of `buffer` between `a` and `b` (patterns of one element)
  // on a queue of its own until Stop(), waiting for its queue every few flips so that it never
  // runs far ahead of the reader. Returns once the first flips are done. The buffer's earlier
  // work must be done (the writer does not wait for it).
  template <size_t N>
  void StartWriter(std::shared_ptr<Buffer> buffer, int64_t count, std::array<std::byte, N> a,
                   std::array<std::byte, N> b) {
    writer_ = std::thread([this, buffer, count, a, b] {
      absl::StatusOr<std::shared_ptr<WorkQueue>> queue = cuda_->queues().NewQueue("writer");
      if (!queue.ok()) {
        writer_status_ = queue.status();
        started_ = true;
        return;
      }
      const auto bound = cuda_->queues().Bind(*queue, "flip");
      std::byte probe[1];
      while (!stop_) {
        for (int i = 0; i < 8 && writer_status_.ok(); ++i) {
          writer_status_.Update(
              cuda_->memory().FillPattern(*bound, *buffer, 0, count, N, i % 2 == 0 ? a : b));
        }
        writer_status_.Update(
            cuda_->memory().CopyToHost(*bound, *buffer, 0, probe));  // Waits for the flips.
        started_ = true;
        if (!writer_status_.ok()) return;
      }
    });
    while (!started_) std::this_thread::yield();
  }

  // A new buffer of `count` elements, each `value`'s bytes.
  template <size_t N>
  absl::StatusOr<std::shared_ptr<Buffer>> Filled(int64_t count, std::array<std::byte, N> value) {
    absl::StatusOr<std::shared_ptr<Buffer>> buffer =
        cuda_->memory().Allocate(TestQueue(*cuda_), count * int64_t{N});
    if (!buffer.ok()) return buffer;
    if (absl::Status filled =
            cuda_->memory().FillPattern(TestQueue(*cuda_), **buffer, 0, count, N, value);
        !filled.ok()) {
      return filled;
    }
    return buffer;
  }

  // kIndices int64 indices into an axis of kExtent, 0 at first and then flipping between 0 and
  // `outside` (StartWriter) while the test goes on.
  absl::StatusOr<std::shared_ptr<Buffer>> FlippingIndices(int64_t outside) {
    absl::StatusOr<std::shared_ptr<Buffer>> indices = Filled(kIndices, PatternOf<int64_t>(0));
    if (!indices.ok()) return indices;
    if (auto done = Download<int64_t>(*cuda_, **indices, 1); !done.ok()) return done.status();
    StartWriter(*indices, kIndices, PatternOf<int64_t>(0), PatternOf<int64_t>(outside));
    return indices;
  }

  // The one index operand of the gathers and scatters: `indices` into axis 0, of kExtent.
  static std::vector<IndexOperand> IndexOperands(Buffer& indices) {
    return {{.indices = Vector(indices, DType::kInt64, kIndices),
             .extent = kExtent,
             .stride = 1,
             .axis = 0}};
  }

  void Stop() {
    stop_ = true;
    if (writer_.joinable()) writer_.join();
    EXPECT_TRUE(writer_status_.ok()) << writer_status_;
  }

  void TearDown() override { Stop(); }

  std::thread writer_;
  std::atomic<bool> started_{false};
  std::atomic<bool> stop_{false};
  absl::Status writer_status_;
};

// data[indices] where the indices flip between 0 and 2^40: each gather fails with NumPy's
// message or returns data[0] everywhere, and the device stays usable.
TEST_F(IndexRaceTest, GathersOfIndicesRewrittenMeanwhileStayInside) {
  AH_TEST_ASSIGN(const std::shared_ptr<Buffer> data, Filled(kExtent, PatternOf<int64_t>(42)));
  AH_TEST_ASSIGN(const std::shared_ptr<Buffer> output,
                 cuda_->memory().Allocate(TestQueue(*cuda_), kIndices * 8));
  AH_TEST_ASSIGN(const std::shared_ptr<Buffer> indices, FlippingIndices(kOutside));

  const GatherCall call{.source = Vector(*data, DType::kInt64, kIndices, 0),
                        .indices = IndexOperands(*indices),
                        .output = Vector(*output, DType::kInt64, kIndices)};
  int refused = 0;
  for (int i = 0; i < kCalls; ++i) {
    const absl::Status status = cuda_->indexing().Gather(TestQueue(*cuda_), call);
    if (status.code() == absl::StatusCode::kInvalidArgument) {
      ++refused;
      continue;
    }
    ASSERT_TRUE(status.ok()) << "call " << i << ": " << status;
    AH_TEST_ASSIGN(const std::vector<int64_t> got, Download<int64_t>(*cuda_, *output));
    ASSERT_EQ(std::count(got.begin(), got.end(), 42), kIndices) << "call " << i;
  }
  Stop();
  EXPECT_GT(refused, 0) << "the writer never showed the gathers an index out of bounds";
  ASSERT_TRUE(
      cuda_->memory()
          .FillPattern(TestQueue(*cuda_), *indices, 0, kIndices, 8, PatternOf<int64_t>(kExtent - 1))
          .ok());
  EXPECT_TRUE(cuda_->indexing().Gather(TestQueue(*cuda_), call).ok())
      << "the device no longer works";
}

// data[indices] = 5 where the indices flip between 0 and 2^40 + 12345: each scatter writes data[0]
// or nothing, every other element keeps its 7, and the device stays usable. (The bad index's low
// 32 bits are those of a valid one, 12345, not 0: a destination key truncated to 32 bits, as the
// code before this test let one be, then lands inside the array, on an element that must stay 7.
// With -2^40, truncated to 0, that code passed.)
TEST_F(IndexRaceTest, ScattersThroughIndicesRewrittenMeanwhileWriteOnlyInside) {
  AH_TEST_ASSIGN(const std::shared_ptr<Buffer> data, Filled(kExtent, PatternOf<int64_t>(7)));
  AH_TEST_ASSIGN(const std::shared_ptr<Buffer> five, Filled(1, PatternOf<int64_t>(5)));
  AH_TEST_ASSIGN(const std::shared_ptr<Buffer> indices, FlippingIndices(kOutside + 12345));

  const ScatterCall call{.target = Vector(*data, DType::kInt64, kIndices, 0),
                         .indices = IndexOperands(*indices),
                         .values = Vector(*five, DType::kInt64, kIndices, 0)};
  int refused = 0;
  for (int i = 0; i < kCalls; ++i) {
    const absl::Status status = cuda_->indexing().Scatter(TestQueue(*cuda_), call);
    if (status.code() == absl::StatusCode::kInvalidArgument) {
      ++refused;
      continue;
    }
    ASSERT_TRUE(status.ok()) << "call " << i << ": " << status;
  }
  Stop();
  EXPECT_GT(refused, 0) << "the writer never showed the scatters an index out of bounds";
  absl::StatusOr<std::vector<int64_t>> got = Download<int64_t>(*cuda_, *data);
  ASSERT_TRUE(got.ok()) << "the device no longer works: " << got.status();
  for (int64_t i = 1; i < kExtent; ++i) ASSERT_EQ((*got)[i], 7) << "element " << i;
}

// nonzero of an int8 array that flips between all zeros and all ones, into coordinates of a
// fixed length L followed by a guard element: each call reports how many it found (n), writes
// strictly increasing positions into the first min(n, L) and nothing after them.
TEST_F(IndexRaceTest, NonzeroOfAnInputRewrittenMeanwhileWritesWhatItCounted) {
  constexpr int64_t kLimit = kNonzeroInput / 2;
  AH_TEST_ASSIGN(const std::shared_ptr<Buffer> input, Filled(kNonzeroInput, PatternOf<int8_t>(0)));
  AH_TEST_ASSIGN(const std::shared_ptr<Buffer> coordinates,
                 cuda_->memory().Allocate(TestQueue(*cuda_), (kLimit + 1) * 8));
  ASSERT_TRUE(Download<int8_t>(*cuda_, *input, 1).ok());
  StartWriter(input, kNonzeroInput, PatternOf<int8_t>(0), PatternOf<int8_t>(1));

  const NonzeroCall call{.input = Vector(*input, DType::kInt8, kNonzeroInput),
                         .coordinates = {Vector(*coordinates, DType::kInt64, kLimit)}};
  int64_t most = 0;
  for (int i = 0; i < kCalls / 2; ++i) {
    ASSERT_TRUE(
        cuda_->memory()
            .FillPattern(TestQueue(*cuda_), *coordinates, 0, kLimit + 1, 8, PatternOf<int64_t>(-1))
            .ok());
    const absl::StatusOr<int64_t> found = cuda_->indexing().Nonzero(TestQueue(*cuda_), call);
    ASSERT_TRUE(found.ok()) << "call " << i << ": " << found.status();
    ASSERT_GE(*found, 0);
    ASSERT_LE(*found, kNonzeroInput);
    most = std::max(most, *found);
    AH_TEST_ASSIGN(const std::vector<int64_t> got, Download<int64_t>(*cuda_, *coordinates));
    const int64_t written = std::min(*found, kLimit);
    for (int64_t r = 0; r <= kLimit; ++r) {
      const int64_t at = got[r];
      if (r >= written) {
        ASSERT_EQ(at, -1) << "call " << i << " found " << *found << ", wrote rank " << r;
      } else {
        ASSERT_TRUE(at >= 0 && at < kNonzeroInput && (r == 0 || at > got[r - 1]))
            << "call " << i << " found " << *found << ": rank " << r << " is position " << at
            << " after " << (r == 0 ? -1 : got[r - 1]);
      }
    }
  }
  Stop();
  EXPECT_GT(most, kLimit) << "the writer never showed nonzero more than the coordinates hold";
}

// A partition whose input flips between 1.0 and -1.0 while it selects (core passes contiguous
// rows in place): whatever its histogram passes saw, every output position is written exactly
// once (no -7 sentinel survives, positions form a permutation), with values of the input's two
// states. The selection itself may mix states; NumPy promises nothing under a racing writer.
TEST_F(IndexRaceTest, PartitionOfAnInputRewrittenMeanwhileFillsEveryPosition) {
  constexpr int64_t kRow = int64_t{1} << 21;  // Long enough to select (PartitionSelects).
  AH_TEST_ASSIGN(const std::shared_ptr<Buffer> input, Filled(kRow, PatternOf<float>(1.0f)));
  AH_TEST_ASSIGN(const std::shared_ptr<Buffer> values,
                 cuda_->memory().Allocate(TestQueue(*cuda_), kRow * 4));
  AH_TEST_ASSIGN(const std::shared_ptr<Buffer> indices,
                 cuda_->memory().Allocate(TestQueue(*cuda_), kRow * 8));
  ASSERT_TRUE(Download<float>(*cuda_, *input, 1).ok());
  StartWriter(input, kRow, PatternOf<float>(1.0f), PatternOf<float>(-1.0f));
  for (int i = 0; i < kCalls / 10; ++i) {
    ASSERT_TRUE(cuda_->memory()
                    .FillPattern(TestQueue(*cuda_), *values, 0, kRow, 4, PatternOf<float>(-7.0f))
                    .ok());
    ASSERT_TRUE(cuda_->memory()
                    .FillPattern(TestQueue(*cuda_), *indices, 0, kRow, 8, PatternOf<int64_t>(-7))
                    .ok());
    const PartitionCall call{.input = Vector(*input, DType::kFloat32, kRow),
                             .kth = {0, kRow / 2, kRow - 1},
                             .values = Vector(*values, DType::kFloat32, kRow),
                             .indices = Vector(*indices, DType::kInt64, kRow)};
    ASSERT_TRUE(cuda_->indexing().Partition(TestQueue(*cuda_), call).ok()) << "call " << i;
    AH_TEST_ASSIGN(const std::vector<float> got_values, Download<float>(*cuda_, *values));
    AH_TEST_ASSIGN(std::vector<int64_t> got_indices, Download<int64_t>(*cuda_, *indices));
    for (int64_t r = 0; r < kRow; ++r) {
      ASSERT_TRUE(got_values[r] == 1.0f || got_values[r] == -1.0f)
          << "call " << i << ": position " << r << " holds " << got_values[r];
    }
    std::sort(got_indices.begin(), got_indices.end());
    for (int64_t r = 0; r < kRow; ++r) ASSERT_EQ(got_indices[r], r) << "call " << i;
  }
  Stop();
}

}  // namespace
}  // namespace arrayhub
