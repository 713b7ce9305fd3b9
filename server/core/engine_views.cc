// Engine::View, GetItem and SetItem: NumPy's views (new handles on the same memory), basic
// indexing (a view), advanced indexing (a gather into a new array) and assignment through
// any index (a copy into the view, or a scatter).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>

#include "server/common/status_macros.h"
#include "server/core/broadcast.h"
#include "server/core/engine.h"
#include "server/core/index_rules.h"
#include "server/core/nonzero_fill.h"
#include "server/core/overlap.h"
#include "server/core/ufunc_rules.h"

namespace arrayhub {
namespace {

Layout LayoutOf(const ArrayRecord& record) {
  return {record.shape, record.strides, record.offset_bytes};
}

ArrayView WithLayout(const ArrayRecord& record, const Layout& layout) {
  return ArrayView{.buffer = record.buffer.get(),
                   .offset_bytes = layout.offset_bytes,
                   .dtype = record.dtype,
                   .shape = layout.shape,
                   .strides = layout.strides};
}

Strides DenseStrides(const Shape& shape, MemoryOrder order) {
  if (order == MemoryOrder::kC) return ContiguousStrides(shape);
  Strides reversed = ContiguousStrides(Shape(shape.rbegin(), shape.rend()));
  return Strides(reversed.rbegin(), reversed.rend());
}

// True when `from` broadcasts to exactly `to` (NumPy's rule for a value assigned to `to`).
bool BroadcastsTo(const Shape& from, const Shape& to) {
  if (from.size() > to.size()) return false;
  const size_t lead = to.size() - from.size();
  for (size_t d = 0; d < from.size(); ++d) {
    if (from[d] != 1 && from[d] != to[lead + d]) return false;
  }
  return true;
}

ArrayView Reversed(ArrayView view) {
  std::reverse(view.shape.begin(), view.shape.end());
  std::reverse(view.strides.begin(), view.strides.end());
  return view;
}

}  // namespace

ArrayRecord Engine::ViewRecord(const Caller& caller, const ArrayRecord& base, const Layout& layout,
                               bool writable) {
  return ArrayRecord{.handle = Handle::Random(),
                     .dtype = base.dtype,
                     .shape = layout.shape,
                     .strides = layout.strides,
                     .offset_bytes = layout.offset_bytes,
                     .buffer = base.buffer,
                     .device = base.device,
                     .owner = base.owner,
                     .holder = caller.tenant,
                     .session = caller.session,
                     // As NumPy's .base: the array that owns the memory.
                     .base = base.owns_data() ? base.handle : base.base,
                     .name = "",
                     .writable = writable && base.writable,
                     .shared_read_only = base.shared_read_only};
}

absl::StatusOr<ArrayTable::RecordPtr> Engine::RegisterView(const Caller& caller,
                                                           const ArrayRecord& base,
                                                           const Layout& layout, bool writable,
                                                           std::optional<DType> dtype) {
  // Every op that reads the view walks all of its elements: its layout is held to the limits
  // as a new array's shape would be.
  AH_RETURN_IF_ERROR(CheckShape(layout.shape, limits_, "a view of shape").status());
  ArrayRecord record = ViewRecord(caller, base, layout, writable);
  if (dtype) record.dtype = *dtype;
  return Register(std::move(record));
}

absl::StatusOr<ArrayRecord> Engine::CopyToNewArray(const Caller& caller, const ArrayView& source,
                                                   DType dtype, MemoryOrder order, bool temporary) {
  AH_ASSIGN_OR_RETURN(int64_t nbytes, CheckedArrayBytes(source.shape, dtype, limits_));
  AH_ASSIGN_OR_RETURN(ArrayRecord record, NewArray(caller, dtype, source.shape, nbytes, temporary));
  record.strides = DenseStrides(source.shape, order);
  AH_RETURN_IF_ERROR(CopyInto(caller, source, ViewOf(record)));
  return record;
}

absl::StatusOr<ArrayTable::RecordPtr> Engine::View(const Caller& call, const ViewSpec& spec) {
  // A view (or the copy a reshape may need) lives with its array, whatever the call's device.
  AH_ASSIGN_OR_RETURN(Located found, FindOnItsDevice(call, spec.handle));
  const Caller& caller = found.caller;
  const ArrayTable::RecordPtr& array = found.array;
  const auto bound = Bind(caller, "view");
  AH_RETURN_IF_ERROR(UseBuffer(bound.caller(), array->buffer));
  const Layout layout = LayoutOf(*array);

  // reshape and ravel: a view when strides can express it, else a copy in the requested order.
  std::optional<ReshapePlan> reshape;
  if (const auto* op = std::get_if<ReshapeSpec>(&spec.op)) {
    AH_ASSIGN_OR_RETURN(reshape, PlanReshape(layout, *op, limits_));
  } else if (const auto* op = std::get_if<RavelSpec>(&spec.op)) {
    reshape = PlanRavel(layout, op->order);
  }
  if (reshape) {
    if (reshape->view_strides) {
      return RegisterView(bound.caller(), *array,
                          {reshape->shape, *reshape->view_strides, array->offset_bytes});
    }
    // The elements in the requested order: for Fortran order, the C-order copy of the reversed
    // axes, which is read back with reversed (Fortran) strides.
    const bool fortran = reshape->order == MemoryOrder::kF;
    const ArrayView source = fortran ? Reversed(ViewOf(*array)) : ViewOf(*array);
    AH_ASSIGN_OR_RETURN(ArrayRecord copy, CopyToNewArray(bound.caller(), source, array->dtype));
    copy.shape = reshape->shape;
    copy.strides = DenseStrides(reshape->shape, reshape->order);
    return Register(std::move(copy));
  }

  if (const auto* op = std::get_if<ViewDTypeSpec>(&spec.op)) {
    AH_ASSIGN_OR_RETURN(DTypeView view, DTypeViewLayout(layout, array->dtype, op->dtype));
    return RegisterView(bound.caller(), *array, view.layout, view.writable, op->dtype);
  }
  absl::StatusOr<Layout> view;
  bool writable = true;  // broadcast_to and diagonal are read-only views in NumPy.
  if (const auto* op = std::get_if<TransposeSpec>(&spec.op)) {
    view = TransposeLayout(layout, *op);
  } else if (const auto* op = std::get_if<SwapAxesSpec>(&spec.op)) {
    view = SwapAxesLayout(layout, *op);
  } else if (const auto* op = std::get_if<SqueezeSpec>(&spec.op)) {
    view = SqueezeLayout(layout, *op);
  } else if (const auto* op = std::get_if<ExpandDimsSpec>(&spec.op)) {
    view = ExpandDimsLayout(layout, *op, limits_);
  } else if (const auto* op = std::get_if<BroadcastToSpec>(&spec.op)) {
    view = BroadcastToLayout(layout, *op, limits_);
    writable = false;
  } else {
    view = DiagonalLayout(layout, ItemSize(array->dtype), std::get<DiagonalSpec>(spec.op));
    writable = false;
  }
  AH_RETURN_IF_ERROR(view.status());
  return RegisterView(bound.caller(), *array, *view, writable);
}

// The steps of one indexing call: looking up the index arrays, turning boolean arrays into
// coordinates, and building the backend's index operands. Scratch memory lives as long as this.
class IndexSteps {
 public:
  explicit IndexSteps(const CallContext& context) : context_(context) {}

