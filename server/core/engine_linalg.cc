// Engine::Matmul, Engine::TensorProduct and Engine::Linalg: look up the operands, apply the
// rules of linalg_rules.h, convert operands to the compute dtype where they differ, and hand
// the backend views. Matrices are never copied for their layout (transposes and broadcast
// stacks are strides), except where a tensor product's reshape has no strides. det and norm
// are composed from backend calls, as NumPy composes them.
#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <numeric>

#include "server/common/status_macros.h"
#include "server/core/broadcast.h"
#include "server/core/engine.h"
#include "server/core/linalg_rules.h"
#include "server/core/reduction_rules.h"

namespace arrayhub {

// The steps the entry points share. Scratch arrays are allocated for the caller's session like
// results but never registered: they go when the LinalgSteps does.
class LinalgSteps {
 public:
  explicit LinalgSteps(const CallContext& context) : context_(context) {}

  const CallContext& context() const { return context_; }

  // An operand's array; a Python scalar becomes a 0-d array of its default dtype (NumPy's
  // asarray).
  absl::StatusOr<ArrayTable::RecordPtr> Operand(const OperandSpec& operand,
                                                std::string_view field) {
    if (operand.handle) return context_.Find(*operand.handle, field);
    if (!operand.scalar) {
      return absl::InvalidArgumentError(fmt::format("{} has no value", field));
    }
    const DType dtype = DefaultDType(*operand.scalar);
    AH_ASSIGN_OR_RETURN(ArrayRecord record, context_.NewArray(dtype, {}));
    AH_RETURN_IF_ERROR(Fill(ViewOf(record), *operand.scalar));
    return std::make_shared<const ArrayRecord>(std::move(record));
  }

  // A scratch array, alive as long as this object.
  absl::StatusOr<ArrayView> Scratch(DType dtype, const Shape& shape) {
    AH_ASSIGN_OR_RETURN(ArrayRecord record, context_.NewArray(dtype, shape));
    scratch_.push_back(std::move(record));
    return ViewOf(scratch_.back());
  }

  // `view` as `dtype`: itself, or a contiguous converted copy.
  absl::StatusOr<ArrayView> InDType(const ArrayView& view, DType dtype) {
    if (view.dtype == dtype) return view;
    return ContiguousCopy(view, dtype);
  }

  absl::StatusOr<ArrayView> ContiguousCopy(const ArrayView& view, DType dtype) {
    AH_ASSIGN_OR_RETURN(ArrayView copy, Scratch(dtype, view.shape));
    AH_RETURN_IF_ERROR(context_.CopyInto(view, copy));
    return copy;
  }

  absl::StatusOr<ArrayTable::RecordPtr> Register(ArrayRecord record) {
    return context_.Register(std::move(record));
  }
  absl::StatusOr<std::vector<ArrayTable::RecordPtr>> RegisterAll(std::vector<ArrayRecord> records) {
    return context_.RegisterAll(std::move(records));
  }

  absl::Status CopyInto(const ArrayView& source, const ArrayView& target) {
    return context_.CopyInto(source, target);
  }

  // Every element of a C-contiguous view set to `value`.
  absl::Status Fill(const ArrayView& view, const Scalar& value) {
    AH_ASSIGN_OR_RETURN(ElementBytes bytes, EncodeScalar(value, view.dtype));
    const int64_t itemsize = ItemSize(view.dtype);
    AH_ASSIGN_OR_RETURN(int64_t count, ElementCount(view.shape));
    return context_.backend().memory().FillPattern(
        context_.queue(), *view.buffer, view.offset_bytes, count, itemsize,
        std::span(bytes.data(), static_cast<size_t>(itemsize)));
  }

  // A C-contiguous stack of square matrices set to identities.
  absl::Status FillIdentity(const ArrayView& view) {
    AH_RETURN_IF_ERROR(Fill(view, Scalar::Int(0)));
    AH_ASSIGN_OR_RETURN(ElementBytes one, EncodeScalar(Scalar::Int(1), view.dtype));
    const int64_t n = view.shape.back();
    const int64_t itemsize = ItemSize(view.dtype);
    AH_ASSIGN_OR_RETURN(int64_t count, ElementCount(view.shape));
    for (int64_t start = 0; start < count; start += n * n) {
      AH_RETURN_IF_ERROR(context_.backend().memory().FillPattern(
          context_.queue(), *view.buffer, view.offset_bytes + start * itemsize, n,
          (n + 1) * itemsize, std::span(one.data(), static_cast<size_t>(itemsize))));
    }
    return absl::OkStatus();
  }

