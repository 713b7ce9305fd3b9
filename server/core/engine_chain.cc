// Engine::ElementwiseChain: a Batch's run of elementwise ops, typed one by one exactly as
// Engine::Elementwise types them, then computed in groups. A group is ops in a row of one result
// shape; it becomes one FusedElementwiseCall whose outputs are only the results that leave it
// (kept by the Batch, or read by a later group). Everything else stays inside the backend's
// pass: on the GPU, registers of one kernel instead of an array, an allocation and a launch
// per op. A reduction of a value of the last group over all its axes folds it in the same
// pass (FusedElementwiseCall::reduction), so that `float((a * b + a).sum())` reads a and b
// once and writes nothing but the sum.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "server/common/status_macros.h"
#include "server/core/batch_plan.h"
#include "server/core/broadcast.h"
#include "server/core/engine.h"
#include "server/core/reduction_rules.h"
#include "server/core/ufunc_rules.h"

namespace arrayhub {

namespace {

// An op of the chain once typed: where its operands come from and what it computes.
struct TypedOp {
  struct Operand {
    ArrayTable::RecordPtr array;         // A handle the op names.
    std::optional<int64_t> chain_value;  // An earlier op's result.
    // A scalar, as the op reads it.
    ElementBytes scalar_bytes{};
    DType scalar_dtype = DType::kFloat32;
  };
  std::vector<Operand> operands;
  Shape shape;
  UfuncResolution types;
};

// The last op of the chain that reads each op's result (-1: none).
std::vector<int64_t> LastReaders(std::span<const ChainOp> ops) {
  std::vector<int64_t> last(ops.size(), -1);
  for (size_t i = 0; i < ops.size(); ++i) {
    for (const OperandSpec& operand : ops[i].spec.operands) {
      // A reference to a later op is refused when the op is typed (Type).
      if (operand.chain_value && *operand.chain_value >= 0 &&
          *operand.chain_value < static_cast<int64_t>(i)) {
        last[*operand.chain_value] = static_cast<int64_t>(i);
      }
    }
  }
  return last;
}

}  // namespace

// The group being built, and the results of the groups run before it.
class ChainGroup {
 public:
  ChainGroup(const CallContext& context, std::span<const ChainOp> ops,
             const ChainReduction* reduction)
      : context_(context),
        ops_(ops),
        reduction_(reduction),
        last_reader_(LastReaders(ops)),
        results_(ops.size()),
        registered_(ops.size()) {
    // The reduction reads its value after the chain: a group before the last writes it out.
    if (reduction_) last_reader_[reduction_->value] = static_cast<int64_t>(ops.size());
  }

  // Looks up and types op `i` as Engine::Elementwise does.
  absl::StatusOr<TypedOp> Type(size_t i) {
    const ElementwiseSpec& spec = ops_[i].spec;
    if (!spec.out.empty()) return absl::InternalError("an op with out= in an elementwise chain");
    AH_RETURN_IF_ERROR(CheckArity(spec));
    AH_ASSIGN_OR_RETURN(
        ElementwiseOperands found,
        context_.LookUpOperands(
            spec, [&](int64_t value) -> absl::StatusOr<std::pair<DType, Shape>> {
              if (value < 0 || static_cast<size_t>(value) >= i) {
                return absl::InternalError("a chain op reads an op that is not before it");
              }
              const TypedOp& earlier = typed_[static_cast<size_t>(value)];
              return std::pair{earlier.types.result_dtype, earlier.shape};
            }));
    TypedOp op;
    for (size_t k = 0; k < spec.operands.size(); ++k) {
      TypedOp::Operand& resolved = op.operands.emplace_back();
      resolved.array = found.arrays[k];
      resolved.chain_value = spec.operands[k].chain_value;
    }
    AH_ASSIGN_OR_RETURN(op.shape, BroadcastShapes(found.shapes));
    AH_ASSIGN_OR_RETURN(op.types, ResolveUfunc(spec.op, found.typed, spec.dtype));
    AH_RETURN_IF_ERROR(
        CheckedArrayBytes(op.shape, op.types.result_dtype, context_.limits()).status());
    for (size_t k = 0; k < op.operands.size(); ++k) {
      op.operands[k].scalar_bytes = op.types.scalar_bytes[k];
      op.operands[k].scalar_dtype = op.types.scalar_dtypes[k];
    }
    return op;
  }

