// CpuLinalg: OpenBLAS's cblas_?gemm for float and complex products (float16
// through float32; a CPU has no TF32, so MatmulCall::precision changes nothing), plain loops
// for bool and integer products, and LAPACKE for the factorizations. Every matrix is reached
// through its view's strides. LAPACK overwrites its input, so each matrix is first packed into
// a column-major work copy; results are written back through the output views.
#include <cblas.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <mutex>
#include <new>
#include <optional>
#include <type_traits>
#include <vector>

#include "server/backend/host/host_parts.h"
#include "server/backend/host/host_queue.h"
#include "server/backend/host/host_types.h"
#include "server/backend/host/lapack_drivers.h"
#include "server/common/scratch_payer.h"
#include "server/common/status_macros.h"

namespace arrayhub {
namespace host {
namespace {

// ---------------------------------------------------------------------------------------------
// Matrices of strided views

// Element (i, j) of a matrix is data[i * row_stride + j * col_stride].
template <typename T>
struct Matrix {
  T* data;
  int64_t rows;
  int64_t cols;
  int64_t row_stride;
  int64_t col_stride;

  T& operator()(int64_t i, int64_t j) const { return data[i * row_stride + j * col_stride]; }

  operator Matrix<const T>() const requires(!std::is_const_v<T>) {
    return {data, rows, cols, row_stride, col_stride};
  }
};

// A column-major matrix in `storage`, columns `ld` elements apart (dense by default).
template <typename T>
Matrix<T> ColumnMajor(T* storage, int64_t rows, int64_t cols, int64_t ld = 0) {
  return {storage, rows, cols, 1, ld > 0 ? ld : rows};
}

int64_t BatchCount(const ArrayView& view, size_t core) {
  int64_t count = 1;
  for (size_t axis = 0; axis + core < view.shape.size(); ++axis) count *= view.shape[axis];
  return count;
}

// Element offset of item `index` (C order) of the batch axes, all but the last `core` axes.
int64_t BatchOffset(const ArrayView& view, size_t core, int64_t index) {
  int64_t offset = 0;
  for (size_t axis = view.shape.size() - core; axis-- > 0;) {
    offset += index % view.shape[axis] * view.strides[axis];
    index /= view.shape[axis];
  }
  return offset;
}

template <typename T>
T* Origin(const ArrayView& view) {
  return reinterpret_cast<T*>(static_cast<std::byte*>(view.buffer->data()) + view.offset_bytes);
}

// Matrix `index` of a stack (batch..., rows, cols).
template <typename T>
Matrix<T> MatrixOf(const ArrayView& view, int64_t index) {
  const size_t rank = view.shape.size();
  return {Origin<T>(view) + BatchOffset(view, 2, index), view.shape[rank - 2], view.shape[rank - 1],
          view.strides[rank - 2], view.strides[rank - 1]};
}

// Vector `index` of a stack (batch..., n), as a 1 x n matrix.
template <typename T>
Matrix<T> VectorOf(const ArrayView& view, int64_t index) {
  return {Origin<T>(view) + BatchOffset(view, 1, index), 1, view.shape.back(), 0,
          view.strides.back()};
}

// Element `index` of a stack of scalars (batch...).
template <typename T>
T& ScalarOf(const ArrayView& view, int64_t index) {
  return Origin<T>(view)[BatchOffset(view, 0, index)];
}

enum class Part { kAll, kUpper, kLower };

// to = from (same extents); with kUpper/kLower the other triangle of `to` is zeroed.
template <typename From, typename To>
void CopyMatrix(const Matrix<From>& from, const Matrix<To>& to, Part part = Part::kAll) {
  for (int64_t i = 0; i < to.rows; ++i) {
    for (int64_t j = 0; j < to.cols; ++j) {
      const bool kept = part == Part::kAll || (part == Part::kUpper ? i <= j : i >= j);
      to(i, j) = kept ? static_cast<To>(from(i, j)) : To(0);
    }
  }
}

// A column-major copy of `from` with room for `cols` >= from.cols columns.
template <typename T>
std::vector<T> Packed(const Matrix<const T>& from, int64_t cols) {
  std::vector<T> packed(static_cast<size_t>(from.rows * cols));
  CopyMatrix(from, ColumnMajor(packed.data(), from.rows, from.cols));
  return packed;
}

// ---------------------------------------------------------------------------------------------
// Products

// BLAS takes 32-bit dimensions and leading dimensions.
bool FitsBlas(int64_t value) { return value >= 0 && value <= std::numeric_limits<blasint>::max(); }

// The leading dimension under which BLAS reads a matrix in place as row-major, if any.
std::optional<blasint> RowMajorLd(int64_t rows, int64_t cols, int64_t row_stride,
                                  int64_t col_stride) {
  if (cols > 1 && col_stride != 1) return std::nullopt;
  if (rows <= 1) return static_cast<blasint>(std::max<int64_t>(cols, 1));
  if (row_stride < std::max<int64_t>(cols, 1) || !FitsBlas(row_stride)) return std::nullopt;
  return static_cast<blasint>(row_stride);
}

// The same in either order (a column-major matrix is the transpose of a row-major one).
template <typename T>
std::optional<blasint> LdInOrder(const Matrix<T>& m, bool row_major) {
  return row_major ? RowMajorLd(m.rows, m.cols, m.row_stride, m.col_stride)
                   : RowMajorLd(m.cols, m.rows, m.col_stride, m.row_stride);
}

// An operand as cblas_?gemm takes it, packed first when no BLAS layout describes its strides
// (zero or negative strides, or gaps along both axes).
template <typename T>
struct GemmOperand {
  const T* data;
  CBLAS_TRANSPOSE transpose;
  blasint ld;
  std::vector<T> packed;  // Owns the data when packed.

