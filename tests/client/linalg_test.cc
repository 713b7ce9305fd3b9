// Matrix products and numpy.linalg through the C++ client, on fresh random data each run:
// every result is checked against a float64 (complex128) reference computed here, or against
// NumPy 2.4's values where a test names the NumPy expression.
#include <Imath/half.h>
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <random>

#include "arrayhub/client.h"
#include "server/common/float16.h"
#include "tests/support/client_expect.h"
#include "tests/support/linalg_reference.h"
#include "tests/support/seeded_client_test.h"
#include "tests/support/test_server.h"

namespace arrayhub::testing {
namespace {

using client::Array;
using client::Client;
using client::DType;
using client::Error;
using client::StatusCode;

// A stack of matrices on the host: its shape and C-order values as complex128.
struct HostArray {
  client::Shape shape;
  std::vector<Complex> values;

  int64_t rows() const { return shape.size() < 2 ? 1 : shape[shape.size() - 2]; }
  int64_t cols() const { return shape.empty() ? 1 : shape.back(); }
  int64_t matrices() const {
    return static_cast<int64_t>(values.size()) / std::max<int64_t>(rows() * cols(), 1);
  }
  // Vector `index` of a stack of vectors (..., n).
  std::vector<Complex> Vector(int64_t index) const {
    return {values.begin() + index * cols(), values.begin() + (index + 1) * cols()};
  }
  // Matrix `index` of the stack (a vector is one row).
  Matrix At(int64_t index) const {
    Matrix m(rows(), std::vector<Complex>(cols()));
    for (int64_t i = 0; i < rows(); ++i) {
      for (int64_t j = 0; j < cols(); ++j) m[i][j] = values[(index * rows() + i) * cols() + j];
    }
    return m;
  }
};

class LinalgTest : public SeededClientTest {
 protected:
  client::Linalg linalg() { return client_->linalg(); }

  // A random array of `dtype` on the server, and its values as stored.
  std::pair<Array, HostArray> Random(DType dtype, const client::Shape& shape) {
    HostArray host{shape, {}};
    const int64_t count = client::ElementCount(shape);
    std::vector<std::byte> bytes(count * client::ItemSize(dtype));
    std::normal_distribution<double> normal;
    for (int64_t i = 0; i < count; ++i) {
      const Complex value(normal(rng_), normal(rng_));
      host.values.push_back(Store(dtype, value, bytes.data() + i * client::ItemSize(dtype)));
    }
    return {client().UploadBytes(bytes, dtype, shape), std::move(host)};
  }

  // Writes `value` as one element of `dtype` (the real part for real dtypes); returns what was
  // stored.
  static Complex Store(DType dtype, Complex value, std::byte* out) {
    auto put = [&](auto element) {
      std::memcpy(out, &element, sizeof element);
      return Complex(element);
    };
    switch (dtype) {
      case DType::kFloat16: {
        const Imath::half h = HalfFromDouble(value.real());
        put(h.bits());
        return static_cast<float>(h);
      }
      case DType::kFloat32:
        return put(static_cast<float>(value.real()));
      case DType::kFloat64:
        return put(value.real());
      case DType::kComplex64:
        return put(std::complex<float>(value));
      case DType::kComplex128:
        return put(value);
      default:
        ADD_FAILURE() << "no random values of " << client::DTypeName(dtype);
        return 0;
    }
  }

