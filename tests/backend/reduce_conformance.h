// What every backend's reductions give where there is nothing to reduce (see
// backend_conformance.h): NumPy's identities for sum, prod, any and all, NaN for mean, var and
// std (complex: NaN in both parts), and no write at all when the output is empty; and the
// variance of single elements, which the engine asks for over an added axis of length 1.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <vector>

#include "tests/backend/backend_conformance.h"
#include "tests/support/test_queue.h"

namespace arrayhub {

template <typename Factory>
class ReduceConformanceTest : public BackendTest<Factory> {
 protected:
  // `op` over `axes` of `input` into a new C-contiguous `Out` array of `shape`.
  template <typename Out>
  std::vector<Out> Reduce(ReduceOp op, const ArrayView& input, std::vector<int64_t> axes,
                          DType accumulate, DType out_dtype, const Shape& shape, double ddof = 0) {
    const ArrayView output = this->Output(out_dtype, shape);
    const ReduceCall call{.op = op,
                          .input = input,
                          .axes = std::move(axes),
                          .accumulate_dtype = accumulate,
                          .ddof = ddof,
                          .output = output};
    const absl::Status status = this->backend().compute().Reduce(TestQueue(this->backend()), call);
    EXPECT_TRUE(status.ok()) << status;
    return this->template Read<Out>(output);
  }
};

TYPED_TEST_SUITE_P(ReduceConformanceTest);

TYPED_TEST_P(ReduceConformanceTest, EmptyReductionsGiveIdentitiesAndNan) {
  const ArrayView empty = this->Array(DType::kInt32, std::vector<int32_t>{}, {3, 0});
  auto reduce = [&](ReduceOp op, DType dtype) {  // Into a (3,) array of `dtype`, as int64.
    std::vector<int64_t> values;
    if (dtype == DType::kBool) {
      for (uint8_t v : this->template Reduce<uint8_t>(op, empty, {1}, dtype, dtype, {3})) {
        values.push_back(v);
      }
      return values;
    }
    return this->template Reduce<int64_t>(op, empty, {1}, dtype, dtype, {3});
  };
  EXPECT_EQ(reduce(ReduceOp::kSum, DType::kInt64), (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(reduce(ReduceOp::kProd, DType::kInt64), (std::vector<int64_t>{1, 1, 1}));
  EXPECT_EQ(reduce(ReduceOp::kAny, DType::kBool), (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(reduce(ReduceOp::kAll, DType::kBool), (std::vector<int64_t>{1, 1, 1}));
  for (ReduceOp op : {ReduceOp::kMean, ReduceOp::kVar, ReduceOp::kStd}) {
    for (double v :
         this->template Reduce<double>(op, empty, {1}, DType::kFloat64, DType::kFloat64, {3})) {
      EXPECT_TRUE(std::isnan(v));
    }
  }
  // Nothing to write when the kept extent is 0.
  const ReduceCall call{.op = ReduceOp::kMax,
                        .input = this->Array(DType::kInt32, std::vector<int32_t>{}, {0, 3}),
                        .axes = {1},
                        .accumulate_dtype = DType::kInt32,
                        .output = this->Output(DType::kInt64, {0})};
  EXPECT_TRUE(this->backend().compute().Reduce(TestQueue(this->backend()), call).ok());
}

TYPED_TEST_P(ReduceConformanceTest, EmptyComplexMeanIsNanNan) {
  const ArrayView empty =
      this->Array(DType::kComplex128, std::vector<std::complex<double>>{}, {5, 0, 3});
  const std::vector<std::complex<double>> means = this->template Reduce<std::complex<double>>(
      ReduceOp::kMean, empty, {1}, DType::kComplex128, DType::kComplex128, {5, 3});
  ASSERT_EQ(means.size(), 15u);
  for (size_t i = 0; i < means.size(); ++i) {
    EXPECT_TRUE(std::isnan(means[i].real()) && std::isnan(means[i].imag())) << "element " << i;
  }
}

TYPED_TEST_P(ReduceConformanceTest, VarianceOfOneElementIsNanForNanAndInf) {
  // np.var(np.float64(x)) for x = nan, inf, -inf, 2: nan, nan, nan, 0; with ddof=1 all nan.
  // The engine reduces a 0-d input (or axis=()) over an appended axis of length 1, stride 1.
  const double inf = std::numeric_limits<double>::infinity();
  ArrayView single = this->Array(DType::kFloat64, std::vector<double>{NAN, inf, -inf, 2.0}, {4});
  single.shape.push_back(1);
  single.strides.push_back(1);
  const std::vector<double> var = this->template Reduce<double>(
      ReduceOp::kVar, single, {1}, DType::kFloat64, DType::kFloat64, {4});
  ASSERT_EQ(var.size(), 4u);
  EXPECT_TRUE(std::isnan(var[0]) && std::isnan(var[1]) && std::isnan(var[2]));
  EXPECT_EQ(var[3], 0.0);
  for (double v : this->template Reduce<double>(ReduceOp::kStd, single, {1}, DType::kFloat64,
                                                DType::kFloat64, {4}, /*ddof=*/1)) {
    EXPECT_TRUE(std::isnan(v));
  }
}

TYPED_TEST_P(ReduceConformanceTest, NonIntegralDdofDividesInFloatingPoint) {
  // np.var([1., 2., 3.], ddof=d): 2 / max(3 - d, 0): 0.8 for 0.5, 4 for 2.5, inf for 3.5,
  // NaN for NaN, 0 for -inf; np.std(np.float32([1, 2, 3]), ddof=1.5) = sqrt(2 / 1.5).
  const double inf = std::numeric_limits<double>::infinity();
  const ArrayView values = this->Array(DType::kFloat64, std::vector<double>{1, 2, 3}, {3});
  const auto var = [&](double ddof) {
    return this->template Reduce<double>(ReduceOp::kVar, values, {0}, DType::kFloat64,
                                         DType::kFloat64, {}, ddof)[0];
  };
  EXPECT_DOUBLE_EQ(var(0.5), 0.8);
  EXPECT_DOUBLE_EQ(var(2.5), 4.0);
  EXPECT_EQ(var(3.5), inf);
  EXPECT_TRUE(std::isnan(var(NAN)));
  EXPECT_EQ(var(-inf), 0.0);
  const ArrayView floats = this->Array(DType::kFloat32, std::vector<float>{1, 2, 3}, {3});
  EXPECT_FLOAT_EQ(this->template Reduce<float>(ReduceOp::kStd, floats, {0}, DType::kFloat64,
                                               DType::kFloat32, {}, 1.5)[0],
                  std::sqrt(2.0f / 1.5f));
}

REGISTER_TYPED_TEST_SUITE_P(ReduceConformanceTest, EmptyReductionsGiveIdentitiesAndNan,
                            EmptyComplexMeanIsNanNan, VarianceOfOneElementIsNanForNanAndInf,
                            NonIntegralDdofDividesInFloatingPoint);

}  // namespace arrayhub