  // The plan for indexing `data` with `index`; keeps what the gather or scatter needs.
  absl::StatusOr<IndexPlan> Plan(const ArrayRecord& data, const std::vector<IndexItemSpec>& index) {
    std::vector<IndexEntry> entries;
    for (size_t i = 0; i < index.size(); ++i) {
      const IndexItemSpec& item = index[i];
      IndexEntry entry;
      if (const auto* integer = std::get_if<int64_t>(&item)) {
        entry.kind = IndexEntry::Kind::kInteger;
        entry.integer = *integer;
      } else if (const auto* slice = std::get_if<SliceSpec>(&item)) {
        entry.kind = IndexEntry::Kind::kSlice;
        entry.slice = *slice;
      } else if (std::holds_alternative<EllipsisSpec>(item)) {
        entry.kind = IndexEntry::Kind::kEllipsis;
      } else if (std::holds_alternative<NewAxisSpec>(item)) {
        entry.kind = IndexEntry::Kind::kNewAxis;
      } else {
        AH_ASSIGN_OR_RETURN(entry, ArrayEntry(std::get<IndexArraySpec>(item), i));
      }
      entries.push_back(std::move(entry));
    }
    return PlanIndex({data.shape, data.strides, data.offset_bytes}, ItemSize(data.dtype), entries,
                     context_.limits());
  }

