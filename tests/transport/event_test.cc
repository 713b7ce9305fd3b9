// Events over the wire: record_event ops in a Batch, QueryEvent and EventElapsedTime after
// them (or a Batch's elapsed_time), and the refusals of ids the caller's session does not hold.
#include <cmath>
#include <thread>
#include <vector>

#include "tests/transport/batch_fixture.h"

namespace arrayhub::testing {
namespace {

Op Record(uint64_t id) {
  Op op;
  op.mutable_record_event()->set_event_id(id);
  return op;
}

class EventTest : public WithLimit<BatchTest, &Limits::max_session_events, 3> {
 protected:
  grpc::Status Elapsed(uint64_t start, uint64_t end, double* milliseconds,
                       const std::string& session = "") {
    v1::EventElapsedTimeRequest request;
    request.set_start_event_id(start);
    request.set_end_event_id(end);
    v1::EventElapsedTimeResponse response;
    const grpc::Status status = stub_->EventElapsedTime(Context(session).get(), request, &response);
    *milliseconds = response.milliseconds();
    return status;
  }

  grpc::Status Query(uint64_t id, bool wait, bool* done, const std::string& session = "") {
    v1::QueryEventRequest request;
    request.set_event_id(id);
    request.set_wait(wait);
    v1::QueryEventResponse response;
    const grpc::Status status = stub_->QueryEvent(Context(session).get(), request, &response);
    *done = response.done();
    return status;
  }

  // `request` asking the elapsed time from event `start` to `end` once its ops have run.
  static v1::BatchRequest AskingElapsed(v1::BatchRequest request, uint64_t start, uint64_t end) {
    request.mutable_elapsed_time()->set_start_event_id(start);
    request.mutable_elapsed_time()->set_end_event_id(end);
    return request;
  }

