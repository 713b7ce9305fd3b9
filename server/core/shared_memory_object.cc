#include "server/core/shared_memory_object.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <string>

namespace arrayhub {
namespace {

constexpr size_t kMaxShmKeyCharacters = 250;  // After the '/'; NAME_MAX is 255.

// Equal without an early exit, so that the time taken says nothing about where a guess went
// wrong.
bool ConstantTimeEqual(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char difference = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    difference |= static_cast<unsigned char>(a[i] ^ b[i]);
  }
  return difference == 0;
}

absl::Status OpenError(std::string_view shm_key, int error) {
  const std::string reason = fmt::format("shm_open: {}", std::strerror(error));
  switch (error) {
    case ENOENT:
      return absl::NotFoundError(
          fmt::format("shm_key '{}': no such shared-memory object on the server's host ({}); a "
                      "client on another host or in another container must stream instead",
                      shm_key, reason));
    case EACCES:
      return absl::PermissionDeniedError(
          fmt::format("shm_key '{}': the server may not open the object ({}); it must be "
                      "readable and writable by the user arrayhubd runs as",
                      shm_key, reason));
    case EMFILE:
    case ENFILE:
      return absl::ResourceExhaustedError(fmt::format(
          "shm_key '{}': the server has no file descriptor left ({})", shm_key, reason));
    default:
      return absl::FailedPreconditionError(fmt::format(
          "shm_key '{}' cannot be opened as a shared-memory object ({})", shm_key, reason));
  }
}

}  // namespace

OwnedFd::~OwnedFd() {
  if (fd_ >= 0) close(fd_);
}

absl::Status ValidateShmKey(std::string_view shm_key) {
  const std::string_view name = shm_key.empty() ? shm_key : shm_key.substr(1);
  if (shm_key.empty() || shm_key[0] != '/' || name.empty() || name.size() > kMaxShmKeyCharacters) {
    return absl::InvalidArgumentError(
        fmt::format("shm_key must be '/' followed by 1 to {} characters, got '{}' ({} characters)",
                    kMaxShmKeyCharacters, shm_key, shm_key.size()));
  }
  auto bad = std::find_if_not(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
  });
  if (bad != name.end()) {
    return absl::InvalidArgumentError(fmt::format(
        "shm_key may contain only [A-Za-z0-9._-] after its leading '/'; character {} (byte "
        "0x{:02x}) is not",
        bad - name.begin() + 1, static_cast<unsigned char>(*bad)));
  }
  if (name.find_first_not_of('.') == std::string_view::npos) {
    return absl::InvalidArgumentError(
        fmt::format("shm_key '{}' names a directory, not an object", shm_key));
  }
  return absl::OkStatus();
}

absl::StatusOr<OwnedFd> OpenClientObject(std::string_view shm_key, int64_t byte_size,
                                         std::string_view key) {
  // glibc's shm_open adds O_NOFOLLOW and O_CLOEXEC: a planted symbolic link is refused.
  OwnedFd fd(shm_open(std::string(shm_key).c_str(), O_RDWR, 0));
  if (fd.get() < 0) return OpenError(shm_key, errno);
  struct stat info {};
  if (fstat(fd.get(), &info) != 0) {
    return absl::InternalError(
        fmt::format("shm_key '{}': fstat failed: {}", shm_key, std::strerror(errno)));
  }
  if (!S_ISREG(info.st_mode)) {
    return absl::FailedPreconditionError(
        fmt::format("shm_key '{}' is not a shared-memory object (not a regular file)", shm_key));
  }
  if (info.st_size < byte_size) {
    return absl::InvalidArgumentError(
        fmt::format("byte_size {} exceeds the size of shared-memory object '{}', {} bytes",
                    byte_size, shm_key, static_cast<int64_t>(info.st_size)));
  }
  std::array<char, kSharedMemoryHeaderBytes> header{};
  ssize_t n;
  do {
    n = pread(fd.get(), header.data(), header.size(), 0);
  } while (n < 0 && errno == EINTR);
  // A short read means the client truncated the object since the fstat; refuse it like a
  // wrong key (tmpfs reads the whole header in one call otherwise).
  if (n != static_cast<ssize_t>(header.size()) ||
      !ConstantTimeEqual(std::string_view(header.data(), header.size()), key)) {
    return absl::PermissionDeniedError(fmt::format(
        "key does not match the first {} bytes of shared-memory object '{}': only a client "
        "that can read the object may register it",
        kSharedMemoryHeaderBytes, shm_key));
  }
  return fd;
}

}  // namespace arrayhub