  // output = op(operands...) over output's shape, computed in `compute`, giving `result`.
  absl::Status Elementwise(ElementwiseOp op, DType compute, DType result,
                           std::vector<ElementwiseOperand> operands, const ArrayView& output) {
    return context_.backend().compute().Elementwise(context_.queue(),
                                                    ElementwiseCall{.op = op,
                                                                    .compute_dtype = compute,
                                                                    .result_dtype = result,
                                                                    .shape = output.shape,
                                                                    .operands = std::move(operands),
                                                                    .output = output});
  }

  // output = op over `axes` of input, accumulated as numpy.<op> does. A max over no elements
  // is 0: NumPy's norm passes initial=0 (min over none is refused before).
  absl::Status Reduce(ReduceOp op, const ArrayView& input, const std::vector<int64_t>& axes,
                      const ArrayView& output) {
    for (int64_t axis : axes) {
      if (input.shape[axis] == 0 && op == ReduceOp::kMax) return Fill(output, Scalar::Int(0));
    }
    AH_ASSIGN_OR_RETURN(ReduceResolution r,
                        ResolveReduce(op, input.dtype, input.shape, axes, std::nullopt, 0));
    return context_.backend().compute().Reduce(context_.queue(),
                                               ReduceCall{.op = op,
                                                          .input = input,
                                                          .axes = r.axes,
                                                          .accumulate_dtype = r.accumulate_dtype,
                                                          .ddof = 0,
                                                          .output = output});
  }

  // Runs a product whose call reads the operands and writes `out_layout`, the call's view of
  // a C-contiguous result of `result_shape` and call.compute_dtype: into a new array, or into
  // `out` (directly when it has that layout and dtype and shares no memory with an operand,
  // else through a new array and a conversion).
  absl::StatusOr<ArrayTable::RecordPtr> RunProduct(
      MatmulCall call, const Layout& out_layout, const Shape& result_shape,
      const ArrayTable::RecordPtr& out, std::initializer_list<const ArrayRecord*> inputs) {
    const bool direct = out && out->dtype == call.compute_dtype && out->c_contiguous() &&
                        std::none_of(inputs.begin(), inputs.end(), [&](const ArrayRecord* input) {
                          return input->buffer == out->buffer;
                        });
    std::optional<ArrayRecord> result;
    if (!direct) {
      AH_ASSIGN_OR_RETURN(result, context_.NewArray(call.compute_dtype, result_shape));
    }
    call.out = ViewOf(direct ? *out : *result);
    call.out.shape = out_layout.shape;
    call.out.strides = out_layout.strides;
    AH_ASSIGN_OR_RETURN(int64_t count, ElementCount(result_shape));
    if (count > 0) AH_RETURN_IF_ERROR(context_.backend().linalg().Matmul(context_.queue(), call));
    if (!out) return Register(std::move(*result));
    if (result) AH_RETURN_IF_ERROR(CopyInto(ViewOf(*result), ViewOf(*out)));
    return out;
  }

