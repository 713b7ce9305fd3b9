// numpy.fft's rules (fft_rules.h): the transforms each function runs and in which order, the
// lengths with n/s, NumPy 2.4's result dtypes, normalization and messages (each case names the
// NumPy expression it was taken from).
#include "server/core/fft_rules.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace arrayhub {
namespace {

FftSpec Spec(FftOp op, std::optional<std::vector<int64_t>> axes = std::nullopt,
             std::optional<std::vector<int64_t>> s = std::nullopt, std::string norm = "") {
  return {.op = op, .input = {}, .axes = std::move(axes), .s = std::move(s), .norm = norm};
}

void ExpectError(const absl::StatusOr<FftPlan>& plan, std::string_view message) {
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(plan.status().message()), message);
}

TEST(FftRulesTest, NamesRoundTrip) {
  for (std::string_view name : {"fft", "ifft", "rfft", "irfft", "hfft", "ihfft"}) {
    ASSERT_TRUE(FftOpFromName(name).has_value()) << name;
    EXPECT_EQ(OpName(*FftOpFromName(name)), name);
  }
  EXPECT_FALSE(FftOpFromName("fft2").has_value());
}

TEST(FftRulesTest, ResultDTypesAreNumPy2s) {
  struct Case {
    FftOp op;
    DType in;
    DType out;
  };
  // np.fft.fft(np.ones(4, dtype)).dtype and likewise.
  const Case cases[] = {
      {FftOp::kFft, DType::kBool, DType::kComplex128},
      {FftOp::kFft, DType::kInt8, DType::kComplex128},
      {FftOp::kFft, DType::kFloat16, DType::kComplex64},
      {FftOp::kFft, DType::kFloat32, DType::kComplex64},
      {FftOp::kIfft, DType::kComplex64, DType::kComplex64},
      {FftOp::kFft, DType::kFloat64, DType::kComplex128},
      {FftOp::kRfft, DType::kUInt16, DType::kComplex128},
      {FftOp::kRfft, DType::kFloat32, DType::kComplex64},
      {FftOp::kIrfft, DType::kFloat16, DType::kFloat16},
      {FftOp::kIrfft, DType::kComplex64, DType::kFloat32},
      {FftOp::kIrfft, DType::kInt64, DType::kFloat64},
      {FftOp::kHfft, DType::kFloat32, DType::kFloat32},
      {FftOp::kHfft, DType::kComplex128, DType::kFloat64},
      {FftOp::kIhfft, DType::kFloat16, DType::kComplex64},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(OpName(c.op)) + " of " + std::string(DTypeName(c.in)));
    absl::StatusOr<FftPlan> plan = ResolveFft(Spec(c.op, std::vector<int64_t>{-1}), c.in, {4});
    ASSERT_TRUE(plan.ok()) << plan.status();
    EXPECT_EQ(plan->result_dtype, c.out);
    EXPECT_EQ(plan->real_dtype,
              RealDType(c.out) == DType::kFloat64 ? DType::kFloat64 : DType::kFloat32);
  }
}

TEST(FftRulesTest, StepsRunInNumPysOrder) {
  // fftn over (0, 1, 2): the last axis first.
  absl::StatusOr<FftPlan> plan = ResolveFft(Spec(FftOp::kFft), DType::kFloat64, {2, 3, 4});
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->steps.size(), 3u);
  EXPECT_EQ(plan->steps[0].axis, 2);
  EXPECT_EQ(plan->steps[2].axis, 0);
  // np.fft.rfftn(a, axes=(0, 2)) of a (6, 3, 8): rfft along 2 first, then fft along 0.
  plan = ResolveFft(Spec(FftOp::kRfft, std::vector<int64_t>{0, 2}), DType::kFloat32, {6, 3, 8});
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->steps.size(), 2u);
  EXPECT_EQ(plan->steps[0].kind, FftKind::kRealToComplex);
  EXPECT_EQ(plan->steps[0].axis, 2);
  EXPECT_EQ(plan->steps[0].output_length, 5);
  EXPECT_EQ(plan->steps[1].kind, FftKind::kComplex);
  EXPECT_EQ(plan->result_shape, (Shape{6, 3, 5}));
  EXPECT_EQ(plan->result_dtype, DType::kComplex64);
  // np.fft.irfftn(a) of a (4, 5): ifft along 0, then irfft of 8 points along 1.
  plan = ResolveFft(Spec(FftOp::kIrfft), DType::kComplex128, {4, 5});
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->steps.size(), 2u);
  EXPECT_EQ(plan->steps[0].axis, 0);
  EXPECT_FALSE(plan->steps[0].forward);
  EXPECT_EQ(plan->steps[1].kind, FftKind::kComplexToReal);
  EXPECT_EQ(plan->steps[1].n, 8);
  EXPECT_EQ(plan->steps[1].input_length, 5);
  EXPECT_EQ(plan->result_shape, (Shape{4, 8}));
  EXPECT_DOUBLE_EQ(plan->scale, 1.0 / 32);
}