  GemmOperand(const Matrix<const T>& m, bool row_major, bool conjugate) {
    if (std::optional<blasint> ld_same = LdInOrder(m, row_major)) {
      data = m.data;
      transpose = conjugate ? CblasConjNoTrans : CblasNoTrans;
      ld = *ld_same;
    } else if (std::optional<blasint> ld_other = LdInOrder(m, !row_major)) {
      data = m.data;
      transpose = conjugate ? CblasConjTrans : CblasTrans;
      ld = *ld_other;
    } else {
      packed.resize(static_cast<size_t>(m.rows * m.cols));
      Matrix<T> dense = row_major ? Matrix<T>{packed.data(), m.rows, m.cols, m.cols, 1}
                                  : ColumnMajor(packed.data(), m.rows, m.cols);
      CopyMatrix(m, dense);
      data = packed.data();
      transpose = conjugate ? CblasConjNoTrans : CblasNoTrans;
      ld = static_cast<blasint>(std::max<int64_t>(row_major ? m.cols : m.rows, 1));
    }
  }
};

// c = op(a) @ op(b) with cblas_?gemm for T of float, double, complex<float>, complex<double>.
template <typename T>
void Gemm(const Matrix<const T>& a, bool conjugate_a, const Matrix<const T>& b, bool conjugate_b,
          const Matrix<T>& c) {
  // BLAS writes C in place when it is row- or column-major; that fixes the call's order.
  std::optional<blasint> ldc = LdInOrder(c, true);
  const bool row_major = ldc.has_value();
  if (!row_major) ldc = LdInOrder(c, false);
  if (!ldc) {
    std::vector<T> dense(static_cast<size_t>(c.rows * c.cols));
    const Matrix<T> temporary{dense.data(), c.rows, c.cols, c.cols, 1};
    Gemm(a, conjugate_a, b, conjugate_b, temporary);
    CopyMatrix(temporary, c);
    return;
  }
  // cblas's conjugate flags apply to complex types only.
  const GemmOperand<T> left(a, row_major, kIsComplex<T> && conjugate_a);
  const GemmOperand<T> right(b, row_major, kIsComplex<T> && conjugate_b);
  const CBLAS_ORDER order = row_major ? CblasRowMajor : CblasColMajor;
  const auto m = static_cast<blasint>(c.rows);
  const auto n = static_cast<blasint>(c.cols);
  const auto k = static_cast<blasint>(a.cols);
  const T one(1);
  const T zero(0);
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(order, left.transpose, right.transpose, m, n, k, one, left.data, left.ld,
                right.data, right.ld, zero, c.data, *ldc);
  } else if constexpr (std::is_same_v<T, double>) {
    cblas_dgemm(order, left.transpose, right.transpose, m, n, k, one, left.data, left.ld,
                right.data, right.ld, zero, c.data, *ldc);
  } else if constexpr (std::is_same_v<T, std::complex<float>>) {
    cblas_cgemm(order, left.transpose, right.transpose, m, n, k, &one, left.data, left.ld,
                right.data, right.ld, &zero, c.data, *ldc);
  } else {
    cblas_zgemm(order, left.transpose, right.transpose, m, n, k, &one, left.data, left.ld,
                right.data, right.ld, &zero, c.data, *ldc);
  }
}

// float16: the operands widened to float32 (exact), one sgemm accumulating in float32, each
// result rounded to half once.
void HalfGemm(const Matrix<const Half>& a, const Matrix<const Half>& b, const Matrix<Half>& c) {
  std::vector<float> wide_a(static_cast<size_t>(a.rows * a.cols));
  std::vector<float> wide_b(static_cast<size_t>(b.rows * b.cols));
  std::vector<float> wide_c(static_cast<size_t>(c.rows * c.cols));
  const Matrix<float> fa{wide_a.data(), a.rows, a.cols, a.cols, 1};
  const Matrix<float> fb{wide_b.data(), b.rows, b.cols, b.cols, 1};
  const Matrix<float> fc{wide_c.data(), c.rows, c.cols, c.cols, 1};
  CopyMatrix(a, fa);
  CopyMatrix(b, fb);
  Gemm<float>(fa, false, fb, false, fc);
  CopyMatrix(fc, c);
}

// Bool and integer products, as NumPy's loops: integers wrap (the sum of products is taken
// modulo 2^64, whose low bits are the wrapped result in any width), bool is "any a and b".
// Bool bytes are read as nonzero tests, since only 0 and 1 are valid `bool` objects.
template <typename T>
void LoopProduct(const Matrix<const T>& a, const Matrix<const T>& b, const Matrix<T>& c) {
  using Stored = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;
  const auto load = [](const T& element) { return *reinterpret_cast<const Stored*>(&element); };
  for (int64_t i = 0; i < c.rows; ++i) {
    for (int64_t j = 0; j < c.cols; ++j) {
      uint64_t sum = 0;
      for (int64_t p = 0; p < a.cols; ++p) {
        if constexpr (std::is_same_v<T, bool>) {
          sum |= (load(a(i, p)) != 0) & (load(b(p, j)) != 0);
        } else {
          sum += static_cast<uint64_t>(load(a(i, p))) * static_cast<uint64_t>(load(b(p, j)));
        }
      }
      *reinterpret_cast<Stored*>(&c(i, j)) = static_cast<Stored>(sum);
    }
  }
}

template <typename T>
absl::Status MatmulTyped(const MatmulCall& call) {
  const size_t rank = call.out.shape.size();
  const int64_t m = call.out.shape[rank - 2];
  const int64_t n = call.out.shape[rank - 1];
  const int64_t k = call.a.shape[rank - 1];
  const int64_t batches = BatchCount(call.out, 2);
  if constexpr (std::is_floating_point_v<T> || kIsComplex<T> || std::is_same_v<T, Half>) {
    if (!FitsBlas(m) || !FitsBlas(n) || !FitsBlas(k)) {
      return absl::InvalidArgumentError(fmt::format(
          "matmul of ({}, {}) and ({}, {}) matrices exceeds the 32-bit dimensions of the host's "
          "BLAS",
          m, k, k, n));
    }
  }
  std::unique_ptr<ScratchReceipt> receipt;
  if constexpr (std::is_same_v<T, Half>) {  // HalfGemm's float32 copies of a, b and c.
    AH_ASSIGN_OR_RETURN(receipt, PayForScratch(int64_t{4} * (m * k + k * n + m * n)));
  }
  for (int64_t index = 0; index < batches; ++index) {
    const Matrix<const T> a = MatrixOf<const T>(call.a, index);
    const Matrix<const T> b = MatrixOf<const T>(call.b, index);
    const Matrix<T> c = MatrixOf<T>(call.out, index);
    if (m == 0 || n == 0) continue;
    if constexpr (std::is_same_v<T, Half>) {
      HalfGemm(a, b, c);
    } else if constexpr (std::is_floating_point_v<T> || kIsComplex<T>) {
      if (k == 0) {  // An empty sum, which BLAS may leave unwritten.
        const T zero(0);
        CopyMatrix(Matrix<const T>{&zero, m, n, 0, 0}, c);
      } else {
        Gemm(a, call.conjugate_a, b, call.conjugate_b, c);
      }
    } else {
      LoopProduct(a, b, c);
    }
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------------------------
// LAPACK

// NumPy hands NaN to LAPACK and returns what comes out (NaN, or a convergence failure);
// LAPACKE's own NaN check would refuse such calls with an argument error instead.
void DisableLapackeNanCheck() {
  static std::once_flag once;
  std::call_once(once, [] { LAPACKE_set_nancheck(0); });
}

bool FitsLapack(int64_t value) {
  return value >= 0 && value <= std::numeric_limits<lapack_int>::max();
}

// Negative info names an invalid argument: a bug here, not a property of the data.
absl::Status ArgumentError(std::string_view routine, lapack_int info) {
  return absl::InternalError(
      fmt::format("LAPACK {}: argument {} is invalid (info {})", routine, -info, info));
}

// Runs fn(TypeTag<T>{}) for the LAPACK type of `dtype`.
template <typename F>
absl::Status VisitLapackDType(DType dtype, std::initializer_list<int64_t> extents, F&& f) {
  DisableLapackeNanCheck();
  for (int64_t extent : extents) {
    if (!FitsLapack(extent)) {
      return absl::InvalidArgumentError(fmt::format(
          "a matrix extent of {} exceeds the 32-bit dimensions of the host's LAPACK", extent));
    }
  }
  switch (dtype) {
    case DType::kFloat32:
    case DType::kFloat64:
    case DType::kComplex64:
    case DType::kComplex128:
      return VisitDType(dtype, [&](auto tag) -> absl::Status {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || kIsComplex<T>) {
          return f(tag);
        } else {
          return absl::InternalError("unreachable");
        }
      });
    default:
      return absl::InternalError(
          fmt::format("the host backend's LAPACK has no {} routines", DTypeName(dtype)));
  }
}

template <typename T>
bool AllFinite(const std::vector<T>& values) {
  return std::all_of(values.begin(), values.end(), [](const T& v) {
    if constexpr (kIsComplex<T>) {
      return std::isfinite(v.real()) && std::isfinite(v.imag());
    } else {
      return std::isfinite(v);
    }
  });
}

absl::Status SvdDidNotConverge() { return absl::FailedPreconditionError("SVD did not converge"); }

template <typename T>
absl::Status SvdTyped(const SvdCall& call) {
  using R = RealType<T>;
  const size_t rank = call.a.shape.size();
  const int64_t m = call.a.shape[rank - 2];
  const int64_t n = call.a.shape[rank - 1];
  const int64_t k = std::min(m, n);
  const char job = !call.compute_uv ? 'N' : call.full_matrices ? 'A' : 'S';
  const int64_t u_cols = call.full_matrices ? m : k;
  const int64_t vt_rows = call.full_matrices ? n : k;
  const lapack::SvdShape shape{.job = job,
                               .m = static_cast<lapack_int>(m),
                               .n = static_cast<lapack_int>(n),
                               .ldu = std::max<lapack_int>(m, 1),
                               .ldvt = std::max<lapack_int>(vt_rows, 1)};
  // The copies below, the input's included; LAPACK's workspace is paid for on its own.
  AH_ASSIGN_OR_RETURN(const std::unique_ptr<ScratchReceipt> receipt,
                      PayForScratch(static_cast<int64_t>(sizeof(T)) *
                                        (m * n + (call.compute_uv ? m * u_cols + vt_rows * n : 2)) +
                                    static_cast<int64_t>(sizeof(R)) * std::max<int64_t>(k, 1)));
  AH_ASSIGN_OR_RETURN(lapack::Workspace<T> gesdd, lapack::GesddWorkspace<T>(shape));
  std::vector<T> u(call.compute_uv ? m * u_cols : 1);
  std::vector<T> vt(call.compute_uv ? vt_rows * n : 1);
  std::vector<R> s(std::max<int64_t>(k, 1));
  for (int64_t index = 0; index < BatchCount(call.a, 2); ++index) {
    const Matrix<const T> a = MatrixOf<const T>(call.a, index);
    std::vector<T> work = Packed(a, n);
    // NumPy's gesdd fails on NaN and infinity: say so before LAPACK spends time on them.
    if (!AllFinite(work)) return SvdDidNotConverge();
    lapack_int info =
        lapack::Gesdd<T>(shape, work.data(), s.data(), u.data(), vt.data(), gesdd.work.data(),
                         gesdd.lwork(), gesdd.rwork.data(), gesdd.iwork.data());
    if (info > 0) {
      // The divide-and-conquer driver occasionally fails where plain QR iteration converges.
      work = Packed(a, n);
      AH_ASSIGN_OR_RETURN(lapack::Workspace<T> gesvd, lapack::GesvdWorkspace<T>(shape));
      info = lapack::Gesvd<T>(shape, work.data(), s.data(), u.data(), vt.data(), gesvd.work.data(),
                              gesvd.lwork(), gesvd.rwork.data());
    }
    if (info > 0) return SvdDidNotConverge();
    if (info < 0) return ArgumentError("gesdd", info);
    CopyMatrix(Matrix<const R>{s.data(), 1, k, 0, 1}, VectorOf<R>(call.s, index));
    if (call.compute_uv) {
      CopyMatrix(ColumnMajor<const T>(u.data(), m, u_cols), MatrixOf<T>(call.u, index));
      CopyMatrix(ColumnMajor<const T>(vt.data(), vt_rows, n), MatrixOf<T>(call.vh, index));
    }
  }
  return absl::OkStatus();
}

template <typename T>
absl::Status QrTyped(const QrCall& call) {
  const size_t rank = call.a.shape.size();
  const int64_t m = call.a.shape[rank - 2];
  const int64_t n = call.a.shape[rank - 1];
  const int64_t k = std::min(m, n);
  const int64_t q_cols = call.complete ? m : k;
  const int64_t r_rows = call.complete ? m : k;
  AH_ASSIGN_OR_RETURN(const std::unique_ptr<ScratchReceipt> receipt,
                      PayForScratch(static_cast<int64_t>(sizeof(T)) *
                                    (std::max<int64_t>(k, 1) + m * std::max(n, q_cols))));
  AH_ASSIGN_OR_RETURN(lapack::Workspace<T> workspace,
                      lapack::QrWorkspace<T>(static_cast<lapack_int>(m), static_cast<lapack_int>(n),
                                             static_cast<lapack_int>(q_cols),
                                             static_cast<lapack_int>(k), call.compute_q));
  std::vector<T> tau(std::max<int64_t>(k, 1));
  for (int64_t index = 0; index < BatchCount(call.a, 2); ++index) {
    // Room for Q's columns too: orgqr builds Q in place of the reflectors.
    std::vector<T> work = Packed(MatrixOf<const T>(call.a, index), std::max(n, q_cols));
    lapack_int info =
        lapack::Geqrf<T>(m, n, work.data(), tau.data(), workspace.work.data(), workspace.lwork());
    if (info < 0) return ArgumentError("geqrf", info);
    // R is the upper triangle of the first r_rows rows (rows past n are all zero).
    CopyMatrix(ColumnMajor<const T>(work.data(), r_rows, n, m), MatrixOf<T>(call.r, index),
               Part::kUpper);
    if (!call.compute_q) continue;
    info = lapack::Orgqr<T>(m, q_cols, k, work.data(), tau.data(), workspace.work.data(),
                            workspace.lwork());
    if (info < 0) return ArgumentError("orgqr", info);
    CopyMatrix(ColumnMajor<const T>(work.data(), m, q_cols), MatrixOf<T>(call.q, index));
  }
  return absl::OkStatus();
}

template <typename T>
absl::Status CholeskyTyped(const CholeskyCall& call) {
  const int64_t n = call.a.shape.back();
  const char uplo = call.upper ? 'U' : 'L';
  AH_ASSIGN_OR_RETURN(const std::unique_ptr<ScratchReceipt> receipt,
                      PayForScratch(static_cast<int64_t>(sizeof(T)) * n * n));
  for (int64_t index = 0; index < BatchCount(call.a, 2); ++index) {
    std::vector<T> work = Packed(MatrixOf<const T>(call.a, index), n);
    const lapack_int info =
        lapack::Call<T>(LAPACKE_spotrf, LAPACKE_dpotrf, LAPACKE_cpotrf, LAPACKE_zpotrf, uplo, n,
                        work.data(), std::max<int64_t>(n, 1));
    if (info > 0) return absl::FailedPreconditionError("Matrix is not positive definite");
    if (info < 0) return ArgumentError("potrf", info);
    CopyMatrix(ColumnMajor<const T>(work.data(), n, n), MatrixOf<T>(call.out, index),
               call.upper ? Part::kUpper : Part::kLower);
  }
  return absl::OkStatus();
}

template <typename T>
absl::Status EighTyped(const EighCall& call) {
  using R = RealType<T>;
  const int64_t n = call.a.shape.back();
  const char job = call.compute_vectors ? 'V' : 'N';
  const char uplo = call.upper ? 'U' : 'L';
  AH_ASSIGN_OR_RETURN(const std::unique_ptr<ScratchReceipt> receipt,
                      PayForScratch(static_cast<int64_t>(sizeof(T)) * n * n +
                                    static_cast<int64_t>(sizeof(R)) * std::max<int64_t>(n, 1)));
  AH_ASSIGN_OR_RETURN(lapack::Workspace<T> workspace,
                      lapack::EvdWorkspace<T>(job, uplo, static_cast<lapack_int>(n)));
  std::vector<R> w(std::max<int64_t>(n, 1));
  for (int64_t index = 0; index < BatchCount(call.a, 2); ++index) {
    std::vector<T> work = Packed(MatrixOf<const T>(call.a, index), n);
    const lapack_int info = lapack::Evd<T>(
        job, uplo, n, work.data(), w.data(), workspace.work.data(), workspace.lwork(),
        workspace.rwork.data(), workspace.lrwork(), workspace.iwork.data(), workspace.liwork());
    if (info > 0) return absl::FailedPreconditionError("Eigenvalues did not converge");
    if (info < 0) return ArgumentError("syevd", info);
    CopyMatrix(Matrix<const R>{w.data(), 1, n, 0, 1}, VectorOf<R>(call.w, index));
    if (call.compute_vectors) {
      CopyMatrix(ColumnMajor<const T>(work.data(), n, n), MatrixOf<T>(call.v, index));
    }
  }
  return absl::OkStatus();
}

// Whether every element of the matrix is finite (NumPy refuses eig of anything else).
template <typename T>
bool AllFinite(const Matrix<const T>& m) {
  for (int64_t i = 0; i < m.rows; ++i) {
    for (int64_t j = 0; j < m.cols; ++j) {
      if constexpr (kIsComplex<T>) {
        if (!std::isfinite(m(i, j).real()) || !std::isfinite(m(i, j).imag())) return false;
      } else {
        if (!std::isfinite(m(i, j))) return false;
      }
    }
  }
  return true;
}

// geev (lapack_drivers.h) of one column-major n x n matrix (overwritten): complex eigenvalues into
// w and, with vectors, complex right eigenvectors as the columns of the column-major v. Real
// matrices give LAPACK's packed pairs: for wi[j] > 0, columns j and j + 1 of vr hold the real and
// imaginary parts of the eigenvector of wr[j] + i wi[j], whose conjugate is the eigenvector of the
// next.
template <typename T>
lapack_int Eig(T* a, int64_t n, bool vectors, std::complex<RealType<T>>* w,
               std::complex<RealType<T>>* v, lapack::Workspace<T>& workspace) {
  using R = RealType<T>;
  const char jobvr = vectors ? 'V' : 'N';
  if constexpr (kIsComplex<T>) {
    return lapack::Geev<T>(jobvr, n, a, w, nullptr, v, workspace.work.data(), workspace.lwork(),
                           workspace.rwork.data());
  } else {
    std::vector<R> wr(static_cast<size_t>(n)), wi(static_cast<size_t>(n));
    std::vector<R> vr(vectors ? static_cast<size_t>(n * n) : 1);
    const lapack_int info = lapack::Geev<T>(jobvr, n, a, wr.data(), wi.data(), vr.data(),
                                            workspace.work.data(), workspace.lwork(), nullptr);
    if (info != 0) return info;
    for (int64_t j = 0; j < n; ++j) w[j] = {wr[j], wi[j]};
    if (!vectors) return 0;
    for (int64_t j = 0; j < n; ++j) {
      const R* re = &vr[static_cast<size_t>(j * n)];
      if (wi[j] > 0 && j + 1 < n) {  // A conjugate pair: columns j and j + 1.
        const R* im = re + n;
        for (int64_t i = 0; i < n; ++i) {
          v[j * n + i] = {re[i], im[i]};
          v[(j + 1) * n + i] = {re[i], -im[i]};
        }
        ++j;
      } else {
        for (int64_t i = 0; i < n; ++i) v[j * n + i] = {re[i], R(0)};
      }
    }
    return 0;
  }
}

template <typename T>
absl::Status EigTyped(const EigCall& call) {
  using C = std::complex<RealType<T>>;
  const int64_t n = call.a.shape.back();
  // w and v, the input's copy, and Geev's real eigenvalue parts and vectors for real input.
  AH_ASSIGN_OR_RETURN(
      const std::unique_ptr<ScratchReceipt> receipt,
      PayForScratch(static_cast<int64_t>(sizeof(C)) * (n + (call.compute_vectors ? n * n : 1)) +
                    static_cast<int64_t>(sizeof(T)) * n * n +
                    (kIsComplex<T> ? 0
                                   : static_cast<int64_t>(sizeof(RealType<T>)) *
                                         (2 * n + (call.compute_vectors ? n * n : 1)))));
  AH_ASSIGN_OR_RETURN(
      lapack::Workspace<T> workspace,
      lapack::GeevWorkspace<T>(call.compute_vectors ? 'V' : 'N', static_cast<lapack_int>(n)));
  std::vector<C> w(static_cast<size_t>(std::max<int64_t>(n, 1)));
  std::vector<C> v(call.compute_vectors ? static_cast<size_t>(n * n) : 1);
  for (int64_t index = 0; index < BatchCount(call.a, 2); ++index) {
    const Matrix<const T> a = MatrixOf<const T>(call.a, index);
    if (!AllFinite(a)) return absl::FailedPreconditionError("Array must not contain infs or NaNs");
    std::vector<T> work = Packed(a, n);
    const lapack_int info =
        Eig(work.data(), n, call.compute_vectors, w.data(), v.data(), workspace);
    if (info > 0) return absl::FailedPreconditionError("Eigenvalues did not converge");
    if (info < 0) return ArgumentError("geev", info);
    CopyMatrix(Matrix<const C>{w.data(), 1, n, 0, 1}, VectorOf<C>(call.w, index));
    if (call.compute_vectors) {
      CopyMatrix(ColumnMajor<const C>(v.data(), n, n), MatrixOf<C>(call.v, index));
    }
  }
  return absl::OkStatus();
}

template <typename T>
absl::Status SolveTyped(const SolveCall& call) {
  const int64_t n = call.a.shape.back();
  const int64_t columns = call.x.shape.back();
  const lapack_int ld = std::max<lapack_int>(n, 1);
  AH_ASSIGN_OR_RETURN(
      const std::unique_ptr<ScratchReceipt> receipt,
      PayForScratch(static_cast<int64_t>(sizeof(T)) * (n * n + n * std::max(columns, n)) +
                    static_cast<int64_t>(sizeof(lapack_int)) * std::max<int64_t>(n, 1)));
  std::vector<lapack_int> pivots(std::max<int64_t>(n, 1));
  for (int64_t index = 0; index < BatchCount(call.a, 2); ++index) {
    std::vector<T> a = Packed(MatrixOf<const T>(call.a, index), n);
    std::vector<T> x;
    if (call.b) {
      x = Packed(MatrixOf<const T>(*call.b, index), columns);
    } else {  // inv: solve against the identity.
      x.assign(static_cast<size_t>(n * n), T(0));
      for (int64_t i = 0; i < n; ++i) x[i * n + i] = T(1);
    }
    const lapack_int info =
        lapack::Call<T>(LAPACKE_sgesv, LAPACKE_dgesv, LAPACKE_cgesv, LAPACKE_zgesv, n, columns,
                        a.data(), ld, pivots.data(), x.data(), ld);
    if (info > 0) return absl::FailedPreconditionError("Singular matrix");
    if (info < 0) return ArgumentError("gesv", info);
    CopyMatrix(ColumnMajor<const T>(x.data(), n, columns), MatrixOf<T>(call.x, index));
  }
  return absl::OkStatus();
}

template <typename T>
absl::Status SlogdetTyped(const SlogdetCall& call) {
  using R = RealType<T>;
  const int64_t n = call.a.shape.back();
  AH_ASSIGN_OR_RETURN(
      const std::unique_ptr<ScratchReceipt> receipt,
      PayForScratch(static_cast<int64_t>(sizeof(T)) * n * n +
                    static_cast<int64_t>(sizeof(lapack_int)) * std::max<int64_t>(n, 1)));
  std::vector<lapack_int> pivots(std::max<int64_t>(n, 1));
  for (int64_t index = 0; index < BatchCount(call.a, 2); ++index) {
    std::vector<T> lu = Packed(MatrixOf<const T>(call.a, index), n);
    const lapack_int info =
        lapack::Call<T>(LAPACKE_sgetrf, LAPACKE_dgetrf, LAPACKE_cgetrf, LAPACKE_zgetrf, n, n,
                        lu.data(), std::max<int64_t>(n, 1), pivots.data());
    if (info < 0) return ArgumentError("getrf", info);
    // det = prod(diag(U)) * (-1)^(row swaps): its sign (a unit complex number) and log|det|.
    T sign(1);
    R log_abs = 0;
    if (info > 0) {  // An exactly zero pivot: singular, as NumPy answers it.
      sign = T(0);
      log_abs = -std::numeric_limits<R>::infinity();
    } else {
      for (int64_t i = 0; i < n; ++i) {
        const T pivot = lu[i * n + i];
        const R magnitude = std::abs(pivot);
        if (pivots[i] != i + 1) sign = -sign;
        sign *= pivot / magnitude;
        log_abs += std::log(magnitude);
      }
    }
    ScalarOf<T>(call.sign, index) = sign;
    ScalarOf<R>(call.logabsdet, index) = log_abs;
  }
  return absl::OkStatus();
}

// Runs a body, turning allocation failures of the work copies into RESOURCE_EXHAUSTED.
template <typename F>
absl::Status Guarded(std::string_view what, F&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(fmt::format("out of host memory for {}", what));
  }
}

}  // namespace
}  // namespace host

