// Collective: one call across the daemon's devices (docs/devices.md).
#include <fmt/format.h>

#include "server/common/status_macros.h"
#include "server/transport/convert.h"
#include "server/transport/service.h"

namespace arrayhub {

namespace {

using Request = v1::CollectiveRequest;

absl::StatusOr<CollectiveKind> KindFromProto(Request::Kind kind) {
  switch (kind) {
    case Request::ALL_REDUCE:
      return CollectiveKind::kAllReduce;
    case Request::REDUCE:
      return CollectiveKind::kReduce;
    case Request::BROADCAST:
      return CollectiveKind::kBroadcast;
    case Request::ALL_GATHER:
      return CollectiveKind::kAllGather;
    case Request::REDUCE_SCATTER:
      return CollectiveKind::kReduceScatter;
    case Request::ALL_TO_ALL:
      return CollectiveKind::kAllToAll;
    default:
      break;
  }
  return absl::InvalidArgumentError(fmt::format(
      "kind must be ALL_REDUCE, REDUCE, BROADCAST, ALL_GATHER, REDUCE_SCATTER or ALL_TO_ALL, "
      "got {}",
      static_cast<int>(kind)));
}

absl::StatusOr<std::optional<CollectiveReduction>> ReductionFromProto(Request::ReduceOp op) {
  switch (op) {
    case Request::REDUCE_OP_UNSPECIFIED:
      return std::nullopt;
    case Request::SUM:
      return CollectiveReduction::kSum;
    case Request::PROD:
      return CollectiveReduction::kProd;
    case Request::MIN:
      return CollectiveReduction::kMin;
    case Request::MAX:
      return CollectiveReduction::kMax;
    case Request::AVG:
      return CollectiveReduction::kAvg;
    default:
      break;
  }
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
