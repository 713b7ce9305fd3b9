// numpy.unique with its flags and axis, isin and the 1-D set operations, composed by the client
// from the server's stable sort, searchsorted, gathers and masks (src/sets.cc), as NumPy's own
// code composes them. Results are sorted; the flattened arrays are used where NumPy flattens.
#pragma once

#include <cstdint>
#include <optional>

#include "arrayhub/client.h"

namespace arrayhub::client {

struct UniqueOptions {
  bool return_index = false;    // Each value's first position in the flattened array.
  bool return_inverse = false;  // Each element's value's index (a's shape; (n,) with an axis).
  bool return_counts = false;
  std::optional<int64_t> axis{};  // The distinct slices along it; absent: of the flattened a.
  bool equal_nan = true;          // All NaNs one value (without an axis).
};
// The arrays not asked for stay empty. index, inverse and counts are int64.
struct UniqueResult {
  Array values;
  Array index;
  Array inverse;
  Array counts;
};
UniqueResult unique(const Array& a, const UniqueOptions& options);

// Whether each element of `element` is in `test_elements` (element's shape; negated with
// invert): one sort of the test values and one searchsorted.
Array isin(const Array& element, const Array& test_elements, bool invert = false);
Array union1d(const Array& a, const Array& b);
Array intersect1d(const Array& a, const Array& b, bool assume_unique = false);
// numpy.intersect1d(..., return_indices=True): also each common value's first index in each.
struct IntersectResult {
  Array values;
  Array indices1;
  Array indices2;
};
IntersectResult intersect1d_indices(const Array& a, const Array& b, bool assume_unique = false);
Array setdiff1d(const Array& a, const Array& b, bool assume_unique = false);
Array setxor1d(const Array& a, const Array& b, bool assume_unique = false);

}  // namespace arrayhub::client
