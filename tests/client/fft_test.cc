// numpy.fft through the C++ client (Client::Fft), on fresh random data: a 2-D real transform
// (rfft2's axes, one of them cut) and its inverse back to the input, against a direct sum in
// double precision, and NumPy's message for a bad length.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <numbers>

#include "arrayhub/client.h"
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
  try {
    client().Download<std::complex<double>>(
        client().Fft("fft", a, FftOptions{.axes = std::nullopt, .s = {{0}}, .norm = ""}));
    FAIL() << "fft of 0 points ran";
  } catch (const client::Error& error) {
    EXPECT_EQ(error.code(), client::StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(error.what()).find("Invalid number of FFT data points (0) specified."),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace arrayhub::testing
