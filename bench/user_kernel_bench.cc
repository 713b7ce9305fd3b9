// Server-side time of user kernels on the CUDA backend (CudaBackend::RunUserKernel: what a
// RunKernel RPC runs after checking), next to CuPy's ElementwiseKernel/ReductionKernel/fuse on
// the same kernels and shapes (user_kernel_cupy_bench.py, run before in the same job), and the
// compile costs: the first Prepare of each kernel (NVRTC) and a later one (the in-memory
// cache).
//
//   user_kernel_bench [--cupy FILE] [--repeats N]
//
// The kernels are CuPy's examples verbatim (kmeans' var_kernel, sum_kernel and count_kernel at
// the example's shapes with 1M samples and 8 clusters; black_scholes over 10M options) and a
// 6-op expression on 100M float32 as arrayhub.fuse and cupy.fuse trace it. CUDA events on the
// backend's stream, warm-up first, median of N calls.
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_support.h"
#include "server/backend/cuda/cuda_backend.h"
#include "server/backend/user_kernel.h"
#include "tests/kernel/kernel_test_util.h"
#include "tests/support/test_queue.h"

namespace arrayhub {
namespace {

using bench::Check;
using kernel::ArgumentTypes;
using kernel::CheckedKernel;
using kernel::KernelSource;
using Kind = UserKernelArgument::Kind;

constexpr DType kF32 = DType::kFloat32;

struct Case {
  std::string name;  // As in user_kernel_cupy_bench.py.
  std::shared_ptr<const CheckedKernel> kernel;
  double first_compile_ms = 0;
  double cached_prepare_ms = 0;
  UserKernelCall call;
  double bytes = 0;  // Read once and written once, at least.
};

double MillisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

class Bench {
 public:
  explicit Bench(Backend& backend) : backend_(backend) {}

  // A C-contiguous float32 (or `dtype`) array of `shape`, uniform in [low, high).
  ArrayView Uniform(Shape shape, double low, double high, DType dtype = kF32) {
    int64_t count = 1;
    for (int64_t extent : shape) count *= extent;
    absl::StatusOr<std::shared_ptr<Buffer>> buffer =
        backend_.memory().Allocate(TestQueue(backend_), count * ItemSize(dtype));
    Check(buffer.status(), "Allocate");
    buffers_.push_back(*buffer);
    ArrayView view = bench::ContiguousView(**buffer, dtype, std::move(shape));
    if (dtype == kF32) {
      RandomCall fill{.distribution = RandomDistribution::kUniform,
                      .low = low,
                      .high = high,
                      .seed = buffers_.size(),
                      .output = view};
      Check(backend_.compute().FillRandom(TestQueue(backend_), fill), "FillRandom");
    }
    return view;
  }

  // Checks `source` for `types`, timing the first Prepare (a compile) and a second (a hit).
  Case Prepare(std::string name, const KernelSource& source, const ArgumentTypes& types) {
    absl::StatusOr<std::shared_ptr<const CheckedKernel>> checked =
        kernel::CheckKernel(source, types);
    Check(checked.status(), "CheckKernel");
    Case c{.name = std::move(name), .kernel = *checked, .call = {}};
    auto start = std::chrono::steady_clock::now();
    absl::StatusOr<std::shared_ptr<const PreparedUserKernel>> prepared =
        backend_.user_kernels().PrepareUserKernel(c.kernel);
    Check(prepared.status(), "PrepareUserKernel");
    c.first_compile_ms = MillisecondsSince(start);
    start = std::chrono::steady_clock::now();
    Check(backend_.user_kernels().PrepareUserKernel(c.kernel).status(), "PrepareUserKernel");
    c.cached_prepare_ms = MillisecondsSince(start);
    c.call.kernel = c.kernel;
    c.call.prepared = *prepared;
    return c;
  }

