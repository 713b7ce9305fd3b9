#include "server/core/raw_kernel_rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string_view>

namespace arrayhub {

namespace {

// Options taken as they are.
constexpr std::string_view kFlags[] = {"--use_fast_math",
                                       "-use_fast_math",
                                       "-lineinfo",
                                       "--generate-line-info",
                                       "--restrict",
                                       "-restrict",
                                       "--extra-device-vectorization",
                                       "-extra-device-vectorization",
                                       "-default-device",
                                       "--device-as-default-execution-space",
                                       "--disable-warnings",
                                       "-w",
                                       "--device-int128",
                                       "-device-int128"};
// Options with a value from a fixed set: prefix, values.
struct Choice {
  std::string_view prefix;
  std::array<std::string_view, 5> values;
};
constexpr Choice kChoices[] = {
    {"-std=", {"c++03", "c++11", "c++14", "c++17", "c++20"}},
    {"--std=", {"c++03", "c++11", "c++14", "c++17", "c++20"}},
    {"--ftz=", {"true", "false"}},
    {"-ftz=", {"true", "false"}},
    {"--prec-sqrt=", {"true", "false"}},
    {"-prec-sqrt=", {"true", "false"}},
    {"--prec-div=", {"true", "false"}},
    {"-prec-div=", {"true", "false"}},
    {"--fmad=", {"true", "false"}},
    {"-fmad=", {"true", "false"}},
};
// Options whose value is a macro definition or name.
constexpr std::string_view kMacros[] = {"-D", "--define-macro=", "-U", "--undefine-macro="};
// Options whose value is a count.
constexpr std::string_view kCounts[] = {"--maxrregcount=", "-maxrregcount="};

bool IsIdentifierStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

// NAME or NAME=VALUE, NAME an identifier (a function-like macro's parameters included).
bool IsMacro(std::string_view text) {
  if (text.empty() || !IsIdentifierStart(text[0])) return false;
  return text.find('\0') == std::string_view::npos;
}

bool IsCount(std::string_view text) {
  return !text.empty() && text.size() <= 4 &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

absl::Status CheckRawKernelOption(const std::string& option) {
  const std::string_view text = option;
  if (std::find(std::begin(kFlags), std::end(kFlags), text) != std::end(kFlags)) {
    return absl::OkStatus();
  }
  for (const Choice& choice : kChoices) {
    if (text.starts_with(choice.prefix)) {
      const std::string_view value = text.substr(choice.prefix.size());
      if (!value.empty() &&
          std::find(choice.values.begin(), choice.values.end(), value) != choice.values.end()) {
        return absl::OkStatus();
      }
    }
  }
  for (const std::string_view prefix : kMacros) {
    if (text.starts_with(prefix) && IsMacro(text.substr(prefix.size()))) return absl::OkStatus();
  }
  for (const std::string_view prefix : kCounts) {
    if (text.starts_with(prefix) && IsCount(text.substr(prefix.size()))) return absl::OkStatus();
  }
  return absl::InvalidArgumentError(fmt::format(
      "NVRTC option '{}' is not allowed: raw kernels take -D/-U macros, -std=, --use_fast_math, "
      "--ftz=, --prec-div=, --prec-sqrt=, --fmad=, --maxrregcount=, -lineinfo, --restrict, "
      "--extra-device-vectorization, -default-device, --disable-warnings and --device-int128",
      option));
}

absl::Status RawLaunchDims(const std::vector<int64_t>& dims, const char* field, bool block,
                           std::array<uint32_t, 3>& out) {
  // CUDA's bounds on every device so far: grid 2^31-1 x 65535 x 65535, block 1024 x 1024 x 64.
  static constexpr std::array<int64_t, 3> kGrid = {2147483647, 65535, 65535};
  static constexpr std::array<int64_t, 3> kBlock = {1024, 1024, 64};
  if (dims.empty() || dims.size() > 3) {
    return absl::InvalidArgumentError(
        fmt::format("{} must have 1 to 3 dimensions, got {}", field, dims.size()));
  }
  const std::array<int64_t, 3>& bound = block ? kBlock : kGrid;
  out = {1, 1, 1};
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] < 1 || dims[d] > bound[d]) {
      return absl::InvalidArgumentError(
          fmt::format("{}[{}] is {}: it must be from 1 to {}", field, d, dims[d], bound[d]));
    }
    out[d] = static_cast<uint32_t>(dims[d]);
  }
  return absl::OkStatus();
}

}  // namespace arrayhub
