// What the CPU backend promises beyond the contract every backend keeps (host_conformance_test.cc
// runs that): allocations bounded by the host's memory, freed memory given back to the system,
// buffers aligned for vector loads and readable through their pointers after the backend is gone.

#include "server/backend/host/host_backend.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <malloc.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "tests/support/resident_memory.h"
#include "tests/support/test_queue.h"

namespace arrayhub {
namespace {

using ::testing::HasSubstr;

// Allocations are virtual until written, so the backend itself refuses to hand out more than
// the host (or the container) holds: a header-only upload cannot reserve memory that is not
// there. By default the limit is the host's memory.
TEST(HostBackendMemoryTest, AllocationsStopAtTheMemoryLimit) {
  EXPECT_EQ(HostBackend().memory_limit(), HostMemoryCapacity());
  EXPECT_GT(HostMemoryCapacity(), 0);
  HostBackend backend(1000);
  auto first = backend.memory().Allocate(TestQueue(backend), 600);
  ASSERT_TRUE(first.ok()) << first.status();
  auto second = backend.memory().Allocate(TestQueue(backend), 401);
  EXPECT_EQ(second.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(second.status().message(),
              HasSubstr("out of host memory allocating 401 bytes: arrays hold 600 of the 1000 "
                        "bytes this host can give them"));
  EXPECT_EQ(backend.Memory().bytes_in_use, 600);
  EXPECT_EQ(backend.Memory().buffers_in_use, 1);
  EXPECT_TRUE(backend.memory()
                  .Allocate(TestQueue(backend), 400)
                  .ok());  // Exactly up to the limit (and freed at once).
  first->reset();
  EXPECT_TRUE(backend.memory().Allocate(TestQueue(backend), 1000).ok());
  EXPECT_EQ(backend.Memory().bytes_in_use, 0);
}

// Freed arrays go back to the system (host_memory.h's release; glibc's malloc_trim here, this
// binary keeping glibc's allocator). glibc is set to keep blocks up to 32 MiB in its heaps and
// to trim a heap's top only past 64 MiB, as an allocator that keeps freed memory for reuse
// does (arrayhubd's tcmalloc: test_lifetime.py checks the daemon): 256 MiB of 4 MiB arrays
// below a small live block then stay resident until the release. Where glibc refuses a setting
// (a CI machine did, under a malloc tunable), its defaults give the memory back as well.
TEST(HostBackendMemoryTest, FreedArraysAreReturnedToTheSystem) {
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
  GTEST_SKIP() << "a sanitizer's allocator replaces glibc's (and ASan keeps freed blocks)";
#endif
#endif
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  HostBackend backend;
  std::vector<std::shared_ptr<Buffer>> arrays;
  for (int i = 0; i < 64; ++i) {
    arrays.push_back(backend.memory().Allocate(TestQueue(backend), 4 << 20).value());
    std::memset(arrays.back()->data(), 1, 4 << 20);  // Resident, as a written array is.
  }
  auto top =
      backend.memory().Allocate(TestQueue(backend), 64).value();  // Keeps the heap's top in use.
  const int64_t peak = testing::ResidentBytes();
  arrays.clear();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (testing::ResidentBytes() > peak - (200 << 20) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_LT(testing::ResidentBytes(), peak - (200 << 20))
      << "resident " << (testing::ResidentBytes() >> 20) << " MiB after a peak of " << (peak >> 20)
      << " MiB";
}

// Aligned for the widest vector loads the host loops use.
TEST(HostBackendMemoryTest, BuffersAreAlignedTo64Bytes) {
  HostBackend backend;
  for (int64_t size : {0, 1, 7, 63, 64, 65, 1000, 4096}) {
    absl::StatusOr<std::shared_ptr<Buffer>> allocated =
        backend.memory().Allocate(TestQueue(backend), size);
    ASSERT_TRUE(allocated.ok()) << allocated.status();
    const std::shared_ptr<Buffer>& buffer = *allocated;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer->data()) % 64, 0u) << size;
    EXPECT_EQ(buffer->size(), size);
  }
}

TEST(HostBackendLifetimeTest, BufferMayOutliveItsBackend) {
  std::shared_ptr<Buffer> buffer;
  {
    HostBackend backend;
    buffer = backend.memory().Allocate(TestQueue(backend), 256).value();
    std::memset(buffer->data(), 0x5A, 256);
  }
  EXPECT_EQ(static_cast<unsigned char*>(buffer->data())[255], 0x5A);
  buffer.reset();  // Must neither crash nor touch the destroyed backend.
}

}  // namespace
}  // namespace arrayhub
