// Shapes and strides: validation with overflow-checked sizes, C-order strides, NumPy's
// textual form "(3, 4)".
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace arrayhub {

using Shape = std::vector<int64_t>;
using Strides = std::vector<int64_t>;  // In elements, as on the wire.

// Number of elements of `shape`. INVALID_ARGUMENT when an extent is negative or the count
// overflows int64, or for an empty array whose other extents could not have byte strides in
// int64 (as NumPy: "array is too big"). `what` names the field in messages ("shape").
absl::StatusOr<int64_t> ElementCount(std::span<const int64_t> shape,
                                     std::string_view what = "shape");

// count * itemsize, INVALID_ARGUMENT on overflow.
absl::StatusOr<int64_t> ByteCount(int64_t count, int64_t itemsize);

// Row-major strides (in elements) for a dense array of this shape.
Strides ContiguousStrides(std::span<const int64_t> shape);

// True when `strides` describe a dense row-major (or column-major) layout of `shape`.
bool IsCContiguous(std::span<const int64_t> shape, std::span<const int64_t> strides);
bool IsFContiguous(std::span<const int64_t> shape, std::span<const int64_t> strides);

// NumPy's text for a shape: "()", "(5,)", "(3, 4)".
std::string FormatShape(std::span<const int64_t> shape);

// The text NumPy's C code writes for shapes in its messages (broadcasting, gufuncs, dot,
// indexing): "()", "(5,)", "(3,4)".
std::string CompactShape(std::span<const int64_t> shape);

}  // namespace arrayhub
