// CudaIndexing: the indexing and manipulation calls (see indexing.h): gathers and scatters through
// index arrays, sorts, scans, nonzero and searchsorted. This file plans each call on the host
// (coalesced walks over the views, scratch memory, the index-check layout), enqueues the
// kernels of index_kernels.cu, sort_kernels.cu, select_kernels.cu and scan_kernels.cu on the
// session's stream, and waits only where a result must come back to the host: the bounds checks
// of gathers and scatters, nonzero's count, the float sorts' NaN census.
//
// Index arrays and nonzero's input may change while the kernels run (see index_kernels.cuh):
// nothing here trusts a value read from them beyond the kernel that read it.
//
// The small tables the kernels read (walks, index operands, the error word) go to the device in
// one copy per call, in a scratch buffer: any rank fits, where kernel parameters would have to
// bound it.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "server/backend/cuda/coalesced_walk.h"
#include "server/backend/cuda/compute_context.h"
#include "server/backend/cuda/cuda_check.h"
#include "server/backend/cuda/cuda_parts.h"
#include "server/backend/cuda/cuda_queue.h"
#include "server/backend/cuda/histogram_kernels.cuh"
#include "server/backend/cuda/index_kernels.cuh"
#include "server/backend/cuda/scan_kernels.cuh"
#include "server/backend/cuda/scratch.h"
#include "server/backend/cuda/select_kernels.cuh"
#include "server/backend/cuda/sort_kernels.cuh"
#include "server/backend/cuda/unique_kernels.cuh"
#include "server/common/status_macros.h"

namespace arrayhub {

namespace {

int64_t CountOf(const Shape& shape) {
  int64_t count = 1;
  for (const int64_t extent : shape) count *= extent;
  return count;
}

// The device address of a view's first element. INTERNAL when it is not aligned for the item
// size (8 bytes at most: the kernels move 16-byte items as two words): core never makes such a
// view, and a misaligned access would be a sticky error that poisons the whole CUDA context.
absl::StatusOr<char*> Base(const ArrayView& view) {
  char* base = static_cast<char*>(view.buffer->data()) + view.offset_bytes;
  const auto alignment = static_cast<uintptr_t>(std::min<int64_t>(ItemSize(view.dtype), 8));
  if (reinterpret_cast<uintptr_t>(base) % alignment != 0) {
    return absl::InternalError(fmt::format("cuda backend: {} view at byte offset {} is misaligned",
                                           DTypeName(view.dtype), view.offset_bytes));
  }
  return base;
}

// The int64 words the kernels of one call read, built here and copied to the device at once.
class DeviceTable {
 public:
  // Each Add returns the word offset of what it added.
  size_t Add(int64_t word) {
    words_.push_back(word);
    return words_.size() - 1;
  }
  size_t AddWalk(const CoalescedWalk& walk) {
    const size_t at = words_.size();
    words_.insert(words_.end(), walk.extents.begin(), walk.extents.end());
    for (const std::vector<int64_t>& strides : walk.strides) {
      words_.insert(words_.end(), strides.begin(), strides.end());
    }
    return at;
  }
  template <class Record>
  size_t AddRecords(const std::vector<Record>& records) {
    static_assert(sizeof(Record) % sizeof(int64_t) == 0 && std::is_trivially_copyable_v<Record>);
    const size_t at = words_.size();
    words_.resize(at + records.size() * sizeof(Record) / sizeof(int64_t));
    if (!records.empty()) {
      std::memcpy(&words_[at], records.data(), records.size() * sizeof(Record));
    }
    return at;
  }

  // Copies the words into scratch memory (enqueued on `stream`; a copy from pageable memory
  // is staged before the call returns, so the host words may go at once, and the scratch is
  // freed in the stream's order, after the kernels that read it).
  absl::Status Upload(cudaStream_t stream) {
    const auto bytes = static_cast<int64_t>(words_.size() * sizeof(int64_t));
    AH_ASSIGN_OR_RETURN(device_, AllocateScratch(bytes, stream));
    if (bytes == 0) return absl::OkStatus();  // A walk of rank 0 and nothing else.
    AH_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(device_->data(), words_.data(),
                                            static_cast<size_t>(bytes), cudaMemcpyHostToDevice,
                                            stream));
    return absl::OkStatus();
  }

