// What the compute paths (elementwise, reduce, random) need to enqueue work: the call's
// device's properties and the stream to use.
#pragma once

#include <cuda_runtime_api.h>

#include "absl/status/statusor.h"

namespace arrayhub {

class CudaQueue;
class QueueSection;

struct ComputeContext {
  int device = 0;
  int arch = 0;  // Compute capability, major * 10 + minor.
  int sm_count = 0;
  // The call's queue (cuda_queue.h), for its reduction workspace and its waits, and the queue's
  // stream: the work of a call is enqueued there and not waited for, unless the call must read
  // a result back.
  CudaQueue* queue = nullptr;
  cudaStream_t stream = nullptr;
};

// The context of the call `section` covers: its queue's device and stream (properties are read
// once per device).
absl::StatusOr<ComputeContext> ComputeContextOf(const QueueSection& section);
// The compute capability of `device`, major * 10 + minor: what code is compiled for.
absl::StatusOr<int> ArchOf(int device);

}  // namespace arrayhub
