// The CPU backend's FFTW plans (fftw_plans.h): the cache keeps at most kMaxFftwPlans, and
// many threads planning and executing at once (FFTW's planner is not thread-safe) all get
// the transforms a single thread gets.
#include <gtest/gtest.h>

#include <complex>
#include <cstring>
#include <thread>
#include <vector>

#include "server/backend/host/fftw_plans.h"
#include "server/backend/host/host_backend.h"
#include "tests/support/test_queue.h"

namespace arrayhub {
namespace {

class HostFftTest : public ::testing::Test {
 protected:
  // A C-contiguous (1, n, 1) complex128 view of a new buffer holding `values`.
  ArrayView Place(const std::vector<std::complex<double>>& values) {
    const auto bytes = static_cast<int64_t>(values.size() * sizeof(values[0]));
    std::shared_ptr<Buffer> buffer = backend_.memory().Allocate(TestQueue(backend_), bytes).value();
    std::memcpy(buffer->data(), values.data(), static_cast<size_t>(bytes));
    const std::lock_guard lock(mutex_);
    buffers_.push_back(buffer);
    const Shape shape{1, static_cast<int64_t>(values.size()), 1};
    return {buffer.get(), 0, DType::kComplex128, shape, ContiguousStrides(shape)};
  }

  // The forward transform of 0, 1, ..., n-1 (with imaginary parts 1).
  std::vector<std::complex<double>> Transform(int64_t n) {
    std::vector<std::complex<double>> values(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j) values[j] = {static_cast<double>(j), 1};
    const ArrayView input = Place(values);
    const ArrayView output = Place(values);
    EXPECT_TRUE(
        backend_.fft().Fft(TestQueue(backend_), {.n = n, .input = input, .output = output}).ok());
    std::vector<std::complex<double>> result(static_cast<size_t>(n));
    std::memcpy(result.data(), output.buffer->data(), result.size() * sizeof(result[0]));
    return result;
  }

  HostBackend backend_;
  std::mutex mutex_;
  std::vector<std::shared_ptr<Buffer>> buffers_;
};

TEST_F(HostFftTest, PlanCacheIsBounded) {
  for (int64_t n = 1; n <= host::kMaxFftwPlans + 10; ++n) {
    const std::vector<std::complex<double>> result = Transform(n);
    // The sum of the inputs: n (n - 1) / 2 + n i.
    EXPECT_NEAR(result[0].real(), static_cast<double>(n * (n - 1) / 2), 1e-9 * n * n);
    EXPECT_NEAR(result[0].imag(), static_cast<double>(n), 1e-9 * n);
  }
  EXPECT_LE(host::FftwCachedPlans(), host::kMaxFftwPlans);
}

TEST_F(HostFftTest, ManyThreadsPlanAndExecuteAtOnce) {
  // More distinct lengths than the cache holds, so that threads also evict plans others use.
  constexpr int kThreads = 8;
  constexpr int64_t kLengths = host::kMaxFftwPlans + 20;
  std::vector<std::vector<std::complex<double>>> expected;
  for (int64_t n = 1; n <= kLengths; ++n) expected.push_back(Transform(n));
  std::vector<std::thread> threads;
  std::vector<int> mismatches(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int64_t k = 0; k < kLengths; ++k) {
        const int64_t n = 1 + (k * (t + 1) * 7) % kLengths;
        if (Transform(n) != expected[n - 1]) ++mismatches[t];
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(mismatches[t], 0) << "thread " << t;
}

}  // namespace
}  // namespace arrayhub