  // The device address of word `offset` (after Upload).
  template <class T = int64_t>
  T* At(size_t offset) const {
    return reinterpret_cast<T*>(static_cast<int64_t*>(device_->data()) + offset);
  }

 private:
  std::vector<int64_t> words_;
  std::unique_ptr<ScratchBuffer> device_;
};

// Copies `bytes` from the device after the work of the call's queue, waiting for it.
absl::Status Read(const void* device, void* host, size_t bytes, CudaQueue& queue) {
  AH_CUDA_RETURN_IF_ERROR(
      cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, queue.stream()));
  return queue.Synchronize();
}

constexpr int64_t kScratchAlignment = 256;  // What CUB expects of its temporary storage.

int64_t AlignUp(int64_t bytes) {
  return (bytes + kScratchAlignment - 1) / kScratchAlignment * kScratchAlignment;
}

// Scratch for `count`-element radix sorts: two key and two value buffers and CUB's storage
// (`temp_bytes`).
absl::StatusOr<std::unique_ptr<ScratchBuffer>> AllocateRadix(int64_t count, size_t temp_bytes,
                                                             RadixBuffers& b, cudaStream_t stream) {
  const int64_t array = AlignUp(count * static_cast<int64_t>(sizeof(int64_t)));
  AH_ASSIGN_OR_RETURN(std::unique_ptr<ScratchBuffer> scratch,
                      AllocateScratch(4 * array + static_cast<int64_t>(temp_bytes), stream));
  char* base = static_cast<char*>(scratch->data());
  b.keys[0] = base;
  b.keys[1] = base + array;
  b.values[0] = reinterpret_cast<int64_t*>(base + 2 * array);
  b.values[1] = reinterpret_cast<int64_t*>(base + 3 * array);
  b.temp = base + 4 * array;
  b.temp_bytes = temp_bytes;
  return scratch;
}

// ---- Index operands: checks and errors ----

// A gather's or scatter's index operands as the kernels see them: their records in the call's
// table, and the error word the kernels leave (kNoIndexError while every index is in bounds).
struct IndexPlan {
  size_t error_word = 0;
  size_t operands = 0;  // The IndexOperandArgs records.
  std::vector<IndexOperandArgs> records;
};

absl::StatusOr<IndexPlan> PlanIndices(const std::vector<IndexOperand>& indices,
                                      DeviceTable& table) {
  IndexPlan plan;
  plan.error_word = table.Add(static_cast<int64_t>(kNoIndexError));
  for (const IndexOperand& operand : indices) {
    AH_ASSIGN_OR_RETURN(const char* base, Base(operand.indices));
    plan.records.push_back({.indices = reinterpret_cast<const int64_t*>(base),
                            .extent = operand.extent,
                            .stride = operand.stride});
  }
  plan.operands = table.AddRecords(plan.records);
  return plan;
}

// After the call's work: OK when every index was in bounds, else NumPy's IndexError message for
// the first offending index (first position in C order, then first operand), read back.
absl::Status IndexStatus(const IndexPlan& plan, const DeviceTable& table, const Shape& shape,
                         const std::vector<IndexOperand>& indices, CudaQueue& queue) {
  unsigned long long error = 0;
  AH_RETURN_IF_ERROR(Read(table.At(plan.error_word), &error, sizeof error, queue));
  if (error == kNoIndexError) return absl::OkStatus();
  const size_t k = error % indices.size();
  auto position = static_cast<int64_t>(error / indices.size());
  int64_t offset = 0;
  for (size_t d = shape.size(); d-- > 0;) {
    offset += position % shape[d] * indices[k].indices.strides[d];
    position /= shape[d];
  }
  // Read again for the message: only a client rewriting its indices during the call would see
  // a value here other than the one the kernel refused.
  int64_t index = 0;
  AH_RETURN_IF_ERROR(Read(plan.records[k].indices + offset, &index, sizeof index, queue));
  return absl::InvalidArgumentError(
      fmt::format("index {} is out of bounds for axis {} with size {}", index, indices[k].axis,
                  indices[k].extent));
}

