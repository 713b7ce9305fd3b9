// CudaBackend::Matmul and ::Svd timed on the GPU machine beside cuBLAS and cuSOLVER called
// directly on the same buffers: host clock from the call until its work is done (the backend
// call is followed by a wait for its queue, the direct calls by a stream synchronize),
// median of several runs after a warm-up, backend and direct runs interleaved.
// scripts/gpu-bench-linalg.sh runs it beside bench/linalg/cupy_bench.py. An argument runs
// only the cases whose label contains it ("64x64": the small ones).
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench/linalg/svd_accuracy.h"
#include "server/backend/cuda/cuda_backend.h"
#include "server/backend/cuda/cuda_queue.h"
#include "server/common/shape.h"
#include "tests/support/test_queue.h"

namespace arrayhub::bench {
namespace {

// A benchmark has no caller to report to: a failed call ends it.
void Check(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "linalg_bench: %s failed\n", what.c_str());
    std::exit(1);
  }
}
void Check(const absl::Status& status, const std::string& what) {
  Check(status.ok(), what + ": " + status.ToString());
}

// Waits for the queue of the calls handed `backend`'s TestQueue.
void Synchronize(Backend& backend) {
  const absl::StatusOr<CudaQueueBinding*> binding = CudaBindingOf(TestQueue(backend));
  Check(binding.status(), "CudaBindingOf");
  Check((*binding)->queue()->Synchronize(), "Synchronize");
}

// Only the cases whose label contains this (the command line's first argument, if any) run.
std::string case_filter;

bool Selected(const std::string& label) { return label.find(case_filter) != std::string::npos; }

double NowMs() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// Medians of `reps` interleaved runs of each function, after one warm-up run of each.
std::vector<double> TimeInterleaved(int reps, const std::vector<std::function<void()>>& runs) {
  for (const auto& run : runs) run();
  std::vector<std::vector<double>> times(runs.size());
  for (int r = 0; r < reps; ++r) {
    for (size_t i = 0; i < runs.size(); ++i) {
      const double start = NowMs();
      runs[i]();
      times[i].push_back(NowMs() - start);
    }
  }
  std::vector<double> medians;
  for (const auto& t : times) medians.push_back(Median(t));
  return medians;
}

// A device array of random normal values (as `dtype`: float16, float32 or float64).
struct Array {
  std::shared_ptr<Buffer> buffer;
  ArrayView view;
  void* data() const { return buffer->data(); }
};

Array MakeArray(Backend& backend, DType dtype, const Shape& shape, std::mt19937_64& rng) {
  int64_t count = 1;
  for (const int64_t extent : shape) count *= extent;
  std::vector<std::byte> bytes(count * ItemSize(dtype));
  std::normal_distribution<double> normal;
  for (int64_t i = 0; i < count; ++i) {
    const double value = normal(rng);
    if (dtype == DType::kFloat16) {
      const __half half = __float2half(static_cast<float>(value));
      std::memcpy(&bytes[i * 2], &half, 2);
    } else if (dtype == DType::kFloat32) {
      const float x = static_cast<float>(value);
      std::memcpy(&bytes[i * 4], &x, 4);
    } else {
      std::memcpy(&bytes[i * 8], &value, 8);
    }
  }
  absl::StatusOr<std::shared_ptr<Buffer>> buffer =
      backend.memory().Allocate(TestQueue(backend), bytes.size());
  Check(buffer.status(), "Allocate");
  Check(backend.memory().CopyFromHost(TestQueue(backend), **buffer, 0, bytes), "CopyFromHost");
  return {*buffer, ArrayView{.buffer = buffer->get(),
                             .offset_bytes = 0,
                             .dtype = dtype,
                             .shape = shape,
                             .strides = ContiguousStrides(shape)}};
}

// ---- matmul ----

