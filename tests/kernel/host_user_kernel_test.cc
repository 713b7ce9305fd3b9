// The host backend's evaluator of user kernels against float64 references on fresh random
// data: CuPy's kmeans and black_scholes kernels, broadcasting, raw access and its range check,
// reductions over axes, preamble functions, loops, and C's defined-here corner cases.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "server/backend/host/host_backend.h"
#include "server/common/stop_signal.h"
#include "server/kernel/checked_kernel.h"
#include "tests/kernel/kernel_test_util.h"
#include "tests/support/test_queue.h"

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
    auto buffer = backend_.memory().Allocate(
        TestQueue(backend_), static_cast<int64_t>(std::max<size_t>(values.size(), 1) * sizeof(T)));
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
    auto prepared = backend_.user_kernels().PrepareUserKernel(*checked);
    if (!prepared.ok()) return prepared.status();
    UserKernelCall call{*checked, *prepared, std::move(shape), std::move(axes),
                        std::move(arguments)};
    return backend_.user_kernels().RunUserKernel(TestQueue(backend_), call);
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

// One int64 input x (n values), a raw float64 input r, an int64 scalar k; int64 output y and
// raw float64 output w: the frame of the semantics tests below.
class FrameTest : public HostUserKernelTest {
 protected:
  absl::Status RunFrame(const std::string& operation, const std::vector<int64_t>& x,
                        const std::vector<double>& r, int64_t k, std::vector<int64_t>* y,
                        std::vector<double>* w = nullptr, const std::string& preamble = "") {
    const int64_t n = static_cast<int64_t>(x.size());
    const ArrayView out = Output<int64_t>({n});
    const ArrayView raw_out = Place(std::vector<double>(4, 0.0), {4});
    const DType i64 = DType::kInt64;
    absl::Status status = Run(
        kernel::testing::Elementwise("int64 x, raw float64 r, int64 k", "int64 y, raw float64 w",
                                     operation, preamble),
        {{Array(i64), Array(DType::kFloat64), ScalarArg(i64)}, {std::nullopt, std::nullopt}}, {n},
        {ArrayArg(Place(x, {n})), RawArg(Place(r, {static_cast<int64_t>(r.size())})),
         ScalarOf<int64_t>(k), ArrayArg(out), RawArg(raw_out)});
    if (y != nullptr) *y = Read<int64_t>(out);
    if (w != nullptr) *w = Read<double>(raw_out);
    return status;
  }
};

TEST_F(FrameTest, RawAccessIsRangeChecked) {
  std::vector<int64_t> y;
  std::vector<double> w;
  ASSERT_TRUE(RunFrame("y = r[r.size() - 1 - i]; w[i % w.size()] = x * 2", {1, 2, 3}, {10, 20, 30},
                       0, &y, &w)
                  .ok());
  EXPECT_EQ(y, (std::vector<int64_t>{30, 20, 10}));
  EXPECT_EQ(w, (std::vector<double>{2, 4, 6, 0}));
  EXPECT_EQ(RunFrame("y = r[i + 1]", {1, 2, 3}, {10, 20, 30}, 0, &y).message(),
            "kernel test_kernel: index 3 is out of bounds for raw parameter 'r' of size 3");
  EXPECT_EQ(RunFrame("y = r[i - 1]", {1, 2, 3}, {10, 20, 30}, 0, &y).message(),
            "kernel test_kernel: index -1 is out of bounds for raw parameter 'r' of size 3");
  EXPECT_EQ(RunFrame("w[x] = 1", {1, 2, 4}, {}, 0, &y).message(),
            "kernel test_kernel: index 4 is out of bounds for raw parameter 'w' of size 4");
  // Short circuits and the conditional read only where C would.
  ASSERT_TRUE(RunFrame("y = (i < r.size() && r[i] > 15) ? 1 : (i >= r.size() ? -1 : r[i])",
                       {0, 0, 0, 0, 0}, {10, 20, 30}, 0, &y)
                  .ok());
  EXPECT_EQ(y, (std::vector<int64_t>{10, 1, 1, -1, -1}));
}

