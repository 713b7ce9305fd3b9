#include "server/core/batch_runner.h"

#include <fmt/format.h>

#include <optional>
#include <utility>
#include <variant>

#include "server/common/status_macros.h"
#include "server/common/stop_signal.h"

namespace arrayhub {
namespace {

// The reduction that ends a chain: its input, a value of the chain, is named by no handle
// (Engine::ElementwiseChain reads it from the chain).
class ChainReductionOperands final : public BatchResults {
 public:
  ChainReductionOperands(const BatchResults& before, int64_t value)
      : before_(before), value_(value) {}
  std::string HandleOf(int64_t op) const override {
    return op == value_ ? std::string() : before_.HandleOf(op);
  }

 private:
  const BatchResults& before_;
  int64_t value_;
};

// Inside a run of elementwise ops [start, ...): results of the run are chain values, earlier
// ones arrays.
class ChainOperands final : public BatchResults {
 public:
  ChainOperands(const BatchResults& before, int64_t start) : before_(before), start_(start) {}
  std::string HandleOf(int64_t op) const override { return before_.HandleOf(op); }
  OperandSpec OperandOf(int64_t op) const override {
    if (op < start_) return before_.OperandOf(op);
    return OperandSpec{.handle = std::nullopt, .scalar = std::nullopt, .chain_value = op - start_};
  }

