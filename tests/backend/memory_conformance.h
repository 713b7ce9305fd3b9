// The memory contract of every backend (see backend_conformance.h): allocation and its
// accounting, buffers' lifetimes, copies to and from the host, and the strided pattern and
// arithmetic fills, checked byte for byte on buffers pre-filled with random bytes so that a
// write outside the requested elements shows.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "tests/backend/backend_conformance.h"
#include "tests/support/captured_log.h"
#include "tests/support/test_queue.h"

namespace arrayhub {

inline Bytes SeededBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  Bytes bytes(n);
  for (std::byte& b : bytes) b = static_cast<std::byte>(rng());
  return bytes;
}

// A pattern of `size` distinct nonzero bytes.
inline Bytes Pattern(size_t size) {
  Bytes pattern(size);
  for (size_t i = 0; i < size; ++i) pattern[i] = static_cast<std::byte>(0xA0 + i);
  return pattern;
}

template <typename Factory>
class MemoryConformanceTest : public BackendTest<Factory> {
 protected:
  // The elements FillAffine writes, as T.
  template <typename T>
  std::vector<T> Affine(const AffineFill& fill) {
    std::shared_ptr<Buffer> buffer = this->MustAllocate(fill.count * ItemSize(fill.dtype));
    if (buffer == nullptr) return {};
    const absl::Status filled =
        this->backend().memory().FillAffine(TestQueue(this->backend()), *buffer, fill);
    EXPECT_TRUE(filled.ok()) << filled;
    return this->template Contents<T>(*buffer);
  }

  // Fills `count` copies of a pattern of `pattern_size` bytes from `offset`, `stride_bytes`
  // apart, on a buffer of random bytes, and checks every byte: the pattern where it belongs,
  // the original random bytes everywhere else.
  void CheckFillPattern(size_t pattern_size, int64_t stride_bytes, int64_t offset, int64_t count,
                        uint32_t seed) {
    SCOPED_TRACE(::testing::Message() << "pattern " << pattern_size << " stride " << stride_bytes
                                      << " offset " << offset << " count " << count);
    const Bytes pattern = Pattern(pattern_size);
    const int64_t size = offset + count * stride_bytes + 37;  // Slack after the last element.
    Bytes expected = SeededBytes(static_cast<size_t>(size), seed);
    std::shared_ptr<Buffer> buffer = this->BufferWith(expected);
    ASSERT_NE(buffer, nullptr);

    ASSERT_TRUE(
        this->backend()
            .memory()
            .FillPattern(TestQueue(this->backend()), *buffer, offset, count, stride_bytes, pattern)
            .ok());
    for (int64_t i = 0; i < count; ++i) {
      std::memcpy(expected.data() + offset + i * stride_bytes, pattern.data(), pattern.size());
    }
    EXPECT_EQ(this->Contents(*buffer), expected);
  }
};

TYPED_TEST_SUITE_P(MemoryConformanceTest);

TYPED_TEST_P(MemoryConformanceTest, DescribesItsDevice) {
  Backend& backend = this->backend();
  EXPECT_EQ(backend.name(), TypeParam::kName);
  EXPECT_EQ(backend.DeviceName(), TypeParam::kDeviceName);
  const std::vector<DeviceDescription> devices = backend.Devices();
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].name, TypeParam::kDeviceName);
  EXPECT_FALSE(devices[0].description.empty());
  EXPECT_GT(devices[0].total_memory_bytes, 0);
  EXPECT_GT(devices[0].free_memory_bytes, 0);
  EXPECT_LE(devices[0].free_memory_bytes, devices[0].total_memory_bytes);
}

// --- Allocation and accounting ----------------------------------------------------------------

TYPED_TEST_P(MemoryConformanceTest, AllocateZeroBytesGivesANonNullBuffer) {
  std::shared_ptr<Buffer> buffer = this->MustAllocate(0);
  ASSERT_NE(buffer, nullptr);
  EXPECT_NE(buffer->data(), nullptr);
  EXPECT_EQ(buffer->size(), 0);
  EXPECT_EQ(this->backend().Memory().buffers_in_use, 1);
  EXPECT_EQ(this->backend().Memory().bytes_in_use, 0);
}

