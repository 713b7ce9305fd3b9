// The functions the C++ client composes from server ops (statistics.h, sets.h, histograms.h,
// sorting.h, signal.h and Linalg's extras), on small random data each run: each result is
// checked against a float64 reference computed here with plain loops, or against NumPy 2's
// values and messages where a test names the NumPy expression. Inputs include NaNs, empty
// arrays, axis=None, negative axes and non-contiguous views.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <numeric>
#include <random>

#include "arrayhub/arrayhub.h"
#include "tests/support/client_expect.h"
#include "tests/support/seeded_client_test.h"

namespace arrayhub::testing {
namespace {

using client::Array;
using client::DType;
using client::Shape;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Equal values, NaN matching NaN, within a relative tolerance.
void ExpectClose(const std::vector<double>& actual, const std::vector<double>& expected,
                 double tolerance = 1e-12) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    if (std::isnan(expected[i])) {
      EXPECT_TRUE(std::isnan(actual[i])) << "at " << i << ": " << actual[i];
    } else {
      EXPECT_NEAR(actual[i], expected[i], tolerance * std::max(1.0, std::abs(expected[i])))
          << "at " << i;
    }
  }
}

// NumPy's linear quantile of the values (NaN if one is NaN); empty values give NaN.
double LinearQuantile(std::vector<double> values, double q) {
  if (values.empty()) return kNaN;
  for (double v : values) {
    if (std::isnan(v)) return kNaN;
  }
  std::sort(values.begin(), values.end());
  const double index = (static_cast<double>(values.size()) - 1) * q;
  const auto below = static_cast<size_t>(std::floor(index));
  const size_t above = std::min(below + 1, values.size() - 1);
  const double t = index - std::floor(index);
  const double diff = values[above] - values[below];
  return t >= 0.5 ? values[above] - diff * (1 - t) : values[below] + diff * t;
}

std::vector<double> WithoutNaN(const std::vector<double>& values) {
  std::vector<double> kept;
  for (double v : values) {
    if (!std::isnan(v)) kept.push_back(v);
  }
  return kept;
}

// C = A B of C-order (n, k) and (k, m) matrices.
std::vector<double> HostMatmul(const std::vector<double>& a, const std::vector<double>& b,
                               int64_t n, int64_t k, int64_t m) {
  std::vector<double> c(n * m, 0.0);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < m; ++j) {
      for (int64_t l = 0; l < k; ++l) c[i * m + j] += a[i * k + l] * b[l * m + j];
    }
  }
  return c;
}

// NumPy's full convolution of two sequences.
std::vector<double> HostConvolve(const std::vector<double>& a, const std::vector<double>& v) {
  std::vector<double> c(a.size() + v.size() - 1, 0.0);
  for (size_t i = 0; i < a.size(); ++i) {
    for (size_t j = 0; j < v.size(); ++j) c[i + j] += a[i] * v[j];
  }
  return c;
}

class ComposedTest : public SeededClientTest {
 protected:
  // Column j of a C-order (rows, cols) matrix.
  static std::vector<double> Column(const std::vector<double>& m, int64_t cols, int64_t j) {
    std::vector<double> column;
    for (size_t i = j; i < m.size(); i += cols) column.push_back(m[i]);
    return column;
  }
  std::vector<int64_t> Ints(const Array& array) { return client().Download<int64_t>(array); }
  Array Upload(const std::vector<double>& values, const Shape& shape) {
    return client().Upload(values, shape);
  }
  Array UploadInts(const std::vector<int64_t>& values) {
    return client().Upload(values, {static_cast<int64_t>(values.size())});
  }
};

// --- statistics ------------------------------------------------------------------------------

TEST_F(ComposedTest, NanReductionsSkipNaNs) {
  std::vector<double> host = Random(20);
  host[3] = host[7] = kNaN;
  for (int64_t i = 0; i < 4; ++i) host[i * 5 + 4] = kNaN;  // Column 4: all NaN.
  const Array a = Upload(host, {4, 5});
  const std::vector<double> valid = WithoutNaN(host);
  const double total = std::accumulate(valid.begin(), valid.end(), 0.0);
  const double average = total / static_cast<double>(valid.size());
  double squares = 0;
  for (double v : valid) squares += (v - average) * (v - average);
  ExpectClose(Get(client::nansum(a)), {total});
  ExpectClose(Get(client::nanmean(a)), {average});
  ExpectClose(Get(client::nanvar(a, {.ddof = 1})), {squares / (valid.size() - 1.0)});
  ExpectClose(Get(client::nanstd(a)), {std::sqrt(squares / valid.size())});
  ExpectClose(Get(client::nanmax(a)), {*std::max_element(valid.begin(), valid.end())});
  // Per column (axis -2): column 4 is all NaN.
  const client::ReduceOptions columns{.axis = std::vector<int64_t>{-2}};
  std::vector<double> sums, means, mins;
  for (int64_t j = 0; j < 5; ++j) {
    const std::vector<double> v = WithoutNaN(Column(host, 5, j));
    sums.push_back(std::accumulate(v.begin(), v.end(), 0.0));
    means.push_back(v.empty() ? kNaN : sums.back() / v.size());
    mins.push_back(v.empty() ? kNaN : *std::min_element(v.begin(), v.end()));
  }
  ExpectClose(Get(client::nansum(a, columns)), sums);
  ExpectClose(Get(client::nanmean(a, columns)), means);
  ExpectClose(Get(client::nanmin(a, columns)), mins);
  // nanprod and the scans count NaN as the identity.
  const Array small = Upload({2, kNaN, 3, kNaN}, {4});
  ExpectClose(Get(client::nanprod(small)), {6});
  ExpectClose(Get(client::nancumsum(small)), {2, 2, 5, 5});
  ExpectClose(Get(client::nancumprod(small)), {2, 2, 6, 6});
  EXPECT_EQ(Ints(client::nanargmax(small)), std::vector<int64_t>{2});
  EXPECT_CLIENT_ERROR(client::nanargmin(a, columns), kInvalidArgument, "All-NaN slice encountered");
  EXPECT_CLIENT_ERROR(client::nanmin(client().Empty({0, 3})), kInvalidArgument,
                      "zero-size array to reduction operation fmin which has no identity");
  EXPECT_CLIENT_ERROR(client::nanmean(a, {.dtype = DType::kInt64}), kInvalidArgument,
                      "If a is inexact, then dtype must be inexact");
  EXPECT_CLIENT_ERROR(client::nansum(a, {.axis = std::vector<int64_t>{2}}), kInvalidArgument,
                      "axis 2 is out of bounds for array of dimension 2");
  // Complex: NaN in either part; the variance is real.
  const Array z =
      client().Upload(std::vector<std::complex<double>>{{1, 1}, {kNaN, 0}, {3, 1}, {0, kNaN}}, {4});
  const Array z_var = client::nanvar(z);
  EXPECT_EQ(z_var.dtype(), DType::kFloat64);
  ExpectClose(Get(z_var), {1});
  // Integers have no NaNs: the plain reductions, float32 kept for floats.
  EXPECT_EQ(Ints(client::nansum(UploadInts({1, 2, 3}))), std::vector<int64_t>{6});
  EXPECT_EQ(client::nanmean(client().Ones({3}, DType::kFloat32)).dtype(), DType::kFloat32);
}

