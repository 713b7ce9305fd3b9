// Linear algebra on the CUDA backend against float64 references computed here on the host,
// on fresh random data every run (the seed is printed, and named by every failure;
// ARRAYHUB_TEST_SEED replays a run).
// Factorizations are checked by what defines them (A = U S V^H with orthonormal U and V,
// Q R = A, L L^H = A, A V = V diag(w), A X = B) and their values against LAPACK's (float64).
// Runs only where there is a GPU.
#include <Imath/half.h>
#include <gtest/gtest.h>

#include <complex>  // Before lapacke.h, whose complex types are std::complex here.
#define lapack_complex_float std::complex<float>
#define lapack_complex_double std::complex<double>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <thread>
#include <vector>

#include "server/backend/cuda/cuda_backend.h"
#include "server/common/float16.h"
#include "server/common/shape.h"
#include "server/common/status_macros.h"
#include "tests/backend/cuda_fixture.h"
#include "tests/backend/element_bytes.h"
#include "tests/support/test_queue.h"
#include "tests/support/test_seed.h"

namespace arrayhub {
namespace {

using cd = std::complex<double>;
using Values = std::vector<cd>;

// ---- Values of every dtype, as complex doubles ----

void Encode(cd value, DType dtype, std::byte* out) {
  const auto integer = static_cast<int64_t>(value.real());
  switch (dtype) {
    case DType::kBool:
      return Put<uint8_t>(value.real() != 0 ? 1 : 0, out);
    case DType::kInt8:
      return Put(static_cast<int8_t>(integer), out);
    case DType::kInt16:
      return Put(static_cast<int16_t>(integer), out);
    case DType::kInt32:
      return Put(static_cast<int32_t>(integer), out);
    case DType::kInt64:
      return Put(integer, out);
    case DType::kUInt8:
      return Put(static_cast<uint8_t>(integer), out);
    case DType::kUInt16:
      return Put(static_cast<uint16_t>(integer), out);
    case DType::kUInt32:
      return Put(static_cast<uint32_t>(integer), out);
    case DType::kUInt64:
      return Put(static_cast<uint64_t>(integer), out);
    case DType::kFloat16:
      return Put(HalfFromDouble(value.real()).bits(), out);
    case DType::kFloat32:
      return Put(static_cast<float>(value.real()), out);
    case DType::kFloat64:
      return Put(value.real(), out);
    case DType::kComplex64:
      return Put(std::complex<float>(value), out);
    case DType::kComplex128:
      return Put(value, out);
  }
}

cd Decode(DType dtype, const std::byte* in) {
  switch (dtype) {
    case DType::kBool:
      return Get<uint8_t>(in);
    case DType::kInt8:
      return Get<int8_t>(in);
    case DType::kInt16:
      return Get<int16_t>(in);
    case DType::kInt32:
      return Get<int32_t>(in);
    case DType::kInt64:
      return static_cast<double>(Get<int64_t>(in));
    case DType::kUInt8:
      return Get<uint8_t>(in);
    case DType::kUInt16:
      return Get<uint16_t>(in);
    case DType::kUInt32:
      return Get<uint32_t>(in);
    case DType::kUInt64:
      return static_cast<double>(Get<uint64_t>(in));
    case DType::kFloat16: {
      Imath::half half;
      half.setBits(Get<uint16_t>(in));
      return static_cast<float>(half);
    }
    case DType::kFloat32:
      return Get<float>(in);
    case DType::kFloat64:
      return Get<double>(in);
    case DType::kComplex64:
      return cd(Get<std::complex<float>>(in));
    case DType::kComplex128:
      return Get<cd>(in);
  }
  return 0;
}

// The value as `dtype` stores it (rounded, or wrapped for integers).
cd Rounded(cd value, DType dtype) {
  std::byte bytes[16];
  Encode(value, dtype, bytes);
  return Decode(dtype, bytes);
}

// ---- Host matrices ----

struct Matrix {
  int64_t rows = 0;
  int64_t cols = 0;
  Values v;  // Row-major.
  cd& operator()(int64_t i, int64_t j) { return v[i * cols + j]; }
  cd operator()(int64_t i, int64_t j) const { return v[i * cols + j]; }
};

Matrix Zeros(int64_t rows, int64_t cols) { return {rows, cols, Values(rows * cols)}; }
Matrix Identity(int64_t n) {
  Matrix eye = Zeros(n, n);
  for (int64_t i = 0; i < n; ++i) eye(i, i) = 1;
  return eye;
}

// Matrix b of a C-ordered stack of rows x cols matrices.
Matrix Slice(const Values& values, int64_t b, int64_t rows, int64_t cols) {
  const auto begin = values.begin() + b * rows * cols;
  return {rows, cols, Values(begin, begin + rows * cols)};
}

Matrix Adjoint(const Matrix& a) {
  Matrix t = Zeros(a.cols, a.rows);
  for (int64_t i = 0; i < a.rows; ++i) {
    for (int64_t j = 0; j < a.cols; ++j) t(j, i) = std::conj(a(i, j));
  }
  return t;
}

Matrix Multiply(const Matrix& a, const Matrix& b) {
  Matrix c = Zeros(a.rows, b.cols);
  for (int64_t i = 0; i < a.rows; ++i) {
    for (int64_t l = 0; l < a.cols; ++l) {
      const cd x = a(i, l);
      for (int64_t j = 0; j < b.cols; ++j) c(i, j) += x * b(l, j);
    }
  }
  return c;
}

Matrix Minus(Matrix a, const Matrix& b) {
  for (size_t i = 0; i < a.v.size(); ++i) a.v[i] -= b.v[i];
  return a;
}

double Norm(const Matrix& a) {
  double sum = 0;
  for (const cd x : a.v) sum += std::norm(x);
  return std::sqrt(sum);
}

double MaxAbs(const Matrix& a) {
  double largest = 0;
  for (const cd x : a.v) largest = std::max(largest, std::abs(x));
  return largest;
}

// max |X^H X - I|: how far the columns of X are from orthonormal.
double OrthonormalityError(const Matrix& x) {
  return MaxAbs(Minus(Multiply(Adjoint(x), x), Identity(x.cols)));
}

// LAPACK's eigenvalues of a Hermitian matrix (zheev), ascending.
std::vector<double> HermitianEigenvalues(Matrix h) {
  std::vector<double> w(h.rows);
  const lapack_int info =
      LAPACKE_zheev(LAPACK_ROW_MAJOR, 'N', 'L', h.rows, h.v.data(), h.rows, w.data());
  EXPECT_EQ(info, 0);
  return w;
}

// LAPACK's singular values (zgesvd), descending.
std::vector<double> SingularValues(Matrix a) {
  std::vector<double> s(std::min(a.rows, a.cols));
  std::vector<double> superb(s.size() + 1);
  const lapack_int info = LAPACKE_zgesvd(LAPACK_ROW_MAJOR, 'N', 'N', a.rows, a.cols, a.v.data(),
                                         a.cols, s.data(), nullptr, 1, nullptr, 1, superb.data());
  EXPECT_EQ(info, 0);
  return s;
}

// The sign and log|det| from LAPACK's LU factorization (zgetrf).
std::pair<cd, double> Slogdet(Matrix a) {
  std::vector<lapack_int> pivots(a.rows);
  const lapack_int info =
      LAPACKE_zgetrf(LAPACK_ROW_MAJOR, a.rows, a.rows, a.v.data(), a.rows, pivots.data());
  if (info > 0) return {0, -INFINITY};
  cd sign = 1;
  double log_sum = 0;
  for (int64_t i = 0; i < a.rows; ++i) {
    const cd d = a(i, i);
    sign *= d / std::abs(d);
    log_sum += std::log(std::abs(d));
    if (pivots[i] != i + 1) sign = -sign;
  }
  return {sign, log_sum};
}

// Tolerances of the issue: float32 work to 1e-5, float64 to 1e-12.
double Tolerance(DType dtype) {
  return dtype == DType::kFloat32 || dtype == DType::kComplex64 ? 1e-5 : 1e-12;
}

// ---- The fixture: device arrays with host mirrors ----

struct DeviceArray {
  std::shared_ptr<Buffer> buffer;
  ArrayView view;
  Values storage;  // The buffer's elements as stored.

