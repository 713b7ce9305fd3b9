// ExportIpc and ReleaseIpc: CUDA IPC leases on arrays' device memory (docs/ipc.md), and the
// socket that hands out the pools' descriptors and takes in shared-memory objects'.
#include "server/common/status_macros.h"
#include "server/transport/convert.h"
#include "server/transport/service.h"

namespace arrayhub {

absl::StatusOr<std::string> ArrayHubService::IpcSocketPath() {
  absl::MutexLock lock(&ipc_socket_mutex_);
  if (ipc_socket_ == nullptr) {
    AH_ASSIGN_OR_RETURN(
        ipc_socket_,
        IpcSocket::Start(
            ipc_socket_path_,
            {.redeem_pool =
                 [this](std::string_view ticket) { return engine_.RedeemPoolTicket(ticket); },
             .park_region =
                 [this](uid_t sender, OwnedFd fd) {
                   return engine_.ParkSharedMemoryDescriptor(sender, std::move(fd));
                 },
             .open_batch_lane =
                 [this](std::string_view ticket, OwnedFd& connection) {
                   return OpenLane(ticket, connection);
                 }}));
  }
  return ipc_socket_->path();
}

ArrayHubService::~ArrayHubService() {
  absl::MutexLock lock(&ipc_socket_mutex_);
  ipc_socket_.reset();
}

grpc::Status ArrayHubService::ExportIpc(grpc::ServerContext* context,
                                        const v1::ExportIpcRequest* request,
                                        v1::ExportIpcResponse* response) {
  return ToGrpcStatus([&]() -> absl::Status {
    AH_ASSIGN_OR_RETURN(Caller caller, CallerOf(*context));
    AH_ASSIGN_OR_RETURN(IpcExport exported, engine_.ExportIpc(caller, request->handle()));
    absl::StatusOr<std::string> socket_path = IpcSocketPath();
    if (!socket_path.ok()) {
      (void)engine_.ReleaseIpc(caller, exported.lease);
      return socket_path.status();
    }
    response->set_lease(exported.lease);
    response->set_pointer_export_data(exported.memory.pointer_export_data);
    response->set_offset_bytes(exported.array->offset_bytes);
    response->set_pool_id(exported.memory.pool_id);
    response->set_pool_ticket(exported.pool_ticket);
    response->set_socket_path(*socket_path);
    response->set_device_uuid(exported.memory.device_uuid);
    response->set_device_ordinal(exported.memory.device_ordinal);
    FillInfo(*exported.array, response->mutable_array());
    return absl::OkStatus();
  }());
}

grpc::Status ArrayHubService::ReleaseIpc(grpc::ServerContext* context,
                                         const v1::ReleaseIpcRequest* request,
                                         v1::ReleaseIpcResponse*) {
  return ToGrpcStatus([&]() -> absl::Status {
    AH_ASSIGN_OR_RETURN(Caller caller, CallerOf(*context));
    return engine_.ReleaseIpc(caller, request->lease());
  }());
}

}  // namespace arrayhub
