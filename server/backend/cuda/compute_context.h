// What the compute paths (elementwise, reduce, random) need to enqueue work: the current
// device's properties and the stream to use.
#pragma once

#include <cuda_runtime_api.h>

#include "absl/status/statusor.h"

namespace arrayhub {

struct ComputeContext {
  int device = 0;
  int arch = 0;  // Compute capability, major * 10 + minor.
  int sm_count = 0;
  // The stream of the queue the calling thread bound (cuda_queue.h): the work of a call is
  // enqueued there and not waited for, unless the call must read a result back.
  cudaStream_t stream = nullptr;
};

// The context of the calling thread's current device and queue (properties are read once per
// device).
absl::StatusOr<ComputeContext> CurrentComputeContext();

}  // namespace arrayhub