  int64_t Rows() const { return view.shape.end()[-2]; }
  int64_t Cols() const { return view.shape.back(); }
  int64_t Batch() const { return Count(view.shape) / std::max<int64_t>(Rows() * Cols(), 1); }
  // The view's elements in C order.
  Values Logical() const {
    Values out;
    const int64_t count = Count(view.shape);
    out.reserve(count);
    const int64_t first = view.offset_bytes / ItemSize(view.dtype);
    std::vector<int64_t> index(view.shape.size(), 0);
    for (int64_t n = 0; n < count; ++n) {
      int64_t at = first;
      for (size_t axis = 0; axis < index.size(); ++axis) at += index[axis] * view.strides[axis];
      out.push_back(storage[at]);
      for (size_t axis = index.size(); axis-- > 0;) {
        if (++index[axis] < view.shape[axis]) break;
        index[axis] = 0;
      }
    }
    return out;
  }
};

class CudaLinalgTest : public CudaFixture {
 protected:
  cd RandomValue(DType dtype) {
    std::normal_distribution<double> normal;
    switch (KindOf(dtype)) {
      case DTypeKind::kBool:
        return static_cast<double>(rng_() % 2);
      case DTypeKind::kSigned:
        return static_cast<double>(static_cast<int64_t>(rng_() % 201) - 100);
      case DTypeKind::kUnsigned:
        return static_cast<double>(rng_() % 200);
      case DTypeKind::kFloat:
        return normal(rng_);
      case DTypeKind::kComplex:
        return cd(normal(rng_), normal(rng_));
    }
    return 0;
  }

