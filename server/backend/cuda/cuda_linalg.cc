// CudaLinalg's factorizations other than the SVD (cuda_svd.cc): QR, Cholesky, eigh, eig, solve
// and inv, slogdet, on cuSOLVER (and cuBLAS's batched LU for stacks of small matrices).
//
// cuSOLVER works in place on column-major matrices, so each input is first copied into
// column-major scratch (the caller's array is never touched), and results are copied out
// into the C-contiguous outputs; both copies are O(n^2) next to the O(n^3) factorization.
// Data-dependent failures come back in cuSOLVER's info values and become NumPy's LinAlgError
// messages as FAILED_PRECONDITION.
#include <algorithm>
#include <climits>

#include "server/backend/cuda/cuda_check.h"
#include "server/backend/cuda/cuda_parts.h"
#include "server/backend/cuda/cuda_queue.h"
#include "server/backend/cuda/linalg_context.h"
#include "server/backend/cuda/linalg_kernels.cuh"
#include "server/backend/cuda/linalg_status.h"
#include "server/backend/cuda/linalg_types.h"
#include "server/backend/cuda/matrix_stack.h"
#include "server/common/status_macros.h"

namespace arrayhub {

namespace {

// Stacks of matrices up to this size go to the batched routines (one launch for the stack);
// larger ones are factored one call per matrix, where the blocked single-matrix routines win.
constexpr int64_t kBatchedMaxSize = 64;

bool UseBatched(int64_t count, int64_t n) {
  return count > 1 && n <= kBatchedMaxSize && n * n * count <= INT_MAX;
}

// OK when every info value is 0; `failure` for positive ones (the data's fault), INTERNAL for
// negative ones (an invalid argument: ours).
absl::Status CheckInfo(const std::vector<int>& info, std::string_view routine,
                       std::string_view failure) {
  for (const int value : info) {
    if (value < 0) {
      return absl::InternalError(fmt::format("{}: argument {} invalid", routine, -value));
    }
    if (value > 0) return absl::FailedPreconditionError(std::string(failure));
  }
  return absl::OkStatus();
}

// Copies the input's matrices into new column-major scratch with `ld` rows and `columns`
// columns per matrix (at least the input's), returning that stack.
absl::StatusOr<MatrixStack> ColumnMajorCopy(const ArrayView& view, int64_t ld, int64_t columns,
                                            LinalgCall& linalg) {
  const MatrixStack input = StackOf(view);
  AH_ASSIGN_OR_RETURN(void* memory,
                      linalg.Scratch(input.count * ld * columns * ItemSize(input.dtype)));
  MatrixStack copy = ColumnMajorStack(memory, input.dtype, input.count, ld, columns);
  AH_ASSIGN_OR_RETURN(const MatrixLayout from, DeviceLayout(input, linalg));
  AH_ASSIGN_OR_RETURN(const MatrixLayout to, DeviceLayout(copy, linalg));
  AH_CUDA_RETURN_IF_ERROR(LaunchCopyMatrices(input.dtype, false, Keep::kAll, input.count,
                                             input.rows, input.cols, from, to, linalg.stream()));
  return copy;
}

// Copies rows x cols of every matrix of `from` (keeping `keep`, zeros elsewhere) into `view`.
absl::Status CopyOut(const MatrixStack& from, int64_t rows, int64_t cols, Keep keep,
                     const ArrayView& view, LinalgCall& linalg) {
  AH_ASSIGN_OR_RETURN(const MatrixLayout source, DeviceLayout(from, linalg));
  AH_ASSIGN_OR_RETURN(const MatrixLayout target, DeviceLayout(StackOf(view), linalg));
  AH_CUDA_RETURN_IF_ERROR(LaunchCopyMatrices(from.dtype, false, keep, from.count, rows, cols,
                                             source, target, linalg.stream()));
  return absl::OkStatus();
}

// LU factorization with partial pivoting of every (column-major, n x n) matrix of `a`, in
// place; pivots are 1-based, n per matrix. info[b] > 0 marks an exactly singular matrix.
absl::Status LuFactor(const MatrixStack& a, int* pivots, int* info, LinalgCall& linalg) {
  const int n = static_cast<int>(a.rows);
  return WithElementType(a.dtype, [&](auto element) -> absl::Status {
    using T = decltype(element);
    if (UseBatched(a.count, n)) {
      AH_ASSIGN_OR_RETURN(void** matrices, DevicePointers(a, linalg));
      AH_CUBLAS_RETURN_IF_ERROR(Lapack<T>::getrfBatched(linalg.cublas(), n,
                                                        reinterpret_cast<T**>(matrices), n, pivots,
                                                        info, static_cast<int>(a.count)));
      return absl::OkStatus();
    }
    int work_size = 0;
    AH_CUSOLVER_RETURN_IF_ERROR(Lapack<T>::getrf_bufferSize(
        linalg.cusolver(), n, n, reinterpret_cast<T*>(a.data), n, &work_size));
    AH_ASSIGN_OR_RETURN(T * work, linalg.Scratch<T>(work_size));
    for (int64_t b = 0; b < a.count; ++b) {
      AH_CUSOLVER_RETURN_IF_ERROR(Lapack<T>::getrf(linalg.cusolver(), n, n,
                                                   reinterpret_cast<T*>(a.Matrix(b)), n, work,
                                                   pivots + b * n, info + b));
    }
    return absl::OkStatus();
  });
}

// Solves A X = B in place of B (column-major n x k per matrix) from LuFactor's factors.
absl::Status LuSolve(const MatrixStack& lu, const int* pivots, const MatrixStack& b, int* info,
                     LinalgCall& linalg) {
  const int n = static_cast<int>(lu.rows);
  const int k = static_cast<int>(b.cols);
  return WithElementType(lu.dtype, [&](auto element) -> absl::Status {
    using T = decltype(element);
    if (UseBatched(lu.count, n)) {
      AH_ASSIGN_OR_RETURN(void** factors, DevicePointers(lu, linalg));
      AH_ASSIGN_OR_RETURN(void** rhs, DevicePointers(b, linalg));
      int argument_error = 0;  // getrsBatched checks its arguments on the host.
      AH_CUBLAS_RETURN_IF_ERROR(Lapack<T>::getrsBatched(
          linalg.cublas(), CUBLAS_OP_N, n, k, reinterpret_cast<T* const*>(factors), n, pivots,
          reinterpret_cast<T* const*>(rhs), n, &argument_error, static_cast<int>(lu.count)));
      return CheckInfo({argument_error}, "getrsBatched", "");
    }
    for (int64_t m = 0; m < lu.count; ++m) {
      AH_CUSOLVER_RETURN_IF_ERROR(Lapack<T>::getrs(
          linalg.cusolver(), CUBLAS_OP_N, n, k, reinterpret_cast<const T*>(lu.Matrix(m)), n,
          pivots + m * n, reinterpret_cast<T*>(b.Matrix(m)), n, info + m));
    }
    return absl::OkStatus();
  });
}

}  // namespace

absl::Status CudaLinalg::Qr(QueueBinding& queue, const QrCall& call) {
  AH_ASSIGN_OR_RETURN(const QueueSection section, Enter(queue));
  const int64_t count = StackOf(call.a).count;
  const int64_t m = call.a.shape.end()[-2];
  const int64_t n = call.a.shape.back();
  const int64_t k = std::min(m, n);
  const int64_t q_cols = call.complete ? m : k;
  const int64_t r_rows = call.complete ? m : k;
  if (count == 0) return absl::OkStatus();
  AH_ASSIGN_OR_RETURN(LinalgCall linalg, LinalgCall::Begin(section));
  // Room for Q's columns too, which orgqr builds in place of the factored matrix.
  AH_ASSIGN_OR_RETURN(const MatrixStack a,
                      ColumnMajorCopy(call.a, m, std::max(n, call.compute_q ? q_cols : 0), linalg));
  AH_ASSIGN_OR_RETURN(void* tau, linalg.Scratch(count * k * ItemSize(a.dtype)));
  AH_ASSIGN_OR_RETURN(int* info, linalg.Scratch<int>(count));
  AH_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(info, 0, count * sizeof(int), linalg.stream()));
  AH_RETURN_IF_ERROR(WithElementType(a.dtype, [&](auto element) -> absl::Status {
    using T = decltype(element);
    if (k == 0) return absl::OkStatus();  // Nothing to factor: R is empty or zero, Q = I.
    T* const taus = static_cast<T*>(tau);
    const int rows = static_cast<int>(m);
    int geqrf_size = 0;
    int orgqr_size = 0;
    AH_CUSOLVER_RETURN_IF_ERROR(
        Lapack<T>::geqrf_bufferSize(linalg.cusolver(), rows, static_cast<int>(n),
                                    reinterpret_cast<T*>(a.data), rows, &geqrf_size));
    if (call.compute_q) {
      AH_CUSOLVER_RETURN_IF_ERROR(Lapack<T>::orgqr_bufferSize(
          linalg.cusolver(), rows, static_cast<int>(q_cols), static_cast<int>(k),
          reinterpret_cast<T*>(a.data), rows, taus, &orgqr_size));
    }
    AH_ASSIGN_OR_RETURN(T * work, linalg.Scratch<T>(std::max(geqrf_size, orgqr_size)));
    for (int64_t b = 0; b < count; ++b) {
      AH_CUSOLVER_RETURN_IF_ERROR(Lapack<T>::geqrf(linalg.cusolver(), rows, static_cast<int>(n),
                                                   reinterpret_cast<T*>(a.Matrix(b)), rows,
                                                   taus + b * k, work, geqrf_size, info + b));
    }
    // R is the upper triangle of the factored matrix (rows below k, if any, are zero).
    AH_RETURN_IF_ERROR(CopyOut(a, r_rows, n, Keep::kUpper, call.r, linalg));
    if (!call.compute_q) return absl::OkStatus();
    for (int64_t b = 0; b < count; ++b) {
      AH_CUSOLVER_RETURN_IF_ERROR(Lapack<T>::orgqr(
          linalg.cusolver(), rows, static_cast<int>(q_cols), static_cast<int>(k),
          reinterpret_cast<T*>(a.Matrix(b)), rows, taus + b * k, work, orgqr_size, info + b));
    }
    return CopyOut(a, m, q_cols, Keep::kAll, call.q, linalg);
  }));
  if (k == 0) {
    AH_RETURN_IF_ERROR(CopyOut(a, r_rows, n, Keep::kNone, call.r, linalg));
    if (call.compute_q) {
      AH_CUDA_RETURN_IF_ERROR(
          LaunchFillIdentity(a.dtype, count, m, q_cols, StackOf(call.q).data, linalg.stream()));
    }
  }
  AH_ASSIGN_OR_RETURN(const std::vector<int> infos, linalg.Download(info, count));
  AH_RETURN_IF_ERROR(CheckInfo(infos, "geqrf/orgqr", ""));
  return absl::OkStatus();
}

