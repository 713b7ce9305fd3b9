// One tenant's raw client of a test server with authentication on (RpcTest with Tenants()):
// its stub, token and session, and the calls the multi-tenant suites make with them.
#pragma once

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "arrayhub/v1/service.grpc.pb.h"
#include "tests/support/test_tokens.h"

namespace arrayhub::testing {

namespace v1 = ::arrayhub::v1;

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

}  // namespace arrayhub::testing