  // A contiguous array holding `values` (rounded to the dtype).
  DeviceArray Upload(DType dtype, const Shape& shape, const Values& values) {
    DeviceArray array;
    const int64_t item = ItemSize(dtype);
    std::vector<std::byte> bytes(values.size() * item);
    for (size_t i = 0; i < values.size(); ++i) {
      Encode(values[i], dtype, bytes.data() + i * item);
      array.storage.push_back(Decode(dtype, bytes.data() + i * item));
    }
    absl::StatusOr<std::shared_ptr<Buffer>> buffer =
        cuda_->memory().Allocate(TestQueue(*cuda_), bytes.size());
    EXPECT_TRUE(buffer.ok()) << buffer.status();
    array.buffer = *buffer;
    EXPECT_TRUE(cuda_->memory().CopyFromHost(TestQueue(*cuda_), *array.buffer, 0, bytes).ok());
    array.view = {.buffer = array.buffer.get(),
                  .dtype = dtype,
                  .shape = shape,
                  .strides = ContiguousStrides(shape)};
    return array;
  }

  DeviceArray Random(DType dtype, const Shape& shape) {
    Values values(Count(shape));
    for (cd& value : values) value = RandomValue(dtype);
    return Upload(dtype, shape, values);
  }

  // Random, stored with the last two axes swapped and viewed back (a transposed view).
  DeviceArray RandomTransposed(DType dtype, Shape shape) {
    const size_t r = shape.size();
    std::swap(shape[r - 1], shape[r - 2]);
    DeviceArray array = Random(dtype, shape);
    std::swap(array.view.shape[r - 1], array.view.shape[r - 2]);
    std::swap(array.view.strides[r - 1], array.view.strides[r - 2]);
    return array;
  }

  // Random, viewed as every other row and column of a larger array from element (0, 1): no
  // BLAS layout describes it.
  DeviceArray RandomStrided(DType dtype, const Shape& shape) {
    const size_t r = shape.size();
    Shape storage = shape;
    storage[r - 2] *= 2;
    storage[r - 1] *= 2;
    DeviceArray array = Random(dtype, storage);
    array.view.shape = shape;
    array.view.strides[r - 2] *= 2;
    array.view.strides[r - 1] *= 2;
    array.view.offset_bytes = ItemSize(dtype);
    return array;
  }

  // An output, poisoned with all-ones bytes (NaN for floats) so that unwritten elements show.
  DeviceArray Output(DType dtype, const Shape& shape) {
    DeviceArray array;
    const std::vector<std::byte> poison(Count(shape) * ItemSize(dtype), std::byte{0xff});
    absl::StatusOr<std::shared_ptr<Buffer>> buffer =
        cuda_->memory().Allocate(TestQueue(*cuda_), poison.size());
    EXPECT_TRUE(buffer.ok()) << buffer.status();
    array.buffer = *buffer;
    EXPECT_TRUE(cuda_->memory().CopyFromHost(TestQueue(*cuda_), *array.buffer, 0, poison).ok());
    array.view = {.buffer = array.buffer.get(),
                  .dtype = dtype,
                  .shape = shape,
                  .strides = ContiguousStrides(shape)};
    return array;
  }

  // The view's elements in C order, read back from the device.
  Values Fetch(DeviceArray array) {
    array.storage = Read(array);
    return array.Logical();
  }

  // A contiguous output's values.
  Values Read(const DeviceArray& array) {
    const int64_t item = ItemSize(array.view.dtype);
    std::vector<std::byte> bytes(Count(array.view.shape) * item);
    EXPECT_TRUE(cuda_->memory().CopyToHost(TestQueue(*cuda_), *array.buffer, 0, bytes).ok());
    Values values(Count(array.view.shape));
    for (size_t i = 0; i < values.size(); ++i)
      values[i] = Decode(array.view.dtype, &bytes[i * item]);
    return values;
  }

