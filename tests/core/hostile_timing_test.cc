// Calls whose inputs another call rewrites while they run, on the CPU backend: index arrays
// rewritten out of bounds under gathers, takes and scatters; boolean arrays flipped under
// nonzero, compress and masks; values negated under partition, unique and histogram; the same
// array incremented from several sessions and tenants.
// Each must answer a result NumPy could give or a clean error, never read or write outside an
// array, and never lose an update. Part of core_state_test, so that CI runs it under
// AddressSanitizer and ThreadSanitizer too (scripts/sanitizer-tests.sh).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include "server/backend/host/host_backend.h"
#include "server/core/engine.h"
#include "tests/support/engine_download.h"

namespace arrayhub {
namespace {

using std::chrono::seconds;

OperandSpec HandleOperand(const std::string& handle) {
  return OperandSpec{.handle = handle, .scalar = {}, .chain_value = {}};
}

OperandSpec IntOperand(int64_t value) {
  return OperandSpec{.handle = {}, .scalar = Scalar::Int(value), .chain_value = {}};
}

class HostileTimingTest : public ::testing::Test {
 protected:
  Caller Open(const std::string& tenant) {
    absl::StatusOr<Session> session = engine_.OpenSession(tenant, "hostile", seconds(60));
    EXPECT_TRUE(session.ok()) << session.status();
    return Caller{.tenant = tenant, .session = session->id};
  }

  std::string Make(const Caller& caller, DType dtype, Shape shape,
                   decltype(CreateSpec::kind) kind) {
    absl::StatusOr<ArrayTable::RecordPtr> array = engine_.Create(
        caller, {.dtype = dtype, .shape = std::move(shape), .kind = std::move(kind)});
    EXPECT_TRUE(array.ok()) << array.status();
    return array.ok() ? (*array)->handle.ToString() : "";
  }

  // elementwise `op`(operands...) written into `out`.
  absl::Status InPlace(const Caller& caller, ElementwiseOp op, std::vector<OperandSpec> operands,
                       const std::string& out) {
    ElementwiseSpec spec;
    spec.op = op;
    spec.operands = std::move(operands);
    spec.out = out;
    return engine_.Elementwise(caller, spec).status();
  }

  // float64 1, 2, ..., count: the values the negation tests flip between their two states.
  std::string Counting(const Caller& caller, int64_t count) {
    return Make(caller, DType::kFloat64, {},
                ArangeKind{.start = Scalar::Int(1), .stop = Scalar::Int(count + 1)});
  }

  // `handle` negated in place: every element changes sign, each at its own moment.
  absl::Status Negate(const Caller& caller, const std::string& handle) {
    return InPlace(caller, ElementwiseOp::kNegative, {HandleOperand(handle)}, handle);
  }

  // The array `handle`'s elements, read as the Download RPC reads them.
  template <typename T>
  std::vector<T> ReadArray(const Caller& caller, const std::string& handle) {
    absl::StatusOr<ArrayTable::RecordPtr> array = engine_.Find(caller, handle);
    EXPECT_TRUE(array.ok()) << array.status();
    return array.ok() ? Read<T>(caller, **array) : std::vector<T>{};
  }

  template <typename T>
  std::vector<T> Read(const Caller& caller, const ArrayRecord& array) {
    absl::StatusOr<std::vector<std::byte>> bytes = testing::DownloadBytes(engine_, caller, array);
    EXPECT_TRUE(bytes.ok()) << bytes.status();
    std::vector<T> values(bytes.ok() ? bytes->size() / sizeof(T) : 0);
    if (!values.empty()) std::memcpy(values.data(), bytes->data(), values.size() * sizeof(T));
    return values;
  }

  void ExpectNothingLeft() {
    const EngineStats stats = engine_.Stats();
    EXPECT_EQ(stats.arrays, 0);
    EXPECT_EQ(stats.buffers, 0);
    EXPECT_EQ(stats.bytes_in_use, 0);
  }

