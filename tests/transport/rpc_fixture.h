// The fixture of every transport suite: an in-process server and a raw stub to it; without
// authentication an open session for that stub, with it (Tenants()) a TenantClient per tenant.
#pragma once

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <spawn.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "arrayhub/v1/service.grpc.pb.h"
#include "tests/support/test_server.h"
#include "tests/transport/tenant_client.h"

extern char** environ;

namespace arrayhub::testing {

namespace v1 = ::arrayhub::v1;

// `n` bytes of seeded noise, for array payloads.
inline std::string RandomBytes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::string bytes(n, '\0');
  for (auto& c : bytes) c = static_cast<char>(rng());
  return bytes;
}

// Waits up to 10 s for `condition`.
template <typename Condition>
bool Eventually(Condition condition) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

class RpcTest : public ::testing::Test {
 protected:
  // The server's options; a suite overrides this to test limits and switches.
  virtual ServerOptions Options() const { return ServerOptions(); }
  // The tenants the server authenticates, each with TokenOf(tenant); with none, authentication
  // is off and the fixture opens session_ for stub_.
  virtual std::vector<std::string> Tenants() const { return {}; }

  void SetUp() override { Start(Options()); }

  // (Re)starts the server with `options` and the tokens of Tenants().
  void Start(ServerOptions options) {
    stub_.reset();
    channel_.reset();
    server_.reset();
    const std::vector<std::string> tenants = Tenants();
    if (!tenants.empty()) options.tokens = TokensFor(tenants);
    server_ = StartTestServer(std::move(options));
    ASSERT_NE(server_, nullptr);
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(16 << 20);
    channel_ =
        grpc::CreateCustomChannel(server_->address(), grpc::InsecureChannelCredentials(), args);
    stub_ = v1::ArrayHub::NewStub(channel_);
    if (tenants.empty()) session_ = OpenSession();
    baseline_ = server_->engine().Stats();
  }

