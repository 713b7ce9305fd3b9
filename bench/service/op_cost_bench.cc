// Host time of the calls one small op makes on the CUDA backend (scenario 2's per-op cost):
// the raw CUDA calls (allocation from a pool, an enqueued memset, the free) beside the
// backend's Allocate, Elementwise (add, 256 float32) and release, a timestamp (what a client's
// event record costs), an FFT of 1024 complex64 points (plan cached), and the CPU backend's
// Elementwise. Median microseconds over many calls, the stream drained every 64 ops outside
// the timing (as a batch of 64 would run).
//   op_cost_bench [--calls N]
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <vector>

#include "bench/bench_support.h"
#include "server/backend/cuda/cuda_backend.h"
#include "server/backend/cuda/cuda_queue.h"
#include "server/backend/host/host_backend.h"
#include "server/common/shape.h"
#include "tests/support/test_queue.h"

namespace arrayhub {
namespace {

using bench::Check;
using bench::CheckCuda;
using Clock = std::chrono::steady_clock;

constexpr int64_t kElements = 256;
constexpr int64_t kBytes = kElements * 4;

ArrayView View(Buffer& buffer) {
  return bench::ContiguousView(buffer, DType::kFloat32, {kElements});
}

ElementwiseCall Add(const ArrayView& a, const ArrayView& b, const ArrayView& out) {
  return ElementwiseCall{.op = ElementwiseOp::kAdd,
                         .compute_dtype = DType::kFloat32,
                         .result_dtype = DType::kFloat32,
                         .shape = {kElements},
                         .operands = {bench::ArrayOperand(a), bench::ArrayOperand(b)},
                         .output = out};
}

// Median microseconds of `step` over `calls` calls; `drain` runs untimed every 64 calls.
double MedianUs(int calls, const std::function<void()>& step, const std::function<void()>& drain) {
  std::vector<double> times;
  times.reserve(static_cast<size_t>(calls));
  for (int i = 0; i < calls + calls / 10; ++i) {
    const auto start = Clock::now();
    step();
    const double us = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
    if (i >= calls / 10) times.push_back(us);
    if (i % 64 == 63) drain();
  }
  std::nth_element(times.begin(), times.begin() + static_cast<long>(times.size() / 2), times.end());
  return times[times.size() / 2];
}

int Main(int argc, char** argv) {
  int calls = 20000;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--calls") == 0 && i + 1 < argc) calls = std::atoi(argv[++i]);
  }
  absl::StatusOr<std::unique_ptr<Backend>> created =
      CreateCudaBackend(0, /*exportable_memory=*/true);
  Check(created.status(), "CreateCudaBackend");
  Backend& cuda = **created;
  absl::StatusOr<std::shared_ptr<WorkQueue>> queue = cuda.queues().NewQueue("bench");
  Check(queue.status(), "NewQueue");
  const std::unique_ptr<QueueBinding> bound = cuda.queues().Bind(*queue, "bench");
  const cudaStream_t stream = bench::CudaQueueOf(*bound)->stream();
  auto drain = [&] { CheckCuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize"); };

  cudaMemPool_t pool = nullptr;
  CheckCuda(cudaDeviceGetDefaultMemPool(&pool, 0), "cudaDeviceGetDefaultMemPool");
  void* raw = nullptr;
  std::vector<std::pair<std::string, double>> rows;
  rows.emplace_back("cudaMallocFromPoolAsync, 1 KiB",
                    MedianUs(
                        calls,
                        [&] {
                          CheckCuda(cudaMallocFromPoolAsync(&raw, kBytes, pool, stream), "malloc");
                          CheckCuda(cudaFreeAsync(raw, stream), "free");
                        },
                        drain));
  CheckCuda(cudaMallocFromPoolAsync(&raw, kBytes, pool, stream), "malloc");
  rows.emplace_back(
      "cudaMemsetAsync, 1 KiB (one enqueued op)",
      MedianUs(
          calls, [&] { CheckCuda(cudaMemsetAsync(raw, 0, kBytes, stream), "memset"); }, drain));
  CheckCuda(cudaFreeAsync(raw, stream), "free");

  absl::StatusOr<std::shared_ptr<Buffer>> a = cuda.memory().Allocate(*bound, kBytes),
                                          b = cuda.memory().Allocate(*bound, kBytes);
  Check(a.status(), "Allocate");
  Check(b.status(), "Allocate");
  std::shared_ptr<Buffer> out;
  rows.emplace_back("backend Allocate + release, 1 KiB",
                    MedianUs(
                        calls,
                        [&] {
                          out = cuda.memory().Allocate(*bound, kBytes).value();
                          out.reset();
                        },
                        drain));
  out = cuda.memory().Allocate(*bound, kBytes).value();
  const ElementwiseCall add = Add(View(**a), View(**b), View(*out));
  rows.emplace_back(
      "backend Elementwise add, 256 float32",
      MedianUs(
          calls, [&] { Check(cuda.compute().Elementwise(*bound, add), "Elementwise"); }, drain));
  rows.emplace_back(
      "backend Allocate + Elementwise add + release (one batched op)",
      MedianUs(
          calls,
          [&] {
            std::shared_ptr<Buffer> result = cuda.memory().Allocate(*bound, kBytes).value();
            Check(cuda.compute().Elementwise(*bound, Add(View(**a), View(**b), View(*result))),
                  "Elementwise");
          },
          drain));

  rows.emplace_back(
      "backend RecordTimestamp + release (one event record)",
      MedianUs(
          calls, [&] { Check(cuda.queues().RecordTimestamp(*bound).status(), "Record"); }, drain));
  constexpr int64_t kPoints = 1024;
  std::shared_ptr<Buffer> signal = cuda.memory().Allocate(*bound, kPoints * 8).value();
  CheckCuda(cudaMemsetAsync(signal->data(), 0, kPoints * 8, stream), "memset");
  auto fft_of = [&](Buffer& output) {
    return FftCall{.kind = FftKind::kComplex,
                   .n = kPoints,
                   .input = bench::ContiguousView(*signal, DType::kComplex64, {1, kPoints, 1}),
                   .output = bench::ContiguousView(output, DType::kComplex64, {1, kPoints, 1})};
  };
  std::shared_ptr<Buffer> spectrum = cuda.memory().Allocate(*bound, kPoints * 8).value();
  rows.emplace_back(
      "backend Fft, 1024 complex64 (plan cached)",
      MedianUs(
          calls, [&] { Check(cuda.fft().Fft(*bound, fft_of(*spectrum)), "Fft"); }, drain));
  rows.emplace_back("backend Allocate + Fft + release, 1024 complex64",
                    MedianUs(
                        calls,
                        [&] {
                          std::shared_ptr<Buffer> result =
                              cuda.memory().Allocate(*bound, kPoints * 8).value();
                          Check(cuda.fft().Fft(*bound, fft_of(*result)), "Fft");
                        },
                        drain));

  HostBackend host;
  std::shared_ptr<Buffer> ha = host.memory().Allocate(TestQueue(host), kBytes).value(),
                          hb = host.memory().Allocate(TestQueue(host), kBytes).value();
  rows.emplace_back("CPU backend Allocate + Elementwise add + release",
                    MedianUs(
                        calls,
                        [&] {
                          std::shared_ptr<Buffer> result =
                              host.memory().Allocate(TestQueue(host), kBytes).value();
                          Check(host.compute().Elementwise(
                                    TestQueue(host), Add(View(*ha), View(*hb), View(*result))),
                                "Elementwise");
                        },
                        [] {}));

  fmt::print("\n### Host time per call of one small op ({} calls, median)\n\n", calls);
  fmt::print("| call | us |\n| --- | ---: |\n");
  for (const auto& [name, us] : rows) fmt::print("| {} | {:.2f} |\n", name, us);
  return 0;
}

}  // namespace
}  // namespace arrayhub

int main(int argc, char** argv) { return arrayhub::Main(argc, argv); }
