// The labels of the calls a work queue enqueued since it last waited, for the report of a
// device error ("3 earlier calls, then add (tenant 'a'), sum (tenant 'a')"). Every op notes
// one, so the latest few are kept in a ring of reused strings: noting allocates nothing once
// they are long enough. Not thread-safe: the queue holds its mutex around it.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace arrayhub {

class RecentCalls {
 public:
  static constexpr int64_t kRemembered = 8;

  void Note(std::string_view label) {
    labels_[count_ % kRemembered].assign(label);
    ++count_;
  }

  // The calls noted since the last Take, oldest first, the ones before the latest
  // kRemembered only counted ("" when none were noted); starts the count again.
  std::string Take() {
    const int64_t count = count_;
    count_ = 0;
    const int64_t unnamed = count > kRemembered ? count - kRemembered : 0;
    std::string text = unnamed > 0 ? std::to_string(unnamed) + " earlier calls, then " : "";
    for (int64_t call = unnamed; call < count; ++call) {
      if (call > unnamed) text += ", ";
      text += labels_[call % kRemembered];
    }
    return text;
  }

 private:
  std::array<std::string, kRemembered> labels_;
  int64_t count_ = 0;  // Since the last Take.
};

}  // namespace arrayhub
