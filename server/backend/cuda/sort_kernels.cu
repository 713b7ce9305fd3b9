// Sorting in numpy.sort's order (see sort_kernels.cuh): a permutation of the positions 0..N-1
// of the C-contiguous (rows, n) input goes through stable LSD radix-sort passes, least
// significant key first, each key computed from the element the permutation currently puts
// there: for real dtypes the element's order key; for complex ones the imaginary part's key,
// then the real part's; then, when there are several rows or complex classes, a group key
// (row * 4 + class for complex, the row for real dtypes). Stability keeps the earlier passes'
// order within equal keys, so the result is sorted by (group, real, imaginary) or (row, value)
// with equal elements in their original order. The sorted values are then gathered through the
// permutation. CUB is instantiated for two key widths only (32 and 64 bits, int64 values):
// narrower keys sort as 32-bit ones over fewer bits, which costs the same number of digit
// passes, and the compile stays short.
//
// Values only (no indices) of an integer or float dtype need no permutation when equal keys
// stand for equal bits: the order keys alone are sorted (CUB's keys-only radix sort, one row at
// a time, or its segmented sort for many rows) and turned back into elements. For integers
// the key is a bijection of the element. For floats two things are not: both zeros share one
// key and every NaN shares the greatest; NumPy moves the original elements, so a run of equal
// zeros keeps the input's sequence of -0.0 and +0.0, and a run of NaNs its payloads. A first
// pass (fused with the keys) therefore records which zeros and which NaN bits occur; when the
// input has one zero pattern and one NaN pattern at most, the keys map back to exactly those
// bits; otherwise the call takes the permutation path, reusing the keys already computed.
// One float32 or float64 row sorts as CUB's own float keys, straight from the input into the
// output: CUB ranks -0.0 as +0.0 and is stable, so signed zeros stay in input order, which is
// NumPy's; its NaN order (negative NaNs first, then by bits) is NumPy's only when the NaNs
// share one pattern without the sign bit, which the first pass checks. One row of a 32- or
// 64-bit integer dtype sorts as CUB's own integer keys (no key passes). bool (any nonzero byte
// is true, so its bytes are not a function of the key) and complex dtypes keep the
// permutation path; a values-only sort of rows of one element is a copy.
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <bit>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <cub/util_type.cuh>
#include <type_traits>

#include "server/backend/cuda/sort_kernels.cuh"

