#include "server/core/index_rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "server/common/status_macros.h"
#include "server/core/broadcast.h"
#include "server/core/shape_limits.h"

namespace arrayhub {
namespace {

using Kind = IndexEntry::Kind;

struct Axis {
  int64_t extent;
  int64_t stride;
};

// Python's slice.indices(): the first position, the count and the step of start:stop:step over
// an axis of `extent` elements.
struct SliceRange {
  int64_t start = 0;
  int64_t count = 0;
  int64_t step = 1;
};

SliceRange ResolveSlice(const SliceSpec& slice, int64_t extent) {
  // Python clamps the step to -PY_SSIZE_T_MAX so that its negation cannot overflow.
  const int64_t step = std::max(slice.step, -std::numeric_limits<int64_t>::max());
  auto bound = [&](std::optional<int64_t> value, int64_t if_absent, int64_t low, int64_t high) {
    if (!value) return if_absent;
    int64_t v = *value;
    if (v < 0) v = v < -extent ? low : v + extent;  // No overflow: v + extent >= v.
    return std::clamp(v, low, high);
  };
  SliceRange range{.step = step};
  if (step > 0) {
    range.start = bound(slice.start, 0, 0, extent);
    const int64_t stop = bound(slice.stop, extent, 0, extent);
    range.count = stop > range.start ? (stop - range.start - 1) / step + 1 : 0;
  } else {
    range.start = bound(slice.start, extent - 1, -1, extent - 1);
    const int64_t stop = bound(slice.stop, -1, -1, extent - 1);
    range.count = range.start > stop ? (range.start - stop - 1) / (-step) + 1 : 0;
  }
  return range;
}

int64_t DimensionsConsumed(const IndexEntry& entry) {
  switch (entry.kind) {
    case Kind::kInteger:
    case Kind::kSlice:
    case Kind::kIntArray:
      return 1;
    case Kind::kBoolArray:
      return static_cast<int64_t>(entry.array_shape.size());
    case Kind::kEllipsis:
    case Kind::kNewAxis:
      return 0;
  }
  return 0;
}

bool IsArray(const IndexEntry& entry) {
  return entry.kind == Kind::kIntArray || entry.kind == Kind::kBoolArray;
}

// NumPy places the broadcast index dimensions where the index arrays are when they (and any
// integers, which then count as 0-d index arrays) stand next to each other in the index, and
// first otherwise.
bool AdvancedEntriesAreConsecutive(const std::vector<IndexEntry>& entries) {
  enum { kNone, kInRun, kAfterRun } state = kNone;
  for (const IndexEntry& entry : entries) {
    const bool advanced = IsArray(entry) || entry.kind == Kind::kInteger;
    if (advanced) {
      if (state == kAfterRun) return false;
      state = kInRun;
    } else if (state == kInRun) {
      state = kAfterRun;
    }
  }
  return true;
}

absl::Status OutOfBounds(int64_t index, int64_t axis, int64_t extent) {
  return absl::InvalidArgumentError(
      fmt::format("index {} is out of bounds for axis {} with size {}", index, axis, extent));
}

}  // namespace

absl::StatusOr<IndexPlan> PlanIndex(const Layout& data, int64_t itemsize,
                                    const std::vector<IndexEntry>& entries, const Limits& limits) {
  const auto rank = static_cast<int64_t>(data.shape.size());
  int64_t consumed = 0;
  int ellipses = 0;
  bool has_arrays = false;
  for (const IndexEntry& entry : entries) {
    consumed += DimensionsConsumed(entry);
    ellipses += entry.kind == Kind::kEllipsis;
    has_arrays = has_arrays || IsArray(entry);
  }
  if (ellipses > 1) {
    return absl::InvalidArgumentError("an index can only have a single ellipsis ('...')");
  }
  if (consumed > rank) {
    return absl::InvalidArgumentError(
        fmt::format("too many indices for array: array is {}-dimensional, but {} were indexed",
                    rank, consumed));
  }

  IndexPlan plan;
  plan.layout.offset_bytes = data.offset_bytes;
  std::vector<Axis> before, after;  // Result axes of basic indexing, around the index arrays.
  auto keep = [&](int64_t extent, int64_t stride) {
    (plan.arrays.empty() ? before : after).push_back({extent, stride});
  };
  int64_t d = 0;  // The next data axis.
  for (size_t i = 0; i < entries.size(); ++i) {
    const IndexEntry& entry = entries[i];
    switch (entry.kind) {
      case Kind::kInteger: {
        const int64_t extent = data.shape[d];
        if (entry.integer < -extent || entry.integer >= extent) {
          return OutOfBounds(entry.integer, d, extent);
        }
        const int64_t index = entry.integer < 0 ? entry.integer + extent : entry.integer;
        plan.layout.offset_bytes += index * data.strides[d] * itemsize;
        ++d;
        break;
      }
      case Kind::kSlice: {
        const SliceRange range = ResolveSlice(entry.slice, data.shape[d]);
        if (range.count > 0) plan.layout.offset_bytes += range.start * data.strides[d] * itemsize;
        keep(range.count, data.strides[d] * range.step);
        ++d;
        break;
      }
      case Kind::kEllipsis:
        for (int64_t k = 0; k < rank - consumed; ++k, ++d) keep(data.shape[d], data.strides[d]);
        break;
      case Kind::kNewAxis:
        keep(1, 0);
        break;
      case Kind::kIntArray:
        plan.arrays.push_back({.entry = i,
                               .component = 0,
                               .axis = static_cast<int>(d),
                               .extent = data.shape[d],
                               .stride = data.strides[d],
                               .shape = entry.array_shape});
        ++d;
        break;
      case Kind::kBoolArray:
        if (entry.array_shape.empty()) {
          // A 0-d boolean (a[True], a[False]) indexes a new axis of length 1 that it adds in
          // place: its one index, 0, taken once or never. It moves along no data axis.
          plan.arrays.push_back({.entry = i,
                                 .component = 0,
                                 .axis = static_cast<int>(d),
                                 .extent = 1,
                                 .stride = 0,
                                 .shape = {entry.nonzero_count}});
          break;
        }
        const bool empty_mask = std::ranges::find(entry.array_shape, 0) != entry.array_shape.end();
        for (size_t j = 0; j < entry.array_shape.size(); ++j, ++d) {
          // NumPy lets an empty mask of any shape select nothing (a[np.zeros(0, bool)]).
          if (entry.array_shape[j] != data.shape[d] && !empty_mask) {
            return absl::InvalidArgumentError(fmt::format(
                "boolean index did not match indexed array along axis {}; size of axis is {} but "
                "size of corresponding boolean axis is {}",
                d, data.shape[d], entry.array_shape[j]));
          }
          plan.arrays.push_back({.entry = i,
                                 .component = static_cast<int>(j),
                                 .axis = static_cast<int>(d),
                                 .extent = data.shape[d],
                                 .stride = data.strides[d],
                                 .shape = {entry.nonzero_count}});
        }
        break;
    }
  }
  for (; d < rank; ++d) keep(data.shape[d], data.strides[d]);

  std::vector<Axis> axes = before;
  if (has_arrays) {
    std::vector<Shape> shapes;
    for (const AdvancedIndex& array : plan.arrays) shapes.push_back(array.shape);
    absl::StatusOr<Shape> block = BroadcastShapes(shapes);
    if (!block.ok()) {
      std::string listed;
      for (const Shape& shape : shapes) listed += CompactShape(shape) + " ";
      return absl::InvalidArgumentError(
          "shape mismatch: indexing arrays could not be broadcast together with shapes " + listed);
    }
    plan.advanced = true;
    plan.block_shape = *block;
    plan.block_start = AdvancedEntriesAreConsecutive(entries) ? before.size() : 0;
    axes.insert(axes.begin() + static_cast<std::ptrdiff_t>(plan.block_start), block->size(),
                Axis{0, 0});
    for (size_t k = 0; k < block->size(); ++k) axes[plan.block_start + k].extent = (*block)[k];
  }
  axes.insert(axes.end(), after.begin(), after.end());
  for (const Axis& axis : axes) {
    plan.layout.shape.push_back(axis.extent);
    plan.layout.strides.push_back(axis.stride);
  }
  AH_RETURN_IF_ERROR(CheckShape(plan.layout.shape, limits, "the result of indexing").status());
  return plan;
}

}  // namespace arrayhub
