// Axis arguments as NumPy normalizes them: negative axes count from the end, and an axis out
// of range is NumPy's AxisError ("axis 3 is out of bounds for array of dimension 2").
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace arrayhub {

// `axis` in [-rank, rank) as a number in [0, rank).
absl::StatusOr<int64_t> NormalizeAxis(int64_t axis, int64_t rank);

// Every axis normalized, in the given order; a repeat is INVALID_ARGUMENT `repeat_message`
// (NumPy words it differently per function: "repeated axis", "repeated axis in transpose").
absl::StatusOr<std::vector<int64_t>> NormalizeAxes(std::span<const int64_t> axes, int64_t rank,
                                                   std::string_view repeat_message);

}  // namespace arrayhub
