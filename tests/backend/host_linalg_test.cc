// The CPU backend's linear algebra, called directly with views built here (transposed,
// strided, broadcast, reversed), on fresh random data each run. Products are checked against a
// float64 (complex128) reference; factorizations by what defines them (reconstruction error,
// orthogonality, triangularity) with the bounds of the issue (float32 1e-5, float64 1e-12), and
// singular values against LAPACK's in double precision.
#include <Imath/half.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "server/backend/host/host_backend.h"
#include "server/common/float16.h"
#include "tests/support/linalg_reference.h"
#include "tests/support/test_queue.h"
#include "tests/support/test_seed.h"

namespace arrayhub {
namespace {

using Half = Imath::half;
using testing::Complex;
using testing::ConjugateTranspose;
using testing::FrobeniusNorm;
using testing::IdentityMatrix;
using testing::Matrix;
using testing::Multiply;
using testing::OrthogonalityError;
using testing::ReferenceSingularValues;
using testing::Subtract;
using testing::SvdReconstructionError;

template <typename T>
constexpr DType DTypeOf() {
  if constexpr (std::is_same_v<T, Half>) return DType::kFloat16;
  if constexpr (std::is_same_v<T, float>) return DType::kFloat32;
  if constexpr (std::is_same_v<T, double>) return DType::kFloat64;
  if constexpr (std::is_same_v<T, std::complex<float>>) return DType::kComplex64;
  if constexpr (std::is_same_v<T, std::complex<double>>) return DType::kComplex128;
  if constexpr (std::is_same_v<T, bool>) return DType::kBool;
  if constexpr (std::is_same_v<T, int8_t>) return DType::kInt8;
  if constexpr (std::is_same_v<T, int32_t>) return DType::kInt32;
  if constexpr (std::is_same_v<T, uint64_t>) return DType::kUInt64;
}

template <typename T>
constexpr bool kComplex = std::is_same_v<T, std::complex<float>> || std::is_same_v<T, Complex>;

template <typename T>
Complex Widen(T value) {
  if constexpr (kComplex<T>) {
    return Complex(value);
  } else {
    return static_cast<double>(value);
  }
}

// Relative bounds of the issue.
template <typename T>
double Tolerance() {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, std::complex<float>>) return 1e-5;
  return 1e-12;
}

// An array in a buffer of its own: `shape` with `strides` from `offset` elements in, over
// `capacity` elements (room for strided and reversed layouts).
struct TestArray {
  std::shared_ptr<Buffer> buffer;
  ArrayView view;

  template <typename T>
  T& at(std::initializer_list<int64_t> index) const {
    int64_t element = 0;
    auto axis = view.strides.begin();
    for (int64_t i : index) element += i * *axis++;
    return reinterpret_cast<T*>(static_cast<std::byte*>(buffer->data()) +
                                view.offset_bytes)[element];
  }
};

class HostLinalgTest : public ::testing::Test {
 protected:
  TestArray Allocate(DType dtype, Shape shape, Strides strides, int64_t offset, int64_t capacity) {
    absl::StatusOr<std::shared_ptr<Buffer>> buffer = backend_.memory().Allocate(
        TestQueue(backend_), std::max<int64_t>(capacity, 1) * ItemSize(dtype));
    EXPECT_TRUE(buffer.ok()) << buffer.status();
    // Garbage everywhere, so that reads outside the view and unwritten outputs show.
    std::memset((*buffer)->data(), 0x7f, static_cast<size_t>((*buffer)->size()));
    return {*buffer, ArrayView{.buffer = buffer->get(),
                               .offset_bytes = offset * ItemSize(dtype),
                               .dtype = dtype,
                               .shape = std::move(shape),
                               .strides = std::move(strides)}};
  }

  TestArray Contiguous(DType dtype, const Shape& shape) {
    int64_t count = 1;
    for (int64_t extent : shape) count *= extent;
    return Allocate(dtype, shape, ContiguousStrides(shape), 0, count);
  }

  template <typename T>
  T Random() {
    std::normal_distribution<double> normal;
    if constexpr (kComplex<T>) {
      return T(normal(rng_), normal(rng_));
    } else if constexpr (std::is_same_v<T, Half>) {
      return HalfFromDouble(normal(rng_));
    } else {
      return static_cast<T>(normal(rng_));
    }
  }

