// The C++ client's same-host path: on a loopback address transfers go through a registered
// shared-memory region (growing as needed), or straight from and into pinned buffers, and the
// client streams instead when the server or ARRAYHUB_SHARED_MEMORY rules it out, with the same
// results either way; the server holds a descriptor for each live region and no other.
#include <gtest/gtest.h>

#include <cstdlib>
#include <numeric>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "arrayhub/client.h"
#include "tests/support/test_server.h"

namespace {

using arrayhub::client::Client;
using arrayhub::client::ClientOptions;
using arrayhub::client::DType;
using arrayhub::client::Error;
using arrayhub::client::PinnedBuffer;
using arrayhub::client::StatusCode;

std::vector<double> Ramp(size_t n) {
  std::vector<double> values(n);
  std::iota(values.begin(), values.end(), -3.25);
  return values;
}

class SharedMemoryClientTest : public ::testing::Test {
 protected:
  void Start(arrayhub::ServerOptions options = {},
             std::optional<bool> shared_memory = std::nullopt) {
    server_ = arrayhub::testing::StartTestServer(options);
    ASSERT_NE(server_, nullptr);
    ClientOptions transfers_only;  // Every upload here is a transfer: none is queued inline.
    transfers_only.inline_upload_bytes = 0;
    transfers_only.shared_memory = shared_memory;
    client_.emplace(Client::Connect(server_->address(), transfers_only));
  }
  // The client and server go first: nothing of the test runs while the variable changes.
  void TearDown() override {
    client_.reset();
    server_.reset();
    unsetenv("ARRAYHUB_SHARED_MEMORY");
  }

  Client& client() { return *client_; }
  // Descriptors of this client's objects the server holds (regions, and any waiting).
  int64_t ServerDescriptors() { return server_->engine().Stats().shared_memory_descriptors; }

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
  EXPECT_EQ(ServerDescriptors(), 1);  // The first region went when the larger came.
}

TEST_F(SharedMemoryClientTest, ZeroDisablesIt) {
  setenv("ARRAYHUB_SHARED_MEMORY", "0", 1);
  Start();
  const std::vector<double> values = Ramp(64);
  auto a = client().Upload(values, {8, 8});
  EXPECT_EQ(client().Download<double>(a), values);
  EXPECT_FALSE(client().UsesSharedMemory());
}

// ClientOptions::shared_memory decides for its client, whatever the environment says (set
// here before the test's server and client start: setenv beside another thread's getenv is a
// data race).
TEST_F(SharedMemoryClientTest, TheClientsOptionOffDecidesOverTheEnvironment) {
  setenv("ARRAYHUB_SHARED_MEMORY", "1", 1);
  Start({}, /*shared_memory=*/false);
  const std::vector<double> values = Ramp(64);
  auto a = client().Upload(values, {8, 8});
  EXPECT_EQ(client().Download<double>(a), values);
  EXPECT_FALSE(client().UsesSharedMemory());
  EXPECT_EQ(ServerDescriptors(), 0);
}

TEST_F(SharedMemoryClientTest, TheClientsOptionOnDecidesOverTheEnvironment) {
  setenv("ARRAYHUB_SHARED_MEMORY", "0", 1);
  Start({}, /*shared_memory=*/true);
  const std::vector<double> values = Ramp(64);
  auto a = client().Upload(values, {8, 8});
  EXPECT_TRUE(client().UsesSharedMemory());
  EXPECT_EQ(client().Download<double>(a), values);
  EXPECT_EQ(ServerDescriptors(), 1);
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
  EXPECT_EQ(ServerDescriptors(), 0);
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

// Standard normal float32 values from a generator seeded by `seed`.
void FillRandom(std::span<float> values, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal;
  for (float& value : values) value = normal(rng);
}

TEST_F(SharedMemoryClientTest, PinnedBuffersAndTheirPartsTransferWithoutTheRegion) {
  Start();
  constexpr size_t kCount = 3 << 16;  // 768 KiB of float32.
  PinnedBuffer source = client().AllocatePinned(kCount * sizeof(float));
  ASSERT_TRUE(source.registered());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(source.data()) % 4096, 0u);
  const std::span<float> values = source.as<float>();
  ASSERT_EQ(values.size(), kCount);
  FillRandom(values, 11);
  const std::vector<float> expected(values.begin(), values.end());

  auto whole = client().Upload<float>(values, {3, 1 << 16});
  // A part of the buffer, at an offset that is no multiple of anything but the element.
  auto part = client().Upload<float>(values.subspan(7, 1000), {1000});

  // Downloads into a pinned buffer and into a part of one.
  PinnedBuffer back = client().AllocatePinned(kCount * sizeof(float));
  client().DownloadInto(whole, back.bytes());
  EXPECT_TRUE(std::ranges::equal(back.as<float>(), expected));
  std::ranges::fill(back.as<float>(), 0.0f);
  client().DownloadInto(part, std::as_writable_bytes(back.as<float>().subspan(5, 1000)));
  EXPECT_TRUE(
      std::ranges::equal(back.as<float>().subspan(5, 1000), std::span(expected).subspan(7, 1000)));
  EXPECT_EQ(back.as<float>()[4], 0.0f);
  EXPECT_EQ(back.as<float>()[1005], 0.0f);
  // Every transfer went straight through the buffers: the session's region was never made.
  EXPECT_FALSE(client().UsesSharedMemory());
  EXPECT_EQ(client().Download<float>(part),
            std::vector<float>(expected.begin() + 7, expected.begin() + 1007));

  // Ordinary memory still goes through the region.
  auto copied = client().Upload(expected, {kCount});
  EXPECT_TRUE(client().UsesSharedMemory());
  EXPECT_EQ(client().Download<float>(copied), expected);
  EXPECT_EQ(ServerDescriptors(), 3);  // Two buffers and the region, nothing waiting.
}

TEST_F(SharedMemoryClientTest, PinnedBufferTransfersCheckSizesAndTypes) {
  Start();
  PinnedBuffer buffer = client().AllocatePinned(64 * sizeof(float));
  FillRandom(buffer.as<float>(), 12);
  try {
    client().UploadBytes(buffer.bytes().first(63 * sizeof(float)), DType::kFloat32, {64});
    FAIL() << "a short upload was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kInvalidArgument) << e.what();
  }
  auto a = client().Upload<float>(buffer.as<float>(), {8, 8});
  EXPECT_THROW(client().DownloadInto(a, buffer.bytes().first(10)), Error);
  try {
    (void)client().Download<double>(a);
    FAIL() << "a float32 array was downloaded as float64";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kInvalidArgument) << e.what();
  }
}

