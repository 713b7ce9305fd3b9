#include "server/core/reduction_rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "server/common/status_macros.h"
#include "server/core/axes.h"

namespace arrayhub {
namespace {

bool IsArgReduction(ReduceOp op) { return FamilyOf(op) == ReduceFamily::kArgument; }
bool IsStatistic(ReduceOp op) { return FamilyOf(op) == ReduceFamily::kStatistic; }
bool TakesDType(ReduceOp op) { return FamilyOf(op) == ReduceFamily::kSumOrProd || IsStatistic(op); }
bool IsInexact(DType d) { return IsFloating(d) || IsComplex(d); }

// argmin/argmax: one axis or all (flattened). NumPy treats a 0-d input as 1-d here.
absl::StatusOr<std::vector<int64_t>> ArgReductionAxes(ReduceOp op, int64_t rank,
                                                      const std::vector<int64_t>& axes) {
  if (axes.size() != 1) {
    return absl::InvalidArgumentError(fmt::format(
        "{} takes a single axis or none (all, flattened); got {}", OpName(op), axes.size()));
  }
  AH_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axes[0], std::max<int64_t>(rank, 1)));
  if (rank == 0) return std::vector<int64_t>{};
  return std::vector<int64_t>{axis};
}

// NumPy's normalize_axis_tuple: every axis in bounds, then no repeats; sorted here.
absl::StatusOr<std::vector<int64_t>> ReducedAxes(ReduceOp op, int64_t rank,
                                                 const std::optional<std::vector<int64_t>>& axes) {
  if (!axes) {
    std::vector<int64_t> all(rank);
    std::iota(all.begin(), all.end(), 0);
    return all;
  }
  if (IsArgReduction(op)) return ArgReductionAxes(op, rank, *axes);
  // An integer axis of a 0-d input: NumPy's ufunc reductions accept 0 and -1 and reduce
  // nothing (mean, var and std, written in Python, check the axis against rank 0).
  const bool integer_axis_of_scalar =
      rank == 0 && axes->size() == 1 && ((*axes)[0] == 0 || (*axes)[0] == -1);
  if (integer_axis_of_scalar && !IsStatistic(op)) {
    return std::vector<int64_t>{};
  }
  std::vector<int64_t> normalized;
  for (int64_t axis : *axes) {
    AH_ASSIGN_OR_RETURN(int64_t a, NormalizeAxis(axis, rank));
    normalized.push_back(a);
  }
  std::sort(normalized.begin(), normalized.end());
  if (std::adjacent_find(normalized.begin(), normalized.end()) != normalized.end()) {
    return absl::InvalidArgumentError("duplicate value in 'axis'");
  }
  return normalized;
}

// The accumulator of the float32 sums (float64, see the header) and of float16 (float32).
DType SummationDType(DType d) {
  if (d == DType::kFloat16) return DType::kFloat32;
  return d == DType::kFloat32 ? DType::kFloat64 : d;
}

// Integers and bool sum and multiply in 64 bits.
DType IntegerAccumulator(DType d) {
  return KindOf(d) == DTypeKind::kUnsigned ? DType::kUInt64 : DType::kInt64;
}

struct ReduceDTypes {
  DType accumulate;
  DType result;
};

ReduceDTypes SumOrProdDTypes(ReduceOp op, DType input, std::optional<DType> dtype) {
  // Without dtype=, bool and integers return the 64-bit type they compute in.
  const DType result = dtype.value_or(IsInexact(input) ? input : IntegerAccumulator(input));
  if (!IsInexact(result)) return {IntegerAccumulator(result), result};
  // prod is no sum: only float16 widens (to float32) there.
  const bool widen = op == ReduceOp::kSum || result == DType::kFloat16;
  return {widen ? SummationDType(result) : result, result};
}

