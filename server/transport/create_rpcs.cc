// Create: empty, zeros, ones, full, arange, linspace, eye.
#include "server/common/status_macros.h"
#include "server/transport/convert.h"
#include "server/transport/service.h"

namespace arrayhub {

grpc::Status ArrayHubService::Create(grpc::ServerContext* context, const v1::CreateRequest* request,
                                     v1::ArrayInfo* response) {
  return ToGrpcStatus([&]() -> absl::Status {
    AH_ASSIGN_OR_RETURN(Caller caller, CallerOf(*context, *request));
    AH_ASSIGN_OR_RETURN(CreateSpec spec, CreateSpecFromProto(*request));
    AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr record, engine_.Create(caller, spec));
    FillInfo(*record, response);
    return absl::OkStatus();
  }());
}

}  // namespace arrayhub