absl::Status CudaLinalg::Cholesky(QueueBinding& queue, const CholeskyCall& call) {
  AH_ASSIGN_OR_RETURN(const QueueSection section, Enter(queue));
  const MatrixStack out = StackOf(call.out);
  const int n = static_cast<int>(out.rows);
  if (out.count == 0 || n == 0) return absl::OkStatus();
  AH_ASSIGN_OR_RETURN(LinalgCall linalg, LinalgCall::Begin(section));
  // The factorization runs in the output itself. Its row-major storage holds, to
  // column-major cuSOLVER, A^T = conj(A); factoring the triangle of that which is A's lower
  // triangle as U^H U gives A = U^T conj(U), so L = U^T, which the row-major storage then
  // holds in its lower triangle. Likewise for upper.
  AH_RETURN_IF_ERROR(CopyOut(StackOf(call.a), n, n, Keep::kAll, call.out, linalg));
  const cublasFillMode_t uplo = call.upper ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
  AH_ASSIGN_OR_RETURN(int* info, linalg.Scratch<int>(out.count));
  AH_RETURN_IF_ERROR(WithElementType(out.dtype, [&](auto element) -> absl::Status {
    using T = decltype(element);
    if (UseBatched(out.count, n)) {
      AH_ASSIGN_OR_RETURN(void** matrices, DevicePointers(out, linalg));
      AH_CUSOLVER_RETURN_IF_ERROR(Lapack<T>::potrfBatched(linalg.cusolver(), uplo, n,
                                                          reinterpret_cast<T**>(matrices), n, info,
                                                          static_cast<int>(out.count)));
      return absl::OkStatus();
    }
    const cudaDataType type = CudaDataType(out.dtype);
    size_t device_bytes = 0;
    size_t host_bytes = 0;
    AH_CUSOLVER_RETURN_IF_ERROR(cusolverDnXpotrf_bufferSize(linalg.cusolver(), linalg.params(),
                                                            uplo, n, type, out.data, n, type,
                                                            &device_bytes, &host_bytes));
    AH_ASSIGN_OR_RETURN(void* work, linalg.Scratch(static_cast<int64_t>(device_bytes)));
    std::vector<std::byte> host_work(host_bytes);
    for (int64_t b = 0; b < out.count; ++b) {
      AH_CUSOLVER_RETURN_IF_ERROR(cusolverDnXpotrf(linalg.cusolver(), linalg.params(), uplo, n,
                                                   type, out.Matrix(b), n, type, work, device_bytes,
                                                   host_work.data(), host_bytes, info + b));
    }
    return absl::OkStatus();
  }));
  AH_ASSIGN_OR_RETURN(const std::vector<int> infos, linalg.Download(info, out.count));
  AH_RETURN_IF_ERROR(CheckInfo(infos, "potrf", "Matrix is not positive definite"));
  // The other triangle still holds the input.
  AH_RETURN_IF_ERROR(
      CopyOut(out, n, n, call.upper ? Keep::kUpper : Keep::kLower, call.out, linalg));
  return absl::OkStatus();
}

