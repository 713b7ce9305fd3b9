// numpy.unique's flags and axis, isin and the 1-D set operations (sets.h), as the Python client
// composes them (client_python/arrayhub/_sets.py, _set_functions.py): a stable sort, and runs
// of equal values that start where an item differs from the one before it.
#include "arrayhub/sets.h"

#include <algorithm>
#include <utility>

#include "arrayhub/sorting.h"
#include "composed.h"

namespace arrayhub::client {
namespace {

using detail::ClientOf;

// The runs of equal items of `ordered` (the input taken in `order` along axis 0).
struct Runs {
  Array order;
  Array is_start;  // Bool, per sorted position.
  Array starts;    // Sorted positions where a run begins.
  Array values;    // The first item of each run.
};

// `differs[i]`: whether item i + 1 differs from item i.
Runs RunsOf(Array order, const Array& ordered, const Array& differs) {
  Client client = ClientOf(ordered);
  const int64_t items = ordered.shape()[0];
  // The first item starts a run (when there is one).
  const Array first = client.Ones({std::min<int64_t>(items, 1)}, DType::kBool);
  Array is_start = concatenate({first, differs});
  Array starts = std::move(client.Nonzero(is_start).front());
  Array values = client.Take(ordered, starts, 0);
  return {std::move(order), std::move(is_start), std::move(starts), std::move(values)};
}

// The runs of the flattened a; with equal_nan all NaNs make one run.
Runs FlatRuns(const Array& a, bool equal_nan) {
  Client client = ClientOf(a);
  const Array flat = client.Ravel(a);
  Array order = client.Argsort(flat, 0);
  const Array ordered = client.Take(flat, order, 0);
  const Array later = detail::SliceAxis(ordered, 0, {.start = 1});
  const Array earlier = detail::SliceAxis(ordered, 0, {.stop = -1});
  Array differs = later != earlier;
  if (equal_nan && detail::IsInexact(a.dtype())) {
    differs = logical_and(differs, logical_not(logical_and(isnan(later), isnan(earlier))));
  }
  return RunsOf(std::move(order), ordered, differs);
}

// The runs of the slices of a along `axis` as rows, ordered lexicographically; the moved array.
std::pair<Runs, Shape> RowRuns(const Array& a, int64_t axis) {
  Client client = ClientOf(a);
  const Array moved = client.SwapAxes(a, 0, axis);
  const Shape shape = moved.shape();
  const int64_t columns = ElementCount(Shape(shape.begin() + 1, shape.end()));
  const Array rows = client.Reshape(moved, {shape[0], columns});
  Array order;
  if (columns > 0) {
    std::vector<Array> keys;  // The last key sorts first: column 0 is primary.
    for (int64_t j = columns - 1; j >= 0; --j) keys.push_back(client.GetItem(rows, {Slice{}, j}));
    order = lexsort({keys.begin(), keys.end()}, 0);
  } else {  // Every (empty) row is equal: one run.
    order = client.Arange(0, shape[0], 1);
  }
  const Array ordered = client.Take(rows, order, 0);
  const Array differs = any(
      detail::SliceAxis(ordered, 0, {.start = 1}) != detail::SliceAxis(ordered, 0, {.stop = -1}),
      {.axis = std::vector<int64_t>{1}});
  return {RunsOf(std::move(order), ordered, differs), shape};
}

Array CountsOf(const Runs& runs, int64_t size) {
  Client client = ClientOf(runs.starts);
  const Array later = detail::SliceAxis(runs.starts, 0, {.start = 1});
  const Array last = client.Full({std::min<int64_t>(size, 1)}, size, DType::kInt64);
  const Array ends = concatenate({later, last});
  return ends - runs.starts;
}

// The run number of each item, in its original place.
Array InverseOf(const Runs& runs, const Shape& shape) {
  Client client = ClientOf(runs.order);
  const Array ranks = cumsum(runs.is_start, std::nullopt, DType::kInt64) - 1;
  Array inverse = client.Empty(runs.order.shape(), DType::kInt64);
  client.SetItem(inverse, {runs.order}, ranks);
  return client.Reshape(inverse, shape);
}

}  // namespace

UniqueResult unique(const Array& a, const UniqueOptions& options) {
  Client client = ClientOf(a);
  const bool extras = options.return_index || options.return_inverse || options.return_counts;
  UniqueResult result;
  if (!options.axis && !extras && options.equal_nan) {
    result.values = client.Unique(a);  // One server op.
    return result;
  }
  Runs runs;
  Shape shape;
  int64_t size = 0;
  if (!options.axis) {
    runs = FlatRuns(a, options.equal_nan);
    result.values = std::move(runs.values);
    shape = a.shape();
    size = a.size();
  } else {
    const int64_t axis =
        detail::NormalizeAxis(*options.axis, static_cast<int64_t>(a.shape().size()));
    auto [row_runs, moved_shape] = RowRuns(a, axis);
    runs = std::move(row_runs);
    Shape values_shape = moved_shape;
    values_shape[0] = -1;
    result.values = client.SwapAxes(client.Reshape(runs.values, values_shape), 0, axis);
    shape = {a.shape()[axis]};
    size = a.shape()[axis];
  }
  if (options.return_index) result.index = client.Take(runs.order, runs.starts, 0);
  if (options.return_inverse) result.inverse = InverseOf(runs, shape);
  if (options.return_counts) result.counts = CountsOf(runs, size);
  return result;
}

Array isin(const Array& element, const Array& test_elements, bool invert) {
  Client client = ClientOf(element);
  const DType dtype = detail::PromoteTypes(element.dtype(), test_elements.dtype());
  if (test_elements.size() == 0 || element.size() == 0) {
    return client.Full(element.shape(), invert, DType::kBool);
  }
  const Array flat = astype(ravel(element), dtype);
  const Array ordered = sort(astype(ravel(test_elements), dtype));
  const Array places = minimum(searchsorted(ordered, flat), test_elements.size() - 1);
  const Array found = client.Ufunc(invert ? "not_equal" : "equal", {take(ordered, places), flat});
  return reshape(found, element.shape());
}

Array union1d(const Array& a, const Array& b) {
  const Array first = ravel(a);
  const Array second = ravel(b);
  return unique(concatenate({first, second}, 0));
}

IntersectResult intersect1d_indices(const Array& a, const Array& b, bool assume_unique) {
  Client client = ClientOf(a);
  UniqueResult first, second;
  if (assume_unique) {
    first.values = ravel(a);
    second.values = ravel(b);
  } else {
    first = unique(a, {.return_index = true});
    second = unique(b, {.return_index = true});
  }
  const Array joined = concatenate({first.values, second.values}, 0);
  const Array order = argsort(joined, 0);
  const Array aux = take(joined, order);
  const Array mask =
      detail::SliceAxis(aux, 0, {.start = 1}) == detail::SliceAxis(aux, 0, {.stop = -1});
  IntersectResult result;
  result.values = client.GetItem(detail::SliceAxis(aux, 0, {.stop = -1}), {mask});
  result.indices1 = client.GetItem(detail::SliceAxis(order, 0, {.stop = -1}), {mask});
  result.indices2 =
      client.GetItem(detail::SliceAxis(order, 0, {.start = 1}), {mask}) - first.values.size();
  if (!assume_unique) {
    result.indices1 = take(first.index, result.indices1);
    result.indices2 = take(second.index, result.indices2);
  }
  return result;
}

Array intersect1d(const Array& a, const Array& b, bool assume_unique) {
  const Array first = assume_unique ? ravel(a) : unique(a);
  const Array second = assume_unique ? ravel(b) : unique(b);
  const Array aux = sort(concatenate({first, second}, 0));
  const Array earlier = detail::SliceAxis(aux, 0, {.stop = -1});
  return ClientOf(a).GetItem(earlier, {detail::SliceAxis(aux, 0, {.start = 1}) == earlier});
}

Array setdiff1d(const Array& a, const Array& b, bool assume_unique) {
  const Array values = assume_unique ? ravel(a) : unique(a);
  return ClientOf(a).GetItem(values, {isin(values, b, /*invert=*/true)});
}

Array setxor1d(const Array& a, const Array& b, bool assume_unique) {
  Client client = ClientOf(a);
  const Array first = assume_unique ? ravel(a) : unique(a);
  const Array second = assume_unique ? ravel(b) : unique(b);
  const Array first_flat = ravel(first);
  const Array second_flat = ravel(second);
  const Array joined = concatenate({first_flat, second_flat}, 0);
  if (joined.size() == 0) return client.Copy(joined);
  const Array aux = sort(joined);
  const Array edge = client.Ones({1}, DType::kBool);
  const Array differs =
      detail::SliceAxis(aux, 0, {.start = 1}) != detail::SliceAxis(aux, 0, {.stop = -1});
  const Array flag = concatenate({edge, differs, edge});
  return client.GetItem(aux, {logical_and(detail::SliceAxis(flag, 0, {.start = 1}),
                                          detail::SliceAxis(flag, 0, {.stop = -1}))});
}

}  // namespace arrayhub::client
