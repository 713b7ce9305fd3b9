// What every backend's Fft computes (see backend_conformance.h and server/backend/fft.h):
// batches of one-dimensional transforms, complex, real to complex and complex to real, forward
// and inverse, scaled and conjugated, against a direct sum in long double on fresh random data:
// lengths that are powers of two, odd, prime and composite, along a last axis and along a
// middle one (points `inner` apart), and multi-dimensional over trailing axes, in single and
// double precision.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <numbers>
#include <random>
#include <vector>

#include "tests/backend/backend_conformance.h"
#include "tests/support/test_queue.h"
#include "tests/support/test_seed.h"

namespace arrayhub {

using LongComplex = std::complex<long double>;

// The direct sum of fft.h's contract over a (outer, in length, inner) stack of values (reals
// as complex with no imaginary part), with NumPy's Hermitian reading of a complex-to-real
// input: element k of the full spectrum is x[k] for k < in length, else conj(x[n - k]), with
// the imaginary parts of elements 0 and n/2 (even n) dropped.
inline std::vector<LongComplex> DirectFft(const std::vector<LongComplex>& x, FftKind kind,
                                          bool forward, int64_t n, int64_t outer, int64_t in_length,
                                          int64_t inner, int64_t out_length, double scale,
                                          bool conjugate) {
  std::vector<LongComplex> out(static_cast<size_t>(outer * out_length * inner));
  const long double sign = kind == FftKind::kComplexToReal ? 1 : (forward ? -1 : 1);
  std::vector<LongComplex> twiddles(static_cast<size_t>(n));  // exp(sign 2 pi i m / n).
  for (int64_t m = 0; m < n; ++m) {
    const long double angle = sign * 2 * std::numbers::pi_v<long double> * m / n;
    twiddles[m] = LongComplex(std::cos(angle), std::sin(angle));
  }
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t j) { return x[static_cast<size_t>((o * in_length + j) * inner + i)]; };
      std::vector<LongComplex> full(static_cast<size_t>(n));
      for (int64_t j = 0; j < n; ++j) {
        if (kind != FftKind::kComplexToReal) {
          full[j] = at(j);
          continue;
        }
        const int64_t k = j < in_length ? j : n - j;
        LongComplex v = at(k);
        if (conjugate) v = std::conj(v);
        if (k == 0 || (n % 2 == 0 && k == n / 2)) v = v.real();
        full[j] = j < in_length ? v : std::conj(v);
      }
      for (int64_t k = 0; k < out_length; ++k) {
        LongComplex sum = 0;
        for (int64_t j = 0; j < n; ++j) sum += full[j] * twiddles[(j * k) % n];
        sum *= static_cast<long double>(scale);
        if (conjugate && kind == FftKind::kRealToComplex) sum = std::conj(sum);
        out[static_cast<size_t>((o * out_length + k) * inner + i)] = sum;
      }
    }
  }
  return out;
}

// fft.h's multi-dimensional transform of (outer, leading..., n) values as NumPy composes it:
// DirectFft along the last axis (of `kind`), then complex transforms along each leading axis,
// last to first, in the same direction; scaled once.
inline std::vector<LongComplex> DirectFftOverTrailingAxes(std::vector<LongComplex> x, FftKind kind,
                                                          bool forward, int64_t outer,
                                                          const std::vector<int64_t>& leading,
                                                          int64_t n, double scale) {
  int64_t stacks = outer;
  for (int64_t length : leading) stacks *= length;
  const int64_t out_length = kind == FftKind::kRealToComplex ? n / 2 + 1 : n;
  x = DirectFft(x, kind, forward, n, stacks, n, 1, out_length, 1, false);
  int64_t inner = out_length;
  for (size_t j = leading.size(); j-- > 0;) {
    stacks /= leading[j];
    x = DirectFft(x, FftKind::kComplex, forward, leading[j], stacks, leading[j], inner, leading[j],
                  1, false);
    inner *= leading[j];
  }
  for (LongComplex& value : x) value *= static_cast<long double>(scale);
  return x;
}

