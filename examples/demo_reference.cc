#include "demo_reference.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace demo {

std::vector<float> MakeSamples(int64_t rows, int64_t cols) {
  // A 64-bit LCG (Knuth's MMIX constants): the same values on every machine.
  uint64_t state = 0x2545f4914f6cdd1dULL;
  std::vector<float> samples(static_cast<size_t>(rows * cols));
  for (float& value : samples) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    value = static_cast<float>(static_cast<double>(state >> 40) / double(1 << 24) * 2.0 - 1.0);
  }
  return samples;
}

std::vector<double> CovarianceOf(std::span<const float> samples, int64_t rows, int64_t cols) {
  const auto n = static_cast<size_t>(cols);
  std::vector<double> y(samples.size());
  std::vector<double> mean(n, 0.0);
  for (size_t i = 0; i < y.size(); ++i) {
    const double x = samples[i];
    y[i] = 3.0 * std::sin(x) + x * x;
    mean[i % n] += y[i];
  }
  for (double& m : mean) m /= static_cast<double>(rows);
  for (size_t i = 0; i < y.size(); ++i) y[i] -= mean[i % n];
  // yᵀy one sample (row) at a time, the upper triangle only, then mirrored.
  std::vector<double> covariance(n * n, 0.0);
  for (size_t r = 0; r < static_cast<size_t>(rows); ++r) {
    const double* row = &y[r * n];
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = i; j < n; ++j) covariance[i * n + j] += row[i] * row[j];
    }
  }
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i; j < n; ++j) {
      covariance[i * n + j] /= static_cast<double>(rows - 1);
      covariance[j * n + i] = covariance[i * n + j];
    }
  }
  return covariance;
}

double RelativeError(double a, double b) {
  return b == 0 ? std::abs(a - b) : std::abs(a - b) / std::abs(b);
}

double ScaledError(std::span<const float> got, std::span<const double> want) {
  if (got.size() != want.size()) return INFINITY;
  double scale = 0, error = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    scale = std::max(scale, std::abs(want[i]));
    const double difference = std::abs(static_cast<double>(got[i]) - want[i]);
    if (!(difference <= error)) error = difference;  // A NaN stays NaN, and fails the check.
  }
  return scale == 0 ? error : error / scale;
}

std::string CompareChecksums(const Checksum& got, const Checksum& want) {
  const double squares = RelativeError(got.sum_of_squares, want.sum_of_squares);
  const double magnitudes = RelativeError(got.sum_of_magnitudes, want.sum_of_magnitudes);
  if (squares <= kTolerance && magnitudes <= kTolerance) return "";
  char text[256];
  std::snprintf(
      text, sizeof text, "sum of squares %.12g (want %.12g), sum of magnitudes %.12g (want %.12g)",
      got.sum_of_squares, want.sum_of_squares, got.sum_of_magnitudes, want.sum_of_magnitudes);
  return text;
}

}  // namespace demo
