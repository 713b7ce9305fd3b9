// Host-callable launchers of the kernels that turn cuRAND's raw draws into an output's dtype
// and range (see random_fill.cc). Each enqueues on `stream` and returns the launch's error.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "server/backend/random_distribution.h"
#include "server/common/dtype.h"

namespace arrayhub {

// Uniform draws in (0, 1] (double for float64 outputs, float for float16 and float32) to
// values in [low, high) of a float dtype.
cudaError_t LaunchUniform(DType dtype, const void* draws, void* out, int64_t n, double low,
                          double high, cudaStream_t stream);

// Normal draws (double for float64, float otherwise) rounded to a float dtype.
cudaError_t LaunchNormal(DType dtype, const void* draws, void* out, int64_t n, cudaStream_t stream);

// 2 * n uniform 32-bit words to n integers in [low, high) of an integer dtype or bool.
cudaError_t LaunchIntegers(DType dtype, const uint32_t* words, void* out, int64_t n, int64_t low,
                           int64_t high, cudaStream_t stream);

// n values of one of random_samplers.h's distributions (not uniform, normal or integers), of a
// float dtype or, for binomial, poisson, geometric and negative_binomial, int64
// (cuda_distributions.cu).
cudaError_t LaunchDistribution(DType dtype, RandomDistribution distribution, double low,
                               double high, int64_t trials, uint64_t seed, void* out, int64_t n,
                               cudaStream_t stream);

}  // namespace arrayhub
