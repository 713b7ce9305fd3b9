// Host-callable launcher of the reduction kernels (CUB block and warp reductions). Shared by
// nvcc and the host compiler, so it keeps to the CUDA runtime API and plain types.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "server/common/dtype.h"

namespace arrayhub {

// Input element (o, r, i) is at in[o * outer_stride + r * reduce_stride + i * inner_stride]
// (strides in elements); output element o * inner + i reduces it over r.
struct ReduceGeometry {
  int64_t outer = 1;
  int64_t reduce = 1;
  int64_t inner = 1;
  int64_t outer_stride = 0;
  int64_t reduce_stride = 0;
  int64_t inner_stride = 0;
};

enum class ReduceKernelOp : uint8_t {
  kSum,
  kProd,
  kMin,  // NaN-propagating.
  kMax,
  kArgmin,  // First occurrence; the first NaN if any.
  kArgmax,
  kAny,
  kAll,
  kSquaredDeviation,  // Sum of |x - mean|^2, mean per output element.
};

// A stream's reduction workspace, made once per queue (CudaQueue::ReductionWorkspace): first
// kReduceArrivalSlots counters that a split reduction's blocks count themselves in, so that
// the last block of each output folds the blocks' partial results in the same launch (one pass
// instead of two), then kReducePartialBytes where those partial results go. The counters are
// zero whenever none of the stream's reductions runs: the last block returns its counter to
// zero. One stream runs one reduction at a time, so the workspace needs no lock.
inline constexpr int64_t kReduceArrivalSlots = 4096;
inline constexpr int64_t kReducePartialBytes = 64 * 1024;
inline constexpr int64_t kReduceWorkspaceBytes =
    kReduceArrivalSlots * sizeof(unsigned) + kReducePartialBytes;

struct ReduceKernelArgs {
  ReduceKernelOp op = ReduceKernelOp::kSum;
  DType input = DType::kFloat64;       // Of `in`; see ReduceReadsDirectly.
  DType accumulate = DType::kFloat64;  // The arithmetic's type.
  const void* in = nullptr;
  ReduceGeometry geometry;
  const void* mean = nullptr;  // kSquaredDeviation: outer * inner values of `accumulate`.
  // kSum and kSquaredDeviation of floating types: each result is divided by `divisor` and,
  // with `take_sqrt`, square-rooted (mean, var, std).
  double divisor = 1.0;
  bool take_sqrt = false;
  // Store float64 results as float32 (float32 sums, means and variances accumulate in float64).
  bool to_float32 = false;
  void* out = nullptr;  // outer * inner values of ReduceFinalDType(op, accumulate).
  int sm_count = 1;
  cudaStream_t stream = nullptr;
  // `stream`'s workspace (see kReduceWorkspaceBytes); null: partial results go to memory
  // allocated for the call and a second launch folds them.
  void* workspace = nullptr;
};

// Whether the kernels read `input` for `op` accumulating in `accumulate`; other inputs are cast
// to `accumulate` first (by the caller), which keeps the kernel instantiations few.
// `accumulate` is one of int64, uint64, float32, float64, complex64, complex128 (bool for any
// and all; floating for kSquaredDeviation).
bool ReduceReadsDirectly(ReduceKernelOp op, DType input, DType accumulate);

// What the kernels write: `accumulate` for sums, products, minima and maxima, int64 for argmin
// and argmax, bool for any and all, the real type of `accumulate` for squared deviations.
DType ReduceFinalDType(ReduceKernelOp op, DType accumulate);

// Enqueues the reduction (one to three passes, with stream-ordered scratch memory for partial
// results) and returns the first error.
cudaError_t LaunchReduce(const ReduceKernelArgs& args);

}  // namespace arrayhub
