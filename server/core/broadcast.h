// NumPy's broadcasting of operand shapes, and the strides that view an array as broadcast.
#pragma once

#include <span>

#include "absl/status/statusor.h"
#include "server/common/shape.h"

namespace arrayhub {

// The shape NumPy broadcasts `shapes` to: ranks align on the right, and along each axis the
// extents must agree or be 1 (an extent of 0 meets only 0 and 1). No shapes give ().
// INVALID_ARGUMENT with NumPy's ufunc message, shapes printed without spaces and a trailing
// space: "operands could not be broadcast together with shapes (3,4) (5,) ".
absl::StatusOr<Shape> BroadcastShapes(std::span<const Shape> shapes);

// Strides (in elements) of an array with `shape` and `strides` viewed as `target`, a shape it
// broadcasts to: new leading axes and axes of extent 1 get stride 0 (as numpy.broadcast_to),
// the others keep theirs.
Strides BroadcastStrides(const Shape& shape, const Strides& strides, const Shape& target);

}  // namespace arrayhub
