// The float and complex dtypes as cuBLAS and cuSOLVER name them, and the typed (S/D/C/Z)
// routines that have no dtype-generic (cusolverDnX*) form, gathered per element type so that
// one template serves all four.
#pragma once

#include <cuComplex.h>
#include <cublas_v2.h>
#include <cusolverDn.h>
#include <library_types.h>

#include <utility>

#include "absl/status/status.h"
#include "server/common/dtype.h"

namespace arrayhub {

// CUDA_R_32F ... CUDA_C_64F for float32, float64, complex64 and complex128.
inline cudaDataType CudaDataType(DType dtype) {
  switch (dtype) {
    case DType::kFloat16:
      return CUDA_R_16F;
    case DType::kFloat32:
      return CUDA_R_32F;
    case DType::kFloat64:
      return CUDA_R_64F;
    case DType::kComplex64:
      return CUDA_C_32F;
    default:
      return CUDA_C_64F;
  }
}

// Calls f(T{}) with T the cuBLAS element type of `dtype` (float, double, cuComplex,
// cuDoubleComplex); INTERNAL for any other dtype, which core never sends here.
template <typename F>
absl::Status WithElementType(DType dtype, F&& f) {
  switch (dtype) {
    case DType::kFloat32:
      return std::forward<F>(f)(float{});
    case DType::kFloat64:
      return std::forward<F>(f)(double{});
    case DType::kComplex64:
      return std::forward<F>(f)(cuComplex{});
    case DType::kComplex128:
      return std::forward<F>(f)(cuDoubleComplex{});
    default:
      return absl::InternalError("linear algebra on a non-float dtype");
  }
}

template <typename T>
struct Lapack;

#define AH_LAPACK_ROUTINES(T, S, ORGQR)                                         \
  template <>                                                                   \
  struct Lapack<T> {                                                            \
    static constexpr auto geqrf_bufferSize = cusolverDn##S##geqrf_bufferSize;   \
    static constexpr auto geqrf = cusolverDn##S##geqrf;                         \
    static constexpr auto orgqr_bufferSize = cusolverDn##S##ORGQR##_bufferSize; \
    static constexpr auto orgqr = cusolverDn##S##ORGQR;                         \
    static constexpr auto getrf_bufferSize = cusolverDn##S##getrf_bufferSize;   \
    static constexpr auto getrf = cusolverDn##S##getrf;                         \
    static constexpr auto getrs = cusolverDn##S##getrs;                         \
    static constexpr auto potrfBatched = cusolverDn##S##potrfBatched;           \
    static constexpr auto getrfBatched = cublas##S##getrfBatched;               \
    static constexpr auto getrsBatched = cublas##S##getrsBatched;               \
  };
AH_LAPACK_ROUTINES(float, S, orgqr)
AH_LAPACK_ROUTINES(double, D, orgqr)
AH_LAPACK_ROUTINES(cuComplex, C, ungqr)
AH_LAPACK_ROUTINES(cuDoubleComplex, Z, ungqr)
#undef AH_LAPACK_ROUTINES

}  // namespace arrayhub
