// ExportIpc, ReleaseIpc and the client side of the server's IPC socket (docs/ipc.md).
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "arrayhub/client.h"
#include "connection.h"
#include "convert.h"

namespace arrayhub::client {

namespace {

// Closes a descriptor on every path out of FetchPoolDescriptor.
class ScopedFd {
 public:
  explicit ScopedFd(int fd) : fd_(fd) {}
  ~ScopedFd() {
    if (fd_ >= 0) close(fd_);
  }
  ScopedFd(const ScopedFd&) = delete;
  ScopedFd& operator=(const ScopedFd&) = delete;
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

Error SocketError(StatusCode code, const std::string& path, std::string_view what) {
  return Error(code, "IPC socket " + path + ": " + std::string(what));
}

}  // namespace

IpcExport Client::ExportIpc(const Array& array) {
  v1::ExportIpcRequest request;
  request.set_handle(array.handle());
  const v1::ExportIpcResponse response =
      detail::Call(connection(), &v1::ArrayHub::Stub::ExportIpc, request);
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
  detail::Call(connection(), &v1::ArrayHub::Stub::ReleaseIpc, request);
}

int FetchPoolDescriptor(const IpcExport& exported) {
  const std::string& path = exported.socket_path;
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof(address.sun_path)) {
    throw SocketError(StatusCode::kInvalidArgument, path, "not a Unix socket address");
  }
  std::memcpy(address.sun_path, path.data(), path.size());
  if (path[0] == '@') address.sun_path[0] = '\0';  // Linux's abstract namespace.
  const auto length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + path.size());

  ScopedFd socket_fd(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (socket_fd.get() < 0 ||
      connect(socket_fd.get(), reinterpret_cast<const sockaddr*>(&address), length) != 0) {
    throw SocketError(StatusCode::kUnavailable, path, std::strerror(errno));
  }
  const std::string request = exported.pool_ticket + "\n";
  if (send(socket_fd.get(), request.data(), request.size(), MSG_NOSIGNAL) !=
      static_cast<ssize_t>(request.size())) {
    throw SocketError(StatusCode::kUnavailable, path, std::strerror(errno));
  }

  // The reply is one short line; the descriptor rides on its first byte.
  char reply[512];
  iovec data{.iov_base = reply, .iov_len = sizeof(reply) - 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr message{};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof(control);
  const ssize_t got = recvmsg(socket_fd.get(), &message, MSG_CMSG_CLOEXEC);
  if (got <= 0) throw SocketError(StatusCode::kUnavailable, path, "no reply");
  int received = -1;
  for (cmsghdr* header = CMSG_FIRSTHDR(&message); header != nullptr;
       header = CMSG_NXTHDR(&message, header)) {
    if (header->cmsg_level == SOL_SOCKET && header->cmsg_type == SCM_RIGHTS) {
      std::memcpy(&received, CMSG_DATA(header), sizeof(int));
    }
  }
  ScopedFd descriptor(received);
  std::string line(reply, static_cast<size_t>(got));
  if (!line.empty() && line.back() == '\n') line.pop_back();
  if (line.starts_with("ERROR ")) throw Error(StatusCode::kNotFound, line.substr(6));
  if (line != "OK " + exported.pool_id || descriptor.get() < 0) {
    throw SocketError(StatusCode::kDataLoss, path,
                      "unexpected reply '" + line + "' for pool '" + exported.pool_id + "'");
  }
  return descriptor.release();
}

}  // namespace arrayhub::client
