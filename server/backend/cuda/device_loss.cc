#include "server/backend/cuda/device_loss.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "server/backend/cuda/cuda_queue.h"

namespace arrayhub {
namespace {

// Process-wide, as the CUDA context is: one per device.
struct Watchers {
  absl::Mutex mutex;
  std::vector<std::pair<int, DeviceHealth*>> watching ABSL_GUARDED_BY(mutex);
  std::map<int, std::string> lost ABSL_GUARDED_BY(mutex);  // The first report of each device.
};

Watchers& TheWatchers() {
  static auto* const watchers = new Watchers;  // Never destroyed: buffers outlive statics.
  return *watchers;
}

}  // namespace

void ReportDeviceLost(std::string_view what) {
  int device = -1;  // Unknown: every watcher hears of it.
  if (cudaGetDevice(&device) != cudaSuccess) {
    (void)cudaGetLastError();
    device = -1;
  }
  const std::string* served = ServedLabel();
  const std::string report = fmt::format(
      "{} is lost: {}; found while serving {}. Every later call on it fails: the daemon stops so "
      "that its supervisor restarts it",
      device >= 0 ? fmt::format("cuda:{}", device) : "the CUDA device", what,
      served != nullptr ? fmt::format("'{}'", *served) : "no request");
  Watchers& watchers = TheWatchers();
  absl::MutexLock lock(&watchers.mutex);
  if (!watchers.lost.emplace(device, report).second) return;
  spdlog::critical("{}", report);
  for (const auto& [watched, health] : watchers.watching) {
    if (watched == device || device < 0) health->ReportLost(report);
  }
}

DeviceLossWatch::DeviceLossWatch(int device, DeviceHealth& health)
    : device_(device), health_(health) {
  Watchers& watchers = TheWatchers();
  absl::MutexLock lock(&watchers.mutex);
  watchers.watching.emplace_back(device_, &health_);
  // A backend made on a device already lost (the daemon's never is) starts out lost.
  if (const auto it = watchers.lost.find(device_); it != watchers.lost.end()) {
    health_.ReportLost(it->second);
  }
}

DeviceLossWatch::~DeviceLossWatch() {
  Watchers& watchers = TheWatchers();
  absl::MutexLock lock(&watchers.mutex);
  std::erase(watchers.watching, std::pair<int, DeviceHealth*>(device_, &health_));
}

}  // namespace arrayhub
