// The distributions a random fill draws (RandomCall), in a header of its own so that CUDA
// kernels can name them.
#pragma once

#include <cstdint>

namespace arrayhub {

// What each takes from RandomCall's low, high and int_high.
enum class RandomDistribution : uint8_t {
  kUniform,           // [low, high) floats
  kNormal,            // mean, stddev floats
  kIntegers,          // [int_low, int_high) integers (or bool)
  kExponential,       // scale = high
  kGamma,             // shape = low, scale = high
  kBeta,              // a = low, b = high
  kBinomial,          // n = int_high, p = high; int64
  kPoisson,           // lam = high; int64
  kLognormal,         // exp(normal(low, high))
  kStandardT,         // df = high
  kChisquare,         // df = high
  kGeometric,         // p = high; int64, >= 1
  kLaplace,           // loc = low, scale = high
  kLogistic,          // loc = low, scale = high
  kGumbel,            // loc = low, scale = high
  kWeibull,           // a = high
  kPareto,            // a = high (Lomax, as NumPy's pareto)
  kRayleigh,          // scale = high
  kStandardCauchy,    // no parameter
  kPower,             // a = high
  kF,                 // dfnum = low, dfden = high
  kNegativeBinomial,  // n = low (real), p = high; int64
  kWald,              // mean = low, scale = high
};

}  // namespace arrayhub
