#include <algorithm>

#include "server/backend/cuda/transpose_kernels.cuh"

namespace arrayhub {

namespace {

// A tile is kTile x kTile elements, moved by kTile x kTileRows threads, each taking
// kTile / kTileRows rows: enough loads in flight per thread to cover the memory latency.
constexpr int kTile = 32;
constexpr int kTileRows = 8;
// The most blocks along grid dimensions y and z (CUDA's limit); the kernel loops past it.
constexpr int64_t kMaxGridYZ = 65535;

struct Bytes16 {
  uint4 value;
};

// T is an unsigned type of the element's size (a bit copy). Grid: x over tiles of dimension 1
// (the input's contiguous one), y over tiles of dimension 2 (the output's), z over the batch;
// y and z loop when the grid is smaller.
template <typename T>
__global__ void __launch_bounds__(kTile* kTileRows) TiledTransposeKernel(TiledTransposeArgs args) {
  // One column of padding: reading a column of the tile then hits 32 different banks.
  __shared__ T tile[kTile][kTile + 1];
  const int64_t out_tiles = (args.extents[2] + kTile - 1) / kTile;
  const int64_t i0 = static_cast<int64_t>(blockIdx.x) * kTile;
  const int tx = static_cast<int>(threadIdx.x);
  const int ty = static_cast<int>(threadIdx.y);
  for (int64_t b = blockIdx.z; b < args.extents[0]; b += gridDim.z) {
    for (int64_t o_tile = blockIdx.y; o_tile < out_tiles; o_tile += gridDim.y) {
      const int64_t o0 = o_tile * kTile;
      // Read: neighbouring threads take neighbouring elements of dimension 1.
      const char* in = args.in + b * args.in_strides[0];
      const int64_t i = i0 + tx;
      for (int r = ty; r < kTile; r += kTileRows) {
        const int64_t o = o0 + r;
        if (i < args.extents[1] && o < args.extents[2]) {
          tile[r][tx] =
              *reinterpret_cast<const T*>(in + i * args.in_strides[1] + o * args.in_strides[2]);
        }
      }
      __syncthreads();
      // Write: neighbouring threads take neighbouring elements of dimension 2.
      char* out = args.out + b * args.out_strides[0];
      const int64_t o = o0 + tx;
      for (int r = ty; r < kTile; r += kTileRows) {
        const int64_t i_row = i0 + r;
        if (i_row < args.extents[1] && o < args.extents[2]) {
          *reinterpret_cast<T*>(out + i_row * args.out_strides[1] + o * args.out_strides[2]) =
              tile[tx][r];
        }
      }
      // The next round's reads must not overwrite what this round's writes still read.
      __syncthreads();
    }
  }
}

template <typename T>
cudaError_t Launch(const TiledTransposeArgs& args, cudaStream_t stream) {
  const int64_t in_tiles = (args.extents[1] + kTile - 1) / kTile;
  const int64_t out_tiles = (args.extents[2] + kTile - 1) / kTile;
  const dim3 grid(static_cast<unsigned>(in_tiles),
                  static_cast<unsigned>(std::min(out_tiles, kMaxGridYZ)),
                  static_cast<unsigned>(std::min(args.extents[0], kMaxGridYZ)));
  TiledTransposeKernel<T><<<grid, dim3(kTile, kTileRows), 0, stream>>>(args);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchTiledTranspose(const TiledTransposeArgs& args, cudaStream_t stream) {
  if (args.extents[0] <= 0 || args.extents[1] <= 0 || args.extents[2] <= 0) return cudaSuccess;
  // Grid dimension x is 2^31 - 1 blocks at most: 2^36 elements along dimension 1.
  if ((args.extents[1] + kTile - 1) / kTile > 0x7fffffff) return cudaErrorInvalidConfiguration;
  switch (args.item_size) {
    case 1:
      return Launch<uint8_t>(args, stream);
    case 2:
      return Launch<uint16_t>(args, stream);
    case 4:
      return Launch<uint32_t>(args, stream);
    case 8:
      return Launch<uint64_t>(args, stream);
    case 16:
      return Launch<Bytes16>(args, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace arrayhub
