#include "server/core/handle.h"

#include <fmt/format.h>

#include "server/core/entropy.h"

namespace arrayhub {

Handle Handle::Random() {
  uint64_t words[2] = {0, 0};
  FillWithEntropy(std::as_writable_bytes(std::span(words)));
  // The all-zero value means "no handle" (IsNull); the odds are 2^-128, but it costs nothing.
  return Handle(words[0], words[1] == 0 && words[0] == 0 ? 1 : words[1]);
}

absl::StatusOr<Handle> Handle::Parse(std::string_view text, std::string_view field) {
  if (text.empty()) {
    return absl::InvalidArgumentError(fmt::format("{} is empty", field));
  }
  if (text.size() != 32) {
    return absl::InvalidArgumentError(fmt::format(
        "malformed {}: expected 32 hex characters, got {} characters", field, text.size()));
  }
  uint64_t words[2] = {0, 0};
  for (size_t i = 0; i < 32; ++i) {
    const char c = text[i];
    uint64_t digit;
    if (c >= '0' && c <= '9') {
      digit = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      digit = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      digit = c - 'A' + 10;
    } else {
      return absl::InvalidArgumentError(
          fmt::format("malformed {}: character {} is not a hex digit", field, i));
    }
    words[i / 16] = (words[i / 16] << 4) | digit;
  }
  return Handle(words[0], words[1]);
}

std::string Handle::ToString() const {
  // By hand rather than with fmt: a Batch writes one for every op it runs.
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text(32, '0');
  for (int i = 0; i < 16; ++i) {
    text[15 - i] = kDigits[(hi_ >> (4 * i)) & 0xf];
    text[31 - i] = kDigits[(lo_ >> (4 * i)) & 0xf];
  }
  return text;
}

}  // namespace arrayhub
