// Opening a client's POSIX shared-memory object safely: the name's shape, the object's type
// and size, and the proof that the caller can read it (the key in its header).
#pragma once

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"

namespace arrayhub {

// Every client region starts with this many bytes of header, the registration key; array data
// lies after it.
inline constexpr int64_t kSharedMemoryHeaderBytes = 32;

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

// INVALID_ARGUMENT unless `shm_key` is '/' then 1-250 characters of [A-Za-z0-9._-], not only
// dots: a name directly in /dev/shm, never a path elsewhere.
absl::Status ValidateShmKey(std::string_view shm_key);

// Opens the object `shm_key` (already validated) for reading and writing. It must be a regular
// file of at least `byte_size` bytes whose first kSharedMemoryHeaderBytes bytes equal `key`
// (compared in constant time). The header is read with pread, never through a mapping.
absl::StatusOr<OwnedFd> OpenClientObject(std::string_view shm_key, int64_t byte_size,
                                         std::string_view key);

}  // namespace arrayhub