TYPED_TEST_P(MemoryConformanceTest, MemoryCountsLiveBuffersAndReturnsToZero) {
  Backend& backend = this->backend();
  EXPECT_EQ(backend.Memory().bytes_in_use, 0);
  std::shared_ptr<Buffer> a = this->MustAllocate(100);
  std::shared_ptr<Buffer> b = this->MustAllocate(28);
  EXPECT_EQ(backend.Memory().bytes_in_use, 128);  // Requested sizes, not the rounded ones.
  EXPECT_EQ(backend.Memory().buffers_in_use, 2);
  a.reset();
  EXPECT_EQ(backend.Memory().bytes_in_use, 28);
  EXPECT_EQ(backend.Memory().buffers_in_use, 1);
  b.reset();
  EXPECT_EQ(backend.Memory().bytes_in_use, 0);
  EXPECT_EQ(backend.Memory().buffers_in_use, 0);
}

TYPED_TEST_P(MemoryConformanceTest, MemoryCountsBuffersOfEverySize) {
  Backend& backend = this->backend();
  std::vector<std::shared_ptr<Buffer>> buffers;
  for (int64_t size : {0, 100, 4096, 1 << 20}) {
    AH_TEST_ASSIGN(buffers.emplace_back(), backend.memory().Allocate(TestQueue(backend), size));
  }
  EXPECT_EQ(backend.Memory().bytes_in_use, 100 + 4096 + (1 << 20));
  EXPECT_EQ(backend.Memory().buffers_in_use, 4);
  buffers.erase(buffers.begin() + 1);
  EXPECT_EQ(backend.Memory().bytes_in_use, 4096 + (1 << 20));
  EXPECT_EQ(backend.Memory().buffers_in_use, 3);
  buffers.clear();
  EXPECT_EQ(backend.Memory().bytes_in_use, 0);
  EXPECT_EQ(backend.Memory().buffers_in_use, 0);
}

TYPED_TEST_P(MemoryConformanceTest, SharedBufferIsFreedWithItsLastOwner) {
  std::shared_ptr<Buffer> a = this->MustAllocate(64);
  std::shared_ptr<Buffer> view = a;
  a.reset();
  EXPECT_EQ(this->backend().Memory().bytes_in_use, 64);
  view.reset();
  EXPECT_EQ(this->backend().Memory().bytes_in_use, 0);
}

// An allocation no machine can hold is RESOURCE_EXHAUSTED, with the size in its message; it
// leaves nothing counted and nothing broken for the next calls.
TYPED_TEST_P(MemoryConformanceTest, AbsurdAllocationIsResourceExhaustedAndRecoverable) {
  Backend& backend = this->backend();
  for (const int64_t nbytes : {int64_t{1} << 50, int64_t{1} << 62}) {
    const absl::StatusOr<std::shared_ptr<Buffer>> buffer =
        backend.memory().Allocate(TestQueue(backend), nbytes);
    EXPECT_EQ(buffer.status().code(), absl::StatusCode::kResourceExhausted) << buffer.status();
    EXPECT_THAT(std::string(buffer.status().message()),
                ::testing::StartsWith(std::string(TypeParam::kOutOfMemory) + " allocating " +
                                      std::to_string(nbytes) + " bytes"));
    EXPECT_EQ(backend.Memory().bytes_in_use, 0);
    EXPECT_EQ(backend.Memory().buffers_in_use, 0);
  }
  const AffineFill fill{.dtype = DType::kInt64, .count = 4096, .int_start = -3, .int_step = 7};
  const std::vector<int64_t> values = this->template Affine<int64_t>(fill);
  ASSERT_EQ(values.size(), 4096u);
  for (int64_t i = 0; i < 4096; ++i) ASSERT_EQ(values[i], -3 + 7 * i) << i;
}

// A buffer may outlive the backend that made it: freeing it then neither crashes nor reports
// a failure, and the device serves a new backend.
TYPED_TEST_P(MemoryConformanceTest, BufferOutlivesBackend) {
  {
    testing::CapturedLog log(spdlog::level::info);  // Buffers report failed frees there.
    std::shared_ptr<Buffer> buffer = this->BufferWith(SeededBytes(1 << 20, 0xb0ff));
    ASSERT_NE(buffer, nullptr);
    this->backend_.reset();
    buffer.reset();  // The last owner of the backend's state: frees the memory, then the state.
    EXPECT_EQ(log.Text(), "");
  }
  AH_TEST_ASSIGN(std::unique_ptr<Backend> backend, TypeParam::Make());
  AH_TEST_ASSIGN(std::shared_ptr<Buffer> again,
                 backend->memory().Allocate(TestQueue(*backend), 1 << 20));
  EXPECT_EQ(backend->Memory().buffers_in_use, 1);
}

// --- Queue bindings ---------------------------------------------------------------------------

