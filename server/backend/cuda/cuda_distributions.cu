// The distributions beyond uniform, normal and integers (random_samplers.h), drawn per element
// on cuRAND's device-side Philox4_32_10: element i uses subsequence i of the call's seed, so
// its value depends only on the seed and i, not on the launch's shape, and each thread runs
// its rejection loops on its own stream.
#include <cuda_fp16.h>
#include <curand_kernel.h>

#include <algorithm>
#include <type_traits>

#include "server/backend/cuda/cuda_random.cuh"
#include "server/backend/random_samplers.h"

namespace arrayhub {

namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 4096;

// random_samplers.h's Source on one Philox subsequence.
class PhiloxSource {
 public:
  __device__ PhiloxSource(uint64_t seed, uint64_t subsequence) {
    curand_init(seed, subsequence, 0, &state_);
  }
  // cuRAND's doubles lie in (0, 1]; 1 - U lies in [0, 1).
  __device__ double Uniform() { return 1.0 - curand_uniform_double(&state_); }
  __device__ double Normal() { return curand_normal_double(&state_); }

 private:
  curandStatePhilox4_32_10_t state_;
};

template <class T>
__global__ void DistributionKernel(RandomDistribution distribution, double low, double high,
                                   int64_t trials, uint64_t seed, T* out, int64_t n) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    PhiloxSource source(seed, static_cast<uint64_t>(i));
    if constexpr (std::is_same_v<T, int64_t>) {
      out[i] = samplers::Count(source, distribution, trials, low, high);
    } else if constexpr (std::is_same_v<T, __half>) {
      out[i] = __double2half(samplers::Real(source, distribution, low, high));
    } else {
      out[i] = static_cast<T>(samplers::Real(source, distribution, low, high));
    }
  }
}

template <class T>
cudaError_t Launch(RandomDistribution distribution, double low, double high, int64_t trials,
                   uint64_t seed, void* out, int64_t n, cudaStream_t stream) {
  const auto blocks =
      static_cast<unsigned>(std::min<int64_t>((n + kThreads - 1) / kThreads, kMaxBlocks));
  DistributionKernel<<<blocks, kThreads, 0, stream>>>(distribution, low, high, trials, seed,
                                                      static_cast<T*>(out), n);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchDistribution(DType dtype, RandomDistribution distribution, double low,
                               double high, int64_t trials, uint64_t seed, void* out, int64_t n,
                               cudaStream_t stream) {
  const bool count = samplers::IsCount(distribution);
  switch (dtype) {
    case DType::kFloat16:
      if (count) break;
      return Launch<__half>(distribution, low, high, trials, seed, out, n, stream);
    case DType::kFloat32:
      if (count) break;
      return Launch<float>(distribution, low, high, trials, seed, out, n, stream);
    case DType::kFloat64:
      if (count) break;
      return Launch<double>(distribution, low, high, trials, seed, out, n, stream);
    case DType::kInt64:
      if (!count) break;
      return Launch<int64_t>(distribution, low, high, trials, seed, out, n, stream);
    default:
      break;
  }
  return cudaErrorInvalidValue;
}

}  // namespace arrayhub