 private:
  Backend& backend_;
  std::vector<std::shared_ptr<Buffer>> buffers_;
};

UserKernelArgument ArrayArg(const ArrayView& view) { return {.kind = Kind::kArray, .view = view}; }
UserKernelArgument FloatScalar(float value) {
  UserKernelArgument argument{.kind = Kind::kScalar};
  std::memcpy(argument.scalar.data(), &value, sizeof value);
  return argument;
}

// `view` seen with another shape, strides and element offset (a broadcast or a column).
ArrayView Viewed(ArrayView view, Shape shape, Strides strides, int64_t offset = 0) {
  view.shape = std::move(shape);
  view.strides = std::move(strides);
  view.offset_bytes = offset * ItemSize(view.dtype);
  return view;
}

int Main(int argc, char** argv) {
  std::string cupy_path;
  int repeats = 20;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--cupy") == 0 && i + 1 < argc) cupy_path = argv[++i];
    if (std::strcmp(argv[i], "--repeats") == 0 && i + 1 < argc) repeats = std::atoi(argv[++i]);
  }
  absl::StatusOr<std::unique_ptr<Backend>> created = CreateCudaBackend(0);
  Check(created.status(), "CreateCudaBackend");
  Backend& backend = **created;
  Bench bench(backend);
  using kernel::testing::Array;
  using kernel::testing::ScalarArg;
  std::vector<Case> cases;

  // kmeans.py's fit_custom at 1M samples, 8 clusters.
  const int64_t n = 1'000'000, k = 8;
  const ArrayView X = bench.Uniform({n, 2}, 0, 1);
  const ArrayView centers = bench.Uniform({k, 2}, 0, 1);
  {
    Case c = bench.Prepare("kmeans_var", kernel::testing::KmeansVar(),
                           {{Array(kF32), Array(kF32), Array(kF32), Array(kF32)}, {std::nullopt}});
    const ArrayView distances = bench.Uniform({n, k}, 0, 1);
    c.call.shape = {n, k};
    c.call.arguments = {ArrayArg(Viewed(X, {n, k}, {2, 0}, 0)),
                        ArrayArg(Viewed(X, {n, k}, {2, 0}, 1)),
                        ArrayArg(Viewed(centers, {n, k}, {0, 2}, 1)),
                        ArrayArg(Viewed(centers, {n, k}, {0, 2}, 0)), ArrayArg(distances)};
    c.bytes = (2.0 * n + n * k) * 4;
    cases.push_back(std::move(c));
  }
  // mask = pred == arange(k)[:, None]: (k, n) bool with sample s in cluster s % k.
  const ArrayView mask = bench.Uniform({k, n}, 0, 1, DType::kBool);
  const std::byte zero{0}, one{1};
  Check(backend.memory().FillPattern(TestQueue(backend), *mask.buffer, 0, k * n, 1, {&zero, 1}),
        "FillPattern");
  for (int64_t c = 0; c < k; ++c) {
    Check(backend.memory().FillPattern(TestQueue(backend), *mask.buffer, c * n + c,
                                       (n - c + k - 1) / k, k, {&one, 1}),
          "FillPattern");
  }
  {
    // sums = sum_kernel(X, mask[:, :, None], axis=1): (k, n, 2) reduced over n.
    Case c = bench.Prepare("kmeans_sum", kernel::testing::KmeansSum(),
                           {{Array(kF32), Array(DType::kBool)}, {std::nullopt}});
    const ArrayView sums = bench.Uniform({k, 2}, 0, 1);
    c.call.shape = {k, n, 2};
    c.call.reduce_axes = {1};
    c.call.arguments = {ArrayArg(Viewed(X, {k, n, 2}, {0, 2, 1})),
                        ArrayArg(Viewed(mask, {k, n, 2}, {n, 1, 0})), ArrayArg(sums)};
    c.bytes = 2.0 * n * 4 + k * n;
    cases.push_back(std::move(c));
  }
  {
    // counts = count_kernel(mask, axis=1).
    Case c = bench.Prepare("kmeans_count", kernel::testing::KmeansCount(),
                           {{Array(DType::kBool)}, {std::nullopt}});
    const ArrayView counts = bench.Uniform({k}, 0, 1);
    c.call.shape = {k, n};
    c.call.reduce_axes = {1};
    c.call.arguments = {ArrayArg(mask), ArrayArg(counts)};
    c.bytes = k * n;
    cases.push_back(std::move(c));
  }
  {
    // black_scholes.py's kernel over 10M options, risk-free 0.02, volatility 0.3.
    const int64_t options = 10'000'000;
    Case c =
        bench.Prepare("black_scholes", kernel::testing::BlackScholes(),
                      {{Array(kF32), Array(kF32), Array(kF32), ScalarArg(kF32), ScalarArg(kF32)},
                       {std::nullopt, std::nullopt}});
    c.call.shape = {options};
    c.call.arguments = {ArrayArg(bench.Uniform({options}, 5, 30)),
                        ArrayArg(bench.Uniform({options}, 1, 100)),
                        ArrayArg(bench.Uniform({options}, 0.25, 10)),
                        FloatScalar(0.02f),
                        FloatScalar(0.3f),
                        ArrayArg(bench.Uniform({options}, 0, 1)),
                        ArrayArg(bench.Uniform({options}, 0, 1))};
    c.bytes = 5.0 * options * 4;
    cases.push_back(std::move(c));
  }
  {
    // sqrt(x * x + y * y) * exp(-x) + 1 on 100M float32: what @arrayhub.fuse() traces the
    // Python function into (one ElementwiseKernel).
    const int64_t elements = 100'000'000;
    Case c = bench.Prepare(
        "fuse6",
        kernel::testing::Elementwise("T x, T y", "T z", "z = sqrt(x * x + y * y) * exp(-x) + 1"),
        {{Array(kF32), Array(kF32)}, {std::nullopt}});
    c.call.shape = {elements};
    c.call.arguments = {ArrayArg(bench.Uniform({elements}, 0, 1)),
                        ArrayArg(bench.Uniform({elements}, 0, 1)),
                        ArrayArg(bench.Uniform({elements}, 0, 1))};
    c.bytes = 3.0 * elements * 4;
    cases.push_back(std::move(c));
  }