namespace arrayhub {

namespace {

using namespace sort_order;

constexpr int kThreads = 256;
// Enough blocks to fill any current GPU several times over; grid-stride loops cover the rest.
constexpr int64_t kMaxBlocks = 8192;

int BlocksFor(int64_t count) {
  return static_cast<int>(std::min<int64_t>((count + kThreads - 1) / kThreads, kMaxBlocks));
}

__device__ int64_t FirstIndex() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ int64_t GridStride() { return static_cast<int64_t>(gridDim.x) * blockDim.x; }

template <class Key>
cudaError_t SortPairsOf(RadixBuffers& b, int64_t count, int end_bit, cudaStream_t stream) {
  cub::DoubleBuffer<Key> keys(static_cast<Key*>(b.keys[b.key_current]),
                              static_cast<Key*>(b.keys[1 - b.key_current]));
  cub::DoubleBuffer<int64_t> values(b.values[b.value_current], b.values[1 - b.value_current]);
  size_t bytes = b.temp_bytes;
  const cudaError_t error =
      cub::DeviceRadixSort::SortPairs(b.temp, bytes, keys, values, count, 0, end_bit, stream);
  if (keys.selector != 0) b.key_current = 1 - b.key_current;
  if (values.selector != 0) b.value_current = 1 - b.value_current;
  return error;
}

__global__ void IotaKernel(int64_t* out, int64_t count) {
  for (int64_t i = FirstIndex(); i < count; i += GridStride()) out[i] = i;
}

// keys[i] = key_of(perm[i]): the key of the element that the permutation puts at i.
template <class Key, class KeyOf>
__global__ void KeysKernel(KeyOf key_of, const int64_t* perm, Key* keys, int64_t count) {
  for (int64_t i = FirstIndex(); i < count; i += GridStride()) {
    keys[i] = static_cast<Key>(key_of(perm[i]));
  }
}

// The order key of a real element.
template <class Order>
struct ValueKey {
  const typename Order::Item* input;
  __device__ uint64_t operator()(int64_t p) const { return Order::Key(input[p]); }
};

// The order key of one part of a complex element.
template <class Order, bool kImag>
struct PartKey {
  const typename Order::Item* input;
  __device__ uint64_t operator()(int64_t p) const {
    return Order::PartOrder::Key(kImag ? input[p].im : input[p].re);
  }
};

// The row, and for complex dtypes the class within it: row * 4 + class.
template <class Order>
struct GroupKey {
  const typename Order::Item* input;
  int64_t n;
  __device__ uint64_t operator()(int64_t p) const {
    const auto row = static_cast<uint64_t>(p / n);
    if constexpr (Order::kComplex) {
      return row * 4 + Order::Class(input[p]);
    } else {
      return row;
    }
  }
};

// One pass: the keys of `key_of` (below 2^end_bit) for the current permutation, then a stable
// sort by them. Keys wider than 32 bits sort as 64-bit keys.
template <class KeyOf>
cudaError_t SortPass(SortArgs& a, int64_t count, int end_bit, KeyOf key_of) {
  if (end_bit == 0) return cudaSuccess;  // One key for every element: the order stays.
  RadixBuffers& b = a.buffers;
  const int blocks = BlocksFor(count);
  const int64_t* perm = b.values[b.value_current];
  if (end_bit <= 32) {
    KeysKernel<<<blocks, kThreads, 0, a.stream>>>(
        key_of, perm, static_cast<uint32_t*>(b.keys[b.key_current]), count);
    if (const cudaError_t error = cudaGetLastError(); error != cudaSuccess) return error;
    return SortPairsOf<uint32_t>(b, count, end_bit, a.stream);
  }
  KeysKernel<<<blocks, kThreads, 0, a.stream>>>(
      key_of, perm, static_cast<uint64_t*>(b.keys[b.key_current]), count);
  if (const cudaError_t error = cudaGetLastError(); error != cudaSuccess) return error;
  return SortPairsOf<uint64_t>(b, count, end_bit, a.stream);
}

// values[i] = input[perm[i]], indices[i] = perm[i] % n (either output may be null).
template <class Item>
__global__ void PermuteKernel(const Item* input, const int64_t* perm, int64_t n, int64_t count,
                              Item* values, int64_t* indices) {
  for (int64_t i = FirstIndex(); i < count; i += GridStride()) {
    const int64_t p = perm[i];
    if (values != nullptr) values[i] = input[p];
    if (indices != nullptr) indices[i] = p % n;
  }
}

// The permutation path. With `keys_ready`, b.keys[b.key_current] already holds the order key
// of every element (real dtypes, at the width SortPass would use).
template <class Order>
cudaError_t SortIn(SortArgs& a, int64_t count, bool keys_ready) {
  using Item = typename Order::Item;
  const auto* input = static_cast<const Item*>(a.input);
  RadixBuffers& b = a.buffers;
  IotaKernel<<<BlocksFor(count), kThreads, 0, a.stream>>>(b.values[b.value_current], count);
  if (const cudaError_t error = cudaGetLastError(); error != cudaSuccess) return error;
  if constexpr (Order::kComplex) {
    constexpr int kPartBits = Order::PartOrder::kKeyBits;
    if (const cudaError_t error = SortPass(a, count, kPartBits, PartKey<Order, true>{input});
        error != cudaSuccess) {
      return error;
    }
    if (const cudaError_t error = SortPass(a, count, kPartBits, PartKey<Order, false>{input});
        error != cudaSuccess) {
      return error;
    }
  } else if (keys_ready) {
    const cudaError_t error = Order::kKeyBits <= 32
                                  ? SortPairsOf<uint32_t>(b, count, Order::kKeyBits, a.stream)
                                  : SortPairsOf<uint64_t>(b, count, Order::kKeyBits, a.stream);
    if (error != cudaSuccess) return error;
  } else {
    if (const cudaError_t error = SortPass(a, count, Order::kKeyBits, ValueKey<Order>{input});
        error != cudaSuccess) {
      return error;
    }
  }
  const uint64_t groups = static_cast<uint64_t>(a.rows) * (Order::kComplex ? 4 : 1);
  if (const cudaError_t error =
          SortPass(a, count, std::bit_width(groups - 1), GroupKey<Order>{input, a.n});
      error != cudaSuccess) {
    return error;
  }
  PermuteKernel<<<BlocksFor(count), kThreads, 0, a.stream>>>(
      input, b.values[b.value_current], a.n, count, static_cast<Item*>(a.values), a.indices);
  return cudaGetLastError();
}

// ---- Values only: keys-only sorts ----

template <class Order>
struct IsFloatOrder : std::false_type {};
template <class Bits, Bits kInfinity>
struct IsFloatOrder<FloatOrder<Bits, kInfinity>> : std::true_type {};

template <class Order>
struct IsSignedOrder : std::false_type {};
template <class Bits>
struct IsSignedOrder<SignedOrder<Bits>> : std::true_type {};

// The dtypes whose elements are a function of their order key, up to the zeros and NaNs of
// floats: integers and floats.
template <class Order>
constexpr bool kKeysOnlyOrder = !Order::kComplex && !std::is_same_v<Order, BoolOrder>;

// The type a keys-only sort moves for Order: its keys, 32 or 64 bits wide.
template <class Order>
using KeyWord = std::conditional_t<Order::kKeyBits <= 32, uint32_t, uint64_t>;

// The type CUB sorts one row of Order as, straight from the input: float and double (CUB's
// float order, -0.0 ranked as +0.0), the 32- and 64-bit integers (CUB's signed order is two's
// complement's, and integers are bijective with their keys); void for the others.
template <class Order>
using NativeType = std::conditional_t<
    std::is_same_v<Order, Float32Order>, float,
    std::conditional_t<
        std::is_same_v<Order, Float64Order>, double,
        std::conditional_t<
            std::is_same_v<Order, UnsignedOrder<uint32_t>> ||
                std::is_same_v<Order, UnsignedOrder<uint64_t>>,
            typename Order::Item,
            std::conditional_t<
                std::is_same_v<Order, SignedOrder<uint32_t>>, int32_t,
                std::conditional_t<std::is_same_v<Order, SignedOrder<uint64_t>>, int64_t, void>>>>>;

enum class KeysPlan {
  kNone,       // Indices wanted, or a dtype of the permutation path only.
  kCopy,       // Rows of one element: the input is its own sort.
  kOneSort,    // One row: one radix sort.
  kRowByRow,   // Few long rows: one radix sort per row, each filling the GPU.
  kSegmented,  // Many rows: CUB's segmented sort.
};

// One radix sort per row when each row is at least this many times the row count: below it
// the rows are too short for a device-wide sort each (whose cost is then its launches), and
// the segmented sort, which gives each large row one block, has enough rows to fill the GPU.
constexpr int64_t kRowByRowPerRow = int64_t{1} << 14;

KeysPlan PlanKeysOnly(const SortArgs& a) {
  if (a.values == nullptr || a.indices != nullptr) return KeysPlan::kNone;
  if (a.n == 1) return KeysPlan::kCopy;
  switch (a.dtype) {
    case DType::kBool:
    case DType::kComplex64:
    case DType::kComplex128:
      return KeysPlan::kNone;
    default:
      break;
  }
  if (a.rows == 1) return KeysPlan::kOneSort;
  if (a.n / a.rows >= kRowByRowPerRow) return KeysPlan::kRowByRow;
  return KeysPlan::kSegmented;
}

struct RowStart {
  int64_t n;
  __host__ __device__ int64_t operator()(int64_t row) const { return row * n; }
};

auto RowStarts(int64_t n) {
  return thrust::make_transform_iterator(thrust::counting_iterator<int64_t>(0), RowStart{n});
}

// The words a values-only float sort's first pass leaves (zeroed before it): which zeros occur
// (kPositiveZero | kNegativeZero), the OR of the NaNs' bits and the OR of their complements.
// The NaNs share one pattern exactly when the two ORs share no bit (NaN bits are never 0).
enum FlagWord { kZeroSigns, kNanOr, kNanNotOr, kFlagWords };
constexpr unsigned long long kPositiveZero = 1;
constexpr unsigned long long kNegativeZero = 2;

__device__ unsigned long long WarpOr(unsigned long long x) {
  for (int offset = 16; offset > 0; offset /= 2) x |= __shfl_xor_sync(0xffffffffu, x, offset);
  return x;
}

// *word |= bits. OR only adds bits, so a word that already shows them all needs no atomic (a
// stale read costs one atomic more, never a lost bit).
__device__ void OrInto(unsigned long long* word, unsigned long long bits) {
  const unsigned long long seen = *const_cast<volatile unsigned long long*>(word);
  if ((seen | bits) != seen) atomicOr(word, bits);
}

// keys[i] = Order::Key(input[i]) (unless keys is null) and, for floats with `flags`, the flag
// words of the elements (one atomic per word and block at most).
template <class Order, class Key>
__global__ void __launch_bounds__(kThreads)
    ValueKeysKernel(const typename Order::Item* input, Key* keys, int64_t count,
                    unsigned long long* flags) {
  using Bits = typename Order::Item;
  unsigned long long words[kFlagWords] = {0, 0, 0};
  for (int64_t i = FirstIndex(); i < count; i += GridStride()) {
    const Bits x = input[i];
    if (keys != nullptr) keys[i] = static_cast<Key>(Order::Key(x));
    if constexpr (IsFloatOrder<Order>::value) {
      if (Order::IsNan(x)) {
        words[kNanOr] |= x;
        words[kNanNotOr] |= static_cast<Bits>(~x);
      } else if (static_cast<Bits>(x & ~Order::kSign) == 0) {
        words[kZeroSigns] |= x == 0 ? kPositiveZero : kNegativeZero;
      }
    }
  }
  if constexpr (IsFloatOrder<Order>::value) {
    if (flags == nullptr) return;  // The same for the whole grid.
    __shared__ unsigned long long partial[kThreads / 32][kFlagWords];
    for (int w = 0; w < kFlagWords; ++w) {
      const unsigned long long x = WarpOr(words[w]);
      if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32][w] = x;
    }
    __syncthreads();
    if (threadIdx.x < kFlagWords) {
      unsigned long long x = 0;
      for (int warp = 0; warp < kThreads / 32; ++warp) x |= partial[warp][threadIdx.x];
      if (x != 0) OrInto(&flags[threadIdx.x], x);
    }
  }
}

// The element of an order key: the inverse of Order::Key, with `zero` and `nan` the bits that
// a float's zero key and NaN key stand for.
template <class Order>
struct FromKey {
  using Item = typename Order::Item;
  Item zero = 0;
  Item nan = 0;
  __device__ Item operator()(uint64_t wide) const {
    const auto key = static_cast<Item>(wide);
    if constexpr (IsFloatOrder<Order>::value) {
      constexpr Item kSign = Order::kSign;
      if (key == static_cast<Item>(~Item{0})) return nan;
      if (key == kSign) return zero;
      return (key & kSign) != 0 ? static_cast<Item>(key & ~kSign) : static_cast<Item>(~key);
    } else if constexpr (IsSignedOrder<Order>::value) {
      return static_cast<Item>(key ^ (Item{1} << (Order::kKeyBits - 1)));
    } else {
      return key;
    }
  }
};

template <class Order, class Key>
__global__ void FromKeysKernel(const Key* keys, typename Order::Item* values, int64_t count,
                               FromKey<Order> from_key) {
  for (int64_t i = FirstIndex(); i < count; i += GridStride()) values[i] = from_key(keys[i]);
}

// One row of the input sorted by CUB as T, into the output.
template <class T>
cudaError_t SortNative(SortArgs& a, int64_t count) {
  size_t bytes = a.buffers.temp_bytes;
  return cub::DeviceRadixSort::SortKeys(a.buffers.temp, bytes, static_cast<const T*>(a.input),
                                        static_cast<T*>(a.values), count, 0,
                                        static_cast<int>(8 * sizeof(T)), a.stream);
}

// Sorts the order keys in b.keys[b.key_current] as `plan` says and writes their elements.
template <class Order>
cudaError_t SortKeysAndRestore(SortArgs& a, int64_t count, KeysPlan plan, FromKey<Order> from_key) {
  using Key = KeyWord<Order>;
  using Item = typename Order::Item;
  RadixBuffers& b = a.buffers;
  auto* values = static_cast<Item*>(a.values);
  cub::DoubleBuffer<Key> keys(static_cast<Key*>(b.keys[b.key_current]),
                              static_cast<Key*>(b.keys[1 - b.key_current]));
  size_t bytes = b.temp_bytes;
  if (plan == KeysPlan::kRowByRow) {
    for (int64_t row = 0; row < a.rows; ++row) {
      const int64_t at = row * a.n;
      cub::DoubleBuffer<Key> row_keys(keys.Current() + at, keys.Alternate() + at);
      bytes = b.temp_bytes;
      if (const cudaError_t error = cub::DeviceRadixSort::SortKeys(b.temp, bytes, row_keys, a.n, 0,
                                                                   Order::kKeyBits, a.stream);
          error != cudaSuccess) {
        return error;
      }
      FromKeysKernel<<<BlocksFor(a.n), kThreads, 0, a.stream>>>(row_keys.Current(), values + at,
                                                                a.n, from_key);
      if (const cudaError_t error = cudaGetLastError(); error != cudaSuccess) return error;
    }
    return cudaSuccess;
  }
  if (plan == KeysPlan::kSegmented) {
    // Unstable, which no one can see: equal keys stand for equal elements here.
    const auto starts = RowStarts(a.n);
    if (const cudaError_t error = cub::DeviceSegmentedSort::SortKeys(
            b.temp, bytes, keys, count, a.rows, starts, starts + 1, a.stream);
        error != cudaSuccess) {
      return error;
    }
  } else {
    if (const cudaError_t error = cub::DeviceRadixSort::SortKeys(b.temp, bytes, keys, count, 0,
                                                                 Order::kKeyBits, a.stream);
        error != cudaSuccess) {
      return error;
    }
  }
  FromKeysKernel<<<BlocksFor(count), kThreads, 0, a.stream>>>(keys.Current(), values, count,
                                                              from_key);
  return cudaGetLastError();
}

// A values-only sort of an integer or float dtype (plan kOneSort, kRowByRow or kSegmented).
template <class Order>
cudaError_t SortValues(SortArgs& a, int64_t count, KeysPlan plan) {
  using Item = typename Order::Item;
  using Key = KeyWord<Order>;
  using Native = NativeType<Order>;
  const auto* input = static_cast<const Item*>(a.input);
  RadixBuffers& b = a.buffers;
  auto* keys = static_cast<Key*>(b.keys[b.key_current]);
  const int blocks = BlocksFor(count);
  FromKey<Order> from_key;
  if constexpr (IsFloatOrder<Order>::value) {
    // One row of float32 or float64 may sort natively, which needs no keys: the first pass
    // only reads. The flags lie in b.values[0], which this path does not use otherwise and the
    // permutation path only fills after they are read.
    const bool native = !std::is_void_v<Native> && plan == KeysPlan::kOneSort;
    auto* flags = reinterpret_cast<unsigned long long*>(b.values[0]);
    unsigned long long seen[kFlagWords] = {};
    if (const cudaError_t error = cudaMemsetAsync(flags, 0, sizeof seen, a.stream);
        error != cudaSuccess) {
      return error;
    }
    ValueKeysKernel<Order, Key>
        <<<blocks, kThreads, 0, a.stream>>>(input, native ? nullptr : keys, count, flags);
    if (const cudaError_t error = cudaGetLastError(); error != cudaSuccess) return error;
    if (const cudaError_t error =
            cudaMemcpyAsync(seen, flags, sizeof seen, cudaMemcpyDeviceToHost, a.stream);
        error != cudaSuccess) {
      return error;
    }
    if (const cudaError_t error = cudaStreamSynchronize(a.stream); error != cudaSuccess) {
      return error;
    }
    const bool one_nan = (seen[kNanOr] & seen[kNanNotOr]) == 0;  // Also when there is none.
    if constexpr (!std::is_void_v<Native>) {
      // CUB puts NaNs with the sign bit first; the others last, in the order of their bits.
      if (native && one_nan && (seen[kNanOr] & Order::kSign) == 0) {
        return SortNative<Native>(a, count);
      }
    }
    if (!one_nan || seen[kZeroSigns] == (kPositiveZero | kNegativeZero)) {
      return SortIn<Order>(a, count, !native);
    }
    if (native) {
      ValueKeysKernel<Order, Key><<<blocks, kThreads, 0, a.stream>>>(input, keys, count, nullptr);
      if (const cudaError_t error = cudaGetLastError(); error != cudaSuccess) return error;
    }
    from_key.zero = (seen[kZeroSigns] & kNegativeZero) != 0 ? Order::kSign : Item{0};
    from_key.nan = static_cast<Item>(seen[kNanOr]);
  } else {
    if constexpr (!std::is_void_v<Native>) {
      if (plan == KeysPlan::kOneSort) return SortNative<Native>(a, count);
    }
    ValueKeysKernel<Order, Key><<<blocks, kThreads, 0, a.stream>>>(input, keys, count, nullptr);
    if (const cudaError_t error = cudaGetLastError(); error != cudaSuccess) return error;
  }
  return SortKeysAndRestore<Order>(a, count, plan, from_key);
}

// CUB's temporary storage for the keys-only sorts SortValues<Order> may run under `plan`.
template <class Order>
cudaError_t KeysOnlyTempBytes(KeysPlan plan, int64_t rows, int64_t n, size_t* bytes) {
  using Key = KeyWord<Order>;
  using Native = NativeType<Order>;
  *bytes = 0;
  cub::DoubleBuffer<Key> keys(nullptr, nullptr);
  if (plan == KeysPlan::kSegmented) {
    const auto starts = RowStarts(n);
    return cub::DeviceSegmentedSort::SortKeys(nullptr, *bytes, keys, rows * n, rows, starts,
                                              starts + 1);
  }
  if (const cudaError_t error =
          cub::DeviceRadixSort::SortKeys(nullptr, *bytes, keys, n, 0, 8 * int{sizeof(Key)});
      error != cudaSuccess) {
    return error;
  }
  if constexpr (!std::is_void_v<Native>) {
    if (plan == KeysPlan::kOneSort) {
      size_t native = 0;
      if (const cudaError_t error = cub::DeviceRadixSort::SortKeys(
              nullptr, native, static_cast<const Native*>(nullptr), static_cast<Native*>(nullptr),
              n, 0, 8 * int{sizeof(Native)});
          error != cudaSuccess) {
        return error;
      }
      *bytes = std::max(*bytes, native);
    }
  }
  return cudaSuccess;
}

}  // namespace

