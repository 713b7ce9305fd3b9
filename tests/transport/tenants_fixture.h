// A fixture for multi-tenant transport tests: an in-process server with authentication on
// (tenants alice, bob and carol, each with a token), and a raw client per tenant.
#pragma once

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "arrayhub/v1/service.grpc.pb.h"
#include "tests/support/test_server.h"
#include "tests/transport/rpc_fixture.h"

namespace arrayhub::testing {

// The token of a test tenant: made up here, so nothing secret is checked in.
inline std::string TokenOf(const std::string& tenant) { return tenant + "-token-for-tests"; }

// A token table for the given tenants.
inline std::shared_ptr<const TokenTable> TokensFor(const std::vector<std::string>& tenants) {
  std::string text;
  for (const std::string& tenant : tenants) {
    text += tenant + " " + ToHex(Sha256(TokenOf(tenant))) + "\n";
  }
  auto table = TokenTable::Parse(text, "test tokens");
  EXPECT_TRUE(table.ok()) << table.status();
  return std::make_shared<const TokenTable>(*std::move(table));
}

// One tenant's view of the server: its stub, token and session.
struct TenantClient {
  std::string tenant;
  std::string session;
  std::unique_ptr<v1::ArrayHub::Stub> stub;

  // A context carrying the tenant's token and its session (or `session_override`).
  std::unique_ptr<grpc::ClientContext> Context(const std::string& session_override = "") const {
    auto context = std::make_unique<grpc::ClientContext>();
    context->AddMetadata("authorization", "Bearer " + TokenOf(tenant));
    context->AddMetadata("x-arrayhub-session",
                         session_override.empty() ? session : session_override);
    return context;
  }

  v1::ArrayInfo Zeros(std::vector<int64_t> shape, v1::DType dtype = v1::DTYPE_FLOAT32) const {
    v1::CreateRequest request;
    request.set_dtype(dtype);
    request.mutable_shape()->Assign(shape.begin(), shape.end());
    request.mutable_zeros();
    v1::ArrayInfo info;
    const grpc::Status status = stub->Create(Context().get(), request, &info);
    EXPECT_TRUE(status.ok()) << tenant << ": " << status.error_message();
    return info;
  }

  grpc::Status Publish(const std::string& handle, const std::string& name,
                       std::vector<std::string> readers = {}, bool all_tenants = false,
                       bool writable = false) const {
    v1::PublishRequest request;
    request.set_handle(handle);
    request.set_name(name);
    for (const std::string& reader : readers) request.add_reader_tenants(reader);
    request.set_all_tenants(all_tenants);
    request.set_writable(writable);
    v1::PublishResponse response;
    return stub->Publish(Context().get(), request, &response);
  }

  grpc::Status Attach(const std::string& name, const std::string& owner,
                      v1::ArrayInfo* info = nullptr) const {
    v1::AttachRequest request;
    request.set_name(name);
    request.set_owner(owner);
    v1::AttachResponse response;
    grpc::Status status = stub->Attach(Context().get(), request, &response);
    if (info != nullptr) *info = response.array();
    return status;
  }

  // numpy.add(a, 1, out=out) when `out` is set, else numpy.add(a, 1).
  grpc::Status AddOne(const std::string& a, const std::string& out = "",
                      v1::ArrayInfo* info = nullptr) const {
    v1::ElementwiseRequest request;
    request.set_op("add");
    request.add_operands()->set_handle(a);
    request.add_operands()->mutable_scalar()->set_int_value(1);
    request.set_out(out);
    v1::ArrayInfo result;
    grpc::Status status = stub->Elementwise(Context().get(), request, &result);
    if (info != nullptr) *info = result;
    return status;
  }

  grpc::Status Free(const std::string& handle) const {
    v1::FreeRequest request;
    request.add_handles(handle);
    v1::FreeResponse response;
    return stub->Free(Context().get(), request, &response);
  }

  v1::ServerInfo Info() const {
    v1::ServerInfo info;
    const grpc::Status status = stub->GetServerInfo(Context().get(), {}, &info);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return info;
  }
};

class TenantsTest : public ::testing::Test {
 protected:
  void SetUp() override { Start(ServerOptions()); }

  // (Re)starts the server with `options` plus the tenants' tokens.
  void Start(ServerOptions options) {
    server_.reset();
    options.tokens = TokensFor({"alice", "bob", "carol"});
    server_ = StartTestServer(std::move(options));
    ASSERT_NE(server_, nullptr);
    channel_ = grpc::CreateChannel(server_->address(), grpc::InsecureChannelCredentials());
    baseline_ = server_->engine().Stats();
  }

  // Opens a session for `tenant`.
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

  void ExpectNothingLeaked() {
    const EngineStats now = server_->engine().Stats();
    EXPECT_EQ(now.bytes_in_use, baseline_.bytes_in_use);
    EXPECT_EQ(now.buffers, baseline_.buffers);
    EXPECT_EQ(now.arrays, baseline_.arrays);
  }

  std::unique_ptr<ArrayHubServer> server_;
  std::shared_ptr<grpc::Channel> channel_;
  EngineStats baseline_;
};

}  // namespace arrayhub::testing
