#include "server/common/stop_signal.h"

namespace arrayhub {
namespace {

thread_local const StopSignal* thread_signal = nullptr;

}  // namespace

ScopedStopSignal::ScopedStopSignal(const StopSignal* signal) : previous_(thread_signal) {
  thread_signal = signal;
}

ScopedStopSignal::~ScopedStopSignal() { thread_signal = previous_; }

absl::Status CheckThreadStop() { return CheckStop(thread_signal); }

}  // namespace arrayhub