  // The backend's index operands for an advanced plan: each index array as int64, broadcast
  // over the result's shape.
  absl::StatusOr<std::vector<IndexOperand>> Operands(const IndexPlan& plan) {
    std::vector<IndexOperand> operands;
    for (const AdvancedIndex& advanced : plan.arrays) {
      AH_ASSIGN_OR_RETURN(ArrayView indices, IndexArray(advanced));
      Strides strides(plan.layout.shape.size(), 0);
      const Strides block = BroadcastStrides(indices.shape, indices.strides, plan.block_shape);
      std::copy(block.begin(), block.end(),
                strides.begin() + static_cast<std::ptrdiff_t>(plan.block_start));
      indices.shape = plan.layout.shape;
      indices.strides = strides;
      operands.push_back({.indices = indices,
                          .extent = advanced.extent,
                          .stride = advanced.stride,
                          .axis = advanced.axis});
    }
    return operands;
  }

  // Scratch the caller's computation may use until this object goes.
  std::vector<std::shared_ptr<Buffer>>& scratch() { return scratch_; }

 private:
  absl::StatusOr<IndexEntry> ArrayEntry(const IndexArraySpec& spec, size_t position) {
    AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr array,
                        context_.Find(spec.handle, fmt::format("index[{}]", position)));
    IndexEntry entry;
    entry.array_shape = array->shape;
    if (array->dtype == DType::kBool) {
      entry.kind = IndexEntry::Kind::kBoolArray;
      AH_ASSIGN_OR_RETURN(entry.nonzero_count, context_.backend().indexing().CountNonzero(
                                                   context_.queue(), ViewOf(*array)));
    } else if (IsInteger(array->dtype)) {
      entry.kind = IndexEntry::Kind::kIntArray;
    } else {
      return absl::InvalidArgumentError(fmt::format(
          "arrays used as indices must be of integer (or boolean) type; index[{}] is {}", position,
          DTypeName(array->dtype)));
    }
    arrays_.emplace(position, std::move(array));
    return entry;
  }

  // The int64 indices of one advanced index: the array itself when it is int64, a converted
  // copy for other integer dtypes, or one coordinate of a boolean array's nonzero().
  absl::StatusOr<ArrayView> IndexArray(const AdvancedIndex& advanced) {
    const ArrayRecord& array = *arrays_.at(advanced.entry);
    if (array.dtype == DType::kInt64) return ViewOf(array);
    if (array.dtype != DType::kBool) {
      AH_ASSIGN_OR_RETURN(ArrayView copy, NewScratch(DType::kInt64, array.shape));
      AH_RETURN_IF_ERROR(context_.CopyInto(ViewOf(array), copy));
      return copy;
    }
    if (array.shape.empty()) return ZeroIndices(advanced.shape);  // a[True]: index 0, or none.
    auto [coordinates, inserted] = nonzero_.try_emplace(advanced.entry);
    if (inserted) {
      NonzeroCall call{.input = ViewOf(array), .coordinates = {}};
      for (size_t d = 0; d < array.shape.size(); ++d) {
        AH_ASSIGN_OR_RETURN(ArrayView axis, NewScratch(DType::kInt64, advanced.shape));
        call.coordinates.push_back(axis);
      }
      AH_RETURN_IF_ERROR(
          FillNonzero(context_.backend().indexing(), context_.queue(), call, advanced.shape.at(0)));
      coordinates->second = std::move(call.coordinates);
    }
    return coordinates->second[advanced.component];
  }

  // `shape` is {1} or {0}.
  absl::StatusOr<ArrayView> ZeroIndices(const Shape& shape) {
    AH_ASSIGN_OR_RETURN(ArrayView zeros, NewScratch(DType::kInt64, shape));
    const std::array<std::byte, sizeof(int64_t)> zero{};
    AH_RETURN_IF_ERROR(context_.backend().memory().FillPattern(
        context_.queue(), *zeros.buffer, zeros.offset_bytes, shape.at(0), sizeof(int64_t), zero));
    return zeros;
  }

