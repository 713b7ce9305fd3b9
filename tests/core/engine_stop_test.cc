// A call's work stops when its stop signal says so (core/stop_signal.h), answering the signal's
// status and leaving nothing behind; and a call that outlives its session answers NOT_FOUND,
// its result freed.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

#include "server/backend/host/host_backend.h"
#include "server/core/engine.h"

namespace arrayhub {
namespace {

using std::chrono::seconds;

// More elements than a long loop does between two checks (host_stop.h), so that every op
// below asks its signal at least once.
constexpr int64_t kElements = int64_t{1} << 21;

// A stop signal that runs `check` each time it is asked, counting the times.
class TestSignal final : public StopSignal {
 public:
  explicit TestSignal(std::function<absl::Status()> check) : check_(std::move(check)) {}
  absl::Status Check() const override {
    ++asked_;
    return check_();
  }
  int asked() const { return asked_.load(); }

 private:
  std::function<absl::Status()> check_;
  mutable std::atomic<int> asked_{0};
};

class EngineStopTest : public ::testing::Test {
 protected:
  EngineStopTest() : engine_(std::make_unique<HostBackend>(), Limits{}, SessionOptions{}) {}

  Caller Open(seconds lease = seconds(60)) {
    const Session session = engine_.OpenSession("alice", "engine_stop_test", lease).value();
    return engine_.ResolveSession("alice", session.id.ToString()).value();
  }

  ArrayTable::RecordPtr Random(const Caller& caller) {
    absl::StatusOr<ArrayTable::RecordPtr> array = engine_.Create(
        caller, {.dtype = DType::kFloat64, .shape = {kElements}, .kind = RandomKind{.seed = 7}});
    EXPECT_TRUE(array.ok()) << array.status();
    return array.ok() ? *array : nullptr;
  }

  static OperandSpec Operand(const ArrayRecord& array) {
    OperandSpec operand;
    operand.handle = array.handle.ToString();
    return operand;
  }

  static ArrayOpSpec SortOf(const ArrayRecord& array) {
    ArrayOpSpec spec;
    spec.op = ArrayOpKind::kSort;
    spec.operands = {Operand(array)};
    return spec;
  }

  Engine engine_;
};

TEST_F(EngineStopTest, StoppedCallsAnswerTheSignalsStatusAndFreeWhatTheyMade) {
  const Caller caller = Open();
  const ArrayTable::RecordPtr input = Random(caller);
  ASSERT_NE(input, nullptr);
  const EngineStats before = engine_.Stats();
  Caller stopping = caller;
  auto signal = std::make_shared<TestSignal>(
      [] { return absl::CancelledError("the client cancelled the call"); });
  stopping.stop = signal;

  ElementwiseSpec add;
  add.op = ElementwiseOp::kAdd;
  add.operands = {Operand(*input), Operand(*input)};
  ReduceSpec sum;
  sum.op = ReduceOp::kSum;
  sum.input = input->handle.ToString();
  const absl::Status statuses[] = {engine_.Elementwise(stopping, add).status(),
                                   engine_.Reduce(stopping, sum).status(),
                                   engine_.ArrayOp(stopping, SortOf(*input)).status()};
  for (const absl::Status& status : statuses) {
    EXPECT_EQ(status.code(), absl::StatusCode::kCancelled) << status;
    EXPECT_EQ(std::string(status.message()), "the client cancelled the call");
  }
  EXPECT_GE(signal->asked(), 3);
  const EngineStats after = engine_.Stats();
  EXPECT_EQ(after.arrays, before.arrays);
  EXPECT_EQ(after.buffers, before.buffers);
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
  // The same calls run to their end while the signal says go on.
  stopping.stop = std::make_shared<TestSignal>([] { return absl::OkStatus(); });
  EXPECT_TRUE(engine_.ArrayOp(stopping, SortOf(*input)).ok());
}

TEST_F(EngineStopTest, ALateResultOfAReapedSessionIsNotFoundAndFreed) {
  // The session's lease runs out while its sort runs, and the reaper closes it: the sort must
  // not answer OK with a handle that no longer exists.
  const auto opened = std::chrono::steady_clock::now();
  Caller caller = Open(seconds(1));
  const ArrayTable::RecordPtr input = Random(caller);
  ASSERT_NE(input, nullptr);
  std::atomic<int64_t> reaped{0};
  caller.stop = std::make_shared<TestSignal>([&] {
    if (reaped == 0) {
      std::this_thread::sleep_until(opened + std::chrono::milliseconds(1100));
      reaped = engine_.ReapExpiredSessions();
    }
    return absl::OkStatus();
  });
  const absl::StatusOr<std::vector<ArrayTable::RecordPtr>> sorted =
      engine_.ArrayOp(caller, SortOf(*input));
  EXPECT_EQ(reaped, 1);
  ASSERT_FALSE(sorted.ok());
  EXPECT_EQ(sorted.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(std::string(sorted.status().message()),
            "session " + caller.session.ToString() +
                " was closed while the call ran (by its client, or because its lease ran out); "
                "the result was freed");
  EXPECT_EQ(engine_.Stats().arrays, 0);
}

}  // namespace
}  // namespace arrayhub
