// arrayhub-health: asks a server's grpc.health.v1.Health/Check whether it is serving, for
// container health checks (Docker's HEALTHCHECK, compose) where no gRPC client is at hand.
// Exit status 0 when the answer is SERVING, 1 for any other answer or no answer, 2 for a usage
// error; the answer or the failure is printed.
#include <grpcpp/grpcpp.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>

#include "grpc/health/v1/health.grpc.pb.h"

namespace {

// The daemon's own address as a local client dials it: $ARRAYHUB_LISTEN's port on loopback
// (the container sets ARRAYHUB_LISTEN=0.0.0.0:PORT), else the daemon's default.
std::string DefaultAddress() {
  const char* listen = std::getenv("ARRAYHUB_LISTEN");
  const std::string value = listen != nullptr ? listen : "";
  const size_t colon = value.rfind(':');
  if (colon == std::string::npos) return "127.0.0.1:50051";
  return "127.0.0.1:" + value.substr(colon + 1);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("arrayhub-health: exits 0 when an arrayhubd answers SERVING to a health check",
               "arrayhub-health");
  std::string address = DefaultAddress();
  std::string service;
  double timeout_seconds = 3;
  app.add_option("--address", address,
                 "server to ask (default: 127.0.0.1 and the port of "
                 "$ARRAYHUB_LISTEN, else 127.0.0.1:50051)")
      ->capture_default_str();
  app.add_option("--service", service, "service to ask about; empty: the whole server");
  app.add_option("--timeout", timeout_seconds, "seconds to wait for the answer")
      ->check(CLI::Range(0.1, 600.0))
      ->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error) == 0 ? 0 : 2;
  }

  auto stub = grpc::health::v1::Health::NewStub(
      grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::milliseconds(static_cast<int64_t>(timeout_seconds * 1000)));
  grpc::health::v1::HealthCheckRequest request;
  request.set_service(service);
  grpc::health::v1::HealthCheckResponse response;
  const grpc::Status status = stub->Check(&context, request, &response);
  if (!status.ok()) {
    std::cerr << "arrayhub-health: " << address << ": " << status.error_message() << " (code "
              << status.error_code() << ")\n";
    return 1;
  }
  std::cout << grpc::health::v1::HealthCheckResponse::ServingStatus_Name(response.status()) << "\n";
  return response.status() == grpc::health::v1::HealthCheckResponse::SERVING ? 0 : 1;
}
