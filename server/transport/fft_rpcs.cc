// Fft.
#include "server/common/status_macros.h"
#include "server/transport/convert.h"
#include "server/transport/service.h"

namespace arrayhub {

grpc::Status ArrayHubService::Fft(grpc::ServerContext* context, const v1::FftRequest* request,
                                  v1::ArrayInfo* response) {
  return ToGrpcStatus([&]() -> absl::Status {
    AH_ASSIGN_OR_RETURN(Caller caller, CallerOf(*context, *request));
    AH_ASSIGN_OR_RETURN(FftSpec spec, FftSpecFromProto(*request));
    AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr result, engine_.Fft(caller, spec));
    FillInfo(*result, response);
    return absl::OkStatus();
  }());
}

}  // namespace arrayhub
