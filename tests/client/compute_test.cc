// Ufuncs, reductions and random arrays through the C++ client. Semantics are checked against
// NumPy's answers, and every op and dtype is compared between the server under test (the
// CUDA backend on the GPU machine) and a second, CPU-backed server on the same inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <random>

#include "arrayhub/client.h"
#include "server/backend/host/host_backend.h"
#include "server/common/float16.h"
#include "server/common/ops.h"
#include "tests/support/client_expect.h"
#include "tests/support/test_seed.h"
#include "tests/support/test_server.h"

namespace arrayhub::testing {
namespace {

using client::Array;
using client::Client;
using client::DType;
using client::Error;
using client::StatusCode;

class ComputeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = StartTestServer();
    ASSERT_NE(server_, nullptr);
    client_.emplace(Client::Connect(server_->address()));
  }
  Client& client() { return *client_; }

  std::unique_ptr<ArrayHubServer> server_;
  std::optional<Client> client_;
};

TEST_F(ComputeTest, AddBroadcastsLikeNumPy) {
  std::vector<float> a(12), b(4);
  for (int i = 0; i < 12; ++i) a[i] = 0.5f * i - 2.25f;
  for (int j = 0; j < 4; ++j) b[j] = 1.0f / (j + 3);
  Array x = client().Upload(a, {3, 4});
  Array y = client().Upload(b, {4});
  Array z = client().Ufunc("add", {x, y});
  EXPECT_EQ(z.shape(), (client::Shape{3, 4}));
  EXPECT_EQ(z.dtype(), DType::kFloat32);
  const std::vector<float> got = client().Download<float>(z);
  for (int i = 0; i < 12; ++i) EXPECT_EQ(got[i], a[i] + b[i % 4]) << i;
}

TEST_F(ComputeTest, IncompatibleShapesNameBothShapes) {
  Array x = client().Zeros({3, 4}, DType::kFloat32);
  Array y = client().Zeros({5}, DType::kFloat32);
  EXPECT_CLIENT_ERROR(client().Ufunc("add", {x, y}), kInvalidArgument,
                      "operands could not be broadcast together with shapes (3,4) (5,)");
}

TEST_F(ComputeTest, PythonScalarsAreWeak) {
  Array x = client().Upload(std::vector<int8_t>{1, -2, 127}, {3});
  Array y = client().Ufunc("add", {x, 1});
  EXPECT_EQ(y.dtype(), DType::kInt8);
  EXPECT_EQ(client().Download<int8_t>(y), (std::vector<int8_t>{2, -1, -128}));  // Wraps.
  EXPECT_EQ(client().Ufunc("multiply", {x, 1.5}).dtype(), DType::kFloat64);
  Array u = client().Upload(std::vector<uint8_t>{1}, {1});
  EXPECT_CLIENT_ERROR(client().Ufunc("add", {u, 300}), kInvalidArgument,
                      "Python integer 300 out of bounds for uint8");
}

TEST_F(ComputeTest, UnsignedOverflowWraps) {
  Array x = client().Upload(std::vector<uint64_t>{~uint64_t{0}}, {1});
  EXPECT_EQ(client().Download<uint64_t>(client().Ufunc("add", {x, 1})), (std::vector<uint64_t>{0}));
}

TEST_F(ComputeTest, InPlaceTouchesNoNewMemory) {
  Array x = client().Arange(0, 1000, 1, DType::kFloat64);
  client().Synchronize();  // The server's count is read once the pipeline has run.
  const int64_t before = server_->engine().Stats().bytes_in_use;
  client().UfuncOut(x, "multiply", {x, 2});
  client().Synchronize();
  EXPECT_EQ(server_->engine().Stats().bytes_in_use, before);
  const std::vector<double> got = client().Download<double>(x);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(got[i], 2.0 * i);
}

TEST_F(ComputeTest, OutMustAcceptTheResultSameKind) {
  Array f = client().Ones({4}, DType::kFloat64);
  Array i = client().Zeros({4}, DType::kInt64);
  EXPECT_CLIENT_ERROR((client().UfuncOut(i, "add", {f, f}), client().Synchronize()),
                      kInvalidArgument,
                      "Cannot cast ufunc 'add' output from dtype('float64') to dtype('int64')");
}

TEST_F(ComputeTest, UnsupportedDTypeNamesOpAndDType) {
  Array f = client().Ones({2}, DType::kFloat32);
  EXPECT_CLIENT_ERROR(client().Ufunc("bitwise_and", {f, f}), kInvalidArgument, "bitwise_and");
  EXPECT_CLIENT_ERROR(client().Ufunc("bitwise_and", {f, f}), kInvalidArgument, "float32");
  EXPECT_CLIENT_ERROR(client().Ufunc("frobnicate", {f}), kInvalidArgument,
                      "unknown elementwise op 'frobnicate'");
  EXPECT_CLIENT_ERROR(client().Ufunc("add", {f}), kInvalidArgument, "add takes 2 operands, got 1");
}

