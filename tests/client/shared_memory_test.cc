// The C++ client's same-host path: on a loopback address transfers go through a registered
// shared-memory region (growing as needed), and the client streams instead when the server or
// ARRAYHUB_SHARED_MEMORY rules it out, with the same results either way.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "arrayhub/client.h"
#include "tests/support/test_server.h"

namespace {

using arrayhub::client::Client;
using arrayhub::client::DType;

std::vector<double> Ramp(size_t n) {
  std::vector<double> values(n);
  std::iota(values.begin(), values.end(), -3.25);
  return values;
}

// Objects of this process left in /dev/shm: the client removes each name once registered.
int LeftInDevShm() {
  const std::string prefix = "arrayhub-" + std::to_string(getpid()) + "-";
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/dev/shm")) {
    if (entry.path().filename().string().starts_with(prefix)) ++count;
  }
  return count;
}

class SharedMemoryClientTest : public ::testing::Test {
 protected:
  void Start(arrayhub::ServerOptions options = {}) {
    server_ = arrayhub::testing::StartTestServer(options);
    ASSERT_NE(server_, nullptr);
    client_.emplace(Client::Connect(server_->address()));
  }
  void TearDown() override { unsetenv("ARRAYHUB_SHARED_MEMORY"); }

  Client& client() { return *client_; }

  std::unique_ptr<arrayhub::ArrayHubServer> server_;
  std::optional<Client> client_;
};

TEST_F(SharedMemoryClientTest, LoopbackTransfersGoThroughSharedMemory) {
  Start();
  EXPECT_FALSE(client().UsesSharedMemory());  // Made at the first transfer.
  const std::vector<double> small = Ramp(1000);
  auto a = client().Upload(small, {10, 100});
  EXPECT_TRUE(client().UsesSharedMemory());
  EXPECT_EQ(client().Download<double>(a), small);
  // Computed on the server, downloaded through the region.
  auto doubled = client().Ufunc("multiply", {a, 2.0});
  std::vector<double> expected = small;
  for (double& v : expected) v *= 2;
  EXPECT_EQ(client().Download<double>(doubled), expected);

  // Larger than the first 1 MiB region: a larger one replaces it.
  const std::vector<double> large = Ramp(3 << 17);  // 3 MiB.
  auto b = client().Upload(large, {3 << 17});
  EXPECT_TRUE(client().UsesSharedMemory());
  EXPECT_EQ(client().Download<double>(b), large);
  EXPECT_EQ(LeftInDevShm(), 0);
}

TEST_F(SharedMemoryClientTest, ZeroDisablesIt) {
  setenv("ARRAYHUB_SHARED_MEMORY", "0", 1);
  Start();
  const std::vector<double> values = Ramp(64);
  auto a = client().Upload(values, {8, 8});
  EXPECT_EQ(client().Download<double>(a), values);
  EXPECT_FALSE(client().UsesSharedMemory());
}

TEST_F(SharedMemoryClientTest, ServerWithSharedMemoryOffIsStreamedTo) {
  arrayhub::ServerOptions options;
  options.limits.shared_memory = false;
  Start(options);
  const std::vector<double> values = Ramp(64);
  auto a = client().Upload(values, {64});
  EXPECT_EQ(client().Download<double>(a), values);
  EXPECT_FALSE(client().UsesSharedMemory());
  auto b = client().Upload(values, {64});  // Not asked again: still streamed, still right.
  EXPECT_EQ(client().Download<double>(b), values);
  EXPECT_EQ(LeftInDevShm(), 0);
}

TEST_F(SharedMemoryClientTest, TransfersOverTheServersRegionLimitStream) {
  arrayhub::ServerOptions options;
  options.limits.max_shared_memory_bytes = 2 << 20;
  Start(options);
  const std::vector<double> large = Ramp(1 << 19);  // 4 MiB: more than a region may hold.
  auto a = client().Upload(large, {1 << 19});
  EXPECT_EQ(client().Download<double>(a), large);
  EXPECT_FALSE(client().UsesSharedMemory());
  // A transfer that fits uses a region again.
  const std::vector<double> small = Ramp(10);
  auto b = client().Upload(small, {10});
  EXPECT_TRUE(client().UsesSharedMemory());
  EXPECT_EQ(client().Download<double>(b), small);
}

}  // namespace
