// The C++ client against an in-process server: transfers (bit-exact for every dtype, empty,
// 0-d and 1 GiB arrays), creation functions, errors, and the lifetime of sessions and arrays.
#include "arrayhub/client.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "server/transport/metrics.h"
#include "tests/support/test_server.h"

namespace {

using arrayhub::client::Array;
using arrayhub::client::Client;
using arrayhub::client::ClientOptions;
using arrayhub::client::DType;
using arrayhub::client::Error;
using arrayhub::client::Shape;
using arrayhub::client::StatusCode;

// Passes when `body` throws an Error with `expected` as its code.
template <typename Body>
::testing::AssertionResult ThrowsCode(Body&& body, StatusCode expected) {
  try {
    body();
  } catch (const Error& error) {
    if (error.code() == expected) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "threw " << error.what();
  }
  return ::testing::AssertionFailure() << "threw nothing";
}

#define EXPECT_THROWS_CODE(statement, code) \
  EXPECT_TRUE(ThrowsCode([&] { statement; }, StatusCode::code)) << #statement

class ClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = arrayhub::testing::StartTestServer();
    ASSERT_NE(server_, nullptr);
    client_.emplace(Client::Connect(server_->address()));
  }

  Client& client() { return *client_; }
  // The server's counts once client()'s queued ops (and frees) have run.
  arrayhub::EngineStats Stats() {
    client().Synchronize();
    return server_->engine().Stats();
  }

  std::unique_ptr<arrayhub::ArrayHubServer> server_;
  std::optional<Client> client_;  // Declared after server_, so destroyed before it.
};

// ---------------------------------------------------------------------------------------------
// Bit-exact round trips
// ---------------------------------------------------------------------------------------------

// Random bit patterns, none all-zero (a zero could hide bytes that never arrived). For float
// types this gives NaNs with arbitrary payloads, infinities and subnormals.
template <typename T>
std::vector<T> RandomValues(size_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> values(count);
  for (T& value : values) {
    std::byte bits[sizeof(T)] = {};
    do {
      for (size_t i = 0; i < sizeof(T); i += sizeof(uint64_t)) {
        uint64_t word = rng();
        std::memcpy(bits + i, &word, std::min(sizeof(word), sizeof(T) - i));
      }
    } while (std::all_of(std::begin(bits), std::end(bits),
                         [](std::byte b) { return b == std::byte{0}; }));
    std::memcpy(&value, bits, sizeof(T));
  }
  return values;
}

// Bit patterns that a conversion through arithmetic would change: -0.0 and NaN payloads.
template <typename Float, typename Bits>
void PlantSpecialFloats(std::vector<Float>& values, std::initializer_list<Bits> patterns) {
  size_t i = 0;
  for (Bits pattern : patterns) std::memcpy(&values.at(i++), &pattern, sizeof(Float));
}

template <typename T>
std::vector<T> TestValues(size_t count, uint64_t seed) {
  if constexpr (std::is_same_v<T, bool>) {
    std::mt19937_64 rng(seed);
    std::vector<bool> values(count);
    for (size_t i = 0; i < count; ++i) values[i] = (rng() & 1) != 0;
    return values;
  } else {
    std::vector<T> values = RandomValues<T>(count, seed);
    if constexpr (std::is_same_v<T, float>) {
      PlantSpecialFloats<float, uint32_t>(
          values, {0x80000000u, 0x7fc12345u, 0xffc00001u, 0x7f800001u, 0x00000001u});
    } else if constexpr (std::is_same_v<T, double>) {
      PlantSpecialFloats<double, uint64_t>(
          values, {0x8000000000000000u, 0x7ff8000012345678u, 0xfff0000000000001u, 0x1u});
    }
    return values;
  }
}

template <typename T>
bool BitEqual(const std::vector<T>& a, const std::vector<T>& b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a == b;
  } else {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
  }
}

template <typename T>
class RoundTripTest : public ClientTest {};

using ElementTypes =
    ::testing::Types<bool, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t,
                     float, double, std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(RoundTripTest, ElementTypes);

