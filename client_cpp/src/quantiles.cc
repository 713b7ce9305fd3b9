// NumPy's order statistics (statistics.h), as the Python client composes them
// (client_python/arrayhub/_statistics.py): a partition of the reduced axes on the server at the
// ranks read (Client::Partition), then gathers of each quantile's neighbours, interpolated there.
// The nan- forms, whose ranks differ per slice, and weights sort the whole axis instead.
#include <algorithm>
#include <array>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

#include "arrayhub/statistics.h"
#include "composed.h"

namespace arrayhub::client {
namespace {

using detail::AnyTrue;
using detail::ClientOf;
using detail::CountValid;
using detail::IsComplex;
using detail::IsFloating;
using detail::IsInexact;
using detail::ThrowInvalid;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

int64_t Product(const Shape& shape, const std::vector<int64_t>& dims) {
  int64_t product = 1;
  for (int64_t d : dims) product *= shape[d];
  return product;
}
// NumPy's methods, in its dict's order (its error message lists them so).
constexpr std::array<std::string_view, 13> kMethods = {"inverted_cdf",
                                                       "averaged_inverted_cdf",
                                                       "closest_observation",
                                                       "interpolated_inverted_cdf",
                                                       "hazen",
                                                       "weibull",
                                                       "linear",
                                                       "median_unbiased",
                                                       "normal_unbiased",
                                                       "lower",
                                                       "higher",
                                                       "midpoint",
                                                       "nearest"};
// The methods whose virtual index is an integer (no interpolation).
constexpr std::array<std::string_view, 5> kDiscrete = {"inverted_cdf", "closest_observation",
                                                       "lower", "higher", "nearest"};

void CheckMethod(const std::string& method) {
  if (std::find(kMethods.begin(), kMethods.end(), method) != kMethods.end()) return;
  std::string names;
  for (std::string_view name : kMethods) {
    names += (names.empty() ? "'" : ", '") + std::string(name) + "'";
  }
  ThrowInvalid("'" + method + "' is not a valid method. Use one of: dict_keys([" + names + "])");
}

bool IsDiscrete(const std::string& method) {
  return std::find(kDiscrete.begin(), kDiscrete.end(), method) != kDiscrete.end();
}

// `a` as a 2-D (count, rest) array: the reduced axes moved first and merged (NumPy's
// _ureduce), the others merged after them; the shapes the result takes.
struct AxesFirst {
  Array moved;
  int64_t count = 0;
  Shape rest;  // The kept axes.
  Shape kept;  // a's shape with 1 along the reduced axes (keepdims).
};

AxesFirst MoveReducedFirst(const Array& a, const std::optional<std::vector<int64_t>>& axis) {
  const Shape& shape = a.shape();
  const int64_t rank = static_cast<int64_t>(shape.size());
  std::vector<int64_t> order = detail::NormalizeAxes(axis, rank);
  AxesFirst result;
  result.count = Product(shape, order);
  result.kept = shape;
  for (int64_t d : order) result.kept[d] = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(order.begin(), order.end(), d) == order.end()) {
      order.push_back(d);
      result.rest.push_back(shape[d]);
    }
  }
  Client client = ClientOf(a);
  const Array moved = client.Transpose(a, order);
  result.moved = client.Reshape(moved, {result.count, ElementCount(result.rest)});
  return result;
}

// The result of shape (q..., rest) with the kept axes as length 1 if asked.
Array Finish(const Array& result, const Shape& q_shape, const AxesFirst& axes, bool keepdims) {
  Shape shape = q_shape;
  const Shape& tail = keepdims ? axes.kept : axes.rest;
  shape.insert(shape.end(), tail.begin(), tail.end());
  return reshape(result, shape);
}