// The least and greatest element offsets of a strided view of `shape`.
std::pair<int64_t, int64_t> OffsetRange(const Shape& shape, const Strides& strides) {
  int64_t low = 0;
  int64_t high = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    const int64_t span = (shape[d] - 1) * strides[d];
    (span < 0 ? low : high) += span;
  }
  return {low, high};
}

// The bit mask of the bytes that make an element of `dtype` nonzero (see NonzeroArgs): all of
// them but the sign bits of float parts.
std::pair<uint64_t, uint64_t> NonzeroMasks(DType dtype) {
  switch (dtype) {
    case DType::kFloat16:
      return {0x7fffull, 0};
    case DType::kFloat32:
      return {0x7fffffffull, 0};
    case DType::kFloat64:
      return {0x7fffffffffffffffull, 0};
    case DType::kComplex64:
      return {0x7fffffff7fffffffull, 0};
    case DType::kComplex128:
      return {0x7fffffffffffffffull, 0x7fffffffffffffffull};
    default:
      return {~0ull, ~0ull};
  }
}

// The nonzero counting pass over `input`, enqueued: its walk and total in `table`, the chunk
// counts in `chunk_counts` (allocated here).
struct NonzeroPlan {
  NonzeroArgs args;
  size_t total_word = 0;
  size_t walk_word = 0;
  std::unique_ptr<ScratchBuffer> chunk_counts;
};

absl::StatusOr<NonzeroPlan> PlanNonzero(const ArrayView& input, DeviceTable& table,
                                        cudaStream_t stream) {
  NonzeroPlan plan;
  const CoalescedWalk walk = Coalesce(input.shape, {input.strides});
  plan.total_word = table.Add(0);
  plan.walk_word = table.AddWalk(walk);
  const auto [mask_lo, mask_hi] = NonzeroMasks(input.dtype);
  AH_ASSIGN_OR_RETURN(const char* base, Base(input));
  plan.args = NonzeroArgs{.itemsize = ItemSize(input.dtype),
                          .mask_lo = mask_lo,
                          .mask_hi = mask_hi,
                          .input = base,
                          .count = CountOf(input.shape),
                          .rank = static_cast<int>(walk.extents.size())};
  const int64_t chunks = NonzeroChunks(plan.args.count);
  AH_ASSIGN_OR_RETURN(plan.chunk_counts,
                      AllocateScratch(chunks * static_cast<int64_t>(sizeof(int64_t)), stream));
  plan.args.chunk_counts = static_cast<int64_t*>(plan.chunk_counts->data());
  return plan;
}

// Fills in the table's device addresses after its upload.
void BindNonzero(NonzeroPlan& plan, const DeviceTable& table) {
  plan.args.walk = table.At(plan.walk_word);
  plan.args.total = table.At<unsigned long long>(plan.total_word);
}

}  // namespace

absl::Status CudaIndexing::Gather(QueueBinding& queue, const GatherCall& call) {
  AH_ASSIGN_OR_RETURN(const QueueSection section, Enter(queue));
  AH_ASSIGN_OR_RETURN(const ComputeContext context, ComputeContextOf(section));
  const Shape& shape = call.output.shape;
  const int64_t count = CountOf(shape);
  if (count == 0) return absl::OkStatus();

  DeviceTable table;
  AH_ASSIGN_OR_RETURN(const IndexPlan plan, PlanIndices(call.indices, table));
  std::vector<std::vector<int64_t>> arrays = {call.source.strides};
  for (const IndexOperand& operand : call.indices) arrays.push_back(operand.indices.strides);
  const CoalescedWalk walk = Coalesce(shape, arrays);
  const size_t walk_word = table.AddWalk(walk);
  AH_RETURN_IF_ERROR(table.Upload(context.stream));

  AH_ASSIGN_OR_RETURN(const char* source, Base(call.source));
  AH_ASSIGN_OR_RETURN(char* output, Base(call.output));
  const GatherArgs args{.itemsize = ItemSize(call.source.dtype),
                        .source = source,
                        .output = output,
                        .count = count,
                        .walk = table.At(walk_word),
                        .rank = static_cast<int>(walk.extents.size()),
                        .operands = table.At<const IndexOperandArgs>(plan.operands),
                        .operand_count = static_cast<int>(call.indices.size()),
                        .first_error = table.At<unsigned long long>(plan.error_word)};
  AH_CUDA_RETURN_IF_ERROR(LaunchGather(args, context.stream));
  return IndexStatus(plan, table, shape, call.indices, *section.queue());
}

