// The random fills' contract on every backend (see backend_conformance.h): values inside the
// requested bounds, the same values for the same seed and others for another, and the moments
// of the distribution asked for. Seeds come from BaseSeed(), printed with each failure.
#pragma once

#include <Imath/half.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "tests/backend/backend_conformance.h"
#include "tests/support/test_queue.h"
#include "tests/support/test_seed.h"

namespace arrayhub {

inline RandomCall Floats(RandomDistribution distribution, double low, double high, uint64_t seed) {
  RandomCall call;
  call.distribution = distribution;
  call.low = low;
  call.high = high;
  call.seed = seed;
  return call;
}

inline RandomCall Integers(int64_t low, int64_t high, uint64_t seed) {
  RandomCall call;
  call.distribution = RandomDistribution::kIntegers;
  call.int_low = low;
  call.int_high = high;
  call.seed = seed;
  return call;
}

// Element `i` of real or integer `bytes` as a double.
inline double ValueAt(DType dtype, const Bytes& bytes, int64_t i) {
  const std::byte* p = &bytes[static_cast<size_t>(i * ItemSize(dtype))];
  if (dtype == DType::kFloat16) {
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    Imath::half h;
    h.setBits(bits);
    return static_cast<float>(h);
  }
  if (dtype == DType::kFloat32) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  if (dtype == DType::kFloat64) {
    double d;
    std::memcpy(&d, p, 8);
    return d;
  }
  if (dtype == DType::kBool) return std::to_integer<int>(p[0]);
  uint64_t raw = 0;
  std::memcpy(&raw, p, static_cast<size_t>(ItemSize(dtype)));
  if (KindOf(dtype) == DTypeKind::kUnsigned) return static_cast<double>(raw);
  const int shift = 64 - static_cast<int>(ItemSize(dtype)) * 8;
  return static_cast<double>(static_cast<int64_t>(raw << shift) >> shift);
}

struct Moments {
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();
  double mean = 0;
  double variance = 0;
};

inline Moments MomentsOf(DType dtype, const Bytes& bytes, int64_t n) {
  Moments m;
  long double sum = 0;
  long double squares = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double v = ValueAt(dtype, bytes, i);
    m.min = std::min(m.min, v);
    m.max = std::max(m.max, v);
    sum += v;
    squares += static_cast<long double>(v) * v;
  }
  m.mean = static_cast<double>(sum / n);
  m.variance = static_cast<double>(squares / n - (sum / n) * (sum / n));
  return m;
}

template <typename Factory>
class RandomConformanceTest : public BackendTest<Factory> {
 protected:
  // `n` values of `dtype` drawn by `call`, in a buffer of their own.
  absl::StatusOr<Bytes> Fill(RandomCall call, DType dtype, int64_t n) {
    absl::StatusOr<std::shared_ptr<Buffer>> buffer =
        this->backend().memory().Allocate(TestQueue(this->backend()), n * ItemSize(dtype));
    if (!buffer.ok()) return buffer.status();
    call.output = {
        .buffer = buffer->get(), .offset_bytes = 0, .dtype = dtype, .shape = {n}, .strides = {1}};
    if (absl::Status filled =
            this->backend().compute().FillRandom(TestQueue(this->backend()), call);
        !filled.ok())
      return filled;
    return Download(this->backend(), **buffer);
  }
};

TYPED_TEST_SUITE_P(RandomConformanceTest);

TYPED_TEST_P(RandomConformanceTest, UniformStaysInBoundsWithTheRightMoments) {
  using testing::BaseSeed;
  const int64_t n = 1'000'001;
  for (DType dtype : {DType::kFloat16, DType::kFloat32, DType::kFloat64}) {
    const RandomCall call = Floats(RandomDistribution::kUniform, -2.0, 3.0, BaseSeed());
    absl::StatusOr<Bytes> a = this->Fill(call, dtype, n);
    absl::StatusOr<Bytes> b = this->Fill(call, dtype, n);
    RandomCall other = call;
    other.seed += 1;
    absl::StatusOr<Bytes> c = this->Fill(other, dtype, n);
    ASSERT_TRUE(a.ok() && b.ok() && c.ok()) << a.status();
    EXPECT_TRUE(*a == *b) << DTypeName(dtype) << ": same seed, different values";
    EXPECT_FALSE(*a == *c) << DTypeName(dtype) << ": different seeds, same values";
    const Moments m = MomentsOf(dtype, *a, n);
    EXPECT_GE(m.min, -2.0) << DTypeName(dtype);
    EXPECT_LT(m.max, 3.0) << DTypeName(dtype);
    // Standard errors: 5 / sqrt(12 n) for the mean.
    EXPECT_NEAR(m.mean, 0.5, 5 * 5 / std::sqrt(12.0 * n) + 1e-3)
        << DTypeName(dtype) << testing::SeedNote();
    EXPECT_NEAR(m.variance, 25.0 / 12, 0.02) << DTypeName(dtype) << testing::SeedNote();
  }
  // A range narrower than float16's spacing near it still stays below high.
  absl::StatusOr<Bytes> narrow = this->Fill(
      Floats(RandomDistribution::kUniform, 1.0, 1.0009765625, BaseSeed()), DType::kFloat16, 10000);
  ASSERT_TRUE(narrow.ok()) << narrow.status();
  const Moments m = MomentsOf(DType::kFloat16, *narrow, 10000);
  EXPECT_EQ(m.min, 1.0);
  EXPECT_EQ(m.max, 1.0);
}