void BenchMatmul(Backend& backend, cublasHandle_t blas, cudaStream_t stream, DType dtype,
                 int64_t batch, int64_t n, int reps, std::mt19937_64& rng) {
  const std::string label = fmt::format(
      "matmul {} {}", DTypeName(dtype),
      batch == 1 ? fmt::format("{0}x{0}x{0}", n) : fmt::format("{0}x{1}x{1}x{1}", batch, n));
  if (!Selected(label)) return;
  const Shape shape = batch == 1 ? Shape{n, n} : Shape{batch, n, n};
  const Array a = MakeArray(backend, dtype, shape, rng);
  const Array b = MakeArray(backend, dtype, shape, rng);
  const Array c = MakeArray(backend, dtype, shape, rng);
  const cudaDataType type = dtype == DType::kFloat16   ? CUDA_R_16F
                            : dtype == DType::kFloat32 ? CUDA_R_32F
                                                       : CUDA_R_64F;
  const cublasComputeType_t compute =
      dtype == DType::kFloat64 ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F;
  const double one64 = 1;
  const double zero64 = 0;
  const float one32 = 1;
  const float zero32 = 0;
  const void* one = dtype == DType::kFloat64 ? static_cast<const void*>(&one64) : &one32;
  const void* zero = dtype == DType::kFloat64 ? static_cast<const void*>(&zero64) : &zero32;
  const MatmulCall call{.a = a.view, .b = b.view, .out = c.view, .compute_dtype = dtype};
  // Row-major C = A B is column-major C^T = B^T A^T: the same call the backend makes.
  const auto direct = [&] {
    const cublasStatus_t status =
        batch == 1
            ? cublasGemmEx(blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, one, b.data(), type, n,
                           a.data(), type, n, zero, c.data(), type, n, compute, CUBLAS_GEMM_DEFAULT)
            : cublasGemmStridedBatchedEx(blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, one, b.data(),
                                         type, n, n * n, a.data(), type, n, n * n, zero, c.data(),
                                         type, n, n * n, batch, compute, CUBLAS_GEMM_DEFAULT);
    Check(status == CUBLAS_STATUS_SUCCESS, "cublasGemmEx");
    Check(cudaStreamSynchronize(stream) == cudaSuccess, "cudaStreamSynchronize");
  };
  const auto server = [&] {
    Check(backend.linalg().Matmul(TestQueue(backend), call), "Matmul");
    Synchronize(backend);
  };
  const std::vector<double> ms = TimeInterleaved(reps, {server, direct});
  const double flops = 2.0 * batch * n * n * n;
  std::printf("| %s | %.4f | %.4f | %.3f | %.1f |\n", label.c_str(), ms[0], ms[1], ms[1] / ms[0],
              flops / ms[0] / 1e9);
  std::fflush(stdout);
}

// ---- svd ----

void BenchSvd(Backend& backend, cublasHandle_t blas, cusolverDnHandle_t solver, int64_t batch,
              int64_t m, int64_t n, bool full, int reps, std::mt19937_64& rng) {
  const std::string label =
      fmt::format("svd float32 {}{}",
                  batch == 1 ? fmt::format("{}x{}", m, n) : fmt::format("{}x{}x{}", batch, m, n),
                  full ? "" : " reduced");
  if (!Selected(label)) return;
  const int64_t k = std::min(m, n);
  const int64_t u_cols = full ? m : k;
  const int64_t vh_rows = full ? n : k;
  const Shape prefix = batch == 1 ? Shape{} : Shape{batch};
  auto with = [&](std::initializer_list<int64_t> tail) {
    Shape shape = prefix;
    shape.insert(shape.end(), tail);
    return shape;
  };
  const Array a = MakeArray(backend, DType::kFloat32, with({m, n}), rng);
  const Array s = MakeArray(backend, DType::kFloat32, with({k}), rng);
  const Array u = MakeArray(backend, DType::kFloat32, with({m, u_cols}), rng);
  const Array vh = MakeArray(backend, DType::kFloat32, with({vh_rows, n}), rng);
  SvdCall call;
  call.a = a.view;
  call.full_matrices = full;
  call.s = s.view;
  call.u = u.view;
  call.vh = vh.view;
  const double ms = TimeInterleaved(reps, {[&] {
                                      Check(backend.linalg().Svd(TestQueue(backend), call), "Svd");
                                      Synchronize(backend);
                                    }})[0];
  // Accuracy of the first few matrices (the worst of them).
  SvdAccuracy worst;
  for (int64_t i = 0; i < std::min<int64_t>(batch, 10); ++i) {
    const SvdAccuracy one =
        MeasureSvd(blas, solver, static_cast<const float*>(a.data()) + i * m * n,
                   static_cast<const float*>(u.data()) + i * m * u_cols,
                   static_cast<const float*>(s.data()) + i * k,
                   static_cast<const float*>(vh.data()) + i * vh_rows * n, m, n, u_cols, vh_rows);
    worst.reconstruction = std::max(worst.reconstruction, one.reconstruction);
    worst.orthogonality_u = std::max(worst.orthogonality_u, one.orthogonality_u);
    worst.orthogonality_v = std::max(worst.orthogonality_v, one.orthogonality_v);
    worst.singular_values = std::max(worst.singular_values, one.singular_values);
  }
  std::printf("| %s | %.3f | %.2e | %.2e | %.2e | %.2e |\n", label.c_str(), ms,
              worst.reconstruction, worst.orthogonality_u, worst.orthogonality_v,
              worst.singular_values);
  std::fflush(stdout);
}

