#include "server/core/linalg_rules.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <utility>

#include "server/common/name_table.h"
#include "server/common/status_macros.h"
#include "server/core/axes.h"
#include "server/core/broadcast.h"
#include "server/core/promotion.h"

namespace arrayhub {
namespace {

constexpr std::pair<TensorProductOp, std::string_view> kTensorProductNames[] = {
    {TensorProductOp::kDot, "dot"},
    {TensorProductOp::kVdot, "vdot"},
    {TensorProductOp::kInner, "inner"},
    {TensorProductOp::kOuter, "outer"},
    {TensorProductOp::kTensordot, "tensordot"},
};

constexpr std::pair<LinalgOp, std::string_view> kLinalgNames[] = {
#define AH_LINALG_OP(enumerator, name, operands, answer) {LinalgOp::k##enumerator, name},
#include "server/core/linalg_ops.def"
#undef AH_LINALG_OP
};

enum class Answer : uint8_t { kOne, kSeveral, kOptions };

struct LinalgOpInfo {
  size_t operands;
  Answer answer;
};

// Indexed by LinalgOp: both come from linalg_ops.def in its order.
constexpr LinalgOpInfo kLinalgOps[] = {
#define AH_LINALG_OP(enumerator, name, operands, answer) {operands, Answer::k##answer},
#include "server/core/linalg_ops.def"
#undef AH_LINALG_OP
};

const LinalgOpInfo& InfoOf(LinalgOp op) { return kLinalgOps[static_cast<size_t>(op)]; }

int64_t Product(std::span<const int64_t> extents) {
  return std::accumulate(extents.begin(), extents.end(), int64_t{1}, std::multiplies<>());
}

Shape Concat(std::initializer_list<std::span<const int64_t>> parts) {
  Shape result;
  for (std::span<const int64_t> part : parts) result.insert(result.end(), part.begin(), part.end());
  return result;
}

// The leading (batch) axes of a stack of matrices or vectors: all but the last `core`.
std::span<const int64_t> Batch(const Shape& shape, size_t core) {
  return std::span(shape).first(shape.size() > core ? shape.size() - core : 0);
}

std::vector<int64_t> Identity(size_t rank) {
  std::vector<int64_t> perm(rank);
  std::iota(perm.begin(), perm.end(), 0);
  return perm;
}

// A gufunc's message for batch axes that do not broadcast. Each operand is printed with the
// axes the loop sees ("(4,3,newaxis,newaxis)"; "()" when it has no batch axes); `out`, when
// given, with its full shape; then the core dimensions of the output.
absl::Status RemappedBroadcastError(std::span<const Shape> inputs, std::span<const size_t> cores,
                                    const std::optional<Shape>& out,
                                    std::span<const int64_t> requested) {
  std::string message =
      "operands could not be broadcast together with remapped shapes [original->remapped]: ";
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::span<const int64_t> batch = Batch(inputs[i], cores[i]);
    std::vector<std::string> remapped;
    for (int64_t extent : batch) remapped.push_back(std::to_string(extent));
    if (!batch.empty()) remapped.resize(remapped.size() + cores[i], "newaxis");
    message += fmt::format("{}->({}) ", CompactShape(inputs[i]), fmt::join(remapped, ","));
  }
  if (out) message += fmt::format("{}->{} ", CompactShape(*out), CompactShape(*out));
  return absl::InvalidArgumentError(
      fmt::format("{} and requested shape {}", message, CompactShape(requested)));
}

absl::Status NotEnoughDimensions(std::string_view name, std::string_view kind, int index,
                                 size_t has, std::string_view signature, size_t requires_) {
  return absl::InvalidArgumentError(fmt::format(
      "{}: {} operand {} does not have enough dimensions (has {}, gufunc core with signature {} "
      "requires {})",
      name, kind, index, has, signature, requires_));
}

std::string CoreMismatch(std::string_view name, std::string_view kind, int index, int dimension,
                         std::string_view signature, int64_t size, int64_t expected) {
  return fmt::format(
      "{}: {} operand {} has a mismatch in its core dimension {}, with gufunc signature {} (size "
      "{} is different from {})",
      name, kind, index, dimension, signature, size, expected);
}

constexpr std::string_view kMatmulSignature = "(n?,k),(k,m?)->(n?,m?)";

absl::Status CheckAtLeast2D(const Shape& shape) {
  if (shape.size() < 2) {
    return absl::InvalidArgumentError(fmt::format(
        "{}-dimensional array given. Array must be at least two-dimensional", shape.size()));
  }
  return absl::OkStatus();
}

absl::Status CheckSquare(const Shape& shape) {
  AH_RETURN_IF_ERROR(CheckAtLeast2D(shape));
  if (shape[shape.size() - 1] != shape[shape.size() - 2]) {
    return absl::InvalidArgumentError("Last 2 dimensions of the array must be square");
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> UpperFromUplo(std::string_view uplo) {
  if (uplo.empty() || uplo == "L") return false;
  if (uplo == "U") return true;
  return absl::InvalidArgumentError("UPLO argument must be 'L' or 'U'");
}

absl::Status ZeroSizeMinimum() {
  return absl::InvalidArgumentError(
      "zero-size array to reduction operation minimum which has no identity");
}

}  // namespace

std::optional<TensorProductOp> TensorProductOpFromName(std::string_view name) {
  return FromName(kTensorProductNames, name);
}
std::string_view OpName(TensorProductOp op) { return NameOf(kTensorProductNames, op); }
std::optional<LinalgOp> LinalgOpFromName(std::string_view name) {
  return FromName(kLinalgNames, name);
}
std::string_view OpName(LinalgOp op) { return NameOf(kLinalgNames, op); }

absl::Status CheckLinalgOperands(LinalgOp op, size_t count) {
  const size_t operands = InfoOf(op).operands;
  if (count == operands) return absl::OkStatus();
  return absl::InvalidArgumentError(fmt::format("{} takes {} operand{}, got {}", OpName(op),
                                                operands, operands == 1 ? "" : "s", count));
}

bool LinalgGivesSeveral(LinalgOp op, bool compute_uv, std::string_view qr_mode) {
  switch (InfoOf(op).answer) {
    case Answer::kOne:
      return false;
    case Answer::kSeveral:
      return true;
    case Answer::kOptions:
      return op == LinalgOp::kSvd ? compute_uv : qr_mode != "r";
  }
  return false;
}

absl::StatusOr<MatmulShapes> ResolveMatmul(const MatmulOperand& a, const MatmulOperand& b,
                                           const std::optional<Shape>& out_shape) {
  const MatmulOperand* operands[] = {&a, &b};
  for (int i = 0; i < 2; ++i) {
    if (operands[i]->shape.empty()) {
      return NotEnoughDimensions("matmul", "Input", i, 0, kMatmulSignature, 1);
    }
    if (operands[i]->transpose && operands[i]->shape.size() < 2) {
      return absl::InvalidArgumentError("matrix transpose with ndim < 2 is undefined");
    }
  }
  // The last two axes, as (rows, cols) after any transpose.
  auto core = [](const MatmulOperand& operand) {
    const size_t rank = operand.shape.size();
    std::pair<int64_t, int64_t> rows_cols{operand.shape[rank - 2], operand.shape[rank - 1]};
    if (operand.transpose) std::swap(rows_cols.first, rows_cols.second);
    return rows_cols;
  };
  const bool a_vector = a.shape.size() == 1;
  const bool b_vector = b.shape.size() == 1;
  const auto [m, k] = a_vector ? std::pair<int64_t, int64_t>{1, a.shape[0]} : core(a);
  const auto [b_k, n] = b_vector ? std::pair<int64_t, int64_t>{b.shape[0], 1} : core(b);
  if (k != b_k) {
    return absl::InvalidArgumentError(fmt::format(
        "{}; shapes {} and {}", CoreMismatch("matmul", "Input", 1, 0, kMatmulSignature, b_k, k),
        CompactShape(a.shape), CompactShape(b.shape)));
  }

  Shape core_out;  // The output's core axes: those of operands that are not vectors.
  if (!a_vector) core_out.push_back(m);
  if (!b_vector) core_out.push_back(n);
  std::vector<Shape> batches = {Shape(Batch(a.shape, 2).begin(), Batch(a.shape, 2).end()),
                                Shape(Batch(b.shape, 2).begin(), Batch(b.shape, 2).end())};
  if (out_shape) {
    if (out_shape->size() < core_out.size()) {
      return NotEnoughDimensions("matmul", "Output", 0, out_shape->size(), kMatmulSignature,
                                 core_out.size());
    }
    const size_t first_core = out_shape->size() - core_out.size();
    for (size_t i = 0; i < core_out.size(); ++i) {
      if ((*out_shape)[first_core + i] != core_out[i]) {
        return absl::InvalidArgumentError(CoreMismatch("matmul", "Output", 0, static_cast<int>(i),
                                                       kMatmulSignature,
                                                       (*out_shape)[first_core + i], core_out[i]));
      }
    }
    batches.emplace_back(out_shape->begin(), out_shape->begin() + first_core);
  }
  absl::StatusOr<Shape> batch = BroadcastShapes(batches);
  if (!batch.ok()) {
    const Shape inputs[] = {a.shape, b.shape};
    const size_t cores[] = {std::min<size_t>(a.shape.size(), 2),
                            std::min<size_t>(b.shape.size(), 2)};
    return RemappedBroadcastError(inputs, cores, out_shape, core_out);
  }

  MatmulShapes shapes{.dtype = PromoteTypes(a.dtype, b.dtype),
                      .result_shape = Concat({*batch, core_out}),
                      .call_shape = Concat({*batch, Shape{m, n}}),
                      .k = k};
  if (out_shape && *out_shape != shapes.result_shape) {
    return absl::InvalidArgumentError(fmt::format(
        "non-broadcastable output operand with shape {} doesn't match the broadcast shape {}",
        FormatShape(*out_shape), FormatShape(shapes.result_shape)));
  }
  return shapes;
}

Layout MatmulOperandLayout(const MatmulShapes& shapes, int index, const Layout& layout,
                           bool transpose) {
  Layout view = layout;
  if (view.shape.size() == 1) {
    // a (k,) is a row (1, k); b (k,) is a column (k, 1). The added axis has extent 1, so
    // its stride never moves.
    if (index == 0) {
      view = {{1, layout.shape[0]}, {0, layout.strides[0]}};
    } else {
      view = {{layout.shape[0], 1}, {layout.strides[0], 0}};
    }
  } else if (transpose) {
    const size_t rank = view.shape.size();
    std::swap(view.shape[rank - 2], view.shape[rank - 1]);
    std::swap(view.strides[rank - 2], view.strides[rank - 1]);
  }
  const size_t rank = shapes.call_shape.size();
  const int64_t m = shapes.call_shape[rank - 2];
  const int64_t n = shapes.call_shape[rank - 1];
  Shape target =
      Concat({Batch(shapes.call_shape, 2), index == 0 ? Shape{m, shapes.k} : Shape{shapes.k, n}});
  Strides strides = BroadcastStrides(view.shape, view.strides, target);
  return {std::move(target), std::move(strides)};
}

absl::Status CheckProductOutputCast(std::string_view name, DType result, DType out) {
  if (CanCastSameKind(result, out)) return absl::OkStatus();
  return absl::InvalidArgumentError(
      fmt::format("Cannot cast ufunc '{}' output from dtype('{}') to dtype('{}') with casting rule "
                  "'same_kind'",
                  name, DTypeName(result), DTypeName(out)));
}

absl::StatusOr<TensorProductPlan> PlanTensorProduct(TensorProductOp op, DType a_dtype,
                                                    const Shape& a_shape, DType b_dtype,
                                                    const Shape& b_shape, int64_t axes) {
  const size_t p = a_shape.size();
  const size_t q = b_shape.size();
  TensorProductPlan plan;
  plan.dtype = PromoteTypes(a_dtype, b_dtype);
  // (1, M, K) @ (1, K, N) into a contiguous (M, N): tensordot's form, and outer's and vdot's.
  auto contract = [&](int64_t m, int64_t k, int64_t n, Shape result_shape) {
    plan.a = {Identity(p), {1, m, k}};
    plan.b = {Identity(q), {1, k, n}};
    plan.out = {{1, m, n}, ContiguousStrides(Shape{1, m, n})};
    plan.result_shape = std::move(result_shape);
  };
  auto not_aligned = [&](size_t a_dim, size_t b_dim) {
    return absl::InvalidArgumentError(fmt::format(
        "shapes {} and {} not aligned: {} (dim {}) != {} (dim {})", CompactShape(a_shape),
        CompactShape(b_shape), a_shape[a_dim], a_dim, b_shape[b_dim], b_dim));
  };
  // dot and inner multiply by a 0-d operand; that is a contraction over no axes.
  const bool scalar_operand = p == 0 || q == 0;
  if (op == TensorProductOp::kTensordot ||
      (scalar_operand && (op == TensorProductOp::kDot || op == TensorProductOp::kInner))) {
    const int64_t n = op == TensorProductOp::kTensordot ? axes : 0;
    if (n < 0) {
      return absl::InvalidArgumentError(
          fmt::format("tensordot: axes must be a non-negative number of axes, got {}", n));
    }
    if (static_cast<size_t>(n) > p || static_cast<size_t>(n) > q) {
      return absl::InvalidArgumentError(
          fmt::format("tensordot: cannot contract {} axes of arrays of shapes {} and {}", n,
                      CompactShape(a_shape), CompactShape(b_shape)));
    }
    std::span<const int64_t> a_free = std::span(a_shape).first(p - n);
    std::span<const int64_t> a_summed = std::span(a_shape).last(n);
    std::span<const int64_t> b_summed = std::span(b_shape).first(n);
    std::span<const int64_t> b_free = std::span(b_shape).last(q - n);
    if (!std::equal(a_summed.begin(), a_summed.end(), b_summed.begin(), b_summed.end())) {
      return absl::InvalidArgumentError("shape-mismatch for sum");
    }
    contract(Product(a_free), Product(a_summed), Product(b_free), Concat({a_free, b_free}));
    return plan;
  }
  switch (op) {
    case TensorProductOp::kOuter: {
      const int64_t m = Product(a_shape);
      const int64_t n = Product(b_shape);
      contract(m, 1, n, {m, n});
      return plan;
    }
    case TensorProductOp::kVdot: {
      const int64_t size = Product(a_shape);
      if (Product(b_shape) != size) {
        return absl::InvalidArgumentError(fmt::format(
            "cannot reshape array of size {} into shape ({},)", Product(b_shape), size));
      }
      contract(1, size, 1, {});
      plan.conjugate_a = true;
      return plan;
    }
    case TensorProductOp::kInner: {
      const int64_t k = a_shape[p - 1];
      if (b_shape[q - 1] != k) return not_aligned(p - 1, q - 1);
      std::span<const int64_t> a_free = std::span(a_shape).first(p - 1);
      std::span<const int64_t> b_free = std::span(b_shape).first(q - 1);
      const int64_t m = Product(a_free);
      const int64_t n = Product(b_free);
      contract(m, k, n, Concat({a_free, b_free}));
      // b (B..., k) is read as (k, B...): its last axis first.
      std::rotate(plan.b.perm.begin(), plan.b.perm.end() - 1, plan.b.perm.end());
      return plan;
    }
    case TensorProductOp::kDot: {
      // dot contracts a's last axis with b's second-to-last (its only one when 1-D). b's axes
      // before that one are stacks over which a is broadcast: (B, k, N).
      const size_t b_axis = q >= 2 ? q - 2 : 0;
      const int64_t k = a_shape[p - 1];
      if (b_shape[b_axis] != k) return not_aligned(p - 1, b_axis);
      std::span<const int64_t> a_free = std::span(a_shape).first(p - 1);
      std::span<const int64_t> b_stacks = std::span(b_shape).first(b_axis);
      std::span<const int64_t> b_free = std::span(b_shape).subspan(b_axis + 1);
      const int64_t m = Product(a_free);
      const int64_t batch = Product(b_stacks);
      const int64_t n = Product(b_free);
      plan.a = {Identity(p), {1, m, k}};
      plan.b = {Identity(q), {batch, k, n}};
      plan.result_shape = Concat({a_free, b_stacks, b_free});
      // The result is C-contiguous (M, B, N); the call writes it as (B, M, N).
      plan.out = {{batch, m, n}, {n, batch * n, 1}};
      return plan;
    }
    case TensorProductOp::kTensordot:
      break;
  }
  return absl::InternalError("unhandled tensor product");
}

absl::StatusOr<DType> LinalgDType(std::span<const DType> dtypes) {
  bool is_complex = false;
  bool is_double = false;
  for (DType dtype : dtypes) {
    switch (dtype) {
      case DType::kFloat16:
        return absl::InvalidArgumentError("array type float16 is unsupported in linalg");
      case DType::kFloat32:
        break;
      case DType::kComplex64:
        is_complex = true;
        break;
      case DType::kComplex128:
        is_complex = true;
        is_double = true;
        break;
      default:  // float64, and bool and integers, which NumPy computes in float64.
        is_double = true;
    }
  }
  if (is_complex) return is_double ? DType::kComplex128 : DType::kComplex64;
  return is_double ? DType::kFloat64 : DType::kFloat32;
}

absl::StatusOr<LinalgPlan> PlanLinalg(const LinalgSpec& spec, std::span<const DType> dtypes,
                                      std::span<const Shape> shapes) {
  const std::string_view name = OpName(spec.op);
  AH_RETURN_IF_ERROR(CheckLinalgOperands(spec.op, shapes.size()));
  const Shape& a = shapes[0];
  if (spec.op == LinalgOp::kSvd || spec.op == LinalgOp::kQr || spec.op == LinalgOp::kLstsq) {
    AH_RETURN_IF_ERROR(CheckAtLeast2D(a));
  } else {
    AH_RETURN_IF_ERROR(CheckSquare(a));
  }
  LinalgPlan plan;
  AH_ASSIGN_OR_RETURN(plan.dtype, LinalgDType(dtypes));
  const DType real = RealDType(plan.dtype);
  const std::span<const int64_t> batch = Batch(a, 2);
  const int64_t m = a[a.size() - 2];
  const int64_t n = a[a.size() - 1];
  const int64_t k = std::min(m, n);
  if (spec.op == LinalgOp::kCholesky || spec.op == LinalgOp::kEigh ||
      spec.op == LinalgOp::kEigvalsh) {
    AH_ASSIGN_OR_RETURN(plan.upper, UpperFromUplo(spec.uplo));
  }
  plan.batch_shape.assign(batch.begin(), batch.end());
  auto output = [&](DType dtype, std::initializer_list<int64_t> core) {
    plan.outputs.push_back({dtype, Concat({batch, Shape(core)})});
  };
  switch (spec.op) {
    case LinalgOp::kSvd:
      if (spec.compute_uv) output(plan.dtype, {m, spec.full_matrices ? m : k});
      output(real, {k});
      if (spec.compute_uv) output(plan.dtype, {spec.full_matrices ? n : k, n});
      return plan;
    case LinalgOp::kQr:
      if (spec.mode == "complete") {
        plan.complete = true;
      } else if (spec.mode == "r") {
        plan.compute_q = false;
      } else if (!spec.mode.empty() && spec.mode != "reduced") {
        return absl::InvalidArgumentError(fmt::format("Unrecognized mode '{}'", spec.mode));
      }
      if (plan.compute_q) output(plan.dtype, {m, plan.complete ? m : k});
      output(plan.dtype, {plan.complete ? m : k, n});
      return plan;
    case LinalgOp::kCholesky:
      output(plan.dtype, {n, n});
      return plan;
    case LinalgOp::kEigh:
    case LinalgOp::kEigvalsh:
      output(real, {n});
      if (spec.op == LinalgOp::kEigh) output(plan.dtype, {n, n});
      return plan;
    case LinalgOp::kEig:
    case LinalgOp::kEigvals: {
      // Complex whatever the input, as CuPy's (NumPy's dtype depends on the eigenvalues found).
      const DType complex = real == DType::kFloat64 ? DType::kComplex128 : DType::kComplex64;
      output(complex, {n});
      if (spec.op == LinalgOp::kEig) output(complex, {n, n});
      return plan;
    }
    case LinalgOp::kInv:
      output(plan.dtype, {n, n});
      return plan;
    case LinalgOp::kDet:
      output(plan.dtype, {});
      return plan;
    case LinalgOp::kSlogdet:
      output(plan.dtype, {});
      output(real, {});
      return plan;
    case LinalgOp::kSolve: {
      const Shape& b = shapes[1];
      if (b.empty()) {
        return NotEnoughDimensions("solve", "Input", 1, 0, "(m,m),(m,n)->(m,n)", 2);
      }
      plan.b_vector = b.size() == 1;
      if (plan.b_vector) {
        if (b[0] != n) {
          return absl::InvalidArgumentError(
              CoreMismatch("solve1", "Input", 1, 0, "(m,m),(m)->(m)", b[0], n));
        }
        plan.outputs.push_back({plan.dtype, Concat({batch, Shape{n}})});
        return plan;
      }
      if (b[b.size() - 2] != n) {
        return absl::InvalidArgumentError(
            CoreMismatch("solve", "Input", 1, 0, "(m,m),(m,n)->(m,n)", b[b.size() - 2], n));
      }
      const int64_t columns = b[b.size() - 1];
      const Shape batches[] = {Shape(batch.begin(), batch.end()),
                               Shape(Batch(b, 2).begin(), Batch(b, 2).end())};
      absl::StatusOr<Shape> broadcast = BroadcastShapes(batches);
      if (!broadcast.ok()) {
        const size_t cores[] = {2, 2};
        return RemappedBroadcastError(shapes, cores, std::nullopt, Shape{n, columns});
      }
      plan.batch_shape = *broadcast;
      plan.outputs.push_back({plan.dtype, Concat({*broadcast, Shape{n, columns}})});
      return plan;
    }
    case LinalgOp::kLstsq:
    case LinalgOp::kNorm:
      break;
  }
  return absl::InternalError(fmt::format("{} is not planned by PlanLinalg", name));
}

absl::StatusOr<LstsqPlan> PlanLstsq(DType a_dtype, const Shape& a, DType b_dtype, const Shape& b,
                                    double rcond) {
  LstsqPlan plan;
  plan.b_vector = b.size() == 1;
  // NumPy makes a 1-D b a column first.
  for (const size_t rank : {a.size(), plan.b_vector ? size_t{2} : b.size()}) {
    if (rank != 2) {
      return absl::InvalidArgumentError(
          fmt::format("{}-dimensional array given. Array must be two-dimensional", rank));
    }
  }
  plan.m = a[0];
  plan.n = a[1];
  plan.k = plan.b_vector ? 1 : b[1];
  if (b[0] != plan.m) return absl::InvalidArgumentError("Incompatible dimensions");
  const DType dtypes[] = {a_dtype, b_dtype};
  AH_ASSIGN_OR_RETURN(plan.dtype, LinalgDType(dtypes));
  plan.compute_dtype = IsComplex(plan.dtype) ? DType::kComplex128 : DType::kFloat64;
  plan.rcond = rcond >= 0 ? rcond
                          : std::numeric_limits<double>::epsilon() *
                                static_cast<double>(std::max(plan.m, plan.n));
  plan.x_shape = plan.b_vector ? Shape{plan.n} : Shape{plan.n, plan.k};
  return plan;
}

absl::StatusOr<NormPlan> PlanNorm(DType dtype, const Shape& shape, std::string_view ord,
                                  const std::optional<std::vector<int64_t>>& axes) {
  NormPlan plan;
  plan.dtype = IsFloating(dtype) || IsComplex(dtype) ? dtype : DType::kFloat64;
  plan.result_dtype = RealDType(plan.dtype);

  // ord: None, one of the words, or a number (inf and -inf spelled so).
  const bool ord_none = ord.empty();
  const bool ord_fro = ord == "fro" || ord == "f";
  const bool ord_nuc = ord == "nuc";
  std::optional<double> number;
  if (!ord_none && !ord_fro && !ord_nuc) {
    double value = 0;
    const auto [end, error] = std::from_chars(ord.data(), ord.data() + ord.size(), value);
    if (error == std::errc() && end == ord.data() + ord.size()) number = value;
  }
  const double inf = std::numeric_limits<double>::infinity();
  auto ord_is = [&](double value) { return number && *number == value; };

  const size_t rank = shape.size();
  std::vector<int64_t> normed;  // The axes the norm runs over (NumPy's axis=None: all).
  if (axes) {
    for (int64_t axis : *axes) {
      AH_ASSIGN_OR_RETURN(int64_t normalized, NormalizeAxis(axis, rank));
      normed.push_back(normalized);
    }
  } else {
    normed = Identity(rank);
  }
  plan.axes = normed;
  if (!axes && (ord_none || (ord_fro && rank == 2) || (ord_is(2) && rank == 1))) {
    // NumPy's fast path: the 2-norm of the flattened array, whatever its rank.
    plan.kind = NormKind::kEuclidean;
  } else if (normed.size() == 1) {
    if (ord_is(inf)) {
      plan.kind = NormKind::kMaxAbs;
    } else if (ord_is(-inf)) {
      if (shape[normed[0]] == 0) return ZeroSizeMinimum();
      plan.kind = NormKind::kMinAbs;
    } else if (ord_is(0)) {
      plan.kind = NormKind::kCount;
    } else if (ord_is(1)) {
      plan.kind = NormKind::kSumAbs;
    } else if (ord_none || ord_is(2)) {
      plan.kind = NormKind::kEuclidean;
    } else if (!number) {
      return absl::InvalidArgumentError(fmt::format("Invalid norm order '{}' for vectors", ord));
    } else {
      plan.kind = NormKind::kPower;
      plan.p = *number;
    }
  } else if (normed.size() == 2) {
    const int64_t row = normed[0];
    const int64_t col = normed[1];
    if (row == col) return absl::InvalidArgumentError("Duplicate axes given.");
    // Sum over one axis, then max/min over the other, numbered as an axis of the sum.
    auto sum_then = [&](NormKind kind, int64_t summed, int64_t other) -> absl::Status {
      if (kind == NormKind::kMinSum && shape[other] == 0) return ZeroSizeMinimum();
      plan.kind = kind;
      plan.axes = {summed, other > summed ? other - 1 : other};
      return absl::OkStatus();
    };
    auto singular = [&](NormKind kind) -> absl::Status {
      AH_RETURN_IF_ERROR(LinalgDType(std::span(&plan.dtype, 1)).status());
      if (kind == NormKind::kMinSingular && std::min(shape[row], shape[col]) == 0) {
        return ZeroSizeMinimum();
      }
      plan.kind = kind;
      return absl::OkStatus();
    };
    if (ord_is(2)) {
      AH_RETURN_IF_ERROR(singular(NormKind::kMaxSingular));
    } else if (ord_is(-2)) {
      AH_RETURN_IF_ERROR(singular(NormKind::kMinSingular));
    } else if (ord_is(1)) {
      AH_RETURN_IF_ERROR(sum_then(NormKind::kMaxSum, row, col));
    } else if (ord_is(-1)) {
      AH_RETURN_IF_ERROR(sum_then(NormKind::kMinSum, row, col));
    } else if (ord_is(inf)) {
      AH_RETURN_IF_ERROR(sum_then(NormKind::kMaxSum, col, row));
    } else if (ord_is(-inf)) {
      AH_RETURN_IF_ERROR(sum_then(NormKind::kMinSum, col, row));
    } else if (ord_none || ord_fro) {
      plan.kind = NormKind::kEuclidean;
    } else if (ord_nuc) {
      AH_RETURN_IF_ERROR(singular(NormKind::kNuclear));
    } else {
      return absl::InvalidArgumentError("Invalid norm order for matrices.");
    }
  } else {
    return absl::InvalidArgumentError("Improper number of dimensions to norm.");
  }
  // A reduction takes its axes sorted.
  if (plan.kind == NormKind::kEuclidean) std::sort(plan.axes.begin(), plan.axes.end());

  // The normed axes go (or stay as 1 with keepdims); the others keep their order.
  plan.keepdims_shape = shape;
  for (int64_t axis : normed) plan.keepdims_shape[axis] = 1;
  for (size_t axis = 0; axis < rank; ++axis) {
    if (std::find(normed.begin(), normed.end(), axis) == normed.end()) {
      plan.result_shape.push_back(shape[axis]);
    }
  }
  return plan;
}

}  // namespace arrayhub
