// Turns CUDA runtime errors into absl::Status, the error type of every layer above.
#pragma once

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "server/backend/cuda/device_loss.h"

namespace arrayhub {

// OK for cudaSuccess; RESOURCE_EXHAUSTED for out-of-memory, INTERNAL for anything else. An
// error that loses the device (IsDeviceLost) is reported (ReportDeviceLost) on its way.
inline absl::Status CudaStatus(cudaError_t error, std::string_view what) {
  if (error == cudaSuccess) return absl::OkStatus();
  // A failed call also leaves its error as the thread's "last error"; consume it so that the
  // cudaGetLastError check after a later kernel launch does not report it a second time.
  (void)cudaGetLastError();
  const std::string message =
      fmt::format("{}: {}: {}", what, cudaGetErrorName(error), cudaGetErrorString(error));
  if (error == cudaErrorMemoryAllocation) return absl::ResourceExhaustedError(message);
  if (IsDeviceLost(error)) {
    ReportDeviceLost(message);
    return absl::InternalError(
        message + " (the GPU is unusable until the server restarts; its arrays are lost)");
  }
  return absl::InternalError(message);
}

}  // namespace arrayhub

// Returns from the enclosing function when the CUDA call `expr` fails, naming the call and
// where it was made.
#define AH_CUDA_RETURN_IF_ERROR(expr)                                                         \
  do {                                                                                        \
    if (const cudaError_t _ah_cuda_error = (expr); _ah_cuda_error != cudaSuccess) {           \
      return ::arrayhub::CudaStatus(_ah_cuda_error,                                           \
                                    ::fmt::format("{} at {}:{}", #expr, __FILE__, __LINE__)); \
    }                                                                                         \
  } while (0)