// Where the quantile lies in a sorted slice of n values (NumPy's get_virtual_index): int64 for
// the discrete methods. n is (1, 1) or (1, rest) float64, q (Q, 1) float64.
Array VirtualIndex(const std::string& method, const Array& n, const Array& q) {
  if (method == "linear") return (n - 1) * q;
  if (method == "lower") return astype(floor((n - 1) * q), DType::kInt64);
  if (method == "higher") return astype(ceil((n - 1) * q), DType::kInt64);
  if (method == "nearest") return astype(rint((n - 1) * q), DType::kInt64);
  if (method == "midpoint") return 0.5 * (floor((n - 1) * q) + ceil((n - 1) * q));
  if (method == "averaged_inverted_cdf") return n * q - 1;
  if (method == "inverted_cdf" || method == "closest_observation") {
    const Array index = method == "inverted_cdf" ? n * q - 1 : n * q - 1 - 0.5;
    const Array previous = floor(index);
    Array picked = (index - previous) == 0;
    if (method == "closest_observation") picked = logical_and(picked, (previous % 2) == 1);
    return maximum(astype(where(picked, previous, previous + 1), DType::kInt64), 0);
  }
  // Hyndman & Fan's (alpha, beta) for the other continuous methods.
  const auto [alpha, beta] = method == "interpolated_inverted_cdf" ? std::pair(0.0, 1.0)
                             : method == "hazen"                   ? std::pair(0.5, 0.5)
                             : method == "weibull"                 ? std::pair(0.0, 0.0)
                             : method == "median_unbiased"         ? std::pair(1 / 3.0, 1 / 3.0)
                                                                   : std::pair(3 / 8.0, 3 / 8.0);
  return n * q + (alpha + q * (1 - alpha - beta)) - 1;
}

// The interpolation weight between the two neighbours (NumPy's _get_gamma).
Array Gamma(const std::string& method, const Array& index) {
  Array gamma = index - floor(index);
  if (method == "averaged_inverted_cdf") return where(gamma == 0, 0.5, 1.0);
  if (method == "midpoint") return where((index % 1) == 0, 0.0, 0.5);
  return gamma;
}

// NumPy's _lerp: a + (b - a) t, from b's side where t >= 0.5.
Array Lerp(const Array& a, const Array& b, const Array& t) {
  const Array diff = b - a;
  return where(t >= 0.5, b - diff * (1 - t), a + diff * t);
}

// Where each quantile of `valid`-value slices reads them (NumPy's _get_indexes): one index of a
// discrete method, else the neighbours below and above the virtual index within [0, n - 1];
// each (Q, 1) or (Q, rest) int64. `index` is the virtual index.
std::vector<Array> ReadIndices(const std::string& method, const Array& valid, const Array& index) {
  const Array last = maximum(valid - 1, 0);
  std::vector<Array> read;
  if (IsDiscrete(method)) {
    read.push_back(where(index >= last, last, index));
    return read;
  }
  const Array above = index >= last;
  const Array below = index < 0;
  const Array floored = floor(index);
  auto neighbour = [&](const Array& position) {
    return astype(where(below, 0, where(above, last, position)), DType::kInt64);
  };
  read.push_back(neighbour(floored));
  read.push_back(neighbour(floored + 1));
  return read;
}

// The quantiles of the (count, columns) slices, sorted at least at the ranks ReadIndices names,
// by NumPy's formulas for `method`, each slice counting `valid` values; continuous methods
// interpolate in `result_dtype`.
Array FormulaPick(const Array& ordered, const Array& valid, const std::vector<double>& q,
                  const std::string& method, DType result_dtype) {
  Client client = ClientOf(ordered);
  const auto q_count = static_cast<int64_t>(q.size());
  const Array q_column = client.Upload(q, {q_count, 1});
  const Array index = VirtualIndex(method, astype(valid, DType::kFloat64), q_column);
  const std::vector<Array> read = ReadIndices(method, valid, index);
  const Shape gathered{q_count, ordered.shape()[1]};
  auto gather = [&](const Array& at) {
    return detail::TakeAlongAxis(ordered, broadcast_to(at, gathered), 0);
  };
  if (read.size() == 1) return gather(read[0]);
  const Array gamma = astype(Gamma(method, index), result_dtype);
  return astype(Lerp(gather(read[0]), gather(read[1]), gamma), result_dtype);
}

// More ranks than this sort instead: a sort is a partition at every rank, costs about as much as
// selecting that many, and keeps the request within the server's list limit (as the Python
// client's _MOST_RANKS).
constexpr size_t kMostRanks = 1024;

// `moved` (count, columns) partitioned along axis 0 at `ranks` (and the last: NaNs sort last, so
// it is NaN where a slice has one), or sorted where there are too many.
Array Selected(const Array& moved, std::vector<int64_t> ranks) {
  Client client = ClientOf(moved);
  const int64_t count = moved.shape()[0];
  if (count == 0) return client.Sort(moved, 0);  // Nothing to select (no rank exists).
  ranks.push_back(count - 1);
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks.size() > kMostRanks ? client.Sort(moved, 0) : client.Partition(moved, ranks, 0);
}

