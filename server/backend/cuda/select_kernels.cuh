// Host-callable launchers of numpy.partition / argpartition on the GPU (indexing.h's
// PartitionCall) by radix select: per row, the element of each kth rank is found digit by
// digit (8 bits at a time, most significant first) from histograms of the order keys of
// sort_kernels.cuh over the elements that share the digits found so far; a stable partition
// by class (below the first pivot, equal to it, between it and the next, ...) then puts every
// element on its side. The launchers' part is shared by nvcc and the host
// compiler, so it keeps to the CUDA runtime API and plain types.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "server/common/dtype.h"

namespace arrayhub {

// The most kth positions one selection takes: each costs a histogram of 256 counters per block
// in shared memory and a prefix test per element and pass. Longer kth lists sort instead.
inline constexpr int kMaxSelectedKth = 16;

// Whether a partition of `rows` rows of `n` elements with `kth_count` positions selects (else
// the caller sorts the rows, a valid partition for any kth). A row's selection costs about
// 4 + 2 * (key bits / 8) launches whatever its length, where the segmented or batched radix
// sort moves every element through each of its digit passes with an 8-byte position: rows
// below 2^20 elements, whose sort costs about as much as those launches, sort; so do complex
// dtypes (their order is not one integer key) and more than kMaxSelectedKth positions, and
// more than 64 rows (the launches add up; such arrays rarely have rows that long).
bool PartitionSelects(DType dtype, int64_t rows, int64_t n, int64_t kth_count);

// A PartitionCall with device pointers: `input` is C-contiguous (rows, n) of `dtype`; `values`
// and `indices` (either may be null) receive the partitioned rows and the original positions
// in the row. `kth` is host memory: ascending, distinct, in [0, n), at most kMaxSelectedKth
// (none: the rows stay as they are). `scratch` holds PartitionScratchBytes(dtype, n) bytes of
// device memory, which one row at a time uses.
struct PartitionArgs {
  DType dtype = DType::kFloat64;
  const void* input = nullptr;
  int64_t rows = 0;
  int64_t n = 0;
  const int64_t* kth = nullptr;
  int kth_count = 0;
  void* values = nullptr;
  int64_t* indices = nullptr;
  void* scratch = nullptr;
  size_t scratch_bytes = 0;
  cudaStream_t stream = nullptr;
};

cudaError_t PartitionScratchBytes(DType dtype, int64_t n, size_t* bytes);

// Enqueues the partition of every row (PartitionSelects must hold) and returns the first error.
cudaError_t LaunchPartition(const PartitionArgs& args);

}  // namespace arrayhub