absl::Status CudaLinalg::Eigh(QueueBinding& queue, const EighCall& call) {
  AH_ASSIGN_OR_RETURN(const QueueSection section, Enter(queue));
  const int64_t n = call.a.shape.back();
  const int64_t count = StackOf(call.a).count;
  if (count == 0 || n == 0) return absl::OkStatus();
  AH_ASSIGN_OR_RETURN(LinalgCall linalg, LinalgCall::Begin(section));
  // Column-major A is A itself, so `upper` names the same triangle to cuSOLVER.
  AH_ASSIGN_OR_RETURN(const MatrixStack a, ColumnMajorCopy(call.a, n, n, linalg));
  const cublasFillMode_t uplo = call.upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  const cusolverEigMode_t jobz =
      call.compute_vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  const cudaDataType type = CudaDataType(a.dtype);
  const cudaDataType real_type = CudaDataType(RealDType(a.dtype));
  // Eigenvalues go straight into w (C-contiguous, n per matrix).
  std::byte* const w = static_cast<std::byte*>(call.w.buffer->data()) + call.w.offset_bytes;
  const int64_t w_item = ItemSize(RealDType(a.dtype));
  AH_ASSIGN_OR_RETURN(int* info, linalg.Scratch<int>(count));
  size_t device_bytes = 0;
  size_t host_bytes = 0;
  if (UseBatched(count, n)) {
    AH_CUSOLVER_RETURN_IF_ERROR(cusolverDnXsyevBatched_bufferSize(
        linalg.cusolver(), linalg.params(), jobz, uplo, n, type, a.data, n, real_type, w, type,
        &device_bytes, &host_bytes, count));
    AH_ASSIGN_OR_RETURN(void* work, linalg.Scratch(static_cast<int64_t>(device_bytes)));
    std::vector<std::byte> host_work(host_bytes);
    AH_CUSOLVER_RETURN_IF_ERROR(cusolverDnXsyevBatched(
        linalg.cusolver(), linalg.params(), jobz, uplo, n, type, a.data, n, real_type, w, type,
        work, device_bytes, host_work.data(), host_bytes, info, count));
  } else {
    AH_CUSOLVER_RETURN_IF_ERROR(
        cusolverDnXsyevd_bufferSize(linalg.cusolver(), linalg.params(), jobz, uplo, n, type, a.data,
                                    n, real_type, w, type, &device_bytes, &host_bytes));
    AH_ASSIGN_OR_RETURN(void* work, linalg.Scratch(static_cast<int64_t>(device_bytes)));
    std::vector<std::byte> host_work(host_bytes);
    for (int64_t b = 0; b < count; ++b) {
      AH_CUSOLVER_RETURN_IF_ERROR(cusolverDnXsyevd(
          linalg.cusolver(), linalg.params(), jobz, uplo, n, type, a.Matrix(b), n, real_type,
          w + b * n * w_item, type, work, device_bytes, host_work.data(), host_bytes, info + b));
    }
  }
  AH_ASSIGN_OR_RETURN(const std::vector<int> infos, linalg.Download(info, count));
  AH_RETURN_IF_ERROR(CheckInfo(infos, "syevd", "Eigenvalues did not converge"));
  // The eigenvectors are the columns of the column-major result.
  if (call.compute_vectors) AH_RETURN_IF_ERROR(CopyOut(a, n, n, Keep::kAll, call.v, linalg));
  return absl::OkStatus();
}

