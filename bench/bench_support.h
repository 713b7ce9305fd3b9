// What the GPU benchmarks share: failing loudly, CUDA-event timing (median after warm-up),
// the peer's times read from a file, and the results table with ratios.
#pragma once

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "server/backend/compute.h"
#include "server/backend/cuda/cuda_queue.h"
#include "server/common/shape.h"

namespace arrayhub::bench {

[[noreturn]] inline void Fail(const std::string& what) {
  fmt::print(stderr, "bench: {}\n", what);
  std::exit(1);
}

inline void Check(const absl::Status& status, const char* what) {
  if (!status.ok()) Fail(fmt::format("{}: {}", what, status.ToString()));
}

inline void CheckCuda(cudaError_t error, const char* what) {
  if (error != cudaSuccess) Fail(fmt::format("{}: {}", what, cudaGetErrorString(error)));
}

// The queue of the CUDA binding `binding` (TestQueue's, or one the benchmark bound): where the
// calls handed it go, and so the stream a benchmark times and waits on.
inline std::shared_ptr<CudaQueue> CudaQueueOf(QueueBinding& binding) {
  absl::StatusOr<CudaQueueBinding*> cuda = CudaBindingOf(binding);
  Check(cuda.status(), "CudaBindingOf");
  return (*cuda)->queue();
}

// The C-contiguous array of `dtype` and `shape` from byte 0 of `buffer`.
inline ArrayView ContiguousView(Buffer& buffer, DType dtype, Shape shape) {
  Strides strides = ContiguousStrides(shape);
  return ArrayView{.buffer = &buffer,
                   .offset_bytes = 0,
                   .dtype = dtype,
                   .shape = std::move(shape),
                   .strides = std::move(strides)};
}

// An elementwise operand that reads `view` as stored.
inline ElementwiseOperand ArrayOperand(const ArrayView& view) {
  ElementwiseOperand operand;
  operand.array = view;
  operand.dtype = view.dtype;
  return operand;
}

// Median milliseconds of `repeats` runs of `work` after `warmup` runs, timed with events on
// `stream`.
inline double MedianMs(const std::function<void()>& work, int repeats, cudaStream_t stream,
                       int warmup = 5) {
  for (int i = 0; i < warmup; ++i) work();
  cudaEvent_t start, stop;
  CheckCuda(cudaEventCreate(&start), "cudaEventCreate");
  CheckCuda(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<double> times;
  for (int i = 0; i < repeats; ++i) {
    CheckCuda(cudaEventRecord(start, stream), "cudaEventRecord");
    work();
    CheckCuda(cudaEventRecord(stop, stream), "cudaEventRecord");
    CheckCuda(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    CheckCuda(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    times.push_back(ms);
  }
  CheckCuda(cudaEventDestroy(start), "cudaEventDestroy");
  CheckCuda(cudaEventDestroy(stop), "cudaEventDestroy");
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// A peer's medians, as "name milliseconds" lines.
inline std::map<std::string, double> ReadPeerTimes(const std::string& path) {
  std::map<std::string, double> times;
  std::ifstream in(path);
  std::string name;
  double ms;
  while (in >> name >> ms) times[name] = ms;
  return times;
}

struct Op {
  std::string name;  // As in the peer's file.
  double bytes;      // Moved at least (0: not a bandwidth figure).
  std::function<void()> run;
};

// Times every op, its work enqueued on `stream`, and prints one markdown row each, beside the
// peer's time and, where bytes are known, the share of `copy_gbs` reached.
inline void PrintTable(const std::vector<Op>& ops, cudaStream_t stream,
                       const std::map<std::string, double>& peer, const std::string& peer_name,
                       double copy_gbs, int repeats) {
  fmt::print(
      "| op | ArrayHub ms | ArrayHub GB/s | {0} ms | {0} GB/s | ratio vs {0} | of copy "
      "bandwidth |\n",
      peer_name);
  fmt::print("|---|---:|---:|---:|---:|---:|---:|\n");
  for (const Op& op : ops) {
    const double ms = MedianMs(op.run, repeats, stream);
    const auto bandwidth = [&](double t) {
      return op.bytes > 0 ? fmt::format("{:.0f}", op.bytes / (t * 1e6)) : std::string("-");
    };
    std::string peer_ms = "-", peer_gbs = "-", ratio = "-";
    if (auto it = peer.find(op.name); it != peer.end()) {
      peer_ms = fmt::format("{:.3f}", it->second);
      peer_gbs = bandwidth(it->second);
      ratio = fmt::format("{:.2f}", it->second / ms);
    }
    const std::string of_copy = op.bytes > 0
                                    ? fmt::format("{:.0f}%", 100 * op.bytes / (ms * 1e6) / copy_gbs)
                                    : std::string("-");
    fmt::print("| {} | {:.3f} | {} | {} | {} | {} | {} |\n", op.name, ms, bandwidth(ms), peer_ms,
               peer_gbs, ratio, of_copy);
  }
}

// A device-to-device copy of 1 GiB: read plus write bytes over time.
inline double CopyBandwidthGBs(int repeats) {
  const size_t bytes = size_t{1} << 30;
  void* a = nullptr;
  void* b = nullptr;
  CheckCuda(cudaMalloc(&a, bytes), "cudaMalloc");
  CheckCuda(cudaMalloc(&b, bytes), "cudaMalloc");
  CheckCuda(cudaMemset(a, 1, bytes), "cudaMemset");
  const double ms = MedianMs(
      [&] {
        CheckCuda(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, cudaStreamPerThread),
                  "cudaMemcpyAsync");
      },
      repeats, cudaStreamPerThread);
  CheckCuda(cudaFree(a), "cudaFree");
  CheckCuda(cudaFree(b), "cudaFree");
  return 2.0 * static_cast<double>(bytes) / (ms * 1e6);
}

// Prints the device, what is measured (`workload`), and the device's copy bandwidth, which it
// returns for PrintTable.
inline double PrintHeader(const std::string& workload, int repeats) {
  cudaDeviceProp props;
  CheckCuda(cudaGetDeviceProperties(&props, 0), "cudaGetDeviceProperties");
  const double copy_gbs = CopyBandwidthGBs(repeats);
  fmt::print("device: {}; {}; median of {} calls\n", props.name, workload, repeats);
  fmt::print("copy bandwidth (device-to-device cudaMemcpy of 1 GiB, read + write): {:.0f} GB/s\n\n",
             copy_gbs);
  return copy_gbs;
}

}  // namespace arrayhub::bench
