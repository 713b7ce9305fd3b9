// The algorithms that turn uniform and normal draws into the other distributions of
// numpy.random, written once for both backends: the host calls them on its mt19937_64 stream
// (host_random.cc), the CUDA backend per element on a cuRAND Philox state
// (cuda/cuda_distributions.cu). `Source` has `double Uniform()` in [0, 1) and
// `double Normal()`, standard normal. Rejection loops run a small expected number of rounds
// (at most about 1.3 for gamma, beta, binomial and poisson) whatever the parameters; the
// inversion loops run only where their expected length is below about 10.
//
//  - standard_gamma: Marsaglia and Tsang (2000) for shape >= 1; for shape < 1,
//    gamma(shape + 1) * U^(1 / shape); shape 0 gives 0 (as NumPy).
//  - beta: Johnk's algorithm when a, b <= 1 (NumPy's, with its log-space step when both
//    powers underflow), else X / (X + Y) of two gammas.
//  - binomial: exact in both regimes, with p' = min(p, 1 - p) (and n - X for p > 1/2):
//    inversion of the cumulative distribution (NumPy's random_binomial_inversion) when
//    n p' < 10; otherwise Hoermann's BTRS, transformed rejection with squeeze ("The
//    generation of binomial random variates", 1993), whose acceptance test compares with the
//    exact log-probability ratio through Stirling's series with its tail tabulated.
//  - poisson: multiplication of uniforms when lam < 10, else Hoermann's PTRS (1993), exact,
//    as NumPy.
//  - chisquare = 2 standard_gamma(df / 2); standard_t = normal * sqrt(df / 2) /
//    sqrt(standard_gamma(df / 2)); f = (chisquare(dfnum) / dfnum) / (chisquare(dfden) /
//    dfden); lognormal = exp(normal); standard_cauchy = normal / normal; negative_binomial =
//    poisson(gamma(n, (1 - p) / p)) (saturating at INT64_MAX, as geometric, where that mean
//    passes int64); wald by Michael, Schucany and Haas's transformation (NumPy's).
//  - exponential, geometric (p < 1/3), gumbel, laplace, logistic, pareto (Lomax), power,
//    rayleigh, weibull: inversion of the cumulative distribution, with NumPy's formulas; geometric
//    with p >= 1/3 by sequential search.
#pragma once

#include <math.h>

#include <cstdint>

#include "server/backend/random_distribution.h"

#ifdef __CUDACC__
#define AH_SAMPLER __host__ __device__ inline
#else
#define AH_SAMPLER inline
#endif

