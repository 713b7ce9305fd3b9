// The one simplification of a strided walk that the CUDA launchers share (elementwise, indexing
// and user kernels): a C-order walk over a shape by several arrays at once, with extents of 1
// dropped and each dimension merged into the one before it when every array steps over that
// one as over a run of it. The positions and their order do not change; dense arrays become
// rank 1 and a broadcast row rank 2, whatever the call's rank.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "server/backend/compute.h"

namespace arrayhub {

struct CoalescedWalk {
  std::vector<int64_t> extents;
  std::vector<std::vector<int64_t>> strides;  // strides[k][d]: array k along extent d.
};

// `strides[k]` has one stride per extent of `shape`, in any unit (elements or bytes) that all
// of array k's strides share.
CoalescedWalk Coalesce(std::span<const int64_t> shape,
                       const std::vector<std::vector<int64_t>>& strides);

// A view's strides in bytes.
std::vector<int64_t> ByteStrides(const ArrayView& view);

}  // namespace arrayhub
