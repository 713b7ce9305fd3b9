#include "server/backend/cuda/peer_access.h"

#include <vector>

#include "server/backend/cuda/cuda_check.h"

namespace arrayhub {

absl::Status GrantPeerAccess(cudaMemPool_t pool, int owner_device) {
  int count = 0;
  AH_CUDA_RETURN_IF_ERROR(cudaGetDeviceCount(&count));
  std::vector<cudaMemAccessDesc> grants;
  for (int peer = 0; peer < count; ++peer) {
    if (peer == owner_device) continue;
    int reachable = 0;
    AH_CUDA_RETURN_IF_ERROR(cudaDeviceCanAccessPeer(&reachable, peer, owner_device));
    if (reachable == 0) continue;
    cudaMemAccessDesc grant{};
    grant.location.type = cudaMemLocationTypeDevice;
    grant.location.id = peer;
    grant.flags = cudaMemAccessFlagsProtReadWrite;
    grants.push_back(grant);
  }
  if (grants.empty()) return absl::OkStatus();
  AH_CUDA_RETURN_IF_ERROR(cudaMemPoolSetAccess(pool, grants.data(), grants.size()));
  return absl::OkStatus();
}

}  // namespace arrayhub
