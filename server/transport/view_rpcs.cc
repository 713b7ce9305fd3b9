// View, GetItem, SetItem and ArrayOp.
#include "server/common/status_macros.h"
#include "server/transport/convert.h"
#include "server/transport/service.h"

namespace arrayhub {

grpc::Status ArrayHubService::View(grpc::ServerContext* context, const v1::ViewRequest* request,
                                   v1::ArrayInfo* response) {
  return AnswerArray(*context, *request, response, ViewSpecFromProto, &Engine::View);
}

grpc::Status ArrayHubService::GetItem(grpc::ServerContext* context,
                                      const v1::GetItemRequest* request, v1::ArrayInfo* response) {
  return AnswerArray(*context, *request, response, GetItemSpecFromProto, &Engine::GetItem);
}

grpc::Status ArrayHubService::SetItem(grpc::ServerContext* context,
                                      const v1::SetItemRequest* request, v1::SetItemResponse*) {
  return ToGrpcStatus([&]() -> absl::Status {
    AH_ASSIGN_OR_RETURN(Caller caller, CallerOf(*context, *request));
    AH_ASSIGN_OR_RETURN(SetItemSpec spec, SetItemSpecFromProto(*request));
    return engine_.SetItem(caller, spec);
  }());
}

grpc::Status ArrayHubService::ArrayOp(grpc::ServerContext* context,
                                      const v1::ArrayOpRequest* request,
                                      v1::ArrayOpResponse* response) {
  return ToGrpcStatus([&]() -> absl::Status {
    AH_ASSIGN_OR_RETURN(Caller caller, CallerOf(*context, *request));
    AH_ASSIGN_OR_RETURN(ArrayOpSpec spec, ArrayOpSpecFromProto(*request));
    AH_ASSIGN_OR_RETURN(std::vector<ArrayTable::RecordPtr> results, engine_.ArrayOp(caller, spec));
    for (const ArrayTable::RecordPtr& result : results) FillInfo(*result, response->add_results());
    return absl::OkStatus();
  }());
}

}  // namespace arrayhub
