// User kernels on the CUDA backend against float64 references computed here, on fresh random
// data (the seed is printed with every failure; ARRAYHUB_TEST_SEED=<seed> repeats a run): CuPy's
// kmeans (its var, sum and count kernels with the example's broadcast views) and black_scholes
// kernels, broadcast and strided operands and outputs, raw reads and writes and the refusal of
// an index out of range, reductions over one, several, all and no axes (with outputs shared by
// blocks and outputs by the thousand), float16 and complex values; and the compile times (a
// cold compile, the in-memory hit, a load from the disk cache). Runs only with a GPU.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <complex>
#include <cstring>
#include <filesystem>
#include <random>
#include <vector>

#include "server/backend/cuda/kernel_cache.h"
#include "server/backend/cuda/user_kernel_codegen.h"
#include "server/common/float16.h"
#include "tests/backend/backend_io.h"
#include "tests/backend/cuda_fixture.h"
#include "tests/kernel/kernel_test_util.h"
#include "tests/support/test_queue.h"
#include "tests/support/test_seed.h"

namespace arrayhub {
namespace {

using kernel::ArgumentTypes;
using kernel::CheckedKernel;
using kernel::KernelSource;
using kernel::testing::Array;
using kernel::testing::ScalarArg;
using Kind = UserKernelArgument::Kind;

constexpr DType kF32 = DType::kFloat32;
constexpr DType kF64 = DType::kFloat64;

// An array on the device and a view of it.
struct DeviceArray {
  std::shared_ptr<Buffer> buffer;
  ArrayView view;
};

template <typename T>
T Element(const std::vector<std::byte>& bytes, size_t k) {
  T value;
  std::memcpy(&value, bytes.data() + k * sizeof(T), sizeof(T));
  return value;
}

ElementBytes ScalarBytes(double value, DType dtype) {
  ElementBytes bytes{};
  auto put = [&](auto v) { std::memcpy(bytes.data(), &v, sizeof(v)); };
  switch (dtype) {
    case DType::kFloat32:
      put(static_cast<float>(value));
      break;
    case DType::kInt32:
      put(static_cast<int32_t>(value));
      break;
    case DType::kInt64:
      put(static_cast<int64_t>(value));
      break;
    default:
      put(value);
  }
  return bytes;
}

class CudaUserKernelTest : public CudaFixture {
 protected:
  void SetUp() override {
    CudaFixture::SetUp();
    rng_.seed(testing::BaseSeed());
  }

  template <typename T>
  DeviceArray Make(const std::vector<T>& values, DType dtype, Shape shape) {
    absl::StatusOr<std::shared_ptr<Buffer>> buffer = Upload(*cuda_, values);
    EXPECT_TRUE(buffer.ok()) << buffer.status();
    DeviceArray array{*buffer, {}};
    array.view = {.buffer = array.buffer.get(),
                  .offset_bytes = 0,
                  .dtype = dtype,
                  .shape = shape,
                  .strides = ContiguousStrides(shape)};
    return array;
  }
  DeviceArray Empty(DType dtype, Shape shape) {
    int64_t count = 1;
    for (int64_t extent : shape) count *= extent;
    return Make(std::vector<std::byte>(static_cast<size_t>(count) * ItemSize(dtype)), dtype, shape);
  }
  template <typename T>
  std::vector<T> Read(const DeviceArray& array) {
    absl::StatusOr<std::vector<T>> values = Download<T>(*cuda_, *array.buffer);
    EXPECT_TRUE(values.ok()) << values.status();
    return values.ok() ? *values : std::vector<T>{};
  }
  std::vector<double> Normal(size_t n, double mean = 0, double sd = 1) {
    std::normal_distribution<double> d(mean, sd);
    std::vector<double> values(n);
    for (double& v : values) v = d(rng_);
    return values;
  }

  std::shared_ptr<const CheckedKernel> Check(const KernelSource& source,
                                             const ArgumentTypes& types) {
    auto checked = kernel::CheckKernel(source, types);
    EXPECT_TRUE(checked.ok()) << checked.status();
    return checked.ok() ? *checked : nullptr;
  }

