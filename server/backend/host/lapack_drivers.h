// The LAPACK routines the CPU backend's linear algebra calls, with their workspace charged to
// the caller's tenant before it is allocated. LAPACKE's high-level drivers (LAPACKE_sgesdd, ...)
// allocate their workspace themselves, unseen by the tenant's memory quota; gesdd's is several
// times its matrix. So each routine here asks LAPACK for its workspace (lwork = -1), pays for it
// (PayForScratch), allocates it, and calls LAPACKE's _work variant with it.
// Column-major throughout; included by host_linalg.cc only.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

// LAPACK's complex types as std::complex, so that complex matrices pass as they are stored.
#define lapack_complex_float std::complex<float>
#define lapack_complex_double std::complex<double>
#include <lapacke.h>

#include "absl/status/statusor.h"
#include "server/backend/host/host_types.h"
#include "server/common/scratch_payer.h"
#include "server/common/status_macros.h"

namespace arrayhub::host::lapack {

// Calls the column-major LAPACKE routine of T's precision: s, d, c or z.
template <typename T, typename S, typename D, typename C, typename Z, typename... Args>
lapack_int Call(S s, D d, C c, Z z, Args... args) {
  if constexpr (std::is_same_v<T, float>) {
    return s(LAPACK_COL_MAJOR, args...);
  } else if constexpr (std::is_same_v<T, double>) {
    return d(LAPACK_COL_MAJOR, args...);
  } else if constexpr (std::is_same_v<T, std::complex<float>>) {
    return c(LAPACK_COL_MAJOR, args...);
  } else {
    return z(LAPACK_COL_MAJOR, args...);
  }
}

// One routine's workspace, paid for. `work` has lwork elements, `rwork` (complex routines)
// lrwork, `iwork` liwork; each at least one.
template <typename T>
struct Workspace {
  std::vector<T> work;
  std::vector<RealType<T>> rwork;
  std::vector<lapack_int> iwork;
  std::unique_ptr<ScratchReceipt> receipt;

