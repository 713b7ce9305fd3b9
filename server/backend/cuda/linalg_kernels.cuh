// Host-callable launchers for the small kernels around cuBLAS and cuSOLVER: moving stacks of
// strided matrices between layouts, identity fills, precision changes, integer products and
// slogdet from an LU factorization. Each enqueues its work on `stream` and returns the launch's
// error, without waiting. Shared by nvcc and the host compiler: CUDA runtime API and the
// standard library only.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "server/common/dtype.h"

namespace arrayhub {

// Where each matrix of a stack lives: element (i, j) of matrix b is at element offset
// offset(b) + i * row_stride + j * col_stride from `base`, where offset(b) is offsets[b] (a
// device array) or, when offsets is null, b * batch_stride. Strides are in elements.
struct MatrixLayout {
#if defined(__CUDACC__)
  __host__ __device__
#endif
      int64_t
      OffsetOf(int64_t b) const {
    return offsets != nullptr ? offsets[b] : b * batch_stride;
  }

  void* base = nullptr;
  const int64_t* offsets = nullptr;
  int64_t batch_stride = 0;
  int64_t row_stride = 0;
  int64_t col_stride = 0;
};

// Which part of a copied matrix is kept; the rest of the destination is written as zeros.
enum class Keep : uint8_t {
  kAll,
  kUpper,  // j >= i
  kLower,  // j <= i
  kNone,   // Zeros only; the source is not read.
};

// dst(b, i, j) = src(b, i, j) (conjugated when `conjugate`, for complex dtypes) for `count`
// matrices of rows x cols elements of `dtype`. src and dst must not overlap unless they are the
// same layout (an in-place pass, as for zeroing a triangle).
cudaError_t LaunchCopyMatrices(DType dtype, bool conjugate, Keep keep, int64_t count, int64_t rows,
                               int64_t cols, const MatrixLayout& src, const MatrixLayout& dst,
                               cudaStream_t stream);

// Writes identity matrices (float or complex `dtype`) into `count` contiguous column-major
// rows x cols matrices (leading dimension rows) from `out`.
cudaError_t LaunchFillIdentity(DType dtype, int64_t count, int64_t rows, int64_t cols, void* out,
                               cudaStream_t stream);

// Converts `count` values between float32 and float64 (complex arrays count two per element).
cudaError_t LaunchWiden(const float* in, double* out, int64_t count, cudaStream_t stream);
cudaError_t LaunchNarrow(const double* in, float* out, int64_t count, cudaStream_t stream);

// out(b) = a(b) @ b(b) for bool (logical or of ands) and integer dtypes, wrapping on overflow
// as NumPy does. a is m x k, b is k x n, out is m x n.
cudaError_t LaunchIntegerMatmul(DType dtype, int64_t count, int64_t m, int64_t n, int64_t k,
                                const MatrixLayout& a, const MatrixLayout& b,
                                const MatrixLayout& out, cudaStream_t stream);

// flags[b] = 1 for every matrix b of `count` contiguous n x n matrices of `dtype` from
// `matrices` that holds an inf or a NaN (other flags are left as they are).
cudaError_t LaunchFlagNonFinite(DType dtype, int64_t count, int64_t n, const void* matrices,
                                int* flags, cudaStream_t stream);

// geev's right eigenvectors of real matrices made complex: for `count` column-major n x n
// matrices vr of `real_dtype` (float32 or float64, contiguous) and their n complex eigenvalues
// w each, column j of the complex column-major v is vr[:, j] + i vr[:, j + 1] when w[j] has a
// positive imaginary part, vr[:, j - 1] - i vr[:, j] when it has a negative one (the second of
// the conjugate pair), and vr[:, j] otherwise.
cudaError_t LaunchUnpackRealEigenvectors(DType real_dtype, int64_t count, int64_t n, const void* vr,
                                         const void* w, void* v, cudaStream_t stream);

// From `count` LU factorizations (getrf's column-major n x n factors, batch stride n * n, and
// 1-based pivots, batch stride n): sign(b) of `dtype` (a unit complex number for complex
// dtypes) and logabsdet(b) of its real dtype, both contiguous. A zero on the diagonal gives
// sign 0 and logabsdet -inf, as numpy.linalg.slogdet.
cudaError_t LaunchSlogdetFromLu(DType dtype, int64_t count, int64_t n, const void* lu,
                                const int* pivots, void* sign, void* logabsdet,
                                cudaStream_t stream);

}  // namespace arrayhub
