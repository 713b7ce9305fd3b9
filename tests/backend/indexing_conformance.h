// What every backend's gathers and scatters promise (see backend_conformance.h): an index out
// of bounds fails with NumPy's IndexError message, naming the first bad index in C order, and a
// scatter refused so writes nothing; among duplicate destinations the last in C order wins, as
// NumPy's sequential assignment, also with negative indices and over many writes; a combining
// scatter (ufunc.at) folds every value into its destination in that same order; numpy.unique's
// selection keeps the first of each run of equal elements, with every NaN equal.
#pragma once

#include <Imath/half.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "tests/backend/backend_conformance.h"
#include "tests/support/test_queue.h"
#include "tests/support/test_seed.h"

namespace arrayhub {

template <typename Factory>
class IndexingConformanceTest : public BackendTest<Factory> {
 protected:
  // ufunc.at(target, indices, values) as a combining scatter into a 1-D target: every value is
  // combined into its destination, in C order of the positions. Returns the call's status.
  template <typename T>
  absl::Status CombineInto(ElementwiseOp op, DType dtype, const ArrayView& target,
                           const std::vector<int64_t>& indices, const std::vector<T>& values) {
    const auto count = static_cast<int64_t>(indices.size());
    ArrayView where = target;
    where.shape = {count};
    where.strides = {0};
    return this->backend().indexing().Scatter(
        TestQueue(this->backend()),
        {.target = where,
         .indices = {{.indices = this->Array(DType::kInt64, indices, {count}),
                      .extent = target.shape.at(0),
                      .stride = 1,
                      .axis = 0}},
         .values = this->Array(dtype, values, {count}),
         .combine = op});
  }

  testing::SeedTrace seed_trace_;
};

TYPED_TEST_SUITE_P(IndexingConformanceTest);

TYPED_TEST_P(IndexingConformanceTest, GatherOutOfBoundsNamesIndexAxisAndSize) {
  // data[[1, -4]] of a float32 (3,): a 1-D index broadcast along nothing.
  const ArrayView data = this->Array(DType::kFloat32, std::vector<float>{1, 2, 3}, {2}, {0});
  absl::Status status = this->backend().indexing().Gather(
      TestQueue(this->backend()),
      {.source = data,
       .indices = {{.indices = this->Array(DType::kInt64, std::vector<int64_t>{1, -4}, {2}),
                    .extent = 3,
                    .stride = 1,
                    .axis = 0}},
       .output = this->Array(DType::kFloat32, std::vector<float>{7, 7}, {2})});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "index -4 is out of bounds for axis 0 with size 3");

  // data[[1, -6, 7]] of an int64 (5, 7), the index broadcast along the rows of a (3, 7) result:
  // -6 is the first bad index in C order.
  const ArrayView rows = this->Array(DType::kInt64, std::vector<int64_t>(35, 1), {3, 7}, {0, 1});
  status = this->backend().indexing().Gather(
      TestQueue(this->backend()),
      {.source = rows,
       .indices = {{.indices =
                        this->Array(DType::kInt64, std::vector<int64_t>{1, -6, 7}, {3, 7}, {1, 0}),
                    .extent = 5,
                    .stride = 7,
                    .axis = 0}},
       .output = this->Array(DType::kInt64, std::vector<int64_t>(21, 2), {3, 7})});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "index -6 is out of bounds for axis 0 with size 5");
}