TYPED_TEST(RoundTripTest, IsBitExact) {
  using T = TypeParam;
  const Shape shape = {3, 5, 7};
  Client& client = this->client();
  const std::vector<T> values = TestValues<T>(3 * 5 * 7, 42);
  Array array = client.Upload(values, shape);
  EXPECT_EQ(array.dtype(), arrayhub::client::DTypeOf<T>::value);
  EXPECT_EQ(array.shape(), shape);
  EXPECT_EQ(array.size(), 105);
  EXPECT_EQ(array.nbytes(), 105 * arrayhub::client::ItemSize(array.dtype()));
  EXPECT_TRUE(BitEqual(client.Download<T>(array), values));
}

// Small chunks make both directions cross many message boundaries, unaligned to elements.
TYPED_TEST(RoundTripTest, IsBitExactAcrossManyChunks) {
  using T = TypeParam;
  ClientOptions options;
  options.chunk_bytes = 1000;
  Client client = Client::Connect(this->server_->address(), options);
  const std::vector<T> values = TestValues<T>(33 * 65, 7);
  Array array = client.Upload(values, {33, 65});
  EXPECT_TRUE(BitEqual(client.Download<T>(array), values));
}

// Streams in parallel, each a range of the array on a connection of its own: ranges of whole
// chunks and a short last one, and arrays too small for every stream to get a range.
TEST_F(ClientTest, StripedStreamsRoundTripBitExactly) {
  ClientOptions options;
  options.chunk_bytes = 4096;
  options.transfer_streams = 3;
  options.stripe_min_bytes = 1;
  options.shared_memory = false;
  Client striped = Client::Connect(server_->address(), options);
  ASSERT_FALSE(striped.UsesSharedMemory());
  const arrayhub::EngineStats before = Stats();
  for (int64_t count : {int64_t{33} * 1001, int64_t{1}, int64_t{600}}) {
    SCOPED_TRACE(count);
    const std::vector<double> values = RandomValues<double>(static_cast<size_t>(count), 17);
    {
      Array array = striped.Upload(values, {count});
      EXPECT_EQ(array.nbytes(), count * 8);
      EXPECT_TRUE(BitEqual(striped.Download<double>(array), values));
      EXPECT_EQ(Stats().arrays, before.arrays + 1) << "one array, whatever the streams";
    }
    striped.Synchronize();  // Pipelined, the free goes with striped's next batch.
    EXPECT_EQ(Stats().bytes_in_use, before.bytes_in_use);
  }
  // 3 chunks and 1 byte: a third of it rounds down to a whole chunk, so three whole-chunk
  // ranges would leave the last byte out.
  const std::vector<uint8_t> bytes = RandomValues<uint8_t>(3 * 4096 + 1, 18);
  Array array = striped.Upload(bytes, {3 * 4096 + 1});
  EXPECT_EQ(striped.Download<uint8_t>(array), bytes);
}

TEST_F(ClientTest, PingIsAHealthCheckOnTheSameChannel) {
  client().Ping();
  client().Ping();
}

TEST_F(ClientTest, Float16RoundTripsThroughBytes) {
  std::vector<uint16_t> values = RandomValues<uint16_t>(4 * 64, 16);
  values[0] = 0x8000;  // -0.0
  values[1] = 0x7e01;  // Quiet NaN with a payload.
  values[2] = 0x7c01;  // Signalling NaN.
  values[3] = 0x0001;  // Smallest subnormal.
  const auto bytes = std::as_bytes(std::span(values));
  Array array = client().UploadBytes(bytes, DType::kFloat16, {4, 64});
  EXPECT_EQ(array.dtype(), DType::kFloat16);
  EXPECT_EQ(array.nbytes(), 512);
  std::vector<std::byte> back = client().DownloadBytes(array);
  ASSERT_EQ(back.size(), bytes.size());
  EXPECT_EQ(std::memcmp(back.data(), bytes.data(), bytes.size()), 0);
}

