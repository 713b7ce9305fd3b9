// Reduction resolution against NumPy 2.4: every reduction over every dtype, dtype= for the ones
// that take it, and axis cases on shapes with 0-d and zero-size extents, from
// tests/core/ufunc_expected.inc (tests/reference/gen_ufunc_expected.py). Then what NumPy does
// not show: accumulation dtypes, arguments NumPy does not take.

#include "server/core/reduction_rules.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>

namespace arrayhub {
namespace {

struct ReduceCase {
  std::string_view op, dtype;
  std::string_view shape;      // Extents separated by spaces.
  std::string_view axis;       // "none", "()" or axes separated by spaces.
  std::string_view requested;  // dtype=, or "".
  std::string_view outcome;    // The result dtype, or "ErrorType[: message]".
  std::string_view result_shape, keepdims_shape;
};

constexpr ReduceCase kCases[] = {
#define AH_REDUCE_CASES
#include "tests/core/ufunc_expected.inc"
#undef AH_REDUCE_CASES
};

std::vector<int64_t> Numbers(std::string_view text) {
  std::istringstream in{std::string(text)};
  std::vector<int64_t> numbers;
  for (int64_t n; in >> n;) numbers.push_back(n);
  return numbers;
}

std::optional<std::vector<int64_t>> ParseAxes(std::string_view text) {
  if (text == "none") return std::nullopt;
  return Numbers(text == "()" ? "" : text);
}

// Deliberate differences: dtype= that NumPy takes and this server refuses (see the header).
bool RefusedDType(const ReduceCase& c) {
  if (c.requested.empty() || (c.op != "mean" && c.op != "var" && c.op != "std")) return false;
  const DType requested = *DTypeFromName(c.requested);
  const bool complex_variance =
      c.op != "mean" && IsComplex(*DTypeFromName(c.dtype)) && !IsComplex(requested);
  const bool integral = !IsFloating(requested) && !IsComplex(requested);
  return integral || complex_variance;
}

// Counts of the refused dtype= cases: all, and those NumPy answers.
struct Refusals {
  int all = 0;
  int numpy_accepts = 0;
};

void CheckCase(const ReduceCase& c, Refusals& refused) {
  SCOPED_TRACE(::testing::Message() << c.op << "(" << c.dtype << " (" << c.shape
                                    << "), axis=" << c.axis << ", dtype=" << c.requested << ")");
  const std::optional<ReduceOp> op = ReduceOpFromName(c.op);
  ASSERT_TRUE(op.has_value());
  const std::optional<DType> requested =
      c.requested.empty() ? std::nullopt : DTypeFromName(c.requested);
  const absl::StatusOr<ReduceResolution> r = ResolveReduce(
      *op, *DTypeFromName(c.dtype), Numbers(c.shape), ParseAxes(c.axis), requested, 0);
  if (RefusedDType(c)) {
    ++refused.all;
    refused.numpy_accepts += std::islower(c.outcome.front()) ? 1 : 0;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    return;
  }
  if (std::isupper(c.outcome.front())) {
    ASSERT_FALSE(r.ok()) << "NumPy: " << c.outcome;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    const size_t colon = c.outcome.find(": ");
    if (colon != std::string_view::npos) {
      EXPECT_EQ(std::string(r.status().message()), c.outcome.substr(colon + 2));
    }
    return;
  }
  ASSERT_TRUE(r.ok()) << r.status() << "; NumPy gives " << c.outcome;
  EXPECT_EQ(DTypeName(r->result_dtype), c.outcome);
  EXPECT_EQ(r->result_shape, Numbers(c.result_shape));
  EXPECT_EQ(r->keepdims_shape, Numbers(c.keepdims_shape));
}

TEST(ReductionRulesTest, MatchesNumPyTable) {
  Refusals refused;
  for (const ReduceCase& c : kCases) CheckCase(c, refused);
  std::cout << "Checked " << std::size(kCases)
            << " NumPy reduction cases; deliberately refused: " << refused.all
            << " dtype= cases (integer/bool dtype for mean/var/std, real dtype for "
            << "var/std of complex), of which NumPy answers " << refused.numpy_accepts << "\n";
}

// --- Beyond the table ---------------------------------------------------------------------------

ReduceResolution Resolve(ReduceOp op, DType input, const Shape& shape,
                         std::optional<std::vector<int64_t>> axes = std::nullopt,
                         std::optional<DType> dtype = std::nullopt, double ddof = 0) {
  absl::StatusOr<ReduceResolution> r = ResolveReduce(op, input, shape, axes, dtype, ddof);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : ReduceResolution{};
}

void ExpectDTypes(const ReduceResolution& r, DType accumulate, DType result) {
  EXPECT_EQ(DTypeName(r.accumulate_dtype), DTypeName(accumulate));
  EXPECT_EQ(DTypeName(r.result_dtype), DTypeName(result));
}

void ExpectError(ReduceOp op, DType input, const Shape& shape,
                 std::optional<std::vector<int64_t>> axes, std::optional<DType> dtype, double ddof,
                 std::string_view message) {
  absl::StatusOr<ReduceResolution> r = ResolveReduce(op, input, shape, axes, dtype, ddof);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(r.status().message()), message);
}

TEST(ReductionRulesTest, AccumulationDTypes) {
  const Shape shape = {4};
  ExpectDTypes(Resolve(ReduceOp::kSum, DType::kInt8, shape), DType::kInt64, DType::kInt64);
  ExpectDTypes(Resolve(ReduceOp::kProd, DType::kUInt16, shape), DType::kUInt64, DType::kUInt64);
  ExpectDTypes(Resolve(ReduceOp::kSum, DType::kBool, shape), DType::kInt64, DType::kInt64);
  ExpectDTypes(Resolve(ReduceOp::kSum, DType::kFloat16, shape), DType::kFloat32, DType::kFloat16);
  ExpectDTypes(Resolve(ReduceOp::kSum, DType::kFloat32, shape), DType::kFloat64, DType::kFloat32);
  ExpectDTypes(Resolve(ReduceOp::kProd, DType::kFloat32, shape), DType::kFloat32, DType::kFloat32);
  ExpectDTypes(Resolve(ReduceOp::kProd, DType::kFloat16, shape), DType::kFloat32, DType::kFloat16);
  ExpectDTypes(Resolve(ReduceOp::kSum, DType::kComplex64, shape), DType::kComplex64,
               DType::kComplex64);
  ExpectDTypes(Resolve(ReduceOp::kMean, DType::kInt32, shape), DType::kFloat64, DType::kFloat64);
  ExpectDTypes(Resolve(ReduceOp::kMean, DType::kFloat16, shape), DType::kFloat32, DType::kFloat16);
  ExpectDTypes(Resolve(ReduceOp::kMean, DType::kFloat32, shape), DType::kFloat64, DType::kFloat32);
  ExpectDTypes(Resolve(ReduceOp::kVar, DType::kUInt8, shape), DType::kFloat64, DType::kFloat64);
  ExpectDTypes(Resolve(ReduceOp::kStd, DType::kComplex64, shape), DType::kComplex64,
               DType::kFloat32);
  ExpectDTypes(Resolve(ReduceOp::kVar, DType::kFloat16, shape), DType::kFloat32, DType::kFloat16);
  ExpectDTypes(Resolve(ReduceOp::kMin, DType::kUInt32, shape), DType::kUInt32, DType::kUInt32);
  ExpectDTypes(Resolve(ReduceOp::kArgmax, DType::kFloat16, shape), DType::kFloat16, DType::kInt64);
  ExpectDTypes(Resolve(ReduceOp::kAny, DType::kComplex128, shape), DType::kBool, DType::kBool);
}

TEST(ReductionRulesTest, DTypeArgumentSetsTheResult) {
  const Shape shape = {4};
  // Integer sums accumulate in 64 bits whatever the result type; the final cast wraps alike.
  ExpectDTypes(Resolve(ReduceOp::kSum, DType::kInt64, shape, std::nullopt, DType::kInt8),
               DType::kInt64, DType::kInt8);
  ExpectDTypes(Resolve(ReduceOp::kSum, DType::kFloat64, shape, std::nullopt, DType::kUInt8),
               DType::kUInt64, DType::kUInt8);
  ExpectDTypes(Resolve(ReduceOp::kSum, DType::kFloat64, shape, std::nullopt, DType::kFloat32),
               DType::kFloat64, DType::kFloat32);
  ExpectDTypes(Resolve(ReduceOp::kMean, DType::kInt8, shape, std::nullopt, DType::kFloat16),
               DType::kFloat32, DType::kFloat16);
  ExpectDTypes(Resolve(ReduceOp::kVar, DType::kComplex64, shape, std::nullopt, DType::kComplex128),
               DType::kComplex128, DType::kComplex128);
  ExpectError(ReduceOp::kMean, DType::kInt8, shape, std::nullopt, DType::kInt8, 0,
              "mean with dtype=int8 is not supported: NumPy computes it in truncating integer "
              "arithmetic; ask for a float or complex dtype");
  ExpectError(ReduceOp::kStd, DType::kComplex128, shape, std::nullopt, DType::kFloat64, 0,
              "std of a complex array with dtype=float64 is not supported: NumPy drops the "
              "imaginary part of the mean; ask for a complex dtype");
  ExpectError(ReduceOp::kMax, DType::kInt8, shape, std::nullopt, DType::kInt16, 0,
              "max takes no dtype argument");
  ExpectError(ReduceOp::kAll, DType::kInt8, shape, std::nullopt, DType::kBool, 0,
              "all takes no dtype argument");
}

TEST(ReductionRulesTest, Ddof) {
  EXPECT_EQ(
      Resolve(ReduceOp::kVar, DType::kFloat64, {3}, std::nullopt, std::nullopt, -1).result_dtype,
      DType::kFloat64);  // NumPy accepts a negative ddof.
  Resolve(ReduceOp::kStd, DType::kFloat64, {3}, std::nullopt, std::nullopt, 5);
  // Any real, as NumPy (n - ddof <= 0 gives inf or NaN, not an error).
  for (double ddof : {0.5, 3.5, -2.25, std::nan(""), std::numeric_limits<double>::infinity()}) {
    Resolve(ReduceOp::kVar, DType::kInt16, {3}, std::nullopt, std::nullopt, ddof);
  }
  ExpectError(ReduceOp::kSum, DType::kFloat64, {3}, std::nullopt, std::nullopt, 1,
              "sum takes no ddof argument");
  ExpectError(ReduceOp::kMean, DType::kFloat64, {3}, std::nullopt, std::nullopt, 0.5,
              "mean takes no ddof argument");
  ExpectError(ReduceOp::kMax, DType::kFloat64, {3}, std::nullopt, std::nullopt, std::nan(""),
              "max takes no ddof argument");
}

TEST(ReductionRulesTest, Axes) {
  const ReduceResolution r =
      Resolve(ReduceOp::kSum, DType::kFloat64, {2, 3, 4}, std::vector<int64_t>{-1, 0});
  EXPECT_EQ(r.axes, (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(r.result_shape, Shape{3});
  EXPECT_EQ(r.keepdims_shape, (Shape{1, 3, 1}));
  // axis=() reduces nothing; so does any axis of a 0-d input.
  EXPECT_TRUE(Resolve(ReduceOp::kMean, DType::kInt8, {2, 0}, std::vector<int64_t>{}).axes.empty());
  EXPECT_TRUE(Resolve(ReduceOp::kMin, DType::kInt8, {}).axes.empty());
  EXPECT_TRUE(Resolve(ReduceOp::kArgmax, DType::kInt8, {}, std::vector<int64_t>{-1}).axes.empty());
  // argmin/argmax over all axes flatten.
  EXPECT_EQ(Resolve(ReduceOp::kArgmin, DType::kInt8, {2, 3}).axes, (std::vector<int64_t>{0, 1}));
  ExpectError(ReduceOp::kArgmin, DType::kFloat64, {2, 3}, std::vector<int64_t>{0, 1}, std::nullopt,
              0, "argmin takes a single axis or none (all, flattened); got 2");
  ExpectError(ReduceOp::kSum, DType::kFloat64, {2, 3}, std::vector<int64_t>{0, 5, 0}, std::nullopt,
              0, "axis 5 is out of bounds for array of dimension 2");
  ExpectError(ReduceOp::kAny, DType::kFloat64, {2, 3}, std::vector<int64_t>{1, -1}, std::nullopt, 0,
              "duplicate value in 'axis'");
}

}  // namespace
}  // namespace arrayhub