  const std::map<std::string, double> cupy =
      cupy_path.empty() ? std::map<std::string, double>{} : bench::ReadPeerTimes(cupy_path);
  const double copy_gbs = bench::PrintHeader("CuPy's example kernels as user kernels", repeats);
  fmt::print(
      "| kernel | ArrayHub ms | of copy bandwidth | CuPy ms | ArrayHub / CuPy speed | first "
      "compile ms | cached prepare ms | CuPy first call ms |\n|---|---:|---:|---:|---:|---:|---:|"
      "---:|\n");
  const cudaStream_t stream = bench::CudaQueueOf(TestQueue(backend))->stream();
  for (const Case& c : cases) {
    const double ms = bench::MedianMs(
        [&] {
          Check(backend.user_kernels().RunUserKernel(TestQueue(backend), c.call), c.name.c_str());
        },
        repeats, stream);
    std::string peer = "-", ratio = "-", peer_first = "-";
    if (auto it = cupy.find(c.name); it != cupy.end()) {
      peer = fmt::format("{:.3f}", it->second);
      ratio = fmt::format("{:.2f}", it->second / ms);
    }
    if (auto it = cupy.find(c.name + "_first"); it != cupy.end()) {
      peer_first = fmt::format("{:.1f}", it->second);
    }
    fmt::print("| {} | {:.3f} | {:.0f}% | {} | {} | {:.1f} | {:.3f} | {} |\n", c.name, ms,
               100 * c.bytes / (ms * 1e6) / copy_gbs, peer, ratio, c.first_compile_ms,
               c.cached_prepare_ms, peer_first);
  }
  return 0;
}

}  // namespace
}  // namespace arrayhub

int main(int argc, char** argv) { return arrayhub::Main(argc, argv); }
