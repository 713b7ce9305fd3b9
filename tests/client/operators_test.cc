// The C++ client's operators and NumPy-named free functions (arrayhub/arrayhub.h), against the
// values the host computes: each operator with arrays and scalars on either side, NumPy 2's weak
// scalars, compound assignment in place, NumPy's errors, and a sample of the named functions.
// That they are pipelined is in pipeline_test.cc (a chain of operators as one batch).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "arrayhub/arrayhub.h"
#include "tests/support/client_expect.h"
#include "tests/support/test_server.h"

namespace arrayhub::testing {
namespace {

using client::Array;
using client::Client;
using client::DType;
using client::Error;
using client::Shape;
using client::StatusCode;

class OperatorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = StartTestServer();
    ASSERT_NE(server_, nullptr);
    client_.emplace(Client::Connect(server_->address()));
  }
  Client& client() { return *client_; }

  // The array's values next to `expected(x[i], y[i])`, element by element.
  template <typename T, typename F>
  void ExpectElementwise(const Array& result, const std::vector<T>& x, const std::vector<T>& y,
                         F expected) {
    using R = decltype(expected(x[0], y[0]));
    const std::vector<R> got = client().Download<R>(result);
    ASSERT_EQ(got.size(), x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      if constexpr (std::is_floating_point_v<R>) {
        EXPECT_DOUBLE_EQ(got[i], expected(x[i], y[i])) << i;
      } else {
        EXPECT_EQ(got[i], expected(x[i], y[i])) << i;
      }
    }
  }

  std::unique_ptr<ArrayHubServer> server_;
  std::optional<Client> client_;
};

// NumPy's remainder of floats: the sign of the divisor.
double PythonMod(double x, double y) {
  const double r = std::fmod(x, y);
  return r != 0 && (r < 0) != (y < 0) ? r + y : r;
}

const std::vector<double> kX = {-3.5, -1, 0.5, 2, 7.25, 10};
const std::vector<double> kY = {2, -4, 1.5, -0.5, 3, 8};

TEST_F(OperatorsTest, ArithmeticMatchesTheHost) {
  Array a = client().Upload(kX, {2, 3});
  Array b = client().Upload(kY, {2, 3});
  ExpectElementwise(a + b, kX, kY, [](double x, double y) { return x + y; });
  ExpectElementwise(a - b, kX, kY, [](double x, double y) { return x - y; });
  ExpectElementwise(a * b, kX, kY, [](double x, double y) { return x * y; });
  ExpectElementwise(a / b, kX, kY, [](double x, double y) { return x / y; });
  ExpectElementwise(a % b, kX, kY, PythonMod);
  ExpectElementwise(-a, kX, kY, [](double x, double) { return -x; });
  // Scalars on either side.
  ExpectElementwise(a * 2.0, kX, kY, [](double x, double) { return x * 2.0; });
  ExpectElementwise(2.0 * a, kX, kY, [](double x, double) { return 2.0 * x; });
  ExpectElementwise(a + 1, kX, kY, [](double x, double) { return x + 1; });
  ExpectElementwise(1 - a, kX, kY, [](double x, double) { return 1 - x; });
  ExpectElementwise(10.0 / a, kX, kY, [](double x, double) { return 10.0 / x; });
  ExpectElementwise(7 % b, kX, kY, [](double, double y) { return PythonMod(7, y); });
  // Nested: temporaries are operands of the next op.
  ExpectElementwise((a + b) * (a - 1.5), kX, kY,
                    [](double x, double y) { return (x + y) * (x - 1.5); });
  EXPECT_EQ((a + b).shape(), (Shape{2, 3}));
}

TEST_F(OperatorsTest, ComparisonsGiveBoolArrays) {
  const std::vector<int32_t> x = {-3, 0, 5, 12}, y = {4, 0, 5, -1};
  Array a = client().Upload(x, {4});
  Array b = client().Upload(y, {4});
  Array equal = a == b;
  EXPECT_EQ(equal.dtype(), DType::kBool);
  ExpectElementwise(equal, x, y, [](int32_t p, int32_t q) -> bool { return p == q; });
  ExpectElementwise(a != b, x, y, [](int32_t p, int32_t q) -> bool { return p != q; });
  ExpectElementwise(a < b, x, y, [](int32_t p, int32_t q) -> bool { return p < q; });
  ExpectElementwise(a <= b, x, y, [](int32_t p, int32_t q) -> bool { return p <= q; });
  ExpectElementwise(a > b, x, y, [](int32_t p, int32_t q) -> bool { return p > q; });
  ExpectElementwise(a >= b, x, y, [](int32_t p, int32_t q) -> bool { return p >= q; });
  ExpectElementwise(a == 5, x, y, [](int32_t p, int32_t) -> bool { return p == 5; });
  ExpectElementwise(0 != a, x, y, [](int32_t p, int32_t) -> bool { return 0 != p; });
  ExpectElementwise(2 < a, x, y, [](int32_t p, int32_t) -> bool { return 2 < p; });
  ExpectElementwise(a >= 0.5, x, y, [](int32_t p, int32_t) -> bool { return p >= 0.5; });
}

