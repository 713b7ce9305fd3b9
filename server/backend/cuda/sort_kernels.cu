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
#include <algorithm>
#include <bit>
#include <cub/device/device_radix_sort.cuh>
#include <cub/util_type.cuh>

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

template <class Order>
cudaError_t SortIn(SortArgs& a, int64_t count) {
  using Item = typename Order::Item;
  const auto* input = static_cast<const Item*>(a.input);
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
      input, a.buffers.values[a.buffers.value_current], a.n, count, static_cast<Item*>(a.values),
      a.indices);
  return cudaGetLastError();
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

cudaError_t LaunchSort(SortArgs& a) {
  const int64_t count = a.rows * a.n;
  if (count == 0) return cudaSuccess;
  IotaKernel<<<BlocksFor(count), kThreads, 0, a.stream>>>(a.buffers.values[a.buffers.value_current],
                                                          count);
  if (const cudaError_t error = cudaGetLastError(); error != cudaSuccess) return error;
  return WithOrder(a.dtype, [&](auto order) { return SortIn<decltype(order)>(a, count); });
}

}  // namespace arrayhub
