#include "server/backend/host/host_memory.h"

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>

// tcmalloc's C entry point, present where the process links it (arrayhubd): a weak reference,
// so that the binaries that keep glibc's malloc (the tests, the sanitizer builds) still link.
extern "C" void MallocExtension_ReleaseFreeMemory() __attribute__((weak));

namespace arrayhub {
namespace {

// Hands the allocator's free memory back to the system.
void ReleaseFreeMemory() {
  if (MallocExtension_ReleaseFreeMemory != nullptr) {
    MallocExtension_ReleaseFreeMemory();
  } else {
    malloc_trim(0);
  }
}

// The number in a cgroup limit file; 0 when it is absent or says "max" (no limit).
int64_t CgroupLimit(const char* path) {
  std::ifstream file(path);
  std::string text;
  if (!(file >> text)) return 0;
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size() && value > 0 ? value : 0;
}

// The process's one trimmer (the release works on the whole process). Never destroyed: its
// thread may still wait when the process exits.
class Trimmer {
 public:
  static Trimmer& Get() {
    static Trimmer* trimmer = new Trimmer;
    return *trimmer;
  }

  void Allocated(int64_t bytes) {
    const int64_t now = in_use_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
    int64_t high = high_water_.load(std::memory_order_relaxed);
    while (now > high && !high_water_.compare_exchange_weak(high, now, std::memory_order_relaxed)) {
    }
  }

  void Freed(int64_t bytes) {
    const int64_t now = in_use_.fetch_sub(bytes, std::memory_order_relaxed) - bytes;
    if (high_water_.load(std::memory_order_relaxed) - now < kTrimAfterShrinkBytes) return;
    {
      std::lock_guard lock(mutex_);
      due_ = true;
      if (!started_) {
        started_ = true;
        std::thread([this] { Run(); }).detach();
      }
    }
    wakeup_.notify_one();
  }

 private:
  void Run() {
    auto last_trim = std::chrono::steady_clock::now() - kTrimInterval;
    while (true) {
      {
        std::unique_lock lock(mutex_);
        wakeup_.wait(lock, [this] { return due_; });
      }
      // Rate-limited: what is freed while this waits goes with the same release.
      std::this_thread::sleep_until(last_trim + kTrimInterval);
      {
        std::lock_guard lock(mutex_);
        due_ = false;
      }
      // The release gives back what was freed up to here: the next one waits for the arrays
      // to shrink as much again from where they are now.
      high_water_.store(in_use_.load(std::memory_order_relaxed), std::memory_order_relaxed);
      ReleaseFreeMemory();
      last_trim = std::chrono::steady_clock::now();
    }
  }

  // The arrays' bytes, and their most since the last release. A steady load (arrays made and
  // freed as fast) keeps the two together and never releases: memory the allocator would
  // only have to fault in again.
  std::atomic<int64_t> in_use_{0};
  std::atomic<int64_t> high_water_{0};
  std::mutex mutex_;
  std::condition_variable wakeup_;
  bool due_ = false;
  bool started_ = false;
};

}  // namespace

void NoteHostMemoryAllocated(int64_t bytes) { Trimmer::Get().Allocated(bytes); }
void NoteHostMemoryFreed(int64_t bytes) { Trimmer::Get().Freed(bytes); }

int64_t HostMemoryCapacity() {
  int64_t capacity = static_cast<int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE);
  // cgroup v1 says "no limit" with a number near INT64_MAX, which the min leaves alone.
  for (const char* path :
       {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    if (const int64_t limit = CgroupLimit(path); limit > 0) capacity = std::min(capacity, limit);
  }
  return capacity;
}

}  // namespace arrayhub