absl::Status CudaIndexing::Scatter(QueueBinding& queue, const ScatterCall& call) {
  if (call.combine && !ScatterCombines(*call.combine, call.target.dtype)) {
    return absl::InvalidArgumentError(fmt::format("a scatter cannot combine with {} of {}",
                                                  OpName(*call.combine),
                                                  DTypeName(call.target.dtype)));
  }
  AH_ASSIGN_OR_RETURN(const QueueSection section, Enter(queue));
  AH_ASSIGN_OR_RETURN(const ComputeContext context, ComputeContextOf(section));
  const Shape& shape = call.target.shape;
  const int64_t count = CountOf(shape);
  if (count == 0) return absl::OkStatus();

  DeviceTable table;
  AH_ASSIGN_OR_RETURN(const IndexPlan plan, PlanIndices(call.indices, table));
  std::vector<std::vector<int64_t>> arrays = {call.target.strides, call.values.strides};
  for (const IndexOperand& operand : call.indices) arrays.push_back(operand.indices.strides);
  const CoalescedWalk walk = Coalesce(shape, arrays);
  const size_t walk_word = table.AddWalk(walk);
  AH_RETURN_IF_ERROR(table.Upload(context.stream));

  // Every destination lies in [low, high) relative to the target's first element; sorting by
  // the offset from `low` needs only the bits of high - low.
  auto [low, high] = OffsetRange(shape, call.target.strides);
  for (const IndexOperand& operand : call.indices) {
    const int64_t span = (operand.extent - 1) * operand.stride;
    (span < 0 ? low : high) += span;
  }
  AH_ASSIGN_OR_RETURN(char* target, Base(call.target));
  AH_ASSIGN_OR_RETURN(const char* values, Base(call.values));
  ScatterArgs args{.dtype = call.target.dtype,
                   .combine = call.combine,
                   .itemsize = ItemSize(call.target.dtype),
                   .target = target,
                   .values = values,
                   .count = count,
                   .walk = table.At(walk_word),
                   .rank = static_cast<int>(walk.extents.size()),
                   .operands = table.At<const IndexOperandArgs>(plan.operands),
                   .operand_count = static_cast<int>(call.indices.size()),
                   .min_offset = low,
                   .key_bits = static_cast<int>(std::bit_width(static_cast<uint64_t>(high - low))),
                   .first_error = table.At<unsigned long long>(plan.error_word),
                   .buffers = {}};
  std::unique_ptr<ScratchBuffer> workspace;
  if (ScatterAtomically(args)) {  // The destination keys only.
    AH_ASSIGN_OR_RETURN(
        workspace, AllocateScratch(count * static_cast<int64_t>(sizeof(int64_t)), context.stream));
    args.buffers.keys[0] = workspace->data();
  } else {
    size_t temp_bytes = 0;
    AH_CUDA_RETURN_IF_ERROR(RadixSortTempBytes(count, &temp_bytes));
    AH_ASSIGN_OR_RETURN(workspace, AllocateRadix(count, temp_bytes, args.buffers, context.stream));
  }
  AH_CUDA_RETURN_IF_ERROR(LaunchScatter(args, context.stream));
  return IndexStatus(plan, table, shape, call.indices, *section.queue());
}

