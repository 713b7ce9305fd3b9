#include "server/transport/metrics_endpoint.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <exception>
#include <variant>

#include "server/transport/http_request.h"

namespace arrayhub {
namespace {

using Clock = std::chrono::steady_clock;

struct HostPort {
  std::string host;
  std::string port;
};

absl::StatusOr<HostPort> SplitAddress(const std::string& address) {
  const size_t colon = address.rfind(':');
  auto invalid = [&address] {
    return absl::InvalidArgumentError(fmt::format(
        "metrics address '{}' is not host:port (e.g. 127.0.0.1:9464, 0.0.0.0:9464, [::]:9464)",
        address));
  };
  if (colon == std::string::npos || colon == 0) return invalid();
  std::string host = address.substr(0, colon);
  const std::string port = address.substr(colon + 1);
  if (host.front() == '[') {
    if (host.size() < 3 || host.back() != ']') return invalid();
    host = host.substr(1, host.size() - 2);
  }
  int value = -1;
  const auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || error != std::errc() || end != port.data() + port.size() || value < 0 ||
      value > 65535) {
    return invalid();
  }
  return HostPort{std::move(host), port};
}

// A listening socket on the first of the address's resolutions that binds; non-blocking, so
// that Serve accepts every waiting connection and then returns to poll.
absl::StatusOr<int> Listen(const std::string& address) {
  auto parts = SplitAddress(address);
  if (!parts.ok()) return parts.status();
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (int error = getaddrinfo(parts->host.c_str(), parts->port.c_str(), &hints, &found);
      error != 0) {
    return absl::InvalidArgumentError(
        fmt::format("metrics address '{}': {}", address, gai_strerror(error)));
  }
  std::string reason = "no address";
  int listener = -1;
  for (addrinfo* ai = found; ai != nullptr && listener < 0; ai = ai->ai_next) {
    const int fd =
        socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
    if (fd < 0) {
      reason = std::strerror(errno);
      continue;
    }
    const int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, SOMAXCONN) == 0) {
      listener = fd;
    } else {
      reason = std::strerror(errno);
      close(fd);
    }
  }
  freeaddrinfo(found);
  if (listener < 0) {
    return absl::UnavailableError(fmt::format("cannot serve metrics on {}: {}", address, reason));
  }
  return listener;
}

int PortOf(int socket_fd) {
  sockaddr_storage bound{};
  socklen_t length = sizeof(bound);
  if (getsockname(socket_fd, reinterpret_cast<sockaddr*>(&bound), &length) != 0) return 0;
  if (bound.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port);
  return ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
}

// The whole response, with the body unless `head_only`.
std::string Response(int status, std::string_view content_type, std::string_view body,
                     bool head_only, std::string_view extra_headers = "") {
  std::string response =
      fmt::format("{}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n{}\r\n",
                  http::StatusLine(status), content_type, body.size(), extra_headers);
  if (!head_only) response.append(body);
  return response;
}

std::string ErrorResponse(int status) {
  const std::string body = http::StatusLine(status).substr(9) + "\n";  // "404 Not Found\n"
  return Response(status, "text/plain; charset=utf-8", body, /*head_only=*/false,
                  status == 405 ? "Allow: GET, HEAD\r\n" : "");
}

}  // namespace

absl::StatusOr<std::unique_ptr<MetricsEndpoint>> MetricsEndpoint::Start(
    const std::string& address, const ServerMetrics& metrics,
    std::chrono::milliseconds read_timeout) {
  auto listener = Listen(address);
  if (!listener.ok()) return listener.status();
  std::unique_ptr<MetricsEndpoint> endpoint(new MetricsEndpoint(metrics, read_timeout));
  endpoint->listener_ = *listener;
  endpoint->port_ = PortOf(*listener);
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    return absl::InternalError(fmt::format("metrics endpoint: pipe: {}", std::strerror(errno)));
  }
  endpoint->wake_read_ = pipe_fds[0];
  endpoint->wake_write_ = pipe_fds[1];
  endpoint->thread_ = std::thread([e = endpoint.get()] { e->Serve(); });
  return endpoint;
}

MetricsEndpoint::~MetricsEndpoint() {
  if (wake_write_ >= 0) close(wake_write_);  // Serve sees the pipe's end and returns.
  if (thread_.joinable()) thread_.join();
  if (wake_read_ >= 0) close(wake_read_);
  if (listener_ >= 0) close(listener_);
}

struct MetricsEndpoint::Connection {
  int fd = -1;
  Clock::time_point deadline;  // For the whole exchange: reading the head and the answer.
  std::string head;            // What has arrived of the request head.
  std::string answer;          // Set once the head is whole: what is left to send.
  bool answering = false;
  bool done = false;  // To be closed.
};

