// Batched one-sided Jacobi SVD for small matrices: one thread block per matrix, held in shared
// memory from the first read to the last write. cuSOLVER has no accurate batched SVD above
// 32 x 32 (gesvdjBatched stops there, gesvdaStridedBatched works on A^T A and loses half the
// digits of the small singular values), and a loop of single-matrix calls costs milliseconds
// per matrix; this kernel does a stack of 64 x 64 matrices in one launch, to LAPACK's
// accuracy (one-sided Jacobi is as accurate as the QR algorithm, and more accurate for small
// singular values). Shared by nvcc and the host compiler.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "server/backend/cuda/linalg_kernels.cuh"
#include "server/common/dtype.h"

namespace arrayhub {

// The largest matrix side the kernel takes (rows m; columns n <= m).
inline constexpr int64_t kJacobiMaxRows = 64;

// A = U diag(S) V^H for `count` m x n matrices (n <= m <= kJacobiMaxRows) of a float or
// complex dtype. Writes S (count x n, contiguous, descending, of the real dtype) and, when
// u_columns > 0, U's first u_columns (n or m) columns as element (i, j) of `u`; and, when
// v.base is set, V's element (i, j) into `v` (conjugated when conjugate_v). info[b] is 0, or 1 when
// matrix b did not converge or held a NaN or infinity.
struct JacobiSvdArgs {
  DType dtype = DType::kFloat32;
  int64_t count = 0;
  int m = 0;
  int n = 0;
  MatrixLayout a;
  void* s = nullptr;
  MatrixLayout u;
  int u_columns = 0;
  MatrixLayout v;
  bool conjugate_v = false;
  int* info = nullptr;
};

cudaError_t LaunchJacobiSvd(const JacobiSvdArgs& args, cudaStream_t stream);

}  // namespace arrayhub
