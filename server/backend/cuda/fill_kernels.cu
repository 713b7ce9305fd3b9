#include <cuda_fp16.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <type_traits>

#include "server/backend/cuda/fill_kernels.cuh"
#include "server/backend/cuda/grid_stride.cuh"
#include "server/common/dtype_visit.h"

namespace arrayhub {

namespace {

using grid_stride::BlocksFor;
using grid_stride::FirstIndex;
using grid_stride::GridStride;
using grid_stride::kThreadsPerBlock;

// ---- Pattern fill ----

// One store of the whole pattern per element: T is a 1-, 2-, 4-, 8- or 16-byte type.
template <typename T>
__global__ void FillPatternTypedKernel(T* out, int64_t count, int64_t stride, T value) {
  for (int64_t i = FirstIndex(); i < count; i += GridStride()) out[i * stride] = value;
}

struct PatternBytes {
  unsigned char bytes[16];
};

// Any size and alignment. One thread per byte, so that neighbouring threads write
// neighbouring bytes.
__global__ void FillPatternBytesKernel(unsigned char* out, int64_t count, int64_t stride,
                                       int64_t size, PatternBytes pattern) {
  const int64_t total = count * size;
  for (int64_t j = FirstIndex(); j < total; j += GridStride()) {
    out[j / size * stride + j % size] = pattern.bytes[j % size];
  }
}

template <typename T>
cudaError_t LaunchTypedPattern(std::byte* base, int64_t count, int64_t stride_bytes,
                               const std::byte* pattern, cudaStream_t stream) {
  T value;
  std::memcpy(&value, pattern, sizeof(T));
  FillPatternTypedKernel<<<BlocksFor(count), kThreadsPerBlock, 0, stream>>>(
      reinterpret_cast<T*>(base), count, stride_bytes / static_cast<int64_t>(sizeof(T)), value);
  return cudaGetLastError();
}

// ---- Affine fill ----
//
// Every multiply and add below is an explicit round-to-nearest intrinsic: nvcc would otherwise
// contract a * b + c into a fused multiply-add, which rounds once instead of twice and so
// differs from the host's results.

// start + i * step in float arithmetic.
__device__ float AffineFloat(int64_t i, float start, float step) {
  return __fadd_rn(start, __fmul_rn(__ll2float_rn(i), step));
}

// i * step + start in double arithmetic.
__device__ double AffineDouble(int64_t i, double start, double step) {
  return __dadd_rn(__dmul_rn(__ll2double_rn(i), step), start);
}

// A float64 value rounded to T, as HostBackend's FillFromDouble does it.
template <typename T>
__device__ T FromDouble(double v) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(floor(v));
  } else if constexpr (std::is_same_v<T, __half>) {
    return __double2half(v);  // Rounds once, to nearest even, like the host's HalfFromDouble.
  } else if constexpr (std::is_same_v<T, float>) {
    return __double2float_rn(v);
  } else {
    return v;
  }
}

// Integer arange: wrapping uint64 arithmetic, truncated to T.
template <typename T>
struct IntegerArange {
  using Value = T;
  uint64_t start;
  uint64_t step;
  __device__ T operator()(int64_t i) const {
    return static_cast<T>(start + static_cast<uint64_t>(i) * step);
  }
};

// float16 and float32 arange: float arithmetic, as NumPy's HALF_fill and FLOAT_fill.
template <typename T>
struct FloatArange {
  using Value = T;
  float start;
  float step;
  __device__ T operator()(int64_t i) const {
    const float v = AffineFloat(i, start, step);
    if constexpr (std::is_same_v<T, __half>) {
      return __float2half_rn(v);
    } else {
      return v;
    }
  }
};

// Linspace of any real dtype (and float64 arange, whose arithmetic is the same).
template <typename T>
struct Linspace {
  using Value = T;
  double start;
  double step;
  __device__ T operator()(int64_t i) const { return FromDouble<T>(AffineDouble(i, start, step)); }
};

// complex64 arange: std::complex<float> start + float(i) * step, which multiplies each
// component by the real index (no cross terms) and adds componentwise.
struct Complex64Arange {
  using Value = float2;
  float2 start;
  float2 step;
  __device__ float2 operator()(int64_t i) const {
    return make_float2(AffineFloat(i, start.x, step.x), AffineFloat(i, start.y, step.y));
  }
};

// Complex linspace (and complex128 arange): componentwise in double, then rounded to V's
// component type.
template <typename V>
struct ComplexLinspace {
  using Value = V;
  double2 start;
  double2 step;
  __device__ V operator()(int64_t i) const {
    using Component = decltype(V::x);
    return V{FromDouble<Component>(AffineDouble(i, start.x, step.x)),
             FromDouble<Component>(AffineDouble(i, start.y, step.y))};
  }
};

// bool linspace: True where either part of i * step + start is nonzero (complex -> bool cast).
struct BoolLinspace {
  using Value = bool;
  double2 start;
  double2 step;
  __device__ bool operator()(int64_t i) const {
    return AffineDouble(i, start.x, step.x) != 0.0 || AffineDouble(i, start.y, step.y) != 0.0;
  }
};

