// CudaLinalg::Svd. The algorithm per shape, from measurements on an H100 against
// cupy.linalg.svd (cuSOLVER's gesvd) at equal accuracy (bench/RESULTS.md):
// - Matrices up to 64 on their longer side: the batched one-sided Jacobi kernel of
//   jacobi_svd.cu, the whole stack in one launch (cuSOLVER's gesvdjBatched stops at 32, and a
//   loop of single-matrix calls costs a millisecond or more per matrix).
// - Larger matrices, one at a time: gesvdp, a polar decomposition (QR-based Halley
//   iterations: matrix products mostly) followed by a symmetric eigensolver, several times
//   faster than gesvd and as accurate, with one catch: when a singular value lies below about
//   sqrt(eps) * sigma_max, gesvdp perturbs the matrix and reports by how much. A perturbation
//   above rounding level rejects the result; float32 and complex64 then retry in float64,
//   whose sqrt(eps) bar is far lower (and start there from kPromoteFrom columns on, since
//   large random matrices are already that ill-conditioned), and the last resort is gesvd
//   (QR iteration), which is slow but never loses accuracy.
// - gesvdj was measured and rejected: 5-100x the error of gesvd from 64 to 4096. Tall matrices
//   go to gesvdp directly, which beat a QR factorization followed by the SVD of R.
// Wide matrices are solved as their transpose: A^T = conj(V) S U^T.
#include <cfloat>
#include <cmath>
#include <map>

#include "server/backend/cuda/cuda_check.h"
#include "server/backend/cuda/cuda_parts.h"
#include "server/backend/cuda/cuda_queue.h"
#include "server/backend/cuda/jacobi_svd.cuh"
#include "server/backend/cuda/linalg_context.h"
#include "server/backend/cuda/linalg_kernels.cuh"
#include "server/backend/cuda/linalg_status.h"
#include "server/backend/cuda/linalg_types.h"
#include "server/backend/cuda/matrix_stack.h"
#include "server/common/status_macros.h"

namespace arrayhub {

namespace {

// From this many columns on, float32 and complex64 go to float64 gesvdp without trying their
// own precision first.
constexpr int64_t kPromoteFrom = 2048;

bool IsSinglePrecision(DType dtype) {
  return dtype == DType::kFloat32 || dtype == DType::kComplex64;
}

DType DoublePrecision(DType dtype) {
  return dtype == DType::kFloat32 ? DType::kFloat64 : DType::kComplex128;
}

absl::Status NotConverged() { return absl::FailedPreconditionError("SVD did not converge"); }

// One Svd call. The problem is solved in its tall orientation (rows >= cols); `u_target_` and
// `v_target_` say where element (i, j) of that problem's U and V goes in the outputs.
class SvdJob {
 public:
  SvdJob(const SvdCall& call, LinalgCall& linalg);
  absl::Status Run();

 private:
  // Room for one matrix's problem and results in one compute dtype, reused along the stack.
  struct Matrices {
    void* a = nullptr;  // rows x cols, column-major; destroyed by the solvers.
    void* s = nullptr;  // cols singular values.
    void* u = nullptr;  // rows x u_cols, column-major.
    void* v = nullptr;  // cols x cols, column-major: V (gesvdp) or V^H (gesvd).
    int* info = nullptr;
  };

  absl::Status RunJacobi();
  absl::Status RunOne(int64_t b);
  // Whether gesvdp in `compute` precision gave an accurate result (then written out).
  absl::StatusOr<bool> Polar(int64_t b, DType compute);
  absl::Status QrIteration(int64_t b);

  absl::StatusOr<Matrices*> MatricesFor(DType compute);
  absl::StatusOr<void*> DeviceWorkspace(size_t bytes);
  void* HostWorkspace(size_t bytes);
  // Matrix b, column-major, into `into` (of `compute` precision).
  absl::Status Load(int64_t b, DType compute, void* into);
  std::byte* SingularValues(int64_t b) const;
  // Writes U and V (or V^H when v_is_adjoint) of matrix b into the outputs.
  absl::Status WriteVectors(int64_t b, const void* u, const void* v, bool v_is_adjoint);

