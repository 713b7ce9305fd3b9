// The launch shape of the backend's grid-stride kernels: blocks of kThreadsPerBlock threads, at
// most kMaxBlocks of them (enough to fill any current GPU several times over); each thread
// starts at FirstIndex() and steps by GridStride() over the rest.
#pragma once

#include <algorithm>
#include <cstdint>

namespace arrayhub::grid_stride {

inline constexpr int kThreadsPerBlock = 256;
inline constexpr int64_t kMaxBlocks = 4096;

// Blocks for `threads` threads (at least one).
inline int BlocksFor(int64_t threads) {
  return static_cast<int>(std::max<int64_t>(
      1, std::min<int64_t>((threads + kThreadsPerBlock - 1) / kThreadsPerBlock, kMaxBlocks)));
}

__device__ inline int64_t FirstIndex() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ inline int64_t GridStride() { return static_cast<int64_t>(gridDim.x) * blockDim.x; }

}  // namespace arrayhub::grid_stride
