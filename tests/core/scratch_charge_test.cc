// The scratch memory of a tenant's backend calls counts against its byte quota (scratch_payer.h,
// installed by Engine::Bind): a sort whose permutation buffers would take the tenant past its
// quota is refused before it runs, and what it paid is refunded once it is done.
#include <gtest/gtest.h>

#include <chrono>

#include "server/backend/host/host_backend.h"
#include "server/common/scratch_payer.h"
#include "server/core/engine.h"

namespace arrayhub {
namespace {

constexpr int64_t kQuotaBytes = 1 << 20;

class ScratchChargeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<Session> session = engine_.OpenSession("t", "scratch", std::chrono::seconds(60));
    ASSERT_TRUE(session.ok()) << session.status();
    caller_ = engine_.ResolveSession("t", session->id.ToString()).value();
  }

  // Sorts a new float64 array of `n` elements (8n bytes; its sorted copy 8n more, and the
  // host backend's permutation and merge buffer 16n of scratch).
  absl::Status Sort(int64_t n) {
    absl::StatusOr<ArrayTable::RecordPtr> array = engine_.Create(
        caller_, {.dtype = DType::kFloat64, .shape = {n}, .kind = RandomKind{.seed = 3}});
    if (!array.ok()) return array.status();
    OperandSpec operand;
    operand.handle = (*array)->handle.ToString();
    return engine_
        .ArrayOp(caller_, {.op = ArrayOpKind::kSort,
                           .operands = {operand},
                           .dtype = std::nullopt,
                           .axes = std::vector<int64_t>{0},
                           .ints = {}})
        .status();
  }

  Engine engine_{std::make_unique<HostBackend>(), Limits{}, SessionOptions{},
                 TenantQuota{.max_bytes = kQuotaBytes}};
  Caller caller_;
};

TEST_F(ScratchChargeTest, ScratchPastTheQuotaIsRefusedBeforeTheCallRuns) {
  // 32n bytes in all: 32 KiB fits the 1 MiB quota; 40,000 elements (1.28 MB) do not, though the
  // array and its sorted copy alone (640 KB) would.
  ASSERT_TRUE(Sort(1024).ok());
  EXPECT_EQ(engine_.TenantBytesInUse("t"), 2 * 8 * 1024);  // The scratch went back.
  const absl::Status refused = Sort(40000);
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted) << refused;
  EXPECT_EQ(engine_.TenantBytesInUse("t"), 2 * 8 * 1024 + 8 * 40000);  // Only the new input.
}

// The host's LAPACK calls pay for their working copies too: an SVD of a 200 x 200 float64
// matrix (320 KB, its u, s and vh 642 KB more) fits the quota as arrays, but not with the
// copies of a, u and vt it works in (960 KB); a 20 x 20 one does, and pays its copies back.
TEST_F(ScratchChargeTest, LapackWorkingCopiesPastTheQuotaAreRefusedBeforeTheCallRuns) {
  auto svd = [&](int64_t n) -> absl::Status {
    absl::StatusOr<ArrayTable::RecordPtr> array = engine_.Create(
        caller_, {.dtype = DType::kFloat64, .shape = {n, n}, .kind = RandomKind{.seed = 5}});
    if (!array.ok()) return array.status();
    OperandSpec operand;
    operand.handle = (*array)->handle.ToString();
    LinalgSpec spec;
    spec.op = LinalgOp::kSvd;
    spec.operands = {operand};
    absl::StatusOr<std::vector<ArrayTable::RecordPtr>> results = engine_.Linalg(caller_, spec);
    if (!results.ok()) return results.status();
    std::vector<std::string> handles{*operand.handle};
    for (const ArrayTable::RecordPtr& result : *results) {
      handles.push_back(result->handle.ToString());
    }
    return engine_.Free(caller_, handles).status();
  };
  ASSERT_TRUE(svd(20).ok());
  EXPECT_EQ(engine_.TenantBytesInUse("t"), 0);  // Arrays freed, copies paid back.
  const absl::Status refused = svd(200);
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted) << refused;
}

TEST(ScratchPayerTest, NoPayerMeansNothingToPayAndScopesNest) {
  EXPECT_EQ(PayForScratch(100).value(), nullptr);
  class Counting final : public ScratchPayer {
   public:
    absl::StatusOr<std::unique_ptr<ScratchReceipt>> Pay(int64_t bytes) const override {
      paid += bytes;
      return std::make_unique<ScratchReceipt>();
    }
    mutable int64_t paid = 0;
  };
  Counting outer;
  Counting inner;
  {
    const ScopedScratchPayer first(&outer);
    EXPECT_NE(PayForScratch(10).value(), nullptr);
    {
      const ScopedScratchPayer second(&inner);
      EXPECT_NE(PayForScratch(5).value(), nullptr);
    }
    EXPECT_NE(PayForScratch(1).value(), nullptr);
  }
  EXPECT_EQ(PayForScratch(100).value(), nullptr);
  EXPECT_EQ(outer.paid, 11);
  EXPECT_EQ(inner.paid, 5);
}

}  // namespace
}  // namespace arrayhub
