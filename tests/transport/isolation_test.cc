// The isolation matrix: what tenant bob can do with tenant alice's arrays, names and sessions.
// Everything of alice's answers bob NOT_FOUND with exactly the message a made-up handle, name
// or session gets, so bob cannot even learn that they exist.
#include <functional>

#include "tests/transport/rpc_fixture.h"

namespace arrayhub::testing {
namespace {

// A syntactically valid handle that no array has.
constexpr char kMadeUpHandle[] = "0123456789abcdef0123456789abcdef";

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
    text.replace(at, from.size(), to);
    at += to.size();
  }
  return text;
}

using HandleCall = std::function<grpc::Status(const TenantClient&, const std::string& handle)>;

struct Case {
  const char* what;
  HandleCall call;
};

std::vector<Case> CallsOnAHandle() {
  return {
      {"describe",
       [](const TenantClient& c, const std::string& h) {
         v1::DescribeRequest request;
         request.set_handle(h);
         v1::ArrayInfo info;
         return c.stub->Describe(c.Context().get(), request, &info);
       }},
      {"download",
       [](const TenantClient& c, const std::string& h) {
         auto context = c.Context();
         v1::DownloadRequest request;
         request.set_handle(h);
         auto reader = c.stub->Download(context.get(), request);
         v1::DownloadResponse message;
         while (reader->Read(&message)) {
           ADD_FAILURE() << "download sent data of an invisible array";
         }
         return reader->Finish();
       }},
      {"elementwise operand",
       [](const TenantClient& c, const std::string& h) { return c.AddOne(h); }},
      {"elementwise out",
       [](const TenantClient& c, const std::string& h) {
         const v1::ArrayInfo own = c.Zeros({4});
         return c.AddOne(own.handle(), h);
       }},
      {"reduce",
       [](const TenantClient& c, const std::string& h) {
         v1::ReduceRequest request;
         request.set_op("sum");
         request.mutable_input()->set_handle(h);
         v1::ArrayInfo info;
         return c.stub->Reduce(c.Context().get(), request, &info);
       }},
      {"matmul",
       [](const TenantClient& c, const std::string& h) {
         const v1::ArrayInfo own = c.Zeros({4});
         v1::MatmulRequest request;
         request.mutable_a()->set_handle(own.handle());
         request.mutable_b()->set_handle(h);
         v1::ArrayInfo info;
         return c.stub->Matmul(c.Context().get(), request, &info);
       }},
      {"free", [](const TenantClient& c, const std::string& h) { return c.Free(h); }},
      {"batch get_item",
       [](const TenantClient& c, const std::string& h) {
         v1::BatchRequest request;
         request.add_ops()->mutable_get_item()->set_handle(h);
         request.set_read(0);
         v1::BatchResponse response;
         return c.stub->Batch(c.Context().get(), request, &response);
       }},
      {"publish",
       [](const TenantClient& c, const std::string& h) {
         return c.Publish(h, "stolen", {}, /*all_tenants=*/true);
       }},
  };
}

class IsolationTest : public TenantsTest {};

TEST_F(IsolationTest, AnotherTenantsHandleAnswersLikeAMadeUpOne) {
  const TenantClient alice = Connect("alice");
  const TenantClient bob = Connect("bob");
  const v1::ArrayInfo secret = alice.Zeros({4});
  for (const Case& c : CallsOnAHandle()) {
    SCOPED_TRACE(c.what);
    const grpc::Status real = c.call(bob, secret.handle());
    const grpc::Status made_up = c.call(bob, kMadeUpHandle);
    EXPECT_EQ(real.error_code(), grpc::StatusCode::NOT_FOUND) << real.error_message();
    EXPECT_EQ(made_up.error_code(), grpc::StatusCode::NOT_FOUND) << made_up.error_message();
    EXPECT_EQ(Replace(real.error_message(), secret.handle(), "<handle>"),
              Replace(made_up.error_message(), kMadeUpHandle, "<handle>"));
  }
  // Alice's array is untouched, and still hers alone.
  v1::DescribeRequest describe;
  describe.set_handle(secret.handle());
  v1::ArrayInfo info;
  ASSERT_TRUE(alice.stub->Describe(alice.Context().get(), describe, &info).ok());
  EXPECT_EQ(info.owner(), "alice");
}

