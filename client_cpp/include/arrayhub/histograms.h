// Counting into bins on the server (src/histograms.cc): bincount, digitize, histogram and
// histogram2d, as the Python client composes them. histogram without weights is one server op
// (ArrayOp "histogram"); every other count is a combining scatter (add.at) into a new array,
// so repeated bins add in NumPy's order, with elements falling into bins by searchsorted
// against the edges. The edges are NumPy's, computed here from the range or from the
// data's minimum and maximum (one read of those two values).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <utility>
#include <variant>
#include <vector>

#include "arrayhub/client.h"

namespace arrayhub::client {

// numpy.bincount: how often each value of the non-negative 1-D integer array x occurs (the sum
// of `weights` there, as float64), at least `minlength` long. One read of x's extremes.
Array bincount(const Array& x, const Array* weights = nullptr, int64_t minlength = 0);
// numpy.digitize: the index of the bin of each element of x; `bins` 1-D, increasing or
// decreasing (one read of which).
Array digitize(const Array& x, const Array& bins, bool right = false);

// numpy.histogram's bins: a count of equal bins, or the edges (increasing).
using Bins = std::variant<int64_t, std::vector<double>>;
// The lower and upper edge of equal bins (absent: the data's minimum and maximum).
using Range = std::pair<double, double>;

struct HistogramOptions {
  std::optional<Range> range{};
  bool density = false;
  const Array* weights = nullptr;  // a's shape.
};
struct HistogramResult {
  Array counts;  // int64, or the weights' dtype; float64 with density.
  Array edges;
};
// The flattened a's counts in each bin, the last bin closed on the right.
HistogramResult histogram(const Array& a, const Bins& bins = int64_t{10},
                          const HistogramOptions& options = {});

struct Histogram2dOptions {
  std::optional<std::array<Range, 2>> range{};
  bool density = false;
  const Array* weights = nullptr;
};
struct Histogram2dResult {
  Array counts;  // float64, (x bins, y bins).
  Array x_edges;
  Array y_edges;
};
// numpy.histogram2d of the points (x[i], y[i]): bins for both axes, or one per axis.
Histogram2dResult histogram2d(const Array& x, const Array& y, const Bins& bins = int64_t{10},
                              const Histogram2dOptions& options = {});
Histogram2dResult histogram2d(const Array& x, const Array& y, const std::array<Bins, 2>& bins,
                              const Histogram2dOptions& options = {});

}  // namespace arrayhub::client
