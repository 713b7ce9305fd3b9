#include "server/backend/cuda/nccl_communicators.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <list>

namespace arrayhub {

absl::Status NcclStatus(ncclResult_t result, std::string_view what) {
  if (result == ncclSuccess) return absl::OkStatus();
  const std::string message =
      fmt::format("{}: NCCL error {}: {} ({})", what, static_cast<int>(result),
                  ncclGetErrorString(result), ncclGetLastError(nullptr));
  if (result == ncclSystemError) return absl::ResourceExhaustedError(message);
  return absl::InternalError(message);
}

NcclCommunicator::~NcclCommunicator() {
  // ncclCommDestroy waits for the communicator's queued collectives first.
  for (ncclComm_t comm : comms_) {
    if (const absl::Status status = NcclStatus(ncclCommDestroy(comm), "ncclCommDestroy");
        !status.ok()) {
      spdlog::error("{}", status.ToString());
    }
  }
}

absl::StatusOr<std::shared_ptr<NcclCommunicator>> NcclCommunicatorFor(
    std::span<const int> ordinals) {
  // Never destroyed: a communicator in use at exit would be destroyed under its calls.
  static absl::Mutex mutex(absl::kConstInit);
  static auto* const kept = new std::list<std::shared_ptr<NcclCommunicator>>;  // Under mutex.
  const std::vector<int> wanted(ordinals.begin(), ordinals.end());
  // Destroyed after the lock is let go (ncclCommDestroy waits for the device).
  std::shared_ptr<NcclCommunicator> evicted;
  absl::MutexLock lock(&mutex);
  for (auto it = kept->begin(); it != kept->end(); ++it) {
    if ((*it)->ordinals() == wanted) {
      kept->splice(kept->begin(), *kept, it);  // Most recently used first.
      return kept->front();
    }
  }
  std::vector<ncclComm_t> comms(wanted.size());
  if (const absl::Status status =
          NcclStatus(ncclCommInitAll(comms.data(), static_cast<int>(comms.size()), wanted.data()),
                     fmt::format("ncclCommInitAll over CUDA devices {}", fmt::join(wanted, ",")));
      !status.ok()) {
    return status;
  }
  spdlog::info("NCCL communicator over CUDA devices {} made", fmt::join(wanted, ","));
  kept->push_front(std::shared_ptr<NcclCommunicator>(new NcclCommunicator(wanted, comms)));
  if (kept->size() > kKeptCommunicators) {
    evicted = std::move(kept->back());
    kept->pop_back();
  }
  return kept->front();
}

}  // namespace arrayhub
