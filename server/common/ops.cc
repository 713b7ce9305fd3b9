#include "server/common/ops.h"

#include <fmt/format.h>

#include <array>
#include <iterator>
#include <utility>

namespace arrayhub {
namespace {

struct ElementwiseOpInfo {
  std::string_view name;
  std::string_view numpy;
  int arity;
  std::string_view loop_kinds;                // NumPy's dtype.kind letters.
  std::array<std::string_view, 2> aliases{};  // Unused ones empty.
};

// Indexed by ElementwiseOp: both come from ufuncs.def in its order.
constexpr ElementwiseOpInfo kElementwiseOps[] = {
#define AH_UFUNC(enumerator, name, numpy, arity, kinds, host_functor, ...) \
  {name, numpy, arity, kinds, {__VA_ARGS__}},
#include "server/common/ufuncs.def"
#undef AH_UFUNC
};
static_assert(std::size(kElementwiseOps) == kElementwiseOpCount);

struct ReduceOpInfo {
  std::string_view name;
  std::string_view alias;  // Empty: none.
  ReduceFamily family;
};

// Indexed by ReduceOp: both come from reductions.def in its order.
constexpr ReduceOpInfo kReduceOps[] = {
#define AH_REDUCTION(enumerator, name, alias, family) {name, alias, ReduceFamily::k##family},
#include "server/common/reductions.def"
#undef AH_REDUCTION
};

const ReduceOpInfo& InfoOf(ReduceOp op) { return kReduceOps[static_cast<size_t>(op)]; }

const ElementwiseOpInfo& InfoOf(ElementwiseOp op) {
  return kElementwiseOps[static_cast<size_t>(op)];
}

}  // namespace

std::string_view OpName(ElementwiseOp op) { return InfoOf(op).name; }
int Arity(ElementwiseOp op) { return InfoOf(op).arity; }

std::string_view OpName(ReduceOp op) { return InfoOf(op).name; }
ReduceFamily FamilyOf(ReduceOp op) { return InfoOf(op).family; }

std::optional<ElementwiseOp> ElementwiseOpFromName(std::string_view name) {
  for (ElementwiseOp op : kAllElementwiseOps) {
    const ElementwiseOpInfo& info = InfoOf(op);
    if (info.name == name) return op;
    for (std::string_view alias : info.aliases) {
      if (!alias.empty() && alias == name) return op;
    }
  }
  return std::nullopt;
}

bool HasLoop(ElementwiseOp op, DType compute) {
  return InfoOf(op).loop_kinds.find(KindLetter(KindOf(compute))) != std::string_view::npos;
}

absl::Status CheckLoopExists(ElementwiseOp op, DType compute) {
  if (HasLoop(op, compute)) return absl::OkStatus();
  return absl::UnimplementedError(
      fmt::format("the backend has no {} loop for {}", DTypeName(compute), OpName(op)));
}

std::string_view NumPyUfunc(ElementwiseOp op) {
  const std::string_view numpy = InfoOf(op).numpy;
  return numpy.substr(0, numpy.find('['));
}

DType OperandDType(ElementwiseOp op, size_t k, DType compute) {
  if (op == ElementwiseOp::kWhere && k == 0) return DType::kBool;
  if (op == ElementwiseOp::kLdexp && k == 1) return DType::kInt64;
  return compute;
}

std::optional<ReduceOp> ReduceOpFromName(std::string_view name) {
  for (size_t i = 0; i < std::size(kReduceOps); ++i) {
    const ReduceOpInfo& info = kReduceOps[i];
    if (info.name == name || (!info.alias.empty() && info.alias == name)) {
      return static_cast<ReduceOp>(i);
    }
  }
  return std::nullopt;
}

}  // namespace arrayhub
