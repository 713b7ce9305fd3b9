// IpcLeases: one lease per session and buffer, the limit, release and session end, and the
// one-use, expiring pool tickets.
#include "server/core/ipc_leases.h"

#include <gtest/gtest.h>

#include "server/backend/host/host_backend.h"
#include "tests/support/test_queue.h"

namespace arrayhub {
namespace {

class IpcLeasesTest : public ::testing::Test {
 protected:
  std::shared_ptr<const Buffer> NewBuffer() {
    return backend_.memory().Allocate(TestQueue(backend_), 64).value();
  }

  HostBackend backend_;
  IpcLeases leases_{/*max_per_session=*/3};
  Handle session_ = Handle::Random();
  IpcLeases::Clock::time_point now_ = IpcLeases::Clock::now();
};

TEST_F(IpcLeasesTest, TheSameBufferIsTheSameLease) {
  auto a = NewBuffer(), b = NewBuffer();
  const std::string lease = leases_.Grant(session_, a).value();
  EXPECT_EQ(leases_.Grant(session_, a).value(), lease);
  EXPECT_NE(leases_.Grant(session_, b).value(), lease);
  // Another session gets a lease of its own.
  EXPECT_NE(leases_.Grant(Handle::Random(), a).value(), lease);
  EXPECT_EQ(leases_.CountOf(session_), 2);
}

TEST_F(IpcLeasesTest, ALeaseKeepsTheBufferUntilReleased) {
  auto buffer = NewBuffer();
  std::weak_ptr<const Buffer> watch = buffer;
  const std::string lease = leases_.Grant(session_, std::move(buffer)).value();
  EXPECT_FALSE(watch.expired());
  EXPECT_EQ(leases_.Release(Handle::Random(), lease).code(), absl::StatusCode::kNotFound);
  EXPECT_FALSE(watch.expired());
  ASSERT_TRUE(leases_.Release(session_, lease).ok());
  EXPECT_TRUE(watch.expired());
  const absl::Status again = leases_.Release(session_, lease);
  EXPECT_EQ(again.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(again.message(), "no CUDA IPC lease '" + lease + "' in this session");
}

TEST_F(IpcLeasesTest, TheSessionsEndReleasesEverything) {
  auto buffer = NewBuffer();
  std::weak_ptr<const Buffer> watch = buffer;
  ASSERT_TRUE(leases_.Grant(session_, std::move(buffer)).ok());
  leases_.EraseSession(session_);
  EXPECT_TRUE(watch.expired());
  EXPECT_EQ(leases_.CountOf(session_), 0);
}

TEST_F(IpcLeasesTest, TheLimitIsPerSession) {
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(leases_.Grant(session_, NewBuffer()).ok());
  const absl::StatusOr<std::string> refused = leases_.Grant(session_, NewBuffer());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(refused.status().message().find("--max-ipc-leases"), std::string::npos);
  EXPECT_TRUE(leases_.Grant(Handle::Random(), NewBuffer()).ok());
}

TEST_F(IpcLeasesTest, ATicketIsGoodOnceAndNotForever) {
  const std::string ticket = leases_.IssueTicket("pool-a", now_);
  EXPECT_EQ(ticket.size(), 32u);
  EXPECT_EQ(leases_.RedeemTicket(ticket, now_).value(), "pool-a");
  EXPECT_EQ(leases_.RedeemTicket(ticket, now_).status().code(), absl::StatusCode::kNotFound);

  const std::string late = leases_.IssueTicket("pool-a", now_);
  EXPECT_EQ(leases_.RedeemTicket(late, now_ + IpcLeases::kTicketLifetime).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(leases_.RedeemTicket("made-up", now_).status().code(), absl::StatusCode::kNotFound);
}

TEST_F(IpcLeasesTest, UnredeemedTicketsAreBounded) {
  const std::string first = leases_.IssueTicket("pool-a", now_);
  for (size_t i = 0; i < IpcLeases::kMaxTickets; ++i) {
    leases_.IssueTicket("pool-a", now_ + std::chrono::milliseconds(i + 1));
  }
  // The oldest went to make room; the newest is still there.
  EXPECT_EQ(leases_.RedeemTicket(first, now_).status().code(), absl::StatusCode::kNotFound);
  const std::string newest = leases_.IssueTicket("pool-b", now_ + std::chrono::seconds(10));
  EXPECT_EQ(leases_.RedeemTicket(newest, now_ + std::chrono::seconds(10)).value(), "pool-b");
}

}  // namespace
}  // namespace arrayhub
