#include "server/common/shape.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace arrayhub {

absl::StatusOr<int64_t> ElementCount(std::span<const int64_t> shape, std::string_view what) {
  int64_t count = 1;
  for (size_t axis = 0; axis < shape.size(); ++axis) {
    if (shape[axis] < 0) {
      return absl::InvalidArgumentError(
          fmt::format("negative dimensions are not allowed: {} {} has {} at axis {}", what,
                      FormatShape(shape), shape[axis], axis));
    }
  }
  for (int64_t extent : shape) {
    if (__builtin_mul_overflow(count, extent, &count)) {
      return absl::InvalidArgumentError(
          fmt::format("{} {} has more elements than fit in int64", what, FormatShape(shape)));
    }
  }
  if (count == 0) {
    // The strides of an empty array are those of its nonzero extents (ContiguousStrides), and
    // in bytes they must fit int64 for the largest item (16 bytes) too.
    int64_t span = 16;
    for (int64_t extent : shape) {
      if (extent > 0 && __builtin_mul_overflow(span, extent, &span)) {
        return absl::InvalidArgumentError(
            fmt::format("{} {} is too big: its nonzero extents multiply to more than int64 allows",
                        what, FormatShape(shape)));
      }
    }
  }
  return count;
}

absl::StatusOr<int64_t> ByteCount(int64_t count, int64_t itemsize) {
  int64_t bytes = 0;
  if (__builtin_mul_overflow(count, itemsize, &bytes)) {
    return absl::InvalidArgumentError(
        fmt::format("array of {} elements of {} bytes overflows int64", count, itemsize));
  }
  return bytes;
}

Strides ContiguousStrides(std::span<const int64_t> shape) {
  Strides strides(shape.size());
  int64_t step = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = step;
    step *= shape[i] > 0 ? shape[i] : 1;
  }
  return strides;
}

namespace {

// A layout is dense in a given axis order when each axis's stride equals the product of the
// extents of the axes that vary faster. Axes of extent 1 may have any stride (NumPy agrees),
// and an empty array is dense whatever its strides.
template <typename AxisOrder>
bool IsDenseInOrder(std::span<const int64_t> shape, std::span<const int64_t> strides,
                    AxisOrder axes) {
  for (int64_t extent : shape) {
    if (extent == 0) return true;
  }
  int64_t expected = 1;
  for (size_t axis : axes) {
    if (shape[axis] != 1 && strides[axis] != expected) return false;
    expected *= shape[axis];
  }
  return true;
}

}  // namespace

bool IsCContiguous(std::span<const int64_t> shape, std::span<const int64_t> strides) {
  std::vector<size_t> order(shape.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = order.size() - 1 - i;
  return IsDenseInOrder(shape, strides, order);
}

bool IsFContiguous(std::span<const int64_t> shape, std::span<const int64_t> strides) {
  std::vector<size_t> order(shape.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  return IsDenseInOrder(shape, strides, order);
}

std::string FormatShape(std::span<const int64_t> shape) {
  if (shape.size() == 1) return fmt::format("({},)", shape[0]);
  return fmt::format("({})", fmt::join(shape, ", "));
}

std::string CompactShape(std::span<const int64_t> shape) {
  return fmt::format("({}{})", fmt::join(shape, ","), shape.size() == 1 ? "," : "");
}

}  // namespace arrayhub
