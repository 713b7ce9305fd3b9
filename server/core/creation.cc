#include "server/core/creation.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "server/common/float16.h"
#include "server/common/status_macros.h"
#include "server/core/entropy.h"
#include "server/core/random_parameters.h"

namespace arrayhub {
namespace {

// Every element of the array set to one value.
PatternFill FillAll(int64_t count, DType dtype, const ElementBytes& value) {
  return PatternFill{.offset = 0,
                     .count = count,
                     .stride_bytes = ItemSize(dtype),
                     .pattern = value,
                     .pattern_size = ItemSize(dtype)};
}

absl::Status RequireNoShape(const CreateSpec& spec, std::string_view kind) {
  if (!spec.shape.empty()) {
    return absl::InvalidArgumentError(
        fmt::format("{} takes no shape (its length follows from its arguments); got shape {}", kind,
                    FormatShape(spec.shape)));
  }
  return absl::OkStatus();
}

bool IsIntegral(const Scalar& s) {
  return s.kind == Scalar::Kind::kBool || s.kind == Scalar::Kind::kInt ||
         s.kind == Scalar::Kind::kUInt;
}

__int128 AsInt128(const Scalar& s) {
  switch (s.kind) {
    case Scalar::Kind::kBool:
      return s.b ? 1 : 0;
    case Scalar::Kind::kUInt:
      return static_cast<__int128>(s.u);
    default:
      return s.i;
  }
}

// A Scalar holding an exact integer that may exceed int64 (but fits uint64 or int64).
absl::StatusOr<Scalar> ScalarFromInt128(__int128 v) {
  if (v >= std::numeric_limits<int64_t>::min() && v <= std::numeric_limits<int64_t>::max()) {
    return Scalar::Int(static_cast<int64_t>(v));
  }
  if (v > 0 && v <= static_cast<__int128>(std::numeric_limits<uint64_t>::max())) {
    return Scalar::UInt(static_cast<uint64_t>(v));
  }
  return absl::InvalidArgumentError("arange: bound out of the range of 64-bit integers");
}

// The int64 bit pattern of an encoded integer element (wrapping for uint64), for AffineFill.
int64_t DecodeInteger(const ElementBytes& bytes, DType dtype) {
  const bool is_signed = KindOf(dtype) == DTypeKind::kSigned;
  const int64_t size = ItemSize(dtype);
  uint64_t raw = 0;
  for (int64_t i = size - 1; i >= 0; --i) raw = (raw << 8) | static_cast<uint8_t>(bytes[i]);
  if (is_signed && size < 8 && (raw >> (size * 8 - 1)) & 1) raw |= ~uint64_t{0} << (size * 8);
  return static_cast<int64_t>(raw);
}

absl::StatusOr<CreationPlan> PlanArange(const CreateSpec& spec, const ArangeKind& a,
                                        const Limits& limits) {
  AH_RETURN_IF_ERROR(RequireNoShape(spec, "arange"));
  const Scalar step = a.step.value_or(Scalar::Int(1));
  for (const Scalar* s : {&a.start, &a.stop, &step}) {
    if (s->kind == Scalar::Kind::kComplex) {
      return absl::InvalidArgumentError("arange does not accept complex bounds or steps");
    }
  }
  // NumPy computes the length (and start + step) with exact Python ints...
  const bool integral = IsIntegral(a.start) && IsIntegral(a.stop) && IsIntegral(step);

  // Length, as NumPy: ceil((stop - start) / step), at least 0.
  int64_t length = 0;
  // start + step, the element NumPy writes before filling; with fewer than two elements there
  // is none, and start + step may leave 64 bits (arange(-1, 0, -2**63) is empty in NumPy).
  Scalar second = a.start;
  if (integral) {
    const __int128 start = AsInt128(a.start), stop = AsInt128(a.stop), delta = AsInt128(step);
    if (delta == 0) return absl::InvalidArgumentError("arange: step must not be zero");
    __int128 span = stop - start;
    __int128 n = span / delta + ((span % delta != 0) && ((span > 0) == (delta > 0)) ? 1 : 0);
    length = n > 0
                 ? static_cast<int64_t>(std::min<__int128>(n, std::numeric_limits<int64_t>::max()))
                 : 0;
    if (length > 1) {
      AH_ASSIGN_OR_RETURN(second, ScalarFromInt128(start + delta));
    }
  } else {
    const double start = a.start.AsComplex().real(), stop = a.stop.AsComplex().real(),
                 delta = step.AsComplex().real();
    if (delta == 0.0) return absl::InvalidArgumentError("arange: step must not be zero");
    const double n = std::ceil((stop - start) / delta);
    if (!std::isfinite(n)) return absl::InvalidArgumentError("arange: cannot compute length");
    if (n >= 9.2e18) return absl::InvalidArgumentError("arange: maximum allowed size exceeded");
    length = n > 0 ? static_cast<int64_t>(n) : 0;
    second = Scalar::Float(start + delta);
  }

  DType dtype = DType::kFloat64;
  if (spec.dtype) {
    dtype = *spec.dtype;
  } else if (integral && a.start.kind != Scalar::Kind::kUInt &&
             a.stop.kind != Scalar::Kind::kUInt && step.kind != Scalar::Kind::kUInt) {
    // ...but a bound above INT64_MAX meets its intp in promotion and gives float64.
    dtype = DType::kInt64;
  }
  const Shape shape = {length};
  AH_ASSIGN_OR_RETURN(int64_t nbytes, CheckedArrayBytes(shape, dtype, limits));
  CreationPlan plan{.dtype = dtype, .shape = shape, .nbytes = nbytes, .steps = {}};
  if (length == 0) return plan;

  // NumPy stores start and start + step as elements (checked like any assignment), then
  // fills the rest from those two in the dtype's arithmetic.
  AH_ASSIGN_OR_RETURN(ElementBytes first_bytes, EncodeScalar(a.start, dtype));
  ElementBytes second_bytes = first_bytes;
  if (length > 1) {
    AH_ASSIGN_OR_RETURN(second_bytes, EncodeScalar(second, dtype));
  }
  if (dtype == DType::kBool) {
    if (length > 2) {
      return absl::InvalidArgumentError(
          "arange of dtype bool supports at most 2 elements (NumPy has no bool fill function)");
    }
    plan.steps.push_back(PatternFill{
        .offset = 0, .count = 1, .stride_bytes = 1, .pattern = first_bytes, .pattern_size = 1});
    if (length == 2) {
      plan.steps.push_back(PatternFill{
          .offset = 1, .count = 1, .stride_bytes = 1, .pattern = second_bytes, .pattern_size = 1});
    }
    return plan;
  }

  AffineFill fill{.dtype = dtype, .count = length};
  if (IsInteger(dtype)) {
    fill.int_start = DecodeInteger(first_bytes, dtype);
    fill.int_step = static_cast<int64_t>(static_cast<uint64_t>(DecodeInteger(second_bytes, dtype)) -
                                         static_cast<uint64_t>(fill.int_start));
  } else {
    const double v0 = a.start.AsComplex().real();
    const double v1 = second.AsComplex().real();
    switch (dtype) {
      case DType::kFloat16: {  // NumPy's HALF_fill: delta in float from the two halves.
        const float h0 = HalfFromDouble(v0);
        const float h1 = HalfFromDouble(v1);
        fill.start = h0;
        fill.step = h1 - h0;
        break;
      }
      case DType::kFloat32:
      case DType::kComplex64: {
        const float f0 = static_cast<float>(v0), f1 = static_cast<float>(v1);
        fill.start = f0;
        fill.step = f1 - f0;
        break;
      }
      default:
        fill.start = v0;
        fill.step = v1 - v0;
        break;
    }
  }
  plan.steps.push_back(fill);
  return plan;
}

absl::StatusOr<CreationPlan> PlanLinspace(const CreateSpec& spec, const LinspaceKind& l,
                                          const Limits& limits) {
  AH_RETURN_IF_ERROR(RequireNoShape(spec, "linspace"));
  if (l.num < 0) {
    return absl::InvalidArgumentError(
        fmt::format("Number of samples, {}, must be non-negative.", l.num));
  }
  const bool complex_bounds =
      l.start.kind == Scalar::Kind::kComplex || l.stop.kind == Scalar::Kind::kComplex;
  const DType dtype = spec.dtype.value_or(complex_bounds ? DType::kComplex128 : DType::kFloat64);
  if (complex_bounds && IsInteger(dtype)) {
    return absl::InvalidArgumentError(fmt::format(
        "linspace with complex bounds cannot produce {} (floor is not defined for complex)",
        DTypeName(dtype)));
  }
  const Shape shape = {l.num};
  AH_ASSIGN_OR_RETURN(int64_t nbytes, CheckedArrayBytes(shape, dtype, limits));
  CreationPlan plan{.dtype = dtype, .shape = shape, .nbytes = nbytes, .steps = {}};
  if (l.num == 0) return plan;

  const std::complex<double> start = l.start.AsComplex(), stop = l.stop.AsComplex();
  const int64_t div = l.endpoint ? l.num - 1 : l.num;
  const std::complex<double> step = div > 0 ? (stop - start) / static_cast<double>(div) : 0.0;
  const bool exact_end = l.endpoint && l.num > 1;
  const std::complex<double> last =
      exact_end ? stop : static_cast<double>(l.num - 1) * step + start;

  // Integer results are the floor of the float64 values; both ends must fit the dtype (the
  // sequence is monotonic, so then every element does).
  auto element = [&](std::complex<double> v) {
    return IsInteger(dtype) ? Scalar::Float(std::floor(v.real())) : Scalar::Complex(v);
  };
  AH_RETURN_IF_ERROR(EncodeScalar(element(start), dtype).status());
  AH_ASSIGN_OR_RETURN(ElementBytes last_bytes, EncodeScalar(element(last), dtype));

  plan.steps.push_back(AffineFill{
      .dtype = dtype, .count = l.num, .start = start, .step = step, .float64_math = true});
  if (exact_end) {  // NumPy sets the last sample to stop exactly.
    plan.steps.push_back(PatternFill{.offset = (l.num - 1) * ItemSize(dtype),
                                     .count = 1,
                                     .stride_bytes = ItemSize(dtype),
                                     .pattern = last_bytes,
                                     .pattern_size = ItemSize(dtype)});
  }
  return plan;
}

absl::StatusOr<CreationPlan> PlanEye(const CreateSpec& spec, const EyeKind& e,
                                     const Limits& limits) {
  AH_RETURN_IF_ERROR(RequireNoShape(spec, "eye"));
  const DType dtype = spec.dtype.value_or(DType::kFloat64);
  const int64_t n = e.n, m = e.m.value_or(e.n);
  const Shape shape = {n, m};
  AH_ASSIGN_OR_RETURN(int64_t nbytes, CheckedArrayBytes(shape, dtype, limits));
  AH_ASSIGN_OR_RETURN(ElementBytes zero, EncodeScalar(Scalar::Int(0), dtype));
  AH_ASSIGN_OR_RETURN(ElementBytes one, EncodeScalar(Scalar::Int(1), dtype));
  CreationPlan plan{.dtype = dtype, .shape = shape, .nbytes = nbytes, .steps = {}};
  plan.steps.push_back(FillAll(n * m, dtype, zero));
  // Diagonal k starts at (0, k) above the main one and at (-k, 0) below it.
  // A diagonal entirely outside the matrix (also k = INT64_MIN, whose negation overflows) is
  // empty.
  if (e.k >= m || e.k <= -n) return plan;
  const int64_t row0 = e.k >= 0 ? 0 : -e.k;
  const int64_t col0 = e.k >= 0 ? e.k : 0;
  const int64_t length = std::min(n - row0, m - col0);
  if (length > 0) {
    plan.steps.push_back(PatternFill{.offset = (row0 * m + col0) * ItemSize(dtype),
                                     .count = length,
                                     .stride_bytes = (m + 1) * ItemSize(dtype),
                                     .pattern = one,
                                     .pattern_size = ItemSize(dtype)});
  }
  return plan;
}

// Random arrays, with the dtypes and checks of numpy.random.Generator (float16 is accepted
// too, as CuPy does).
absl::StatusOr<CreationPlan> PlanRandom(const CreateSpec& spec, const RandomKind& r,
                                        const Limits& limits) {
  AH_ASSIGN_OR_RETURN(const DType dtype, RandomDType(r.distribution, spec.dtype));
  AH_RETURN_IF_ERROR(CheckRandomParameters(r, dtype));
  AH_ASSIGN_OR_RETURN(int64_t nbytes, CheckedArrayBytes(spec.shape, dtype, limits));
  CreationPlan plan{.dtype = dtype, .shape = spec.shape, .nbytes = nbytes, .steps = {}};
  RandomCall call{.distribution = r.distribution,
                  .low = r.low,
                  .high = r.high,
                  .int_low = r.int_low,
                  .int_high = r.int_high,
                  .seed = r.seed.value_or(RandomSeed())};
  plan.steps.push_back(RandomFill{call});
  return plan;
}

// empty, zeros, ones and full: the shape comes from the request.
absl::StatusOr<CreationPlan> PlanShaped(const CreateSpec& spec, DType dtype,
                                        std::optional<Scalar> value, const Limits& limits) {
  AH_ASSIGN_OR_RETURN(int64_t nbytes, CheckedArrayBytes(spec.shape, dtype, limits));
  CreationPlan plan{.dtype = dtype, .shape = spec.shape, .nbytes = nbytes, .steps = {}};
  if (value) {
    AH_ASSIGN_OR_RETURN(ElementBytes bytes, EncodeScalar(*value, dtype));
    plan.steps.push_back(FillAll(nbytes / ItemSize(dtype), dtype, bytes));
  }
  return plan;
}

absl::StatusOr<CreationPlan> PlanData(const CreateSpec& spec, const DataKind& kind,
                                      const Limits& limits) {
  if (!spec.dtype.has_value()) {
    return absl::InvalidArgumentError("create.data needs a dtype: the bytes do not say theirs");
  }
  const auto sent = static_cast<int64_t>(kind.bytes.size());
  if (sent > limits.max_inline_create_bytes) {
    return absl::InvalidArgumentError(
        fmt::format("create.data has {} bytes; the server takes at most {} inline "
                    "(--max-inline-create-bytes): upload larger arrays",
                    sent, limits.max_inline_create_bytes));
  }
  AH_ASSIGN_OR_RETURN(CreationPlan plan, PlanShaped(spec, *spec.dtype, std::nullopt, limits));
  if (sent != plan.nbytes) {
    return absl::InvalidArgumentError(
        fmt::format("create.data has {} bytes; a {} array of shape {} holds {}", sent,
                    DTypeName(plan.dtype), FormatShape(plan.shape), plan.nbytes));
  }
  if (sent > 0) plan.steps.push_back(HostBytesFill{std::as_bytes(std::span(kind.bytes))});
  return plan;
}

}  // namespace

absl::StatusOr<CreationPlan> PlanCreation(const CreateSpec& spec, const Limits& limits) {
  const DType fallback = spec.dtype.value_or(DType::kFloat64);
  return std::visit(
      [&](const auto& kind) -> absl::StatusOr<CreationPlan> {
        using Kind = std::decay_t<decltype(kind)>;
        if constexpr (std::is_same_v<Kind, EmptyKind>) {
          return PlanShaped(spec, fallback, std::nullopt, limits);
        } else if constexpr (std::is_same_v<Kind, ZerosKind>) {
          return PlanShaped(spec, fallback, Scalar::Int(0), limits);
        } else if constexpr (std::is_same_v<Kind, OnesKind>) {
          return PlanShaped(spec, fallback, Scalar::Int(1), limits);
        } else if constexpr (std::is_same_v<Kind, FullKind>) {
          return PlanShaped(spec, spec.dtype.value_or(DefaultDType(kind.value)), kind.value,
                            limits);
        } else if constexpr (std::is_same_v<Kind, ArangeKind>) {
          return PlanArange(spec, kind, limits);
        } else if constexpr (std::is_same_v<Kind, LinspaceKind>) {
          return PlanLinspace(spec, kind, limits);
        } else if constexpr (std::is_same_v<Kind, RandomKind>) {
          return PlanRandom(spec, kind, limits);
        } else if constexpr (std::is_same_v<Kind, DataKind>) {
          return PlanData(spec, kind, limits);
        } else {
          return PlanEye(spec, kind, limits);
        }
      },
      spec.kind);
}

}  // namespace arrayhub
