// The Batch request's structural rules and the freeing schedule of its intermediates.
#include "server/core/batch_plan.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace arrayhub {
namespace {

using Frees = std::vector<std::vector<int64_t>>;

BatchStep Step(std::string label, std::vector<int64_t> reads = {}) {
  BatchStep step{.label = std::move(label),
                 .has_op = true,
                 .gives_several = false,
                 .gives_none = false,
                 .references = {}};
  for (size_t k = 0; k < reads.size(); ++k) {
    step.references.push_back(
        {.field = "operands[" + std::to_string(k) + "].batch_result", .op = reads[k]});
  }
  return step;
}

// An op that writes into op `target`'s result (out_batch_result), reading `reads`.
BatchStep WritesInto(int64_t target, std::vector<int64_t> reads = {}) {
  BatchStep step = Step("elementwise add", std::move(reads));
  step.references.push_back({.field = "out_batch_result", .op = target, .is_out = true});
  return step;
}

BatchStep Split() {
  BatchStep step = Step("array_op split");
  step.gives_several = true;
  return step;
}

void ExpectInvalid(const absl::StatusOr<BatchPlan>& plan, std::string_view message) {
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(plan.status().message()), message);
}

TEST(PlanBatchTest, FreesEachIntermediateAfterItsLastReader) {
  // t0 = a * b; t1 = t0 + 1; t2 = t0 - t1; t3 = exp(t2); keep t3 and t1.
  const std::vector<BatchStep> steps = {Step("elementwise multiply"), Step("elementwise add", {0}),
                                        Step("elementwise subtract", {0, 1}),
                                        Step("elementwise exp", {2})};
  const std::vector<int32_t> keep = {3, 1};
  absl::StatusOr<BatchPlan> plan = PlanBatch(steps, keep);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->free_after, Frees({{}, {}, {0}, {2}}));
}

TEST(PlanBatchTest, ResultsNothingReadsAreFreedAtOnce) {
  // A result neither read nor kept (an op run for its `out` write) goes right after its op.
  const std::vector<BatchStep> steps = {Step("create zeros"), Step("elementwise add", {0}),
                                        Step("elementwise add", {0})};
  absl::StatusOr<BatchPlan> plan = PlanBatch(steps, {});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->free_after, Frees({{}, {1}, {0, 2}}));
}

TEST(PlanBatchTest, AnOpReadingOneResultTwiceIsItsLastReader) {
  const std::vector<BatchStep> steps = {Step("create ones"), Step("elementwise add", {0, 0})};
  const std::vector<int32_t> keep = {1};
  absl::StatusOr<BatchPlan> plan = PlanBatch(steps, keep);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->free_after, Frees({{}, {0}}));
}

TEST(PlanBatchTest, SeveralArraysAreFineWhenNothingReadsOrKeepsThem) {
  const std::vector<BatchStep> steps = {Step("create arange"), Split()};
  const std::vector<int32_t> keep = {0};
  absl::StatusOr<BatchPlan> plan = PlanBatch(steps, keep);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->free_after, Frees({{}, {1}}));
}

TEST(PlanBatchTest, AnOpWritingIntoAResultIsThatResultsArray) {
  // t0 = zeros; add(..., out=t0) as op 1; exp(op 1) as op 2; op 3 writes into op 1, so into t0.
  const std::vector<BatchStep> steps = {Step("create zeros"), WritesInto(0),
                                        Step("elementwise exp", {1}), WritesInto(1, {2})};
  absl::StatusOr<BatchPlan> plan = PlanBatch(steps, {});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->array_of, (std::vector<int64_t>{0, 0, 2, 0}));
  // t0 lives until op 3, the last to read or write it through any of its names; ops 1 and 3
  // own nothing to free.
  EXPECT_EQ(plan->free_after, Frees({{}, {}, {}, {0, 2}}));
  EXPECT_EQ(plan->last_use[0], 3);
}