  absl::Status Run(const std::shared_ptr<const CheckedKernel>& kernel, Shape shape,
                   std::vector<UserKernelArgument> arguments,
                   std::vector<int64_t> reduce_axes = {}) {
    auto prepared = cuda_->user_kernels().PrepareUserKernel(kernel);
    if (!prepared.ok()) return prepared.status();
    return cuda_->user_kernels().RunUserKernel(TestQueue(*cuda_),
                                               {.kernel = kernel,
                                                .prepared = *prepared,
                                                .shape = std::move(shape),
                                                .reduce_axes = std::move(reduce_axes),
                                                .arguments = std::move(arguments)});
  }

  std::mt19937_64 rng_;
};

UserKernelArgument ArrayArg(const ArrayView& view) { return {.kind = Kind::kArray, .view = view}; }
UserKernelArgument RawArg(const ArrayView& view) { return {.kind = Kind::kRaw, .view = view}; }
UserKernelArgument Scalar(double value, DType dtype) {
  return {.kind = Kind::kScalar, .scalar = ScalarBytes(value, dtype)};
}

// `view` of another shape and strides (elements) and offset (elements).
ArrayView Reshaped(ArrayView view, Shape shape, Strides strides, int64_t offset = 0) {
  view.shape = std::move(shape);
  view.strides = std::move(strides);
  view.offset_bytes = offset * ItemSize(view.dtype);
  return view;
}

// |got - want| <= tolerance * max(1, |want|) for every element.
template <typename T>
void ExpectNear(const std::vector<T>& got, const std::vector<double>& want, double tolerance) {
  ASSERT_EQ(got.size(), want.size());
  int bad = 0;
  for (size_t k = 0; k < got.size() && bad < 5; ++k) {
    const double g = static_cast<double>(got[k]);
    if (!(std::abs(g - want[k]) <= tolerance * std::max(1.0, std::abs(want[k])))) {
      ADD_FAILURE() << "element " << k << ": " << g << ", want " << want[k];
      ++bad;
    }
  }
}

// kmeans.py's fit_custom, one iteration: var_kernel over the broadcast views of X and the
// centers, then sum_kernel and count_kernel over the mask of each sample's cluster.
TEST_F(CudaUserKernelTest, KmeansKernelsMatchFloat64) {
  if (Stopped()) return;
  const int64_t n = int64_t{1} << 20;  // Enough samples that each output is split over blocks.
  const int64_t k = 3;
  for (DType t : {kF32, kF64}) {
    SCOPED_TRACE(DTypeName(t));
    const std::vector<double> x = Normal(static_cast<size_t>(2 * n));
    const std::vector<double> centers = Normal(static_cast<size_t>(2 * k));
    auto upload = [&](const std::vector<double>& v, Shape shape) {
      if (t == kF64) return Make(v, t, shape);
      return Make(std::vector<float>(v.begin(), v.end()), t, shape);
    };
    // The rounded inputs, as the device holds them.
    auto held = [&](double v) { return t == kF32 ? double{static_cast<float>(v)} : v; };
    const DeviceArray X = upload(x, {n, 2});
    const DeviceArray C = upload(centers, {k, 2});

    // distances = var_kernel(X[:, None, 0], X[:, None, 1], centers[None, :, 1],
    //                        centers[None, :, 0])
    auto var = Check(kernel::testing::KmeansVar(),
                     {{Array(t), Array(t), Array(t), Array(t)}, {std::nullopt}});
    ASSERT_NE(var, nullptr);
    const DeviceArray distances = Empty(t, {n, k});
    ASSERT_TRUE(Run(var, {n, k},
                    {ArrayArg(Reshaped(X.view, {n, k}, {2, 0}, 0)),
                     ArrayArg(Reshaped(X.view, {n, k}, {2, 0}, 1)),
                     ArrayArg(Reshaped(C.view, {n, k}, {0, 2}, 1)),
                     ArrayArg(Reshaped(C.view, {n, k}, {0, 2}, 0)), ArrayArg(distances.view)})
                    .ok());
    std::vector<double> want(static_cast<size_t>(n * k));
    std::vector<int64_t> label(static_cast<size_t>(n));
    for (int64_t s = 0; s < n; ++s) {
      double best = INFINITY;
      for (int64_t c = 0; c < k; ++c) {
        const double d0 = held(x[2 * s]) - held(centers[2 * c + 1]);
        const double d1 = held(x[2 * s + 1]) - held(centers[2 * c]);
        const double d = d0 * d0 + d1 * d1;
        want[static_cast<size_t>(s * k + c)] = d;
        if (d < best) best = d, label[static_cast<size_t>(s)] = c;
      }
    }
    const double tolerance = t == kF32 ? 1e-6 : 1e-15;
    if (t == kF32) {
      ExpectNear(Read<float>(distances), want, tolerance);
    } else {
      ExpectNear(Read<double>(distances), want, tolerance);
    }

    // mask = pred == i[:, None]; sums = sum_kernel(X, mask[:, :, None], axis=1);
    // counts = count_kernel(mask, axis=1)
    std::vector<uint8_t> mask(static_cast<size_t>(k * n));
    for (int64_t c = 0; c < k; ++c) {
      for (int64_t s = 0; s < n; ++s) {
        mask[static_cast<size_t>(c * n + s)] = label[static_cast<size_t>(s)] == c;
      }
    }
    const DeviceArray M = Make(mask, DType::kBool, {k, n});
    auto sum =
        Check(kernel::testing::KmeansSum(), {{Array(t), Array(DType::kBool)}, {std::nullopt}});
    auto count = Check(kernel::testing::KmeansCount(), {{Array(DType::kBool)}, {std::nullopt}});
    ASSERT_NE(sum, nullptr);
    ASSERT_NE(count, nullptr);
    const DeviceArray sums = Empty(t, {k, 2});
    const DeviceArray counts = Empty(kF32, {k});
    ASSERT_TRUE(Run(sum, {k, n, 2},
                    {ArrayArg(Reshaped(X.view, {k, n, 2}, {0, 2, 1})),
                     ArrayArg(Reshaped(M.view, {k, n, 2}, {n, 1, 0})), ArrayArg(sums.view)},
                    {1})
                    .ok());
    ASSERT_TRUE(Run(count, {k, n}, {ArrayArg(M.view), ArrayArg(counts.view)}, {1}).ok());
    std::vector<double> want_sums(static_cast<size_t>(2 * k), 0.0);
    std::vector<double> want_counts(static_cast<size_t>(k), 0.0);
    for (int64_t s = 0; s < n; ++s) {
      const int64_t c = label[static_cast<size_t>(s)];
      want_sums[static_cast<size_t>(2 * c)] += held(x[2 * s]);
      want_sums[static_cast<size_t>(2 * c + 1)] += held(x[2 * s + 1]);
      want_counts[static_cast<size_t>(c)] += 1;
    }
    // A float32 sum of 2^20 terms in another order: a few units in the sixth digit of the
    // largest partial sums.
    if (t == kF32) {
      ExpectNear(Read<float>(sums), want_sums, 1e-3);
    } else {
      ExpectNear(Read<double>(sums), want_sums, 1e-9);
    }
    ExpectNear(Read<float>(counts), want_counts, 0);
  }
}

double Cnd(double d) {
  const double A1 = 0.31938153, A2 = -0.356563782, A3 = 1.781477937, A4 = -1.821255978,
               A5 = 1.330274429, RSQRT2PI = 0.39894228040143267793994605993438, W = 0.2316419;
  const double k = 1 / (1 + W * std::abs(d));
  double cnd =
      RSQRT2PI * std::exp(-d * d / 2) * (k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5)))));
  return d > 0 ? 1 - cnd : cnd;
}

