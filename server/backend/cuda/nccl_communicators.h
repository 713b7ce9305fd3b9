// NCCL communicators over the daemon's GPUs, made once per ordered set of devices and reused
// by every collective on it (collectives.h). A communicator spans several backends, so none
// of them owns it: the process keeps a few, the most recently used.
#pragma once

#include <nccl.h>

#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace arrayhub {

// OK for ncclSuccess, RESOURCE_EXHAUSTED for NCCL's out-of-memory (a system error), INTERNAL
// otherwise, naming `what` and NCCL's words for it.
absl::Status NcclStatus(ncclResult_t result, std::string_view what);

// One rank per device, rank i on ordinals[i]. Its calls go in one ncclGroupStart/End issued
// under mutex(): NCCL wants every rank of a communicator to see its collectives in one order.
class NcclCommunicator {
 public:
  ~NcclCommunicator();
  NcclCommunicator(const NcclCommunicator&) = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;

  const std::vector<int>& ordinals() const { return ordinals_; }
  ncclComm_t rank(size_t index) const { return comms_[index]; }
  absl::Mutex& mutex() { return mutex_; }

 private:
  friend absl::StatusOr<std::shared_ptr<NcclCommunicator>> NcclCommunicatorFor(
      std::span<const int> ordinals);
  NcclCommunicator(std::vector<int> ordinals, std::vector<ncclComm_t> comms)
      : ordinals_(std::move(ordinals)), comms_(std::move(comms)) {}

  const std::vector<int> ordinals_;
  const std::vector<ncclComm_t> comms_;
  absl::Mutex mutex_;
};

// The communicator of the devices `ordinals` in that order: the one made before, or a new one
// (ncclCommInitAll, which takes a while: the first collective on a set of devices pays it).
// At most kKeptCommunicators are kept; the least recently used goes when another is made,
// once the calls holding it are done with it.
inline constexpr size_t kKeptCommunicators = 16;
absl::StatusOr<std::shared_ptr<NcclCommunicator>> NcclCommunicatorFor(
    std::span<const int> ordinals);

}  // namespace arrayhub