  // An array's values as complex128 (for the float and complex dtypes).
  HostArray Download(const Array& array) {
    HostArray host{array.shape(), {}};
    const std::vector<std::byte> bytes = client().DownloadBytes(array);
    const int64_t itemsize = client::ItemSize(array.dtype());
    for (size_t offset = 0; offset < bytes.size(); offset += itemsize) {
      auto get = [&](auto element) {
        std::memcpy(&element, bytes.data() + offset, sizeof element);
        return element;
      };
      switch (array.dtype()) {
        case DType::kFloat16: {
          Imath::half h;
          h.setBits(get(uint16_t{}));
          host.values.emplace_back(static_cast<float>(h));
          break;
        }
        case DType::kFloat32:
          host.values.emplace_back(get(float{}));
          break;
        case DType::kFloat64:
          host.values.emplace_back(get(double{}));
          break;
        case DType::kComplex64:
          host.values.emplace_back(get(std::complex<float>{}));
          break;
        case DType::kComplex128:
          host.values.emplace_back(get(Complex{}));
          break;
        default:
          ADD_FAILURE() << "unexpected dtype " << client::DTypeName(array.dtype());
      }
    }
    return host;
  }
};

// A vector as an n x 1 matrix.
Matrix Column(const std::vector<Complex>& vector) {
  Matrix column;
  for (Complex x : vector) column.push_back({x});
  return column;
}

// |got - want| <= tolerance * scale elementwise, with want's largest magnitude as the scale.
void ExpectClose(const std::vector<Complex>& got, const std::vector<Complex>& want,
                 double tolerance) {
  ASSERT_EQ(got.size(), want.size());
  double scale = 1e-300;
  for (Complex w : want) scale = std::max(scale, std::abs(w));
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_LE(std::abs(got[i] - want[i]), tolerance * scale)
        << "element " << i << ": " << got[i] << " vs " << want[i];
  }
}

std::vector<Complex> Flatten(const std::vector<Matrix>& matrices) {
  std::vector<Complex> values;
  for (const Matrix& m : matrices) {
    for (const auto& row : m) values.insert(values.end(), row.begin(), row.end());
  }
  return values;
}

double ToleranceFor(DType dtype) {
  switch (dtype) {
    case DType::kFloat16:
      return 2e-3;
    case DType::kFloat32:
    case DType::kComplex64:
      return 1e-5;
    default:
      return 1e-12;
  }
}

constexpr DType kFloatDTypes[] = {DType::kFloat16, DType::kFloat32, DType::kFloat64,
                                  DType::kComplex64, DType::kComplex128};
constexpr DType kLinalgDTypes[] = {DType::kFloat32, DType::kFloat64, DType::kComplex64,
                                   DType::kComplex128};

// --- matmul --------------------------------------------------------------------------------

TEST_F(LinalgTest, MatmulOfEveryFloatDTypeMatchesAFloat64Reference) {
  for (DType dtype : kFloatDTypes) {
    SCOPED_TRACE(client::DTypeName(dtype));
    auto [a, host_a] = Random(dtype, {3, 17, 23});
    auto [b, host_b] = Random(dtype, {23, 11});
    Array c = client().Matmul(a, b);
    EXPECT_EQ(c.dtype(), dtype);
    EXPECT_EQ(c.shape(), (client::Shape{3, 17, 11}));
    std::vector<Matrix> expected;
    for (int64_t i = 0; i < 3; ++i) expected.push_back(Multiply(host_a.At(i), host_b.At(0)));
    ExpectClose(Download(c).values, Flatten(expected), ToleranceFor(dtype));
  }
}

TEST_F(LinalgTest, MatmulPromotesOneDimensionalOperandsAndDropsTheirAxes) {
  auto [v, host_v] = Random(DType::kFloat64, {5});
  auto [m, host_m] = Random(DType::kFloat64, {5, 4});
  auto [n, host_n] = Random(DType::kFloat64, {3, 5});
  Array vv = client().Matmul(v, v);
  EXPECT_EQ(vv.shape(), client::Shape{});
  ExpectClose(Download(vv).values, Flatten({Multiply(host_v.At(0), Column(host_v.values))}), 1e-12);
  Array vm = client().Matmul(v, m);
  EXPECT_EQ(vm.shape(), client::Shape{4});
  ExpectClose(Download(vm).values, Flatten({Multiply(host_v.At(0), host_m.At(0))}), 1e-12);
  Array nv = client().Matmul(n, v);
  EXPECT_EQ(nv.shape(), client::Shape{3});
  ExpectClose(Download(nv).values, Flatten({Multiply(host_n.At(0), Column(host_v.values))}), 1e-12);
}

TEST_F(LinalgTest, MatmulBroadcastsBatchAxes) {
  auto [a, host_a] = Random(DType::kFloat32, {2, 1, 4, 3});
  auto [b, host_b] = Random(DType::kFloat32, {5, 3, 2});
  Array c = client().Matmul(a, b);
  EXPECT_EQ(c.shape(), (client::Shape{2, 5, 4, 2}));
  std::vector<Matrix> expected;
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 5; ++j) expected.push_back(Multiply(host_a.At(i), host_b.At(j)));
  }
  ExpectClose(Download(c).values, Flatten(expected), 1e-5);
}

TEST_F(LinalgTest, MixedDTypesPromoteAndTf32IsAnOption) {
  auto [a, host_a] = Random(DType::kFloat32, {6, 5});
  auto [b, host_b] = Random(DType::kFloat64, {5, 4});
  const Matrix expected = Multiply(host_a.At(0), host_b.At(0));
  Array c = client().Matmul(a, b);  // a converted to float64 first.
  EXPECT_EQ(c.dtype(), DType::kFloat64);
  ExpectClose(Download(c).values, Flatten({expected}), 1e-12);
  // int8 . float32 computes in float32.
  auto [f, host_f] = Random(DType::kFloat32, {5, 4});
  Array ints = client().Upload(std::vector<int8_t>{1, -2, 3, 4, 5}, {5});
  Array dot = client().Dot(ints, f, client::Precision::kHighest);
  EXPECT_EQ(dot.dtype(), DType::kFloat32);
  const std::vector<Complex> row = {1, -2, 3, 4, 5};
  ExpectClose(Download(dot).values, Flatten({Multiply({row}, host_f.At(0))}), 1e-5);
  // TF32 may give up precision on GPUs (about 1e-3); the CPU computes true float32 anyway.
  Array tf32 = client().Matmul(a, f, {.precision = client::Precision::kTF32});
  ExpectClose(Download(tf32).values, Flatten({Multiply(host_a.At(0), host_f.At(0))}), 1e-2);
}