TEST_F(OperatorsTest, BitwiseOperatorsMatchTheHost) {
  const std::vector<int32_t> x = {-3, 0, 5, 12}, y = {4, 7, 5, -1};
  Array a = client().Upload(x, {4});
  Array b = client().Upload(y, {4});
  ExpectElementwise(a & b, x, y, [](int32_t p, int32_t q) { return p & q; });
  ExpectElementwise(a | b, x, y, [](int32_t p, int32_t q) { return p | q; });
  ExpectElementwise(a ^ b, x, y, [](int32_t p, int32_t q) { return p ^ q; });
  ExpectElementwise(~a, x, y, [](int32_t p, int32_t) { return ~p; });
  ExpectElementwise(a << 2, x, y, [](int32_t p, int32_t) { return p << 2; });
  ExpectElementwise(a >> 1, x, y, [](int32_t p, int32_t) { return p >> 1; });
  ExpectElementwise(0xff & a, x, y, [](int32_t p, int32_t) { return 0xff & p; });
  // On bools, ~ is logical not and & logical and.
  Array flags = client().Upload(std::vector<bool>{true, false}, {2});
  EXPECT_EQ(client().Download<bool>(~flags), (std::vector<bool>{false, true}));
  EXPECT_EQ(client().Download<bool>(flags & true), (std::vector<bool>{true, false}));
}

TEST_F(OperatorsTest, ScalarsAreWeakAsInNumPy2) {
  Array i32 = client().Upload(std::vector<int32_t>{1, 2}, {2});
  EXPECT_EQ((i32 + 1).dtype(), DType::kInt32);
  EXPECT_EQ((1 + i32).dtype(), DType::kInt32);
  EXPECT_EQ((i32 + 1.5).dtype(), DType::kFloat64);
  EXPECT_EQ((i32 / 2).dtype(), DType::kFloat64);
  Array f32 = client().Upload(std::vector<float>{1.5f, -2.0f}, {2});
  Array doubled = f32 * 2.0;
  EXPECT_EQ(doubled.dtype(), DType::kFloat32);
  EXPECT_EQ(client().Download<float>(doubled), (std::vector<float>{3.0f, -4.0f}));
  EXPECT_EQ((2.0 * f32).dtype(), DType::kFloat32);
  EXPECT_EQ((f32 + i32).dtype(), DType::kFloat64);  // Arrays are not weak.
  Array u8 = client().Upload(std::vector<uint8_t>{1}, {1});
  EXPECT_CLIENT_ERROR(u8 + 300, kInvalidArgument, "Python integer 300 out of bounds for uint8");
}

TEST_F(OperatorsTest, CompoundAssignmentWritesInPlace) {
  Array a = client().Upload(kX, {6});
  Array b = client().Upload(kY, {6});
  const std::string handle = a.handle();
  a += b;
  a *= 2;
  a -= 1.0;
  ExpectElementwise(a, kX, kY, [](double x, double y) { return (x + y) * 2 - 1.0; });
  EXPECT_EQ(a.handle(), handle);
  Array bits = client().Upload(std::vector<int64_t>{6, 3}, {2});
  bits &= 2;
  bits <<= 3;
  EXPECT_EQ(client().Download<int64_t>(bits), (std::vector<int64_t>{16, 16}));
  // NumPy's same_kind rule for the output: an int64 array cannot take a float64 sum.
  EXPECT_CLIENT_ERROR((bits += 1.5, client().Synchronize()), kInvalidArgument,
                      "Cannot cast ufunc 'add' output from dtype('float64') to dtype('int64') "
                      "with casting rule 'same_kind'");
  EXPECT_EQ(client().Download<int64_t>(bits), (std::vector<int64_t>{16, 16}));  // Unchanged.
}

TEST_F(OperatorsTest, ErrorsAreNumPys) {
  Array x = client().Zeros({3, 4}, DType::kFloat32);
  Array y = client().Zeros({5}, DType::kFloat32);
  EXPECT_CLIENT_ERROR(x + y, kInvalidArgument,
                      "operands could not be broadcast together with shapes (3,4) (5,)");
  EXPECT_CLIENT_ERROR(x - client().Zeros({3}, DType::kBool) < 1.0, kInvalidArgument,
                      "operands could not be broadcast together with shapes (3,4) (3,)");
  EXPECT_CLIENT_ERROR(client::concatenate({}), kInvalidArgument,
                      "need at least one array to concatenate");
  Array empty;
  EXPECT_CLIENT_ERROR(empty * 2, kFailedPrecondition, "the Array is empty");
}