TEST_F(FrameTest, OutputsKeepWhatTheKernelDoesNotAssign) {
  std::vector<int64_t> y;
  // Output() fills y with -7: lanes the kernel does not assign, and a kernel that never
  // assigns y, leave it so.
  ASSERT_TRUE(RunFrame("if (x > 1) y = x", {1, 2, 3, 0}, {}, 0, &y).ok());
  EXPECT_EQ(y, (std::vector<int64_t>{-7, 2, 3, -7}));
  ASSERT_TRUE(RunFrame("w[0] = x", {1, 2}, {}, 0, &y).ok());
  EXPECT_EQ(y, (std::vector<int64_t>{-7, -7}));
}

TEST_F(FrameTest, ControlFlowRunsPerElement) {
  std::vector<int64_t> y;
  // Loops with continue and break that diverge between elements; nested loops.
  ASSERT_TRUE(RunFrame("int64 s = 0;"
                       " for (int j = 0; j < k; ++j) { if (j == x) continue; if (j > 2 * x) break;"
                       " s += j; }"
                       " for (int a = 0; a < 3; ++a) for (int b = 2; b > 0; --b) s += 100;"
                       " y = s",
                       {0, 1, 2, 5}, {}, 8, &y)
                  .ok());
  // x=0: j=0 skipped, j=1 > 0 breaks: 0. x=1: j=0, (1 skipped), 2, then 3 > 2 breaks: 2.
  // x=2: 0+1+3+4 = 8. x=5: 0..7 without 5 = 23. Plus 600 from the nested loops.
  EXPECT_EQ(y, (std::vector<int64_t>{600, 602, 608, 623}));
}

TEST_F(FrameTest, FunctionsReturnEarly) {
  std::vector<int64_t> y;
  ASSERT_TRUE(RunFrame("y = sign(x) * 10 + clamp(x)", {-5, 0, 7, 100}, {}, 0, &y, nullptr,
                       R"(
      __device__ int64 sign(int64 v) { if (v > 0) return 1; if (v < 0) return -1; }
      __device__ int64 clamp(int64 v) {
        for (int j = 0; j < 1000; ++j) { if (v <= j) return j; }
        return 1000;
      })")
                  .ok());
  EXPECT_EQ(y, (std::vector<int64_t>{-10, 0, 17, 110}));  // sign(0) falls off: 0.
}

TEST_F(FrameTest, CSemanticsAreDefined) {
  std::vector<int64_t> y;
  // Integer division and remainder by zero give 0; INT_MIN / -1 wraps; shifts are masked;
  // signed overflow wraps; float to int of NaN and out-of-range values gives 0.
  ASSERT_TRUE(RunFrame("y = x / k + x % k", {7, -7}, {}, 0, &y).ok());
  EXPECT_EQ(y, (std::vector<int64_t>{0, 0}));
  ASSERT_TRUE(RunFrame("int32 m = x; y = m / -1", {INT32_MIN, 5}, {}, 0, &y).ok());
  EXPECT_EQ(y, (std::vector<int64_t>{INT32_MIN, -5}));
  ASSERT_TRUE(RunFrame("y = (1 << x) + (x >> 65)", {33, 1}, {}, 0, &y).ok());
  EXPECT_EQ(y, (std::vector<int64_t>{2 + 16, 2 + 0}));
  ASSERT_TRUE(RunFrame("y = x + 9223372036854775807", {1, 2}, {}, 0, &y).ok());
  EXPECT_EQ(y, (std::vector<int64_t>{INT64_MIN, INT64_MIN + 1}));
  ASSERT_TRUE(RunFrame("float64 z = 0.0; y = (int64)(z / z) + (int32)1e30 + (int64)(x * 2.9)",
                       {1, -1}, {}, 0, &y)
                  .ok());
  EXPECT_EQ(y, (std::vector<int64_t>{2, -2}));
  ASSERT_TRUE(RunFrame("uint8 u = x; u += 250; y = u", {10, 1}, {}, 0, &y).ok());
  EXPECT_EQ(y, (std::vector<int64_t>{4, 251}));
}

