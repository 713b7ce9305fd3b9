// The tenant ledger: memory charged with the buffer (Spiller::Allocate) and released with it;
// and session quotas in the session manager.
#include "server/core/tenants.h"

#include <gtest/gtest.h>

#include "server/backend/host/host_backend.h"
#include "server/core/session_manager.h"
#include "server/core/spiller.h"
#include "tests/support/test_queue.h"

namespace arrayhub {
namespace {

class TenantLedgerTest : public ::testing::Test {
 protected:
  absl::StatusOr<std::shared_ptr<Buffer>> Charge(const std::string& tenant, int64_t nbytes) {
    return spiller_->Allocate(backend_, TestQueue(backend_), tenant, nbytes);
  }

  HostBackend backend_;
  std::shared_ptr<TenantLedger> ledger_ =
      std::make_shared<TenantLedger>(TenantQuota{.max_bytes = 100});
  std::shared_ptr<Spiller> spiller_ = std::make_shared<Spiller>(ledger_);
};

TEST_F(TenantLedgerTest, ChargesLiveAsLongAsTheBuffer) {
  auto a = Charge("alice", 60);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ((*a)->size(), 60);
  EXPECT_EQ(ledger_->BytesInUse("alice"), 60);
  EXPECT_EQ(ledger_->BytesInUse("bob"), 0);
  std::shared_ptr<Buffer> copy = *a;  // Another holder, as an attached handle would be.
  a->reset();
  EXPECT_EQ(ledger_->BytesInUse("alice"), 60);
  copy.reset();
  EXPECT_EQ(ledger_->BytesInUse("alice"), 0);
  EXPECT_EQ(backend_.Memory().bytes_in_use, 0);
}

// Host memory a request holds (no buffer) is charged the same way, for as long as the charge
// lives, wherever it is moved to.
TEST_F(TenantLedgerTest, ReservationsChargeUntilTheyGo) {
  auto held = ledger_->Reserve("alice", 70);
  ASSERT_TRUE(held.ok()) << held.status();
  EXPECT_EQ(ledger_->BytesInUse("alice"), 70);
  EXPECT_EQ(ledger_->Reserve("alice", 31).status().code(), absl::StatusCode::kResourceExhausted);
  TenantCharge moved = *std::move(held);
  EXPECT_EQ(moved.bytes(), 70);
  EXPECT_EQ(ledger_->BytesInUse("alice"), 70);
  moved = TenantCharge();
  EXPECT_EQ(ledger_->BytesInUse("alice"), 0);
}

// Backends find their own buffer behind the charge (the CUDA backend fences and exports it).
TEST_F(TenantLedgerTest, TheChargedBufferLeadsToTheBackendsBuffer) {
  auto charged = Charge("alice", 16);
  ASSERT_TRUE(charged.ok()) << charged.status();
  const Buffer& inner = (*charged)->backend_buffer();
  EXPECT_NE(charged->get(), &inner);
  EXPECT_EQ((*charged)->data(), inner.data());
  EXPECT_EQ(&inner.backend_buffer(), &inner);
}

TEST_F(TenantLedgerTest, OverTheQuotaNothingIsChargedAndTheBufferIsFreed) {
  auto a = Charge("alice", 60);
  ASSERT_TRUE(a.ok());
  auto b = Charge("alice", 41);
  EXPECT_EQ(b.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(b.status().message(),
            "tenant 'alice' memory quota exceeded (--tenant-max-bytes 100): the request needs 41 "
            "bytes and the tenant already uses 60 bytes");
  EXPECT_EQ(ledger_->CheckRoom("alice", 41).code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(ledger_->CheckRoom("alice", 40).ok());
  EXPECT_EQ(backend_.Memory().bytes_in_use, 60);  // The refused buffer is gone.
  EXPECT_TRUE(Charge("bob", 100).ok());
}

TEST_F(TenantLedgerTest, EmptyBuffersCostNothing) {
  auto empty = Charge("alice", 0);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(ledger_->BytesInUse("alice"), 0);
  empty->reset();
  EXPECT_EQ(ledger_->BytesInUse("alice"), 0);
}

TEST_F(TenantLedgerTest, BuffersOutlivingTheLedgersOwnerStillRelease) {
  auto a = Charge("alice", 8);
  ASSERT_TRUE(a.ok());
  std::shared_ptr<Buffer> survivor = *std::move(a);
  ledger_.reset();  // The engine went first, as at shutdown.
  spiller_.reset();
  survivor.reset();
  EXPECT_EQ(backend_.Memory().bytes_in_use, 0);
}

TEST(TenantNameTest, OnlyShortPlainNamesAreTenants) {
  EXPECT_TRUE(ValidateTenantName("lab-7.gpu_users", "tenant").ok());
  EXPECT_FALSE(ValidateTenantName("", "tenant").ok());
  EXPECT_FALSE(ValidateTenantName(std::string(65, 'a'), "tenant").ok());
  EXPECT_FALSE(ValidateTenantName("a/b", "tenant").ok());
  EXPECT_EQ(ValidateTenantName("a b", "owner").message(),
            "owner must be 1 to 64 characters of [A-Za-z0-9._-] (a tenant name), got 3 "
            "characters");
}

TEST(SessionQuotaTest, EachTenantOpensAtMostItsQuota) {
  SessionManager sessions(SessionOptions{.max_per_tenant = 2});
  const auto now = Clock::now();
  const Session first = sessions.Open("alice", "a", std::chrono::seconds(1), now).value();
  ASSERT_TRUE(sessions.Open("alice", "b", std::chrono::seconds(60), now).ok());
  auto third = sessions.Open("alice", "c", std::chrono::seconds(60), now);
  EXPECT_EQ(third.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(sessions.Open("bob", "d", std::chrono::seconds(60), now).ok());
  // Closing or expiring gives the slot back.
  ASSERT_TRUE(sessions.Close("alice", first.id).ok());
  const Session again = sessions.Open("alice", "e", std::chrono::seconds(1), now).value();
  EXPECT_FALSE(sessions.Open("alice", "f", std::chrono::seconds(1), now).ok());
  EXPECT_EQ(sessions.TakeExpired(now + std::chrono::seconds(2)).size(), 1u);
  EXPECT_TRUE(sessions.Open("alice", "g", std::chrono::seconds(1), now).ok());
  (void)again;
}

}  // namespace
}  // namespace arrayhub
