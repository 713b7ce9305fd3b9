// What every backend's linear algebra refuses and what it gives for nothing (see
// backend_conformance.h): Cholesky of a matrix that is not positive definite and solve of a
// singular one fail with NumPy's LinAlgError messages, alone or anywhere in a stack, small or
// large (the CUDA backend takes batched routines for stacks of small matrices); integer products
// wrap; a product over an empty contraction is zeros.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "tests/backend/backend_conformance.h"
#include "tests/support/test_seed.h"

namespace arrayhub {

template <typename Factory>
class LinalgConformanceTest : public BackendTest<Factory> {
 protected:
  // Standard normal values.
  std::vector<double> Normal(int64_t count) {
    std::normal_distribution<double> normal;
    std::vector<double> values(static_cast<size_t>(count));
    for (double& v : values) v = normal(rng_);
    return values;
  }

  // `count` positive-definite n x n matrices, M M^T + n I of random M.
  std::vector<double> PositiveDefinite(int64_t count, int64_t n) {
    const std::vector<double> m = Normal(count * n * n);
    std::vector<double> out(static_cast<size_t>(count * n * n), 0.0);
    for (int64_t b = 0; b < count; ++b) {
      const double* mb = &m[static_cast<size_t>(b * n * n)];
      double* ob = &out[static_cast<size_t>(b * n * n)];
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          for (int64_t k = 0; k < n; ++k) ob[i * n + j] += mb[i * n + k] * mb[j * n + k];
        }
        ob[i * n + i] += static_cast<double>(n);
      }
    }
    return out;
  }

  testing::SeedTrace seed_trace_;
  std::mt19937_64 rng_{testing::BaseSeed()};
};

TYPED_TEST_SUITE_P(LinalgConformanceTest);

TYPED_TEST_P(LinalgConformanceTest, CholeskyRefusesMatricesNotPositiveDefinite) {
  auto expect_refused = [&](const ArrayView& a) {
    const absl::Status status =
        this->backend().Cholesky({.a = a, .out = this->Output(DType::kFloat64, a.shape)});
    EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
    EXPECT_EQ(status.message(), "Matrix is not positive definite");
  };
  expect_refused(this->Array(DType::kFloat64, std::vector<double>{-1, 0, 0, -1}, {2, 2}));
  // Positive-definite stacks but for the last diagonal element of the last matrix.
  for (const Shape& shape : std::vector<Shape>{{3, 4, 4}, {90, 90}}) {
    SCOPED_TRACE(FormatShape(shape));
    const int64_t n = shape.back();
    const int64_t count = Count(shape) / (n * n);
    std::vector<double> values = this->PositiveDefinite(count, n);
    values.back() = -1.0;
    expect_refused(this->Array(DType::kFloat64, values, shape));
  }
}

TYPED_TEST_P(LinalgConformanceTest, SingularMatricesAreRefused) {
  auto expect_refused = [&](const ArrayView& a) {
    const absl::Status status =
        this->backend().Solve({.a = a, .b = std::nullopt, .x = this->Output(a.dtype, a.shape)});
    EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
    EXPECT_EQ(status.message(), "Singular matrix");
  };
  std::vector<double> progression;  // a[i, j] = i + j: rank 2.
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) progression.push_back(i + j);
  }
  expect_refused(this->Array(DType::kFloat64, progression, {3, 3}));
  // Random float32 stacks whose first matrix has a row of zeros.
  for (const Shape& shape : std::vector<Shape>{{4, 6, 6}, {90, 90}}) {
    SCOPED_TRACE(FormatShape(shape));
    const int64_t n = shape.back();
    std::vector<float> values;
    for (double v : this->Normal(Count(shape))) values.push_back(static_cast<float>(v));
    for (int64_t j = 0; j < n; ++j) values[static_cast<size_t>(n + j)] = 0;
    expect_refused(this->Array(DType::kFloat32, values, shape));
  }
}

TYPED_TEST_P(LinalgConformanceTest, MatmulWrapsIntegersAndSumsNothingToZero) {
  // 8 products of 100 * 100 wrap around int8: 80000 = 312 * 256 + 128, so -128.
  const std::vector<int8_t> hundreds(32, 100);
  const ArrayView out = this->Output(DType::kInt8, {4, 4});
  ASSERT_TRUE(this->backend()
                  .Matmul({.a = this->Array(DType::kInt8, hundreds, {4, 8}),
                           .b = this->Array(DType::kInt8, hundreds, {8, 4}),
                           .out = out,
                           .compute_dtype = DType::kInt8})
                  .ok());
  EXPECT_EQ(this->template Read<int8_t>(out), std::vector<int8_t>(16, -128));
  // Empty contractions, (3, 0) @ (0, 2) and (5, 0) @ (0, 6): zeros, written over the garbage.
  const ArrayView zeros64 = this->Output(DType::kFloat64, {3, 2});
  ASSERT_TRUE(this->backend()
                  .Matmul({.a = this->Array(DType::kFloat64, std::vector<double>{}, {3, 0}),
                           .b = this->Array(DType::kFloat64, std::vector<double>{}, {0, 2}),
                           .out = zeros64,
                           .compute_dtype = DType::kFloat64})
                  .ok());
  EXPECT_EQ(this->template Read<double>(zeros64), std::vector<double>(6, 0.0));
  const ArrayView zeros32 = this->Output(DType::kFloat32, {5, 6});
  ASSERT_TRUE(this->backend()
                  .Matmul({.a = this->Array(DType::kFloat32, std::vector<float>{}, {5, 0}),
                           .b = this->Array(DType::kFloat32, std::vector<float>{}, {0, 6}),
                           .out = zeros32,
                           .compute_dtype = DType::kFloat32})
                  .ok());
  EXPECT_EQ(this->template Read<float>(zeros32), std::vector<float>(30, 0.0f));
}

REGISTER_TYPED_TEST_SUITE_P(LinalgConformanceTest, CholeskyRefusesMatricesNotPositiveDefinite,
                            SingularMatricesAreRefused, MatmulWrapsIntegersAndSumsNothingToZero);

}  // namespace arrayhub
