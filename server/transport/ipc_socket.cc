#include "server/transport/ipc_socket.h"

#include <fmt/format.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace arrayhub {

namespace {

using Clock = std::chrono::steady_clock;

// Longest request line: a ticket is 32 characters.
constexpr size_t kMaxRequestBytes = 128;
// Descriptors a request may carry are received up to this many; more is refused.
constexpr size_t kMaxDescriptors = 4;
// How long the listener is left alone when the process has no descriptor left to accept with.
constexpr std::chrono::milliseconds kAcceptPause{100};
constexpr char kRegionRequest[] = "REGION";
constexpr std::string_view kBatchesRequest = "BATCHES ";

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
  // The reply is a few dozen bytes, the first on its connection: one sendmsg takes it whole
  // without waiting, or the client is gone.
  if (sendmsg(connection, &message, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
    spdlog::debug("IPC socket: reply not sent: {}", std::strerror(errno));
  }
}

}  // namespace

struct IpcSocket::Connection {
  OwnedFd fd;
  uid_t user = 0;
  Clock::time_point deadline;
  std::string request;
  std::vector<OwnedFd> descriptors;  // Those attached to what it sent.
  bool too_many_descriptors = false;
};

absl::StatusOr<std::unique_ptr<IpcSocket>> IpcSocket::Start(std::string path,
                                                            IpcSocketHandlers handlers,
                                                            IpcSocketOptions options) {
  if (path.empty()) {
    path = fmt::format("@arrayhubd-ipc-{}-{}", getpid(), Handle::Random().ToString().substr(0, 16));
  }
  auto address = AddressOf(path);
  if (!address.ok()) return address.status();
  if (path[0] != '@') RemoveStaleSocket(path, *address);
  const int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
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
      new IpcSocket(std::move(path), listener, stop_event, std::move(handlers), options));
  socket->thread_ = std::thread([s = socket.get()] { s->Serve(); });
  spdlog::info("descriptor socket (CUDA IPC, shared memory) listening on {}", socket->path());
  return socket;
}

IpcSocket::IpcSocket(std::string path, int listener, int stop_event, IpcSocketHandlers handlers,
                     IpcSocketOptions options)
    : path_(std::move(path)),
      listener_(listener),
      stop_event_(stop_event),
      handlers_(std::move(handlers)),
      options_(options) {}

IpcSocket::~IpcSocket() {
  const uint64_t one = 1;
  if (write(stop_event_, &one, sizeof(one)) != sizeof(one)) {
    spdlog::error("IPC socket: cannot wake its thread: {}", std::strerror(errno));
  }
  if (thread_.joinable()) thread_.join();
  connections_.clear();
  close(listener_);
  close(stop_event_);
  if (path_[0] != '@') unlink(path_.c_str());
}

void IpcSocket::Serve() {
  Clock::time_point accept_paused_until;
  std::vector<pollfd> waiting;
  for (;;) {
    const Clock::time_point now = Clock::now();
    const bool accepting = now >= accept_paused_until;
    // poll skips entries with a negative descriptor: the listener while accepting is paused.
    waiting.assign({{.fd = stop_event_, .events = POLLIN, .revents = 0},
                    {.fd = accepting ? listener_ : -1, .events = POLLIN, .revents = 0}});
    Clock::time_point wake = accepting ? Clock::time_point::max() : accept_paused_until;
    for (const Connection& connection : connections_) {
      waiting.push_back({.fd = connection.fd.get(), .events = POLLIN, .revents = 0});
      wake = std::min(wake, connection.deadline);
    }
    int timeout_ms = -1;
    if (wake != Clock::time_point::max()) {
      timeout_ms = static_cast<int>(
          std::max<int64_t>(0, std::chrono::ceil<std::chrono::milliseconds>(wake - now).count()));
    }
    if (poll(waiting.data(), waiting.size(), timeout_ms) < 0) {
      if (errno == EINTR) continue;
      spdlog::error("IPC socket: poll: {}", std::strerror(errno));
      return;
    }
    if (waiting[0].revents != 0) return;
    const Clock::time_point polled = Clock::now();
    size_t index = 2;
    for (auto connection = connections_.begin(); connection != connections_.end(); ++index) {
      bool done = false;
      if (waiting[index].revents != 0) {
        done = Receive(*connection);
      } else if (polled >= connection->deadline) {
        Reply(connection->fd.get(),
              fmt::format("ERROR no request line within {} ms\n", options_.request_timeout.count()),
              -1);
        done = true;
      }
      if (done) {
        auto next = std::next(connection);
        Close(connection);
        connection = next;
      } else {
        ++connection;
      }
    }
    if (waiting[1].revents != 0 && !AcceptAll()) accept_paused_until = polled + kAcceptPause;
  }
}

