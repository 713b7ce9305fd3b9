// Server-side execution time of the CUDA backend's indexing primitives (gathers, scatters,
// sorts, scans, nonzero, searchsorted and strided copies) on float32 data, next to CuPy's
// times for the same work measured by indexing_cupy_bench.py in the same run.
//
//   indexing_bench [--cupy FILE] [--repeats N]
//
// Each op is the backend call that an RPC runs after validation, timed with CUDA events as
// compute_bench does (warm-up, then the median of N calls). The backend synchronizes at the
// end of each call; CuPy does not, so CuPy's figures exclude that wait.
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <cstring>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "bench/bench_support.h"
#include "server/backend/cuda/cuda_backend.h"
#include "tests/support/test_queue.h"

namespace arrayhub {
namespace {

using bench::Check;
using bench::CheckCuda;
using bench::Op;

constexpr int64_t kElements = 100'000'000;  // Gathers, scans, nonzero, copies.
constexpr int64_t kSide = 10'000;           // kSide * kSide == kElements.
constexpr int64_t kSorted = 16'777'216;     // Sorts, searchsorted values, index arrays.
constexpr int64_t kRows = 4096;             // Row sorts: kRows x kRows.

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
  std::vector<std::shared_ptr<Buffer>> buffers;
  auto allocate = [&](DType dtype, Shape shape) {
    int64_t count = 1;
    for (int64_t extent : shape) count *= extent;
    absl::StatusOr<std::shared_ptr<Buffer>> buffer =
        backend.memory().Allocate(TestQueue(backend), count * ItemSize(dtype));
    Check(buffer.status(), "Allocate");
    buffers.push_back(*buffer);
    return bench::ContiguousView(**buffer, dtype, std::move(shape));
  };
  auto uniform = [&](const ArrayView& view, uint64_t seed) {  // Random, never zeros.
    RandomCall fill;
    fill.distribution = RandomDistribution::kUniform;
    fill.low = 0.5;
    fill.high = 1.5;
    fill.seed = seed;
    fill.output = view;
    Check(backend.compute().FillRandom(TestQueue(backend), fill), "FillRandom");
  };

  const ArrayView data = allocate(DType::kFloat32, {kElements});
  const ArrayView out = allocate(DType::kFloat32, {kElements});
  uniform(data, 1);
  uniform(out, 5);  // cumsum runs in place on it (values grow; the time does not depend on them).
  const ArrayView keys = allocate(DType::kFloat32, {kSorted});
  const ArrayView sorted = allocate(DType::kFloat32, {kSorted});
  const ArrayView order = allocate(DType::kInt64, {kSorted});
  uniform(keys, 2);
  // Random positions in [0, kElements), made on the host with a fixed seed (CuPy's script
  // draws its own with the same distribution).
  const ArrayView positions = allocate(DType::kInt64, {kSorted});
  {
    std::mt19937_64 rng(3);
    std::uniform_int_distribution<int64_t> pick(0, kElements - 1);
    std::vector<int64_t> host(kSorted);
    for (int64_t& p : host) p = pick(rng);
    Check(backend.memory().CopyFromHost(TestQueue(backend), *positions.buffer, 0,
                                        std::as_bytes(std::span<const int64_t>(host))),
          "CopyFromHost");
  }
  // Half the elements zero, half not, interleaved at random: the nonzero input.
  const ArrayView mask = allocate(DType::kInt32, {kElements});
  {
    RandomCall fill;
    fill.distribution = RandomDistribution::kIntegers;
    fill.int_low = 0;
    fill.int_high = 2;
    fill.seed = 4;
    fill.output = mask;
    Check(backend.compute().FillRandom(TestQueue(backend), fill), "FillRandom");
  }
  absl::StatusOr<int64_t> nonzero_count = backend.indexing().CountNonzero(TestQueue(backend), mask);
  Check(nonzero_count.status(), "CountNonzero");
  const ArrayView coordinates = allocate(DType::kInt64, {*nonzero_count});
  Check(backend.indexing().Sort(TestQueue(backend),
                                {.input = keys, .values = sorted, .indices = std::nullopt}),
        "Sort");
  const ArrayView found = allocate(DType::kInt64, {kSorted});

