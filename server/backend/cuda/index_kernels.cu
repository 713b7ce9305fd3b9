// Indexing kernels (see index_kernels.cuh). Gathers, scatters and nonzero move raw elements, so
// they are instantiated per item size (1, 2, 4, 8, 16 bytes), not per dtype; only searchsorted
// compares values, in numpy.sort's order from sort_kernels.cuh. Every kernel computes element
// offsets from positions by unravelling them over a walk (a table of extents and strides in
// device memory, any rank), with grid-stride loops.
#include <algorithm>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>

#include "server/backend/cuda/index_kernels.cuh"
#include "server/backend/cuda/scatter_combine.cuh"
#include "server/common/dtype_visit.h"

namespace arrayhub {

namespace {

constexpr int kThreads = 256;
// Enough blocks to fill any current GPU several times over; grid-stride loops cover the rest.
constexpr int64_t kMaxBlocks = 8192;
// Nonzero works on chunks of kChunkTiles tiles of kThreads positions, a block per chunk, so
// that the chunks' counts (and so each nonzero element's rank) need no atomics.
constexpr int kChunkTiles = 16;
constexpr int64_t kChunk = int64_t{kThreads} * kChunkTiles;
static_assert(kThreads % 32 == 0, "a tile's warps cover whole words of nonzero flags");

int BlocksFor(int64_t count) {
  return static_cast<int>(std::min<int64_t>((count + kThreads - 1) / kThreads, kMaxBlocks));
}

__device__ int64_t FirstIndex() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ int64_t GridStride() { return static_cast<int64_t>(gridDim.x) * blockDim.x; }

// The element offset of position `p` of an array with `strides` in a walk over `extents`.
// The outermost coordinate needs no division: it is what is left of p.
__device__ int64_t WalkOffset(const int64_t* extents, const int64_t* strides, int rank, int64_t p) {
  if (rank == 0) return 0;
  int64_t offset = 0;
  for (int d = rank - 1; d > 0; --d) {
    const int64_t extent = extents[d];
    const int64_t next = p / extent;
    offset += (p - next * extent) * strides[d];
    p = next;
  }
  return offset + p * strides[0];
}

// Elements moved by value, one type per item size. 16-byte items are two words, so that they
// need only 8-byte alignment (complex128 views are not necessarily 16-byte aligned).
struct Item16 {
  unsigned long long lo, hi;
};

// Calls f(TypeTag<Item>{}) with the type of `itemsize` bytes.
template <class F>
cudaError_t WithItem(int64_t itemsize, F&& f) {
  return VisitWordOfSize<Item16>(itemsize, static_cast<F&&>(f));
}

// ---- Index operands ----

// The element offset, relative to the data, that the index operands add at position p, each
// index read once and checked against its extent; the operands' index strides are arrays
// first_array, first_array + 1, ... of the walk. An index out of bounds records the error of
// (p, k) and makes this false (`offset` is then meaningless).
__device__ bool IndexedOffset(const int64_t* walk, int rank, int first_array,
                              const IndexOperandArgs* operands, int operand_count, int64_t p,
                              unsigned long long* first_error, int64_t& offset) {
  offset = 0;
  for (int k = 0; k < operand_count; ++k) {
    const IndexOperandArgs op = operands[k];
    int64_t index = op.indices[WalkOffset(walk, walk + (first_array + 1 + k) * rank, rank, p)];
    if (index < -op.extent || index >= op.extent) {
      atomicMin(first_error, static_cast<unsigned long long>(p) * operand_count + k);
      return false;
    }
    if (index < 0) index += op.extent;
    offset += index * op.stride;
  }
  return true;
}

// ---- Gather ----

template <class Item>
__global__ void GatherKernel(GatherArgs a) {
  const auto* source = static_cast<const Item*>(a.source);
  auto* output = static_cast<Item*>(a.output);
  for (int64_t p = FirstIndex(); p < a.count; p += GridStride()) {
    int64_t indexed = 0;
    if (!IndexedOffset(a.walk, a.rank, 1, a.operands, a.operand_count, p, a.first_error, indexed)) {
      continue;
    }
    output[p] = source[WalkOffset(a.walk, a.walk + a.rank, a.rank, p) + indexed];
  }
}

// ---- Scatter ----

// keys[p] = destination(p) - min_offset, positions[p] = p; the only pass that reads the
// indices. A position whose index is out of bounds gets key 0 (in range: the write pass, which
// then writes nothing, still sorts it).
template <class Key>
__global__ void DestinationsKernel(ScatterArgs a, Key* keys, int64_t* positions) {
  for (int64_t p = FirstIndex(); p < a.count; p += GridStride()) {
    int64_t indexed = 0;
    const bool in_bounds =
        IndexedOffset(a.walk, a.rank, 2, a.operands, a.operand_count, p, a.first_error, indexed);
    const int64_t offset = WalkOffset(a.walk, a.walk + a.rank, a.rank, p) + indexed;
    keys[p] = in_bounds ? static_cast<Key>(offset - a.min_offset) : Key{0};
    if (positions != nullptr) positions[p] = p;
  }
}

// Over the positions sorted stably by destination: the last of each run of equal destinations
// (the greatest position, as sequential assignment leaves it) writes, at the key's destination
// (in the target: the first pass made it from checked indices), nothing if any index was out
// of bounds.
template <class Item, class Key>
__global__ void ScatterWriteKernel(ScatterArgs a, const Key* keys, const int64_t* positions) {
  if (*a.first_error != kNoIndexError) return;
  auto* target = static_cast<Item*>(a.target);
  const auto* values = static_cast<const Item*>(a.values);
  for (int64_t i = FirstIndex(); i < a.count; i += GridStride()) {
    const Key key = keys[i];
    if (i + 1 < a.count && keys[i + 1] == key) continue;
    const int64_t p = positions[i];
    target[a.min_offset + static_cast<int64_t>(key)] =
        values[WalkOffset(a.walk, a.walk + 2 * a.rank, a.rank, p)];
  }
}

// Over the same sorted positions, for ufunc.at: the first of each run of equal destinations
// folds every value of the run into the destination, in order of position.
template <ElementwiseOp kOp, class T, class Key>
__global__ void ScatterCombineKernel(ScatterArgs a, const Key* keys, const int64_t* positions) {
  if (*a.first_error != kNoIndexError) return;
  auto* target = static_cast<T*>(a.target);
  const auto* values = static_cast<const T*>(a.values);
  for (int64_t i = FirstIndex(); i < a.count; i += GridStride()) {
    const Key key = keys[i];
    if (i > 0 && keys[i - 1] == key) continue;
    T* destination = target + a.min_offset + static_cast<int64_t>(key);
    T element = *destination;
    for (int64_t j = i; j < a.count && keys[j] == key; ++j) {
      element = scatter_combine::Combine<kOp>(
          element, values[WalkOffset(a.walk, a.walk + 2 * a.rank, a.rank, positions[j])]);
    }
    *destination = element;
  }
}

template <class Key>
cudaError_t LaunchCombine(const ScatterArgs& a, const Key* keys, const int64_t* positions,
                          cudaStream_t stream) {
  return cuda_types::VisitDType(a.dtype, [&](auto tag) {
    return scatter_combine::WithOp(*a.combine, [&](auto op) {
      ScatterCombineKernel<decltype(op)::value, typename decltype(tag)::type>
          <<<BlocksFor(a.count), kThreads, 0, stream>>>(a, keys, positions);
      return cudaGetLastError();
    });
  });
}

// ---- Combining by atomics ----

// The integer of atomicAdd's width for an integer of 4 or 8 bytes.
template <class T>
using AtomicWord = std::conditional_t<sizeof(T) == 4, unsigned int, unsigned long long>;

// The addend of one value: subtracting is adding the two's complement negation (wrapping).
template <ElementwiseOp kOp, class T>
__device__ AtomicWord<T> Addend(T value) {
  const auto word = static_cast<AtomicWord<T>>(value);
  return kOp == ElementwiseOp::kSubtract ? static_cast<AtomicWord<T>>(0) - word : word;
}

// add.at / subtract.at of a 4- or 8-byte integer dtype, from the destinations of the first
// pass (in first-pass order, unsorted), once every index is known to be in bounds. Wrapping
// sums do not depend on the order of their terms, so the atomics give the sequential result
// exactly. Destinations within kPrivateDestinations of min_offset (a histogram's bins) first
// add up per block in shared memory, then one global atomic per block and bin.
constexpr int kPrivateDestinations = 4096;

template <ElementwiseOp kOp, class T, class Key, bool kPrivate>
__global__ void __launch_bounds__(kThreads)
    AtomicCombineKernel(ScatterArgs a, const Key* keys, int64_t destinations) {
  if (*a.first_error != kNoIndexError) return;
  using Word = AtomicWord<T>;
  auto* target = reinterpret_cast<Word*>(static_cast<T*>(a.target) + a.min_offset);
  const auto* values = static_cast<const T*>(a.values);
  __shared__ Word sums[kPrivate ? kPrivateDestinations : 1];
  if constexpr (kPrivate) {
    for (int64_t i = threadIdx.x; i < destinations; i += blockDim.x) sums[i] = 0;
    __syncthreads();
  }
  for (int64_t p = FirstIndex(); p < a.count; p += GridStride()) {
    const Word addend = Addend<kOp>(values[WalkOffset(a.walk, a.walk + 2 * a.rank, a.rank, p)]);
    atomicAdd(kPrivate ? &sums[keys[p]] : &target[keys[p]], addend);
  }
  if constexpr (kPrivate) {
    __syncthreads();
    for (int64_t i = threadIdx.x; i < destinations; i += blockDim.x) {
      if (sums[i] != 0) atomicAdd(&target[i], sums[i]);
    }
  }
}

template <class Key>
cudaError_t LaunchAtomicCombine(ScatterArgs& a, cudaStream_t stream) {
  auto* keys = static_cast<Key*>(a.buffers.keys[0]);
  DestinationsKernel<<<BlocksFor(a.count), kThreads, 0, stream>>>(a, keys, nullptr);
  if (const cudaError_t error = cudaGetLastError(); error != cudaSuccess) return error;
  const int64_t destinations = int64_t{1} << a.key_bits;
  auto launch = [&](auto op, auto type) {
    using T = decltype(type);
    constexpr ElementwiseOp kOp = decltype(op)::value;
    if (destinations <= kPrivateDestinations) {
      // Fewer blocks, each flushing all its bins once: enough to fill the GPU.
      AtomicCombineKernel<kOp, T, Key, true>
          <<<BlocksFor(std::min<int64_t>(a.count, 1024 * kThreads)), kThreads, 0, stream>>>(
              a, keys, destinations);
    } else {
      AtomicCombineKernel<kOp, T, Key, false>
          <<<BlocksFor(a.count), kThreads, 0, stream>>>(a, keys, destinations);
    }
    return cudaGetLastError();
  };
  auto with_op = [&](auto type) -> cudaError_t {
    if (*a.combine == ElementwiseOp::kAdd) {
      return launch(std::integral_constant<ElementwiseOp, ElementwiseOp::kAdd>{}, type);
    }
    return launch(std::integral_constant<ElementwiseOp, ElementwiseOp::kSubtract>{}, type);
  };
  switch (a.dtype) {
    case DType::kInt32:
      return with_op(int32_t{});
    case DType::kUInt32:
      return with_op(uint32_t{});
    case DType::kInt64:
      return with_op(int64_t{});
    default:
      return with_op(uint64_t{});
  }
}

template <class Item, class Key>
cudaError_t ScatterWith(ScatterArgs& a, cudaStream_t stream) {
  RadixBuffers& b = a.buffers;
  const int blocks = BlocksFor(a.count);
  DestinationsKernel<<<blocks, kThreads, 0, stream>>>(a, static_cast<Key*>(b.keys[b.key_current]),
                                                      b.values[b.value_current]);
  if (const cudaError_t error = cudaGetLastError(); error != cudaSuccess) return error;
  if (const cudaError_t error = RadixSortPairs(8 * sizeof(Key), b, a.count, a.key_bits, stream);
      error != cudaSuccess) {
    return error;
  }
  const auto* keys = static_cast<const Key*>(b.keys[b.key_current]);
  if constexpr (std::is_same_v<Key, uint64_t>) {  // LaunchScatter's only key for combining.
    if (a.combine) return LaunchCombine(a, keys, b.values[b.value_current], stream);
  }
  ScatterWriteKernel<Item><<<blocks, kThreads, 0, stream>>>(a, keys, b.values[b.value_current]);
  return cudaGetLastError();
}

// ---- Nonzero ----

// Whether the element at position p is nonzero: the input's one read (counting pass).
template <class Item>
__device__ bool IsNonzero(const NonzeroArgs& a, int64_t p) {
  const Item x = static_cast<const Item*>(a.input)[WalkOffset(a.walk, a.walk + a.rank, a.rank, p)];
  if constexpr (sizeof(Item) == 16) {
    return ((x.lo & a.mask_lo) | (x.hi & a.mask_hi)) != 0;
  } else {
    return (static_cast<uint64_t>(x) & a.mask_lo) != 0;
  }
}

template <class Item>
__global__ void __launch_bounds__(kThreads) CountNonzeroKernel(NonzeroArgs a) {
  using Reduce = cub::BlockReduce<int, kThreads>;
  __shared__ typename Reduce::TempStorage temp;
  const int64_t start = static_cast<int64_t>(blockIdx.x) * kChunk + threadIdx.x;
  int count = 0;
  for (int t = 0; t < kChunkTiles; ++t) {
    const int64_t p = start + int64_t{t} * kThreads;
    const bool nonzero = p < a.count && IsNonzero<Item>(a, p);
    count += nonzero ? 1 : 0;
    if (a.flags != nullptr) {
      // A warp's 32 positions are consecutive and start at a multiple of 32: one word.
      const unsigned word = __ballot_sync(0xffffffffu, nonzero);
      if (threadIdx.x % 32 == 0) a.flags[p / 32] = word;
    }
  }
  const int total = Reduce(temp).Sum(count);
  if (threadIdx.x == 0) {
    a.chunk_counts[blockIdx.x] = total;
    atomicAdd(a.total, static_cast<unsigned long long>(total));
  }
}

// Each chunk's nonzero elements take the ranks from its offset on, in C order: a block scan
// per tile, carried over the tiles. Reads the counting pass's flags, not the input.
__global__ void __launch_bounds__(kThreads) NonzeroKernel(NonzeroArgs a) {
  if (a.chunk_counts[blockIdx.x] == 0) return;
  using Scan = cub::BlockScan<int, kThreads>;
  __shared__ typename Scan::TempStorage temp;
  int64_t next = a.chunk_offsets[blockIdx.x];
  const int64_t start = static_cast<int64_t>(blockIdx.x) * kChunk + threadIdx.x;
  for (int t = 0; t < kChunkTiles; ++t) {
    const int64_t p = start + int64_t{t} * kThreads;
    const int flag = p < a.count ? static_cast<int>((a.flags[p / 32] >> (p % 32)) & 1u) : 0;
    int rank = 0;
    int tile_total = 0;
    Scan(temp).ExclusiveSum(flag, rank, tile_total);
    if (flag != 0 && next + rank < a.limit) {
      const int64_t r = next + rank;
      int64_t rest = p;
      for (int d = a.coordinate_rank - 1; d >= 0; --d) {
        const int64_t extent = a.shape[d];
        const int64_t outer = rest / extent;
        a.coordinates[d][r] = rest - outer * extent;
        rest = outer;
      }
    }
    next += tile_total;
    __syncthreads();  // Scan's temporary storage is reused by the next tile.
  }
}

// ---- Searchsorted ----

template <class Order>
__global__ void SearchSortedKernel(SearchSortedArgs a) {
  using Item = typename Order::Item;
  const auto* sorted = static_cast<const Item*>(a.sorted);
  const auto* values = static_cast<const Item*>(a.values);
  for (int64_t p = FirstIndex(); p < a.count; p += GridStride()) {
    const Item value = values[WalkOffset(a.walk, a.walk + a.rank, a.rank, p)];
    int64_t lo = 0;
    int64_t hi = a.sorted_count;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      const Item x = sorted[mid * a.sorted_stride];
      const bool after = a.right ? !Order::Less(value, x) : Order::Less(x, value);
      if (after) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    a.output[p] = lo;
  }
}

}  // namespace

cudaError_t LaunchGather(const GatherArgs& args, cudaStream_t stream) {
  if (args.count == 0) return cudaSuccess;
  return WithItem(args.itemsize, [&](auto item) {
    GatherKernel<typename decltype(item)::type>
        <<<BlocksFor(args.count), kThreads, 0, stream>>>(args);
    return cudaGetLastError();
  });
}

bool ScatterAtomically(const ScatterArgs& args) {
  if (args.combine != ElementwiseOp::kAdd && args.combine != ElementwiseOp::kSubtract) {
    return false;
  }
  switch (args.dtype) {
    case DType::kInt32:
    case DType::kUInt32:
    case DType::kInt64:
    case DType::kUInt64:
      return true;
    default:
      return false;
  }
}

cudaError_t LaunchScatter(ScatterArgs& args, cudaStream_t stream) {
  if (args.count == 0) return cudaSuccess;
  // A combining scatter's kernels are per dtype and op, not per item size, and take 64-bit keys
  // only, which halves their instantiations.
  if (ScatterAtomically(args)) {
    return args.key_bits <= 32 ? LaunchAtomicCombine<uint32_t>(args, stream)
                               : LaunchAtomicCombine<uint64_t>(args, stream);
  }
  if (args.combine) return ScatterWith<uint8_t, uint64_t>(args, stream);
  return WithItem(args.itemsize, [&](auto item) {
    using Item = typename decltype(item)::type;
    // 32-bit keys where the destinations fit: half the key traffic of the sort.
    return args.key_bits <= 32 ? ScatterWith<Item, uint32_t>(args, stream)
                               : ScatterWith<Item, uint64_t>(args, stream);
  });
}

int64_t NonzeroChunks(int64_t count) { return (count + kChunk - 1) / kChunk; }

// Every warp of every chunk writes its word, so the flags cover whole chunks.
int64_t NonzeroFlagWords(int64_t count) { return NonzeroChunks(count) * (kChunk / 32); }

cudaError_t NonzeroScanTempBytes(int64_t chunks, size_t* bytes) {
  int64_t* none = nullptr;
  return cub::DeviceScan::ExclusiveSum(nullptr, *bytes, none, none, chunks);
}

cudaError_t LaunchCountNonzero(const NonzeroArgs& args, cudaStream_t stream) {
  if (args.count == 0) return cudaSuccess;
  return WithItem(args.itemsize, [&](auto item) {
    CountNonzeroKernel<typename decltype(item)::type>
        <<<static_cast<unsigned>(NonzeroChunks(args.count)), kThreads, 0, stream>>>(args);
    return cudaGetLastError();
  });
}

cudaError_t LaunchNonzero(const NonzeroArgs& args, cudaStream_t stream) {
  if (args.count == 0 || args.limit == 0) return cudaSuccess;
  const int64_t chunks = NonzeroChunks(args.count);
  size_t bytes = args.scan_temp_bytes;
  if (const cudaError_t error = cub::DeviceScan::ExclusiveSum(
          args.scan_temp, bytes, args.chunk_counts, args.chunk_offsets, chunks, stream);
      error != cudaSuccess) {
    return error;
  }
  NonzeroKernel<<<static_cast<unsigned>(chunks), kThreads, 0, stream>>>(args);
  return cudaGetLastError();
}

cudaError_t LaunchSearchSorted(const SearchSortedArgs& args, cudaStream_t stream) {
  if (args.count == 0) return cudaSuccess;
  return sort_order::WithOrder(args.dtype, [&](auto order) {
    SearchSortedKernel<decltype(order)><<<BlocksFor(args.count), kThreads, 0, stream>>>(args);
    return cudaGetLastError();
  });
}

}  // namespace arrayhub
