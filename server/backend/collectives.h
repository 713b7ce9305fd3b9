// Collectives across the daemon's devices (docs/devices.md): one call over one buffer per
// device, each device's part in a queue of that device. Core has checked dtypes, counts and
// layouts; the backend moves and combines the bytes (NCCL on GPUs, the host on the CPU).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "server/backend/buffer.h"
#include "server/backend/work_queue.h"
#include "server/common/dtype.h"

namespace arrayhub {

enum class CollectiveKind {
  kAllReduce,
  kReduce,
  kBroadcast,
  kAllGather,
  kReduceScatter,
  kAllToAll
};

// NCCL's reductions; kAvg divides the sum by the number of ranks.
enum class CollectiveReduction { kSum, kProd, kMin, kMax, kAvg };

// One device's part: the queue its work goes to (the session's queue on that device, made by
// that device's backend) and its C-contiguous input and output. `input` is null where the rank
// sends nothing (broadcast, but the root), `output` where it receives nothing (reduce, but the
// root).
struct CollectiveRank {
  std::shared_ptr<WorkQueue> queue;
  std::shared_ptr<Buffer> input;
  int64_t input_offset = 0;
  std::shared_ptr<Buffer> output;
  int64_t output_offset = 0;
};

// `count` is in elements of `dtype` and means what NCCL's count does:
//   kAllReduce, kReduce, kBroadcast: each buffer's;
//   kAllGather: each input's (each output holds count * ranks);
//   kReduceScatter: each output's (each input holds count * ranks);
//   kAllToAll: what one rank sends to each other (each input and output holds count * ranks).
// dtype is one the reduction takes (core checked it: collectives.h's callers follow
// CollectiveRequest's rules); the kinds that reduce nothing get kUInt8 and byte counts.
struct CollectiveCall {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  CollectiveReduction reduction = CollectiveReduction::kSum;
  DType dtype = DType::kFloat32;
  int64_t count = 0;
  int root = 0;  // kReduce, kBroadcast: the rank that receives, or sends.
  std::vector<CollectiveRank> ranks;
  std::string label;  // Names the call in a later device error's report.
};

// Collectives over several devices of one backend kind.
class Collectives {
 public:
  virtual ~Collectives() = default;

  // One collective, called on any one of the devices: each rank's part goes to its queue and is
  // ordered there as a call that Use()d its input and output would be, and the parts run
  // together.
  virtual absl::Status Collective(const CollectiveCall& call) = 0;
};

}  // namespace arrayhub
