// The CUDA backend's fills against the host backend's, byte for byte, on random data and every
// dtype; the contract both keep is in cuda_conformance_test.cc. Runs only where there is a GPU.
#include "server/backend/cuda/cuda_backend.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "server/backend/host/host_backend.h"
#include "tests/backend/backend_io.h"
#include "tests/backend/cuda_fixture.h"
#include "tests/support/test_queue.h"

namespace arrayhub {
namespace {

Bytes RandomBytes(size_t n, std::mt19937_64& rng) {
  Bytes bytes(n);
  for (size_t i = 0; i < n; i += sizeof(uint64_t)) {
    const uint64_t word = rng();
    std::memcpy(bytes.data() + i, &word, std::min(sizeof(word), n - i));
  }
  return bytes;
}

// Equal bytes, or a message naming the first element (of `item_size` bytes) that differs.
testing::AssertionResult SameBytes(const Bytes& cuda, const Bytes& host, size_t item_size) {
  if (cuda.size() != host.size()) {
    return testing::AssertionFailure() << "sizes differ: " << cuda.size() << " vs " << host.size();
  }
  const auto at = std::mismatch(cuda.begin(), cuda.end(), host.begin()).first;
  if (at == cuda.end()) return testing::AssertionSuccess();
  const size_t first = static_cast<size_t>(at - cuda.begin()) / item_size * item_size;
  auto hex = [&](const Bytes& bytes) {
    std::string out;
    for (size_t i = first; i < std::min(first + item_size, bytes.size()); ++i) {
      absl::StrAppend(&out, absl::Hex(std::to_integer<int>(bytes[i]), absl::kZeroPad2));
    }
    return out;
  };
  const auto differing = std::inner_product(cuda.begin(), cuda.end(), host.begin(), size_t{0},
                                            std::plus<>(), std::not_equal_to<>());
  return testing::AssertionFailure()
         << differing << " bytes differ; first in element " << first / item_size << " (byte "
         << first << "): cuda " << hex(cuda) << ", host " << hex(host) << " (memory order)";
}

class CudaBackendTest : public CudaFixture {
 protected:
  // Runs `op` on each backend, on a buffer first holding `initial`, and compares the results.
  template <typename Op>
  void ExpectSameOnBoth(const Bytes& initial, size_t item_size, Op op) {
    absl::StatusOr<std::shared_ptr<Buffer>> on_cuda = Upload(*cuda_, initial);
    absl::StatusOr<std::shared_ptr<Buffer>> on_host = Upload(host_, initial);
    ASSERT_TRUE(on_cuda.ok()) << on_cuda.status();
    ASSERT_TRUE(on_host.ok()) << on_host.status();
    const absl::Status cuda_status = op(*cuda_, **on_cuda);
    ASSERT_TRUE(cuda_status.ok()) << cuda_status;
    const absl::Status host_status = op(host_, **on_host);
    ASSERT_TRUE(host_status.ok()) << host_status;
    absl::StatusOr<Bytes> from_cuda = Download(*cuda_, **on_cuda);
    absl::StatusOr<Bytes> from_host = Download(host_, **on_host);
    ASSERT_TRUE(from_cuda.ok()) << from_cuda.status();
    ASSERT_TRUE(from_host.ok()) << from_host.status();
    EXPECT_TRUE(SameBytes(*from_cuda, *from_host, item_size));
  }