TEST_F(OperatorsTest, NamedUfuncsMatchTheHost) {
  Array a = client().Upload(kX, {2, 3});
  Array b = client().Upload(kY, {2, 3});
  const std::vector<double> got = client().Download<double>(client::exp(a));
  for (size_t i = 0; i < kX.size(); ++i) EXPECT_NEAR(got[i], std::exp(kX[i]), 1e-12 * got[i]);
  ExpectElementwise(client::sqrt(client::abs(a)), kX, kY,
                    [](double x, double) { return std::sqrt(std::abs(x)); });
  ExpectElementwise(client::maximum(a, b), kX, kY,
                    [](double x, double y) { return std::max(x, y); });
  ExpectElementwise(client::clip(a, -1, 1), kX, kY,
                    [](double x, double) { return std::clamp(x, -1.0, 1.0); });
  ExpectElementwise(client::where(a > b, a, 0.0), kX, kY,
                    [](double x, double y) { return x > y ? x : 0.0; });
  ExpectElementwise(client::power(2, b), kX, kY, [](double, double y) { return std::pow(2, y); });
  EXPECT_EQ(client::true_divide(a, 2, DType::kComplex128).dtype(), DType::kComplex128);
  EXPECT_EQ(client::isnan(a).dtype(), DType::kBool);
}

TEST_F(OperatorsTest, ReductionsTakeAxisAndKeepdims) {
  Array a = client().Upload(kX, {2, 3});
  double total = 0;
  for (double x : kX) total += x;
  EXPECT_DOUBLE_EQ(client().Download<double>(client::sum(a))[0], total);
  Array columns = client::sum(a, {.axis = std::vector<int64_t>{0}, .keepdims = true});
  EXPECT_EQ(columns.shape(), (Shape{1, 3}));
  EXPECT_EQ(client().Download<double>(columns), (std::vector<double>{-1.5, 6.25, 10.5}));
  EXPECT_EQ(client().Download<double>(client::mean(a, {.axis = std::vector<int64_t>{1}})),
            (std::vector<double>{(-3.5 - 1 + 0.5) / 3, (2 + 7.25 + 10) / 3}));
  EXPECT_EQ(client().Download<double>(client::max(a)), std::vector<double>{10});
  EXPECT_EQ(client().Download<double>(client::min(a)), std::vector<double>{-3.5});
  EXPECT_EQ(client().Download<double>(client::prod(a, {.axis = std::vector<int64_t>{1}})),
            (std::vector<double>{-3.5 * -1 * 0.5, 2 * 7.25 * 10}));
  EXPECT_EQ(client().Download<int64_t>(client::argmax(a)), std::vector<int64_t>{5});
  EXPECT_EQ(client().Download<int64_t>(client::argmin(a, {.axis = std::vector<int64_t>{1}})),
            (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(client().Download<bool>(client::any(a > 9)), std::vector<bool>{true});
  EXPECT_EQ(client().Download<bool>(client::all(a > -3)), std::vector<bool>{false});
}

TEST_F(OperatorsTest, ProductsAndViews) {
  Array a = client().Upload(kX, {2, 3});
  Array product = client::matmul(a, client::transpose(a));
  EXPECT_EQ(product.shape(), (Shape{2, 2}));
  std::vector<double> expected(4, 0.0);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      for (int k = 0; k < 3; ++k) expected[i * 2 + j] += kX[i * 3 + k] * kX[j * 3 + k];
    }
  }
  EXPECT_EQ(client().Download<double>(product), expected);
  Array flat = client::reshape(a, {6});
  EXPECT_DOUBLE_EQ(client().Download<double>(client::dot(flat, flat))[0],
                   expected[0] + expected[3]);
  Array tall = client::reshape(a, {3, 2});
  EXPECT_EQ(tall.shape(), (Shape{3, 2}));
  EXPECT_EQ(client().Download<double>(tall), kX);
  Array both = client::stack({a, a});
  EXPECT_EQ(both.shape(), (Shape{2, 2, 3}));
  std::vector<Array> halves = client::split(flat, 2);
  ASSERT_EQ(halves.size(), 2u);
  EXPECT_EQ(client().Download<double>(halves[1]), (std::vector<double>{2, 7.25, 10}));
}

}  // namespace
}  // namespace arrayhub::testing