TEST_F(LinalgTest, TransposedAndConjugatedOperandsAreViews) {
  auto [a, host_a] = Random(DType::kComplex128, {2, 6, 4});
  auto [b, host_b] = Random(DType::kComplex128, {5, 6});
  // a^H @ b^T: (2, 4, 6) @ (6, 5).
  Array c = client().Matmul(a, b, {.transpose_a = true, .transpose_b = true, .conjugate_a = true});
  EXPECT_EQ(c.shape(), (client::Shape{2, 4, 5}));
  Matrix b_t = ConjugateTranspose(host_b.At(0));
  for (auto& row : b_t) {
    for (Complex& x : row) x = std::conj(x);
  }
  std::vector<Matrix> expected;
  for (int64_t i = 0; i < 2; ++i)
    expected.push_back(Multiply(ConjugateTranspose(host_a.At(i)), b_t));
  ExpectClose(Download(c).values, Flatten(expected), 1e-12);
  // Nothing but the result stays allocated (the server's count read once the pipeline has run).
  client().Synchronize();
  const int64_t before = server_->engine().Stats().bytes_in_use;
  Array d = client().Matmul(a, b, {.transpose_a = true, .transpose_b = true});
  client().Synchronize();
  EXPECT_EQ(server_->engine().Stats().bytes_in_use, before + d.nbytes());
}

TEST_F(LinalgTest, IntegerAndBoolMatmulFollowNumPy) {
  // np.matmul(np.array([[100]], np.int8), np.array([[3]], np.int8)) wraps to 44.
  Array a = client().Upload(std::vector<int8_t>{100}, {1, 1});
  Array b = client().Upload(std::vector<int8_t>{3}, {1, 1});
  Array c = client().Matmul(a, b);
  EXPECT_EQ(c.dtype(), DType::kInt8);
  EXPECT_EQ(client().Download<int8_t>(c), std::vector<int8_t>{44});
  // int8 @ uint8 computes in int16.
  Array u = client().Upload(std::vector<uint8_t>{200, 1}, {2, 1});
  Array i8 = client().Upload(std::vector<int8_t>{-2, 3}, {1, 2});
  Array p = client().Matmul(u, i8);
  EXPECT_EQ(p.dtype(), DType::kInt16);
  EXPECT_EQ(client().Download<int16_t>(p), (std::vector<int16_t>{-400, 600, -2, 3}));
  // Random int32 products, exact modulo 2^32.
  std::uniform_int_distribution<int32_t> small(-1000, 1000);
  std::vector<int32_t> x(6 * 7), y(7 * 3);
  for (int32_t& value : x) value = small(rng_);
  for (int32_t& value : y) value = small(rng_);
  const std::vector<int32_t> z = client().Download<int32_t>(
      client().Matmul(client().Upload(x, {6, 7}), client().Upload(y, {7, 3})));
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j < 3; ++j) {
      int32_t expected = 0;
      for (int k = 0; k < 7; ++k) expected += x[i * 7 + k] * y[k * 3 + j];
      EXPECT_EQ(z[i * 3 + j], expected);
    }
  }
  // np.matmul([[True, False]], [[False], [True]]) is [[False]]; bool stays bool.
  Array t = client().Upload(std::vector<bool>{true, false}, {1, 2});
  Array f = client().Upload(std::vector<bool>{false, true}, {2, 1});
  Array tf = client().Matmul(t, f);
  EXPECT_EQ(tf.dtype(), DType::kBool);
  EXPECT_EQ(client().Download<bool>(tf), std::vector<bool>{false});
  EXPECT_EQ(client().Download<bool>(client().Matmul(f, t)),
            (std::vector<bool>{false, false, true, false}));
}

TEST_F(LinalgTest, MatmulOutConvertsAndMayAliasAnOperand) {
  // References, not structured bindings: EXPECT_CLIENT_ERROR's lambda captures `a` and `b`,
  // and clang before 16 (Debian 12 has 14) refuses to capture a structured binding.
  auto [a_array, host_a] = Random(DType::kFloat64, {4, 4});
  auto [b_array, host_b] = Random(DType::kFloat64, {4, 4});
  Array& a = a_array;
  Array& b = b_array;
  const Matrix expected = Multiply(host_a.At(0), host_b.At(0));
  Array out = client().Zeros({4, 4}, DType::kFloat32);
  client().MatmulOut(out, a, b);
  ExpectClose(Download(out).values, Flatten({expected}), 1e-6);
  // a = a @ b: NumPy's overlap rule, honoured through a temporary.
  client().MatmulOut(a, a, b);
  ExpectClose(Download(a).values, Flatten({expected}), 1e-12);
  Array ints = client().Zeros({4, 4}, DType::kInt64);
  EXPECT_CLIENT_ERROR((client().MatmulOut(ints, a, b), client().Synchronize()), kInvalidArgument,
                      "Cannot cast ufunc 'matmul' output from dtype('float64') to "
                      "dtype('int64') with casting rule 'same_kind'");
  Array wrong = client().Zeros({4, 5}, DType::kFloat64);
  EXPECT_CLIENT_ERROR((client().MatmulOut(wrong, a, b), client().Synchronize()), kInvalidArgument,
                      "Output operand 0 has a mismatch in its core dimension 1");
}

