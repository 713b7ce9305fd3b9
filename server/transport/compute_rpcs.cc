// Elementwise and Reduce.
#include "server/transport/convert.h"
#include "server/transport/service.h"

namespace arrayhub {

grpc::Status ArrayHubService::Elementwise(grpc::ServerContext* context,
                                          const v1::ElementwiseRequest* request,
                                          v1::ArrayInfo* response) {
  return AnswerArray(*context, *request, response, ElementwiseSpecFromProto, &Engine::Elementwise);
}

grpc::Status ArrayHubService::Reduce(grpc::ServerContext* context, const v1::ReduceRequest* request,
                                     v1::ArrayInfo* response) {
  return AnswerArray(*context, *request, response, ReduceSpecFromProto, &Engine::Reduce);
}

}  // namespace arrayhub