 private:
  const CallContext& context_;
  std::deque<ArrayRecord> scratch_;
};

namespace {

ArrayView WithLayout(ArrayView view, const Layout& layout) {
  view.shape = layout.shape;
  view.strides = layout.strides;
  return view;
}

Layout LayoutOf(const ArrayView& view) { return {view.shape, view.strides}; }

// The axes of `view` in the order `perm`.
ArrayView Permuted(ArrayView view, const std::vector<int64_t>& perm) {
  const ArrayView original = view;
  for (size_t i = 0; i < perm.size(); ++i) {
    view.shape[i] = original.shape[perm[i]];
    view.strides[i] = original.strides[perm[i]];
  }
  return view;
}

MatmulPrecision PrecisionOf(const std::optional<MatmulPrecision>& requested) {
  // A session setting for TF32 does not exist yet: the default is true float32.
  return requested.value_or(MatmulPrecision::kHighest);
}

absl::StatusOr<ArrayTable::RecordPtr> FindOut(Engine& engine, const Caller& caller,
                                              const std::string& out) {
  if (out.empty()) return ArrayTable::RecordPtr();
  return engine.FindWritable(caller, out, "out");
}

// A tensor-product operand as the rank-3 stack `form` describes, in `dtype`, its batch
// broadcast to `batch`.
absl::StatusOr<ArrayView> AsMatrices(LinalgSteps& steps, const ArrayRecord& record,
                                     const ProductOperandForm& form, DType dtype, int64_t batch) {
  ArrayView view = Permuted(ViewOf(record), form.perm);
  std::optional<Strides> strides;
  if (view.dtype == dtype) strides = ReshapeStrides(LayoutOf(view), form.shape);
  if (!strides) {  // Converted, or a layout that no strides reshape: a contiguous copy.
    AH_ASSIGN_OR_RETURN(view, steps.ContiguousCopy(view, dtype));
    strides = ContiguousStrides(form.shape);
  }
  view = WithLayout(view, {form.shape, *strides});
  if (view.shape[0] != batch) {
    view.shape[0] = batch;
    view.strides[0] = 0;
  }
  return view;
}

int64_t ElementsOf(std::span<const int64_t> extents) {
  return std::accumulate(extents.begin(), extents.end(), int64_t{1}, std::multiplies<>());
}

// --- numpy.linalg ---------------------------------------------------------------------------

// The plan's outputs as new arrays, and their views.
struct Outputs {
  std::vector<ArrayRecord> records;
  std::vector<ArrayView> views;
};

absl::StatusOr<Outputs> NewOutputs(LinalgSteps& steps, const LinalgPlan& plan) {
  Outputs outputs;
  for (const LinalgOutput& output : plan.outputs) {
    AH_ASSIGN_OR_RETURN(ArrayRecord record, steps.context().NewArray(output.dtype, output.shape));
    outputs.views.push_back(ViewOf(record));
    outputs.records.push_back(std::move(record));
  }
  return outputs;
}

// Results for stacks of empty matrices, which backends are never asked about: identities
// where NumPy gives them (the full U and Vh of an svd, the complete Q of a qr), det 1 (sign 1,
// logabsdet 0), and nothing to write for the others.
absl::Status FillEmptyResults(LinalgSteps& steps, const LinalgSpec& spec, const LinalgPlan& plan,
                              const Outputs& outputs) {
  switch (spec.op) {
    case LinalgOp::kSvd:
      if (spec.compute_uv && spec.full_matrices) {
        AH_RETURN_IF_ERROR(steps.FillIdentity(outputs.views[0]));
        AH_RETURN_IF_ERROR(steps.FillIdentity(outputs.views[2]));
      }
      return absl::OkStatus();
    case LinalgOp::kQr:
      if (plan.complete) return steps.FillIdentity(outputs.views[0]);
      return absl::OkStatus();
    case LinalgOp::kDet:
    case LinalgOp::kSlogdet:
      AH_RETURN_IF_ERROR(steps.Fill(outputs.views[0], Scalar::Int(1)));
      if (spec.op == LinalgOp::kSlogdet) return steps.Fill(outputs.views[1], Scalar::Int(0));
      return absl::OkStatus();
    default:
      return absl::OkStatus();
  }
}

// A stack of matrices broadcast to `batch` + its last two axes.
ArrayView BroadcastStack(ArrayView view, const Shape& batch) {
  Shape target = batch;
  target.insert(target.end(), view.shape.end() - 2, view.shape.end());
  view.strides = BroadcastStrides(view.shape, view.strides, target);
  view.shape = std::move(target);
  return view;
}

// numpy.linalg.solve and inv.
absl::Status RunSolve(LinalgSteps& steps, const LinalgPlan& plan, const ArrayView& a,
                      const std::optional<ArrayView>& b, const ArrayView& x) {
  SolveCall call{.a = BroadcastStack(a, plan.batch_shape), .b = std::nullopt, .x = x};
  if (b) {
    ArrayView rhs = *b;
    if (plan.b_vector) {  // A single column (n,) read as (n, 1), and written so.
      rhs = WithLayout(rhs, {{rhs.shape[0], 1}, {rhs.strides[0], 0}});
      Shape column = call.x.shape;
      column.push_back(1);
      call.x = WithLayout(call.x, {column, ContiguousStrides(column)});
    }
    call.b = BroadcastStack(rhs, plan.batch_shape);
  }
  return steps.context().backend().linalg().Solve(steps.context().queue(), call);
}

ElementwiseOperand ArrayOperand(const ArrayView& view) {
  return {.array = view, .scalar = {}, .dtype = view.dtype};
}

absl::StatusOr<ElementwiseOperand> ScalarOperand(double value, DType dtype) {
  AH_ASSIGN_OR_RETURN(ElementBytes bytes, EncodeScalar(Scalar::Float(value), dtype));
  return ElementwiseOperand{.array = std::nullopt, .scalar = bytes, .dtype = dtype};
}

// det = sign * exp(logabsdet), from slogdet, as NumPy computes it.
absl::Status RunDet(LinalgSteps& steps, DType dtype, const ArrayView& a, const ArrayView& det) {
  const DType real = RealDType(dtype);
  AH_ASSIGN_OR_RETURN(ArrayView sign, steps.Scratch(dtype, det.shape));
  AH_ASSIGN_OR_RETURN(ArrayView logabsdet, steps.Scratch(real, det.shape));
  AH_RETURN_IF_ERROR(steps.context().backend().linalg().Slogdet(
      steps.context().queue(), {.a = a, .sign = sign, .logabsdet = logabsdet}));
  AH_RETURN_IF_ERROR(
      steps.Elementwise(ElementwiseOp::kExp, real, real, {ArrayOperand(logabsdet)}, logabsdet));
  return steps.Elementwise(ElementwiseOp::kMultiply, dtype, dtype,
                           {ArrayOperand(sign), ArrayOperand(logabsdet)}, det);
}

// numpy.linalg.norm into `target` (the plan's result shape, C-contiguous), composed from
// elementwise ops, reductions and svd as NumPy's norm is.
absl::Status RunNorm(LinalgSteps& steps, const NormPlan& plan, const ArrayView& input,
                     const ArrayView& target) {
  const DType dtype = plan.dtype;
  const DType real = plan.result_dtype;
  AH_ASSIGN_OR_RETURN(ArrayView x, steps.InDType(input, dtype));
  std::vector<int64_t> axes = plan.axes;
  if (x.shape.empty()) {  // A 0-d x, normed whole: one element of one axis, to be reduced.
    x = WithLayout(x, {{1}, {0}});
    axes = {0};
  }

  // |x| (real), or |x|^2 with `squared`.
  auto magnitude = [&](bool squared) -> absl::StatusOr<ArrayView> {
    AH_ASSIGN_OR_RETURN(ArrayView m, steps.Scratch(real, x.shape));
    if (squared && dtype == real) {
      AH_RETURN_IF_ERROR(
          steps.Elementwise(ElementwiseOp::kSquare, dtype, dtype, {ArrayOperand(x)}, m));
      return m;
    }
    AH_RETURN_IF_ERROR(
        steps.Elementwise(ElementwiseOp::kAbsolute, dtype, real, {ArrayOperand(x)}, m));
    if (squared) {
      AH_RETURN_IF_ERROR(
          steps.Elementwise(ElementwiseOp::kSquare, real, real, {ArrayOperand(m)}, m));
    }
    return m;
  };
  // `view` reduced over `over` into a new scratch array.
  auto reduce = [&](ReduceOp op, const ArrayView& view,
                    const std::vector<int64_t>& over) -> absl::StatusOr<ArrayView> {
    Shape shape;
    for (size_t axis = 0; axis < view.shape.size(); ++axis) {
      if (std::find(over.begin(), over.end(), axis) == over.end()) {
        shape.push_back(view.shape[axis]);
      }
    }
    AH_ASSIGN_OR_RETURN(ArrayView reduced, steps.Scratch(view.dtype, shape));
    AH_RETURN_IF_ERROR(steps.Reduce(op, view, over, reduced));
    return reduced;
  };
  auto power = [&](const ArrayView& view, double exponent, const ArrayView& output) {
    absl::StatusOr<ElementwiseOperand> p = ScalarOperand(exponent, real);
    if (!p.ok()) return p.status();
    return steps.Elementwise(ElementwiseOp::kPower, real, real, {ArrayOperand(view), *p}, output);
  };

  switch (plan.kind) {
    case NormKind::kEuclidean: {
      AH_ASSIGN_OR_RETURN(ArrayView squares, magnitude(true));
      AH_ASSIGN_OR_RETURN(ArrayView sum, reduce(ReduceOp::kSum, squares, axes));
      return steps.Elementwise(ElementwiseOp::kSqrt, real, real, {ArrayOperand(sum)}, target);
    }
    case NormKind::kMaxAbs:
    case NormKind::kMinAbs:
    case NormKind::kSumAbs: {
      AH_ASSIGN_OR_RETURN(ArrayView abs, magnitude(false));
      const ReduceOp op = plan.kind == NormKind::kMaxAbs   ? ReduceOp::kMax
                          : plan.kind == NormKind::kMinAbs ? ReduceOp::kMin
                                                           : ReduceOp::kSum;
      return steps.Reduce(op, abs, axes, target);
    }
    case NormKind::kCount: {
      // (x != 0) converted to the real dtype by the elementwise call's output cast.
      AH_ASSIGN_OR_RETURN(ArrayView nonzero, steps.Scratch(real, x.shape));
      AH_ASSIGN_OR_RETURN(ElementwiseOperand zero, ScalarOperand(0, dtype));
      AH_RETURN_IF_ERROR(steps.Elementwise(ElementwiseOp::kNotEqual, dtype, DType::kBool,
                                           {ArrayOperand(x), zero}, nonzero));
      return steps.Reduce(ReduceOp::kSum, nonzero, axes, target);
    }
    case NormKind::kPower: {
      AH_ASSIGN_OR_RETURN(ArrayView abs, magnitude(false));
      AH_RETURN_IF_ERROR(power(abs, plan.p, abs));
      AH_ASSIGN_OR_RETURN(ArrayView sum, reduce(ReduceOp::kSum, abs, axes));
      return power(sum, 1 / plan.p, target);
    }
    case NormKind::kMaxSum:
    case NormKind::kMinSum: {
      AH_ASSIGN_OR_RETURN(ArrayView abs, magnitude(false));
      AH_ASSIGN_OR_RETURN(ArrayView sums, reduce(ReduceOp::kSum, abs, {axes[0]}));
      return steps.Reduce(plan.kind == NormKind::kMaxSum ? ReduceOp::kMax : ReduceOp::kMin, sums,
                          {axes[1]}, target);
    }
    case NormKind::kMaxSingular:
    case NormKind::kMinSingular:
    case NormKind::kNuclear: {
      // The singular values of x with the two axes moved last (a view), then reduced.
      std::vector<int64_t> perm;
      for (int64_t axis = 0; axis < static_cast<int64_t>(x.shape.size()); ++axis) {
        if (axis != axes[0] && axis != axes[1]) perm.push_back(axis);
      }
      perm.push_back(axes[0]);
      perm.push_back(axes[1]);
      const ArrayView stack = Permuted(x, perm);
      Shape s_shape(stack.shape.begin(), stack.shape.end() - 2);
      const int64_t k = std::min(stack.shape[perm.size() - 2], stack.shape[perm.size() - 1]);
      s_shape.push_back(k);
      AH_ASSIGN_OR_RETURN(ArrayView s, steps.Scratch(real, s_shape));
      if (ElementsOf(s_shape) > 0) {
        AH_RETURN_IF_ERROR(steps.context().backend().linalg().Svd(
            steps.context().queue(),
            {.a = stack, .full_matrices = false, .compute_uv = false, .u = {}, .s = s, .vh = {}}));
      }
      const ReduceOp op = plan.kind == NormKind::kMaxSingular   ? ReduceOp::kMax
                          : plan.kind == NormKind::kMinSingular ? ReduceOp::kMin
                                                                : ReduceOp::kSum;
      return steps.Reduce(op, s, {static_cast<int64_t>(s_shape.size()) - 1}, target);
    }
  }
  return absl::InternalError("unhandled norm");
}

absl::StatusOr<ArrayTable::RecordPtr> Norm(LinalgSteps& steps, const ArrayRecord& x,
                                           const LinalgSpec& spec) {
  AH_ASSIGN_OR_RETURN(NormPlan plan, PlanNorm(x.dtype, x.shape, spec.ord, spec.axes));
  AH_ASSIGN_OR_RETURN(
      ArrayRecord result,
      steps.context().NewArray(plan.result_dtype,
                               spec.keepdims ? plan.keepdims_shape : plan.result_shape));
  // The steps write the result shape; keepdims only adds axes of extent 1 to the record.
  const ArrayView target =
      WithLayout(ViewOf(result), {plan.result_shape, ContiguousStrides(plan.result_shape)});
  AH_RETURN_IF_ERROR(RunNorm(steps, plan, ViewOf(x), target));
  return steps.Register(std::move(result));
}

// a (m, k) as its conjugate transpose (k, m): a view for MatmulCall with conjugate set.
ArrayView Adjoint(const ArrayView& a) {
  return WithLayout(a, {{a.shape[1], a.shape[0]}, {a.strides[1], a.strides[0]}});
}

// numpy.linalg.lstsq: x = Vh^H diag(1/s) U^H b over the singular values s above
// rcond * max(s), all in double precision as NumPy computes it; results (x, residuals, rank,
// s) converted to NumPy's dtypes. The rank decides whether residuals exist, so it is read
// back to the host with the singular values.
absl::StatusOr<std::vector<ArrayTable::RecordPtr>> Lstsq(LinalgSteps& steps,
                                                         const ArrayRecord& a_record,
                                                         const ArrayRecord& b_record,
                                                         double rcond) {
  AH_ASSIGN_OR_RETURN(LstsqPlan plan, PlanLstsq(a_record.dtype, a_record.shape, b_record.dtype,
                                                b_record.shape, rcond));
  const DType compute = plan.compute_dtype;
  const DType real = RealDType(plan.dtype);
  const int64_t m = plan.m, n = plan.n, k = plan.k;
  const int64_t kmin = std::min(m, n);
  AH_ASSIGN_OR_RETURN(ArrayView a, steps.InDType(ViewOf(a_record), compute));
  AH_ASSIGN_OR_RETURN(ArrayView b, steps.InDType(ViewOf(b_record), compute));
  if (plan.b_vector) b = WithLayout(b, {{m, 1}, {b.strides[0], 0}});
  AH_ASSIGN_OR_RETURN(ArrayView x, steps.Scratch(compute, {n, k}));
  AH_ASSIGN_OR_RETURN(ArrayView s, steps.Scratch(DType::kFloat64, {kmin}));
  auto matmul = [&](const ArrayView& left, bool adjoint, const ArrayView& right,
                    const ArrayView& out) {
    if (ElementsOf(out.shape) == 0) return absl::OkStatus();
    return steps.context().backend().linalg().Matmul(steps.context().queue(),
                                                     {.a = adjoint ? Adjoint(left) : left,
                                                      .b = right,
                                                      .out = out,
                                                      .compute_dtype = compute,
                                                      .conjugate_a = adjoint});
  };

  int64_t rank = 0;
  if (kmin == 0) {
    AH_RETURN_IF_ERROR(steps.Fill(x, Scalar::Int(0)));
  } else {
    AH_ASSIGN_OR_RETURN(ArrayView u, steps.Scratch(compute, {m, kmin}));
    AH_ASSIGN_OR_RETURN(ArrayView vh, steps.Scratch(compute, {kmin, n}));
    AH_RETURN_IF_ERROR(steps.context().backend().linalg().Svd(
        steps.context().queue(),
        {.a = a, .full_matrices = false, .compute_uv = true, .u = u, .s = s, .vh = vh}));
    std::vector<double> values(static_cast<size_t>(kmin));
    AH_RETURN_IF_ERROR(steps.context().backend().memory().CopyToHost(
        steps.context().queue(), *s.buffer, s.offset_bytes,
        std::as_writable_bytes(std::span(values))));
    // Singular values come sorted: those above the cutoff are the leading `rank`.
    std::vector<double> inverse(values.size(), 0.0);
    for (size_t i = 0; i < values.size() && values[i] > plan.rcond * values[0]; ++i) {
      inverse[i] = 1 / values[i];
      ++rank;
    }
    AH_ASSIGN_OR_RETURN(ArrayView scale, steps.Scratch(DType::kFloat64, {kmin}));
    AH_RETURN_IF_ERROR(steps.context().backend().memory().CopyFromHost(
        steps.context().queue(), *scale.buffer, scale.offset_bytes,
        std::as_bytes(std::span(inverse))));
    // c = diag(1/s) U^H b, then x = Vh^H c.
    AH_ASSIGN_OR_RETURN(ArrayView c, steps.Scratch(compute, {kmin, k}));
    AH_RETURN_IF_ERROR(matmul(u, true, b, c));
    const ArrayView rows = WithLayout(scale, {{kmin, k}, {1, 0}});
    AH_RETURN_IF_ERROR(steps.Elementwise(ElementwiseOp::kMultiply, compute, compute,
                                         {ArrayOperand(c), ArrayOperand(rows)}, c));
    AH_RETURN_IF_ERROR(matmul(vh, true, c, x));
  }

  // Residuals, as NumPy gives them: only for a full-rank overdetermined system.
  const bool residuals_exist = rank == n && m > n;
  AH_ASSIGN_OR_RETURN(ArrayView residuals,
                      steps.Scratch(DType::kFloat64, {residuals_exist ? k : 0}));
  if (residuals_exist) {
    AH_ASSIGN_OR_RETURN(ArrayView r, steps.Scratch(compute, {m, k}));
    AH_RETURN_IF_ERROR(matmul(a, false, x, r));
    AH_RETURN_IF_ERROR(steps.Elementwise(ElementwiseOp::kSubtract, compute, compute,
                                         {ArrayOperand(b), ArrayOperand(r)}, r));
    AH_ASSIGN_OR_RETURN(ArrayView squares, steps.Scratch(DType::kFloat64, {m, k}));
    AH_RETURN_IF_ERROR(steps.Elementwise(ElementwiseOp::kAbsolute, compute, DType::kFloat64,
                                         {ArrayOperand(r)}, squares));
    AH_RETURN_IF_ERROR(steps.Elementwise(ElementwiseOp::kSquare, DType::kFloat64, DType::kFloat64,
                                         {ArrayOperand(squares)}, squares));
    AH_RETURN_IF_ERROR(steps.Reduce(ReduceOp::kSum, squares, {0}, residuals));
  }

  // The results in NumPy's dtypes: x, residuals, rank (int32), s.
  const ArrayView x_result = plan.b_vector ? WithLayout(x, {{n}, {k}}) : x;
  std::vector<ArrayRecord> results;
  for (const auto& [view, dtype] :
       {std::pair{x_result, plan.dtype}, std::pair{residuals, real}, std::pair{s, real}}) {
    AH_ASSIGN_OR_RETURN(ArrayRecord record, steps.context().NewArray(dtype, view.shape));
    AH_RETURN_IF_ERROR(steps.CopyInto(view, ViewOf(record)));
    results.push_back(std::move(record));
  }
  AH_ASSIGN_OR_RETURN(ArrayRecord rank_record, steps.context().NewArray(DType::kInt32, {}));
  AH_RETURN_IF_ERROR(steps.Fill(ViewOf(rank_record), Scalar::Int(rank)));
  results.insert(results.begin() + 2, std::move(rank_record));
  return steps.RegisterAll(std::move(results));
}

}  // namespace

absl::StatusOr<ArrayTable::RecordPtr> Engine::Matmul(const Caller& caller, const MatmulSpec& spec) {
  const auto bound = Bind(caller, "matmul");
  const CallContext context(*this, bound.caller());
  LinalgSteps steps(context);
  AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr a, steps.Operand(spec.a, "a"));
  AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr b, steps.Operand(spec.b, "b"));
  AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr out, FindOut(*this, bound.caller(), spec.out));
  AH_ASSIGN_OR_RETURN(
      MatmulShapes shapes,
      ResolveMatmul({a->dtype, a->shape, spec.transpose_a}, {b->dtype, b->shape, spec.transpose_b},
                    out ? std::optional(out->shape) : std::nullopt));
  if (out) AH_RETURN_IF_ERROR(CheckProductOutputCast("matmul", shapes.dtype, out->dtype));

  AH_ASSIGN_OR_RETURN(ArrayView a_view, steps.InDType(ViewOf(*a), shapes.dtype));
  AH_ASSIGN_OR_RETURN(ArrayView b_view, steps.InDType(ViewOf(*b), shapes.dtype));
  const MatmulCall call{
      .a = WithLayout(a_view, MatmulOperandLayout(shapes, 0, LayoutOf(a_view), spec.transpose_a)),
      .b = WithLayout(b_view, MatmulOperandLayout(shapes, 1, LayoutOf(b_view), spec.transpose_b)),
      .out = {},
      .compute_dtype = shapes.dtype,
      .conjugate_a = spec.conjugate_a,
      .conjugate_b = spec.conjugate_b,
      .precision = PrecisionOf(spec.precision)};
  return steps.RunProduct(call, {shapes.call_shape, ContiguousStrides(shapes.call_shape)},
                          shapes.result_shape, out, {a.get(), b.get()});
}

