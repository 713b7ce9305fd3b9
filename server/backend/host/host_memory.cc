#include "server/backend/host/host_memory.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <string>

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

}  // namespace

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
