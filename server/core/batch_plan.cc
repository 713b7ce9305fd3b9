#include "server/core/batch_plan.h"

#include <fmt/format.h>

#include <algorithm>

#include "server/common/status_macros.h"

namespace arrayhub {
namespace {

std::string Labelled(std::span<const BatchStep> steps, int64_t index) {
  return fmt::format("ops[{}] ({})", index, steps[index].label);
}

constexpr std::string_view kReadOrKept = "can be read by later ops or kept";

// Whether op `named` gives one array: the only kind of result a batch can read, keep or read
// back. `what` says which of those `naming` does.
absl::Status CheckOneArray(std::span<const BatchStep> steps, int64_t named, std::string_view naming,
                           std::string_view what = kReadOrKept) {
  if (!steps[named].gives_several && !steps[named].gives_none) return absl::OkStatus();
  return absl::InvalidArgumentError(fmt::format(
      "{} names {}, which gives {}; only an op giving one array {}", naming, Labelled(steps, named),
      steps[named].gives_none ? "no array" : "several arrays", what));
}

// Op `index`'s references: each to an earlier op that gives one array.
absl::Status CheckReferences(std::span<const BatchStep> steps, int64_t index) {
  for (const BatchReference& reference : steps[index].references) {
    const std::string naming = fmt::format("{} = {}", reference.field, reference.op);
    if (reference.op < 0 || reference.op >= index) {
      const std::string earlier =
          index == 0 ? "and ops[0] has none" : fmt::format("(0 to {})", index - 1);
      const std::string_view what = reference.op == index  ? "names this op itself"
                                    : reference.op > index ? "names a later op"
                                                           : "is negative";
      return InBatchOp(
          absl::InvalidArgumentError(fmt::format("{} {}: a batch result must name an earlier op {}",
                                                 naming, what, earlier)),
          index, steps[index].label);
    }
    if (absl::Status one = CheckOneArray(steps, reference.op, naming); !one.ok()) {
      return InBatchOp(one, index, steps[index].label);
    }
  }
  return absl::OkStatus();
}

// `keep`: distinct indices of ops that give one array each. Answers which ops are kept.
absl::StatusOr<std::vector<bool>> KeptOps(std::span<const BatchStep> steps,
                                          std::span<const int32_t> keep) {
  const auto ops = static_cast<int64_t>(steps.size());
  std::vector<int64_t> kept_by(ops, -1);  // The keep entry that keeps each op, or -1.
  for (size_t k = 0; k < keep.size(); ++k) {
    const int64_t op = keep[k];
    const std::string naming = fmt::format("keep[{}] = {}", k, op);
    if (op < 0 || op >= ops) {
      return absl::InvalidArgumentError(
          fmt::format("{} is out of range: the batch has {} ops", naming, ops));
    }
    if (kept_by[op] >= 0) {
      return absl::InvalidArgumentError(fmt::format("{} repeats keep[{}]", naming, kept_by[op]));
    }
    AH_RETURN_IF_ERROR(CheckOneArray(steps, op, naming));
    kept_by[op] = static_cast<int64_t>(k);
  }
  std::vector<bool> kept(ops);
  std::transform(kept_by.begin(), kept_by.end(), kept.begin(), [](int64_t k) { return k >= 0; });
  return kept;
}

// `read`, when set: an op that gives one array.
absl::Status CheckRead(std::span<const BatchStep> steps, std::optional<int64_t> read) {
  if (!read) return absl::OkStatus();
  const std::string naming = fmt::format("read = {}", *read);
  if (*read < 0 || *read >= static_cast<int64_t>(steps.size())) {
    return absl::InvalidArgumentError(
        fmt::format("{} is out of range: the batch has {} ops", naming, steps.size()));
  }
  return CheckOneArray(steps, *read, naming, "can be read back");
}

// Per op: whose array its result is (BatchPlan::array_of). References point backwards.
std::vector<int64_t> ArraysOf(std::span<const BatchStep> steps) {
  std::vector<int64_t> array_of(steps.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    array_of[i] = static_cast<int64_t>(i);
    for (const BatchReference& reference : steps[i].references) {
      if (reference.is_out) array_of[i] = array_of[reference.op];
    }
  }
  return array_of;
}

}  // namespace

absl::Status CheckBatchSize(int64_t ops, int64_t max_ops) {
  if (ops == 0) return absl::InvalidArgumentError("ops is empty: a batch needs at least one op");
  if (ops > max_ops) {
    return absl::InvalidArgumentError(
        fmt::format("ops has {} entries; a batch has at most {}", ops, max_ops));
  }
  return absl::OkStatus();
}

absl::StatusOr<BatchPlan> PlanBatch(std::span<const BatchStep> steps, std::span<const int32_t> keep,
                                    std::optional<int64_t> read) {
  const auto ops = static_cast<int64_t>(steps.size());
  for (int64_t i = 0; i < ops; ++i) {
    if (!steps[i].has_op) {
      return absl::InvalidArgumentError(fmt::format(
          "ops[{}] has no op set (elementwise, matmul, reduce, view, array_op, create, get_item, "
          "tensor_product, linalg, fft, run_kernel or record_event)",
          i));
    }
    AH_RETURN_IF_ERROR(CheckReferences(steps, i));
  }
  AH_ASSIGN_OR_RETURN(std::vector<bool> kept, KeptOps(steps, keep));
  AH_RETURN_IF_ERROR(CheckRead(steps, read));
  std::vector<int64_t> array_of = ArraysOf(steps);

  // An array lives until the last reader of any result that is it has run (a result nothing
  // reads, only until its op is done), or to the end when it is read back; it outlives the
  // batch when any result that is it is kept.
  std::vector<int64_t> last_use(ops);
  for (int64_t i = 0; i < ops; ++i) {
    last_use[i] = i;
    for (const BatchReference& reference : steps[i].references) {
      last_use[reference.op] = i;
      last_use[array_of[reference.op]] = i;
    }
  }
  if (read) last_use[*read] = last_use[array_of[*read]] = ops;
  for (int64_t i = 0; i < ops; ++i) {
    if (kept[i]) kept[array_of[i]] = true;
  }
  BatchPlan plan{.free_after = std::vector<std::vector<int64_t>>(ops),
                 .last_use = std::move(last_use),
                 .kept = std::move(kept),
                 .array_of = std::move(array_of)};
  for (int64_t j = 0; j < ops; ++j) {
    if (plan.array_of[j] == j && !plan.kept[j] && plan.last_use[j] < ops) {
      plan.free_after[plan.last_use[j]].push_back(j);
    }
  }
  return plan;
}

absl::Status InBatchOp(const absl::Status& status, int64_t index, std::string_view label) {
  return absl::Status(status.code(),
                      fmt::format("ops[{}] ({}): {}", index, label, std::string(status.message())));
}

}  // namespace arrayhub