TEST_F(LinalgTest, MatmulShapeErrorsNameTheCoreDimensionAndBothShapes) {
  Array a = client().Zeros({2, 3});
  Array b = client().Zeros({4, 5});
  EXPECT_CLIENT_ERROR(client().Matmul(a, b), kInvalidArgument,
                      "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
                      "signature (n?,k),(k,m?)->(n?,m?) (size 4 is different from 3)");
  EXPECT_CLIENT_ERROR(client().Matmul(a, b), kInvalidArgument, "shapes (2,3) and (4,5)");
  EXPECT_CLIENT_ERROR(client().Matmul(a, 2.0), kInvalidArgument,
                      "matmul: Input operand 1 does not have enough dimensions");
  Array c = client().Zeros({2, 7, 3});
  Array d = client().Zeros({4, 3, 3, 4});
  EXPECT_CLIENT_ERROR(client().Matmul(c, d), kInvalidArgument,
                      "operands could not be broadcast together with remapped shapes");
}

// --- tensor products -----------------------------------------------------------------------

TEST_F(LinalgTest, DotInnerOuterVdotTensordot) {
  auto [a, host_a] = Random(DType::kFloat64, {2, 3, 4});
  auto [b, host_b] = Random(DType::kFloat64, {5, 4, 6});
  // dot(a, b)[i, j, k, m] = sum(a[i, j, :] * b[k, :, m])
  Array dot = client().Dot(a, b);
  EXPECT_EQ(dot.shape(), (client::Shape{2, 3, 5, 6}));
  std::vector<Complex> expected;
  for (int64_t i = 0; i < 2; ++i) {
    const Matrix product_rows = host_a.At(i);
    for (int64_t j = 0; j < 3; ++j) {
      for (int64_t k = 0; k < 5; ++k) {
        const Matrix row = Multiply({product_rows[j]}, host_b.At(k));
        expected.insert(expected.end(), row[0].begin(), row[0].end());
      }
    }
  }
  ExpectClose(Download(dot).values, expected, 1e-12);

  // inner(a, c) over the last axes; c (7, 4).
  auto [c, host_c] = Random(DType::kFloat64, {7, 4});
  Array inner = client().Inner(a, c);
  EXPECT_EQ(inner.shape(), (client::Shape{2, 3, 7}));
  std::vector<Matrix> inner_expected;
  for (int64_t i = 0; i < 2; ++i) {
    inner_expected.push_back(Multiply(host_a.At(i), ConjugateTranspose(host_c.At(0))));
  }
  ExpectClose(Download(inner).values, Flatten(inner_expected), 1e-12);

  // outer of the flattened operands.
  Array outer = client().Outer(c, a);
  EXPECT_EQ(outer.shape(), (client::Shape{28, 24}));
  std::vector<Complex> outer_expected;
  for (Complex x : host_c.values) {
    for (Complex y : host_a.values) outer_expected.push_back(x * y);
  }
  ExpectClose(Download(outer).values, outer_expected, 1e-12);

  // tensordot(a, d, 2) with d (3, 4, 2).
  auto [d, host_d] = Random(DType::kFloat64, {3, 4, 2});
  Array tensordot = client().Tensordot(a, d, 2);
  EXPECT_EQ(tensordot.shape(), (client::Shape{2, 2}));
  const HostArray a_matrix{{2, 12}, host_a.values};
  const HostArray d_matrix{{12, 2}, host_d.values};
  ExpectClose(Download(tensordot).values, Flatten({Multiply(a_matrix.At(0), d_matrix.At(0))}),
              1e-12);

  // vdot conjugates its first operand.
  auto [x, host_x] = Random(DType::kComplex128, {2, 3});
  auto [y, host_y] = Random(DType::kComplex128, {3, 2});
  Complex vdot_expected = 0;
  for (size_t i = 0; i < 6; ++i) vdot_expected += std::conj(host_x.values[i]) * host_y.values[i];
  Array vdot = client().Vdot(x, y);
  EXPECT_EQ(vdot.shape(), client::Shape{});
  ExpectClose(Download(vdot).values, {vdot_expected}, 1e-12);
}

TEST_F(LinalgTest, ProductsWithScalarsAndErrors) {
  // np.dot(float32 array, 2.0) is float64: the scalar is an array, not a weak scalar.
  Array f = client().Upload(std::vector<float>{1, 2, 3}, {3});
  Array scaled = client().Dot(f, 2.0);
  EXPECT_EQ(scaled.dtype(), DType::kFloat64);
  EXPECT_EQ(client().Download<double>(scaled), (std::vector<double>{2, 4, 6}));
  EXPECT_CLIENT_ERROR(client().Dot(client().Zeros({2, 3}), client().Zeros({4, 5})),
                      kInvalidArgument,
                      "shapes (2,3) and (4,5) not aligned: 3 (dim 1) != 4 (dim 0)");
  EXPECT_CLIENT_ERROR(client().Vdot(client().Zeros({2, 3}), client().Zeros({4})), kInvalidArgument,
                      "cannot reshape array of size 4 into shape (6,)");
  EXPECT_CLIENT_ERROR(client().Tensordot(client().Zeros({2, 3}), client().Zeros({4, 5}), 1),
                      kInvalidArgument, "shape-mismatch for sum");
}

// --- numpy.linalg --------------------------------------------------------------------------