TEST_F(IsolationTest, ABatchFreeingAnotherTenantsHandleSkipsItLikeAMadeUpOne) {
  const TenantClient alice = Connect("alice");
  const TenantClient bob = Connect("bob");
  const v1::ArrayInfo secret = alice.Zeros({4});
  for (const std::string& handle : {secret.handle(), std::string(kMadeUpHandle)}) {
    v1::BatchRequest request;
    request.add_ops()->mutable_create()->mutable_zeros();
    request.add_free(handle);
    v1::BatchResponse response;
    const grpc::Status status = bob.stub->Batch(bob.Context().get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(response.ByteSizeLong(), 0u);
  }
  v1::DescribeRequest describe;
  describe.set_handle(secret.handle());
  v1::ArrayInfo info;
  EXPECT_TRUE(alice.stub->Describe(alice.Context().get(), describe, &info).ok());
}

TEST_F(IsolationTest, ListsShowOnlyTheCallersArrays) {
  const TenantClient alice = Connect("alice");
  const TenantClient bob = Connect("bob");
  alice.Zeros({4});
  const v1::ArrayInfo published = alice.Zeros({2});
  ASSERT_TRUE(alice.Publish(published.handle(), "for-carol", {"carol"}).ok());
  const v1::ArrayInfo own = bob.Zeros({3});
  for (bool all_sessions : {false, true}) {
    for (bool include_shared : {false, true}) {
      v1::ListRequest request;
      request.set_all_sessions(all_sessions);
      request.set_include_shared(include_shared);
      v1::ListResponse response;
      ASSERT_TRUE(bob.stub->List(bob.Context().get(), request, &response).ok());
      ASSERT_EQ(response.arrays_size(), 1);
      EXPECT_EQ(response.arrays(0).handle(), own.handle());
    }
  }
}

TEST_F(IsolationTest, AnotherTenantsNamesAnswerLikeNamesNeverPublished) {
  const TenantClient alice = Connect("alice");
  const TenantClient bob = Connect("bob");
  const v1::ArrayInfo array = alice.Zeros({4});
  ASSERT_TRUE(alice.Publish(array.handle(), "private").ok());
  ASSERT_TRUE(alice.Publish(array.handle(), "for-carol", {"carol"}).ok());
  for (const char* name : {"private", "for-carol"}) {
    const grpc::Status real = bob.Attach(name, "alice");
    const grpc::Status made_up = bob.Attach("never-published", "alice");
    EXPECT_EQ(real.error_code(), grpc::StatusCode::NOT_FOUND);
    EXPECT_EQ(Replace(real.error_message(), name, "<name>"),
              Replace(made_up.error_message(), "never-published", "<name>"));
    // Nor can bob withdraw alice's names: his Unpublish looks among his own.
    v1::UnpublishRequest unpublish;
    unpublish.set_name(name);
    v1::UnpublishResponse response;
    EXPECT_STATUS(bob.stub->Unpublish(bob.Context().get(), unpublish, &response), NOT_FOUND,
                  "tenant 'bob' has published no array");
  }
  EXPECT_TRUE(Connect("carol").Attach("for-carol", "alice").ok());
}

TEST_F(IsolationTest, AnotherTenantsSessionAnswersLikeAMadeUpOne) {
  const TenantClient alice = Connect("alice");
  const TenantClient bob = Connect("bob");
  v1::KeepAliveResponse response;
  const grpc::Status real = bob.stub->KeepAlive(bob.Context(alice.session).get(), {}, &response);
  const grpc::Status made_up = bob.stub->KeepAlive(bob.Context(kMadeUpHandle).get(), {}, &response);
  EXPECT_EQ(real.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(Replace(real.error_message(), alice.session, "<id>"),
            Replace(made_up.error_message(), kMadeUpHandle, "<id>"));
  v1::CloseSessionResponse closed;
  EXPECT_EQ(bob.stub->CloseSession(bob.Context(alice.session).get(), {}, &closed).error_code(),
            grpc::StatusCode::NOT_FOUND);
  EXPECT_TRUE(alice.stub->KeepAlive(alice.Context().get(), {}, &response).ok());
}

TEST_F(IsolationTest, ServerInfoChargesEachTenantItsOwnMemory) {
  const TenantClient alice = Connect("alice");
  const TenantClient bob = Connect("bob");
  alice.Zeros({1000}, v1::DTYPE_FLOAT64);
  bob.Zeros({10}, v1::DTYPE_INT8);
  EXPECT_EQ(alice.Info().tenant(), "alice");
  EXPECT_EQ(alice.Info().tenant_bytes_in_use(), 8000);
  EXPECT_EQ(bob.Info().tenant_bytes_in_use(), 10);
  EXPECT_EQ(bob.Info().bytes_in_use(), baseline_.bytes_in_use + 8010);
}

}  // namespace
}  // namespace arrayhub::testing