absl::Status CudaLinalg::Eig(QueueBinding& queue, const EigCall& call) {
  AH_ASSIGN_OR_RETURN(const QueueSection section, Enter(queue));
  const int64_t n = call.a.shape.back();
  const int64_t count = StackOf(call.a).count;
  if (count == 0 || n == 0) return absl::OkStatus();
  AH_ASSIGN_OR_RETURN(LinalgCall linalg, LinalgCall::Begin(section));
  AH_ASSIGN_OR_RETURN(const MatrixStack a, ColumnMajorCopy(call.a, n, n, linalg));
  // NumPy refuses non-finite input before factoring, and so must we: cuSOLVER's geev answers
  // CUSOLVER_STATUS_INTERNAL_ERROR for a NaN (measured on an H100, CUDA 13).
  AH_ASSIGN_OR_RETURN(int* flags, linalg.Scratch<int>(count));
  AH_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(flags, 0, count * sizeof(int), linalg.stream()));
  AH_CUDA_RETURN_IF_ERROR(LaunchFlagNonFinite(a.dtype, count, n, a.data, flags, linalg.stream()));
  AH_ASSIGN_OR_RETURN(const std::vector<int> non_finite, linalg.Download(flags, count));
  for (const int flag : non_finite) {
    if (flag != 0) return absl::FailedPreconditionError("Array must not contain infs or NaNs");
  }
  AH_ASSIGN_OR_RETURN(int* info, linalg.Scratch<int>(count));
  const bool real = !IsComplex(a.dtype);
  const DType complex = call.w.dtype;
  const cudaDataType type = CudaDataType(a.dtype);
  const cudaDataType w_type = CudaDataType(complex);
  const cusolverEigMode_t jobvr =
      call.compute_vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  // Eigenvalues go straight into w (C-contiguous, n per matrix); right eigenvectors into
  // column-major scratch of a's dtype (real matrices: geev's packed pairs, unpacked below).
  std::byte* const w = static_cast<std::byte*>(call.w.buffer->data()) + call.w.offset_bytes;
  const int64_t w_item = ItemSize(complex);
  const int64_t a_item = ItemSize(a.dtype);
  std::byte* vr = nullptr;
  if (call.compute_vectors) {
    AH_ASSIGN_OR_RETURN(void* memory, linalg.Scratch(count * n * n * a_item));
    vr = static_cast<std::byte*>(memory);
  }
  size_t device_bytes = 0;
  size_t host_bytes = 0;
  AH_CUSOLVER_RETURN_IF_ERROR(cusolverDnXgeev_bufferSize(
      linalg.cusolver(), linalg.params(), CUSOLVER_EIG_MODE_NOVECTOR, jobvr, n, type, a.data, n,
      w_type, w, type, nullptr, n, type, vr, n, type, &device_bytes, &host_bytes));
  AH_ASSIGN_OR_RETURN(void* work, linalg.Scratch(static_cast<int64_t>(device_bytes)));
  std::vector<std::byte> host_work(host_bytes);
  for (int64_t b = 0; b < count; ++b) {
    AH_CUSOLVER_RETURN_IF_ERROR(
        cusolverDnXgeev(linalg.cusolver(), linalg.params(), CUSOLVER_EIG_MODE_NOVECTOR, jobvr, n,
                        type, a.Matrix(b), n, w_type, w + b * n * w_item, type, nullptr, n, type,
                        vr == nullptr ? nullptr : vr + b * n * n * a_item, n, type, work,
                        device_bytes, host_work.data(), host_bytes, info + b));
  }
  AH_ASSIGN_OR_RETURN(const std::vector<int> infos, linalg.Download(info, count));
  AH_RETURN_IF_ERROR(CheckInfo(infos, "geev", "Eigenvalues did not converge"));
  if (!call.compute_vectors) return absl::OkStatus();
  MatrixStack vectors = ColumnMajorStack(vr, a.dtype, count, n, n);
  if (real) {
    AH_ASSIGN_OR_RETURN(void* unpacked, linalg.Scratch(count * n * n * w_item));
    AH_CUDA_RETURN_IF_ERROR(
        LaunchUnpackRealEigenvectors(a.dtype, count, n, vr, w, unpacked, linalg.stream()));
    vectors = ColumnMajorStack(unpacked, complex, count, n, n);
  }
  // The eigenvectors are the columns of the column-major result.
  return CopyOut(vectors, n, n, Keep::kAll, call.v, linalg);
}

