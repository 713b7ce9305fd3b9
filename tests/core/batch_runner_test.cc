// The batch runner without the transport: ops run in order reading earlier results, a failing
// op ends the batch with its index and label in the message, and the arrays the batch made are
// freed unless kept.
#include "server/core/batch_runner.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "server/backend/host/host_backend.h"

namespace arrayhub {
namespace {

// Op 0: ones(4); op k > 0: op k-1 + 1, or, at `failing`, a decoding failure.
class AddingOps final : public BatchOps {
 public:
  explicit AddingOps(int64_t failing = -1) : failing_(failing) {}
  bool Chainable(int64_t) const override { return false; }
  bool WritesIntoOut(int64_t) const override { return false; }
  absl::StatusOr<ElementwiseSpec> ChainSpec(int64_t, const BatchResults&) const override {
    return absl::InternalError("no chains here");
  }
  absl::StatusOr<BatchOpSpec> Decode(int64_t op, const BatchResults& results) const override {
    if (op == failing_) return absl::InvalidArgumentError("bad operand");
    if (op == 0) {
      return CreateSpec{.dtype = DType::kFloat64, .shape = {4}, .kind = OnesKind{}};
    }
    OperandSpec one;
    one.scalar = Scalar::Float(1.0);
    return ElementwiseSpec{.op = ElementwiseOp::kAdd, .operands = {results.OperandOf(op - 1), one}};
  }

 private:
  int64_t failing_;
};

class BatchRunnerTest : public ::testing::Test {
 protected:
  BatchRunnerTest() : engine_(std::make_unique<HostBackend>(), Limits{}, SessionOptions{}) {
    const Session session =
        engine_.OpenSession("alice", "batch_runner_test", std::chrono::seconds(60)).value();
    caller_ = engine_.ResolveSession("alice", session.id.ToString()).value();
  }

  // Three ops, each reading the one before; `keep` kept.
  BatchPlan Plan(std::vector<int32_t> keep) {
    steps_.clear();
    for (int k = 0; k < 3; ++k) {
      BatchStep step{.label = k == 0 ? "create ones" : "elementwise add"};
      if (k > 0) step.references.push_back({.field = "operands[0].batch_result", .op = k - 1});
      steps_.push_back(step);
    }
    keep_ = std::move(keep);
    return PlanBatch(steps_, keep_).value();
  }

  int64_t Arrays() {
    const auto usage = engine_.UsageByTenant();
    const auto it = usage.find("alice");
    return it == usage.end() ? 0 : it->second.arrays;
  }

  Engine engine_;
  Caller caller_;
  std::vector<BatchStep> steps_;
  std::vector<int32_t> keep_;
};

TEST_F(BatchRunnerTest, RunsInOrderAndKeepsOnlyWhatIsKept) {
  const BatchPlan plan = Plan({2});
  {
    BatchRunner runner(engine_, caller_, steps_, plan);
    ASSERT_TRUE(runner.Run(AddingOps()).ok());
    EXPECT_EQ(runner.Of(2).shape, Shape({4}));
    runner.Keep(plan.array_of[2]);
  }
  EXPECT_EQ(Arrays(), 1);  // Ops 0 and 1 were freed after op 1 and op 2 read them.
}

TEST_F(BatchRunnerTest, AFailingOpIsNamedAndLeavesNothingBehind) {
  const BatchPlan plan = Plan({2});
  absl::Status status;
  {
    BatchRunner runner(engine_, caller_, steps_, plan);
    status = runner.Run(AddingOps(/*failing=*/2));
  }
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "ops[2] (elementwise add): bad operand");
  EXPECT_EQ(Arrays(), 0);
}

}  // namespace
}  // namespace arrayhub