TYPED_TEST_P(RandomConformanceTest, NormalHasTheRightMomentsForOddCounts) {
  const int64_t n = 1'000'001;  // Odd: normal values come in pairs (Box-Muller, cuRAND).
  for (DType dtype : {DType::kFloat16, DType::kFloat32, DType::kFloat64}) {
    const RandomCall call = Floats(RandomDistribution::kNormal, 1.5, 2.0, testing::BaseSeed());
    absl::StatusOr<Bytes> a = this->Fill(call, dtype, n);
    absl::StatusOr<Bytes> b = this->Fill(call, dtype, n);
    ASSERT_TRUE(a.ok() && b.ok()) << a.status();
    EXPECT_TRUE(*a == *b) << DTypeName(dtype) << ": same seed, different values";
    const Moments m = MomentsOf(dtype, *a, n);
    EXPECT_NEAR(m.mean, 1.5, 5 * 2.0 / std::sqrt(n) + 1e-3)
        << DTypeName(dtype) << testing::SeedNote();
    EXPECT_NEAR(std::sqrt(m.variance), 2.0, 0.01) << DTypeName(dtype) << testing::SeedNote();
  }
}

TYPED_TEST_P(RandomConformanceTest, IntegersStayInBoundsForEveryDType) {
  const int64_t n = 200'003;
  struct Range {
    DType dtype;
    int64_t low;
    int64_t high;
  };
  const int64_t max = std::numeric_limits<int64_t>::max();
  const int64_t min = std::numeric_limits<int64_t>::min();
  for (const Range& r :
       {Range{DType::kBool, 0, 2}, Range{DType::kInt8, -100, 100}, Range{DType::kInt8, -128, 128},
        Range{DType::kInt16, -5, 3}, Range{DType::kInt32, -2000000000, 2000000000},
        Range{DType::kInt64, min, max}, Range{DType::kInt64, -3, 4}, Range{DType::kUInt8, 0, 256},
        Range{DType::kUInt16, 7, 8}, Range{DType::kUInt32, 0, 4294967296},
        Range{DType::kUInt64, 0, max}, Range{DType::kUInt64, 5, 12}}) {
    const RandomCall call = Integers(r.low, r.high, testing::BaseSeed());
    absl::StatusOr<Bytes> a = this->Fill(call, r.dtype, n);
    absl::StatusOr<Bytes> b = this->Fill(call, r.dtype, n);
    ASSERT_TRUE(a.ok() && b.ok()) << a.status();
    EXPECT_TRUE(*a == *b) << DTypeName(r.dtype) << ": same seed, different values";
    const Moments m = MomentsOf(r.dtype, *a, n);
    const double low = static_cast<double>(r.low);
    const double high = static_cast<double>(r.high);
    EXPECT_GE(m.min, low) << DTypeName(r.dtype);
    EXPECT_LE(m.max, high - 1 < high ? high - 1 : std::nextafter(high, 0.0)) << DTypeName(r.dtype);
    const double span = high - low;
    EXPECT_NEAR(m.mean, low + (span - 1) / 2, 5 * span / std::sqrt(12.0 * n) + 1e-9)
        << DTypeName(r.dtype) << " [" << r.low << ", " << r.high << ")" << testing::SeedNote();
    if (span <= 256) {  // Every value appears.
      EXPECT_EQ(m.min, low);
      EXPECT_EQ(m.max, high - 1);
    }
  }
}

REGISTER_TYPED_TEST_SUITE_P(RandomConformanceTest, UniformStaysInBoundsWithTheRightMoments,
                            NormalHasTheRightMomentsForOddCounts,
                            IntegersStayInBoundsForEveryDType);

}  // namespace arrayhub
