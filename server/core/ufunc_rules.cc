#include "server/core/ufunc_rules.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <utility>

#include "server/common/status_macros.h"
#include "server/core/promotion.h"

namespace arrayhub {
namespace {

// --- NumPy's loops ------------------------------------------------------------------------------

struct Loop {
  std::vector<DType> inputs;
  DType output;
};

constexpr std::pair<ElementwiseOp, std::string_view> kLoopSignatures[] = {
#include "server/core/ufunc_loops.inc"
};

// NumPy's type characters as ufunc_loops.inc writes them (q/Q for the 64-bit integers), in
// kAllDTypes' order. The generator writes no other character.
constexpr std::string_view kTypeChars = "?bhiqBHIQefdFD";
static_assert(kTypeChars.size() == std::size(kAllDTypes));

DType DTypeOfChar(char c) { return kAllDTypes[kTypeChars.find(c)]; }

// One signature such as "bb->?".
Loop ParseLoop(std::string_view signature) {
  const size_t arrow = signature.find("->");
  Loop loop{.inputs = {}, .output = DTypeOfChar(signature[arrow + 2])};
  for (char c : signature.substr(0, arrow)) loop.inputs.push_back(DTypeOfChar(c));
  return loop;
}

// The loops of `op` in NumPy's search order, parsed from the table once.
const std::vector<Loop>& LoopsOf(ElementwiseOp op) {
  static const auto* const kLoops = [] {
    auto* loops = new std::array<std::vector<Loop>, kElementwiseOpCount>();
    for (const auto& [ufunc, signatures] : kLoopSignatures) {
      for (std::string_view rest = signatures; !rest.empty();) {
        const size_t end = std::min(rest.find(' '), rest.size());
        (*loops)[static_cast<size_t>(ufunc)].push_back(ParseLoop(rest.substr(0, end)));
        rest.remove_prefix(std::min(end + 1, rest.size()));
      }
    }
    return loops;
  }();
  return (*kLoops)[static_cast<size_t>(op)];
}

// The loop's input type. NumPy's mixed int64/uint64 comparison loops (qQ, Qq) have no single
// input type, which the backend contract needs; they compute in the promotion, float64.
DType ComputeDTypeOf(const Loop& loop) {
  DType dtype = loop.inputs.front();
  for (DType input : loop.inputs) dtype = PromoteTypes(dtype, input);
  return dtype;
}

// --- Operands -----------------------------------------------------------------------------------

// An operand as loop selection sees it.
struct Operand {
  DType dtype;                  // An array's dtype, or the dtype a scalar takes (NEP 50).
  std::optional<Scalar> value;  // Set for scalars.
};

bool IsLogical(ElementwiseOp op) {
  return op == ElementwiseOp::kLogicalAnd || op == ElementwiseOp::kLogicalOr ||
         op == ElementwiseOp::kLogicalXor || op == ElementwiseOp::kLogicalNot;
}

bool IsComparison(ElementwiseOp op) {
  return op >= ElementwiseOp::kEqual && op <= ElementwiseOp::kGreaterEqual;
}

bool IsPythonInt(const Scalar& s) {
  return s.kind == Scalar::Kind::kInt || s.kind == Scalar::Kind::kUInt;
}

bool Fits(const Scalar& value, DType dtype) { return EncodeScalar(value, dtype).ok(); }

// NEP 50: the dtype a weak Python scalar of `kind` takes next to arrays that promote to
// `arrays` (without arrays, as in where(c, 1, 2.5), the kind's default).
DType WeakDType(Scalar::Kind kind, std::optional<DType> arrays) {
  switch (kind) {
    case Scalar::Kind::kBool:
      return arrays.value_or(DType::kBool);
    case Scalar::Kind::kInt:
    case Scalar::Kind::kUInt:
      return arrays && *arrays != DType::kBool ? *arrays : DType::kInt64;
    case Scalar::Kind::kFloat:
      return arrays && (IsFloating(*arrays) || IsComplex(*arrays)) ? *arrays : DType::kFloat64;
    case Scalar::Kind::kComplex:
      if (arrays && IsComplex(*arrays)) return *arrays;
      // complex64 for float16/float32, complex128 for float64 and everything else.
      return arrays && IsFloating(*arrays) ? PromoteTypes(*arrays, DType::kComplex64)
                                           : DType::kComplex128;
  }
  return DType::kComplex128;
}

// The operands with their dtypes for loop selection: arrays promote to P, then each weak
// scalar takes its dtype from P. numpy.clip turns a scalar `a` into an array first, so that
// one is not weak.
std::vector<Operand> TypedOperands(ElementwiseOp op, std::span<const UfuncOperand> operands) {
  auto is_strong = [&](size_t i) {
    return operands[i].array_dtype || (op == ElementwiseOp::kClip && i == 0);
  };
  std::vector<Operand> typed;
  std::optional<DType> arrays;
  for (size_t i = 0; i < operands.size(); ++i) {
    const UfuncOperand& operand = operands[i];
    Operand& t = typed.emplace_back(Operand{.dtype = DType::kBool, .value = operand.scalar});
    if (!is_strong(i)) continue;  // Typed below, once P is known.
    t.dtype = operand.array_dtype ? *operand.array_dtype : DefaultDType(*operand.scalar);
    arrays = arrays ? PromoteTypes(*arrays, t.dtype) : t.dtype;
  }
  for (size_t i = 0; i < operands.size(); ++i) {
    if (!is_strong(i)) typed[i].dtype = WeakDType(operands[i].scalar->kind, arrays);
  }
  return typed;
}

std::vector<DType> DTypesOf(const std::vector<Operand>& operands) {
  std::vector<DType> dtypes;
  for (const Operand& operand : operands) dtypes.push_back(operand.dtype);
  return dtypes;
}

// "(float64, int8)"
std::string DTypeList(std::span<const DType> dtypes) {
  std::vector<std::string_view> names;
  for (DType d : dtypes) names.push_back(DTypeName(d));
  return fmt::format("({})", fmt::join(names, ", "));
}

absl::Status CheckOperands(ElementwiseOp op, std::span<const UfuncOperand> operands) {
  if (static_cast<int>(operands.size()) != Arity(op)) {
    return absl::InvalidArgumentError(
        fmt::format("{} takes {} operands; got {}", OpName(op), Arity(op), operands.size()));
  }
  bool any_array = false;
  for (size_t i = 0; i < operands.size(); ++i) {
    if (operands[i].array_dtype.has_value() == operands[i].scalar.has_value()) {
      return absl::InvalidArgumentError(
          fmt::format("operand {} of {} must be either an array or a scalar, not both or neither",
                      i, OpName(op)));
    }
    any_array = any_array || operands[i].array_dtype.has_value();
  }
  if (!any_array) {
    return absl::InvalidArgumentError(
        fmt::format("{} needs at least one array operand; got only scalars", OpName(op)));
  }
  return absl::OkStatus();
}

// Adds an operand to the resolution: a scalar's value encoded as `read_as`.
absl::Status AppendOperand(const Operand& operand, DType read_as, UfuncResolution& resolution) {
  if (!operand.value) {
    resolution.scalar_bytes.push_back({});
    resolution.scalar_dtypes.push_back(operand.dtype);
    return absl::OkStatus();
  }
  AH_ASSIGN_OR_RETURN(ElementBytes bytes, EncodeScalar(*operand.value, read_as));
  resolution.scalar_bytes.push_back(bytes);
  resolution.scalar_dtypes.push_back(read_as);
  return absl::OkStatus();
}

// The resolution of a loop of `compute`, which reads each operand as OperandDType says.
absl::StatusOr<UfuncResolution> Resolution(ElementwiseOp op, const std::vector<Operand>& operands,
                                           DType compute, DType result) {
  UfuncResolution resolution{
      .compute_dtype = compute, .result_dtype = result, .scalar_bytes = {}, .scalar_dtypes = {}};
  for (size_t k = 0; k < operands.size(); ++k) {
    AH_RETURN_IF_ERROR(AppendOperand(operands[k], OperandDType(op, k, compute), resolution));
  }
  return resolution;
}

// --- Loop selection -----------------------------------------------------------------------------

// The name messages give: NumPy's ufunc for the internal ops of a two-output ufunc
// (_frexp_mantissa is frexp's), else the op's.
std::string_view UfuncName(ElementwiseOp op) {
  return OpName(op).starts_with('_') ? NumPyUfunc(op) : OpName(op);
}

absl::Status NotSupported(ElementwiseOp op, std::span<const DType> dtypes) {
  return absl::InvalidArgumentError(fmt::format("ufunc '{}' not supported for the input types {}",
                                                UfuncName(op), DTypeList(dtypes)));
}

absl::Status NoLoopForDType(ElementwiseOp op, std::span<const DType> dtypes, DType requested) {
  return absl::InvalidArgumentError(
      fmt::format("No loop matching the specified signature and casting was found for ufunc {} "
                  "(input types {}, dtype={})",
                  UfuncName(op), DTypeList(dtypes), DTypeName(requested)));
}

// The first operand that `casts` refuses to take to the loop's input, or nullopt.
template <typename CastRule>
std::optional<size_t> FirstRefused(std::span<const DType> dtypes, const Loop& loop,
                                   CastRule casts) {
  for (size_t i = 0; i < dtypes.size(); ++i) {
    if (!casts(dtypes[i], loop.inputs[i])) return i;
  }
  return std::nullopt;
}

absl::Status InputCastError(ElementwiseOp op, std::span<const DType> dtypes, const Loop& loop,
                            size_t input, std::string_view rule, std::string_view note) {
  // NumPy numbers the input only when there are several.
  const std::string which = dtypes.size() > 1 ? fmt::format("input {}", input) : "input";
  return absl::InvalidArgumentError(fmt::format(
      "Cannot cast ufunc '{}' {} from dtype('{}') to dtype('{}') with casting rule '{}'{}",
      UfuncName(op), which, DTypeName(dtypes[input]), DTypeName(loop.inputs[input]), rule, note));
}

// NumPy's legacy resolution: the first loop every operand casts to safely.
absl::StatusOr<const Loop*> FindLoop(ElementwiseOp op, std::span<const DType> dtypes) {
  for (const Loop& loop : LoopsOf(op)) {
    if (!FirstRefused(dtypes, loop, CanCastSafely)) return &loop;
  }
  return NotSupported(op, dtypes);
}

// dtype=: the first loop with that output that the operands cast to safely. NumPy tries
// same_kind casts next; those are refused here, with the reason.
absl::StatusOr<const Loop*> FindLoopFor(ElementwiseOp op, std::span<const DType> dtypes,
                                        DType requested) {
  const Loop* first = nullptr;      // The first loop with the requested output.
  const Loop* same_kind = nullptr;  // The first that same_kind input casts would reach.
  for (const Loop& loop : LoopsOf(op)) {
    if (loop.output != requested) continue;
    if (!FirstRefused(dtypes, loop, CanCastSafely)) return &loop;
    if (!first) first = &loop;
    if (!same_kind && !FirstRefused(dtypes, loop, CanCastSameKind)) same_kind = &loop;
  }
  if (same_kind) {
    return InputCastError(op, dtypes, *same_kind, *FirstRefused(dtypes, *same_kind, CanCastSafely),
                          "safe",
                          " (NumPy would cast with 'same_kind'; this server casts ufunc inputs "
                          "only safely: convert the operand with astype first)");
  }
  if (!first) return NoLoopForDType(op, dtypes, requested);
  return InputCastError(op, dtypes, *first, *FirstRefused(dtypes, *first, CanCastSameKind),
                        "same_kind", "");
}

// Where NumPy 2's own type resolvers refuse what the first-safe-loop search would accept:
// arithmetic on booleans that has no boolean meaning. subtract and negative refuse a bool loop
// also when dtype=bool asks for it; sign, gcd and lcm have no bool loop and do not look further
// (a bool operand beside an integer one is fine).
absl::Status CheckBooleanRefusals(ElementwiseOp op, std::span<const DType> dtypes,
                                  std::optional<DType> requested) {
  const bool all_bool =
      std::all_of(dtypes.begin(), dtypes.end(), [](DType d) { return d == DType::kBool; });
  const bool bool_loop = requested ? *requested == DType::kBool : all_bool;
  if (op == ElementwiseOp::kSubtract && bool_loop) {
    return absl::InvalidArgumentError(
        "numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, the "
        "`^` operator, or the logical_xor function instead.");
  }
  if (op == ElementwiseOp::kNegative && bool_loop) {
    return absl::InvalidArgumentError(
        "The numpy boolean negative, the `-` operator, is not supported, use the `~` operator "
        "or the logical_not function instead.");
  }
  const bool no_bool_loop =
      op == ElementwiseOp::kSign || op == ElementwiseOp::kGcd || op == ElementwiseOp::kLcm;
  if (no_bool_loop && !requested && all_bool) return NotSupported(op, dtypes);
  return absl::OkStatus();
}

// The dtypes the loop search starts from without dtype=: NumPy's true_divide takes integers and
// bools to float64 (its float16 and float32 loops would be safe for small integers, but are
// not used).
std::vector<DType> SearchDTypes(ElementwiseOp op, std::vector<DType> dtypes) {
  const bool integral = std::all_of(dtypes.begin(), dtypes.end(),
                                    [](DType d) { return d == DType::kBool || IsInteger(d); });
  if (op == ElementwiseOp::kTrueDivide && integral) {
    std::fill(dtypes.begin(), dtypes.end(), DType::kFloat64);
  }
  return dtypes;
}

// The smallest integer dtype that holds an integer value, signed first at each size (so that
// values below 2**63 meet a signed array without going to float64).
DType SmallestIntegerDType(const Scalar& value) {
  for (DType d : {DType::kInt8, DType::kUInt8, DType::kInt16, DType::kUInt16, DType::kInt32,
                  DType::kUInt32, DType::kInt64}) {
    if (Fits(value, d)) return d;
  }
  return DType::kUInt64;  // The only larger Python ints a Scalar holds.
}

// NumPy 2 compares an integer array with a Python int outside the array's range without
// converting the int: every element compares the same way. Here the comparison computes in a
// dtype holding both. In float64 (the only choice with 64-bit arrays), which rounds large
// values, the int becomes +-2**64, beyond every array value, so that the answer stays exact.
// Returns the compute dtype, or nullopt where the ordinary rules apply.
std::optional<DType> WidenComparison(std::vector<Operand>& operands) {
  for (size_t i = 0; i < operands.size(); ++i) {
    std::optional<Scalar>& value = operands[i].value;
    const Operand& other = operands[1 - i];
    if (!value || !IsPythonInt(*value) || other.value || !IsInteger(other.dtype) ||
        Fits(*value, other.dtype)) {
      continue;
    }
    const DType compute = PromoteTypes(other.dtype, SmallestIntegerDType(*value));
    if (compute == DType::kFloat64) {
      const bool negative = value->kind == Scalar::Kind::kInt && value->i < 0;
      value = Scalar::Float(negative ? -0x1p64 : 0x1p64);
    }
    return compute;
  }
  return std::nullopt;
}

// An integer bound that numpy.clip drops: lo at or below an integer `a`'s minimum, hi at or
// above its maximum (clip then applies the other bound alone). Clamping such a bound to a's
// range has the same effect; a bound beyond the range the other way stays, to fail encoding.
Scalar IntegerLimit(DType dtype, bool upper) {
  const int bits = static_cast<int>(8 * ItemSize(dtype));
  if (KindOf(dtype) == DTypeKind::kUnsigned) {
    return upper ? Scalar::UInt(~uint64_t{0} >> (64 - bits)) : Scalar::Int(0);
  }
  const auto max = static_cast<int64_t>(~uint64_t{0} >> (65 - bits));
  return Scalar::Int(upper ? max : -max - 1);
}

void ClampClipBounds(std::vector<Operand>& operands) {
  const DType a = operands[0].dtype;
  if (!IsInteger(a)) return;
  for (size_t i : {1, 2}) {
    std::optional<Scalar>& bound = operands[i].value;
    if (!bound || !IsPythonInt(*bound) || Fits(*bound, a)) continue;
    const bool below = bound->kind == Scalar::Kind::kInt && bound->i < 0;
    const bool upper = i == 2;
    if (below != upper) bound = IntegerLimit(a, upper);
  }
}

// logical_and/or/xor/not: NumPy's logical promoter sends every operand to the bool loop
// (reading nonzero as true), converting a Python int through a C long on the way.
absl::StatusOr<UfuncResolution> ResolveLogical(ElementwiseOp op,
                                               const std::vector<Operand>& operands,
                                               std::optional<DType> requested) {
  if (requested.value_or(DType::kBool) != DType::kBool) {
    return NoLoopForDType(op, DTypesOf(operands), *requested);
  }
  for (const Operand& operand : operands) {
    if (operand.value && IsPythonInt(*operand.value)) {
      AH_RETURN_IF_ERROR(EncodeScalar(*operand.value, DType::kInt64).status());
    }
  }
  return Resolution(op, operands, DType::kBool, DType::kBool);
}

// ldexp(x, e): its loops pair a float with an int32 or int64 exponent, so its operands do not
// promote together. NumPy's loop search (tests/core/ufunc_expected.inc) takes a weak Python
// int or bool in any loop's input, float or int (an int beside bool arrays alone is int64,
// strict), and a Python float or complex as float64 or complex128, strict. An exponent scalar
// must fit the loop's int type; the backends read the exponent as int64 (OperandDType) and the
// loop computes in x's float type.
absl::StatusOr<UfuncResolution> ResolveLdexp(std::span<const UfuncOperand> operands,
                                             std::optional<DType> requested) {
  constexpr ElementwiseOp op = ElementwiseOp::kLdexp;
  const bool bool_arrays = std::all_of(operands.begin(), operands.end(), [](const auto& o) {
    return !o.array_dtype || *o.array_dtype == DType::kBool;
  });
  std::vector<Operand> typed;
  std::vector<bool> flexible;  // A weak int or bool, which any loop input takes.
  for (const UfuncOperand& operand : operands) {
    const bool weak_int = operand.scalar && (operand.scalar->kind == Scalar::Kind::kBool ||
                                             (IsPythonInt(*operand.scalar) && !bool_arrays));
    flexible.push_back(weak_int);
    typed.push_back({.dtype = operand.array_dtype ? *operand.array_dtype
                                                  : WeakDType(operand.scalar->kind, std::nullopt),
                     .value = operand.scalar});
  }
  for (const Loop& loop : LoopsOf(op)) {
    if (requested && loop.output != *requested) continue;
    bool matches = true;
    for (size_t k = 0; k < typed.size(); ++k) {
      matches = matches && (flexible[k] || CanCastSafely(typed[k].dtype, loop.inputs[k]));
    }
    if (!matches) continue;
    if (typed[1].value) AH_RETURN_IF_ERROR(EncodeScalar(*typed[1].value, loop.inputs[1]).status());
    return Resolution(op, typed, loop.inputs[0], loop.output);
  }
  // No loop: the ordinary search's message, over the dtypes the scalars take without a loop.
  const std::vector<DType> dtypes = DTypesOf(typed);
  if (requested) {
    if (absl::StatusOr<const Loop*> loop = FindLoopFor(op, dtypes, *requested); !loop.ok()) {
      return loop.status();
    }
  }
  return NotSupported(op, dtypes);
}

absl::StatusOr<UfuncResolution> ResolveNumPyUfunc(ElementwiseOp op,
                                                  std::span<const UfuncOperand> operands,
                                                  std::optional<DType> requested) {
  if (op == ElementwiseOp::kLdexp) return ResolveLdexp(operands, requested);
  std::vector<Operand> typed = TypedOperands(op, operands);
  if (IsLogical(op)) return ResolveLogical(op, typed, requested);
  if (IsComparison(op) && requested.value_or(DType::kBool) == DType::kBool) {
    if (std::optional<DType> compute = WidenComparison(typed)) {
      return Resolution(op, typed, *compute, DType::kBool);
    }
  }
  const std::vector<DType> dtypes = DTypesOf(typed);
  AH_RETURN_IF_ERROR(CheckBooleanRefusals(op, dtypes, requested));
  AH_ASSIGN_OR_RETURN(const Loop* loop, requested ? FindLoopFor(op, dtypes, *requested)
                                                  : FindLoop(op, SearchDTypes(op, dtypes)));
  if (op == ElementwiseOp::kClip) ClampClipBounds(typed);
  return Resolution(op, typed, ComputeDTypeOf(*loop), loop->output);
}

absl::Status NoDTypeArgument(ElementwiseOp op) {
  return absl::InvalidArgumentError(fmt::format(
      "{} takes no dtype argument (the output's dtype selects a final cast)", OpName(op)));
}

// where(cond, a, b): a and b promote as in a ufunc; cond is read as bool whatever its dtype.
absl::StatusOr<UfuncResolution> ResolveWhere(std::span<const UfuncOperand> operands,
                                             std::optional<DType> requested) {
  if (requested) return NoDTypeArgument(ElementwiseOp::kWhere);
  const std::vector<Operand> values = TypedOperands(ElementwiseOp::kWhere, operands.subspan(1));
  const DType dtype = PromoteTypes(values[0].dtype, values[1].dtype);
  UfuncResolution resolution{
      .compute_dtype = dtype, .result_dtype = dtype, .scalar_bytes = {}, .scalar_dtypes = {}};
  const Operand condition{operands[0].array_dtype.value_or(DType::kBool), operands[0].scalar};
  AH_RETURN_IF_ERROR(AppendOperand(condition, DType::kBool, resolution));
  for (const Operand& value : values) AH_RETURN_IF_ERROR(AppendOperand(value, dtype, resolution));
  return resolution;
}

// real and imag (np.real, np.imag of a complex array): the component type of the operand's.
absl::StatusOr<UfuncResolution> ResolveComplexPart(ElementwiseOp op, DType operand,
                                                   std::optional<DType> requested) {
  if (requested) return NoDTypeArgument(op);
  if (!IsComplex(operand)) {
    return absl::InvalidArgumentError(fmt::format(
        "{} takes a complex operand; got {} (np.{} of a real array is the clients' to answer)",
        OpName(op), DTypeName(operand), OpName(op)));
  }
  return UfuncResolution{
      .compute_dtype = operand,
      .result_dtype = operand == DType::kComplex64 ? DType::kFloat32 : DType::kFloat64,
      .scalar_bytes = {ElementBytes{}},
      .scalar_dtypes = {operand}};
}

// _complex(re, im): the parts promote as in a ufunc (NEP 50) to a float type, read as that; the
// result is its complex type (float16's is complex64).
absl::StatusOr<UfuncResolution> ResolveMakeComplex(std::span<const UfuncOperand> operands,
                                                   std::optional<DType> requested) {
  constexpr ElementwiseOp op = ElementwiseOp::kComplex;
  if (requested) return NoDTypeArgument(op);
  const std::vector<Operand> typed = TypedOperands(op, operands);
  const DType parts = PromoteTypes(typed[0].dtype, typed[1].dtype);
  if (!IsFloating(parts)) {
    return absl::InvalidArgumentError(
        fmt::format("_complex takes float parts; got {}", DTypeList(DTypesOf(typed))));
  }
  return Resolution(op, typed, parts,
                    parts == DType::kFloat64 ? DType::kComplex128 : DType::kComplex64);
}

}  // namespace

absl::StatusOr<UfuncResolution> ResolveUfunc(ElementwiseOp op,
                                             std::span<const UfuncOperand> operands,
                                             std::optional<DType> requested_dtype) {
  AH_RETURN_IF_ERROR(CheckOperands(op, operands));
  switch (op) {
    case ElementwiseOp::kCopy: {
      if (requested_dtype) return NoDTypeArgument(op);
      const DType dtype = *operands[0].array_dtype;
      return UfuncResolution{.compute_dtype = dtype,
                             .result_dtype = dtype,
                             .scalar_bytes = {ElementBytes{}},
                             .scalar_dtypes = {dtype}};
    }
    case ElementwiseOp::kWhere:
      return ResolveWhere(operands, requested_dtype);
    case ElementwiseOp::kReal:
    case ElementwiseOp::kImag:
      return ResolveComplexPart(op, *operands[0].array_dtype, requested_dtype);
    case ElementwiseOp::kComplex:
      return ResolveMakeComplex(operands, requested_dtype);
    default:
      return ResolveNumPyUfunc(op, operands, requested_dtype);
  }
}

absl::Status CheckOutputCast(ElementwiseOp op, DType result, DType out) {
  if (CanCastSameKind(result, out)) return absl::OkStatus();
  return absl::InvalidArgumentError(
      fmt::format("Cannot cast ufunc '{}' output from dtype('{}') to dtype('{}') with casting rule "
                  "'same_kind'",
                  UfuncName(op), DTypeName(result), DTypeName(out)));
}

}  // namespace arrayhub