 private:
  const BatchResults& before_;
  int64_t start_;
};

absl::StatusOr<BatchRecords> One(absl::StatusOr<ArrayTable::RecordPtr> result) {
  if (!result.ok()) return result.status();
  return BatchRecords{*std::move(result)};
}

// std::visit's overload set.
template <typename... F>
struct Overloaded : F... {
  using F::operator()...;
};
// C++20 deduces this from the aggregate itself, but not every compiler the project builds with
// does yet (Debian 12's clang 14, which builds the fuzzers).
template <typename... F>
Overloaded(F...) -> Overloaded<F...>;

}  // namespace

absl::StatusOr<BatchRecords> RunBatchOp(Engine& engine, const Caller& caller,
                                        const BatchOpSpec& op) {
  return std::visit(
      Overloaded{
          [&](const ElementwiseSpec& spec) { return One(engine.Elementwise(caller, spec)); },
          [&](const MatmulSpec& spec) { return One(engine.Matmul(caller, spec)); },
          [&](const ReduceSpec& spec) { return One(engine.Reduce(caller, spec)); },
          [&](const ViewSpec& spec) { return One(engine.View(caller, spec)); },
          [&](const ArrayOpSpec& spec) { return engine.ArrayOp(caller, spec); },
          [&](const CreateSpec& spec) { return One(engine.Create(caller, spec)); },
          [&](const GetItemSpec& spec) { return One(engine.GetItem(caller, spec)); },
          [&](const TensorProductSpec& spec) { return One(engine.TensorProduct(caller, spec)); },
          [&](const LinalgSpec& spec) { return engine.Linalg(caller, spec); },
          [&](const FftSpec& spec) { return One(engine.Fft(caller, spec)); },
          [&](const BatchKernelOp& kernel) -> absl::StatusOr<BatchRecords> {
            AH_ASSIGN_OR_RETURN(BatchRecords outputs, engine.RunKernel(caller, kernel.spec));
            if (outputs.size() > 1 && !kernel.writes_into_out) {
              // Its new arrays could be neither read nor kept: a Batch result is one array.
              // They are made already (the kernel's outputs are known once it is checked):
              // freed, so that the failed op leaves nothing behind.
              std::vector<Handle> made;
              for (const ArrayTable::RecordPtr& output : outputs) made.push_back(output->handle);
              FreeEach(engine, caller, made);
              return absl::InvalidArgumentError(
                  "a kernel with several outputs writes them into existing arrays in a Batch "
                  "(every outputs entry names one)");
            }
            return outputs;
          },
          [&](const BatchCopyToDeviceOp& copy) {
            return One(engine.CopyToDevice(caller, copy.handle, copy.device));
          },
          [&](const BatchRecordEventOp& event) -> absl::StatusOr<BatchRecords> {
            AH_RETURN_IF_ERROR(engine.RecordEvent(caller, event.event_id));
            return BatchRecords{};
          },
      },
      op);
}

BatchRunner::BatchRunner(Engine& engine, const Caller& caller, std::span<const BatchStep> steps,
                         const BatchPlan& plan)
    : engine_(engine),
      caller_(caller),
      steps_(steps),
      plan_(plan),
      arrays_(steps.size()),
      created_(steps.size()) {}

BatchRunner::~BatchRunner() {
  for (size_t op = 0; op < arrays_.size(); ++op) Free(static_cast<int64_t>(op));
}

void BatchRunner::Set(int64_t op, BatchRecords arrays, bool created) {
  arrays_[op] = std::move(arrays);
  created_[op] = created;
}

void BatchRunner::Free(int64_t op) {
  if (created_[op]) {
    for (const ArrayTable::RecordPtr& array : arrays_[op]) {
      // NOT_FOUND only when the session closed during the call and took its arrays along.
      engine_.Free(caller_, std::vector<Handle>{array->handle}).IgnoreError();
    }
  }
  arrays_[op].clear();
  created_[op] = false;
}

absl::Status BatchRunner::Run(const BatchOps& ops) {
  const auto count = static_cast<int64_t>(steps_.size());
  for (int64_t i = 0; i < count;) {
    // A caller that went away, or a drain that ran out, ends the batch here; the destructor
    // frees what it made.
    if (absl::Status stop = CheckStop(caller_.stop.get()); !stop.ok()) {
      return absl::Status(
          stop.code(), fmt::format("{} (before ops[{}] ({}) of {})", std::string(stop.message()), i,
                                   steps_[i].label, count));
    }
    // A run of two or more elementwise ops goes to the engine whole, as a chain, and so does
    // a run of one or more followed by a reduction of one of its results.
    int64_t end = i;
    while (engine_.limits().fuse_batches && end < count && ops.Chainable(end)) ++end;
    std::optional<int64_t> reduced = end > i && end < count ? ops.ReducedResult(end) : std::nullopt;
    const bool reduces_chain = reduced && *reduced >= i && *reduced < end;
    if (end - i >= 2 || reduces_chain) {
      AH_RETURN_IF_ERROR(RunChain(ops, i, end, reduces_chain));
      i = reduces_chain ? end + 1 : end;
      continue;
    }
    absl::StatusOr<BatchRecords> results = [&]() -> absl::StatusOr<BatchRecords> {
      AH_ASSIGN_OR_RETURN(BatchOpSpec spec, ops.Decode(i, *this));
      return RunBatchOp(engine_, caller_, spec);
    }();
    if (!results.ok()) return InBatchOp(results.status(), i, steps_[i].label);
    Set(i, *std::move(results), !ops.WritesIntoOut(i));
    // An op planned as one array must give one: keeping or reading it takes the first, and
    // any other would stay registered under no handle the client knows. Set first, so that
    // the destructor frees them all.
    if (const BatchStep& step = steps_[i];
        arrays_[i].size() != 1 && !step.gives_several && !step.gives_none) {
      return InBatchOp(absl::InternalError(fmt::format("gave {} arrays where the batch's plan "
                                                       "has one",
                                                       arrays_[i].size())),
                       i, step.label);
    }
    for (int64_t done : plan_.free_after[i]) Free(done);
    ++i;
  }
  return absl::OkStatus();
}

absl::Status BatchRunner::RunChain(const BatchOps& ops, int64_t start, int64_t end, bool reduced) {
  const ChainOperands operands(*this, start);
  // The ops past the chain that read its results: the reduction reads its value in the chain.
  const int64_t after = reduced ? end + 1 : end;
  std::vector<ChainOp> chain;
  for (int64_t j = start; j < end; ++j) {
    absl::StatusOr<ElementwiseSpec> spec = ops.ChainSpec(j, operands);
    if (!spec.ok()) return InBatchOp(spec.status(), j, steps_[j].label);
    chain.push_back({.batch_op = j,
                     .label = steps_[j].label,
                     .spec = *std::move(spec),
                     .keep = plan_.kept[j] || plan_.last_use[j] >= after});
  }
  std::optional<ChainReduction> reduction;
  if (reduced) {
    const int64_t value = *ops.ReducedResult(end);
    absl::StatusOr<BatchOpSpec> spec = ops.Decode(end, ChainReductionOperands(*this, value));
    if (!spec.ok()) return InBatchOp(spec.status(), end, steps_[end].label);
    const auto* reduce = std::get_if<ReduceSpec>(&*spec);
    if (reduce == nullptr) return absl::InternalError("a chain's reduction is not a reduction");
    reduction = ChainReduction{
        .batch_op = end, .label = steps_[end].label, .value = value - start, .spec = *reduce};
  }
  AH_ASSIGN_OR_RETURN(BatchRecords results,
                      engine_.ElementwiseChain(caller_, chain, reduction ? &*reduction : nullptr));
  for (int64_t j = start; j < after; ++j) {
    if (results[j - start]) Set(j, {results[j - start]}, /*created=*/true);
  }
  for (int64_t j = start; j < after; ++j) {
    for (int64_t done : plan_.free_after[j]) Free(done);
  }
  return absl::OkStatus();
}

void FreeEach(Engine& engine, const Caller& caller, const std::vector<Handle>& handles) {
  for (const Handle& handle : handles) {
    engine.Free(caller, std::vector<Handle>{handle}).IgnoreError();
  }
}

}  // namespace arrayhub
