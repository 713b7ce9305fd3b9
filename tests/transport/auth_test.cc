// Authentication: the token file, bearer tokens on calls, tokens kept out of logs, and the
// refusal to serve other hosts unauthenticated.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "server/backend/backend_factory.h"
#include "tests/support/captured_log.h"
#include "tests/transport/rpc_fixture.h"

namespace arrayhub::testing {
namespace {

const std::string kAliceDigest = ToHex(Sha256(TokenOf("alice")));

TEST(TokenTableTest, MapsTokensToTenantsAndRejectsOthers) {
  auto table = TokenTable::Parse("# lab tokens\n\nalice " + kAliceDigest + "\n  bob\t" +
                                     ToHex(Sha256("b1")) + "  \nbob " + ToHex(Sha256("b2")) + "\n",
                                 "tokens.txt");
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_EQ(table->size(), 3u);
  EXPECT_EQ(table->TenantFor(TokenOf("alice")).value(), "alice");
  EXPECT_EQ(table->TenantFor("b1").value(), "bob");
  EXPECT_EQ(table->TenantFor("b2").value(), "bob");
  EXPECT_EQ(table->TenantFor("b3").status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(table->TenantFor("").status().code(), absl::StatusCode::kUnauthenticated);
}

TEST(TokenTableTest, UppercaseDigestsAreAccepted) {
  std::string upper = kAliceDigest;
  for (char& c : upper) c = static_cast<char>(std::toupper(c));
  auto table = TokenTable::Parse("alice " + upper, "t");
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_EQ(table->TenantFor(TokenOf("alice")).value(), "alice");
}

TEST(TokenTableTest, MalformedLinesAreRefusedNamingTheLine) {
  const struct {
    std::string text;
    std::string fragment;
  } cases[] = {
      {"", "lists no tokens"},
      {"# only a comment\n", "lists no tokens"},
      {"alice\n", "t line 1: expected `<tenant> <sha256-hex>`, got 1 fields"},
      {"\nalice " + kAliceDigest + " extra", "t line 2: expected"},
      {"alice abc", "t line 1: the digest must be 64 hex characters (SHA-256), got 3"},
      {"alice " + std::string(64, 'g'), "must be hexadecimal"},
      {"al:ce " + kAliceDigest, "the tenant must be 1 to 64 characters"},
      {"alice " + kAliceDigest + "\nbob " + kAliceDigest,
       "t line 2: the same token is listed already, for tenant 'alice'"},
  };
  for (const auto& c : cases) {
    auto table = TokenTable::Parse(c.text, "t");
    EXPECT_EQ(table.status().code(), absl::StatusCode::kInvalidArgument) << c.text;
    EXPECT_NE(std::string(table.status().message()).find(c.fragment), std::string::npos)
        << table.status();
  }
}

TEST(TokenTableTest, AFileOthersCanReadIsRefused) {
  char path[] = "/tmp/arrayhub-tokens-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  std::ofstream(path) << "alice " << kAliceDigest << "\n";
  ASSERT_EQ(chmod(path, 0644), 0);
  auto loaded = TokenTable::Load(path);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(std::string(loaded.status().message()).find("has mode 0644"), std::string::npos);
  ASSERT_EQ(chmod(path, 0640), 0);
  loaded = TokenTable::Load(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->size(), 1u);
  std::remove(path);
  EXPECT_EQ(TokenTable::Load(path).status().code(), absl::StatusCode::kNotFound);
}

class AuthTest : public TenantsTest {
 protected:
  grpc::Status OpenWith(const std::string& authorization, v1::OpenSessionResponse* response) {
    grpc::ClientContext context;
    if (!authorization.empty()) context.AddMetadata("authorization", authorization);
    return Connect("alice").stub->OpenSession(&context, {}, response);
  }
};

TEST_F(AuthTest, CallsWithoutAValidTokenAreUnauthenticated) {
  v1::OpenSessionResponse response;
  EXPECT_STATUS(OpenWith("", &response), UNAUTHENTICATED,
                "requires authentication: send the metadata `authorization: Bearer <token>`");
  EXPECT_STATUS(OpenWith("Bearer wrong", &response), UNAUTHENTICATED, "unknown bearer token");
  EXPECT_STATUS(OpenWith("Basic " + TokenOf("alice"), &response), UNAUTHENTICATED,
                "must be `Bearer <token>`");
  EXPECT_STATUS(OpenWith("Bearer " + TokenOf("alice") + " ", &response), UNAUTHENTICATED,
                "unknown bearer token");
  ASSERT_TRUE(OpenWith("Bearer " + TokenOf("alice"), &response).ok());
  EXPECT_EQ(response.tenant(), "alice");

  // A valid session id without the token is not enough.
  auto stub = v1::ArrayHub::NewStub(channel_);
  grpc::ClientContext context;
  context.AddMetadata("x-arrayhub-session", response.session_id());
  v1::KeepAliveResponse keep;
  EXPECT_STATUS(stub->KeepAlive(&context, {}, &keep), UNAUTHENTICATED, "requires authentication");
  grpc::ClientContext info_context;
  v1::ServerInfo info;
  EXPECT_STATUS(stub->GetServerInfo(&info_context, {}, &info), UNAUTHENTICATED,
                "requires authentication");
  ExpectNothingLeaked();
}

TEST_F(AuthTest, TokensNeverReachTheLog) {
  std::string text;
  {
    CapturedLog log(spdlog::level::trace);
    v1::OpenSessionResponse response;
    EXPECT_FALSE(OpenWith("Bearer not-a-token-of-anyone", &response).ok());
    const TenantClient alice = Connect("alice");
    alice.Zeros({2});
    v1::DescribeRequest describe;
    describe.set_handle("nonsense");
    v1::ArrayInfo info;
    EXPECT_FALSE(alice.stub->Describe(alice.Context().get(), describe, &info).ok());
    text = log.Text();
  }
  EXPECT_NE(text.find("UNAUTHENTICATED"), std::string::npos) << text;
  // The request line of a call that failed authentication names no tenant.
  EXPECT_NE(text.find("tenant=-: unknown bearer token"), std::string::npos) << text;
  EXPECT_EQ(text.find("not-a-token-of-anyone"), std::string::npos) << text;
  EXPECT_EQ(text.find(TokenOf("alice")), std::string::npos) << text;
  EXPECT_EQ(text.find(kAliceDigest), std::string::npos) << text;
}

TEST(ExposureTest, OtherHostsNeedAuthenticationOrAnExplicitInsecure) {
  EXPECT_TRUE(IsLoopbackAddress("127.0.0.1:50051"));
  EXPECT_TRUE(IsLoopbackAddress("127.1.2.3:0"));
  EXPECT_TRUE(IsLoopbackAddress("localhost:1"));
  EXPECT_TRUE(IsLoopbackAddress("[::1]:50051"));
  EXPECT_FALSE(IsLoopbackAddress("0.0.0.0:50051"));
  EXPECT_FALSE(IsLoopbackAddress("[::]:50051"));
  EXPECT_FALSE(IsLoopbackAddress("10.0.0.7:50051"));

  ServerOptions options;
  options.listen_address = "0.0.0.0:0";
  auto refused = ArrayHubServer::Start(options, CreateBackend(BackendChoice::kCpu).value());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(std::string(refused.status().message()).find("pass --auth-file, or --insecure"),
            std::string::npos);
  options.insecure = true;
  EXPECT_TRUE(ArrayHubServer::Start(options, CreateBackend(BackendChoice::kCpu).value()).ok());
  options.insecure = false;
  options.tokens = TokensFor({"alice"});
  EXPECT_TRUE(ArrayHubServer::Start(options, CreateBackend(BackendChoice::kCpu).value()).ok());
}

}  // namespace
}  // namespace arrayhub::testing