TEST_F(HostUserKernelTest, ReductionsOverAxes) {
  // sum of squares over each axis set of a (4, 300, 5) float64 array against the reference,
  // with and without identity, few outputs (pairwise in lanes) and many (lanes are outputs).
  const Shape shape{4, 300, 5};
  const std::vector<double> x = Random<double>(4 * 300 * 5, -1, 1);
  const ArrayView in = Place(x, shape);
  for (const std::vector<int64_t>& axes :
       std::vector<std::vector<int64_t>>{{0}, {1}, {2}, {0, 2}, {0, 1, 2}}) {
    for (const std::string identity : {"0", ""}) {
      Shape out_shape;
      for (int64_t d = 0; d < 3; ++d) {
        if (std::find(axes.begin(), axes.end(), d) == axes.end()) out_shape.push_back(shape[d]);
      }
      const ArrayView out = Output<double>(out_shape);
      ASSERT_TRUE(
          Run(kernel::testing::Reduction("T x", "T y", "x * x", "a + b", "y = sqrt(a)", identity),
              {{Array(DType::kFloat64)}, {std::nullopt}}, shape, {ArrayArg(in), ArrayArg(out)},
              axes)
              .ok());
      std::vector<double> expected;
      const auto kept = [&](int64_t d) {
        return std::find(axes.begin(), axes.end(), d) == axes.end();
      };
      int64_t outputs = 1;
      for (int64_t e : out_shape) outputs *= e;
      expected.assign(outputs, 0);
      for (int64_t a = 0; a < 4; ++a) {
        for (int64_t b = 0; b < 300; ++b) {
          for (int64_t c = 0; c < 5; ++c) {
            int64_t o = 0;
            if (kept(0)) o = o * 4 + a;
            if (kept(1)) o = o * 300 + b;
            if (kept(2)) o = o * 5 + c;
            const double v = x[(a * 300 + b) * 5 + c];
            expected[o] += v * v;
          }
        }
      }
      for (double& e : expected) e = std::sqrt(e);
      ExpectClose(Read<double>(out), expected, 1e-12);
    }
  }
}

TEST_F(HostUserKernelTest, ReductionOverNothingGivesIdentity) {
  const ArrayView in = Place(std::vector<double>{}, {3, 0});
  const ArrayView out = Output<double>({3});
  ASSERT_TRUE(Run(kernel::testing::Reduction("T x", "T y", "x", "max(a, b)", "y = a + 1", "-5"),
                  {{Array(DType::kFloat64)}, {std::nullopt}}, {3, 0}, {ArrayArg(in), ArrayArg(out)},
                  {1})
                  .ok());
  EXPECT_EQ(Read<double>(out), (std::vector<double>{-4, -4, -4}));
}

TEST_F(HostUserKernelTest, ReductionUsesIndexAndRaw) {
  // argmax-like: the index of the largest element, packed into the reduced value.
  const std::vector<double> x = {3, 9, 2, 9.5, 1};
  const ArrayView in = Place(x, {5});
  const ArrayView out = Output<int64_t>({});
  EXPECT_EQ(Run(kernel::testing::Reduction("raw T x, T v", "int64 y", "i", "x[a] >= x[b] ? a : b",
                                           "y = a", ""),
                {{Array(DType::kFloat64), Array(DType::kFloat64)}, {std::nullopt}}, {5},
                {RawArg(in), ArrayArg(in), ArrayArg(out)}, {0})
                .message(),
            "reduce_expr:1:1: parameter 'x' is not available in reduce_expr");
  ASSERT_TRUE(Run(kernel::testing::Reduction("raw T x, T v", "int64 y", "v * 1000 + i", "max(a, b)",
                                             "y = a % 10", ""),
                  {{Array(DType::kFloat64), Array(DType::kFloat64)}, {std::nullopt}}, {5},
                  {RawArg(in), ArrayArg(in), ArrayArg(out)}, {0})
                  .ok());
  EXPECT_EQ(Read<int64_t>(out), (std::vector<int64_t>{3}));
}

class Draining final : public StopSignal {
 public:
  absl::Status Check() const override { return absl::UnavailableError("draining"); }
};

// A loop of 2^62 iterations on four elements (core would refuse to charge it; the backend
// must stop anyway): the call's stop ends it with the signal's status.
TEST_F(FrameTest, AStopEndsALongLoop) {
  const Draining stop;
  const ScopedStopSignal scope(&stop);
  std::vector<int64_t> y;
  const absl::Status status = RunFrame("int64 s = 0; for (int64 j = 0; j < k; ++j) s += j; y = s",
                                       {1, 2, 3, 4}, {}, int64_t{1} << 62, &y);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable) << status;
}

}  // namespace
}  // namespace arrayhub
