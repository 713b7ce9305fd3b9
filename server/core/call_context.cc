#include "server/core/call_context.h"

#include <fmt/format.h>

#include "server/common/status_macros.h"
#include "server/core/engine.h"

namespace arrayhub {

const Limits& CallContext::limits() const { return engine_.limits_; }

Backend& CallContext::backend() const { return engine_.backend(caller_); }

TenantLedger& CallContext::ledger() const { return *engine_.ledger_; }

absl::StatusOr<ArrayTable::RecordPtr> CallContext::Find(std::string_view handle,
                                                        std::string_view field) const {
  return engine_.Find(caller_, handle, field);
}

absl::StatusOr<ArrayRecord> CallContext::NewArray(DType dtype, const Shape& shape,
                                                  bool temporary) const {
  AH_ASSIGN_OR_RETURN(const int64_t nbytes, CheckedArrayBytes(shape, dtype, engine_.limits_));
  return engine_.NewArray(caller_, dtype, shape, nbytes, temporary);
}

absl::StatusOr<ArrayView> CallContext::NewScratch(
    DType dtype, const Shape& shape, std::vector<std::shared_ptr<Buffer>>& keep) const {
  return engine_.NewScratch(caller_, dtype, shape, keep);
}

absl::Status CallContext::CopyInto(const ArrayView& source, const ArrayView& target) const {
  return engine_.CopyInto(caller_, source, target);
}

absl::StatusOr<ArrayView> CallContext::CopyAside(const ArrayView& source,
                                                 std::vector<std::shared_ptr<Buffer>>& keep) const {
  return engine_.CopyAside(caller_, source, keep);
}

absl::StatusOr<ArrayRecord> CallContext::CopyToNewArray(const ArrayView& source, DType dtype,
                                                        MemoryOrder order, bool temporary) const {
  return engine_.CopyToNewArray(caller_, source, dtype, order, temporary);
}

absl::StatusOr<ArrayTable::RecordPtr> CallContext::Reduce(
    const ReduceSpec& spec, const ArrayTable::RecordPtr& input) const {
  return engine_.ReduceArray(caller_, spec, input);
}

absl::StatusOr<ArrayTable::RecordPtr> CallContext::Register(ArrayRecord record) const {
  return engine_.Register(std::move(record));
}

absl::StatusOr<std::vector<ArrayTable::RecordPtr>> CallContext::RegisterAll(
    std::vector<ArrayRecord> records) const {
  return engine_.RegisterAll(std::move(records));
}

absl::StatusOr<ArrayTable::RecordPtr> CallContext::RegisterView(const ArrayRecord& base,
                                                                const Layout& layout, bool writable,
                                                                std::optional<DType> dtype) const {
  return engine_.RegisterView(caller_, base, layout, writable, dtype);
}

ArrayRecord CallContext::ViewRecord(const ArrayRecord& base, const Layout& layout,
                                    bool writable) const {
  return Engine::ViewRecord(caller_, base, layout, writable);
}

void CallContext::Free(const std::vector<Handle>& handles) const {
  // The handles are the call's own: only a session closed meanwhile fails, and then they are
  // gone already.
  engine_.Free(caller_, handles).IgnoreError();
}

absl::Status CheckArity(const ElementwiseSpec& spec) {
  const auto count = static_cast<int>(spec.operands.size());
  if (count == Arity(spec.op)) return absl::OkStatus();
  return absl::InvalidArgumentError(fmt::format("{} takes {} operand{}, got {}", OpName(spec.op),
                                                Arity(spec.op), Arity(spec.op) == 1 ? "" : "s",
                                                count));
}

absl::StatusOr<ElementwiseOperands> CallContext::LookUpOperands(
    const ElementwiseSpec& spec, ChainValueLookup chain_value) const {
  const size_t count = spec.operands.size();
  ElementwiseOperands found{.arrays = std::vector<ArrayTable::RecordPtr>(count),
                            .typed = std::vector<UfuncOperand>(count),
                            .shapes = {}};
  for (size_t i = 0; i < count; ++i) {
    const OperandSpec& operand = spec.operands[i];
    if (operand.chain_value) {
      AH_ASSIGN_OR_RETURN(auto value, chain_value(*operand.chain_value));
      found.typed[i].array_dtype = value.first;
      found.shapes.push_back(std::move(value.second));
    } else if (operand.handle) {
      AH_ASSIGN_OR_RETURN(found.arrays[i], Find(*operand.handle, fmt::format("operands[{}]", i)));
      found.typed[i].array_dtype = found.arrays[i]->dtype;
      found.shapes.push_back(found.arrays[i]->shape);
    } else if (operand.scalar) {
      found.typed[i].scalar = *operand.scalar;  // Kept for typing (NEP 50).
    } else {
      return absl::InvalidArgumentError(fmt::format("operands[{}] has no value", i));
    }
  }
  return found;
}

}  // namespace arrayhub
