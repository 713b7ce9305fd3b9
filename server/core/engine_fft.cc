// Engine::Fft: numpy.fft as the backend's one-dimensional transforms (fft_rules.h gives them in
// NumPy's order), those over all the trailing axes asked of the backend at once (fftn and
// rfftn over the last two or three axes: one pass of a multi-dimensional plan). Before each
// transform the array is brought to what the backend takes: the transform's precision,
// C-contiguous, cut or zero-padded along the axis (one copy, made only where one of these
// differs, and always for a complex-to-real input, which the backend may overwrite).
// Intermediate arrays are charged like results and dropped as soon as the next transform has
// read them.
#include <algorithm>
#include <functional>
#include <numeric>
#include <optional>
#include <vector>

#include "server/common/status_macros.h"
#include "server/core/engine.h"
#include "server/core/fft_rules.h"
#include "server/core/shape_limits.h"

namespace arrayhub {

namespace {

// How many of `steps` from `first` on one backend call runs at once: those of numpy.fft.fftn
// or rfftn over all the trailing axes of `shape` (the array before them), at most
// 1 + kMaxFftLeadingAxes, where none but the first cuts or pads (the first's input is
// prepared as for one step) and none is of length 1; otherwise 1. A complex-to-real or
// conjugated transform always runs alone (fft.h), as do transforms over axes with others
// between them.
size_t StepsAtOnce(const std::vector<FftStep>& steps, size_t first, const Shape& shape) {
  const FftStep& head = steps[first];
  // Length-1 axes (a transform that copies) stay apart: multi-dimensional plans need not take
  // them.
  if (head.kind == FftKind::kComplexToReal || head.conjugate || head.n < 2) return 1;
  const int64_t rank = static_cast<int64_t>(shape.size());
  // The longest run of complex transforms in the head's direction that keep their lengths.
  size_t run = 1;
  while (first + run < steps.size() && run < 1 + kMaxFftLeadingAxes) {
    const FftStep& step = steps[first + run];
    if (step.kind != FftKind::kComplex || step.conjugate || step.forward != head.forward ||
        step.input_length != shape[step.axis] || step.n != step.input_length || step.n < 2) {
      break;
    }
    ++run;
  }
  for (size_t count = run; count > 1; --count) {
    // The run's first `count` axes are exactly the last `count` of the array, once each; a real
    // transform's own axis is the last.
    std::vector<bool> covered(count, false);
    bool trailing = head.kind != FftKind::kRealToComplex || head.axis == rank - 1;
    for (size_t k = 0; k < count && trailing; ++k) {
      const int64_t slot = steps[first + k].axis - (rank - static_cast<int64_t>(count));
      trailing = slot >= 0 && !covered[slot];
      if (trailing) covered[slot] = true;
    }
    if (trailing) return count;
  }
  return 1;
}

}  // namespace

class FftSteps {
 public:
  explicit FftSteps(const CallContext& context) : context_(context) {}

  absl::StatusOr<ArrayTable::RecordPtr> Run(const ArrayView& input, const FftPlan& plan) {
    AH_ASSIGN_OR_RETURN(int64_t count, ElementCount(plan.result_shape));
    if (plan.steps.empty() || count == 0) {  // fftn over no axes copies, as NumPy returns a.
      AH_ASSIGN_OR_RETURN(ArrayRecord result,
                          context_.NewArray(plan.result_dtype, plan.result_shape));
      if (count > 0) AH_RETURN_IF_ERROR(context_.CopyInto(input, ViewOf(result)));
      return context_.Register(std::move(result));
    }
    const DType complex =
        plan.real_dtype == DType::kFloat32 ? DType::kComplex64 : DType::kComplex128;
    ArrayView current = input;
    std::optional<ArrayRecord> current_record;  // Holds `current` when this call made it.
    for (size_t i = 0; i < plan.steps.size();) {
      const FftStep& step = plan.steps[i];
      const size_t at_once = StepsAtOnce(plan.steps, i, current.shape);
      const DType in_dtype = step.kind == FftKind::kRealToComplex ? plan.real_dtype : complex;
      const DType out_dtype = step.kind == FftKind::kComplexToReal ? plan.real_dtype : complex;
      std::optional<ArrayRecord> prepared;
      if (current.dtype != in_dtype || !IsCContiguous(current.shape, current.strides) ||
          current.shape[step.axis] != step.input_length || step.kind == FftKind::kComplexToReal) {
        AH_ASSIGN_OR_RETURN(prepared, Prepared(current, step, in_dtype));
      }
      Shape out_shape = current.shape;
      out_shape[step.axis] = step.output_length;
      AH_ASSIGN_OR_RETURN(ArrayRecord output, context_.NewArray(out_dtype, out_shape));
      i += at_once;
      const ArrayView input = prepared ? ViewOf(*prepared) : current;
      FftCall call{.kind = step.kind,
                   .forward = step.forward,
                   .n = step.n,
                   .input = Stack(input, step.axis),
                   .output = Stack(ViewOf(output), step.axis),
                   .scale = i == plan.steps.size() ? plan.scale : 1,
                   .conjugate = step.conjugate};
      if (at_once > 1) {
        // The head's axis is prepared to its length; the others keep theirs.
        call.n = input.shape.back();
        call.leading.assign(input.shape.end() - static_cast<ptrdiff_t>(at_once),
                            input.shape.end() - 1);
        call.input = Trailing(input, at_once);
        call.output = Trailing(ViewOf(output), at_once);
      }
      AH_RETURN_IF_ERROR(context_.backend().fft().Fft(context_.queue(), call));
      current = ViewOf(output);
      current_record = std::move(output);  // Frees the previous one, in its queue's order.
    }
    if (current.dtype != plan.result_dtype) {  // float16's irfft and hfft: computed in float32.
      AH_ASSIGN_OR_RETURN(ArrayRecord result,
                          context_.NewArray(plan.result_dtype, plan.result_shape));
      AH_RETURN_IF_ERROR(context_.CopyInto(current, ViewOf(result)));
      return context_.Register(std::move(result));
    }
    return context_.Register(std::move(*current_record));
  }

