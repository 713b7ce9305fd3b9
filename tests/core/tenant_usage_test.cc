// Per-tenant usage as operators see it: arrays and sessions counted per owner, and each buffer's
// bytes once per tenant however many handles (views) share it.

#include "server/core/tenant_usage.h"

#include <gtest/gtest.h>

#include "server/backend/host/host_backend.h"
#include "server/core/engine.h"
#include "tests/support/test_queue.h"

namespace arrayhub {
namespace {

std::shared_ptr<ArrayRecord> Record(std::string owner, std::shared_ptr<Buffer> buffer) {
  auto record = std::make_shared<ArrayRecord>();
  record->handle = Handle::Random();
  record->shape = {buffer->size() / 4};
  record->strides = ContiguousStrides(record->shape);
  record->buffer = std::move(buffer);
  record->owner = std::move(owner);
  return record;
}

TEST(TenantUsageTest, CountsHandlesAndSessionsPerOwnerAndSharedBuffersOnce) {
  HostBackend backend;
  std::shared_ptr<Buffer> shared = backend.memory().Allocate(TestQueue(backend), 400).value();
  auto base = Record("alice", shared);
  auto view = Record("alice", shared);  // A second handle on the same memory.
  view->base = base->handle;
  const std::vector<ArrayTable::RecordPtr> records = {
      base, view, Record("alice", backend.memory().Allocate(TestQueue(backend), 40).value()),
      Record("bob", backend.memory().Allocate(TestQueue(backend), 8).value())};

  const auto usage = TallyUsage(records, {{"alice", 2}, {"carol", 1}});

  ASSERT_EQ(usage.size(), 3u);
  EXPECT_EQ(usage.at("alice").arrays, 3);
  EXPECT_EQ(usage.at("alice").bytes, 440);
  EXPECT_EQ(usage.at("alice").sessions, 2);
  EXPECT_EQ(usage.at("bob").arrays, 1);
  EXPECT_EQ(usage.at("bob").bytes, 8);
  EXPECT_EQ(usage.at("bob").sessions, 0);
  // A tenant with a session and no arrays still has a row.
  EXPECT_EQ(usage.at("carol").arrays, 0);
  EXPECT_EQ(usage.at("carol").bytes, 0);
  EXPECT_EQ(usage.at("carol").sessions, 1);
}

TEST(TenantUsageTest, EngineReportsEachTenantsArraysAndSessions) {
  Engine engine(std::make_unique<HostBackend>(), Limits{}, SessionOptions{});
  const Session alice = engine.OpenSession("alice", "test", std::chrono::seconds(0)).value();
  ASSERT_TRUE(engine.OpenSession("alice", "test", std::chrono::seconds(0)).ok());
  const Session bob = engine.OpenSession("bob", "test", std::chrono::seconds(0)).value();
  const Caller alice_caller{.tenant = "alice", .session = alice.id};
  const Caller bob_caller{.tenant = "bob", .session = bob.id};
  const CreateSpec zeros{.dtype = DType::kFloat64, .shape = {10}, .kind = ZerosKind{}};
  ASSERT_TRUE(engine.Create(alice_caller, zeros).ok());
  ASSERT_TRUE(engine.Create(alice_caller, zeros).ok());
  ASSERT_TRUE(engine.Create(bob_caller, zeros).ok());

  auto usage = engine.UsageByTenant();
  EXPECT_EQ(usage["alice"].arrays, 2);
  EXPECT_EQ(usage["alice"].bytes, 160);
  EXPECT_EQ(usage["alice"].sessions, 2);
  EXPECT_EQ(usage["bob"].arrays, 1);
  EXPECT_EQ(usage["bob"].bytes, 80);
  EXPECT_EQ(usage["bob"].sessions, 1);

  ASSERT_TRUE(engine.CloseSession(bob_caller).ok());
  usage = engine.UsageByTenant();
  EXPECT_FALSE(usage.contains("bob"));
  EXPECT_EQ(usage["alice"].arrays, 2);
}

}  // namespace
}  // namespace arrayhub
