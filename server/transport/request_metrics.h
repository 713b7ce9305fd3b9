// Counts every finished call into ServerMetrics (method, status code, duration) and the array
// bytes that Upload receives and Download sends.
#pragma once

#include <grpcpp/support/server_interceptor.h>

#include <string>

#include "absl/container/flat_hash_set.h"
#include "server/transport/metrics.h"

namespace arrayhub {

class RequestMetricsFactory final : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit RequestMetricsFactory(ServerMetrics& metrics);

  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override;

 private:
  ServerMetrics& metrics_;
  // Full method names ("/arrayhub.v1.ArrayHub/Create") this server serves. Any other name a
  // client sends is counted as service="unknown", so clients cannot grow the label sets.
  absl::flat_hash_set<std::string> known_methods_;
};

}  // namespace arrayhub
