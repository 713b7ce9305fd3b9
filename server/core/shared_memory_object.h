// A client's shared-memory object as the daemon receives it: a descriptor handed over the
// daemon's Unix socket, and what it must be before it may become a region.
#pragma once

#include <sys/types.h>

#include <cstdint>

namespace arrayhub {

// A file descriptor, closed when this goes.
class OwnedFd {
 public:
  explicit OwnedFd(int fd) : fd_(fd) {}
  OwnedFd(OwnedFd&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  OwnedFd& operator=(OwnedFd&&) = delete;
  ~OwnedFd();

  int get() const { return fd_; }

 private:
  int fd_;
};

// Whether `fd`, sent by a process of user `sender`, may back a region of `byte_size` bytes:
// a regular file in tmpfs (memfd_create with MFD_ALLOW_SEALING) owned by `sender`, open for
// reading and writing, sealed against shrinking (F_SEAL_SHRINK) but not against writing, and
// at least `byte_size` bytes long.
// The seal means the object can never become shorter than the region afterwards, so no copy
// can meet its end part-way (SIGBUS through a mapping, a short read through pread); tmpfs
// means a copy never waits on a device or on a user-space filesystem (FUSE) the client runs.
bool IsRegistrableObject(int fd, uid_t sender, int64_t byte_size);

}  // namespace arrayhub
