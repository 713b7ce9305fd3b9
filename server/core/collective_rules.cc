#include "server/core/collective_rules.h"

#include <fmt/format.h>

#include "server/common/name_table.h"
#include "server/common/status_macros.h"

namespace arrayhub {

namespace {

constexpr std::pair<CollectiveKind, std::string_view> kCollectiveNames[] = {
    {CollectiveKind::kAllReduce, "all_reduce"},         {CollectiveKind::kReduce, "reduce"},
    {CollectiveKind::kBroadcast, "broadcast"},          {CollectiveKind::kAllGather, "all_gather"},
    {CollectiveKind::kReduceScatter, "reduce_scatter"}, {CollectiveKind::kAllToAll, "all_to_all"},
};
static_assert(std::size(kCollectiveNames) == static_cast<size_t>(CollectiveKind::kAllToAll) + 1);

constexpr std::pair<CollectiveReduction, std::string_view> kReductionNames[] = {
    {CollectiveReduction::kSum, "sum"}, {CollectiveReduction::kProd, "prod"},
    {CollectiveReduction::kMin, "min"}, {CollectiveReduction::kMax, "max"},
    {CollectiveReduction::kAvg, "avg"},
};
static_assert(std::size(kReductionNames) == static_cast<size_t>(CollectiveReduction::kAvg) + 1);

}  // namespace

std::string_view CollectiveName(CollectiveKind kind) { return NameOf(kCollectiveNames, kind); }

std::string_view ReductionName(CollectiveReduction reduction) {
  return NameOf(kReductionNames, reduction);
}

namespace {

bool Reduces(CollectiveKind kind) {
  return kind == CollectiveKind::kAllReduce || kind == CollectiveKind::kReduce ||
         kind == CollectiveKind::kReduceScatter;
}

// The dtypes NCCL reduces: no 16-bit integers; complex values as pairs of reals, so only their
// sum and average; bool as a byte, so only its min and max (logical and, or).
absl::Status CheckReducible(CollectiveReduction reduction, DType dtype) {
  const std::string_view op = ReductionName(reduction);
  if (dtype == DType::kInt16 || dtype == DType::kUInt16) {
    return absl::InvalidArgumentError(fmt::format(
        "dtype {} cannot be reduced across devices (NCCL has no 16-bit integers); cast it to "
        "int32 first",
        DTypeName(dtype)));
  }
  const DTypeKind kind = KindOf(dtype);
  if (kind == DTypeKind::kComplex && reduction != CollectiveReduction::kSum &&
      reduction != CollectiveReduction::kAvg) {
    return absl::InvalidArgumentError(fmt::format(
        "op {} is not defined for complex dtype {}; sum and avg are", op, DTypeName(dtype)));
  }
  if (kind == DTypeKind::kBool && reduction != CollectiveReduction::kMin &&
      reduction != CollectiveReduction::kMax) {
    return absl::InvalidArgumentError(
        fmt::format("op {} is not defined for dtype bool; min and max (logical and, or) are", op));
  }
  if (reduction == CollectiveReduction::kAvg && kind != DTypeKind::kFloat &&
      kind != DTypeKind::kComplex) {
    return absl::InvalidArgumentError(
        fmt::format("op avg needs a floating or complex dtype, not {}", DTypeName(dtype)));
  }
  return absl::OkStatus();
}

absl::StatusOr<CollectivePlan> Plan(const CollectiveSpec& spec, DType dtype, const Shape& shape,
                                    int ranks) {
  if (Reduces(spec.kind) != spec.reduction.has_value()) {
    return absl::InvalidArgumentError(
        Reduces(spec.kind) ? "op is required (sum, prod, min, max or avg)"
                           : "op is for the reductions (all_reduce, reduce, reduce_scatter)");
  }
  const bool has_root = spec.kind == CollectiveKind::kReduce;
  if (has_root ? spec.root < 0 || spec.root >= ranks : spec.root != 0) {
    return absl::InvalidArgumentError(
        has_root ? fmt::format("root {} is not a rank: there are {} (0 to {})", spec.root, ranks,
                               ranks - 1)
                 : std::string("root is for reduce"));
  }
  if (spec.reduction.has_value()) AH_RETURN_IF_ERROR(CheckReducible(*spec.reduction, dtype));
  AH_ASSIGN_OR_RETURN(const int64_t size, ElementCount(shape));
  const bool along_axis0 = spec.kind == CollectiveKind::kAllGather ||
                           spec.kind == CollectiveKind::kReduceScatter ||
                           spec.kind == CollectiveKind::kAllToAll;
  if (along_axis0 && shape.empty()) {
    return absl::InvalidArgumentError(
        "the arrays must have at least one dimension: it joins or splits them along axis 0");
  }
  const bool splits =
      spec.kind == CollectiveKind::kReduceScatter || spec.kind == CollectiveKind::kAllToAll;
  if (splits && shape[0] % ranks != 0) {
    return absl::InvalidArgumentError(
        fmt::format("axis 0 of shape {} does not split into {} equal parts, one per rank",
                    FormatShape(shape), ranks));
  }
  CollectivePlan plan{.result_shape = shape,
                      .dtype = spec.reduction.has_value() ? dtype : DType::kUInt8,
                      .count = spec.reduction.has_value() ? size : size * ItemSize(dtype)};
  switch (spec.kind) {
    case CollectiveKind::kAllGather:
      plan.result_shape[0] *= ranks;
      break;
    case CollectiveKind::kReduceScatter:
      plan.result_shape[0] /= ranks;
      plan.count /= ranks;
      break;
    case CollectiveKind::kAllToAll:
      plan.count /= ranks;
      break;
    case CollectiveKind::kAllReduce:
    case CollectiveKind::kReduce:
    case CollectiveKind::kBroadcast:
      break;
  }
  return plan;
}

}  // namespace

absl::StatusOr<CollectivePlan> PlanCollective(const CollectiveSpec& spec, DType dtype,
                                              const Shape& shape, int ranks) {
  absl::StatusOr<CollectivePlan> plan = Plan(spec, dtype, shape, ranks);
  if (!plan.ok()) {
    return absl::Status(plan.status().code(), fmt::format("{}: {}", CollectiveName(spec.kind),
                                                          std::string(plan.status().message())));
  }
  return plan;
}

}  // namespace arrayhub
