// Linear-algebra calls core hands a backend: batched matrix products and LAPACK-style
// factorizations on strided views. Shapes, dtypes and batch broadcasting are validated by
// core; numerical failures that depend on the data (a singular matrix, a matrix that is not
// positive definite, non-convergence) are the backend's to report, as FAILED_PRECONDITION with
// NumPy's LinAlgError wording ("Singular matrix", "Matrix is not positive definite", "SVD did
// not converge").
#pragma once

#include <vector>

#include "server/backend/compute.h"

namespace arrayhub {

// How much a float32 product may give up for speed.
enum class MatmulPrecision : uint8_t {
  kHighest,  // True float32 (float16 inputs accumulate in float32).
  kTF32,     // TensorFloat-32 tensor cores for float32.
};

// out[b] = op(a[b]) @ op(b[b]) for every batch index b. All three views have the same rank
// R >= 2 and batch extents shape[0..R-2) (core broadcast them: batch strides may be 0). The
// last two axes are (m, k), (k, n) and (m, n); they may have any strides (a transposed operand
// has swapped strides; the backend copies an operand whose matrices no BLAS layout describes).
// conjugate_* conjugates a complex operand. `out` has compute_dtype and never overlaps a or b.
struct MatmulCall {
  ArrayView a;
  ArrayView b;
  ArrayView out;
  DType compute_dtype = DType::kFloat32;  // a and b already have this dtype.
  bool conjugate_a = false;
  bool conjugate_b = false;
  MatmulPrecision precision = MatmulPrecision::kHighest;
};

// The factorizations below take a stack of matrices `a` of shape (batch..., m, n) with
// C-contiguous outputs of the shapes numpy.linalg returns, all of one float or complex dtype
// (real results of complex inputs, such as singular values, have the component dtype).

// numpy.linalg.svd: u (batch..., m, m or K), s (batch..., K), vh (batch..., n or K, n) with
// K = min(m, n); u and vh absent when !compute_uv.
struct SvdCall {
  ArrayView a;
  bool full_matrices = true;
  bool compute_uv = true;
  ArrayView u;
  ArrayView s;
  ArrayView vh;
};

// numpy.linalg.qr, mode "reduced" or "complete": q (batch..., m, K or m), r (batch..., K or m,
// n); mode "r": r only.
struct QrCall {
  ArrayView a;
  bool complete = false;
  bool compute_q = true;
  ArrayView q;
  ArrayView r;
};

// numpy.linalg.cholesky: lower (or upper) triangular factor of a Hermitian positive-definite
// matrix; the other triangle of the output is zero.
struct CholeskyCall {
  ArrayView a;
  bool upper = false;
  ArrayView out;
};

// numpy.linalg.eigh / eigvalsh: ascending eigenvalues w (batch..., n), eigenvectors as columns
// of v (batch..., n, n) when compute_vectors; only the `upper` (or lower) triangle is read.
struct EighCall {
  ArrayView a;
  bool upper = false;
  bool compute_vectors = true;
  ArrayView w;
  ArrayView v;
};

// numpy.linalg.eig / eigvals of general square matrices: eigenvalues w (batch..., n) and, when
// compute_vectors, right eigenvectors as the columns of v (batch..., n, n), each of unit norm with
// its largest component real (LAPACK's geev normalisation, which NumPy returns). Both outputs are
// complex of a's precision whatever a's dtype, as CuPy's eig (NumPy's turns real when every
// eigenvalue happens to be real, a dtype that depends on the data). The eigenvalues come in
// LAPACK's order, a conjugate pair of a real matrix adjacent with the positive imaginary part
// first. A matrix holding inf or NaN fails with NumPy's LinAlgError message.
struct EigCall {
  ArrayView a;
  bool compute_vectors = true;
  ArrayView w;
  ArrayView v;
};

// numpy.linalg.solve (x = a^-1 b, b of shape (batch..., n, k)) and inv (b absent: x = a^-1).
struct SolveCall {
  ArrayView a;
  std::optional<ArrayView> b;
  ArrayView x;
};

// numpy.linalg.slogdet: sign (batch...) of a's dtype and logabsdet (batch...) of its real
// dtype; det is sign * exp(logabsdet), composed by core. Singular: sign 0, logabsdet -inf.
struct SlogdetCall {
  ArrayView a;
  ArrayView sign;
  ArrayView logabsdet;
};

// numpy.matmul and numpy.linalg's factorizations and solvers (cuBLAS and cuSOLVER on the GPU,
// OpenBLAS and LAPACKE on the CPU). Calls that read LAPACK's info wait for the queue.
class LinalgKernels {
 public:
  virtual ~LinalgKernels() = default;

  virtual absl::Status Matmul(QueueBinding& queue, const MatmulCall& call) = 0;
  virtual absl::Status Svd(QueueBinding& queue, const SvdCall& call) = 0;
  virtual absl::Status Qr(QueueBinding& queue, const QrCall& call) = 0;
  virtual absl::Status Cholesky(QueueBinding& queue, const CholeskyCall& call) = 0;
  virtual absl::Status Eigh(QueueBinding& queue, const EighCall& call) = 0;
  virtual absl::Status Eig(QueueBinding& queue, const EigCall& call) = 0;
  virtual absl::Status Solve(QueueBinding& queue, const SolveCall& call) = 0;
  virtual absl::Status Slogdet(QueueBinding& queue, const SlogdetCall& call) = 0;
};

}  // namespace arrayhub