cudaError_t RadixSortTempBytes(int64_t count, size_t* bytes) {
  size_t bytes32 = 0;
  size_t bytes64 = 0;
  cub::DoubleBuffer<uint32_t> keys32(nullptr, nullptr);
  cub::DoubleBuffer<uint64_t> keys64(nullptr, nullptr);
  cub::DoubleBuffer<int64_t> values(nullptr, nullptr);
  if (const cudaError_t error =
          cub::DeviceRadixSort::SortPairs(nullptr, bytes32, keys32, values, count, 0, 32);
      error != cudaSuccess) {
    return error;
  }
  if (const cudaError_t error =
          cub::DeviceRadixSort::SortPairs(nullptr, bytes64, keys64, values, count, 0, 64);
      error != cudaSuccess) {
    return error;
  }
  *bytes = std::max(bytes32, bytes64);
  return cudaSuccess;
}

cudaError_t RadixSortPairs(int key_bits, RadixBuffers& buffers, int64_t count, int end_bit,
                           cudaStream_t stream) {
  if (end_bit == 0 || count == 0) return cudaSuccess;
  return key_bits == 32 ? SortPairsOf<uint32_t>(buffers, count, end_bit, stream)
                        : SortPairsOf<uint64_t>(buffers, count, end_bit, stream);
}

