// How a reduction's input is walked: every reduction kernel reads its input as a 3-d array
// [outer, reduce, inner] and writes output element o * inner + i.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "server/backend/cuda/cuda_reduce.cuh"
#include "server/common/shape.h"

namespace arrayhub {

// The [outer, reduce, inner] form of `shape`/`strides` reduced over `axes` (sorted), when one
// exists: extents of 1 are dropped and neighbouring dimensions of the same kind (kept or
// reduced) that the strides step through as one are merged; what is left must be at most
// kept-reduced-kept. The merged reduced index is the C-order index over the reduced axes, as
// argmin/argmax report it. nullopt when the kept or reduced dimensions do not merge (for
// example axes 0 and 2 of a 3-d array), and the input must first be copied in another order.
std::optional<ReduceGeometry> CanonicalGeometry(const Shape& shape, const Strides& strides,
                                                const std::vector<int64_t>& axes);

}  // namespace arrayhub