TEST_F(LinalgTest, SvdReconstructsWithOrthonormalFactorsAndLapacksSingularValues) {
  for (DType dtype : kLinalgDTypes) {
    for (bool full_matrices : {true, false}) {
      SCOPED_TRACE(::testing::Message()
                   << client::DTypeName(dtype) << " full_matrices " << full_matrices);
      const double tolerance = ToleranceFor(dtype);
      auto [a, host_a] = Random(dtype, {3, 6, 4});
      client::SvdResult svd = linalg().Svd(a, full_matrices);
      EXPECT_EQ(svd.u.shape(), (client::Shape{3, 6, full_matrices ? 6 : 4}));
      EXPECT_EQ(svd.s.shape(), (client::Shape{3, 4}));
      EXPECT_EQ(svd.vh.shape(), (client::Shape{3, 4, 4}));
      const HostArray u = Download(svd.u);
      const HostArray s = Download(svd.s);
      const HostArray vh = Download(svd.vh);
      for (int64_t i = 0; i < 3; ++i) {
        std::vector<double> values;
        for (Complex value : s.Vector(i)) values.push_back(value.real());
        EXPECT_LE(SvdReconstructionError(host_a.At(i), u.At(i), values, vh.At(i)), tolerance);
        EXPECT_LE(OrthogonalityError(u.At(i)), tolerance);
        EXPECT_LE(OrthogonalityError(ConjugateTranspose(vh.At(i))), tolerance);
        const std::vector<double> expected = ReferenceSingularValues(host_a.At(i));
        for (size_t j = 0; j < expected.size(); ++j) {
          EXPECT_LE(std::abs(values[j] - expected[j]), tolerance * expected[0]);
        }
      }
    }
  }
}

TEST_F(LinalgTest, SvdOfAStackOfSmallMatricesAndWithoutVectors) {
  auto [a, host_a] = Random(DType::kFloat64, {200, 3, 3});
  client::SvdResult svd = linalg().Svd(a, false, false);
  EXPECT_FALSE(svd.u);
  EXPECT_FALSE(svd.vh);
  const HostArray s = Download(svd.s);
  for (int64_t i = 0; i < 200; ++i) {
    const std::vector<double> expected = ReferenceSingularValues(host_a.At(i));
    for (size_t j = 0; j < 3; ++j) {
      EXPECT_NEAR(s.values[i * 3 + j].real(), expected[j], 1e-12 * expected[0]);
    }
  }
  // np.linalg.svd(np.zeros((0, 3))): an empty U and S, and Vh the identity.
  client::SvdResult empty = linalg().Svd(client().Zeros({0, 3}));
  EXPECT_EQ(empty.u.shape(), (client::Shape{0, 0}));
  EXPECT_EQ(client().Download<double>(empty.vh), (std::vector<double>{1, 0, 0, 0, 1, 0, 0, 0, 1}));
}

TEST_F(LinalgTest, QrCholeskyEigh) {
  for (DType dtype : kLinalgDTypes) {
    SCOPED_TRACE(client::DTypeName(dtype));
    const double tolerance = ToleranceFor(dtype);
    auto [a, host_a] = Random(dtype, {2, 5, 3});
    client::QrResult qr = linalg().Qr(a);
    const HostArray q = Download(qr.q);
    const HostArray r = Download(qr.r);
    for (int64_t i = 0; i < 2; ++i) {
      EXPECT_LE(FrobeniusNorm(Subtract(host_a.At(i), Multiply(q.At(i), r.At(i)))) /
                    FrobeniusNorm(host_a.At(i)),
                tolerance);
      EXPECT_LE(OrthogonalityError(q.At(i)), tolerance);
    }
    client::QrResult complete = linalg().Qr(a, "complete");
    EXPECT_EQ(complete.q.shape(), (client::Shape{2, 5, 5}));
    EXPECT_EQ(complete.r.shape(), (client::Shape{2, 5, 3}));
    EXPECT_FALSE(linalg().Qr(a, "r").q);

    // A Hermitian positive-definite matrix from a: a^H a + I, computed on the server.
    Array gram = client().Matmul(a, a, {.transpose_a = true, .conjugate_a = true});
    Array spd = client().Ufunc("add", {gram, client().Eye(3, std::nullopt, 0, dtype)});
    const HostArray host_spd = Download(spd);
    for (bool upper : {false, true}) {
      const HostArray factor = Download(linalg().Cholesky(spd, upper));
      for (int64_t i = 0; i < 2; ++i) {
        const Matrix f = factor.At(i);
        const Matrix product =
            upper ? Multiply(ConjugateTranspose(f), f) : Multiply(f, ConjugateTranspose(f));
        EXPECT_LE(FrobeniusNorm(Subtract(host_spd.At(i), product)) / FrobeniusNorm(host_spd.At(i)),
                  tolerance);
      }
    }
    client::EighResult eigh = linalg().Eigh(spd);
    const HostArray w = Download(eigh.eigenvalues);
    const HostArray v = Download(eigh.eigenvectors);
    for (int64_t i = 0; i < 2; ++i) {
      Matrix scaled = v.At(i);
      for (auto& row : scaled) {
        for (int64_t j = 0; j < 3; ++j) row[j] *= w.Vector(i)[j];
      }
      EXPECT_LE(FrobeniusNorm(Subtract(Multiply(host_spd.At(i), v.At(i)), scaled)) /
                    FrobeniusNorm(host_spd.At(i)),
                10 * tolerance);
      EXPECT_LE(OrthogonalityError(v.At(i)), 10 * tolerance);
    }
    ExpectClose(Download(linalg().Eigvalsh(spd)).values, w.values, 10 * tolerance);
  }
}

