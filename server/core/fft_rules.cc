#include "server/core/fft_rules.h"

#include <fmt/format.h>

#include <cmath>
#include <utility>

#include "server/common/float16.h"
#include "server/common/name_table.h"
#include "server/common/status_macros.h"
#include "server/core/axes.h"

namespace arrayhub {
namespace {

constexpr std::pair<FftOp, std::string_view> kFftNames[] = {
    {FftOp::kFft, "fft"},     {FftOp::kIfft, "ifft"}, {FftOp::kRfft, "rfft"},
    {FftOp::kIrfft, "irfft"}, {FftOp::kHfft, "hfft"}, {FftOp::kIhfft, "ihfft"},
};

enum class Norm : uint8_t { kBackward, kOrtho, kForward };

std::optional<Norm> NormFromName(std::string_view name) {
  if (name.empty() || name == "backward") return Norm::kBackward;
  if (name == "ortho") return Norm::kOrtho;
  if (name == "forward") return Norm::kForward;
  return std::nullopt;
}

// NumPy's _raw_fft: an inverse transform scales as the forward one of the swapped norm. The
// factor is computed in the input's real dtype, which for float16 rounds it (twice for
// "ortho": reciprocal(sqrt(n, dtype=float16))), and NumPy's results carry that rounding.
double ScaleOf(Norm norm, bool forward, int64_t n, bool half) {
  if (!forward && norm != Norm::kOrtho) {
    norm = norm == Norm::kBackward ? Norm::kForward : Norm::kBackward;
  }
  const auto rounded = [&](double value) {
    return half ? static_cast<double>(static_cast<float>(HalfFromDouble(value))) : value;
  };
  switch (norm) {
    case Norm::kBackward:
      return 1;
    case Norm::kOrtho:
      return rounded(1 / rounded(std::sqrt(rounded(static_cast<double>(n)))));
    case Norm::kForward:
      return rounded(1 / rounded(static_cast<double>(n)));
  }
  return 1;
}

bool RealInput(FftOp op) { return op == FftOp::kRfft || op == FftOp::kIhfft; }
bool RealOutput(FftOp op) { return op == FftOp::kIrfft || op == FftOp::kHfft; }

// The transform of `op` along its position `index` of `count` axes (the real one is the last).
FftStep StepOf(FftOp op, size_t index, size_t count, int64_t axis, int64_t n) {
  FftStep step{.axis = axis, .n = n, .input_length = n, .output_length = n};
  const bool last = index + 1 == count;
  switch (op) {
    case FftOp::kFft:
    case FftOp::kIfft:
      step.forward = op == FftOp::kFft;
      break;
    case FftOp::kRfft:
    case FftOp::kIhfft:
      step.forward = true;
      if (last) {
        step.kind = FftKind::kRealToComplex;
        step.output_length = n / 2 + 1;
        step.conjugate = op == FftOp::kIhfft;
      }
      break;
    case FftOp::kIrfft:
    case FftOp::kHfft:
      step.forward = false;
      if (last) {
        step.kind = FftKind::kComplexToReal;
        step.input_length = n / 2 + 1;
        step.conjugate = op == FftOp::kHfft;
      }
      break;
  }
  return step;
}

}  // namespace

std::optional<FftOp> FftOpFromName(std::string_view name) { return FromName(kFftNames, name); }
std::string_view OpName(FftOp op) { return NameOf(kFftNames, op); }

absl::StatusOr<FftPlan> ResolveFft(const FftSpec& spec, DType dtype, const Shape& shape) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  // numpy.fft._cook_nd_args: axes default to the last len(s), or all; lengths to the extents.
  std::vector<int64_t> axes;
  if (spec.axes) {
    for (int64_t axis : *spec.axes) {
      AH_ASSIGN_OR_RETURN(int64_t normalized, NormalizeAxis(axis, rank));
      axes.push_back(normalized);
    }
  } else {
    const int64_t count = spec.s ? static_cast<int64_t>(spec.s->size()) : rank;
    for (int64_t axis = -count; axis < 0; ++axis) {
      AH_ASSIGN_OR_RETURN(int64_t normalized, NormalizeAxis(axis, rank));
      axes.push_back(normalized);
    }
  }
  if (spec.s && spec.s->size() != axes.size()) {
    return absl::InvalidArgumentError("Shape and axes have different lengths.");
  }
  if ((spec.op == FftOp::kHfft || spec.op == FftOp::kIhfft) && axes.size() != 1) {
    return absl::InvalidArgumentError(
        fmt::format("{} transforms exactly one axis, got {}", OpName(spec.op), axes.size()));
  }
  if ((RealInput(spec.op) || RealOutput(spec.op)) && axes.empty()) {
    return absl::InvalidArgumentError(
        fmt::format("list index out of range: {}n transforms at least one axis", OpName(spec.op)));
  }
  std::vector<int64_t> lengths(axes.size());
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t extent = shape[axes[i]];
    if (spec.s && (*spec.s)[i] != -1) {
      lengths[i] = (*spec.s)[i];
    } else if (!spec.s && RealOutput(spec.op) && i + 1 == axes.size()) {
      lengths[i] = (extent - 1) * 2;
    } else {
      lengths[i] = extent;
    }
  }

  // numpy.fft's n-dimensional functions: the real axis first for rfftn, last for irfftn; the
  // complex axes last to first.
  std::vector<size_t> order;
  if (RealOutput(spec.op)) {
    for (size_t i = 0; i < axes.size(); ++i) order.push_back(i);
  } else {
    for (size_t i = axes.size(); i-- > 0;) order.push_back(i);
  }

  const bool swap_norm = spec.op == FftOp::kHfft || spec.op == FftOp::kIhfft;
  FftPlan plan;
  plan.real_dtype = dtype == DType::kFloat16 || RealDType(dtype) == DType::kFloat32
                        ? DType::kFloat32
                        : DType::kFloat64;
  plan.result_shape = shape;
  for (size_t i : order) {
    const FftStep step = StepOf(spec.op, i, axes.size(), axes[i], lengths[i]);
    if (step.n < 1) {
      return absl::InvalidArgumentError(
          fmt::format("Invalid number of FFT data points ({}) specified.", step.n));
    }
    std::optional<Norm> norm = NormFromName(spec.norm);
    if (!norm) {
      return absl::InvalidArgumentError(fmt::format(
          "Invalid norm value {}; should be \"backward\",\"ortho\" or \"forward\".", spec.norm));
    }
    if (swap_norm && *norm != Norm::kOrtho) {
      norm = *norm == Norm::kBackward ? Norm::kForward : Norm::kBackward;
    }
    if (step.kind == FftKind::kRealToComplex && IsComplex(dtype)) {
      return absl::InvalidArgumentError(
          fmt::format("ufunc 'rfft_n_{}' not supported for the input types, and the inputs "
                      "could not be safely coerced to any supported types according to the "
                      "casting rule ''safe''",
                      step.n % 2 == 0 ? "even" : "odd"));
    }
    plan.scale *= ScaleOf(*norm, step.forward, step.n, dtype == DType::kFloat16);
    plan.result_shape[step.axis] = step.output_length;
    plan.steps.push_back(step);
  }
  if (plan.steps.empty()) {
    plan.result_dtype = dtype;
  } else if (RealOutput(spec.op)) {
    plan.result_dtype = dtype == DType::kFloat16 ? dtype : plan.real_dtype;
  } else {
    plan.result_dtype = plan.real_dtype == DType::kFloat32 ? DType::kComplex64 : DType::kComplex128;
  }
  return plan;
}

}  // namespace arrayhub