  testing::SeedTrace seed_trace_;
  std::mt19937_64 rng_{testing::BaseSeed()};
};

Shape WithMatrix(Shape batch, int64_t rows, int64_t cols) {
  batch.push_back(rows);
  batch.push_back(cols);
  return batch;
}

// ---- Matmul ----

// Checks out = op(a) @ op(b) against the host product; exact for integers.
void ExpectProduct(const DeviceArray& a, const DeviceArray& b, const Values& out, DType dtype,
                   bool conjugate_a, bool conjugate_b, double tolerance) {
  const int64_t m = a.Rows();
  const int64_t k = a.Cols();
  const int64_t n = b.Cols();
  const Values av = a.Logical();
  const Values bv = b.Logical();
  for (int64_t batch = 0; batch < a.Batch(); ++batch) {
    Matrix x = Slice(av, batch, m, k);
    Matrix y = Slice(bv, batch, k, n);
    for (cd& value : x.v) value = conjugate_a ? std::conj(value) : value;
    for (cd& value : y.v) value = conjugate_b ? std::conj(value) : value;
    const Matrix expected = Multiply(x, y);
    const Matrix got = Slice(out, batch, m, n);
    if (IsInteger(dtype) || dtype == DType::kBool) {
      for (int64_t i = 0; i < m * n; ++i) {
        const cd want = dtype == DType::kBool ? cd(expected.v[i] != 0.0 ? 1 : 0)
                                              : Rounded(expected.v[i], dtype);
        ASSERT_EQ(got.v[i], want) << "batch " << batch << " element " << i;
      }
    } else {
      const double error = Norm(Minus(got, expected)) / Norm(expected);
      EXPECT_LE(error, tolerance) << "batch " << batch << " of " << DTypeName(dtype);
    }
  }
}

// The float tolerance of a product: relative Frobenius error against float64. float16 rounds
// its output to 11 bits.
double ProductTolerance(DType dtype) { return dtype == DType::kFloat16 ? 2e-3 : Tolerance(dtype); }

TEST_F(CudaLinalgTest, MatmulBatchedMatchesHostForEveryDtype) {
  for (const DType dtype :
       {DType::kFloat16, DType::kFloat32, DType::kFloat64, DType::kComplex64, DType::kComplex128,
        DType::kInt8, DType::kInt32, DType::kUInt16, DType::kInt64, DType::kBool}) {
    SCOPED_TRACE(DTypeName(dtype));
    const DeviceArray a = Random(dtype, {3, 17, 40});
    const DeviceArray b = Random(dtype, {3, 40, 9});
    const DeviceArray out = Output(dtype, {3, 17, 9});
    const absl::Status status = cuda_->linalg().Matmul(
        TestQueue(*cuda_), {.a = a.view, .b = b.view, .out = out.view, .compute_dtype = dtype});
    ASSERT_TRUE(status.ok()) << status;
    ExpectProduct(a, b, Read(out), dtype, false, false, ProductTolerance(dtype));
  }
}

TEST_F(CudaLinalgTest, MatmulTransposedStridedAndBroadcastOperands) {
  for (const DType dtype : {DType::kFloat32, DType::kComplex128, DType::kInt16}) {
    SCOPED_TRACE(DTypeName(dtype));
    // a: a transposed view broadcast along axis 1; b: no BLAS layout, broadcast along axis 0.
    DeviceArray a = RandomTransposed(dtype, {2, 1, 33, 20});
    a.view.shape[1] = 3;
    a.view.strides[1] = 0;
    DeviceArray b = RandomStrided(dtype, {1, 3, 20, 12});
    b.view.shape[0] = 2;
    b.view.strides[0] = 0;
    const DeviceArray out = Output(dtype, {2, 3, 33, 12});
    const absl::Status status = cuda_->linalg().Matmul(
        TestQueue(*cuda_), {.a = a.view, .b = b.view, .out = out.view, .compute_dtype = dtype});
    ASSERT_TRUE(status.ok()) << status;
    ExpectProduct(a, b, Read(out), dtype, false, false, ProductTolerance(dtype));
  }
}

TEST_F(CudaLinalgTest, MatmulIntoTransposedOutputWithConjugates) {
  for (const bool conjugate_a : {false, true}) {
    for (const bool conjugate_b : {false, true}) {
      const DeviceArray a = Random(DType::kComplex64, {4, 25, 31});
      const DeviceArray b = RandomTransposed(DType::kComplex64, {4, 31, 19});
      // A column-major output: cuBLAS computes C = A B without swapping the operands.
      DeviceArray out = Output(DType::kComplex64, {4, 19, 25});
      std::swap(out.view.shape[1], out.view.shape[2]);
      std::swap(out.view.strides[1], out.view.strides[2]);
      const absl::Status status =
          cuda_->linalg().Matmul(TestQueue(*cuda_), {.a = a.view,
                                                     .b = b.view,
                                                     .out = out.view,
                                                     .compute_dtype = DType::kComplex64,
                                                     .conjugate_a = conjugate_a,
                                                     .conjugate_b = conjugate_b});
      ASSERT_TRUE(status.ok()) << status;
      ExpectProduct(a, b, Fetch(out), DType::kComplex64, conjugate_a, conjugate_b,
                    Tolerance(DType::kComplex64));
    }
  }
}

TEST_F(CudaLinalgTest, MatmulFloat32IsTrueFloat32UnlessTf32IsAllowed) {
  const DeviceArray a = Random(DType::kFloat32, {512, 512});
  const DeviceArray b = Random(DType::kFloat32, {512, 512});
  for (const MatmulPrecision precision : {MatmulPrecision::kHighest, MatmulPrecision::kTF32}) {
    const DeviceArray out = Output(DType::kFloat32, {512, 512});
    ASSERT_TRUE(cuda_->linalg()
                    .Matmul(TestQueue(*cuda_), {.a = a.view,
                                                .b = b.view,
                                                .out = out.view,
                                                .compute_dtype = DType::kFloat32,
                                                .precision = precision})
                    .ok());
    // TF32 keeps 10 of float32's 23 fraction bits: errors near 1e-3 instead of 1e-7.
    ExpectProduct(a, b, Read(out), DType::kFloat32, false, false,
                  precision == MatmulPrecision::kTF32 ? 3e-3 : 1e-5);
  }
}

TEST_F(CudaLinalgTest, MatmulFromManyThreadsAtOnce) {
  const DeviceArray a = Random(DType::kFloat64, {8, 64, 64});
  const DeviceArray b = Random(DType::kFloat64, {8, 64, 64});
  std::vector<DeviceArray> outs;
  for (int t = 0; t < 8; ++t) outs.push_back(Output(DType::kFloat64, {8, 64, 64}));
  std::vector<std::thread> threads;
  std::vector<absl::Status> results(outs.size());
  for (size_t t = 0; t < outs.size(); ++t) {
    threads.emplace_back([&, t] {
      for (int repeat = 0; repeat < 20 && results[t].ok(); ++repeat) {
        results[t] = cuda_->linalg().Matmul(
            TestQueue(*cuda_),
            {.a = a.view, .b = b.view, .out = outs[t].view, .compute_dtype = DType::kFloat64});
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (size_t t = 0; t < outs.size(); ++t) {
    ASSERT_TRUE(results[t].ok()) << results[t];
    ExpectProduct(a, b, Read(outs[t]), DType::kFloat64, false, false, 1e-12);
  }
}

// ---- SVD ----

class CudaSvdTest : public CudaLinalgTest {
 protected:
  // Runs the SVD of `a` and checks it: A = U S V^H to the dtype's tolerance, U and V
  // orthonormal (all their columns), S descending and equal to the host's singular values.
  void Check(const DeviceArray& a, bool full_matrices, bool compute_uv) {
    const DType dtype = a.view.dtype;
    const int64_t m = a.Rows();
    const int64_t n = a.Cols();
    const int64_t k = std::min(m, n);
    const Shape batch(a.view.shape.begin(), a.view.shape.end() - 2);
    Shape s_shape = batch;
    s_shape.push_back(k);
    const DeviceArray s = Output(RealDType(dtype), s_shape);
    const int64_t u_cols = full_matrices ? m : k;
    const int64_t vh_rows = full_matrices ? n : k;
    DeviceArray u;
    DeviceArray vh;
    SvdCall call;
    call.a = a.view;
    call.full_matrices = full_matrices;
    call.compute_uv = compute_uv;
    call.s = s.view;
    if (compute_uv) {
      u = Output(dtype, WithMatrix(batch, m, u_cols));
      vh = Output(dtype, WithMatrix(batch, vh_rows, n));
      call.u = u.view;
      call.vh = vh.view;
    }
    const absl::Status status = cuda_->linalg().Svd(TestQueue(*cuda_), call);
    ASSERT_TRUE(status.ok()) << status;
    const double tolerance = Tolerance(dtype);
    const Values av = a.Logical();
    const Values sv = Read(s);
    const Values uv = compute_uv ? Read(u) : Values{};
    const Values vhv = compute_uv ? Read(vh) : Values{};
    for (int64_t b = 0; b < a.Batch(); ++b) {
      SCOPED_TRACE(::testing::Message() << DTypeName(dtype) << " " << m << "x" << n << " matrix "
                                        << b << (full_matrices ? " full" : " reduced"));
      const Matrix matrix = Slice(av, b, m, n);
      const std::vector<double> expected = SingularValues(matrix);
      const double largest = std::max(expected.empty() ? 0.0 : expected[0], 1e-300);
      for (int64_t i = 0; i < k; ++i) {
        const double value = sv[b * k + i].real();
        EXPECT_NEAR(value, expected[i], tolerance * largest) << "singular value " << i;
        if (i > 0) {
          EXPECT_LE(value, sv[b * k + i - 1].real());
        }
      }
      if (!compute_uv) continue;
      const Matrix uu = Slice(uv, b, m, u_cols);
      const Matrix vvh = Slice(vhv, b, vh_rows, n);
      EXPECT_LE(OrthonormalityError(uu), tolerance) << "U";
      EXPECT_LE(OrthonormalityError(Adjoint(vvh)), tolerance) << "V";
      Matrix us = Zeros(m, k);  // U[:, :k] diag(S)
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < k; ++j) us(i, j) = uu(i, j) * sv[b * k + j].real();
      }
      Matrix vk = Zeros(k, n);
      for (int64_t i = 0; i < k; ++i) {
        for (int64_t j = 0; j < n; ++j) vk(i, j) = vvh(i, j);
      }
      const double norm = std::max(Norm(matrix), 1e-300);
      EXPECT_LE(Norm(Minus(Multiply(us, vk), matrix)) / norm, tolerance) << "reconstruction";
    }
  }
};

TEST_F(CudaSvdTest, SmallStacksTakeTheJacobiKernel) {
  for (const DType dtype :
       {DType::kFloat32, DType::kFloat64, DType::kComplex64, DType::kComplex128}) {
    for (const bool full : {false, true}) {
      Check(Random(dtype, {3, 64, 64}), full, true);
      Check(Random(dtype, {5, 40, 17}), full, true);    // Tall.
      Check(Random(dtype, {2, 3, 9, 30}), full, true);  // Wide, two batch axes.
      Check(Random(dtype, {1, 1}), full, true);
    }
  }
}

TEST_F(CudaSvdTest, LargerMatricesTakeCusolver) {
  for (const DType dtype :
       {DType::kFloat32, DType::kFloat64, DType::kComplex64, DType::kComplex128}) {
    for (const bool full : {false, true}) {
      Check(Random(dtype, {100, 100}), full, true);
      Check(Random(dtype, {2, 130, 70}), full, true);
      Check(Random(dtype, {70, 96}), full, true);
    }
  }
}

TEST_F(CudaSvdTest, StridedInputsAndValuesOnly) {
  Check(RandomTransposed(DType::kFloat32, {4, 30, 50}), false, true);
  Check(RandomStrided(DType::kFloat64, {2, 90, 80}), true, true);
  Check(Random(DType::kFloat32, {6, 20, 20}), false, false);
  Check(Random(DType::kComplex64, {150, 120}), false, false);
}

TEST_F(CudaSvdTest, RankDeficientAndIllConditionedMatrices) {
  for (const DType dtype : {DType::kFloat32, DType::kFloat64, DType::kComplex64}) {
    for (const int64_t n : {48, 120}) {
      // Rank 5: the product of n x 5 and 5 x n factors; then one with singular values from 1
      // down to 1e-9 (scaled columns of a random orthogonal-ish product).
      const DeviceArray left = Random(DType::kComplex128, {n, 5});
      const DeviceArray right = Random(DType::kComplex128, {5, n});
      Matrix low = Multiply(Slice(left.Logical(), 0, n, 5), Slice(right.Logical(), 0, 5, n));
      Check(Upload(dtype, {n, n}, low.v), true, true);
      Matrix graded = Slice(Random(DType::kComplex128, {n, n}).Logical(), 0, n, n);
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < n; ++j) graded(i, j) *= std::pow(1e-9, double(j) / (n - 1));
      }
      Check(Upload(dtype, {n, n}, graded.v), false, true);
    }
    Check(Upload(dtype, {2, 70, 50}, Values(2 * 70 * 50)), true, true);  // All zeros.
  }
}

TEST_F(CudaSvdTest, NanInputDoesNotConverge) {
  for (const int64_t n : {16, 100}) {
    Values values(n * n, cd(1));
    values[3] = std::numeric_limits<double>::quiet_NaN();
    const DeviceArray a = Upload(DType::kFloat32, {n, n}, values);
    const DeviceArray s = Output(DType::kFloat32, {n});
    SvdCall call;
    call.a = a.view;
    call.compute_uv = false;
    call.s = s.view;
    const absl::Status status = cuda_->linalg().Svd(TestQueue(*cuda_), call);
    EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
    EXPECT_EQ(status.message(), "SVD did not converge");
  }
}

// ---- QR ----

TEST_F(CudaLinalgTest, QrReducedCompleteAndROnly) {
  for (const DType dtype : {DType::kFloat32, DType::kComplex128}) {
    for (const Shape& shape : std::vector<Shape>{{3, 50, 20}, {20, 50}, {130, 130}}) {
      const DeviceArray a = Random(dtype, shape);
      const int64_t m = a.Rows();
      const int64_t n = a.Cols();
      const int64_t k = std::min(m, n);
      const Shape batch(shape.begin(), shape.end() - 2);
      for (const bool complete : {false, true}) {
        const int64_t q_cols = complete ? m : k;
        const DeviceArray q = Output(dtype, WithMatrix(batch, m, q_cols));
        const DeviceArray r = Output(dtype, WithMatrix(batch, q_cols, n));
        const absl::Status status = cuda_->linalg().Qr(
            TestQueue(*cuda_), {.a = a.view, .complete = complete, .q = q.view, .r = r.view});
        ASSERT_TRUE(status.ok()) << status;
        const Values qv = Read(q);
        const Values rv = Read(r);
        const Values av = a.Logical();
        for (int64_t b = 0; b < a.Batch(); ++b) {
          const Matrix qq = Slice(qv, b, m, q_cols);
          const Matrix rr = Slice(rv, b, q_cols, n);
          const Matrix aa = Slice(av, b, m, n);
          EXPECT_LE(OrthonormalityError(qq), Tolerance(dtype));
          EXPECT_LE(Norm(Minus(Multiply(qq, rr), aa)) / Norm(aa), Tolerance(dtype));
          for (int64_t i = 0; i < q_cols; ++i) {
            for (int64_t j = 0; j < std::min(i, n); ++j) ASSERT_EQ(rr(i, j), cd(0));
          }
        }
      }
      // Mode "r": R alone, R^H R = A^H A.
      const DeviceArray r = Output(dtype, WithMatrix(batch, k, n));
      QrCall r_only;
      r_only.a = a.view;
      r_only.compute_q = false;
      r_only.r = r.view;
      ASSERT_TRUE(cuda_->linalg().Qr(TestQueue(*cuda_), r_only).ok());
      const Values rv = Read(r);
      const Matrix aa = Slice(a.Logical(), 0, m, n);
      const Matrix gram = Multiply(Adjoint(aa), aa);
      const Matrix rr = Slice(rv, 0, k, n);
      EXPECT_LE(Norm(Minus(Multiply(Adjoint(rr), rr), gram)) / Norm(gram), 10 * Tolerance(dtype));
    }
  }
}

// ---- Cholesky, eigh ----

// A random Hermitian positive-definite stack: M M^H + n I.
Values PositiveDefinite(const Values& random, int64_t count, int64_t n) {
  Values out;
  for (int64_t b = 0; b < count; ++b) {
    const Matrix m = Slice(random, b, n, n);
    Matrix h = Multiply(m, Adjoint(m));
    for (int64_t i = 0; i < n; ++i) h(i, i) += static_cast<double>(n);
    out.insert(out.end(), h.v.begin(), h.v.end());
  }
  return out;
}

// Replaces the triangle a routine must not read (strictly above the diagonal for `lower`) with
// random values.
Values SpoilTriangle(Values values, int64_t count, int64_t n, bool lower, std::mt19937_64& rng) {
  for (int64_t b = 0; b < count; ++b) {
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        if (lower ? j > i : j < i) values[(b * n + i) * n + j] = cd(double(rng() % 1000) - 500);
      }
    }
  }
  return values;
}