  // Opens a session for `tenant` (one of Tenants()).
  TenantClient Connect(const std::string& tenant) {
    TenantClient client{.tenant = tenant, .session = "", .stub = v1::ArrayHub::NewStub(channel_)};
    grpc::ClientContext context;
    context.AddMetadata("authorization", "Bearer " + TokenOf(tenant));
    v1::OpenSessionResponse response;
    const grpc::Status status = client.stub->OpenSession(&context, {}, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(response.tenant(), tenant);
    client.session = response.session_id();
    return client;
  }

  std::string OpenSession() {
    grpc::ClientContext context;
    v1::OpenSessionRequest request;
    request.set_client_name("transport-test");
    v1::OpenSessionResponse response;
    grpc::Status status = stub_->OpenSession(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.session_id();
  }

  // A context carrying the session (or the given one).
  std::unique_ptr<grpc::ClientContext> Context(const std::string& session = "") {
    auto context = std::make_unique<grpc::ClientContext>();
    context->AddMetadata("x-arrayhub-session", session.empty() ? session_ : session);
    return context;
  }

  // Creates an array through the Create RPC; fails the test on error.
  v1::ArrayInfo Create(const v1::CreateRequest& request) {
    v1::ArrayInfo info;
    grpc::Status status = stub_->Create(Context().get(), request, &info);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return info;
  }

  // All bytes of an array, through Download.
  std::string DownloadAll(const std::string& handle, int64_t chunk_bytes = 0,
                          grpc::Status* status_out = nullptr, v1::ArrayInfo* info = nullptr) {
    auto context = Context();
    v1::DownloadRequest request;
    request.set_handle(handle);
    request.set_chunk_bytes(chunk_bytes);
    auto reader = stub_->Download(context.get(), request);
    std::string data;
    v1::DownloadResponse message;
    while (reader->Read(&message)) {
      if (message.has_info() && info != nullptr) *info = message.info();
      if (message.has_chunk()) data += message.chunk();
    }
    grpc::Status status = reader->Finish();
    if (status_out != nullptr) {
      *status_out = status;
    } else {
      EXPECT_TRUE(status.ok()) << status.error_message();
    }
    return data;
  }

  // Uploads `bytes` as one array in chunks of `chunk` bytes.
  grpc::Status Upload(v1::DType dtype, std::vector<int64_t> shape, const std::string& bytes,
                      v1::ArrayInfo* info, size_t chunk = 1 << 20) {
    v1::UploadHeader header;
    header.set_dtype(dtype);
    header.mutable_shape()->Assign(shape.begin(), shape.end());
    return Upload(header, bytes, info, chunk);
  }

  // Uploads `bytes` after `header` (a new array, or a range of a target) in chunks of `chunk`.
  grpc::Status Upload(const v1::UploadHeader& fields, const std::string& bytes, v1::ArrayInfo* info,
                      size_t chunk = 1 << 20) {
    auto context = Context();
    v1::UploadResponse response;
    auto writer = stub_->Upload(context.get(), &response);
    v1::UploadRequest header;
    *header.mutable_header() = fields;
    writer->Write(header);
    for (size_t offset = 0; offset < bytes.size(); offset += chunk) {
      v1::UploadRequest message;
      message.set_chunk(bytes.substr(offset, chunk));
      if (!writer->Write(message)) break;
    }
    writer->WritesDone();
    grpc::Status status = writer->Finish();
    if (info != nullptr) *info = response.array();
    return status;
  }

  // Calls `method` by name with an empty request through a generic stub (for services with
  // no C++ code here, and for methods no stub has); `response` gets the answer's bytes.
  grpc::Status CallGeneric(const std::string& method, std::string* response = nullptr) {
    grpc::GenericStub generic(channel_);
    grpc::ClientContext context;
    grpc::Slice empty("");
    grpc::ByteBuffer request(&empty, 1), answer;
    std::mutex mutex;
    std::condition_variable done_cv;
    std::optional<grpc::Status> status;
    generic.UnaryCall(&context, method, grpc::StubOptions(), &request, &answer,
                      [&](grpc::Status s) {
                        std::lock_guard lock(mutex);
                        status = std::move(s);
                        done_cv.notify_one();
                      });
    std::unique_lock lock(mutex);
    done_cv.wait(lock, [&] { return status.has_value(); });
    if (response != nullptr && status->ok()) {
      std::vector<grpc::Slice> slices;
      EXPECT_TRUE(answer.Dump(&slices).ok());
      response->clear();
      for (const auto& slice : slices) {
        response->append(reinterpret_cast<const char*>(slice.begin()), slice.size());
      }
    }
    return *status;
  }

  // grpc.health.v1.Health/Check about the whole server (Debian ships no C++ code for the
  // health proto): the response's bytes, e.g. 08 01 for HealthCheckResponse{status: SERVING}
  // and 08 02 for NOT_SERVING.
  std::string HealthCheck() {
    std::string bytes;
    const grpc::Status status = CallGeneric("/grpc.health.v1.Health/Check", &bytes);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return bytes;
  }

  // Runs `test` (a "Suite.Name" that skips unless ARRAYHUB_CHILD_SERVER is set) in a child
  // copy of this test executable, pointed at this server; answers its pid (0 if it could not
  // start, which fails the test).
  pid_t SpawnChildTest(const std::string& test) {
    const std::string filter = "--gtest_filter=" + test;
    std::vector<std::string> env_strings = {"ARRAYHUB_CHILD_SERVER=" + server_->address()};
    for (char** e = environ; *e != nullptr; ++e) env_strings.emplace_back(*e);
    std::vector<char*> envp;
    for (auto& s : env_strings) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::string self = "/proc/self/exe";
    std::vector<char*> argv = {self.data(), const_cast<char*>(filter.c_str()), nullptr};
    pid_t child = 0;
    const int spawned =
        posix_spawn(&child, self.c_str(), nullptr, nullptr, argv.data(), envp.data());
    EXPECT_EQ(spawned, 0);
    return spawned == 0 ? child : 0;
  }

  // Server memory and handle counts are back where the test started.
  void ExpectNothingLeaked() {
    const EngineStats now = server_->engine().Stats();
    EXPECT_EQ(now.bytes_in_use, baseline_.bytes_in_use);
    EXPECT_EQ(now.buffers, baseline_.buffers);
    EXPECT_EQ(now.arrays, baseline_.arrays);
  }

  std::unique_ptr<ArrayHubServer> server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::ArrayHub::Stub> stub_;
  std::string session_;
  EngineStats baseline_;
};

// `Base` (an RpcTest) with one of the server's Limits set: a suite of a limit or a switch, as
// `using BatchSmallReadTest = WithLimit<BatchTest, &Limits::max_inline_read_bytes, 64>;`.
template <class Base, auto kLimit, auto kValue>
class WithLimit : public Base {
 protected:
  ServerOptions Options() const override {
    ServerOptions options = Base::Options();
    options.limits.*kLimit = kValue;
    return options;
  }
};

// RpcTest with authentication on for the tenants alice, bob and carol.
class TenantsTest : public RpcTest {
 protected:
  std::vector<std::string> Tenants() const override { return {"alice", "bob", "carol"}; }
};

// gtest matcher-free check of a status code and a fragment of its message.
#define EXPECT_STATUS(status_expr, expected_code, fragment)                            \
  do {                                                                                 \
    const grpc::Status _s = (status_expr);                                             \
    EXPECT_EQ(_s.error_code(), grpc::StatusCode::expected_code) << _s.error_message(); \
    EXPECT_NE(_s.error_message().find(fragment), std::string::npos)                    \
        << "message was: " << _s.error_message();                                      \
  } while (0)

}  // namespace arrayhub::testing