TEST_F(ComputeTest, ResultDTypesFollowNumPy) {
  Array i16 = client().Ones({2}, DType::kInt16);
  EXPECT_EQ(client().Ufunc("exp", {i16}).dtype(), DType::kFloat32);
  EXPECT_EQ(client().Ufunc("less", {i16, 3}).dtype(), DType::kBool);
  EXPECT_EQ(client().Ufunc("true_divide", {i16, i16}).dtype(), DType::kFloat64);
  Array c = client().Ones({2}, DType::kComplex64);
  EXPECT_EQ(client().Ufunc("absolute", {c}).dtype(), DType::kFloat32);
}

TEST_F(ComputeTest, WhereSelects) {
  Array cond = client().Upload(std::vector<bool>{true, false, true}, {3});
  Array a = client().Upload(std::vector<double>{1, 2, 3}, {3});
  Array r = client().Ufunc("where", {cond, a, -1.0});
  EXPECT_EQ(client().Download<double>(r), (std::vector<double>{1, -1, 3}));
}

TEST_F(ComputeTest, ReductionsOverAxes) {
  std::vector<double> values(24);
  for (int i = 0; i < 24; ++i) values[i] = i * 0.25 - 1;
  Array x = client().Upload(values, {2, 3, 4});
  const double total = client().Download<double>(client().Reduce("sum", x))[0];
  EXPECT_DOUBLE_EQ(total, 24 * 0.25 * 23 / 2 - 24);
  Array s = client().Reduce("sum", x, {.axis = std::vector<int64_t>{0, 2}, .keepdims = true});
  EXPECT_EQ(s.shape(), (client::Shape{1, 3, 1}));
  std::vector<double> expected(3, 0.0);
  for (int i = 0; i < 24; ++i) expected[(i / 4) % 3] += values[i];
  EXPECT_EQ(client().Download<double>(s), expected);
  Array m = client().Reduce("argmax", x, {.axis = std::vector<int64_t>{-1}});
  EXPECT_EQ(m.dtype(), DType::kInt64);
  EXPECT_EQ(client().Download<int64_t>(m), std::vector<int64_t>(6, 3));
  Array v = client().Reduce("var", x, {.ddof = 1});
  const double mean = total / 24;
  double ss = 0;
  for (double value : values) ss += (value - mean) * (value - mean);
  EXPECT_NEAR(client().Download<double>(v)[0], ss / 23, 1e-12);
}

TEST_F(ComputeTest, Float16SumsAccumulateInFloat32) {
  Array ones = client().Ones({10000}, DType::kFloat16);
  Array s = client().Reduce("sum", ones);
  EXPECT_EQ(s.dtype(), DType::kFloat16);
  const std::vector<std::byte> bytes = client().DownloadBytes(s);
  uint16_t bits;
  std::memcpy(&bits, bytes.data(), 2);
  EXPECT_EQ(bits, HalfFromDouble(10000.0).bits());  // Pure float16 accumulation stalls at 2048.
}

TEST_F(ComputeTest, ReductionErrorsFollowNumPy) {
  Array x = client().Ones({2, 3}, DType::kFloat32);
  EXPECT_CLIENT_ERROR(client().Reduce("sum", x, {.axis = std::vector<int64_t>{2}}),
                      kInvalidArgument, "axis 2 is out of bounds for array of dimension 2");
  Array empty = client().Zeros({0}, DType::kFloat32);
  EXPECT_CLIENT_ERROR(client().Reduce("min", empty), kInvalidArgument, "zero-size array");
  EXPECT_CLIENT_ERROR(client().Reduce("median", x), kInvalidArgument, "unknown reduction");
}

