// Host-callable launchers of the indexing kernels: gathers, scatters (last write in C order
// wins, or every value combined in that order), nonzero counts and positions, searchsorted. Each
// enqueues its work on `stream` and returns the first launch error, without waiting. Shared by nvcc
// and the host compiler, so it keeps to the CUDA runtime API and plain types.
//
// Indices and nonzero flags are read from device memory that a client may rewrite while the
// kernels run (another session's work, or a process mapping the array through CUDA IPC), so
// each kernel reads such a value once, checks it where it uses it, and never reads or writes
// outside the arrays it was given whatever the value is.
//
// Strided views reach the kernels as walks: a walk of `rank` dimensions is a device table of
// int64 with the rank extents first, then, for each array walked, its rank strides (elements).
// Position p (C order over the extents) of array k is at element offset
// sum_d coordinate_d(p) * strides_k[d]. Any rank works; the host coalesces dimensions first.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <optional>

#include "server/backend/cuda/sort_kernels.cuh"
#include "server/common/dtype.h"
#include "server/common/ops.h"

namespace arrayhub {

// The value of an error word (`first_error`) while no index is out of bounds. An index outside
// [-extent, extent) at position p (C order over the call's shape) of operand k makes the kernel
// that reads it record p * operand_count + k there by atomicMin, so that the first position in
// C order (and the first operand at it) is reported whatever order the threads run in.
inline constexpr unsigned long long kNoIndexError = ~0ull;

// An IndexOperand with a device pointer, as the gather and scatter kernels read it (from a
// device array of operand_count of them).
struct IndexOperandArgs {
  const int64_t* indices = nullptr;
  int64_t extent = 0;
  int64_t stride = 0;
};

// output[p] = source[source_offset(p) + sum_k index_k(p) * stride_k] for the `count` positions
// of the walk (arrays: source, then each operand's indices); `output` is C-contiguous. A
// position with an index out of bounds reads nothing and writes nothing, and records the error
// in *first_error (then what the output holds is unspecified; the call fails).
struct GatherArgs {
  int64_t itemsize = 1;
  const void* source = nullptr;
  void* output = nullptr;
  int64_t count = 0;
  const int64_t* walk = nullptr;
  int rank = 0;
  const IndexOperandArgs* operands = nullptr;
  int operand_count = 0;
  unsigned long long* first_error = nullptr;
};
cudaError_t LaunchGather(const GatherArgs& args, cudaStream_t stream);

// target[destination(p)] = values[values_offset(p)], the greatest p winning where destinations
// repeat, over the `count` positions of the walk (arrays: target, values, then each operand's
// indices). Destinations, relative to `target`, lie in [min_offset, min_offset + 2^key_bits).
// A first pass reads and checks every index once and turns it into a destination key
// (recording an out-of-bounds one in *first_error); the positions are sorted by key (a stable
// radix sort in `buffers`, `count` elements), and the last position of each key writes, using
// only the keys and positions of the first pass. Nothing is written when the first pass found an
// index out of bounds.
//
// With `combine` (ufunc.at), the first position of each key instead folds the values of its
// whole run into the destination, in order of position (the sort is stable): the same
// sequential order as NumPy's and the host's, so floating-point results are deterministic and
// equal theirs. A destination selected k times costs k dependent steps of one thread.
//
// Except where ScatterAtomically: add and subtract into 4- and 8-byte integers, whose wrapping
// sums are the same in any order. Those skip the sort: after the first pass (which leaves the
// keys, 32-bit where key_bits <= 32, in buffers.keys[0], and writes no positions) every value
// goes into its destination with an integer atomic, through per-block shared-memory sums where
// there are few destinations (a histogram's bins). Only buffers.keys[0] is used, count keys.
struct ScatterArgs {
  DType dtype = DType::kUInt8;
  std::optional<ElementwiseOp> combine = std::nullopt;
  int64_t itemsize = 1;
  void* target = nullptr;
  const void* values = nullptr;
  int64_t count = 0;
  const int64_t* walk = nullptr;
  int rank = 0;
  const IndexOperandArgs* operands = nullptr;
  int operand_count = 0;
  int64_t min_offset = 0;
  int key_bits = 0;
  unsigned long long* first_error = nullptr;
  RadixBuffers buffers;
};
bool ScatterAtomically(const ScatterArgs& args);
cudaError_t LaunchScatter(ScatterArgs& args, cudaStream_t stream);

// Nonzero tests and positions over the `count` positions of a one-array walk of `input`, in
// chunks of NonzeroChunks() positions per block. An element is zero when its bytes, masked with
// (mask_lo, mask_hi) (little-endian, the low 8 bytes and the next 8), are all zero: the masks
// clear the sign bits of float parts, so that -0.0 is zero and NaN is not. The input is read
// once, by the counting pass; the positions pass works from the flags it left, so that counts,
// offsets and positions agree whatever happens to the input meanwhile.
struct NonzeroArgs {
  int64_t itemsize = 1;
  uint64_t mask_lo = ~0ull;
  uint64_t mask_hi = ~0ull;
  const void* input = nullptr;
  int64_t count = 0;
  const int64_t* walk = nullptr;
  int rank = 0;
  // Counting: the nonzero elements of each chunk, and their total (added to, device memory);
  // with `flags` (NonzeroFlagWords(count) words; null when only counting), bit i % 32 of
  // flags[i / 32] says whether position i is nonzero.
  int64_t* chunk_counts = nullptr;
  unsigned long long* total = nullptr;
  uint32_t* flags = nullptr;
  // Positions: the exclusive prefix sums of chunk_counts (computed by LaunchNonzero into
  // chunk_offsets), and the coordinates: coordinates[d] (a device array of `coordinate_rank`
  // pointers) receives the index along dimension d of `shape` (device, coordinate_rank
  // extents) of each of the first `limit` nonzero elements, and nothing past `limit`.
  int64_t* chunk_offsets = nullptr;
  void* scan_temp = nullptr;
  size_t scan_temp_bytes = 0;
  const int64_t* shape = nullptr;
  int coordinate_rank = 0;
  int64_t* const* coordinates = nullptr;
  int64_t limit = 0;
};
int64_t NonzeroChunks(int64_t count);
int64_t NonzeroFlagWords(int64_t count);
// CUB temporary storage for the prefix sums of `chunks` chunk counts.
cudaError_t NonzeroScanTempBytes(int64_t chunks, size_t* bytes);
// Writes chunk_counts (and the flags, where asked) and adds the total.
cudaError_t LaunchCountNonzero(const NonzeroArgs& args, cudaStream_t stream);
// Expects chunk_counts and flags from LaunchCountNonzero; writes the coordinates.
cudaError_t LaunchNonzero(const NonzeroArgs& args, cudaStream_t stream);

// numpy.searchsorted in numpy.sort's order: output[p] (C-contiguous) = the first i in
// [0, sorted_count) with !(sorted[i] < value) (left), or with value < sorted[i] (right), where
// value is at values_offset(p) (a one-array walk) and sorted[i] at i * sorted_stride elements.
struct SearchSortedArgs {
  DType dtype = DType::kFloat64;
  const void* sorted = nullptr;
  int64_t sorted_count = 0;
  int64_t sorted_stride = 1;
  const void* values = nullptr;
  const int64_t* walk = nullptr;
  int rank = 0;
  bool right = false;
  int64_t* output = nullptr;
  int64_t count = 0;
};
cudaError_t LaunchSearchSorted(const SearchSortedArgs& args, cudaStream_t stream);

}  // namespace arrayhub