template <typename Factory>
class FftConformanceTest : public BackendTest<Factory> {
 protected:
  // Runs one FftCall on fresh standard normal data and compares it with DirectFft: the largest
  // error relative to the largest magnitude of the reference. With `shifted`, the real side
  // (input or output) starts one element into its buffer, as a view's offset may.
  // With `leading` lengths (inner 1), the call is multi-dimensional over (outer, leading..., n).
  template <typename R>
  void Check(FftKind kind, bool forward, int64_t n, int64_t outer, int64_t inner, double scale = 1,
             bool conjugate = false, bool shifted = false, std::vector<int64_t> leading = {}) {
    SCOPED_TRACE(::testing::Message()
                 << "kind " << static_cast<int>(kind) << " forward " << forward << " n " << n
                 << " outer " << outer << " inner " << inner << " scale " << scale << " conjugate "
                 << conjugate << " leading axes " << leading.size() << testing::SeedNote());
    const auto stack = [&](int64_t length) {
      Shape shape = {outer};
      shape.insert(shape.end(), leading.begin(), leading.end());
      shape.insert(shape.end(), {length, inner});
      return shape;
    };
    int64_t stacks = outer;
    for (int64_t length : leading) stacks *= length;
    const bool wide = std::is_same_v<R, double>;
    const DType real = wide ? DType::kFloat64 : DType::kFloat32;
    const DType complex = wide ? DType::kComplex128 : DType::kComplex64;
    const int64_t half = n / 2 + 1;
    const int64_t in_length = kind == FftKind::kComplexToReal ? half : n;
    const int64_t out_length = kind == FftKind::kRealToComplex ? half : n;
    const int64_t in_count = stacks * in_length * inner;
    std::normal_distribution<double> normal;
    std::vector<LongComplex> values(static_cast<size_t>(in_count));
    ArrayView input;
    if (kind == FftKind::kRealToComplex) {
      std::vector<R> data(static_cast<size_t>(in_count));
      for (int64_t e = 0; e < in_count; ++e) {
        data[e] = static_cast<R>(normal(rng_));
        values[e] = data[e];
      }
      if (shifted) data.insert(data.begin(), R(0));
      input = this->Array(real, data, {static_cast<int64_t>(data.size())});
      input = Shifted(input, stack(in_length), shifted);
    } else {
      std::vector<std::complex<R>> data(static_cast<size_t>(in_count));
      for (int64_t e = 0; e < in_count; ++e) {
        data[e] = {static_cast<R>(normal(rng_)), static_cast<R>(normal(rng_))};
        values[e] = LongComplex(data[e].real(), data[e].imag());
      }
      input = this->Array(complex, data, stack(in_length));
    }
    const DType out_dtype = kind == FftKind::kComplexToReal ? real : complex;
    const int64_t out_count = stacks * out_length * inner;
    const ArrayView output = Shifted(this->Output(out_dtype, {out_count + 1}), stack(out_length),
                                     shifted && out_dtype == real);
    const absl::Status status =
        this->backend().fft().Fft(TestQueue(this->backend()), {.kind = kind,
                                                               .forward = forward,
                                                               .n = n,
                                                               .input = input,
                                                               .output = output,
                                                               .scale = scale,
                                                               .conjugate = conjugate,
                                                               .leading = leading});
    ASSERT_TRUE(status.ok()) << status;
    const std::vector<LongComplex> expected =
        leading.empty()
            ? DirectFft(values, kind, forward, n, outer, in_length, inner, out_length, scale,
                        conjugate)
            : DirectFftOverTrailingAxes(values, kind, forward, outer, leading, n, scale);
    std::vector<LongComplex> got(expected.size());
    if (out_dtype == real) {
      const std::vector<R> read = this->template Contents<R>(*output.buffer, out_count + 1);
      ASSERT_EQ(read.size(), got.size() + 1);
      const size_t first = output.offset_bytes == 0 ? 0 : 1;
      for (size_t e = 0; e < got.size(); ++e) got[e] = read[e + first];
    } else {
      const std::vector<std::complex<R>> read = this->template Read<std::complex<R>>(output);
      ASSERT_EQ(read.size(), got.size());
      for (size_t e = 0; e < got.size(); ++e) got[e] = LongComplex(read[e].real(), read[e].imag());
    }
    long double largest = 0;
    long double error = 0;
    for (size_t e = 0; e < got.size(); ++e) {
      largest = std::max(largest, std::abs(expected[e]));
      error = std::max(error, std::abs(got[e] - expected[e]));
    }
    const long double tolerance = wide ? 1e-12L : 2e-5L;
    EXPECT_LE(error, tolerance * std::max(largest, 1.0L)) << "largest " << largest;
  }

  // `view` as `shape`, from its second element with `shift` (the buffer has room for it).
  static ArrayView Shifted(ArrayView view, const Shape& shape, bool shift) {
    if (shift) view.offset_bytes += ItemSize(view.dtype);
    view.shape = shape;
    view.strides = ContiguousStrides(shape);
    return view;
  }

