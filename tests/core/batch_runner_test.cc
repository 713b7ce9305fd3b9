// The batch runner without the transport: ops run in order reading earlier results, a failing
// op ends the batch with its index and label in the message, and the arrays the batch made are
// freed unless kept.
#include "server/core/batch_runner.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "server/backend/host/host_backend.h"

namespace arrayhub {
namespace {

// `op` of an earlier result and a float scalar.
ElementwiseSpec WithScalar(ElementwiseOp op, OperandSpec operand, double value) {
  OperandSpec scalar;
  scalar.scalar = Scalar::Float(value);
  ElementwiseSpec spec;
  spec.op = op;
  spec.operands = {std::move(operand), scalar};
  return spec;
}

ReduceSpec Reduction(ReduceOp op, std::optional<std::vector<int64_t>> axes = std::nullopt,
                     bool keepdims = false) {
  ReduceSpec spec;
  spec.op = op;
  spec.axes = std::move(axes);
  spec.keepdims = keepdims;
  return spec;
}

// Ops that run one at a time: no chains, no out= writes.
class UnchainedOps : public BatchOps {
 public:
  bool Chainable(int64_t) const override { return false; }
  bool WritesIntoOut(int64_t) const override { return false; }
  std::optional<int64_t> ReducedResult(int64_t) const override { return std::nullopt; }
  absl::StatusOr<ElementwiseSpec> ChainSpec(int64_t, const BatchResults&) const override {
    return absl::InternalError("no chains here");
  }
};

// Op 0: ones(4); op k > 0: op k-1 + 1, or, at `failing`, a decoding failure.
class AddingOps final : public UnchainedOps {
 public:
  explicit AddingOps(int64_t failing = -1) : failing_(failing) {}
  absl::StatusOr<BatchOpSpec> Decode(int64_t op, const BatchResults& results) const override {
    if (op == failing_) return absl::InvalidArgumentError("bad operand");
    if (op == 0) {
      return CreateSpec{.dtype = DType::kFloat64, .shape = {4}, .kind = OnesKind{}};
    }
    return WithScalar(ElementwiseOp::kAdd, results.OperandOf(op - 1), 1.0);
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
      BatchStep step{.label = k == 0 ? "create ones" : "elementwise add", .references = {}};
      if (k > 0) step.references.push_back({.field = "operands[0].batch_result", .op = k - 1});
      steps_.push_back(step);
    }
    keep_ = std::move(keep);
    return PlanBatch(steps_, keep_).value();
  }

  // Two ops, the second reading the first; `keep` kept.
  BatchPlan PlanTwo(std::string first, std::string second, std::vector<int32_t> keep) {
    steps_ = {BatchStep{.label = std::move(first), .references = {}},
              BatchStep{.label = std::move(second),
                        .references = {{.field = "operands[0].batch_result", .op = 0}}}};
    keep_ = std::move(keep);
    return PlanBatch(steps_, keep_).value();
  }

  // Runs `ops` under `plan`; the runner has ended, freeing what was not kept, when its status
  // comes back.
  absl::Status RunAndEnd(const BatchPlan& plan, const BatchOps& ops) {
    BatchRunner runner(engine_, caller_, steps_, plan);
    return runner.Run(ops);
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
  const absl::Status status = RunAndEnd(Plan({2}), AddingOps(/*failing=*/2));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "ops[2] (elementwise add): bad operand");
  EXPECT_EQ(Arrays(), 0);
}

// Op 0: ones(4); op 1: op 0 split in two, planned (wrongly) as one array.
class SplittingOps final : public UnchainedOps {
 public:
  absl::StatusOr<BatchOpSpec> Decode(int64_t op, const BatchResults& results) const override {
    if (op == 0) return CreateSpec{.dtype = DType::kFloat64, .shape = {4}, .kind = OnesKind{}};
    return ArrayOpSpec{.op = ArrayOpKind::kSplit, .operands = {results.OperandOf(0)}, .ints = {2}};
  }
};

// Defence in depth behind the plan's rules (eig once counted as one array there).
TEST_F(BatchRunnerTest, AnOpGivingSeveralArraysWhereThePlanHasOneIsRefusedAndFreed) {
  const absl::Status status =
      RunAndEnd(PlanTwo("create ones", "array_op split", /*keep=*/{}), SplittingOps());
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(status.message(),
            "ops[1] (array_op split): gave 2 arrays where the batch's plan has one");
  EXPECT_EQ(Arrays(), 0);
}

// Op 0: an event's record, which gives no array, planned (wrongly) as one array that a later op
// reads: the runner once took the first of none there, and the daemon fell.
class SilentOps final : public UnchainedOps {
 public:
  absl::StatusOr<BatchOpSpec> Decode(int64_t op, const BatchResults& results) const override {
    if (op == 0) return BatchRecordEventOp{.event_id = 1};
    return WithScalar(ElementwiseOp::kAdd, results.OperandOf(0), 1.0);
  }
};

TEST_F(BatchRunnerTest, AnOpGivingNoArrayWhereThePlanHasOneIsRefusedBeforeItIsRead) {
  const absl::Status status =
      RunAndEnd(PlanTwo("run_kernel silent", "elementwise add", /*keep=*/{0}), SilentOps());
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(status.message(),
            "ops[0] (run_kernel silent): gave 0 arrays where the batch's plan has one");
  EXPECT_EQ(Arrays(), 0);
}

// Op 0: ones(4, 3); op 1: op 0 * 3; op 2: op 1 + 1; op 3: `reduce` of op 2. Ops 1 and 2 are a
// chain, and op 3 reduces its last value.
class ReducedChainOps final : public BatchOps {
 public:
  explicit ReducedChainOps(ReduceSpec reduce) : reduce_(std::move(reduce)) {}
  bool Chainable(int64_t op) const override { return op == 1 || op == 2; }
  bool WritesIntoOut(int64_t) const override { return false; }
  std::optional<int64_t> ReducedResult(int64_t op) const override {
    return op == 3 ? std::optional<int64_t>(2) : std::nullopt;
  }
  absl::StatusOr<ElementwiseSpec> ChainSpec(int64_t op,
                                            const BatchResults& results) const override {
    return WithScalar(op == 1 ? ElementwiseOp::kMultiply : ElementwiseOp::kAdd,
                      results.OperandOf(op - 1), op == 1 ? 3.0 : 1.0);
  }
  absl::StatusOr<BatchOpSpec> Decode(int64_t op, const BatchResults& results) const override {
    if (op == 0) return CreateSpec{.dtype = DType::kFloat64, .shape = {4, 3}, .kind = OnesKind{}};
    if (op == 3) {
      ReduceSpec spec = reduce_;
      spec.input = results.HandleOf(2);
      return spec;
    }
    return ChainSpec(op, results);
  }

