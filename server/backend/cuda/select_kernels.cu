// numpy.partition by radix select (see select_kernels.cuh). For one row and kth positions
// k_1 < ... < k_m:
//   1. Select: for each digit of the order key, most significant first, one pass counts, per
//      k_j, the digits of the elements whose higher digits equal those found for k_j so far
//      (shared-memory histograms, added into a global one: integer atomics, so the counts and
//      everything after them do not depend on timing); one thread per k_j then picks the digit
//      where its remaining rank falls. After the last digit each k_j has the exact key of the
//      element a sort puts at k_j (its pivot).
//   2. Classify: each element's class is 2c + e, c the number of pivots below its key and e
//      whether it equals the next one; classes ascend with the key, so putting the elements in
//      class order, stably, puts every pivot's equals at the ranks a sort gives them, k_j
//      among them.
//   3. A stable partition by class in two passes over tiles of kTileItems elements: the first
//      counts each tile's classes, a scan of the counts (class-major) gives every tile the
//      first output position of each class, and the second writes each element there plus its
//      rank among the tile's earlier elements of its class (warp matches, then a scan over the
//      block's warps). Values and positions are written straight into the outputs.
// Keys are numpy.sort's (sort_kernels.cuh): NaNs last, -0.0 equal to 0.0.
#include <algorithm>
#include <cub/device/device_scan.cuh>

#include "server/backend/cuda/select_kernels.cuh"
#include "server/backend/cuda/sort_kernels.cuh"

