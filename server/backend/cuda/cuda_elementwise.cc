// CudaCompute::Elementwise and FusedElementwise: kernels generated per signature and compiled
// with NVRTC (see elementwise_launch.h), enqueued on the session's stream and not waited for.
// A fused chain is one kernel whose intermediate values never reach memory.
#include "server/backend/cuda/compute_context.h"
#include "server/backend/cuda/cuda_parts.h"
#include "server/backend/cuda/cuda_queue.h"
#include "server/backend/cuda/elementwise_launch.h"
#include "server/common/status_macros.h"

namespace arrayhub {

absl::Status CudaCompute::Elementwise(QueueBinding& queue, const ElementwiseCall& call) {
  AH_ASSIGN_OR_RETURN(const QueueSection section, Enter(queue));
  AH_ASSIGN_OR_RETURN(const ComputeContext context, ComputeContextOf(section));
  return EnqueueElementwise(call, context);
}

absl::Status CudaCompute::FusedElementwise(QueueBinding& queue, const FusedElementwiseCall& call) {
  AH_ASSIGN_OR_RETURN(const QueueSection section, Enter(queue));
  AH_ASSIGN_OR_RETURN(const ComputeContext context, ComputeContextOf(section));
  return EnqueueFusedElementwise(call, context);
}

}  // namespace arrayhub
