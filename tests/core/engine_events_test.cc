// Events (Engine::RecordEvent): timestamps in a session's order, measured between two; ids
// that belong to one session, bounded per session, gone with it.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "server/backend/host/host_backend.h"
#include "server/core/engine.h"

namespace arrayhub {
namespace {

using std::chrono::seconds;

class EngineEventsTest : public ::testing::Test {
 protected:
  explicit EngineEventsTest(int64_t max_events = 4)
      : engine_(std::make_unique<HostBackend>(), LimitsWith(max_events), SessionOptions{}) {}

  static Limits LimitsWith(int64_t max_events) {
    Limits limits;
    limits.max_session_events = max_events;
    return limits;
  }

  Caller Open(const std::string& tenant = "alice") {
    const Session session = engine_.OpenSession(tenant, "engine_events_test", seconds(60)).value();
    return engine_.ResolveSession(tenant, session.id.ToString()).value();
  }

  // A sort of `elements` random float64 values in the caller's session: work whose time the
  // events around it measure.
  void Sort(const Caller& caller, int64_t elements) {
    absl::StatusOr<ArrayTable::RecordPtr> array = engine_.Create(
        caller, {.dtype = DType::kFloat64, .shape = {elements}, .kind = RandomKind{.seed = 7}});
    ASSERT_TRUE(array.ok()) << array.status();
    OperandSpec operand;
    operand.handle = (*array)->handle.ToString();
    const ArrayOpSpec sort{.op = ArrayOpKind::kSort,
                           .operands = {operand},
                           .dtype = std::nullopt,
                           .axes = std::vector<int64_t>{0},
                           .ints = {}};
    ASSERT_TRUE(engine_.ArrayOp(caller, sort).ok());
  }

  void ExpectStatus(const absl::Status& status, absl::StatusCode code, std::string_view message) {
    EXPECT_EQ(status.code(), code) << status;
    EXPECT_EQ(std::string(status.message()), message);
  }