  const auto gather_call = [&] {
    ArrayView source = data;
    source.shape = {kSorted};
    source.strides = {0};
    return GatherCall{.source = source,
                      .indices = {{.indices = positions, .extent = kElements, .stride = 1}},
                      .output = bench::ContiguousView(*out.buffer, DType::kFloat32, {kSorted})};
  };
  const GatherCall gather = gather_call();
  const ScatterCall scatter{
      .target = gather.source,
      .indices = gather.indices,
      .values = bench::ContiguousView(*keys.buffer, DType::kFloat32, {kSorted})};
  const ArrayView rows = bench::ContiguousView(*keys.buffer, DType::kFloat32, {kRows, kRows});
  const ArrayView sorted_rows =
      bench::ContiguousView(*sorted.buffer, DType::kFloat32, {kRows, kRows});
  ArrayView transposed = bench::ContiguousView(*data.buffer, DType::kFloat32, {kSide, kSide});
  std::swap(transposed.strides[0], transposed.strides[1]);
  const ArrayView square_out = bench::ContiguousView(*out.buffer, DType::kFloat32, {kSide, kSide});

  const double n = kElements * 4.0, m = kSorted * 4.0;
  const std::vector<Op> ops = {
      {"sort", 2 * m,
       [&] {
         Check(backend.indexing().Sort(TestQueue(backend), {keys, sorted, std::nullopt}), "Sort");
       }},
      {"argsort", m + 2 * m,
       [&] {
         Check(backend.indexing().Sort(TestQueue(backend), {keys, std::nullopt, order}), "Sort");
       }},
      {"sort_rows", 2 * m,
       [&] {
         Check(backend.indexing().Sort(TestQueue(backend), {rows, sorted_rows, std::nullopt}),
               "Sort");
       }},
      {"cumsum", 2 * n,
       [&] {
         Check(backend.indexing().Scan(TestQueue(backend), {.op = ScanOp::kSum, .data = out}),
               "Scan");
       }},
      {"take", m + 2 * m,
       [&] { Check(backend.indexing().Gather(TestQueue(backend), gather), "Gather"); }},
      {"scatter", m + 2 * m,
       [&] { Check(backend.indexing().Scatter(TestQueue(backend), scatter), "Scatter"); }},
      {"nonzero", n + *nonzero_count * 8.0,  // int32 mask: 4 bytes an element, as float32.
       [&] {
         Check(backend.indexing().CountNonzero(TestQueue(backend), mask).status(), "CountNonzero");
         Check(backend.indexing()
                   .Nonzero(TestQueue(backend), {.input = mask, .coordinates = {coordinates}})
                   .status(),
               "Nonzero");
       }},
      {"searchsorted", m + 2 * m,
       [&] {
         Check(backend.indexing().SearchSorted(
                   TestQueue(backend),
                   {.sorted = sorted, .values = keys, .right = false, .output = found}),
               "SearchSorted");
       }},
      {"transpose_copy", 2 * n,
       [&] {
         Check(
             backend.compute().Elementwise(
                 TestQueue(backend), {.op = ElementwiseOp::kCopy,
                                      .compute_dtype = DType::kFloat32,
                                      .result_dtype = DType::kFloat32,
                                      .shape = {kSide, kSide},
                                      .operands = {{.array = transposed, .dtype = DType::kFloat32}},
                                      .output = square_out}),
             "Elementwise");
       }},
  };

  const double copy_gbs = bench::PrintHeader(
      "float32; sorts and searchsorted of 16M elements (rows: 4096 x 4096), take and "
      "scatter of 16M random positions of 100M, cumsum, nonzero of int32 (half zero) and the "
      "10000 x 10000 transpose copy of 100M",
      repeats);
  bench::PrintTable(
      ops, bench::CudaQueueOf(TestQueue(backend))->stream(),
      cupy_path.empty() ? std::map<std::string, double>{} : bench::ReadPeerTimes(cupy_path), "CuPy",
      copy_gbs, repeats);
  return 0;
}

}  // namespace
}  // namespace arrayhub

int main(int argc, char** argv) { return arrayhub::Main(argc, argv); }