TEST_F(CudaUserKernelTest, BlackScholesMatchesFloat64) {
  if (Stopped()) return;
  const int64_t n = 1 << 20;
  const double r = 0.02, v = 0.3;
  for (DType t : {kF32, kF64}) {
    SCOPED_TRACE(DTypeName(t));
    std::uniform_real_distribution<double> price(5, 30), strike(1, 100), years(0.25, 10);
    std::vector<double> s(n), x(n), y(n);
    for (int64_t k = 0; k < n; ++k) {
      s[k] = price(rng_), x[k] = strike(rng_), y[k] = years(rng_);
      if (t == kF32) {
        s[k] = static_cast<float>(s[k]), x[k] = static_cast<float>(x[k]),
        y[k] = static_cast<float>(y[k]);
      }
    }
    auto upload = [&](const std::vector<double>& values) {
      if (t == kF64) return Make(values, t, {n});
      return Make(std::vector<float>(values.begin(), values.end()), t, {n});
    };
    auto bs = Check(kernel::testing::BlackScholes(),
                    {{Array(t), Array(t), Array(t), ScalarArg(kF64), ScalarArg(kF64)},
                     {std::nullopt, std::nullopt}});
    ASSERT_NE(bs, nullptr);
    const DeviceArray call = Empty(t, {n}), put = Empty(t, {n});
    ASSERT_TRUE(Run(bs, {n},
                    {ArrayArg(upload(s).view), ArrayArg(upload(x).view), ArrayArg(upload(y).view),
                     Scalar(r, t), Scalar(v, t), ArrayArg(call.view), ArrayArg(put.view)})
                    .ok());
    const double rr = t == kF32 ? double{static_cast<float>(r)} : r;
    const double vv = t == kF32 ? double{static_cast<float>(v)} : v;
    std::vector<double> want_call(n), want_put(n);
    for (int64_t k = 0; k < n; ++k) {
      const double sqrt_t = std::sqrt(y[k]);
      const double d1 = (std::log(s[k] / x[k]) + (rr + vv * vv / 2) * y[k]) / (vv * sqrt_t);
      const double d2 = d1 - vv * sqrt_t;
      const double exp_rt = std::exp(-rr * y[k]);
      want_call[k] = s[k] * Cnd(d1) - x[k] * exp_rt * Cnd(d2);
      want_put[k] = x[k] * exp_rt * (1 - Cnd(d2)) - s[k] * (1 - Cnd(d1));
    }
    // Absolute errors (prices near 0 have no relative precision): float32 keeps about 1e-4
    // of the prices of up to 100, float64 1e-10.
    if (t == kF32) {
      ExpectNear(Read<float>(call), want_call, 1e-3);
      ExpectNear(Read<float>(put), want_put, 1e-3);
    } else {
      ExpectNear(Read<double>(call), want_call, 1e-10);
      ExpectNear(Read<double>(put), want_put, 1e-10);
    }
  }
}

