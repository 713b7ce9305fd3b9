// BatchStream: a session's batches in order over one stream, each answered as Batch answers it
// (a failure in band, the stream going on); an open stream takes a transfer slot, is never
// cancelled for being idle, ends with its session or at once when the server drains, and a
// client that goes mid-batch leaves nothing behind.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/transport/batch_fixture.h"

namespace arrayhub::testing {
namespace {

using namespace std::chrono_literals;

using Stream = grpc::ClientReaderWriter<v1::BatchRequest, v1::BatchStreamResponse>;

class BatchStreamTest : public BatchTest {
 protected:
  ServerOptions Options() const override {
    ServerOptions options;
    options.quotas.max_transfers = 2;
    options.limits.transfer_idle_timeout = 200ms;
    options.reap_interval = 50ms;
    return options;
  }

  struct Open {
    std::unique_ptr<grpc::ClientContext> context;
    std::unique_ptr<Stream> stream;
  };
  Open OpenStream(const std::string& session = "") {
    Open open{.context = Context(session), .stream = nullptr};
    open.stream = stub_->BatchStream(open.context.get());
    return open;
  }

  // Writes `request` and reads its answer; false when the stream ended instead.
  static bool Exchange(Stream& stream, const v1::BatchRequest& request,
                       v1::BatchStreamResponse* answer) {
    return stream.Write(request) && stream.Read(answer);
  }
};

TEST_F(BatchStreamTest, BatchesRunInOrderAndAFailedOneAnswersItsErrorAndTheStreamGoesOn) {
  const std::string a = Array({1, 2, 3});
  Open open = OpenStream();
  v1::BatchStreamResponse answer;
  ASSERT_TRUE(Exchange(
      *open.stream, Reading(Batch({Elementwise("add", {Handle(a), Number(1)})}, {0}), 0), &answer));
  ASSERT_TRUE(answer.has_response());
  EXPECT_EQ(AsDoubles(answer.response().data()), (std::vector<double>{2, 3, 4}));
  const std::string kept = answer.response().results(0).handle();

  // A batch that fails answers its error, as Batch would fail, and leaves nothing.
  ASSERT_TRUE(Exchange(
      *open.stream,
      Batch({Elementwise("add", {Handle(kept), Number(1)}), Elementwise("frobnicate", {Result(0)})},
            {0, 1}),
      &answer));
  ASSERT_TRUE(answer.has_error());
  EXPECT_EQ(answer.error().code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(answer.error().message(),
            "ops[1] (elementwise frobnicate): unknown elementwise op 'frobnicate'");
  EXPECT_EQ(Listed(), (std::set<std::string>{a, kept}));

  // The stream goes on, in order: this batch reads what the first one kept.
  ASSERT_TRUE(Exchange(*open.stream,
                       Reading(Batch({Elementwise("multiply", {Handle(kept), Number(10)})}, {}), 0),
                       &answer));
  ASSERT_TRUE(answer.has_response());
  EXPECT_EQ(AsDoubles(answer.response().data()), (std::vector<double>{20, 30, 40}));
  ASSERT_TRUE(open.stream->WritesDone());
  EXPECT_TRUE(open.stream->Finish().ok());
  EXPECT_EQ(Listed(), (std::set<std::string>{a, kept}));
}

TEST_F(BatchStreamTest, AnIdleStreamStaysOpenAndEndsWithItsSession) {
  const std::string other = OpenSession();
  const std::string a = Array({5});
  Open open = OpenStream(other);
  v1::BatchStreamResponse answer;
  ASSERT_TRUE(Exchange(*open.stream, Batch({Arange(3)}, {0}), &answer));
  ASSERT_TRUE(answer.has_response());
  std::this_thread::sleep_for(600ms);  // Three idle timeouts: an upload would be cancelled.
  ASSERT_TRUE(Exchange(*open.stream, Batch({Arange(4)}, {0}), &answer));
  ASSERT_TRUE(answer.has_response());

  grpc::ClientContext close;
  close.AddMetadata("x-arrayhub-session", other);
  v1::CloseSessionResponse closed;
  ASSERT_TRUE(stub_->CloseSession(&close, {}, &closed).ok());
  EXPECT_EQ(closed.arrays_freed(), 2);
  EXPECT_FALSE(open.stream->Read(&answer));
  EXPECT_EQ(open.stream->Finish().error_code(), grpc::StatusCode::CANCELLED);
  EXPECT_EQ(Listed(), (std::set<std::string>{a}));
}

TEST_F(BatchStreamTest, TheDrainEndsAStreamThatWaitsForItsNextBatchAtOnce) {
  Open open = OpenStream();
  v1::BatchStreamResponse answer;
  ASSERT_TRUE(Exchange(*open.stream, Batch({Arange(3)}, {0}), &answer));
  ASSERT_TRUE(answer.has_response());
  const auto start = std::chrono::steady_clock::now();
  std::thread drain([&] { server_->Shutdown(5000ms); });
  EXPECT_FALSE(open.stream->Read(&answer));
  // CANCELLED when the drain found the stream waiting; UNAVAILABLE when it came while the
  // handler was still between writing the answer and waiting again (it then ends the stream).
  const grpc::StatusCode code = open.stream->Finish().error_code();
  EXPECT_TRUE(code == grpc::StatusCode::CANCELLED || code == grpc::StatusCode::UNAVAILABLE) << code;
  drain.join();
  // The drain did not wait out its 5 s for the idle stream.
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
}

TEST_F(BatchStreamTest, AnOpenStreamTakesATransferSlot) {
  v1::BatchStreamResponse answer;
  Open first = OpenStream(), second = OpenStream();
  ASSERT_TRUE(Exchange(*first.stream, Batch({Arange(2)}, {}), &answer));
  ASSERT_TRUE(Exchange(*second.stream, Batch({Arange(2)}, {}), &answer));
  Open third = OpenStream();
  EXPECT_FALSE(Exchange(*third.stream, Batch({Arange(2)}, {}), &answer));
  EXPECT_STATUS(third.stream->Finish(), RESOURCE_EXHAUSTED,
                "tenant 'anonymous' transfer quota exceeded (--tenant-max-transfers 2): 2 "
                "uploads, downloads, Batch streams and session watches are in flight");
  v1::ArrayInfo info;
  EXPECT_STATUS(Upload(v1::DTYPE_UINT8, {3}, "abc", &info), RESOURCE_EXHAUSTED,
                "--tenant-max-transfers 2");
  // Batch itself takes none.
  EXPECT_TRUE(Run(Batch({Arange(2)}, {})).ok());

  ASSERT_TRUE(first.stream->WritesDone());
  EXPECT_TRUE(first.stream->Finish().ok());
  ASSERT_TRUE(Eventually([&] {
    Open again = OpenStream();
    v1::BatchStreamResponse reply;
    const bool ran = Exchange(*again.stream, Batch({Arange(2)}, {}), &reply);
    again.stream->WritesDone();
    (void)again.stream->Finish();
    return ran && reply.has_response();
  }));
}

TEST_F(BatchStreamTest, AStreamWithoutASessionIsRefused) {
  grpc::ClientContext context;
  std::unique_ptr<Stream> stream = stub_->BatchStream(&context);
  v1::BatchStreamResponse answer;
  EXPECT_FALSE(Exchange(*stream, Batch({Arange(2)}, {}), &answer));
  EXPECT_STATUS(stream->Finish(), INVALID_ARGUMENT, "missing x-arrayhub-session metadata");
}

// The client goes while a long batch runs: the batch stops, and neither its arrays nor the
// stream's slot stay behind.
TEST_F(BatchStreamTest, AClientThatGoesMidBatchLeavesNothing) {
  constexpr int64_t kElements = 1 << 20;
  const std::string big = Array(std::vector<double>(kElements, 1.0));
  const std::set<std::string> before = Listed();
  // A thousand steps of sum and add over 8 MB (seconds on the CPU backend); the sums keep the
  // adds from fusing into one chain, so the batch looks at its stop signal between them.
  v1::BatchRequest request;
  *request.add_ops() = Elementwise("add", {Handle(big), Number(1)});
  while (request.ops_size() < 1001) {
    *request.add_ops() = Sum(Result(request.ops_size() - 1));
    *request.add_ops() = Elementwise("add", {Handle(big), Result(request.ops_size() - 1)});
  }
  request.add_keep(request.ops_size() - 1);
  {
    Open open = OpenStream();
    ASSERT_TRUE(open.stream->Write(request));
    std::this_thread::sleep_for(20ms);
    open.context->TryCancel();
    v1::BatchStreamResponse answer;
    EXPECT_FALSE(open.stream->Read(&answer));  // Stopped before it was answered.
    EXPECT_EQ(open.stream->Finish().error_code(), grpc::StatusCode::CANCELLED);
  }
  EXPECT_TRUE(Eventually([&] { return Listed() == before; }));
  EXPECT_TRUE(Eventually([&] {
    return server_->engine().Stats().bytes_in_use == baseline_.bytes_in_use + 8 * kElements;
  }));
  // Both slots are free again, once the handler has returned (just after the frees).
  EXPECT_TRUE(Eventually([&] {
    Open first = OpenStream(), second = OpenStream();
    v1::BatchStreamResponse one, other;
    const bool both = Exchange(*first.stream, Batch({Arange(2)}, {}), &one) &&
                      Exchange(*second.stream, Batch({Arange(2)}, {}), &other);
    for (Open* open : {&first, &second}) {
      open->stream->WritesDone();
      (void)open->stream->Finish();
    }
    return both && one.has_response() && other.has_response();
  }));
}

// The default transfer slots (32): one stream per thread.
class BatchStreamConcurrencyTest : public BatchStreamTest {
 protected:
  ServerOptions Options() const override { return ServerOptions(); }
};

// Streams of several sessions at once on one array: in-place adds, and reads of what they made,
// each stream's batches in its own order. Every add lands, every read sees a whole number of
// them, and nothing is left behind.
TEST_F(BatchStreamConcurrencyTest, StreamsOfManySessionsOnOneArrayLoseNothing) {
  const std::string a = Array({0, 0, 0});
  constexpr int kStreams = 4;
  constexpr int kRounds = 40;
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kStreams; ++t) {
    threads.emplace_back([&] {
      Open open = OpenStream(OpenSession());
      for (int round = 0; round < kRounds; ++round) {
        v1::BatchStreamResponse answer;
        if (!Exchange(*open.stream, AddOneThenReadTwice(a), &answer) || !answer.has_response()) {
          ++bad;
          return;
        }
        if (!ShowsWholeAdds(AsDoubles(answer.response().data()), kStreams * kRounds)) ++bad;
      }
      open.stream->WritesDone();
      if (!open.stream->Finish().ok()) ++bad;
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(Values(a), std::vector<double>(3, kStreams * kRounds));
  EXPECT_EQ(Listed(), (std::set<std::string>{a}));
}

}  // namespace
}  // namespace arrayhub::testing
