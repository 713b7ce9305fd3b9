// OpenSession, KeepAlive, CloseSession.
#include "server/common/status_macros.h"
#include "server/transport/convert.h"
#include "server/transport/service.h"

namespace arrayhub {

grpc::Status ArrayHubService::OpenSession(grpc::ServerContext* context,
                                          const v1::OpenSessionRequest* request,
                                          v1::OpenSessionResponse* response) {
  return ToGrpcStatus([&]() -> absl::Status {
    AH_ASSIGN_OR_RETURN(std::string tenant, TenantOf(*context));
    if (request->lease_seconds() < 0) {
      return absl::InvalidArgumentError("lease_seconds must not be negative");
    }
    AH_ASSIGN_OR_RETURN(
        Session session,
        engine_.OpenSession(
            tenant, request->client_name(), std::chrono::seconds(request->lease_seconds()),
            request->has_device() ? std::optional<int>(request->device()) : std::nullopt));
    response->set_session_id(session.id.ToString());
    response->set_device(session.device);
    response->set_lease_seconds(session.lease.count());
    response->set_tenant(session.tenant);
    return absl::OkStatus();
  }());
}

grpc::Status ArrayHubService::KeepAlive(grpc::ServerContext* context, const v1::KeepAliveRequest*,
                                        v1::KeepAliveResponse* response) {
  return ToGrpcStatus([&]() -> absl::Status {
    AH_ASSIGN_OR_RETURN(Caller caller, CallerOf(*context));
    AH_ASSIGN_OR_RETURN(Session session, engine_.KeepAlive(caller));
    response->set_lease_expires_unix_ms(UnixMillis(session.expires_at));
    return absl::OkStatus();
  }());
}

grpc::Status ArrayHubService::CloseSession(grpc::ServerContext* context,
                                           const v1::CloseSessionRequest*,
                                           v1::CloseSessionResponse* response) {
  return ToGrpcStatus([&]() -> absl::Status {
    AH_ASSIGN_OR_RETURN(Caller caller, CallerOf(*context));
    AH_ASSIGN_OR_RETURN(int64_t freed, engine_.CloseSession(caller));
    response->set_arrays_freed(freed);
    return absl::OkStatus();
  }());
}

}  // namespace arrayhub
