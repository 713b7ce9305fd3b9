// bincount, digitize, histogram and histogram2d from server ops (histograms.h), as the Python
// client composes them (client_python/arrayhub/_histograms.py).
#include "arrayhub/histograms.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>

#include "composed.h"

namespace arrayhub::client {
namespace {

using detail::ClientOf;
using detail::ThrowInvalid;

void RequireOneDimension(const Array& a) {
  if (a.shape().size() > 1) ThrowInvalid("object too deep for desired array");
  if (a.shape().empty()) ThrowInvalid("object of too small depth for desired array");
}

// NumPy's "Cannot cast array data from dtype('complex128') to dtype('float64') ..." check of
// weights, which count as float64.
Array WeightsAsFloat64(const Array& weights) {
  if (detail::IsComplex(weights.dtype())) {
    ThrowInvalid("Cannot cast array data from dtype('" + std::string(DTypeName(weights.dtype())) +
                 "') to dtype('float64') according to the rule 'safe'");
  }
  return astype(weights, DType::kFloat64);
}

// counts[i] = how many (or the weights' sum) of the elements of `bins` equal i, for i <
// `length`: one combining scatter into zeros.
Array Count(const Array& bins, int64_t length, const Array* weights, DType dtype) {
  Client client = ClientOf(bins);
  Array counts = client.Zeros({length}, dtype);
  if (weights == nullptr) {
    client.At("add", counts, {bins}, 1);
  } else {
    client.At("add", counts, {bins}, ravel(*weights));
  }
  return counts;
}

// searchsorted in the dtype both promote to, as NumPy's.
Array SearchSortedCommon(const Array& edges, const Array& values, std::string_view side) {
  const DType common = detail::PromoteTypes(edges.dtype(), values.dtype());
  return searchsorted(astype(edges, common), astype(values, common), side);
}

// A float as Python's repr writes it (NumPy's range messages format them so).
std::string PythonFloat(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[64];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
  std::string text(buffer, end);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

// NumPy's _get_outer_edges: the range (checked), else the values' minimum and maximum (one read;
// 0 and 1 for none), apart by 1 when equal.
Range OuterEdges(const Array& values, const std::optional<Range>& range) {
  double first = 0, last = 1;
  if (range) {
    std::tie(first, last) = *range;
    if (first > last) ThrowInvalid("max must be larger than min in range parameter.");
    if (!std::isfinite(first) || !std::isfinite(last)) {
      ThrowInvalid("supplied range of [" + PythonFloat(first) + ", " + PythonFloat(last) +
                   "] is not finite");
    }
  } else if (values.size() > 0) {
    const Array low = min(values), high = max(values);
    const std::vector<double> extremes = detail::ReadScalars({&low, &high});
    first = extremes[0];
    last = extremes[1];
    if (!std::isfinite(first) || !std::isfinite(last)) {
      ThrowInvalid("autodetected range of [" + PythonFloat(first) + ", " + PythonFloat(last) +
                   "] is not finite");
    }
  }
  if (first == last) return {first - 0.5, last + 0.5};
  return {first, last};
}

// NumPy's bin edges on the host: `count` equal bins (np.linspace's arithmetic) or the given
// edges, checked. `dimension` names the axis in histogram2d's messages.
std::vector<double> HostEdges(const Array& values, const Bins& bins,
                              const std::optional<Range>& range, std::optional<int> dimension) {
  const std::string name =
      dimension ? "`bins[" + std::to_string(*dimension) + "]`" : std::string("`bins`");
  if (const auto* given = std::get_if<std::vector<double>>(&bins)) {
    if (!std::is_sorted(given->begin(), given->end())) {
      ThrowInvalid(name + (dimension ? " must be monotonically increasing, when an array"
                                     : " must increase monotonically, when an array"));
    }
    return *given;
  }
  const int64_t count = std::get<int64_t>(bins);
  if (count < 1) ThrowInvalid(name + " must be positive, when an integer");
  const auto [first, last] = OuterEdges(values, range);
  const double step = (last - first) / static_cast<double>(count);
  std::vector<double> edges;
  for (int64_t i = 0; i < count; ++i) edges.push_back(first + static_cast<double>(i) * step);
  edges.push_back(last);
  return edges;
}

}  // namespace

Array bincount(const Array& x, const Array* weights, int64_t minlength) {
  Client client = ClientOf(x);
  RequireOneDimension(x);
  const DType dtype = x.dtype();
  if (detail::IsInexact(dtype)) {
    ThrowInvalid("Cannot cast array data from dtype('" + std::string(DTypeName(dtype)) +
                 "') to dtype('int64') according to the rule 'safe'");
  }
  if (minlength < 0) ThrowInvalid("'minlength' must not be negative");
  Array w;
  if (weights != nullptr) {
    if (weights->shape() != x.shape()) {
      ThrowInvalid("The weights and list don't have the same length.");
    }
    w = WeightsAsFloat64(*weights);
  }
  const DType result = weights == nullptr ? DType::kInt64 : DType::kFloat64;
  if (x.size() == 0) return client.Zeros({minlength}, result);
  const Array values = astype(x, DType::kInt64);  // Bools count at 0 and 1.
  const Array low = min(values), high = max(values);
  const std::vector<double> extremes = detail::ReadScalars({&low, &high});
  if (extremes[0] < 0) ThrowInvalid("'list' argument must have no negative elements");
  const int64_t length = std::max(static_cast<int64_t>(extremes[1]) + 1, minlength);
  return Count(values, length, weights == nullptr ? nullptr : &w, result);
}

Array digitize(const Array& x, const Array& bins, bool right) {
  if (detail::IsComplex(x.dtype())) ThrowInvalid("x may not be complex");
  RequireOneDimension(bins);
  const Array steps =
      detail::SliceAxis(bins, 0, {.start = 1}) - detail::SliceAxis(bins, 0, {.stop = -1});
  const Array rising = all(steps >= 0), falling = all(steps <= 0);
  const std::vector<double> monotonic = detail::ReadScalars({&rising, &falling});
  if (monotonic[0] == 0 && monotonic[1] == 0) {
    ThrowInvalid("bins must be monotonically increasing or decreasing");
  }
  const std::string_view side = right ? "left" : "right";
  if (monotonic[0] != 0) return SearchSortedCommon(bins, x, side);
  const Array reversed = detail::SliceAxis(bins, 0, {.step = -1});
  return bins.size() - SearchSortedCommon(reversed, x, side);
}

HistogramResult histogram(const Array& a, const Bins& bins, const HistogramOptions& options) {
  Client client = ClientOf(a);
  if (options.weights != nullptr && options.weights->shape() != a.shape()) {
    ThrowInvalid("weights should have the same shape as a.");
  }
  const Array flat = ravel(a);
  const std::vector<double> host_edges = HostEdges(flat, bins, options.range, std::nullopt);
  // Equal bins take the data's floating dtype (float64 for integers), as NumPy's edges do.
  const bool counted = std::holds_alternative<int64_t>(bins);
  const DType edge_dtype = counted && detail::IsInexact(a.dtype()) ? a.dtype() : DType::kFloat64;
  const auto n = static_cast<int64_t>(host_edges.size()) - 1;
  Array edges = astype(client.Upload(host_edges, {n + 1}), edge_dtype);
  Array counts;
  if (options.weights == nullptr && !detail::IsComplex(a.dtype())) {
    // One pass on the server; the (floating) edges compare as NumPy compares them, in float64.
    counts = std::move(client.ArrayOp("histogram", {flat, edges}).at(0));
  } else {
    // Bin i holds edges[i] <= x < edges[i + 1], the last bin x == edges[-1] too; the others
    // (and NaN) go to bin n, dropped.
    const Array first = detail::SliceAxis(edges, 0, {.stop = 1});
    const Array last = detail::SliceAxis(edges, 0, {.start = -1});
    const Array index = where(flat == last, n - 1, SearchSortedCommon(edges, flat, "right") - 1);
    const Array inside = logical_and(flat >= first, flat <= last);
    const DType dtype = options.weights == nullptr ? DType::kInt64 : options.weights->dtype();
    const Array all_counts = Count(where(inside, index, n), n + 1, options.weights, dtype);
    counts = detail::SliceAxis(all_counts, 0, {.stop = n});
  }
  if (options.density) {
    const Array widths = astype(
        detail::SliceAxis(edges, 0, {.start = 1}) - detail::SliceAxis(edges, 0, {.stop = -1}),
        DType::kFloat64);
    counts = counts / widths / sum(counts);
  }
  return {std::move(counts), std::move(edges)};
}

Histogram2dResult histogram2d(const Array& x, const Array& y, const Bins& bins,
                              const Histogram2dOptions& options) {
  return histogram2d(x, y, std::array<Bins, 2>{bins, bins}, options);
}

Histogram2dResult histogram2d(const Array& x, const Array& y, const std::array<Bins, 2>& bins,
                              const Histogram2dOptions& options) {
  Client client = ClientOf(x);
  const std::array<Array, 2> columns = {ravel(x), ravel(y)};
  if (columns[0].size() != columns[1].size()) {
    ThrowInvalid("all input arrays must have the same shape");
  }
  Array w;
  if (options.weights != nullptr) w = WeightsAsFloat64(*options.weights);
  // Each coordinate's position among its edges: 0 below, edges.size() above (and NaN); the
  // flat index counts in a grid with those outer bins, which are cut off after.
  std::array<Array, 2> edges;
  std::array<int64_t, 2> extents{};
  for (int d = 0; d < 2; ++d) {
    std::optional<Range> range;
    if (options.range) range = (*options.range)[d];
    const std::vector<double> host = HostEdges(columns[d], bins[d], range, d);
    extents[d] = static_cast<int64_t>(host.size()) + 1;
    edges[d] = client.Upload(host, {extents[d] - 1});
  }
  Array index;
  for (int d = 0; d < 2; ++d) {
    const Array last = detail::SliceAxis(edges[d], 0, {.start = -1});
    const Array position = SearchSortedCommon(edges[d], columns[d], "right");
    const Array placed = where(columns[d] == last, position - 1, position);
    index = d == 0 ? placed * extents[1] : index + placed;
  }
  Array counts;
  if (columns[0].size() == 0) {
    counts = client.Zeros({extents[0], extents[1]});
  } else {
    counts = reshape(
        Count(index, extents[0] * extents[1], options.weights ? &w : nullptr, DType::kFloat64),
        {extents[0], extents[1]});
  }
  counts = client.GetItem(counts, {Slice{.start = 1, .stop = -1}, Slice{.start = 1, .stop = -1}});
  if (options.density) {
    const Array total = sum(counts);
    for (int d = 0; d < 2; ++d) {
      Shape shape{1, 1};
      shape[d] = extents[d] - 2;
      const Array widths = detail::SliceAxis(edges[d], 0, {.start = 1}) -
                           detail::SliceAxis(edges[d], 0, {.stop = -1});
      counts = counts / reshape(widths, shape);
    }
    counts = counts / total;
  }
  return {std::move(counts), std::move(edges[0]), std::move(edges[1])};
}

}  // namespace arrayhub::client
