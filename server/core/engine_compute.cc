// Engine::Elementwise and Engine::Reduce: look up the operands, apply NumPy's typing and
// broadcasting rules, allocate the result (or check `out`), then hand the backend a fully
// resolved call.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "server/common/status_macros.h"
#include "server/core/broadcast.h"
#include "server/core/engine.h"
#include "server/core/overlap.h"
#include "server/core/promotion.h"
#include "server/core/reduction_rules.h"
#include "server/core/ufunc_rules.h"

namespace arrayhub {

ArrayView ViewOf(const ArrayRecord& record) {
  return ArrayView{.buffer = record.buffer.get(),
                   .offset_bytes = record.offset_bytes,
                   .dtype = record.dtype,
                   .shape = record.shape,
                   .strides = record.strides};
}

namespace {

// `view` broadcast to `shape` (which it is known to broadcast to).
ArrayView Broadcast(ArrayView view, const Shape& shape) {
  view.strides = BroadcastStrides(view.shape, view.strides, shape);
  view.shape = shape;
  return view;
}

}  // namespace

absl::StatusOr<ArrayView> Engine::CopyAside(const Caller& caller, const ArrayView& source,
                                            std::vector<std::shared_ptr<Buffer>>& keep) {
  AH_ASSIGN_OR_RETURN(ArrayView copy, NewScratch(caller, source.dtype, source.shape, keep));
  AH_RETURN_IF_ERROR(CopyInto(caller, source, copy));
  return copy;
}

absl::Status Engine::CopyInto(const Caller& caller, const ArrayView& source,
                              const ArrayView& target) {
  std::vector<std::shared_ptr<Buffer>> keep;
  ArrayView input = source;
  if (MayShareMemory(input, target) && !SameElements(Broadcast(input, target.shape), target)) {
    AH_ASSIGN_OR_RETURN(input, CopyAside(caller, input, keep));
  }
  ArrayView output = target;
  if (input.dtype == DType::kFloat16 && output.dtype == DType::kFloat16) {
    // A copy within float16 moves bits, as NumPy's does: the GPU computes float16 in float,
    // and converting a NaN back to half would change its sign and payload bits.
    input.dtype = DType::kUInt16;
    output.dtype = DType::kUInt16;
  }
  ElementwiseCall call{.op = ElementwiseOp::kCopy,
                       .compute_dtype = input.dtype,
                       .result_dtype = input.dtype,
                       .shape = output.shape,
                       .operands = {ElementwiseOperand{.array = Broadcast(input, output.shape),
                                                       .dtype = input.dtype}},
                       .output = output};
  return backend(caller).compute().Elementwise(QueueOf(caller), call);
}

absl::StatusOr<ArrayTable::RecordPtr> Engine::Elementwise(const Caller& caller,
                                                          const ElementwiseSpec& spec) {
  const std::string_view name = OpName(spec.op);
  const auto bound = Bind(caller, name);
  const auto count = static_cast<int>(spec.operands.size());
  AH_RETURN_IF_ERROR(CheckArity(spec));

  AH_ASSIGN_OR_RETURN(
      ElementwiseOperands found,
      CallContext(*this, bound.caller())
          .LookUpOperands(spec, [](int64_t) -> absl::StatusOr<std::pair<DType, Shape>> {
            return absl::InternalError("an elementwise op reads a chain value outside a chain");
          }));
  const std::vector<ArrayTable::RecordPtr>& arrays = found.arrays;
  std::vector<Shape>& shapes = found.shapes;
  ArrayTable::RecordPtr out;
  if (!spec.out.empty()) {
    AH_ASSIGN_OR_RETURN(out, FindWritable(bound.caller(), spec.out, "out"));
    shapes.push_back(out->shape);  // NumPy broadcasts the inputs to out's shape too.
  }
  AH_ASSIGN_OR_RETURN(Shape shape, BroadcastShapes(shapes));
  AH_ASSIGN_OR_RETURN(UfuncResolution types, ResolveUfunc(spec.op, found.typed, spec.dtype));

  // The result: `out`, checked, or a new array.
  std::optional<ArrayRecord> created;
  ArrayView output;
  if (out) {
    if (shape != out->shape) {
      return absl::InvalidArgumentError(fmt::format(
          "non-broadcastable output operand with shape {} doesn't match the broadcast shape {}",
          FormatShape(out->shape), FormatShape(shape)));
    }
    AH_RETURN_IF_ERROR(CheckOutputCast(spec.op, types.result_dtype, out->dtype));
    output = ViewOf(*out);
  } else {
    AH_ASSIGN_OR_RETURN(int64_t nbytes, CheckedArrayBytes(shape, types.result_dtype, limits_));
    AH_ASSIGN_OR_RETURN(created, NewArray(bound.caller(), types.result_dtype, shape, nbytes));
    output = ViewOf(*created);
  }

  ElementwiseCall call{.op = spec.op,
                       .compute_dtype = types.compute_dtype,
                       .result_dtype = types.result_dtype,
                       .shape = shape,
                       .operands = {},
                       .output = output};
  std::vector<std::shared_ptr<Buffer>> copies;  // Operands that overlap `out` partially.
  for (int i = 0; i < count; ++i) {
    if (arrays[i]) {
      ArrayView operand = ViewOf(*arrays[i]);
      if (MayShareMemory(operand, output) && !SameElements(Broadcast(operand, shape), output)) {
        AH_ASSIGN_OR_RETURN(operand, CopyAside(bound.caller(), operand, copies));
      }
      call.operands.push_back(
          ElementwiseOperand{.array = Broadcast(operand, shape), .dtype = arrays[i]->dtype});
    } else {
      call.operands.push_back(
          ElementwiseOperand{.scalar = types.scalar_bytes[i], .dtype = types.scalar_dtypes[i]});
    }
  }
  AH_RETURN_IF_ERROR(backend(bound.caller()).compute().Elementwise(QueueOf(bound.caller()), call));
  if (out) return out;
  return Register(std::move(*created));
}

absl::Status Engine::ReduceNothing(const Caller& caller, const ReduceSpec& spec,
                                   const ArrayRecord& input, const ArrayView& target) {
  // A reduction over a single element: the element itself (converted), except that its index
  // is 0, as NumPy. (var and std never come here: see Reduce.)
  if (spec.op != ReduceOp::kArgmin && spec.op != ReduceOp::kArgmax) {
    return CopyInto(caller, ViewOf(input), target);
  }
  AH_ASSIGN_OR_RETURN(ElementBytes value, EncodeScalar(Scalar::Int(0), target.dtype));
  int64_t count = 1;
  for (int64_t extent : target.shape) count *= extent;
  const int64_t itemsize = ItemSize(target.dtype);
  return backend(caller).memory().FillPattern(
      QueueOf(caller), *target.buffer, target.offset_bytes, count, itemsize,
      std::span(value.data(), static_cast<size_t>(itemsize)));
}

absl::StatusOr<ArrayTable::RecordPtr> Engine::Reduce(const Caller& caller, const ReduceSpec& spec) {
  const auto bound = Bind(caller, OpName(spec.op));
  AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr input, Find(bound.caller(), spec.input, "input"));
  return ReduceArray(bound.caller(), spec, input);
}