// The ranks FormulaPick reads of slices of `count` values: the same formulas on the server, read
// back (2 int64 per quantile at most).
std::vector<int64_t> RanksRead(Client& client, int64_t count, const std::vector<double>& q,
                               const std::string& method) {
  const auto q_count = static_cast<int64_t>(q.size());
  const Array valid = client.Full({1, 1}, count);
  const Array index =
      VirtualIndex(method, astype(valid, DType::kFloat64), client.Upload(q, {q_count, 1}));
  std::vector<int64_t> ranks;
  for (const Array& at : ReadIndices(method, valid, index)) {
    const std::vector<int64_t> values = client.Download<int64_t>(astype(at, DType::kInt64));
    ranks.insert(ranks.end(), values.begin(), values.end());
  }
  return ranks;
}

// The quantiles' weights broadcast to a's shape, checked as NumPy checks them.
Array CheckedWeights(const Array& a, const Array& w, const QuantileOptions& options) {
  if (options.method != "inverted_cdf") {
    ThrowInvalid("Only method 'inverted_cdf' supports weights. Got: " + options.method + ".");
  }
  Array spread;
  if (w.shape() == a.shape()) {
    spread = reshape(w, a.shape());
  } else {
    std::optional<std::vector<int64_t>> axes;
    if (options.axis) {
      axes = detail::NormalizeAxes(options.axis, static_cast<int64_t>(a.shape().size()));
    }
    spread = broadcast_to(detail::SpreadWeights(a, w, axes), a.shape());
  }
  if (AnyTrue(spread < 0)) ThrowInvalid("Weights must be non-negative.");
  return spread;
}

// NumPy's weighted inverted_cdf: per slice, the first sorted value whose share of the cumulative
// weight reaches each q (a count of the cdf values below q). With skip_nan, NaNs (sorted last)
// weigh nothing. Whether a slice's weights sum to zero or NaN is read back.
Array WeightedPick(const Array& ordered, const Array& weights, const std::vector<double>& q,
                   bool skip_nan) {
  Client client = ClientOf(ordered);
  const Array nan = isnan(ordered);
  Array zeroed;
  const Array* counted = &weights;
  if (skip_nan) {
    zeroed = where(nan, 0, weights);
    counted = &zeroed;
  }
  const Array running = cumsum(*counted, 0, DType::kFloat64);
  const Array cdf = running / detail::SliceAxis(running, 0, {.start = -1});
  Array bad = isnan(detail::SliceAxis(cdf, 0, {.start = -1}));
  if (skip_nan) {
    bad = logical_and(bad,
                      logical_not(all(nan, {.axis = std::vector<int64_t>{0}, .keepdims = true})));
  }
  if (AnyTrue(bad)) ThrowInvalid("Weights included NaN, inf or were all zero.");
  // Leading zero weights: a cdf of 0 must not match q = 0 (NumPy sets those to -1).
  const Array lifted = where(cdf == 0, -1, cdf);
  const auto q_count = static_cast<int64_t>(q.size());
  const Array q_column = client.Upload(q, {q_count, 1, 1});
  const Array below = expand_dims(lifted, {0}) < q_column;
  const Array index = minimum(sum(below, {.axis = std::vector<int64_t>{1}, .dtype = DType::kInt64}),
                              ordered.shape()[0] - 1);
  return detail::TakeAlongAxis(ordered, index, 0);
}

