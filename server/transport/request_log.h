// One log line per RPC at debug level: method, status code, duration, request id, tenant and,
// for failures, the message. Never payloads, metadata or tokens.
//
// The request id is the client's `x-request-id` metadata when that is a short token (so a
// client's report can be matched to the server's line), otherwise a fresh random one.
#pragma once

#include <grpcpp/support/server_interceptor.h>

namespace arrayhub {

// Metadata key a client may set to name its request in the server's log.
inline constexpr char kRequestIdMetadataKey[] = "x-request-id";

// Registered with the server builder; creates an interceptor for a call only while the log
// level is debug or finer, so the line costs nothing otherwise.
class RequestLogFactory final : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override;
};

}  // namespace arrayhub
