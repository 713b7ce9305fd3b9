// WatchSession: WATCHING first, LEASE_EXPIRING once the lease is mostly gone without a
// KeepAlive, SESSION_ENDED with the arrays freed, DRAINING at the drain; the stream then ends
// OK. A watch takes a transfer slot of its tenant, holds nothing once its client goes, and
// cannot be opened on another tenant's session.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tests/transport/rpc_fixture.h"

namespace arrayhub::testing {
namespace {

using namespace std::chrono_literals;

struct Watch {
  std::unique_ptr<grpc::ClientContext> context;
  std::unique_ptr<grpc::ClientReader<v1::SessionEvent>> reader;

  // The next event; fails the test when the stream ended instead.
  v1::SessionEvent Next() {
    v1::SessionEvent event;
    EXPECT_TRUE(reader->Read(&event)) << "the stream ended";
    return event;
  }
};

int64_t NowUnixMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class WatchSessionTest : public RpcTest {
 protected:
  ServerOptions Options() const override {
    ServerOptions options;
    options.quotas.max_transfers = 2;
    options.reap_interval = 20ms;
    options.sessions.lease_warning_fraction = 0.5;
    return options;
  }

  // A watch of `session` (the fixture's by default) whose calls give up after 10 s.
  Watch Open(std::unique_ptr<grpc::ClientContext> context) {
    context->set_deadline(std::chrono::system_clock::now() + 10s);
    Watch watch{.context = std::move(context), .reader = nullptr};
    watch.reader = stub_->WatchSession(watch.context.get(), v1::WatchSessionRequest());
    return watch;
  }
  Watch Open(const std::string& session = "") { return Open(Context(session)); }

  std::string OpenSession(int64_t lease_seconds) {
    grpc::ClientContext context;
    v1::OpenSessionRequest request;
    request.set_lease_seconds(lease_seconds);
    v1::OpenSessionResponse response;
    EXPECT_TRUE(stub_->OpenSession(&context, request, &response).ok());
    return response.session_id();
  }

  void Zeros(const std::string& session) {
    v1::CreateRequest request;
    request.set_dtype(v1::DTYPE_FLOAT64);
    request.add_shape(4);
    request.mutable_zeros();
    v1::ArrayInfo info;
    ASSERT_TRUE(stub_->Create(Context(session).get(), request, &info).ok());
  }

  grpc::Status Close(const std::string& session, int64_t* freed = nullptr) {
    v1::CloseSessionResponse response;
    grpc::Status status = stub_->CloseSession(Context(session).get(), {}, &response);
    if (freed != nullptr) *freed = response.arrays_freed();
    return status;
  }

  bool NoWatchLeft() {
    return Eventually([&] { return server_->engine().Stats().session_watches == 0; });
  }
};

TEST_F(WatchSessionTest, TheFirstEventIsWatchingWithTheLeasesExpiry) {
  Watch watch = Open();
  const v1::SessionEvent first = watch.Next();
  EXPECT_EQ(first.kind(), v1::SessionEvent::KIND_WATCHING);
  EXPECT_FALSE(first.has_session_ended());
  // The default lease (60 s) from when the session opened, a moment ago.
  EXPECT_NEAR(static_cast<double>(first.lease_expires_unix_ms() - NowUnixMillis()), 60000, 2000);
  EXPECT_EQ(server_->engine().Stats().session_watches, 1);
  watch.context->TryCancel();
  EXPECT_EQ(watch.reader->Finish().error_code(), grpc::StatusCode::CANCELLED);
  EXPECT_TRUE(NoWatchLeft());
}

TEST_F(WatchSessionTest, ALeaseAboutToRunOutIsWarnedOfOncePerRenewalThenItsEndFreesTheArrays) {
  // Before the session opens: its lease starts after this, so half of it has passed by the
  // warning however long the setup takes (the H200 saw 488 ms when timed from the watch).
  const auto opened = std::chrono::steady_clock::now();
  const std::string session = OpenSession(/*lease_seconds=*/1);
  Zeros(session);
  Zeros(session);
  Watch watch = Open(session);
  const v1::SessionEvent watching = watch.Next();
  ASSERT_EQ(watching.kind(), v1::SessionEvent::KIND_WATCHING);

  // Half the lease (the warning fraction here) passes without a KeepAlive.
  const v1::SessionEvent warned = watch.Next();
  EXPECT_EQ(warned.kind(), v1::SessionEvent::KIND_LEASE_EXPIRING);
  // The same expiry (nothing renewed it), converted to Unix time a moment later.
  EXPECT_NEAR(static_cast<double>(warned.lease_expires_unix_ms()),
              static_cast<double>(watching.lease_expires_unix_ms()), 5);
  EXPECT_GE(std::chrono::steady_clock::now() - opened, 500ms);

  // A KeepAlive moves the expiry, and with it the next warning.
  v1::KeepAliveResponse renewed;
  ASSERT_TRUE(stub_->KeepAlive(Context(session).get(), {}, &renewed).ok());
  const auto renewed_at = std::chrono::steady_clock::now();
  const v1::SessionEvent again = watch.Next();
  EXPECT_EQ(again.kind(), v1::SessionEvent::KIND_LEASE_EXPIRING);
  EXPECT_NEAR(static_cast<double>(again.lease_expires_unix_ms()),
              static_cast<double>(renewed.lease_expires_unix_ms()), 5);
  EXPECT_GE(std::chrono::steady_clock::now() - renewed_at, 450ms);

  // No renewal: the lease runs out, the server frees the session's arrays, the stream ends.
  const v1::SessionEvent ended = watch.Next();
  EXPECT_EQ(ended.kind(), v1::SessionEvent::KIND_SESSION_ENDED);
  EXPECT_EQ(ended.session_ended().reason(), v1::SessionEnded::REASON_LEASE_EXPIRED);
  EXPECT_EQ(ended.session_ended().arrays_freed(), 2);
  v1::SessionEvent none;
  EXPECT_FALSE(watch.reader->Read(&none));
  EXPECT_TRUE(watch.reader->Finish().ok());
  EXPECT_TRUE(NoWatchLeft());
  ExpectNothingLeaked();
}

TEST_F(WatchSessionTest, ClosingTheSessionIsTheLastEventWithTheArraysFreed) {
  const std::string session = OpenSession(0);
  Zeros(session);
  Watch first = Open(session), second = Open(session);
  ASSERT_EQ(first.Next().kind(), v1::SessionEvent::KIND_WATCHING);
  ASSERT_EQ(second.Next().kind(), v1::SessionEvent::KIND_WATCHING);
  int64_t freed = 0;
  ASSERT_TRUE(Close(session, &freed).ok());
  EXPECT_EQ(freed, 1);
  for (Watch* watch : {&first, &second}) {
    const v1::SessionEvent ended = watch->Next();
    EXPECT_EQ(ended.kind(), v1::SessionEvent::KIND_SESSION_ENDED);
    EXPECT_EQ(ended.session_ended().reason(), v1::SessionEnded::REASON_CLOSED);
    EXPECT_EQ(ended.session_ended().arrays_freed(), 1);
    v1::SessionEvent none;
    EXPECT_FALSE(watch->reader->Read(&none));
    EXPECT_TRUE(watch->reader->Finish().ok());
  }
  EXPECT_TRUE(NoWatchLeft());
  // A closed session cannot be watched, as it cannot be used.
  Watch late = Open(session);
  v1::SessionEvent none;
  EXPECT_FALSE(late.reader->Read(&none));
  EXPECT_STATUS(late.reader->Finish(), NOT_FOUND, "not found (closed, expired, or never opened)");
}

TEST_F(WatchSessionTest, TheDrainSendsDrainingAndEndsTheStreamWithoutWaitingForIt) {
  Watch watch = Open();
  ASSERT_EQ(watch.Next().kind(), v1::SessionEvent::KIND_WATCHING);
  const auto start = std::chrono::steady_clock::now();
  std::thread drain([&] { server_->Shutdown(5000ms); });
  EXPECT_EQ(watch.Next().kind(), v1::SessionEvent::KIND_DRAINING);
  v1::SessionEvent none;
  EXPECT_FALSE(watch.reader->Read(&none));
  EXPECT_TRUE(watch.reader->Finish().ok());
  drain.join();
  // The drain did not wait out its 5 s for the watch.
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
  EXPECT_EQ(server_->engine().Stats().session_watches, 0);
}

TEST_F(WatchSessionTest, WatchesTakeTransferSlotsOfTheirTenant) {
  Watch first = Open(), second = Open();
  ASSERT_EQ(first.Next().kind(), v1::SessionEvent::KIND_WATCHING);
  ASSERT_EQ(second.Next().kind(), v1::SessionEvent::KIND_WATCHING);
  Watch third = Open();
  v1::SessionEvent none;
  EXPECT_FALSE(third.reader->Read(&none));
  EXPECT_STATUS(third.reader->Finish(), RESOURCE_EXHAUSTED,
                "tenant 'anonymous' transfer quota exceeded (--tenant-max-transfers 2): 2 "
                "uploads, downloads, Batch streams and session watches are in flight");
  v1::ArrayInfo info;
  EXPECT_STATUS(Upload(v1::DTYPE_UINT8, {3}, "abc", &info), RESOURCE_EXHAUSTED,
                "--tenant-max-transfers 2");
  EXPECT_EQ(server_->engine().Stats().session_watches, 2);

  // A cancelled watch gives its slot back.
  first.context->TryCancel();
  EXPECT_EQ(first.reader->Finish().error_code(), grpc::StatusCode::CANCELLED);
  ASSERT_TRUE(Eventually([&] {
    Watch again = Open();
    v1::SessionEvent event;
    const bool opened = again.reader->Read(&event);
    again.context->TryCancel();
    (void)again.reader->Finish();
    return opened && event.kind() == v1::SessionEvent::KIND_WATCHING;
  }));
}

class WatchSessionConcurrencyTest : public WatchSessionTest {
 protected:
  ServerOptions Options() const override {
    ServerOptions options = WatchSessionTest::Options();
    options.quotas.max_transfers = 6;  // Fewer than the threads: some watches are refused.
    return options;
  }
};

// Clients that cancel, sessions that close and watches that open or are refused, all at once
// on many threads: every watch ends, and none is left behind.
TEST_F(WatchSessionConcurrencyTest, ClientsThatGoLeaveNothingWhateverTheTiming) {
  constexpr int kThreads = 8;
  constexpr int kRounds = 10;
  std::atomic<int> ended{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < kRounds; ++round) {
        const std::string session = OpenSession(0);
        Watch watch = Open(session);
        v1::SessionEvent event;
        const bool watching = watch.reader->Read(&event);
        if ((t + round) % 2 == 0) {
          watch.context->TryCancel();
        } else {
          EXPECT_TRUE(Close(session).ok());
          // Unless the slot was refused, the session's end comes.
          if (watching) {
            ASSERT_TRUE(watch.reader->Read(&event));
            EXPECT_EQ(event.kind(), v1::SessionEvent::KIND_SESSION_ENDED);
            ++ended;
          }
        }
        const grpc::Status status = watch.reader->Finish();
        EXPECT_TRUE(status.ok() || status.error_code() == grpc::StatusCode::CANCELLED ||
                    status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED)
            << status.error_message();
        if ((t + round) % 2 == 0) (void)Close(session);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_GT(ended.load(), 0);
  EXPECT_TRUE(NoWatchLeft());
  // Every slot is free again.
  Watch first = Open(), second = Open();
  EXPECT_EQ(first.Next().kind(), v1::SessionEvent::KIND_WATCHING);
  EXPECT_EQ(second.Next().kind(), v1::SessionEvent::KIND_WATCHING);
}

TEST_F(WatchSessionTest, AWatchWithoutASessionIsRefused) {
  auto context = std::make_unique<grpc::ClientContext>();
  Watch watch = Open(std::move(context));
  v1::SessionEvent none;
  EXPECT_FALSE(watch.reader->Read(&none));
  EXPECT_STATUS(watch.reader->Finish(), INVALID_ARGUMENT, "x-arrayhub-session");
  EXPECT_EQ(server_->engine().Stats().session_watches, 0);
}

class WatchSessionTenantsTest : public TenantsTest {};

TEST_F(WatchSessionTenantsTest, AnotherTenantCannotWatchYourSession) {
  const TenantClient alice = Connect("alice"), bob = Connect("bob");
  const std::string made_up(32, 'a');
  std::vector<grpc::Status> answers;
  for (const std::string& session : {alice.session, made_up}) {
    auto context = bob.Context(session);
    auto reader = bob.stub->WatchSession(context.get(), v1::WatchSessionRequest());
    v1::SessionEvent none;
    EXPECT_FALSE(reader->Read(&none));
    answers.push_back(reader->Finish());
  }
  // Alice's session answers exactly as one that never existed, but for its id.
  EXPECT_EQ(answers[0].error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(answers[1].error_code(), grpc::StatusCode::NOT_FOUND);
  std::string alice_message = answers[0].error_message();
  alice_message.replace(alice_message.find(alice.session), alice.session.size(), made_up);
  EXPECT_EQ(alice_message, answers[1].error_message());
  EXPECT_EQ(server_->engine().Stats().session_watches, 0);
}

}  // namespace
}  // namespace arrayhub::testing
