// Engine::ArrayOp: NumPy's array-manipulation functions. Each is composed from a few backend
// primitives: strided copies (Elementwise kCopy between views), gathers, sorts, scans and
// nonzero. flip and split answer views, as NumPy's do; the others new arrays.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "server/common/status_macros.h"
#include "server/core/axes.h"
#include "server/core/broadcast.h"
#include "server/core/engine.h"
#include "server/core/index_rules.h"
#include "server/core/nonzero_fill.h"
#include "server/core/promotion.h"
#include "server/core/ufunc_rules.h"

namespace arrayhub {
namespace {

using Records = std::vector<ArrayTable::RecordPtr>;

int64_t SizeOf(const Shape& shape) {
  return std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>());
}

// `view` with axis `axis` moved last (the layout sorts and scans work on).
ArrayView AxisLast(ArrayView view, int64_t axis) {
  std::rotate(view.shape.begin() + axis, view.shape.begin() + axis + 1, view.shape.end());
  std::rotate(view.strides.begin() + axis, view.strides.begin() + axis + 1, view.strides.end());
  return view;
}

// The inverse of AxisLast: the last axis moved back to `axis`.
ArrayView AxisBack(ArrayView view, int64_t axis) {
  std::rotate(view.shape.begin() + axis, view.shape.end() - 1, view.shape.end());
  std::rotate(view.strides.begin() + axis, view.strides.end() - 1, view.strides.end());
  return view;
}

// `view` restricted to [start, start + count) along `axis`.
ArrayView Slab(ArrayView view, int64_t axis, int64_t start, int64_t count) {
  view.offset_bytes += start * view.strides[axis] * ItemSize(view.dtype);
  view.shape[axis] = count;
  return view;
}

// numpy.cumsum/cumprod's result dtype: small integers and bool widen to the platform integer.
DType AccumulateDType(DType input) {
  if (input == DType::kBool) return DType::kInt64;
  if (IsInteger(input) && ItemSize(input) < 8) {
    return KindOf(input) == DTypeKind::kUnsigned ? DType::kUInt64 : DType::kInt64;
  }
  return input;
}

// The most arrays one split may answer. NumPy splits an empty axis into any number of empty
// parts; a shared server cannot let one request register 2^40 handles.
constexpr int64_t kMaxSplitParts = 65536;

absl::Status NegativeDimensions() {
  return absl::InvalidArgumentError("negative dimensions are not allowed");
}

}  // namespace

// The steps of one ArrayOp call: operand lookup, scratch memory (freed when this goes), and
// the internal ufunc and copy calls the ops are built from.
class ArrayOpSteps {
 public:
  ArrayOpSteps(const CallContext& context, const ArrayOpSpec& spec)
      : context_(context), spec_(spec) {}

  absl::StatusOr<Records> Run() {
    switch (spec_.op) {
      case ArrayOpKind::kCopy:
      case ArrayOpKind::kAscontiguousarray:
        return One(CopyOf(0, std::nullopt));
      case ArrayOpKind::kAstype:
        if (!spec_.dtype) return absl::InvalidArgumentError("astype needs dtype");
        return One(CopyOf(0, spec_.dtype));
      case ArrayOpKind::kTake:
        return One(Take());
      case ArrayOpKind::kCompress:
        return One(Compress());
      case ArrayOpKind::kNonzero:
        return Nonzero();
      case ArrayOpKind::kConcatenate:
        return One(Concatenate());
      case ArrayOpKind::kStack:
        return One(Stack());
      case ArrayOpKind::kSplit:
        return Split();
      case ArrayOpKind::kTile:
        return One(Tile());
      case ArrayOpKind::kRepeat:
        return One(Repeat());
      case ArrayOpKind::kFlip:
        return One(Flip());
      case ArrayOpKind::kRoll:
        return One(Roll());
      case ArrayOpKind::kSort:
      case ArrayOpKind::kArgsort:
        return One(Sort(spec_.op == ArrayOpKind::kArgsort));
      case ArrayOpKind::kPartition:
      case ArrayOpKind::kArgpartition:
        return One(Partition(spec_.op == ArrayOpKind::kArgpartition));
      case ArrayOpKind::kCumsum:
      case ArrayOpKind::kCumprod:
        return One(Cumulative(spec_.op == ArrayOpKind::kCumsum ? ScanOp::kSum : ScanOp::kProd));
      case ArrayOpKind::kUnique:
        return One(Unique());
      case ArrayOpKind::kSearchsorted:
        return One(SearchSorted());
      case ArrayOpKind::kHistogram:
        return One(Histogram());
    }
    return absl::InternalError("unhandled array op");
  }

 private:
  static absl::StatusOr<Records> One(absl::StatusOr<ArrayTable::RecordPtr> result) {
    AH_RETURN_IF_ERROR(result.status());
    return Records{*std::move(result)};
  }

  std::string_view Name() const { return ArrayOpName(spec_.op); }

  absl::Status Arity(size_t least, size_t most) const {
    const size_t count = spec_.operands.size();
    if (count >= least && count <= most) return absl::OkStatus();
    return absl::InvalidArgumentError(
        least == most
            ? fmt::format("{} takes {} operand{}, got {}", Name(), least, least == 1 ? "" : "s",
                          count)
            : fmt::format("{} takes {} to {} operands, got {}", Name(), least, most, count));
  }

  absl::StatusOr<ArrayTable::RecordPtr> Array(size_t i) {
    const OperandSpec& operand = spec_.operands[i];
    if (!operand.handle) {
      return absl::InvalidArgumentError(
          fmt::format("{}: operands[{}] must be an array handle", Name(), i));
    }
    return context_.Find(*operand.handle, fmt::format("operands[{}]", i));
  }

  // The single axis argument, normalized against `rank`; `fallback` when absent.
  absl::StatusOr<int64_t> SingleAxis(int64_t rank, std::optional<int64_t> fallback) {
    if (!spec_.axes) {
      if (fallback) return *fallback;
      return absl::InvalidArgumentError(fmt::format("{} needs an axis", Name()));
    }
    if (spec_.axes->size() != 1) {
      return absl::InvalidArgumentError(
          fmt::format("{} takes a single axis, got {}", Name(), spec_.axes->size()));
    }
    return NormalizeAxis(spec_.axes->front(), rank);
  }

