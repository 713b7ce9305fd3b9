// The backend's own descriptor of a client's shared-memory object, and the check that the
// client has not shrunk it under a copy. Header-only: the host and the CUDA backend (separate
// libraries) both use it.
#pragma once

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace arrayhub {

class RegionFile {
 public:
  // A close-on-exec duplicate of `fd`, so that the caller may close its own.
  static absl::StatusOr<RegionFile> Duplicate(int fd) {
    const int copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (copy < 0) {
      return absl::ResourceExhaustedError(
          fmt::format("cannot duplicate the shared-memory descriptor: {}", std::strerror(errno)));
    }
    return RegionFile(copy);
  }

  RegionFile(RegionFile&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  RegionFile& operator=(RegionFile&&) = delete;
  ~RegionFile() {
    if (fd_ >= 0) close(fd_);
  }

  int fd() const { return fd_; }

  // FAILED_PRECONDITION when the object no longer reaches `end` bytes: the client truncated it
  // after registering it.
  absl::Status CheckCovers(int64_t end) const {
    struct stat info {};
    if (fstat(fd_, &info) != 0) {
      return absl::InternalError(
          fmt::format("fstat of a shared-memory region failed: {}", std::strerror(errno)));
    }
    if (info.st_size < end) return ShrunkError(info.st_size, end);
    return absl::OkStatus();
  }

  static absl::Status ShrunkError(int64_t size, int64_t end) {
    return absl::FailedPreconditionError(
        fmt::format("the shared-memory object shrank to {} bytes after it was registered; the "
                    "copy needs {} bytes",
                    size, end));
  }

 private:
  explicit RegionFile(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace arrayhub