  void ExpectNotFound(const grpc::Status& status, const std::string& message) {
    EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND) << status.error_message();
    EXPECT_EQ(status.error_message(), message);
  }
};

TEST_F(EventTest, EventsInABatchTimeTheOpsBetweenThem) {
  // sin over 2^21 elements between events 1 and 2, nothing between 2 and 3.
  ASSERT_TRUE(
      Run(Batch({Record(1), Arange(1 << 21), Elementwise("sin", {Result(1)}), Record(2), Record(3)},
                {}))
          .ok());
  double big = 0, none = 0;
  ASSERT_TRUE(Elapsed(1, 2, &big).ok());
  ASSERT_TRUE(Elapsed(2, 3, &none).ok());
  EXPECT_GT(big, 0);
  EXPECT_GT(big, none);
  bool done = false;
  ASSERT_TRUE(Query(3, /*wait=*/true, &done).ok());
  EXPECT_TRUE(done);
  // The ops' intermediates are gone; the events hold no array.
  EXPECT_EQ(server_->engine().Stats().arrays, baseline_.arrays);
}

TEST_F(EventTest, ARecordGivesNoArray) {
  ExpectFails(Batch({Record(1), Elementwise("exp", {Result(0)})}, {}),
              grpc::StatusCode::INVALID_ARGUMENT,
              "ops[1] (elementwise exp): operands[0].batch_result = 0 names ops[0] "
              "(record_event), which gives no array; only an op giving one array can be read by "
              "later ops or kept");
  ExpectFails(Batch({Record(1)}, {0}), grpc::StatusCode::INVALID_ARGUMENT,
              "keep[0] = 0 names ops[0] (record_event), which gives no array; only an op giving "
              "one array can be read by later ops or kept");
  v1::BatchRequest read = Batch({Record(1)}, {});
  read.set_read(0);
  ExpectFails(read, grpc::StatusCode::INVALID_ARGUMENT,
              "read = 0 names ops[0] (record_event), which gives no array; only an op giving one "
              "array can be read back");
  ExpectFails(Batch({Record(0)}, {}), grpc::StatusCode::INVALID_ARGUMENT,
              "ops[0] (record_event): event_id must be positive (0 names no event)");
  double milliseconds = 0;
  ExpectNotFound(Elapsed(1, 1, &milliseconds),  // None of the failed batches recorded it.
                 "start_event_id = 1: no event of that id was recorded in this session");
}

TEST_F(EventTest, IdsAreTheSessionsOwnAndBounded) {
  ASSERT_TRUE(Run(Batch({Record(1), Record(2), Record(3), Record(3)}, {})).ok());
  ExpectFails(Batch({Record(2), Record(4)}, {}), grpc::StatusCode::RESOURCE_EXHAUSTED,
              "ops[1] (record_event): the session holds 3 events, the most the server allows "
              "(--max-session-events); record into an id it holds already, or open another "
              "session");
  double milliseconds = 0;
  ExpectNotFound(Elapsed(1, 4, &milliseconds),
                 "end_event_id = 4: no event of that id was recorded in this session");
  // Another session finds none of them.
  const std::string other = OpenSession();
  bool done = false;
  ExpectNotFound(Query(1, false, &done, other),
                 "event_id = 1: no event of that id was recorded in this session");
  ExpectNotFound(Elapsed(1, 2, &milliseconds, other),
                 "start_event_id = 1: no event of that id was recorded in this session");
}

TEST_F(EventTest, ABatchAnswersTheElapsedTimeOfTheEventsItRecorded) {
  v1::BatchResponse response;
  ASSERT_TRUE(
      Run(AskingElapsed(
              Batch({Record(1), Arange(1 << 21), Elementwise("sin", {Result(1)}), Record(2)}, {2}),
              1, 2),
          &response)
          .ok());
  ASSERT_EQ(response.elapsed_case(), v1::BatchResponse::kElapsedMilliseconds);
  EXPECT_GT(response.elapsed_milliseconds(), 0);
  // The same question asked on its own gets the same answer; the kept result is there.
  double asked_alone = 0;
  ASSERT_TRUE(Elapsed(1, 2, &asked_alone).ok());
  EXPECT_EQ(response.elapsed_milliseconds(), asked_alone);
  ASSERT_EQ(response.results_size(), 1);
  EXPECT_EQ(Values(response.results(0).handle()).size(), size_t{1} << 21);
  // A batch without the question has no answer.
  ASSERT_TRUE(Run(Batch({Record(1)}, {}), &response).ok());
  EXPECT_EQ(response.elapsed_case(), v1::BatchResponse::ELAPSED_NOT_SET);
}

TEST_F(EventTest, AnElapsedTimeThatCannotBeAnsweredFailsNoOp) {
  v1::BatchResponse response;
  ASSERT_TRUE(Run(AskingElapsed(Batch({Arange(4), Record(1)}, {0}), 1, 3), &response).ok());
  ASSERT_EQ(response.elapsed_case(), v1::BatchResponse::kElapsedError);
  EXPECT_EQ(response.elapsed_error().code(), static_cast<int32_t>(grpc::StatusCode::NOT_FOUND));
  EXPECT_EQ(response.elapsed_error().message(),
            "end_event_id = 3: no event of that id was recorded in this session");
  ASSERT_EQ(response.results_size(), 1);
  EXPECT_EQ(Values(response.results(0).handle()), (std::vector<double>{0, 1, 2, 3}));
  // Another session's events are not this one's.
  const std::string other = OpenSession();
  v1::BatchResponse others;
  ASSERT_TRUE(
      stub_->Batch(Context(other).get(), AskingElapsed(Batch({Arange(4)}, {}), 1, 1), &others)
          .ok());
  ASSERT_EQ(others.elapsed_case(), v1::BatchResponse::kElapsedError);
  EXPECT_EQ(others.elapsed_error().message(),
            "start_event_id = 1: no event of that id was recorded in this session");
  // A batch whose op fails answers its error alone, and records nothing.
  ExpectFails(AskingElapsed(Batch({Arange(4), Elementwise("frobnicate", {Result(0)})}, {}), 1, 1),
              grpc::StatusCode::INVALID_ARGUMENT,
              "ops[1] (elementwise frobnicate): unknown elementwise op 'frobnicate'");
}

TEST_F(EventTest, ThreadsOfASessionRecordingAndAskingAtOnceEachGetAnAnswer) {
  // Every thread re-records the same two ids and asks between them, so a thread's start may
  // be another's: any finite answer is right, and no call may fail or take the server down.
  std::vector<std::thread> threads;
  std::vector<int> answered(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([this, t, &answered] {
      for (int round = 0; round < 50; ++round) {
        v1::BatchResponse response;
        const grpc::Status status =
            Run(AskingElapsed(Batch({Record(1), Arange(1000), Record(2)}, {}), 1, 2), &response);
        if (status.ok() && response.elapsed_case() == v1::BatchResponse::kElapsedMilliseconds &&
            std::isfinite(response.elapsed_milliseconds())) {
          ++answered[t];
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(answered, std::vector<int>(4, 50));
  EXPECT_EQ(server_->engine().Stats().arrays, baseline_.arrays);
}

}  // namespace
}  // namespace arrayhub::testing
