// Server-wide limits applied to every request (per-tenant quotas are separate).
#pragma once

#include <chrono>
#include <cstdint>

namespace arrayhub {

struct Limits {
  int64_t max_rank = 64;                           // NumPy 2's maximum number of dimensions.
  int64_t max_array_bytes = int64_t{64} << 30;     // Largest single array.
  int64_t max_array_elements = int64_t{64} << 30;  // Most elements of one array.
  int64_t max_chunk_bytes = int64_t{2} << 20;      // Largest upload chunk / download chunk.
  int64_t default_chunk_bytes = int64_t{1} << 20;
  int64_t max_message_bytes = int64_t{4} << 20;  // gRPC receive limit.
  int64_t max_batch_ops = 1024;                  // Most ops in one Batch request.
  // A Batch's runs of elementwise ops computed as fused chains (Engine::ElementwiseChain);
  // --fuse-batches=false runs every op on its own (for comparison).
  bool fuse_batches = true;
  // Client shared-memory regions (RegisterSharedMemory): --shared-memory=false switches the
  // feature off; each session may register at most max_shared_memory_regions of them, each at
  // most max_shared_memory_bytes (the CUDA backend pins that much host memory per region).
  bool shared_memory = true;
  int64_t max_shared_memory_regions = 64;
  int64_t max_shared_memory_bytes = int64_t{64} << 30;
  // CUDA IPC export (ExportIpc): --cuda-ipc=false switches it off; each session may hold at
  // most max_ipc_leases leases at once.
  bool cuda_ipc = true;
  int64_t max_ipc_leases = 1024;
  // An upload or download that moves no chunk for this long is cancelled, and what it holds
  // (an upload's whole array) freed (--transfer-idle-seconds).
  std::chrono::milliseconds transfer_idle_timeout{60'000};
};

}  // namespace arrayhub
