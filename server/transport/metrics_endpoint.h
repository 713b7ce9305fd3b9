// Serves ServerMetrics as Prometheus text at http://<address>/metrics.
//
// A deliberately small HTTP/1.1 responder: one thread serves every connection at once through
// poll (non-blocking sockets), GET or HEAD of /metrics only, one request per connection, a
// bounded request head, and a deadline per connection for the whole exchange, so that idle or
// slow clients never hold up a scrape. At most kMaxConnections are open: a new one closes the
// oldest. prometheus-cpp's own exposer is not used: Debian's civetweb starts its threads with
// a fixed 100 KiB stack, smaller than the static TLS that cuBLAS and OpenBLAS bring into this
// process, so it cannot start a thread here (EINVAL).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "server/transport/metrics.h"

namespace arrayhub {

class MetricsEndpoint {
 public:
  // Connections open at once; past it, the oldest is closed to make room.
  static constexpr size_t kMaxConnections = 64;

  // `address` is host:port ([v6]:port for IPv6 literals; port 0 picks a free port).
  // INVALID_ARGUMENT for a malformed address, UNAVAILABLE when it cannot listen there.
  // A client that has not sent its whole request head within `read_timeout` is answered 408;
  // one that has not read its whole answer by then is cut off.
  static absl::StatusOr<std::unique_ptr<MetricsEndpoint>> Start(
      const std::string& address, const ServerMetrics& metrics,
      std::chrono::milliseconds read_timeout = std::chrono::seconds(2));
  // Stops serving; returns once the serving thread has ended.
  ~MetricsEndpoint();

  int port() const { return port_; }

 private:
  MetricsEndpoint(const ServerMetrics& metrics, std::chrono::milliseconds read_timeout)
      : metrics_(metrics), read_timeout_(read_timeout) {}

  struct Connection;
  void Serve();
  // Accepts the connections waiting; false when accept failed (out of descriptors).
  bool Accept(std::vector<Connection>& connections) const;
  // Reads what has arrived; once the head is whole (or too long), prepares the answer.
  void Read(Connection& connection) const;
  // Sends what the socket takes of the answer; marks the connection done once all is sent.
  static void Send(Connection& connection);
  // The whole answer to a request head.
  std::string AnswerTo(std::string_view head) const;

  const ServerMetrics& metrics_;
  const std::chrono::milliseconds read_timeout_;
  int listener_ = -1;
  int wake_read_ = -1;  // A pipe whose write end the destructor closes to stop Serve.
  int wake_write_ = -1;
  int port_ = 0;
  std::thread thread_;
};

}  // namespace arrayhub
