// RegisterSharedMemory, UnregisterSharedMemory, CopyFromSharedMemory, CopyToSharedMemory: the
// same-host transfer path through a client's shared-memory object, whose descriptor the
// client handed over the descriptor socket (ipc_socket.h).
#include "server/common/status_macros.h"
#include "server/transport/convert.h"
#include "server/transport/service.h"

namespace arrayhub {
namespace {

absl::StatusOr<SharedMemoryCopySpec> CopySpecFromProto(const v1::SharedMemoryCopyRequest& request) {
  AH_ASSIGN_OR_RETURN(std::optional<DType> dtype, OptionalDType(request.dtype(), "dtype"));
  return SharedMemoryCopySpec{.region_name = request.region_name(),
                              .offset_bytes = request.offset_bytes(),
                              .handle = request.handle(),
                              .dtype = dtype,
                              .shape = ShapeFromProto(request.shape())};
}

}  // namespace

grpc::Status ArrayHubService::RegisterSharedMemory(grpc::ServerContext* context,
                                                   const v1::RegisterSharedMemoryRequest* request,
                                                   v1::RegisterSharedMemoryResponse*) {
  return ToGrpcStatus([&]() -> absl::Status {
    AH_ASSIGN_OR_RETURN(Caller caller, CallerOf(*context));
    return engine_.RegisterSharedMemory(caller,
                                        {.region_name = request->region_name(),
                                         .byte_size = request->byte_size(),
                                         .descriptor_ticket = request->descriptor_ticket()});
  }());
}

grpc::Status ArrayHubService::UnregisterSharedMemory(
    grpc::ServerContext* context, const v1::UnregisterSharedMemoryRequest* request,
    v1::UnregisterSharedMemoryResponse*) {
  return ToGrpcStatus([&]() -> absl::Status {
    AH_ASSIGN_OR_RETURN(Caller caller, CallerOf(*context));
    return engine_.UnregisterSharedMemory(caller, request->region_name());
  }());
}

grpc::Status ArrayHubService::CopyFromSharedMemory(grpc::ServerContext* context,
                                                   const v1::SharedMemoryCopyRequest* request,
                                                   v1::SharedMemoryCopyResponse* response) {
  return ToGrpcStatus([&]() -> absl::Status {
    AH_ASSIGN_OR_RETURN(Caller caller, CallerOf(*context, *request));
    AH_ASSIGN_OR_RETURN(SharedMemoryCopySpec spec, CopySpecFromProto(*request));
    AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr array, engine_.CopyFromSharedMemory(caller, spec));
    counters_.client_upload_bytes += array->nbytes();
    FillInfo(*array, response->mutable_array());
    return absl::OkStatus();
  }());
}

grpc::Status ArrayHubService::CopyToSharedMemory(grpc::ServerContext* context,
                                                 const v1::SharedMemoryCopyRequest* request,
                                                 v1::SharedMemoryCopyResponse* response) {
  return ToGrpcStatus([&]() -> absl::Status {
    AH_ASSIGN_OR_RETURN(Caller caller, CallerOf(*context, *request));
    AH_ASSIGN_OR_RETURN(SharedMemoryCopySpec spec, CopySpecFromProto(*request));
    AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr array, engine_.CopyToSharedMemory(caller, spec));
    counters_.client_download_bytes += array->nbytes();
    FillInfo(*array, response->mutable_array());
    return absl::OkStatus();
  }());
}

}  // namespace arrayhub
