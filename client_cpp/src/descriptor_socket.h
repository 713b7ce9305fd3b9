// The client side of the daemon's descriptor socket (server/transport/ipc_socket.h): one
// connection per request, one line each way, a descriptor attached to one of the two.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace arrayhub::client::detail {

// Closes a descriptor on every path out.
class ScopedFd {
 public:
  explicit ScopedFd(int fd) : fd_(fd) {}
  ScopedFd(ScopedFd&& other) noexcept : fd_(other.release()) {}
  ScopedFd& operator=(ScopedFd&&) = delete;
  ~ScopedFd();
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }
  // Closes the descriptor held, if any, and holds `fd`.
  void reset(int fd);

 private:
  int fd_;
};

// Whether the gRPC target `address` names this host: a loopback address, localhost or a Unix
// socket (the same-host paths are tried only then).
bool IsLoopbackTarget(std::string_view target);

// A connection to the socket at `path` ("@name": the abstract namespace), its reads timing out
// after 10 s. Throws Error kUnavailable when it cannot be reached.
ScopedFd ConnectDescriptorSocket(const std::string& path);

// A reply line (without its newline) and the descriptor attached to it, if any.
struct SocketReply {
  std::string line;
  ScopedFd fd{-1};
};

// Sends `line` and a newline to the socket at `path` ("@name": the abstract namespace), with
// `fd` attached when it is not -1, and returns the reply. Throws Error kUnavailable when the
// socket cannot be reached or does not answer within 10 s.
SocketReply AskDescriptorSocket(const std::string& path, const std::string& line, int fd = -1);

}  // namespace arrayhub::client::detail