// Operands broadcast along some axes and transposed, an output that is a strided slice, and the
// index i: exact float64 results.
TEST_F(CudaUserKernelTest, BroadcastAndStridedOperands) {
  if (Stopped()) return;
  auto kernel = Check(kernel::testing::Elementwise("T x, T y, T s", "T z", "z = x * y + s + (T)i"),
                      {{Array(kF64), Array(kF64), ScalarArg(kF64)}, {std::nullopt}});
  ASSERT_NE(kernel, nullptr);
  const Shape shape = {3, 4, 5};
  const std::vector<double> xs = Normal(15);  // (3, 1, 5), broadcast along axis 1.
  const std::vector<double> ys = Normal(60);  // (5, 4, 3), read transposed.
  const DeviceArray X = Make(xs, kF64, {3, 1, 5});
  const DeviceArray Y = Make(ys, kF64, {5, 4, 3});
  const DeviceArray Z = Make(std::vector<double>(3 * 4 * 10, -1.0), kF64, {3, 4, 10});
  ASSERT_TRUE(Run(kernel, shape,
                  {ArrayArg(Reshaped(X.view, shape, {5, 0, 1})),
                   ArrayArg(Reshaped(Y.view, shape, {1, 3, 12})), Scalar(0.5, kF64),
                   ArrayArg(Reshaped(Z.view, shape, {40, 10, 2}, 1))})
                  .ok());
  std::vector<double> want(120, -1.0);
  for (int a = 0; a < 3; ++a) {
    for (int b = 0; b < 4; ++b) {
      for (int c = 0; c < 5; ++c) {
        const int i = (a * 4 + b) * 5 + c;
        want[a * 40 + b * 10 + 2 * c + 1] = xs[a * 5 + c] * ys[c * 12 + b * 3 + a] + 0.5 + i;
      }
    }
  }
  ExpectNear(Read<double>(Z), want, 1e-15);  // The host compiler may contract into an FMA.
}

