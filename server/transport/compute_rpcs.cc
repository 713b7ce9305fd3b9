// Elementwise and Reduce.
#include "server/common/status_macros.h"
#include "server/transport/convert.h"
#include "server/transport/service.h"

namespace arrayhub {

grpc::Status ArrayHubService::Elementwise(grpc::ServerContext* context,
                                          const v1::ElementwiseRequest* request,
                                          v1::ArrayInfo* response) {
  return ToGrpcStatus([&]() -> absl::Status {
    AH_ASSIGN_OR_RETURN(Caller caller, CallerOf(*context, *request));
    AH_ASSIGN_OR_RETURN(ElementwiseSpec spec, ElementwiseSpecFromProto(*request));
    AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr result, engine_.Elementwise(caller, spec));
    FillInfo(*result, response);
    return absl::OkStatus();
  }());
}

grpc::Status ArrayHubService::Reduce(grpc::ServerContext* context, const v1::ReduceRequest* request,
                                     v1::ArrayInfo* response) {
  return ToGrpcStatus([&]() -> absl::Status {
    AH_ASSIGN_OR_RETURN(Caller caller, CallerOf(*context, *request));
    AH_ASSIGN_OR_RETURN(ReduceSpec spec, ReduceSpecFromProto(*request));
    AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr result, engine_.Reduce(caller, spec));
    FillInfo(*result, response);
    return absl::OkStatus();
  }());
}

}  // namespace arrayhub