// cuSOLVER's own SVD routines, timed alone (device events) on one float32 matrix, with the
// accuracy of their results: the evidence for Svd's choice of algorithm.
void BenchSolvers(cublasHandle_t blas, cusolverDnHandle_t solver, cusolverDnParams_t params,
                  int64_t m, int64_t n, int reps, std::mt19937_64& rng) {
  if (!Selected(fmt::format("{}x{}", m, n))) return;
  const int64_t k = std::min(m, n);
  std::vector<float> host(m * n);
  std::normal_distribution<float> normal;
  for (float& x : host) x = normal(rng);
  // The solvers see column-major A (m x n); U (m x k) and V (n x k) come out column-major.
  float *a0, *a, *s, *u, *v, *vt;
  int* info;
  for (auto [pointer, count] :
       {std::pair{&a0, m * n}, {&a, m * n}, {&s, k}, {&u, m * k}, {&v, n * k}, {&vt, n * k}}) {
    Check(cudaMalloc(pointer, count * sizeof(float)) == cudaSuccess, "cudaMalloc");
  }
  Check(cudaMalloc(&info, sizeof(int)) == cudaSuccess, "cudaMalloc");
  Check(cudaMemcpy(a0, host.data(), m * n * 4, cudaMemcpyHostToDevice) == cudaSuccess, "copy");
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<char> host_work;
  void* work = nullptr;
  size_t work_bytes = 0;
  auto workspace = [&](size_t device, size_t on_host) {
    if (device > work_bytes) {
      cudaFree(work);
      Check(cudaMalloc(&work, device) == cudaSuccess, "cudaMalloc");
      work_bytes = device;
    }
    host_work.resize(std::max<size_t>(on_host, 1));
  };
  const float one = 1;
  const float zero = 0;
  auto run = [&](const char* name, const std::function<void()>& solve) {
    std::vector<double> times;
    for (int r = 0; r <= reps; ++r) {  // Run 0 warms up.
      Check(cudaMemcpy(a, a0, m * n * 4, cudaMemcpyDeviceToDevice) == cudaSuccess, "copy");
      cudaEventRecord(start);
      solve();
      cudaEventRecord(stop);
      cudaEventSynchronize(stop);
      float ms = 0;
      cudaEventElapsedTime(&ms, start, stop);
      if (r > 0) times.push_back(ms);
    }
    // Column-major A is row-major A^T = V S U^T, whose row-major factors are V, which is
    // column-major V^T (transposed here), and U^T, which is column-major U as it stands.
    Check(cublasSgeam(blas, CUBLAS_OP_T, CUBLAS_OP_N, k, n, &one, v, n, &zero, v, k, vt, k) ==
              CUBLAS_STATUS_SUCCESS,
          "sgeam");
    const SvdAccuracy accuracy = MeasureSvd(blas, solver, a0, vt, s, u, n, m, k, k);
    std::printf("| %s %ldx%ld | %.3f | %.2e | %.2e | %.2e | %.2e |\n", name, static_cast<long>(m),
                static_cast<long>(n), Median(times), accuracy.reconstruction,
                accuracy.orthogonality_v, accuracy.orthogonality_u, accuracy.singular_values);
    std::fflush(stdout);
  };
  run("gesvd (CuPy's)", [&] {
    int size = 0;
    Check(cusolverDnSgesvd_bufferSize(solver, m, n, &size) == CUSOLVER_STATUS_SUCCESS, "size");
    workspace(static_cast<size_t>(size) * sizeof(float), 0);
    // gesvd returns V^T (k x n): into vt, then transposed into v.
    Check(cusolverDnSgesvd(solver, 'S', 'S', m, n, a, m, s, u, m, vt, k, static_cast<float*>(work),
                           size, nullptr, info) == CUSOLVER_STATUS_SUCCESS,
          "gesvd");
    Check(cublasSgeam(blas, CUBLAS_OP_T, CUBLAS_OP_N, n, k, &one, vt, k, &zero, vt, n, v, n) ==
              CUBLAS_STATUS_SUCCESS,
          "sgeam");
  });
  run("gesvdp", [&] {
    size_t device = 0;
    size_t on_host = 0;
    Check(
        cusolverDnXgesvdp_bufferSize(solver, params, CUSOLVER_EIG_MODE_VECTOR, 1, m, n, CUDA_R_32F,
                                     a, m, CUDA_R_32F, s, CUDA_R_32F, u, m, CUDA_R_32F, v, n,
                                     CUDA_R_32F, &device, &on_host) == CUSOLVER_STATUS_SUCCESS,
        "gesvdp size");
    workspace(device, on_host);
    double perturbation = 0;
    Check(cusolverDnXgesvdp(solver, params, CUSOLVER_EIG_MODE_VECTOR, 1, m, n, CUDA_R_32F, a, m,
                            CUDA_R_32F, s, CUDA_R_32F, u, m, CUDA_R_32F, v, n, CUDA_R_32F, work,
                            device, host_work.data(), on_host, info,
                            &perturbation) == CUSOLVER_STATUS_SUCCESS,
          "gesvdp");
  });
  cudaFree(work);
  for (void* p :
       {static_cast<void*>(a0), static_cast<void*>(a), static_cast<void*>(s), static_cast<void*>(u),
        static_cast<void*>(v), static_cast<void*>(vt), static_cast<void*>(info)}) {
    cudaFree(p);
  }
}

}  // namespace
}  // namespace arrayhub::bench

