#include "server/transport/lane_spin.h"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <thread>

namespace arrayhub {
namespace {

// Whether a read of `connection` would not block: bytes to read, its end, or an error.
bool Readable(int connection) {
  char byte = 0;
  const ssize_t got = recv(connection, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  return got >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

}  // namespace

int LaneSpinSlots::DefaultSlots() {
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency() / 4));
}

bool LaneSpinSlots::TryTake() {
  int free = free_.load(std::memory_order_relaxed);
  while (free > 0) {
    if (free_.compare_exchange_weak(free, free - 1, std::memory_order_acquire)) return true;
  }
  return false;
}

void LaneSpinSlots::Give() { free_.fetch_add(1, std::memory_order_release); }

void LaneSpin::AwaitFrame(int connection) {
  if (!spinning_ || window_.count() == 0 || !slots_.TryTake()) return;
  const Clock::time_point until = Clock::now() + window_;
  while (!Readable(connection) && Clock::now() < until) {
  }
  slots_.Give();
}

void LaneSpin::NoteArrived() {
  spinning_ = window_.count() > 0 && Clock::now() - answered_ <= window_;
}

}  // namespace arrayhub
