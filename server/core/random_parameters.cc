#include "server/core/random_parameters.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "server/common/scalar.h"
#include "server/core/creation.h"

namespace arrayhub {
namespace {

bool Counts(RandomDistribution d) {
  return d == RandomDistribution::kBinomial || d == RandomDistribution::kPoisson ||
         d == RandomDistribution::kGeometric || d == RandomDistribution::kNegativeBinomial;
}

// NumPy's POISSON_LAM_MAX: larger means would overflow int64 counts.
const double kPoissonLamMax =
    static_cast<double>(std::numeric_limits<int64_t>::max()) -
    std::sqrt(static_cast<double>(std::numeric_limits<int64_t>::max())) * 10;

// The message of the first parameter outside its domain, as NumPy words it, or "" when all lie
// inside. NaN fails the comparisons NumPy makes with "or ... NaN" in its message; elsewhere it
// reaches the finiteness check.
std::string_view DomainError(const RandomKind& r) {
  const double a = r.low;
  const double b = r.high;
  switch (r.distribution) {
    case RandomDistribution::kUniform:
    case RandomDistribution::kIntegers:
    case RandomDistribution::kStandardCauchy:
      return "";
    case RandomDistribution::kNormal:
    case RandomDistribution::kExponential:
    case RandomDistribution::kLaplace:
    case RandomDistribution::kLogistic:
    case RandomDistribution::kGumbel:
    case RandomDistribution::kRayleigh:
      return b < 0 ? "scale < 0" : "";
    case RandomDistribution::kGamma:
      return a < 0 ? "shape < 0" : b < 0 ? "scale < 0" : "";
    case RandomDistribution::kBeta:
      return a <= 0 ? "a <= 0" : b <= 0 ? "b <= 0" : "";
    case RandomDistribution::kBinomial:
      if (r.int_high < 0) return "n < 0";
      return b >= 0 && b <= 1 ? "" : "p < 0, p > 1 or p is NaN";
    case RandomDistribution::kPoisson:
      if (!(b >= 0)) return "lam < 0 or lam is NaN";
      return b > kPoissonLamMax ? "lam value too large" : "";
    case RandomDistribution::kLognormal:
      return b < 0 ? "sigma < 0" : "";
    case RandomDistribution::kStandardT:
    case RandomDistribution::kChisquare:
      return b <= 0 ? "df <= 0" : "";
    case RandomDistribution::kGeometric:
      return b > 0 && b <= 1 ? "" : "p <= 0, p > 1 or p contains NaNs";
    case RandomDistribution::kWeibull:
      return b < 0 ? "a < 0" : "";
    case RandomDistribution::kPareto:
    case RandomDistribution::kPower:
      return b <= 0 ? "a <= 0" : "";
    case RandomDistribution::kF:
      return a <= 0 ? "dfnum <= 0" : b <= 0 ? "dfden <= 0" : "";
    case RandomDistribution::kNegativeBinomial:
      if (a <= 0) return "n <= 0";
      return b > 0 && b <= 1 ? "" : "p <= 0, p > 1 or p contains NaNs";
    case RandomDistribution::kWald:
      return a <= 0 ? "mean <= 0" : b <= 0 ? "scale <= 0" : "";
  }
  return "";
}

}  // namespace

absl::StatusOr<DType> RandomDType(RandomDistribution distribution, std::optional<DType> requested) {
  const bool integers = distribution == RandomDistribution::kIntegers;
  const bool counts = Counts(distribution);
  const DType dtype = requested.value_or(integers || counts ? DType::kInt64 : DType::kFloat64);
  const bool fits = integers ? IsInteger(dtype) || dtype == DType::kBool
                    : counts ? dtype == DType::kInt64
                             : IsFloating(dtype);
  if (fits) return dtype;
  return absl::InvalidArgumentError(fmt::format("Unsupported dtype {} for {}", DTypeName(dtype),
                                                integers ? "integers"
                                                : counts ? "random counts"
                                                         : "random"));
}

absl::Status CheckRandomParameters(const RandomKind& r, DType dtype) {
  if (r.distribution == RandomDistribution::kIntegers) {
    if (r.int_low >= r.int_high) return absl::InvalidArgumentError("low >= high");
    // Bounds are checked as NumPy does: low must be a value of the dtype, high - 1 too.
    if (!EncodeScalar(Scalar::Int(r.int_low), dtype).ok()) {
      return absl::InvalidArgumentError(
          fmt::format("low is out of bounds for {}", DTypeName(dtype)));
    }
    if (!EncodeScalar(Scalar::Int(r.int_high - 1), dtype).ok()) {
      return absl::InvalidArgumentError(
          fmt::format("high is out of bounds for {}", DTypeName(dtype)));
    }
    return absl::OkStatus();
  }
  if (const std::string_view error = DomainError(r); !error.empty()) {
    return absl::InvalidArgumentError(std::string(error));
  }
  if (!std::isfinite(r.low) || !std::isfinite(r.high)) {
    return absl::InvalidArgumentError("random bounds and parameters must be finite");
  }
  return absl::OkStatus();
}

}  // namespace arrayhub