  LinalgCall& linalg_;
  const DType dtype_;
  const bool vectors_;
  const bool full_;
  MatrixStack a_;
  int64_t rows_ = 0;
  int64_t cols_ = 0;
  int64_t u_cols_ = 0;
  std::byte* s_;
  MatrixStack u_target_;
  MatrixStack v_target_;
  bool v_conjugate_ = false;
  std::map<DType, Matrices> matrices_;
  void* device_work_ = nullptr;
  size_t device_work_bytes_ = 0;
  std::vector<std::byte> host_work_;
};

SvdJob::SvdJob(const SvdCall& call, LinalgCall& linalg)
    : linalg_(linalg),
      dtype_(call.a.dtype),
      vectors_(call.compute_uv),
      full_(call.full_matrices),
      s_(static_cast<std::byte*>(call.s.buffer->data()) + call.s.offset_bytes) {
  const MatrixStack a = StackOf(call.a);
  const bool tall = a.rows >= a.cols;
  a_ = tall ? a : Transposed(a);
  rows_ = a_.rows;
  cols_ = a_.cols;
  u_cols_ = full_ ? rows_ : cols_;
  if (!vectors_) return;
  // Tall: u = U and vh = V^H. Wide, from A^T = U' S V'^H: u = conj(V') and vh = U'^T. Only
  // V ever needs conjugating.
  const MatrixStack u = StackOf(call.u);
  const MatrixStack vh = StackOf(call.vh);
  u_target_ = tall ? u : Transposed(vh);
  v_target_ = tall ? Transposed(vh) : u;
  v_conjugate_ = IsComplex(dtype_);
}

absl::Status SvdJob::Run() {
  if (a_.count == 0) return absl::OkStatus();
  if (cols_ == 0) {
    // No singular values; full U and V are identities (the other of the two is empty).
    if (vectors_ && full_) {
      for (const MatrixStack* target : {&u_target_, &v_target_}) {
        AH_CUDA_RETURN_IF_ERROR(LaunchFillIdentity(dtype_, target->count, target->rows,
                                                   target->cols, target->data, linalg_.stream()));
      }
    }
    return absl::OkStatus();
  }
  if (rows_ <= kJacobiMaxRows) return RunJacobi();
  for (int64_t b = 0; b < a_.count; ++b) AH_RETURN_IF_ERROR(RunOne(b));
  return absl::OkStatus();
}

absl::Status SvdJob::RunJacobi() {
  AH_ASSIGN_OR_RETURN(int* info, linalg_.Scratch<int>(a_.count));
  JacobiSvdArgs args;
  args.dtype = dtype_;
  args.count = a_.count;
  args.m = static_cast<int>(rows_);
  args.n = static_cast<int>(cols_);
  args.s = s_;
  args.info = info;
  AH_ASSIGN_OR_RETURN(args.a, DeviceLayout(a_, linalg_));
  if (vectors_) {
    AH_ASSIGN_OR_RETURN(args.u, DeviceLayout(u_target_, linalg_));
    args.u_columns = static_cast<int>(u_cols_);
    AH_ASSIGN_OR_RETURN(args.v, DeviceLayout(v_target_, linalg_));
    args.conjugate_v = v_conjugate_;
  }
  AH_CUDA_RETURN_IF_ERROR(LaunchJacobiSvd(args, linalg_.stream()));
  AH_ASSIGN_OR_RETURN(const std::vector<int> failed, linalg_.Download(info, a_.count));
  // Matrices Jacobi could not finish (or that hold NaN or infinity) get the general path,
  // which either solves them or reports non-convergence.
  for (int64_t b = 0; b < a_.count; ++b) {
    if (failed[b] != 0) AH_RETURN_IF_ERROR(RunOne(b));
  }
  return absl::OkStatus();
}

absl::Status SvdJob::RunOne(int64_t b) {
  const bool single = IsSinglePrecision(dtype_);
  if (!(single && cols_ >= kPromoteFrom)) {
    AH_ASSIGN_OR_RETURN(const bool accurate, Polar(b, dtype_));
    if (accurate) return absl::OkStatus();
  }
  if (single) {
    AH_ASSIGN_OR_RETURN(const bool accurate, Polar(b, DoublePrecision(dtype_)));
    if (accurate) return absl::OkStatus();
  }
  return QrIteration(b);
}

absl::StatusOr<bool> SvdJob::Polar(int64_t b, DType compute) {
  AH_ASSIGN_OR_RETURN(Matrices* const scratch, MatricesFor(compute));
  AH_RETURN_IF_ERROR(Load(b, compute, scratch->a));
  const cudaDataType type = CudaDataType(compute);
  const cudaDataType real_type = CudaDataType(RealDType(compute));
  const cusolverEigMode_t jobz = vectors_ ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  const int economy = full_ ? 0 : 1;
  // In the caller's precision the singular values go straight to the output.
  void* const s = compute == dtype_ ? SingularValues(b) : scratch->s;
  size_t device_bytes = 0;
  size_t host_bytes = 0;
  AH_CUSOLVER_RETURN_IF_ERROR(cusolverDnXgesvdp_bufferSize(
      linalg_.cusolver(), linalg_.params(), jobz, economy, rows_, cols_, type, scratch->a, rows_,
      real_type, s, type, scratch->u, rows_, type, scratch->v, cols_, type, &device_bytes,
      &host_bytes));
  AH_ASSIGN_OR_RETURN(void* const work, DeviceWorkspace(device_bytes));
  double perturbation = 0;
  AH_CUSOLVER_RETURN_IF_ERROR(cusolverDnXgesvdp(
      linalg_.cusolver(), linalg_.params(), jobz, economy, rows_, cols_, type, scratch->a, rows_,
      real_type, s, type, scratch->u, rows_, type, scratch->v, cols_, type, work, device_bytes,
      HostWorkspace(host_bytes), host_bytes, scratch->info, &perturbation));
  AH_ASSIGN_OR_RETURN(const std::vector<int> info, linalg_.Download(scratch->info, 1));
  if (info[0] < 0) return absl::InternalError(fmt::format("gesvdp: argument {} invalid", -info[0]));
  if (info[0] > 0) return false;
  double largest = 0;
  if (RealDType(compute) == DType::kFloat32) {
    AH_ASSIGN_OR_RETURN(const std::vector<float> first,
                        linalg_.Download(static_cast<float*>(s), 1));
    largest = first[0];
  } else {
    AH_ASSIGN_OR_RETURN(const std::vector<double> first,
                        linalg_.Download(static_cast<double*>(s), 1));
    largest = first[0];
  }
  // A shift of the singular values by more than the output precision's rounding of the
  // largest one is an inaccurate result (also when it is NaN). A zero matrix has no polar
  // factor to build vectors from: gesvd handles it.
  const double epsilon = IsSinglePrecision(dtype_) ? FLT_EPSILON : DBL_EPSILON;
  if (!(perturbation <= epsilon * largest)) return false;
  if (vectors_ && !(largest > 0)) return false;
  if (compute == dtype_) {
    if (vectors_) AH_RETURN_IF_ERROR(WriteVectors(b, scratch->u, scratch->v, false));
    return true;
  }
  // Back to single precision: values into the output, vectors through single scratch.
  const int64_t reals_per_element = IsComplex(dtype_) ? 2 : 1;
  AH_CUDA_RETURN_IF_ERROR(LaunchNarrow(static_cast<const double*>(s),
                                       reinterpret_cast<float*>(SingularValues(b)), cols_,
                                       linalg_.stream()));
  if (vectors_) {
    AH_ASSIGN_OR_RETURN(Matrices* const single, MatricesFor(dtype_));
    AH_CUDA_RETURN_IF_ERROR(LaunchNarrow(static_cast<const double*>(scratch->u),
                                         static_cast<float*>(single->u),
                                         rows_ * u_cols_ * reals_per_element, linalg_.stream()));
    AH_CUDA_RETURN_IF_ERROR(LaunchNarrow(static_cast<const double*>(scratch->v),
                                         static_cast<float*>(single->v),
                                         cols_ * cols_ * reals_per_element, linalg_.stream()));
    AH_RETURN_IF_ERROR(WriteVectors(b, single->u, single->v, false));
  }
  return true;
}

absl::Status SvdJob::QrIteration(int64_t b) {
  AH_ASSIGN_OR_RETURN(Matrices* const scratch, MatricesFor(dtype_));
  AH_RETURN_IF_ERROR(Load(b, dtype_, scratch->a));
  const cudaDataType type = CudaDataType(dtype_);
  const cudaDataType real_type = CudaDataType(RealDType(dtype_));
  const signed char jobu = vectors_ ? (full_ ? 'A' : 'S') : 'N';
  const signed char jobvt = vectors_ ? 'A' : 'N';
  void* const s = SingularValues(b);
  size_t device_bytes = 0;
  size_t host_bytes = 0;
  AH_CUSOLVER_RETURN_IF_ERROR(
      cusolverDnXgesvd_bufferSize(linalg_.cusolver(), linalg_.params(), jobu, jobvt, rows_, cols_,
                                  type, scratch->a, rows_, real_type, s, type, scratch->u, rows_,
                                  type, scratch->v, cols_, type, &device_bytes, &host_bytes));
  AH_ASSIGN_OR_RETURN(void* const work, DeviceWorkspace(device_bytes));
  AH_CUSOLVER_RETURN_IF_ERROR(cusolverDnXgesvd(
      linalg_.cusolver(), linalg_.params(), jobu, jobvt, rows_, cols_, type, scratch->a, rows_,
      real_type, s, type, scratch->u, rows_, type, scratch->v, cols_, type, work, device_bytes,
      HostWorkspace(host_bytes), host_bytes, scratch->info));
  AH_ASSIGN_OR_RETURN(const std::vector<int> info, linalg_.Download(scratch->info, 1));
  if (info[0] < 0) return absl::InternalError(fmt::format("gesvd: argument {} invalid", -info[0]));
  if (info[0] > 0) return NotConverged();
  // NaN or infinity in the input comes out as NaN singular values, which NumPy reports.
  bool finite = true;
  if (RealDType(dtype_) == DType::kFloat32) {
    AH_ASSIGN_OR_RETURN(const std::vector<float> first,
                        linalg_.Download(static_cast<float*>(s), 1));
    finite = std::isfinite(first[0]);
  } else {
    AH_ASSIGN_OR_RETURN(const std::vector<double> first,
                        linalg_.Download(static_cast<double*>(s), 1));
    finite = std::isfinite(first[0]);
  }
  if (!finite) return NotConverged();
  if (vectors_) AH_RETURN_IF_ERROR(WriteVectors(b, scratch->u, scratch->v, true));
  return absl::OkStatus();
}

absl::StatusOr<SvdJob::Matrices*> SvdJob::MatricesFor(DType compute) {
  if (auto found = matrices_.find(compute); found != matrices_.end()) return &found->second;
  const int64_t item = ItemSize(compute);
  Matrices scratch;
  AH_ASSIGN_OR_RETURN(scratch.a, linalg_.Scratch(rows_ * cols_ * item));
  AH_ASSIGN_OR_RETURN(scratch.s, linalg_.Scratch(cols_ * ItemSize(RealDType(compute))));
  AH_ASSIGN_OR_RETURN(scratch.u, linalg_.Scratch(rows_ * u_cols_ * item));
  AH_ASSIGN_OR_RETURN(scratch.v, linalg_.Scratch(cols_ * cols_ * item));
  AH_ASSIGN_OR_RETURN(scratch.info, linalg_.Scratch<int>(1));
  return &matrices_.emplace(compute, scratch).first->second;
}

absl::StatusOr<void*> SvdJob::DeviceWorkspace(size_t bytes) {
  if (bytes > device_work_bytes_) {
    AH_ASSIGN_OR_RETURN(device_work_, linalg_.Scratch(static_cast<int64_t>(bytes)));
    device_work_bytes_ = bytes;
  }
  return device_work_;
}

void* SvdJob::HostWorkspace(size_t bytes) {
  if (bytes > host_work_.size()) host_work_.resize(bytes);
  return host_work_.data();
}

absl::Status SvdJob::Load(int64_t b, DType compute, void* into) {
  void* target = into;
  if (compute != dtype_) {
    AH_ASSIGN_OR_RETURN(Matrices* const single, MatricesFor(dtype_));
    target = single->a;
  }
  AH_CUDA_RETURN_IF_ERROR(
      LaunchCopyMatrices(dtype_, false, Keep::kAll, 1, rows_, cols_, LayoutOfMatrix(a_, b),
                         ColumnMajorLayout(target, rows_, cols_), linalg_.stream()));
  if (compute != dtype_) {
    const int64_t reals = rows_ * cols_ * (IsComplex(dtype_) ? 2 : 1);
    AH_CUDA_RETURN_IF_ERROR(LaunchWiden(static_cast<const float*>(target),
                                        static_cast<double*>(into), reals, linalg_.stream()));
  }
  return absl::OkStatus();
}

std::byte* SvdJob::SingularValues(int64_t b) const {
  return s_ + b * cols_ * ItemSize(RealDType(dtype_));
}

absl::Status SvdJob::WriteVectors(int64_t b, const void* u, const void* v, bool v_is_adjoint) {
  AH_CUDA_RETURN_IF_ERROR(
      LaunchCopyMatrices(dtype_, false, Keep::kAll, 1, rows_, u_cols_,
                         ColumnMajorLayout(const_cast<void*>(u), rows_, u_cols_),
                         LayoutOfMatrix(u_target_, b), linalg_.stream()));
  // V(i, j) = conj(V^H(j, i)): read the adjoint transposed, and flip the conjugation.
  MatrixLayout v_layout = ColumnMajorLayout(const_cast<void*>(v), cols_, cols_);
  bool conjugate = v_conjugate_;
  if (v_is_adjoint) {
    std::swap(v_layout.row_stride, v_layout.col_stride);
    conjugate = conjugate != IsComplex(dtype_);
  }
  AH_CUDA_RETURN_IF_ERROR(LaunchCopyMatrices(dtype_, conjugate, Keep::kAll, 1, cols_, cols_,
                                             v_layout, LayoutOfMatrix(v_target_, b),
                                             linalg_.stream()));
  return absl::OkStatus();
}

}  // namespace

absl::Status CudaLinalg::Svd(QueueBinding& queue, const SvdCall& call) {
  AH_ASSIGN_OR_RETURN(const QueueSection section, Enter(queue));
  AH_ASSIGN_OR_RETURN(LinalgCall linalg, LinalgCall::Begin(section));
  SvdJob job(call, linalg);
  AH_RETURN_IF_ERROR(job.Run());
  return absl::OkStatus();
}

}  // namespace arrayhub