TEST(FftRulesTest, LengthsCutPadAndRepeat) {
  // np.fft.fftn(a, s=(5, 2), axes=(1, 1)) of a (2, 3): two transforms along 1, 2 points last.
  absl::StatusOr<FftPlan> plan =
      ResolveFft(Spec(FftOp::kFft, std::vector<int64_t>{1, 1}, std::vector<int64_t>{5, 2}),
                 DType::kFloat64, {2, 3});
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->steps.size(), 2u);
  EXPECT_EQ(plan->steps[0].n, 2);
  EXPECT_EQ(plan->steps[1].n, 5);
  EXPECT_EQ(plan->result_shape, (Shape{2, 5}));
  // s without axes: the last len(s) axes; -1 is the whole axis (NumPy 2).
  plan = ResolveFft(Spec(FftOp::kIrfft, std::nullopt, std::vector<int64_t>{-1, 9}),
                    DType::kComplex64, {7, 2, 3});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->result_shape, (Shape{7, 2, 9}));
  EXPECT_EQ(plan->steps[1].input_length, 5);
  // hfft: 2 (m - 1) points; the norm's direction swapped ("backward" scales by nothing).
  plan = ResolveFft(Spec(FftOp::kHfft, std::vector<int64_t>{0}), DType::kComplex64, {6});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->result_shape, (Shape{10}));
  EXPECT_TRUE(plan->steps[0].conjugate);
  EXPECT_DOUBLE_EQ(plan->scale, 1);
  plan = ResolveFft(Spec(FftOp::kIhfft, std::vector<int64_t>{0}, std::nullopt, "ortho"),
                    DType::kFloat64, {6});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_DOUBLE_EQ(plan->scale, 1 / std::sqrt(6.0));
  // fftn over no axes: nothing to run, the input's dtype (NumPy returns the input).
  plan = ResolveFft(Spec(FftOp::kFft, std::vector<int64_t>{}), DType::kInt32, {2, 3});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(plan->steps.empty());
  EXPECT_EQ(plan->result_dtype, DType::kInt32);
}

TEST(FftRulesTest, NormScalesAsNumPy) {
  const std::pair<std::string, double> forward[] = {
      {"", 1}, {"backward", 1}, {"ortho", 1 / std::sqrt(8.0)}, {"forward", 1.0 / 8}};
  for (const auto& [norm, scale] : forward) {
    absl::StatusOr<FftPlan> plan = ResolveFft(
        Spec(FftOp::kFft, std::vector<int64_t>{0}, std::nullopt, norm), DType::kFloat64, {8});
    ASSERT_TRUE(plan.ok()) << plan.status();
    EXPECT_DOUBLE_EQ(plan->scale, scale) << norm;
    plan = ResolveFft(Spec(FftOp::kIfft, std::vector<int64_t>{0}, std::nullopt, norm),
                      DType::kFloat64, {8});
    ASSERT_TRUE(plan.ok()) << plan.status();
    EXPECT_DOUBLE_EQ(plan->scale, norm == "ortho" ? scale : 1.0 / 8 / scale) << norm;
  }
}

TEST(FftRulesTest, Float16InputsRoundTheFactorAsNumPy) {
  // np.reciprocal(np.sqrt(13, dtype=np.float16)) and np.reciprocal(7, dtype=np.float16): the
  // factors NumPy scales a float16 input's transforms by.
  absl::StatusOr<FftPlan> plan =
      ResolveFft(Spec(FftOp::kFft, std::vector<int64_t>{0}, std::vector<int64_t>{13}, "ortho"),
                 DType::kFloat16, {4});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->scale, 0.27734375);
  plan = ResolveFft(Spec(FftOp::kFft, std::vector<int64_t>{0}, std::vector<int64_t>{7}, "forward"),
                    DType::kFloat16, {4});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->scale, 0.142822265625);
}

TEST(FftRulesTest, ErrorsAreNumPys) {
  // np.fft.fft(np.ones(4), n=0)
  ExpectError(ResolveFft(Spec(FftOp::kFft, std::vector<int64_t>{-1}, std::vector<int64_t>{0}),
                         DType::kFloat64, {4}),
              "Invalid number of FFT data points (0) specified.");
  // np.fft.fft(np.ones(0))
  ExpectError(ResolveFft(Spec(FftOp::kFft, std::vector<int64_t>{-1}), DType::kFloat64, {0}),
              "Invalid number of FFT data points (0) specified.");
  // np.fft.irfft(np.ones(1))
  ExpectError(ResolveFft(Spec(FftOp::kIrfft, std::vector<int64_t>{-1}), DType::kFloat64, {1}),
              "Invalid number of FFT data points (0) specified.");
  // np.fft.fft(np.ones(3), norm="x")
  ExpectError(ResolveFft(Spec(FftOp::kFft, std::vector<int64_t>{-1}, std::nullopt, "x"),
                         DType::kFloat64, {3}),
              "Invalid norm value x; should be \"backward\",\"ortho\" or \"forward\".");
  // np.fft.fftn(np.ones((2, 3)), s=(2, 3, 4))
  ExpectError(ResolveFft(Spec(FftOp::kFft, std::nullopt, std::vector<int64_t>{2, 3, 4}),
                         DType::kFloat64, {2, 3}),
              "axis -3 is out of bounds for array of dimension 2");
  // np.fft.fftn(np.ones((2, 3)), s=(2, 3, 4), axes=(0, 1))
  ExpectError(
      ResolveFft(Spec(FftOp::kFft, std::vector<int64_t>{0, 1}, std::vector<int64_t>{2, 3, 4}),
                 DType::kFloat64, {2, 3}),
      "Shape and axes have different lengths.");
  // np.fft.fft(np.ones(3), axis=1)
  ExpectError(ResolveFft(Spec(FftOp::kFft, std::vector<int64_t>{1}), DType::kFloat64, {3}),
              "axis 1 is out of bounds for array of dimension 1");
  // np.fft.rfft(np.ones(3) + 1j)
  ExpectError(ResolveFft(Spec(FftOp::kRfft, std::vector<int64_t>{-1}), DType::kComplex128, {3}),
              "ufunc 'rfft_n_odd' not supported for the input types, and the inputs could not be "
              "safely coerced to any supported types according to the casting rule ''safe''");
  ExpectError(ResolveFft(Spec(FftOp::kHfft, std::vector<int64_t>{0, 1}), DType::kFloat64, {3, 3}),
              "hfft transforms exactly one axis, got 2");
}

}  // namespace
}  // namespace arrayhub
