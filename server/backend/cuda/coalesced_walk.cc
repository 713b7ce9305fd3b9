#include "server/backend/cuda/coalesced_walk.h"

namespace arrayhub {

CoalescedWalk Coalesce(std::span<const int64_t> shape,
                       const std::vector<std::vector<int64_t>>& strides) {
  CoalescedWalk walk;
  walk.strides.resize(strides.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    bool merge = !walk.extents.empty();
    for (size_t k = 0; k < strides.size() && merge; ++k) {
      merge = walk.strides[k].back() == strides[k][d] * shape[d];
    }
    for (size_t k = 0; k < strides.size(); ++k) {
      if (merge) {
        walk.strides[k].back() = strides[k][d];
      } else {
        walk.strides[k].push_back(strides[k][d]);
      }
    }
    if (merge) {
      walk.extents.back() *= shape[d];
    } else {
      walk.extents.push_back(shape[d]);
    }
  }
  return walk;
}

std::vector<int64_t> ByteStrides(const ArrayView& view) {
  std::vector<int64_t> strides(view.strides.begin(), view.strides.end());
  for (int64_t& stride : strides) stride *= ItemSize(view.dtype);
  return strides;
}

}  // namespace arrayhub
