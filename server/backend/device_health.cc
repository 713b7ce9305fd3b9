#include "server/backend/device_health.h"

#include <utility>

namespace arrayhub {

bool DeviceHealth::ReportLost(std::string_view what) {
  absl::MutexLock lock(&mutex_);
  if (lost_) return false;
  lost_ = true;
  what_ = what;
  if (listener_) listener_(what_);
  return true;
}

void DeviceHealth::SetListener(Listener listener) {
  absl::MutexLock lock(&mutex_);
  listener_ = std::move(listener);
  if (lost_ && listener_) listener_(what_);
}

bool DeviceHealth::lost() const {
  absl::MutexLock lock(&mutex_);
  return lost_;
}

}  // namespace arrayhub
