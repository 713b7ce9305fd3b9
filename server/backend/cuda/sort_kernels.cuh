// Host-callable launchers of the sort kernels (numpy.sort's order, stable, by LSD passes of
// CUB's radix sort over order-preserving integer keys), and the order itself as device code for
// the other kernels that compare elements (searchsorted). The launchers' part is shared by nvcc
// and the host compiler, so it keeps to the CUDA runtime API and plain types; the order's part
// is compiled by nvcc only.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "server/common/dtype.h"

namespace arrayhub {

// The double buffers of a sequence of stable radix-sort passes over (key, int64 value) pairs,
// and CUB's temporary storage. Each pass sorts the keys in keys[key_current] (which the caller
// fills) with the values in values[value_current], and leaves them sorted in the buffers these
// indices name afterwards. Every buffer holds `count` elements (8 bytes each for the keys, which
// may be 32- or 64-bit). All device memory.
struct RadixBuffers {
  void* keys[2] = {nullptr, nullptr};
  int64_t* values[2] = {nullptr, nullptr};
  int key_current = 0;
  int value_current = 0;
  void* temp = nullptr;
  size_t temp_bytes = 0;
};

// CUB temporary storage enough for RadixSortPairs over `count` pairs of either key width.
cudaError_t RadixSortTempBytes(int64_t count, size_t* bytes);

// One stable pass: sorts `count` pairs by bits [0, end_bit) of their `key_bits`-wide (32 or 64)
// keys. Nothing to do when end_bit is 0 (every key equal).
cudaError_t RadixSortPairs(int key_bits, RadixBuffers& buffers, int64_t count, int end_bit,
                           cudaStream_t stream);

// A SortCall with device pointers: `input` is C-contiguous (rows, n) of `dtype`; `values` and
// `indices` (either may be null) receive the sorted rows and the original positions in the
// row. `buffers` hold rows * n elements.
struct SortArgs {
  DType dtype = DType::kFloat64;
  const void* input = nullptr;
  int64_t rows = 0;
  int64_t n = 0;
  void* values = nullptr;
  int64_t* indices = nullptr;
  RadixBuffers buffers;
  cudaStream_t stream = nullptr;
};

// CUB temporary storage enough for LaunchSort(args) (dtype, rows, n and which outputs are set):
// that of RadixSortPairs over rows * n pairs and that of the keys-only sorts the call may take.
cudaError_t SortTempBytes(const SortArgs& args, size_t* bytes);

// Enqueues the sort and returns the first error. `buffers.temp_bytes` must be at least
// SortTempBytes(args), and buffers.values[0] at least 256 bytes (any count does: it is rounded
// up). A values-only sort of floats reads a few words back from the device before it chooses
// how to sort (see sort_kernels.cu), so it returns once that read is done.
cudaError_t LaunchSort(SortArgs& args);

}  // namespace arrayhub

#ifdef __CUDACC__
#include <type_traits>

#include "server/backend/cuda/element_types.cuh"