TEST_F(SharedMemoryClientTest, PinnedBuffersCountAgainstTheRegionLimitsUntilDestroyed) {
  arrayhub::ServerOptions options;
  options.limits.max_shared_memory_regions = 2;
  options.limits.max_shared_memory_bytes = 1 << 20;
  Start(options);
  std::optional<PinnedBuffer> first = client().AllocatePinned(1000);
  PinnedBuffer second = client().AllocatePinned(1000);
  try {
    client().AllocatePinned(1000);
    FAIL() << "a third region was registered";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kResourceExhausted);
    EXPECT_NE(std::string(e.what()).find("--max-shared-memory-regions 2"), std::string::npos)
        << e.what();
  }
  first.reset();  // Unregisters it: there is room again.
  PinnedBuffer third = client().AllocatePinned(1000);
  EXPECT_TRUE(third.registered());
  try {
    client().AllocatePinned((1 << 20) + 1);  // Rounded up to pages, over the bytes limit.
    FAIL() << "a region over --max-shared-memory-bytes was registered";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kResourceExhausted);
    EXPECT_NE(std::string(e.what()).find("--max-shared-memory-bytes"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(ServerDescriptors(), 2);  // The refused ones left nothing behind.
}

TEST_F(SharedMemoryClientTest, PinnedBuffersAreOrdinaryMemoryWhereSharedMemoryIsOff) {
  Start({}, /*shared_memory=*/false);
  PinnedBuffer buffer = client().AllocatePinned(100 * sizeof(float));
  EXPECT_FALSE(buffer.registered());
  EXPECT_TRUE(std::ranges::all_of(buffer.bytes(), [](std::byte b) { return b == std::byte{0}; }));
  FillRandom(buffer.as<float>(), 13);
  auto a = client().Upload<float>(buffer.as<float>(), {100});
  PinnedBuffer back = client().AllocatePinned(100 * sizeof(float));
  client().DownloadInto(a, back.bytes());
  EXPECT_TRUE(std::ranges::equal(back.bytes(), buffer.bytes()));
  EXPECT_FALSE(client().UsesSharedMemory());
}

TEST_F(SharedMemoryClientTest, PinnedBuffersOfAServerWithSharedMemoryOffAreOrdinaryMemory) {
  arrayhub::ServerOptions options;
  options.limits.shared_memory = false;
  Start(options);
  PinnedBuffer buffer = client().AllocatePinned(10 * sizeof(float));
  EXPECT_FALSE(buffer.registered());
  FillRandom(buffer.as<float>(), 14);
  auto a = client().Upload<float>(buffer.as<float>(), {10});
  EXPECT_TRUE(std::ranges::equal(client().Download<float>(a), buffer.as<float>()));
  EXPECT_EQ(ServerDescriptors(), 0);
}

TEST_F(SharedMemoryClientTest, APinnedBufferMayOutliveItsClient) {
  Start();
  PinnedBuffer buffer = client().AllocatePinned(4096);
  FillRandom(buffer.as<float>(), 15);
  client_.reset();  // The session closes and takes the region along.
  EXPECT_TRUE(buffer.registered());
  buffer.as<float>()[0] = 1.5f;  // Still mapped here.
  buffer = PinnedBuffer();       // Released with no session to tell.
  EXPECT_EQ(buffer.data(), nullptr);
}

}  // namespace