TEST(PlanBatchTest, KeepingAnOpThatWroteIntoAResultKeepsThatResult) {
  const std::vector<BatchStep> steps = {Step("create zeros"), WritesInto(0),
                                        Step("elementwise exp", {1})};
  const std::vector<int32_t> keep = {1};
  absl::StatusOr<BatchPlan> plan = PlanBatch(steps, keep);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->kept, (std::vector<bool>{true, true, false}));
  EXPECT_EQ(plan->free_after, Frees({{}, {}, {2}}));
}

TEST(PlanBatchTest, TheResultReadBackLivesToTheEnd) {
  const std::vector<BatchStep> steps = {Step("create arange"), Step("elementwise exp", {0}),
                                        Step("elementwise sqrt", {1})};
  absl::StatusOr<BatchPlan> plan = PlanBatch(steps, {}, 1);
  ASSERT_TRUE(plan.ok()) << plan.status();
  // Op 1's result is freed by the batch's end, after the read; never by the schedule.
  EXPECT_EQ(plan->free_after, Frees({{}, {0}, {2}}));
  EXPECT_EQ(plan->last_use[1], 3);
  EXPECT_EQ(plan->kept, (std::vector<bool>{false, false, false}));
  // Reading back an op that wrote into a result keeps that result's array alive.
  const std::vector<BatchStep> written = {Step("create zeros"), WritesInto(0)};
  plan = PlanBatch(written, {}, 1);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->free_after, Frees({{}, {}}));
  EXPECT_EQ(plan->last_use[0], 2);
}

TEST(PlanBatchTest, TheReadIsAnOpGivingOneArray) {
  const std::vector<BatchStep> steps = {Step("create arange"), Split()};
  ExpectInvalid(PlanBatch(steps, {}, 2), "read = 2 is out of range: the batch has 2 ops");
  ExpectInvalid(PlanBatch(steps, {}, -1), "read = -1 is out of range: the batch has 2 ops");
  ExpectInvalid(PlanBatch(steps, {}, 1),
                "read = 1 names ops[1] (array_op split), which gives several arrays; only an op "
                "giving one array can be read back");
}

TEST(PlanBatchTest, AnOutTargetIsAnEarlierOpGivingOneArray) {
  ExpectInvalid(PlanBatch(std::vector{Step("create zeros"), WritesInto(1)}, {}),
                "ops[1] (elementwise add): out_batch_result = 1 names this op itself: a batch "
                "result must name an earlier op (0 to 0)");
  ExpectInvalid(PlanBatch(std::vector{Split(), WritesInto(0)}, {}),
                "ops[1] (elementwise add): out_batch_result = 0 names ops[0] (array_op split), "
                "which gives several arrays; only an op giving one array can be read by later "
                "ops or kept");
}

TEST(CheckBatchSizeTest, NeedsOneToMaxOps) {
  const absl::Status empty = CheckBatchSize(0, 1024);
  EXPECT_EQ(empty.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(empty.message()), "ops is empty: a batch needs at least one op");
  const absl::Status many = CheckBatchSize(3, 2);
  EXPECT_EQ(many.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(many.message()), "ops has 3 entries; a batch has at most 2");
  EXPECT_TRUE(CheckBatchSize(1, 2).ok());
  EXPECT_TRUE(CheckBatchSize(2, 2).ok());
}

TEST(PlanBatchTest, EveryOpNeedsItsOneofSet) {
  std::vector<BatchStep> steps = {Step("create zeros"), Step("")};
  steps[1].has_op = false;
  ExpectInvalid(
      PlanBatch(steps, {}),
      "ops[1] has no op set (elementwise, matmul, reduce, view, array_op, create, get_item, "
      "tensor_product, linalg, fft, run_kernel or record_event)");
}