namespace {

// A SortCall on the current context's stream (CudaIndexing::Sort, and Partition where it sorts).
absl::Status SortOn(const SortCall& call, cudaStream_t stream) {
  const int64_t count = CountOf(call.input.shape);
  if (count == 0) return absl::OkStatus();
  const int64_t n = call.input.shape.empty() ? 1 : call.input.shape.back();

  AH_ASSIGN_OR_RETURN(const char* input, Base(call.input));
  SortArgs args{.dtype = call.input.dtype,
                .input = input,
                .rows = count / n,
                .n = n,
                .buffers = {},
                .stream = stream};
  if (call.values) {
    AH_ASSIGN_OR_RETURN(args.values, Base(*call.values));
  }
  if (call.indices) {
    AH_ASSIGN_OR_RETURN(char* indices, Base(*call.indices));
    args.indices = reinterpret_cast<int64_t*>(indices);
  }
  size_t temp_bytes = 0;
  AH_CUDA_RETURN_IF_ERROR(SortTempBytes(args, &temp_bytes));
  AH_ASSIGN_OR_RETURN(const std::unique_ptr<ScratchBuffer> workspace,
                      AllocateRadix(count, temp_bytes, args.buffers, stream));
  AH_CUDA_RETURN_IF_ERROR(LaunchSort(args));
  return absl::OkStatus();
}

}  // namespace

absl::Status CudaIndexing::Sort(QueueBinding& queue, const SortCall& call) {
  AH_ASSIGN_OR_RETURN(const QueueSection section, Enter(queue));
  AH_ASSIGN_OR_RETURN(const ComputeContext context, ComputeContextOf(section));
  return SortOn(call, context.stream);
}

// A radix select where select_kernels.cuh's PartitionSelects says it pays; else a sort, which
// is a valid partition for any kth.
absl::Status CudaIndexing::Partition(QueueBinding& queue, const PartitionCall& call) {
  AH_ASSIGN_OR_RETURN(const QueueSection section, Enter(queue));
  AH_ASSIGN_OR_RETURN(const ComputeContext context, ComputeContextOf(section));
  const int64_t count = CountOf(call.input.shape);
  if (count == 0) return absl::OkStatus();
  const int64_t n = call.input.shape.empty() ? 1 : call.input.shape.back();
  const auto kth_count = static_cast<int64_t>(call.kth.size());
  if (kth_count > 0 && !PartitionSelects(call.input.dtype, count / n, n, kth_count)) {
    return SortOn(SortCall{.input = call.input, .values = call.values, .indices = call.indices},
                  context.stream);
  }
  AH_ASSIGN_OR_RETURN(const char* input, Base(call.input));
  PartitionArgs args{.dtype = call.input.dtype,
                     .input = input,
                     .rows = count / n,
                     .n = n,
                     .kth = call.kth.data(),
                     .kth_count = static_cast<int>(kth_count),
                     .stream = context.stream};
  if (call.values) {
    AH_ASSIGN_OR_RETURN(args.values, Base(*call.values));
  }
  if (call.indices) {
    AH_ASSIGN_OR_RETURN(char* indices, Base(*call.indices));
    args.indices = reinterpret_cast<int64_t*>(indices);
  }
  std::unique_ptr<ScratchBuffer> scratch;
  if (kth_count > 0) {
    AH_CUDA_RETURN_IF_ERROR(PartitionScratchBytes(args.dtype, n, &args.scratch_bytes));
    AH_ASSIGN_OR_RETURN(scratch,
                        AllocateScratch(static_cast<int64_t>(args.scratch_bytes), context.stream));
    args.scratch = scratch->data();
  }
  AH_CUDA_RETURN_IF_ERROR(LaunchPartition(args));
  return absl::OkStatus();
}

absl::Status CudaIndexing::Scan(QueueBinding& queue, const ScanCall& call) {
  AH_ASSIGN_OR_RETURN(const QueueSection section, Enter(queue));
  AH_ASSIGN_OR_RETURN(const ComputeContext context, ComputeContextOf(section));
  const int64_t count = CountOf(call.data.shape);
  if (count == 0) return absl::OkStatus();
  const int64_t n = call.data.shape.empty() ? 1 : call.data.shape.back();

  AH_ASSIGN_OR_RETURN(char* data, Base(call.data));
  ScanArgs args{.dtype = call.data.dtype,
                .product = call.op == ScanOp::kProd,
                .data = data,
                .rows = count / n,
                .n = n,
                .stream = context.stream};
  AH_CUDA_RETURN_IF_ERROR(ScanTempBytes(args));
  AH_ASSIGN_OR_RETURN(const std::unique_ptr<ScratchBuffer> temp,
                      AllocateScratch(static_cast<int64_t>(args.temp_bytes), context.stream));
  args.temp = temp->data();
  AH_CUDA_RETURN_IF_ERROR(LaunchScan(args));
  return absl::OkStatus();
}

