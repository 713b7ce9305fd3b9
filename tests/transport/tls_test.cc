// TLS and mutual TLS through gRPC's SSL credentials, with certificates made at test time.
#include <grpcpp/security/credentials.h>

#include "tests/support/test_certs.h"
#include "tests/transport/rpc_fixture.h"

namespace arrayhub::testing {
namespace {

// Client credentials trusting `roots`, presenting a certificate when one is given.
std::shared_ptr<grpc::ChannelCredentials> Trusting(const std::string& roots,
                                                   const std::string& key = "",
                                                   const std::string& cert = "") {
  grpc::SslCredentialsOptions options;
  options.pem_root_certs = roots;
  options.pem_private_key = key;
  options.pem_cert_chain = cert;
  return grpc::SslCredentials(options);
}

class TlsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { certs_ = new TestCerts(MakeTestCerts()); }
  static void TearDownTestSuite() { delete certs_; }

  void StartServer(bool require_client_certs) {
    ServerOptions options;
    options.tls = {.cert = certs_->Path("server.pem"),
                   .key = certs_->Path("server.key"),
                   .client_ca = require_client_certs ? certs_->Path("ca.pem") : ""};
    options.tokens = TokensFor({"alice"});
    server_ = StartTestServer(options);
    ASSERT_NE(server_, nullptr);
  }

  // OpenSession over `credentials`, as alice.
  grpc::Status Open(std::shared_ptr<grpc::ChannelCredentials> credentials,
                    v1::OpenSessionResponse* response) {
    auto stub = v1::ArrayHub::NewStub(grpc::CreateChannel(server_->address(), credentials));
    grpc::ClientContext context;
    context.AddMetadata("authorization", "Bearer " + TokenOf("alice"));
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    return stub->OpenSession(&context, {}, response);
  }

  static TestCerts* certs_;
  std::unique_ptr<ArrayHubServer> server_;
};

TestCerts* TlsTest::certs_ = nullptr;

TEST_F(TlsTest, ClientsTrustingTheCaConnectAndPlaintextClientsCannot) {
  ASSERT_FALSE(certs_->dir.empty());
  StartServer(/*require_client_certs=*/false);
  v1::OpenSessionResponse response;
  const grpc::Status ok = Open(Trusting(certs_->ca_pem), &response);
  ASSERT_TRUE(ok.ok()) << ok.error_message();
  EXPECT_EQ(response.tenant(), "alice");
  EXPECT_EQ(Open(grpc::InsecureChannelCredentials(), &response).error_code(),
            grpc::StatusCode::UNAVAILABLE);
  // A client that does not trust the test CA refuses the server.
  EXPECT_EQ(Open(Trusting(certs_->other_ca_pem), &response).error_code(),
            grpc::StatusCode::UNAVAILABLE);
}

TEST_F(TlsTest, MutualTlsRequiresAClientCertificateFromTheCa) {
  ASSERT_FALSE(certs_->dir.empty());
  StartServer(/*require_client_certs=*/true);
  v1::OpenSessionResponse response;
  EXPECT_EQ(Open(Trusting(certs_->ca_pem), &response).error_code(), grpc::StatusCode::UNAVAILABLE);
  const grpc::Status ok =
      Open(Trusting(certs_->ca_pem, certs_->client_key, certs_->client_pem), &response);
  ASSERT_TRUE(ok.ok()) << ok.error_message();
  EXPECT_EQ(response.tenant(), "alice");
}

TEST(TlsOptionsTest, IncompleteOrUnreadableFilesAreRefused) {
  EXPECT_EQ(ServerCredentialsFor({.cert = "x.pem", .key = "", .client_ca = ""}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ServerCredentialsFor({.cert = "", .key = "", .client_ca = "ca.pem"}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      ServerCredentialsFor({.cert = "/nonexistent.pem", .key = "/nonexistent.key", .client_ca = ""})
          .status()
          .code(),
      absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace arrayhub::testing