TEST_F(ComputeTest, RandomArraysRespectBoundsAndSeeds) {
  Array u = client().RandomUniform({100000}, -2.0, 3.0, DType::kFloat32, 42);
  const std::vector<float> values = client().Download<float>(u);
  double sum = 0;
  for (float v : values) {
    ASSERT_GE(v, -2.0f);
    ASSERT_LT(v, 3.0f);
    sum += v;
  }
  EXPECT_NEAR(sum / values.size(), 0.5, 0.03);
  EXPECT_EQ(
      client().Download<float>(client().RandomUniform({100000}, -2.0, 3.0, DType::kFloat32, 42)),
      values);
  const std::vector<int32_t> ints =
      client().Download<int32_t>(client().RandomIntegers({10000}, -3, 4, DType::kInt32));
  for (int v : ints) ASSERT_TRUE(v >= -3 && v < 4) << v;
  EXPECT_CLIENT_ERROR(client().RandomIntegers({3}, 0, 300, DType::kUInt8), kInvalidArgument,
                      "high is out of bounds for uint8");
  const std::vector<double> normal =
      client().Download<double>(client().RandomNormal({200000}, 1.0, 2.0));
  double m = 0, m2 = 0;
  for (double v : normal) m += v;
  m /= normal.size();
  for (double v : normal) m2 += (v - m) * (v - m);
  EXPECT_NEAR(m, 1.0, 0.03);
  EXPECT_NEAR(std::sqrt(m2 / normal.size()), 2.0, 0.03);
}

// --- Every op and dtype: the server under test against a CPU server -------------------------

constexpr DType kNumericDTypes[] = {
    DType::kBool,    DType::kInt8,    DType::kInt16,     DType::kInt32,      DType::kInt64,
    DType::kUInt8,   DType::kUInt16,  DType::kUInt32,    DType::kUInt64,     DType::kFloat16,
    DType::kFloat32, DType::kFloat64, DType::kComplex64, DType::kComplex128,
};

// Random bytes that are valid elements of `dtype`: any bits for integers, 0/1 for bool, and
// values of moderate size (with some negatives, fractions and exact integers) for floats.
std::vector<std::byte> RandomElements(DType dtype, int64_t count, std::mt19937_64& rng) {
  const int64_t itemsize = client::ItemSize(dtype);
  std::vector<std::byte> bytes(count * itemsize);
  std::normal_distribution<double> normal(0.0, 3.0);
  auto put = [&](int64_t index, auto value) { std::memcpy(&bytes[index], &value, sizeof value); };
  for (int64_t i = 0; i < count; ++i) {
    const double x = (i % 7 == 0) ? std::round(normal(rng)) : normal(rng);
    switch (dtype) {
      case DType::kBool:
        put(i, static_cast<uint8_t>(rng() & 1));
        break;
      case DType::kFloat16:
        put(i * 2, HalfFromDouble(x).bits());
        break;
      case DType::kFloat32:
        put(i * 4, static_cast<float>(x));
        break;
      case DType::kFloat64:
        put(i * 8, x);
        break;
      case DType::kComplex64:
        put(i * 8, std::complex<float>(static_cast<float>(x), static_cast<float>(normal(rng))));
        break;
      case DType::kComplex128:
        put(i * 16, std::complex<double>(x, normal(rng)));
        break;
      default:
        for (int64_t b = 0; b < itemsize; ++b) bytes[i * itemsize + b] = std::byte(rng());
    }
  }
  return bytes;
}

// Element k of `bytes` as complex<double> (real dtypes have imaginary part 0).
std::complex<double> ElementAt(const std::vector<std::byte>& bytes, DType dtype, int64_t k) {
  auto get = [&](auto zero) {
    std::memcpy(&zero, &bytes[k * sizeof zero], sizeof zero);
    return zero;
  };
  switch (dtype) {
    case DType::kBool:
      return get(uint8_t{});
    case DType::kInt8:
      return get(int8_t{});
    case DType::kInt16:
      return get(int16_t{});
    case DType::kInt32:
      return get(int32_t{});
    case DType::kInt64:
      return static_cast<double>(get(int64_t{}));
    case DType::kUInt8:
      return get(uint8_t{});
    case DType::kUInt16:
      return get(uint16_t{});
    case DType::kUInt32:
      return get(uint32_t{});
    case DType::kUInt64:
      return static_cast<double>(get(uint64_t{}));
    case DType::kFloat16: {
      Imath::half h;
      h.setBits(get(uint16_t{}));
      return static_cast<float>(h);
    }
    case DType::kFloat32:
      return get(float{});
    case DType::kFloat64:
      return get(double{});
    case DType::kComplex64:
      return std::complex<double>(get(std::complex<float>{}));
    case DType::kComplex128:
      return get(std::complex<double>{});
  }
  return 0.0;
}

// Equal within `tolerance` relative to the larger magnitude (complex numbers as a whole: the
// small part of a large complex result carries the large part's absolute error); NaN and
// infinite parts must agree exactly.
bool Close(std::complex<double> a, std::complex<double> b, double tolerance) {
  for (auto [x, y] : {std::pair{a.real(), b.real()}, std::pair{a.imag(), b.imag()}}) {
    if (std::isnan(x) || std::isnan(y)) {
      if (std::isnan(x) != std::isnan(y)) return false;
    } else if ((std::isinf(x) || std::isinf(y)) && x != y) {
      return false;
    }
  }
  const std::complex<double> finite_a(std::isfinite(a.real()) ? a.real() : 0.0,
                                      std::isfinite(a.imag()) ? a.imag() : 0.0);
  const std::complex<double> finite_b(std::isfinite(b.real()) ? b.real() : 0.0,
                                      std::isfinite(b.imag()) ? b.imag() : 0.0);
  return std::abs(finite_a - finite_b) <=
         tolerance * std::max({1.0, std::abs(finite_a), std::abs(finite_b)});
}

