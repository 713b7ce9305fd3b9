// Sessions, creation and bookkeeping. Transfers are in transfer.cc.
#include "arrayhub/client.h"

#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <thread>
#include <utility>

#include "connection.h"
#include "convert.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "requests.h"

namespace arrayhub::client {
namespace {

// Downloads arrive in chunks of up to the server's cap (2 MiB by default) plus framing; the
// 4 MiB gRPC default would leave little headroom for servers configured with larger chunks.
constexpr int kMaxReceiveMessageBytes = 16 << 20;
// Past a few streams the memory copies at both ends, not the connections, bound a transfer.
constexpr int kMaxAutomaticStreams = 4;

// ARRAYHUB_SYNC=1: one blocking call per op (Client::SetSync).
bool SyncFromEnvironment() {
  const char* sync = std::getenv("ARRAYHUB_SYNC");
  return sync != nullptr && std::string_view(sync) == "1";
}

// An array of another client cannot be named by its place in this client's queue: its handle
// is waited for first (outside this client's lock).
void SettleForeign(const detail::Connection& conn, const std::vector<const Array*>& inputs) {
  for (const Array* input : inputs) {
    const detail::Connection* owner = detail::ArrayAccess::ConnectionOf(*input);
    if (owner != nullptr && owner != &conn) input->handle();
  }
}

}  // namespace

Client Client::Connect(const std::string& address, ClientOptions options) {
  if (options.chunk_bytes <= 0) {
    throw Error(StatusCode::kInvalidArgument,
                "chunk_bytes must be positive, got " + std::to_string(options.chunk_bytes));
  }
  if (options.transfer_streams < 0) {
    throw Error(StatusCode::kInvalidArgument, "transfer_streams must not be negative, got " +
                                                  std::to_string(options.transfer_streams));
  }
  if (options.idle_flush.count() <= 0) {
    throw Error(
        StatusCode::kInvalidArgument,
        "idle_flush must be positive, got " + std::to_string(options.idle_flush.count()) + " us");
  }
  if (options.transfer_streams == 0) {
    const int cores = static_cast<int>(std::thread::hardware_concurrency());
    options.transfer_streams = std::clamp(cores / 2, 1, kMaxAutomaticStreams);
  }
  grpc::ChannelArguments arguments;
  arguments.SetMaxReceiveMessageSize(kMaxReceiveMessageBytes);
  auto connection = std::make_shared<detail::Connection>();
  std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
  if (options.tls.enabled) {
    grpc::SslCredentialsOptions tls;
    tls.pem_root_certs = options.tls.root_certs_pem;
    tls.pem_cert_chain = options.tls.cert_chain_pem;
    tls.pem_private_key = options.tls.private_key_pem;
    credentials = grpc::SslCredentials(tls);
  }
  connection->channel = grpc::CreateCustomChannel(address, credentials, arguments);
  for (int stream = 1; stream < options.transfer_streams; ++stream) {
    // Channels with equal arguments share one connection; this argument makes each its own.
    grpc::ChannelArguments stripe = arguments;
    stripe.SetInt("arrayhub.transfer_stream", stream);
    connection->stripe_channels.push_back(grpc::CreateCustomChannel(address, credentials, stripe));
  }
  connection->stub = v1::ArrayHub::NewStub(connection->channel);
  connection->options = std::move(options);
  if (detail::SharedMemoryWanted(address, connection->options.shared_memory)) {
    connection->shared_memory = std::make_unique<detail::SharedMemoryTransfer>();
  }
  if (detail::BatchLane::Wanted(address)) connection->lane = std::make_unique<detail::BatchLane>();

  grpc::ClientContext context;
  connection->Prepare(context, /*with_session=*/false);
  v1::OpenSessionRequest request;
  request.set_client_name(connection->options.client_name);
  request.set_lease_seconds(connection->options.lease_seconds);
  if (connection->options.device) request.set_device(*connection->options.device);
  v1::OpenSessionResponse response;
  detail::Check(connection->stub->OpenSession(&context, request, &response));
  connection->session_id = response.session_id();
  connection->session_device = response.device();
  connection->call_device = response.device();
  connection->session_open = true;
  connection->pipeline = std::make_unique<detail::Pipeline>(*connection, SyncFromEnvironment(),
                                                            connection->options.idle_flush);
  return Client(std::move(connection));
}

Client::Client(std::shared_ptr<detail::Connection> connection, bool owns_session)
    : connection_(std::move(connection)), owns_session_(owns_session) {}

Client::~Client() { Close(); }

Client::Client(Client&& other) noexcept = default;

Client& Client::operator=(Client&& other) noexcept {
  if (this != &other) {
    Close();
    connection_ = std::move(other.connection_);
    owns_session_ = other.owns_session_;
  }
  return *this;
}

void Client::Close() noexcept {
  if (connection_ == nullptr || !owns_session_ || !connection_->session_open.exchange(false)) {
    return;
  }
  connection_->pipeline->Stop();
  try {
    grpc::ClientContext context;
    connection_->Prepare(context);
    context.set_deadline(std::chrono::system_clock::now() + detail::kCleanupTimeout);
    v1::CloseSessionResponse response;
    // The result does not matter: a session the server no longer knows is closed already.
    (void)connection_->stub->CloseSession(&context, v1::CloseSessionRequest(), &response);
  } catch (...) {
    // Nothing may escape a destructor (allocation failures included).
  }
}

detail::Connection& Client::connection() const {
  if (connection_ == nullptr) {
    throw Error(StatusCode::kFailedPrecondition, "this Client was moved from");
  }
  return *connection_;
}

detail::Connection& Client::Synced() const {
  detail::Connection& conn = connection();
  conn.pipeline->Synchronize();
  return conn;
}

Array Client::Adopt(ArrayInfo info) const {
  return Array(connection_, detail::Result::Ready(std::move(info)));
}

std::vector<Array> Client::AdoptAll(const std::vector<ArrayInfo>& results) const {
  std::vector<Array> arrays;
  arrays.reserve(results.size());
  for (const ArrayInfo& info : results) arrays.push_back(Adopt(info));
  return arrays;
}

Array Client::Issue(const std::vector<const Array*>& inputs, const detail::OpBuilder& op) {
  detail::Connection& conn = connection();
  SettleForeign(conn, inputs);
  if (conn.pipeline->sync()) return Adopt(detail::FromProto(detail::CallOp(conn, op.build())));
  return Array(connection_, conn.pipeline->Record(inputs, op, /*makes_array=*/true));
}

void Client::IssueOut(const std::vector<const Array*>& inputs, const detail::OpBuilder& op) {
  detail::Connection& conn = connection();
  SettleForeign(conn, inputs);
  if (conn.pipeline->sync()) {
    detail::CallOp(conn, op.build());
  } else {
    conn.pipeline->Record(inputs, op, /*makes_array=*/false);
  }
}

void Client::Synchronize() { Synced(); }

void Client::SetSync(bool sync) { connection().pipeline->SetSync(sync); }

bool Client::sync() const { return connection().pipeline->sync(); }

void Client::RequireDType(const Array& array, DType expected) {
  if (array.dtype() != expected) {
    throw Error(StatusCode::kInvalidArgument, "array " + array.handle() + " has dtype " +
                                                  std::string(DTypeName(array.dtype())) + ", not " +
                                                  std::string(DTypeName(expected)));
  }
}

const std::string& Client::session_id() const { return connection().session_id; }

int32_t Client::device() const { return connection().session_device; }

int32_t Client::CurrentDevice() const {
  return connection().call_device.load(std::memory_order_relaxed);
}

void Client::SetDevice(int32_t device) {
  detail::Connection& conn = connection();
  int32_t count = conn.device_count.load(std::memory_order_relaxed);
  if (count == 0) {
    // Read once, without waiting for the queue: a daemon's devices do not change.
    count = conn.ReadServerInfo(/*with_device=*/false).devices_size();
    conn.device_count.store(count, std::memory_order_relaxed);
  }
  if (device < 0 || device >= count) {
    throw Error(StatusCode::kInvalidArgument, "device " + std::to_string(device) +
                                                  ": the server has " + std::to_string(count) +
                                                  " device(s)");
  }
  conn.call_device.store(device, std::memory_order_relaxed);
}

Array Client::CopyToDevice(const Array& array, int32_t device) {
  // CopyToDevice names its source by handle, so a source still queued is sent first.
  const std::string& handle = array.handle();
  return Issue({}, {[&] {
                 v1::BatchRequest::Op op;
                 op.mutable_copy_to_device()->set_handle(handle);
                 op.mutable_copy_to_device()->set_device(device);
                 return op;
               }});
}

int Client::TransferStreams() const {
  return static_cast<int>(connection_->stripe_channels.size()) + 1;
}

bool Client::UsesSharedMemory() const {
  const detail::Connection& conn = connection();
  return conn.shared_memory != nullptr && conn.shared_memory->active();
}

void Client::KeepAlive() {
  detail::Call(Synced(), &v1::ArrayHub::Stub::KeepAlive, v1::KeepAliveRequest());
}

void Client::Ping() {
  grpc::ClientContext context;
  connection().Prepare(context, /*with_session=*/false);
  grpc::health::v1::HealthCheckResponse response;
  detail::Check(grpc::health::v1::Health::NewStub(connection().channel)
                    ->Check(&context, grpc::health::v1::HealthCheckRequest(), &response));
  if (response.status() != grpc::health::v1::HealthCheckResponse::SERVING) {
    throw Error(StatusCode::kUnavailable,
                "the server answers but is not serving (it is draining or shutting down)");
  }
}

ServerInfo Client::Info() {
  // Synced: its counts include what is queued.
  return detail::FromProto(Synced().ReadServerInfo());
}

Array Client::Empty(const Shape& shape, DType dtype) {
  return Issue({}, {[&] {
                 v1::CreateRequest request = detail::CreateRequestFor(shape, dtype);
                 request.mutable_empty();
                 return detail::AsOp(std::move(request));
               }});
}

Array Client::Zeros(const Shape& shape, DType dtype) {
  return Issue({}, {[&] {
                 v1::CreateRequest request = detail::CreateRequestFor(shape, dtype);
                 request.mutable_zeros();
                 return detail::AsOp(std::move(request));
               }});
}

Array Client::Ones(const Shape& shape, DType dtype) {
  return Issue({}, {[&] {
                 v1::CreateRequest request = detail::CreateRequestFor(shape, dtype);
                 request.mutable_ones();
                 return detail::AsOp(std::move(request));
               }});
}

Array Client::Full(const Shape& shape, Scalar value, std::optional<DType> dtype) {
  return Issue({}, {[&] { return detail::AsOp(detail::FullRequest(shape, value, dtype)); }});
}

Array Client::Arange(Scalar start, Scalar stop, Scalar step, std::optional<DType> dtype) {
  return Issue({}, {[&] { return detail::AsOp(detail::ArangeRequest(start, stop, step, dtype)); }});
}

Array Client::Linspace(Scalar start, Scalar stop, int64_t num, bool endpoint,
                       std::optional<DType> dtype) {
  return Issue({}, {[&] {
                 return detail::AsOp(detail::LinspaceRequest(start, stop, num, endpoint, dtype));
               }});
}

Array Client::Eye(int64_t n, std::optional<int64_t> m, int64_t k, std::optional<DType> dtype) {
  return Issue({}, {[&] { return detail::AsOp(detail::EyeRequest(n, m, k, dtype)); }});
}

ArrayInfo Client::Describe(const std::string& handle) {
  v1::DescribeRequest request;
  request.set_handle(handle);
  return detail::FromProto(detail::Call(Synced(), &v1::ArrayHub::Stub::Describe, request));
}

std::vector<ArrayInfo> Client::List(bool all_sessions, bool include_shared) {
  v1::ListRequest request;
  request.set_all_sessions(all_sessions);
  request.set_include_shared(include_shared);
  const v1::ListResponse response = detail::Call(Synced(), &v1::ArrayHub::Stub::List, request);
  std::vector<ArrayInfo> arrays;
  arrays.reserve(response.arrays_size());
  for (const v1::ArrayInfo& info : response.arrays()) arrays.push_back(detail::FromProto(info));
  return arrays;
}

void Client::Free(const std::string& handle) { Synced().Free(handle); }

}  // namespace arrayhub::client
