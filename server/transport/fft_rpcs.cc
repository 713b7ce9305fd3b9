// Fft.
#include "server/transport/convert.h"
#include "server/transport/service.h"

namespace arrayhub {

grpc::Status ArrayHubService::Fft(grpc::ServerContext* context, const v1::FftRequest* request,
                                  v1::ArrayInfo* response) {
  return AnswerArray(*context, *request, response, FftSpecFromProto, &Engine::Fft);
}

}  // namespace arrayhub
