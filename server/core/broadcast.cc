#include "server/core/broadcast.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cassert>

namespace arrayhub {
namespace {

absl::Status BroadcastError(std::span<const Shape> shapes) {
  std::string message = "operands could not be broadcast together with shapes ";
  for (const Shape& shape : shapes) message += CompactShape(shape) + " ";
  return absl::InvalidArgumentError(message);
}

}  // namespace

absl::StatusOr<Shape> BroadcastShapes(std::span<const Shape> shapes) {
  size_t rank = 0;
  for (const Shape& shape : shapes) rank = std::max(rank, shape.size());
  Shape result(rank, 1);
  for (const Shape& shape : shapes) {
    // Axis i of `shape` is axis i + offset of the result.
    const size_t offset = rank - shape.size();
    for (size_t i = 0; i < shape.size(); ++i) {
      int64_t& extent = result[i + offset];
      if (shape[i] == extent || shape[i] == 1) continue;
      if (extent != 1) return BroadcastError(shapes);
      extent = shape[i];
    }
  }
  return result;
}

Strides BroadcastStrides(const Shape& shape, const Strides& strides, const Shape& target) {
  assert(shape.size() == strides.size() && shape.size() <= target.size());
  const size_t offset = target.size() - shape.size();
  Strides result(target.size(), 0);
  for (size_t i = 0; i < shape.size(); ++i) {
    assert(shape[i] == target[i + offset] || shape[i] == 1);
    if (shape[i] != 1) result[i + offset] = strides[i];
  }
  return result;
}

}  // namespace arrayhub