  // Adds op `i` (typed) to the group, running the group first when the op does not fit it.
  absl::Status Add(size_t i, TypedOp op) {
    typed_.push_back(std::move(op));
    if (!Fits(i)) AH_RETURN_IF_ERROR(Run(i));
    const TypedOp& typed = typed_[i];
    if (first_ == i) call_.shape = typed.shape;
    FusedElementwiseCall::Step step{.op = ops_[i].spec.op,
                                    .compute_dtype = typed.types.compute_dtype,
                                    .result_dtype = typed.types.result_dtype,
                                    .operands = {}};
    for (const TypedOp::Operand& operand : typed.operands) {
      AH_ASSIGN_OR_RETURN(int value, ValueOf(operand));
      step.operands.push_back(value);
    }
    step_of_[i] = static_cast<int>(call_.steps.size());
    call_.steps.push_back(std::move(step));
    return absl::OkStatus();
  }

  // Runs the group of ops [first_, end): its results that leave it are allocated and written.
  // The last group folds the reduction when it can.
  absl::Status Run(size_t end) {
    if (call_.steps.empty()) return absl::OkStatus();
    if (reduction_ && end == ops_.size()) AH_RETURN_IF_ERROR(FoldReduction());
    for (size_t j = first_; j < end; ++j) {
      if (!Leaves(j, end)) continue;
      absl::StatusOr<ArrayRecord> record = Allocate(j);
      if (!record.ok()) return InBatchOp(record.status(), ops_[j].batch_op, ops_[j].label);
      call_.outputs.push_back({.step = step_of_.at(j), .view = ViewOf(*record)});
      results_[j] = std::make_shared<const ArrayRecord>(*std::move(record));
      // Registered at once, so that the next one's array quota check counts it (the work
      // writing it is enqueued before anything else can read it).
      if (ops_[j].keep) {
        absl::StatusOr<ArrayTable::RecordPtr> registered =
            context_.Register(ArrayRecord(*results_[j]));
        if (!registered.ok()) {
          return InBatchOp(registered.status(), ops_[j].batch_op, ops_[j].label);
        }
        registered_[j] = *std::move(registered);
      }
    }
    if (!call_.outputs.empty() || call_.reduction) {
      const absl::Status status = Launch();
      if (!status.ok()) {
        return absl::Status(
            status.code(), fmt::format("ops[{}..{}] (elementwise chain): {}", ops_[first_].batch_op,
                                       ops_[end - 1].batch_op, std::string(status.message())));
      }
    }
    // Results of earlier groups whose last reader has run (the backend orders the release
    // after the work enqueued on them).
    for (size_t j = 0; j < first_; ++j) {
      if (results_[j] && last_reader_[j] < static_cast<int64_t>(end)) results_[j].reset();
    }
    call_ = FusedElementwiseCall();
    input_of_.clear();
    step_of_.clear();
    first_ = end;
    return absl::OkStatus();
  }

  // The reduction, once every group has run, when the last group did not fold it: Reduce on
  // its value, which the chain wrote out for it.
  absl::Status ReduceAfter() {
    if (!reduction_ || reduced_) return absl::OkStatus();
    const std::shared_ptr<const ArrayRecord>& value = results_[reduction_->value];
    if (!value) return absl::InternalError("a reduced chain value was not written out");
    absl::StatusOr<ArrayTable::RecordPtr> reduced = context_.Reduce(reduction_->spec, value);
    if (!reduced.ok()) {
      return InBatchOp(reduced.status(), reduction_->batch_op, reduction_->label);
    }
    reduced_ = *std::move(reduced);
    return absl::OkStatus();
  }

  // The kept results (and the reduction's last), once every group has run; on failure, frees
  // those registered so far.
  std::vector<ArrayTable::RecordPtr> TakeKept() {
    if (reduction_) registered_.push_back(std::move(reduced_));
    return std::move(registered_);
  }
  void FreeKept() {
    std::vector<Handle> handles;
    for (const ArrayTable::RecordPtr& record : registered_) {
      if (record) handles.push_back(record->handle);
    }
    if (reduced_) handles.push_back(reduced_->handle);
    if (!handles.empty()) context_.Free(handles);
  }