TEST_F(ComposedTest, AveragePtpWithWeights) {
  const std::vector<double> host = Random(12);
  const Array a = Upload(host, {3, 4});
  const std::vector<double> weights = {1, 2, 3, 4};
  const Array w = Upload(weights, {4});
  std::vector<double> expected, ranges;
  for (int64_t i = 0; i < 3; ++i) {
    double num = 0, den = 0, low = host[i * 4], high = host[i * 4];
    for (int64_t j = 0; j < 4; ++j) {
      num += host[i * 4 + j] * weights[j];
      den += weights[j];
      low = std::min(low, host[i * 4 + j]);
      high = std::max(high, host[i * 4 + j]);
    }
    expected.push_back(num / den);
    ranges.push_back(high - low);
  }
  const client::AverageResult r =
      client::average_returned(a, {.axis = std::vector<int64_t>{-1}, .weights = &w});
  ExpectClose(Get(r.average), expected);
  ExpectClose(Get(r.sum_of_weights), {10, 10, 10});
  ExpectClose(Get(client::ptp(a, {.axis = std::vector<int64_t>{1}})), ranges);
  // Integers average in float64; weights promote with a as NumPy's result_type.
  EXPECT_EQ(client::average(UploadInts({1, 2})).dtype(), DType::kFloat64);
  const Array f32 = client().Ones({3}, DType::kFloat32);
  const Array w16 = client().Ones({3}, DType::kInt16), w64 = client().Ones({3}, DType::kInt64);
  const Array wu8 = client().Ones({3}, DType::kUInt8), w8 = client().Ones({3}, DType::kInt8);
  EXPECT_EQ(client::average(f32, {.weights = &w16}).dtype(), DType::kFloat32);
  EXPECT_EQ(client::average(f32, {.weights = &w64}).dtype(), DType::kFloat64);
  EXPECT_EQ(client::average(wu8, {.weights = &w8}).dtype(), DType::kFloat64);
  EXPECT_EQ(client::isin(wu8, w8).dtype(), DType::kBool);
  ExpectClose(Get(client::average(wu8, {.weights = &w8})), {1});
  const Array zeros = client().Zeros({4});
  EXPECT_CLIENT_ERROR(client::average(a, {.axis = std::vector<int64_t>{1}, .weights = &zeros}),
                      kInvalidArgument, "Weights sum to zero, can't be normalized");
  EXPECT_CLIENT_ERROR(client::average(a, {.weights = &w}), kInvalidArgument,
                      "Axis must be specified when shapes of a and weights differ.");
  EXPECT_CLIENT_ERROR(client::average(a, {.axis = std::vector<int64_t>{0}, .weights = &w}),
                      kInvalidArgument, "Shape of weights must be consistent");
}

// Quantiles partition at the ranks they read (the neighbours of each q, and the last, NaN where
// a slice has one), and sort past 1024 ranks: both agree with NumPy.
TEST_F(ComposedTest, QuantilesSelectOnlyTheRanksTheyRead) {
  const std::vector<double> host = Random(3000);
  const Array a = Upload(host, {3000});
  std::vector<double> many_q, many;  // About 3000 ranks: sorted.
  for (int i = 0; i < 1500; ++i) many_q.push_back(i / 1499.0);
  for (double q : many_q) many.push_back(LinearQuantile(host, q));
  ExpectClose(Get(client::quantile(a, many_q)), many);
  std::vector<double> grid = Random(44);  // (11, 4), a NaN in column 3.
  grid[7] = kNaN;
  const Array g = Upload(grid, {11, 4});
  const std::vector<double> qs = {0, 0.1, 0.55, 1};
  std::vector<double> expected, medians, lower;
  for (double q : qs) {
    for (int64_t j = 0; j < 4; ++j) expected.push_back(LinearQuantile(Column(grid, 4, j), q));
  }
  for (int64_t j = 0; j < 4; ++j) {
    std::vector<double> column = Column(grid, 4, j);
    medians.push_back(LinearQuantile(column, 0.5));
    std::sort(column.begin(), column.end());  // NaN only in column 3, which gives NaN.
    lower.push_back(j == 3 ? kNaN : column[static_cast<size_t>(std::floor(10 * 0.35))]);
  }
  ExpectClose(Get(client::quantile(g, qs, {.axis = std::vector<int64_t>{0}})), expected);
  ExpectClose(Get(client::median(g, std::vector<int64_t>{0})), medians);
  ExpectClose(Get(client::quantile(g, 0.35, {.axis = std::vector<int64_t>{0}, .method = "lower"})),
              lower);
}