namespace arrayhub::sort_order {

// numpy.sort's order, as unsigned integer keys whose order is the elements' order: for each
// dtype an Order with the stored type Item, Key (the key of an element, equal keys for equal
// elements) and Less (a before b). Floats: -0.0 is 0.0 and every NaN sorts last, equal to the
// other NaNs; complex numbers by class [R + Rj, R + nanj, nan + Rj, nan + nanj], then by the
// real part, then the imaginary part (the parts of a class that are not NaN).

template <class Bits>
struct UnsignedOrder {
  using Item = Bits;
  static constexpr bool kComplex = false;
  static constexpr int kKeyBits = 8 * sizeof(Bits);
  __device__ static Bits Key(Item x) { return x; }
  __device__ static bool Less(Item a, Item b) { return Key(a) < Key(b); }
};

// Two's complement: flipping the sign bit orders negatives first.
template <class Bits>
struct SignedOrder {
  using Item = Bits;  // The unsigned type of the same width.
  static constexpr bool kComplex = false;
  static constexpr int kKeyBits = 8 * sizeof(Bits);
  __device__ static Bits Key(Item x) { return static_cast<Bits>(x ^ (Bits{1} << (kKeyBits - 1))); }
  __device__ static bool Less(Item a, Item b) { return Key(a) < Key(b); }
};

// Any nonzero byte is true.
struct BoolOrder {
  using Item = uint8_t;
  static constexpr bool kComplex = false;
  static constexpr int kKeyBits = 1;
  __device__ static uint8_t Key(Item x) { return x != 0 ? 1 : 0; }
  __device__ static bool Less(Item a, Item b) { return Key(a) < Key(b); }
};

// IEEE sign-magnitude: positives get the sign bit set, negatives are inverted, so that the keys
// rise with the values; both zeros share +0's key and every NaN takes the greatest key.
template <class Bits, Bits kInfinity>
struct FloatOrder {
  using Item = Bits;
  static constexpr bool kComplex = false;
  static constexpr int kKeyBits = 8 * sizeof(Bits);
  static constexpr Bits kSign = Bits{1} << (kKeyBits - 1);
  __device__ static bool IsNan(Item x) { return static_cast<Bits>(x & ~kSign) > kInfinity; }
  __device__ static Bits Key(Item x) {
    const Bits magnitude = static_cast<Bits>(x & ~kSign);
    if (magnitude > kInfinity) return static_cast<Bits>(~Bits{0});
    if (magnitude == 0) return kSign;
    return (x & kSign) != 0 ? static_cast<Bits>(~x) : static_cast<Bits>(x | kSign);
  }
  __device__ static bool Less(Item a, Item b) { return Key(a) < Key(b); }
};
using Float16Order = FloatOrder<uint16_t, 0x7c00>;
using Float32Order = FloatOrder<uint32_t, 0x7f800000u>;
using Float64Order = FloatOrder<uint64_t, 0x7ff0000000000000ull>;

template <class Part>
struct ComplexOrder {
  using PartOrder = Part;
  using Bits = typename Part::Item;
  struct Item {
    Bits re, im;
  };
  static constexpr bool kComplex = true;
  // 0 for R + Rj, 1 for R + nanj, 2 for nan + Rj, 3 for nan + nanj.
  __device__ static unsigned Class(const Item& x) {
    return (Part::IsNan(x.re) ? 2u : 0u) + (Part::IsNan(x.im) ? 1u : 0u);
  }
  __device__ static bool Less(const Item& a, const Item& b) {
    const unsigned class_a = Class(a);
    const unsigned class_b = Class(b);
    if (class_a != class_b) return class_a < class_b;
    const Bits re_a = Part::Key(a.re);
    const Bits re_b = Part::Key(b.re);
    if (re_a != re_b) return re_a < re_b;
    return Part::Key(a.im) < Part::Key(b.im);
  }
};

// The Order of the elements of device storage type T (element_types.cuh).
template <class T>
constexpr auto OrderOf() {
  if constexpr (std::is_same_v<T, cuda_types::Bool>) {
    return BoolOrder{};
  } else if constexpr (std::is_same_v<T, __half>) {
    return Float16Order{};
  } else if constexpr (std::is_same_v<T, float>) {
    return Float32Order{};
  } else if constexpr (std::is_same_v<T, double>) {
    return Float64Order{};
  } else if constexpr (cuda_types::kIsComplex<T>) {
    return ComplexOrder<decltype(OrderOf<decltype(T::re)>())>{};
  } else if constexpr (std::is_signed_v<T>) {
    return SignedOrder<std::make_unsigned_t<T>>{};
  } else {
    return UnsignedOrder<T>{};
  }
}

// Calls f(Order{}) with the Order of `dtype` and returns its result.
template <class F>
__host__ cudaError_t WithOrder(arrayhub::DType dtype, F&& f) {
  return cuda_types::VisitDType(
      dtype, [&](auto tag) { return f(OrderOf<typename decltype(tag)::type>()); });
}

}  // namespace arrayhub::sort_order
#endif  // __CUDACC__