TEST_F(CudaLinalgTest, CholeskyLowerAndUpperReadOnlyTheirTriangle) {
  for (const DType dtype : {DType::kFloat32, DType::kFloat64, DType::kComplex64}) {
    for (const Shape& shape : std::vector<Shape>{{5, 12, 12}, {100, 100}, {2, 80, 80}}) {
      for (const bool upper : {false, true}) {
        const int64_t n = shape.back();
        const int64_t count = Count(shape) / (n * n);
        const Values pd = PositiveDefinite(Random(DType::kComplex128, shape).Logical(), count, n);
        Values input = pd;
        if (!IsComplex(dtype)) {  // The real part of a Hermitian PD matrix is symmetric PD.
          for (cd& value : input) value = value.real();
        }
        const DeviceArray a = Upload(dtype, shape, SpoilTriangle(input, count, n, !upper, rng_));
        const DeviceArray out = Output(dtype, shape);
        const absl::Status status = cuda_->linalg().Cholesky(
            TestQueue(*cuda_), {.a = a.view, .upper = upper, .out = out.view});
        ASSERT_TRUE(status.ok()) << status;
        const Values got = Read(out);
        const DeviceArray exact = Upload(dtype, shape, input);
        for (int64_t b = 0; b < count; ++b) {
          const Matrix factor = Slice(got, b, n, n);
          const Matrix target = Slice(exact.storage, b, n, n);
          for (int64_t i = 0; i < n; ++i) {
            for (int64_t j = 0; j < n; ++j) {
              if (upper ? j < i : j > i) {
                ASSERT_EQ(factor(i, j), cd(0)) << i << "," << j;
              }
            }
          }
          const Matrix product =
              upper ? Multiply(Adjoint(factor), factor) : Multiply(factor, Adjoint(factor));
          EXPECT_LE(Norm(Minus(product, target)) / Norm(target), Tolerance(dtype));
        }
      }
    }
  }
}

