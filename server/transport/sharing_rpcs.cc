// Publish, Unpublish, Attach, Checkpoint.
#include "server/common/status_macros.h"
#include "server/transport/convert.h"
#include "server/transport/service.h"

namespace arrayhub {

grpc::Status ArrayHubService::Publish(grpc::ServerContext* context,
                                      const v1::PublishRequest* request,
                                      v1::PublishResponse* response) {
  return ToGrpcStatus([&]() -> absl::Status {
    AH_ASSIGN_OR_RETURN(Caller caller, CallerOf(*context, *request));
    const PublishSpec spec{
        .handle = request->handle(),
        .name = request->name(),
        .reader_tenants = {request->reader_tenants().begin(), request->reader_tenants().end()},
        .all_tenants = request->all_tenants(),
        .writable = request->writable(),
        .durable = request->durable(),
        .wait = request->wait_durable()};
    AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr published, engine_.Publish(caller, spec));
    FillInfo(*published, response->mutable_array());
    return absl::OkStatus();
  }());
}

grpc::Status ArrayHubService::Unpublish(grpc::ServerContext* context,
                                        const v1::UnpublishRequest* request,
                                        v1::UnpublishResponse*) {
  return ToGrpcStatus([&]() -> absl::Status {
    AH_ASSIGN_OR_RETURN(Caller caller, CallerOf(*context));
    return engine_.Unpublish(caller, request->name());
  }());
}

grpc::Status ArrayHubService::Attach(grpc::ServerContext* context, const v1::AttachRequest* request,
                                     v1::AttachResponse* response) {
  return ToGrpcStatus([&]() -> absl::Status {
    AH_ASSIGN_OR_RETURN(Caller caller, CallerOf(*context));
    AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr attached,
                        engine_.Attach(caller, request->name(), request->owner()));
    FillInfo(*attached, response->mutable_array());
    return absl::OkStatus();
  }());
}

grpc::Status ArrayHubService::Checkpoint(grpc::ServerContext* context,
                                         const v1::CheckpointRequest* request,
                                         v1::CheckpointResponse* response) {
  return ToGrpcStatus([&]() -> absl::Status {
    AH_ASSIGN_OR_RETURN(Caller caller, CallerOf(*context));
    AH_ASSIGN_OR_RETURN(CheckpointResult result, engine_.Checkpoint(caller, request->wait()));
    response->set_publications(result.publications);
    response->set_bytes(result.bytes);
    response->set_tenant_disk_bytes(engine_.TenantDiskBytes(caller.tenant));
    return absl::OkStatus();
  }());
}

}  // namespace arrayhub