absl::StatusOr<int64_t> CudaIndexing::CountNonzero(QueueBinding& queue, const ArrayView& input) {
  AH_ASSIGN_OR_RETURN(const QueueSection section, Enter(queue));
  AH_ASSIGN_OR_RETURN(const ComputeContext context, ComputeContextOf(section));
  if (CountOf(input.shape) == 0) return 0;

  DeviceTable table;
  AH_ASSIGN_OR_RETURN(NonzeroPlan plan, PlanNonzero(input, table, context.stream));
  AH_RETURN_IF_ERROR(table.Upload(context.stream));
  BindNonzero(plan, table);
  AH_CUDA_RETURN_IF_ERROR(LaunchCountNonzero(plan.args, context.stream));
  unsigned long long total = 0;
  AH_RETURN_IF_ERROR(Read(plan.args.total, &total, sizeof total, *section.queue()));
  return static_cast<int64_t>(total);
}

absl::StatusOr<int64_t> CudaIndexing::Nonzero(QueueBinding& queue, const NonzeroCall& call) {
  AH_ASSIGN_OR_RETURN(const QueueSection section, Enter(queue));
  AH_ASSIGN_OR_RETURN(const ComputeContext context, ComputeContextOf(section));
  const int64_t limit = call.coordinates.empty() ? 0 : CountOf(call.coordinates[0].shape);
  if (limit == 0)
    return CountNonzero(queue, call.input);  // Nothing to write; the count still says.
  if (CountOf(call.input.shape) == 0) return 0;

  DeviceTable table;
  AH_ASSIGN_OR_RETURN(NonzeroPlan plan, PlanNonzero(call.input, table, context.stream));
  const size_t shape_word =
      table.AddWalk(CoalescedWalk{.extents = call.input.shape, .strides = {}});
  std::vector<int64_t*> coordinates;
  for (const ArrayView& view : call.coordinates) {
    AH_ASSIGN_OR_RETURN(char* base, Base(view));
    coordinates.push_back(reinterpret_cast<int64_t*>(base));
  }
  const size_t coordinates_word = table.AddRecords(coordinates);
  AH_RETURN_IF_ERROR(table.Upload(context.stream));
  BindNonzero(plan, table);

  // One scratch buffer: the chunk offsets, the nonzero flags and CUB's scan storage.
  const int64_t chunks = NonzeroChunks(plan.args.count);
  AH_CUDA_RETURN_IF_ERROR(NonzeroScanTempBytes(chunks, &plan.args.scan_temp_bytes));
  const int64_t offsets_bytes = AlignUp(chunks * static_cast<int64_t>(sizeof(int64_t)));
  const int64_t flags_bytes =
      AlignUp(NonzeroFlagWords(plan.args.count) * static_cast<int64_t>(sizeof(uint32_t)));
  AH_ASSIGN_OR_RETURN(
      const std::unique_ptr<ScratchBuffer> scratch,
      AllocateScratch(offsets_bytes + flags_bytes + static_cast<int64_t>(plan.args.scan_temp_bytes),
                      context.stream));
  char* const base = static_cast<char*>(scratch->data());
  plan.args.chunk_offsets = reinterpret_cast<int64_t*>(base);
  plan.args.flags = reinterpret_cast<uint32_t*>(base + offsets_bytes);
  plan.args.scan_temp = base + offsets_bytes + flags_bytes;
  plan.args.shape = table.At(shape_word);
  plan.args.coordinate_rank = static_cast<int>(call.input.shape.size());
  plan.args.coordinates = table.At<int64_t* const>(coordinates_word);
  plan.args.limit = limit;
  AH_CUDA_RETURN_IF_ERROR(LaunchCountNonzero(plan.args, context.stream));
  AH_CUDA_RETURN_IF_ERROR(LaunchNonzero(plan.args, context.stream));
  // The total of the counting pass, whose flags the positions came from.
  unsigned long long total = 0;
  AH_RETURN_IF_ERROR(Read(plan.args.total, &total, sizeof total, *section.queue()));
  return static_cast<int64_t>(total);
}

