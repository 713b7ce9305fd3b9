// The layouts of NumPy's views: reshape, transpose, swapaxes, squeeze, expand_dims,
// broadcast_to, diagonal, ravel and view(dtype), computed from shape and strides alone, with
// NumPy's error messages. A view shares its base's memory; where NumPy has to copy (a reshape the
// strides cannot express), the plan says so and the engine copies.
#pragma once

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "server/common/shape.h"
#include "server/core/limits.h"
#include "server/core/manipulation_specs.h"

namespace arrayhub {

// Where an array's elements are: strides in elements, offset in bytes into its buffer.
struct Layout {
  Shape shape;
  Strides strides;
  int64_t offset_bytes = 0;
};

// A reshape or ravel: the resolved shape, and the strides that view the data with it when
// that is possible without a copy (NumPy's _attempt_nocopy_reshape). Without them the result
// is a copy, in `order`.
struct ReshapePlan {
  Shape shape;
  std::optional<Strides> view_strides;
  MemoryOrder order = MemoryOrder::kC;
};

// NumPy's _attempt_nocopy_reshape: the strides that view `layout` as `shape` (the same
// elements, read in `order`) without moving them; nullopt when the axes merged or split are
// not contiguous among themselves and the data must be copied first.
std::optional<Strides> ReshapeStrides(const Layout& layout, const Shape& shape,
                                      MemoryOrder order = MemoryOrder::kC);

// numpy.reshape: "cannot reshape array of size 12 into shape (5,3)", "can only specify one
// unknown dimension" (any negative length is the unknown one, as in NumPy 2). The new shape's
// rank is held to `limits`.
absl::StatusOr<ReshapePlan> PlanReshape(const Layout& layout, const ReshapeSpec& spec,
                                        const Limits& limits);
// numpy.ravel: a view when the array is contiguous in the requested order, else a copy.
ReshapePlan PlanRavel(const Layout& layout, MemoryOrder order);

// numpy.transpose: "axes don't match array", "repeated axis in transpose".
absl::StatusOr<Layout> TransposeLayout(const Layout& layout, const TransposeSpec& spec);
absl::StatusOr<Layout> SwapAxesLayout(const Layout& layout, const SwapAxesSpec& spec);
// numpy.squeeze: "cannot select an axis to squeeze out which has size not equal to one".
absl::StatusOr<Layout> SqueezeLayout(const Layout& layout, const SqueezeSpec& spec);
// The result's rank is held to `limits`.
absl::StatusOr<Layout> ExpandDimsLayout(const Layout& layout, const ExpandDimsSpec& spec,
                                        const Limits& limits);
// numpy.broadcast_to (a read-only view). The shape is held to `limits` like a new array's:
// every op that reads the view walks all of its elements.
absl::StatusOr<Layout> BroadcastToLayout(const Layout& layout, const BroadcastToSpec& spec,
                                         const Limits& limits);
// numpy.diagonal (a read-only view): the diagonal axis last.
absl::StatusOr<Layout> DiagonalLayout(const Layout& layout, int64_t itemsize,
                                      const DiagonalSpec& spec);

// ndarray.view(dtype): the layout (strides in elements of `to`) that reads the bytes of
// `layout`, elements of `from`, as elements of `to`, and whether the view may be written.
struct DTypeView {
  Layout layout;
  bool writable = true;
};
// NumPy 2's rules and messages: the same itemsize views any layout; another needs a last axis
// that is contiguous (or of length 1, or an empty array), which changes length: "To change to
// a dtype of a different size, the last axis must be contiguous", "When changing to a smaller
// dtype, its size must be a divisor of the size of original dtype", "When changing to a larger
// dtype, its size must be a divisor of the total size in bytes of the last axis of the
// array.", "Changing the dtype of a 0d array is only supported if the itemsize is unchanged".
// Refused beyond NumPy, because the backends rely on them: a start or a stride in bytes that
// is not a multiple of the new itemsize (elements stay aligned, as strides count elements),
// and a non-bool array viewed as bool (bool kernels read only the bytes 0 and 1). A bool array
// viewed as another dtype is read-only, so that no other byte can be written into it.
absl::StatusOr<DTypeView> DTypeViewLayout(const Layout& layout, DType from, DType to);

}  // namespace arrayhub
