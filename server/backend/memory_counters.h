// Live memory of one backend: bytes and buffers held now. Buffers keep the counters by
// shared_ptr, so one that outlives its backend during shutdown still reports its release.
#pragma once

#include <atomic>
#include <cstdint>

namespace arrayhub {

struct MemoryStats {
  int64_t bytes_in_use = 0;
  int64_t buffers_in_use = 0;
};

class MemoryCounters {
 public:
  void Add(int64_t bytes) {
    bytes_ += bytes;
    buffers_ += 1;
  }
  // Adds `bytes` unless that would take the bytes in use past `limit`; false then.
  bool TryAdd(int64_t bytes, int64_t limit) {
    int64_t in_use = bytes_.load();
    do {
      if (bytes > limit - in_use) return false;
    } while (!bytes_.compare_exchange_weak(in_use, in_use + bytes));
    buffers_ += 1;
    return true;
  }
  void Remove(int64_t bytes) {
    bytes_ -= bytes;
    buffers_ -= 1;
  }
  MemoryStats Snapshot() const {
    return {.bytes_in_use = bytes_.load(), .buffers_in_use = buffers_.load()};
  }

 private:
  std::atomic<int64_t> bytes_{0};
  std::atomic<int64_t> buffers_{0};
};

}  // namespace arrayhub
