// numpy.fft through the C++ client (Client::Fft), on fresh random data: a 2-D real transform
// (rfft2's axes, one of them cut) and its inverse back to the input, against a direct sum in
// double precision, and NumPy's message for a bad length.
#include "arrayhub/fft.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <numbers>
#include <string>

#include "arrayhub/client.h"
#include "tests/support/client_expect.h"
#include "tests/support/seeded_client_test.h"

namespace arrayhub::testing {
namespace {

using client::FftOptions;

class FftTest : public SeededClientTest {};

TEST_F(FftTest, Rfft2MatchesADirectSumAndIrfft2InvertsIt) {
  constexpr int64_t kRows = 3;
  constexpr int64_t kCols = 5;
  const std::vector<double> values = Random(kRows * kCols);
  const client::Array a = client().Upload(values, {kRows, kCols});
  // rfft2 with s = (3, 4): the last axis cut to 4 points, giving 3 frequencies.
  const client::Array spectrum =
      client().Fft("rfft", a, FftOptions{.axes = {{-2, -1}}, .s = {{kRows, 4}}, .norm = ""});
  const std::vector<std::complex<double>> got = client().Download<std::complex<double>>(spectrum);
  ASSERT_EQ(got.size(), static_cast<size_t>(kRows * 3));
  for (int64_t p = 0; p < kRows; ++p) {
    for (int64_t q = 0; q < 3; ++q) {
      std::complex<double> sum = 0;
      for (int64_t i = 0; i < kRows; ++i) {
        for (int64_t j = 0; j < 4; ++j) {
          const double angle =
              -2 * std::numbers::pi * (static_cast<double>(p * i) / kRows + q * j / 4.0);
          sum += values[i * kCols + j] * std::polar(1.0, angle);
        }
      }
      EXPECT_LT(std::abs(got[p * 3 + q] - sum), 1e-12) << p << ", " << q << SeedNote();
    }
  }
  const client::Array back =
      client().Fft("irfft", spectrum, FftOptions{.axes = {{0, 1}}, .s = {{kRows, 4}}, .norm = ""});
  const std::vector<double> restored = Get(back);
  ASSERT_EQ(restored.size(), static_cast<size_t>(kRows * 4));
  for (int64_t i = 0; i < kRows; ++i) {
    for (int64_t j = 0; j < 4; ++j) {
      EXPECT_NEAR(restored[i * 4 + j], values[i * kCols + j], 1e-12) << SeedNote();
    }
  }
}

TEST_F(FftTest, ZeroPointsAreRefusedWithNumPysMessage) {
  const client::Array a = client().Upload(std::vector<double>{1, 2, 3}, {3});
  EXPECT_CLIENT_ERROR(
      client().Fft("fft", a, FftOptions{.axes = std::nullopt, .s = {{0}}, .norm = ""}),
      kInvalidArgument, "Invalid number of FFT data points (0) specified.");
}

// numpy.fft's names (fft.h): the 1-D forms with n and axis, the n-D forms with s and axes, each
// against Client::Fft's own result or a closed form.
TEST_F(FftTest, NamedTransformsAreClientFftOverTheirAxes) {
  const std::vector<double> values = Random(4 * 6);
  const client::Array a = client().Upload(values, {4, 6});
  const auto complex_of = [&](const client::Array& x) {
    return client().Download<std::complex<double>>(x);
  };
  // fft along axis 0 padded to 5 points: element (k, j) is sum_i a[i, j] e^{-2 pi i k i / 5}.
  const std::vector<std::complex<double>> column = complex_of(client::fft::fft(a, 5, 0));
  ASSERT_EQ(column.size(), 5u * 6);
  for (int64_t k = 0; k < 5; ++k) {
    for (int64_t j = 0; j < 6; ++j) {
      std::complex<double> sum = 0;
      for (int64_t i = 0; i < 4; ++i) {
        sum += values[i * 6 + j] * std::polar(1.0, -2 * std::numbers::pi * k * i / 5.0);
      }
      EXPECT_LT(std::abs(column[k * 6 + j] - sum), 1e-12) << k << ", " << j << SeedNote();
    }
  }
  // The n-D forms are Fft over their axes; their inverses give a back.
  EXPECT_EQ(
      complex_of(client::fft::rfft2(a)),
      complex_of(client().Fft("rfft", a, FftOptions{.axes = {{-2, -1}}, .s = {}, .norm = ""})));
  const std::vector<double> back = Get(client::fft::irfft2(client::fft::rfft2(a), {{4, 6}}));
  const std::vector<double> back_n = Get(client::fft::irfftn(client::fft::rfftn(a), {{4, 6}}));
  const std::vector<std::complex<double>> round = complex_of(client::fft::ifftn(
      client::fft::fftn(a, std::nullopt, {{0}}, "ortho"), std::nullopt, {{0}}, "ortho"));
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_NEAR(back[i], values[i], 1e-12) << SeedNote();
    EXPECT_NEAR(back_n[i], values[i], 1e-12) << SeedNote();
    EXPECT_LT(std::abs(round[i] - values[i]), 1e-12) << SeedNote();
  }
  // ihfft is the conjugate of rfft / n; hfft of it gives the real signal back.
  const client::Array row =
      client().Upload(std::vector<double>(values.begin(), values.begin() + 6), {6});
  EXPECT_EQ(client::fft::ihfft(row).shape(), (client::Shape{4}));
  const std::vector<double> signal = Get(client::fft::hfft(client::fft::ihfft(row), 6));
  for (size_t i = 0; i < 6; ++i) EXPECT_NEAR(signal[i], values[i], 1e-12) << SeedNote();
}

// NumPy's fftfreq and rfftfreq, even and odd n, and the shifts that center the zero frequency.
TEST_F(FftTest, FrequenciesAndShiftsAreNumPys) {
  EXPECT_EQ(Get(client::fft::fftfreq(client(), 6, 0.5)),
            (std::vector<double>{0, 1 / 3.0, 2 / 3.0, -1, -2 / 3.0, -1 / 3.0}));
  EXPECT_EQ(Get(client::fft::fftfreq(client(), 5)), (std::vector<double>{0, 0.2, 0.4, -0.4, -0.2}));
  EXPECT_EQ(Get(client::fft::rfftfreq(client(), 5, 2.0)), (std::vector<double>{0, 0.1, 0.2}));
  EXPECT_EQ(Get(client::fft::rfftfreq(client(), 6)),
            (std::vector<double>{0, 1 / 6.0, 2 / 6.0, 3 / 6.0}));
  // 3 x 4: fftshift rolls rows by 1 and columns by 2; ifftshift rolls rows by -1.
  std::vector<double> grid(12);
  for (size_t i = 0; i < grid.size(); ++i) grid[i] = static_cast<double>(i);
  const client::Array x = client().Upload(grid, {3, 4});
  EXPECT_EQ(Get(client::fft::fftshift(x)),
            (std::vector<double>{10, 11, 8, 9, 2, 3, 0, 1, 6, 7, 4, 5}));
  EXPECT_EQ(Get(client::fft::ifftshift(x, {{0}})),
            (std::vector<double>{4, 5, 6, 7, 8, 9, 10, 11, 0, 1, 2, 3}));
  EXPECT_EQ(Get(client::fft::ifftshift(client::fft::fftshift(x))), grid);
  EXPECT_CLIENT_ERROR(client::fft::fftshift(x, {{2}}), kInvalidArgument,
                      "axis 2 is out of bounds for array of dimension 2");
}

}  // namespace
}  // namespace arrayhub::testing
