// The host backend's evaluator of user kernels against float64 references on fresh random
// data: CuPy's kmeans and black_scholes kernels, broadcasting, raw access and its range check,
// reductions over axes, preamble functions, loops, and C's defined-here corner cases.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "server/backend/host/host_backend.h"
#include "server/kernel/checked_kernel.h"
#include "tests/kernel/kernel_test_util.h"

namespace arrayhub {
namespace {

using kernel::ArgumentTypes;
using kernel::CheckKernel;
using kernel::KernelSource;
using kernel::testing::Array;
using kernel::testing::ScalarArg;

template <typename T>
void ExpectClose(const std::vector<T>& actual, const std::vector<double>& expected,
                 double tolerance) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t k = 0; k < actual.size(); ++k) {
    ASSERT_NEAR(actual[k], expected[k], tolerance * (1 + std::fabs(expected[k]))) << "at " << k;
  }
}

class HostUserKernelTest : public ::testing::Test {
 protected:
  template <typename T>
  ArrayView Place(const std::vector<T>& values, Shape shape, Strides strides = {},
                  int64_t offset = 0) {
    auto buffer =
        backend_.Allocate(static_cast<int64_t>(std::max<size_t>(values.size(), 1) * sizeof(T)));
    EXPECT_TRUE(buffer.ok());
    buffers_.push_back(*buffer);
    if (!values.empty()) std::memcpy((*buffer)->data(), values.data(), values.size() * sizeof(T));
    if (strides.empty()) strides = CStrides(shape);
    return ArrayView{buffer->get(), offset * static_cast<int64_t>(sizeof(T)), DTypeOf<T>(),
                     std::move(shape), std::move(strides)};
  }

  template <typename T>
  ArrayView Output(Shape shape) {
    int64_t n = 1;
    for (int64_t e : shape) n *= e;
    return Place(std::vector<T>(n, T(-7)), std::move(shape));
  }

  template <typename T>
  std::vector<T> Read(const ArrayView& view) {
    int64_t n = 1;
    for (int64_t e : view.shape) n *= e;
    std::vector<T> values(n);
    std::memcpy(values.data(), static_cast<std::byte*>(view.buffer->data()) + view.offset_bytes,
                n * sizeof(T));
    return values;
  }

  static Strides CStrides(const Shape& shape) {
    Strides strides(shape.size(), 1);
    for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
    return strides;
  }

  template <typename T>
  static constexpr DType DTypeOf() {
    if constexpr (std::is_same_v<T, float>) return DType::kFloat32;
    if constexpr (std::is_same_v<T, double>) return DType::kFloat64;
    if constexpr (std::is_same_v<T, int32_t>) return DType::kInt32;
    if constexpr (std::is_same_v<T, int64_t>) return DType::kInt64;
    if constexpr (std::is_same_v<T, bool>) return DType::kBool;
    return DType::kUInt8;
  }

  template <typename T>
  static UserKernelArgument ScalarOf(T value) {
    UserKernelArgument argument;
    argument.kind = UserKernelArgument::Kind::kScalar;
    std::memcpy(argument.scalar.data(), &value, sizeof(T));
    return argument;
  }
  static UserKernelArgument ArrayArg(ArrayView view) {
    return {UserKernelArgument::Kind::kArray, std::move(view), {}};
  }
  static UserKernelArgument RawArg(ArrayView view) {
    return {UserKernelArgument::Kind::kRaw, std::move(view), {}};
  }

  absl::Status Run(const KernelSource& source, const ArgumentTypes& types, Shape shape,
                   std::vector<UserKernelArgument> arguments, std::vector<int64_t> axes = {}) {
    auto checked = CheckKernel(source, types);
    if (!checked.ok()) return checked.status();
    auto prepared = backend_.PrepareUserKernel(*checked);
    if (!prepared.ok()) return prepared.status();
    UserKernelCall call{*checked, *prepared, std::move(shape), std::move(axes),
                        std::move(arguments)};
    return backend_.RunUserKernel(call);
  }

  template <typename T>
  std::vector<T> Random(size_t n, double low, double high) {
    std::uniform_real_distribution<double> uniform(low, high);
    std::vector<T> values(n);
    for (T& v : values) v = static_cast<T>(uniform(rng_));
    return values;
  }