absl::StatusOr<ArrayTable::RecordPtr> Engine::TensorProduct(const Caller& caller,
                                                            const TensorProductSpec& spec) {
  const auto bound = Bind(caller, "tensor product");
  const CallContext context(*this, bound.caller());
  LinalgSteps steps(context);
  AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr a, steps.Operand(spec.a, "a"));
  AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr b, steps.Operand(spec.b, "b"));
  AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr out, FindOut(*this, bound.caller(), spec.out));
  AH_ASSIGN_OR_RETURN(TensorProductPlan plan, PlanTensorProduct(spec.op, a->dtype, a->shape,
                                                                b->dtype, b->shape, spec.axes));
  const std::string_view name = OpName(spec.op);
  // tensordot's result has the ranks of both operands less the contracted axes: refused before
  // the operands are rearranged.
  AH_RETURN_IF_ERROR(
      CheckShape(plan.result_shape, limits_, fmt::format("the result of {}", name)).status());
  if (out) {
    if (out->shape != plan.result_shape) {
      return absl::InvalidArgumentError(
          fmt::format("output array of shape {} does not match the {} result shape {}",
                      FormatShape(out->shape), name, FormatShape(plan.result_shape)));
    }
    // numpy.dot writes only into an exact match (numpy.outer casts like a ufunc; the others
    // take no out= in NumPy and follow outer).
    if (spec.op == TensorProductOp::kDot && (out->dtype != plan.dtype || !out->c_contiguous())) {
      return absl::InvalidArgumentError(
          "output array is not acceptable (must have the right datatype, number of dimensions, "
          "and be a C-Array)");
    }
    AH_RETURN_IF_ERROR(CheckProductOutputCast(name, plan.dtype, out->dtype));
  }
  const int64_t batch = plan.out.shape[0];
  AH_ASSIGN_OR_RETURN(ArrayView a_view, AsMatrices(steps, *a, plan.a, plan.dtype, batch));
  AH_ASSIGN_OR_RETURN(ArrayView b_view, AsMatrices(steps, *b, plan.b, plan.dtype, batch));
  const MatmulCall call{.a = a_view,
                        .b = b_view,
                        .out = {},
                        .compute_dtype = plan.dtype,
                        .conjugate_a = plan.conjugate_a,
                        .conjugate_b = false,
                        .precision = PrecisionOf(spec.precision)};
  return steps.RunProduct(call, plan.out, plan.result_shape, out, {a.get(), b.get()});
}