absl::Status CudaLinalg::Solve(QueueBinding& queue, const SolveCall& call) {
  AH_ASSIGN_OR_RETURN(const QueueSection section, Enter(queue));
  const MatrixStack x = StackOf(call.x);
  const int64_t n = x.rows;
  if (x.count == 0 || n == 0 || x.cols == 0) return absl::OkStatus();
  AH_ASSIGN_OR_RETURN(LinalgCall linalg, LinalgCall::Begin(section));
  AH_ASSIGN_OR_RETURN(const MatrixStack lu, ColumnMajorCopy(call.a, n, n, linalg));
  AH_ASSIGN_OR_RETURN(int* pivots, linalg.Scratch<int>(x.count * n));
  AH_ASSIGN_OR_RETURN(int* info, linalg.Scratch<int>(x.count));
  AH_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(info, 0, x.count * sizeof(int), linalg.stream()));
  AH_RETURN_IF_ERROR(LuFactor(lu, pivots, info, linalg));
  AH_ASSIGN_OR_RETURN(const std::vector<int> factored, linalg.Download(info, x.count));
  AH_RETURN_IF_ERROR(CheckInfo(factored, "getrf", "Singular matrix"));
  // The right-hand sides, or the identity for inv, column-major.
  MatrixStack rhs;
  if (call.b) {
    AH_ASSIGN_OR_RETURN(rhs, ColumnMajorCopy(*call.b, n, x.cols, linalg));
  } else {
    AH_ASSIGN_OR_RETURN(void* identity, linalg.Scratch(x.count * n * n * ItemSize(x.dtype)));
    rhs = ColumnMajorStack(identity, x.dtype, x.count, n, n);
    AH_CUDA_RETURN_IF_ERROR(LaunchFillIdentity(x.dtype, x.count, n, n, identity, linalg.stream()));
  }
  AH_RETURN_IF_ERROR(LuSolve(lu, pivots, rhs, info, linalg));
  AH_RETURN_IF_ERROR(CopyOut(rhs, n, x.cols, Keep::kAll, call.x, linalg));
  AH_ASSIGN_OR_RETURN(const std::vector<int> solved, linalg.Download(info, x.count));
  AH_RETURN_IF_ERROR(CheckInfo(solved, "getrs", ""));
  return absl::OkStatus();
}