TEST_F(ComposedTest, QuantilesMatchNumPysFormulas) {
  std::vector<double> host = Random(30);
  const Array a = Upload(host, {5, 6});
  const Array at = client().Transpose(a);  // Non-contiguous (6, 5).
  // axis=None, scalar q: one value.
  ExpectClose(Get(client::quantile(a, 0.3)), {LinearQuantile(host, 0.3)});
  ExpectClose(Get(client::median(a)), {LinearQuantile(host, 0.5)});
  // Along a negative axis of the transposed view (the columns of a), q a vector.
  const std::vector<double> qs = {0, 0.25, 0.9, 1};
  std::vector<double> expected;
  for (double q : qs) {
    for (int64_t j = 0; j < 6; ++j) expected.push_back(LinearQuantile(Column(host, 6, j), q));
  }
  const Array r = client::quantile(at, qs, {.axis = std::vector<int64_t>{-1}});
  EXPECT_EQ(r.shape(), (Shape{4, 6}));
  ExpectClose(Get(r), expected);
  std::vector<double> percent = qs;
  for (double& p : percent) p *= 100;
  ExpectClose(Get(client::percentile(at, percent, {.axis = std::vector<int64_t>{1}})), expected);
  EXPECT_EQ(client::median(a, std::vector<int64_t>{0}, true).shape(), (Shape{1, 6}));
  // NumPy: np.quantile([1, 2, 3, 4], 0.4, method=m) for the discrete and other methods.
  const Array four = Upload({4, 1, 3, 2}, {4});
  const std::vector<std::pair<std::string, double>> methods = {
      {"lower", 2},
      {"higher", 3},
      {"nearest", 2},
      {"midpoint", 2.5},
      {"inverted_cdf", 2},
      {"averaged_inverted_cdf", 2},
      {"closest_observation", 2},
      {"interpolated_inverted_cdf", 1.6},
      {"hazen", 2.1},
      {"weibull", 2.0},
      {"median_unbiased", 2.0666666666666667},
      {"normal_unbiased", 2.075}};
  for (const auto& [method, value] : methods) {
    ExpectClose(Get(client::quantile(four, 0.4, {.method = method})), {value});
  }
  // A weak q keeps float32; a NaN makes its slice NaN; integers interpolate in float64.
  EXPECT_EQ(client::quantile(client().Ones({3}, DType::kFloat32), 0.5).dtype(), DType::kFloat32);
  host[0] = kNaN;
  const Array with_nan = Upload(host, {5, 6});
  const std::vector<double> column0 = WithoutNaN(Column(host, 6, 0));
  const Array q_nan = client::quantile(with_nan, 0.5, {.axis = std::vector<int64_t>{0}});
  EXPECT_TRUE(std::isnan(Get(q_nan)[0]));
  ExpectClose({Get(client::nanmedian(with_nan, std::vector<int64_t>{0}))[0]},
              {LinearQuantile(column0, 0.5)});
  ExpectClose(Get(client::nanpercentile(Upload({kNaN, 1, kNaN, 3}, {2, 2}), 50.0,
                                        {.axis = std::vector<int64_t>{0}})),
              {kNaN, 2});
  ExpectClose(Get(client::median(UploadInts({1, 2, 4, 7}))), {3});
  // NumPy: the median of nothing is NaN (with a warning); keepdims keeps the reduced axes.
  EXPECT_TRUE(std::isnan(Get(client::median(client().Empty({0})))[0]));
  EXPECT_EQ(client::quantile(a, std::vector<double>{0.5, 0.6},
                             {.axis = std::vector<int64_t>{-1}, .keepdims = true})
                .shape(),
            (Shape{2, 5, 1}));
  EXPECT_CLIENT_ERROR(client::quantile(a, 1.5), kInvalidArgument,
                      "Quantiles must be in the range [0, 1]");
  EXPECT_CLIENT_ERROR(client::percentile(a, -1.0), kInvalidArgument,
                      "Percentiles must be in the range [0, 100]");
  EXPECT_CLIENT_ERROR(client::quantile(a, 0.5, {.method = "bogus"}), kInvalidArgument,
                      "'bogus' is not a valid method. Use one of: dict_keys(['inverted_cdf'");
  EXPECT_CLIENT_ERROR(client::quantile(client().Empty({0}), 0.5), kInvalidArgument,
                      "index -1 is out of bounds for axis 0 with size 0");
  EXPECT_CLIENT_ERROR(client::median(a, std::vector<int64_t>{0, 0}), kInvalidArgument,
                      "repeated axis");
  // Weights (inverted_cdf): NumPy's np.quantile([[1, 2, 3, 4], [4, 3, nan, 1]], [0.2, 0.5],
  // axis=1, method='inverted_cdf', weights=[1, 0, 2, 1]) == [[1, nan], [3, nan]] and
  // np.nanquantile of the same is [[1, 1], [3, 1]].
  const Array rows = Upload({1, 2, 3, 4, 4, 3, kNaN, 1}, {2, 4});
  const Array w = Upload({1, 0, 2, 1}, {4});
  const client::QuantileOptions weighted{
      .axis = std::vector<int64_t>{1}, .method = "inverted_cdf", .weights = &w};
  ExpectClose(Get(client::quantile(rows, {0.2, 0.5}, weighted)), {1, kNaN, 3, kNaN});
  ExpectClose(Get(client::nanquantile(rows, {0.2, 0.5}, weighted)), {1, 1, 3, 1});
  EXPECT_CLIENT_ERROR(client::quantile(rows, 0.5, {.axis = std::vector<int64_t>{1}, .weights = &w}),
                      kInvalidArgument,
                      "Only method 'inverted_cdf' supports weights. Got: linear.");
  const Array zero_weights = client().Zeros({4});
  EXPECT_CLIENT_ERROR(
      client::quantile(
          rows, 0.5,
          {.axis = std::vector<int64_t>{1}, .method = "inverted_cdf", .weights = &zero_weights}),
      kInvalidArgument, "Weights included NaN, inf or were all zero.");
  // An empty nanquantile is NumPy's mean of nothing.
  EXPECT_TRUE(std::isnan(Get(client::nanquantile(client().Empty({0}), 0.5))[0]));
}