template <typename Op>
__global__ void FillAffineKernel(typename Op::Value* out, int64_t count, Op op) {
  for (int64_t i = FirstIndex(); i < count; i += GridStride()) out[i] = op(i);
}

template <typename Op>
cudaError_t LaunchAffine(void* out, int64_t count, Op op, cudaStream_t stream) {
  FillAffineKernel<<<BlocksFor(count), kThreadsPerBlock, 0, stream>>>(
      static_cast<typename Op::Value*>(out), count, op);
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchInteger(void* out, const AffineFillArgs& a, cudaStream_t stream) {
  if (a.float64_math) {
    return LaunchAffine(out, a.count, Linspace<T>{a.start_real, a.step_real}, stream);
  }
  return LaunchAffine(
      out, a.count,
      IntegerArange<T>{static_cast<uint64_t>(a.int_start), static_cast<uint64_t>(a.int_step)},
      stream);
}

template <typename T>
cudaError_t LaunchFloat(void* out, const AffineFillArgs& a, cudaStream_t stream) {
  if (a.float64_math) {
    return LaunchAffine(out, a.count, Linspace<T>{a.start_real, a.step_real}, stream);
  }
  return LaunchAffine(
      out, a.count,
      FloatArange<T>{static_cast<float>(a.start_real), static_cast<float>(a.step_real)}, stream);
}

}  // namespace

cudaError_t LaunchFillPattern(std::byte* base, int64_t count, int64_t stride_bytes,
                              const std::byte* pattern, int64_t pattern_size, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  const int64_t size = pattern_size;
  const bool one_byte_value =
      std::all_of(pattern, pattern + size, [&](std::byte b) { return b == pattern[0]; });
  if (one_byte_value && stride_bytes == size) {
    return cudaMemsetAsync(base, std::to_integer<int>(pattern[0]),
                           static_cast<size_t>(count * size), stream);
  }
  // A pattern of one word's size (1, 2, 4, 8 or 16 bytes), aligned, is stored a word at a time.
  const bool word = std::has_single_bit(static_cast<uint64_t>(size)) && size <= 16;
  if (word && reinterpret_cast<uintptr_t>(base) % size == 0 && stride_bytes % size == 0) {
    return VisitWordOfSize<uint4>(size, [&](auto tag) {
      return LaunchTypedPattern<typename decltype(tag)::type>(base, count, stride_bytes, pattern,
                                                              stream);
    });
  }
  PatternBytes bytes{};
  std::memcpy(bytes.bytes, pattern, static_cast<size_t>(size));
  FillPatternBytesKernel<<<BlocksFor(count * size), kThreadsPerBlock, 0, stream>>>(
      reinterpret_cast<unsigned char*>(base), count, stride_bytes, size, bytes);
  return cudaGetLastError();
}

cudaError_t LaunchFillAffine(void* out, const AffineFillArgs& a, cudaStream_t stream) {
  if (a.count == 0) return cudaSuccess;
  switch (a.dtype) {
    case DType::kBool:  // Only ever linspace (core rejects arange for bool), as on the host.
      return LaunchAffine(out, a.count,
                          BoolLinspace{make_double2(a.start_real, a.start_imag),
                                       make_double2(a.step_real, a.step_imag)},
                          stream);
    case DType::kInt8:
      return LaunchInteger<int8_t>(out, a, stream);
    case DType::kInt16:
      return LaunchInteger<int16_t>(out, a, stream);
    case DType::kInt32:
      return LaunchInteger<int32_t>(out, a, stream);
    case DType::kInt64:
      return LaunchInteger<int64_t>(out, a, stream);
    case DType::kUInt8:
      return LaunchInteger<uint8_t>(out, a, stream);
    case DType::kUInt16:
      return LaunchInteger<uint16_t>(out, a, stream);
    case DType::kUInt32:
      return LaunchInteger<uint32_t>(out, a, stream);
    case DType::kUInt64:
      return LaunchInteger<uint64_t>(out, a, stream);
    case DType::kFloat16:
      return LaunchFloat<__half>(out, a, stream);
    case DType::kFloat32:
      return LaunchFloat<float>(out, a, stream);
    case DType::kFloat64:
      return LaunchAffine(out, a.count, Linspace<double>{a.start_real, a.step_real}, stream);
    case DType::kComplex64:
      if (a.float64_math) {
        return LaunchAffine(out, a.count,
                            ComplexLinspace<float2>{make_double2(a.start_real, a.start_imag),
                                                    make_double2(a.step_real, a.step_imag)},
                            stream);
      }
      return LaunchAffine(
          out, a.count,
          Complex64Arange{
              make_float2(static_cast<float>(a.start_real), static_cast<float>(a.start_imag)),
              make_float2(static_cast<float>(a.step_real), static_cast<float>(a.step_imag))},
          stream);
    case DType::kComplex128:
      return LaunchAffine(out, a.count,
                          ComplexLinspace<double2>{make_double2(a.start_real, a.start_imag),
                                                   make_double2(a.step_real, a.step_imag)},
                          stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace arrayhub
