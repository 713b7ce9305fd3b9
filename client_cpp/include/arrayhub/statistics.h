// NumPy's statistics, composed by the client from server ops (src/statistics.cc): the data stays
// on the server and only small results are read back (a bool when NumPy must know whether a
// slice is empty or all NaN, a weight check). Arguments are NumPy's; an argument NumPy refuses
// throws kInvalidArgument with NumPy's message. NumPy's RuntimeWarnings ("Mean of empty slice",
// "All-NaN slice encountered") have no C++ form: the values are NumPy's (NaN), no warning.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "arrayhub/client.h"

namespace arrayhub::client {

// NaN-ignoring reductions: NaNs count as the operation's identity (0 for sums, 1 for products);
// a slice of NaNs gives NaN for nanmean/nanvar/nanstd/nanmin/nanmax and throws kInvalidArgument
// "All-NaN slice encountered" for nanargmin/nanargmax. Integer and bool arrays have no NaNs:
// these are the plain reductions there. options as the reductions' (functions.h).
Array nansum(const Array& a, const ReduceOptions& options = {});
Array nanprod(const Array& a, const ReduceOptions& options = {});
Array nanmean(const Array& a, const ReduceOptions& options = {});
Array nanvar(const Array& a, const ReduceOptions& options = {});
Array nanstd(const Array& a, const ReduceOptions& options = {});
Array nanmin(const Array& a, const ReduceOptions& options = {});
Array nanmax(const Array& a, const ReduceOptions& options = {});
Array nanargmin(const Array& a, const ReduceOptions& options = {});  // At most one axis.
Array nanargmax(const Array& a, const ReduceOptions& options = {});
// Scans with NaNs as 0 (1): of the flattened array without an axis.
Array nancumsum(const Array& a, std::optional<int64_t> axis = std::nullopt,
                std::optional<DType> dtype = std::nullopt);
Array nancumprod(const Array& a, std::optional<int64_t> axis = std::nullopt,
                 std::optional<DType> dtype = std::nullopt);

// numpy.ptp: max - min along the axes (options.dtype and ddof are not read).
Array ptp(const Array& a, const ReduceOptions& options = {});

// numpy.average's arguments. Weights of a's shape, or 1-D along a single axis (or of the axes'
// shape along several); null: the plain mean.
struct AverageOptions {
  std::optional<std::vector<int64_t>> axis{};
  const Array* weights = nullptr;
  bool keepdims = false;
};
struct AverageResult {
  Array average;
  Array sum_of_weights;  // numpy.average's returned=True: the average's shape.
};
Array average(const Array& a, const AverageOptions& options = {});
AverageResult average_returned(const Array& a, const AverageOptions& options = {});

// Order statistics: median, quantile, percentile and their NaN-ignoring forms. The reduced axes
// are sorted on the server (one stable sort: NaNs sort last), then the neighbours of each
// quantile's position are gathered and interpolated there. `method` is one of NumPy's 13
// (linear, lower, higher, nearest, midpoint, inverted_cdf, averaged_inverted_cdf,
// closest_observation, interpolated_inverted_cdf, hazen, weibull, median_unbiased,
// normal_unbiased); q is host data. A scalar q is a weak Python float (a float32 array's
// quantile stays float32), a vector q a float64 array (the result is q.size() first, then the
// kept axes). A NaN in a slice makes its result NaN (the nan- forms skip NaNs; a slice of NaNs
// gives NaN).
struct QuantileOptions {
  std::optional<std::vector<int64_t>> axis{};  // Absent: the flattened array.
  std::string method = "linear";
  bool keepdims = false;
  // Method inverted_cdf only: non-negative weights of a's shape, or of the reduced axes' shape
  // (a stable argsort and a count of the cumulative weights below each q per slice; whether a
  // weight is negative or a slice's weights sum to zero is read back).
  const Array* weights = nullptr;
};
Array quantile(const Array& a, double q, const QuantileOptions& options = {});
Array quantile(const Array& a, const std::vector<double>& q, const QuantileOptions& options = {});
Array percentile(const Array& a, double q, const QuantileOptions& options = {});
Array percentile(const Array& a, const std::vector<double>& q, const QuantileOptions& options = {});
Array nanquantile(const Array& a, double q, const QuantileOptions& options = {});
Array nanquantile(const Array& a, const std::vector<double>& q,
                  const QuantileOptions& options = {});
Array nanpercentile(const Array& a, double q, const QuantileOptions& options = {});
Array nanpercentile(const Array& a, const std::vector<double>& q,
                    const QuantileOptions& options = {});
// The mean of the middle one or two sorted values (float64 for integers, as NumPy).
Array median(const Array& a, const std::optional<std::vector<int64_t>>& axis = std::nullopt,
             bool keepdims = false);
Array nanmedian(const Array& a, const std::optional<std::vector<int64_t>>& axis = std::nullopt,
                bool keepdims = false);

// numpy.cov's arguments: y's variables are appended to m's; the weights are 1-D, one per
// observation (fweights integral). ddof absent: 0 with bias, else 1.
struct CovOptions {
  const Array* y = nullptr;
  bool rowvar = true;
  bool bias = false;
  std::optional<int64_t> ddof{};
  const Array* fweights = nullptr;
  const Array* aweights = nullptr;
  std::optional<DType> dtype{};  // Absent: float64 (complex128 for complex input).
};
// The covariance matrix (squeezed, as NumPy's) by one matmul on the server.
Array cov(const Array& m, const CovOptions& options = {});
// Pearson's coefficients: cov scaled by the standard deviations, clipped to [-1, 1].
Array corrcoef(const Array& x, const Array* y = nullptr, bool rowvar = true);

}  // namespace arrayhub::client
