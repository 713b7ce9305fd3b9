// CudaLinalg::Matmul: cuBLAS GEMM for float, complex and float16 stacks, a plain kernel for
// integers and bool.
//
// cuBLAS is column-major, and a row-major matrix is its transpose to cuBLAS: a row-major C is
// computed as C^T = B^T A^T, which swaps the operands and needs no copy. Operands go to cuBLAS
// as they lie whenever one of their strides is 1 (a transposed view only flips the operation);
// anything else is copied contiguous first. Evenly spaced stacks (a stride of 0 broadcasts
// one matrix) run as one strided-batched GEMM, other stacks through arrays of pointers.
#include <cublas_v2.h>

#include <array>
#include <cstddef>
#include <cstring>

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

// How cuBLAS runs a product of one dtype: the math, and alpha = 1, beta = 0 in its scale type.
struct GemmTypes {
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  alignas(16) std::array<std::byte, 16> one{};
  alignas(16) std::array<std::byte, 16> zero{};
};

template <typename Scale>
void SetOne(GemmTypes& types) {
  const Scale one{1};
  std::memcpy(types.one.data(), &one, sizeof(one));
}

GemmTypes TypesFor(DType dtype, MatmulPrecision precision) {
  GemmTypes types;
  // float32 is true float32 unless the caller allows TensorFloat-32; float16 multiplies on
  // the tensor cores and accumulates in float32 either way.
  const cublasComputeType_t float32_math =
      precision == MatmulPrecision::kTF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  switch (dtype) {
    case DType::kFloat16:
      types.compute = CUBLAS_COMPUTE_32F;
      SetOne<float>(types);
      break;
    case DType::kFloat32:
      types.compute = float32_math;
      SetOne<float>(types);
      break;
    case DType::kComplex64:
      types.compute = float32_math;
      SetOne<float>(types);  // cuComplex{1, 0}: the real part comes first.
      break;
    default:  // float64, complex128
      types.compute = CUBLAS_COMPUTE_64F;
      SetOne<double>(types);
      break;
  }
  return types;
}

// One factor as cuBLAS takes it.
struct Operand {
  MatrixStack stack;
  cublasOperation_t op = CUBLAS_OP_N;
  int64_t ld = 1;
};

// `want_transposed`: the product needs the transpose of this factor, which row-major storage
// gives for free (see AsBlas). Conjugation rides on the operation when it transposes anyway
// (CUBLAS_OP_C); otherwise it is applied while copying.
absl::StatusOr<Operand> Prepare(MatrixStack stack, bool conjugate, bool want_transposed,
                                LinalgCall& linalg) {
  conjugate = conjugate && IsComplex(stack.dtype);
  std::optional<BlasMatrix> blas = AsBlas(stack);
  if (!blas || (conjugate && blas->transposed == want_transposed)) {
    AH_ASSIGN_OR_RETURN(stack, ContiguousCopy(stack, conjugate, linalg));
    conjugate = false;
    blas = AsBlas(stack);
  }
  cublasOperation_t op = CUBLAS_OP_N;
  if (blas->transposed != want_transposed) op = conjugate ? CUBLAS_OP_C : CUBLAS_OP_T;
  return Operand{.stack = std::move(stack), .op = op, .ld = blas->ld};
}