TEST_F(ComposedTest, CovAndCorrcoef) {
  const std::vector<double> host = Random(12);
  const Array m = Upload(host, {3, 4});  // 3 variables, 4 observations.
  std::vector<double> means(3, 0.0);
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t k = 0; k < 4; ++k) means[i] += host[i * 4 + k] / 4;
  }
  std::vector<double> c(9, 0.0), r(9);
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 0; j < 3; ++j) {
      for (int64_t k = 0; k < 4; ++k) {
        c[i * 3 + j] += (host[i * 4 + k] - means[i]) * (host[j * 4 + k] - means[j]) / 3;
      }
    }
  }
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 0; j < 3; ++j) {
      r[i * 3 + j] = std::clamp(c[i * 3 + j] / std::sqrt(c[i * 4] * c[j * 4]), -1.0, 1.0);
    }
  }
  ExpectClose(Get(client::cov(m)), c);
  ExpectClose(Get(client::cov(client().Transpose(m), {.rowvar = false})), c);
  ExpectClose(Get(client::corrcoef(m)), r);
  // Frequency weights of 1 and bias: the same as ddof 0.
  const Array ones = client().Ones({4});
  std::vector<double> biased = c;
  for (double& value : biased) value *= 3.0 / 4.0;
  ExpectClose(Get(client::cov(m, {.bias = true, .fweights = &ones})), biased);
  ExpectClose(Get(client::cov(m, {.aweights = &ones})), c);
  const Array halves = client().Full({4}, 0.5);
  EXPECT_CLIENT_ERROR(client::cov(m, {.fweights = &halves}), kInvalidArgument,
                      "fweights must be integer");
  const Array negative = client().Full({4}, -1.0);
  EXPECT_CLIENT_ERROR(client::cov(m, {.aweights = &negative}), kInvalidArgument,
                      "aweights cannot be negative");
  EXPECT_CLIENT_ERROR(client::cov(client().Zeros({2, 2, 2})), kInvalidArgument,
                      "m has more than 2 dimensions");
}

// --- sorting and sets --------------------------------------------------------------------------

TEST_F(ComposedTest, PartitionAndLexsort) {
  const std::vector<double> host = Random(12);
  const Array a = Upload(host, {3, 4});
  const Array at = client().Transpose(a);  // (4, 3), non-contiguous.
  // A partition of every kth is the sorted row (the server sorts the whole axis).
  const std::vector<double> p = Get(client::partition(at, {1}, 0));
  for (int64_t j = 0; j < 3; ++j) {
    std::vector<double> row(host.begin() + j * 4, host.begin() + j * 4 + 4);
    std::sort(row.begin(), row.end());
    EXPECT_EQ(p[3 + j], row[1]);
    for (int64_t i = 0; i < 4; ++i) {
      EXPECT_EQ((p[i * 3 + j] <= row[1]), i <= 1);
    }
  }
  const std::vector<int64_t> order = Ints(client::argpartition(a, {-1}, std::nullopt));
  EXPECT_EQ(host[order.back()], *std::max_element(host.begin(), host.end()));
  EXPECT_CLIENT_ERROR(client::partition(a, {4}), kInvalidArgument, "kth(=4) out of bounds (4)");
  EXPECT_CLIENT_ERROR(client::partition(a, {0}, -3), kInvalidArgument,
                      "axis -3 is out of bounds for array of dimension 2");
  // NumPy: np.lexsort(([1, 5, 1, 4, 3], [4, 4, 1, 2, 2])) == [2, 4, 3, 0, 1].
  const Array first = UploadInts({1, 5, 1, 4, 3});
  const Array second = UploadInts({4, 4, 1, 2, 2});
  EXPECT_EQ(Ints(client::lexsort({first, second})), (std::vector<int64_t>{2, 4, 3, 0, 1}));
  EXPECT_CLIENT_ERROR(client::lexsort({}), kInvalidArgument,
                      "need sequence of keys with len > 0 in lexsort");
  const Array other = UploadInts({1, 2});
  EXPECT_CLIENT_ERROR(client::lexsort({first, other}), kInvalidArgument,
                      "all keys need to be the same shape");
}

TEST_F(ComposedTest, UniqueFlagsAndAxis) {
  // NumPy: np.unique([3, 1, 3, nan, 2, nan, 1], return_index=True, return_inverse=True,
  // return_counts=True).
  const Array a = Upload({3, 1, 3, kNaN, 2, kNaN, 1}, {7});
  const client::UniqueResult r =
      client::unique(a, {.return_index = true, .return_inverse = true, .return_counts = true});
  ExpectClose(Get(r.values), {1, 2, 3, kNaN});
  EXPECT_EQ(Ints(r.index), (std::vector<int64_t>{1, 4, 0, 3}));
  EXPECT_EQ(Ints(r.inverse), (std::vector<int64_t>{2, 0, 2, 3, 1, 3, 0}));
  EXPECT_EQ(Ints(r.counts), (std::vector<int64_t>{2, 1, 2, 2}));
  // equal_nan=False: each NaN its own value.
  EXPECT_EQ(client::unique(a, {.return_counts = true, .equal_nan = false}).values.size(), 5);
  // Rows of a 2-D integer array (axis 0), and its columns (axis -1) of the transposed view.
  const Array m = client().Upload(std::vector<int64_t>{1, 0, 0, 2, 1, 0, 1, 0, 0, 0, 3, 4},
                                  {4, 3});  // Rows [1 0 0], [2 1 0], [1 0 0], [0 3 4].
  const client::UniqueResult rows = client::unique(
      m, {.return_index = true, .return_inverse = true, .return_counts = true, .axis = 0});
  EXPECT_EQ(rows.values.shape(), (Shape{3, 3}));
  EXPECT_EQ(Ints(rows.values), (std::vector<int64_t>{0, 3, 4, 1, 0, 0, 2, 1, 0}));
  EXPECT_EQ(Ints(rows.index), (std::vector<int64_t>{3, 0, 1}));
  EXPECT_EQ(Ints(rows.inverse), (std::vector<int64_t>{1, 2, 1, 0}));
  EXPECT_EQ(Ints(rows.counts), (std::vector<int64_t>{1, 2, 1}));
  const client::UniqueResult columns = client::unique(client().Transpose(m), {.axis = -1});
  EXPECT_EQ(Ints(columns.values), Ints(client().Transpose(rows.values)));
  // Empty input.
  const client::UniqueResult empty =
      client::unique(client().Empty({0}), {.return_inverse = true, .return_counts = true});
  EXPECT_EQ(empty.values.size(), 0);
  EXPECT_EQ(empty.counts.size(), 0);
  EXPECT_CLIENT_ERROR(client::unique(m, {.axis = 2}), kInvalidArgument,
                      "axis 2 is out of bounds for array of dimension 2");
}

