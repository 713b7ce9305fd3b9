// The host backend's user-kernel evaluator on CuPy's kmeans var_kernel and black_scholes
// kernels over 1e6 elements of float32 and float64: the RunUserKernel call itself (after
// checking and compiling once), median of N calls, on the calling thread.
//
//   user_kernel_host_bench [--elements N] [--repeats N]
//
// bench/user_kernel_numpy_bench.py times the same work in NumPy for comparison
// (docs/user-kernels.md has both).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include "server/backend/host/host_backend.h"
#include "server/kernel/checked_kernel.h"
#include "tests/kernel/kernel_test_util.h"
#include "tests/support/test_queue.h"

namespace arrayhub {
namespace {

[[noreturn]] void Fail(const std::string& what) {
  fmt::print(stderr, "bench: {}\n", what);
  std::exit(1);
}

double MedianMs(int repeats, const std::function<void()>& run) {
  run();  // Warm-up.
  std::vector<double> times;
  for (int k = 0; k < repeats; ++k) {
    const auto start = std::chrono::steady_clock::now();
    run();
    times.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

class Bench {
 public:
  explicit Bench(int64_t n) : n_(n) {}

  ArrayView Array(DType dtype, double low, double high) {
    const int64_t item = ItemSize(dtype);
    auto buffer = backend_.memory().Allocate(TestQueue(backend_), n_ * item);
    if (!buffer.ok()) Fail(buffer.status().ToString());
    buffers_.push_back(*buffer);
    std::uniform_real_distribution<double> uniform(low, high);
    auto* bytes = static_cast<std::byte*>((*buffer)->data());
    for (int64_t k = 0; k < n_; ++k) {
      if (dtype == DType::kFloat32) {
        const float v = static_cast<float>(uniform(rng_));
        std::memcpy(bytes + k * item, &v, sizeof v);
      } else {
        const double v = uniform(rng_);
        std::memcpy(bytes + k * item, &v, sizeof v);
      }
    }
    return ArrayView{buffer->get(), 0, dtype, {n_}, {1}};
  }

  double Time(const kernel::KernelSource& source, const kernel::ArgumentTypes& types,
              std::vector<UserKernelArgument> arguments, int repeats) {
    auto checked = kernel::CheckKernel(source, types);
    if (!checked.ok()) Fail(checked.status().ToString());
    auto prepared = backend_.user_kernels().PrepareUserKernel(*checked);
    if (!prepared.ok()) Fail(prepared.status().ToString());
    const UserKernelCall call{*checked, *prepared, {n_}, {}, std::move(arguments)};
    return MedianMs(repeats, [&] {
      if (absl::Status status = backend_.user_kernels().RunUserKernel(TestQueue(backend_), call);
          !status.ok()) {
        Fail(status.ToString());
      }
    });
  }

  int64_t n() const { return n_; }

 private:
  int64_t n_;
  HostBackend backend_;
  std::vector<std::shared_ptr<Buffer>> buffers_;
  std::mt19937_64 rng_{42};
};

UserKernelArgument Arg(ArrayView view) {
  return {UserKernelArgument::Kind::kArray, std::move(view), {}};
}

UserKernelArgument Scalar(DType dtype, double value) {
  UserKernelArgument argument;
  argument.kind = UserKernelArgument::Kind::kScalar;
  if (dtype == DType::kFloat32) {
    const float v = static_cast<float>(value);
    std::memcpy(argument.scalar.data(), &v, sizeof v);
  } else {
    std::memcpy(argument.scalar.data(), &value, sizeof value);
  }
  return argument;
}

int Main(int argc, char** argv) {
  int64_t elements = 1'000'000;
  int repeats = 20;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--elements") == 0 && i + 1 < argc) elements = std::atoll(argv[++i]);
    if (std::strcmp(argv[i], "--repeats") == 0 && i + 1 < argc) repeats = std::atoi(argv[++i]);
  }
  for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
    Bench bench(elements);
    const kernel::ArgumentTypes::Input array{dtype, true};
    const double var_ms =
        bench.Time(kernel::testing::KmeansVar(), {{array, array, array, array}, {std::nullopt}},
                   {Arg(bench.Array(dtype, -3, 3)), Arg(bench.Array(dtype, -3, 3)),
                    Arg(bench.Array(dtype, -1, 1)), Arg(bench.Array(dtype, -1, 1)),
                    Arg(bench.Array(dtype, 0, 0))},
                   repeats);
    const kernel::ArgumentTypes::Input scalar{DType::kFloat64, false};
    const double bs_ms =
        bench.Time(kernel::testing::BlackScholes(),
                   {{array, array, array, scalar, scalar}, {std::nullopt, std::nullopt}},
                   {Arg(bench.Array(dtype, 5, 30)), Arg(bench.Array(dtype, 1, 100)),
                    Arg(bench.Array(dtype, 0.25, 10)), Scalar(dtype, 0.02), Scalar(dtype, 0.3),
                    Arg(bench.Array(dtype, 0, 0)), Arg(bench.Array(dtype, 0, 0))},
                   repeats);
    fmt::print("{} n={}: var_kernel {:.2f} ms, black_scholes {:.2f} ms\n", DTypeName(dtype),
               elements, var_ms, bs_ms);
  }
  return 0;
}

}  // namespace
}  // namespace arrayhub

int main(int argc, char** argv) { return arrayhub::Main(argc, argv); }