double ToleranceFor(DType dtype) {
  switch (dtype) {
    case DType::kFloat16:
      return 2e-3;
    case DType::kFloat32:
    case DType::kComplex64:
      return 2e-5;
    case DType::kFloat64:
    case DType::kComplex128:
      // libm and CUDA's math library round differently; transcendental ops of large
      // arguments differ by more than a few ulp.
      return 1e-11;
    default:
      return 0.0;  // Integers and bool: exact.
  }
}

TEST_F(ComputeTest, EveryOpAndDTypeMatchesTheCpuBackend) {
  auto reference_server = ArrayHubServer::Start(ServerOptions{.listen_address = "127.0.0.1:0"},
                                                std::make_unique<HostBackend>());
  ASSERT_TRUE(reference_server.ok()) << reference_server.status();
  Client reference = Client::Connect((*reference_server)->address());
  reference.SetSync(true);  // The oracle: its errors decide, so they must come at once.
  std::mt19937_64 rng(BaseSeed());
  SCOPED_TRACE("random data from" + SeedNote());

  constexpr int64_t kCount = 4099;  // Odd: exercises vector tails.
  int compared = 0;
  for (const ElementwiseOp op : kAllElementwiseOps) {
    const std::string name(OpName(op));
    // On the CUDA backend each op and dtype is a new kernel for NVRTC (~150 ms on the H100),
    // so the whole test outlasts the default 60 s lease: renew it, as a long-lived client does.
    client().KeepAlive();
    reference.KeepAlive();
    for (DType dtype : kNumericDTypes) {
      std::vector<std::vector<std::byte>> inputs;
      std::vector<Array> here, there;
      for (int k = 0; k < Arity(op); ++k) {
        // where's condition is bool and ldexp's exponent int64 (the two enums share the
        // wire's numbering).
        const auto input_dtype =
            static_cast<DType>(arrayhub::OperandDType(op, k, static_cast<arrayhub::DType>(dtype)));
        inputs.push_back(RandomElements(input_dtype, kCount, rng));
        here.push_back(client().UploadBytes(inputs.back(), input_dtype, {kCount}));
        there.push_back(reference.UploadBytes(inputs.back(), input_dtype, {kCount}));
      }
      std::vector<client::Operand> here_ops(here.begin(), here.end());
      std::vector<client::Operand> there_ops(there.begin(), there.end());
      std::optional<Array> expected;
      try {
        expected = reference.Ufunc(name, there_ops);
      } catch (const Error& e) {
        // No NumPy loop for this dtype: the server under test must refuse it the same way.
        EXPECT_CLIENT_ERROR(client().Ufunc(name, here_ops), kInvalidArgument, name);
        continue;
      }
      SCOPED_TRACE(name + " " + std::string(client::DTypeName(dtype)));
      Array got = client().Ufunc(name, here_ops);
      ASSERT_EQ(got.dtype(), expected->dtype());
      const auto got_bytes = client().DownloadBytes(got);
      const auto want_bytes = reference.DownloadBytes(*expected);
      // Near a pole, tan and tanh amplify their input's rounding by 1 + |result|^2, so two
      // correct libraries differ relatively by about eps * |result| there (seen on the H200:
      // 1.7e-11 for a complex128 tanh of magnitude 1404): scale the tolerance by it.
      const bool near_poles_amplify = name == "tan" || name == "tanh";
      int mismatches = 0;
      for (int64_t i = 0; i < kCount && mismatches < 5; ++i) {
        const auto g = ElementAt(got_bytes, got.dtype(), i);
        const auto w = ElementAt(want_bytes, got.dtype(), i);
        const double tolerance =
            ToleranceFor(got.dtype()) * (near_poles_amplify ? std::max(1.0, std::abs(w)) : 1.0);
        if (!Close(g, w, tolerance)) {
          ++mismatches;
          ADD_FAILURE() << name << "(" << client::DTypeName(dtype) << ") element " << i << ": " << g
                        << " vs CPU " << w;
        }
      }
      ++compared;
    }
  }
  EXPECT_GT(compared, 300);
}

}  // namespace
}  // namespace arrayhub::testing
