// What the demo computes on the daemon, computed again in this process in float64, and the
// comparisons that decide whether the daemon's float32 results agree with it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace demo {

// The demo's input: `rows` samples of `cols` features, float32, the same on every run.
std::vector<float> MakeSamples(int64_t rows, int64_t cols);

// y = 3 sin(x) + x * x; the columns' means subtracted; covariance = yᵀy / (rows - 1): cols x cols,
// C order.
std::vector<double> CovarianceOf(std::span<const float> samples, int64_t rows, int64_t cols);

// Two numbers that sum up a whole array, for a reader that has only the array to compare.
struct Checksum {
  double sum_of_squares = 0;
  double sum_of_magnitudes = 0;
};
template <typename T>
Checksum ChecksumOf(std::span<const T> values) {
  Checksum sum;
  for (T v : values) {
    sum.sum_of_squares += static_cast<double>(v) * static_cast<double>(v);
    sum.sum_of_magnitudes += v < 0 ? -static_cast<double>(v) : static_cast<double>(v);
  }
  return sum;
}

// float32 results of a few thousand-term sums agree with float64 to about 1e-6 relative; the
// tolerance leaves room for BLAS and cuBLAS summing in other orders.
inline constexpr double kTolerance = 1e-4;

// |a - b| / |b| (|a - b| where b is 0).
double RelativeError(double a, double b);
// The largest |got - want| over the largest |want|: an error relative to the array's scale.
double ScaledError(std::span<const float> got, std::span<const double> want);
// "" when `got` agrees with `want` to kTolerance, else what differs.
std::string CompareChecksums(const Checksum& got, const Checksum& want);

}  // namespace demo
