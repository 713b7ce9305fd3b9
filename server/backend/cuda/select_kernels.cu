// numpy.partition by radix select (see select_kernels.cuh). For one row and kth positions
// k_1 < ... < k_m:
//   1. Select: for each digit of the order key, most significant first, one pass counts, per
//      k_j, the digits of the elements whose higher digits equal those found for k_j so far
//      (once for positions that found the same digits; shared-memory histograms, added into a
//      global one: integer atomics, so the counts and everything after them do not depend on
//      timing); one thread per k_j then picks the digit
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
#include <type_traits>

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
// Up to this many classes (three kth positions) the scatter ranks by ballots, else by matches.
constexpr int kBallotClasses = 7;
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

// The scratch of one row: the state, the histograms (m * 256 counters), each element's class
// (a byte), each tile's class counts (then, scanned, its first output positions) and CUB's
// scan storage.
struct Layout {
  size_t state, histograms, classes, tile_counts, temp, total;
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
  layout->classes = take(static_cast<size_t>(n));
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

// The keys in registers: 32 bits wide for dtypes up to 4 bytes (64-bit operations cost two or
// more instructions, and the passes are bound by instructions, not memory), else 64.
template <class Order>
using KeyOf = std::conditional_t<(Order::kKeyBits <= 32), unsigned, unsigned long long>;

// Counts the digit at `shift` of the keys that match each kth's prefix. kM >= m bounds the
// loops over the kth positions at compile time (see WithKthBound).
template <class Order, int kM>
__global__ void __launch_bounds__(kThreads)
    DigitCountKernel(const typename Order::Item* input, int64_t n, int shift, int m,
                     const SelectState* state, unsigned long long* histograms) {
  using Key = KeyOf<Order>;
  __shared__ unsigned int counts[kMaxSelectedKth * kDigits];
  __shared__ Key prefix[kMaxSelectedKth];
  __shared__ Key mask[kMaxSelectedKth];
  for (int i = threadIdx.x; i < m * kDigits; i += blockDim.x) counts[i] = 0;
  if (threadIdx.x < m) {
    prefix[threadIdx.x] = static_cast<Key>(state->prefix[threadIdx.x]);
    mask[threadIdx.x] = static_cast<Key>(state->mask[threadIdx.x]);
  }
  __syncthreads();
  // Whole warps step together (blockDim is a multiple of 32, the bases are warp-uniform), so
  // that the lanes adding to one counter can add once: real data has few distinct high digits
  // (a float's sign and exponent), where one atomic per lane would serialize the warp. Each
  // thread loads kCountUnroll elements before counting any, so that enough loads are in flight.
  const unsigned lane = threadIdx.x % 32;
  const int64_t block_items = static_cast<int64_t>(blockDim.x) * kCountUnroll;
  for (int64_t base = blockIdx.x * block_items; base < n; base += gridDim.x * block_items) {
    typename Order::Item items[kCountUnroll];
#pragma unroll
    for (int u = 0; u < kCountUnroll; ++u) {
      const int64_t i = base + u * blockDim.x + threadIdx.x;
      items[u] = i < n ? input[i] : typename Order::Item{};
    }
    // Elements of this sweep at and beyond `valid_items` are past the row's end.
    const int64_t valid_items = n - base - threadIdx.x;
#pragma unroll
    for (int u = 0; u < kCountUnroll; ++u) {
      const bool valid = u * static_cast<int64_t>(blockDim.x) < valid_items;
      const auto key = static_cast<Key>(Order::Key(items[u]));
      const auto digit = static_cast<unsigned>((key >> shift) & (kDigits - 1));
#pragma unroll
      for (int j = 0; j < kM; ++j) {
        if (j >= m) break;
        // Positions whose digits so far are the same share one histogram (PickDigitKernel):
        // a median's two middle ranks, most positions in the first passes.
        if (j > 0 && prefix[j] == prefix[j - 1]) continue;
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

// One block: for each kth j, the digit at `shift` where its remaining rank falls, from the
// histogram of the first kth whose prefix is j's (DigitCountKernel counts only that one); then
// every histogram is cleared for the next pass.
__global__ void PickDigitKernel(int shift, int m, SelectState* state,
                                unsigned long long* histograms) {
  __shared__ unsigned long long counts[kMaxSelectedKth * kDigits];
  __shared__ unsigned long long prefix[kMaxSelectedKth];
  for (int i = threadIdx.x; i < m * kDigits; i += blockDim.x) {
    counts[i] = histograms[i];
    histograms[i] = 0;
  }
  if (threadIdx.x < m) prefix[threadIdx.x] = state->prefix[threadIdx.x];
  __syncthreads();
  const int j = threadIdx.x;
  if (j < m) {
    int counted = j;
    while (counted > 0 && prefix[counted - 1] == prefix[j]) --counted;
    const unsigned long long* row = counts + counted * kDigits;
    const auto rank = static_cast<unsigned long long>(state->rank[j]);
    unsigned long long before = 0;
    int digit = 0;
    for (; digit < kDigits - 1 && before + row[digit] <= rank; ++digit) before += row[digit];
    state->rank[j] = static_cast<long long>(rank - before);
    state->prefix[j] = prefix[j] | static_cast<unsigned long long>(digit) << shift;
    state->mask[j] |= static_cast<unsigned long long>(kDigits - 1) << shift;
  }
}

// classes[i]: element i's class (see above); counts[k * tiles + t]: how many elements of tile t
// (one block each) are of class k. An element below `lt` pivots and equal to `eq` of them is
// above the other m - lt - eq, so its class is 2 (m - lt - eq) + (eq > 0). Each thread counts,
// per pivot, its elements below it and equal to it in registers (no match or atomic per
// element: this pass, like the histograms, is bound by instructions); the block adds them up,
// and each class's count follows from the sums, pivots that share a key counted once. The
// scatter reads the classes written here, never the input's keys again: an input that changes
// meanwhile (another caller's writes) still fills every output position exactly once.
template <class Order, int kM>
__global__ void __launch_bounds__(kThreads)
    CountClassesKernel(const typename Order::Item* input, int64_t n, int m,
                       const SelectState* state, int64_t tiles, uint8_t* classes,
                       unsigned long long* counts) {
  using Key = KeyOf<Order>;
  __shared__ Key pivots[kMaxSelectedKth];
  __shared__ unsigned int below[kMaxSelectedKth];
  __shared__ unsigned int equal[kMaxSelectedKth];
  if (threadIdx.x < m) {
    pivots[threadIdx.x] = static_cast<Key>(state->prefix[threadIdx.x]);
    below[threadIdx.x] = 0;
    equal[threadIdx.x] = 0;
  }
  __syncthreads();
  const int64_t first = static_cast<int64_t>(blockIdx.x) * kTileItems;
  const int64_t items = n - first < kTileItems ? n - first : kTileItems;
  unsigned my_below[kM] = {};
  unsigned my_equal[kM] = {};
  for (int u = threadIdx.x; u < items; u += kThreads) {
    const auto key = static_cast<Key>(Order::Key(input[first + u]));
    int lt = 0;
    int eq = 0;
#pragma unroll
    for (int j = 0; j < kM; ++j) {
      if (j < m) {
        const bool below_j = key < pivots[j];
        const bool equal_j = key == pivots[j];
        my_below[j] += below_j ? 1u : 0u;
        my_equal[j] += equal_j ? 1u : 0u;
        lt += below_j ? 1 : 0;
        eq += equal_j ? 1 : 0;
      }
    }
    classes[first + u] = static_cast<uint8_t>(2 * (m - lt - eq) + (eq > 0 ? 1 : 0));
  }
#pragma unroll
  for (int j = 0; j < kM; ++j) {
    if (j < m) {
      const unsigned warp_below = __reduce_add_sync(0xffffffffu, my_below[j]);
      const unsigned warp_equal = __reduce_add_sync(0xffffffffu, my_equal[j]);
      if (threadIdx.x % 32 == 0) {
        atomicAdd(&below[j], warp_below);
        atomicAdd(&equal[j], warp_equal);
      }
    }
  }
  __syncthreads();
  if (threadIdx.x <= 2 * m) {
    // Class 2c + 1: equal to pivot c and above pivot c - 1; class 2c: above pivot c - 1 (and
    // not equal to it), below pivot c.
    const int k = threadIdx.x;
    const int c = k / 2;
    const bool repeats = c > 0 && c < m && pivots[c - 1] == pivots[c];
    const unsigned long long up_to_previous = c > 0 ? below[c - 1] + equal[c - 1] : 0;
    unsigned long long count;
    if (k % 2 == 1) {
      count = repeats ? 0 : equal[c];
    } else if (c < m) {
      count = repeats ? 0 : below[c] - up_to_previous;
    } else {
      count = static_cast<unsigned long long>(items) - up_to_previous;
    }
    counts[k * tiles + blockIdx.x] = count;
  }
}

// Writes tile blockIdx.x's elements at their stable places: `starts` holds, at k * tiles + t,
// the first position of class k's elements of tile t (the counts' exclusive scan).
template <class Order>
__global__ void __launch_bounds__(kThreads)
    ScatterClassesKernel(const typename Order::Item* input, int64_t n, int m,
                         const uint8_t* element_classes, int64_t tiles,
                         const unsigned long long* starts, typename Order::Item* values,
                         int64_t* indices) {
  __shared__ unsigned long long next[kMaxClasses];           // Class k's next position in the row.
  __shared__ unsigned int warp_starts[kWarps][kMaxClasses];  // Then each warp's within the step.
  __shared__ unsigned int step_counts[kMaxClasses];
  const int classes = 2 * m + 1;
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
      k = element_classes[i];
    }
    // The lanes of the warp with this lane's class: a few ballots cost less than a match.
    unsigned peers = 0;
    if (classes <= kBallotClasses) {
      for (int q = 0; q < classes; ++q) {
        const unsigned ballot = __ballot_sync(0xffffffffu, k == q);
        if (k == q) peers = ballot;
      }
    } else {
      peers = __match_any_sync(0xffffffffu, k);
    }
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
      if (at < static_cast<unsigned long long>(n)) {  // Always, by the counts; kept in bounds
        if (values != nullptr) values[at] = x;        // by construction all the same.
        if (indices != nullptr) indices[at] = i;
      }
    }
    __syncthreads();
    if (threadIdx.x < classes) next[threadIdx.x] += step_counts[threadIdx.x];
  }
}

// positions i % n: the unpartitioned rows' indices.
__global__ void RowPositionsKernel(int64_t* indices, int64_t n, int64_t count) {
  for (int64_t i = FirstIndex(); i < count; i += GridStride()) indices[i] = i % n;
}

// Calls f(std::integral_constant<int, kM>{}) with a compile-time bound kM >= m of the kth
// positions: the per-element loops over them unroll into exactly as many steps as a median
// (three positions) or a single kth needs, and into kMaxSelectedKth for the rest.
template <class F>
cudaError_t WithKthBound(int m, F&& f) {
  if (m <= 1) return f(std::integral_constant<int, 1>{});
  if (m <= 3) return f(std::integral_constant<int, 3>{});
  return f(std::integral_constant<int, kMaxSelectedKth>{});
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
    if (const cudaError_t error =
            WithKthBound(m,
                         [&](auto bound) {
                           DigitCountKernel<Order, bound.value>
                               <<<BlocksFor(a.n, kSelectBlocks), kThreads, 0, a.stream>>>(
                                   input, a.n, shift, m, state, histograms);
                           return cudaGetLastError();
                         });
        error != cudaSuccess) {
      return error;
    }
    PickDigitKernel<<<1, kThreads, 0, a.stream>>>(shift, m, state, histograms);
    if (const cudaError_t error = cudaGetLastError(); error != cudaSuccess) return error;
  }

  auto* counts = reinterpret_cast<unsigned long long*>(scratch + layout.tile_counts);
  const auto tiles = static_cast<int>(layout.tiles);
  auto* classes = reinterpret_cast<uint8_t*>(scratch + layout.classes);
  if (const cudaError_t error =
          WithKthBound(m,
                       [&](auto bound) {
                         CountClassesKernel<Order, bound.value><<<tiles, kThreads, 0, a.stream>>>(
                             input, a.n, m, state, layout.tiles, classes, counts);
                         return cudaGetLastError();
                       });
      error != cudaSuccess) {
    return error;
  }
  size_t temp_bytes = layout.temp_bytes;
  if (const cudaError_t error = cub::DeviceScan::ExclusiveSum(
          scratch + layout.temp, temp_bytes, counts, (2 * m + 1) * layout.tiles, a.stream);
      error != cudaSuccess) {
    return error;
  }
  ScatterClassesKernel<Order><<<tiles, kThreads, 0, a.stream>>>(
      input, a.n, m, classes, layout.tiles, counts, static_cast<Item*>(values), indices);
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
