// Matmul, TensorProduct and Linalg.
#include "server/common/status_macros.h"
#include "server/transport/convert.h"
#include "server/transport/service.h"

namespace arrayhub {

grpc::Status ArrayHubService::Matmul(grpc::ServerContext* context, const v1::MatmulRequest* request,
                                     v1::ArrayInfo* response) {
  return AnswerArray(*context, *request, response, MatmulSpecFromProto, &Engine::Matmul);
}

grpc::Status ArrayHubService::TensorProduct(grpc::ServerContext* context,
                                            const v1::TensorProductRequest* request,
                                            v1::ArrayInfo* response) {
  return AnswerArray(*context, *request, response, TensorProductSpecFromProto,
                     &Engine::TensorProduct);
}

grpc::Status ArrayHubService::Linalg(grpc::ServerContext* context, const v1::LinalgRequest* request,
                                     v1::LinalgResponse* response) {
  return ToGrpcStatus([&]() -> absl::Status {
    AH_ASSIGN_OR_RETURN(Caller caller, CallerOf(*context, *request));
    AH_ASSIGN_OR_RETURN(LinalgSpec spec, LinalgSpecFromProto(*request));
    AH_ASSIGN_OR_RETURN(std::vector<ArrayTable::RecordPtr> results, engine_.Linalg(caller, spec));
    for (const ArrayTable::RecordPtr& result : results) FillInfo(*result, response->add_results());
    return absl::OkStatus();
  }());
}

}  // namespace arrayhub