TEST_F(CudaLinalgTest, EighValuesAndVectors) {
  for (const DType dtype : {DType::kFloat32, DType::kFloat64, DType::kComplex64}) {
    for (const Shape& shape : std::vector<Shape>{{4, 10, 10}, {100, 100}, {2, 70, 70}}) {
      for (const bool upper : {false, true}) {
        const int64_t n = shape.back();
        const int64_t count = Count(shape) / (n * n);
        const DeviceArray random = Random(dtype, shape);
        Values hermitian;
        for (int64_t b = 0; b < count; ++b) {
          const Matrix m = Slice(random.storage, b, n, n);
          Matrix h = m;
          const Matrix t = Adjoint(m);
          for (size_t i = 0; i < h.v.size(); ++i) h.v[i] = (h.v[i] + t.v[i]) / 2.0;
          hermitian.insert(hermitian.end(), h.v.begin(), h.v.end());
        }
        const DeviceArray exact = Upload(dtype, shape, hermitian);
        const DeviceArray a =
            Upload(dtype, shape, SpoilTriangle(exact.storage, count, n, !upper, rng_));
        Shape w_shape = shape;
        w_shape.pop_back();
        const DeviceArray w = Output(RealDType(dtype), w_shape);
        const DeviceArray v = Output(dtype, shape);
        const absl::Status status = cuda_->linalg().Eigh(
            TestQueue(*cuda_), {.a = a.view, .upper = upper, .w = w.view, .v = v.view});
        ASSERT_TRUE(status.ok()) << status;
        const Values wv = Read(w);
        const Values vv = Read(v);
        for (int64_t b = 0; b < count; ++b) {
          const Matrix h = Slice(exact.storage, b, n, n);
          const Matrix vectors = Slice(vv, b, n, n);
          const std::vector<double> expected = HermitianEigenvalues(h);
          const double scale = std::max(std::abs(expected.front()), std::abs(expected.back()));
          Matrix scaled = vectors;
          for (int64_t i = 0; i < n; ++i) {
            for (int64_t j = 0; j < n; ++j) scaled(i, j) *= wv[b * n + j].real();
            EXPECT_NEAR(wv[b * n + i].real(), expected[i], Tolerance(dtype) * scale);
          }
          EXPECT_LE(OrthonormalityError(vectors), Tolerance(dtype));
          EXPECT_LE(Norm(Minus(Multiply(h, vectors), scaled)) / Norm(h), Tolerance(dtype));
        }
      }
    }
  }
}