TEST_F(LinalgTest, EigOfGeneralMatrices) {
  for (DType dtype : kLinalgDTypes) {
    SCOPED_TRACE(client::DTypeName(dtype));
    const double tolerance = 10 * ToleranceFor(dtype);
    // Random real matrices have complex conjugate pairs among their eigenvalues.
    auto [a, host_a] = Random(dtype, {2, 5, 5});
    client::EigResult eig = linalg().Eig(a);
    const DType complex = dtype == DType::kFloat32 || dtype == DType::kComplex64
                              ? DType::kComplex64
                              : DType::kComplex128;
    EXPECT_EQ(eig.eigenvalues.dtype(), complex);
    EXPECT_EQ(eig.eigenvectors.shape(), (client::Shape{2, 5, 5}));
    const HostArray w = Download(eig.eigenvalues);
    const HostArray v = Download(eig.eigenvectors);
    for (int64_t i = 0; i < 2; ++i) {
      Matrix scaled = v.At(i);
      for (auto& row : scaled) {
        for (int64_t j = 0; j < 5; ++j) row[j] *= w.Vector(i)[j];
      }
      EXPECT_LE(FrobeniusNorm(Subtract(Multiply(host_a.At(i), v.At(i)), scaled)) /
                    FrobeniusNorm(host_a.At(i)),
                tolerance);
    }
    ExpectClose(Download(linalg().Eigvals(a)).values, w.values, tolerance);
  }
}

TEST_F(LinalgTest, SolveInvDetSlogdet) {
  for (DType dtype : kLinalgDTypes) {
    SCOPED_TRACE(client::DTypeName(dtype));
    const double tolerance = 10 * ToleranceFor(dtype);
    // Diagonally dominant, hence well conditioned: a + 8 I.
    auto [noise, host_noise] = Random(dtype, {3, 4, 4});
    Array a = client().Ufunc("add", {noise, client().Eye(4, std::nullopt, 0, dtype)});
    a = client().Ufunc(
        "add", {a, client().Ufunc("multiply", {client().Eye(4, std::nullopt, 0, dtype), 7})});
    const HostArray host_a = Download(a);
    // b as a stack (broadcast over a's batch) and as a single vector.
    auto [b, host_b] = Random(dtype, {4, 2});
    auto [vector, host_vector] = Random(dtype, {4});
    const HostArray x = Download(linalg().Solve(a, b));
    const HostArray xv = Download(linalg().Solve(a, vector));
    EXPECT_EQ(xv.shape, (client::Shape{3, 4}));
    const HostArray inverse = Download(linalg().Inv(a));
    const HostArray det = Download(linalg().Det(a));
    client::SlogdetResult slogdet = linalg().Slogdet(a);
    const HostArray sign = Download(slogdet.sign);
    const HostArray logabsdet = Download(slogdet.logabsdet);
    for (int64_t i = 0; i < 3; ++i) {
      EXPECT_LE(FrobeniusNorm(Subtract(Multiply(host_a.At(i), x.At(i)), host_b.At(0))) /
                    FrobeniusNorm(host_b.At(0)),
                tolerance);
      EXPECT_LE(FrobeniusNorm(Subtract(Multiply(host_a.At(i), Column(xv.Vector(i))),
                                       Column(host_vector.values))) /
                    FrobeniusNorm(Column(host_vector.values)),
                tolerance);
      EXPECT_LE(FrobeniusNorm(Subtract(Multiply(host_a.At(i), inverse.At(i)), IdentityMatrix(4))),
                tolerance);
      const Complex expected = ReferenceDeterminant(host_a.At(i));
      EXPECT_LE(std::abs(det.values[i] - expected), tolerance * std::abs(expected));
      EXPECT_LE(std::abs(sign.values[i] * std::exp(logabsdet.values[i]) - expected),
                tolerance * std::abs(expected));
    }
  }
}

TEST_F(LinalgTest, SingularAndIndefiniteMatricesAreFailedPreconditions) {
  // np.linalg.solve(np.ones((2, 2)), np.ones(2)); inv of the same; det is 0 without error.
  Array ones = client().Ones({2, 2});
  EXPECT_CLIENT_ERROR(linalg().Solve(ones, client().Ones({2})), kFailedPrecondition,
                      "Singular matrix");
  EXPECT_CLIENT_ERROR(linalg().Inv(ones), kFailedPrecondition, "Singular matrix");
  EXPECT_EQ(client().Download<double>(linalg().Det(ones)), std::vector<double>{0});
  client::SlogdetResult slogdet = linalg().Slogdet(ones);
  EXPECT_EQ(client().Download<double>(slogdet.sign), std::vector<double>{0});
  EXPECT_EQ(client().Download<double>(slogdet.logabsdet),
            std::vector<double>{-std::numeric_limits<double>::infinity()});
  Array negative = client().Ufunc("negative", {client().Eye(2)});
  EXPECT_CLIENT_ERROR(linalg().Cholesky(negative), kFailedPrecondition,
                      "Matrix is not positive definite");
  Array nan = client().Full({2, 2}, std::nan(""));
  EXPECT_CLIENT_ERROR(linalg().Svd(nan), kFailedPrecondition, "SVD did not converge");
}

