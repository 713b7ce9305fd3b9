// Inclusive scans along rows (see scan_kernels.cuh): one cub::DeviceScan::InclusiveScanByKey
// over all rows * n elements, keyed by the row (i / n, from a counting iterator), so that any
// number and length of rows takes one launch sequence and the scan restarts at each row.
// Integers wrap: signed and unsigned types of one width share one instantiation, which adds and
// multiplies in unsigned arithmetic (two's complement makes the bits the same, and unsigned
// overflow is defined). float16 adds and multiplies in float and rounds to float16 after each
// step, as NumPy's float16 loops do; the tree order of the parallel scan rounds differently
// from NumPy's sequential loop, within the tolerance of the dtype (see indexing.h).
#include <cuda_fp16.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cub/device/device_scan.cuh>
#include <cuda/std/functional>
#include <type_traits>

#include "server/backend/cuda/element_types.cuh"
#include "server/backend/cuda/scan_kernels.cuh"

namespace arrayhub {

namespace {

// float16 as its bits, so that CUB treats it as a plain value.
struct Half {
  unsigned short bits;
};

using cuda_types::Complex;

template <class T>
struct Sum {
  __device__ T operator()(const T& a, const T& b) const {
    if constexpr (std::is_same_v<T, Half>) {
      const float sum =
          __half2float(__ushort_as_half(a.bits)) + __half2float(__ushort_as_half(b.bits));
      return {__half_as_ushort(__float2half_rn(sum))};
    } else if constexpr (std::is_same_v<T, Complex<float>> || std::is_same_v<T, Complex<double>>) {
      return {a.re + b.re, a.im + b.im};
    } else if constexpr (std::is_integral_v<T>) {
      // At least unsigned int, so that narrow types are not promoted to (signed) int.
      using Wide = std::common_type_t<T, unsigned>;
      return static_cast<T>(static_cast<Wide>(a) + static_cast<Wide>(b));
    } else {
      return a + b;
    }
  }
};

template <class T>
struct Product {
  __device__ T operator()(const T& a, const T& b) const {
    if constexpr (std::is_same_v<T, Half>) {
      const float product =
          __half2float(__ushort_as_half(a.bits)) * __half2float(__ushort_as_half(b.bits));
      return {__half_as_ushort(__float2half_rn(product))};
    } else if constexpr (std::is_same_v<T, Complex<float>> || std::is_same_v<T, Complex<double>>) {
      return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
    } else if constexpr (std::is_integral_v<T>) {
      using Wide = std::common_type_t<T, unsigned>;
      return static_cast<T>(static_cast<Wide>(a) * static_cast<Wide>(b));
    } else {
      return a * b;
    }
  }
};

struct RowOf {
  int64_t n;
  __host__ __device__ int64_t operator()(int64_t i) const { return i / n; }
};

template <class T, template <class> class Op>
cudaError_t ScanRows(void* temp, size_t& bytes, const ScanArgs& a) {
  const auto rows = thrust::make_transform_iterator(thrust::counting_iterator<int64_t>(0),
                                                    RowOf{a.n > 0 ? a.n : 1});
  T* data = static_cast<T*>(a.data);
  return cub::DeviceScan::InclusiveScanByKey(temp, bytes, rows, data, data, Op<T>{}, a.rows * a.n,
                                             cuda::std::equal_to<>{}, a.stream);
}

template <class T>
cudaError_t ScanOf(void* temp, size_t& bytes, const ScanArgs& a) {
  return a.product ? ScanRows<T, Product>(temp, bytes, a) : ScanRows<T, Sum>(temp, bytes, a);
}

// The scan (or, with temp null, its storage query) in the type that `dtype` scans in: integers
// in the unsigned integer of their size (wrapping, as NumPy's do), float16 as its bits, the
// others in their storage type (element_types.cuh).
cudaError_t Dispatch(void* temp, size_t& bytes, const ScanArgs& a) {
  return cuda_types::VisitDType(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, cuda_types::Bool>) {
      return cudaErrorInvalidValue;  // Core scans bools as int64.
    } else if constexpr (std::is_integral_v<T>) {
      return ScanOf<std::make_unsigned_t<T>>(temp, bytes, a);
    } else if constexpr (std::is_same_v<T, __half>) {
      return ScanOf<Half>(temp, bytes, a);
    } else {
      return ScanOf<T>(temp, bytes, a);
    }
  });
}

}  // namespace

cudaError_t ScanTempBytes(ScanArgs& args) {
  args.temp_bytes = 0;
  if (args.rows * args.n == 0) return cudaSuccess;
  return Dispatch(nullptr, args.temp_bytes, args);
}

cudaError_t LaunchScan(const ScanArgs& args) {
  if (args.rows * args.n == 0) return cudaSuccess;
  size_t bytes = args.temp_bytes;
  return Dispatch(args.temp, bytes, args);
}

}  // namespace arrayhub