bool IpcSocket::AcceptAll() {
  // A bounded number per round, so that a flood of connections cannot keep the loop from the
  // ones it holds.
  for (int round = 0; round < 64; ++round) {
    const int accepted = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (accepted < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return errno == EAGAIN || errno == EWOULDBLOCK;  // Otherwise out of descriptors or memory.
    }
    OwnedFd connection(accepted);
    ucred peer{};
    socklen_t length = sizeof(peer);
    if (getsockopt(accepted, SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0) continue;
    int& held = per_user_[peer.uid];
    if (held >= options_.max_connections_per_user ||
        connections_.size() >= static_cast<size_t>(options_.max_connections)) {
      if (held == 0) per_user_.erase(peer.uid);
      Reply(accepted,
            fmt::format("ERROR too many connections open (at most {} per user, {} in all)\n",
                        options_.max_connections_per_user, options_.max_connections),
            -1);
      continue;
    }
    ++held;
    connections_.push_back({.fd = std::move(connection),
                            .user = peer.uid,
                            .deadline = Clock::now() + options_.request_timeout,
                            .request = {},
                            .descriptors = {},
                            .too_many_descriptors = false});
  }
  return true;
}

void IpcSocket::Close(std::list<Connection>::iterator connection) {
  if (--per_user_[connection->user] == 0) per_user_.erase(connection->user);
  connections_.erase(connection);
}

bool IpcSocket::Receive(Connection& connection) {
  char data[kMaxRequestBytes];
  iovec vector{.iov_base = data, .iov_len = kMaxRequestBytes - connection.request.size()};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxDescriptors)] = {};
  msghdr message{};
  message.msg_iov = &vector;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof(control);
  const ssize_t got = recvmsg(connection.fd.get(), &message, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
  if (got < 0) return errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
  // Every descriptor received is owned at once, so that none is left open whatever happens.
  for (cmsghdr* header = CMSG_FIRSTHDR(&message); header != nullptr;
       header = CMSG_NXTHDR(&message, header)) {
    if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
    const size_t count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < count; ++i) {
      int fd = -1;
      std::memcpy(&fd, CMSG_DATA(header) + i * sizeof(int), sizeof(int));
      connection.descriptors.emplace_back(fd);
    }
  }
  // The kernel closed what did not fit.
  if ((message.msg_flags & MSG_CTRUNC) != 0) connection.too_many_descriptors = true;
  connection.request.append(data, static_cast<size_t>(got));
  const size_t end = connection.request.find('\n');
  if (end != std::string::npos) {
    // A lane's first batch must wait for the daemon's answer: bytes after the line would be
    // lost with this buffer.
    if (end + 1 != connection.request.size()) {
      Reply(connection.fd.get(), "ERROR send nothing after the request line before the answer\n",
            -1);
      return true;
    }
    Answer(connection, std::string_view(connection.request).substr(0, end));
    return true;
  }
  if (got == 0 || connection.request.size() >= kMaxRequestBytes) {
    Reply(connection.fd.get(), "ERROR send a request and a newline\n", -1);
    return true;
  }
  return false;
}

void IpcSocket::Answer(Connection& connection, std::string_view line) {
  const int fd = connection.fd.get();
  const size_t attached = connection.descriptors.size();
  if (line == kRegionRequest) {
    if (attached != 1 || connection.too_many_descriptors) {
      Reply(fd, "ERROR attach exactly one descriptor to REGION\n", -1);
      return;
    }
    absl::StatusOr<std::string> ticket =
        handlers_.park_region(connection.user, std::move(connection.descriptors.front()));
    Reply(fd,
          ticket.ok() ? fmt::format("OK {}\n", *ticket)
                      : fmt::format("ERROR {}\n", std::string(ticket.status().message())),
          -1);
    return;
  }
  if (attached != 0 || connection.too_many_descriptors) {
    Reply(fd, "ERROR a ticket carries no descriptor\n", -1);
    return;
  }
  if (line.starts_with(kBatchesRequest)) {
    if (!handlers_.open_batch_lane) {
      Reply(fd, "ERROR this daemon has no batch lanes\n", -1);
      return;
    }
    const absl::Status opened =
        handlers_.open_batch_lane(line.substr(kBatchesRequest.size()), connection.fd);
    if (!opened.ok()) Reply(fd, fmt::format("ERROR {}\n", std::string(opened.message())), -1);
    return;
  }
  absl::StatusOr<PoolDescriptor> descriptor = handlers_.redeem_pool(line);
  if (!descriptor.ok()) {
    Reply(fd, fmt::format("ERROR {}\n", std::string(descriptor.status().message())), -1);
    return;
  }
  Reply(fd, fmt::format("OK {}\n", descriptor->pool_id), descriptor->fd.get());
}

}  // namespace arrayhub
