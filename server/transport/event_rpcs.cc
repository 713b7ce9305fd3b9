// QueryEvent and EventElapsedTime: the events a session recorded in its Batches (record_event),
// read back once its work has reached them (docs/execution.md, "Events").
#include "server/common/status_macros.h"
#include "server/transport/convert.h"
#include "server/transport/service.h"

namespace arrayhub {

grpc::Status ArrayHubService::QueryEvent(grpc::ServerContext* context,
                                         const v1::QueryEventRequest* request,
                                         v1::QueryEventResponse* response) {
  return ToGrpcStatus([&]() -> absl::Status {
    AH_ASSIGN_OR_RETURN(Caller caller, CallerOf(*context));
    AH_ASSIGN_OR_RETURN(bool done,
                        engine_.QueryEvent(caller, request->event_id(), request->wait()));
    response->set_done(done);
    return absl::OkStatus();
  }());
}

grpc::Status ArrayHubService::EventElapsedTime(grpc::ServerContext* context,
                                               const v1::EventElapsedTimeRequest* request,
                                               v1::EventElapsedTimeResponse* response) {
  return ToGrpcStatus([&]() -> absl::Status {
    AH_ASSIGN_OR_RETURN(Caller caller, CallerOf(*context));
    AH_ASSIGN_OR_RETURN(double milliseconds,
                        engine_.EventElapsedMilliseconds(caller, request->start_event_id(),
                                                         request->end_event_id()));
    response->set_milliseconds(milliseconds);
    return absl::OkStatus();
  }());
}

}  // namespace arrayhub
