// The C++ client on a shared server: tokens, TLS, Publish/Attach between tenants, and durable
// publications across a restart.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "arrayhub/client.h"
#include "tests/support/test_certs.h"
#include "tests/support/test_server.h"
#include "tests/support/test_tokens.h"

namespace {

using arrayhub::client::Array;
using arrayhub::client::Client;
using arrayhub::client::ClientOptions;
using arrayhub::client::DType;
using arrayhub::client::Error;
using arrayhub::client::StatusCode;
using arrayhub::testing::TokenOf;

class SharedServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    certs_ = new arrayhub::testing::TestCerts(arrayhub::testing::MakeTestCerts());
  }
  static void TearDownTestSuite() { delete certs_; }

  void SetUp() override {
    ASSERT_FALSE(certs_->dir.empty());
    arrayhub::ServerOptions options;
    options.tokens = arrayhub::testing::TokensFor({"alice", "bob"});
    options.tls = {
        .cert = certs_->Path("server.pem"), .key = certs_->Path("server.key"), .client_ca = ""};
    server_ = arrayhub::testing::StartTestServer(options);
    ASSERT_NE(server_, nullptr);
  }

  ClientOptions OptionsFor(const std::string& tenant) const {
    ClientOptions options;
    options.token = TokenOf(tenant);
    options.tls = {.enabled = true,
                   .root_certs_pem = certs_->ca_pem,
                   .cert_chain_pem = "",
                   .private_key_pem = ""};
    return options;
  }

  static arrayhub::testing::TestCerts* certs_;
  std::unique_ptr<arrayhub::ArrayHubServer> server_;
};

arrayhub::testing::TestCerts* SharedServerTest::certs_ = nullptr;

StatusCode CodeOf(auto&& body) {
  try {
    body();
  } catch (const Error& error) {
    return error.code();
  }
  return StatusCode::kOk;
}

TEST_F(SharedServerTest, TokensOverTlsMapToTenants) {
  Client alice = Client::Connect(server_->address(), OptionsFor("alice"));
  EXPECT_EQ(alice.Info().tenant, "alice");
  ClientOptions wrong = OptionsFor("alice");
  wrong.token = "not-a-token";
  EXPECT_EQ(CodeOf([&] { Client::Connect(server_->address(), wrong); }),
            StatusCode::kUnauthenticated);
  ClientOptions plaintext = OptionsFor("alice");
  plaintext.tls.enabled = false;
  EXPECT_EQ(CodeOf([&] { Client::Connect(server_->address(), plaintext); }),
            StatusCode::kUnavailable);
}

