// A FusedElementwiseCall run as one Elementwise call per step, each value that is not an
// output held in a contiguous temporary buffer of the backend's until its last reader has run.
// A reduction at its end is a Reduce call over the step's value, which is kept until then.
// What a backend without a fused kernel does: the same results, the per-op memory traffic.
#pragma once

#include "absl/status/status.h"
#include "server/backend/compute.h"
#include "server/backend/device_memory.h"

namespace arrayhub {

// Temporaries come from `memory`, the steps and the reduction run on `compute`, all handed
// `queue`.
absl::Status RunFusedStepByStep(DeviceMemory& memory, ComputeKernels& compute, QueueBinding& queue,
                                const FusedElementwiseCall& call);

}  // namespace arrayhub