  HostBackend host_;
};

// Fills of `dtype` in both modes; integer linspace stays inside the dtype's range, since
// converting an out-of-range double is undefined on the host.
std::vector<AffineFill> AffineCases(DType dtype) {
  std::vector<AffineFill> cases;
  auto add = [&](bool float64_math, int64_t count, std::complex<double> start,
                 std::complex<double> step) {
    cases.push_back({.dtype = dtype,
                     .count = count,
                     .start = start,
                     .step = step,
                     .float64_math = float64_math});
  };
  if (IsInteger(dtype)) {
    for (auto [start, step] : std::initializer_list<std::pair<int64_t, int64_t>>{
             {-5, 3},
             {100, 7},  // Wraps around in int8 at the fourth element.
             {std::numeric_limits<int64_t>::max() - 1000, 1'234'567'891'011}}) {
      cases.push_back({.dtype = dtype,
                       .count = 100'003,
                       .int_start = start,
                       .int_step = step,
                       .float64_math = false});
    }
    const bool is_unsigned = KindOf(dtype) == DTypeKind::kUnsigned;
    add(true, 300, is_unsigned ? 2.5 : -3.7, 0.37);
    add(true, 200, is_unsigned ? 0.0 : -2.0, 0.5);
    return cases;
  }
  for (bool float64_math : {false, true}) {
    add(float64_math, 200'003, {-3.7, 1.25}, {0.37, -0.11});    // float16 overflows to inf.
    add(float64_math, 1000, -2.0, 0.5);                         // Exact values through zero.
    add(float64_math, 100'000, {1e6 + 0.3, -7e5}, {1.1, 0.3});  // float32 rounding shows.
    add(float64_math, 1000, {1e-7, -2e-6}, {-3e-9, 1e-9});      // float16 subnormals.
  }
  // Sample 1 is 1 + 2^-11 + 2^-40: float16 must round it once (up), not via float (down).
  add(true, 8, 1.0, std::ldexp(1.0, -11) + std::ldexp(1.0, -40));
  return cases;
}

TEST_F(CudaBackendTest, FillAffineMatchesHostForEveryDType) {
  std::mt19937_64 rng(0xaff1);
  for (DType dtype : kAllDTypes) {
    for (const AffineFill& fill : AffineCases(dtype)) {
      SCOPED_TRACE(fmt::format(
          "{}{} count {} int {}+i*{} float ({},{})+i*({},{})", std::string(DTypeName(dtype)),
          fill.float64_math ? " linspace" : " arange", fill.count, fill.int_start, fill.int_step,
          fill.start.real(), fill.start.imag(), fill.step.real(), fill.step.imag()));
      // Random bytes beyond the last element show any write past the end.
      const Bytes initial = RandomBytes(fill.count * ItemSize(dtype) + 64, rng);
      ExpectSameOnBoth(initial, ItemSize(dtype), [&](Backend& backend, Buffer& buffer) {
        return backend.memory().FillAffine(TestQueue(backend), buffer, fill);
      });
    }
  }
}

TEST_F(CudaBackendTest, FillPatternMatchesHost) {
  std::mt19937_64 rng(0x9a77e2);
  constexpr int64_t kCount = 10'000;
  for (int64_t size : {1, 2, 3, 4, 8, 12, 16}) {
    for (int64_t stride : {size, 2 * size, size + 1, 3 * size + 5}) {
      for (int64_t offset : {0, 1, 16}) {
        const Bytes random = RandomBytes(size, rng);
        const Bytes zeros(size);
        const Bytes repeated(size, std::byte{0xa5});
        for (const Bytes* pattern : {&random, &zeros, &repeated}) {
          SCOPED_TRACE(fmt::format("pattern size {} stride {} offset {}{}", size, stride, offset,
                                   pattern == &random ? " random" : " constant"));
          const Bytes initial = RandomBytes(offset + (kCount - 1) * stride + size + 64, rng);
          ExpectSameOnBoth(initial, 1, [&](Backend& backend, Buffer& buffer) {
            return backend.memory().FillPattern(TestQueue(backend), buffer, offset, kCount, stride,
                                                *pattern);
          });
        }
      }
    }
  }
}

TEST_F(CudaBackendTest, MissingDeviceIsNotFound) {
  absl::StatusOr<std::unique_ptr<Backend>> backend = CreateCudaBackend(CudaDeviceCount());
  EXPECT_EQ(backend.status().code(), absl::StatusCode::kNotFound) << backend.status();
}

}  // namespace
}  // namespace arrayhub
