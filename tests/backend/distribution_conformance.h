// The distributions beyond uniform, normal and integers on every backend: each one's sample
// mean and variance against its exact moments, the same values for the same seed and others for
// another. 1e5 samples on the host (fast), 1e6 on CUDA (label gpu).
#pragma once

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "server/backend/random_samplers.h"
#include "tests/backend/random_conformance.h"

namespace arrayhub {

struct DistributionCase {
  std::string name;
  RandomDistribution distribution;
  double low = 0;  // RandomCall's parameters
  double high = 0;
  int64_t trials = 0;
  double mean = 0;  // exact moments
  double variance = 0;
};

// Parameters with finite fourth moments, so that the sample variance converges as 1 / sqrt(n).
inline std::vector<DistributionCase> DistributionCases() {
  using D = RandomDistribution;
  constexpr double pi = std::numbers::pi;
  constexpr double euler = std::numbers::egamma;
  return {
      {"exponential(2)", D::kExponential, 0, 2, 0, 2, 4},
      {"gamma(3)", D::kGamma, 3, 1, 0, 3, 3},
      {"gamma(2.5, 2)", D::kGamma, 2.5, 2, 0, 5, 10},
      {"gamma(0.5)", D::kGamma, 0.5, 1, 0, 0.5, 0.5},  // shape < 1: the boosted path
      {"beta(2, 3)", D::kBeta, 2, 3, 0, 0.4, 0.04},
      {"beta(0.5, 0.5)", D::kBeta, 0.5, 0.5, 0, 0.5, 0.125},          // Johnk's algorithm
      {"binomial(20, 0.3)", D::kBinomial, 0, 0.3, 20, 6, 4.2},        // inversion
      {"binomial(1000, 0.4)", D::kBinomial, 0, 0.4, 1000, 400, 240},  // BTRS
      {"binomial(100, 0.9)", D::kBinomial, 0, 0.9, 100, 90, 9},       // n - X, BTRS
      {"poisson(3)", D::kPoisson, 0, 3, 0, 3, 3},                     // multiplication
      {"poisson(50)", D::kPoisson, 0, 50, 0, 50, 50},                 // PTRS
      {"lognormal(0.5, 0.5)", D::kLognormal, 0.5, 0.5, 0, std::exp(0.625),
       (std::exp(0.25) - 1) * std::exp(1.25)},
      {"standard_t(10)", D::kStandardT, 0, 10, 0, 0, 1.25},
      {"chisquare(4)", D::kChisquare, 0, 4, 0, 4, 8},
      {"geometric(0.5)", D::kGeometric, 0, 0.5, 0, 2, 2},    // search
      {"geometric(0.1)", D::kGeometric, 0, 0.1, 0, 10, 90},  // inversion
      {"laplace(1, 2)", D::kLaplace, 1, 2, 0, 1, 8},
      {"logistic(1, 2)", D::kLogistic, 1, 2, 0, 1, 4 * pi * pi / 3},
      {"gumbel(1, 2)", D::kGumbel, 1, 2, 0, 1 + 2 * euler, 4 * pi * pi / 6},
      {"weibull(2)", D::kWeibull, 0, 2, 0, std::sqrt(pi) / 2, 1 - pi / 4},
      {"pareto(20)", D::kPareto, 0, 20, 0, 1.0 / 19, 20.0 / (19 * 19 * 18)},
      {"rayleigh(2)", D::kRayleigh, 0, 2, 0, 2 * std::sqrt(pi / 2), (4 - pi) / 2 * 4},
      {"power(3)", D::kPower, 0, 3, 0, 0.75, 3.0 / 80},
      {"f(5, 20)", D::kF, 5, 20, 0, 20.0 / 18, 2.0 * 400 * 23 / (5 * 18 * 18 * 16)},
      {"negative_binomial(5, 0.3)", D::kNegativeBinomial, 5, 0.3, 0, 5 * 0.7 / 0.3, 5 * 0.7 / 0.09},
      {"wald(1, 3)", D::kWald, 1, 3, 0, 1, 1.0 / 3},
  };
}

template <typename Factory>
class DistributionConformanceTest : public RandomConformanceTest<Factory> {
 protected:
  static int64_t Samples() { return Factory::kName == "cuda" ? 1'000'000 : 100'000; }
};

TYPED_TEST_SUITE_P(DistributionConformanceTest);

TYPED_TEST_P(DistributionConformanceTest, MomentsMatchAndSeedsRepeat) {
  const int64_t n = this->Samples();
  for (const DistributionCase& c : DistributionCases()) {
    const bool counts = samplers::IsCount(c.distribution);
    // float32 too for the gamma family, whose rejection loop runs in double either way.
    std::vector<DType> dtypes = {counts ? DType::kInt64 : DType::kFloat64};
    if (c.distribution == RandomDistribution::kGamma) dtypes.push_back(DType::kFloat32);
    for (DType dtype : dtypes) {
      RandomCall call = Floats(c.distribution, c.low, c.high, testing::BaseSeed());
      call.int_high = c.trials;
      absl::StatusOr<Bytes> a = this->Fill(call, dtype, n);
      absl::StatusOr<Bytes> b = this->Fill(call, dtype, n);
      RandomCall other = call;
      other.seed += 1;
      absl::StatusOr<Bytes> d = this->Fill(other, dtype, n);
      ASSERT_TRUE(a.ok() && b.ok() && d.ok()) << c.name << ": " << a.status();
      EXPECT_TRUE(*a == *b) << c.name << ": same seed, different values";
      EXPECT_FALSE(*a == *d) << c.name << ": different seeds, same values";
      const Moments m = MomentsOf(dtype, *a, n);
      // Six standard errors of the mean; the variance within about six of its relative
      // standard errors, sqrt((kurtosis + 2) / n), for kurtosis up to 9 (pareto(20)).
      EXPECT_NEAR(m.mean, c.mean, 6 * std::sqrt(c.variance / n))
          << c.name << " " << DTypeName(dtype) << testing::SeedNote();
      EXPECT_NEAR(m.variance / c.variance, 1.0, 20 / std::sqrt(n))
          << c.name << " " << DTypeName(dtype) << testing::SeedNote();
      if (counts) {
        EXPECT_GE(m.min, c.distribution == RandomDistribution::kGeometric ? 1 : 0) << c.name;
      }
      if (c.distribution == RandomDistribution::kBinomial) {
        EXPECT_LE(m.max, c.trials) << c.name;
      }
    }
  }
}

TYPED_TEST_P(DistributionConformanceTest, CauchyQuartilesAndTheDomainsEdges) {
  const int64_t n = this->Samples();
  absl::StatusOr<Bytes> cauchy = this->Fill(
      Floats(RandomDistribution::kStandardCauchy, 0, 0, testing::BaseSeed()), DType::kFloat64, n);
  ASSERT_TRUE(cauchy.ok()) << cauchy.status();
  std::vector<double> values(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    values[static_cast<size_t>(i)] = ValueAt(DType::kFloat64, *cauchy, i);
  std::sort(values.begin(), values.end());
  // Quartiles -1, 0, 1; a quantile's standard error is about 1.6 / sqrt(n) here.
  for (int q : {1, 2, 3}) {
    EXPECT_NEAR(values[static_cast<size_t>(n * q / 4)], q - 2, 12 / std::sqrt(n))
        << "quartile " << q << testing::SeedNote();
  }
  struct Edge {
    RandomDistribution distribution;
    double low, high;
    int64_t trials;
    DType dtype;
    double value;  // every sample's
  };
  for (const Edge& e : {Edge{RandomDistribution::kGamma, 0, 2, 0, DType::kFloat64, 0},
                        Edge{RandomDistribution::kWeibull, 0, 0, 0, DType::kFloat32, 0},
                        Edge{RandomDistribution::kPoisson, 0, 0, 0, DType::kInt64, 0},
                        Edge{RandomDistribution::kBinomial, 0, 1, 7, DType::kInt64, 7},
                        Edge{RandomDistribution::kBinomial, 0, 0.5, 0, DType::kInt64, 0},
                        Edge{RandomDistribution::kGeometric, 0, 1, 0, DType::kInt64, 1},
                        Edge{RandomDistribution::kNegativeBinomial, 2, 1, 0, DType::kInt64, 0}}) {
    RandomCall call = Floats(e.distribution, e.low, e.high, testing::BaseSeed());
    call.int_high = e.trials;
    absl::StatusOr<Bytes> values = this->Fill(call, e.dtype, 1000);
    ASSERT_TRUE(values.ok()) << values.status();
    const Moments m = MomentsOf(e.dtype, *values, 1000);
    EXPECT_EQ(m.min, e.value);
    EXPECT_EQ(m.max, e.value);
  }
}

REGISTER_TYPED_TEST_SUITE_P(DistributionConformanceTest, MomentsMatchAndSeedsRepeat,
                            CauchyQuartilesAndTheDomainsEdges);

}  // namespace arrayhub
