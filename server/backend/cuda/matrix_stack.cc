#include "server/backend/cuda/matrix_stack.h"

#include <algorithm>
#include <utility>

#include "server/backend/cuda/cuda_check.h"
#include "server/common/status_macros.h"

namespace arrayhub {

namespace {

// Offsets of every matrix, in C order of the batch axes.
std::vector<int64_t> BatchOffsets(const ArrayView& view, int64_t count) {
  const size_t batch_rank = view.shape.size() - 2;
  std::vector<int64_t> offsets(static_cast<size_t>(count));
  std::vector<int64_t> index(batch_rank, 0);
  int64_t offset = 0;
  for (int64_t b = 0; b < count; ++b) {
    offsets[b] = offset;
    for (size_t axis = batch_rank; axis-- > 0;) {  // Odometer step, last axis fastest.
      offset += view.strides[axis];
      if (++index[axis] < view.shape[axis]) break;
      offset -= view.strides[axis] * view.shape[axis];
      index[axis] = 0;
    }
  }
  return offsets;
}

// The stride between consecutive matrices when the batch axes (those longer than 1) collapse
// into one evenly spaced axis.
std::optional<int64_t> EvenBatchStride(const ArrayView& view) {
  std::optional<int64_t> stride;  // Of the innermost batch axis seen so far.
  int64_t inner_extent = 1;
  for (size_t axis = view.shape.size() - 2; axis-- > 0;) {
    if (view.shape[axis] == 1) continue;
    if (stride && view.strides[axis] != *stride * inner_extent) return std::nullopt;
    if (!stride) stride = view.strides[axis];
    inner_extent *= view.shape[axis];
  }
  return stride.value_or(0);
}

}  // namespace

MatrixStack StackOf(const ArrayView& view) {
  const size_t rank = view.shape.size();
  MatrixStack stack;
  stack.data = static_cast<std::byte*>(view.buffer->data()) + view.offset_bytes;
  stack.dtype = view.dtype;
  stack.rows = view.shape[rank - 2];
  stack.cols = view.shape[rank - 1];
  stack.row_stride = view.strides[rank - 2];
  stack.col_stride = view.strides[rank - 1];
  stack.count = 1;
  for (size_t axis = 0; axis + 2 < rank; ++axis) stack.count *= view.shape[axis];
  stack.batch_stride = EvenBatchStride(view);
  if (!stack.batch_stride) stack.offsets = BatchOffsets(view, stack.count);
  return stack;
}

MatrixStack RowMajorStack(void* data, DType dtype, int64_t count, int64_t rows, int64_t cols) {
  return {.data = static_cast<std::byte*>(data),
          .dtype = dtype,
          .rows = rows,
          .cols = cols,
          .row_stride = cols,
          .col_stride = 1,
          .count = count,
          .batch_stride = rows * cols,
          .offsets = {}};
}

MatrixStack ColumnMajorStack(void* data, DType dtype, int64_t count, int64_t rows, int64_t cols) {
  return {.data = static_cast<std::byte*>(data),
          .dtype = dtype,
          .rows = rows,
          .cols = cols,
          .row_stride = 1,
          .col_stride = rows,
          .count = count,
          .batch_stride = rows * cols,
          .offsets = {}};
}

MatrixStack Transposed(MatrixStack stack) {
  std::swap(stack.rows, stack.cols);
  std::swap(stack.row_stride, stack.col_stride);
  return stack;
}

MatrixLayout LayoutOfMatrix(const MatrixStack& stack, int64_t b) {
  return {.base = stack.Matrix(b), .row_stride = stack.row_stride, .col_stride = stack.col_stride};
}

MatrixLayout ColumnMajorLayout(void* base, int64_t ld, int64_t cols) {
  return {.base = base, .batch_stride = ld * cols, .row_stride = 1, .col_stride = ld};
}

absl::StatusOr<MatrixLayout> DeviceLayout(const MatrixStack& stack, LinalgCall& call) {
  MatrixLayout layout{
      .base = stack.data, .row_stride = stack.row_stride, .col_stride = stack.col_stride};
  if (stack.batch_stride) {
    layout.batch_stride = *stack.batch_stride;
  } else {
    AH_ASSIGN_OR_RETURN(layout.offsets, call.Upload(std::span<const int64_t>(stack.offsets)));
  }
  return layout;
}

absl::StatusOr<void**> DevicePointers(const MatrixStack& stack, LinalgCall& call) {
  std::vector<void*> pointers(static_cast<size_t>(stack.count));
  for (int64_t b = 0; b < stack.count; ++b) pointers[b] = stack.Matrix(b);
  return call.Upload(std::span<void* const>(pointers));
}

std::optional<BlasMatrix> AsBlas(const MatrixStack& stack) {
  // The stride along an axis of extent 1 is never used: take whatever makes a layout fit.
  const int64_t row_stride = stack.rows == 1 ? std::max<int64_t>(stack.cols, 1) : stack.row_stride;
  const int64_t col_stride = stack.cols == 1 ? std::max<int64_t>(stack.rows, 1) : stack.col_stride;
  if ((stack.cols == 1 || col_stride == 1) && row_stride >= std::max<int64_t>(stack.cols, 1)) {
    return BlasMatrix{.transposed = true, .ld = row_stride};
  }
  if ((stack.rows == 1 || row_stride == 1) && col_stride >= std::max<int64_t>(stack.rows, 1)) {
    return BlasMatrix{.transposed = false, .ld = col_stride};
  }
  return std::nullopt;
}

absl::StatusOr<MatrixStack> ContiguousCopy(const MatrixStack& stack, bool conjugate,
                                           LinalgCall& call) {
  AH_ASSIGN_OR_RETURN(void* memory,
                      call.Scratch(stack.count * stack.rows * stack.cols * ItemSize(stack.dtype)));
  MatrixStack copy = RowMajorStack(memory, stack.dtype, stack.count, stack.rows, stack.cols);
  AH_ASSIGN_OR_RETURN(const MatrixLayout source, DeviceLayout(stack, call));
  AH_ASSIGN_OR_RETURN(const MatrixLayout target, DeviceLayout(copy, call));
  AH_CUDA_RETURN_IF_ERROR(LaunchCopyMatrices(stack.dtype, conjugate, Keep::kAll, stack.count,
                                             stack.rows, stack.cols, source, target,
                                             call.stream()));
  return copy;
}

}  // namespace arrayhub
