#include "server/core/axes.h"

#include <fmt/format.h>

#include <algorithm>

#include "server/common/status_macros.h"

namespace arrayhub {

absl::StatusOr<int64_t> NormalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) {
    return absl::InvalidArgumentError(
        fmt::format("axis {} is out of bounds for array of dimension {}", axis, rank));
  }
  return axis < 0 ? axis + rank : axis;
}

absl::StatusOr<std::vector<int64_t>> NormalizeAxes(std::span<const int64_t> axes, int64_t rank,
                                                   std::string_view repeat_message) {
  std::vector<int64_t> normalized;
  normalized.reserve(axes.size());
  for (int64_t axis : axes) {
    AH_ASSIGN_OR_RETURN(int64_t a, NormalizeAxis(axis, rank));
    if (std::find(normalized.begin(), normalized.end(), a) != normalized.end()) {
      return absl::InvalidArgumentError(std::string(repeat_message));
    }
    normalized.push_back(a);
  }
  return normalized;
}

}  // namespace arrayhub
