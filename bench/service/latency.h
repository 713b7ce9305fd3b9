// Wall-clock latencies of calls and their percentiles, for the service benchmark (an RPC's
// round trip is host time; CUDA events would time only the device's share).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <vector>

namespace arrayhub::bench {

using BenchClock = std::chrono::steady_clock;

// Microseconds `work` took.
template <typename Work>
double TimeUs(Work&& work) {
  const auto start = BenchClock::now();
  work();
  return std::chrono::duration<double, std::micro>(BenchClock::now() - start).count();
}

class Latencies {
 public:
  void Add(double us) { us_.push_back(us); }
  void Merge(const Latencies& other) { us_.insert(us_.end(), other.us_.begin(), other.us_.end()); }
  size_t size() const { return us_.size(); }

  // The q-quantile (0.5: median), nearest rank; 0 when empty.
  double Quantile(double q) {
    if (us_.empty()) return 0;
    std::sort(us_.begin(), us_.end());
    const auto rank = static_cast<size_t>(q * static_cast<double>(us_.size() - 1) + 0.5);
    return us_[std::min(rank, us_.size() - 1)];
  }

 private:
  std::vector<double> us_;
};

}  // namespace arrayhub::bench
