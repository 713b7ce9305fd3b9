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

// A listening socket on the first of the address's resolutions that binds.
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
    const int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      reason = std::strerror(errno);
      continue;
    }
    const int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 16) == 0) {
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

void SendAll(int connection, std::string_view data) {
  while (!data.empty()) {
    const ssize_t sent = send(connection, data.data(), data.size(), MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent <= 0) return;  // The client went away or stopped reading: nothing more to do.
    data.remove_prefix(static_cast<size_t>(sent));
  }
}

void Respond(int connection, int status, std::string_view content_type, std::string_view body,
             bool head_only, std::string_view extra_headers = "") {
  std::string response =
      fmt::format("{}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n{}\r\n",
                  http::StatusLine(status), content_type, body.size(), extra_headers);
  if (!head_only) response.append(body);
  SendAll(connection, response);
}

void RespondError(int connection, int status) {
  const std::string body = http::StatusLine(status).substr(9) + "\n";  // "404 Not Found\n"
  Respond(connection, status, "text/plain; charset=utf-8", body, /*head_only=*/false,
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

void MetricsEndpoint::Serve() {
  while (true) {
    pollfd fds[2] = {{.fd = listener_, .events = POLLIN, .revents = 0},
                     {.fd = wake_read_, .events = POLLIN, .revents = 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      spdlog::error("metrics endpoint stops: poll: {}", std::strerror(errno));
      return;
    }
    if (fds[1].revents != 0) return;
    if ((fds[0].revents & POLLIN) == 0) continue;
    const int connection = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (connection < 0) {
      // Out of descriptors, or the client gave up between poll and accept: try again later.
      if (errno != EINTR && errno != ECONNABORTED && errno != EAGAIN) {
        spdlog::warn("metrics endpoint: accept: {}", std::strerror(errno));
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
      continue;
    }
    Answer(connection);
    close(connection);
  }
}

void MetricsEndpoint::Answer(int connection) const {
  // The same deadline bounds writing, so a client that stops reading cannot hold the thread.
  const timeval send_timeout{.tv_sec = read_timeout_.count() / 1000,
                             .tv_usec = (read_timeout_.count() % 1000) * 1000};
  setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof(send_timeout));

  const Clock::time_point deadline = Clock::now() + read_timeout_;
  std::string head;
  char buffer[2048];
  while (head.find("\r\n\r\n") == std::string::npos) {
    if (head.size() > http::kMaxHeadBytes) return RespondError(connection, 431);
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    pollfd fd{.fd = connection, .events = POLLIN, .revents = 0};
    if (left <= 0 || poll(&fd, 1, static_cast<int>(left)) == 0) {
      return RespondError(connection, 408);
    }
    const ssize_t received = recv(connection, buffer, sizeof(buffer), 0);
    if (received < 0 && errno == EINTR) continue;
    if (received <= 0) return;  // Closed or reset before a whole request: no one to answer.
    head.append(buffer, static_cast<size_t>(received));
  }
  if (head.find("\r\n\r\n") + 4 > http::kMaxHeadBytes) return RespondError(connection, 431);

  const auto parsed = http::ParseRequestHead(head);
  if (const auto* error = std::get_if<http::Error>(&parsed)) {
    return RespondError(connection, error->status);
  }
  const auto& request = std::get<http::Request>(parsed);
  if (request.path != "/metrics") return RespondError(connection, 404);
  if (request.method != "GET" && request.method != "HEAD") return RespondError(connection, 405);
  std::string body;
  try {
    body = metrics_.Text();
  } catch (const std::exception& error) {
    spdlog::error("metrics endpoint: collecting metrics failed: {}", error.what());
    return RespondError(connection, 500);
  }
  Respond(connection, 200, "text/plain; version=0.0.4; charset=utf-8", body,
          request.method == "HEAD");
}

}  // namespace arrayhub