cudaError_t SortTempBytes(const SortArgs& a, size_t* bytes) {
  const int64_t count = a.rows * a.n;
  if (const cudaError_t error = RadixSortTempBytes(count, bytes); error != cudaSuccess) {
    return error;
  }
  if (count == 0) return cudaSuccess;
  const KeysPlan plan = PlanKeysOnly(a);
  if (plan == KeysPlan::kNone || plan == KeysPlan::kCopy) return cudaSuccess;
  return WithOrder(a.dtype, [&](auto order) -> cudaError_t {
    using Order = decltype(order);
    if constexpr (kKeysOnlyOrder<Order>) {
      size_t keys_only = 0;
      if (const cudaError_t error = KeysOnlyTempBytes<Order>(plan, a.rows, a.n, &keys_only);
          error != cudaSuccess) {
        return error;
      }
      *bytes = std::max(*bytes, keys_only);
    }
    return cudaSuccess;
  });
}

cudaError_t LaunchSort(SortArgs& a) {
  const int64_t count = a.rows * a.n;
  if (count == 0) return cudaSuccess;
  const KeysPlan plan = PlanKeysOnly(a);
  return WithOrder(a.dtype, [&](auto order) -> cudaError_t {
    using Order = decltype(order);
    if (plan == KeysPlan::kCopy) {
      return cudaMemcpyAsync(a.values, a.input, count * sizeof(typename Order::Item),
                             cudaMemcpyDeviceToDevice, a.stream);
    }
    if constexpr (kKeysOnlyOrder<Order>) {
      if (plan != KeysPlan::kNone) return SortValues<Order>(a, count, plan);
    }
    return SortIn<Order>(a, count, false);
  });
}

}  // namespace arrayhub
