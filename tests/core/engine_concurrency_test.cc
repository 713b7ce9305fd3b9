// 64 threads of four tenants on one Engine at once: sessions, creation, computation,
// publishing, attaching, freeing and lease reaping, for a bounded time. Run under
// ThreadSanitizer in CI (scripts/sanitizer-tests.sh) as well as in the plain build.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "server/backend/host/host_backend.h"
#include "server/core/engine.h"
#include "tests/support/engine_download.h"

namespace arrayhub {
namespace {

using std::chrono::seconds;

constexpr int kThreads = 64;
constexpr auto kDuration = std::chrono::milliseconds(1500);

// One thread's loop; returns the number of unexpected errors (and reports them).
int Work(Engine& engine, int index, std::chrono::steady_clock::time_point deadline) {
  const std::string tenant = "tenant" + std::to_string(index % 4);
  const std::string neighbour = "tenant" + std::to_string((index + 1) % 4);
  int errors = 0;
  auto expect_ok = [&](const absl::Status& status, const char* what) {
    if (!status.ok()) {
      ++errors;
      ADD_FAILURE() << what << ": " << status;
    }
  };
  for (int round = 0; std::chrono::steady_clock::now() < deadline; ++round) {
    absl::StatusOr<Session> session = engine.OpenSession(tenant, "concurrency", seconds(60));
    expect_ok(session.status(), "open");
    if (!session.ok()) continue;
    const Caller caller{.tenant = tenant, .session = session->id};
    auto ones = engine.Create(
        caller, {.dtype = DType::kFloat32, .shape = {64 + index}, .kind = OnesKind{}});
    expect_ok(ones.status(), "create");
    if (!ones.ok()) continue;
    const std::string handle = (*ones)->handle.ToString();
    ElementwiseSpec add;
    add.op = ElementwiseOp::kAdd;
    add.operands = {OperandSpec{.handle = handle, .scalar = {}, .chain_value = {}},
                    OperandSpec{.handle = handle, .scalar = {}, .chain_value = {}}};
    expect_ok(engine.Elementwise(caller, add).status(), "add");
    ReduceSpec sum_spec;
    sum_spec.op = ReduceOp::kSum;
    sum_spec.input = handle;
    auto sum = engine.Reduce(caller, sum_spec);
    expect_ok(sum.status(), "sum");
    if (sum.ok()) {
      float total = 0;
      absl::StatusOr<std::vector<std::byte>> bytes = testing::DownloadBytes(engine, caller, **sum);
      expect_ok(bytes.status(), "read");
      if (bytes.ok()) std::memcpy(&total, bytes->data(), sizeof(total));
      if (total != 64 + index) {
        ++errors;
        ADD_FAILURE() << "sum " << total << " != " << 64 + index;
      }
    }
    // Share with the neighbouring tenant; attach what a thread of the previous tenant shared.
    const std::string name = "t" + std::to_string(index) + "-" + std::to_string(round);
    expect_ok(
        engine.Publish(caller, {.handle = handle, .name = name, .reader_tenants = {neighbour}})
            .status(),
        "publish");
    const int previous = (index + kThreads - 1) % kThreads;
    const std::string previous_tenant = "tenant" + std::to_string(previous % 4);
    auto attached = engine.Attach(
        caller, "t" + std::to_string(previous) + "-" + std::to_string(std::max(0, round - 1)),
        previous_tenant);
    // Expected: the other thread may not have published it yet, or withdrawn it already.
    if (!attached.ok() && attached.status().code() != absl::StatusCode::kNotFound) {
      expect_ok(attached.status(), "attach");
    }
    // Every other round frees the handle explicitly; otherwise closing the session does.
    if (round % 2 == 0) expect_ok(engine.Free(caller, {handle}).status(), "free");
    expect_ok(engine.Unpublish(caller, name), "unpublish");
    expect_ok(engine.CloseSession(caller).status(), "close");
    engine.ReapExpiredSessions();  // Races the others' tables; reaps nothing (60 s leases).
  }
  return errors;
}

TEST(EngineConcurrencyTest, SixtyFourThreadsLeaveNothingBehind) {
  Engine engine(std::make_unique<HostBackend>(), Limits{}, SessionOptions{});
  const auto deadline = std::chrono::steady_clock::now() + kDuration;
  std::atomic<int> errors{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] { errors += Work(engine, i, deadline); });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(errors.load(), 0);
  const EngineStats stats = engine.Stats();
  EXPECT_EQ(stats.arrays, 0);
  EXPECT_EQ(stats.sessions, 0);
  EXPECT_EQ(stats.bytes_in_use, 0);
  EXPECT_EQ(stats.buffers, 0);
  for (int t = 0; t < 4; ++t) EXPECT_EQ(engine.TenantBytesInUse("tenant" + std::to_string(t)), 0);
}

}  // namespace
}  // namespace arrayhub
