#include "server/core/shared_memory_object.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

namespace arrayhub {

OwnedFd::~OwnedFd() {
  if (fd_ >= 0) close(fd_);
}

bool IsRegistrableObject(int fd, uid_t sender, int64_t byte_size) {
  struct stat info {};
  struct statfs filesystem {};
  if (fstat(fd, &info) != 0 || fstatfs(fd, &filesystem) != 0) return false;
  const int flags = fcntl(fd, F_GETFL);
  const int seals = fcntl(fd, F_GET_SEALS);
  // A descriptor opened O_PATH passes fstat but can be neither read nor written; F_GETFL
  // shows it.
  return S_ISREG(info.st_mode) && filesystem.f_type == TMPFS_MAGIC && info.st_uid == sender &&
         flags >= 0 && (flags & O_PATH) == 0 && (flags & O_ACCMODE) == O_RDWR && seals >= 0 &&
         (seals & F_SEAL_SHRINK) != 0 && (seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE)) == 0 &&
         info.st_size >= byte_size;
}

}  // namespace arrayhub