  Engine engine_;
};

TEST_F(EngineEventsTest, ElapsedTimeCoversTheWorkRecordedBetweenTheEvents) {
  const Caller caller = Open();
  ASSERT_TRUE(engine_.RecordEvent(caller, 1).ok());
  Sort(caller, int64_t{1} << 20);
  ASSERT_TRUE(engine_.RecordEvent(caller, 2).ok());
  Sort(caller, 16);
  ASSERT_TRUE(engine_.RecordEvent(caller, 3).ok());
  const double big = engine_.EventElapsedMilliseconds(caller, 1, 2).value();
  const double tiny = engine_.EventElapsedMilliseconds(caller, 2, 3).value();
  EXPECT_GT(big, 0);
  EXPECT_GT(big, tiny);
  EXPECT_NEAR(engine_.EventElapsedMilliseconds(caller, 1, 3).value(), big + tiny, 1e-6);
  EXPECT_EQ(engine_.EventElapsedMilliseconds(caller, 2, 2).value(), 0);
  EXPECT_LT(engine_.EventElapsedMilliseconds(caller, 2, 1).value(), 0);
  EXPECT_TRUE(engine_.QueryEvent(caller, 3, /*wait=*/false).value());
  EXPECT_TRUE(engine_.QueryEvent(caller, 3, /*wait=*/true).value());
}

TEST_F(EngineEventsTest, RecordingAnIdAgainMovesTheEvent) {
  const Caller caller = Open();
  ASSERT_TRUE(engine_.RecordEvent(caller, 1).ok());
  Sort(caller, int64_t{1} << 20);
  ASSERT_TRUE(engine_.RecordEvent(caller, 2).ok());
  const double before = engine_.EventElapsedMilliseconds(caller, 1, 2).value();
  ASSERT_TRUE(engine_.RecordEvent(caller, 1).ok());  // After the sort now.
  EXPECT_LT(engine_.EventElapsedMilliseconds(caller, 1, 2).value(), 0);
  EXPECT_GT(before, 0);
}

TEST_F(EngineEventsTest, UnknownAndZeroIdsAreRefused) {
  const Caller caller = Open();
  ExpectStatus(engine_.RecordEvent(caller, 0), absl::StatusCode::kInvalidArgument,
               "event_id must be positive (0 names no event)");
  ASSERT_TRUE(engine_.RecordEvent(caller, 1).ok());
  ExpectStatus(engine_.EventElapsedMilliseconds(caller, 1, 9).status(), absl::StatusCode::kNotFound,
               "end_event_id = 9: no event of that id was recorded in this session");
  ExpectStatus(engine_.EventElapsedMilliseconds(caller, 7, 1).status(), absl::StatusCode::kNotFound,
               "start_event_id = 7: no event of that id was recorded in this session");
  ExpectStatus(engine_.QueryEvent(caller, 0, true).status(), absl::StatusCode::kNotFound,
               "event_id = 0: no event of that id was recorded in this session");
}

TEST_F(EngineEventsTest, IdsBelongToOneSession) {
  const Caller alice = Open("alice");
  const Caller alice_too = Open("alice");
  const Caller bob = Open("bob");
  ASSERT_TRUE(engine_.RecordEvent(alice, 1).ok());
  ASSERT_TRUE(engine_.RecordEvent(alice, 2).ok());
  // Another session, of the same tenant or another, finds none of them...
  for (const Caller& other : {alice_too, bob}) {
    ExpectStatus(engine_.EventElapsedMilliseconds(other, 1, 2).status(),
                 absl::StatusCode::kNotFound,
                 "start_event_id = 1: no event of that id was recorded in this session");
    ExpectStatus(engine_.QueryEvent(other, 2, false).status(), absl::StatusCode::kNotFound,
                 "event_id = 2: no event of that id was recorded in this session");
  }
  // ...and its own id 1 is its own: it cannot measure against alice's id 2, nor move hers.
  ASSERT_TRUE(engine_.RecordEvent(bob, 1).ok());
  ExpectStatus(engine_.EventElapsedMilliseconds(bob, 1, 2).status(), absl::StatusCode::kNotFound,
               "end_event_id = 2: no event of that id was recorded in this session");
  Sort(alice, int64_t{1} << 18);
  ASSERT_TRUE(engine_.RecordEvent(alice, 2).ok());
  const double alice_elapsed = engine_.EventElapsedMilliseconds(alice, 1, 2).value();
  ASSERT_TRUE(engine_.RecordEvent(bob, 1).ok());
  EXPECT_EQ(engine_.EventElapsedMilliseconds(alice, 1, 2).value(), alice_elapsed);
}

TEST_F(EngineEventsTest, ASessionHoldsAtMostTheLimit) {
  const Caller caller = Open();
  for (uint64_t id = 1; id <= 4; ++id) ASSERT_TRUE(engine_.RecordEvent(caller, id).ok());
  ExpectStatus(engine_.RecordEvent(caller, 5), absl::StatusCode::kResourceExhausted,
               "the session holds 4 events, the most the server allows (--max-session-events); "
               "record into an id it holds already, or open another session");
  EXPECT_TRUE(engine_.RecordEvent(caller, 4).ok());  // Recording again takes no room.
  EXPECT_TRUE(engine_.RecordEvent(Open(), 5).ok());  // The bound is per session.
  ExpectStatus(engine_.QueryEvent(caller, 5, false).status(), absl::StatusCode::kNotFound,
               "event_id = 5: no event of that id was recorded in this session");
}

TEST_F(EngineEventsTest, ThreadsOfOneSessionCannotPassTheLimitTogether) {
  const Caller caller = Open();
  std::atomic<int> recorded{0}, refused{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (uint64_t k = 1; k <= 16; ++k) {
        const absl::Status status = engine_.RecordEvent(caller, 100 * (t + 1) + k);
        if (status.ok()) {
          ++recorded;
        } else {
          EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted) << status;
          ++refused;
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(recorded.load(), 4);
  EXPECT_EQ(refused.load(), 8 * 16 - 4);
}

TEST_F(EngineEventsTest, EventsGoWithTheSession) {
  const Caller caller = Open();
  ASSERT_TRUE(engine_.RecordEvent(caller, 1).ok());
  ASSERT_TRUE(engine_.CloseSession(caller).ok());
  ExpectStatus(engine_.QueryEvent(caller, 1, false).status(), absl::StatusCode::kNotFound,
               "event_id = 1: no event of that id was recorded in this session");
  // A record racing the close leaves nothing behind either.
  EXPECT_EQ(engine_.RecordEvent(caller, 2).code(), absl::StatusCode::kNotFound);
  ExpectStatus(engine_.QueryEvent(caller, 2, false).status(), absl::StatusCode::kNotFound,
               "event_id = 2: no event of that id was recorded in this session");
}

}  // namespace
}  // namespace arrayhub