int main(int argc, char** argv) {
  using namespace arrayhub;
  using namespace arrayhub::bench;
  if (argc > 1) case_filter = argv[1];
  absl::StatusOr<std::unique_ptr<Backend>> created = CreateCudaBackend(0);
  Check(created.status(), "CreateCudaBackend");
  Backend& backend = **created;
  cudaStream_t stream;
  cublasHandle_t blas;
  cusolverDnHandle_t solver;
  cusolverDnParams_t params;
  Check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess, "stream");
  Check(cublasCreate(&blas) == CUBLAS_STATUS_SUCCESS, "cublasCreate");
  Check(cublasSetStream(blas, stream) == CUBLAS_STATUS_SUCCESS, "cublasSetStream");
  Check(cusolverDnCreate(&solver) == CUSOLVER_STATUS_SUCCESS, "cusolverDnCreate");
  Check(cusolverDnCreateParams(&params) == CUSOLVER_STATUS_SUCCESS, "params");
  // The SVD benchmarks and accuracy checks run on the default stream, as the solver does.
  cublasHandle_t checks;
  Check(cublasCreate(&checks) == CUBLAS_STATUS_SUCCESS, "cublasCreate");
  std::mt19937_64 rng(20261122);
  std::printf("device: %s\n\n", backend.Devices()[0].description.c_str());

  std::printf(
      "| matmul (row-major C = A B) | server ms | cuBLAS direct ms | direct/server | server "
      "TFLOP/s |\n|---|---|---|---|---|\n");
  for (const int64_t n : {4096, 8192}) {
    for (const DType dtype : {DType::kFloat32, DType::kFloat64, DType::kFloat16}) {
      BenchMatmul(backend, blas, stream, dtype, 1, n, n == 4096 ? 20 : 10, rng);
    }
  }
  for (const DType dtype : {DType::kFloat32, DType::kFloat64, DType::kFloat16}) {
    BenchMatmul(backend, blas, stream, dtype, 1000, 64, 500, rng);
  }

  std::printf(
      "\n| svd (server) | ms | recon | orth U | orth V | sv vs f64 |\n|---|---|---|---|---|---|\n");
  BenchSvd(backend, checks, solver, 1, 64, 64, true, 20, rng);
  BenchSvd(backend, checks, solver, 1000, 64, 64, true, 5, rng);
  BenchSvd(backend, checks, solver, 1, 1024, 1024, true, 5, rng);
  BenchSvd(backend, checks, solver, 1, 4096, 4096, true, 3, rng);
  BenchSvd(backend, checks, solver, 1, 4096, 1024, false, 3, rng);
  BenchSvd(backend, checks, solver, 1, 4096, 1024, true, 3, rng);

  std::printf(
      "\n| cuSOLVER direct, reduced | ms | recon | orth U | orth V | sv vs f64 "
      "|\n|---|---|---|---|---|---|\n");
  BenchSolvers(checks, solver, params, 64, 64, 5, rng);
  BenchSolvers(checks, solver, params, 1024, 1024, 3, rng);
  BenchSolvers(checks, solver, params, 4096, 1024, 2, rng);
  BenchSolvers(checks, solver, params, 4096, 4096, 1, rng);
  return 0;
}
