// The registry of transfers in flight: a quota per tenant, cancellation by session and by idle
// time, and cancels racing with transfers that end on their own.
#include "server/core/transfers.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace arrayhub {
namespace {

Caller CallerOf(const std::string& tenant, const Handle& session) {
  return Caller{.tenant = tenant, .session = session, .queue = nullptr};
}

TEST(TransferRegistryTest, EachTenantRunsAtMostItsQuota) {
  TransferRegistry registry(2);
  const Handle session = Handle::Random();
  auto first = registry.Begin(CallerOf("alice", session), [] {});
  auto second = registry.Begin(CallerOf("alice", session), [] {});
  ASSERT_TRUE(first.ok() && second.ok());
  auto third = registry.Begin(CallerOf("alice", session), [] {});
  EXPECT_EQ(third.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(third.status().message(),
            "tenant 'alice' transfer quota exceeded (--tenant-max-transfers 2): 2 uploads, "
            "downloads, Batch streams and session watches are in flight");
  EXPECT_TRUE(registry.Begin(CallerOf("bob", session), [] {}).ok());  // Bob's own quota.
  first->reset();
  EXPECT_TRUE(registry.Begin(CallerOf("alice", session), [] {}).ok());
}

TEST(TransferRegistryTest, CancelsASessionsTransfersAndIdleOnesOnce) {
  TransferRegistry registry(10);
  const Handle one = Handle::Random(), other = Handle::Random();
  int cancelled_one = 0, cancelled_other = 0;
  auto a = registry.Begin(CallerOf("alice", one), [&] { ++cancelled_one; });
  auto b = registry.Begin(CallerOf("alice", other), [&] { ++cancelled_other; });
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(registry.CancelSession(one), 1);
  EXPECT_EQ(registry.CancelSession(one), 0);  // Cancelled once; it ends when its call does.
  EXPECT_EQ(cancelled_one, 1);
  EXPECT_EQ(cancelled_other, 0);

  EXPECT_EQ(registry.CancelIdle(Clock::now() - std::chrono::hours(1)), 0);
  (*b)->Touch();
  EXPECT_EQ(registry.CancelIdle(Clock::now() + std::chrono::seconds(1)), 1);
  EXPECT_EQ(cancelled_other, 1);
  a->reset();
  b->reset();
  EXPECT_EQ(registry.size(), 0);
}

TEST(TransferRegistryTest, OneKeptFromTheIdleCancelIsCancelledWithItsSessionOnly) {
  TransferRegistry registry(10);
  const Handle session = Handle::Random();
  int cancelled = 0;
  auto stream = registry.Begin(CallerOf("alice", session), [&] { ++cancelled; });
  ASSERT_TRUE(stream.ok());
  (*stream)->KeepFromIdleCancel();
  EXPECT_EQ(registry.CancelIdle(Clock::now() + std::chrono::hours(1)), 0);
  EXPECT_EQ(registry.CancelSession(session), 1);
  EXPECT_EQ(cancelled, 1);
}

// A cancel may end its transfer on the very thread that cancels (a call's reactions can run
// inline): the ticket then goes inside the cancel, which must not wait for itself.
TEST(TransferRegistryTest, ACancelThatEndsTheTransferInlineReturns) {
  TransferRegistry registry(1);
  const Handle session = Handle::Random();
  std::unique_ptr<TransferRegistry::Ticket> ticket;
  auto begun = registry.Begin(CallerOf("alice", session), [&] { ticket.reset(); });
  ASSERT_TRUE(begun.ok());
  ticket = *std::move(begun);
  EXPECT_EQ(registry.CancelSession(session), 1);
  EXPECT_EQ(ticket, nullptr);
  EXPECT_EQ(registry.size(), 0);
}

// Transfers begin, touch and end on many threads while others cancel them: a cancel reaches
// only a transfer still running, and the counts come back to zero.
TEST(TransferRegistryTest, CancelsRaceWithTransfersEndingOnTheirOwn) {
  TransferRegistry registry(1000);
  const Handle session = Handle::Random();
  std::atomic<bool> done{false};
  std::atomic<int64_t> late_cancels{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 2000; ++i) {
        auto running = std::make_shared<std::atomic<bool>>(true);
        auto ticket = registry.Begin(CallerOf("alice", session), [running, &late_cancels] {
          if (!running->load()) late_cancels.fetch_add(1);
        });
        ASSERT_TRUE(ticket.ok());
        (*ticket)->Touch();
        ticket->reset();
        running->store(false);
      }
    });
  }
  std::thread canceller([&] {
    while (!done.load()) {
      registry.CancelSession(session);
      registry.CancelIdle(Clock::now());
    }
  });
  for (std::thread& thread : threads) thread.join();
  done.store(true);
  canceller.join();
  EXPECT_EQ(late_cancels.load(), 0);
  EXPECT_EQ(registry.size(), 0);
}

}  // namespace
}  // namespace arrayhub
