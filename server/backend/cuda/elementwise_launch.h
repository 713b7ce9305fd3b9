// Runs elementwise calls on the GPU: picks the layout class, fetches the matching kernel from
// the cache (compiling it on first use) and launches it. A single op and a fused chain of ops
// take the same path: a single op is a chain of one step.
#pragma once

#include "absl/status/status.h"
#include "server/backend/compute.h"
#include "server/backend/cuda/compute_context.h"

namespace arrayhub {

// Enqueues `call` on context.stream and returns without waiting for it.
absl::Status EnqueueFusedElementwise(const FusedElementwiseCall& call,
                                     const ComputeContext& context);

// As above for one op. Also the building block of the reductions (casts, transposes,
// deviations).
absl::Status EnqueueElementwise(const ElementwiseCall& call, const ComputeContext& context);

// Enqueues a cast (or plain copy) of `source` into `destination`, which has the same shape.
absl::Status EnqueueCopy(const ArrayView& source, const ArrayView& destination,
                         const ComputeContext& context);

}  // namespace arrayhub
