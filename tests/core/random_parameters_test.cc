// The checks of random creations' dtypes and parameters, with NumPy 2.4's messages (each
// taken from numpy.random.default_rng().<name>(<arguments>)).
#include "server/core/random_parameters.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "server/core/creation.h"

namespace arrayhub {
namespace {

RandomKind Kind(RandomDistribution distribution, double low, double high, int64_t n = 0) {
  return {.distribution = distribution,
          .low = low,
          .high = high,
          .int_low = 0,
          .int_high = n,
          .seed = std::nullopt};
}

TEST(RandomParametersTest, OutsideTheDomainIsNumpysValueError) {
  using D = RandomDistribution;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  struct Case {
    RandomKind kind;
    std::string message;  // NumPy's expression in the comment
  };
  const std::vector<Case> cases = {
      {Kind(D::kNormal, 0, -1), "scale < 0"},                             // normal(0, -1)
      {Kind(D::kExponential, 0, -1), "scale < 0"},                        // exponential(-1)
      {Kind(D::kGamma, -1, 1), "shape < 0"},                              // gamma(-1)
      {Kind(D::kGamma, 1, -1), "scale < 0"},                              // gamma(1, -1)
      {Kind(D::kBeta, 0, 1), "a <= 0"},                                   // beta(0, 1)
      {Kind(D::kBeta, 1, 0), "b <= 0"},                                   // beta(1, 0)
      {Kind(D::kBinomial, 0, 0.5, -1), "n < 0"},                          // binomial(-1, .5)
      {Kind(D::kBinomial, 0, 1.1, 3), "p < 0, p > 1 or p is NaN"},        // binomial(3, 1.1)
      {Kind(D::kBinomial, 0, -0.1, 3), "p < 0, p > 1 or p is NaN"},       // binomial(3, -.1)
      {Kind(D::kBinomial, 0, nan, 3), "p < 0, p > 1 or p is NaN"},        // binomial(3, nan)
      {Kind(D::kPoisson, 0, -1), "lam < 0 or lam is NaN"},                // poisson(-1)
      {Kind(D::kPoisson, 0, nan), "lam < 0 or lam is NaN"},               // poisson(nan)
      {Kind(D::kPoisson, 0, 1e19), "lam value too large"},                // poisson(1e19)
      {Kind(D::kLognormal, 0, -1), "sigma < 0"},                          // lognormal(0, -1)
      {Kind(D::kStandardT, 0, 0), "df <= 0"},                             // standard_t(0)
      {Kind(D::kChisquare, 0, -2), "df <= 0"},                            // chisquare(-2)
      {Kind(D::kGeometric, 0, 0), "p <= 0, p > 1 or p contains NaNs"},    // geometric(0)
      {Kind(D::kGeometric, 0, 1.5), "p <= 0, p > 1 or p contains NaNs"},  // geometric(1.5)
      {Kind(D::kGeometric, 0, nan), "p <= 0, p > 1 or p contains NaNs"},  // geometric(nan)
      {Kind(D::kLaplace, 0, -1), "scale < 0"},                            // laplace(0, -1)
      {Kind(D::kLogistic, 0, -1), "scale < 0"},                           // logistic(0, -1)
      {Kind(D::kGumbel, 0, -1), "scale < 0"},                             // gumbel(0, -1)
      {Kind(D::kWeibull, 0, -1), "a < 0"},                                // weibull(-1)
      {Kind(D::kPareto, 0, 0), "a <= 0"},                                 // pareto(0)
      {Kind(D::kRayleigh, 0, -1), "scale < 0"},                           // rayleigh(-1)
      {Kind(D::kPower, 0, 0), "a <= 0"},                                  // power(0)
      {Kind(D::kF, 0, 1), "dfnum <= 0"},                                  // f(0, 1)
      {Kind(D::kF, 1, 0), "dfden <= 0"},                                  // f(1, 0)
      {Kind(D::kNegativeBinomial, 0, 0.5), "n <= 0"},  // negative_binomial(0, .5)
      {Kind(D::kNegativeBinomial, 1, 0), "p <= 0, p > 1 or p contains NaNs"},  // (1, 0)
      {Kind(D::kWald, 0, 1), "mean <= 0"},                                     // wald(0, 1)
      {Kind(D::kWald, 1, 0), "scale <= 0"},                                    // wald(1, 0)
      {Kind(D::kExponential, 0, std::numeric_limits<double>::infinity()),      // differs: NumPy inf
       "random bounds and parameters must be finite"},
      {Kind(D::kGamma, nan, 1), "random bounds and parameters must be finite"},  // NumPy: nan
  };
  for (const Case& c : cases) {
    absl::StatusOr<DType> dtype = RandomDType(c.kind.distribution, std::nullopt);
    ASSERT_TRUE(dtype.ok()) << dtype.status();
    const absl::Status status = CheckRandomParameters(c.kind, *dtype);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.message;
    EXPECT_EQ(status.message(), c.message);
  }
  // The edges of the domains are inside them, as in NumPy.
  for (const RandomKind& kind :
       {Kind(D::kGamma, 0, 0), Kind(D::kBinomial, 0, 1, 0), Kind(D::kPoisson, 0, 0),
        Kind(D::kGeometric, 0, 1), Kind(D::kWeibull, 0, 0), Kind(D::kStandardCauchy, 0, 0)}) {
    EXPECT_TRUE(CheckRandomParameters(kind, *RandomDType(kind.distribution, std::nullopt)).ok());
  }
}

TEST(RandomParametersTest, CountsAreInt64AndTheOthersFloats) {
  EXPECT_EQ(*RandomDType(RandomDistribution::kPoisson, std::nullopt), DType::kInt64);
  EXPECT_EQ(*RandomDType(RandomDistribution::kNegativeBinomial, std::nullopt), DType::kInt64);
  EXPECT_EQ(*RandomDType(RandomDistribution::kGamma, std::nullopt), DType::kFloat64);
  EXPECT_EQ(*RandomDType(RandomDistribution::kBeta, DType::kFloat32), DType::kFloat32);
  EXPECT_EQ(RandomDType(RandomDistribution::kBinomial, DType::kFloat64).status().message(),
            "Unsupported dtype float64 for random counts");
  EXPECT_EQ(RandomDType(RandomDistribution::kGamma, DType::kInt32).status().message(),
            "Unsupported dtype int32 for random");
  EXPECT_EQ(RandomDType(RandomDistribution::kIntegers, DType::kFloat32).status().message(),
            "Unsupported dtype float32 for integers");
}

}  // namespace
}  // namespace arrayhub
