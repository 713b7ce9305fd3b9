// How a batch lane's thread waits for its client's next frame: for a client that answers
// quickly (a script issuing op after op), it polls the connection for a short window before
// the blocking read, so that the next batch finds the thread running rather than asleep.
//
// Measured (docs/gpu-runs.md and bench/RESULTS.md, 2026-11-27): on the lent H100 machine a
// thread woken from the blocking read took two to three times as long over the same batch
// ([event, fft of 1024 points, event]: 29-41 against 14-17 us from the first event to the end
// of the cuFFT call, medians of 2000), its caches and core cold after the sleep; CuPy's caller
// never sleeps. A lane round trip ([add, get_item] with its read) took 38-48 us spinning
// against 48-56 us there, and 32 against 91-107 us on a 2-core development machine.
//
// Spinning costs a core while it lasts, so it is bounded three ways: the window
// (--lane-spin-microseconds, 0 switches it off); only a lane whose last frame came within the
// window of its previous answer spins (one that waited longer blocks at once, and goes back to
// spinning only once its client is quick again); and at most LaneSpinSlots lanes spin at once.
#pragma once

#include <atomic>
#include <chrono>

namespace arrayhub {

// How many lanes may spin at the same time, all tenants together.
class LaneSpinSlots {
 public:
  explicit LaneSpinSlots(int slots) : free_(slots) {}
  // A quarter of the host's cores, at least one.
  static int DefaultSlots();

  // False when every slot is taken.
  bool TryTake();
  void Give();

 private:
  std::atomic<int> free_;
};

// One lane's waiting: AwaitFrame before each read of a frame, NoteArrived when one arrived,
// NoteAnswered when its answer has been written.
class LaneSpin {
 public:
  using Clock = std::chrono::steady_clock;

  // `slots` outlives this object.
  LaneSpin(std::chrono::microseconds window, LaneSpinSlots& slots)
      : window_(window), slots_(slots) {}

  // Returns once the connection has bytes to read, or has ended or failed, or the window has
  // passed; at once when the lane is not spinning (the caller's blocking read then waits).
  void AwaitFrame(int connection);
  void NoteArrived();
  void NoteAnswered() { answered_ = Clock::now(); }

  bool spinning() const { return spinning_; }

 private:
  const std::chrono::microseconds window_;
  LaneSpinSlots& slots_;
  bool spinning_ = false;  // The last frame came within the window: the client is quick.
  Clock::time_point answered_{};
};

}  // namespace arrayhub
