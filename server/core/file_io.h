// Small POSIX file helpers shared by the data directory's users (durable_store.cc, spiller.cc).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace arrayhub {

// `what` `path`: errno's text. RESOURCE_EXHAUSTED for a full disk or quota (ENOSPC, EDQUOT),
// INTERNAL otherwise.
absl::Status ErrnoError(std::string_view what, const std::string& path);

// Writes all of `bytes` to `fd` (retrying short writes and EINTR); `path` names it in errors.
absl::Status WriteAll(int fd, std::string_view bytes, const std::string& path);

}  // namespace arrayhub
