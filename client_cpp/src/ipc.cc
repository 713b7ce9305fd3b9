// ExportIpc, ReleaseIpc and the client side of the server's IPC socket (docs/ipc.md).
#include "arrayhub/client.h"
#include "connection.h"
#include "convert.h"
#include "descriptor_socket.h"

namespace arrayhub::client {

IpcExport Client::ExportIpc(const Array& array) {
  v1::ExportIpcRequest request;
  request.set_handle(array.handle());
  const v1::ExportIpcResponse response =
      detail::Call(Synced(), &v1::ArrayHub::Stub::ExportIpc, request);
  return IpcExport{.lease = response.lease(),
                   .pointer_export_data = response.pointer_export_data(),
                   .offset_bytes = response.offset_bytes(),
                   .pool_id = response.pool_id(),
                   .pool_ticket = response.pool_ticket(),
                   .socket_path = response.socket_path(),
                   .device_uuid = response.device_uuid(),
                   .device_ordinal = response.device_ordinal(),
                   .array = detail::FromProto(response.array())};
}

void Client::ReleaseIpc(const std::string& lease) {
  v1::ReleaseIpcRequest request;
  request.set_lease(lease);
  detail::Call(Synced(), &v1::ArrayHub::Stub::ReleaseIpc, request);
}

int FetchPoolDescriptor(const IpcExport& exported) {
  detail::SocketReply reply =
      detail::AskDescriptorSocket(exported.socket_path, exported.pool_ticket);
  if (reply.line.starts_with("ERROR ")) throw Error(StatusCode::kNotFound, reply.line.substr(6));
  if (reply.line != "OK " + exported.pool_id || reply.fd.get() < 0) {
    throw Error(StatusCode::kDataLoss, "IPC socket " + exported.socket_path +
                                           ": unexpected reply '" + reply.line + "' for pool '" +
                                           exported.pool_id + "'");
  }
  return reply.fd.release();
}

}  // namespace arrayhub::client