  lapack_int lwork() const { return static_cast<lapack_int>(work.size()); }
  lapack_int lrwork() const { return static_cast<lapack_int>(rwork.size()); }
  lapack_int liwork() const { return static_cast<lapack_int>(iwork.size()); }
};

// A size a workspace query wrote into a T: LAPACK returns it as a floating-point value, which
// single precision may round below the integer it stood for, so a little is added.
template <typename T>
int64_t QueriedSize(const T& answer) {
  const double size = static_cast<double>(std::real(answer));
  return static_cast<int64_t>(std::ceil(size * (1 + 1e-6))) + 1;
}

// A workspace of the given sizes (elements), charged before it is allocated.
template <typename T>
absl::StatusOr<Workspace<T>> NewWorkspace(int64_t lwork, int64_t lrwork, int64_t liwork) {
  lwork = std::max<int64_t>(lwork, 1);
  lrwork = std::max<int64_t>(lrwork, 1);
  liwork = std::max<int64_t>(liwork, 1);
  constexpr int64_t kMost = std::numeric_limits<lapack_int>::max();
  if (lwork > kMost || lrwork > kMost || liwork > kMost) {
    return absl::InvalidArgumentError(
        "the matrix needs more LAPACK workspace than the host's 32-bit LAPACK can index");
  }
  Workspace<T> workspace;
  AH_ASSIGN_OR_RETURN(workspace.receipt,
                      PayForScratch(static_cast<int64_t>(sizeof(T)) * lwork +
                                    static_cast<int64_t>(sizeof(RealType<T>)) * lrwork +
                                    static_cast<int64_t>(sizeof(lapack_int)) * liwork));
  workspace.work.resize(static_cast<size_t>(lwork));
  workspace.rwork.resize(static_cast<size_t>(lrwork));
  workspace.iwork.resize(static_cast<size_t>(liwork));
  return workspace;
}

// The sizes a workspace query asked for, in elements.
struct QueriedSizes {
  int64_t lwork = 1, lrwork = 1, liwork = 1;
};

// Runs `call(work, lwork, rwork, lrwork, iwork, liwork)` as a workspace query (every size -1).
template <typename T, typename F>
QueriedSizes Query(F&& call) {
  T work{};
  RealType<T> rwork{};
  lapack_int iwork = 0;
  call(&work, lapack_int{-1}, &rwork, lapack_int{-1}, &iwork, lapack_int{-1});
  return {QueriedSize(work), QueriedSize(rwork), static_cast<int64_t>(iwork)};
}

// ---- SVD: gesdd (divide and conquer), and gesvd (QR iteration) where gesdd fails ----

struct SvdShape {
  char job;  // 'N', 'S' or 'A'
  lapack_int m, n, ldu, ldvt;
};

template <typename T>
lapack_int Gesdd(const SvdShape& x, T* a, RealType<T>* s, T* u, T* vt, T* work, lapack_int lwork,
                 RealType<T>* rwork, lapack_int* iwork) {
  const lapack_int lda = std::max<lapack_int>(x.m, 1);
  if constexpr (kIsComplex<T>) {
    return Call<T>(LAPACKE_sgesdd_work, LAPACKE_dgesdd_work, LAPACKE_cgesdd_work,
                   LAPACKE_zgesdd_work, x.job, x.m, x.n, a, lda, s, u, x.ldu, vt, x.ldvt, work,
                   lwork, rwork, iwork);
  } else {
    return Call<T>(LAPACKE_sgesdd_work, LAPACKE_dgesdd_work, LAPACKE_cgesdd_work,
                   LAPACKE_zgesdd_work, x.job, x.m, x.n, a, lda, s, u, x.ldu, vt, x.ldvt, work,
                   lwork, iwork);
  }
}

// gesdd's workspace: work as queried; iwork 8 min(m, n); rwork (complex) as LAPACKE sizes it.
template <typename T>
absl::StatusOr<Workspace<T>> GesddWorkspace(const SvdShape& x) {
  const int64_t small = std::min(x.m, x.n), large = std::max(x.m, x.n);
  const QueriedSizes asked = Query<T>([&](T* work, lapack_int lwork, RealType<T>* rwork, lapack_int,
                                          lapack_int* iwork, lapack_int) {
    return Gesdd<T>(x, nullptr, nullptr, nullptr, nullptr, work, lwork, rwork, iwork);
  });
  const int64_t lrwork = !kIsComplex<T> ? 1
                         : x.job == 'N'
                             ? 7 * small
                             : small * std::max(5 * small + 7, 2 * large + 2 * small + 1);
  return NewWorkspace<T>(asked.lwork, lrwork, 8 * small);
}

template <typename T>
lapack_int Gesvd(const SvdShape& x, T* a, RealType<T>* s, T* u, T* vt, T* work, lapack_int lwork,
                 RealType<T>* rwork) {
  const lapack_int lda = std::max<lapack_int>(x.m, 1);
  if constexpr (kIsComplex<T>) {
    return Call<T>(LAPACKE_sgesvd_work, LAPACKE_dgesvd_work, LAPACKE_cgesvd_work,
                   LAPACKE_zgesvd_work, x.job, x.job, x.m, x.n, a, lda, s, u, x.ldu, vt, x.ldvt,
                   work, lwork, rwork);
  } else {
    return Call<T>(LAPACKE_sgesvd_work, LAPACKE_dgesvd_work, LAPACKE_cgesvd_work,
                   LAPACKE_zgesvd_work, x.job, x.job, x.m, x.n, a, lda, s, u, x.ldu, vt, x.ldvt,
                   work, lwork);
  }
}

// gesvd's workspace: work as queried; rwork (complex) 5 min(m, n).
template <typename T>
absl::StatusOr<Workspace<T>> GesvdWorkspace(const SvdShape& x) {
  const QueriedSizes asked = Query<T>(
      [&](T* work, lapack_int lwork, RealType<T>* rwork, lapack_int, lapack_int*, lapack_int) {
        return Gesvd<T>(x, nullptr, nullptr, nullptr, nullptr, work, lwork, rwork);
      });
  return NewWorkspace<T>(asked.lwork, kIsComplex<T> ? 5 * std::min(x.m, x.n) : 1, 1);
}

// ---- QR: geqrf, then orgqr/ungqr for Q ----

template <typename T>
lapack_int Geqrf(lapack_int m, lapack_int n, T* a, T* tau, T* work, lapack_int lwork) {
  return Call<T>(LAPACKE_sgeqrf_work, LAPACKE_dgeqrf_work, LAPACKE_cgeqrf_work, LAPACKE_zgeqrf_work,
                 m, n, a, std::max<lapack_int>(m, 1), tau, work, lwork);
}

template <typename T>
lapack_int Orgqr(lapack_int m, lapack_int n, lapack_int k, T* a, const T* tau, T* work,
                 lapack_int lwork) {
  return Call<T>(LAPACKE_sorgqr_work, LAPACKE_dorgqr_work, LAPACKE_cungqr_work, LAPACKE_zungqr_work,
                 m, n, k, a, std::max<lapack_int>(m, 1), tau, work, lwork);
}

// One workspace for both: the larger of their queries.
template <typename T>
absl::StatusOr<Workspace<T>> QrWorkspace(lapack_int m, lapack_int n, lapack_int q_cols,
                                         lapack_int k, bool compute_q) {
  int64_t most = Query<T>([&](T* work, lapack_int size, auto&&...) {
                   return Geqrf<T>(m, n, nullptr, nullptr, work, size);
                 }).lwork;
  if (compute_q) {
    most = std::max(most, Query<T>([&](T* work, lapack_int size, auto&&...) {
                            return Orgqr<T>(m, q_cols, k, nullptr, nullptr, work, size);
                          }).lwork);
  }
  return NewWorkspace<T>(most, 1, 1);
}

// ---- Hermitian eigenvalues: syevd/heevd ----

template <typename T>
lapack_int Evd(char job, char uplo, lapack_int n, T* a, RealType<T>* w, T* work, lapack_int lwork,
               RealType<T>* rwork, lapack_int lrwork, lapack_int* iwork, lapack_int liwork) {
  const lapack_int lda = std::max<lapack_int>(n, 1);
  if constexpr (kIsComplex<T>) {
    return Call<T>(LAPACKE_ssyevd_work, LAPACKE_dsyevd_work, LAPACKE_cheevd_work,
                   LAPACKE_zheevd_work, job, uplo, n, a, lda, w, work, lwork, rwork, lrwork, iwork,
                   liwork);
  } else {
    return Call<T>(LAPACKE_ssyevd_work, LAPACKE_dsyevd_work, LAPACKE_cheevd_work,
                   LAPACKE_zheevd_work, job, uplo, n, a, lda, w, work, lwork, iwork, liwork);
  }
}

// All three sizes as the query asks.
template <typename T>
absl::StatusOr<Workspace<T>> EvdWorkspace(char job, char uplo, lapack_int n) {
  const QueriedSizes asked = Query<T>([&](T* work, lapack_int lwork, RealType<T>* rwork,
                                          lapack_int lrwork, lapack_int* iwork, lapack_int liwork) {
    return Evd<T>(job, uplo, n, nullptr, nullptr, work, lwork, rwork, lrwork, iwork, liwork);
  });
  return NewWorkspace<T>(asked.lwork, kIsComplex<T> ? asked.lrwork : 1, asked.liwork);
}

// ---- General eigenvalues: geev (right vectors only) ----

// Real T: wr and wi; complex T: w in wr (complex), wi unused.
template <typename T>
lapack_int Geev(char jobvr, lapack_int n, T* a, T* w_or_wr, RealType<T>* wi, T* vr, T* work,
                lapack_int lwork, RealType<T>* rwork) {
  const lapack_int ld = std::max<lapack_int>(n, 1);
  if constexpr (kIsComplex<T>) {
    return Call<T>(LAPACKE_sgeev_work, LAPACKE_dgeev_work, LAPACKE_cgeev_work, LAPACKE_zgeev_work,
                   'N', jobvr, n, a, ld, w_or_wr, nullptr, 1, vr, ld, work, lwork, rwork);
  } else {
    return Call<T>(LAPACKE_sgeev_work, LAPACKE_dgeev_work, LAPACKE_cgeev_work, LAPACKE_zgeev_work,
                   'N', jobvr, n, a, ld, w_or_wr, wi, nullptr, 1, vr, ld, work, lwork);
  }
}

// geev's workspace: work as queried; rwork (complex) 2n.
template <typename T>
absl::StatusOr<Workspace<T>> GeevWorkspace(char jobvr, lapack_int n) {
  const QueriedSizes asked =
      Query<T>([&](T* work, lapack_int lwork, RealType<T>* rwork, auto&&...) {
        return Geev<T>(jobvr, n, nullptr, nullptr, nullptr, nullptr, work, lwork, rwork);
      });
  return NewWorkspace<T>(asked.lwork, kIsComplex<T> ? 2 * int64_t{n} : 1, 1);
}

}  // namespace arrayhub::host::lapack