// Every call that enqueues work or touches buffers is handed its caller's binding (Queues::Bind).
// One of no backend (what an unbound Caller holds, CallerQueue) or of another backend's queues
// is refused before anything runs: nothing allocated, written or ordered.
TYPED_TEST_P(MemoryConformanceTest, ACallHandedNoBindingOfItsOwnIsRefusedAndChangesNothing) {
  class OtherBackendsBinding final : public QueueBinding {};
  QueueBinding none;
  OtherBackendsBinding other;
  const Bytes original = SeededBytes(64, 0x6b1d);
  std::shared_ptr<Buffer> buffer = this->BufferWith(original);
  ASSERT_NE(buffer, nullptr);
  const int64_t in_use = this->backend().Memory().bytes_in_use;
  DeviceMemory& memory = this->backend().memory();
  for (QueueBinding* refused : {&none, static_cast<QueueBinding*>(&other)}) {
    const auto expect_refused = [](const absl::Status& status) {
      EXPECT_EQ(status.code(), absl::StatusCode::kInternal) << status;
      EXPECT_THAT(std::string(status.message()),
                  ::testing::HasSubstr("backend call was handed no binding of a"));
    };
    expect_refused(memory.Allocate(*refused, 64).status());
    expect_refused(memory.FillPattern(*refused, *buffer, 0, 8, 8, Pattern(8)));
    expect_refused(memory.CopyFromHost(*refused, *buffer, 0, SeededBytes(64, 1)));
    Bytes read(64);
    expect_refused(memory.CopyToHost(*refused, *buffer, 0, read));
    expect_refused(this->backend().queues().Use(*refused, buffer));
    expect_refused(this->backend().queues().RecordTimestamp(*refused).status());
  }
  EXPECT_EQ(this->backend().Memory().bytes_in_use, in_use);
  EXPECT_EQ(this->Contents(*buffer), original);
}

// --- Copies -----------------------------------------------------------------------------------

TYPED_TEST_P(MemoryConformanceTest, RoundTripIsBitExact) {
  uint32_t seed = 0x7219;
  for (size_t size : {size_t{0}, size_t{1}, size_t{4097}, size_t{64} << 20}) {
    SCOPED_TRACE(::testing::Message() << size << " bytes");
    const Bytes bytes = SeededBytes(size, seed++);
    std::shared_ptr<Buffer> buffer = this->BufferWith(bytes);
    ASSERT_NE(buffer, nullptr);
    EXPECT_NE(buffer->data(), nullptr);
    EXPECT_EQ(buffer->size(), static_cast<int64_t>(size));
    EXPECT_TRUE(this->Contents(*buffer) == bytes);  // Not EXPECT_EQ: 64 MiB would be printed.
  }
}

TYPED_TEST_P(MemoryConformanceTest, CopyFromHostAtAnOffsetWritesOnlyThoseBytes) {
  Bytes expected = SeededBytes(100, 10);
  std::shared_ptr<Buffer> buffer = this->BufferWith(expected);
  ASSERT_NE(buffer, nullptr);
  const Bytes chunk = SeededBytes(17, 11);
  ASSERT_TRUE(
      this->backend().memory().CopyFromHost(TestQueue(this->backend()), *buffer, 40, chunk).ok());
  std::copy(chunk.begin(), chunk.end(), expected.begin() + 40);
  EXPECT_EQ(this->Contents(*buffer), expected);
}

TYPED_TEST_P(MemoryConformanceTest, CopyToHostAtAnOffsetReadsOnlyThoseBytes) {
  const Bytes original = SeededBytes(100, 12);
  std::shared_ptr<Buffer> buffer = this->BufferWith(original);
  ASSERT_NE(buffer, nullptr);
  Bytes destination = SeededBytes(30, 13);
  ASSERT_TRUE(this->backend()
                  .memory()
                  .CopyToHost(TestQueue(this->backend()), *buffer, 63,
                              std::span(destination).subspan(5, 20))
                  .ok());
  Bytes expected = SeededBytes(30, 13);
  std::copy(original.begin() + 63, original.begin() + 83, expected.begin() + 5);
  EXPECT_EQ(destination, expected);
}

