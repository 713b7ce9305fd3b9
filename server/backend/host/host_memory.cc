#include "server/backend/host/host_memory.h"

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>

namespace arrayhub {
namespace {

// The number in a cgroup limit file; 0 when it is absent or says "max" (no limit).
int64_t CgroupLimit(const char* path) {
  std::ifstream file(path);
  std::string text;
  if (!(file >> text)) return 0;
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size() && value > 0 ? value : 0;
}

// The process's one trimmer (malloc_trim works on the whole process). Never destroyed: its
// thread may still wait when the process exits.
class Trimmer {
 public:
  static Trimmer& Get() {
    static Trimmer* trimmer = new Trimmer;
    return *trimmer;
  }

  void Freed(int64_t bytes) {
    {
      std::lock_guard lock(mutex_);
      freed_ += bytes;
      if (freed_ < kTrimAfterFreedBytes) return;
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
        wakeup_.wait(lock, [this] { return freed_ >= kTrimAfterFreedBytes; });
      }
      // Rate-limited: what is freed while this waits goes with the same trim.
      std::this_thread::sleep_until(last_trim + kTrimInterval);
      {
        std::lock_guard lock(mutex_);
        freed_ = 0;
      }
      malloc_trim(0);
      last_trim = std::chrono::steady_clock::now();
    }
  }

  std::mutex mutex_;
  std::condition_variable wakeup_;
  int64_t freed_ = 0;  // Since the last trim.
  bool started_ = false;
};

}  // namespace

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
