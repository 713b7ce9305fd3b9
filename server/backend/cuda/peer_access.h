// Device-to-device reach between the GPUs of one daemon (docs/devices.md).
#pragma once

#include <cuda_runtime_api.h>

#include "absl/status/status.h"

namespace arrayhub {

// Lets every other visible GPU that can reach `owner_device` peer to peer (NVLink or PCIe)
// read and write the memory of `pool`, one of owner_device's stream-ordered pools: such a pool
// is private to its device until cudaMemPoolSetAccess grants another, whatever
// cudaDeviceEnablePeerAccess says, and a copy between devices runs peer to peer only where it
// was granted.
absl::Status GrantPeerAccess(cudaMemPool_t pool, int owner_device);

}  // namespace arrayhub