TYPED_TEST_P(IndexingConformanceTest, ScatterLastDuplicateWinsAndBadIndexWritesNothing) {
  // target[[0, 0, 2]] = [1, 2, 3] on an int32 (5,), then target[[1, 5, 0]] = 9, refused.
  const ArrayView target = this->Array(DType::kInt32, std::vector<int32_t>{0, 1, 2, 3, 4}, {5});
  auto scatter = [&](std::vector<int64_t> indices, std::vector<int32_t> values) {
    ArrayView where = target;
    where.shape = {3};
    where.strides = {0};
    return this->backend().indexing().Scatter(
        TestQueue(this->backend()),
        {.target = where,
         .indices = {{.indices = this->Array(DType::kInt64, indices, {3}),
                      .extent = 5,
                      .stride = 1,
                      .axis = 0}},
         .values = this->Array(DType::kInt32, values, {3})});
  };
  ASSERT_TRUE(scatter({0, 0, 2}, {1, 2, 3}).ok());
  EXPECT_EQ(this->template Read<int32_t>(target), (std::vector<int32_t>{2, 1, 3, 3, 4}));
  const absl::Status status = scatter({1, 5, 0}, {9, 9, 9});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "index 5 is out of bounds for axis 0 with size 5");
  EXPECT_EQ(this->template Read<int32_t>(target), (std::vector<int32_t>{2, 1, 3, 3, 4}));

  // target[[0, 0, 2]] = [1, 2, 3] on an int64 (3,) of nines: the untouched element stays.
  const ArrayView small = this->Array(DType::kInt64, std::vector<int64_t>{9, 9, 9}, {3});
  ArrayView small_where = small;
  small_where.strides = {0};
  ASSERT_TRUE(
      this->backend()
          .indexing()
          .Scatter(TestQueue(this->backend()),
                   {.target = small_where,
                    .indices = {{.indices =
                                     this->Array(DType::kInt64, std::vector<int64_t>{0, 0, 2}, {3}),
                                 .extent = 3,
                                 .stride = 1,
                                 .axis = 0}},
                    .values = this->Array(DType::kInt64, std::vector<int64_t>{1, 2, 3}, {3})})
          .ok());
  EXPECT_EQ(this->template Read<int64_t>(small), (std::vector<int64_t>{2, 9, 3}));

  // 2^16 + 3 writes of their position into an int64 (7,) at random indices in [-7, 7).
  std::mt19937_64 rng(testing::BaseSeed() + 3);
  const int64_t extent = 7;
  const int64_t writes = (1 << 16) + 3;
  std::vector<int64_t> indices(writes);
  std::vector<int64_t> values(writes);
  std::vector<int64_t> expected(extent, -1);
  for (int64_t p = 0; p < writes; ++p) {
    indices[p] = std::uniform_int_distribution<int64_t>(-extent, extent - 1)(rng);
    values[p] = p;
    expected[(indices[p] + extent) % extent] = p;
  }
  const ArrayView many = this->Array(DType::kInt64, std::vector<int64_t>(extent, -1), {extent});
  ArrayView many_where = many;
  many_where.shape = {writes};
  many_where.strides = {0};
  ASSERT_TRUE(this->backend()
                  .indexing()
                  .Scatter(TestQueue(this->backend()),
                           {.target = many_where,
                            .indices = {{.indices = this->Array(DType::kInt64, indices, {writes}),
                                         .extent = extent,
                                         .stride = 1,
                                         .axis = 0}},
                            .values = this->Array(DType::kInt64, values, {writes})})
                  .ok());
  EXPECT_EQ(this->template Read<int64_t>(many), expected);
}