TEST_F(SharedServerTest, PublishAttachAndUnpublishBetweenTenants) {
  Client alice = Client::Connect(server_->address(), OptionsFor("alice"));
  Client bob = Client::Connect(server_->address(), OptionsFor("bob"));
  auto weights = alice.Upload(std::vector<float>{1, 2, 3, 4}, {2, 2});
  const auto published = alice.Publish(weights, "weights", {.readers = {"bob"}});
  EXPECT_EQ(published.name, "weights");
  EXPECT_EQ(published.handle, weights.handle());

  auto mine = bob.Attach("weights", "alice");
  EXPECT_EQ(mine.info().owner, "alice");
  EXPECT_FALSE(mine.info().writable);
  EXPECT_EQ(bob.Download<float>(mine), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(CodeOf([&] {
              bob.UfuncOut(mine, "add", {mine, 1});
              bob.Synchronize();  // Pipelined, the error comes where bob next waits.
            }),
            StatusCode::kPermissionDenied);
  const auto listed = bob.List(false, /*include_shared=*/true);
  ASSERT_EQ(listed.size(), 2u);  // His attached handle and alice's publication.

  alice.Unpublish("weights");
  EXPECT_EQ(CodeOf([&] { bob.Attach("weights", "alice"); }), StatusCode::kNotFound);
  EXPECT_EQ(bob.Download<float>(mine), (std::vector<float>{1, 2, 3, 4}));  // Still held.
  EXPECT_EQ(CodeOf([&] { alice.Unpublish("weights"); }), StatusCode::kNotFound);
}

// Work of another session on an array comes after the owner's queued writes, and the owner's
// later writes after that work (docs/execution.md). On the CUDA backend each session has a
// stream of its own that runs concurrently with the others: without these fences bob would
// read a half-written array, and alice's next write would land under bob's reads. Each client
// synchronizes before the other goes on: pipelined, its ops reach the server only when sent.
TEST_F(SharedServerTest, SessionsSharingAnArrayAreOrderedBothWays) {
  Client alice = Client::Connect(server_->address(), OptionsFor("alice"));
  Client bob = Client::Connect(server_->address(), OptionsFor("bob"));
  auto counter = alice.Zeros({int64_t{1} << 25}, DType::kInt32);  // 128 MiB.
  alice.Publish(counter, "counter", {.readers = {"bob"}});
  for (int i = 0; i < 40; ++i) alice.UfuncOut(counter, "add", {counter, 1});
  alice.Synchronize();
  auto seen = bob.Attach("counter", "alice");
  std::vector<Array> doubled;
  for (int i = 0; i < 20; ++i) doubled.push_back(bob.Ufunc("multiply", {seen, 2}));
  bob.Synchronize();
  alice.UfuncOut(counter, "add", {counter, 1000});

  for (const Array& result : doubled) {
    EXPECT_EQ(bob.Download<int32_t>(bob.Reduce("min", result)), std::vector<int32_t>{80});
    EXPECT_EQ(bob.Download<int32_t>(bob.Reduce("max", result)), std::vector<int32_t>{80});
  }
  EXPECT_EQ(alice.Download<int32_t>(alice.Reduce("min", counter)), std::vector<int32_t>{1040});
}

}  // namespace

namespace {

// A durable publication outlives its server: a new one on the same data directory restores
// its name, owner, readers and data.
TEST_F(SharedServerTest, DurablePublicationsSurviveARestart) {
  const std::filesystem::path data_dir =
      std::filesystem::temp_directory_path() /
      ("arrayhub-durable-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
       "-" + std::to_string(getpid()));
  std::filesystem::remove_all(data_dir);
  arrayhub::ServerOptions options;
  options.tokens = arrayhub::testing::TokensFor({"alice", "bob"});
  options.tls = {
      .cert = certs_->Path("server.pem"), .key = certs_->Path("server.key"), .client_ca = ""};
  options.data_dir = data_dir.string();
  for (int run = 0; run < 2; ++run) {
    server_ = arrayhub::testing::StartTestServer(options);
    ASSERT_NE(server_, nullptr);
    Client alice = Client::Connect(server_->address(), OptionsFor("alice"));
    Client bob = Client::Connect(server_->address(), OptionsFor("bob"));
    if (run == 0) {
      alice.Publish(alice.Upload(std::vector<double>{1.5, -2, 3}, {3}), "kept",
                    {.readers = {"bob"}, .durable = true, .wait = true});
      alice.Publish(alice.Upload(std::vector<int16_t>{7}, {1}), "later");
      const auto written = alice.Checkpoint(/*wait=*/true);
      EXPECT_EQ(written.publications, 2);
      EXPECT_EQ(written.bytes, 3 * 8 + 2);
      EXPECT_EQ(written.tenant_disk_bytes, 2 * 128 + 3 * 8 + 2);  // A .npy header each.
      EXPECT_EQ(CodeOf([&] { bob.Attach("later", "alice"); }), StatusCode::kNotFound);
      continue;
    }
    auto kept = bob.Attach("kept", "alice");
    EXPECT_EQ(kept.info().owner, "alice");
    EXPECT_FALSE(kept.info().writable);
    EXPECT_EQ(bob.Download<double>(kept), (std::vector<double>{1.5, -2, 3}));
    EXPECT_EQ(alice.Download<int16_t>(alice.Attach("later")), std::vector<int16_t>{7});
    EXPECT_EQ(CodeOf([&] { bob.Attach("later", "alice"); }), StatusCode::kNotFound);
  }
  server_.reset();
  std::filesystem::remove_all(data_dir);
}

}  // namespace
