// One seed for a test process's random data, so that any failure can be replayed: it is
// ARRAYHUB_TEST_SEED when that is set, else drawn afresh, and printed when first used.
// Suites derive their generators from BaseSeed() (plus a constant per test or case) and name it
// in failures with SeedNote() or a SeedTrace, so one run's failure repeats with
// ARRAYHUB_TEST_SEED=<seed> and --gtest_filter.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

namespace arrayhub::testing {

inline uint64_t BaseSeed() {
  static const uint64_t seed = [] {
    uint64_t drawn = 0;
    if (const char* text = std::getenv("ARRAYHUB_TEST_SEED")) {
      drawn = std::strtoull(text, nullptr, 10);
    } else {
      std::random_device device;
      drawn = (static_cast<uint64_t>(device()) << 32) | device();
    }
    // On stdout, where ctest's and CI's logs keep it even when the failing test's own message
    // does not reach them.
    std::printf("[     SEED ] %llu (ARRAYHUB_TEST_SEED=%llu replays this run)\n",
                static_cast<unsigned long long>(drawn), static_cast<unsigned long long>(drawn));
    std::fflush(stdout);
    return drawn;
  }();
  return seed;
}

// " (seed N; rerun with ARRAYHUB_TEST_SEED=N)", for failure messages.
inline std::string SeedNote() {
  const std::string seed = std::to_string(BaseSeed());
  return " (seed " + seed + "; rerun with ARRAYHUB_TEST_SEED=" + seed + ")";
}

// Held by a fixture: every failure of the test (on the thread that made it) names the seed, and
// the XML report records it.
class SeedTrace {
 public:
  SeedTrace() : trace_(__FILE__, __LINE__, "random data from" + SeedNote()) {
    ::testing::Test::RecordProperty("seed", std::to_string(BaseSeed()));
  }

 private:
  ::testing::ScopedTrace trace_;
};

}  // namespace arrayhub::testing
