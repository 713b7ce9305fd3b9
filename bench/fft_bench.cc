// Server-side time of the CUDA backend's transforms (CudaBackend::Fft: what an Fft RPC runs
// after validation), next to cuFFT called directly on the same buffers with the same layout in
// this process, and CuPy's numpy.fft functions on the same shapes (fft_cupy_bench.py, run
// before in the same job).
//
//   fft_bench [--cupy FILE] [--repeats N]
//
// CUDA events on the stream each side computes on; warm-up first (plans made and cached),
// then the median of N calls. The backend applies NumPy's scaling (irfft's 1/n, a separate
// kernel) where cuFFT alone does not scale, as CuPy does. Bandwidth: input read once, output
// written once.
#include <cuda_runtime_api.h>
#include <cufft.h>
#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_support.h"
#include "server/backend/cuda/cuda_backend.h"
#include "server/backend/fft.h"
#include "tests/support/test_queue.h"

namespace arrayhub {
namespace {

using bench::Check;
using bench::CheckCuda;

void CheckCufft(cufftResult result, const char* what) {
  if (result != CUFFT_SUCCESS) bench::Fail(fmt::format("{}: cufftResult {}", what, int(result)));
}

constexpr int64_t kLong = int64_t{1} << 24;
constexpr int64_t kSide = 4096;

struct Case {
  std::string name;  // As in fft_cupy_bench.py.
  FftKind kind;
  bool wide;  // float64 / complex128.
  int64_t outer, n, inner;
  int64_t leading = 0;  // A 2-D transform over (leading, n): its first axis's length.
};

// The case's (outer, length, inner) stacks, or (outer, leading, length, 1).
Shape StackShape(const Case& c, int64_t length) {
  return c.leading > 0 ? Shape{c.outer, c.leading, length, 1} : Shape{c.outer, length, c.inner};
}

int64_t InLength(const Case& c) { return c.kind == FftKind::kComplexToReal ? c.n / 2 + 1 : c.n; }
int64_t OutLength(const Case& c) { return c.kind == FftKind::kRealToComplex ? c.n / 2 + 1 : c.n; }

DType InDType(const Case& c) {
  if (c.kind == FftKind::kRealToComplex) return c.wide ? DType::kFloat64 : DType::kFloat32;
  return c.wide ? DType::kComplex128 : DType::kComplex64;
}
DType OutDType(const Case& c) {
  if (c.kind == FftKind::kComplexToReal) return c.wide ? DType::kFloat64 : DType::kFloat32;
  return c.wide ? DType::kComplex128 : DType::kComplex64;
}

cufftType CufftTypeOf(const Case& c) {
  switch (c.kind) {
    case FftKind::kComplex:
      return c.wide ? CUFFT_Z2Z : CUFFT_C2C;
    case FftKind::kRealToComplex:
      return c.wide ? CUFFT_D2Z : CUFFT_R2C;
    case FftKind::kComplexToReal:
      return c.wide ? CUFFT_Z2D : CUFFT_C2R;
  }
  return CUFFT_C2C;
}

// cuFFT directly: one plan for the case's layout (batch over outer with unit stride, or over
// inner with stride inner, as the backend does for these shapes), executed on `stream`.
std::function<void()> DirectCufft(const Case& c, void* in, void* out, cudaStream_t stream) {
  auto plan = std::make_shared<cufftHandle>();
  CheckCufft(cufftCreate(plan.get()), "cufftCreate");
  long long n = c.n;
  const bool over_outer = c.inner == 1;
  const long long stride = c.inner;
  const long long idist = over_outer ? InLength(c) : 1;
  const long long odist = over_outer ? OutLength(c) : 1;
  const long long batch = over_outer ? c.outer : c.inner;
  size_t work = 0;
  if (c.leading > 0) {  // The basic layout of a 2-D transform.
    long long lengths[2] = {c.leading, c.n};
    CheckCufft(cufftMakePlanMany64(*plan, 2, lengths, nullptr, 1, 0, nullptr, 1, 0, CufftTypeOf(c),
                                   c.outer, &work),
               "cufftMakePlanMany64");
  } else {
    CheckCufft(cufftMakePlanMany64(*plan, 1, &n, &n, stride, idist, &n, stride, odist,
                                   CufftTypeOf(c), batch, &work),
               "cufftMakePlanMany64");
  }
  CheckCufft(cufftSetStream(*plan, stream), "cufftSetStream");
  return [plan, c, in, out] {
    cufftResult r = CUFFT_SUCCESS;
    switch (CufftTypeOf(c)) {
      case CUFFT_C2C:
        r = cufftExecC2C(*plan, static_cast<cufftComplex*>(in), static_cast<cufftComplex*>(out),
                         CUFFT_FORWARD);
        break;
      case CUFFT_Z2Z:
        r = cufftExecZ2Z(*plan, static_cast<cufftDoubleComplex*>(in),
                         static_cast<cufftDoubleComplex*>(out), CUFFT_FORWARD);
        break;
      case CUFFT_R2C:
        r = cufftExecR2C(*plan, static_cast<cufftReal*>(in), static_cast<cufftComplex*>(out));
        break;
      case CUFFT_C2R:
        r = cufftExecC2R(*plan, static_cast<cufftComplex*>(in), static_cast<cufftReal*>(out));
        break;
      default:
        bench::Fail("unexpected cuFFT type");
    }
    CheckCufft(r, "cufftExec");
  };
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
  const std::vector<Case> cases = {
      {"c2c_2^24_c64", FftKind::kComplex, false, 1, kLong, 1},
      {"c2c_2^23_c128", FftKind::kComplex, true, 1, kLong / 2, 1},
      {"c2c_rows_4096^2_c64", FftKind::kComplex, false, kSide, kSide, 1},
      {"c2c_cols_4096^2_c64", FftKind::kComplex, false, 1, kSide, kSide},
      {"r2c_2^24_f32", FftKind::kRealToComplex, false, 1, kLong, 1},
      {"c2r_2^24_f32", FftKind::kComplexToReal, false, 1, kLong, 1},
      {"c2c_1e7_c64", FftKind::kComplex, false, 1, 10'000'000, 1},
      {"c2c_2d_4096^2_c64", FftKind::kComplex, false, 1, kSide, 1, kSide},
      {"r2c_2d_4096^2_f32", FftKind::kRealToComplex, false, 1, kSide, 1, kSide},
  };
  const std::map<std::string, double> cupy =
      cupy_path.empty() ? std::map<std::string, double>{} : bench::ReadPeerTimes(cupy_path);
  const double copy_gbs = bench::PrintHeader("numpy.fft's transforms", repeats);
  (void)copy_gbs;
  fmt::print(
      "| transform | ArrayHub ms | ArrayHub GB/s | cuFFT direct ms | ArrayHub / cuFFT speed | "
      "CuPy ms | ArrayHub / CuPy speed |\n|---|---:|---:|---:|---:|---:|---:|\n");
  for (const Case& c : cases) {
    const int64_t planes = c.leading > 0 ? c.leading : 1;
    const int64_t in_bytes = c.outer * planes * InLength(c) * c.inner * ItemSize(InDType(c));
    const int64_t out_bytes = c.outer * planes * OutLength(c) * c.inner * ItemSize(OutDType(c));
    absl::StatusOr<std::shared_ptr<Buffer>> in =
        backend.memory().Allocate(TestQueue(backend), in_bytes);
    absl::StatusOr<std::shared_ptr<Buffer>> out =
        backend.memory().Allocate(TestQueue(backend), out_bytes);
    Check(in.status(), "Allocate");
    Check(out.status(), "Allocate");
    RandomCall fill{.distribution = RandomDistribution::kUniform,
                    .seed = 1,
                    .output = bench::ContiguousView(**in, RealDType(InDType(c)),
                                                    {in_bytes / ItemSize(RealDType(InDType(c)))})};
    Check(backend.compute().FillRandom(TestQueue(backend), fill), "FillRandom");
    const FftCall call{
        .kind = c.kind,
        .forward = true,
        .n = c.n,
        .input = bench::ContiguousView(**in, InDType(c), StackShape(c, InLength(c))),
        .output = bench::ContiguousView(**out, OutDType(c), StackShape(c, OutLength(c))),
        .scale = c.kind == FftKind::kComplexToReal ? 1.0 / static_cast<double>(c.n) : 1.0,
        .leading = c.leading > 0 ? std::vector<int64_t>{c.leading} : std::vector<int64_t>{},
    };
    const cudaStream_t stream = bench::CudaQueueOf(TestQueue(backend))->stream();
    const double ours = bench::MedianMs(
        [&] { Check(backend.fft().Fft(TestQueue(backend), call), "Fft"); }, repeats, stream);
    cudaStream_t direct_stream;
    CheckCuda(cudaStreamCreate(&direct_stream), "cudaStreamCreate");
    const double direct = bench::MedianMs(
        DirectCufft(c, (*in)->data(), (*out)->data(), direct_stream), repeats, direct_stream);
    CheckCuda(cudaStreamSynchronize(direct_stream), "cudaStreamSynchronize");
    CheckCuda(cudaStreamDestroy(direct_stream), "cudaStreamDestroy");
    std::string cupy_ms = "-", cupy_ratio = "-";
    if (auto it = cupy.find(c.name); it != cupy.end()) {
      cupy_ms = fmt::format("{:.3f}", it->second);
      cupy_ratio = fmt::format("{:.2f}", it->second / ours);
    }
    fmt::print("| {} | {:.3f} | {:.0f} | {:.3f} | {:.2f} | {} | {} |\n", c.name, ours,
               static_cast<double>(in_bytes + out_bytes) / (ours * 1e6), direct, direct / ours,
               cupy_ms, cupy_ratio);
  }
  return 0;
}

}  // namespace
}  // namespace arrayhub

int main(int argc, char** argv) { return arrayhub::Main(argc, argv); }