absl::StatusOr<ReduceDTypes> StatisticDTypes(ReduceOp op, DType input, std::optional<DType> dtype) {
  if (dtype && !IsInexact(*dtype)) {
    return absl::InvalidArgumentError(fmt::format(
        "{} with dtype={} is not supported: NumPy computes it in truncating integer arithmetic; "
        "ask for a float or complex dtype",
        OpName(op), DTypeName(*dtype)));
  }
  const bool variance = op != ReduceOp::kMean;
  if (variance && IsComplex(input) && dtype && !IsComplex(*dtype)) {
    return absl::InvalidArgumentError(fmt::format(
        "{} of a complex array with dtype={} is not supported: NumPy drops the imaginary part of "
        "the mean; ask for a complex dtype",
        OpName(op), DTypeName(*dtype)));
  }
  // Bool and integers compute in float64; var and std of complex values are real.
  const DType base = dtype.value_or(IsInexact(input) ? input : DType::kFloat64);
  const DType result = variance && !dtype ? RealDType(base) : base;
  return ReduceDTypes{SummationDType(base), result};
}

absl::StatusOr<ReduceDTypes> ReduceDTypesOf(ReduceOp op, DType input, std::optional<DType> dtype) {
  switch (FamilyOf(op)) {
    case ReduceFamily::kSumOrProd:
      return SumOrProdDTypes(op, input, dtype);
    case ReduceFamily::kStatistic:
      return StatisticDTypes(op, input, dtype);
    case ReduceFamily::kArgument:
      return ReduceDTypes{input, DType::kInt64};
    case ReduceFamily::kLogical:
      return ReduceDTypes{DType::kBool, DType::kBool};
    case ReduceFamily::kExtremum:
      return ReduceDTypes{input, input};
  }
  return absl::InternalError(fmt::format("no dtype rule for {}", OpName(op)));
}

absl::Status CheckArguments(ReduceOp op, std::optional<DType> dtype, double ddof) {
  if (dtype && !TakesDType(op)) {
    return absl::InvalidArgumentError(fmt::format("{} takes no dtype argument", OpName(op)));
  }
  if (ddof != 0 && op != ReduceOp::kVar && op != ReduceOp::kStd) {
    return absl::InvalidArgumentError(fmt::format("{} takes no ddof argument", OpName(op)));
  }
  return absl::OkStatus();
}

// min, max, argmin and argmax have no value for zero elements.
absl::Status CheckNotEmpty(ReduceOp op, const Shape& shape, const std::vector<int64_t>& axes) {
  const bool empty =
      std::any_of(axes.begin(), axes.end(), [&](int64_t a) { return shape[a] == 0; });
  if (!empty) return absl::OkStatus();
  switch (FamilyOf(op)) {
    case ReduceFamily::kExtremum:
      return absl::InvalidArgumentError(
          fmt::format("zero-size array to reduction operation {} which has no identity",
                      op == ReduceOp::kMin ? "minimum" : "maximum"));
    case ReduceFamily::kArgument:
      return absl::InvalidArgumentError(
          fmt::format("attempt to get {} of an empty sequence", OpName(op)));
    default:
      return absl::OkStatus();
  }
}

}  // namespace

absl::StatusOr<ReduceResolution> ResolveReduce(ReduceOp op, DType input, const Shape& shape,
                                               const std::optional<std::vector<int64_t>>& axes,
                                               std::optional<DType> dtype, double ddof) {
  AH_RETURN_IF_ERROR(CheckArguments(op, dtype, ddof));
  AH_ASSIGN_OR_RETURN(std::vector<int64_t> reduced,
                      ReducedAxes(op, static_cast<int64_t>(shape.size()), axes));
  AH_RETURN_IF_ERROR(CheckNotEmpty(op, shape, reduced));
  AH_ASSIGN_OR_RETURN(ReduceDTypes dtypes, ReduceDTypesOf(op, input, dtype));
  ReduceResolution resolution{.axes = std::move(reduced),
                              .accumulate_dtype = dtypes.accumulate,
                              .result_dtype = dtypes.result,
                              .result_shape = {},
                              .keepdims_shape = shape};
  for (int64_t a : resolution.axes) resolution.keepdims_shape[a] = 1;
  for (size_t a = 0; a < shape.size(); ++a) {
    if (!std::binary_search(resolution.axes.begin(), resolution.axes.end(), a)) {
      resolution.result_shape.push_back(shape[a]);
    }
  }
  return resolution;
}

}  // namespace arrayhub
