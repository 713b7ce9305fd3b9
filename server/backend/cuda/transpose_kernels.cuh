// The tiled copy behind strided copies that transpose: ascontiguousarray(a.T), a batched
// a.swapaxes(-1, -2).copy(), and the casts-free copies core makes of such views. The generic
// elementwise kernel walks the output in order, so one of the two sides is read or written
// with a large stride (a 32-byte sector moved for every 4-byte element); this one stages a
// 32 x 32 tile in shared memory, so that both sides move in whole rows.
// This header is shared by nvcc and the host compiler, so it keeps to CUDA's runtime API and
// the standard library (see fill_kernels.cuh).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace arrayhub {

// A bit copy of `extents[0] x extents[1] x extents[2]` elements of `item_size` bytes (1, 2, 4,
// 8 or 16; both pointers and every stride aligned to it). Dimension 0 is a batch; the input is
// contiguous along dimension 1 (in_strides[1] == item_size) and the output along dimension 2
// (out_strides[2] == item_size). Strides in bytes, any sign.
struct TiledTransposeArgs {
  char* out = nullptr;
  const char* in = nullptr;
  int64_t item_size = 0;
  int64_t extents[3] = {1, 1, 1};
  int64_t in_strides[3] = {0, 0, 0};
  int64_t out_strides[3] = {0, 0, 0};
};

// Enqueues the copy on `stream`; returns the launch's error without waiting for the work.
cudaError_t LaunchTiledTranspose(const TiledTransposeArgs& args, cudaStream_t stream);

}  // namespace arrayhub