void MetricsEndpoint::Serve() {
  std::vector<Connection> connections;
  // When accept fails for want of descriptors, the listener stays readable: it is left alone
  // for a moment instead of being polled in a busy loop.
  Clock::time_point accept_again = Clock::now();
  while (true) {
    const Clock::time_point now = Clock::now();
    const bool accepting = now >= accept_again;
    std::vector<pollfd> fds = {{.fd = wake_read_, .events = POLLIN, .revents = 0},
                               {.fd = accepting ? listener_ : -1, .events = POLLIN, .revents = 0}};
    Clock::time_point wake_at = accepting ? Clock::time_point::max() : accept_again;
    for (const Connection& connection : connections) {
      fds.push_back({.fd = connection.fd,
                     .events = static_cast<short>(connection.answering ? POLLOUT : POLLIN),
                     .revents = 0});
      wake_at = std::min(wake_at, connection.deadline);
    }
    int timeout_ms = -1;
    if (wake_at != Clock::time_point::max()) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(wake_at - now).count();
      timeout_ms = static_cast<int>(std::clamp<int64_t>(left, 0, 60'000));
    }
    if (poll(fds.data(), fds.size(), timeout_ms) < 0) {
      if (errno == EINTR) continue;
      spdlog::error("metrics endpoint stops: poll: {}", std::strerror(errno));
      break;
    }
    if (fds[0].revents != 0) break;  // The destructor closed the pipe.

    const Clock::time_point after = Clock::now();
    for (size_t i = 0; i < connections.size(); ++i) {
      Connection& connection = connections[i];
      const short events = fds[i + 2].revents;
      if (!connection.answering && (events & (POLLIN | POLLERR | POLLHUP)) != 0) {
        Read(connection);
      }
      if (connection.answering && !connection.done) Send(connection);
      if (!connection.done && after >= connection.deadline) {
        // Too slow: a client still sending its head is told so, one still reading is cut off.
        if (!connection.answering) {
          const std::string timeout = ErrorResponse(408);
          send(connection.fd, timeout.data(), timeout.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
        }
        connection.done = true;
      }
    }
    std::erase_if(connections, [](const Connection& connection) {
      if (connection.done) close(connection.fd);
      return connection.done;
    });
    if (accepting && (fds[1].revents & POLLIN) != 0 && !Accept(connections)) {
      accept_again = Clock::now() + std::chrono::milliseconds(100);
    }
  }
  for (const Connection& connection : connections) close(connection.fd);
}

bool MetricsEndpoint::Accept(std::vector<Connection>& connections) const {
  while (true) {
    const int fd = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
      // The client gave up between poll and accept: look for the next one.
      if (errno == EINTR || errno == ECONNABORTED) continue;
      spdlog::warn("metrics endpoint: accept: {}", std::strerror(errno));
      return false;  // Out of descriptors, most likely.
    }
    if (connections.size() >= kMaxConnections) {
      close(connections.front().fd);  // The oldest: a scrape is over in milliseconds.
      connections.erase(connections.begin());
    }
    Connection connection;
    connection.fd = fd;
    connection.deadline = Clock::now() + read_timeout_;
    connections.push_back(std::move(connection));
  }
}

void MetricsEndpoint::Read(Connection& connection) const {
  char buffer[2048];
  while (true) {
    const ssize_t received = recv(connection.fd, buffer, sizeof(buffer), 0);
    if (received < 0 && errno == EINTR) continue;
    if (received < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (received <= 0) {
      connection.done = true;  // Closed or reset before a whole request: no one to answer.
      return;
    }
    connection.head.append(buffer, static_cast<size_t>(received));
    if (connection.head.find("\r\n\r\n") != std::string::npos ||
        connection.head.size() > http::kMaxHeadBytes) {
      connection.answer = AnswerTo(connection.head);
      connection.answering = true;
      return;
    }
  }
}

void MetricsEndpoint::Send(Connection& connection) {
  while (!connection.answer.empty()) {
    const ssize_t sent =
        send(connection.fd, connection.answer.data(), connection.answer.size(), MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;  // Poll for room.
    if (sent <= 0) break;                                               // The client went away.
    connection.answer.erase(0, static_cast<size_t>(sent));
  }
  connection.done = true;
}

std::string MetricsEndpoint::AnswerTo(std::string_view head) const {
  const size_t end = head.find("\r\n\r\n");
  if (end == std::string_view::npos || end + 4 > http::kMaxHeadBytes) return ErrorResponse(431);
  const auto parsed = http::ParseRequestHead(head.substr(0, end + 4));
  if (const auto* error = std::get_if<http::Error>(&parsed)) return ErrorResponse(error->status);
  const auto& request = std::get<http::Request>(parsed);
  if (request.path != "/metrics") return ErrorResponse(404);
  if (request.method != "GET" && request.method != "HEAD") return ErrorResponse(405);
  std::string body;
  try {
    body = metrics_.Text();
  } catch (const std::exception& error) {
    spdlog::error("metrics endpoint: collecting metrics failed: {}", error.what());
    return ErrorResponse(500);
  }
  return Response(200, "text/plain; version=0.0.4; charset=utf-8", body, request.method == "HEAD");
}

}  // namespace arrayhub
