// What every backend's elementwise loops answer alike (see backend_conformance.h): a loop that
// ufuncs.def does not give the op is refused with one code and message, and float16 clip keeps
// the value on a +-0 tie where the float32 loop takes the bound, as NumPy's loops do.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "tests/backend/backend_conformance.h"
#include "tests/support/test_queue.h"

namespace arrayhub {

template <typename Factory>
class ElementwiseConformanceTest : public BackendTest<Factory> {};

TYPED_TEST_SUITE_P(ElementwiseConformanceTest);

TYPED_TEST_P(ElementwiseConformanceTest, MissingLoopIsUnimplemented) {
  const std::vector<double> values = {1.0, 2.0};
  const ArrayView a = this->Array(DType::kFloat64, values, {2});
  const ElementwiseCall call{
      .op = ElementwiseOp::kBitwiseAnd,
      .compute_dtype = DType::kFloat64,
      .result_dtype = DType::kFloat64,
      .shape = {2},
      .operands = {{.array = a, .dtype = DType::kFloat64}, {.array = a, .dtype = DType::kFloat64}},
      .output = this->Output(DType::kFloat64, {2})};
  const absl::Status status =
      this->backend().compute().Elementwise(TestQueue(this->backend()), call);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented) << status;
  EXPECT_EQ(status.message(), "the backend has no float64 loop for bitwise_and");
}

TYPED_TEST_P(ElementwiseConformanceTest, ClipTiesOfSignedZerosFollowTheLoopDType) {
  // clip(x, low, high) elementwise over x, low, high; the ties are -0 against +0 at either bound.
  auto clip = [&]<typename T>(DType dtype, const std::vector<T>& x, const std::vector<T>& low,
                              const std::vector<T>& high) {
    const Shape shape = {static_cast<int64_t>(x.size())};
    const ElementwiseCall call{
        .op = ElementwiseOp::kClip,
        .compute_dtype = dtype,
        .result_dtype = dtype,
        .shape = shape,
        .operands = {{.array = this->Array(dtype, x, shape), .dtype = dtype},
                     {.array = this->Array(dtype, low, shape), .dtype = dtype},
                     {.array = this->Array(dtype, high, shape), .dtype = dtype}},
        .output = this->Output(dtype, shape)};
    const absl::Status status =
        this->backend().compute().Elementwise(TestQueue(this->backend()), call);
    EXPECT_TRUE(status.ok()) << status;
    return this->template Read<T>(call.output);
  };
  // float16 bit patterns: -0, +0, 1, -1.
  constexpr uint16_t kNeg = 0x8000, kPos = 0x0000, kOne = 0x3c00, kMinusOne = 0xbc00;
  EXPECT_EQ(clip(DType::kFloat16, std::vector<uint16_t>{kNeg, kPos, kNeg, kPos},
                 std::vector<uint16_t>{kPos, kNeg, kMinusOne, kMinusOne},
                 std::vector<uint16_t>{kOne, kOne, kPos, kNeg}),
            (std::vector<uint16_t>{kNeg, kPos, kNeg, kPos}));
  // float32 takes the bound: compare bits, since -0.0f == 0.0f.
  const std::vector<float> got = clip(DType::kFloat32, std::vector<float>{-0.0f, 0.0f, -0.0f, 0.0f},
                                      std::vector<float>{0.0f, -0.0f, -1.0f, -1.0f},
                                      std::vector<float>{1.0f, 1.0f, 0.0f, -0.0f});
  std::vector<bool> negative;
  for (float v : got) negative.push_back(std::signbit(v));
  EXPECT_EQ(negative, (std::vector<bool>{false, true, false, true}));
}

REGISTER_TYPED_TEST_SUITE_P(ElementwiseConformanceTest, MissingLoopIsUnimplemented,
                            ClipTiesOfSignedZerosFollowTheLoopDType);

}  // namespace arrayhub
