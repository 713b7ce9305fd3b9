#include "descriptor_socket.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "arrayhub/error.h"

namespace arrayhub::client::detail {
namespace {

Error SocketError(const std::string& path, std::string_view what) {
  return Error(StatusCode::kUnavailable, "IPC socket " + path + ": " + std::string(what));
}

}  // namespace

ScopedFd::~ScopedFd() { reset(-1); }

void ScopedFd::reset(int fd) {
  if (fd_ >= 0) close(fd_);
  fd_ = fd;
}

bool IsLoopbackTarget(std::string_view target) {
  for (std::string_view scheme : {"dns:///", "ipv4:", "ipv6:"}) {
    if (target.starts_with(scheme)) target.remove_prefix(scheme.size());
  }
  if (target.starts_with("unix:") || target.starts_with("unix-abstract:")) return true;
  for (std::string_view host : {"localhost:", "127.", "[::1]:"}) {
    if (target.starts_with(host)) return true;
  }
  return target == "localhost";
}

ScopedFd ConnectDescriptorSocket(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof(address.sun_path)) {
    throw Error(StatusCode::kInvalidArgument, "IPC socket " + path + ": not a Unix socket address");
  }
  std::memcpy(address.sun_path, path.data(), path.size());
  if (path[0] == '@') address.sun_path[0] = '\0';  // Linux's abstract namespace.
  const auto length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + path.size());

  ScopedFd socket_fd(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  const timeval timeout{.tv_sec = 10, .tv_usec = 0};
  if (socket_fd.get() < 0 ||
      setsockopt(socket_fd.get(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout)) != 0 ||
      connect(socket_fd.get(), reinterpret_cast<const sockaddr*>(&address), length) != 0) {
    throw SocketError(path, std::strerror(errno));
  }
  return socket_fd;
}

SocketReply AskDescriptorSocket(const std::string& path, const std::string& line, int fd) {
  ScopedFd socket_fd = ConnectDescriptorSocket(path);
  const std::string request = line + "\n";
  iovec out{.iov_base = const_cast<char*>(request.data()), .iov_len = request.size()};
  msghdr sent{};
  sent.msg_iov = &out;
  sent.msg_iovlen = 1;
  alignas(cmsghdr) char sent_control[CMSG_SPACE(sizeof(int))] = {};
  if (fd >= 0) {
    sent.msg_control = sent_control;
    sent.msg_controllen = sizeof(sent_control);
    cmsghdr* header = CMSG_FIRSTHDR(&sent);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(header), &fd, sizeof(int));
  }
  if (sendmsg(socket_fd.get(), &sent, MSG_NOSIGNAL) != static_cast<ssize_t>(request.size())) {
    throw SocketError(path, std::strerror(errno));
  }

  // The reply is one short line; a descriptor rides on its first byte.
  char reply[512];
  iovec in{.iov_base = reply, .iov_len = sizeof(reply)};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr received{};
  received.msg_iov = &in;
  received.msg_iovlen = 1;
  received.msg_control = control;
  received.msg_controllen = sizeof(control);
  const ssize_t got = recvmsg(socket_fd.get(), &received, MSG_CMSG_CLOEXEC);
  if (got <= 0) throw SocketError(path, "no reply");
  SocketReply answer;
  for (cmsghdr* header = CMSG_FIRSTHDR(&received); header != nullptr;
       header = CMSG_NXTHDR(&received, header)) {
    if (header->cmsg_level == SOL_SOCKET && header->cmsg_type == SCM_RIGHTS) {
      int attached = -1;
      std::memcpy(&attached, CMSG_DATA(header), sizeof(int));
      answer.fd.reset(attached);
    }
  }
  answer.line.assign(reply, static_cast<size_t>(got));
  if (!answer.line.empty() && answer.line.back() == '\n') answer.line.pop_back();
  return answer;
}

}  // namespace arrayhub::client::detail