Array Quantile(const Array& a, const std::vector<double>& q, bool scalar_q,
               const QuantileOptions& options, bool skip_nan) {
  const DType dtype = a.dtype();
  if (IsComplex(dtype)) ThrowInvalid("a must be an array of real numbers");
  Array weights;
  if (options.weights != nullptr) weights = CheckedWeights(a, *options.weights, options);
  const bool skip = skip_nan && IsFloating(dtype);
  if (skip && a.size() == 0) {  // NumPy's: the mean of nothing.
    return nanmean(a, {.axis = options.axis, .keepdims = options.keepdims});
  }
  AxesFirst axes = MoveReducedFirst(a, options.axis);
  if (axes.count == 0 && !skip) {
    ThrowInvalid("index -1 is out of bounds for axis 0 with size 0");
  }
  CheckMethod(options.method);
  Client client = ClientOf(a);
  Array ordered, sorted_weights;
  if (weights) {
    const Array order = client.Argsort(axes.moved, 0);
    ordered = detail::TakeAlongAxis(axes.moved, order, 0);
    sorted_weights = detail::TakeAlongAxis(MoveReducedFirst(weights, options.axis).moved, order, 0);
  } else if (skip) {  // Each slice reads its own ranks.
    ordered = client.Sort(axes.moved, 0);
  } else {
    ordered = Selected(axes.moved, RanksRead(client, axes.count, q, options.method));
  }
  // Each slice's count of values: all of them, or its non-NaN ones (sorted first).
  const Array valid =
      skip ? CountValid(ordered, std::vector<int64_t>{0}, true) : client.Full({1, 1}, axes.count);
  // A weak q keeps a float array's dtype; a float64 q array promotes it (and integers).
  Array result = weights ? WeightedPick(ordered, sorted_weights, q, skip)
                         : FormulaPick(ordered, valid, q, options.method,
                                       IsFloating(dtype) && scalar_q ? dtype : DType::kFloat64);
  if (skip) {
    result = where(valid == 0, kNaN, result);  // A slice of NaNs.
  } else if (IsFloating(dtype)) {
    // NaNs sort last: a slice with one has NaN as its largest value.
    result = where(isnan(detail::SliceAxis(ordered, 0, {.start = -1})), kNaN, result);
  }
  return Finish(result, scalar_q ? Shape{} : Shape{static_cast<int64_t>(q.size())}, axes,
                options.keepdims);
}

std::vector<double> CheckedQ(std::vector<double> q, double scale, const char* message) {
  for (double& value : q) {
    value /= scale;
    if (!(value >= 0 && value <= 1)) ThrowInvalid(message);
  }
  return q;
}

constexpr const char* kQuantileRange = "Quantiles must be in the range [0, 1]";
constexpr const char* kPercentileRange = "Percentiles must be in the range [0, 100]";
}  // namespace

Array quantile(const Array& a, double q, const QuantileOptions& options) {
  return Quantile(a, CheckedQ({q}, 1, kQuantileRange), true, options, false);
}
Array quantile(const Array& a, const std::vector<double>& q, const QuantileOptions& options) {
  return Quantile(a, CheckedQ(q, 1, kQuantileRange), false, options, false);
}
Array percentile(const Array& a, double q, const QuantileOptions& options) {
  return Quantile(a, CheckedQ({q}, 100, kPercentileRange), true, options, false);
}
Array percentile(const Array& a, const std::vector<double>& q, const QuantileOptions& options) {
  return Quantile(a, CheckedQ(q, 100, kPercentileRange), false, options, false);
}
Array nanquantile(const Array& a, double q, const QuantileOptions& options) {
  return Quantile(a, CheckedQ({q}, 1, kQuantileRange), true, options, true);
}
Array nanquantile(const Array& a, const std::vector<double>& q, const QuantileOptions& options) {
  return Quantile(a, CheckedQ(q, 1, kQuantileRange), false, options, true);
}
Array nanpercentile(const Array& a, double q, const QuantileOptions& options) {
  return Quantile(a, CheckedQ({q}, 100, kPercentileRange), true, options, true);
}
Array nanpercentile(const Array& a, const std::vector<double>& q, const QuantileOptions& options) {
  return Quantile(a, CheckedQ(q, 100, kPercentileRange), false, options, true);
}

Array median(const Array& a, const std::optional<std::vector<int64_t>>& axis, bool keepdims) {
  const AxesFirst axes = MoveReducedFirst(a, axis);
  // The middle one or two values (none of an empty axis: the mean of nothing is NaN).
  const int64_t count = axes.count;
  const Array ordered = Selected(axes.moved, {(count - 1) / 2, count / 2});
  const Array middle = detail::SliceAxis(
      ordered, 0, {.start = count == 0 ? 0 : (count - 1) / 2, .stop = count / 2 + 1});
  Array result = mean(middle, {.axis = std::vector<int64_t>{0}});
  if (IsInexact(a.dtype()) && count > 0) {
    const Array largest = detail::SliceAxis(ordered, 0, {.start = -1});
    result = where(isnan(reshape(largest, {ElementCount(axes.rest)})), kNaN, result);
  }
  return Finish(result, {}, axes, keepdims);
}

Array nanmedian(const Array& a, const std::optional<std::vector<int64_t>>& axis, bool keepdims) {
  if (!IsFloating(a.dtype())) return median(a, axis, keepdims);
  return Quantile(a, {0.5}, true, {.axis = axis, .keepdims = keepdims}, true);
}
}  // namespace arrayhub::client