  // The layouts of the batch: one transform, a batch along the outer axis, and points `inner`
  // apart with both outer and inner batches.
  static constexpr int64_t kLayouts[4][2] = {{1, 1}, {3, 1}, {2, 3}, {1, 4}};
  // Powers of two, odd, prime and composite lengths.
  static constexpr int64_t kLengths[10] = {1, 2, 3, 5, 8, 12, 17, 30, 64, 97};

  testing::SeedTrace seed_trace_;
  std::mt19937_64 rng_{testing::BaseSeed() + 21};
};

TYPED_TEST_SUITE_P(FftConformanceTest);

TYPED_TEST_P(FftConformanceTest, ComplexTransformsMatchADirectSum) {
  for (const auto& [outer, inner] : this->kLayouts) {
    for (const int64_t n : this->kLengths) {
      this->template Check<float>(FftKind::kComplex, true, n, outer, inner);
      this->template Check<double>(FftKind::kComplex, false, n, outer, inner);
    }
  }
  this->template Check<double>(FftKind::kComplex, true, 1000, 2, 1);  // 2^3 5^3.
  this->template Check<float>(FftKind::kComplex, false, 1009, 1, 2);  // A prime.
}

TYPED_TEST_P(FftConformanceTest, RealTransformsMatchADirectSum) {
  for (const auto& [outer, inner] : this->kLayouts) {
    for (const int64_t n : this->kLengths) {
      this->template Check<double>(FftKind::kRealToComplex, true, n, outer, inner);
      this->template Check<float>(FftKind::kComplexToReal, false, n, outer, inner);
    }
  }
  this->template Check<float>(FftKind::kRealToComplex, true, 1000, 1, 3);
  this->template Check<double>(FftKind::kComplexToReal, false, 1009, 2, 1);
}

TYPED_TEST_P(FftConformanceTest, ScaleAndConjugateApplyToTheComplexSide) {
  for (const int64_t n : {4, 7}) {
    this->template Check<double>(FftKind::kComplex, false, n, 2, 3, 1.0 / n);
    this->template Check<float>(FftKind::kComplex, true, n, 3, 1, 1 / std::sqrt(n * 1.0));
    this->template Check<double>(FftKind::kRealToComplex, true, n, 2, 2, 1.0 / n, true);
    this->template Check<float>(FftKind::kComplexToReal, false, n, 1, 3, 0.5, true);
  }
}

TYPED_TEST_P(FftConformanceTest, RealSidesAtOddOffsets) {
  for (const auto& [outer, inner] : this->kLayouts) {
    for (const int64_t n : {3, 8}) {
      this->template Check<float>(FftKind::kRealToComplex, true, n, outer, inner, 1, false, true);
      this->template Check<double>(FftKind::kComplexToReal, false, n, outer, inner, 1, false, true);
    }
  }
}

TYPED_TEST_P(FftConformanceTest, TrailingAxesAtOnceMatchTheirOneDimensionalTransforms) {
  this->template Check<float>(FftKind::kComplex, true, 4, 2, 1, 1, false, false, {3});
  this->template Check<double>(FftKind::kComplex, false, 3, 1, 1, 1.0 / 30, false, false, {5, 2});
  this->template Check<float>(FftKind::kComplex, true, 8, 3, 1, 1, false, false, {1, 6});
  this->template Check<double>(FftKind::kRealToComplex, true, 6, 3, 1, 1, false, false, {4});
  this->template Check<float>(FftKind::kRealToComplex, true, 5, 1, 1, 0.5, false, false, {3, 2});
  this->template Check<double>(FftKind::kRealToComplex, true, 7, 2, 1, 1, false, false, {9, 4});
  // A real input a view's offset leaves misaligned.
  this->template Check<float>(FftKind::kRealToComplex, true, 8, 2, 1, 1, false, true, {2});
  this->template Check<double>(FftKind::kRealToComplex, true, 3, 1, 1, 1, false, true, {5, 3});
}

REGISTER_TYPED_TEST_SUITE_P(FftConformanceTest, ComplexTransformsMatchADirectSum,
                            RealTransformsMatchADirectSum, ScaleAndConjugateApplyToTheComplexSide,
                            RealSidesAtOddOffsets,
                            TrailingAxesAtOnceMatchTheirOneDimensionalTransforms);

}  // namespace arrayhub
