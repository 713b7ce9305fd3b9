// The backend's own descriptor of a client's shared-memory object.
#pragma once

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
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

 private:
  explicit RegionFile(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace arrayhub
