// SIGTERM and SIGINT: the first asks for a graceful drain, a second exits at once (status
// 128 + signal).
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

// Blocks until the first SIGTERM or SIGINT; returns its number.
int WaitForShutdownSignal();

}  // namespace arrayhub
