// Why a call's work should stop before it is done: its client cancelled it, went away or let
// its deadline pass, or the server's drain ran out of time. Core and the backends know no
// gRPC: transport implements the signal for each call (server/transport/call_stop.h), the
// engine and the Batch loop check it between steps, and long backend loops poll the signal of
// the call their thread runs (ScopedStopSignal, installed by Engine::Bind).
#pragma once

#include "absl/status/status.h"

namespace arrayhub {

class StopSignal {
 public:
  virtual ~StopSignal() = default;
  // OK while the work should go on; otherwise why not: CANCELLED or DEADLINE_EXCEEDED for the
  // caller, UNAVAILABLE for the server's drain. Cheap enough to ask every millisecond of work.
  virtual absl::Status Check() const = 0;
};

// `signal`'s verdict; OK for none.
inline absl::Status CheckStop(const StopSignal* signal) {
  return signal == nullptr ? absl::OkStatus() : signal->Check();
}

// While alive, `signal` (null: none) is the calling thread's: the one CheckThreadStop asks.
// Scopes nest; the previous signal is the thread's again when this one ends.
class ScopedStopSignal {
 public:
  explicit ScopedStopSignal(const StopSignal* signal);
  ~ScopedStopSignal();
  ScopedStopSignal(const ScopedStopSignal&) = delete;
  ScopedStopSignal& operator=(const ScopedStopSignal&) = delete;

 private:
  const StopSignal* previous_;
};

// The verdict of the calling thread's signal; OK when it has none.
absl::Status CheckThreadStop();

}  // namespace arrayhub
