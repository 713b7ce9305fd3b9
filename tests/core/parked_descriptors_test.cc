// ParkedDescriptors and DescriptorBudget: one-use, expiring tickets, a bound per sending user,
// descriptors closed when their ticket expires, and charges that come back exactly once, also
// from many threads at once.
#include "server/core/parked_descriptors.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <thread>
#include <vector>

namespace arrayhub {
namespace {

bool IsOpen(int fd) { return fcntl(fd, F_GETFD) != -1; }

class ParkedDescriptorsTest : public ::testing::Test {
 protected:
  OwnedFd NewFd() { return OwnedFd(memfd_create("parked", MFD_CLOEXEC)); }
  DescriptorCharge Charge() { return budget_.Take().value(); }

  DescriptorBudget budget_{100};
  ParkedDescriptors parked_;
  ParkedDescriptors::Clock::time_point now_ = ParkedDescriptors::Clock::now();
};

TEST_F(ParkedDescriptorsTest, ATicketIsGoodOnceAndKeepsTheSender) {
  OwnedFd fd = NewFd();
  const int raw = fd.get();
  const std::string ticket = parked_.Park(1000, std::move(fd), Charge(), now_).value();
  EXPECT_EQ(ticket.size(), 32u);
  absl::StatusOr<ParkedDescriptor> redeemed = parked_.Redeem(ticket, now_);
  ASSERT_TRUE(redeemed.ok()) << redeemed.status();
  EXPECT_EQ(redeemed->sender, 1000u);
  EXPECT_EQ(redeemed->fd.get(), raw);
  EXPECT_EQ(parked_.Redeem(ticket, now_).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(budget_.held(), 1);  // Held by the redeemed descriptor until it goes.
}

TEST_F(ParkedDescriptorsTest, AnExpiredTicketIsRefusedAndItsDescriptorClosed) {
  OwnedFd fd = NewFd();
  const int raw = fd.get();
  const std::string ticket = parked_.Park(1000, std::move(fd), Charge(), now_).value();
  parked_.DropExpired(now_ + ParkedDescriptors::kLifetime - std::chrono::milliseconds(1));
  EXPECT_TRUE(IsOpen(raw));
  parked_.DropExpired(now_ + ParkedDescriptors::kLifetime);
  EXPECT_FALSE(IsOpen(raw));
  EXPECT_EQ(budget_.held(), 0);
  EXPECT_EQ(parked_.Redeem(ticket, now_).status().code(), absl::StatusCode::kNotFound);
}

TEST_F(ParkedDescriptorsTest, EachUserHasABoundOfItsOwn) {
  std::vector<std::string> tickets;
  for (int64_t i = 0; i < ParkedDescriptors::kMaxPerUser; ++i) {
    tickets.push_back(parked_.Park(1000, NewFd(), Charge(), now_).value());
  }
  absl::StatusOr<std::string> refused = parked_.Park(1000, NewFd(), Charge(), now_);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(refused.status().message().find("user 1000 has 16 descriptors waiting"),
            std::string::npos)
      << refused.status();
  // The refused descriptor and its charge went at once.
  EXPECT_EQ(budget_.held(), ParkedDescriptors::kMaxPerUser);
  EXPECT_TRUE(parked_.Park(1001, NewFd(), Charge(), now_).ok());  // Another user.
  ASSERT_TRUE(parked_.Redeem(tickets[0], now_).ok());
  EXPECT_TRUE(parked_.Park(1000, NewFd(), Charge(), now_).ok());  // Room again.
}

TEST(DescriptorBudgetTest, NeverOvershootsAndEveryChargeComesBack) {
  DescriptorBudget budget(50);
  std::atomic<int> taken = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      std::vector<DescriptorCharge> held;
      for (int i = 0; i < 1000; ++i) {
        absl::StatusOr<DescriptorCharge> charge = budget.Take();
        if (charge.ok()) {
          EXPECT_LE(budget.held(), 50);
          held.push_back(*std::move(charge));
          ++taken;
        } else {
          EXPECT_EQ(charge.status().code(), absl::StatusCode::kResourceExhausted);
        }
        if (held.size() > 10) held.clear();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_GT(taken.load(), 0);
  EXPECT_EQ(budget.held(), 0);
}

}  // namespace
}  // namespace arrayhub
