// How the demo reports a step: its wall time and what it did, one line each.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

namespace demo {

class Stopwatch {
 public:
  double Milliseconds() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_)
        .count();
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// "   12.34 ms  <what>", flushed at once: the second process writes to the same terminal.
inline void PrintStep(const Stopwatch& watch, const std::string& what) {
  std::printf("%9.2f ms  %s\n", watch.Milliseconds(), what.c_str());
  std::fflush(stdout);
}

inline void PrintNote(const std::string& text) {
  std::printf("%12s  %s\n", "", text.c_str());
  std::fflush(stdout);
}

}  // namespace demo