TEST_F(ComposedTest, SetOperations) {
  const Array a = UploadInts({5, 1, 3, 3, 7, 1});
  const Array b = UploadInts({3, 8, 1, 9});
  EXPECT_EQ(Ints(client::union1d(a, b)), (std::vector<int64_t>{1, 3, 5, 7, 8, 9}));
  EXPECT_EQ(Ints(client::intersect1d(a, b)), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(Ints(client::setdiff1d(a, b)), (std::vector<int64_t>{5, 7}));
  EXPECT_EQ(Ints(client::setxor1d(a, b)), (std::vector<int64_t>{5, 7, 8, 9}));
  // NumPy: np.intersect1d(a, b, return_indices=True) == ([1, 3], [1, 2], [2, 0]).
  const client::IntersectResult r = client::intersect1d_indices(a, b);
  EXPECT_EQ(Ints(r.values), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(Ints(r.indices1), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(Ints(r.indices2), (std::vector<int64_t>{2, 0}));
  // isin keeps element's shape (a non-contiguous 2-D view here), mixed dtypes promote.
  const Array grid = client().Transpose(client().Reshape(a, {2, 3}));
  const Array tests = Upload({3.0, 7.0}, {2});
  EXPECT_EQ(client().Download<bool>(client::isin(grid, tests)),
            (std::vector<bool>{false, true, false, true, true, false}));
  EXPECT_EQ(client().Download<bool>(client::isin(grid, tests, true)),
            (std::vector<bool>{true, false, true, false, false, true}));
  EXPECT_EQ(client().Download<bool>(client::isin(a, client().Empty({0}))),
            std::vector<bool>(6, false));
  EXPECT_EQ(client::setxor1d(client().Empty({0}), client().Empty({0})).size(), 0);
}

// --- histograms --------------------------------------------------------------------------------

TEST_F(ComposedTest, BincountAndDigitize) {
  const Array x = UploadInts({0, 1, 1, 3, 2, 1, 7});
  EXPECT_EQ(Ints(client::bincount(x)), (std::vector<int64_t>{1, 3, 1, 1, 0, 0, 0, 1}));
  const Array w = Upload({0.5, 1, 1, 1, 1, 1, 2}, {7});
  ExpectClose(Get(client::bincount(x, &w, 10)), {0.5, 3, 1, 1, 0, 0, 0, 2, 0, 0});
  EXPECT_EQ(Ints(client::bincount(client().Empty({0}, DType::kInt64), nullptr, 3)),
            (std::vector<int64_t>{0, 0, 0}));
  EXPECT_CLIENT_ERROR(client::bincount(UploadInts({1, -1})), kInvalidArgument,
                      "'list' argument must have no negative elements");
  EXPECT_CLIENT_ERROR(client::bincount(Upload({1.0}, {1})), kInvalidArgument,
                      "Cannot cast array data from dtype('float64') to dtype('int64') according "
                      "to the rule 'safe'");
  EXPECT_CLIENT_ERROR(client::bincount(client().Zeros({2, 2}, DType::kInt64)), kInvalidArgument,
                      "object too deep for desired array");
  // NumPy: np.digitize([0.2, 6.4, 3.0, 1.6, nan], [0, 1, 2.5, 4, 10]) == [1, 4, 3, 2, 5], and
  // with right=True and decreasing bins.
  const Array values = Upload({0.2, 6.4, 3.0, 1.6, kNaN}, {5});
  const Array bins = Upload({0, 1, 2.5, 4, 10}, {5});
  EXPECT_EQ(Ints(client::digitize(values, bins)), (std::vector<int64_t>{1, 4, 3, 2, 5}));
  const Array edges = UploadInts({1, 2, 3});
  EXPECT_EQ(Ints(client::digitize(UploadInts({1, 2, 3, 4}), edges, true)),
            (std::vector<int64_t>{0, 1, 2, 3}));
  const Array falling = Upload({10, 4, 2.5, 1, 0}, {5});
  EXPECT_EQ(Ints(client::digitize(values, falling)), (std::vector<int64_t>{4, 1, 2, 3, 0}));
  EXPECT_CLIENT_ERROR(client::digitize(values, Upload({1, 3, 2}, {3})), kInvalidArgument,
                      "bins must be monotonically increasing or decreasing");
}

TEST_F(ComposedTest, HistogramCountsEdgesAndDensity) {
  std::vector<double> host = Random(40);
  host[5] = kNaN;  // Outside every bin: dropped.
  const Array a = client().Transpose(Upload(host, {8, 5}));
  const std::vector<double> valid = WithoutNaN(host);
  const double low = -1.0, high = 1.0;
  std::vector<int64_t> expected(4, 0);
  for (double v : valid) {
    if (v < low || v > high) continue;
    expected[std::min<int64_t>(static_cast<int64_t>((v - low) / 0.5), 3)]++;
  }
  client::HistogramResult r = client::histogram(a, int64_t{4}, {.range = client::Range{-1, 1}});
  EXPECT_EQ(Ints(r.counts), expected);
  ExpectClose(Get(r.edges), {-1, -0.5, 0, 0.5, 1});
  // Explicit edges, weights and density: NumPy's np.histogram([1, 2, 2, 3, 5], [1, 2, 4, 5],
  // weights=[1, 1, 2, 1, 3], density=True) == [1/8, 3/16, 3/8].
  const Array small = Upload({1, 2, 2, 3, 5}, {5});
  const Array w = Upload({1, 1, 2, 1, 3}, {5});
  r = client::histogram(small, std::vector<double>{1, 2, 4, 5}, {.weights = &w});
  ExpectClose(Get(r.counts), {1, 4, 3});
  r = client::histogram(small, std::vector<double>{1, 2, 4, 5}, {.density = true, .weights = &w});
  ExpectClose(Get(r.counts), {1 / 8.0, 4 / 16.0, 3 / 8.0});
  // Bins from the data's extremes; integers get float64 edges; one value is widened by 0.5.
  r = client::histogram(UploadInts({3, 3}), int64_t{2});
  EXPECT_EQ(Ints(r.counts), (std::vector<int64_t>{0, 2}));
  ExpectClose(Get(r.edges), {2.5, 3, 3.5});
  // float32 data get float32 edges, compared in float32.
  r = client::histogram(client().Upload(std::vector<float>{0, 1, 2, 3, 4, 0.1f}, {6}), int64_t{4});
  EXPECT_EQ(Ints(r.counts), (std::vector<int64_t>{2, 1, 1, 2}));
  EXPECT_EQ(client().Download<float>(r.edges), (std::vector<float>{0, 1, 2, 3, 4}));
  r = client::histogram(client().Empty({0}), int64_t{2});
  EXPECT_EQ(Ints(r.counts), (std::vector<int64_t>{0, 0}));
  ExpectClose(Get(r.edges), {0, 0.5, 1});
  EXPECT_CLIENT_ERROR(client::histogram(a, int64_t{0}), kInvalidArgument,
                      "`bins` must be positive, when an integer");
  EXPECT_CLIENT_ERROR(client::histogram(a), kInvalidArgument,
                      "autodetected range of [nan, nan] is not finite");
  EXPECT_CLIENT_ERROR(client::histogram(a, int64_t{3}, {.range = client::Range{1, 0}}),
                      kInvalidArgument, "max must be larger than min in range parameter.");
  EXPECT_CLIENT_ERROR(client::histogram(a, std::vector<double>{0, 2, 1}), kInvalidArgument,
                      "`bins` must increase monotonically, when an array");
}

TEST_F(ComposedTest, Histogram2d) {
  // NumPy: np.histogram2d([0, 1, 1, 2, 3], [0, 0, 2, 1, 3], bins=2) counts [[2, 1], [1, 1]]
  // with edges [0, 1.5, 3] on both axes.
  const Array x = Upload({0, 1, 1, 2, 3}, {5});
  const Array y = Upload({0, 0, 2, 1, 3}, {5});
  client::Histogram2dResult r = client::histogram2d(x, y, int64_t{2});
  ExpectClose(Get(r.counts), {2, 1, 1, 1});
  ExpectClose(Get(r.x_edges), {0, 1.5, 3});
  ExpectClose(Get(r.y_edges), {0, 1.5, 3});
  const Array w = Upload({1, 2, 3, 4, 5}, {5});
  r = client::histogram2d(x, y,
                          {client::Bins{int64_t{1}}, client::Bins{std::vector<double>{0, 1, 4}}},
                          {.density = true, .weights = &w});
  // One x bin [0, 3], y bins [0, 1) and [1, 4]: weights 1 + 2 and 3 + 4 + 5, over 15 and areas.
  ExpectClose(Get(r.counts), {3 / 15.0 / 3.0, 12 / 15.0 / 9.0});
  EXPECT_CLIENT_ERROR(client::histogram2d(x, y, int64_t{-1}), kInvalidArgument,
                      "`bins[0]` must be positive, when an integer");
}

// --- linear algebra ----------------------------------------------------------------------------

TEST_F(ComposedTest, PinvMatrixPowerRankCond) {
  client::Linalg linalg = client().linalg();
  const std::vector<double> host = Random(12);
  const Array a = Upload(host, {4, 3});
  // Full column rank: pinv(a) a is the identity and a pinv(a) a is a.
  const std::vector<double> p = Get(linalg.Pinv(a));
  ExpectClose(HostMatmul(p, host, 3, 4, 3), {1, 0, 0, 0, 1, 0, 0, 0, 1}, 1e-10);
  ExpectClose(HostMatmul(HostMatmul(host, p, 4, 3, 4), host, 4, 4, 3), host, 1e-10);
  // Powers of a non-contiguous square matrix: 3, 0 and -2.
  const std::vector<double> square = Random(9);
  const Array s = client().Transpose(Upload(square, {3, 3}));
  std::vector<double> st(9);
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 0; j < 3; ++j) st[i * 3 + j] = square[j * 3 + i];
  }
  ExpectClose(Get(linalg.MatrixPower(s, 3)), HostMatmul(HostMatmul(st, st, 3, 3, 3), st, 3, 3, 3),
              1e-10);
  ExpectClose(Get(linalg.MatrixPower(s, 0)), {1, 0, 0, 0, 1, 0, 0, 0, 1});
  const std::vector<double> inverse_square = Get(linalg.MatrixPower(s, -2));
  ExpectClose(HostMatmul(inverse_square, HostMatmul(st, st, 3, 3, 3), 3, 3, 3),
              {1, 0, 0, 0, 1, 0, 0, 0, 1}, 1e-8);
  EXPECT_CLIENT_ERROR(linalg.MatrixPower(a, 2), kInvalidArgument,
                      "Last 2 dimensions of the array must be square");
  // Ranks, of a stack too.
  EXPECT_EQ(Ints(linalg.MatrixRank(Upload({1, 2, 2, 4, 1, 0, 0, 1}, {2, 2, 2}))),
            (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(Ints(linalg.MatrixRank(Upload({0, 0}, {2}))), (std::vector<int64_t>{0}));
  EXPECT_EQ(Ints(linalg.MatrixRank(a, 1e300)), (std::vector<int64_t>{0}));
  // NumPy: cond([[1, 2], [3, 4]]) in the 2-norm and np.linalg.cond(..., 1) == 21.
  const Array m = Upload({1, 2, 3, 4}, {2, 2});
  ExpectClose(Get(linalg.Cond(m)), {14.933034373659268}, 1e-12);
  ExpectClose(Get(linalg.Cond(m, "-2")), {1 / 14.933034373659268}, 1e-12);
  ExpectClose(Get(linalg.Cond(m, "1")), {21}, 1e-12);
  EXPECT_CLIENT_ERROR(linalg.Cond(Upload({1, 2}, {2})), kInvalidArgument,
                      "1-dimensional array given. Array must be at least two-dimensional");
}

TEST_F(ComposedTest, MultiDotAndTensordotPairs) {
  client::Linalg linalg = client().linalg();
  const std::vector<double> v = Random(3), b = Random(12), c = Random(8), w = Random(2);
  const Array va = Upload(v, {3}), ba = Upload(b, {3, 4}), ca = Upload(c, {4, 2}),
              wa = Upload(w, {2});
  const std::vector<double> vbc = HostMatmul(HostMatmul(v, b, 1, 3, 4), c, 1, 4, 2);
  ExpectClose(Get(linalg.MultiDot({va, ba, ca})), vbc, 1e-12);
  ExpectClose(Get(linalg.MultiDot({va, ba, ca, wa})), HostMatmul(vbc, w, 1, 2, 1), 1e-12);
  EXPECT_EQ(linalg.MultiDot({va, ba, ca, wa}).shape(), Shape{});
  EXPECT_CLIENT_ERROR(linalg.MultiDot({va}), kInvalidArgument, "Expecting at least two arrays.");
  const Array cube = client().Zeros({2, 2, 2});
  EXPECT_CLIENT_ERROR(linalg.MultiDot({va, cube, ca}), kInvalidArgument,
                      "3-dimensional array given. Array must be two-dimensional");
  // tensordot(x, y, axes=([0, -1], [2, 0])) of x (2, 3, 4) and y (4, 5, 2): shape (3, 5).
  const std::vector<double> x = Random(24), y = Random(40);
  const Array xa = Upload(x, {2, 3, 4}), ya = Upload(y, {4, 5, 2});
  std::vector<double> expected(15, 0.0);
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 0; j < 5; ++j) {
      for (int64_t p = 0; p < 2; ++p) {
        for (int64_t q = 0; q < 4; ++q) {
          expected[i * 5 + j] += x[(p * 3 + i) * 4 + q] * y[(q * 5 + j) * 2 + p];
        }
      }
    }
  }
  const Array t = client::tensordot(xa, ya, {0, -1}, {2, 0});
  EXPECT_EQ(t.shape(), (Shape{3, 5}));
  ExpectClose(Get(t), expected, 1e-12);
  EXPECT_CLIENT_ERROR(client::tensordot(xa, ya, {0}, {0}), kInvalidArgument,
                      "shape-mismatch for sum");
}

// --- signal and numerics -----------------------------------------------------------------------

TEST_F(ComposedTest, DiffTrapezoidCumulativeSum) {
  const std::vector<double> host = Random(12);
  const Array a = client().Transpose(Upload(host, {3, 4}));  // (4, 3), non-contiguous.
  // Second differences along axis 0 of the view (the rows of host).
  std::vector<double> expected;
  for (int64_t k = 0; k < 2; ++k) {
    for (int64_t j = 0; j < 3; ++j) {
      const double* row = host.data() + j * 4 + k;
      expected.push_back(row[2] - 2 * row[1] + row[0]);
    }
  }
  ExpectClose(Get(client::diff(a, {.n = 2, .axis = 0})), expected, 1e-12);
  // NumPy: np.diff([1, 4, 9], prepend=0, append=[20, 30]) == [1, 3, 5, 11, 10].
  const Array zero = client().Full({}, 0.0);
  const Array tail = Upload({20, 30}, {2});
  ExpectClose(Get(client::diff(Upload({1, 4, 9}, {3}), {.prepend = &zero, .append = &tail})),
              {1, 3, 5, 11, 10});
  EXPECT_EQ(client().Download<bool>(
                client::diff(client().Upload(std::vector<bool>{true, true, false}, {3}))),
            (std::vector<bool>{false, true}));
  EXPECT_CLIENT_ERROR(client::diff(a, {.n = -1}), kInvalidArgument,
                      "order must be non-negative but got -1");
  EXPECT_CLIENT_ERROR(client::diff(zero), kInvalidArgument,
                      "diff requires input that is at least one dimensional");
  // Trapezoids along the last axis, with dx and with sample points.
  std::vector<double> areas, spaced;
  const std::vector<double> xs = {0, 1, 3};
  for (int64_t i = 0; i < 4; ++i) {
    const double y0 = host[i], y1 = host[4 + i], y2 = host[8 + i];
    areas.push_back(0.5 * ((y0 + y1) + (y1 + y2)) / 2);
    spaced.push_back((y0 + y1) / 2 + 2 * (y1 + y2) / 2);
  }
  ExpectClose(Get(client::trapezoid(a, nullptr, 0.5)), areas, 1e-12);
  const Array x = Upload(xs, {3});
  ExpectClose(Get(client::trapezoid(a, &x, 1.0, -1)), spaced, 1e-12);
  // cumulative_sum: include_initial puts a 0 first.
  EXPECT_EQ(Ints(client::cumulative_sum(UploadInts({1, 2, 3}), std::nullopt, std::nullopt, true)),
            (std::vector<int64_t>{0, 1, 3, 6}));
  EXPECT_EQ(client::cumulative_sum(a, -2, std::nullopt, true).shape(), (Shape{5, 3}));
  EXPECT_CLIENT_ERROR(client::cumulative_sum(a), kInvalidArgument,
                      "For arrays which have more than one dimension ``axis`` argument is "
                      "required.");
}

TEST_F(ComposedTest, ConvolveCorrelateInterp) {
  // Integers directly (exact): NumPy's np.convolve([1, 2, 3], [0, 1, 5]) == [0, 1, 7, 13, 15].
  const Array ints = UploadInts({1, 2, 3}), kernel = UploadInts({0, 1, 5});
  EXPECT_EQ(Ints(client::convolve(ints, kernel)), (std::vector<int64_t>{0, 1, 7, 13, 15}));
  EXPECT_EQ(Ints(client::convolve(ints, kernel, "same")), (std::vector<int64_t>{1, 7, 13}));
  EXPECT_EQ(Ints(client::convolve(ints, kernel, "valid")), (std::vector<int64_t>{7}));
  // np.correlate([1, 2, 3], [0, 1, 0.5], 'full') == [0.5, 2, 3.5, 3, 0].
  ExpectClose(Get(client::correlate(ints, Upload({0, 1, 0.5}, {3}), "full")), {0.5, 2, 3.5, 3, 0});
  // Long float operands go through the FFT.
  const std::vector<double> a = Random(100), v = Random(60);
  ExpectClose(Get(client::convolve(Upload(a, {100}), Upload(v, {60}))), HostConvolve(a, v), 1e-10);
  EXPECT_CLIENT_ERROR(client::convolve(ints, client().Empty({0}, DType::kInt64)), kInvalidArgument,
                      "v cannot be empty");
  EXPECT_CLIENT_ERROR(client::convolve(ints, kernel, "bogus"), kInvalidArgument,
                      "mode must be one of 'valid', 'same', or 'full' (got 'bogus')");
  // NumPy: np.interp([-1, 0, 0.5, 2.5, 3, 9, nan], [0, 1, 3], [10, 20, 0]) ==
  // [10, 10, 15, 5, 0, 0, nan]; with left=-1, right=99 the ends change.
  const Array at = Upload({-1, 0, 0.5, 2.5, 3, 9, kNaN}, {7});
  const Array xp = UploadInts({0, 1, 3}), fp = Upload({10, 20, 0}, {3});
  ExpectClose(Get(client::interp(at, xp, fp)), {10, 10, 15, 5, 0, 0, kNaN});
  ExpectClose(Get(client::interp(at, xp, fp, {.left = -1, .right = 99})),
              {-1, 10, 15, 5, 0, 99, kNaN});
  // Periodic: np.interp([-1, 4.5, 3.5], [0, 1, 3], [10, 20, 0], period=4) == [0, 15, 5].
  ExpectClose(Get(client::interp(Upload({-1, 4.5, 3.5}, {3}), xp, fp, {.period = 4})), {0, 15, 5});
  EXPECT_CLIENT_ERROR(client::interp(at, xp, Upload({1, 2}, {2})), kInvalidArgument,
                      "fp and xp are not of the same length.");
}

TEST_F(ComposedTest, Einsum) {
  const std::vector<double> x = Random(6), y = Random(12), z = Random(8), u = Random(10);
  const Array xa = Upload(x, {2, 3}), ya = Upload(y, {3, 4}), za = Upload(z, {4, 2}),
              ua = Upload(u, {2, 5});
  const std::vector<double> xy = HostMatmul(x, y, 2, 3, 4);
  ExpectClose(Get(client::einsum("ij,jk->ik", {xa, ya})), xy, 1e-12);
  ExpectClose(Get(client::einsum("ij,jk", {xa, ya})), xy, 1e-12);  // Implicit output.
  // A 4-operand chain in the greedy order, and its transpose through the output letters.
  const std::vector<double> chain = HostMatmul(HostMatmul(xy, z, 2, 4, 2), u, 2, 2, 5);
  ExpectClose(Get(client::einsum("ij,jk,kl,lm->im", {xa, ya, za, ua})), chain, 1e-12);
  const Array chain_t = client::einsum("ij,jk,kl,lm->mi", {xa, ya, za, ua});
  EXPECT_EQ(chain_t.shape(), (Shape{5, 2}));
  ExpectClose({Get(chain_t)[1]}, {chain[5]}, 1e-12);
  // Traces, diagonals, sums, outer products, transposes of a non-contiguous view.
  const std::vector<double> s = Random(9);
  const Array sa = client().Transpose(Upload(s, {3, 3}));
  ExpectClose(Get(client::einsum("ii", {sa})), {s[0] + s[4] + s[8]}, 1e-12);
  ExpectClose(Get(client::einsum("ii->i", {sa})), {s[0], s[4], s[8]});
  ExpectClose(Get(client::einsum("ij->", {xa})), {std::accumulate(x.begin(), x.end(), 0.0)}, 1e-12);
  ExpectClose(Get(client::einsum("ji", {sa})), s);  // Implicit: "ij" of the transposed view.
  const Array x0 = client().GetItem(xa, {0}), y0 = client().GetItem(ya, {0});
  const Array outer = client::einsum("i,j->ij", {x0, y0});
  ExpectClose(Get(outer),
              {x[0] * y[0], x[0] * y[1], x[0] * y[2], x[0] * y[3], x[1] * y[0], x[1] * y[1],
               x[1] * y[2], x[1] * y[3], x[2] * y[0], x[2] * y[1], x[2] * y[2], x[2] * y[3]});
  // Ellipses: batched matmul, with a size-1 batch broadcast.
  const std::vector<double> b = Random(12);
  const Array ba = Upload(b, {2, 2, 3});
  const Array y1 = client().Reshape(ya, {1, 3, 4});
  const Array batched = client::einsum("...ij,...jk->...ik", {ba, y1});
  EXPECT_EQ(batched.shape(), (Shape{2, 2, 4}));
  const std::vector<double> second = HostMatmul({b.begin() + 6, b.end()}, y, 2, 3, 4);
  const std::vector<double> batched_values = Get(batched);
  ExpectClose({batched_values.begin() + 8, batched_values.end()}, second, 1e-12);
  // Integers stay exact and int64.
  const Array ints = UploadInts({1, 2, 3});
  EXPECT_EQ(Ints(client::einsum("i,i", {ints, ints})), std::vector<int64_t>{14});
  EXPECT_CLIENT_ERROR(client::einsum("ij,jk->ik", {xa, za}), kInvalidArgument,
                      "Size of label 'j' for operand 1 (4) does not match previous terms (3).");
  EXPECT_CLIENT_ERROR(client::einsum("ij,jk->ik", {xa}), kInvalidArgument,
                      "Number of einsum subscripts must be equal to the number of operands.");
  EXPECT_CLIENT_ERROR(client::einsum("ijk", {xa}), kInvalidArgument,
                      "Einstein sum subscript ijk does not contain the correct number of indices "
                      "for operand 0.");
  EXPECT_CLIENT_ERROR(client::einsum("i1", {xa}), kInvalidArgument,
                      "Character 1 is not a valid symbol.");
  EXPECT_CLIENT_ERROR(client::einsum("ij->iz", {xa}), kInvalidArgument,
                      "Output character z did not appear in the input");
  EXPECT_CLIENT_ERROR(client::einsum("ij->ii", {xa}), kInvalidArgument,
                      "Output character i appeared more than once in the output.");
}

}  // namespace
}  // namespace arrayhub::testing
