// What core hands a backend for indexing and array manipulation: gathers and scatters through
// integer index arrays, sorts, scans, nonzero and searchsorted. Copies between views (slices,
// transposes, flips, concatenation, tiling) need nothing new: they are Elementwise kCopy calls.
// Shapes, dtypes and broadcasting are validated by core; what depends on the data (an index out
// of bounds) is the backend's to report.
#pragma once

#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "server/backend/compute.h"

namespace arrayhub {

// One advanced (integer-array) index of a gather or scatter. `indices` are int64, broadcast
// over the call's shape (stride 0 along the axes they do not vary on). Index i selects position
// i (or i + extent when negative) of a data axis of `extent` elements, `stride` elements apart.
// An index outside [-extent, extent) fails the whole call with INVALID_ARGUMENT
// "index I is out of bounds for axis A with size E", as NumPy's IndexError says it.
struct IndexOperand {
  ArrayView indices;
  int64_t extent = 0;
  int64_t stride = 0;
  int axis = 0;  // The data axis, for the message.
};

// output[o] = source[o + sum_k index_k[o] * stride_k] for every position o of output.shape:
// `source` has output's shape and dtype and the data's offset and strides along the axes that
// basic indexing kept (stride 0 along the axes the index arrays span); the index operands add
// the offsets of the advanced axes. `output` is C-contiguous, the call's own new memory: when
// an index is out of bounds its contents are undefined (the kernels check each index where
// they read it, so that an index rewritten meanwhile is caught, never followed), and core
// frees it.
struct GatherCall {
  ArrayView source;
  std::vector<IndexOperand> indices;
  ArrayView output;
};

// target[o + sum_k index_k[o] * stride_k] = values[o]: the reverse of a gather, with `values`
// already of the target's dtype and broadcast to target.shape. When several positions o select
// the same element, the one last in C order wins, as NumPy's sequential assignment. Every index
// is checked before anything is written: an out-of-bounds index leaves the target unchanged.
// `values` never overlaps the target's buffer.
//
// With `combine` (NumPy's ufunc.at), each destination instead becomes
// op(...op(op(target, v_1), v_2)..., v_n) over the values v_1..v_n that select it, in C order
// of their positions, computed as the op's loop of the target's dtype computes it (ufuncs.def:
// integers wrap, float16 rounds after each step, bool add is or and multiply is and, maximum
// and minimum propagate NaN, fmax and fmin ignore it). Both backends apply the values of one
// destination in that sequential order, so results equal NumPy's bit for bit, floating-point
// sums included. ScatterCombines says which ops; a backend refuses others (core sends none).
struct ScatterCall {
  ArrayView target;
  std::vector<IndexOperand> indices;
  ArrayView values;
  std::optional<ElementwiseOp> combine = std::nullopt;
};

// Whether a scatter combines into `dtype` with `op`: the ops above, of every dtype, except the
// subtraction of bools.
constexpr bool ScatterCombines(ElementwiseOp op, DType dtype) {
  switch (op) {
    case ElementwiseOp::kSubtract:
      return dtype != DType::kBool;
    case ElementwiseOp::kAdd:
    case ElementwiseOp::kMultiply:
    case ElementwiseOp::kMaximum:
    case ElementwiseOp::kMinimum:
    case ElementwiseOp::kFmax:
    case ElementwiseOp::kFmin:
      return true;
    default:
      return false;
  }
}

// Stable sort of each row of the C-contiguous (rows, n) `input`, in numpy.sort's order: NaN
// after every number; complex lexicographically by (real, imag) with the classes
// [R + Rj, R + nanj, nan + Rj, nan + nanj] in that order; -0.0 equal to 0.0. Writes the sorted
// rows into `values` (same shape and dtype) and/or the original positions within the row
// (int64, 0..n-1) into `indices`; at least one is present. Both are C-contiguous and never
// overlap the input.
struct SortCall {
  ArrayView input;
  std::optional<ArrayView> values;
  std::optional<ArrayView> indices;
};

// numpy.partition / argpartition of each row of the C-contiguous (rows, n) `input`, in
// numpy.sort's order (SortCall's): for every position k of `kth` (ascending, distinct, each in
// [0, n); empty leaves the rows as they are), the element a sort puts at k, every element
// before it sorting before it or equal to it, every element after it after it or equal. Which
// of several equal elements lands where, and the order within the stretches between the kth
// positions, are the backend's (NumPy's introselect leaves them open too), but the same for
// the same input: never a matter of timing. Outputs as SortCall's. `input` may be an array
// that other calls write meanwhile (core passes contiguous rows in place): whatever a backend
// reads of it, it must stay in bounds, so a comparison-based select copies a row first (an
// order that changes under std::nth_element is undefined behaviour).
struct PartitionCall {
  ArrayView input;
  std::vector<int64_t> kth;
  std::optional<ArrayView> values;
  std::optional<ArrayView> indices;
};

enum class ScanOp : uint8_t { kSum, kProd };

// Inclusive scan (numpy.cumsum / cumprod) along the last axis of the C-contiguous (rows, n)
// `data`, in place, in data's dtype (integers wrap; float16 rounds to float16 after each step
// within the tolerance of its precision).
struct ScanCall {
  ScanOp op = ScanOp::kSum;
  ArrayView data;
};

// numpy.nonzero: the C-order positions of the elements of `input` that are not zero (not
// false, not 0 + 0j; NaN counts as nonzero). coordinates[d] is a C-contiguous int64 array of
// length count (from CountNonzero) that receives the index along axis d of each such element.
// The input may have changed since it was counted (another call wrote it): the backend writes
// the first `count` positions it finds and never more, and returns how many it found, which
// the caller compares with `count`.
struct NonzeroCall {
  ArrayView input;
  std::vector<ArrayView> coordinates;  // One per axis of input; input has rank >= 1.
};

// numpy.searchsorted on the 1-D `sorted` (assumed sorted in numpy.sort's order, not checked, as
// NumPy): for each element of `values` (same dtype, broadcast to output.shape), the first
// (left) or last (right) position where it could be inserted keeping that order. `output` is
// C-contiguous int64.
struct SearchSortedCall {
  ArrayView sorted;
  ArrayView values;
  bool right = false;
  ArrayView output;
};

// numpy.unique's selection from the 1-D C-contiguous `sorted` (in numpy.sort's order, not
// checked): the first element of each run of equal elements goes to `output` (1-D,
// C-contiguous, of sorted's dtype and length), in order, and the call answers how many it
// wrote. Equal as numpy.unique compares with equal_nan=True: by value (-0.0 equals 0.0, the
// run's first is kept), every NaN equal to every other NaN (a complex value is NaN when either
// part is).
struct UniqueCall {
  ArrayView sorted;
  ArrayView output;
};

// numpy.histogram's counting: each element x of `input` (C-contiguous, of a real or bool
// dtype) falls into the bin i with edges[i] <= x < edges[i + 1], the last bin also taking
// x == edges[n]; x and the edges compare as doubles, which is the comparison NumPy makes for
// floating edges of at most 64 bits. NaN and values outside the edges are not counted. `edges`
// is 1-D float64, C-contiguous, n + 1 >= 2 entries, increasing (not checked, as NumPy): a bin
// is found by a bounded binary search whatever the edges hold, so values that another call
// writes meanwhile only move counts between bins. `counts` (C-contiguous int64, n entries) is
// written whole.
struct HistogramCall {
  ArrayView input;
  ArrayView edges;
  ArrayView counts;
};

// Indexing, sorting, selection and searching.
class IndexingKernels {
 public:
  virtual ~IndexingKernels() = default;

