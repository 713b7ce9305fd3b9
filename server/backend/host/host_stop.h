// Long host loops stop between chunks once the call their thread runs should stop
// (server/common/stop_signal.h): a client that went away, a deadline that passed, a drain that
// ran out. PollStop counts the elements a loop has done and asks the thread's signal once
// every kStopPollElements of them, about a millisecond of work, so a chunk pays one
// thread-local subtraction. A stop unwinds the loop nest as host::Stopped, which each
// HostBackend entry point that polls turns back into the signal's status.
#pragma once

#include <cstdint>
#include <new>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "server/common/stop_signal.h"

namespace arrayhub::host {

inline constexpr int64_t kStopPollElements = int64_t{1} << 20;

struct Stopped {
  absl::Status status;
};

inline thread_local int64_t elements_until_poll = kStopPollElements;

// After `elements` more elements of work: throws Stopped when the call should stop.
inline void PollStop(int64_t elements) {
  elements_until_poll -= elements;
  if (elements_until_poll > 0) return;
  elements_until_poll = kStopPollElements;
  if (absl::Status status = CheckThreadStop(); !status.ok()) throw Stopped{std::move(status)};
}

// body()'s status, or the stop's when it unwound as Stopped, or RESOURCE_EXHAUSTED "out of host
// memory for <what>" when an allocation failed: the guard of the entry points whose loops poll
// and allocate their scratch as they go.
template <typename F>
absl::Status RunStoppable(std::string_view what, F&& body) {
  try {
    return std::forward<F>(body)();
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(std::string("out of host memory for ").append(what));
  } catch (const Stopped& stopped) {
    return stopped.status;
  }
}

}  // namespace arrayhub::host
