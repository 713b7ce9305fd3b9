#include "server/transport/ipc_socket.h"

#include <fmt/format.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace arrayhub {

namespace {

// Longest request line: a ticket is 32 characters.
constexpr size_t kMaxRequestBytes = 128;

absl::Status ErrnoError(std::string_view what) {
  return absl::InternalError(fmt::format("{}: {}", what, std::strerror(errno)));
}

// The address for `path`; abstract names ("@...") start with a NUL byte instead.
absl::StatusOr<std::pair<sockaddr_un, socklen_t>> AddressOf(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof(address.sun_path)) {
    return absl::InvalidArgumentError(
        fmt::format("IPC socket path must be 1 to {} characters, got {}",
                    sizeof(address.sun_path) - 1, path.size()));
  }
  std::memcpy(address.sun_path, path.data(), path.size());
  if (path[0] == '@') address.sun_path[0] = '\0';
  return std::make_pair(address,
                        static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + path.size()));
}

// Removes a socket file at `path` that nothing listens on any more (left by a daemon that did
// not exit cleanly), which would make bind fail. A live socket, or anything else at the path,
// is left alone: bind then says the address is in use.
void RemoveStaleSocket(const std::string& path, const std::pair<sockaddr_un, socklen_t>& address) {
  struct stat existing {};
  if (lstat(path.c_str(), &existing) != 0 || !S_ISSOCK(existing.st_mode)) return;
  const int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (probe < 0) return;
  const bool refused =
      connect(probe, reinterpret_cast<const sockaddr*>(&address.first), address.second) != 0 &&
      errno == ECONNREFUSED;
  close(probe);
  if (refused) unlink(path.c_str());
}

// Sends all of `text`, with `fd` attached to the first byte when it is not -1.
void Reply(int connection, const std::string& text, int fd) {
  iovec data{.iov_base = const_cast<char*>(text.data()), .iov_len = text.size()};
  msghdr message{};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  if (fd >= 0) {
    message.msg_control = control;
    message.msg_controllen = sizeof(control);
    cmsghdr* header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(header), &fd, sizeof(int));
  }
  // The reply is a few dozen bytes: one sendmsg takes it whole, or the client is gone.
  if (sendmsg(connection, &message, MSG_NOSIGNAL) < 0) {
    spdlog::debug("IPC socket: reply not sent: {}", std::strerror(errno));
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<IpcSocket>> IpcSocket::Start(std::string path, Redeem redeem) {
  if (path.empty()) {
    path = fmt::format("@arrayhubd-ipc-{}-{}", getpid(), Handle::Random().ToString().substr(0, 16));
  }
  auto address = AddressOf(path);
  if (!address.ok()) return address.status();
  if (path[0] != '@') RemoveStaleSocket(path, *address);
  const int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener < 0) return ErrnoError("IPC socket: socket");
  if (bind(listener, reinterpret_cast<const sockaddr*>(&address->first), address->second) != 0 ||
      listen(listener, 64) != 0) {
    const absl::Status error = ErrnoError(fmt::format("IPC socket: cannot listen on {}", path));
    close(listener);
    return error;
  }
  const int stop_event = eventfd(0, EFD_CLOEXEC);
  if (stop_event < 0) {
    const absl::Status error = ErrnoError("IPC socket: eventfd");
    close(listener);
    return error;
  }
  std::unique_ptr<IpcSocket> socket(
      new IpcSocket(std::move(path), listener, stop_event, std::move(redeem)));
  socket->thread_ = std::thread([s = socket.get()] { s->Serve(); });
  spdlog::info("CUDA IPC socket listening on {}", socket->path());
  return socket;
}

IpcSocket::IpcSocket(std::string path, int listener, int stop_event, Redeem redeem)
    : path_(std::move(path)),
      listener_(listener),
      stop_event_(stop_event),
      redeem_(std::move(redeem)) {}

IpcSocket::~IpcSocket() {
  const uint64_t one = 1;
  if (write(stop_event_, &one, sizeof(one)) != sizeof(one)) {
    spdlog::error("IPC socket: cannot wake its thread: {}", std::strerror(errno));
  }
  if (thread_.joinable()) thread_.join();
  close(listener_);
  close(stop_event_);
  if (path_[0] != '@') unlink(path_.c_str());
}

void IpcSocket::Serve() {
  for (;;) {
    pollfd waiting[2] = {{.fd = listener_, .events = POLLIN, .revents = 0},
                         {.fd = stop_event_, .events = POLLIN, .revents = 0}};
    if (poll(waiting, 2, -1) < 0) {
      if (errno == EINTR) continue;
      spdlog::error("IPC socket: poll: {}", std::strerror(errno));
      return;
    }
    if (waiting[1].revents != 0) return;
    const int connection = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (connection < 0) continue;  // The client gave up meanwhile, or too many files open.
    Answer(connection);
    close(connection);
  }
}

void IpcSocket::Answer(int connection) {
  // A client that connects and says nothing must not hold the socket up for others.
  const timeval timeout{.tv_sec = 1, .tv_usec = 0};
  setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  std::string request;
  char byte = 0;
  while (request.size() < kMaxRequestBytes) {
    const ssize_t got = recv(connection, &byte, 1, 0);
    if (got <= 0 || byte == '\n') break;
    request += byte;
  }
  if (byte != '\n') {
    Reply(connection, "ERROR send a pool ticket and a newline\n", -1);
    return;
  }
  absl::StatusOr<PoolDescriptor> descriptor = redeem_(request);
  if (!descriptor.ok()) {
    Reply(connection, fmt::format("ERROR {}\n", std::string(descriptor.status().message())), -1);
    return;
  }
  Reply(connection, fmt::format("OK {}\n", descriptor->pool_id), descriptor->fd.get());
}

}  // namespace arrayhub
