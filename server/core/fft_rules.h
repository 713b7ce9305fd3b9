// numpy.fft's rules: which one-dimensional transforms an fft, rfft, irfft, hfft or ihfft over
// axes `axes` with lengths `s` runs, in NumPy's order, with NumPy 2's result dtypes,
// normalization and messages.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "server/backend/fft.h"
#include "server/common/dtype.h"
#include "server/common/shape.h"
#include "server/core/compute_specs.h"

namespace arrayhub {

enum class FftOp : uint8_t { kFft, kIfft, kRfft, kIrfft, kHfft, kIhfft };

std::optional<FftOp> FftOpFromName(std::string_view name);
std::string_view OpName(FftOp op);

// The Fft request after decoding (FftRequest in compute.proto).
struct FftSpec {
  FftOp op = FftOp::kFft;
  OperandSpec input;
  std::optional<std::vector<int64_t>> axes = std::nullopt;  // Absent: NumPy's default.
  // Absent: from the input's shape; -1: whole axis.
  std::optional<std::vector<int64_t>> s = std::nullopt;
  std::string norm = {};  // "" is "backward".
};

// One backend transform along `axis`: the array before it is cut or zero-padded to
// `input_length` along the axis, and the transform gives `output_length` there.
struct FftStep {
  int64_t axis = 0;
  FftKind kind = FftKind::kComplex;
  bool forward = true;
  int64_t n = 1;
  int64_t input_length = 1;
  int64_t output_length = 1;
  bool conjugate = false;
};

struct FftPlan {
  std::vector<FftStep> steps;  // In the order they run; none for fftn over no axes.
  // The precision the transforms run in: float32 (float16, float32, complex64 inputs) or
  // float64.
  DType real_dtype = DType::kFloat64;
  // NumPy's result: complex of real_dtype, or for irfft and hfft real_dtype, except float16
  // for a float16 input; the input's own dtype when there are no steps.
  DType result_dtype = DType::kComplex128;
  Shape result_shape;
  double scale = 1;  // The product of every step's normalization, applied once.
};

// NumPy's messages: "Invalid number of FFT data points (0) specified.", "Invalid norm value
// x; should be "backward","ortho" or "forward".", "Shape and axes have different lengths.",
// AxisError's "axis 2 is out of bounds for array of dimension 1", and the TypeError of rfft
// and ihfft of a complex input.
absl::StatusOr<FftPlan> ResolveFft(const FftSpec& spec, DType dtype, const Shape& shape);

}  // namespace arrayhub