  // Fills every element of a stack of matrices (batch..., rows, cols) with f(batch, i, j).
  template <typename T, typename F>
  void Fill(const TestArray& array, F&& f) {
    ForEachElement<T>(array,
                      [&](int64_t b, int64_t i, int64_t j, T& element) { element = f(b, i, j); });
  }

  template <typename T>
  void FillRandom(const TestArray& array) {
    Fill<T>(array, [&](int64_t, int64_t, int64_t) { return Random<T>(); });
  }

  // Calls f(batch, i, j, element) over a stack of matrices; the batch is flattened in C order.
  template <typename T, typename F>
  static void ForEachElement(const TestArray& array, F&& f) {
    const ArrayView& v = array.view;
    const size_t rank = v.shape.size();
    int64_t batches = 1;
    for (size_t axis = 0; axis + 2 < rank; ++axis) batches *= v.shape[axis];
    T* origin =
        reinterpret_cast<T*>(static_cast<std::byte*>(array.buffer->data()) + v.offset_bytes);
    for (int64_t b = 0; b < batches; ++b) {
      int64_t offset = 0;
      for (int64_t axis = static_cast<int64_t>(rank) - 3, rest = b; axis >= 0; --axis) {
        offset += rest % v.shape[axis] * v.strides[axis];
        rest /= v.shape[axis];
      }
      for (int64_t i = 0; i < v.shape[rank - 2]; ++i) {
        for (int64_t j = 0; j < v.shape[rank - 1]; ++j) {
          f(b, i, j, origin[offset + i * v.strides[rank - 2] + j * v.strides[rank - 1]]);
        }
      }
    }
  }

  // A stack of matrices read out as complex128, indexed [batch][i][j].
  template <typename T>
  static std::vector<std::vector<std::vector<Complex>>> Read(const TestArray& array) {
    const size_t rank = array.view.shape.size();
    std::vector<std::vector<std::vector<Complex>>> result;
    ForEachElement<T>(array, [&](int64_t b, int64_t i, int64_t j, T& element) {
      if (static_cast<size_t>(b) >= result.size()) {
        result.emplace_back(array.view.shape[rank - 2],
                            std::vector<Complex>(array.view.shape[rank - 1]));
      }
      result[b][i][j] = Widen(element);
    });
    return result;
  }

  HostBackend backend_;
  testing::SeedTrace seed_trace_;
  std::mt19937_64 rng_{testing::BaseSeed()};
};

// --- matmul --------------------------------------------------------------------------------

class HostMatmulTest : public HostLinalgTest {
 protected:
  // Runs the call and compares every output element with the complex128 product of the
  // operands as stored: |c - ref| <= tolerance * sum_p |a_ip| |b_pj|.
  template <typename T>
  void ExpectProduct(const TestArray& a, const TestArray& b, const TestArray& out, double tolerance,
                     bool conjugate_a = false, bool conjugate_b = false) {
    FillRandom<T>(a);
    FillRandom<T>(b);
    const MatmulCall call{.a = a.view,
                          .b = b.view,
                          .out = out.view,
                          .compute_dtype = DTypeOf<T>(),
                          .conjugate_a = conjugate_a,
                          .conjugate_b = conjugate_b};
    ASSERT_TRUE(backend_.linalg().Matmul(TestQueue(backend_), call).ok());
    const auto as = Read<T>(a);
    const auto bs = Read<T>(b);
    const auto cs = Read<T>(out);
    ASSERT_EQ(as.size(), cs.size());
    for (size_t batch = 0; batch < cs.size(); ++batch) {
      for (size_t i = 0; i < cs[batch].size(); ++i) {
        for (size_t j = 0; j < cs[batch][i].size(); ++j) {
          Complex expected = 0;
          double scale = 0;
          for (size_t p = 0; p < bs[batch].size(); ++p) {
            const Complex x = conjugate_a ? std::conj(as[batch][i][p]) : as[batch][i][p];
            const Complex y = conjugate_b ? std::conj(bs[batch][p][j]) : bs[batch][p][j];
            expected += x * y;
            scale += std::abs(x) * std::abs(y);
          }
          ASSERT_LE(std::abs(cs[batch][i][j] - expected), tolerance * scale)
              << "batch " << batch << " element (" << i << ", " << j << "): " << cs[batch][i][j]
              << " vs " << expected;
        }
      }
    }
  }

