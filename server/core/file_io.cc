#include "server/core/file_io.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace arrayhub {

absl::Status ErrnoError(std::string_view what, const std::string& path) {
  const int error = errno;
  std::string message = fmt::format("{} {}: {}", what, path, std::strerror(error));
  if (error == ENOSPC || error == EDQUOT) return absl::ResourceExhaustedError(message);
  return absl::InternalError(message);
}

absl::Status WriteAll(int fd, std::string_view bytes, const std::string& path) {
  while (!bytes.empty()) {
    const ssize_t written = ::write(fd, bytes.data(), bytes.size());
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) return ErrnoError("cannot write", path);
    bytes.remove_prefix(static_cast<size_t>(written));
  }
  return absl::OkStatus();
}

}  // namespace arrayhub