  Engine engine_{std::make_unique<HostBackend>(), Limits{}, SessionOptions{}};
};

// Runs `writer` and `readers` on threads of their own until each has run `rounds` times.
void RunTogether(int rounds, const std::function<void()>& writer,
                 const std::vector<std::function<void()>>& readers) {
  std::atomic<bool> done{false};
  std::thread writing([&] {
    while (!done) writer();
  });
  std::vector<std::thread> reading;
  for (const auto& reader : readers) {
    reading.emplace_back([&reader, rounds] {
      for (int i = 0; i < rounds; ++i) reader();
    });
  }
  for (std::thread& thread : reading) thread.join();
  done = true;
  writing.join();
}

TEST_F(HostileTimingTest, NoUpdateIsLostAcrossSessionsAndTenants) {
  const Caller owner = Open("alice"), second = Open("alice"), other = Open("bob");
  const std::string x = Make(owner, DType::kFloat64, {1 << 16}, ZerosKind{});
  ASSERT_TRUE(
      engine_
          .Publish(owner, {.handle = x, .name = "x", .reader_tenants = {"bob"}, .writable = true})
          .ok());
  absl::StatusOr<ArrayTable::RecordPtr> attached = engine_.Attach(other, "x", "alice");
  ASSERT_TRUE(attached.ok()) << attached.status();
  const std::string bobs_x = (*attached)->handle.ToString();
  attached = absl::NotFoundError("let go");  // Hold no record: the end counts buffers.

  constexpr int kRounds = 200;
  const std::vector<std::pair<Caller, std::string>> adders = {
      {owner, x}, {owner, x}, {second, x}, {other, bobs_x}};
  std::atomic<int> waiting{static_cast<int>(adders.size())};
  std::vector<std::thread> threads;
  for (const auto& adder : adders) {
    threads.emplace_back([&] {
      const auto& [caller, handle] = adder;
      for (--waiting; waiting > 0;) std::this_thread::yield();  // All start at once.
      for (int i = 0; i < kRounds; ++i) {
        ASSERT_TRUE(
            InPlace(caller, ElementwiseOp::kAdd, {HandleOperand(handle), IntOperand(1)}, handle)
                .ok());
      }
    });
  }
  for (std::thread& thread : threads) thread.join();

  for (double value : ReadArray<double>(owner, x)) ASSERT_EQ(value, adders.size() * kRounds);
  ASSERT_TRUE(engine_.Unpublish(owner, "x").ok());
  for (const Caller& caller : {owner, second, other})
    ASSERT_TRUE(engine_.CloseSession(caller).ok());
  ExpectNothingLeft();
}

// ufunc.at from several sessions and tenants at once into one shared array, every index
// repeated: no combined update is lost, and each call's repeats all count.
TEST_F(HostileTimingTest, NoCombinedUpdateIsLostAcrossSessionsAndTenants) {
  const Caller owner = Open("alice"), second = Open("alice"), other = Open("bob");
  constexpr int64_t kCount = 64;
  const std::string x = Make(owner, DType::kInt64, {kCount}, ZerosKind{});
  ASSERT_TRUE(
      engine_
          .Publish(owner, {.handle = x, .name = "x", .reader_tenants = {"bob"}, .writable = true})
          .ok());
  absl::StatusOr<ArrayTable::RecordPtr> attached = engine_.Attach(other, "x", "alice");
  ASSERT_TRUE(attached.ok()) << attached.status();
  const std::string bobs_x = (*attached)->handle.ToString();
  attached = absl::NotFoundError("let go");  // Hold no record: the end counts buffers.

  constexpr int kRounds = 100;
  constexpr int kRepeats = 3;  // Each call selects every element this many times.
  const std::vector<std::pair<Caller, std::string>> adders = {
      {owner, x}, {owner, x}, {second, x}, {other, bobs_x}};
  std::atomic<int> waiting{static_cast<int>(adders.size())};
  std::vector<std::thread> threads;
  for (const auto& adder : adders) {
    threads.emplace_back([&] {
      const auto& [caller, handle] = adder;
      // index = [0, 1, ..., 63] repeated kRepeats times, this caller's own array.
      const std::string index =
          Make(caller, DType::kInt64, {},
               ArangeKind{.start = Scalar::Int(0), .stop = Scalar::Int(kCount * kRepeats)});
      ASSERT_TRUE(InPlace(caller, ElementwiseOp::kRemainder,
                          {HandleOperand(index), IntOperand(kCount)}, index)
                      .ok());
      for (--waiting; waiting > 0;) std::this_thread::yield();  // All start at once.
      for (int i = 0; i < kRounds; ++i) {
        const absl::Status status = engine_.SetItem(caller, {.handle = handle,
                                                             .index = {IndexArraySpec{index}},
                                                             .value = IntOperand(1),
                                                             .combine = ElementwiseOp::kAdd});
        ASSERT_TRUE(status.ok()) << status;
      }
      ASSERT_TRUE(engine_.Free(caller, std::vector<std::string>{index}).ok());
    });
  }
  for (std::thread& thread : threads) thread.join();

  for (int64_t value : ReadArray<int64_t>(owner, x)) {
    ASSERT_EQ(value, static_cast<int64_t>(adders.size()) * kRounds * kRepeats);
  }
  ASSERT_TRUE(engine_.Unpublish(owner, "x").ok());
  for (const Caller& caller : {owner, second, other})
    ASSERT_TRUE(engine_.CloseSession(caller).ok());
  ExpectNothingLeft();
}

TEST_F(HostileTimingTest, IndicesRewrittenOutOfBoundsNeverLeaveTheArray) {
  const Caller caller = Open("alice"), writer = Open("alice");
  constexpr int64_t kData = 1000;
  const std::string data = Make(caller, DType::kFloat64, {},
                                ArangeKind{.start = Scalar::Int(0), .stop = Scalar::Int(kData)});
  const std::string index = Make(caller, DType::kInt64, {256},
                                 RandomKind{.distribution = RandomDistribution::kIntegers,
                                            .int_low = 0,
                                            .int_high = kData,
                                            .seed = 7});
  // Far outside any allocation, and back: every other moment, every index is out of bounds.
  const int64_t kFar = int64_t{1} << 40;
  auto rewrite = [&] {
    ASSERT_TRUE(
        InPlace(writer, ElementwiseOp::kAdd, {HandleOperand(index), IntOperand(kFar)}, index).ok());
    ASSERT_TRUE(
        InPlace(writer, ElementwiseOp::kSubtract, {HandleOperand(index), IntOperand(kFar)}, index)
            .ok());
  };
  auto expect_bounds_error = [](const absl::Status& status) {
    ASSERT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
    EXPECT_NE(status.message().find("is out of bounds for axis 0 with size 1000"),
              std::string::npos)
        << status;
  };
  auto gather = [&] {
    absl::StatusOr<ArrayTable::RecordPtr> taken =
        engine_.GetItem(caller, {.handle = data, .index = {IndexArraySpec{index}}});
    if (!taken.ok()) return expect_bounds_error(taken.status());
    for (double value : Read<double>(caller, **taken)) {
      ASSERT_TRUE((value >= 0 && value < kData) || value == -1) << value;  // -1: scattered.
    }
    ASSERT_TRUE(engine_.Free(caller, {(*taken)->handle.ToString()}).ok());
  };
  auto take = [&] {
    ArrayOpSpec spec{.op = ArrayOpKind::kTake,
                     .operands = {HandleOperand(data), HandleOperand(index)}};
    spec.axes = std::vector<int64_t>{0};
    absl::StatusOr<std::vector<ArrayTable::RecordPtr>> taken = engine_.ArrayOp(caller, spec);
    if (!taken.ok()) return expect_bounds_error(taken.status());
    ASSERT_TRUE(engine_.Free(caller, {taken->front()->handle.ToString()}).ok());
  };
  auto scatter = [&] {
    const absl::Status status = engine_.SetItem(
        caller,
        {.handle = data,
         .index = {IndexArraySpec{index}},
         .value = OperandSpec{.handle = {}, .scalar = Scalar::Float(-1), .chain_value = {}}});
    if (!status.ok()) expect_bounds_error(status);
  };
  RunTogether(60, rewrite, {gather, take, scatter, gather});

  // The scatters wrote -1 only inside the array; the rest is still arange.
  const std::vector<double> values = ReadArray<double>(caller, data);
  for (int64_t i = 0; i < kData; ++i) ASSERT_TRUE(values[i] == i || values[i] == -1) << i;
  for (const Caller& each : {caller, writer}) ASSERT_TRUE(engine_.CloseSession(each).ok());
  ExpectNothingLeft();
}

TEST_F(HostileTimingTest, CountsFlippedUnderNonzeroNeverOverflow) {
  const Caller caller = Open("alice"), writer = Open("alice");
  constexpr int64_t kCount = 3000;
  // One element in three is true: logical_not flips the count between 1000 and 2000.
  const std::string mask = Make(caller, DType::kBool, {kCount}, ZerosKind{});
  ASSERT_TRUE(engine_
                  .SetItem(caller, {.handle = mask,
                                    .index = {SliceSpec{.start = 0, .stop = {}, .step = 3}},
                                    .value = OperandSpec{.handle = {},
                                                         .scalar = Scalar::Bool(true),
                                                         .chain_value = {}}})
                  .ok());
  const std::string data = Make(caller, DType::kFloat32, {kCount}, OnesKind{});
  auto flip = [&] {
    ASSERT_TRUE(InPlace(writer, ElementwiseOp::kLogicalNot, {HandleOperand(mask)}, mask).ok());
  };
  // A result of either count, or ABORTED naming the race; each result is freed again.
  auto expect = [&](const absl::StatusOr<std::vector<ArrayTable::RecordPtr>>& results) {
    if (!results.ok()) {
      ASSERT_EQ(results.status().code(), absl::StatusCode::kAborted) << results.status();
      return;
    }
    for (const ArrayTable::RecordPtr& result : *results) {
      const int64_t size = result->size();
      ASSERT_TRUE(size == 1000 || size == 2000) << size;
      ASSERT_TRUE(engine_.Free(caller, {result->handle.ToString()}).ok());
    }
  };
  auto nonzero = [&] {
    expect(
        engine_.ArrayOp(caller, {.op = ArrayOpKind::kNonzero, .operands = {HandleOperand(mask)}}));
  };
  auto compress = [&] {
    ArrayOpSpec spec{.op = ArrayOpKind::kCompress,
                     .operands = {HandleOperand(data), HandleOperand(mask)}};
    spec.axes = std::vector<int64_t>{0};
    expect(engine_.ArrayOp(caller, spec));
  };
  auto masked = [&] {
    absl::StatusOr<ArrayTable::RecordPtr> selected =
        engine_.GetItem(caller, {.handle = data, .index = {IndexArraySpec{mask}}});
    if (!selected.ok()) return expect(selected.status());
    expect(std::vector<ArrayTable::RecordPtr>{*selected});
  };
  RunTogether(60, flip, {nonzero, compress, masked});
  for (const Caller& each : {caller, writer}) ASSERT_TRUE(engine_.CloseSession(each).ok());
  ExpectNothingLeft();
}

// partition and argpartition read contiguous rows where they are, not a copy: values negated
// under them while they select give results made of the values' two states, and argpartition's
// positions stay a permutation of the row (a select whose comparisons changed under it could
// run outside it).
TEST_F(HostileTimingTest, ValuesNegatedUnderPartitionStayInTheRow) {
  const Caller caller = Open("alice"), writer = Open("alice");
  constexpr int64_t kCount = 4000;
  const std::string data = Counting(caller, kCount);
  auto negate = [&] { ASSERT_TRUE(Negate(writer, data).ok()); };
  auto partition = [&](bool indices) {
    ArrayOpSpec spec{.op = indices ? ArrayOpKind::kArgpartition : ArrayOpKind::kPartition,
                     .operands = {HandleOperand(data)}};
    spec.axes = std::vector<int64_t>{0};
    spec.ints = {0, kCount / 2, kCount - 1};
    absl::StatusOr<std::vector<ArrayTable::RecordPtr>> results = engine_.ArrayOp(caller, spec);
    ASSERT_TRUE(results.ok()) << results.status();
    const ArrayRecord& result = *results->front();
    if (indices) {
      std::vector<int64_t> positions = Read<int64_t>(caller, result);
      std::sort(positions.begin(), positions.end());
      for (int64_t i = 0; i < kCount; ++i) ASSERT_EQ(positions[i], i);
    } else {
      for (double value : Read<double>(caller, result)) {
        ASSERT_TRUE(std::abs(value) >= 1 && std::abs(value) <= kCount) << value;
      }
    }
    ASSERT_TRUE(engine_.Free(caller, {result.handle.ToString()}).ok());
  };
  RunTogether(40, negate, {[&] { partition(false); }, [&] { partition(true); }});
  for (const Caller& each : {caller, writer}) ASSERT_TRUE(engine_.CloseSession(each).ok());
  ExpectNothingLeft();
}

// unique sorts a copy of its input and selects from that copy: values negated while it runs
// give distinct values, strictly increasing, each of the values' two states, never more of
// them than the array holds.
TEST_F(HostileTimingTest, ValuesNegatedUnderUniqueGiveDistinctValuesOfTheArray) {
  const Caller caller = Open("alice"), writer = Open("alice");
  constexpr int64_t kCount = 4000;
  const std::string data = Counting(caller, kCount);
  auto negate = [&] { ASSERT_TRUE(Negate(writer, data).ok()); };
  auto unique = [&] {
    const ArrayOpSpec spec{.op = ArrayOpKind::kUnique, .operands = {HandleOperand(data)}};
    absl::StatusOr<std::vector<ArrayTable::RecordPtr>> results = engine_.ArrayOp(caller, spec);
    ASSERT_TRUE(results.ok()) << results.status();
    const ArrayRecord& result = *results->front();
    const std::vector<double> values = Read<double>(caller, result);
    ASSERT_GE(values.size(), 1u);
    ASSERT_LE(values.size(), static_cast<size_t>(kCount));
    for (size_t i = 0; i < values.size(); ++i) {
      ASSERT_TRUE(std::abs(values[i]) >= 1 && std::abs(values[i]) <= kCount) << values[i];
      if (i > 0) {
        ASSERT_LT(values[i - 1], values[i]);
      }
    }
    ASSERT_TRUE(engine_.Free(caller, {result.handle.ToString()}).ok());
  };
  RunTogether(40, negate, {unique, unique});
  for (const Caller& each : {caller, writer}) ASSERT_TRUE(engine_.CloseSession(each).ok());
  ExpectNothingLeft();
}

// histogram's data and its edges negated (the edges then decrease) while it counts: every
// element read lands in one bin or none, whatever the edges hold at that moment, so the counts
// stay between 0 and the element count and their total never exceeds it.
TEST_F(HostileTimingTest, DataAndEdgesNegatedUnderHistogramCountEachElementAtMostOnce) {
  const Caller caller = Open("alice"), writer = Open("alice");
  constexpr int64_t kCount = 20000;
  constexpr int64_t kEdges = 101;
  const std::string data = Make(caller, DType::kFloat64, {},
                                ArangeKind{.start = Scalar::Int(0), .stop = Scalar::Int(kCount)});
  const std::string edges = Make(caller, DType::kFloat64, {},
                                 ArangeKind{.start = Scalar::Int(0),
                                            .stop = Scalar::Int(kCount + 1),
                                            .step = Scalar::Int(kCount / (kEdges - 1))});
  auto negate = [&] {
    for (const std::string& target : {data, edges}) {
      ASSERT_TRUE(Negate(writer, target).ok());
    }
  };
  auto histogram = [&] {
    const ArrayOpSpec spec{.op = ArrayOpKind::kHistogram,
                           .operands = {HandleOperand(data), HandleOperand(edges)}};
    absl::StatusOr<std::vector<ArrayTable::RecordPtr>> results = engine_.ArrayOp(caller, spec);
    ASSERT_TRUE(results.ok()) << results.status();
    const ArrayRecord& result = *results->front();
    int64_t total = 0;
    for (const int64_t count : Read<int64_t>(caller, result)) {
      ASSERT_TRUE(count >= 0 && count <= kCount) << count;
      total += count;
    }
    ASSERT_LE(total, kCount);
    ASSERT_TRUE(engine_.Free(caller, {result.handle.ToString()}).ok());
  };
  RunTogether(40, negate, {histogram});
  for (const Caller& each : {caller, writer}) ASSERT_TRUE(engine_.CloseSession(each).ok());
  ExpectNothingLeft();
}

TEST_F(HostileTimingTest, AnIndexArrayThatIsTheTargetIsReadBeforeItIsWritten) {
  const Caller caller = Open("alice");
  // a = [1, 0, 2]; a[a] = 100. NumPy reads the indices first: every element becomes 100. A
  // scatter that read a[1] after writing it would follow index 100, outside the array.
  const std::string a =
      Make(caller, DType::kInt64, {}, ArangeKind{.start = Scalar::Int(0), .stop = Scalar::Int(3)});
  ASSERT_TRUE(
      engine_.SetItem(caller, {.handle = a, .index = {int64_t{0}}, .value = IntOperand(1)}).ok());
  ASSERT_TRUE(
      engine_.SetItem(caller, {.handle = a, .index = {int64_t{1}}, .value = IntOperand(0)}).ok());
  const absl::Status status = engine_.SetItem(
      caller, {.handle = a, .index = {IndexArraySpec{a}}, .value = IntOperand(100)});
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(ReadArray<int64_t>(caller, a), (std::vector<int64_t>{100, 100, 100}));
  ASSERT_TRUE(engine_.CloseSession(caller).ok());
  ExpectNothingLeft();
}

}  // namespace
}  // namespace arrayhub