absl::Status CpuLinalg::Matmul(QueueBinding& queue, const MatmulCall& call) {
  AH_ASSIGN_OR_RETURN(const HostCall held, HostCall::Enter(queue));
  return host::Guarded("matmul", [&] {
    return host::VisitDType(call.compute_dtype, [&](auto tag) {
      return host::MatmulTyped<typename decltype(tag)::type>(call);
    });
  });
}

absl::Status CpuLinalg::Svd(QueueBinding& queue, const SvdCall& call) {
  AH_ASSIGN_OR_RETURN(const HostCall held, HostCall::Enter(queue));
  const size_t rank = call.a.shape.size();
  return host::Guarded("svd", [&] {
    return host::VisitLapackDType(
        call.a.dtype, {call.a.shape[rank - 2], call.a.shape[rank - 1]},
        [&](auto tag) { return host::SvdTyped<typename decltype(tag)::type>(call); });
  });
}

absl::Status CpuLinalg::Qr(QueueBinding& queue, const QrCall& call) {
  AH_ASSIGN_OR_RETURN(const HostCall held, HostCall::Enter(queue));
  const size_t rank = call.a.shape.size();
  return host::Guarded("qr", [&] {
    return host::VisitLapackDType(
        call.a.dtype, {call.a.shape[rank - 2], call.a.shape[rank - 1]},
        [&](auto tag) { return host::QrTyped<typename decltype(tag)::type>(call); });
  });
}