TEST_F(ClientTest, ZeroSizeArraysRoundTrip) {
  for (const Shape& shape : {Shape{0}, Shape{3, 0}, Shape{0, 4, 2}}) {
    Array array = client().Upload(std::vector<float>{}, shape);
    EXPECT_EQ(array.shape(), shape);
    EXPECT_EQ(array.size(), 0);
    EXPECT_EQ(array.nbytes(), 0);
    EXPECT_TRUE(client().Download<float>(array).empty());
    EXPECT_TRUE(client().DownloadBytes(array).empty());
    EXPECT_EQ(client().Describe(array.handle()).shape, shape);
  }
}

TEST_F(ClientTest, ZeroDimensionalArrayRoundTrips) {
  Array array = client().Upload(std::vector<double>{-2.75}, {});
  EXPECT_TRUE(array.shape().empty());
  EXPECT_EQ(array.size(), 1);
  EXPECT_EQ(array.nbytes(), 8);
  EXPECT_EQ(client().Download<double>(array), std::vector<double>{-2.75});
}

TEST_F(ClientTest, OneGibibyteFloat32RoundTripIsBitExact) {
  constexpr size_t kCount = size_t{1} << 28;  // 1 GiB of float32.
  const arrayhub::EngineStats before = Stats();

  // Two float bit patterns per draw keeps generation quick; zero patterns are replaced.
  std::vector<float> values(kCount);
  std::mt19937_64 rng(1234);
  for (size_t i = 0; i < kCount; i += 2) {
    uint64_t word = rng();
    uint32_t halves[2] = {static_cast<uint32_t>(word), static_cast<uint32_t>(word >> 32)};
    for (uint32_t& half : halves) half = half == 0 ? 1 : half;
    std::memcpy(&values[i], halves, sizeof(halves));
  }

  using Clock = std::chrono::steady_clock;
  auto seconds_since = [](Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  Clock::time_point start = Clock::now();
  Array array = client().Upload(values, {static_cast<int64_t>(kCount)});
  const double upload_s = seconds_since(start);
  EXPECT_EQ(array.nbytes(), int64_t{1} << 30);

  // The download goes into a second buffer: the two plus the server's copy make ~3 GiB.
  std::vector<float> back(kCount);
  start = Clock::now();
  client().DownloadInto(array, std::as_writable_bytes(std::span(back)));
  const double download_s = seconds_since(start);
  EXPECT_EQ(std::memcmp(back.data(), values.data(), kCount * sizeof(float)), 0);
  std::printf("1 GiB float32: upload %.2f s (%.0f MiB/s), download %.2f s (%.0f MiB/s)\n", upload_s,
              1024 / upload_s, download_s, 1024 / download_s);

  array = Array();
  EXPECT_EQ(Stats().bytes_in_use, before.bytes_in_use);
  EXPECT_EQ(Stats().arrays, before.arrays);
}

// ---------------------------------------------------------------------------------------------
// Creation
// ---------------------------------------------------------------------------------------------

TEST_F(ClientTest, ZerosOnesEmpty) {
  Array zeros = client().Zeros({2, 3});
  EXPECT_EQ(zeros.dtype(), DType::kFloat64);
  EXPECT_EQ(zeros.shape(), (Shape{2, 3}));
  EXPECT_EQ(client().Download<double>(zeros), std::vector<double>(6, 0.0));

  Array ones = client().Ones({4}, DType::kInt32);
  EXPECT_EQ(client().Download<int32_t>(ones), std::vector<int32_t>(4, 1));

  Array empty = client().Empty({5}, DType::kUInt8);
  EXPECT_EQ(empty.dtype(), DType::kUInt8);
  EXPECT_EQ(empty.nbytes(), 5);
}

TEST_F(ClientTest, FullTakesNumPysDTypeFromTheValue) {
  Array ints = client().Full({2, 2}, 7);
  EXPECT_EQ(ints.dtype(), DType::kInt64);
  EXPECT_EQ(client().Download<int64_t>(ints), std::vector<int64_t>(4, 7));

  Array floats = client().Full({3}, 2.5, DType::kFloat32);
  EXPECT_EQ(client().Download<float>(floats), std::vector<float>(3, 2.5f));

  Array bools = client().Full({2}, true);
  EXPECT_EQ(bools.dtype(), DType::kBool);
  EXPECT_EQ(client().Download<bool>(bools), std::vector<bool>(2, true));

  const std::complex<double> z(1.5, -2.0);
  Array complexes = client().Full({2}, z);
  EXPECT_EQ(complexes.dtype(), DType::kComplex128);
  EXPECT_EQ(client().Download<std::complex<double>>(complexes),
            std::vector<std::complex<double>>(2, z));

  Array big = client().Full({1}, std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(big.dtype(), DType::kUInt64);
  EXPECT_EQ(client().Download<uint64_t>(big),
            std::vector<uint64_t>{std::numeric_limits<uint64_t>::max()});
}

TEST_F(ClientTest, Arange) {
  Array ints = client().Arange(-3, 7, 2);
  EXPECT_EQ(ints.dtype(), DType::kInt64);
  EXPECT_EQ(client().Download<int64_t>(ints), (std::vector<int64_t>{-3, -1, 1, 3, 5}));

  Array floats = client().Arange(0.0, 1.0, 0.25);
  EXPECT_EQ(floats.dtype(), DType::kFloat64);
  EXPECT_EQ(client().Download<double>(floats), (std::vector<double>{0, 0.25, 0.5, 0.75}));

  Array typed = client().Arange(0, 3, 1, DType::kFloat32);
  EXPECT_EQ(client().Download<float>(typed), (std::vector<float>{0, 1, 2}));
}

TEST_F(ClientTest, Linspace) {
  Array array = client().Linspace(0, 1, 5);
  EXPECT_EQ(array.dtype(), DType::kFloat64);
  EXPECT_EQ(client().Download<double>(array), (std::vector<double>{0, 0.25, 0.5, 0.75, 1}));

  Array open = client().Linspace(0, 1, 4, /*endpoint=*/false);
  EXPECT_EQ(client().Download<double>(open), (std::vector<double>{0, 0.25, 0.5, 0.75}));
}

TEST_F(ClientTest, Eye) {
  Array array = client().Eye(3, 4, 1);
  EXPECT_EQ(array.dtype(), DType::kFloat64);
  EXPECT_EQ(array.shape(), (Shape{3, 4}));
  EXPECT_EQ(client().Download<double>(array), (std::vector<double>{0, 1, 0, 0,  //
                                                                   0, 0, 1, 0,  //
                                                                   0, 0, 0, 1}));

  Array square = client().Eye(2, std::nullopt, 0, DType::kInt8);
  EXPECT_EQ(client().Download<int8_t>(square), (std::vector<int8_t>{1, 0, 0, 1}));
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

TEST_F(ClientTest, DownloadWithTheWrongTypeIsInvalidArgument) {
  Array ints = client().Arange(0, 4);
  EXPECT_THROWS_CODE(client().Download<double>(ints), kInvalidArgument);
  EXPECT_THROWS_CODE(client().Download<uint64_t>(ints), kInvalidArgument);
  Array floats = client().Zeros({2}, DType::kFloat32);
  EXPECT_THROWS_CODE(client().Download<int32_t>(floats), kInvalidArgument);
}

TEST_F(ClientTest, DescribeUnknownAndMalformedHandles) {
  EXPECT_THROWS_CODE(client().Describe("0123456789abcdef0123456789abcdef"), kNotFound);
  EXPECT_THROWS_CODE(client().Describe("xyz"), kInvalidArgument);
}

TEST_F(ClientTest, ErrorCarriesCodeAndServerMessage) {
  try {
    client().Describe("xyz");
    FAIL() << "Describe(\"xyz\") did not throw";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), StatusCode::kInvalidArgument);
    EXPECT_FALSE(error.message().empty());
    EXPECT_EQ(std::string(error.what()), "INVALID_ARGUMENT: " + error.message());
  }
}

TEST_F(ClientTest, UploadOfTheWrongSizeIsInvalidArgument) {
  EXPECT_THROWS_CODE(client().Upload(std::vector<float>(5), {2, 3}), kInvalidArgument);
  EXPECT_THROWS_CODE(client().UploadBytes(std::vector<std::byte>(3), DType::kFloat16, {2}),
                     kInvalidArgument);
}

TEST_F(ClientTest, ConnectToNothingIsUnavailable) {
  // Take a free port by starting a server and stopping it again.
  std::string address;
  {
    auto other = arrayhub::testing::StartTestServer();
    ASSERT_NE(other, nullptr);
    address = other->address();
  }
  EXPECT_THROWS_CODE(Client::Connect(address), kUnavailable);
}

// ---------------------------------------------------------------------------------------------
// Sessions and lifetimes
// ---------------------------------------------------------------------------------------------

TEST_F(ClientTest, SessionAndServerInfo) {
  EXPECT_EQ(client().session_id().size(), 32u);
  EXPECT_NO_THROW(client().KeepAlive());
  arrayhub::client::ServerInfo info = client().Info();
  EXPECT_FALSE(info.version.empty());
  EXPECT_FALSE(info.backend.empty());
  EXPECT_FALSE(info.devices.empty());
  EXPECT_EQ(info.sessions, Stats().sessions);
  EXPECT_GT(info.limits.max_chunk_bytes, 0);
}

TEST_F(ClientTest, DestroyingAnArrayFreesItsServerMemory) {
  const arrayhub::EngineStats before = Stats();
  {
    Array array = client().Zeros({1000});
    EXPECT_EQ(Stats().arrays, before.arrays + 1);
    EXPECT_EQ(Stats().bytes_in_use, before.bytes_in_use + 8000);
  }
  EXPECT_EQ(Stats().arrays, before.arrays);
  EXPECT_EQ(Stats().bytes_in_use, before.bytes_in_use);
}

TEST_F(ClientTest, ReleasedArraysStayUntilFreedByHandle) {
  const int64_t before = Stats().arrays;
  Array array = client().Ones({3});
  const std::string handle = array.Release();
  EXPECT_FALSE(array);
  EXPECT_TRUE(array.handle().empty());
  EXPECT_EQ(Stats().arrays, before + 1);
  EXPECT_EQ(client().Describe(handle).shape, Shape{3});
  client().Free(handle);
  EXPECT_EQ(Stats().arrays, before);
}

TEST_F(ClientTest, DescribeAndList) {
  Array array = client().Zeros({2, 3}, DType::kInt16);
  arrayhub::client::ArrayInfo info = client().Describe(array.handle());
  EXPECT_EQ(info.handle, array.handle());
  EXPECT_EQ(info.dtype, DType::kInt16);
  EXPECT_EQ(info.shape, (Shape{2, 3}));
  EXPECT_EQ(info.strides, (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(info.nbytes, 12);
  EXPECT_TRUE(info.c_contiguous);
  EXPECT_TRUE(info.owns_data);

  std::vector<arrayhub::client::ArrayInfo> listed = client().List();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].handle, array.handle());
}

TEST_F(ClientTest, DestroyingTheClientClosesTheSessionAndFreesItsArrays) {
  const arrayhub::EngineStats before = Stats();
  Array outlives_client;
  {
    Client other = Client::Connect(server_->address());
    outlives_client = other.Zeros({1000});
    other.Ones({10}).Release();
    EXPECT_EQ(Stats().sessions, before.sessions + 1);
    EXPECT_EQ(Stats().arrays, before.arrays + 2);
  }
  EXPECT_EQ(Stats().sessions, before.sessions);
  EXPECT_EQ(Stats().arrays, before.arrays);
  EXPECT_EQ(Stats().bytes_in_use, before.bytes_in_use);
  // Its session is gone: destroying the Array must neither throw nor touch anything else.
  EXPECT_TRUE(outlives_client);
  outlives_client = Array();
  EXPECT_EQ(Stats().arrays, before.arrays);
}

TEST_F(ClientTest, MovingAClientKeepsTheSessionAndItsArrays) {
  const arrayhub::EngineStats before = Stats();
  Client first = Client::Connect(server_->address());
  const std::string session = first.session_id();
  Array array = first.Arange(0, 3);

  Client second = std::move(first);
  EXPECT_EQ(second.session_id(), session);
  EXPECT_THROWS_CODE(first.session_id(), kFailedPrecondition);
  EXPECT_EQ(Stats().sessions, before.sessions + 1);
  EXPECT_EQ(second.Download<int64_t>(array), (std::vector<int64_t>{0, 1, 2}));

  Client third = Client::Connect(server_->address());
  third = std::move(second);  // Closes third's own session, takes over second's.
  EXPECT_EQ(third.session_id(), session);
  EXPECT_EQ(Stats().sessions, before.sessions + 1);
  array = Array();
  third.Synchronize();  // Pipelined, the free goes with third's next batch.
  EXPECT_EQ(Stats().arrays, before.arrays);
}

TEST_F(ClientTest, MovingAnArrayTransfersOwnership) {
  const int64_t before = Stats().arrays;
  Array first = client().Arange(0, 5);
  const std::string handle = first.handle();

  Array second = std::move(first);
  EXPECT_FALSE(first);
  EXPECT_TRUE(first.handle().empty());
  EXPECT_EQ(second.handle(), handle);
  EXPECT_EQ(Stats().arrays, before + 1);

  Array third = client().Ones({2});
  EXPECT_EQ(Stats().arrays, before + 2);
  third = std::move(second);  // Frees the ones, takes over the arange.
  EXPECT_EQ(Stats().arrays, before + 1);
  EXPECT_EQ(third.handle(), handle);
  EXPECT_EQ(client().Download<int64_t>(third), (std::vector<int64_t>{0, 1, 2, 3, 4}));
}

// ---------------------------------------------------------------------------------------------
// Events
// ---------------------------------------------------------------------------------------------

// The server times the work queued between two records: a sort of 2^20 values, then nothing.
TEST_F(ClientTest, EventsTimeTheWorkRecordedBetweenThem) {
  client().RecordEvent(1);
  const Array sorted = client().Sort(client().RandomUniform({int64_t{1} << 20}));
  client().RecordEvent(2);
  client().RecordEvent(3);
  const double big = client().ElapsedMilliseconds(1, 2);
  EXPECT_GT(big, 0);
  EXPECT_GT(big, client().ElapsedMilliseconds(2, 3));
  EXPECT_EQ(sorted.shape(), (Shape{int64_t{1} << 20}));
  EXPECT_THROWS_CODE(client().ElapsedMilliseconds(1, 9), kNotFound);
  // Queued, its error comes at the next wait (at once in sync mode).
  EXPECT_THROWS_CODE(
      {
        client().RecordEvent(0);
        client().Synchronize();
      },
      kInvalidArgument);
  // Another session's ids are not this one's.
  Client other = Client::Connect(server_->address());
  EXPECT_THROWS_CODE(other.ElapsedMilliseconds(1, 2), kNotFound);
}

// Asked after queued ops, the elapsed time rides in their batch: no EventElapsedTime call.
// Its refusal fails none of them.
TEST_F(ClientTest, AnElapsedTimeAskedAfterQueuedOpsRidesWithThem) {
  client().RecordEvent(1);
  const Array sorted = client().Sort(client().RandomUniform({int64_t{1} << 16}));
  client().RecordEvent(2);
  EXPECT_GT(client().ElapsedMilliseconds(1, 2), 0);
  const Array tripled = client().Ufunc("multiply", {client().Arange(0.0, 5.0), 3.0});
  EXPECT_THROWS_CODE(client().ElapsedMilliseconds(1, 9), kNotFound);
  EXPECT_EQ(client().Download<double>(tripled), (std::vector<double>{0, 3, 6, 9, 12}));
  EXPECT_EQ(server_->metrics().Text().find("method=\"EventElapsedTime\""), std::string::npos);
  // With nothing queued it is a call of its own.
  EXPECT_GT(client().ElapsedMilliseconds(1, 2), 0);
  EXPECT_NE(server_->metrics().Text().find("method=\"EventElapsedTime\""), std::string::npos);
  EXPECT_EQ(sorted.shape(), (Shape{int64_t{1} << 16}));
}

}  // namespace