absl::Status Gemm(const MatmulCall& call, LinalgCall& linalg) {
  const MatrixStack result = StackOf(call.out);
  const int64_t m = result.rows;
  const int64_t n = result.cols;
  const int64_t k = call.a.shape.back();
  // An output no BLAS layout describes is computed into scratch and copied over at the end.
  MatrixStack out = result;
  std::optional<BlasMatrix> out_blas = AsBlas(out);
  if (!out_blas) {
    AH_ASSIGN_OR_RETURN(void* scratch, linalg.Scratch(out.count * m * n * ItemSize(out.dtype)));
    out = RowMajorStack(scratch, out.dtype, out.count, m, n);
    out_blas = AsBlas(out);
  }
  // Row-major C: cuBLAS computes C^T = B^T A^T, an n x m product with b first.
  const bool swap = out_blas->transposed;
  AH_ASSIGN_OR_RETURN(const Operand first,
                      Prepare(StackOf(swap ? call.b : call.a),
                              swap ? call.conjugate_b : call.conjugate_a, swap, linalg));
  AH_ASSIGN_OR_RETURN(const Operand second,
                      Prepare(StackOf(swap ? call.a : call.b),
                              swap ? call.conjugate_a : call.conjugate_b, swap, linalg));
  const int64_t rows = swap ? n : m;
  const int64_t cols = swap ? m : n;
  const cudaDataType type = CudaDataType(call.compute_dtype);
  const GemmTypes types = TypesFor(call.compute_dtype, call.precision);
  const MatrixStack& x = first.stack;
  const MatrixStack& y = second.stack;
  if (out.count == 1) {
    AH_CUBLAS_RETURN_IF_ERROR(cublasGemmEx_64(linalg.cublas(), first.op, second.op, rows, cols, k,
                                              types.one.data(), x.data, type, first.ld, y.data,
                                              type, second.ld, types.zero.data(), out.data, type,
                                              out_blas->ld, types.compute, CUBLAS_GEMM_DEFAULT));
  } else if (x.batch_stride && y.batch_stride && out.batch_stride) {
    AH_CUBLAS_RETURN_IF_ERROR(cublasGemmStridedBatchedEx_64(
        linalg.cublas(), first.op, second.op, rows, cols, k, types.one.data(), x.data, type,
        first.ld, *x.batch_stride, y.data, type, second.ld, *y.batch_stride, types.zero.data(),
        out.data, type, out_blas->ld, *out.batch_stride, out.count, types.compute,
        CUBLAS_GEMM_DEFAULT));
  } else {
    AH_ASSIGN_OR_RETURN(void** x_pointers, DevicePointers(x, linalg));
    AH_ASSIGN_OR_RETURN(void** y_pointers, DevicePointers(y, linalg));
    AH_ASSIGN_OR_RETURN(void** out_pointers, DevicePointers(out, linalg));
    AH_CUBLAS_RETURN_IF_ERROR(cublasGemmBatchedEx_64(
        linalg.cublas(), first.op, second.op, rows, cols, k, types.one.data(), x_pointers, type,
        first.ld, y_pointers, type, second.ld, types.zero.data(), out_pointers, type, out_blas->ld,
        out.count, types.compute, CUBLAS_GEMM_DEFAULT));
  }
  if (out.data != result.data) {
    AH_ASSIGN_OR_RETURN(const MatrixLayout from, DeviceLayout(out, linalg));
    AH_ASSIGN_OR_RETURN(const MatrixLayout to, DeviceLayout(result, linalg));
    AH_CUDA_RETURN_IF_ERROR(LaunchCopyMatrices(out.dtype, false, Keep::kAll, out.count, m, n, from,
                                               to, linalg.stream()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CudaLinalg::Matmul(QueueBinding& queue, const MatmulCall& call) {
  AH_ASSIGN_OR_RETURN(const QueueSection section, Enter(queue));
  const MatrixStack out = StackOf(call.out);
  if (out.count == 0 || out.rows == 0 || out.cols == 0) return absl::OkStatus();
  AH_ASSIGN_OR_RETURN(LinalgCall linalg, LinalgCall::Begin(section));
  const int64_t k = call.a.shape.back();
  if (k == 0) {
    // An empty sum: zeros, which cuBLAS would leave to a beta it may not even read.
    AH_ASSIGN_OR_RETURN(const MatrixLayout layout, DeviceLayout(out, linalg));
    AH_CUDA_RETURN_IF_ERROR(LaunchCopyMatrices(out.dtype, false, Keep::kNone, out.count, out.rows,
                                               out.cols, layout, layout, linalg.stream()));
  } else if (IsInteger(call.compute_dtype) || call.compute_dtype == DType::kBool) {
    AH_ASSIGN_OR_RETURN(const MatrixLayout a, DeviceLayout(StackOf(call.a), linalg));
    AH_ASSIGN_OR_RETURN(const MatrixLayout b, DeviceLayout(StackOf(call.b), linalg));
    AH_ASSIGN_OR_RETURN(const MatrixLayout layout, DeviceLayout(out, linalg));
    AH_CUDA_RETURN_IF_ERROR(LaunchIntegerMatmul(call.compute_dtype, out.count, out.rows, out.cols,
                                                k, a, b, layout, linalg.stream()));
  } else {
    AH_RETURN_IF_ERROR(Gemm(call, linalg));
  }
  return absl::OkStatus();
}

}  // namespace arrayhub