absl::Status CudaIndexing::SearchSorted(QueueBinding& queue, const SearchSortedCall& call) {
  AH_ASSIGN_OR_RETURN(const QueueSection section, Enter(queue));
  AH_ASSIGN_OR_RETURN(const ComputeContext context, ComputeContextOf(section));
  const int64_t count = CountOf(call.output.shape);
  if (count == 0) return absl::OkStatus();

  DeviceTable table;
  const CoalescedWalk walk = Coalesce(call.output.shape, {call.values.strides});
  const size_t walk_word = table.AddWalk(walk);
  AH_RETURN_IF_ERROR(table.Upload(context.stream));
  AH_ASSIGN_OR_RETURN(const char* sorted, Base(call.sorted));
  AH_ASSIGN_OR_RETURN(const char* values, Base(call.values));
  AH_ASSIGN_OR_RETURN(char* output, Base(call.output));
  const SearchSortedArgs args{.dtype = call.sorted.dtype,
                              .sorted = sorted,
                              .sorted_count = call.sorted.shape.at(0),
                              .sorted_stride = call.sorted.strides.at(0),
                              .values = values,
                              .walk = table.At(walk_word),
                              .rank = static_cast<int>(walk.extents.size()),
                              .right = call.right,
                              .output = reinterpret_cast<int64_t*>(output),
                              .count = count};
  AH_CUDA_RETURN_IF_ERROR(LaunchSearchSorted(args, context.stream));
  return absl::OkStatus();
}

absl::StatusOr<int64_t> CudaIndexing::SelectUnique(QueueBinding& queue, const UniqueCall& call) {
  AH_ASSIGN_OR_RETURN(const QueueSection section, Enter(queue));
  AH_ASSIGN_OR_RETURN(const ComputeContext context, ComputeContextOf(section));
  UniqueArgs args{.dtype = call.sorted.dtype, .count = call.sorted.shape.at(0)};
  if (args.count == 0) return 0;
  AH_ASSIGN_OR_RETURN(args.sorted, Base(call.sorted));
  AH_ASSIGN_OR_RETURN(args.output, Base(call.output));
  AH_CUDA_RETURN_IF_ERROR(LaunchUnique(args, context.stream));  // Sizes CUB's storage only.
  // One scratch buffer: the count CUB writes, then its storage.
  const int64_t count_bytes = AlignUp(sizeof(int64_t));
  AH_ASSIGN_OR_RETURN(
      const std::unique_ptr<ScratchBuffer> scratch,
      AllocateScratch(count_bytes + static_cast<int64_t>(args.temp_bytes), context.stream));
  args.selected = static_cast<int64_t*>(scratch->data());
  args.temp = static_cast<char*>(scratch->data()) + count_bytes;
  AH_CUDA_RETURN_IF_ERROR(LaunchUnique(args, context.stream));
  int64_t selected = 0;
  AH_RETURN_IF_ERROR(Read(args.selected, &selected, sizeof selected, *section.queue()));
  return selected;
}

absl::Status CudaIndexing::Histogram(QueueBinding& queue, const HistogramCall& call) {
  AH_ASSIGN_OR_RETURN(const QueueSection section, Enter(queue));
  AH_ASSIGN_OR_RETURN(const ComputeContext context, ComputeContextOf(section));
  AH_ASSIGN_OR_RETURN(const char* input, Base(call.input));
  AH_ASSIGN_OR_RETURN(const char* edges, Base(call.edges));
  AH_ASSIGN_OR_RETURN(char* counts, Base(call.counts));
  const HistogramArgs args{.dtype = call.input.dtype,
                           .input = input,
                           .count = CountOf(call.input.shape),
                           .edges = reinterpret_cast<const double*>(edges),
                           .bins = call.counts.shape.at(0),
                           .counts = reinterpret_cast<int64_t*>(counts)};
  AH_CUDA_RETURN_IF_ERROR(LaunchHistogram(args, context.stream));
  return absl::OkStatus();
}

}  // namespace arrayhub
