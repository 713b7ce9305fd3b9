// Whether a backend's device still works, and who hears when it stops. A CUDA error after which
// the context accepts no more work (cuda_check.h) leaves every later call of every tenant
// failing until the process restarts: the backend reports it here once, and the server listens
// to turn health NOT_SERVING and stop the daemon for its supervisor to restart it
// (docs/operations.md). A backend whose device cannot be lost (the CPU's) never reports.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace arrayhub {

class DeviceHealth {
 public:
  using Listener = std::function<void(std::string_view what)>;

  // Records that the device is lost, `what` saying how and where it was found, and calls the
  // listener with it. Only the first report counts: it returns true, later ones false.
  bool ReportLost(std::string_view what);
  // The listener hears of the loss once, on the reporting thread (at once, here, if the device
  // is lost already); null removes it. Once this returns, the previous listener neither runs
  // nor will be called. A listener must not call back into this object.
  void SetListener(Listener listener);
  bool lost() const;

 private:
  mutable absl::Mutex mutex_;  // Held while the listener runs.
  bool lost_ ABSL_GUARDED_BY(mutex_) = false;
  std::string what_ ABSL_GUARDED_BY(mutex_);
  Listener listener_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace arrayhub
