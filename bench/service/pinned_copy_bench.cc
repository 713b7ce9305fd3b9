// The transfer benchmark's peer: cudaMemcpy between pinned host memory and the device, timed
// with CUDA events (median of repeats after a warm-up). Prints "h2d_gbs d2h_gbs".
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <cstdlib>
#include <string>

#include "bench/bench_support.h"

int main(int argc, char** argv) {
  using arrayhub::bench::CheckCuda;
  const size_t bytes = argc > 1 ? std::stoull(argv[1]) : size_t{1} << 30;
  void* host = nullptr;
  void* device = nullptr;
  CheckCuda(cudaMallocHost(&host, bytes), "cudaMallocHost");
  CheckCuda(cudaMalloc(&device, bytes), "cudaMalloc");
  std::memset(host, 1, bytes);
  const double h2d_ms = arrayhub::bench::MedianMs(
      [&] { CheckCuda(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy"); }, 5,
      nullptr, 2);
  const double d2h_ms = arrayhub::bench::MedianMs(
      [&] { CheckCuda(cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy"); }, 5,
      nullptr, 2);
  fmt::print("{:.2f} {:.2f}\n", static_cast<double>(bytes) / h2d_ms / 1e6,
             static_cast<double>(bytes) / d2h_ms / 1e6);
  CheckCuda(cudaFree(device), "cudaFree");
  CheckCuda(cudaFreeHost(host), "cudaFreeHost");
  return 0;
}