TEST_F(CudaUserKernelTest, RawReadsAndWrites) {
  if (Stopped()) return;
  // Every other element of a table, read cyclically from an offset; written reversed.
  auto kernel =
      Check(kernel::testing::Elementwise("raw T table, int32 shift", "T y, raw T reversed",
                                         "y = table[(i + shift) % table.size()];\n"
                                         "reversed[reversed.size() - 1 - i] = y;"),
            {{Array(kF64), ScalarArg(DType::kInt64)}, {std::nullopt, std::nullopt}});
  ASSERT_NE(kernel, nullptr);
  const std::vector<double> values = Normal(40);
  const DeviceArray table = Make(values, kF64, {40});
  const DeviceArray y = Empty(kF64, {100}), reversed = Empty(kF64, {100});
  ASSERT_TRUE(Run(kernel, {100},
                  {RawArg(Reshaped(table.view, {20}, {2})), Scalar(7, DType::kInt32),
                   ArrayArg(y.view), RawArg(reversed.view)})
                  .ok());
  std::vector<double> want(100), want_reversed(100);
  for (int i = 0; i < 100; ++i) {
    want[i] = values[2 * ((i + 7) % 20)];
    want_reversed[99 - i] = want[i];
  }
  ExpectNear(Read<double>(y), want, 0);
  ExpectNear(Read<double>(reversed), want_reversed, 0);
}

// One index out of range, read or written: the call fails naming it (the same text as the host
// evaluator's), and the daemon's device still works.
TEST_F(CudaUserKernelTest, RawIndexOutOfRangeIsRefused) {
  if (Stopped()) return;
  auto read = Check(kernel::testing::Elementwise("raw T table", "T y", "y = table[i * 3];"),
                    {{Array(kF64)}, {std::nullopt}});
  auto write = Check(kernel::testing::Elementwise("T x", "raw T out", "out[i - 1] = x;"),
                     {{Array(kF64)}, {std::nullopt}});
  ASSERT_NE(read, nullptr);
  ASSERT_NE(write, nullptr);
  const DeviceArray table = Make(Normal(10), kF64, {10});
  const DeviceArray y = Empty(kF64, {5});
  // Indices 0, 3, 6, 9, 12 of 10 elements.
  absl::Status status = Run(read, {5}, {RawArg(table.view), ArrayArg(y.view)});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "kernel test_kernel: index 12 is out of bounds for raw parameter 'table' of size 10");
  // Indices -1, 0, 1, 2.
  const ArrayView four = Reshaped(y.view, {4}, {1});
  status = Run(write, {4}, {ArrayArg(four), RawArg(table.view)});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "kernel test_kernel: index -1 is out of bounds for raw parameter 'out' of size 10");
  // In range, the same kernel runs, on the same device.
  EXPECT_TRUE(Run(read, {4}, {RawArg(table.view), ArrayArg(four)}).ok());
}

