// What core hands a backend to compute: strided views of buffers and fully resolved calls.
// Everything here has been validated (shapes, dtypes, broadcasting, bounds); a backend only
// computes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "server/backend/buffer.h"
#include "server/backend/random_distribution.h"
#include "server/backend/work_queue.h"
#include "server/common/dtype.h"
#include "server/common/ops.h"
#include "server/common/scalar.h"
#include "server/common/shape.h"

namespace arrayhub {

// A strided view of a buffer: element [i0, i1, ...] lives at byte
// offset_bytes + (i0 * strides[0] + i1 * strides[1] + ...) * ItemSize(dtype). Strides are in
// elements and may be 0 (broadcast) or negative (reversed views).
struct ArrayView {
  Buffer* buffer = nullptr;
  int64_t offset_bytes = 0;
  DType dtype = DType::kFloat32;
  Shape shape;
  Strides strides;
};

// One operand of an elementwise call: an array broadcast to the call's shape (same rank as the
// call, stride 0 along broadcast axes), or a scalar.
struct ElementwiseOperand {
  std::optional<ArrayView> array{};
  ElementBytes scalar{};          // When !array: one element of `dtype`.
  DType dtype = DType::kFloat32;  // The stored dtype (the array's, or the scalar's encoding).
};

// out[idx] = cast<output.dtype>(op(cast<compute_dtype>(operand_k[idx])...)) for every idx of
// `shape`. The loop runs in compute_dtype (NumPy's loop type) and produces result_dtype; the
// operands' dtypes convert to compute_dtype first (always a safe cast, or nonzero-test to bool
// for where's condition and the logical ops; ldexp's exponent to int64: OperandDType), and
// result_dtype converts to output.dtype last (identity, or a same-kind/unsafe cast for out= and
// astype: floats to integers truncate, NaN and out-of-range give 0; complex to real drops the
// imaginary part). The output never overlaps an input except exactly (in-place: same buffer,
// offset, strides).
struct ElementwiseCall {
  ElementwiseOp op = ElementwiseOp::kCopy;
  DType compute_dtype = DType::kFloat32;
  DType result_dtype = DType::kFloat32;
  Shape shape;
  std::vector<ElementwiseOperand> operands;
  ArrayView output{};
};

// Several elementwise ops over one shape in one pass: a Batch's chain of elementwise ops
// (engine_chain.cc). Each step reads inputs and earlier steps' values; a step's value is its
// result exactly as an array of result_dtype would hold it (a chain computes what the ops one
// by one compute), and only `outputs` reach memory, each converted to its view's dtype as
// ElementwiseCall::output is. Inputs follow ElementwiseCall's operand rules; the outputs
// overlap no input and no other output.
// The most one FusedElementwiseCall carries (core splits longer chains): enough for long
// chains, small enough that a kernel's arguments fit the 4 KiB every GPU accepts and that
// compiling one stays quick.
inline constexpr int kMaxFusedSteps = 64;
inline constexpr int kMaxFusedArrayInputs = 16;
inline constexpr int kMaxFusedScalarInputs = 32;
inline constexpr int kMaxFusedOutputs = 8;
inline constexpr int kMaxFusedRank = 16;

// Whether a FusedElementwiseCall can end in `op` over every element of a value of `dtype`:
// the folds with an identity that every backend computes in one pass (not complex minima and
// maxima, whose order NumPy defines lexicographically).
inline bool FusableReduction(ReduceOp op, DType dtype) {
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kProd:
    case ReduceOp::kMean:
    case ReduceOp::kAny:
    case ReduceOp::kAll:
      return true;
    case ReduceOp::kMin:
    case ReduceOp::kMax:
      return !IsComplex(dtype);
    default:
      return false;
  }
}

struct FusedElementwiseCall {
  struct Step {
    ElementwiseOp op = ElementwiseOp::kCopy;
    DType compute_dtype = DType::kFloat32;
    DType result_dtype = DType::kFloat32;
    // Value numbers: below inputs.size() an input, else step (number - inputs.size()), which
    // comes earlier.
    std::vector<int> operands;
  };
  struct Output {
    int step = 0;
    ArrayView view{};
  };
  // A step's value reduced over every element of `shape` in the same pass (a Batch's
  // `float((a * b + a).sum())`): `op` (FusableReduction) in accumulate_dtype, as ReduceCall
  // with every axis; `output` holds the one result element.
  struct Reduction {
    int step = 0;
    ReduceOp op = ReduceOp::kSum;
    DType accumulate_dtype = DType::kFloat64;
    ArrayView output{};
  };
  Shape shape;
  std::vector<ElementwiseOperand> inputs;
  std::vector<Step> steps;
  std::vector<Output> outputs;
  std::optional<Reduction> reduction{};
};

// output = op over `axes` of input. `output` is C-contiguous with the input's shape minus the
// reduced axes (keepdims is metadata core adds afterwards). The arithmetic runs in
// accumulate_dtype (int64/uint64 for small integers, float32 for float16, float64 for float32
// sums, means and variances -- more accurate than NumPy's pairwise float32 sums -- and the
// input dtype otherwise); output.dtype is the result dtype. var divides by max(n - ddof, 0), as
// NumPy. Empty reductions: sum 0, prod 1, any false, all true, mean/var/std NaN; core refuses
// min/max/argmin/argmax over zero elements.
struct ReduceCall {
  ReduceOp op = ReduceOp::kSum;
  ArrayView input{};
  std::vector<int64_t> axes;  // Sorted, distinct, in [0, rank); never empty.
  DType accumulate_dtype = DType::kFloat64;
  double ddof = 0;  // var, std: any real, as NumPy's.
  ArrayView output{};
};

// What var divides the sum of squared deviations of `count` elements by: NumPy's
// maximum(count - ddof, 0) in float64. A NaN ddof gives NaN (std::max keeps its first
// argument when the comparison is false), as NumPy's maximum propagates it.
inline double VarianceDivisor(int64_t count, double ddof) {
  return std::max(static_cast<double>(count) - ddof, 0.0);
}

// Fills a C-contiguous output with pseudo-random values. The same seed gives the same values
// on the same backend and device. Parameters as RandomDistribution lists them, validated by
// the core.
struct RandomCall {
  RandomDistribution distribution = RandomDistribution::kUniform;
  double low = 0.0;   // uniform low, normal mean, first parameter
  double high = 1.0;  // uniform high, normal stddev, last parameter
  int64_t int_low = 0;
  int64_t int_high = 0;  // > int_low; binomial n
  uint64_t seed = 0;
  ArrayView output{};
};

// Elementwise math, reductions and random fills. Calls may return before the device is done
// (backend.h).
class ComputeKernels {
 public:
  virtual ~ComputeKernels() = default;

  virtual absl::Status Elementwise(QueueBinding& queue, const ElementwiseCall& call) = 0;
  virtual absl::Status FusedElementwise(QueueBinding& queue, const FusedElementwiseCall& call) = 0;
  virtual absl::Status Reduce(QueueBinding& queue, const ReduceCall& call) = 0;
  virtual absl::Status FillRandom(QueueBinding& queue, const RandomCall& call) = 0;
};

}  // namespace arrayhub