absl::Status CpuLinalg::Cholesky(QueueBinding& queue, const CholeskyCall& call) {
  AH_ASSIGN_OR_RETURN(const HostCall held, HostCall::Enter(queue));
  return host::Guarded("cholesky", [&] {
    return host::VisitLapackDType(call.a.dtype, {call.a.shape.back()}, [&](auto tag) {
      return host::CholeskyTyped<typename decltype(tag)::type>(call);
    });
  });
}

absl::Status CpuLinalg::Eigh(QueueBinding& queue, const EighCall& call) {
  AH_ASSIGN_OR_RETURN(const HostCall held, HostCall::Enter(queue));
  return host::Guarded("eigh", [&] {
    return host::VisitLapackDType(call.a.dtype, {call.a.shape.back()}, [&](auto tag) {
      return host::EighTyped<typename decltype(tag)::type>(call);
    });
  });
}

absl::Status CpuLinalg::Eig(QueueBinding& queue, const EigCall& call) {
  AH_ASSIGN_OR_RETURN(const HostCall held, HostCall::Enter(queue));
  return host::Guarded("eig", [&] {
    return host::VisitLapackDType(call.a.dtype, {call.a.shape.back()}, [&](auto tag) {
      return host::EigTyped<typename decltype(tag)::type>(call);
    });
  });
}

absl::Status CpuLinalg::Solve(QueueBinding& queue, const SolveCall& call) {
  AH_ASSIGN_OR_RETURN(const HostCall held, HostCall::Enter(queue));
  return host::Guarded("solve", [&] {
    return host::VisitLapackDType(
        call.a.dtype, {call.a.shape.back(), call.x.shape.back()},
        [&](auto tag) { return host::SolveTyped<typename decltype(tag)::type>(call); });
  });
}

absl::Status CpuLinalg::Slogdet(QueueBinding& queue, const SlogdetCall& call) {
  AH_ASSIGN_OR_RETURN(const HostCall held, HostCall::Enter(queue));
  return host::Guarded("slogdet", [&] {
    return host::VisitLapackDType(call.a.dtype, {call.a.shape.back()}, [&](auto tag) {
      return host::SlogdetTyped<typename decltype(tag)::type>(call);
    });
  });
}

}  // namespace arrayhub