 private:
  // `current` in `dtype`, C-contiguous, cut or zero-padded to the step's input length.
  absl::StatusOr<ArrayRecord> Prepared(const ArrayView& current, const FftStep& step, DType dtype) {
    Shape shape = current.shape;
    shape[step.axis] = step.input_length;
    AH_ASSIGN_OR_RETURN(ArrayRecord prepared, context_.NewArray(dtype, shape));
    ArrayView target = ViewOf(prepared);
    const int64_t kept = std::min(current.shape[step.axis], step.input_length);
    if (kept < step.input_length) {
      AH_ASSIGN_OR_RETURN(int64_t count, ElementCount(shape));
      AH_ASSIGN_OR_RETURN(ElementBytes zero, EncodeScalar(Scalar::Int(0), dtype));
      const int64_t itemsize = ItemSize(dtype);
      AH_RETURN_IF_ERROR(context_.backend().memory().FillPattern(
          context_.queue(), *target.buffer, target.offset_bytes, count, itemsize,
          std::span(zero.data(), static_cast<size_t>(itemsize))));
    }
    if (kept > 0) {
      ArrayView source = current;
      source.shape[step.axis] = kept;
      target.shape[step.axis] = kept;
      AH_RETURN_IF_ERROR(context_.CopyInto(source, target));
    }
    return prepared;
  }

  // A C-contiguous view as the backend's (outer, length, inner) stack along `axis`.
  static ArrayView Stack(ArrayView view, int64_t axis) {
    const auto product = [](auto first, auto last) {
      return std::accumulate(first, last, int64_t{1}, std::multiplies<>());
    };
    view.shape = {product(view.shape.begin(), view.shape.begin() + axis), view.shape[axis],
                  product(view.shape.begin() + axis + 1, view.shape.end())};
    view.strides = ContiguousStrides(view.shape);
    return view;
  }

  // A C-contiguous view as the backend's (outer, leading..., length, 1) stack of transforms
  // over its last `axes` axes.
  static ArrayView Trailing(ArrayView view, size_t axes) {
    const auto split = view.shape.end() - static_cast<ptrdiff_t>(axes);
    Shape shape = {std::accumulate(view.shape.begin(), split, int64_t{1}, std::multiplies<>())};
    shape.insert(shape.end(), split, view.shape.end());
    shape.push_back(1);
    view.shape = std::move(shape);
    view.strides = ContiguousStrides(view.shape);
    return view;
  }

  const CallContext& context_;
};

absl::StatusOr<ArrayTable::RecordPtr> Engine::Fft(const Caller& caller, const FftSpec& spec) {
  const auto bound = Bind(caller, OpName(spec.op));
  if (!spec.input.handle) return absl::InvalidArgumentError("input must be an array handle");
  AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr input,
                      Find(bound.caller(), *spec.input.handle, "input"));
  AH_ASSIGN_OR_RETURN(FftPlan plan, ResolveFft(spec, input->dtype, input->shape));
  return FftSteps(CallContext(*this, bound.caller())).Run(ViewOf(*input), plan);
}

}  // namespace arrayhub