  template <typename T>
  void ExpectContiguousProduct(double tolerance) {
    const DType dtype = DTypeOf<T>();
    SCOPED_TRACE(DTypeName(dtype));
    // Odd sizes, so that no BLAS kernel sees only whole blocks.
    ExpectProduct<T>(Contiguous(dtype, {37, 53}), Contiguous(dtype, {53, 29}),
                     Contiguous(dtype, {37, 29}), tolerance);
  }
};

TEST_F(HostMatmulTest, EveryFloatDTypeMatchesAFloat64Reference) {
  ExpectContiguousProduct<Half>(1e-3);  // One rounding to half; float32 accumulation.
  ExpectContiguousProduct<float>(1e-5);
  ExpectContiguousProduct<double>(1e-13);
  ExpectContiguousProduct<std::complex<float>>(1e-5);
  ExpectContiguousProduct<Complex>(1e-13);
}

TEST_F(HostMatmulTest, Float16AccumulatesInFloat32) {
  // 4096 products of 1: a float16 running sum would stop at 2048.
  TestArray a = Contiguous(DType::kFloat16, {1, 4096});
  TestArray b = Contiguous(DType::kFloat16, {4096, 1});
  TestArray c = Contiguous(DType::kFloat16, {1, 1});
  Fill<Half>(a, [](int64_t, int64_t, int64_t) { return Half(1.0f); });
  Fill<Half>(b, [](int64_t, int64_t, int64_t) { return Half(1.0f); });
  ASSERT_TRUE(
      backend_.linalg()
          .Matmul(TestQueue(backend_),
                  {.a = a.view, .b = b.view, .out = c.view, .compute_dtype = DType::kFloat16})
          .ok());
  EXPECT_EQ(static_cast<float>(c.at<Half>({0, 0})), 4096.0f);
}

TEST_F(HostMatmulTest, BatchedWithBroadcastBatchAxes) {
  // a (3, 1, 4, 5) and b (2, 5, 6) broadcast to the batch (3, 2): stride 0 where broadcast.
  const DType dtype = DType::kFloat64;
  TestArray a = Allocate(dtype, {3, 2, 4, 5}, {20, 0, 5, 1}, 0, 60);
  TestArray b = Allocate(dtype, {3, 2, 5, 6}, {0, 30, 6, 1}, 0, 60);
  TestArray c = Contiguous(dtype, {3, 2, 4, 6});
  ExpectProduct<double>(a, b, c, 1e-13);
}

TEST_F(HostMatmulTest, TransposedStridedAndReversedOperandsNeedNoContiguousCopy) {
  // a^T: a column-major (6, 7) view; b: every other column of a wider buffer, from an offset;
  // out: column-major. BLAS reads these in place (as transposes or with a leading dimension).
  for (bool conjugate : {false, true}) {
    SCOPED_TRACE(conjugate ? "conjugated" : "plain");
    TestArray a = Allocate(DType::kComplex128, {6, 7}, {1, 6}, 0, 42);
    TestArray b = Allocate(DType::kComplex128, {7, 5}, {12, 2}, 3, 3 + 7 * 12);
    TestArray c = Allocate(DType::kComplex128, {6, 5}, {1, 6}, 0, 30);
    ExpectProduct<Complex>(a, b, c, 1e-13, conjugate, conjugate);
  }
  // Reversed rows (negative stride), a broadcast row (stride 0) and a strided output: packed.
  TestArray reversed = Allocate(DType::kFloat32, {4, 3}, {-3, 1}, 9, 12);
  TestArray repeated = Allocate(DType::kFloat32, {3, 8}, {0, 1}, 0, 8);
  TestArray gappy = Allocate(DType::kFloat32, {4, 8}, {20, 2}, 1, 80);
  ExpectProduct<float>(reversed, repeated, gappy, 1e-5);
}

TEST_F(HostMatmulTest, VectorShapedOperands) {
  // What core makes of 1-D operands: (1, k) rows and (k, 1) columns with a zero stride.
  TestArray row = Allocate(DType::kFloat32, {1, 9}, {0, 1}, 0, 9);
  TestArray column = Allocate(DType::kFloat32, {9, 1}, {1, 0}, 0, 9);
  TestArray scalar = Contiguous(DType::kFloat32, {1, 1});
  ExpectProduct<float>(row, column, scalar, 1e-5);
  TestArray outer = Contiguous(DType::kFloat32, {9, 9});
  ExpectProduct<float>(column, row, outer, 1e-5);
}

TEST_F(HostMatmulTest, IntegerProductsWrapAndBoolIsAnyAnd) {
  TestArray a = Contiguous(DType::kInt8, {1, 2});
  TestArray b = Contiguous(DType::kInt8, {2, 1});
  TestArray c = Contiguous(DType::kInt8, {1, 1});
  a.at<int8_t>({0, 0}) = 100;
  a.at<int8_t>({0, 1}) = -7;
  b.at<int8_t>({0, 0}) = 3;
  b.at<int8_t>({1, 0}) = 9;
  ASSERT_TRUE(backend_.linalg()
                  .Matmul(TestQueue(backend_),
                          {.a = a.view, .b = b.view, .out = c.view, .compute_dtype = DType::kInt8})
                  .ok());
  EXPECT_EQ(c.at<int8_t>({0, 0}), static_cast<int8_t>(300 - 63));  // NumPy: 237 wraps to -19.

  // int32 with random values, transposed b: exact modulo 2^32.
  TestArray x = Contiguous(DType::kInt32, {5, 11});
  TestArray y = Allocate(DType::kInt32, {11, 4}, {1, 11}, 0, 44);
  TestArray z = Contiguous(DType::kInt32, {5, 4});
  std::uniform_int_distribution<int32_t> any;
  Fill<int32_t>(x, [&](int64_t, int64_t, int64_t) { return any(rng_); });
  Fill<int32_t>(y, [&](int64_t, int64_t, int64_t) { return any(rng_); });
  ASSERT_TRUE(backend_.linalg()
                  .Matmul(TestQueue(backend_),
                          {.a = x.view, .b = y.view, .out = z.view, .compute_dtype = DType::kInt32})
                  .ok());
  for (int64_t i = 0; i < 5; ++i) {
    for (int64_t j = 0; j < 4; ++j) {
      uint32_t expected = 0;
      for (int64_t p = 0; p < 11; ++p) {
        expected += static_cast<uint32_t>(x.at<int32_t>({i, p})) *
                    static_cast<uint32_t>(y.at<int32_t>({p, j}));
      }
      EXPECT_EQ(static_cast<uint32_t>(z.at<int32_t>({i, j})), expected);
    }
  }

  // uint64 beyond 2^53, where a float64 computation would round.
  TestArray u = Contiguous(DType::kUInt64, {1, 1});
  TestArray v = Contiguous(DType::kUInt64, {1, 1});
  TestArray w = Contiguous(DType::kUInt64, {1, 1});
  u.at<uint64_t>({0, 0}) = (uint64_t{1} << 60) + 1;
  v.at<uint64_t>({0, 0}) = 3;
  ASSERT_TRUE(
      backend_.linalg()
          .Matmul(TestQueue(backend_),
                  {.a = u.view, .b = v.view, .out = w.view, .compute_dtype = DType::kUInt64})
          .ok());
  EXPECT_EQ(w.at<uint64_t>({0, 0}), (uint64_t{3} << 60) + 3);

  // bool: True where any a[i, p] and b[p, j] are both nonzero (bytes other than 1 included).
  TestArray p = Contiguous(DType::kBool, {2, 2});
  TestArray q = Contiguous(DType::kBool, {2, 2});
  TestArray r = Contiguous(DType::kBool, {2, 2});
  const uint8_t p_bytes[] = {1, 0, 0, 0};
  const uint8_t q_bytes[] = {0, 2, 1, 0};
  std::memcpy(p.buffer->data(), p_bytes, 4);
  std::memcpy(q.buffer->data(), q_bytes, 4);
  ASSERT_TRUE(backend_.linalg()
                  .Matmul(TestQueue(backend_),
                          {.a = p.view, .b = q.view, .out = r.view, .compute_dtype = DType::kBool})
                  .ok());
  uint8_t r_bytes[4];
  std::memcpy(r_bytes, r.buffer->data(), 4);
  EXPECT_THAT(r_bytes, ::testing::ElementsAre(0, 1, 0, 0));
}

// --- factorizations ------------------------------------------------------------------------

class HostFactorizationTest : public HostLinalgTest {
 protected:
  template <typename T>
  void CheckSvd(int64_t batch, int64_t m, int64_t n, bool full_matrices) {
    using R = decltype(std::abs(T()));
    const DType dtype = DTypeOf<T>();
    const DType real = DTypeOf<R>();
    SCOPED_TRACE(::testing::Message() << DTypeName(dtype) << " (" << batch << ", " << m << ", " << n
                                      << ") full_matrices " << full_matrices);
    const int64_t k = std::min(m, n);
    const double tolerance = Tolerance<T>();
    // A transposed view as input: the backend reads any strides.
    TestArray a = Allocate(dtype, {batch, m, n}, {m * n, 1, m}, 0, batch * m * n);
    FillRandom<T>(a);
    TestArray u = Contiguous(dtype, {batch, m, full_matrices ? m : k});
    TestArray s = Contiguous(real, {batch, 1, k});  // (batch, k), read as 1 x k matrices.
    TestArray vh = Contiguous(dtype, {batch, full_matrices ? n : k, n});
    ArrayView s_view = s.view;
    s_view.shape = {batch, k};
    s_view.strides = {k, 1};
    ASSERT_TRUE(backend_.linalg()
                    .Svd(TestQueue(backend_), {.a = a.view,
                                               .full_matrices = full_matrices,
                                               .compute_uv = true,
                                               .u = u.view,
                                               .s = s_view,
                                               .vh = vh.view})
                    .ok());
    const auto as = Read<T>(a);
    const auto us = Read<T>(u);
    const auto ss = Read<R>(s);
    const auto vhs = Read<T>(vh);
    for (int64_t b = 0; b < batch; ++b) {
      std::vector<double> singular_values;
      for (Complex value : ss[b][0]) singular_values.push_back(value.real());
      EXPECT_LE(SvdReconstructionError(as[b], us[b], singular_values, vhs[b]), tolerance);
      EXPECT_LE(OrthogonalityError(us[b]), tolerance);
      EXPECT_LE(OrthogonalityError(ConjugateTranspose(vhs[b])), tolerance);
      const std::vector<double> expected = ReferenceSingularValues(as[b]);
      for (int64_t j = 0; j < k; ++j) {
        EXPECT_LE(std::abs(singular_values[j] - expected[j]), tolerance * expected[0]) << j;
        if (j > 0) {
          EXPECT_LE(singular_values[j], singular_values[j - 1]);
        }
      }
    }
  }

