// Collective: one call across the daemon's devices (docs/devices.md).
#include <fmt/format.h>

#include "server/common/name_table.h"
#include "server/common/status_macros.h"
#include "server/transport/convert.h"
#include "server/transport/service.h"

namespace arrayhub {

namespace {

using Request = v1::CollectiveRequest;

constexpr std::pair<Request::Kind, CollectiveKind> kKinds[] = {
    {Request::ALL_REDUCE, CollectiveKind::kAllReduce},
    {Request::REDUCE, CollectiveKind::kReduce},
    {Request::BROADCAST, CollectiveKind::kBroadcast},
    {Request::ALL_GATHER, CollectiveKind::kAllGather},
    {Request::REDUCE_SCATTER, CollectiveKind::kReduceScatter},
    {Request::ALL_TO_ALL, CollectiveKind::kAllToAll},
};

// REDUCE_OP_UNSPECIFIED is no reduction, not in the table.
constexpr std::pair<Request::ReduceOp, CollectiveReduction> kReductions[] = {
    {Request::SUM, CollectiveReduction::kSum}, {Request::PROD, CollectiveReduction::kProd},
    {Request::MIN, CollectiveReduction::kMin}, {Request::MAX, CollectiveReduction::kMax},
    {Request::AVG, CollectiveReduction::kAvg},
};

absl::StatusOr<CollectiveKind> KindFromProto(Request::Kind kind) {
  if (const std::optional<CollectiveKind> known = LookUp(kKinds, kind)) return *known;
  return absl::InvalidArgumentError(fmt::format(
      "kind must be ALL_REDUCE, REDUCE, BROADCAST, ALL_GATHER, REDUCE_SCATTER or ALL_TO_ALL, "
      "got {}",
      static_cast<int>(kind)));
}

absl::StatusOr<std::optional<CollectiveReduction>> ReductionFromProto(Request::ReduceOp op) {
  if (op == Request::REDUCE_OP_UNSPECIFIED) return std::nullopt;
  if (const std::optional<CollectiveReduction> known = LookUp(kReductions, op)) return *known;
  return absl::InvalidArgumentError(
      fmt::format("op must be SUM, PROD, MIN, MAX or AVG, got {}", static_cast<int>(op)));
}

absl::StatusOr<CollectiveSpec> SpecFromProto(const Request& request) {
  CollectiveSpec spec;
  AH_ASSIGN_OR_RETURN(spec.kind, KindFromProto(request.kind()));
  AH_ASSIGN_OR_RETURN(spec.reduction, ReductionFromProto(request.op()));
  spec.handles.assign(request.handles().begin(), request.handles().end());
  spec.devices.assign(request.devices().begin(), request.devices().end());
  spec.root = request.root();
  return spec;
}

}  // namespace

grpc::Status ArrayHubService::Collective(grpc::ServerContext* context, const Request* request,
                                         v1::CollectiveResponse* response) {
  return ToGrpcStatus([&]() -> absl::Status {
    AH_ASSIGN_OR_RETURN(Caller caller, CallerOf(*context));
    AH_ASSIGN_OR_RETURN(const CollectiveSpec spec, SpecFromProto(*request));
    AH_ASSIGN_OR_RETURN(const std::vector<ArrayTable::RecordPtr> results,
                        engine_.Collective(caller, spec));
    for (const ArrayTable::RecordPtr& result : results) FillInfo(*result, response->add_results());
    return absl::OkStatus();
  }());
}

}  // namespace arrayhub
