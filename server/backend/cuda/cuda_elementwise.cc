// CudaBackend::Elementwise: kernels generated per signature and compiled with NVRTC (see
// elementwise_launch.h), enqueued on the session's stream and not waited for.
#include "server/backend/cuda/compute_context.h"
#include "server/backend/cuda/cuda_backend.h"
#include "server/backend/cuda/elementwise_launch.h"
#include "server/core/status_macros.h"

namespace arrayhub {

absl::Status CudaBackend::Elementwise(const ElementwiseCall& call) {
  AH_RETURN_IF_ERROR(Activate());
  AH_ASSIGN_OR_RETURN(const ComputeContext context, CurrentComputeContext());
  return EnqueueElementwise(call, context);
}

}  // namespace arrayhub
