#include "server/common/ops.h"

#include <array>
#include <utility>

namespace arrayhub {
namespace {

struct ElementwiseOpInfo {
  ElementwiseOp op;
  std::string_view name;
  int arity;
};

constexpr ElementwiseOpInfo kElementwiseOps[] = {
    {ElementwiseOp::kAdd, "add", 2},
    {ElementwiseOp::kSubtract, "subtract", 2},
    {ElementwiseOp::kMultiply, "multiply", 2},
    {ElementwiseOp::kTrueDivide, "true_divide", 2},
    {ElementwiseOp::kFloorDivide, "floor_divide", 2},
    {ElementwiseOp::kRemainder, "remainder", 2},
    {ElementwiseOp::kPower, "power", 2},
    {ElementwiseOp::kNegative, "negative", 1},
    {ElementwiseOp::kAbsolute, "absolute", 1},
    {ElementwiseOp::kSign, "sign", 1},
    {ElementwiseOp::kExp, "exp", 1},
    {ElementwiseOp::kExpm1, "expm1", 1},
    {ElementwiseOp::kLog, "log", 1},
    {ElementwiseOp::kLog1p, "log1p", 1},
    {ElementwiseOp::kLog2, "log2", 1},
    {ElementwiseOp::kLog10, "log10", 1},
    {ElementwiseOp::kSqrt, "sqrt", 1},
    {ElementwiseOp::kSquare, "square", 1},
    {ElementwiseOp::kSin, "sin", 1},
    {ElementwiseOp::kCos, "cos", 1},
    {ElementwiseOp::kTan, "tan", 1},
    {ElementwiseOp::kArcsin, "arcsin", 1},
    {ElementwiseOp::kArccos, "arccos", 1},
    {ElementwiseOp::kArctan, "arctan", 1},
    {ElementwiseOp::kArctan2, "arctan2", 2},
    {ElementwiseOp::kSinh, "sinh", 1},
    {ElementwiseOp::kCosh, "cosh", 1},
    {ElementwiseOp::kTanh, "tanh", 1},
    {ElementwiseOp::kFloor, "floor", 1},
    {ElementwiseOp::kCeil, "ceil", 1},
    {ElementwiseOp::kRint, "rint", 1},
    {ElementwiseOp::kMinimum, "minimum", 2},
    {ElementwiseOp::kMaximum, "maximum", 2},
    {ElementwiseOp::kClip, "clip", 3},
    {ElementwiseOp::kHypot, "hypot", 2},
    {ElementwiseOp::kEqual, "equal", 2},
    {ElementwiseOp::kNotEqual, "not_equal", 2},
    {ElementwiseOp::kLess, "less", 2},
    {ElementwiseOp::kLessEqual, "less_equal", 2},
    {ElementwiseOp::kGreater, "greater", 2},
    {ElementwiseOp::kGreaterEqual, "greater_equal", 2},
    {ElementwiseOp::kLogicalAnd, "logical_and", 2},
    {ElementwiseOp::kLogicalOr, "logical_or", 2},
    {ElementwiseOp::kLogicalXor, "logical_xor", 2},
    {ElementwiseOp::kLogicalNot, "logical_not", 1},
    {ElementwiseOp::kBitwiseAnd, "bitwise_and", 2},
    {ElementwiseOp::kBitwiseOr, "bitwise_or", 2},
    {ElementwiseOp::kBitwiseXor, "bitwise_xor", 2},
    {ElementwiseOp::kInvert, "invert", 1},
    {ElementwiseOp::kLeftShift, "left_shift", 2},
    {ElementwiseOp::kRightShift, "right_shift", 2},
    {ElementwiseOp::kIsnan, "isnan", 1},
    {ElementwiseOp::kIsinf, "isinf", 1},
    {ElementwiseOp::kIsfinite, "isfinite", 1},
    {ElementwiseOp::kWhere, "where", 3},
    {ElementwiseOp::kCopy, "copy", 1},
};

// Other names NumPy accepts for the same ufunc.
constexpr std::pair<std::string_view, ElementwiseOp> kElementwiseAliases[] = {
    {"divide", ElementwiseOp::kTrueDivide},
    {"abs", ElementwiseOp::kAbsolute},
    {"bitwise_not", ElementwiseOp::kInvert},
    {"bitwise_invert", ElementwiseOp::kInvert},
    {"bitwise_left_shift", ElementwiseOp::kLeftShift},
    {"bitwise_right_shift", ElementwiseOp::kRightShift},
    {"mod", ElementwiseOp::kRemainder},
    {"pow", ElementwiseOp::kPower},
    {"asin", ElementwiseOp::kArcsin},
    {"acos", ElementwiseOp::kArccos},
    {"atan", ElementwiseOp::kArctan},
    {"atan2", ElementwiseOp::kArctan2},
};

constexpr std::pair<ReduceOp, std::string_view> kReduceOps[] = {
    {ReduceOp::kSum, "sum"}, {ReduceOp::kProd, "prod"},     {ReduceOp::kMin, "min"},
    {ReduceOp::kMax, "max"}, {ReduceOp::kMean, "mean"},     {ReduceOp::kVar, "var"},
    {ReduceOp::kStd, "std"}, {ReduceOp::kArgmin, "argmin"}, {ReduceOp::kArgmax, "argmax"},
    {ReduceOp::kAny, "any"}, {ReduceOp::kAll, "all"},
};

const ElementwiseOpInfo& InfoOf(ElementwiseOp op) {
  return kElementwiseOps[static_cast<size_t>(op)];
}

}  // namespace

std::string_view OpName(ElementwiseOp op) { return InfoOf(op).name; }
int Arity(ElementwiseOp op) { return InfoOf(op).arity; }

std::string_view OpName(ReduceOp op) { return kReduceOps[static_cast<size_t>(op)].second; }

std::optional<ElementwiseOp> ElementwiseOpFromName(std::string_view name) {
  for (const auto& info : kElementwiseOps) {
    if (info.name == name) return info.op;
  }
  for (const auto& [alias, op] : kElementwiseAliases) {
    if (alias == name) return op;
  }
  return std::nullopt;
}

std::optional<ReduceOp> ReduceOpFromName(std::string_view name) {
  if (name == "amin") return ReduceOp::kMin;
  if (name == "amax") return ReduceOp::kMax;
  for (const auto& [op, op_name] : kReduceOps) {
    if (op_name == name) return op;
  }
  return std::nullopt;
}

}  // namespace arrayhub
