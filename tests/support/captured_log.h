// Captures what spdlog's default logger writes, for tests of the server's log lines.
#pragma once

#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <string>

namespace arrayhub::testing {

// Captures what the default logger writes while it lives, at the given level.
class CapturedLog {
 public:
  explicit CapturedLog(spdlog::level::level_enum level)
      : sink_(std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(128)),
        previous_(spdlog::default_logger()),
        previous_level_(previous_->level()) {
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("captured", sink_));
    spdlog::set_level(level);
  }
  ~CapturedLog() {
    spdlog::set_default_logger(previous_);
    spdlog::set_level(previous_level_);
  }
  std::string Text() const {
    std::string text;
    for (const std::string& line : sink_->last_formatted()) text += line;
    return text;
  }

 private:
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> sink_;
  std::shared_ptr<spdlog::logger> previous_;
  spdlog::level::level_enum previous_level_;
};

}  // namespace arrayhub::testing