  template <typename T>
  void CheckSvdShapes() {
    CheckSvd<T>(2, 7, 5, true);
    CheckSvd<T>(2, 7, 5, false);
    CheckSvd<T>(1, 4, 9, true);
    CheckSvd<T>(1, 4, 9, false);
    CheckSvd<T>(50, 3, 3, false);  // A stack of small matrices.
  }
};

TEST_F(HostFactorizationTest, SvdReconstructsWithOrthonormalFactors) {
  CheckSvdShapes<float>();
  CheckSvdShapes<double>();
  CheckSvdShapes<std::complex<float>>();
  CheckSvdShapes<Complex>();
}

TEST_F(HostFactorizationTest, SvdWithoutVectorsAndOfNonFiniteInput) {
  TestArray a = Contiguous(DType::kFloat64, {6, 4});
  FillRandom<double>(a);
  TestArray s = Contiguous(DType::kFloat64, {1, 4});
  ArrayView s_view = s.view;
  s_view.shape = {4};
  s_view.strides = {1};
  ASSERT_TRUE(backend_.linalg()
                  .Svd(TestQueue(backend_), {.a = a.view,
                                             .full_matrices = false,
                                             .compute_uv = false,
                                             .u = {},
                                             .s = s_view,
                                             .vh = {}})
                  .ok());
  const std::vector<double> expected = ReferenceSingularValues(Read<double>(a)[0]);
  for (int64_t j = 0; j < 4; ++j)
    EXPECT_NEAR(s.at<double>({0, j}), expected[j], 1e-12 * expected[0]);

  a.at<double>({2, 3}) = std::nan("");
  const absl::Status status = backend_.linalg().Svd(
      TestQueue(backend_),
      {.a = a.view, .full_matrices = false, .compute_uv = false, .u = {}, .s = s_view, .vh = {}});
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(status.message(), "SVD did not converge");
}

void ExpectUpperTriangular(const Matrix& r) {
  for (size_t i = 0; i < r.size(); ++i) {
    for (size_t j = 0; j < std::min(i, r[i].size()); ++j) EXPECT_EQ(r[i][j], Complex(0));
  }
}

TEST_F(HostFactorizationTest, QrReconstructsWithOrthonormalQ) {
  for (const auto& [m, n] : {std::pair<int64_t, int64_t>{7, 4}, {4, 7}, {5, 5}}) {
    for (bool complete : {false, true}) {
      SCOPED_TRACE(::testing::Message() << m << "x" << n << " complete " << complete);
      const int64_t k = std::min(m, n);
      TestArray a = Contiguous(DType::kComplex128, {2, m, n});
      FillRandom<Complex>(a);
      TestArray q = Contiguous(DType::kComplex128, {2, m, complete ? m : k});
      TestArray r = Contiguous(DType::kComplex128, {2, complete ? m : k, n});
      ASSERT_TRUE(backend_.linalg()
                      .Qr(TestQueue(backend_),
                          {.a = a.view, .complete = complete, .q = q.view, .r = r.view})
                      .ok());
      const auto as = Read<Complex>(a);
      const auto qs = Read<Complex>(q);
      const auto rs = Read<Complex>(r);
      for (int b = 0; b < 2; ++b) {
        EXPECT_LE(FrobeniusNorm(Subtract(as[b], Multiply(qs[b], rs[b]))) / FrobeniusNorm(as[b]),
                  1e-12);
        EXPECT_LE(OrthogonalityError(qs[b]), 1e-12);
        ExpectUpperTriangular(rs[b]);
      }
      // mode "r": R alone, the same R.
      TestArray r_only = Contiguous(DType::kComplex128, {2, complete ? m : k, n});
      ASSERT_TRUE(backend_.linalg()
                      .Qr(TestQueue(backend_), {.a = a.view,
                                                .complete = complete,
                                                .compute_q = false,
                                                .q = {},
                                                .r = r_only.view})
                      .ok());
      EXPECT_EQ(Read<Complex>(r_only), rs);
    }
  }
}

class HostSpdTest : public HostLinalgTest {
 protected:
  // Fills `a` with a random Hermitian positive-definite matrix, M M^H + n I; returns it as
  // stored (rounded to T).
  template <typename T>
  Matrix FillPositiveDefinite(const TestArray& a, int64_t n) {
    Matrix m(n, std::vector<Complex>(n));
    for (auto& row : m) {
      for (Complex& x : row) x = Widen(Random<T>());
    }
    Matrix spd = Multiply(m, ConjugateTranspose(m));
    for (int64_t i = 0; i < n; ++i) spd[i][i] += static_cast<double>(n);
    Fill<T>(a, [&](int64_t, int64_t i, int64_t j) {
      if constexpr (kComplex<T>) {
        return T(spd[i][j]);
      } else {
        return static_cast<T>(spd[i][j].real());
      }
    });
    return Read<T>(a)[0];
  }