  absl::StatusOr<ArrayView> Scratch(DType dtype, const Shape& shape) {
    return context_.NewScratch(dtype, shape, scratch_);
  }

  // The array's elements in C order as a 1-D view: itself when C-contiguous, else a copy.
  absl::StatusOr<ArrayView> Flat(const ArrayRecord& array) {
    ArrayView view = ViewOf(array);
    if (!array.c_contiguous()) {
      AH_ASSIGN_OR_RETURN(view, context_.CopyAside(view, scratch_));
    }
    view.shape = {array.size()};
    view.strides = {1};
    return view;
  }

  absl::StatusOr<ArrayTable::RecordPtr> Register(ArrayRecord record) {
    return context_.Register(std::move(record));
  }

  // One elementwise op on views, typed as NumPy types it for arrays of those dtypes.
  absl::Status Ufunc(ElementwiseOp op, const std::vector<ArrayView>& inputs,
                     const ArrayView& output) {
    std::vector<UfuncOperand> typed;
    for (const ArrayView& input : inputs) typed.push_back({input.dtype, std::nullopt});
    AH_ASSIGN_OR_RETURN(UfuncResolution types, ResolveUfunc(op, typed, std::nullopt));
    ElementwiseCall call{.op = op,
                         .compute_dtype = types.compute_dtype,
                         .result_dtype = types.result_dtype,
                         .shape = output.shape,
                         .operands = {},
                         .output = output};
    for (const ArrayView& input : inputs) {
      call.operands.push_back({.array = input, .dtype = input.dtype});
    }
    return context_.backend().compute().Elementwise(context_.queue(), call);
  }

  // ---- copy, ascontiguousarray, astype ----------------------------------------------------