// ---- solve, inv, slogdet ----

TEST_F(CudaLinalgTest, SolveAndInverse) {
  for (const DType dtype : {DType::kFloat32, DType::kFloat64, DType::kComplex64}) {
    struct Case {
      Shape a;
      int64_t k;  // Right-hand sides; 0: inv.
    };
    for (const Case& c : std::vector<Case>{
             {{6, 8, 8}, 3}, {{100, 100}, 1}, {{2, 80, 80}, 5}, {{3, 5, 5}, 0}, {{70, 70}, 0}}) {
      const DeviceArray a = Random(dtype, c.a);
      const int64_t n = a.Rows();
      const Shape batch(c.a.begin(), c.a.end() - 2);
      const int64_t k = c.k == 0 ? n : c.k;
      std::optional<DeviceArray> b;
      if (c.k > 0) b = Random(dtype, WithMatrix(batch, n, k));
      const DeviceArray x = Output(dtype, WithMatrix(batch, n, k));
      SolveCall call{.a = a.view, .b = std::nullopt, .x = x.view};
      if (b) call.b = b->view;
      const absl::Status status = cuda_->linalg().Solve(TestQueue(*cuda_), call);
      ASSERT_TRUE(status.ok()) << status;
      const Values xv = Read(x);
      for (int64_t i = 0; i < a.Batch(); ++i) {
        const Matrix aa = Slice(a.storage, i, n, n);
        const Matrix xx = Slice(xv, i, n, k);
        const Matrix rhs = b ? Slice(b->storage, i, n, k) : Identity(n);
        // Normwise backward error, which LU with partial pivoting keeps near rounding.
        EXPECT_LE(Norm(Minus(Multiply(aa, xx), rhs)) / (Norm(aa) * Norm(xx)), Tolerance(dtype))
            << DTypeName(dtype) << " " << n << " k " << c.k;
      }
    }
  }
}