TEST_F(LinalgTest, LinalgTypingAndShapeErrorsFollowNumPy) {
  // Integers compute in float64, as NumPy: np.linalg.det(np.array([[1, 2], [3, 4]]))
  Array ints = client().Upload(std::vector<int64_t>{1, 2, 3, 4}, {2, 2});
  Array det = linalg().Det(ints);
  EXPECT_EQ(det.dtype(), DType::kFloat64);
  EXPECT_NEAR(client().Download<double>(det)[0], -2.0, 1e-14);
  EXPECT_EQ(linalg().Inv(ints).dtype(), DType::kFloat64);
  EXPECT_CLIENT_ERROR(linalg().Inv(client().Eye(2, std::nullopt, 0, DType::kFloat16)),
                      kInvalidArgument, "array type float16 is unsupported in linalg");
  EXPECT_CLIENT_ERROR(linalg().Inv(client().Zeros({2, 3})), kInvalidArgument,
                      "Last 2 dimensions of the array must be square");
  EXPECT_CLIENT_ERROR(linalg().Svd(client().Zeros({3})), kInvalidArgument,
                      "1-dimensional array given. Array must be at least two-dimensional");
  EXPECT_CLIENT_ERROR(linalg().Solve(client().Eye(2), client().Zeros({3})), kInvalidArgument,
                      "solve1: Input operand 1 has a mismatch in its core dimension 0");
  EXPECT_CLIENT_ERROR(linalg().Qr(client().Eye(2), "x"), kInvalidArgument, "Unrecognized mode 'x'");
  // np.linalg.det(np.zeros((0, 0))) is 1.
  EXPECT_EQ(client().Download<double>(linalg().Det(client().Zeros({0, 0}))),
            std::vector<double>{1});
}

TEST_F(LinalgTest, LstsqMatchesNumPy) {
  // A = np.array([[1., 2], [3, 4], [5, 7]]); B = np.array([1., 2, 2])
  Array a = client().Upload(std::vector<double>{1, 2, 3, 4, 5, 7}, {3, 2});
  Array b = client().Upload(std::vector<double>{1, 2, 2}, {3});
  auto expect_near = [&](const Array& array, const std::vector<double>& expected) {
    const std::vector<double> got = client().Download<double>(array);
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], 1e-13) << i;
  };
  // np.linalg.lstsq(A, B)
  client::LstsqResult fit = linalg().Lstsq(a, b);
  EXPECT_EQ(fit.x.shape(), client::Shape{2});
  expect_near(fit.x, {-0.21428571428571333, 0.4999999999999992});
  EXPECT_EQ(fit.residuals.shape(), client::Shape{1});
  expect_near(fit.residuals, {0.6428571428571429});
  EXPECT_EQ(client().Download<int32_t>(fit.rank), std::vector<int32_t>{2});
  expect_near(fit.s, {10.191428257097224, 0.36713768594389923});
  // np.linalg.lstsq(A, np.stack([B, 2 * B], 1))
  Array b2 = client().Upload(std::vector<double>{1, 2, 2, 4, 2, 4}, {3, 2});
  client::LstsqResult two = linalg().Lstsq(a, b2);
  expect_near(two.x,
              {-0.21428571428571333, -0.42857142857142666, 0.4999999999999992, 0.9999999999999984});
  expect_near(two.residuals, {0.6428571428571429, 2.5714285714285716});
  // Rank-deficient: np.linalg.lstsq(np.array([[1., 2], [2, 4], [3, 6]]), B), no residuals.
  Array deficient = client().Upload(std::vector<double>{1, 2, 2, 4, 3, 6}, {3, 2});
  client::LstsqResult low = linalg().Lstsq(deficient, b);
  expect_near(low.x, {0.1571428571428571, 0.3142857142857143});
  EXPECT_EQ(low.residuals.shape(), client::Shape{0});
  EXPECT_EQ(client().Download<int32_t>(low.rank), std::vector<int32_t>{1});
  // rcond=0.5 drops the small singular value.
  expect_near(linalg().Lstsq(a, b, 0.5).x, {0.16416479963232267, 0.23071925281800748});
  // float32 inputs answer in float32 (computed in double, as NumPy).
  Array a32 = client().Upload(std::vector<float>{1, 2, 3, 4, 5, 7}, {3, 2});
  Array b32 = client().Upload(std::vector<float>{1, 2, 2}, {3});
  client::LstsqResult single = linalg().Lstsq(a32, b32);
  EXPECT_EQ(single.x.dtype(), DType::kFloat32);
  EXPECT_EQ(single.s.dtype(), DType::kFloat32);
  EXPECT_NEAR(client().Download<float>(single.x)[0], -0.21428572f, 1e-7);
  EXPECT_CLIENT_ERROR(linalg().Lstsq(a, client().Ones({4})), kInvalidArgument,
                      "Incompatible dimensions");
}