TYPED_TEST_P(MemoryConformanceTest, CopiesAtAnOffsetOfALargeBuffer) {
  Bytes bytes = SeededBytes(10'000, 0x0ff5e7);
  std::shared_ptr<Buffer> buffer = this->BufferWith(bytes);
  ASSERT_NE(buffer, nullptr);

  Bytes part(5000);
  ASSERT_TRUE(
      this->backend().memory().CopyToHost(TestQueue(this->backend()), *buffer, 1234, part).ok());
  EXPECT_TRUE(part == Bytes(bytes.begin() + 1234, bytes.begin() + 6234));

  const Bytes patch = SeededBytes(100, 0x0ff5e8);
  ASSERT_TRUE(
      this->backend().memory().CopyFromHost(TestQueue(this->backend()), *buffer, 777, patch).ok());
  std::copy(patch.begin(), patch.end(), bytes.begin() + 777);
  EXPECT_TRUE(this->Contents(*buffer) == bytes);
}

TYPED_TEST_P(MemoryConformanceTest, EmptyCopiesPassNoNullPointer) {
  std::shared_ptr<Buffer> buffer = this->MustAllocate(0);
  ASSERT_NE(buffer, nullptr);
  EXPECT_TRUE(
      this->backend().memory().CopyFromHost(TestQueue(this->backend()), *buffer, 0, {}).ok());
  EXPECT_TRUE(this->backend().memory().CopyToHost(TestQueue(this->backend()), *buffer, 0, {}).ok());
}

// --- FillPattern ------------------------------------------------------------------------------

TYPED_TEST_P(MemoryConformanceTest, FillPatternWithStrideEqualToPatternSize) {
  uint32_t seed = 1;
  for (size_t size : {1, 2, 4, 8, 16}) {
    const auto s = static_cast<int64_t>(size);
    this->CheckFillPattern(size, s, /*offset=*/0, /*count=*/9, seed++);
    this->CheckFillPattern(size, s, /*offset=*/3, /*count=*/5, seed++);
  }
}

TYPED_TEST_P(MemoryConformanceTest, FillPatternWithLargerStrideLeavesTheGapsAlone) {
  uint32_t seed = 100;
  for (size_t size : {1, 2, 4, 8, 16}) {
    const auto s = static_cast<int64_t>(size);
    this->CheckFillPattern(size, s + 1, /*offset=*/0, /*count=*/7, seed++);
    this->CheckFillPattern(size, 2 * s, /*offset=*/5, /*count=*/6, seed++);
    this->CheckFillPattern(size, 3 * s + 5, /*offset=*/11, /*count=*/4, seed++);
  }
}

TYPED_TEST_P(MemoryConformanceTest, FillPatternOfZeroCountWritesNothing) {
  const Bytes original = SeededBytes(32, 7);
  std::shared_ptr<Buffer> buffer = this->BufferWith(original);
  ASSERT_NE(buffer, nullptr);
  ASSERT_TRUE(this->backend()
                  .memory()
                  .FillPattern(TestQueue(this->backend()), *buffer, 0, 0, 8, Pattern(8))
                  .ok());
  EXPECT_EQ(this->Contents(*buffer), original);
}

TYPED_TEST_P(MemoryConformanceTest, FillPatternOfZerosWithEqualStrideZeroesOnlyTheRange) {
  // The all-zero pattern takes a memset shortcut; it must stop at the last element.
  Bytes expected = SeededBytes(64, 8);
  std::shared_ptr<Buffer> buffer = this->BufferWith(expected);
  ASSERT_NE(buffer, nullptr);
  const Bytes zeros(4);
  ASSERT_TRUE(this->backend()
                  .memory()
                  .FillPattern(TestQueue(this->backend()), *buffer, 8, 5, 4, zeros)
                  .ok());
  std::fill(expected.begin() + 8, expected.begin() + 28, std::byte{0});
  EXPECT_EQ(this->Contents(*buffer), expected);
}

TYPED_TEST_P(MemoryConformanceTest, FillPatternOfZerosWithLargerStrideLeavesTheGapsAlone) {
  // No memset here: the bytes between elements must survive.
  Bytes expected = SeededBytes(64, 9);
  std::shared_ptr<Buffer> buffer = this->BufferWith(expected);
  ASSERT_NE(buffer, nullptr);
  const Bytes zeros(2);
  ASSERT_TRUE(this->backend()
                  .memory()
                  .FillPattern(TestQueue(this->backend()), *buffer, 1, 6, 5, zeros)
                  .ok());
  for (int i = 0; i < 6; ++i) {
    expected[1 + 5 * i] = std::byte{0};
    expected[2 + 5 * i] = std::byte{0};
  }
  EXPECT_EQ(this->Contents(*buffer), expected);
}

// --- FillAffine -------------------------------------------------------------------------------

TYPED_TEST_P(MemoryConformanceTest, AffineIntegerFillWrapsToTheDTypesWidth) {
  // np.arange(120, 130, dtype=np.int8)
  const AffineFill fill{.dtype = DType::kInt8, .count = 10, .int_start = 120, .int_step = 1};
  EXPECT_EQ(this->template Affine<int8_t>(fill),
            (std::vector<int8_t>{120, 121, 122, 123, 124, 125, 126, 127, -128, -127}));
}

TYPED_TEST_P(MemoryConformanceTest, AffineUInt64FillUsesTheBitPattern) {
  // np.arange(2**64 - 2, 2**64 + 1, dtype=np.uint64) wraps: [2^64 - 2, 2^64 - 1, 0]
  const AffineFill fill{.dtype = DType::kUInt64, .count = 3, .int_start = -2, .int_step = 1};
  EXPECT_EQ(this->template Affine<uint64_t>(fill),
            (std::vector<uint64_t>{UINT64_MAX - 1, UINT64_MAX, 0}));
}

TYPED_TEST_P(MemoryConformanceTest, AffineFloat32FillComputesInFloat32) {
  // NumPy's FLOAT_fill: start + i * delta in float32 (np.arange(0, 1, 0.1, dtype=np.float32)).
  const float delta = 0.1f;
  const AffineFill fill{.dtype = DType::kFloat32, .count = 10, .start = 0.0, .step = delta};
  std::vector<float> expected;
  for (int i = 0; i < 10; ++i) expected.push_back(0.0f + static_cast<float>(i) * delta);
  EXPECT_EQ(this->template Affine<float>(fill), expected);
}

TYPED_TEST_P(MemoryConformanceTest, AffineLinspaceFillFloorsIntegers) {
  // float64 samples -2.5, -1, 0.5, 2 floored: [-3, -1, 0, 2]
  const AffineFill fill{
      .dtype = DType::kInt32, .count = 4, .start = -2.5, .step = 1.5, .float64_math = true};
  EXPECT_EQ(this->template Affine<int32_t>(fill), (std::vector<int32_t>{-3, -1, 0, 2}));
}

TYPED_TEST_P(MemoryConformanceTest, AffineComplexFillKeepsTheImaginaryStep) {
  const AffineFill fill{.dtype = DType::kComplex128,
                        .count = 3,
                        .start = std::complex<double>(1, -1),
                        .step = std::complex<double>(0.5, 2),
                        .float64_math = true};
  EXPECT_EQ(this->template Affine<std::complex<double>>(fill),
            (std::vector<std::complex<double>>{{1, -1}, {1.5, 1}, {2, 3}}));
}

TYPED_TEST_P(MemoryConformanceTest, AffineFillWritesOnlyCountElements) {
  Bytes expected = SeededBytes(40, 14);
  std::shared_ptr<Buffer> buffer = this->BufferWith(expected);
  ASSERT_NE(buffer, nullptr);
  const AffineFill fill{.dtype = DType::kInt16, .count = 3, .int_start = 1, .int_step = 1};
  ASSERT_TRUE(this->backend().memory().FillAffine(TestQueue(this->backend()), *buffer, fill).ok());
  const int16_t values[] = {1, 2, 3};
  std::memcpy(expected.data(), values, sizeof(values));
  EXPECT_EQ(this->Contents(*buffer), expected);
}

REGISTER_TYPED_TEST_SUITE_P(
    MemoryConformanceTest, DescribesItsDevice, AllocateZeroBytesGivesANonNullBuffer,
    ACallHandedNoBindingOfItsOwnIsRefusedAndChangesNothing, MemoryCountsLiveBuffersAndReturnsToZero,
    MemoryCountsBuffersOfEverySize, SharedBufferIsFreedWithItsLastOwner,
    AbsurdAllocationIsResourceExhaustedAndRecoverable, BufferOutlivesBackend, RoundTripIsBitExact,
    CopyFromHostAtAnOffsetWritesOnlyThoseBytes, CopyToHostAtAnOffsetReadsOnlyThoseBytes,
    CopiesAtAnOffsetOfALargeBuffer, EmptyCopiesPassNoNullPointer,
    FillPatternWithStrideEqualToPatternSize, FillPatternWithLargerStrideLeavesTheGapsAlone,
    FillPatternOfZeroCountWritesNothing, FillPatternOfZerosWithEqualStrideZeroesOnlyTheRange,
    FillPatternOfZerosWithLargerStrideLeavesTheGapsAlone, AffineIntegerFillWrapsToTheDTypesWidth,
    AffineUInt64FillUsesTheBitPattern, AffineFloat32FillComputesInFloat32,
    AffineLinspaceFillFloorsIntegers, AffineComplexFillKeepsTheImaginaryStep,
    AffineFillWritesOnlyCountElements);

}  // namespace arrayhub
