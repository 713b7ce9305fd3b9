#include "server/transport/server.h"

#include <fmt/format.h>
#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <spdlog/spdlog.h>

#include "server/common/status_macros.h"
#include "server/transport/metrics.h"
#include "server/transport/metrics_endpoint.h"
#include "server/transport/request_log.h"
#include "server/transport/request_metrics.h"
#include "server/transport/service.h"

namespace arrayhub {

absl::StatusOr<std::unique_ptr<ArrayHubServer>> ArrayHubServer::Start(
    ServerOptions options, std::unique_ptr<Backend> backend) {
  std::vector<std::unique_ptr<Backend>> devices;
  devices.push_back(std::move(backend));
  return Start(std::move(options), std::move(devices));
}

absl::StatusOr<std::unique_ptr<ArrayHubServer>> ArrayHubServer::Start(
    ServerOptions options, std::vector<std::unique_ptr<Backend>> devices) {
  if (devices.empty()) return absl::InvalidArgumentError("a server needs at least one device");
  AH_RETURN_IF_ERROR(
      CheckExposure(options.listen_address, options.tokens != nullptr, options.insecure));
  AH_ASSIGN_OR_RETURN(std::shared_ptr<grpc::ServerCredentials> credentials,
                      ServerCredentialsFor(options.tls));
  std::unique_ptr<ArrayHubServer> server(new ArrayHubServer());
  server->host_ = options.listen_address.substr(0, options.listen_address.rfind(':'));
  server->engine_ = std::make_unique<Engine>(std::move(devices), options.limits, options.sessions,
                                             options.quotas);
  if (!options.data_dir.empty()) {
    AH_RETURN_IF_ERROR(server->engine_->OpenDataDirectory(
        options.data_dir, [](const std::string& message) { spdlog::warn("{}", message); }));
  }
  SpillOptions spill = options.spill;
  spill.directory = options.data_dir.empty() ? "" : options.data_dir + "/spill";
  spill.log = [](const std::string& message) { spdlog::warn("{}", message); };
  AH_RETURN_IF_ERROR(server->engine_->ConfigureSpilling(std::move(spill)));
  server->metrics_ = std::make_unique<ServerMetrics>(*server->engine_);
  if (!options.metrics_listen.empty()) {
    auto endpoint = MetricsEndpoint::Start(options.metrics_listen, *server->metrics_);
    if (!endpoint.ok()) return endpoint.status();
    server->metrics_endpoint_ = std::move(endpoint).value();
  }
  auto peer = PeerClient::Create(options.peer, options.tls);
  if (!peer.ok()) return peer.status();
  const PeerAllowlist& allowlist = (*peer)->allowlist();
  spdlog::info("pulls from other daemons: {}",
               allowlist.empty() ? "none (--peer-allow is empty)" : allowlist.ToString());
  server->service_ = std::make_unique<ArrayHubService>(
      *server->engine_, options.tokens, options.ipc_socket, *std::move(peer),
      options.peer.advertise_address, server->metrics_.get());

  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  builder.AddListeningPort(options.listen_address, credentials, &server->port_);
  builder.RegisterService(server->service_.get());
  builder.SetMaxReceiveMessageSize(static_cast<int>(options.limits.max_message_bytes));
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> interceptors;
  interceptors.push_back(std::make_unique<RequestMetricsFactory>(*server->metrics_));
  interceptors.push_back(std::make_unique<RequestLogFactory>());
  builder.experimental().SetInterceptorCreators(std::move(interceptors));
  server->server_ = builder.BuildAndStart();
  if (server->server_ == nullptr || server->port_ == 0) {
    return absl::UnavailableError(
        fmt::format("cannot listen on {} (address in use or invalid)", options.listen_address));
  }
  // Health answers for the whole server ("") and, by name, for the ArrayHub service.
  server->server_->GetHealthCheckService()->SetServingStatus(v1::ArrayHub::service_full_name(),
                                                             true);
  // A lost device fails every later call of every tenant: health says so at once (probes and
  // load balancers look there), and the daemon stops.
  server->engine_->SetDeviceLostListener(
      [s = server.get(), stop = std::move(options.on_device_lost)](std::string_view) {
        s->server_->GetHealthCheckService()->SetServingStatus(false);
        if (stop) stop();
      });
  server->reaper_ =
      std::thread([s = server.get(), interval = options.reap_interval] { s->ReapLoop(interval); });
  return server;
}

ArrayHubServer::~ArrayHubServer() {
  Shutdown();
  // Freeing the arrays may find the device lost: nobody is listening any more.
  if (engine_ != nullptr) engine_->SetDeviceLostListener(nullptr);
}

std::string ArrayHubServer::address() const {
  const std::string host = host_.empty() || host_ == "0.0.0.0" ? "127.0.0.1" : host_;
  return fmt::format("{}:{}", host, port_);
}

int ArrayHubServer::metrics_port() const {
  return metrics_endpoint_ != nullptr ? metrics_endpoint_->port() : 0;
}

void ArrayHubServer::ReapLoop(std::chrono::milliseconds interval) {
  std::unique_lock lock(reaper_mutex_);
  while (!reaper_wakeup_.wait_for(lock, interval, [this] { return stopping_.load(); })) {
    // Before the reaping, so that a lease that runs out within one interval is warned of.
    engine_->WarnExpiringLeases();
    if (int64_t reaped = engine_->ReapExpiredSessions(); reaped > 0) {
      spdlog::info("closed {} session(s) whose lease ran out", reaped);
    }
    if (int64_t idle = engine_->CancelIdleTransfers(); idle > 0) {
      spdlog::info("cancelled {} transfer(s) that moved nothing for {} ms", idle,
                   engine_->limits().transfer_idle_timeout.count());
    }
  }
}

void ArrayHubServer::Shutdown(std::chrono::milliseconds deadline) {
  {
    std::lock_guard lock(reaper_mutex_);
    if (stopping_.exchange(true)) return;
  }
  reaper_wakeup_.notify_all();
  if (server_ != nullptr) {
    server_->GetHealthCheckService()->SetServingStatus(false);
    // Calls in flight stop at their next check once the drain has run out, answering
    // UNAVAILABLE (a client may retry elsewhere). A moment later gRPC cancels what is left:
    // streams waiting for their client, and calls between checks, which then stop as
    // cancelled. Shutdown returns once every handler has.
    service_->Drain(std::chrono::steady_clock::now() + deadline);
    server_->Shutdown(std::chrono::system_clock::now() + deadline + kDrainCancelDelay);
  }
  if (reaper_.joinable()) reaper_.join();
  // No call is left to queue one: what is queued now is all there is to write.
  if (engine_ != nullptr) engine_->FinishDurableWrites();
}

void ArrayHubServer::Wait() {
  if (server_ != nullptr) server_->Wait();
}

}  // namespace arrayhub
