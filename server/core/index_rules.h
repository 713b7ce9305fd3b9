// NumPy's indexing rules, on shapes and strides alone: a[...] with integers, slices, an
// ellipsis, newaxis, and integer or boolean arrays. Basic indexing gives a view; with index
// arrays ("advanced" indexing) the result is a gather whose geometry this computes. Errors are
// NumPy's IndexError/ValueError texts ("index 5 is out of bounds for axis 0 with size 3",
// "too many indices for array: array is 1-dimensional, but 2 were indexed").
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "server/core/manipulation_specs.h"
#include "server/core/view_rules.h"

namespace arrayhub {

// One entry of an index, with its array (if any) described by shape.
struct IndexEntry {
  enum class Kind : uint8_t { kInteger, kSlice, kEllipsis, kNewAxis, kIntArray, kBoolArray };
  Kind kind = Kind::kSlice;
  int64_t integer = 0;        // kInteger.
  SliceSpec slice{};          // kSlice.
  Shape array_shape{};        // kIntArray, kBoolArray.
  int64_t nonzero_count = 0;  // kBoolArray: how many elements are true.
};

// One index array of an advanced index, and the data axis it selects along. A boolean array
// of rank m stands for m arrays (its nonzero() coordinates, each of shape (nonzero_count,)).
struct AdvancedIndex {
  size_t entry = 0;    // The IndexEntry it comes from.
  int component = 0;   // Boolean arrays: which coordinate of nonzero(); 0 otherwise.
  int axis = 0;        // The data axis.
  int64_t extent = 0;  // The data axis' length (valid indices: [-extent, extent)).
  int64_t stride = 0;  // The data axis' stride, in elements.
  Shape shape;         // The index array's shape (broadcast to `block_shape`).
};

struct IndexPlan {
  // Basic indexing only: the result view. With advanced indices: the result's shape, and the
  // data's offset and strides along the result axes that basic indexing kept (0 along the
  // block of axes the index arrays span).
  Layout layout;
  bool advanced = false;
  size_t block_start = 0;  // First result axis of the index arrays' broadcast shape.
  Shape block_shape;
  std::vector<AdvancedIndex> arrays;
};

// The result of indexing `data` (items of `itemsize` bytes) with `entries`. The result's shape
// is held to `limits` (newaxis adds axes; broadcast index arrays select more elements than the
// data has), whether a gather reads it or a scatter writes it.
absl::StatusOr<IndexPlan> PlanIndex(const Layout& data, int64_t itemsize,
                                    const std::vector<IndexEntry>& entries, const Limits& limits);

}  // namespace arrayhub
