#include <cuda_fp16.h>

#include <algorithm>
#include <type_traits>

#include "server/backend/cuda/element_types.cuh"
#include "server/backend/cuda/grid_stride.cuh"
#include "server/backend/cuda/histogram_kernels.cuh"

namespace arrayhub {
namespace {

using grid_stride::BlocksFor;
using grid_stride::FirstIndex;
using grid_stride::GridStride;
using grid_stride::kThreadsPerBlock;

// Edges whose counters fit shared memory beside them: 8 bytes an edge and 4 a counter, within
// the 48 KiB a block has without opting in.
constexpr int64_t kSharedEdges = 4096;
// Blocks of the shared-memory kernel: each adds its counters to the result once, so fewer,
// longer blocks add fewer times; this many still fill any current GPU.
constexpr int64_t kSharedBlocks = 1024;

template <class T>
__device__ double AsDouble(T x) {
  if constexpr (std::is_same_v<T, __half>) {
    return static_cast<double>(__half2float(x));
  } else {
    return static_cast<double>(x);
  }
}

// The bin of x, given edges[0] <= x <= edges[bins]: the last i < bins with edges[i] <= x. The
// edges' spacing gives a guess, right for evenly spaced edges (numpy.histogram's own), which
// two comparisons confirm; otherwise a binary search of what is left. Within [0, bins) whatever
// the edges hold.
__device__ int64_t BinOf(double x, const double* edges, int64_t bins, double first, double scale) {
  double guess = (x - first) * scale;
  if (!(guess >= 0)) guess = 0;  // NaN too.
  const int64_t g = guess >= static_cast<double>(bins - 1) ? bins - 1 : static_cast<int64_t>(guess);
  int64_t low = 0, high = bins;  // The bin is in [low, high).
  if (edges[g] <= x) {
    low = g;
    if (g + 1 < high) {
      if (edges[g + 1] <= x) {
        low = g + 1;
      } else {
        high = g + 1;
      }
    }
  } else {
    high = g;  // g > 0 here: edges[0] <= x.
  }
  while (high - low > 1) {
    const int64_t middle = low + (high - low) / 2;
    if (edges[middle] <= x) {
      low = middle;
    } else {
      high = middle;
    }
  }
  return low;
}

__device__ double ScaleOf(const double* edges, int64_t bins) {
  const double scale = static_cast<double>(bins) / (edges[bins] - edges[0]);
  return isfinite(scale) ? scale : 0.0;
}

template <class T>
__global__ void SharedHistogramKernel(const T* input, int64_t count, const double* edges,
                                      int64_t bins, unsigned long long* counts) {
  extern __shared__ double shared[];
  double* local_edges = shared;
  auto* local_counts = reinterpret_cast<unsigned*>(shared + bins + 1);
  for (int64_t i = threadIdx.x; i <= bins; i += blockDim.x) local_edges[i] = edges[i];
  for (int64_t i = threadIdx.x; i < bins; i += blockDim.x) local_counts[i] = 0;
  __syncthreads();
  const double first = local_edges[0];
  const double last = local_edges[bins];
  const double scale = ScaleOf(local_edges, bins);
  for (int64_t p = FirstIndex(); p < count; p += GridStride()) {
    const double x = AsDouble(input[p]);
    if (!(x >= first && x <= last)) continue;  // NaN fails both.
    atomicAdd(&local_counts[BinOf(x, local_edges, bins, first, scale)], 1u);
  }
  __syncthreads();
  // A block counts at most its share of the input, which a 32-bit counter holds: kSharedBlocks
  // blocks of kThreadsPerBlock threads leave 2^32 elements to a block only past 2^50 elements.
  for (int64_t i = threadIdx.x; i < bins; i += blockDim.x) {
    if (local_counts[i] != 0)
      atomicAdd(&counts[i], static_cast<unsigned long long>(local_counts[i]));
  }
}

template <class T>
__global__ void GlobalHistogramKernel(const T* input, int64_t count, const double* edges,
                                      int64_t bins, unsigned long long* counts) {
  const double first = edges[0];
  const double last = edges[bins];
  const double scale = ScaleOf(edges, bins);
  for (int64_t p = FirstIndex(); p < count; p += GridStride()) {
    const double x = AsDouble(input[p]);
    if (!(x >= first && x <= last)) continue;
    atomicAdd(&counts[BinOf(x, edges, bins, first, scale)], 1ull);
  }
}

template <class T>
cudaError_t Launch(const HistogramArgs& a, cudaStream_t stream) {
  const auto* input = static_cast<const T*>(a.input);
  auto* counts = reinterpret_cast<unsigned long long*>(a.counts);
  if (a.bins + 1 <= kSharedEdges) {
    const size_t shared = static_cast<size_t>(a.bins + 1) * sizeof(double) +
                          static_cast<size_t>(a.bins) * sizeof(unsigned);
    const int blocks = static_cast<int>(std::min<int64_t>(BlocksFor(a.count), kSharedBlocks));
    SharedHistogramKernel<T>
        <<<blocks, kThreadsPerBlock, shared, stream>>>(input, a.count, a.edges, a.bins, counts);
  } else {
    GlobalHistogramKernel<T><<<BlocksFor(a.count), kThreadsPerBlock, 0, stream>>>(
        input, a.count, a.edges, a.bins, counts);
  }
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchHistogram(const HistogramArgs& args, cudaStream_t stream) {
  cudaError_t status =
      cudaMemsetAsync(args.counts, 0, static_cast<size_t>(args.bins) * sizeof(int64_t), stream);
  if (status != cudaSuccess || args.count == 0) return status;
  return cuda_types::VisitDType(args.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, cuda_types::Bool>) {
      return Launch<uint8_t>(args, stream);  // Read as its byte: 0 or 1.
    } else if constexpr (cuda_types::kIsComplex<T>) {
      return cudaErrorInvalidValue;  // Core counts real data only.
    } else {
      return Launch<T>(args, stream);
    }
  });
}

}  // namespace arrayhub