absl::StatusOr<ArrayTable::RecordPtr> Engine::ReduceArray(const Caller& caller,
                                                          const ReduceSpec& spec,
                                                          const ArrayTable::RecordPtr& input) {
  AH_ASSIGN_OR_RETURN(ReduceResolution r, ResolveReduce(spec.op, input->dtype, input->shape,
                                                        spec.axes, spec.dtype, spec.ddof));
  const Shape& final_shape = spec.keepdims ? r.keepdims_shape : r.result_shape;

  ArrayTable::RecordPtr out;
  if (!spec.out.empty()) {
    AH_ASSIGN_OR_RETURN(out, FindWritable(caller, spec.out, "out"));
    if (out->shape != final_shape) {
      return absl::InvalidArgumentError(
          fmt::format("output array of shape {} does not match the {} result shape {}",
                      FormatShape(out->shape), OpName(spec.op), FormatShape(final_shape)));
    }
    if (!CanCastSameKind(r.result_dtype, out->dtype)) {
      return absl::InvalidArgumentError(fmt::format(
          "Cannot cast {} output from dtype('{}') to dtype('{}') with casting rule 'same_kind'",
          OpName(spec.op), DTypeName(r.result_dtype), DTypeName(out->dtype)));
    }
  }

  // The reduction writes a new array of the result dtype, or straight into `out` when the
  // dtypes agree and `out` is laid out as the backend writes (C-contiguous) without sharing
  // memory with the input; otherwise the new array is copied into `out` afterwards.
  const bool direct = out && out->dtype == r.result_dtype && out->c_contiguous() &&
                      !MayShareMemory(ViewOf(*out), ViewOf(*input));
  std::optional<ArrayRecord> result;
  ArrayView target;
  if (direct) {
    target = ViewOf(*out);
  } else {
    AH_ASSIGN_OR_RETURN(int64_t nbytes, CheckedArrayBytes(final_shape, r.result_dtype, limits_));
    AH_ASSIGN_OR_RETURN(result, NewArray(caller, r.result_dtype, final_shape, nbytes));
    target = ViewOf(*result);
  }
  // The backend writes the reduced shape; keepdims only adds axes of length 1 to the record.
  target.shape = r.result_shape;
  target.strides = ContiguousStrides(r.result_shape);

  ArrayView source = ViewOf(*input);
  std::vector<int64_t> axes = r.axes;
  if (axes.empty() && (spec.op == ReduceOp::kVar || spec.op == ReduceOp::kStd)) {
    // The variance of one element is still |x - mean(x)|^2 / (1 - ddof): NaN for NaN and inf,
    // and for any ddof >= 1, as NumPy. The backend computes it over an added axis of length 1.
    axes.push_back(static_cast<int64_t>(source.shape.size()));
    source.shape.push_back(1);
    source.strides.push_back(1);
  }
  if (axes.empty()) {  // axis=() or a 0-d input: every element is its own reduction.
    AH_RETURN_IF_ERROR(ReduceNothing(caller, spec, *input, target));
  } else {
    AH_RETURN_IF_ERROR(backend(caller).compute().Reduce(
        QueueOf(caller), ReduceCall{.op = spec.op,
                                    .input = source,
                                    .axes = axes,
                                    .accumulate_dtype = r.accumulate_dtype,
                                    .ddof = spec.ddof,
                                    .output = target}));
  }
  if (!out) return Register(std::move(*result));
  if (result) {
    // `out` seen with the reduced shape: its own strides, less those of the kept axes.
    ArrayView converted = ViewOf(*out);
    if (spec.keepdims) {
      converted.strides.clear();
      for (size_t d = 0; d < out->strides.size(); ++d) {
        if (std::find(r.axes.begin(), r.axes.end(), static_cast<int64_t>(d)) == r.axes.end()) {
          converted.strides.push_back(out->strides[d]);
        }
      }
    }
    converted.shape = r.result_shape;
    AH_RETURN_IF_ERROR(CopyInto(caller, target, converted));
  }
  return out;
}

}  // namespace arrayhub
