#include <algorithm>
#include <cstdint>
#include <cuda/std/complex>
#include <type_traits>

#include "server/backend/cuda/grid_stride.cuh"
#include "server/backend/cuda/linalg_kernels.cuh"

namespace arrayhub {

namespace {

using grid_stride::BlocksFor;
using grid_stride::FirstIndex;
using grid_stride::GridStride;
using grid_stride::kThreadsPerBlock;

// ---- Copies between layouts ----

// Elements are moved as raw bits of their size; conjugation flips the sign bit of the
// imaginary part, which is the upper half of a complex value.
struct alignas(16) Bits128 {
  uint64_t low;
  uint64_t high;
};

template <typename E>
__device__ E Conjugated(E value) {
  if constexpr (std::is_same_v<E, uint64_t>) {
    return value ^ (uint64_t{1} << 63);  // complex64: the imaginary float is bits 32..63.
  } else if constexpr (std::is_same_v<E, Bits128>) {
    value.high ^= uint64_t{1} << 63;  // complex128: the imaginary double is the high word.
    return value;
  } else {
    return value;  // Real dtypes have nothing to conjugate.
  }
}

__device__ bool Kept(Keep keep, int64_t i, int64_t j) {
  switch (keep) {
    case Keep::kAll:
      return true;
    case Keep::kUpper:
      return j >= i;
    case Keep::kLower:
      return j <= i;
    case Keep::kNone:
      return false;
  }
  return false;
}

constexpr int kTile = 32;
constexpr int kTileRows = 8;

// One block moves a 32 x 32 tile through shared memory, so that both the reads and the writes
// run along whichever axis has the smaller stride on their side (a transposing copy stays
// coalesced). *_along_rows: consecutive lanes take consecutive i.
template <typename E>
__global__ void CopyMatricesKernel(bool conjugate, Keep keep, int64_t count, int64_t rows,
                                   int64_t cols, int64_t tiles_across, MatrixLayout src,
                                   bool src_along_rows, MatrixLayout dst, bool dst_along_rows) {
  __shared__ E tile[kTile][kTile + 1];
  const int64_t i0 = static_cast<int64_t>(blockIdx.x / tiles_across) * kTile;
  const int64_t j0 = static_cast<int64_t>(blockIdx.x % tiles_across) * kTile;
  for (int64_t b = blockIdx.y; b < count; b += gridDim.y) {
    const E* in = static_cast<const E*>(src.base) + src.OffsetOf(b);
    E* out = static_cast<E*>(dst.base) + dst.OffsetOf(b);
    if (keep != Keep::kNone) {
      for (int k = threadIdx.y; k < kTile; k += kTileRows) {
        const int li = src_along_rows ? threadIdx.x : k;
        const int lj = src_along_rows ? k : threadIdx.x;
        const int64_t i = i0 + li;
        const int64_t j = j0 + lj;
        if (i < rows && j < cols) tile[li][lj] = in[i * src.row_stride + j * src.col_stride];
      }
    }
    __syncthreads();
    for (int k = threadIdx.y; k < kTile; k += kTileRows) {
      const int li = dst_along_rows ? threadIdx.x : k;
      const int lj = dst_along_rows ? k : threadIdx.x;
      const int64_t i = i0 + li;
      const int64_t j = j0 + lj;
      if (i < rows && j < cols) {
        E value{};
        if (Kept(keep, i, j)) value = conjugate ? Conjugated(tile[li][lj]) : tile[li][lj];
        out[i * dst.row_stride + j * dst.col_stride] = value;
      }
    }
    __syncthreads();  // The tile is reused for the next matrix.
  }
}

int64_t Magnitude(int64_t x) { return x < 0 ? -x : x; }

template <typename E>
cudaError_t CopyMatricesAs(bool conjugate, Keep keep, int64_t count, int64_t rows, int64_t cols,
                           const MatrixLayout& src, const MatrixLayout& dst, cudaStream_t stream) {
  const int64_t tiles_down = (rows + kTile - 1) / kTile;
  const int64_t tiles_across = (cols + kTile - 1) / kTile;
  const dim3 grid(static_cast<unsigned>(tiles_down * tiles_across),
                  static_cast<unsigned>(std::min<int64_t>(count, 65535)));
  const bool src_along_rows = Magnitude(src.row_stride) <= Magnitude(src.col_stride);
  const bool dst_along_rows = Magnitude(dst.row_stride) <= Magnitude(dst.col_stride);
  CopyMatricesKernel<E><<<grid, dim3(kTile, kTileRows), 0, stream>>>(
      conjugate, keep, count, rows, cols, tiles_across, src, src_along_rows, dst, dst_along_rows);
  return cudaGetLastError();
}

// ---- Identity fills and precision changes ----

template <typename T>
__global__ void FillIdentityKernel(int64_t count, int64_t rows, int64_t cols, T* out) {
  const int64_t total = count * rows * cols;
  for (int64_t index = FirstIndex(); index < total; index += GridStride()) {
    const int64_t i = index % rows;
    const int64_t j = index / rows % cols;
    out[index] = T(i == j ? 1 : 0);
  }
}

template <typename T>
cudaError_t FillIdentityAs(int64_t count, int64_t rows, int64_t cols, void* out,
                           cudaStream_t stream) {
  FillIdentityKernel<T><<<BlocksFor(count * rows * cols), kThreadsPerBlock, 0, stream>>>(
      count, rows, cols, static_cast<T*>(out));
  return cudaGetLastError();
}

template <typename From, typename To>
__global__ void ConvertKernel(const From* in, To* out, int64_t count) {
  for (int64_t i = FirstIndex(); i < count; i += GridStride()) out[i] = static_cast<To>(in[i]);
}

// ---- Integer products ----

// Wrapping arithmetic: every product and sum is taken modulo 2^64 and truncated to T at the
// end, which is the same modulo 2^bits(T) as NumPy's wrapping loop.
template <typename T>
__device__ uint64_t Widened(T value) {
  if constexpr (std::is_signed_v<T>) {
    return static_cast<uint64_t>(static_cast<int64_t>(value));
  } else {
    return static_cast<uint64_t>(value);
  }
}

template <typename T, bool kLogical>
__global__ void IntegerMatmulKernel(int64_t count, int64_t m, int64_t n, int64_t k, MatrixLayout a,
                                    MatrixLayout b, MatrixLayout out) {
  const int64_t total = count * m * n;
  for (int64_t index = FirstIndex(); index < total; index += GridStride()) {
    const int64_t j = index % n;
    const int64_t i = index / n % m;
    const int64_t batch = index / (m * n);
    const T* row = static_cast<const T*>(a.base) + a.OffsetOf(batch) + i * a.row_stride;
    const T* column = static_cast<const T*>(b.base) + b.OffsetOf(batch) + j * b.col_stride;
    uint64_t sum = 0;
    for (int64_t l = 0; l < k; ++l) {
      const T x = row[l * a.col_stride];
      const T y = column[l * b.row_stride];
      if constexpr (kLogical) {
        sum |= (x != 0 && y != 0) ? 1 : 0;
      } else {
        sum += Widened(x) * Widened(y);
      }
    }
    static_cast<T*>(out.base)[out.OffsetOf(batch) + i * out.row_stride + j * out.col_stride] =
        static_cast<T>(sum);
  }
}

template <typename T, bool kLogical = false>
cudaError_t IntegerMatmulAs(int64_t count, int64_t m, int64_t n, int64_t k, const MatrixLayout& a,
                            const MatrixLayout& b, const MatrixLayout& out, cudaStream_t stream) {
  IntegerMatmulKernel<T, kLogical>
      <<<BlocksFor(count * m * n), kThreadsPerBlock, 0, stream>>>(count, m, n, k, a, b, out);
  return cudaGetLastError();
}

// ---- slogdet ----

template <typename T>
struct RealOf {
  using Type = T;
};
template <typename R>
struct RealOf<cuda::std::complex<R>> {
  using Type = R;
};

template <typename T>
__device__ T ShuffleXor(T value, int lane_mask) {
  if constexpr (std::is_arithmetic_v<T>) {
    return __shfl_xor_sync(0xffffffffu, value, lane_mask);
  } else {
    return T(__shfl_xor_sync(0xffffffffu, value.real(), lane_mask),
             __shfl_xor_sync(0xffffffffu, value.imag(), lane_mask));
  }
}

// One warp per matrix: the lanes walk the diagonal, then combine their partial sums of
// log|u_ii|, products of u_ii / |u_ii| and counts of row swaps.
template <typename T>
__global__ void SlogdetKernel(int64_t count, int64_t n, const T* lu, const int* pivots, T* sign,
                              typename RealOf<T>::Type* logabsdet) {
  using R = typename RealOf<T>::Type;
  const int64_t matrix = FirstIndex() / 32;
  const int lane = threadIdx.x % 32;
  if (matrix >= count) return;  // Whole warps leave together: count is per warp.
  const T* factors = lu + matrix * n * n;
  const int* pivot = pivots + matrix * n;
  R log_sum = 0;
  T phase = T(1);
  int swaps = 0;
  bool zero = false;
  for (int64_t i = lane; i < n; i += 32) {
    const T diagonal = factors[i + i * n];
    const R magnitude = cuda::std::abs(diagonal);
    if (magnitude == 0) {
      zero = true;
    } else {
      log_sum += cuda::std::log(magnitude);
      phase *= diagonal / magnitude;
    }
    swaps += pivot[i] != i + 1 ? 1 : 0;
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    log_sum += ShuffleXor(log_sum, offset);
    phase *= ShuffleXor(phase, offset);
    swaps += ShuffleXor(swaps, offset);
  }
  zero = __any_sync(0xffffffffu, zero);
  if (lane != 0) return;
  if (zero) {
    sign[matrix] = T(0);
    logabsdet[matrix] = -cuda::std::numeric_limits<R>::infinity();
    return;
  }
  phase /= cuda::std::abs(phase);  // Rounding drifts a long product off the unit circle.
  sign[matrix] = swaps % 2 == 0 ? phase : -phase;
  logabsdet[matrix] = log_sum;
}

template <typename T>
cudaError_t SlogdetAs(int64_t count, int64_t n, const void* lu, const int* pivots, void* sign,
                      void* logabsdet, cudaStream_t stream) {
  using R = typename RealOf<T>::Type;
  SlogdetKernel<T><<<BlocksFor(count * 32), kThreadsPerBlock, 0, stream>>>(
      count, n, static_cast<const T*>(lu), pivots, static_cast<T*>(sign),
      static_cast<R*>(logabsdet));
  return cudaGetLastError();
}

// ---- eig ----

template <typename R>
__global__ void FlagNonFiniteKernel(int64_t total, int64_t per_matrix, const R* values,
                                    int* flags) {
  for (int64_t k = FirstIndex(); k < total; k += GridStride()) {
    if (!isfinite(values[k])) flags[k / per_matrix] = 1;
  }
}

template <typename R>
__global__ void UnpackRealEigenvectorsKernel(int64_t count, int64_t n, const R* vr,
                                             const cuda::std::complex<R>* w,
                                             cuda::std::complex<R>* v) {
  const int64_t total = count * n * n;
  for (int64_t k = FirstIndex(); k < total; k += GridStride()) {
    const int64_t b = k / (n * n);
    const int64_t j = k / n % n;  // Column-major: k = (b * n + j) * n + i.
    const R imaginary = w[b * n + j].imag();
    if (imaginary > 0) {
      v[k] = {vr[k], vr[k + n]};
    } else if (imaginary < 0) {
      v[k] = {vr[k - n], -vr[k]};
    } else {
      v[k] = {vr[k], R(0)};
    }
  }
}

template <typename R>
cudaError_t FlagNonFiniteAs(int64_t count, int64_t per_matrix, const void* matrices, int* flags,
                            cudaStream_t stream) {
  const int64_t total = count * per_matrix;
  FlagNonFiniteKernel<R><<<BlocksFor(total), kThreadsPerBlock, 0, stream>>>(
      total, per_matrix, static_cast<const R*>(matrices), flags);
  return cudaGetLastError();
}

template <typename R>
cudaError_t UnpackAs(int64_t count, int64_t n, const void* vr, const void* w, void* v,
                     cudaStream_t stream) {
  UnpackRealEigenvectorsKernel<R><<<BlocksFor(count * n * n), kThreadsPerBlock, 0, stream>>>(
      count, n, static_cast<const R*>(vr), static_cast<const cuda::std::complex<R>*>(w),
      static_cast<cuda::std::complex<R>*>(v));
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchCopyMatrices(DType dtype, bool conjugate, Keep keep, int64_t count, int64_t rows,
                               int64_t cols, const MatrixLayout& src, const MatrixLayout& dst,
                               cudaStream_t stream) {
  if (count == 0 || rows == 0 || cols == 0) return cudaSuccess;
  conjugate = conjugate && IsComplex(dtype);
  switch (ItemSize(dtype)) {
    case 1:
      return CopyMatricesAs<uint8_t>(false, keep, count, rows, cols, src, dst, stream);
    case 2:
      return CopyMatricesAs<uint16_t>(false, keep, count, rows, cols, src, dst, stream);
    case 4:
      return CopyMatricesAs<uint32_t>(false, keep, count, rows, cols, src, dst, stream);
    case 8:
      return CopyMatricesAs<uint64_t>(conjugate, keep, count, rows, cols, src, dst, stream);
    case 16:
      return CopyMatricesAs<Bits128>(conjugate, keep, count, rows, cols, src, dst, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

cudaError_t LaunchFillIdentity(DType dtype, int64_t count, int64_t rows, int64_t cols, void* out,
                               cudaStream_t stream) {
  if (count == 0 || rows == 0 || cols == 0) return cudaSuccess;
  switch (dtype) {
    case DType::kFloat32:
      return FillIdentityAs<float>(count, rows, cols, out, stream);
    case DType::kFloat64:
      return FillIdentityAs<double>(count, rows, cols, out, stream);
    case DType::kComplex64:
      return FillIdentityAs<cuda::std::complex<float>>(count, rows, cols, out, stream);
    case DType::kComplex128:
      return FillIdentityAs<cuda::std::complex<double>>(count, rows, cols, out, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

cudaError_t LaunchWiden(const float* in, double* out, int64_t count, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  ConvertKernel<<<BlocksFor(count), kThreadsPerBlock, 0, stream>>>(in, out, count);
  return cudaGetLastError();
}

cudaError_t LaunchNarrow(const double* in, float* out, int64_t count, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  ConvertKernel<<<BlocksFor(count), kThreadsPerBlock, 0, stream>>>(in, out, count);
  return cudaGetLastError();
}

cudaError_t LaunchIntegerMatmul(DType dtype, int64_t count, int64_t m, int64_t n, int64_t k,
                                const MatrixLayout& a, const MatrixLayout& b,
                                const MatrixLayout& out, cudaStream_t stream) {
  if (count == 0 || m == 0 || n == 0) return cudaSuccess;
  switch (dtype) {
    case DType::kBool:
      return IntegerMatmulAs<uint8_t, true>(count, m, n, k, a, b, out, stream);
    case DType::kInt8:
      return IntegerMatmulAs<int8_t>(count, m, n, k, a, b, out, stream);
    case DType::kInt16:
      return IntegerMatmulAs<int16_t>(count, m, n, k, a, b, out, stream);
    case DType::kInt32:
      return IntegerMatmulAs<int32_t>(count, m, n, k, a, b, out, stream);
    case DType::kInt64:
      return IntegerMatmulAs<int64_t>(count, m, n, k, a, b, out, stream);
    case DType::kUInt8:
      return IntegerMatmulAs<uint8_t>(count, m, n, k, a, b, out, stream);
    case DType::kUInt16:
      return IntegerMatmulAs<uint16_t>(count, m, n, k, a, b, out, stream);
    case DType::kUInt32:
      return IntegerMatmulAs<uint32_t>(count, m, n, k, a, b, out, stream);
    case DType::kUInt64:
      return IntegerMatmulAs<uint64_t>(count, m, n, k, a, b, out, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

cudaError_t LaunchFlagNonFinite(DType dtype, int64_t count, int64_t n, const void* matrices,
                                int* flags, cudaStream_t stream) {
  if (count == 0 || n == 0) return cudaSuccess;
  const int64_t reals = IsComplex(dtype) ? 2 * n * n : n * n;  // Per matrix.
  return RealDType(dtype) == DType::kFloat64
             ? FlagNonFiniteAs<double>(count, reals, matrices, flags, stream)
             : FlagNonFiniteAs<float>(count, reals, matrices, flags, stream);
}

cudaError_t LaunchUnpackRealEigenvectors(DType real_dtype, int64_t count, int64_t n, const void* vr,
                                         const void* w, void* v, cudaStream_t stream) {
  if (count == 0 || n == 0) return cudaSuccess;
  switch (real_dtype) {
    case DType::kFloat32:
      return UnpackAs<float>(count, n, vr, w, v, stream);
    case DType::kFloat64:
      return UnpackAs<double>(count, n, vr, w, v, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

cudaError_t LaunchSlogdetFromLu(DType dtype, int64_t count, int64_t n, const void* lu,
                                const int* pivots, void* sign, void* logabsdet,
                                cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  switch (dtype) {
    case DType::kFloat32:
      return SlogdetAs<float>(count, n, lu, pivots, sign, logabsdet, stream);
    case DType::kFloat64:
      return SlogdetAs<double>(count, n, lu, pivots, sign, logabsdet, stream);
    case DType::kComplex64:
      return SlogdetAs<cuda::std::complex<float>>(count, n, lu, pivots, sign, logabsdet, stream);
    case DType::kComplex128:
      return SlogdetAs<cuda::std::complex<double>>(count, n, lu, pivots, sign, logabsdet, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace arrayhub