  virtual absl::Status Gather(QueueBinding& queue, const GatherCall& call) = 0;
  virtual absl::Status Scatter(QueueBinding& queue, const ScatterCall& call) = 0;
  virtual absl::Status Sort(QueueBinding& queue, const SortCall& call) = 0;
  virtual absl::Status Partition(QueueBinding& queue, const PartitionCall& call) = 0;
  virtual absl::Status Scan(QueueBinding& queue, const ScanCall& call) = 0;
  // Number of elements of `input` that are not zero (NaN counts), as numpy.count_nonzero.
  virtual absl::StatusOr<int64_t> CountNonzero(QueueBinding& queue, const ArrayView& input) = 0;
  // Writes the positions of at most as many nonzero elements as the coordinates hold, and
  // answers how many it found: another call may have written the input since CountNonzero.
  virtual absl::StatusOr<int64_t> Nonzero(QueueBinding& queue, const NonzeroCall& call) = 0;
  virtual absl::Status SearchSorted(QueueBinding& queue, const SearchSortedCall& call) = 0;
  // Waits for the device: the count is read back.
  virtual absl::StatusOr<int64_t> SelectUnique(QueueBinding& queue, const UniqueCall& call) = 0;
  virtual absl::Status Histogram(QueueBinding& queue, const HistogramCall& call) = 0;
};

}  // namespace arrayhub
