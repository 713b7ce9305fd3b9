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
  // Most bytes of the result a Batch answers inline (BatchRequest.read); a larger one is left
  // out (data_omitted). At most max_message_bytes (--max-inline-read-bytes).
  int64_t max_inline_read_bytes = int64_t{1} << 20;
  // Most bytes of host data a Create carries inline (CreateRequest.data, a Batch's small
  // uploads); 0 refuses them. At most max_message_bytes (--max-inline-create-bytes).
  int64_t max_inline_create_bytes = int64_t{1} << 20;
  // Most entries of a request's open-ended lists (arrays to concatenate, split points, handles
  // to free, reader tenants); lists that become shapes or axes are held to max_rank.
  int64_t max_list_entries = 65536;
  // A Batch's runs of elementwise ops computed as fused chains (Engine::ElementwiseChain);
  // --fuse-batches=false runs every op on its own (for comparison).
  bool fuse_batches = true;
  // Client shared-memory regions (RegisterSharedMemory): --shared-memory=false switches the
  // feature off; each session may register at most max_shared_memory_regions of them, the
  // sessions of a tenant together tenant_max_shared_memory_regions, each at most
  // max_shared_memory_bytes (the CUDA backend pins that much host memory per region). Each
  // region, and each descriptor a client has handed over for one, holds a descriptor (or a
  // mapping): all tenants together at most max_shared_memory_descriptors, which arrayhubd
  // sets to half its RLIMIT_NOFILE (server/descriptor_limit.h).
  bool shared_memory = true;
  int64_t max_shared_memory_regions = 64;
  int64_t tenant_max_shared_memory_regions = 256;
  int64_t max_shared_memory_bytes = int64_t{64} << 30;
  int64_t max_shared_memory_descriptors = 512;
  // CUDA IPC export (ExportIpc): --cuda-ipc=false switches it off; each session may hold at
  // most max_ipc_leases leases at once.
  // Batch lanes (OpenBatchLane): --batch-lanes=false switches them off; at most
  // max_batch_lanes are open at once, all tenants together (each holds a thread), and each
  // counts against its tenant's transfers. A lane whose client is quick polls for its next
  // frame for lane_spin before it sleeps (server/transport/lane_spin.h; zero: never).
  bool batch_lanes = true;
  int64_t max_batch_lanes = 256;
  std::chrono::microseconds lane_spin{250};
  bool cuda_ipc = true;
  int64_t max_ipc_leases = 1024;
  // Events (RecordEvent): the most distinct event ids one session may hold at once
  // (--max-session-events); each is a CUDA event on the GPU.
  int64_t max_session_events = 4096;
  // An upload or download that moves no chunk for this long is cancelled, and what it holds
  // (an upload's whole array) freed (--transfer-idle-seconds).
  std::chrono::milliseconds transfer_idle_timeout{60'000};
  // User kernels (RunKernel): the most operations one call may do, elements times the checked
  // kernel's bound per element, refused before it runs (--max-kernel-work); and the bounds of
  // the process-wide cache of checked and compiled kernels (least recently used out first).
  int64_t max_kernel_work = int64_t{1} << 40;
  int64_t kernel_cache_entries = 1024;
  int64_t kernel_cache_bytes = int64_t{64} << 20;
  // Raw CUDA kernels (RunRawKernel): only with --allow-raw-kernels, which arrayhubd refuses
  // with more than one tenant (a raw kernel can read and write all of the GPU's memory); the
  // longest source one call may send (the gRPC message limit bounds it too).
  bool allow_raw_kernels = false;
  int64_t max_raw_kernel_source_bytes = int64_t{1} << 20;
};

}  // namespace arrayhub
