// What every backend's linear algebra refuses and what it gives for nothing (see
// backend_conformance.h): Cholesky of a matrix that is not positive definite and solve of a
// singular one fail with NumPy's LinAlgError messages, alone or anywhere in a stack, small or
// large (the CUDA backend takes batched routines for stacks of small matrices); integer products
// wrap; a product over an empty contraction is zeros; eig's eigenpairs satisfy A v = w v on
// random matrices of every precision, and eig refuses inf and NaN as NumPy does.
#pragma once

#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <cstring>
#include <random>
#include <type_traits>
#include <vector>

#include "tests/backend/backend_conformance.h"
#include "tests/support/test_queue.h"
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

  // The eigenpairs of random general matrices (stacked and alone; real ones have complex pairs)
  // against their definition, computed here in double: |A v_j - w_j v_j| small next to |A|,
  // each v_j of unit norm, and eigvals-only giving the same eigenvalues. Inf or NaN anywhere in
  // a stack is refused with NumPy's message.
  template <typename T>
  void CheckEig(DType dtype, const Shape& shape, double tol) {
    using Complex = std::complex<double>;
    const int64_t n = shape.back();
    const int64_t count = Count(shape) / (n * n);
    const std::vector<double> normal = Normal(2 * Count(shape));
    std::vector<T> values(static_cast<size_t>(Count(shape)));
    std::vector<Complex> a(values.size());
    for (size_t k = 0; k < values.size(); ++k) {
      if constexpr (std::is_floating_point_v<T>) {
        values[k] = static_cast<T>(normal[k]);
        a[k] = static_cast<double>(values[k]);
      } else {
        values[k] = T(static_cast<typename T::value_type>(normal[k]),
                      static_cast<typename T::value_type>(normal[values.size() + k]));
        a[k] = Complex(values[k].real(), values[k].imag());
      }
    }
    const DType complex =
        RealDType(dtype) == DType::kFloat64 ? DType::kComplex128 : DType::kComplex64;
    using C = std::complex<std::conditional_t<
        std::is_same_v<T, double> || std::is_same_v<T, std::complex<double>>, double, float>>;
    Shape w_shape(shape.begin(), shape.end() - 1);
    const ArrayView input = this->Array(dtype, values, shape);
    const ArrayView w = this->Output(complex, w_shape);
    const ArrayView v = this->Output(complex, shape);
    ASSERT_TRUE(
        this->backend()
            .linalg()
            .Eig(TestQueue(this->backend()), {.a = input, .compute_vectors = true, .w = w, .v = v})
            .ok());
    const ArrayView w_only = this->Output(complex, w_shape);
    ASSERT_TRUE(this->backend()
                    .linalg()
                    .Eig(TestQueue(this->backend()),
                         {.a = input, .compute_vectors = false, .w = w_only, .v = {}})
                    .ok());
    const std::vector<C> wv = this->template Read<C>(w);
    const std::vector<C> vv = this->template Read<C>(v);
    const std::vector<C> wo = this->template Read<C>(w_only);
    for (int64_t b = 0; b < count; ++b) {
      const Complex* ab = &a[static_cast<size_t>(b * n * n)];
      double a_norm = 0;
      for (int64_t k = 0; k < n * n; ++k) a_norm += std::norm(ab[k]);
      a_norm = std::sqrt(a_norm);
      for (int64_t j = 0; j < n; ++j) {
        const Complex lambda = wv[static_cast<size_t>(b * n + j)];
        double residual = 0, length = 0;
        for (int64_t i = 0; i < n; ++i) {
          Complex av = 0;
          for (int64_t k = 0; k < n; ++k) {
            av += ab[i * n + k] * Complex(vv[static_cast<size_t>((b * n + k) * n + j)]);
          }
          const Complex vij = vv[static_cast<size_t>((b * n + i) * n + j)];
          residual += std::norm(av - lambda * vij);
          length += std::norm(vij);
        }
        EXPECT_LT(std::sqrt(residual), tol * a_norm) << "matrix " << b << ", eigenpair " << j;
        EXPECT_NEAR(length, 1.0, tol) << "matrix " << b << ", eigenvector " << j;
        // The eigenvalues alone are the same set.
        double nearest = INFINITY;
        for (int64_t k = 0; k < n; ++k) {
          nearest =
              std::min(nearest, std::abs(Complex(wo[static_cast<size_t>(b * n + k)]) - lambda));
        }
        EXPECT_LT(nearest, tol * a_norm) << "matrix " << b << ", eigenvalue " << j;
      }
    }
    // A NaN in the last matrix, an inf in the first.
    for (const size_t k : {values.size() - 1, size_t{0}}) {
      std::vector<T> bad = values;
      bad[k] = T(k == 0 ? INFINITY : NAN);
      const absl::Status status = this->backend().linalg().Eig(TestQueue(this->backend()),
                                                               {.a = this->Array(dtype, bad, shape),
                                                                .compute_vectors = true,
                                                                .w = this->Output(complex, w_shape),
                                                                .v = this->Output(complex, shape)});
      EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
      EXPECT_EQ(status.message(), "Array must not contain infs or NaNs");
    }
  }

  testing::SeedTrace seed_trace_;
  std::mt19937_64 rng_{testing::BaseSeed()};
};