namespace arrayhub {

namespace {

using namespace sort_order;

constexpr int kThreads = 256;
constexpr int kDigitBits = 8;
constexpr int kDigits = 1 << kDigitBits;
// The histogram passes' grid: enough blocks to fill the GPU; more would only add to the
// m * 256 global atomics each block's flush costs.
constexpr int64_t kSelectBlocks = 1024;
// Elements each thread of a histogram pass loads before it counts them.
constexpr int kCountUnroll = 8;
constexpr int64_t kMaxBlocks = 8192;
// The partition passes' tiles: each block takes kTileItems elements, kThreads at a time.
constexpr int kTileItems = kThreads * 16;
constexpr int kWarps = kThreads / 32;
// Classes 0 ... 2m: below the first pivot, equal to it, between it and the next, ...
constexpr int kMaxClasses = 2 * kMaxSelectedKth + 1;
// Rows at least this long select (PartitionSelects).
constexpr int64_t kSelectMinRow = int64_t{1} << 20;
constexpr int64_t kSelectMaxRows = 64;

int BlocksFor(int64_t count, int64_t most) {
  return static_cast<int>(std::max<int64_t>(1, std::min((count + kThreads - 1) / kThreads, most)));
}

__device__ int64_t FirstIndex() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ int64_t GridStride() { return static_cast<int64_t>(gridDim.x) * blockDim.x; }

// The selection's device state, one entry per kth: the key bits found (`prefix`, under `mask`)
// and the rank still to find among the elements that share them.
struct SelectState {
  unsigned long long prefix[kMaxSelectedKth];
  unsigned long long mask[kMaxSelectedKth];
  long long rank[kMaxSelectedKth];
};

// The scratch of one row: the state, the histograms (m * 256 counters), each tile's class
// counts (then, scanned, its first output positions) and CUB's scan storage.
struct Layout {
  size_t state, histograms, tile_counts, temp, total;
  size_t temp_bytes;
  int64_t tiles;
};

size_t AlignUp(size_t bytes) { return (bytes + 255) / 256 * 256; }

cudaError_t LayoutOf(int64_t n, Layout* layout) {
  layout->tiles = (n + kTileItems - 1) / kTileItems;
  const int64_t entries = kMaxClasses * layout->tiles;
  size_t temp_bytes = 0;
  if (const cudaError_t error = cub::DeviceScan::ExclusiveSum(
          nullptr, temp_bytes, static_cast<unsigned long long*>(nullptr), entries);
      error != cudaSuccess) {
    return error;
  }
  size_t at = 0;
  auto take = [&](size_t bytes) {
    const size_t start = at;
    at += AlignUp(bytes);
    return start;
  };
  layout->state = take(sizeof(SelectState));
  layout->histograms = take(sizeof(unsigned long long) * kMaxSelectedKth * kDigits);
  layout->tile_counts = take(sizeof(unsigned long long) * static_cast<size_t>(entries));
  layout->temp_bytes = temp_bytes;
  layout->temp = take(temp_bytes);
  layout->total = at;
  return cudaSuccess;
}

// The kth positions by value, as a kernel parameter: a copy from host memory would wait for
// the stream.
struct KthList {
  long long kth[kMaxSelectedKth];
};

// The state before the first digit: each kth's rank among all elements, nothing found yet, the
// histograms zero.
__global__ void StartKernel(KthList list, int m, SelectState* state,
                            unsigned long long* histograms) {
  for (int i = threadIdx.x; i < m * kDigits; i += blockDim.x) histograms[i] = 0;
  if (threadIdx.x < m) {
    state->rank[threadIdx.x] = list.kth[threadIdx.x];
    state->prefix[threadIdx.x] = 0;
    state->mask[threadIdx.x] = 0;
  }
}

// Counts the digit at `shift` of the keys that match each kth's prefix.
template <class Order>
__global__ void __launch_bounds__(kThreads)
    DigitCountKernel(const typename Order::Item* input, int64_t n, int shift, int m,
                     const SelectState* state, unsigned long long* histograms) {
  __shared__ unsigned int counts[kMaxSelectedKth * kDigits];
  __shared__ unsigned long long prefix[kMaxSelectedKth];
  __shared__ unsigned long long mask[kMaxSelectedKth];
  for (int i = threadIdx.x; i < m * kDigits; i += blockDim.x) counts[i] = 0;
  if (threadIdx.x < m) {
    prefix[threadIdx.x] = state->prefix[threadIdx.x];
    mask[threadIdx.x] = state->mask[threadIdx.x];
  }
  __syncthreads();
  // Whole warps step together (blockDim is a multiple of 32, the bases are warp-uniform), so
  // that the lanes adding to one counter can add once: real data has few distinct high digits
  // (a float's sign and exponent), where one atomic per lane would serialize the warp. Each
  // thread loads kCountUnroll elements before counting any, so that enough loads are in flight
  // to keep the pass at memory speed (one at a time, it ran at a third of it).
  const unsigned lane = threadIdx.x % 32;
  const int64_t block_items = static_cast<int64_t>(blockDim.x) * kCountUnroll;
  for (int64_t base = blockIdx.x * block_items; base < n; base += gridDim.x * block_items) {
    typename Order::Item items[kCountUnroll];
#pragma unroll
    for (int u = 0; u < kCountUnroll; ++u) {
      const int64_t i = base + u * blockDim.x + threadIdx.x;
      items[u] = i < n ? input[i] : typename Order::Item{};
    }
#pragma unroll
    for (int u = 0; u < kCountUnroll; ++u) {
      const bool valid = base + u * blockDim.x + threadIdx.x < n;
      const auto key = static_cast<unsigned long long>(Order::Key(items[u]));
      const auto digit = static_cast<unsigned>((key >> shift) & (kDigits - 1));
      for (int j = 0; j < m; ++j) {
        const bool counted = valid && (key & mask[j]) == prefix[j];
        // After the first digits most warps hold no element of a kth's prefix: a ballot is far
        // cheaper than the match, which then runs only where something is counted.
        if (__ballot_sync(0xffffffffu, counted) == 0) continue;
        const unsigned peers = __match_any_sync(0xffffffffu, counted ? digit : kDigits);
        if (counted && lane == static_cast<unsigned>(__ffs(peers) - 1)) {
          atomicAdd(&counts[j * kDigits + digit], static_cast<unsigned>(__popc(peers)));
        }
      }
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < m * kDigits; i += blockDim.x) {
    if (counts[i] != 0) atomicAdd(&histograms[i], static_cast<unsigned long long>(counts[i]));
  }
}

// Block j: the digit at `shift` where kth j's remaining rank falls; clears its histogram for
// the next pass.
__global__ void PickDigitKernel(int shift, SelectState* state, unsigned long long* histograms) {
  const int j = blockIdx.x;
  unsigned long long* counts = histograms + j * kDigits;
  if (threadIdx.x == 0) {
    const auto rank = static_cast<unsigned long long>(state->rank[j]);
    unsigned long long before = 0;
    int digit = 0;
    for (; digit < kDigits - 1 && before + counts[digit] <= rank; ++digit) before += counts[digit];
    state->rank[j] = static_cast<long long>(rank - before);
    state->prefix[j] |= static_cast<unsigned long long>(digit) << shift;
    state->mask[j] |= static_cast<unsigned long long>(kDigits - 1) << shift;
  }
  __syncthreads();
  for (int d = threadIdx.x; d < kDigits; d += blockDim.x) counts[d] = 0;
}

// Element x's class (see above) among the m pivots' keys.
template <class Order>
__device__ int ClassOf(const typename Order::Item& x, int m, const unsigned long long* pivots) {
  const auto key = static_cast<unsigned long long>(Order::Key(x));
  int c = 0;
  while (c < m && pivots[c] < key) ++c;
  return 2 * c + (c < m && pivots[c] == key ? 1 : 0);
}

// counts[k * tiles + t]: how many elements of tile t (one block each) are of class k.
template <class Order>
__global__ void __launch_bounds__(kThreads)
    CountClassesKernel(const typename Order::Item* input, int64_t n, int m,
                       const SelectState* state, int64_t tiles, unsigned long long* counts) {
  __shared__ unsigned long long pivots[kMaxSelectedKth];
  __shared__ unsigned int tile_counts[kMaxClasses];
  const int classes = 2 * m + 1;
  if (threadIdx.x < m) pivots[threadIdx.x] = state->prefix[threadIdx.x];
  if (threadIdx.x < classes) tile_counts[threadIdx.x] = 0;
  __syncthreads();
  const int64_t first = static_cast<int64_t>(blockIdx.x) * kTileItems;
  const unsigned lane = threadIdx.x % 32;
  for (int u = 0; u < kTileItems / kThreads; ++u) {
    const int64_t i = first + u * kThreads + threadIdx.x;
    const int k = i < n ? ClassOf<Order>(input[i], m, pivots) : kMaxClasses;
    const unsigned peers = __match_any_sync(0xffffffffu, k);
    if (k < kMaxClasses && lane == static_cast<unsigned>(__ffs(peers) - 1)) {
      atomicAdd(&tile_counts[k], static_cast<unsigned>(__popc(peers)));
    }
  }
  __syncthreads();
  if (threadIdx.x < classes) counts[threadIdx.x * tiles + blockIdx.x] = tile_counts[threadIdx.x];
}

// Writes tile blockIdx.x's elements at their stable places: `starts` holds, at k * tiles + t,
// the first position of class k's elements of tile t (the counts' exclusive scan).
template <class Order>
__global__ void __launch_bounds__(kThreads)
    ScatterClassesKernel(const typename Order::Item* input, int64_t n, int m,
                         const SelectState* state, int64_t tiles, const unsigned long long* starts,
                         typename Order::Item* values, int64_t* indices) {
  __shared__ unsigned long long pivots[kMaxSelectedKth];
  __shared__ unsigned long long next[kMaxClasses];           // Class k's next position in the row.
  __shared__ unsigned int warp_starts[kWarps][kMaxClasses];  // Then each warp's within the step.
  __shared__ unsigned int step_counts[kMaxClasses];
  const int classes = 2 * m + 1;
  if (threadIdx.x < m) pivots[threadIdx.x] = state->prefix[threadIdx.x];
  if (threadIdx.x < classes) next[threadIdx.x] = starts[threadIdx.x * tiles + blockIdx.x];
  const int64_t first = static_cast<int64_t>(blockIdx.x) * kTileItems;
  const unsigned lane = threadIdx.x % 32;
  const unsigned warp = threadIdx.x / 32;
  const unsigned lanes_before = (1u << lane) - 1;
  for (int u = 0; u < kTileItems / kThreads; ++u) {
    for (int e = threadIdx.x; e < kWarps * kMaxClasses; e += kThreads) {
      warp_starts[e / kMaxClasses][e % kMaxClasses] = 0;
    }
    __syncthreads();
    const int64_t i = first + u * kThreads + threadIdx.x;
    typename Order::Item x{};
    int k = kMaxClasses;
    if (i < n) {
      x = input[i];
      k = ClassOf<Order>(x, m, pivots);
    }
    const unsigned peers = __match_any_sync(0xffffffffu, k);
    if (k < kMaxClasses && lane == static_cast<unsigned>(__ffs(peers) - 1)) {
      warp_starts[warp][k] = static_cast<unsigned>(__popc(peers));
    }
    __syncthreads();
    if (threadIdx.x < classes) {  // Counts per warp become each warp's first place.
      unsigned before = 0;
      for (int w = 0; w < kWarps; ++w) {
        const unsigned count = warp_starts[w][threadIdx.x];
        warp_starts[w][threadIdx.x] = before;
        before += count;
      }
      step_counts[threadIdx.x] = before;
    }
    __syncthreads();
    if (k < kMaxClasses) {
      const unsigned long long at =
          next[k] + warp_starts[warp][k] + static_cast<unsigned>(__popc(peers & lanes_before));
      if (values != nullptr) values[at] = x;
      if (indices != nullptr) indices[at] = i;
    }
    __syncthreads();
    if (threadIdx.x < classes) next[threadIdx.x] += step_counts[threadIdx.x];
  }
}

// positions i % n: the unpartitioned rows' indices.
__global__ void RowPositionsKernel(int64_t* indices, int64_t n, int64_t count) {
  for (int64_t i = FirstIndex(); i < count; i += GridStride()) indices[i] = i % n;
}

// One row: `input`, `values` and `indices` point at it.
template <class Order>
cudaError_t PartitionRow(const PartitionArgs& a, const Layout& layout, const void* row_input,
                         void* values, int64_t* indices) {
  using Item = typename Order::Item;
  const auto* input = static_cast<const Item*>(row_input);
  char* scratch = static_cast<char*>(a.scratch);
  auto* state = reinterpret_cast<SelectState*>(scratch + layout.state);
  auto* histograms = reinterpret_cast<unsigned long long*>(scratch + layout.histograms);
  const int m = a.kth_count;

  KthList list{};
  for (int j = 0; j < m; ++j) list.kth[j] = a.kth[j];
  StartKernel<<<1, kThreads, 0, a.stream>>>(list, m, state, histograms);
  if (const cudaError_t error = cudaGetLastError(); error != cudaSuccess) return error;
  const int key_bits = (Order::kKeyBits + kDigitBits - 1) / kDigitBits * kDigitBits;
  for (int shift = key_bits - kDigitBits; shift >= 0; shift -= kDigitBits) {
    DigitCountKernel<Order><<<BlocksFor(a.n, kSelectBlocks), kThreads, 0, a.stream>>>(
        input, a.n, shift, m, state, histograms);
    if (const cudaError_t error = cudaGetLastError(); error != cudaSuccess) return error;
    PickDigitKernel<<<m, kThreads, 0, a.stream>>>(shift, state, histograms);
    if (const cudaError_t error = cudaGetLastError(); error != cudaSuccess) return error;
  }

  auto* counts = reinterpret_cast<unsigned long long*>(scratch + layout.tile_counts);
  const auto tiles = static_cast<int>(layout.tiles);
  CountClassesKernel<Order>
      <<<tiles, kThreads, 0, a.stream>>>(input, a.n, m, state, layout.tiles, counts);
  if (const cudaError_t error = cudaGetLastError(); error != cudaSuccess) return error;
  size_t temp_bytes = layout.temp_bytes;
  if (const cudaError_t error = cub::DeviceScan::ExclusiveSum(
          scratch + layout.temp, temp_bytes, counts, (2 * m + 1) * layout.tiles, a.stream);
      error != cudaSuccess) {
    return error;
  }
  ScatterClassesKernel<Order><<<tiles, kThreads, 0, a.stream>>>(
      input, a.n, m, state, layout.tiles, counts, static_cast<Item*>(values), indices);
  return cudaGetLastError();
}

}  // namespace

bool PartitionSelects(DType dtype, int64_t rows, int64_t n, int64_t kth_count) {
  if (dtype == DType::kComplex64 || dtype == DType::kComplex128) return false;
  return kth_count <= kMaxSelectedKth && n >= kSelectMinRow && rows <= kSelectMaxRows;
}

cudaError_t PartitionScratchBytes(DType, int64_t n, size_t* bytes) {
  Layout layout{};
  if (const cudaError_t error = LayoutOf(n, &layout); error != cudaSuccess) return error;
  *bytes = layout.total;
  return cudaSuccess;
}

cudaError_t LaunchPartition(const PartitionArgs& a) {
  const int64_t count = a.rows * a.n;
  if (count == 0) return cudaSuccess;
  const int64_t itemsize = ItemSize(a.dtype);
  if (a.kth_count == 0) {  // Nothing to select: the rows as they are.
    if (a.values != nullptr) {
      if (const cudaError_t error = cudaMemcpyAsync(a.values, a.input, count * itemsize,
                                                    cudaMemcpyDeviceToDevice, a.stream);
          error != cudaSuccess) {
        return error;
      }
    }
    if (a.indices != nullptr) {
      RowPositionsKernel<<<BlocksFor(count, kMaxBlocks), kThreads, 0, a.stream>>>(a.indices, a.n,
                                                                                  count);
      return cudaGetLastError();
    }
    return cudaSuccess;
  }
  Layout layout{};
  if (const cudaError_t error = LayoutOf(a.n, &layout); error != cudaSuccess) return error;
  if (a.scratch_bytes < layout.total) return cudaErrorInvalidValue;
  return WithOrder(a.dtype, [&](auto order) -> cudaError_t {
    using Order = decltype(order);
    if constexpr (Order::kComplex) {
      return cudaErrorInvalidValue;  // PartitionSelects sends complex dtypes to the sort.
    } else {
      for (int64_t row = 0; row < a.rows; ++row) {
        const int64_t at = row * a.n;
        const void* input = static_cast<const char*>(a.input) + at * itemsize;
        void* values = a.values == nullptr ? nullptr : static_cast<char*>(a.values) + at * itemsize;
        int64_t* indices = a.indices == nullptr ? nullptr : a.indices + at;
        if (const cudaError_t error = PartitionRow<Order>(a, layout, input, values, indices);
            error != cudaSuccess) {
          return error;
        }
      }
      return cudaSuccess;
    }
  });
}

}  // namespace arrayhub
