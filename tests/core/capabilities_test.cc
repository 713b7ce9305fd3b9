// CapabilityStore: one use, expiry, the tenant and the array's dtype and shape it is scoped
// to, the lifetime bounds, and the memory a capability keeps until used or expired; many
// threads redeeming one capability get it once.
#include "server/core/capabilities.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "server/backend/host/host_backend.h"
#include "tests/support/test_queue.h"

namespace arrayhub {
namespace {

class CapabilitiesTest : public ::testing::Test {
 protected:
  std::shared_ptr<const ArrayRecord> NewRecord() {
    auto record = std::make_shared<ArrayRecord>();
    record->handle = Handle::Random();
    record->dtype = DType::kFloat64;
    record->shape = {2, 3};
    record->strides = {3, 1};
    record->buffer = backend_.memory().Allocate(TestQueue(backend_), 48).value();
    record->owner = "alice";
    return record;
  }
  absl::StatusOr<CapabilityStore::Grant> Redeem(const std::string& capability,
                                                const std::string& tenant = "alice",
                                                DType dtype = DType::kFloat64,
                                                Shape shape = {2, 3}) {
    return store_.Redeem(capability, tenant, dtype, shape, now_);
  }

  HostBackend backend_;
  CapabilityStore store_;
  CapabilityStore::Clock::time_point now_ = CapabilityStore::Clock::now();
};

TEST_F(CapabilitiesTest, RedeemedOnceByItsTenantForItsDtypeAndShape) {
  const auto record = NewRecord();
  const std::string capability =
      store_.Issue("alice", record, std::chrono::seconds(0), now_).value();
  EXPECT_EQ(capability.size(), 32u);
  EXPECT_TRUE(store_.Holds(capability));
  // Refusals answer alike and use nothing up.
  EXPECT_EQ(Redeem(capability, "mallory").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(Redeem(capability, "alice", DType::kFloat32).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(Redeem(capability, "alice", DType::kFloat64, {3, 2}).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(Redeem(capability, "mallory").status().message(),
            Redeem("0123456789abcdef0123456789abcdef").status().message());
  CapabilityStore::Grant grant = Redeem(capability).value();
  EXPECT_EQ(grant.record, record);
  EXPECT_FALSE(store_.Holds(capability));
  EXPECT_EQ(Redeem(capability).status().code(), absl::StatusCode::kNotFound);
  // A use that failed before reading anything puts it back.
  store_.Reinstate(capability, std::move(grant));
  EXPECT_EQ(Redeem(capability).value().record, record);
}

TEST_F(CapabilitiesTest, ExpiresAndThenFreesTheMemoryItKept) {
  std::weak_ptr<const Buffer> memory;
  std::string capability;
  {
    auto record = NewRecord();
    memory = record->buffer;
    capability = store_.Issue("alice", std::move(record), std::chrono::seconds(5), now_).value();
  }
  EXPECT_FALSE(memory.expired());  // The capability keeps the array's memory.
  now_ += std::chrono::seconds(5);
  EXPECT_EQ(Redeem(capability).status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(memory.expired());
  EXPECT_EQ(store_.size(), 0);
}

TEST_F(CapabilitiesTest, LifetimeIsBounded) {
  EXPECT_EQ(store_.Issue("alice", NewRecord(), std::chrono::seconds(-1), now_).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store_
                .Issue("alice", NewRecord(),
                       CapabilityStore::kMaxLifetime + std::chrono::seconds(1), now_)
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(store_.Issue("alice", NewRecord(), CapabilityStore::kMaxLifetime, now_).ok());
}

TEST_F(CapabilitiesTest, ATenantHoldsABoundedNumber) {
  const auto record = NewRecord();
  for (int64_t i = 0; i < CapabilityStore::kMaxPerTenant; ++i) {
    ASSERT_TRUE(store_.Issue("alice", record, std::chrono::seconds(1), now_).ok());
  }
  EXPECT_EQ(store_.Issue("alice", record, std::chrono::seconds(1), now_).status().code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(store_.Issue("bob", record, std::chrono::seconds(1), now_).ok());
  // Expired ones no longer count.
  now_ += std::chrono::seconds(1);
  EXPECT_TRUE(store_.Issue("alice", record, std::chrono::seconds(1), now_).ok());
}

TEST_F(CapabilitiesTest, ManyThreadsRedeemOneCapabilityOnce) {
  const std::string capability =
      store_.Issue("alice", NewRecord(), std::chrono::seconds(60), now_).value();
  std::atomic<int> redeemed = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&] {
      if (Redeem(capability).ok()) ++redeemed;
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(redeemed.load(), 1);
}

}  // namespace
}  // namespace arrayhub