TEST(PlanBatchTest, ReferencesMustPointBackwards) {
  ExpectInvalid(PlanBatch(std::vector{Step("create zeros"), Step("elementwise add", {1})}, {}),
                "ops[1] (elementwise add): operands[0].batch_result = 1 names this op itself: a "
                "batch result must name an earlier op (0 to 0)");
  ExpectInvalid(
      PlanBatch(std::vector{Step("create zeros"), Step("matmul", {0, 2}), Step("create ones")}, {}),
      "ops[1] (matmul): operands[1].batch_result = 2 names a later op: a batch result must name "
      "an earlier op (0 to 0)");
  ExpectInvalid(PlanBatch(std::vector{Step("create zeros"), Step("elementwise abs", {-1})}, {}),
                "ops[1] (elementwise abs): operands[0].batch_result = -1 is negative: a batch "
                "result must name an earlier op (0 to 0)");
  ExpectInvalid(PlanBatch(std::vector{Step("elementwise abs", {0})}, {}),
                "ops[0] (elementwise abs): operands[0].batch_result = 0 names this op itself: a "
                "batch result must name an earlier op and ops[0] has none");
}

TEST(PlanBatchTest, KeepIndicesAreInRangeAndDistinct) {
  const std::vector<BatchStep> steps = {Step("create zeros"), Step("elementwise add", {0})};
  ExpectInvalid(PlanBatch(steps, std::vector<int32_t>{1, 2}),
                "keep[1] = 2 is out of range: the batch has 2 ops");
  ExpectInvalid(PlanBatch(steps, std::vector<int32_t>{-1}),
                "keep[0] = -1 is out of range: the batch has 2 ops");
  ExpectInvalid(PlanBatch(steps, std::vector<int32_t>{1, 0, 1}), "keep[2] = 1 repeats keep[0]");
}

TEST(PlanBatchTest, SeveralArraysCannotBeReadOrKept) {
  const std::vector<BatchStep> steps = {Step("create arange"), Split(),
                                        Step("elementwise add", {0, 1})};
  ExpectInvalid(PlanBatch(steps, {}),
                "ops[2] (elementwise add): operands[1].batch_result = 1 names ops[1] (array_op "
                "split), which gives several arrays; only an op giving one array can be read by "
                "later ops or kept");
  ExpectInvalid(PlanBatch(std::span(steps).first(2), std::vector<int32_t>{1}),
                "keep[0] = 1 names ops[1] (array_op split), which gives several arrays; only an "
                "op giving one array can be read by later ops or kept");
}

TEST(PlanBatchTest, AnOpGivingNoArrayCannotBeReadKeptOrReadBack) {
  BatchStep record = Step("record_event");
  record.gives_none = true;
  const std::vector<BatchStep> steps = {Step("create arange"), record,
                                        Step("elementwise add", {0, 1})};
  ExpectInvalid(PlanBatch(steps, {}),
                "ops[2] (elementwise add): operands[1].batch_result = 1 names ops[1] "
                "(record_event), which gives no array; only an op giving one array can be read by "
                "later ops or kept");
  const auto first_two = std::span(steps).first(2);
  ExpectInvalid(PlanBatch(first_two, std::vector<int32_t>{1}),
                "keep[0] = 1 names ops[1] (record_event), which gives no array; only an op giving "
                "one array can be read by later ops or kept");
  ExpectInvalid(PlanBatch(first_two, {}, 1),
                "read = 1 names ops[1] (record_event), which gives no array; only an op giving "
                "one array can be read back");
  // Between other ops it is fine, and nothing of it is freed.
  absl::StatusOr<BatchPlan> plan = PlanBatch(first_two, std::vector<int32_t>{0});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->free_after, (Frees{{}, {1}}));
}

TEST(InBatchOpTest, KeepsTheCodeAndPrefixesTheOp) {
  const absl::Status status = InBatchOp(absl::ResourceExhaustedError("out of memory"), 3, "matmul");
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(std::string(status.message()), "ops[3] (matmul): out of memory");
}

}  // namespace
}  // namespace arrayhub
