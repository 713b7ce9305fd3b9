// CudaCompute::FillRandom: cuRAND's Philox4_32_10 generator (host API, on the compute stream)
// seeded with the call's seed, so equal seeds give equal values on the same device. cuRAND
// draws uniform floats, normal floats or 32-bit words into scratch memory, and a kernel of
// cuda_random.cu turns them into the output's dtype and range. The other distributions are
// drawn by one kernel on the device-side Philox (cuda_distributions.cu), without a generator.
#include <curand.h>
#include <fmt/format.h>

#include <memory>
#include <type_traits>

#include "server/backend/cuda/compute_context.h"
#include "server/backend/cuda/cuda_check.h"
#include "server/backend/cuda/cuda_parts.h"
#include "server/backend/cuda/cuda_queue.h"
#include "server/backend/cuda/cuda_random.cuh"
#include "server/backend/cuda/scratch.h"
#include "server/common/status_macros.h"

namespace arrayhub {

namespace {

absl::Status CurandStatus(curandStatus_t status, std::string_view what) {
  if (status == CURAND_STATUS_SUCCESS) return absl::OkStatus();
  const std::string message = fmt::format("{}: cuRAND status {}", what, static_cast<int>(status));
  if (status == CURAND_STATUS_ALLOCATION_FAILED) return absl::ResourceExhaustedError(message);
  return absl::InternalError(message);
}

#define AH_CURAND_RETURN_IF_ERROR(expr) AH_RETURN_IF_ERROR(CurandStatus((expr), #expr))

struct GeneratorDeleter {
  void operator()(curandGenerator_t generator) const { (void)curandDestroyGenerator(generator); }
};
using Generator = std::unique_ptr<std::remove_pointer_t<curandGenerator_t>, GeneratorDeleter>;

absl::Status CheckFloat(DType dtype) {
  if (IsFloating(dtype)) return absl::OkStatus();
  return absl::InvalidArgumentError(
      fmt::format("random floats of dtype {} are not supported", DTypeName(dtype)));
}

// double draws for float64 (53 random bits), float draws (24 bits) for narrower dtypes.
absl::Status Uniform(curandGenerator_t generator, const RandomCall& call, void* out, int64_t n,
                     const ComputeContext& context) {
  AH_RETURN_IF_ERROR(CheckFloat(call.output.dtype));
  const bool wide = call.output.dtype == DType::kFloat64;
  AH_ASSIGN_OR_RETURN(auto draws, AllocateScratch(n * (wide ? 8 : 4), context.stream));
  const auto count = static_cast<size_t>(n);
  if (wide) {
    AH_CURAND_RETURN_IF_ERROR(
        curandGenerateUniformDouble(generator, static_cast<double*>(draws->data()), count));
  } else {
    AH_CURAND_RETURN_IF_ERROR(
        curandGenerateUniform(generator, static_cast<float*>(draws->data()), count));
  }
  AH_CUDA_RETURN_IF_ERROR(
      LaunchUniform(call.output.dtype, draws->data(), out, n, call.low, call.high, context.stream));
  return absl::OkStatus();
}

absl::Status Normal(curandGenerator_t generator, const RandomCall& call, void* out, int64_t n,
                    const ComputeContext& context) {
  AH_RETURN_IF_ERROR(CheckFloat(call.output.dtype));
  const bool wide = call.output.dtype == DType::kFloat64;
  const int64_t even = n + n % 2;  // cuRAND makes normal values in pairs.
  AH_ASSIGN_OR_RETURN(auto draws, AllocateScratch(even * (wide ? 8 : 4), context.stream));
  const auto count = static_cast<size_t>(even);
  if (wide) {
    AH_CURAND_RETURN_IF_ERROR(curandGenerateNormalDouble(
        generator, static_cast<double*>(draws->data()), count, call.low, call.high));
  } else {
    AH_CURAND_RETURN_IF_ERROR(curandGenerateNormal(generator, static_cast<float*>(draws->data()),
                                                   count, static_cast<float>(call.low),
                                                   static_cast<float>(call.high)));
  }
  AH_CUDA_RETURN_IF_ERROR(LaunchNormal(call.output.dtype, draws->data(), out, n, context.stream));
  return absl::OkStatus();
}

absl::Status Integers(curandGenerator_t generator, const RandomCall& call, void* out, int64_t n,
                      const ComputeContext& context) {
  if (!IsInteger(call.output.dtype) && call.output.dtype != DType::kBool) {
    return absl::InvalidArgumentError(
        fmt::format("random integers of dtype {} are not supported", DTypeName(call.output.dtype)));
  }
  const int64_t words = (2 * n + 3) / 4 * 4;  // Whole Philox outputs of four words.
  AH_ASSIGN_OR_RETURN(auto draws, AllocateScratch(words * 4, context.stream));
  auto* w = static_cast<uint32_t*>(draws->data());
  AH_CURAND_RETURN_IF_ERROR(curandGenerate(generator, w, static_cast<size_t>(words)));
  AH_CUDA_RETURN_IF_ERROR(
      LaunchIntegers(call.output.dtype, w, out, n, call.int_low, call.int_high, context.stream));
  return absl::OkStatus();
}

}  // namespace

absl::Status CudaCompute::FillRandom(QueueBinding& queue, const RandomCall& call) {
  AH_ASSIGN_OR_RETURN(const QueueSection section, Enter(queue));
  AH_ASSIGN_OR_RETURN(const ComputeContext context, ComputeContextOf(section));
  int64_t n = 1;
  for (int64_t extent : call.output.shape) n *= extent;
  if (n == 0) return absl::OkStatus();

  void* out = static_cast<char*>(call.output.buffer->data()) + call.output.offset_bytes;
  const RandomDistribution d = call.distribution;
  if (d != RandomDistribution::kUniform && d != RandomDistribution::kNormal &&
      d != RandomDistribution::kIntegers) {
    AH_CUDA_RETURN_IF_ERROR(LaunchDistribution(call.output.dtype, d, call.low, call.high,
                                               call.int_high, call.seed, out, n, context.stream));
    return absl::OkStatus();
  }
  curandGenerator_t raw = nullptr;
  AH_CURAND_RETURN_IF_ERROR(curandCreateGenerator(&raw, CURAND_RNG_PSEUDO_PHILOX4_32_10));
  const Generator generator(raw);
  AH_CURAND_RETURN_IF_ERROR(curandSetStream(raw, context.stream));
  AH_CURAND_RETURN_IF_ERROR(curandSetPseudoRandomGeneratorSeed(raw, call.seed));
  switch (d) {
    case RandomDistribution::kUniform:
      AH_RETURN_IF_ERROR(Uniform(raw, call, out, n, context));
      break;
    case RandomDistribution::kNormal:
      AH_RETURN_IF_ERROR(Normal(raw, call, out, n, context));
      break;
    case RandomDistribution::kIntegers:
      AH_RETURN_IF_ERROR(Integers(raw, call, out, n, context));
      break;
    default:
      break;
  }
  // The scratch draws were freed in stream order above, but the generator's own resources go
  // when it is destroyed here, so its work must be done first: random creation waits.
  return section.queue()->Synchronize();
}

}  // namespace arrayhub