namespace arrayhub {
namespace samplers {

template <class Source>
AH_SAMPLER double StandardExponential(Source& s) {
  return -log1p(-s.Uniform());  // 1 - U lies in (0, 1].
}

// Uniform in (0, 1).
template <class Source>
AH_SAMPLER double OpenUniform(Source& s) {
  double u = s.Uniform();
  while (u == 0.0) u = s.Uniform();
  return u;
}

template <class Source>
AH_SAMPLER double StandardGamma(Source& s, double shape) {
  if (shape == 0.0) return 0.0;
  if (shape < 1.0) {
    // 1 - U lies in (0, 1]: a zero here would give 0 for every shape.
    return StandardGamma(s, shape + 1.0) * pow(1.0 - s.Uniform(), 1.0 / shape);
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / sqrt(9.0 * d);
  for (;;) {
    double x;
    double v;
    do {
      x = s.Normal();
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = s.Uniform();
    if (u < 1.0 - 0.0331 * (x * x) * (x * x)) return d * v;
    if (log(u) < 0.5 * x * x + d * (1.0 - v + log(v))) return d * v;
  }
}

template <class Source>
AH_SAMPLER double Beta(Source& s, double a, double b) {
  if (a <= 1.0 && b <= 1.0) {
    for (;;) {
      const double u = s.Uniform();
      const double v = s.Uniform();
      const double x = pow(u, 1.0 / a);
      const double y = pow(v, 1.0 / b);
      const double sum = x + y;
      if (sum <= 1.0 && u + v > 0.0) {
        if (sum > 0.0) return x / sum;
        // Both powers underflowed: the same ratio in logarithms.
        double log_x = log(u) / a;
        double log_y = log(v) / b;
        const double log_m = log_x > log_y ? log_x : log_y;
        log_x -= log_m;
        log_y -= log_m;
        return exp(log_x - log(exp(log_x) + exp(log_y)));
      }
    }
  }
  const double x = StandardGamma(s, a);
  const double y = StandardGamma(s, b);
  return x / (x + y);
}

// log(k!) - (k + 1/2) log(k + 1) + (k + 1) - log(sqrt(2 pi)): Stirling's series' tail.
AH_SAMPLER double StirlingTail(double k) {
  constexpr double kTable[10] = {0.0810614667953272,  0.0413406959554092, 0.0276779256849983,
                                 0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                                 0.0118967099458917,  0.0104112652619720, 0.00925546218271273,
                                 0.00833056343336287};
  if (k <= 9.0) return kTable[static_cast<int>(k)];
  const double kp1sq = (k + 1.0) * (k + 1.0);
  return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1.0);
}

// Binomial with p <= 1/2.
template <class Source>
AH_SAMPLER int64_t BinomialLowP(Source& s, int64_t n, double p) {
  const double q = 1.0 - p;
  const double dn = static_cast<double>(n);
  if (dn * p < 10.0) {
    const double qn = exp(dn * log(q));
    const double np = dn * p;
    const double bound = fmin(dn, np + 10.0 * sqrt(np * q + 1.0));
    int64_t x = 0;
    double px = qn;
    double u = s.Uniform();
    while (u > px) {
      ++x;
      if (static_cast<double>(x) > bound) {  // Lost to rounding in the tail: start again.
        x = 0;
        px = qn;
        u = s.Uniform();
      } else {
        u -= px;
        px = ((dn - static_cast<double>(x) + 1.0) * p * px) / (static_cast<double>(x) * q);
      }
    }
    return x;
  }
  const double spq = sqrt(dn * p * q);
  const double b = 1.15 + 2.53 * spq;
  const double a = -0.0873 + 0.0248 * b + 0.01 * p;
  const double c = dn * p + 0.5;
  const double v_r = 0.92 - 4.2 / b;
  const double r = p / q;
  const double alpha = (2.83 + 5.1 / b) * spq;
  const double m = floor((dn + 1.0) * p);
  for (;;) {
    const double u = s.Uniform() - 0.5;
    double v = s.Uniform();
    const double us = 0.5 - fabs(u);
    const double k = floor((2.0 * a / us + b) * u + c);
    if (!(k >= 0.0 && k <= dn)) continue;  // Also NaN and infinities at us = 0.
    if (us >= 0.07 && v <= v_r) return static_cast<int64_t>(k);
    v = log(v * alpha / (a / (us * us) + b));
    const double bound = (m + 0.5) * log((m + 1.0) / (r * (dn - m + 1.0))) +
                         (dn + 1.0) * log((dn - m + 1.0) / (dn - k + 1.0)) +
                         (k + 0.5) * log(r * (dn - k + 1.0) / (k + 1.0)) + StirlingTail(m) +
                         StirlingTail(dn - m) - StirlingTail(k) - StirlingTail(dn - k);
    if (v <= bound) return static_cast<int64_t>(k);
  }
}

template <class Source>
AH_SAMPLER int64_t Binomial(Source& s, int64_t n, double p) {
  if (n == 0 || p == 0.0) return 0;
  if (p <= 0.5) return BinomialLowP(s, n, p);
  return n - BinomialLowP(s, n, 1.0 - p);
}

template <class Source>
AH_SAMPLER int64_t Poisson(Source& s, double lam) {
  if (lam == 0.0) return 0;
  if (lam < 10.0) {
    const double limit = exp(-lam);
    int64_t x = 0;
    double product = s.Uniform();
    while (product > limit) {
      ++x;
      product *= s.Uniform();
    }
    return x;
  }
  const double slam = sqrt(lam);
  const double loglam = log(lam);
  const double b = 0.931 + 2.53 * slam;
  const double a = -0.059 + 0.02483 * b;
  const double invalpha = 1.1239 + 1.1328 / (b - 3.4);
  const double vr = 0.9277 - 3.6224 / (b - 2);
  for (;;) {
    const double u = s.Uniform() - 0.5;
    const double v = s.Uniform();
    const double us = 0.5 - fabs(u);
    const double k = floor((2 * a / us + b) * u + lam + 0.43);
    if (us >= 0.07 && v <= vr) return static_cast<int64_t>(k);
    if (!(k >= 0) || (us < 0.013 && v > us)) continue;
    if (log(v) + log(invalpha) - log(a / (us * us) + b) <= -lam + k * loglam - lgamma(k + 1)) {
      return static_cast<int64_t>(k);
    }
  }
}

template <class Source>
AH_SAMPLER int64_t Geometric(Source& s, double p) {
  if (p >= 1.0 / 3.0) {
    const double u = s.Uniform();
    const double q = 1.0 - p;
    int64_t x = 1;
    double product = p;
    double sum = p;
    while (u > sum && product > 0.0) {
      product *= q;
      sum += product;
      ++x;
    }
    return x;
  }
  const double z = ceil(-StandardExponential(s) / log1p(-p));
  if (z >= 9.2233720368547758e18) return INT64_MAX;
  return static_cast<int64_t>(z);
}

template <class Source>
AH_SAMPLER double Wald(Source& s, double mean, double scale) {
  const double mu_2l = mean / (2 * scale);
  double y = s.Normal();
  y = mean * y * y;
  const double x = mean + mu_2l * (y - sqrt(4 * scale * y + y * y));
  return s.Uniform() <= mean / (mean + x) ? x : mean * mean / x;
}

template <class Source>
AH_SAMPLER int64_t NegativeBinomial(Source& s, double n, double p) {
  const double mean = StandardGamma(s, n) * ((1.0 - p) / p);
  if (!(mean < 9.2e18)) return INT64_MAX;
  return Poisson(s, mean);
}

// A value of a real distribution; `low` and `high` as in RandomCall.
template <class Source>
AH_SAMPLER double Real(Source& s, RandomDistribution distribution, double low, double high) {
  switch (distribution) {
    case RandomDistribution::kExponential:
      return high * StandardExponential(s);
    case RandomDistribution::kGamma:
      return high * StandardGamma(s, low);
    case RandomDistribution::kBeta:
      return Beta(s, low, high);
    case RandomDistribution::kLognormal:
      return exp(low + high * s.Normal());
    case RandomDistribution::kStandardT: {
      const double normal = s.Normal();
      return sqrt(high / 2) * normal / sqrt(StandardGamma(s, high / 2));
    }
    case RandomDistribution::kChisquare:
      return 2.0 * StandardGamma(s, high / 2);
    case RandomDistribution::kLaplace: {
      const double u = OpenUniform(s);
      return u >= 0.5 ? low - high * log(2.0 - 2.0 * u) : low + high * log(2.0 * u);
    }
    case RandomDistribution::kLogistic: {
      const double u = OpenUniform(s);
      return low + high * log(u / (1.0 - u));
    }
    case RandomDistribution::kGumbel:
      return low - high * log(-log(1.0 - OpenUniform(s)));
    case RandomDistribution::kWeibull:
      return high == 0.0 ? 0.0 : pow(StandardExponential(s), 1.0 / high);
    case RandomDistribution::kPareto:
      return expm1(StandardExponential(s) / high);
    case RandomDistribution::kRayleigh:
      return high * sqrt(2.0 * StandardExponential(s));
    case RandomDistribution::kPower:
      return pow(-expm1(-StandardExponential(s)), 1.0 / high);
    case RandomDistribution::kF: {
      const double numerator = 2.0 * StandardGamma(s, low / 2) / low;
      return numerator / (2.0 * StandardGamma(s, high / 2) / high);
    }
    case RandomDistribution::kWald:
      return Wald(s, low, high);
    case RandomDistribution::kStandardCauchy: {
      const double numerator = s.Normal();
      return numerator / s.Normal();
    }
    default:
      return 0.0;  // Not a real distribution of this family: IsCount or the callers' own.
  }
}

// A value of a count distribution (binomial, poisson, geometric, negative_binomial); `n` is
// RandomCall's int_high, `low` and `p` its low and high.
template <class Source>
AH_SAMPLER int64_t Count(Source& s, RandomDistribution distribution, int64_t n, double low,
                         double p) {
  switch (distribution) {
    case RandomDistribution::kBinomial:
      return Binomial(s, n, p);
    case RandomDistribution::kNegativeBinomial:
      return NegativeBinomial(s, low, p);
    case RandomDistribution::kPoisson:
      return Poisson(s, p);
    default:
      return Geometric(s, p);
  }
}

AH_SAMPLER bool IsCount(RandomDistribution distribution) {
  return distribution == RandomDistribution::kBinomial ||
         distribution == RandomDistribution::kPoisson ||
         distribution == RandomDistribution::kGeometric ||
         distribution == RandomDistribution::kNegativeBinomial;
}

}  // namespace samplers
}  // namespace arrayhub

#undef AH_SAMPLER