TYPED_TEST_P(IndexingConformanceTest, ScatterCombinesRepeatedIndicesInOrder) {
  // np.add.at(float64 [0, 10, 0.5], [0, -3, 2, 0, 1], [1, 2, 3, 4, 5]).
  const ArrayView f64 = this->Array(DType::kFloat64, std::vector<double>{0, 10, 0.5}, {3});
  ASSERT_TRUE(this->CombineInto(ElementwiseOp::kAdd, DType::kFloat64, f64, {0, -3, 2, 0, 1},
                                std::vector<double>{1, 2, 3, 4, 5})
                  .ok());
  EXPECT_EQ(this->template Read<double>(f64), (std::vector<double>{7, 15, 3.5}));

  // Sequential order, not a tree: 2^24 + 1 + 1 rounds to 2^24 at each step in float32, and
  // 2048 + 1 + 1 - 1 to 2047 in float16 (which rounds back to half after each step).
  const ArrayView f32 = this->Array(DType::kFloat32, std::vector<float>{0x1p24f}, {1});
  ASSERT_TRUE(
      this->CombineInto(ElementwiseOp::kAdd, DType::kFloat32, f32, {0, 0}, std::vector<float>{1, 1})
          .ok());
  EXPECT_EQ(this->template Read<float>(f32), (std::vector<float>{0x1p24f}));
  const auto half = [](float x) { return Imath::half(x).bits(); };
  const ArrayView f16 = this->Array(DType::kFloat16, std::vector<uint16_t>{half(2048)}, {1});
  ASSERT_TRUE(this->CombineInto(ElementwiseOp::kAdd, DType::kFloat16, f16, {0, 0, 0},
                                std::vector<uint16_t>{half(1), half(1), half(-1)})
                  .ok());
  EXPECT_EQ(this->template Read<uint16_t>(f16), (std::vector<uint16_t>{half(2047)}));

  // maximum propagates NaN, fmax ignores it; subtract and multiply in order.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> extrema = {nan, 5, 7, -1, 0};
  const ArrayView maximum = this->Array(DType::kFloat32, std::vector<float>{1, 2, 3}, {3});
  const ArrayView fmax = this->Array(DType::kFloat32, std::vector<float>{1, 2, 3}, {3});
  const ArrayView minimum = this->Array(DType::kFloat32, std::vector<float>{1, 2, 3}, {3});
  ASSERT_TRUE(
      this->CombineInto(ElementwiseOp::kMaximum, DType::kFloat32, maximum, {0, 0, 1, 1, 2}, extrema)
          .ok());
  ASSERT_TRUE(
      this->CombineInto(ElementwiseOp::kFmax, DType::kFloat32, fmax, {0, 0, 1, 1, 2}, extrema)
          .ok());
  ASSERT_TRUE(
      this->CombineInto(ElementwiseOp::kMinimum, DType::kFloat32, minimum, {1, 1, 2, 2, 2}, extrema)
          .ok());
  const std::vector<float> max_result = this->template Read<float>(maximum);
  EXPECT_TRUE(std::isnan(max_result[0]));
  EXPECT_EQ(max_result[1], 7);
  EXPECT_EQ(max_result[2], 3);
  EXPECT_EQ(this->template Read<float>(fmax), (std::vector<float>{5, 7, 3}));
  const std::vector<float> min_result = this->template Read<float>(minimum);
  EXPECT_EQ(min_result[0], 1);
  EXPECT_TRUE(std::isnan(min_result[1]));
  EXPECT_EQ(min_result[2], -1);

  // Integers wrap: 120 + 5 + 5 in int8; 3 - 4 - 4 in uint16.
  const ArrayView i8 = this->Array(DType::kInt8, std::vector<int8_t>{120}, {1});
  ASSERT_TRUE(
      this->CombineInto(ElementwiseOp::kAdd, DType::kInt8, i8, {0, -1}, std::vector<int8_t>{5, 5})
          .ok());
  EXPECT_EQ(this->template Read<int8_t>(i8), (std::vector<int8_t>{-126}));
  const ArrayView u16 = this->Array(DType::kUInt16, std::vector<uint16_t>{3}, {1});
  ASSERT_TRUE(this->CombineInto(ElementwiseOp::kSubtract, DType::kUInt16, u16, {0, 0},
                                std::vector<uint16_t>{4, 4})
                  .ok());
  EXPECT_EQ(this->template Read<uint16_t>(u16), (std::vector<uint16_t>{65531}));

  // bool: add is or, multiply is and; subtract is refused and writes nothing.
  const ArrayView any = this->Array(DType::kBool, std::vector<uint8_t>{0, 1}, {2});
  const ArrayView all = this->Array(DType::kBool, std::vector<uint8_t>{1, 1}, {2});
  ASSERT_TRUE(this->CombineInto(ElementwiseOp::kAdd, DType::kBool, any, {0, 1, 0},
                                std::vector<uint8_t>{1, 0, 0})
                  .ok());
  ASSERT_TRUE(this->CombineInto(ElementwiseOp::kMultiply, DType::kBool, all, {0, 1, 0},
                                std::vector<uint8_t>{1, 0, 1})
                  .ok());
  EXPECT_EQ(this->template Read<uint8_t>(any), (std::vector<uint8_t>{1, 1}));
  EXPECT_EQ(this->template Read<uint8_t>(all), (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(
      this->CombineInto(ElementwiseOp::kSubtract, DType::kBool, all, {0}, std::vector<uint8_t>{1})
          .code(),
      absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(this->template Read<uint8_t>(all), (std::vector<uint8_t>{1, 0}));

  // complex128: (1 + 1j) * 1j * 2.
  using C = std::complex<double>;
  const ArrayView c128 = this->Array(DType::kComplex128, std::vector<C>{C(1, 1)}, {1});
  ASSERT_TRUE(this->CombineInto(ElementwiseOp::kMultiply, DType::kComplex128, c128, {0, 0},
                                std::vector<C>{C(0, 1), C(2, 0)})
                  .ok());
  EXPECT_EQ(this->template Read<C>(c128), (std::vector<C>{C(-2, 2)}));

  // An index out of bounds anywhere: NumPy's message, and nothing combined.
  const absl::Status status = this->CombineInto(ElementwiseOp::kAdd, DType::kFloat64, f64,
                                                {0, 1, 3}, std::vector<double>{1, 1, 1});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "index 3 is out of bounds for axis 0 with size 3");
  EXPECT_EQ(this->template Read<double>(f64), (std::vector<double>{7, 15, 3.5}));
}

TYPED_TEST_P(IndexingConformanceTest, SelectUniqueKeepsTheFirstOfEachRunAndOneNaN) {
  IndexingKernels& indexing = this->backend().indexing();
  auto select = [&](DType dtype, const ArrayView& sorted) {
    const ArrayView output = this->Output(dtype, sorted.shape);
    const absl::StatusOr<int64_t> count =
        indexing.SelectUnique(TestQueue(this->backend()), {.sorted = sorted, .output = output});
    EXPECT_TRUE(count.ok()) << count.status();
    return std::pair(output, count.value_or(-1));
  };

  // float64: -0.0 equals 0.0 and comes first, so it stays; the NaNs (two bit patterns) are one
  // value, the first of them.
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> reals{-kInf, -1, -0.0, 0.0, 0.0, 2, 2, kInf, nan, -nan};
  const auto [real_output, real_count] =
      select(DType::kFloat64, this->Array(DType::kFloat64, reals, {10}));
  const std::vector<double> real_firsts{-kInf, -1, -0.0, 2, kInf, nan};
  ASSERT_EQ(real_count, 6);
  const std::vector<double> got = this->template Read<double>(real_output);
  for (size_t i = 0; i < real_firsts.size(); ++i) {
    EXPECT_EQ(std::bit_cast<uint64_t>(got[i]), std::bit_cast<uint64_t>(real_firsts[i])) << i;
  }

  // float16, through its own order.
  using Imath::half;
  const std::vector<half> halves{half(-0.0f), half(0.0f), half(1.0f), half(1.0f), half(nan)};
  const auto [half_output, half_count] =
      select(DType::kFloat16, this->Array(DType::kFloat16, halves, {5}));
  ASSERT_EQ(half_count, 3);
  const std::vector<half> half_firsts = this->template Read<half>(half_output);
  EXPECT_EQ(half_firsts[0].bits(), half(-0.0f).bits());
  EXPECT_EQ(half_firsts[1].bits(), half(1.0f).bits());
  EXPECT_TRUE(half_firsts[2].isNan());

  // complex128: a value with a NaN in either part equals every other such value (numpy.unique's
  // equal_nan), though numpy.sort orders them by class.
  using C = std::complex<double>;
  const std::vector<C> complexes{C(1, 1), C(1, 1), C(1, 2), C(1, nan), C(nan, 0), C(nan, nan)};
  const auto [complex_output, complex_count] =
      select(DType::kComplex128, this->Array(DType::kComplex128, complexes, {6}));
  ASSERT_EQ(complex_count, 3);
  const std::vector<C> complex_firsts = this->template Read<C>(complex_output);
  EXPECT_EQ(complex_firsts[0], C(1, 1));
  EXPECT_EQ(complex_firsts[1], C(1, 2));
  EXPECT_EQ(complex_firsts[2].real(), 1);
  EXPECT_TRUE(std::isnan(complex_firsts[2].imag()));

  // int32 on fresh random data: std::unique's answer.
  std::mt19937_64 rng(testing::BaseSeed() + 5);
  std::vector<int32_t> integers(5000);
  for (int32_t& v : integers) v = static_cast<int32_t>(rng() % 300) - 150;
  std::sort(integers.begin(), integers.end());
  const auto [integer_output, integer_count] =
      select(DType::kInt32, this->Array(DType::kInt32, integers, {5000}));
  std::vector<int32_t> expected = integers;
  expected.erase(std::unique(expected.begin(), expected.end()), expected.end());
  ASSERT_EQ(integer_count, static_cast<int64_t>(expected.size()));
  std::vector<int32_t> firsts = this->template Read<int32_t>(integer_output);
  firsts.resize(expected.size());
  EXPECT_EQ(firsts, expected);
}

REGISTER_TYPED_TEST_SUITE_P(IndexingConformanceTest, GatherOutOfBoundsNamesIndexAxisAndSize,
                            ScatterLastDuplicateWinsAndBadIndexWritesNothing,
                            ScatterCombinesRepeatedIndicesInOrder,
                            SelectUniqueKeepsTheFirstOfEachRunAndOneNaN);

}  // namespace arrayhub