TEST_F(CudaUserKernelTest, ReductionsOverSeveralAxes) {
  if (Stopped()) return;
  auto norm = Check(kernel::testing::Reduction("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0"),
                    {{Array(kF64)}, {std::nullopt}});
  // The largest x * i (i: the flat index), no identity, over a transposed view.
  auto arg = Check(
      kernel::testing::Reduction("T x", "float64 y", "x * (double)i", "max(a, b)", "y = a", ""),
      {{Array(kF64)}, {std::nullopt}});
  ASSERT_NE(norm, nullptr);
  ASSERT_NE(arg, nullptr);
  const Shape shape = {6, 7, 8, 9};
  const std::vector<double> x = Normal(6 * 7 * 8 * 9);
  const DeviceArray X = Make(x, kF64, shape);
  for (const std::vector<int64_t>& axes :
       std::vector<std::vector<int64_t>>{{0, 2}, {1, 3}, {0, 1, 2, 3}, {3}, {}}) {
    SCOPED_TRACE(fmt::format("axes {}", fmt::join(axes, ",")));
    Shape kept;
    for (int d = 0; d < 4; ++d) {
      if (std::find(axes.begin(), axes.end(), d) == axes.end()) kept.push_back(shape[d]);
    }
    int64_t outputs = 1;
    for (int64_t e : kept) outputs *= e;
    std::vector<double> want_norm(outputs, 0.0), want_max(outputs, -INFINITY);
    // The input read transposed: element (a, b, c, d) of the call is x[d][c][b][a] of a
    // (9, 8, 7, 6) array.
    const std::vector<double> xt = x;
    for (int64_t i = 0; i < 6 * 7 * 8 * 9; ++i) {
      int64_t c[4], rest = i;
      for (int d = 3; d >= 0; --d) c[d] = rest % shape[d], rest /= shape[d];
      int64_t o = 0;
      for (int d = 0; d < 4; ++d) {
        if (std::find(axes.begin(), axes.end(), d) == axes.end()) o = o * shape[d] + c[d];
      }
      want_norm[o] += x[i] * x[i];
      const double t = xt[((c[3] * 8 + c[2]) * 7 + c[1]) * 6 + c[0]];
      want_max[o] = std::max(want_max[o], t * static_cast<double>(i));
    }
    for (double& v : want_norm) v = std::sqrt(v);
    const DeviceArray y = Empty(kF64, kept), m = Empty(kF64, kept);
    ASSERT_TRUE(Run(norm, shape, {ArrayArg(X.view), ArrayArg(y.view)}, axes).ok());
    ASSERT_TRUE(Run(arg, shape,
                    {ArrayArg(Reshaped(X.view, shape, {1, 6, 42, 336})), ArrayArg(m.view)}, axes)
                    .ok());
    ExpectNear(Read<double>(y), want_norm, 1e-12);
    ExpectNear(Read<double>(m), want_max, 0);
  }
  // Many outputs of few elements each, and one of many: the two ends of the launch shape.
  const int64_t rows = 100000;
  const std::vector<double> wide = Normal(rows * 3);
  const DeviceArray W = Make(wide, kF64, {rows, 3});
  const DeviceArray per_row = Empty(kF64, {rows}), total = Empty(kF64, {});
  ASSERT_TRUE(Run(norm, {rows, 3}, {ArrayArg(W.view), ArrayArg(per_row.view)}, {1}).ok());
  ASSERT_TRUE(Run(norm, {rows, 3}, {ArrayArg(W.view), ArrayArg(total.view)}, {0, 1}).ok());
  std::vector<double> want_rows(rows);
  double want_total = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const double s = wide[3 * r] * wide[3 * r] + wide[3 * r + 1] * wide[3 * r + 1] +
                     wide[3 * r + 2] * wide[3 * r + 2];
    want_rows[r] = std::sqrt(s);
    want_total += s;
  }
  ExpectNear(Read<double>(per_row), want_rows, 1e-14);
  ExpectNear(Read<double>(total), {std::sqrt(want_total)}, 1e-12);
  // Column norms: neighbouring threads serve neighbouring outputs, several blocks per column.
  const int64_t cols = 1000, height = 4000;
  const std::vector<double> tall = Normal(height * cols);
  const DeviceArray T = Make(tall, kF64, {height, cols});
  const DeviceArray per_column = Empty(kF64, {cols});
  ASSERT_TRUE(Run(norm, {height, cols}, {ArrayArg(T.view), ArrayArg(per_column.view)}, {0}).ok());
  std::vector<double> want_columns(cols, 0.0);
  for (int64_t r = 0; r < height; ++r) {
    for (int64_t c = 0; c < cols; ++c) want_columns[c] += tall[r * cols + c] * tall[r * cols + c];
  }
  for (double& v : want_columns) v = std::sqrt(v);
  ExpectNear(Read<double>(per_column), want_columns, 1e-12);
}

