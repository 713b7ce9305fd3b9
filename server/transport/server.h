// Runs the ArrayHub gRPC service (plus health and reflection) over an Engine. Used by
// arrayhubd and, in-process on a loopback port, by the tests.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "server/core/engine.h"
#include "server/transport/auth.h"
#include "server/transport/peer_client.h"
#include "server/transport/tls.h"

namespace grpc {
class Server;
}

namespace arrayhub {

class ArrayHubService;
class MetricsEndpoint;
class ServerMetrics;

struct ServerOptions {
  std::string listen_address = "127.0.0.1:50051";  // Port 0 picks a free one.
  Limits limits{};
  SessionOptions sessions{};
  // How often expired sessions and idle transfers are looked for.
  std::chrono::milliseconds reap_interval{1000};
  // host:port of the Prometheus endpoint (/metrics); empty: none. Port 0 picks a free one.
  std::string metrics_listen{};
  TenantQuota quotas{};
  // Bearer tokens of the tenants; null: no authentication, every caller is "anonymous".
  std::shared_ptr<const TokenTable> tokens{};
  TlsFiles tls{};
  // Daemon-to-daemon transfer: the address to advertise and the CA peers are checked against.
  PeerOptions peer{};
  // Allows listening beyond loopback without authentication.
  bool insecure = false;
  // The data directory of durable publications (--data-dir); empty: none. Its publications
  // are restored before the server listens.
  std::string data_dir{};
  // Spilling (server/core/spiller.h); its files go to the data directory's "spill" folder
  // (none without a data directory: then only the host tier).
  SpillOptions spill{};
  // Where the CUDA IPC socket listens (IpcSocket::Start): "" picks an abstract name.
  std::string ipc_socket{};
  // Called once, on the thread that found it, when the backend's device is lost for good
  // (device_health.h), after health turned NOT_SERVING: arrayhubd stops then. Must not block.
  std::function<void()> on_device_lost{};
};

class ArrayHubServer {
 public:
  // `devices`: the daemon's devices, a backend each (at least one).
  static absl::StatusOr<std::unique_ptr<ArrayHubServer>> Start(
      ServerOptions options, std::vector<std::unique_ptr<Backend>> devices);
  // One device.
  static absl::StatusOr<std::unique_ptr<ArrayHubServer>> Start(ServerOptions options,
                                                               std::unique_ptr<Backend> backend);
  ~ArrayHubServer();

  int port() const { return port_; }
  // "127.0.0.1:<port>" style address clients can dial.
  std::string address() const;
  Engine& engine() { return *engine_; }
  ServerMetrics& metrics() { return *metrics_; }
  // Port of the /metrics endpoint; 0 when there is none.
  int metrics_port() const;

  // Stops accepting calls and lets in-flight ones run for up to `deadline`; then they stop at
  // their next check (between a Batch's ops, between chunks of long loops) with UNAVAILABLE,
  // and kDrainCancelDelay later gRPC cancels whatever still runs. Returns once every handler
  // has returned: a handler inside one long library call (BLAS, LAPACK) holds it until that
  // call ends, which is why arrayhubd also bounds the drain itself (server/main.cc). Then it
  // finishes the durable publications' queued writes.
  void Shutdown(std::chrono::milliseconds deadline = std::chrono::milliseconds(5000));
  static constexpr std::chrono::milliseconds kDrainCancelDelay{250};
  // Blocks until Shutdown has completed.
  void Wait();

 private:
  ArrayHubServer() = default;
  void ReapLoop(std::chrono::milliseconds interval);

  std::string host_;
  int port_ = 0;
  std::unique_ptr<Engine> engine_;
  // Declared after the engine they read and before the server whose interceptors count into
  // them, so that they are destroyed in between.
  std::unique_ptr<ServerMetrics> metrics_;
  std::unique_ptr<MetricsEndpoint> metrics_endpoint_;
  std::unique_ptr<ArrayHubService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::atomic<bool> stopping_{false};
  std::mutex reaper_mutex_;
  std::condition_variable reaper_wakeup_;  // Signalled by Shutdown.
  std::thread reaper_;
};

}  // namespace arrayhub