TEST_F(CudaLinalgTest, SolveBroadcastRightHandSide) {
  const DeviceArray a = Random(DType::kFloat64, {3, 8, 8});
  DeviceArray b = Random(DType::kFloat64, {1, 8, 2});
  b.view.shape[0] = 3;
  b.view.strides[0] = 0;
  const DeviceArray x = Output(DType::kFloat64, {3, 8, 2});
  ASSERT_TRUE(
      cuda_->linalg().Solve(TestQueue(*cuda_), {.a = a.view, .b = b.view, .x = x.view}).ok());
  const Values xv = Read(x);
  for (int64_t i = 0; i < 3; ++i) {
    const Matrix aa = Slice(a.storage, i, 8, 8);
    const Matrix xx = Slice(xv, i, 8, 2);
    EXPECT_LE(Norm(Minus(Multiply(aa, xx), Slice(b.storage, 0, 8, 2))) / (Norm(aa) * Norm(xx)),
              1e-12);
  }
}

TEST_F(CudaLinalgTest, SlogdetMatchesHostLu) {
  for (const DType dtype : {DType::kFloat32, DType::kFloat64, DType::kComplex64}) {
    for (const Shape& shape : std::vector<Shape>{{5, 6, 6}, {90, 90}, {2, 70, 70}, {2, 0, 0}}) {
      const int64_t n = shape.back();
      const int64_t count = shape.size() > 2 ? shape[0] : 1;
      Values values = Random(dtype, shape).storage;
      if (n > 0) {
        for (int64_t j = 0; j < n; ++j) values[j] = 0;  // The first matrix is singular.
      }
      const DeviceArray a = Upload(dtype, shape, values);
      const Shape batch(shape.begin(), shape.end() - 2);
      const DeviceArray sign = Output(dtype, batch);
      const DeviceArray logdet = Output(RealDType(dtype), batch);
      ASSERT_TRUE(cuda_->linalg()
                      .Slogdet(TestQueue(*cuda_),
                               {.a = a.view, .sign = sign.view, .logabsdet = logdet.view})
                      .ok());
      const Values sv = Read(sign);
      const Values lv = Read(logdet);
      for (int64_t b = 0; b < count; ++b) {
        const auto [want_sign, want_log] =
            n == 0 ? std::pair<cd, double>{1, 0} : Slogdet(Slice(a.storage, b, n, n));
        SCOPED_TRACE(::testing::Message() << DTypeName(dtype) << " n " << n << " matrix " << b);
        if (std::isinf(want_log)) {
          EXPECT_EQ(sv[b], cd(0));
          EXPECT_EQ(lv[b].real(), -INFINITY);
          continue;
        }
        // Each pivot carries a relative error near rounding: n of them add up in the log.
        const double tolerance = 10 * Tolerance(dtype) * static_cast<double>(n);
        EXPECT_NEAR(lv[b].real(), want_log, tolerance);
        EXPECT_NEAR(std::abs(sv[b] - want_sign), 0, tolerance);
      }
    }
  }
}

}  // namespace
}  // namespace arrayhub