 private:
  // A new array for op j's result (in the group's shape): a temporary one (no handle) unless
  // the Batch keeps it.
  absl::StatusOr<ArrayRecord> Allocate(size_t j) {
    const DType dtype = typed_[j].types.result_dtype;
    return context_.NewArray(dtype, call_.shape, /*temporary=*/!ops_[j].keep);
  }

  // Whether op j's result is needed outside the group that ends before op `end` (a value the
  // last group folds into the reduction is not).
  bool Leaves(size_t j, size_t end) const {
    if (ops_[j].keep) return true;
    if (reduced_ && reduction_->value == static_cast<int64_t>(j)) return false;
    return last_reader_[j] >= static_cast<int64_t>(end);
  }

  // Types the reduction as Engine::Reduce would, and when it reduces every axis of a value of
  // this (the last) group with a fusable op, makes its result and adds it to the call.
  absl::Status FoldReduction() {
    const TypedOp& value = typed_[reduction_->value];
    const ReduceSpec& spec = reduction_->spec;
    const DType dtype = value.types.result_dtype;
    absl::StatusOr<ReduceResolution> resolved =
        ResolveReduce(spec.op, dtype, value.shape, spec.axes, spec.dtype, spec.ddof);
    if (!resolved.ok()) {
      return InBatchOp(resolved.status(), reduction_->batch_op, reduction_->label);
    }
    const auto step = step_of_.find(reduction_->value);
    if (step == step_of_.end() || value.shape.empty() ||
        resolved->axes.size() != value.shape.size() || !FusableReduction(spec.op, dtype)) {
      return absl::OkStatus();
    }
    const Shape& shape = spec.keepdims ? resolved->keepdims_shape : resolved->result_shape;
    absl::StatusOr<ArrayTable::RecordPtr> result = [&]() -> absl::StatusOr<ArrayTable::RecordPtr> {
      AH_ASSIGN_OR_RETURN(ArrayRecord record, context_.NewArray(resolved->result_dtype, shape));
      return context_.Register(std::move(record));
    }();
    if (!result.ok()) return InBatchOp(result.status(), reduction_->batch_op, reduction_->label);
    reduced_ = *std::move(result);
    ArrayView output = ViewOf(*reduced_);
    output.shape.clear();  // The one element, whatever keepdims made of its shape.
    output.strides.clear();
    call_.reduction =
        FusedElementwiseCall::Reduction{.step = step->second,
                                        .op = spec.op,
                                        .accumulate_dtype = resolved->accumulate_dtype,
                                        .output = output};
    return absl::OkStatus();
  }

  // Whether op i (typed_[i]) can join the group as it is.
  bool Fits(size_t i) const {
    if (call_.steps.empty()) return true;
    const TypedOp& op = typed_[i];
    if (op.shape != call_.shape || op.shape.size() > static_cast<size_t>(kMaxFusedRank) ||
        call_.steps.size() >= static_cast<size_t>(kMaxFusedSteps)) {
      return false;
    }
    int arrays = 0;
    int scalars = 0;
    for (const ElementwiseOperand& input : call_.inputs) ++(input.array ? arrays : scalars);
    for (const TypedOp::Operand& operand : op.operands) {
      if (operand.chain_value && step_of_.contains(*operand.chain_value)) continue;
      if (operand.chain_value || operand.array) {
        ++arrays;  // Counted as new even when the group reads it already: a bound, not a count.
      } else {
        ++scalars;
      }
    }
    // Outputs if the group ended after op i; a longer group can only have fewer.
    int outputs = 0;
    for (size_t j = first_; j <= i; ++j) outputs += Leaves(j, i + 1) ? 1 : 0;
    return arrays <= kMaxFusedArrayInputs && scalars <= kMaxFusedScalarInputs &&
           outputs <= kMaxFusedOutputs;
  }