absl::Status CudaLinalg::Slogdet(QueueBinding& queue, const SlogdetCall& call) {
  AH_ASSIGN_OR_RETURN(const QueueSection section, Enter(queue));
  const int64_t n = call.a.shape.back();
  const int64_t count = StackOf(call.a).count;
  if (count == 0) return absl::OkStatus();
  AH_ASSIGN_OR_RETURN(LinalgCall linalg, LinalgCall::Begin(section));
  AH_ASSIGN_OR_RETURN(const MatrixStack lu, ColumnMajorCopy(call.a, n, n, linalg));
  AH_ASSIGN_OR_RETURN(int* pivots, linalg.Scratch<int>(count * n));
  AH_ASSIGN_OR_RETURN(int* info, linalg.Scratch<int>(count));
  AH_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(info, 0, count * sizeof(int), linalg.stream()));
  if (n > 0) AH_RETURN_IF_ERROR(LuFactor(lu, pivots, info, linalg));
  // A singular matrix (info > 0) is no error here: the zero pivot gives sign 0.
  AH_ASSIGN_OR_RETURN(const std::vector<int> infos, linalg.Download(info, count));
  for (const int value : infos) {
    if (value < 0) return absl::InternalError(fmt::format("getrf: argument {} invalid", -value));
  }
  AH_CUDA_RETURN_IF_ERROR(LaunchSlogdetFromLu(
      lu.dtype, count, n, lu.data, pivots,
      static_cast<std::byte*>(call.sign.buffer->data()) + call.sign.offset_bytes,
      static_cast<std::byte*>(call.logabsdet.buffer->data()) + call.logabsdet.offset_bytes,
      linalg.stream()));
  return absl::OkStatus();
}

}  // namespace arrayhub