absl::StatusOr<std::vector<ArrayTable::RecordPtr>> Engine::Linalg(const Caller& caller,
                                                                  const LinalgSpec& spec) {
  const auto bound = Bind(caller, OpName(spec.op));
  const CallContext context(*this, bound.caller());
  LinalgSteps steps(context);
  std::vector<ArrayTable::RecordPtr> operands;
  std::vector<DType> dtypes;
  std::vector<Shape> shapes;
  for (size_t i = 0; i < spec.operands.size(); ++i) {
    AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr operand,
                        steps.Operand(spec.operands[i], fmt::format("operands[{}]", i)));
    dtypes.push_back(operand->dtype);
    shapes.push_back(operand->shape);
    operands.push_back(std::move(operand));
  }
  AH_RETURN_IF_ERROR(CheckLinalgOperands(spec.op, operands.size()));
  if (spec.op == LinalgOp::kNorm) {
    AH_ASSIGN_OR_RETURN(ArrayTable::RecordPtr result, Norm(steps, *operands[0], spec));
    return std::vector<ArrayTable::RecordPtr>{result};
  }
  if (spec.op == LinalgOp::kLstsq) return Lstsq(steps, *operands[0], *operands[1], spec.rcond);
  AH_ASSIGN_OR_RETURN(LinalgPlan plan, PlanLinalg(spec, dtypes, shapes));
  AH_ASSIGN_OR_RETURN(Outputs outputs, NewOutputs(steps, plan));
  AH_ASSIGN_OR_RETURN(ArrayView a, steps.InDType(ViewOf(*operands[0]), plan.dtype));
  std::optional<ArrayView> b;
  if (operands.size() > 1) {
    AH_ASSIGN_OR_RETURN(b, steps.InDType(ViewOf(*operands[1]), plan.dtype));
  }

  // Backends see only stacks of non-empty matrices with something to compute.
  const Shape& a_shape = a.shape;
  const bool empty = ElementsOf(a_shape) == 0 || ElementsOf(plan.batch_shape) == 0 ||
                     std::any_of(plan.outputs.begin(), plan.outputs.end(),
                                 [&](const LinalgOutput& o) { return ElementsOf(o.shape) == 0; });
  const bool empty_matrices = a_shape[a_shape.size() - 1] == 0 || a_shape[a_shape.size() - 2] == 0;
  const std::vector<ArrayView>& v = outputs.views;
  absl::Status status;
  if (empty_matrices) {
    status = FillEmptyResults(steps, spec, plan, outputs);
  } else if (!empty) {
    switch (spec.op) {
      case LinalgOp::kSvd:
        status = backend(bound.caller())
                     .linalg()
                     .Svd(QueueOf(bound.caller()),
                          spec.compute_uv ? SvdCall{.a = a,
                                                    .full_matrices = spec.full_matrices,
                                                    .compute_uv = true,
                                                    .u = v[0],
                                                    .s = v[1],
                                                    .vh = v[2]}
                                          : SvdCall{.a = a,
                                                    .full_matrices = false,
                                                    .compute_uv = false,
                                                    .u = {},
                                                    .s = v[0],
                                                    .vh = {}});
        break;
      case LinalgOp::kQr:
        status = backend(bound.caller())
                     .linalg()
                     .Qr(QueueOf(bound.caller()), {.a = a,
                                                   .complete = plan.complete,
                                                   .compute_q = plan.compute_q,
                                                   .q = plan.compute_q ? v[0] : ArrayView{},
                                                   .r = v.back()});
        break;
      case LinalgOp::kCholesky:
        status = backend(bound.caller())
                     .linalg()
                     .Cholesky(QueueOf(bound.caller()), {.a = a, .upper = plan.upper, .out = v[0]});
        break;
      case LinalgOp::kEigh:
      case LinalgOp::kEigvalsh: {
        const bool vectors = spec.op == LinalgOp::kEigh;
        status = backend(bound.caller())
                     .linalg()
                     .Eigh(QueueOf(bound.caller()), {.a = a,
                                                     .upper = plan.upper,
                                                     .compute_vectors = vectors,
                                                     .w = v[0],
                                                     .v = vectors ? v[1] : ArrayView{}});
        break;
      }
      case LinalgOp::kEig:
      case LinalgOp::kEigvals: {
        const bool vectors = spec.op == LinalgOp::kEig;
        status = backend(bound.caller())
                     .linalg()
                     .Eig(QueueOf(bound.caller()), {.a = a,
                                                    .compute_vectors = vectors,
                                                    .w = v[0],
                                                    .v = vectors ? v[1] : ArrayView{}});
        break;
      }
      case LinalgOp::kSolve:
      case LinalgOp::kInv:
        status = RunSolve(steps, plan, a, b, v[0]);
        break;
      case LinalgOp::kDet:
        status = RunDet(steps, plan.dtype, a, v[0]);
        break;
      case LinalgOp::kSlogdet:
        status = backend(bound.caller())
                     .linalg()
                     .Slogdet(QueueOf(bound.caller()), {.a = a, .sign = v[0], .logabsdet = v[1]});
        break;
      case LinalgOp::kNorm:
      case LinalgOp::kLstsq:
        status = absl::InternalError(fmt::format("{} has no plan", OpName(spec.op)));
    }
  }
  AH_RETURN_IF_ERROR(status);
  return RegisterAll(std::move(outputs.records));
}

}  // namespace arrayhub
