// SIGTERM and SIGINT: the first asks for a graceful drain, a second exits at once (status
// 128 + signal). The daemon can also ask itself to stop, when its device is lost.
//
// Handlers, not sigwait with a blocked mask: a mask set in main is not inherited by threads
// that libraries start before main runs (OpenBLAS starts its pool while it is loaded), and a
// signal the kernel hands to one of those would take its default action and kill the daemon
// in the middle of a drain.
#pragma once

#include "absl/status/status.h"

namespace arrayhub {

// Installs the handlers; call once, before serving.
absl::Status InstallShutdownSignals();

// What WaitForShutdownSignal returns after RequestStopForDeviceLoss (no signal is 0).
inline constexpr int kDeviceLost = 0;

// Blocks until the first SIGTERM or SIGINT, and returns its number, or until
// RequestStopForDeviceLoss, and returns kDeviceLost.
int WaitForShutdownSignal();

// Wakes WaitForShutdownSignal with kDeviceLost. From any thread (not from a signal handler);
// after InstallShutdownSignals.
void RequestStopForDeviceLoss();

}  // namespace arrayhub
