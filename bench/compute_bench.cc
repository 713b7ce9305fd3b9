// Server-side execution time of the CUDA backend's elementwise ops and reductions on large
// float32 arrays, next to CuPy's times for the same work (measured by cupy_bench.py in the same
// run) and the device's copy bandwidth.
//
//   compute_bench [--cupy FILE] [--repeats N]
//
// Each op is the backend call itself (what an RPC runs after validation), timed with CUDA
// events on the stream the backend computes on (the default queue: the calls are unbound): warm-up
// first (kernel compilation), then the median of N calls. FILE holds CuPy's medians as "name
// milliseconds" lines. Bandwidth counts each input read once and each output written once.
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_support.h"
#include "server/backend/cuda/cuda_backend.h"
#include "server/core/reduction_rules.h"
#include "tests/support/test_queue.h"

namespace arrayhub {
namespace {

using bench::Check;
using bench::CheckCuda;
using bench::Op;

constexpr int64_t kElements = 100'000'000;
constexpr int64_t kSide = 10'000;  // kSide * kSide == kElements.

// Every array of this benchmark is float32.
ArrayView View(Buffer& buffer, Shape shape) {
  return bench::ContiguousView(buffer, DType::kFloat32, std::move(shape));
}

int Main(int argc, char** argv) {
  std::string cupy_path;
  int repeats = 30;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--cupy") == 0 && i + 1 < argc) cupy_path = argv[++i];
    if (std::strcmp(argv[i], "--repeats") == 0 && i + 1 < argc) repeats = std::atoi(argv[++i]);
  }
  absl::StatusOr<std::unique_ptr<Backend>> created = CreateCudaBackend(0);
  Check(created.status(), "CreateCudaBackend");
  Backend& backend = **created;

  const int64_t bytes = kElements * 4;
  absl::StatusOr<std::shared_ptr<Buffer>> a = backend.memory().Allocate(TestQueue(backend), bytes);
  absl::StatusOr<std::shared_ptr<Buffer>> b = backend.memory().Allocate(TestQueue(backend), bytes);
  absl::StatusOr<std::shared_ptr<Buffer>> out =
      backend.memory().Allocate(TestQueue(backend), bytes);
  Check(a.status(), "Allocate");
  Check(b.status(), "Allocate");
  Check(out.status(), "Allocate");
  const ArrayView va = View(**a, {kElements});
  const ArrayView vb = View(**b, {kElements});
  const ArrayView vout = View(**out, {kElements});
  // Random data, never zeros: uniform in [0.5, 1.5).
  for (const ArrayView& v : {va, vb}) {
    RandomCall fill;
    fill.distribution = RandomDistribution::kUniform;
    fill.low = 0.5;
    fill.high = 1.5;
    fill.seed = v.buffer == a->get() ? 1 : 2;
    fill.output = v;
    Check(backend.compute().FillRandom(TestQueue(backend), fill), "FillRandom");
  }

  auto binary = [&](ElementwiseOp op) {
    return [&, op] {
      Check(backend.compute().Elementwise(
                TestQueue(backend), {.op = op,
                                     .compute_dtype = DType::kFloat32,
                                     .result_dtype = DType::kFloat32,
                                     .shape = {kElements},
                                     .operands = {bench::ArrayOperand(va), bench::ArrayOperand(vb)},
                                     .output = vout}),
            "Elementwise");
    };
  };
  auto unary = [&](ElementwiseOp op) {
    return [&, op] {
      Check(
          backend.compute().Elementwise(TestQueue(backend), {.op = op,
                                                             .compute_dtype = DType::kFloat32,
                                                             .result_dtype = DType::kFloat32,
                                                             .shape = {kElements},
                                                             .operands = {bench::ArrayOperand(va)},
                                                             .output = vout}),
          "Elementwise");
    };
  };
  // numpy.sum(a, axis) as core resolves it (float32 sums accumulate in float64).
  auto sum = [&](Shape shape, std::optional<std::vector<int64_t>> axes) {
    absl::StatusOr<ReduceResolution> r =
        ResolveReduce(ReduceOp::kSum, DType::kFloat32, shape, axes, std::nullopt, 0);
    Check(r.status(), "ResolveReduce");
    ArrayView input = View(**a, shape);
    ArrayView output = View(**out, r->result_shape);
    return [&backend, r = *r, input, output] {
      Check(backend.compute().Reduce(TestQueue(backend), {.op = ReduceOp::kSum,
                                                          .input = input,
                                                          .axes = r.axes,
                                                          .accumulate_dtype = r.accumulate_dtype,
                                                          .ddof = 0,
                                                          .output = output}),
            "Reduce");
    };
  };
  // One-element calls: the fixed cost of a synchronous call (launch, completion wait).
  const ArrayView one_a = View(**a, {1});
  const ArrayView one_b = View(**b, {1});
  const ArrayView one_out = View(**out, {1});
  const auto tiny_add = [&] {
    Check(backend.compute().Elementwise(
              TestQueue(backend),
              {.op = ElementwiseOp::kAdd,
               .compute_dtype = DType::kFloat32,
               .result_dtype = DType::kFloat32,
               .shape = {1},
               .operands = {bench::ArrayOperand(one_a), bench::ArrayOperand(one_b)},
               .output = one_out}),
          "Elementwise");
  };
  const double n = static_cast<double>(bytes);
  const std::vector<Op> ops = {
      {"add_1", 0, tiny_add},
      {"sum_1", 0, sum({1}, std::nullopt)},
      {"add", 3 * n, binary(ElementwiseOp::kAdd)},
      {"multiply", 3 * n, binary(ElementwiseOp::kMultiply)},
      {"exp", 2 * n, unary(ElementwiseOp::kExp)},
      {"sum", n, sum({kElements}, std::nullopt)},
      {"sum_axis0", n + kSide * 4.0, sum({kSide, kSide}, std::vector<int64_t>{0})},
      {"sum_axis1", n + kSide * 4.0, sum({kSide, kSide}, std::vector<int64_t>{1})},
  };

  const double copy_gbs =
      bench::PrintHeader("float32, 100M elements (10000 x 10000 for the axis sums)", repeats);
  bench::PrintTable(
      ops, bench::CudaQueueOf(TestQueue(backend))->stream(),
      cupy_path.empty() ? std::map<std::string, double>{} : bench::ReadPeerTimes(cupy_path), "CuPy",
      copy_gbs, repeats);
  return 0;
}

}  // namespace
}  // namespace arrayhub

int main(int argc, char** argv) { return arrayhub::Main(argc, argv); }