TEST_F(LinalgTest, NormsMatchNumPy) {
  // a = np.arange(24.).reshape(2, 3, 4) - 7
  std::vector<double> values(24);
  for (int i = 0; i < 24; ++i) values[i] = i - 7;
  Array a = client().Upload(values, {2, 3, 4});
  struct Case {
    std::string ord;
    std::optional<std::vector<int64_t>> axis;
    bool keepdims;
    client::Shape shape;
    std::vector<double> values;  // np.linalg.norm(a, ord, axis, keepdims)
  };
  const std::vector<Case> cases = {
      {"", std::nullopt, false, {}, {40.44749683231337}},
      {"2", std::vector<int64_t>{1, 2}, false, {2}, {12.563257178714467, 38.27125738258651}},
      {"nuc", std::vector<int64_t>{2, 1}, false, {2}, {16.051031406137945, 39.416184609888695}},
      {"fro",
       std::vector<int64_t>{2, 0},
       true,
       {1, 3, 1},
       {17.320508075688775, 21.447610589527216, 29.597297173897484}},
      {"1", std::vector<int64_t>{2, 0}, false, {3}, {26.0, 42.0, 58.0}},
      {"inf", std::vector<int64_t>{0, 1}, false, {4}, {27.0, 30.0, 33.0, 36.0}},
      {"-1", std::vector<int64_t>{1, 2}, false, {2}, {8.0, 27.0}},
      {"-inf", std::vector<int64_t>{1, 2}, false, {2}, {6.0, 26.0}},
      {"0", std::vector<int64_t>{1}, false, {2, 4}, {3, 3, 3, 2, 3, 3, 3, 3}},
      {"inf", std::vector<int64_t>{-1}, false, {2, 3}, {7, 3, 4, 8, 12, 16}},
      {"-inf", std::vector<int64_t>{1}, false, {2, 4}, {1, 2, 1, 0, 5, 6, 7, 8}},
      {"0.5",
       std::vector<int64_t>{1},
       false,
       {2, 4},
       {28.92075562717862, 27.856406460551014, 24.682204262552162, 16.0, 78.17423101437979,
        87.48655529705147, 96.7342954640337, 105.93614786133699}},
      {"-1.5",
       std::vector<int64_t>{2},
       false,
       {2, 3},
       {2.067099276212726, 0.0, 0.7101472839620703, 2.482427246450465, 4.107474232319927,
        5.711414098058665}},
      {"",
       std::vector<int64_t>{-1},
       true,
       {2, 3, 1},
       {11.224972160321824, 3.7416573867739413, 5.477225575051661, 13.19090595827292,
        21.118712081942874, 29.086079144497972}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("ord '" + c.ord + "'");
    Array norm = linalg().Norm(a, {.ord = c.ord, .axis = c.axis, .keepdims = c.keepdims});
    EXPECT_EQ(norm.dtype(), DType::kFloat64);
    EXPECT_EQ(norm.shape(), c.shape);
    const std::vector<double> got = client().Download<double>(norm);
    ASSERT_EQ(got.size(), c.values.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], c.values[i], 1e-12 * 40) << i;
  }
  // -2: the smallest singular values of rank-2 matrices, zero up to rounding.
  for (double value : client().Download<double>(
           linalg().Norm(a, {.ord = "-2", .axis = std::vector<int64_t>{1, 2}}))) {
    EXPECT_NEAR(value, 0.0, 1e-12);
  }
  // np.linalg.norm(np.array([3, 4j]), 3); complex64 gives float32; int8 computes in float64.
  Array z = client().Upload(std::vector<std::complex<double>>{{3, 0}, {0, 4}}, {2});
  EXPECT_NEAR(client().Download<double>(linalg().Norm(z, {.ord = "3"}))[0], 4.497941445275415,
              1e-14);
  Array z64 = client().Upload(std::vector<std::complex<float>>{{1, 1}, {2, -3}}, {2});
  Array z64_norm = linalg().Norm(z64);
  EXPECT_EQ(z64_norm.dtype(), DType::kFloat32);
  EXPECT_NEAR(client().Download<float>(z64_norm)[0], 3.8729835f, 1e-6);
  Array i8 = client().Upload(std::vector<int8_t>{1, 2, 3, 4}, {2, 2});
  EXPECT_NEAR(client().Download<double>(linalg().Norm(i8, {.ord = "nuc"}))[0], 5.8309518948453,
              1e-13);
  EXPECT_CLIENT_ERROR(linalg().Norm(a, {.ord = "fro"}), kInvalidArgument,
                      "Improper number of dimensions to norm.");
  EXPECT_CLIENT_ERROR(linalg().Norm(a, {.ord = "fro", .axis = std::vector<int64_t>{1}}),
                      kInvalidArgument, "Invalid norm order 'fro' for vectors");
}

}  // namespace
}  // namespace arrayhub::testing