TEST_F(CudaUserKernelTest, Float16AndComplexValues) {
  if (Stopped()) return;
  auto kernel =
      Check(kernel::testing::Elementwise("float16 h, complex64 z", "float16 g, complex64 w",
                                         "g = h * h + (float16)1;\nw = z * z / conj(z);"),
            {{Array(DType::kFloat16), Array(DType::kComplex64)}, {std::nullopt, std::nullopt}});
  ASSERT_NE(kernel, nullptr);
  const int64_t n = 4096;
  const std::vector<double> values = Normal(static_cast<size_t>(3 * n));
  std::vector<uint16_t> halves(n);
  std::vector<std::complex<float>> zs(n);
  for (int64_t k = 0; k < n; ++k) {
    halves[k] = HalfFromDouble(values[k]).bits();
    zs[k] = {static_cast<float>(values[n + k]), static_cast<float>(values[2 * n + k])};
  }
  const DeviceArray H = Make(halves, DType::kFloat16, {n});
  const DeviceArray Z = Make(zs, DType::kComplex64, {n});
  const DeviceArray G = Empty(DType::kFloat16, {n}), W = Empty(DType::kComplex64, {n});
  ASSERT_TRUE(
      Run(kernel, {n}, {ArrayArg(H.view), ArrayArg(Z.view), ArrayArg(G.view), ArrayArg(W.view)})
          .ok());
  const std::vector<uint16_t> g = Read<uint16_t>(G);
  const std::vector<std::complex<float>> w = Read<std::complex<float>>(W);
  std::vector<double> got_g(n), want_g(n), got_w(2 * n), want_w(2 * n);
  for (int64_t k = 0; k < n; ++k) {
    Imath::half h;
    h.setBits(halves[k]);
    // h * h rounds to float16, then + 1 rounds again.
    const float square = static_cast<float>(HalfFromDouble(double{float(h)} * float(h)));
    want_g[k] = static_cast<float>(HalfFromDouble(double{square} + 1));
    Imath::half got;
    got.setBits(g[k]);
    got_g[k] = float(got);
    const std::complex<double> z(zs[k].real(), zs[k].imag());
    const std::complex<double> want = z * z / std::conj(z);
    want_w[2 * k] = want.real(), want_w[2 * k + 1] = want.imag();
    got_w[2 * k] = w[k].real(), got_w[2 * k + 1] = w[k].imag();
  }
  ExpectNear(got_g, want_g, 0);
  ExpectNear(got_w, want_w, 1e-5);
}

// The compile times the issue asks for: black_scholes compiled cold (a source no earlier run
// compiled), prepared again (the in-memory cache), and loaded from a disk cache by a second
// store over the directory (a restart).
TEST_F(CudaUserKernelTest, CompileTimes) {
  if (Stopped()) return;
  using Clock = std::chrono::steady_clock;
  auto ms = [](Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); };
  KernelSource source = kernel::testing::BlackScholes();
  // A constant of this run only, so that nothing compiled earlier matches.
  source.operation += fmt::format("call = call + (T)({} * 0);\n", rng_() % 1000000);
  auto bs =
      Check(source, {{Array(kF32), Array(kF32), Array(kF32), ScalarArg(kF64), ScalarArg(kF64)},
                     {std::nullopt, std::nullopt}});
  ASSERT_NE(bs, nullptr);
  const Clock::time_point t0 = Clock::now();
  ASSERT_TRUE(cuda_->user_kernels().PrepareUserKernel(bs).ok());
  const Clock::time_point t1 = Clock::now();
  ASSERT_TRUE(cuda_->user_kernels().PrepareUserKernel(bs).ok());
  const Clock::time_point t2 = Clock::now();

  char pattern[] = "/tmp/cuda_user_kernel_test-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  absl::StatusOr<std::string> cuda = UserKernelSource(DefinitionOf(*bs));
  ASSERT_TRUE(cuda.ok()) << cuda.status();
  int major = 0, minor = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0), cudaSuccess);
  const int arch = major * 10 + minor;
  {
    auto store = CompiledCodeStore::Open(pattern, 64 << 20);
    ASSERT_TRUE(store.ok()) << store.status();
    ASSERT_TRUE(CompileCached(*cuda, "bs", arch, store->get()).ok());
  }
  auto store = CompiledCodeStore::Open(pattern, 64 << 20);
  ASSERT_TRUE(store.ok()) << store.status();
  const Clock::time_point t3 = Clock::now();
  absl::StatusOr<CompiledBinary> loaded = CompileCached(*cuda, "bs", arch, store->get());
  const Clock::time_point t4 = Clock::now();
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE(loaded->from_store);
  std::printf(
      "black_scholes (float32, sm_%d): first compile %.1f ms, in-memory hit %.3f ms, disk-cache "
      "load %.2f ms (without the module load)\n",
      arch, ms(t1 - t0), ms(t2 - t1), ms(t4 - t3));
  std::filesystem::remove_all(pattern);
}

}  // namespace
}  // namespace arrayhub
