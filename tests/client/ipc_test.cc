// CUDA IPC export through the C++ client: leases, pool tickets and the IPC socket, and every
// refusal with its code (the socket on its own: ipc_socket_test.cc). Mapping the memory needs a
// second process (CUDA does not import a process's own pool); client_python/tests/test_cuda_ipc.py
// does that with CuPy.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arrayhub/client.h"
#include "tests/support/client_expect.h"
#include "tests/support/test_server.h"
#include "tests/support/test_tokens.h"

namespace {

using arrayhub::client::Client;
using arrayhub::client::ClientOptions;
using arrayhub::client::DType;
using arrayhub::client::IpcExport;

bool OnCuda(arrayhub::ArrayHubServer& server) { return server.engine().backend().name() == "cuda"; }

class IpcTest : public ::testing::Test {
 protected:
  void SetUp() override {
    arrayhub::ServerOptions options;
    options.tokens = arrayhub::testing::TokensFor({"alice", "bob"});
    server_ = arrayhub::testing::StartTestServer(options);
    ASSERT_NE(server_, nullptr);
  }
  Client Connect(const std::string& tenant) {
    ClientOptions options;
    options.token = arrayhub::testing::TokenOf(tenant);
    return Client::Connect(server_->address(), options);
  }

  std::unique_ptr<arrayhub::ArrayHubServer> server_;
};

TEST_F(IpcTest, TheCpuBackendHasNothingToExport) {
  if (OnCuda(*server_)) GTEST_SKIP() << "the CUDA backend exports";
  Client alice = Connect("alice");
  auto a = alice.Zeros({4}, DType::kFloat32);
  EXPECT_CLIENT_ERROR(alice.ExportIpc(a), kFailedPrecondition, "needs the CUDA backend");
}

TEST_F(IpcTest, ReleasingAnUnknownLeaseIsNotFound) {
  Client alice = Connect("alice");
  EXPECT_CLIENT_ERROR(alice.ReleaseIpc("0123456789abcdef0123456789abcdef"), kNotFound,
                      "no CUDA IPC lease");
}

TEST_F(IpcTest, ExportLeasesTheMemoryAndHandsOutThePoolOnce) {
  if (!OnCuda(*server_)) GTEST_SKIP() << "needs the CUDA backend";
  Client alice = Connect("alice");
  auto a = alice.Arange(0, 1000, 1, DType::kFloat32);
  const IpcExport exported = alice.ExportIpc(a);
  EXPECT_EQ(exported.pointer_export_data.size(), 64u);
  EXPECT_EQ(exported.offset_bytes, 0);
  EXPECT_EQ(exported.array.handle, a.handle());
  EXPECT_EQ(exported.array.shape, (std::vector<int64_t>{1000}));
  EXPECT_TRUE(exported.device_uuid.starts_with("GPU-")) << exported.device_uuid;
  EXPECT_EQ(exported.device_ordinal, 0);
  EXPECT_TRUE(exported.socket_path.starts_with("@arrayhubd-ipc-")) << exported.socket_path;

  const int fd = arrayhub::client::FetchPoolDescriptor(exported);
  ASSERT_GE(fd, 0);
  struct stat status {};
  EXPECT_EQ(fstat(fd, &status), 0);
  close(fd);
  // A ticket is good once.
  EXPECT_CLIENT_ERROR(arrayhub::client::FetchPoolDescriptor(exported), kNotFound,
                      "unknown, used or expired pool ticket");

  // The same memory, exported again or through a view, is the same lease and the same pool.
  const IpcExport again = alice.ExportIpc(a);
  EXPECT_EQ(again.lease, exported.lease);
  EXPECT_EQ(again.pool_id, exported.pool_id);
  EXPECT_EQ(again.pointer_export_data, exported.pointer_export_data);
  auto view = alice.Reshape(a, {10, 100});
  auto row = alice.GetItem(view, {3});
  const IpcExport of_row = alice.ExportIpc(row);
  EXPECT_EQ(of_row.lease, exported.lease);
  EXPECT_EQ(of_row.offset_bytes, 3 * 100 * 4);

  alice.ReleaseIpc(exported.lease);
  EXPECT_CLIENT_ERROR(alice.ReleaseIpc(exported.lease), kNotFound, "no CUDA IPC lease");
}

TEST_F(IpcTest, AnotherTenantsMemoryIsNotExported) {
  if (!OnCuda(*server_)) GTEST_SKIP() << "needs the CUDA backend";
  Client alice = Connect("alice");
  Client bob = Connect("bob");
  auto a = alice.Zeros({16}, DType::kFloat32);
  alice.Publish(a, "shared", {.readers = {"bob"}, .all_tenants = false, .writable = true});
  auto attached = bob.Attach("shared", "alice");
  EXPECT_CLIENT_ERROR(bob.ExportIpc(attached), kFailedPrecondition, "belongs to tenant 'alice'");
  // A copy is bob's own memory.
  auto copy = bob.Ufunc("add", {attached, 0});
  EXPECT_EQ(bob.ExportIpc(copy).array.owner, "bob");
  // Each tenant has a pool of its own.
  EXPECT_NE(bob.ExportIpc(copy).pool_id, alice.ExportIpc(a).pool_id);
}

TEST(IpcSwitchTest, OffMeansFailedPrecondition) {
  arrayhub::ServerOptions options;
  options.limits.cuda_ipc = false;
  auto server = arrayhub::testing::StartTestServer(options);
  ASSERT_NE(server, nullptr);
  Client client = Client::Connect(server->address());
  auto a = client.Zeros({4});
  EXPECT_CLIENT_ERROR(client.ExportIpc(a), kFailedPrecondition, "switched off");
}

}  // namespace