  // The value number of an operand of an op joining the group: an earlier step of the group,
  // or an input (added once, whichever ops read it).
  absl::StatusOr<int> ValueOf(const TypedOp::Operand& operand) {
    if (operand.chain_value) {
      if (auto step = step_of_.find(*operand.chain_value); step != step_of_.end()) {
        return kStepBase + step->second;
      }
      if (!results_[*operand.chain_value]) {
        return absl::InternalError("a chain op reads a result that was not kept for it");
      }
    }
    const ArrayRecord* array =
        operand.chain_value ? results_[*operand.chain_value].get() : operand.array.get();
    InputKey key{.array = array,
                 .scalar_bytes = array ? ElementBytes{} : operand.scalar_bytes,
                 .scalar_dtype = array ? array->dtype : operand.scalar_dtype};
    auto [it, inserted] = input_of_.try_emplace(key, static_cast<int>(call_.inputs.size()));
    if (inserted) {
      ElementwiseOperand input{.scalar = key.scalar_bytes, .dtype = key.scalar_dtype};
      if (array) {
        ArrayView view = ViewOf(*array);
        view.strides = BroadcastStrides(view.shape, view.strides, call_.shape);
        view.shape = call_.shape;
        input.array = view;
      }
      call_.inputs.push_back(input);
    }
    return it->second;
  }

  // The backend call for the group (a group of one step is a single op's call there too).
  absl::Status Launch() {
    // Steps are numbered after the inputs, which are only complete now.
    const int inputs = static_cast<int>(call_.inputs.size());
    for (FusedElementwiseCall::Step& step : call_.steps) {
      for (int& operand : step.operands) {
        if (operand >= kStepBase) operand = operand - kStepBase + inputs;
      }
    }
    return context_.backend().compute().FusedElementwise(context_.queue(), call_);
  }

  // An input of the group: an array (by record) or a scalar (by its bytes).
  struct InputKey {
    const ArrayRecord* array = nullptr;
    ElementBytes scalar_bytes{};
    DType scalar_dtype = DType::kFloat32;
    bool operator==(const InputKey&) const = default;
    template <typename H>
    friend H AbslHashValue(H h, const InputKey& key) {
      return H::combine(std::move(h), key.array, key.scalar_bytes, key.scalar_dtype);
    }
  };
  // Step value numbers while the group grows (inputs are numbered first once it runs).
  static constexpr int kStepBase = 1 << 20;

  const CallContext& context_;
  std::span<const ChainOp> ops_;
  const ChainReduction* reduction_;  // Null: the chain ends with its last op.
  ArrayTable::RecordPtr reduced_;    // The reduction's result, once made.
  std::vector<int64_t> last_reader_;
  std::vector<TypedOp> typed_;  // Ops typed so far.
  // Per op: its result once its group ran and it left the group (kept or read later).
  std::vector<std::shared_ptr<const ArrayRecord>> results_;
  std::vector<ArrayTable::RecordPtr> registered_;  // Per op: its kept array.

  size_t first_ = 0;  // The group's first op.
  FusedElementwiseCall call_;
  absl::flat_hash_map<int64_t, int> step_of_;  // Op -> its step in call_.
  absl::flat_hash_map<InputKey, int> input_of_;
};

absl::StatusOr<std::vector<ArrayTable::RecordPtr>> Engine::ElementwiseChain(
    const Caller& caller, std::span<const ChainOp> ops, const ChainReduction* reduction) {
  const auto bound = Bind(caller, "elementwise chain");
  if (reduction && (reduction->value < 0 || reduction->value >= static_cast<int64_t>(ops.size()) ||
                    !reduction->spec.out.empty())) {
    return absl::InternalError("a chain's reduction reads no op of the chain");
  }
  const CallContext context(*this, bound.caller());
  ChainGroup group(context, ops, reduction);
  for (size_t i = 0; i < ops.size(); ++i) {
    absl::StatusOr<TypedOp> typed = group.Type(i);
    absl::Status status = typed.ok() ? group.Add(i, *std::move(typed))
                                     : InBatchOp(typed.status(), ops[i].batch_op, ops[i].label);
    if (!status.ok()) {
      group.FreeKept();
      return status;
    }
  }
  absl::Status status = group.Run(ops.size());
  if (status.ok()) status = group.ReduceAfter();
  if (!status.ok()) {
    group.FreeKept();
    return status;
  }
  return group.TakeKept();
}

}  // namespace arrayhub
