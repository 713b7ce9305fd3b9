// CUDA IPC export through the C++ client: leases, pool tickets and the IPC socket, and every
// refusal with its code. Mapping the memory needs a second process (CUDA does not import a
// process's own pool); client_python/tests/test_cuda_ipc.py does that with CuPy.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "arrayhub/client.h"
#include "server/transport/ipc_socket.h"
#include "tests/support/client_expect.h"
#include "tests/support/test_server.h"
#include "tests/transport/tenants_fixture.h"

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

// The IPC socket on its own, with a stand-in for the engine's ticket check: a memfd plays the
// pool's descriptor.
class IpcSocketTest : public ::testing::Test {
 protected:
  static absl::StatusOr<arrayhub::PoolDescriptor> Redeem(std::string_view ticket) {
    if (ticket != "good-ticket") return absl::NotFoundError("unknown ticket in this test");
    const int fd = memfd_create("pool", MFD_CLOEXEC);
    const std::string content = "pool bytes";
    EXPECT_EQ(write(fd, content.data(), content.size()), static_cast<ssize_t>(content.size()));
    return arrayhub::PoolDescriptor{.pool_id = "pool-1", .fd = arrayhub::OwnedFd(fd)};
  }
  static IpcExport ExportFor(const std::string& path, const std::string& ticket) {
    IpcExport exported;
    exported.socket_path = path;
    exported.pool_ticket = ticket;
    exported.pool_id = "pool-1";
    return exported;
  }
  static std::string ReadAll(int fd) {
    char buffer[64] = {};
    const ssize_t got = pread(fd, buffer, sizeof(buffer), 0);
    close(fd);
    return std::string(buffer, got > 0 ? static_cast<size_t>(got) : 0);
  }
};

TEST_F(IpcSocketTest, HandsTheDescriptorForAGoodTicketOnly) {
  auto socket = arrayhub::IpcSocket::Start("", &Redeem);
  ASSERT_TRUE(socket.ok()) << socket.status();
  const std::string path = (*socket)->path();
  EXPECT_EQ(ReadAll(arrayhub::client::FetchPoolDescriptor(ExportFor(path, "good-ticket"))),
            "pool bytes");
  EXPECT_CLIENT_ERROR(arrayhub::client::FetchPoolDescriptor(ExportFor(path, "bad")), kNotFound,
                      "NOT_FOUND: unknown ticket in this test");
  // A reply for another pool than the export names is refused.
  IpcExport other = ExportFor(path, "good-ticket");
  other.pool_id = "pool-2";
  EXPECT_CLIENT_ERROR(arrayhub::client::FetchPoolDescriptor(other), kDataLoss,
                      "unexpected reply 'OK pool-1' for pool 'pool-2'");
}

TEST_F(IpcSocketTest, ASilentClientDoesNotHoldUpTheNext) {
  auto socket = arrayhub::IpcSocket::Start("", &Redeem);
  ASSERT_TRUE(socket.ok()) << socket.status();
  // Connects and says nothing: the server gives up on it after a second.
  IpcExport silent = ExportFor((*socket)->path(), "");
  const int idle = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, silent.socket_path.data(), silent.socket_path.size());
  address.sun_path[0] = '\0';
  ASSERT_EQ(
      connect(idle, reinterpret_cast<const sockaddr*>(&address),
              static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + silent.socket_path.size())),
      0);
  EXPECT_EQ(
      ReadAll(arrayhub::client::FetchPoolDescriptor(ExportFor((*socket)->path(), "good-ticket"))),
      "pool bytes");
  close(idle);
}

TEST_F(IpcSocketTest, AFilesystemPathIsRemovedWithTheSocket) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("arrayhub-ipc-test-" + std::to_string(getpid())))
          .string();
  {
    auto socket = arrayhub::IpcSocket::Start(path, &Redeem);
    ASSERT_TRUE(socket.ok()) << socket.status();
    EXPECT_TRUE(std::filesystem::exists(path));
    EXPECT_EQ(ReadAll(arrayhub::client::FetchPoolDescriptor(ExportFor(path, "good-ticket"))),
              "pool bytes");
  }
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_CLIENT_ERROR(arrayhub::client::FetchPoolDescriptor(ExportFor(path, "x")), kUnavailable,
                      "IPC socket " + path);
}

TEST_F(IpcSocketTest, AStaleSocketFileIsReplacedButALiveOneIsNot) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("arrayhub-ipc-stale-" + std::to_string(getpid())))
          .string();
  // What a daemon killed with SIGKILL leaves: a socket file nothing listens on.
  const int dead = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.data(), path.size());
  ASSERT_EQ(bind(dead, reinterpret_cast<const sockaddr*>(&address), sizeof(address)), 0);
  close(dead);
  ASSERT_TRUE(std::filesystem::exists(path));

  auto socket = arrayhub::IpcSocket::Start(path, &Redeem);
  ASSERT_TRUE(socket.ok()) << socket.status();
  EXPECT_EQ(ReadAll(arrayhub::client::FetchPoolDescriptor(ExportFor(path, "good-ticket"))),
            "pool bytes");
  // A second daemon configured with the same path must not take the live socket away.
  auto second = arrayhub::IpcSocket::Start(path, &Redeem);
  EXPECT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find("cannot listen on"), std::string::npos)
      << second.status();
  EXPECT_EQ(ReadAll(arrayhub::client::FetchPoolDescriptor(ExportFor(path, "good-ticket"))),
            "pool bytes");
}

}  // namespace