  absl::StatusOr<ArrayTable::RecordPtr> CopyOf(size_t operand, std::optional<DType> dtype) {
    AH_RETURN_IF_ERROR(Arity(1, 1));
    AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr array, Array(operand));
    AH_ASSIGN_OR_RETURN(ArrayRecord copy,
                        context_.CopyToNewArray(ViewOf(*array), dtype.value_or(array->dtype)));
    return Register(std::move(copy));
  }

  // ---- take, compress -------------------------------------------------------------------

  // The data an op along `axis` reads: the array itself, or its flattening when the request
  // has no axis (NumPy's axis=None), with the axis that applies.
  absl::StatusOr<std::pair<ArrayRecord, int64_t>> AlongAxis(const ArrayRecord& array) {
    if (spec_.axes) {
      AH_ASSIGN_OR_RETURN(int64_t axis, SingleAxis(static_cast<int64_t>(array.shape.size()), 0));
      return std::pair{array, axis};
    }
    AH_ASSIGN_OR_RETURN(ArrayView flat, Flat(array));
    ArrayRecord data = array;
    data.shape = flat.shape;
    data.strides = flat.strides;
    data.offset_bytes = flat.offset_bytes;
    // Aliases the copy's buffer (kept in scratch_) when the array had to be flattened by copying.
    data.buffer = std::shared_ptr<Buffer>(array.buffer, flat.buffer);
    return std::pair{data, int64_t{0}};
  }

  // numpy.take(data, index, axis) as a new array: `index` is an int64 array, or with nullopt
  // `integer` picks one position (a slab).
  absl::StatusOr<ArrayTable::RecordPtr> TakeAlong(const ArrayRecord& data, int64_t axis,
                                                  const std::optional<ArrayView>& index,
                                                  int64_t integer = 0) {
    std::vector<IndexEntry> entries(axis, IndexEntry{.kind = IndexEntry::Kind::kSlice});
    if (index) {
      entries.push_back({.kind = IndexEntry::Kind::kIntArray, .array_shape = index->shape});
    } else {
      entries.push_back({.kind = IndexEntry::Kind::kInteger, .integer = integer});
    }
    AH_ASSIGN_OR_RETURN(IndexPlan plan,
                        PlanIndex({data.shape, data.strides, data.offset_bytes},
                                  ItemSize(data.dtype), entries, context_.limits()));
    AH_ASSIGN_OR_RETURN(ArrayRecord result, context_.NewArray(data.dtype, plan.layout.shape));
    const ArrayView source{data.buffer.get(), plan.layout.offset_bytes, data.dtype,
                           plan.layout.shape, plan.layout.strides};
    if (!index) {
      AH_RETURN_IF_ERROR(context_.CopyInto(source, ViewOf(result)));
      return Register(std::move(result));
    }
    const AdvancedIndex& advanced = plan.arrays.front();
    ArrayView indices = *index;
    Strides strides(plan.layout.shape.size(), 0);
    const Strides block = BroadcastStrides(indices.shape, indices.strides, plan.block_shape);
    std::copy(block.begin(), block.end(),
              strides.begin() + static_cast<std::ptrdiff_t>(plan.block_start));
    indices.shape = plan.layout.shape;
    indices.strides = strides;
    AH_RETURN_IF_ERROR(context_.backend().indexing().Gather(
        context_.queue(), GatherCall{.source = source,
                                     .indices = {IndexOperand{.indices = indices,
                                                              .extent = advanced.extent,
                                                              .stride = advanced.stride,
                                                              .axis = advanced.axis}},
                                     .output = ViewOf(result)}));
    return Register(std::move(result));
  }

  // An index array as int64 (a converted copy for other integer dtypes).
  absl::StatusOr<ArrayView> Int64Indices(const ArrayRecord& index) {
    if (!IsInteger(index.dtype)) {
      return absl::InvalidArgumentError(
          fmt::format("{}: indices must be integers, got {}", Name(), DTypeName(index.dtype)));
    }
    if (index.dtype == DType::kInt64) return ViewOf(index);
    AH_ASSIGN_OR_RETURN(ArrayView converted, Scratch(DType::kInt64, index.shape));
    AH_RETURN_IF_ERROR(context_.CopyInto(ViewOf(index), converted));
    return converted;
  }

  absl::StatusOr<ArrayTable::RecordPtr> Take() {
    AH_RETURN_IF_ERROR(Arity(2, 2));
    AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr array, Array(0));
    AH_ASSIGN_OR_RETURN(auto along, AlongAxis(*array));
    const OperandSpec& indices = spec_.operands[1];
    if (indices.scalar && indices.scalar->kind == Scalar::Kind::kInt) {
      return TakeAlong(along.first, along.second, std::nullopt, indices.scalar->i);
    }
    AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr index, Array(1));
    AH_ASSIGN_OR_RETURN(ArrayView index_view, Int64Indices(*index));
    return TakeAlong(along.first, along.second, index_view);
  }

  // numpy.compress(condition, a, axis): a.take(nonzero(condition)[0], axis); a condition
  // shorter than the axis selects nothing beyond its end, as NumPy.
  absl::StatusOr<ArrayTable::RecordPtr> Compress() {
    AH_RETURN_IF_ERROR(Arity(2, 2));
    AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr array, Array(0));
    AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr condition, Array(1));
    if (condition->shape.size() != 1) {
      return absl::InvalidArgumentError(fmt::format(
          "condition must be a 1-d array; it has shape {}", FormatShape(condition->shape)));
    }
    AH_ASSIGN_OR_RETURN(auto along, AlongAxis(*array));
    AH_ASSIGN_OR_RETURN(int64_t count, context_.backend().indexing().CountNonzero(
                                           context_.queue(), ViewOf(*condition)));
    AH_ASSIGN_OR_RETURN(ArrayView positions, Scratch(DType::kInt64, {count}));
    AH_RETURN_IF_ERROR(
        FillNonzero(context_.backend().indexing(), context_.queue(),
                    NonzeroCall{.input = ViewOf(*condition), .coordinates = {positions}}, count));
    return TakeAlong(along.first, along.second, positions);
  }

  // ---- nonzero --------------------------------------------------------------------------

  absl::StatusOr<Records> Nonzero() {
    AH_RETURN_IF_ERROR(Arity(1, 1));
    AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr array, Array(0));
    if (array->shape.empty()) {
      return absl::InvalidArgumentError(
          "Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar).nonzero() "
          "instead.");
    }
    AH_ASSIGN_OR_RETURN(int64_t count, context_.backend().indexing().CountNonzero(context_.queue(),
                                                                                  ViewOf(*array)));
    std::vector<ArrayRecord> results;
    NonzeroCall call{.input = ViewOf(*array), .coordinates = {}};
    for (size_t d = 0; d < array->shape.size(); ++d) {
      AH_ASSIGN_OR_RETURN(ArrayRecord axis, context_.NewArray(DType::kInt64, {count}));
      call.coordinates.push_back(ViewOf(axis));
      results.push_back(std::move(axis));
    }
    AH_RETURN_IF_ERROR(FillNonzero(context_.backend().indexing(), context_.queue(), call, count));
    return context_.RegisterAll(std::move(results));
  }

  // ---- concatenate, stack ----------------------------------------------------------------

  absl::StatusOr<Records> Operands() {
    if (spec_.operands.empty()) {
      return absl::InvalidArgumentError(fmt::format("need at least one array to {}", Name()));
    }
    Records arrays;
    for (size_t i = 0; i < spec_.operands.size(); ++i) {
      AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr array, Array(i));
      arrays.push_back(std::move(array));
    }
    return arrays;
  }

  // The result dtype of joining `arrays`: promoted, or dtype= if each casts to it same-kind.
  absl::StatusOr<DType> JoinedDType(const Records& arrays) {
    DType dtype = arrays.front()->dtype;
    for (const auto& array : arrays) dtype = PromoteTypes(dtype, array->dtype);
    if (!spec_.dtype) return dtype;
    for (const auto& array : arrays) {
      if (!CanCastSameKind(array->dtype, *spec_.dtype)) {
        return absl::InvalidArgumentError(fmt::format(
            "Cannot cast array data from dtype('{}') to dtype('{}') according to the rule "
            "'same_kind'",
            DTypeName(array->dtype), DTypeName(*spec_.dtype)));
      }
    }
    return *spec_.dtype;
  }

  // The inputs as views: flattened for axis=None.
  absl::StatusOr<std::vector<ArrayView>> JoinInputs(const Records& arrays, bool flatten) {
    std::vector<ArrayView> views;
    for (const auto& array : arrays) {
      if (flatten) {
        AH_ASSIGN_OR_RETURN(ArrayView flat, Flat(*array));
        views.push_back(flat);
      } else {
        views.push_back(ViewOf(*array));
      }
    }
    return views;
  }

  absl::StatusOr<ArrayTable::RecordPtr> Concatenate() {
    AH_ASSIGN_OR_RETURN(Records arrays, Operands());
    AH_ASSIGN_OR_RETURN(DType dtype, JoinedDType(arrays));
    AH_ASSIGN_OR_RETURN(std::vector<ArrayView> inputs, JoinInputs(arrays, !spec_.axes));
    const size_t rank = inputs.front().shape.size();
    if (rank == 0)
      return absl::InvalidArgumentError("zero-dimensional arrays cannot be concatenated");
    AH_ASSIGN_OR_RETURN(int64_t axis, SingleAxis(static_cast<int64_t>(rank), 0));
    Shape shape = inputs.front().shape;
    shape[axis] = 0;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const Shape& other = inputs[i].shape;
      if (other.size() != rank) {
        return absl::InvalidArgumentError(fmt::format(
            "all the input arrays must have same number of dimensions, but the array at index 0 "
            "has {} dimension(s) and the array at index {} has {} dimension(s)",
            rank, i, other.size()));
      }
      for (size_t d = 0; d < rank; ++d) {
        if (static_cast<int64_t>(d) != axis && other[d] != inputs.front().shape[d]) {
          return absl::InvalidArgumentError(fmt::format(
              "all the input array dimensions except for the concatenation axis must match "
              "exactly, but along dimension {}, the array at index 0 has size {} and the array "
              "at index {} has size {}",
              d, inputs.front().shape[d], i, other[d]));
        }
      }
      shape[axis] += other[axis];
    }
    AH_ASSIGN_OR_RETURN(ArrayRecord result, context_.NewArray(dtype, shape));
    int64_t start = 0;
    for (const ArrayView& input : inputs) {
      AH_RETURN_IF_ERROR(
          context_.CopyInto(input, Slab(ViewOf(result), axis, start, input.shape[axis])));
      start += input.shape[axis];
    }
    return Register(std::move(result));
  }

  absl::StatusOr<ArrayTable::RecordPtr> Stack() {
    AH_ASSIGN_OR_RETURN(Records arrays, Operands());
    AH_ASSIGN_OR_RETURN(DType dtype, JoinedDType(arrays));
    const Shape& shape = arrays.front()->shape;
    for (const auto& array : arrays) {
      if (array->shape != shape) {
        return absl::InvalidArgumentError("all input arrays must have the same shape");
      }
    }
    const auto rank = static_cast<int64_t>(shape.size()) + 1;
    AH_ASSIGN_OR_RETURN(int64_t axis, SingleAxis(rank, 0));
    Shape stacked = shape;
    stacked.insert(stacked.begin() + axis, static_cast<int64_t>(arrays.size()));
    AH_ASSIGN_OR_RETURN(ArrayRecord result, context_.NewArray(dtype, stacked));
    for (size_t i = 0; i < arrays.size(); ++i) {
      ArrayView target = Slab(ViewOf(result), axis, static_cast<int64_t>(i), 1);
      target.shape.erase(target.shape.begin() + axis);
      target.strides.erase(target.strides.begin() + axis);
      AH_RETURN_IF_ERROR(context_.CopyInto(ViewOf(*arrays[i]), target));
    }
    return Register(std::move(result));
  }

  // ---- split (views) ----------------------------------------------------------------------

  absl::StatusOr<Records> Split() {
    AH_RETURN_IF_ERROR(Arity(1, 1));
    AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr array, Array(0));
    const auto rank = static_cast<int64_t>(array->shape.size());
    if (rank == 0) return absl::InvalidArgumentError("split of a 0-d array");
    AH_ASSIGN_OR_RETURN(int64_t axis, SingleAxis(rank, 0));
    const int64_t extent = array->shape[axis];
    const int64_t part_count = spec_.split_at_indices ? static_cast<int64_t>(spec_.ints.size()) + 1
                               : spec_.ints.empty()   ? 1
                                                      : spec_.ints.front();
    if (part_count > kMaxSplitParts) {
      return absl::InvalidArgumentError(
          fmt::format("split into {} parts exceeds this server's limit of {} arrays per split",
                      part_count, kMaxSplitParts));
    }
    std::vector<int64_t> bounds = {0};
    if (spec_.split_at_indices) {
      for (int64_t index : spec_.ints) {  // Python slicing clamps each bound.
        const int64_t at = index < 0 ? std::max<int64_t>(index + extent, 0) : index;
        bounds.push_back(std::min(at, extent));
      }
    } else {
      if (spec_.ints.size() != 1) {
        return absl::InvalidArgumentError(
            "split takes one number of sections in ints, or indices with split_at_indices");
      }
      const int64_t sections = spec_.ints.front();
      if (sections <= 0)
        return absl::InvalidArgumentError("number sections must be larger than 0.");
      if (extent % sections != 0) {
        return absl::InvalidArgumentError("array split does not result in an equal division");
      }
      for (int64_t i = 1; i < sections; ++i) bounds.push_back(i * (extent / sections));
    }
    bounds.push_back(extent);
    std::vector<ArrayRecord> parts;
    for (size_t i = 0; i + 1 < bounds.size(); ++i) {
      const int64_t count = std::max<int64_t>(bounds[i + 1] - bounds[i], 0);
      ArrayView part = Slab(ViewOf(*array), axis, count > 0 ? bounds[i] : 0, count);
      parts.push_back(context_.ViewRecord(*array, {part.shape, part.strides, part.offset_bytes}));
    }
    return context_.RegisterAll(std::move(parts));
  }

  // ---- tile, repeat -----------------------------------------------------------------------

  absl::StatusOr<ArrayTable::RecordPtr> Tile() {
    AH_RETURN_IF_ERROR(Arity(1, 1));
    AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr array, Array(0));
    // The result has max(len(reps), ndim) axes: a longer reps list is refused before the
    // padding below, which is quadratic in its length.
    AH_RETURN_IF_ERROR(CheckRank(static_cast<int64_t>(spec_.ints.size()), context_.limits(),
                                 "tile's reps (ints)"));
    std::vector<int64_t> reps = spec_.ints;
    ArrayView source = ViewOf(*array);
    if (std::any_of(reps.begin(), reps.end(), [](int64_t r) { return r < 0; })) {
      return NegativeDimensions();
    }
    while (reps.size() < source.shape.size()) reps.insert(reps.begin(), 1);
    while (source.shape.size() < reps.size()) {
      source.shape.insert(source.shape.begin(), 1);
      source.strides.insert(source.strides.begin(), 0);
    }
    // The source broadcast over interleaved (rep, extent) axes; the result's C order is the
    // same walk over (rep * extent) axes.
    Shape interleaved, tiled;
    Strides strides;
    for (size_t d = 0; d < reps.size(); ++d) {
      interleaved.insert(interleaved.end(), {reps[d], source.shape[d]});
      strides.insert(strides.end(), {0, source.strides[d]});
      int64_t extent;
      if (__builtin_mul_overflow(reps[d], source.shape[d], &extent)) {
        return absl::InvalidArgumentError("tile: the result is too large");
      }
      tiled.push_back(extent);
    }
    return CopyThrough(source, interleaved, strides, tiled);
  }

  // A new C-contiguous array of `result_shape` filled by copying `source` viewed as `shape`
  // with `strides` (a walk whose C order is the result's).
  absl::StatusOr<ArrayTable::RecordPtr> CopyThrough(ArrayView source, const Shape& shape,
                                                    const Strides& strides,
                                                    const Shape& result_shape) {
    AH_ASSIGN_OR_RETURN(ArrayRecord result, context_.NewArray(source.dtype, result_shape));
    source.shape = shape;
    source.strides = strides;
    ArrayView target = ViewOf(result);
    target.shape = shape;
    target.strides = ContiguousStrides(shape);
    AH_RETURN_IF_ERROR(context_.CopyInto(source, target));
    return Register(std::move(result));
  }

  absl::StatusOr<ArrayTable::RecordPtr> Repeat() {
    AH_RETURN_IF_ERROR(Arity(1, 2));
    AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr array, Array(0));
    AH_ASSIGN_OR_RETURN(auto along, AlongAxis(*array));
    const auto& [data, axis] = along;
    if (spec_.operands.size() == 2) return RepeatCounts(data, axis);
    if (spec_.ints.size() != 1) {
      return absl::InvalidArgumentError("repeat takes one count in ints, or an array of counts");
    }
    const int64_t count = spec_.ints.front();
    if (count < 0) return absl::InvalidArgumentError("repeats may not contain negative values");
    // Each element followed by count - 1 copies: a new axis of `count` after `axis`, stride 0.
    const ArrayView source = ViewOf(data);
    Shape shape = source.shape;
    Strides strides = source.strides;
    shape.insert(shape.begin() + axis + 1, count);
    strides.insert(strides.begin() + axis + 1, 0);
    Shape result_shape = source.shape;
    if (__builtin_mul_overflow(result_shape[axis], count, &result_shape[axis])) {
      return absl::InvalidArgumentError("repeat: the result is too large");
    }
    return CopyThrough(source, shape, strides, result_shape);
  }

  // repeat with one count per element along the axis: the counts are read to the host (the
  // result's shape depends on them, as in NumPy), and the result is a gather.
  absl::StatusOr<ArrayTable::RecordPtr> RepeatCounts(const ArrayRecord& data, int64_t axis) {
    AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr counts_array, Array(1));
    if (!IsInteger(counts_array->dtype) && counts_array->dtype != DType::kBool) {
      return absl::InvalidArgumentError(fmt::format(
          "Cannot cast array data from dtype('{}') to dtype('int64') according to the rule "
          "'safe'",
          DTypeName(counts_array->dtype)));
    }
    const int64_t extent = data.shape[axis];
    const int64_t given = counts_array->size();
    if (counts_array->shape.size() > 1 || (given != extent && given != 1)) {
      return absl::InvalidArgumentError(fmt::format(
          "operands could not be broadcast together with shape ({},) ({},)", extent, given));
    }
    AH_ASSIGN_OR_RETURN(ArrayView counts_view, Scratch(DType::kInt64, {given}));
    ArrayView counts_source = ViewOf(*counts_array);
    counts_source.shape = {given};
    counts_source.strides = {counts_array->shape.empty() ? 0 : counts_array->strides[0]};
    AH_RETURN_IF_ERROR(context_.CopyInto(counts_source, counts_view));
    // Host vectors are charged as scratch is, for as long as this call holds them.
    AH_ASSIGN_OR_RETURN(
        TenantCharge counts_charge,
        context_.ledger().Reserve(context_.caller().tenant, given * ItemSize(DType::kInt64)));
    std::vector<int64_t> counts(static_cast<size_t>(given));
    AH_RETURN_IF_ERROR(context_.backend().memory().CopyToHost(
        context_.queue(), *counts_view.buffer, 0,
        std::span(reinterpret_cast<std::byte*>(counts.data()), counts.size() * sizeof(int64_t))));
    int64_t total = 0;
    for (int64_t i = 0; i < extent; ++i) {
      const int64_t count = counts[given == 1 ? 0 : i];
      if (count < 0) return absl::InvalidArgumentError("repeats may not contain negative values");
      if (__builtin_add_overflow(total, count, &total)) {
        return absl::InvalidArgumentError("repeat: the result is too large");
      }
    }
    // Everything the counts size is checked against the server's limits and the tenant's room
    // before any of it is allocated: the result, and the index on the host and the backend.
    Shape result_shape = data.shape;
    result_shape[axis] = total;
    AH_ASSIGN_OR_RETURN(int64_t result_bytes,
                        CheckedArrayBytes(result_shape, data.dtype, context_.limits()));
    const Shape index_shape = {total};
    AH_ASSIGN_OR_RETURN(int64_t index_bytes,
                        CheckedArrayBytes(index_shape, DType::kInt64, context_.limits()));
    int64_t needed = result_bytes;
    if (__builtin_add_overflow(needed, index_bytes, &needed) ||
        __builtin_add_overflow(needed, index_bytes, &needed)) {
      return absl::InvalidArgumentError("repeat: the result is too large");
    }
    AH_RETURN_IF_ERROR(context_.ledger().CheckRoom(context_.caller().tenant, needed));
    AH_ASSIGN_OR_RETURN(TenantCharge positions_charge,
                        context_.ledger().Reserve(context_.caller().tenant, index_bytes));
    AH_ASSIGN_OR_RETURN(ArrayView index, Scratch(DType::kInt64, index_shape));
    std::vector<int64_t> positions;
    positions.reserve(static_cast<size_t>(total));
    for (int64_t i = 0; i < extent; ++i)
      positions.insert(positions.end(), counts[given == 1 ? 0 : i], i);
    AH_RETURN_IF_ERROR(context_.backend().memory().CopyFromHost(
        context_.queue(), *index.buffer, 0,
        std::span(reinterpret_cast<const std::byte*>(positions.data()),
                  positions.size() * sizeof(int64_t))));
    return TakeAlong(data, axis, index);
  }

  // ---- flip (a view), roll ------------------------------------------------------------------

  absl::StatusOr<std::vector<int64_t>> AxesOrAll(int64_t rank) {
    if (!spec_.axes) {
      std::vector<int64_t> all(rank);
      std::iota(all.begin(), all.end(), 0);
      return all;
    }
    return NormalizeAxes(*spec_.axes, rank, "repeated axis");
  }

  absl::StatusOr<ArrayTable::RecordPtr> Flip() {
    AH_RETURN_IF_ERROR(Arity(1, 1));
    AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr array, Array(0));
    AH_ASSIGN_OR_RETURN(std::vector<int64_t> axes,
                        AxesOrAll(static_cast<int64_t>(array->shape.size())));
    Layout layout{array->shape, array->strides, array->offset_bytes};
    for (int64_t axis : axes) {
      if (layout.shape[axis] > 0) {
        layout.offset_bytes +=
            (layout.shape[axis] - 1) * layout.strides[axis] * ItemSize(array->dtype);
      }
      layout.strides[axis] = -layout.strides[axis];
    }
    return context_.RegisterView(*array, layout);
  }

  absl::StatusOr<ArrayTable::RecordPtr> Roll() {
    AH_RETURN_IF_ERROR(Arity(1, 1));
    AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr array, Array(0));
    ArrayView source = ViewOf(*array);
    const bool flat = !spec_.axes;
    if (flat) {
      AH_ASSIGN_OR_RETURN(source, Flat(*array));
    }
    const auto rank = static_cast<int64_t>(source.shape.size());
    std::vector<int64_t> axes = flat ? std::vector<int64_t>{0} : *spec_.axes;
    std::vector<int64_t> shifts = spec_.ints;
    if (shifts.size() == 1 && axes.size() > 1) shifts.resize(axes.size(), shifts[0]);
    if (axes.size() == 1 && shifts.size() > 1) axes.resize(shifts.size(), axes[0]);
    if (shifts.size() != axes.size()) {
      return absl::InvalidArgumentError(
          "'shift' and 'axis' should be scalars or 1D sequences of the same length");
    }
    // Shifts along one axis add up, as NumPy; each axis then rolls by its total.
    std::vector<int64_t> total(rank, 0);
    for (size_t i = 0; i < axes.size(); ++i) {
      AH_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axes[i], rank));
      const int64_t extent = std::max<int64_t>(source.shape[axis], 1);
      total[axis] = ((total[axis] + shifts[i] % extent) % extent + extent) % extent;
    }
    AH_ASSIGN_OR_RETURN(ArrayRecord result, context_.NewArray(array->dtype, source.shape));
    ArrayView current = source;
    // One axis at a time: two slab copies per rolled axis, alternating with a scratch copy.
    std::vector<int64_t> rolled;
    for (int64_t axis = 0; axis < rank; ++axis) {
      if (total[axis] != 0) rolled.push_back(axis);
    }
    if (rolled.empty()) {
      AH_RETURN_IF_ERROR(context_.CopyInto(current, ViewOf(result)));
    }
    for (size_t i = 0; i < rolled.size(); ++i) {
      const int64_t axis = rolled[i], shift = total[axis], extent = current.shape[axis];
      // The last step writes the result; earlier ones write scratch, which the next reads.
      ArrayView target;
      if (i + 1 == rolled.size()) {
        target = ViewOf(result);
        target.shape = source.shape;
        target.strides = ContiguousStrides(source.shape);
      } else {
        AH_ASSIGN_OR_RETURN(target, Scratch(array->dtype, source.shape));
      }
      AH_RETURN_IF_ERROR(context_.CopyInto(Slab(current, axis, 0, extent - shift),
                                           Slab(target, axis, shift, extent - shift)));
      AH_RETURN_IF_ERROR(context_.CopyInto(Slab(current, axis, extent - shift, shift),
                                           Slab(target, axis, 0, shift)));
      current = target;
    }
    result.shape = array->shape;
    result.strides = ContiguousStrides(array->shape);
    return Register(std::move(result));
  }

  // ---- sort, argsort, partition, argpartition, cumsum, cumprod
  // ---------------------------------------------------

  // The input arranged for an op along one axis: the axis (or the flattened array) last, as a
  // C-contiguous (rows, n) copy of `dtype` in scratch. Returns it and the axis (-1: flattened).
  absl::StatusOr<std::pair<ArrayView, int64_t>> RowsAlongAxis(const ArrayRecord& array, DType dtype,
                                                              std::optional<int64_t> fallback) {
    AH_ASSIGN_OR_RETURN(auto in_place, RowsInPlace(array, fallback));
    return CopiedRows(in_place, dtype);
  }

  // RowsInPlace's rows as a C-contiguous copy of `dtype` in scratch, with their axis.
  absl::StatusOr<std::pair<ArrayView, int64_t>> CopiedRows(
      const std::pair<ArrayView, int64_t>& in_place, DType dtype) {
    AH_ASSIGN_OR_RETURN(ArrayView rows, Scratch(dtype, in_place.first.shape));
    AH_RETURN_IF_ERROR(context_.CopyInto(in_place.first, rows));
    return std::pair{rows, in_place.second};
  }

  // The same rows as a view of the array itself (a flat copy only where axis=None meets an
  // array that is not C-contiguous): C-contiguous where the axis is the last one, strided
  // otherwise. For ops whose backends read their input without trusting it to hold still.
  absl::StatusOr<std::pair<ArrayView, int64_t>> RowsInPlace(const ArrayRecord& array,
                                                            std::optional<int64_t> fallback) {
    ArrayView source = ViewOf(array);
    int64_t axis = -1;
    if (spec_.axes || fallback) {
      AH_ASSIGN_OR_RETURN(axis, SingleAxis(static_cast<int64_t>(array.shape.size()), fallback));
      source = AxisLast(source, axis);
    } else {
      source.shape = {array.size()};
      source.strides = {1};
      if (!array.c_contiguous()) {
        AH_ASSIGN_OR_RETURN(source, Flat(array));
      }
    }
    return std::pair{source, axis};
  }

  // A registered C-contiguous result from `rows` (the scratch layout of RowsAlongAxis), with
  // the axis moved back where it was.
  absl::StatusOr<ArrayTable::RecordPtr> FromRows(const ArrayView& rows, int64_t axis) {
    const ArrayView arranged = axis < 0 ? rows : AxisBack(rows, axis);
    AH_ASSIGN_OR_RETURN(ArrayRecord result, context_.CopyToNewArray(arranged, arranged.dtype));
    return Register(std::move(result));
  }

  absl::StatusOr<ArrayTable::RecordPtr> Sort(bool indices) {
    AH_RETURN_IF_ERROR(Arity(1, 1));
    AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr array, Array(0));
    // axis=None sorts the flattened array; an absent AxisList is None here, so callers that
    // want NumPy's default axis=-1 send it.
    AH_ASSIGN_OR_RETURN(auto input, RowsAlongAxis(*array, array->dtype, std::nullopt));
    auto [rows, axis] = input;
    AH_ASSIGN_OR_RETURN(ArrayView sorted,
                        Scratch(indices ? DType::kInt64 : array->dtype, rows.shape));
    SortCall call{.input = rows, .values = std::nullopt, .indices = std::nullopt};
    (indices ? call.indices : call.values) = sorted;
    if (SizeOf(rows.shape) > 0)
      AH_RETURN_IF_ERROR(context_.backend().indexing().Sort(context_.queue(), call));
    return FromRows(sorted, axis);
  }

  // numpy.partition / argpartition: `ints` are the kth positions, each k < 0 counting from the
  // end, checked against the axis as NumPy checks them (not at all when the array is empty);
  // the backend gets them ascending and distinct.
  absl::StatusOr<ArrayTable::RecordPtr> Partition(bool indices) {
    AH_RETURN_IF_ERROR(Arity(1, 1));
    AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr array, Array(0));
    // Rows that are C-contiguous in the array are read where they are (IndexingKernels::Partition
    // reads an input that another call may be writing without harm), others are copied.
    AH_ASSIGN_OR_RETURN(auto input, RowsInPlace(*array, std::nullopt));
    if (!IsCContiguous(input.first.shape, input.first.strides)) {
      AH_ASSIGN_OR_RETURN(input, CopiedRows(input, array->dtype));
    }
    auto [rows, axis] = input;
    const int64_t n = rows.shape.back();
    std::vector<int64_t> kth;
    if (SizeOf(rows.shape) > 0) {
      for (int64_t k : spec_.ints) {
        if (k < 0) k += n;
        if (k < 0 || k >= n) {
          return absl::InvalidArgumentError(fmt::format("kth(={}) out of bounds ({})", k, n));
        }
        kth.push_back(k);
      }
    }
    std::sort(kth.begin(), kth.end());
    kth.erase(std::unique(kth.begin(), kth.end()), kth.end());
    const DType dtype = indices ? DType::kInt64 : array->dtype;
    PartitionCall call{
        .input = rows, .kth = std::move(kth), .values = std::nullopt, .indices = std::nullopt};
    // Along the last axis (or of the flattened array) the rows' layout is the result's: the
    // backend writes the new array itself.
    if (axis < 0 || axis == static_cast<int64_t>(array->shape.size()) - 1) {
      AH_ASSIGN_OR_RETURN(ArrayRecord result,
                          context_.NewArray(dtype, axis < 0 ? rows.shape : array->shape));
      ArrayView output = ViewOf(result);
      output.shape = rows.shape;
      output.strides = rows.strides;
      (indices ? call.indices : call.values) = output;
      if (SizeOf(rows.shape) > 0)
        AH_RETURN_IF_ERROR(context_.backend().indexing().Partition(context_.queue(), call));
      return Register(std::move(result));
    }
    AH_ASSIGN_OR_RETURN(ArrayView partitioned, Scratch(dtype, rows.shape));
    (indices ? call.indices : call.values) = partitioned;
    if (SizeOf(rows.shape) > 0)
      AH_RETURN_IF_ERROR(context_.backend().indexing().Partition(context_.queue(), call));
    return FromRows(partitioned, axis);
  }

  absl::StatusOr<ArrayTable::RecordPtr> Cumulative(ScanOp op) {
    AH_RETURN_IF_ERROR(Arity(1, 1));
    AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr array, Array(0));
    const DType dtype = spec_.dtype.value_or(AccumulateDType(array->dtype));
    // Bool accumulations are integer sums of the truth values (NumPy's add on bool is "or").
    const DType scan_dtype = dtype == DType::kBool ? DType::kInt64 : dtype;
    AH_ASSIGN_OR_RETURN(auto input, RowsAlongAxis(*array, scan_dtype, std::nullopt));
    auto [rows, axis] = input;
    if (SizeOf(rows.shape) > 0) {
      AH_RETURN_IF_ERROR(
          context_.backend().indexing().Scan(context_.queue(), ScanCall{.op = op, .data = rows}));
    }
    const ArrayView arranged = axis < 0 ? rows : AxisBack(rows, axis);
    AH_ASSIGN_OR_RETURN(ArrayRecord result, context_.CopyToNewArray(arranged, dtype));
    return Register(std::move(result));
  }

  // ---- unique, searchsorted -------------------------------------------------------------

  // numpy.unique(a): the sorted distinct values of the flattened array, NaNs collapsed into one
  // (NumPy's equal_nan=True). Sort, then the backend keeps the first of each run of equal
  // values (SelectUnique); the result takes as many as it kept.
  absl::StatusOr<ArrayTable::RecordPtr> Unique() {
    AH_RETURN_IF_ERROR(Arity(1, 1));
    AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr array, Array(0));
    const int64_t n = array->size();
    if (n == 0) {
      AH_ASSIGN_OR_RETURN(ArrayRecord empty, context_.NewArray(array->dtype, {0}));
      return Register(std::move(empty));
    }
    AH_ASSIGN_OR_RETURN(auto input, RowsAlongAxis(*array, array->dtype, std::nullopt));
    const ArrayView rows = input.first;
    AH_ASSIGN_OR_RETURN(ArrayView sorted, Scratch(array->dtype, {n}));
    AH_RETURN_IF_ERROR(context_.backend().indexing().Sort(
        context_.queue(), SortCall{.input = rows, .values = sorted, .indices = std::nullopt}));

    // The flattened copy has been read: the selection writes over it.
    const ArrayView firsts = rows;
    AH_ASSIGN_OR_RETURN(const int64_t count,
                        context_.backend().indexing().SelectUnique(
                            context_.queue(), UniqueCall{.sorted = sorted, .output = firsts}));
    AH_ASSIGN_OR_RETURN(ArrayRecord result, context_.NewArray(array->dtype, {count}));
    AH_RETURN_IF_ERROR(context_.CopyInto(Slab(firsts, 0, 0, count), ViewOf(result)));
    return Register(std::move(result));
  }

  absl::StatusOr<ArrayTable::RecordPtr> SearchSorted() {
    AH_RETURN_IF_ERROR(Arity(2, 2));
    AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr sorted, Array(0));
    if (sorted->shape.size() != 1) {
      return absl::InvalidArgumentError(fmt::format(
          "searchsorted needs a 1-D sorted array, got shape {}", FormatShape(sorted->shape)));
    }
    // Both sides compare in the dtype NumPy compares them in (a weak scalar takes a's).
    const OperandSpec& v = spec_.operands[1];
    ArrayTable::RecordPtr values_array;
    std::vector<UfuncOperand> typed = {{sorted->dtype, std::nullopt}};
    if (v.handle) {
      AH_ASSIGN_OR_RETURN(values_array, context_.Find(*v.handle, "operands[1]"));
      typed.push_back({values_array->dtype, std::nullopt});
    } else if (v.scalar) {
      typed.push_back({std::nullopt, *v.scalar});
    } else {
      return absl::InvalidArgumentError("operands[1] has no value");
    }
    AH_ASSIGN_OR_RETURN(UfuncResolution types,
                        ResolveUfunc(ElementwiseOp::kLess, typed, std::nullopt));
    const DType dtype = types.compute_dtype;

    ArrayView haystack = ViewOf(*sorted);
    if (haystack.dtype != dtype) {
      AH_ASSIGN_OR_RETURN(ArrayView converted, Scratch(dtype, haystack.shape));
      AH_RETURN_IF_ERROR(context_.CopyInto(haystack, converted));
      haystack = converted;
    }
    ArrayView needles;
    if (values_array) {
      needles = ViewOf(*values_array);
      if (needles.dtype != dtype) {
        AH_ASSIGN_OR_RETURN(ArrayView converted, Scratch(dtype, needles.shape));
        AH_RETURN_IF_ERROR(context_.CopyInto(needles, converted));
        needles = converted;
      }
    } else {
      AH_ASSIGN_OR_RETURN(needles, Scratch(dtype, {}));
      AH_RETURN_IF_ERROR(context_.backend().memory().CopyFromHost(
          context_.queue(), *needles.buffer, 0,
          std::span(types.scalar_bytes[1].data(), static_cast<size_t>(ItemSize(dtype)))));
    }
    AH_ASSIGN_OR_RETURN(ArrayRecord result, context_.NewArray(DType::kInt64, needles.shape));
    if (result.size() > 0) {
      AH_RETURN_IF_ERROR(context_.backend().indexing().SearchSorted(
          context_.queue(), SearchSortedCall{.sorted = haystack,
                                             .values = needles,
                                             .right = spec_.right,
                                             .output = ViewOf(result)}));
    }
    return Register(std::move(result));
  }

  // numpy.histogram's counts of all of a's elements in the bins between the 1-D edges
  // (HistogramCall); the client passes NumPy's edges, and divides for density.
  absl::StatusOr<ArrayTable::RecordPtr> Histogram() {
    AH_RETURN_IF_ERROR(Arity(2, 2));
    AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr a, Array(0));
    AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr edges, Array(1));
    if (IsComplex(a->dtype)) {
      return absl::InvalidArgumentError(
          fmt::format("histogram counts real values, got {}", DTypeName(a->dtype)));
    }
    if (edges->shape.size() != 1 || edges->shape[0] < 2 || !IsFloating(edges->dtype)) {
      return absl::InvalidArgumentError(fmt::format(
          "histogram needs 1-D floating edges, at least two of them, got {} of shape {}",
          DTypeName(edges->dtype), FormatShape(edges->shape)));
    }
    // The kernels read the input in C order and the edges as contiguous float64.
    ArrayView input = ViewOf(*a);
    if (!a->c_contiguous()) {
      AH_ASSIGN_OR_RETURN(ArrayView copied, Scratch(a->dtype, a->shape));
      AH_RETURN_IF_ERROR(context_.CopyInto(input, copied));
      input = copied;
    }
    ArrayView bounds = ViewOf(*edges);
    if (edges->dtype != DType::kFloat64 || !edges->c_contiguous()) {
      AH_ASSIGN_OR_RETURN(ArrayView converted, Scratch(DType::kFloat64, edges->shape));
      AH_RETURN_IF_ERROR(context_.CopyInto(bounds, converted));
      bounds = converted;
    }
    AH_ASSIGN_OR_RETURN(ArrayRecord result,
                        context_.NewArray(DType::kInt64, {edges->shape[0] - 1}));
    AH_RETURN_IF_ERROR(context_.backend().indexing().Histogram(
        context_.queue(),
        HistogramCall{.input = input, .edges = bounds, .counts = ViewOf(result)}));
    return Register(std::move(result));
  }

  const CallContext& context_;
  const ArrayOpSpec& spec_;
  std::vector<std::shared_ptr<Buffer>> scratch_;
};

absl::StatusOr<std::vector<ArrayTable::RecordPtr>> Engine::ArrayOp(const Caller& caller,
                                                                   const ArrayOpSpec& spec) {
  const auto bound = Bind(caller, ArrayOpName(spec.op));
  return ArrayOpSteps(CallContext(*this, bound.caller()), spec).Run();
}

}  // namespace arrayhub
