// What every backend's gathers and scatters promise (see backend_conformance.h): an index out
// of bounds fails with NumPy's IndexError message, naming the first bad index in C order, and a
// scatter refused so writes nothing; among duplicate destinations the last in C order wins, as
// NumPy's sequential assignment, also with negative indices and over many writes.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "tests/backend/backend_conformance.h"
#include "tests/support/test_seed.h"

namespace arrayhub {

template <typename Factory>
class IndexingConformanceTest : public BackendTest<Factory> {
 protected:
  testing::SeedTrace seed_trace_;
};

TYPED_TEST_SUITE_P(IndexingConformanceTest);

TYPED_TEST_P(IndexingConformanceTest, GatherOutOfBoundsNamesIndexAxisAndSize) {
  // data[[1, -4]] of a float32 (3,): a 1-D index broadcast along nothing.
  const ArrayView data = this->Array(DType::kFloat32, std::vector<float>{1, 2, 3}, {2}, {0});
  absl::Status status = this->backend().Gather(
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
  status = this->backend().Gather(
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
    return this->backend().Scatter(
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
          .Scatter({.target = small_where,
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
                  .Scatter({.target = many_where,
                            .indices = {{.indices = this->Array(DType::kInt64, indices, {writes}),
                                         .extent = extent,
                                         .stride = 1,
                                         .axis = 0}},
                            .values = this->Array(DType::kInt64, values, {writes})})
                  .ok());
  EXPECT_EQ(this->template Read<int64_t>(many), expected);
}

REGISTER_TYPED_TEST_SUITE_P(IndexingConformanceTest, GatherOutOfBoundsNamesIndexAxisAndSize,
                            ScatterLastDuplicateWinsAndBadIndexWritesNothing);

}  // namespace arrayhub