 private:
  ReduceSpec reduce_;
};

class ReducedChainTest : public BatchRunnerTest {
 protected:
  // The four ops of ReducedChainOps, op 3 and `keep` kept.
  BatchPlan Plan(std::vector<int32_t> keep) {
    steps_ = {{.label = "create ones", .references = {}},
              {.label = "elementwise multiply", .references = {{.field = "a", .op = 0}}},
              {.label = "elementwise add", .references = {{.field = "a", .op = 1}}},
              {.label = "reduce", .references = {{.field = "input", .op = 2}}}};
    keep_ = std::move(keep);
    return PlanBatch(steps_, keep_).value();
  }

  void FreeAll() {
    std::vector<Handle> handles;
    for (const ArrayTable::RecordPtr& array : engine_.List(caller_, false)) {
      handles.push_back(array->handle);
    }
    ASSERT_TRUE(engine_.Free(caller_, handles).ok());
  }
};

TEST_F(ReducedChainTest, TheReductionOfAChainIsItsLastStep) {
  for (bool keepdims : {false, true}) {
    const BatchPlan plan = Plan({3});
    {
      BatchRunner runner(engine_, caller_, steps_, plan);
      ASSERT_TRUE(
          runner.Run(ReducedChainOps(Reduction(ReduceOp::kSum, std::nullopt, keepdims))).ok());
      const ArrayRecord& sum = runner.Of(3);
      EXPECT_EQ(sum.shape, keepdims ? Shape({1, 1}) : Shape({}));
      EXPECT_EQ(*static_cast<const double*>(sum.buffer->data()), 48.0);  // 12 fours.
      runner.Keep(plan.array_of[3]);
    }
    EXPECT_EQ(Arrays(), 1);  // The chain's values never became arrays; ones(4, 3) was freed.
    FreeAll();
  }
}

// A reduction over some axes runs after the chain, on its value written out for it; a value
// the client keeps is written and reduced alike.
TEST_F(ReducedChainTest, APartialReductionAndAKeptValueRunAsBefore) {
  for (const std::vector<int32_t>& keep : {std::vector<int32_t>{3}, std::vector<int32_t>{2, 3}}) {
    const BatchPlan plan = Plan(keep);
    {
      BatchRunner runner(engine_, caller_, steps_, plan);
      ASSERT_TRUE(
          runner.Run(ReducedChainOps(Reduction(ReduceOp::kMax, std::vector<int64_t>{0}))).ok());
      const ArrayRecord& max = runner.Of(3);
      ASSERT_EQ(max.shape, Shape({3}));
      const auto* values = static_cast<const double*>(max.buffer->data());
      EXPECT_EQ(std::vector<double>(values, values + 3), std::vector<double>(3, 4.0));
      for (int32_t op : keep) runner.Keep(plan.array_of[op]);
    }
    EXPECT_EQ(Arrays(), static_cast<int64_t>(keep.size()));
    FreeAll();
  }
}

TEST_F(ReducedChainTest, AFailingReductionIsNamedAndLeavesNothingBehind) {
  const BatchPlan plan = Plan({2, 3});
  absl::Status status;
  {
    BatchRunner runner(engine_, caller_, steps_, plan);
    status = runner.Run(ReducedChainOps(Reduction(ReduceOp::kMin, std::vector<int64_t>{5})));
  }
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "ops[3] (reduce): axis 5 is out of bounds for array of dimension 2");
  EXPECT_EQ(Arrays(), 0);  // Not the kept value of op 2 either.
}

}  // namespace
}  // namespace arrayhub
