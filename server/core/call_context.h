// One caller's operation in progress, as the op families see it (engine_linalg.cc,
// engine_fft.cc, engine_views.cc, engine_array_ops.cc, engine_chain.cc): who asks, the backend
// of the device the call runs on, and the engine's steps that find, make, copy and register
// arrays for that caller, each charged to its tenant and held to the server's limits. A family
// works through this and never through the Engine's members, so that the Engine keeps its
// state to itself and each family sees only what one call may do.
//
// The Engine's entry point makes it after binding the caller's queue and stop signal
// (Engine::Bind), and it lives no longer than that binding.
#pragma once

#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "server/backend/backend.h"
#include "server/core/array_table.h"
#include "server/core/compute_specs.h"
#include "server/core/limits.h"
#include "server/core/manipulation_specs.h"
#include "server/core/session_manager.h"
#include "server/core/tenants.h"
#include "server/core/ufunc_rules.h"

namespace arrayhub {

class Engine;
struct Layout;

// An elementwise op's operands, looked up and typed for ResolveUfunc: what Elementwise and
// each op of a fused chain share.
struct ElementwiseOperands {
  std::vector<ArrayTable::RecordPtr> arrays;  // Null where the operand names no handle.
  std::vector<UfuncOperand> typed;
  std::vector<Shape> shapes;  // Of the operands that are arrays or chain values, in order.
};

// `chain_value(v)`: the dtype and shape of a chain's value v (an earlier op's result), or why
// the op may not read it.
using ChainValueLookup = absl::FunctionRef<absl::StatusOr<std::pair<DType, Shape>>(int64_t value)>;

// INVALID_ARGUMENT unless `spec` has as many operands as its op takes.
absl::Status CheckArity(const ElementwiseSpec& spec);

class CallContext {
 public:
  // `engine` and `caller` outlive the context.
  CallContext(Engine& engine, const Caller& caller) : engine_(engine), caller_(caller) {}

  const Caller& caller() const { return caller_; }
  // The binding of the caller's queue its backend calls are handed.
  QueueBinding& queue() const { return QueueOf(caller_); }
  const Limits& limits() const;
  // The backend of the device the call runs on.
  Backend& backend() const;
  TenantLedger& ledger() const;

  // Engine::Find: the array `handle` on the call's device, its work ordered before the call's;
  // `field` names it in messages.
  absl::StatusOr<ArrayTable::RecordPtr> Find(std::string_view handle,
                                             std::string_view field = "handle") const;
  // `spec`'s operands found (chain values through `chain_value`) and typed.
  absl::StatusOr<ElementwiseOperands> LookUpOperands(const ElementwiseSpec& spec,
                                                     ChainValueLookup chain_value) const;

  // A record for a new C-contiguous array of the caller's session, its memory allocated and
  // charged, contents undefined; its size held to the limits. A `temporary` one never gets a
  // handle and is not held to the array quota.
  absl::StatusOr<ArrayRecord> NewArray(DType dtype, const Shape& shape,
                                       bool temporary = false) const;
  // Scratch for the rest of the request, held by `keep` (Engine::NewScratch).
  absl::StatusOr<ArrayView> NewScratch(DType dtype, const Shape& shape,
                                       std::vector<std::shared_ptr<Buffer>>& keep) const;
  // A copy with conversion of `source` into `target` (Engine::CopyInto).
  absl::Status CopyInto(const ArrayView& source, const ArrayView& target) const;
  // A C-contiguous copy of `source` in scratch that `keep` holds (Engine::CopyAside).
  absl::StatusOr<ArrayView> CopyAside(const ArrayView& source,
                                      std::vector<std::shared_ptr<Buffer>>& keep) const;
  // A new array holding `source` converted to `dtype` (Engine::CopyToNewArray).
  absl::StatusOr<ArrayRecord> CopyToNewArray(const ArrayView& source, DType dtype,
                                             MemoryOrder order = MemoryOrder::kC,
                                             bool temporary = false) const;
  // Reduce with its input found (Engine::ReduceArray).
  absl::StatusOr<ArrayTable::RecordPtr> Reduce(const ReduceSpec& spec,
                                               const ArrayTable::RecordPtr& input) const;

  // Handles for the call's results (Engine::Register, RegisterAll, RegisterView).
  absl::StatusOr<ArrayTable::RecordPtr> Register(ArrayRecord record) const;
  absl::StatusOr<std::vector<ArrayTable::RecordPtr>> RegisterAll(
      std::vector<ArrayRecord> records) const;
  absl::StatusOr<ArrayTable::RecordPtr> RegisterView(
      const ArrayRecord& base, const Layout& layout, bool writable = true,
      std::optional<DType> dtype = std::nullopt) const;
  // A record for `layout` of `base`'s memory, for the caller (Engine::ViewRecord).
  ArrayRecord ViewRecord(const ArrayRecord& base, const Layout& layout, bool writable = true) const;
  // Drops handles the call registered and no longer answers with (Engine::Free).
  void Free(const std::vector<Handle>& handles) const;

 private:
  Engine& engine_;
  const Caller& caller_;
};

}  // namespace arrayhub
