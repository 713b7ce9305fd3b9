// The NVRTC kernel cache on a GPU: concurrent first uses of a kernel compile it once, other
// kernels compile meanwhile, a failure is not kept, and a new cache over the same directory (a
// restarted daemon) loads from disk without compiling; prints the cold, disk and memory times.
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "server/backend/cuda/kernel_cache.h"
#include "tests/backend/cuda_fixture.h"

namespace arrayhub {
namespace {

// Writes `value` to *out; a distinct value gives a distinct source (and key).
std::string SourceWriting(int value) {
  return fmt::format("extern \"C\" __global__ void ah_test_write(int* out) {{ *out = {}; }}\n",
                     value);
}

class KernelCacheTest : public CudaFixture {
 protected:
  void SetUp() override {
    CudaFixture::SetUp();
    if (Stopped()) return;
    int major = 0;
    int minor = 0;
    ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0), cudaSuccess);
    ASSERT_EQ(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0), cudaSuccess);
    arch_ = major * 10 + minor;
    // Every run its own key space, so that nothing of an earlier run is found in memory.
    salt_ = static_cast<int>(std::chrono::steady_clock::now().time_since_epoch().count() % 100000);
  }

  // What `kernel` writes, run once.
  int Run(cudaKernel_t kernel) {
    int* out = nullptr;
    EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&out), sizeof(int)), cudaSuccess);
    void* args[] = {&out};
    EXPECT_EQ(
        cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(1), dim3(1), args, 0, nullptr),
        cudaSuccess);
    int value = -1;
    EXPECT_EQ(cudaMemcpy(&value, out, sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(cudaFree(out), cudaSuccess);
    return value;
  }

  int arch_ = 0;
  int salt_ = 0;
};

TEST_F(KernelCacheTest, ConcurrentFirstUsesCompileOnce) {
  if (Stopped()) return;
  KernelCache cache;
  std::atomic<int> sources{0};
  std::vector<cudaKernel_t> kernels(16);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < kernels.size(); ++t) {
    threads.emplace_back([&, t] {
      absl::StatusOr<cudaKernel_t> kernel =
          cache.Get(fmt::format("once{}", salt_), arch_, "ah_test_write", [&] {
            ++sources;
            return SourceWriting(7);
          });
      ASSERT_TRUE(kernel.ok()) << kernel.status();
      kernels[t] = *kernel;
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(sources.load(), 1);
  EXPECT_EQ(cache.counts().compiled, 1);
  EXPECT_EQ(cache.counts().reused, 15);
  for (cudaKernel_t kernel : kernels) EXPECT_EQ(kernel, kernels[0]);
  EXPECT_EQ(Run(kernels[0]), 7);
}

TEST_F(KernelCacheTest, OtherKernelsCompileWhileOneIsCompiling) {
  if (Stopped()) return;
  KernelCache cache;
  absl::Notification slow_started;
  absl::Notification release;
  std::thread slow([&] {
    absl::StatusOr<cudaKernel_t> kernel =
        cache.Get(fmt::format("slow{}", salt_), arch_, "ah_test_write", [&] {
          slow_started.Notify();
          release.WaitForNotification();
          return SourceWriting(1);
        });
    EXPECT_TRUE(kernel.ok()) << kernel.status();
  });
  slow_started.WaitForNotification();
  // Would wait forever if one compile held the cache.
  absl::StatusOr<cudaKernel_t> fast = cache.Get(fmt::format("fast{}", salt_), arch_,
                                                "ah_test_write", [] { return SourceWriting(2); });
  release.Notify();
  slow.join();
  ASSERT_TRUE(fast.ok()) << fast.status();
  EXPECT_EQ(Run(*fast), 2);
}

TEST_F(KernelCacheTest, AFailedCompileIsTriedAgain) {
  if (Stopped()) return;
  KernelCache cache;
  const std::string key = fmt::format("retry{}", salt_);
  absl::StatusOr<cudaKernel_t> broken =
      cache.Get(key, arch_, "ah_test_write", [] { return std::string("not CUDA"); });
  EXPECT_EQ(broken.status().code(), absl::StatusCode::kInternal);
  absl::StatusOr<cudaKernel_t> fixed =
      cache.Get(key, arch_, "ah_test_write", [] { return SourceWriting(3); });
  ASSERT_TRUE(fixed.ok()) << fixed.status();
  EXPECT_EQ(Run(*fixed), 3);
}

TEST_F(KernelCacheTest, ARestartLoadsFromDiskWithoutCompiling) {
  if (Stopped()) return;
  char pattern[] = "/tmp/kernel_cache_test-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string dir = pattern;
  const int value = 100 + salt_ % 1000;  // A source no earlier run stored.
  auto source = [&] { return SourceWriting(value); };
  using Clock = std::chrono::steady_clock;
  auto ms = [](Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); };
  auto timed_get = [&](KernelCache& cache, double& elapsed) {
    const Clock::time_point start = Clock::now();
    absl::StatusOr<cudaKernel_t> kernel = cache.Get("restart", arch_, "ah_test_write", source);
    elapsed = ms(Clock::now() - start);
    return kernel;
  };

  double cold = 0;
  double disk = 0;
  double memory = 0;
  {
    auto store = CompiledCodeStore::Open(dir, 64 << 20);
    ASSERT_TRUE(store.ok()) << store.status();
    KernelCache before(*std::move(store));
    absl::StatusOr<cudaKernel_t> kernel = timed_get(before, cold);
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    EXPECT_EQ(before.counts().compiled, 1);
    EXPECT_EQ(Run(*kernel), value);
  }
  auto store = CompiledCodeStore::Open(dir, 64 << 20);
  ASSERT_TRUE(store.ok()) << store.status();
  KernelCache after(*std::move(store));
  absl::StatusOr<cudaKernel_t> kernel = timed_get(after, disk);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  EXPECT_EQ(after.counts().compiled, 0);
  EXPECT_EQ(after.counts().loaded, 1);
  EXPECT_EQ(Run(*kernel), value);
  ASSERT_TRUE(timed_get(after, memory).ok());
  EXPECT_EQ(after.counts().reused, 1);
  std::printf(
      "kernel cache (sm_%d): first compile %.1f ms, load from disk %.2f ms, in memory %.4f ms\n",
      arch_, cold, disk, memory);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace arrayhub
