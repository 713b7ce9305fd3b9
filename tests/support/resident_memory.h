// The test process's resident memory (VmRSS of /proc/self/status), for tests that bound what
// the server keeps in memory or check that it gives memory back.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>

namespace arrayhub::testing {

inline int64_t ResidentBytes() {
  std::ifstream status("/proc/self/status");
  std::string key;
  int64_t kib = 0;
  while (status >> key) {
    if (key == "VmRSS:") {
      status >> kib;
      return kib << 10;
    }
    status.ignore(1 << 20, '\n');
  }
  return 0;
}

}  // namespace arrayhub::testing