TYPED_TEST_SUITE_P(LinalgConformanceTest);

TYPED_TEST_P(LinalgConformanceTest, CholeskyRefusesMatricesNotPositiveDefinite) {
  auto expect_refused = [&](const ArrayView& a) {
    const absl::Status status = this->backend().linalg().Cholesky(
        TestQueue(this->backend()), {.a = a, .out = this->Output(DType::kFloat64, a.shape)});
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
    const absl::Status status = this->backend().linalg().Solve(
        TestQueue(this->backend()),
        {.a = a, .b = std::nullopt, .x = this->Output(a.dtype, a.shape)});
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
  ASSERT_TRUE(
      this->backend()
          .linalg()
          .Matmul(TestQueue(this->backend()), {.a = this->Array(DType::kInt8, hundreds, {4, 8}),
                                               .b = this->Array(DType::kInt8, hundreds, {8, 4}),
                                               .out = out,
                                               .compute_dtype = DType::kInt8})
          .ok());
  EXPECT_EQ(this->template Read<int8_t>(out), std::vector<int8_t>(16, -128));
  // Empty contractions, (3, 0) @ (0, 2) and (5, 0) @ (0, 6): zeros, written over the garbage.
  const ArrayView zeros64 = this->Output(DType::kFloat64, {3, 2});
  ASSERT_TRUE(this->backend()
                  .linalg()
                  .Matmul(TestQueue(this->backend()),
                          {.a = this->Array(DType::kFloat64, std::vector<double>{}, {3, 0}),
                           .b = this->Array(DType::kFloat64, std::vector<double>{}, {0, 2}),
                           .out = zeros64,
                           .compute_dtype = DType::kFloat64})
                  .ok());
  EXPECT_EQ(this->template Read<double>(zeros64), std::vector<double>(6, 0.0));
  const ArrayView zeros32 = this->Output(DType::kFloat32, {5, 6});
  ASSERT_TRUE(this->backend()
                  .linalg()
                  .Matmul(TestQueue(this->backend()),
                          {.a = this->Array(DType::kFloat32, std::vector<float>{}, {5, 0}),
                           .b = this->Array(DType::kFloat32, std::vector<float>{}, {0, 6}),
                           .out = zeros32,
                           .compute_dtype = DType::kFloat32})
                  .ok());
  EXPECT_EQ(this->template Read<float>(zeros32), std::vector<float>(30, 0.0f));
}

TYPED_TEST_P(LinalgConformanceTest, EigSatisfiesTheDefinition) {
  for (const Shape& shape : std::vector<Shape>{{3, 5, 5}, {40, 40}}) {
    SCOPED_TRACE(FormatShape(shape));
    this->template CheckEig<float>(DType::kFloat32, shape, 1e-4);
    this->template CheckEig<double>(DType::kFloat64, shape, 1e-10);
    this->template CheckEig<std::complex<float>>(DType::kComplex64, shape, 1e-4);
    this->template CheckEig<std::complex<double>>(DType::kComplex128, shape, 1e-10);
  }
  // A rotation by 90 degrees: eigenvalues +-i, a conjugate pair of a real matrix.
  const ArrayView w = this->Output(DType::kComplex128, {2});
  ASSERT_TRUE(this->backend()
                  .linalg()
                  .Eig(TestQueue(this->backend()),
                       {.a = this->Array(DType::kFloat64, std::vector<double>{0, -1, 1, 0}, {2, 2}),
                        .compute_vectors = false,
                        .w = w,
                        .v = {}})
                  .ok());
  const std::vector<std::complex<double>> rotation = this->template Read<std::complex<double>>(w);
  EXPECT_NEAR(std::abs(rotation[0] - std::complex<double>(0, 1)), 0, 1e-12);
  EXPECT_NEAR(std::abs(rotation[1] - std::complex<double>(0, -1)), 0, 1e-12);
}

REGISTER_TYPED_TEST_SUITE_P(LinalgConformanceTest, CholeskyRefusesMatricesNotPositiveDefinite,
                            SingularMatricesAreRefused, MatmulWrapsIntegersAndSumsNothingToZero,
                            EigSatisfiesTheDefinition);

}  // namespace arrayhub