  // CuPy's black_scholes on n options of T, r and v as Python floats; checked against the
  // float64 formula.
  template <typename T>
  void BlackScholes(int64_t n, double tolerance) {
    const std::vector<T> s = Random<T>(n, 5, 30);
    const std::vector<T> x = Random<T>(n, 1, 100);
    const std::vector<T> t = Random<T>(n, 0.25, 10);
    const double r = 0.02;
    const double v = 0.3;
    const ArrayView call = Output<T>({n});
    const ArrayView put = Output<T>({n});
    const DType d = DTypeOf<T>();
    ASSERT_TRUE(
        Run(kernel::testing::BlackScholes(),
            {{Array(d), Array(d), Array(d), ScalarArg(DType::kFloat64), ScalarArg(DType::kFloat64)},
             {std::nullopt, std::nullopt}},
            {n},
            {ArrayArg(Place(s, {n})), ArrayArg(Place(x, {n})), ArrayArg(Place(t, {n})),
             ScalarOf<T>(static_cast<T>(r)), ScalarOf<T>(static_cast<T>(v)), ArrayArg(call),
             ArrayArg(put)})
            .ok());
    const auto cnd = [](double d) {
      const double k = 1 / (1 + 0.2316419 * std::fabs(d));
      double c =
          0.39894228040143267793994605993438 * std::exp(-d * d / 2) *
          (k * (0.31938153 +
                k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429)))));
      return d > 0 ? 1 - c : c;
    };
    std::vector<double> calls, puts;
    const double rr = static_cast<T>(r);
    const double vv = static_cast<T>(v);
    for (int64_t k = 0; k < n; ++k) {
      const double sqrt_t = std::sqrt(double(t[k]));
      const double d1 = (std::log(double(s[k]) / x[k]) + (rr + vv * vv / 2) * t[k]) / (vv * sqrt_t);
      const double d2 = d1 - vv * sqrt_t;
      const double exp_rt = std::exp(-rr * t[k]);
      calls.push_back(s[k] * cnd(d1) - x[k] * exp_rt * cnd(d2));
      puts.push_back(x[k] * exp_rt * (1 - cnd(d2)) - s[k] * (1 - cnd(d1)));
    }
    ExpectClose(Read<T>(call), calls, tolerance);
    ExpectClose(Read<T>(put), puts, tolerance);
  }

  HostBackend backend_{int64_t{1} << 30};
  std::vector<std::shared_ptr<Buffer>> buffers_;
  std::mt19937_64 rng_{std::random_device{}()};
};

TEST_F(HostUserKernelTest, KmeansVarKernelBroadcasts) {
  const int64_t n = 1000;
  const int64_t k = 3;
  const std::vector<double> x = Random<double>(n * 2, -3, 3);
  const std::vector<double> centers = Random<double>(k * 2, -1, 1);
  // var_kernel(X[:, None, 0], X[:, None, 1], centers[None, :, 1], centers[None, :, 0]).
  const ArrayView xs = Place(x, {n, 2});
  const ArrayView cs = Place(centers, {k, 2});
  ArrayView x0{xs.buffer, 0, DType::kFloat64, {n, k}, {2, 0}};
  ArrayView x1{xs.buffer, 8, DType::kFloat64, {n, k}, {2, 0}};
  ArrayView c0{cs.buffer, 8, DType::kFloat64, {n, k}, {0, 2}};
  ArrayView c1{cs.buffer, 0, DType::kFloat64, {n, k}, {0, 2}};
  const ArrayView out = Output<double>({n, k});
  const DType f64 = DType::kFloat64;
  ASSERT_TRUE(Run(kernel::testing::KmeansVar(),
                  {{Array(f64), Array(f64), Array(f64), Array(f64)}, {std::nullopt}}, {n, k},
                  {ArrayArg(x0), ArrayArg(x1), ArrayArg(c0), ArrayArg(c1), ArrayArg(out)})
                  .ok());
  std::vector<double> expected;
  for (int64_t a = 0; a < n; ++a) {
    for (int64_t b = 0; b < k; ++b) {
      const double d0 = x[a * 2] - centers[b * 2 + 1];
      const double d1 = x[a * 2 + 1] - centers[b * 2];
      expected.push_back(d0 * d0 + d1 * d1);
    }
  }
  ExpectClose(Read<double>(out), expected, 1e-15);
}

TEST_F(HostUserKernelTest, BlackScholesMatchesFloat64) {
  BlackScholes<double>(1000, 1e-12);
  BlackScholes<float>(1000, 1e-4);
}

TEST_F(HostUserKernelTest, KmeansSumKernelOverAxis) {
  // sum_kernel(X, mask[:, :, None], axis=1): X (n, 2) broadcast to (k, n, 2).
  const int64_t n = 700;
  const int64_t k = 3;
  const std::vector<float> x = Random<float>(n * 2, -3, 3);
  std::vector<uint8_t> mask(k * n);
  for (uint8_t& m : mask) m = rng_() % 3 == 0;
  const ArrayView xs = Place(x, {n, 2});
  const ArrayView ms = Place(mask, {k, n});
  ArrayView xv{xs.buffer, 0, DType::kFloat32, {k, n, 2}, {0, 2, 1}};
  ArrayView mv{ms.buffer, 0, DType::kBool, {k, n, 2}, {n, 1, 0}};
  const ArrayView out = Output<float>({k, 2});
  ASSERT_TRUE(Run(kernel::testing::KmeansSum(),
                  {{Array(DType::kFloat32), Array(DType::kBool)}, {std::nullopt}}, {k, n, 2},
                  {ArrayArg(xv), ArrayArg(mv), ArrayArg(out)}, {1})
                  .ok());
  std::vector<double> expected(k * 2, 0);
  for (int64_t c = 0; c < k; ++c) {
    for (int64_t s = 0; s < n; ++s) {
      for (int64_t d = 0; d < 2; ++d) expected[c * 2 + d] += mask[c * n + s] ? x[s * 2 + d] : 0;
    }
  }
  ExpectClose(Read<float>(out), expected, 1e-4);

  // count_kernel(mask, axis=1).
  const ArrayView counts = Output<float>({k});
  ASSERT_TRUE(Run(kernel::testing::KmeansCount(), {{Array(DType::kBool)}, {std::nullopt}}, {k, n},
                  {ArrayArg(ms), ArrayArg(counts)}, {1})
                  .ok());
  std::vector<double> expected_counts(k, 0);
  for (int64_t c = 0; c < k; ++c) {
    for (int64_t s = 0; s < n; ++s) expected_counts[c] += mask[c * n + s];
  }
  ExpectClose(Read<float>(counts), expected_counts, 0);
}

}  // namespace
}  // namespace arrayhub