  absl::StatusOr<ArrayView> NewScratch(DType dtype, const Shape& shape) {
    return context_.NewScratch(dtype, shape, scratch_);
  }

  const CallContext& context_;
  std::map<size_t, ArrayTable::RecordPtr> arrays_;    // By index position.
  std::map<size_t, std::vector<ArrayView>> nonzero_;  // Boolean arrays' coordinates.
  std::vector<std::shared_ptr<Buffer>> scratch_;
};

namespace {

// What ufunc.at(a, index, value) refuses, for a scatter that combines with `op` into an array
// of `dtype` with a value of `value_dtype`: what the ufunc refuses for these dtypes (a bool
// subtract, with NumPy's message), and what the scatter cannot combine. NumPy 2.4 casts the
// loop's output back to the array's dtype unsafely (a complex value into a float array drops
// its imaginary part, with a ComplexWarning), so no cast is refused here.
absl::Status CheckCombine(ElementwiseOp op, DType dtype, DType value_dtype) {
  const UfuncOperand operands[] = {{.array_dtype = dtype, .scalar = {}},
                                   {.array_dtype = value_dtype, .scalar = {}}};
  AH_RETURN_IF_ERROR(ResolveUfunc(op, operands, std::nullopt).status());
  if (!ScatterCombines(op, dtype)) {
    return absl::InvalidArgumentError(fmt::format(
        "{}.at into a {} array: this server combines repeated indices with add, subtract, "
        "multiply, maximum, minimum, fmax and fmin, in the array's dtype (not subtract of bool)",
        OpName(op), DTypeName(dtype)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ArrayTable::RecordPtr> Engine::GetItem(const Caller& call, const GetItemSpec& spec) {
  // Indexing runs where the array lives (its index arrays must be there too), whatever the
  // call's device: x[0] reads an array of any device, as CuPy's views do.
  AH_ASSIGN_OR_RETURN(Located found, FindOnItsDevice(call, spec.handle));
  const Caller& caller = found.caller;
  const ArrayTable::RecordPtr& array = found.array;
  const auto bound = Bind(caller, "getitem");
  AH_RETURN_IF_ERROR(UseBuffer(bound.caller(), array->buffer));
  const CallContext context(*this, bound.caller());
  IndexSteps steps(context);
  AH_ASSIGN_OR_RETURN(IndexPlan plan, steps.Plan(*array, spec.index));
  if (!plan.advanced) return RegisterView(bound.caller(), *array, plan.layout);

  AH_ASSIGN_OR_RETURN(int64_t nbytes, CheckedArrayBytes(plan.layout.shape, array->dtype, limits_));
  AH_ASSIGN_OR_RETURN(ArrayRecord result,
                      NewArray(bound.caller(), array->dtype, plan.layout.shape, nbytes));
  AH_ASSIGN_OR_RETURN(std::vector<IndexOperand> indices, steps.Operands(plan));
  AH_RETURN_IF_ERROR(
      backend(bound.caller())
          .indexing()
          .Gather(QueueOf(bound.caller()), GatherCall{.source = WithLayout(*array, plan.layout),
                                                      .indices = std::move(indices),
                                                      .output = ViewOf(result)}));
  return Register(std::move(result));
}

absl::Status Engine::SetItem(const Caller& caller, const SetItemSpec& spec) {
  const auto bound = Bind(caller, "setitem");
  AH_ASSIGN_OR_RETURN(
      ArrayTable::RecordPtr array,
      FindWritable(bound.caller(), spec.handle, "handle", "assignment destination is read-only"));
  const CallContext context(*this, bound.caller());
  IndexSteps steps(context);
  AH_ASSIGN_OR_RETURN(IndexPlan plan, steps.Plan(*array, spec.index));
  const ArrayView target = WithLayout(*array, plan.layout);
  const Shape& selection = plan.layout.shape;
  // A combining assignment always scatters, so that an element selected twice is combined
  // twice; a plain one with basic indices is a copy into the view.
  const bool scatter = plan.advanced || spec.combine.has_value();

  // The value, in the array's dtype, broadcast to the selection: NumPy casts it unsafely and
  // lets it have extra leading axes of length 1.
  ArrayView value;
  if (spec.value.handle) {
    AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr source,
                        Find(bound.caller(), *spec.value.handle, "value"));
    if (spec.combine) AH_RETURN_IF_ERROR(CheckCombine(*spec.combine, array->dtype, source->dtype));
    value = ViewOf(*source);
    while (value.shape.size() > selection.size() && value.shape.front() == 1) {
      value.shape.erase(value.shape.begin());
      value.strides.erase(value.strides.begin());
    }
    if (!BroadcastsTo(value.shape, selection)) {
      return absl::InvalidArgumentError(
          fmt::format("could not broadcast input array from shape {} into shape {}",
                      FormatShape(source->shape), FormatShape(selection)));
    }
    // A scatter reads the value in another order than it writes, and a value in another dtype
    // must be converted first: both go through a copy.
    if (value.dtype != array->dtype || (scatter && MayShareMemory(value, target))) {
      AH_ASSIGN_OR_RETURN(ArrayView converted,
                          NewScratch(bound.caller(), array->dtype, value.shape, steps.scratch()));
      AH_RETURN_IF_ERROR(CopyInto(bound.caller(), value, converted));
      value = converted;
    }
  } else if (spec.value.scalar && spec.combine) {
    // ufunc.at types a Python scalar as numpy.asarray does (int64, float64, ...), not weakly,
    // and casts it to the array's dtype unsafely, as it casts every value.
    const DType dtype = DefaultDType(*spec.value.scalar);
    AH_RETURN_IF_ERROR(CheckCombine(*spec.combine, array->dtype, dtype));
    AH_ASSIGN_OR_RETURN(ElementBytes bytes, EncodeScalar(*spec.value.scalar, dtype));
    AH_ASSIGN_OR_RETURN(ArrayView scalar, NewScratch(bound.caller(), dtype, {}, steps.scratch()));
    AH_RETURN_IF_ERROR(
        backend(bound.caller())
            .memory()
            .CopyFromHost(QueueOf(bound.caller()), *scalar.buffer, 0,
                          std::span(bytes.data(), static_cast<size_t>(ItemSize(dtype)))));
    AH_ASSIGN_OR_RETURN(value, NewScratch(bound.caller(), array->dtype, {}, steps.scratch()));
    AH_RETURN_IF_ERROR(CopyInto(bound.caller(), scalar, value));
  } else if (spec.value.scalar) {
    // numpy.full casts a complex fill value unsafely; assignment does not (int(1+2j) raises).
    if (spec.value.scalar->kind == Scalar::Kind::kComplex && !IsComplex(array->dtype) &&
        !IsFloating(array->dtype)) {
      return absl::InvalidArgumentError(
          fmt::format("Cannot cast complex value {} to dtype('{}') in an assignment",
                      spec.value.scalar->ToString(), DTypeName(array->dtype)));
    }
    AH_ASSIGN_OR_RETURN(ElementBytes bytes, EncodeScalar(*spec.value.scalar, array->dtype));
    const int64_t itemsize = ItemSize(array->dtype);
    AH_ASSIGN_OR_RETURN(value, NewScratch(bound.caller(), array->dtype, {}, steps.scratch()));
    AH_RETURN_IF_ERROR(backend(bound.caller())
                           .memory()
                           .CopyFromHost(QueueOf(bound.caller()), *value.buffer, 0,
                                         std::span(bytes.data(), static_cast<size_t>(itemsize))));
  } else {
    return absl::InvalidArgumentError("value has no value: set a handle or a scalar");
  }
  value.strides = BroadcastStrides(value.shape, value.strides, selection);
  value.shape = selection;

  if (!scatter) return CopyInto(bound.caller(), value, target);
  AH_ASSIGN_OR_RETURN(std::vector<IndexOperand> indices, steps.Operands(plan));
  // An index array that shares memory with the target (a[a] = v) would be rewritten by the
  // assignment it steers: NumPy reads every index first, so the scatter reads a copy.
  for (IndexOperand& operand : indices) {
    if (MayShareMemory(operand.indices, target)) {
      AH_ASSIGN_OR_RETURN(operand.indices,
                          CopyAside(bound.caller(), operand.indices, steps.scratch()));
    }
  }
  return backend(bound.caller())
      .indexing()
      .Scatter(QueueOf(bound.caller()), ScatterCall{.target = target,
                                                    .indices = std::move(indices),
                                                    .values = value,
                                                    .combine = spec.combine});
}

}  // namespace arrayhub
