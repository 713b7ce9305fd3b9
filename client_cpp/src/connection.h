// What a Client and the Arrays it made share: the gRPC stub and the session. Kept out of the
// public headers so that they need no generated proto or gRPC header.
#pragma once

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "arrayhub/client.h"
#include "arrayhub/v1/service.grpc.pb.h"
#include "batch_lane.h"
#include "pipeline.h"
#include "shared_memory.h"

namespace arrayhub::client::detail {

// How long cleanup from a destructor (closing the session, freeing an array) may wait for an
// unresponsive server before giving up; the server's lease reaping frees things anyway.
inline constexpr std::chrono::seconds kCleanupTimeout{5};

struct Connection {
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<v1::ArrayHub::Stub> stub;  // On `channel`.
  // The channels of a striped transfer's streams after the first (which uses `channel`), each
  // its own TCP connection (ClientOptions::transfer_streams).
  std::vector<std::shared_ptr<grpc::Channel>> stripe_channels;
  ClientOptions options;
  std::string session_id;
  int32_t session_device = 0;  // The session's device (OpenSessionResponse.device).
  // The device calls run on now (Client::SetDevice): sent as `x-arrayhub-device` when it is
  // not the session's.
  std::atomic<int32_t> call_device{0};
  // How many devices the server has, read at the first SetDevice (0: not yet).
  std::atomic<int32_t> device_count{0};
  // Most bytes an upload queues in the Batch as a create with its data: the server's
  // ServerLimits.max_inline_create_bytes, read at the first small upload (-1: not yet; 0: the
  // server takes none), and at most options.inline_upload_bytes.
  std::atomic<int64_t> inline_create_bytes{-1};
  // Cleared once the session is closed: the server has then freed its arrays, so Arrays
  // outliving their Client skip the Free call that could only fail.
  std::atomic<bool> session_open{false};
  // The same-host transfer path; null when the server is not on this host (shared_memory.h).
  std::unique_ptr<SharedMemoryTransfer> shared_memory;
  // The session's batch lane; null when the server is not on this host (batch_lane.h).
  std::unique_ptr<BatchLane> lane;
  // The queue of pipelined ops, with its idle thread; made last, stopped first (Client::Close).
  std::unique_ptr<Pipeline> pipeline;

  // Adds the metadata every call carries: the bearer token when there is one, the session id
  // on the RPCs that take one (all but OpenSession and GetServerInfo), and `x-arrayhub-device`
  // when calls run on another device than the session's, unless `with_device` is false (a
  // pipelined Batch names its own device).
  void Prepare(grpc::ClientContext& context, bool with_session = true,
               bool with_device = true) const;
  // The server's GetServerInfo answer now, without waiting for the queue (its limits, devices
  // and socket do not change; Client::Info waits first for the counts).
  v1::ServerInfo ReadServerInfo(bool with_device = true) const;
  // Frees one array; `cleanup` bounds the wait by kCleanupTimeout (for destructors).
  void Free(const std::string& handle, bool cleanup = false);
};

// Throws the Error matching a failed status; returns for OK.
void Check(const grpc::Status& status);

// A unary RPC in the connection's session: returns the response or throws its Error.
template <typename Request, typename Response>
Response Call(Connection& connection,
              grpc::Status (v1::ArrayHub::Stub::*method)(grpc::ClientContext*, const Request&,
                                                         Response*),
              const Request& request) {
  grpc::ClientContext context;
  connection.Prepare(context);
  Response response;
  Check((connection.stub.get()->*method)(&context, request, &response));
  return response;
}

// Runs one op of a Batch as the unary RPC of its kind (sync mode); returns its one result (an
// empty one for record_event, a Batch of itself, which gives none).
v1::ArrayInfo CallOp(Connection& connection, const v1::BatchRequest::Op& op);

}  // namespace arrayhub::client::detail