  template <typename T>
  void CheckCholesky(bool upper) {
    SCOPED_TRACE(::testing::Message() << DTypeName(DTypeOf<T>()) << (upper ? " upper" : " lower"));
    constexpr int64_t n = 6;
    TestArray a = Contiguous(DTypeOf<T>(), {n, n});
    const Matrix spd = FillPositiveDefinite<T>(a, n);
    TestArray factor = Contiguous(DTypeOf<T>(), {n, n});
    ASSERT_TRUE(
        backend_.linalg()
            .Cholesky(TestQueue(backend_), {.a = a.view, .upper = upper, .out = factor.view})
            .ok());
    const Matrix f = Read<T>(factor)[0];
    const Matrix product =
        upper ? Multiply(ConjugateTranspose(f), f) : Multiply(f, ConjugateTranspose(f));
    EXPECT_LE(FrobeniusNorm(Subtract(spd, product)) / FrobeniusNorm(spd), Tolerance<T>());
    ExpectUpperTriangular(upper ? f : ConjugateTranspose(f));
  }

  template <typename T>
  void CheckEigh(bool upper) {
    using R = decltype(std::abs(T()));
    SCOPED_TRACE(::testing::Message() << DTypeName(DTypeOf<T>()) << (upper ? " upper" : " lower"));
    constexpr int64_t n = 7;
    TestArray a = Contiguous(DTypeOf<T>(), {n, n});
    const Matrix hermitian = FillPositiveDefinite<T>(a, n);
    // Only the named triangle is read: spoil the other one.
    Fill<T>(a, [&](int64_t, int64_t i, int64_t j) {
      const bool read = upper ? i <= j : i >= j;
      if constexpr (kComplex<T>) {
        return read ? T(hermitian[i][j]) : T(1e6, 1e6);
      } else {
        return static_cast<T>(read ? hermitian[i][j].real() : 1e6);
      }
    });
    TestArray w = Contiguous(DTypeOf<R>(), {1, n});
    ArrayView w_view = w.view;
    w_view.shape = {n};
    w_view.strides = {1};
    TestArray v = Contiguous(DTypeOf<T>(), {n, n});
    ASSERT_TRUE(
        backend_.linalg()
            .Eigh(TestQueue(backend_), {.a = a.view, .upper = upper, .w = w_view, .v = v.view})
            .ok());
    const Matrix vs = Read<T>(v)[0];
    const auto ws = Read<R>(w)[0][0];
    EXPECT_LE(OrthogonalityError(vs), 10 * Tolerance<T>());
    Matrix scaled = vs;
    for (auto& row : scaled) {
      for (int64_t j = 0; j < n; ++j) row[j] *= ws[j];
    }
    EXPECT_LE(FrobeniusNorm(Subtract(Multiply(hermitian, vs), scaled)) / FrobeniusNorm(hermitian),
              10 * Tolerance<T>());
    for (int64_t j = 1; j < n; ++j) EXPECT_LE(ws[j - 1].real(), ws[j].real());
  }
};

TEST_F(HostSpdTest, CholeskyFactorsPositiveDefiniteMatrices) {
  for (bool upper : {false, true}) {
    CheckCholesky<float>(upper);
    CheckCholesky<double>(upper);
    CheckCholesky<std::complex<float>>(upper);
    CheckCholesky<Complex>(upper);
  }
}

TEST_F(HostSpdTest, EighGivesAscendingEigenpairsFromOneTriangle) {
  for (bool upper : {false, true}) {
    CheckEigh<float>(upper);
    CheckEigh<double>(upper);
    CheckEigh<std::complex<float>>(upper);
    CheckEigh<Complex>(upper);
  }
}

class HostSolveTest : public HostLinalgTest {
 protected:
  template <typename T>
  void CheckSolveAndInverse() {
    SCOPED_TRACE(DTypeName(DTypeOf<T>()));
    constexpr int64_t n = 8;
    constexpr int64_t k = 3;
    const DType dtype = DTypeOf<T>();
    // A batch of 2 with b broadcast over it (batch stride 0), as core passes broadcast stacks.
    TestArray a = Contiguous(dtype, {2, n, n});
    FillRandom<T>(a);
    Fill<T>(a, [&, as = Read<T>(a)](int64_t b, int64_t i, int64_t j) {
      // Diagonally dominant: well conditioned, so that the residual bound is meaningful.
      const Complex value = as[b][i][j] + (i == j ? Complex(3.0 * n) : Complex(0));
      if constexpr (kComplex<T>) {
        return T(value);
      } else {
        return static_cast<T>(value.real());
      }
    });
    TestArray b = Allocate(dtype, {2, n, k}, {0, k, 1}, 0, n * k);
    FillRandom<T>(b);
    TestArray x = Contiguous(dtype, {2, n, k});
    ASSERT_TRUE(
        backend_.linalg().Solve(TestQueue(backend_), {.a = a.view, .b = b.view, .x = x.view}).ok());
    TestArray inverse = Contiguous(dtype, {2, n, n});
    ASSERT_TRUE(backend_.linalg()
                    .Solve(TestQueue(backend_), {.a = a.view, .b = std::nullopt, .x = inverse.view})
                    .ok());
    const auto as = Read<T>(a);
    const auto bs = Read<T>(b);
    const auto xs = Read<T>(x);
    const auto inverses = Read<T>(inverse);
    for (int batch = 0; batch < 2; ++batch) {
      EXPECT_LE(FrobeniusNorm(Subtract(Multiply(as[batch], xs[batch]), bs[batch])) /
                    FrobeniusNorm(bs[batch]),
                10 * Tolerance<T>());
      EXPECT_LE(FrobeniusNorm(Subtract(Multiply(as[batch], inverses[batch]), IdentityMatrix(n))),
                10 * Tolerance<T>());
    }
  }
};

TEST_F(HostSolveTest, SolveAndInverseLeaveSmallResiduals) {
  CheckSolveAndInverse<float>();
  CheckSolveAndInverse<double>();
  CheckSolveAndInverse<std::complex<float>>();
  CheckSolveAndInverse<Complex>();
}

TEST_F(HostSolveTest, SlogdetMatchesTheProductOfPivots) {
  // A permuted triangular matrix has a known determinant: the product of its diagonal times
  // the permutation's sign.
  constexpr int64_t n = 5;
  const double diagonal[n] = {2, -0.5, 3, 1.5, -4};
  const int permutation[n] = {1, 0, 2, 4, 3};  // Two swaps: sign +1.
  TestArray a = Contiguous(DType::kFloat64, {n, n});
  Fill<double>(a, [&](int64_t, int64_t i, int64_t j) {
    const int64_t row = permutation[i];  // Row i of the permuted upper-triangular matrix.
    return j == row ? diagonal[row] : j > row ? 0.25 * static_cast<double>(i + j) : 0.0;
  });
  TestArray sign = Contiguous(DType::kFloat64, {1});
  TestArray logabsdet = Contiguous(DType::kFloat64, {1});
  ArrayView sign_view = sign.view;
  ArrayView log_view = logabsdet.view;
  sign_view.shape = log_view.shape = {};
  sign_view.strides = log_view.strides = {};
  ASSERT_TRUE(
      backend_.linalg()
          .Slogdet(TestQueue(backend_), {.a = a.view, .sign = sign_view, .logabsdet = log_view})
          .ok());
  const double det = 2 * -0.5 * 3 * 1.5 * -4;  // 18, positive.
  EXPECT_EQ(sign.at<double>({0}), 1.0);
  EXPECT_NEAR(logabsdet.at<double>({0}), std::log(std::abs(det)), 1e-14);

  // Complex: det of diag(i, 2) is 2i: sign i, log 2.
  TestArray c = Contiguous(DType::kComplex128, {2, 2});
  Fill<Complex>(c, [](int64_t, int64_t i, int64_t j) {
    return i != j ? Complex(0) : i == 0 ? Complex(0, 1) : Complex(2);
  });
  TestArray c_sign = Contiguous(DType::kComplex128, {1});
  TestArray c_log = Contiguous(DType::kFloat64, {1});
  ArrayView c_sign_view = c_sign.view;
  ArrayView c_log_view = c_log.view;
  c_sign_view.shape = c_log_view.shape = {};
  c_sign_view.strides = c_log_view.strides = {};
  ASSERT_TRUE(
      backend_.linalg()
          .Slogdet(TestQueue(backend_), {.a = c.view, .sign = c_sign_view, .logabsdet = c_log_view})
          .ok());
  EXPECT_NEAR(std::abs(c_sign.at<Complex>({0}) - Complex(0, 1)), 0, 1e-15);
  EXPECT_NEAR(c_log.at<double>({0}), std::log(2.0), 1e-15);

  // Singular: sign 0, logabsdet -inf, as NumPy (no error).
  Fill<double>(a, [](int64_t, int64_t i, int64_t) { return i == 0 ? 1.0 : 0.0; });
  ASSERT_TRUE(
      backend_.linalg()
          .Slogdet(TestQueue(backend_), {.a = a.view, .sign = sign_view, .logabsdet = log_view})
          .ok());
  EXPECT_EQ(sign.at<double>({0}), 0.0);
  EXPECT_EQ(logabsdet.at<double>({0}), -std::numeric_limits<double>::infinity());
}

}  // namespace
}  // namespace arrayhub
